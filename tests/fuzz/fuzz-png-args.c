/* fuzz-png-args: the plugin's snapshot reader (braggscope_snapshot_load_args:
 * libpng and the "braggscope:args" text chunk), then the engine's parser and
 * validation on the arguments it returns, as loading a snapshot does. */
#include "fuzz-util.h"

#include <braggscope.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *path = fuzz_write (0, data, size);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = braggscope_snapshot_load_args (path, &error);
  nb_params p;
  nb_error err;
  nb_status st;

  if (args == NULL)
    {
      if (error == NULL || error->message == NULL || strchr (error->message, '\n') != NULL)
        abort ();
      return 0;
    }
  if (error != NULL || args[0] == NULL)
    abort ();
  nb_params_init (&p);
  /* file names in a snapshot are not opened here */
  for (char **a = args; *a != NULL; a++)
    if (strcmp (*a, "-img") == 0 || strcmp (*a, "-mask") == 0)
      {
        nb_params_clear (&p);
        return 0;
      }
  st = nb_params_parse_argv (&p, (int) g_strv_length (args), (const char *const *) args, &err);
  if (st == NB_OK)
    st = nb_params_validate (&p, &err);
  if (st != NB_OK && (err.message[0] == '\0' || strchr (err.message, '\n') != NULL))
    abort ();
  nb_params_clear (&p);
  return 0;
}
