/* braggscope-overlay-geometry.c: where the direct beam and resolution rings
 * lie on a frame: the detector plane's projection (a homography recovered
 * from the geometry's answers), the rings' resolutions and where a ray meets
 * the detector.  Below both braggscope-overlay.c (the lines, the cross) and
 * braggscope-overlay-labels.c (the labels), which use it; it calls neither.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-overlay-private.h"

#include <math.h>
#include <string.h>

typedef double Mat3[3][3];

static double
det3 (const Mat3 m)
{
  return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
         m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
         m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

/* Inverse by cofactors; FALSE when @m is (nearly) singular. */
static gboolean
invert3 (const Mat3 m, Mat3 out)
{
  double det = det3 (m);
  double scale = 0.0;

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      scale = MAX (scale, fabs (m[i][j]));
  if (!isfinite (det) || fabs (det) <= 1e-14 * scale * scale * scale)
    return FALSE;

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      {
        int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
        out[i][j] = (m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]) / det;
      }
  return TRUE;
}

static void
mul3 (const Mat3 a, const Mat3 b, Mat3 out)
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      out[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
}

static void
apply3 (const Mat3 m, const double v[3], double out[3])
{
  for (int i = 0; i < 3; i++)
    out[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2];
}

/* The matrix that maps the basis vectors e1, e2, e3 and (1, 1, 1) to
 * multiples of the columns p[0..3]: [a p0 | b p1 | c p2] with
 * a p0 + b p1 + c p2 = p3. */
static gboolean
basis_map (const double p[4][3], Mat3 out)
{
  Mat3 columns, inverse;
  double abc[3];

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      columns[i][j] = p[j][i];
  if (!invert3 (columns, inverse))
    return FALSE;
  apply3 (inverse, p[3], abc);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      out[i][j] = abc[j] * p[j][i];
  return TRUE;
}

/* The unit vector of the ray at (two_theta, azimuth) in the frame whose z is
 * the beam and whose x is the polarization direction (the azimuth's zero). */
static void
ray_direction (double two_theta, double azimuth, double out[3])
{
  out[0] = sin (two_theta) * cos (azimuth);
  out[1] = sin (two_theta) * sin (azimuth);
  out[2] = cos (two_theta);
}

static gboolean
query_direction (
    BraggscopeGeometry *geometry, double x, double y, double out[3], BraggscopePixelInfo *info_out)
{
  BraggscopePixelInfo info;

  if (!braggscope_geometry_query (geometry, x, y, &info, NULL))
    return FALSE;
  ray_direction (info.two_theta * G_PI / 180.0, info.azimuth * G_PI / 180.0, out);
  if (info_out != NULL)
    *info_out = info;
  return TRUE;
}

gboolean
_braggscope_overlay_ray_to_pixel (
    const BraggscopeOverlayGeometry *geom, double two_theta, double azimuth, double *x, double *y)
{
  double dir[3], h[3];

  if (!geom->projective)
    return FALSE;
  if (geom->equal_angle)
    {
      double w[3] = { two_theta * cos (azimuth), two_theta * sin (azimuth), 1.0 };

      apply3 (geom->to_pixel, w, h);
      *x = h[0];
      *y = h[1];
      return isfinite (*x) && isfinite (*y);
    }
  ray_direction (two_theta, azimuth, dir);
  apply3 (geom->to_pixel, dir, h);
  if (!(h[2] > 1e-12 * (fabs (h[0]) + fabs (h[1]))))
    return FALSE;
  *x = h[0] / h[2];
  *y = h[1] / h[2];
  return isfinite (*x) && isfinite (*y);
}

/* The round resolutions rings are drawn at: 1, 1.2, 1.5, 1.8, 2, 2.5, 3,
 * 3.5, 4, 5, 6 and 8 times a power of ten, the values a crystallographer
 * would write. */
static const double round_mantissas[] = {
  1.0, 1.2, 1.5, 1.8, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 8.0
};

/* The @i-th round resolution counted from 1 Angstrom (@i = 0; coarser as @i
 * grows, finer below 0). */
static double
round_resolution_at (int i)
{
  int n = (int) G_N_ELEMENTS (round_mantissas);
  int decade = i >= 0 ? i / n : -((-i + n - 1) / n);

  return round_mantissas[i - decade * n] * pow (10.0, decade);
}

/* The index of the round resolution nearest @d, in ratio. */
static int
round_resolution_index (double d)
{
  int n = (int) G_N_ELEMENTS (round_mantissas);
  int decade = (int) floor (log10 (d)), best = decade * n;

  for (int i = decade * n - 1; i <= (decade + 1) * n; i++)
    if (fabs (log (round_resolution_at (i) / d)) < fabs (log (round_resolution_at (best) / d)))
      best = i;
  return best;
}

