/* nb-log.h: the lines the reference prints while a plan is set up
 * (nb_plan_get_log()), gathered by every stage (log.c).  Its own file, so
 * that the stages share the log without depending on the plan's file. */
#pragma once

#include <stddef.h>

typedef struct
{
  char *text;
  size_t len, cap;
  int quiet; /* plan updates do not log (and so do not allocate) */
  int nomem; /* set once an append found no memory (that text was dropped) */
} nb_log;

/* nb_log_printf: appends the printf-formatted text to @log, unless it is
 * quiet; out of memory, the text is dropped and @log->nomem set (a plan's log
 * is diagnostic only; a report that must be whole checks the flag). */
void nb_log_printf (nb_log *log, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__ ((format (printf, 2, 3)))
#endif
    ;
/* nb_log_free: frees the text; @log is empty after. */
void nb_log_free (nb_log *log);
