/* braggscope-view-gl.c: BraggscopeView's OpenGL path: the frame uploaded once
 * as a float texture and colour-mapped by shaders/colormap.frag in a
 * GtkGLArea, so contrast and colormap changes never re-simulate.  Falls back
 * to the CPU path where OpenGL fails or is a software rasterizer.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-view-private.h"

#include <string.h>

static gboolean
announce_software (gpointer data)
{
  BraggscopeView *self = data;

  self->fell_back (self);
  g_object_notify (G_OBJECT (self), "renderer");
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
upload_image (BraggscopeView *self, const BraggscopeViewScene *scene)
{
  int width = scene->frame_width, height = scene->frame_height;
  const float *data;

  if (!scene->has_frame)
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

gboolean
_braggscope_view_gl_render (BraggscopeView *self, GtkGLArea *area, const BraggscopeViewScene *scene)
{
  const BraggscopeDisplay *d = &self->display;
  double scale = scene->scale, origin_x = scene->origin_x, origin_y = scene->origin_y, range, gamma;
  int factor = gtk_widget_get_scale_factor (GTK_WIDGET (area));
  int device_height = gtk_widget_get_height (GTK_WIDGET (area)) * factor;

  glClearColor (_braggscope_view_background[0] / 255.0f, _braggscope_view_background[1] / 255.0f,
                _braggscope_view_background[2] / 255.0f, 1.0f);
  glClear (GL_COLOR_BUFFER_BIT);

  if (!self->use_gl || self->program == 0 || !scene->placed)
    return TRUE;
  if (self->image_dirty && !upload_image (self, scene))
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
  glUniform4f (self->uniforms.background, _braggscope_view_background[0] / 255.0f,
               _braggscope_view_background[1] / 255.0f, _braggscope_view_background[2] / 255.0f,
               1.0f);

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

GtkWidget *
_braggscope_view_gl_area_new (BraggscopeView *self, void (*fell_back) (BraggscopeView *self))
{
  GtkWidget *area = gtk_gl_area_new ();

  self->fell_back = fell_back;
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
  /* The view handles input; the area only draws. */
  gtk_widget_set_can_target (area, FALSE);
  return area;
}
