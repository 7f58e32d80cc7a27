/* braggscope-view-render.c: a frame as a view shows it, without a widget:
 * colour-mapped RGBA at the frame's resolution with the overlays, for PNG
 * snapshots and headless programs.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-view-private.h"

/* The reference layer colour-mapped as @layout shows it by itself, with its
 * own overlays; NULL where it has none (the composition maps it then). */
static guint8 *
render_reference (BraggscopeView *self, BraggscopeCompareMode layout)
{
  const BraggscopeOverlayGeometry *geom = _braggscope_view_ensure_reference_overlay (self);
  gsize n = (gsize) self->reference_width * self->reference_height;
  double color[4];
  guint8 *rgba;

  if (geom == NULL || !(self->show_rings || self->show_beam_center || self->show_labels))
    return NULL;
  rgba = g_malloc (n * 4);
  braggscope_colormap_apply (&self->reference_display, g_bytes_get_data (self->reference, NULL), n,
                             rgba);
  _braggscope_view_overlay_color (self, layout, color);
  _braggscope_overlay_draw_into_rgba (geom, self->show_rings, self->show_beam_center,
                                      _braggscope_view_ensure_reference_labels (self), NULL, color,
                                      rgba, self->reference_width, 0);
  return rgba;
}

/**
 * braggscope_view_render_rgba: (skip)
 * @self: a view
 * @width: (out): the picture's width in pixels, 0 without a frame
 * @height: (out): the picture's height in pixels, 0 without a frame
 *
 * The frame shown, colour-mapped as the view shows it
 * ([func@Braggscope.Colormap.apply] with
 * [method@BraggscopeGtk.View.get_display]) and with the overlays that are
 * switched on drawn over it, at the frame's resolution: one RGBA pixel per
 * detector pixel, whatever the zoom and pan.  For PNG snapshots and
 * headless programs: it needs no realized widget and no OpenGL.  With a
 * reference layer and a [property@BraggscopeGtk.View:compare-mode], the
 * picture is what [func@BraggscopeGtk.render_compare_rgba] gives (the blink
 * showing what [property@BraggscopeGtk.View:blink-reference] chooses), and
 * @width and @height are its size: each layer shown in its own colours
 * carries its own overlays (a held frame's rings, beam centre and labels
 * from its own geometry, [method@BraggscopeGtk.View.set_reference_geometry]),
 * and those drawn over the overlay or the difference take a colour apart
 * from the blend's.
 *
 * Bindings use [method@BraggscopeGtk.View.render_bytes].
 *
 * Returns: (transfer full) (nullable): @width * @height * 4 bytes of RGBA
 *   (alpha 255), row by row from pixel (0, 0), or %NULL without a frame;
 *   free with [func@GLib.free]
 *
 * Since: 0.1
 */
guint8 *
braggscope_view_render_rgba (BraggscopeView *self, int *width, int *height)
{
  const BraggscopeOverlayGeometry *geom;
  BraggscopeCompareMode layout;
  gboolean overlays;
  const float *data;
  double color[4];
  guint8 *rgba;
  int w, h;
  gsize n;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);
  g_return_val_if_fail (width != NULL && height != NULL, NULL);

  *width = *height = 0;
  if (!_braggscope_view_frame_size (self, &w, &h))
    return NULL;

  layout = _braggscope_view_compare_layout (self);
  overlays = self->show_rings || self->show_beam_center || self->show_labels;
  data = braggscope_frame_get_data (self->frame, &n);
  rgba = g_malloc (n * 4);
  braggscope_colormap_apply (&self->display, data, n, rgba);
  _braggscope_view_overlay_color (self, BRAGGSCOPE_COMPARE_NONE, color);
  if (overlays && (geom = _braggscope_view_ensure_overlay (self)) != NULL)
    _braggscope_overlay_draw_into_rgba (geom, self->show_rings, self->show_beam_center,
                                        _braggscope_view_ensure_labels (self), NULL, color, rgba, w,
                                        0);

  /* blink showing the frame shows it alone */
  if (layout != BRAGGSCOPE_COMPARE_NONE &&
      !(layout == BRAGGSCOPE_COMPARE_BLINK && !self->blink_reference))
    {
      g_autofree guint8 *reference = NULL;
      guint8 *composed;

      /* the reference is shown with the frame's table and scale */
      self->reference_display.colormap = self->display.colormap;
      self->reference_display.scale = self->display.scale;
      self->reference_display.gamma = self->display.gamma;
      reference = render_reference (self, layout);
      composed = braggscope_render_compare_rgba (
          self->frame, rgba, &self->display, g_bytes_get_data (self->reference, NULL),
          self->reference_width, self->reference_height, &self->reference_display, reference,
          self->compare_mode, self->reference_scale, &w, &h, NULL);
      g_free (rgba);
      rgba = composed;
      /* the overlays of the frame over the layers drawn in one, in a colour
       * apart from the blend's */
      _braggscope_view_overlay_color (self, layout, color);
      if ((layout == BRAGGSCOPE_COMPARE_OVERLAY || layout == BRAGGSCOPE_COMPARE_DIFFERENCE) &&
          overlays && (geom = _braggscope_view_ensure_overlay (self)) != NULL)
        _braggscope_overlay_draw_into_rgba (geom, self->show_rings, self->show_beam_center,
                                            _braggscope_view_ensure_labels (self), NULL, color,
                                            rgba, w, 0);
    }

  *width = w;
  *height = h;
  return rgba;
}

