/* output.c: statistics of a float image and its conversions to the SMV, PGM
 * and noise images, as the reference computes them.
 *
 * Source: nanoBragg.c main(), statistics after the pixel loop and the output
 * section; physics.md §19 and §12.5.
 */
#include "nb-private.h"

#include <string.h>

static inline int
in_roi (const nb_plan_info *in, int f, int s)
{
  return !(f < in->roi[0] || f > in->roi[1] || s < in->roi[2] || s > in->roi[3]);
}

void
nb_image_statistics (const nb_plan *plan, const float *image, nb_image_stats *st)
{
  const nb_plan_info *in = &plan->info;
  const nb_detector *d = &plan->det;
  const uint16_t *mask = plan->mask;
  double sum = 0.0, sumsqr = 0.0, max_I = 0.0;
  long sumn = 0;

  memset (st, 0, sizeof *st);
  for (int s = 0; s < in->spixels; s++)
    for (int f = 0; f < in->fpixels; f++)
      {
        size_t idx = (size_t) s * in->fpixels + f;
        float v = image[idx];

        if (!in_roi (in, f, s) || (mask != NULL && mask[idx] == 0))
          continue;
        if (v > max_I)
          {
            int N = d->oversample;
            max_I = v;
            /* the last sub-pixel the reference evaluated for this pixel */
            st->max_I_x = d->subpixel_size * (f * N + N - 1) + d->subpixel_size / 2.0;
            st->max_I_y = d->subpixel_size * (s * N + N - 1) + d->subpixel_size / 2.0;
          }
        sum += v;
        sumsqr += v * v; /* a float product, as in the reference */
        ++sumn;
      }
  st->max_I = max_I;
  st->sum = sum;
  st->n = sumn;
  if (sumn <= 0)
    sumn = 1;
  st->mean = sum / sumn;
  if (sumn <= 1)
    sumn = 2;
  st->rms = sqrt (sumsqr / (sumn - 1));

  sumsqr = 0.0;
  sumn = 0;
  for (int s = 0; s < in->spixels; s++)
    for (int f = 0; f < in->fpixels; f++)
      {
        double t;

        if (!in_roi (in, f, s))
          continue;
        t = image[(size_t) s * in->fpixels + f] - st->mean;
        sumsqr += t * t;
        ++sumn;
      }
  if (sumn <= 1)
    sumn = 2;
  st->rmsd = sqrt (sumsqr / (sumn - 1));
}

double
nb_image_to_smv (const nb_plan *plan, const float *image, const nb_image_stats *st, double scale,
                 double adc, uint16_t *out)
{
  const nb_plan_info *in = &plan->info;

  if (scale <= 0.0)
    {
      scale = 1.0;
      if (st->max_I > 0.0)
        scale = 55000.0 / st->max_I;
    }
  memset (out, 0, (size_t) in->fpixels * in->spixels * sizeof (uint16_t));
  for (int s = 0; s < in->spixels; s++)
    for (int f = 0; f < in->fpixels; f++)
      {
        size_t idx = (size_t) s * in->fpixels + f;
        double t;

        if (!in_roi (in, f, s))
          continue;
        t = image[idx] * scale + adc;
        if (t > 65535.0)
          t = 65535.0;
        if (t < 0.0)
          t = 0.0;
        out[idx] = (uint16_t) floorf ((float) (t + 0.5));
      }
  return scale;
}

double
nb_image_to_pgm (const nb_plan *plan, const float *image, const nb_image_stats *st, double scale,
                 double int_scale, uint8_t *out)
{
  const nb_plan_info *in = &plan->info;

  if (scale <= 0.0)
    {
      scale = int_scale;
      if (st->rmsd > 0.0)
        scale = 250.0 / (5.0 * st->rmsd);
    }
  memset (out, 0, (size_t) in->fpixels * in->spixels);
  for (int s = 0; s < in->spixels; s++)
    for (int f = 0; f < in->fpixels; f++)
      {
        size_t idx = (size_t) s * in->fpixels + f;
        double t;

        if (!in_roi (in, f, s))
          continue;
        t = image[idx] * scale;
        if (t > 255.0)
          t = 255.0;
        if (t < 0.0)
          t = 0.0; /* the reference's cast of a negative value is undefined */
        out[idx] = (uint8_t) t;
      }
  return scale;
}

double
nb_image_to_noise (const nb_plan *plan, const float *image, long seed, double adc, uint16_t *out,
                   int *overloads)
{
  const nb_plan_info *in = &plan->info;
  nb_noise_state ns;
  double sum = 0.0;

  nb_noise_state_init (&ns);
  ns.ran = plan->ran; /* the reference's generator table is shared by all streams */
  *overloads = 0;
  memset (out, 0, (size_t) in->fpixels * in->spixels * sizeof (uint16_t));
  for (int s = 0; s < in->spixels; s++)
    for (int f = 0; f < in->fpixels; f++)
      {
        size_t idx = (size_t) s * in->fpixels + f;
        double t;

        if (!in_roi (in, f, s))
          continue;
        t = nb_poidev (&ns, image[idx], &seed);
        sum += t;
        t += adc;
        if (t > 65535.0)
          {
            t = 65535.0;
            ++*overloads;
          }
        /* truncation as the reference; a negative adc wraps as its cast does on x86 */
        out[idx] = (uint16_t) (long) t;
      }
  return sum;
}
