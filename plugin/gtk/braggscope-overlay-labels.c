/* braggscope-overlay-labels.c: the text over a frame, the rings' d and the
 * reflections' h k l, placed so that no two labels overlap.
 *
 * The places are taken in order: the circles of the labelled spots and the
 * beam centre first (no label hides them), then each ring's d where the ring
 * runs furthest up and right on the frame, or further round it where that
 * place is taken, then each reflection's h k l beside its spot (in its order
 * of preference).  A label that finds no free place inside the target is left
 * out, and so is one that would make the labels cover more than a fifth of
 * the target: a small view shows fewer labels, never smaller or piled ones.  Each
 * label's glyphs are edged with the halo colour, so that it reads over spots.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-overlay-private.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <string.h>

/* Places along a ring tried for its label (every 5 degrees of azimuth). */
#define RING_LABEL_PLACES 72

/* The part of the target that labels may cover at most: beyond it a small
 * view would be more text than picture. */
#define MAX_LABEL_COVER 0.2

typedef struct
{
  double x0, y0, x1, y1;
} Box;

typedef struct
{
  const BraggscopeOverlayStyle *style;
  PangoLayout *layout;
  GArray *taken;      /* Box */
  Box bounds;         /* where labels may lie: the target's clip */
  double pad, gap;    /* the halo's margin round the text; the space kept between labels */
  double spot_radius; /* of a labelled spot's circle */
  double area_left;   /* what labels may still cover, square target units */
} Placer;

static gboolean
boxes_overlap (const Box *a, const Box *b, double gap)
{
  return a->x0 < b->x1 + gap && b->x0 < a->x1 + gap && a->y0 < b->y1 + gap && b->y0 < a->y1 + gap;
}

static gboolean
is_free (const Placer *pl, const Box *box)
{
  if ((box->x1 - box->x0) * (box->y1 - box->y0) > pl->area_left)
    return FALSE;
  if (box->x0 < pl->bounds.x0 || box->y0 < pl->bounds.y0 || box->x1 > pl->bounds.x1 ||
      box->y1 > pl->bounds.y1)
    return FALSE;
  for (guint i = 0; i < pl->taken->len; i++)
    if (boxes_overlap (box, &g_array_index (pl->taken, Box, i), pl->gap))
      return FALSE;
  return TRUE;
}

static void
take (Placer *pl, double x0, double y0, double x1, double y1)
{
  Box box = { x0, y0, x1, y1 };

  g_array_append_val (pl->taken, box);
}

/* The size of @text's box: its logical rectangle and the halo's margin. */
static void
label_size (Placer *pl, const char *text, double *width, double *height)
{
  int w, h;

  pango_layout_set_text (pl->layout, text, -1);
  pango_layout_get_pixel_size (pl->layout, &w, &h);
  *width = w + 2.0 * pl->pad;
  *height = h + 2.0 * pl->pad;
}

/* Draws @text in @box, its glyphs edged with the halo colour so that they
 * read over spots, and records it. */
static void
draw_label (
    Placer *pl, cairo_t *cr, const Box *box, const char *text, const BraggscopeLabelBox *what)
{
  const BraggscopeOverlayStyle *style = pl->style;

  g_array_append_val (pl->taken, *box);
  pl->area_left -= (box->x1 - box->x0) * (box->y1 - box->y0);
  cairo_save (cr);
  cairo_new_path (cr);
  pango_layout_set_text (pl->layout, text, -1);
  cairo_move_to (cr, box->x0 + pl->pad, box->y0 + pl->pad);
  pango_cairo_layout_path (cr, pl->layout);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  cairo_set_line_width (cr, MAX (2.0, 0.3 * style->font_size));
  cairo_set_source_rgba (cr, style->halo[0], style->halo[1], style->halo[2], style->halo[3]);
  cairo_stroke_preserve (cr);
  cairo_set_source_rgba (cr, style->color[0], style->color[1], style->color[2], 1.0);
  cairo_fill (cr);
  cairo_restore (cr);

  if (style->label_boxes != NULL)
    {
      BraggscopeLabelBox record = *what;

      record.x = box->x0;
      record.y = box->y0;
      record.width = box->x1 - box->x0;
      record.height = box->y1 - box->y0;
      record.font_size = style->font_size;
      g_array_append_val (style->label_boxes, record);
    }
}

static void
to_target (const BraggscopeOverlayStyle *style, double x, double y, double *tx, double *ty)
{
  *tx = x * style->scale + style->offset_x;
  *ty = y * style->scale + style->offset_y;
}

