/* braggscope-view-compare.c: BraggscopeView's second layer, a reference
 * image (a held frame, or a measured one) shown with the current frame side
 * by side, as a blink, as an overlay or as their difference.
 *
 * Comparing is drawn on the CPU on both paths: the two layers are composed
 * once per change at the frames' resolution (compose()), and the software
 * path samples that picture for the screen, keeping per pixel the most
 * salient one when zoomed out (the larger colour index, or the larger
 * difference), as it keeps the brightest spot of a frame.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-view-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

G_DEFINE_ENUM_TYPE (BraggscopeCompareMode,
                    braggscope_compare_mode,
                    G_DEFINE_ENUM_VALUE (BRAGGSCOPE_COMPARE_NONE, "none"),
                    G_DEFINE_ENUM_VALUE (BRAGGSCOPE_COMPARE_SIDE_BY_SIDE, "side-by-side"),
                    G_DEFINE_ENUM_VALUE (BRAGGSCOPE_COMPARE_BLINK, "blink"),
                    G_DEFINE_ENUM_VALUE (BRAGGSCOPE_COMPARE_OVERLAY, "overlay"),
                    G_DEFINE_ENUM_VALUE (BRAGGSCOPE_COMPARE_DIFFERENCE, "difference"))

/* The current frame's spots over the grey reference, and the two ends of
 * the diverging table (white at 0): colours that stay apart for the common
 * forms of colour blindness. */
static const guint8 overlay_colour[3] = { 230, 97, 0 };
static const guint8 below_colour[3] = { 59, 76, 192 };
static const guint8 above_colour[3] = { 180, 4, 38 };

/* Rings, labels and the beam centre over the blend (grey and orange): a
 * blue, the other end of the colour-blind-safe orange/blue pair; over the
 * difference (blue, white, red): black, apart from all three in lightness
 * for every eye. */
static const double blend_overlay_colour[4] = { 0.0, 0.45, 0.95, 1.0 };
static const double difference_overlay_colour[4] = { 0.0, 0.0, 0.0, 1.0 };

/* The percentiles of a frame's automatic window (braggscope-private.h). */
#define REFERENCE_LOW_PERCENTILE  1.0
#define REFERENCE_HIGH_PERCENTILE 99.5

typedef struct
{
  const float *data; /* width x height, slow-major; NaN masked */
  int width, height;
  const BraggscopeDisplay *display;
  const guint8 *rgba; /* nullable: the layer already colour-mapped (with overlays) */
} Layer;

/* ------------------------------------------------------------------------- */
/* Composing two layers */

BraggscopeCompareMode
_braggscope_compare_layout (BraggscopeCompareMode mode,
                            int width,
                            int height,
                            int reference_width,
                            int reference_height,
                            const char **fallback)
{
  if (fallback != NULL)
    *fallback = NULL;
  if (mode == BRAGGSCOPE_COMPARE_NONE || mode == BRAGGSCOPE_COMPARE_SIDE_BY_SIDE ||
      (width == reference_width && height == reference_height))
    return mode;
  if (fallback != NULL)
    *fallback = _ ("The reference is not the size of the frame: shown side by side");
  return BRAGGSCOPE_COMPARE_SIDE_BY_SIDE;
}

/* @layer's picture into the @stride-pixel-wide @rgba and @keys from column
 * @x_offset. */
static void
paint_layer (const Layer *layer, guint8 *rgba, guint8 *keys, int stride, int x_offset)
{
  gsize n = (gsize) layer->width * layer->height;
  g_autofree guint8 *indices = g_malloc (MAX (n, 1));
  guint8 lut[256 * 4];

  braggscope_colormap_apply_indices (layer->display, layer->data, n, indices);
  braggscope_colormap_lut (layer->display->colormap, lut);
  for (int j = 0; j < layer->height; j++)
    {
      gsize from = (gsize) j * layer->width, to = (gsize) j * stride + x_offset;

      memcpy (keys + to, indices + from, layer->width);
      if (layer->rgba != NULL)
        memcpy (rgba + 4 * to, layer->rgba + 4 * from, (gsize) layer->width * 4);
      else
        for (int i = 0; i < layer->width; i++)
          memcpy (rgba + 4 * (to + i), lut + 4 * indices[from + i], 4);
    }
}

static void
blend (guint8 *out, guint8 base, const guint8 colour[3], double alpha)
{
  for (int c = 0; c < 3; c++)
    out[c] = (guint8) lround (base * (1.0 - alpha) + colour[c] * alpha);
  out[3] = 255;
}

/* The reference in grey as film shows it (dark where bright), the current
 * frame's colour index as the opacity of the overlay colour. */
