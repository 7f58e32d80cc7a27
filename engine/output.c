/* output.c: statistics of a float image and its conversions to the SMV, PGM
 * and noise images, as the reference computes them.
 *
 * Source: nanoBragg.c main(), statistics after the pixel loop and the output
 * section; physics.md §19 and §12.5.
 */
#include "nb-io.h"
#include "nb-private.h"

#include <string.h>

/* roi_span: the pixels of the ROI that lie on the detector, fast [*f0, *f1]
 * and slow [*s0, *s1] inclusive; 0 when there are none. */
static int
roi_span (const nb_plan_info *in, int *f0, int *f1, int *s0, int *s1)
{
  *f0 = in->roi[0] > 0 ? in->roi[0] : 0;
  *f1 = in->roi[1] < in->fpixels - 1 ? in->roi[1] : in->fpixels - 1;
  *s0 = in->roi[2] > 0 ? in->roi[2] : 0;
  *s1 = in->roi[3] < in->spixels - 1 ? in->roi[3] : in->spixels - 1;
  return *f0 <= *f1 && *s0 <= *s1;
}

/* The statistics of nb_image_statistics() from what a plan derived: @in, the
 * -mask pixels (or NULL), and the sub-pixel grid (for the position of the
 * maximum only).  The sums run in the reference's pixel order, so that the
 * printed values agree to the last bit; the loops walk the ROI's rows rather
 * than testing every pixel. */
