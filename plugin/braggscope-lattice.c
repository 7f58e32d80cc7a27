/* braggscope-lattice.c: a frame's reciprocal lattice and Ewald sphere
 * (BraggscopeLattice) and its predicted reflections (the engine's
 * nb_predict_reflections).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-lattice.h"
#include "braggscope-private.h"

#include "nb-predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RAD_TO_DEG (180.0 / G_PI)

G_DEFINE_BOXED_TYPE (BraggscopeLattice,
                     braggscope_lattice,
                     braggscope_lattice_copy,
                     braggscope_lattice_free)
G_DEFINE_BOXED_TYPE (BraggscopeReflection,
                     braggscope_reflection,
                     braggscope_reflection_copy,
                     braggscope_reflection_free)

/**
 * braggscope_lattice_copy:
 * @lattice: a lattice
 *
 * Copies @lattice, for bindings and boxed values.
 *
 * Returns: (transfer full): a copy, freed with [method@Braggscope.Lattice.free]
 *
 * Since: 0.1
 */
BraggscopeLattice *
braggscope_lattice_copy (const BraggscopeLattice *lattice)
{
  g_return_val_if_fail (lattice != NULL, NULL);

  return g_memdup2 (lattice, sizeof *lattice);
}

/**
 * braggscope_lattice_free:
 * @lattice: (transfer full) (nullable): a lattice from
 *   [method@Braggscope.Lattice.copy]
 *
 * Frees @lattice.
 *
 * Since: 0.1
 */
void
braggscope_lattice_free (BraggscopeLattice *lattice)
{
  g_free (lattice);
}

/**
 * braggscope_reflection_copy:
 * @reflection: a reflection
 *
 * Copies @reflection, for bindings and boxed values.
 *
 * Returns: (transfer full): a copy, freed with
 *   [method@Braggscope.Reflection.free]
 *
 * Since: 0.1
 */
BraggscopeReflection *
braggscope_reflection_copy (const BraggscopeReflection *reflection)
{
  g_return_val_if_fail (reflection != NULL, NULL);

  return g_memdup2 (reflection, sizeof *reflection);
}

/**
 * braggscope_reflection_free:
 * @reflection: (transfer full) (nullable): a reflection from
 *   [method@Braggscope.Reflection.copy]
 *
 * Frees @reflection.
 *
 * Since: 0.1
 */
void
braggscope_reflection_free (BraggscopeReflection *reflection)
{
  g_free (reflection);
}

/* The highest resolution the detector's corners reach (Angstrom). */
static double
corner_d_min (BraggscopeGeometry *geometry)
{
  int width = 0, height = 0;
  double d_min = INFINITY;

  if (geometry == NULL)
    return 0.0;
  braggscope_geometry_get_size (geometry, &width, &height);
  for (int c = 0; c < 4; c++)
    {
      BraggscopePixelInfo info;

      if (braggscope_geometry_query (geometry, (c & 1) ? width : 0, (c & 2) ? height : 0, &info,
                                     NULL) &&
          info.d_spacing < d_min)
        d_min = info.d_spacing;
    }
  return isfinite (d_min) ? d_min : 0.0;
}

/**
 * braggscope_frame_get_lattice:
 * @self: a frame
 * @lattice: (out caller-allocates): the frame's reciprocal lattice and Ewald
 *   sphere
 *
 * Fills @lattice from the parameters @self was rendered with: no simulation
 * runs and no file is read, so a view can follow every frame of a drag.
 *
 * Returns: %TRUE, or %FALSE for a frame that does not know its parameters
 *
 * Since: 0.1
 */
