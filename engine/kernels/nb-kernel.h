/* nb-kernel.h: the CPU kernels: the exact one (kernel.c, the reference's
 * arithmetic and loop order) and the fast ones (kernel-fast.c and its
 * instruction-set variants), with the tables the fast kernels and the GPU
 * read. */
#pragma once

#include "model/nb-model.h"

/* nb_cancel_requested: the caller's cancel flag (nb_exec_options.cancel),
 * raised from another thread, read with an atomic load. */
static inline int
nb_cancel_requested (const nb_exec_options *opts)
{
  if (opts == NULL || opts->cancel == NULL)
    return 0;
#if defined(__GNUC__) || defined(__clang__)
  return __atomic_load_n (opts->cancel, __ATOMIC_RELAXED) != 0;
#else
  return *opts->cancel != 0;
#endif
}

/* Everything the fast kernels read, in float (nb_f32_ctx) or double
 * (nb_f64_ctx): lengths of the crystal in Angstrom and of q in 1/Angstrom
 * (kernel-fast-body.h). */
#define NB_FAST_CHUNK 64
#define NB_FAST_CTX_FIELDS(T)                                                                      \
  T pix0[3], fdet[3], sdet[3], odet[3], beam[3];                                                   \
  T subpix, pixel_size, close_distance, distance;                                                  \
  T thick, thickstep, mu;                                                                          \
  int oversample, thicksteps, curved, point_pixel;                                                 \
  int os_thick, os_polar, os_omega, os_any, nopolar, water;                                        \
  nb_shape shape;                                                                                  \
  T kahn, fudge, dmin; /* dmin in Angstrom */                                                      \
  int nsources;                                                                                    \
  size_t cap_inc, cap_inv_lambda, cap_pol, cap_abc;                                                \
  T *inc;        /* 3 * nsources: incident unit vectors */                                         \
  T *inv_lambda; /* nsources: 1/Angstrom */                                                        \
  T *pol;        /* 6 * nsources: unit B = axis x inc and E = inc x B (or 0) */                    \
  int nsteps;                                                                                      \
  T *abc; /* 9 * nsteps: a, b, c in Angstrom (the "rest" table) */                                 \
  T Na, Nb, Nc;                                                                                    \
  T astar[9];  /* a*, b*, c* (1/Angstrom) */                                                       \
  T *F;        /* structure factors, or NULL when there are none */                                \
  int F_owned; /* F is a converted copy (else it is the plan's grid) */                            \
  int h_min, k_min, l_min, h_count, k_count, l_count, k_stride, l_stride;                          \
  T default_F;                                                                                     \
  T F2max; /* the largest F^2 of the grid and default_F (adaptive integration's bound) */          \
  T I_start, scale, physical_bg;                                                                   \
  int simd;   /* 1: SSE4.1, AVX2 and AVX-512 rows take kernel-fast-simd.h (nb_fast_prepare) */     \
  int stream; /* 1: the image is larger than the caches: streaming stores */

typedef struct
{
  NB_FAST_CTX_FIELDS (float)
} nb_f32_ctx;

typedef struct
{
  NB_FAST_CTX_FIELDS (double)
} nb_f64_ctx;

/* A row function renders @count pixels of row @spixel at fast indices
 * f_first + j * fstride into out[j] and adds their sub-pixel solid angles to
 * *@omega_sum. */
typedef void (*nb_f32_row_fn) (const nb_f32_ctx *c,
                               int spixel,
                               int f_first,
                               int count,
                               int fstride,
                               float *out,
                               double *omega_sum);
typedef void (*nb_f64_row_fn) (const nb_f64_ctx *c,
                               int spixel,
                               int f_first,
                               int count,
                               int fstride,
                               float *out,
                               double *omega_sum);
#define NB_FAST_DECLARE(isa)                                                                       \
  void nb_fast_render_row_f32_##isa (const nb_f32_ctx *c, int spixel, int f_first, int count,      \
                                     int fstride, float *out, double *omega_sum);                  \
  void nb_fast_render_row_f64_##isa (const nb_f64_ctx *c, int spixel, int f_first, int count,      \
                                     int fstride, float *out, double *omega_sum);
NB_FAST_DECLARE (generic)
NB_FAST_DECLARE (sse41)
NB_FAST_DECLARE (avx2)
NB_FAST_DECLARE (avx512)
#undef NB_FAST_DECLARE

