/* sources.c: sampling auto-selection (phi, divergence, dispersion, sensor
 * layers, mosaic domains) and the list of sources.
 *
 * Source: nanoBragg.c main(), "default sampling logic", "sanity checks" and
 * the source-generation loops; physics.md §10 and §11.
 */
#include "nb-model.h"
#include "base/nb-memory.h"
#include "base/nb-textfile.h"

#include <stdlib.h>
#include <string.h>

/* The count/range/step rule shared by divergence and dispersion (§10.2). */
static void
resolve_div (int *n, double *range, double *step)
{
  if (*n <= 0)
    {
      if (*range < 0.0)
        {
          if (*step <= 0.0)
            {
              *n = 1;
              *range = 0.0;
              *step = 0.0;
            }
          else
            {
              *range = *step;
              *n = 2;
            }
        }
      else if (*step <= 0.0)
        {
          *step = *range;
          *n = 2;
        }
      else
        *n = (int) ceil (*range / *step);
    }
  else
    {
      if (*range < 0.0)
        {
          if (*step <= 0.0)
            {
              *range = 1.0;
              *step = *range / *n;
            }
          else
            {
              *range = *step;
              *n = 2;
            }
        }
      else if (*step <= 0.0)
        {
          if (*n <= 1)
            *n = 2;
          *step = *range / (*n - 1);
        }
    }
}

static void
sanity (int *n, double *range, double *step)
{
  if (*range <= 0.0 || *step <= 0.0 || *n <= 0)
    {
      *n = 1;
      *range = 0.0;
      *step = 0.0;
    }
}

/* The phi steps from -phisteps, -osc and -phistep, by nanoBragg's rule
 * (physics.md §10.1): -1 is "not given". */
static void
resolve_phi (int *n, double *range, double *step)
{
  if (*n < 0)
    {
      if (*range < 0.0)
        {
          if (*step <= 0.0)
            {
              *n = 1;
              *range = 0.0;
              *step = 0.0;
            }
          else
            {
              *range = *step;
              *n = 2;
            }
        }
      else if (*step <= 0.0)
        {
          *n = 2;
          *step = *range / 2.0;
        }
      else
        *n = (int) ceil (*range / *step);
    }
  else
    {
      if (*n == 0)
        *n = 1;
      if (*range < 0.0)
        {
          if (*step <= 0.0)
            {
              *range = 1.0 / NB_RTD;
              *step = *range / *n;
            }
          else
            {
              *range = *step;
              *n = 2;
            }
        }
      else if (*step < 0.0)
        *step = *range / *n;
    }
}

/* The sensor layers from -detector_thicksteps, -detector_thick and the
 * step, by nanoBragg's rule for them (§10.4: the automatic step is thick /
 * 2). */
static void
resolve_layers (int *n, double *range, double *step)
{
  if (*n <= 0)
    {
      if (*range < 0.0)
        {
          if (*step <= 0.0)
            {
              *n = 1;
              *range = 0.0;
              *step = 0.0;
            }
          else
            {
              *range = *step;
              *n = 2;
            }
        }
      else if (*step <= 0.0)
        {
          *n = 2;
          *step = *range / *n;
        }
      else
        *n = (int) ceil (*range / *step);
    }
  else
    {
      if (*range < 0.0)
        {
          if (*step <= 0.0)
            {
              *range = 0.5e-6;
              *step = *range / *n;
            }
          else
            {
              *range = *step;
              *n = 2;
            }
        }
      else if (*step <= 0.0)
        {
          if (*n <= 1)
            *n = 2;
          *step = *range / (*n - 1);
        }
    }
}

/* The mosaic domains and spread (§10.5): a spread without a count means 10
 * domains, a count without a spread one. */
static void
resolve_mosaic (nb_plan *plan)
{
  const nb_params *p = &plan->params;
  nb_crystal *x = &plan->xtal;

  x->mosaic_domains = p->mosaic_domains;
  x->mosaic_spread = p->mosaic_spread;
  if (x->mosaic_domains <= 0)
    {
      if (x->mosaic_spread < 0.0)
        {
          x->mosaic_domains = 1;
          x->mosaic_spread = 0.0;
        }
      else if (x->mosaic_spread == 0.0)
        x->mosaic_domains = 1;
      else
        {
          nb_log_printf (
              &plan->log,
              "WARNING: finite mosaicity with only one domain! upping to 10 mosaic domains\n");
          x->mosaic_domains = 10;
        }
    }
  else if (x->mosaic_spread < 0.0)
    {
      nb_log_printf (&plan->log,
                     "WARNING: no mosaic spread specified.  setting mosaic_domains = 1\n");
      x->mosaic_spread = 0.0;
      x->mosaic_domains = 1;
    }
  else if (x->mosaic_spread == 0.0)
    {
      nb_log_printf (&plan->log,
                     "WARNING: zero mosaic spread specified.  setting mosaic_domains = 1\n");
      x->mosaic_domains = 1;
    }
}

