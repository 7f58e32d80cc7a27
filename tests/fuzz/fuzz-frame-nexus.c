/* fuzz-frame-nexus: the measured-frame reader for NeXus/HDF5 files through libhdf5
 * (NXmx masters with their data in the file):
 * nb_frame_read_limited(), header only and whole, the geometry applied to
 * parameters, the frame's peaks (fuzz-frame.h).  Inputs of another format
 * are left to their own target. */
#include "fuzz-frame.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size > 0 && (data[0] == 0x89))
    fuzz_frame_input (data, size);
  return 0;
}
