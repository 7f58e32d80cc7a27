/* braggscope-view.c: shows a simulation's frames, colour-mapped on the GPU
 * (GtkGLArea + shaders/colormap.frag) or on the CPU (GdkMemoryTexture), with
 * zoom, pan, a readout under the cursor and beam centre / resolution ring
 * overlays.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-view.h"
#include "braggscope-gtk-i18n-private.h"

#include <epoxy/gl.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "braggscope-overlay-private.h"

/**
 * BraggscopeView:
 *
 * A widget showing the newest frame of a #BraggscopeSimulation.
 *
 * The frame's photons/pixel are uploaded once as a float texture and colour
 * mapped in a fragment shader, so contrast and colormap changes never
 * re-simulate; where OpenGL is not available (or #BraggscopeView:force-software
 * is set, or the environment variable `BRAGGSCOPE_RENDERER=software`) the same
 * mapping runs on the CPU (braggscope_colormap_apply()) and is drawn as a
 * texture.  A software rasterizer (Mesa's llvmpipe) counts as no OpenGL: the
 * CPU path is faster than the shader run on the CPU; `BRAGGSCOPE_RENDERER=gl`
 * uses the shader anyway.  Both paths sample the frame the same way (the frame pixel under
 * each screen pixel's centre when zoomed in; the brightest of the frame
 * pixels a screen pixel covers when zoomed out, so spots never drop out), so
 * they show the same pixels.  `BRAGGSCOPE_GL=gles` asks for an
 * OpenGL ES context instead of desktop OpenGL.
 *
 * Dragging pans, the scroll wheel zooms about the pointer, a double click fits
 * the frame to the widget.  Moving the pointer updates the readout (pixel,
 * value, resolution, 2 theta, Miller indices) and emits
 * #BraggscopeView::readout-changed.
 */

#define SHADER_PATH "/io/github/braggscope/gtk/shaders/"

#define MIN_ZOOM  0.25
#define MAX_ZOOM  256.0
#define ZOOM_STEP 1.2

/* Outside the frame: the same bytes on both paths. */
static const guint8 background_rgba[4] = { 32, 32, 32, 255 };

struct _BraggscopeView
{
  GtkWidget parent_instance;

  BraggscopeSimulation *simulation;
  gulong frame_ready_handler;
  BraggscopeFrame *frame;

  BraggscopeDisplay display;
  gboolean auto_contrast;
  gboolean show_rings;
  gboolean show_beam_center;
  gboolean force_software;

  double zoom;
  double center_x, center_y; /* frame coordinates shown at the widget's centre */

  BraggscopeGeometry *overlay_source; /* what overlay was computed from (a ref) */
  BraggscopeOverlayGeometry overlay;

  /* OpenGL path */
  GtkWidget *gl_area;
  gboolean use_gl;
  GLuint program, vao, image_texture, lut_texture;
  GLint max_texture_size;
  gboolean image_dirty, lut_dirty;
  struct
  {
    GLint image, lut, origin, step, viewport_height, scale, empty, low, range, log_range,
        inverse_gamma, background;
  } uniforms;

  /* software path */
  guint8 *frame_indices; /* colour table index of each frame pixel */
  gsize frame_indices_size;
  gboolean frame_indices_dirty;
  GdkTexture *screen_texture; /* what the widget shows, device pixels */
  gboolean screen_dirty;

  /* readout */
  gboolean pointer_inside;
  double pointer_x, pointer_y;
  gboolean readout_inside;
  double readout_x, readout_y;
  int readout_pixel_x, readout_pixel_y;
  float readout_value;
  BraggscopePixelInfo readout_info;

  double drag_center_x, drag_center_y;
};

G_DEFINE_FINAL_TYPE (BraggscopeView, braggscope_view, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_SIMULATION,
  PROP_FRAME,
  PROP_COLORMAP,
  PROP_SCALE,
  PROP_GAMMA,
  PROP_AUTO_CONTRAST,
  PROP_LOW,
  PROP_HIGH,
  PROP_SHOW_RINGS,
  PROP_SHOW_BEAM_CENTER,
  PROP_ZOOM,
  PROP_RENDERER,
  PROP_FORCE_SOFTWARE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_READOUT_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void update_readout (BraggscopeView *self);

/* ------------------------------------------------------------------------- */
/* Geometry of the view */

static gboolean
frame_size (BraggscopeView *self, int *width, int *height)
{
  if (self->frame == NULL)
    return FALSE;
  *width = braggscope_frame_get_width (self->frame);
  *height = braggscope_frame_get_height (self->frame);
  return *width > 0 && *height > 0;
}

/* Logical widget pixels per frame pixel, and the frame coordinates of the
 * widget's top-left corner. */
static gboolean
view_transform (BraggscopeView *self, double *scale, double *origin_x, double *origin_y)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  int frame_width, frame_height;
  double fit;

  if (!frame_size (self, &frame_width, &frame_height) || width <= 0 || height <= 0)
    return FALSE;

  fit = MIN ((double) width / frame_width, (double) height / frame_height);
  *scale = self->zoom * fit;
  *origin_x = self->center_x - 0.5 * width / *scale;
  *origin_y = self->center_y - 0.5 * height / *scale;
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Invalidation */

typedef enum
{
  CHANGED_VIEW = 1 << 0,    /* zoom, pan, size */
  CHANGED_DISPLAY = 1 << 1, /* colormap, scale, window */
  CHANGED_IMAGE = 1 << 2,   /* a new frame */
  CHANGED_OVERLAY = 1 << 3, /* overlay switches only */
} Changes;

static void
invalidate (BraggscopeView *self, Changes changes)
{
  if (changes & CHANGED_IMAGE)
    self->image_dirty = TRUE;
  if (changes & CHANGED_DISPLAY)
    self->lut_dirty = TRUE;
  if (changes & (CHANGED_IMAGE | CHANGED_DISPLAY))
    self->frame_indices_dirty = TRUE;
  if (changes & (CHANGED_IMAGE | CHANGED_DISPLAY | CHANGED_VIEW))
    self->screen_dirty = TRUE;

  if (self->use_gl && self->gl_area != NULL && (changes & ~CHANGED_OVERLAY))
    gtk_gl_area_queue_render (GTK_GL_AREA (self->gl_area));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* ------------------------------------------------------------------------- */
/* The OpenGL path */

static gboolean
announce_software (gpointer data)
{
  BraggscopeView *self = data;

  invalidate (self, CHANGED_IMAGE | CHANGED_DISPLAY | CHANGED_VIEW);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RENDERER]);
  return G_SOURCE_REMOVE;
}

/* From now on the CPU draws.  Called from the GL area's realize or render
 * handlers, so the redraw and the notification wait for an idle moment. */
static void
fall_back_to_software (BraggscopeView *self, const char *reason)
{
  if (!self->use_gl)
    return;
  g_debug ("BraggscopeView: drawing on the CPU: %s", reason);
  self->use_gl = FALSE;
  g_idle_add_full (G_PRIORITY_DEFAULT, announce_software, g_object_ref (self), g_object_unref);
}

static GLuint
compile_shader (GLenum type, const char *prefix, const char *resource, GError **error)
{
  g_autoptr (GBytes) bytes = NULL;
  g_autofree char *source = NULL;
  const char *text;
  GLuint shader;
  GLint ok = GL_FALSE;

  bytes = g_resources_lookup_data (resource, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (bytes == NULL)
    return 0;
  source = g_strconcat (prefix, (const char *) g_bytes_get_data (bytes, NULL), NULL);
  text = source;

  shader = glCreateShader (type);
  glShaderSource (shader, 1, &text, NULL);
  glCompileShader (shader);
  glGetShaderiv (shader, GL_COMPILE_STATUS, &ok);
  if (!ok)
    {
      char log[1024] = "";
      glGetShaderInfoLog (shader, sizeof log, NULL, log);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "shader %s does not compile: %s", resource,
                   g_strstrip (log));
      glDeleteShader (shader);
      return 0;
    }
  return shader;
}

