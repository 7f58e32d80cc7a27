/* braggscope-lattice.h: the crystal's reciprocal lattice and the Ewald sphere
 * of a frame, and the reflections predicted on its detector. */
#pragma once

#include "braggscope-export.h"

#include <glib-object.h>

#include "braggscope-frame.h"

G_BEGIN_DECLS

#define BRAGGSCOPE_TYPE_LATTICE    (braggscope_lattice_get_type ())
#define BRAGGSCOPE_TYPE_REFLECTION (braggscope_reflection_get_type ())

/**
 * BraggscopeLattice:
 * @wavelength: central wavelength, Angstrom (the Ewald sphere's radius is its
 *   inverse)
 * @beam: unit vector of the incident beam (source to sample), lab frame
 * @spindle: unit vector of the rotation axis, lab frame
 * @a_star: reciprocal cell vector a*, 1/Angstrom, lab frame, misset applied,
 *   spindle angle 0
 * @b_star: reciprocal cell vector b*, 1/Angstrom
 * @c_star: reciprocal cell vector c*, 1/Angstrom
 * @phi_start: spindle angle at the start of the exposure, degrees
 * @phi_range: spindle rotation during the exposure, degrees (0 for a still)
 * @mosaic_spread: mosaic spread, degrees (0 without mosaicity)
 * @dispersion: spectral width as a fraction of the wavelength (0 for a
 *   monochromatic beam)
 * @divergence: beam divergence, degrees: the larger of the horizontal and
 *   vertical full ranges (0 for a parallel beam)
 * @n_cells: unit cells along a, b and c (the crystal's size in cells)
 * @d_min: highest resolution the detector's corners reach, Angstrom
 *
 * What a frame's reciprocal space looks like: the crystal's reciprocal
 * lattice in its orientation, the Ewald sphere of the beam and what smears
 * the two (mosaic spread, dispersion, divergence, the crystal's size), all
 * from the parameters the frame was rendered with.  A lattice point
 * h a* + k b* + l c*, turned by the spindle angle phi about @spindle, is in
 * diffracting position when it lies on the sphere of radius 1/@wavelength
 * centred at -@beam / @wavelength.  [method@Braggscope.Frame.get_lattice]
 * fills it.
 *
 * Since: 0.1
 */
typedef struct
{
  double wavelength;
  double beam[3];
  double spindle[3];
  double a_star[3];
  double b_star[3];
  double c_star[3];
  double phi_start;
  double phi_range;
  double mosaic_spread;
  double dispersion;
  double divergence;
  double n_cells[3];
  double d_min;
} BraggscopeLattice;

/**
 * BraggscopeReflection:
 * @h: Miller index h
 * @k: Miller index k
 * @l: Miller index l
 * @x: predicted spot centre along the detector's fast axis, pixels (pixel i
 *   spans [i, i + 1))
 * @y: predicted spot centre along the slow axis, pixels
 * @d_spacing: resolution d, Angstrom
 * @phi: spindle angle at which the reflection diffracts, degrees
 *
 * A reflection predicted from a frame's geometry alone
 * ([method@Braggscope.Frame.predict_reflections]).
 *
 * Since: 0.1
 */
typedef struct
{
  int h, k, l;
  double x, y;
  double d_spacing;
  double phi;
} BraggscopeReflection;

BRAGGSCOPE_EXPORT
GType braggscope_lattice_get_type (void) G_GNUC_CONST;
BRAGGSCOPE_EXPORT
GType braggscope_reflection_get_type (void) G_GNUC_CONST;

BRAGGSCOPE_EXPORT
BraggscopeLattice *braggscope_lattice_copy (const BraggscopeLattice *lattice);
BRAGGSCOPE_EXPORT
void braggscope_lattice_free (BraggscopeLattice *lattice);
BRAGGSCOPE_EXPORT
BraggscopeReflection *braggscope_reflection_copy (const BraggscopeReflection *reflection);
BRAGGSCOPE_EXPORT
void braggscope_reflection_free (BraggscopeReflection *reflection);

BRAGGSCOPE_EXPORT
int braggscope_frame_get_mosaic_domains (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
gboolean braggscope_frame_get_lattice (BraggscopeFrame *self, BraggscopeLattice *lattice);
BRAGGSCOPE_EXPORT
GArray *braggscope_frame_predict_reflections (BraggscopeFrame *self, GError **error);
BRAGGSCOPE_EXPORT
GArray *braggscope_frame_get_brightest_reflections (BraggscopeFrame *self, guint n, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BraggscopeLattice, braggscope_lattice_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (BraggscopeReflection, braggscope_reflection_free)

G_END_DECLS
