/* nb-cuda.h: the CUDA backend's C interface (engine/cuda/nb-cuda.cu), used by
 * backend-cuda.c.  Compiled by the C compiler and by nvcc.
 *
 * A context is the GPU side of one plan: two streams (kernels, and copies
 * back), the device copies of the fast kernel's tables (nb_f32_ctx or
 * nb_f64_ctx: sources, orientations, structure factors), and per panel of
 * the detector (one without -detector) its mask, output image and scalars
 * (the geometry: pix0, fdet, sdet, odet, pixel size, thickness, ROI...), and
 * a pinned host image.  The tables are allocated once per cache key
 * (numbers of sources and orientation steps, structure-factor grid size,
 * precision, number of panels), a panel's buffers once per panel key (pixel
 * counts, oversample, mask or none); a sync with unchanged keys uploads only
 * the tables whose contents changed, and the scalars travel as the kernels'
 * by-value parameter.  A detector of panels is synced panel by panel, panel
 * 0 first: the tables are shared (every panel's must equal panel 0's), and a
 * run renders one panel (nb_cuda_run.panel) as an image of its own.
 *
 * A run of the full image is a pipeline of bands of rows: band b's kernel,
 * then, on the copy stream, its copy to host memory while band b + 1's kernel
 * runs.  Bands are launched a few ahead of the one the host waits for
 * (nb_cuda_run_wait() launches the next), so a cancelled run stops launching
 * within a few bands and progress follows the kernels.  The copies go
 * straight into the caller's image when it is page-locked (nb_image_alloc()),
 * else into the context's pinned image (allocated when first needed), which
 * the caller copies from.  After
 * the last band the kernel stream sums the solid angles and, when asked,
 * computes the image's statistics (finite count, maximum, the values at the
 * window's percentile ranks: nb-stats.h, here in four 8-bit digit passes).
 * A preview renders one pixel per k x k block into a compact grid of blocks,
 * 1/k^2 of the pixels, and copies only that back: the host fills the blocks.
 *
 * CUDA graphs are not used: replaying the captured sequence measured 1.5x
 * slower than these plain launches on an H100 at 4096^2 (3.75-4.06 ms
 * against 2.46 ms, issue 16), and a graph fixes the destination of every
 * copy, which now changes from frame to frame.
 *
 * Errors: every function returns 1 on success and 0 on a CUDA error, with a
 * one-line message in @why ("cudaErrorX (text) in call").  After an error the
 * context must only be freed (the caller falls back to the CPU).
 *
 * Threads: one context is used by one thread at a time; contexts are
 * independent (each has its own streams and buffers).
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
    int is_double; /* 1: @tables is an nb_f64_ctx, else an nb_f32_ctx */
    const void
        *tables; /* nb_f32_ctx or nb_f64_ctx (kernels/nb-kernel.h), built by nb_fast_prepare() */
    int fpixels, spixels;
    int f_begin, f_end, s_begin, s_end; /* ROI, half-open, inside the detector */
    const uint16_t *mask;               /* fpixels * spixels, 0 = skip; or NULL */
    size_t F_cells;   /* number of values of the structure-factor grid (0: none) */
    int F_changed;    /* the structure factors may have changed since the last sync */
    int mask_changed; /* the mask may have changed since the last sync */
    int panel;        /* this scene is panel @panel (0 ..) of the detector's */
    int n_panels;     /* panels (1 without -detector) */
  } nb_cuda_scene;

  /* Counters, for tests and the benchmark. */
  typedef struct
  {
    long allocations;       /* device table sets allocated (once per cache key) */
    long panel_allocations; /* panel buffer sets allocated (once per panel key) */
    long uploads_sources;   /* incident, 1/lambda and polarization tables uploaded */
    long uploads_orient;    /* orientation table (a, b, c of every step) uploaded */
    long uploads_F;         /* structure-factor grid uploaded */
    long uploads_mask;      /* mask uploaded */
    long param_changes;     /* syncs that changed the kernels' scalar parameters */
    long runs;              /* runs begun (full images and previews) */
    long band_launches;     /* band kernels launched (full images) */
    long direct_runs;       /* full images copied straight into the caller's pinned image */
    long stats_runs;        /* runs that computed the statistics on the GPU */
  } nb_cuda_stats;

  /* What one run computes. */
  typedef struct
  {
    int stride;            /* <= 1: the full image; k >= 2: a preview of k x k blocks */
    float *dest;           /* full image: page-locked fpixels * spixels floats the bands are
                              copied into, or NULL: the context's pinned image */
    int stats;             /* full image: 0 none; 1 finite count and maximum; 2 also the
                              values at the ranks of @percentiles */
    double percentiles[2]; /* sanitised (nb_stats_percentiles()), low first */
    int fault;             /* tests: 1 = the first kernel launch fails (a real
                              cudaErrorInvalidConfiguration) */
    int panel;             /* the panel rendered (its fpixels x spixels are the image) */
  } nb_cuda_run;

  /* What a finished run gives besides the image. */
  typedef struct
  {
    double omega_sum;    /* full image: the sum of its sub-pixel solid angles; else 0 */
    double kernel_ms;    /* full image: from the first band kernel's start to the last
                            one's end (CUDA events); else 0 */
    int has_stats;       /* the fields below are set (a full image asked for them) */
    uint64_t finite;     /* finite pixels */
    float max;           /* the largest finite pixel, 0 when none */
    int has_values;      /* @values are set: stats 2 and finite > 0 */
    uint64_t ranks[4];   /* nb_stats_ranks() of the percentiles */
    double positions[2]; /* likewise */
    float values[4];     /* the finite pixels at those ranks */
  } nb_cuda_result;

  /* nb_cuda_probe: 1 when a device of compute capability 8.0 or newer and a
 * driver are present; @why gets the device's name and capability, or the
 * reason.  Probes once per process (thread-safe); cheap afterwards. */
  int nb_cuda_probe (char *why, size_t n);

  /* nb_cuda_start: probes and creates the device's primary context on a thread
 * of its own, once per process, and returns at once; nb_cuda_started() says
 * whether it was called; nb_cuda_start_wait() joins the thread (if it runs),
 * as nb_cuda_ctx_new() does first.  nb_cuda_probe() waits for the probe only. */
  void nb_cuda_start (void);
  int nb_cuda_started (void);
  void nb_cuda_start_wait (void);

  /* nb_cuda_host_alloc, nb_cuda_host_free: page-locked host memory (NULL when
 * there is no device or it cannot be had); nb_cuda_host_is_pinned: 1 when
 * @p is page-locked memory the device can copy into directly. */
  void *nb_cuda_host_alloc (size_t bytes);
  void nb_cuda_host_free (void *p);
  int nb_cuda_host_is_pinned (const void *p);

  /* nb_cuda_ctx_new: a context on the current device (NULL with @why on error). */
  nb_cuda_ctx *nb_cuda_ctx_new (char *why, size_t n);

  /* nb_cuda_ctx_free: waits for the context's work and frees it (NULL allowed;
 * errors are ignored, so a broken context can be freed). */
  void nb_cuda_ctx_free (nb_cuda_ctx *ctx);

  /* nb_cuda_ctx_sync: makes the device state of panel scene->panel match
 * @scene (see above); with panels, panel 0 first, then the others in any
 * order.  Returns 1; 0 after a CUDA error; -1 when the scene does not fit
 * this device's free memory, or a panel's sources or orientations differ
 * from panel 0's, which is no error of the device: @why says why in both
 * cases. */
  int nb_cuda_ctx_sync (nb_cuda_ctx *ctx, const nb_cuda_scene *scene, char *why, size_t n);

  /* nb_cuda_preview_blocks: the compact grid of a preview of stride @k: @bx
 * blocks along the ROI's fast axis, @by along its slow axis (0 x 0 for an
 * empty ROI).  Block (j, m) covers pixels f_begin + j k .. and s_begin + m k
 * .., clipped to the ROI. */
  static inline void
  nb_cuda_preview_blocks (const nb_cuda_scene *sc, int k, int *bx, int *by)
  {
    const int w = sc->f_end - sc->f_begin, h = sc->s_end - sc->s_begin;

    *bx = w > 0 && h > 0 ? (w + k - 1) / k : 0;
    *by = w > 0 && h > 0 ? (h + k - 1) / k : 0;
  }

  /* nb_cuda_run_begin: launches a run of the synced scene (@run, see above).
 * *@nbands: the number of bands the result comes back in (a preview: one, its
 * compact grid of blocks; 0 when the grid is empty). */
  int
  nb_cuda_run_begin (nb_cuda_ctx *ctx, const nb_cuda_run *run, int *nbands, char *why, size_t n);

  /* nb_cuda_run_wait: launches the bands due and waits until band @band (bands
 * are waited for in order) is in host memory.  Full image: *@data points to
 * its first pixel (in the run's dest, or in the context's pinned image, valid
 * until the next run), *@first is that pixel's index in the image and
 * *@count the number of pixels; bands are consecutive and cover the image.  A
 * preview: *@data is the compact grid of nb_cuda_preview_blocks(), row by row,
 * *@first 0 and *@count its size. */
  int nb_cuda_run_wait (nb_cuda_ctx *ctx,
                        int band,
                        const float **data,
                        size_t *first,
                        size_t *count,
                        char *why,
                        size_t n);

  /* nb_cuda_run_end: waits for the whole run, also after a run abandoned
 * half-way (cancelled: the bands not launched yet never are); @result (may be
 * NULL) gets what a run that went to its end computed (zeroes otherwise). */
  int nb_cuda_run_end (nb_cuda_ctx *ctx, nb_cuda_result *result, char *why, size_t n);

  /* nb_cuda_get_stats: the context's counters. */
  void nb_cuda_get_stats (const nb_cuda_ctx *ctx, nb_cuda_stats *stats);

  /* nb_cuda_emulate: the kernels' pixel code (render, preview, ROI and mask)
 * run on the host, one pixel after the other: what a run of @scene with
 * @stride computes, without a device (the tests compare it with the CPU's
 * fast kernel).  A full image goes to @out (fpixels * spixels) and its solid
 * angles to *@omega_sum; a preview's compact grid (nb_cuda_preview_blocks())
 * to @out, and *@omega_sum is 0. */
  void nb_cuda_emulate (const nb_cuda_scene *scene, int stride, float *out, double *omega_sum);

  /* nb_cuda_emulate_stats: the statistics kernels' code run on the host over
 * @image (@n floats), as a run with @stats (1 or 2) and @percentiles computes
 * them into @result. */
  void nb_cuda_emulate_stats (
      const float *image, size_t n, int stats, const double percentiles[2], nb_cuda_result *result);

#ifdef __cplusplus
}
#endif
