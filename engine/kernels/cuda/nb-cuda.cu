/* nb-cuda.cu: the CUDA backend: kernels and their host side (nb-cuda.h).
 *
 * The kernels are the fast kernel of kernel-fast-body.h with one thread per
 * pixel instead of a vector lane per pixel: the same loops in the same order
 * (sensor layers, sub-pixels slow then fast, sources, orientation steps), the
 * same caching of the solid angle, polarization and capture fraction under
 * the -oversample_* flags, the same dmin cut and water background, and the
 * physics of one sample from nb-physics.h, the header the CPU kernels
 * compile too.  nvcc compiles this file with --fmad=false and without fast
 * math (as the C compiler's -ffp-contract=off -fno-fast-math), so sums and
 * products round as on the CPU; only the library functions exp, sin and cos
 * (thickness, round and Gaussian crystals) may differ from glibc's in the
 * last place.
 *
 * Layout: a block is 32 x 4 pixels, so a warp is 32 neighbouring pixels of a
 * row (coalesced stores), and its 4 rows are close in cost.  The image is
 * rendered in bands of rows, one launch each (nb-cuda.h).  Each block also
 * sums its pixels' solid angles (fixed order), and one more block adds the
 * per-block sums in a fixed order: the total does not vary from run to run,
 * nor with the banding.  A preview thread renders the centre of one k x k
 * block into the compact grid of blocks.
 *
 * The pixel code (render_pixel, full_pixel, preview_value) and the
 * statistics' per-pixel and selection code (stats_bin, stats_select) are
 * __host__ __device__: nb_cuda_emulate() and nb_cuda_emulate_stats() run
 * them on the CPU, and the tests compare that with the CPU's fast kernel and
 * statistics bit for bit in every CI run, GPU or not.
 *
 * Host C++ here uses no new, no exceptions and no std::; the static
 * initialisers nvcc writes into the launch stubs need libsupc++, which the
 * nvcc link step that meson uses for the engine's users brings.
 */
#include "kernels/nb-kernel.h"
#include "nb-cuda.h"
#include "base/nb-stats.h"

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The physics of one sample, once per precision (nb-physics.h). */
#define NB_REAL           float
#define NB_REAL_IS_DOUBLE 0
#define NB_PHYS(name)     name##_cuda_f32
#include "kernels/nb-physics.h"
#undef NB_PHYS
#undef NB_REAL_IS_DOUBLE
#undef NB_REAL

#define NB_REAL           double
#define NB_REAL_IS_DOUBLE 1
#define NB_PHYS(name)     name##_cuda_f64
#include "kernels/nb-physics.h"
#undef NB_PHYS
#undef NB_REAL_IS_DOUBLE
#undef NB_REAL

/* The pixel code below also compiles for the host (nb_cuda_emulate()). */
#define HD __host__ __device__ __forceinline__
#ifdef __CUDA_ARCH__
#define LDG(p) __ldg (p)
#else
#define LDG(p) (*(p))
#endif

#define BLOCK_X        32
#define BLOCK_Y        4
#define REDUCE_THREADS 1024
#define BAND_PIXELS    (1024 * 1024) /* a band: about 4 MB, a few waves of blocks */
#define MIN_BANDS      4
#define MAX_BANDS      32
#define AHEAD          3 /* bands launched beyond the one the host waits for */
#define STATS_THREADS  256
#define STATS_BINS     256 /* 8 bits of a key per pass */
#define STATS_PASSES   4

/* ------------------------------------------------------------------------- */
/* Device side */

/* phys<R>: the physics of nb-physics.h for precision R, under one name, so
 * that the kernels are templates.  C has no overloading, so the header's
 * functions carry a suffix (_cuda_f32, _cuda_f64); one macro writes both
 * specialisations. */
template <typename R> struct phys;

#define NB_PHYS_SPECIALISATION(R, SFX)                                                             \
  template <> struct phys<R>                                                                       \
  {                                                                                                \
    static HD R                                                                                    \
    solid_angle (R rinv, R omega_scale, int point_pixel)                                           \
    {                                                                                              \
      return nb_solid_angle_cuda_##SFX (rinv, omega_scale, point_pixel);                           \
    }                                                                                              \
    static HD R                                                                                    \
    square2 (R h, R k, R l, R Na, R Nb, R Nc)                                                      \
    {                                                                                              \
      return nb_lattice_square2_cuda_##SFX (h, k, l, Na, Nb, Nc);                                  \
    }                                                                                              \
    static HD R                                                                                    \
    shape2 (int shape, R h, R k, R l, R Na, R Nb, R Nc, R fudge, const R *astar)                   \
    {                                                                                              \
      return nb_lattice_shape2_cuda_##SFX (shape, h, k, l, Na, Nb, Nc, fudge, astar);              \
    }                                                                                              \
    static HD R                                                                                    \
    kahn (R K, const R *inc, const R *B, const R *E, R dx, R dy, R dz)                             \
    {                                                                                              \
      return nb_kahn_factor_cuda_##SFX (K, inc, B, E, dx, dy, dz);                                 \
    }                                                                                              \
    static HD int                                                                                  \
    cell (int h_min,                                                                               \
          int k_min,                                                                               \
          int l_min,                                                                               \
          int h_count,                                                                             \
          int k_count,                                                                             \
          int l_count,                                                                             \
          int k_stride,                                                                            \
          int l_stride,                                                                            \
          R h,                                                                                     \
          R k,                                                                                     \
          R l)                                                                                     \
    {                                                                                              \
      return nb_structure_factor_cell_cuda_##SFX (h_min, k_min, l_min, h_count, k_count, l_count,  \
                                                  k_stride, l_stride, h, k, l);                    \
    }                                                                                              \
  };

NB_PHYS_SPECIALISATION (float, f32)
NB_PHYS_SPECIALISATION (double, f64)

/* The kernels' parameter, passed by value: the scalars of nb_f32_ctx /
 * nb_f64_ctx, the frame and the device addresses of the tables.  Zeroed
 * before it is filled, so that two of them compare with memcmp. */
template <typename R> struct scene
{
  R pix0[3], fdet[3], sdet[3], odet[3];
  R subpix, pixel_size, close_distance;
  R thick, thickstep, mu;
  R kahn, fudge, dmin;
  R Na, Nb, Nc;
  R astar[9];
  R default_F, I_start, scale, physical_bg;
  int oversample, thicksteps, point_pixel;
  int os_thick, os_polar, os_omega, os_any, nopolar, water, shape;
  int nsources, nsteps;
  int h_min, k_min, l_min, h_count, k_count, l_count, k_stride, l_stride;
  int fpixels, spixels, f_begin, f_end, s_begin, s_end;
  const R *inc;         /* 3 * nsources */
  const R *inv_lambda;  /* nsources */
  const R *pol;         /* 6 * nsources: B, E */
  const R *abc;         /* 9 * nsteps */
  const R *F;           /* structure factors, or NULL */
  const uint16_t *mask; /* or NULL */
  float *out;
  double *partials; /* one solid-angle sum per block of the full image */
};

/* One pixel, as render_chunk() of kernel-fast-body.h computes each of its
 * lanes; *@osum gets the sum of its sub-pixel solid angles. */
