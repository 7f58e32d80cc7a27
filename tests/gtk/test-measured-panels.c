/* test-measured-panels.c: a measured frame of several detector modules in
 * libbraggscope and the view (issue 29).  A detector of four tilted 40 x 30
 * pixel sensors around the beam (one turned a quarter), placed in its data
 * array in a 2 x 2 grid with gaps, is written by the engine as an NXmx file
 * of four NXdetector_module groups, each pixel (f, s) of panel p counting
 * 1000 p + 7 f + 3 s.  Opened as a measured frame it is adopted as the
 * simulation's four panels (their geometry the file's); laid out for the
 * view, each point of the projection shows the count of the panel pixel
 * whose ray it is on, and the compare view reads that count under the
 * pointer, with the panel and pixel in the readout.  Runs under
 * build-aux/xvfb-test.sh.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-gtk.h"
#include "nb-detector.h"
#include "nb-frame-write.h"
#include "gtk-test-util.h"
#include "plugin-test-util.h"

#define PANELS 4
#define FS     40
#define SS     30

static char *tmpdir;
static char *geom_path;
static char *nxs_path;
static nb_detector_model model;
static gboolean have_nexus;

/* What pixel (@f, @s) of panel @p counts in the written frame. */
static double
count_of (int p, int f, int s)
{
  return 1000.0 * p + 7.0 * f + 3.0 * s;
}

/* The four sensors as CrystFEL geometry: panel p at (p % 2, p / 2) of a
 * 2 x 2 grid around the beam, 10 pixels apart, tilted by 3 to 6 degrees,
 * panel 3 turned a quarter (fs along y, ss along -x); in the data array at
 * (45 (p % 2), 35 (p / 2)), so that the array has gaps the panels do not
 * cover and the panels are not stacked as a frame holds them. */
static void
write_geometry (void)
{
  g_autoptr (GString) s = g_string_new ("; four tilted sensors around the beam\n"
                                        "res = 9090.909\nclen = 0.1 m\nphoton_energy = 9500 eV\n");
  g_autoptr (GError) error = NULL;
  nb_error err = { 0 };

  for (int p = 0; p < PANELS; p++)
    {
      double tilt = (3.0 + p) * (p % 2 == 0 ? -1.0 : 1.0) * G_PI / 180.0;
      char c[G_ASCII_DTOSTR_BUF_SIZE], z[G_ASCII_DTOSTR_BUF_SIZE];
      int x0 = p % 2 == 0 ? -45 : 5, y0 = p / 2 == 0 ? -35 : 5;

      g_ascii_formatd (c, sizeof c, "%.6f", cos (tilt));
      g_ascii_formatd (z, sizeof z, "%+.6f", sin (tilt));
      g_string_append_printf (s, "m%d/min_fs = %d\nm%d/max_fs = %d\n", p, 45 * (p % 2), p,
                              45 * (p % 2) + FS - 1);
      g_string_append_printf (s, "m%d/min_ss = %d\nm%d/max_ss = %d\n", p, 35 * (p / 2), p,
                              35 * (p / 2) + SS - 1);
      if (p == 3)
        g_string_append_printf (s, "m3/fs = %sy %sz\nm3/ss = -x\nm3/corner_x = %d\n", c, z,
                                x0 + SS);
      else
        g_string_append_printf (s, "m%d/fs = %sx %sz\nm%d/ss = y\nm%d/corner_x = %d\n", p, c, z, p,
                                p, x0);
      g_string_append_printf (s, "m%d/corner_y = %d\n", p, y0);
    }
  geom_path = g_build_filename (tmpdir, "four.geom", NULL);
  g_assert_true (g_file_set_contents (geom_path, s->str, -1, &error));
  g_assert_cmpint (nb_detector_model_read (geom_path, &model, &err), ==, NB_OK);
  g_assert_cmpint (model.n_panels, ==, PANELS);
}

