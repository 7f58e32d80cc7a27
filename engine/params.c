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
#include "nb-io.h"

#include <errno.h>
#include <math.h>
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
}

#define OWNED_STRINGS(p)                                                                          \
  &(p)->mat_file, &(p)->hkl_file, &(p)->dump_file, &(p)->stol_file, &(p)->source_file,             \
    &(p)->img_file, &(p)->mask_file, &(p)->floatfile, &(p)->intfile, &(p)->pgmfile,                \
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

typedef enum
{
  F_EXACT,
  F_PREFIX, /* the reference matches this name as a substring: longer spellings work */
} match_kind;

typedef enum
{
  O_NA, O_NB, O_NC, O_N, O_CELL, O_MISSET, O_SAMPLESIZE, O_SAMPLE_X, O_SAMPLE_Y, O_SAMPLE_Z,
  O_IGNORED_1, O_XBEAM, O_YBEAM, O_XCLOSE, O_YCLOSE, O_ORGX, O_ORGY, O_PIVOT, O_MOSFLM, O_XDS,
  O_ADXV, O_DENZO, O_DIALS, O_FDET, O_SDET, O_ODET, O_BEAMVEC, O_POLARVEC, O_SPINDLE, O_TTAXIS,
  O_PIX0, O_DISTANCE, O_CLOSE_DISTANCE, O_DET_ABS, O_DET_THICK, O_DET_THICKSTEPS, O_TWOTHETA,
  O_ROTX, O_ROTY, O_ROTZ, O_DETSIZE, O_DETSIZE_F, O_DETSIZE_S, O_DETPIXELS, O_DETPIXELS_F,
  O_DETPIXELS_S, O_CURVED, O_PIXEL, O_POINT_PIXEL, O_POLAR, O_NOPOLAR, O_OS_THICK, O_OS_POLAR,
  O_OS_OMEGA, O_OVERSAMPLE, O_ROI, O_LAMBDA, O_ENERGY, O_FLUENCE, O_FLUX, O_EXPOSURE,
  O_BEAMSIZE, O_MOSAIC, O_MOSAIC_DOM, O_DISPERSION, O_DISPSTEPS, O_DIVERGENCE, O_HDIVRANGE,
  O_VDIVRANGE, O_HDIVSTEP, O_HDIVSTEPS, O_VDIVSTEP, O_VDIVSTEPS, O_DIVSTEPS, O_ROUND_DIV,
  O_SQUARE_DIV, O_ADC, O_PHI, O_OSC, O_PHISTEP, O_PHISTEPS, O_DMIN, O_MAT, O_HKL, O_DEFAULT_F,
  O_DUMP, O_IMG, O_MASK, O_STOLOUT, O_STOL, O_4STOL, O_Q, O_SOURCEFILE, O_FLOATFILE, O_INTFILE,
  O_PGMFILE, O_NOISEFILE, O_PNGFILE, O_NONOISE, O_NOPGM, O_SCALE, O_PGMSCALE, O_COHERENT,
  O_PRINTOUT, O_PRINTOUT_PIXEL, O_NOPROGRESS, O_PROGRESS, O_INTERPOLATE, O_NOINTERPOLATE,
  O_ROUND_XTAL, O_SQUARE_XTAL, O_GAUSS_XTAL, O_TOPHAT, O_FUDGE, O_SEED, O_MOSAIC_SEED,
  O_MISSET_SEED, O_WATER, O_PRECISION, O_PHYSICAL, O_STATS, O_BACKEND,
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

/* A token is a value, not a flag, if it does not start with '-' or it is a
 * number ("-5", "-.5", "-1e3"). */
static int
is_number_token (const char *s)
{
  char *end;

  if (s == NULL || *s == '\0')
    return 0;
  errno = 0;
  strtod (s, &end);
  return end != s && *end == '\0';
}

static nb_status
get_double (const char *flag, const char *value, double *out, nb_error *err)
{
  char *end;

  errno = 0;
  double v = strtod (value, &end);
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

/* Applies the keys of an SMV header (-img / -mask) as defaults.  Source:
 * nanoBragg.c header ingestion; physics.md §19.7. */
static nb_status
apply_smv_header (nb_params *p, const char *path, int is_mask, nb_error *err)
{
  nb_smv_file f;
  nb_status st = nb_read_smv (path, &f, err);
  double v = NAN;

  if (st != NB_OK)
    return st;
  if (f.size1 > 0)
    p->fpixels = f.size1;
  if (f.size2 > 0)
    p->spixels = f.size2;
  if (!isnan (v = nb_smv_value (&f, "PIXEL_SIZE")))
    p->pixel_size = v / 1000.0;
  p->detsize_f = p->pixel_size * p->fpixels;
  p->detsize_s = p->pixel_size * p->spixels;
  if (!isnan (v = nb_smv_value (&f, "DISTANCE")))
    p->distance = v / 1000.0;
  if (!isnan (v = nb_smv_value (&f, "CLOSE_DISTANCE")))
    p->close_distance = v / 1000.0;
  if (!isnan (v = nb_smv_value (&f, "WAVELENGTH")))
    p->lambda0 = v / 1e10;
  if (!isnan (v = nb_smv_value (&f, "BEAM_CENTER_X")))
    p->Xbeam = v / 1000.0;
  if (!isnan (v = nb_smv_value (&f, "BEAM_CENTER_Y")))
    p->Ybeam = is_mask ? p->detsize_s - v / 1000.0 : v / 1000.0;
  if (!isnan (v = nb_smv_value (&f, "ORGX")))
    p->ORGX = v;
  if (!isnan (v = nb_smv_value (&f, "ORGY")))
    p->ORGY = v;
  if (!isnan (v = nb_smv_value (&f, "PHI")))
    p->phi0 = v / RTD;
  if (!isnan (v = nb_smv_value (&f, "OSC_RANGE")))
    p->osc = v / RTD;
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
  nb_status st;

  nb_error_clear (err);
  if ((st = prescan_headers (p, argc, argv, err)) != NB_OK)
    return st;

  /* -physical changes how other flags act, so it is seen first. */
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "-physical") == 0)
      p->physical = 1;

  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];
      const option *o;
      double d[6] = { 0 };
      long n[4] = { 0 };
      int have;

      if (arg[0] != '-' || is_number_token (arg))
        return nb_error_set (err, NB_ERR_USAGE, "unexpected argument '%s' (not after a flag that takes it)", arg);
      o = find_option (arg);
      if (o == NULL)
        return nb_error_set (err, NB_ERR_USAGE, "unknown flag '%s' (see --help)", arg);

      have = 0;
      while (i + 1 + have < argc && have < 6
             && (argv[i + 1 + have][0] != '-' || is_number_token (argv[i + 1 + have])))
        have++;
      if (o->nargs > 0 && have < o->nargs)
        return nb_error_set (err, NB_ERR_USAGE, "%s needs %d value%s, got %d", arg, o->nargs,
                             o->nargs > 1 ? "s" : "", have);

      /* numeric flags: convert their values up front */
