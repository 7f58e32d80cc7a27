/* test-colormap.c: colour tables, the intensity mapping and percentile
 * auto-contrast of libbraggscope against known values.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "braggscope.h"

/* CIE L* of an sRGB byte triple, written independently of the library's
 * conversion: relative luminance with the Rec. 709 weights, then L*. */
static double
lightness (const guint8 *rgb)
{
  double linear[3], y;

  for (int i = 0; i < 3; i++)
    {
      double c = rgb[i] / 255.0;
      linear[i] = c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
    }
  y = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2];
  return y > 216.0 / 24389.0 ? 116.0 * cbrt (y) - 16.0 : y * 24389.0 / 27.0;
}

static void
assert_rgb (const guint8 *rgba, guint r, guint g, guint b)
{
  g_assert_cmpuint (rgba[0], ==, r);
  g_assert_cmpuint (rgba[1], ==, g);
  g_assert_cmpuint (rgba[2], ==, b);
  g_assert_cmpuint (rgba[3], ==, 255);
}

static void
assert_rgb_near (const guint8 *rgba, guint r, guint g, guint b, guint tolerance)
{
  g_assert_cmpuint (ABS ((int) rgba[0] - (int) r), <=, tolerance);
  g_assert_cmpuint (ABS ((int) rgba[1] - (int) g), <=, tolerance);
  g_assert_cmpuint (ABS ((int) rgba[2] - (int) b), <=, tolerance);
}

static void
test_lut_endpoints (void)
{
  guint8 lut[256 * 4];

  braggscope_colormap_lut (BRAGGSCOPE_COLORMAP_GREY, lut);
  assert_rgb (lut, 0, 0, 0);
  assert_rgb (lut + 4 * 128, 128, 128, 128);
  assert_rgb (lut + 4 * 255, 255, 255, 255);

  braggscope_colormap_lut (BRAGGSCOPE_COLORMAP_INVERTED_GREY, lut);
  assert_rgb (lut, 255, 255, 255);
  assert_rgb (lut + 4 * 255, 0, 0, 0);

  /* The published ends of viridis (#440154, #fde725) and magma (#000004,
   * #fcfdbf) are anchors: reproduced exactly. */
  braggscope_colormap_lut (BRAGGSCOPE_COLORMAP_VIRIDIS, lut);
  assert_rgb (lut, 0x44, 0x01, 0x54);
  assert_rgb (lut + 4 * 255, 0xfd, 0xe7, 0x25);
  /* Between anchors: matplotlib's viridis(0.25), (0.5), (0.75) are #3b528b,
   * #21918c, #5ec962; entries 64, 128, 191 sit at t = 0.251, 0.502, 0.749. */
  assert_rgb_near (lut + 4 * 64, 0x3b, 0x52, 0x8b, 3);
  assert_rgb_near (lut + 4 * 128, 0x21, 0x91, 0x8c, 3);
  assert_rgb_near (lut + 4 * 191, 0x5e, 0xc9, 0x62, 5);

  braggscope_colormap_lut (BRAGGSCOPE_COLORMAP_MAGMA, lut);
  assert_rgb (lut, 0x00, 0x00, 0x04);
  assert_rgb (lut + 4 * 255, 0xfc, 0xfd, 0xbf);
  /* magma(0.5) is #b73779. */
  assert_rgb_near (lut + 4 * 128, 0xb7, 0x37, 0x79, 3);

  braggscope_colormap_lut (BRAGGSCOPE_COLORMAP_HEAT, lut);
  assert_rgb (lut, 0, 0, 0);
  assert_rgb (lut + 4 * 85, 255, 0, 0);
  assert_rgb (lut + 4 * 170, 255, 255, 0);
  assert_rgb (lut + 4 * 255, 255, 255, 255);

  /* An unknown map falls back to grey. */
  braggscope_colormap_lut ((BraggscopeColormap) 99, lut);
  assert_rgb (lut + 4 * 200, 200, 200, 200);
}