template <typename R>
static HD float
render_pixel (const scene<R> &s, int fpixel, int spixel, R *osum_out)
{
  typedef phys<R> P;
  const int N = s.oversample;
  R acc = s.I_start;
  R polar = s.nopolar ? R (1.0) : R (0.0);
  R omega = R (0.0), capture = R (0.0), osum = R (0.0);

  for (int t = 0; t < s.thicksteps; t++)
    {
      const R Odet = t * s.thickstep;

      capture = s.thick == R (0.0) ? R (1.0) : R (0.0);
      for (int subS = 0; subS < N; subS++)
        for (int subF = 0; subF < N; subF++)
          {
            const R Sdet = s.subpix * (R) (spixel * N + subS) + s.subpix * R (0.5);
            const R bx = Sdet * s.sdet[0] + Odet * s.odet[0] + s.pix0[0];
            const R by = Sdet * s.sdet[1] + Odet * s.odet[1] + s.pix0[1];
            const R bz = Sdet * s.sdet[2] + Odet * s.odet[2] + s.pix0[2];
            const R Fdet = s.subpix * (R) (fpixel * N + subF) + s.subpix * R (0.5);
            const R px = Fdet * s.fdet[0] + bx;
            const R py = Fdet * s.fdet[1] + by;
            const R pz = Fdet * s.fdet[2] + bz;
            const R r = sqrt (px * px + py * py + pz * pz);
            const R inv = R (1.0) / r;
            const R d[3] = { px * inv, py * inv, pz * inv };
            const R w =
                P::solid_angle (inv, s.pixel_size * s.pixel_size * s.close_distance, s.point_pixel);

            omega = (omega == R (0.0) || s.os_omega) ? w : omega;
            osum += omega;
            if (s.thick != R (0.0) && (capture == R (0.0) || s.os_thick))
              {
                const R par = d[0] * s.odet[0] + d[1] * s.odet[1] + d[2] * s.odet[2];
                capture =
                    exp (-t * s.thickstep * s.mu / par) - exp (-(t + 1) * s.thickstep * s.mu / par);
              }

            for (int src = 0; src < s.nsources; src++)
              {
                const R inc[3] = { LDG (s.inc + 3 * src), LDG (s.inc + 3 * src + 1),
                                   LDG (s.inc + 3 * src + 2) };
                const R il = LDG (s.inv_lambda + src);
                const R qx = (d[0] - inc[0]) * il;
                const R qy = (d[1] - inc[1]) * il;
                const R qz = (d[2] - inc[2]) * il;

                if (s.dmin > R (0.0))
                  {
                    const R stol = R (0.5) * sqrt (qx * qx + qy * qy + qz * qz);
                    if (stol > R (0.0) && s.dmin > R (0.5) / stol)
                      continue; /* beyond the resolution limit: no factor either */
                  }
                if (polar == R (0.0) || s.os_polar)
                  {
                    const R *pb = s.pol + 6 * src;
                    const R B[3] = { LDG (pb), LDG (pb + 1), LDG (pb + 2) };
                    const R E[3] = { LDG (pb + 3), LDG (pb + 4), LDG (pb + 5) };
                    polar = P::kahn (s.kahn, inc, B, E, d[0], d[1], d[2]);
                  }

                for (int j = 0; j < s.nsteps; j++)
                  {
                    const R *a = s.abc + 9 * j;
                    const R h = LDG (a) * qx + LDG (a + 1) * qy + LDG (a + 2) * qz;
                    const R k = LDG (a + 3) * qx + LDG (a + 4) * qy + LDG (a + 5) * qz;
                    const R l = LDG (a + 6) * qx + LDG (a + 7) * qy + LDG (a + 8) * qz;
                    R term;

                    if (s.shape == NB_SHAPE_SQUARE)
                      term = P::square2 (h, k, l, s.Na, s.Nb, s.Nc);
                    else
                      term = P::shape2 (s.shape, h, k, l, s.Na, s.Nb, s.Nc, s.fudge, s.astar);
                    if (s.F != NULL)
                      {
                        /* the cell, then a load through the read-only cache */
                        const int cell = P::cell (s.h_min, s.k_min, s.l_min, s.h_count, s.k_count,
                                                  s.l_count, s.k_stride, s.l_stride, h, k, l);
                        const R F = cell >= 0 ? LDG (s.F + cell) : s.default_F;
                        term *= F * F;
                      }
                    else
                      term *= s.default_F * s.default_F;

                    if (!s.os_any)
                      acc += term;
                    else if (!(term == R (0.0) && !s.water))
                      {
                        /* the reference skips zero lattice terms (no factor either) */
                        acc += term;
                        if (s.os_thick)
                          acc *= capture;
                        if (s.os_polar)
                          acc *= polar;
                        if (s.os_omega)
                          acc *= omega;
                      }
                  }
              }
          }
    }

  {
    R v = s.scale * acc;

    if (!s.os_thick)
      v *= capture;
    if (!s.os_polar)
      v *= polar;
    if (!s.os_omega)
      v *= omega;
    if (s.physical_bg != R (0.0))
      v += s.scale * s.physical_bg * capture * polar * omega;
    *osum_out = osum;
    return (float) v;
  }
}

/* Pixel (@f, @sp) of the full image: 0 outside the ROI and where masked
 * (masked pixels are rendered first, as on the CPU, so that their solid
 * angle counts); *@osum: its solid angles. */
template <typename R>
static HD float
full_pixel (const scene<R> &s, int f, int sp, double *osum)
{
  float v = 0.0f;

  *osum = 0.0;
  if (f >= s.f_begin && f < s.f_end && sp >= s.s_begin && sp < s.s_end)
    {
      R o;

      v = render_pixel (s, f, sp, &o);
      *osum = (double) o;
      if (s.mask != NULL && LDG (s.mask + (size_t) sp * (size_t) s.fpixels + (size_t) f) == 0)
        v = 0.0f;
    }
  return v;
}

static HD int
imin (int a, int b)
{
  return a < b ? a : b;
}

/* Block (@j, @m) of a preview of stride @k: the centre of the ROI's k x k
 * block, clipped to the ROI as kernel-fast.c's preview_row() and
 * render_tile() choose it.  The host fills the block with it (masked pixels
 * 0). */
template <typename R>
static HD float
preview_value (const scene<R> &s, int k, int j, int m)
{
  const int fb = s.f_begin + j * k, sb = s.s_begin + m * k;
  const int f1 = imin (fb + k, s.f_end), s1 = imin (sb + k, s.s_end);
  const int fc = imin (fb + k / 2, f1 - 1), sc = imin (sb + k / 2, s1 - 1);
  R o;

  return render_pixel (s, fc, sc, &o);
}

/* ------------------------------------------------------------------------- */
/* Statistics: pass p histograms digit p (bits 31-24, 23-16, 15-8, 7-0) of
 * the keys whose higher digits are those of a wanted rank (pass 0: every
 * finite pixel, and it counts them and takes their maximum); the selection
 * after it finds each rank's digit and its rank among the keys that share it. */

/* The selection's state between passes (device memory; back to the host at
 * the end). */
typedef struct
{
  uint64_t finite;
  uint32_t max_key;
  int nslots;              /* histograms the current pass fills */
  uint32_t slot_prefix[4]; /* the key bits above the pass's digit, per histogram */
  int slot_of[4];          /* per rank: its histogram */
  uint64_t within[4];      /* per rank: its rank among the keys of its prefix */
  uint32_t prefix[4];      /* per rank: the key bits found so far */
  uint64_t ranks[4];
  double positions[2];
} stats_sel;

/* The histogram (-1: none) and bin of @key in pass @pass. */
static HD int
stats_bin (const stats_sel &sel, int pass, uint32_t key, int *bin)
{
  const int shift = 24 - 8 * pass;

  *bin = (int) ((key >> shift) & 0xffu);
  if (pass == 0)
    return 0;
  for (int h = 0; h < sel.nslots; h++)
    if (key >> (shift + 8) == sel.slot_prefix[h])
      return h;
  return -1;
}