static void
paint_overlay (const Layer *current, const Layer *reference, guint8 *rgba, guint8 *keys)
{
  gsize n = (gsize) current->width * current->height;
  g_autofree guint8 *ci = g_malloc (MAX (n, 1)), *ri = g_malloc (MAX (n, 1));

  braggscope_colormap_apply_indices (current->display, current->data, n, ci);
  braggscope_colormap_apply_indices (reference->display, reference->data, n, ri);
  for (gsize i = 0; i < n; i++)
    {
      if (isnan (current->data[i]) || isnan (reference->data[i]))
        {
          memcpy (rgba + 4 * i, _braggscope_view_background, 4);
          keys[i] = 0;
          continue;
        }
      blend (rgba + 4 * i, 255 - ri[i], overlay_colour, ci[i] / 255.0);
      keys[i] = MAX (ci[i], ri[i]);
    }
}

/* The least-squares factor s minimising Σ (c - s r)² over the pixels both
 * layers have; 1 when the reference is zero there. */
static double
least_squares_scale (const float *current, const float *reference, gsize n)
{
  double cr = 0.0, rr = 0.0;

  for (gsize i = 0; i < n; i++)
    if (isfinite (current[i]) && isfinite (reference[i]))
      {
        cr += (double) current[i] * reference[i];
        rr += (double) reference[i] * reference[i];
      }
  return rr > 0.0 ? cr / rr : 1.0;
}

/* current - s reference, ±(high - low) of the current window at the ends of
 * the diverging table. */
static void
paint_difference (const Layer *current,
                  const Layer *reference,
                  gboolean reference_scale,
                  guint8 *rgba,
                  guint8 *keys)
{
  gsize n = (gsize) current->width * current->height;
  double s = reference_scale ? least_squares_scale (current->data, reference->data, n) : 1.0;
  double limit = current->display->high - current->display->low;

  if (!(limit > 0.0))
    limit = 1.0;
  for (gsize i = 0; i < n; i++)
    {
      double d = (double) current->data[i] - s * reference->data[i];
      double t;

      if (!isfinite (d))
        {
          memcpy (rgba + 4 * i, _braggscope_view_background, 4);
          keys[i] = 0;
          continue;
        }
      t = CLAMP (d / limit, -1.0, 1.0);
      blend (rgba + 4 * i, 255, t < 0.0 ? below_colour : above_colour, fabs (t));
      keys[i] = (guint8) lround (fabs (t) * 255.0);
    }
}

/* The two layers as @layout shows them: RGBA and a salience per pixel. */
static guint8 *
compose (const Layer *current,
         const Layer *reference,
         BraggscopeCompareMode layout,
         gboolean blink_reference,
         gboolean reference_scale,
         int *width,
         int *height,
         guint8 **keys_out)
{
  int w = current->width, h = current->height;
  guint8 *rgba, *keys;
  gsize n;

  if (layout == BRAGGSCOPE_COMPARE_SIDE_BY_SIDE)
    {
      w = reference->width + current->width;
      h = MAX (reference->height, current->height);
    }
  n = (gsize) w * h;
  rgba = g_malloc (MAX (n, 1) * 4);
  keys = g_malloc0 (MAX (n, 1));
  for (gsize i = 0; i < n; i++)
    memcpy (rgba + 4 * i, _braggscope_view_background, 4);

  switch (layout)
    {
      case BRAGGSCOPE_COMPARE_SIDE_BY_SIDE:
        paint_layer (reference, rgba, keys, w, 0);
        paint_layer (current, rgba, keys, w, reference->width);
        break;
      case BRAGGSCOPE_COMPARE_BLINK:
        paint_layer (blink_reference ? reference : current, rgba, keys, w, 0);
        break;
      case BRAGGSCOPE_COMPARE_OVERLAY:
        paint_overlay (current, reference, rgba, keys);
        break;
      case BRAGGSCOPE_COMPARE_DIFFERENCE:
        paint_difference (current, reference, reference_scale, rgba, keys);
        break;
      case BRAGGSCOPE_COMPARE_NONE:
      default:
        paint_layer (current, rgba, keys, w, 0);
    }

  *width = w;
  *height = h;
  if (keys_out != NULL)
    *keys_out = keys;
  else
    g_free (keys);
  return rgba;
}

