/* test-compare.c: BraggscopeView's second layer (a held frame or any float
 * image) shown with the current frame: side by side, blink (and its b key),
 * overlay, difference; the size checks and the fallback of layers of two
 * sizes; the reference's value in the readout.  Runs under
 * build-aux/xvfb-test.sh.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <math.h>
#include <string.h>

#include "braggscope-gtk.h"
#include "plugin-test-util.h"

#define FRAME_WIDTH  96
#define FRAME_HEIGHT 64

/* The top rows of a half where its caption ("A: held") is drawn, widget
 * pixels: 6 from the top, 13 high, padded. */
#define CAPTION_BAND 32

/* The full frame of @sim's parameters now. */
static BraggscopeFrame *
render_full_frame (BraggscopeSimulation *sim)
{
  BraggscopeFrame *frame;
  Watch w;

  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  frame = watch_wait_full (&w, 60);
  watch_clear (&w);
  return frame;
}

static BraggscopeSimulation *
new_simulation (void)
{
  BraggscopeSimulation *sim = braggscope_simulation_new ();

  g_object_set (sim, "detector-pixels-fast", FRAME_WIDTH, "detector-pixels-slow", FRAME_HEIGHT,
                "pixel-size", 0.5, "distance", 60.0, "cell-a", 30.0, "cell-b", 40.0, "cell-c", 50.0,
                "cell-alpha", 90.0, "cell-beta", 90.0, "cell-gamma", 90.0, "misset-x", 10.0,
                "misset-y", 20.0, "misset-z", 30.0, "n-cells", 5, "default-f", 100.0, "wavelength",
                1.0, "oversample", 1, NULL);
  return sim;
}

/* A software view of @sim's frames with no overlays, and its first frame. */
static BraggscopeView *
new_view (BraggscopeSimulation *sim, BraggscopeFrame **frame)
{
  BraggscopeView *view = g_object_ref_sink (
      g_object_new (BRAGGSCOPE_TYPE_VIEW, "simulation", sim, "force-software", TRUE, NULL));

  braggscope_view_set_show_rings (view, FALSE);
  braggscope_view_set_show_beam_center (view, FALSE);
  *frame = render_full_frame (sim);
  g_assert_true (braggscope_view_get_frame (view) == *frame);
  return view;
}

/* @data colour-mapped as the view shows it, with the window @low..@high. */
static guint8 *
colour_map (BraggscopeView *view, const float *data, gsize n, double low, double high)
{
  BraggscopeDisplay display;
  guint8 *rgba = g_malloc (4 * n);

  braggscope_view_get_display (view, &display);
  display.low = low;
  display.high = high;
  braggscope_colormap_apply (&display, data, n, rgba);
  return rgba;
}

static int
count_white (const guint8 *rgba, gsize n)
{
  int white = 0;

  for (gsize i = 0; i < n; i++)
    white += rgba[4 * i] == 255 && rgba[4 * i + 1] == 255 && rgba[4 * i + 2] == 255;
  return white;
}

/* ------------------------------------------------------------------------- */

/* Held while a preview is shown (a drag under way): A becomes that change's
 * full frame when it comes, not the blocky preview. */
static void
hold_on_preview (BraggscopeSimulation *sim, BraggscopeFrame *frame, BraggscopeView *view)
{
  if (!braggscope_frame_get_is_preview (frame) || braggscope_view_get_has_reference (view))
    return;
  g_assert_true (braggscope_view_get_frame (view) == frame);
  braggscope_view_hold_frame (view);
}

