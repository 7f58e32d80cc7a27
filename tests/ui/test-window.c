/* test-window.c: the viewer's window, driven through its actions and
 * widgets under Xvfb: the picture follows the misset, snapshots carry and
 * restore their parameters, exports match the nanobragg CLI, the display
 * choices reach the view and the settings.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-application.h"
#include "braggscope-window.h"
#include "ui-test-util.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static BraggscopeApplication *app;

/* The default scene on a 512 x 512 detector of the same size: the same
 * pattern at a quarter of the cost. */
static const char *const small_scene[] = { "-detpixels", "512", "-pixel", "0.2", NULL };

typedef struct
{
  BraggscopeWindow *window;
  char *tmpdir;
} Fixture;

static BraggscopeSimulation *
sim_of (Fixture *f)
{
  return braggscope_window_get_simulation (f->window);
}

static BraggscopeView *
view_of (Fixture *f)
{
  return braggscope_window_get_view (f->window);
}

static BraggscopeFrame *
wait_full_frame (Fixture *f)
{
  return ui_test_wait_full_frame (f->window);
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  /* A reference of our own: a test may close (destroy) the window. */
  f->window = ui_test_open_window (app, small_scene, 1200, 800);
  f->tmpdir = g_dir_make_tmp ("braggscope-ui-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_object_unref (f->window);
  ui_test_remove_dir (f->tmpdir);
  g_free (f->tmpdir);
  /* The memory backend lives as long as the process: start each test afresh. */
  if (braggscope_application_get_settings (app) != NULL)
    {
      GSettings *settings = braggscope_application_get_settings (app);
      g_autoptr (GSettingsSchema) schema = NULL;
      g_auto (GStrv) keys = NULL;

      g_object_get (settings, "settings-schema", &schema, NULL);
      keys = g_settings_schema_list_keys (schema);
      for (int i = 0; keys[i] != NULL; i++)
        g_settings_reset (settings, keys[i]);
    }
}

static gboolean
file_exists (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_IS_REGULAR);
}

static void
activate (Fixture *f, const char *action, GVariant *parameter)
{
  ui_test_activate (f->window, action, parameter);
}

static guint8 *
screenshot_rgba (Fixture *f, int *width, int *height)
{
  g_autoptr (GdkTexture) texture = ui_test_screenshot (GTK_WIDGET (view_of (f)));

  *width = gdk_texture_get_width (texture);
  *height = gdk_texture_get_height (texture);
  return ui_test_texture_rgba (texture);
}

static int
compare_floats (const void *a, const void *b)
{
  float x = *(const float *) a, y = *(const float *) b;

  return (x > y) - (x < y);
}

/* The brightest 0.5 % of a frame's pixels, as a set of indices. */
static GHashTable *
bright_pixels (BraggscopeFrame *frame)
{
  gsize n = 0;
  const float *data = braggscope_frame_get_data (frame, &n);
  g_autofree float *sorted = g_memdup2 (data, n * sizeof (float));
  GHashTable *set = g_hash_table_new (g_direct_hash, g_direct_equal);
  float cut;

  qsort (sorted, n, sizeof (float), compare_floats);
  cut = sorted[n - n / 200];
  for (gsize i = 0; i < n; i++)
    if (data[i] > cut)
      g_hash_table_add (set, GSIZE_TO_POINTER (i + 1));
  return set;
}

/* |A ∩ B| / |A ∪ B|: 1 when the spots stayed, near 0 when they all moved. */
static double
overlap (GHashTable *a, GHashTable *b)
{
  GHashTableIter iter;
  gpointer key;
  guint both = 0;

  g_hash_table_iter_init (&iter, a);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    both += g_hash_table_contains (b, key);
  return (double) both / (g_hash_table_size (a) + g_hash_table_size (b) - both);
}

/* Changes the misset with @change, then checks that the next full frame and
 * the view's pixels on screen differ from before where the spots moved. */
static void
check_picture_follows (Fixture *f, void (*change) (Fixture *f))
{
  BraggscopeFrame *frame = braggscope_simulation_get_last_frame (sim_of (f));
  g_autoptr (BraggscopeFrame) before = g_object_ref (frame);
  g_autoptr (GHashTable) spots_before = bright_pixels (before);
  g_autoptr (GHashTable) spots_after = NULL;
  g_autofree guint8 *shot_a = NULL, *shot_a2 = NULL, *shot_b = NULL;
  int w, h, w2, h2;
  gsize changed;
  double same;

  shot_a = screenshot_rgba (f, &w, &h);
  shot_a2 = screenshot_rgba (f, &w2, &h2);
  g_assert_cmpint (w, >, 100);
  g_assert_cmpint (h, >, 100);
  /* The control: nothing changes on screen without a change of parameters. */
  g_assert_cmpint (w2, ==, w);
  g_assert_cmpint (h2, ==, h);
  g_assert_cmpuint (ui_test_count_differences (shot_a, shot_a2, (gsize) w * h, 0), ==, 0);

  change (f);
  frame = wait_full_frame (f);
  g_assert_cmpuint (braggscope_frame_get_sequence (frame), >,
                    braggscope_frame_get_sequence (before));

  spots_after = bright_pixels (frame);
  same = overlap (spots_before, spots_after);
  g_test_message ("bright pixels kept in place: %.1f %%", 100.0 * same);
  g_assert_cmpfloat (same, <, 0.5);

  shot_b = screenshot_rgba (f, &w2, &h2);
  g_assert_cmpint (w2, ==, w);
  g_assert_cmpint (h2, ==, h);
  changed = ui_test_count_differences (shot_a, shot_b, (gsize) w * h, 16);
  g_test_message ("screen pixels changed: %" G_GSIZE_FORMAT " of %d", changed, w * h);
  g_assert_cmpuint (changed, >, (gsize) w * h / 200);

  /* Where a spot arrived, the screen changed: the frame pixels bright now and
   * not before, mapped to the widget, mostly show a changed colour. */
  {
    GHashTableIter iter;
    gpointer key;
    guint arrived = 0, seen = 0;
    int width = braggscope_frame_get_width (frame);

    g_hash_table_iter_init (&iter, spots_after);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      {
        gsize index = GPOINTER_TO_SIZE (key) - 1;
        double x, y;
        int px, py;

        if (g_hash_table_contains (spots_before, key) ||
            !braggscope_view_frame_to_widget (view_of (f), index % width + 0.5, index / width + 0.5,
                                              &x, &y))
          continue;
        px = (int) x;
        py = (int) y;
        if (px < 0 || py < 0 || px >= w || py >= h)
          continue;
        arrived++;
        seen += ui_test_count_differences (shot_a + 4 * ((gsize) py * w + px),
                                           shot_b + 4 * ((gsize) py * w + px), 1, 16);
      }
    g_test_message ("arrived spot pixels on screen: %u, changed there: %u", arrived, seen);
    g_assert_cmpuint (arrived, >, 100);
    g_assert_cmpuint (seen, >, arrived / 2);
  }
}

