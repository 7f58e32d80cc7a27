/* test-details.c: issue 24's "smaller things found on the way", each as a
 * user meets it in the window: the mosaic domains never read -1, the last
 * scene of every lesson comes back as it was shown, the subtitle names the
 * scene, the copied command line runs as it is, the plan cache's counts are
 * in a popover, playback pauses and shows full frames, phi is shown and
 * drawn on exported frames, and a sparse measured frame gets a readable
 * window of its own.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-application.h"
#include "braggscope-lesson.h"
#include "braggscope-window.h"
#include "ui-test-util.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

static BraggscopeApplication *app;

/* The default scene on 256 x 256 pixels of 0.4 mm: the same pattern, fast. */
static const char *const small_scene[] = { "-detpixels", "256", "-pixel", "0.4", NULL };

static BraggscopeWindow *
open_small (void)
{
  return ui_test_open_window (app, small_scene, 1200, 800);
}

static void
close_window (BraggscopeWindow *window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);
}

static GtkWidget *
find (BraggscopeWindow *window, const char *name)
{
  GtkWidget *widget = ui_test_find_widget (GTK_WIDGET (window), name);

  if (widget == NULL)
    g_error ("no widget named %s", name);
  return widget;
}

/* A lesson with neither -mosaic nor -mosaic_domains: the panel showed
 * "Mosaic domains −1", the "not given" value of the parameter. */
static void
test_mosaic_domains (void)
{
  g_autoptr (GError) error = NULL;
  BraggscopeWindow *window = open_small ();
  GtkWidget *spin;
  int domains = 0;

  g_assert_true (braggscope_window_open_lesson (window, "ewald-sphere", &error));
  g_assert_no_error (error);
  ui_test_wait_full_frame (window);
  spin = find (window, "mosaic-domains-spin");
  g_object_get (braggscope_window_get_simulation (window), "mosaic-domains", &domains, NULL);
  g_test_message ("mosaic domains: property %d, panel \"%s\"", domains,
                  gtk_editable_get_text (GTK_EDITABLE (spin)));
  g_assert_cmpint (domains, ==, 1);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), ==, 1.0);
  g_assert_cmpfloat (
      gtk_adjustment_get_lower (gtk_spin_button_get_adjustment (GTK_SPIN_BUTTON (spin))), >=, 1.0);
  /* a spread without a count: nanoBragg's 10 */
  g_object_set (braggscope_window_get_simulation (window), "mosaic-spread", 0.5, NULL);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), ==, 10.0);
  close_window (window);
}

/* The window the application opened since @before was listed. */
static BraggscopeWindow *
new_window (GList *before)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (g_list_find (before, l->data) == NULL)
      return g_object_ref (l->data);
  g_error ("no new window");
  return NULL;
}

/* Every lesson, quit, relaunch: the same parameters.  The saved scene was
 * laid over the default scene, so a lesson without -hkl or mosaic settings
 * came back with 1HPV's structure factors and its mosaic spread. */
static void
test_last_scene_lessons (void)
{
  GSettings *settings = braggscope_application_get_settings (app);
  g_autoptr (GPtrArray) lessons = braggscope_lessons_load (NULL);

  if (settings == NULL)
    {
      g_test_skip ("no settings schema");
      return;
    }
  g_assert_nonnull (lessons);
  g_assert_cmpuint (lessons->len, >=, 6);
  g_settings_set_boolean (settings, "restore-scene", TRUE);
  for (guint i = 0; i < lessons->len; i++)
    {
      const BraggscopeLesson *lesson = g_ptr_array_index (lessons, i);
      g_autoptr (GError) error = NULL;
      g_autoptr (GList) before = NULL;
      g_auto (GStrv) shown = NULL, restored = NULL, saved = NULL;
      BraggscopeWindow *window = open_small (), *again;

      g_assert_true (braggscope_window_open_lesson (window, lesson->id, &error));
      g_assert_no_error (error);
      shown = braggscope_simulation_to_args (braggscope_window_get_simulation (window));
      g_action_group_activate_action (G_ACTION_GROUP (app), "quit", NULL);
      saved = g_settings_get_strv (settings, "last-scene");
      g_assert_false (g_strv_contains ((const char *const *) saved, "-floatfile"));
      g_object_unref (window);

      before = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (app)));
      g_application_activate (G_APPLICATION (app));
      again = new_window (before);
      restored = braggscope_simulation_to_args (braggscope_window_get_simulation (again));
      g_test_message ("%s: shown %u flags, restored %u", lesson->id, g_strv_length (shown),
                      g_strv_length (restored));
      if (!g_strv_equal ((const char *const *) shown, (const char *const *) restored))
        {
          g_autofree char *a = g_strjoinv (" ", shown), *b = g_strjoinv (" ", restored);

          g_error ("%s: shown\n  %s\nrestored\n  %s", lesson->id, a, b);
        }
      close_window (again);
    }
  g_settings_reset (settings, "restore-scene");
  g_settings_reset (settings, "last-scene");
}

