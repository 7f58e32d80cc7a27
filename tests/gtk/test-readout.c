/* test-readout.c: BraggscopeReadout shows the view's readout point (pixel,
 * photons, d, 2θ, |q|, h k l, F), follows new frames under a still point,
 * switches between its line and its table, and lets go of its view.  Runs
 * under build-aux/xvfb-test.sh.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-gtk.h"
#include "gtk-test-util.h"
#include "plugin-test-util.h"

#include "formats/nb-models.h"

#define FRAME_WIDTH  64
#define FRAME_HEIGHT 48

static BraggscopeSimulation *
new_simulation (Watch *w)
{
  BraggscopeSimulation *sim = braggscope_simulation_new ();

  g_object_set (sim, "detector-pixels-fast", FRAME_WIDTH, "detector-pixels-slow", FRAME_HEIGHT,
                "pixel-size", 0.5, "distance", 60.0, "cell-a", 30.0, "cell-b", 40.0, "cell-c", 50.0,
                "cell-alpha", 90.0, "cell-beta", 90.0, "cell-gamma", 90.0, "misset-x", 10.0,
                "misset-y", 20.0, "misset-z", 30.0, "n-cells", 5, "default-f", 100.0, "wavelength",
                1.0, "oversample", 1, NULL);
  braggscope_simulation_render (sim);
  watch_init (w, sim);
  watch_wait_full (w, 60);
  return sim;
}

/* The readout agrees with the view's numbers at frame point (@x, @y). */
static void
check_fields (BraggscopeView *view, BraggscopeReadout *readout, double x, double y)
{
  BraggscopePixelInfo info;
  int px, py;
  float value;
  double wx, wy;
  g_autofree char *pixel = NULL, *photons = NULL, *d = NULL, *two_theta = NULL, *q = NULL;
  g_autofree char *hkl = NULL, *f = NULL;

  g_assert_true (braggscope_view_frame_to_widget (view, x, y, &wx, &wy));
  braggscope_view_set_readout_point (view, wx, wy);
  g_assert_true (braggscope_view_get_readout (view, NULL, NULL, &px, &py, &value, &info));
  g_assert_cmpint (px, ==, (int) floor (x));
  g_assert_cmpint (py, ==, (int) floor (y));

  pixel = g_strdup_printf ("%d, %d", px, py);
  photons = g_strdup_printf ("%.4g", (double) value);
  d = g_strdup_printf ("%.3f \u00c5", info.d_spacing);
  two_theta = g_strdup_printf ("%.2f\u00b0", info.two_theta);
  q = g_strdup_printf ("%.3f \u00c5\u207b\u00b9", info.q);
  hkl = g_strdup_printf ("%d %d %d (%.2f %.2f %.2f)", info.nearest_h, info.nearest_k,
                         info.nearest_l, info.h, info.k, info.l);
  /* no structure-factor file: every reflection has the default F */
  g_assert_false (info.from_file);
  f = g_strdup_printf ("%.4g (default F)", info.structure_factor);

  g_assert_cmpstr (braggscope_readout_get_field (readout, "pixel"), ==, pixel);
  g_assert_cmpstr (braggscope_readout_get_field (readout, "photons"), ==, photons);
  g_assert_cmpstr (braggscope_readout_get_field (readout, "d"), ==, d);
  g_assert_cmpstr (braggscope_readout_get_field (readout, "two-theta"), ==, two_theta);
  g_assert_cmpstr (braggscope_readout_get_field (readout, "q"), ==, q);
  g_assert_cmpstr (braggscope_readout_get_field (readout, "hkl"), ==, hkl);
  g_assert_cmpstr (braggscope_readout_get_field (readout, "structure-factor"), ==, f);
  g_assert_null (braggscope_readout_get_field (readout, "no-such-field"));

  /* the line holds every value */
  for (const char *const *v = (const char *const[]){ photons, d, two_theta, q, f, NULL }; *v; v++)
    g_assert_nonnull (strstr (braggscope_readout_get_text (readout), *v));
  g_assert_nonnull (strstr (braggscope_readout_get_text (readout), pixel));
  g_assert_cmpfloat (info.two_theta, >, 0.5);
  g_assert_cmpfloat_with_epsilon (info.q, 4 * G_PI * sin (info.two_theta / 2 * G_PI / 180), 1e-9);
}

