/* params-format.c: nb_params back to nanoBragg command-line flags.
 *
 * The inverse of nb_params_parse_argv() (params.c): for every field that
 * differs from nb_params_init()'s defaults, the flag that sets it, in the
 * units the parser reads.  Three things make this more than a printf loop:
 *
 *  - Units.  The parser converts (mm -> m is "/ 1000", degrees -> rad is
 *    "/ RTD"), and a decimal string of value*1000 does not always divide back
 *    to the same double.  Each number is written as the shortest of %.15g,
 *    %.16g, %.17g that converts back to the same bits, searching the
 *    neighbouring doubles when none does.
 *  - Side effects.  Several flags set more than their field (-distance and
 *    -Xbeam set the pivot, the vectors set the CUSTOM convention, -polar
 *    clears -nopolar, -noisefile sets noise output on, -twotheta_axis also
 *    sets two-theta unless -physical: Q-30).  Flags are emitted in an order
 *    where later flags repair what earlier ones implied, tracked below.
 *  - Seeds.  A seed is written only where it changes the result: the misset
 *    seed with -misset random, the mosaic seed when several mosaic domains
 *    with a spread are drawn (or a noise image continues its generator), the
 *    noise seed when a noise image is written.  Their defaults depend on the
 *    time, so an omitted seed is one that does not matter.  -misset_seed is
 *    never the last flag: unless -physical, its handler also reads its value
 *    and the next two tokens as misset angles when two more follow, so
 *    a command line ending in it would change when flags are appended.  It is
 *    written just before "-misset random", which makes the angles irrelevant,
 *    and those angles are not written at all.
 *
 * Fields without a flag (dispstep, detector_thickstep) and values the parser
 * cannot produce (a fractional -N, a file name starting with '-') are not
 * represented.
 */
#include "nanobragg.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RTD (180.0 * M_1_PI)

typedef struct
{
  char **v;
  int n, cap;
  int oom;
} argv_builder;

static void
push (argv_builder *b, const char *s)
{
  char *copy;

  if (b->oom)
    return;
  if (b->n + 2 > b->cap)
    {
      int cap = b->cap ? b->cap * 2 : 64;
      char **v = realloc (b->v, (size_t) cap * sizeof (char *));

      if (v == NULL)
        {
          b->oom = 1;
          return;
        }
      b->v = v;
      b->cap = cap;
    }
  copy = strdup (s);
  if (copy == NULL)
    {
      b->oom = 1;
      return;
    }
  b->v[b->n++] = copy;
  b->v[b->n] = NULL;
}

/* How the parser turns the number it reads (x) into the field (in m, rad...). */
typedef enum
{
  U_ONE,      /* field = x */
  U_DIV,      /* field = x / k */
  U_MUL,      /* field = x * k */
  U_INV_MICRO /* field = 1 / (x * 1e-6): -detector_abs (attenuation length in um) */
} unit_kind;

typedef struct
{
  unit_kind kind;
  double k;
} unit;

static const unit ONE = { U_ONE, 1.0 };
static const unit MM = { U_DIV, 1000.0 };
static const unit DEG = { U_DIV, RTD };
static const unit MRAD = { U_DIV, 1000.0 };
static const unit ANGSTROM = { U_DIV, 1.0e10 };
static const unit PERCENT = { U_DIV, 100.0 };
static const unit UM_DIV = { U_DIV, 1e6 };    /* -water */
static const unit UM_MUL = { U_MUL, 1e-6 };   /* -detector_thick */
static const unit ANG_MUL = { U_MUL, 1e-10 }; /* -dmin */
static const unit ABS_UM = { U_INV_MICRO, 1e-6 };
static const unit MB = { U_MUL, 1e6 }; /* -memory_budget */

static double
unit_apply (unit u, double x)
{
  switch (u.kind)
    {
      case U_ONE:
        return x;
      case U_DIV:
        return x / u.k;
      case U_MUL:
        return x * u.k;
      case U_INV_MICRO:
        return 1.0 / (x * u.k);
    }
  return x;
}

