/* fuzz-hkl: the HKL text reader (nb_hkl_read_limited), then lookups, the
 * tricubic interpolation at the grid's edges and the Fdump round trip of
 * what was read. */
#include "fuzz-util.h"
#include "formats/nb-hkl.h"

#include <math.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write (0, data, size);
  nb_hkl_grid g, back;
  nb_error err;
  nb_status st;
  size_t cells;

  /* the first byte picks default_F: both ways of filling the grid */
  st = nb_hkl_read_limited (path, size > 0 && (data[0] & 1) ? 7.5 : 0.0, FUZZ_GRID_BUDGET,
                            sizeof (double) + sizeof (float), &g, &err);
  if (st != NB_OK)
    {
      if (err.message[0] == '\0' || strchr (err.message, '\n') != NULL || g.F != NULL)
        abort ();
      return 0;
    }
  if (g.hkls < 1 || g.h_min > g.h_max || g.k_min > g.k_max || g.l_min > g.l_max ||
      g.h_range != g.h_max - g.h_min + 1 || g.F == NULL)
    abort ();
  cells = (size_t) (g.h_range + 1) * (g.k_range + 1) * (g.l_range + 1);

  /* every corner and a step outside */
  for (int i = 0; i < 8; i++)
    {
      int h = (i & 1) ? g.h_max : g.h_min, k = (i & 2) ? g.k_max : g.k_min;
      int l = (i & 4) ? g.l_max : g.l_min;
      double F = nb_hkl_lookup_nearest (&g, h, k, l, -1.0);

      if (!isfinite (F) || nb_hkl_lookup_nearest (&g, g.h_max + 1, k, l, -1.0) != -1.0 ||
          nb_hkl_lookup_nearest (&g, h, k, g.l_min - 1, -1.0) != -1.0)
        abort ();
      if (nb_hkl_tricubic_in_range (&g, h + 0.25, k + 0.25, l + 0.25))
        (void) nb_hkl_tricubic (&g, h + 0.25, k + 0.25, l + 0.25);
    }
  {
    double mid[3] = { (g.h_min + g.h_max) / 2.0 + 0.3, (g.k_min + g.k_max) / 2.0 + 0.3,
                      (g.l_min + g.l_max) / 2.0 + 0.3 };

    if (nb_hkl_tricubic_in_range (&g, mid[0], mid[1], mid[2]) &&
        !isfinite (nb_hkl_tricubic (&g, mid[0], mid[1], mid[2])))
      abort ();
  }

  /* the dump of what was read reads back the same */
  if (nb_hkl_write_dump (fuzz_path ("out", 0), &g, &err) != NB_OK)
    abort ();
  if (nb_hkl_read_dump (fuzz_path ("out", 0), &back, &err) != NB_OK)
    {
      fprintf (stderr, "dump round trip: %s\n", err.message);
      abort ();
    }
  if (back.h_min != g.h_min || back.l_max != g.l_max ||
      memcmp (back.F, g.F, cells * sizeof (double)) != 0)
    abort ();
  nb_hkl_grid_clear (&back);
  nb_hkl_grid_clear (&g);
  return 0;
}
