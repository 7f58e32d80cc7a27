/* fuzz-png-args: the plugin's snapshot reader (braggscope_snapshot_load_args:
 * libpng, the "braggscope:args" text chunk, the chunk-size limits, the bsFz
 * chunk's CRC), then the engine's parser and validation on the arguments it
 * returns, as loading a snapshot does; then braggscope_snapshot_restore_args
 * (the structure-factor text chunk, the bsFz header, inflating and hashing the
 * embedded file, the search for it on disk).  Invariants: no crash, every
 * error a one-line message. */
#include "fuzz-util.h"

#include <braggscope.h>

static void
check_error (GError *error)
{
  if (error == NULL || error->message == NULL || strchr (error->message, '\n') != NULL)
    abort ();
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* An embedded file that inflates and hashes right is written to the user's
   * cache: a folder inside a regular file cannot be made, so the write fails
   * (an error like any other) and nothing is left behind. */
  char cache[4200];

  snprintf (cache, sizeof cache, "%s/in-0/cache", fuzz_scratch_dir ());
  setenv ("XDG_CACHE_HOME", cache, 1);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static int initialized;
  const char *path;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = NULL, restored = NULL;
  nb_params p;
  nb_error err;
  nb_status st;

  if (!initialized)
    {
      LLVMFuzzerInitialize (NULL, NULL);
      initialized = 1;
    }
  path = fuzz_write (0, data, size);
  args = braggscope_snapshot_load_args (path, &error);
  if (args == NULL)
    {
      check_error (error);
      return 0;
    }
  if (error != NULL || args[0] == NULL)
    abort ();

  restored = braggscope_snapshot_restore_args (path, &error);
  if (restored == NULL)
    check_error (error);
  else if (error != NULL || g_strv_length (restored) != g_strv_length (args))
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
