/* nb-memory.h: the engine's buffers that grow only when they must, and the
 * part of an image outside the region of interest (memory.c; the memory
 * budget itself is public, nanobragg.h). */
#pragma once

#include <stddef.h>
#include <stdlib.h>

/* nb_reserve: makes *@ptr hold at least @bytes, reallocating only when it
 * must grow (so an unchanged plan shape never allocates); *@cap tracks the
 * capacity.  Returns 0 when out of memory (the old buffer is kept). */
static inline int
nb_reserve (void *ptr, size_t *cap, size_t bytes)
{
  void **pp = (void **) ptr;

  if (bytes == 0)
    bytes = 1;
  if (*pp != NULL && *cap >= bytes)
    return 1;
  void *n = realloc (*pp, bytes);
  if (n == NULL)
    return 0;
  *pp = n;
  *cap = bytes;
  return 1;
}

/* nb_clear_outside_span: zeroes the pixels of @image (@fpixels x @spixels,
 * @elem bytes each) outside fast [@f_begin, @f_end) x slow [@s_begin,
 * @s_end): the part of an image that the kernels and the conversions, which
 * write only the ROI, leave alone.  memory.c. */
void nb_clear_outside_span (void *image,
                            size_t elem,
                            int fpixels,
                            int spixels,
                            int f_begin,
                            int f_end,
                            int s_begin,
                            int s_end);