/**
 * braggscope_render_compare_rgba: (skip)
 * @frame: the current frame
 * @picture: (nullable): @frame colour-mapped with @display, overlays drawn
 *   ([func@BraggscopeGtk.render_annotated_rgba]), shown where the mode shows
 *   the frame's own colours (side by side, blink); %NULL to colour-map it here
 * @display: the current frame's colour table, scale and window (photons
 *   per pixel), used as given
 * @reference: (array): the reference layer: @reference_width *
 *   @reference_height float32 values, slow-major rows; NaN masked
 * @reference_width: its width in pixels (fast axis)
 * @reference_height: its height in pixels (slow axis)
 * @reference_display: its window (in its own units) and, used as given, the
 *   colour table and scale it is shown with
 * @reference_picture: (nullable): the reference colour-mapped with
 *   @reference_display and its own overlays drawn, shown where the mode
 *   shows the reference's own colours (side by side, blink); %NULL to
 *   colour-map it here, without overlays
 * @mode: how to show the two; %BRAGGSCOPE_COMPARE_BLINK shows the reference
 *   (what the `b` key shows; the frame alone is what
 *   [func@BraggscopeGtk.render_annotated_rgba] gives)
 * @reference_scale: whether the difference scales the reference by the
 *   least-squares factor ([property@BraggscopeGtk.View:reference-scale])
 * @width: (out): the picture's width: the frame's, or the sum of both
 *   widths side by side
 * @height: (out): the picture's height: the frame's, or the larger of both
 *   side by side
 * @fallback: (out) (optional) (transfer none): why the layers are side by
 *   side rather than in @mode (blink, overlay and difference need layers of
 *   one size), translated; %NULL when @mode is shown
 *
 * What a [class@BraggscopeGtk.View] with a reference layer shows in @mode,
 * without a view, at the frames' resolution: side by side the reference is
 * on the left and the frame on the right; the overlay draws the reference in
 * grey (dark where bright, as film) and the frame's colour index as the
 * opacity of orange; the difference is frame − s · reference (s = 1, or the
 * least-squares factor), from blue at −(high − low) of @display's window
 * through white at 0 to red at +(high − low).  Masked pixels (NaN in either
 * layer) are drawn in the view's background grey in the overlay and the
 * difference.
 *
 * A frame of several panels is drawn as the sample sees it
 * ([method@Braggscope.Frame.project], as a view and @picture show it): the
 * reference is then to be laid out the same way
 * ([method@Braggscope.MeasuredFrame.lay_out] for a measured frame).
 *
 * Returns: (transfer full): @width * @height * 4 bytes of RGBA (alpha 255),
 *   row by row; free with [func@GLib.free]
 *
 * Since: 0.1
 */
guint8 *
braggscope_render_compare_rgba (BraggscopeFrame *frame,
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
                                const char **fallback)
{
  Layer current = { 0 }, other = { 0 };
  BraggscopeCompareMode layout;

  g_autoptr (BraggscopeFrame) shown = NULL;

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (frame), NULL);
  g_return_val_if_fail (display != NULL && reference_display != NULL, NULL);
  g_return_val_if_fail (reference != NULL && reference_width > 0 && reference_height > 0, NULL);
  g_return_val_if_fail (width != NULL && height != NULL, NULL);

  /* a multi-panel detector as the sample sees it, as @picture and a view show it */
  if ((shown = braggscope_frame_project (frame)) != NULL)
    frame = shown;

  current.data = braggscope_frame_get_data (frame, NULL);
  current.width = braggscope_frame_get_width (frame);
  current.height = braggscope_frame_get_height (frame);
  current.display = display;
  current.rgba = picture;
  other.data = reference;
  other.width = reference_width;
  other.height = reference_height;
  other.display = reference_display;
  other.rgba = reference_picture;

  layout = _braggscope_compare_layout (mode, current.width, current.height, reference_width,
                                       reference_height, fallback);
  return compose (&current, &other, layout, TRUE, reference_scale, width, height, NULL);
}

/* ------------------------------------------------------------------------- */
/* The view's layer */

BraggscopeCompareMode
_braggscope_view_compare_layout (BraggscopeView *self)
{
  int width, height;

  if (self->reference == NULL || self->compare_mode == BRAGGSCOPE_COMPARE_NONE ||
      !_braggscope_view_frame_size (self, &width, &height))
    return BRAGGSCOPE_COMPARE_NONE;
  return _braggscope_compare_layout (self->compare_mode, width, height, self->reference_width,
                                     self->reference_height, NULL);
}

void
_braggscope_view_overlay_color (BraggscopeView *self, BraggscopeCompareMode layout, double rgba[4])
{
  if (layout == BRAGGSCOPE_COMPARE_OVERLAY)
    memcpy (rgba, blend_overlay_colour, sizeof blend_overlay_colour);
  else if (layout == BRAGGSCOPE_COMPARE_DIFFERENCE)
    memcpy (rgba, difference_overlay_colour, sizeof difference_overlay_colour);
  else
    _braggscope_overlay_color_for (self->display.colormap, rgba);
}

