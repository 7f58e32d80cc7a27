/* test-view.c: BraggscopeView against the CPU colormap: its frame-resolution
 * rendering, what it shows on screen on the software and OpenGL paths (read
 * back through the window's renderer), zoom, and the readout at the beam centre.
 * Runs under build-aux/xvfb-test.sh.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <math.h>
#include <string.h>

#include <epoxy/gl.h>

#include "braggscope-gtk.h"

/* A small detector, not square (so a transposition shows), with its beam
 * centre off the pixel grid: ADXV puts the beam at fast = Xbeam / pixel,
 * slow = (detector height - Ybeam) / pixel. */
#define FRAME_WIDTH   96
#define FRAME_HEIGHT  64
#define PIXEL_MM      0.5
#define BEAM_X_MM     20.25
#define BEAM_Y_MM     12.1
#define EXPECT_BEAM_X (BEAM_X_MM / PIXEL_MM)
#define EXPECT_BEAM_Y ((FRAME_HEIGHT * PIXEL_MM - BEAM_Y_MM) / PIXEL_MM)

#define TIMEOUT_S 60

static gboolean timed_out;

static gboolean
on_timeout (gpointer data)
{
  timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the main context until @done (a predicate) holds. */
static void
wait_until (gboolean (*done) (gpointer), gpointer data, const char *what)
{
  guint id;

  timed_out = FALSE;
  id = g_timeout_add_seconds (TIMEOUT_S, on_timeout, NULL);
  while (!done (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  if (timed_out)
    g_error ("timed out after %d s waiting for %s", TIMEOUT_S, what);
}

static BraggscopeSimulation *
new_simulation (void)
{
  BraggscopeSimulation *sim = braggscope_simulation_new ();
  g_autoptr (GError) error = NULL;
  const char *args[] = { "-adxv", NULL };

  g_assert_true (braggscope_simulation_set_from_args (sim, args, &error));
  g_assert_no_error (error);
  g_object_set (sim, "detector-pixels-fast", FRAME_WIDTH, "detector-pixels-slow", FRAME_HEIGHT,
                "pixel-size", PIXEL_MM, "distance", 60.0, "beam-center-x", BEAM_X_MM,
                "beam-center-y", BEAM_Y_MM, "cell-a", 30.0, "cell-b", 40.0, "cell-c", 50.0,
                "cell-alpha", 90.0, "cell-beta", 90.0, "cell-gamma", 90.0, "misset-x", 10.0,
                "misset-y", 20.0, "misset-z", 30.0, "n-cells", 5, "default-f", 100.0, "wavelength",
                1.0, "oversample", 1, NULL);
  return sim;
}

static gboolean
full_frame_delivered (gpointer data)
{
  BraggscopeSimulation *sim = data;
  BraggscopeFrame *frame = braggscope_simulation_get_last_frame (sim);

  return frame != NULL && !braggscope_frame_get_is_preview (frame) &&
         braggscope_frame_get_sequence (frame) == braggscope_simulation_get_sequence (sim);
}

static BraggscopeFrame *
render_full_frame (BraggscopeSimulation *sim)
{
  BraggscopeFrame *frame;

  braggscope_simulation_render (sim);
  wait_until (full_frame_delivered, sim, "a full frame");
  frame = braggscope_simulation_get_last_frame (sim);
  g_assert_cmpint (braggscope_frame_get_width (frame), ==, FRAME_WIDTH);
  g_assert_cmpint (braggscope_frame_get_height (frame), ==, FRAME_HEIGHT);
  g_assert_cmpfloat (braggscope_frame_get_max_value (frame), >, 0.0f);
  return frame;
}

static guint8 *
cpu_colormap (BraggscopeView *view, BraggscopeFrame *frame)
{
  BraggscopeDisplay display;
  gsize n;
  const float *data = braggscope_frame_get_data (frame, &n);
  guint8 *rgba = g_malloc (4 * n);

  braggscope_view_get_display (view, &display);
  braggscope_colormap_apply (&display, data, n, rgba);
  return rgba;
}

/* ------------------------------------------------------------------------- */

static void
test_render_rgba (void)
{
  g_autoptr (BraggscopeSimulation) sim = new_simulation ();
  BraggscopeView *view;
  BraggscopeFrame *frame;
  const float *data;
  double low, high, beam_x, beam_y;
  gsize n;

  view = g_object_ref_sink (
      g_object_new (BRAGGSCOPE_TYPE_VIEW, "simulation", sim, "force-software", TRUE, NULL));
  g_assert_cmpstr (braggscope_view_get_renderer (view), ==, "software");
  g_assert_null (braggscope_view_get_frame (view));

  frame = render_full_frame (sim);
  /* The view follows frame-ready. */
  g_assert_true (braggscope_view_get_frame (view) == frame);

  /* Auto-contrast: the 1st and 99.5th percentiles of the frame. */
  data = braggscope_frame_get_data (frame, &n);
  g_assert_cmpuint (n, ==, FRAME_WIDTH * FRAME_HEIGHT);
  braggscope_auto_contrast (data, n, 1.0, 99.5, &low, &high);
  g_assert_true (braggscope_view_get_auto_contrast (view));
  g_assert_cmpfloat (braggscope_view_get_low (view), ==, low);
  g_assert_cmpfloat (braggscope_view_get_high (view), ==, high);
  g_assert_cmpfloat (high, >, low);
  /* and the same window without a view, for headless renderings */
  {
    BraggscopeDisplay display;

    braggscope_display_init (&display);
    braggscope_render_auto_window (frame, &display);
    g_assert_cmpfloat (display.low, ==, low);
    g_assert_cmpfloat (display.high, ==, high);
  }

  /* Without overlays the rendering is the CPU colormap, byte for byte. */
  braggscope_view_set_show_rings (view, FALSE);
  braggscope_view_set_show_beam_center (view, FALSE);
  for (int map = BRAGGSCOPE_COLORMAP_GREY; map <= BRAGGSCOPE_COLORMAP_HEAT; map++)
    for (int scale = BRAGGSCOPE_SCALE_LINEAR; scale <= BRAGGSCOPE_SCALE_GAMMA; scale++)
      {
        g_autofree guint8 *rgba = NULL, *expect = NULL;
        int width, height;

        braggscope_view_set_colormap (view, map);
        braggscope_view_set_scale (view, scale);
        braggscope_view_set_gamma (view, 2.2);
        rgba = braggscope_view_render_rgba (view, &width, &height);
        g_assert_cmpint (width, ==, FRAME_WIDTH);
        g_assert_cmpint (height, ==, FRAME_HEIGHT);
        expect = cpu_colormap (view, frame);
        g_assert_cmpmem (rgba, 4 * n, expect, 4 * n);
      }

  /* A manual window turns auto-contrast off and is used as given. */
  braggscope_view_set_low (view, 0.5 * low);
  g_assert_false (braggscope_view_get_auto_contrast (view));
  braggscope_view_set_high (view, 0.5 * high);
  g_assert_cmpfloat (braggscope_view_get_high (view), ==, 0.5 * high);
  {
    g_autofree guint8 *rgba = NULL, *expect = NULL;
    int width, height;

    rgba = braggscope_view_render_rgba (view, &width, &height);
    expect = cpu_colormap (view, frame);
    g_assert_cmpmem (rgba, 4 * n, expect, 4 * n);
  }

  /* The beam centre found from the geometry is where ADXV puts it. */
  g_assert_true (braggscope_view_get_beam_center (view, &beam_x, &beam_y));
  g_assert_cmpfloat_with_epsilon (beam_x, EXPECT_BEAM_X, 1e-6);
  g_assert_cmpfloat_with_epsilon (beam_y, EXPECT_BEAM_Y, 1e-6);

  /* The cross changes pixels around the beam centre only, along both arms. */
  braggscope_view_set_show_beam_center (view, TRUE);
  {
    g_autofree guint8 *rgba = NULL, *expect = NULL;
    int width, height, changed = 0;

    rgba = braggscope_view_render_rgba (view, &width, &height);
    expect = cpu_colormap (view, frame);
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++)
        {
          gsize i = 4 * ((gsize) y * width + x);
          if (memcmp (rgba + i, expect + i, 4) == 0)
            continue;
          changed++;
          g_assert_cmpfloat (fabs (x + 0.5 - beam_x), <=, 8.0);
          g_assert_cmpfloat (fabs (y + 0.5 - beam_y), <=, 8.0);
        }
    g_assert_cmpint (changed, >, 12);
    for (int d = -4; d <= 4; d += 8)
      {
        gsize horizontal = 4 * ((gsize) floor (beam_y) * width + (int) floor (beam_x) + d);
        gsize vertical = 4 * ((gsize) ((int) floor (beam_y) + d) * width + (int) floor (beam_x));
        g_assert_true (memcmp (rgba + horizontal, expect + horizontal, 4) != 0);
        g_assert_true (memcmp (rgba + vertical, expect + vertical, 4) != 0);
      }
    g_test_message ("beam centre cross: %d pixels", changed);
  }

  /* Rings change a thin set of pixels. */
  braggscope_view_set_show_beam_center (view, FALSE);
  braggscope_view_set_show_rings (view, TRUE);
  {
    g_autofree guint8 *rgba = NULL, *expect = NULL;
    int width, height, changed = 0;

    rgba = braggscope_view_render_rgba (view, &width, &height);
    expect = cpu_colormap (view, frame);
    for (gsize i = 0; i < n; i++)
      changed += memcmp (rgba + 4 * i, expect + 4 * i, 4) != 0;
    g_test_message ("rings: %d of %" G_GSIZE_FORMAT " pixels", changed, n);
    g_assert_cmpint (changed, >, 50);
    g_assert_cmpint (changed, <, (int) n / 3);
  }

  /* The same rendering without a view. */
  braggscope_view_set_show_beam_center (view, TRUE);
  {
    g_autofree guint8 *rgba = NULL, *standalone = NULL;
    BraggscopeDisplay display;
    int width, height, w2, h2;

    rgba = braggscope_view_render_rgba (view, &width, &height);
    braggscope_view_get_display (view, &display);
    standalone = braggscope_render_rgba (frame, &display, TRUE, TRUE, &w2, &h2);
    g_assert_cmpint (w2, ==, width);
    g_assert_cmpint (h2, ==, height);
    g_assert_cmpmem (standalone, 4 * n, rgba, 4 * n);
  }

  g_object_unref (view);
}

/* ------------------------------------------------------------------------- */
/* Views in windows */

typedef struct
{
  GtkWidget *window;
  BraggscopeView *view;
} Shown;

static Shown
show_view (BraggscopeSimulation *sim, gboolean force_software, int width, int height)
{
  Shown shown;

  shown.window = gtk_window_new ();
  gtk_window_set_decorated (GTK_WINDOW (shown.window), FALSE);
  gtk_window_set_resizable (GTK_WINDOW (shown.window), FALSE);
  shown.view = BRAGGSCOPE_VIEW (g_object_new (BRAGGSCOPE_TYPE_VIEW, "simulation", sim,
                                              "force-software", force_software, NULL));
  gtk_widget_set_size_request (GTK_WIDGET (shown.view), width, height);
  gtk_window_set_child (GTK_WINDOW (shown.window), GTK_WIDGET (shown.view));
  gtk_window_set_default_size (GTK_WINDOW (shown.window), width, height);
  gtk_window_present (GTK_WINDOW (shown.window));
  return shown;
}

static gboolean
view_ready (gpointer data)
{
  BraggscopeView *view = data;

  return gtk_widget_get_mapped (GTK_WIDGET (view)) &&
         gtk_widget_get_width (GTK_WIDGET (view)) > 0 && braggscope_view_get_frame (view) != NULL;
}

static void
settle (void)
{
  /* Let pending layout and drawing happen. */
  for (int i = 0; i < 20 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
}

/* RGBA bytes of what @view shows, @width x @height (its size). */
static guint8 *
read_back (BraggscopeView *view, int *width, int *height)
{
  g_autoptr (GdkTexture) texture = NULL;
  guint8 *bgra, *rgba;
  gsize n;

  settle ();
  texture = braggscope_view_snapshot_texture (view);
  g_assert_nonnull (texture);
  *width = gdk_texture_get_width (texture);
  *height = gdk_texture_get_height (texture);
  n = (gsize) *width * *height;
  /* gdk_texture_download() gives native-endian ARGB words. */
  bgra = g_malloc (4 * n);
  gdk_texture_download (texture, bgra, 4 * *width);
  rgba = g_malloc (4 * n);
  for (gsize i = 0; i < n; i++)
    {
      guint32 word;
      memcpy (&word, bgra + 4 * i, 4);
      rgba[4 * i] = word >> 16 & 0xff;
      rgba[4 * i + 1] = word >> 8 & 0xff;
      rgba[4 * i + 2] = word & 0xff;
      rgba[4 * i + 3] = word >> 24 & 0xff;
    }
  g_free (bgra);
  return rgba;
}

static void
configure (BraggscopeView *view,
           BraggscopeColormap map,
           BraggscopeScale scale,
           double low,
           double high,
           gboolean overlays)
{
  braggscope_view_set_colormap (view, map);
  braggscope_view_set_scale (view, scale);
  braggscope_view_set_gamma (view, 2.2);
  braggscope_view_set_low (view, low);
  braggscope_view_set_high (view, high);
  braggscope_view_set_show_rings (view, overlays);
  braggscope_view_set_show_beam_center (view, overlays);
}

/* The colour table index of a colour (VIRIDIS's 256 entries are distinct). */
static int
lut_index (const guint8 *lut, const guint8 *rgb)
{
  for (int i = 0; i < 256; i++)
    if (memcmp (lut + 4 * i, rgb, 3) == 0)
      return i;
  return -1;
}

typedef struct
{
  int differing;   /* pixels not identical */
  int max_channel; /* the largest difference of a channel */
  int max_index;   /* the largest difference of colour table index (-1: not a table colour) */
} Comparison;

static Comparison
compare_images (const guint8 *a, const guint8 *b, gsize n, const guint8 *lut)
{
  Comparison c = { 0, 0, 0 };

  for (gsize i = 0; i < n; i++)
    {
      int ia, ib;

      if (memcmp (a + 4 * i, b + 4 * i, 3) == 0)
        continue;
      c.differing++;
      for (int k = 0; k < 3; k++)
        c.max_channel = MAX (c.max_channel, ABS ((int) a[4 * i + k] - (int) b[4 * i + k]));
      if (lut == NULL)
        continue;
      ia = lut_index (lut, a + 4 * i);
      ib = lut_index (lut, b + 4 * i);
      if (ia < 0 || ib < 0)
        c.max_index = -1;
      else if (c.max_index >= 0)
        c.max_index = MAX (c.max_index, ABS (ia - ib));
    }
  return c;
}

/* Whether an OpenGL (ES) context can be made on this display at all; and
 * its GL_RENDERER. */
static gboolean
gl_available_with (gboolean es, char **reason, char **renderer)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkGLContext) context =
      gdk_display_create_gl_context (gdk_display_get_default (), &error);

  if (context != NULL && es)
    gdk_gl_context_set_allowed_apis (context, GDK_GL_API_GLES);
  if (context == NULL || !gdk_gl_context_realize (context, &error))
    {
      *reason = g_strdup (error != NULL ? error->message : "no GL context");
      return FALSE;
    }
  if (es && gdk_gl_context_get_api (context) != GDK_GL_API_GLES)
    {
      *reason = g_strdup ("the display gives desktop OpenGL only");
      return FALSE;
    }
  if (renderer != NULL)
    {
      gdk_gl_context_make_current (context);
      *renderer = g_strdup ((const char *) glGetString (GL_RENDERER));
      gdk_gl_context_clear_current ();
    }
  return TRUE;
}

static gboolean
gl_available (gboolean es, char **reason)
{
  return gl_available_with (es, reason, NULL);
}

static void
compare_gl_with_software (const char *gl_api)
{
  g_autoptr (BraggscopeSimulation) sim = new_simulation ();
  g_autofree char *reason = NULL;
  BraggscopeFrame *frame;
  Shown gl, sw;
  double low, high;
  guint8 lut[256 * 4];
  gsize n = FRAME_WIDTH * FRAME_HEIGHT;

  if (gl_api != NULL)
    g_setenv ("BRAGGSCOPE_GL", gl_api, TRUE);
  else
    g_unsetenv ("BRAGGSCOPE_GL");
  /* The shader even on a software rasterizer (Xvfb's llvmpipe). */
  g_setenv ("BRAGGSCOPE_RENDERER", "gl", TRUE);

  frame = render_full_frame (sim);
  gl = show_view (sim, FALSE, FRAME_WIDTH, FRAME_HEIGHT);
  sw = show_view (sim, TRUE, FRAME_WIDTH, FRAME_HEIGHT);
  wait_until (view_ready, gl.view, "the OpenGL view on screen");
  wait_until (view_ready, sw.view, "the software view on screen");
  settle ();
  g_unsetenv ("BRAGGSCOPE_GL");
  g_unsetenv ("BRAGGSCOPE_RENDERER");

  g_assert_cmpstr (braggscope_view_get_renderer (sw.view), ==, "software");
  if (g_strcmp0 (braggscope_view_get_renderer (gl.view), "gl") != 0)
    {
      if (gl_available (gl_api != NULL, &reason))
        g_error ("the view fell back to software although OpenGL%s works here",
                 gl_api != NULL ? " ES" : "");
      g_autofree char *message =
          g_strdup_printf ("OpenGL%s is not available: %s", gl_api != NULL ? " ES" : "",
                           reason != NULL ? reason : "the view could not use it");
      g_test_skip (message);
      gtk_window_destroy (GTK_WINDOW (gl.window));
      gtk_window_destroy (GTK_WINDOW (sw.window));
      return;
    }

  /* One frame pixel per screen pixel at zoom 1. */
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (gl.view)), ==, FRAME_WIDTH);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (gl.view)), ==, FRAME_HEIGHT);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (sw.view)), ==, FRAME_WIDTH);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (sw.view)), ==, FRAME_HEIGHT);

  braggscope_auto_contrast (braggscope_frame_get_data (frame, NULL), n, 1.0, 99.5, &low, &high);
  braggscope_colormap_lut (BRAGGSCOPE_COLORMAP_VIRIDIS, lut);

  for (int scale = BRAGGSCOPE_SCALE_LINEAR; scale <= BRAGGSCOPE_SCALE_GAMMA; scale++)
    {
      g_autofree guint8 *expect = NULL, *from_gl = NULL, *from_sw = NULL;
      int width, height;
      Comparison sw_cpu, gl_cpu;

      configure (gl.view, BRAGGSCOPE_COLORMAP_VIRIDIS, scale, low, high, FALSE);
      configure (sw.view, BRAGGSCOPE_COLORMAP_VIRIDIS, scale, low, high, FALSE);
      expect = cpu_colormap (sw.view, frame);

      from_sw = read_back (sw.view, &width, &height);
      g_assert_cmpint (width, ==, FRAME_WIDTH);
      g_assert_cmpint (height, ==, FRAME_HEIGHT);
      from_gl = read_back (gl.view, &width, &height);
      g_assert_cmpint (width, ==, FRAME_WIDTH);
      g_assert_cmpint (height, ==, FRAME_HEIGHT);

      /* The software path shows exactly the CPU colormap; the shader
       * computes in single precision, so a value within rounding of a step
       * may land on the neighbouring entry, and nothing more. */
      sw_cpu = compare_images (from_sw, expect, n, lut);
      gl_cpu = compare_images (from_gl, expect, n, lut);
      g_test_message ("scale %d: software differs from the CPU colormap in %d pixels, "
                      "OpenGL in %d (at most %d table entries apart)",
                      scale, sw_cpu.differing, gl_cpu.differing, gl_cpu.max_index);
      g_assert_cmpint (sw_cpu.differing, ==, 0);
      g_assert_cmpint (gl_cpu.max_index, >=, 0);
      g_assert_cmpint (gl_cpu.max_index, <=, 1);
      g_assert_cmpint (gl_cpu.differing, <=, (int) n / 200);
    }

  /* Overlays are drawn by the same code over both; zoomed and panned, both
   * sample the frame pixel under each screen pixel's centre. */
  {
    g_autofree guint8 *from_gl = NULL, *from_sw = NULL, *expect = NULL;
    int width, height, mismatched = 0;
    Comparison c;

    configure (gl.view, BRAGGSCOPE_COLORMAP_VIRIDIS, BRAGGSCOPE_SCALE_LINEAR, low, high, TRUE);
    configure (sw.view, BRAGGSCOPE_COLORMAP_VIRIDIS, BRAGGSCOPE_SCALE_LINEAR, low, high, TRUE);
    from_sw = read_back (sw.view, &width, &height);
    from_gl = read_back (gl.view, &width, &height);
    c = compare_images (from_gl, from_sw, n, NULL);
    g_test_message ("with overlays: %d pixels differ, by at most %d", c.differing, c.max_channel);
    g_assert_cmpint (c.differing, <=, (int) n / 200);
    g_assert_cmpint (c.max_channel, <=, 8);
    g_free (g_steal_pointer (&from_sw));
    g_free (g_steal_pointer (&from_gl));

    for (int i = 0; i < 2; i++)
      {
        BraggscopeView *view = i == 0 ? gl.view : sw.view;
        braggscope_view_set_show_rings (view, FALSE);
        braggscope_view_set_show_beam_center (view, FALSE);
        braggscope_view_set_zoom (view, 3.0);
        braggscope_view_set_center (view, 30.3, 20.7);
      }
    from_sw = read_back (sw.view, &width, &height);
    from_gl = read_back (gl.view, &width, &height);
    c = compare_images (from_gl, from_sw, n, lut);
    g_test_message ("zoom 3: %d pixels differ, at most %d table entries apart", c.differing,
                    c.max_index);
    g_assert_cmpint (c.differing, <=, (int) n / 200);
    g_assert_cmpint (c.max_index, <=, 1);
    g_assert_cmpint (c.max_index, >=, 0);

    /* ... and the software path shows the frame pixel the view's own
     * coordinate mapping names. */
    expect = cpu_colormap (sw.view, frame);
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++)
        {
          double fx, fy;
          g_assert_true (braggscope_view_widget_to_frame (sw.view, x + 0.5, y + 0.5, &fx, &fy));
          g_assert_true (fx >= 0 && fy >= 0 && fx < FRAME_WIDTH && fy < FRAME_HEIGHT);
          mismatched +=
              memcmp (from_sw + 4 * ((gsize) y * width + x),
                      expect + 4 * ((gsize) floor (fy) * FRAME_WIDTH + (int) floor (fx)), 3) != 0;
        }
    g_assert_cmpint (mismatched, ==, 0);
  }

  /* Zoomed out, a screen pixel shows the brightest of the frame pixels under
   * it (the largest colour table index), on both paths. */
  {
    g_autofree guint8 *from_gl = NULL, *from_sw = NULL, *indices = NULL;
    BraggscopeDisplay display;
    int width, height, mismatched = 0, inside = 0;
    Comparison c;

    for (int i = 0; i < 2; i++)
      {
        BraggscopeView *view = i == 0 ? gl.view : sw.view;
        braggscope_view_fit (view);
        braggscope_view_set_zoom (view, 0.5);
      }
    from_sw = read_back (sw.view, &width, &height);
    from_gl = read_back (gl.view, &width, &height);
    c = compare_images (from_gl, from_sw, n, lut);
    g_test_message ("zoom 0.5: %d pixels differ, at most %d table entries apart", c.differing,
                    c.max_index);
    g_assert_cmpint (c.differing, <=, (int) n / 200);
    g_assert_cmpint (c.max_index, <=, 1);
    g_assert_cmpint (c.max_index, >=, 0);

    braggscope_view_get_display (sw.view, &display);
    indices = g_malloc (n);
    for (gsize i = 0; i < n; i++)
      indices[i] = braggscope_colormap_index (&display, braggscope_frame_get_data (frame, NULL)[i]);
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++)
        {
          double x0, y0, x1, y1, cx, cy;
          int best = 0;
          const guint8 *shown = from_sw + 4 * ((gsize) y * width + x);

          braggscope_view_widget_to_frame (sw.view, x + 0.5, y + 0.5, &cx, &cy);
          if (cx < 0 || cy < 0 || cx >= FRAME_WIDTH || cy >= FRAME_HEIGHT)
            {
              g_assert_cmpuint (shown[0], ==, 32); /* the background */
              continue;
            }
          inside++;
          braggscope_view_widget_to_frame (sw.view, x, y, &x0, &y0);
          braggscope_view_widget_to_frame (sw.view, x + 1, y + 1, &x1, &y1);
          for (int fy = MAX (0, (int) floor (y0)); fy < MIN (FRAME_HEIGHT, (int) ceil (y1)); fy++)
            for (int fx = MAX (0, (int) floor (x0)); fx < MIN (FRAME_WIDTH, (int) ceil (x1)); fx++)
              best = MAX (best, indices[fy * FRAME_WIDTH + fx]);
          mismatched += memcmp (shown, lut + 4 * best, 3) != 0;
        }
    g_assert_cmpint (inside, ==, n / 4);
    g_assert_cmpint (mismatched, ==, 0);
    g_free (g_steal_pointer (&from_sw));
    g_free (g_steal_pointer (&from_gl));

    /* A zoom that puts frame pixel edges anywhere. */
    for (int i = 0; i < 2; i++)
      braggscope_view_set_zoom (i == 0 ? gl.view : sw.view, 0.3);
    from_sw = read_back (sw.view, &width, &height);
    from_gl = read_back (gl.view, &width, &height);
    c = compare_images (from_gl, from_sw, n, lut);
    g_test_message ("zoom 0.3: %d pixels differ", c.differing);
    g_assert_cmpint (c.differing, <=, (int) n / 200);
  }

  gtk_window_destroy (GTK_WINDOW (gl.window));
  gtk_window_destroy (GTK_WINDOW (sw.window));
  settle ();
}

