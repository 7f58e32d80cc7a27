/* test-reciprocal.c: BraggscopeReciprocalView follows the simulation's
 * frames (its drawing changes with the wavelength, the misset and the mosaic
 * spread, and so does its count of diffracting points), and is linked with a
 * detector view both ways.  Runs under build-aux/xvfb-test.sh.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-gtk.h"
#include "plugin-test-util.h"

#define WIDTH  320
#define HEIGHT 240

static BraggscopeSimulation *
new_simulation (Watch *w)
{
  BraggscopeSimulation *sim = braggscope_simulation_new ();

  g_object_set (sim, "detector-pixels-fast", 96, "detector-pixels-slow", 96, "pixel-size", 0.4,
                "distance", 60.0, "cell-a", 30.0, "cell-b", 40.0, "cell-c", 50.0, "cell-alpha",
                90.0, "cell-beta", 90.0, "cell-gamma", 90.0, "misset-x", 10.0, "misset-y", 20.0,
                "misset-z", 30.0, "n-cells", 5, "default-f", 100.0, "wavelength", 1.0, "oversample",
                1, NULL);
  watch_init (w, sim);
  braggscope_simulation_render (sim);
  watch_wait_full (w, 60);
  return sim;
}

/* Pixels (of WIDTH x HEIGHT) where two drawings differ. */
static guint
count_differences (GBytes *a, GBytes *b)
{
  gsize na, nb;
  const guint8 *pa = g_bytes_get_data (a, &na), *pb = g_bytes_get_data (b, &nb);
  guint n = 0;

  g_assert_cmpuint (na, ==, (gsize) WIDTH * HEIGHT * 4);
  g_assert_cmpuint (na, ==, nb);
  for (gsize i = 0; i < na; i += 4)
    n += memcmp (pa + i, pb + i, 4) != 0;
  return n;
}

/* The view's drawing of the frame it follows, after the full frame of the
 * simulation's current parameters. */
static GBytes *
drawing (BraggscopeReciprocalView *view, Watch *w)
{
  BraggscopeFrame *frame = watch_wait_full (w, 60);

  g_assert_true (braggscope_reciprocal_view_get_frame (view) == frame);
  return braggscope_reciprocal_view_render_bytes (view, WIDTH, HEIGHT);
}

static void
test_follows (void)
{
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = new_simulation (&w);
  GtkWidget *view = g_object_ref_sink (braggscope_reciprocal_view_new (sim));
  BraggscopeReciprocalView *rv = BRAGGSCOPE_RECIPROCAL_VIEW (view);
  g_autoptr (GBytes) base = drawing (rv, &w);
  guint base_diffracting = braggscope_reciprocal_view_get_n_diffracting (rv);
  struct
  {
    const char *property;
    double value;
  } changes[] = { { "wavelength", 1.3 }, { "misset-x", 14.0 }, { "mosaic-spread", 2.0 } };

  g_assert_cmpuint (base_diffracting, >, 0);
  g_assert_cmpuint (braggscope_reciprocal_view_get_n_diffracting (rv), <, 100000);
  for (guint i = 0; i < G_N_ELEMENTS (changes); i++)
    {
      GValue old = G_VALUE_INIT;
      g_autoptr (GBytes) changed = NULL;
      g_autoptr (GBytes) back = NULL;
      guint differ, n;

      g_value_init (&old, G_TYPE_DOUBLE);
      g_object_get_property (G_OBJECT (sim), changes[i].property, &old);
      g_object_set (sim, changes[i].property, changes[i].value, NULL);
      changed = drawing (rv, &w);
      differ = count_differences (base, changed);
      n = braggscope_reciprocal_view_get_n_diffracting (rv);
      g_test_message ("%s %g: %u pixels differ, %u points diffract (was %u)", changes[i].property,
                      changes[i].value, differ, n, base_diffracting);
      /* the lattice or the sphere moved: well over a few labels' worth of pixels */
      g_assert_cmpuint (differ, >, WIDTH * HEIGHT / 100);
      /* a wider shell (mosaic spread) or other points on the sphere */
      g_assert_cmpuint (n, !=, base_diffracting);
      if (g_str_equal (changes[i].property, "mosaic-spread"))
        g_assert_cmpuint (n, >, base_diffracting);

      /* and back: the same drawing as before */
      g_object_set_property (G_OBJECT (sim), changes[i].property, &old);
      back = drawing (rv, &w);
      g_assert_cmpuint (count_differences (base, back), ==, 0);
      g_value_unset (&old);
    }
  g_object_unref (view);
  watch_clear (&w);
}

