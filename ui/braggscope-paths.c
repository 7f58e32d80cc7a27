/* braggscope-paths.c: where the viewer finds its translations and the
 * nanobragg program (see braggscope-paths.h).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-paths.h"

/* The running executable's path, resolved; NULL where the system does not say. */
static char *
executable_path (void)
{
  return g_file_read_link ("/proc/self/exe", NULL);
}

gboolean
braggscope_paths_run_from_build_tree (void)
{
  g_autofree char *exe = executable_path ();
  g_autofree char *root = g_canonicalize_filename (BRAGGSCOPE_BUILD_ROOT, NULL);
  g_autofree char *under = g_strconcat (root, G_DIR_SEPARATOR_S, NULL);

  return exe != NULL && g_str_has_prefix (exe, under);
}

const char *
braggscope_paths_locale_dir (void)
{
  const char *env = g_getenv ("BRAGGSCOPE_LOCALEDIR");

  if (env != NULL && *env != '\0')
    return env;
  if (braggscope_paths_run_from_build_tree () &&
      g_file_test (BRAGGSCOPE_UNINSTALLED_LOCALEDIR, G_FILE_TEST_IS_DIR))
    return BRAGGSCOPE_UNINSTALLED_LOCALEDIR;
  return LOCALEDIR;
}

char *
braggscope_paths_nanobragg (void)
{
  g_autofree char *exe = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *beside = NULL;

  if (braggscope_paths_run_from_build_tree () &&
      g_file_test (BRAGGSCOPE_UNINSTALLED_NANOBRAGG, G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup (BRAGGSCOPE_UNINSTALLED_NANOBRAGG);
  /* an installation moved as a whole keeps the programs together */
  exe = executable_path ();
  if (exe != NULL)
    {
      dir = g_path_get_dirname (exe);
      beside = g_build_filename (dir, "nanobragg", NULL);
      if (g_file_test (beside, G_FILE_TEST_IS_EXECUTABLE))
        return g_steal_pointer (&beside);
    }
  if (g_file_test (BRAGGSCOPE_INSTALLED_NANOBRAGG, G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup (BRAGGSCOPE_INSTALLED_NANOBRAGG);
  return g_strdup ("nanobragg");
}