/* After pass @pass, whose histograms are @hist (4 x STATS_BINS): each rank's
 * digit, and the histograms of the next pass.  Pass 0 first sets the ranks
 * of @percentiles (none without @window or finite pixels: nslots 0). */
static HD void
stats_select (
    stats_sel *sel, int pass, const uint64_t *hist, const double percentiles[2], int window)
{
  if (pass == 0)
    {
      if (sel->finite == 0 || !window)
        {
          sel->nslots = 0;
          return;
        }
      nb_stats_ranks (sel->finite, percentiles, sel->ranks, sel->positions);
      for (int r = 0; r < NB_STATS_RANKS; r++)
        {
          sel->within[r] = sel->ranks[r];
          sel->slot_of[r] = 0;
          sel->prefix[r] = 0;
        }
    }
  else if (sel->nslots == 0)
    return;
  for (int r = 0; r < NB_STATS_RANKS; r++)
    {
      uint64_t within;
      const uint32_t digit = nb_stats_find (hist + (size_t) sel->slot_of[r] * STATS_BINS, 0,
                                            STATS_BINS, 0, sel->within[r], &within);

      sel->within[r] = within;
      sel->prefix[r] = sel->prefix[r] << 8 | digit;
    }
  sel->nslots = nb_stats_slots (sel->prefix, sel->slot_of);
  for (int r = 0; r < NB_STATS_RANKS; r++)
    sel->slot_prefix[sel->slot_of[r]] = sel->prefix[r];
}

/* What a selection found, for the caller. */
static void
stats_result (const stats_sel *sel, int stats, nb_cuda_result *res)
{
  res->has_stats = 1;
  res->finite = sel->finite;
  res->max = sel->finite > 0 ? nb_stats_value (sel->max_key) : 0.0f;
  res->has_values = stats >= 2 && sel->finite > 0;
  if (res->has_values)
    {
      for (int r = 0; r < NB_STATS_RANKS; r++)
        {
          res->ranks[r] = sel->ranks[r];
          res->values[r] = nb_stats_value (sel->prefix[r]);
        }
      res->positions[0] = sel->positions[0];
      res->positions[1] = sel->positions[1];
    }
}

/* ------------------------------------------------------------------------- */
/* Kernels */

/* Band rows of the full image from block row @block_row0, one thread per
 * pixel; each block also writes the sum of its pixels' solid angles, in a
 * fixed order, at its place in the whole image's grid of blocks. */
template <typename R>
static __global__ void
__launch_bounds__ (BLOCK_X *BLOCK_Y)
    render_kernel (const __grid_constant__ scene<R> s, int block_row0)
{
  const int block_row = blockIdx.y + block_row0;
  const int f = blockIdx.x * BLOCK_X + threadIdx.x;
  const int sp = block_row * BLOCK_Y + threadIdx.y;
  __shared__ double warp_sum[BLOCK_Y];
  double osum = 0.0;

  if (f < s.fpixels && sp < s.spixels)
    s.out[(size_t) sp * (size_t) s.fpixels + (size_t) f] = full_pixel (s, f, sp, &osum);

  for (int off = BLOCK_X / 2; off > 0; off /= 2)
    osum += __shfl_down_sync (0xffffffffu, osum, off);
  if (threadIdx.x == 0)
    warp_sum[threadIdx.y] = osum;
  __syncthreads ();
  if (threadIdx.x == 0 && threadIdx.y == 0)
    {
      double t = warp_sum[0];

      for (int w = 1; w < BLOCK_Y; w++)
        t += warp_sum[w];
      s.partials[(size_t) block_row * gridDim.x + blockIdx.x] = t;
    }
}

/* The per-block sums of render_kernel, in a fixed order. */
static __global__ void
__launch_bounds__ (REDUCE_THREADS)
    reduce_kernel (const double *__restrict__ partials, int n, double *__restrict__ total)
{
  __shared__ double sum[REDUCE_THREADS];
  double t = 0.0;

  for (int i = threadIdx.x; i < n; i += REDUCE_THREADS)
    t += partials[i];
  sum[threadIdx.x] = t;
  __syncthreads ();
  for (int half = REDUCE_THREADS / 2; half > 0; half /= 2)
    {
      if ((int) threadIdx.x < half)
        sum[threadIdx.x] += sum[threadIdx.x + half];
      __syncthreads ();
    }
  if (threadIdx.x == 0)
    *total = sum[0];
}

/* A preview, one thread per k x k block, into the compact grid of @bx x @by
 * blocks at s.out. */
template <typename R>
static __global__ void
__launch_bounds__ (BLOCK_X *BLOCK_Y)
    preview_kernel (const __grid_constant__ scene<R> s, int k, int bx, int by)
{
  const int j = blockIdx.x * BLOCK_X + threadIdx.x, m = blockIdx.y * BLOCK_Y + threadIdx.y;

  if (j < bx && m < by)
    s.out[(size_t) m * (size_t) bx + (size_t) j] = preview_value (s, k, j, m);
}

/* Pass @pass of the statistics over @image: per-block histograms in shared
 * memory (a warp adds equal bins once: the background and the zeros outside
 * the ROI fall in few bins), added to @hist (4 x STATS_BINS). */
static __global__ void
__launch_bounds__ (STATS_THREADS) stats_pass_kernel (
    const float *__restrict__ image, size_t n, int pass, stats_sel *sel, uint64_t *hist)
{
  __shared__ unsigned int h[NB_STATS_RANKS * STATS_BINS];
  __shared__ stats_sel s;
  __shared__ unsigned long long block_finite;
  __shared__ unsigned int block_max;
  const unsigned lane = threadIdx.x % 32;
  unsigned long long finite = 0;
  unsigned int max_key = 0;

  for (int i = threadIdx.x; i < NB_STATS_RANKS * STATS_BINS; i += STATS_THREADS)
    h[i] = 0;
  if (threadIdx.x == 0)
    {
      s = *sel;
      block_finite = 0;
      block_max = 0;
    }
  __syncthreads ();
  if (pass > 0 && s.nslots == 0)
    return; /* the whole block: no window wanted, or no finite pixel */

  for (size_t i = (size_t) blockIdx.x * STATS_THREADS + threadIdx.x; i < n;
       i += (size_t) gridDim.x * STATS_THREADS)
    {
      uint32_t key;
      int bin = 0, slot = -1;

      if (nb_stats_key (image[i], &key))
        {
          if (pass == 0)
            {
              finite++;
              max_key = key > max_key ? key : max_key;
            }
          slot = stats_bin (s, pass, key, &bin);
        }
      {
        const int idx = slot >= 0 ? slot * STATS_BINS + bin : -1;
        const unsigned peers = __match_any_sync (__activemask (), idx);

        if (idx >= 0 && (unsigned) (__ffs (peers) - 1) == lane)
          atomicAdd (&h[idx], (unsigned) __popc (peers));
      }
    }
  if (pass == 0)
    {
      atomicAdd (&block_finite, finite);
      atomicMax (&block_max, max_key);
    }
  __syncthreads ();
  for (int i = threadIdx.x; i < NB_STATS_RANKS * STATS_BINS; i += STATS_THREADS)
    if (h[i] != 0)
      atomicAdd ((unsigned long long *) &hist[i], (unsigned long long) h[i]);
  if (threadIdx.x == 0 && pass == 0)
    {
      atomicAdd ((unsigned long long *) &sel->finite, block_finite);
      atomicMax (&sel->max_key, block_max);
    }
}

