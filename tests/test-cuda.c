/* test-cuda.c: the CUDA backend against the CPU's fast kernel.
 *
 * Every scene is rendered by a -backend cpu plan and a -backend cuda plan of
 * the same precision and compared pixel by pixel.  The GPU kernels use the
 * CPU kernels' physics header and arithmetic (no FMA contraction), so most
 * pixels agree to the bit; exp, sin and cos of the CUDA library may differ
 * from glibc's in the last place, hence a tolerance relative to the image's
 * maximum (single 2e-5, double 1e-10).
 *
 * Without a device (or in a build without CUDA) the tests that need one are
 * skipped with the reason, and what must hold without one is tested: auto
 * falls back to the CPU with its log line, cuda is NB_ERR_UNSUPPORTED.
 *
 * The golden parity suite runs through the GPU with
 *   NB_PARITY_EXTRA="-backend cuda" meson test -C BUILD --suite parity
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nanobragg.h"
#include "nb-detector.h"
#include "kernels/nb-backend.h"

#define BASE                                                                                       \
  "-default_F 100 -cell 100 100 100 90 90 90 -lambda 1.0 -N 5 -distance 100 -detpixels 128 "       \
  "-pixel 0.2 "

static struct
{
  int have_device;
  char why[256];
  char *tmpdir;
  char *mask_path;
  const char *data_dir;
  const char *src_dir; /* tests/ */
} fx;

/* Skips the current test (with the reason) when there is no device. */
#define REQUIRE_DEVICE()                                                                           \
  do                                                                                               \
    {                                                                                              \
      if (!fx.have_device)                                                                         \
        {                                                                                          \
          g_autofree char *msg_ = g_strdup_printf ("no CUDA device: %s", fx.why);                  \
          g_test_skip (msg_);                                                                      \
          return;                                                                                  \
        }                                                                                          \
    }                                                                                              \
  while (0)

/* The command line with @MASK@ and @DATA@ replaced. */
static char *
expand (const char *cmdline)
{
  GString *s = g_string_new (cmdline);

  g_string_replace (s, "@MASK@", fx.mask_path, 0);
  g_string_replace (s, "@DATA@", fx.data_dir, 0);
  return g_string_free (s, FALSE);
}

static void
parse (const char *cmdline, nb_params *p)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *expanded = expand (cmdline);
  g_autofree char *full = g_strconcat ("nanobragg ", expanded, NULL);
  g_auto (GStrv) argv = NULL;
  int argc = 0;
  nb_error err = { 0 };

  g_assert_true (g_shell_parse_argv (full, &argc, &argv, &error));
  nb_params_init (p);
  if (nb_params_parse_argv (p, argc, (const char *const *) argv, &err) != NB_OK)
    g_error ("'%s': %s", cmdline, err.message);
}

/* A plan of @cmdline on @backend in @precision; any error aborts the test. */
static nb_plan *
plan_on (const char *cmdline, nb_backend backend, nb_precision precision)
{
  nb_params p;
  nb_plan *plan = NULL;
  nb_error err = { 0 };

  parse (cmdline, &p);
  p.backend = backend;
  p.precision = precision;
  if (nb_plan_create (&p, &plan, &err) != NB_OK)
    g_error ("'%s': %s", cmdline, err.message);
  nb_params_clear (&p);
  return plan;
}

static float *
execute (nb_plan *plan, int stride)
{
  const nb_plan_info *in = nb_plan_get_info (plan);
  float *image = g_new (float, (size_t) in->fpixels * in->spixels);
  nb_exec_options opts = { 0 };
  nb_error err = { 0 };

  /* poison: every pixel must be written, also outside the ROI */
  memset (image, 0xff, (size_t) in->fpixels * in->spixels * sizeof (float));
  opts.preview_stride = stride;
  if (nb_plan_execute (plan, image, &opts, &err) != NB_OK)
    g_error ("execute: %s", err.message);
  return image;
}

/* |got - want| <= rel * max |want| everywhere; both finite. */
static void
assert_close (const float *got, const float *want, size_t n, double rel, const char *what)
{
  double max_want = 0.0, max_diff = 0.0;
  size_t differ = 0, worst = 0;

  for (size_t i = 0; i < n; i++)
    {
      double d = fabs ((double) got[i] - (double) want[i]);

      if (!isfinite (got[i]) || !isfinite (want[i]))
        g_error ("%s: pixel %zu is %g (CPU %g)", what, i, got[i], want[i]);
      if (fabs (want[i]) > max_want)
        max_want = fabs (want[i]);
      if (memcmp (&got[i], &want[i], sizeof (float)) != 0)
        differ++;
      if (d > max_diff)
        {
          max_diff = d;
          worst = i;
        }
    }
  g_test_message ("%s: %zu of %zu pixels differ from the CPU's; max |diff| %g (pixel %zu) of "
                  "max %g",
                  what, differ, n, max_diff, worst, max_want);
  g_assert_cmpfloat (max_want, >, 0.0);
  if (max_diff > rel * max_want)
    g_error ("%s: pixel %zu: GPU %.9g, CPU %.9g (|diff| %g > %g x max %g)", what, worst, got[worst],
             want[worst], max_diff, rel, max_want);
}

static double
tolerance (nb_precision precision)
{
  return precision == NB_PRECISION_SINGLE ? 2e-5 : 1e-10;
}

/* ------------------------------------------------------------------------- */
/* Without a device too */

static void
test_parse (void)
{
  static const struct
  {
    const char *value;
    nb_backend want;
  } cases[] = { { "auto", NB_BACKEND_AUTO },
                { "cpu", NB_BACKEND_CPU },
                { "cuda", NB_BACKEND_CUDA } };
  nb_params p;
  nb_error err = { 0 };

  nb_params_init (&p);
  g_assert_cmpint (p.backend, ==, NB_BACKEND_AUTO);
  nb_params_clear (&p);
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *argv[] = { "nanobragg", "-backend", cases[i].value, NULL };

      nb_params_init (&p);
      g_assert_cmpint (nb_params_parse_argv (&p, 3, argv, &err), ==, NB_OK);
      g_assert_cmpint (p.backend, ==, cases[i].want);
      nb_params_clear (&p);
    }
  {
    const char *argv[] = { "nanobragg", "-backend", "opencl", NULL };

    nb_params_init (&p);
    g_assert_cmpint (nb_params_parse_argv (&p, 3, argv, &err), ==, NB_ERR_UNSUPPORTED);
    g_assert_nonnull (strstr (err.message, "opencl"));
    nb_params_clear (&p);
  }
}

