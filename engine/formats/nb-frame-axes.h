/* nb-frame-axes.h: the frame in which the frame writers (CBF, NeXus) give
 * the engine's vectors, and which geometries a Pilatus header can describe.
 *
 * The beam frame: z along the beam, x the polarization E-vector's part
 * across the beam (a synchrotron's horizontal), y = z cross x.  One rigid
 * rotation of every vector, so a reader that builds the geometry from the
 * vectors builds the simulated one whatever convention the run used.  NeXus
 * (McStas) takes it as it is; imgCIF, whose z points to the source, turns it
 * by 180 degrees about y (x and z negated), as dxtbx does reading NeXus.
 */
#pragma once

#include <math.h>

#include "nb-frame-write.h"

/* The sensor thickness (m) a file that must give one (NXmx) gives for no
 * sensor: its parallax is below 1e-5 pixel at any angle dxtbx corrects. */
#define NB_NO_SENSOR_THICKNESS 1e-9

static inline double
nb_axes_dot (const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void
nb_axes_cross (const double a[3], const double b[3], double out[3])
{
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* @v of the engine's lab frame in the beam frame above. */
static inline void
nb_axes_to_beam_frame (const nb_frame_geometry *g, const double v[3], double out[3])
{
  double ez[3], ex[3], ey[3], n, d;

  n = sqrt (nb_axes_dot (g->beam, g->beam));
  for (int k = 0; k < 3; k++)
    ez[k] = n > 0 ? g->beam[k] / n : (k == 2);
  d = nb_axes_dot (g->polar_vector, ez);
  for (int k = 0; k < 3; k++)
    ex[k] = g->polar_vector[k] - d * ez[k];
  n = sqrt (nb_axes_dot (ex, ex));
  if (!(n > 1e-12))
    {
      /* a polarization along the beam: any perpendicular will do */
      double a[3] = { fabs (ez[0]) < 0.9 ? 1.0 : 0.0, fabs (ez[0]) < 0.9 ? 0.0 : 1.0, 0.0 };

      d = nb_axes_dot (a, ez);
      for (int k = 0; k < 3; k++)
        ex[k] = a[k] - d * ez[k];
      n = sqrt (nb_axes_dot (ex, ex));
    }
  for (int k = 0; k < 3; k++)
    ex[k] /= n;
  nb_axes_cross (ez, ex, ey);
  out[0] = nb_axes_dot (v, ex);
  out[1] = nb_axes_dot (v, ey);
  out[2] = nb_axes_dot (v, ez);
}

/* @v in imgCIF's frame (dxtbx's laboratory frame): the beam frame turned by
 * 180 degrees about y. */
static inline void
nb_axes_to_imgcif (const nb_frame_geometry *g, const double v[3], double out[3])
{
  nb_axes_to_beam_frame (g, v, out);
  out[0] = -out[0];
  out[2] = -out[2];
}

/* 1 when the geometry is the one a Pilatus miniCBF header (and an SMV header
 * of nanoBragg's, "BEAMLINE=fake") can only describe: the detector square to
 * the beam, the spindle along the fast pixel direction, and the slow direction
 * beam x fast (dxtbx: fast +x, slow -y, beam along -z, axis +x).  Otherwise a
 * reader of such a header builds another geometry: a mirror image (nanoBragg's
 * ADXV convention), a spindle along slow (DIALS'), a tilted detector. */
static inline int
nb_axes_square_to_beam (const nb_frame_geometry *g)
{
  double bxf[3];

  nb_axes_cross (g->beam, g->fdet, bxf);
  return nb_axes_dot (g->odet, g->beam) > 1.0 - 1e-9 &&
         nb_axes_dot (g->spindle, g->fdet) > 1.0 - 1e-9 && nb_axes_dot (bxf, g->sdet) > 1.0 - 1e-9;
}
