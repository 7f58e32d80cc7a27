/* kernel-adaptive.c: the adaptive pixel integrator (-integration adaptive):
 * the shape transform's envelope bounds each pixel's lattice factor, and
 * sub-pixels are spent only where the bound says they matter
 * (kernel-adaptive-body.h, docs/adaptive-integration.md).
 *
 * Three passes over the ROI: the bound of the pixels of every second row;
 * the pixels of the largest bounds, integrated one after another, give the frame's brightest
 * pixel (at least as bright as they are: a lower estimate, so the tolerance
 * it sets errs towards more samples); then every pixel with the tolerance
 * times that brightness.  Each pixel is computed by one thread from the same
 * inputs, so the image does not depend on the thread count.
 */
#include "nb-kernel.h"
#include "base/nb-memory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#else
static inline int
omp_get_thread_num (void)
{
  return 0;
}
#endif

/* The pixels of the largest bounds integrated first, for the brightness */
#define BRIGHTEST 16
/* ... among the bounds of every BOUND_ROWS-th row (a lower brightness only
 * makes the tolerance stricter) */
#define BOUND_ROWS 2

/* Not at one sample per pixel (-oversample 1): the exact method's least
 * cost, which the bounds could only add to (the cap makes every pixel above
 * the tolerance the exact kernel's anyway). */
int
nb_adaptive_takes (const nb_plan *plan)
{
  const nb_params *p = &plan->params;

  return p->integration == NB_INTEGRATION_ADAPTIVE && p->precision != NB_PRECISION_EXACT &&
         plan->det.oversample > 1 && !plan->interpolate && plan->src.comment_rows == 0 &&
         !plan->det.curved && !p->oversample_thick && !p->oversample_polar &&
         !p->oversample_omega && plan->fast != NULL;
}

/* The smallest (@which 1) or largest (0) eigenvalue of the symmetric 3x3
 * matrix @g (the closed form of the characteristic polynomial's roots). */
static double
eigenvalue (const double g[9], int which)
{
  double p1 = g[1] * g[1] + g[2] * g[2] + g[5] * g[5];
  double q = (g[0] + g[4] + g[8]) / 3.0, p2, p, b[9], r, phi;

  if (p1 == 0.0)
    return which ? fmin (g[0], fmin (g[4], g[8])) : fmax (g[0], fmax (g[4], g[8]));
  p2 = (g[0] - q) * (g[0] - q) + (g[4] - q) * (g[4] - q) + (g[8] - q) * (g[8] - q) + 2.0 * p1;
  p = sqrt (p2 / 6.0);
  for (int i = 0; i < 9; i++)
    b[i] = (g[i] - (i % 4 == 0 ? q : 0.0)) / p;
  r = (b[0] * (b[4] * b[8] - b[5] * b[7]) - b[1] * (b[3] * b[8] - b[5] * b[6]) +
       b[2] * (b[3] * b[7] - b[4] * b[6])) /
      2.0;
  r = r < -1.0 ? -1.0 : r > 1.0 ? 1.0 : r;
  phi = acos (r) / 3.0;
  return q + 2.0 * p * cos (phi + (which ? 2.0943951023931957 : 0.0));
}

/* The shape transform's scales of the plan: fringes per unit index on each
 * axis, the bound's Gram eigenvalue, and the finest cell for @tolerance. */
static void
shape_setup (const nb_plan *plan, nb_adaptive_shape *s)
{
  const nb_crystal *x = &plan->xtal;
  const double N[3] = { x->Na, x->Nb, x->Nc };
  const double *star[3] = { x->a_star, x->b_star, x->c_star };
  const double NNN = N[0] * N[1] * N[2], fudge = plan->params.fudge;
  double g[9];

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      g[3 * i + j] = nb_dot (star[i], star[j]);
  s->gram_min = fmax (0.0, eigenvalue (g, 1) * (1.0 - 1e-9));
  s->gram_max = eigenvalue (g, 0) * (1.0 + 1e-9);
  for (int i = 0; i < 3; i++)
    switch (plan->params.shape)
      {
        case NB_SHAPE_ROUND:
          s->neff[i] = N[i] * sqrt (fudge);
          break;
        case NB_SHAPE_GAUSS:
        case NB_SHAPE_TOPHAT:
          s->neff[i] = sqrt (g[4 * i] * fudge / 0.63) * NNN;
          break;
        default:
          s->neff[i] = N[i];
      }
  /* half a fringe at tolerance 2e-3 and above, finer as the square root of
   * a smaller one: the 2 x 2 Gauss rule of a cell that narrow is within
   * 1e-4 of the limit at N = 10 and 100 (docs/adaptive-integration.md) */
  s->fine_width = fmin (0.5, 12.0 * sqrt (plan->params.tolerance));
}

