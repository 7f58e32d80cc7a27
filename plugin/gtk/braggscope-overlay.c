/* braggscope-overlay.c: drawing the beam centre cross, the resolution rings and
 * a marker with cairo, where braggscope-overlay-geometry.c puts them; the
 * labels are braggscope-overlay-labels.c's.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-overlay-private.h"

#include <math.h>
#include <string.h>
#include <pango/pangocairo.h>

#define N_RING_STEPS 360

void
_braggscope_overlay_halo_for (const double color[4], double halo[4])
{
  double luminance = 0.2126 * color[0] + 0.7152 * color[1] + 0.0722 * color[2];
  double v = luminance < 0.35 ? 1.0 : 0.0;

  halo[0] = halo[1] = halo[2] = v;
  halo[3] = 0.85;
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
draw_ring (const BraggscopeOverlayGeometry *geom,
           const BraggscopeOverlayStyle *style,
           cairo_t *cr,
           int ring)
{
  gboolean drawing = FALSE;

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
    }
  cairo_stroke (cr);
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

/* Points traced along each panel edge on an equal-angle projection, whose
 * edges are curves */
#define EDGE_POINTS 24

/* The outlines of @panels' panels as their projection places them, in
 * @style's target coordinates: a flat panel's edges stay straight lines
 * through a gnomonic projection (its corners joined), and are traced on an
 * equal-angle one. */
static void
panels_path (BraggscopeGeometry *panels, const BraggscopeOverlayStyle *style, cairo_t *cr)
{
  int points = braggscope_geometry_get_projection (panels) == BRAGGSCOPE_PROJECTION_EQUAL_ANGLE
                   ? EDGE_POINTS
                   : 1;

  for (int p = 0; p < braggscope_geometry_get_n_panels (panels); p++)
    {
      BraggscopePanel panel;
      gboolean ok = braggscope_geometry_get_panel (panels, p, &panel);
      double outline[4 * EDGE_POINTS][2];

      for (int e = 0; e < 4 && ok; e++)
        for (int i = 0; i < points && ok; i++)
          {
            double t = (double) i / points, *point = outline[e * points + i];
            double f[4] = { t * panel.width, panel.width, (1.0 - t) * panel.width, 0.0 };
            double s[4] = { 0.0, t * panel.height, panel.height, (1.0 - t) * panel.height };

            ok = braggscope_geometry_panel_to_point (panels, p, f[e], s[e], &point[0], &point[1]);
          }
      if (!ok)
        continue;
      for (int c = 0; c < 4 * points; c++)
        {
          double x, y;

          to_target (style, outline[c][0], outline[c][1], &x, &y);
          if (c == 0)
            cairo_move_to (cr, x, y);
          else
            cairo_line_to (cr, x, y);
        }
      cairo_close_path (cr);
    }
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

  if (geom->panels != NULL)
    {
      /* the panels' edges, faint, so that their gaps show */
      panels_path (geom->panels, style, cr);
      cairo_set_source_rgba (cr, style->color[0], style->color[1], style->color[2],
                             0.5 * style->color[3]);
      cairo_save (cr);
      cairo_set_line_width (cr, 0.6 * style->line_width);
      cairo_stroke (cr);
      cairo_restore (cr);
    }
  if (style->rings)
    {
      /* a ring where it meets the panels: between them nothing is measured */
      cairo_save (cr);
      if (geom->panels != NULL)
        {
          panels_path (geom->panels, style, cr);
          cairo_clip (cr);
        }
      for (int ring = 0; ring < geom->n_rings; ring++)
        {
          cairo_set_source_rgba (cr, style->color[0], style->color[1], style->color[2],
                                 style->color[3]);
          draw_ring (geom, style, cr, ring);
        }
      cairo_restore (cr);
    }

  /* the rings' d and the reflections' h k l, where each finds room */
  _braggscope_overlay_draw_labels (geom, style, cr);

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
                                    GArray *label_boxes,
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

  if (!geom->projective ||
      !(rings || beam_center || geom->panels != NULL || (labels != NULL && labels->len > 0)))
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
  /* scaled with the frame, never under the body font's size */
  style.font_size = MAX (BRAGGSCOPE_OVERLAY_LEGIBLE_SIZE, size / 50.0);
  style.label_boxes = label_boxes;
  memcpy (style.color, color, sizeof style.color);
  _braggscope_overlay_halo_for (color, style.halo);

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