/* The #version line (and default precisions for ES) for this context. */
static const char *
shader_prefix (GdkGLContext *context)
{
  int major = 0, minor = 0;

  gdk_gl_context_get_version (context, &major, &minor);
  if (gdk_gl_context_get_use_es (context))
    return major >= 3 ? "#version 300 es\n"
                        "precision highp float;\n"
                        "precision highp int;\n"
                        "precision highp sampler2D;\n"
                      : NULL;
  if (major > 3 || (major == 3 && minor >= 2))
    return "#version 150\n";
  if (major == 3)
    return "#version 130\n";
  return NULL;
}

static gboolean
create_gl_resources (BraggscopeView *self, GdkGLContext *context, GError **error)
{
  const char *prefix = shader_prefix (context);
  GLuint vertex, fragment;
  GLint ok = GL_FALSE;

  if (prefix == NULL)
    {
      int major = 0, minor = 0;
      gdk_gl_context_get_version (context, &major, &minor);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "OpenGL%s %d.%d is older than the 3.0 the shaders need",
                   gdk_gl_context_get_use_es (context) ? " ES" : "", major, minor);
      return FALSE;
    }

  vertex = compile_shader (GL_VERTEX_SHADER, prefix, SHADER_PATH "colormap.vert", error);
  if (vertex == 0)
    return FALSE;
  fragment = compile_shader (GL_FRAGMENT_SHADER, prefix, SHADER_PATH "colormap.frag", error);
  if (fragment == 0)
    {
      glDeleteShader (vertex);
      return FALSE;
    }

  self->program = glCreateProgram ();
  glAttachShader (self->program, vertex);
  glAttachShader (self->program, fragment);
  glLinkProgram (self->program);
  glDeleteShader (vertex);
  glDeleteShader (fragment);
  glGetProgramiv (self->program, GL_LINK_STATUS, &ok);
  if (!ok)
    {
      char log[1024] = "";
      glGetProgramInfoLog (self->program, sizeof log, NULL, log);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the colormap shaders do not link: %s",
                   g_strstrip (log));
      return FALSE;
    }

#define UNIFORM(field, name) self->uniforms.field = glGetUniformLocation (self->program, name)
  UNIFORM (image, "u_image");
  UNIFORM (lut, "u_lut");
  UNIFORM (origin, "u_origin");
  UNIFORM (step, "u_step");
  UNIFORM (viewport_height, "u_viewport_height");
  UNIFORM (scale, "u_scale");
  UNIFORM (empty, "u_empty");
  UNIFORM (low, "u_low");
  UNIFORM (range, "u_range");
  UNIFORM (log_range, "u_log_range");
  UNIFORM (inverse_gamma, "u_inverse_gamma");
  UNIFORM (background, "u_background");
#undef UNIFORM

  glGenVertexArrays (1, &self->vao);
  glGenTextures (1, &self->image_texture);
  glGenTextures (1, &self->lut_texture);
  for (int i = 0; i < 2; i++)
    {
      glBindTexture (GL_TEXTURE_2D, i == 0 ? self->image_texture : self->lut_texture);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    }
  glBindTexture (GL_TEXTURE_2D, 0);
  glGetIntegerv (GL_MAX_TEXTURE_SIZE, &self->max_texture_size);

  self->image_dirty = TRUE;
  self->lut_dirty = TRUE;
  if (glGetError () != GL_NO_ERROR)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                           "creating the colormap textures failed");
      return FALSE;
    }
  return TRUE;
}

static void
delete_gl_resources (BraggscopeView *self)
{
  if (self->program != 0)
    glDeleteProgram (self->program);
  if (self->vao != 0)
    glDeleteVertexArrays (1, &self->vao);
  if (self->image_texture != 0)
    glDeleteTextures (1, &self->image_texture);
  if (self->lut_texture != 0)
    glDeleteTextures (1, &self->lut_texture);
  self->program = self->vao = self->image_texture = self->lut_texture = 0;
}

/* Mesa's llvmpipe and friends: OpenGL on the CPU, several times slower at
 * this shader than braggscope_colormap_apply() (about 150 ms against 25 ms
 * for an 800 x 800 view of a 1024 x 1024 frame on two cores). */
static gboolean
is_software_rasterizer (const char *renderer)
{
  const char *names[] = { "llvmpipe", "softpipe", "swrast", "SwiftShader", "Software Rasterizer" };

  for (guint i = 0; renderer != NULL && i < G_N_ELEMENTS (names); i++)
    if (strstr (renderer, names[i]) != NULL)
      return TRUE;
  return FALSE;
}

static void
on_gl_realize (GtkGLArea *area, BraggscopeView *self)
{
  g_autoptr (GError) error = NULL;

  gtk_gl_area_make_current (area);
  if (gtk_gl_area_get_error (area) != NULL)
    {
      fall_back_to_software (self, gtk_gl_area_get_error (area)->message);
      return;
    }
  if (!create_gl_resources (self, gtk_gl_area_get_context (area), &error))
    {
      delete_gl_resources (self);
      fall_back_to_software (self, error->message);
      return;
    }

  if (is_software_rasterizer ((const char *) glGetString (GL_RENDERER)) &&
      g_strcmp0 (g_getenv ("BRAGGSCOPE_RENDERER"), "gl") != 0)
    {
      g_autofree char *reason =
          g_strdup_printf ("OpenGL is %s, a software rasterizer: the CPU path is faster",
                           (const char *) glGetString (GL_RENDERER));
      delete_gl_resources (self);
      fall_back_to_software (self, reason);
      return;
    }

  {
    GdkGLContext *context = gtk_gl_area_get_context (area);
    int major = 0, minor = 0;

    gdk_gl_context_get_version (context, &major, &minor);
    g_debug ("BraggscopeView: colour-mapping with OpenGL%s %d.%d (%s)",
             gdk_gl_context_get_use_es (context) ? " ES" : "", major, minor,
             (const char *) glGetString (GL_RENDERER));
  }
}

static void
on_gl_unrealize (GtkGLArea *area, BraggscopeView *self)
{
  gtk_gl_area_make_current (area);
  if (gtk_gl_area_get_error (area) == NULL)
    delete_gl_resources (self);
  self->program = self->vao = self->image_texture = self->lut_texture = 0;
}