static double
unit_invert (unit u, double v)
{
  switch (u.kind)
    {
      case U_ONE:
        return v;
      case U_DIV:
        return v * u.k;
      case U_MUL:
        return v / u.k;
      case U_INV_MICRO:
        return 1.0 / (v * u.k);
    }
  return v;
}

static int
same_double (double a, double b)
{
  if (isnan (a) || isnan (b))
    return isnan (a) && isnan (b);
  return a == b && signbit (a) == signbit (b);
}

/* Does the decimal @s, read as the parser reads it, give back exactly @v? */
static int
reads_back (const char *s, unit u, double v)
{
  char *end;
  double x = strtod (s, &end);

  return *end == '\0' && isfinite (x) && same_double (unit_apply (u, x), v);
}

/* Writes into @buf (at least 32 bytes) a number the parser turns into @v. */
static void
format_exact (char *buf, size_t size, double v, unit u)
{
  double x0 = unit_invert (u, v);
  double up = x0, down = x0;

  for (int digits = 15; digits <= 17; digits++)
    {
      snprintf (buf, size, "%.*g", digits, x0);
      if (reads_back (buf, u, v))
        return;
    }
  /* the conversion rounded: one of the neighbouring doubles converts exactly */
  for (int step = 0; step < 64; step++)
    {
      up = nextafter (up, INFINITY);
      snprintf (buf, size, "%.17g", up);
      if (reads_back (buf, u, v))
        return;
      down = nextafter (down, -INFINITY);
      snprintf (buf, size, "%.17g", down);
      if (reads_back (buf, u, v))
        return;
    }
  snprintf (buf, size, "%.17g", x0); /* not representable exactly: the nearest */
}

static void
push_number (argv_builder *b, double v, unit u)
{
  char buf[64];

  format_exact (buf, sizeof buf, v, u);
  push (b, buf);
}

static void
push_long (argv_builder *b, long n)
{
  char buf[32];

  snprintf (buf, sizeof buf, "%ld", n);
  push (b, buf);
}

static void
flag_number (argv_builder *b, const char *flag, double v, unit u)
{
  push (b, flag);
  push_number (b, v, u);
}

static void
flag_long (argv_builder *b, const char *flag, long n)
{
  push (b, flag);
  push_long (b, n);
}

static void
flag_string (argv_builder *b, const char *flag, const char *s)
{
  push (b, flag);
  push (b, s);
}

static void
flag_vector (argv_builder *b, const char *flag, const double v[3])
{
  push (b, flag);
  for (int k = 0; k < 3; k++)
    push_number (b, v[k], ONE);
}

static int
same_vector (const double a[3], const double b[3])
{
  return same_double (a[0], b[0]) && same_double (a[1], b[1]) && same_double (a[2], b[2]);
}

static int
same_string (const char *a, const char *b)
{
  return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp (a, b) == 0);
}

/* Whether the mosaic seed changes anything.  It draws the domains'
 * orientations, which matter when there is more than one domain with a
 * spread (a spread without a domain count means 10 domains, sources.c); and
 * a noise image whose seed is positive (given negative: -seed -N) continues
 * the generator table the mosaic draws left (nb_image_to_noise). */
static int
mosaic_seed_matters (const nb_params *p)
{
  if (p->mosaic_spread > 0.0 && p->mosaic_domains != 1)
    return 1;
  return p->calculate_noise && p->seed > 0;
}

/* A double field: its flag when it differs from the default. */
#define DOUBLE_FLAG(flag, field, u)                                                                \
  do                                                                                               \
    if (!same_double (p->field, d.field))                                                          \
      flag_number (&b, flag, p->field, u);                                                         \
  while (0)