char *
_braggscope_view_caption (BraggscopeView *self, BraggscopeCompareMode layout, gboolean reference)
{
  const char *name = self->reference_label != NULL ? self->reference_label : "";

  switch (layout)
    {
      case BRAGGSCOPE_COMPARE_SIDE_BY_SIDE:
      case BRAGGSCOPE_COMPARE_BLINK:
        if (layout == BRAGGSCOPE_COMPARE_BLINK && reference != self->blink_reference)
          return NULL;
        if (!reference)
          /* Translators: the caption over the current frame when comparing */
          return g_strdup (_ ("B: live"));
        if (self->reference_caption != NULL)
          return g_strdup (self->reference_caption);
        if (self->reference_frame != NULL)
          /* Translators: the caption over the held frame, A, when comparing */
          return g_strdup (_ ("A: held"));
        return g_strdup (name);
      case BRAGGSCOPE_COMPARE_OVERLAY:
        /* Translators: the caption of the overlay: the reference's name
         * ("A"), grey, the current frame orange */
        return reference ? NULL : g_strdup_printf (_ ("%s grey, B orange"), name);
      case BRAGGSCOPE_COMPARE_DIFFERENCE:
        /* Translators: the caption of the difference: the current frame
         * minus the reference ("A") */
        return reference ? NULL : g_strdup_printf (_ ("B − %s: red where B is brighter"), name);
      case BRAGGSCOPE_COMPARE_NONE:
      default:
        return NULL;
    }
}

gboolean
_braggscope_view_canvas (BraggscopeView *self, double *x0, double *y0, double *x1, double *y1)
{
  int width, height;

  if (!_braggscope_view_frame_size (self, &width, &height))
    return FALSE;
  *x0 = *y0 = 0.0;
  *x1 = width;
  *y1 = height;
  if (_braggscope_view_compare_layout (self) == BRAGGSCOPE_COMPARE_SIDE_BY_SIDE)
    {
      *x0 = -self->reference_width;
      *y1 = MAX (height, self->reference_height);
    }
  return TRUE;
}

static const float *
reference_data (BraggscopeView *self)
{
  return g_bytes_get_data (self->reference, NULL);
}

gboolean
_braggscope_view_ensure_compare (BraggscopeView *self,
                                 const guint8 **rgba,
                                 const guint8 **keys,
                                 int *width,
                                 int *height,
                                 double *x0)
{
  BraggscopeCompareMode layout = _braggscope_view_compare_layout (self);

  if (layout == BRAGGSCOPE_COMPARE_NONE)
    return FALSE;
  if (self->compare_dirty || self->compare_rgba == NULL)
    {
      Layer current = { 0 }, other = { 0 };

      /* the reference is shown as the frame is, but for its own window */
      self->reference_display.colormap = self->display.colormap;
      self->reference_display.scale = self->display.scale;
      self->reference_display.gamma = self->display.gamma;
      current.data = braggscope_frame_get_data (self->frame, NULL);
      current.width = braggscope_frame_get_width (self->frame);
      current.height = braggscope_frame_get_height (self->frame);
      current.display = &self->display;
      other.data = reference_data (self);
      other.width = self->reference_width;
      other.height = self->reference_height;
      other.display = &self->reference_display;

      g_free (self->compare_rgba);
      g_free (self->compare_keys);
      self->compare_rgba =
          compose (&current, &other, layout, self->blink_reference, self->reference_scale,
                   &self->compare_width, &self->compare_height, &self->compare_keys);
      self->compare_dirty = FALSE;
    }
  *rgba = self->compare_rgba;
  if (keys != NULL)
    *keys = self->compare_keys;
  *width = self->compare_width;
  *height = self->compare_height;
  *x0 = layout == BRAGGSCOPE_COMPARE_SIDE_BY_SIDE ? -self->reference_width : 0.0;
  return TRUE;
}

float
_braggscope_view_reference_at (BraggscopeView *self, double *x, double y)
{
  int px, py;

  if (self->reference == NULL)
    return NAN;
  if (*x < 0.0 && _braggscope_view_compare_layout (self) == BRAGGSCOPE_COMPARE_SIDE_BY_SIDE)
    *x += self->reference_width;
  px = (int) floor (*x);
  py = (int) floor (y);
  if (px < 0 || py < 0 || px >= self->reference_width || py >= self->reference_height)
    return NAN;
  return reference_data (self)[(gsize) py * self->reference_width + px];
}

static void
notify (BraggscopeView *self, BraggscopeViewProperty prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[prop]);
}

static void
update_fallback (BraggscopeView *self)
{
  const char *fallback = NULL;
  int width, height;

  if (self->reference != NULL && _braggscope_view_frame_size (self, &width, &height))
    _braggscope_compare_layout (self->compare_mode, width, height, self->reference_width,
                                self->reference_height, &fallback);
  if (fallback != self->compare_fallback)
    {
      self->compare_fallback = fallback;
      notify (self, PROP_COMPARE_FALLBACK);
    }
}

/* What a change of the layer or its mode makes stale: the picture, the
 * fallback reason, and the fit when the shown rectangle changed. */
