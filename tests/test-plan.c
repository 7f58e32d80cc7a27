/* test-plan.c: the warm plan (stage invalidation through the counters,
 * update == fresh create), the fast kernels (single and double precision)
 * against the reference-exact one, their instruction-set variants against
 * the generic fallback and the explicit-vector kernel against the staged
 * one, preview mode, cancellation, and pixel queries. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nanobragg.h"
#include "nb-test-util.h"
#include "nb-param.h"

static const char *base_args[] = { "nanobragg", "-default_F", "100",
                                   "-cell",     "70",         "80",
                                   "90",        "85",         "95",
                                   "105",       "-misset",    "10",
                                   "5",         "3",          "-lambda",
                                   "1.5",       "-N",         "6",
                                   "-distance", "100",        "-detpixels",
                                   "96",        "-pixel",     "0.3",
                                   "-mosaic",   "0.3",        "-mosaic_domains",
                                   "3" };

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
  check_update ("-lambda", "1.6",
                B (NB_STAGE_CRYSTAL) | B (NB_STAGE_SOURCES) | B (NB_STAGE_ORIENTATION));
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
                B (NB_STAGE_DETECTOR) | B (NB_STAGE_CRYSTAL) | B (NB_STAGE_SOURCES) |
                    B (NB_STAGE_ORIENTATION));
}

static void
test_stage_beam_centre (void)
{
  check_update ("-Xbeam", "12",
                B (NB_STAGE_DETECTOR) | B (NB_STAGE_CRYSTAL) | B (NB_STAGE_SOURCES) |
                    B (NB_STAGE_ORIENTATION));
}

static void
test_stage_pixels (void)
{
  /* a new pixel count is a new cache key */
  check_update ("-detpixels", "80",
                B (NB_STAGE_DETECTOR) | B (NB_STAGE_CRYSTAL) | B (NB_STAGE_SOURCES) |
                    B (NB_STAGE_ORIENTATION) | B (NB_STAGE_BUFFERS));
}

static void
test_stage_fluence (void)
{
  /* fluence only scales: every stage is reused */
  check_update ("-fluence", "1e25", 0);
}

static void
test_stage_phi (void)
{
  check_update ("-phi", "3", B (NB_STAGE_ORIENTATION));
}

