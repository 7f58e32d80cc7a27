/* bench-panels.c: nanobragg-bench's workload e (issue 29): a multi-panel
 * detector rendered by one plan against one plan per panel, in the same
 * run, rounds alternating, medians; the panels' blocks are compared too. */
#include "bench-panels.h"
#include "nb-detector.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORKLOAD_D "-default_F 100 -cell 100 100 100 90 90 90 -lambda 6.2 -N 5"
#define MAX_ROUNDS 1000

static double
clock_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

static int
by_value (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static double
median_of (double *v, int n)
{
  qsort (v, (size_t) n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The one-panel plan of panel @i of @multi: its CUSTOM vectors, as a user
 * would give them to nanobragg (-fdet_vector... -pix0_vector). */
static nb_status
panel_plan (const nb_plan *multi, int i, nb_plan **out, nb_error *err)
{
  nb_params p;
  nb_status st;

  if ((st = nb_plan_get_panel_params (multi, i, &p, err)) != NB_OK)
    return st;
  st = nb_plan_create (&p, out, err);
  nb_params_clear (&p);
  return st;
}

typedef struct
{
  nb_params params;
  nb_detector_model model;
  nb_plan *multi;
  nb_plan **single;
  float *image, *check;
  size_t pixels;
} panels_bench;

static void
bench_clear (panels_bench *b)
{
  for (int i = 0; b->single != NULL && i < b->model.n_panels; i++)
    nb_plan_destroy (b->single[i]);
  free (b->single);
  nb_plan_destroy (b->multi);
  nb_image_free (b->image);
  nb_image_free (b->check);
  nb_detector_model_clear (&b->model);
  nb_params_clear (&b->params);
}

static nb_status
bench_setup (panels_bench *b, const char *geom, int precision, int backend, nb_error *err)
{
  char words[] = WORKLOAD_D;
  const char *argv[32] = { "nanobragg" };
  int argc = 1;
  nb_status st;

  for (char *w = strtok (words, " "); w != NULL && argc < 29; w = strtok (NULL, " "))
    argv[argc++] = w;
  argv[argc++] = "-detector";
  argv[argc++] = geom;
  nb_params_init (&b->params);
  nb_detector_model_init (&b->model);
  if ((st = nb_params_parse_argv (&b->params, argc, argv, err)) != NB_OK)
    return st;
  b->params.precision = precision;
  b->params.backend = backend;
  if ((st = nb_detector_model_read (geom, &b->model, err)) != NB_OK ||
      (st = nb_plan_create (&b->params, &b->multi, err)) != NB_OK)
    return st;
  b->pixels = (size_t) nb_detector_model_pixels (&b->model);
  b->image = nb_image_alloc (b->pixels * sizeof (float), backend == NB_BACKEND_CUDA);
  b->check = nb_image_alloc (b->pixels * sizeof (float), backend == NB_BACKEND_CUDA);
  b->single = calloc ((size_t) b->model.n_panels, sizeof *b->single);
  if (b->image == NULL || b->check == NULL || b->single == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  memset (b->image, 0, b->pixels * sizeof (float));
  memset (b->check, 0, b->pixels * sizeof (float));
  for (int i = 0; i < b->model.n_panels; i++)
    if ((st = panel_plan (b->multi, i, &b->single[i], err)) != NB_OK)
      return st;
  return NB_OK;
}

static nb_status
time_multi (panels_bench *b, const nb_exec_options *opts, double *ms, nb_error *err)
{
  double t = clock_ms ();
  nb_status st = nb_plan_execute (b->multi, b->image, opts, err);

  *ms = clock_ms () - t;
  return st;
}

/* Every one-panel execute into its block of b->check. */
static nb_status
time_single (panels_bench *b, const nb_exec_options *opts, double *ms, nb_error *err)
{
  nb_status st = NB_OK;

  *ms = 0.0;
  for (int i = 0; i < b->model.n_panels && st == NB_OK; i++)
    {
      double t = clock_ms ();

      st = nb_plan_execute (b->single[i], b->check + nb_detector_model_panel_offset (&b->model, i),
                            opts, err);
      *ms += clock_ms () - t;
    }
  return st;
}

/* One round, the two in the order @round's parity says. */
static nb_status
bench_round (panels_bench *b,
             const nb_exec_options *opts,
             int round,
             double *multi_ms,
             double *sum_ms,
             nb_error *err)
{
  nb_status st;

  if (round % 2 == 0)
    {
      if ((st = time_multi (b, opts, multi_ms, err)) != NB_OK)
        return st;
      return time_single (b, opts, sum_ms, err);
    }
  if ((st = time_single (b, opts, sum_ms, err)) != NB_OK)
    return st;
  return time_multi (b, opts, multi_ms, err);
}

/* The images agree bit for bit but where the file's bad regions mask a
 * panel (0 in the multi-panel image, rendered by the one-panel plans). */
static int
identical (const panels_bench *b)
{
  const uint16_t *keep = nb_plan_get_mask (b->multi);

  for (size_t k = 0; k < b->pixels; k++)
    if ((keep == NULL || keep[k] != 0) && memcmp (&b->image[k], &b->check[k], sizeof (float)) != 0)
      return 0;
  return 1;
}

int
nb_bench_panels (const char *geom, int precision, int backend, int threads, int repeat, int json)
{
  panels_bench b = { 0 };
  nb_exec_options opts = { .threads = threads };
  double multi[MAX_ROUNDS], sum[MAX_ROUNDS], m, s;
  const char *name = precision == NB_PRECISION_SINGLE   ? "single"
                     : precision == NB_PRECISION_DOUBLE ? "double"
                                                        : "exact";
  nb_error err;
  nb_status st;
  int same;

  if (repeat > MAX_ROUNDS)
    repeat = MAX_ROUNDS;
  /* round 0 warms every plan (pages, tables) and is not counted */
  if ((st = bench_setup (&b, geom, precision, backend, &err)) == NB_OK &&
      backend == NB_BACKEND_CUDA && strcmp (nb_plan_get_backend (b.multi), "cuda") != 0)
    st = nb_error_set (&err, NB_ERR_UNSUPPORTED, "--backend cuda: the plan runs on the CPU (%s)",
                       nb_plan_get_log (b.multi));
  if (st == NB_OK)
    for (int r = 0; r <= repeat && st == NB_OK; r++)
      st = bench_round (&b, &opts, r, &multi[r > 0 ? r - 1 : 0], &sum[r > 0 ? r - 1 : 0], &err);
  if (st != NB_OK)
    {
      fprintf (stderr, "nanobragg-bench: workload e (%s): %s\n", geom, err.message);
      bench_clear (&b);
      return 0;
    }
  same = identical (&b);
  m = median_of (multi, repeat);
  s = median_of (sum, repeat);
  if (json)
    printf ("{\"workload\":\"e\",\"detector\":\"%s\",\"panels\":%d,\"pixels\":%zu,"
            "\"precision\":\"%s\",\"backend\":\"%s\",\"threads\":%d,\"multi_ms\":%.3f,"
            "\"panels_sum_ms\":%.3f,\"ratio\":%.4f,\"identical\":%s}\n",
            geom, b.model.n_panels, b.pixels, name, nb_plan_get_backend (b.multi), threads, m, s,
            m / s, same ? "true" : "false");
  else
    printf ("e: %d panels, %zu pixels (%s), %s on the %s, %d threads: one plan %.1f ms, one "
            "plan per panel %.1f ms in all, ratio %.3f; images %s\n",
            b.model.n_panels, b.pixels, geom, name,
            strcmp (nb_plan_get_backend (b.multi), "cuda") == 0 ? "GPU" : "CPU", threads, m, s,
            m / s, same ? "identical" : "DIFFER");
  fflush (stdout);
  bench_clear (&b);
  return same;
}
