/* fuzz-frame-smv: the measured-frame reader for SMV files (ADSC, Rayonix, Timepix and
 * nanoBragg headers; 16- and 32-bit pixels):
 * nb_frame_read_limited(), header only and whole, the geometry applied to
 * parameters, the frame's peaks (fuzz-frame.h).  Inputs of another format
 * are left to their own target. */
#include "fuzz-frame.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size > 0 && (data[0] == '{'))
    fuzz_frame_input (data, size);
  return 0;
}
