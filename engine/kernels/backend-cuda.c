/* backend-cuda.c: the choice of backend for a plan, and the C side of the
 * CUDA backend (engine/kernels/cuda/nb-cuda.cu): what to upload after a build, and a
 * run: the bands as they arrive (straight into the caller's image when it is
 * page-locked, else copied from the backend's pinned image), a preview's
 * blocks filled from its compact grid, the statistics the GPU computed, the
 * phi = 0 first pixel on the CPU as kernel-fast.c does, and the
 * fall-back to the CPU on a CUDA error.
 *
 * Built with and without CUDA; without it, auto means the CPU and cuda is
 * NB_ERR_UNSUPPORTED.
 */
#include "nb-backend.h"
#include "base/nb-stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* -backend auto's estimate (documented at NB_BACKEND_AUTO, nanobragg.h):
 * samples per second of one CPU thread, above what the fast kernels do on an
 * AVX-512 core (2026-11 on the development machine's EPYC: 3.3e8 single and
 * 1.4e8 double on workload a, 2.9e8 and 1.0e8 with structure factors), so
 * that the estimate errs towards the CPU; the GPU's start-up (creating the
 * CUDA context took 250-360 ms on an H100 machine) and its copy back. */
#define AUTO_RATE_SINGLE 4e8
#define AUTO_RATE_DOUBLE 1.5e8
#define AUTO_START_S     0.3
#define AUTO_BYTES_PER_S 5e9

typedef struct nb_cuda_plan nb_cuda_plan;

