/* test-simulation.c: BraggscopeSimulation's parameters, flags and frames; pixel queries. */
#include "plugin-test-util.h"

#include "formats/nb-models.h"

/* Properties read back what was set, in the units of their blurbs, and say
 * the same as the equivalent flag. */
static void
test_properties (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autoptr (BraggscopeSimulation) by_flags = NULL;
  g_auto (GStrv) a = NULL, b = NULL;
  double misset_x, wavelength, distance, pixel, mosaic, twotheta, divergence, bx;
  int domains, n, fast, slow, oversample;
  BraggscopeConvention convention;
  BraggscopePrecision precision;
  BraggscopeShape shape;

  g_object_get (sim, "detector-pixels-fast", &fast, "detector-pixels-slow", &slow, "wavelength",
                &wavelength, "distance", &distance, "pixel-size", &pixel, "convention", &convention,
                "precision", &precision, "n-cells", &n, "oversample", &oversample, NULL);
  /* nanoBragg's defaults on a 512 x 512 detector */
  g_assert_cmpint (fast, ==, 512);
  g_assert_cmpint (slow, ==, 512);
  g_assert_cmpfloat_with_epsilon (wavelength, 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (distance, 100.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (pixel, 0.1, 1e-12);
  g_assert_cmpint (convention, ==, BRAGGSCOPE_CONVENTION_MOSFLM);
  g_assert_cmpint (precision, ==, BRAGGSCOPE_PRECISION_DOUBLE);
  g_assert_cmpint (n, ==, 1);
  g_assert_cmpint (oversample, ==, 0);

  g_object_set (sim, "misset-x", 12.5, "wavelength", 1.54, "distance", 150.0, "pixel-size", 0.172,
                "mosaic-spread", 0.3, "mosaic-domains", 7, "n-cells", 9, "two-theta", 5.0,
                "divergence", 0.4, "beam-center-x", 40.0, "convention", BRAGGSCOPE_CONVENTION_XDS,
                "precision", BRAGGSCOPE_PRECISION_SINGLE, "crystal-shape", BRAGGSCOPE_SHAPE_GAUSS,
                "cell-a", 63.4, "cell-b", 63.4, "cell-c", 83.8, "cell-alpha", 90.0, "cell-beta",
                90.0, "cell-gamma", 120.0, "oversample", 2, NULL);
  g_object_get (sim, "misset-x", &misset_x, "wavelength", &wavelength, "distance", &distance,
                "pixel-size", &pixel, "mosaic-spread", &mosaic, "mosaic-domains", &domains,
                "n-cells", &n, "two-theta", &twotheta, "divergence", &divergence, "beam-center-x",
                &bx, "convention", &convention, "precision", &precision, "crystal-shape", &shape,
                "oversample", &oversample, NULL);
  g_assert_cmpfloat_with_epsilon (misset_x, 12.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (wavelength, 1.54, 1e-12);
  g_assert_cmpfloat_with_epsilon (distance, 150.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (pixel, 0.172, 1e-12);
  g_assert_cmpfloat_with_epsilon (mosaic, 0.3, 1e-12);
  g_assert_cmpint (domains, ==, 7);
  g_assert_cmpint (n, ==, 9);
  g_assert_cmpfloat_with_epsilon (twotheta, 5.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (divergence, 0.4, 1e-12);
  g_assert_cmpfloat_with_epsilon (bx, 40.0, 1e-12);
  g_assert_cmpint (convention, ==, BRAGGSCOPE_CONVENTION_XDS);
  g_assert_cmpint (precision, ==, BRAGGSCOPE_PRECISION_SINGLE);
  g_assert_cmpint (shape, ==, BRAGGSCOPE_SHAPE_GAUSS);
  g_assert_cmpint (oversample, ==, 2);

  /* the same settings as flags, in the same order, give the same parameters */
  by_flags = simulation_from_cmdline (
      "-detpixels 512 -misset 12.5 0 0 -lambda 1.54 -distance 150 -pixel 0.172 -mosaic 0.3 "
      "-mosaic_domains 7 -N 9 -twotheta 5 -divergence 0.4 -Xbeam 40 -xds -precision single "
      "-gauss_xtal -cell 63.4 63.4 83.8 90 90 120 -oversample 2");
  a = braggscope_simulation_to_args (sim);
  b = braggscope_simulation_to_args (by_flags);
  /* the seeds differ (time-based defaults): compare up to them */
  for (guint i = 0; a[i] != NULL && !g_str_equal (a[i], "-mosaic_seed"); i++)
    g_assert_cmpstr (a[i], ==, b[i]);
  g_assert_cmpuint (g_strv_length (a), ==, g_strv_length (b));

  /* every parameter property has its unit (or "count") in the blurb */
  {
    static const char *const props[] = { "misset-x",      "wavelength",
                                         "mosaic-spread", "mosaic-domains",
                                         "n-cells",       "distance",
                                         "beam-center-x", "beam-center-y",
                                         "pixel-size",    "detector-pixels-fast",
                                         "two-theta",     "oversample",
                                         "phi",           "osc",
                                         "dispersion",    "divergence",
                                         "fluence" };
    for (gsize i = 0; i < G_N_ELEMENTS (props); i++)
      {
        GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (sim), props[i]);

        g_assert_nonnull (pspec);
        g_assert_nonnull (strchr (g_param_spec_get_blurb (pspec), '('));
      }
  }
}

static guint notifications;

static void
on_notify (GObject *object, GParamSpec *pspec, gpointer data)
{
  notifications++;
}

static void
test_notify_and_sequence (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  guint64 seq = braggscope_simulation_get_sequence (sim);

  g_signal_connect (sim, "notify::misset-y", G_CALLBACK (on_notify), NULL);
  g_object_set (sim, "misset-y", 3.0, NULL);
  g_assert_cmpuint (notifications, ==, 1);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, seq + 1);
  /* the same value again is no change */
  g_object_set (sim, "misset-y", 3.0, NULL);
  g_assert_cmpuint (notifications, ==, 1);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, seq + 1);
  /* flags notify the properties they change */
  {
    const char *args[] = { "-misset", "1", "4", "0", NULL };
    g_autoptr (GError) error = NULL;

    g_assert_true (braggscope_simulation_set_from_args (sim, args, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (notifications, ==, 2);
    g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, seq + 2);
  }
}

static void
test_invalid_values (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline ("-cell 100 100 100 90 90 90");
  g_autoptr (GError) error = NULL;
  Watch w;
  guint64 seq;
  double wavelength;
  int pixels;

  watch_init (&w, sim);
  seq = braggscope_simulation_get_sequence (sim);

  /* rejected synchronously, the property unchanged, no new sequence */
  g_object_set (sim, "wavelength", -1.0, NULL);
  g_assert_cmpuint (w.errors->len, ==, 1);
  g_assert_error (watch_error (&w, 0), BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_assert_nonnull (strstr (watch_error (&w, 0)->message, "wavelength"));
  g_object_get (sim, "wavelength", &wavelength, NULL);
  g_assert_cmpfloat (wavelength, ==, 1.0);
  g_object_set (sim, "detector-pixels-fast", 0, NULL);
  g_object_set (sim, "detector-pixels-fast", 100000, NULL);
  g_object_get (sim, "detector-pixels-fast", &pixels, NULL);
  g_assert_cmpint (pixels, ==, 512);
  g_object_set (sim, "misset-x", NAN, NULL);
  g_object_set (sim, "cell-alpha", 200.0, NULL);
  g_object_set (sim, "polarization", 3.0, NULL);
  g_object_set (sim, "structure-factors", "/nonexistent/file.hkl", NULL);
  g_assert_cmpuint (w.errors->len, ==, 7);
  g_assert_error (watch_error (&w, 6), BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, seq);

  /* flags: an unknown one, a bad value, an invalid one; nothing applied */
  {
    const char *unknown[] = { "-lambda", "2", "-no-such-flag", NULL };
    const char *bad[] = { "-distance", "far", NULL };
    const char *invalid[] = { "-lambda", "2", "-pixel", "0", NULL };

    g_assert_false (braggscope_simulation_set_from_args (sim, unknown, &error));
    g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "-no-such-flag"));
    g_clear_error (&error);
    g_assert_false (braggscope_simulation_set_from_args (sim, bad, &error));
    g_assert_nonnull (strstr (error->message, "far"));
    g_clear_error (&error);
    g_assert_false (braggscope_simulation_set_from_args (sim, invalid, &error));
    g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
    g_clear_error (&error);
    g_object_get (sim, "wavelength", &wavelength, NULL);
    g_assert_cmpfloat (wavelength, ==, 1.0);
  }
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, seq);
  watch_clear (&w);
}

/* Errors the engine finds while rendering (a file it cannot parse, no cell)
 * arrive as signals; the frames keep answering the last accepted parameters. */
static void
test_render_errors (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autoptr (BraggscopeSimulation) scene = simulation_from_cmdline (SMALL_SCENE);
  g_autofree char *bad = NULL;
  GError *e;
  Watch w, ws;
  int fd;

  /* nanoBragg's defaults have no cell: rendering says so */
  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  while (w.errors->len == 0)
    g_main_context_iteration (NULL, TRUE);
  e = g_ptr_array_index (w.errors, 0);
  g_assert_error (e, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_assert_nonnull (strstr (e->message, "cell"));
  g_assert_false (braggscope_simulation_get_busy (sim));
  watch_clear (&w);

  /* a malformed structure-factor file */
  watch_init (&ws, scene);
  braggscope_simulation_render (scene);
  watch_wait_full (&ws, 30);
  fd = g_file_open_tmp ("braggscope-bad-XXXXXX.hkl", &bad, NULL);
  g_assert_cmpint (fd, >=, 0);
  g_assert_true (write (fd, "1 2 3 x\nnot a reflection\n", 25) == 25);
  close (fd);
  g_object_set (scene, "structure-factors", bad, NULL);
  while (ws.errors->len == 0)
    g_main_context_iteration (NULL, TRUE);
  e = g_ptr_array_index (ws.errors, 0);
  g_assert_true (e->domain == BRAGGSCOPE_ERROR);
  g_assert_nonnull (strstr (e->message, bad));
  spin (0.05);
  /* no frame of the rejected parameters */
  {
    g_autofree char *last_args = g_strjoinv (" ", braggscope_frame_get_args (watch_last (&ws)));
    g_assert_null (strstr (last_args, bad));
  }
  /* and the simulation renders again once the file is gone */
  g_object_set (scene, "structure-factors", NULL, NULL);
  watch_wait_full (&ws, 30);
  g_unlink (bad);
  watch_clear (&ws);
}

/* The water background thickness: a property in µm, the flag -water in µm, never negative. */
static void
test_water (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autoptr (BraggscopeSimulation) by_flags = simulation_from_cmdline ("-water 250");
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = NULL;
  const char *const negative[] = { "-water", "-1", NULL };
  double water;

  g_object_get (sim, "water", &water, NULL);
  g_assert_cmpfloat (water, ==, 0.0);
  g_object_get (by_flags, "water", &water, NULL);
  g_assert_cmpfloat_with_epsilon (water, 250.0, 1e-9);

  g_object_set (sim, "water", 250.0, NULL);
  args = braggscope_simulation_to_args (sim);
  for (guint i = 0;; i++)
    {
      g_assert_nonnull (args[i]);
      if (strcmp (args[i], "-water") != 0)
        continue;
      g_assert_cmpstr (args[i + 1], ==, "250");
      break;
    }

  g_assert_false (braggscope_simulation_set_from_args (sim, negative, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "-water"));
}

static void
test_args_round_trip (void)
{
  /* a structure-factor file named for reading must be there (issue 27) */
  g_autofree char *dir = g_dir_make_tmp ("braggscope-path with space-XXXXXX", NULL);
  g_autofree char *hkl = g_build_filename (dir, "x.hkl", NULL);
  g_autofree char *quoted = g_shell_quote (hkl);
  g_autofree char *cmdline = g_strdup_printf (
      "-hkl %s -cell 70 80 90 85 95 105 -misset 10 5 3 -lambda 1.5 -N 8 "
      "-distance 100 -detpixels 256 -pixel 0.2 -xds -ORGX 100 -ORGY 140 -seed 7 -mosaic_seed 9 "
      "-misset_seed 11 -misset random -backend cpu",
      quoted);
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (BraggscopeSimulation) copy = braggscope_simulation_new ();
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = NULL, again = NULL;
  g_autofree char *line = NULL;
  g_auto (GStrv) parsed = NULL;
  BraggscopeBackend backend = BRAGGSCOPE_BACKEND_AUTO;

  g_assert_true (g_file_set_contents (hkl, "1 2 3 100\n", -1, NULL));
  sim = simulation_from_cmdline (cmdline);
  args = braggscope_simulation_to_args (sim);
  line = braggscope_simulation_to_command_line (sim);

  g_assert_cmpstr (args[0], ==, "nanobragg");
  g_assert_true (g_strv_contains ((const char *const *) args, hkl));
  /* the seeds that matter (misset: random orientation; noise: nanoBragg writes a noise image
   * by default), not the mosaic seed of a crystal without mosaic domains; -misset_seed
   * right before "-misset random", never where appended numbers would become angles */
  g_assert_true (g_strv_contains ((const char *const *) args, "-seed"));
  g_assert_false (g_strv_contains ((const char *const *) args, "-mosaic_seed"));
  for (guint i = 0;; i++)
    {
      g_assert_nonnull (args[i]);
      if (strcmp (args[i], "-misset_seed") != 0)
        continue;
      g_assert_cmpstr (args[i + 1], ==, "11");
      g_assert_cmpstr (args[i + 2], ==, "-misset");
      g_assert_cmpstr (args[i + 3], ==, "random");
      break;
    }
  g_assert_true (g_strv_contains ((const char *const *) args, "-backend"));

  /* applying the flags (without the program name) to a new simulation */
  g_assert_true (
      braggscope_simulation_set_from_args (copy, (const char *const *) args + 1, &error));
  g_assert_no_error (error);
  again = braggscope_simulation_to_args (copy);
  g_assert_true (g_strv_equal ((const char *const *) args, (const char *const *) again));
  g_object_get (copy, "backend", &backend, NULL);
  g_assert_cmpint (backend, ==, BRAGGSCOPE_BACKEND_CPU);

  /* the command line is the same arguments, quoted for a shell */
  g_assert_nonnull (strstr (line, quoted));
  g_assert_true (g_shell_parse_argv (line, NULL, &parsed, &error));
  g_assert_true (g_strv_equal ((const char *const *) parsed, (const char *const *) args));
  g_unlink (hkl);
  g_rmdir (dir);
}

/* Pixel queries agree with the engine's on the same parameters; the beam
 * centre scatters at 2theta 0, a Bragg spot sits on whole h k l. */
static void
test_geometry (void)
{
  const char *cmdline = "-default_F 100 -cell 50 60 70 90 90 90 -misset 5 10 15 -lambda 1 -N 8 "
                        "-distance 100 -detpixels 256 -pixel 0.1 -precision single";
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (cmdline);
  g_autoptr (GError) error = NULL;
  BraggscopeFrame *frame;
  BraggscopeGeometry *geom;
  BraggscopePixelInfo info, centre;
  nb_params p;
  nb_plan *plan = NULL;
  nb_geometry *g;
  nb_pixel_query q;
  nb_error err = { 0 };
  char **args;
  const float *data;
  gsize n, brightest = 0;
  int width, height;
  Watch w;

  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  frame = watch_wait_full (&w, 30);
  geom = braggscope_frame_get_geometry (frame);
  g_assert_nonnull (geom);
  braggscope_geometry_get_size (geom, &width, &height);
  g_assert_cmpint (width, ==, 256);
  g_assert_cmpint (height, ==, 256);

  /* the engine's own answer, from the frame's parameters */
  args = braggscope_frame_get_args (frame);
  nb_params_init (&p);
  g_assert_cmpint (
      nb_params_parse_argv (&p, (int) g_strv_length (args), (const char *const *) args, &err), ==,
      NB_OK);
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  g = nb_plan_ref_geometry (plan);

  /* where the direct beam meets the detector (the plan's Fbeam, Sbeam),
   * near the middle for MOSFLM's default centre */
  {
    const nb_plan_info *in = nb_plan_get_info (plan);
    double bx = in->Fbeam / in->pixel_size, by = in->Sbeam / in->pixel_size;

    g_assert_cmpfloat (fabs (bx - 128), <, 2);
    g_assert_cmpfloat (fabs (by - 128), <, 2);
    g_assert_true (braggscope_geometry_query (geom, bx, by, &centre, &error));
    g_assert_no_error (error);
    g_assert_cmpfloat (centre.two_theta, <, 1e-6);
    g_assert_cmpfloat (centre.d_spacing, >, 1e6);
    g_assert_cmpfloat (centre.q, <, 1e-6);
    /* one pixel away: 2theta = atan (0.1 mm / 100 mm) */
    g_assert_true (braggscope_geometry_query (geom, bx + 1, by, &centre, &error));
    g_assert_cmpfloat_with_epsilon (centre.two_theta, atan (0.1 / 100) * 180 / G_PI, 1e-6);
  }

  /* the brightest pixel is on a reflection */
  data = braggscope_frame_get_data (frame, &n);
  for (gsize i = 1; i < n; i++)
    if (data[i] > data[brightest])
      brightest = i;
  g_assert_cmpfloat (data[brightest], ==, braggscope_frame_get_max_value (frame));
  {
    double x = brightest % 256 + 0.5, y = brightest / 256 + 0.5;

    g_assert_true (braggscope_geometry_query (geom, x, y, &info, &error));
    g_assert_cmpfloat (fabs (info.h - info.nearest_h), <, 0.2);
    g_assert_cmpfloat (fabs (info.k - info.nearest_k), <, 0.2);
    g_assert_cmpfloat (fabs (info.l - info.nearest_l), <, 0.2);
    g_assert_true (info.nearest_h != 0 || info.nearest_k != 0 || info.nearest_l != 0);
    g_assert_cmpfloat (info.structure_factor, ==, 100.0);
    g_assert_false (info.from_file);
    /* Bragg's law: d = lambda / (2 sin theta), q = 2 pi / d */
    g_assert_cmpfloat_with_epsilon (info.d_spacing,
                                    1.0 / (2 * sin (info.two_theta / 2 * G_PI / 180)), 1e-9);
    g_assert_cmpfloat_with_epsilon (info.q, 2 * G_PI / info.d_spacing, 1e-9);

    g_assert_cmpint (nb_geometry_query (g, x, y, &q, &err), ==, NB_OK);
    g_assert_cmpfloat (info.h, ==, q.hkl[0]);
    g_assert_cmpfloat (info.k, ==, q.hkl[1]);
    g_assert_cmpfloat (info.l, ==, q.hkl[2]);
    g_assert_cmpfloat (info.d_spacing, ==, q.d);
    g_assert_cmpfloat (info.q, ==, q.q);
    g_assert_cmpfloat_with_epsilon (info.two_theta, q.two_theta * 180 / G_PI, 1e-12);
    g_assert_cmpfloat_with_epsilon (info.azimuth, q.azimuth * 180 / G_PI, 1e-12);
  }

  /* a bad coordinate */
  g_assert_false (braggscope_geometry_query (geom, NAN, 3.0, &info, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);

  /* the geometry outlives the frame and the simulation */
  braggscope_geometry_ref (geom);
  watch_clear (&w);
  g_clear_object (&sim);
  g_assert_true (braggscope_geometry_query (geom, 10.0, 20.0, &info, NULL));
  braggscope_geometry_unref (geom);

  nb_geometry_unref (g);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
}

/* The default scene: 1HPV, 1024 x 1024, single precision, rendering at once;
 * a spot's structure factor comes from the file. */
static void
count_notify (guint *count)
{
  (*count)++;
}

static void
test_default_scene (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new_default_scene (&error);
  g_autofree char *hkl = NULL;
  BraggscopeFrame *frame;
  BraggscopePixelInfo info;
  BraggscopePrecision precision;
  const float *data;
  gsize n, brightest = 0;
  int fast;
  Watch w;

  g_assert_no_error (error);
  g_object_get (sim, "detector-pixels-fast", &fast, "precision", &precision, "structure-factors",
                &hkl, NULL);
  g_assert_cmpint (fast, ==, 1024);
  g_assert_cmpint (precision, ==, BRAGGSCOPE_PRECISION_SINGLE);
  g_assert_true (g_str_has_suffix (hkl, "1hpv_p1.hkl"));
  g_assert_true (braggscope_simulation_get_busy (sim));

  watch_init (&w, sim);
  /* smaller, to be quick */
  g_object_set (sim, "detector-pixels-fast", 256, "detector-pixels-slow", 256, "pixel-size", 0.4,
                NULL);
  frame = watch_wait_full (&w, 60);
  data = braggscope_frame_get_data (frame, &n);
  for (gsize i = 1; i < n; i++)
    if (data[i] > data[brightest])
      brightest = i;
  g_assert_true (braggscope_geometry_query (braggscope_frame_get_geometry (frame),
                                            brightest % 256 + 0.5, brightest / 256 + 0.5, &info,
                                            NULL));
  g_assert_true (info.from_file);
  g_assert_cmpfloat (info.structure_factor, >, 0.0);

  /* the scene's structure factors are 1HPV's: under thaumatin's cell that is said (once: the
   * warning stays as the cell moves on), and no longer under 1HPV's own */
  {
    g_autofree char *warning = NULL;
    const char *thaumatin[] = { "-cell", "57.8", "57.8", "150.2", "90", "90", "90", NULL };
    const char *hpv[] = { "-cell", "63.4", "63.4", "83.8", "90", "90", "120", NULL };
    guint notified = 0;
    gulong id = g_signal_connect_swapped (sim, "notify::hkl-cell-warning",
                                          G_CALLBACK (count_notify), &notified);

    g_object_get (sim, "hkl-cell-warning", &warning, NULL);
    g_assert_null (warning);
    g_assert_true (braggscope_simulation_set_from_args (sim, thaumatin, &error));
    watch_wait_full (&w, 60);
    g_object_get (sim, "hkl-cell-warning", &warning, NULL);
    g_test_message ("%s", warning);
    g_assert_nonnull (strstr (warning, "1hpv_p1.hkl holds the default scene's structure factors, "
                                       "of the cell 63.4 63.4 83.8 90 90 120, not the crystal's "
                                       "57.8 57.8 150.2 90 90 90"));
    g_object_set (sim, "cell-c", 140.0, NULL);
    watch_wait_full (&w, 60);
    g_assert_cmpuint (notified, ==, 1);
    g_assert_true (braggscope_simulation_set_from_args (sim, hpv, &error));
    watch_wait_full (&w, 60);
    g_clear_pointer (&warning, g_free);
    g_object_get (sim, "hkl-cell-warning", &warning, NULL);
    g_assert_null (warning);
    g_assert_cmpuint (notified, ==, 2);
    g_signal_handler_disconnect (sim, id);
  }
  watch_clear (&w);
}

/* A frame says its oversampling and whether it was chosen automatically, as
 * the engine chose it: nanoBragg's ceil (3 x largest crystal edge / (lambda
 * distance / pixel)). */
static void
test_frame_oversample (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  BraggscopeFrame *frame;
  int oversample = -1;
  gboolean is_auto = FALSE;
  Watch w;

  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  /* 3 x 5 cells x 100 A / (1 A x 100 mm / 0.4 mm) = 6 */
  frame = watch_wait_full (&w, 60);
  g_assert_cmpint (braggscope_frame_get_oversample (frame), ==, 6);
  g_assert_true (braggscope_frame_get_oversample_auto (frame));
  g_object_get (frame, "oversample", &oversample, "oversample-auto", &is_auto, NULL);
  g_assert_cmpint (oversample, ==, 6);
  g_assert_true (is_auto);

  /* a shorter wavelength asks for more: 3 x 500 A / (0.5 A x 100 mm / 0.4 mm) = 12 */
  g_object_set (sim, "wavelength", 0.5, NULL);
  frame = watch_wait_full (&w, 60);
  g_assert_cmpint (braggscope_frame_get_oversample (frame), ==, 12);
  g_assert_true (braggscope_frame_get_oversample_auto (frame));

  /* given, not chosen */
  g_object_set (sim, "oversample", 2, NULL);
  frame = watch_wait_full (&w, 60);
  g_assert_cmpint (braggscope_frame_get_oversample (frame), ==, 2);
  g_assert_false (braggscope_frame_get_oversample_auto (frame));
  watch_clear (&w);
}

/* Issue 23, item 13: -twotheta 120 without -physical gives every pixel
 * negative photons (the reference's quirk Q-2, reproduced); the frame says so
 * (the engine's nb_plan_get_warnings(), as nanobragg prints it), naming the
 * quirk and -physical, and says nothing with -physical or without two-theta. */
static void
test_frame_warnings (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE " -twotheta 120");
  const char *const physical[] = { "-physical", NULL };
  const char *const *warnings;
  g_auto (GStrv) property = NULL;
  BraggscopeFrame *frame;
  Watch w;

  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  frame = watch_wait_full (&w, 60);
  warnings = braggscope_frame_get_warnings (frame);
  g_assert_nonnull (warnings);
  g_assert_cmpuint (g_strv_length ((char **) warnings), ==, 1);
  g_test_message ("%s", warnings[0]);
  g_assert_nonnull (strstr (warnings[0], "two-theta 120 deg"));
  g_assert_nonnull (strstr (warnings[0], "quirk Q-2"));
  g_assert_nonnull (strstr (warnings[0], "not in front of the sample"));
  g_assert_nonnull (strstr (warnings[0], "-physical"));
  g_assert_null (strchr (warnings[0], '\n'));
  g_object_get (frame, "warnings", &property, NULL);
  g_assert_true (g_strv_equal ((const char *const *) property, warnings));

  g_assert_true (braggscope_simulation_set_from_args (sim, physical, NULL));
  frame = watch_wait_full (&w, 60);
  g_assert_cmpuint (g_strv_length ((char **) braggscope_frame_get_warnings (frame)), ==, 0);
  g_object_set (sim, "two-theta", 0.0, NULL);
  frame = watch_wait_full (&w, 60);
  g_assert_cmpuint (g_strv_length ((char **) braggscope_frame_get_warnings (frame)), ==, 0);
  watch_clear (&w);
}

/* The domain's name is what hosts see (GError's domain string, bindings'
 * exceptions); the formatter once turned it into "braggscope - error - quark". */
static void
test_error_domain (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autoptr (GError) error = NULL;
  const char *args[] = { "-no-such-flag", NULL };

  g_assert_cmpstr (g_quark_to_string (BRAGGSCOPE_ERROR), ==, "braggscope-error-quark");
  g_assert_true (g_quark_try_string ("braggscope-error-quark") == BRAGGSCOPE_ERROR);
  /* and the errors the library makes carry it */
  g_assert_false (braggscope_simulation_set_from_args (sim, args, &error));
  g_assert_nonnull (error);
  g_assert_cmpstr (g_quark_to_string (error->domain), ==, "braggscope-error-quark");
}

/* Issue 23: the default scene's flags are a data file: a flag naming a file
 * to write in it is refused, not obeyed. */
static void
test_default_scene_outputs (void)
{
  g_autofree char *dir = g_dir_make_tmp ("braggscope-data-XXXXXX", NULL);
  g_autofree char *hkl = g_build_filename (dir, "1hpv_p1.hkl", NULL);
  g_autofree char *args = g_build_filename (dir, "1hpv-scene.args", NULL);
  g_autofree char *victim = g_build_filename (dir, "victim", NULL);
  g_autofree char *line = g_strdup_printf ("-N 5 -dump %s\n", victim);
  g_autofree char *saved = g_strdup (g_getenv ("BRAGGSCOPE_DATADIR"));
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeSimulation) sim = NULL;

  g_assert_true (g_file_set_contents (hkl, "1 2 3 100\n", -1, NULL));
  g_assert_true (g_file_set_contents (args, line, -1, NULL));
  g_setenv ("BRAGGSCOPE_DATADIR", dir, TRUE);
  sim = braggscope_simulation_new_default_scene (&error);
  if (saved != NULL)
    g_setenv ("BRAGGSCOPE_DATADIR", saved, TRUE);
  else
    g_unsetenv ("BRAGGSCOPE_DATADIR");
  g_assert_null (sim);
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_assert_true (g_str_has_prefix (error->message, args));
  g_assert_nonnull (strstr (error->message, "-dump names a file to write"));
  g_assert_false (g_file_test (victim, G_FILE_TEST_EXISTS));
  g_unlink (hkl);
  g_unlink (args);
  g_rmdir (dir);
}

static double
get_double (BraggscopeSimulation *sim, const char *name)
{
  double v = NAN;

  g_object_get (sim, name, &v, NULL);
  return v;
}

/* Issue 30: an atomic model set as the structure factors lends the crystal
 * its cell (the cell properties read it, a note says so), one edge changed
 * keeps the model's others and is warned of when it no longer fits, a -cell
 * given with the model stays, and the hover's query says the resolution the
 * structure factors were computed to, and the reflection's own d. */
static void
test_model_cell (void)
{
  g_autofree char *pdb = g_build_filename (g_getenv ("NB_DATA_DIR"), "1hpv.pdb", NULL);
  g_autofree char *hkl = g_build_filename (g_getenv ("NB_DATA_DIR"), "1hpv_p1.hkl", NULL);
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *note = NULL, *warning = NULL;
  g_auto (GStrv) args = NULL;
  const char *scene[] = { "-cell", "50",         "60",     "70",         "90", "90",
                          "90",    "-default_F", "1",      "-lambda",    "1",  "-N",
                          "5",     "-distance",  "100",    "-detpixels", "64", "-pixel",
                          "0.4",   "-precision", "single", NULL };
  BraggscopePixelInfo info;
  BraggscopeFrame *frame;
  Watch w;

  if (!nb_models_available ())
    {
      g_test_skip ("this build has no models module (gemmi)");
      return;
    }
  g_assert_true (braggscope_simulation_set_from_args (sim, scene, &error));
  g_assert_no_error (error);
  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  watch_wait_full (&w, 60);

  /* the model's cell (P 61, 63.4 63.4 83.8 90 90 120) replaces the scene's */
  g_object_set (sim, "structure-factors", pdb, NULL);
  args = braggscope_simulation_to_args (sim);
  for (guint i = 0; args[i] != NULL; i++)
    g_assert_cmpstr (args[i], !=, "-cell");
  frame = watch_wait_full (&w, 60);
  g_assert_cmpfloat_with_epsilon (get_double (sim, "cell-a"), 63.4, 1e-3);
  g_assert_cmpfloat_with_epsilon (get_double (sim, "cell-c"), 83.8, 1e-3);
  g_assert_cmpfloat_with_epsilon (get_double (sim, "cell-gamma"), 120.0, 1e-6);
  g_object_get (sim, "structure-factors-note", &note, "hkl-cell-warning", &warning, NULL);
  g_test_message ("%s", note);
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (note, "1hpv.pdb"));
  g_assert_nonnull (strstr (note, "P 61"));
  g_assert_nonnull (strstr (note, "are the crystal's"));
  g_assert_null (warning);

  /* the hover: F computed to the detector's reach, the reflection's own d */
  g_assert_true (
      braggscope_geometry_query (braggscope_frame_get_geometry (frame), 60.5, 60.5, &info, NULL));
  g_assert_cmpfloat (info.computed_to, >, 2.0);
  g_assert_cmpfloat (info.computed_to, <, info.d_spacing);
  g_assert_cmpfloat (info.reflection_d_spacing, >, info.computed_to);
  g_assert_cmpfloat (fabs (info.reflection_d_spacing - info.d_spacing) / info.d_spacing, <, 0.2);
  g_assert_true (info.from_file);

  /* another file keeps the crystal's cell, the model's; the model again */
  g_object_set (sim, "structure-factors", hkl, NULL);
  g_assert_cmpfloat_with_epsilon (get_double (sim, "cell-c"), 83.8, 1e-3);
  g_strfreev (args);
  args = braggscope_simulation_to_args (sim);
  g_assert_true (g_strv_contains ((const char *const *) args, "-cell"));
  g_object_set (sim, "structure-factors", pdb, NULL);
  watch_wait_full (&w, 60);

  /* one edge changed: the others stay the model's, and the misfit is warned of */
  g_object_set (sim, "cell-a", 80.0, NULL);
  g_assert_cmpfloat_with_epsilon (get_double (sim, "cell-b"), 63.4, 1e-3);
  g_assert_cmpfloat_with_epsilon (get_double (sim, "cell-gamma"), 120.0, 1e-6);
  watch_wait_full (&w, 60);
  g_clear_pointer (&warning, g_free);
  g_object_get (sim, "hkl-cell-warning", &warning, NULL);
  g_assert_nonnull (warning);
  g_assert_true (g_str_has_prefix (warning, pdb));

  /* a model given with -cell keeps that */
  {
    const char *with_cell[] = { "-model", pdb, "-cell", "63", "63", "84", "90", "90", "120", NULL };

    g_assert_true (braggscope_simulation_set_from_args (sim, with_cell, &error));
    g_assert_cmpfloat_with_epsilon (get_double (sim, "cell-a"), 63.0, 1e-6);
  }
  frame = watch_wait_full (&w, 60);
  g_clear_pointer (&note, g_free);
  g_object_get (sim, "structure-factors-note", &note, NULL);
  g_assert_nonnull (strstr (note, "on the crystal's own cell"));

  /* structure factors read from a file: no resolution of computation */
  g_object_set (sim, "structure-factors", hkl, NULL);
  frame = watch_wait_full (&w, 60);
  g_assert_true (
      braggscope_geometry_query (braggscope_frame_get_geometry (frame), 60.5, 60.5, &info, NULL));
  g_assert_cmpfloat (info.computed_to, ==, 0.0);
  watch_clear (&w);
}

