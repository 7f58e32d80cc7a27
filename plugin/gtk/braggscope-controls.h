/* braggscope-controls.h: sliders and entries bound to a simulation's parameters.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gtk/gtk.h>

#include "braggscope.h"
#include "braggscope-gtk-export.h"
#include "braggscope-view.h"

G_BEGIN_DECLS

#define BRAGGSCOPE_TYPE_CONTROLS (braggscope_controls_get_type ())

BRAGGSCOPE_GTK_EXPORT
G_DECLARE_FINAL_TYPE (BraggscopeControls, braggscope_controls, BRAGGSCOPE, CONTROLS, GtkWidget)

BRAGGSCOPE_GTK_EXPORT
GtkWidget *braggscope_controls_new (BraggscopeSimulation *simulation);

BRAGGSCOPE_GTK_EXPORT
GtkWidget *braggscope_controls_new_with_view (BraggscopeSimulation *simulation,
                                              BraggscopeView *view);

BRAGGSCOPE_GTK_EXPORT
BraggscopeSimulation *braggscope_controls_get_simulation (BraggscopeControls *self);

BRAGGSCOPE_GTK_EXPORT
GtkWidget *braggscope_controls_get_widget (BraggscopeControls *self, const char *name);

G_END_DECLS