/* auto without a device: the CPU, one line saying why; cuda: a clear error. */
static void
test_no_device (void)
{
  nb_params p;
  nb_plan *plan = NULL;
  nb_error err = { 0 };
  g_autofree char *line = NULL;

  if (fx.have_device)
    {
      g_test_skip ("a CUDA device is present");
      return;
    }
  parse (BASE, &p);
  p.backend = NB_BACKEND_CUDA;
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_ERR_UNSUPPORTED);
  g_assert_null (plan);
  g_assert_nonnull (strstr (err.message, "-backend cuda"));
  g_assert_nonnull (strstr (err.message, fx.why));

  p.backend = NB_BACKEND_AUTO;
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  g_assert_cmpstr (nb_plan_get_backend (plan), ==, "cpu");
  line = g_strdup_printf ("backend auto: %s; running on the CPU\n", fx.why);
  g_assert_nonnull (strstr (nb_plan_get_log (plan), line));
  /* ... and only one */
  g_assert_null (strstr (strstr (nb_plan_get_log (plan), line) + 1, "backend auto:"));
  {
    g_autofree float *img = execute (plan, 0);
    nb_plan *cpu = plan_on (BASE, NB_BACKEND_CPU, NB_PRECISION_DOUBLE);
    g_autofree float *ref = execute (cpu, 0);
    const nb_plan_info *in = nb_plan_get_info (plan);

    g_assert_true (memcmp (img, ref, (size_t) in->fpixels * in->spixels * sizeof (float)) == 0);
    nb_plan_destroy (cpu);
  }

  /* an update to cuda fails and keeps the plan */
  p.backend = NB_BACKEND_CUDA;
  g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_ERR_UNSUPPORTED);
  g_assert_cmpint (nb_plan_get_params (plan)->backend, ==, NB_BACKEND_AUTO);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
}

/* NB_BACKEND=cpu keeps auto on the CPU (test environments on GPU machines). */
static void
test_env_cpu (void)
{
  nb_plan *plan;

  g_setenv ("NB_BACKEND", "cpu", TRUE);
  plan = plan_on (BASE, NB_BACKEND_AUTO, NB_PRECISION_SINGLE);
  g_unsetenv ("NB_BACKEND");
  g_assert_cmpstr (nb_plan_get_backend (plan), ==, "cpu");
  g_assert_nonnull (
      strstr (nb_plan_get_log (plan), "backend auto: NB_BACKEND=cpu; running on the CPU\n"));
  nb_plan_destroy (plan);
}

/* -backend auto's estimate: a small image stays on the CPU without asking the
 * driver, saying why; one whose work dwarfs the GPU's start-up goes to the GPU
 * where there is one, else says why not.  Runs before any test that starts
 * the CUDA context (after which auto counts the start-up as paid). */
static void
test_auto_estimate (void)
{
  nb_plan *plan;
  char why[256];
  const char *log;

  if (!nb_cuda_device_available (why, sizeof why) && strstr (why, "no CUDA backend") != NULL)
    {
      g_test_skip ("this build has no CUDA backend");
      return;
    }
  plan = plan_on (BASE, NB_BACKEND_AUTO, NB_PRECISION_SINGLE);
  log = nb_plan_get_log (plan);
  g_assert_cmpstr (nb_plan_get_backend (plan), ==, "cpu");
  g_assert_nonnull (strstr (log, "backend auto: one image is about "));
  g_assert_nonnull (strstr (log, "less than the GPU's start-up of about 300 ms; running on the "
                                 "CPU\n"));
  nb_plan_destroy (plan);

  /* 128^2 pixels x 100^2 sub-pixels x 1000 domains: 1.6e11 samples */
  plan = plan_on (BASE "-oversample 100 -mosaic 0.1 -mosaic_domains 1000", NB_BACKEND_AUTO,
                  NB_PRECISION_SINGLE);
  log = nb_plan_get_log (plan);
  g_assert_null (strstr (log, "backend auto: one image is about "));
  if (fx.have_device)
    {
      g_assert_cmpstr (nb_plan_get_backend (plan), ==, "cuda");
      g_assert_nonnull (strstr (log, "backend auto: CUDA on "));
    }
  else
    {
      g_autofree char *line = g_strdup_printf ("backend auto: %s; running on the CPU\n", fx.why);

      g_assert_cmpstr (nb_plan_get_backend (plan), ==, "cpu");
      g_assert_nonnull (strstr (log, line));
    }
  nb_plan_destroy (plan);
}

/* The statistics a caller asks execute for, and the timing of its last full
 * image, on the CPU: the statistics are nb_exec_stats_compute()'s, a
 * preview's without a window; the timing counts full images only. */
static void
test_exec_stats_timing (void)
{
  nb_plan *plan = plan_on (BASE "-roi 10 100 20 90", NB_BACKEND_CPU, NB_PRECISION_SINGLE);
  const nb_plan_info *in = nb_plan_get_info (plan);
  const size_t n = (size_t) in->fpixels * in->spixels;
  g_autofree float *image = g_new (float, n);
  nb_exec_options opts = { 0 };
  nb_exec_stats got = { 0 }, want = { 0 };
  nb_plan_timing t0, t1;
  nb_error err = { 0 };

  nb_plan_get_timing (plan, &t0);
  g_assert_cmpfloat (t0.execute_ms, ==, 0.0);
  got.window = want.window = 1;
  got.low_percentile = want.low_percentile = 1.0;
  got.high_percentile = want.high_percentile = 99.5;
  opts.stats = &got;
  g_assert_cmpint (nb_plan_execute (plan, image, &opts, &err), ==, NB_OK);
  nb_exec_stats_compute (image, n, &want);
  g_assert_true (got.valid && got.has_window);
  g_assert_cmpuint (got.finite, ==, n);
  g_assert_cmpfloat (got.max, ==, want.max);
  g_assert_cmpfloat (got.max, >, 0.0f);
  g_assert_cmpfloat (got.low, ==, want.low);
  g_assert_cmpfloat (got.high, ==, want.high);
  nb_plan_get_timing (plan, &t0);
  g_assert_cmpfloat (t0.execute_ms, >, 0.0);
  g_assert_cmpfloat (t0.kernel_ms, ==, 0.0);
  g_assert_false (t0.on_gpu);

  opts.preview_stride = 4;
  g_assert_cmpint (nb_plan_execute (plan, image, &opts, &err), ==, NB_OK);
  want.window = 0;
  nb_exec_stats_compute (image, n, &want);
  g_assert_true (got.valid);
  g_assert_false (got.has_window);
  g_assert_cmpint (got.window, ==, 1); /* the request is left as it was */
  g_assert_cmpfloat (got.max, ==, want.max);
  nb_plan_get_timing (plan, &t1);
  g_assert_cmpfloat (t1.execute_ms, ==, t0.execute_ms);

  /* images for the GPU (page-locked where there is one) work on any plan and
   * are freed by nb_image_free (the sanitizer builds check which free) */
  for (int pinned = 0; pinned < 2; pinned++)
    {
      float *img = nb_image_alloc (n * sizeof (float), pinned);

      g_assert_nonnull (img);
      opts.preview_stride = 0;
      g_assert_cmpint (nb_plan_execute (plan, img, &opts, &err), ==, NB_OK);
      g_assert_cmpint (nb_plan_execute (plan, image, &opts, &err), ==, NB_OK);
      g_assert_true (memcmp (img, image, n * sizeof (float)) == 0);
      nb_image_free (img);
    }
  nb_image_free (NULL);
  nb_plan_destroy (plan);
}

