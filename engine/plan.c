/* plan.c: nb_plan: derives and caches everything execute needs.
 *
 * Source: nanoBragg.c main(), set-up sequence (physics.md §2): pixel counts,
 * fluence and beam clipping, the convention block, sampling auto-selection,
 * detector geometry, interpolation choice, cell and orientation, structure
 * factors, sources, mosaic domains, summary and water background.
 */
#include "nb-private.h"
#include "nb-io.h"
#include "nb-textfile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void
nb_log_printf (nb_log *log, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vsnprintf (NULL, 0, fmt, ap);
  va_end (ap);
  if (n < 0)
    return;
  if (log->len + (size_t) n + 1 > log->cap)
    {
      size_t cap = log->cap ? log->cap : 4096;
      char *text;

      while (log->len + (size_t) n + 1 > cap)
        cap *= 2;
      text = realloc (log->text, cap);
      if (text == NULL)
        return; /* the log is diagnostic only */
      log->text = text;
      log->cap = cap;
    }
  va_start (ap, fmt);
  vsnprintf (log->text + log->len, (size_t) n + 1, fmt, ap);
  va_end (ap);
  log->len += (size_t) n;
}

void
nb_log_free (nb_log *log)
{
  free (log->text);
  log->text = NULL;
  log->len = log->cap = 0;
}

static nb_status
load_mask (nb_plan *plan, nb_error *err)
{
  nb_smv_file f;
  nb_status st;
  size_t n = (size_t) plan->det.fpixels * (size_t) plan->det.spixels;

  if (plan->params.mask_file == NULL)
    return NB_OK;
  if ((st = nb_read_smv (plan->params.mask_file, &f, err)) != NB_OK)
    return st;
  if (f.size1 != plan->det.fpixels || f.size2 != plan->det.spixels)
    {
      nb_error_set (err, NB_ERR_INVALID, "-mask %s: %dx%d pixels, but the detector has %dx%d",
                    plan->params.mask_file, f.size1, f.size2, plan->det.fpixels,
                    plan->det.spixels);
      nb_smv_file_clear (&f);
      return NB_ERR_INVALID;
    }
  plan->mask = malloc (n * sizeof (uint16_t));
  if (plan->mask == NULL)
    {
      nb_smv_file_clear (&f);
      return nb_error_set (err, NB_ERR_NOMEM, "out of memory for the mask");
    }
  memcpy (plan->mask, f.pixels, n * sizeof (uint16_t));
  nb_smv_file_clear (&f);
  return NB_OK;
}

static nb_status
load_structure_factors (nb_plan *plan, nb_error *err)
{
  const nb_params *p = &plan->params;
  nb_status st;

  if (p->hkl_file != NULL)
    {
      nb_log_printf (&plan->log, "counting entries in %s\n", p->hkl_file);
      if ((st = nb_hkl_read (p->hkl_file, p->default_F, &plan->hkl, err)) != NB_OK)
        return st;
      if (p->dump_file != NULL)
        {
          nb_log_printf (&plan->log, "writing dump file for next time: %s\n", p->dump_file);
          if ((st = nb_hkl_write_dump (p->dump_file, &plan->hkl, err)) != NB_OK)
            return st;
        }
    }
  else if (p->dump_file != NULL)
    {
      nb_log_printf (&plan->log, "reading Fs from %s\n", p->dump_file);
      if ((st = nb_hkl_read_dump (p->dump_file, &plan->hkl, err)) != NB_OK)
        return st;
    }
  else if (p->default_F == 0.0)
    return nb_error_set (err, NB_ERR_USAGE,
                         "no structure factors: give -hkl FILE, -dump FILE (an Fdump cache) or "
                         "-default_F F");
  return NB_OK;
}

static nb_status
read_stol (nb_plan *plan, nb_error *err)
{
  const nb_params *p = &plan->params;
  nb_table t;
  nb_status st;

  if (p->stol_file == NULL)
    return NB_OK;
  nb_log_printf (&plan->log, "reading %s\n", p->stol_file);
  if ((st = nb_table_read (p->stol_file, 2, &t, err)) != NB_OK)
    return st;
  /* The reference reads the table and never uses it (§18); reported only. */
  nb_log_printf (&plan->log, "  %d stol values read (not used by the nanoBragg model)\n", t.rows);
  nb_table_clear (&t);
  return NB_OK;
}

