/* fuzz-mtz: MTZ files to nb_mtz_read (the preamble, every header record up
 * to END, the symmetry operators, the reflections and their expansion to P1),
 * by the first amplitude column and by a label, then as -hkl of a plan.
 * Invariants: a refusal is one line that starts with the file's name and
 * leaves no grid; what is read is a grid within the index limits; the column
 * read is the one asked for. */
#include "fuzz-util.h"
#include "formats/nb-mtz.h"

#include <math.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write (0, data, size);
  size_t path_len = strlen (path);

  /* the first amplitude column, then the column labelled FC */
  for (int by_label = 0; by_label < 2; by_label++)
    {
      char column[32] = "";
      nb_hkl_grid g;
      nb_error err;
      nb_status st = nb_mtz_read (path, by_label ? "FC" : NULL, by_label ? 7.5 : 0.0,
                                  FUZZ_GRID_BUDGET, sizeof (double), &g, column, &err);

      if (st != NB_OK)
        {
          if (strncmp (err.message, path, path_len) != 0 || err.message[path_len] != ':' ||
              strchr (err.message, '\n') != NULL || g.F != NULL)
            {
              fprintf (stderr, "bad refusal: '%s'\n", err.message);
              abort ();
            }
          continue;
        }
      if (g.F == NULL || g.hkls < 1 || g.h_min > g.h_max || g.k_min > g.k_max ||
          g.l_min > g.l_max || g.h_min < -NB_HKL_INDEX_MAX || g.h_max > NB_HKL_INDEX_MAX ||
          g.l_min < -NB_HKL_INDEX_MAX || g.l_max > NB_HKL_INDEX_MAX ||
          g.h_range != g.h_max - g.h_min + 1 || column[0] == '\0' ||
          (by_label && strcmp (column, "FC") != 0))
        abort ();
      /* Friedel mates: the grid spans -h .. h */
      if (g.h_min != -g.h_max || g.k_min != -g.k_max || g.l_min != -g.l_max)
        abort ();
      if (!isfinite (nb_hkl_lookup_nearest (&g, g.h_max, g.k_max, g.l_max, -1.0)))
        abort ();
      nb_hkl_grid_clear (&g);
    }

  {
    nb_params p;

    fuzz_scene (&p);
    p.hkl_file = strdup (path);
    fuzz_plan (&p);
    nb_params_clear (&p);
  }
  return 0;
}
