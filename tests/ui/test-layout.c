/* test-layout.c: the viewer's window fits the screens it is used on, in
 * every shipped language: at 1280 x 800 and 1600 x 1000 its natural and
 * minimum widths fit, the controls panel never scrolls sideways and clips
 * no child (each is allocated at least its natural width, inside the
 * panel), a long status message ellipsizes instead of widening the window
 * and does not outlive the next change, a horizontal wheel over a slider
 * leaves its value alone, angle sliders move a useful step per pixel, and
 * the shortcuts window fits.
 *
 * The language is $BRAGGSCOPE_TEST_LANGUAGE ("de": the German catalogue
 * $BRAGGSCOPE_TEST_MO, as test-german-widgets binds it; unset: English).
 * Runs under build-aux/xvfb-test.sh on a 1600 x 1000 screen.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-application.h"
#include "braggscope-window.h"
#include "ui-test-util.h"

#include <gdk/x11/gdkx.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <math.h>
#include <string.h>
#include <X11/extensions/XTest.h>

static BraggscopeApplication *app;
static const char *language = "en";

/* The default scene on a 512 x 512 detector: the layout does not depend on
 * the frame, and its frames come quickly. */
static const char *const small_scene[] = { "-detpixels", "512", "-pixel", "0.2", NULL };

typedef struct
{
  int width, height;
} Size;

static const Size small_size = { 1280, 800 };
static const Size large_size = { 1600, 1000 };

/* The message a search leaves, as long as the longest the viewer writes. */
static const char long_message[] =
    "Orientation found: misset 110.512 18.093 -111.771°; 35 of 50 measured peaks within 3 px, "
    "rms 1.36 px, correlation 0.014 over 10 shells of equal reciprocal volume, after the grid "
    "search over all orientations and the refinement of the distance and beam centre";

static void
settle (GtkWidget *window)
{
  for (int i = 0; i < 50; i++)
    {
      while (g_main_context_pending (NULL))
        g_main_context_iteration (NULL, FALSE);
      g_usleep (2000);
    }
  gtk_test_widget_wait_for_draw (window);
}

static BraggscopeWindow *
open_window (const Size *screen)
{
  BraggscopeWindow *window = ui_test_open_window (app, small_scene, screen->width, screen->height);

  settle (GTK_WIDGET (window));
  return window;
}

static void
close_window (BraggscopeWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);
}

/* The window's minimum and natural widths fit @screen. */
static void
check_window_fits (BraggscopeWindow *window, const Size *screen, const char *when)
{
  int minimum, natural;

  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural, NULL,
                      NULL);
  g_test_message ("%s %dx%d %s: window minimum width %d, natural %d, allocated %d", language,
                  screen->width, screen->height, when, minimum, natural,
                  gtk_widget_get_width (GTK_WIDGET (window)));
  {
    const char *parts[] = { "status-line", "readout", "sidebar", "reciprocal-view", NULL };

    for (int i = 0; parts[i] != NULL; i++)
      {
        GtkWidget *part = ui_test_find_widget (GTK_WIDGET (window), parts[i]);
        int part_min = 0, part_nat = 0;

        if (part == NULL || !gtk_widget_get_visible (part))
          continue;
        gtk_widget_measure (part, GTK_ORIENTATION_HORIZONTAL, -1, &part_min, &part_nat, NULL, NULL);
        g_test_message ("  %s: minimum %d, natural %d, allocated %d", parts[i], part_min, part_nat,
                        gtk_widget_get_width (part));
        if (i == 0)
          for (GtkWidget *c = gtk_widget_get_first_child (part); c != NULL;
               c = gtk_widget_get_next_sibling (c))
            if (gtk_widget_get_visible (c))
              {
                gtk_widget_measure (c, GTK_ORIENTATION_HORIZONTAL, -1, &part_min, &part_nat, NULL,
                                    NULL);
                g_test_message ("    %s '%s': %d / %d, allocated %d (%d)", gtk_widget_get_name (c),
                                GTK_IS_LABEL (c) ? gtk_label_get_text (GTK_LABEL (c)) : "",
                                part_min, part_nat, gtk_widget_get_width (c),
                                gtk_widget_get_allocated_width (c));
              }
      }
  }
  g_assert_cmpint (minimum, <=, screen->width);
  g_assert_cmpint (natural, <=, screen->width);
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), <=, screen->width);
}

