/* output.c: statistics of a float image and its conversions to the SMV, PGM
 * and noise images, as the reference computes them.
 *
 * Source: nanoBragg.c main(), statistics after the pixel loop and the output
 * section; physics.md §19 and §12.5.
 */
#include "nb-io.h"
#include "base/nb-memory.h"
#include "model/nb-model.h"

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

/* The statistics keep eight partial sums, one for each pixel position modulo
 * 8 along a row, added together at the end in a fixed order, so that they
 * are computed eight pixels at a time in GCC vector types (lane-wise IEEE
 * operations: nothing is reassociated) and do not depend on the thread count.
 * The reference adds in pixel order inside an OpenMP reduction, so its own
 * last bits change with its thread count; the printed %g values (six digits)
 * agree.  On the development machine the two passes over a 1024^2 image take
 * 0.2 ms, where the one-accumulator loops took 1.3 ms. */
typedef float stat_vf __attribute__ ((vector_size (16)));
typedef float stat_vf2 __attribute__ ((vector_size (8)));
typedef int32_t stat_vi __attribute__ ((vector_size (16)));
typedef uint16_t stat_vh __attribute__ ((vector_size (8)));
typedef double stat_vd __attribute__ ((vector_size (16)));

/* Eight lanes: pixel j of each group of eight adds to sum[j / 2][j % 2]. */
typedef struct
{
  stat_vd sum[4], sumsqr[4];
  stat_vf max[2];
} stat_lanes;

static double
lanes_total (const stat_vd *v)
{
  return ((v[0][0] + v[0][1]) + (v[1][0] + v[1][1])) + ((v[2][0] + v[2][1]) + (v[3][0] + v[3][1]));
}

static float
lanes_max (const stat_vf *v)
{
  float m = v[0][0];

  for (int j = 1; j < 8; j++)
    m = v[j / 4][j % 4] > m ? v[j / 4][j % 4] : m;
  return m;
}

/* The two halves of four floats, as doubles. */
#define STAT_LO(x) __builtin_convertvector(__builtin_shufflevector ((x), (x), 0, 1), stat_vd)
#define STAT_HI(x) __builtin_convertvector(__builtin_shufflevector ((x), (x), 2, 3), stat_vd)

/* Adds four pixels @x to lanes 4k..4k+3 (k = 0, 1) of the local copies; the
 * maximum keeps its value where @x is not larger (a NaN is never larger), as
 * the reference's strict test.  The squares are float products, as there. */
#define STAT_ADD4(k, x)                                                                            \
  do                                                                                               \
    {                                                                                              \
      stat_vf x_ = (x), sq_ = x_ * x_;                                                             \
      stat_vi larger_ = x_ > max[k];                                                               \
                                                                                                   \
      sum[2 * (k)] += STAT_LO (x_);                                                                \
      sum[2 * (k) + 1] += STAT_HI (x_);                                                            \
      sumsqr[2 * (k)] += STAT_LO (sq_);                                                            \
      sumsqr[2 * (k) + 1] += STAT_HI (sq_);                                                        \
      max[k] = (stat_vf) (((stat_vi) x_ & larger_) | ((stat_vi) max[k] & ~larger_));               \
    }                                                                                              \
  while (0)

/* Adds the pixels of one row, @v[0..n), to the lanes; a pixel whose @mask
 * entry is 0 (when @mask is not NULL) counts as 0, which changes neither the
 * sums nor the maximum (it starts at 0).  Returns the row's pixels not masked.
 * The lanes are copied into locals (registers) for the row; the last n mod 8
 * pixels go through zero-padded vectors. */
static long
lanes_add_row (stat_lanes *l, const float *v, const uint16_t *mask, int n)
{
  stat_vd sum[4], sumsqr[4];
  stat_vf max[2], x[2];
  stat_vi kept = { 0 }; /* minus the unmasked pixels, lane by lane */
  long count = mask != NULL ? 0 : n;
  int f = 0;

  memcpy (sum, l->sum, sizeof sum);
  memcpy (sumsqr, l->sumsqr, sizeof sumsqr);
  memcpy (max, l->max, sizeof max);
  for (; f + 8 <= n; f += 8)
    {
      memcpy (x, v + f, sizeof x);
      if (mask != NULL)
        for (int k = 0; k < 2; k++)
          {
            stat_vh m;
            stat_vi keep;

            memcpy (&m, mask + f + 4 * k, sizeof m);
            keep = __builtin_convertvector(m, stat_vi) != 0;
            kept += keep;
            x[k] = (stat_vf) ((stat_vi) x[k] & keep);
          }
      STAT_ADD4 (0, x[0]);
      STAT_ADD4 (1, x[1]);
    }
  if (f < n)
    {
      float pad[8] = { 0.0f };

      for (int j = 0; f + j < n; j++)
        {
          pad[j] = mask == NULL || mask[f + j] != 0 ? v[f + j] : 0.0f;
          count += mask != NULL && mask[f + j] != 0;
        }
      memcpy (x, pad, sizeof x);
      STAT_ADD4 (0, x[0]);
      STAT_ADD4 (1, x[1]);
    }
  memcpy (l->sum, sum, sizeof sum);
  memcpy (l->sumsqr, sumsqr, sizeof sumsqr);
  memcpy (l->max, max, sizeof max);
  return count - (kept[0] + kept[1] + kept[2] + kept[3]);
}

