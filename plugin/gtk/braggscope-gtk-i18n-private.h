/* braggscope-gtk-i18n-private.h: the widgets' text domain.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Binds the text domain the widgets' labels come from ("braggscope") to the
 * folder the library was installed with (or $BRAGGSCOPE_LOCALEDIR), in UTF-8,
 * once, unless the host bound it first: embedding hosts get translated
 * controls without calling bindtextdomain() themselves.  Called from the
 * widgets' class_init; thread-safe. */
void _braggscope_gtk_ensure_textdomain (void);

G_END_DECLS