static GtkWidget *
sidebar_of (BraggscopeWindow *window)
{
  GtkWidget *sidebar = ui_test_find_widget (GTK_WIDGET (window), "sidebar");

  g_assert_nonnull (sidebar);
  return sidebar;
}

/* Every group of the panel open, as a user exploring it leaves them. */
static void
expand_all (GtkWidget *root)
{
  if (GTK_IS_EXPANDER (root))
    gtk_expander_set_expanded (GTK_EXPANDER (root), TRUE);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    expand_all (child);
}

/* No scrolled window at or under @root can scroll sideways. */
static void
check_no_sideways_scroll (GtkWidget *root)
{
  if (GTK_IS_SCROLLED_WINDOW (root) && gtk_widget_get_mapped (root))
    {
      GtkAdjustment *h = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (root));
      double excess = gtk_adjustment_get_upper (h) - gtk_adjustment_get_page_size (h);

      if (excess > 0.5 || gtk_adjustment_get_value (h) > 0.5)
        g_test_message ("%s: %s scrolls sideways by %.0f px (at %.0f)", language,
                        gtk_widget_get_name (root), excess, gtk_adjustment_get_value (h));
      g_assert_cmpfloat (excess, <=, 0.5);
      g_assert_cmpfloat (gtk_adjustment_get_value (h), <=, 0.5);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    check_no_sideways_scroll (child);
}

/* The widgets a user reads or types in: each must show all of itself. */
static gboolean
is_leaf_control (GtkWidget *widget)
{
  return GTK_IS_LABEL (widget) || GTK_IS_SPIN_BUTTON (widget) || GTK_IS_ENTRY (widget) ||
         GTK_IS_CHECK_BUTTON (widget) || GTK_IS_DROP_DOWN (widget) || GTK_IS_SWITCH (widget) ||
         GTK_IS_BUTTON (widget) || GTK_IS_SCALE (widget);
}

/* Each visible control under @root is allocated at least its natural width
 * and lies inside @panel; returns how many were checked, counting those
 * clipped into *@clipped. */
static int
check_children (GtkWidget *root, GtkWidget *panel, int *clipped)
{
  int checked = 0;

  if (!gtk_widget_get_mapped (root))
    return 0;
  if (is_leaf_control (root))
    {
      graphene_rect_t bounds;
      GtkAllocation allocation;
      int minimum, natural, width;
      const char *what = GTK_IS_LABEL (root)    ? gtk_label_get_text (GTK_LABEL (root))
                         : GTK_IS_BUTTON (root) ? gtk_widget_get_name (root)
                                                : G_OBJECT_TYPE_NAME (root);

      /* the size its parent gave it, margins and all, as measure() counts */
      gtk_widget_get_allocation (root, &allocation);
      width = allocation.width;
      gtk_widget_measure (root, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural, NULL, NULL);
      g_assert_true (gtk_widget_compute_bounds (root, panel, &bounds));
      if (width < natural || bounds.origin.x < -0.5 ||
          bounds.origin.x + bounds.size.width > gtk_widget_get_width (panel) + 0.5)
        {
          g_test_message ("%s: clipped: %s \"%s\", %d px of %d, at x %.0f..%.0f of %d", language,
                          G_OBJECT_TYPE_NAME (root), what, width, natural, bounds.origin.x,
                          bounds.origin.x + bounds.size.width, gtk_widget_get_width (panel));
          (*clipped)++;
        }
      checked++;
      /* a button's or check button's label is its own child */
      if (!GTK_IS_BUTTON (root) && !GTK_IS_CHECK_BUTTON (root))
        return checked;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    checked += check_children (child, panel, clipped);
  return checked;
}

static void
check_panel (BraggscopeWindow *window, const Size *screen)
{
  GtkWidget *sidebar = sidebar_of (window);
  GtkWidget *controls = braggscope_window_get_controls (window);
  int minimum, natural, clipped = 0, checked;

  gtk_widget_measure (controls, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural, NULL, NULL);
  g_test_message ("%s %dx%d: panel natural width %d (minimum %d), sidebar allocated %d", language,
                  screen->width, screen->height, natural, minimum, gtk_widget_get_width (sidebar));
  check_no_sideways_scroll (sidebar);
  checked = check_children (sidebar, sidebar, &clipped);
  g_test_message ("%s %dx%d: %d controls, %d clipped", language, screen->width, screen->height,
                  checked, clipped);
  g_assert_cmpint (checked, >, 50);
  g_assert_cmpint (clipped, ==, 0);
}

/* Focusing each entry and spin button of the panel, as a click does, never
 * scrolls it sideways. */
static void
focus_every_entry (BraggscopeWindow *window, GtkWidget *root)
{
  if (!gtk_widget_get_mapped (root))
    return;
  if (GTK_IS_SPIN_BUTTON (root) || GTK_IS_ENTRY (root))
    {
      gtk_widget_grab_focus (root);
      while (g_main_context_pending (NULL))
        g_main_context_iteration (NULL, FALSE);
      check_no_sideways_scroll (sidebar_of (window));
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    focus_every_entry (window, child);
}

static void
test_panel (gconstpointer data)
{
  const Size *screen = data;
  BraggscopeWindow *window = open_window (screen);

  check_window_fits (window, screen, "at first launch");
  check_panel (window, screen);
  expand_all (sidebar_of (window));
  settle (GTK_WIDGET (window));
  check_window_fits (window, screen, "with every group open");
  check_panel (window, screen);
  focus_every_entry (window, sidebar_of (window));
  close_window (window);
}

/* ------------------------------------------------------------------------- */

static void
test_status (gconstpointer data)
{
  const Size *screen = data;
  BraggscopeWindow *window = open_window (screen);
  GtkWidget *message = ui_test_find_widget (GTK_WIDGET (window), "message-label");
  BraggscopeSimulation *sim = braggscope_window_get_simulation (window);
  double misset = 0.0;

  g_assert_nonnull (message);
  braggscope_window_show_message (window, long_message, FALSE);
  settle (GTK_WIDGET (window));
  check_window_fits (window, screen, "after a long message");
  /* cut on screen, whole in the tooltip */
  g_assert_true (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (message))));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (message), ==, long_message);

  /* a later change of the parameters ends it */
  g_object_get (sim, "misset-x", &misset, NULL);
  g_object_set (sim, "misset-x", misset + 1.0, NULL);
  ui_test_wait_full_frame (window);
  g_assert_cmpstr (braggscope_window_get_message (window), ==, "");
  close_window (window);
}