struct nb_cuda_plan
{
  int active;   /* the plan's runs go to the GPU */
  int broken;   /* a CUDA error happened: the CPU for the rest of the plan's life */
  int started;  /* nb_backend_choose() started the CUDA context */
  int auto_cpu; /* -backend auto chose the CPU by its estimate at this build */
  char auto_why[200];
  double kernel_ms; /* the last full image's kernels (CUDA events) */
  int panel;        /* the panel synced or rendered next (nb_backends_select_panel) */
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
nb_backend_cuda_panel (nb_plan *plan, int i)
{
  if (plan->cuda != NULL)
    plan->cuda->panel = i;
}

double
nb_backend_cuda_kernel_ms (const nb_plan *plan)
{
  return plan->cuda != NULL ? plan->cuda->kernel_ms : 0.0;
}

void
nb_backend_free (nb_plan *plan)
{
  if (plan->cuda == NULL)
    return;
#ifdef NB_HAVE_CUDA
  /* a plan that failed while the context was being created: no thread of
   * ours left inside the driver when the program exits */
  if (plan->cuda->started && plan->cuda->ctx == NULL)
    nb_cuda_start_wait ();
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

/* NB_BACKEND=cpu: auto means the CPU (nb-backend.h). */
static int
env_cpu (void)
{
  const char *b = getenv ("NB_BACKEND");

  return b != NULL && strcmp (b, "cpu") == 0;
}

void
nb_cuda_warm_up (const nb_params *params)
{
#ifdef NB_HAVE_CUDA
  if (params->backend == NB_BACKEND_CUDA || (params->backend == NB_BACKEND_AUTO && !env_cpu ()))
    nb_cuda_start ();
#else
  (void) params;
#endif
}

/* ---- image buffers ---- */

#ifdef NB_HAVE_CUDA
static int pinned_handed_out; /* atomic: nb_image_alloc() returned page-locked memory */
#endif

void *
nb_image_alloc (size_t bytes, int pinned)
{
#ifdef NB_HAVE_CUDA
  void *p;

  if (pinned && (p = nb_cuda_host_alloc (bytes)) != NULL)
    {
      __atomic_store_n (&pinned_handed_out, 1, __ATOMIC_RELEASE);
      return p;
    }
#else
  (void) pinned;
#endif
  return nb_alloc_large (bytes);
}

void
nb_image_free (void *image)
{
  if (image == NULL)
    return;
#ifdef NB_HAVE_CUDA
  /* a process that never had page-locked images never asks the driver */
  if (__atomic_load_n (&pinned_handed_out, __ATOMIC_ACQUIRE) && nb_cuda_host_is_pinned (image))
    {
      nb_cuda_host_free (image);
      return;
    }
#endif
  free (image);
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
roi_of (const nb_plan *plan, int *f_begin, int *f_end, int *s_begin, int *s_end)
{
  const nb_detector *d = &plan->det;

  *f_begin = d->roi_xmin < 0 ? 0 : d->roi_xmin;
  *f_end = d->roi_xmax + 1 < d->fpixels ? d->roi_xmax + 1 : d->fpixels;
  *s_begin = d->roi_ymin < 0 ? 0 : d->roi_ymin;
  *s_end = d->roi_ymax + 1 < d->spixels ? d->roi_ymax + 1 : d->spixels;
  if (*f_end < *f_begin)
    *f_end = *f_begin;
  if (*s_end < *s_begin)
    *s_end = *s_begin;
}

static void
scene_of_plan (const nb_plan *plan, unsigned rebuild, nb_cuda_scene *sc)
{
  const nb_detector *d = &plan->det;
  const nb_hkl_grid *g = &plan->hkl;

  memset (sc, 0, sizeof *sc);
  sc->is_double = plan->params.precision == NB_PRECISION_DOUBLE;
  /* the fast kernels' tables, prepared just before (nb_backends_prepare's order) */
  sc->tables = sc->is_double ? (const void *) &plan->fast->f64 : (const void *) &plan->fast->f32;
  sc->fpixels = d->fpixels;
  sc->spixels = d->spixels;
  roi_of (plan, &sc->f_begin, &sc->f_end, &sc->s_begin, &sc->s_end);
  sc->mask = plan->mask;
  if (g->F != NULL && g->hkls != 0)
    sc->F_cells = (size_t) (g->h_range + 1) * (size_t) (g->k_range + 1) * (size_t) (g->l_range + 1);
  sc->F_changed = (rebuild & STAGE_BIT (NB_STAGE_STRUCTURE_FACTORS)) != 0;
  sc->mask_changed = (rebuild & STAGE_BIT (NB_STAGE_BUFFERS)) != 0;
  sc->panel = plan->cuda != NULL ? plan->cuda->panel : 0;
  sc->n_panels = plan->n_panels > 0 ? plan->n_panels : 1;
}

/* Panel @i (-1: back to outside execute) in place as execute_panels (plan.c)
 * puts it, without backend.c (which calls this file): its det, steps, mask
 * and fast tables, which nb_backends_set_panel() would rebuild too (the GPU
 * and its emulation take only plans the fast kernels take). */
static nb_status
gpu_select_panel (nb_plan *plan, int i, nb_error *err)
{
  nb_kernels_select_panel (plan, i);
  if (plan->cuda != NULL)
    plan->cuda->panel = i < 0 ? 0 : i;
  return nb_fast_prepare (plan, 0, err);
}

/* The scene of every panel (one without panels) to the device: panel 0's
 * tables, each panel's geometry and mask, panel by panel with its det, steps,
 * mask and fast tables in place as execute renders it.  nb_cuda_ctx_sync()'s
 * result; NB_ERR_NOMEM in *@st. */
static int
sync_panels (nb_plan *plan, unsigned rebuild, char *why, size_t n, nb_status *st, nb_error *err)
{
  nb_cuda_scene sc;
  int r = 1;

  *st = NB_OK;
  if (plan->n_panels == 0)
    {
      plan->cuda->panel = 0;
      scene_of_plan (plan, rebuild, &sc);
      return nb_cuda_ctx_sync (plan->cuda->ctx, &sc, why, n);
    }
  for (int i = 0; i < plan->n_panels && r == 1; i++)
    {
      if ((*st = gpu_select_panel (plan, i, err)) != NB_OK)
        break;
      scene_of_plan (plan, rebuild, &sc);
      r = nb_cuda_ctx_sync (plan->cuda->ctx, &sc, why, n);
    }
  if (*st == NB_OK)
    *st = gpu_select_panel (plan, -1, err);
  else
    gpu_select_panel (plan, -1, NULL);
  return r;
}

/* One image's CPU time and the GPU's start-up, as NB_BACKEND_AUTO says. */
/* The sub-pixel samples in @d's ROI, per source and orientation step. */
static double
roi_samples (const nb_detector *d)
{
  int f0 = d->roi_xmin < 0 ? 0 : d->roi_xmin, s0 = d->roi_ymin < 0 ? 0 : d->roi_ymin;
  int f1 = d->roi_xmax + 1 < d->fpixels ? d->roi_xmax + 1 : d->fpixels;
  int s1 = d->roi_ymax + 1 < d->spixels ? d->roi_ymax + 1 : d->spixels;

  if (f1 <= f0 || s1 <= s0)
    return 0.0;
  return (double) (f1 - f0) * (double) (s1 - s0) * (double) d->oversample * (double) d->oversample *
         (double) d->thicksteps;
}

static void
auto_estimate (const nb_plan *plan, double *cpu_s, double *gpu_s, double *samples, int *threads)
{
  const nb_sources *s = &plan->src;
  const nb_crystal *x = &plan->xtal;
  double sources, pixels = 0.0;

  sources = plan->params.source_file != NULL
                ? 1.0
                : (double) s->hdivsteps * (double) s->vdivsteps * (double) s->dispsteps;
  *samples = 0.0;
  for (int i = 0; i < (plan->n_panels > 0 ? plan->n_panels : 1); i++)
    {
      const nb_detector *d = plan->n_panels > 0 ? &plan->panels[i].det : &plan->det;

      *samples += roi_samples (d);
      pixels += (double) d->fpixels * (double) d->spixels;
    }
  *samples *= sources * (double) x->mosaic_domains * (double) x->phisteps;
#ifdef _OPENMP
  *threads = omp_get_max_threads ();
#else
  *threads = 1;
#endif
  *cpu_s = *samples /
           ((plan->params.precision == NB_PRECISION_DOUBLE ? AUTO_RATE_DOUBLE : AUTO_RATE_SINGLE) *
            (double) *threads);
  *gpu_s = AUTO_START_S + pixels * sizeof (float) / AUTO_BYTES_PER_S;
}

#endif /* NB_HAVE_CUDA */

void
nb_backend_choose (nb_plan *plan, int work_known)
{
#ifdef NB_HAVE_CUDA
  const nb_params *p = &plan->params;
  nb_cuda_plan *c;

  if (p->backend == NB_BACKEND_CPU || (p->backend == NB_BACKEND_AUTO && env_cpu ()) ||
      (p->backend == NB_BACKEND_AUTO && !work_known) || cpu_only_reason (plan) != NULL)
    return; /* nb_backend_sync says why */
  if (plan->cuda == NULL && (plan->cuda = calloc (1, sizeof *plan->cuda)) == NULL)
    return; /* nb_backend_sync reports it */
  c = plan->cuda;
  c->auto_cpu = 0;
  if (p->backend == NB_BACKEND_AUTO && c->ctx == NULL && !nb_cuda_started ())
    {
      double cpu_s, gpu_s, samples;
      int threads;

      auto_estimate (plan, &cpu_s, &gpu_s, &samples, &threads);
      if (cpu_s <= gpu_s)
        {
          c->auto_cpu = 1;
          snprintf (c->auto_why, sizeof c->auto_why,
                    "one image is about %.3g ms on the CPU (%.3g samples, %d threads), less "
                    "than the GPU's start-up of about %.0f ms",
                    cpu_s * 1e3, samples, threads, gpu_s * 1e3);
          return;
        }
    }
  /* the context is created while the plan reads its structure factors */
  nb_cuda_start ();
  c->started = 1;
#else
  (void) plan;
  (void) work_known;
#endif
}

int
nb_backend_may_use_gpu (const nb_plan *plan)
{
  const nb_params *p = &plan->params;

  /* no probe: it would wait for the start thread's; without a device the
   * plan fails at nb_backend_sync anyway */
  if (p->backend == NB_BACKEND_CUDA)
    return 1;
#ifdef NB_HAVE_CUDA
  /* auto: only where the context is started (no probe for a one-shot plan) */
  if (p->backend == NB_BACKEND_AUTO && !env_cpu () && nb_cuda_started ())
    return nb_cuda_device_available (NULL, 0);
#endif
  return 0;
}

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
  if (p->backend == NB_BACKEND_AUTO && env_cpu ())
    {
      nb_backend_free (plan);
      nb_log_printf (&plan->log, "backend auto: NB_BACKEND=cpu; running on the CPU\n");
      return NB_OK;
    }
#ifdef NB_HAVE_CUDA
  /* auto on its estimate: no probe, so a short run never pays the driver's start */
  if (p->backend == NB_BACKEND_AUTO && plan->cuda != NULL && plan->cuda->auto_cpu &&
      cpu_only_reason (plan) == NULL && !plan->cuda->broken)
    {
      nb_cuda_ctx_free (plan->cuda->ctx);
      plan->cuda->ctx = NULL;
      plan->cuda->active = 0;
      nb_log_printf (&plan->log, "backend auto: %s; running on the CPU\n", plan->cuda->auto_why);
      return NB_OK;
    }
#endif
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
    nb_status st;

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
    switch (sync_panels (plan, rebuild, why, sizeof why, &st, err))
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
    if (st != NB_OK)
      return st;
  }
#else
  (void) rebuild;
  (void) name;
#endif
  return NB_OK;
}

#ifdef NB_HAVE_CUDA

/* The OpenMP threads for a pass over @pixels pixels of host memory: one core
 * does not saturate memory, a few do; small images stay on one thread. */
static int
memory_threads (size_t pixels, int threads)
{
#ifdef _OPENMP
  if (pixels < 256 * 1024)
    return 1;
  if (threads <= 0)
    threads = omp_get_max_threads ();
  return threads > 8 ? 8 : threads;
#else
  (void) pixels;
  (void) threads;
  return 1;
#endif
}

/* Copies one band of the image from the backend's pinned image (the
 * caller's image is pageable). */
static void
copy_band (float *dst, const float *src, size_t count, int threads)
{
  const size_t piece = 64 * 1024;
  const long pieces = (long) ((count + piece - 1) / piece);

  threads = memory_threads (count, threads);
  if (threads > pieces)
    threads = (int) pieces;
  if (threads <= 1)
    {
      memcpy (dst, src, count * sizeof (float));
      return;
    }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long i = 0; i < pieces; i++)
    {
      size_t first = (size_t) i * piece;
      size_t len = first + piece < count ? piece : count - first;

      memcpy (dst + first, src + first, len * sizeof (float));
    }
}