/* Up to five rings spread over the detector's range of 2 theta, each at the
 * round d nearest its place, so that labels read 10, 5, 3.5 Å rather than
 * the d of a radius. */
static void
choose_rings (BraggscopeOverlayGeometry *geom, BraggscopeGeometry *geometry)
{
  double lowest = INFINITY, highest = 0.0;
  const int per_edge = 32;
  int last = G_MAXINT;

  /* The range of 2 theta over the detector: its border, and 0 when the
   * beam falls on it. */
  for (int i = 0; i <= per_edge; i++)
    {
      double u = (double) i / per_edge;
      double points[4][2] = {
        { u * geom->width, 0.0 },
        { u * geom->width, geom->height },
        { 0.0, u * geom->height },
        { geom->width, u * geom->height },
      };

      for (int k = 0; k < 4; k++)
        {
          BraggscopePixelInfo info;

          if (!braggscope_geometry_query (geometry, points[k][0], points[k][1], &info, NULL))
            continue;
          lowest = MIN (lowest, info.two_theta * G_PI / 180.0);
          highest = MAX (highest, info.two_theta * G_PI / 180.0);
        }
    }
  if (geom->has_beam_center && geom->beam_x >= 0 && geom->beam_x <= geom->width &&
      geom->beam_y >= 0 && geom->beam_y <= geom->height)
    lowest = 0.0;

  geom->n_rings = 0;
  if (!(highest > lowest) || !(geom->wavelength > 0.0))
    return;

  for (int k = 1; k <= 5; k++)
    {
      double two_theta = lowest + k * (highest - lowest) / 5.5;
      double d, s;
      int i;

      if (!(two_theta > 0.0))
        continue;
      i = round_resolution_index (geom->wavelength / (2.0 * sin (two_theta / 2.0)));
      /* each ring finer than the one before: the next round d down */
      i = MIN (i, last - 1);
      d = round_resolution_at (i);
      s = geom->wavelength / (2.0 * d);
      if (!(s > 0.0 && s < 1.0) || 2.0 * asin (s) > highest || 2.0 * asin (s) <= lowest)
        continue;
      geom->ring_d[geom->n_rings] = d;
      geom->ring_two_theta[geom->n_rings] = 2.0 * asin (s);
      geom->n_rings++;
      last = i;
    }
}

int
_braggscope_overlay_parse_resolutions (const char *text, double *d, int max)
{
  g_auto (GStrv) words = NULL;
  int n = 0;

  if (text == NULL)
    return -1;
  words = g_strsplit_set (text, " ,;\t", -1);
  for (int i = 0; words[i] != NULL; i++)
    {
      char *end = NULL;
      double v;

      if (*words[i] == '\0')
        continue;
      v = g_ascii_strtod (words[i], &end);
      if (end == words[i] || *end != '\0' || !(v > 0.0) || !isfinite (v) || n >= max)
        return -1;
      d[n++] = v;
    }
  return n;
}

gboolean
_braggscope_overlay_geometry_fix_rings (BraggscopeOverlayGeometry *geom, const char *text)
{
  double d[BRAGGSCOPE_OVERLAY_MAX_RINGS];
  int n = _braggscope_overlay_parse_resolutions (text, d, BRAGGSCOPE_OVERLAY_MAX_RINGS);

  if (n <= 0)
    return FALSE;
  geom->n_rings = 0;
  for (int i = 0; i < n; i++)
    {
      double s = geom->wavelength / (2.0 * d[i]);

      if (!(s > 0.0 && s < 1.0))
        continue;
      geom->ring_d[geom->n_rings] = d[i];
      geom->ring_two_theta[geom->n_rings] = 2.0 * asin (s);
      geom->n_rings++;
    }
  return TRUE;
}

/* The point (2 theta cos azimuth, 2 theta sin azimuth, 1) of what (@x, @y)
 * sees (radians), and its answer. */
static gboolean
query_polar (
    BraggscopeGeometry *geometry, double x, double y, double out[3], BraggscopePixelInfo *info)
{
  double two_theta, azimuth;

  if (!braggscope_geometry_query (geometry, x, y, info, NULL))
    return FALSE;
  two_theta = info->two_theta * G_PI / 180.0;
  azimuth = info->azimuth * G_PI / 180.0;
  out[0] = two_theta * cos (azimuth);
  out[1] = two_theta * sin (azimuth);
  out[2] = 1.0;
  return isfinite (out[0]) && isfinite (out[1]);
}

/* @out for an equal-angle projection: the affine map from (2 theta cos
 * azimuth, 2 theta sin azimuth) to pixels through three corners, checked
 * at the fourth and a point inside; the beam at its origin. */
