/* params.c: nb_params defaults and nanoBragg's command line.
 *
 * Source: nanoBragg.c main(), its declarations (defaults) and argument loop;
 * cli.md.  The reference compares every token against every flag by
 * substring; here each flag has one handler chosen by the longest matching
 * name (exact names, or prefixes for the flags the reference matches by
 * substring: -mosaic_dom..., -wave..., -osc..., ...).  The two places where the
 * reference's substring matching runs a second handler on purpose-looking
 * command lines (-misset_seed also setting misset angles, Q-29;
 * -twotheta_axis also setting two-theta, Q-30) are reproduced explicitly unless
 * -physical is given.
 */
#include "nanobragg.h"
#include "nb-argv.h"
#include "nb-io.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RTD (180.0 * M_1_PI)

static const char *default_floatfile = "floatimage.bin";
static const char *default_intfile = "intimage.img";
static const char *default_pgmfile = "image.pgm";
static const char *default_noisefile = "noiseimage.img";

static void
vec3_set (double v[3], double x, double y, double z)
{
  v[0] = x;
  v[1] = y;
  v[2] = z;
}

void
nb_params_init (nb_params *p)
{
  memset (p, 0, sizeof *p);

  p->cell[0] = 0.0;
  p->Na = p->Nb = p->Nc = 1.0;
  p->shape = NB_SHAPE_SQUARE;
  p->fudge = 1.0;
  p->mosaic_spread = -1.0;
  p->mosaic_domains = -1;
  p->mosaic_seed = -12345678;
  p->interpolate = 2;

  p->lambda0 = 1.0e-10;
  p->dispersion = 0.0;
  p->dispstep = -1.0;
  p->dispsteps = -1;
  p->hdivrange = p->vdivrange = -1.0;
  p->hdivstep = p->vdivstep = -1.0;
  p->hdivsteps = p->vdivsteps = -1;
  p->round_div = 1;
  p->fluence = 125932015286227086360700780544.0;
  p->flux = 0.0;
  p->exposure = 1.0;
  p->beamsize = 1e-4;
  p->polarization = 0.0;

  p->pixel_size = 0.1e-3;
  p->detsize_f = p->detsize_s = 102.4e-3;
  p->distance = 100.0e-3;
  p->close_distance = NAN;
  p->Xbeam = p->Ybeam = NAN;
  p->Xclose = p->Yclose = NAN;
  p->ORGX = p->ORGY = NAN;
  p->pivot = NB_PIVOT_BEAM;
  p->convention = NB_CONVENTION_MOSFLM;
  /* the reference's initial vectors, which CUSTOM keeps when not given */
  vec3_set (p->fdet, 0, 0, 1);
  vec3_set (p->sdet, 0, -1, 0);
  vec3_set (p->odet, 1, 0, 0);
  vec3_set (p->beam, 1, 0, 0);
  vec3_set (p->polar_vector, 0, 0, 1);
  vec3_set (p->spindle, 0, 0, 1);
  vec3_set (p->twotheta_axis, 0, 1, 0);
  p->detector_mu = -1.0;
  p->detector_thickstep = -1.0;
  p->detector_thicksteps = -1;
  p->roi[0] = p->roi[1] = p->roi[2] = p->roi[3] = -1;

  p->osc = -1.0;
  p->phistep = -1.0;
  p->phisteps = -1;
  p->oversample = -1;

  p->floatfile = strdup (default_floatfile);
  p->intfile = strdup (default_intfile);
  p->pgmfile = strdup (default_pgmfile);
  p->noisefile = strdup (default_noisefile);
  p->write_pgm = 1;
  p->calculate_noise = 1;
  p->adc = 40.0;
  p->seed = -(long) time (NULL);
  p->misset_seed = p->seed; /* captured before options are parsed */
  p->printout_fpixel = p->printout_spixel = -1;
  p->progress = 1;
  p->precision = NB_PRECISION_DOUBLE;
  p->backend = NB_BACKEND_AUTO;
}

#define OWNED_STRINGS(p)                                                                           \
  &(p)->mat_file, &(p)->hkl_file, &(p)->dump_file, &(p)->stol_file, &(p)->source_file,             \
      &(p)->img_file, &(p)->mask_file, &(p)->floatfile, &(p)->intfile, &(p)->pgmfile,              \
      &(p)->noisefile, &(p)->pngfile

void
nb_params_clear (nb_params *p)
{
  char **strings[] = { OWNED_STRINGS (p) };

  for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
    {
      free (*strings[i]);
      *strings[i] = NULL;
    }
}

nb_status
nb_params_copy (nb_params *dst, const nb_params *src, nb_error *err)
{
  *dst = *src;
  char **strings[] = { OWNED_STRINGS (dst) };

  for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
    if (*strings[i] != NULL)
      {
        *strings[i] = strdup (*strings[i]);
        if (*strings[i] == NULL)
          {
            for (size_t j = i + 1; j < sizeof strings / sizeof strings[0]; j++)
              *strings[j] = NULL;
            nb_params_clear (dst);
            return nb_error_set (err, NB_ERR_NOMEM, "out of memory copying parameters");
          }
      }
  return NB_OK;
}

/* ------------------------------------------------------------------------- */
/* Validation.  Every message names the parameter as its command-line flag and
 * gives the value in the flag's units, then what is allowed. */

#define MAX_CELLS       1e6     /* unit cells along one axis */
#define MAX_PIXELS      65536   /* pixels along one detector axis */
#define MAX_OVERSAMPLE  1000    /* sub-pixels along one pixel axis */
#define MAX_STEPS       100000  /* phi steps, wavelengths, divergence steps per axis */
#define MAX_DIV_GRID    1e7     /* divergence grid points (h x v) */
#define MAX_DOMAINS     1000000 /* mosaic domains */
#define MAX_LAYERS      1000    /* sensor layers */
#define MAX_SAMPLE      1.0     /* crystal size (m) */
#define MAX_CELL_LENGTH 1e6     /* Angstrom: 0.1 mm, far beyond any crystal's cell */
#define MAX_PIXEL_SIZE  1.0     /* m */

/* The number of steps nanoBragg's count/range/step rule gives before its
 * sanity pass (sources.c, physics.md §10.2), as a double so that a huge
 * range/step ratio is seen before any conversion to int. */
static double
grid_steps (int n, double range, double step)
{
  if (n > 0)
    return n;
  if (range < 0.0)
    return step <= 0.0 ? 1.0 : 2.0;
  if (step <= 0.0)
    return 2.0;
  return ceil (range / step);
}

/* NAN means "not given" for these. */
static int
finite_or_nan (double v)
{
  return isnan (v) || isfinite (v);
}

static int
vec_finite (const double v[3])
{
  return isfinite (v[0]) && isfinite (v[1]) && isfinite (v[2]);
}

static int
vec_zero (const double v[3])
{
  return v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0;
}

static nb_status
check_cell (const nb_params *p, nb_error *err)
{
  static const char *const names[6] = { "a", "b", "c", "alpha", "beta", "gamma" };
  double ang[3];

  if (p->cell[0] == 0.0)
    return NB_OK; /* no -cell */
  for (int k = 0; k < 6; k++)
    if (!isfinite (p->cell[k]))
      return nb_error_set (err, NB_ERR_INVALID, "-cell: %s = %g is not a finite number", names[k],
                           k < 3 ? p->cell[k] : p->cell[k] * RTD);
  if (p->cell[0] < 0.0 || p->cell[0] > MAX_CELL_LENGTH)
    return nb_error_set (err, NB_ERR_INVALID, "-cell: a = %g Angstrom (allowed: > 0, up to %g)",
                         p->cell[0], MAX_CELL_LENGTH);
  for (int k = 1; k < 3; k++)
    if (p->cell[k] < 0.0 || p->cell[k] > MAX_CELL_LENGTH)
      return nb_error_set (
          err, NB_ERR_INVALID,
          "-cell: %s = %g Angstrom (allowed: > 0 up to %g, or 0 for the same as a)", names[k],
          p->cell[k], MAX_CELL_LENGTH);
  for (int k = 0; k < 3; k++)
    {
      double deg = p->cell[3 + k] * RTD;

      if (deg < 0.0 || deg >= 180.0)
        return nb_error_set (err, NB_ERR_INVALID,
                             "-cell: %s = %g deg (allowed: 0 < %s < 180, or 0 for 90)",
                             names[3 + k], deg, names[3 + k]);
      ang[k] = deg == 0.0 ? 90.0 : deg;
    }
  /* The three angles close a cell only as the sides of a spherical triangle:
   * each smaller than the sum of the others, and all three below 360.  The
   * reference takes |volume^2| and quietly simulates an impossible cell. */
  if (ang[0] >= ang[1] + ang[2] - 1e-9 || ang[1] >= ang[0] + ang[2] - 1e-9 ||
      ang[2] >= ang[0] + ang[1] - 1e-9 || ang[0] + ang[1] + ang[2] >= 360.0 - 1e-9)
    return nb_error_set (err, NB_ERR_INVALID,
                         "-cell: angles %g %g %g deg make no unit cell (allowed: each angle "
                         "smaller than the sum of the other two, all three below 360)",
                         ang[0], ang[1], ang[2]);
  return NB_OK;
}

/* One count with nanoBragg's "-1 = not given" and, when @zero_ok, 0 too. */
static nb_status
check_count (const char *flag, long n, int zero_ok, long max, const char *what, nb_error *err)
{
  if (n == -1 || (zero_ok && n == 0) || (n >= 1 && n <= max))
    return NB_OK;
  return nb_error_set (err, NB_ERR_INVALID, "%s %ld: allowed %d to %ld %s", flag, n,
                       zero_ok ? 0 : 1, max, what);
}

/* A range, step and count of one sampled axis (phi, divergence, dispersion,
 * sensor layers): the "not given" sentinel -1 or a finite value >= 0 (step >
 * 0), and a bounded number of steps. */
