/* test-plan.c: the warm plan (stage invalidation through the counters,
 * update == fresh create), the single-precision kernel against the double one
 * and its instruction-set variants against the generic fallback, and
 * cancellation. */
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nanobragg.h"

static const char *base_args[] = { "nanobragg", "-default_F", "100", "-cell", "70", "80", "90",
                                   "85", "95", "105", "-misset", "10", "5", "3", "-lambda",
                                   "1.5", "-N", "6", "-distance", "100", "-detpixels", "96",
                                   "-pixel", "0.3", "-mosaic", "0.3", "-mosaic_domains", "3" };

static void
params_from (nb_params *p, const char *const *extra, int n_extra)
{
  const char *argv[64];
  int argc = 0;
  nb_error err;

  for (size_t i = 0; i < G_N_ELEMENTS (base_args); i++)
    argv[argc++] = base_args[i];
  for (int i = 0; i < n_extra; i++)
    argv[argc++] = extra[i];
  nb_params_init (p);
  g_assert_cmpint (nb_params_parse_argv (p, argc, argv, &err), ==, NB_OK);
}

static float *
render (nb_plan *plan)
{
  const nb_plan_info *in = nb_plan_get_info (plan);
  float *img = g_new (float, (gsize) in->fpixels * in->spixels);
  nb_error err;

  g_assert_cmpint (nb_plan_execute (plan, img, NULL, &err), ==, NB_OK);
  return img;
}

static void
assert_stages (nb_plan *plan, const nb_plan_stats *before, unsigned expected_rebuilt)
{
  nb_plan_stats now;

  nb_plan_get_stats (plan, &now);
  for (int s = 0; s < NB_N_STAGES; s++)
    {
      long rebuilt = now.rebuilds[s] - before->rebuilds[s];
      long hit = now.hits[s] - before->hits[s];

      g_test_message ("stage %s: rebuilt %ld hit %ld", nb_stage_name (s), rebuilt, hit);
      if (expected_rebuilt & (1u << s))
        g_assert_true (rebuilt == 1 && hit == 0);
      else
        g_assert_true (rebuilt == 0 && hit == 1);
    }
}

#define B(s) (1u << (s))

static void
check_update (const char *flag, const char *value, unsigned expected)
{
  nb_params p, q;
  nb_plan *plan, *fresh;
  nb_plan_stats before;
  nb_error err;
  const char *extra[] = { flag, value };
  float *a, *b;
  size_t n;

  params_from (&p, NULL, 0);
  params_from (&q, extra, 2);
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  g_free (render (plan));
  nb_plan_get_stats (plan, &before);
  g_assert_cmpint (nb_plan_update (plan, &q, &err), ==, NB_OK);
  assert_stages (plan, &before, expected);

  /* the updated plan renders what a fresh plan renders, bit for bit */
  g_assert_cmpint (nb_plan_create (&q, &fresh, &err), ==, NB_OK);
  a = render (plan);
  b = render (fresh);
  n = (size_t) nb_plan_get_info (plan)->fpixels * nb_plan_get_info (plan)->spixels;
  g_assert_cmpmem (a, n * sizeof (float), b, n * sizeof (float));
  g_free (a);
  g_free (b);
  nb_plan_destroy (plan);
  nb_plan_destroy (fresh);
  nb_params_clear (&p);
  nb_params_clear (&q);
}

static void
test_stage_misset (void)
{
  nb_params p, q;
  nb_plan *plan;
  nb_plan_stats before;
  nb_error err;

  params_from (&p, NULL, 0);
  params_from (&q, NULL, 0);
  q.misset[0] += 0.1 / (180.0 / M_PI);
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  nb_plan_get_stats (plan, &before);
  g_assert_cmpint (nb_plan_update (plan, &q, &err), ==, NB_OK);
  assert_stages (plan, &before, B (NB_STAGE_CRYSTAL) | B (NB_STAGE_ORIENTATION));
  nb_plan_destroy (plan);
  nb_params_clear (&p);
  nb_params_clear (&q);
}

static void
test_stage_wavelength (void)
{
  check_update ("-lambda", "1.6", B (NB_STAGE_CRYSTAL) | B (NB_STAGE_SOURCES) | B (NB_STAGE_ORIENTATION));
}

static void
test_stage_mosaic (void)
{
  check_update ("-mosaic", "0.5", B (NB_STAGE_ORIENTATION));
}

static void
test_stage_distance (void)
{
  check_update ("-distance", "110",
                B (NB_STAGE_DETECTOR) | B (NB_STAGE_CRYSTAL) | B (NB_STAGE_SOURCES)
                  | B (NB_STAGE_ORIENTATION) | B (NB_STAGE_BUFFERS));
}

static void
test_stage_default_F (void)
{
  check_update ("-default_F", "50", B (NB_STAGE_STRUCTURE_FACTORS));
}

static void
test_stage_domains (void)
{
  /* a new domain count changes the shape of the tables: buffers too */
  check_update ("-mosaic_domains", "5", B (NB_STAGE_ORIENTATION) | B (NB_STAGE_BUFFERS));
}