static gboolean
upload_image (BraggscopeView *self)
{
  int width, height;
  const float *data;

  if (!frame_size (self, &width, &height))
    return FALSE;
  if (width > self->max_texture_size || height > self->max_texture_size)
    {
      g_autofree char *reason =
          g_strdup_printf ("a %d x %d frame exceeds the OpenGL texture limit of %d", width, height,
                           self->max_texture_size);
      fall_back_to_software (self, reason);
      return FALSE;
    }

  data = braggscope_frame_get_data (self->frame, NULL);
  glBindTexture (GL_TEXTURE_2D, self->image_texture);
  glPixelStorei (GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D (GL_TEXTURE_2D, 0, GL_R32F, width, height, 0, GL_RED, GL_FLOAT, data);
  glBindTexture (GL_TEXTURE_2D, 0);
  if (glGetError () != GL_NO_ERROR)
    {
      fall_back_to_software (self, "uploading the frame as a float texture failed");
      return FALSE;
    }
  self->image_dirty = FALSE;
  return TRUE;
}

static void
upload_lut (BraggscopeView *self)
{
  guint8 lut[256 * 4];

  braggscope_colormap_lut (self->display.colormap, lut);
  glBindTexture (GL_TEXTURE_2D, self->lut_texture);
  glPixelStorei (GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D (GL_TEXTURE_2D, 0, GL_RGBA8, 256, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, lut);
  glBindTexture (GL_TEXTURE_2D, 0);
  self->lut_dirty = FALSE;
}

static gboolean
on_gl_render (GtkGLArea *area, GdkGLContext *context, BraggscopeView *self)
{
  const BraggscopeDisplay *d = &self->display;
  double scale, origin_x, origin_y, range, gamma;
  int factor = gtk_widget_get_scale_factor (GTK_WIDGET (area));
  int device_height = gtk_widget_get_height (GTK_WIDGET (area)) * factor;

  glClearColor (background_rgba[0] / 255.0f, background_rgba[1] / 255.0f,
                background_rgba[2] / 255.0f, 1.0f);
  glClear (GL_COLOR_BUFFER_BIT);

  if (!self->use_gl || self->program == 0 || !view_transform (self, &scale, &origin_x, &origin_y))
    return TRUE;
  if (self->image_dirty && !upload_image (self))
    return TRUE;
  if (self->lut_dirty)
    upload_lut (self);

  /* The uniforms mirror the CPU mapping of braggscope-colormap.c. */
  range = d->high - d->low;
  gamma = d->gamma > 0.0 && isfinite (d->gamma) ? d->gamma : 1.0;

  glUseProgram (self->program);
  glUniform1i (self->uniforms.image, 0);
  glUniform1i (self->uniforms.lut, 1);
  glUniform2f (self->uniforms.origin, (float) origin_x, (float) origin_y);
  glUniform1f (self->uniforms.step, (float) (1.0 / (scale * factor)));
  glUniform1f (self->uniforms.viewport_height, (float) device_height);
  glUniform1i (self->uniforms.scale, (int) d->scale);
  glUniform1i (self->uniforms.empty, range > 0.0 ? 0 : 1);
  glUniform1f (self->uniforms.low, (float) d->low);
  glUniform1f (self->uniforms.range, (float) range);
  glUniform1f (self->uniforms.log_range, range > 0.0 ? (float) log2 (1.0 + range) : 1.0f);
  glUniform1f (self->uniforms.inverse_gamma, (float) (1.0 / gamma));
  glUniform4f (self->uniforms.background, background_rgba[0] / 255.0f, background_rgba[1] / 255.0f,
               background_rgba[2] / 255.0f, 1.0f);

  glActiveTexture (GL_TEXTURE0);
  glBindTexture (GL_TEXTURE_2D, self->image_texture);
  glActiveTexture (GL_TEXTURE1);
  glBindTexture (GL_TEXTURE_2D, self->lut_texture);
  glBindVertexArray (self->vao);
  glDrawArrays (GL_TRIANGLES, 0, 3);
  glBindVertexArray (0);
  glBindTexture (GL_TEXTURE_2D, 0);
  glActiveTexture (GL_TEXTURE0);
  glBindTexture (GL_TEXTURE_2D, 0);
  glUseProgram (0);
  return TRUE;
}

static GtkWidget *
create_gl_area (BraggscopeView *self)
{
  GtkWidget *area = gtk_gl_area_new ();

  if (g_strcmp0 (g_getenv ("BRAGGSCOPE_GL"), "gles") == 0)
    {
      G_GNUC_BEGIN_IGNORE_DEPRECATIONS
      gtk_gl_area_set_use_es (GTK_GL_AREA (area), TRUE);
      G_GNUC_END_IGNORE_DEPRECATIONS
    }
  gtk_gl_area_set_has_depth_buffer (GTK_GL_AREA (area), FALSE);
  gtk_gl_area_set_has_stencil_buffer (GTK_GL_AREA (area), FALSE);
  g_signal_connect_after (area, "realize", G_CALLBACK (on_gl_realize), self);
  g_signal_connect (area, "unrealize", G_CALLBACK (on_gl_unrealize), self);
  g_signal_connect (area, "render", G_CALLBACK (on_gl_render), self);
  /* The view handles input; the area only draws. */
  gtk_widget_set_can_target (area, FALSE);
  return area;
}

/* ------------------------------------------------------------------------- */
/* The software path */

static const guint8 *
ensure_frame_indices (BraggscopeView *self)
{
  int width, height;
  gsize n;
  const float *data;

  if (!frame_size (self, &width, &height))
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

  if (!view_transform (self, &scale, &origin_x, &origin_y) ||
      (indices = ensure_frame_indices (self)) == NULL)
    return NULL;
  frame_size (self, &frame_width, &frame_height);
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
          const guint8 *color = background_rgba;

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

static void
snapshot_software (BraggscopeView *self, GtkSnapshot *snapshot, int width, int height)
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
      GdkRGBA color = { background_rgba[0] / 255.0f, background_rgba[1] / 255.0f,
                        background_rgba[2] / 255.0f, 1.0f };
      gtk_snapshot_append_color (snapshot, &color, &GRAPHENE_RECT_INIT (0, 0, width, height));
    }
}

/* ------------------------------------------------------------------------- */
/* Overlays */

static const BraggscopeOverlayGeometry *
ensure_overlay (BraggscopeView *self)
{
  BraggscopeGeometry *geometry;
  int width, height;

  if (!frame_size (self, &width, &height))
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
    }
  return self->overlay.projective ? &self->overlay : NULL;
}

static void
snapshot_overlays (BraggscopeView *self, GtkSnapshot *snapshot, int width, int height)
{
  const BraggscopeOverlayGeometry *geom;
  BraggscopeOverlayStyle style = { 0 };
  double scale, origin_x, origin_y;
  cairo_t *cr;

  if (!(self->show_rings || self->show_beam_center) ||
      !view_transform (self, &scale, &origin_x, &origin_y) ||
      (geom = ensure_overlay (self)) == NULL)
    return;

  style.rings = self->show_rings;
  style.beam_center = self->show_beam_center;
  style.scale = scale;
  style.offset_x = -origin_x * scale;
  style.offset_y = -origin_y * scale;
  style.line_width = 1.5;
  style.cross_size = 12.0;
  style.font_size = 12.0;
  _braggscope_overlay_color_for (self->display.colormap, style.color);

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  _braggscope_overlay_draw (geom, &style, cr);
  cairo_destroy (cr);
}

/* ------------------------------------------------------------------------- */
/* GtkWidget */

static void
braggscope_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  if (width <= 0 || height <= 0)
    return;

  if (self->use_gl && self->gl_area != NULL)
    gtk_widget_snapshot_child (widget, self->gl_area, snapshot);
  else
    snapshot_software (self, snapshot, width, height);

  snapshot_overlays (self, snapshot, width, height);
}

static void
braggscope_view_measure (GtkWidget *widget,
                         GtkOrientation orientation,
                         int for_size,
                         int *minimum,
                         int *natural,
                         int *minimum_baseline,
                         int *natural_baseline)
{
  *minimum = 64;
  *natural = 512;
}

static void
braggscope_view_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (widget);

  if (self->gl_area != NULL)
    gtk_widget_allocate (self->gl_area, width, height, baseline, NULL);
  self->screen_dirty = TRUE;
}

/* ------------------------------------------------------------------------- */
/* Frames */

