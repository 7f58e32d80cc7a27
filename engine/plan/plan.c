/* plan.c: nb_plan: derives and caches everything execute needs.
 *
 * Source: nanoBragg.c main(), set-up sequence (physics.md §2): pixel counts,
 * fluence and beam clipping, the convention block, sampling auto-selection,
 * detector geometry, interpolation choice, cell and orientation, structure
 * factors, sources, mosaic domains, summary and water background.
 */
#include "model/nb-model.h"
#include "base/nb-memory.h"
#include "nb-plan-private.h"
#include "nb-panels.h"
#include "kernels/nb-backend.h"
#include "params/nb-param-private.h"
#include "formats/nb-mtz.h"
#include "nb-io.h"
#include "base/nb-textfile.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

static nb_status
load_mask (nb_plan *plan, nb_error *err)
{
  nb_smv_file f;
  nb_status st;
  size_t n = (size_t) plan->det.fpixels * (size_t) plan->det.spixels;

  free (plan->mask);
  plan->mask = NULL;
  if (plan->params.mask_file == NULL)
    return NB_OK;
  if ((st = nb_read_smv (plan->params.mask_file, &f, err)) != NB_OK)
    return st;
  if (f.size1 != plan->det.fpixels || f.size2 != plan->det.spixels)
    {
      nb_error_set (err, NB_ERR_INVALID, "-mask %s: %dx%d pixels, but the detector has %dx%d",
                    plan->params.mask_file, f.size1, f.size2, plan->det.fpixels, plan->det.spixels);
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
  {
    size_t kept = 0;

    for (size_t i = 0; i < n; i++)
      kept += plan->mask[i] != 0;
    /* The reference renders such a mask without a word: an all-zero image is a silent
     * wrong answer when the mask's convention (non-zero = keep) was inverted. */
    if (kept == 0)
      nb_log_printf (&plan->log,
                     "WARNING: -mask %s flags no pixel (non-zero keeps a pixel): the image will "
                     "be all zero\n",
                     plan->params.mask_file);
  }
  return NB_OK;
}

/* Drops the plan's reference to its structure factors (geometry snapshots may
 * keep them alive). */
static void
release_structure_factors (nb_plan *plan)
{
  if (plan->hkl_shared != NULL)
    {
      nb_shared_F_unref (plan->hkl_shared);
      plan->hkl_shared = NULL;
      memset (&plan->hkl, 0, sizeof plan->hkl);
    }
  else
    nb_hkl_grid_clear (&plan->hkl);
}

static nb_status
share_structure_factors (nb_plan *plan, nb_error *err)
{
  if (plan->hkl.F != NULL && (plan->hkl_shared = nb_shared_F_new (plan->hkl.F)) == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  return NB_OK;
}

/* ------------------------------------------------------------------------- */
/* Memory budget: the plan estimates what it and its caller will hold before
 * any stage allocates, and refuses more than the budget (nb_params
 * memory_budget, default half of the memory the process may use:
 * nb_memory_budget()) instead of being killed, or crashing, half way. */

#define SF_CELL_BYTES                                                                              \
  (sizeof (double) + sizeof (float)) /* the grid and its single-precision copy */

static double
memory_budget (const nb_params *p)
{
  return nb_memory_budget (p->memory_budget);
}

typedef struct
{
  double image;   /* caller's image buffers, mask, row tables */
  double sources; /* sources and their list */
  double orient;  /* orientation tables, mosaic rotations, log lines */
  double total;   /* all of it, without the structure factors */
} memory_estimate;

/* Needs the detector's pixel counts and the sampling counts (after
 * nb_detector_setup and nb_sampling_setup). */
static void
estimate_memory (const nb_plan *plan, double caller_bytes_per_pixel, memory_estimate *m)
{
  const nb_params *p = &plan->params;
  const nb_detector *d = &plan->det;
  const nb_sources *s = &plan->src;
  const nb_crystal *x = &plan->xtal;
  double pixels = (double) nb_plan_pixels (plan);
  double sources, steps;

  /* the float image a caller renders into and its 16-bit and 8-bit
   * conversions (the CLI's SMV and PGM/PNG) unless the caller says what it
   * holds, the mask and the SMV file it is read from, a row of solid angles */
  if (caller_bytes_per_pixel <= 0.0)
    caller_bytes_per_pixel = sizeof (float) + sizeof (uint16_t) + sizeof (uint8_t);
  m->image = pixels * caller_bytes_per_pixel +
             (p->mask_file != NULL ? pixels * 2 * sizeof (uint16_t) : 0.0) +
             (plan->n_panels > 0 ? pixels * sizeof (uint16_t) : 0.0) + /* the panels' masks */
             (double) nb_panels_max_spixels (plan) * sizeof (double);
  /* the CUDA backend's pinned copy of the image, where a GPU may take the
   * plan (its device memory is checked against the GPU's free memory when it
   * is allocated, nb-cuda.cu) */
  if (nb_backend_may_use_gpu (plan))
    m->image += pixels * sizeof (float);
  /* a source file's rows are bounded by its size ("1\n" is the shortest) */
  if (p->source_file != NULL)
    {
      struct stat st;

      sources = stat (p->source_file, &st) == 0 ? fmin ((double) st.st_size / 2 + 1, 1e7) : 1.0;
    }
  else
    sources = (double) s->hdivsteps * (double) s->vdivsteps * (double) s->dispsteps;
  /* direction, wavelength and weight in double and float, the table read, a log line */
  m->sources = sources * (5 * sizeof (double) + 4 * sizeof (float) + 5 * sizeof (double) + 96);
  steps = (double) x->phisteps * (double) x->mosaic_domains;
  /* a, b, c per step in two double tables and a float one; a rotation per domain */
  m->orient = steps * (2 * 9 * sizeof (double) + 9 * sizeof (float)) +
              (double) x->mosaic_domains * 9 * sizeof (double) +
              ((double) x->phisteps + d->thicksteps) * 32;
  /* the plan itself and its log */
  m->total = m->image + m->sources + m->orient + (1 << 20);
}

static nb_status
check_memory (const nb_plan *plan, double caller_bytes_per_pixel, nb_error *err)
{
  const nb_params *p = &plan->params;
  double budget = memory_budget (p);
  memory_estimate m;

  estimate_memory (plan, caller_bytes_per_pixel, &m);
  if (m.total <= budget)
    return NB_OK;
  return nb_error_set (
      err, NB_ERR_NOMEM,
      "memory budget: this plan needs about %.1f MB (%d x %d pixels: %.1f MB, "
      "up to %.0f sources: %.1f MB, %d phi steps x %d mosaic domains: %.1f MB) "
      "before any structure factors, more than the budget of %.1f MB (%s)",
      m.total / 1e6, plan->det.fpixels, plan->det.spixels, m.image / 1e6,
      m.sources / (5 * sizeof (double) + 4 * sizeof (float) + 5 * sizeof (double) + 96),
      m.sources / 1e6, plan->xtal.phisteps, plan->xtal.mosaic_domains, m.orient / 1e6, budget / 1e6,
      p->memory_budget > 0.0 ? "-memory_budget"
                             : "half of the memory this process may use; see -memory_budget");
}

/* The crystal's cell, the structure-factor file's and whether they differ,
 * into @in. */
static void
hkl_cell_info (const nb_plan *plan, nb_plan_info *in)
{
  const nb_crystal *x = &plan->xtal;
  const double *v[3] = { x->a0, x->b0, x->c0 };

  for (int i = 0; i < 3; i++)
    {
      const double *u = v[(i + 1) % 3], *w = v[(i + 2) % 3];

      in->cell[i] = nb_magnitude (v[i]) * 1e10;
      in->cell[3 + i] = acos (nb_dot (u, w) / (nb_magnitude (u) * nb_magnitude (w))) * 180.0 / M_PI;
    }
  memcpy (in->hkl_cell, plan->hkl.cell, sizeof in->hkl_cell);
  memcpy (in->hkl_space_group, plan->hkl.space_group, sizeof in->hkl_space_group);
  in->hkl_cell_differs = nb_cell_differs (in->cell, in->hkl_cell);
  in->hkl_d_min =
      plan->model != NULL && plan->model->kind == NB_STRUCTURE_ATOMS ? plan->model_d_min : 0.0;
}

/* What the budget leaves for the structure factors (text, records, grid). */
static size_t
structure_factor_budget (const nb_plan *plan)
{
  double budget = memory_budget (&plan->params);
  memory_estimate m;

  estimate_memory (plan, 0.0, &m);
  if (m.total >= budget)
    return 0;
  if (budget - m.total >= (double) SIZE_MAX)
    return SIZE_MAX;
  return (size_t) (budget - m.total);
}

static nb_status
load_structure_factors (nb_plan *plan, nb_error *err)
{
  const nb_params *p = &plan->params;
  nb_status st;

  release_structure_factors (plan);
  if (plan->model != NULL)
    {
      if ((st = nb_atomic_model_grid (plan, structure_factor_budget (plan), SF_CELL_BYTES, err)) !=
              NB_OK ||
          (st = share_structure_factors (plan, err)) != NB_OK)
        return st;
      if (p->dump_file != NULL)
        {
          nb_log_printf (&plan->log, "writing dump file for next time: %s\n", p->dump_file);
          if ((st = nb_hkl_write_dump (p->dump_file, &plan->hkl, err)) != NB_OK)
            return st;
        }
    }
  else if (p->hkl_file != NULL)
    {
      if (nb_file_is_mtz (p->hkl_file))
        {
          char column[32] = "";

          if ((st = nb_mtz_read (p->hkl_file, NULL, p->default_F, structure_factor_budget (plan),
                                 SF_CELL_BYTES, &plan->hkl, column, err)) != NB_OK ||
              (st = share_structure_factors (plan, err)) != NB_OK)
            return st;
          nb_log_printf (&plan->log, "read %s (MTZ column %s, expanded to P1)\n", p->hkl_file,
                         column);
        }
      else
        {
          nb_log_printf (&plan->log, "counting entries in %s\n", p->hkl_file);
          if ((st = nb_hkl_read_limited (p->hkl_file, p->default_F, structure_factor_budget (plan),
                                         SF_CELL_BYTES, &plan->hkl, err)) != NB_OK ||
              (st = share_structure_factors (plan, err)) != NB_OK)
            return st;
        }
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
      if ((st = nb_hkl_read_dump_limited (p->dump_file, structure_factor_budget (plan),
                                          SF_CELL_BYTES, &plan->hkl, err)) != NB_OK ||
          (st = share_structure_factors (plan, err)) != NB_OK)
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
  /* The table is read whole and dropped; its text and rows (at most one per two bytes) must
   * fit in what the budget leaves beside the plan and the structure factors read before it
   * (their grid in double and the single-precision copy). */
  {
    const nb_hkl_grid *g = &plan->hkl;
    struct stat sb;
    double need, room = (double) structure_factor_budget (plan);

    if (g->F != NULL)
      room -= ((double) g->h_range + 1) * ((double) g->k_range + 1) * ((double) g->l_range + 1) *
              (sizeof (double) + sizeof (float));

    if (stat (p->stol_file, &sb) == 0 && sb.st_size > 0)
      {
        need = (double) sb.st_size +
               ((double) sb.st_size / 2 + 1) * (2 * sizeof (double) + sizeof (long));
        if (need > room)
          return nb_error_set (err, NB_ERR_NOMEM,
                               "%s: reading this %.1f MB table needs up to %.1f MB, more than "
                               "the %.1f MB the memory budget leaves (%s)",
                               p->stol_file, (double) sb.st_size / 1e6, need / 1e6, room / 1e6,
                               p->memory_budget > 0.0
                                   ? "-memory_budget"
                                   : "half of the memory this process may use; see "
                                     "-memory_budget");
      }
  }
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
  {
    nb_plan_info cells;

    hkl_cell_info (plan, &cells);
    if (cells.hkl_cell_differs)
      nb_log_printf (log,
                     "WARNING: %s is of the cell %g %g %g %g %g %g (%s), not the crystal's %g %g "
                     "%g %g %g %g: its structure factors cannot belong to this crystal\n",
                     p->hkl_file, cells.hkl_cell[0], cells.hkl_cell[1], cells.hkl_cell[2],
                     cells.hkl_cell[3], cells.hkl_cell[4], cells.hkl_cell[5],
                     cells.hkl_space_group[0] ? cells.hkl_space_group : "space group not given",
                     cells.cell[0], cells.cell[1], cells.cell[2], cells.cell[3], cells.cell[4],
                     cells.cell[5]);
  }
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
  nb_log_printf (log, "  DIRECTION_OF_DETECTOR_X-AXIS= %g %g %g\n", d->fdet[0], d->fdet[1],
                 d->fdet[2]);
  nb_log_printf (log, "  DIRECTION_OF_DETECTOR_Y-AXIS= %g %g %g\n", d->sdet[0], d->sdet[1],
                 d->sdet[2]);
  nb_log_printf (log, "  DIRECTION_OF_DETECTOR_Z-AXIS= %g %g %g\n", d->odet[0], d->odet[1],
                 d->odet[2]);
  nb_log_printf (log, "  INCIDENT_BEAM_DIRECTION= %g %g %g\n", d->beam[0], d->beam[1], d->beam[2]);
  nb_log_printf (log, "  spindle ROTATION_AXIS= %g %g %g\n", d->spindle[0], d->spindle[1],
                 d->spindle[2]);
  nb_cross (d->beam, d->polar_vector, v);
  nb_log_printf (log, "  POLARIZATION_PLANE_NORMAL= %g %g %g\n", v[0], v[1], v[2]);
  nb_log_printf (log, "  dials origin= %g %g %g\n", d->dials_origin[0], d->dials_origin[1],
                 d->dials_origin[2]);
  nb_log_printf (log, "  roi: %d < x < %d && %d < y < %d\n", d->roi_xmin, d->roi_xmax, d->roi_ymin,
                 d->roi_ymax);
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

#define STAGE(s)   (1u << (s))
#define ALL_STAGES (STAGE (NB_N_STAGES) - 1)

/* The fluence (-flux, -exposure and -beamsize give it when -flux is), and
 * the crystal's height and width clipped by the beam. */
static nb_status
beam_fluence (nb_plan *plan, double *sample_y, double *sample_z, nb_error *err)
{
  const nb_params *p = &plan->params;

  plan->fluence = p->fluence;
  if (p->flux != 0.0 && p->exposure > 0.0 && p->beamsize >= 0)
    plan->fluence = p->flux * p->exposure / p->beamsize / p->beamsize;
  if (p->beamsize >= 0)
    {
      if (p->beamsize < *sample_y)
        {
          nb_log_printf (&plan->log, "WARNING: clipping sample (%lg m high) with beam (%lg m)\n",
                         *sample_y, p->beamsize);
          *sample_y = p->beamsize;
        }
      if (p->beamsize < *sample_z)
        {
          nb_log_printf (&plan->log, "WARNING: clipping sample (%lg m wide) with beam (%lg m)\n",
                         *sample_z, p->beamsize);
          *sample_z = p->beamsize;
        }
    }
  if (!isfinite (plan->fluence))
    return nb_error_set (err, NB_ERR_INVALID,
                         "fluence %g photons/m^2 is not finite (check -flux/-beamsize)",
                         plan->fluence);
  return NB_OK;
}

/* Structure factors interpolated or not: automatic means tricubic for a
 * crystal of at most two cells along an axis, decided on -N alone, before
 * -xtalsize. */
static void
choose_interpolation (nb_plan *plan)
{
  const nb_params *p = &plan->params;

  plan->interpolate = p->interpolate;
  if (plan->interpolate > 1)
    {
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
}

/* The crystal's size in cells, and the oversampling: the one given, or three
 * samples across the reciprocal pixel for the crystal's largest dimension. */
typedef struct
{
  double sample_y, sample_z;
} sample_size;

static nb_status
crystal_oversampling (nb_plan *plan, void *data, nb_error *err)
{
  const double sample_y = ((sample_size *) data)->sample_y;
  const double sample_z = ((sample_size *) data)->sample_z;
  const nb_params *p = &plan->params;
  nb_detector *d = &plan->det;
  nb_crystal *x = &plan->xtal;

  nb_crystal_size (plan, p->sample_x, sample_y, sample_z);
  double A = nb_magnitude (x->a0) * x->Na, B = nb_magnitude (x->b0) * x->Nb;
  double C = nb_magnitude (x->c0) * x->Nc, xmax = A, rps;
  int recommended;

  if (xmax < B)
    xmax = B;
  if (xmax < C)
    xmax = C;
  rps = p->lambda0 * d->distance / d->pixel_size;
  /* bounded before the conversion: a huge crystal over a tiny (or, with an
   * odd geometry, negative) reciprocal pixel is far beyond an int; more than
   * 1000 is refused below */
  {
    double r = ceil (3.0 * xmax / rps);

    recommended = r <= 0.0 ? 1 : r < 1e9 ? (int) r : 1000000000;
  }
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
  /* the reference's rough estimate (density 1.2 g/cm^3, one molecule a cell), printed only */
  nb_log_printf (&plan->log, "approximate MW = %g\n",
                 A * B * C * 1.2e6 * 6.02214179e23 / (x->Na * x->Nb * x->Nc));
  return NB_OK;
}

/* The stages that depend on the detector, as nb_panel_fn. */
static nb_status
detector_setup (nb_plan *plan, void *data, nb_error *err)
{
  return nb_detector_setup (plan, err);
}

static nb_status
detector_orient (nb_plan *plan, void *data, nb_error *err)
{
  return nb_detector_orient (plan, err);
}

static nb_status
sampling_setup (nb_plan *plan, void *data, nb_error *err)
{
  return nb_sampling_setup (plan, err);
}

/* The sample evaluations per pixel (the image's normalisation) and the
 * sub-pixel size. */
static nb_status
count_steps (nb_plan *plan, void *data, nb_error *err)
{
  nb_detector *d = &plan->det;
  const nb_crystal *x = &plan->xtal;
  double steps;

  if (d->oversample <= 0)
    d->oversample = 1;
  steps =
      (double) plan->src.count * x->mosaic_domains * x->phisteps * d->oversample * d->oversample;
  if (steps > 2147483647.0)
    return nb_error_set (err, NB_ERR_INVALID,
                         "%d sources x %d domains x %d phi steps x %d^2 sub-pixels is too many",
                         plan->src.count, x->mosaic_domains, x->phisteps, d->oversample);
  plan->steps = (int) steps;
  d->subpixel_size = d->pixel_size / d->oversample;
  return NB_OK;
}

/* The detector stage: -detector's model, then each panel's detector. */
static nb_status
detector_stage (nb_plan *plan, nb_error *err)
{
  nb_status st;

  if ((st = nb_panels_read_model (plan, err)) != NB_OK)
    return st;
  return nb_panels_each (plan, detector_setup, NULL, err);
}

/* The public nb_plan_info of the plan as built, with detector @d. */
static void
fill_info_of (const nb_plan *plan, const nb_detector *d, nb_plan_info *in)
{
  const nb_params *p = &plan->params;
  const nb_crystal *x = &plan->xtal;

  memset (in, 0, sizeof *in);
  in->fpixels = d->fpixels;
  in->spixels = d->spixels;
  in->pixel_size = d->pixel_size;
  in->oversample = d->oversample;
  in->thicksteps = d->thicksteps;
  in->sources = plan->src.count;
  in->comment_sources = plan->src.comment_rows;
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
  hkl_cell_info (plan, in);
  in->fluence = plan->fluence;
  in->roi[0] = d->roi_xmin;
  in->roi[1] = d->roi_xmax;
  in->roi[2] = d->roi_ymin;
  in->roi[3] = d->roi_ymax;
  in->convention = d->convention;
  in->pivot = d->pivot;
  in->interpolate = plan->interpolate;
  in->default_F = plan->default_F;
  in->n_panels = plan->n_panels;
  in->integration = nb_backends_adaptive (plan) ? NB_INTEGRATION_ADAPTIVE : NB_INTEGRATION_EXACT;
  in->tolerance = p->tolerance;
}

static void
fill_info (nb_plan *plan)
{
  fill_info_of (plan, &plan->det, &plan->info);
  nb_panels_image_shape (plan, &plan->info.fpixels, &plan->info.spixels);
  /* the image's region is all of it: each panel renders its own -roi, and
   * panel 0's applied to the stacked image would keep panel 0 alone */
  if (plan->n_panels > 0)
    {
      plan->info.roi[0] = plan->info.roi[2] = 0;
      plan->info.roi[1] = plan->info.fpixels - 1;
      plan->info.roi[3] = plan->info.spixels - 1;
    }
}

nb_status
nb_plan_get_panel_info (const nb_plan *plan, int panel, nb_plan_info *info, nb_error *err)
{
  if (panel < 0 || panel >= (plan->n_panels > 0 ? plan->n_panels : 1))
    return nb_error_set (err, NB_ERR_INVALID, "panel %d: the detector has %d panel%s", panel,
                         plan->n_panels > 0 ? plan->n_panels : 1, plan->n_panels > 1 ? "s" : "");
  fill_info_of (plan, plan->n_panels > 0 ? &plan->panels[panel].det : &plan->det, info);
  if (plan->n_panels > 0)
    info->steps = plan->panels[panel].steps;
  return NB_OK;
}

/* The integration the plan asked for and the one it has, one line. */
static void
log_integration (nb_plan *plan)
{
  const nb_params *p = &plan->params;

  if (p->integration != NB_INTEGRATION_ADAPTIVE)
    return;
  if (plan->info.integration == NB_INTEGRATION_ADAPTIVE)
    nb_log_printf (
        &plan->log, "adaptive integration: error below %g of the brightest pixel, on the CPU%s\n",
        p->tolerance,
        p->backend != NB_BACKEND_CPU ? " (the GPU integrates by oversampling only)" : "");
  else if (plan->det.oversample == 1 && p->precision != NB_PRECISION_EXACT)
    nb_log_printf (&plan->log, "adaptive integration: one sample per pixel (-oversample 1) is "
                               "already the least it could take: exact integration\n");
  else
    nb_log_printf (&plan->log,
                   "adaptive integration not available for -precision exact, -curved_det, "
                   "-oversample_thick/polar/omega or tricubic interpolation: %d-fold "
                   "oversampling\n",
                   plan->det.oversample);
}

static nb_status
plan_build (nb_plan *plan, unsigned *rebuild_io, nb_error *err)
{
  unsigned rebuild = *rebuild_io;
  const nb_params *p = &plan->params;
  nb_detector *d = &plan->det;
  nb_crystal *x = &plan->xtal;
  sample_size sample = { p->sample_y, p->sample_z };
  nb_status st;

  /* -backend cuda: the GPU's context starts now, on its own thread */
  nb_backend_choose (plan, 0);
  if ((rebuild & STAGE (NB_STAGE_DETECTOR)) && (st = detector_stage (plan, err)) != NB_OK)
    return st;

  if ((st = beam_fluence (plan, &sample.sample_y, &sample.sample_z, err)) != NB_OK)
    return st;

  nb_log_printf (
      &plan->log,
      "nanoBragg nanocrystal diffraction simulator - James Holton and Ken Frankel 5-17-17\n");
  /* a model's cell is the crystal's when neither -cell nor -mat is given: it
   * is read before the crystal's stage, which a new model rebuilds */
  if (rebuild & STAGE (NB_STAGE_STRUCTURE_FACTORS))
    {
      if ((st = nb_atomic_model_read (plan, err)) != NB_OK)
        return st;
      if (p->cell[0] == 0.0 && p->mat_file == NULL)
        rebuild |= STAGE (NB_STAGE_CRYSTAL) | STAGE (NB_STAGE_ORIENTATION);
    }
  if (p->cell[0] == 0.0 && p->mat_file == NULL && plan->model_cell[0] == 0.0)
    return nb_error_set (err, NB_ERR_USAGE,
                         "no unit cell: give -cell a b c alpha beta gamma, -mat FILE or a model "
                         "(-model FILE)");
  if (p->hkl_file == NULL && p->dump_file == NULL && p->default_F == 0.0)
    return nb_error_set (err, NB_ERR_USAGE,
                         "no structure factors: give -hkl FILE, -dump FILE (an Fdump cache) or "
                         "-default_F F");

  if ((rebuild &
       (STAGE (NB_STAGE_DETECTOR) | STAGE (NB_STAGE_SOURCES) | STAGE (NB_STAGE_ORIENTATION))) &&
      (st = nb_panels_each (plan, sampling_setup, NULL, err)) != NB_OK)
    return st;
  if ((rebuild & STAGE (NB_STAGE_DETECTOR)) &&
      (st = nb_panels_each (plan, detector_orient, NULL, err)) != NB_OK)
    return st;
  if ((st = check_memory (plan, 0.0, err)) != NB_OK)
    return st;

  choose_interpolation (plan);
  if ((rebuild & STAGE (NB_STAGE_CRYSTAL)) &&
      ((st = nb_crystal_setup (plan, err)) != NB_OK ||
       (st = nb_panels_each (plan, crystal_oversampling, &sample, err)) != NB_OK))
    return st;

  /* the work of an image is known: -backend auto decides, and a GPU context
   * starts on its own thread while the structure factors are read */
  nb_backend_choose (plan, 1);

  /* a model's structure factors are also computed again when the detector
   * now reaches beyond them */
  if (nb_atomic_model_stale (plan))
    rebuild |= STAGE (NB_STAGE_STRUCTURE_FACTORS);
  if ((rebuild & STAGE (NB_STAGE_STRUCTURE_FACTORS)) &&
      (st = load_structure_factors (plan, err)) != NB_OK)
    return st;
  if (plan->hkl.hkls == 0)
    plan->interpolate = 0;
  plan->default_F = p->default_F;
  if ((rebuild & STAGE (NB_STAGE_STRUCTURE_FACTORS)) && (st = read_stol (plan, err)) != NB_OK)
    return st;

  for (int t = 0; t < d->thicksteps; t++)
    nb_log_printf (&plan->log, "thick%d = %g um\n", t, d->thickstep * t * 1e6);
  for (int j = 0; j < x->phisteps; j++)
    nb_log_printf (&plan->log, "phi%d = %g\n", j, (x->phi0 + x->phistep * j) * NB_RTD);

  if ((rebuild & STAGE (NB_STAGE_SOURCES)) && (st = nb_sources_setup (plan, err)) != NB_OK)
    return st;
  if (rebuild & STAGE (NB_STAGE_ORIENTATION))
    {
      if ((st = nb_mosaic_setup (plan, err)) != NB_OK)
        return st;
      if ((st = nb_orient_setup (plan, err)) != NB_OK)
        return st;
    }
  if ((rebuild & STAGE (NB_STAGE_BUFFERS)) &&
      (st = plan->n_panels > 0 ? nb_panels_load_masks (plan, err) : load_mask (plan, err)) != NB_OK)
    return st;
  if ((st = nb_panels_each (plan, count_steps, NULL, err)) != NB_OK)
    return st;

  log_summary (plan);
  nb_panels_log (plan);
  if (p->physical)
    plan->I_bg =
        2.57 * 2.57 * p->water_size * p->water_size * p->water_size * 1e6 * 6.02214179e23 / 18.0;
  else
    plan->I_bg = 2.57 * 2.57 * 7.94079248018965e-30 * plan->fluence * p->water_size *
                 p->water_size * p->water_size * 1e6 * 6.02214179e23 / 18.0;

  if (!nb_reserve (&plan->row_omega, &plan->cap_row_omega,
                   (size_t) nb_panels_max_spixels (plan) * sizeof (double)))
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  if ((st = nb_backends_prepare (plan, rebuild, err)) != NB_OK)
    return st;

  fill_info (plan);
  log_integration (plan);
  *rebuild_io = rebuild;
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
  release_structure_factors (plan);
  nb_atomic_model_free (plan);
  free (plan->mat_path);
  free (plan->source_path);
  nb_table_clear (&plan->source_table);
  nb_geometry_unref (plan->geometry);
  plan->geometry = NULL;
  nb_backends_release (plan);
  free (plan->mask);
  free (plan->row_omega);
  nb_panels_release (plan);
}

nb_status
nb_plan_create (const nb_params *params, nb_plan **out, nb_error *err)
{
  nb_plan *plan;
  nb_status st;

  *out = NULL;
  nb_error_clear (err);
  if ((st = nb_params_validate (params, err)) != NB_OK)
    return st;
  plan = calloc (1, sizeof *plan);
  if (plan == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  for (int i = 0; i < NB_N_STAGES; i++)
    plan->stats.rebuilds[i] = 1;
  if ((st = nb_params_copy (&plan->params, params, err)) != NB_OK)
    {
      free (plan);
      return st;
    }
  nb_ran1_init (&plan->ran);
  {
    unsigned all = ALL_STAGES;

    st = plan_build (plan, &all, err);
  }
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
nb_plan_check_budget (const nb_params *params, double caller_bytes_per_pixel, nb_error *err)
{
  nb_plan *plan;
  nb_status st;
  double sample_y = params->sample_y, sample_z = params->sample_z;

  nb_error_clear (err);
  if ((st = nb_params_validate (params, err)) != NB_OK)
    return st;
  plan = calloc (1, sizeof *plan);
  if (plan == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  /* plan_build()'s steps up to its memory check, none of which allocates per
   * pixel */
  if ((st = nb_params_copy (&plan->params, params, err)) == NB_OK &&
      (st = detector_stage (plan, err)) == NB_OK &&
      (st = beam_fluence (plan, &sample_y, &sample_z, err)) == NB_OK &&
      (st = nb_panels_each (plan, sampling_setup, NULL, err)) == NB_OK)
    st = check_memory (plan, caller_bytes_per_pixel, err);
  plan_release (plan);
  free (plan);
  return st;
}

static int
same_string (const char *x, const char *y)
{
  return (x == NULL && y == NULL) || (x != NULL && y != NULL && strcmp (x, y) == 0);
}

/* Which stages a change from @a to @b invalidates (see nb_stage): those the
 * parameter table names for every changed field, and the stages that depend
 * on them. */
static unsigned
stages_to_rebuild (const nb_params *a, const nb_params *b)
{
  unsigned r = nb_param_changed (a, b);

  if (r & STAGE (NB_STAGE_DETECTOR))
    r |= STAGE (NB_STAGE_CRYSTAL) | STAGE (NB_STAGE_SOURCES) | STAGE (NB_STAGE_ORIENTATION);
  if (r & STAGE (NB_STAGE_CRYSTAL))
    r |= STAGE (NB_STAGE_ORIENTATION);
  return r;
}

/* Copies the plain parameters of @src into @dst keeping @dst's strings where
 * they are equal, so an update of numbers allocates nothing. */
static nb_status
params_assign (nb_params *dst, const nb_params *src, nb_error *err)
{
  nb_params tmp = *src;
  char **ds[NB_PARAMS_N_STRINGS], **ts[NB_PARAMS_N_STRINGS];

  nb_params_strings (dst, ds);
  nb_params_strings (&tmp, ts);
  for (size_t i = 0; i < NB_PARAMS_N_STRINGS; i++)
    if (same_string (*ds[i], *ts[i]))
      *ts[i] = *ds[i];
    else if (*ts[i] != NULL && (*ts[i] = strdup (*ts[i])) == NULL)
      {
        for (size_t j = 0; j < i; j++)
          if (*ts[j] != *ds[j])
            free (*ts[j]);
        return nb_error_set (err, NB_ERR_NOMEM, "out of memory copying parameters");
      }
  for (size_t i = 0; i < NB_PARAMS_N_STRINGS; i++)
    if (*ds[i] != *ts[i])
      free (*ds[i]);
  *dst = tmp;
  return NB_OK;
}

nb_status
nb_plan_update (nb_plan *plan, const nb_params *params, nb_error *err)
{
  unsigned rebuild = stages_to_rebuild (&plan->params, params);
  int old_counts[4] = { plan->det.fpixels, plan->det.spixels, plan->src.count, plan->orient.n };
  char **cur[NB_PARAMS_N_STRINGS], **next[NB_PARAMS_N_STRINGS];
  int deep = 0;
  nb_params saved = plan->params;
  nb_status st;

  /* an update of numbers alone shares the strings, and so allocates nothing */
  nb_params_strings (&plan->params, cur);
  nb_params_strings ((nb_params *) params, next);
  for (size_t i = 0; i < NB_PARAMS_N_STRINGS; i++)
    deep |= !same_string (*cur[i], *next[i]);

  nb_error_clear (err);
  if ((st = nb_params_validate (params, err)) != NB_OK)
    return st; /* the plan is untouched */
  if (deep && (st = nb_params_copy (&saved, &plan->params, err)) != NB_OK)
    return st;
  if ((st = params_assign (&plan->params, params, err)) != NB_OK)
    {
      if (deep)
        nb_params_clear (&saved);
      return st;
    }
  plan->log.quiet = 1;
  nb_ran1_init (&plan->ran);
  nb_geometry_unref (plan->geometry);
  plan->geometry = NULL;
  st = plan_build (plan, &rebuild, err);
  plan->log.quiet = 0;
  if (st != NB_OK)
    {
      /* put the old plan back together: a full rebuild from its parameters */
      nb_plan *old;
      nb_error ignored;

      if (nb_plan_create (&saved, &old, &ignored) == NB_OK)
        {
          nb_plan_stats stats = plan->stats;
          plan_release (plan);
          *plan = *old;
          plan->stats = stats;
          free (old);
        }
      if (deep)
        nb_params_clear (&saved);
      return st;
    }
  if (deep)
    nb_params_clear (&saved);
  if (plan->det.fpixels != old_counts[0] || plan->det.spixels != old_counts[1] ||
      plan->src.count != old_counts[2] || plan->orient.n != old_counts[3])
    rebuild |= STAGE (NB_STAGE_BUFFERS);
  for (int i = 0; i < NB_N_STAGES; i++)
    if (rebuild & STAGE (i))
      plan->stats.rebuilds[i]++;
    else
      plan->stats.hits[i]++;
  return NB_OK;
}

const char *
nb_stage_name (nb_stage stage)
{
  static const char *names[] = { "detector", "crystal",     "structure factors",
                                 "sources",  "orientation", "buffers" };
  return stage < NB_N_STAGES ? names[stage] : "unknown";
}

void
nb_plan_get_stats (const nb_plan *plan, nb_plan_stats *stats)
{
  *stats = plan->stats;
}

void
nb_plan_destroy (nb_plan *plan)
{
  if (plan == NULL)
    return;
  plan_release (plan);
  free (plan);
}

static nb_status
execute_on_backend (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err)
{
  nb_exec_options clamped;
  const int longest = plan->det.fpixels > plan->det.spixels ? plan->det.fpixels : plan->det.spixels;

  nb_error_clear (err);
  /* Any preview stride from twice the detector's longest side on renders the
   * same one clipped pixel; clamped there, the block arithmetic cannot overflow. */
  if (opts != NULL && opts->preview_stride > 2 * longest)
    {
      clamped = *opts;
      clamped.preview_stride = 2 * longest;
      opts = &clamped;
    }
  return nb_backends_execute (plan, image, opts, err);
}

/* Progress of one panel as progress of the whole image. */
typedef struct
{
  const nb_exec_options *outer;
  int rows_before, rows_total, panel_rows;
} panel_progress;

static void
report_panel_progress (void *user, int rows_done, int rows_total)
{
  const panel_progress *pp = user;
  int done = rows_total > 0 ? (int) ((double) rows_done / rows_total * pp->panel_rows) : 0;

  pp->outer->progress (pp->outer->user, pp->rows_before + done, pp->rows_total);
}

/* Every panel in turn, each into its block of @image, on the backend that
 * takes the plan (the GPU keeps every panel's geometry, backend-cuda.c). */
static nb_status
execute_panels (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err)
{
  nb_exec_options one = { 0 };
  panel_progress pp = { opts, 0, 0, 0 };
  double omega_sum = 0.0;
  nb_status st = NB_OK;

  if (opts != NULL)
    one = *opts;
  one.stats = NULL; /* of the whole image, by nb_plan_execute */
  if (opts != NULL && opts->progress != NULL)
    {
      one.progress = report_panel_progress;
      one.user = &pp;
    }
  for (int i = 0; i < plan->n_panels; i++)
    pp.rows_total += plan->panels[i].det.spixels;
  for (int i = 0; i < plan->n_panels && st == NB_OK; i++)
    {
      const nb_plan_panel *pn = &plan->panels[i];

      pp.panel_rows = pn->det.spixels;
      if ((st = nb_backends_select_panel (plan, i, err)) == NB_OK)
        st = execute_on_backend (plan, image + pn->offset, &one, err);
      omega_sum += plan->omega_sum;
      pp.rows_before += pn->det.spixels;
    }
  if (st == NB_OK)
    st = nb_backends_select_panel (plan, -1, err);
  else
    nb_backends_select_panel (plan, -1, NULL);
  plan->omega_sum = omega_sum;
  return st;
}

/* ---- execute's timing and statistics (issue 16) ---- */

static double
monotonic_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

/* The sub-pixel positions the reference's method evaluates in the ROI. */
static double
exact_samples (const nb_plan *plan)
{
  const nb_detector *d = &plan->det;
  int f0 = d->roi_xmin < 0 ? 0 : d->roi_xmin, s0 = d->roi_ymin < 0 ? 0 : d->roi_ymin;
  int f1 = d->roi_xmax + 1 < d->fpixels ? d->roi_xmax + 1 : d->fpixels;
  int s1 = d->roi_ymax + 1 < d->spixels ? d->roi_ymax + 1 : d->spixels;

  if (f1 <= f0 || s1 <= s0)
    return 0.0;
  return (double) (f1 - f0) * (s1 - s0) * d->oversample * d->oversample * d->thicksteps;
}

nb_status
nb_plan_execute (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err)
{
  const int full = opts == NULL || opts->preview_stride <= 1;
  const int on_gpu = nb_backend_cuda_active (plan);
  nb_exec_stats *stats = opts != NULL ? opts->stats : NULL;
  double start = monotonic_ms ();
  nb_status st;

  if (stats != NULL)
    stats->valid = 0;
  st = plan->n_panels > 0 ? execute_panels (plan, image, opts, err)
                          : execute_on_backend (plan, image, opts, err);
  if (st == NB_OK && full)
    {
      plan->timing.execute_ms = monotonic_ms () - start;
      plan->timing.on_gpu = on_gpu && nb_backend_cuda_active (plan);
      plan->timing.kernel_ms = plan->timing.on_gpu ? nb_backend_cuda_kernel_ms (plan) : 0.0;
      plan->timing.adaptive = nb_backends_adaptive (plan);
      plan->timing.samples = plan->timing.adaptive ? plan->samples : exact_samples (plan);
    }
  /* what the backend did not compute where it rendered, the CPU does */
  if (st == NB_OK && stats != NULL && !stats->valid)
    {
      const int window = stats->window;

      stats->window = full && window;
      nb_exec_stats_compute (image, nb_plan_pixels (plan), stats);
      stats->window = window;
    }
  return st;
}

void
nb_plan_get_timing (const nb_plan *plan, nb_plan_timing *timing)
{
  *timing = plan->timing;
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
nb_plan_get_warnings (const nb_plan *plan)
{
  return plan->det.quirk_warning;
}

const char *
nb_plan_get_log (const nb_plan *plan)
{
  return plan->log.text ? plan->log.text : "";
}

const uint16_t *
nb_plan_get_mask (const nb_plan *plan)
{
  return plan->n_panels > 0 ? plan->panel_mask : plan->mask;
}

double
nb_plan_get_omega_sum (const nb_plan *plan)
{
  return plan->omega_sum;
}
