/* braggscope-view-marks.c: what BraggscopeView draws over a frame: the
 * resolution rings (chosen from the detector's range or at fixed
 * resolutions), the beam centre, the Miller indices of the brightest
 * predicted reflections, and the spot of a linked reciprocal view's lattice
 * point (the marker).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-view-private.h"

#include <pango/pangocairo.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Overlays */

/* @cache, computed from @geometry for a layer of @width x @height pixels
 * when @source says it is stale; NULL where it cannot be drawn. */
static const BraggscopeOverlayGeometry *
ensure_overlay_of (BraggscopeView *self,
                   BraggscopeGeometry *geometry,
                   int width,
                   int height,
                   BraggscopeOverlayGeometry *cache,
                   BraggscopeGeometry **source)
{
  if (geometry == NULL)
    return NULL;
  if (geometry != *source || cache->width != width || cache->height != height)
    {
      g_clear_pointer (source, braggscope_geometry_unref);
      *source = braggscope_geometry_ref (geometry);
      _braggscope_overlay_geometry_init (cache, geometry, width, height);
      _braggscope_overlay_geometry_fix_rings (cache, self->ring_resolutions);
    }
  return cache->projective ? cache : NULL;
}

const BraggscopeOverlayGeometry *
_braggscope_view_ensure_overlay (BraggscopeView *self)
{
  int width, height;

  if (!_braggscope_view_frame_size (self, &width, &height))
    return NULL;
  return ensure_overlay_of (self, braggscope_frame_get_geometry (self->frame), width, height,
                            &self->overlay, &self->overlay_source);
}

const BraggscopeOverlayGeometry *
_braggscope_view_ensure_reference_overlay (BraggscopeView *self)
{
  if (self->reference == NULL)
    return NULL;
  return ensure_overlay_of (self, self->reference_geometry, self->reference_width,
                            self->reference_height, &self->reference_overlay,
                            &self->reference_overlay_source);
}

/* The pixel size of @widget's body font: the size of the text over the
 * frame, so that labels read as the rest of the window does. */
static double
body_font_size (GtkWidget *widget)
{
  PangoContext *context = gtk_widget_get_pango_context (widget);
  const PangoFontDescription *font = pango_context_get_font_description (context);
  double size, resolution;

  if (font == NULL || pango_font_description_get_size (font) <= 0)
    return BRAGGSCOPE_OVERLAY_LEGIBLE_SIZE;
  size = (double) pango_font_description_get_size (font) / PANGO_SCALE;
  if (!pango_font_description_get_size_is_absolute (font))
    {
      resolution = pango_cairo_context_get_resolution (context);
      size *= (resolution > 0 ? resolution : 96.0) / 72.0;
    }
  return size;
}

/* One layer's rings, beam centre, labels (and the marker) in widget
 * coordinates, its frame pixel (0, 0) at frame coordinate @x0 of the view;
 * when comparing (@clip), inside the layer's rectangle on the widget. */
static void
draw_layer (BraggscopeView *self,
            cairo_t *cr,
            const BraggscopeOverlayGeometry *geom,
            GArray *labels,
            GArray *placed,
            GArray *boxes,
            gboolean marker,
            double x0,
            gboolean clip,
            const double color[4])
{
  BraggscopeOverlayStyle style = { 0 };
  double scale, origin_x, origin_y;

  if (geom == NULL || !_braggscope_view_transform (self, &scale, &origin_x, &origin_y))
    return;
  style.rings = self->show_rings;
  style.beam_center = self->show_beam_center;
  style.scale = scale;
  style.offset_x = (x0 - origin_x) * scale;
  style.offset_y = -origin_y * scale;
  style.line_width = 1.5;
  style.cross_size = 12.0;
  style.font_size = body_font_size (GTK_WIDGET (self));
  style.marker = marker && self->has_marker;
  style.marker_x = self->marker_x;
  style.marker_y = self->marker_y;
  style.marker_label = self->marker_label;
  style.labels = labels;
  style.labels_placed = placed;
  style.label_boxes = boxes;
  memcpy (style.color, color, sizeof style.color);
  _braggscope_overlay_halo_for (color, style.halo);

  cairo_save (cr);
  if (clip)
    {
      cairo_rectangle (cr, style.offset_x, style.offset_y, geom->width * scale,
                       geom->height * scale);
      cairo_clip (cr);
    }
  _braggscope_overlay_draw (geom, &style, cr);
  cairo_restore (cr);
}

