/* nb-stats.h: the arithmetic of an image's statistics (nb_exec_stats), one
 * copy for the CPU (stats.c) and the GPU (kernels/cuda/nb-cuda.cu, whose host
 * emulation the tests compare with the CPU).
 *
 * A percentile needs the values at given ranks.  Rather than sorting, every
 * finite float is mapped to an unsigned key that sorts the same way, and two
 * counting passes find the key at a rank: a histogram of the keys' top 16
 * bits, then, for the few buckets that hold a wanted rank, histograms of
 * their bottom 16 bits.  Exact, O(n), and no copy of the image.  Integer
 * counts and one rank formula: the CPU and the GPU pick the same values.
 */
#pragma once

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define NB_STATS_FN static __host__ __device__ __forceinline__
#else
#define NB_STATS_FN static inline
#endif

#define NB_STATS_BUCKETS 65536 /* 16 bits of a key per pass */
#define NB_STATS_RANKS   4     /* floor and ceiling of the low and of the high position */

/* For a finite @v: 1 and *@key, which orders as the numbers do (-0 before
 * +0); 0 for NaN and infinities. */
NB_STATS_FN int
nb_stats_key (float v, uint32_t *key)
{
  uint32_t bits;

  memcpy (&bits, &v, sizeof bits);
  if ((bits & 0x7f800000u) == 0x7f800000u)
    return 0;
  *key = (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
  return 1;
}

/* The float of a key of nb_stats_key(). */
NB_STATS_FN float
nb_stats_value (uint32_t key)
{
  uint32_t bits = (key & 0x80000000u) ? key & 0x7fffffffu : ~key;
  float v;

  memcpy (&v, &bits, sizeof v);
  return v;
}

/* The ranks (0-based among @m >= 1 finite values, ascending) the window
 * interpolates between: rank p / 100 * (m - 1) of each percentile (0..100,
 * low first), rounded down and up; @positions gets the unrounded ranks. */
NB_STATS_FN void
nb_stats_ranks (uint64_t m, const double percentile[2], uint64_t ranks[4], double positions[2])
{
  for (int p = 0; p < 2; p++)
    {
      uint64_t k;

      positions[p] = percentile[p] / 100.0 * (double) (m - 1);
      k = (uint64_t) floor (positions[p]);
      if (k > m - 1)
        k = m - 1;
      ranks[2 * p] = k;
      ranks[2 * p + 1] = k + 1 < m ? k + 1 : m - 1;
    }
}

/* Among buckets [@first, @first + @count) of @hist, preceded by @before
 * values: the bucket holding rank @rank, the first whose running total
 * exceeds it (the last one when none does), and *@within, the rank inside
 * it.  The CPU scans all buckets at once; the GPU first finds the chunk. */
NB_STATS_FN uint32_t
nb_stats_find (const uint64_t *hist,
               uint32_t first,
               uint32_t count,
               uint64_t before,
               uint64_t rank,
               uint64_t *within)
{
  uint32_t b = first;

  for (; b < first + count - 1; b++)
    {
      if (rank < before + hist[b])
        break;
      before += hist[b];
    }
  *within = rank - before;
  return b;
}

/* Which bottom histogram each rank's bucket uses: ranks in one bucket share
 * one; returns how many there are. */
NB_STATS_FN int
nb_stats_slots (const uint32_t buckets[4], int slot_of[4])
{
  int n = 0;

  for (int r = 0; r < NB_STATS_RANKS; r++)
    {
      int s;

      for (s = 0; s < r; s++)
        if (buckets[s] == buckets[r])
          break;
      slot_of[r] = s < r ? slot_of[s] : n++;
    }
  return n;
}

#ifdef __cplusplus
extern "C"
{
#endif

  /* stats.c: the low and high percentiles (clamped to 0..100, NaN low as 0 and
 * NaN high as 100, swapped when in the wrong order) into @out. */
  void nb_stats_percentiles (double low_percentile, double high_percentile, double out[2]);

  /* stats.c: the window from the values at the ranks of nb_stats_ranks():
 * linear interpolation between the neighbouring ranks (numpy.percentile's
 * default); an empty window (high <= low) becomes low .. @largest, or
 * low .. low + 1 when @largest is not above low. */
  void nb_stats_window (const double positions[2],
                        const uint64_t ranks[4],
                        const float values[4],
                        float largest,
                        double *low,
                        double *high);

#ifdef __cplusplus
}
#endif