/* The selection after pass @pass: its histograms read into shared memory
 * at once, then one thread (the scan is short and sequential). */
static __global__ void
__launch_bounds__ (STATS_THREADS) stats_select_kernel (
    stats_sel *sel, int pass, const uint64_t *hist, double low_pct, double high_pct, int window)
{
  __shared__ uint64_t h[NB_STATS_RANKS * STATS_BINS];
  const double pct[2] = { low_pct, high_pct };

  for (int i = threadIdx.x; i < NB_STATS_RANKS * STATS_BINS; i += STATS_THREADS)
    h[i] = hist[i];
  __syncthreads ();
  if (threadIdx.x == 0)
    stats_select (sel, pass, h, pct, window);
}

/* ------------------------------------------------------------------------- */
/* Host side */

static int
fail (char *why, size_t n, cudaError_t e, const char *call)
{
  if (why != NULL && n > 0)
    snprintf (why, n, "%s (%s) in %.*s", cudaGetErrorName (e), cudaGetErrorString (e),
              (int) strcspn (call, " ("), call);
  return 0;
}

#define CK(call)                                                                                   \
  do                                                                                               \
    {                                                                                              \
      cudaError_t e_ = (call);                                                                     \
      if (e_ != cudaSuccess)                                                                       \
        return fail (why, n, e_, #call);                                                           \
    }                                                                                              \
  while (0)

/* The cache key: what the tables' sizes depend on; a panel's key: what its
 * buffers' do. */
typedef struct
{
  int is_double, nsources, nsteps, n_panels;
  size_t F_cells;
} cache_key;

typedef struct
{
  int fpixels, spixels, oversample, has_mask;
} panel_key;

/* One panel: its device image, mask and per-block solid angles, its bands
 * and the kernels' parameter (its geometry and the tables' addresses). */
typedef struct
{
  int have_key;
  panel_key key;
  uint16_t *d_mask;
  float *d_out;
  double *d_partials;
  int grid_x, grid_y; /* blocks of the panel's image */
  int nbands, band_rows;
  scene<float> s32;
  scene<double> s64;
} panel_state;

static scene<float> *
scene_in (panel_state *p, float)
{
  return &p->s32;
}

static scene<double> *
scene_in (panel_state *p, double)
{
  return &p->s64;
}

struct nb_cuda_ctx
{
  int device;
  int sms;                  /* multiprocessors: the statistics' grid */
  cudaStream_t stream;      /* kernels */
  cudaStream_t copy_stream; /* copies of the bands back */
  cudaEvent_t start, stop;  /* timing of the band kernels */

  int have_key;
  cache_key key;

  /* device */
  void *d_inc, *d_inv_lambda, *d_pol, *d_abc, *d_F;
  double *d_omega;
  stats_sel *d_sel;
  uint64_t *d_hist; /* STATS_PASSES x 4 x STATS_BINS */
  /* pinned host */
  float *h_out; /* h_out_pixels */
  size_t h_out_pixels;
  double *h_omega;
  stats_sel *h_sel;
  /* host copies of the uploaded tables, to upload only what changed */
  void *h_inc, *h_inv_lambda, *h_pol, *h_abc;

  cudaEvent_t rendered[MAX_BANDS], copied[MAX_BANDS];
  int nevents;

  panel_state *panels; /* npanels (key.n_panels once the tables are allocated) */
  int npanels;

  /* the run in progress, of panel @cur */
  nb_cuda_run run;
  panel_state *cur;
  int run_bands;    /* bands of this run (a preview: 1 or 0) */
  int run_launched; /* bands launched so far */
  int run_bx, run_by;
  int run_complete; /* every band launched: the tail's results will come */

  nb_cuda_stats stats;
};

#include "nb-cuda-probe.h"

/* -------- buffers -------- */

/* Frees a panel's buffers (errors ignored). */
static void
free_panel (panel_state *p)
{
  cudaFree (p->d_mask);
  cudaFree (p->d_out);
  cudaFree (p->d_partials);
  memset (p, 0, sizeof *p);
}

/* Frees everything sized by the cache keys (errors ignored: also used on a
 * broken context). */
static void
free_buffers (nb_cuda_ctx *ctx)
{
  void *dev[] = { ctx->d_inc, ctx->d_inv_lambda, ctx->d_pol, ctx->d_abc,
                  ctx->d_F,   ctx->d_omega,      ctx->d_sel, ctx->d_hist };
  void *pinned[] = { ctx->h_out, ctx->h_omega, ctx->h_sel };
  void *host[] = { ctx->h_inc, ctx->h_inv_lambda, ctx->h_pol, ctx->h_abc };

  for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
    if (dev[i] != NULL)
      cudaFree (dev[i]);
  for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++)
    if (pinned[i] != NULL)
      cudaFreeHost (pinned[i]);
  for (size_t i = 0; i < sizeof host / sizeof host[0]; i++)
    free (host[i]);
  for (int i = 0; i < ctx->nevents; i++)
    {
      cudaEventDestroy (ctx->rendered[i]);
      cudaEventDestroy (ctx->copied[i]);
    }
  for (int i = 0; i < ctx->npanels; i++)
    free_panel (&ctx->panels[i]);
  free (ctx->panels);
  ctx->panels = NULL;
  ctx->npanels = 0;
  ctx->cur = NULL;
  ctx->d_inc = ctx->d_inv_lambda = ctx->d_pol = ctx->d_abc = ctx->d_F = NULL;
  ctx->d_omega = NULL;
  ctx->d_sel = NULL;
  ctx->d_hist = NULL;
  ctx->h_out = NULL;
  ctx->h_out_pixels = 0;
  ctx->h_omega = NULL;
  ctx->h_sel = NULL;
  ctx->h_inc = ctx->h_inv_lambda = ctx->h_pol = ctx->h_abc = NULL;
  ctx->nevents = 0;
  ctx->have_key = 0;
}

/* 1 when @need bytes fit the device's free memory, less a sixteenth left for
 * the kernels' stacks and other users of the GPU; else -1 with @why (the
 * caller logs it and runs the plan on the CPU rather than failing half-way
 * through its allocations), 0 after a CUDA error.  @image: the bytes of the
 * image among @need, for the message. */
static int
fits (size_t need, size_t image, size_t F_bytes, char *why, size_t n)
{
  const double mb = 1e6;
  size_t free_bytes = 0, total_bytes = 0;

  CK (cudaMemGetInfo (&free_bytes, &total_bytes));
  if (need <= free_bytes - free_bytes / 16)
    return 1;
  if (why != NULL && n > 0)
    snprintf (why, n,
              "device memory: the plan needs %.1f MB more (image %.1f MB, structure factors "
              "%.1f MB) and %.1f of the GPU's %.1f MB are free",
              (double) need / mb, (double) image / mb, (double) F_bytes / mb,
              (double) free_bytes / mb, (double) total_bytes / mb);
  return -1;
}

/* Allocates the tables, the statistics' buffers and the events of @key:
 * 1; 0 after a CUDA error; -1 when they do not fit the device's free memory,
 * before anything is allocated.  @why says why. */
