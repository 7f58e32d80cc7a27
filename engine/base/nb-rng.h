/* nb-rng.h: nanoBragg's random-number streams, reproduced exactly.
 *
 * Source: nanoBragg.c ran1() (Numerical Recipes ran1: Park-Miller minimal
 * standard with a Bays-Durham shuffle), poidev(), gaussdev(), gammln(),
 * mosaic_rotation_umat(), umat2misset(); physics.md §12.
 *
 * The reference keeps the shuffle table in static variables shared by every
 * caller.  Here the table lives in an nb_ran1 value the caller owns, so
 * streams are independent and thread-safe; a caller that wants the reference's
 * shared-table behaviour passes the same nb_ran1 to every stream, in the
 * reference's order.
 */
#pragma once

#include "nb-status.h"

#ifdef __cplusplus
extern "C"
{
#endif

  typedef struct
  {
    long iy; /* 0 means "not initialised" */
    long iv[32];
  } nb_ran1;

  /* Poisson/Gaussian deviate state (the statics of poidev and gaussdev). */
  typedef struct
  {
    nb_ran1 ran;
    float oldm, g, sq, alxm; /* poidev cache; oldm starts at -1 */
    int iset;                /* gaussdev: a spare deviate is stored */
    float gset;
  } nb_noise_state;

  /* nb_ran1_init: zero state (iy = 0), as at program start. */
  void nb_ran1_init (nb_ran1 *r);

  /* nb_ran1_next: one uniform deviate in (0,1) as a float.  @idum is the seed
 * variable, updated in place; a value <= 0 (or an uninitialised table)
 * re-initialises the table from -@idum as the reference does. */
  float nb_ran1_next (nb_ran1 *r, long *idum);

  /* nb_noise_state_init: fresh table and poidev/gaussdev caches (oldm = -1). */
  void nb_noise_state_init (nb_noise_state *s);

  /* nb_gammln: log Gamma(xx) (Lanczos, float in and out, double inside). */
  float nb_gammln (float xx);

  /* nb_gaussdev: unit normal deviate (Marsaglia polar, spare kept in @s). */
  float nb_gaussdev (nb_noise_state *s, long *idum);

  /* nb_poidev: Poisson deviate of mean @xm: direct method below 12, rejection
 * up to 1e6, and xm + sqrt(xm) * gaussdev() (not rounded) above. */
  float nb_poidev (nb_noise_state *s, float xm, long *idum);

  /* nb_mosaic_rotation_umat: random rotation within a spherical cap of
 * @mosaicity radians (float, as the reference declares it); @umat is 3x3
 * row-major.  Consumes three draws from @r with seed @idum. */
  void nb_mosaic_rotation_umat (nb_ran1 *r, float mosaicity, long *idum, double umat[9]);

  /* nb_umat2misset: XYZ misset angles (radians) of the rotation @umat
 * (row-major), as umat2misset() computes them. */
  void nb_umat2misset (const double umat[9], double missets[3]);

#ifdef __cplusplus
}
#endif
