/* test-panels.c: multi-panel detectors (-detector, the detector-file
 * property) in libbraggscope and the view: the Jungfrau 16M of
 * tests/data/detectors and a CSPAD-like detector of 64 tilted panels written
 * here.  The frame's panels are the geometry file's (names, sizes, places in
 * the data, vectors, as the engine's reader gives them); the projection
 * seen from the sample places each panel's points where their rays go (the
 * point a panel pixel is drawn at answers with that panel, that pixel and
 * the scattering angle of the panel pixel's own ray); the view shows the
 * projection and its readout names the panel and the panel's pixel under
 * the pointer.  Runs under build-aux/xvfb-test.sh.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-gtk.h"
#include "nb-detector.h"
#include "gtk-test-util.h"
#include "plugin-test-util.h"

#define CSPAD_PANELS 64
#define CSPAD_FS     40
#define CSPAD_SS     30

static char *tmpdir;

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "detectors", name, NULL);
}

/* A CSPAD-like detector: 64 sensors of 40 x 30 pixels of 110 um on an 8 x 8
 * grid 100 mm from the sample, each tilted about its own axis by a few
 * degrees (some towards the sample, some away), every other one turned a
 * quarter in its plane (fs along y, ss along -x), with gaps between them.
 * The data array stacks them slow-wise, as CrystFEL's min_ss place them. */
static char *
write_cspad (void)
{
  g_autoptr (GString) s = g_string_new ("; a CSPAD-like detector: 64 tilted sensors\n"
                                        "res = 9090.909\nclen = 0.1 m\nphoton_energy = 9500 eV\n");
  char *path = g_build_filename (tmpdir, "cspad-like.geom", NULL);
  g_autoptr (GError) error = NULL;

  for (int p = 0; p < CSPAD_PANELS; p++)
    {
      int i = p % 8, j = p / 8;
      double tilt = (2.0 + (p % 5)) * (p % 3 == 0 ? -1.0 : 1.0) * G_PI / 180.0;
      double x0 = (i - 4) * 50.0 + 5.0, y0 = (j - 4) * 50.0 + 5.0;
      char c[G_ASCII_DTOSTR_BUF_SIZE], z[G_ASCII_DTOSTR_BUF_SIZE];

      g_ascii_formatd (c, sizeof c, "%.6f", cos (tilt));
      g_ascii_formatd (z, sizeof z, "%+.6f", sin (tilt));
      g_string_append_printf (s, "p%d/min_fs = 0\np%d/max_fs = %d\np%d/min_ss = %d\n", p, p,
                              CSPAD_FS - 1, p, p * CSPAD_SS);
      g_string_append_printf (s, "p%d/max_ss = %d\n", p, p * CSPAD_SS + CSPAD_SS - 1);
      if ((i + j) % 2 == 0)
        g_string_append_printf (s,
                                "p%d/fs = %sx %sz\np%d/ss = y\np%d/corner_x = %g\n"
                                "p%d/corner_y = %g\n",
                                p, c, z, p, p, x0, p, y0);
      else
        g_string_append_printf (s,
                                "p%d/fs = %sy %sz\np%d/ss = -x\np%d/corner_x = %g\n"
                                "p%d/corner_y = %g\n",
                                p, c, z, p, p, x0 + CSPAD_SS, p, y0);
    }
  g_assert_true (g_file_set_contents (path, s->str, -1, &error));
  return path;
}

/* A simulation of a small crystal on the detector of @geom, its first full
 * frame in @w; @roi ("-roi ...", or "") keeps a large detector quick. */
static BraggscopeSimulation *
panel_simulation (const char *geom, const char *roi, Watch *w)
{
  g_autofree char *quoted = g_shell_quote (geom);
  g_autofree char *cmdline =
      g_strdup_printf ("-detector %s -cell 30 40 50 90 90 90 -misset 10 20 30 -N 3 -default_F 100 "
                       "-lambda 1.3 -oversample 1 -precision single %s",
                       quoted, roi);
  BraggscopeSimulation *sim = simulation_from_cmdline (cmdline);

  watch_init (w, sim);
  braggscope_simulation_render (sim);
  watch_wait_full (w, 170);
  g_assert_cmpuint (w->errors->len, ==, 0);
  return sim;
}