static void
log_summary (nb_plan *plan)
{
  const nb_params *p = &plan->params;
  const nb_detector *d = &plan->det;
  const nb_crystal *x = &plan->xtal;
  const nb_sources *s = &plan->src;
  nb_log *log = &plan->log;
  static const char *shapes[] = { "parallelpiped", "ellipsoidal", "gaussian", "tophat-spot" };
  double v[3];

  nb_log_printf (log, "  %ld initialized hkls (all others =%g)\n", plan->hkl.hkls, p->default_F);
  nb_log_printf (log, "  %s xtal: %.0fx%.0fx%.0f cells\n", shapes[p->shape], x->Na, x->Nb, x->Nc);
  nb_log_printf (log, "  wave=%g meters +/- %g%% in %d steps\n", p->lambda0, s->dispersion * 100,
                 s->dispsteps);
  if (p->nopolar)
    nb_log_printf (log, "  polarization effect disabled\n");
  else
    nb_log_printf (log, "  Kahn polarization factor: %f\n", p->polarization);
  if (d->curved)
    nb_log_printf (log, "  curved detector: all pixels same distance from origin\n");
  if (d->point_pixel)
    nb_log_printf (log, "  pixel obliquity effect disabled\n");
  nb_log_printf (log, "  incident fluence: %lg photons/m^2\n", plan->fluence);
  nb_log_printf (log, "  distance=%lg detsize=%lgx%lg  pixel=%lg meters (%dx%d pixels)\n",
                 d->distance, d->detsize_f, d->detsize_s, d->pixel_size, d->fpixels, d->spixels);
  nb_log_printf (log, "  sensor is %lg m thick in %d layers with mu= %lg\n", d->thick,
                 d->thicksteps, d->mu);
  nb_log_printf (log, "  Xbeam=%lg Ybeam=%lg\n", d->Xbeam, d->Ybeam);
  nb_log_printf (log, "  Fbeam=%lg Sbeam=%lg\n", d->Fbeam, d->Sbeam);
  nb_log_printf (log, "  Xclose=%lg Yclose=%lg\n", d->Xclose, d->Yclose);
  nb_log_printf (log, "  Fclose=%lg Sclose=%lg\n", d->Fclose, d->Sclose);
  nb_log_printf (log, "  DIRECTION_OF_DETECTOR_X-AXIS= %g %g %g\n", d->fdet[0], d->fdet[1], d->fdet[2]);
  nb_log_printf (log, "  DIRECTION_OF_DETECTOR_Y-AXIS= %g %g %g\n", d->sdet[0], d->sdet[1], d->sdet[2]);
  nb_log_printf (log, "  DIRECTION_OF_DETECTOR_Z-AXIS= %g %g %g\n", d->odet[0], d->odet[1], d->odet[2]);
  nb_log_printf (log, "  INCIDENT_BEAM_DIRECTION= %g %g %g\n", d->beam[0], d->beam[1], d->beam[2]);
  nb_log_printf (log, "  spindle ROTATION_AXIS= %g %g %g\n", d->spindle[0], d->spindle[1], d->spindle[2]);
  nb_cross (d->beam, d->polar_vector, v);
  nb_log_printf (log, "  POLARIZATION_PLANE_NORMAL= %g %g %g\n", v[0], v[1], v[2]);
  nb_log_printf (log, "  dials origin= %g %g %g\n", d->dials_origin[0], d->dials_origin[1],
                 d->dials_origin[2]);
  nb_log_printf (log, "  roi: %d < x < %d && %d < y < %d\n", d->roi_xmin, d->roi_xmax,
                 d->roi_ymin, d->roi_ymax);
  nb_log_printf (log, "  hdivrange=%g hdivstep=%g  radians\n", s->hdivrange, s->hdivstep);
  nb_log_printf (log, "  vdivrange=%g vdivstep=%g  radians\n", s->vdivrange, s->vdivstep);
  nb_log_printf (log, "  %d divergence steps\n", s->divsteps);
  nb_log_printf (log, "  %d sources\n", s->count);
  nb_log_printf (log, "  %d mosaic domains over mosaic spread of %g degrees\n", x->mosaic_domains,
                 x->mosaic_spread * NB_RTD);
  nb_log_printf (log, "  %d phi steps from %g to %g degrees\n", x->phisteps, x->phi0 * NB_RTD,
                 (x->phi0 + x->osc) * NB_RTD);
  nb_log_printf (log, "  %dx%d pixel oversample steps%s%s%s\n", d->oversample, d->oversample,
                 p->oversample_thick ? " +thick" : "", p->oversample_polar ? " +polar" : "",
                 p->oversample_omega ? " +omega" : "");
  if (plan->mask != NULL)
    nb_log_printf (log, "  skipping zero-flagged pixels in %s\n", p->mask_file);
  if (p->calculate_noise)
    {
      nb_log_printf (log, "\n  noise image paramters:\n");
      nb_log_printf (log, "  seed: %ld\n", p->seed);
      nb_log_printf (log, "  water droplet size: %g m\n", p->water_size);
    }
}

