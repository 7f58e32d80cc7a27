/* bench-spawn.c: nanobragg-bench's timed processes (bench-spawn.h), each
 * in a fresh empty folder so that no Fdump.bin or output of an earlier run
 * is seen. */
#include "bench-spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double
spawn_now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

static void
remove_folder (const char *dir)
{
  DIR *d = opendir (dir);
  struct dirent *e;

  if (d != NULL)
    {
      while ((e = readdir (d)) != NULL)
        if (strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0)
          unlinkat (dirfd (d), e->d_name, 0);
      closedir (d);
    }
  rmdir (dir);
}

/* Prints the first line of the child's stderr, kept in @dir. */
static void
print_child_stderr (const char *dir)
{
  char path[PATH_MAX + 16], line[512];
  FILE *f;

  snprintf (path, sizeof path, "%s/stderr.txt", dir);
  f = fopen (path, "r");
  if (f == NULL)
    return;
  if (fgets (line, sizeof line, f) != NULL)
    fprintf (stderr, "nanobragg-bench:   its stderr: %s%s", line, strchr (line, '\n') ? "" : "\n");
  fclose (f);
}

int
bench_spawn (char *const argv[],
             const char *link_target,
             const char *link_name,
             const char *what,
             double *ms)
{
  const char *tmp = getenv ("TMPDIR");
  char dir[PATH_MAX];
  posix_spawn_file_actions_t fa;
  pid_t pid;
  int status = 0, here, rc, ok = 0;
  double t0;

  if (tmp == NULL || *tmp == '\0')
    tmp = "/tmp";
  if ((size_t) snprintf (dir, sizeof dir, "%s/nanobragg-bench.XXXXXX", tmp) >= sizeof dir ||
      mkdtemp (dir) == NULL)
    {
      fprintf (stderr, "nanobragg-bench: cannot make a folder in %s: %s\n", tmp, strerror (errno));
      return 0;
    }
  if (link_name != NULL)
    {
      char dst[PATH_MAX];

      if ((size_t) snprintf (dst, sizeof dst, "%s/%s", dir, link_name) >= sizeof dst)
        errno = ENAMETOOLONG;
      else if (symlink (link_target, dst) == 0)
        dst[0] = '\0';
      if (dst[0] != '\0')
        {
          fprintf (stderr, "nanobragg-bench: cannot link %s into %s: %s\n", link_target, dir,
                   strerror (errno));
          remove_folder (dir);
          return 0;
        }
    }

  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_addopen (&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen (&fa, STDERR_FILENO, "stderr.txt", O_WRONLY | O_CREAT | O_TRUNC,
                                    0644);

  /* posix_spawn has no portable chdir action: the child inherits ours. */
  here = open (".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (here < 0 || chdir (dir) != 0)
    {
      fprintf (stderr, "nanobragg-bench: cannot enter %s: %s\n", dir, strerror (errno));
      if (here >= 0)
        close (here);
      posix_spawn_file_actions_destroy (&fa);
      remove_folder (dir);
      return 0;
    }
  t0 = spawn_now_ms ();
  rc = posix_spawn (&pid, argv[0], &fa, NULL, argv, environ);
  if (fchdir (here) != 0)
    {
      fprintf (stderr, "nanobragg-bench: cannot return to the working folder: %s\n",
               strerror (errno));
      exit (1);
    }
  close (here);
  posix_spawn_file_actions_destroy (&fa);

  if (rc != 0)
    fprintf (stderr, "nanobragg-bench: cannot run %s: %s\n", argv[0], strerror (rc));
  else
    {
      while (waitpid (pid, &status, 0) < 0)
        if (errno != EINTR)
          {
            fprintf (stderr, "nanobragg-bench: waitpid: %s\n", strerror (errno));
            remove_folder (dir);
            return 0;
          }
      *ms = spawn_now_ms () - t0;
      if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
        ok = 1;
      else
        {
          fprintf (stderr, "nanobragg-bench: %s: %s %s %d\n", what, argv[0],
                   WIFEXITED (status) ? "exited with status" : "died of signal",
                   WIFEXITED (status) ? WEXITSTATUS (status) : WTERMSIG (status));
          print_child_stderr (dir);
        }
    }
  remove_folder (dir);
  return ok;
}