static void
change_by_action (Fixture *f)
{
  double before = 0.0, after = 0.0;

  g_object_get (sim_of (f), "misset-x", &before, NULL);
  activate (f, "misset-step", g_variant_new ("(sd)", "x", 2.0));
  g_object_get (sim_of (f), "misset-x", &after, NULL);
  g_assert_cmpfloat_with_epsilon (after, before + 2.0, 1e-9);
}

static void
change_by_widget (Fixture *f)
{
  GtkWidget *controls = braggscope_window_get_controls (f->window);
  GtkWidget *scale = ui_test_find_widget (controls, "misset-x-scale");
  double before = 0.0, after = 0.0;

  g_assert_nonnull (scale);
  g_assert_true (GTK_IS_RANGE (scale));
  g_object_get (sim_of (f), "misset-x", &before, NULL);
  gtk_range_set_value (GTK_RANGE (scale), before - 3.0);
  g_object_get (sim_of (f), "misset-x", &after, NULL);
  g_assert_cmpfloat_with_epsilon (after, before - 3.0, 1e-6);
}

static void
test_misset_action (Fixture *f, gconstpointer data)
{
  check_picture_follows (f, change_by_action);
}

static void
test_misset_widget (Fixture *f, gconstpointer data)
{
  check_picture_follows (f, change_by_widget);
}

static void
test_parts (Fixture *f, gconstpointer data)
{
  static const char *const actions[] = { "open-structure-factors",
                                         "open-structure-factors-file",
                                         "open-snapshot",
                                         "open-snapshot-file",
                                         "save-snapshot",
                                         "save-snapshot-file",
                                         "export-float",
                                         "export-float-file",
                                         "export-smv",
                                         "export-smv-file",
                                         "copy-command-line",
                                         "reset-scene",
                                         "misset-step",
                                         "show-help-overlay",
                                         NULL };
  g_auto (GStrv) accels = NULL;
  GtkShortcutsWindow *overlay;
  GtkWidget *status;

  for (int i = 0; actions[i] != NULL; i++)
    g_assert_true (g_action_group_has_action (G_ACTION_GROUP (f->window), actions[i]));
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (app), "quit"));

  accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.save-snapshot");
  g_assert_true (g_strv_contains ((const char *const *) accels, "<Control>s"));
  g_clear_pointer (&accels, g_strfreev);
  accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "app.quit");
  g_assert_true (g_strv_contains ((const char *const *) accels, "<Control>q"));
  g_clear_pointer (&accels, g_strfreev);
  accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.copy-command-line");
  g_assert_true (g_strv_contains ((const char *const *) accels, "<Shift><Control>c"));
  g_clear_pointer (&accels, g_strfreev);
  /* The keyboard turns the crystal. */
  accels =
      gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.misset-step(('x', 1.0))");
  g_assert_true (g_strv_contains ((const char *const *) accels, "<Alt>Down"));

  /* The shortcuts window comes from the resources (gtk/help-overlay.ui) and opens. */
  overlay = gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (f->window));
  g_assert_nonnull (overlay);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (overlay)));
  activate (f, "show-help-overlay", NULL);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (overlay)));
  gtk_window_close (GTK_WINDOW (overlay));

  /* The about dialog names the program and its version. */
  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  {
    GListModel *toplevels = gtk_window_get_toplevels ();
    GtkAboutDialog *about = NULL;

    for (guint i = 0; i < g_list_model_get_n_items (toplevels) && about == NULL; i++)
      {
        g_autoptr (GObject) item = g_list_model_get_item (toplevels, i);

        if (GTK_IS_ABOUT_DIALOG (item))
          about = GTK_ABOUT_DIALOG (item);
      }
    g_assert_nonnull (about);
    g_assert_cmpstr (gtk_about_dialog_get_program_name (about), ==, "Braggscope");
    g_assert_cmpstr (gtk_about_dialog_get_version (about), ==, PACKAGE_VERSION);
    gtk_window_destroy (GTK_WINDOW (about));
  }

  /* The prominent sliders of the controls, found by their names. */
  g_assert_nonnull (
      ui_test_find_widget (braggscope_window_get_controls (f->window), "misset-x-scale"));
  g_assert_nonnull (
      ui_test_find_widget (braggscope_window_get_controls (f->window), "wavelength-scale"));
  g_assert_nonnull (
      ui_test_find_widget (braggscope_window_get_controls (f->window), "mosaic-spread-scale"));

  /* The status line describes the full frame on show. */
  status = ui_test_find_widget (GTK_WIDGET (f->window), "frame-time-label");
  g_assert_nonnull (status);
  g_assert_true (strstr (gtk_label_get_text (GTK_LABEL (status)), "ms") != NULL);
  status = ui_test_find_widget (GTK_WIDGET (f->window), "backend-label");
  g_assert_true (strstr (gtk_label_get_text (GTK_LABEL (status)),
                         braggscope_frame_get_backend (
                             braggscope_simulation_get_last_frame (sim_of (f)))) != NULL);
  status = ui_test_find_widget (GTK_WIDGET (f->window), "cache-label");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), !=, "");

  /* The whole window as it looks, for people reading the build's docs/. */
  if (g_getenv ("BRAGGSCOPE_WINDOW_SCREENSHOT") != NULL)
    {
      const char *path = g_getenv ("BRAGGSCOPE_WINDOW_SCREENSHOT");
      g_autofree char *dir = g_path_get_dirname (path);
      g_autoptr (GdkTexture) shot = NULL;

      gtk_test_widget_wait_for_draw (GTK_WIDGET (f->window));
      shot = ui_test_screenshot (GTK_WIDGET (f->window));
      g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
      g_assert_true (gdk_texture_save_to_png (shot, path));
    }
}

