/* fuzz-matrix: the -mat reader (nb_matrix_read), then a plan oriented by
 * the matrix, with and without -cell. */
#include "fuzz-util.h"
#include "base/nb-textfile.h"

#include <math.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write (0, data, size);
  double m[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
  nb_params p;
  nb_error err;

  if (nb_matrix_read (path, m, &err) != NB_OK)
    {
      if (err.message[0] == '\0' || strchr (err.message, '\n') != NULL || m[8] != 9)
        abort ();
      return 0;
    }
  for (int i = 0; i < 9; i++)
    if (!isfinite (m[i]))
      abort ();
  fuzz_scene (&p);
  p.mat_file = strdup (path);
  fuzz_plan (&p);
  p.cell[0] = 0.0; /* the matrix alone */
  fuzz_plan (&p);
  nb_params_clear (&p);
  return 0;
}
