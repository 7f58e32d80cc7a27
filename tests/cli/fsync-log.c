/* fsync-log.c: loaded into a program with LD_PRELOAD by the series test, this
 * library passes every fsync() on to the C library's and first appends the
 * path of the descriptor it syncs (/proc/self/fd) to the file $NB_FSYNC_LOG,
 * so the test sees which files and folders nanobragg-series made durable. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int fsync (int fd);

int
fsync (int fd)
{
  static int (*real_fsync) (int);
  const char *log = getenv ("NB_FSYNC_LOG");

  if (real_fsync == NULL)
    real_fsync = (int (*) (int)) dlsym (RTLD_NEXT, "fsync");
  if (log != NULL)
    {
      char link[64], path[PATH_MAX + 1];
      ssize_t n;
      int out;

      snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
      n = readlink (link, path, sizeof path - 1);
      /* one write per line to a file opened for appending: lines of threads
       * that sync at once do not mix */
      if (n > 0 && (out = open (log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600)) >= 0)
        {
          path[n] = '\n';
          if (write (out, path, (size_t) n + 1) != n + 1)
            {
              /* the test finds the line missing */
            }
          close (out);
        }
    }
  return real_fsync (fd);
}