/* The sum of (v - mean)^2 over one row, @v[0..n), in the lanes @dev. */
static void
lanes_add_deviations (stat_vd *dev, const float *v, int n, double mean)
{
  stat_vd acc[4], t;
  stat_vf x[2];
  int f = 0;

  memcpy (acc, dev, sizeof acc);
  for (; f + 8 <= n; f += 8)
    {
      memcpy (x, v + f, sizeof x);
      for (int k = 0; k < 2; k++)
        {
          t = STAT_LO (x[k]) - mean;
          acc[2 * k] += t * t;
          t = STAT_HI (x[k]) - mean;
          acc[2 * k + 1] += t * t;
        }
    }
  for (int j = 0; f + j < n; j++)
    {
      double d = v[f + j] - mean;

      acc[j / 2][j % 2] += d * d;
    }
  memcpy (dev, acc, sizeof acc);
}

/* The statistics of nb_image_statistics() from what a plan derived: @in, the
 * -mask pixels (or NULL), and the sub-pixel grid (for the position of the
 * maximum only).  The maximum is the first pixel in the reference's order
 * (rows, then fast pixels) with the largest value, as its strict comparison
 * finds; the loops walk the ROI's rows rather than testing every pixel. */
static void
statistics (const nb_plan_info *in,
            const uint16_t *mask,
            int oversample,
            double subpixel_size,
            const float *image,
            nb_image_stats *st)
{
  stat_lanes l;
  stat_vd dev[4];
  double sumsqr;
  float max_I = 0.0f;
  long sumn = 0, roi_n;
  int f0, f1, s0, s1, max_row = -1, any = roi_span (in, &f0, &f1, &s0, &s1);
  int n = f1 - f0 + 1;

  memset (st, 0, sizeof *st);
  memset (&l, 0, sizeof l);
  memset (dev, 0, sizeof dev);
  for (int s = s0; any && s <= s1; s++)
    {
      const float *row = image + (size_t) s * in->fpixels + f0;
      const uint16_t *mask_row = mask != NULL ? mask + (size_t) s * in->fpixels + f0 : NULL;
      float row_max;

      sumn += lanes_add_row (&l, row, mask_row, n);
      /* the lanes' maxima only grow: a new largest value is in this row */
      row_max = lanes_max (l.max);
      if (row_max > max_I)
        {
          max_I = row_max;
          max_row = s;
        }
    }
  if (max_row >= 0)
    {
      const float *row = image + (size_t) max_row * in->fpixels;
      const uint16_t *mask_row = mask != NULL ? mask + (size_t) max_row * in->fpixels : NULL;
      int f = f0;

      while (row[f] != max_I || (mask_row != NULL && mask_row[f] == 0))
        f++;
      /* the last sub-pixel the reference evaluated for this pixel */
      st->max_I_x = subpixel_size * (f * oversample + oversample - 1) + subpixel_size / 2.0;
      st->max_I_y = subpixel_size * (max_row * oversample + oversample - 1) + subpixel_size / 2.0;
    }
  st->max_I = max_I;
  st->sum = lanes_total (l.sum);
  st->n = sumn;
  if (sumn <= 0)
    sumn = 1;
  st->mean = st->sum / sumn;
  if (sumn <= 1)
    sumn = 2;
  st->rms = sqrt (lanes_total (l.sumsqr) / (sumn - 1));

  for (int s = s0; any && s <= s1; s++)
    lanes_add_deviations (dev, image + (size_t) s * in->fpixels + f0, n, st->mean);
  sumsqr = lanes_total (dev);
  roi_n = any ? (long) n * (s1 - s0 + 1) : 0;
  if (roi_n <= 1)
    roi_n = 2;
  st->rmsd = sqrt (sumsqr / (roi_n - 1));
}

void
nb_image_statistics (const nb_plan *plan, const float *image, nb_image_stats *st)
{
  statistics (&plan->info, plan->mask, plan->det.oversample, plan->det.subpixel_size, image, st);
}