static void
test_snapshot (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->tmpdir, "snapshot.png", NULL);
  g_autofree char *command_line = braggscope_simulation_to_command_line (sim_of (f));
  g_auto (GStrv) args = braggscope_simulation_to_args (sim_of (f));
  g_auto (GStrv) loaded = NULL;
  g_autoptr (GHashTable) text = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree guint8 *pixels = NULL, *shown = NULL;
  g_autofree float *saved_data = NULL;
  g_autoptr (GString) args_lines = g_string_new (NULL);
  BraggscopeFrame *frame = braggscope_simulation_get_last_frame (sim_of (f));
  gsize n = 0;
  const float *values = braggscope_frame_get_data (frame, &n);
  const char *software;
  int width = 0, height = 0, shown_w = 0, shown_h = 0;
  double misset = 0.0;

  saved_data = g_memdup2 (values, n * sizeof (float));

  activate (f, "save-snapshot-file", g_variant_new_string (path));
  g_assert_true (ui_test_wait (file_exists, path, 30.0));
  g_assert_nonnull (strstr (braggscope_window_get_message (f->window), path));

  /* The picture is what the view renders, at frame resolution. */
  pixels = ui_test_read_png (path, &width, &height, &text, &error);
  g_assert_no_error (error);
  g_assert_cmpint (width, ==, braggscope_frame_get_width (frame));
  g_assert_cmpint (height, ==, braggscope_frame_get_height (frame));
  shown = braggscope_view_render_rgba (view_of (f), &shown_w, &shown_h);
  g_assert_cmpint (shown_w, ==, width);
  g_assert_cmpint (shown_h, ==, height);
  g_assert_cmpmem (pixels, (gsize) width * height * 4, shown, (gsize) width * height * 4);

  /* The text chunks: the program, the command line, the flags one per line. */
  software = g_hash_table_lookup (text, "Software");
  g_assert_nonnull (software);
  g_assert_true (g_str_has_prefix (software, "Braggscope "));
  g_assert_cmpstr (g_hash_table_lookup (text, "braggscope:command-line"), ==, command_line);
  g_assert_nonnull (g_hash_table_lookup (text, "braggscope:args"));
  for (int i = 0; args[i] != NULL; i++)
    g_string_append_printf (args_lines, "%s\n", args[i]);
  g_assert_true (strstr (args_lines->str, "-detpixels\n512\n") != NULL);
  loaded = braggscope_snapshot_load_args (path, &error);
  g_assert_no_error (error);
  g_assert_true (g_strv_equal ((const char *const *) loaded, (const char *const *) args));

  /* Turn the crystal away, then restore the snapshot's parameters. */
  activate (f, "misset-step", g_variant_new ("(sd)", "y", 5.0));
  frame = wait_full_frame (f);
  g_assert_false (
      memcmp (braggscope_frame_get_data (frame, NULL), saved_data, n * sizeof (float)) == 0);
  activate (f, "open-snapshot-file", g_variant_new_string (path));
  g_object_get (sim_of (f), "misset-y", &misset, NULL);
  g_assert_cmpfloat_with_epsilon (misset, 20.0, 1e-9);
  {
    g_auto (GStrv) restored = braggscope_simulation_to_args (sim_of (f));

    g_assert_true (g_strv_equal ((const char *const *) restored, (const char *const *) args));
  }
  frame = wait_full_frame (f);
  g_assert_cmpmem (braggscope_frame_get_data (frame, NULL), n * sizeof (float), saved_data,
                   n * sizeof (float));
}

static void
test_snapshot_errors (Fixture *f, gconstpointer data)
{
  g_autofree char *missing = g_build_filename (f->tmpdir, "no-such-folder", "x.png", NULL);
  g_autofree char *not_png = g_build_filename (f->tmpdir, "not.png", NULL);
  g_auto (GStrv) args = braggscope_simulation_to_args (sim_of (f));
  g_auto (GStrv) after = NULL;
  GtkWidget *label = ui_test_find_widget (GTK_WIDGET (f->window), "message-label");

  activate (f, "save-snapshot-file", g_variant_new_string (missing));
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
  g_assert_nonnull (strstr (braggscope_window_get_message (f->window), "no-such-folder"));
  g_assert_true (gtk_widget_has_css_class (label, "error"));

  /* A file that is no snapshot changes nothing. */
  g_assert_true (g_file_set_contents (not_png, "hello", -1, NULL));
  activate (f, "open-snapshot-file", g_variant_new_string (not_png));
  g_assert_nonnull (strstr (braggscope_window_get_message (f->window), "not.png"));
  g_assert_true (gtk_widget_has_css_class (label, "error"));
  after = braggscope_simulation_to_args (sim_of (f));
  g_assert_true (g_strv_equal ((const char *const *) after, (const char *const *) args));
}

static void
test_copy_command_line (Fixture *f, gconstpointer data)
{
  g_autofree char *expected = braggscope_simulation_to_command_line (sim_of (f));
  g_autofree char *copied = NULL;

  activate (f, "copy-command-line", NULL);
  copied = ui_test_clipboard_text (GTK_WIDGET (f->window), 10.0);
  /* from the build tree, the build tree's program (test-details runs it) */
  g_assert_true (g_str_has_prefix (expected, "nanobragg "));
  {
    g_autofree char *runnable =
        g_strconcat (g_getenv ("NB_CLI"), expected + strlen ("nanobragg"), NULL);

    g_assert_cmpstr (copied, ==, runnable);
  }
}