static double
dot (const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The frame's panels are the file's, as the engine reads it. */
static void
check_panels (BraggscopeFrame *frame, const nb_detector_model *model)
{
  BraggscopeGeometry *geometry = braggscope_frame_get_geometry (frame);
  gsize n = 0;
  const float *data = braggscope_frame_get_data (frame, &n);

  g_assert_cmpint (braggscope_geometry_get_n_panels (geometry), ==, model->n_panels);
  g_assert_cmpuint (n, ==, (gsize) nb_detector_model_pixels (model));
  g_assert_false (braggscope_geometry_get_is_projection (geometry));
  for (int p = 0; p < model->n_panels; p++)
    {
      const nb_panel *mp = &model->panels[p];
      BraggscopePanel panel;
      int width = 0, height = 0;

      g_assert_true (braggscope_geometry_get_panel (geometry, p, &panel));
      g_assert_cmpstr (braggscope_geometry_get_panel_name (geometry, p), ==, mp->name);
      g_assert_cmpint (panel.width, ==, mp->fpixels);
      g_assert_cmpint (panel.height, ==, mp->spixels);
      g_assert_cmpuint (panel.offset, ==, nb_detector_model_panel_offset (model, p));
      g_assert_cmpfloat_with_epsilon (panel.pixel_size, mp->pixel_size * 1e3, 1e-12);
      for (int k = 0; k < 3; k++)
        {
          g_assert_cmpfloat_with_epsilon (panel.origin[k], mp->pix0[k] * 1e3, 1e-9);
          g_assert_cmpfloat_with_epsilon (panel.fdet[k], mp->fdet[k], 1e-9);
          g_assert_cmpfloat_with_epsilon (panel.sdet[k], mp->sdet[k], 1e-9);
        }
      g_assert_true (braggscope_frame_get_panel_data (frame, p, &width, &height) ==
                     data + panel.offset);
      g_assert_cmpint (width, ==, mp->fpixels);
      g_assert_cmpint (height, ==, mp->spixels);
      if (panel.row >= 0)
        {
          /* the image's rows hold the panels stacked: a point reads its panel */
          BraggscopePixelInfo info;

          g_assert_true (braggscope_geometry_query (geometry, 3.25, panel.row + 2.5, &info, NULL));
          g_assert_cmpint (info.panel, ==, p);
          g_assert_cmpfloat (info.panel_x, ==, 3.25);
          g_assert_cmpfloat (info.panel_y, ==, 2.5);
        }
    }
  g_assert_false (
      braggscope_geometry_get_panel (geometry, model->n_panels, &(BraggscopePanel){ 0 }));
  g_assert_null (braggscope_frame_get_panel_data (frame, -1, NULL, NULL));
}

/* The projection draws panel @p's point (@f, @s) where that point's ray
 * goes: the projection answers there with the panel, the point, and the
 * scattering angle of the ray from the sample to the panel point as the
 * file places it. */
static void
check_projected_point (
    BraggscopeGeometry *projection, const nb_detector_model *model, int p, double f, double s)
{
  const nb_panel *mp = &model->panels[p];
  BraggscopePixelInfo info;
  g_autoptr (GError) error = NULL;
  double x, y, r[3], two_theta;

  for (int k = 0; k < 3; k++)
    r[k] = mp->pix0[k] + mp->pixel_size * (f * mp->fdet[k] + s * mp->sdet[k]);
  two_theta = acos (dot (r, model->beam) / sqrt (dot (r, r) * dot (model->beam, model->beam)));

  g_assert_true (braggscope_geometry_panel_to_point (projection, p, f, s, &x, &y));
  g_assert_true (braggscope_geometry_query (projection, x, y, &info, &error));
  g_assert_no_error (error);
  g_assert_cmpint (info.panel, ==, p);
  g_assert_true (info.on_detector);
  g_assert_cmpfloat_with_epsilon (info.panel_x, f, 1e-6);
  g_assert_cmpfloat_with_epsilon (info.panel_y, s, 1e-6);
  g_assert_cmpfloat_with_epsilon (info.two_theta, two_theta * 180.0 / G_PI, 1e-7);
}

static void
check_projection (BraggscopeFrame *frame, const nb_detector_model *model)
{
  g_autoptr (BraggscopeFrame) projected = braggscope_frame_project (frame);
  BraggscopeGeometry *projection;
  int width, height, inside = 0;

  g_assert_nonnull (projected);
  projection = braggscope_frame_get_geometry (projected);
  g_assert_true (braggscope_geometry_get_is_projection (projection));
  /* a flat detector keeps the plane, whatever its reach (the CSPAD-like one
   * reaches 71 degrees), its picture as before: the digest compares builds */
  g_assert_cmpint (braggscope_geometry_get_projection (projection), ==,
                   BRAGGSCOPE_PROJECTION_GNOMONIC);
  {
    gsize n = 0;
    const float *data = braggscope_frame_get_data (projected, &n);
    g_autofree char *digest =
        g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, n * sizeof (float));

    g_test_message ("projection %d x %d, data sha256 %s", braggscope_frame_get_width (projected),
                    braggscope_frame_get_height (projected), digest);
  }
  braggscope_geometry_get_size (projection, &width, &height);
  g_assert_cmpint (braggscope_frame_get_width (projected), ==, width);
  g_assert_cmpint (braggscope_frame_get_height (projected), ==, height);
  /* about the detector's own pixel count, not one panel's, nor absurdly many */
  g_assert_cmpfloat ((double) width * height, >, 0.9 * nb_detector_model_pixels (model));
  g_assert_cmpfloat ((double) width * height, <, 24.0 * (1 << 20));
  /* a projection of a projection is itself */
  {
    g_autoptr (BraggscopeFrame) again = braggscope_frame_project (projected);

    g_assert_true (again == projected);
  }

  for (int p = 0; p < model->n_panels; p++)
    {
      const nb_panel *mp = &model->panels[p];

      /* each corner pixel, and a point inside */
      check_projected_point (projection, model, p, 0.5, 0.5);
      check_projected_point (projection, model, p, mp->fpixels - 0.5, 0.5);
      check_projected_point (projection, model, p, 0.5, mp->spixels - 0.5);
      check_projected_point (projection, model, p, mp->fpixels - 0.5, mp->spixels - 0.5);
      check_projected_point (projection, model, p, 0.37 * mp->fpixels, 0.61 * mp->spixels);
    }

  /* between the panels nothing is measured: a point there is on no panel */
  for (int y = 0; y < height; y += 7)
    for (int x = 0; x < width; x += 7)
      {
        BraggscopePixelInfo info;

        g_assert_true (braggscope_geometry_query (projection, x + 0.5, y + 0.5, &info, NULL));
        inside += info.on_detector;
        if (!info.on_detector)
          g_assert_cmpint (info.panel, ==, -1);
      }
  g_assert_cmpint (inside, >, 0);
  g_assert_cmpint (inside, <, ((width + 6) / 7) * ((height + 6) / 7));
}