/* A preview from its compact grid of blocks (nb_cuda_preview_blocks()): each
 * block's value over its pixels, 0 outside the ROI and on masked pixels, as
 * kernel-fast.c's preview fills the image.  *@finite and *@max_key: the
 * statistics of what was written (nb-stats.h keys). */
static void
fill_preview (const nb_plan *plan,
              const nb_cuda_scene *sc,
              int k,
              const float *blocks,
              float *image,
              int threads,
              uint64_t *finite,
              uint32_t *max_key)
{
  const int fpixels = sc->fpixels, spixels = sc->spixels;
  const int f0 = sc->f_begin, f1 = sc->f_end, s0 = sc->s_begin, s1 = sc->s_end;
  const uint16_t *mask = plan->mask;
  uint64_t count = 0;
  uint32_t top = 0;
  int bx, by;

  nb_cuda_preview_blocks (sc, k, &bx, &by);
  threads = memory_threads ((size_t) fpixels * (size_t) spixels, threads);
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : count)                \
    reduction(max : top)
  for (int s = 0; s < spixels; s++)
    {
      float *row = image + (size_t) s * (size_t) fpixels;
      uint64_t zeros = 0;
      uint32_t key;

      if (s < s0 || s >= s1 || bx == 0)
        {
          memset (row, 0, (size_t) fpixels * sizeof (float));
          zeros = (uint64_t) fpixels;
        }
      else
        {
          const float *b = blocks + (size_t) ((s - s0) / k) * (size_t) bx;
          const uint16_t *m = mask != NULL ? mask + (size_t) s * (size_t) fpixels : NULL;

          memset (row, 0, (size_t) f0 * sizeof (float));
          memset (row + f1, 0, (size_t) (fpixels - f1) * sizeof (float));
          zeros = (uint64_t) (fpixels - (f1 - f0));
          for (int j = 0; j < bx; j++)
            {
              const float v = b[j];
              const int fb = f0 + j * k, fe = fb + k < f1 ? fb + k : f1;
              int written = 0;

              for (int f = fb; f < fe; f++)
                if (m != NULL && m[f] == 0)
                  {
                    row[f] = 0.0f;
                    zeros++;
                  }
                else
                  {
                    row[f] = v;
                    written++;
                  }
              if (written > 0 && nb_stats_key (v, &key))
                {
                  count += (uint64_t) written;
                  top = key > top ? key : top;
                }
            }
        }
      if (zeros > 0 && nb_stats_key (0.0f, &key))
        {
          count += zeros;
          top = key > top ? key : top;
        }
    }
  *finite = count;
  *max_key = top;
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