typedef void (*row_f32) (const nb_f32_ctx *,
                         const nb_f32_ctx *,
                         const nb_adaptive_shape *,
                         void *,
                         int,
                         int,
                         int,
                         const uint16_t *,
                         double,
                         int,
                         float *,
                         double *,
                         double *);
typedef void (*row_f64) (const nb_f64_ctx *,
                         const nb_f64_ctx *,
                         const nb_adaptive_shape *,
                         void *,
                         int,
                         int,
                         int,
                         const uint16_t *,
                         double,
                         int,
                         float *,
                         double *,
                         double *);

/* One execute: the plan, its shape's scales, the tables with one sample per
 * pixel (oversample 1, the scale and background of the plan's oversampling)
 * and the row function of this CPU. */
typedef struct
{
  nb_plan *plan;
  nb_adaptive_shape shape;
  int f_begin, f_end;
  nb_f32_ctx c1_f32;
  nb_f64_ctx c1_f64;
  row_f32 f32;
  row_f64 f64;
} adaptive_run;

/* The tables with one sample at each pixel's centre: what the fast kernel
 * then writes is the plan's oversampled pixel with every sub-pixel's lattice
 * term the centre's. */
#define ONE_SAMPLE(dst, src)                                                                       \
  do                                                                                               \
    {                                                                                              \
      double n2 = (double) (src)->oversample * (src)->oversample;                                  \
      *(dst) = *(src);                                                                             \
      (dst)->oversample = 1;                                                                       \
      (dst)->subpix = (src)->pixel_size;                                                           \
      (dst)->scale = (src)->scale * n2;                                                            \
      (dst)->I_start = (src)->I_start / n2;                                                        \
      (dst)->physical_bg = (src)->physical_bg / n2;                                                \
    }                                                                                              \
  while (0)

static void
run_setup (adaptive_run *run, nb_plan *plan)
{
  static const row_f32 f32[] = { nb_adaptive_row_f32_generic, nb_adaptive_row_f32_sse41,
                                 nb_adaptive_row_f32_avx2, nb_adaptive_row_f32_avx512 };
  static const row_f64 f64[] = { nb_adaptive_row_f64_generic, nb_adaptive_row_f64_sse41,
                                 nb_adaptive_row_f64_avx2, nb_adaptive_row_f64_avx512 };
  int isa = nb_fast_select (NULL);

  memset (run, 0, sizeof *run);
  run->plan = plan;
  shape_setup (plan, &run->shape);
  if (plan->params.precision == NB_PRECISION_SINGLE)
    {
      ONE_SAMPLE (&run->c1_f32, &plan->fast->f32);
      run->f32 = f32[isa];
    }
  else
    {
      ONE_SAMPLE (&run->c1_f64, &plan->fast->f64);
      run->f64 = f64[isa];
    }
}

/* One row's pixels [f_begin, f_end) of @run into @out (bounds with
 * @bound_only). */
static void
adaptive_row (const adaptive_run *run,
              void *scratch,
              int s,
              int f_begin,
              int count,
              double tol,
              int bound_only,
              float *out,
              double *omega,
              double *samples)
{
  const nb_plan *plan = run->plan;
  const uint16_t *mask = plan->mask ? plan->mask + (size_t) s * plan->det.fpixels : NULL;

  if (run->f32 != NULL)
    run->f32 (&plan->fast->f32, &run->c1_f32, &run->shape, scratch, s, f_begin, count, mask, tol,
              bound_only, out, omega, samples);
  else
    run->f64 (&plan->fast->f64, &run->c1_f64, &run->shape, scratch, s, f_begin, count, mask, tol,
              bound_only, out, omega, samples);
}

/* Every row of the ROI, rows handed out dynamically; 1 when cancelled. */
static int
adaptive_pass (const adaptive_run *run,
               float *image,
               double tol,
               int bound_only,
               int s_begin,
               int s_end,
               size_t scratch_bytes,
               const nb_exec_options *opts,
               double *samples,
               int *nomem)
{
  nb_plan *plan = run->plan;
  const int fpixels = plan->det.fpixels;
  const int threads = opts && opts->threads > 0 ? opts->threads : 0;
  int cancelled = 0, rows_done = 0;
  double total = 0.0;

#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads()) reduction(+ : total)
  {
    void *scratch = malloc (scratch_bytes);

    if (scratch == NULL)
      {
#pragma omp atomic write
        *nomem = 1;
      }
#pragma omp for schedule(dynamic, 1)
    for (int s = s_begin; s < s_end; s++)
      {
        if (bound_only && (s - s_begin) % BOUND_ROWS != 0)
          continue;
        int stop, done;
        double omega = 0.0;

        if (nb_cancel_requested (opts))
          {
#pragma omp atomic write
            cancelled = 1;
          }
#pragma omp atomic read
        stop = cancelled;
        if (stop || scratch == NULL)
          continue;
        adaptive_row (run, scratch, s, run->f_begin, run->f_end - run->f_begin, tol, bound_only,
                      image + (size_t) s * fpixels + run->f_begin, &omega, &total);
        if (!bound_only)
          plan->row_omega[s] = omega;
#pragma omp atomic capture
        {
          rows_done++;
          done = rows_done;
        }
        if (!bound_only && opts && opts->progress && omp_get_thread_num () == 0)
          opts->progress (opts->user, done, s_end - s_begin);
      }
    free (scratch);
  }
  *samples += total;
  return cancelled;
}