static void
set_window (BraggscopeView *self, double low, double high)
{
  gboolean low_changed = self->display.low != low;
  gboolean high_changed = self->display.high != high;

  if (!low_changed && !high_changed)
    return;
  self->display.low = low;
  self->display.high = high;
  invalidate (self, CHANGED_DISPLAY);
  if (low_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOW]);
  if (high_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIGH]);
}

static void
apply_auto_contrast (BraggscopeView *self)
{
  BraggscopeDisplay display = self->display;

  if (self->frame == NULL)
    return;
  braggscope_render_auto_window (self->frame, &display);
  set_window (self, display.low, display.high);
}

static void
set_frame (BraggscopeView *self, BraggscopeFrame *frame)
{
  int old_width = 0, old_height = 0, width = 0, height = 0;
  gboolean had_frame = frame_size (self, &old_width, &old_height);

  if (frame == self->frame)
    return;

  g_set_object (&self->frame, frame);
  if (frame_size (self, &width, &height) && (width != old_width || height != old_height))
    {
      self->center_x = 0.5 * width;
      self->center_y = 0.5 * height;
    }

  /* Previews keep the window of the last full frame, so a drag does not
   * flicker and costs no selection per preview. */
  if (self->auto_contrast && self->frame != NULL &&
      (!braggscope_frame_get_is_preview (self->frame) || !had_frame || width != old_width ||
       height != old_height))
    apply_auto_contrast (self);

  invalidate (self, CHANGED_IMAGE | CHANGED_VIEW);
  update_readout (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRAME]);
}

static void
on_frame_ready (BraggscopeSimulation *simulation, BraggscopeFrame *frame, BraggscopeView *self)
{
  set_frame (self, frame);
}

/* ------------------------------------------------------------------------- */
/* Readout */

static void
update_readout (BraggscopeView *self)
{
  gboolean inside = FALSE;
  int width, height;
  double x, y;

  if (self->pointer_inside && frame_size (self, &width, &height) &&
      braggscope_view_widget_to_frame (self, self->pointer_x, self->pointer_y, &x, &y) &&
      x >= 0.0 && y >= 0.0 && x < width && y < height)
    {
      BraggscopeGeometry *geometry = braggscope_frame_get_geometry (self->frame);
      const float *data = braggscope_frame_get_data (self->frame, NULL);
      BraggscopePixelInfo info;

      if (geometry != NULL && braggscope_geometry_query (geometry, x, y, &info, NULL))
        {
          inside = TRUE;
          self->readout_x = x;
          self->readout_y = y;
          self->readout_pixel_x = MIN ((int) floor (x), width - 1);
          self->readout_pixel_y = MIN ((int) floor (y), height - 1);
          self->readout_value = data[(gsize) self->readout_pixel_y * width + self->readout_pixel_x];
          self->readout_info = info;
        }
    }

  if (!inside && !self->readout_inside)
    return;
  self->readout_inside = inside;
  g_signal_emit (self, signals[SIGNAL_READOUT_CHANGED], 0, inside);
}

static void
on_motion (GtkEventControllerMotion *controller, double x, double y, BraggscopeView *self)
{
  braggscope_view_set_readout_point (self, x, y);
}

static void
on_leave (GtkEventControllerMotion *controller, BraggscopeView *self)
{
  braggscope_view_clear_readout (self);
}

/* ------------------------------------------------------------------------- */
/* Zoom and pan */

static void
clamp_center (BraggscopeView *self)
{
  int width, height;

  if (!frame_size (self, &width, &height))
    return;
  self->center_x = CLAMP (self->center_x, 0.0, (double) width);
  self->center_y = CLAMP (self->center_y, 0.0, (double) height);
}

/* Zooms by @factor keeping the frame point under (x, y) where it is. */
static void
zoom_about (BraggscopeView *self, double factor, double x, double y)
{
  double before_x, before_y, after_x, after_y;
  double zoom = CLAMP (self->zoom * factor, MIN_ZOOM, MAX_ZOOM);
  gboolean anchored;

  if (zoom == self->zoom)
    return;
  anchored = braggscope_view_widget_to_frame (self, x, y, &before_x, &before_y);
  self->zoom = zoom;
  if (anchored && braggscope_view_widget_to_frame (self, x, y, &after_x, &after_y))
    {
      self->center_x += before_x - after_x;
      self->center_y += before_y - after_y;
      clamp_center (self);
    }
  invalidate (self, CHANGED_VIEW);
  update_readout (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

static gboolean
on_scroll (GtkEventControllerScroll *controller, double dx, double dy, BraggscopeView *self)
{
  double x =
      self->pointer_inside ? self->pointer_x : 0.5 * gtk_widget_get_width (GTK_WIDGET (self));
  double y =
      self->pointer_inside ? self->pointer_y : 0.5 * gtk_widget_get_height (GTK_WIDGET (self));

  zoom_about (self, pow (ZOOM_STEP, -dy), x, y);
  return TRUE;
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, BraggscopeView *self)
{
  self->drag_center_x = self->center_x;
  self->drag_center_y = self->center_y;
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, BraggscopeView *self)
{
  double scale, origin_x, origin_y;

  if (!view_transform (self, &scale, &origin_x, &origin_y))
    return;
  self->center_x = self->drag_center_x - dx / scale;
  self->center_y = self->drag_center_y - dy / scale;
  clamp_center (self);
  invalidate (self, CHANGED_VIEW);
  update_readout (self);
}

static void
on_pressed (GtkGestureClick *gesture, int n_press, double x, double y, BraggscopeView *self)
{
  if (n_press == 2)
    braggscope_view_fit (self);
}

/* ------------------------------------------------------------------------- */
/* GObject */

static void
braggscope_view_constructed (GObject *object)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (object);

  G_OBJECT_CLASS (braggscope_view_parent_class)->constructed (object);

  if (g_strcmp0 (g_getenv ("BRAGGSCOPE_RENDERER"), "software") == 0)
    self->force_software = TRUE;
  if (!self->force_software)
    {
      self->gl_area = create_gl_area (self);
      gtk_widget_set_parent (self->gl_area, GTK_WIDGET (self));
      self->use_gl = TRUE;
    }
}

static void
braggscope_view_dispose (GObject *object)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (object);

  braggscope_view_set_simulation (self, NULL);
  g_clear_pointer (&self->gl_area, gtk_widget_unparent);
  g_clear_object (&self->frame);
  g_clear_object (&self->screen_texture);
  g_clear_pointer (&self->overlay_source, braggscope_geometry_unref);

  G_OBJECT_CLASS (braggscope_view_parent_class)->dispose (object);
}

static void
braggscope_view_finalize (GObject *object)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (object);

  g_free (self->frame_indices);

  G_OBJECT_CLASS (braggscope_view_parent_class)->finalize (object);
}

