/* braggscope-geometry.h: what a detector pixel sees: resolution, angles, Miller indices. */
#pragma once

#include "braggscope-export.h"

#include <glib-object.h>

G_BEGIN_DECLS

#define BRAGGSCOPE_TYPE_GEOMETRY   (braggscope_geometry_get_type ())
#define BRAGGSCOPE_TYPE_PIXEL_INFO (braggscope_pixel_info_get_type ())

/**
 * BraggscopeGeometry:
 *
 * An immutable, reference-counted snapshot of the detector geometry, crystal
 * orientation and structure factors a frame was rendered with (the engine's
 * nb_geometry).  Safe to query from any thread while the simulation goes on.
 * A frame's is [method@Braggscope.Frame.get_geometry].
 *
 * Since: 0.1
 */
typedef struct _BraggscopeGeometry BraggscopeGeometry;

/**
 * BraggscopePixelInfo:
 * @d_spacing: resolution d = lambda / (2 sin theta), Angstrom; `INFINITY` at
 *   the direct beam (2 theta = 0)
 * @two_theta: scattering angle 2 theta to the direct beam, degrees
 * @q: |q| = 4 pi sin(theta) / lambda, 1/Angstrom
 * @azimuth: angle of the scattered ray about the beam, degrees in -180..180,
 *   0 along the polarization (E-vector) direction
 * @h: fractional Miller index h (real cell vector a . (s - s0) / lambda, the
 *   crystal at the middle of the first phi step)
 * @k: fractional Miller index k
 * @l: fractional Miller index l
 * @nearest_h: nearest whole h (nanoBragg's rounding, ceil (h - 0.5))
 * @nearest_k: nearest whole k
 * @nearest_l: nearest whole l
 * @structure_factor: structure factor |F| of (nearest_h, nearest_k,
 *   nearest_l): from the file, else the default F
 * @from_file: %TRUE when that reflection is one of the file's
 * @on_detector: %TRUE when the point lies on the detector's pixels (0 <= x <
 *   width and 0 <= y < height; with several panels, on one of them); %FALSE
 *   for a point off it, whose answer is the detector plane's, extended (a
 *   projection's plane, or panel 0's, for several panels)
 * @panel: the panel under the point (0-based, as
 *   [method@Braggscope.Geometry.get_panel] numbers them; 0 for a detector of
 *   one panel), or -1 off the detector
 * @panel_x: the point on that panel along its fast axis, pixels (its pixel f
 *   spans [f, f + 1)); NaN off every panel of several
 * @panel_y: along its slow axis, pixels
 * @reflection_d_spacing: resolution d of the reflection (nearest_h,
 *   nearest_k, nearest_l) itself, 1 / |h a* + k b* + l c*|, Angstrom
 *   (`INFINITY` for 0 0 0)
 * @computed_to: the resolution (Angstrom) to which the structure factors
 *   were computed from an atomic model (a PDB or mmCIF file given as
 *   [property@Braggscope.Simulation:structure-factors]): a reflection whose
 *   @reflection_d_spacing is smaller has the default F.  0 when they were
 *   read from a file (HKL, MTZ, `-sf.cif`)
 *
 * What the pixel under a point of the detector sees, computed by the engine
 * (nb_geometry_query, as nanoBragg.c computes it) with the central
 * wavelength: the answer of [method@Braggscope.Geometry.query].
 *
 * Since: 0.1
 */
typedef struct
{
  double d_spacing;
  double two_theta;
  double q;
  double azimuth;
  double h, k, l;
  int nearest_h, nearest_k, nearest_l;
  double structure_factor;
  gboolean from_file;
  gboolean on_detector;
  double reflection_d_spacing;
  double computed_to;
  int panel;
  double panel_x, panel_y;
} BraggscopePixelInfo;

/**
 * BraggscopeGeometryMap:
 * @BRAGGSCOPE_GEOMETRY_MAP_D_SPACING: resolution d, Angstrom (`INFINITY` at
 *   the direct beam)
 * @BRAGGSCOPE_GEOMETRY_MAP_TWO_THETA: scattering angle 2 theta, degrees
 * @BRAGGSCOPE_GEOMETRY_MAP_Q: |q| = 4 pi sin(theta) / lambda, 1/Angstrom
 * @BRAGGSCOPE_GEOMETRY_MAP_AZIMUTH: azimuth about the beam, degrees in
 *   -180..180, 0 along the polarization direction
 *
 * A per-pixel quantity of [method@Braggscope.Geometry.get_map], as
 * [struct@Braggscope.PixelInfo] names it.
 *
 * Since: 0.1
 */
typedef enum
{
  BRAGGSCOPE_GEOMETRY_MAP_D_SPACING,
  BRAGGSCOPE_GEOMETRY_MAP_TWO_THETA,
  BRAGGSCOPE_GEOMETRY_MAP_Q,
  BRAGGSCOPE_GEOMETRY_MAP_AZIMUTH,
} BraggscopeGeometryMap;