static void
test_fields (void)
{
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = new_simulation (&w);
  BraggscopeView *view;
  BraggscopeReadout *readout;
  GtkWidget *window =
      present_view_with_readout (sim, 2 * FRAME_WIDTH, 2 * FRAME_HEIGHT, &view, &readout);
  g_autofree char *before = NULL;
  GtkWidget *label;

  g_assert_true (braggscope_readout_get_view (readout) == view);
  g_assert_null (braggscope_readout_get_text (readout));
  g_assert_null (braggscope_readout_get_field (readout, "d"));
  g_assert_nonnull (braggscope_readout_get_placeholder (readout));

  check_fields (view, readout, 5.5, 7.25);
  check_fields (view, readout, 50.75, 40.5);

  /* A new frame under a still point: the values follow it. */
  before = g_strdup (braggscope_readout_get_text (readout));
  g_object_set (sim, "distance", 80.0, NULL);
  watch_wait_full (&w, 60);
  g_assert_cmpstr (braggscope_readout_get_text (readout), !=, before);
  check_fields (view, readout, 50.75, 40.5);

  /* The line in a status bar, the table in a side panel. */
  label = gtk_widget_get_first_child (GTK_WIDGET (readout));
  g_assert_true (GTK_IS_LABEL (label));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==,
                   braggscope_readout_get_text (readout));
  g_assert_true (gtk_widget_get_visible (label));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (readout), GTK_ORIENTATION_VERTICAL);
  g_assert_false (gtk_widget_get_visible (label));
  g_assert_true (gtk_widget_get_visible (gtk_widget_get_next_sibling (label)));

  /* Off the frame: the placeholder; no view: nothing to read. */
  braggscope_readout_set_placeholder (readout, "nothing here");
  braggscope_view_clear_readout (view);
  g_assert_null (braggscope_readout_get_text (readout));
  g_assert_null (braggscope_readout_get_field (readout, "pixel"));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "nothing here");
  check_fields (view, readout, 5.5, 7.25);
  braggscope_readout_set_view (readout, NULL);
  g_assert_null (braggscope_readout_get_text (readout));
  g_assert_null (braggscope_readout_get_view (readout));

  gtk_window_destroy (GTK_WINDOW (window));
  watch_clear (&w);
}

/* Issue 30: structure factors computed from an atomic model: F with the
 * reflection's resolution and the model's, as the engine computed them. */
static void
test_model (void)
{
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = new_simulation (&w);
  g_autofree char *pdb = g_build_filename (g_getenv ("NB_DATA_DIR"), "1hpv.pdb", NULL);
  g_autofree char *f = NULL;
  GtkWidget *window;
  BraggscopeView *view;
  BraggscopeReadout *readout;
  BraggscopePixelInfo info;
  double wx, wy;

  if (!nb_models_available ())
    {
      g_test_skip ("this build has no models module (gemmi)");
      watch_clear (&w);
      return;
    }
  g_object_set (sim, "structure-factors", pdb, NULL);
  watch_wait_full (&w, 60);
  window = present_view_with_readout (sim, 2 * FRAME_WIDTH, 2 * FRAME_HEIGHT, &view, &readout);

  g_assert_true (braggscope_view_frame_to_widget (view, 50.75, 40.5, &wx, &wy));
  braggscope_view_set_readout_point (view, wx, wy);
  g_assert_true (braggscope_view_get_readout (view, NULL, NULL, NULL, NULL, NULL, &info));
  g_assert_cmpfloat (info.computed_to, >, 0.0);
  g_assert_cmpfloat (info.reflection_d_spacing, >=, info.computed_to);
  f = g_strdup_printf ("%.4g (%.2f \u00c5; model to %.2f \u00c5)", info.structure_factor,
                       info.reflection_d_spacing, info.computed_to);
  g_assert_cmpstr (braggscope_readout_get_field (readout, "structure-factor"), ==, f);
  g_assert_nonnull (strstr (braggscope_readout_get_text (readout), f));

  gtk_window_destroy (GTK_WINDOW (window));
  watch_clear (&w);
}

/* The readout keeps its view alive and lets it go when disposed. */
static void
test_view_reference (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  BraggscopeView *view = g_object_ref_sink (BRAGGSCOPE_VIEW (braggscope_view_new (sim)));
  GtkWidget *readout = g_object_ref_sink (braggscope_readout_new (view));

  g_object_add_weak_pointer (G_OBJECT (view), (gpointer *) &view);
  g_object_unref (view);
  g_assert_nonnull (view);
  g_object_unref (readout);
  g_assert_null (view);
}

int
main (int argc, char **argv)
{
  g_setenv ("NB_BACKEND", "cpu", FALSE);
  gtk_test_init (&argc, &argv, NULL);

  g_test_add_func ("/readout/fields", test_fields);
  g_test_add_func ("/readout/view-reference", test_view_reference);
  g_test_add_func ("/readout/model", test_model);
  return g_test_run ();
}