static void
test_gl_matches_software (void)
{
  compare_gl_with_software (NULL);
}

static void
test_gles_matches_software (void)
{
  compare_gl_with_software ("gles");
}

/* On a software rasterizer the view draws on the CPU unless told otherwise. */
static void
test_software_rasterizer (void)
{
  g_autoptr (BraggscopeSimulation) sim = new_simulation ();
  g_autofree char *reason = NULL, *renderer = NULL;
  gboolean software;
  Shown shown;

  if (!gl_available_with (FALSE, &reason, &renderer))
    {
      g_test_skip (reason);
      return;
    }
  software = strstr (renderer, "llvmpipe") != NULL || strstr (renderer, "softpipe") != NULL ||
             strstr (renderer, "swrast") != NULL;
  g_test_message ("GL_RENDERER %s", renderer);

  g_unsetenv ("BRAGGSCOPE_RENDERER");
  render_full_frame (sim);
  shown = show_view (sim, FALSE, FRAME_WIDTH, FRAME_HEIGHT);
  wait_until (view_ready, shown.view, "the view on screen");
  settle ();
  g_assert_cmpstr (braggscope_view_get_renderer (shown.view), ==, software ? "software" : "gl");
  gtk_window_destroy (GTK_WINDOW (shown.window));
  settle ();
}