/* ------------------------------------------------------------------------- */

/* A wheel turned sideways (X buttons 6 and 7) over the middle of @widget. */
static void
wheel_sideways (GtkWidget *widget, int notches)
{
  GdkSurface *surface = gtk_native_get_surface (gtk_widget_get_native (widget));
  Display *display = gdk_x11_display_get_xdisplay (gtk_widget_get_display (widget));
  graphene_point_t at;
  double nx, ny;
  int root_x, root_y;
  Window child;

  g_assert_true (
      gtk_widget_compute_point (widget, GTK_WIDGET (gtk_widget_get_native (widget)),
                                &GRAPHENE_POINT_INIT (gtk_widget_get_width (widget) / 2.0,
                                                      gtk_widget_get_height (widget) / 2.0),
                                &at));
  gtk_native_get_surface_transform (gtk_widget_get_native (widget), &nx, &ny);
  XTranslateCoordinates (display, gdk_x11_surface_get_xid (surface), DefaultRootWindow (display),
                         (int) (at.x + nx), (int) (at.y + ny), &root_x, &root_y, &child);
  XTestFakeMotionEvent (display, -1, root_x, root_y, CurrentTime);
  for (int i = 0; i < ABS (notches); i++)
    {
      XTestFakeButtonEvent (display, notches > 0 ? 7 : 6, True, CurrentTime);
      XTestFakeButtonEvent (display, notches > 0 ? 7 : 6, False, CurrentTime);
    }
  XSync (display, False);
}

/* A wheel turned sideways over a slider changes nothing; angle sliders
 * move a useful step per pixel, and a spin button still takes any angle. */