/* The pointer over panel @p's point (@f, @s) reads that panel and pixel. */
static void
check_readout (
    BraggscopeView *view, BraggscopeReadout *readout, const nb_panel *mp, int p, double f, double s)
{
  BraggscopeGeometry *shown =
      braggscope_frame_get_geometry (braggscope_view_get_shown_frame (view));
  g_autofree char *pixel = g_strdup_printf ("%d, %d", (int) floor (f), (int) floor (s));
  double x, y, wx, wy;

  g_assert_true (braggscope_geometry_panel_to_point (shown, p, f, s, &x, &y));
  g_assert_true (braggscope_view_frame_to_widget (view, x, y, &wx, &wy));
  braggscope_view_set_readout_point (view, wx, wy);
  g_assert_cmpstr (braggscope_readout_get_field (readout, "panel"), ==, mp->name);
  g_assert_cmpstr (braggscope_readout_get_field (readout, "pixel"), ==, pixel);
  g_assert_nonnull (strstr (braggscope_readout_get_text (readout), mp->name));
}

static void
check_view (BraggscopeSimulation *sim, const nb_detector_model *model)
{
  BraggscopeView *view;
  BraggscopeReadout *readout;
  GtkWidget *window = present_view_with_readout (sim, 800, 800, &view, &readout);
  BraggscopeGeometry *shown;
  int width, height;
  double wx, wy;

  /* the view shows the detector as the sample sees it; its frame is the
   * simulation's, as a host compares it */
  g_assert_true (braggscope_view_get_frame (view) == braggscope_simulation_get_last_frame (sim));
  shown = braggscope_frame_get_geometry (braggscope_view_get_shown_frame (view));
  g_assert_true (braggscope_geometry_get_is_projection (shown));
  for (int p = 0; p < model->n_panels; p += 5)
    {
      const nb_panel *mp = &model->panels[p];

      check_readout (view, readout, mp, p, 0.5, 0.5);
      check_readout (view, readout, mp, p, 0.7 * mp->fpixels + 0.5,
                     floor (0.3 * mp->spixels) + 0.5);
    }

  /* a point of no panel reads as between panels: the first such of a row
   * across the middle */
  braggscope_geometry_get_size (shown, &width, &height);
  for (int x = 0; x < width; x++)
    {
      BraggscopePixelInfo info;

      g_assert_true (braggscope_geometry_query (shown, x + 0.5, 0.5 * height, &info, NULL));
      if (info.on_detector)
        continue;
      g_assert_true (braggscope_view_frame_to_widget (view, x + 0.5, 0.5 * height, &wx, &wy));
      braggscope_view_set_readout_point (view, wx, wy);
      g_assert_cmpstr (braggscope_readout_get_field (readout, "panel"), ==, "between panels");
      break;
    }
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
run_detector (const char *geom, const char *roi)
{
  Watch w;
  nb_detector_model model;
  nb_error err = { 0 };
  g_autoptr (BraggscopeSimulation) sim = NULL;
  BraggscopeFrame *frame;

  g_assert_cmpint (nb_detector_model_read (geom, &model, &err), ==, NB_OK);
  sim = panel_simulation (geom, roi, &w);
  frame = watch_last (&w);
  check_panels (frame, &model);
  check_projection (frame, &model);
  check_view (sim, &model);
  watch_clear (&w);
  nb_detector_model_clear (&model);
}

static void
test_jungfrau (void)
{
  g_autofree char *geom = data_path ("jf-swissfel-16M.geom");

  /* 32 modules of 1024 x 512: each renders a corner only, the geometry is whole */
  run_detector (geom, "-roi 0 63 0 63");
}

static void
test_cspad (void)
{
  g_autofree char *geom = write_cspad ();

  run_detector (geom, "");
}

/* A detector of one panel is one panel: the whole image, and no projection. */
static void
test_one_panel (void)
{
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  BraggscopeFrame *frame;
  BraggscopeGeometry *geometry;
  BraggscopePanel panel;
  BraggscopePixelInfo info;
  g_autoptr (BraggscopeFrame) projected = NULL;

  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  watch_wait_full (&w, 60);
  frame = watch_last (&w);
  geometry = braggscope_frame_get_geometry (frame);
  g_assert_cmpint (braggscope_geometry_get_n_panels (geometry), ==, 1);
  g_assert_true (braggscope_geometry_get_panel (geometry, 0, &panel));
  g_assert_cmpint (panel.width, ==, 64);
  g_assert_cmpint (panel.height, ==, 64);
  g_assert_cmpfloat_with_epsilon (panel.pixel_size, 0.4, 1e-12);
  g_assert_cmpstr (braggscope_geometry_get_panel_name (geometry, 0), ==, "");
  g_assert_true (braggscope_frame_get_panel_data (frame, 0, NULL, NULL) ==
                 braggscope_frame_get_data (frame, NULL));
  g_assert_true (braggscope_geometry_query (geometry, 10.5, 20.25, &info, NULL));
  g_assert_cmpint (info.panel, ==, 0);
  g_assert_cmpfloat (info.panel_x, ==, 10.5);
  g_assert_cmpfloat (info.panel_y, ==, 20.25);
  g_assert_true (braggscope_geometry_query (geometry, -3.0, 20.25, &info, NULL));
  g_assert_cmpint (info.panel, ==, -1);
  projected = braggscope_frame_project (frame);
  g_assert_true (projected == frame);
  watch_clear (&w);
}

/* A file that places panels nearly edge-on to the sample (their picture on
 * the plane would be vast) or reaching behind it: the projection stays
 * within its 24 million pixels and the rays it traces, quickly.  (Reaching
 * past 90 degrees, it is an equal-angle picture, on which the panel behind
 * the sample is drawn where the sample sees it; the plane left it out.) */
static void
test_hostile_layout (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "edge-on.geom", NULL);
  const char *text = "res = 10000\nclen = 0.05 m\nphoton_energy = 9500 eV\n"
                     "flat/min_fs = 0\nflat/max_fs = 99\nflat/min_ss = 0\nflat/max_ss = 99\n"
                     "flat/fs = x\nflat/ss = y\nflat/corner_x = -50\nflat/corner_y = -50\n"
                     "edge/min_fs = 0\nedge/max_fs = 99\nedge/min_ss = 100\nedge/max_ss = 199\n"
                     "edge/fs = 0.001x +0.9999995z\nedge/ss = y\nedge/corner_x = 60\n"
                     "edge/corner_y = -50\n"
                     "back/min_fs = 0\nback/max_fs = 99\nback/min_ss = 200\nback/max_ss = 299\n"
                     "back/fs = z\nback/ss = y\nback/corner_x = -200\nback/corner_y = -50\n"
                     "back/coffset = -0.06\n";
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (BraggscopeFrame) projected = NULL;
  gint64 start;
  int width, height;

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  sim = panel_simulation (path, "", &w);
  start = g_get_monotonic_time ();
  projected = braggscope_frame_project (watch_last (&w));
  g_test_message ("projected in %.2f s", (g_get_monotonic_time () - start) / 1e6);
  g_assert_nonnull (projected);
  g_assert_cmpfloat ((g_get_monotonic_time () - start) / 1e6, <, 30.0);
  braggscope_geometry_get_size (braggscope_frame_get_geometry (projected), &width, &height);
  g_test_message ("%d x %d", width, height);
  g_assert_cmpint (braggscope_geometry_get_projection (braggscope_frame_get_geometry (projected)),
                   ==, BRAGGSCOPE_PROJECTION_EQUAL_ANGLE);
  g_assert_cmpfloat ((double) width * height, <=, 1.01 * 24.0 * (1 << 20));
  watch_clear (&w);
}

