/* memory.c: large buffers on transparent huge pages.
 *
 * On a virtual machine a page fault is an exit to the hypervisor: filling a
 * fresh 4 MB buffer page by page costs a thousand of them, which for a 1024^2
 * image or the 1HPV structure factors is more time than the work done in it.
 * Buffers of 2 MB and more are aligned to 2 MB and advised onto huge pages,
 * so the same buffer takes two faults.
 */
#include "nanobragg.h"

#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t) 2 << 20)

void *
nb_alloc_large (size_t bytes)
{
  void *p = NULL;

  if (bytes < HUGE_PAGE)
    return malloc (bytes);
  if (bytes > SIZE_MAX - HUGE_PAGE)
    return NULL;
  bytes = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
  if (posix_memalign (&p, HUGE_PAGE, bytes) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  madvise (p, bytes, MADV_HUGEPAGE); /* advice only: ignored where unsupported */
#endif
  return p;
}
