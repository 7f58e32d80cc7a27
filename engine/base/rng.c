/* rng.c: nanoBragg's random-number streams (physics.md §12).
 *
 * Every expression keeps the reference's C types: a float stays a float and a
 * double literal promotes to double exactly where nanoBragg.c does, because
 * the noise and mosaic images are compared bit for bit with the reference.
 */
#include "nb-rng.h"

#include <math.h>
#include <string.h>

#define NB_PI 3.14159265358979323846

/* Park-Miller constants and the Bays-Durham table size (Numerical Recipes). */
enum
{
  RAN1_IA = 16807,
  RAN1_IQ = 127773,
  RAN1_IR = 2836,
  RAN1_NTAB = 32,
};

#define RAN1_IM   2147483647L
#define RAN1_AM   (1.0 / RAN1_IM)
#define RAN1_NDIV (1 + (RAN1_IM - 1) / RAN1_NTAB)
#define RAN1_RNMX (1.0 - 1.2e-7)

/* One Schrage step: idum = IA * idum mod IM without overflowing 32 bits. */
static long
ran1_step (long idum)
{
  long k = idum / RAN1_IQ;

  idum = RAN1_IA * (idum - k * RAN1_IQ) - RAN1_IR * k;
  if (idum < 0)
    idum += RAN1_IM;
  return idum;
}

void
nb_ran1_init (nb_ran1 *r)
{
  memset (r, 0, sizeof *r);
}

float
nb_ran1_next (nb_ran1 *r, long *idum)
{
  long j;
  float temp;

  if (*idum <= 0 || r->iy == 0)
    {
      /* A positive seed meeting a fresh table becomes 1, as in the
       * reference, not the seed itself. */
      if (-(*idum) < 1)
        *idum = 1;
      else
        *idum = -(*idum);

      for (j = RAN1_NTAB + 7; j >= 0; j--)
        {
          *idum = ran1_step (*idum);
          if (j < RAN1_NTAB)
            r->iv[j] = *idum;
        }
      r->iy = r->iv[0];
    }

  *idum = ran1_step (*idum);
  /* iy < IM for any seed the reference can receive (an int), so this is
   * iy / NDIV; the unsigned modulo only keeps a wild 64-bit seed inside the
   * table instead of indexing out of it. */
  j = (long) (((unsigned long) r->iy / RAN1_NDIV) % RAN1_NTAB);
  r->iy = r->iv[j];
  r->iv[j] = *idum;

  temp = (float) (RAN1_AM * r->iy);
  if (temp > RAN1_RNMX)
    return (float) RAN1_RNMX;
  return temp;
}

void
nb_noise_state_init (nb_noise_state *s)
{
  memset (s, 0, sizeof *s);
  s->oldm = -1.0f;
}

float
nb_gammln (float xx)
{
  static const double cof[6] = {
    76.18009172947146,  -86.50532032941677,    24.01409824083091,
    -1.231739572450155, 0.1208650973866179e-2, -0.5395239384953e-5,
  };
  double x, y, tmp, ser;
  int j;

  y = x = xx;
  tmp = x + 5.5;
  tmp -= (x + 0.5) * log (tmp);
  ser = 1.000000000190015;
  for (j = 0; j < 6; j++)
    ser += cof[j] / ++y;

  return (float) (-tmp + log (2.5066282746310005 * ser / x));
}

float
nb_gaussdev (nb_noise_state *s, long *idum)
{
  float fac, rsq, v1, v2;

  if (s->iset)
    {
      s->iset = 0;
      return s->gset;
    }

  do
    {
      v1 = (float) (2.0 * nb_ran1_next (&s->ran, idum) - 1.0);
      v2 = (float) (2.0 * nb_ran1_next (&s->ran, idum) - 1.0);
      rsq = v1 * v1 + v2 * v2;
    }
  while (rsq >= 1.0 || rsq == 0);

  fac = (float) sqrt (-2.0 * log (rsq) / rsq);
  s->gset = v1 * fac;
  s->iset = 1;
  return v2 * fac;
}

float
nb_poidev (nb_noise_state *s, float xm, long *idum)
{
  float em, t, y;

  /* The reference's escape from the slow rejection loop: a Gaussian
   * approximation, deliberately not rounded to an integer. */
  if (xm > 1.0e6)
    return (float) (xm + sqrt (xm) * nb_gaussdev (s, idum));

  if (xm < 12.0)
    {
      if (xm != s->oldm)
        {
          s->oldm = xm;
          s->g = (float) exp (-xm);
        }
      em = -1;
      t = 1.0f;
      do
        {
          ++em;
          t *= nb_ran1_next (&s->ran, idum);
        }
      while (t > s->g);
      return em;
    }

  if (xm != s->oldm)
    {
      s->oldm = xm;
      s->sq = (float) sqrt (2.0 * xm);
      s->alxm = (float) log (xm);
      s->g = xm * s->alxm - nb_gammln ((float) (xm + 1.0));
    }
  do
    {
      do
        {
          y = (float) tan (NB_PI * nb_ran1_next (&s->ran, idum));
          em = s->sq * y + xm;
        }
      while (em < 0.0);
      em = (float) floor (em);
      t = (float) (0.9 * (1.0 + y * y) *
                   exp (em * s->alxm - nb_gammln ((float) (em + 1.0)) - s->g));
    }
  while (nb_ran1_next (&s->ran, idum) > t);

  return em;
}

