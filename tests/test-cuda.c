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
#include "nb-backend.h"

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

  memset (got, 0xff, n * sizeof (float));
  if (!nb_backend_cuda_emulate (cpu, got, c->stride))
    {
      g_test_skip ("this build has no CUDA backend");
      nb_plan_destroy (cpu);
      return;
    }
  assert_close (got, want, n, 0.0, c->name);
  g_assert_true (memcmp (got, want, n * sizeof (float)) == 0);
  g_assert_cmpfloat (fabs (nb_plan_get_omega_sum (cpu) - omega), <=, 1e-12 * omega);
  nb_plan_destroy (cpu);
}

/* ------------------------------------------------------------------------- */
/* The warm cache */

static void
set_graphs (int on)
{
  if (on)
    g_unsetenv ("NB_CUDA_GRAPHS");
  else
    g_setenv ("NB_CUDA_GRAPHS", "0", TRUE);
}

/* A misset change uploads the orientation table and the parameters only,
 * reuses the buffers and the graph; a new count of domains is a new key. */
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
  set_graphs (1);
  gpu = plan_on (cmd, NB_BACKEND_CUDA, NB_PRECISION_SINGLE);
  in = nb_plan_get_info (gpu);
  img0 = execute (gpu, 0);
  g_assert_true (nb_backend_cuda_stats (gpu, &a));
  g_assert_cmpint (a.allocations, ==, 1);
  g_assert_cmpint (a.uploads_F, ==, 1);
  g_assert_cmpint (a.graph_builds, ==, 1);
  g_assert_cmpint (a.graph_launches, ==, 1);

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
  g_assert_cmpint (b.graph_builds, ==, a.graph_builds);
  g_assert_cmpint (b.graph_param_sets, ==, a.graph_param_sets + 1);
  g_assert_cmpint (b.graph_launches, ==, a.graph_launches + 1);
  g_assert_false (memcmp (img0, img1, (size_t) in->fpixels * in->spixels * sizeof (float)) == 0);

  /* the replayed graph rendered the new orientation */
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
  g_assert_cmpint (b.graph_builds, ==, a.graph_builds + 1);
  g_assert_cmpint (nb_plan_update (cpu, &p, &err), ==, NB_OK);
  g_free (ref);
  ref = execute (cpu, 0);
  assert_close (img1, ref, (size_t) in->fpixels * in->spixels, tolerance (NB_PRECISION_SINGLE),
                "after a new domain count");

  nb_params_clear (&p);
  nb_plan_destroy (gpu);
  nb_plan_destroy (cpu);
}

/* Graph replay and plain launches give the same bits, before and after an
 * update (the graph must see the new parameters and tables), full image
 * and preview. */
static void
test_graph_vs_plain (void)
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
    for (int stride = 1; stride <= 3; stride += 2)
      {
        g_autofree float *graph = NULL, *plain = NULL;

        set_graphs (1);
        nb_backend_cuda_stats (gpu, &a);
        graph = execute (gpu, stride);
        set_graphs (0);
        plain = execute (gpu, stride);
        set_graphs (1);
        nb_backend_cuda_stats (gpu, &b);
        g_assert_cmpint (b.graph_launches, ==, a.graph_launches + 1);
        g_assert_cmpint (b.plain_launches, ==, a.plain_launches + 1);
        g_assert_true (memcmp (graph, plain, n * sizeof (float)) == 0);
        p.misset[1] += 0.5 * G_PI / 180.0;
        g_assert_cmpint (nb_plan_update (gpu, &p, &err), ==, NB_OK);
      }
  nb_backend_cuda_stats (gpu, &b);
  g_assert_cmpint (b.graph_failures, ==, 0);
  /* one graph per key and stride, however many updates of the parameters */
  g_assert_cmpint (b.graph_builds, ==, 2);
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

/* A failed capture: plain launches, same image, the plan stays on the GPU. */
static void
test_fault_capture (void)
{
  nb_plan *gpu;
  g_autofree float *want = NULL, *got = NULL;
  nb_cuda_stats a, b;
  size_t n;

  REQUIRE_DEVICE ();
  gpu = plan_on (BASE "-oversample 2", NB_BACKEND_CUDA, NB_PRECISION_DOUBLE);
  n = (size_t) nb_plan_get_info (gpu)->fpixels * nb_plan_get_info (gpu)->spixels;
  set_graphs (0);
  want = execute (gpu, 0);
  set_graphs (1);
  nb_backend_cuda_stats (gpu, &a);
  g_setenv ("NB_CUDA_FAULT", "capture", TRUE);
  got = execute (gpu, 0);
  g_unsetenv ("NB_CUDA_FAULT");
  nb_backend_cuda_stats (gpu, &b);
  g_assert_cmpint (b.graph_failures, ==, a.graph_failures + 1);
  g_assert_cmpint (b.plain_launches, ==, a.plain_launches + 1);
  g_assert_true (memcmp (want, got, n * sizeof (float)) == 0);
  g_assert_cmpstr (nb_plan_get_backend (gpu), ==, "cuda");
  g_assert_nonnull (strstr (nb_plan_get_log (gpu), "CUDA graph capture failed ("));
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
  g_assert_cmpint (b.graph_launches + b.plain_launches, ==, a.graph_launches + a.plain_launches);

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
  g_unsetenv ("NB_CUDA_GRAPHS");
  g_unsetenv ("NB_CUDA_FAULT");
  fx.have_device = nb_cuda_device_available (fx.why, sizeof fx.why);
  /* On a machine lent for the GPU tests a skip would hide the reason they did
   * not run (an old driver, a build without CUDA): NB_REQUIRE_CUDA=1 fails. */
  if (!fx.have_device && g_strcmp0 (g_getenv ("NB_REQUIRE_CUDA"), "1") == 0)
    g_error ("NB_REQUIRE_CUDA=1 but no CUDA device can be used: %s", fx.why);
  fx.data_dir = g_getenv ("NB_DATA_DIR");
  if (fx.data_dir == NULL)
    fx.data_dir = "data";
  fx.tmpdir = g_dir_make_tmp ("test-cuda-XXXXXX", &error);
  g_assert_no_error (error);
  fx.mask_path = write_mask (fx.tmpdir);

  g_test_add_func ("/cuda/parse", test_parse);
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
  g_test_add_func ("/cuda/graph-vs-plain", test_graph_vs_plain);
  g_test_add_func ("/cuda/fault/launch", test_fault_launch);
  g_test_add_func ("/cuda/fault/capture", test_fault_capture);
  g_test_add_func ("/cuda/cpu-only", test_cpu_only);
  g_test_add_func ("/cuda/cancel-progress", test_cancel_progress);

  rc = g_test_run ();
  g_remove (fx.mask_path);
  g_rmdir (fx.tmpdir);
  g_free (fx.mask_path);
  g_free (fx.tmpdir);
  g_ptr_array_unref (cases);
  g_ptr_array_unref (names);
  return rc;
}