/* The NXmx frame of those sensors, with count_of() in every pixel. */
static void
write_frame (void)
{
  g_autofree int32_t *pixels = g_new (int32_t, (gsize) PANELS * FS * SS);
  nb_error err = { 0 };
  gsize k = 0;
  nb_status st;

  for (int p = 0; p < PANELS; p++)
    for (int s = 0; s < model.panels[p].spixels; s++)
      for (int f = 0; f < model.panels[p].fpixels; f++)
        pixels[k++] = (int32_t) count_of (p, f, s);
  nxs_path = g_build_filename (tmpdir, "four.nxs", NULL);
  st = nb_write_nexus_detector (nxs_path, &model, pixels, &err);
  /* a build without libhdf5 writes no NXmx */
  have_nexus = st != NB_ERR_UNSUPPORTED;
  if (have_nexus)
    g_assert_cmpint (st, ==, NB_OK);
}

static gboolean
skip_without_nexus (void)
{
  if (!have_nexus)
    g_test_skip ("this build reads and writes no NeXus files (-Dhdf5)");
  return !have_nexus;
}

/* A simulation with the written frame's geometry adopted, its first full
 * frame in @w. */
static BraggscopeSimulation *
adopted_simulation (BraggscopeMeasuredFrame *measured, Watch *w)
{
  BraggscopeSimulation *sim =
      simulation_from_cmdline ("-cell 30 40 50 90 90 90 -misset 10 20 30 -N 3 -default_F 100 "
                               "-oversample 1 -precision single");
  g_autoptr (GError) error = NULL;

  g_assert_true (braggscope_simulation_adopt_geometry (sim, measured, &error));
  g_assert_no_error (error);
  braggscope_simulation_set_measured_frame (sim, measured);
  watch_init (w, sim);
  braggscope_simulation_render (sim);
  watch_wait_full (w, 120);
  g_assert_cmpuint (w->errors->len, ==, 0);
  return sim;
}

static void
on_fit (GObject *source, GAsyncResult *result, gpointer data)
{
  *(GAsyncResult **) data = g_object_ref (result);
}

/* The frame opens as one of four modules and is adopted as four panels: the
 * detector file is the frame's, the wavelength its beam's, and every panel
 * the one the file places (origin, axes, size, name). */
static void
test_adopt (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeMeasuredFrame) measured =
      braggscope_measured_frame_new_from_file (nxs_path, 0, &error);
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autofree char *detector_file = NULL;
  g_autofree char *report = NULL;
  BraggscopeGeometry *geometry;
  double lambda;
  Watch w;

  if (skip_without_nexus ())
    return;
  g_assert_no_error (error);
  g_assert_null (braggscope_measured_frame_get_detector_problem (measured));
  g_assert_cmpint (braggscope_measured_frame_get_n_panels (measured), ==, PANELS);
  report = braggscope_measured_frame_get_report (measured);
  g_assert_nonnull (strstr (report, "4 NXdetector_module groups, adopted"));

  sim = adopted_simulation (measured, &w);
  g_object_get (sim, "detector-file", &detector_file, "wavelength", &lambda, NULL);
  g_assert_cmpstr (detector_file, ==, nxs_path);
  g_assert_cmpfloat_with_epsilon (lambda, model.wavelength * 1e10, 1e-9);
  geometry = braggscope_frame_get_geometry (watch_last (&w));
  g_assert_cmpint (braggscope_geometry_get_n_panels (geometry), ==, PANELS);
  for (int p = 0; p < PANELS; p++)
    {
      const nb_panel *mp = &model.panels[p];
      BraggscopePanel pn;

      g_assert_true (braggscope_geometry_get_panel (geometry, p, &pn));
      g_assert_cmpstr (braggscope_geometry_get_panel_name (geometry, p), ==, mp->name);
      g_assert_cmpint (pn.width, ==, FS);
      g_assert_cmpint (pn.height, ==, SS);
      g_assert_cmpint (pn.data_origin_x, ==, 45 * (p % 2));
      g_assert_cmpint (pn.data_origin_y, ==, 35 * (p / 2));
      g_assert_cmpfloat_with_epsilon (pn.pixel_size, mp->pixel_size * 1e3, 1e-12);
      for (int k = 0; k < 3; k++)
        {
          g_assert_cmpfloat_with_epsilon (pn.origin[k], mp->pix0[k] * 1e3, 1e-9);
          g_assert_cmpfloat_with_epsilon (pn.fdet[k], mp->fdet[k], 1e-9);
          g_assert_cmpfloat_with_epsilon (pn.sdet[k], mp->sdet[k], 1e-9);
        }
    }
  /* scored over the four panels (a frame of smooth gradients: no peak, so
   * nothing matched and nothing significant), and a fit is not refused for
   * the panels but for the peaks it lacks */
  {
    GAsyncResult *result = NULL;
    int peaks;
    gboolean significant;

    g_object_get (sim, "match-peaks", &peaks, "match-significant", &significant, NULL);
    g_test_message ("peaks %d, significant %d", peaks, significant);
    g_assert_false (significant);
    braggscope_simulation_refine_async (sim, BRAGGSCOPE_FIT_ORIENTATION, NULL, on_fit, &result);
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    g_assert_false (braggscope_simulation_refine_finish (sim, result, &error));
    g_test_message ("%s", error->message);
    g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "peaks"));
    g_object_unref (result);
  }
  watch_clear (&w);
}