/* Runs the nanobragg CLI ($NB_CLI) on the frame's flags in @dir. */
static void
run_cli (BraggscopeFrame *frame, const char *dir)
{
  const char *cli = g_getenv ("NB_CLI");
  char **args = braggscope_frame_get_args (frame);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *err_text = NULL;
  int status = 0;

  g_assert_nonnull (cli);
  g_ptr_array_add (argv, (gpointer) cli);
  /* The output flags first: the frame's flags end with -misset_seed, which
   * nanoBragg also reads as the start of misset angles when three more
   * tokens follow (quirk Q-29). */
  for (const char *const *extra =
           (const char *const[]){ "-floatfile", "cli.float", "-intfile", "cli.img", "-nonoise",
                                  "-nopgm", "-noprogress", NULL };
       *extra != NULL; extra++)
    g_ptr_array_add (argv, (gpointer) *extra);
  for (int i = 1; args[i] != NULL; i++)
    g_ptr_array_add (argv, args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (dir, (char **) argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                               NULL, NULL, &err_text, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("nanobragg failed: %s", err_text);
}

static void
test_exports (Fixture *f, gconstpointer data)
{
  g_autofree char *float_path = g_build_filename (f->tmpdir, "frame.float", NULL);
  g_autofree char *smv_path = g_build_filename (f->tmpdir, "frame.img", NULL);
  g_autofree char *cli_float = g_build_filename (f->tmpdir, "cli.float", NULL);
  g_autofree char *cli_smv = g_build_filename (f->tmpdir, "cli.img", NULL);
  g_autofree char *contents = NULL, *cli_contents = NULL;
  g_autofree char *smv = NULL, *cli_smv_contents = NULL;
  g_autoptr (GError) error = NULL;
  BraggscopeFrame *frame = braggscope_simulation_get_last_frame (sim_of (f));
  gsize n = 0, length = 0, cli_length = 0, smv_length = 0;
  const float *values = braggscope_frame_get_data (frame, &n);

  activate (f, "export-float-file", g_variant_new_string (float_path));
  g_assert_true (g_file_get_contents (float_path, &contents, &length, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (contents, length, values, n * sizeof (float));

  activate (f, "export-smv-file", g_variant_new_string (smv_path));
  g_assert_true (ui_test_wait (file_exists, smv_path, 60.0));
  g_assert_true (g_file_get_contents (smv_path, &smv, &smv_length, &error));
  g_assert_true (g_str_has_prefix (smv, "{\nHEADER_BYTES=512;\n"));
  g_assert_nonnull (strstr (smv, "SIZE1=512;"));
  g_assert_nonnull (strstr (smv, "SIZE2=512;"));
  g_assert_nonnull (strstr (smv, "PIXEL_SIZE=0.2;"));
  g_assert_nonnull (strstr (smv, "WAVELENGTH=1;"));
  g_assert_cmpuint (smv_length, ==, 512 + n * 2);

  /* The same flags through the nanobragg CLI give the same files, byte for byte. */
  run_cli (frame, f->tmpdir);
  g_assert_true (g_file_get_contents (cli_float, &cli_contents, &cli_length, &error));
  g_assert_cmpmem (contents, length, cli_contents, cli_length);
  g_clear_pointer (&cli_contents, g_free);
  g_assert_true (g_file_get_contents (cli_smv, &cli_contents, &cli_length, &error));
  g_assert_cmpmem (smv, smv_length, cli_contents, cli_length);
}

static void
test_display_settings (Fixture *f, gconstpointer data)
{
  GSettings *settings = braggscope_application_get_settings (app);
  BraggscopeView *view = view_of (f);
  GtkWidget *colormap = ui_test_find_widget (GTK_WIDGET (f->window), "colormap-dropdown");
  GtkWidget *scale = ui_test_find_widget (GTK_WIDGET (f->window), "scale-dropdown");
  GtkWidget *gamma = ui_test_find_widget (GTK_WIDGET (f->window), "gamma-scale");
  GtkWidget *rings = ui_test_find_widget (GTK_WIDGET (f->window), "show-rings-check");
  g_autofree char *value = NULL;
  g_autofree guint8 *before = NULL, *after = NULL;
  int w, h;

  g_assert_nonnull (settings);
  g_assert_nonnull (colormap);

  /* The defaults of the schema reach the view and the widgets. */
  g_assert_cmpint (braggscope_view_get_colormap (view), ==, BRAGGSCOPE_COLORMAP_INVERTED_GREY);
  g_assert_cmpint (braggscope_view_get_scale (view), ==, BRAGGSCOPE_SCALE_LINEAR);
  g_assert_cmpuint (gtk_drop_down_get_selected (GTK_DROP_DOWN (colormap)), ==,
                    BRAGGSCOPE_COLORMAP_INVERTED_GREY);
  g_assert_false (gtk_widget_get_sensitive (gamma));

  /* Widget -> view -> settings, and the picture changes without a new frame. */
  before = screenshot_rgba (f, &w, &h);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (colormap), BRAGGSCOPE_COLORMAP_VIRIDIS);
  g_assert_cmpint (braggscope_view_get_colormap (view), ==, BRAGGSCOPE_COLORMAP_VIRIDIS);
  value = g_settings_get_string (settings, "colormap");
  g_assert_cmpstr (value, ==, "viridis");
  gtk_test_widget_wait_for_draw (GTK_WIDGET (view));
  after = screenshot_rgba (f, &w, &h);
  g_assert_cmpuint (ui_test_count_differences (before, after, (gsize) w * h, 16), >,
                    (gsize) w * h / 4);

  /* Settings -> view -> widgets. */
  g_settings_set_string (settings, "scale", "gamma");
  g_assert_cmpint (braggscope_view_get_scale (view), ==, BRAGGSCOPE_SCALE_GAMMA);
  g_assert_cmpuint (gtk_drop_down_get_selected (GTK_DROP_DOWN (scale)), ==, 2);
  g_assert_true (gtk_widget_get_sensitive (gamma));
  g_settings_set_double (settings, "gamma", 3.0);
  g_assert_cmpfloat (braggscope_view_get_gamma (view), ==, 3.0);
  g_assert_cmpfloat (gtk_range_get_value (GTK_RANGE (gamma)), ==, 3.0);

  gtk_check_button_set_active (GTK_CHECK_BUTTON (rings), FALSE);
  g_assert_false (braggscope_view_get_show_rings (view));
  g_assert_false (g_settings_get_boolean (settings, "show-rings"));
}

static void
test_close_saves_scene (Fixture *f, gconstpointer data)
{
  GSettings *settings = braggscope_application_get_settings (app);
  g_auto (GStrv) args = NULL;
  g_auto (GStrv) saved = NULL;
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;

  activate (f, "misset-step", g_variant_new ("(sd)", "z", -4.0));
  args = braggscope_simulation_to_args (sim_of (f));
  gtk_window_close (GTK_WINDOW (f->window));
  saved = g_settings_get_strv (settings, "last-scene");
  g_assert_true (g_strv_equal ((const char *const *) saved, (const char *const *) args + 1));

  /* What was saved rebuilds the scene on a new simulation. */
  sim = braggscope_simulation_new ();
  g_assert_true (braggscope_simulation_set_from_args (sim, (const char *const *) saved, &error));
  g_assert_no_error (error);
  {
    g_auto (GStrv) again = braggscope_simulation_to_args (sim);

    g_assert_true (g_strv_equal ((const char *const *) again, (const char *const *) args));
  }
  /* closed, not destroyed: the fixture's teardown destroys it */
}

/* Issue 23, item 1: a last scene saved with flags that write files (an older
 * viewer saved -dump with the rest, and every start overwrote its file) is
 * cleaned with a warning, not obeyed, and is saved clean. */
static void
test_last_scene_outputs (Fixture *f, gconstpointer data)
{
  GSettings *settings = braggscope_application_get_settings (app);
  g_autofree char *victim = g_build_filename (f->tmpdir, "victim", NULL);
  g_autofree char *floats = g_build_filename (f->tmpdir, "floats.bin", NULL);
  const char *const last[] = { "-detpixels", "128",  "-pixel", "0.8", "-dump", victim,
                               "-floatfile", floats, "-N",     "6",   NULL };
  g_autoptr (GList) before = NULL;
  g_autofree char *contents = NULL;
  g_auto (GStrv) args = NULL, saved = NULL;
  BraggscopeWindow *window = NULL;
  const char *message;

  if (settings == NULL)
    {
      g_test_skip ("no settings schema");
      return;
    }
  g_assert_true (g_file_set_contents (victim, "precious", -1, NULL));
  g_settings_set_boolean (settings, "restore-scene", TRUE);
  g_settings_set_strv (settings, "last-scene", last);
  before = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (app)));
  g_application_activate (G_APPLICATION (app));
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (g_list_find (before, l->data) == NULL)
      window = l->data;
  g_assert_nonnull (window);
  g_object_ref (window);
  ui_test_wait_full_frame (window);

  message = braggscope_window_get_message (window);
  g_assert_nonnull (strstr (message, "-dump"));
  g_assert_nonnull (strstr (message, "-floatfile"));
  args = braggscope_simulation_to_args (braggscope_window_get_simulation (window));
  g_assert_false (g_strv_contains ((const char *const *) args, "-dump"));
  g_assert_true (g_strv_contains ((const char *const *) args, "-detpixels"));
  g_assert_true (g_file_get_contents (victim, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "precious");
  g_assert_false (g_file_test (floats, G_FILE_TEST_EXISTS));

  gtk_window_close (GTK_WINDOW (window));
  saved = g_settings_get_strv (settings, "last-scene");
  g_assert_false (g_strv_contains ((const char *const *) saved, "-dump"));
  g_assert_false (g_strv_contains ((const char *const *) saved, victim));
  g_assert_true (g_strv_contains ((const char *const *) saved, "-detpixels"));
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);
}

/* Issue 23, item 3: a scene naming a file whose name is not UTF-8 (from a
 * snapshot) cannot be a settings string: closing keeps the last scene as it
 * was, where GSettings would have been handed invalid UTF-8. */
static void
test_last_scene_not_utf8 (Fixture *f, gconstpointer data)
{
  GSettings *settings = braggscope_application_get_settings (app);
  g_autofree char *hkl = g_build_filename (f->tmpdir, "\xff.hkl", NULL);
  const char *const args[] = { "-hkl", hkl, NULL };
  const char *const before[] = { "-N", "7", NULL };
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) saved = NULL;

  if (settings == NULL)
    {
      g_test_skip ("no settings schema");
      return;
    }
  g_assert_true (g_file_set_contents (hkl, "1 0 0 100\n", -1, NULL));
  g_settings_set_strv (settings, "last-scene", before);
  g_assert_true (braggscope_simulation_set_from_args (sim_of (f), args, &error));
  g_assert_no_error (error);
  gtk_window_close (GTK_WINDOW (f->window));
  saved = g_settings_get_strv (settings, "last-scene");
  g_assert_true (g_strv_equal ((const char *const *) saved, before));
  g_unlink (hkl);
}