static void
test_cpu_backend (void)
{
  nb_plan *plan = plan_on (BASE, NB_BACKEND_CPU, NB_PRECISION_SINGLE);
  nb_cuda_stats st;

  g_assert_cmpstr (nb_plan_get_backend (plan), ==, "cpu");
  g_assert_null (strstr (nb_plan_get_log (plan), "backend "));
  g_assert_false (nb_backend_cuda_stats (plan, &st));
  nb_plan_destroy (plan);
}

/* ------------------------------------------------------------------------- */
/* Parity */

typedef struct
{
  const char *name;
  const char *cmdline;
  nb_precision precision;
  int stride;
  double loose; /* tolerance factor */
} parity_case;

/* The round crystal's sinc3, 3 (sin x / x - cos x) / x^2, cancels near the
 * Bragg peaks (x -> 0): there the last-place differences of the CUDA
 * library's sin and cos against glibc's become visible (single against
 * double precision on the CPU differ by 3.4e-5 of the maximum). */
#define ROUND_LOOSE 10.0

static const struct
{
  const char *name;
  const char *cmdline;
  double loose; /* tolerance factor */
} scenes[] = {
  { "simple",
    "-default_F 100 -cell 100 100 100 90 90 90 -lambda 6.2 -N 5 -distance 100 "
    "-detpixels_x 131 -detpixels_y 97",
    1.0 },
  { "oversample", BASE "-N 20 -distance 50 -oversample 3", 1.0 },
  { "oversample-polar-omega",
    BASE "-N 20 -distance 50 -oversample 2 -oversample_polar "
         "-oversample_omega",
    1.0 },
  { "thickness",
    BASE "-detector_thick 300 -detector_absorb 200 -detector_thicksteps 3 "
         "-twotheta 10",
    1.0 },
  { "oversample-thick",
    BASE "-detector_thick 200 -detector_absorb 150 -detector_thicksteps 2 "
         "-oversample 2 -oversample_thick -twotheta 5",
    1.0 },
  { "polarization", BASE "-distance 60 -polar 0.6", 1.0 },
  { "nopolar-point-pixel", BASE "-distance 60 -nopolar -point_pixel", 1.0 },
  { "mosaic",
    BASE "-cell 80 80 80 90 90 90 -N 10 -distance 150 -mosaic 1.0 -mosaic_domains 6 "
         "-mosaic_seed 777",
    1.0 },
  { "phi",
    BASE "-cell 80 80 80 90 90 90 -N 10 -distance 150 -misset 15 25 35 -phi 0 -osc 2 "
         "-phisteps 4",
    1.0 },
  { "divergence", BASE "-N 8 -hdivrange 2 -vdivrange 1 -hdivsteps 3 -vdivsteps 3", 1.0 },
  { "dispersion", BASE "-N 8 -dispersion 2 -dispsteps 5", 1.0 },
  { "round", BASE "-N 6 -round_xtal", ROUND_LOOSE },
  { "gauss", BASE "-N 6 -gauss_xtal", 1.0 },
  { "tophat", BASE "-N 6 -tophat_spots", 1.0 },
  { "hkl",
    "-hkl @DATA@/1hpv_p1.hkl -cell 63.4 63.4 83.8 90 90 120 -misset 10 20 30 -lambda 1.0 "
    "-N 10 -mosaic 0.2 -mosaic_domains 3 -distance 150 -detpixels 160 -pixel 0.4",
    1.0 },
  { "water", BASE "-water 0.3 -fluence 1e28", 1.0 },
  { "water-physical", BASE "-water 0.3 -fluence 1e28 -physical", 1.0 },
  { "dmin", BASE "-cell 60 60 60 90 90 90 -distance 60 -dmin 3", 1.0 },
  { "tilted", BASE "-detector_rotx 5 -detector_roty 3 -detector_rotz 2 -pivot beam", 1.0 },
  { "roi", BASE "-lambda 6.2 -roi 20 100 10 70", 1.0 },
  { "mask", BASE "-detpixels 64 -mask @MASK@", 1.0 },
};

static void
test_parity (gconstpointer data)
{
  const parity_case *c = data;
  nb_plan *cpu, *gpu;
  const nb_plan_info *in;
  g_autofree float *want = NULL, *got = NULL, *again = NULL;
  size_t n;

  REQUIRE_DEVICE ();
  cpu = plan_on (c->cmdline, NB_BACKEND_CPU, c->precision);
  gpu = plan_on (c->cmdline, NB_BACKEND_CUDA, c->precision);
  g_assert_cmpstr (nb_plan_get_backend (gpu), ==, "cuda");
  g_assert_nonnull (strstr (nb_plan_get_log (gpu), "backend cuda: CUDA on "));
  in = nb_plan_get_info (cpu);
  n = (size_t) in->fpixels * in->spixels;
  want = execute (cpu, c->stride);
  got = execute (gpu, c->stride);
  assert_close (got, want, n, tolerance (c->precision) * c->loose, c->name);
  if (c->stride <= 1)
    {
      double a = nb_plan_get_omega_sum (cpu), b = nb_plan_get_omega_sum (gpu);

      g_assert_cmpfloat (a, >, 0.0);
      g_assert_cmpfloat (fabs (a - b), <=, 1e-9 * a);
    }
  else
    g_assert_cmpfloat (nb_plan_get_omega_sum (gpu), ==, 0.0);
  /* the same bits on every run */
  again = execute (gpu, c->stride);
  g_assert_true (memcmp (got, again, n * sizeof (float)) == 0);
  g_assert_cmpstr (nb_plan_get_backend (gpu), ==, "cuda");
  nb_plan_destroy (cpu);
  nb_plan_destroy (gpu);
}

/* The kernels' pixel code run on the host (nb_cuda_emulate()): no device
 * needed, so this runs in CI.  Same compiler arithmetic as the CPU's fast
 * kernel, so the same bits. */
static void
test_emulated (gconstpointer data)
{
  const parity_case *c = data;
  nb_plan *cpu = plan_on (c->cmdline, NB_BACKEND_CPU, c->precision);
  const nb_plan_info *in = nb_plan_get_info (cpu);
  const size_t n = (size_t) in->fpixels * in->spixels;
  g_autofree float *want = execute (cpu, c->stride);
  g_autofree float *got = g_new (float, n);
  double omega = nb_plan_get_omega_sum (cpu);

  nb_exec_stats gpu_stats = { 0 }, cpu_stats = { 0 };

  memset (got, 0xff, n * sizeof (float));
  gpu_stats.window = cpu_stats.window = 1;
  gpu_stats.low_percentile = cpu_stats.low_percentile = 1.0;
  gpu_stats.high_percentile = cpu_stats.high_percentile = 99.5;
  if (!nb_backend_cuda_emulate (cpu, got, c->stride, &gpu_stats))
    {
      g_test_skip ("this build has no CUDA backend");
      nb_plan_destroy (cpu);
      return;
    }
  assert_close (got, want, n, 0.0, c->name);
  g_assert_true (memcmp (got, want, n * sizeof (float)) == 0);
  g_assert_cmpfloat (fabs (nb_plan_get_omega_sum (cpu) - omega), <=, 1e-12 * omega);

  /* the statistics the GPU computes (a preview's from the host's fill of its
   * blocks, without a window) are the CPU's over the same image */
  nb_exec_stats_compute (want, n, &cpu_stats);
  g_assert_true (gpu_stats.valid);
  g_assert_cmpuint (gpu_stats.finite, ==, cpu_stats.finite);
  g_assert_cmpuint (gpu_stats.finite, ==, n);
  g_assert_true (memcmp (&gpu_stats.max, &cpu_stats.max, sizeof (float)) == 0);
  if (c->stride <= 1)
    {
      g_assert_true (gpu_stats.has_window);
      g_assert_cmpfloat (gpu_stats.low, ==, cpu_stats.low);
      g_assert_cmpfloat (gpu_stats.high, ==, cpu_stats.high);
    }
  else
    g_assert_false (gpu_stats.has_window);
  nb_plan_destroy (cpu);
}

