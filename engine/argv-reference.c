/* argv-reference.c: nanoBragg's argument matching, as a table, for the
 * parser's lenient mode: an unknown word is skipped only where nanoBragg skips
 * it too.  Source: nanoBragg.c main(), the -img/-mask pre-scan and the
 * argument loop (cli.md §1, §2.7).
 */
#include "nb-argv.h"

#include <string.h>

typedef enum
{
  M_ANYWHERE, /* strstr (word, name) */
  M_EXACT,    /* strcmp (word, name) == 0 */
  M_LENGTH,   /* strstr, and the word is exactly @len bytes long */
  M_LONGER,   /* strstr, and the word is longer than @len bytes */
} reference_match;

typedef struct
{
  const char *name;
  reference_match match;
  unsigned char len;
} reference_flag;

/* Every test of the reference's loop, in its order; a word that passes one of
 * them is acted on. */
static const reference_flag reference_flags[] = {
  { "-Na", M_ANYWHERE, 0 },
  { "-Nb", M_ANYWHERE, 0 },
  { "-Nc", M_ANYWHERE, 0 },
  { "-N", M_EXACT, 0 },
  { "-cell", M_ANYWHERE, 0 },
  { "-misset", M_ANYWHERE, 0 },
  { "-samplesize", M_ANYWHERE, 0 },
  { "-sample_size", M_ANYWHERE, 0 },
  { "-sample_thick", M_ANYWHERE, 0 },
  { "-sample_x", M_ANYWHERE, 0 },
  { "-sample_width", M_ANYWHERE, 0 },
  { "-sample_y", M_ANYWHERE, 0 },
  { "-width", M_ANYWHERE, 0 },
  { "-sample_heigh", M_ANYWHERE, 0 },
  { "-sample_z", M_ANYWHERE, 0 },
  { "-heigh", M_ANYWHERE, 0 },
  { "-xtalsize", M_ANYWHERE, 0 },
  { "-xtal_size", M_ANYWHERE, 0 },
  { "-xtal_thick", M_ANYWHERE, 0 },
  { "-xtal_x", M_ANYWHERE, 0 },
  { "-xtal_width", M_ANYWHERE, 0 },
  { "-xtal_y", M_ANYWHERE, 0 },
  { "-xtal_heigh", M_ANYWHERE, 0 },
  { "-xtal_z", M_ANYWHERE, 0 },
  { "-density", M_ANYWHERE, 0 },
  { "-sample_den", M_ANYWHERE, 0 },
  { "-MW", M_EXACT, 0 },
  { "-molec", M_ANYWHERE, 0 },
  { "-Xbeam", M_ANYWHERE, 0 },
  { "-Ybeam", M_ANYWHERE, 0 },
  { "-Xclose", M_ANYWHERE, 0 },
  { "-Yclose", M_ANYWHERE, 0 },
  { "-ORGX", M_ANYWHERE, 0 },
  { "-ORGY", M_ANYWHERE, 0 },
  { "-pivot", M_ANYWHERE, 0 },
  { "-mosflm", M_ANYWHERE, 0 },
  { "-xds", M_ANYWHERE, 0 },
  { "-adxv", M_ANYWHERE, 0 },
  { "-denzo", M_ANYWHERE, 0 },
  { "-dials", M_ANYWHERE, 0 },
  { "-fdet_vector", M_ANYWHERE, 0 },
  { "-sdet_vector", M_ANYWHERE, 0 },
  { "-odet_vector", M_ANYWHERE, 0 },
  { "-beam_vector", M_ANYWHERE, 0 },
  { "-polar_vector", M_ANYWHERE, 0 },
  { "-spindle_axis", M_ANYWHERE, 0 },
  { "-twotheta_axis", M_ANYWHERE, 0 },
  { "-pix0_vector", M_ANYWHERE, 0 },
  { "-distance", M_ANYWHERE, 0 },
  { "-close_distance", M_ANYWHERE, 0 },
  { "-detector_abs", M_ANYWHERE, 0 },
  { "-detector_thick", M_LENGTH, 15 },
  { "-detector_thicksteps", M_ANYWHERE, 0 },
  { "-thicksteps", M_ANYWHERE, 0 },
  { "-twotheta", M_ANYWHERE, 0 },
  { "-detector_rotx", M_ANYWHERE, 0 },
  { "-detector_roty", M_ANYWHERE, 0 },
  { "-detector_rotz", M_ANYWHERE, 0 },
  { "-detsize", M_LENGTH, 8 },
  { "-detsize_f", M_ANYWHERE, 0 },
  { "-detsize_s", M_ANYWHERE, 0 },
  { "-detpixels", M_LENGTH, 10 },
  { "-detpixels_f", M_ANYWHERE, 0 },
  { "-detpixels_x", M_ANYWHERE, 0 },
  { "-detpixels_s", M_ANYWHERE, 0 },
  { "-detpixels_y", M_ANYWHERE, 0 },
  { "-curved_det", M_ANYWHERE, 0 },
  { "-pixel", M_ANYWHERE, 0 },
  { "-point_pixel", M_ANYWHERE, 0 },
  { "-polar", M_LENGTH, 6 },
  { "-nopolar", M_ANYWHERE, 0 },
  { "-oversample_thick", M_ANYWHERE, 0 },
  { "-oversample_polar", M_ANYWHERE, 0 },
  { "-oversample_omega", M_ANYWHERE, 0 },
  { "-oversample", M_ANYWHERE, 0 },
  { "-roi", M_ANYWHERE, 0 },
  { "-lambda", M_ANYWHERE, 0 },
  { "-wave", M_ANYWHERE, 0 },
  { "-energy", M_ANYWHERE, 0 },
  { "-fluence", M_ANYWHERE, 0 },
  { "-flux", M_ANYWHERE, 0 },
  { "-exposure", M_ANYWHERE, 0 },
  { "-beamsize", M_ANYWHERE, 0 },
  { "-mosaic", M_LENGTH, 7 },
  { "-mosaici", M_ANYWHERE, 0 },
  { "-mosaic_spr", M_ANYWHERE, 0 },
  { "-mosaic_dom", M_ANYWHERE, 0 },
  { "-dispersion", M_ANYWHERE, 0 },
  { "-dispsteps", M_ANYWHERE, 0 },
  { "-divergence", M_ANYWHERE, 0 },
  { "-hdivrange", M_ANYWHERE, 0 },
  { "-vdivrange", M_ANYWHERE, 0 },
  { "-hdivstep", M_LENGTH, 9 },
  { "-hdivsteps", M_ANYWHERE, 0 },
  { "-vdivstep", M_LENGTH, 9 },
  { "-vdivsteps", M_ANYWHERE, 0 },
  { "-divsteps", M_ANYWHERE, 0 },
  { "-round_div", M_ANYWHERE, 0 },
  { "-square_div", M_ANYWHERE, 0 },
  { "-adc", M_ANYWHERE, 0 },
  { "-phi", M_LENGTH, 4 },
  { "-osc", M_ANYWHERE, 0 },
  { "-phistep", M_LENGTH, 8 },
  { "-phisteps", M_ANYWHERE, 0 },
  { "-dmin", M_ANYWHERE, 0 },
  { "-mat", M_ANYWHERE, 0 },
  { "-hkl", M_ANYWHERE, 0 },
  { "-default_F", M_ANYWHERE, 0 },
  { "-dump", M_ANYWHERE, 0 },
  { "-img", M_ANYWHERE, 0 },
  { "-mask", M_ANYWHERE, 0 }, /* the pre-scan */
  { "-stolout", M_LONGER, 7 },
  { "-stol", M_LENGTH, 5 },
  { "-4stol", M_LENGTH, 6 },
  { "-Q", M_LENGTH, 2 },
  { "-sourcefile", M_ANYWHERE, 0 },
  { "-floatfile", M_ANYWHERE, 0 },
  { "-floatimage", M_ANYWHERE, 0 },
  { "-intfile", M_ANYWHERE, 0 },
  { "-intimage", M_ANYWHERE, 0 },
  { "-pgmfile", M_ANYWHERE, 0 },
  { "-pgmimage", M_ANYWHERE, 0 },
  { "-noisefile", M_ANYWHERE, 0 },
  { "-noiseimage", M_ANYWHERE, 0 },
  { "-nonoise", M_ANYWHERE, 0 },
  { "-nopgm", M_ANYWHERE, 0 },
  { "-scale", M_ANYWHERE, 0 },
  { "-pgmscale", M_ANYWHERE, 0 },
  { "-coherent", M_ANYWHERE, 0 },
  { "-printout", M_ANYWHERE, 0 },
  { "-noprogress", M_ANYWHERE, 0 },
  { "-progress", M_ANYWHERE, 0 },
  { "-interpolate", M_ANYWHERE, 0 },
  { "-nointerpolate", M_ANYWHERE, 0 },
  { "-round_xtal", M_ANYWHERE, 0 },
  { "-square_xtal", M_ANYWHERE, 0 },
  { "-gauss_xtal", M_ANYWHERE, 0 },
  { "-binary_spots", M_ANYWHERE, 0 },
  { "-tophat_spots", M_ANYWHERE, 0 },
  { "-fudge", M_ANYWHERE, 0 },
  { "-printout_pixel", M_ANYWHERE, 0 },
  { "-seed", M_ANYWHERE, 0 },
  { "-mosaic_seed", M_ANYWHERE, 0 },
  { "-misset_seed", M_ANYWHERE, 0 },
  { "-water", M_ANYWHERE, 0 },
};

