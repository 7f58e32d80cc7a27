/* nb-cuda.h: the CUDA backend's C interface (engine/cuda/nb-cuda.cu), used by
 * backend-cuda.c.  Compiled by the C compiler and by nvcc.
 *
 * A context is the GPU side of one plan: a stream, the device copies of the
 * fast kernel's tables (nb_f32_ctx or nb_f64_ctx: sources, orientations,
 * structure factors), the mask, the output image, a pinned host image, and
 * the captured CUDA graphs of the execute sequence.  Everything is allocated
 * once per cache key (pixel counts, oversample, numbers of sources and
 * orientation steps, structure-factor grid size, mask or none, precision);
 * a sync with an unchanged key uploads only the tables whose contents
 * changed, and the scalars travel as the kernels' by-value parameter,
 * written into the instantiated graph (cudaGraphExecKernelNodeSetParams).
 *
 * A run is: launch (the graph, or the same sequence as plain launches), then
 * the image comes back in bands, each waited for with nb_cuda_run_wait()
 * while the next is still being copied, then nb_cuda_run_end().
 *
 * Errors: every function returns 1 on success and 0 on a CUDA error, with a
 * one-line message in @why ("cudaErrorX (text) in call").  After an error the
 * context must only be freed (the caller falls back to the CPU).
 *
 * Debug switch (read by backend-cuda.c at each run, documented there):
 * NB_CUDA_FAULT=launch|capture makes a real CUDA error happen in the run.
 *
 * Threads: one context is used by one thread at a time; contexts are
 * independent (each has its own stream and buffers).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

  typedef struct nb_cuda_ctx nb_cuda_ctx;

  /* What to simulate: the fast kernel's tables of the plan's precision and the
 * frame.  Pointers are read during nb_cuda_ctx_sync() only. */
  typedef struct
  {
    int is_double;      /* 1: @tables is an nb_f64_ctx, else an nb_f32_ctx */
    const void *tables; /* nb_f32_ctx or nb_f64_ctx (nb-private.h), built by nb_fast_prepare() */
    int fpixels, spixels;
    int f_begin, f_end, s_begin, s_end; /* ROI, half-open, inside the detector */
    const uint16_t *mask;               /* fpixels * spixels, 0 = skip; or NULL */
    size_t F_cells;   /* number of values of the structure-factor grid (0: none) */
    int F_changed;    /* the structure factors may have changed since the last sync */
    int mask_changed; /* the mask may have changed since the last sync */
  } nb_cuda_scene;

  /* Counters, for tests and the benchmark. */
  typedef struct
  {
    long allocations;      /* device buffer sets allocated (once per cache key) */
    long uploads_sources;  /* incident, 1/lambda and polarization tables uploaded */
    long uploads_orient;   /* orientation table (a, b, c of every step) uploaded */
    long uploads_F;        /* structure-factor grid uploaded */
    long uploads_mask;     /* mask uploaded */
    long param_changes;    /* syncs that changed the kernels' scalar parameters */
    long graph_builds;     /* graphs captured and instantiated */
    long graph_failures;   /* captures that failed (runs then use plain launches) */
    long graph_launches;   /* runs replayed from a graph */
    long graph_param_sets; /* cudaGraphExecKernelNodeSetParams calls */
    long plain_launches;   /* runs made of plain launches */
  } nb_cuda_stats;

  /* nb_cuda_probe: 1 when a device of compute capability 8.0 or newer and a
 * driver are present; @why gets the device's name and capability, or the
 * reason.  Probes once per process (thread-safe); cheap afterwards. */
  int nb_cuda_probe (char *why, size_t n);

  /* nb_cuda_ctx_new: a context on the current device (NULL with @why on error). */
  nb_cuda_ctx *nb_cuda_ctx_new (char *why, size_t n);

  /* nb_cuda_ctx_free: waits for the context's work and frees it (NULL allowed;
 * errors are ignored, so a broken context can be freed). */
  void nb_cuda_ctx_free (nb_cuda_ctx *ctx);

  /* nb_cuda_ctx_sync: makes the device state match @scene (see above).
 * Returns 1; 0 after a CUDA error; -1 when the scene does not fit this
 * device's free memory, which is no error of the device: @why says why in
 * both cases. */
  int nb_cuda_ctx_sync (nb_cuda_ctx *ctx, const nb_cuda_scene *scene, char *why, size_t n);

  /* nb_cuda_run_begin: launches a run of the synced scene: the full image
 * (@stride <= 1) or a preview (one pixel per @stride x @stride block, copied
 * to its block); @use_graph: replay a graph captured once per cache key and
 * stride (captured now if needed; a failed capture falls back to plain
 * launches for this key); else plain launches.  @fault (tests): 1 = make the
 * kernel launch fail, 2 = make the graph capture fail.  *@nbands: the number
 * of bands the image comes back in. */
  int nb_cuda_run_begin (
      nb_cuda_ctx *ctx, int stride, int use_graph, int fault, int *nbands, char *why, size_t n);

  /* nb_cuda_run_wait: waits until band @band is in host memory; *@data points
 * to its first pixel (pinned memory of the context, valid until the next
 * run), *@first is that pixel's index in the image and *@count the number of
 * pixels.  Bands are consecutive and cover the image. */
  int nb_cuda_run_wait (nb_cuda_ctx *ctx,
                        int band,
                        const float **data,
                        size_t *first,
                        size_t *count,
                        char *why,
                        size_t n);

  /* nb_cuda_run_end: waits for the whole run (also after a run abandoned
 * half-way, e.g. cancelled); *@omega_sum: the sum of the sub-pixel solid
 * angles of a full image (0 for a preview), may be NULL. */
  int nb_cuda_run_end (nb_cuda_ctx *ctx, double *omega_sum, char *why, size_t n);

  /* nb_cuda_get_stats: the context's counters. */
  void nb_cuda_get_stats (const nb_cuda_ctx *ctx, nb_cuda_stats *stats);

  /* nb_cuda_graph_error: why the last graph capture failed ("" if none did). */
  const char *nb_cuda_graph_error (const nb_cuda_ctx *ctx);

  /* nb_cuda_emulate: the kernels' pixel code (render, preview, ROI and mask)
 * run on the host, one pixel after the other, into @image: what a run of
 * @scene with @stride computes, without a device (the tests compare it with
 * the CPU's fast kernel).  *@omega_sum as nb_cuda_run_end(). */
  void nb_cuda_emulate (const nb_cuda_scene *scene, int stride, float *image, double *omega_sum);

#ifdef __cplusplus
}
#endif