static void
test_hold_preview (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (
      "-default_F 100 -cell 100 100 100 90 90 90 -lambda 1 -N 5 -distance 100 -detpixels 256 "
      "-pixel 0.2 -oversample 3 -mosaic 0.5 -mosaic_domains 4 -precision single");
  g_autoptr (BraggscopeView) view = g_object_ref_sink (
      g_object_new (BRAGGSCOPE_TYPE_VIEW, "simulation", sim, "force-software", TRUE, NULL));
  g_autofree guint8 *rgba = NULL;
  BraggscopeFrame *full;
  const gsize n = 256 * 256;
  int width, height;
  guint before;
  Watch w;

  braggscope_view_set_show_rings (view, FALSE);
  braggscope_view_set_show_beam_center (view, FALSE);
  render_full_frame (sim);
  /* connected after the view: the view shows the preview when A is held */
  g_signal_connect (sim, "frame-ready", G_CALLBACK (hold_on_preview), view);
  watch_init (&w, sim);
  before = w.frames->len;
  g_object_set (sim, "misset-z", 7.0, NULL);
  full = watch_wait_full (&w, 60);
  g_assert_cmpuint (w.frames->len, ==, before + 2);
  g_assert_true (braggscope_frame_get_is_preview (g_ptr_array_index (w.frames, before)));
  g_assert_true (braggscope_view_get_has_reference (view));

  /* A is the full frame now: B - A is zero everywhere */
  braggscope_view_set_compare_mode (view, BRAGGSCOPE_COMPARE_DIFFERENCE);
  g_object_set (view, "reference-scale", FALSE, NULL);
  g_assert_true (braggscope_view_get_frame (view) == full);
  rgba = braggscope_view_render_rgba (view, &width, &height);
  g_assert_cmpint (width * height, ==, (int) n);
  g_assert_cmpint (count_white (rgba, n), ==, (int) n);
  g_signal_handlers_disconnect_by_func (sim, hold_on_preview, view);
  watch_clear (&w);
}

static void
test_difference (void)
{
  g_autoptr (BraggscopeSimulation) sim = new_simulation ();
  g_autoptr (BraggscopeView) view = NULL;
  BraggscopeFrame *frame;
  gsize n = FRAME_WIDTH * FRAME_HEIGHT;
  int width, height;

  view = new_view (sim, &frame);
  g_assert_false (braggscope_view_get_has_reference (view));
  braggscope_view_hold_frame (view);
  g_assert_true (braggscope_view_get_has_reference (view));
  g_assert_cmpstr (braggscope_view_get_reference_label (view), ==, "A");
  braggscope_view_set_compare_mode (view, BRAGGSCOPE_COMPARE_DIFFERENCE);

  /* A frame minus itself is zero everywhere: the white middle of the table,
   * with and without the least-squares scale. */
  for (int scaled = 0; scaled < 2; scaled++)
    {
      g_autofree guint8 *rgba = NULL;

      g_object_set (view, "reference-scale", scaled, NULL);
      rgba = braggscope_view_render_rgba (view, &width, &height);
      g_assert_cmpint (width, ==, FRAME_WIDTH);
      g_assert_cmpint (height, ==, FRAME_HEIGHT);
      g_assert_cmpint (count_white (rgba, n), ==, (int) n);
    }

  /* A turned crystal: B - A is red where B has a spot A lacks, blue where A
   * has one; a doubled A scaled by least squares is B again. */
  g_object_set (sim, "misset-y", 22.0, NULL);
  frame = render_full_frame (sim);
  {
    g_autofree guint8 *rgba = NULL;
    int red = 0, blue = 0;

    g_object_set (view, "reference-scale", FALSE, NULL);
    rgba = braggscope_view_render_rgba (view, &width, &height);
    for (gsize i = 0; i < n; i++)
      {
        red += rgba[4 * i] > rgba[4 * i + 2];
        blue += rgba[4 * i + 2] > rgba[4 * i];
      }
    g_test_message ("turned by 2 degrees: %d red, %d blue of %d pixels", red, blue, (int) n);
    g_assert_cmpint (red, >, 10);
    g_assert_cmpint (blue, >, 10);
  }
  {
    const float *data = braggscope_frame_get_data (frame, NULL);
    g_autofree float *doubled = g_new (float, n);
    g_autoptr (GBytes) bytes = NULL;
    g_autoptr (GError) error = NULL;
    g_autofree guint8 *rgba = NULL;

    for (gsize i = 0; i < n; i++)
      doubled[i] = 2.0f * data[i];
    bytes = g_bytes_new (doubled, n * sizeof (float));
    g_assert_true (
        braggscope_view_set_reference (view, bytes, FRAME_WIDTH, FRAME_HEIGHT, "measured", &error));
    g_assert_no_error (error);
    g_object_set (view, "reference-scale", TRUE, NULL);
    rgba = braggscope_view_render_rgba (view, &width, &height);
    g_assert_cmpint (count_white (rgba, n), ==, (int) n);
    /* unscaled, 2B differs from B */
    g_object_set (view, "reference-scale", FALSE, NULL);
    g_free (rgba);
    rgba = braggscope_view_render_rgba (view, &width, &height);
    g_assert_cmpint (count_white (rgba, n), <, (int) n);
  }

  /* without a view */
  {
    BraggscopeDisplay display;
    g_autofree guint8 *rgba = NULL;
    const char *fallback = "unset";

    braggscope_display_init (&display);
    braggscope_render_auto_window (frame, &display);
    rgba = braggscope_render_compare_rgba (
        frame, NULL, &display, braggscope_frame_get_data (frame, NULL), FRAME_WIDTH, FRAME_HEIGHT,
        &display, NULL, BRAGGSCOPE_COMPARE_DIFFERENCE, FALSE, &width, &height, &fallback);
    g_assert_null (fallback);
    g_assert_cmpint (width, ==, FRAME_WIDTH);
    g_assert_cmpint (count_white (rgba, n), ==, (int) n);
  }
}