#define INT_FLAG(flag, field)                                                                      \
  do                                                                                               \
    if (p->field != d.field)                                                                       \
      flag_long (&b, flag, (long) p->field);                                                       \
  while (0)

#define STRING_FLAG(flag, field)                                                                   \
  do                                                                                               \
    if (p->field != NULL && !same_string (p->field, d.field))                                      \
      flag_string (&b, flag, p->field);                                                            \
  while (0)

#define SWITCH_FLAG(flag, field)                                                                   \
  do                                                                                               \
    if (p->field && !d.field)                                                                      \
      push (&b, flag);                                                                             \
  while (0)

/* A pair of fields with a flag each and one for both (-detpixels, -divergence...). */
static void
pair_flags (argv_builder *b,
            const char *both,
            const char *first,
            const char *second,
            double v1,
            double v2,
            double d1,
            double d2,
            unit u,
            int integer)
{
  int diff1 = !same_double (v1, d1), diff2 = !same_double (v2, d2);

  if (diff1 && diff2 && same_double (v1, v2) && both != NULL)
    {
      if (integer)
        flag_long (b, both, (long) v1);
      else
        flag_number (b, both, v1, u);
      return;
    }
  if (diff1)
    {
      if (integer)
        flag_long (b, first, (long) v1);
      else
        flag_number (b, first, v1, u);
    }
  if (diff2)
    {
      if (integer)
        flag_long (b, second, (long) v2);
      else
        flag_number (b, second, v2, u);
    }
}