/* Both headless paths give the view's pixels. */
static void
test_headless (void)
{
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = new_simulation (&w);
  GtkWidget *view = g_object_ref_sink (braggscope_reciprocal_view_new (sim));
  g_autoptr (GBytes) from_view = NULL;
  g_autoptr (GBytes) headless = NULL;

  from_view =
      braggscope_reciprocal_view_render_bytes (BRAGGSCOPE_RECIPROCAL_VIEW (view), WIDTH, HEIGHT);
  headless =
      braggscope_render_reciprocal_bytes (watch_last (&w), 25.0, 20.0, 1.0, 0.0, WIDTH, HEIGHT);
  g_assert_nonnull (headless);
  g_assert_cmpuint (count_differences (from_view, headless), ==, 0);
  g_object_unref (view);
  watch_clear (&w);
}

/* Issue 23, item 5: a zoom of 1e300 (a lesson's ReciprocalZoom, a host's
 * call) made cairo_arc() spin for ever.  Every number is clamped to the
 * view's range or, when not finite, refused (the view's properties have
 * GObject's range check, which refuses NaN too). */
static void
test_bad_numbers (void)
{
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = new_simulation (&w);
  BraggscopeFrame *frame = watch_last (&w);
  const double bad[] = { INFINITY, -INFINITY, NAN };
  struct
  {
    double yaw, pitch, zoom, limit;     /* given */
    double yaw2, pitch2, zoom2, limit2; /* the same drawing */
  } clamped[] = {
    { 25, 20, 1e300, 0, 25, 20, 50, 0 },   { 25, 20, -1e300, 0, 25, 20, 0.2, 0 },
    { 25, 20, 1e-300, 0, 25, 20, 0.2, 0 }, { 25, 1e300, 1, 0, 25, 90, 1, 0 },
    { 25, -1e300, 1, 0, 25, -90, 1, 0 },   { 385, 20, 1, 0, 25, 20, 1, 0 },
    { 25, 20, 1, 1e300, 25, 20, 1, 1000 }, { 25, 20, 1, -1e300, 25, 20, 1, 0 },
  };
  GtkWidget *view = g_object_ref_sink (braggscope_reciprocal_view_new (sim));
  gint64 start = g_get_monotonic_time ();

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_null (braggscope_render_reciprocal_bytes (frame, bad[i], 20, 1, 0, WIDTH, HEIGHT));
      g_assert_null (braggscope_render_reciprocal_bytes (frame, 25, bad[i], 1, 0, WIDTH, HEIGHT));
      g_assert_null (braggscope_render_reciprocal_bytes (frame, 25, 20, bad[i], 0, WIDTH, HEIGHT));
      g_assert_null (braggscope_render_reciprocal_bytes (frame, 25, 20, 1, bad[i], WIDTH, HEIGHT));
    }
  for (guint i = 0; i < G_N_ELEMENTS (clamped); i++)
    {
      g_autoptr (GBytes) a =
          braggscope_render_reciprocal_bytes (frame, clamped[i].yaw, clamped[i].pitch,
                                              clamped[i].zoom, clamped[i].limit, WIDTH, HEIGHT);
      g_autoptr (GBytes) b =
          braggscope_render_reciprocal_bytes (frame, clamped[i].yaw2, clamped[i].pitch2,
                                              clamped[i].zoom2, clamped[i].limit2, WIDTH, HEIGHT);

      g_assert_nonnull (a);
      g_assert_cmpuint (count_differences (a, b), ==, 0);
    }
  /* yaw 1e300 is some angle: drawn, and at once */
  {
    g_autoptr (GBytes) a =
        braggscope_render_reciprocal_bytes (frame, 1e300, -1e300, 1e300, 1e300, WIDTH, HEIGHT);
    g_assert_nonnull (a);
  }

  /* the view's own drawing keeps to its range whatever it was given */
  g_object_set (view, "zoom", 50.0, "pitch", 90.0, NULL);
  {
    g_autoptr (GBytes) drawn =
        braggscope_reciprocal_view_render_bytes (BRAGGSCOPE_RECIPROCAL_VIEW (view), WIDTH, HEIGHT);
    g_assert_nonnull (drawn);
  }
  /* all of it in well under the test's time: nothing spun */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 20 * G_USEC_PER_SEC);
  g_object_unref (view);
  watch_clear (&w);
}