/* The statistics kernels' code on the host (four 8-bit digit passes) against
 * the CPU's (two 16-bit passes): the same counts, maximum and values at the
 * ranks, so the same window, bit for bit, on images with NaN, infinities,
 * -0, negatives, ties and a background of zeros. */
static void
test_emulated_stats (void)
{
  static const double percentiles[][2] = { { 1, 99.5 },     { 0, 100 },     { 50, 50 },
                                           { 33.3, 99.99 }, { 70, 70.001 }, { 99.5, 1 } };
  const size_t n = 150001;
  g_autofree float *image = g_new (float, n);
  g_autoptr (GRand) rand = g_rand_new_with_seed (2016);
  char why[256];

  if (!nb_cuda_device_available (why, sizeof why) && strstr (why, "no CUDA backend") != NULL)
    {
      g_test_skip ("this build has no CUDA backend");
      return;
    }
  for (int shape = 0; shape < 5; shape++)
    {
      size_t m = n;

      for (size_t i = 0; i < n; i++)
        {
          double u = g_rand_double (rand);

          switch (shape)
            {
              case 0: /* a diffraction image: zeros, integer background, spots */
                image[i] = u < 0.6     ? 0.0f
                           : u < 0.995 ? (float) g_rand_int_range (rand, 0, 40)
                                       : (float) g_rand_double_range (rand, 100, 1e5);
                break;
              case 1: /* signed, with the non-finite values and -0 */
                image[i] = u < 0.01   ? NAN
                           : u < 0.02 ? INFINITY
                           : u < 0.03 ? -INFINITY
                           : u < 0.1  ? -0.0f
                                      : (float) g_rand_double_range (rand, -1e3, 1e3);
                break;
              case 2: /* one value */
                image[i] = 7.0f;
                break;
              case 3: /* nothing finite but a few pixels */
                image[i] = i % 50000 == 3 ? (float) i : NAN;
                break;
              default: /* one pixel */
                image[i] = 42.0f;
                m = 1;
                break;
            }
        }
      for (size_t c = 0; c < G_N_ELEMENTS (percentiles); c++)
        for (int window = 0; window < 2; window++)
          {
            nb_exec_stats want = { 0 }, got = { 0 };
            double low, high;

            want.window = got.window = window;
            want.low_percentile = got.low_percentile = percentiles[c][0];
            want.high_percentile = got.high_percentile = percentiles[c][1];
            nb_exec_stats_compute (image, m, &want);
            g_assert_true (nb_backend_cuda_emulate_stats (image, m, &got));
            g_assert_true (want.valid && got.valid);
            g_assert_cmpint (want.has_window, ==, window);
            g_assert_cmpint (got.has_window, ==, window);
            g_assert_cmpuint (got.finite, ==, want.finite);
            g_assert_true (memcmp (&got.max, &want.max, sizeof (float)) == 0);
            g_assert_cmpfloat (got.low, ==, want.low);
            g_assert_cmpfloat (got.high, ==, want.high);
            if (!window)
              continue;
            /* and the public function agrees */
            nb_image_window (image, m, percentiles[c][0], percentiles[c][1], &low, &high);
            g_assert_cmpfloat (low, ==, want.low);
            g_assert_cmpfloat (high, ==, want.high);
          }
    }
}

/* ------------------------------------------------------------------------- */
/* The warm cache */

/* A misset change uploads the orientation table and the parameters only and
 * reuses the buffers; a new count of domains is a new key. */
static void
test_update_uploads (void)
{
  const char *cmd = BASE "-misset 10 20 30 -mosaic 0.5 -mosaic_domains 4 -hkl @DATA@/1hpv_p1.hkl "
                         "-cell 63.4 63.4 83.8 90 90 120";
  nb_plan *gpu, *cpu;
  nb_params p;
  nb_error err = { 0 };
  nb_cuda_stats a, b;
  g_autofree float *img0 = NULL, *img1 = NULL, *ref = NULL;
  const nb_plan_info *in;

  REQUIRE_DEVICE ();
  gpu = plan_on (cmd, NB_BACKEND_CUDA, NB_PRECISION_SINGLE);
  in = nb_plan_get_info (gpu);
  img0 = execute (gpu, 0);
  g_assert_true (nb_backend_cuda_stats (gpu, &a));
  g_assert_cmpint (a.allocations, ==, 1);
  g_assert_cmpint (a.uploads_F, ==, 1);
  g_assert_cmpint (a.runs, ==, 1);

  parse (cmd, &p);
  p.precision = NB_PRECISION_SINGLE;
  p.backend = NB_BACKEND_CUDA;
  p.misset[0] += 0.1 * G_PI / 180.0;
  g_assert_cmpint (nb_plan_update (gpu, &p, &err), ==, NB_OK);
  img1 = execute (gpu, 0);
  g_assert_true (nb_backend_cuda_stats (gpu, &b));
  g_assert_cmpint (b.allocations, ==, a.allocations);
  g_assert_cmpint (b.uploads_orient, ==, a.uploads_orient + 1);
  g_assert_cmpint (b.uploads_sources, ==, a.uploads_sources);
  g_assert_cmpint (b.uploads_F, ==, a.uploads_F);
  g_assert_cmpint (b.param_changes, ==, a.param_changes + 1);
  g_assert_cmpint (b.runs, ==, a.runs + 1);
  g_assert_false (memcmp (img0, img1, (size_t) in->fpixels * in->spixels * sizeof (float)) == 0);

  /* the run rendered the new orientation */
  cpu = plan_on (cmd, NB_BACKEND_CPU, NB_PRECISION_SINGLE);
  g_assert_cmpint (nb_plan_update (cpu, &p, &err), ==, NB_OK);
  ref = execute (cpu, 0);
  assert_close (img1, ref, (size_t) in->fpixels * in->spixels, tolerance (NB_PRECISION_SINGLE),
                "after a misset change");

  /* nothing changed: nothing uploaded */
  g_assert_cmpint (nb_plan_update (gpu, &p, &err), ==, NB_OK);
  g_assert_true (nb_backend_cuda_stats (gpu, &a));
  g_assert_cmpint (a.uploads_orient + a.uploads_sources + a.uploads_F + a.uploads_mask, ==,
                   b.uploads_orient + b.uploads_sources + b.uploads_F + b.uploads_mask);
  g_assert_cmpint (a.param_changes, ==, b.param_changes);

  /* another number of domains: another cache key */
  p.mosaic_domains = 5;
  g_assert_cmpint (nb_plan_update (gpu, &p, &err), ==, NB_OK);
  g_free (img1);
  img1 = execute (gpu, 0);
  g_assert_true (nb_backend_cuda_stats (gpu, &b));
  g_assert_cmpint (b.allocations, ==, a.allocations + 1);
  g_assert_cmpint (b.uploads_F, ==, a.uploads_F + 1);
  g_assert_cmpint (nb_plan_update (cpu, &p, &err), ==, NB_OK);
  g_free (ref);
  ref = execute (cpu, 0);
  assert_close (img1, ref, (size_t) in->fpixels * in->spixels, tolerance (NB_PRECISION_SINGLE),
                "after a new domain count");

  nb_params_clear (&p);
  nb_plan_destroy (gpu);
  nb_plan_destroy (cpu);
}