static void
braggscope_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (object);

  switch (prop_id)
    {
      case PROP_SIMULATION:
        g_value_set_object (value, self->simulation);
        break;
      case PROP_FRAME:
        g_value_set_object (value, self->frame);
        break;
      case PROP_COLORMAP:
        g_value_set_enum (value, self->display.colormap);
        break;
      case PROP_SCALE:
        g_value_set_enum (value, self->display.scale);
        break;
      case PROP_GAMMA:
        g_value_set_double (value, self->display.gamma);
        break;
      case PROP_AUTO_CONTRAST:
        g_value_set_boolean (value, self->auto_contrast);
        break;
      case PROP_LOW:
        g_value_set_double (value, self->display.low);
        break;
      case PROP_HIGH:
        g_value_set_double (value, self->display.high);
        break;
      case PROP_SHOW_RINGS:
        g_value_set_boolean (value, self->show_rings);
        break;
      case PROP_SHOW_BEAM_CENTER:
        g_value_set_boolean (value, self->show_beam_center);
        break;
      case PROP_ZOOM:
        g_value_set_double (value, self->zoom);
        break;
      case PROP_RENDERER:
        g_value_set_string (value, braggscope_view_get_renderer (self));
        break;
      case PROP_FORCE_SOFTWARE:
        g_value_set_boolean (value, self->force_software);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
braggscope_view_set_property (GObject *object,
                              guint prop_id,
                              const GValue *value,
                              GParamSpec *pspec)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (object);

  switch (prop_id)
    {
      case PROP_SIMULATION:
        braggscope_view_set_simulation (self, g_value_get_object (value));
        break;
      case PROP_COLORMAP:
        braggscope_view_set_colormap (self, g_value_get_enum (value));
        break;
      case PROP_SCALE:
        braggscope_view_set_scale (self, g_value_get_enum (value));
        break;
      case PROP_GAMMA:
        braggscope_view_set_gamma (self, g_value_get_double (value));
        break;
      case PROP_AUTO_CONTRAST:
        braggscope_view_set_auto_contrast (self, g_value_get_boolean (value));
        break;
      case PROP_LOW:
        braggscope_view_set_low (self, g_value_get_double (value));
        break;
      case PROP_HIGH:
        braggscope_view_set_high (self, g_value_get_double (value));
        break;
      case PROP_SHOW_RINGS:
        braggscope_view_set_show_rings (self, g_value_get_boolean (value));
        break;
      case PROP_SHOW_BEAM_CENTER:
        braggscope_view_set_show_beam_center (self, g_value_get_boolean (value));
        break;
      case PROP_ZOOM:
        braggscope_view_set_zoom (self, g_value_get_double (value));
        break;
      case PROP_FORCE_SOFTWARE:
        self->force_software = g_value_get_boolean (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
braggscope_view_class_init (BraggscopeViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  _braggscope_gtk_ensure_textdomain ();
  object_class->constructed = braggscope_view_constructed;
  object_class->dispose = braggscope_view_dispose;
  object_class->finalize = braggscope_view_finalize;
  object_class->get_property = braggscope_view_get_property;
  object_class->set_property = braggscope_view_set_property;

  widget_class->snapshot = braggscope_view_snapshot;
  widget_class->measure = braggscope_view_measure;
  widget_class->size_allocate = braggscope_view_size_allocate;

  /**
   * BraggscopeView:simulation:
   *
   * The simulation whose frames are shown (its #BraggscopeSimulation::frame-ready).
   */
  properties[PROP_SIMULATION] =
      g_param_spec_object ("simulation", "Simulation", "The simulation whose frames are shown",
                           BRAGGSCOPE_TYPE_SIMULATION, rw);

  /**
   * BraggscopeView:frame:
   *
   * The frame shown (the simulation's newest).
   */
  properties[PROP_FRAME] =
      g_param_spec_object ("frame", "Frame", "The frame shown", BRAGGSCOPE_TYPE_FRAME,
                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * BraggscopeView:colormap:
   *
   * The colour table.
   */
  properties[PROP_COLORMAP] =
      g_param_spec_enum ("colormap", "Colormap", "The colour table", BRAGGSCOPE_TYPE_COLORMAP,
                         BRAGGSCOPE_COLORMAP_INVERTED_GREY, rw);

  /**
   * BraggscopeView:scale:
   *
   * The intensity scale (linear, log or gamma).
   */
  properties[PROP_SCALE] =
      g_param_spec_enum ("scale", "Scale", "The intensity scale (linear, log, gamma)",
                         BRAGGSCOPE_TYPE_SCALE, BRAGGSCOPE_SCALE_LINEAR, rw);

  /**
   * BraggscopeView:gamma:
   *
   * The exponent of the gamma scale: t^(1/gamma).
   */
  properties[PROP_GAMMA] = g_param_spec_double (
      "gamma", "Gamma", "Exponent of the gamma scale, t^(1/gamma)", 0.05, 20.0, 1.0, rw);

  /**
   * BraggscopeView:auto-contrast:
   *
   * Whether the window (#BraggscopeView:low, #BraggscopeView:high) follows
   * each full frame: its 1st and 99.5th percentiles.  Setting low or high
   * turns it off.
   */
  properties[PROP_AUTO_CONTRAST] = g_param_spec_boolean (
      "auto-contrast", "Auto contrast",
      "Set the window to the 1st and 99.5th percentiles of each full frame", TRUE, rw);

  /**
   * BraggscopeView:low:
   *
   * The intensity (photons/pixel) shown as the first colour.
   */
  properties[PROP_LOW] =
      g_param_spec_double ("low", "Low", "Intensity shown as the first colour (photons/pixel)",
                           -G_MAXDOUBLE, G_MAXDOUBLE, 0.0, rw);

  /**
   * BraggscopeView:high:
   *
   * The intensity (photons/pixel) shown as the last colour.
   */
  properties[PROP_HIGH] =
      g_param_spec_double ("high", "High", "Intensity shown as the last colour (photons/pixel)",
                           -G_MAXDOUBLE, G_MAXDOUBLE, 100.0, rw);

  /**
   * BraggscopeView:show-rings:
   *
   * Whether resolution rings (labelled with d in Angstrom) are drawn.
   */
  properties[PROP_SHOW_RINGS] = g_param_spec_boolean (
      "show-rings", "Show rings", "Draw resolution rings labelled with d (Angstrom)", TRUE, rw);

  /**
   * BraggscopeView:show-beam-center:
   *
   * Whether a cross marks where the direct beam meets the detector.
   */
  properties[PROP_SHOW_BEAM_CENTER] =
      g_param_spec_boolean ("show-beam-center", "Show beam centre",
                            "Mark where the direct beam meets the detector", TRUE, rw);

  /**
   * BraggscopeView:zoom:
   *
   * Magnification relative to the whole frame fitting the widget (1).
   */
  properties[PROP_ZOOM] =
      g_param_spec_double ("zoom", "Zoom", "Magnification; 1 fits the whole frame in the widget",
                           MIN_ZOOM, MAX_ZOOM, 1.0, rw);

  /**
   * BraggscopeView:renderer:
   *
   * "gl" when frames are colour-mapped by the OpenGL shader, "software" when
   * on the CPU.
   */
  properties[PROP_RENDERER] =
      g_param_spec_string ("renderer", "Renderer", "\"gl\" or \"software\"", "gl",
                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * BraggscopeView:force-software:
   *
   * Colour-map on the CPU even where OpenGL works.
   */
  properties[PROP_FORCE_SOFTWARE] = g_param_spec_boolean (
      "force-software", "Force software", "Colour-map on the CPU even where OpenGL works", FALSE,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * BraggscopeView::readout-changed:
   * @self: the view
   * @inside: whether the point is on the frame (then
   *   braggscope_view_get_readout() has its values)
   *
   * The readout point moved, left the frame, or the frame under it changed.
   */
  signals[SIGNAL_READOUT_CHANGED] =
      g_signal_new ("readout-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                    NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);

  gtk_widget_class_set_css_name (widget_class, "braggscope-view");
}

static void
braggscope_view_init (BraggscopeView *self)
{
  GtkEventController *motion, *scroll;
  GtkGesture *drag, *click;

  braggscope_display_init (&self->display);
  self->auto_contrast = TRUE;
  self->show_rings = TRUE;
  self->show_beam_center = TRUE;
  self->zoom = 1.0;
  self->frame_indices_dirty = TRUE;
  self->screen_dirty = TRUE;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);

  motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "enter", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);

  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);

  drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  click = gtk_gesture_click_new ();
  g_signal_connect (click, "pressed", G_CALLBACK (on_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
}

/* ------------------------------------------------------------------------- */
/* Public API */

/**
 * braggscope_view_new:
 * @simulation: (nullable): the simulation to show
 *
 * Creates a view of @simulation's frames (it shows the last frame at once, if
 * there is one, and every frame the simulation delivers after).
 *
 * Returns: (transfer floating): a new #BraggscopeView
 */
GtkWidget *
braggscope_view_new (BraggscopeSimulation *simulation)
{
  g_return_val_if_fail (simulation == NULL || BRAGGSCOPE_IS_SIMULATION (simulation), NULL);

  return g_object_new (BRAGGSCOPE_TYPE_VIEW, "simulation", simulation, NULL);
}

/**
 * braggscope_view_get_simulation:
 * @self: a view
 *
 * Returns: (transfer none) (nullable): the simulation shown
 */
BraggscopeSimulation *
braggscope_view_get_simulation (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  return self->simulation;
}

/**
 * braggscope_view_set_simulation:
 * @self: a view
 * @simulation: (nullable): the simulation to show
 *
 * Shows @simulation's frames from now on (its last frame at once).
 */
void
braggscope_view_set_simulation (BraggscopeView *self, BraggscopeSimulation *simulation)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));
  g_return_if_fail (simulation == NULL || BRAGGSCOPE_IS_SIMULATION (simulation));

  if (simulation == self->simulation)
    return;

  if (self->simulation != NULL)
    {
      g_clear_signal_handler (&self->frame_ready_handler, self->simulation);
      g_clear_object (&self->simulation);
    }
  if (simulation != NULL)
    {
      self->simulation = g_object_ref (simulation);
      self->frame_ready_handler = g_signal_connect_object (
          simulation, "frame-ready", G_CALLBACK (on_frame_ready), self, G_CONNECT_DEFAULT);
      if (braggscope_simulation_get_last_frame (simulation) != NULL)
        set_frame (self, braggscope_simulation_get_last_frame (simulation));
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SIMULATION]);
}

/**
 * braggscope_view_get_frame:
 * @self: a view
 *
 * Returns: (transfer none) (nullable): the frame shown
 */
BraggscopeFrame *
braggscope_view_get_frame (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  return self->frame;
}

/**
 * braggscope_view_get_colormap:
 * @self: a view
 *
 * Returns: the colour table
 */
BraggscopeColormap
braggscope_view_get_colormap (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), BRAGGSCOPE_COLORMAP_GREY);

  return self->display.colormap;
}

