/* status.c: the engine's error record. */
#include "nb-status.h"

#include <stdarg.h>
#include <stdio.h>

nb_status
nb_error_set (nb_error *err, nb_status code, const char *fmt, ...)
{
  if (err != NULL)
    {
      va_list ap;

      err->code = code;
      va_start (ap, fmt);
      vsnprintf (err->message, sizeof err->message, fmt, ap);
      va_end (ap);
    }
  return code;
}

void
nb_error_clear (nb_error *err)
{
  if (err != NULL)
    {
      err->code = NB_OK;
      err->message[0] = '\0';
    }
}

const char *
nb_status_name (nb_status code)
{
  switch (code)
    {
      case NB_OK:
        return "ok";
      case NB_ERR_USAGE:
        return "usage";
      case NB_ERR_INVALID:
        return "invalid";
      case NB_ERR_IO:
        return "io";
      case NB_ERR_PARSE:
        return "parse";
      case NB_ERR_NOMEM:
        return "nomem";
      case NB_ERR_CANCELLED:
        return "cancelled";
      case NB_ERR_UNSUPPORTED:
        return "unsupported";
    }
  return "unknown";
}