/* A page-locked image (nb_image_alloc) gets the bands straight from the
 * device, a pageable one through the backend's pinned image: the same bits,
 * with and without statistics, before and after an update; the statistics
 * the GPU computed are the CPU's over the same image. */
static void
test_direct_vs_staged (void)
{
  const char *cmd = BASE "-misset 5 10 15 -mosaic 0.3 -mosaic_domains 3 -detpixels_x 200 "
                         "-detpixels_y 150 -roi 5 190 3 140";
  nb_plan *gpu;
  size_t n;
  nb_params p;
  nb_error err = { 0 };
  nb_cuda_stats a, b;

  REQUIRE_DEVICE ();
  gpu = plan_on (cmd, NB_BACKEND_CUDA, NB_PRECISION_SINGLE);
  n = (size_t) nb_plan_get_info (gpu)->fpixels * nb_plan_get_info (gpu)->spixels;
  parse (cmd, &p);
  p.precision = NB_PRECISION_SINGLE;
  p.backend = NB_BACKEND_CUDA;
  for (int round = 0; round < 3; round++)
    {
      float *pinned = nb_image_alloc (n * sizeof (float), 1);
      g_autofree float *pageable = g_new (float, n);
      nb_exec_options opts = { 0 };
      nb_exec_stats gpu_stats = { 0 }, cpu_stats = { 0 };

      g_assert_nonnull (pinned);
      memset (pinned, 0xff, n * sizeof (float));
      memset (pageable, 0xff, n * sizeof (float));
      gpu_stats.window = cpu_stats.window = 1;
      gpu_stats.low_percentile = cpu_stats.low_percentile = 1.0;
      gpu_stats.high_percentile = cpu_stats.high_percentile = 99.5;
      opts.stats = round == 1 ? NULL : &gpu_stats;
      nb_backend_cuda_stats (gpu, &a);
      g_assert_cmpint (nb_plan_execute (gpu, pinned, &opts, &err), ==, NB_OK);
      g_assert_cmpint (nb_plan_execute (gpu, pageable, &opts, &err), ==, NB_OK);
      nb_backend_cuda_stats (gpu, &b);
      g_assert_cmpint (b.direct_runs, ==, a.direct_runs + 1);
      g_assert_cmpint (b.runs, ==, a.runs + 2);
      g_assert_true (memcmp (pinned, pageable, n * sizeof (float)) == 0);
      if (opts.stats != NULL)
        {
          g_assert_cmpint (b.stats_runs, ==, a.stats_runs + 2);
          nb_exec_stats_compute (pageable, n, &cpu_stats);
          g_assert_true (gpu_stats.valid && gpu_stats.has_window);
          g_assert_cmpuint (gpu_stats.finite, ==, cpu_stats.finite);
          g_assert_cmpfloat (gpu_stats.max, ==, cpu_stats.max);
          g_assert_cmpfloat (gpu_stats.low, ==, cpu_stats.low);
          g_assert_cmpfloat (gpu_stats.high, ==, cpu_stats.high);
        }
      nb_image_free (pinned);
      p.misset[1] += 0.5 * G_PI / 180.0;
      g_assert_cmpint (nb_plan_update (gpu, &p, &err), ==, NB_OK);
    }
  nb_params_clear (&p);
  nb_plan_destroy (gpu);
}

/* ------------------------------------------------------------------------- */
/* Errors */

/* A CUDA error in a run: this run and the later ones on the CPU, logged. */
static void
test_fault_launch (void)
{
  nb_plan *gpu, *cpu;
  g_autofree float *img = NULL, *ref = NULL, *img2 = NULL;
  size_t n;

  REQUIRE_DEVICE ();
  gpu = plan_on (BASE "-mosaic 0.5 -mosaic_domains 2", NB_BACKEND_CUDA, NB_PRECISION_SINGLE);
  cpu = plan_on (BASE "-mosaic 0.5 -mosaic_domains 2", NB_BACKEND_CPU, NB_PRECISION_SINGLE);
  n = (size_t) nb_plan_get_info (gpu)->fpixels * nb_plan_get_info (gpu)->spixels;
  g_assert_cmpstr (nb_plan_get_backend (gpu), ==, "cuda");
  g_setenv ("NB_CUDA_FAULT", "launch", TRUE);
  img = execute (gpu, 0);
  g_unsetenv ("NB_CUDA_FAULT");
  ref = execute (cpu, 0);
  g_assert_true (memcmp (img, ref, n * sizeof (float)) == 0);
  g_assert_cmpstr (nb_plan_get_backend (gpu), ==, "cpu");
  g_assert_nonnull (strstr (nb_plan_get_log (gpu), "CUDA error cudaErrorInvalidConfiguration"));
  g_assert_nonnull (strstr (nb_plan_get_log (gpu), "; falling back to the CPU\n"));
  /* the plan stays on the CPU */
  img2 = execute (gpu, 0);
  g_assert_true (memcmp (img2, ref, n * sizeof (float)) == 0);
  g_assert_cmpstr (nb_plan_get_backend (gpu), ==, "cpu");
  nb_plan_destroy (gpu);
  nb_plan_destroy (cpu);

  /* other plans still use the GPU */
  gpu = plan_on (BASE, NB_BACKEND_CUDA, NB_PRECISION_SINGLE);
  g_free (img);
  img = execute (gpu, 0);
  g_assert_cmpstr (nb_plan_get_backend (gpu), ==, "cuda");
  nb_plan_destroy (gpu);
}

/* -precision exact, tricubic interpolation and a curved detector stay on
 * the CPU, saying so; the plan goes back to the GPU when that changes. */