/* Issue 31: a simulation's full frames integrate adaptively by default (the
 * plan says so, and spend fewer samples than nanoBragg's oversample^2), its
 * previews stay the fast kernel's, exact; integration=exact gives the
 * engine's exact image, oversample^2 samples a pixel. */
static void
test_frame_integration (void)
{
  /* 50 cells, spots 10 pixels apart: 17-fold automatic oversampling */
  g_autoptr (BraggscopeSimulation) sim =
      simulation_from_cmdline (SMALL_SCENE " -N 50 -pixel 0.1 -detpixels 128");
  char **args;
  BraggscopeFrame *frame, *preview = NULL;
  BraggscopeIntegration integration = BRAGGSCOPE_INTEGRATION_EXACT;
  double tolerance = 0.0, samples = 0.0;
  Watch w;

  g_object_get (sim, "integration", &integration, "tolerance", &tolerance, NULL);
  g_assert_cmpint (integration, ==, BRAGGSCOPE_INTEGRATION_ADAPTIVE);
  g_assert_cmpfloat (tolerance, ==, 1e-3);
  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  watch_wait_full (&w, 60);
  /* a change renders a preview first */
  g_object_set (sim, "wavelength", 0.9, NULL);
  frame = watch_wait_full (&w, 60);
  for (guint i = 0; i < w.frames->len; i++)
    if (braggscope_frame_get_is_preview (g_ptr_array_index (w.frames, i)))
      preview = g_ptr_array_index (w.frames, i);
  g_assert_nonnull (preview);
  g_assert_cmpint (braggscope_frame_get_integration (preview), ==, BRAGGSCOPE_INTEGRATION_EXACT);
  g_assert_cmpint (braggscope_frame_get_integration (frame), ==, BRAGGSCOPE_INTEGRATION_ADAPTIVE);
  g_object_get (frame, "integration", &integration, "samples-per-pixel", &samples, NULL);
  g_test_message ("adaptive: %.2f samples per pixel", samples);
  g_assert_cmpint (integration, ==, BRAGGSCOPE_INTEGRATION_ADAPTIVE);
  /* 17 x 17 samples a pixel exactly; far fewer where the spots are sharp */
  g_assert_cmpint (braggscope_frame_get_oversample (frame), ==, 17);
  g_assert_cmpfloat (samples, >, 0.0);
  g_assert_cmpfloat (samples, <, 289.0 / 4);
  args = braggscope_frame_get_args (frame);
  g_assert_true (g_strv_contains ((const char *const *) args, "-integration"));

  g_object_set (sim, "integration", BRAGGSCOPE_INTEGRATION_EXACT, NULL);
  frame = watch_wait_full (&w, 60);
  g_assert_cmpint (braggscope_frame_get_integration (frame), ==, BRAGGSCOPE_INTEGRATION_EXACT);
  g_assert_cmpfloat (braggscope_frame_get_samples_per_pixel (frame), ==, 289.0);
  args = braggscope_frame_get_args (frame);
  g_assert_false (g_strv_contains ((const char *const *) args, "-integration"));
  assert_frame_is_engine_image (frame, args);
  watch_clear (&w);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/simulation/error-domain", test_error_domain);
  g_test_add_func ("/simulation/properties", test_properties);
  g_test_add_func ("/simulation/notify-and-sequence", test_notify_and_sequence);
  g_test_add_func ("/simulation/invalid-values", test_invalid_values);
  g_test_add_func ("/simulation/render-errors", test_render_errors);
  g_test_add_func ("/simulation/water", test_water);
  g_test_add_func ("/simulation/args-round-trip", test_args_round_trip);
  g_test_add_func ("/simulation/geometry", test_geometry);
  g_test_add_func ("/simulation/frame-oversample", test_frame_oversample);
  g_test_add_func ("/simulation/frame-warnings", test_frame_warnings);
  g_test_add_func ("/simulation/frame-integration", test_frame_integration);
  g_test_add_func ("/simulation/default-scene", test_default_scene);
  g_test_add_func ("/simulation/default-scene-outputs", test_default_scene_outputs);
  g_test_add_func ("/simulation/model-cell", test_model_cell);
  return g_test_run ();
}
