/* sfcalc.c: structure factors of an atomic model by direct summation
 * (nb-sfcalc.h).
 *
 * The work is reflections x atoms x operators terms of one cosine and one
 * sine each.  The inner loop runs over the atoms of the asymmetric unit for
 * one reflection and one operator, from arrays laid out per coordinate, and
 * evaluates cos and sin of 2 pi phase with a polynomial (below) instead of
 * libm, so that it vectorises (OpenMP simd; an AVX2 clone where the CPU has
 * it); the form factors and Debye-Waller factors are once per reflection and
 * atom, not per operator.  Threads share the reflections.
 */
#include "nb-sfcalc.h"

#include "base/nb-memory.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TWO_PI_SQ (2.0 * M_PI * M_PI)

/* The model's operators as integer rotations of index rows and translations,
 * and its reciprocal metric. */
typedef struct
{
  int n_ops;
  int (*rot)[9]; /* R, row-major: k = h R */
  double (*tran)[3];
  double gstar[9]; /* 1/d^2 = h G* h^T, 1/Angstrom^2 */
} symmetry;

static void
symmetry_clear (symmetry *s)
{
  free (s->rot);
  free (s->tran);
  memset (s, 0, sizeof *s);
}

static nb_status
symmetry_init (const char *source, const nb_structure *m, symmetry *s, nb_error *err)
{
  const double *c = m->cell;
  double ca = cos (c[3] * M_PI / 180), cb = cos (c[4] * M_PI / 180), cg = cos (c[5] * M_PI / 180);
  double g[9] = { c[0] * c[0],      c[0] * c[1] * cg, c[0] * c[2] * cb,
                  c[0] * c[1] * cg, c[1] * c[1],      c[1] * c[2] * ca,
                  c[0] * c[2] * cb, c[1] * c[2] * ca, c[2] * c[2] };
  double det = g[0] * (g[4] * g[8] - g[5] * g[7]) - g[1] * (g[3] * g[8] - g[5] * g[6]) +
               g[2] * (g[3] * g[7] - g[4] * g[6]);
  int n = m->n_symops > 0 ? m->n_symops : 1;

  memset (s, 0, sizeof *s);
  if (!(det > 0.0) || !isfinite (det))
    return nb_error_set (err, NB_ERR_INVALID, "%s: impossible unit cell %g %g %g %g %g %g", source,
                         c[0], c[1], c[2], c[3], c[4], c[5]);
  s->gstar[0] = (g[4] * g[8] - g[5] * g[7]) / det;
  s->gstar[1] = (g[2] * g[7] - g[1] * g[8]) / det;
  s->gstar[2] = (g[1] * g[5] - g[2] * g[4]) / det;
  s->gstar[4] = (g[0] * g[8] - g[2] * g[6]) / det;
  s->gstar[5] = (g[2] * g[3] - g[0] * g[5]) / det;
  s->gstar[8] = (g[0] * g[4] - g[1] * g[3]) / det;
  s->gstar[3] = s->gstar[1];
  s->gstar[6] = s->gstar[2];
  s->gstar[7] = s->gstar[5];
  s->rot = calloc ((size_t) n, sizeof *s->rot);
  s->tran = calloc ((size_t) n, sizeof *s->tran);
  if (s->rot == NULL || s->tran == NULL)
    {
      symmetry_clear (s);
      return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory", source);
    }
  s->n_ops = n;
  if (m->n_symops <= 0)
    {
      s->rot[0][0] = s->rot[0][4] = s->rot[0][8] = 1;
      return NB_OK;
    }
  for (int o = 0; o < n; o++)
    {
      for (int i = 0; i < 9; i++)
        {
          double r = m->symops[o].rot[i];

          if (r != nearbyint (r) || fabs (r) > 1.0)
            {
              symmetry_clear (s);
              return nb_error_set (err, NB_ERR_INVALID,
                                   "%s: symmetry operator %d is not a crystallographic rotation "
                                   "of this cell",
                                   source, o + 1);
            }
          s->rot[o][i] = (int) r;
        }
      memcpy (s->tran[o], m->symops[o].tran, sizeof s->tran[o]);
    }
  return NB_OK;
}

