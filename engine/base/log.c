/* log.c: the plan's text log (nb-log.h). */
#include "nb-log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void
nb_log_printf (nb_log *log, const char *fmt, ...)
{
  va_list ap;
  int n;

  if (log->quiet)
    return;
  va_start (ap, fmt);
  n = vsnprintf (NULL, 0, fmt, ap);
  va_end (ap);
  if (n < 0)
    return;
  if (log->len + (size_t) n + 1 > log->cap)
    {
      size_t cap = log->cap ? log->cap : 4096;
      char *text;

      while (log->len + (size_t) n + 1 > cap)
        cap *= 2;
      text = realloc (log->text, cap);
      if (text == NULL)
        {
          log->nomem = 1;
          return;
        }
      log->text = text;
      log->cap = cap;
    }
  va_start (ap, fmt);
  vsnprintf (log->text + log->len, (size_t) n + 1, fmt, ap);
  va_end (ap);
  log->len += (size_t) n;
}

void
nb_log_free (nb_log *log)
{
  free (log->text);
  log->text = NULL;
  log->len = log->cap = 0;
  log->nomem = 0;
}
