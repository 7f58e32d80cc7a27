/* braggscope-paths.c: where the library finds its data files.
 *
 * An installed library finds them relative to its own file (dladdr), as the
 * engine finds its formats module: a tree installed into a DESTDIR and moved,
 * or unpacked anywhere, works without environment variables.  The source
 * tree's data folder is a candidate only for the library of the build tree,
 * never for an installed one (the clone may be gone).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-private.h"

#include <dlfcn.h>
#include <stdlib.h>

/* The real folder of the file that holds this code (the library), or NULL. */
static char *
library_folder (void)
{
  Dl_info info;
  g_autofree char *real = NULL;

  if (dladdr ((void *) library_folder, &info) == 0 || info.dli_fname == NULL ||
      !g_path_is_absolute (info.dli_fname) || (real = realpath (info.dli_fname, NULL)) == NULL)
    return NULL;
  return g_path_get_dirname (real);
}

/* Whether @folder is the build tree's folder of the library. */
static gboolean
is_build_folder (const char *folder)
{
  g_autofree char *build = realpath (BRAGGSCOPE_BUILD_LIBDIR, NULL);

  return folder != NULL && build != NULL && strcmp (folder, build) == 0;
}

char **
_braggscope_data_dirs (void)
{
  static char *relative = NULL, *source = NULL;
  static gsize found = 0;
  const char *env = g_getenv ("BRAGGSCOPE_DATADIR");
  GPtrArray *dirs = g_ptr_array_new ();

  if (g_once_init_enter (&found))
    {
      g_autofree char *folder = library_folder ();

      if (folder != NULL && is_build_folder (folder))
        source = g_strdup (BRAGGSCOPE_SOURCE_DATADIR);
      else if (folder != NULL)
        relative = g_canonicalize_filename (BRAGGSCOPE_DATADIR_FROM_LIBDIR, folder);
      g_once_init_leave (&found, 1);
    }
  if (env != NULL && env[0] != '\0')
    g_ptr_array_add (dirs, g_strdup (env));
  if (relative != NULL)
    g_ptr_array_add (dirs, g_strdup (relative));
  if (source != NULL)
    g_ptr_array_add (dirs, g_strdup (source));
  if (relative == NULL || strcmp (relative, BRAGGSCOPE_INSTALLED_DATADIR) != 0)
    g_ptr_array_add (dirs, g_strdup (BRAGGSCOPE_INSTALLED_DATADIR));
  g_ptr_array_add (dirs, NULL);
  return (char **) g_ptr_array_free (dirs, FALSE);
}