/* Every seventh pixel of the laid-out frame is the count of the panel pixel
 * its ray meets (the projection's own answer), NaN where it meets none. */
static void
check_lay_out (const float *layer, BraggscopeGeometry *proj, int width, int height)
{
  int on = 0, off = 0;

  for (int y = 0; y < height; y += 7)
    for (int x = 0; x < width; x += 7)
      {
        BraggscopePixelInfo info;
        float v = layer[(gsize) y * width + x];

        g_assert_true (braggscope_geometry_query (proj, x + 0.5, y + 0.5, &info, NULL));
        if (!info.on_detector)
          {
            g_assert_true (isnan (v));
            off++;
            continue;
          }
        g_assert_cmpfloat (
            v, ==, count_of (info.panel, (int) floor (info.panel_x), (int) floor (info.panel_y)));
        on++;
      }
  g_assert_cmpint (on, >, 50);
  g_assert_cmpint (off, >, 10); /* the gaps between the panels */
}

/* With the pointer over pixel (@f, @s) of panel @p, the overlay's readout
 * names that panel and pixel and the measured layer's value is its count;
 * side by side, the same point of the measured half reads the same. */
static void
check_pointer (BraggscopeView *view, BraggscopeReadout *readout, int p, int f, int s)
{
  BraggscopeGeometry *shown =
      braggscope_frame_get_geometry (braggscope_view_get_shown_frame (view));
  g_autofree char *pixel = g_strdup_printf ("%d, %d", f, s);
  double x, y, wx, wy;

  g_assert_true (braggscope_geometry_panel_to_point (shown, p, f + 0.5, s + 0.5, &x, &y));
  g_assert_true (braggscope_view_frame_to_widget (view, x, y, &wx, &wy));
  braggscope_view_set_readout_point (view, wx, wy);
  g_assert_cmpstr (braggscope_readout_get_field (readout, "panel"), ==, model.panels[p].name);
  g_assert_cmpstr (braggscope_readout_get_field (readout, "pixel"), ==, pixel);
  g_assert_cmpfloat (braggscope_view_get_reference_value (view), ==, count_of (p, f, s));
}

/* The measured frame laid out as the view shows the simulation: value for
 * value against the projection, and under the pointer of the compare view. */