static char **
format_argv (const nb_params *p, int *argc)
{
  argv_builder b = { 0 };
  nb_params d;
  /* what the flags written so far leave in the fields several flags set */
  nb_convention convention;
  nb_pivot pivot;
  double twotheta, detector_thick;
  int headers = p->img_file != NULL || p->mask_file != NULL;

  nb_params_init (&d);
  convention = d.convention;
  pivot = d.pivot;
  twotheta = d.twotheta;
  detector_thick = d.detector_thick;

  push (&b, "nanobragg");
  SWITCH_FLAG ("-physical", physical);

  /* -img/-mask headers are applied before every other flag, whatever their
   * position; the fields they set are then written out in full below. */
  STRING_FLAG ("-mask", mask_file);
  STRING_FLAG ("-img", img_file);
  if (headers)
    {
      /* compare against values no field can hold, so each is written */
      d.fpixels = d.spixels = -1;
      d.pixel_size = d.detsize_f = d.detsize_s = d.distance = d.lambda0 = NAN;
      d.phi0 = d.osc = NAN;
    }

  /* ---- crystal ---- */
  {
    int cell_differs = 0;

    for (int k = 0; k < 6; k++)
      cell_differs |= !same_double (p->cell[k], d.cell[k]);
    if (cell_differs)
      {
        push (&b, "-cell");
        for (int k = 0; k < 6; k++)
          push_number (&b, p->cell[k], k < 3 ? ONE : DEG);
      }
  }
  STRING_FLAG ("-mat", mat_file);
  if (p->misset_random)
    {
      /* the angles are drawn from the seed: the ones Q-29 sets here are not used */
      flag_long (&b, "-misset_seed", -p->misset_seed);
      push (&b, "-misset");
      push (&b, "random");
    }
  else if (!same_vector (p->misset, d.misset))
    {
      push (&b, "-misset");
      for (int k = 0; k < 3; k++)
        push_number (&b, p->misset[k], DEG);
    }
  if (same_double (p->Na, p->Nb) && same_double (p->Na, p->Nc))
    DOUBLE_FLAG ("-N", Na, ONE);
  else
    {
      DOUBLE_FLAG ("-Na", Na, ONE);
      DOUBLE_FLAG ("-Nb", Nb, ONE);
      DOUBLE_FLAG ("-Nc", Nc, ONE);
    }
  DOUBLE_FLAG ("-sample_x", sample_x, MM);
  DOUBLE_FLAG ("-sample_y", sample_y, MM);
  DOUBLE_FLAG ("-sample_z", sample_z, MM);
  switch (p->shape)
    {
      case NB_SHAPE_SQUARE:
        break;
      case NB_SHAPE_ROUND:
        push (&b, "-round_xtal");
        break;
      case NB_SHAPE_GAUSS:
        push (&b, "-gauss_xtal");
        break;
      case NB_SHAPE_TOPHAT:
        push (&b, "-tophat_spots");
        break;
    }
  DOUBLE_FLAG ("-fudge", fudge, ONE);
  DOUBLE_FLAG ("-mosaic", mosaic_spread, DEG);
  INT_FLAG ("-mosaic_domains", mosaic_domains);
  if (mosaic_seed_matters (p))
    flag_long (&b, "-mosaic_seed", -p->mosaic_seed);
  if (p->interpolate == 0)
    push (&b, "-nointerpolate");
  else if (p->interpolate == 1)
    push (&b, "-interpolate");
  STRING_FLAG ("-hkl", hkl_file);
  STRING_FLAG ("-dump", dump_file);
  DOUBLE_FLAG ("-default_F", default_F, ONE);
  if (p->stol_file != NULL)
    flag_string (&b,
                 p->stol_kind == NB_STOL_4STOL ? "-4stol"
                 : p->stol_kind == NB_STOL_Q   ? "-Q"
                                               : "-stol",
                 p->stol_file);

  /* ---- beam ---- */
  DOUBLE_FLAG ("-lambda", lambda0, ANGSTROM);
  DOUBLE_FLAG ("-dispersion", dispersion, PERCENT);
  INT_FLAG ("-dispsteps", dispsteps);
  pair_flags (&b, "-divergence", "-hdivrange", "-vdivrange", p->hdivrange, p->vdivrange,
              d.hdivrange, d.vdivrange, MRAD, 0);
  pair_flags (&b, NULL, "-hdivstep", "-vdivstep", p->hdivstep, p->vdivstep, d.hdivstep, d.vdivstep,
              MRAD, 0);
  pair_flags (&b, "-divsteps", "-hdivsteps", "-vdivsteps", p->hdivsteps, p->vdivsteps, d.hdivsteps,
              d.vdivsteps, ONE, 1);
  if (!p->round_div)
    push (&b, "-square_div");
  STRING_FLAG ("-sourcefile", source_file);
  DOUBLE_FLAG ("-fluence", fluence, ONE);
  DOUBLE_FLAG ("-flux", flux, ONE);
  DOUBLE_FLAG ("-exposure", exposure, ONE);
  DOUBLE_FLAG ("-beamsize", beamsize, MM);
  DOUBLE_FLAG ("-polar", polarization, ONE); /* clears -nopolar: written before it */
  SWITCH_FLAG ("-nopolar", nopolar);
  DOUBLE_FLAG ("-water", water_size, UM_DIV);

  /* ---- detector ---- */
  {
    static const char *names[] = { "-fdet_vector", "-sdet_vector",  "-odet_vector",
                                   "-beam_vector", "-polar_vector", "-spindle_axis",
                                   "-pix0_vector", "-twotheta_axis" };
    const double *pv[] = { p->fdet,         p->sdet,    p->odet, p->beam,
                           p->polar_vector, p->spindle, p->pix0, p->twotheta_axis };
    const double *dv[] = { d.fdet,         d.sdet,    d.odet, d.beam,
                           d.polar_vector, d.spindle, d.pix0, d.twotheta_axis };

    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
      if (!same_vector (pv[k], dv[k]))
        {
          flag_vector (&b, names[k], pv[k]);
          convention = NB_CONVENTION_CUSTOM;
          if (pv[k] == p->twotheta_axis && !p->physical)
            {
              twotheta = p->twotheta_axis[0] / RTD; /* */
              pivot = NB_PIVOT_SAMPLE;
            }
        }
    if (p->convention != convention)
      {
        switch (p->convention)
          {
            case NB_CONVENTION_CUSTOM:
              /* any vector flag selects CUSTOM; this one restates the default */
              flag_vector (&b, "-fdet_vector", p->fdet);
              break;
            case NB_CONVENTION_ADXV:
              push (&b, "-adxv");
              pivot = NB_PIVOT_BEAM;
              break;
            case NB_CONVENTION_MOSFLM:
              push (&b, "-mosflm");
              pivot = NB_PIVOT_BEAM;
              break;
            case NB_CONVENTION_XDS:
              push (&b, "-xds");
              pivot = NB_PIVOT_SAMPLE;
              break;
            case NB_CONVENTION_DIALS:
              push (&b, "-dials");
              pivot = NB_PIVOT_BEAM;
              break;
            case NB_CONVENTION_DENZO:
              push (&b, "-denzo");
              pivot = NB_PIVOT_BEAM;
              break;
          }
      }
  }
  DOUBLE_FLAG ("-pixel", pixel_size, MM);
  pair_flags (&b, "-detpixels", "-detpixels_f", "-detpixels_s", p->fpixels, p->spixels, d.fpixels,
              d.spixels, ONE, 1);
  pair_flags (&b, "-detsize", "-detsize_f", "-detsize_s", p->detsize_f, p->detsize_s, d.detsize_f,
              d.detsize_s, MM, 0);
  if (!same_double (p->distance, d.distance))
    {
      flag_number (&b, "-distance", p->distance, MM);
      pivot = NB_PIVOT_BEAM;
    }
  if (!isnan (p->close_distance))
    {
      flag_number (&b, "-close_distance", p->close_distance, MM);
      pivot = NB_PIVOT_SAMPLE;
    }
  if (!isnan (p->Xbeam))
    {
      flag_number (&b, "-Xbeam", p->Xbeam, MM);
      pivot = NB_PIVOT_BEAM;
    }
  if (!isnan (p->Ybeam))
    {
      flag_number (&b, "-Ybeam", p->Ybeam, MM);
      pivot = NB_PIVOT_BEAM;
    }
  if (!isnan (p->Xclose))
    {
      flag_number (&b, "-Xclose", p->Xclose, MM);
      pivot = NB_PIVOT_SAMPLE;
    }
  if (!isnan (p->Yclose))
    {
      flag_number (&b, "-Yclose", p->Yclose, MM);
      pivot = NB_PIVOT_SAMPLE;
    }
  if (!isnan (p->ORGX))
    {
      flag_number (&b, "-ORGX", p->ORGX, ONE);
      pivot = NB_PIVOT_SAMPLE;
    }
  if (!isnan (p->ORGY))
    {
      flag_number (&b, "-ORGY", p->ORGY, ONE);
      pivot = NB_PIVOT_SAMPLE;
    }
  DOUBLE_FLAG ("-detector_rotx", rotx, DEG);
  DOUBLE_FLAG ("-detector_roty", roty, DEG);
  DOUBLE_FLAG ("-detector_rotz", rotz, DEG);
  if (!same_double (p->twotheta, twotheta))
    {
      flag_number (&b, "-twotheta", p->twotheta, DEG);
      pivot = NB_PIVOT_SAMPLE;
    }
  SWITCH_FLAG ("-curved_det", curved_det);
  SWITCH_FLAG ("-point_pixel", point_pixel);
  if (!same_double (p->detector_mu, d.detector_mu))
    {
      if (p->detector_mu == 0.0)
        {
          flag_string (&b, "-detector_abs", "inf");
          detector_thick = 0.0; /* */
        }
      else
        flag_number (&b, "-detector_abs", p->detector_mu, ABS_UM);
    }
  if (!same_double (p->detector_thick, detector_thick))
    flag_number (&b, "-detector_thick", p->detector_thick, UM_MUL);
  INT_FLAG ("-detector_thicksteps", detector_thicksteps);
  if (memcmp (p->roi, d.roi, sizeof p->roi) != 0)
    {
      push (&b, "-roi");
      for (int k = 0; k < 4; k++)
        push_long (&b, p->roi[k]);
    }
  if (p->pivot != pivot)
    flag_string (&b, "-pivot", p->pivot == NB_PIVOT_SAMPLE ? "sample" : "beam");

  /* ---- sampling ---- */
  DOUBLE_FLAG ("-phi", phi0, DEG);
  DOUBLE_FLAG ("-osc", osc, DEG);
  DOUBLE_FLAG ("-phistep", phistep, DEG);
  INT_FLAG ("-phisteps", phisteps);
  INT_FLAG ("-oversample", oversample);
  SWITCH_FLAG ("-oversample_thick", oversample_thick);
  SWITCH_FLAG ("-oversample_polar", oversample_polar);
  SWITCH_FLAG ("-oversample_omega", oversample_omega);
  DOUBLE_FLAG ("-dmin", dmin, ANG_MUL);

  /* ---- output: names first, since -pgmfile/-noisefile/-pgmscale switch output on ---- */
  if (p->calculate_noise)
    flag_long (&b, "-seed", -p->seed);
  STRING_FLAG ("-floatfile", floatfile);
  STRING_FLAG ("-intfile", intfile);
  STRING_FLAG ("-pgmfile", pgmfile);
  STRING_FLAG ("-noisefile", noisefile);
  STRING_FLAG ("-pngfile", pngfile);
  DOUBLE_FLAG ("-scale", intfile_scale, ONE);
  DOUBLE_FLAG ("-pgmscale", pgm_scale, ONE);
  if (!p->write_pgm)
    push (&b, "-nopgm");
  if (!p->calculate_noise)
    push (&b, "-nonoise");
  DOUBLE_FLAG ("-adc", adc, ONE);
  if (p->printout_fpixel != d.printout_fpixel || p->printout_spixel != d.printout_spixel)
    {
      push (&b, "-printout_pixel");
      push_long (&b, p->printout_fpixel);
      push_long (&b, p->printout_spixel);
    }
  else
    SWITCH_FLAG ("-printout", printout);
  if (!p->progress)
    push (&b, "-noprogress");

  /* ---- Braggscope ---- */
  if (p->precision == NB_PRECISION_SINGLE)
    flag_string (&b, "-precision", "single");
  else if (p->precision == NB_PRECISION_EXACT)
    flag_string (&b, "-precision", "exact");
  DOUBLE_FLAG ("-memory_budget", memory_budget, MB);
  if (p->backend != d.backend)
    flag_string (&b, "-backend",
                 p->backend == NB_BACKEND_CPU    ? "cpu"
                 : p->backend == NB_BACKEND_CUDA ? "cuda"
                                                 : "auto");
  SWITCH_FLAG ("-stats", stats);

  nb_params_clear (&d);
  if (b.oom)
    {
      nb_argv_free (b.v);
      return NULL;
    }
  if (argc != NULL)
    *argc = b.n;
  return b.v;
}

#undef DOUBLE_FLAG
#undef INT_FLAG
#undef STRING_FLAG
#undef SWITCH_FLAG

char **
nb_params_to_argv (const nb_params *p, int *argc)
{
  /* "1.5", never "1,5": snprintf() and strtod() follow the thread's locale,
   * which a GUI host may have set to one with a decimal comma; uselocale()
   * changes only this thread. */
  locale_t c = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
  locale_t old = c != (locale_t) 0 ? uselocale (c) : (locale_t) 0;
  char **argv = format_argv (p, argc);

  if (c != (locale_t) 0)
    {
      uselocale (old);
      freelocale (c);
    }
  return argv;
}

void
nb_argv_free (char **argv)
{
  if (argv == NULL)
    return;
  for (char **s = argv; *s != NULL; s++)
    free (*s);
  free (argv);
}