nb_status
nb_sampling_setup (nb_plan *plan, nb_error *err)
{
  const nb_params *p = &plan->params;
  nb_crystal *x = &plan->xtal;
  nb_sources *s = &plan->src;
  nb_detector *d = &plan->det;
  int n;
  double range, step;

  /* phi (§10.1) */
  n = p->phisteps;
  range = p->osc;
  step = p->phistep;
  resolve_phi (&n, &range, &step);
  if (n <= 0 || n > 100000)
    return nb_error_set (err, NB_ERR_INVALID, "-phisteps: %d phi steps (allowed: 1 to 100000)", n);
  x->phisteps = n;
  x->osc = range;
  x->phistep = step;
  x->phi0 = p->phi0;

  /* divergence and dispersion (§10.2, §10.3) */
  s->hdivsteps = p->hdivsteps;
  s->hdivrange = p->hdivrange;
  s->hdivstep = p->hdivstep;
  s->vdivsteps = p->vdivsteps;
  s->vdivrange = p->vdivrange;
  s->vdivstep = p->vdivstep;
  s->dispsteps = p->dispsteps;
  s->dispersion = p->dispersion;
  s->dispstep = p->dispstep;
  resolve_div (&s->hdivsteps, &s->hdivrange, &s->hdivstep);
  resolve_div (&s->vdivsteps, &s->vdivrange, &s->vdivstep);
  resolve_div (&s->dispsteps, &s->dispersion, &s->dispstep);

  /* sensor layers (§10.4): the auto rule differs (step = thick / 2) */
  n = p->detector_thicksteps;
  range = p->detector_thick;
  step = p->detector_thickstep;
  resolve_layers (&n, &range, &step);
  d->mu = p->detector_mu;
  if (range > 0.0 && d->mu < 0.0)
    {
      d->mu = 1.0 / range;
      nb_log_printf (&plan->log, "WARNING: setting detector attenuation depth to %g m\n", d->mu);
    }

  /* mosaic domains (§10.5) */
  resolve_mosaic (plan);
  if (x->mosaic_domains > 1000000)
    return nb_error_set (err, NB_ERR_INVALID, "-mosaic_domains: %d (allowed: 1 to 1000000)",
                         x->mosaic_domains);

  sanity (&s->hdivsteps, &s->hdivrange, &s->hdivstep);
  sanity (&s->vdivsteps, &s->vdivrange, &s->vdivstep);
  sanity (&s->dispsteps, &s->dispersion, &s->dispstep);
  sanity (&n, &range, &step);
  if (n > 1000)
    return nb_error_set (err, NB_ERR_INVALID,
                         "-detector_thicksteps: %d layers (allowed: 1 to 1000)", n);
  d->thicksteps = n;
  d->thick = range;
  d->thickstep = step;
  return NB_OK;
}

static nb_status
sources_alloc (nb_sources *s, int count, nb_error *err)
{
  s->count = count;
  if (!nb_reserve (&s->dir, &s->cap_dir, (size_t) count * 3 * sizeof (double)) ||
      !nb_reserve (&s->lambda, &s->cap_lambda, (size_t) count * sizeof (double)) ||
      !nb_reserve (&s->weight, &s->cap_weight, (size_t) count * sizeof (double)))
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory for %d sources", count);
  return NB_OK;
}

static int
keep_divergence_point (
    const nb_sources *s, int round_div, int ih, int iv, double *hdiv, double *vdiv)
{
  double test;

  *hdiv = s->hdivstep * ih - s->hdivrange / 2.0;
  *vdiv = s->vdivstep * iv - s->vdivrange / 2.0;
  test = (*hdiv * *hdiv - s->hdivstep * s->hdivstep / 4.0 * (1 - s->hdivsteps % 2)) / s->hdivrange /
         s->hdivrange;
  test += (*vdiv * *vdiv - s->vdivstep * s->vdivstep / 4.0 * (1 - s->vdivsteps % 2)) /
          s->vdivrange / s->vdivrange;
  return !(round_div && test * 4.0 > 1.1);
}

