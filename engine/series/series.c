/* series.c: counter-based random choices of a dataset (see nb-series.h). */
#include "nb-series.h"
#include "plan/nb-plan-private.h"
#include "base/nb-rng.h"

#include <math.h>

static uint64_t
mix (uint64_t z)
{
  z += UINT64_C (0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * UINT64_C (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

uint64_t
nb_series_hash (uint64_t seed, uint64_t index, uint32_t stream)
{
  return mix (mix (mix (seed) ^ index) ^ (uint64_t) stream);
}

double
nb_series_uniform (uint64_t seed, uint64_t index, uint32_t stream)
{
  return (double) (nb_series_hash (seed, index, stream) >> 11) * 0x1.0p-53;
}

long
nb_series_seed (uint64_t seed, uint64_t index, uint32_t stream)
{
  return (long) (nb_series_hash (seed, index, stream) % UINT64_C (2147483646)) + 1;
}

void
nb_series_orientation (uint64_t seed, uint64_t index, double q[4], double umat[9])
{
  double u1 = nb_series_uniform (seed, index, NB_SERIES_STREAM_ORIENTATION);
  double u2 = nb_series_uniform (seed, index, NB_SERIES_STREAM_ORIENTATION + 1);
  double u3 = nb_series_uniform (seed, index, NB_SERIES_STREAM_ORIENTATION + 2);
  double r1 = sqrt (1.0 - u1), r2 = sqrt (u1);
  double x = r1 * sin (2.0 * M_PI * u2), y = r1 * cos (2.0 * M_PI * u2);
  double z = r2 * sin (2.0 * M_PI * u3), w = r2 * cos (2.0 * M_PI * u3);

  if (q != NULL)
    {
      q[0] = x;
      q[1] = y;
      q[2] = z;
      q[3] = w;
    }
  /* the rotation of a unit quaternion (w; x, y, z) */
  umat[0] = 1.0 - 2.0 * (y * y + z * z);
  umat[1] = 2.0 * (x * y - z * w);
  umat[2] = 2.0 * (x * z + y * w);
  umat[3] = 2.0 * (x * y + z * w);
  umat[4] = 1.0 - 2.0 * (x * x + z * z);
  umat[5] = 2.0 * (y * z - x * w);
  umat[6] = 2.0 * (x * z - y * w);
  umat[7] = 2.0 * (y * z + x * w);
  umat[8] = 1.0 - 2.0 * (x * x + y * y);
}

void
nb_series_misset (const double umat[9], double misset[3])
{
  nb_umat2misset (umat, misset);
}

nb_status
nb_series_check_frame (const nb_params *p, double bytes_per_pixel, nb_error *err)
{
  return nb_plan_check_budget (p, bytes_per_pixel, err);
}
