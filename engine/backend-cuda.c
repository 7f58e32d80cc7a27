/* backend-cuda.c: the choice of backend for a plan, and the C side of the
 * CUDA backend (engine/cuda/nb-cuda.cu): what to upload after a build, and a
 * run: launch, copy the image back band by band while the GPU still copies
 * the next band, the phi = 0 first pixel on the CPU as kernel-fast.c
 * does, and the fall-back to the CPU on a CUDA error.
 *
 * Built with and without CUDA; without it, auto means the CPU and cuda is
 * NB_ERR_UNSUPPORTED.
 */
#include "nb-backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct nb_cuda_plan nb_cuda_plan;

struct nb_cuda_plan
{
  int active; /* the plan's runs go to the GPU */
  int broken; /* a CUDA error happened: the CPU for the rest of the plan's life */
  int graph_error_logged;
#ifdef NB_HAVE_CUDA
  nb_cuda_ctx *ctx;
#endif
};

#define STAGE_BIT(s) (1u << (s))

int
nb_cuda_device_available (char *why, size_t n)
{
#ifdef NB_HAVE_CUDA
  return nb_cuda_probe (why, n);
#else
  if (why != NULL && n > 0)
    snprintf (why, n, "this build has no CUDA backend");
  return 0;
#endif
}

int
nb_backend_cuda_active (const nb_plan *plan)
{
  return plan->cuda != NULL && plan->cuda->active && !plan->cuda->broken;
}

void
nb_backend_free (nb_plan *plan)
{
  if (plan->cuda == NULL)
    return;
#ifdef NB_HAVE_CUDA
  nb_cuda_ctx_free (plan->cuda->ctx);
#endif
  free (plan->cuda);
  plan->cuda = NULL;
}

int
nb_backend_cuda_stats (const nb_plan *plan, nb_cuda_stats *stats)
{
  memset (stats, 0, sizeof *stats);
#ifdef NB_HAVE_CUDA
  if (plan->cuda != NULL && plan->cuda->ctx != NULL)
    {
      nb_cuda_get_stats (plan->cuda->ctx, stats);
      return 1;
    }
#else
  (void) plan;
#endif
  return 0;
}

#ifdef NB_HAVE_CUDA

/* A line in the plan's log even during an update (whose lines are quiet):
 * a fall-back must be seen. */
static void
log_always (nb_plan *plan, const char *what, const char *why)
{
  int quiet = plan->log.quiet;

  plan->log.quiet = 0;
  nb_log_printf (&plan->log, "%s%s; falling back to the CPU\n", what, why);
  plan->log.quiet = quiet;
}

/* After a CUDA error: the device context is freed and the plan stays on the
 * CPU. */
static void
break_backend (nb_plan *plan, const char *why)
{
  log_always (plan, "CUDA error ", why);
  nb_cuda_ctx_free (plan->cuda->ctx);
  plan->cuda->ctx = NULL;
  plan->cuda->broken = 1;
  plan->cuda->active = 0;
}

/* Why a plan that could use the GPU stays on the CPU, or NULL. */
static const char *
cpu_only_reason (const nb_plan *plan)
{
  if (plan->params.precision == NB_PRECISION_EXACT)
    return "-precision exact (the reference's arithmetic)";
  if (plan->params.precision != NB_PRECISION_SINGLE &&
      plan->params.precision != NB_PRECISION_DOUBLE)
    return "this precision";
  if (plan->interpolate)
    return "tricubic interpolation of the structure factors";
  if (plan->det.curved)
    return "a curved detector (-curved_det)";
  if (plan->src.comment_rows > 0)
    return "a -sourcefile with sources from '#' lines (the reference's arithmetic)";
  return NULL;
}

static void
scene_of_plan (const nb_plan *plan, unsigned rebuild, nb_cuda_scene *sc)
{
  const nb_detector *d = &plan->det;
  const nb_hkl_grid *g = &plan->hkl;

  memset (sc, 0, sizeof *sc);
  sc->is_double = plan->params.precision == NB_PRECISION_DOUBLE;
  sc->tables = sc->is_double ? (const void *) &plan->f64 : (const void *) &plan->f32;
  sc->fpixels = d->fpixels;
  sc->spixels = d->spixels;
  sc->f_begin = d->roi_xmin < 0 ? 0 : d->roi_xmin;
  sc->f_end = d->roi_xmax + 1 < d->fpixels ? d->roi_xmax + 1 : d->fpixels;
  sc->s_begin = d->roi_ymin < 0 ? 0 : d->roi_ymin;
  sc->s_end = d->roi_ymax + 1 < d->spixels ? d->roi_ymax + 1 : d->spixels;
  if (sc->f_end < sc->f_begin)
    sc->f_end = sc->f_begin;
  if (sc->s_end < sc->s_begin)
    sc->s_end = sc->s_begin;
  sc->mask = plan->mask;
  if (g->F != NULL && g->hkls != 0)
    sc->F_cells = (size_t) (g->h_range + 1) * (size_t) (g->k_range + 1) * (size_t) (g->l_range + 1);
  sc->F_changed = (rebuild & STAGE_BIT (NB_STAGE_STRUCTURE_FACTORS)) != 0;
  sc->mask_changed = (rebuild & STAGE_BIT (NB_STAGE_BUFFERS)) != 0;
}

