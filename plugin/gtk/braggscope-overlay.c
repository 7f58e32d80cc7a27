/* braggscope-overlay.c: beam centre and resolution rings.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-overlay-private.h"

#include <math.h>
#include <string.h>
#include <pango/pangocairo.h>

#define N_RING_STEPS 360

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
  ray_direction (two_theta, azimuth, dir);
  apply3 (geom->to_pixel, dir, h);
  if (!(h[2] > 1e-12 * (fabs (h[0]) + fabs (h[1]))))
    return FALSE;
  *x = h[0] / h[2];
  *y = h[1] / h[2];
  return isfinite (*x) && isfinite (*y);
}

/* d rounded to two significant digits, so ring labels are short and exact. */
static double
round_resolution (double d)
{
  double unit = pow (10.0, floor (log10 (d)) - 1.0);

  return round (d / unit) * unit;
}

static void
choose_rings (BraggscopeOverlayGeometry *geom, BraggscopeGeometry *geometry)
{
  double lowest = INFINITY, highest = 0.0;
  const int per_edge = 32;

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

      if (!(two_theta > 0.0))
        continue;
      d = round_resolution (geom->wavelength / (2.0 * sin (two_theta / 2.0)));
      s = geom->wavelength / (2.0 * d);
      if (!(s > 0.0 && s < 1.0))
        continue;
      if (geom->n_rings > 0 && geom->ring_d[geom->n_rings - 1] == d)
        continue;
      geom->ring_d[geom->n_rings] = d;
      geom->ring_two_theta[geom->n_rings] = 2.0 * asin (s);
      geom->n_rings++;
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

void
_braggscope_overlay_color_for (BraggscopeColormap map, double rgba[4])
{
  static const double colors[][3] = {
    [BRAGGSCOPE_COLORMAP_GREY] = { 1.0, 0.25, 0.25 },
    [BRAGGSCOPE_COLORMAP_INVERTED_GREY] = { 0.85, 0.1, 0.1 },
    [BRAGGSCOPE_COLORMAP_VIRIDIS] = { 1.0, 0.3, 0.45 },
    [BRAGGSCOPE_COLORMAP_MAGMA] = { 0.3, 1.0, 0.8 },
    [BRAGGSCOPE_COLORMAP_HEAT] = { 0.3, 0.8, 1.0 },
  };
  guint index = (guint) map < G_N_ELEMENTS (colors) ? (guint) map : 0;

  rgba[0] = colors[index][0];
  rgba[1] = colors[index][1];
  rgba[2] = colors[index][2];
  rgba[3] = 0.9;
}

static void
to_target (const BraggscopeOverlayStyle *style, double x, double y, double *tx, double *ty)
{
  *tx = x * style->scale + style->offset_x;
  *ty = y * style->scale + style->offset_y;
}

static void
draw_label (const BraggscopeOverlayStyle *style, cairo_t *cr, double x, double y, double d)
{
  g_autofree char *text = g_strdup_printf ("%g \u00c5", d);
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans");

  pango_font_description_set_absolute_size (font, style->font_size * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);

  cairo_save (cr);
  cairo_move_to (cr, x + 0.5 * style->font_size, y - 1.5 * style->font_size);
  pango_cairo_layout_path (cr, layout);
  cairo_set_source_rgba (cr, 0.0, 0.0, 0.0, 0.6);
  cairo_set_line_width (cr, MAX (1.0, 0.2 * style->font_size));
  cairo_stroke_preserve (cr);
  cairo_set_source_rgba (cr, style->color[0], style->color[1], style->color[2], style->color[3]);
  cairo_fill (cr);
  cairo_restore (cr);

  pango_font_description_free (font);
  g_object_unref (layout);
}

static void
draw_ring (const BraggscopeOverlayGeometry *geom,
           const BraggscopeOverlayStyle *style,
           cairo_t *cr,
           int ring)
{
  gboolean drawing = FALSE;
  double label_x = 0.0, label_y = 0.0, label_score = -INFINITY;

  cairo_new_path (cr);
  for (int i = 0; i <= N_RING_STEPS; i++)
    {
      double azimuth = 2.0 * G_PI * i / N_RING_STEPS, x, y, tx, ty;

      if (!_braggscope_overlay_ray_to_pixel (geom, geom->ring_two_theta[ring], azimuth, &x, &y) ||
          fabs (x) > 4.0 * (geom->width + geom->height) ||
          fabs (y) > 4.0 * (geom->width + geom->height))
        {
          drawing = FALSE;
          continue;
        }
      to_target (style, x, y, &tx, &ty);
      if (drawing)
        cairo_line_to (cr, tx, ty);
      else
        cairo_move_to (cr, tx, ty);
      drawing = TRUE;

      /* The label goes where the ring is furthest up and right on the frame. */
      if (x >= 0 && x < geom->width * 0.9 && y > geom->height * 0.05 && y <= geom->height &&
          x - y > label_score)
        {
          label_score = x - y;
          label_x = tx;
          label_y = ty;
        }
    }
  cairo_stroke (cr);

  if (label_score > -INFINITY)
    draw_label (style, cr, label_x, label_y, geom->ring_d[ring]);
}

/* Where a reciprocal-lattice point's ray meets the detector: a circle and its
 * h k l, in a colour apart from the rings'. */
static void
draw_marker (const BraggscopeOverlayStyle *style, cairo_t *cr)
{
  double x, y, radius = 2.0 * style->cross_size / 3.0;

  to_target (style, style->marker_x, style->marker_y, &x, &y);
  cairo_save (cr);
  cairo_set_line_width (cr, 2.0 * style->line_width);
  cairo_set_source_rgba (cr, 0.0, 0.0, 0.0, 0.6);
  cairo_arc (cr, x, y, radius + style->line_width, 0, 2 * G_PI);
  cairo_stroke (cr);
  cairo_set_source_rgba (cr, 1.0, 0.3, 0.9, 1.0);
  cairo_arc (cr, x, y, radius, 0, 2 * G_PI);
  cairo_stroke (cr);
  if (style->marker_label != NULL)
    {
      PangoLayout *layout = pango_cairo_create_layout (cr);
      PangoFontDescription *font = pango_font_description_from_string ("Sans Bold");

      pango_font_description_set_absolute_size (font, style->font_size * PANGO_SCALE);
      pango_layout_set_font_description (layout, font);
      pango_layout_set_text (layout, style->marker_label, -1);
      cairo_move_to (cr, x + radius + 2.0, y - radius - style->font_size);
      pango_cairo_layout_path (cr, layout);
      cairo_set_source_rgba (cr, 0.0, 0.0, 0.0, 0.7);
      cairo_set_line_width (cr, MAX (1.0, 0.2 * style->font_size));
      cairo_stroke_preserve (cr);
      cairo_set_source_rgba (cr, 1.0, 0.3, 0.9, 1.0);
      cairo_fill (cr);
      pango_font_description_free (font);
      g_object_unref (layout);
    }
  cairo_restore (cr);
}

typedef struct
{
  double x0, y0, x1, y1;
} Box;

static gboolean
boxes_overlap (const Box *a, const Box *b)
{
  return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

static gboolean
box_is_free (const Box *box, GArray *taken, double width, double height)
{
  if (box->x0 < 0 || box->y0 < 0 || box->x1 > width || box->y1 > height)
    return FALSE;
  for (guint i = 0; i < taken->len; i++)
    if (boxes_overlap (box, &g_array_index (taken, Box, i)))
      return FALSE;
  return TRUE;
}

/* Each reflection's h k l beside its spot, at the first of six places (right
 * above, right below, left above, left below, above, below) that overlaps no
 * label placed before it nor any labelled spot; a reflection without such a
 * place is not labelled. */
static void
draw_labels (const BraggscopeOverlayGeometry *geom,
             const BraggscopeOverlayStyle *style,
             cairo_t *cr)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans");
  double radius = MAX (3.0, 0.5 * style->font_size), gap = 0.25 * style->font_size;
  double x0, y0, width, height;
  g_autoptr (GArray) taken = g_array_new (FALSE, FALSE, sizeof (Box));

  /* labels stay inside the target (the widget, or the frame's picture) */
  cairo_clip_extents (cr, &x0, &y0, &width, &height);
  pango_font_description_set_absolute_size (font, style->font_size * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);

  for (guint i = 0; i < style->labels->len; i++)
    {
      const BraggscopeReflection *r = &g_array_index (style->labels, BraggscopeReflection, i);
      double x, y;
      Box spot;

      to_target (style, r->x, r->y, &x, &y);
      spot = (Box){ x - radius, y - radius, x + radius, y + radius };
      g_array_append_val (taken, spot);
    }

  cairo_save (cr);
  cairo_set_line_width (cr, MAX (1.0, style->line_width));
  for (guint i = 0; i < style->labels->len; i++)
    {
      const BraggscopeReflection *r = &g_array_index (style->labels, BraggscopeReflection, i);
      g_autofree char *text = g_strdup_printf ("%d %d %d", r->h, r->k, r->l);
      double x, y, w, h;
      int pw, ph;
      gboolean placed = FALSE;
      Box box = { 0 };

      to_target (style, r->x, r->y, &x, &y);
      pango_layout_set_text (layout, text, -1);
      pango_layout_get_pixel_size (layout, &pw, &ph);
      w = pw;
      h = ph;
      {
        const double places[6][2] = {
          { x + radius + gap, y - radius - h },     { x + radius + gap, y + radius },
          { x - radius - gap - w, y - radius - h }, { x - radius - gap - w, y + radius },
          { x - 0.5 * w, y - radius - gap - h },    { x - 0.5 * w, y + radius + gap },
        };

        for (int p = 0; p < 6 && !placed; p++)
          {
            box = (Box){ places[p][0], places[p][1], places[p][0] + w, places[p][1] + h };
            placed = box_is_free (&box, taken, width, height);
          }
      }
      if (!placed)
        continue;
      g_array_append_val (taken, box);
      if (style->labels_placed != NULL)
        g_array_append_val (style->labels_placed, *r);

      cairo_set_source_rgba (cr, style->color[0], style->color[1], style->color[2],
                             style->color[3]);
      cairo_new_sub_path (cr);
      cairo_arc (cr, x, y, radius, 0, 2 * G_PI);
      cairo_stroke (cr);
      cairo_move_to (cr, box.x0, box.y0);
      pango_cairo_layout_path (cr, layout);
      cairo_set_source_rgba (cr, 0.0, 0.0, 0.0, 0.6);
      cairo_set_line_width (cr, MAX (1.0, 0.2 * style->font_size));
      cairo_stroke_preserve (cr);
      cairo_set_source_rgba (cr, style->color[0], style->color[1], style->color[2],
                             style->color[3]);
      cairo_fill (cr);
      cairo_set_line_width (cr, MAX (1.0, style->line_width));
    }
  cairo_restore (cr);
  pango_font_description_free (font);
  g_object_unref (layout);
}

void
_braggscope_overlay_draw (const BraggscopeOverlayGeometry *geom,
                          const BraggscopeOverlayStyle *style,
                          cairo_t *cr)
{
  if (!geom->projective)
    return;

  cairo_save (cr);
  cairo_set_line_width (cr, style->line_width);
  cairo_set_line_cap (cr, CAIRO_LINE_CAP_BUTT);
  cairo_set_source_rgba (cr, style->color[0], style->color[1], style->color[2], style->color[3]);

  if (style->rings)
    for (int ring = 0; ring < geom->n_rings; ring++)
      {
        cairo_set_source_rgba (cr, style->color[0], style->color[1], style->color[2],
                               style->color[3]);
        draw_ring (geom, style, cr, ring);
      }

  if (style->labels != NULL && style->labels->len > 0)
    draw_labels (geom, style, cr);

  if (style->marker)
    draw_marker (style, cr);

  if (style->beam_center && geom->has_beam_center)
    {
      double x, y;

      to_target (style, geom->beam_x, geom->beam_y, &x, &y);
      cairo_set_source_rgba (cr, style->color[0], style->color[1], style->color[2],
                             style->color[3]);
      cairo_move_to (cr, x - style->cross_size, y);
      cairo_line_to (cr, x + style->cross_size, y);
      cairo_move_to (cr, x, y - style->cross_size);
      cairo_line_to (cr, x, y + style->cross_size);
      cairo_stroke (cr);
    }

  cairo_restore (cr);
}

void
_braggscope_overlay_draw_into_rgba (const BraggscopeOverlayGeometry *geom,
                                    gboolean rings,
                                    gboolean beam_center,
                                    GArray *labels,
                                    const double color[4],
                                    guint8 *rgba,
                                    int stride,
                                    int x0)
{
  int width = geom->width, height = geom->height;
  cairo_surface_t *surface;
  BraggscopeOverlayStyle style = { 0 };
  double size = MIN (width, height);
  guint8 *data;
  int surface_stride;
  cairo_t *cr;

  if (!geom->projective || !(rings || beam_center || (labels != NULL && labels->len > 0)))
    return;
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, width, height);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      return;
    }

  /* cairo's pixels are native-endian xRGB words. */
  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  surface_stride = cairo_image_surface_get_stride (surface);
  for (int j = 0; j < height; j++)
    {
      guint32 *row = (guint32 *) (data + (gsize) j * surface_stride);
      const guint8 *in = rgba + ((gsize) j * stride + x0) * 4;

      for (int i = 0; i < width; i++)
        row[i] =
            0xff000000u | (guint32) in[4 * i] << 16 | (guint32) in[4 * i + 1] << 8 | in[4 * i + 2];
    }
  cairo_surface_mark_dirty (surface);

  style.rings = rings;
  style.beam_center = beam_center;
  style.labels = labels;
  style.scale = 1.0;
  style.line_width = MAX (1.0, size / 512.0);
  style.cross_size = MAX (6.0, size / 40.0);
  style.font_size = MAX (9.0, size / 50.0);
  memcpy (style.color, color, sizeof style.color);

  cr = cairo_create (surface);
  _braggscope_overlay_draw (geom, &style, cr);
  cairo_destroy (cr);
  cairo_surface_flush (surface);

  for (int j = 0; j < height; j++)
    {
      const guint32 *row = (const guint32 *) (data + (gsize) j * surface_stride);
      guint8 *out = rgba + ((gsize) j * stride + x0) * 4;

      for (int i = 0; i < width; i++)
        {
          out[4 * i] = row[i] >> 16 & 0xff;
          out[4 * i + 1] = row[i] >> 8 & 0xff;
          out[4 * i + 2] = row[i] & 0xff;
          out[4 * i + 3] = 255;
        }
    }
  cairo_surface_destroy (surface);
}

void
_braggscope_overlay_draw_caption (
    cairo_t *cr, const char *text, double x, double y, double font_size)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string ("Sans Bold");
  double pad = 0.4 * font_size;
  int w, h;

  pango_font_description_set_absolute_size (font, font_size * PANGO_SCALE);
  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &w, &h);

  cairo_save (cr);
  cairo_rectangle (cr, x, y, w + 2.0 * pad, h + pad);
  cairo_set_source_rgba (cr, 0.0, 0.0, 0.0, 0.75);
  cairo_fill (cr);
  cairo_move_to (cr, x + pad, y + 0.5 * pad);
  cairo_set_source_rgba (cr, 1.0, 1.0, 1.0, 1.0);
  pango_cairo_show_layout (cr, layout);
  cairo_restore (cr);

  pango_font_description_free (font);
  g_object_unref (layout);
}
