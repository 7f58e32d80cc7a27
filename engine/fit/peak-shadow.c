/* peak-shadow.c: the beam stop's shadow on a frame (with its arm), near
 * which the peak finder finds no peaks.
 *
 * The edge of a beam stop's shadow scatters diffusely: a bright crescent on
 * an empty disc, whose local maxima pass every test of a spot (on the I03
 * Pilatus 6M frame of thaumatin, 20 of the 50 strongest "peaks" sat there).
 * The shadow is the region of dark blocks (counts below a quarter of the
 * frame's typical block, the median) connected (8-neighbours; masked blocks,
 * a module gap crossing it, join them but do not count) to the direct beam,
 * which a beam stop covers: a block within 32 pixels of the header's beam
 * centre; at least 600 pixels of dark blocks.  The block is the smallest of
 * 8, 16 and 32 pixels whose typical count is at least 4 (an empty block of
 * a typical 4 is a 2 % fluctuation, and a region of them by chance far
 * rarer); a frame weaker than that, or one whose header gives no beam
 * centre, has no shadow the finder can tell.
 */
#include "nb-match-private.h"

#include <stdlib.h>
#include <string.h>

#define SHADOW_MIN_TYPICAL 4.0
#define SHADOW_MIN_PIXELS  600
#define SHADOW_RATIO       4.0
#define SHADOW_BEAM_REACH  32