#endif /* NB_HAVE_CUDA */

nb_status
nb_backend_sync (nb_plan *plan, unsigned rebuild, nb_error *err)
{
  const nb_params *p = &plan->params;
  const char *name = p->backend == NB_BACKEND_CUDA ? "cuda" : "auto";
  char why[256];

  if (p->backend == NB_BACKEND_CPU)
    {
      nb_backend_free (plan);
      return NB_OK;
    }
  if (p->backend != NB_BACKEND_AUTO && p->backend != NB_BACKEND_CUDA)
    return nb_error_set (err, NB_ERR_INVALID, "-backend %d: allowed auto, cpu or cuda",
                         (int) p->backend);
  if (p->backend == NB_BACKEND_AUTO && getenv ("NB_BACKEND") != NULL &&
      strcmp (getenv ("NB_BACKEND"), "cpu") == 0)
    {
      nb_backend_free (plan);
      nb_log_printf (&plan->log, "backend auto: NB_BACKEND=cpu; running on the CPU\n");
      return NB_OK;
    }
  if (!nb_cuda_device_available (why, sizeof why))
    {
      nb_backend_free (plan);
      if (p->backend == NB_BACKEND_CUDA)
        return nb_error_set (err, NB_ERR_UNSUPPORTED, "-backend cuda: %s", why);
      nb_log_printf (&plan->log, "backend auto: %s; running on the CPU\n", why);
      return NB_OK;
    }

#ifdef NB_HAVE_CUDA
  {
    const char *reason = cpu_only_reason (plan);
    nb_cuda_plan *c;
    nb_cuda_scene sc;

    if (plan->cuda == NULL && (plan->cuda = calloc (1, sizeof *plan->cuda)) == NULL)
      return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
    c = plan->cuda;
    if (c->broken)
      return NB_OK;
    if (reason != NULL)
      {
        /* the device context goes: a plan of another precision comes back to a new key */
        nb_cuda_ctx_free (c->ctx);
        c->ctx = NULL;
        c->active = 0;
        nb_log_printf (&plan->log, "backend %s: %s runs on the CPU\n", name, reason);
        return NB_OK;
      }
    if (c->ctx == NULL)
      {
        char device[256];

        if ((c->ctx = nb_cuda_ctx_new (why, sizeof why)) == NULL)
          {
            break_backend (plan, why);
            return NB_OK;
          }
        nb_cuda_probe (device, sizeof device);
        nb_log_printf (&plan->log, "backend %s: CUDA on %s\n", name, device);
        rebuild = ~0u; /* a new context has nothing */
      }
    scene_of_plan (plan, rebuild, &sc);
    switch (nb_cuda_ctx_sync (c->ctx, &sc, why, sizeof why))
      {
        case 1:
          c->active = 1;
          break;
        case -1:
          /* too large for this GPU's memory: the CPU, until an update brings
           * a scene that fits (a new context then starts from nothing) */
          nb_cuda_ctx_free (c->ctx);
          c->ctx = NULL;
          c->active = 0;
          nb_log_printf (&plan->log, "backend %s: %s; running on the CPU\n", name, why);
          break;
        default:
          break_backend (plan, why);
          break;
      }
  }
#else
  (void) rebuild;
  (void) name;
#endif
  return NB_OK;
}

#ifdef NB_HAVE_CUDA

/* Copies one band of the image from pinned memory, in pieces over the
 * OpenMP threads when it is large (one core does not saturate memory). */
static void
copy_band (float *dst, const float *src, size_t count, int threads)
{
  const size_t piece = 64 * 1024;
  const long pieces = (long) ((count + piece - 1) / piece);

  if (pieces <= 1)
    {
      memcpy (dst, src, count * sizeof (float));
      return;
    }
#ifdef _OPENMP
  if (threads <= 0)
    threads = omp_get_max_threads ();
  if (threads > 8)
    threads = 8;
  if (threads > pieces)
    threads = (int) pieces;
#else
  (void) threads;
#endif
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long i = 0; i < pieces; i++)
    {
      size_t first = (size_t) i * piece;
      size_t len = first + piece < count ? piece : count - first;

      memcpy (dst + first, src + first, len * sizeof (float));
    }
}

/* What kernel-fast.c does after its tiles: the solid-angle total (without the
 * masked pixels), and the first pixel of the phi = 0 carry-over from the
 * exact kernel. */
static void
finish_image (nb_plan *plan, float *image, int k, double omega)
{
  const int fpixels = plan->det.fpixels;
  long first;

  plan->omega_sum = k == 1 ? omega - nb_kernel_masked_omega (plan) : 0.0;
  if (k == 1 && (first = nb_kernel_first_phi_pixel (plan)) >= 0)
    image[first] =
        (float) nb_kernel_render_pixel (plan, (int) (first % fpixels), (int) (first / fpixels), 1);
}