void
nb_mosaic_rotation_umat (nb_ran1 *r, float mosaicity, long *idum, double umat[9])
{
  double r1, r2, r3, xyrad, rot;
  double v1, v2, v3;
  double c, s, q, qv1, qv1v2, qv1v3, qv2v3;

  r1 = 2.0 * nb_ran1_next (r, idum) - 1.0;
  r2 = 2.0 * nb_ran1_next (r, idum) - 1.0;
  r3 = 2.0 * nb_ran1_next (r, idum) - 1.0;

  xyrad = sqrt (1.0 - r2 * r2);
  /* The reference computes the cap angle with powf and a float product. */
  rot = mosaicity * powf ((float) (1.0 - r3 * r3), (float) (1.0 / 3.0));

  v1 = xyrad * sin (NB_PI * r1);
  v2 = xyrad * cos (NB_PI * r1);
  v3 = r2;

  /* Rodrigues' formula, products grouped as the reference groups them. */
  c = cos (rot);
  q = 1.0 - c;
  s = sin (rot);
  qv1 = q * v1;
  qv1v2 = qv1 * v2;
  qv1v3 = qv1 * v3;
  qv2v3 = q * v2 * v3;

  umat[0] = c + q * (v1 * v1);
  umat[1] = qv1v2 - s * v3;
  umat[2] = qv1v3 + s * v2;
  umat[3] = qv1v2 + s * v3;
  umat[4] = c + q * (v2 * v2);
  umat[5] = qv2v3 - s * v1;
  umat[6] = qv1v3 - s * v2;
  umat[7] = qv2v3 + s * v1;
  umat[8] = c + q * (v3 * v3);
}

static void
normalize3 (double *x, double *y, double *z)
{
  double m = sqrt (*x * *x + *y * *y + *z * *z);

  if (m > 0)
    {
      *x /= m;
      *y /= m;
      *z /= m;
    }
}

/* Rows are x = (u[0],u[1],u[2]), y, z.  Computes the normalised cross
 * products x*y, y*z and z*x and puts them in place of rows whose original
 * length @mx, @my, @mz was zero. */
static void
fill_empty_rows (double u[9], double mx, double my, double mz)
{
  double xcy[3], ycz[3], zcx[3];

  xcy[0] = u[1] * u[5] - u[2] * u[4];
  xcy[1] = u[2] * u[3] - u[0] * u[5];
  xcy[2] = u[0] * u[4] - u[1] * u[3];
  normalize3 (&xcy[0], &xcy[1], &xcy[2]);

  ycz[0] = u[4] * u[8] - u[5] * u[7];
  ycz[1] = u[5] * u[6] - u[3] * u[8];
  ycz[2] = u[3] * u[7] - u[4] * u[6];
  normalize3 (&ycz[0], &ycz[1], &ycz[2]);

  zcx[0] = u[7] * u[2] - u[8] * u[1];
  zcx[1] = u[8] * u[0] - u[6] * u[2];
  zcx[2] = u[6] * u[1] - u[7] * u[0];
  normalize3 (&zcx[0], &zcx[1], &zcx[2]);

  if (mx <= 0)
    memcpy (u, ycz, sizeof ycz);
  if (my <= 0)
    memcpy (u + 3, zcx, sizeof zcx);
  if (mz <= 0)
    memcpy (u + 6, xcy, sizeof xcy);
}

static double
row_length (const double *row)
{
  return sqrt (row[0] * row[0] + row[1] * row[1] + row[2] * row[2]);
}

void
nb_umat2misset (const double umat[9], double missets[3])
{
  static const double ident[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  double u[9];
  double mx, my, mz;
  int i;

  memcpy (u, umat, sizeof u);

  mx = row_length (u);
  my = row_length (u + 3);
  mz = row_length (u + 6);
  normalize3 (&u[0], &u[1], &u[2]);
  normalize3 (&u[3], &u[4], &u[5]);
  normalize3 (&u[6], &u[7], &u[8]);

  /* Two empty rows: the reference assumes identity rows for them. */
  if (mx >= 0 && my <= 0 && mz <= 0)
    {
      memcpy (u + 3, ident + 3, 3 * sizeof (double));
      memcpy (u + 6, ident + 6, 3 * sizeof (double));
    }
  if (mx <= 0 && my >= 0 && mz <= 0)
    {
      memcpy (u, ident, 3 * sizeof (double));
      memcpy (u + 6, ident + 6, 3 * sizeof (double));
    }
  if (mx <= 0 && my <= 0 && mz >= 0)
    {
      memcpy (u, ident, 3 * sizeof (double));
      memcpy (u + 3, ident + 3, 3 * sizeof (double));
    }

  /* The reference repeats the substitution so that a row rebuilt from a
   * cross product feeds the next cross product. */
  for (i = 0; i < 2; i++)
    fill_empty_rows (u, mx, my, mz);

  normalize3 (&u[0], &u[1], &u[2]);
  normalize3 (&u[3], &u[4], &u[5]);
  normalize3 (&u[6], &u[7], &u[8]);

  if (u[6] * u[6] < 1.0)
    {
      missets[0] = atan2 (u[7], u[8]);
      missets[1] = atan2 (-u[6], sqrt (u[7] * u[7] + u[8] * u[8]));
      missets[2] = atan2 (u[3], u[0]);
    }
  else
    {
      missets[0] = atan2 (1, 1) * 4;
      missets[1] = atan2 (1, 1) * 2;
      missets[2] = atan2 (u[1], -u[4]);
    }
}
