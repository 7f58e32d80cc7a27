/* braggscope-view.h: a GTK 4 widget that shows a simulation's frames.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gtk/gtk.h>

#include "braggscope.h"
#include "braggscope-gtk-export.h"

G_BEGIN_DECLS

#define BRAGGSCOPE_TYPE_VIEW (braggscope_view_get_type ())

/**
 * BraggscopeCompareMode:
 * @BRAGGSCOPE_COMPARE_NONE: the current frame alone
 * @BRAGGSCOPE_COMPARE_SIDE_BY_SIDE: the reference on the left, the current
 *   frame on the right, each with its own contrast window
 * @BRAGGSCOPE_COMPARE_BLINK: one of the two, chosen by
 *   [property@BraggscopeGtk.View:blink-reference]
 * @BRAGGSCOPE_COMPARE_OVERLAY: the reference in grey, the current frame's
 *   spots over it in orange
 * @BRAGGSCOPE_COMPARE_DIFFERENCE: the current frame minus the reference, in a
 *   diverging colour table symmetric about 0 (blue below, white at 0, red
 *   above)
 *
 * How a [class@BraggscopeGtk.View] shows its current frame together with its
 * reference layer ([method@BraggscopeGtk.View.set_reference]).
 *
 * Since: 0.1
 */
typedef enum
{
  BRAGGSCOPE_COMPARE_NONE,
  BRAGGSCOPE_COMPARE_SIDE_BY_SIDE,
  BRAGGSCOPE_COMPARE_BLINK,
  BRAGGSCOPE_COMPARE_OVERLAY,
  BRAGGSCOPE_COMPARE_DIFFERENCE,
} BraggscopeCompareMode;

/**
 * BraggscopeLabelBox:
 * @x: the left edge of the label (its text and backing), pixels of the
 *   target: widget pixels for [method@BraggscopeGtk.View.get_label_boxes],
 *   the picture's for [func@BraggscopeGtk.render_annotations_rgba]
 * @y: its top edge
 * @width: its width, pixels
 * @height: its height, pixels
 * @font_size: the size of its text, pixels
 * @ring: %TRUE for a ring's resolution, %FALSE for a reflection's h k l
 * @h: the reflection's Miller index h (0 for a ring)
 * @k: Miller index k
 * @l: Miller index l
 * @d_spacing: the ring's or the reflection's resolution d, Å
 *
 * A label drawn over a frame, where it was drawn.
 *
 * Since: 0.1
 */
typedef struct
{
  double x, y, width, height;
  double font_size;
  gboolean ring;
  int h, k, l;
  double d_spacing;
} BraggscopeLabelBox;

/**
 * BraggscopeAnnotations:
 * @show_rings: whether to draw resolution rings
 * @show_beam_center: whether to mark the beam centre
 * @ring_resolutions: (nullable): resolutions of the rings in Å ("3 2.5"), as
 *   [property@BraggscopeGtk.View:ring-resolutions]; %NULL for rings at round
 *   d over the detector's range
 * @n_labels: how many of the brightest predicted reflections to label with
 *   h k l (a count; 0 for none), as [property@BraggscopeGtk.View:label-count]
 * @label_reflections: (nullable): reflections labelled first whenever they
 *   are predicted ("0 0 6; 0 0 12"), as
 *   [property@BraggscopeGtk.View:label-reflections]; labelled only when
 *   @n_labels is not 0
 *
 * What [func@BraggscopeGtk.render_annotations_rgba] draws over a frame.
 *
 * Since: 0.1
 */
typedef struct
{
  gboolean show_rings;
  gboolean show_beam_center;
  const char *ring_resolutions;
  guint n_labels;
  const char *label_reflections;
} BraggscopeAnnotations;

#define BRAGGSCOPE_TYPE_COMPARE_MODE (braggscope_compare_mode_get_type ())
BRAGGSCOPE_GTK_EXPORT
GType braggscope_compare_mode_get_type (void) G_GNUC_CONST;

BRAGGSCOPE_GTK_EXPORT
G_DECLARE_FINAL_TYPE (BraggscopeView, braggscope_view, BRAGGSCOPE, VIEW, GtkWidget)

BRAGGSCOPE_GTK_EXPORT
GtkWidget *braggscope_view_new (BraggscopeSimulation *simulation);

