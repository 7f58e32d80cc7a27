/* braggscope-headless.c: `braggscope --snapshot FILE.png [flags]`: the
 * window's picture without a window.
 *
 * With a display, an unrealized BraggscopeView renders the frame
 * (braggscope_view_render_rgba), exactly as Ctrl+S in the window.  Without
 * one no GtkWidget can exist (GTK 4 needs a GdkDisplay), so the frame is
 * colour-mapped with libbraggscope and the view's overlay code
 * (plugin/gtk/braggscope-overlay.c, compiled into this program) draws the
 * rings and beam centre with the same style the view uses for its
 * frame-resolution renderings; tests/ui/test-snapshot-cli.c checks that both
 * paths give the same pixels.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-headless.h"

#include <braggscope-gtk.h>
#include <braggscope.h>
#include <cairo.h>
#include <glib/gi18n.h>
#include <gtk/gtk.h>

#include "braggscope-overlay-private.h"

/* The view's automatic contrast window (percentiles of the frame). */
#define AUTO_LOW_PERCENTILE  1.0
#define AUTO_HIGH_PERCENTILE 99.5

typedef struct
{
  BraggscopeDisplay display;
  gboolean auto_contrast;
  gboolean show_rings;
  gboolean show_beam_center;
} Look;

typedef struct
{
  BraggscopeSimulation *sim;
  GMainLoop *loop;
  BraggscopeFrame *frame; /* the full frame of the final parameters */
  GError *error;
} Wait;

static int
enum_from_nick (GType type, const char *nick, int fallback)
{
  g_autoptr (GEnumClass) klass = g_type_class_ref (type);
  GEnumValue *value = g_enum_get_value_by_nick (klass, nick);

  return value != NULL ? value->value : fallback;
}

/* The look of the window: the settings (or the schema's defaults), then the
 * command line's display options. */
static void
look_init (Look *look, const BraggscopeOptions *opts, GSettings *settings)
{
  braggscope_display_init (&look->display);
  look->display.colormap = BRAGGSCOPE_COLORMAP_INVERTED_GREY;
  look->display.scale = BRAGGSCOPE_SCALE_LINEAR;
  look->display.gamma = 2.0;
  look->auto_contrast = TRUE;
  look->show_rings = TRUE;
  look->show_beam_center = TRUE;

  if (settings != NULL)
    {
      g_autofree char *colormap = g_settings_get_string (settings, "colormap");
      g_autofree char *scale = g_settings_get_string (settings, "scale");

      look->display.colormap =
          enum_from_nick (BRAGGSCOPE_TYPE_COLORMAP, colormap, look->display.colormap);
      look->display.scale = enum_from_nick (BRAGGSCOPE_TYPE_SCALE, scale, look->display.scale);
      look->display.gamma = g_settings_get_double (settings, "gamma");
      look->auto_contrast = g_settings_get_boolean (settings, "auto-contrast");
      look->show_rings = g_settings_get_boolean (settings, "show-rings");
      look->show_beam_center = g_settings_get_boolean (settings, "show-beam-center");
    }

  if (opts->colormap != NULL)
    look->display.colormap =
        enum_from_nick (BRAGGSCOPE_TYPE_COLORMAP, opts->colormap, look->display.colormap);
  if (opts->scale != NULL)
    look->display.scale = enum_from_nick (BRAGGSCOPE_TYPE_SCALE, opts->scale, look->display.scale);
  if (opts->gamma > 0.0)
    look->display.gamma = opts->gamma;
  if (opts->show_rings >= 0)
    look->show_rings = opts->show_rings;
  if (opts->show_beam_center >= 0)
    look->show_beam_center = opts->show_beam_center;
}

static void
on_frame_ready (BraggscopeSimulation *sim, BraggscopeFrame *frame, Wait *wait)
{
  if (braggscope_frame_get_is_preview (frame) ||
      braggscope_frame_get_sequence (frame) < braggscope_simulation_get_sequence (sim))
    return;
  g_set_object (&wait->frame, frame);
  g_main_loop_quit (wait->loop);
}

static void
on_error (BraggscopeSimulation *sim, GError *error, Wait *wait)
{
  if (wait->error == NULL)
    wait->error = g_error_copy (error);
  g_main_loop_quit (wait->loop);
}

/* The full frame of @sim's current parameters. */
static BraggscopeFrame *
render_full_frame (BraggscopeSimulation *sim, GError **error)
{
  Wait wait = { sim, g_main_loop_new (NULL, FALSE), NULL, NULL };
  gulong ready = g_signal_connect (sim, "frame-ready", G_CALLBACK (on_frame_ready), &wait);
  gulong failed = g_signal_connect (sim, "error", G_CALLBACK (on_error), &wait);

  braggscope_simulation_render (sim);
  g_main_loop_run (wait.loop);
  g_signal_handler_disconnect (sim, ready);
  g_signal_handler_disconnect (sim, failed);
  g_main_loop_unref (wait.loop);

  if (wait.error != NULL)
    {
      g_propagate_error (error, wait.error);
      g_clear_object (&wait.frame);
      return NULL;
    }
  return wait.frame;
}

