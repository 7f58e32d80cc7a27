/* braggscope-geometry.c: BraggscopeGeometry, a GObject face on the engine's nb_geometry. */
#include "braggscope-geometry.h"
#include "braggscope-private.h"

#include <math.h>
#include <string.h>

struct _BraggscopeGeometry
{
  gatomicrefcount ref_count;
  nb_geometry *geom;
  double a_star[3], b_star[3], c_star[3]; /* 1/Angstrom */
  double computed_to;                     /* the plan's hkl_d_min (Angstrom) */
};

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
  memcpy (self->a_star, info->a_star, sizeof self->a_star);
  memcpy (self->b_star, info->b_star, sizeof self->b_star);
  memcpy (self->c_star, info->c_star, sizeof self->c_star);
  self->computed_to = info->hkl_d_min;
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

nb_geometry *
_braggscope_geometry_peek (BraggscopeGeometry *self)
{
  return self->geom;
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
      g_free (self);
    }
}

/**
 * braggscope_geometry_get_size:
 * @self: a geometry
 * @width: (out) (optional): pixels along the fast axis
 * @height: (out) (optional): pixels along the slow axis
 *
 * The detector's pixel counts.
 *
 * Since: 0.1
 */
void
braggscope_geometry_get_size (BraggscopeGeometry *self, int *width, int *height)
{
  int f = 0, s = 0;

  g_return_if_fail (self != NULL);

  nb_geometry_size (self->geom, &f, &s);
  if (width != NULL)
    *width = f;
  if (height != NULL)
    *height = s;
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

  if (nb_geometry_query (self->geom, x, y, &q, &err) != NB_OK)
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
  {
    int width, height;

    nb_geometry_size (self->geom, &width, &height);
    info->on_detector = x >= 0.0 && x < width && y >= 0.0 && y < height;
  }
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

  nb_geometry_size (self->geom, &width, &height);
  values = g_new (float, (gsize) width *(gsize) height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        nb_pixel_query q;
        double v = NAN;

        /* a pixel centre is finite, and not at the sample, on a valid detector */
        if (nb_geometry_query (self->geom, x + 0.5, y + 0.5, &q, NULL) == NB_OK)
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
 * on the detector.  Thread-safe.
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

  g_return_val_if_fail (self != NULL, FALSE);

  if (!nb_geometry_direction_to_pixel (self->geom, dir, &f, &s))
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
