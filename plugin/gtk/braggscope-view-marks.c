/* braggscope-view-marks.c: what BraggscopeView draws over a frame: the
 * resolution rings (chosen from the detector's range or at fixed
 * resolutions), the beam centre, the Miller indices of the brightest
 * predicted reflections, and the spot of a linked reciprocal view's lattice
 * point (the marker).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-view-private.h"

/* ------------------------------------------------------------------------- */
/* Overlays */

const BraggscopeOverlayGeometry *
_braggscope_view_ensure_overlay (BraggscopeView *self)
{
  BraggscopeGeometry *geometry;
  int width, height;

  if (!_braggscope_view_frame_size (self, &width, &height))
    return NULL;
  geometry = braggscope_frame_get_geometry (self->frame);
  if (geometry == NULL)
    return NULL;
  if (geometry != self->overlay_source || self->overlay.width != width ||
      self->overlay.height != height)
    {
      g_clear_pointer (&self->overlay_source, braggscope_geometry_unref);
      self->overlay_source = braggscope_geometry_ref (geometry);
      _braggscope_overlay_geometry_init (&self->overlay, geometry, width, height);
      _braggscope_overlay_geometry_fix_rings (&self->overlay, self->ring_resolutions);
    }
  return self->overlay.projective ? &self->overlay : NULL;
}

void
_braggscope_view_snapshot_overlays (BraggscopeView *self,
                                    GtkSnapshot *snapshot,
                                    int width,
                                    int height)
{
  const BraggscopeOverlayGeometry *geom;
  BraggscopeOverlayStyle style = { 0 };
  double scale, origin_x, origin_y;
  cairo_t *cr;

  if (!(self->show_rings || self->show_beam_center || self->has_marker || self->show_labels) ||
      !_braggscope_view_transform (self, &scale, &origin_x, &origin_y) ||
      (geom = _braggscope_view_ensure_overlay (self)) == NULL)
    return;

  style.rings = self->show_rings;
  style.beam_center = self->show_beam_center;
  style.scale = scale;
  style.offset_x = -origin_x * scale;
  style.offset_y = -origin_y * scale;
  style.line_width = 1.5;
  style.cross_size = 12.0;
  style.font_size = 12.0;
  style.marker = self->has_marker;
  style.marker_x = self->marker_x;
  style.marker_y = self->marker_y;
  style.marker_label = self->marker_label;
  style.labels = _braggscope_view_ensure_labels (self);
  if (style.labels != NULL)
    {
      g_clear_pointer (&self->labels_placed, g_array_unref);
      self->labels_placed = g_array_new (FALSE, FALSE, sizeof (BraggscopeReflection));
      style.labels_placed = self->labels_placed;
    }
  _braggscope_overlay_color_for (self->display.colormap, style.color);

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  _braggscope_overlay_draw (geom, &style, cr);
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
  self->labels =
      braggscope_frame_get_brightest_reflections (self->frame, self->label_count, &error);
  if (self->labels == NULL)
    g_debug ("BraggscopeView: no labels: %s", error->message);
  return self->labels;
}

/**
 * braggscope_view_get_labels:
 * @self: a view
 *
 * The reflections labelled with h k l the last time the view was drawn (with
 * [property@BraggscopeGtk.View:show-labels] on): of the brightest predicted
 * reflections of the full frame shown, those whose label found a place.
 *
 * Returns: (transfer container) (element-type BraggscopeReflection)
 *   (nullable): the labelled reflections, brightest first, or %NULL when
 *   none were drawn
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
 *   ("3 2.5"), or %NULL or "" for rings chosen from the detector's range
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
  /* the overlay is recomputed with them */
  g_clear_pointer (&self->overlay_source, braggscope_geometry_unref);
  g_object_notify (G_OBJECT (self), "ring-resolutions");
  _braggscope_view_invalidate (self, CHANGED_OVERLAY);
}