/**
 * braggscope_view_render_bytes:
 * @self: a view
 * @width: (out): the frame's width in pixels, 0 without a frame
 * @height: (out): the frame's height in pixels, 0 without a frame
 *
 * [method@BraggscopeGtk.View.render_rgba] as a [struct@GLib.Bytes], for
 * language bindings.
 *
 * Returns: (transfer full) (nullable): @width * @height * 4 bytes of RGBA
 *   (alpha 255), row by row from pixel (0, 0), or %NULL without a frame
 *
 * Since: 0.1
 */
GBytes *
braggscope_view_render_bytes (BraggscopeView *self, int *width, int *height)
{
  guint8 *rgba;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);
  g_return_val_if_fail (width != NULL && height != NULL, NULL);

  rgba = braggscope_view_render_rgba (self, width, height);
  if (rgba == NULL)
    return NULL;
  return g_bytes_new_take (rgba, (gsize) *width * *height * 4);
}

/**
 * braggscope_render_rgba: (skip)
 * @frame: a frame
 * @display: the colour table, scale, gamma and window, used as given (no
 *   automatic contrast: [func@BraggscopeGtk.render_auto_window] sets the
 *   window a view would choose)
 * @show_rings: whether to draw resolution rings
 * @show_beam_center: whether to mark the beam centre
 * @width: (out): the frame's width in pixels
 * @height: (out): the frame's height in pixels
 *
 * What [method@BraggscopeGtk.View.render_rgba] gives for a view showing
 * @frame with these settings, without a view: it needs neither a display
 * nor GTK to be initialised, for headless programs.
 *
 * Bindings use [func@BraggscopeGtk.render_bytes].
 *
 * Returns: (transfer full): @width * @height * 4 bytes of RGBA (alpha 255),
 *   row by row from pixel (0, 0); free with [func@GLib.free]
 *
 * Since: 0.1
 */
guint8 *
braggscope_render_rgba (BraggscopeFrame *frame,
                        const BraggscopeDisplay *display,
                        gboolean show_rings,
                        gboolean show_beam_center,
                        int *width,
                        int *height)
{
  /* the annotated image without labels, at the default ring resolutions */
  return braggscope_render_annotated_rgba (frame, display, show_rings, show_beam_center, NULL, 0,
                                           width, height);
}

/**
 * braggscope_render_auto_window:
 * @frame: a frame
 * @display: the display whose window (`low` and `high`) to set, changed in
 *   place
 *
 * Sets @display's window to the one
 * [property@BraggscopeGtk.View:auto-contrast] chooses for @frame: its 1st
 * and 99.5th percentiles, in photons per pixel
 * ([method@Braggscope.Frame.get_auto_window]); the other fields are left as
 * they are.  With [func@BraggscopeGtk.render_rgba] a headless program
 * renders a frame exactly as a view with automatic contrast shows it.
 *
 * Since: 0.1
 */
void
braggscope_render_auto_window (BraggscopeFrame *frame, BraggscopeDisplay *display)
{
  g_return_if_fail (BRAGGSCOPE_IS_FRAME (frame));
  g_return_if_fail (display != NULL);

  /* computed once per frame, on the GPU where it was rendered there */
  braggscope_frame_get_auto_window (frame, &display->low, &display->high);
}

/**
 * braggscope_render_bytes:
 * @frame: a frame
 * @display: the colour table, scale, gamma and window, used as given
 * @show_rings: whether to draw resolution rings
 * @show_beam_center: whether to mark the beam centre
 * @width: (out): the frame's width in pixels
 * @height: (out): the frame's height in pixels
 *
 * [func@BraggscopeGtk.render_rgba] as a [struct@GLib.Bytes], for language
 * bindings.
 *
 * Returns: (transfer full): @width * @height * 4 bytes of RGBA (alpha 255),
 *   row by row from pixel (0, 0)
 *
 * Since: 0.1
 */
GBytes *
braggscope_render_bytes (BraggscopeFrame *frame,
                         const BraggscopeDisplay *display,
                         gboolean show_rings,
                         gboolean show_beam_center,
                         int *width,
                         int *height)
{
  guint8 *rgba;

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (frame), NULL);
  g_return_val_if_fail (display != NULL, NULL);
  g_return_val_if_fail (width != NULL && height != NULL, NULL);

  rgba = braggscope_render_rgba (frame, display, show_rings, show_beam_center, width, height);
  return g_bytes_new_take (rgba, (gsize) *width * *height * 4);
}