static void
test_lut_lightness (void)
{
  struct
  {
    BraggscopeColormap map;
    int direction; /* +1 strictly rising, -1 strictly falling, 0 never falling */
  } cases[] = {
    { BRAGGSCOPE_COLORMAP_GREY, 1 },    { BRAGGSCOPE_COLORMAP_INVERTED_GREY, -1 },
    { BRAGGSCOPE_COLORMAP_VIRIDIS, 1 }, { BRAGGSCOPE_COLORMAP_MAGMA, 1 },
    { BRAGGSCOPE_COLORMAP_HEAT, 0 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      guint8 lut[256 * 4];
      double first, last, max_step = 0.0, min_step = INFINITY;

      braggscope_colormap_lut (cases[c].map, lut);
      for (int i = 1; i < 256; i++)
        {
          double step = lightness (lut + 4 * i) - lightness (lut + 4 * (i - 1));

          if (cases[c].direction > 0)
            g_assert_cmpfloat (step, >, 0.0);
          else if (cases[c].direction < 0)
            g_assert_cmpfloat (step, <, 0.0);
          else
            g_assert_cmpfloat (step, >=, 0.0);
          g_assert_cmpuint (lut[4 * i + 3], ==, 255);
          max_step = MAX (max_step, fabs (step));
          min_step = MIN (min_step, fabs (step));
        }

      first = lightness (lut);
      last = lightness (lut + 4 * 255);
      g_test_message ("map %d: L* %.1f -> %.1f, steps %.3f..%.3f", cases[c].map, first, last,
                      min_step, max_step);
      /* The perceptual maps climb evenly: no step three times the mean. */
      if (cases[c].map == BRAGGSCOPE_COLORMAP_VIRIDIS || cases[c].map == BRAGGSCOPE_COLORMAP_MAGMA)
        g_assert_cmpfloat (max_step, <, 3.0 * (last - first) / 255.0);
    }
}

static guint
index_of (BraggscopeScale scale, double gamma, double low, double high, double v)
{
  BraggscopeDisplay d;

  braggscope_display_init (&d);
  d.scale = scale;
  d.gamma = gamma;
  d.low = low;
  d.high = high;
  return braggscope_colormap_index (&d, v);
}

static void
test_scales (void)
{
  /* linear: t = (v - low) / (high - low), index = floor (255 t + 0.5) */
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LINEAR, 1, 0, 255, 0), ==, 0);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LINEAR, 1, 0, 255, 100), ==, 100);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LINEAR, 1, 0, 255, 127.5), ==, 128);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LINEAR, 1, 0, 255, 127.4), ==, 127);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LINEAR, 1, 0, 255, 255), ==, 255);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LINEAR, 1, 0, 255, -5), ==, 0);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LINEAR, 1, 0, 255, 1e30), ==, 255);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LINEAR, 1, 10, 20, 15), ==, 128);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LINEAR, 1, 0, 255, NAN), ==, 0);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LINEAR, 1, 0, 255, INFINITY), ==, 255);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LINEAR, 1, 0, 255, -INFINITY), ==, 0);

  /* log: t = log10 (1 + max (v - low, 0)) / log10 (1 + high - low) */
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LOG, 1, 0, 999, 0), ==, 0);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LOG, 1, 0, 999, 9), ==, 85);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LOG, 1, 0, 999, 99), ==, 170);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LOG, 1, 0, 999, 999), ==, 255);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LOG, 1, 10, 1009, 19), ==, 85);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LOG, 1, 10, 1009, 5), ==, 0);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_LOG, 1, 0, 999, NAN), ==, 0);

  /* gamma: t^(1/gamma) of the linear t */
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_GAMMA, 2, 0, 100, 4), ==, 51);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_GAMMA, 2, 0, 100, 25), ==, 128);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_GAMMA, 2, 0, 100, 64), ==, 204);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_GAMMA, 0.5, 0, 100, 50), ==, 64);
  /* a gamma that is not positive acts as 1 */
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_GAMMA, 0, 0, 100, 50), ==, 128);
  g_assert_cmpuint (index_of (BRAGGSCOPE_SCALE_GAMMA, -3, 0, 100, 20), ==, 51);

  /* an empty window is a threshold at low */
  for (int s = BRAGGSCOPE_SCALE_LINEAR; s <= BRAGGSCOPE_SCALE_GAMMA; s++)
    {
      g_assert_cmpuint (index_of (s, 2, 5, 5, 5), ==, 0);
      g_assert_cmpuint (index_of (s, 2, 5, 5, 5.01), ==, 255);
      g_assert_cmpuint (index_of (s, 2, 5, 1, 4), ==, 0);
      g_assert_cmpuint (index_of (s, 2, 5, 1, 6), ==, 255);
    }
}

