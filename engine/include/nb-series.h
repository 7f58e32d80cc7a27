/* nb-series.h: the random choices of a dataset (nanobragg-series), made from
 * the frame index alone.
 *
 * A series of stills draws a crystal orientation per frame, and every frame
 * with photon noise needs its own noise seed.  Drawn from a stream that
 * advances frame by frame, each value would depend on which frames the
 * process had made before, so on how many processes shared the series and in
 * which order they finished.  Here every value is a pure function of (series
 * seed, frame index, stream): a counter-based generator (after Salmon et al.,
 * "Parallel random numbers: as easy as 1, 2, 3", SC 2011) built from
 * SplitMix64's finaliser (Steele, Lea and Flood, OOPSLA 2014):
 *
 *   mix(z)     = z += 0x9e3779b97f4a7c15;
 *                z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9;
 *                z = (z ^ z >> 27) * 0x94d049bb133111eb;
 *                z ^ z >> 31
 *   hash(s, i, k) = mix (mix (mix (s) ^ i) ^ k)
 *
 * Streams (k) keep the uses apart: NB_SERIES_STREAM_ORIENTATION + 0, 1, 2 for
 * the three uniform deviates of an orientation, NB_SERIES_STREAM_NOISE for the
 * noise seed, NB_SERIES_STREAM_MOSAIC for the mosaic seed.
 */
#pragma once

#include <stdint.h>

#include "nanobragg.h"

#ifdef __cplusplus
extern "C"
{
#endif

  enum
  {
    NB_SERIES_STREAM_ORIENTATION = 0, /* and 1, 2 */
    NB_SERIES_STREAM_NOISE = 16,
    NB_SERIES_STREAM_MOSAIC = 17,
  };

  /* nb_series_hash: the 64-bit value hash(@seed, @index, @stream) above. */
  uint64_t nb_series_hash (uint64_t seed, uint64_t index, uint32_t stream);

  /* nb_series_uniform: a uniform deviate in [0, 1): the top 53 bits of
 * nb_series_hash() times 2^-53. */
  double nb_series_uniform (uint64_t seed, uint64_t index, uint32_t stream);

  /* nb_series_seed: a seed for nanoBragg's generators (ran1, -seed and
 * -mosaic_seed on the command line), 1 ... 2147483646, from
 * nb_series_hash() modulo 2147483646, plus 1. */
  long nb_series_seed (uint64_t seed, uint64_t index, uint32_t stream);

  /* nb_series_orientation: a rotation drawn uniformly from SO(3) (the Haar
 * measure) for frame @index of series @seed.  Source: K. Shoemake, "Uniform
 * random rotations", Graphics Gems III (1992) 124-132: with u1, u2, u3 the
 * deviates of streams 0, 1, 2,
 *   q = (x, y, z, w) = (sqrt(1-u1) sin 2 pi u2, sqrt(1-u1) cos 2 pi u2,
 *                       sqrt(u1) sin 2 pi u3,   sqrt(u1) cos 2 pi u3)
 * is a uniform unit quaternion.  @q receives it (x, y, z, w; may be NULL),
 * @umat the rotation matrix it stands for (row-major 3 x 3, det +1: v' =
 * umat v). */
  void nb_series_orientation (uint64_t seed, uint64_t index, double q[4], double umat[9]);

  /* nb_series_misset: the XYZ misset angles (radians; -misset takes them in
 * degrees) that turn the crystal by @umat, as nanoBragg's umat2misset()
 * computes them for -misset random: the plan then rotates the reciprocal
 * cell by @umat (to rounding). */
  void nb_series_misset (const double umat[9], double misset[3]);

  /* nb_series_check_frame: whether a frame of parameters @p can be made before
 * any is: the checks nb_plan_create() makes before it allocates (the
 * parameters, the detector, the sampling counts) and its memory budget
 * (-memory_budget, default half of physical memory) for a caller that holds
 * @bytes_per_pixel bytes per pixel (the series' frames in flight).  Allocates
 * nothing per pixel.  NB_OK, or the error nb_plan_create() would give
 * (NB_ERR_NOMEM "memory budget: ..." for a frame too large). */
  nb_status nb_series_check_frame (const nb_params *p, double bytes_per_pixel, nb_error *err);

#ifdef __cplusplus
}
#endif
