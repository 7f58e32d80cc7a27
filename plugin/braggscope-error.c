/* braggscope-error.c: the engine's nb_status codes as GErrors. */
#include "braggscope-error.h"
#include "braggscope-private.h"

/* The argument becomes the domain's name, "braggscope-error-quark", spaces
 * and all: the formatter would write "braggscope - error - quark". */
/* clang-format off */
G_DEFINE_QUARK (braggscope-error-quark, braggscope_error)
/* clang-format on */

BraggscopeError
_braggscope_error_code (int status)
{
  switch ((nb_status) status)
    {
      case NB_ERR_USAGE:
      case NB_ERR_INVALID:
        return BRAGGSCOPE_ERROR_INVALID;
      case NB_ERR_IO:
        return BRAGGSCOPE_ERROR_IO;
      case NB_ERR_PARSE:
        return BRAGGSCOPE_ERROR_PARSE;
      case NB_ERR_NOMEM:
        return BRAGGSCOPE_ERROR_NOMEM;
      case NB_ERR_CANCELLED:
        return BRAGGSCOPE_ERROR_CANCELLED;
      case NB_ERR_UNSUPPORTED:
        return BRAGGSCOPE_ERROR_UNSUPPORTED;
      case NB_OK:
        break;
    }
  return BRAGGSCOPE_ERROR_FAILED;
}

GError *
_braggscope_error_from_nb (const nb_error *err)
{
  const char *message = err->message[0] != '\0' ? err->message : nb_status_name (err->code);
  GError *error =
      g_error_new_literal (BRAGGSCOPE_ERROR, _braggscope_error_code (err->code), message);

  _braggscope_error_make_utf8 (&error);
  return error;
}

void
_braggscope_error_make_utf8 (GError **error)
{
  /* a file name's bytes, or one the engine cut short (%.80s), are not always
   * UTF-8; a GError's message must be (bindings convert it) */
  if (error != NULL && *error != NULL && !g_utf8_validate ((*error)->message, -1, NULL))
    {
      char *valid = g_utf8_make_valid ((*error)->message, -1);

      g_free ((*error)->message);
      (*error)->message = valid;
    }
}

void
_braggscope_propagate_nb (GError **error, const nb_error *err)
{
  g_propagate_error (error, _braggscope_error_from_nb (err));
}