static int
alloc_tables (nb_cuda_ctx *ctx, const cache_key *key, char *why, size_t n)
{
  const size_t rs = key->is_double ? sizeof (double) : sizeof (float);
  const size_t ns = key->nsources > 0 ? (size_t) key->nsources : 1;
  const size_t nt = key->nsteps > 0 ? (size_t) key->nsteps : 1;
  const size_t hist_bytes = (size_t) STATS_PASSES * NB_STATS_RANKS * STATS_BINS * sizeof (uint64_t);
  const size_t need = (3 + 1 + 6) * ns * rs + 9 * nt * rs + key->F_cells * rs + sizeof (double) +
                      sizeof (stats_sel) + hist_bytes;
  int ok;

  if ((ok = fits (need, 0, key->F_cells * rs, why, n)) <= 0)
    return ok;
  CK (cudaMalloc (&ctx->d_inc, 3 * ns * rs));
  CK (cudaMalloc (&ctx->d_inv_lambda, ns * rs));
  CK (cudaMalloc (&ctx->d_pol, 6 * ns * rs));
  CK (cudaMalloc (&ctx->d_abc, 9 * nt * rs));
  if (key->F_cells > 0)
    CK (cudaMalloc (&ctx->d_F, key->F_cells * rs));
  CK (cudaMalloc ((void **) &ctx->d_omega, sizeof (double)));
  CK (cudaMalloc ((void **) &ctx->d_sel, sizeof (stats_sel)));
  CK (cudaMalloc ((void **) &ctx->d_hist, hist_bytes));
  CK (cudaMallocHost ((void **) &ctx->h_omega, sizeof (double)));
  CK (cudaMallocHost ((void **) &ctx->h_sel, sizeof (stats_sel)));
  for (int i = 0; i < MAX_BANDS; i++)
    {
      /* the copies' events are blocking: the host thread sleeps while it waits
       * for a band instead of spinning a core the viewer's main loop may need */
      CK (cudaEventCreateWithFlags (&ctx->rendered[i], cudaEventDisableTiming));
      if (cudaEventCreateWithFlags (&ctx->copied[i],
                                    cudaEventDisableTiming | cudaEventBlockingSync) != cudaSuccess)
        {
          cudaEventDestroy (ctx->rendered[i]);
          return fail (why, n, cudaGetLastError (), "cudaEventCreateWithFlags");
        }
      ctx->nevents = i + 1;
    }
  ctx->h_inc = calloc (3 * ns, rs);
  ctx->h_inv_lambda = calloc (ns, rs);
  ctx->h_pol = calloc (6 * ns, rs);
  ctx->h_abc = calloc (9 * nt, rs);
  if ((ctx->panels = (panel_state *) calloc ((size_t) key->n_panels, sizeof *ctx->panels)) != NULL)
    ctx->npanels = key->n_panels;
  if (ctx->h_inc == NULL || ctx->h_inv_lambda == NULL || ctx->h_pol == NULL || ctx->h_abc == NULL ||
      ctx->panels == NULL)
    return fail (why, n, cudaErrorMemoryAllocation, "calloc");
  ctx->key = *key;
  ctx->have_key = 1;
  ctx->stats.allocations++;
  return 1;
}

/* Allocates the image, mask and partial sums of panel @p of key @key, as
 * alloc_tables(). */
static int
alloc_panel (nb_cuda_ctx *ctx, panel_state *p, const panel_key *key, char *why, size_t n)
{
  const size_t npix = (size_t) key->fpixels * (size_t) key->spixels;
  size_t nblocks;
  int ok;

  p->grid_x = (key->fpixels + BLOCK_X - 1) / BLOCK_X;
  p->grid_y = (key->spixels + BLOCK_Y - 1) / BLOCK_Y;
  nblocks = (size_t) p->grid_x * (size_t) p->grid_y;
  /* gridDim.y <= 65535 holds: nb_params_validate allows at most 65536 rows,
   * 16384 blocks of BLOCK_Y */
  /* bands of about BAND_PIXELS, at least MIN_BANDS (the kernel renders one
   * while the last is copied, and progress and cancel have something to go
   * by), whole blocks of rows (each band's blocks write their own partial
   * sums) */
  p->band_rows = (int) (BAND_PIXELS / (size_t) key->fpixels);
  if (p->band_rows > (key->spixels + MIN_BANDS - 1) / MIN_BANDS)
    p->band_rows = (key->spixels + MIN_BANDS - 1) / MIN_BANDS;
  if ((key->spixels + p->band_rows - 1) / (p->band_rows > 0 ? p->band_rows : 1) > MAX_BANDS)
    p->band_rows = (key->spixels + MAX_BANDS - 1) / MAX_BANDS;
  p->band_rows = (p->band_rows + BLOCK_Y - 1) / BLOCK_Y * BLOCK_Y;
  if (p->band_rows < BLOCK_Y)
    p->band_rows = BLOCK_Y;
  p->nbands = (key->spixels + p->band_rows - 1) / p->band_rows;
  if ((ok = fits ((key->has_mask ? npix * sizeof (uint16_t) : 0) + npix * sizeof (float) +
                      nblocks * sizeof (double),
                  npix * sizeof (float), 0, why, n)) <= 0)
    return ok;
  if (key->has_mask)
    CK (cudaMalloc ((void **) &p->d_mask, npix * sizeof (uint16_t)));
  CK (cudaMalloc ((void **) &p->d_out, npix * sizeof (float)));
  CK (cudaMalloc ((void **) &p->d_partials, nblocks * sizeof (double)));
  p->key = *key;
  p->have_key = 1;
  ctx->stats.panel_allocations++;
  return 1;
}

/* Uploads @bytes of @src to @dst unless @shadow already holds them (and
 * keeps @shadow current).  *@uploaded is set when it copied. */
static int
upload_if_changed (nb_cuda_ctx *ctx,
                   void *dst,
                   void *shadow,
                   const void *src,
                   size_t bytes,
                   int force,
                   int *uploaded,
                   char *why,
                   size_t n)
{
  if (bytes == 0 || (!force && memcmp (shadow, src, bytes) == 0))
    return 1;
  memcpy (shadow, src, bytes);
  /* from pageable memory: returns once @shadow is staged, so it may change after */
  CK (cudaMemcpyAsync (dst, shadow, bytes, cudaMemcpyHostToDevice, ctx->stream));
  *uploaded = 1;
  return 1;
}
/* The scalars of @c and the frame of @sc into a zeroed @s (pointers left
 * NULL). */
template <typename R, typename C>
static void
fill_scene (scene<R> *sp, const C *c, const nb_cuda_scene *sc)
{
  scene<R> &s = *sp;

  memset (&s, 0, sizeof s);
  for (int k = 0; k < 3; k++)
    {
      s.pix0[k] = c->pix0[k];
      s.fdet[k] = c->fdet[k];
      s.sdet[k] = c->sdet[k];
      s.odet[k] = c->odet[k];
    }
  s.subpix = c->subpix;
  s.pixel_size = c->pixel_size;
  s.close_distance = c->close_distance;
  s.thick = c->thick;
  s.thickstep = c->thickstep;
  s.mu = c->mu;
  s.kahn = c->kahn;
  s.fudge = c->fudge;
  s.dmin = c->dmin;
  s.Na = c->Na;
  s.Nb = c->Nb;
  s.Nc = c->Nc;
  memcpy (s.astar, c->astar, sizeof s.astar);
  s.default_F = c->default_F;
  s.I_start = c->I_start;
  s.scale = c->scale;
  s.physical_bg = c->physical_bg;
  s.oversample = c->oversample;
  s.thicksteps = c->thicksteps;
  s.point_pixel = c->point_pixel;
  s.os_thick = c->os_thick;
  s.os_polar = c->os_polar;
  s.os_omega = c->os_omega;
  s.os_any = c->os_any;
  s.nopolar = c->nopolar;
  s.water = c->water;
  s.shape = (int) c->shape;
  s.nsources = c->nsources;
  s.nsteps = c->nsteps;
  s.h_min = c->h_min;
  s.k_min = c->k_min;
  s.l_min = c->l_min;
  s.h_count = c->h_count;
  s.k_count = c->k_count;
  s.l_count = c->l_count;
  s.k_stride = c->k_stride;
  s.l_stride = c->l_stride;
  s.fpixels = sc->fpixels;
  s.spixels = sc->spixels;
  s.f_begin = sc->f_begin;
  s.f_end = sc->f_end;
  s.s_begin = sc->s_begin;
  s.s_end = sc->s_end;
}