/**
 * BraggscopeProjection:
 * @BRAGGSCOPE_PROJECTION_NONE: not a projection: the frame's own image (one
 *   detector, or a multi-panel detector's panels one after another)
 * @BRAGGSCOPE_PROJECTION_GNOMONIC: the panels carried along their rays onto
 *   the plane normal to the beam at their mean distance: a flat detector
 *   looks as it is, a resolution ring is a circle; chosen when the panels
 *   stay below 60 degrees two-theta or the plane shows them evenly
 * @BRAGGSCOPE_PROJECTION_EQUAL_ANGLE: azimuthal equidistant about the beam:
 *   a ray at two-theta and azimuth phi lies at a radius proportional to
 *   two-theta (the panels' mean distance from the sample times two-theta in
 *   radians, in the smallest panel's pixels), at the azimuth phi, so that
 *   panels up to and past 90 degrees are seen at an even scale and a
 *   resolution ring is a circle; chosen for panels beyond 60 degrees
 *   two-theta (or past 90, which the plane cannot hold) whose areas on the
 *   gnomonic plane would differ by more than a factor 2 from their own
 *   (a detector curved round the sample, as the Pilatus 12M at Diamond's I23)
 *
 * How a geometry's coordinates show the detector
 * ([method@Braggscope.Geometry.get_projection]).
 *
 * Since: 0.2
 */
typedef enum
{
  BRAGGSCOPE_PROJECTION_NONE,
  BRAGGSCOPE_PROJECTION_GNOMONIC,
  BRAGGSCOPE_PROJECTION_EQUAL_ANGLE,
} BraggscopeProjection;

/**
 * BraggscopePanel:
 * @width: pixels along the panel's fast axis
 * @height: pixels along its slow axis
 * @offset: index, in the frame's data ([method@Braggscope.Frame.get_data]),
 *   of the panel's pixel (0, 0); its pixel (f, s) is at offset + s * width + f
 * @row: the panel's first row in the frame's image when the panels share one
 *   width (they are stacked, slow-wise), else -1 (the image is then one row)
 * @pixel_size: pixel size, mm (square pixels)
 * @origin: the outer corner of pixel (0, 0) seen from the sample, mm, in
 *   nanoBragg's laboratory frame (the beam along +x: the MOSFLM frame),
 *   nanoBragg's pix0 with the detector's rotations applied
 * @fdet: the panel's fast axis (unit vector, laboratory frame)
 * @sdet: its slow axis (unit vector)
 * @data_origin_x: the panel's first pixel in the geometry file's own 2-D
 *   data array (CrystFEL min_fs, NXmx data_origin), fast index; -1 when the
 *   file has none
 * @data_origin_y: its slow index, or -1
 *
 * One panel of a detector, as the frame was rendered with it: pixel (f, s)
 * has its outer corner at origin + f * pixel_size * fdet + s * pixel_size *
 * sdet.  A detector of one panel has one, the whole image.  The answer of
 * [method@Braggscope.Geometry.get_panel].
 *
 * Since: 0.2
 */
typedef struct
{
  int width, height;
  gsize offset;
  int row;
  double pixel_size;
  double origin[3];
  double fdet[3];
  double sdet[3];
  int data_origin_x, data_origin_y;
} BraggscopePanel;

BRAGGSCOPE_EXPORT
GType braggscope_geometry_get_type (void) G_GNUC_CONST;
BRAGGSCOPE_EXPORT
GType braggscope_pixel_info_get_type (void) G_GNUC_CONST;

BRAGGSCOPE_EXPORT
BraggscopeGeometry *braggscope_geometry_ref (BraggscopeGeometry *self);
BRAGGSCOPE_EXPORT
void braggscope_geometry_unref (BraggscopeGeometry *self);

BRAGGSCOPE_EXPORT
void braggscope_geometry_get_size (BraggscopeGeometry *self, int *width, int *height);

BRAGGSCOPE_EXPORT
gboolean braggscope_geometry_query (
    BraggscopeGeometry *self, double x, double y, BraggscopePixelInfo *info, GError **error);

BRAGGSCOPE_EXPORT
int braggscope_geometry_get_n_panels (BraggscopeGeometry *self);
BRAGGSCOPE_EXPORT
gboolean braggscope_geometry_get_panel (BraggscopeGeometry *self, int panel, BraggscopePanel *out);
BRAGGSCOPE_EXPORT
const char *braggscope_geometry_get_panel_name (BraggscopeGeometry *self, int panel);
BRAGGSCOPE_EXPORT
gboolean braggscope_geometry_query_panel (BraggscopeGeometry *self,
                                          int panel,
                                          double f,
                                          double s,
                                          BraggscopePixelInfo *info,
                                          GError **error);
BRAGGSCOPE_EXPORT
gboolean braggscope_geometry_panel_to_point (
    BraggscopeGeometry *self, int panel, double f, double s, double *x, double *y);
BRAGGSCOPE_EXPORT
gboolean braggscope_geometry_get_is_projection (BraggscopeGeometry *self);
BRAGGSCOPE_EXPORT
BraggscopeProjection braggscope_geometry_get_projection (BraggscopeGeometry *self);

BRAGGSCOPE_EXPORT
GBytes *braggscope_geometry_get_map (BraggscopeGeometry *self, BraggscopeGeometryMap map);
BRAGGSCOPE_EXPORT
gboolean braggscope_geometry_direction_to_pixel (
    BraggscopeGeometry *self, double dx, double dy, double dz, double *x, double *y);
BRAGGSCOPE_EXPORT
double braggscope_geometry_get_structure_factor (
    BraggscopeGeometry *self, int h, int k, int l, gboolean *from_file);

BRAGGSCOPE_EXPORT
gboolean braggscope_geometry_same_structure_factors (BraggscopeGeometry *self,
                                                     BraggscopeGeometry *other);

BRAGGSCOPE_EXPORT
BraggscopePixelInfo *braggscope_pixel_info_copy (const BraggscopePixelInfo *info);
BRAGGSCOPE_EXPORT
void braggscope_pixel_info_free (BraggscopePixelInfo *info);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BraggscopeGeometry, braggscope_geometry_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BraggscopePixelInfo, braggscope_pixel_info_free)

G_END_DECLS