nb_status
nb_sources_setup (nb_plan *plan, nb_error *err)
{
  const nb_params *p = &plan->params;
  const nb_detector *d = &plan->det;
  nb_sources *s = &plan->src;
  const double source_distance = 10.0;
  nb_status st;

  s->count = 0;
  s->comment_rows = 0;
  if (p->source_file != NULL)
    {
      const nb_table *t = &plan->source_table;
      /* '#' lines are sources to the reference */
      const unsigned flags = p->physical ? 0 : NB_TABLE_REFERENCE_COMMENTS;

      if (plan->source_path == NULL || strcmp (plan->source_path, p->source_file) != 0 ||
          plan->source_flags != flags)
        {
          nb_table read;
          char *path;

          if ((st = nb_table_read_with (p->source_file, 5, flags, &read, err)) != NB_OK)
            return st;
          if ((path = strdup (p->source_file)) == NULL)
            {
              nb_table_clear (&read);
              return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
            }
          nb_table_clear (&plan->source_table);
          free (plan->source_path);
          plan->source_table = read;
          plan->source_path = path;
          plan->source_flags = flags;
        }
      if ((st = sources_alloc (s, t->rows, err)) != NB_OK)
        return st;
      for (int i = 0; i < t->rows; i++)
        {
          double row[5];

          memcpy (row, t->v + (size_t) i * 5, sizeof row);
          for (int k = 0; k < 3; k++)
            if (isnan (row[k]))
              row[k] = -source_distance * d->beam[k];
          if (isnan (row[3]))
            row[3] = 1.0;
          if (isnan (row[4]))
            row[4] = p->lambda0;
          memcpy (s->dir + 3 * i, row, 3 * sizeof (double));
          s->weight[i] = row[3];
          s->lambda[i] = row[4];
          if (t->comment[i])
            {
              /* taken as they are, as the reference does: typically a source
               * at the sample with wavelength 0, whose every scattering vector
               * is infinite (the exact kernel runs such plans) */
              nb_log_printf (&plan->log,
                             "WARNING: %s:%ld: a '#' line read as a source (%g %g %g, weight %g, "
                             "wavelength %g m), as nanoBragg reads it; -physical skips comments\n",
                             p->source_file, t->lines[i], row[0], row[1], row[2], row[3], row[4]);
              s->comment_rows++;
              continue;
            }
          if (row[0] == 0.0 && row[1] == 0.0 && row[2] == 0.0)
            return nb_error_set (err, NB_ERR_INVALID,
                                 "%s:%ld: source position 0 0 0 is the sample itself (a source "
                                 "needs a direction)",
                                 p->source_file, t->lines[i]);
          if (!(s->lambda[i] > 0.0))
            return nb_error_set (err, NB_ERR_INVALID,
                                 "%s:%ld: source wavelength %g m must be positive", p->source_file,
                                 t->lines[i], s->lambda[i]);
        }
      s->divsteps = -1; /* the reference's initial value, printed as such */
    }
  else
    {
      int divsteps = 0, count = 0;
      double hdiv, vdiv;

      for (int ih = 0; ih < s->hdivsteps; ih++)
        for (int iv = 0; iv < s->vdivsteps; iv++)
          if (keep_divergence_point (s, p->round_div, ih, iv, &hdiv, &vdiv))
            {
              divsteps++;
              nb_log_printf (&plan->log, "divergence deviation: %g %g\n", hdiv, vdiv);
            }
      for (int k = 0; k < s->dispsteps; k++)
        nb_log_printf (&plan->log, "lambda%d = %.15g\n", k,
                       p->lambda0 * (1.0 + s->dispstep * k - s->dispersion / 2.0));
      s->divsteps = divsteps;
      if (divsteps == 0)
        return nb_error_set (err, NB_ERR_INVALID,
                             "divergence: -hdivrange %g -hdivstep %g -vdivrange %g -vdivstep %g "
                             "(mrad) leave no source inside the round cut (the reference would "
                             "write an all-NaN image); use a smaller step or -square_div",
                             s->hdivrange * 1000, s->hdivstep * 1000, s->vdivrange * 1000,
                             s->vdivstep * 1000);
      if ((st = sources_alloc (s, divsteps * s->dispsteps, err)) != NB_OK)
        return st;
      for (int ih = 0; ih < s->hdivsteps; ih++)
        for (int iv = 0; iv < s->vdivsteps; iv++)
          {
            double v0[3], v1[3], v2[3];

            if (!keep_divergence_point (s, p->round_div, ih, iv, &hdiv, &vdiv))
              continue;
            for (int k = 0; k < 3; k++)
              v0[k] = -source_distance * d->beam[k];
            nb_rotate_axis (v0, d->polar_vector, vdiv, v1);
            nb_rotate_axis (v1, d->vert, hdiv, v2);
            for (int k = 0; k < s->dispsteps; k++)
              {
                double lambda = p->lambda0 * (1.0 + s->dispstep * k - s->dispersion / 2.0);

                if (!(lambda > 0.0))
                  return nb_error_set (err, NB_ERR_INVALID,
                                       "-dispersion %g%%: wavelength %d of the spectrum is %g A "
                                       "(must be positive)",
                                       s->dispersion * 100, k, lambda * 1e10);
                memcpy (s->dir + 3 * count, v2, sizeof v2);
                s->lambda[count] = lambda;
                s->weight[count] = 1.0 / (divsteps * s->dispsteps);
                count++;
              }
          }
    }

  nb_log_printf (&plan->log, "  created a total of %d sources:\n", s->count);
  for (int i = 0; i < s->count; i++)
    {
      double *v = s->dir + 3 * i;

      nb_log_printf (&plan->log, "%g %g %g   %g %g\n", v[0], v[1], v[2], s->weight[i],
                     s->lambda[i]);
      if (nb_unitize (v, v) == 0.0 && !(p->source_file != NULL && plan->source_table.comment[i]))
        return nb_error_set (err, NB_ERR_INVALID, "source %d has no direction (0 0 0)", i + 1);
    }
  return NB_OK;
}

void
nb_sources_free (nb_sources *s)
{
  free (s->dir);
  free (s->lambda);
  free (s->weight);
  s->dir = s->lambda = s->weight = NULL;
  s->cap_dir = s->cap_lambda = s->cap_weight = 0;
  s->count = 0;
}
