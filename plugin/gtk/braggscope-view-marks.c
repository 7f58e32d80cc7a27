/* braggscope-view-marks.c: what BraggscopeView marks on a frame for other
 * widgets and for teaching: the spot of a linked reciprocal view's lattice
 * point (the marker).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-view-private.h"

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