/* k = h R: the index row of h's image under operator @o. */
static void
rotate_index (const symmetry *s, int o, const int h[3], int k[3])
{
  const int *r = s->rot[o];

  for (int j = 0; j < 3; j++)
    k[j] = h[0] * r[j] + h[1] * r[3 + j] + h[2] * r[6 + j];
}

static double
inverse_d_squared (const symmetry *s, const int h[3])
{
  const double *G = s->gstar;
  double x = h[0], y = h[1], z = h[2];

  return G[0] * x * x + G[4] * y * y + G[8] * z * z +
         2.0 * (G[1] * x * y + G[2] * x * z + G[5] * y * z);
}

/* 1 when no image of @h under the operators, nor its Friedel mate, comes
 * after @h in lexicographic order: @h stands for its set. */
static int
is_representative (const symmetry *s, const int h[3])
{
  for (int o = 0; o < s->n_ops; o++)
    {
      int k[3];

      rotate_index (s, o, h, k);
      for (int sign = -1; sign <= 1; sign += 2)
        {
          int a = sign * k[0], b = sign * k[1], c = sign * k[2];

          if (a > h[0] || (a == h[0] && (b > h[1] || (b == h[1] && c > h[2]))))
            return 0;
        }
    }
  return 1;
}

/* ---- the sum ---- */

/* The atoms, split by kind; the isotropic ones grouped by form factor
 * (those of form e are start[e] .. start[e + 1] - 1), coordinates per axis
 * in [0, 1). */
typedef struct
{
  long n_iso, n_aniso;
  float *x, *y, *z, *occ, *B; /* isotropic atoms */
  double B_max;
  long *start;           /* n_forms + 1 */
  const nb_atom **aniso; /* anisotropic ones, as read */
  int n_forms;
  const nb_form_factor *forms;
} atom_arrays;

static void
atom_arrays_clear (atom_arrays *a)
{
  free (a->x);
  free (a->start);
  free (a->aniso);
  memset (a, 0, sizeof *a);
}

static int
is_anisotropic (const nb_atom *t)
{
  for (int i = 0; i < 6; i++)
    if (t->U[i] != 0.0)
      return 1;
  return 0;
}

static nb_status
atom_arrays_init (const nb_structure *m, atom_arrays *a, nb_error *err)
{
  size_t n = (size_t) m->n_atoms;

  memset (a, 0, sizeof *a);
  a->x = malloc ((n ? n : 1) * 5 * sizeof (float));
  a->start = calloc ((size_t) m->n_forms + 1, sizeof (long));
  a->aniso = malloc ((n ? n : 1) * sizeof *a->aniso);
  if (a->x == NULL || a->start == NULL || a->aniso == NULL)
    {
      atom_arrays_clear (a);
      return nb_error_set (err, NB_ERR_NOMEM, "out of memory for %ld atoms", m->n_atoms);
    }
  a->y = a->x + n;
  a->z = a->y + n;
  a->occ = a->z + n;
  a->B = a->occ + n;
  a->n_forms = m->n_forms;
  a->forms = m->forms;
  for (int e = 0; e < m->n_forms; e++)
    {
      a->start[e] = a->n_iso;
      for (size_t j = 0; j < n; j++)
        {
          const nb_atom *t = &m->atoms[j];
          long i = a->n_iso;

          if (t->form != e || is_anisotropic (t))
            continue;
          /* whole cells change no phase: in [0, 1) the phases stay small */
          a->x[i] = (float) (t->xyz[0] - floor (t->xyz[0]));
          a->y[i] = (float) (t->xyz[1] - floor (t->xyz[1]));
          a->z[i] = (float) (t->xyz[2] - floor (t->xyz[2]));
          a->occ[i] = (float) t->occupancy;
          a->B[i] = (float) t->B;
          a->B_max = t->B > a->B_max ? t->B : a->B_max;
          a->n_iso++;
        }
    }
  a->start[m->n_forms] = a->n_iso;
  for (size_t j = 0; j < n; j++)
    if (is_anisotropic (&m->atoms[j]))
      a->aniso[a->n_aniso++] = &m->atoms[j];
  return NB_OK;
}

/* exp(@x) for -87 <= x <= 0 (where floats do not run out) in single
 * precision, vectorisable: x = n ln 2 + r, e^r by its Taylor series to r^7
 * (|r| <= ln 2 / 2: error below 2e-8), 2^n by the exponent's bits. */