/* Panel @p's area on the picture of @projection, in picture pixels per
 * panel pixel: the polygon of its edges' points, 16 to an edge. */
static double
projected_area (BraggscopeGeometry *projection, const nb_panel *mp, int p)
{
  double area = 0.0, x0 = 0.0, y0 = 0.0, px = 0.0, py = 0.0;

  for (int e = 0; e < 4; e++)
    for (int i = 0; i < 16; i++)
      {
        double t = i / 16.0, x, y;
        double f[4] = { t * mp->fpixels, mp->fpixels, (1.0 - t) * mp->fpixels, 0.0 };
        double s[4] = { 0.0, t * mp->spixels, mp->spixels, (1.0 - t) * mp->spixels };

        g_assert_true (braggscope_geometry_panel_to_point (projection, p, f[e], s[e], &x, &y));
        if (e == 0 && i == 0)
          x0 = x, y0 = y;
        else
          area += px * y - x * py;
        px = x, py = y;
      }
  area += px * y0 - x0 * py;
  return fabs (area) / 2.0 / ((double) mp->fpixels * mp->spixels);
}

/* Two-theta of panel @mp's centre (degrees). */
static double
centre_two_theta (const nb_detector_model *model, const nb_panel *mp)
{
  double r[3];

  for (int k = 0; k < 3; k++)
    r[k] = mp->pix0[k] +
           0.5 * mp->pixel_size * (mp->fpixels * mp->fdet[k] + mp->spixels * mp->sdet[k]);
  return acos (dot (r, model->beam) / sqrt (dot (r, r) * dot (model->beam, model->beam))) * 180.0 /
         G_PI;
}

