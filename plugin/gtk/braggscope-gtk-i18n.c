/* braggscope-gtk-i18n.c: the widgets' text domain.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#define _GNU_SOURCE 1 /* dladdr (), realpath () */

#include "braggscope-gtk-i18n-private.h"

#include <dlfcn.h>
#include <glib/gi18n-lib.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

/* The translations' folder: the one of the install this library belongs to,
 * found from the library's own folder (a moved install finds its own), po/
 * of the build tree for the build tree's library (never the source or build
 * tree for an installed one), else the configured one. */
static char *
locale_folder (void)
{
  Dl_info info;
  g_autofree char *real = NULL, *folder = NULL, *build = NULL, *relative = NULL;

  if (dladdr ((void *) locale_folder, &info) == 0 || info.dli_fname == NULL ||
      !g_path_is_absolute (info.dli_fname) || (real = realpath (info.dli_fname, NULL)) == NULL)
    return g_strdup (BRAGGSCOPE_GTK_LOCALEDIR);
  folder = g_path_get_dirname (real);
  build = realpath (BRAGGSCOPE_GTK_BUILD_LIBDIR, NULL);
  if (build != NULL && strcmp (folder, build) == 0)
    return g_strdup (BRAGGSCOPE_GTK_BUILD_LOCALEDIR);
  relative = g_canonicalize_filename (BRAGGSCOPE_GTK_LOCALEDIR_FROM_LIBDIR, folder);
  if (g_file_test (relative, G_FILE_TEST_IS_DIR))
    return g_steal_pointer (&relative);
  return g_strdup (BRAGGSCOPE_GTK_LOCALEDIR);
}

void
_braggscope_gtk_ensure_textdomain (void)
{
  static gsize bound = 0;

  if (g_once_init_enter (&bound))
    {
      const char *env = g_getenv ("BRAGGSCOPE_LOCALEDIR");
      const char *current = bindtextdomain (GETTEXT_PACKAGE, NULL);
      const char *unbound = bindtextdomain ("braggscope-no-such-domain", NULL);

      /* A domain nobody bound answers with gettext's default folder (glibc's
       * /usr/share/locale), as an unused name shows; a host, or the
       * braggscope program, that bound it itself keeps its choice. */
      if (current == NULL || unbound == NULL || strcmp (current, unbound) == 0)
        {
          g_autofree char *found = env != NULL && *env != '\0' ? g_strdup (env) : locale_folder ();

          bindtextdomain (GETTEXT_PACKAGE, found);
          bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
        }
      g_once_init_leave (&bound, 1);
    }
}