static void
test_stage_dispersion (void)
{
  /* more wavelengths: more sources, so the tables grow */
  check_update ("-dispersion", "2", B (NB_STAGE_SOURCES) | B (NB_STAGE_BUFFERS));
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
test_stage_precision (void)
{
  /* the precision is part of the cache key: only the kernel's tables change */
  check_update ("-precision", "single", B (NB_STAGE_BUFFERS));
}

/* Every flag of the parameter table: an update to a set that differs by that
 * flag renders what a fresh plan of the set renders, bit for bit, so no row
 * leaves out a stage its value feeds. */
static void
test_stage_every_flag (void)
{
  static const char *const candidates[] = { "1.3", "0.7", "2", "sample", "single", "exact" };
  static const char *const extra[] = { "-detpixels", "24", "-pixel", "1.2", "-oversample", "1" };
  size_t n, tried = 0;
  const nb_param *rows = nb_param_table (&n);

  for (size_t i = 0; i < n; i++)
    {
      const nb_param *row = &rows[i];
      const char *args[12];
      int n_args = 0;

      if (row->flag == NULL || row->kind == NB_PARAM_TEXT || row->kind == NB_PARAM_IGNORED ||
          row->kind == NB_PARAM_SECTION)
        continue;
      for (size_t c = 0; c < (row->nargs == 0 ? 1 : G_N_ELEMENTS (candidates)); c++)
        {
          nb_params p, q;
          nb_plan *plan = NULL, *fresh = NULL;
          nb_error err;
          int k = 0;

          for (size_t e = 0; e < G_N_ELEMENTS (extra); e++)
            args[k++] = extra[e];
          args[k++] = row->flag;
          for (int v = 0; v < (row->nargs < 0 ? 3 : row->nargs); v++)
            args[k++] = candidates[c];
          n_args = k;
          params_from (&p, extra, G_N_ELEMENTS (extra));
          nb_params_init (&q);
          {
            const char *argv[64];
            int argc = 0;

            for (size_t b = 0; b < G_N_ELEMENTS (base_args); b++)
              argv[argc++] = base_args[b];
            for (int a = 0; a < n_args; a++)
              argv[argc++] = args[a];
            if (nb_params_parse_argv (&q, argc, argv, &err) != NB_OK ||
                nb_plan_create (&q, &fresh, &err) != NB_OK)
              {
                nb_params_clear (&p);
                nb_params_clear (&q);
                continue;
              }
          }
          g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
          g_free (render (plan));
          if (nb_plan_update (plan, &q, &err) == NB_OK)
            {
              float *a = render (plan), *b = render (fresh);
              size_t pixels =
                  (size_t) nb_plan_get_info (plan)->fpixels * nb_plan_get_info (plan)->spixels;

              g_test_message ("%s %s", row->flag, row->nargs ? candidates[c] : "");
              if (memcmp (a, b, pixels * sizeof (float)) != 0)
                g_error ("%s %s: the updated plan renders another image than a fresh one",
                         row->flag, row->nargs ? candidates[c] : "");
              tried++;
              g_free (a);
              g_free (b);
            }
          nb_plan_destroy (plan);
          nb_plan_destroy (fresh);
          nb_params_clear (&p);
          nb_params_clear (&q);
          break;
        }
    }
  g_test_message ("%zu flags updated", tried);
  g_assert_cmpuint (tried, >, 80);
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
  const char *extra_d[] = { "-oversample", "2",    "-polar", "0.8",       "-phi",
                            "1",           "-osc", "2",      "-phisteps", "3" };
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

/* The instruction-set variants against the generic code: within 1e-5, and
 * to the bit where they round the same way: SSE4.1 as the generic code (the
 * sine polynomials' multiply-adds rounded twice), AVX2 as AVX-512 (fused,
 * nb-physics.h NBP_FMA). */
static void
test_simd_variants (void)
{
  const char *variants[] = { "sse41", "avx2", "avx512" };
  nb_params p;
  nb_plan *plan;
  nb_error err;
  float *generic, *fused = NULL;
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
      if (strcmp (name, "sse41") == 0)
        {
          g_assert_true (memcmp (generic, img, n * sizeof *img) == 0);
          g_free (img);
        }
      else if (fused == NULL)
        fused = img;
      else
        {
          g_assert_true (memcmp (fused, img, n * sizeof *img) == 0);
          g_free (img);
        }
    }
  g_unsetenv ("NB_KERNEL");
  g_free (fused);
  g_free (generic);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
}

/* The explicit-vector kernel (kernel-fast-simd.h) against the staged loops
 * of kernel-fast-body.h (NB_FAST_STAGED=1): the same bits in every pixel, in
 * both precisions and on every instruction set this CPU has, for scenes that
 * take its path: structure factors from a grid (in and outside it, with and
 * without default_F), axes of one cell, a Kahn factor, several sources,
 * mosaic domains and phi steps, sub-pixels, point pixels, -nopolar,
 * -physical, a width that is no multiple of the vector, an ROI, a preview,
 * an image large enough to be streamed. */
static const char *const simd_scenes[] = {
  "-default_F 100 -cell 100 100 100 90 90 90 -lambda 6.2 -N 5 -distance 100 "
  "-detpixels_x 131 -detpixels_y 37",
  "-hkl @DATA@/1hpv_p1.hkl -cell 63.4 63.4 83.8 90 90 120 -misset 10 20 30 -lambda 1.0 -N 10 "
  "-mosaic 0.2 -mosaic_domains 5 -distance 60 -detpixels 61 -pixel 0.6 -oversample 2",
  "-hkl @DATA@/1hpv_p1.hkl -default_F 7 -cell 63.4 63.4 83.8 90 90 120 -misset 10 20 30 "
  "-lambda 1.0 -Na 1 -Nb 4 -Nc 7 -distance 40 -detpixels 45 -pixel 1.2 -oversample 2",
  "-default_F 100 -cell 70 80 90 85 95 105 -misset 10 5 3 -lambda 1.5 -Na 1 -Nb 1 -Nc 9 "
  "-distance 100 -detpixels 50 -pixel 0.3 -polar 0.6 -phi 0 -osc 2 -phisteps 3",
  "-default_F 100 -cell 100 100 100 90 90 90 -lambda 1.0 -N 8 -distance 100 -detpixels 40 "
  "-pixel 0.5 -hdivrange 2 -vdivrange 1 -hdivsteps 3 -vdivsteps 3 -dispersion 2 -dispsteps 3 "
  "-oversample 3",
  "-default_F 100 -cell 100 100 100 90 90 90 -lambda 1.0 -N 5 -distance 60 -detpixels 47 "
  "-pixel 0.6 -nopolar -point_pixel -physical -water 0.3",
  "-default_F 100 -cell 100 100 100 90 90 90 -lambda 6.2 -N 5 -distance 100 -detpixels 96 "
  "-roi 13 70 5 41",
  /* 32 MB: streaming stores (a band of it rendered) */
  "-default_F 100 -cell 100 100 100 90 90 90 -lambda 6.2 -N 5 -distance 100 -detpixels_x 4096 "
  "-detpixels_y 2048 -pixel 0.025 -roi 0 4095 1020 1027",
};

/* The image in a buffer of nb_alloc_large(): 2 MB-aligned from 2 MB on, as
 * the CLI's and the library's, so that a large one is written with streaming
 * stores (kernel-fast-simd.h).  Free with free(). */
static float *
render_with (nb_plan *plan, int preview_stride)
{
  const nb_plan_info *in = nb_plan_get_info (plan);
  float *img = nb_alloc_large ((size_t) in->fpixels * in->spixels * sizeof (float));
  nb_exec_options opts = { 0 };
  nb_error err;

  opts.preview_stride = preview_stride;
  g_assert_cmpint (nb_plan_execute (plan, img, &opts, &err), ==, NB_OK);
  return img;
}

static void
test_simd_vs_staged (void)
{
  const char *variants[] = { "sse41", "avx2", "avx512" };
  const char *data = g_getenv ("NB_DATA_DIR");
  int tested = 0;

  if (data == NULL)
    data = "data";
  for (size_t v = 0; v < G_N_ELEMENTS (variants); v++)
    {
      g_setenv ("NB_KERNEL", variants[v], TRUE);
      if (strcmp (nb_kernel_variant (), variants[v]) != 0)
        {
          g_test_message ("%s not supported by this CPU", variants[v]);
          continue;
        }
      for (size_t i = 0; i < G_N_ELEMENTS (simd_scenes); i++)
        for (int prec = 0; prec < 2; prec++)
          {
            g_autoptr (GString) cmd = g_string_new (simd_scenes[i]);
            g_autofree char *args = NULL;
            nb_plan *vector, *staged;
            size_t n;

            g_string_replace (cmd, "@DATA@", data, 0);
            g_string_append (cmd, prec ? " -precision single" : " -precision double");
            args = g_string_free (g_steal_pointer (&cmd), FALSE);
            g_setenv ("NB_FAST_STAGED", "1", TRUE);
            staged = plan_new (args);
            g_unsetenv ("NB_FAST_STAGED");
            vector = plan_new (args);
            n = (size_t) nb_plan_get_info (vector)->fpixels * nb_plan_get_info (vector)->spixels;
            for (int stride = 0; stride <= 3; stride += 3)
              {
                float *a = render_with (vector, stride), *b = render_with (staged, stride);
                double wa = nb_plan_get_omega_sum (vector), wb = nb_plan_get_omega_sum (staged);

                if (memcmp (a, b, n * sizeof *a) != 0)
                  for (size_t j = 0; j < n; j++)
                    if (memcmp (&a[j], &b[j], sizeof *a) != 0)
                      g_error ("%s, %s, preview %d: pixel %zu is %.9g, staged %.9g", variants[v],
                               args, stride, j, a[j], b[j]);
                /* summed in another order */
                g_assert_cmpfloat (fabs (wa - wb), <=, 1e-12 * fabs (wb));
                tested++;
                free (a);
                free (b);
              }
            nb_plan_destroy (vector);
            nb_plan_destroy (staged);
          }
    }
  g_unsetenv ("NB_KERNEL");
  if (tested == 0)
    g_test_skip ("no SSE4.1, AVX2 or AVX-512 on this CPU");
}

/* user: int[2] = { calls, rows done at the last call } */
static void
count_rows (void *user, int done, int total)
{
  int *calls = user;

  g_assert_cmpint (done, <=, total);
  g_assert_cmpint (done, >=, calls[1]);
  calls[0]++;
  calls[1] = done;
}

static void
test_cancel (void)
{
  nb_params p;
  nb_plan *plan;
  nb_error err;
  volatile int cancel = 1;
  int calls[2] = { 0, 0 };
  nb_exec_options opts = { 0 };
  float *img;

  params_from (&p, NULL, 0);
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  img = g_new (float, 96 * 96);
  opts.cancel = &cancel;
  opts.progress = count_rows;
  opts.user = calls;
  for (int prec = 0; prec < 2; prec++)
    {
      p.precision = prec ? NB_PRECISION_SINGLE : NB_PRECISION_DOUBLE;
      g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
      cancel = 1;
      g_assert_cmpint (nb_plan_execute (plan, img, &opts, &err), ==, NB_ERR_CANCELLED);
      cancel = 0;
      calls[0] = calls[1] = 0;
      g_assert_cmpint (nb_plan_execute (plan, img, &opts, &err), ==, NB_OK);
      /* rows are reported as they finish, from the calling thread, ending at all of them */
      g_assert_cmpint (calls[0], >=, 1);
      g_assert_cmpint (calls[1], ==, 96);
    }
  g_free (img);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
}

/* max |a - b| / max |a| */
static double
max_rel (const float *a, const float *b, size_t n)
{
  double dmax = 0.0, amax = 0.0;

  for (size_t i = 0; i < n; i++)
    {
      dmax = fmax (dmax, fabs ((double) a[i] - b[i]));
      amax = fmax (amax, fabs ((double) a[i]));
    }
  return amax > 0.0 ? dmax / amax : dmax;
}

static void
test_double_vs_exact (void)
{
  const char *extra[] = { "-oversample", "2", "-polar",      "0.8", "-phi",       "1", "-osc", "2",
                          "-phisteps",   "3", "-dispersion", "1",   "-dispsteps", "2" };
  const char *variants[] = { "generic", "sse41", "avx2", "avx512" };
  nb_params p;
  nb_plan *plan;
  nb_error err;
  float *exact;
  size_t n;

  params_from (&p, extra, G_N_ELEMENTS (extra));
  p.precision = NB_PRECISION_EXACT;
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  exact = render (plan);
  n = (size_t) nb_plan_get_info (plan)->fpixels * nb_plan_get_info (plan)->spixels;
  p.precision = NB_PRECISION_DOUBLE;
  g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
  for (size_t v = 0; v < G_N_ELEMENTS (variants); v++)
    {
      float *img;
      double rel;

      g_setenv ("NB_KERNEL", variants[v], TRUE);
      if (strcmp (nb_kernel_variant (), variants[v]) != 0)
        continue;
      img = render (plan);
      rel = max_rel (exact, img, n);
      g_test_message ("double %s: max rel diff to exact %.3g", variants[v], rel);
      /* the fast double kernel differs from the reference's arithmetic only
       * in the last bits of double, which float output mostly hides */
      g_assert_cmpfloat (rel, <=, 1e-6);
      g_free (img);
    }
  g_unsetenv ("NB_KERNEL");
  g_free (exact);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
}

static void
test_preview (void)
{
  const nb_precision precs[] = { NB_PRECISION_SINGLE, NB_PRECISION_DOUBLE, NB_PRECISION_EXACT };
  const int k = 4;
  nb_params p;
  nb_plan *plan;
  nb_error err;
  nb_exec_options opts = { 0 };

  params_from (&p, NULL, 0);
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  opts.preview_stride = k;
  for (size_t i = 0; i < G_N_ELEMENTS (precs); i++)
    {
      const nb_plan_info *in;
      float *full, *prev;
      int W, H;

      p.precision = precs[i];
      g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
      in = nb_plan_get_info (plan);
      W = in->fpixels;
      H = in->spixels;
      full = render (plan);
      prev = g_new (float, (gsize) W *H);
      g_assert_cmpint (nb_plan_execute (plan, prev, &opts, &err), ==, NB_OK);
      /* every k x k block holds the full image's value at its centre pixel */
      for (int s = 0; s < H; s++)
        for (int f = 0; f < W; f++)
          {
            int sc = MIN (s / k * k + k / 2, H - 1), fc = MIN (f / k * k + k / 2, W - 1);
            float want = full[(size_t) sc * W + fc];
            float got = prev[(size_t) s * W + f];

            if (fabsf (got - want) > 1e-6f * fabsf (want))
              g_error ("precision %d: preview pixel %d,%d = %g, full image at %d,%d = %g",
                       (int) precs[i], f, s, got, fc, sc, want);
          }
      /* a stride beyond the detector: one block, its centre clipped to the
       * last pixel (without overflowing the block arithmetic, even at INT_MAX) */
      for (int j = 0; j < 2; j++)
        {
          nb_exec_options huge = { 0 };
          float last = full[(size_t) (H - 1) * W + (W - 1)];

          huge.preview_stride = j == 0 ? 3 * MAX (W, H) : G_MAXINT;
          g_assert_cmpint (nb_plan_execute (plan, prev, &huge, &err), ==, NB_OK);
          for (size_t q = 0; q < (size_t) W * H; q++)
            if (fabsf (prev[q] - last) > 1e-6f * fabsf (last))
              g_error ("precision %d, stride %d: pixel %zu = %g, not the last pixel's %g",
                       (int) precs[i], huge.preview_stride, q, prev[q], last);
        }
      g_free (full);
      g_free (prev);
    }
  nb_plan_destroy (plan);
  nb_params_clear (&p);
}

typedef struct
{
  volatile int *cancel;
  int calls_after;
} cancel_probe;

static void
cancel_on_first_tile (void *user, int done, int total)
{
  cancel_probe *probe = user;

  if (*probe->cancel)
    probe->calls_after++;
  *probe->cancel = 1;
}

/* A cancel raised during the run stops it at the next tile: the calling
 * thread reports no further tile after it saw the flag set. */
static void
test_cancel_during_run (void)
{
  const nb_precision precs[] = { NB_PRECISION_SINGLE, NB_PRECISION_DOUBLE };
  const char *extra[] = { "-detpixels", "512" };
  nb_params p;
  nb_plan *plan;
  nb_error err;
  volatile int cancel = 0;
  cancel_probe probe = { &cancel, 0 };
  nb_exec_options opts = { 0 };
  float *img = g_new (float, 512 * 512);

  params_from (&p, extra, G_N_ELEMENTS (extra));
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  opts.cancel = &cancel;
  opts.progress = cancel_on_first_tile;
  opts.user = &probe;
  opts.threads = 2;
  for (size_t i = 0; i < G_N_ELEMENTS (precs); i++)
    {
      p.precision = precs[i];
      g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
      cancel = 0;
      probe.calls_after = 0;
      g_assert_cmpint (nb_plan_execute (plan, img, &opts, &err), ==, NB_ERR_CANCELLED);
      g_assert_cmpint (probe.calls_after, ==, 0);
    }
  g_free (img);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
}

static void
test_geometry_query (void)
{
  const char *extra[] = { "-mosaic", "0",      "-mosaic_domains",
                          "1",       "-N",     "20",
                          "-misset", "0",      "0",
                          "0",       "-cell",  "80",
                          "80",      "80",     "90",
                          "90",      "90",     "-detpixels",
                          "256",     "-pixel", "0.2",
                          "-lambda", "1.0" };
  nb_params p;
  nb_plan *plan;
  nb_geometry *geom;
  nb_pixel_query q;
  nb_error err;
  const nb_plan_info *in;
  float *img;
  size_t n, imax = 0;
  int W;

  params_from (&p, extra, G_N_ELEMENTS (extra));
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  in = nb_plan_get_info (plan);
  W = in->fpixels;
  geom = nb_plan_ref_geometry (plan);
  g_assert_nonnull (geom);

  /* the direct beam: 2theta 0, d infinite, indices 0 0 0 */
  g_assert_cmpint (
      nb_geometry_query (geom, in->Fbeam / in->pixel_size, in->Sbeam / in->pixel_size, &q, &err),
      ==, NB_OK);
  g_assert_cmpfloat (q.two_theta, <, 1e-9);
  g_assert_true (isinf (q.d));
  g_assert_cmpint (abs (q.h) + abs (q.k) + abs (q.l), ==, 0);

  /* the brightest pixel off the beam is a reflection: indices near whole
   * numbers, d = lambda / (2 sin theta), F = default_F */
  img = render (plan);
  n = (size_t) W * in->spixels;
  for (size_t i = 0; i < n; i++)
    {
      double fs = (double) (i % W) + 0.5 - in->Fbeam / in->pixel_size;
      double ss = (double) (i / W) + 0.5 - in->Sbeam / in->pixel_size;
      if (fs * fs + ss * ss > 25.0 && img[i] > img[imax])
        imax = i;
    }
  g_assert_cmpint (
      nb_geometry_query (geom, (double) (imax % W) + 0.5, (double) (imax / W) + 0.5, &q, &err), ==,
      NB_OK);
  g_test_message ("brightest pixel %zu: hkl %.3f %.3f %.3f d %.3f A", imax, q.hkl[0], q.hkl[1],
                  q.hkl[2], q.d);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat (fabs (q.hkl[i] - round (q.hkl[i])), <, 0.1);
  g_assert_cmpfloat (fabs (q.d * 2.0 * sin (q.two_theta / 2.0) - 1.0), <, 1e-9);
  g_assert_cmpfloat (fabs (q.q * q.d - 2.0 * G_PI), <, 1e-9);
  g_assert_cmpfloat (q.F, ==, 100.0);
  g_assert_cmpfloat (q.solid_angle, >, 0.0);

  /* the snapshot outlives an update and the plan itself */
  p.misset[0] = 0.1;
  g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
  nb_plan_destroy (plan);
  g_assert_cmpint (nb_geometry_query (geom, 1.5, 2.5, &q, &err), ==, NB_OK);
  g_assert_cmpint (nb_geometry_query (geom, NAN, 2.5, &q, &err), ==, NB_ERR_INVALID);
  nb_geometry_unref (geom);
  g_free (img);
  nb_params_clear (&p);
}

static void
test_geometry_structure_factors (void)
{
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), "test-plan-sf.hkl", NULL);
  g_autoptr (GString) hkl = g_string_new (NULL);
  const char *extra[] = { "-hkl", path, "-default_F", "3" };
  nb_params p;
  nb_plan *plan;
  nb_geometry *geom;
  nb_pixel_query q;
  nb_error err;
  int from_file = 0, defaulted = 0;

  /* F(h, k, l) = 100 + 9 h + 3 k + l for -3 <= h, k, l <= 3 */
  for (int h = -3; h <= 3; h++)
    for (int k = -3; k <= 3; k++)
      for (int l = -3; l <= 3; l++)
        g_string_append_printf (hkl, "%d %d %d %d\n", h, k, l, 100 + 9 * h + 3 * k + l);
  g_assert_true (g_file_set_contents (path, hkl->str, -1, NULL));
  params_from (&p, extra, G_N_ELEMENTS (extra));
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  geom = nb_plan_ref_geometry (plan);
  /* replace the structure factors and drop the plan: the snapshot keeps the old ones */
  p.default_F = 5;
  g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
  nb_plan_destroy (plan);
  g_remove (path);
  for (int s = -200; s < 300; s += 3)
    for (int f = -200; f < 300; f += 3)
      {
        int in_file;

        g_assert_cmpint (nb_geometry_query (geom, f + 0.5, s + 0.5, &q, &err), ==, NB_OK);
        in_file = abs (q.h) <= 3 && abs (q.k) <= 3 && abs (q.l) <= 3;
        g_assert_cmpint (q.F_from_file, ==, in_file);
        g_assert_cmpfloat (q.F, ==, in_file ? 100.0 + 9 * q.h + 3 * q.k + q.l : 3.0);
        from_file += in_file;
        defaulted += !in_file;
      }
  g_test_message ("%d points in the file's range, %d outside", from_file, defaulted);
  g_assert_cmpint (from_file, >, 100);
  g_assert_cmpint (defaulted, >, 100);
  nb_geometry_unref (geom);
  nb_params_clear (&p);
}