/* Every module is on the picture, each panel point where its ray goes and
 * back (check_projected_point), at an even scale: the highest-angle
 * module's area against the lowest-angle one's within a factor 2. */
static void
check_wide_modules (BraggscopeGeometry *projection, const nb_detector_model *model)
{
  int lowest = 0, highest = 0;
  double low_area, high_area;

  for (int p = 0; p < model->n_panels; p++)
    {
      const nb_panel *mp = &model->panels[p];

      check_projected_point (projection, model, p, 0.5, 0.5);
      check_projected_point (projection, model, p, mp->fpixels - 0.5, mp->spixels - 0.5);
      check_projected_point (projection, model, p, 0.5 * mp->fpixels, 0.5 * mp->spixels);
      check_projected_point (projection, model, p, 0.37 * mp->fpixels + 0.2, 0.61 * mp->spixels);
      g_test_message ("%s at %.1f deg: %.3f picture pixels per pixel", mp->name,
                      centre_two_theta (model, mp), projected_area (projection, mp, p));
      if (centre_two_theta (model, mp) < centre_two_theta (model, &model->panels[lowest]))
        lowest = p;
      if (centre_two_theta (model, mp) > centre_two_theta (model, &model->panels[highest]))
        highest = p;
    }
  low_area = projected_area (projection, &model->panels[lowest], lowest);
  high_area = projected_area (projection, &model->panels[highest], highest);
  g_test_message ("highest-angle module %s against lowest %s: area %.2f",
                  model->panels[highest].name, model->panels[lowest].name, high_area / low_area);
  g_assert_cmpfloat (centre_two_theta (model, &model->panels[highest]), >, 90.0);
  g_assert_cmpfloat (high_area / low_area, <, 2.0);
  g_assert_cmpfloat (high_area / low_area, >, 0.5);
}

