/* test-adaptive.c: -integration adaptive (kernel-adaptive.c,
 * docs/adaptive-integration.md) against the limit it converges to: the
 * reference's method (the fast kernel in double precision) at an
 * oversampling far above the automatic one, on a region of the viewer's
 * scene (1HPV, 5 mosaic domains over 0.2 degrees) holding a spot and a strip
 * of background, for square, round, Gaussian and flat-top crystals at
 * N = 10, 50, 100, 300.  Each pixel must be within the tolerance times the
 * region's brightest pixel, and the sum within the tolerance; the adaptive
 * run must spend fewer sub-pixel samples than the reference (but for
 * flat-top spots, whose edges it resolves further).  Also: the
 * default scene at N = 10 against the exact kernel, thread-count
 * independence, previews, the plan's report, and a real nanobragg run. */
#include <glib.h>
#include <glib/gstdio.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "nanobragg.h"
#include "nb-test-util.h"

#define TOLERANCE 1e-3

/* The viewer's scene (data/1hpv-scene.args) in double precision, without
 * its file (added per test); the region holds the brightest spot of the
 * detector at N = 100 and six rows of background beside it. */
#define SCENE                                                                                      \
  "-cell 63.4 63.4 83.8 90 90 120 -misset 10 20 30 -lambda 1.0 -mosaic 0.2 -mosaic_domains 5 "     \
  "-distance 120 -detpixels 1024 -pixel 0.1 -precision double "
#define REGION "-roi 472 492 378 384 "

typedef struct
{
  const char *shape; /* the flag */
  int N;
  int oversample; /* of the limit: about four times the automatic one or more */
  const char *region;
} limit_case;

static char *
scene_args (const char *extra)
{
  const char *data = g_getenv ("NB_DATA_DIR");
  g_autofree char *hkl = g_build_filename (data ? data : "data", "1hpv_p1.hkl", NULL);

  return g_strdup_printf (SCENE "-hkl %s %s", hkl, extra);
}

static float *
render (const char *cmdline, int threads, nb_plan_timing *timing)
{
  nb_plan *plan = plan_new (cmdline);
  const nb_plan_info *in = nb_plan_get_info (plan);
  nb_exec_options opts = { 0 };
  nb_error err = { 0 };
  float *image = g_new (float, (size_t) in->fpixels * in->spixels);

  opts.threads = threads;
  if (nb_plan_execute (plan, image, &opts, &err) != NB_OK)
    g_error ("%s: %s", cmdline, err.message);
  if (timing != NULL)
    nb_plan_get_timing (plan, timing);
  nb_plan_destroy (plan);
  return image;
}

/* Every pixel of @got within @tol times the brightest of @want, and the
 * sums within @tol of each other; returns the largest pixel error over the
 * brightest (reported). */
static double
check_within (const float *got, const float *want, size_t n, double tol, const char *what)
{
  double max = 0.0, worst = 0.0, sum_got = 0.0, sum_want = 0.0;
  size_t at = 0;

  for (size_t i = 0; i < n; i++)
    max = fmax (max, want[i]);
  for (size_t i = 0; i < n; i++)
    {
      double d = fabs ((double) got[i] - want[i]);
      if (d > worst)
        {
          worst = d;
          at = i;
        }
      sum_got += got[i];
      sum_want += want[i];
    }
  g_test_message ("%s: brightest %g, worst pixel %zu off by %g of it, sums %g %g", what, max, at,
                  max > 0 ? worst / max : worst, sum_got, sum_want);
  /* FLT_MIN: what a float image cannot tell from zero (Gaussian spots
   * with the default fudge are narrower than 1e-3 of a fringe at N >= 50 and
   * leave images of 1e-40 photons) */
  if (worst > tol * max + FLT_MIN)
    g_error ("%s: pixel %zu is %g, the limit %g: off by %g of the brightest %g (tolerance %g)",
             what, at, got[at], want[at], worst / max, max, tol);
  if (fabs (sum_got - sum_want) > tol * sum_want + FLT_MIN * n)
    g_error ("%s: sum %g, the limit's %g (tolerance %g)", what, sum_got, sum_want, tol);
  return max > 0 ? worst / max : worst;
}