static void
test_sliders (gconstpointer data)
{
  const Size *screen = data;
  BraggscopeWindow *window = open_window (screen);
  BraggscopeSimulation *sim = braggscope_window_get_simulation (window);
  GtkWidget *controls = braggscope_window_get_controls (window);
  const char *const angles[] = { "misset-x", "misset-y", "misset-z", NULL };
  int n_cells = 0, after = 0;

  {
    GtkWidget *scale =
        braggscope_controls_get_widget (BRAGGSCOPE_CONTROLS (controls), "n-cells-scale");

    g_object_get (sim, "n-cells", &n_cells, NULL);
    wheel_sideways (scale, 5);
    settle (GTK_WIDGET (window));
    wheel_sideways (scale, -2);
    settle (GTK_WIDGET (window));
    g_object_get (sim, "n-cells", &after, NULL);
    g_test_message ("unit cells per edge before and after a sideways wheel: %d, %d", n_cells,
                    after);
    g_assert_cmpint (after, ==, n_cells);
  }

  for (int i = 0; angles[i] != NULL; i++)
    {
      g_autofree char *scale_name = g_strconcat (angles[i], "-scale", NULL);
      g_autofree char *spin_name = g_strconcat (angles[i], "-spin", NULL);
      GtkWidget *scale =
          braggscope_controls_get_widget (BRAGGSCOPE_CONTROLS (controls), scale_name);
      GtkWidget *spin = braggscope_controls_get_widget (BRAGGSCOPE_CONTROLS (controls), spin_name);
      GtkAdjustment *adjustment = gtk_range_get_adjustment (GTK_RANGE (scale));
      double span = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_lower (adjustment);
      double per_pixel = span / gtk_widget_get_width (scale);
      double value = 0.0;

      g_test_message ("%s slider: %.1f° over %d px, %.2f° per pixel", angles[i], span,
                      gtk_widget_get_width (scale), per_pixel);
      g_assert_cmpfloat (per_pixel, <=, 0.5);
      /* a coarse turn: typed, then shown by the slider */
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 150.0);
      settle (GTK_WIDGET (window));
      g_object_get (sim, angles[i], &value, NULL);
      g_assert_cmpfloat (value, ==, 150.0);
      g_assert_cmpfloat (gtk_range_get_value (GTK_RANGE (scale)), ==, 150.0);
      gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), -170.0);
      settle (GTK_WIDGET (window));
      g_object_get (sim, angles[i], &value, NULL);
      g_assert_cmpfloat (value, ==, -170.0);
      g_assert_cmpfloat (gtk_range_get_value (GTK_RANGE (scale)), ==, -170.0);
      /* and the slider moves the angle */
      gtk_range_set_value (GTK_RANGE (scale), -165.0);
      g_object_get (sim, angles[i], &value, NULL);
      g_assert_cmpfloat (value, ==, -165.0);
    }
  close_window (window);
}

/* ------------------------------------------------------------------------- */

static GtkWidget *
find_shortcuts_window (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GObject) toplevel = g_list_model_get_item (toplevels, i);

      if (GTK_IS_SHORTCUTS_WINDOW (toplevel) && gtk_widget_get_visible (GTK_WIDGET (toplevel)))
        return GTK_WIDGET (toplevel);
    }
  return NULL;
}

static gboolean
shortcuts_shown (gpointer data)
{
  GtkWidget *shortcuts = find_shortcuts_window ();

  return shortcuts != NULL && gtk_widget_get_mapped (shortcuts);
}

/* The shortcuts whose keys differ only by a small mark ("Ctrl + ." and
 * "Ctrl + ,") say in words which key they mean. */