/* The subtitle names the scene: the structure of the default scene, a
 * lesson's title while it is open. */
static void
test_subtitle (void)
{
  g_autoptr (GError) error = NULL;
  BraggscopeWindow *window = open_small ();
  GtkWidget *subtitle = find (window, "subtitle-label");

  g_test_message ("default scene: %s", gtk_label_get_text (GTK_LABEL (subtitle)));
  g_assert_true (
      g_str_has_prefix (gtk_label_get_text (GTK_LABEL (subtitle)), "HIV-1 protease (PDB 1HPV)"));
  g_assert_true (braggscope_window_open_lesson (window, "absences", &error));
  g_assert_no_error (error);
  g_test_message ("lesson: %s", gtk_label_get_text (GTK_LABEL (subtitle)));
  g_assert_true (g_str_has_prefix (gtk_label_get_text (GTK_LABEL (subtitle)),
                                   "Systematic absences (1HPV, P6₁)"));
  ui_test_activate (window, "lesson-close", NULL);
  g_assert_true (
      g_str_has_prefix (gtk_label_get_text (GTK_LABEL (subtitle)), "HIV-1 protease (PDB 1HPV)"));
  close_window (window);
}

/* The copied command line runs as it is: from the build tree, it starts with
 * the build tree's nanobragg (a bare "nanobragg" was not on PATH), and a
 * shell running it writes the frame the window shows. */
static void
test_command_line_runs (void)
{
  BraggscopeWindow *window = open_small ();
  const char *cli = g_getenv ("NB_CLI");
  g_autofree char *copied = NULL;
  g_autofree char *tmpdir = g_dir_make_tmp ("braggscope-details-XXXXXX", NULL);
  g_autofree char *command = NULL, *prefix = NULL, *out = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;
  const char *argv[] = { "/bin/sh", "-c", NULL, NULL };

  g_assert_nonnull (cli);
  ui_test_activate (window, "copy-command-line", NULL);
  copied = ui_test_clipboard_text (GTK_WIDGET (window), 10.0);
  g_test_message ("copied: %s", copied);
  prefix = g_strconcat (cli, " ", NULL);
  g_assert_true (g_str_has_prefix (copied, prefix));

  /* an empty PATH: nothing but the path copied finds the program */
  command = g_strdup_printf ("PATH=/nonexistent %s -floatfile out.bin -nonoise -nopgm "
                             "-noprogress >/dev/null",
                             copied);
  argv[2] = command;
  g_assert_true (g_spawn_sync (tmpdir, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                               NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  out = g_build_filename (tmpdir, "out.bin", NULL);
  g_assert_true (g_file_test (out, G_FILE_TEST_IS_REGULAR));
  ui_test_remove_dir (tmpdir);
  close_window (window);
}

/* Whether a visible label under @root says @needle. */
static gboolean
shows_text (GtkWidget *root, const char *needle)
{
  if (!gtk_widget_get_visible (root))
    return FALSE;
  if (GTK_IS_LABEL (root) && strstr (gtk_label_get_text (GTK_LABEL (root)), needle) != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (!GTK_IS_POPOVER (child) && shows_text (child, needle))
      return TRUE;
  return FALSE;
}

/* "Cache hits: 6, rebuilds: 0" is jargon: the status line says the frame and
 * its time in plain words, the plan's counts are in a details popover. */
static void
test_details_popover (void)
{
  BraggscopeWindow *window = open_small ();
  GtkWidget *status = find (window, "status-line");
  GtkWidget *button = find (window, "frame-details-button");
  GtkWidget *cache = find (window, "cache-label");
  GtkWidget *backend = find (window, "backend-label");
  BraggscopeFrame *frame =
      braggscope_simulation_get_last_frame (braggscope_window_get_simulation (window));
  g_autofree char *counts = g_strdup_printf ("%d", braggscope_frame_get_cache_hits (frame));

  g_assert_false (shows_text (status, "Cache"));
  g_assert_false (shows_text (status, "rebuilds"));
  g_assert_false (shows_text (status, "Backend"));
  g_assert_true (GTK_IS_MENU_BUTTON (button));
  g_assert_true (gtk_widget_is_ancestor (
      cache, GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)))));
  g_assert_true (gtk_widget_is_ancestor (
      backend, GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)))));
  g_test_message ("popover: %s / %s", gtk_label_get_text (GTK_LABEL (backend)),
                  gtk_label_get_text (GTK_LABEL (cache)));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (cache)), counts));
  g_assert_null (strstr (gtk_label_get_text (GTK_LABEL (cache)), "Cache hits"));
  g_assert_nonnull (
      strstr (gtk_label_get_text (GTK_LABEL (backend)), braggscope_frame_get_backend (frame)));
  close_window (window);
}

