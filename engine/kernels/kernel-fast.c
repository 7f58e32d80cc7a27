/* kernel-fast.c: the fast kernels (single and double precision): their
 * tables, the choice of instruction set, the row-tile loop and the preview.
 *
 * Two cases stay on the reference-exact kernel (kernel.c): the first pixel of
 * the image when the phi = 0 carry-over makes it differ, and plans with
 * tricubic structure-factor interpolation, whose first out-of-range lookup
 * switches interpolation off for the rest of the image.
 */
#include "nb-kernel.h"
#include "base/nb-memory.h"

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

int
nb_fast_select (const char **name)
{
  const char *force = getenv ("NB_KERNEL");
  int isa = 0;

#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init ();
  if ((force == NULL || strcmp (force, "avx512") == 0) && __builtin_cpu_supports ("avx512f") &&
      __builtin_cpu_supports ("avx512dq") && __builtin_cpu_supports ("avx512vl"))
    isa = 3;
  if (isa == 0 && (force == NULL || strcmp (force, "avx2") == 0) &&
      __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma"))
    isa = 2;
  if (isa == 0 && (force == NULL || strcmp (force, "sse41") == 0) &&
      __builtin_cpu_supports ("sse4.1"))
    isa = 1;
#endif
  if (force != NULL && strcmp (force, "generic") == 0)
    isa = 0;
  if (name != NULL)
    *name = (const char *[]){ "generic", "sse41", "avx2", "avx512" }[isa];
  return isa;
}

const char *
nb_kernel_variant (void)
{
  const char *name;

  nb_fast_select (&name);
  return name;
}

/* NB_FAST_STAGED=1 keeps every plan on the staged loops of
 * kernel-fast-body.h, also where kernel-fast-simd.h would render it: the
 * tests compare the two (they must agree to the bit). */
static int
staged_only (void)
{
  const char *v = getenv ("NB_FAST_STAGED");

  return v != NULL && strcmp (v, "1") == 0;
}

/* Images from this size on (about 1450^2 pixels) are written with streaming
 * stores (kernel-fast-simd.h): a normal store that misses the caches reads
 * the line from memory first.  Measured on one thread, single precision:
 * 4096^2 (64 MB) 29.4 -> 22.3 ms, 2048^2 (16 MB) 7.06 -> 5.63 ms; at 1024^2
 * (4 MB) streaming cost 4 %, and the caller then reads the image from memory
 * instead of the cache. */
#define NB_STREAM_BYTES (8 << 20)

/* Table preparation, once per precision: NB_PREPARE (T, ctx) defines
 * prepare_##ctx (nb_plan *, nb_##ctx##_ctx *, int with_F, nb_error *). */
#define NB_FREE_CTX(c)                                                                             \
  do                                                                                               \
    {                                                                                              \
      free ((c)->inc);                                                                             \
      free ((c)->inv_lambda);                                                                      \
      free ((c)->pol);                                                                             \
      free ((c)->abc);                                                                             \
      if ((c)->F_owned)                                                                            \
        free ((c)->F);                                                                             \
      memset ((c), 0, sizeof *(c));                                                                \
    }                                                                                              \
  while (0)

void
nb_fast_free (nb_plan *plan)
{
  if (plan->fast == NULL)
    return;
  NB_FREE_CTX (&plan->fast->f32);
  NB_FREE_CTX (&plan->fast->f64);
  free (plan->fast);
  plan->fast = NULL;
}

#define NB_PREPARE(T, CTX)                                                                         \
  static nb_status prepare_##CTX (nb_plan *plan, nb_##CTX##_ctx *c, int with_F, nb_error *err)     \
  {                                                                                                \
    const nb_params *p = &plan->params;                                                            \
    const nb_detector *d = &plan->det;                                                             \
    const nb_crystal *x = &plan->xtal;                                                             \
                                                                                                   \
    for (int k = 0; k < 3; k++)                                                                    \
      {                                                                                            \
        c->pix0[k] = (T) d->pix0[k];                                                               \
        c->fdet[k] = (T) d->fdet[k];                                                               \
        c->sdet[k] = (T) d->sdet[k];                                                               \
        c->odet[k] = (T) d->odet[k];                                                               \
        c->beam[k] = (T) d->beam[k];                                                               \
      }                                                                                            \
    c->subpix = (T) d->subpixel_size;                                                              \
    c->pixel_size = (T) d->pixel_size;                                                             \
    c->close_distance = (T) d->close_distance;                                                     \
    c->distance = (T) d->distance;                                                                 \
    c->thick = (T) d->thick;                                                                       \
    c->thickstep = (T) d->thickstep;                                                               \
    c->mu = (T) d->mu;                                                                             \
    c->oversample = d->oversample;                                                                 \
    c->thicksteps = d->thicksteps;                                                                 \
    c->curved = d->curved;                                                                         \
    c->point_pixel = d->point_pixel;                                                               \
    c->os_thick = p->oversample_thick;                                                             \
    c->os_polar = p->oversample_polar;                                                             \
    c->os_omega = p->oversample_omega;                                                             \
    c->os_any = c->os_thick || c->os_polar || c->os_omega;                                         \
    c->nopolar = p->nopolar;                                                                       \
    c->water = p->water_size != 0.0;                                                               \
    c->shape = p->shape;                                                                           \
    c->kahn = (T) p->polarization;                                                                 \
    c->fudge = (T) p->fudge;                                                                       \
    c->dmin = (T) (p->dmin * 1e10);                                                                \
                                                                                                   \
    c->nsources = plan->src.count;                                                                 \
    c->nsteps = plan->orient.n;                                                                    \
    if (!nb_reserve (&c->inc, &c->cap_inc, (size_t) c->nsources * 3 * sizeof (T)) ||               \
        !nb_reserve (&c->inv_lambda, &c->cap_inv_lambda, (size_t) c->nsources * sizeof (T)) ||     \
        !nb_reserve (&c->pol, &c->cap_pol, (size_t) c->nsources * 6 * sizeof (T)) ||               \
        !nb_reserve (&c->abc, &c->cap_abc, (size_t) c->nsteps * 9 * sizeof (T)))                   \
      return nb_error_set (err, NB_ERR_NOMEM, "out of memory for the kernel's tables");            \
    for (int s = 0; s < c->nsources; s++)                                                          \
      {                                                                                            \
        double inc[3], B[3], E[3];                                                                 \
        for (int k = 0; k < 3; k++)                                                                \
          inc[k] = -plan->src.dir[3 * s + k];                                                      \
        nb_unitize (inc, inc);                                                                     \
        nb_cross (d->polar_vector, inc, B);                                                        \
        nb_unitize (B, B);                                                                         \
        nb_cross (inc, B, E);                                                                      \
        nb_unitize (E, E);                                                                         \
        for (int k = 0; k < 3; k++)                                                                \
          {                                                                                        \
            c->inc[3 * s + k] = (T) -plan->src.dir[3 * s + k];                                     \
            c->pol[6 * s + k] = (T) B[k];                                                          \
            c->pol[6 * s + 3 + k] = (T) E[k];                                                      \
          }                                                                                        \
        c->inv_lambda[s] = (T) (1.0 / (plan->src.lambda[s] * 1e10));                               \
      }                                                                                            \
    for (int j = 0; j < 9 * c->nsteps; j++)                                                        \
      c->abc[j] = (T) (plan->orient.rest[j] * 1e10);                                               \
    c->Na = (T) x->Na;                                                                             \
    c->Nb = (T) x->Nb;                                                                             \
    c->Nc = (T) x->Nc;                                                                             \
    for (int k = 0; k < 3; k++)                                                                    \
      {                                                                                            \
        c->astar[k] = (T) x->a_star[k];                                                            \
        c->astar[3 + k] = (T) x->b_star[k];                                                        \
        c->astar[6 + k] = (T) x->c_star[k];                                                        \
      }                                                                                            \
    c->default_F = (T) plan->default_F;                                                            \
    if (with_F || (c->F == NULL && plan->hkl.F != NULL))                                           \
      {                                                                                            \
        const nb_hkl_grid *g = &plan->hkl;                                                         \
                                                                                                   \
        if (c->F_owned)                                                                            \
          free (c->F);                                                                             \
        c->F = NULL;                                                                               \
        c->F_owned = 0;                                                                            \
        if (g->hkls != 0 && g->F != NULL)                                                          \
          {                                                                                        \
            size_t ncells = (size_t) (g->h_range + 1) * (g->k_range + 1) * (g->l_range + 1);       \
            if (sizeof (T) == sizeof (double))                                                     \
              c->F = (T *) (void *) g->F;                                                          \
            else                                                                                   \
              {                                                                                    \
                if ((c->F = nb_alloc_large (ncells * sizeof (T))) == NULL)                         \
                  return nb_error_set (err, NB_ERR_NOMEM,                                          \
                                       "out of memory for the structure factors");                 \
                c->F_owned = 1;                                                                    \
                for (size_t i = 0; i < ncells; i++)                                                \
                  c->F[i] = (T) g->F[i];                                                           \
              }                                                                                    \
            c->h_min = g->h_min;                                                                   \
            c->k_min = g->k_min;                                                                   \
            c->l_min = g->l_min;                                                                   \
            c->h_count = g->h_max - g->h_min + 1;                                                  \
            c->k_count = g->k_max - g->k_min + 1;                                                  \
            c->l_count = g->l_max - g->l_min + 1;                                                  \
            c->k_stride = g->k_range + 1;                                                          \
            c->l_stride = g->l_range + 1;                                                          \
          }                                                                                        \
        c->F2max = c->default_F * c->default_F;                                                    \
        if (c->F != NULL)                                                                          \
          {                                                                                        \
            size_t ncells = (size_t) (g->h_range + 1) * (g->k_range + 1) * (g->l_range + 1);       \
            for (size_t i = 0; i < ncells; i++)                                                    \
              if (c->F[i] * c->F[i] > c->F2max)                                                    \
                c->F2max = c->F[i] * c->F[i];                                                      \
          }                                                                                        \
      }                                                                                            \
    if (c->F == NULL || c->default_F * c->default_F > c->F2max)                                    \
      c->F2max = c->default_F * c->default_F;                                                      \
    c->simd = !c->curved && c->thicksteps == 1 && c->thick == (T) 0.0 &&                           \
              c->shape == NB_SHAPE_SQUARE && !c->os_any && !(c->dmin > (T) 0.0) &&                 \
              !staged_only ();                                                                     \
    c->stream = (double) d->fpixels * d->spixels * sizeof (float) >= NB_STREAM_BYTES;              \
    c->scale = (T) (7.94079248018965e-30 * plan->fluence / plan->steps);                           \
    if (p->physical)                                                                               \
      {                                                                                            \
        c->I_start = (T) 0.0;                                                                      \
        c->physical_bg = (T) (plan->I_bg * plan->steps);                                           \
      }                                                                                            \
    else                                                                                           \
      {                                                                                            \
        c->I_start = (T) plan->I_bg;                                                               \
        c->physical_bg = (T) 0.0;                                                                  \
      }                                                                                            \
    return NB_OK;                                                                                  \
  }

NB_PREPARE (float, f32)
NB_PREPARE (double, f64)

nb_status
nb_fast_prepare (nb_plan *plan, int with_F, nb_error *err)
{
  struct nb_fast_tables *t = plan->fast;

  if (t == NULL && (t = plan->fast = calloc (1, sizeof *t)) == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory for the fast kernels' tables");
  /* only the plan's precision keeps tables (the other's F may be stale) */
  switch (plan->params.precision)
    {
      case NB_PRECISION_SINGLE:
        NB_FREE_CTX (&t->f64);
        return prepare_f32 (plan, &t->f32, with_F, err);
      case NB_PRECISION_DOUBLE:
        NB_FREE_CTX (&t->f32);
        return prepare_f64 (plan, &t->f64, with_F, err);
      default:
        NB_FREE_CTX (&t->f32);
        NB_FREE_CTX (&t->f64);
        return NB_OK;
    }
}

/* The row function of the plan's precision on this CPU. */
typedef struct
{
  nb_f32_row_fn f32;
  nb_f64_row_fn f64;
  const nb_plan *plan;
} row_renderer;

static row_renderer
row_renderer_for (const nb_plan *plan)
{
  static const nb_f32_row_fn f32[] = { nb_fast_render_row_f32_generic, nb_fast_render_row_f32_sse41,
                                       nb_fast_render_row_f32_avx2, nb_fast_render_row_f32_avx512 };
  static const nb_f64_row_fn f64[] = { nb_fast_render_row_f64_generic, nb_fast_render_row_f64_sse41,
                                       nb_fast_render_row_f64_avx2, nb_fast_render_row_f64_avx512 };
  int isa = nb_fast_select (NULL);
  row_renderer r = { NULL, NULL, plan };

  if (plan->params.precision == NB_PRECISION_SINGLE)
    r.f32 = f32[isa];
  else
    r.f64 = f64[isa];
  return r;
}

static inline void
render_row (const row_renderer *r,
            int spixel,
            int f_first,
            int count,
            int fstride,
            float *out,
            double *omega_sum)
{
  if (r->f32 != NULL)
    r->f32 (&r->plan->fast->f32, spixel, f_first, count, fstride, out, omega_sum);
  else
    r->f64 (&r->plan->fast->f64, spixel, f_first, count, fstride, out, omega_sum);
}

/* Rows per tile: up to 8, fewer when a row is expensive, so that a tile
 * (the unit of cancellation and progress) stays near TILE_WORK sample
 * evaluations: about half a millisecond on one core. */
#define ROW_TILE  8
#define TILE_WORK (1 << 18)

static int
tile_rows (const nb_plan *plan, int width)
{
  const nb_detector *d = &plan->det;
  double per_row = (double) width * d->oversample * d->oversample * d->thicksteps *
                   plan->src.count * plan->orient.n;
  double rows = TILE_WORK / (per_row > 1.0 ? per_row : 1.0);

  return rows >= ROW_TILE ? ROW_TILE : rows >= 1.0 ? (int) rows : 1;
}

/* One preview row of blocks: pixel centres f_begin + k/2 + j k (the last one
 * clipped to the ROI), rendered into the start of @row and spread in place
 * from the right, so block j fills [f_begin + j k, f_begin + (j + 1) k). */
static void
preview_row (const row_renderer *r, int s, int f_begin, int f_end, int k, float *row)
{
  const int width = f_end - f_begin;
  const int blocks = (width + k - 1) / k;
  int whole = 0;
  double ignored = 0.0;

  while (whole < blocks && f_begin + k / 2 + whole * k < f_end)
    whole++;
  if (whole > 0)
    render_row (r, s, f_begin + k / 2, whole, k, row + f_begin, &ignored);
  if (whole < blocks)
    render_row (r, s, f_end - 1, 1, 1, row + f_begin + whole, &ignored);
  for (int j = blocks - 1; j >= 0; j--)
    {
      float v = row[f_begin + j];
      int f1 = f_begin + (j + 1) * k < f_end ? f_begin + (j + 1) * k : f_end;

      for (int f = f_begin + j * k; f < f1; f++)
        row[f] = v;
    }
}

/* Renders tile @t (rows [s0, s1)): whole rows, or blocks of k x k for a
 * preview; masked pixels are zeroed. */
static void
render_tile (nb_plan *plan,
             const row_renderer *r,
             float *image,
             int s0,
             int s1,
             int f_begin,
             int f_end,
             int k)
{
  const int fpixels = plan->det.fpixels;

  if (k == 1)
    for (int s = s0; s < s1; s++)
      render_row (r, s, f_begin, f_end - f_begin, 1, image + (size_t) s * fpixels + f_begin,
                  &plan->row_omega[s]);
  else
    for (int b = s0; b < s1; b += k)
      {
        int b1 = b + k < s1 ? b + k : s1;
        int sc = b + k / 2 < b1 ? b + k / 2 : b1 - 1;
        float *src = image + (size_t) sc * fpixels;

        preview_row (r, sc, f_begin, f_end, k, src);
        for (int s = b; s < b1; s++)
          if (s != sc)
            memcpy (image + (size_t) s * fpixels + f_begin, src + f_begin,
                    (size_t) (f_end - f_begin) * sizeof (float));
      }
  if (plan->mask != NULL)
    for (int s = s0; s < s1; s++)
      for (int f = f_begin; f < f_end; f++)
        if (plan->mask[(size_t) s * fpixels + f] == 0)
          image[(size_t) s * fpixels + f] = 0.0f;
}

/* One OpenMP team for the whole image, row tiles handed out dynamically: the
 * cancel flag is read before every tile, and the calling thread reports the
 * rows finished so far after each of its tiles.  Each row is computed by one
 * thread in a fixed order, so the image does not depend on the thread count. */
nb_status
nb_kernel_execute_fast (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err)
{
  const nb_detector *d = &plan->det;
  const int fpixels = d->fpixels, spixels = d->spixels;
  const int f_begin = d->roi_xmin < 0 ? 0 : d->roi_xmin;
  const int f_end = d->roi_xmax + 1 < fpixels ? d->roi_xmax + 1 : fpixels;
  const int s_begin = d->roi_ymin < 0 ? 0 : d->roi_ymin;
  const int s_end = d->roi_ymax + 1 < spixels ? d->roi_ymax + 1 : spixels;
  const row_renderer r = row_renderer_for (plan);
  const int k = opts && opts->preview_stride > 1 ? opts->preview_stride : 1;
  const int rows = tile_rows (plan, f_end - f_begin);
  const int tile = k > 1 ? k * ((rows + k - 1) / k) : rows;
  const int threads = opts && opts->threads > 0 ? opts->threads : 0;
  const int ntiles = s_end > s_begin ? (s_end - s_begin + tile - 1) / tile : 0;
  int cancelled = 0, rows_done = 0;
  long first;

  memset (plan->row_omega, 0, (size_t) spixels * sizeof (double));
  plan->omega_sum = 0.0;
  if (f_begin >= f_end || ntiles == 0)
    {
      memset (image, 0, (size_t) fpixels * spixels * sizeof (float));
      return NB_OK;
    }
  /* what execute does not write: rows and columns outside the ROI */
  nb_clear_outside_span (image, sizeof (float), fpixels, spixels, f_begin, f_end, s_begin, s_end);

#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads()) if (ntiles > 1)
  {
#pragma omp for schedule(dynamic, 1)
    for (int t = 0; t < ntiles; t++)
      {
        int s0 = s_begin + t * tile;
        int s1 = s0 + tile < s_end ? s0 + tile : s_end;
        int stop, done;

        if (nb_cancel_requested (opts))
          {
#pragma omp atomic write
            cancelled = 1;
          }
#pragma omp atomic read
        stop = cancelled;
        if (stop)
          continue;
        render_tile (plan, &r, image, s0, s1, f_begin, f_end, k);
#pragma omp atomic capture
        {
          rows_done += s1 - s0;
          done = rows_done;
        }
        if (opts && opts->progress && omp_get_thread_num () == 0)
          opts->progress (opts->user, done, s_end - s_begin);
      }
  }
  if (cancelled)
    return nb_error_set (err, NB_ERR_CANCELLED, "cancelled");
  if (opts && opts->progress)
    opts->progress (opts->user, s_end - s_begin, s_end - s_begin);
  if (k == 1 && (first = nb_kernel_first_phi_pixel (plan)) >= 0)
    image[first] =
        (float) nb_kernel_render_pixel (plan, (int) (first % fpixels), (int) (first / fpixels), 1);
  for (int s = 0; s < spixels; s++)
    plan->omega_sum += plan->row_omega[s];
  if (k == 1)
    plan->omega_sum -= nb_kernel_masked_omega (plan);
  return NB_OK;
}
