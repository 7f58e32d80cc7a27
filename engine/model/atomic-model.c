/* atomic-model.c: the plan's structure factors from an atomic model or a
 * -sf.cif file given as -hkl (or -model): read once per file name, the cell
 * given to the crystal when -cell and -mat are not, and the sum over the
 * atoms (sfcalc.c) computed once per file and resolution; a change of
 * anything else expands the kept reflections again, which is cheap.
 */
#include "base/nb-log.h"
#include "base/nb-memory.h"
#include "nb-model.h"
#include "nb-sfcalc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void
drop_computed (nb_plan *plan)
{
  free (plan->model_hkl);
  free (plan->model_F);
  plan->model_hkl = NULL;
  plan->model_F = NULL;
  plan->model_n = 0;
  plan->model_d_min = 0.0;
}

void
nb_atomic_model_free (nb_plan *plan)
{
  drop_computed (plan);
  if (plan->model != NULL)
    {
      nb_structure_clear (plan->model);
      free (plan->model);
    }
  free (plan->model_path);
  plan->model = NULL;
  plan->model_path = NULL;
  memset (plan->model_cell, 0, sizeof plan->model_cell);
}

nb_status
nb_atomic_model_read (nb_plan *plan, nb_error *err)
{
  const nb_params *p = &plan->params;
  nb_structure *m;
  nb_status st;

  if (p->hkl_file == NULL || !nb_file_is_model (p->hkl_file))
    {
      nb_atomic_model_free (plan);
      return NB_OK;
    }
  if (plan->model_path == NULL || strcmp (plan->model_path, p->hkl_file) != 0)
    {
      char *path = strdup (p->hkl_file);

      if (path == NULL || (m = calloc (1, sizeof *m)) == NULL)
        {
          free (path);
          return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
        }
      /* the text gemmi parses, and its structure beside it */
      if ((st = nb_structure_read (p->hkl_file, nb_memory_budget (p->memory_budget) / 4, m, err)) !=
          NB_OK)
        {
          free (m);
          free (path);
          return st;
        }
      nb_atomic_model_free (plan);
      plan->model = m;
      plan->model_path = path;
    }
  m = plan->model;
  nb_log_printf (&plan->log, "read %s: %s\n", p->hkl_file, m->note);
  memset (plan->model_cell, 0, sizeof plan->model_cell);
  if (p->cell[0] == 0.0 && p->mat_file == NULL)
    {
      for (int i = 0; i < 6; i++)
        plan->model_cell[i] = i < 3 ? m->cell[i] : m->cell[i] * M_PI / 180.0;
      nb_log_printf (&plan->log, "unit cell of %s (no -cell): %g %g %g %g %g %g, space group %s\n",
                     p->hkl_file, m->cell[0], m->cell[1], m->cell[2], m->cell[3], m->cell[4],
                     m->cell[5], m->space_group[0] ? m->space_group : "P 1");
    }
  return NB_OK;
}

/* The largest 1/d a detector @d's corners reach at wavelength @lambda
 * (Angstrom): q = 2 sin(theta) / lambda for the direction from the sample of
 * each corner, bent onto the sphere as the kernel bends a pixel's position
 * when the detector is curved (-curved_det).  The largest angle to the beam
 * over a flat rectangle is at a corner, and so on the sphere, whose angles
 * grow with the flat position. */
static double
panel_reach (const nb_detector *d, double lambda)
{
  double F = d->fpixels * d->pixel_size, S = d->spixels * d->pixel_size, q_max = 0.0;

  for (int c = 0; c < 4; c++)
    {
      double v[3], len, cos2t;

      for (int k = 0; k < 3; k++)
        v[k] = d->pix0[k] + (c & 1 ? F : 0.0) * d->fdet[k] + (c & 2 ? S : 0.0) * d->sdet[k];
      if (d->curved && d->distance > 0.0)
        {
          double u[3], w[3];

          /* as kernel.c's subpixel_ray() */
          for (int k = 0; k < 3; k++)
            u[k] = d->distance * d->beam[k];
          nb_rotate_axis (u, d->sdet, v[1] / d->distance, w);
          nb_rotate_axis (w, d->fdet, v[2] / d->distance, v);
        }
      len = nb_magnitude (v);
      if (!(len > 0.0))
        continue;
      cos2t = nb_dot (v, d->beam) / len;
      if (cos2t > 1.0)
        cos2t = 1.0;
      if (cos2t < -1.0)
        cos2t = -1.0;
      q_max = fmax (q_max, sqrt (2.0 * (1.0 - cos2t)) / lambda);
    }
  return q_max;
}

