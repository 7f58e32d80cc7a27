/* braggscope-reciprocal-view.h: the Ewald sphere and the reciprocal lattice
 * of a simulation's frames, linked with a detector view.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gtk/gtk.h>

#include "braggscope.h"
#include "braggscope-gtk-export.h"
#include "braggscope-view.h"

G_BEGIN_DECLS

#define BRAGGSCOPE_TYPE_RECIPROCAL_VIEW (braggscope_reciprocal_view_get_type ())

BRAGGSCOPE_GTK_EXPORT
G_DECLARE_FINAL_TYPE (
    BraggscopeReciprocalView, braggscope_reciprocal_view, BRAGGSCOPE, RECIPROCAL_VIEW, GtkWidget)

BRAGGSCOPE_GTK_EXPORT
GtkWidget *braggscope_reciprocal_view_new (BraggscopeSimulation *simulation);

BRAGGSCOPE_GTK_EXPORT
BraggscopeSimulation *braggscope_reciprocal_view_get_simulation (BraggscopeReciprocalView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_reciprocal_view_set_simulation (BraggscopeReciprocalView *self,
                                                BraggscopeSimulation *simulation);
BRAGGSCOPE_GTK_EXPORT
BraggscopeFrame *braggscope_reciprocal_view_get_frame (BraggscopeReciprocalView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_reciprocal_view_set_frame (BraggscopeReciprocalView *self, BraggscopeFrame *frame);

BRAGGSCOPE_GTK_EXPORT
BraggscopeView *braggscope_reciprocal_view_get_detector_view (BraggscopeReciprocalView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_reciprocal_view_set_detector_view (BraggscopeReciprocalView *self,
                                                   BraggscopeView *view);

BRAGGSCOPE_GTK_EXPORT
void braggscope_reciprocal_view_set_highlight (BraggscopeReciprocalView *self, int h, int k, int l);
BRAGGSCOPE_GTK_EXPORT
void braggscope_reciprocal_view_clear_highlight (BraggscopeReciprocalView *self);
BRAGGSCOPE_GTK_EXPORT
gboolean
braggscope_reciprocal_view_get_highlight (BraggscopeReciprocalView *self, int *h, int *k, int *l);
BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_reciprocal_view_point_at (BraggscopeReciprocalView *self, double x, double y);
BRAGGSCOPE_GTK_EXPORT
const char *braggscope_reciprocal_view_get_message (BraggscopeReciprocalView *self);
BRAGGSCOPE_GTK_EXPORT
guint braggscope_reciprocal_view_get_n_diffracting (BraggscopeReciprocalView *self);
BRAGGSCOPE_GTK_EXPORT
guint braggscope_reciprocal_view_get_n_crossing (BraggscopeReciprocalView *self);
BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_reciprocal_view_get_sphere (BraggscopeReciprocalView *self,
                                                double *x,
                                                double *y,
                                                double *radius);
BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_reciprocal_view_get_point (BraggscopeReciprocalView *self,
                                               int h,
                                               int k,
                                               int l,
                                               double *x,
                                               double *y,
                                               gboolean *diffracting,
                                               gboolean *crossing);

BRAGGSCOPE_GTK_EXPORT
GBytes *
braggscope_reciprocal_view_render_bytes (BraggscopeReciprocalView *self, int width, int height);

BRAGGSCOPE_GTK_EXPORT
GBytes *braggscope_render_reciprocal_bytes (BraggscopeFrame *frame,
                                            double yaw,
                                            double pitch,
                                            double zoom,
                                            double resolution_limit,
                                            int width,
                                            int height);
BRAGGSCOPE_GTK_EXPORT
GBytes *braggscope_render_reciprocal_scaled_bytes (BraggscopeFrame *frame,
                                                   double yaw,
                                                   double pitch,
                                                   double zoom,
                                                   double resolution_limit,
                                                   double scale_wavelength,
                                                   int width,
                                                   int height);

G_END_DECLS