template <typename R, typename C>
static int
sync_scene (nb_cuda_ctx *ctx, const nb_cuda_scene *sc, const C *c, char *why, size_t n)
{
  const size_t npix = (size_t) sc->fpixels * (size_t) sc->spixels;
  const size_t ns = (size_t) c->nsources, nt = (size_t) c->nsteps;
  cache_key key;
  panel_key pkey;
  panel_state *p;
  int fresh = 0, src_up = 0, orient_up = 0, ok;
  scene<R> s, *cur;

  memset (&key, 0, sizeof key);
  key.is_double = sizeof (R) == sizeof (double);
  key.nsources = c->nsources;
  key.nsteps = c->nsteps;
  key.n_panels = sc->n_panels > 1 ? sc->n_panels : 1;
  key.F_cells = c->F != NULL ? sc->F_cells : 0;
  memset (&pkey, 0, sizeof pkey);
  pkey.fpixels = sc->fpixels;
  pkey.spixels = sc->spixels;
  pkey.oversample = c->oversample;
  pkey.has_mask = sc->mask != NULL;
  if (sc->panel < 0 || sc->panel >= key.n_panels)
    return fail (why, n, cudaErrorInvalidValue, "nb_cuda_ctx_sync (no such panel)");
  if (sc->panel > 0 && (!ctx->have_key || memcmp (&key, &ctx->key, sizeof key) != 0 ||
                        memcmp (ctx->h_inc, c->inc, 3 * ns * sizeof (R)) != 0 ||
                        memcmp (ctx->h_inv_lambda, c->inv_lambda, ns * sizeof (R)) != 0 ||
                        memcmp (ctx->h_pol, c->pol, 6 * ns * sizeof (R)) != 0 ||
                        memcmp (ctx->h_abc, c->abc, 9 * nt * sizeof (R)) != 0))
    {
      /* the panels share the tables panel 0 uploaded */
      if (why != NULL && n > 0)
        snprintf (why, n, "panel %d's sources or orientations differ from panel 0's", sc->panel);
      return -1;
    }
  if (!ctx->have_key || memcmp (&key, &ctx->key, sizeof key) != 0)
    {
      CK (cudaStreamSynchronize (ctx->stream));
      CK (cudaStreamSynchronize (ctx->copy_stream));
      free_buffers (ctx);
      if ((ok = alloc_tables (ctx, &key, why, n)) <= 0)
        return ok;
      fresh = 1;
    }
  if (sc->panel == 0)
    {
      if (!upload_if_changed (ctx, ctx->d_inc, ctx->h_inc, c->inc, 3 * ns * sizeof (R), fresh,
                              &src_up, why, n) ||
          !upload_if_changed (ctx, ctx->d_inv_lambda, ctx->h_inv_lambda, c->inv_lambda,
                              ns * sizeof (R), fresh, &src_up, why, n) ||
          !upload_if_changed (ctx, ctx->d_pol, ctx->h_pol, c->pol, 6 * ns * sizeof (R), fresh,
                              &src_up, why, n) ||
          !upload_if_changed (ctx, ctx->d_abc, ctx->h_abc, c->abc, 9 * nt * sizeof (R), fresh,
                              &orient_up, why, n))
        return 0;
      ctx->stats.uploads_sources += src_up;
      ctx->stats.uploads_orient += orient_up;
      if (key.F_cells > 0 && (fresh || sc->F_changed))
        {
          CK (cudaMemcpyAsync (ctx->d_F, c->F, key.F_cells * sizeof (R), cudaMemcpyHostToDevice,
                               ctx->stream));
          ctx->stats.uploads_F++;
        }
    }

  p = &ctx->panels[sc->panel];
  if (!p->have_key || memcmp (&pkey, &p->key, sizeof pkey) != 0)
    {
      CK (cudaStreamSynchronize (ctx->stream));
      CK (cudaStreamSynchronize (ctx->copy_stream));
      free_panel (p);
      if ((ok = alloc_panel (ctx, p, &pkey, why, n)) <= 0)
        return ok;
      fresh = 1;
    }
  if (pkey.has_mask && (fresh || sc->mask_changed))
    {
      CK (cudaMemcpyAsync (p->d_mask, sc->mask, npix * sizeof (uint16_t), cudaMemcpyHostToDevice,
                           ctx->stream));
      ctx->stats.uploads_mask++;
    }

  fill_scene (&s, c, sc);
  s.inc = (const R *) ctx->d_inc;
  s.inv_lambda = (const R *) ctx->d_inv_lambda;
  s.pol = (const R *) ctx->d_pol;
  s.abc = (const R *) ctx->d_abc;
  s.F = key.F_cells > 0 ? (const R *) ctx->d_F : NULL;
  s.mask = pkey.has_mask ? p->d_mask : NULL;
  s.out = p->d_out;
  s.partials = p->d_partials;
  cur = scene_in (p, R (0));
  if (fresh || memcmp (&s, cur, sizeof s) != 0)
    {
      *cur = s;
      if (!fresh)
        ctx->stats.param_changes++;
    }
  return 1;
}

extern "C" int
nb_cuda_ctx_sync (nb_cuda_ctx *ctx, const nb_cuda_scene *sc, char *why, size_t n)
{
  CK (cudaSetDevice (ctx->device));
  if (sc->is_double)
    return sync_scene<double> (ctx, sc, (const nb_f64_ctx *) sc->tables, why, n);
  return sync_scene<float> (ctx, sc, (const nb_f32_ctx *) sc->tables, why, n);
}

extern "C" nb_cuda_ctx *
nb_cuda_ctx_new (char *why, size_t n)
{
  nb_cuda_ctx *ctx;
  cudaError_t e = cudaSuccess;
  const char *call = NULL;

  nb_cuda_start_wait ();
  if (!nb_cuda_probe (why, n))
    return NULL;
  ctx = (nb_cuda_ctx *) calloc (1, sizeof *ctx);
  if (ctx == NULL)
    {
      fail (why, n, cudaErrorMemoryAllocation, "calloc");
      return NULL;
    }
  ctx->device = probe_device;
  if ((e = cudaSetDevice (ctx->device)) != cudaSuccess)
    call = "cudaSetDevice";
  else if ((e = cudaDeviceGetAttribute (&ctx->sms, cudaDevAttrMultiProcessorCount, ctx->device)) !=
           cudaSuccess)
    call = "cudaDeviceGetAttribute";
  else if ((e = cudaStreamCreateWithFlags (&ctx->stream, cudaStreamNonBlocking)) != cudaSuccess ||
           (e = cudaStreamCreateWithFlags (&ctx->copy_stream, cudaStreamNonBlocking)) !=
               cudaSuccess)
    call = "cudaStreamCreateWithFlags";
  else if ((e = cudaEventCreate (&ctx->start)) != cudaSuccess ||
           (e = cudaEventCreate (&ctx->stop)) != cudaSuccess)
    call = "cudaEventCreate";
  if (call != NULL)
    {
      fail (why, n, e, call);
      nb_cuda_ctx_free (ctx);
      return NULL;
    }
  return ctx;
}