/**
 * braggscope_view_set_colormap:
 * @self: a view
 * @colormap: the colour table
 *
 * Sets the colour table (no re-simulation).
 */
void
braggscope_view_set_colormap (BraggscopeView *self, BraggscopeColormap colormap)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (self->display.colormap == colormap)
    return;
  self->display.colormap = colormap;
  invalidate (self, CHANGED_DISPLAY);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COLORMAP]);
}

/**
 * braggscope_view_get_scale:
 * @self: a view
 *
 * Returns: the intensity scale
 */
BraggscopeScale
braggscope_view_get_scale (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), BRAGGSCOPE_SCALE_LINEAR);

  return self->display.scale;
}

/**
 * braggscope_view_set_scale:
 * @self: a view
 * @scale: the intensity scale
 *
 * Sets the intensity scale (no re-simulation).
 */
void
braggscope_view_set_scale (BraggscopeView *self, BraggscopeScale scale)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (self->display.scale == scale)
    return;
  self->display.scale = scale;
  invalidate (self, CHANGED_DISPLAY);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SCALE]);
}

/**
 * braggscope_view_get_gamma:
 * @self: a view
 *
 * Returns: the exponent of the gamma scale
 */
double
braggscope_view_get_gamma (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), 1.0);

  return self->display.gamma;
}

/**
 * braggscope_view_set_gamma:
 * @self: a view
 * @gamma: the exponent of the gamma scale, 0.05..20
 *
 * Sets gamma: the gamma scale shows t^(1/gamma).
 */
void
braggscope_view_set_gamma (BraggscopeView *self, double gamma)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  gamma = CLAMP (gamma, 0.05, 20.0);
  if (self->display.gamma == gamma)
    return;
  self->display.gamma = gamma;
  invalidate (self, CHANGED_DISPLAY);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_GAMMA]);
}

/**
 * braggscope_view_get_auto_contrast:
 * @self: a view
 *
 * Returns: whether the window follows each full frame
 */
gboolean
braggscope_view_get_auto_contrast (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  return self->auto_contrast;
}

/**
 * braggscope_view_set_auto_contrast:
 * @self: a view
 * @auto_contrast: whether the window follows each full frame
 *
 * With @auto_contrast the window is set at once from the frame shown, then
 * from each full frame (previews keep it).
 */
void
braggscope_view_set_auto_contrast (BraggscopeView *self, gboolean auto_contrast)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  auto_contrast = !!auto_contrast;
  if (self->auto_contrast == auto_contrast)
    return;
  self->auto_contrast = auto_contrast;
  if (auto_contrast)
    apply_auto_contrast (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUTO_CONTRAST]);
}

/**
 * braggscope_view_get_low:
 * @self: a view
 *
 * Returns: the intensity (photons/pixel) shown as the first colour
 */
double
braggscope_view_get_low (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), 0.0);

  return self->display.low;
}

/**
 * braggscope_view_set_low:
 * @self: a view
 * @low: intensity (photons/pixel) shown as the first colour
 *
 * Sets the bottom of the window; turns #BraggscopeView:auto-contrast off.
 */
void
braggscope_view_set_low (BraggscopeView *self, double low)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  braggscope_view_set_auto_contrast (self, FALSE);
  set_window (self, low, self->display.high);
}

/**
 * braggscope_view_get_high:
 * @self: a view
 *
 * Returns: the intensity (photons/pixel) shown as the last colour
 */
double
braggscope_view_get_high (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), 0.0);

  return self->display.high;
}

/**
 * braggscope_view_set_high:
 * @self: a view
 * @high: intensity (photons/pixel) shown as the last colour
 *
 * Sets the top of the window; turns #BraggscopeView:auto-contrast off.
 */
void
braggscope_view_set_high (BraggscopeView *self, double high)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  braggscope_view_set_auto_contrast (self, FALSE);
  set_window (self, self->display.low, high);
}

/**
 * braggscope_view_get_display:
 * @self: a view
 * @display: (out caller-allocates): the colormap, scale, gamma and window in use
 *
 * What braggscope_colormap_apply() needs to colour a frame as the view does.
 */
void
braggscope_view_get_display (BraggscopeView *self, BraggscopeDisplay *display)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));
  g_return_if_fail (display != NULL);

  *display = self->display;
}

/**
 * braggscope_view_get_show_rings:
 * @self: a view
 *
 * Returns: whether resolution rings are drawn
 */
gboolean
braggscope_view_get_show_rings (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  return self->show_rings;
}

/**
 * braggscope_view_set_show_rings:
 * @self: a view
 * @show_rings: whether to draw resolution rings
 *
 * Shows or hides the resolution rings.
 */
void
braggscope_view_set_show_rings (BraggscopeView *self, gboolean show_rings)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  show_rings = !!show_rings;
  if (self->show_rings == show_rings)
    return;
  self->show_rings = show_rings;
  invalidate (self, CHANGED_OVERLAY);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_RINGS]);
}

/**
 * braggscope_view_get_show_beam_center:
 * @self: a view
 *
 * Returns: whether the beam centre is marked
 */
gboolean
braggscope_view_get_show_beam_center (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  return self->show_beam_center;
}

