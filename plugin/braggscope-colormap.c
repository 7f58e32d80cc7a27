/* braggscope-colormap.c: colour tables, the intensity mapping and percentile
 * auto-contrast.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-colormap.h"

#include "nanobragg.h"

#include <math.h>
#include <string.h>

G_DEFINE_ENUM_TYPE (BraggscopeScale,
                    braggscope_scale,
                    G_DEFINE_ENUM_VALUE (BRAGGSCOPE_SCALE_LINEAR, "linear"),
                    G_DEFINE_ENUM_VALUE (BRAGGSCOPE_SCALE_LOG, "log"),
                    G_DEFINE_ENUM_VALUE (BRAGGSCOPE_SCALE_GAMMA, "gamma"))

G_DEFINE_ENUM_TYPE (BraggscopeColormap,
                    braggscope_colormap,
                    G_DEFINE_ENUM_VALUE (BRAGGSCOPE_COLORMAP_GREY, "grey"),
                    G_DEFINE_ENUM_VALUE (BRAGGSCOPE_COLORMAP_INVERTED_GREY, "inverted-grey"),
                    G_DEFINE_ENUM_VALUE (BRAGGSCOPE_COLORMAP_VIRIDIS, "viridis"),
                    G_DEFINE_ENUM_VALUE (BRAGGSCOPE_COLORMAP_MAGMA, "magma"),
                    G_DEFINE_ENUM_VALUE (BRAGGSCOPE_COLORMAP_HEAT, "heat"))

G_DEFINE_BOXED_TYPE (BraggscopeDisplay,
                     braggscope_display,
                     braggscope_display_copy,
                     braggscope_display_free)

void
braggscope_display_init (BraggscopeDisplay *display)
{
  g_return_if_fail (display != NULL);

  display->colormap = BRAGGSCOPE_COLORMAP_INVERTED_GREY;
  display->scale = BRAGGSCOPE_SCALE_LINEAR;
  display->gamma = 1.0;
  display->low = 0.0;
  display->high = 100.0;
}

BraggscopeDisplay *
braggscope_display_copy (const BraggscopeDisplay *display)
{
  g_return_val_if_fail (display != NULL, NULL);

  return g_memdup2 (display, sizeof *display);
}

void
braggscope_display_free (BraggscopeDisplay *display)
{
  g_free (display);
}

/* ------------------------------------------------------------------------- */
/* Colour tables */

/* Ten colours of each map at t = 0, 1/9, ..., 1, as sRGB bytes: the anchors
 * the tables are interpolated through (the samples R's viridisLite prints for
 * viridis(10) and magma(10) of the matplotlib maps). */
#define N_ANCHORS 10

static const guint8 viridis_anchors[N_ANCHORS][3] = {
  { 0x44, 0x01, 0x54 }, { 0x48, 0x28, 0x78 }, { 0x3e, 0x4a, 0x89 }, { 0x31, 0x68, 0x8e },
  { 0x26, 0x82, 0x8e }, { 0x1f, 0x9e, 0x89 }, { 0x35, 0xb7, 0x79 }, { 0x6d, 0xcd, 0x59 },
  { 0xb4, 0xde, 0x2c }, { 0xfd, 0xe7, 0x25 },
};

static const guint8 magma_anchors[N_ANCHORS][3] = {
  { 0x00, 0x00, 0x04 }, { 0x18, 0x0f, 0x3e }, { 0x45, 0x10, 0x77 }, { 0x72, 0x1f, 0x81 },
  { 0x9f, 0x2f, 0x7f }, { 0xcd, 0x40, 0x71 }, { 0xf1, 0x60, 0x5d }, { 0xfd, 0x95, 0x67 },
  { 0xfe, 0xc9, 0x8d }, { 0xfc, 0xfd, 0xbf },
};

/* sRGB (IEC 61966-2-1) primaries and the D65 white, CIE 1976 L*a*b*. */
static const double rgb_to_xyz[3][3] = {
  { 0.4124564, 0.3575761, 0.1804375 },
  { 0.2126729, 0.7151522, 0.0721750 },
  { 0.0193339, 0.1191920, 0.9503041 },
};

static const double xyz_to_rgb[3][3] = {
  { 3.2404542, -1.5371385, -0.4985314 },
  { -0.9692660, 1.8760108, 0.0415560 },
  { 0.0556434, -0.2040259, 1.0572252 },
};