/* @text at the top left of the part of the widget that frame coordinates
 * @x0 to @x1 cover. */
static void
draw_caption (BraggscopeView *self, cairo_t *cr, const char *text, double x0, double x1)
{
  double scale, origin_x, origin_y, left, top;

  if (text == NULL || !_braggscope_view_transform (self, &scale, &origin_x, &origin_y))
    return;
  left = MAX ((x0 - origin_x) * scale, 0.0);
  top = MAX (-origin_y * scale, 0.0);
  if (left >= (x1 - origin_x) * scale)
    return;
  _braggscope_overlay_draw_caption (cr, text, left + 6.0, top + 6.0, 13.0);
}

void
_braggscope_view_snapshot_overlays (BraggscopeView *self,
                                    GtkSnapshot *snapshot,
                                    int width,
                                    int height)
{
  BraggscopeCompareMode layout = _braggscope_view_compare_layout (self);
  gboolean show_reference = layout == BRAGGSCOPE_COMPARE_SIDE_BY_SIDE ||
                            (layout == BRAGGSCOPE_COMPARE_BLINK && self->blink_reference);
  gboolean show_current = !(layout == BRAGGSCOPE_COMPARE_BLINK && self->blink_reference);
  gboolean overlays = self->show_rings || self->show_beam_center || self->show_labels;
  g_autofree char *caption = NULL, *reference_caption = NULL;
  double color[4];
  cairo_t *cr;
  int w, h;

  if (!_braggscope_view_frame_size (self, &w, &h))
    return;
  caption = _braggscope_view_caption (self, layout, FALSE);
  reference_caption = _braggscope_view_caption (self, layout, TRUE);
  if (!overlays && !self->has_marker && caption == NULL && reference_caption == NULL)
    return;

  _braggscope_view_overlay_color (self, layout, color);
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  g_clear_pointer (&self->label_boxes, g_array_unref);
  self->label_boxes = g_array_new (FALSE, FALSE, sizeof (BraggscopeLabelBox));
  if (show_current)
    {
      GArray *labels = _braggscope_view_ensure_labels (self);

      if (labels != NULL)
        {
          g_clear_pointer (&self->labels_placed, g_array_unref);
          self->labels_placed = g_array_new (FALSE, FALSE, sizeof (BraggscopeReflection));
        }
      draw_layer (self, cr, _braggscope_view_ensure_overlay (self), labels,
                  labels != NULL ? self->labels_placed : NULL, self->label_boxes, TRUE, 0.0,
                  layout != BRAGGSCOPE_COMPARE_NONE, color);
      draw_caption (self, cr, caption, 0.0, w);
    }
  if (show_reference)
    {
      /* side by side the reference lies left of the frame */
      double x0 = layout == BRAGGSCOPE_COMPARE_SIDE_BY_SIDE ? -self->reference_width : 0.0;

      if (overlays)
        draw_layer (self, cr, _braggscope_view_ensure_reference_overlay (self),
                    _braggscope_view_ensure_reference_labels (self), NULL, self->label_boxes, FALSE,
                    x0, TRUE, color);
      draw_caption (self, cr, reference_caption, x0, x0 + self->reference_width);
    }
  cairo_destroy (cr);
}

GArray *
_braggscope_view_ensure_labels (BraggscopeView *self)
{
  g_autoptr (GError) error = NULL;

  if (!self->show_labels || self->frame == NULL || braggscope_frame_get_is_preview (self->frame))
    return NULL;
  if (self->labels_frame == self->frame && self->labels != NULL)
    return self->labels;
  g_clear_pointer (&self->labels, g_array_unref);
  g_set_object (&self->labels_frame, self->frame);
  self->labels = _braggscope_overlay_choose_labels (self->frame, self->label_count,
                                                    self->label_reflections, &error);
  if (self->labels == NULL)
    g_debug ("BraggscopeView: no labels: %s", error->message);
  return self->labels;
}