static void
check_shortcut_words (GtkWidget *root, guint *marks)
{
  if (GTK_IS_SHORTCUTS_SHORTCUT (root))
    {
      g_autofree char *accelerator = NULL, *title = NULL, *subtitle = NULL;

      g_object_get (root, "accelerator", &accelerator, "title", &title, "subtitle", &subtitle,
                    NULL);
      if (accelerator != NULL &&
          (strstr (accelerator, "period") != NULL || strstr (accelerator, "comma") != NULL))
        {
          g_test_message ("%s: %s: \"%s\" / \"%s\"", language, accelerator, title, subtitle);
          g_assert_nonnull (subtitle);
          g_assert_cmpuint (strlen (subtitle), >, 0);
          /* the search page repeats every shortcut */
          *marks |= strstr (accelerator, "period") != NULL ? 1 : 2;
        }
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    check_shortcut_words (child, marks);
}

static void
test_shortcuts (gconstpointer data)
{
  const Size *screen = data;
  BraggscopeWindow *window = open_window (screen);
  GtkWidget *shortcuts;
  int minimum, natural, width_min, width_nat;
  guint marks = 0;

  ui_test_activate (window, "show-help-overlay", NULL);
  g_assert_true (ui_test_wait (shortcuts_shown, NULL, 10.0));
  shortcuts = find_shortcuts_window ();
  settle (shortcuts);
  gtk_widget_measure (shortcuts, GTK_ORIENTATION_HORIZONTAL, -1, &width_min, &width_nat, NULL,
                      NULL);
  g_test_message ("%s %dx%d: shortcuts window width %d natural, %d minimum", language,
                  screen->width, screen->height, width_nat, width_min);
  g_assert_cmpint (width_nat, <=, screen->width);
  gtk_widget_measure (shortcuts, GTK_ORIENTATION_VERTICAL, width_nat, &minimum, &natural, NULL,
                      NULL);
  g_test_message ("%s %dx%d: shortcuts window %d x %d (natural; minimum %d x %d), shown %d x %d",
                  language, screen->width, screen->height, width_nat, natural, width_min, minimum,
                  gtk_widget_get_width (shortcuts), gtk_widget_get_height (shortcuts));
  g_assert_cmpint (width_nat, <=, screen->width);
  g_assert_cmpint (natural, <=, screen->height);
  g_assert_cmpint (gtk_widget_get_height (shortcuts), <=, screen->height);
  check_shortcut_words (shortcuts, &marks);
  g_assert_cmpuint (marks, ==, 3);
  gtk_window_destroy (GTK_WINDOW (shortcuts));
  close_window (window);
}

/* ------------------------------------------------------------------------- */

static void
on_activate (GApplication *application, gpointer data)
{
}

static char *
install_catalogue (void)
{
  const char *mo = g_getenv ("BRAGGSCOPE_TEST_MO");
  g_autoptr (GError) error = NULL;
  g_autofree char *tmpdir = NULL, *messages = NULL, *target = NULL, *contents = NULL;
  gsize length = 0;
  char *localedir;

  g_assert_nonnull (mo);
  tmpdir = g_dir_make_tmp ("braggscope-layout-XXXXXX", &error);
  g_assert_no_error (error);
  localedir = g_build_filename (tmpdir, "locale", NULL);
  messages = g_build_filename (localedir, language, "LC_MESSAGES", NULL);
  target = g_build_filename (messages, GETTEXT_PACKAGE ".mo", NULL);
  g_assert_true (g_file_get_contents (mo, &contents, &length, NULL));
  g_assert_cmpint (g_mkdir_with_parents (messages, 0755), ==, 0);
  g_assert_true (g_file_set_contents (target, contents, length, NULL));
  return localedir;
}

static void
add_tests (const char *name, GTestDataFunc func)
{
  const Size *screens[] = { &small_size, &large_size };

  for (guint i = 0; i < G_N_ELEMENTS (screens); i++)
    {
      g_autofree char *path = g_strdup_printf ("/ui/layout/%s/%s/%dx%d", language, name,
                                               screens[i]->width, screens[i]->height);

      g_test_add_data_func (path, screens[i], func);
    }
}

int
main (int argc, char *argv[])
{
  g_autofree char *localedir = NULL;
  int status;

  if (g_getenv ("BRAGGSCOPE_TEST_LANGUAGE") != NULL)
    language = g_getenv ("BRAGGSCOPE_TEST_LANGUAGE");
  g_setenv ("LANGUAGE", language, TRUE);
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  gtk_disable_setlocale ();
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  gtk_test_init (&argc, &argv, NULL);
  if (g_strcmp0 (language, "en") != 0)
    {
      localedir = install_catalogue ();
      bindtextdomain (GETTEXT_PACKAGE, localedir);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      textdomain (GETTEXT_PACKAGE);
    }

  app = braggscope_application_new (G_APPLICATION_NON_UNIQUE);
  g_signal_connect (app, "activate", G_CALLBACK (on_activate), NULL);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  add_tests ("panel", test_panel);
  add_tests ("status", test_status);
  add_tests ("sliders", test_sliders);
  add_tests ("shortcuts", test_shortcuts);
  status = g_test_run ();

  g_object_unref (app);
  if (localedir != NULL)
    {
      g_autofree char *tmpdir = g_path_get_dirname (localedir);

      ui_test_remove_dir (g_build_filename (localedir, language, "LC_MESSAGES", NULL));
      {
        g_autofree char *lang = g_build_filename (localedir, language, NULL);
        g_rmdir (lang);
      }
      g_rmdir (localedir);
      g_rmdir (tmpdir);
    }
  return status;
}