/* ------------------------------------------------------------------------- */

typedef struct
{
  int emitted;
  gboolean inside;
} ReadoutLog;

static void
on_readout_changed (BraggscopeView *view, gboolean inside, ReadoutLog *log)
{
  log->emitted++;
  log->inside = inside;
}

static void
test_readout (void)
{
  g_autoptr (BraggscopeSimulation) sim = new_simulation ();
  BraggscopePixelInfo info, expect;
  ReadoutLog log = { 0, FALSE };
  BraggscopeFrame *frame;
  double beam_x, beam_y, wx, wy, fx, fy;
  int px, py;
  float value;
  g_autofree char *text = NULL;
  Shown shown;

  frame = render_full_frame (sim);
  shown = show_view (sim, TRUE, 3 * FRAME_WIDTH, 3 * FRAME_HEIGHT);
  g_signal_connect (shown.view, "readout-changed", G_CALLBACK (on_readout_changed), &log);
  wait_until (view_ready, shown.view, "the view on screen");

  /* The pointer on the beam centre: 2 theta 0, d infinite. */
  g_assert_true (braggscope_view_get_beam_center (shown.view, &beam_x, &beam_y));
  g_assert_true (braggscope_view_frame_to_widget (shown.view, beam_x, beam_y, &wx, &wy));
  braggscope_view_set_readout_point (shown.view, wx, wy);
  g_assert_cmpint (log.emitted, ==, 1);
  g_assert_true (log.inside);
  g_assert_true (braggscope_view_get_readout (shown.view, &fx, &fy, &px, &py, &value, &info));
  g_assert_cmpfloat_with_epsilon (fx, EXPECT_BEAM_X, 1e-6);
  g_assert_cmpfloat_with_epsilon (fy, EXPECT_BEAM_Y, 1e-6);
  g_assert_cmpint (px, ==, (int) floor (EXPECT_BEAM_X));
  g_assert_cmpint (py, ==, (int) floor (EXPECT_BEAM_Y));
  g_assert_cmpfloat (value, ==, braggscope_frame_get_data (frame, NULL)[py * FRAME_WIDTH + px]);
  g_assert_cmpfloat (fabs (info.two_theta), <, 1e-6);
  g_assert_true (isinf (info.d_spacing) || info.d_spacing > 1e4);
  g_assert_cmpfloat (fabs (info.q), <, 1e-6);
  text = braggscope_view_format_readout (shown.view);
  g_assert_nonnull (strstr (text, "pixel 40, 39"));

  /* Elsewhere: the frame's value and the geometry's answer at that point. */
  g_assert_true (braggscope_view_frame_to_widget (shown.view, 10.25, 50.75, &wx, &wy));
  braggscope_view_set_readout_point (shown.view, wx, wy);
  g_assert_cmpint (log.emitted, ==, 2);
  g_assert_true (braggscope_view_get_readout (shown.view, &fx, &fy, &px, &py, &value, &info));
  g_assert_cmpint (px, ==, 10);
  g_assert_cmpint (py, ==, 50);
  g_assert_cmpfloat (value, ==, braggscope_frame_get_data (frame, NULL)[50 * FRAME_WIDTH + 10]);
  g_assert_true (
      braggscope_geometry_query (braggscope_frame_get_geometry (frame), fx, fy, &expect, NULL));
  g_assert_cmpfloat (info.two_theta, ==, expect.two_theta);
  g_assert_cmpfloat (info.d_spacing, ==, expect.d_spacing);
  g_assert_cmpfloat (info.h, ==, expect.h);
  g_assert_cmpint (info.nearest_l, ==, expect.nearest_l);
  g_assert_cmpfloat (info.two_theta, >, 1.0);

  /* Zooming about the widget centre keeps the centre's frame point. */
  braggscope_view_widget_to_frame (shown.view, 1.5 * FRAME_WIDTH, 1.5 * FRAME_HEIGHT, &fx, &fy);
  braggscope_view_set_zoom (shown.view, 4.0);
  g_assert_cmpfloat (braggscope_view_get_zoom (shown.view), ==, 4.0);
  braggscope_view_widget_to_frame (shown.view, 1.5 * FRAME_WIDTH, 1.5 * FRAME_HEIGHT, &wx, &wy);
  g_assert_cmpfloat_with_epsilon (wx, fx, 1e-9);
  g_assert_cmpfloat_with_epsilon (wy, fy, 1e-9);
  /* 12 screen pixels per frame pixel now (3 x 4) */
  braggscope_view_widget_to_frame (shown.view, 1.5 * FRAME_WIDTH + 12, 1.5 * FRAME_HEIGHT, &wx,
                                   &wy);
  g_assert_cmpfloat_with_epsilon (wx - fx, 1.0, 1e-9);
  braggscope_view_fit (shown.view);
  g_assert_cmpfloat (braggscope_view_get_zoom (shown.view), ==, 1.0);

  /* Off the frame, and gone. */
  braggscope_view_set_readout_point (shown.view, -5, -5);
  g_assert_false (log.inside);
  g_assert_false (braggscope_view_get_readout (shown.view, NULL, NULL, NULL, NULL, NULL, NULL));
  g_assert_null (braggscope_view_format_readout (shown.view));
  braggscope_view_set_readout_point (shown.view, wx, wy);
  g_assert_true (log.inside);
  braggscope_view_clear_readout (shown.view);
  g_assert_false (log.inside);

  gtk_window_destroy (GTK_WINDOW (shown.window));
  settle ();
}

