/* fuzz-frame-cbf: the measured-frame reader for CBF files through CBFlib
 * (miniCBF headers and full imgCIF axis categories, every compression CBFlib
 * decodes):
 * nb_frame_read_limited(), header only and whole, the geometry applied to
 * parameters, the frame's peaks (fuzz-frame.h).  Inputs of another format
 * are left to their own target. */
#include "fuzz-frame.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size > 0 && (data[0] == '#' || data[0] == 'd' || data[0] == '\n'))
    fuzz_frame_input (data, size);
  return 0;
}
