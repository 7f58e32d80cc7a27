/* bench-adaptive.c: nanobragg-bench's workload d (issue 31): the viewer's
 * scene at N = 10, 30, 100, 300 (1024^2, 5 mosaic domains, single
 * precision), the reference's method (our exact-integration fast kernel
 * with the reference's automatic oversampling: the reference binary itself
 * is timed by workloads b and c where one is given) against adaptive
 * integration, with each one's error against the high-oversample limit.
 *
 * The limit: the fast kernel in double precision at four times the
 * automatic oversampling (at least 48 a side) on the region around the
 * detector's brightest spot (41 x 21 pixels: the spot and background),
 * which the full frames' pixels there are compared with, as a fraction of
 * the frame's brightest pixel (what the tolerance is relative to).  Where the exact
 * full frame would take long (its oversampling above 30 a side), its time is
 * measured on a band of 32 rows across the detector and scaled to 1024 rows:
 * the exact kernel's cost per pixel does not depend on the pixel (the row
 * says "band").  The exact and adaptive executes alternate, so that a change
 * of the machine's load falls on both medians.  With a reference nanoBragg
 * binary, its whole process (spawn to exit, its own automatic oversampling)
 * on the same scene is timed too, on the band from an oversampling above 10
 * (N = 100: minutes for the whole frame).
 */
#include "bench-adaptive.h"
#include "bench-spawn.h"

#ifdef _OPENMP
#include <omp.h>
#endif
#include <limits.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SCENE_D                                                                                    \
  "-cell 63.4 63.4 83.8 90 90 120 -misset 10 20 30 -lambda 1.0 -mosaic 0.2 -mosaic_domains 5 "     \
  "-distance 120 -detpixels 1024 -pixel 0.1"
#define LIMIT_ROI      "-roi 462 502 371 391"
#define BAND_ROWS      32
#define BAND_ABOVE     30 /* oversampling from which the exact frame is timed on a band */
#define MAX_WORDS      64
#define TOLERANCE_D    "1e-3"
#define SLOW_MS        2000.0        /* a reference process slower than this is run once */
#define HKL_FILE       "1hpv_p1.hkl" /* the name in the reference's folder */
#define REF_OUTPUT     "-floatfile out.bin -nopgm -nonoise -noprogress"
#define REF_BAND_ABOVE 10 /* oversampling from which the reference is timed on the band */

static double
clock_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

/* A plan of the scene with @extra flags (printf-style); NULL after an error
 * (printed). */
static nb_plan *
scene_plan (const char *hkl, const char *fmt, ...)
{
  char line[1024], extra[512], *save = NULL;
  const char *argv[MAX_WORDS + 1];
  int argc = 0;
  va_list ap;
  nb_params p;
  nb_plan *plan = NULL;
  nb_error err = { 0 };
  nb_status st;

  va_start (ap, fmt);
  vsnprintf (extra, sizeof extra, fmt, ap);
  va_end (ap);
  snprintf (line, sizeof line, "nanobragg %s -hkl %s %s", SCENE_D, hkl, extra);
  for (char *w = strtok_r (line, " ", &save); w != NULL && argc < MAX_WORDS;
       w = strtok_r (NULL, " ", &save))
    argv[argc++] = w;
  nb_params_init (&p);
  st = nb_params_parse_argv (&p, argc, argv, &err);
  if (st == NB_OK)
    st = nb_plan_create (&p, &plan, &err);
  nb_params_clear (&p);
  if (st != NB_OK)
    fprintf (stderr, "nanobragg-bench: workload d: %s: %s\n", extra, err.message);
  return st == NB_OK ? plan : NULL;
}

static void
sort_ms (double *t, int n)
{
  double tmp;

  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && t[j - 1] > t[j]; j--)
      tmp = t[j], t[j] = t[j - 1], t[j - 1] = tmp;
}

/* The median wall times (ms) of @repeat executes of plans @pa and @pb,
 * alternating, after a first one of each, into *@ms_a and *@ms_b; their
 * images in @a and @b.  0 after an error (printed). */
static int
time_alternating (nb_plan *pa,
                  float *a,
                  nb_plan *pb,
                  float *b,
                  int threads,
                  int repeat,
                  double *ms_a,
                  double *ms_b)
{
  nb_exec_options opts = { 0 };
  nb_error err = { 0 };
  double ta[16], tb[16], start;
  int n = repeat < 16 ? repeat : 16, ok;

  opts.threads = threads;
  ok = nb_plan_execute (pa, a, &opts, &err) == NB_OK &&
       nb_plan_execute (pb, b, &opts, &err) == NB_OK;
  for (int i = 0; i < n && ok; i++)
    {
      start = clock_ms ();
      ok = nb_plan_execute (pa, a, &opts, &err) == NB_OK;
      ta[i] = clock_ms () - start;
      start = clock_ms ();
      ok = ok && nb_plan_execute (pb, b, &opts, &err) == NB_OK;
      tb[i] = clock_ms () - start;
    }
  if (!ok)
    {
      fprintf (stderr, "nanobragg-bench: workload d: %s\n", err.message);
      return 0;
    }
  sort_ms (ta, n);
  sort_ms (tb, n);
  *ms_a = ta[n / 2];
  *ms_b = tb[n / 2];
  return 1;
}