static void
compare_changed (BraggscopeView *self, const double before[4])
{
  double after[4] = { 0 };

  update_fallback (self);
  self->compare_dirty = TRUE;
  /* leaving a comparison, the GL path uploads the frame again */
  _braggscope_view_invalidate (self, CHANGED_COMPARE | CHANGED_IMAGE);
  if (_braggscope_view_canvas (self, &after[0], &after[1], &after[2], &after[3]) &&
      memcmp (before, after, sizeof after) != 0)
    braggscope_view_fit (self);
  else
    _braggscope_view_update_readout (self);
}

static void
canvas_before (BraggscopeView *self, double before[4])
{
  before[0] = before[1] = before[2] = before[3] = 0.0;
  _braggscope_view_canvas (self, &before[0], &before[1], &before[2], &before[3]);
}

void
_braggscope_view_compare_frame_changed (BraggscopeView *self)
{
  BraggscopeFrame *held = self->held_preview;

  self->compare_dirty = TRUE;
  update_fallback (self);
  /* A held during a drag is the blocky preview shown at that moment: its
   * own full frame (same parameters, same sequence) replaces it when it
   * comes; a frame of other parameters ends the wait. */
  if (held != NULL && self->frame != NULL && !braggscope_frame_get_is_preview (self->frame))
    {
      self->held_preview = NULL;
      if (braggscope_frame_get_sequence (self->frame) == braggscope_frame_get_sequence (held))
        braggscope_view_hold_frame (self);
      g_object_unref (held);
    }
}

static void
set_reference_window (BraggscopeView *self, double low, double high)
{
  gboolean low_changed = self->reference_display.low != low;
  gboolean high_changed = self->reference_display.high != high;

  self->reference_display.low = low;
  self->reference_display.high = high;
  if (low_changed)
    notify (self, PROP_REFERENCE_MIN);
  if (high_changed)
    notify (self, PROP_REFERENCE_MAX);
}

static void
apply_reference_auto_window (BraggscopeView *self)
{
  double low, high;

  if (self->reference == NULL || !self->reference_auto_window)
    return;
  /* a measured frame's counts: a window above their noise (sparse frames) */
  braggscope_auto_contrast_counts (
      reference_data (self), (gsize) self->reference_width * self->reference_height,
      REFERENCE_LOW_PERCENTILE, REFERENCE_HIGH_PERCENTILE, &low, &high);
  set_reference_window (self, low, high);
}

/* Takes @pixels. */
static void
take_reference (BraggscopeView *self, GBytes *pixels, int width, int height, const char *label)
{
  double before[4];
  gboolean had = self->reference != NULL;

  canvas_before (self, before);
  g_clear_object (&self->held_preview);
  g_clear_pointer (&self->reference, g_bytes_unref);
  self->reference = pixels;
  self->reference_width = width;
  self->reference_height = height;
  g_free (self->reference_label);
  self->reference_label = g_strdup (label);
  g_clear_object (&self->reference_frame);
  g_clear_pointer (&self->reference_geometry, braggscope_geometry_unref);
  g_clear_pointer (&self->reference_overlay_source, braggscope_geometry_unref);
  g_clear_pointer (&self->reference_labels, g_array_unref);
  g_clear_pointer (&self->reference_caption, g_free);

  g_object_freeze_notify (G_OBJECT (self));
  apply_reference_auto_window (self);
  compare_changed (self, before);
  if (had != (pixels != NULL))
    notify (self, PROP_HAS_REFERENCE);
  notify (self, PROP_REFERENCE_LABEL);
  g_object_thaw_notify (G_OBJECT (self));
}