/* The picture's points that lie on a panel map back to themselves through
 * that panel's pixel: a picture pixel shows the panel pixel it reads. */
static void
check_picture_round_trip (BraggscopeGeometry *projection)
{
  int width, height, on = 0;

  braggscope_geometry_get_size (projection, &width, &height);
  for (int y = 0; y < height; y += 23)
    for (int x = 0; x < width; x += 29)
      {
        BraggscopePixelInfo info;
        double px, py;

        g_assert_true (braggscope_geometry_query (projection, x + 0.5, y + 0.5, &info, NULL));
        if (!info.on_detector)
          continue;
        on++;
        g_assert_true (braggscope_geometry_panel_to_point (projection, info.panel, info.panel_x,
                                                           info.panel_y, &px, &py));
        g_assert_cmpfloat (fabs (px - (x + 0.5)), <, 1e-6);
        g_assert_cmpfloat (fabs (py - (y + 0.5)), <, 1e-6);
      }
  g_assert_cmpint (on, >, 100);
}

/* A ring of constant resolution is a circle about the beam on the picture,
 * at every two-theta the detector reaches (past 90 degrees too), and each of
 * its points answers with that two-theta. */
static void
check_circles (BraggscopeGeometry *projection, const nb_detector_model *model)
{
  double b[3], e1[3], e2[3], cx, cy, any[3] = { 0.0, 0.0, 1.0 };
  const double rings[] = { 10.0, 30.0, 60.0, 80.0, 95.0 };
  double norm = sqrt (dot (model->beam, model->beam));
  int width, height;

  braggscope_geometry_get_size (projection, &width, &height);
  for (int k = 0; k < 3; k++)
    b[k] = model->beam[k] / norm;
  e1[0] = b[1] * any[2] - b[2] * any[1], e1[1] = b[2] * any[0] - b[0] * any[2];
  e1[2] = b[0] * any[1] - b[1] * any[0];
  norm = sqrt (dot (e1, e1));
  for (int k = 0; k < 3; k++)
    e1[k] /= norm;
  e2[0] = b[1] * e1[2] - b[2] * e1[1], e2[1] = b[2] * e1[0] - b[0] * e1[2];
  e2[2] = b[0] * e1[1] - b[1] * e1[0];
  g_assert_true (braggscope_geometry_direction_to_pixel (projection, b[0], b[1], b[2], &cx, &cy));
  for (guint r = 0; r < G_N_ELEMENTS (rings); r++)
    {
      double tt = rings[r] * G_PI / 180.0, least = INFINITY, most = 0.0;

      for (int i = 0; i < 72; i++)
        {
          double psi = 2.0 * G_PI * i / 72.0, dir[3], x, y;
          BraggscopePixelInfo info;

          for (int k = 0; k < 3; k++)
            dir[k] = cos (tt) * b[k] + sin (tt) * (cos (psi) * e1[k] + sin (psi) * e2[k]);
          g_assert_true (
              braggscope_geometry_direction_to_pixel (projection, dir[0], dir[1], dir[2], &x, &y));
          least = MIN (least, hypot (x - cx, y - cy));
          most = MAX (most, hypot (x - cx, y - cy));
          if (x >= 0 && y >= 0 && x <= width && y <= height)
            {
              g_assert_true (braggscope_geometry_query (projection, x, y, &info, NULL));
              g_assert_cmpfloat_with_epsilon (info.two_theta, rings[r], 1e-7);
            }
        }
      g_test_message ("ring at %.0f deg: radius %.2f to %.2f picture pixels", rings[r], least,
                      most);
      g_assert_cmpfloat (most - least, <, 0.5);
    }
}