static void
test_cpu_only (void)
{
  static const struct
  {
    const char *extra;
    nb_precision precision;
    const char *reason;
  } cases[] = {
    { "", NB_PRECISION_EXACT, "-precision exact" },
    { "-curved_det", NB_PRECISION_SINGLE, "a curved detector" },
    { "-hkl @DATA@/1hpv_p1.hkl -cell 63.4 63.4 83.8 90 90 120 -N 2 -interpolate",
      NB_PRECISION_DOUBLE, "tricubic interpolation" },
  };

  REQUIRE_DEVICE ();
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *cmd = g_strconcat (BASE, cases[i].extra, NULL);
      nb_plan *plan = plan_on (cmd, NB_BACKEND_CUDA, cases[i].precision);
      g_autofree char *line = g_strdup_printf ("backend cuda: %s", cases[i].reason);

      g_assert_cmpstr (nb_plan_get_backend (plan), ==, "cpu");
      g_assert_nonnull (strstr (nb_plan_get_log (plan), line));
      nb_plan_destroy (plan);
    }
  {
    nb_plan *plan = plan_on (BASE, NB_BACKEND_CUDA, NB_PRECISION_EXACT);
    nb_params p = { 0 };
    nb_error err = { 0 };

    g_assert_cmpint (nb_params_copy (&p, nb_plan_get_params (plan), &err), ==, NB_OK);
    p.precision = NB_PRECISION_SINGLE;
    g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
    g_assert_cmpstr (nb_plan_get_backend (plan), ==, "cuda");
    p.backend = NB_BACKEND_CPU;
    g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
    g_assert_cmpstr (nb_plan_get_backend (plan), ==, "cpu");
    p.backend = NB_BACKEND_AUTO;
    g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
    g_assert_cmpstr (nb_plan_get_backend (plan), ==, "cuda");
    nb_params_clear (&p);
    nb_plan_destroy (plan);
  }
}

static volatile int *cancel_from_progress;

/* last[0]: rows done, last[1]: total, last[2]: calls; raises
 * *cancel_from_progress when set */
static void
count_progress (void *user, int done, int total)
{
  int *last = user;

  g_assert_cmpint (done, >, last[0]);
  g_assert_cmpint (done, <=, total);
  last[0] = done;
  last[1] = total;
  last[2]++;
  if (cancel_from_progress != NULL)
    *cancel_from_progress = 1;
}

static void
test_cancel_progress (void)
{
  nb_plan *gpu;
  float *image;
  volatile int cancel = 1;
  int last[3] = { 0, 0, 0 };
  nb_exec_options opts = { 0 };
  nb_error err = { 0 };
  nb_cuda_stats a, b;

  REQUIRE_DEVICE ();
  gpu = plan_on (BASE "-detpixels 700 -roi 0 699 100 599", NB_BACKEND_CUDA, NB_PRECISION_SINGLE);
  image = g_new (float, 700 * 700);
  nb_backend_cuda_stats (gpu, &a);
  opts.cancel = &cancel;
  g_assert_cmpint (nb_plan_execute (gpu, image, &opts, &err), ==, NB_ERR_CANCELLED);
  nb_backend_cuda_stats (gpu, &b);
  g_assert_cmpint (b.runs, ==, a.runs);

  cancel = 0;
  opts.progress = count_progress;
  opts.user = last;
  g_assert_cmpint (nb_plan_execute (gpu, image, &opts, &err), ==, NB_OK);
  g_assert_cmpint (last[0], ==, 500);
  g_assert_cmpint (last[1], ==, 500);
  g_assert_cmpint (last[2], >=, 2); /* rows reported band by band */

  /* raised during the run (from the first report): stops there, as the CPU's tiles */
  last[0] = last[1] = last[2] = 0;
  cancel_from_progress = &cancel;
  g_assert_cmpint (nb_plan_execute (gpu, image, &opts, &err), ==, NB_ERR_CANCELLED);
  cancel_from_progress = NULL;
  g_assert_cmpint (last[2], ==, 1);
  g_assert_cmpint (last[0], <, 500);
  cancel = 0;
  last[0] = last[1] = last[2] = 0;
  g_assert_cmpint (nb_plan_execute (gpu, image, &opts, &err), ==, NB_OK);
  g_assert_cmpint (last[0], ==, 500);
  g_assert_cmpstr (nb_plan_get_backend (gpu), ==, "cuda");
  g_free (image);
  nb_plan_destroy (gpu);

  /* 4096^2 comes in 16 bands, launched a few ahead of the one awaited: a
   * cancel raised at the first band's report stops the launches there */
  gpu = plan_on (BASE "-detpixels 4096", NB_BACKEND_CUDA, NB_PRECISION_SINGLE);
  image = nb_image_alloc ((size_t) 4096 * 4096 * sizeof (float), 1);
  last[0] = last[1] = last[2] = 0;
  cancel = 0;
  nb_backend_cuda_stats (gpu, &a);
  g_assert_cmpint (nb_plan_execute (gpu, image, &opts, &err), ==, NB_OK);
  nb_backend_cuda_stats (gpu, &b);
  g_assert_cmpint (b.band_launches - a.band_launches, ==, 16);
  g_assert_cmpint (last[2], >=, 8);
  cancel_from_progress = &cancel;
  last[0] = last[1] = last[2] = 0;
  g_assert_cmpint (nb_plan_execute (gpu, image, &opts, &err), ==, NB_ERR_CANCELLED);
  cancel_from_progress = NULL;
  nb_backend_cuda_stats (gpu, &a);
  g_assert_cmpint (a.band_launches - b.band_launches, <, 8);
  nb_image_free (image);
  nb_plan_destroy (gpu);
}

/* ------------------------------------------------------------------------- */
/* Multi-panel detectors (-detector, issue 29) */

/* The CSPAD of a DIALS experiment list (64 tilted sensors; a build without a
 * JSON library cannot read it) and the Jungfrau 16M of a CrystFEL geometry
 * (32 modules, a bad region in m15 that -roi takes in). */
static const struct
{
  const char *file;
  const char *roi;
} panel_detectors[] = {
  { "dials-cspad-single-image.expt", "-roi 20 173 10 159" },
  { "jf-swissfel-16M.geom", "-roi 850 1029 0 79" },
};

#define PANEL_BASE "-default_F 100 -cell 61 72 83 90 90 90 -misset 10 20 30 -lambda 1.1 -N 4 "

typedef struct
{
  int detector;
  nb_precision precision;
  int stride;
} panel_case;

/* The command line of @c, or NULL (a skip) where this build cannot read
 * the file; *@m: the model as read. */
static char *
panel_cmdline (const panel_case *c, nb_detector_model *m)
{
  g_autofree char *path =
      g_build_filename (fx.src_dir, "data", "detectors", panel_detectors[c->detector].file, NULL);
  nb_error err = { 0 };
  nb_status st = nb_detector_model_read (path, m, &err);

  if (st == NB_ERR_UNSUPPORTED)
    {
      g_test_skip (err.message);
      return NULL;
    }
  g_assert_cmpint (st, ==, NB_OK);
  return g_strdup_printf (PANEL_BASE "%s -detector %s", panel_detectors[c->detector].roi, path);
}

static size_t
image_pixels (const nb_plan *plan)
{
  const nb_plan_info *in = nb_plan_get_info (plan);

  return (size_t) in->fpixels * (size_t) in->spixels;
}

/* The CUDA kernels' pixel code on the host (no device needed, so in every CI
 * run) for every panel, as the GPU renders them: each panel's geometry, ROI
 * and mask, into its block, the solid angles and the statistics of the whole
 * image; bit for bit the CPU's fast kernel. */