/**
 * braggscope_view_set_reference:
 * @self: a view
 * @pixels: the reference layer: @width * @height float32 values in native
 *   byte order, slow-major rows from pixel (0, 0) as
 *   [method@Braggscope.Frame.get_data] gives a frame's; NaN marks a masked
 *   pixel (for a measured frame: negative values and those above the count
 *   cutoff).  The view keeps a reference to the bytes.
 * @width: its width in pixels (fast axis), at least 1
 * @height: its height in pixels (slow axis), at least 1
 * @label: (nullable): its name for the readout ("measured"); %NULL for
 *   "reference"
 * @error: return location for a #GError, or %NULL
 *
 * Sets the view's second layer, which
 * [property@BraggscopeGtk.View:compare-mode] shows with the current frame,
 * replacing any it had.  It keeps its own window
 * ([property@BraggscopeGtk.View:reference-min],
 * [property@BraggscopeGtk.View:reference-max]), set from it when
 * [property@BraggscopeGtk.View:reference-auto-window] is on.  Its size may
 * differ from the frames' (blink, overlay and difference then show the two
 * side by side: [property@BraggscopeGtk.View:compare-fallback]).
 *
 * A size that is not positive, or @pixels that do not hold @width * @height
 * floats, fail with `BRAGGSCOPE_ERROR_INVALID`, the view unchanged.
 *
 * Returns: %TRUE when the layer was set, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
braggscope_view_set_reference (
    BraggscopeView *self, GBytes *pixels, int width, int height, const char *label, GError **error)
{
  gsize size;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);
  g_return_val_if_fail (pixels != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  size = g_bytes_get_size (pixels);
  if (width < 1 || height < 1 || size != (gsize) width * height * sizeof (float))
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                   _ ("reference layer: %lu bytes are not %d × %d single-precision pixels"),
                   (unsigned long) size, width, height);
      return FALSE;
    }
  take_reference (self, g_bytes_ref (pixels), width, height,
                  label != NULL ? label : _ ("reference"));
  return TRUE;
}

/**
 * braggscope_view_hold_frame:
 * @self: a view
 *
 * Makes the frame shown the reference layer, named "A", as
 * [method@BraggscopeGtk.View.set_reference] would with its data (shared, not
 * copied: frames never change); the frames that follow are compared with
 * it.  Does nothing without a frame.  A preview held while a drag is under
 * way is replaced by its full frame when the simulation delivers it (a
 * frame of other parameters comes first: the preview stays).
 *
 * Since: 0.1
 */
void
braggscope_view_hold_frame (BraggscopeView *self)
{
  const float *data;
  gsize n;

  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (self->frame == NULL)
    return;
  data = braggscope_frame_get_data (self->frame, &n);
  take_reference (self,
                  g_bytes_new_with_free_func (data, n * sizeof (float), g_object_unref,
                                              g_object_ref (self->frame)),
                  braggscope_frame_get_width (self->frame),
                  braggscope_frame_get_height (self->frame), "A");
  /* A carries its own overlays: its geometry and, once full, its labels */
  self->reference_frame = g_object_ref (self->frame);
  if (braggscope_frame_get_geometry (self->frame) != NULL)
    self->reference_geometry =
        braggscope_geometry_ref (braggscope_frame_get_geometry (self->frame));
  if (braggscope_frame_get_is_preview (self->frame))
    self->held_preview = g_object_ref (self->frame);
}

/**
 * braggscope_view_clear_reference:
 * @self: a view
 *
 * Drops the reference layer: the view shows the current frame alone,
 * whatever [property@BraggscopeGtk.View:compare-mode] says.
 *
 * Since: 0.1
 */
void
braggscope_view_clear_reference (BraggscopeView *self)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (self->reference == NULL)
    return;
  take_reference (self, NULL, 0, 0, NULL);
}

/**
 * braggscope_view_set_reference_geometry:
 * @self: a view
 * @geometry: (nullable): the geometry the reference layer was recorded
 *   with (a measured frame's detector and beam), or %NULL for none
 *
 * Gives the reference layer its own overlays: its resolution rings, beam
 * centre and the rings at [property@BraggscopeGtk.View:ring-resolutions]
 * are drawn from @geometry, inside the reference's part of the view (side
 * by side, or blinking to it).  A held frame
 * ([method@BraggscopeGtk.View.hold_frame]) has its own geometry (and its
 * h k l labels) already; a layer of
 * [method@BraggscopeGtk.View.set_reference] has none until this is called,
 * and a new layer drops it.  Does nothing without a reference.  The view
 * keeps a reference to @geometry.
 *
 * Since: 0.1
 */
void
braggscope_view_set_reference_geometry (BraggscopeView *self, BraggscopeGeometry *geometry)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (self->reference == NULL || geometry == self->reference_geometry)
    return;
  g_clear_pointer (&self->reference_geometry, braggscope_geometry_unref);
  if (geometry != NULL)
    self->reference_geometry = braggscope_geometry_ref (geometry);
  _braggscope_view_invalidate (self, CHANGED_OVERLAY);
}

/**
 * braggscope_view_set_reference_caption:
 * @self: a view
 * @caption: (nullable): the caption drawn over the reference layer
 *   ("measured: frame_0001.cbf"), or %NULL for the automatic one
 *
 * Sets what the view writes over the reference layer where it is shown in
 * its own colours (side by side, or blinking to it): by default "A: held"
 * for a held frame and the layer's label for others.  A new layer drops it.
 * Does nothing without a reference.
 *
 * Since: 0.1
 */
void
braggscope_view_set_reference_caption (BraggscopeView *self, const char *caption)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (self->reference == NULL || g_strcmp0 (caption, self->reference_caption) == 0)
    return;
  g_free (self->reference_caption);
  self->reference_caption = g_strdup (caption);
  _braggscope_view_invalidate (self, CHANGED_OVERLAY);
}