/* The brightness the tolerance is relative to: the largest value of the
 * BRIGHTEST pixels of the largest bounds (in @image after the bound pass),
 * each integrated with the tolerance of the brightest before it. */
static double
brightest (const adaptive_run *run,
           const float *image,
           int s_begin,
           int s_end,
           void *scratch,
           double *samples)
{
  const nb_plan *plan = run->plan;
  const int fpixels = plan->det.fpixels;
  float top[BRIGHTEST];
  long where[BRIGHTEST];
  int n = 0;
  double bright = 0.0, ignored = 0.0;

  for (int s = s_begin; s < s_end; s += BOUND_ROWS)
    for (int f = run->f_begin; f < run->f_end; f++)
      {
        float b = image[(size_t) s * fpixels + f];
        int i;

        if (!(b > 0.0f) || (n == BRIGHTEST && b <= top[n - 1]))
          continue;
        i = n < BRIGHTEST ? n++ : n - 1;
        for (; i > 0 && top[i - 1] < b; i--)
          {
            top[i] = top[i - 1];
            where[i] = where[i - 1];
          }
        top[i] = b;
        where[i] = (long) s * fpixels + f;
      }
  for (int i = 0; i < n; i++)
    {
      float v;
      adaptive_row (run, scratch, (int) (where[i] / fpixels), (int) (where[i] % fpixels), 1,
                    plan->params.tolerance * bright, 0, &v, &ignored, samples);
      if (v > bright)
        bright = v;
    }
  return bright;
}

nb_status
nb_kernel_execute_adaptive (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err)
{
  const nb_detector *d = &plan->det;
  const int fpixels = d->fpixels, spixels = d->spixels;
  const int s_begin = d->roi_ymin < 0 ? 0 : d->roi_ymin;
  const int s_end = d->roi_ymax + 1 < spixels ? d->roi_ymax + 1 : spixels;
  const size_t pairs = (size_t) plan->src.count * plan->orient.n;
  const size_t scratch_bytes = (9 * pairs + (size_t) plan->src.count) * sizeof (double);
  adaptive_run run;
  double samples = 0.0, bright;
  int nomem = 0;
  void *scratch;

  /* previews stay the fast kernel's: one oversampled pixel per block */
  if (opts && opts->preview_stride > 1)
    return nb_kernel_execute_fast (plan, image, opts, err);
  run_setup (&run, plan);
  run.f_begin = d->roi_xmin < 0 ? 0 : d->roi_xmin;
  run.f_end = d->roi_xmax + 1 < fpixels ? d->roi_xmax + 1 : fpixels;
  memset (plan->row_omega, 0, (size_t) spixels * sizeof (double));
  plan->omega_sum = 0.0;
  plan->samples = 0.0;
  if (run.f_begin >= run.f_end || s_begin >= s_end)
    {
      memset (image, 0, (size_t) fpixels * spixels * sizeof (float));
      return NB_OK;
    }
  nb_clear_outside_span (image, sizeof (float), fpixels, spixels, run.f_begin, run.f_end, s_begin,
                         s_end);
  if ((scratch = malloc (scratch_bytes)) == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory for adaptive integration");
  if (adaptive_pass (&run, image, 0.0, 1, s_begin, s_end, scratch_bytes, opts, &samples, &nomem))
    {
      free (scratch);
      return nb_error_set (err, NB_ERR_CANCELLED, "cancelled");
    }
  bright = brightest (&run, image, s_begin, s_end, scratch, &samples);
  free (scratch);
  if (!nomem && adaptive_pass (&run, image, plan->params.tolerance * bright, 0, s_begin, s_end,
                               scratch_bytes, opts, &samples, &nomem))
    return nb_error_set (err, NB_ERR_CANCELLED, "cancelled");
  if (nomem)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory for adaptive integration");
  if (opts && opts->progress)
    opts->progress (opts->user, s_end - s_begin, s_end - s_begin);
  for (int s = 0; s < spixels; s++)
    plan->omega_sum += plan->row_omega[s];
  plan->omega_sum -= nb_kernel_masked_omega (plan);
  plan->samples = samples;
  return NB_OK;
}
