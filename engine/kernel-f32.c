/* kernel-f32.c: single-precision execute: the float tables, the choice of
 * instruction set and the row loop.
 *
 * Two cases stay on the double-precision kernel: the first pixel of the image
 * when the phi = 0 carry-over makes it differ, and plans with tricubic
 * structure-factor interpolation, whose first out-of-range lookup switches
 * interpolation off for the rest of the image.
 */
#include "nb-private.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

nb_f32_row_fn
nb_f32_select (const char **name)
{
  const char *force = getenv ("NB_KERNEL");
  nb_f32_row_fn fn = nb_f32_render_row_generic;
  const char *n = "generic";

#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init ();
  if (force == NULL || strcmp (force, "avx512") == 0)
    if (__builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512dq")
        && __builtin_cpu_supports ("avx512vl"))
      {
        fn = nb_f32_render_row_avx512;
        n = "avx512";
      }
  if (fn == nb_f32_render_row_generic && (force == NULL || strcmp (force, "avx2") == 0)
      && __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma"))
    {
      fn = nb_f32_render_row_avx2;
      n = "avx2";
    }
#endif
  if (force != NULL && strcmp (force, "generic") == 0)
    {
      fn = nb_f32_render_row_generic;
      n = "generic";
    }
  if (name != NULL)
    *name = n;
  return fn;
}

const char *
nb_kernel_variant (void)
{
  const char *name;

  nb_f32_select (&name);
  return name;
}

void
nb_f32_free (nb_f32_ctx *c)
{
  free (c->inc);
  free (c->inv_lambda);
  free (c->abc);
  free (c->F);
  c->inc = c->inv_lambda = c->abc = c->F = NULL;
  c->cap_inc = c->cap_inv_lambda = c->cap_abc = 0;
}

static void
copy3 (float *dst, const double *src)
{
  dst[0] = (float) src[0];
  dst[1] = (float) src[1];
  dst[2] = (float) src[2];
}

/* Fills the float tables from the plan; the structure factors are converted
 * only when @with_F (they change only with the structure-factor stage). */
nb_status
nb_f32_prepare (nb_plan *plan, int with_F, nb_error *err)
{
  const nb_params *p = &plan->params;
  const nb_detector *d = &plan->det;
  const nb_crystal *x = &plan->xtal;
  nb_f32_ctx *c = &plan->f32;
  size_t ncells;

  copy3 (c->pix0, d->pix0);
  copy3 (c->fdet, d->fdet);
  copy3 (c->sdet, d->sdet);
  copy3 (c->odet, d->odet);
  copy3 (c->beam, d->beam);
  copy3 (c->polar_axis, d->polar_vector);
  c->subpix = (float) d->subpixel_size;
  c->pixel_size = (float) d->pixel_size;
  c->close_distance = (float) d->close_distance;
  c->distance = (float) d->distance;
  c->thick = (float) d->thick;
  c->thickstep = (float) d->thickstep;
  c->mu = (float) d->mu;
  c->oversample = d->oversample;
  c->thicksteps = d->thicksteps;
  c->curved = d->curved;
  c->point_pixel = d->point_pixel;
  c->os_thick = p->oversample_thick;
  c->os_polar = p->oversample_polar;
  c->os_omega = p->oversample_omega;
  c->os_any = c->os_thick || c->os_polar || c->os_omega;
  c->nopolar = p->nopolar;
  c->water = p->water_size != 0.0;
  c->shape = p->shape;
  c->kahn = (float) p->polarization;
  c->fudge = (float) p->fudge;
  c->dmin = (float) (p->dmin * 1e10);

  c->nsources = plan->src.count;
  c->nsteps = plan->orient.n;
  if (!nb_reserve (&c->inc, &c->cap_inc, (size_t) c->nsources * 3 * sizeof (float))
      || !nb_reserve (&c->inv_lambda, &c->cap_inv_lambda, (size_t) c->nsources * sizeof (float))
      || !nb_reserve (&c->abc, &c->cap_abc, (size_t) c->nsteps * 9 * sizeof (float)))
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory for the single-precision tables");
  for (int s = 0; s < c->nsources; s++)
    {
      for (int k = 0; k < 3; k++)
        c->inc[3 * s + k] = (float) -plan->src.dir[3 * s + k];
      c->inv_lambda[s] = (float) (1.0 / (plan->src.lambda[s] * 1e10));
    }
  for (int j = 0; j < 9 * c->nsteps; j++)
    c->abc[j] = (float) (plan->orient.rest[j] * 1e10);
  c->Na = (float) x->Na;
  c->Nb = (float) x->Nb;
  c->Nc = (float) x->Nc;
  copy3 (c->astar, x->a_star);
  copy3 (c->astar + 3, x->b_star);
  copy3 (c->astar + 6, x->c_star);

  c->default_F = (float) plan->default_F;
  if (with_F)
    {
      free (c->F);
      c->F = NULL;
    }
  if (with_F && plan->hkl.hkls != 0 && plan->hkl.F != NULL)
    {
      const nb_hkl_grid *g = &plan->hkl;

      ncells = (size_t) (g->h_range + 1) * (g->k_range + 1) * (g->l_range + 1);
      c->F = malloc (ncells * sizeof (float));
      if (c->F == NULL)
        return nb_error_set (err, NB_ERR_NOMEM, "out of memory for the structure factors");
      for (size_t i = 0; i < ncells; i++)
        c->F[i] = (float) g->F[i];
      c->h_min = g->h_min;
      c->k_min = g->k_min;
      c->l_min = g->l_min;
      c->h_count = g->h_max - g->h_min + 1;
      c->k_count = g->k_max - g->k_min + 1;
      c->l_count = g->l_max - g->l_min + 1;
      c->k_stride = g->k_range + 1;
      c->l_stride = g->l_range + 1;
    }

  c->scale = (float) (7.94079248018965e-30 * plan->fluence / plan->steps);
  if (p->physical)
    {
      c->I_start = 0.0f;
      c->physical_bg = (float) (plan->I_bg * plan->steps);
    }
  else
    {
      c->I_start = (float) plan->I_bg;
      c->physical_bg = 0.0f;
    }
  return NB_OK;
}

#define ROW_TILE 8

nb_status
nb_kernel_execute_f32 (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err)
{
  const nb_detector *d = &plan->det;
  const int fpixels = d->fpixels, spixels = d->spixels;
  const int f_begin = d->roi_xmin < 0 ? 0 : d->roi_xmin;
  const int f_end = d->roi_xmax + 1 < fpixels ? d->roi_xmax + 1 : fpixels;
  const int s_begin = d->roi_ymin < 0 ? 0 : d->roi_ymin;
  const int s_end = d->roi_ymax + 1 < spixels ? d->roi_ymax + 1 : spixels;
  const nb_f32_row_fn row_fn = nb_f32_select (NULL);
  const long first = nb_kernel_first_phi_pixel (plan);
  int threads = opts && opts->threads > 0 ? opts->threads : 0;

  memset (image, 0, (size_t) fpixels * spixels * sizeof (float));
  if (f_begin >= f_end)
    return NB_OK;
  for (int s0 = s_begin; s0 < s_end; s0 += ROW_TILE)
    {
      int s1 = s0 + ROW_TILE < s_end ? s0 + ROW_TILE : s_end;

      if (opts && opts->cancel && *opts->cancel)
        return nb_error_set (err, NB_ERR_CANCELLED, "cancelled");
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : omp_get_max_threads()) if (s1 - s0 > 1)
      for (int s = s0; s < s1; s++)
        {
          float *row = image + (size_t) s * fpixels;

          row_fn (&plan->f32, s, f_begin, f_end, row);
          if (plan->mask != NULL)
            for (int f = f_begin; f < f_end; f++)
              if (plan->mask[(size_t) s * fpixels + f] == 0)
                row[f] = 0.0f;
        }
      if (opts && opts->progress)
        opts->progress (opts->user, s1, spixels);
    }
  if (first >= 0)
    image[first] = (float) nb_kernel_render_pixel (plan, (int) (first % fpixels),
                                                   (int) (first / fpixels), 1);
  plan->omega_sum = 0.0; /* not accumulated by the fast kernel */
  return NB_OK;
}