/**
 * braggscope_view_get_caption:
 * @self: a view
 * @reference: %TRUE for the reference layer's caption, %FALSE for the
 *   current frame's
 *
 * The caption the view draws now over the reference layer or the current
 * frame: comparing side by side each half has one ("A: held" or the
 * reference's caption, "B: live"), blinking the layer shown has one, and
 * the overlay and the difference have one over the current frame saying
 * what the colours mean.
 *
 * Returns: (transfer full) (nullable): the caption, or %NULL where none is
 *   drawn (not comparing, or that layer not shown by itself)
 *
 * Since: 0.1
 */
char *
braggscope_view_get_caption (BraggscopeView *self, gboolean reference)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  return _braggscope_view_caption (self, _braggscope_view_compare_layout (self), reference);
}

/**
 * braggscope_view_get_has_reference:
 * @self: a view
 *
 * Whether the view holds a reference layer,
 * [property@BraggscopeGtk.View:has-reference].
 *
 * Returns: %TRUE when it does
 *
 * Since: 0.1
 */
gboolean
braggscope_view_get_has_reference (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  return self->reference != NULL;
}

/**
 * braggscope_view_get_reference_label:
 * @self: a view
 *
 * The reference layer's name, [property@BraggscopeGtk.View:reference-label].
 *
 * Returns: (nullable): the name, or %NULL without a reference
 *
 * Since: 0.1
 */
const char *
braggscope_view_get_reference_label (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  return self->reference_label;
}

/**
 * braggscope_view_get_compare_mode:
 * @self: a view
 *
 * How the reference layer is shown,
 * [property@BraggscopeGtk.View:compare-mode].
 *
 * Returns: the mode
 *
 * Since: 0.1
 */
BraggscopeCompareMode
braggscope_view_get_compare_mode (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), BRAGGSCOPE_COMPARE_NONE);

  return self->compare_mode;
}

/**
 * braggscope_view_set_compare_mode:
 * @self: a view
 * @mode: how to show the reference layer with the current frame
 *
 * Sets [property@BraggscopeGtk.View:compare-mode]; the view fits the shown
 * rectangle to the widget when it widens or narrows (side by side).
 *
 * Since: 0.1
 */
void
braggscope_view_set_compare_mode (BraggscopeView *self, BraggscopeCompareMode mode)
{
  double before[4];

  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));
  g_return_if_fail (mode >= BRAGGSCOPE_COMPARE_NONE && mode <= BRAGGSCOPE_COMPARE_DIFFERENCE);

  if (mode == self->compare_mode)
    return;
  canvas_before (self, before);
  self->compare_mode = mode;
  compare_changed (self, before);
  notify (self, PROP_COMPARE_MODE);
}

/**
 * braggscope_view_get_blink_reference:
 * @self: a view
 *
 * Whether blink mode shows the reference,
 * [property@BraggscopeGtk.View:blink-reference].
 *
 * Returns: %TRUE when it shows the reference
 *
 * Since: 0.1
 */
gboolean
braggscope_view_get_blink_reference (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  return self->blink_reference;
}

/**
 * braggscope_view_set_blink_reference:
 * @self: a view
 * @blink_reference: %TRUE to show the reference in blink mode, %FALSE for
 *   the current frame
 *
 * Sets [property@BraggscopeGtk.View:blink-reference], as the `b` key
 * toggles it.
 *
 * Since: 0.1
 */
void
braggscope_view_set_blink_reference (BraggscopeView *self, gboolean blink_reference)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  blink_reference = !!blink_reference;
  if (blink_reference == self->blink_reference)
    return;
  self->blink_reference = blink_reference;
  self->compare_dirty = TRUE;
  _braggscope_view_invalidate (self, CHANGED_COMPARE);
  notify (self, PROP_BLINK_REFERENCE);
}

/**
 * braggscope_view_get_compare_fallback:
 * @self: a view
 *
 * Why the layers are shown side by side rather than in the chosen mode,
 * [property@BraggscopeGtk.View:compare-fallback].
 *
 * Returns: (nullable): a translated sentence, or %NULL when the mode is
 *   shown as chosen
 *
 * Since: 0.1
 */
const char *
braggscope_view_get_compare_fallback (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  return self->compare_fallback;
}

/**
 * braggscope_view_get_reference_value:
 * @self: a view
 *
 * The reference layer's value at the readout's pixel (the same pixel as
 * [method@BraggscopeGtk.View.get_readout]'s; side by side, the pointer may
 * be over either panel), in the reference's units, as of the last
 * [signal@BraggscopeGtk.View::readout-changed].
 *
 * Returns: the value; NaN without a reference, off the readout, off the
 *   reference or where it is masked
 *
 * Since: 0.1
 */
float
braggscope_view_get_reference_value (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NAN);

  return self->readout_inside ? self->readout_reference : NAN;
}

/* ------------------------------------------------------------------------- */
/* Properties and the b key */