static void
test_reset_scene (Fixture *f, gconstpointer data)
{
  BraggscopeSimulation *old = sim_of (f);
  int pixels = 0;
  double misset = 0.0;

  activate (f, "misset-step", g_variant_new ("(sd)", "x", 7.0));
  activate (f, "reset-scene", NULL);
  g_assert_true (sim_of (f) != old);
  g_object_get (sim_of (f), "detector-pixels-fast", &pixels, "misset-x", &misset, NULL);
  g_assert_cmpint (pixels, ==, 1024);
  g_assert_cmpfloat_with_epsilon (misset, 10.0, 1e-9);
  g_assert_true (braggscope_view_get_simulation (view_of (f)) == sim_of (f));
  wait_full_frame (f);
}

static void
test_structure_factors (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->tmpdir, "few.hkl", NULL);
  g_autofree char *file = NULL;
  BraggscopeFrame *frame;
  gsize n = 0;
  const float *values;
  float max = 0.0f;

  /* Three reflections: a new file is read and the frame comes from it. */
  g_assert_true (g_file_set_contents (path, "1 0 0 1000\n0 1 0 1000\n0 0 1 1000\n", -1, NULL));
  activate (f, "open-structure-factors-file", g_variant_new_string (path));
  g_object_get (sim_of (f), "structure-factors", &file, NULL);
  g_assert_cmpstr (file, ==, path);
  frame = wait_full_frame (f);
  values = braggscope_frame_get_data (frame, &n);
  for (gsize i = 0; i < n; i++)
    max = MAX (max, values[i]);
  g_assert_cmpfloat (max, ==, braggscope_frame_get_max_value (frame));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (
                                ui_test_find_widget (GTK_WIDGET (f->window), "message-label"))),
                            "few.hkl"));
}

static gboolean
has_error_class (gpointer data)
{
  return gtk_widget_has_css_class (data, "error");
}

static void
test_structure_factors_missing (Fixture *f, gconstpointer data)
{
  g_autofree char *missing = g_build_filename (f->tmpdir, "missing.hkl", NULL);
  GtkWidget *label = ui_test_find_widget (GTK_WIDGET (f->window), "message-label");

  activate (f, "open-structure-factors-file", g_variant_new_string (missing));
  g_assert_true (ui_test_wait (has_error_class, label, 60.0));
  g_assert_nonnull (strstr (braggscope_window_get_message (f->window), "missing.hkl"));
}

/* Issue 30: Ctrl+O takes an atomic model: its cell becomes the crystal's and
 * the status line says so; a damaged one is refused in one line naming it. */
static gboolean
message_names (gpointer data)
{
  Fixture *f = data;

  return strstr (braggscope_window_get_message (f->window), "P 43 21 2") != NULL;
}

