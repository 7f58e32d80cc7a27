/* fuzz-stol: the table reader behind -stol/-4stol/-Q (two columns) and any
 * other width, checking the shape of what it returns. */
#include "fuzz-util.h"
#include "base/nb-textfile.h"

#include <math.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  /* the first byte picks the width: 2 is -stol's, 5 -sourcefile's */
  int cols = size > 0 ? 1 + data[0] % 7 : 2;
  const char *path = fuzz_write (0, size > 0 ? data + 1 : data, size > 0 ? size - 1 : 0);
  nb_table t;
  nb_error err;

  if (nb_table_read (path, cols, &t, &err) != NB_OK)
    {
      if (err.message[0] == '\0' || strchr (err.message, '\n') != NULL || t.v != NULL)
        abort ();
      return 0;
    }
  if (t.rows < 1 || t.cols != cols || t.v == NULL || t.lines == NULL)
    abort ();
  for (int r = 0; r < t.rows; r++)
    {
      if (t.lines[r] < 1 || (r > 0 && t.lines[r] <= t.lines[r - 1]))
        abort ();
      for (int c = 0; c < cols; c++)
        if (isinf (t.v[(size_t) r * cols + c])) /* NAN: a missing column */
          abort ();
    }
  nb_table_clear (&t);
  return 0;
}