static void
test_emulated_panels (gconstpointer data)
{
  const panel_case *c = data;
  nb_detector_model m;
  g_autofree char *cmd = NULL;
  nb_plan *cpu;
  size_t n;
  g_autofree float *want = NULL, *got = NULL;
  nb_exec_stats gpu_stats = { 0 }, cpu_stats = { 0 };
  double omega;
  char why[256];

  if (!nb_cuda_device_available (why, sizeof why) && strstr (why, "no CUDA backend") != NULL)
    {
      g_test_skip ("this build has no CUDA backend");
      return;
    }
  if ((cmd = panel_cmdline (c, &m)) == NULL)
    return;
  cpu = plan_on (cmd, NB_BACKEND_CPU, c->precision);
  n = image_pixels (cpu);
  g_assert_cmpuint (n, ==, (size_t) nb_detector_model_pixels (&m));
  want = execute (cpu, c->stride);
  omega = nb_plan_get_omega_sum (cpu);
  got = g_new (float, n);
  memset (got, 0xff, n * sizeof (float));
  gpu_stats.window = cpu_stats.window = 1;
  gpu_stats.low_percentile = cpu_stats.low_percentile = 1.0;
  gpu_stats.high_percentile = cpu_stats.high_percentile = 99.5;
  g_assert_true (nb_backend_cuda_emulate (cpu, got, c->stride, &gpu_stats));
  assert_close (got, want, n, 0.0, panel_detectors[c->detector].file);
  g_assert_true (memcmp (got, want, n * sizeof (float)) == 0);
  if (c->stride <= 1)
    {
      g_assert_cmpfloat (omega, >, 0.0);
      g_assert_cmpfloat (fabs (nb_plan_get_omega_sum (cpu) - omega), <=, 1e-12 * omega);
    }
  /* the plan is left as execute leaves it: it renders the same again */
  {
    g_autofree float *again = execute (cpu, c->stride);

    g_assert_true (memcmp (again, want, n * sizeof (float)) == 0);
  }
  nb_exec_stats_compute (want, n, &cpu_stats);
  g_assert_true (gpu_stats.valid);
  g_assert_cmpuint (gpu_stats.finite, ==, cpu_stats.finite);
  g_assert_true (memcmp (&gpu_stats.max, &cpu_stats.max, sizeof (float)) == 0);
  if (c->stride <= 1)
    {
      g_assert_cmpfloat (gpu_stats.low, ==, cpu_stats.low);
      g_assert_cmpfloat (gpu_stats.high, ==, cpu_stats.high);
    }
  nb_plan_destroy (cpu);
  nb_detector_model_clear (&m);
}

/* A one-panel plan of panel @i of @multi on @backend, from
 * nb_plan_get_panel_params(). */
static nb_plan *
one_panel_plan (const nb_plan *multi, const nb_detector_model *m, int i, nb_backend backend)
{
  nb_params p;
  nb_plan *plan = NULL;
  nb_error err = { 0 };

  g_assert_cmpint (nb_plan_get_panel_params (multi, i, &p, &err), ==, NB_OK);
  p.backend = backend;
  if (nb_plan_create (&p, &plan, &err) != NB_OK)
    g_error ("panel %s alone: %s", m->panels[i].name, err.message);
  nb_params_clear (&p);
  return plan;
}

/* On the GPU: the multi-panel image equals the CPU's within the parity
 * tolerance, and each panel's block equals a one-panel GPU run of that
 * panel bit for bit (0 where the file masks it); the tables are uploaded
 * once for all panels, each panel's buffers allocated once, and an update
 * of the orientation uploads the orientations once and renders it. */
static void
test_panels (gconstpointer data)
{
  const panel_case *c = data;
  nb_detector_model m;
  g_autofree char *cmd = NULL;
  nb_plan *cpu, *gpu;
  size_t n;
  g_autofree float *want = NULL, *got = NULL;
  nb_cuda_stats a, b;
  int lit = 0;

  REQUIRE_DEVICE ();
  if ((cmd = panel_cmdline (c, &m)) == NULL)
    return;
  cpu = plan_on (cmd, NB_BACKEND_CPU, c->precision);
  gpu = plan_on (cmd, NB_BACKEND_CUDA, c->precision);
  g_assert_cmpstr (nb_plan_get_backend (gpu), ==, "cuda");
  g_assert_nonnull (strstr (nb_plan_get_log (gpu), "backend cuda: CUDA on "));
  g_assert_null (strstr (nb_plan_get_log (gpu), "runs on the CPU"));
  n = image_pixels (cpu);
  want = execute (cpu, c->stride);
  got = execute (gpu, c->stride);
  g_assert_cmpstr (nb_plan_get_backend (gpu), ==, "cuda");
  assert_close (got, want, n, tolerance (c->precision), panel_detectors[c->detector].file);
  if (c->stride <= 1)
    {
      double x = nb_plan_get_omega_sum (cpu), y = nb_plan_get_omega_sum (gpu);

      g_assert_cmpfloat (x, >, 0.0);
      g_assert_cmpfloat (fabs (x - y), <=, 1e-9 * x);
    }
  g_assert_true (nb_backend_cuda_stats (gpu, &a));
  g_assert_cmpint (a.allocations, ==, 1);
  g_assert_cmpint (a.panel_allocations, ==, m.n_panels);
  g_assert_cmpint (a.uploads_sources, ==, 1);
  g_assert_cmpint (a.uploads_orient, ==, 1);
  g_assert_cmpint (a.runs, ==, m.n_panels);

  for (int i = 0; i < m.n_panels; i++)
    {
      const nb_panel *pn = &m.panels[i];
      nb_plan *one = one_panel_plan (gpu, &m, i, NB_BACKEND_CUDA);
      const size_t count = (size_t) pn->fpixels * pn->spixels;
      const float *block = got + nb_detector_model_panel_offset (&m, i);
      g_autofree float *alone = execute (one, c->stride);

      g_assert_cmpstr (nb_plan_get_backend (one), ==, "cuda");
      g_assert_cmpuint (image_pixels (one), ==, count);
      for (size_t k = 0; k < count; k++)
        if (pn->mask != NULL && pn->mask[k] != 0)
          g_assert_cmpfloat (block[k], ==, 0.0f);
        else if (memcmp (&block[k], &alone[k], sizeof (float)) != 0)
          g_error ("panel %s pixel %zu: %.9g in the multi-panel GPU image, %.9g alone", pn->name, k,
                   block[k], alone[k]);
        else
          lit += alone[k] > 0.0f;
      nb_plan_destroy (one);
    }
  g_assert_cmpint (lit, >, 0);

  /* a misset change: the orientations once for every panel, the buffers kept */
  {
    nb_params p = { 0 };
    nb_error err = { 0 };

    g_assert_cmpint (nb_params_copy (&p, nb_plan_get_params (gpu), &err), ==, NB_OK);
    p.misset[0] += 0.5 * G_PI / 180.0;
    g_assert_cmpint (nb_plan_update (gpu, &p, &err), ==, NB_OK);
    p.backend = NB_BACKEND_CPU;
    g_assert_cmpint (nb_plan_update (cpu, &p, &err), ==, NB_OK);
    nb_params_clear (&p);
    g_free (want);
    g_free (got);
    want = execute (cpu, c->stride);
    got = execute (gpu, c->stride);
    assert_close (got, want, n, tolerance (c->precision), "after a misset change");
    g_assert_true (nb_backend_cuda_stats (gpu, &b));
    g_assert_cmpint (b.allocations, ==, a.allocations);
    g_assert_cmpint (b.panel_allocations, ==, a.panel_allocations);
    g_assert_cmpint (b.uploads_orient, ==, a.uploads_orient + 1);
    g_assert_cmpint (b.uploads_sources, ==, a.uploads_sources);
    g_assert_cmpint (b.runs, ==, a.runs + m.n_panels);
  }
  nb_plan_destroy (cpu);
  nb_plan_destroy (gpu);
  nb_detector_model_clear (&m);
}