gboolean
braggscope_frame_get_lattice (BraggscopeFrame *self, BraggscopeLattice *lattice)
{
  BraggscopeFrameSource *source;
  const nb_plan_info *info;
  const nb_params *p;
  double norm;

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), FALSE);
  g_return_val_if_fail (lattice != NULL, FALSE);

  memset (lattice, 0, sizeof *lattice);
  source = _braggscope_frame_peek_source (self);
  if (source == NULL)
    return FALSE;
  info = _braggscope_frame_source_peek_info (source);
  p = _braggscope_frame_source_peek_params (source);

  lattice->wavelength = info->lambda0 * 1e10;
  norm = sqrt (info->beam[0] * info->beam[0] + info->beam[1] * info->beam[1] +
               info->beam[2] * info->beam[2]);
  for (int i = 0; i < 3; i++)
    lattice->beam[i] = norm > 0 ? info->beam[i] / norm : 0.0;
  norm = sqrt (info->spindle[0] * info->spindle[0] + info->spindle[1] * info->spindle[1] +
               info->spindle[2] * info->spindle[2]);
  for (int i = 0; i < 3; i++)
    {
      lattice->spindle[i] = norm > 0 ? info->spindle[i] / norm : 0.0;
      lattice->a_star[i] = info->a_star[i];
      lattice->b_star[i] = info->b_star[i];
      lattice->c_star[i] = info->c_star[i];
    }
  lattice->phi_start = info->phi0 * RAD_TO_DEG;
  lattice->phi_range = info->osc * RAD_TO_DEG;
  lattice->mosaic_spread = p->mosaic_spread > 0 ? p->mosaic_spread * RAD_TO_DEG : 0.0;
  lattice->dispersion = p->dispersion > 0 ? p->dispersion : 0.0;
  lattice->divergence = MAX (MAX (p->hdivrange, p->vdivrange), 0.0) * RAD_TO_DEG;
  lattice->n_cells[0] = info->Na;
  lattice->n_cells[1] = info->Nb;
  lattice->n_cells[2] = info->Nc;
  lattice->d_min = corner_d_min (braggscope_frame_get_geometry (self));
  return TRUE;
}

/**
 * braggscope_frame_predict_reflections:
 * @self: a frame
 * @error: the error, if any
 *
 * The reflections predicted on @self's detector from its geometry alone (the
 * engine's nb_predict_reflections, the rotation method's closed form, a still
 * as its zero range): every lattice point within the resolution the
 * detector's corners reach that touches the Ewald sphere during the exposure,
 * widened by the mosaic spread and the crystal's shape transform, and where
 * its diffracted ray meets the detector.  Computed once for the parameters of
 * a plan update (its preview and full frame share it); thread-safe.
 *
 * Fails with %BRAGGSCOPE_ERROR_INVALID for a crystal without a unit cell or
 * with too many reflections, %BRAGGSCOPE_ERROR_NOMEM when out of memory, and
 * %BRAGGSCOPE_ERROR_FAILED for a frame that does not know its parameters.
 *
 * A multi-panel detector's reflections are those on its panels, at the
 * coordinates of @self's geometry: the panels' stacked image (those of
 * panels of other widths left out), or the picture of a projection
 * ([method@Braggscope.Frame.project]), where a viewer draws them.
 *
 * Returns: (transfer container) (element-type BraggscopeReflection): the predicted
 *   reflections, on the detector's pixels, in no particular order
 *
 * Since: 0.1
 */
GArray *
braggscope_frame_predict_reflections (BraggscopeFrame *self, GError **error)
{
  BraggscopeFrameSource *source;
  g_autoptr (GArray) all = NULL;
  g_autoptr (GArray) panels = NULL;
  BraggscopeGeometry *geometry;
  GArray *out;

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  source = _braggscope_frame_peek_source (self);
  if (source == NULL)
    {
      g_set_error_literal (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_FAILED,
                           "the frame does not know the parameters it was rendered with");
      return NULL;
    }
  all = _braggscope_frame_source_predict (source, &panels, error);
  geometry = braggscope_frame_get_geometry (self);
  if (all == NULL || geometry == NULL || braggscope_geometry_get_n_panels (geometry) < 2)
    return g_steal_pointer (&all);
  /* a multi-panel detector's spots, from their panels' pixels to where the
   * frame shows them: its stacked image, or its projection's picture */
  out = g_array_sized_new (FALSE, FALSE, sizeof (BraggscopeReflection), all->len);
  for (guint i = 0; i < all->len; i++)
    {
      BraggscopeReflection r = g_array_index (all, BraggscopeReflection, i);

      if (g_array_index (panels, int, i) >= 0 &&
          braggscope_geometry_panel_to_point (geometry, g_array_index (panels, int, i), r.x, r.y,
                                              &r.x, &r.y))
        g_array_append_val (out, r);
    }
  return out;
}

