/* braggscope-error.h: the error domain of libbraggscope. */
#pragma once

#include "braggscope-export.h"

#include <glib.h>

G_BEGIN_DECLS

/**
 * BRAGGSCOPE_ERROR:
 *
 * The error domain of libbraggscope: parameters the engine rejects, files it
 * cannot read, requests it cannot serve.  Messages are one line and name the
 * input and its value, as the engine's.
 *
 * Since: 0.1
 */
#define BRAGGSCOPE_ERROR (braggscope_error_quark ())

/**
 * BraggscopeError:
 * @BRAGGSCOPE_ERROR_INVALID: a parameter or flag outside what the physics or
 *   the command line allows (the engine's usage and invalid errors)
 * @BRAGGSCOPE_ERROR_IO: a file could not be opened, read or written
 * @BRAGGSCOPE_ERROR_PARSE: a file's contents are malformed (the message names
 *   file and line)
 * @BRAGGSCOPE_ERROR_NOMEM: out of memory, or the plan exceeds its budget
 * @BRAGGSCOPE_ERROR_CANCELLED: the request was superseded or cancelled
 * @BRAGGSCOPE_ERROR_UNSUPPORTED: the request needs a feature this build lacks
 * @BRAGGSCOPE_ERROR_FAILED: anything else
 * @BRAGGSCOPE_ERROR_NO_MATCH: a fit found no orientation that explains the
 *   measured peaks better than chance (Since: 0.1)
 *
 * Error codes in the %BRAGGSCOPE_ERROR domain.
 *
 * Since: 0.1
 */
typedef enum
{
  BRAGGSCOPE_ERROR_INVALID,
  BRAGGSCOPE_ERROR_IO,
  BRAGGSCOPE_ERROR_PARSE,
  BRAGGSCOPE_ERROR_NOMEM,
  BRAGGSCOPE_ERROR_CANCELLED,
  BRAGGSCOPE_ERROR_UNSUPPORTED,
  BRAGGSCOPE_ERROR_FAILED,
  BRAGGSCOPE_ERROR_NO_MATCH,
} BraggscopeError;

/**
 * braggscope_error_quark:
 *
 * The error domain of libbraggscope, %BRAGGSCOPE_ERROR.
 *
 * Returns: the quark of the domain
 *
 * Since: 0.1
 */
BRAGGSCOPE_EXPORT
GQuark braggscope_error_quark (void);

G_END_DECLS