static int
by_value (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* Counts and valid pixels of each b x b block (nbx x nby). */
static void
block_sums (const nb_frame *frame, int b, int nbx, int nby, double *sum, long *valid)
{
  int W = frame->fpixels, H = frame->spixels;

  memset (sum, 0, (size_t) nbx * nby * sizeof *sum);
  memset (valid, 0, (size_t) nbx * nby * sizeof *valid);
  for (int s = 0; s < H; s++)
    for (int f = 0; f < W; f++)
      {
        size_t i = (size_t) s * W + f, k = (size_t) (s / b) * nbx + f / b;

        if (frame->mask[i] == NB_PIXEL_MASKED)
          continue;
        sum[k] += frame->counts[i];
        valid[k]++;
      }
}

/* The typical count of a block of @b x @b pixels (the median over blocks at
 * least half valid, scaled to whole blocks); -1 out of memory. */
static double
typical (const double *sum, const long *valid, int b, size_t n, double *tmp)
{
  size_t m = 0;

  for (size_t k = 0; k < n; k++)
    if (valid[k] * 2 >= (long) b * b)
      tmp[m++] = sum[k] * b * b / valid[k];
  if (m == 0)
    return 0.0;
  qsort (tmp, m, sizeof *tmp, by_value);
  return tmp[m / 2];
}

/* Marks in @map (1) the dark blocks of the components of dark and masked
 * blocks that hold one of the @n_seeds blocks @seeds and at least @min_dark
 * dark ones; @state: 0 normal, 1 dark, 2 masked, overwritten; @stack holds
 * nbx x nby indices. */
static void
components (uint8_t *state,
            int nbx,
            int nby,
            const int *seeds,
            int n_seeds,
            int min_dark,
            int *stack,
            uint8_t *map)
{
  for (int seed = 0; seed < n_seeds; seed++)
    {
      int top = 0, dark = 0, first = 0, start = seeds[seed];

      if (state[start] != 1 && state[start] != 2)
        continue;
      /* the component, by depth-first search; visited blocks get 3 (dark) or 4 (masked) */
      stack[top++] = start;
      state[start] = state[start] == 1 ? 3 : 4;
      while (first < top)
        {
          int k = stack[first++], x = k % nbx, y = k / nbx;

          dark += state[k] == 3;
          for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
              {
                int xx = x + dx, yy = y + dy, j;

                if (xx < 0 || yy < 0 || xx >= nbx || yy >= nby)
                  continue;
                j = yy * nbx + xx;
                if (state[j] == 1 || state[j] == 2)
                  {
                    state[j] = state[j] == 1 ? 3 : 4;
                    stack[top++] = j;
                  }
              }
        }
      if (dark >= min_dark)
        for (int i = 0; i < top; i++)
          if (state[stack[i]] == 3)
            map[stack[i]] = 1;
    }
}

int
nb_shadow_map (
    const nb_frame *frame, int margin, uint8_t **map_out, int *block, int *nbx_out, int *nby_out)
{
  int W = frame->fpixels, H = frame->spixels, b, nbx = 0, nby = 0, reach;
  double *sum = NULL, *tmp = NULL, median = 0;
  long *valid = NULL;
  uint8_t *state = NULL, *map = NULL, *grown = NULL;
  int *stack = NULL;
  size_t n = 0;

  *map_out = NULL;
  *block = 0;
  if (margin <= 0 || !frame->item[NB_FRAME_BEAM_F].have || !frame->item[NB_FRAME_BEAM_S].have ||
      !frame->item[NB_FRAME_PIXEL_SIZE].have || !(frame->item[NB_FRAME_PIXEL_SIZE].value > 0))
    return 0;
  for (b = 8; b <= 32; b *= 2)
    {
      nbx = (W + b - 1) / b;
      nby = (H + b - 1) / b;
      n = (size_t) nbx * nby;
      free (sum);
      free (valid);
      free (tmp);
      sum = malloc (n * sizeof *sum);
      valid = malloc (n * sizeof *valid);
      tmp = malloc (n * sizeof *tmp);
      if (sum == NULL || valid == NULL || tmp == NULL)
        goto nomem;
      block_sums (frame, b, nbx, nby, sum, valid);
      if ((median = typical (sum, valid, b, n, tmp)) >= SHADOW_MIN_TYPICAL)
        break;
    }
  free (tmp);
  tmp = NULL;
  if (b > 32)
    {
      free (sum);
      free (valid);
      return 0;
    }
  state = malloc (n);
  map = calloc (n, 1);
  grown = calloc (n, 1);
  stack = malloc (n * sizeof *stack);
  if (state == NULL || map == NULL || grown == NULL || stack == NULL)
    goto nomem;
  for (size_t k = 0; k < n; k++)
    state[k] = valid[k] * 2 < (long) b * b                         ? 2
               : sum[k] * b * b / valid[k] < median / SHADOW_RATIO ? 1
                                                                   : 0;
  {
    /* the seeds: the blocks near the direct beam */
    double px = frame->item[NB_FRAME_PIXEL_SIZE].value;
    double bf = frame->item[NB_FRAME_BEAM_F].value / px,
           bs = frame->item[NB_FRAME_BEAM_S].value / px;
    int seeds[64], n_seeds = 0, r = (SHADOW_BEAM_REACH + b - 1) / b;

    for (int y = (int) (bs / b) - r; y <= (int) (bs / b) + r; y++)
      for (int x = (int) (bf / b) - r; x <= (int) (bf / b) + r; x++)
        if (x >= 0 && y >= 0 && x < nbx && y < nby && n_seeds < 64 && bf > -b && bs > -b)
          seeds[n_seeds++] = y * nbx + x;
    components (state, nbx, nby, seeds, n_seeds, (SHADOW_MIN_PIXELS + b * b - 1) / (b * b), stack,
                map);
  }
  /* every block within the margin of a shadow's block */
  reach = (margin + b - 1) / b;
  for (int y = 0; y < nby; y++)
    for (int x = 0; x < nbx; x++)
      if (map[(size_t) y * nbx + x])
        for (int yy = y - reach; yy <= y + reach; yy++)
          for (int xx = x - reach; xx <= x + reach; xx++)
            if (xx >= 0 && yy >= 0 && xx < nbx && yy < nby)
              grown[(size_t) yy * nbx + xx] = 1;
  free (sum);
  free (valid);
  free (state);
  free (map);
  free (stack);
  *map_out = grown;
  *block = b;
  *nbx_out = nbx;
  *nby_out = nby;
  return 0;

nomem:
  free (sum);
  free (valid);
  free (tmp);
  free (state);
  free (map);
  free (grown);
  free (stack);
  return -1;
}