static inline float
exp_nonpositive (float x)
{
  const float n = (x * 1.44269504f + 12582912.0f) - 12582912.0f;
  const float r = (x - n * 0.693145752f) - n * 1.42860677e-6f;
  float p = 1.0f / 5040.0f;
  int32_t bits = ((int32_t) n + 127) << 23;
  float scale;

  p = 1.0f / 720.0f + r * p;
  p = 1.0f / 120.0f + r * p;
  p = 1.0f / 24.0f + r * p;
  p = 1.0f / 6.0f + r * p;
  p = 0.5f + r * p;
  p = 1.0f + r * p;
  p = 1.0f + r * p;
  memcpy (&scale, &bits, sizeof scale);
  return p * scale;
}

/* cos and sin of 2 pi @phase, in single precision (the sum's terms; see
 * sum_images): the phase reduced to r in [-1/2, 1/2] (the rounding by adding
 * and taking 1.5 * 2^23, valid for |phase| < 2^22), the half angle
 * x = pi r in [-pi/2, pi/2] by Taylor series to x^13 and x^14 (error below
 * 1e-9), then the double-angle formulas. */
#define ROUND_MAGIC 12582912.0f
#define SINCOS_2PI(phase, c_out, s_out)                                                            \
  do                                                                                               \
    {                                                                                              \
      float r_ = (phase) - (((phase) + ROUND_MAGIC) - ROUND_MAGIC);                                \
      float x_ = (float) M_PI * r_, x2_ = x_ * x_;                                                 \
      float sp_ = 1.0f / 6227020800.0f;                                                            \
      float cp_ = 1.0f / 87178291200.0f;                                                           \
      sp_ = 1.0f / 39916800.0f - x2_ * sp_;                                                        \
      sp_ = 1.0f / 362880.0f - x2_ * sp_;                                                          \
      sp_ = 1.0f / 5040.0f - x2_ * sp_;                                                            \
      sp_ = 1.0f / 120.0f - x2_ * sp_;                                                             \
      sp_ = 1.0f / 6.0f - x2_ * sp_;                                                               \
      sp_ = x_ * (1.0f - x2_ * sp_);                                                               \
      cp_ = 1.0f / 479001600.0f - x2_ * cp_;                                                       \
      cp_ = 1.0f / 3628800.0f - x2_ * cp_;                                                         \
      cp_ = 1.0f / 40320.0f - x2_ * cp_;                                                           \
      cp_ = 1.0f / 720.0f - x2_ * cp_;                                                             \
      cp_ = 1.0f / 24.0f - x2_ * cp_;                                                              \
      cp_ = 0.5f - x2_ * cp_;                                                                      \
      cp_ = 1.0f - x2_ * cp_;                                                                      \
      (c_out) = 1.0f - 2.0f * sp_ * sp_;                                                           \
      (s_out) = 2.0f * sp_ * cp_;                                                                  \
    }                                                                                              \
  while (0)

/* Not under the sanitizers: target_clones' resolver runs while the dynamic
 * linker relocates, before ThreadSanitizer's runtime is up (a crash at load). */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) &&                             \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define CLONES __attribute__ ((target_clones ("avx2", "default")))
#else
#define CLONES
#endif

/* sum_j amp[j] exp(2 pi i (k . x_j + shift)) into @re, @im.  Single
 * precision, eight terms at once with AVX2: the coordinates are in [0, 1)
 * and the indices below 1024, so a phase is good to 1e-4 cycles at worst (to
 * 3e-6 at 2 Angstrom in a 60 Angstrom cell) and each term's rounding to 1e-7
 * of it; one operator's partial sum (the atoms of the asymmetric unit) goes
 * into the double sums. */
CLONES static void
sum_images (const float *restrict x,
            const float *restrict y,
            const float *restrict z,
            const float *restrict amp,
            long n,
            const double k[3],
            double shift,
            double *re,
            double *im)
{
  const float k0 = (float) k[0], k1 = (float) k[1], k2 = (float) k[2];
  const float sh = (float) (shift - floor (shift));
  float a = 0.0f, b = 0.0f;

#pragma omp simd reduction(+ : a, b)
  for (long j = 0; j < n; j++)
    {
      float ph = k0 * x[j] + k1 * y[j] + k2 * z[j] + sh, c, s;

      SINCOS_2PI (ph, c, s);
      a += amp[j] * c;
      b += amp[j] * s;
    }
  *re += a;
  *im += b;
}