GArray *
_braggscope_view_ensure_reference_labels (BraggscopeView *self)
{
  if (!self->show_labels || self->reference_frame == NULL ||
      braggscope_frame_get_is_preview (self->reference_frame))
    return NULL;
  if (self->reference_labels == NULL)
    self->reference_labels = _braggscope_overlay_choose_labels (
        self->reference_frame, self->label_count, self->label_reflections, NULL);
  return self->reference_labels;
}

/**
 * braggscope_view_get_labels:
 * @self: a view
 *
 * The reflections labelled with h k l the last time the view was drawn (with
 * [property@BraggscopeGtk.View:show-labels] on): of those of
 * [property@BraggscopeGtk.View:label-reflections] predicted on the detector
 * and the brightest predicted reflections of the full frame shown, those
 * whose label found a place.
 *
 * Returns: (transfer container) (element-type BraggscopeReflection)
 *   (nullable): the labelled reflections, the named ones first, then the
 *   brightest, or %NULL when none were drawn
 *
 * Since: 0.1
 */
GArray *
braggscope_view_get_labels (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  if (!self->show_labels || self->labels_placed == NULL)
    return NULL;
  return g_array_ref (self->labels_placed);
}

/**
 * braggscope_view_get_label_boxes:
 * @self: a view
 *
 * Where the view last drew text over the frame: each ring's d and each
 * reflection's h k l, with its backing, in widget pixels.  No two overlap;
 * a label that found no room was left out, not drawn smaller.
 *
 * Returns: (transfer container) (element-type BraggscopeLabelBox)
 *   (nullable): the labels drawn, rings' first, or %NULL before the view
 *   drew a frame
 *
 * Since: 0.1
 */
GArray *
braggscope_view_get_label_boxes (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  return self->label_boxes != NULL ? g_array_ref (self->label_boxes) : NULL;
}

/**
 * braggscope_view_get_label_reflections:
 * @self: a view
 *
 * The [property@BraggscopeGtk.View:label-reflections].
 *
 * Returns: (nullable): the reflections labelled before the brightest, as
 *   set, or %NULL for none
 *
 * Since: 0.1
 */
const char *
braggscope_view_get_label_reflections (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);
  return self->label_reflections;
}

/**
 * braggscope_view_set_label_reflections:
 * @self: a view
 * @reflections: (nullable): Miller indices h k l, three integers each,
 *   separated by semicolons or commas ("0 0 6; 0 0 12"), or %NULL or "" for
 *   none
 *
 * Sets the [property@BraggscopeGtk.View:label-reflections].  Text that is
 * not such a list labels none of its own.
 *
 * Since: 0.1
 */
void
braggscope_view_set_label_reflections (BraggscopeView *self, const char *reflections)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (reflections != NULL && *reflections == '\0')
    reflections = NULL;
  if (g_strcmp0 (self->label_reflections, reflections) == 0)
    return;
  g_free (self->label_reflections);
  self->label_reflections = g_strdup (reflections);
  g_clear_object (&self->labels_frame);
  g_clear_pointer (&self->reference_labels, g_array_unref);
  g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_LABEL_REFLECTIONS]);
  _braggscope_view_invalidate (self, CHANGED_OVERLAY);
}

/**
 * braggscope_view_set_marker:
 * @self: a view
 * @x: frame coordinate along the fast axis, pixels (pixel i spans [i, i + 1))
 * @y: frame coordinate along the slow axis, pixels
 * @label: (nullable): text beside the mark ("3 -1 2")
 *
 * Marks a point of the frame with a circle and @label: where a linked
 * [class@BraggscopeGtk.ReciprocalView]'s lattice point sends its diffracted
 * ray.  One mark at a time; it stays until
 * [method@BraggscopeGtk.View.clear_marker].
 *
 * Since: 0.1
 */
void
braggscope_view_set_marker (BraggscopeView *self, double x, double y, const char *label)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));
  g_return_if_fail (isfinite (x) && isfinite (y));

  self->has_marker = TRUE;
  self->marker_x = x;
  self->marker_y = y;
  g_free (self->marker_label);
  self->marker_label = g_strdup (label);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * braggscope_view_clear_marker:
 * @self: a view
 *
 * Removes the mark of [method@BraggscopeGtk.View.set_marker].
 *
 * Since: 0.1
 */