/**
 * braggscope_view_set_show_beam_center:
 * @self: a view
 * @show_beam_center: whether to mark the beam centre
 *
 * Shows or hides the beam centre cross.
 */
void
braggscope_view_set_show_beam_center (BraggscopeView *self, gboolean show_beam_center)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  show_beam_center = !!show_beam_center;
  if (self->show_beam_center == show_beam_center)
    return;
  self->show_beam_center = show_beam_center;
  invalidate (self, CHANGED_OVERLAY);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_BEAM_CENTER]);
}

/**
 * braggscope_view_get_zoom:
 * @self: a view
 *
 * Returns: the magnification; 1 fits the whole frame
 */
double
braggscope_view_get_zoom (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), 1.0);

  return self->zoom;
}

/**
 * braggscope_view_set_zoom:
 * @self: a view
 * @zoom: magnification, 0.25..256; 1 fits the whole frame in the widget
 *
 * Zooms about the centre of the widget.
 */
void
braggscope_view_set_zoom (BraggscopeView *self, double zoom)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  zoom = CLAMP (zoom, MIN_ZOOM, MAX_ZOOM);
  if (zoom == self->zoom)
    return;
  self->zoom = zoom;
  invalidate (self, CHANGED_VIEW);
  update_readout (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

/**
 * braggscope_view_get_center:
 * @self: a view
 * @x: (out) (optional): frame x (fast axis, pixels) at the widget's centre
 * @y: (out) (optional): frame y (slow axis, pixels) at the widget's centre
 *
 * The frame point shown at the centre of the widget.
 */
void
braggscope_view_get_center (BraggscopeView *self, double *x, double *y)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (x != NULL)
    *x = self->center_x;
  if (y != NULL)
    *y = self->center_y;
}

/**
 * braggscope_view_set_center:
 * @self: a view
 * @x: frame x (fast axis, pixels), clamped to the frame
 * @y: frame y (slow axis, pixels), clamped to the frame
 *
 * Pans so that the frame point (@x, @y) is at the centre of the widget.
 */
void
braggscope_view_set_center (BraggscopeView *self, double x, double y)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));
  g_return_if_fail (isfinite (x) && isfinite (y));

  self->center_x = x;
  self->center_y = y;
  clamp_center (self);
  invalidate (self, CHANGED_VIEW);
  update_readout (self);
}

/**
 * braggscope_view_fit:
 * @self: a view
 *
 * Zoom 1, frame centred: the whole frame fits the widget.
 */
void
braggscope_view_fit (BraggscopeView *self)
{
  int width, height;

  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (frame_size (self, &width, &height))
    braggscope_view_set_center (self, 0.5 * width, 0.5 * height);
  braggscope_view_set_zoom (self, 1.0);
}

/**
 * braggscope_view_widget_to_frame:
 * @self: a view
 * @x: widget x (logical pixels)
 * @y: widget y (logical pixels)
 * @frame_x: (out) (optional): frame x (fast axis; pixel i spans [i, i + 1))
 * @frame_y: (out) (optional): frame y (slow axis)
 *
 * Where a widget point falls on the frame (possibly outside it).
 *
 * Returns: %FALSE when there is no frame or the widget has no size
 */
gboolean
braggscope_view_widget_to_frame (
    BraggscopeView *self, double x, double y, double *frame_x, double *frame_y)
{
  double scale, origin_x, origin_y;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  if (!view_transform (self, &scale, &origin_x, &origin_y))
    return FALSE;
  if (frame_x != NULL)
    *frame_x = origin_x + x / scale;
  if (frame_y != NULL)
    *frame_y = origin_y + y / scale;
  return TRUE;
}

/**
 * braggscope_view_frame_to_widget:
 * @self: a view
 * @frame_x: frame x (fast axis, pixels)
 * @frame_y: frame y (slow axis, pixels)
 * @x: (out) (optional): widget x (logical pixels)
 * @y: (out) (optional): widget y (logical pixels)
 *
 * Where a frame point is drawn in the widget.
 *
 * Returns: %FALSE when there is no frame or the widget has no size
 */
gboolean
braggscope_view_frame_to_widget (
    BraggscopeView *self, double frame_x, double frame_y, double *x, double *y)
{
  double scale, origin_x, origin_y;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  if (!view_transform (self, &scale, &origin_x, &origin_y))
    return FALSE;
  if (x != NULL)
    *x = (frame_x - origin_x) * scale;
  if (y != NULL)
    *y = (frame_y - origin_y) * scale;
  return TRUE;
}

/**
 * braggscope_view_get_renderer:
 * @self: a view
 *
 * Returns: "gl" when frames are colour-mapped by the OpenGL shader (or will
 *   be, once the widget is realized), "software" when on the CPU
 */
const char *
braggscope_view_get_renderer (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  return self->use_gl ? "gl" : "software";
}

/**
 * braggscope_view_get_force_software:
 * @self: a view
 *
 * Returns: whether the view was made to colour-map on the CPU
 */
gboolean
braggscope_view_get_force_software (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  return self->force_software;
}

/**
 * braggscope_view_get_beam_center:
 * @self: a view
 * @x: (out) (optional): frame x (fast axis, pixels) of the direct beam
 * @y: (out) (optional): frame y (slow axis, pixels) of the direct beam
 *
 * Where the direct beam meets the detector plane of the frame shown (found
 * from the frame's geometry; may lie outside the frame).
 *
 * Returns: %FALSE without a frame, for a detector the beam does not meet in
 *   front of the sample, or one that is not flat
 */
gboolean
braggscope_view_get_beam_center (BraggscopeView *self, double *x, double *y)
{
  const BraggscopeOverlayGeometry *geom;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  geom = ensure_overlay (self);
  if (geom == NULL || !geom->has_beam_center)
    return FALSE;
  if (x != NULL)
    *x = geom->beam_x;
  if (y != NULL)
    *y = geom->beam_y;
  return TRUE;
}

/**
 * braggscope_view_set_readout_point:
 * @self: a view
 * @x: widget x (logical pixels)
 * @y: widget y (logical pixels)
 *
 * Moves the readout to a widget point, as the pointer does; emits
 * #BraggscopeView::readout-changed.  The readout follows new frames, zoom and
 * pan until braggscope_view_clear_readout().
 */
void
braggscope_view_set_readout_point (BraggscopeView *self, double x, double y)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  self->pointer_inside = TRUE;
  self->pointer_x = x;
  self->pointer_y = y;
  update_readout (self);
}

/**
 * braggscope_view_clear_readout:
 * @self: a view
 *
 * No readout point (as when the pointer leaves the widget).
 */
void
braggscope_view_clear_readout (BraggscopeView *self)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  self->pointer_inside = FALSE;
  update_readout (self);
}

/**
 * braggscope_view_get_readout:
 * @self: a view
 * @frame_x: (out) (optional): frame x of the readout point (fast axis, pixels)
 * @frame_y: (out) (optional): frame y (slow axis, pixels)
 * @pixel_x: (out) (optional): the pixel's column, floor (frame_x)
 * @pixel_y: (out) (optional): the pixel's row
 * @value: (out) (optional): the pixel's intensity, photons
 * @info: (out caller-allocates) (optional): what the detector sees at the
 *   point (braggscope_geometry_query() of the frame's geometry)
 *
 * The readout under the pointer (or the point given to
 * braggscope_view_set_readout_point()).
 *
 * Returns: %FALSE when the point is not on the frame (the outputs are then
 *   not set)
 */