static void
wait_mapped (GtkWidget *widget)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (!gtk_widget_get_mapped (widget) || gtk_widget_get_width (widget) == 0)
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("the widget was not on screen within 60 s");
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static void
test_linked (void)
{
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = new_simulation (&w);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *detector = braggscope_view_new (sim);
  GtkWidget *reciprocal = braggscope_reciprocal_view_new (sim);
  BraggscopeView *view = BRAGGSCOPE_VIEW (detector);
  BraggscopeReciprocalView *rv = BRAGGSCOPE_RECIPROCAL_VIEW (reciprocal);
  BraggscopePixelInfo info;
  double wx, wy, mx, my;
  int h, k, l, found = 0, hits = 0;

  gtk_widget_set_size_request (detector, 200, 200);
  gtk_widget_set_size_request (reciprocal, 300, 300);
  gtk_box_append (GTK_BOX (box), detector);
  gtk_box_append (GTK_BOX (box), reciprocal);
  gtk_window_set_child (GTK_WINDOW (window), box);
  gtk_window_present (GTK_WINDOW (window));
  braggscope_reciprocal_view_set_detector_view (rv, view);
  wait_mapped (reciprocal);
  wait_mapped (detector);
  spin (0.1);

  /* detector -> reciprocal: the point under the readout is highlighted */
  g_assert_true (braggscope_view_frame_to_widget (view, 30.5, 60.5, &wx, &wy));
  braggscope_view_set_readout_point (view, wx, wy);
  g_assert_true (braggscope_view_get_readout (view, NULL, NULL, NULL, NULL, NULL, &info));
  g_assert_true (braggscope_reciprocal_view_get_highlight (rv, &h, &k, &l));
  g_assert_cmpint (h, ==, info.nearest_h);
  g_assert_cmpint (k, ==, info.nearest_k);
  g_assert_cmpint (l, ==, info.nearest_l);
  braggscope_view_clear_readout (view);
  g_assert_false (braggscope_reciprocal_view_get_highlight (rv, NULL, NULL, NULL));

  /* reciprocal -> detector: pointing at a lattice point marks its spot, or
   * says that its ray misses; a diffracting point's mark lies on its own
   * indices */
  for (int y = 0; y < 300; y += 3)
    for (int x = 0; x < 300; x += 3)
      {
        const char *message;

        if (!braggscope_reciprocal_view_point_at (rv, x, y))
          continue;
        found++;
        message = braggscope_reciprocal_view_get_message (rv);
        g_assert_nonnull (message);
        g_assert_true (braggscope_reciprocal_view_get_highlight (rv, &h, &k, &l));
        if (!braggscope_view_get_marker (view, &mx, &my))
          {
            g_assert_nonnull (strstr (message, "misses"));
            continue;
          }
        g_assert_nonnull (strstr (message, "meets the detector"));
        if (strstr (message, "(diffracting)") == NULL)
          continue;
        g_assert_true (braggscope_geometry_query (braggscope_frame_get_geometry (watch_last (&w)),
                                                  mx, my, &info, NULL));
        g_assert_cmpint (info.nearest_h, ==, h);
        g_assert_cmpint (info.nearest_k, ==, k);
        g_assert_cmpint (info.nearest_l, ==, l);
        hits++;
      }
  g_test_message ("%d points pointed at, %d diffracting on the detector", found, hits);
  g_assert_cmpint (found, >, 10);
  g_assert_cmpint (hits, >, 0);

  gtk_window_destroy (GTK_WINDOW (window));
  spin (0.05);
  watch_clear (&w);
}

/* The view labels spots of full frames only where a label fits, each with the
 * pixel query's indices at its spot. */
static void
test_view_labels (void)
{
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = new_simulation (&w);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *detector = braggscope_view_new (sim);
  BraggscopeView *view = BRAGGSCOPE_VIEW (detector);
  g_autoptr (GArray) labels = NULL;
  BraggscopeGeometry *geometry = braggscope_frame_get_geometry (watch_last (&w));

  gtk_widget_set_size_request (detector, 400, 400);
  gtk_window_set_child (GTK_WINDOW (window), detector);
  gtk_window_present (GTK_WINDOW (window));
  braggscope_view_set_show_labels (view, TRUE);
  braggscope_view_set_label_count (view, 12);
  braggscope_view_set_ring_resolutions (view, "3, 2.5");
  g_assert_cmpstr (braggscope_view_get_ring_resolutions (view), ==, "3, 2.5");
  wait_mapped (detector);
  spin (0.2);

  labels = braggscope_view_get_labels (view);
  g_assert_nonnull (labels);
  g_assert_cmpuint (labels->len, >, 0);
  g_assert_cmpuint (labels->len, <=, 12);
  for (guint i = 0; i < labels->len; i++)
    {
      const BraggscopeReflection *r = &g_array_index (labels, BraggscopeReflection, i);
      BraggscopePixelInfo info;

      g_assert_true (braggscope_geometry_query (geometry, r->x, r->y, &info, NULL));
      g_assert_cmpint (info.nearest_h, ==, r->h);
      g_assert_cmpint (info.nearest_k, ==, r->k);
      g_assert_cmpint (info.nearest_l, ==, r->l);
    }
  braggscope_view_set_show_labels (view, FALSE);
  g_assert_null (braggscope_view_get_labels (view));
  gtk_window_destroy (GTK_WINDOW (window));
  spin (0.05);
  watch_clear (&w);
}

int
main (int argc, char **argv)
{
  g_setenv ("NB_BACKEND", "cpu", FALSE);
  g_setenv ("LANGUAGE", "C", TRUE);
  gtk_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reciprocal/follows-parameters", test_follows);
  g_test_add_func ("/reciprocal/headless", test_headless);
  g_test_add_func ("/reciprocal/bad-numbers", test_bad_numbers);
  g_test_add_func ("/reciprocal/linked", test_linked);
  g_test_add_func ("/labels/view", test_view_labels);
  return g_test_run ();
}
