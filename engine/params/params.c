/* params.c: nb_params defaults, copies and clean-up.
 *
 * Source: nanoBragg.c main(), its declarations (defaults); cli.md §4.  What
 * each field means, and how flags set it, is the parameter table's
 * (param-table.c).
 */
#include "nb-param-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
  p->integration = NB_INTEGRATION_EXACT;
  p->tolerance = 1e-3;
}

void
nb_params_strings (nb_params *p, char **strings[NB_PARAMS_N_STRINGS])
{
  char **s[NB_PARAMS_N_STRINGS] = { &p->mat_file,  &p->hkl_file,     &p->dump_file,
                                    &p->stol_file, &p->source_file,  &p->img_file,
                                    &p->mask_file, &p->frame_file,   &p->floatfile,
                                    &p->intfile,   &p->pgmfile,      &p->noisefile,
                                    &p->pngfile,   &p->detector_file };

  memcpy (strings, s, sizeof s);
}

void
nb_params_clear (nb_params *p)
{
  char **strings[NB_PARAMS_N_STRINGS];

  nb_params_strings (p, strings);
  for (size_t i = 0; i < NB_PARAMS_N_STRINGS; i++)
    {
      free (*strings[i]);
      *strings[i] = NULL;
    }
}

nb_status
nb_params_copy (nb_params *dst, const nb_params *src, nb_error *err)
{
  char **strings[NB_PARAMS_N_STRINGS];

  *dst = *src;
  nb_params_strings (dst, strings);
  for (size_t i = 0; i < NB_PARAMS_N_STRINGS; i++)
    if (*strings[i] != NULL)
      {
        *strings[i] = strdup (*strings[i]);
        if (*strings[i] == NULL)
          {
            for (size_t j = i + 1; j < NB_PARAMS_N_STRINGS; j++)
              *strings[j] = NULL;
            nb_params_clear (dst);
            return nb_error_set (err, NB_ERR_NOMEM, "out of memory copying parameters");
          }
      }
  return NB_OK;
}
