/* memory.c: large buffers on transparent huge pages.
 *
 * On a virtual machine a page fault is an exit to the hypervisor: filling a
 * fresh 4 MB buffer page by page costs a thousand of them, which for a 1024^2
 * image or the 1HPV structure factors is more time than the work done in it.
 * Buffers of 2 MB and more are aligned to 2 MB and advised onto huge pages,
 * so the same buffer takes two faults.
 */
#include "nanobragg.h"
#include "nb-memory.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

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

void
nb_clear_outside_span (void *image,
                       size_t elem,
                       int fpixels,
                       int spixels,
                       int f_begin,
                       int f_end,
                       int s_begin,
                       int s_end)
{
  unsigned char *b = image;
  size_t row = (size_t) fpixels * elem;

  if (s_begin > 0)
    memset (b, 0, (size_t) s_begin * row);
  if (s_end < spixels)
    memset (b + (size_t) s_end * row, 0, (size_t) (spixels - s_end) * row);
  if (f_begin > 0 || f_end < fpixels)
    for (int s = s_begin; s < s_end; s++)
      {
        memset (b + (size_t) s * row, 0, (size_t) f_begin * elem);
        memset (b + (size_t) s * row + (size_t) f_end * elem, 0, (size_t) (fpixels - f_end) * elem);
      }
}

/* The cgroup v2 memory.max of this process, or DBL_MAX ("max", no cgroup v2,
 * unreadable). */
static double
cgroup_memory_max (void)
{
  char line[4096], path[4200], value[64];
  double limit = DBL_MAX;
  FILE *f = fopen ("/proc/self/cgroup", "re");

  if (f == NULL)
    return limit;
  /* the unified hierarchy's line: "0::/user.slice/..." */
  while (fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, "0::", 3) == 0)
      {
        FILE *m;

        line[strcspn (line, "\n")] = '\0';
        snprintf (path, sizeof path, "/sys/fs/cgroup%s/memory.max", line + 3);
        if ((m = fopen (path, "re")) != NULL)
          {
            char *end;
            double v;

            if (fgets (value, sizeof value, m) != NULL && (v = strtod (value, &end)) > 0 &&
                end != value)
              limit = v;
            fclose (m);
          }
        break;
      }
  fclose (f);
  return limit;
}

double
nb_memory_budget (double requested)
{
  static const int limits[] = { RLIMIT_AS, RLIMIT_DATA };
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  double usable = pages > 0 && page > 0 ? (double) pages * (double) page : DBL_MAX;
  double cgroup = cgroup_memory_max ();

  if (requested > 0.0)
    return requested;
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
    {
      struct rlimit rl;

      if (getrlimit (limits[i], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
          (double) rl.rlim_cur < usable)
        usable = (double) rl.rlim_cur;
    }
  if (cgroup < usable)
    usable = cgroup;
  return usable == DBL_MAX ? DBL_MAX : usable / 2.0;
}