#define DBL(k)                                                                                    \
  do                                                                                               \
    if ((st = get_double (arg, argv[i + 1 + (k)], &d[k], err)) != NB_OK)                           \
      return st;                                                                                   \
  while (0)
#define INT(k)                                                                                    \
  do                                                                                               \
    if ((st = get_int (arg, argv[i + 1 + (k)], &n[k], err)) != NB_OK)                              \
      return st;                                                                                   \
  while (0)

      switch (o->id)
        {
        case O_NA: INT (0); p->Na = n[0]; break;
        case O_NB: INT (0); p->Nb = n[0]; break;
        case O_NC: INT (0); p->Nc = n[0]; break;
        case O_N: INT (0); p->Na = p->Nb = p->Nc = n[0]; break;
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
            return nb_error_set (err, NB_ERR_USAGE, "-misset needs three angles (degrees) or 'random'");
          DBL (0); DBL (1); DBL (2);
          p->misset_random = 0;
          p->misset[0] = d[0] / RTD;
          p->misset[1] = d[1] / RTD;
          p->misset[2] = d[2] / RTD;
          i += 3;
          continue;
        case O_SAMPLESIZE: DBL (0); p->sample_x = p->sample_y = p->sample_z = d[0] / 1000; break;
        case O_SAMPLE_X: DBL (0); p->sample_x = d[0] / 1000; break;
        case O_SAMPLE_Y: DBL (0); p->sample_y = d[0] / 1000; break;
        case O_SAMPLE_Z: DBL (0); p->sample_z = d[0] / 1000; break;
        case O_IGNORED_1: DBL (0); break;
        case O_XBEAM: DBL (0); p->Xbeam = d[0] / 1000.0; p->pivot = NB_PIVOT_BEAM; break;
        case O_YBEAM: DBL (0); p->Ybeam = d[0] / 1000.0; p->pivot = NB_PIVOT_BEAM; break;
        case O_XCLOSE: DBL (0); p->Xclose = d[0] / 1000.0; p->pivot = NB_PIVOT_SAMPLE; break;
        case O_YCLOSE: DBL (0); p->Yclose = d[0] / 1000.0; p->pivot = NB_PIVOT_SAMPLE; break;
        case O_ORGX: DBL (0); p->ORGX = d[0]; p->pivot = NB_PIVOT_SAMPLE; break;
        case O_ORGY: DBL (0); p->ORGY = d[0]; p->pivot = NB_PIVOT_SAMPLE; break;
        case O_PIVOT:
          if (strstr (argv[i + 1], "sample"))
            p->pivot = NB_PIVOT_SAMPLE;
          else if (strstr (argv[i + 1], "beam"))
            p->pivot = NB_PIVOT_BEAM;
          else
            return nb_error_set (err, NB_ERR_USAGE, "-pivot: '%s' is neither 'beam' nor 'sample'", argv[i + 1]);
          break;
        case O_MOSFLM: set_convention (p, NB_CONVENTION_MOSFLM, NB_PIVOT_BEAM); break;
        case O_XDS: set_convention (p, NB_CONVENTION_XDS, NB_PIVOT_SAMPLE); break;
        case O_ADXV: set_convention (p, NB_CONVENTION_ADXV, NB_PIVOT_BEAM); break;
        case O_DENZO: set_convention (p, NB_CONVENTION_DENZO, NB_PIVOT_BEAM); break;
        case O_DIALS: set_convention (p, NB_CONVENTION_DIALS, NB_PIVOT_BEAM); break;
        case O_FDET: case O_SDET: case O_ODET: case O_BEAMVEC: case O_POLARVEC: case O_SPINDLE:
        case O_TTAXIS: case O_PIX0:
          {
            double *v = o->id == O_FDET       ? p->fdet
                        : o->id == O_SDET     ? p->sdet
                        : o->id == O_ODET     ? p->odet
                        : o->id == O_BEAMVEC  ? p->beam
                        : o->id == O_POLARVEC ? p->polar_vector
                        : o->id == O_SPINDLE  ? p->spindle
                        : o->id == O_TTAXIS   ? p->twotheta_axis
                                              : p->pix0;
            DBL (0); DBL (1); DBL (2);
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
        case O_DISTANCE: DBL (0); p->distance = d[0] / 1000.0; p->pivot = NB_PIVOT_BEAM; break;
        case O_CLOSE_DISTANCE:
          DBL (0); p->close_distance = d[0] / 1000.0; p->pivot = NB_PIVOT_SAMPLE; break;
        case O_DET_ABS:
          if (strstr (argv[i + 1], "inf") != NULL)
            d[0] = 0.0;
          else
            DBL (0);
          if (d[0] == 0.0)
            {
              p->detector_mu = 0.0;
              p->detector_thick = 0.0; /* */
            }
          else
            p->detector_mu = 1.0 / (d[0] * 1e-6);
          break;
        case O_DET_THICK: DBL (0); p->detector_thick = d[0] * 1e-6; break;
        case O_DET_THICKSTEPS: INT (0); p->detector_thicksteps = (int) n[0]; break;
        case O_TWOTHETA: DBL (0); p->twotheta = d[0] / RTD; p->pivot = NB_PIVOT_SAMPLE; break;
        case O_ROTX: DBL (0); p->rotx = d[0] / RTD; break;
        case O_ROTY: DBL (0); p->roty = d[0] / RTD; break;
        case O_ROTZ: DBL (0); p->rotz = d[0] / RTD; break;
        case O_DETSIZE: DBL (0); p->detsize_f = p->detsize_s = d[0] / 1000.0; break;
        case O_DETSIZE_F: DBL (0); p->detsize_f = d[0] / 1000.0; break;
        case O_DETSIZE_S: DBL (0); p->detsize_s = d[0] / 1000.0; break;
        case O_DETPIXELS: INT (0); p->fpixels = p->spixels = (int) n[0]; break;
        case O_DETPIXELS_F: INT (0); p->fpixels = (int) n[0]; break;
        case O_DETPIXELS_S: INT (0); p->spixels = (int) n[0]; break;
        case O_CURVED: p->curved_det = 1; break;
        case O_PIXEL: DBL (0); p->pixel_size = d[0] / 1000.0; break;
        case O_POINT_PIXEL: p->point_pixel = 1; break;
        case O_POLAR: DBL (0); p->polarization = d[0]; p->nopolar = 0; break;
        case O_NOPOLAR: p->nopolar = 1; break;
        case O_OS_THICK: p->oversample_thick = 1; break;
        case O_OS_POLAR: p->oversample_polar = 1; break;
        case O_OS_OMEGA: p->oversample_omega = 1; break;
        case O_OVERSAMPLE: INT (0); p->oversample = (int) n[0]; break;
        case O_ROI:
          INT (0); INT (1); INT (2); INT (3);
          for (int k = 0; k < 4; k++)
            p->roi[k] = (int) n[k];
          break;
        case O_LAMBDA: DBL (0); p->lambda0 = d[0] / 1.0e10; break;
        case O_ENERGY:
          DBL (0);
          if (d[0] == 0.0)
            return nb_error_set (err, NB_ERR_USAGE, "-energy: must not be 0 eV");
          p->lambda0 = (12398.42 / d[0]) / 1.0e10;
          break;
        case O_FLUENCE: DBL (0); p->fluence = d[0]; break;
        case O_FLUX: DBL (0); p->flux = d[0]; break;
        case O_EXPOSURE: DBL (0); p->exposure = d[0]; break;
        case O_BEAMSIZE: DBL (0); p->beamsize = d[0] / 1000; break;
        case O_MOSAIC: DBL (0); p->mosaic_spread = d[0] / RTD; break;
        case O_MOSAIC_DOM: INT (0); p->mosaic_domains = (int) n[0]; break;
        case O_DISPERSION: DBL (0); p->dispersion = d[0] / 100.0; break;
        case O_DISPSTEPS: INT (0); p->dispsteps = (int) n[0]; break;
        case O_DIVERGENCE: DBL (0); p->hdivrange = p->vdivrange = d[0] / 1000.0; break;
        case O_HDIVRANGE: DBL (0); p->hdivrange = d[0] / 1000.0; break;
        case O_VDIVRANGE: DBL (0); p->vdivrange = d[0] / 1000.0; break;
        case O_HDIVSTEP: DBL (0); p->hdivstep = d[0] / 1000.0; break;
        case O_HDIVSTEPS: INT (0); p->hdivsteps = (int) n[0]; break;
        case O_VDIVSTEP: DBL (0); p->vdivstep = d[0] / 1000.0; break;
        case O_VDIVSTEPS: INT (0); p->vdivsteps = (int) n[0]; break;
        case O_DIVSTEPS: INT (0); p->hdivsteps = p->vdivsteps = (int) n[0]; break;
        case O_ROUND_DIV: p->round_div = 1; break;
        case O_SQUARE_DIV: p->round_div = 0; break;
        case O_ADC: DBL (0); p->adc = d[0]; break;
        case O_PHI: DBL (0); p->phi0 = d[0] / RTD; break;
        case O_OSC: DBL (0); p->osc = d[0] / RTD; break;
        case O_PHISTEP: DBL (0); p->phistep = d[0] / RTD; break;
        case O_PHISTEPS: INT (0); p->phisteps = (int) n[0]; break;
        case O_DMIN: DBL (0); p->dmin = d[0] * 1e-10; break;
        case O_MAT: if ((st = set_string (&p->mat_file, argv[i + 1], err))) return st; break;
        case O_HKL: if ((st = set_string (&p->hkl_file, argv[i + 1], err))) return st; break;
        case O_DEFAULT_F: DBL (0); p->default_F = d[0]; break;
        case O_DUMP: if ((st = set_string (&p->dump_file, argv[i + 1], err))) return st; break;
        case O_IMG: if ((st = set_string (&p->img_file, argv[i + 1], err))) return st; break;
        case O_MASK: if ((st = set_string (&p->mask_file, argv[i + 1], err))) return st; break;
        case O_STOLOUT: break; /* the reference never writes it */
        case O_STOL: case O_4STOL: case O_Q:
          if ((st = set_string (&p->stol_file, argv[i + 1], err)))
            return st;
          p->stol_kind = o->id == O_STOL ? NB_STOL_STOL : o->id == O_4STOL ? NB_STOL_4STOL : NB_STOL_Q;
          break;
        case O_SOURCEFILE: if ((st = set_string (&p->source_file, argv[i + 1], err))) return st; break;
        case O_FLOATFILE: if ((st = set_string (&p->floatfile, argv[i + 1], err))) return st; break;
        case O_INTFILE: if ((st = set_string (&p->intfile, argv[i + 1], err))) return st; break;
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
        case O_PNGFILE: if ((st = set_string (&p->pngfile, argv[i + 1], err))) return st; break;
        case O_NONOISE: p->calculate_noise = 0; break;
        case O_NOPGM: p->write_pgm = 0; break;
        case O_SCALE: DBL (0); p->intfile_scale = d[0]; break;
        case O_PGMSCALE: DBL (0); p->pgm_scale = d[0]; p->write_pgm = 1; break;
        case O_COHERENT: break; /* parsed, no effect in the reference */
        case O_PRINTOUT: p->printout = 1; break;
        case O_PRINTOUT_PIXEL:
          INT (0); INT (1);
          p->printout = 1;
          p->printout_fpixel = (int) n[0];
          p->printout_spixel = (int) n[1];
          break;
        case O_NOPROGRESS: p->progress = 0; break;
        case O_PROGRESS: p->progress = 1; break;
        case O_INTERPOLATE: p->interpolate = 1; break;
        case O_NOINTERPOLATE: p->interpolate = 0; break;
        case O_ROUND_XTAL: p->shape = NB_SHAPE_ROUND; break;
        case O_SQUARE_XTAL: p->shape = NB_SHAPE_SQUARE; break;
        case O_GAUSS_XTAL: p->shape = NB_SHAPE_GAUSS; break;
        case O_TOPHAT: p->shape = NB_SHAPE_TOPHAT; break;
        case O_FUDGE: DBL (0); p->fudge = d[0]; break;
        case O_SEED: INT (0); p->seed = -n[0]; break;
        case O_MOSAIC_SEED: INT (0); p->mosaic_seed = -n[0]; break;
        case O_MISSET_SEED:
          INT (0);
          p->misset_seed = -n[0];
          if (!p->physical && i + 3 < argc)
            {
              /* the reference's "-misset" handler also fires, reading the
               * seed and the next two tokens as angles (atof semantics). */
              p->misset_random = 0;
              p->misset[0] = atof (argv[i + 1]) / RTD;
              p->misset[1] = atof (argv[i + 2]) / RTD;
              p->misset[2] = atof (argv[i + 3]) / RTD;
              /* numbers after the seed were stray tokens to the reference */
              if (is_number_token (argv[i + 2]) && is_number_token (argv[i + 3]))
                i += 2;
            }
          break;
        case O_WATER: DBL (0); p->water_size = d[0] / 1e6; break;
        case O_PRECISION:
          if (strcmp (argv[i + 1], "double") == 0)
            p->precision = NB_PRECISION_DOUBLE;
          else if (strcmp (argv[i + 1], "single") == 0)
            p->precision = NB_PRECISION_SINGLE;
          else
            return nb_error_set (err, NB_ERR_USAGE, "-precision: '%s' is neither 'single' nor 'double'", argv[i + 1]);
          break;
        case O_PHYSICAL: p->physical = 1; break;
        case O_STATS: p->stats = 1; break;
        case O_BACKEND:
          if (strcmp (argv[i + 1], "cpu") != 0 && strcmp (argv[i + 1], "auto") != 0)
            return nb_error_set (err, NB_ERR_UNSUPPORTED, "-backend: '%s' is not available in this build (cpu, auto)", argv[i + 1]);
          break;
        }
#undef DBL
#undef INT
      if (o->nargs > 0)
        i += o->nargs;
    }
  return NB_OK;
}