/* apply() has a loop per scale; each must agree with index() and the table. */
static void
test_apply_matches_index (void)
{
  const gsize n = 20011; /* more than one of apply()'s blocks, and not a multiple */
  g_autofree float *data = g_new (float, n);
  g_autofree guint8 *rgba = g_new (guint8, 4 * n);
  g_autofree guint8 *indices = g_new (guint8, n);
  g_autoptr (GRand) rand = g_rand_new_with_seed (4242);

  for (gsize i = 0; i < n; i++)
    data[i] = (float) (g_rand_double_range (rand, -20.0, 2000.0) *
                       (g_rand_boolean (rand) ? 1.0 : g_rand_double (rand)));
  data[0] = NAN;
  data[1] = INFINITY;
  data[2] = -INFINITY;

  for (int map = BRAGGSCOPE_COLORMAP_GREY; map <= BRAGGSCOPE_COLORMAP_HEAT; map++)
    for (int scale = BRAGGSCOPE_SCALE_LINEAR; scale <= BRAGGSCOPE_SCALE_GAMMA; scale++)
      for (int window = 0; window < 2; window++)
        {
          BraggscopeDisplay d;
          guint8 lut[256 * 4];
          g_autoptr (GBytes) bytes = NULL;

          braggscope_display_init (&d);
          d.colormap = map;
          d.scale = scale;
          d.gamma = 2.2;
          d.low = window == 0 ? 3.5 : 700.0;
          d.high = window == 0 ? 1500.0 : 700.0;
          braggscope_colormap_lut (map, lut);
          braggscope_colormap_apply (&d, data, n, rgba);
          braggscope_colormap_apply_indices (&d, data, n, indices);
          for (gsize i = 0; i < n; i++)
            {
              guint index = braggscope_colormap_index (&d, data[i]);
              g_assert_cmpuint (indices[i], ==, index);
              g_assert_cmpmem (rgba + 4 * i, 4, lut + 4 * index, 4);
            }

          bytes = braggscope_colormap_apply_to_bytes (&d, data, n);
          g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), rgba, 4 * n);
        }
}

static int
compare_floats (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;

  return (x > y) - (x < y);
}

/* The documented percentile from a fully sorted copy: the reference the
 * selection is checked against. */
static double
sorted_percentile (const float *sorted, gsize m, double p)
{
  double position = p / 100.0 * (m - 1);
  gsize k = (gsize) floor (position);

  if (k + 1 >= m)
    return sorted[m - 1];
  return sorted[k] + (position - k) * (sorted[k + 1] - sorted[k]);
}

/* Issue 24: a sparse Pilatus frame (0 to 2 counts between its spots) got the
 * window 0..2, which paints a single photon as dark as a spot.  Counts get a
 * top above their noise; photons per pixel (not whole numbers) keep the
 * percentiles. */
static void
test_auto_contrast_counts (void)
{
  g_autofree float *counts = g_new (float, 10000);
  double low, high, plain_low, plain_high;

  /* 92 % zeros, 7.5 % ones, 0.4 % twos, a few spots of 50 counts, masked gaps */
  for (int i = 0; i < 10000; i++)
    counts[i] = i % 1000 == 0 ? 50.0f : i % 100 < 92 ? 0.0f : i % 100 < 99 ? 1.0f : 2.0f;
  counts[17] = NAN;
  braggscope_auto_contrast (counts, 10000, 1.0, 99.5, &plain_low, &plain_high);
  g_assert_cmpfloat (plain_high, ==, 2.0);
  braggscope_auto_contrast_counts (counts, 10000, 1.0, 99.5, &low, &high);
  g_assert_cmpfloat (low, ==, plain_low);
  /* median 0: 0 + 10 sqrt(1) */
  g_assert_cmpfloat (high, ==, 10.0);

  /* photons per pixel: the percentiles as they are */
  for (int i = 0; i < 10000; i++)
    counts[i] = isnan (counts[i]) ? NAN : counts[i] * 0.01f + 1e-4f;
  braggscope_auto_contrast (counts, 10000, 1.0, 99.5, &plain_low, &plain_high);
  braggscope_auto_contrast_counts (counts, 10000, 1.0, 99.5, &low, &high);
  g_assert_cmpfloat (low, ==, plain_low);
  g_assert_cmpfloat (high, ==, plain_high);
}