/* With a display: the view itself, unrealized. */
static guint8 *
render_with_view (BraggscopeSimulation *sim, const Look *look, int *width, int *height)
{
  GtkWidget *view = g_object_ref_sink (braggscope_view_new (sim));
  guint8 *rgba;

  g_object_set (view, "colormap", look->display.colormap, "scale", look->display.scale, "gamma",
                look->display.gamma, "auto-contrast", look->auto_contrast, "show-rings",
                look->show_rings, "show-beam-center", look->show_beam_center, NULL);
  rgba = braggscope_view_render_rgba (BRAGGSCOPE_VIEW (view), width, height);
  g_object_unref (view);
  return rgba;
}

/* Without a display: the view's steps on the frame (see the file comment). */
static guint8 *
render_without_view (BraggscopeFrame *frame, const Look *look, int *width, int *height)
{
  BraggscopeDisplay display = look->display;
  BraggscopeOverlayGeometry geom;
  BraggscopeOverlayStyle style = { 0 };
  gsize n = 0;
  const float *data = braggscope_frame_get_data (frame, &n);
  int w = braggscope_frame_get_width (frame);
  int h = braggscope_frame_get_height (frame);
  double size = MIN (w, h);
  cairo_surface_t *surface;
  guint8 *rgba = g_malloc (n * 4);
  guint8 *pixels;
  int stride;
  cairo_t *cr;

  if (look->auto_contrast)
    braggscope_auto_contrast (data, n, AUTO_LOW_PERCENTILE, AUTO_HIGH_PERCENTILE, &display.low,
                              &display.high);
  braggscope_colormap_apply (&display, data, n, rgba);
  *width = w;
  *height = h;

  if (!(look->show_rings || look->show_beam_center) ||
      braggscope_frame_get_geometry (frame) == NULL ||
      !_braggscope_overlay_geometry_init (&geom, braggscope_frame_get_geometry (frame), w, h))
    return rgba;

  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      return rgba;
    }
  stride = cairo_image_surface_get_stride (surface);
  pixels = cairo_image_surface_get_data (surface);
  for (int j = 0; j < h; j++)
    {
      guint32 *row = (guint32 *) (pixels + (gsize) j * stride);
      const guint8 *in = rgba + (gsize) j * w * 4;

      for (int i = 0; i < w; i++)
        row[i] =
            0xff000000u | (guint32) in[4 * i] << 16 | (guint32) in[4 * i + 1] << 8 | in[4 * i + 2];
    }
  cairo_surface_mark_dirty (surface);

  /* The view's style for renderings at frame resolution. */
  style.rings = look->show_rings;
  style.beam_center = look->show_beam_center;
  style.scale = 1.0;
  style.line_width = MAX (1.0, size / 512.0);
  style.cross_size = MAX (6.0, size / 40.0);
  style.font_size = MAX (9.0, size / 50.0);
  _braggscope_overlay_color_for (display.colormap, style.color);
  cr = cairo_create (surface);
  _braggscope_overlay_draw (&geom, &style, cr);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  for (int j = 0; j < h; j++)
    {
      const guint32 *row = (const guint32 *) (pixels + (gsize) j * stride);
      guint8 *out = rgba + (gsize) j * w * 4;

      for (int i = 0; i < w; i++)
        {
          out[4 * i] = row[i] >> 16 & 0xff;
          out[4 * i + 1] = row[i] >> 8 & 0xff;
          out[4 * i + 2] = row[i] & 0xff;
          out[4 * i + 3] = 255;
        }
    }
  cairo_surface_destroy (surface);
  return rgba;
}

int
braggscope_headless_snapshot (const BraggscopeOptions *opts, GSettings *settings, GError **error)
{
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (BraggscopeFrame) frame = NULL;
  g_autofree guint8 *rgba = NULL;
  Look look;
  int width = 0, height = 0;

  look_init (&look, opts, settings);

  sim = braggscope_simulation_new_default_scene (error);
  if (sim == NULL)
    return 1;
  if (opts->nb_args[0] != NULL &&
      !braggscope_simulation_set_from_args (sim, (const char *const *) opts->nb_args, error))
    return 2;

  frame = render_full_frame (sim, error);
  if (frame == NULL)
    return 1;

  /* gtk_init_check() fails cleanly when there is no display to open. */
  if (gtk_init_check ())
    rgba = render_with_view (sim, &look, &width, &height);
  else
    rgba = render_without_view (frame, &look, &width, &height);
  if (rgba == NULL)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_FAILED,
                   _ ("%s: the simulation gave no image"), opts->snapshot);
      return 1;
    }

  if (!braggscope_snapshot_save (opts->snapshot, rgba, width, height, sim, error))
    return 1;
  return 0;
}
