/* fuzz-model: atomic models and -sf.cif files (PDB, mmCIF, gzip) to
 * nb_structure_read (the models module: gemmi behind the C ABI), then the sum
 * over the atoms (or the expansion of the reflections) to a coarse resolution.
 * Invariants: a refusal is one line that starts with the file's name and
 * leaves nothing allocated; what is read has a finite cell, operators, and
 * atoms or reflections whose form factors and indices are in range. */
#include "fuzz-util.h"
#include "formats/nb-models.h"
#include "model/nb-sfcalc.h"

#include <math.h>

/* the sum is reflections x atoms: a few of each keep a run short */
#define FUZZ_ATOMS 2000

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write (0, data, size);
  size_t path_len = strlen (path);
  nb_structure m;
  nb_hkl_grid g;
  nb_error err;

  if (nb_structure_read (path, FUZZ_GRID_BUDGET, &m, &err) != NB_OK)
    {
      /* why an input is refused, for a look at a corpus by hand */
      if (getenv ("NB_FUZZ_VERBOSE") != NULL)
        fprintf (stderr, "%s\n", err.message);
      if (!nb_models_available ())
        return 0;
      if (strncmp (err.message, path, path_len) != 0 || err.message[path_len] != ':' ||
          strchr (err.message, '\n') != NULL || m.atoms != NULL || m.hkl != NULL)
        {
          fprintf (stderr, "bad refusal: '%s'\n", err.message);
          abort ();
        }
      return 0;
    }
  for (int i = 0; i < 6; i++)
    if (!isfinite (m.cell[i]) || m.cell[i] <= 0.0)
      abort ();
  if (m.n_symops < 1 || m.symops == NULL)
    abort ();
  for (long j = 0; j < m.n_atoms; j++)
    if (m.atoms[j].form < 0 || m.atoms[j].form >= m.n_forms || !isfinite (m.atoms[j].B))
      abort ();
  if (m.kind == NB_STRUCTURE_ATOMS && m.n_atoms <= FUZZ_ATOMS)
    {
      /* 8 A at most, and no more than a few thousand reflections in a large cell */
      double d = fmax (8.0, fmax (m.cell[0], fmax (m.cell[1], m.cell[2])) / 10.0);

      if (nb_sfcalc_grid (path, &m, d, 0.0, FUZZ_GRID_BUDGET, sizeof (double), &g, NULL, &err) ==
          NB_OK)
        {
          if (!isfinite (nb_hkl_lookup_nearest (&g, 1, 0, 0, 0.0)))
            abort ();
          nb_hkl_grid_clear (&g);
        }
    }
  else if (m.kind == NB_STRUCTURE_REFLECTIONS)
    {
      if (nb_sf_expand_grid (path, &m, 0.0, FUZZ_GRID_BUDGET, sizeof (double), &g, &err) == NB_OK)
        nb_hkl_grid_clear (&g);
    }
  nb_structure_clear (&m);
  return 0;
}