/* The reflections predicted on @projected lie where it shows them: the
 * picture's point of each answers with the reflection's h k l (9 in 10: the
 * rest sit where the crystal's wide shape transform reads a neighbour), on a
 * panel. */
static void
check_predicted (BraggscopeFrame *projected)
{
  BraggscopeGeometry *projection = braggscope_frame_get_geometry (projected);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) predicted = braggscope_frame_predict_reflections (projected, &error);
  guint same = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (predicted->len, >, 50);
  for (guint i = 0; i < predicted->len; i++)
    {
      const BraggscopeReflection *r = &g_array_index (predicted, BraggscopeReflection, i);
      BraggscopePixelInfo info;

      g_assert_true (braggscope_geometry_query (projection, r->x, r->y, &info, NULL));
      g_assert_true (info.on_detector);
      same +=
          fabs (info.h - r->h) < 0.5 && fabs (info.k - r->k) < 0.5 && fabs (info.l - r->l) < 0.5;
    }
  g_test_message ("%u of %u predicted reflections read their h k l on the picture", same,
                  predicted->len);
  g_assert_cmpuint (same, >=, 0.9 * predicted->len);
}

/* The Pilatus 12M of Diamond's I23: 24 modules on a cylinder of 250 mm
 * round the sample, to about 100 degrees two-theta.  The plane normal to
 * the beam stretches its high modules many-fold and cannot hold those past
 * 90 degrees: it is seen on the equal-angle picture, every module at about
 * one scale, a ring a circle.  (The times of projecting a frame on the
 * main thread are reported: one copy, the first frame's as the next's.) */
static void
test_i23 (void)
{
  g_autofree char *geom = data_path ("dls-i23-pilatus12m.geom");
  nb_detector_model model;
  nb_error err = { 0 };
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (BraggscopeFrame) projected = NULL;
  g_autoptr (BraggscopeFrame) again = NULL;
  BraggscopeGeometry *projection;
  gint64 start;
  double first, second;

  g_assert_cmpint (nb_detector_model_read (geom, &model, &err), ==, NB_OK);
  sim = panel_simulation (geom, "-roi 0 31 0 31", &w);
  start = g_get_monotonic_time ();
  projected = braggscope_frame_project (watch_last (&w));
  first = (g_get_monotonic_time () - start) / 1e6;
  start = g_get_monotonic_time ();
  again = braggscope_frame_project (watch_last (&w));
  second = (g_get_monotonic_time () - start) / 1e6;
  g_test_message ("projecting the first frame on the main thread: %.3f s, again %.3f s", first,
                  second);
  g_assert_nonnull (projected);
  projection = braggscope_frame_get_geometry (projected);
  g_assert_cmpint (braggscope_geometry_get_projection (projection), ==,
                   BRAGGSCOPE_PROJECTION_EQUAL_ANGLE);
  {
    int width, height;

    braggscope_geometry_get_size (projection, &width, &height);
    g_test_message ("picture %d x %d", width, height);
  }
  check_wide_modules (projection, &model);
  check_picture_round_trip (projection);
  check_circles (projection, &model);
  check_predicted (projected);
  watch_clear (&w);
  nb_detector_model_clear (&model);
}