/* The atoms' weights f0 occ exp(-B s^2), @fe f0 for all @n; @B_max s^2
 * must not pass 87. */
CLONES static void
weights (const float *restrict occ,
         const float *restrict B,
         long n,
         float fe,
         float stol2,
         float *restrict amp)
{
#pragma omp simd
  for (long j = 0; j < n; j++)
    amp[j] = fe * occ[j] * exp_nonpositive (-B[j] * stol2);
}

/* weights() for any B (libm's exp). */
static void
weights_any (const float *occ, const float *B, long n, float fe, float stol2, float *restrict amp)
{
  for (long j = 0; j < n; j++)
    amp[j] = (float) (fe * occ[j] * exp (-(double) B[j] * stol2));
}

/* f0 of each form factor at (sin(theta)/lambda)^2 = @stol2, into @f. */
static void
form_factors (const atom_arrays *a, double stol2, double *f)
{
  for (int e = 0; e < a->n_forms; e++)
    {
      const nb_form_factor *ff = &a->forms[e];

      f[e] = ff->c;
      for (int i = 0; i < 4; i++)
        f[e] += ff->a[i] * exp (-ff->b[i] * stol2);
    }
}

/* |F(h)|; @amp and @f are the caller's scratch (n_iso and n_forms). */
static double
structure_factor (const symmetry *s, const atom_arrays *a, const int h[3], float *amp, double *f)
{
  double stol2 = inverse_d_squared (s, h) / 4.0, re = 0.0, im = 0.0;

  form_factors (a, stol2, f);
  for (int e = 0; e < a->n_forms; e++)
    (a->B_max * stol2 <= 87.0 ? weights : weights_any) (a->occ + a->start[e], a->B + a->start[e],
                                                        a->start[e + 1] - a->start[e], (float) f[e],
                                                        (float) stol2, amp + a->start[e]);
  for (int o = 0; o < s->n_ops; o++)
    {
      int k[3];
      double kd[3], shift;

      rotate_index (s, o, h, k);
      kd[0] = k[0];
      kd[1] = k[1];
      kd[2] = k[2];
      shift = h[0] * s->tran[o][0] + h[1] * s->tran[o][1] + h[2] * s->tran[o][2];
      sum_images (a->x, a->y, a->z, amp, a->n_iso, kd, shift, &re, &im);
      for (long j = 0; j < a->n_aniso; j++)
        {
          const nb_atom *t = a->aniso[j];
          const double *U = t->U;
          double q = U[0] * kd[0] * kd[0] + U[1] * kd[1] * kd[1] + U[2] * kd[2] * kd[2] +
                     2.0 * (U[3] * kd[0] * kd[1] + U[4] * kd[0] * kd[2] + U[5] * kd[1] * kd[2]);
          double w = f[t->form] * t->occupancy * exp (-TWO_PI_SQ * q);
          double ph = kd[0] * t->xyz[0] + kd[1] * t->xyz[1] + kd[2] * t->xyz[2] + shift;

          ph -= floor (ph);
          re += w * cos (2.0 * M_PI * ph);
          im += w * sin (2.0 * M_PI * ph);
        }
    }
  return sqrt (re * re + im * im);
}

/* |F| at the @n reflections @hkl into @F, threads over reflections. */
static nb_status
compute (const symmetry *s, const atom_arrays *a, const int *hkl, long n, double *F, nb_error *err)
{
  int failed = 0;

#pragma omp parallel
  {
    float *amp = malloc ((size_t) (a->n_iso + 1) * sizeof (float));
    double *f = malloc ((size_t) (a->n_forms + 1) * sizeof (double));

    if (amp == NULL || f == NULL)
      {
#pragma omp atomic write
        failed = 1;
      }
    else
      {
#pragma omp for schedule(dynamic, 16)
        for (long i = 0; i < n; i++)
          F[i] = structure_factor (s, a, hkl + 3 * i, amp, f);
      }
    free (amp);
    free (f);
  }
  return failed ? nb_error_set (err, NB_ERR_NOMEM, "out of memory for the structure factors")
                : NB_OK;
}

