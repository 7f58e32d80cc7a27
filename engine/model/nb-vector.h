/* nb-vector.h: the reference's vector helpers.
 *
 * They evaluate in exactly the order nanoBragg.c does (rotate(),
 * rotate_axis(), rotate_umat(), unitize(), cross_product()...), so the
 * double-precision path reproduces the reference bit for bit.  Vectors are
 * plain double[3] (x, y, z); the reference's element-0 magnitude is returned
 * instead of stored.  nb_rotate_xyz is in geometry.c.
 */
#pragma once

#include <math.h>

#define NB_RTD (180.0 * M_1_PI)

static inline double
nb_dot (const double x[3], const double y[3])
{
  return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
}

static inline void
nb_cross (const double x[3], const double y[3], double z[3])
{
  double t0 = x[1] * y[2] - x[2] * y[1];
  double t1 = x[2] * y[0] - x[0] * y[2];
  double t2 = x[0] * y[1] - x[1] * y[0];
  z[0] = t0;
  z[1] = t1;
  z[2] = t2;
}

static inline double
nb_magnitude (const double v[3])
{
  return sqrt (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* unitize(): returns the old length; a zero vector stays zero. */
static inline double
nb_unitize (const double v[3], double out[3])
{
  double mag = nb_magnitude (v);

  if (mag != 0.0)
    {
      out[0] = v[0] / mag;
      out[1] = v[1] / mag;
      out[2] = v[2] / mag;
    }
  else
    out[0] = out[1] = out[2] = 0.0;
  return mag;
}

/* vector_scale(): out = scale * v; returns |out|. */
static inline double
nb_scale (const double v[3], double scale, double out[3])
{
  out[0] = scale * v[0];
  out[1] = scale * v[1];
  out[2] = scale * v[2];
  return nb_magnitude (out);
}

/* vector_rescale(): out = new_mag/|v| * v (|v| <= 0 counts as 1). */
static inline void
nb_rescale (const double v[3], double new_mag, double out[3])
{
  double oldmag = nb_magnitude (v);

  if (oldmag <= 0.0)
    oldmag = 1.0;
  out[0] = new_mag / oldmag * v[0];
  out[1] = new_mag / oldmag * v[1];
  out[2] = new_mag / oldmag * v[2];
}

/* rotate(): about lab X, then Y, then Z; a zero angle is skipped exactly. */
void nb_rotate_xyz (const double v[3], double phix, double phiy, double phiz, double out[3]);

/* rotate_axis(): Rodrigues rotation about @axis (not normalised, Q-10). */
static inline void
nb_rotate_axis (const double v[3], const double axis[3], double phi, double out[3])
{
  double sinphi = sin (phi);
  double cosphi = cos (phi);
  double dot = (axis[0] * v[0] + axis[1] * v[1] + axis[2] * v[2]) * (1.0 - cosphi);
  double t0 = axis[0] * dot + v[0] * cosphi + (-axis[2] * v[1] + axis[1] * v[2]) * sinphi;
  double t1 = axis[1] * dot + v[1] * cosphi + (+axis[2] * v[0] - axis[0] * v[2]) * sinphi;
  double t2 = axis[2] * dot + v[2] * cosphi + (-axis[1] * v[0] + axis[0] * v[1]) * sinphi;

  out[0] = t0;
  out[1] = t1;
  out[2] = t2;
}

/* rotate_umat(): out = U v, U row-major. */
static inline void
nb_rotate_umat (const double v[3], const double u[9], double out[3])
{
  double t0 = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
  double t1 = u[3] * v[0] + u[4] * v[1] + u[5] * v[2];
  double t2 = u[6] * v[0] + u[7] * v[1] + u[8] * v[2];

  out[0] = t0;
  out[1] = t1;
  out[2] = t2;
}