/* ------------------------------------------------------------------------- */

static char *
write_mask (const char *dir)
{
  char header[512];
  guint16 pixels[64 * 64];
  GString *s = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  char *path = g_build_filename (dir, "mask.img", NULL);
  int len = g_snprintf (header, sizeof header,
                        "{\nHEADER_BYTES=512;\nDIM=2;\nBYTE_ORDER=little_endian;\n"
                        "TYPE=unsigned_short;\nSIZE1=64;\nSIZE2=64;\n}\f");

  memset (header + len, ' ', sizeof header - len);
  for (int y = 0; y < 64; y++)
    for (int x = 0; x < 64; x++)
      pixels[y * 64 + x] = GUINT16_TO_LE ((3 * x + y) % 7 == 0 ? 0 : 1);
  g_string_append_len (s, header, sizeof header);
  g_string_append_len (s, (const char *) pixels, sizeof pixels);
  if (!g_file_set_contents (path, s->str, (gssize) s->len, &error))
    g_error ("%s: %s", path, error->message);
  g_string_free (s, TRUE);
  return path;
}

int
main (int argc, char **argv)
{
  static const struct
  {
    const char *scene;
    int stride;
  } previews[] = { { "simple", 4 }, { "roi", 3 }, { "mask", 4 }, { "phi", 5 } };
  GPtrArray *cases = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  int rc;

  g_test_init (&argc, &argv, NULL);
  /* this suite chooses backends itself (a test environment may pin auto to the CPU) */
  g_unsetenv ("NB_BACKEND");
  g_unsetenv ("NB_CUDA_FAULT");
  fx.have_device = nb_cuda_device_available (fx.why, sizeof fx.why);
  /* On a machine lent for the GPU tests a skip would hide the reason they did
   * not run (an old driver, a build without CUDA): NB_REQUIRE_CUDA=1 fails. */
  if (!fx.have_device && g_strcmp0 (g_getenv ("NB_REQUIRE_CUDA"), "1") == 0)
    g_error ("NB_REQUIRE_CUDA=1 but no CUDA device can be used: %s", fx.why);
  fx.data_dir = g_getenv ("NB_DATA_DIR");
  if (fx.data_dir == NULL)
    fx.data_dir = "data";
  fx.src_dir = g_getenv ("G_TEST_SRCDIR");
  if (fx.src_dir == NULL)
    fx.src_dir = ".";
  fx.tmpdir = g_dir_make_tmp ("test-cuda-XXXXXX", &error);
  g_assert_no_error (error);
  fx.mask_path = write_mask (fx.tmpdir);

  g_test_add_func ("/cuda/parse", test_parse);
  g_test_add_func ("/cuda/auto-estimate", test_auto_estimate);
  g_test_add_func ("/cuda/exec-stats-timing", test_exec_stats_timing);
  g_test_add_func ("/cuda/emulated-stats", test_emulated_stats);
  g_test_add_func ("/cuda/no-device", test_no_device);
  g_test_add_func ("/cuda/cpu-backend", test_cpu_backend);
  g_test_add_func ("/cuda/env-cpu", test_env_cpu);
  for (int prec = 0; prec < 2; prec++)
    for (size_t i = 0; i < G_N_ELEMENTS (scenes); i++)
      {
        parity_case *c = g_new0 (parity_case, 1);
        char *name;

        c->name = scenes[i].name;
        c->cmdline = scenes[i].cmdline;
        c->loose = scenes[i].loose;
        c->precision = prec ? NB_PRECISION_DOUBLE : NB_PRECISION_SINGLE;
        name = g_strdup_printf ("/cuda/parity/%s/%s", prec ? "double" : "single", c->name);
        g_ptr_array_add (cases, c);
        g_ptr_array_add (names, name);
        g_test_add_data_func (name, c, test_parity);
        name = g_strdup_printf ("/cuda/emulated/%s/%s", prec ? "double" : "single", c->name);
        g_ptr_array_add (names, name);
        g_test_add_data_func (name, c, test_emulated);
      }
  for (size_t i = 0; i < G_N_ELEMENTS (previews); i++)
    for (size_t j = 0; j < G_N_ELEMENTS (scenes); j++)
      if (strcmp (scenes[j].name, previews[i].scene) == 0)
        {
          parity_case *c = g_new0 (parity_case, 1);
          char *name;

          c->name = scenes[j].name;
          c->cmdline = scenes[j].cmdline;
          c->precision = NB_PRECISION_SINGLE;
          c->stride = previews[i].stride;
          c->loose = scenes[j].loose;
          name = g_strdup_printf ("/cuda/preview/%s/%d", c->name, c->stride);
          g_ptr_array_add (cases, c);
          g_ptr_array_add (names, name);
          g_test_add_data_func (name, c, test_parity);
          name = g_strdup_printf ("/cuda/emulated-preview/%s/%d", c->name, c->stride);
          g_ptr_array_add (names, name);
          g_test_add_data_func (name, c, test_emulated);
        }
  g_test_add_func ("/cuda/update-uploads", test_update_uploads);
  g_test_add_func ("/cuda/direct-vs-staged", test_direct_vs_staged);
  g_test_add_func ("/cuda/fault/launch", test_fault_launch);
  g_test_add_func ("/cuda/cpu-only", test_cpu_only);
  g_test_add_func ("/cuda/cancel-progress", test_cancel_progress);
  for (int d = 0; d < (int) G_N_ELEMENTS (panel_detectors); d++)
    for (int v = 0; v < 3; v++)
      {
        panel_case *c = g_new0 (panel_case, 1);
        const char *what[] = { "single", "double", "preview" };
        char *name;

        c->detector = d;
        c->precision = v == 1 ? NB_PRECISION_DOUBLE : NB_PRECISION_SINGLE;
        c->stride = v == 2 ? 4 : 0;
        g_ptr_array_add (cases, c);
        name = g_strdup_printf ("/cuda/panels/%s/%s", d ? "jungfrau" : "cspad", what[v]);
        g_ptr_array_add (names, name);
        g_test_add_data_func (name, c, test_panels);
        name = g_strdup_printf ("/cuda/emulated-panels/%s/%s", d ? "jungfrau" : "cspad", what[v]);
        g_ptr_array_add (names, name);
        g_test_add_data_func (name, c, test_emulated_panels);
      }

  rc = g_test_run ();
  g_remove (fx.mask_path);
  g_rmdir (fx.tmpdir);
  g_free (fx.mask_path);
  g_free (fx.tmpdir);
  g_ptr_array_unref (cases);
  g_ptr_array_unref (names);
  return rc;
}
