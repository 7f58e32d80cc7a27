/* query.c: pixel queries on an immutable snapshot of the plan: resolution,
 * scattering angle, |q|, azimuth, Miller indices and structure factor under
 * a detector point (what a viewer reads out under the cursor).
 *
 * Source: the scattering vector and Miller indices of the reference's pixel
 * loop (nanoBragg.c, physics.md sec. 13.2: S = (d - s0)/lambda, h = a . S),
 * evaluated once at a point of the flat detector for the central wavelength.
 */
#include "nb-model.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct nb_shared_F
{
  atomic_int refs;
  double *F;
};

struct nb_geometry
{
  atomic_int refs;
  int fpixels, spixels;
  double pixel_size, close_distance;
  int point_pixel;
  double pix0[3], fdet[3], sdet[3], beam[3], polar[3], perp[3];
  double lambda;    /* m */
  double abc[9];    /* real cell vectors a, b, c (m) at phi0, misset applied */
  nb_hkl_grid grid; /* F shared with the plan through @shared (may be empty) */
  struct nb_shared_F *shared;
  double default_F;
};

nb_shared_F *
nb_shared_F_new (double *F)
{
  nb_shared_F *s = malloc (sizeof *s);

  if (s == NULL)
    return NULL;
  atomic_init (&s->refs, 1);
  s->F = F;
  return s;
}

void
nb_shared_F_unref (nb_shared_F *s)
{
  if (s != NULL && atomic_fetch_sub_explicit (&s->refs, 1, memory_order_acq_rel) == 1)
    {
      free (s->F);
      free (s);
    }
}

nb_geometry *
nb_geometry_ref (nb_geometry *geom)
{
  if (geom != NULL)
    atomic_fetch_add_explicit (&geom->refs, 1, memory_order_relaxed);
  return geom;
}

void
nb_geometry_unref (nb_geometry *geom)
{
  if (geom != NULL && atomic_fetch_sub_explicit (&geom->refs, 1, memory_order_acq_rel) == 1)
    {
      nb_shared_F_unref (geom->shared);
      free (geom);
    }
}

nb_geometry *
nb_plan_ref_geometry (nb_plan *plan)
{
  const nb_detector *d = &plan->det;
  const nb_crystal *x = &plan->xtal;
  nb_geometry *g;

  if (plan->geometry != NULL)
    return nb_geometry_ref (plan->geometry);
  g = calloc (1, sizeof *g);
  if (g == NULL)
    return NULL;
  atomic_init (&g->refs, 1);
  g->fpixels = d->fpixels;
  g->spixels = d->spixels;
  g->pixel_size = d->pixel_size;
  g->close_distance = d->close_distance;
  g->point_pixel = d->point_pixel;
  memcpy (g->pix0, d->pix0, sizeof g->pix0);
  memcpy (g->fdet, d->fdet, sizeof g->fdet);
  memcpy (g->sdet, d->sdet, sizeof g->sdet);
  nb_unitize (d->beam, g->beam);
  nb_unitize (d->polar_vector, g->polar);
  nb_cross (g->beam, g->polar, g->perp);
  nb_unitize (g->perp, g->perp);
  g->lambda = plan->params.lambda0;
  nb_rotate_axis (x->a0, d->spindle, x->phi0, g->abc);
  nb_rotate_axis (x->b0, d->spindle, x->phi0, g->abc + 3);
  nb_rotate_axis (x->c0, d->spindle, x->phi0, g->abc + 6);
  g->default_F = plan->default_F;
  if (plan->hkl_shared != NULL)
    {
      g->grid = plan->hkl;
      g->shared = plan->hkl_shared;
      atomic_fetch_add_explicit (&g->shared->refs, 1, memory_order_relaxed);
    }
  plan->geometry = g;
  return nb_geometry_ref (g);
}

nb_geometry *
nb_geometry_new_plane (const nb_geometry *geom,
                       int fpixels,
                       int spixels,
                       double pixel_size,
                       const double pix0[3],
                       const double fdet[3],
                       const double sdet[3])
{
  nb_geometry *g;
  double normal[3];

  if (fpixels <= 0 || spixels <= 0 || !(pixel_size > 0.0))
    return NULL;
  g = malloc (sizeof *g);
  if (g == NULL)
    return NULL;
  *g = *geom;
  atomic_init (&g->refs, 1);
  if (g->shared != NULL)
    atomic_fetch_add_explicit (&g->shared->refs, 1, memory_order_relaxed);
  g->fpixels = fpixels;
  g->spixels = spixels;
  g->pixel_size = pixel_size;
  memcpy (g->pix0, pix0, sizeof g->pix0);
  nb_unitize (fdet, g->fdet);
  nb_unitize (sdet, g->sdet);
  nb_cross (g->fdet, g->sdet, normal);
  g->close_distance = fabs (nb_dot (g->pix0, normal));
  return g;
}