static const double d65_white[3] = { 0.95047, 1.0, 1.08883 };

#define LAB_EPSILON (6.0 / 29.0)

static double
srgb_to_linear (double c)
{
  return c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

static double
linear_to_srgb (double c)
{
  return c <= 0.0031308 ? 12.92 * c : 1.055 * pow (c, 1.0 / 2.4) - 0.055;
}

static double
lab_f (double t)
{
  if (t > LAB_EPSILON * LAB_EPSILON * LAB_EPSILON)
    return cbrt (t);
  return t / (3.0 * LAB_EPSILON * LAB_EPSILON) + 4.0 / 29.0;
}

static double
lab_f_inverse (double f)
{
  if (f > LAB_EPSILON)
    return f * f * f;
  return 3.0 * LAB_EPSILON * LAB_EPSILON * (f - 4.0 / 29.0);
}

/* sRGB in 0..1 to L*a*b*. */
static void
srgb_to_lab (const double rgb[3], double lab[3])
{
  double linear[3], xyz[3], f[3];

  for (int i = 0; i < 3; i++)
    linear[i] = srgb_to_linear (rgb[i]);
  for (int i = 0; i < 3; i++)
    {
      xyz[i] = rgb_to_xyz[i][0] * linear[0] + rgb_to_xyz[i][1] * linear[1] +
               rgb_to_xyz[i][2] * linear[2];
      f[i] = lab_f (xyz[i] / d65_white[i]);
    }
  lab[0] = 116.0 * f[1] - 16.0;
  lab[1] = 500.0 * (f[0] - f[1]);
  lab[2] = 200.0 * (f[1] - f[2]);
}

/* L*a*b* to sRGB in 0..1 (clamped to the gamut's cube). */
static void
lab_to_srgb (const double lab[3], double rgb[3])
{
  double f[3], xyz[3];

  f[1] = (lab[0] + 16.0) / 116.0;
  f[0] = f[1] + lab[1] / 500.0;
  f[2] = f[1] - lab[2] / 200.0;
  for (int i = 0; i < 3; i++)
    xyz[i] = lab_f_inverse (f[i]) * d65_white[i];
  for (int i = 0; i < 3; i++)
    {
      double c = xyz_to_rgb[i][0] * xyz[0] + xyz_to_rgb[i][1] * xyz[1] + xyz_to_rgb[i][2] * xyz[2];
      rgb[i] = CLAMP (linear_to_srgb (MAX (c, 0.0)), 0.0, 1.0);
    }
}

/* Fritsch-Carlson tangents on uniformly spaced knots: the harmonic mean of
 * neighbouring secants where they agree in sign, else 0, so the curve is
 * monotone wherever the anchors are. */
static void
monotone_tangents (const double *y, int n, double *m)
{
  for (int i = 0; i < n; i++)
    {
      double left = i > 0 ? y[i] - y[i - 1] : y[1] - y[0];
      double right = i < n - 1 ? y[i + 1] - y[i] : y[n - 1] - y[n - 2];

      if (i == 0)
        m[i] = right;
      else if (i == n - 1)
        m[i] = left;
      else if (left * right <= 0.0)
        m[i] = 0.0;
      else
        m[i] = 2.0 * left * right / (left + right);
    }
}

static double
hermite (const double *y, const double *m, int n, double t)
{
  double x = t * (n - 1);
  int i = CLAMP ((int) floor (x), 0, n - 2);
  double s = x - i;
  double s2 = s * s, s3 = s2 * s;

  return (2 * s3 - 3 * s2 + 1) * y[i] + (s3 - 2 * s2 + s) * m[i] + (-2 * s3 + 3 * s2) * y[i + 1] +
         (s3 - s2) * m[i + 1];
}

/* Byte colours within one step of the rounding of the ideal colour in each
 * channel: the choices the quantization below picks from. */
#define N_CANDIDATES 27

/* The least rise of L* from one entry to the next: well above the rounding of
 * any other sRGB to L* conversion, so every one sees the rise. */
#define MIN_LIGHTNESS_STEP 0.05

typedef struct
{
  guint8 rgb[N_CANDIDATES][3];
  double lightness[N_CANDIDATES];
  double cost[N_CANDIDATES]; /* squared L*a*b* distance to the ideal; INFINITY when out of range */
} Candidates;

static void
candidates_init (Candidates *cands, const double ideal_lab[3])
{
  double rgb[3];
  int rounded[3];

  lab_to_srgb (ideal_lab, rgb);
  for (int i = 0; i < 3; i++)
    rounded[i] = (int) floor (rgb[i] * 255.0 + 0.5);

  for (int c = 0; c < N_CANDIDATES; c++)
    {
      int step[3] = { c % 3 - 1, c / 3 % 3 - 1, c / 9 - 1 };
      double v[3], lab[3];
      gboolean in_range = TRUE;

      for (int i = 0; i < 3; i++)
        {
          int byte = rounded[i] + step[i];
          in_range = in_range && byte >= 0 && byte <= 255;
          cands->rgb[c][i] = (guint8) CLAMP (byte, 0, 255);
          v[i] = cands->rgb[c][i] / 255.0;
        }
      srgb_to_lab (v, lab);
      cands->lightness[c] = lab[0];
      cands->cost[c] = in_range ? (lab[0] - ideal_lab[0]) * (lab[0] - ideal_lab[0]) +
                                      (lab[1] - ideal_lab[1]) * (lab[1] - ideal_lab[1]) +
                                      (lab[2] - ideal_lab[2]) * (lab[2] - ideal_lab[2])
                                : INFINITY;
    }
}

/* Rounds the 256 ideal colours @lab to bytes so that the lightness of the
 * table rises by at least MIN_LIGHTNESS_STEP from entry to entry (plain
 * rounding alone breaks that where the curve is shallow), at the least total
 * squared error: a shortest path over each entry's candidates.  Falls back to
 * plain rounding if no such path exists. */
static void
quantize_monotone (const double lab[256][3], guint8 rgba[256 * 4])
{
  g_autofree Candidates *cands = g_new (Candidates, 256);
  g_autofree double *total = g_new (double, 256 * N_CANDIDATES);
  g_autofree int *back = g_new (int, 256 * N_CANDIDATES);
  double best = INFINITY;
  int choice = -1;

  for (int i = 0; i < 256; i++)
    candidates_init (&cands[i], lab[i]);

  for (int c = 0; c < N_CANDIDATES; c++)
    total[c] = cands[0].cost[c];
  for (int i = 1; i < 256; i++)
    for (int c = 0; c < N_CANDIDATES; c++)
      {
        double *here = &total[i * N_CANDIDATES + c];

        *here = INFINITY;
        back[i * N_CANDIDATES + c] = -1;
        for (int p = 0; p < N_CANDIDATES; p++)
          {
            double sum = total[(i - 1) * N_CANDIDATES + p] + cands[i].cost[c];
            if (cands[i].lightness[c] > cands[i - 1].lightness[p] + MIN_LIGHTNESS_STEP &&
                sum < *here)
              {
                *here = sum;
                back[i * N_CANDIDATES + c] = p;
              }
          }
      }

  for (int c = 0; c < N_CANDIDATES; c++)
    if (total[255 * N_CANDIDATES + c] < best)
      {
        best = total[255 * N_CANDIDATES + c];
        choice = c;
      }

  for (int i = 255; i >= 0; i--)
    {
      /* Candidate 13 is the plain rounding (no step in any channel). */
      const guint8 *rgb = cands[i].rgb[choice >= 0 ? choice : 13];

      memcpy (rgba + 4 * i, rgb, 3);
      rgba[4 * i + 3] = 255;
      if (choice >= 0)
        choice = i > 0 ? back[i * N_CANDIDATES + choice] : -1;
    }
}

static void
interpolated_lut (const guint8 anchors[N_ANCHORS][3], guint8 rgba[256 * 4])
{
  double lab[3][N_ANCHORS], tangents[3][N_ANCHORS];
  double ideal[256][3];

  for (int k = 0; k < N_ANCHORS; k++)
    {
      double rgb[3] = { anchors[k][0] / 255.0, anchors[k][1] / 255.0, anchors[k][2] / 255.0 };
      double v[3];

      srgb_to_lab (rgb, v);
      for (int c = 0; c < 3; c++)
        lab[c][k] = v[c];
    }
  for (int c = 0; c < 3; c++)
    monotone_tangents (lab[c], N_ANCHORS, tangents[c]);

  for (int i = 0; i < 256; i++)
    for (int c = 0; c < 3; c++)
      ideal[i][c] = hermite (lab[c], tangents[c], N_ANCHORS, i / 255.0);

  quantize_monotone ((const double (*)[3]) ideal, rgba);
}

static guint8
ramp_byte (double x)
{
  return (guint8) floor (CLAMP (x, 0.0, 1.0) * 255.0 + 0.5);
}

static void
compute_lut (BraggscopeColormap map, guint8 rgba[256 * 4])
{
  switch (map)
    {
      case BRAGGSCOPE_COLORMAP_VIRIDIS:
        interpolated_lut (viridis_anchors, rgba);
        return;

      case BRAGGSCOPE_COLORMAP_MAGMA:
        interpolated_lut (magma_anchors, rgba);
        return;

      case BRAGGSCOPE_COLORMAP_HEAT:
        for (int i = 0; i < 256; i++)
          {
            double t = i / 255.0;
            rgba[4 * i + 0] = ramp_byte (3.0 * t);
            rgba[4 * i + 1] = ramp_byte (3.0 * t - 1.0);
            rgba[4 * i + 2] = ramp_byte (3.0 * t - 2.0);
            rgba[4 * i + 3] = 255;
          }
        return;

      case BRAGGSCOPE_COLORMAP_INVERTED_GREY:
        for (int i = 0; i < 256; i++)
          {
            memset (rgba + 4 * i, 255 - i, 3);
            rgba[4 * i + 3] = 255;
          }
        return;

      case BRAGGSCOPE_COLORMAP_GREY:
      default:
        for (int i = 0; i < 256; i++)
          {
            memset (rgba + 4 * i, i, 3);
            rgba[4 * i + 3] = 255;
          }
        return;
    }
}

#define N_COLORMAPS (BRAGGSCOPE_COLORMAP_HEAT + 1)

/* The tables, computed once each (the interpolated ones take a millisecond). */
static const guint8 *
cached_lut (BraggscopeColormap map)
{
  static guint8 tables[N_COLORMAPS][256 * 4];
  static gsize ready[N_COLORMAPS];

  if ((guint) map >= N_COLORMAPS)
    map = BRAGGSCOPE_COLORMAP_GREY;
  if (g_once_init_enter (&ready[map]))
    {
      compute_lut (map, tables[map]);
      g_once_init_leave (&ready[map], 1);
    }
  return tables[map];
}

void
braggscope_colormap_lut (BraggscopeColormap map, guint8 rgba[256 * 4])
{
  g_return_if_fail (rgba != NULL);

  memcpy (rgba, cached_lut (map), 256 * 4);
}

/* ------------------------------------------------------------------------- */
/* The mapping */

typedef struct
{
  BraggscopeScale scale;
  gboolean empty; /* high <= low: a threshold at low */
  double low;
  double range;     /* high - low */
  double log_range; /* log10 (1 + range) */
  double inverse_gamma;
} Mapping;

static void
mapping_init (Mapping *m, const BraggscopeDisplay *display)
{
  double gamma = display->gamma;

  m->scale = display->scale;
  m->low = display->low;
  m->range = display->high - display->low;
  m->empty = !(m->range > 0.0);
  m->log_range = m->empty ? 1.0 : log10 (1.0 + m->range);
  if (!(gamma > 0.0) || !isfinite (gamma))
    gamma = 1.0;
  m->inverse_gamma = 1.0 / gamma;
}

static inline guint
mapping_index (const Mapping *m, double v)
{
  double t;

  if (m->empty)
    t = v > m->low ? 1.0 : 0.0;
  else if (m->scale == BRAGGSCOPE_SCALE_LOG)
    t = log10 (1.0 + MAX (v - m->low, 0.0)) / m->log_range;
  else
    t = (v - m->low) / m->range;

  /* Written so that a NaN lands on 0. */
  if (!(t > 0.0))
    t = 0.0;
  else if (t > 1.0)
    t = 1.0;

  if (m->scale == BRAGGSCOPE_SCALE_GAMMA)
    t = pow (t, m->inverse_gamma);

  return (guint) floor (t * 255.0 + 0.5);
}

guint
braggscope_colormap_index (const BraggscopeDisplay *display, double value)
{
  Mapping m;

  g_return_val_if_fail (display != NULL, 0);

  mapping_init (&m, display);
  return mapping_index (&m, value);
}

/* Table indices of @data into @indices, one loop per scale so the common
 * linear case runs free of the others' calls. */
static void
map_indices (const Mapping *m, const float *data, gsize n, guint8 *indices)
{
  if (m->empty || m->scale == BRAGGSCOPE_SCALE_GAMMA)
    {
      for (gsize i = 0; i < n; i++)
        indices[i] = (guint8) mapping_index (m, data[i]);
    }
  else if (m->scale == BRAGGSCOPE_SCALE_LOG)
    {
      for (gsize i = 0; i < n; i++)
        {
          double t = log10 (1.0 + MAX ((double) data[i] - m->low, 0.0)) / m->log_range;
          indices[i] = !(t > 0.0) ? 0 : t > 1.0 ? 255 : (guint8) floor (t * 255.0 + 0.5);
        }
    }
  else
    {
      for (gsize i = 0; i < n; i++)
        {
          double t = ((double) data[i] - m->low) / m->range;
          indices[i] = !(t > 0.0) ? 0 : t > 1.0 ? 255 : (guint8) floor (t * 255.0 + 0.5);
        }
    }
}

void
braggscope_colormap_apply_indices (const BraggscopeDisplay *display,
                                   const float *data,
                                   gsize n,
                                   guint8 *indices)
{
  Mapping m;

  g_return_if_fail (display != NULL);
  g_return_if_fail (data != NULL || n == 0);
  g_return_if_fail (indices != NULL || n == 0);

  mapping_init (&m, display);
  map_indices (&m, data, n, indices);
}

void
braggscope_colormap_apply (const BraggscopeDisplay *display,
                           const float *data,
                           gsize n,
                           guint8 *rgba)
{
  guint8 indices[4096];
  const guint8 *lut;
  Mapping m;

  g_return_if_fail (display != NULL);
  g_return_if_fail (data != NULL || n == 0);
  g_return_if_fail (rgba != NULL || n == 0);

  lut = cached_lut (display->colormap);
  mapping_init (&m, display);

  /* In blocks: indices on the stack, then the colours. */
  for (gsize start = 0; start < n; start += G_N_ELEMENTS (indices))
    {
      gsize count = MIN (n - start, G_N_ELEMENTS (indices));

      map_indices (&m, data + start, count, indices);
      for (gsize i = 0; i < count; i++)
        memcpy (rgba + 4 * (start + i), lut + 4 * indices[i], 4);
    }
}

GBytes *
braggscope_colormap_apply_to_bytes (const BraggscopeDisplay *display, const float *data, gsize n)
{
  guint8 *rgba;

  g_return_val_if_fail (display != NULL, NULL);
  g_return_val_if_fail (data != NULL || n == 0, NULL);
  g_return_val_if_fail (n <= G_MAXSIZE / 4, NULL);

  rgba = g_malloc (MAX (n, 1) * 4);
  braggscope_colormap_apply (display, data, n, rgba);
  return g_bytes_new_take (rgba, n * 4);
}

/* ------------------------------------------------------------------------- */
/* Auto-contrast: the engine's exact percentiles (nb_image_window(), also
 * what a frame's window is computed with, on the GPU where it was rendered). */

void
braggscope_auto_contrast (const float *data,
                          gsize n,
                          double low_percentile,
                          double high_percentile,
                          double *low,
                          double *high)
{
  g_return_if_fail (data != NULL || n == 0);
  g_return_if_fail (low != NULL && high != NULL);

  nb_image_window (data, n, low_percentile, high_percentile, low, high);
}

/* How far above the background's median a count must be to be painted as
 * dark as a spot: ten times its Poisson noise. */
#define COUNTS_NOISE_SIGMAS 10.0

void
braggscope_auto_contrast_counts (const float *data,
                                 gsize n,
                                 double low_percentile,
                                 double high_percentile,
                                 double *low,
                                 double *high)
{
  double median = 0.0, unused, floor_high;

  g_return_if_fail (data != NULL || n == 0);
  g_return_if_fail (low != NULL && high != NULL);

  nb_image_window (data, n, low_percentile, high_percentile, low, high);
  for (gsize i = 0; i < n; i++)
    if (isfinite (data[i]) && data[i] != floorf (data[i]))
      return;
  nb_image_window (data, n, 50.0, 50.0, &median, &unused);
  floor_high = median + COUNTS_NOISE_SIGMAS * sqrt (MAX (median, 1.0));
  if (*high < floor_high)
    *high = floor_high;
}