/* The projection's map is made by the worker before the frame comes, not
 * by the thread that shows it: for a detector of many coincident panels
 * (STACKED_PANELS of 128 x 128 pixels at one place, whose map traces every
 * panel's rays over the one picture: seconds) projecting the first frame
 * on this thread costs a copy of the small picture only. */
#define STACKED_PANELS 1000

static void
test_projection_off_main_thread (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "stacked.geom", NULL);
  g_autoptr (GString) text = g_string_new ("res = 10000\nclen = 0.1 m\nphoton_energy = 9500 eV\n");
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (BraggscopeFrame) projected = NULL;
  gint64 start;
  double seconds;

  for (int p = 0; p < STACKED_PANELS; p++)
    g_string_append_printf (text,
                            "p%d/min_fs = 0\np%d/max_fs = 127\np%d/min_ss = %d\np%d/max_ss = %d\n"
                            "p%d/fs = x\np%d/ss = y\np%d/corner_x = -64\np%d/corner_y = -64\n",
                            p, p, p, p * 128, p, p * 128 + 127, p, p, p, p);
  g_assert_true (g_file_set_contents (path, text->str, -1, NULL));
  sim = panel_simulation (path, "-roi 0 1 0 1", &w);
  start = g_get_monotonic_time ();
  projected = braggscope_frame_project (watch_last (&w));
  seconds = (g_get_monotonic_time () - start) / 1e6;
  g_test_message ("projecting the first frame on the main thread: %.4f s", seconds);
  g_assert_nonnull (projected);
  g_assert_cmpint (braggscope_frame_get_width (projected), <=, 130);
  g_assert_cmpfloat (seconds, <, 0.1);
  watch_clear (&w);
}

/* A geometry file that is not one: one line naming the file, no frame. */
static void
test_bad_file (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "broken.geom", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_auto (GValue) value = G_VALUE_INIT;
  g_autofree char *missing = g_build_filename (tmpdir, "no-such.geom", NULL);
  Watch w;

  g_value_init (&value, G_TYPE_STRING);
  g_value_set_string (&value, missing);
  g_assert_false (braggscope_simulation_set_value (sim, "detector-file", &value, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "no-such.geom"));
  g_assert_null (strchr (error->message, '\n'));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (path, "p0/min_fs = 0\np0/max_fs = many\n", -1, NULL));
  watch_init (&w, sim);
  g_value_set_string (&value, path);
  if (braggscope_simulation_set_value (sim, "detector-file", &value, &error))
    {
      /* read by the worker: its error names the file */
      braggscope_simulation_render (sim);
      while (w.errors->len == 0)
        spin (0.01);
      error = g_error_copy (watch_error (&w, 0));
    }
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "broken.geom"));
  g_assert_null (strchr (error->message, '\n'));
  watch_clear (&w);
}

int
main (int argc, char **argv)
{
  int status;

  gtk_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("test-panels-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);
  g_test_add_func ("/panels/one-panel", test_one_panel);
  g_test_add_func ("/panels/bad-file", test_bad_file);
  g_test_add_func ("/panels/cspad-like", test_cspad);
  g_test_add_func ("/panels/hostile-layout", test_hostile_layout);
  g_test_add_func ("/panels/jungfrau-16m", test_jungfrau);
  g_test_add_func ("/panels/i23-equal-angle", test_i23);
  g_test_add_func ("/panels/projection-off-main-thread", test_projection_off_main_thread);
  status = g_test_run ();
  remove_test_dir (tmpdir);
  return status;
}