/* Issue 31: the status line says how the full frame was integrated and the
 * samples it spent per pixel, the details popover the tolerance; exact
 * integration says so too, with nanoBragg's oversample^2. */
static void
test_integration_status (void)
{
  BraggscopeWindow *window = open_small ();
  BraggscopeSimulation *sim = braggscope_window_get_simulation (window);
  GtkWidget *status = find (window, "status-line");
  GtkWidget *label = find (window, "integration-label");
  GtkWidget *details = find (window, "integration-details-label");
  GtkWidget *button = find (window, "frame-details-button");
  BraggscopeFrame *frame = braggscope_simulation_get_last_frame (sim);
  g_autofree char *samples =
      g_strdup_printf ("%.3g samples/pixel", braggscope_frame_get_samples_per_pixel (frame));
  g_autofree char *exact = NULL;
  int oversample;

  g_test_message ("status: %s / %s", gtk_label_get_text (GTK_LABEL (label)),
                  gtk_label_get_text (GTK_LABEL (details)));
  g_assert_true (gtk_widget_is_ancestor (label, status));
  g_assert_true (gtk_widget_get_visible (label));
  g_assert_cmpint (braggscope_frame_get_integration (frame), ==, BRAGGSCOPE_INTEGRATION_ADAPTIVE);
  g_assert_true (g_str_has_prefix (gtk_label_get_text (GTK_LABEL (label)), "adaptive, "));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), samples));
  g_assert_true (gtk_widget_is_ancestor (
      details, GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)))));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (details)), "adaptive"));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (details)), "0.001"));

  g_object_set (sim, "integration", BRAGGSCOPE_INTEGRATION_EXACT, NULL);
  frame = ui_test_wait_full_frame (window);
  oversample = braggscope_frame_get_oversample (frame);
  exact = g_strdup_printf ("exact, %d samples/pixel", oversample * oversample);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, exact);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (details)), "exact"));
  close_window (window);
}

typedef struct
{
  int full, previews;
  double slowest_ms; /* of the full frames */
} Played;

static void
count_frames (BraggscopeSimulation *sim, BraggscopeFrame *frame, Played *played)
{
  if (braggscope_frame_get_is_preview (frame))
    played->previews++;
  else
    {
      played->full++;
      played->slowest_ms = MAX (played->slowest_ms, braggscope_frame_get_total_ms (frame));
    }
}

