/* braggscope-gtk-i18n.c: the widgets' text domain.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-gtk-i18n-private.h"

#include <glib/gi18n-lib.h>
#include <locale.h>
#include <string.h>

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
          bindtextdomain (GETTEXT_PACKAGE,
                          env != NULL && *env != '\0' ? env : BRAGGSCOPE_GTK_LOCALEDIR);
          bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
        }
      g_once_init_leave (&bound, 1);
    }
}