void
_braggscope_view_compare_get_property (BraggscopeView *self, guint prop_id, GValue *value)
{
  switch (prop_id)
    {
      case PROP_COMPARE_MODE:
        g_value_set_enum (value, self->compare_mode);
        break;
      case PROP_HAS_REFERENCE:
        g_value_set_boolean (value, self->reference != NULL);
        break;
      case PROP_REFERENCE_LABEL:
        g_value_set_string (value, self->reference_label);
        break;
      case PROP_BLINK_REFERENCE:
        g_value_set_boolean (value, self->blink_reference);
        break;
      case PROP_REFERENCE_AUTO_WINDOW:
        g_value_set_boolean (value, self->reference_auto_window);
        break;
      case PROP_REFERENCE_MIN:
        g_value_set_double (value, self->reference_display.low);
        break;
      case PROP_REFERENCE_MAX:
        g_value_set_double (value, self->reference_display.high);
        break;
      case PROP_REFERENCE_SCALE:
        g_value_set_boolean (value, self->reference_scale);
        break;
      case PROP_COMPARE_FALLBACK:
        g_value_set_string (value, self->compare_fallback);
        break;
      default:
        g_assert_not_reached ();
    }
}

static void
set_reference_auto_window (BraggscopeView *self, gboolean on)
{
  on = !!on;
  if (on == self->reference_auto_window)
    return;
  self->reference_auto_window = on;
  apply_reference_auto_window (self);
  self->compare_dirty = TRUE;
  _braggscope_view_invalidate (self, CHANGED_COMPARE);
  notify (self, PROP_REFERENCE_AUTO_WINDOW);
}

void
_braggscope_view_compare_set_property (BraggscopeView *self, guint prop_id, const GValue *value)
{
  switch (prop_id)
    {
      case PROP_COMPARE_MODE:
        braggscope_view_set_compare_mode (self, g_value_get_enum (value));
        break;
      case PROP_BLINK_REFERENCE:
        braggscope_view_set_blink_reference (self, g_value_get_boolean (value));
        break;
      case PROP_REFERENCE_AUTO_WINDOW:
        set_reference_auto_window (self, g_value_get_boolean (value));
        break;
      case PROP_REFERENCE_MIN:
      case PROP_REFERENCE_MAX:
        g_object_freeze_notify (G_OBJECT (self));
        set_reference_auto_window (self, FALSE);
        if (prop_id == PROP_REFERENCE_MIN)
          set_reference_window (self, g_value_get_double (value), self->reference_display.high);
        else
          set_reference_window (self, self->reference_display.low, g_value_get_double (value));
        self->compare_dirty = TRUE;
        _braggscope_view_invalidate (self, CHANGED_COMPARE);
        g_object_thaw_notify (G_OBJECT (self));
        break;
      case PROP_REFERENCE_SCALE:
        if (self->reference_scale != g_value_get_boolean (value))
          {
            self->reference_scale = g_value_get_boolean (value);
            self->compare_dirty = TRUE;
            _braggscope_view_invalidate (self, CHANGED_COMPARE);
            notify (self, PROP_REFERENCE_SCALE);
          }
        break;
      default:
        g_assert_not_reached ();
    }
}

static gboolean
on_blink_key (GtkWidget *widget, GVariant *args, gpointer data)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (widget);

  if (self->compare_mode != BRAGGSCOPE_COMPARE_BLINK || self->reference == NULL)
    return FALSE;
  braggscope_view_set_blink_reference (self, !self->blink_reference);
  return TRUE;
}

void
_braggscope_view_compare_init (BraggscopeView *self)
{
  GtkEventController *keys = gtk_shortcut_controller_new ();

  braggscope_display_init (&self->reference_display);
  self->reference_auto_window = TRUE;
  self->readout_reference = NAN;
  gtk_shortcut_controller_add_shortcut (
      GTK_SHORTCUT_CONTROLLER (keys),
      gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_b, 0),
                        gtk_callback_action_new (on_blink_key, NULL, NULL)));
  gtk_widget_add_controller (GTK_WIDGET (self), keys);
}

void
_braggscope_view_compare_dispose (BraggscopeView *self)
{
  g_clear_object (&self->held_preview);
  g_clear_pointer (&self->reference, g_bytes_unref);
  g_clear_pointer (&self->reference_label, g_free);
  g_clear_object (&self->reference_frame);
  g_clear_pointer (&self->reference_geometry, braggscope_geometry_unref);
  g_clear_pointer (&self->reference_overlay_source, braggscope_geometry_unref);
  g_clear_pointer (&self->reference_labels, g_array_unref);
  g_clear_pointer (&self->reference_caption, g_free);
  g_clear_pointer (&self->compare_rgba, g_free);
  g_clear_pointer (&self->compare_keys, g_free);
}