static gboolean
init_equal_angle (BraggscopeOverlayGeometry *out, BraggscopeGeometry *geometry)
{
  double pixels[5][2] = {
    { 0.0, 0.0 },
    { out->width, 0.0 },
    { 0.0, out->height },
    { out->width, out->height },
    { 0.5 * out->width, out->height / 3.0 },
  };
  double polar[5][3], h[3], size = MAX (out->width, out->height);
  Mat3 from_polar, to_polar;
  BraggscopePixelInfo info, widest = { 0 };

  for (int i = 0; i < 5; i++)
    {
      if (!query_polar (geometry, pixels[i][0], pixels[i][1], polar[i], &info))
        return FALSE;
      if (info.two_theta > widest.two_theta)
        widest = info;
    }
  /* pixel = to_pixel polar: its rows from the three corners' equations */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      from_polar[i][j] = polar[i][j];
  if (!invert3 (from_polar, to_polar))
    return FALSE;
  for (int j = 0; j < 3; j++)
    {
      double column[3];

      for (int i = 0; i < 3; i++)
        column[i] = j < 2 ? pixels[i][j] : 1.0;
      apply3 (to_polar, column, h);
      for (int k = 0; k < 3; k++)
        out->to_pixel[j][k] = h[k];
    }
  for (int i = 3; i < 5; i++)
    {
      apply3 (out->to_pixel, polar[i], h);
      if (!(fabs (h[0] - pixels[i][0]) < 1e-6 * size && fabs (h[1] - pixels[i][1]) < 1e-6 * size))
        return FALSE;
    }
  out->projective = out->equal_angle = TRUE;
  out->has_beam_center = TRUE;
  out->beam_x = out->to_pixel[0][2];
  out->beam_y = out->to_pixel[1][2];
  if (widest.two_theta > 0.0 && isfinite (widest.d_spacing))
    out->wavelength = 2.0 * widest.d_spacing * sin (widest.two_theta * G_PI / 360.0);
  choose_rings (out, geometry);
  return TRUE;
}

gboolean
_braggscope_overlay_geometry_init (BraggscopeOverlayGeometry *out,
                                   BraggscopeGeometry *geometry,
                                   int width,
                                   int height)
{
  double pixels[4][3] = {
    { 0.0, 0.0, 1.0 },
    { width, 0.0, 1.0 },
    { 0.0, height, 1.0 },
    { width, height, 1.0 },
  };
  double directions[4][3], check[3], predicted[3], beam[3] = { 0.0, 0.0, 1.0 }, h[3];
  double cosine, norm;
  Mat3 from_basis_to_directions, from_basis_to_pixels, to_basis;
  BraggscopePixelInfo info, widest = { 0 };

  memset (out, 0, sizeof *out);
  out->width = width;
  out->height = height;
  if (geometry == NULL || width <= 0 || height <= 0)
    return FALSE;
  if (braggscope_geometry_get_is_projection (geometry))
    out->panels = geometry;
  if (braggscope_geometry_get_projection (geometry) == BRAGGSCOPE_PROJECTION_EQUAL_ANGLE)
    return init_equal_angle (out, geometry);

  for (int i = 0; i < 4; i++)
    {
      if (!query_direction (geometry, pixels[i][0], pixels[i][1], directions[i], &info))
        return FALSE;
      if (info.two_theta > widest.two_theta)
        widest = info;
    }

  if (!basis_map ((const double (*)[3]) directions, from_basis_to_directions) ||
      !basis_map ((const double (*)[3]) pixels, from_basis_to_pixels) ||
      !invert3 (from_basis_to_pixels, to_basis))
    return FALSE;
  mul3 (from_basis_to_directions, to_basis, out->to_direction);
  if (!invert3 (out->to_direction, out->to_pixel))
    return FALSE;

  /* A fifth point off the corners tells a flat detector from a curved one. */
  if (!query_direction (geometry, 0.5 * width, height / 3.0, check, NULL))
    return FALSE;
  apply3 (out->to_direction, (double[3]){ 0.5 * width, height / 3.0, 1.0 }, predicted);
  norm = sqrt (predicted[0] * predicted[0] + predicted[1] * predicted[1] +
               predicted[2] * predicted[2]);
  cosine = (predicted[0] * check[0] + predicted[1] * check[1] + predicted[2] * check[2]) / norm;
  if (!(cosine > cos (1e-5)))
    return FALSE;
  out->projective = TRUE;

  apply3 (out->to_pixel, beam, h);
  if (h[2] > 0.0)
    {
      out->has_beam_center = TRUE;
      out->beam_x = h[0] / h[2];
      out->beam_y = h[1] / h[2];
    }

  if (widest.two_theta > 0.0 && isfinite (widest.d_spacing))
    out->wavelength = 2.0 * widest.d_spacing * sin (widest.two_theta * G_PI / 360.0);

  choose_rings (out, geometry);
  return TRUE;
}