/**
 * braggscope_render_annotated_rgba: (skip)
 * @frame: a frame
 * @display: the colormap, scale and window (used as given: no auto-contrast)
 * @show_rings: whether to draw resolution rings
 * @show_beam_center: whether to mark the beam centre
 * @ring_resolutions: (nullable): resolutions of the rings in Å ("3 2.5"), as
 *   [property@BraggscopeGtk.View:ring-resolutions]; %NULL for automatic rings
 * @n_labels: how many of the brightest predicted reflections to label with
 *   h k l (a count; 0 for none), as [property@BraggscopeGtk.View:show-labels]
 * @width: (out): the frame's width
 * @height: (out): the frame's height
 *
 * [func@BraggscopeGtk.render_rgba] with what a teaching view adds: rings at
 * fixed resolutions and Miller-index labels.  Needs no display.
 *
 * Returns: (transfer full): width * height * 4 bytes of RGBA (alpha 255),
 *   row-major, freed with `g_free`
 *
 * Since: 0.1
 */
guint8 *
braggscope_render_annotated_rgba (BraggscopeFrame *frame,
                                  const BraggscopeDisplay *display,
                                  gboolean show_rings,
                                  gboolean show_beam_center,
                                  const char *ring_resolutions,
                                  guint n_labels,
                                  int *width,
                                  int *height)
{
  BraggscopeAnnotations annotations = { show_rings, show_beam_center, ring_resolutions, n_labels,
                                        NULL };

  return braggscope_render_annotations_rgba (frame, display, &annotations, NULL, width, height);
}

/**
 * braggscope_render_annotations_rgba: (skip)
 * @frame: a frame
 * @display: the colormap, scale and window (used as given: no auto-contrast)
 * @annotations: what to draw over the frame: rings, beam centre, labels
 * @label_boxes: (nullable) (element-type BraggscopeLabelBox): where each
 *   label was drawn (the rings' d first, then the reflections' h k l, in the
 *   picture's pixels) is appended here
 * @width: (out): the frame's width
 * @height: (out): the frame's height
 *
 * The frame as a teaching view shows it, at the frame's resolution: rings at
 * round or fixed resolutions and h k l labels, the text a fiftieth of the
 * frame's smaller side but never under the size of GTK's body font (Sans 10,
 * 13.3 pixels), no two labels overlapping (those that find no room are left
 * out).  A multi-panel detector is drawn as a view shows it, its panels
 * seen from the sample ([method@Braggscope.Frame.project]; @width and
 * @height are then the projection's).  Needs no display.
 *
 * Returns: (transfer full): width * height * 4 bytes of RGBA (alpha 255),
 *   row-major, freed with `g_free`
 *
 * Since: 0.1
 */
guint8 *
braggscope_render_annotations_rgba (BraggscopeFrame *frame,
                                    const BraggscopeDisplay *display,
                                    const BraggscopeAnnotations *annotations,
                                    GArray *label_boxes,
                                    int *width,
                                    int *height)
{
  BraggscopeOverlayGeometry geom;
  BraggscopeGeometry *geometry;
  g_autoptr (BraggscopeFrame) shown = NULL;
  g_autoptr (GArray) labels = NULL;
  const float *data;
  guint8 *rgba;
  gsize n;
  int w, h;

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (frame), NULL);
  g_return_val_if_fail (display != NULL, NULL);
  g_return_val_if_fail (annotations != NULL, NULL);
  g_return_val_if_fail (width != NULL && height != NULL, NULL);

  /* a multi-panel detector as the sample sees it, as a view shows it */
  if ((shown = braggscope_frame_project (frame)) != NULL)
    frame = shown;
  w = braggscope_frame_get_width (frame);
  h = braggscope_frame_get_height (frame);
  data = braggscope_frame_get_data (frame, &n);
  rgba = g_malloc (MAX (n, 1) * 4);
  braggscope_colormap_apply (display, data, n, rgba);
  if (annotations->n_labels > 0)
    labels = _braggscope_overlay_choose_labels (frame, annotations->n_labels,
                                                annotations->label_reflections, NULL);

  geometry = braggscope_frame_get_geometry (frame);
  if (geometry != NULL && _braggscope_overlay_geometry_init (&geom, geometry, w, h))
    {
      double color[4];

      _braggscope_overlay_geometry_fix_rings (&geom, annotations->ring_resolutions);
      _braggscope_overlay_color_for (display->colormap, color);
      _braggscope_overlay_draw_into_rgba (&geom, annotations->show_rings,
                                          annotations->show_beam_center, labels, label_boxes, color,
                                          rgba, w, 0);
    }
  *width = w;
  *height = h;
  return rgba;
}