static void
test_limit (gconstpointer data)
{
  const limit_case *lc = data;
  g_autofree char *common =
      g_strdup_printf ("%s -N %d %s -oversample %d ", lc->shape, lc->N, lc->region, lc->oversample);
  g_autofree char *exact = scene_args (common);
  g_autofree char *adaptive_extra =
      g_strdup_printf ("%s -integration adaptive -tolerance %g", common, TOLERANCE);
  g_autofree char *adaptive = scene_args (adaptive_extra);
  nb_plan_timing t_exact, t_adaptive;
  g_autofree float *want = render (exact, 0, &t_exact);
  g_autofree float *got = render (adaptive, 0, &t_adaptive);

  g_assert_false (t_exact.adaptive);
  g_assert_true (t_adaptive.adaptive);
  check_within (got, want, 1024 * 1024, TOLERANCE, adaptive);
  g_test_message ("samples: adaptive %.0f, the limit %.0f", t_adaptive.samples, t_exact.samples);
  /* flat-top edges are refined to 1/1024 of a pixel, below the limit's */
  if (strstr (lc->shape, "tophat") == NULL)
    g_assert_cmpfloat (t_adaptive.samples, <, t_exact.samples);
}

/* The default scene at N = 10 (its automatic 3-fold oversampling) against
 * the exact kernel at that oversampling: the exact kernel's own error at 3
 * sub-pixels a side is about 2 % at the brightest spot, so the two agree to
 * 3 % and to 0.5 % in the sum; against the limit (48-fold) adaptive is
 * within the tolerance (test_limit). */
static void
test_default_scene (void)
{
  g_autofree char *exact = scene_args ("-N 10 -precision single");
  g_autofree char *adaptive = scene_args ("-N 10 -precision single -integration adaptive");
  nb_plan_timing t;
  g_autofree float *want = render (exact, 0, NULL);
  g_autofree float *got = render (adaptive, 0, &t);

  check_within (got, want, 1024 * 1024, 0.03, "N = 10 against the exact kernel");
  /* about one sample per pixel where the exact kernel takes nine */
  g_assert_cmpfloat (t.samples, <, 0.25 * 9 * 1024 * 1024);
}

/* A dense scene (N = 5, a 100 A cubic cell, 0.4 mm pixels: fringes of
 * neighbouring spots fill most pixels): the adaptive integrator's cells
 * would take more samples than the exact kernel's 6 x 6 in most pixels, so
 * those pixels are the exact kernel's, bit for bit, and the frame spends no
 * more samples than the exact kernel (before the cap, 246 per pixel against
 * 36).  Against the limit (24-fold, double precision) no pixel is worse than
 * the exact kernel's worst by more than the tolerance. */
#define DENSE                                                                                      \
  "-cell 100 100 100 90 90 90 -misset 10 20 30 -N 5 -lambda 1.0 -default_F 100 -distance 120 "     \
  "-detpixels 128 -pixel 0.4 -mosaic 0.2 -mosaic_domains 5 "

static void
test_dense (void)
{
  const size_t n = 128 * 128;
  nb_plan_timing t_exact, t_adaptive;
  g_autofree float *exact = render (DENSE "-precision single", 0, &t_exact);
  g_autofree float *adaptive =
      render (DENSE "-precision single -integration adaptive -tolerance 1e-3", 0, &t_adaptive);
  g_autofree float *limit = render (DENSE "-precision double -oversample 24", 0, NULL);
  double max = 0.0, err_exact = 0.0, err_adaptive = 0.0;
  size_t same = 0;

  g_assert_true (t_adaptive.adaptive);
  g_test_message ("samples per pixel: adaptive %.2f, exact %.2f", t_adaptive.samples / n,
                  t_exact.samples / n);
  g_assert_cmpfloat (t_exact.samples, ==, 36.0 * n);
  g_assert_cmpfloat (t_adaptive.samples, <=, t_exact.samples);
  for (size_t i = 0; i < n; i++)
    {
      max = fmax (max, limit[i]);
      err_exact = fmax (err_exact, fabs ((double) exact[i] - limit[i]));
      err_adaptive = fmax (err_adaptive, fabs ((double) adaptive[i] - limit[i]));
      same += memcmp (&exact[i], &adaptive[i], sizeof (float)) == 0;
    }
  g_test_message ("pixels the exact kernel's: %zu of %zu; worst error over the brightest: exact "
                  "%.3g, adaptive %.3g",
                  same, n, err_exact / max, err_adaptive / max);
  /* the cap binds on most of the detector */
  g_assert_cmpuint (same, >, n / 2);
  g_assert_cmpfloat (err_adaptive, <=, err_exact + TOLERANCE * max);
}

