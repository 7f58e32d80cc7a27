/* nb-status.h: status codes and the error record shared by the whole engine.
 *
 * The engine never prints and never exits.  Every fallible function returns an
 * nb_status and, when given a non-NULL nb_error, fills a one-line message that
 * names the offending input (flag, file and line, or parameter) and the value.
 */
#pragma once

#include <stddef.h>

/* NB_API marks the engine's public functions: exported by the shared
 * libnanobragg.so, whose other symbols are hidden (built with
 * -fvisibility=hidden, as libbraggscope is). */
#ifndef NB_API
#if defined(__GNUC__)
#define NB_API __attribute__ ((visibility ("default")))
#else
#define NB_API
#endif
#endif

#ifdef __cplusplus
extern "C"
{
#endif

  typedef enum
  {
    NB_OK = 0,
    NB_ERR_USAGE,       /* bad command line: unknown flag, missing argument */
    NB_ERR_INVALID,     /* a parameter value outside what the physics allows */
    NB_ERR_IO,          /* a file could not be opened, read or written */
    NB_ERR_PARSE,       /* a file's contents are malformed (message names file:line) */
    NB_ERR_NOMEM,       /* allocation failed or the plan exceeds its memory budget */
    NB_ERR_CANCELLED,   /* execute was cancelled through its cancel flag */
    NB_ERR_UNSUPPORTED, /* the request needs a feature this build lacks */
  } nb_status;

#define NB_ERROR_MESSAGE_MAX 512

  typedef struct
  {
    nb_status code;
    char message[NB_ERROR_MESSAGE_MAX];
  } nb_error;

  /* nb_error_set: records @code and a printf-style message in @err (if non-NULL)
 * and returns @code, so callers can write `return nb_error_set (err, ...)`. */
  NB_API nb_status nb_error_set (nb_error *err, nb_status code, const char *fmt, ...)
#if defined(__GNUC__)
      __attribute__ ((format (printf, 3, 4)))
#endif
      ;

  /* nb_error_clear: resets @err to NB_OK with an empty message.  NULL is allowed. */
  NB_API void nb_error_clear (nb_error *err);

  /* nb_status_name: a constant English name for @code ("ok", "usage", ...). */
  NB_API const char *nb_status_name (nb_status code);

#ifdef __cplusplus
}
#endif