static void
statistics (const nb_plan_info *in,
            const uint16_t *mask,
            int oversample,
            double subpixel_size,
            const float *image,
            nb_image_stats *st)
{
  double sum = 0.0, sumsqr = 0.0, max_I = 0.0;
  long sumn = 0;
  int f0, f1, s0, s1, any = roi_span (in, &f0, &f1, &s0, &s1);

  memset (st, 0, sizeof *st);
  for (int s = s0; any && s <= s1; s++)
    {
      const float *row = image + (size_t) s * in->fpixels;
      const uint16_t *mask_row = mask != NULL ? mask + (size_t) s * in->fpixels : NULL;

      for (int f = f0; f <= f1; f++)
        {
          float v = row[f];

          if (mask_row != NULL && mask_row[f] == 0)
            continue;
          if (v > max_I)
            {
              int N = oversample;
              max_I = v;
              /* the last sub-pixel the reference evaluated for this pixel */
              st->max_I_x = subpixel_size * (f * N + N - 1) + subpixel_size / 2.0;
              st->max_I_y = subpixel_size * (s * N + N - 1) + subpixel_size / 2.0;
            }
          sum += v;
          sumsqr += v * v; /* a float product, as in the reference */
          ++sumn;
        }
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
  for (int s = s0; any && s <= s1; s++)
    {
      const float *row = image + (size_t) s * in->fpixels;

      for (int f = f0; f <= f1; f++)
        {
          double t = row[f] - st->mean;

          sumsqr += t * t;
        }
      sumn += f1 - f0 + 1;
    }
  if (sumn <= 1)
    sumn = 2;
  st->rmsd = sqrt (sumsqr / (sumn - 1));
}

void
nb_image_statistics (const nb_plan *plan, const float *image, nb_image_stats *st)
{
  statistics (&plan->info, plan->mask, plan->det.oversample, plan->det.subpixel_size, image, st);
}

static double
image_to_smv (const nb_plan_info *in,
              const float *image,
              const nb_image_stats *st,
              double scale,
              double adc,
              uint16_t *out)
{
  int f0, f1, s0, s1;

  if (scale <= 0.0)
    {
      scale = 1.0;
      if (st->max_I > 0.0)
        scale = 55000.0 / st->max_I;
    }
  memset (out, 0, (size_t) in->fpixels * in->spixels * sizeof (uint16_t));
  if (!roi_span (in, &f0, &f1, &s0, &s1))
    return scale;
    /* each pixel on its own: rows in parallel give the same bytes */
#pragma omp parallel for schedule(static) if ((double) (s1 - s0 + 1) * (f1 - f0 + 1) > 65536.0)
  for (int s = s0; s <= s1; s++)
    {
      const float *row = image + (size_t) s * in->fpixels;
      uint16_t *out_row = out + (size_t) s * in->fpixels;

      for (int f = f0; f <= f1; f++)
        {
          double t = row[f] * scale + adc;

          t = t > 0.0 ? t : 0.0; /* first: a NaN becomes 0, as the reference's cast gives */
          t = t < 65535.0 ? t : 65535.0;
          /* the reference's floorf((float) (t + 0.5)); the argument is at least
           * 0.5, where truncation is the floor (and a loop GCC vectorises) */
          out_row[f] = (uint16_t) (int) (float) (t + 0.5);
        }
    }
  return scale;
}

double
nb_image_to_smv (const nb_plan *plan,
                 const float *image,
                 const nb_image_stats *st,
                 double scale,
                 double adc,
                 uint16_t *out)
{
  return image_to_smv (&plan->info, image, st, scale, adc, out);
}

void
nb_smv_header_from_info (const nb_plan_info *in, nb_smv_header *h)
{
  memset (h, 0, sizeof *h);
  h->size1 = in->fpixels;
  h->size2 = in->spixels;
  h->pixel_size_mm = in->pixel_size * 1000.0;
  h->distance_mm = in->distance * 1000.0;
  h->wavelength_A = in->lambda0 * 1e10;
  h->beam_center_x_mm = in->Xbeam * 1000.0;
  h->beam_center_y_mm = in->Ybeam * 1000.0;
  /* ADXV counts slow pixels from the other edge; MOSFLM and DENZO swap the
   * axes, and MOSFLM measures from the first pixel's centre, not its corner */
  h->adxv_center_x_mm = in->Fbeam * 1000.0;
  h->adxv_center_y_mm = (in->detsize_s - in->Sbeam) * 1000.0;
  h->mosflm_center_x_mm = (in->Sbeam - 0.5 * in->pixel_size) * 1000.0;
  h->mosflm_center_y_mm = (in->Fbeam - 0.5 * in->pixel_size) * 1000.0;
  h->denzo_x_beam_mm = in->Sbeam * 1000.0;
  h->denzo_y_beam_mm = in->Fbeam * 1000.0;
  memcpy (h->dials_origin_mm, in->dials_origin, sizeof h->dials_origin_mm);
  h->xds_orgx_px = in->ORGX;
  h->xds_orgy_px = in->ORGY;
  h->close_distance_mm = in->close_distance * 1000.0;
  h->phi_deg = in->phi0 * NB_RTD;
  h->osc_start_deg = in->phi0 * NB_RTD;
  h->osc_range_deg = in->osc * NB_RTD;
  h->twotheta_deg = in->twotheta * NB_RTD;
}

nb_status
nb_write_smv_image (const char *path,
                    const nb_plan_info *info,
                    const uint16_t *mask,
                    const float *image,
                    double scale,
                    double adc,
                    nb_error *err)
{
  size_t n = (size_t) info->fpixels * (size_t) info->spixels;
  uint16_t *pixels;
  nb_image_stats st;
  nb_smv_header h;
  nb_status status;

  if (image == NULL || info->fpixels <= 0 || info->spixels <= 0)
    return nb_error_set (err, NB_ERR_INVALID, "cannot write %s: bad image size %d x %d",
                         path != NULL ? path : "(null)", info->fpixels, info->spixels);
  pixels = malloc (n * sizeof (uint16_t));
  if (pixels == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", path);
  statistics (info, mask, info->oversample > 0 ? info->oversample : 1,
              info->oversample > 0 ? info->pixel_size / info->oversample : info->pixel_size, image,
              &st);
  image_to_smv (info, image, &st, scale, adc, pixels);
  nb_smv_header_from_info (info, &h);
  status = nb_write_smv (path, &h, pixels, err);
  free (pixels);
  return status;
}

double
nb_image_to_pgm (const nb_plan *plan,
                 const float *image,
                 const nb_image_stats *st,
                 double scale,
                 double int_scale,
                 uint8_t *out)
{
  const nb_plan_info *in = &plan->info;
  int f0, f1, s0, s1;

  if (scale <= 0.0)
    {
      scale = int_scale;
      if (st->rmsd > 0.0)
        scale = 250.0 / (5.0 * st->rmsd);
    }
  memset (out, 0, (size_t) in->fpixels * in->spixels);
  if (!roi_span (in, &f0, &f1, &s0, &s1))
    return scale;
#pragma omp parallel for schedule(static) if ((double) (s1 - s0 + 1) * (f1 - f0 + 1) > 65536.0)
  for (int s = s0; s <= s1; s++)
    {
      const float *row = image + (size_t) s * in->fpixels;
      uint8_t *out_row = out + (size_t) s * in->fpixels;

      for (int f = f0; f <= f1; f++)
        {
          double t = row[f] * scale;

          t = t > 0.0 ? t : 0.0; /* negative (its cast is undefined) and NaN: 0 */
          t = t < 255.0 ? t : 255.0;
          out_row[f] = (uint8_t) (int) t;
        }
    }
  return scale;
}

double
nb_image_to_noise (
    const nb_plan *plan, const float *image, long seed, double adc, uint16_t *out, int *overloads)
{
  const nb_plan_info *in = &plan->info;
  nb_noise_state ns;
  double sum = 0.0;
  int f0, f1, s0, s1;

  nb_noise_state_init (&ns);
  ns.ran = plan->ran; /* the reference's generator table is shared by all streams */
  *overloads = 0;
  memset (out, 0, (size_t) in->fpixels * in->spixels * sizeof (uint16_t));
  if (!roi_span (in, &f0, &f1, &s0, &s1))
    return sum;
  for (int s = s0; s <= s1; s++)
    for (int f = f0; f <= f1; f++)
      {
        size_t idx = (size_t) s * in->fpixels + f;
        double t = nb_poidev (&ns, image[idx], &seed);

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