typedef struct
{
  double x, y;  /* target units */
  double score; /* the higher, the more up and right on the frame */
} Anchor;

static int
by_score (gconstpointer a, gconstpointer b)
{
  double x = ((const Anchor *) a)->score, y = ((const Anchor *) b)->score;

  return x > y ? -1 : x < y;
}

/* Ring @ring's d, right of and above the first point of the ring (on the
 * frame, most up and right first) where it finds room. */
static void
place_ring_label (Placer *pl, const BraggscopeOverlayGeometry *geom, cairo_t *cr, int ring)
{
  g_autofree char *text = g_strdup_printf ("%g \u00c5", geom->ring_d[ring]);
  BraggscopeLabelBox what = { 0 };
  Anchor anchors[RING_LABEL_PLACES];
  double w, h, off = 0.25 * pl->style->font_size;
  int n = 0;

  for (int i = 0; i < RING_LABEL_PLACES; i++)
    {
      double azimuth = 2.0 * G_PI * i / RING_LABEL_PLACES, x, y;

      if (!_braggscope_overlay_ray_to_pixel (geom, geom->ring_two_theta[ring], azimuth, &x, &y) ||
          x < 0 || y < 0 || x > geom->width || y > geom->height)
        continue;
      anchors[n].score = x / geom->width - y / geom->height;
      to_target (pl->style, x, y, &anchors[n].x, &anchors[n].y);
      n++;
    }
  qsort (anchors, n, sizeof *anchors, by_score);
  label_size (pl, text, &w, &h);
  what.ring = TRUE;
  what.d_spacing = geom->ring_d[ring];
  for (int i = 0; i < n; i++)
    {
      Box box = { anchors[i].x + off, anchors[i].y - off - h, anchors[i].x + off + w,
                  anchors[i].y - off };

      if (is_free (pl, &box))
        {
          draw_label (pl, cr, &box, text, &what);
          return;
        }
    }
}

/* A reflection's h k l at the first of six places beside its spot (right
 * above, right below, left above, left below, above, below) where it finds
 * room, with a circle round the spot; none where none is free. */
static void
place_reflection_label (Placer *pl, cairo_t *cr, const BraggscopeReflection *r)
{
  const BraggscopeOverlayStyle *style = pl->style;
  g_autofree char *text = g_strdup_printf ("%d %d %d", r->h, r->k, r->l);
  BraggscopeLabelBox what = { 0 };
  double x, y, w, h, radius = pl->spot_radius, gap = 0.25 * style->font_size;

  to_target (style, r->x, r->y, &x, &y);
  label_size (pl, text, &w, &h);
  what.h = r->h;
  what.k = r->k;
  what.l = r->l;
  what.d_spacing = r->d_spacing;
  {
    const double places[6][2] = {
      { x + radius + gap, y - radius - h },     { x + radius + gap, y + radius },
      { x - radius - gap - w, y - radius - h }, { x - radius - gap - w, y + radius },
      { x - 0.5 * w, y - radius - gap - h },    { x - 0.5 * w, y + radius + gap },
    };

    for (int p = 0; p < 6; p++)
      {
        Box box = { places[p][0], places[p][1], places[p][0] + w, places[p][1] + h };

        if (!is_free (pl, &box))
          continue;
        if (style->labels_placed != NULL)
          g_array_append_val (style->labels_placed, *r);
        cairo_save (cr);
        cairo_set_line_width (cr, MAX (1.0, style->line_width));
        cairo_set_source_rgba (cr, style->color[0], style->color[1], style->color[2],
                               style->color[3]);
        cairo_new_path (cr);
        cairo_arc (cr, x, y, radius, 0, 2 * G_PI);
        cairo_stroke (cr);
        cairo_restore (cr);
        draw_label (pl, cr, &box, text, &what);
        return;
      }
  }
}