void
braggscope_view_clear_marker (BraggscopeView *self)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (!self->has_marker)
    return;
  self->has_marker = FALSE;
  g_clear_pointer (&self->marker_label, g_free);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/**
 * braggscope_view_get_marker:
 * @self: a view
 * @x: (out) (optional): frame coordinate of the mark along the fast axis, pixels
 * @y: (out) (optional): along the slow axis, pixels
 *
 * Where the mark of [method@BraggscopeGtk.View.set_marker] is.
 *
 * Returns: %TRUE when a point is marked ([method@BraggscopeGtk.View.set_marker])
 *
 * Since: 0.1
 */
gboolean
braggscope_view_get_marker (BraggscopeView *self, double *x, double *y)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  if (x != NULL)
    *x = self->marker_x;
  if (y != NULL)
    *y = self->marker_y;
  return self->has_marker;
}

/**
 * braggscope_view_get_show_labels:
 * @self: a view
 *
 * The [property@BraggscopeGtk.View:show-labels].
 *
 * Returns: whether the brightest spots are labelled with h k l
 *
 * Since: 0.1
 */
gboolean
braggscope_view_get_show_labels (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);
  return self->show_labels;
}

/**
 * braggscope_view_set_show_labels:
 * @self: a view
 * @show_labels: whether to label the brightest spots with h k l
 *
 * Sets the [property@BraggscopeGtk.View:show-labels].
 *
 * Since: 0.1
 */
void
braggscope_view_set_show_labels (BraggscopeView *self, gboolean show_labels)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  show_labels = !!show_labels;
  if (self->show_labels == show_labels)
    return;
  self->show_labels = show_labels;
  g_object_notify (G_OBJECT (self), "show-labels");
  _braggscope_view_invalidate (self, CHANGED_OVERLAY);
}

/**
 * braggscope_view_get_label_count:
 * @self: a view
 *
 * The [property@BraggscopeGtk.View:label-count].
 *
 * Returns: how many of the brightest spots are labelled (a count)
 *
 * Since: 0.1
 */
guint
braggscope_view_get_label_count (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), 0);
  return self->label_count;
}

/**
 * braggscope_view_set_label_count:
 * @self: a view
 * @count: how many of the brightest spots to label, 1 to 500 (a count)
 *
 * Sets the [property@BraggscopeGtk.View:label-count].
 *
 * Since: 0.1
 */
void
braggscope_view_set_label_count (BraggscopeView *self, guint count)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  count = CLAMP (count, 1, 500);
  if (self->label_count == count)
    return;
  self->label_count = count;
  g_clear_object (&self->labels_frame);
  g_clear_pointer (&self->reference_labels, g_array_unref);
  g_object_notify (G_OBJECT (self), "label-count");
  _braggscope_view_invalidate (self, CHANGED_OVERLAY);
}

/**
 * braggscope_view_get_ring_resolutions:
 * @self: a view
 *
 * The [property@BraggscopeGtk.View:ring-resolutions].
 *
 * Returns: (nullable): the resolutions of the rings (Å), or %NULL for rings
 *   chosen from the detector's range
 *
 * Since: 0.1
 */
const char *
braggscope_view_get_ring_resolutions (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);
  return self->ring_resolutions;
}

/**
 * braggscope_view_set_ring_resolutions:
 * @self: a view
 * @resolutions: (nullable): resolutions d in Å separated by blanks or commas
 *   ("3 2.5"), or %NULL or "" for rings at round d (10, 5, 3.5 Å...)
 *   spread over the detector's range
 *
 * Sets the [property@BraggscopeGtk.View:ring-resolutions].  Text that is
 * not such a list keeps the automatic rings.
 *
 * Since: 0.1
 */
void
braggscope_view_set_ring_resolutions (BraggscopeView *self, const char *resolutions)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (resolutions != NULL && *resolutions == '\0')
    resolutions = NULL;
  if (g_strcmp0 (self->ring_resolutions, resolutions) == 0)
    return;
  g_free (self->ring_resolutions);
  self->ring_resolutions = g_strdup (resolutions);
  /* the overlays are recomputed with them */
  g_clear_pointer (&self->overlay_source, braggscope_geometry_unref);
  g_clear_pointer (&self->reference_overlay_source, braggscope_geometry_unref);
  g_object_notify (G_OBJECT (self), "ring-resolutions");
  _braggscope_view_invalidate (self, CHANGED_OVERLAY);
}