void
nb_geometry_size (const nb_geometry *geom, int *fpixels, int *spixels)
{
  if (fpixels != NULL)
    *fpixels = geom->fpixels;
  if (spixels != NULL)
    *spixels = geom->spixels;
}

nb_status
nb_geometry_query (
    const nb_geometry *g, double fpixel, double spixel, nb_pixel_query *q, nb_error *err)
{
  double pos[3], dir[3], S[3], r, cos2t, sin_theta;

  nb_error_clear (err);
  memset (q, 0, sizeof *q);
  if (!isfinite (fpixel) || !isfinite (spixel))
    return nb_error_set (err, NB_ERR_INVALID, "pixel coordinates %g, %g are not finite", fpixel,
                         spixel);
  q->fdet = fpixel * g->pixel_size;
  q->sdet = spixel * g->pixel_size;
  for (int k = 0; k < 3; k++)
    pos[k] = q->fdet * g->fdet[k] + q->sdet * g->sdet[k] + g->pix0[k];
  memcpy (q->lab, pos, sizeof pos);
  r = nb_unitize (pos, dir);
  if (r <= 0.0)
    return nb_error_set (err, NB_ERR_INVALID, "pixel %g, %g lies at the sample", fpixel, spixel);

  cos2t = nb_dot (dir, g->beam);
  cos2t = cos2t > 1.0 ? 1.0 : cos2t < -1.0 ? -1.0 : cos2t;
  q->two_theta = acos (cos2t);
  q->azimuth = atan2 (nb_dot (dir, g->perp), nb_dot (dir, g->polar));
  sin_theta = sin (0.5 * q->two_theta);
  q->stol = sin_theta / (g->lambda * 1e10);
  q->q = 4.0 * M_PI * q->stol;
  q->d = sin_theta > 0.0 ? 0.5 / q->stol : INFINITY;

  for (int k = 0; k < 3; k++)
    S[k] = (dir[k] - g->beam[k]) / g->lambda;
  for (int i = 0; i < 3; i++)
    q->hkl[i] = nb_dot (g->abc + 3 * i, S);
  q->h = (int) ceil (q->hkl[0] - 0.5);
  q->k = (int) ceil (q->hkl[1] - 0.5);
  q->l = (int) ceil (q->hkl[2] - 0.5);
  if (g->shared != NULL)
    {
      const nb_hkl_grid *h = &g->grid;

      q->F_from_file = q->h >= h->h_min && q->h <= h->h_max && q->k >= h->k_min &&
                       q->k <= h->k_max && q->l >= h->l_min && q->l <= h->l_max;
      q->F = nb_hkl_lookup_nearest (h, q->h, q->k, q->l, g->default_F);
    }
  else
    q->F = g->default_F;
  q->solid_angle = g->point_pixel ? 1.0 / (r * r)
                                  : g->pixel_size * g->pixel_size / (r * r) * g->close_distance / r;
  return NB_OK;
}

int
nb_geometry_direction_to_pixel (const nb_geometry *g,
                                const double dir[3],
                                double *fpixel,
                                double *spixel)
{
  double normal[3], den, t, pos[3];

  nb_cross (g->fdet, g->sdet, normal);
  den = nb_dot (dir, normal);
  if (!(fabs (den) > 1e-12 * nb_magnitude (dir)))
    return 0;
  t = nb_dot (g->pix0, normal) / den;
  if (!(t > 0.0))
    return 0;
  for (int k = 0; k < 3; k++)
    pos[k] = t * dir[k] - g->pix0[k];
  *fpixel = nb_dot (pos, g->fdet) / g->pixel_size;
  *spixel = nb_dot (pos, g->sdet) / g->pixel_size;
  return 1;
}

double
nb_geometry_structure_factor (const nb_geometry *g, int h, int k, int l, int *from_file)
{
  int inside = 0;
  double F = g->default_F;

  if (g->shared != NULL)
    {
      const nb_hkl_grid *grid = &g->grid;

      inside = h >= grid->h_min && h <= grid->h_max && k >= grid->k_min && k <= grid->k_max &&
               l >= grid->l_min && l <= grid->l_max;
      F = nb_hkl_lookup_nearest (grid, h, k, l, g->default_F);
    }
  if (from_file != NULL)
    *from_file = inside;
  return F;
}

int
nb_geometry_same_structure_factors (const nb_geometry *a, const nb_geometry *b)
{
  return a->shared == b->shared && a->default_F == b->default_F;
}