nb_status
nb_sfcalc_list (const nb_structure *m, const int *hkl, long n, double *F, nb_error *err)
{
  symmetry s;
  atom_arrays a;
  nb_status st;

  if ((st = symmetry_init ("model", m, &s, err)) != NB_OK)
    return st;
  if ((st = atom_arrays_init (m, &a, err)) == NB_OK)
    st = compute (&s, &a, hkl, n, F, err);
  atom_arrays_clear (&a);
  symmetry_clear (&s);
  return st;
}

double
nb_structure_resolution (const nb_structure *m, const int hkl[3])
{
  symmetry s;
  nb_error ignored;
  double q;

  if (symmetry_init ("model", m, &s, &ignored) != NB_OK)
    return 0.0;
  q = inverse_d_squared (&s, hkl);
  symmetry_clear (&s);
  return q > 0.0 ? 1.0 / sqrt (q) : INFINITY;
}

/* ---- the reflections, unique and expanded ---- */

/* The representatives of the reflections to @d_min, in @hkl (malloc()ed). */
static nb_status
unique_reflections (const char *source,
                    const symmetry *s,
                    double d_min,
                    size_t max_bytes,
                    int **out,
                    long *n_out,
                    nb_error *err)
{
  const double q_max = 1.0 / (d_min * d_min);
  int lim[3];
  long n = 0, cap = 0;
  int *hkl = NULL;

  {
    /* the largest |h_i| on the sphere h G* h^T = q_max is sqrt(q_max (G*^-1)_ii) = |a_i| / d_min */
    const double *G = s->gstar;
    double det = G[0] * (G[4] * G[8] - G[5] * G[7]) - G[1] * (G[3] * G[8] - G[5] * G[6]) +
                 G[2] * (G[3] * G[7] - G[4] * G[6]);
    double inv_diag[3] = { (G[4] * G[8] - G[5] * G[7]) / det, (G[0] * G[8] - G[2] * G[6]) / det,
                           (G[0] * G[4] - G[1] * G[3]) / det };

    for (int i = 0; i < 3; i++)
      {
        double b = floor (sqrt (q_max * inv_diag[i]) + 1e-9);

        if (!(b <= NB_HKL_INDEX_MAX))
          return nb_error_set (err, NB_ERR_INVALID,
                               "%s: to %g Angstrom the Miller indices reach %g, beyond +-%d",
                               source, d_min, b, NB_HKL_INDEX_MAX);
        lim[i] = (int) b;
      }
  }
  for (int h = 0; h <= lim[0]; h++)
    for (int k = -lim[1]; k <= lim[1]; k++)
      for (int l = -lim[2]; l <= lim[2]; l++)
        {
          int r[3] = { h, k, l };

          if ((h == 0 && k == 0 && l == 0) || inverse_d_squared (s, r) > q_max ||
              !is_representative (s, r))
            continue;
          if (n == cap)
            {
              long next = cap ? 2 * cap : 4096;
              int *grown;

              if ((size_t) next * 3 * sizeof (int) > max_bytes ||
                  (grown = realloc (hkl, (size_t) next * 3 * sizeof (int))) == NULL)
                {
                  free (hkl);
                  return nb_error_set (err, NB_ERR_NOMEM,
                                       "%s: more than %ld reflections to %g Angstrom, beyond the "
                                       "memory budget",
                                       source, n, d_min);
                }
              hkl = grown;
              cap = next;
            }
          memcpy (hkl + 3 * n++, r, sizeof r);
        }
  *out = hkl;
  *n_out = n;
  return NB_OK;
}

/* The grid of the @n reflections @hkl with amplitudes @F, each with its
 * images under the operators and their Friedel mates. */