typedef struct
{
  BraggscopeReflection reflection;
  float value;
} Ranked;

static int
by_value (gconstpointer a, gconstpointer b)
{
  float x = ((const Ranked *) a)->value, y = ((const Ranked *) b)->value;

  return x > y ? -1 : x < y;
}

/* The brightest pixel of the 3 x 3 block around frame point (@x, @y). */
static float
peak_near (const float *data, int width, int height, double x, double y)
{
  int i0 = (int) floor (x), j0 = (int) floor (y);
  float best = -INFINITY;

  for (int j = MAX (j0 - 1, 0); j <= MIN (j0 + 1, height - 1); j++)
    for (int i = MAX (i0 - 1, 0); i <= MIN (i0 + 1, width - 1); i++)
      best = MAX (best, data[(gsize) j * width + i]);
  return best;
}

/**
 * braggscope_frame_get_brightest_reflections:
 * @self: a frame
 * @n: how many to keep at most (a count)
 * @error: the error, if any
 *
 * The reflections predicted on @self's detector
 * ([method@Braggscope.Frame.predict_reflections]), brightest first: ranked
 * by the frame's brightest pixel within one pixel of each predicted spot,
 * the @n first kept.  Positions and indices come from the geometry, the
 * ranking from the image: what a viewer labels with h k l.
 *
 * Fails as [method@Braggscope.Frame.predict_reflections]:
 * %BRAGGSCOPE_ERROR_INVALID, %BRAGGSCOPE_ERROR_NOMEM or
 * %BRAGGSCOPE_ERROR_FAILED.
 *
 * Returns: (transfer container) (element-type BraggscopeReflection): at most
 *   @n reflections, brightest first
 *
 * Since: 0.1
 */
GArray *
braggscope_frame_get_brightest_reflections (BraggscopeFrame *self, guint n, GError **error)
{
  g_autoptr (GArray) all = NULL;
  g_autoptr (GArray) ranked = NULL;
  const float *data;
  gsize n_pixels;
  int width, height;
  GArray *out;

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  all = braggscope_frame_predict_reflections (self, error);
  if (all == NULL)
    return NULL;
  width = braggscope_frame_get_width (self);
  height = braggscope_frame_get_height (self);
  data = braggscope_frame_get_data (self, &n_pixels);
  ranked = g_array_sized_new (FALSE, FALSE, sizeof (Ranked), all->len);
  for (guint i = 0; i < all->len; i++)
    {
      Ranked r = { g_array_index (all, BraggscopeReflection, i), 0.0f };

      if (!(r.reflection.x >= 0 && r.reflection.y >= 0 && r.reflection.x < width &&
            r.reflection.y < height) ||
          data == NULL || n_pixels < (gsize) width * height)
        continue;
      r.value = peak_near (data, width, height, r.reflection.x, r.reflection.y);
      g_array_append_val (ranked, r);
    }
  g_array_sort (ranked, by_value);
  out = g_array_sized_new (FALSE, FALSE, sizeof (BraggscopeReflection), MIN (n, ranked->len));
  for (guint i = 0; i < ranked->len && i < n; i++)
    g_array_append_val (out, g_array_index (ranked, Ranked, i).reflection);
  return out;
}

/**
 * braggscope_frame_get_mosaic_domains:
 * @self: a frame
 *
 * The mosaic domains the frame was rendered with: the parameters' count, or
 * for a full frame with [property@Braggscope.Simulation:max-arc-domains] on,
 * the count that draws the mosaic spread as smooth arcs.
 *
 * Returns: the number of mosaic domains (a count; 0 for a frame that does
 *   not know its parameters)
 *
 * Since: 0.1
 */
int
braggscope_frame_get_mosaic_domains (BraggscopeFrame *self)
{
  BraggscopeFrameSource *source;

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), 0);

  source = _braggscope_frame_peek_source (self);
  return source != NULL ? _braggscope_frame_source_peek_info (source)->mosaic_domains : 0;
}