/* A property change renders a new frame, which the view shows. */
static void
test_follows_simulation (void)
{
  g_autoptr (BraggscopeSimulation) sim = new_simulation ();
  BraggscopeView *view = g_object_ref_sink (BRAGGSCOPE_VIEW (braggscope_view_new (sim)));
  BraggscopeFrame *first, *second;
  g_autofree guint8 *a = NULL, *b = NULL;
  int width, height;

  first = render_full_frame (sim);
  g_assert_true (braggscope_view_get_frame (view) == first);
  braggscope_view_set_auto_contrast (view, FALSE);
  a = braggscope_view_render_rgba (view, &width, &height);

  g_object_set (sim, "misset-x", 25.0, NULL);
  wait_until (full_frame_delivered, sim, "the frame of the new misset");
  second = braggscope_simulation_get_last_frame (sim);
  g_assert_true (second != first);
  g_assert_true (braggscope_view_get_frame (view) == second);
  b = braggscope_view_render_rgba (view, &width, &height);
  g_assert_true (memcmp (a, b, 4 * (gsize) width * height) != 0);

  /* Another simulation, and none. */
  {
    g_autoptr (BraggscopeSimulation) other = new_simulation ();
    braggscope_view_set_simulation (view, other);
    g_assert_true (braggscope_view_get_simulation (view) == other);
    braggscope_view_set_simulation (view, NULL);
    g_assert_null (braggscope_view_get_simulation (view));
  }
  g_object_unref (view);
}