const char *
nb_argv_reference_flag (const char *word)
{
  size_t len;

  if (word == NULL || word[0] != '-')
    return NULL;
  len = strlen (word);
  for (size_t i = 0; i < sizeof reference_flags / sizeof reference_flags[0]; i++)
    {
      const reference_flag *f = &reference_flags[i];
      int hit;

      switch (f->match)
        {
          case M_EXACT:
            hit = strcmp (word, f->name) == 0;
            break;
          case M_LENGTH:
            hit = len == f->len && strstr (word, f->name) != NULL;
            break;
          case M_LONGER:
            hit = len > f->len && strstr (word, f->name) != NULL;
            break;
          default:
            hit = strstr (word, f->name) != NULL;
            break;
        }
      if (hit)
        return f->name;
    }
  return NULL;
}

#define EDIT_MAX 64

size_t
nb_argv_edit_distance (const char *a, const char *b, size_t cap)
{
  size_t la = strlen (a), lb = strlen (b);
  size_t row[EDIT_MAX + 1];

  if (la > EDIT_MAX || lb > EDIT_MAX || (la > lb ? la - lb : lb - la) > cap)
    return cap + 1;
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++)
    {
      size_t diagonal = row[0], smallest;

      row[0] = i;
      smallest = row[0];
      for (size_t j = 1; j <= lb; j++)
        {
          size_t above = row[j];
          size_t best = diagonal + (a[i - 1] != b[j - 1]);

          if (above + 1 < best)
            best = above + 1;
          if (row[j - 1] + 1 < best)
            best = row[j - 1] + 1;
          row[j] = best;
          diagonal = above;
          if (best < smallest)
            smallest = best;
        }
      if (smallest > cap)
        return cap + 1;
    }
  return row[lb] > cap ? cap + 1 : row[lb];
}
