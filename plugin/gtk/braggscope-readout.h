/* braggscope-readout.h: what the detector sees under a view's pointer.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gtk/gtk.h>

#include "braggscope-gtk-export.h"
#include "braggscope-view.h"

G_BEGIN_DECLS

#define BRAGGSCOPE_TYPE_READOUT (braggscope_readout_get_type ())

BRAGGSCOPE_GTK_EXPORT
G_DECLARE_FINAL_TYPE (BraggscopeReadout, braggscope_readout, BRAGGSCOPE, READOUT, GtkWidget)

BRAGGSCOPE_GTK_EXPORT
GtkWidget *braggscope_readout_new (BraggscopeView *view);

BRAGGSCOPE_GTK_EXPORT
BraggscopeView *braggscope_readout_get_view (BraggscopeReadout *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_readout_set_view (BraggscopeReadout *self, BraggscopeView *view);

BRAGGSCOPE_GTK_EXPORT
const char *braggscope_readout_get_placeholder (BraggscopeReadout *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_readout_set_placeholder (BraggscopeReadout *self, const char *placeholder);

BRAGGSCOPE_GTK_EXPORT
const char *braggscope_readout_get_text (BraggscopeReadout *self);
BRAGGSCOPE_GTK_EXPORT
const char *braggscope_readout_get_field (BraggscopeReadout *self, const char *name);

G_END_DECLS