static void
run_for (double seconds)
{
  gint64 end = g_get_monotonic_time () + (gint64) (seconds * 1e6);

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

/* The play button turns into pause while playing; phi is shown beside the
 * playback group, lesson or not; playback on a scene whose full frames come
 * in time shows full frames (it showed only previews: each 40 ms step
 * cancelled the full frame of the one before). */
static void
test_playback (void)
{
  BraggscopeWindow *window = open_small ();
  BraggscopeSimulation *sim = braggscope_window_get_simulation (window);
  GtkWidget *play, *phi_label;
  Played played = { 0 };

  gtk_expander_set_expanded (GTK_EXPANDER (find (window, "playback-group")), TRUE);
  play = find (window, "play-button");
  phi_label = find (window, "phi-label");
  g_assert_true (gtk_widget_get_visible (phi_label));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (phi_label)), ==, "φ 0.0°");
  ui_test_activate (window, "play-step", g_variant_new_int32 (1));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (phi_label)), ==, "φ 1.0°");
  /* the step's own preview and full frame come before playing */
  ui_test_wait_full_frame (window);

  g_assert_cmpstr (gtk_button_get_icon_name (GTK_BUTTON (play)), ==,
                   "media-playback-start-symbolic");
  g_signal_connect (sim, "frame-ready", G_CALLBACK (count_frames), &played);
  ui_test_activate (window, "play", NULL);
  g_assert_cmpstr (gtk_button_get_icon_name (GTK_BUTTON (play)), ==,
                   "media-playback-pause-symbolic");
  run_for (2.0);
  ui_test_activate (window, "play", NULL);
  g_signal_handlers_disconnect_by_func (sim, count_frames, &played);
  g_test_message ("while playing 2 s: %d full frames (the slowest %.0f ms), %d previews",
                  played.full, played.slowest_ms, played.previews);
  /* 256 x 256 pixels take some 10 ms: full frames only, as many as the machine gives; a
   * machine too loaded to give them within 250 ms rightly shows previews instead */
  if (played.slowest_ms <= 250.0)
    {
      g_assert_cmpint (played.full, >=, 3);
      g_assert_cmpint (played.previews, ==, 0);
    }
  g_assert_cmpstr (gtk_button_get_icon_name (GTK_BUTTON (play)), ==,
                   "media-playback-start-symbolic");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (phi_label)), !=, "φ 1.0°");
  close_window (window);
}

static gboolean
export_done (gpointer window)
{
  return g_str_has_prefix (braggscope_window_get_message (window), "Exported ");
}

/* Each exported frame of a rotation carries its phi in its bottom-left
 * corner, and nowhere else differs from the view's picture of that frame. */
static void
test_exported_phi (void)
{
  BraggscopeWindow *window = open_small ();
  g_autofree char *tmpdir = g_dir_make_tmp ("braggscope-details-XXXXXX", NULL);
  g_autofree char *dir = g_build_filename (tmpdir, "frames", NULL);
  g_autofree char *last = g_build_filename (dir, "frame-002.png", NULL);
  g_autofree guint8 *png = NULL, *view = NULL;
  g_autoptr (GError) error = NULL;
  int w = 0, h = 0, vw = 0, vh = 0;
  gsize corner = 0, elsewhere = 0;

  gtk_expander_set_expanded (GTK_EXPANDER (find (window, "playback-group")), TRUE);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find (window, "play-start-spin")), 0.0);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (find (window, "play-range-spin")), 1.0);
  ui_test_activate (window, "export-pngs-folder", g_variant_new_string (dir));
  g_assert_true (ui_test_wait (export_done, window, 120.0));
  g_test_message ("%s", braggscope_window_get_message (window));
  g_assert_true (g_file_test (last, G_FILE_TEST_IS_REGULAR));
  ui_test_wait_full_frame (window);
  png = ui_test_read_png (last, &w, &h, NULL, &error);
  g_assert_no_error (error);
  view = braggscope_view_render_rgba (braggscope_window_get_view (window), &vw, &vh);
  g_assert_cmpint (w, ==, vw);
  g_assert_cmpint (h, ==, vh);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      {
        gsize i = 4 * ((gsize) y * w + x);
        gboolean differs = ui_test_count_differences (png + i, view + i, 1, 8) > 0;

        if (x < w / 2 && y > h - h / 4)
          corner += differs;
        else
          elsewhere += differs;
      }
  g_test_message ("pixels changed by the caption: %" G_GSIZE_FORMAT
                  " in the corner, %" G_GSIZE_FORMAT " elsewhere",
                  corner, elsewhere);
  g_assert_cmpuint (corner, >, 200);
  g_assert_cmpuint (elsewhere, ==, 0);
  /* the exported frame, for people reading the build's docs/ */
  if (g_getenv ("BRAGGSCOPE_ROTATION_FRAME") != NULL)
    {
      g_autofree char *contents = NULL;
      gsize length = 0;

      g_assert_true (g_file_get_contents (last, &contents, &length, NULL));
      g_assert_true (g_file_set_contents (g_getenv ("BRAGGSCOPE_ROTATION_FRAME"), contents,
                                          (gssize) length, NULL));
    }
  ui_test_remove_dir (dir);
  ui_test_remove_dir (tmpdir);
  close_window (window);
}

