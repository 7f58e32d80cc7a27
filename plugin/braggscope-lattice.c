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

GArray *
_braggscope_predict_reflections (const nb_params *params, GError **error)
{
  nb_predict_options opt;
  nb_reflection *list = NULL;
  size_t n = 0;
  nb_error err = { 0 };
  GArray *out;

  nb_predict_options_init (&opt);
  if (nb_predict_reflections (params, &opt, &list, &n, &err) != NB_OK)
    {
      _braggscope_propagate_nb (error, &err);
      return NULL;
    }
  out = g_array_sized_new (FALSE, FALSE, sizeof (BraggscopeReflection), n);
  for (size_t i = 0; i < n; i++)
    {
      BraggscopeReflection r = {
        list[i].h, list[i].k, list[i].l, list[i].f, list[i].s, list[i].d, list[i].phi * RAD_TO_DEG
      };

      g_array_append_val (out, r);
    }
  free (list);
  return out;
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
 * Returns: (transfer container) (element-type BraggscopeReflection): the predicted
 *   reflections, on the detector's pixels, in no particular order
 *
 * Since: 0.1
 */
GArray *
braggscope_frame_predict_reflections (BraggscopeFrame *self, GError **error)
{
  BraggscopeFrameSource *source;

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  source = _braggscope_frame_peek_source (self);
  if (source == NULL)
    {
      g_set_error_literal (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_FAILED,
                           "the frame does not know the parameters it was rendered with");
      return NULL;
    }
  return _braggscope_frame_source_predict (source, error);
}
