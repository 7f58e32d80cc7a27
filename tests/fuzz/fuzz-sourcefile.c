/* fuzz-sourcefile: a plan whose sources come from a -sourcefile (the table
 * reader and the source set-up that fills in and checks its columns). */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write (0, data, size);
  nb_params p;

  fuzz_scene (&p);
  p.source_file = strdup (path);
  fuzz_plan (&p);
  nb_params_clear (&p);
  return 0;
}