static void
test_side_by_side (void)
{
  g_autoptr (BraggscopeSimulation) sim = new_simulation ();
  g_autoptr (BraggscopeView) view = NULL;
  g_autofree float *held = NULL;
  BraggscopeFrame *frame;
  gsize n = FRAME_WIDTH * FRAME_HEIGHT;
  double low_a, high_a;
  int width, height;

  view = new_view (sim, &frame);
  held = g_memdup2 (braggscope_frame_get_data (frame, NULL), n * sizeof (float));
  braggscope_view_hold_frame (view);
  braggscope_view_set_compare_mode (view, BRAGGSCOPE_COMPARE_SIDE_BY_SIDE);
  g_object_get (view, "reference-min", &low_a, "reference-max", &high_a, NULL);
  g_assert_cmpfloat (high_a, >, low_a);

  g_object_set (sim, "misset-y", 22.0, NULL);
  frame = render_full_frame (sim);
  {
    g_autofree guint8 *rgba = braggscope_view_render_rgba (view, &width, &height);
    g_autofree guint8 *a = colour_map (view, held, n, low_a, high_a);
    g_autofree guint8 *b =
        colour_map (view, braggscope_frame_get_data (frame, NULL), n,
                    braggscope_view_get_low (view), braggscope_view_get_high (view));

    /* twice as wide: A (held, its own window) on the left, B on the right */
    g_assert_cmpint (width, ==, 2 * FRAME_WIDTH);
    g_assert_cmpint (height, ==, FRAME_HEIGHT);
    for (int y = 0; y < height; y++)
      {
        g_assert_cmpmem (rgba + (gsize) y * width * 4, FRAME_WIDTH * 4,
                         a + (gsize) y * FRAME_WIDTH * 4, FRAME_WIDTH * 4);
        g_assert_cmpmem (rgba + ((gsize) y * width + FRAME_WIDTH) * 4, FRAME_WIDTH * 4,
                         b + (gsize) y * FRAME_WIDTH * 4, FRAME_WIDTH * 4);
      }
    g_assert_cmpint (memcmp (a, b, n * 4), !=, 0);
  }

  /* dropping A shows B alone */
  braggscope_view_clear_reference (view);
  g_assert_false (braggscope_view_get_has_reference (view));
  {
    g_autofree guint8 *rgba = braggscope_view_render_rgba (view, &width, &height);
    g_assert_cmpint (width, ==, FRAME_WIDTH);
  }
}

static gboolean
press_b (BraggscopeView *view)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (view));

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr (GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutTrigger *b = gtk_keyval_trigger_new (GDK_KEY_b, 0);
          gboolean match = gtk_shortcut_trigger_equal (gtk_shortcut_get_trigger (shortcut), b);

          g_object_unref (b);
          if (match)
            return gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0,
                                                 GTK_WIDGET (view), NULL);
        }
    }
  g_error ("the view has no shortcut on the b key");
  return FALSE;
}

static void
test_blink (void)
{
  g_autoptr (BraggscopeSimulation) sim = new_simulation ();
  g_autoptr (BraggscopeView) view = NULL;
  g_autofree guint8 *a = NULL;
  BraggscopeFrame *frame;
  gsize n = FRAME_WIDTH * FRAME_HEIGHT;
  int width, height;

  view = new_view (sim, &frame);
  braggscope_view_hold_frame (view);
  a = braggscope_view_render_rgba (view, &width, &height);
  g_object_set (sim, "misset-y", 22.0, NULL);
  render_full_frame (sim);

  /* b does nothing outside blink mode */
  g_assert_false (press_b (view));
  braggscope_view_set_compare_mode (view, BRAGGSCOPE_COMPARE_BLINK);
  g_assert_false (braggscope_view_get_blink_reference (view));
  for (int press = 0; press < 3; press++)
    {
      g_autofree guint8 *shown = braggscope_view_render_rgba (view, &width, &height);
      gboolean showing_a = press % 2 == 1;

      g_assert_cmpint (width, ==, FRAME_WIDTH);
      g_assert_true (braggscope_view_get_blink_reference (view) == showing_a);
      /* A is the held frame as it looked; B the turned crystal */
      g_assert_true ((memcmp (shown, a, n * 4) == 0) == showing_a);
      g_assert_true (press_b (view));
    }
}