/* The largest 1/d the detector reaches at the shortest wavelength
 * (1/Angstrom): the furthest of its panels (-detector), or of the one
 * detector of the parameters. */
static double
detector_reach (const nb_plan *plan)
{
  const nb_params *p = &plan->params;
  double lambda = p->lambda0 * 1e10 * (1.0 - (p->dispersion > 0.0 ? p->dispersion / 2.0 : 0.0));
  double q_max = plan->n_panels > 0 ? 0.0 : panel_reach (&plan->det, lambda);

  for (int i = 0; i < plan->n_panels; i++)
    q_max = fmax (q_max, panel_reach (&plan->panels[i].det, lambda));
  return q_max;
}

double
nb_atomic_model_d_min (const nb_plan *plan)
{
  const nb_params *p = &plan->params;
  const nb_structure *m = plan->model;
  double q, step = 0.0, d;

  /* the nearest reflection to a corner's (fractional) h k l, or the 4 x 4 x 4
   * of tricubic interpolation, reaches a reciprocal axis (or two) further */
  for (int i = 0; i < 3 && m != NULL; i++)
    step += 1.0 / m->cell[i];
  q = detector_reach (plan) + (plan->interpolate ? 2.0 : 1.0) * step;
  d = q > 0.0 ? 1.0 / q : 0.0;
  /* no further than -dmin, where the image is cut */
  return fmax (d, p->dmin * 1e10);
}

int
nb_atomic_model_stale (const nb_plan *plan)
{
  double d;

  if (plan->model == NULL || plan->model->kind != NB_STRUCTURE_ATOMS)
    return 0;
  d = nb_atomic_model_d_min (plan);
  if (plan->model_hkl == NULL)
    return 1;
  return d < plan->model_d_min;
}

nb_status
nb_atomic_model_grid (nb_plan *plan, size_t max_bytes, size_t cell_bytes, nb_error *err)
{
  const nb_params *p = &plan->params;
  const nb_structure *m = plan->model;
  nb_status st;

  if (m->kind == NB_STRUCTURE_REFLECTIONS)
    st = nb_sf_expand_grid (p->hkl_file, m, p->default_F, max_bytes, cell_bytes, &plan->hkl, err);
  else
    {
      if (nb_atomic_model_stale (plan))
        {
          double d = nb_atomic_model_d_min (plan);
          struct timespec t0, t1;

          drop_computed (plan);
          clock_gettime (CLOCK_MONOTONIC, &t0);
          if ((st = nb_sfcalc_unique (p->hkl_file, m, d, max_bytes, &plan->model_hkl,
                                      &plan->model_F, &plan->model_n, err)) != NB_OK)
            return st;
          clock_gettime (CLOCK_MONOTONIC, &t1);
          plan->model_d_min = d;
          nb_log_printf (&plan->log,
                         "computed %ld structure factors of %s to %.3g Angstrom in %.2f s "
                         "(direct summation, IT92 form factors, no bulk solvent)\n",
                         plan->model_n, p->hkl_file, d,
                         (double) (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
        }
      st = nb_sf_expand_list_grid (p->hkl_file, m, plan->model_hkl, plan->model_F, plan->model_n,
                                   p->default_F, max_bytes, cell_bytes, &plan->hkl, err);
    }
  if (st != NB_OK)
    return st;
  memcpy (plan->hkl.cell, m->cell, sizeof plan->hkl.cell);
  snprintf (plan->hkl.space_group, sizeof plan->hkl.space_group, "%s", m->space_group);
  return NB_OK;
}
