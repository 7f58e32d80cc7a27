/* test-match.c: peaks, prediction, the match score, refinement and the
 * orientation search (nb-match.h).
 *
 * The refinement test is the issue's: a 1HPV frame simulated with photon
 * noise at a misset M stands in for the measured frame, and from five
 * starting orientations 1 deg away refine must return to M within 0.05 deg.
 * The frame is a still of a crystal with Gaussian spots (-gauss_xtal: a
 * spherical shape transform, so each spot's centroid is the radial projection
 * of its lattice point, as the model predicts) spread over a few pixels, so
 * that centroids are not quantised to pixel centres. */
#include <glib.h>
#include <glib/gstdio.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nb-frame.h"
#include "nb-io.h"
#include "nb-match.h"
#include "nb-test-measured.h"

#define RTD (180.0 / G_PI)

/* The scene: 1HPV, 256 x 256 pixels of 0.1 mm at 60 mm, lambda 1 A, a still,
 * 8 x 8 x 8 cells with Gaussian spots. */
#define SCENE                                                                                      \
  "-cell 63.4 63.4 83.8 90 90 120 -lambda 1.0 -detpixels 256 -pixel 0.1 -distance 60 "             \
  "-N 8 -gauss_xtal -fluence 1e27 -oversample 1 -precision single -backend cpu"

static const double misset_M[3] = { 10.0, 20.0, 30.0 }; /* deg */

static void
params_from (nb_params *p, const char *cmdline)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *full = g_strconcat ("nanobragg ", cmdline, NULL);
  g_auto (GStrv) argv = NULL;
  int argc = 0;
  nb_error err = { 0 };

  g_assert_true (g_shell_parse_argv (full, &argc, &argv, &error));
  nb_params_init (p);
  if (nb_params_parse_argv (p, argc, (const char *const *) argv, &err) != NB_OK)
    g_error ("'%s': %s", cmdline, err.message);
}

/* The scene at misset M with the 1HPV structure factors: its image and, as
 * the measured frame, that image with Poisson noise (seed fixed). */
static void
simulate_frame (nb_params *p, nb_frame *frame, float **image_out)
{
  g_autofree char *hkl = g_build_filename (g_getenv ("NB_DATA_DIR"), "1hpv_p1.hkl", NULL);
  g_autofree char *cmd = g_strdup_printf ("%s -hkl %s -misset %g %g %g", SCENE, hkl, misset_M[0],
                                          misset_M[1], misset_M[2]);
  nb_plan *plan = NULL;
  nb_error err;
  const nb_plan_info *in;
  uint16_t *noise;
  float *image;
  int overloads;
  size_t n;

  params_from (p, cmd);
  g_assert_cmpint (nb_plan_create (p, &plan, &err), ==, NB_OK);
  in = nb_plan_get_info (plan);
  n = (size_t) in->fpixels * in->spixels;
  image = g_new (float, n);
  noise = g_new (uint16_t, n);
  g_assert_cmpint (nb_plan_execute (plan, image, NULL, &err), ==, NB_OK);
  nb_image_to_noise (plan, image, -4321, 0.0, noise, &overloads);
  g_assert_cmpint (nb_frame_alloc (frame, in->fpixels, in->spixels, "simulated 1HPV", &err), ==,
                   NB_OK);
  for (size_t i = 0; i < n; i++)
    frame->counts[i] = noise[i];
  g_test_message ("simulated frame: %d overloaded pixels", overloads);
  g_free (noise);
  nb_plan_destroy (plan);
  if (image_out != NULL)
    *image_out = image;
  else
    g_free (image);
}

static nb_peak *
frame_peaks (const nb_frame *frame, const nb_params *p, int want, int *n)
{
  nb_peak_options opt;
  nb_peak *peaks = NULL;
  nb_error err;
  int all;

  nb_peak_options_init (&opt);
  opt.max_peaks = 10 * want;
  g_assert_cmpint (nb_find_peaks (frame, &opt, &peaks, &all, &err), ==, NB_OK);
  /* the direct beam's own spot (F000) is no reflection */
  *n = nb_peaks_in_resolution (p, peaks, all, 0, 100, &err);
  g_assert_cmpint (*n, >=, 0);
  if (*n > want)
    *n = want;
  return peaks;
}

/* ------------------------------------------------------------------------ */

/* Masked pixels never become peaks, nor do their neighbours, a lone hot
 * pixel or the frame's edge; a real spot does, with its centroid. */