/* nb_fast_select: the instruction set for this CPU ("avx512", "avx2",
 * "sse41", "generic"); the environment variable
 * NB_KERNEL=generic|sse41|avx2|avx512 forces one (an unsupported choice falls
 * back).  Returns 0, 1, 2, 3 for generic, sse41, avx2, avx512. */
int nb_fast_select (const char **name);

/* The fast kernels' tables of a plan (plan->fast): only those of the plan's
 * precision are filled. */
struct nb_fast_tables
{
  nb_f32_ctx f32;
  nb_f64_ctx f64;
};

/* kernel-fast.c: the fast kernels' tables (rebuilt by plan.c when a stage
 * changes; the structure factors only with @with_F) and their execute. */
nb_status nb_fast_prepare (nb_plan *plan, int with_F, nb_error *err);
void nb_fast_free (nb_plan *plan);
nb_status
nb_kernel_execute_fast (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err);
double nb_kernel_render_pixel (const nb_plan *plan, int fpixel, int spixel, int fresh);
long nb_kernel_first_phi_pixel (const nb_plan *plan);
/* The solid angles of the masked pixels inside the ROI, summed as the exact
 * kernel would have summed them: what the fast and GPU kernels, which render
 * masked pixels too, take off their total so that the printed solid angle
 * leaves them out, as the reference does. */
double nb_kernel_masked_omega (const nb_plan *plan);

/* kernel-adaptive.c: the adaptive pixel integrator (-integration adaptive,
 * docs/adaptive-integration.md) on the fast kernels' tables. */
#define NB_ADAPTIVE_MAX_DEPTH 12 /* 4096 sub-pixels per pixel axis at most */
typedef struct
{
  double neff[3];    /* per index: fringes per unit (the shape transform's scale) */
  double gram_min;   /* the smallest eigenvalue of the Gram matrix of a*, b*, c* */
  double gram_max;   /* its largest */
  double fine_width; /* a cell narrower than this many fringes takes one sample */
} nb_adaptive_shape;
/* A row of the adaptive integrator (kernel-adaptive-body.h): the plan's
 * tables @c, their copy @c1 with one sample per pixel */
#define NB_ADAPTIVE_DECLARE(suffix, ctx)                                                           \
  void nb_adaptive_row##suffix (const ctx *c, const ctx *c1, const nb_adaptive_shape *shape,       \
                                void *scratch, int spixel, int f_first, int count,                 \
                                const uint16_t *mask, double tol_photons, int bound_only,          \
                                float *out, double *omega_sum, double *samples);
#define NB_ADAPTIVE_DECLARE_ISA(isa)                                                               \
  NB_ADAPTIVE_DECLARE (_f32_##isa, nb_f32_ctx) NB_ADAPTIVE_DECLARE (_f64_##isa, nb_f64_ctx)
NB_ADAPTIVE_DECLARE_ISA (generic)
NB_ADAPTIVE_DECLARE_ISA (sse41)
NB_ADAPTIVE_DECLARE_ISA (avx2)
NB_ADAPTIVE_DECLARE_ISA (avx512)
#undef NB_ADAPTIVE_DECLARE_ISA
#undef NB_ADAPTIVE_DECLARE
/* 1 when the plan integrates adaptively (the table of backends, backend.c) */
int nb_adaptive_takes (const nb_plan *plan);
nb_status nb_kernel_execute_adaptive (nb_plan *plan,
                                      float *image,
                                      const nb_exec_options *opts,
                                      nb_error *err);

/* panels.c: the det, steps and mask of panel @i (0 .. n_panels - 1) of the
 * plan's multi-panel detector in place of the plan's, or, with @i -1, what
 * they are outside execute (panel 0's det and steps, no mask).  The fast
 * kernels' tables are the caller's to rebuild (nb_fast_prepare). */
void nb_kernels_select_panel (nb_plan *plan, int i);

/* kernel.c */
nb_status
nb_kernel_execute (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err);

/* Kahn polarization factor; unitizes copies of @incident and @diffracted and
 * writes the unitized diffracted vector back (the reference does this in
 * place, and the next sources see it). */
double nb_polarization_factor (double kahn,
                               const double incident[3],
                               double diffracted[3],
                               const double axis[3]);