/* The image does not depend on the thread count, and a preview is the
 * fast kernel's (one oversampled pixel per block). */
static void
test_threads_and_preview (void)
{
  g_autofree char *args = scene_args ("-N 50 -roi 400 560 300 420 -integration adaptive");
  g_autofree char *exact = scene_args ("-N 50 -roi 400 560 300 420");
  g_autofree float *one = render (args, 1, NULL);
  g_autofree float *two = render (args, 2, NULL);
  nb_plan *plan = plan_new (args), *plan_exact = plan_new (exact);
  nb_exec_options opts = { 0 };
  nb_error err = { 0 };
  g_autofree float *a = g_new (float, 1024 * 1024);
  g_autofree float *b = g_new (float, 1024 * 1024);

  g_assert_cmpmem (one, 1024 * 1024 * sizeof (float), two, 1024 * 1024 * sizeof (float));
  opts.preview_stride = 4;
  g_assert_cmpint (nb_plan_execute (plan, a, &opts, &err), ==, NB_OK);
  g_assert_cmpint (nb_plan_execute (plan_exact, b, &opts, &err), ==, NB_OK);
  g_assert_cmpmem (a, 1024 * 1024 * sizeof (float), b, 1024 * 1024 * sizeof (float));
  nb_plan_destroy (plan);
  nb_plan_destroy (plan_exact);
}

/* The plan says which method it uses, and falls back (saying so) where the
 * adaptive integrator does not run. */
static void
test_report (void)
{
  g_autofree char *args = scene_args ("-N 10 -roi 0 9 0 9 -integration adaptive -tolerance 1e-4");
  g_autofree char *exact_args =
      scene_args ("-N 10 -roi 0 9 0 9 -integration adaptive -precision exact");
  nb_plan *plan = plan_new (args), *exact = plan_new (exact_args);
  const nb_plan_info *in = nb_plan_get_info (plan);

  g_assert_cmpint (in->integration, ==, NB_INTEGRATION_ADAPTIVE);
  g_assert_cmpfloat (in->tolerance, ==, 1e-4);
  g_assert_nonnull (strstr (nb_plan_get_log (plan), "adaptive integration: error below 0.0001"));
  g_assert_cmpint (nb_plan_get_info (exact)->integration, ==, NB_INTEGRATION_EXACT);
  g_assert_nonnull (strstr (nb_plan_get_log (exact), "adaptive integration not available"));
  nb_plan_destroy (plan);
  nb_plan_destroy (exact);
}

/* At one sample per pixel (-oversample 1) the exact method costs the least
 * any integration can, and every pixel above the tolerance would be its
 * pixel (the cap): the plan integrates exactly and says why.  (Adaptive's
 * bounds made the Eiger 16M's frame in /ui/snapshot/measured three times
 * slower than exact.) */
static void
test_one_sample (void)
{
  g_autofree char *args = scene_args ("-N 10 -roi 0 9 0 9 -oversample 1 -integration adaptive");
  nb_plan *plan = plan_new (args);

  g_assert_cmpint (nb_plan_get_info (plan)->integration, ==, NB_INTEGRATION_EXACT);
  g_assert_nonnull (strstr (nb_plan_get_log (plan), "(-oversample 1)"));
  nb_plan_destroy (plan);
}

/* A real run of the program: the flags, the line it prints, and a bad
 * tolerance refused with a one-line error naming it. */