static void
test_auto_contrast (void)
{
  float ramp[101], ramp_copy[101];
  float odd[] = { 1.0f, NAN, 3.0f, INFINITY, -INFINITY };
  float flat[50];
  double low, high;

  /* 0..100 in a scrambled order: percentile p is p itself. */
  for (int i = 0; i < 101; i++)
    ramp[i] = (float) ((i * 37) % 101);
  memcpy (ramp_copy, ramp, sizeof ramp);
  braggscope_auto_contrast (ramp, 101, 10, 90, &low, &high);
  g_assert_cmpfloat (low, ==, 10.0);
  g_assert_cmpfloat (high, ==, 90.0);
  g_assert_cmpmem (ramp, sizeof ramp, ramp_copy, sizeof ramp_copy);
  braggscope_auto_contrast (ramp, 101, 12.5, 99.5, &low, &high);
  g_assert_cmpfloat_with_epsilon (low, 12.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (high, 99.5, 1e-9);
  braggscope_auto_contrast (ramp, 101, 0, 100, &low, &high);
  g_assert_cmpfloat (low, ==, 0.0);
  g_assert_cmpfloat (high, ==, 100.0);
  /* wrong order and out of range are tolerated */
  braggscope_auto_contrast (ramp, 101, 95, -5, &low, &high);
  g_assert_cmpfloat (low, ==, 0.0);
  g_assert_cmpfloat (high, ==, 95.0);

  /* non-finite values are left out */
  braggscope_auto_contrast (odd, G_N_ELEMENTS (odd), 0, 100, &low, &high);
  g_assert_cmpfloat (low, ==, 1.0);
  g_assert_cmpfloat (high, ==, 3.0);
  braggscope_auto_contrast (odd, G_N_ELEMENTS (odd), 50, 50, &low, &high);
  g_assert_cmpfloat (low, ==, 2.0);
  g_assert_cmpfloat (high, ==, 3.0); /* empty window: the largest value */

  /* nothing to go on */
  braggscope_auto_contrast (NULL, 0, 1, 99, &low, &high);
  g_assert_cmpfloat (low, ==, 0.0);
  g_assert_cmpfloat (high, ==, 1.0);
  for (guint i = 0; i < G_N_ELEMENTS (flat); i++)
    flat[i] = 7.0f;
  braggscope_auto_contrast (flat, G_N_ELEMENTS (flat), 1, 99, &low, &high);
  g_assert_cmpfloat (low, ==, 7.0);
  g_assert_cmpfloat (high, ==, 8.0);

  /* A diffraction-like image: mostly empty background, some noise, a few
   * bright spots; against the sorted reference. */
  {
    const gsize n = 200003;
    g_autofree float *image = g_new (float, n);
    g_autofree float *sorted = NULL;
    g_autoptr (GRand) rand = g_rand_new_with_seed (77);
    const double percentiles[][2] = { { 1, 99.5 },     { 0, 100 },     { 50, 50 },
                                      { 33.3, 99.99 }, { 70, 70.001 }, { 0.001, 99.9 } };

    for (gsize i = 0; i < n; i++)
      {
        double u = g_rand_double (rand);
        image[i] = u < 0.6     ? 0.0f
                   : u < 0.995 ? (float) g_rand_int_range (rand, 0, 40)
                               : (float) g_rand_double_range (rand, 100, 1e5);
      }
    sorted = g_memdup2 (image, n * sizeof (float));
    qsort (sorted, n, sizeof (float), compare_floats);

    for (guint c = 0; c < G_N_ELEMENTS (percentiles); c++)
      {
        double expect_low = sorted_percentile (sorted, n, percentiles[c][0]);
        double expect_high = sorted_percentile (sorted, n, percentiles[c][1]);

        braggscope_auto_contrast (image, n, percentiles[c][0], percentiles[c][1], &low, &high);
        g_assert_cmpfloat_with_epsilon (low, expect_low, 1e-6 * MAX (1.0, fabs (expect_low)));
        if (expect_high > expect_low)
          g_assert_cmpfloat_with_epsilon (high, expect_high, 1e-6 * MAX (1.0, fabs (expect_high)));
        else
          g_assert_cmpfloat (high, ==, sorted[n - 1] > low ? sorted[n - 1] : low + 1.0);
      }
  }
}

static void
test_display (void)
{
  BraggscopeDisplay d, *copy;
  g_autofree char *nick = NULL;
  GEnumClass *klass;

  braggscope_display_init (&d);
  g_assert_cmpint (d.colormap, ==, BRAGGSCOPE_COLORMAP_INVERTED_GREY);
  g_assert_cmpint (d.scale, ==, BRAGGSCOPE_SCALE_LINEAR);
  g_assert_cmpfloat (d.gamma, ==, 1.0);
  g_assert_cmpfloat (d.high, >, d.low);

  copy = braggscope_display_copy (&d);
  g_assert_cmpmem (copy, sizeof *copy, &d, sizeof d);
  braggscope_display_free (copy);
  g_assert_true (G_TYPE_IS_BOXED (BRAGGSCOPE_TYPE_DISPLAY));

  klass = g_type_class_ref (BRAGGSCOPE_TYPE_COLORMAP);
  g_assert_cmpstr (g_enum_get_value (klass, BRAGGSCOPE_COLORMAP_VIRIDIS)->value_nick, ==,
                   "viridis");
  g_assert_cmpuint (klass->n_values, ==, 5);
  g_type_class_unref (klass);
  klass = g_type_class_ref (BRAGGSCOPE_TYPE_SCALE);
  g_assert_cmpstr (g_enum_get_value (klass, BRAGGSCOPE_SCALE_LOG)->value_nick, ==, "log");
  g_type_class_unref (klass);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/colormap/lut/endpoints", test_lut_endpoints);
  g_test_add_func ("/colormap/lut/lightness", test_lut_lightness);
  g_test_add_func ("/colormap/scales", test_scales);
  g_test_add_func ("/colormap/apply", test_apply_matches_index);
  g_test_add_func ("/colormap/auto-contrast", test_auto_contrast);
  g_test_add_func ("/colormap/auto-contrast-counts", test_auto_contrast_counts);
  g_test_add_func ("/colormap/display", test_display);

  return g_test_run ();
}