/* @stats from what the GPU computed (@res) or the preview's fill. */
static void
stats_from_result (const nb_cuda_result *res, nb_exec_stats *stats)
{
  stats->finite = (size_t) res->finite;
  stats->max = res->max;
  stats->has_window = 0;
  stats->low = 0.0;
  stats->high = 1.0;
  if (stats->window && res->finite == 0)
    stats->has_window = 1;
  else if (stats->window && res->has_values)
    {
      nb_stats_window (res->positions, res->ranks, res->values, res->max, &stats->low,
                       &stats->high);
      stats->has_window = 1;
    }
  stats->valid = 1;
}

/* A preview's @stats from its fill: the finite count and the maximum (no
 * window: a preview keeps the window of the last full image). */
static void
preview_stats (uint64_t finite, uint32_t max_key, nb_exec_stats *stats)
{
  nb_cuda_result res;
  const int window = stats->window;

  memset (&res, 0, sizeof res);
  res.finite = finite;
  res.max = finite > 0 ? nb_stats_value (max_key) : 0.0f;
  stats->window = 0;
  stats_from_result (&res, stats);
  stats->window = window;
}

static int
env_fault (void)
{
  const char *f = getenv ("NB_CUDA_FAULT");

  return f != NULL && strcmp (f, "launch") == 0;
}

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