static void
test_cli (void)
{
  const char *cli = g_getenv ("NB_CLI");
  g_autofree char *dir = g_dir_make_tmp ("test-adaptive-XXXXXX", NULL);
  g_autofree char *flt = g_build_filename (dir, "image.bin", NULL);
  g_autofree char *args =
      scene_args ("-N 30 -roi 470 495 370 390 -nopgm -nonoise -intfile /dev/null");
  g_autofree char *cmd =
      g_strdup_printf ("%s %s -floatfile %s -integration adaptive -tolerance 1e-3", cli, args, flt);
  g_autofree char *bad = g_strdup_printf ("%s %s -floatfile %s -tolerance 0", cli, args, flt);
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;

  if (cli == NULL)
    {
      g_test_skip ("NB_CLI not set");
      return;
    }
  g_assert_true (g_spawn_command_line_sync (cmd, &out, &err, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out, "adaptive integration: "));
  g_assert_nonnull (strstr (out, " sub-pixel samples ("));
  g_assert_true (g_file_test (flt, G_FILE_TEST_EXISTS));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_true (g_spawn_command_line_sync (bad, &out, &err, &status, NULL));
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (err, "-tolerance"));
  nb_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  /* the limit's oversampling: 16 at N = 10 and 50 (automatic 3 and 11)
   * would leave its own error near the tolerance; four to five times the
   * automatic one above.  Flat-top spots are steps, which sub-pixels
   * resolve only to first order: the limit takes 192.  Gaussian and
   * flat-top spots shrink as 1 / (Na Nb Nc sqrt(fudge)) (physics.md 14.3):
   * with the default fudge they vanish from N = 50 on, so each N also runs
   * with the fudge (10 / N)^6 that keeps them as wide as at N = 10. */
  static const limit_case cases[] = {
    { "-square_xtal", 10, 48, REGION },
    { "-round_xtal", 10, 48, REGION },
    { "-gauss_xtal", 10, 48, REGION },
    { "-tophat_spots", 10, 192, "-roi 478 486 379 383" },
    { "-square_xtal", 50, 64, REGION },
    { "-round_xtal", 50, 64, REGION },
    { "-gauss_xtal", 50, 64, REGION },
    { "-tophat_spots", 50, 64, REGION },
    { "-gauss_xtal -fudge 6.4e-5", 50, 64, REGION },
    { "-tophat_spots -fudge 6.4e-5", 50, 64, "-roi 478 486 379 383" },
    { "-square_xtal", 100, 105, REGION },
    { "-round_xtal", 100, 105, REGION },
    { "-gauss_xtal", 100, 105, REGION },
    { "-tophat_spots", 100, 105, REGION },
    { "-gauss_xtal -fudge 1e-6", 100, 105, REGION },
    { "-tophat_spots -fudge 1e-6", 100, 105, "-roi 478 486 379 383" },
    { "-square_xtal", 300, 252, "-roi 477 487 379 383" },
    { "-round_xtal", 300, 252, "-roi 477 487 379 383" },
    { "-gauss_xtal", 300, 252, "-roi 477 487 379 383" },
    { "-tophat_spots", 300, 252, "-roi 477 487 379 383" },
    { "-gauss_xtal -fudge 1.4e-9", 300, 252, "-roi 477 487 379 383" },
    { "-tophat_spots -fudge 1.4e-9", 300, 252, "-roi 479 484 380 382" },
  };

  g_test_init (&argc, &argv, NULL);
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdelimit (g_strdup (cases[i].shape + 1), " ", '/');
      g_autofree char *path = g_strdup_printf ("/adaptive/limit/%s/N%d", name, cases[i].N);
      g_test_add_data_func (path, &cases[i], test_limit);
    }
  g_test_add_func ("/adaptive/default-scene", test_default_scene);
  g_test_add_func ("/adaptive/dense", test_dense);
  g_test_add_func ("/adaptive/threads-and-preview", test_threads_and_preview);
  g_test_add_func ("/adaptive/report", test_report);
  g_test_add_func ("/adaptive/one-sample", test_one_sample);
  g_test_add_func ("/adaptive/cli", test_cli);
  return g_test_run ();
}
