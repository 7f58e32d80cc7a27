/* test-german-widgets.c: libbraggscope-gtk's labels come from the viewer's
 * catalogue (text domain "braggscope"): in German, BraggscopeControls shows
 * German group titles and labels.
 *
 * The catalogue is $BRAGGSCOPE_TEST_MO (msgfmt of po/de.po), bound here as
 * the viewer's main () binds it.  Runs under build-aux/xvfb-test.sh.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "ui-test-util.h"

#include <braggscope-gtk.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <locale.h>

static char *localedir;

/* The text of the first GtkLabel under @root whose text starts with @prefix. */
static const char *
find_label (GtkWidget *root, const char *prefix)
{
  if (GTK_IS_LABEL (root) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (root)), prefix))
    return gtk_label_get_text (GTK_LABEL (root));
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      const char *found = find_label (child, prefix);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* BraggscopeControls::value-clamped, swapped: keeps the message. */
static void
keep_message (char **said,
              const char *property,
              double requested,
              double applied,
              const char *message,
              BraggscopeControls *controls)
{
  g_free (*said);
  *said = g_strdup (message);
}

static void
test_controls (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  GtkWidget *controls = g_object_ref_sink (braggscope_controls_new (sim));
  GtkWidget *crystal =
      braggscope_controls_get_widget (BRAGGSCOPE_CONTROLS (controls), "crystal-group");
  GtkWidget *sampling =
      braggscope_controls_get_widget (BRAGGSCOPE_CONTROLS (controls), "sampling-group");

  g_assert_nonnull (crystal);
  g_assert_cmpstr (gtk_expander_get_label (GTK_EXPANDER (crystal)), ==, "Kristall");
  g_assert_cmpstr (gtk_expander_get_label (GTK_EXPANDER (sampling)), ==, "Abtastung");
  /* a label with its unit, and one without */
  g_assert_cmpstr (find_label (controls, "Wellenl"), ==, "Wellenlänge (Å)");
  g_assert_cmpstr (find_label (controls, "Mosaiz"), ==, "Mosaizität (°)");
  g_assert_cmpstr (find_label (controls, "Fluenz"), ==, "Fluenz (Photonen/m²)");
  g_assert_null (find_label (controls, "Wavelength"));
  /* the crystal's shapes in German, not nanoBragg's nicks (issue 24) */
  {
    GtkWidget *shape =
        braggscope_controls_get_widget (BRAGGSCOPE_CONTROLS (controls), "crystal-shape-dropdown");
    GListModel *shapes = gtk_drop_down_get_model (GTK_DROP_DOWN (shape));

    g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (shapes), 0), ==,
                     "quaderförmig (Parallelepiped)");
    g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (shapes), 2), ==, "Gauß");
  }
  /* tooltips: the simulation's property blurbs, translated */
  g_assert_cmpstr (gtk_widget_get_tooltip_text (braggscope_controls_get_widget (
                       BRAGGSCOPE_CONTROLS (controls), "misset-x-scale")),
                   ==, "Misset-Winkel um X (Grad)");
  g_assert_cmpstr (gtk_widget_get_tooltip_text (braggscope_controls_get_widget (
                       BRAGGSCOPE_CONTROLS (controls), "distance-spin")),
                   ==, "Detektorabstand (mm)");
  /* a clamped number is said in German (numbers in C: LC_NUMERIC is "C" here) */
  {
    GtkWidget *spin =
        braggscope_controls_get_widget (BRAGGSCOPE_CONTROLS (controls), "wavelength-spin");
    g_autofree char *said = NULL;

    g_signal_connect_swapped (controls, "value-clamped", G_CALLBACK (keep_message), &said);
    gtk_editable_set_text (GTK_EDITABLE (spin), "0");
    gtk_spin_button_update (GTK_SPIN_BUTTON (spin));
    g_assert_cmpstr (said, ==, "Wellenlänge: 0 Å liegt unter dem Minimum; auf 0.2 Å gesetzt");
  }
  g_object_unref (controls);
}

/* A host that never calls bindtextdomain() still gets German controls: the
 * library binds its domain (here to $BRAGGSCOPE_LOCALEDIR, as installed to
 * its locale folder), and a domain the host bound is left alone (above). */
static void
test_unbound_host (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
      GtkWidget *controls = g_object_ref_sink (braggscope_controls_new (sim));
      GtkWidget *crystal =
          braggscope_controls_get_widget (BRAGGSCOPE_CONTROLS (controls), "crystal-group");

      g_assert_cmpstr (gtk_expander_get_label (GTK_EXPANDER (crystal)), ==, "Kristall");
      g_assert_cmpstr (bindtextdomain (GETTEXT_PACKAGE, NULL), ==,
                       g_getenv ("BRAGGSCOPE_LOCALEDIR"));
      g_object_unref (controls);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

int
main (int argc, char *argv[])
{
  const char *mo = g_getenv ("BRAGGSCOPE_TEST_MO");
  g_autoptr (GError) error = NULL;
  g_autofree char *tmpdir = NULL, *messages = NULL, *target = NULL, *contents = NULL;
  gsize length = 0;
  int status;

  /* German messages, numbers as everywhere in the viewer */
  g_setenv ("LANGUAGE", "de", TRUE);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  gtk_disable_setlocale ();
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  gtk_test_init (&argc, &argv, NULL);

  g_assert_nonnull (mo);
  tmpdir = g_dir_make_tmp ("braggscope-de-XXXXXX", &error);
  g_assert_no_error (error);
  localedir = g_build_filename (tmpdir, "locale", NULL);
  messages = g_build_filename (localedir, "de", "LC_MESSAGES", NULL);
  target = g_build_filename (messages, GETTEXT_PACKAGE ".mo", NULL);
  g_assert_true (g_file_get_contents (mo, &contents, &length, NULL));
  g_assert_cmpint (g_mkdir_with_parents (messages, 0755), ==, 0);
  g_assert_true (g_file_set_contents (target, contents, length, NULL));
  if (g_test_subprocess ())
    g_setenv ("BRAGGSCOPE_LOCALEDIR", localedir, TRUE); /* a host that binds nothing */
  else
    {
      bindtextdomain (GETTEXT_PACKAGE, localedir);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      textdomain (GETTEXT_PACKAGE);
    }

  g_test_add_func ("/ui/german/controls", test_controls);
  g_test_add_func ("/ui/german/unbound-host", test_unbound_host);
  status = g_test_run ();

  g_unlink (target);
  g_rmdir (messages);
  {
    g_autofree char *de = g_build_filename (localedir, "de", NULL);
    g_rmdir (de);
  }
  g_rmdir (localedir);
  g_rmdir (tmpdir);
  return status;
}