/* The median of up to @repeat runs (one if the first is slower than
 * SLOW_MS) of the reference binary @exe on the scene at @N (the 1HPV file of
 * @data_dir linked into its folder), on the band with @band (scaled to 1024
 * rows): ms, or a negative value after an error (printed). */
static double
time_reference (const char *exe, const char *data_dir, int N, int band, int repeat)
{
  char line[1024], src[PATH_MAX], what[32], *save = NULL;
  char *argv[MAX_WORDS + 1];
  double t[16];
  int argc = 0, n = 0;

  snprintf (line, sizeof line, "%s -hkl " HKL_FILE " %s -N %d " REF_OUTPUT, exe, SCENE_D, N);
  if (band)
    snprintf (line + strlen (line), sizeof line - strlen (line), " -roi 0 1023 496 %d",
              495 + BAND_ROWS);
  for (char *w = strtok_r (line, " ", &save); w != NULL && argc < MAX_WORDS;
       w = strtok_r (NULL, " ", &save))
    argv[argc++] = w;
  argv[argc] = NULL;
  snprintf (src, sizeof src, "%s/" HKL_FILE, data_dir);
  snprintf (what, sizeof what, "workload d N = %d", N);
#ifdef _OPENMP
  /* the engine's threads would take a CPU from the process (nanobragg-bench.c) */
  omp_pause_resource_all (omp_pause_soft);
#endif
  for (int i = 0; i < (repeat < 16 ? repeat : 16); i++)
    {
      if (!bench_spawn (argv, src, HKL_FILE, what, &t[n]))
        return -1.0;
      n++;
      if (t[0] > SLOW_MS)
        break;
    }
  sort_ms (t, n);
  return t[n / 2] * (band ? 1024.0 / BAND_ROWS : 1.0);
}

/* One execute of @plan into @image; 0 after an error (printed). */
static int
render_once (nb_plan *plan, float *image, int threads)
{
  nb_exec_options opts = { 0 };
  nb_error err = { 0 };

  opts.threads = threads;
  if (nb_plan_execute (plan, image, &opts, &err) == NB_OK)
    return 1;
  fprintf (stderr, "nanobragg-bench: workload d: %s\n", err.message);
  return 0;
}

/* The largest pixel error of @got against @limit over the limit's ROI, as a
 * fraction of @bright (the frame's brightest pixel, what the tolerance is
 * relative to), and the sums' relative difference in *@sum_error. */
static double
limit_error (
    const float *got, const float *limit, const int roi[4], double bright, double *sum_error)
{
  double max = bright, worst = 0.0, sg = 0.0, sl = 0.0;

  for (int s = roi[2]; s <= roi[3]; s++)
    for (int f = roi[0]; f <= roi[1]; f++)
      {
        size_t i = (size_t) s * 1024 + f;
        worst = fmax (worst, fabs ((double) got[i] - limit[i]));
        sg += got[i];
        sl += limit[i];
      }
  *sum_error = sl > 0 ? fabs (sg - sl) / sl : 0.0;
  return max > 0 ? worst / max : 0.0;
}

typedef struct
{
  int N, oversample, band, reference_band;
  double exact_ms, adaptive_ms, reference_ms, samples_per_pixel;
  double exact_error, exact_sum, adaptive_error, adaptive_sum;
} row_d;

/* One N: the two full frames, the limit and, with @reference, the
 * reference's time; 0 after an error. */