/* Input files are read once per name: after a plan is made they may vanish,
 * and a misset or wavelength change still updates it. */
static void
test_files_read_once (void)
{
  g_autofree char *dir = g_dir_make_tmp ("test-plan-XXXXXX", NULL);
  g_autofree char *mat = g_build_filename (dir, "x.mat", NULL);
  g_autofree char *src = g_build_filename (dir, "sources.txt", NULL);
  const char *mat_text = "-0.0123 0.0045 -0.0067\n0.0034 0.0145 0.0021\n0.0056 -0.0012 0.0110\n"
                         "0 0 0\n0 0 0\n";
  const char *src_text = "-10 0 0 1.0 1.0e-10\n-10 0.02 0 0.5 1.02e-10\n";
  const char *argv[] = { "nanobragg",  "-mat",      mat,       "-sourcefile", src,
                         "-default_F", "100",       "-lambda", "1.0",         "-N",
                         "5",          "-distance", "100",     "-detpixels",  "64" };
  nb_params p;
  nb_plan *plan;
  nb_plan_stats before;
  nb_error err;

  g_assert_true (g_file_set_contents (mat, mat_text, -1, NULL));
  g_assert_true (g_file_set_contents (src, src_text, -1, NULL));
  nb_params_init (&p);
  g_assert_cmpint (nb_params_parse_argv (&p, G_N_ELEMENTS (argv), argv, &err), ==, NB_OK);
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  g_remove (mat);
  g_remove (src);
  g_rmdir (dir);
  nb_plan_get_stats (plan, &before);
  p.misset[0] = 0.01;
  p.lambda0 = 1.1e-10;
  g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
  assert_stages (plan, &before,
                 B (NB_STAGE_CRYSTAL) | B (NB_STAGE_SOURCES) | B (NB_STAGE_ORIENTATION));
  g_assert_cmpint (nb_plan_get_info (plan)->sources, ==, 2);
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
  g_test_add_func ("/plan/stages/beam-centre", test_stage_beam_centre);
  g_test_add_func ("/plan/stages/pixels", test_stage_pixels);
  g_test_add_func ("/plan/stages/fluence", test_stage_fluence);
  g_test_add_func ("/plan/stages/phi", test_stage_phi);
  g_test_add_func ("/plan/stages/dispersion", test_stage_dispersion);
  g_test_add_func ("/plan/stages/default-F", test_stage_default_F);
  g_test_add_func ("/plan/stages/mosaic-domains", test_stage_domains);
  g_test_add_func ("/plan/stages/precision", test_stage_precision);
  g_test_add_func ("/plan/stages/every-flag", test_stage_every_flag);
  g_test_add_func ("/plan/update-error-keeps-plan", test_update_error_keeps_plan);
  g_test_add_func ("/plan/files-read-once", test_files_read_once);
  g_test_add_func ("/kernel/single-vs-double", test_single_vs_double);
  g_test_add_func ("/kernel/simd-variants", test_simd_variants);
  g_test_add_func ("/kernel/simd-vs-staged", test_simd_vs_staged);
  g_test_add_func ("/kernel/cancel", test_cancel);
  g_test_add_func ("/kernel/cancel-during-run", test_cancel_during_run);
  g_test_add_func ("/kernel/double-vs-exact", test_double_vs_exact);
  g_test_add_func ("/kernel/preview", test_preview);
  g_test_add_func ("/query/geometry", test_geometry_query);
  g_test_add_func ("/query/structure-factors", test_geometry_structure_factors);
  return g_test_run ();
}