static void
test_update_error_keeps_plan (void)
{
  nb_params p, q;
  nb_plan *plan;
  nb_error err;
  float *a, *b;
  size_t n;

  params_from (&p, NULL, 0);
  params_from (&q, NULL, 0);
  q.lambda0 = -1.0;
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  a = render (plan);
  g_assert_cmpint (nb_plan_update (plan, &q, &err), ==, NB_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "lambda"));
  b = render (plan);
  n = (size_t) nb_plan_get_info (plan)->fpixels * nb_plan_get_info (plan)->spixels;
  g_assert_cmpmem (a, n * sizeof (float), b, n * sizeof (float));
  g_free (a);
  g_free (b);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
  nb_params_clear (&q);
}

static void
compare (const float *ref, const float *got, size_t n, double max_rel, double *corr_out)
{
  double sr = 0, sg = 0, srr = 0, sgg = 0, srg = 0, mx = 0, md = 0;

  for (size_t i = 0; i < n; i++)
    {
      g_assert_true (isfinite (got[i]));
      sr += ref[i];
      sg += got[i];
      srr += (double) ref[i] * ref[i];
      sgg += (double) got[i] * got[i];
      srg += (double) ref[i] * got[i];
      mx = fmax (mx, fabs (ref[i]));
      md = fmax (md, fabs ((double) ref[i] - got[i]));
    }
  *corr_out = (n * srg - sr * sg) / sqrt ((n * srr - sr * sr) * (n * sgg - sg * sg));
  g_test_message ("corr %.9f max|diff|/max %.3g sum ratio %.9f", *corr_out, md / mx, sg / sr);
  g_assert_cmpfloat (md / mx, <=, max_rel);
  g_assert_cmpfloat (fabs (sg / sr - 1), <=, 1e-3);
}

static void
test_single_vs_double (void)
{
  const char *extra_d[] = { "-oversample", "2", "-polar", "0.8", "-phi", "1", "-osc", "2",
                            "-phisteps", "3" };
  nb_params p;
  nb_plan *plan;
  nb_error err;
  float *d, *s;
  double corr;
  size_t n;

  params_from (&p, extra_d, G_N_ELEMENTS (extra_d));
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  d = render (plan);
  p.precision = NB_PRECISION_SINGLE;
  g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
  s = render (plan);
  n = (size_t) nb_plan_get_info (plan)->fpixels * nb_plan_get_info (plan)->spixels;
  compare (d, s, n, 5e-3, &corr);
  g_assert_cmpfloat (corr, >=, 0.99999);
  g_free (d);
  g_free (s);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
}

static void
test_simd_variants (void)
{
  const char *variants[] = { "avx2", "avx512" };
  nb_params p;
  nb_plan *plan;
  nb_error err;
  float *generic;
  size_t n;

  params_from (&p, NULL, 0);
  p.precision = NB_PRECISION_SINGLE;
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  n = (size_t) nb_plan_get_info (plan)->fpixels * nb_plan_get_info (plan)->spixels;
  g_setenv ("NB_KERNEL", "generic", TRUE);
  generic = render (plan);
  for (size_t v = 0; v < G_N_ELEMENTS (variants); v++)
    {
      const char *name;
      float *img;
      double corr;

      g_setenv ("NB_KERNEL", variants[v], TRUE);
      name = nb_kernel_variant ();
      if (strcmp (name, variants[v]) != 0)
        {
          g_test_message ("%s not supported by this CPU (got %s)", variants[v], name);
          continue;
        }
      img = render (plan);
      compare (generic, img, n, 1e-5, &corr);
      g_assert_cmpfloat (corr, >=, 0.9999999);
      g_free (img);
    }
  g_unsetenv ("NB_KERNEL");
  g_free (generic);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
}

static void
count_rows (void *user, int done, int total)
{
  int *calls = user;

  g_assert_cmpint (done, <=, total);
  (*calls)++;
}

static void
test_cancel (void)
{
  nb_params p;
  nb_plan *plan;
  nb_error err;
  volatile int cancel = 1;
  int calls = 0;
  nb_exec_options opts = { 0 };
  float *img;

  params_from (&p, NULL, 0);
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  img = g_new (float, 96 * 96);
  opts.cancel = &cancel;
  opts.progress = count_rows;
  opts.user = &calls;
  for (int prec = 0; prec < 2; prec++)
    {
      p.precision = prec ? NB_PRECISION_SINGLE : NB_PRECISION_DOUBLE;
      g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
      cancel = 1;
      g_assert_cmpint (nb_plan_execute (plan, img, &opts, &err), ==, NB_ERR_CANCELLED);
      cancel = 0;
      calls = 0;
      g_assert_cmpint (nb_plan_execute (plan, img, &opts, &err), ==, NB_OK);
      g_assert_cmpint (calls, >, 1);
    }
  g_free (img);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/plan/stages/misset", test_stage_misset);
  g_test_add_func ("/plan/stages/wavelength", test_stage_wavelength);
  g_test_add_func ("/plan/stages/mosaic-spread", test_stage_mosaic);
  g_test_add_func ("/plan/stages/distance", test_stage_distance);
  g_test_add_func ("/plan/stages/default-F", test_stage_default_F);
  g_test_add_func ("/plan/stages/mosaic-domains", test_stage_domains);
  g_test_add_func ("/plan/update-error-keeps-plan", test_update_error_keeps_plan);
  g_test_add_func ("/kernel/single-vs-double", test_single_vs_double);
  g_test_add_func ("/kernel/simd-variants", test_simd_variants);
  g_test_add_func ("/kernel/cancel", test_cancel);
  return g_test_run ();
}