extern "C" void
nb_cuda_ctx_free (nb_cuda_ctx *ctx)
{
  if (ctx == NULL)
    return;
  cudaSetDevice (ctx->device);
  /* a NULL stream would be the legacy default stream: only those created */
  if (ctx->stream != NULL)
    cudaStreamSynchronize (ctx->stream);
  if (ctx->copy_stream != NULL)
    cudaStreamSynchronize (ctx->copy_stream);
  free_buffers (ctx);
  if (ctx->start != NULL)
    cudaEventDestroy (ctx->start);
  if (ctx->stop != NULL)
    cudaEventDestroy (ctx->stop);
  if (ctx->stream != NULL)
    cudaStreamDestroy (ctx->stream);
  if (ctx->copy_stream != NULL)
    cudaStreamDestroy (ctx->copy_stream);
  cudaGetLastError (); /* leave no error of ours behind for the next call */
  free (ctx);
}

/* -------- runs -------- */

/* The launch of the first kernel of a run with @fault 1: an impossible block
 * (a real cudaErrorInvalidConfiguration, reported by the launch itself). */
static dim3
block_of (const nb_cuda_run *run, int first)
{
  return run->fault == 1 && first ? dim3 (BLOCK_X * 64, BLOCK_Y) : dim3 (BLOCK_X, BLOCK_Y);
}

/* The statistics of the full image, after its last band, on the kernel
 * stream, and their copy back. */
static int
launch_stats (nb_cuda_ctx *ctx, char *why, size_t n)
{
  const size_t npix = (size_t) ctx->cur->key.fpixels * (size_t) ctx->cur->key.spixels;
  const size_t hist_pass = (size_t) NB_STATS_RANKS * STATS_BINS;
  const int passes = ctx->run.stats >= 2 ? STATS_PASSES : 1;
  size_t grid = ctx->sms > 0 ? 4 * (size_t) ctx->sms : 128;

  if (grid * STATS_THREADS > npix)
    grid = (npix + STATS_THREADS - 1) / STATS_THREADS;
  CK (cudaMemsetAsync (ctx->d_sel, 0, sizeof (stats_sel), ctx->stream));
  CK (cudaMemsetAsync (ctx->d_hist, 0, STATS_PASSES * hist_pass * sizeof (uint64_t), ctx->stream));
  // clang-format off
  for (int p = 0; p < passes; p++)
    {
      uint64_t *hist = ctx->d_hist + (size_t) p * hist_pass;

      stats_pass_kernel<<<(unsigned) grid, STATS_THREADS, 0, ctx->stream>>> (ctx->cur->d_out, npix,
                                                                              p, ctx->d_sel, hist);
      CK (cudaGetLastError ());
      stats_select_kernel<<<1, STATS_THREADS, 0, ctx->stream>>> (
          ctx->d_sel, p, hist, ctx->run.percentiles[0], ctx->run.percentiles[1],
          ctx->run.stats >= 2);
      CK (cudaGetLastError ());
    }
  // clang-format on
  CK (cudaMemcpyAsync (ctx->h_sel, ctx->d_sel, sizeof (stats_sel), cudaMemcpyDeviceToHost,
                       ctx->stream));
  ctx->stats.stats_runs++;
  return 1;
}

/* Band @b of the full image: its kernel, then, on the copy stream once the
 * kernel is done, its copy to the host.  After the last band the kernel
 * stream sums the solid angles and computes the statistics asked for. */
template <typename R>
static int
launch_band (nb_cuda_ctx *ctx, const scene<R> &s, int b, char *why, size_t n)
{
  const panel_state *p = ctx->cur;
  const int row0 = b * p->band_rows;
  const int rows = imin (p->band_rows, p->key.spixels - row0);
  const dim3 grid (p->grid_x, (rows + BLOCK_Y - 1) / BLOCK_Y);
  const size_t first = (size_t) row0 * (size_t) p->key.fpixels;
  const size_t count = (size_t) rows * (size_t) p->key.fpixels;
  float *host = ctx->run.dest != NULL ? ctx->run.dest : ctx->h_out;

  if (b == 0)
    CK (cudaEventRecord (ctx->start, ctx->stream));
  // clang-format off
  render_kernel<R><<<grid, block_of (&ctx->run, b == 0), 0, ctx->stream>>> (s, row0 / BLOCK_Y);
  // clang-format on
  CK (cudaGetLastError ());
  CK (cudaEventRecord (ctx->rendered[b], ctx->stream));
  CK (cudaStreamWaitEvent (ctx->copy_stream, ctx->rendered[b], 0));
  CK (cudaMemcpyAsync (host + first, p->d_out + first, count * sizeof (float),
                       cudaMemcpyDeviceToHost, ctx->copy_stream));
  CK (cudaEventRecord (ctx->copied[b], ctx->copy_stream));
  ctx->stats.band_launches++;
  if (b == ctx->run_bands - 1)
    {
      CK (cudaEventRecord (ctx->stop, ctx->stream));
      // clang-format off
      reduce_kernel<<<1, REDUCE_THREADS, 0, ctx->stream>>> (p->d_partials,
                                                            p->grid_x * p->grid_y,
                                                            ctx->d_omega);
      // clang-format on
      CK (cudaGetLastError ());
      CK (cudaMemcpyAsync (ctx->h_omega, ctx->d_omega, sizeof (double), cudaMemcpyDeviceToHost,
                           ctx->stream));
      if (ctx->run.stats > 0 && !launch_stats (ctx, why, n))
        return 0;
      ctx->run_complete = 1;
    }
  return 1;
}

/* A preview's compact grid of blocks and its copy back. */
template <typename R>
static int
launch_preview (nb_cuda_ctx *ctx, const scene<R> &s, char *why, size_t n)
{
  const int bx = ctx->run_bx, by = ctx->run_by;
  const dim3 grid ((bx + BLOCK_X - 1) / BLOCK_X, (by + BLOCK_Y - 1) / BLOCK_Y);

  // clang-format off
  preview_kernel<R><<<grid, block_of (&ctx->run, 1), 0, ctx->stream>>> (s, ctx->run.stride, bx,
                                                                        by);
  // clang-format on
  CK (cudaGetLastError ());
  CK (cudaMemcpyAsync (ctx->h_out, ctx->cur->d_out, (size_t) bx * (size_t) by * sizeof (float),
                       cudaMemcpyDeviceToHost, ctx->stream));
  CK (cudaEventRecord (ctx->copied[0], ctx->stream));
  ctx->run_complete = 1;
  return 1;
}

/* Launches the run's bands up to (not including) @upto. */
static int
launch_due (nb_cuda_ctx *ctx, int upto, char *why, size_t n)
{
  if (upto > ctx->run_bands)
    upto = ctx->run_bands;
  while (ctx->run_launched < upto)
    {
      int ok;

      if (ctx->run.stride > 1)
        ok = ctx->key.is_double ? launch_preview (ctx, ctx->cur->s64, why, n)
                                : launch_preview (ctx, ctx->cur->s32, why, n);
      else
        ok = ctx->key.is_double ? launch_band (ctx, ctx->cur->s64, ctx->run_launched, why, n)
                                : launch_band (ctx, ctx->cur->s32, ctx->run_launched, why, n);
      if (!ok)
        return 0;
      ctx->run_launched++;
    }
  return 1;
}