static nb_status
check_grid (const char *range_flag,
            double range,
            double range_scale,
            const char *step_flag,
            double step,
            const char *unit,
            int n,
            double max_steps,
            nb_error *err)
{
  double steps;

  if (range != -1.0 && !(isfinite (range) && range >= 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "%s %g %s: allowed >= 0", range_flag,
                         range * range_scale, unit);
  if (step != -1.0 && !(isfinite (step) && step > 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "%s %g %s: allowed > 0", step_flag,
                         step * range_scale, unit);
  steps = grid_steps (n, range, step);
  if (!(steps <= max_steps))
    return nb_error_set (err, NB_ERR_INVALID,
                         "%s %g %s with %s %g %s gives %.0f steps (allowed: up to %.0f)",
                         range_flag, range * range_scale, unit, step_flag, step * range_scale, unit,
                         steps, max_steps);
  return NB_OK;
}

static nb_status
check_crystal (const nb_params *p, nb_error *err)
{
  /* -N sets all three */
  const int one_N = p->Na == p->Nb && p->Na == p->Nc;
  const char *N_flags[3] = { one_N ? "-N" : "-Na", one_N ? "-N" : "-Nb", one_N ? "-N" : "-Nc" };
  const double N[3] = { p->Na, p->Nb, p->Nc };
  const int one_size = p->sample_x == p->sample_y && p->sample_x == p->sample_z;
  const char *size_flags[3] = { one_size ? "-xtalsize" : "-sample_x",
                                one_size ? "-xtalsize" : "-sample_y",
                                one_size ? "-xtalsize" : "-sample_z" };
  const double size[3] = { p->sample_x, p->sample_y, p->sample_z };
  nb_status st;

  if ((st = check_cell (p, err)) != NB_OK)
    return st;
  if (!vec_finite (p->misset))
    return nb_error_set (err, NB_ERR_INVALID, "-misset %g %g %g deg: allowed finite angles",
                         p->misset[0] * RTD, p->misset[1] * RTD, p->misset[2] * RTD);
  for (int k = 0; k < 3; k++)
    {
      /* 0 and 1 both mean one cell, as in the reference (-N 0 is how a
       * background alone is simulated) */
      if (!(N[k] >= 0.0 && N[k] <= MAX_CELLS) || N[k] != floor (N[k]))
        return nb_error_set (err, NB_ERR_INVALID,
                             "%s %.10g: allowed a whole number of unit cells, 0 to %.0f",
                             N_flags[k], N[k], MAX_CELLS);
      if (!(size[k] >= 0.0 && size[k] <= MAX_SAMPLE))
        return nb_error_set (err, NB_ERR_INVALID, "%s %g mm: allowed 0 (use -N) to %g mm",
                             size_flags[k], size[k] * 1000.0, MAX_SAMPLE * 1000.0);
    }
  if ((int) p->shape < NB_SHAPE_SQUARE || p->shape > NB_SHAPE_TOPHAT)
    return nb_error_set (err, NB_ERR_INVALID, "crystal shape %d: allowed 0 to 3", (int) p->shape);
  if (!(isfinite (p->fudge) && p->fudge > 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "-fudge %g: allowed > 0", p->fudge);
  if (p->mosaic_spread != -1.0 && !(p->mosaic_spread >= 0.0 && p->mosaic_spread <= M_PI))
    return nb_error_set (err, NB_ERR_INVALID, "-mosaic %g deg: allowed 0 to 180 deg",
                         p->mosaic_spread * RTD);
  if ((st = check_count ("-mosaic_domains", p->mosaic_domains, 0, MAX_DOMAINS, "domains", err)) !=
      NB_OK)
    return st;
  if (p->interpolate < 0 || p->interpolate > 2)
    return nb_error_set (err, NB_ERR_INVALID, "interpolation mode %d: allowed 0, 1 or 2 (auto)",
                         p->interpolate);
  if (!isfinite (p->default_F))
    return nb_error_set (err, NB_ERR_INVALID, "-default_F %g: allowed a finite number",
                         p->default_F);
  if ((int) p->stol_kind < NB_STOL_NONE || p->stol_kind > NB_STOL_Q)
    return nb_error_set (err, NB_ERR_INVALID, "stol table kind %d: allowed 0 to 3",
                         (int) p->stol_kind);
  return NB_OK;
}

static nb_status
check_beam (const nb_params *p, nb_error *err)
{
  nb_status st;
  double h, v;

  if (!(isfinite (p->lambda0) && p->lambda0 > 0.0))
    return nb_error_set (err, NB_ERR_INVALID,
                         "-lambda %g Angstrom: allowed > 0 (or -energy > 0 eV)", p->lambda0 * 1e10);
  /* the spectrum spans lambda0 (1 +- dispersion/2): every wavelength > 0 */
  if (!(p->dispersion >= 0.0 && p->dispersion < 2.0))
    return nb_error_set (err, NB_ERR_INVALID, "-dispersion %g%%: allowed 0 to below 200%%",
                         p->dispersion * 100.0);
  if ((st = check_count ("-dispsteps", p->dispsteps, 0, MAX_STEPS, "wavelengths", err)) != NB_OK ||
      (st = check_grid ("-dispersion", p->dispersion, 100.0, "dispstep", p->dispstep, "%",
                        p->dispsteps, MAX_STEPS, err)) != NB_OK)
    return st;
  if ((st = check_count ("-hdivsteps", p->hdivsteps, 0, MAX_STEPS, "steps", err)) != NB_OK ||
      (st = check_count ("-vdivsteps", p->vdivsteps, 0, MAX_STEPS, "steps", err)) != NB_OK ||
      (st = check_grid ("-hdivrange", p->hdivrange, 1000.0, "-hdivstep", p->hdivstep, "mrad",
                        p->hdivsteps, MAX_STEPS, err)) != NB_OK ||
      (st = check_grid ("-vdivrange", p->vdivrange, 1000.0, "-vdivstep", p->vdivstep, "mrad",
                        p->vdivsteps, MAX_STEPS, err)) != NB_OK)
    return st;
  if (p->hdivrange > M_PI || p->vdivrange > M_PI)
    return nb_error_set (err, NB_ERR_INVALID, "%s %g mrad: allowed 0 to %g mrad (pi)",
                         p->hdivrange > M_PI ? "-hdivrange" : "-vdivrange",
                         (p->hdivrange > M_PI ? p->hdivrange : p->vdivrange) * 1000.0,
                         M_PI * 1000.0);
  h = grid_steps (p->hdivsteps, p->hdivrange, p->hdivstep);
  v = grid_steps (p->vdivsteps, p->vdivrange, p->vdivstep);
  if (h * v > MAX_DIV_GRID)
    return nb_error_set (err, NB_ERR_INVALID,
                         "divergence grid of %.0f x %.0f points (-hdivsteps, -vdivsteps or "
                         "range/step): allowed up to %.0f points",
                         h, v, MAX_DIV_GRID);
  if (!(isfinite (p->fluence) && p->fluence >= 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "-fluence %g photons/m^2: allowed >= 0", p->fluence);
  if (!(isfinite (p->flux) && p->flux >= 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "-flux %g photons/s: allowed >= 0", p->flux);
  if (!(isfinite (p->exposure) && p->exposure >= 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "-exposure %g s: allowed >= 0", p->exposure);
  if (!(isfinite (p->beamsize) && p->beamsize >= 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "-beamsize %g mm: allowed >= 0", p->beamsize * 1000);
  /* the reference then silently keeps -fluence, or divides by zero */
  if (p->flux != 0.0 && !(p->exposure > 0.0 && p->beamsize > 0.0))
    return nb_error_set (err, NB_ERR_INVALID,
                         "-flux %g photons/s needs -exposure > 0 s and -beamsize > 0 mm (got %g s, "
                         "%g mm)",
                         p->flux, p->exposure, p->beamsize * 1000.0);
  if (!(p->polarization >= -1.0 && p->polarization <= 1.0))
    return nb_error_set (err, NB_ERR_INVALID, "-polar %g: allowed a Kahn factor from -1 to 1",
                         p->polarization);
  if (!(isfinite (p->water_size) && p->water_size >= 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "-water %g um: allowed >= 0", p->water_size * 1e6);
  return NB_OK;
}

/* The detector's pixel counts as nb_detector_setup() derives them. */
static double
pixel_count (int n, double detsize, double pixel_size)
{
  return n ? n : ceil (detsize / pixel_size - 0.5);
}

static nb_status
check_detector (const nb_params *p, nb_error *err)
{
  static const char *const vec_flags[] = { "-fdet_vector",   "-sdet_vector",  "-odet_vector",
                                           "-beam_vector",   "-polar_vector", "-spindle_axis",
                                           "-twotheta_axis", "-pix0_vector" };
  const double *vecs[] = { p->fdet,         p->sdet,    p->odet,          p->beam,
                           p->polar_vector, p->spindle, p->twotheta_axis, p->pix0 };
  const char *beam_flags[] = { "-Xbeam", "-Ybeam", "-Xclose", "-Yclose", "-ORGX", "-ORGY" };
  const double beam_values[] = { p->Xbeam * 1000,  p->Ybeam * 1000, p->Xclose * 1000,
                                 p->Yclose * 1000, p->ORGX,         p->ORGY };
  double nf, ns;
  nb_status st;

  if (!(p->pixel_size > 0.0 && p->pixel_size <= MAX_PIXEL_SIZE))
    return nb_error_set (err, NB_ERR_INVALID, "-pixel %g mm: allowed > 0, up to %g mm",
                         p->pixel_size * 1000, MAX_PIXEL_SIZE * 1000);
  if (p->fpixels < 0 || p->fpixels > MAX_PIXELS)
    return nb_error_set (err, NB_ERR_INVALID, "-detpixels_f %d: allowed 1 to %d pixels", p->fpixels,
                         MAX_PIXELS);
  if (p->spixels < 0 || p->spixels > MAX_PIXELS)
    return nb_error_set (err, NB_ERR_INVALID, "-detpixels_s %d: allowed 1 to %d pixels", p->spixels,
                         MAX_PIXELS);
  if (p->fpixels == 0 && !(isfinite (p->detsize_f) && p->detsize_f > 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "-detsize_f %g mm: allowed > 0", p->detsize_f * 1000);
  if (p->spixels == 0 && !(isfinite (p->detsize_s) && p->detsize_s > 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "-detsize_s %g mm: allowed > 0", p->detsize_s * 1000);
  nf = pixel_count (p->fpixels, p->detsize_f, p->pixel_size);
  ns = pixel_count (p->spixels, p->detsize_s, p->pixel_size);
  if (!(nf >= 1 && nf <= MAX_PIXELS && ns >= 1 && ns <= MAX_PIXELS))
    return nb_error_set (err, NB_ERR_INVALID,
                         "-detsize %g x %g mm with -pixel %g mm gives %.0f x %.0f pixels (allowed: "
                         "1 to %d per axis)",
                         p->detsize_f * 1000, p->detsize_s * 1000, p->pixel_size * 1000, nf, ns,
                         MAX_PIXELS);
  if (!isfinite (p->distance) || (!(p->distance > 0.0) && isnan (p->close_distance)))
    return nb_error_set (err, NB_ERR_INVALID, "-distance %g mm: allowed > 0", p->distance * 1000);
  if (!isnan (p->close_distance) && !(isfinite (p->close_distance) && p->close_distance > 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "-close_distance %g mm: allowed > 0",
                         p->close_distance * 1000);
  for (size_t k = 0; k < sizeof beam_values / sizeof beam_values[0]; k++)
    if (!finite_or_nan (beam_values[k]))
      return nb_error_set (err, NB_ERR_INVALID, "%s %g: allowed a finite number", beam_flags[k],
                           beam_values[k]);
  if ((int) p->pivot < NB_PIVOT_SAMPLE || p->pivot > NB_PIVOT_BEAM)
    return nb_error_set (err, NB_ERR_INVALID, "-pivot %d: allowed sample (0) or beam (1)",
                         (int) p->pivot);
  if ((int) p->convention < NB_CONVENTION_CUSTOM || p->convention > NB_CONVENTION_DENZO)
    return nb_error_set (err, NB_ERR_INVALID, "convention %d: allowed 0 to 5", (int) p->convention);
  for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++)
    if (!vec_finite (vecs[k]))
      return nb_error_set (err, NB_ERR_INVALID, "%s %g %g %g: allowed finite components",
                           vec_flags[k], vecs[k][0], vecs[k][1], vecs[k][2]);
  if (p->convention == NB_CONVENTION_CUSTOM)
    {
      /* the vectors a named convention would replace */
      const int must_have_direction[] = { 0, 1, 3, 4, 5 };
      double cross[3], lf, ls;

      for (size_t i = 0; i < sizeof must_have_direction / sizeof must_have_direction[0]; i++)
        if (vec_zero (vecs[must_have_direction[i]]))
          return nb_error_set (err, NB_ERR_INVALID, "%s 0 0 0: allowed a non-zero direction",
                               vec_flags[must_have_direction[i]]);
      cross[0] = p->fdet[1] * p->sdet[2] - p->fdet[2] * p->sdet[1];
      cross[1] = p->fdet[2] * p->sdet[0] - p->fdet[0] * p->sdet[2];
      cross[2] = p->fdet[0] * p->sdet[1] - p->fdet[1] * p->sdet[0];
      lf = sqrt (p->fdet[0] * p->fdet[0] + p->fdet[1] * p->fdet[1] + p->fdet[2] * p->fdet[2]);
      ls = sqrt (p->sdet[0] * p->sdet[0] + p->sdet[1] * p->sdet[1] + p->sdet[2] * p->sdet[2]);
      if (sqrt (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]) <= 1e-9 * lf * ls)
        return nb_error_set (err, NB_ERR_INVALID,
                             "-fdet_vector %g %g %g and -sdet_vector %g %g %g are parallel: the "
                             "detector has no plane",
                             p->fdet[0], p->fdet[1], p->fdet[2], p->sdet[0], p->sdet[1],
                             p->sdet[2]);
      if (p->twotheta != 0.0 && vec_zero (p->twotheta_axis))
        return nb_error_set (err, NB_ERR_INVALID,
                             "-twotheta_axis 0 0 0 with -twotheta %g deg: allowed a non-zero axis",
                             p->twotheta * RTD);
    }
  if (!(isfinite (p->rotx) && isfinite (p->roty) && isfinite (p->rotz) && isfinite (p->twotheta)))
    return nb_error_set (err, NB_ERR_INVALID,
                         "-detector_rotx/y/z %g %g %g deg, -twotheta %g deg: allowed finite angles",
                         p->rotx * RTD, p->roty * RTD, p->rotz * RTD, p->twotheta * RTD);
  if (p->detector_mu != -1.0 && !(isfinite (p->detector_mu) && p->detector_mu >= 0.0))
    return nb_error_set (err, NB_ERR_INVALID,
                         "-detector_abs %g um: allowed an attenuation depth > 0, or 0/inf for none",
                         1e6 / p->detector_mu);
  if (!(isfinite (p->detector_thick) && p->detector_thick >= 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "-detector_thick %g um: allowed >= 0",
                         p->detector_thick * 1e6);
  if ((st = check_count ("-detector_thicksteps", p->detector_thicksteps, 0, MAX_LAYERS, "layers",
                         err)) != NB_OK ||
      (st = check_grid ("-detector_thick", p->detector_thick, 1e6, "thickstep",
                        p->detector_thickstep, "um", p->detector_thicksteps, MAX_LAYERS, err)) !=
          NB_OK)
    return st;

  /* -roi xmin xmax ymin ymax, inclusive; -1 = that edge of the detector */
  for (int k = 0; k < 4; k++)
    if (p->roi[k] < -1)
      return nb_error_set (err, NB_ERR_INVALID,
                           "-roi %d %d %d %d: allowed pixel indices >= 0 (or -1 for the edge)",
                           p->roi[0], p->roi[1], p->roi[2], p->roi[3]);
  {
    double xmin = p->roi[0] < 0 ? 0 : p->roi[0], xmax = p->roi[1] < 0 ? nf : p->roi[1];
    double ymin = p->roi[2] < 0 ? 0 : p->roi[2], ymax = p->roi[3] < 0 ? ns : p->roi[3];

    if (xmin > xmax || ymin > ymax || xmin >= nf || ymin >= ns)
      return nb_error_set (err, NB_ERR_INVALID,
                           "-roi %d %d %d %d: no pixel of the %.0f x %.0f detector is inside "
                           "(allowed: xmin <= xmax, ymin <= ymax, within the detector)",
                           p->roi[0], p->roi[1], p->roi[2], p->roi[3], nf, ns);
  }
  return NB_OK;
}

static nb_status
check_sampling (const nb_params *p, nb_error *err)
{
  nb_status st;

  if (!isfinite (p->phi0))
    return nb_error_set (err, NB_ERR_INVALID, "-phi %g deg: allowed a finite angle", p->phi0 * RTD);
  if ((st = check_count ("-phisteps", p->phisteps, 1, MAX_STEPS, "phi steps", err)) != NB_OK ||
      (st = check_grid ("-osc", p->osc, RTD, "-phistep", p->phistep, "deg", p->phisteps, MAX_STEPS,
                        err)) != NB_OK)
    return st;
  if (p->oversample < -1 || p->oversample > MAX_OVERSAMPLE)
    return nb_error_set (err, NB_ERR_INVALID,
                         "-oversample %d: allowed 1 to %d sub-pixels per axis (0 = automatic)",
                         p->oversample, MAX_OVERSAMPLE);
  if (!(isfinite (p->dmin) && p->dmin >= 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "-dmin %g Angstrom: allowed >= 0 (0 = no cut-off)",
                         p->dmin * 1e10);
  return NB_OK;
}

static nb_status
check_output (const nb_params *p, nb_error *err)
{
  static const char *const flags[] = { "-mat",        "-hkl",     "-dump",      "-stol",
                                       "-sourcefile", "-img",     "-mask",      "-floatfile",
                                       "-intfile",    "-pgmfile", "-noisefile", "-pngfile" };
  const char *const names[] = { p->mat_file,    p->hkl_file, p->dump_file, p->stol_file,
                                p->source_file, p->img_file, p->mask_file, p->floatfile,
                                p->intfile,     p->pgmfile,  p->noisefile, p->pngfile };

  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (names[k] != NULL && names[k][0] == '\0')
      return nb_error_set (err, NB_ERR_INVALID, "%s '': allowed a file name, not an empty one",
                           flags[k]);
  if (!(isfinite (p->intfile_scale) && p->intfile_scale >= 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "-scale %g: allowed > 0 (or 0 for automatic)",
                         p->intfile_scale);
  if (!(isfinite (p->pgm_scale) && p->pgm_scale >= 0.0))
    return nb_error_set (err, NB_ERR_INVALID, "-pgmscale %g: allowed > 0 (or 0 for automatic)",
                         p->pgm_scale);
  if (!isfinite (p->adc))
    return nb_error_set (err, NB_ERR_INVALID, "-adc %g: allowed a finite number of counts", p->adc);
  if (p->printout_fpixel < -1 || p->printout_spixel < -1)
    return nb_error_set (err, NB_ERR_INVALID, "-printout_pixel %d %d: allowed pixel indices >= 0",
                         p->printout_fpixel, p->printout_spixel);
  if ((int) p->backend < NB_BACKEND_CPU || p->backend > NB_BACKEND_CUDA)
    return nb_error_set (err, NB_ERR_INVALID, "-backend %d: allowed cpu, auto or cuda",
                         (int) p->backend);
  if ((int) p->precision < NB_PRECISION_DOUBLE || p->precision > NB_PRECISION_EXACT)
    return nb_error_set (err, NB_ERR_INVALID, "-precision %d: allowed double, single or exact",
                         (int) p->precision);
  if (!(isfinite (p->memory_budget) && p->memory_budget >= 0.0))
    return nb_error_set (err, NB_ERR_INVALID,
                         "-memory_budget %g MB: allowed > 0 (or 0 for half of physical memory)",
                         p->memory_budget / 1e6);
  return NB_OK;
}

nb_status
nb_params_validate (const nb_params *p, nb_error *err)
{
  nb_status st;

  if (p == NULL)
    return nb_error_set (err, NB_ERR_INVALID, "no parameters");
  if ((st = check_crystal (p, err)) != NB_OK || (st = check_beam (p, err)) != NB_OK ||
      (st = check_detector (p, err)) != NB_OK || (st = check_sampling (p, err)) != NB_OK ||
      (st = check_output (p, err)) != NB_OK)
    return st;
  return NB_OK;
}

/* ------------------------------------------------------------------------- */

typedef enum
{
  F_EXACT,
  F_PREFIX, /* the reference matches this name as a substring: longer spellings work */
} match_kind;

typedef enum
{
  O_NA,
  O_NB,
  O_NC,
  O_N,
  O_CELL,
  O_MISSET,
  O_SAMPLESIZE,
  O_SAMPLE_X,
  O_SAMPLE_Y,
  O_SAMPLE_Z,
  O_IGNORED_1,
  O_XBEAM,
  O_YBEAM,
  O_XCLOSE,
  O_YCLOSE,
  O_ORGX,
  O_ORGY,
  O_PIVOT,
  O_MOSFLM,
  O_XDS,
  O_ADXV,
  O_DENZO,
  O_DIALS,
  O_FDET,
  O_SDET,
  O_ODET,
  O_BEAMVEC,
  O_POLARVEC,
  O_SPINDLE,
  O_TTAXIS,
  O_PIX0,
  O_DISTANCE,
  O_CLOSE_DISTANCE,
  O_DET_ABS,
  O_DET_THICK,
  O_DET_THICKSTEPS,
  O_TWOTHETA,
  O_ROTX,
  O_ROTY,
  O_ROTZ,
  O_DETSIZE,
  O_DETSIZE_F,
  O_DETSIZE_S,
  O_DETPIXELS,
  O_DETPIXELS_F,
  O_DETPIXELS_S,
  O_CURVED,
  O_PIXEL,
  O_POINT_PIXEL,
  O_POLAR,
  O_NOPOLAR,
  O_OS_THICK,
  O_OS_POLAR,
  O_OS_OMEGA,
  O_OVERSAMPLE,
  O_ROI,
  O_LAMBDA,
  O_ENERGY,
  O_FLUENCE,
  O_FLUX,
  O_EXPOSURE,
  O_BEAMSIZE,
  O_MOSAIC,
  O_MOSAIC_DOM,
  O_DISPERSION,
  O_DISPSTEPS,
  O_DIVERGENCE,
  O_HDIVRANGE,
  O_VDIVRANGE,
  O_HDIVSTEP,
  O_HDIVSTEPS,
  O_VDIVSTEP,
  O_VDIVSTEPS,
  O_DIVSTEPS,
  O_ROUND_DIV,
  O_SQUARE_DIV,
  O_ADC,
  O_PHI,
  O_OSC,
  O_PHISTEP,
  O_PHISTEPS,
  O_DMIN,
  O_MAT,
  O_HKL,
  O_DEFAULT_F,
  O_DUMP,
  O_IMG,
  O_MASK,
  O_STOLOUT,
  O_STOL,
  O_4STOL,
  O_Q,
  O_SOURCEFILE,
  O_FLOATFILE,
  O_INTFILE,
  O_PGMFILE,
  O_NOISEFILE,
  O_PNGFILE,
  O_NONOISE,
  O_NOPGM,
  O_SCALE,
  O_PGMSCALE,
  O_COHERENT,
  O_PRINTOUT,
  O_PRINTOUT_PIXEL,
  O_NOPROGRESS,
  O_PROGRESS,
  O_INTERPOLATE,
  O_NOINTERPOLATE,
  O_ROUND_XTAL,
  O_SQUARE_XTAL,
  O_GAUSS_XTAL,
  O_TOPHAT,
  O_FUDGE,
  O_SEED,
  O_MOSAIC_SEED,
  O_MISSET_SEED,
  O_WATER,
  O_PRECISION,
  O_PHYSICAL,
  O_STATS,
  O_BACKEND,
  O_MEMORY_BUDGET,
  O_LENIENT,
} option_id;

typedef struct
{
  const char *name;
  match_kind match;
  int nargs; /* values consumed; -1: variable (-cell, -misset) */
  option_id id;
} option;

static const option options[] = {
  { "-Na", F_EXACT, 1, O_NA },
  { "-Nb", F_EXACT, 1, O_NB },
  { "-Nc", F_EXACT, 1, O_NC },
  { "-N", F_EXACT, 1, O_N },
  { "-cell", F_EXACT, -1, O_CELL },
  { "-misset", F_EXACT, -1, O_MISSET },
  { "-samplesize", F_EXACT, 1, O_SAMPLESIZE },
  { "-sample_size", F_EXACT, 1, O_SAMPLESIZE },
  { "-xtalsize", F_EXACT, 1, O_SAMPLESIZE },
  { "-xtal_size", F_EXACT, 1, O_SAMPLESIZE },
  { "-sample_thick", F_EXACT, 1, O_SAMPLE_X },
  { "-sample_x", F_EXACT, 1, O_SAMPLE_X },
  { "-xtal_thick", F_EXACT, 1, O_SAMPLE_X },
  { "-xtal_x", F_EXACT, 1, O_SAMPLE_X },
  { "-sample_width", F_EXACT, 1, O_SAMPLE_Y },
  { "-sample_y", F_EXACT, 1, O_SAMPLE_Y },
  { "-width", F_EXACT, 1, O_SAMPLE_Y },
  { "-xtal_width", F_EXACT, 1, O_SAMPLE_Y },
  { "-xtal_y", F_EXACT, 1, O_SAMPLE_Y },
  { "-sample_heigh", F_PREFIX, 1, O_SAMPLE_Z },
  { "-sample_z", F_EXACT, 1, O_SAMPLE_Z },
  { "-heigh", F_PREFIX, 1, O_SAMPLE_Z },
  { "-xtal_heigh", F_PREFIX, 1, O_SAMPLE_Z },
  { "-xtal_z", F_EXACT, 1, O_SAMPLE_Z },
  { "-density", F_EXACT, 1, O_IGNORED_1 },
  { "-sample_den", F_PREFIX, 1, O_IGNORED_1 },
  { "-MW", F_EXACT, 1, O_IGNORED_1 },
  { "-molec", F_PREFIX, 1, O_IGNORED_1 },
  { "-Xbeam", F_EXACT, 1, O_XBEAM },
  { "-Ybeam", F_EXACT, 1, O_YBEAM },
  { "-Xclose", F_EXACT, 1, O_XCLOSE },
  { "-Yclose", F_EXACT, 1, O_YCLOSE },
  { "-ORGX", F_EXACT, 1, O_ORGX },
  { "-ORGY", F_EXACT, 1, O_ORGY },
  { "-pivot", F_EXACT, 1, O_PIVOT },
  { "-mosflm", F_EXACT, 0, O_MOSFLM },
  { "-xds", F_EXACT, 0, O_XDS },
  { "-adxv", F_EXACT, 0, O_ADXV },
  { "-denzo", F_EXACT, 0, O_DENZO },
  { "-dials", F_EXACT, 0, O_DIALS },
  { "-fdet_vector", F_EXACT, 3, O_FDET },
  { "-sdet_vector", F_EXACT, 3, O_SDET },
  { "-odet_vector", F_EXACT, 3, O_ODET },
  { "-beam_vector", F_EXACT, 3, O_BEAMVEC },
  { "-polar_vector", F_EXACT, 3, O_POLARVEC },
  { "-spindle_axis", F_EXACT, 3, O_SPINDLE },
  { "-twotheta_axis", F_EXACT, 3, O_TTAXIS },
  { "-pix0_vector", F_PREFIX, 3, O_PIX0 },
  { "-distance", F_EXACT, 1, O_DISTANCE },
  { "-close_distance", F_EXACT, 1, O_CLOSE_DISTANCE },
  { "-detector_abs", F_PREFIX, 1, O_DET_ABS },
  { "-detector_thick", F_EXACT, 1, O_DET_THICK },
  { "-detector_thicksteps", F_EXACT, 1, O_DET_THICKSTEPS },
  { "-thicksteps", F_EXACT, 1, O_DET_THICKSTEPS },
  { "-twotheta", F_EXACT, 1, O_TWOTHETA },
  { "-detector_rotx", F_EXACT, 1, O_ROTX },
  { "-detector_roty", F_EXACT, 1, O_ROTY },
  { "-detector_rotz", F_EXACT, 1, O_ROTZ },
  { "-detsize", F_EXACT, 1, O_DETSIZE },
  { "-detsize_f", F_EXACT, 1, O_DETSIZE_F },
  { "-detsize_s", F_EXACT, 1, O_DETSIZE_S },
  { "-detpixels", F_EXACT, 1, O_DETPIXELS },
  { "-detpixels_f", F_EXACT, 1, O_DETPIXELS_F },
  { "-detpixels_x", F_EXACT, 1, O_DETPIXELS_F },
  { "-detpixels_s", F_EXACT, 1, O_DETPIXELS_S },
  { "-detpixels_y", F_EXACT, 1, O_DETPIXELS_S },
  { "-curved_det", F_PREFIX, 0, O_CURVED },
  { "-pixel", F_PREFIX, 1, O_PIXEL },
  { "-point_pixel", F_EXACT, 0, O_POINT_PIXEL },
  { "-polar", F_EXACT, 1, O_POLAR },
  { "-nopolar", F_EXACT, 0, O_NOPOLAR },
  { "-oversample_thick", F_EXACT, 0, O_OS_THICK },
  { "-oversample_polar", F_EXACT, 0, O_OS_POLAR },
  { "-oversample_omega", F_EXACT, 0, O_OS_OMEGA },
  { "-oversample", F_EXACT, 1, O_OVERSAMPLE },
  { "-roi", F_EXACT, 4, O_ROI },
  { "-lambda", F_EXACT, 1, O_LAMBDA },
  { "-wave", F_PREFIX, 1, O_LAMBDA },
  { "-energy", F_EXACT, 1, O_ENERGY },
  { "-fluence", F_EXACT, 1, O_FLUENCE },
  { "-flux", F_EXACT, 1, O_FLUX },
  { "-exposure", F_EXACT, 1, O_EXPOSURE },
  { "-beamsize", F_EXACT, 1, O_BEAMSIZE },
  { "-mosaic", F_EXACT, 1, O_MOSAIC },
  { "-mosaici", F_PREFIX, 1, O_MOSAIC },
  { "-mosaic_spr", F_PREFIX, 1, O_MOSAIC },
  { "-mosaic_dom", F_PREFIX, 1, O_MOSAIC_DOM },
  { "-dispersion", F_EXACT, 1, O_DISPERSION },
  { "-dispsteps", F_EXACT, 1, O_DISPSTEPS },
  { "-divergence", F_EXACT, 1, O_DIVERGENCE },
  { "-hdivrange", F_EXACT, 1, O_HDIVRANGE },
  { "-vdivrange", F_EXACT, 1, O_VDIVRANGE },
  { "-hdivstep", F_EXACT, 1, O_HDIVSTEP },
  { "-hdivsteps", F_EXACT, 1, O_HDIVSTEPS },
  { "-vdivstep", F_EXACT, 1, O_VDIVSTEP },
  { "-vdivsteps", F_EXACT, 1, O_VDIVSTEPS },
  { "-divsteps", F_EXACT, 1, O_DIVSTEPS },
  { "-round_div", F_EXACT, 0, O_ROUND_DIV },
  { "-square_div", F_EXACT, 0, O_SQUARE_DIV },
  { "-adc", F_EXACT, 1, O_ADC },
  { "-phi", F_EXACT, 1, O_PHI },
  { "-osc", F_PREFIX, 1, O_OSC },
  { "-phistep", F_EXACT, 1, O_PHISTEP },
  { "-phisteps", F_EXACT, 1, O_PHISTEPS },
  { "-dmin", F_EXACT, 1, O_DMIN },
  { "-mat", F_PREFIX, 1, O_MAT },
  { "-hkl", F_PREFIX, 1, O_HKL },
  { "-default_F", F_EXACT, 1, O_DEFAULT_F },
  { "-dump", F_PREFIX, 1, O_DUMP },
  { "-img", F_EXACT, 1, O_IMG },
  { "-mask", F_EXACT, 1, O_MASK },
  { "-stolout", F_EXACT, 1, O_STOLOUT },
  { "-stol", F_EXACT, 1, O_STOL },
  { "-4stol", F_EXACT, 1, O_4STOL },
  { "-Q", F_EXACT, 1, O_Q },
  { "-sourcefile", F_EXACT, 1, O_SOURCEFILE },
  { "-floatfile", F_EXACT, 1, O_FLOATFILE },
  { "-floatimage", F_EXACT, 1, O_FLOATFILE },
  { "-intfile", F_EXACT, 1, O_INTFILE },
  { "-intimage", F_EXACT, 1, O_INTFILE },
  { "-pgmfile", F_EXACT, 1, O_PGMFILE },
  { "-pgmimage", F_EXACT, 1, O_PGMFILE },
  { "-noisefile", F_EXACT, 1, O_NOISEFILE },
  { "-noiseimage", F_EXACT, 1, O_NOISEFILE },
  { "-pngfile", F_EXACT, 1, O_PNGFILE },
  { "-nonoise", F_EXACT, 0, O_NONOISE },
  { "-nopgm", F_EXACT, 0, O_NOPGM },
  { "-scale", F_EXACT, 1, O_SCALE },
  { "-pgmscale", F_EXACT, 1, O_PGMSCALE },
  { "-coherent", F_EXACT, 0, O_COHERENT },
  { "-printout", F_EXACT, 0, O_PRINTOUT },
  { "-printout_pixel", F_EXACT, 2, O_PRINTOUT_PIXEL },
  { "-noprogress", F_EXACT, 0, O_NOPROGRESS },
  { "-progress", F_EXACT, 0, O_PROGRESS },
  { "-interpolate", F_EXACT, 0, O_INTERPOLATE },
  { "-nointerpolate", F_EXACT, 0, O_NOINTERPOLATE },
  { "-round_xtal", F_EXACT, 0, O_ROUND_XTAL },
  { "-square_xtal", F_EXACT, 0, O_SQUARE_XTAL },
  { "-gauss_xtal", F_EXACT, 0, O_GAUSS_XTAL },
  { "-tophat_spots", F_EXACT, 0, O_TOPHAT },
  { "-binary_spots", F_EXACT, 0, O_TOPHAT },
  { "-fudge", F_EXACT, 1, O_FUDGE },
  { "-seed", F_EXACT, 1, O_SEED },
  { "-mosaic_seed", F_EXACT, 1, O_MOSAIC_SEED },
  { "-misset_seed", F_EXACT, 1, O_MISSET_SEED },
  { "-water", F_EXACT, 1, O_WATER },
  { "-precision", F_EXACT, 1, O_PRECISION },
  { "-physical", F_EXACT, 0, O_PHYSICAL },
  { "-stats", F_EXACT, 0, O_STATS },
  { "-backend", F_EXACT, 1, O_BACKEND },
  { "-memory_budget", F_EXACT, 1, O_MEMORY_BUDGET },
  { "-lenient", F_EXACT, 0, O_LENIENT },
};

static const option *
find_option (const char *arg)
{
  const option *best = NULL;
  size_t best_len = 0;

  for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
    {
      const option *o = &options[i];
      size_t len = strlen (o->name);

      if (o->match == F_EXACT ? strcmp (arg, o->name) == 0 : strncmp (arg, o->name, len) == 0)
        if (len > best_len)
          {
            best = o;
            best_len = len;
          }
    }
  return best;
}

/* ------------------------------------------------------------------------- */
/* Words the parser does not take.  The error names the nearest known flags and
 * what nanoBragg does with the word; in lenient mode (nb_parse_options) a
 * word nanoBragg ignores is skipped with a warning instead. */

#define LENIENT_HINT "add -lenient (or set NANOBRAGG_LENIENT=1) to do the same"

/* Up to three known flags near @word as " (did you mean -a, -b or -c?)" in
 * @out, or "": the flags that begin with @word (-hdiv), else the longest flag
 * that begins @word (-polarization), else those at the smallest edit distance
 * (-lamda), if it is at most a third of its letters (at least 1). */
static void
suggest_flags (const char *word, char *out, size_t n)
{
  const char *found[3] = { NULL, NULL, NULL };
  int count = 0;
  size_t len = strlen (word), cap = (len > 1 ? len - 1 : 0) / 3, best;
  size_t used;

  if (cap < 1)
    cap = 1;
  best = cap + 1;
  if (len >= 3)
    for (size_t i = 0; i < sizeof options / sizeof options[0] && count < 3; i++)
      if (strlen (options[i].name) > len && strncmp (options[i].name, word, len) == 0)
        found[count++] = options[i].name;
  for (size_t i = 0; i < sizeof options / sizeof options[0] && count == 0; i++)
    {
      size_t flag_len = strlen (options[i].name);

      if (flag_len >= 3 && flag_len < len && strncmp (word, options[i].name, flag_len) == 0 &&
          (found[0] == NULL || flag_len > strlen (found[0])))
        found[0] = options[i].name;
    }
  if (count == 0 && found[0] != NULL)
    count = 1;
  if (count == 0)
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
      {
        size_t d = nb_argv_edit_distance (word, options[i].name, cap);

        if (d < best)
          {
            best = d;
            count = 0;
          }
        if (d == best && d <= cap && count < 3)
          found[count++] = options[i].name;
      }
  out[0] = '\0';
  if (count == 0)
    return;
  used = (size_t) snprintf (out, n, " (did you mean %s", found[0]);
  for (int k = 1; k < count && used < n; k++)
    used +=
        (size_t) snprintf (out + used, n - used, "%s%s", k + 1 < count ? ", " : " or ", found[k]);
  if (used < n)
    snprintf (out + used, n - used, "?)");
}

/* How the parse treats words it does not take. */
typedef struct
{
  int lenient;
  const nb_parse_options *opts;
  const char *prev_flag;  /* the last word read as a flag, known or not */
  const option *prev_opt; /* its option, NULL if unknown */
} word_policy;

static void
warn (const word_policy *w, const char *fmt, ...)
{
  char line[NB_ERROR_MESSAGE_MAX];
  va_list ap;

  if (w->opts == NULL || w->opts->warn == NULL)
    return;
  va_start (ap, fmt);
  vsnprintf (line, sizeof line, fmt, ap);
  va_end (ap);
  w->opts->warn (w->opts->user, line);
}

/* @word starts with '-', is no number and no known flag. */
static nb_status
unknown_flag (const word_policy *w, const char *word, nb_error *err)
{
  const char *theirs = nb_argv_reference_flag (word);
  char near[160];

  if (theirs != NULL)
    return nb_error_set (err, NB_ERR_USAGE,
                         "unknown flag '%.80s': nanoBragg reads it as %s (its name is part of "
                         "the word); write %s",
                         word, theirs, theirs);
  suggest_flags (word, near, sizeof near);
  if (!w->lenient)
    return nb_error_set (err, NB_ERR_USAGE, "unknown flag '%.80s'%s; nanoBragg ignores it: %s",
                         word, near, LENIENT_HINT);
  warn (w, "ignoring unknown flag '%.80s' as nanoBragg does%s", word, near);
  return NB_OK;
}

/* @word is no flag and no value of the flag before it. */
static nb_status
stray_word (const word_policy *w, const char *word, nb_error *err)
{
  const char *theirs;
  char why[160];

  if (w->prev_flag != NULL && w->prev_opt == NULL)
    snprintf (why, sizeof why, "after %.80s, which nanoBragg does not know", w->prev_flag);
  else if (w->prev_opt != NULL && w->prev_opt->nargs == 0)
    snprintf (why, sizeof why, "%.80s takes no value", w->prev_flag);
  else
    snprintf (why, sizeof why, "not after a flag that takes it");
  /* nanoBragg only looks at words starting with '-': here numbers, of which
   * only "-NaN" (as -Na) holds one of its flags' names */
  theirs = nb_argv_reference_flag (word);
  if (theirs != NULL)
    return nb_error_set (err, NB_ERR_USAGE,
                         "unexpected argument '%.80s' (%s); nanoBragg reads it as %s", word, why,
                         theirs);
  if (!w->lenient)
    return nb_error_set (err, NB_ERR_USAGE,
                         "unexpected argument '%.80s' (%s); nanoBragg ignores it: %s", word, why,
                         LENIENT_HINT);
  warn (w, "ignoring '%.80s' as nanoBragg does (%s)", word, why);
  return NB_OK;
}

/* strtod() with '.' as the decimal point whatever locale the host chose (a
 * GTK or Python program in a comma-decimal locale), as hkl.c reads files:
 * strtod_l() in the C locale, made once and kept for the process.  Without
 * it (out of memory) plain strtod(), right in the C locale the CLI runs in. */
static double
c_strtod (const char *s, char **end)
{
  static _Atomic (locale_t) shared;
  locale_t c = atomic_load (&shared), expected = (locale_t) 0;

  if (c == (locale_t) 0)
    {
      c = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
      if (c == (locale_t) 0)
        return strtod (s, end);
      if (!atomic_compare_exchange_strong (&shared, &expected, c))
        {
          freelocale (c);
          c = expected;
        }
    }
  return strtod_l (s, end, c);
}

/* A token is a value, not a flag, if it does not start with '-' or it is a
 * number ("-5", "-.5", "-1e3"). */
static int
is_number_token (const char *s)
{
  char *end;

  if (s == NULL || *s == '\0')
    return 0;
  errno = 0;
  c_strtod (s, &end);
  return end != s && *end == '\0';
}

static nb_status
get_double (const char *flag, const char *value, double *out, nb_error *err)
{
  char *end;

  errno = 0;
  double v = c_strtod (value, &end);
  if (end == value || *end != '\0')
    return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' is not a number", flag, value);
  if (!isfinite (v))
    return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' is not a finite number", flag, value);
  *out = v;
  return NB_OK;
}

static nb_status
get_int (const char *flag, const char *value, long *out, nb_error *err)
{
  double v = 0.0;
  nb_status st = get_double (flag, value, &v, err);

  if (st != NB_OK)
    return st;
  if (v != floor (v) || fabs (v) > 2147483647.0)
    return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' is not a whole number", flag, value);
  *out = (long) v;
  return NB_OK;
}

static nb_status
set_string (char **slot, const char *value, nb_error *err)
{
  char *copy = strdup (value);

  if (copy == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  free (*slot);
  *slot = copy;
  return NB_OK;
}

/* One header key for apply_smv_header(): absent (0), or present with a
 * finite number (1) that must also be positive when @positive; any other value
 * is an error naming the file, the line and the key. */
static nb_status
smv_key (const nb_smv_file *f,
         const char *path,
         const char *key,
         int positive,
         double *out,
         int *found,
         nb_error *err)
{
  char raw[48];
  long line;
  int r = nb_smv_lookup (f, key, out, &line, raw, sizeof raw);

  *found = r != 0;
  if (r < 0)
    return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: %s='%s' is not a number", path, line, key,
                         raw);
  if (r > 0 && positive && !(*out > 0.0))
    return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: %s=%s (allowed: > 0)", path, line, key, raw);
  return NB_OK;
}

/* Applies the keys of an SMV header (-img / -mask) as defaults.  Source:
 * nanoBragg.c header ingestion; physics.md §19.7.  Unlike the reference
 * (atof), a key whose value is not a number, or an impossible value (a
 * pixel size, distance or wavelength <= 0), is an error naming the file and
 * line. */
static nb_status
apply_smv_header (nb_params *p, const char *path, int is_mask, nb_error *err)
{
  static const struct
  {
    const char *key;
    int positive;
  } keys[] = {
    { "PIXEL_SIZE", 1 },    { "DISTANCE", 1 },      { "CLOSE_DISTANCE", 1 }, { "WAVELENGTH", 1 },
    { "BEAM_CENTER_X", 0 }, { "BEAM_CENTER_Y", 0 }, { "ORGX", 0 },           { "ORGY", 0 },
    { "PHI", 0 },           { "OSC_RANGE", 0 },
  };
  enum
  {
    K_PIXEL,
    K_DISTANCE,
    K_CLOSE,
    K_WAVE,
    K_BCX,
    K_BCY,
    K_ORGX,
    K_ORGY,
    K_PHI,
    K_OSC,
    K_N
  };
  double v[K_N];
  int found[K_N];
  nb_smv_file f;
  nb_status st = nb_read_smv (path, &f, err);

  if (st != NB_OK)
    return st;
  for (int k = 0; k < K_N; k++)
    if ((st = smv_key (&f, path, keys[k].key, keys[k].positive, &v[k], &found[k], err)) != NB_OK)
      {
        nb_smv_file_clear (&f);
        return st;
      }
  if (f.size1 > MAX_PIXELS || f.size2 > MAX_PIXELS)
    {
      nb_error_set (err, NB_ERR_PARSE,
                    "%s: SIZE1=%d x SIZE2=%d pixels (allowed: up to %d per axis)", path, f.size1,
                    f.size2, MAX_PIXELS);
      nb_smv_file_clear (&f);
      return NB_ERR_PARSE;
    }
  if (found[K_OSC] && v[K_OSC] < 0.0)
    {
      long line;
      char raw[48];

      nb_smv_lookup (&f, "OSC_RANGE", &v[K_OSC], &line, raw, sizeof raw);
      nb_error_set (err, NB_ERR_PARSE, "%s:%ld: OSC_RANGE=%s (allowed: >= 0)", path, line, raw);
      nb_smv_file_clear (&f);
      return NB_ERR_PARSE;
    }

  if (f.size1 > 0)
    p->fpixels = f.size1;
  if (f.size2 > 0)
    p->spixels = f.size2;
  if (found[K_PIXEL])
    p->pixel_size = v[K_PIXEL] / 1000.0;
  p->detsize_f = p->pixel_size * p->fpixels;
  p->detsize_s = p->pixel_size * p->spixels;
  if (found[K_DISTANCE])
    p->distance = v[K_DISTANCE] / 1000.0;
  if (found[K_CLOSE])
    p->close_distance = v[K_CLOSE] / 1000.0;
  if (found[K_WAVE])
    p->lambda0 = v[K_WAVE] / 1e10;
  if (found[K_BCX])
    p->Xbeam = v[K_BCX] / 1000.0;
  if (found[K_BCY])
    p->Ybeam = is_mask ? p->detsize_s - v[K_BCY] / 1000.0 : v[K_BCY] / 1000.0;
  if (found[K_ORGX])
    p->ORGX = v[K_ORGX];
  if (found[K_ORGY])
    p->ORGY = v[K_ORGY];
  if (found[K_PHI])
    p->phi0 = v[K_PHI] / RTD;
  if (found[K_OSC])
    p->osc = v[K_OSC] / RTD;
  /* TWOTHETA is read but never applied by the reference. */
  nb_smv_file_clear (&f);
  return NB_OK;
}

static nb_status
prescan_headers (nb_params *p, int argc, const char *const *argv, nb_error *err)
{
  const char *img = NULL, *mask = NULL;
  nb_status st;

  for (int i = 1; i + 1 < argc; i++)
    {
      if (strcmp (argv[i], "-img") == 0)
        img = argv[i + 1];
      else if (strcmp (argv[i], "-mask") == 0)
        mask = argv[i + 1];
    }
  /* The mask is read first, so the image's keys win. */
  if (mask != NULL && (st = apply_smv_header (p, mask, 1, err)) != NB_OK)
    return st;
  if (img != NULL && (st = apply_smv_header (p, img, 0, err)) != NB_OK)
    return st;
  return NB_OK;
}

static void
set_convention (nb_params *p, nb_convention c, nb_pivot pivot)
{
  p->convention = c;
  p->pivot = pivot;
}

nb_status
nb_params_parse_argv (nb_params *p, int argc, const char *const *argv, nb_error *err)
{
  return nb_params_parse_argv_with (p, argc, argv, NULL, err);
}

nb_status
nb_params_parse_argv_with (
    nb_params *p, int argc, const char *const *argv, const nb_parse_options *opts, nb_error *err)
{
  word_policy words = { opts != NULL && opts->lenient, opts, NULL, NULL };
  nb_status st;

  nb_error_clear (err);
  if ((st = prescan_headers (p, argc, argv, err)) != NB_OK)
    return st;

  /* -physical changes how other flags act and -lenient what is
   * refused, so they are seen first. */
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "-physical") == 0)
      p->physical = 1;
    else if (strcmp (argv[i], "-lenient") == 0)
      words.lenient = 1;

  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];
      const option *o;
      double d[6] = { 0 };
      long n[4] = { 0 };
      int have;

      if (arg[0] != '-' || is_number_token (arg))
        {
          if ((st = stray_word (&words, arg, err)) != NB_OK)
            return st;
          continue;
        }
      o = find_option (arg);
      words.prev_flag = arg;
      words.prev_opt = o;
      if (o == NULL)
        {
          if ((st = unknown_flag (&words, arg, err)) != NB_OK)
            return st;
          continue;
        }

      have = 0;
      while (i + 1 + have < argc && have < 6 &&
             (argv[i + 1 + have][0] != '-' || is_number_token (argv[i + 1 + have])))
        have++;
      if (o->nargs > 0 && have < o->nargs)
        return nb_error_set (err, NB_ERR_USAGE, "%s needs %d value%s, got %d", arg, o->nargs,
                             o->nargs > 1 ? "s" : "", have);

        /* numeric flags: convert their values up front */
#define DBL(k)                                                                                     \
  do                                                                                               \
    if ((st = get_double (arg, argv[i + 1 + (k)], &d[k], err)) != NB_OK)                           \
      return st;                                                                                   \
  while (0)
#define INT(k)                                                                                     \
  do                                                                                               \
    if ((st = get_int (arg, argv[i + 1 + (k)], &n[k], err)) != NB_OK)                              \
      return st;                                                                                   \
  while (0)
/* Flags whose negative values would read as "not given" (-1) or switch to an
 * automatic choice: a sign error is refused here, where the typed value is
 * known; nb_params_validate() checks the ranges. */
#define NONNEG_DBL(k)                                                                              \
  do                                                                                               \
    if (d[k] < 0.0)                                                                                \
      return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' must not be negative", arg,                \
                           argv[i + 1 + (k)]);                                                     \
  while (0)
#define NONNEG_INT(k)                                                                              \
  do                                                                                               \
    if (n[k] < 0)                                                                                  \
      return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' must not be negative", arg,                \
                           argv[i + 1 + (k)]);                                                     \
  while (0)
/* 0 pixels in nb_params means "from -detsize": not what -detpixels 0 asks */
#define POSITIVE_PIXELS                                                                            \
  do                                                                                               \
    if (n[0] < 1)                                                                                  \
      return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' must be at least 1 pixel", arg,            \
                           argv[i + 1]);                                                           \
  while (0)

      switch (o->id)
        {
          case O_NA:
            INT (0);
            p->Na = n[0];
            break;
          case O_NB:
            INT (0);
            p->Nb = n[0];
            break;
          case O_NC:
            INT (0);
            p->Nc = n[0];
            break;
          case O_N:
            INT (0);
            p->Na = p->Nb = p->Nc = n[0];
            break;
          case O_CELL:
            if (have < 1)
              return nb_error_set (err, NB_ERR_USAGE, "-cell needs a b c alpha beta gamma");
            for (int k = 0; k < have; k++)
              DBL (k);
            p->cell[0] = d[0];
            p->cell[1] = have > 1 ? d[1] : 0.0;
            p->cell[2] = have > 2 ? d[2] : 0.0;
            p->cell[3] = have > 3 ? d[3] / RTD : 0.0;
            p->cell[4] = have > 4 ? d[4] / RTD : 0.0;
            p->cell[5] = have > 5 ? d[5] / RTD : 0.0;
            i += have;
            continue;
          case O_MISSET:
            if (i + 1 < argc && strstr (argv[i + 1], "rand") != NULL)
              {
                p->misset_random = 1;
                i += 1;
                continue;
              }
            if (have < 3)
              return nb_error_set (err, NB_ERR_USAGE,
                                   "-misset needs three angles (degrees) or 'random'");
            DBL (0);
            DBL (1);
            DBL (2);
            p->misset_random = 0;
            p->misset[0] = d[0] / RTD;
            p->misset[1] = d[1] / RTD;
            p->misset[2] = d[2] / RTD;
            i += 3;
            continue;
          case O_SAMPLESIZE:
            DBL (0);
            p->sample_x = p->sample_y = p->sample_z = d[0] / 1000;
            break;
          case O_SAMPLE_X:
            DBL (0);
            p->sample_x = d[0] / 1000;
            break;
          case O_SAMPLE_Y:
            DBL (0);
            p->sample_y = d[0] / 1000;
            break;
          case O_SAMPLE_Z:
            DBL (0);
            p->sample_z = d[0] / 1000;
            break;
          case O_IGNORED_1:
            DBL (0);
            break;
          case O_XBEAM:
            DBL (0);
            p->Xbeam = d[0] / 1000.0;
            p->pivot = NB_PIVOT_BEAM;
            break;
          case O_YBEAM:
            DBL (0);
            p->Ybeam = d[0] / 1000.0;
            p->pivot = NB_PIVOT_BEAM;
            break;
          case O_XCLOSE:
            DBL (0);
            p->Xclose = d[0] / 1000.0;
            p->pivot = NB_PIVOT_SAMPLE;
            break;
          case O_YCLOSE:
            DBL (0);
            p->Yclose = d[0] / 1000.0;
            p->pivot = NB_PIVOT_SAMPLE;
            break;
          case O_ORGX:
            DBL (0);
            p->ORGX = d[0];
            p->pivot = NB_PIVOT_SAMPLE;
            break;
          case O_ORGY:
            DBL (0);
            p->ORGY = d[0];
            p->pivot = NB_PIVOT_SAMPLE;
            break;
          case O_PIVOT:
            if (strstr (argv[i + 1], "sample"))
              p->pivot = NB_PIVOT_SAMPLE;
            else if (strstr (argv[i + 1], "beam"))
              p->pivot = NB_PIVOT_BEAM;
            else
              return nb_error_set (err, NB_ERR_USAGE, "-pivot: '%s' is neither 'beam' nor 'sample'",
                                   argv[i + 1]);
            break;
          case O_MOSFLM:
            set_convention (p, NB_CONVENTION_MOSFLM, NB_PIVOT_BEAM);
            break;
          case O_XDS:
            set_convention (p, NB_CONVENTION_XDS, NB_PIVOT_SAMPLE);
            break;
          case O_ADXV:
            set_convention (p, NB_CONVENTION_ADXV, NB_PIVOT_BEAM);
            break;
          case O_DENZO:
            set_convention (p, NB_CONVENTION_DENZO, NB_PIVOT_BEAM);
            break;
          case O_DIALS:
            set_convention (p, NB_CONVENTION_DIALS, NB_PIVOT_BEAM);
            break;
          case O_FDET:
          case O_SDET:
          case O_ODET:
          case O_BEAMVEC:
          case O_POLARVEC:
          case O_SPINDLE:
          case O_TTAXIS:
          case O_PIX0:
            {
              double *v = o->id == O_FDET       ? p->fdet
                          : o->id == O_SDET     ? p->sdet
                          : o->id == O_ODET     ? p->odet
                          : o->id == O_BEAMVEC  ? p->beam
                          : o->id == O_POLARVEC ? p->polar_vector
                          : o->id == O_SPINDLE  ? p->spindle
                          : o->id == O_TTAXIS   ? p->twotheta_axis
                                                : p->pix0;
              DBL (0);
              DBL (1);
              DBL (2);
              p->convention = NB_CONVENTION_CUSTOM;
              v[0] = d[0];
              v[1] = d[1];
              v[2] = d[2];
              if (o->id == O_TTAXIS && !p->physical)
                {
                  /* the reference's "-twotheta" handler also fires */
                  p->twotheta = d[0] / RTD;
                  p->pivot = NB_PIVOT_SAMPLE;
                }
            }
            break;
          case O_DISTANCE:
            DBL (0);
            p->distance = d[0] / 1000.0;
            p->pivot = NB_PIVOT_BEAM;
            break;
          case O_CLOSE_DISTANCE:
            DBL (0);
            p->close_distance = d[0] / 1000.0;
            p->pivot = NB_PIVOT_SAMPLE;
            break;
          case O_DET_ABS:
            if (strstr (argv[i + 1], "inf") != NULL)
              d[0] = 0.0;
            else
              DBL (0);
            if (d[0] < 0.0)
              return nb_error_set (err, NB_ERR_USAGE,
                                   "%s: '%s' is not an attenuation depth (um > 0, or 0 or inf for "
                                   "none)",
                                   arg, argv[i + 1]);
            if (d[0] == 0.0)
              {
                p->detector_mu = 0.0;
                p->detector_thick = 0.0; /* */
              }
            else
              p->detector_mu = 1.0 / (d[0] * 1e-6);
            break;
          case O_DET_THICK:
            DBL (0);
            p->detector_thick = d[0] * 1e-6;
            break;
          case O_DET_THICKSTEPS:
            INT (0);
            NONNEG_INT (0);
            p->detector_thicksteps = (int) n[0];
            break;
          case O_TWOTHETA:
            DBL (0);
            p->twotheta = d[0] / RTD;
            p->pivot = NB_PIVOT_SAMPLE;
            break;
          case O_ROTX:
            DBL (0);
            p->rotx = d[0] / RTD;
            break;
          case O_ROTY:
            DBL (0);
            p->roty = d[0] / RTD;
            break;
          case O_ROTZ:
            DBL (0);
            p->rotz = d[0] / RTD;
            break;
          case O_DETSIZE:
            DBL (0);
            p->detsize_f = p->detsize_s = d[0] / 1000.0;
            break;
          case O_DETSIZE_F:
            DBL (0);
            p->detsize_f = d[0] / 1000.0;
            break;
          case O_DETSIZE_S:
            DBL (0);
            p->detsize_s = d[0] / 1000.0;
            break;
          case O_DETPIXELS:
            INT (0);
            POSITIVE_PIXELS;
            p->fpixels = p->spixels = (int) n[0];
            break;
          case O_DETPIXELS_F:
            INT (0);
            POSITIVE_PIXELS;
            p->fpixels = (int) n[0];
            break;
          case O_DETPIXELS_S:
            INT (0);
            POSITIVE_PIXELS;
            p->spixels = (int) n[0];
            break;
          case O_CURVED:
            p->curved_det = 1;
            break;
          case O_PIXEL:
            DBL (0);
            p->pixel_size = d[0] / 1000.0;
            break;
          case O_POINT_PIXEL:
            p->point_pixel = 1;
            break;
          case O_POLAR:
            DBL (0);
            p->polarization = d[0];
            p->nopolar = 0;
            break;
          case O_NOPOLAR:
            p->nopolar = 1;
            break;
          case O_OS_THICK:
            p->oversample_thick = 1;
            break;
          case O_OS_POLAR:
            p->oversample_polar = 1;
            break;
          case O_OS_OMEGA:
            p->oversample_omega = 1;
            break;
          case O_OVERSAMPLE:
            INT (0);
            NONNEG_INT (0);
            p->oversample = (int) n[0];
            break;
          case O_ROI:
            INT (0);
            INT (1);
            INT (2);
            INT (3);
            for (int k = 0; k < 4; k++)
              p->roi[k] = (int) n[k];
            break;
          case O_LAMBDA:
            DBL (0);
            p->lambda0 = d[0] / 1.0e10;
            break;
          case O_ENERGY:
            DBL (0);
            if (d[0] == 0.0)
              return nb_error_set (err, NB_ERR_USAGE, "-energy: must not be 0 eV");
            p->lambda0 = (12398.42 / d[0]) / 1.0e10;
            break;
          case O_FLUENCE:
            DBL (0);
            p->fluence = d[0];
            break;
          case O_FLUX:
            DBL (0);
            p->flux = d[0];
            break;
          case O_EXPOSURE:
            DBL (0);
            p->exposure = d[0];
            break;
          case O_BEAMSIZE:
            DBL (0);
            p->beamsize = d[0] / 1000;
            break;
          case O_MOSAIC:
            DBL (0);
            NONNEG_DBL (0);
            p->mosaic_spread = d[0] / RTD;
            break;
          case O_MOSAIC_DOM:
            INT (0);
            NONNEG_INT (0);
            p->mosaic_domains = (int) n[0];
            break;
          case O_DISPERSION:
            DBL (0);
            p->dispersion = d[0] / 100.0;
            break;
          case O_DISPSTEPS:
            INT (0);
            NONNEG_INT (0);
            p->dispsteps = (int) n[0];
            break;
          case O_DIVERGENCE:
            DBL (0);
            NONNEG_DBL (0);
            p->hdivrange = p->vdivrange = d[0] / 1000.0;
            break;
          case O_HDIVRANGE:
            DBL (0);
            NONNEG_DBL (0);
            p->hdivrange = d[0] / 1000.0;
            break;
          case O_VDIVRANGE:
            DBL (0);
            NONNEG_DBL (0);
            p->vdivrange = d[0] / 1000.0;
            break;
          case O_HDIVSTEP:
            DBL (0);
            NONNEG_DBL (0);
            p->hdivstep = d[0] / 1000.0;
            break;
          case O_HDIVSTEPS:
            INT (0);
            NONNEG_INT (0);
            p->hdivsteps = (int) n[0];
            break;
          case O_VDIVSTEP:
            DBL (0);
            NONNEG_DBL (0);
            p->vdivstep = d[0] / 1000.0;
            break;
          case O_VDIVSTEPS:
            INT (0);
            NONNEG_INT (0);
            p->vdivsteps = (int) n[0];
            break;
          case O_DIVSTEPS:
            INT (0);
            NONNEG_INT (0);
            p->hdivsteps = p->vdivsteps = (int) n[0];
            break;
          case O_ROUND_DIV:
            p->round_div = 1;
            break;
          case O_SQUARE_DIV:
            p->round_div = 0;
            break;
          case O_ADC:
            DBL (0);
            p->adc = d[0];
            break;
          case O_PHI:
            DBL (0);
            p->phi0 = d[0] / RTD;
            break;
          case O_OSC:
            DBL (0);
            NONNEG_DBL (0);
            p->osc = d[0] / RTD;
            break;
          case O_PHISTEP:
            DBL (0);
            NONNEG_DBL (0);
            p->phistep = d[0] / RTD;
            break;
          case O_PHISTEPS:
            INT (0);
            NONNEG_INT (0);
            p->phisteps = (int) n[0];
            break;
          case O_DMIN:
            DBL (0);
            p->dmin = d[0] * 1e-10;
            break;
          case O_MAT:
            if ((st = set_string (&p->mat_file, argv[i + 1], err)))
              return st;
            break;
          case O_HKL:
            if ((st = set_string (&p->hkl_file, argv[i + 1], err)))
              return st;
            break;
          case O_DEFAULT_F:
            DBL (0);
            p->default_F = d[0];
            break;
          case O_DUMP:
            if ((st = set_string (&p->dump_file, argv[i + 1], err)))
              return st;
            break;
          case O_IMG:
            if ((st = set_string (&p->img_file, argv[i + 1], err)))
              return st;
            break;
          case O_MASK:
            if ((st = set_string (&p->mask_file, argv[i + 1], err)))
              return st;
            break;
          case O_STOLOUT:
            break; /* the reference never writes it */
          case O_STOL:
          case O_4STOL:
          case O_Q:
            if ((st = set_string (&p->stol_file, argv[i + 1], err)))
              return st;
            p->stol_kind = o->id == O_STOL    ? NB_STOL_STOL
                           : o->id == O_4STOL ? NB_STOL_4STOL
                                              : NB_STOL_Q;
            break;
          case O_SOURCEFILE:
            if ((st = set_string (&p->source_file, argv[i + 1], err)))
              return st;
            break;
          case O_FLOATFILE:
            if ((st = set_string (&p->floatfile, argv[i + 1], err)))
              return st;
            break;
          case O_INTFILE:
            if ((st = set_string (&p->intfile, argv[i + 1], err)))
              return st;
            break;
          case O_PGMFILE:
            if ((st = set_string (&p->pgmfile, argv[i + 1], err)))
              return st;
            p->write_pgm = 1;
            break;
          case O_NOISEFILE:
            if ((st = set_string (&p->noisefile, argv[i + 1], err)))
              return st;
            p->calculate_noise = 1;
            break;
          case O_PNGFILE:
            if ((st = set_string (&p->pngfile, argv[i + 1], err)))
              return st;
            break;
          case O_NONOISE:
            p->calculate_noise = 0;
            break;
          case O_NOPGM:
            p->write_pgm = 0;
            break;
          case O_SCALE:
            DBL (0);
            p->intfile_scale = d[0];
            break;
          case O_PGMSCALE:
            DBL (0);
            p->pgm_scale = d[0];
            p->write_pgm = 1;
            break;
          case O_COHERENT:
            break; /* parsed, no effect in the reference */
          case O_PRINTOUT:
            p->printout = 1;
            break;
          case O_PRINTOUT_PIXEL:
            INT (0);
            INT (1);
            p->printout = 1;
            p->printout_fpixel = (int) n[0];
            p->printout_spixel = (int) n[1];
            break;
          case O_NOPROGRESS:
            p->progress = 0;
            break;
          case O_PROGRESS:
            p->progress = 1;
            break;
          case O_INTERPOLATE:
            p->interpolate = 1;
            break;
          case O_NOINTERPOLATE:
            p->interpolate = 0;
            break;
          case O_ROUND_XTAL:
            p->shape = NB_SHAPE_ROUND;
            break;
          case O_SQUARE_XTAL:
            p->shape = NB_SHAPE_SQUARE;
            break;
          case O_GAUSS_XTAL:
            p->shape = NB_SHAPE_GAUSS;
            break;
          case O_TOPHAT:
            p->shape = NB_SHAPE_TOPHAT;
            break;
          case O_FUDGE:
            DBL (0);
            p->fudge = d[0];
            break;
          case O_SEED:
            INT (0);
            p->seed = -n[0];
            break;
          case O_MOSAIC_SEED:
            INT (0);
            p->mosaic_seed = -n[0];
            break;
          case O_MISSET_SEED:
            INT (0);
            p->misset_seed = -n[0];
            if (!p->physical && i + 3 < argc)
              {
                /* the reference's "-misset" handler also fires, reading the
               * seed and the next two tokens as angles (atof semantics). */
                p->misset_random = 0;
                p->misset[0] = c_strtod (argv[i + 1], NULL) / RTD;
                p->misset[1] = c_strtod (argv[i + 2], NULL) / RTD;
                p->misset[2] = c_strtod (argv[i + 3], NULL) / RTD;
                /* numbers after the seed were stray tokens to the reference */
                if (is_number_token (argv[i + 2]) && is_number_token (argv[i + 3]))
                  i += 2;
              }
            break;
          case O_WATER:
            DBL (0);
            p->water_size = d[0] / 1e6;
            break;
          case O_PRECISION:
            if (strcmp (argv[i + 1], "double") == 0)
              p->precision = NB_PRECISION_DOUBLE;
            else if (strcmp (argv[i + 1], "single") == 0)
              p->precision = NB_PRECISION_SINGLE;
            else if (strcmp (argv[i + 1], "exact") == 0)
              p->precision = NB_PRECISION_EXACT;
            else
              return nb_error_set (err, NB_ERR_USAGE,
                                   "-precision: '%s' is not one of double, single, exact",
                                   argv[i + 1]);
            break;
          case O_PHYSICAL:
            p->physical = 1;
            break;
          case O_LENIENT:
            break; /* seen before the loop */
          case O_STATS:
            p->stats = 1;
            break;
          case O_MEMORY_BUDGET:
            DBL (0);
            if (!(d[0] > 0.0))
              return nb_error_set (err, NB_ERR_USAGE, "%s: '%s' is not a positive number of MB",
                                   arg, argv[i + 1]);
            p->memory_budget = d[0] * 1e6;
            break;
          case O_BACKEND:
            /* whether this build and machine can run cuda is the plan's question */
            if (strcmp (argv[i + 1], "auto") == 0)
              p->backend = NB_BACKEND_AUTO;
            else if (strcmp (argv[i + 1], "cpu") == 0)
              p->backend = NB_BACKEND_CPU;
            else if (strcmp (argv[i + 1], "cuda") == 0)
              p->backend = NB_BACKEND_CUDA;
            else
              return nb_error_set (err, NB_ERR_UNSUPPORTED,
                                   "-backend: '%s' is not one of auto, cpu, cuda", argv[i + 1]);
            break;
        }
#undef DBL
#undef INT
#undef NONNEG_DBL
#undef NONNEG_INT
#undef POSITIVE_PIXELS
      if (o->nargs > 0)
        i += o->nargs;
    }
  return NB_OK;
}
