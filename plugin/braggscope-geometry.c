/* braggscope-geometry.c: BraggscopeGeometry, a GObject face on the engine's nb_geometry. */
#include "braggscope-geometry.h"
#include "braggscope-private.h"

#include <math.h>
#include <string.h>

G_DEFINE_BOXED_TYPE (BraggscopeGeometry,
                     braggscope_geometry,
                     braggscope_geometry_ref,
                     braggscope_geometry_unref)
G_DEFINE_BOXED_TYPE (BraggscopePixelInfo,
                     braggscope_pixel_info,
                     braggscope_pixel_info_copy,
                     braggscope_pixel_info_free)

BraggscopeGeometry *
_braggscope_geometry_new_take (nb_geometry *geom, const nb_plan_info *info)
{
  BraggscopeGeometry *self = g_new0 (BraggscopeGeometry, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->geom = geom;
  nb_geometry_size (geom, &self->width, &self->height);
  self->beam[0] = 1.0;
  if (info != NULL)
    {
      memcpy (self->a_star, info->a_star, sizeof self->a_star);
      memcpy (self->b_star, info->b_star, sizeof self->b_star);
      memcpy (self->c_star, info->c_star, sizeof self->c_star);
      self->computed_to = info->hkl_d_min;
    }
  return self;
}

/* The resolution of reflection (@h, @k, @l): the length of its reciprocal
 * vector does not depend on the crystal's orientation. */
static double
reflection_d (const BraggscopeGeometry *self, int h, int k, int l)
{
  double s = 0.0;

  for (int i = 0; i < 3; i++)
    {
      double v = h * self->a_star[i] + k * self->b_star[i] + l * self->c_star[i];

      s += v * v;
    }
  return s > 0.0 ? 1.0 / sqrt (s) : INFINITY;
}

/**
 * braggscope_geometry_ref:
 * @self: a geometry
 *
 * Takes a reference to @self (atomically: any thread).
 *
 * Returns: (transfer full): @self, with one more reference
 *
 * Since: 0.1
 */
BraggscopeGeometry *
braggscope_geometry_ref (BraggscopeGeometry *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * braggscope_geometry_unref:
 * @self: (transfer full): a geometry
 *
 * Drops a reference (atomically: any thread); the last one frees the
 * snapshot.
 *
 * Since: 0.1
 */
void
braggscope_geometry_unref (BraggscopeGeometry *self)
{
  g_return_if_fail (self != NULL);

  if (g_atomic_ref_count_dec (&self->ref_count))
    {
      nb_geometry_unref (self->geom);
      _braggscope_geometry_panels_free (self);
      g_free (self);
    }
}

/**
 * braggscope_geometry_get_size:
 * @self: a geometry
 * @width: (out) (optional): pixels along the fast axis
 * @height: (out) (optional): pixels along the slow axis
 *
 * The detector's pixel counts: the size of the image its frame holds and
 * of the coordinates [method@Braggscope.Geometry.query] takes.  A
 * multi-panel detector's image holds its panels one after another (see
 * [method@Braggscope.Geometry.get_panel]); a projection's
 * ([method@Braggscope.Frame.project]) is the plane it shows them on.
 *
 * Since: 0.1
 */
void
braggscope_geometry_get_size (BraggscopeGeometry *self, int *width, int *height)
{
  g_return_if_fail (self != NULL);

  if (width != NULL)
    *width = self->width;
  if (height != NULL)
    *height = self->height;
}

/* What the point (@x, @y) of @self's coordinates sees: on a panel, that
 * panel's answer (*@panel its index, *@f, *@s the point on it); elsewhere,
 * the answer of @self's plane (*@panel -1, or 0 for one detector). */
static nb_status
query_point (BraggscopeGeometry *self,
             double x,
             double y,
             nb_pixel_query *q,
             int *panel,
             double *f,
             double *s,
             nb_error *err)
{
  *panel = -1;
  *f = x;
  *s = y;
  if (self->n_panels == 0)
    {
      if (x >= 0.0 && x < self->width && y >= 0.0 && y < self->height)
        *panel = 0;
      return nb_geometry_query (self->geom, x, y, q, err);
    }
  if (isfinite (x) && isfinite (y) && _braggscope_geometry_locate (self, x, y, panel, f, s))
    return nb_geometry_query (self->panels[*panel].geom, *f, *s, q, err);
  *f = *s = NAN;
  if (self->projected && self->layout == BRAGGSCOPE_PROJECTION_EQUAL_ANGLE)
    return _braggscope_geometry_query_layout (self, x, y, q, err);
  return nb_geometry_query (self->geom, x, y, q, err);
}

/**
 * braggscope_geometry_query:
 * @self: a geometry
 * @x: position along the fast axis in pixels: pixel i spans [i, i + 1), so
 *   its centre is i + 0.5; points off the detector are allowed
 * @y: position along the slow axis in pixels
 * @info: (out caller-allocates): what that point sees
 * @error: the error, if any
 *
 * Resolution, scattering angle, |q|, azimuth and the (fractional and nearest)
 * Miller indices with their structure factor at a detector point, for the
 * central wavelength and the first source's direction (the engine's
 * nb_geometry_query).  Pixel (i, j) spans [i, i + 1) x [j, j + 1) in (@x,
 * @y), both in pixels.  Thread-safe.
 *
 * Fails with %BRAGGSCOPE_ERROR_INVALID for a coordinate that is not finite.
 *
 * Returns: (skip): %TRUE on success (bindings raise the error instead)
 *
 * Since: 0.1
 */
gboolean
braggscope_geometry_query (
    BraggscopeGeometry *self, double x, double y, BraggscopePixelInfo *info, GError **error)
{
  nb_pixel_query q;
  nb_error err = { 0 };

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (info != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (query_point (self, x, y, &q, &info->panel, &info->panel_x, &info->panel_y, &err) != NB_OK)
    {
      _braggscope_propagate_nb (error, &err);
      return FALSE;
    }
  info->d_spacing = q.d;
  info->two_theta = q.two_theta * (180.0 / G_PI);
  info->q = q.q;
  info->azimuth = q.azimuth * (180.0 / G_PI);
  info->h = q.hkl[0];
  info->k = q.hkl[1];
  info->l = q.hkl[2];
  info->nearest_h = q.h;
  info->nearest_k = q.k;
  info->nearest_l = q.l;
  info->structure_factor = q.F;
  info->from_file = q.F_from_file != 0;
  info->reflection_d_spacing = reflection_d (self, q.h, q.k, q.l);
  info->computed_to = self->computed_to;
  info->on_detector = info->panel >= 0;
  return TRUE;
}

/**
 * braggscope_geometry_get_map:
 * @self: a geometry
 * @map: the quantity
 *
 * One quantity of [struct@Braggscope.PixelInfo] for every pixel, at its
 * centre, as pyFAI's geometry arrays give them: width x height 32-bit floats,
 * slow-major rows (pixel (x, y) at y * width + x, as
 * [method@Braggscope.Frame.get_data]), in the unit
 * [enum@Braggscope.GeometryMap] gives.  Computed on each call (about 0.1 s
 * for a million pixels); thread-safe.  In Python the override gives it as a
 * NumPy array: `frame.get_geometry().to_numpy("two_theta")`.
 *
 * Returns: (transfer full): the map (native byte order)
 *
 * Since: 0.1
 */
GBytes *
braggscope_geometry_get_map (BraggscopeGeometry *self, BraggscopeGeometryMap map)
{
  int width, height;
  float *values;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (map <= BRAGGSCOPE_GEOMETRY_MAP_AZIMUTH, NULL);

  width = self->width;
  height = self->height;
  values = g_new (float, (gsize) width *(gsize) height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        nb_pixel_query q;
        double v = NAN, f, s;
        int panel;

        /* a pixel centre is finite, and not at the sample, on a valid detector */
        if (query_point (self, x + 0.5, y + 0.5, &q, &panel, &f, &s, NULL) == NB_OK &&
            (self->n_panels == 0 || panel >= 0))
          switch (map)
            {
              case BRAGGSCOPE_GEOMETRY_MAP_D_SPACING:
                v = q.d;
                break;
              case BRAGGSCOPE_GEOMETRY_MAP_TWO_THETA:
                v = q.two_theta * (180.0 / G_PI);
                break;
              case BRAGGSCOPE_GEOMETRY_MAP_Q:
                v = q.q;
                break;
              case BRAGGSCOPE_GEOMETRY_MAP_AZIMUTH:
                v = q.azimuth * (180.0 / G_PI);
                break;
            }
        values[(gsize) y * width + x] = (float) v;
      }
  return g_bytes_new_take (values, (gsize) width * (gsize) height * sizeof (float));
}

/**
 * braggscope_geometry_direction_to_pixel:
 * @self: a geometry
 * @dx: lab-frame x component of a ray from the sample (any length)
 * @dy: lab-frame y component
 * @dz: lab-frame z component
 * @x: (out): where the ray meets the detector plane along the fast axis,
 *   pixels (pixel i spans [i, i + 1)); it may lie off the detector
 * @y: (out): along the slow axis, pixels
 *
 * Where a ray from the sample meets the detector plane (a curved detector is
 * treated as flat): for a diffracted ray, where its spot is.  Compare the
 * point with [method@Braggscope.Geometry.get_size] to know whether it falls
 * on the detector.  A multi-panel detector's image answers for the panel
 * the ray meets, its rows placed as the image holds them (%FALSE when it
 * meets none, or the panels' widths differ); a projection's
 * ([method@Braggscope.Frame.project]) answers with the point of its picture
 * ([method@Braggscope.Geometry.get_projection]) where the viewer draws the
 * ray.  Thread-safe.
 *
 * Returns: %TRUE, or %FALSE when the ray runs parallel to the plane or away
 *   from it
 *
 * Since: 0.1
 */
gboolean
braggscope_geometry_direction_to_pixel (
    BraggscopeGeometry *self, double dx, double dy, double dz, double *x, double *y)
{
  double dir[3] = { dx, dy, dz }, f = 0.0, s = 0.0;
  gboolean found = FALSE;

  g_return_val_if_fail (self != NULL, FALSE);

  if (self->projected)
    found = _braggscope_geometry_layout_point (self, dir, &f, &s);
  else if (self->n_panels == 0)
    found = nb_geometry_direction_to_pixel (self->geom, dir, &f, &s);
  else
    for (int p = 0; p < self->n_panels && !found; p++)
      {
        const BraggscopeGeometryPanel *pn = &self->panels[p];

        found = pn->row >= 0 && nb_geometry_direction_to_pixel (pn->geom, dir, &f, &s) &&
                f >= 0.0 && f < pn->width && s >= 0.0 && s < pn->height;
        s += pn->row;
      }
  if (!found)
    return FALSE;
  if (x != NULL)
    *x = f;
  if (y != NULL)
    *y = s;
  return TRUE;
}

/**
 * braggscope_geometry_get_structure_factor:
 * @self: a geometry
 * @h: Miller index h
 * @k: Miller index k
 * @l: Miller index l
 * @from_file: (out) (optional): %TRUE when (@h, @k, @l) lies inside the
 *   structure-factor file's range of indices
 *
 * The structure factor |F| the simulation used for a reflection: the file's,
 * else the default F.  Thread-safe.
 *
 * Returns: |F| (dimensionless, electrons)
 *
 * Since: 0.1
 */
double
braggscope_geometry_get_structure_factor (
    BraggscopeGeometry *self, int h, int k, int l, gboolean *from_file)
{
  int inside = 0;
  double F;

  g_return_val_if_fail (self != NULL, 0.0);

  F = nb_geometry_structure_factor (self->geom, h, k, l, &inside);
  if (from_file != NULL)
    *from_file = inside != 0;
  return F;
}

/**
 * braggscope_geometry_same_structure_factors:
 * @self: a geometry
 * @other: another geometry
 *
 * Whether the two look up the same structure factors (the same table, as a
 * simulation keeps it until its structure factors change, and the same
 * default F): what a view computed from |F| for one holds for the other.
 *
 * Returns: %TRUE when [method@Braggscope.Geometry.get_structure_factor]
 *   answers alike for both
 *
 * Since: 0.1
 */
gboolean
braggscope_geometry_same_structure_factors (BraggscopeGeometry *self, BraggscopeGeometry *other)
{
  g_return_val_if_fail (self != NULL && other != NULL, FALSE);

  return nb_geometry_same_structure_factors (self->geom, other->geom) != 0;
}

/**
 * braggscope_pixel_info_copy:
 * @info: a pixel info
 *
 * Copies @info, for bindings and boxed values.
 *
 * Returns: (transfer full): a copy, freed with [method@Braggscope.PixelInfo.free]
 *
 * Since: 0.1
 */
BraggscopePixelInfo *
braggscope_pixel_info_copy (const BraggscopePixelInfo *info)
{
  g_return_val_if_fail (info != NULL, NULL);

  return g_memdup2 (info, sizeof *info);
}

/**
 * braggscope_pixel_info_free:
 * @info: (transfer full) (nullable): a pixel info from
 *   [method@Braggscope.PixelInfo.copy]
 *
 * Frees @info.
 *
 * Since: 0.1
 */
void
braggscope_pixel_info_free (BraggscopePixelInfo *info)
{
  g_free (info);
}