static GtkWidget *
adopt_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWidget) w = g_list_model_get_item (toplevels, i);

      if (g_strcmp0 (gtk_widget_get_name (w), "adopt-geometry-dialog") == 0 &&
          gtk_widget_get_visible (w))
        return w;
    }
  return NULL;
}

static gboolean
adopt_dialog_shown (gpointer data)
{
  return adopt_dialog () != NULL;
}

/* The I03 Pilatus frame (0 to 2 counts between its spots): its automatic
 * window was 0..2, single photons as dark as spots; now its top is above
 * the photon noise, and the measured layer has a window of its own in the
 * panel. */
static void
test_measured_contrast (void)
{
  BraggscopeWindow *window = open_small ();
  BraggscopeView *view = braggscope_window_get_view (window);
  g_autofree char *tmpdir = g_dir_make_tmp ("braggscope-details-XXXXXX", NULL);
  g_autofree char *frame = ui_test_measured_frame ("DLS_I03_smargon_0001.cbf", tmpdir);
  GtkWidget *group, *high, *automatic;
  double low = 0.0, top = 0.0;
  gboolean auto_window = FALSE;

  ui_test_activate (window, "open-measured-file", g_variant_new_string (frame));
  g_assert_true (ui_test_wait (adopt_dialog_shown, NULL, 60.0));
  gtk_dialog_response (GTK_DIALOG (adopt_dialog ()), GTK_RESPONSE_REJECT);
  g_assert_true (braggscope_view_get_has_reference (view));
  g_object_get (view, "reference-min", &low, "reference-max", &top, "reference-auto-window",
                &auto_window, NULL);
  g_test_message ("measured window %g .. %g counts", low, top);
  g_assert_true (auto_window);
  g_assert_cmpfloat (top, >=, 10.0);

  group = find (window, "measured-contrast-group");
  g_assert_true (gtk_widget_get_visible (group));
  high = find (window, "measured-high-spin");
  automatic = find (window, "measured-auto-window-check");
  g_assert_true (gtk_check_button_get_active (GTK_CHECK_BUTTON (automatic)));
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (high)), ==, top);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (high), 40.0);
  g_object_get (view, "reference-max", &top, "reference-auto-window", &auto_window, NULL);
  g_assert_cmpfloat (top, ==, 40.0);
  g_assert_false (auto_window);
  g_assert_false (gtk_check_button_get_active (GTK_CHECK_BUTTON (automatic)));
  gtk_check_button_set_active (GTK_CHECK_BUTTON (automatic), TRUE);
  g_object_get (view, "reference-max", &top, NULL);
  g_assert_cmpfloat (top, ==, 10.0);

  ui_test_activate (window, "close-measured", NULL);
  g_assert_false (gtk_widget_get_visible (group));
  ui_test_remove_dir (tmpdir);
  close_window (window);
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

  g_test_add_func ("/ui/details/mosaic-domains", test_mosaic_domains);
  g_test_add_func ("/ui/details/last-scene-lessons", test_last_scene_lessons);
  g_test_add_func ("/ui/details/subtitle", test_subtitle);
  g_test_add_func ("/ui/details/command-line-runs", test_command_line_runs);
  g_test_add_func ("/ui/details/details-popover", test_details_popover);
  g_test_add_func ("/ui/details/integration-status", test_integration_status);
  g_test_add_func ("/ui/details/playback", test_playback);
  g_test_add_func ("/ui/details/exported-phi", test_exported_phi);
  g_test_add_func ("/ui/details/measured-contrast", test_measured_contrast);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