static void
test_model (Fixture *f, gconstpointer data)
{
  g_autofree char *source = g_build_filename (g_getenv ("BRAGGSCOPE_DATADIR"), "6lyz.pdb", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *path = g_build_filename (f->tmpdir, "lysozyme.pdb", NULL);
  g_autofree char *damaged = g_build_filename (f->tmpdir, "damaged.pdb", NULL);
  GtkWidget *label = ui_test_find_widget (GTK_WIDGET (f->window), "message-label");
  const char *message;
  double a = 0.0;
  gsize length = 0;

#ifndef BRAGGSCOPE_TEST_MODELS
  g_test_skip ("this build has no models module (gemmi)");
  return;
#endif
  g_assert_true (g_file_get_contents (source, &contents, &length, NULL));
  g_assert_true (g_file_set_contents (path, contents, (gssize) length, NULL));
  activate (f, "open-structure-factors-file", g_variant_new_string (path));
  wait_full_frame (f);
  g_assert_true (ui_test_wait (message_names, f, 60.0));
  message = braggscope_window_get_message (f->window);
  g_test_message ("%s", message);
  g_assert_nonnull (strstr (message, "lysozyme.pdb"));
  g_assert_nonnull (strstr (message, "79.1 79.1 37.9 90 90 90"));
  g_object_get (sim_of (f), "cell-a", &a, NULL);
  g_assert_cmpfloat_with_epsilon (a, 79.1, 1e-3);

  /* an ATOM record cut short */
  g_assert_true (g_file_set_contents (
      damaged, "CRYST1   79.100   79.100   37.900  90.00  90.00  90.00 P 43 21 2\nATOM      1  N\n",
      -1, NULL));
  activate (f, "open-structure-factors-file", g_variant_new_string (damaged));
  g_assert_true (ui_test_wait (has_error_class, label, 60.0));
  message = braggscope_window_get_message (f->window);
  g_test_message ("%s", message);
  g_assert_nonnull (strstr (message, "damaged.pdb"));
  g_assert_null (strchr (message, '\n'));
}

static gboolean
widget_visible (gpointer data)
{
  return gtk_widget_get_visible (data);
}

/* Typing a wavelength of 0 gives 0.2 Å, said in the status line, and the
 * status line says what then makes the frames slow: the oversampling chosen
 * automatically for the shorter wavelength. */
static void
test_clamp_and_oversampling (Fixture *f, gconstpointer data)
{
  GtkWidget *spin = ui_test_find_widget (GTK_WIDGET (f->window), "wavelength-spin");
  GtkLabel *note = GTK_LABEL (ui_test_find_widget (GTK_WIDGET (f->window), "oversample-label"));
  GtkWidget *message = ui_test_find_widget (GTK_WIDGET (f->window), "message-label");
  BraggscopeFrame *frame;
  g_autofree char *expect = NULL;
  double lambda = 0.0;

  /* a small detector keeps the 21 x 21 samples per pixel below quick;
   * nanoBragg's integration spends them in every pixel */
  g_object_set (sim_of (f), "detector-pixels-fast", 64, "detector-pixels-slow", 64, "oversample", 1,
                "integration", BRAGGSCOPE_INTEGRATION_EXACT, NULL);
  wait_full_frame (f);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (note)));

  g_object_set (sim_of (f), "oversample", 0, NULL);
  gtk_editable_set_text (GTK_EDITABLE (spin), "0");
  gtk_spin_button_update (GTK_SPIN_BUTTON (spin));
  g_object_get (sim_of (f), "wavelength", &lambda, NULL);
  g_assert_cmpfloat_with_epsilon (lambda, 0.2, 1e-12);
  g_assert_cmpstr (braggscope_window_get_message (f->window), ==,
                   "Wavelength: 0 \u00c5 is below the minimum; set to 0.2 \u00c5");
  g_assert_false (gtk_widget_has_css_class (message, "error"));

  /* 3 x 10 cells x 83.8 Å / (0.2 Å x 120 mm / 0.2 mm) = 20.95: 21-fold */
  frame = wait_full_frame (f);
  g_assert_true (braggscope_frame_get_oversample_auto (frame));
  g_assert_cmpint (braggscope_frame_get_oversample (frame), ==, 21);
  g_assert_true (ui_test_wait (widget_visible, note, 10.0));
  expect = g_strdup_printf ("Auto-selected %d-fold oversampling: %d samples per pixel (set "
                            "Oversample to override)",
                            21, 21 * 21);
  g_assert_cmpstr (gtk_label_get_text (note), ==, expect);

  /* adaptive integration (the default) spends them only near the spots: the
   * integration label says how many, the note nothing (issue 31) */
  g_object_set (sim_of (f), "integration", BRAGGSCOPE_INTEGRATION_ADAPTIVE, NULL);
  frame = wait_full_frame (f);
  g_assert_cmpint (braggscope_frame_get_oversample (frame), ==, 21);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (note)));

  /* an oversampling that was asked for is not worth a word */
  g_object_set (sim_of (f), "oversample", 2, NULL);
  frame = wait_full_frame (f);
  g_assert_false (braggscope_frame_get_oversample_auto (frame));
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (note)));
}

/* ---- compare: A held, B after a change ---- */

static void
test_compare (Fixture *f, gconstpointer data)
{
  BraggscopeView *view = view_of (f);
  BraggscopeFrame *a, *b;
  g_autoptr (GVariant) mode = NULL;
  g_autofree guint8 *shown = NULL;
  int width, height;

  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), "blink"));
  a = wait_full_frame (f);
  activate (f, "hold-frame", NULL);
  g_assert_true (braggscope_view_get_has_reference (view));
  g_assert_cmpstr (braggscope_view_get_reference_label (view), ==, "A");
  /* holding shows A and B side by side */
  mode = g_action_group_get_action_state (G_ACTION_GROUP (f->window), "compare-mode");
  g_assert_cmpstr (g_variant_get_string (mode, NULL), ==, "side-by-side");
  g_assert_cmpint (braggscope_view_get_compare_mode (view), ==, BRAGGSCOPE_COMPARE_SIDE_BY_SIDE);
  g_assert_true (g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), "blink"));

  g_object_set (sim_of (f), "misset-x", 14.0, NULL);
  b = wait_full_frame (f);
  g_assert_true (a != b);
  shown = braggscope_view_render_rgba (view, &width, &height);
  g_assert_cmpint (width, ==, 2 * braggscope_frame_get_width (b));

  activate (f, "compare-mode", g_variant_new_string ("difference"));
  g_assert_cmpint (braggscope_view_get_compare_mode (view), ==, BRAGGSCOPE_COMPARE_DIFFERENCE);
  g_assert_nonnull (strstr (braggscope_window_get_message (f->window), "B − A"));

  /* the blink action switches to blink, then between A and B */
  activate (f, "blink", NULL);
  g_assert_cmpint (braggscope_view_get_compare_mode (view), ==, BRAGGSCOPE_COMPARE_BLINK);
  g_assert_false (braggscope_view_get_blink_reference (view));
  activate (f, "blink", NULL);
  g_assert_true (braggscope_view_get_blink_reference (view));
  g_assert_nonnull (strstr (braggscope_window_get_message (f->window), "Ctrl+B"));

  activate (f, "clear-reference", NULL);
  g_assert_false (braggscope_view_get_has_reference (view));
  g_assert_false (g_action_group_get_action_enabled (G_ACTION_GROUP (f->window), "blink"));
}

/* Every action of the window is on the keyboard: an accelerator, or (those
 * with a free parameter) a menu item, which F10 reaches. */