static void
test_compare_view (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeMeasuredFrame) measured =
      braggscope_measured_frame_new_from_file (nxs_path, 0, &error);
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (BraggscopeFrame) projected = NULL;
  g_autoptr (GBytes) layer = NULL;
  GtkWidget *window;
  BraggscopeView *view;
  BraggscopeReadout *readout;
  int width, height;
  Watch w;

  if (skip_without_nexus ())
    return;
  g_assert_no_error (error);
  sim = adopted_simulation (measured, &w);
  projected = braggscope_frame_project (watch_last (&w));
  layer = braggscope_measured_frame_lay_out (measured, watch_last (&w), &width, &height, &error);
  g_assert_no_error (error);
  g_assert_cmpint (width, ==, braggscope_frame_get_width (projected));
  g_assert_cmpint (height, ==, braggscope_frame_get_height (projected));
  check_lay_out (g_bytes_get_data (layer, NULL), braggscope_frame_get_geometry (projected), width,
                 height);

  window = present_view_with_readout (sim, 600, 600, &view, &readout);
  g_clear_pointer (&layer, g_bytes_unref);
  layer = braggscope_measured_frame_lay_out (measured, braggscope_view_get_shown_frame (view),
                                             &width, &height, &error);
  g_assert_no_error (error);
  g_assert_true (braggscope_view_set_reference (view, layer, width, height, "measured", &error));
  braggscope_view_set_compare_mode (view, BRAGGSCOPE_COMPARE_OVERLAY);
  g_assert_null (braggscope_view_get_compare_fallback (view));
  for (int p = 0; p < PANELS; p++)
    {
      check_pointer (view, readout, p, 2, 3);
      check_pointer (view, readout, p, 31, 17);
    }
  gtk_window_destroy (GTK_WINDOW (window));
  watch_clear (&w);
}

/* A geometry whose panels do not lie within the frame's array is refused by
 * name, nothing laid out. */
static void
test_does_not_fit (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *smv = g_build_filename (tmpdir, "small.img", NULL);
  g_autoptr (BraggscopeMeasuredFrame) measured = NULL;
  g_autoptr (BraggscopeMeasuredFrame) small = NULL;
  g_autoptr (BraggscopeSimulation) sim = NULL;
  GBytes *none;
  int width = -1, height = -1;
  Watch w;

  if (skip_without_nexus ())
    return;
  measured = braggscope_measured_frame_new_from_file (nxs_path, 0, &error);
  g_assert_no_error (error);
  sim = adopted_simulation (measured, &w);
  {
    /* a flat 20 x 20 SMV frame of zeros: the panels reach beyond it */
    char header[512];
    g_autofree char *file = g_malloc0 (512 + 800);
    int n = g_snprintf (header, sizeof header,
                        "{\nHEADER_BYTES=512;\nDIM=2;\nBYTE_ORDER=little_endian;\n"
                        "TYPE=unsigned_short;\nSIZE1=20;\nSIZE2=20;\nPIXEL_SIZE=0.1;\n"
                        "DISTANCE=100;\nWAVELENGTH=1;\n}\f");

    memset (file, ' ', 512);
    memcpy (file, header, n);
    g_assert_true (g_file_set_contents (smv, file, 512 + 800, &error));
  }
  small = braggscope_measured_frame_new_from_file (smv, 0, &error);
  g_assert_no_error (error);
  none = braggscope_measured_frame_lay_out (small, watch_last (&w), &width, &height, &error);
  g_assert_null (none);
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "small.img: panel m"));
  watch_clear (&w);
}

int
main (int argc, char **argv)
{
  int status;

  gtk_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("test-measured-panels-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);
  write_geometry ();
  write_frame ();
  g_test_add_func ("/measured-panels/adopt", test_adopt);
  g_test_add_func ("/measured-panels/compare-view", test_compare_view);
  g_test_add_func ("/measured-panels/does-not-fit", test_does_not_fit);
  status = g_test_run ();
  nb_detector_model_clear (&model);
  remove_test_dir (tmpdir);
  g_free (geom_path);
  g_free (nxs_path);
  return status;
}