static int
env_fault (void)
{
  const char *f = getenv ("NB_CUDA_FAULT");

  if (f == NULL)
    return 0;
  if (strcmp (f, "launch") == 0)
    return 1;
  if (strcmp (f, "capture") == 0)
    return 2;
  return 0;
}

static int
env_graphs (void)
{
  const char *g = getenv ("NB_CUDA_GRAPHS");

  return g == NULL || strcmp (g, "0") != 0;
}

#endif /* NB_HAVE_CUDA */

#ifdef NB_HAVE_CUDA
/* Progress of a CPU run that takes over a failed GPU run: the rows the GPU
 * already reported are not reported again (a caller sees progress only grow). */
typedef struct
{
  const nb_exec_options *outer;
  int reported;
} progress_after;

static void
forward_progress (void *user, int done, int total)
{
  progress_after *a = user;

  if (done > a->reported)
    {
      a->reported = done;
      a->outer->progress (a->outer->user, done, total);
    }
}
#endif

nb_status
nb_backend_cuda_execute (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err)
{
#ifdef NB_HAVE_CUDA
  nb_cuda_plan *c = plan->cuda;
  const nb_detector *d = &plan->det;
  const int fpixels = d->fpixels;
  const int s_begin = d->roi_ymin < 0 ? 0 : d->roi_ymin;
  const int s_end = d->roi_ymax + 1 < d->spixels ? d->roi_ymax + 1 : d->spixels;
  const int rows = s_end > s_begin ? s_end - s_begin : 0;
  const int k = opts && opts->preview_stride > 1 ? opts->preview_stride : 1;
  const int threads = opts ? opts->threads : 0;
  nb_cuda_stats before, after;
  char why[256];
  int nbands = 0, cancelled = 0, reported = 0;
  double omega = 0.0;

  nb_error_clear (err);
  plan->omega_sum = 0.0; /* as the CPU's execute: no stale sum after a cancel */
  if (nb_cancel_requested (opts))
    return nb_error_set (err, NB_ERR_CANCELLED, "cancelled");

  nb_cuda_get_stats (c->ctx, &before);
  if (!nb_cuda_run_begin (c->ctx, k, env_graphs (), env_fault (), &nbands, why, sizeof why))
    goto failed;
  nb_cuda_get_stats (c->ctx, &after);
  if (after.graph_failures > before.graph_failures && !c->graph_error_logged)
    {
      /* not an error of the run: the same sequence goes as plain launches */
      int quiet = plan->log.quiet;

      plan->log.quiet = 0;
      nb_log_printf (&plan->log, "CUDA graph capture failed (%s); using plain launches\n",
                     nb_cuda_graph_error (c->ctx));
      plan->log.quiet = quiet;
      c->graph_error_logged = 1;
    }

  /* as the CPU's tiles: rows reported as their band arrives, the flag read
   * after each band */
  for (int b = 0; b < nbands && !cancelled; b++)
    {
      const float *data;
      size_t at, count;
      long done;

      if (!nb_cuda_run_wait (c->ctx, b, &data, &at, &count, why, sizeof why))
        goto failed;
      copy_band (image + at, data, count, threads);
      done = (long) ((at + count) / (size_t) fpixels) - s_begin;
      if (done > rows)
        done = rows;
      if (opts && opts->progress && done > reported)
        {
          opts->progress (opts->user, (int) done, rows);
          reported = (int) done;
        }
      cancelled = nb_cancel_requested (opts);
    }
  if (!nb_cuda_run_end (c->ctx, &omega, why, sizeof why))
    goto failed;
  if (cancelled)
    return nb_error_set (err, NB_ERR_CANCELLED, "cancelled");

  finish_image (plan, image, k, omega);
  return NB_OK;

failed:
  nb_cuda_run_end (c->ctx, NULL, NULL, 0);
  break_backend (plan, why);
  if (reported > 0 && opts != NULL && opts->progress != NULL)
    {
      nb_exec_options cpu = *opts;
      progress_after after_gpu = { opts, reported };

      cpu.progress = forward_progress;
      cpu.user = &after_gpu;
      return nb_kernel_execute_fast (plan, image, &cpu, err);
    }
  return nb_kernel_execute_fast (plan, image, opts, err);
#else
  return nb_kernel_execute_fast (plan, image, opts, err);
#endif
}

int
nb_backend_cuda_emulate (nb_plan *plan, float *image, int stride)
{
#ifdef NB_HAVE_CUDA
  nb_cuda_scene sc;
  double omega = 0.0;
  const int k = stride > 1 ? stride : 1;

  if (cpu_only_reason (plan) != NULL)
    return 0;
  scene_of_plan (plan, 0, &sc);
  nb_cuda_emulate (&sc, k, image, &omega);
  finish_image (plan, image, k, omega);
  return 1;
#else
  (void) plan;
  (void) image;
  (void) stride;
  return 0;
#endif
}