long
nb_image_first_non_finite (const float *image, size_t n, size_t *count)
{
  /* Blocks of pixels are tested first for an exponent with every bit set (an
   * infinity or a NaN) in a loop the compiler vectorises (0.12 ms for 1024^2
   * pixels where isfinite() pixel by pixel took 0.5 ms); only a block that
   * has one is looked at pixel by pixel. */
  enum
  {
    BLOCK = 4096
  };
  long first = -1;
  size_t bad = 0;

  for (size_t b = 0; b < n; b += BLOCK)
    {
      size_t e = n - b < BLOCK ? n : b + BLOCK;
      uint32_t any = 0;

      for (size_t i = b; i < e; i++)
        {
          uint32_t bits;

          memcpy (&bits, image + i, sizeof bits);
          any |= (bits & 0x7f800000u) == 0x7f800000u;
        }
      for (size_t i = b; any && i < e; i++)
        if (!isfinite (image[i]))
          {
            if (first < 0)
              first = (long) i;
            bad++;
          }
    }
  if (count != NULL)
    *count = bad;
  return first;
}

nb_status
nb_image_check_finite (const nb_plan *plan, const float *image, nb_error *err)
{
  const nb_plan_info *in = &plan->info;
  size_t bad;
  long first = nb_image_first_non_finite (image, (size_t) in->fpixels * (size_t) in->spixels, &bad);

  if (first < 0)
    return NB_OK;
  if (in->comment_sources > 0)
    return nb_error_set (err, NB_ERR_INVALID,
                         "the image has %zu non-finite pixels (the first at fast %ld, slow %ld is "
                         "%g): %d of the sources are '#' lines of %s, which nanoBragg reads as "
                         "sources (of wavelength 0 unless the line holds numbers): remove them, "
                         "or give -physical to skip them",
                         bad, first % in->fpixels, first / in->fpixels, (double) image[first],
                         in->comment_sources, plan->params.source_file);
  return nb_error_set (err, NB_ERR_INVALID,
                       "the image has %zu non-finite pixels (the first at fast %ld, slow %ld is "
                       "%g): check the flags that scale intensities (-fluence, -flux, -water, "
                       "-default_F)",
                       bad, first % in->fpixels, first / in->fpixels, (double) image[first]);
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
  if (!roi_span (in, &f0, &f1, &s0, &s1))
    {
      memset (out, 0, (size_t) in->fpixels * in->spixels * sizeof (uint16_t));
      return scale;
    }
  nb_clear_outside_span (out, sizeof (uint16_t), in->fpixels, in->spixels, f0, f1 + 1, s0, s1 + 1);
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

void
nb_smv_header_for_dials (const nb_plan_info *in, double adc, nb_smv_header *h)
{
  h->beam_center_x_mm = (in->Fbeam - in->pixel_size) * 1000.0;
  h->beam_center_y_mm = (in->spixels * in->pixel_size + in->pixel_size - in->Sbeam) * 1000.0;
  h->dials = 1;
  h->adc_offset = adc;
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
  if (!roi_span (in, &f0, &f1, &s0, &s1))
    {
      memset (out, 0, (size_t) in->fpixels * in->spixels);
      return scale;
    }
  nb_clear_outside_span (out, 1, in->fpixels, in->spixels, f0, f1 + 1, s0, s1 + 1);
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

/* Poisson counts of the pixels of @image in [@f0, @f1] x [@s0, @s1] of a
 * block @W pixels wide at @image (@out likewise), as nb_image_to_noise(). */
static double
noise_span (nb_noise_state *ns,
            const float *image,
            int W,
            int f0,
            int f1,
            int s0,
            int s1,
            long *seed,
            double adc,
            uint16_t *out,
            int *overloads)
{
  double sum = 0.0;

  for (int s = s0; s <= s1; s++)
    for (int f = f0; f <= f1; f++)
      {
        size_t idx = (size_t) s * W + f;
        double t = nb_poidev (ns, image[idx], seed);

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
  /* a -detector model's panels: each its own block, its -roi its own (the plan's info
   * holds panel 0's ROI and the whole image's size) */
  for (int i = 0; i < plan->n_panels; i++)
    {
      const nb_detector *d = &plan->panels[i].det;
      int W = d->fpixels;

      f0 = d->roi_xmin > 0 ? d->roi_xmin : 0;
      f1 = d->roi_xmax < W - 1 ? d->roi_xmax : W - 1;
      s0 = d->roi_ymin > 0 ? d->roi_ymin : 0;
      s1 = d->roi_ymax < d->spixels - 1 ? d->roi_ymax : d->spixels - 1;
      sum += noise_span (&ns, image + plan->panels[i].offset, W, f0, f1, s0, s1, &seed, adc,
                         out + plan->panels[i].offset, overloads);
    }
  if (plan->n_panels > 0 || !roi_span (in, &f0, &f1, &s0, &s1))
    return sum;
  return noise_span (&ns, image, in->fpixels, f0, f1, s0, s1, &seed, adc, out, overloads);
}
