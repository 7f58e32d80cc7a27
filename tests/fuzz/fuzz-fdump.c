/* fuzz-fdump: the Fdump.bin reader (nb_hkl_read_dump_limited): a header of
 * six indices, a form feed, and the grid as native doubles. */
#include "fuzz-util.h"
#include "formats/nb-hkl.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write (0, data, size);
  nb_hkl_grid g;
  nb_error err;

  if (nb_hkl_read_dump_limited (path, FUZZ_GRID_BUDGET, sizeof (double), &g, &err) != NB_OK)
    {
      if (err.message[0] == '\0' || strchr (err.message, '\n') != NULL || g.F != NULL)
        abort ();
      return 0;
    }
  if (g.h_min > g.h_max || g.k_min > g.k_max || g.l_min > g.l_max || g.F == NULL ||
      g.hkls != (long) g.h_range * g.k_range * g.l_range)
    abort ();
  /* the far corner of the padded grid is inside the allocation */
  (void) nb_hkl_lookup_nearest (&g, g.h_max, g.k_max, g.l_max, 0.0);
  (void) g.F[(size_t) (g.h_range + 1) * (g.k_range + 1) * (g.l_range + 1) - 1];
  nb_hkl_grid_clear (&g);
  return 0;
}
