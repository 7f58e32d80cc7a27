/* braggscope-view-software.c: BraggscopeView's CPU path: the colormap of
 * braggscope_colormap_apply_indices() drawn as a GdkMemoryTexture of the
 * widget's device pixels, sampling the frame as the shader does.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-view-private.h"

#include <math.h>
#include <string.h>

static const guint8 *
ensure_frame_indices (BraggscopeView *self)
{
  int width, height;
  gsize n;
  const float *data;

  if (!_braggscope_view_frame_size (self, &width, &height))
    return NULL;
  data = braggscope_frame_get_data (self->frame, &n);
  if (self->frame_indices == NULL || self->frame_indices_size != n)
    {
      g_free (self->frame_indices);
      self->frame_indices = g_malloc (n);
      self->frame_indices_size = n;
      self->frame_indices_dirty = TRUE;
    }
  if (self->frame_indices_dirty)
    {
      braggscope_colormap_apply_indices (&self->display, data, n, self->frame_indices);
      self->frame_indices_dirty = FALSE;
    }
  return self->frame_indices;
}

typedef struct
{
  int centre; /* the frame column (row) under the window pixel's centre, -1 outside */
  int first;  /* the frame columns its square overlaps, clamped to the frame */
  int count;
} Sample;

/* Where each of @n window pixels samples the frame along one axis, in single
 * precision with the shader's expressions (shaders/colormap.frag), so both
 * paths pick the same frame pixels. */
static void
sample_spans (float origin, float step, int n, int limit, Sample *out)
{
  for (int i = 0; i < n; i++)
    {
      float p = origin + ((float) i + 0.5f) * step;
      int first = (int) floorf (origin + (float) i * step);
      int last = (int) ceilf (origin + ((float) i + 1.0f) * step) - 1;

      out[i].centre = p >= 0.0f && p < (float) limit ? (int) floorf (p) : -1;
      first = CLAMP (first, 0, limit - 1);
      last = CLAMP (last, first, limit - 1);
      out[i].first = first;
      out[i].count = last - first + 1;
    }
}

#define MAX_TAPS 8

/* The largest index over a window pixel's square of frame pixels (at most
 * MAX_TAPS x MAX_TAPS of them, evenly spread), as the shader takes it. */
static guint8
footprint_index (const guint8 *indices, int frame_width, const Sample *sx, const Sample *sy)
{
  int nx = MIN (sx->count, MAX_TAPS), ny = MIN (sy->count, MAX_TAPS);
  guint8 index = 0;

  for (int j = 0; j < ny; j++)
    {
      int y = sy->first + (ny > 1 ? j * (sy->count - 1) / (ny - 1) : 0);
      const guint8 *row = indices + (gsize) y * frame_width;

      for (int i = 0; i < nx; i++)
        index = MAX (index, row[sx->first + (nx > 1 ? i * (sx->count - 1) / (nx - 1) : 0)]);
    }
  return index;
}

static GdkTexture *
render_screen_texture (BraggscopeView *self, int device_width, int device_height)
{
  double scale, origin_x, origin_y;
  int factor = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  int frame_width = 0, frame_height = 0;
  g_autofree Sample *columns = NULL, *rows = NULL;
  const guint8 *indices;
  guint8 lut[256 * 4];
  guint8 *pixels;
  GBytes *bytes;
  GdkTexture *texture;
  gsize stride = (gsize) device_width * 4;
  float step;

  if (!_braggscope_view_transform (self, &scale, &origin_x, &origin_y) ||
      (indices = ensure_frame_indices (self)) == NULL)
    return NULL;
  _braggscope_view_frame_size (self, &frame_width, &frame_height);
  braggscope_colormap_lut (self->display.colormap, lut);

  step = (float) (1.0 / (scale * factor));
  columns = g_new (Sample, device_width);
  rows = g_new (Sample, device_height);
  sample_spans ((float) origin_x, step, device_width, frame_width, columns);
  sample_spans ((float) origin_y, step, device_height, frame_height, rows);

  pixels = g_malloc (stride * device_height);
  for (int j = 0; j < device_height; j++)
    {
      guint8 *out = pixels + j * stride;
      const guint8 *row =
          rows[j].centre >= 0 ? indices + (gsize) rows[j].centre * frame_width : NULL;

      for (int i = 0; i < device_width; i++)
        {
          const guint8 *color = _braggscope_view_background;

          if (row != NULL && columns[i].centre >= 0)
            {
              guint8 index = step <= 1.0f
                                 ? row[columns[i].centre]
                                 : footprint_index (indices, frame_width, &columns[i], &rows[j]);
              color = lut + 4 * index;
            }
          memcpy (out + 4 * i, color, 4);
        }
    }

  bytes = g_bytes_new_take (pixels, stride * device_height);
  texture =
      gdk_memory_texture_new (device_width, device_height, GDK_MEMORY_R8G8B8A8, bytes, stride);
  g_bytes_unref (bytes);
  return texture;
}

void
_braggscope_view_snapshot_software (BraggscopeView *self,
                                    GtkSnapshot *snapshot,
                                    int width,
                                    int height)
{
  int factor = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  int device_width = width * factor, device_height = height * factor;

  if (self->screen_texture != NULL &&
      (gdk_texture_get_width (self->screen_texture) != device_width ||
       gdk_texture_get_height (self->screen_texture) != device_height))
    self->screen_dirty = TRUE;
  if (self->screen_dirty)
    {
      g_clear_object (&self->screen_texture);
      self->screen_texture = render_screen_texture (self, device_width, device_height);
      self->screen_dirty = FALSE;
    }

  if (self->screen_texture != NULL)
    gtk_snapshot_append_texture (snapshot, self->screen_texture,
                                 &GRAPHENE_RECT_INIT (0, 0, width, height));
  else
    {
      GdkRGBA color = { _braggscope_view_background[0] / 255.0f,
                        _braggscope_view_background[1] / 255.0f,
                        _braggscope_view_background[2] / 255.0f, 1.0f };
      gtk_snapshot_append_color (snapshot, &color, &GRAPHENE_RECT_INIT (0, 0, width, height));
    }
}