static void
test_keyboard (Fixture *f, gconstpointer data)
{
  /* chosen by name from a menu, or given a file by a dialog */
  static const char *const menu_only[] = { "lesson", "show-help-overlay", NULL };
  g_auto (GStrv) actions = g_action_group_list_actions (G_ACTION_GROUP (f->window));
  g_auto (GStrv) described = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
  int missing = 0;

  for (int i = 0; actions[i] != NULL; i++)
    {
      g_autofree char *prefix = g_strconcat ("win.", actions[i], NULL);
      gboolean found = FALSE;

      if (g_str_has_suffix (actions[i], "-file") || g_str_has_suffix (actions[i], "-folder") ||
          g_strv_contains (menu_only, actions[i]))
        continue;
      for (int j = 0; described[j] != NULL && !found; j++)
        {
          g_auto (GStrv) accels = NULL;

          if (!g_str_has_prefix (described[j], prefix) ||
              strchr ("(:", described[j][strlen (prefix)]) == NULL)
            continue;
          accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), described[j]);
          found = accels[0] != NULL;
        }
      if (!found)
        {
          g_test_message ("win.%s has no accelerator", actions[i]);
          missing++;
        }
    }
  g_assert_cmpint (missing, ==, 0);
}

/* ---- teaching: views, labels, lessons, playback and its export ---- */

static void
test_teaching_views (Fixture *f, gconstpointer data)
{
  GtkWidget *reciprocal = GTK_WIDGET (braggscope_window_get_reciprocal_view (f->window));
  GtkWidget *detector = GTK_WIDGET (view_of (f));
  g_autoptr (GArray) labels = NULL;

  g_assert_nonnull (reciprocal);
  g_assert_true (braggscope_reciprocal_view_get_detector_view (
                     BRAGGSCOPE_RECIPROCAL_VIEW (reciprocal)) == view_of (f));
  g_assert_false (gtk_widget_get_visible (reciprocal));
  activate (f, "view-mode", g_variant_new_string ("both"));
  g_assert_true (gtk_widget_get_visible (reciprocal));
  g_assert_true (gtk_widget_get_visible (detector));
  activate (f, "view-mode", g_variant_new_string ("reciprocal"));
  g_assert_false (gtk_widget_get_visible (detector));
  activate (f, "view-mode", g_variant_new_string ("both"));

  /* Miller indices on the spots, switched from the keyboard's action */
  activate (f, "show-labels", NULL);
  g_assert_true (braggscope_view_get_show_labels (view_of (f)));
  gtk_test_widget_wait_for_draw (detector);
  labels = braggscope_view_get_labels (view_of (f));
  g_assert_nonnull (labels);
  g_assert_cmpuint (labels->len, >, 0);
  activate (f, "show-labels", NULL);
  g_assert_false (braggscope_view_get_show_labels (view_of (f)));
}

static gboolean
lesson_shown (gpointer data)
{
  Fixture *f = data;
  GtkWidget *panel = ui_test_find_widget (GTK_WIDGET (f->window), "lesson-panel");

  return panel != NULL && gtk_revealer_get_reveal_child (GTK_REVEALER (panel)) &&
         ui_test_full_frame_shown (f->window);
}

static void
test_lesson (Fixture *f, gconstpointer data)
{
  GtkWidget *panel, *slider;
  double lambda = 0;

  activate (f, "lesson", g_variant_new_string ("wavelength"));
  g_assert_true (ui_test_wait (lesson_shown, f, 120.0));
  panel = ui_test_find_widget (GTK_WIDGET (f->window), "lesson-panel");
  slider = ui_test_find_widget (panel, "lesson-try-scale");
  g_assert_nonnull (slider);
  g_object_get (sim_of (f), "wavelength", &lambda, NULL);
  g_assert_cmpfloat (gtk_range_get_value (GTK_RANGE (slider)), ==, lambda);
  /* the lesson's slider is the simulation's */
  gtk_range_set_value (GTK_RANGE (slider), 1.1);
  g_object_get (sim_of (f), "wavelength", &lambda, NULL);
  g_assert_cmpfloat_with_epsilon (lambda, 1.1, 1e-9);
  g_assert_cmpstr (braggscope_view_get_ring_resolutions (view_of (f)), ==, "4 3 2.5");
  g_assert_true (
      gtk_widget_get_visible (GTK_WIDGET (braggscope_window_get_reciprocal_view (f->window))));

  /* the next lesson, and closing the panel */
  activate (f, "lesson-step", g_variant_new_int32 (1));
  g_assert_nonnull (strstr (braggscope_window_get_message (f->window), "rotation"));
  activate (f, "lesson-close", NULL);
  g_assert_false (gtk_revealer_get_reveal_child (
      GTK_REVEALER (ui_test_find_widget (GTK_WIDGET (f->window), "lesson-panel"))));

  /* an unknown lesson says which there are */
  activate (f, "lesson", g_variant_new_string ("no-such-lesson"));
  g_assert_nonnull (strstr (braggscope_window_get_message (f->window), "ewald-sphere"));
}

static gboolean
export_done (gpointer data)
{
  Fixture *f = data;

  return g_str_has_prefix (braggscope_window_get_message (f->window), "Exported");
}

static double
phi_of (Fixture *f)
{
  double phi = 0;

  g_object_get (sim_of (f), "phi", &phi, NULL);
  return phi;
}

static void
test_playback (Fixture *f, gconstpointer data)
{
  GtkWidget *range, *start;
  g_autofree char *gif = g_build_filename (f->tmpdir, "rotation.gif", NULL);
  g_autofree char *pngs = g_build_filename (f->tmpdir, "frames", NULL);
  g_autofree char *contents = NULL, *expected = NULL, *part = NULL;
  gsize length = 0;
  double before;

  /* a collapsed expander keeps its child out of the widget tree */
  gtk_expander_set_expanded (
      GTK_EXPANDER (ui_test_find_widget (GTK_WIDGET (f->window), "playback-group")), TRUE);
  range = ui_test_find_widget (GTK_WIDGET (f->window), "play-range-spin");
  start = ui_test_find_widget (GTK_WIDGET (f->window), "play-start-spin");
  g_assert_nonnull (range);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (start), 0.0);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (range), 2.0);

  /* a step is 1 degree without an oscillation */
  before = phi_of (f);
  activate (f, "play-step", g_variant_new_int32 (1));
  g_assert_cmpfloat_with_epsilon (phi_of (f), before + 1.0, 1e-9);
  activate (f, "play-step", g_variant_new_int32 (-1));
  g_assert_cmpfloat_with_epsilon (phi_of (f), before, 1e-9);

  /* playing turns phi; pausing stops it */
  activate (f, "play", NULL);
  g_assert_true (
      g_variant_get_boolean (g_action_group_get_action_state (G_ACTION_GROUP (f->window), "play")));
  {
    gint64 end = g_get_monotonic_time () + 300000;

    while (g_get_monotonic_time () < end)
      g_main_context_iteration (NULL, FALSE);
  }
  g_assert_cmpfloat (phi_of (f), !=, before);
  activate (f, "play", NULL);
  g_assert_false (
      g_variant_get_boolean (g_action_group_get_action_state (G_ACTION_GROUP (f->window), "play")));

  /* 0, 1, 2 degrees: three frames */
  activate (f, "export-gif-file", g_variant_new_string (gif));
  g_assert_true (ui_test_wait (export_done, f, 120.0));
  expected = g_strdup_printf ("Exported 3 frames to %s", gif);
  g_assert_cmpstr (braggscope_window_get_message (f->window), ==, expected);
  g_assert_true (g_file_get_contents (gif, &contents, &length, NULL));
  g_assert_true (g_str_has_prefix (contents, "GIF89a"));
  part = g_strconcat (gif, ".part", NULL);
  g_assert_false (g_file_test (part, G_FILE_TEST_EXISTS));

  braggscope_window_show_message (f->window, "", FALSE);
  activate (f, "export-pngs-folder", g_variant_new_string (pngs));
  g_assert_true (ui_test_wait (export_done, f, 120.0));
  for (int i = 1; i <= 3; i++)
    {
      g_autofree char *name = g_strdup_printf ("frame-%03d.png", i);
      g_autofree char *path = g_build_filename (pngs, name, NULL);

      g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
      g_unlink (path);
    }
  g_rmdir (pngs);
}