extern "C" int
nb_cuda_run_begin (nb_cuda_ctx *ctx, const nb_cuda_run *run, int *nbands, char *why, size_t n)
{
  size_t npix;

  *nbands = 0;
  CK (cudaSetDevice (ctx->device));
  if (!ctx->have_key || run->panel < 0 || run->panel >= ctx->key.n_panels ||
      !ctx->panels[run->panel].have_key)
    return fail (why, n, cudaErrorNotReady, "nb_cuda_run_begin (no scene)");
  ctx->cur = &ctx->panels[run->panel];
  npix = (size_t) ctx->cur->key.fpixels * (size_t) ctx->cur->key.spixels;
  ctx->run = *run;
  ctx->run_launched = 0;
  ctx->run_complete = 0;
  if (run->stride > 1)
    {
      nb_cuda_scene roi;

      memset (&roi, 0, sizeof roi);
      roi.f_begin = ctx->key.is_double ? ctx->cur->s64.f_begin : ctx->cur->s32.f_begin;
      roi.f_end = ctx->key.is_double ? ctx->cur->s64.f_end : ctx->cur->s32.f_end;
      roi.s_begin = ctx->key.is_double ? ctx->cur->s64.s_begin : ctx->cur->s32.s_begin;
      roi.s_end = ctx->key.is_double ? ctx->cur->s64.s_end : ctx->cur->s32.s_end;
      nb_cuda_preview_blocks (&roi, run->stride, &ctx->run_bx, &ctx->run_by);
      ctx->run_bands = ctx->run_bx > 0 && ctx->run_by > 0 ? 1 : 0;
      ctx->run.dest = NULL;
      ctx->run.stats = 0;
    }
  else
    {
      ctx->run.stride = 1;
      ctx->run_bands = ctx->cur->nbands;
      if (run->dest != NULL)
        ctx->stats.direct_runs++;
    }
  /* the pinned image, for previews and pageable destinations: allocated once
   * one is needed (a caller with page-locked images never needs it), for the
   * largest panel so far */
  if (ctx->run.dest == NULL && ctx->h_out_pixels < npix)
    {
      if (ctx->h_out != NULL)
        cudaFreeHost (ctx->h_out);
      ctx->h_out = NULL;
      ctx->h_out_pixels = 0;
      CK (cudaMallocHost ((void **) &ctx->h_out, npix * sizeof (float)));
      ctx->h_out_pixels = npix;
    }
  ctx->stats.runs++;
  if (ctx->run_bands == 0)
    ctx->run_complete = 1;
  if (!launch_due (ctx, AHEAD, why, n))
    return 0;
  *nbands = ctx->run_bands;
  return 1;
}

extern "C" int
nb_cuda_run_wait (nb_cuda_ctx *ctx,
                  int band,
                  const float **data,
                  size_t *first,
                  size_t *count,
                  char *why,
                  size_t n)
{
  const panel_state *p = ctx->cur;
  const size_t npix = (size_t) p->key.fpixels * (size_t) p->key.spixels;

  if (!launch_due (ctx, band + 1 + AHEAD, why, n))
    return 0;
  CK (cudaEventSynchronize (ctx->copied[band]));
  if (ctx->run.stride > 1)
    {
      *first = 0;
      *count = (size_t) ctx->run_bx * (size_t) ctx->run_by;
      *data = ctx->h_out;
    }
  else
    {
      const size_t b0 = (size_t) band * (size_t) p->band_rows * (size_t) p->key.fpixels;
      const size_t b1 = (size_t) (band + 1) * (size_t) p->band_rows * (size_t) p->key.fpixels;

      *first = b0;
      *count = (b1 < npix ? b1 : npix) - b0;
      *data = (ctx->run.dest != NULL ? ctx->run.dest : ctx->h_out) + b0;
    }
  return 1;
}

extern "C" int
nb_cuda_run_end (nb_cuda_ctx *ctx, nb_cuda_result *result, char *why, size_t n)
{
  if (result != NULL)
    memset (result, 0, sizeof *result);
  /* launch errors were checked at each launch; cudaGetLastError() here could
   * report another library's error on this thread and break a good plan */
  CK (cudaStreamSynchronize (ctx->stream));
  CK (cudaStreamSynchronize (ctx->copy_stream));
  if (result != NULL && ctx->run_complete && ctx->run.stride <= 1)
    {
      float ms = 0.0f;

      result->omega_sum = *ctx->h_omega;
      if (cudaEventElapsedTime (&ms, ctx->start, ctx->stop) == cudaSuccess)
        result->kernel_ms = ms;
      else
        cudaGetLastError (); /* a timing, not the run's error */
      if (ctx->run.stats > 0)
        stats_result (ctx->h_sel, ctx->run.stats, result);
    }
  return 1;
}

extern "C" void
nb_cuda_get_stats (const nb_cuda_ctx *ctx, nb_cuda_stats *stats)
{
  *stats = ctx->stats;
}

/* -------- the pixel and statistics code on the host -------- */

template <typename R, typename C>
static void
emulate (const nb_cuda_scene *sc, const C *c, int k, float *out, double *omega_sum)
{
  scene<R> s;
  double total = 0.0;

  fill_scene (&s, c, sc);
  s.inc = c->inc;
  s.inv_lambda = c->inv_lambda;
  s.pol = c->pol;
  s.abc = c->abc;
  s.F = sc->F_cells > 0 ? c->F : NULL;
  s.mask = sc->mask;
  s.out = out;
  if (k <= 1)
    for (int sp = 0; sp < s.spixels; sp++)
      for (int f = 0; f < s.fpixels; f++)
        {
          double o;

          out[(size_t) sp * (size_t) s.fpixels + (size_t) f] = full_pixel (s, f, sp, &o);
          total += o;
        }
  else
    {
      int bx, by;

      nb_cuda_preview_blocks (sc, k, &bx, &by);
      for (int m = 0; m < by; m++)
        for (int j = 0; j < bx; j++)
          out[(size_t) m * (size_t) bx + (size_t) j] = preview_value (s, k, j, m);
    }
  *omega_sum = k <= 1 ? total : 0.0;
}

extern "C" void
nb_cuda_emulate (const nb_cuda_scene *sc, int stride, float *out, double *omega_sum)
{
  const int k = stride > 1 ? stride : 1;

  if (sc->is_double)
    emulate<double> (sc, (const nb_f64_ctx *) sc->tables, k, out, omega_sum);
  else
    emulate<float> (sc, (const nb_f32_ctx *) sc->tables, k, out, omega_sum);
}

extern "C" void
nb_cuda_emulate_stats (
    const float *image, size_t n, int stats, const double percentiles[2], nb_cuda_result *result)
{
  const int passes = stats >= 2 ? STATS_PASSES : 1;
  uint64_t hist[NB_STATS_RANKS * STATS_BINS];
  stats_sel sel;

  memset (&sel, 0, sizeof sel);
  memset (result, 0, sizeof *result);
  for (int p = 0; p < passes && (p == 0 || sel.nslots > 0); p++)
    {
      memset (hist, 0, sizeof hist);
      for (size_t i = 0; i < n; i++)
        {
          uint32_t key;
          int bin, slot;

          if (!nb_stats_key (image[i], &key))
            continue;
          if (p == 0)
            {
              sel.finite++;
              sel.max_key = key > sel.max_key ? key : sel.max_key;
            }
          if ((slot = stats_bin (sel, p, key, &bin)) >= 0)
            hist[slot * STATS_BINS + bin]++;
        }
      stats_select (&sel, p, hist, percentiles, stats >= 2);
    }
  stats_result (&sel, stats, result);
}
