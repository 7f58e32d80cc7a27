/* main.c: the braggscope viewer.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-application.h"
#include "braggscope-paths.h"

#include <glib/gi18n.h>
#include <locale.h>

int
main (int argc, char *argv[])
{
  g_autoptr (BraggscopeApplication) app = NULL;

  /* Messages and texts in the user's language, but numbers always with a
   * decimal point: nanoBragg flags, snapshots' text chunks and the engine's
   * parser read and write "1.5", whatever the locale.  GTK must not reset this. */
  gtk_disable_setlocale ();
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  /* the build tree's catalogues when run from it, as its schema and data */
  bindtextdomain (GETTEXT_PACKAGE, braggscope_paths_locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_set_application_name ("Braggscope");
  app = braggscope_application_new (G_APPLICATION_DEFAULT_FLAGS);
  return g_application_run (G_APPLICATION (app), argc, argv);
}