static int
measure (const char *hkl,
         const char *reference,
         const char *data_dir,
         int N,
         int threads,
         int repeat,
         float *a,
         float *b,
         row_d *r)
{
  nb_plan *exact, *adaptive, *limit;
  nb_plan_timing t;
  int ok = 1, os, roi[4];

  memset (r, 0, sizeof *r);
  r->N = N;
  if ((exact = scene_plan (hkl, "-N %d -precision single", N)) == NULL)
    return 0;
  os = r->oversample = nb_plan_get_info (exact)->oversample;
  r->band = os > BAND_ABOVE;
  if (r->band)
    {
      nb_plan_destroy (exact);
      exact = scene_plan (hkl, "-N %d -precision single -roi 0 1023 496 %d", N, 495 + BAND_ROWS);
      if (exact == NULL)
        return 0;
    }
  adaptive = scene_plan (hkl, "-N %d -precision single -integration adaptive -tolerance %s", N,
                         TOLERANCE_D);
  limit = scene_plan (hkl, "-N %d -precision double -oversample %d " LIMIT_ROI, N,
                      4 * os > 48 ? 4 * os : 48);
  if (adaptive == NULL || limit == NULL)
    ok = 0;
  if (ok)
    {
      memcpy (roi, nb_plan_get_info (limit)->roi, sizeof roi);
      ok = time_alternating (exact, a, adaptive, b, threads, repeat, &r->exact_ms, &r->adaptive_ms);
      if (r->band)
        r->exact_ms *= 1024.0 / BAND_ROWS;
    }
  if (ok)
    {
      nb_plan_get_timing (adaptive, &t);
      r->samples_per_pixel = t.samples / (1024.0 * 1024.0);
    }
  if (ok && reference != NULL)
    {
      r->reference_band = os > REF_BAND_ABOVE;
      r->reference_ms = time_reference (reference, data_dir, N, r->reference_band, repeat);
      ok = r->reference_ms >= 0.0;
    }
  if (ok && r->band)
    {
      /* the exact frame's pixels in the limit's region */
      nb_plan_destroy (exact);
      exact = scene_plan (hkl, "-N %d -precision single " LIMIT_ROI, N);
      ok = exact != NULL && render_once (exact, a, threads);
    }
  if (ok)
    {
      float *l = malloc ((size_t) 1024 * 1024 * sizeof (float));
      ok = l != NULL;
      ok = ok && render_once (limit, l, threads);
      if (ok)
        {
          double bright = 0.0;
          for (size_t i = 0; i < (size_t) 1024 * 1024; i++)
            bright = fmax (bright, b[i]);
          r->exact_error = limit_error (a, l, roi, bright, &r->exact_sum);
          r->adaptive_error = limit_error (b, l, roi, bright, &r->adaptive_sum);
        }
      free (l);
    }
  nb_plan_destroy (exact);
  nb_plan_destroy (adaptive);
  nb_plan_destroy (limit);
  return ok;
}

int
bench_adaptive (
    const char *hkl, const char *reference, const char *data_dir, int threads, int repeat, int json)
{
  static const int Ns[] = { 10, 30, 100, 300 };
  float *a = malloc ((size_t) 1024 * 1024 * sizeof (float));
  float *b = malloc ((size_t) 1024 * 1024 * sizeof (float));
  int ok = a != NULL && b != NULL;

  if (!json && ok)
    {
      printf ("workload d: the viewer's scene at 1024^2, 5 domains, single precision, %d threads;\n"
              "exact = the reference's method (our fast kernel, the reference's automatic "
              "oversampling os;\n'b': timed on %d rows, scaled to 1024), adaptive at tolerance "
              "%s, timed alternately;\n",
              threads, BAND_ROWS, TOLERANCE_D);
      if (reference != NULL)
        printf ("reference = %s, its process (spawn to exit) at its own automatic "
                "oversampling\n(on the band from os %d);\n",
                reference, REF_BAND_ABOVE + 1);
      printf ("errors against the limit (double, 4 x the oversampling, >= 48) on " LIMIT_ROI
              ", of the frame's brightest pixel\n"
              "%5s %4s %11s %11s %8s %9s %10s %10s %10s %10s",
              "N", "os", "exact_ms", "adaptive_ms", "speedup", "samples/px", "exact_err",
              "exact_sum", "adapt_err", "adapt_sum");
      if (reference != NULL)
        printf (" %13s %10s", "reference_ms", "ref/adapt");
      printf ("\n");
    }
  for (size_t i = 0; i < sizeof Ns / sizeof Ns[0] && ok; i++)
    {
      row_d r;

      ok = measure (hkl, reference, data_dir, Ns[i], threads, repeat, a, b, &r);
      if (!ok)
        break;
      if (json)
        printf ("{\"workload\":\"d\",\"N\":%d,\"oversample\":%d,\"threads\":%d,\"exact_ms\":%.3f,"
                "\"exact_band\":%s,\"adaptive_ms\":%.3f,\"samples_per_pixel\":%.3f,"
                "\"exact_error\":%.3g,\"exact_sum_error\":%.3g,\"adaptive_error\":%.3g,"
                "\"adaptive_sum_error\":%.3g",
                r.N, r.oversample, threads, r.exact_ms, r.band ? "true" : "false", r.adaptive_ms,
                r.samples_per_pixel, r.exact_error, r.exact_sum, r.adaptive_error, r.adaptive_sum);
      else
        printf ("%5d %4d %10.1f%s %11.1f %8.1f %9.2f %10.2g %10.2g %10.2g %10.2g", r.N,
                r.oversample, r.exact_ms, r.band ? "b" : " ", r.adaptive_ms,
                r.exact_ms / r.adaptive_ms, r.samples_per_pixel, r.exact_error, r.exact_sum,
                r.adaptive_error, r.adaptive_sum);
      if (reference != NULL && json)
        printf (",\"reference_ms\":%.3f,\"reference_band\":%s", r.reference_ms,
                r.reference_band ? "true" : "false");
      else if (reference != NULL)
        printf (" %12.1f%s %10.1f", r.reference_ms, r.reference_band ? "b" : " ",
                r.reference_ms / r.adaptive_ms);
      printf (json ? "}\n" : "\n");
      fflush (stdout);
    }
  free (a);
  free (b);
  return ok;
}
