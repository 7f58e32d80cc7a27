/* stats.c: an image's statistics on the CPU (nb_exec_stats_compute,
 * nb_image_window); the method is described in nb-stats.h, which the CUDA
 * backend shares. */
#include "nanobragg.h"
#include "nb-stats.h"

#include <stdlib.h>

void
nb_stats_percentiles (double low_percentile, double high_percentile, double out[2])
{
  if (isnan (low_percentile))
    low_percentile = 0.0;
  if (isnan (high_percentile))
    high_percentile = 100.0;
  low_percentile = low_percentile < 0.0 ? 0.0 : low_percentile > 100.0 ? 100.0 : low_percentile;
  high_percentile = high_percentile < 0.0 ? 0.0 : high_percentile > 100.0 ? 100.0 : high_percentile;
  out[0] = low_percentile < high_percentile ? low_percentile : high_percentile;
  out[1] = low_percentile < high_percentile ? high_percentile : low_percentile;
}

void
nb_stats_window (const double positions[2],
                 const uint64_t ranks[4],
                 const float values[4],
                 float largest,
                 double *low,
                 double *high)
{
  double v[2];

  for (int p = 0; p < 2; p++)
    {
      double below = values[2 * p], above = values[2 * p + 1];
      double fraction = positions[p] - (double) ranks[2 * p];

      v[p] = fraction > 0.0 ? below + fraction * (above - below) : below;
    }
  *low = v[0];
  *high = v[1];
  if (!(*high > *low))
    *high = largest > *low ? (double) largest : *low + 1.0;
}

/* The finite values of @data at @ranks (each below @m, the number of finite
 * values) into @values; @top is the histogram of the keys' top 16 bits.  0
 * when out of memory. */
static int
values_at_ranks (
    const float *data, size_t n, const uint64_t *top, const uint64_t ranks[4], float values[4])
{
  uint32_t buckets[NB_STATS_RANKS];
  uint64_t within[NB_STATS_RANKS];
  int slot_of[NB_STATS_RANKS], slots;
  uint64_t *bottom;

  for (int r = 0; r < NB_STATS_RANKS; r++)
    buckets[r] = nb_stats_find (top, 0, NB_STATS_BUCKETS, 0, ranks[r], &within[r]);
  slots = nb_stats_slots (buckets, slot_of);
  if ((bottom = calloc ((size_t) slots * NB_STATS_BUCKETS, sizeof *bottom)) == NULL)
    return 0;
  for (size_t i = 0; i < n; i++)
    {
      uint32_t key;

      if (nb_stats_key (data[i], &key))
        for (int r = 0; r < NB_STATS_RANKS; r++)
          if (key >> 16 == buckets[r])
            {
              bottom[(size_t) slot_of[r] * NB_STATS_BUCKETS + (key & 0xffffu)]++;
              break;
            }
    }
  for (int r = 0; r < NB_STATS_RANKS; r++)
    {
      uint64_t unused;
      uint32_t low = nb_stats_find (bottom + (size_t) slot_of[r] * NB_STATS_BUCKETS, 0,
                                    NB_STATS_BUCKETS, 0, within[r], &unused);

      values[r] = nb_stats_value (buckets[r] << 16 | low);
    }
  free (bottom);
  return 1;
}

/* The statistics of @data; the window only with @stats->window and @top
 * (a zeroed histogram of NB_STATS_BUCKETS counters) given. */
static void
compute (const float *data, size_t n, nb_exec_stats *stats, uint64_t *top)
{
  uint64_t m = 0;
  uint32_t largest = 0;

  stats->valid = stats->has_window = 0;
  for (size_t i = 0; i < n; i++)
    {
      uint32_t key;

      if (nb_stats_key (data[i], &key))
        {
          m++;
          largest = key > largest ? key : largest;
          if (top != NULL)
            top[key >> 16]++;
        }
    }
  stats->finite = (size_t) m;
  stats->max = m > 0 ? nb_stats_value (largest) : 0.0f;
  stats->low = 0.0;
  stats->high = 1.0;
  if (top != NULL)
    {
      double pct[2], positions[2];
      uint64_t ranks[NB_STATS_RANKS];
      float values[NB_STATS_RANKS];

      nb_stats_percentiles (stats->low_percentile, stats->high_percentile, pct);
      if (m == 0)
        stats->has_window = 1;
      else
        {
          nb_stats_ranks (m, pct, ranks, positions);
          if (values_at_ranks (data, n, top, ranks, values))
            {
              nb_stats_window (positions, ranks, values, stats->max, &stats->low, &stats->high);
              stats->has_window = 1;
            }
        }
    }
  stats->valid = 1;
}

void
nb_exec_stats_compute (const float *image, size_t n, nb_exec_stats *stats)
{
  uint64_t *top = NULL;

  /* out of memory: no window (has_window says so) */
  if (stats->window)
    top = calloc (NB_STATS_BUCKETS, sizeof *top);
  compute (image, n, stats, top);
  free (top);
}

void
nb_image_window (const float *data,
                 size_t n,
                 double low_percentile,
                 double high_percentile,
                 double *low,
                 double *high)
{
  nb_exec_stats st;

  memset (&st, 0, sizeof st);
  st.window = 1;
  st.low_percentile = low_percentile;
  st.high_percentile = high_percentile;
  nb_exec_stats_compute (data, n, &st);
  *low = st.low;
  *high = st.high;
}