static nb_status
validate (const nb_params *p, nb_error *err)
{
  if (!(p->lambda0 > 0.0) || !isfinite (p->lambda0))
    return nb_error_set (err, NB_ERR_INVALID, "-lambda: wavelength %g A must be positive",
                         p->lambda0 * 1e10);
  if (p->Na > 1e6 || p->Nb > 1e6 || p->Nc > 1e6)
    return nb_error_set (err, NB_ERR_INVALID, "-N: %g x %g x %g cells (allowed up to 1e6)", p->Na,
                         p->Nb, p->Nc);
  if (p->sample_x < 0 || p->sample_y < 0 || p->sample_z < 0)
    return nb_error_set (err, NB_ERR_INVALID, "-xtalsize: crystal size must not be negative");
  if (!(p->distance > 0.0) && isnan (p->close_distance))
    return nb_error_set (err, NB_ERR_INVALID, "-distance: %g mm must be positive",
                         p->distance * 1000);
  if (p->oversample > 1000)
    return nb_error_set (err, NB_ERR_INVALID, "-oversample: %d (allowed: 1 to 1000)", p->oversample);
  if (p->fluence < 0 || p->flux < 0)
    return nb_error_set (err, NB_ERR_INVALID, "-fluence/-flux must not be negative");
  if (p->water_size < 0)
    return nb_error_set (err, NB_ERR_INVALID, "-water: %g um must not be negative",
                         p->water_size * 1e6);
  return NB_OK;
}