gboolean
braggscope_view_get_readout (BraggscopeView *self,
                             double *frame_x,
                             double *frame_y,
                             int *pixel_x,
                             int *pixel_y,
                             float *value,
                             BraggscopePixelInfo *info)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  if (!self->readout_inside)
    return FALSE;
  if (frame_x != NULL)
    *frame_x = self->readout_x;
  if (frame_y != NULL)
    *frame_y = self->readout_y;
  if (pixel_x != NULL)
    *pixel_x = self->readout_pixel_x;
  if (pixel_y != NULL)
    *pixel_y = self->readout_pixel_y;
  if (value != NULL)
    *value = self->readout_value;
  if (info != NULL)
    *info = self->readout_info;
  return TRUE;
}

/**
 * braggscope_view_format_readout:
 * @self: a view
 *
 * The readout as one line for a status bar: pixel, value, d, 2 theta and the
 * Miller indices, or %NULL when the point is not on the frame.
 *
 * Returns: (transfer full) (nullable): the text
 */
char *
braggscope_view_format_readout (BraggscopeView *self)
{
  const BraggscopePixelInfo *info = &self->readout_info;
  g_autofree char *d = NULL;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  if (!self->readout_inside)
    return NULL;
  d = isfinite (info->d_spacing) ? g_strdup_printf ("%.3f \u00c5", info->d_spacing)
                                 : g_strdup ("\u221e");
  /* Translators: the readout under the pointer: pixel x, y, its intensity,
   * the resolution d (a number and Å, or ∞), the scattering angle 2θ, the
   * fractional Miller indices h k l and the nearest whole ones */
  return g_strdup_printf (_ ("pixel %d, %d   I %.4g photons   d %s   2\u03b8 %.3f\u00b0   "
                             "hkl %.2f %.2f %.2f (%d %d %d)"),
                          self->readout_pixel_x, self->readout_pixel_y, self->readout_value, d,
                          info->two_theta, info->h, info->k, info->l, info->nearest_h,
                          info->nearest_k, info->nearest_l);
}

/**
 * braggscope_view_snapshot_texture:
 * @self: a realized view
 *
 * What the widget shows now (its size, zoom, pan and overlays), rendered by
 * the window's renderer; on the OpenGL path this reads back the shader's
 * output.
 *
 * Returns: (transfer full) (nullable): the texture, or %NULL when the view is
 *   not realized or has no size
 */
GdkTexture *
braggscope_view_snapshot_texture (BraggscopeView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  g_autoptr (GskRenderNode) node = NULL;
  GtkSnapshot *snapshot;
  GtkNative *native;
  GskRenderer *renderer;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  native = gtk_widget_get_native (GTK_WIDGET (self));
  if (!gtk_widget_get_realized (GTK_WIDGET (self)) || native == NULL || width <= 0 || height <= 0)
    return NULL;
  renderer = gtk_native_get_renderer (native);
  if (renderer == NULL)
    return NULL;

  /* The widget's own drawing, as in a frame (the GL area renders in it). */
  snapshot = gtk_snapshot_new ();
  braggscope_view_snapshot (GTK_WIDGET (self), snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return NULL;
  return gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
}

/**
 * braggscope_view_render_rgba: (skip)
 * @self: a view
 * @width: (out): the frame's width, 0 without a frame
 * @height: (out): the frame's height, 0 without a frame
 *
 * The frame shown, colour-mapped as the view shows it (braggscope_colormap_apply()
 * with braggscope_view_get_display()) and with the overlays switched on drawn
 * over it, at the frame's resolution (one RGBA pixel per detector pixel,
 * whatever the zoom), for PNG snapshots and headless rendering.  Needs no
 * realized widget.
 *
 * Bindings use braggscope_view_render_bytes().
 *
 * Returns: (transfer full) (nullable) (skip): width * height * 4 bytes of
 *   RGBA (alpha 255), row-major, or %NULL without a frame; g_free() it
 */
guint8 *
braggscope_view_render_rgba (BraggscopeView *self, int *width, int *height)
{
  const BraggscopeOverlayGeometry *geom;
  const float *data;
  guint8 *rgba;
  int w, h;
  gsize n;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);
  g_return_val_if_fail (width != NULL && height != NULL, NULL);

  *width = *height = 0;
  if (!frame_size (self, &w, &h))
    return NULL;

  data = braggscope_frame_get_data (self->frame, &n);
  rgba = g_malloc (n * 4);
  braggscope_colormap_apply (&self->display, data, n, rgba);
  if ((self->show_rings || self->show_beam_center) && (geom = ensure_overlay (self)) != NULL)
    _braggscope_overlay_draw_into_rgba (geom, self->show_rings, self->show_beam_center,
                                        self->display.colormap, rgba, w, h);

  *width = w;
  *height = h;
  return rgba;
}

/**
 * braggscope_view_render_bytes:
 * @self: a view
 * @width: (out): the frame's width, 0 without a frame
 * @height: (out): the frame's height, 0 without a frame
 *
 * braggscope_view_render_rgba() for language bindings.
 *
 * Returns: (transfer full) (nullable): width * height * 4 bytes of RGBA, or
 *   %NULL without a frame
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
 * @display: the colormap, scale and window (used as given: no auto-contrast)
 * @show_rings: whether to draw resolution rings
 * @show_beam_center: whether to mark the beam centre
 * @width: (out): the frame's width
 * @height: (out): the frame's height
 *
 * What braggscope_view_render_rgba() gives for a view showing @frame with
 * these settings, without a view: it needs neither a display nor GTK to be
 * initialised (for headless programs).  Bindings use braggscope_render_bytes().
 *
 * Returns: (transfer full): width * height * 4 bytes of RGBA (alpha 255),
 *   row-major; g_free() it
 */
guint8 *
braggscope_render_rgba (BraggscopeFrame *frame,
                        const BraggscopeDisplay *display,
                        gboolean show_rings,
                        gboolean show_beam_center,
                        int *width,
                        int *height)
{
  BraggscopeOverlayGeometry geom;
  BraggscopeGeometry *geometry;
  const float *data;
  guint8 *rgba;
  gsize n;
  int w, h;

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (frame), NULL);
  g_return_val_if_fail (display != NULL, NULL);
  g_return_val_if_fail (width != NULL && height != NULL, NULL);

  w = braggscope_frame_get_width (frame);
  h = braggscope_frame_get_height (frame);
  data = braggscope_frame_get_data (frame, &n);
  rgba = g_malloc (MAX (n, 1) * 4);
  braggscope_colormap_apply (display, data, n, rgba);

  geometry = braggscope_frame_get_geometry (frame);
  if ((show_rings || show_beam_center) && geometry != NULL &&
      _braggscope_overlay_geometry_init (&geom, geometry, w, h))
    _braggscope_overlay_draw_into_rgba (&geom, show_rings, show_beam_center, display->colormap,
                                        rgba, w, h);
  *width = w;
  *height = h;
  return rgba;
}

/**
 * braggscope_render_auto_window:
 * @frame: a frame
 * @display: (inout): the display whose window to set
 *
 * Sets @display's window (low and high) to the one #BraggscopeView:auto-contrast
 * chooses for @frame: its 1st and 99.5th percentiles
 * (braggscope_auto_contrast()).  With braggscope_render_rgba() a headless
 * program renders a frame exactly as a view with automatic contrast shows it.
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
 * @display: the colormap, scale and window (used as given)
 * @show_rings: whether to draw resolution rings
 * @show_beam_center: whether to mark the beam centre
 * @width: (out): the frame's width
 * @height: (out): the frame's height
 *
 * braggscope_render_rgba() for language bindings.
 *
 * Returns: (transfer full): width * height * 4 bytes of RGBA
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