/* Issue 23, item 5: the view's setters, which C hosts call without
 * GObject's range check, clamp as its sliders do and refuse NaN, which no
 * slider gives. */
static void
test_bad_numbers (void)
{
  GtkWidget *view = g_object_ref_sink (braggscope_view_new (NULL));
  BraggscopeView *v = BRAGGSCOPE_VIEW (view);
  double low, high;

  braggscope_view_set_gamma (v, 2.0);
  braggscope_view_set_gamma (v, NAN);
  g_assert_cmpfloat (braggscope_view_get_gamma (v), ==, 2.0);
  braggscope_view_set_gamma (v, INFINITY);
  g_assert_cmpfloat (braggscope_view_get_gamma (v), ==, 20.0);
  braggscope_view_set_gamma (v, -1e300);
  g_assert_cmpfloat (braggscope_view_get_gamma (v), ==, 0.05);

  braggscope_view_set_zoom (v, 2.0);
  braggscope_view_set_zoom (v, NAN);
  g_assert_cmpfloat (braggscope_view_get_zoom (v), ==, 2.0);
  braggscope_view_set_zoom (v, 1e300);
  g_assert_cmpfloat (braggscope_view_get_zoom (v), ==, 256.0);

  braggscope_view_set_low (v, 5.0);
  braggscope_view_set_high (v, 50.0);
  braggscope_view_set_low (v, NAN);
  braggscope_view_set_high (v, NAN);
  g_assert_cmpfloat (braggscope_view_get_low (v), ==, 5.0);
  g_assert_cmpfloat (braggscope_view_get_high (v), ==, 50.0);
  braggscope_view_set_low (v, -INFINITY);
  braggscope_view_set_high (v, INFINITY);
  g_object_get (view, "low", &low, "high", &high, NULL);
  g_assert_cmpfloat (low, ==, -G_MAXDOUBLE);
  g_assert_cmpfloat (high, ==, G_MAXDOUBLE);

  g_object_unref (view);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      g_print ("1..0 # SKIP no display (run under build-aux/xvfb-test.sh)\n");
      return 0;
    }

  g_test_add_func ("/view/render-rgba", test_render_rgba);
  g_test_add_func ("/view/follows-simulation", test_follows_simulation);
  g_test_add_func ("/view/readout", test_readout);
  g_test_add_func ("/view/bad-numbers", test_bad_numbers);
  g_test_add_func ("/view/gl-matches-software", test_gl_matches_software);
  g_test_add_func ("/view/gles-matches-software", test_gles_matches_software);
  g_test_add_func ("/view/software-rasterizer", test_software_rasterizer);

  return g_test_run ();
}