/* A mosaic spread the set domains would draw as copies: the full frame
 * takes more, and the status line says so. */
static void
test_arc_domains (Fixture *f, gconstpointer data)
{
  GtkWidget *label = ui_test_find_widget (GTK_WIDGET (f->window), "domains-label");
  BraggscopeFrame *frame;

  g_assert_nonnull (label);
  g_assert_false (gtk_widget_get_visible (label));
  g_object_set (sim_of (f), "mosaic-spread", 1.0, NULL);
  frame = wait_full_frame (f);
  g_assert_cmpint (braggscope_frame_get_mosaic_domains (frame), >, 5);
  g_assert_true (gtk_widget_get_visible (label));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), "(5 set)"));
}

static gboolean
bar_moved (gpointer bar)
{
  return gtk_progress_bar_get_fraction (bar) > 0.0;
}

static void
count_full_oversampled (BraggscopeSimulation *sim, BraggscopeFrame *frame, int *count)
{
  if (!braggscope_frame_get_is_preview (frame) && braggscope_frame_get_oversample (frame) == 70)
    (*count)++;
}

/* A full frame of 4900 sub-pixels per pixel says at once what it will cost
 * and why, shows how far it is, and the next change cancels it: its frame
 * never comes and the status line forgets it. */
static void
test_slow_frame (Fixture *f, gconstpointer data)
{
  GtkWidget *estimate = ui_test_find_widget (GTK_WIDGET (f->window), "render-estimate-label");
  GtkWidget *bar = ui_test_find_widget (GTK_WIDGET (f->window), "render-progress-bar");
  BraggscopeFrame *frame;
  const char *text;
  int slow_frames = 0;

  g_assert_nonnull (estimate);
  g_assert_nonnull (bar);
  g_assert_false (gtk_widget_get_visible (estimate));
  g_signal_connect (sim_of (f), "frame-ready", G_CALLBACK (count_full_oversampled), &slow_frames);
  /* nanoBragg's integration: every pixel at every sub-pixel */
  g_object_set (sim_of (f), "integration", BRAGGSCOPE_INTEGRATION_EXACT, "oversample", 70, NULL);
  g_assert_true (ui_test_wait (widget_visible, estimate, 60.0));
  text = gtk_label_get_text (GTK_LABEL (estimate));
  g_test_message ("status line: %s", text);
  g_assert_true (g_str_has_prefix (text, "Full frame: about "));
  g_assert_nonnull (strstr (text, "4900 sub-pixels per pixel at N = 10; lower Oversample"));
  g_assert_true (gtk_widget_get_visible (bar));
  g_assert_true (ui_test_wait (bar_moved, bar, 60.0));
  g_test_message ("progress: %s", gtk_progress_bar_get_text (GTK_PROGRESS_BAR (bar)));
  g_assert_true (
      g_str_has_prefix (gtk_progress_bar_get_text (GTK_PROGRESS_BAR (bar)), "Full frame: "));

  g_object_set (sim_of (f), "oversample", 2, NULL);
  frame = wait_full_frame (f);
  g_assert_cmpint (braggscope_frame_get_oversample (frame), ==, 2);
  g_assert_false (gtk_widget_get_visible (estimate));
  g_assert_false (gtk_widget_get_visible (bar));
  g_assert_cmpint (slow_frames, ==, 0);
  g_signal_handlers_disconnect_by_func (sim_of (f), count_full_oversampled, &slow_frames);
}

int
main (int argc, char *argv[])
{
  g_autoptr (GError) error = NULL;
  int status;

  gtk_test_init (&argc, &argv, NULL);

  app = braggscope_application_new (G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/ui/window/parts", test_parts);
  ADD ("/ui/window/misset-action", test_misset_action);
  ADD ("/ui/window/misset-widget", test_misset_widget);
  ADD ("/ui/window/snapshot", test_snapshot);
  ADD ("/ui/window/snapshot-errors", test_snapshot_errors);
  ADD ("/ui/window/copy-command-line", test_copy_command_line);
  ADD ("/ui/window/exports", test_exports);
  ADD ("/ui/window/display-settings", test_display_settings);
  ADD ("/ui/window/close-saves-scene", test_close_saves_scene);
  ADD ("/ui/window/last-scene-outputs", test_last_scene_outputs);
  ADD ("/ui/window/last-scene-not-utf8", test_last_scene_not_utf8);
  ADD ("/ui/window/reset-scene", test_reset_scene);
  ADD ("/ui/window/structure-factors", test_structure_factors);
  ADD ("/ui/window/structure-factors-missing", test_structure_factors_missing);
  ADD ("/ui/window/model", test_model);
  ADD ("/ui/window/clamp-and-oversampling", test_clamp_and_oversampling);
  ADD ("/ui/window/teaching-views", test_teaching_views);
  ADD ("/ui/window/lesson", test_lesson);
  ADD ("/ui/window/playback", test_playback);
  ADD ("/ui/window/arc-domains", test_arc_domains);
  ADD ("/ui/window/compare", test_compare);
  ADD ("/ui/window/keyboard", test_keyboard);
  ADD ("/ui/window/slow-frame", test_slow_frame);
#undef ADD

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
