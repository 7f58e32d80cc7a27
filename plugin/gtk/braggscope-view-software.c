/* braggscope-view-software.c: BraggscopeView's CPU path: the colormap of
 * braggscope_colormap_apply_indices() drawn as a GdkMemoryTexture of the
 * widget's device pixels, sampling the frame as the shader does; when
 * comparing, the layers composed by braggscope-view-compare.c, sampled alike.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-view-private.h"

#include <math.h>
#include <string.h>

static const guint8 *
ensure_frame_indices (BraggscopeView *self, const BraggscopeViewScene *scene)
{
  gsize n;
  const float *data;

  if (!scene->has_frame)
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

/* Where the largest key lies over a window pixel's square of picture
 * pixels (at most MAX_TAPS x MAX_TAPS of them, evenly spread), as the shader
 * takes the largest colour index: an offset into the picture. */
static gsize
footprint (const guint8 *keys, int picture_width, const Sample *sx, const Sample *sy)
{
  int nx = MIN (sx->count, MAX_TAPS), ny = MIN (sy->count, MAX_TAPS);
  gsize best = (gsize) sy->first * picture_width + sx->first;

  for (int j = 0; j < ny; j++)
    {
      int y = sy->first + (ny > 1 ? j * (sy->count - 1) / (ny - 1) : 0);
      gsize row = (gsize) y * picture_width;

      for (int i = 0; i < nx; i++)
        {
          gsize at = row + sx->first + (nx > 1 ? i * (sx->count - 1) / (nx - 1) : 0);

          if (keys[at] > keys[best])
            best = at;
        }
    }
  return best;
}

/* A picture to sample: keys (colour indices, or what stands out most), with
 * the colours either of the table (@rgba NULL) or of each pixel; its left
 * edge at frame x = @x0. */
typedef struct
{
  const guint8 *keys;
  const guint8 *rgba;
  int width, height;
  double x0;
} Picture;

static GdkTexture *
render_screen_texture (BraggscopeView *self,
                       const BraggscopeViewScene *scene,
                       const Picture *picture,
                       int device_width,
                       int device_height)
{
  double scale = scene->scale, origin_x = scene->origin_x, origin_y = scene->origin_y;
  int factor = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  g_autofree Sample *columns = NULL, *rows = NULL;
  guint8 lut[256 * 4];
  guint8 *pixels;
  GBytes *bytes;
  GdkTexture *texture;
  gsize stride = (gsize) device_width * 4;
  float step;

  if (!scene->placed)
    return NULL;
  braggscope_colormap_lut (self->display.colormap, lut);

  step = (float) (1.0 / (scale * factor));
  columns = g_new (Sample, device_width);
  rows = g_new (Sample, device_height);
  sample_spans ((float) (origin_x - picture->x0), step, device_width, picture->width, columns);
  sample_spans ((float) origin_y, step, device_height, picture->height, rows);

  pixels = g_malloc (stride * device_height);
  for (int j = 0; j < device_height; j++)
    {
      guint8 *out = pixels + j * stride;
      gsize row = (gsize) rows[j].centre * picture->width;

      for (int i = 0; i < device_width; i++)
        {
          const guint8 *color = _braggscope_view_background;

          if (rows[j].centre >= 0 && columns[i].centre >= 0)
            {
              gsize at = step <= 1.0f
                             ? row + columns[i].centre
                             : footprint (picture->keys, picture->width, &columns[i], &rows[j]);

              color = picture->rgba != NULL ? picture->rgba + 4 * at : lut + 4 * picture->keys[at];
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

/* The frame's colour indices, or the composed layers when comparing. */
static gboolean
get_picture (BraggscopeView *self, const BraggscopeViewScene *scene, Picture *picture)
{
  if (scene->compare_rgba != NULL)
    {
      picture->rgba = scene->compare_rgba;
      picture->keys = scene->compare_keys;
      picture->width = scene->compare_width;
      picture->height = scene->compare_height;
      picture->x0 = scene->compare_x0;
      return TRUE;
    }
  picture->rgba = NULL;
  picture->x0 = 0.0;
  picture->width = scene->frame_width;
  picture->height = scene->frame_height;
  return (picture->keys = ensure_frame_indices (self, scene)) != NULL;
}

void
_braggscope_view_snapshot_software (BraggscopeView *self,
                                    const BraggscopeViewScene *scene,
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
      Picture picture;

      g_clear_object (&self->screen_texture);
      if (get_picture (self, scene, &picture))
        self->screen_texture =
            render_screen_texture (self, scene, &picture, device_width, device_height);
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