static nb_status
expand_to_grid (const char *source,
                const symmetry *s,
                const int *hkl,
                const double *F,
                long n,
                double default_F,
                size_t max_bytes,
                size_t cell_bytes,
                nb_hkl_grid *out,
                nb_error *err)
{
  double total = (double) n * s->n_ops * 2;
  size_t bytes = (size_t) total * (3 * sizeof (int) + sizeof (double));
  int *all;
  double *allF;
  long m = 0;
  nb_status st;

  if (total * (3 * sizeof (int) + sizeof (double)) > (double) max_bytes)
    return nb_error_set (err, NB_ERR_NOMEM,
                         "%s: %ld reflections expanded to P1 need %.1f MB, beyond the memory "
                         "budget",
                         source, n, total * (3 * sizeof (int) + sizeof (double)) / 1e6);
  all = malloc (bytes ? bytes : 1);
  if (all == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory expanding to P1", source);
  allF = (double *) (all + 3 * (size_t) total);
  for (long i = 0; i < n; i++)
    for (int o = 0; o < s->n_ops; o++)
      {
        int k[3];

        rotate_index (s, o, hkl + 3 * i, k);
        for (int sign = -1; sign <= 1; sign += 2)
          {
            all[3 * m] = sign * k[0];
            all[3 * m + 1] = sign * k[1];
            all[3 * m + 2] = sign * k[2];
            allF[m++] = F[i];
          }
      }
  st = nb_hkl_grid_build (source, all, allF, m, default_F, max_bytes, cell_bytes, bytes, out, err);
  free (all);
  return st;
}

nb_status
nb_sfcalc_unique (const char *source,
                  const nb_structure *m,
                  double d_min,
                  size_t max_bytes,
                  int **hkl_out,
                  double **F_out,
                  long *n_out,
                  nb_error *err)
{
  symmetry s;
  atom_arrays a;
  int *hkl = NULL;
  double *F = NULL;
  long n = 0;
  nb_status st;

  *hkl_out = NULL;
  *F_out = NULL;
  *n_out = 0;
  if (!(d_min > 0.0) || !isfinite (d_min))
    return nb_error_set (err, NB_ERR_INVALID, "%s: resolution %g Angstrom must be positive", source,
                         d_min);
  if ((st = symmetry_init (source, m, &s, err)) != NB_OK)
    return st;
  if ((st = unique_reflections (source, &s, d_min, max_bytes, &hkl, &n, err)) == NB_OK && n == 0)
    st = nb_error_set (err, NB_ERR_INVALID, "%s: no reflection to %g Angstrom", source, d_min);
  if (st == NB_OK && (F = malloc ((size_t) n * sizeof (double))) == NULL)
    st = nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory", source);
  if (st == NB_OK && (st = atom_arrays_init (m, &a, err)) == NB_OK)
    {
      st = compute (&s, &a, hkl, n, F, err);
      atom_arrays_clear (&a);
    }
  symmetry_clear (&s);
  if (st != NB_OK)
    {
      free (hkl);
      free (F);
      return st;
    }
  *hkl_out = hkl;
  *F_out = F;
  *n_out = n;
  return NB_OK;
}

nb_status
nb_sf_expand_list_grid (const char *source,
                        const nb_structure *m,
                        const int *hkl,
                        const double *F,
                        long n,
                        double default_F,
                        size_t max_bytes,
                        size_t cell_bytes,
                        nb_hkl_grid *out,
                        nb_error *err)
{
  symmetry s;
  nb_status st;

  memset (out, 0, sizeof *out);
  if ((st = symmetry_init (source, m, &s, err)) != NB_OK)
    return st;
  st = expand_to_grid (source, &s, hkl, F, n, default_F, max_bytes, cell_bytes, out, err);
  symmetry_clear (&s);
  return st;
}

nb_status
nb_sfcalc_grid (const char *source,
                const nb_structure *m,
                double d_min,
                double default_F,
                size_t max_bytes,
                size_t cell_bytes,
                nb_hkl_grid *out,
                long *n_unique,
                nb_error *err)
{
  int *hkl;
  double *F;
  long n;
  nb_status st;

  memset (out, 0, sizeof *out);
  if ((st = nb_sfcalc_unique (source, m, d_min, max_bytes, &hkl, &F, &n, err)) != NB_OK)
    return st;
  st = nb_sf_expand_list_grid (source, m, hkl, F, n, default_F, max_bytes, cell_bytes, out, err);
  if (n_unique != NULL)
    *n_unique = n;
  free (hkl);
  free (F);
  return st;
}

nb_status
nb_sf_expand_grid (const char *source,
                   const nb_structure *m,
                   double default_F,
                   size_t max_bytes,
                   size_t cell_bytes,
                   nb_hkl_grid *out,
                   nb_error *err)
{
  return nb_sf_expand_list_grid (source, m, m->hkl, m->F, m->n_reflections, default_F, max_bytes,
                                 cell_bytes, out, err);
}