void
_braggscope_overlay_draw_labels (const BraggscopeOverlayGeometry *geom,
                                 const BraggscopeOverlayStyle *style,
                                 cairo_t *cr)
{
  PangoFontDescription *font = pango_font_description_from_string ("Sans Bold");
  Placer pl = { 0 };
  gboolean reflections = style->labels != NULL && style->labels->len > 0;

  if (!(style->rings && geom->n_rings > 0) && !reflections)
    {
      pango_font_description_free (font);
      return;
    }
  pl.style = style;
  pl.layout = pango_cairo_create_layout (cr);
  pango_font_description_set_absolute_size (font, style->font_size * PANGO_SCALE);
  pango_layout_set_font_description (pl.layout, font);
  pl.taken = g_array_new (FALSE, FALSE, sizeof (Box));
  pl.pad = 0.2 * style->font_size;
  pl.gap = 0.15 * style->font_size;
  pl.spot_radius = MAX (3.0, 0.5 * style->font_size);
  cairo_clip_extents (cr, &pl.bounds.x0, &pl.bounds.y0, &pl.bounds.x1, &pl.bounds.y1);
  pl.area_left = MAX_LABEL_COVER * (pl.bounds.x1 - pl.bounds.x0) * (pl.bounds.y1 - pl.bounds.y0);

  /* what no label may hide: the labelled spots and the beam centre */
  for (guint i = 0; reflections && i < style->labels->len; i++)
    {
      const BraggscopeReflection *r = &g_array_index (style->labels, BraggscopeReflection, i);
      double x, y;

      to_target (style, r->x, r->y, &x, &y);
      take (&pl, x - pl.spot_radius, y - pl.spot_radius, x + pl.spot_radius, y + pl.spot_radius);
    }
  if (style->beam_center && geom->has_beam_center)
    {
      double x, y;

      to_target (style, geom->beam_x, geom->beam_y, &x, &y);
      take (&pl, x - style->cross_size, y - style->cross_size, x + style->cross_size,
            y + style->cross_size);
    }

  for (int ring = 0; style->rings && ring < geom->n_rings; ring++)
    place_ring_label (&pl, geom, cr, ring);
  for (guint i = 0; reflections && i < style->labels->len; i++)
    place_reflection_label (&pl, cr, &g_array_index (style->labels, BraggscopeReflection, i));

  g_array_unref (pl.taken);
  g_object_unref (pl.layout);
  pango_font_description_free (font);
}

int
_braggscope_overlay_parse_reflections (const char *text, int (*hkl)[3], int max)
{
  g_auto (GStrv) items = NULL;
  int n = 0;

  if (text == NULL)
    return -1;
  items = g_strsplit_set (text, ";,", -1);
  for (int i = 0; items[i] != NULL; i++)
    {
      g_auto (GStrv) words = g_strsplit_set (g_strstrip (items[i]), " \t", -1);
      int count = 0, v[3];

      if (*items[i] == '\0')
        continue;
      for (int j = 0; words[j] != NULL; j++)
        {
          gint64 value;

          if (*words[j] == '\0')
            continue;
          if (count >= 3 || !g_ascii_string_to_signed (words[j], 10, -999, 999, &value, NULL))
            return -1;
          v[count++] = (int) value;
        }
      if (count != 3 || n >= max)
        return -1;
      memcpy (hkl[n++], v, sizeof v);
    }
  return n;
}

static gboolean
same_indices (const BraggscopeReflection *r, const int hkl[3])
{
  return r->h == hkl[0] && r->k == hkl[1] && r->l == hkl[2];
}

GArray *
_braggscope_overlay_choose_labels (BraggscopeFrame *frame,
                                   guint n,
                                   const char *named,
                                   GError **error)
{
  int hkl[BRAGGSCOPE_OVERLAY_MAX_NAMED][3];
  int n_named = _braggscope_overlay_parse_reflections (named, hkl, BRAGGSCOPE_OVERLAY_MAX_NAMED);
  int width = braggscope_frame_get_width (frame), height = braggscope_frame_get_height (frame);
  g_autoptr (GArray) brightest = braggscope_frame_get_brightest_reflections (frame, n, error);
  g_autoptr (GArray) predicted = NULL;
  GArray *out;

  if (brightest == NULL || n_named <= 0)
    return g_steal_pointer (&brightest);
  predicted = braggscope_frame_predict_reflections (frame, error);
  if (predicted == NULL)
    return NULL;
  out = g_array_new (FALSE, FALSE, sizeof (BraggscopeReflection));
  for (int i = 0; i < n_named; i++)
    for (guint j = 0; j < predicted->len; j++)
      {
        const BraggscopeReflection *r = &g_array_index (predicted, BraggscopeReflection, j);

        if (same_indices (r, hkl[i]) && r->x >= 0 && r->y >= 0 && r->x < width && r->y < height)
          {
            g_array_append_val (out, *r);
            break;
          }
      }
  for (guint j = 0; j < brightest->len; j++)
    {
      const BraggscopeReflection *r = &g_array_index (brightest, BraggscopeReflection, j);
      gboolean seen = FALSE;

      for (int i = 0; i < n_named && !seen; i++)
        seen = same_indices (r, hkl[i]);
      if (!seen)
        g_array_append_val (out, *r);
    }
  return out;
}
