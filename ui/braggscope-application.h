/* braggscope-application.h: the Braggscope viewer's GtkApplication.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define BRAGGSCOPE_TYPE_APPLICATION (braggscope_application_get_type ())
G_DECLARE_FINAL_TYPE (
    BraggscopeApplication, braggscope_application, BRAGGSCOPE, APPLICATION, GtkApplication)

/* braggscope_application_new: the viewer with the application ID
 * io.github.braggscope.Braggscope; @flags are added to
 * G_APPLICATION_HANDLES_COMMAND_LINE (tests pass G_APPLICATION_NON_UNIQUE).
 * Command line: `braggscope [nanoBragg flags]` opens a window on the default
 * scene with the flags applied; `braggscope --snapshot FILE.png [flags]`
 * renders without a display and exits (0, 1 on failure, 2 on bad usage). */
BraggscopeApplication *braggscope_application_new (GApplicationFlags flags);

/* braggscope_application_get_settings: the io.github.braggscope.Braggscope
 * settings (transfer none), or NULL when the schema is not installed; the
 * viewer then works without remembering anything. */
GSettings *braggscope_application_get_settings (BraggscopeApplication *self);

/* braggscope_application_lookup_settings: the settings as above, looked up
 * in the installed schemas and then in the build tree's compiled schema
 * (uninstalled runs).  Transfer full; NULL when the schema is nowhere. */
GSettings *braggscope_application_lookup_settings (void);

G_END_DECLS