BRAGGSCOPE_GTK_EXPORT
BraggscopeSimulation *braggscope_view_get_simulation (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_simulation (BraggscopeView *self, BraggscopeSimulation *simulation);

BRAGGSCOPE_GTK_EXPORT
BraggscopeFrame *braggscope_view_get_frame (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
BraggscopeFrame *braggscope_view_get_shown_frame (BraggscopeView *self);

BRAGGSCOPE_GTK_EXPORT
BraggscopeColormap braggscope_view_get_colormap (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_colormap (BraggscopeView *self, BraggscopeColormap colormap);
BRAGGSCOPE_GTK_EXPORT
BraggscopeScale braggscope_view_get_scale (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_scale (BraggscopeView *self, BraggscopeScale scale);
BRAGGSCOPE_GTK_EXPORT
double braggscope_view_get_gamma (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_gamma (BraggscopeView *self, double gamma);
BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_view_get_auto_contrast (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_auto_contrast (BraggscopeView *self, gboolean auto_contrast);
BRAGGSCOPE_GTK_EXPORT
double braggscope_view_get_contrast_percentile (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_contrast_percentile (BraggscopeView *self, double percentile);
BRAGGSCOPE_GTK_EXPORT
double braggscope_view_get_low (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_low (BraggscopeView *self, double low);
BRAGGSCOPE_GTK_EXPORT
double braggscope_view_get_high (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_high (BraggscopeView *self, double high);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_get_display (BraggscopeView *self, BraggscopeDisplay *display);

BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_view_get_show_rings (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_show_rings (BraggscopeView *self, gboolean show_rings);
BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_view_get_show_beam_center (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_show_beam_center (BraggscopeView *self, gboolean show_beam_center);

BRAGGSCOPE_GTK_EXPORT
double braggscope_view_get_zoom (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_zoom (BraggscopeView *self, double zoom);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_get_center (BraggscopeView *self, double *x, double *y);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_center (BraggscopeView *self, double x, double y);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_fit (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_view_widget_to_frame (
    BraggscopeView *self, double x, double y, double *frame_x, double *frame_y);
BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_view_frame_to_widget (
    BraggscopeView *self, double frame_x, double frame_y, double *x, double *y);

BRAGGSCOPE_GTK_EXPORT
const char *braggscope_view_get_renderer (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_view_get_force_software (BraggscopeView *self);

BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_view_get_beam_center (BraggscopeView *self, double *x, double *y);

BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_readout_point (BraggscopeView *self, double x, double y);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_clear_readout (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_view_get_readout (BraggscopeView *self,
                                      double *frame_x,
                                      double *frame_y,
                                      int *pixel_x,
                                      int *pixel_y,
                                      float *value,
                                      BraggscopePixelInfo *info);
BRAGGSCOPE_GTK_EXPORT
char *braggscope_view_format_readout (BraggscopeView *self);

BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_view_get_show_labels (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_show_labels (BraggscopeView *self, gboolean show_labels);
BRAGGSCOPE_GTK_EXPORT
guint braggscope_view_get_label_count (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_label_count (BraggscopeView *self, guint count);
BRAGGSCOPE_GTK_EXPORT
const char *braggscope_view_get_ring_resolutions (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_ring_resolutions (BraggscopeView *self, const char *resolutions);
BRAGGSCOPE_GTK_EXPORT
GArray *braggscope_view_get_labels (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
GArray *braggscope_view_get_label_boxes (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
const char *braggscope_view_get_label_reflections (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_label_reflections (BraggscopeView *self, const char *reflections);

BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_marker (BraggscopeView *self, double x, double y, const char *label);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_clear_marker (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_view_get_marker (BraggscopeView *self, double *x, double *y);

BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_view_set_reference (
    BraggscopeView *self, GBytes *pixels, int width, int height, const char *label, GError **error);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_hold_frame (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_clear_reference (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_view_get_has_reference (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_reference_geometry (BraggscopeView *self, BraggscopeGeometry *geometry);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_reference_caption (BraggscopeView *self, const char *caption);
BRAGGSCOPE_GTK_EXPORT
char *braggscope_view_get_caption (BraggscopeView *self, gboolean reference);
BRAGGSCOPE_GTK_EXPORT
const char *braggscope_view_get_reference_label (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
BraggscopeCompareMode braggscope_view_get_compare_mode (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_compare_mode (BraggscopeView *self, BraggscopeCompareMode mode);
BRAGGSCOPE_GTK_EXPORT
gboolean braggscope_view_get_blink_reference (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
void braggscope_view_set_blink_reference (BraggscopeView *self, gboolean blink_reference);
BRAGGSCOPE_GTK_EXPORT
const char *braggscope_view_get_compare_fallback (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
float braggscope_view_get_reference_value (BraggscopeView *self);

BRAGGSCOPE_GTK_EXPORT
GdkTexture *braggscope_view_snapshot_texture (BraggscopeView *self);
BRAGGSCOPE_GTK_EXPORT
guint8 *braggscope_view_render_rgba (BraggscopeView *self, int *width, int *height);
BRAGGSCOPE_GTK_EXPORT
GBytes *braggscope_view_render_bytes (BraggscopeView *self, int *width, int *height);

BRAGGSCOPE_GTK_EXPORT
void braggscope_render_auto_window (BraggscopeFrame *frame, BraggscopeDisplay *display);
BRAGGSCOPE_GTK_EXPORT
guint8 *braggscope_render_annotated_rgba (BraggscopeFrame *frame,
                                          const BraggscopeDisplay *display,
                                          gboolean show_rings,
                                          gboolean show_beam_center,
                                          const char *ring_resolutions,
                                          guint n_labels,
                                          int *width,
                                          int *height);
BRAGGSCOPE_GTK_EXPORT
guint8 *braggscope_render_annotations_rgba (BraggscopeFrame *frame,
                                            const BraggscopeDisplay *display,
                                            const BraggscopeAnnotations *annotations,
                                            GArray *label_boxes,
                                            int *width,
                                            int *height);
BRAGGSCOPE_GTK_EXPORT
guint8 *braggscope_render_rgba (BraggscopeFrame *frame,
                                const BraggscopeDisplay *display,
                                gboolean show_rings,
                                gboolean show_beam_center,
                                int *width,
                                int *height);
BRAGGSCOPE_GTK_EXPORT
GBytes *braggscope_render_bytes (BraggscopeFrame *frame,
                                 const BraggscopeDisplay *display,
                                 gboolean show_rings,
                                 gboolean show_beam_center,
                                 int *width,
                                 int *height);
BRAGGSCOPE_GTK_EXPORT
guint8 *braggscope_render_compare_rgba (BraggscopeFrame *frame,
                                        const guint8 *picture,
                                        const BraggscopeDisplay *display,
                                        const float *reference,
                                        int reference_width,
                                        int reference_height,
                                        const BraggscopeDisplay *reference_display,
                                        const guint8 *reference_picture,
                                        BraggscopeCompareMode mode,
                                        gboolean reference_scale,
                                        int *width,
                                        int *height,
                                        const char **fallback);

G_END_DECLS
