/* bench-spawn.h: nanobragg-bench's timed processes (bench-spawn.c). */
#pragma once

/* bench_spawn: runs @argv (argv[0] the program's path; NULL-terminated) in
 * a fresh empty folder under $TMPDIR (default /tmp), removed after, with
 * @link_target linked into it as @link_name where @link_name is not NULL;
 * its stdout goes to /dev/null.  *@ms is the wall time from spawn to exit
 * (milliseconds).  @what names the run in messages.  Returns 0 after an
 * error or an unsuccessful exit (printed on stderr with the first line of
 * the process's stderr). */
int bench_spawn (char *const argv[],
                 const char *link_target,
                 const char *link_name,
                 const char *what,
                 double *ms);
