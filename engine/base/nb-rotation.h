/* nb-rotation.h: the rotation of a rotation vector, one definition for the
 * layers that turn things by one (formats/detector-model.c moving a
 * -detector model by -detector_rotation, fit/ refining orientations and the
 * whole detector), so that a motion the refinement writes is the motion the
 * model applies. */
#pragma once

#include <math.h>
#include <string.h>

/* nb_rotvec_matrix: exp([w]x), the rotation by |w| (rad) about w,
 * right-handed, row-major into @out (Rodrigues' formula); the identity for
 * a null @w. */
static inline void
nb_rotvec_matrix (const double w[3], double out[9])
{
  double th = sqrt (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  double c, s, t, x, y, z;

  if (th < 1e-300)
    {
      static const double id[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };

      memcpy (out, id, sizeof id);
      return;
    }
  x = w[0] / th;
  y = w[1] / th;
  z = w[2] / th;
  c = cos (th);
  s = sin (th);
  t = 1.0 - c;
  out[0] = t * x * x + c;
  out[1] = t * x * y - s * z;
  out[2] = t * x * z + s * y;
  out[3] = t * x * y + s * z;
  out[4] = t * y * y + c;
  out[5] = t * y * z - s * x;
  out[6] = t * x * z - s * y;
  out[7] = t * y * z + s * x;
  out[8] = t * z * z + c;
}