static nb_status
plan_build (nb_plan *plan, nb_error *err)
{
  const nb_params *p = &plan->params;
  nb_detector *d = &plan->det;
  nb_crystal *x = &plan->xtal;
  double sample_y = p->sample_y, sample_z = p->sample_z;
  nb_status st;

  if ((st = validate (p, err)) != NB_OK)
    return st;
  if ((st = nb_detector_setup (plan, err)) != NB_OK)
    return st;

  plan->fluence = p->fluence;
  if (p->flux != 0.0 && p->exposure > 0.0 && p->beamsize >= 0)
    plan->fluence = p->flux * p->exposure / p->beamsize / p->beamsize;
  if (p->beamsize >= 0)
    {
      if (p->beamsize < sample_y)
        {
          nb_log_printf (&plan->log, "WARNING: clipping sample (%lg m high) with beam (%lg m)\n",
                         sample_y, p->beamsize);
          sample_y = p->beamsize;
        }
      if (p->beamsize < sample_z)
        {
          nb_log_printf (&plan->log, "WARNING: clipping sample (%lg m wide) with beam (%lg m)\n",
                         sample_z, p->beamsize);
          sample_z = p->beamsize;
        }
    }
  if (!isfinite (plan->fluence))
    return nb_error_set (err, NB_ERR_INVALID, "fluence %g photons/m^2 is not finite (check -flux/-beamsize)",
                         plan->fluence);

  nb_log_printf (&plan->log,
                 "nanoBragg nanocrystal diffraction simulator - James Holton and Ken Frankel 5-17-17\n");
  if (p->cell[0] == 0.0 && p->mat_file == NULL)
    return nb_error_set (err, NB_ERR_USAGE, "no unit cell: give -cell a b c alpha beta gamma or -mat FILE");
  if (p->hkl_file == NULL && p->dump_file == NULL && p->default_F == 0.0)
    return nb_error_set (err, NB_ERR_USAGE,
                         "no structure factors: give -hkl FILE, -dump FILE (an Fdump cache) or "
                         "-default_F F");

  if ((st = nb_sampling_setup (plan, err)) != NB_OK)
    return st;
  if ((st = nb_detector_orient (plan, err)) != NB_OK)
    return st;

  plan->interpolate = p->interpolate;
  if (plan->interpolate > 1)
    {
      /* decided on -N alone, before -xtalsize */
      if (p->Na <= 2 || p->Nb <= 2 || p->Nc <= 2)
        {
          nb_log_printf (&plan->log, "auto-selected tricubic interpolation of structure factors\n");
          plan->interpolate = 1;
        }
      else
        {
          nb_log_printf (&plan->log, "auto-selected no interpolation\n");
          plan->interpolate = 0;
        }
    }

  if ((st = nb_crystal_setup (plan, err)) != NB_OK)
    return st;
  nb_crystal_size (plan, p->sample_x, sample_y, sample_z);
  {
    double A = nb_magnitude (x->a0) * x->Na, B = nb_magnitude (x->b0) * x->Nb;
    double C = nb_magnitude (x->c0) * x->Nc, xmax = A, rps;
    int recommended;

    if (xmax < B)
      xmax = B;
    if (xmax < C)
      xmax = C;
    rps = p->lambda0 * d->distance / d->pixel_size;
    recommended = (int) ceil (3.0 * xmax / rps);
    if (recommended <= 0)
      recommended = 1;
    nb_log_printf (&plan->log, "crystal is %g x %g x %g microns\n", A * 1e6, B * 1e6, C * 1e6);
    d->oversample = p->oversample;
    if (d->oversample <= 0)
      {
        d->oversample = recommended;
        nb_log_printf (&plan->log, "auto-selected %d-fold oversampling\n", d->oversample);
      }
    if (d->oversample < recommended)
      nb_log_printf (&plan->log,
                     "WARNING: maximum dimension of sample is %g A\n"
                     "         but reciprocal pixel size is %g A\n"
                     "         intensity may vary significantly across a pixel!\n"
                     "         recommend -oversample %d to work around this\n",
                     xmax * 1e10, rps * 1e10, recommended);
    if (d->oversample > 1000)
      return nb_error_set (err, NB_ERR_INVALID,
                           "automatic oversampling chose %d sub-pixels per axis; give -oversample",
                           d->oversample);
  }

  if ((st = load_structure_factors (plan, err)) != NB_OK)
    return st;
  if (plan->hkl.hkls == 0)
    plan->interpolate = 0;
  plan->default_F = p->default_F;
  if ((st = read_stol (plan, err)) != NB_OK)
    return st;

  for (int t = 0; t < d->thicksteps; t++)
    nb_log_printf (&plan->log, "thick%d = %g um\n", t, d->thickstep * t * 1e6);
  for (int j = 0; j < x->phisteps; j++)
    nb_log_printf (&plan->log, "phi%d = %g\n", j, (x->phi0 + x->phistep * j) * NB_RTD);

  if ((st = nb_sources_setup (plan, err)) != NB_OK)
    return st;
  if ((st = nb_mosaic_setup (plan, err)) != NB_OK)
    return st;
  if ((st = nb_orient_setup (plan, err)) != NB_OK)
    return st;
  if ((st = load_mask (plan, err)) != NB_OK)
    return st;

  if (d->oversample <= 0)
    d->oversample = 1;
  {
    double steps = (double) plan->src.count * x->mosaic_domains * x->phisteps * d->oversample
                   * d->oversample;
    if (steps > 2147483647.0)
      return nb_error_set (err, NB_ERR_INVALID,
                           "%d sources x %d domains x %d phi steps x %d^2 sub-pixels is too many",
                           plan->src.count, x->mosaic_domains, x->phisteps, d->oversample);
    plan->steps = (int) steps;
  }
  d->subpixel_size = d->pixel_size / d->oversample;

  log_summary (plan);
  if (p->physical)
    plan->I_bg = 2.57 * 2.57 * p->water_size * p->water_size * p->water_size * 1e6 * 6.02214179e23
                 / 18.0;
  else
    plan->I_bg = 2.57 * 2.57 * 7.94079248018965e-30 * plan->fluence * p->water_size * p->water_size
                 * p->water_size * 1e6 * 6.02214179e23 / 18.0;

  if ((st = nb_f32_prepare (plan, err)) != NB_OK)
    return st;
  plan->row_omega = calloc ((size_t) d->spixels, sizeof (double));
  plan->row_flag = calloc ((size_t) d->spixels, 1);
  if (plan->row_omega == NULL || plan->row_flag == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");

  /* public info */
  {
    nb_plan_info *in = &plan->info;

    memset (in, 0, sizeof *in);
    in->fpixels = d->fpixels;
    in->spixels = d->spixels;
    in->pixel_size = d->pixel_size;
    in->oversample = d->oversample;
    in->thicksteps = d->thicksteps;
    in->sources = plan->src.count;
    in->mosaic_domains = x->mosaic_domains;
    in->phisteps = x->phisteps;
    in->steps = plan->steps;
    in->lambda0 = p->lambda0;
    in->distance = d->distance;
    in->close_distance = d->close_distance;
    in->Xbeam = d->Xbeam;
    in->Ybeam = d->Ybeam;
    in->Fbeam = d->Fbeam;
    in->Sbeam = d->Sbeam;
    in->Fclose = d->Fclose;
    in->Sclose = d->Sclose;
    in->ORGX = d->ORGX;
    in->ORGY = d->ORGY;
    memcpy (in->dials_origin, d->dials_origin, sizeof in->dials_origin);
    in->detsize_f = d->detsize_f;
    in->detsize_s = d->detsize_s;
    memcpy (in->fdet, d->fdet, sizeof in->fdet);
    memcpy (in->sdet, d->sdet, sizeof in->sdet);
    memcpy (in->odet, d->odet, sizeof in->odet);
    memcpy (in->beam, d->beam, sizeof in->beam);
    memcpy (in->pix0, d->pix0, sizeof in->pix0);
    memcpy (in->spindle, d->spindle, sizeof in->spindle);
    memcpy (in->polar_vector, d->polar_vector, sizeof in->polar_vector);
    in->phi0 = x->phi0;
    in->osc = x->osc;
    in->phistep = x->phistep;
    in->twotheta = p->twotheta;
    memcpy (in->a_star, x->a_star, sizeof in->a_star);
    memcpy (in->b_star, x->b_star, sizeof in->b_star);
    memcpy (in->c_star, x->c_star, sizeof in->c_star);
    memcpy (in->a0, x->a0, sizeof in->a0);
    memcpy (in->b0, x->b0, sizeof in->b0);
    memcpy (in->c0, x->c0, sizeof in->c0);
    in->Na = x->Na;
    in->Nb = x->Nb;
    in->Nc = x->Nc;
    in->fluence = plan->fluence;
    in->roi[0] = d->roi_xmin;
    in->roi[1] = d->roi_xmax;
    in->roi[2] = d->roi_ymin;
    in->roi[3] = d->roi_ymax;
    in->convention = d->convention;
    in->pivot = d->pivot;
    in->interpolate = plan->interpolate;
    in->default_F = plan->default_F;
  }
  return NB_OK;
}

static void
plan_release (nb_plan *plan)
{
  nb_params_clear (&plan->params);
  nb_log_free (&plan->log);
  nb_sources_free (&plan->src);
  nb_crystal_free (&plan->xtal);
  nb_orient_free (&plan->orient);
  nb_hkl_grid_clear (&plan->hkl);
  nb_f32_free (&plan->f32);
  free (plan->mask);
  free (plan->row_omega);
  free (plan->row_flag);
}

nb_status
nb_plan_create (const nb_params *params, nb_plan **out, nb_error *err)
{
  nb_plan *plan;
  nb_status st;

  *out = NULL;
  nb_error_clear (err);
  plan = calloc (1, sizeof *plan);
  if (plan == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  if ((st = nb_params_copy (&plan->params, params, err)) != NB_OK)
    {
      free (plan);
      return st;
    }
  nb_ran1_init (&plan->ran);
  st = plan_build (plan, err);
  if (st != NB_OK)
    {
      plan_release (plan);
      free (plan);
      return st;
    }
  *out = plan;
  return NB_OK;
}

nb_status
nb_plan_update (nb_plan *plan, const nb_params *params, nb_error *err)
{
  nb_plan *fresh;
  nb_status st = nb_plan_create (params, &fresh, err);

  if (st != NB_OK)
    return st;
  plan_release (plan);
  *plan = *fresh;
  free (fresh);
  return NB_OK;
}

void
nb_plan_destroy (nb_plan *plan)
{
  if (plan == NULL)
    return;
  plan_release (plan);
  free (plan);
}

nb_status
nb_plan_execute (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err)
{
  nb_error_clear (err);
  /* tricubic interpolation keeps the double kernel (its fallback is global, Q-15) */
  if (plan->params.precision == NB_PRECISION_SINGLE && !plan->interpolate)
    return nb_kernel_execute_f32 (plan, image, opts, err);
  return nb_kernel_execute (plan, image, opts, err);
}

const nb_plan_info *
nb_plan_get_info (const nb_plan *plan)
{
  return &plan->info;
}

const nb_params *
nb_plan_get_params (const nb_plan *plan)
{
  return &plan->params;
}

const char *
nb_plan_get_log (const nb_plan *plan)
{
  return plan->log.text ? plan->log.text : "";
}

const uint16_t *
nb_plan_get_mask (const nb_plan *plan)
{
  return plan->mask;
}

double
nb_plan_get_omega_sum (const nb_plan *plan)
{
  return plan->omega_sum;
}