static void
count_notify (GObject *object, GParamSpec *pspec, int *count)
{
  (*count)++;
}

static void
test_sizes (void)
{
  g_autoptr (BraggscopeSimulation) sim = new_simulation ();
  g_autoptr (BraggscopeView) view = NULL;
  g_autoptr (GError) error = NULL;
  BraggscopeFrame *frame;
  float small[50 * 40];
  g_autoptr (GBytes) bytes = NULL;
  int width, height, fallbacks = 0;

  view = new_view (sim, &frame);
  g_signal_connect (view, "notify::compare-fallback", G_CALLBACK (count_notify), &fallbacks);
  for (int i = 0; i < 50 * 40; i++)
    small[i] = i % 7 == 0 ? NAN : (float) (i % 50);
  bytes = g_bytes_new (small, sizeof small);

  /* bytes that are not width x height floats, or no size: refused */
  g_assert_false (braggscope_view_set_reference (view, bytes, 50, 41, NULL, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "50 × 41"));
  g_clear_error (&error);
  g_assert_false (braggscope_view_set_reference (view, bytes, 0, 40, NULL, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (braggscope_view_get_has_reference (view));

  g_assert_true (braggscope_view_set_reference (view, bytes, 50, 40, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (braggscope_view_get_reference_label (view), ==, "reference");
  g_assert_null (braggscope_view_get_compare_fallback (view));

  /* overlay, difference and blink need one size: side by side instead, said */
  for (int mode = BRAGGSCOPE_COMPARE_SIDE_BY_SIDE; mode <= BRAGGSCOPE_COMPARE_DIFFERENCE; mode++)
    {
      g_autofree guint8 *rgba = NULL;

      braggscope_view_set_compare_mode (view, mode);
      g_assert_true ((braggscope_view_get_compare_fallback (view) != NULL) ==
                     (mode != BRAGGSCOPE_COMPARE_SIDE_BY_SIDE));
      rgba = braggscope_view_render_rgba (view, &width, &height);
      g_assert_cmpint (width, ==, 50 + FRAME_WIDTH);
      g_assert_cmpint (height, ==, FRAME_HEIGHT);
      /* below the shorter reference: the background */
      g_assert_cmpuint (rgba[4 * (gsize) (50 * width)], ==, 32);
    }
  g_assert_cmpint (fallbacks, ==, 1);
  braggscope_view_set_compare_mode (view, BRAGGSCOPE_COMPARE_NONE);
  g_assert_null (braggscope_view_get_compare_fallback (view));
  g_assert_cmpint (fallbacks, ==, 2);

  /* the reference's own window: its percentiles of the unmasked values, for counts (whole
   * numbers, as these) above their noise */
  {
    double low, high, expect_low, expect_high;
    gboolean automatic;

    g_object_get (view, "reference-min", &low, "reference-max", &high, "reference-auto-window",
                  &automatic, NULL);
    braggscope_auto_contrast_counts (small, G_N_ELEMENTS (small), 1.0, 99.5, &expect_low,
                                     &expect_high);
    g_assert_true (automatic);
    g_assert_cmpfloat (low, ==, expect_low);
    g_assert_cmpfloat (high, ==, expect_high);
    g_object_set (view, "reference-max", 10.0, NULL);
    g_object_get (view, "reference-auto-window", &automatic, NULL);
    g_assert_false (automatic);
  }
}

static gboolean
view_ready (gpointer data)
{
  BraggscopeView *view = data;

  return gtk_widget_get_mapped (GTK_WIDGET (view)) &&
         gtk_widget_get_width (GTK_WIDGET (view)) > 0 && braggscope_view_get_frame (view) != NULL;
}

static void
test_readout (void)
{
  g_autoptr (BraggscopeSimulation) sim = new_simulation ();
  g_autofree float *held = NULL;
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  BraggscopeView *view = BRAGGSCOPE_VIEW (
      g_object_new (BRAGGSCOPE_TYPE_VIEW, "simulation", sim, "force-software", TRUE, NULL));
  BraggscopeReadout *readout = BRAGGSCOPE_READOUT (braggscope_readout_new (view));
  BraggscopeFrame *frame;
  double wx, wy, fx, fy, value;

  int px, py;
  float current;

  braggscope_view_set_show_rings (view, FALSE);
  braggscope_view_set_show_beam_center (view, FALSE);
  gtk_widget_set_size_request (GTK_WIDGET (view), 2 * FRAME_WIDTH * 2, FRAME_HEIGHT * 2);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (view));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (readout));
  gtk_window_set_child (GTK_WINDOW (window), box);
  gtk_window_present (GTK_WINDOW (window));
  frame = render_full_frame (sim);
  while (!view_ready (view))
    spin (0.01);
  held = g_memdup2 (braggscope_frame_get_data (frame, NULL),
                    FRAME_WIDTH * FRAME_HEIGHT * sizeof (float));
  braggscope_view_hold_frame (view);
  g_object_set (sim, "misset-y", 22.0, NULL);
  frame = render_full_frame (sim);

  /* no comparison shown: still the reference's value at the same pixel */
  g_assert_true (braggscope_view_frame_to_widget (view, 30.5, 20.5, &wx, &wy));
  braggscope_view_set_readout_point (view, wx, wy);
  g_assert_true (braggscope_view_get_readout (view, NULL, NULL, &px, &py, &current, NULL));
  g_assert_cmpint (px, ==, 30);
  g_object_get (readout, "reference-value", &value, NULL);
  g_assert_cmpfloat (value, ==, held[20 * FRAME_WIDTH + 30]);
  g_assert_cmpfloat (braggscope_view_get_reference_value (view), ==, held[20 * FRAME_WIDTH + 30]);
  g_assert_nonnull (strstr (braggscope_readout_get_text (readout), "   A "));
  g_assert_nonnull (braggscope_readout_get_field (readout, "reference"));

  /* side by side: A's panel lies left of the frame, at negative x, and
   * reads the same pixel of both */
  braggscope_view_set_compare_mode (view, BRAGGSCOPE_COMPARE_SIDE_BY_SIDE);
  g_assert_true (braggscope_view_frame_to_widget (view, 30.5 - FRAME_WIDTH, 20.5, &wx, &wy));
  g_assert_true (braggscope_view_widget_to_frame (view, wx, wy, &fx, &fy));
  g_assert_cmpfloat (fx, <, 0.0);
  g_assert_cmpfloat (wx, >=, 0.0);
  braggscope_view_set_readout_point (view, wx, wy);
  g_assert_true (braggscope_view_get_readout (view, NULL, NULL, &px, &py, &current, NULL));
  g_assert_cmpint (px, ==, 30);
  g_assert_cmpint (py, ==, 20);
  g_assert_cmpfloat (current, ==, braggscope_frame_get_data (frame, NULL)[20 * FRAME_WIDTH + 30]);
  g_assert_cmpfloat (braggscope_view_get_reference_value (view), ==, held[20 * FRAME_WIDTH + 30]);

  /* the whole of both fits the widget after the switch, and the screen
   * shows the composed picture, two screen pixels per frame pixel */
  g_assert_true (braggscope_view_widget_to_frame (view, 0.5, 0.5, &fx, &fy));
  g_assert_cmpfloat (fx, <, -FRAME_WIDTH + 1.0);
  {
    g_autoptr (GdkTexture) texture = NULL;
    g_autofree guint8 *composed = NULL;
    g_autofree guint32 *shown = NULL;
    int width, height, w, h, mismatched = 0, inside = 0, captioned[2] = { 0, 0 };
    double picture_left, picture_top;

    for (int i = 0; i < 20 && g_main_context_pending (NULL); i++)
      g_main_context_iteration (NULL, FALSE);
    texture = braggscope_view_snapshot_texture (view);
    g_assert_nonnull (texture);
    w = gdk_texture_get_width (texture);
    h = gdk_texture_get_height (texture);
    shown = g_new (guint32, (gsize) w * h);
    gdk_texture_download (texture, (guint8 *) shown, (gsize) w * 4);
    composed = braggscope_view_render_rgba (view, &width, &height);
    g_assert_cmpint (width, ==, 2 * FRAME_WIDTH);
    g_assert_true (
        braggscope_view_frame_to_widget (view, -FRAME_WIDTH, 0.0, &picture_left, &picture_top));
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        {
          static const guint8 background[3] = { 32, 32, 32 };
          guint32 word = shown[(gsize) y * w + x]; /* native-endian ARGB */
          const guint8 *expect = background;
          gboolean differs, inside_picture = FALSE;
          double cx, cy;

          /* the composed picture's left edge is at frame x = -FRAME_WIDTH */
          braggscope_view_widget_to_frame (view, x + 0.5, y + 0.5, &cx, &cy);
          cx += FRAME_WIDTH;
          if (cx >= 0 && cy >= 0 && cx < width && cy < height)
            {
              expect = composed + 4 * ((gsize) floor (cy) * width + (gsize) floor (cx));
              inside++;
              inside_picture = TRUE;
            }
          differs = (word >> 16 & 0xff) != expect[0] || (word >> 8 & 0xff) != expect[1] ||
                    (word & 0xff) != expect[2];
          /* the captions sit in a band at the top of each half */
          if (inside_picture && y - picture_top < CAPTION_BAND)
            captioned[cx < FRAME_WIDTH] += differs;
          else
            mismatched += differs;
        }
    g_test_message ("side by side on screen: %d x %d, %d pixels on the picture, %d differ below "
                    "the captions, %d and %d in A's and B's caption",
                    w, h, inside, mismatched, captioned[1], captioned[0]);
    g_assert_cmpint (inside, >=, width * height);
    g_assert_cmpint (mismatched, ==, 0);
    g_assert_cmpint (captioned[0], >, 100);
    g_assert_cmpint (captioned[1], >, 100);
  }

  /* without a reference: NaN */
  braggscope_view_clear_reference (view);
  g_object_get (readout, "reference-value", &value, NULL);
  g_assert_true (isnan (value));
  g_assert_true (isnan (braggscope_view_get_reference_value (view)));
  g_assert_null (braggscope_readout_get_field (readout, "reference"));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* ------------------------------------------------------------------------- */
/* Each layer's own overlays */

/* Where the ring at @d (Å) crosses the row through the middle of @frame,
 * right of its beam centre: the frame x (pixels) where d first falls below
 * @d going right from the centre column. */
static double
ring_x (BraggscopeFrame *frame, double d)
{
  BraggscopeGeometry *geometry = braggscope_frame_get_geometry (frame);
  int width = braggscope_frame_get_width (frame), height = braggscope_frame_get_height (frame);
  double previous = INFINITY;

  for (double x = 0.5 * width; x < width; x += 0.05)
    {
      BraggscopePixelInfo info;

      g_assert_true (braggscope_geometry_query (geometry, x, 0.5 * height, &info, NULL));
      if (info.d_spacing <= d && previous > d)
        return x;
      previous = info.d_spacing;
    }
  g_error ("no ring at %g Å on the frame", d);
  return NAN;
}

/* Red (the overlay colour on inverted grey) and not a spot's grey. */
static gboolean
is_red (const guint8 *p)
{
  return p[0] > p[1] + 60 && p[0] > p[2] + 60;
}

/* The red pixels of row @y of @rgba (@width wide) within 2 pixels of
 * column @x. */
static int
red_near (const guint8 *rgba, int width, int y, double x)
{
  int n = 0;

  for (int i = (int) floor (x) - 2; i <= (int) floor (x) + 2; i++)
    if (i >= 0 && i < width)
      n += is_red (rgba + 4 * ((gsize) y * width + i));
  return n;
}

/* A at λ 1.0 and B at λ 1.2 with a ring fixed at 4 Å: the ring lies at
 * another radius on each.  Side by side, blinking, at the frames'
 * resolution and on screen, each layer shows its own ring (and B's never
 * appears over A), and each is captioned. */
static void
test_layer_overlays (void)
{
  g_autoptr (BraggscopeSimulation) sim = new_simulation ();
  GtkWidget *window = gtk_window_new ();
  BraggscopeView *view = BRAGGSCOPE_VIEW (
      g_object_new (BRAGGSCOPE_TYPE_VIEW, "simulation", sim, "force-software", TRUE, NULL));
  g_autoptr (BraggscopeFrame) a = NULL;
  BraggscopeFrame *b;
  const int row = FRAME_HEIGHT / 2;
  double xa, xb;
  int width, height;

  braggscope_view_set_show_beam_center (view, FALSE);
  braggscope_view_set_ring_resolutions (view, "4");
  gtk_widget_set_size_request (GTK_WIDGET (view), 2 * FRAME_WIDTH * 3, FRAME_HEIGHT * 3);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (view));
  gtk_window_present (GTK_WINDOW (window));
  a = g_object_ref (render_full_frame (sim));
  while (!view_ready (view))
    spin (0.01);
  braggscope_view_hold_frame (view);
  g_object_set (sim, "wavelength", 1.2, NULL);
  b = render_full_frame (sim);
  xa = ring_x (a, 4.0);
  xb = ring_x (b, 4.0);
  g_test_message ("the 4 Å ring crosses the middle row at x = %.1f on A, %.1f on B", xa, xb);
  g_assert_cmpfloat (fabs (xa - xb), >, 5.0);

  /* side by side at the frames' resolution: A's ring on A (left), B's on B */
  braggscope_view_set_compare_mode (view, BRAGGSCOPE_COMPARE_SIDE_BY_SIDE);
  {
    g_autofree guint8 *rgba = braggscope_view_render_rgba (view, &width, &height);

    g_assert_cmpint (width, ==, 2 * FRAME_WIDTH);
    g_assert_cmpint (red_near (rgba, width, row, xa), >, 0);
    g_assert_cmpint (red_near (rgba, width, row, xb), ==, 0);
    g_assert_cmpint (red_near (rgba, width, row, FRAME_WIDTH + xb), >, 0);
    g_assert_cmpint (red_near (rgba, width, row, FRAME_WIDTH + xa), ==, 0);
  }
  {
    g_autofree char *left = braggscope_view_get_caption (view, TRUE);
    g_autofree char *right = braggscope_view_get_caption (view, FALSE);

    g_assert_cmpstr (left, ==, "A: held");
    g_assert_cmpstr (right, ==, "B: live");
  }

  /* blinking: the layer shown with its own ring, and only its caption */
  braggscope_view_set_compare_mode (view, BRAGGSCOPE_COMPARE_BLINK);
  for (int showing_a = 0; showing_a < 2; showing_a++)
    {
      g_autofree guint8 *rgba = NULL;
      g_autofree char *caption_a = NULL, *caption_b = NULL;

      braggscope_view_set_blink_reference (view, showing_a);
      rgba = braggscope_view_render_rgba (view, &width, &height);
      g_assert_cmpint (width, ==, FRAME_WIDTH);
      g_assert_cmpint (red_near (rgba, width, row, showing_a ? xa : xb), >, 0);
      g_assert_cmpint (red_near (rgba, width, row, showing_a ? xb : xa), ==, 0);
      caption_a = braggscope_view_get_caption (view, TRUE);
      caption_b = braggscope_view_get_caption (view, FALSE);
      g_assert_cmpstr (showing_a ? caption_a : caption_b, ==, showing_a ? "A: held" : "B: live");
      g_assert_null (showing_a ? caption_b : caption_a);
    }

  /* on screen, "Showing A" draws A's ring where A has it and not B's */
  braggscope_view_set_blink_reference (view, TRUE);
  braggscope_view_fit (view);
  for (int i = 0; i < 20 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
  {
    g_autoptr (GdkTexture) texture = braggscope_view_snapshot_texture (view);
    g_autofree guint32 *shown = NULL;
    double wxa, wxb, wy;
    int w, h, red_a = 0, red_b = 0;

    g_assert_nonnull (texture);
    w = gdk_texture_get_width (texture);
    h = gdk_texture_get_height (texture);
    shown = g_new (guint32, (gsize) w * h);
    gdk_texture_download (texture, (guint8 *) shown, (gsize) w * 4);
    g_assert_true (braggscope_view_frame_to_widget (view, xa, row + 0.5, &wxa, &wy));
    g_assert_true (braggscope_view_frame_to_widget (view, xb, row + 0.5, &wxb, &wy));
    for (int dx = -3; dx <= 3; dx++)
      {
        guint32 pa = shown[(gsize) (int) wy * w + (int) wxa + dx];
        guint32 pb = shown[(gsize) (int) wy * w + (int) wxb + dx];
        guint8 ca[3] = { pa >> 16 & 0xff, pa >> 8 & 0xff, pa & 0xff };
        guint8 cb[3] = { pb >> 16 & 0xff, pb >> 8 & 0xff, pb & 0xff };

        red_a += is_red (ca);
        red_b += is_red (cb);
      }
    g_test_message ("blink showing A on screen: red at A's ring %d, at B's %d", red_a, red_b);
    g_assert_cmpint (red_a, >, 0);
    g_assert_cmpint (red_b, ==, 0);
  }

  /* a layer of floats has no geometry, so no rings, until one is given */
  {
    g_autoptr (GBytes) bytes = g_bytes_new (braggscope_frame_get_data (a, NULL),
                                            FRAME_WIDTH * FRAME_HEIGHT * sizeof (float));
    g_autofree guint8 *bare = NULL, *ringed = NULL;
    g_autofree char *caption = NULL;

    g_assert_true (
        braggscope_view_set_reference (view, bytes, FRAME_WIDTH, FRAME_HEIGHT, "measured", NULL));
    braggscope_view_set_blink_reference (view, TRUE);
    bare = braggscope_view_render_rgba (view, &width, &height);
    g_assert_cmpint (red_near (bare, width, row, xa), ==, 0);
    braggscope_view_set_reference_geometry (view, braggscope_frame_get_geometry (a));
    ringed = braggscope_view_render_rgba (view, &width, &height);
    g_assert_cmpint (red_near (ringed, width, row, xa), >, 0);
    g_assert_cmpint (red_near (ringed, width, row, xb), ==, 0);
    caption = braggscope_view_get_caption (view, TRUE);
    g_assert_cmpstr (caption, ==, "measured");
    braggscope_view_set_reference_caption (view, "measured: frame.cbf");
    g_free (caption);
    caption = braggscope_view_get_caption (view, TRUE);
    g_assert_cmpstr (caption, ==, "measured: frame.cbf");
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Warm: red, orange or yellow; the colours the blend and the difference
 * use for what they mean. */
static gboolean
is_warm (const guint8 *p)
{
  return p[0] > p[2] + 40;
}

static gboolean
is_blue (const guint8 *p)
{
  return p[2] > p[0] + 40;
}

/* Over the overlay (A grey, B orange) and the difference (blue, white,
 * red), the rings take a colour that means neither: where a ring crosses
 * white (nothing in either layer, or no difference), its pixels are neither
 * warm nor, for the difference, blue. */
static void
test_overlay_colours (void)
{
  g_autoptr (BraggscopeSimulation) sim = new_simulation ();
  g_autoptr (BraggscopeView) view = NULL;
  BraggscopeFrame *frame;
  gsize n = FRAME_WIDTH * FRAME_HEIGHT;
  int width, height;

  view = new_view (sim, &frame);
  braggscope_view_hold_frame (view);
  g_object_set (sim, "misset-y", 21.0, NULL);
  render_full_frame (sim);
  for (int mode = BRAGGSCOPE_COMPARE_OVERLAY; mode <= BRAGGSCOPE_COMPARE_DIFFERENCE; mode++)
    {
      g_autofree guint8 *bare = NULL, *ringed = NULL;
      int on_white = 0, clashing = 0;

      braggscope_view_set_compare_mode (view, mode);
      braggscope_view_set_show_rings (view, FALSE);
      bare = braggscope_view_render_rgba (view, &width, &height);
      braggscope_view_set_show_rings (view, TRUE);
      ringed = braggscope_view_render_rgba (view, &width, &height);
      g_assert_cmpint (width * height, ==, (int) n);
      for (gsize i = 0; i < n; i++)
        {
          const guint8 *before = bare + 4 * i, *after = ringed + 4 * i;

          if (memcmp (before, after, 3) == 0 ||
              !(before[0] > 240 && before[1] > 240 && before[2] > 240))
            continue;
          on_white++;
          clashing += is_warm (after) || (mode == BRAGGSCOPE_COMPARE_DIFFERENCE && is_blue (after));
        }
      g_test_message ("mode %d: %d ring pixels over white, %d in the blend's own colours", mode,
                      on_white, clashing);
      g_assert_cmpint (on_white, >, 50);
      g_assert_cmpint (clashing, ==, 0);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      g_print ("1..0 # SKIP no display (run under build-aux/xvfb-test.sh)\n");
      return 0;
    }

  g_test_add_func ("/compare/difference", test_difference);
  g_test_add_func ("/compare/side-by-side", test_side_by_side);
  g_test_add_func ("/compare/blink", test_blink);
  g_test_add_func ("/compare/sizes", test_sizes);
  g_test_add_func ("/compare/readout", test_readout);
  g_test_add_func ("/compare/hold-preview", test_hold_preview);
  g_test_add_func ("/compare/layer-overlays", test_layer_overlays);
  g_test_add_func ("/compare/overlay-colours", test_overlay_colours);

  return g_test_run ();
}