static void
test_peaks_synthetic (void)
{
  nb_frame f;
  nb_error err;
  nb_peak *peaks = NULL;
  int n;

  g_assert_cmpint (nb_frame_alloc (&f, 64, 48, NULL, &err), ==, NB_OK);
  /* a background of 1 count */
  for (int i = 0; i < 64 * 48; i++)
    f.counts[i] = 1;
  /* a spot centred at (20.5 + 0.25, 30.5): 100 counts, 40 to its right, 20 above/below */
  f.counts[30 * 64 + 20] = 101;
  f.counts[30 * 64 + 21] = 41;
  f.counts[29 * 64 + 20] = 21;
  f.counts[31 * 64 + 20] = 21;
  /* a masked gap holding huge values, and a bright pixel beside it */
  for (int s = 0; s < 48; s++)
    {
      f.counts[s * 64 + 40] = 100000;
      f.mask[s * 64 + 40] = NB_PIXEL_MASKED;
    }
  f.counts[10 * 64 + 41] = 500;
  f.counts[10 * 64 + 42] = 300;
  /* a lone hot pixel */
  f.counts[5 * 64 + 10] = 1000;
  /* at the edge */
  f.counts[0 * 64 + 30] = 900;
  f.counts[0 * 64 + 31] = 900;
  g_assert_cmpint (nb_find_peaks (&f, NULL, &peaks, &n, &err), ==, NB_OK);
  g_assert_cmpint (n, ==, 1);
  g_assert_cmpint (peaks[0].fpixel, ==, 20);
  g_assert_cmpint (peaks[0].spixel, ==, 30);
  g_assert_cmpfloat_with_epsilon (peaks[0].background, 1.0, 1e-12);
  g_assert_cmpfloat_with_epsilon (peaks[0].intensity, 100 + 40 + 20 + 20, 1e-9);
  g_assert_cmpfloat_with_epsilon (peaks[0].f, (100 * 20.5 + 40 * 21.5 + 40 * 20.5) / 180.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (peaks[0].s, 30.5, 1e-9);
  free (peaks);

  /* without the pixel-count rule the hot pixel is a peak; the masked gap still is not */
  {
    nb_peak_options opt;

    nb_peak_options_init (&opt);
    opt.min_pixels = 1;
    g_assert_cmpint (nb_find_peaks (&f, &opt, &peaks, &n, &err), ==, NB_OK);
    g_assert_cmpint (n, ==, 2);
    for (int i = 0; i < n; i++)
      g_assert_true (abs (peaks[i].fpixel - 40) > 1);
    free (peaks);
  }
  nb_frame_clear (&f);
}

/* On the real Eiger frame: the strongest 50 peaks, none on or beside a
 * masked (module gap) pixel. */
static void
test_peaks_eiger (void)
{
  nb_frame f;
  nb_error err;
  nb_peak *peaks = NULL;
  int n;

  if (!HAVE_MEASURED_CBF)
    {
      g_test_skip ("this build has no CBFlib");
      return;
    }
  nb_test_read_measured ("dlsnxs2cbf_therm_0001.cbf", &f);
  g_assert_cmpint (nb_find_peaks (&f, NULL, &peaks, &n, &err), ==, NB_OK);
  g_assert_cmpint (n, ==, 50);
  for (int i = 0; i < n; i++)
    {
      for (int ds = -1; ds <= 1; ds++)
        for (int df = -1; df <= 1; df++)
          g_assert_cmpint (
              f.mask[(size_t) (peaks[i].spixel + ds) * f.fpixels + peaks[i].fpixel + df], !=,
              NB_PIXEL_MASKED);
      g_assert_cmpint (peaks[i].pixels, >=, 2);
      if (i > 0)
        g_assert_cmpfloat (peaks[i].intensity, <=, peaks[i - 1].intensity);
    }
  g_test_message ("strongest peak %.1f, %.1f: %.0f counts; 50th: %.0f", peaks[0].f, peaks[0].s,
                  peaks[0].intensity, peaks[n - 1].intensity);
  free (peaks);
  nb_frame_clear (&f);
}

/* Every predicted reflection is where the engine's own pixel query finds
 * its Miller indices, and satisfies the Ewald condition there. */
static void
test_prediction_consistent (void)
{
  nb_params p;
  nb_plan *plan = NULL;
  nb_geometry *g;
  nb_reflection *refl = NULL;
  size_t n;
  nb_error err;
  nb_predict_options opt;

  params_from (&p, "-cell 40 50 60 80 95 100 -default_F 1 -lambda 1.2 -detpixels 300 -pixel 0.1 "
                   "-distance 80 -misset 5 -12 40 -N 20 -mosaic 0.3 -backend cpu -xds");
  nb_predict_options_init (&opt);
  g_assert_cmpint (nb_predict_reflections (&p, &opt, &refl, &n, &err), ==, NB_OK);
  g_test_message ("%zu reflections on a still", n);
  g_assert_cmpuint (n, >, 10);
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  g = nb_plan_ref_geometry (plan);
  for (size_t i = 0; i < n; i++)
    {
      nb_pixel_query q;

      g_assert_true (refl[i].f >= 0 && refl[i].f < 300 && refl[i].s >= 0 && refl[i].s < 300);
      g_assert_cmpint (nb_geometry_query (g, refl[i].f, refl[i].s, &q, &err), ==, NB_OK);
      /* the spot is the lattice point projected onto the sphere: its pixel's indices are
       * whole within the excitation allowed (spot radius 1.43 / (20 x 40 A), 0.35 deg) */
      g_assert_cmpint (q.h, ==, refl[i].h);
      g_assert_cmpint (q.k, ==, refl[i].k);
      g_assert_cmpint (q.l, ==, refl[i].l);
      for (int k = 0; k < 3; k++)
        g_assert_cmpfloat (fabs (q.hkl[k] - (k == 0 ? q.h : k == 1 ? q.k : q.l)), <, 0.2);
      g_assert_cmpfloat_with_epsilon (q.d, refl[i].d, 0.002 * refl[i].d);
    }
  nb_geometry_unref (g);
  nb_plan_destroy (plan);
  free (refl);
  nb_params_clear (&p);
}

/* Refine recovers a known orientation (the test). */
static void
test_refine_recovers (void)
{
  nb_params truth;
  nb_frame frame;
  nb_peak *peaks;
  int n;
  nb_match_result at_truth;
  nb_error err;
  static const double dirs[5][3] = {
    { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 0.57735, -0.57735, 0.57735 }, { -0.70711, 0.70711, 0 },
  };

  simulate_frame (&truth, &frame, NULL);
  peaks = frame_peaks (&frame, &truth, 50, &n);
  g_assert_cmpint (n, ==, 50);
  g_assert_cmpint (nb_match_peaks (&truth, peaks, n, NULL, &at_truth, NULL, &err), ==, NB_OK);
  g_test_message ("at M: %d of %d peaks matched, rms %.3f px", at_truth.n_matched, n,
                  at_truth.rms_distance);
  g_assert_cmpfloat (at_truth.fraction, >=, 0.9);

  for (int t = 0; t < 5; t++)
    {
      nb_params p;
      nb_refine_options opt;
      nb_refine_result res;

      g_assert_cmpint (nb_params_copy (&p, &truth, &err), ==, NB_OK);
      /* 1 deg away: each misset angle moved by the unit direction's share of 1 deg */
      for (int k = 0; k < 3; k++)
        p.misset[k] += dirs[t][k] / RTD;
      nb_refine_options_init (&opt);
      g_assert_cmpint (nb_refine (&p, peaks, n, &opt, &res, &err), ==, NB_OK);
      g_test_message ("start %d: misset %.4f %.4f %.4f deg (M %+.4f %+.4f %+.4f), %d of %d "
                      "matched, rms %.3f px, %d evaluations",
                      t, p.misset[0] * RTD, p.misset[1] * RTD, p.misset[2] * RTD,
                      p.misset[0] * RTD - misset_M[0], p.misset[1] * RTD - misset_M[1],
                      p.misset[2] * RTD - misset_M[2], res.score.n_matched, n,
                      res.score.rms_distance, res.evaluations);
      for (int k = 0; k < 3; k++)
        g_assert_cmpfloat (fabs (p.misset[k] * RTD - misset_M[k]), <, 0.05);
      g_assert_cmpint (res.score.n_matched, >=, at_truth.n_matched);
      nb_params_clear (&p);
    }
  free (peaks);
  nb_frame_clear (&frame);
  nb_params_clear (&truth);
}

/* The orientation search finds M (up to the lattice's symmetry) from no
 * orientation at all, on the grid and through the lattice rows. */
static void
test_search_finds (void)
{
  nb_params truth, p;
  nb_frame frame;
  nb_peak *peaks;
  int n;
  nb_search_options opt;
  nb_search_result res;
  nb_match_result at_truth;
  nb_error err;

  simulate_frame (&truth, &frame, NULL);
  peaks = frame_peaks (&frame, &truth, 50, &n);
  g_assert_cmpint (nb_match_peaks (&truth, peaks, n, NULL, &at_truth, NULL, &err), ==, NB_OK);
  g_assert_cmpint (nb_params_copy (&p, &truth, &err), ==, NB_OK);
  p.misset[0] = p.misset[1] = p.misset[2] = 0;
  nb_search_options_init (&opt);
  opt.step = 3.0 / RTD;
  opt.candidates = 4;
  g_assert_cmpint (nb_orientation_search (&p, peaks, n, &opt, &res, &err), ==, NB_OK);
  g_test_message ("search: %ld grid points, %d informative peaks, best candidate %d; misset %.3f "
                  "%.3f %.3f, %d of %d matched (at M: %d), %.2f s + %.2f s",
                  res.grid_points, res.informative, res.grid_best, p.misset[0] * RTD,
                  p.misset[1] * RTD, p.misset[2] * RTD, res.score.n_matched, n, at_truth.n_matched,
                  res.grid_seconds, res.refine_seconds);
  g_assert_cmpint (res.score.n_matched, >=, at_truth.n_matched - 1);
  nb_params_clear (&p);

  /* cancelled before it starts: NB_ERR_CANCELLED, the parameters untouched */
  {
    volatile int stop = 1;

    g_assert_cmpint (nb_params_copy (&p, &truth, &err), ==, NB_OK);
    p.misset[0] = 1.0;
    opt.refine.cancel = &stop;
    g_assert_cmpint (nb_orientation_search (&p, peaks, n, &opt, &res, &err), ==, NB_ERR_CANCELLED);
    g_assert_cmpfloat (p.misset[0], ==, 1.0);
    nb_params_clear (&p);
  }
  free (peaks);
  nb_frame_clear (&frame);
  nb_params_clear (&truth);
}

/* The simulation against its own noisy frame correlates in every shell;
 * against a frame of another orientation, far less. */
static void
test_shells (void)
{
  nb_params p;
  nb_frame frame;
  float *image;
  nb_plan *plan = NULL;
  nb_match_result res, other;
  nb_error err;

  simulate_frame (&p, &frame, &image);
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  g_assert_cmpint (nb_match_frame (plan, image, &frame, NULL, 0, NULL, &res, &err), ==, NB_OK);
  g_test_message ("overall CC %.4f", res.cc);
  g_assert_cmpint (res.n_shells, ==, 10);
  g_assert_cmpfloat (res.cc, >, 0.95);
  for (int j = 0; j < res.n_shells; j++)
    {
      g_test_message ("shell %d: %.2f-%.2f A, %ld pixels, CC %.4f", j, res.shell_d_max[j],
                      res.shell_d_min[j], res.shell_pixels[j], res.shell_cc[j]);
      g_assert_cmpfloat (res.shell_d_min[j], <, res.shell_d_max[j]);
      g_assert_cmpfloat (res.shell_cc[j], >, 0.8);
    }
  nb_plan_destroy (plan);
  nb_params_clear (&p);
  {
    /* the same crystal 5 degrees away */
    g_autofree char *hkl = g_build_filename (g_getenv ("NB_DATA_DIR"), "1hpv_p1.hkl", NULL);
    g_autofree char *cmd = g_strdup_printf ("%s -hkl %s -misset 15 20 30", SCENE, hkl);
    float *moved = g_new (float, 256 * 256);

    params_from (&p, cmd);
    g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
    g_assert_cmpint (nb_plan_execute (plan, moved, NULL, &err), ==, NB_OK);
    g_assert_cmpint (
        nb_shell_correlation (nb_plan_get_info (plan), moved, &frame, 10, &other, &err), ==, NB_OK);
    g_test_message ("another orientation: CC %.4f", other.cc);
    g_assert_cmpfloat (other.cc, <, 0.5);
    nb_plan_destroy (plan);
    nb_params_clear (&p);
    g_free (moved);
  }
  {
    /* sizes that differ are refused */
    nb_frame small;

    g_assert_cmpint (nb_frame_alloc (&small, 10, 10, NULL, &err), ==, NB_OK);
    params_from (&p, SCENE " -default_F 1");
    g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
    g_assert_cmpint (
        nb_shell_correlation (nb_plan_get_info (plan), image, &small, 10, &other, &err), ==,
        NB_ERR_INVALID);
    g_assert_nonnull (strstr (err.message, "256 x 256"));
    nb_plan_destroy (plan);
    nb_params_clear (&p);
    nb_frame_clear (&small);
  }
  g_free (image);
  nb_frame_clear (&frame);
}

/* ------------------------------------------------------------------------ */
/* Against chance                                                            */

/* The binomial tail against its sum written out, at the extremes, and where
 * it underflows a double. */
static void
test_binomial (void)
{
  double direct = 0, last = 0;

  /* P(X >= 3 | 10, 0.2) */
  for (int j = 3; j <= 10; j++)
    {
      double c = 1;

      for (int i = 1; i <= j; i++)
        c *= (double) (10 - j + i) / i;
      direct += c * pow (0.2, j) * pow (0.8, 10 - j);
    }
  g_assert_cmpfloat_with_epsilon (nb_binomial_log10_tail (3, 10, 0.2), log10 (direct), 1e-12);
  g_assert_cmpfloat (nb_binomial_log10_tail (0, 10, 0.2), ==, 0.0);
  g_assert_cmpfloat (nb_binomial_log10_tail (11, 10, 0.2), ==, -INFINITY);
  g_assert_cmpfloat (nb_binomial_log10_tail (1, 10, 0.0), ==, -INFINITY);
  g_assert_cmpfloat (nb_binomial_log10_tail (10, 10, 1.0), ==, 0.0);
  /* the whole tail from below the mean is nearly 1 */
  g_assert_cmpfloat (nb_binomial_log10_tail (100, 1000, 0.3), >, -1e-12);
  /* three standard deviations above the mean: the normal tail (0.00135), roughly */
  g_assert_cmpfloat (fabs (nb_binomial_log10_tail (662, 2000, 0.3) - log10 (0.00135)), <, 0.15);
  /* all of 5000 at p0 0.1: 5000 log10 0.1 */
  g_assert_cmpfloat_with_epsilon (nb_binomial_log10_tail (5000, 5000, 0.1), -5000.0, 1e-9);
  /* finite and decreasing far beyond a double's range */
  for (int k = 2000; k <= 5000; k += 500)
    {
      double t = nb_binomial_log10_tail (k, 5000, 0.1);

      g_assert_true (isfinite (t));
      if (k > 2000)
        g_assert_cmpfloat (t, <, last);
      last = t;
    }
}

/* The chance scene: a still of a small cell with wide spots (N 1: a point
 * diffracts far off the sphere), dense predictions; its frame has a masked
 * block. */
#define CHANCE_SCENE                                                                               \
  "-cell 30 34 40 90 95 90 -misset 5 10 15 -lambda 1 -detpixels 200 -pixel 0.1 -distance 40 "      \
  "-default_F 1 -backend cpu"

static void
chance_frame (nb_frame *f)
{
  nb_error err;

  g_assert_cmpint (nb_frame_alloc (f, 200, 200, "chance", &err), ==, NB_OK);
  for (int s = 30; s < 70; s++)
    for (int x = 120; x < 180; x++)
      f->mask[s * 200 + x] = NB_PIXEL_MASKED;
}

/* The chance fraction is the matcher's own: counted pixel by pixel against
 * the predicted list (nb_predict_reflections, anywhere on the plane) and
 * the geometry's resolution of each pixel centre, it is the same. */
static void
test_chance_exact (void)
{
  nb_params p;
  nb_frame f;
  nb_error err;
  nb_match_options mo;
  nb_match_result res;
  nb_predict_options po;
  nb_reflection *refl = NULL;
  size_t n_refl;
  nb_plan *plan = NULL;
  nb_geometry *g;
  nb_peak peaks[2] = { { .f = 101.3, .s = 140.7 }, { .f = 15.2, .s = 190.1 } };
  double d_max, d_min;
  long area = 0, hit = 0;

  params_from (&p, CHANCE_SCENE);
  chance_frame (&f);
  nb_match_options_init (&mo);
  mo.frame = &f;
  memset (&res, 0, sizeof res);
  res.n_peaks = 2;
  g_assert_cmpint (nb_match_chance (&p, peaks, 2, &mo, &res, &err), ==, NB_OK);
  g_assert_cmpint (nb_peaks_resolution_range (&p, peaks, 2, &d_max, &d_min, &err), ==, NB_OK);
  g_assert_cmpfloat_with_epsilon (res.chance_d_max, d_max, 1e-9 * d_max);
  g_assert_cmpfloat_with_epsilon (res.chance_d_min, d_min, 1e-9 * d_min);

  nb_predict_options_init (&po);
  po.on_detector = 0;
  g_assert_cmpint (nb_predict_reflections (&p, &po, &refl, &n_refl, &err), ==, NB_OK);
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  g = nb_plan_ref_geometry (plan);
  for (int s = 0; s < 200; s++)
    for (int x = 0; x < 200; x++)
      {
        nb_pixel_query q;
        int covered = 0;

        if (f.mask[s * 200 + x] == NB_PIXEL_MASKED)
          continue;
        g_assert_cmpint (nb_geometry_query (g, x + 0.5, s + 0.5, &q, &err), ==, NB_OK);
        if (q.d > d_max * (1 + 1e-9) || q.d < d_min * (1 - 1e-9))
          continue;
        area++;
        for (size_t i = 0; i < n_refl && !covered; i++)
          covered = hypot (refl[i].f - (x + 0.5), refl[i].s - (s + 0.5)) <= mo.radius;
        hit += covered;
      }
  g_test_message ("%zu reflections predicted; area %ld pixels (the engine's %ld), %ld covered: "
                  "%.4f (the engine's %.4f)",
                  n_refl, area, res.chance_pixels, hit, (double) hit / area, res.chance_fraction);
  g_assert_cmpint (labs (area - res.chance_pixels), <=, 2);
  g_assert_cmpfloat (fabs ((double) hit / area - res.chance_fraction), <, 0.002);
  g_assert_cmpfloat (res.chance_fraction, >, 0.1);
  nb_geometry_unref (g);
  nb_plan_destroy (plan);
  free (refl);
  nb_frame_clear (&f);
  nb_params_clear (&p);
}

/* Peaks at random places score their chance fraction (within 4 standard
 * deviations), and are no match. */
static void
test_chance_random_peaks (void)
{
  enum
  {
    N = 3000
  };
  g_autoptr (GRand) rng = g_rand_new_with_seed (2025);
  nb_params p;
  nb_frame f;
  nb_error err;
  nb_match_options mo;
  nb_match_result res;
  nb_peak *peaks = g_new0 (nb_peak, N);
  double sigma;

  params_from (&p, CHANCE_SCENE);
  chance_frame (&f);
  for (int i = 0; i < N;)
    {
      double x = g_rand_double_range (rng, 0, 200), y = g_rand_double_range (rng, 0, 200);

      if (f.mask[(int) y * 200 + (int) x] == NB_PIXEL_MASKED)
        continue;
      peaks[i].f = x;
      peaks[i].s = y;
      i++;
    }
  nb_match_options_init (&mo);
  mo.frame = &f;
  g_assert_cmpint (nb_match_peaks (&p, peaks, N, &mo, &res, NULL, &err), ==, NB_OK);
  sigma = sqrt (res.chance_fraction * (1 - res.chance_fraction) / N);
  g_test_message ("%d random peaks: %d matched (%.4f), chance fraction %.4f +- %.4f, %ld "
                  "predicted, p %.3g",
                  N, res.n_matched, res.fraction, res.chance_fraction, sigma, res.n_predicted,
                  res.p_value);
  g_assert_cmpfloat (res.chance_fraction, >, 0.1);
  g_assert_cmpfloat (fabs (res.fraction - res.chance_fraction), <, 4 * sigma);
  g_assert_false (res.significant);
  g_free (peaks);
  nb_frame_clear (&f);
  nb_params_clear (&p);
}

/* A measured frame's header geometry in @p, then @flags. */
static void
params_for_frame (nb_params *p, const nb_frame *f, const char *flags)
{
  g_autofree char *full = g_strconcat ("nanobragg ", flags, NULL);
  g_auto (GStrv) argv = NULL;
  int argc = 0;
  nb_error err;

  g_assert_true (g_shell_parse_argv (full, &argc, &argv, NULL));
  nb_params_init (p);
  g_assert_cmpint (nb_frame_apply_geometry (f, p, NULL, &err), ==, NB_OK);
  if (nb_params_parse_argv (p, argc, (const char *const *) argv, &err) != NB_OK)
    g_error ("'%s': %s", flags, err.message);
}

/* Refines the cell of @flags against the 50 strongest peaks of @f (within
 * 100 A) from its misset; the score in @res. */
static void
refine_on (const nb_frame *f, const char *flags, nb_match_result *res)
{
  nb_params p;
  nb_peak *peaks;
  int n;
  nb_refine_options ro;
  nb_refine_result rr;
  nb_error err;

  params_for_frame (&p, f, flags);
  peaks = frame_peaks (f, &p, 50, &n);
  nb_refine_options_init (&ro);
  ro.match.frame = f;
  g_assert_cmpint (nb_refine (&p, peaks, n, &ro, &rr, &err), ==, NB_OK);
  *res = rr.score;
  g_test_message ("%s: %d of %d (%.0f %%), chance %.1f %% (%ld predicted, %.2f to %.2f A), p "
                  "%.3g x %.3g trials: %s",
                  flags, res->n_matched, res->n_peaks, 100 * res->fraction,
                  100 * res->chance_fraction, res->n_predicted, res->chance_d_max,
                  res->chance_d_min, res->p_value, res->trials,
                  res->significant ? "a match" : "no better than chance");
  free (peaks);
  nb_params_clear (&p);
}

/* The cells on the simulated frame of dense predictions: each
 * "matched" 28 to 64 % of the peaks, none is a match. */
static void
test_chance_wrong_cells (void)
{
  static const char *const cells[] = { "-cell 50 50 50 90 90 90", "-cell 31 47 73 90 90 90",
                                       "-cell 100 100 100 90 90 90" };
  nb_frame f;

  nb_test_read_measured ("simtbx_FormatSMVJHSim_001.img", &f);
  for (gsize i = 0; i < G_N_ELEMENTS (cells); i++)
    {
      nb_match_result res;

      refine_on (&f, cells[i], &res);
      g_assert_cmpfloat (res.fraction, >, 0.2);
      g_assert_cmpfloat (res.chance_fraction, >, 0.1);
      g_assert_false (res.significant);
    }
  nb_frame_clear (&f);
}

/* Thaumatin on the I03 frame from a degree off its orientation: a match,
 * far beyond chance; 1HPV's cell there is not. */
static void
test_chance_right_cell (void)
{
  nb_frame f;
  nb_match_result res;

  if (!HAVE_MEASURED_CBF)
    {
      g_test_skip ("this build has no CBFlib");
      return;
    }
  nb_test_read_measured ("DLS_I03_smargon_0001.cbf", &f);
  refine_on (&f, "-cell 57.8 57.8 150.2 90 90 90 -N 1000 -mosaic 0.1 -misset 23.6 2.7 22.5", &res);
  g_assert_true (res.significant);
  g_assert_cmpint (res.n_matched, >=, 20);
  g_assert_cmpfloat (res.log10_p, <, -20);
  g_assert_cmpfloat (res.chance_fraction, <, 0.05);
  refine_on (&f, "-cell 63.4 63.4 83.8 90 90 120 -N 1000 -mosaic 0.1 -misset 23.6 2.7 22.5", &res);
  g_assert_false (res.significant);
  nb_frame_clear (&f);
}

/* The beam stop's shadow on the I03 frame: its edge's diffuse crescent
 * gave 20 of the 50 strongest peaks within 45 pixels of the beam; none now,
 * and the strong spot 114 pixels from it stays. */
static void
test_peaks_beamstop (void)
{
  nb_frame f;
  nb_peak *peaks = NULL;
  nb_error err;
  int n, kept = 0;
  double px, bf, bs;

  if (!HAVE_MEASURED_CBF)
    {
      g_test_skip ("this build has no CBFlib");
      return;
    }
  nb_test_read_measured ("DLS_I03_smargon_0001.cbf", &f);
  px = f.item[NB_FRAME_PIXEL_SIZE].value;
  bf = f.item[NB_FRAME_BEAM_F].value / px;
  bs = f.item[NB_FRAME_BEAM_S].value / px;
  g_assert_cmpint (nb_find_peaks (&f, NULL, &peaks, &n, &err), ==, NB_OK);
  g_assert_cmpint (n, ==, 50);
  for (int i = 0; i < n; i++)
    {
      double r = hypot (peaks[i].f - bf, peaks[i].s - bs);

      g_assert_cmpfloat (r, >, 45);
      kept += fabs (peaks[i].f - 1303.5) < 1 && fabs (peaks[i].s - 1288.6) < 1;
    }
  g_assert_cmpint (kept, ==, 1);
  free (peaks);
  nb_frame_clear (&f);
}

/* The shells of a one-panel plan as they were computed before the shells
 * followed several panels (issue 29), kept here as the reference: the
 * engine's must equal them to the bit. */
static void
reference_shells (const nb_plan_info *info,
                  const float *image,
                  const nb_frame *frame,
                  int n_shells,
                  nb_match_result *res)
{
  double s0[3], k, lo = INFINITY, hi = 0, v_lo, v_hi;
  double sx[NB_MAX_SHELLS + 1] = { 0 }, sy[NB_MAX_SHELLS + 1] = { 0 },
                            sxx[NB_MAX_SHELLS + 1] = { 0 }, syy[NB_MAX_SHELLS + 1] = { 0 },
                            sxy[NB_MAX_SHELLS + 1] = { 0 };
  long cnt[NB_MAX_SHELLS + 1] = { 0 };
  int W = info->fpixels, H = info->spixels;
  float *res_map = g_new (float, (size_t) W *H);
  double len = sqrt (info->beam[0] * info->beam[0] + info->beam[1] * info->beam[1] +
                     info->beam[2] * info->beam[2]);

  for (int i = 0; i < 3; i++)
    s0[i] = info->beam[i] / len;
  k = 1.0 / (info->lambda0 * 1e10);
  for (int s = 0; s < H; s++)
    for (int f = 0; f < W; f++)
      {
        double pos[3], dir[3], x[3], q, l;

        for (int i = 0; i < 3; i++)
          pos[i] = info->pix0[i] + (f + 0.5) * info->pixel_size * info->fdet[i] +
                   (s + 0.5) * info->pixel_size * info->sdet[i];
        l = sqrt (pos[0] * pos[0] + pos[1] * pos[1] + pos[2] * pos[2]);
        for (int i = 0; i < 3; i++)
          dir[i] = pos[i] / l;
        for (int i = 0; i < 3; i++)
          x[i] = k * (dir[i] - s0[i]);
        q = sqrt (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        res_map[(size_t) s * W + f] = (float) q;
        if (frame->mask[(size_t) s * W + f] == NB_PIXEL_VALID)
          {
            if (q < lo)
              lo = q;
            if (q > hi)
              hi = q;
          }
      }
  res->n_shells = n_shells;
  v_lo = lo * lo * lo;
  v_hi = hi * hi * hi;
  for (size_t i = 0; i < (size_t) W * (size_t) H; i++)
    {
      double q, xv, yv;
      int j;

      if (frame->mask[i] != NB_PIXEL_VALID)
        continue;
      q = res_map[i];
      j = (int) ((q * q * q - v_lo) / (v_hi - v_lo) * n_shells);
      j = j < 0 ? 0 : j >= n_shells ? n_shells - 1 : j;
      xv = image[i];
      yv = frame->counts[i];
      for (int t = 0; t < 2; t++)
        {
          int at = t ? NB_MAX_SHELLS : j;

          sx[at] += xv;
          sy[at] += yv;
          sxx[at] += xv * xv;
          syy[at] += yv * yv;
          sxy[at] += xv * yv;
          cnt[at]++;
        }
    }
  for (int j = 0; j <= n_shells; j++)
    {
      int at = j == n_shells ? NB_MAX_SHELLS : j;
      double nn = cnt[at], cov, vx, vy, cc = NAN;

      if (nn >= 3)
        {
          cov = sxy[at] - sx[at] * sy[at] / nn;
          vx = sxx[at] - sx[at] * sx[at] / nn;
          vy = syy[at] - sy[at] * sy[at] / nn;
          if (vx > 0 && vy > 0)
            cc = cov / sqrt (vx * vy);
        }
      if (j == n_shells)
        res->cc = cc;
      else
        {
          double a = cbrt (v_lo + (v_hi - v_lo) * j / n_shells);
          double b = cbrt (v_lo + (v_hi - v_lo) * (j + 1) / n_shells);

          res->shell_cc[j] = cc;
          res->shell_pixels[j] = cnt[at];
          res->shell_d_max[j] = a > 0 ? 1.0 / a : INFINITY;
          res->shell_d_min[j] = 1.0 / b;
        }
    }
  g_free (res_map);
}

/* A one-panel plan's shells are what they were, to the bit (a frame with
 * masked and overloaded pixels, a detector turned off the beam). */
static void
test_shells_one_panel_unchanged (void)
{
  nb_params p;
  nb_frame frame;
  float *image;
  nb_plan *plan = NULL;
  nb_match_result got, ref;
  nb_error err;
  nb_status st;

  simulate_frame (&p, &frame, &image);
  for (int s = 100; s < 120; s++)
    for (int f = 0; f < 256; f++)
      frame.mask[(size_t) s * 256 + f] = NB_PIXEL_MASKED;
  frame.mask[5 * 256 + 7] = NB_PIXEL_OVERLOAD;
  p.rotx = 0.05;
  p.roty = -0.03;
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  g_assert_cmpint (nb_plan_execute (plan, image, NULL, &err), ==, NB_OK);
  for (int n_shells = 1; n_shells <= NB_MAX_SHELLS; n_shells += 31)
    {
      memset (&got, 0, sizeof got);
      memset (&ref, 0, sizeof ref);
      st = nb_shell_correlation (nb_plan_get_info (plan), image, &frame, n_shells, &got, &err);
      g_assert_cmpint (st, ==, NB_OK);
      reference_shells (nb_plan_get_info (plan), image, &frame, n_shells, &ref);
      g_assert_cmpmem (&got, sizeof got, &ref, sizeof ref);
    }
  memset (&got, 0, sizeof got);
  memset (&ref, 0, sizeof ref);
  g_assert_cmpint (nb_match_frame (plan, image, &frame, NULL, 0, NULL, &got, &err), ==, NB_OK);
  reference_shells (nb_plan_get_info (plan), image, &frame, 10, &ref);
  g_test_message ("one panel: CC %.17g over all, the reference's %.17g", got.cc, ref.cc);
  g_assert_cmpint (got.n_shells, ==, 10);
  g_assert_cmpmem (got.shell_d_max, 10 * sizeof got.shell_d_max[0], ref.shell_d_max,
                   10 * sizeof ref.shell_d_max[0]);
  g_assert_cmpmem (got.shell_d_min, 10 * sizeof got.shell_d_min[0], ref.shell_d_min,
                   10 * sizeof ref.shell_d_min[0]);
  g_assert_cmpmem (got.shell_cc, 10 * sizeof got.shell_cc[0], ref.shell_cc,
                   10 * sizeof ref.shell_cc[0]);
  g_assert_cmpmem (got.shell_pixels, 10 * sizeof got.shell_pixels[0], ref.shell_pixels,
                   10 * sizeof ref.shell_pixels[0]);
  g_assert_cmpmem (&got.cc, sizeof got.cc, &ref.cc, sizeof ref.cc);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
  nb_frame_clear (&frame);
  g_free (image);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/match/peaks/synthetic", test_peaks_synthetic);
  g_test_add_func ("/match/peaks/eiger", test_peaks_eiger);
  g_test_add_func ("/match/predict/consistent", test_prediction_consistent);
  g_test_add_func ("/match/refine/recovers-misset", test_refine_recovers);
  g_test_add_func ("/match/search/finds-orientation", test_search_finds);
  g_test_add_func ("/match/shells", test_shells);
  g_test_add_func ("/match/shells/one-panel-unchanged", test_shells_one_panel_unchanged);
  g_test_add_func ("/match/peaks/beamstop", test_peaks_beamstop);
  g_test_add_func ("/match/chance/binomial", test_binomial);
  g_test_add_func ("/match/chance/exact", test_chance_exact);
  g_test_add_func ("/match/chance/random-peaks", test_chance_random_peaks);
  g_test_add_func ("/match/chance/wrong-cells", test_chance_wrong_cells);
  g_test_add_func ("/match/chance/right-cell", test_chance_right_cell);
  return g_test_run ();
}