#endif /* NB_HAVE_CUDA */

nb_status
nb_backend_cuda_execute (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err)
{
#ifdef NB_HAVE_CUDA
  nb_cuda_plan *c = plan->cuda;
  const int fpixels = plan->det.fpixels;
  const int k = opts && opts->preview_stride > 1 ? opts->preview_stride : 1;
  const int threads = opts ? opts->threads : 0;
  nb_exec_stats *want = opts ? opts->stats : NULL;
  nb_cuda_scene sc;
  nb_cuda_run run;
  nb_cuda_result res;
  char why[256];
  int nbands = 0, cancelled = 0, reported = 0, rows;
  uint64_t preview_finite = 0;
  uint32_t preview_max = 0;

  nb_error_clear (err);
  plan->omega_sum = 0.0; /* as the CPU's execute: no stale sum after a cancel */
  c->kernel_ms = 0.0;
  if (want != NULL)
    want->valid = 0;
  if (nb_cancel_requested (opts))
    return nb_error_set (err, NB_ERR_CANCELLED, "cancelled");

  scene_of_plan (plan, 0, &sc);
  rows = sc.s_end - sc.s_begin;
  memset (&run, 0, sizeof run);
  run.stride = k;
  run.panel = c->panel;
  run.fault = env_fault ();
  /* the copies go straight into a page-locked image (nb_image_alloc()) */
  run.dest = k == 1 && nb_cuda_host_is_pinned (image) ? image : NULL;
  /* the Q-3 pixel is replaced after the GPU: its statistics would miss it */
  if (want != NULL && k == 1 && nb_kernel_first_phi_pixel (plan) < 0)
    {
      run.stats = want->window ? 2 : 1;
      nb_stats_percentiles (want->low_percentile, want->high_percentile, run.percentiles);
    }
  if (!nb_cuda_run_begin (c->ctx, &run, &nbands, why, sizeof why))
    goto failed;

  /* as the CPU's tiles: rows reported as their band arrives, the flag read
   * after each band */
  for (int b = 0; b < nbands && !cancelled; b++)
    {
      const float *data;
      size_t at, count;
      long done;

      if (!nb_cuda_run_wait (c->ctx, b, &data, &at, &count, why, sizeof why))
        goto failed;
      if (k > 1)
        {
          fill_preview (plan, &sc, k, data, image, threads, &preview_finite, &preview_max);
          done = rows;
        }
      else
        {
          if (data != image + at)
            copy_band (image + at, data, count, threads);
          done = (long) ((at + count) / (size_t) fpixels) - sc.s_begin;
        }
      if (done > rows)
        done = rows;
      if (opts && opts->progress && done > reported)
        {
          opts->progress (opts->user, (int) done, rows);
          reported = (int) done;
        }
      cancelled = nb_cancel_requested (opts);
    }
  if (k > 1 && nbands == 0) /* an empty ROI: zeros */
    fill_preview (plan, &sc, k, NULL, image, threads, &preview_finite, &preview_max);
  if (!nb_cuda_run_end (c->ctx, &res, why, sizeof why))
    goto failed;
  if (cancelled)
    return nb_error_set (err, NB_ERR_CANCELLED, "cancelled");

  finish_image (plan, image, k, res.omega_sum);
  c->kernel_ms = res.kernel_ms;
  if (want != NULL && k > 1)
    preview_stats (preview_finite, preview_max, want);
  else if (want != NULL && res.has_stats)
    stats_from_result (&res, want);
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

#ifdef NB_HAVE_CUDA
/* nb_backend_cuda_emulate() of the plan's panel as it stands (its det, mask
 * and tables) into @image, its block; *@omega: its solid angles, *@finite and
 * *@max_key: a preview's fill statistics.  0 when out of memory. */
static int
emulate_panel (
    nb_plan *plan, float *image, int k, double *omega, uint64_t *finite, uint32_t *max_key)
{
  nb_cuda_scene sc;

  scene_of_plan (plan, 0, &sc);
  *omega = 0.0;
  if (k == 1)
    {
      nb_cuda_emulate (&sc, 1, image, omega);
      finish_image (plan, image, 1, *omega);
      *omega = plan->omega_sum;
    }
  else
    {
      int bx, by;
      float *blocks;

      nb_cuda_preview_blocks (&sc, k, &bx, &by);
      if ((blocks = malloc (((size_t) bx * (size_t) by + 1) * sizeof (float))) == NULL)
        return 0;
      nb_cuda_emulate (&sc, k, blocks, omega);
      fill_preview (plan, &sc, k, blocks, image, 0, finite, max_key);
      free (blocks);
      finish_image (plan, image, k, 0.0);
    }
  return 1;
}
#endif

int
nb_backend_cuda_emulate (nb_plan *plan, float *image, int stride, nb_exec_stats *stats)
{
#ifdef NB_HAVE_CUDA
  const int k = stride > 1 ? stride : 1;
  const int panels = plan->n_panels > 0 ? plan->n_panels : 1;
  double omega_sum = 0.0;
  uint64_t finite = 0;
  uint32_t max_key = 0;
  int ok = 1;

  if (cpu_only_reason (plan) != NULL)
    return 0;
  /* panel by panel, as execute_panels (plan.c) renders them */
  for (int i = 0; i < panels && ok; i++)
    {
      double omega;
      uint64_t f = 0;
      uint32_t m = 0;

      if (plan->n_panels > 0 && gpu_select_panel (plan, i, NULL) != NB_OK)
        ok = 0;
      else
        ok = emulate_panel (plan, image + (plan->n_panels > 0 ? plan->panels[i].offset : 0), k,
                            &omega, &f, &m);
      omega_sum += ok ? omega : 0.0;
      finite += f;
      max_key = m > max_key ? m : max_key;
    }
  if (plan->n_panels > 0 && gpu_select_panel (plan, -1, NULL) != NB_OK)
    ok = 0;
  plan->omega_sum = k == 1 ? omega_sum : 0.0;
  if (!ok || stats == NULL)
    return ok;
  if (k == 1)
    {
      const nb_plan_panel *last = plan->n_panels > 0 ? &plan->panels[plan->n_panels - 1] : NULL;
      const nb_detector *d = last != NULL ? &last->det : &plan->det;

      nb_backend_cuda_emulate_stats (
          image, (last != NULL ? last->offset : 0) + (size_t) d->fpixels * (size_t) d->spixels,
          stats);
    }
  else
    preview_stats (finite, max_key, stats);
  return 1;
#else
  (void) plan;
  (void) image;
  (void) stride;
  (void) stats;
  return 0;
#endif
}

int
nb_backend_cuda_emulate_stats (const float *image, size_t n, nb_exec_stats *stats)
{
#ifdef NB_HAVE_CUDA
  nb_cuda_result res;
  double pct[2];

  nb_stats_percentiles (stats->low_percentile, stats->high_percentile, pct);
  nb_cuda_emulate_stats (image, n, stats->window ? 2 : 1, pct, &res);
  stats_from_result (&res, stats);
  return 1;
#else
  (void) image;
  (void) n;
  (void) stats;
  return 0;
#endif
}
