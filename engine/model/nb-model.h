/* nb-private.h: engine internals shared by the set-up stages and the kernels.
 *
 * The vector helpers evaluate in exactly the order nanoBragg.c does
 * (rotate(), rotate_axis(), rotate_umat(), unitize(), cross_product()...), so
 * the double-precision path reproduces the reference bit for bit.  Vectors are
 * plain double[3] (x, y, z); the reference's element-0 magnitude is returned
 * instead of stored.
 */
#pragma once

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "nanobragg.h"
#include "nb-hkl.h"
#include "nb-log.h"
#include "nb-rng.h"
#include "nb-textfile.h"

#define NB_RTD (180.0 * M_1_PI)

static inline double
nb_dot (const double x[3], const double y[3])
{
  return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}

static inline void
nb_cross (const double x[3], const double y[3], double z[3])
{
  double t0 = x[1] * y[2] - x[2] * y[1];
  double t1 = x[2] * y[0] - x[0] * y[2];
  double t2 = x[0] * y[1] - x[1] * y[0];
  z[0] = t0;
  z[1] = t1;
  z[2] = t2;
}

static inline double
nb_magnitude (const double v[3])
{
  return sqrt (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* unitize(): returns the old length; a zero vector stays zero. */
static inline double
nb_unitize (const double v[3], double out[3])
{
  double mag = nb_magnitude (v);

  if (mag != 0.0)
    {
      out[0] = v[0] / mag;
      out[1] = v[1] / mag;
      out[2] = v[2] / mag;
    }
  else
    out[0] = out[1] = out[2] = 0.0;
  return mag;
}

/* vector_scale(): out = scale * v; returns |out|. */
static inline double
nb_scale (const double v[3], double scale, double out[3])
{
  out[0] = scale * v[0];
  out[1] = scale * v[1];
  out[2] = scale * v[2];
  return nb_magnitude (out);
}

/* vector_rescale(): out = new_mag/|v| * v (|v| <= 0 counts as 1). */
static inline void
nb_rescale (const double v[3], double new_mag, double out[3])
{
  double oldmag = nb_magnitude (v);

  if (oldmag <= 0.0)
    oldmag = 1.0;
  out[0] = new_mag / oldmag * v[0];
  out[1] = new_mag / oldmag * v[1];
  out[2] = new_mag / oldmag * v[2];
}

/* rotate(): about lab X, then Y, then Z; a zero angle is skipped exactly. */
void nb_rotate_xyz (const double v[3], double phix, double phiy, double phiz, double out[3]);

/* rotate_axis(): Rodrigues rotation about @axis (not normalised, Q-10). */
static inline void
nb_rotate_axis (const double v[3], const double axis[3], double phi, double out[3])
{
  double sinphi = sin (phi);
  double cosphi = cos (phi);
  double dot = (axis[0] * v[0] + axis[1] * v[1] + axis[2] * v[2]) * (1.0 - cosphi);
  double t0 = axis[0] * dot + v[0] * cosphi + (-axis[2] * v[1] + axis[1] * v[2]) * sinphi;
  double t1 = axis[1] * dot + v[1] * cosphi + (+axis[2] * v[0] - axis[0] * v[2]) * sinphi;
  double t2 = axis[2] * dot + v[2] * cosphi + (-axis[1] * v[0] + axis[0] * v[1]) * sinphi;

  out[0] = t0;
  out[1] = t1;
  out[2] = t2;
}

/* rotate_umat(): out = U v, U row-major. */
static inline void
nb_rotate_umat (const double v[3], const double u[9], double out[3])
{
  double t0 = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  double t1 = u[3] * v[0] + u[4] * v[1] + u[5] * v[2];
  double t2 = u[6] * v[0] + u[7] * v[1] + u[8] * v[2];

  out[0] = t0;
  out[1] = t1;
  out[2] = t2;
}

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

/* nb_reserve: makes *@ptr hold at least @bytes, reallocating only when it
 * must grow (so an unchanged plan shape never allocates); *@cap tracks the
 * capacity.  Returns 0 when out of memory (the old buffer is kept). */
static inline int
nb_reserve (void *ptr, size_t *cap, size_t bytes)
{
  void **pp = (void **) ptr;

  if (bytes == 0)
    bytes = 1;
  if (*pp != NULL && *cap >= bytes)
    return 1;
  void *n = realloc (*pp, bytes);
  if (n == NULL)
    return 0;
  *pp = n;
  *cap = bytes;
  return 1;
}

/* nb_clear_outside_span: zeroes the pixels of @image (@fpixels x @spixels,
 * @elem bytes each) outside fast [@f_begin, @f_end) x slow [@s_begin,
 * @s_end): the part of an image that the kernels and the conversions, which
 * write only the ROI, leave alone.  memory.c. */
void nb_clear_outside_span (void *image,
                            size_t elem,
                            int fpixels,
                            int spixels,
                            int f_begin,
                            int f_end,
                            int s_begin,
                            int s_end);

/* ------------------------------------------------------------------------- */
/* Stage results. */

typedef struct
{
  int fpixels, spixels;
  double pixel_size, subpixel_size;
  int oversample;
  double detsize_f, detsize_s;
  double distance, close_distance;
  double Xbeam, Ybeam, Xclose, Yclose;
  double Fbeam, Sbeam, Fclose, Sclose;
  double ORGX, ORGY;
  double dials_origin[3];
  double fdet[3], sdet[3], odet[3], beam[3], pix0[3];
  double polar_vector[3], spindle[3], vert[3], twotheta_axis[3];
  nb_convention convention;
  nb_pivot pivot;
  int curved, point_pixel;
  int thicksteps;
  double thick, thickstep, mu;
  int roi_xmin, roi_xmax, roi_ymin, roi_ymax;
  char quirk_warning[400]; /* a reproduced quirk of this geometry, or "" */
} nb_detector;

typedef struct
{
  int count;
  double *dir;    /* 3 * count: unit direction from the sample towards the source */
  double *lambda; /* count, metres */
  double *weight; /* count, as given (unused by the physics) */
  size_t cap_dir, cap_lambda, cap_weight;
  int divsteps;     /* -1 with a -sourcefile, as the reference prints it */
  int comment_rows; /* sources read from '#' lines: the exact kernel runs them */
  double hdivrange, hdivstep, vdivrange, vdivstep;
  int hdivsteps, vdivsteps;
  double dispersion, dispstep;
  int dispsteps;
} nb_sources;

typedef struct
{
  double a0[3], b0[3], c0[3];             /* real cell (m), phi = 0 */
  double a_star[3], b_star[3], c_star[3]; /* 1/Angstrom (shapes) */
  double V_cell;
  double Na, Nb, Nc;
  double cell_print[6], recip_print[6];
  double a_A[3], b_A[3], c_A[3]; /* Angstrom, for printing */
  int phisteps;
  double phi0, phistep, osc;
  int mosaic_domains;
  double mosaic_spread;
  double *umats; /* 9 * domains */
  size_t cap_umats;
  double misset_random_deg[3];
} nb_crystal;

/* Per-step orientation tables: for every (phi step, domain) the rotated real
 * cell vectors a, b, c (m) as the kernel uses them.  Two tables because of the
 * reference's phi = 0 carry-over: "first" holds what the very first
 * evaluation of the image sees, "rest" what every later one sees. */
typedef struct
{
  int n;         /* phisteps * domains */
  double *first; /* 9 * n: a, b, c */
  double *rest;  /* 9 * n */
  int same;      /* first == rest */
  size_t cap_first, cap_rest;
} nb_orient;

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

typedef struct nb_shared_F nb_shared_F;

struct nb_plan
{
  nb_params params;
  nb_plan_info info;
  nb_log log;

  nb_detector det;
  nb_sources src;
  nb_crystal xtal;
  nb_orient orient;
  nb_hkl_grid hkl;
  int interpolate;
  double default_F;

  double fluence;
  double I_bg;
  int steps;
  double omega_sum;

  uint16_t *mask; /* fpixels * spixels, or NULL */
  nb_ran1 ran;    /* shared generator table after misset/mosaic draws */

  double *row_omega; /* spixels: per-row solid-angle sums (thread-independent total) */
  size_t cap_row_omega;
  nb_plan_stats stats;
  int interp_warned;

  nb_f32_ctx f32;
  nb_f64_ctx f64;

  nb_shared_F *hkl_shared; /* owns hkl.F, shared with nb_geometry snapshots */

  /* Input files read once per name: a parameter change never re-reads them. */
  char *mat_path; /* -mat file whose matrix is in mat[], or NULL */
  double mat[9];
  char *source_path;     /* -sourcefile whose rows are in source_table, or NULL */
  unsigned source_flags; /* how it was read (nb_table_read_with) */
  nb_table source_table;
  nb_geometry *geometry;     /* snapshot for pixel queries; NULL until asked, dropped on update */
  struct nb_cuda_plan *cuda; /* backend-cuda.c: the GPU side of a plan asked for -backend
                                auto|cuda, or NULL */
  nb_plan_timing timing;     /* the last full image's (nb_plan_get_timing) */
};

/* query.c: the structure-factor array, reference-counted so that geometry
 * snapshots outlive a structure-factor rebuild. */
nb_shared_F *nb_shared_F_new (double *F);
void nb_shared_F_unref (nb_shared_F *s);

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

/* Stages (geometry.c, crystal.c, sources.c). */
/* plan.c: what nb_plan_create() checks of @params up to its memory budget
 * (validation, the detector, the fluence, the sampling counts, the memory
 * estimate) without allocating per pixel, for a caller that holds
 * @caller_bytes_per_pixel bytes per pixel (<= 0: the CLI's 7).  Errors as
 * nb_plan_create()'s. */
nb_status
nb_plan_check_budget (const nb_params *params, double caller_bytes_per_pixel, nb_error *err);
nb_status nb_detector_setup (nb_plan *plan, nb_error *err);
nb_status nb_detector_orient (nb_plan *plan, nb_error *err);
nb_status nb_crystal_setup (nb_plan *plan, nb_error *err);
void nb_crystal_size (nb_plan *plan, double sample_x, double sample_y, double sample_z);
nb_status nb_sampling_setup (nb_plan *plan, nb_error *err);
nb_status nb_sources_setup (nb_plan *plan, nb_error *err);
nb_status nb_mosaic_setup (nb_plan *plan, nb_error *err);
nb_status nb_orient_setup (nb_plan *plan, nb_error *err);
void nb_sources_free (nb_sources *s);
void nb_crystal_free (nb_crystal *c);
void nb_orient_free (nb_orient *o);

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

/* io-write.c: the error "@what @path: <strerror of @errnum>", NB_ERR_IO. */
nb_status nb_io_error (nb_error *err, int errnum, const char *what, const char *path);
