/* braggscope-overlay-private.h: where the direct beam and resolution rings lie
 * on a frame, and drawing them with cairo.  Shared by the view's on-screen
 * overlays and its frame-resolution renderings.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <cairo.h>
#include <pango/pango.h>

#include "braggscope.h"
#include "braggscope-view.h"

G_BEGIN_DECLS

#define BRAGGSCOPE_OVERLAY_MAX_RINGS 6

/* Reflections labelled by name at most (a lesson names two or three). */
#define BRAGGSCOPE_OVERLAY_MAX_NAMED 32

/* Pixels: GTK's body font (Sans 10 at 96 dots per inch), the smallest text
 * drawn over a frame. */
#define BRAGGSCOPE_OVERLAY_LEGIBLE_SIZE (10.0 * 96.0 / 72.0)

/* The detector plane seen from the sample: pixel coordinates (x, y, 1) map to
 * the direction of the ray through them by a 3 x 3 matrix (a homography),
 * recovered from the geometry's answers (2 theta, azimuth) at four points, so
 * no detector vector has to be known.  Exact for flat detectors and gnomonic
 * projections.  An equal-angle projection (BRAGGSCOPE_PROJECTION_EQUAL_ANGLE)
 * is affine in 2 theta (cos azimuth, sin azimuth) instead, recovered from
 * three points the same way.  For others @projective is FALSE and nothing
 * is drawn. */
typedef struct
{
  int width, height;         /* frame pixels */
  gboolean projective;       /* the mapping reproduces the points not fitted */
  gboolean equal_angle;      /* pixel = to_pixel (2 theta cos az, 2 theta sin az, 1) */
  double to_direction[3][3]; /* pixel (x, y, 1) -> direction (beam along +z); unset
                                when equal_angle */
  double to_pixel[3][3];     /* its inverse */
  double wavelength;         /* Angstrom, from d and 2 theta */
  gboolean has_beam_center;  /* the beam meets the detector plane in front of the sample */
  double beam_x, beam_y;     /* pixel coordinates of the direct beam */
  int n_rings;
  double ring_d[BRAGGSCOPE_OVERLAY_MAX_RINGS];         /* Angstrom */
  double ring_two_theta[BRAGGSCOPE_OVERLAY_MAX_RINGS]; /* radians */
  BraggscopeGeometry *panels; /* borrowed from the geometry it was made of: a projection of
                                 several panels (braggscope_frame_project), whose outlines
                                 are drawn and on which the rings are; else NULL */
} BraggscopeOverlayGeometry;

/* braggscope-overlay-geometry.c: the projection, below the drawing and the
 * labels. */

/* Fills @out for a frame of @width x @height pixels rendered with @geometry.
 * Returns FALSE (and @out->projective FALSE) when the geometry cannot be
 * queried or is not a flat detector. */
gboolean _braggscope_overlay_geometry_init (BraggscopeOverlayGeometry *out,
                                            BraggscopeGeometry *geometry,
                                            int width,
                                            int height);

/* Replaces the automatic rings by rings at the resolutions of @text (Angstrom,
 * numbers separated by blanks or commas, at most BRAGGSCOPE_OVERLAY_MAX_RINGS;
 * those the wavelength cannot reach are left out).  Returns FALSE, changing
 * nothing, when @text is NULL, empty or not such a list. */
gboolean _braggscope_overlay_geometry_fix_rings (BraggscopeOverlayGeometry *geom, const char *text);

/* Reads "3, 2.5 2" into @d (at most @max numbers, each > 0); -1 when @text is
 * not such a list, else how many. */
int _braggscope_overlay_parse_resolutions (const char *text, double *d, int max);

/* The pixel coordinates where the ray at @two_theta, @azimuth (radians) meets
 * the detector plane; FALSE when it does not (parallel or behind). */
gboolean _braggscope_overlay_ray_to_pixel (
    const BraggscopeOverlayGeometry *geom, double two_theta, double azimuth, double *x, double *y);

/* braggscope-overlay.c and braggscope-overlay-labels.c: drawing. */

typedef struct
{
  gboolean rings;
  gboolean beam_center;
  /* frame pixel (x, y) is drawn at (x * scale + offset_x, y * scale + offset_y) */
  double scale, offset_x, offset_y;
  double line_width; /* in the target's units */
  double cross_size; /* half length of the beam centre cross, target units */
  double font_size;  /* pixels of the labels' text, target units */
  double color[4];   /* RGBA of lines and labels */
  double halo[4];    /* RGBA of the labels' edges, apart from color */
  gboolean marker;   /* a circle at (marker_x, marker_y), frame pixels, with marker_label */
  double marker_x, marker_y;
  const char *marker_label;
  /* reflections labelled with h k l (BraggscopeReflection, in order of
   * preference): a circle and the indices beside each spot, left out where
   * no place free of other labels is found; NULL for none */
  GArray *labels;
  GArray *labels_placed; /* out, when non-NULL: the reflections labelled */
  GArray *label_boxes;   /* out, when non-NULL: BraggscopeLabelBox of each label drawn */
} BraggscopeOverlayStyle;

/* A colour that stands out on @map. */
void _braggscope_overlay_color_for (BraggscopeColormap map, double rgba[4]);

/* The edge of labels in @color: white round dark text, black round light
 * text. */
void _braggscope_overlay_halo_for (const double color[4], double halo[4]);

/* The reflections to label on @frame: those of @named ("h k l; h k l", or
 * NULL) predicted on its detector, then its @n brightest
 * (braggscope_frame_get_brightest_reflections); NULL when prediction fails. */
GArray *_braggscope_overlay_choose_labels (BraggscopeFrame *frame,
                                           guint n,
                                           const char *named,
                                           GError **error);

/* Reads "0 0 6; 0 0 12" into @hkl (at most @max triples of integers); -1
 * when @text is not such a list, else how many. */
int _braggscope_overlay_parse_reflections (const char *text, int (*hkl)[3], int max);

/* Draws the rings' d and the labels of @style->labels where each finds
 * room (braggscope-overlay-labels.c). */
void _braggscope_overlay_draw_labels (const BraggscopeOverlayGeometry *geom,
                                      const BraggscopeOverlayStyle *style,
                                      cairo_t *cr);

/* Draws rings (with their d in Angstrom) and the beam centre cross on @cr. */
void _braggscope_overlay_draw (const BraggscopeOverlayGeometry *geom,
                               const BraggscopeOverlayStyle *style,
                               cairo_t *cr);

/* Draws the overlays switched on (and @labels, as the style's) into @rgba,
 * an opaque image (@stride pixels wide, RGBA, row-major) whose columns @x0
 * to @x0 + @geom->width and rows 0 to @geom->height hold the frame at its
 * resolution, in the style of the view's snapshots: lines, cross and labels
 * scaled with the frame's size (text never under the body font's size), in
 * @color (RGBA, 0 to 1), inside that rectangle; the labels drawn go into
 * @label_boxes (BraggscopeLabelBox, the picture's pixels) when not NULL.
 * Needs no display. */
void _braggscope_overlay_draw_into_rgba (const BraggscopeOverlayGeometry *geom,
                                         gboolean rings,
                                         gboolean beam_center,
                                         GArray *labels,
                                         GArray *label_boxes,
                                         const double color[4],
                                         guint8 *rgba,
                                         int stride,
                                         int x0);

/* Draws @text in a dark box at (@x, @y) (its top-left corner, target
 * units), @font_size high, in white: a layer's caption. */
void _braggscope_overlay_draw_caption (
    cairo_t *cr, const char *text, double x, double y, double font_size);

G_END_DECLS
