/* braggscope-window-teaching.c: what the window adds for teaching: the
 * reciprocal-space view beside the detector (win.view-mode), Miller-index
 * labels (win.show-labels), the Lessons menu and its panel (win.lesson), and
 * playing a rotation (win.play, win.play-step) and exporting it as an
 * animated GIF or numbered PNGs (win.export-gif, win.export-pngs).
 *
 * Playback and export only set the simulation's phi: every frame is the
 * worker's own, previews while phi moves, a full frame once it stops (an
 * export waits for each full frame before it moves on).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-gif.h"
#include "braggscope-headless.h"
#include "braggscope-lesson.h"
#include "braggscope-window-private.h"

#include <glib/gi18n.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>

#define PLAY_TICK_MS 40
/* Playback shows full frames while the machine keeps up: while a full frame
 * of a step arrives within this long (4 a second), the rotation waits for each
 * (previews off); a slower one turns previews back on for the rest of the
 * playback, and the full frame follows when it pauses. */
#define PLAY_FULL_FRAME_MS 250.0
#define MAX_EXPORTED       720
#define GIF_DELAY_MS       100

struct _BraggscopeExport
{
  gboolean gif;
  char *path; /* the GIF, or the folder of the PNGs */
  guint i, n;
  double start, step;
  BraggscopeGifWriter *writer;
};

static void
export_free (BraggscopeExport *export)
{
  if (export == NULL)
    return;
  braggscope_gif_writer_abort (export->writer);
  g_free (export->path);
  g_free (export);
}

/* ---- the views ---- */

static const char *
view_mode (BraggscopeWindow *self)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "view-mode");
  g_autoptr (GVariant) state = g_action_get_state (action);
  const char *mode = g_variant_get_string (state, NULL);

  /* interned: the state's string outlives this call */
  return g_intern_string (mode);
}

static void
apply_view_mode (BraggscopeWindow *self)
{
  const char *mode = view_mode (self);

  if (self->view != NULL)
    gtk_widget_set_visible (GTK_WIDGET (self->view), g_strcmp0 (mode, "reciprocal") != 0);
  if (self->reciprocal != NULL)
    gtk_widget_set_visible (GTK_WIDGET (self->reciprocal), g_strcmp0 (mode, "detector") != 0);
}

static void
view_mode_changed (GSimpleAction *action, GVariant *value, gpointer user_data)
{
  const char *mode = g_variant_get_string (value, NULL);

  if (!g_strv_contains ((const char *const[]){ "detector", "reciprocal", "both", NULL }, mode))
    return;
  g_simple_action_set_state (action, value);
  apply_view_mode (user_data);
}

static void
show_labels_changed (GSimpleAction *action, GVariant *value, gpointer user_data)
{
  BraggscopeWindow *self = user_data;

  g_simple_action_set_state (action, value);
  if (self->view != NULL)
    braggscope_view_set_show_labels (self->view, g_variant_get_boolean (value));
}

/* The Display group's check button switches the labels too. */
static void
on_view_labels (BraggscopeView *view, GParamSpec *pspec, BraggscopeWindow *self)
{
  g_simple_action_set_state (
      G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "show-labels")),
      g_variant_new_boolean (braggscope_view_get_show_labels (view)));
}

static void
update_phi_label (BraggscopeWindow *self)
{
  double phi = 0.0;
  g_autofree char *text = NULL;

  if (self->phi_label == NULL || self->sim == NULL)
    return;
  g_object_get (self->sim, "phi", &phi, NULL);
  /* Translators: the spindle angle beside "Rotation playback" */
  text = g_strdup_printf (_ ("φ %.1f°"), phi);
  gtk_label_set_text (self->phi_label, text);
}

void
_braggscope_window_place_views (BraggscopeWindow *self)
{
  GAction *labels = g_action_map_lookup_action (G_ACTION_MAP (self), "show-labels");
  g_autoptr (GVariant) state = g_action_get_state (labels);

  gtk_paned_set_start_child (GTK_PANED (self->views_paned), GTK_WIDGET (self->view));
  self->reciprocal = BRAGGSCOPE_RECIPROCAL_VIEW (braggscope_reciprocal_view_new (self->sim));
  gtk_widget_set_name (GTK_WIDGET (self->reciprocal), "reciprocal-view");
  gtk_paned_set_end_child (GTK_PANED (self->views_paned), GTK_WIDGET (self->reciprocal));
  braggscope_reciprocal_view_set_detector_view (self->reciprocal, self->view);
  braggscope_view_set_show_labels (self->view, g_variant_get_boolean (state));
  g_signal_connect_object (self->view, "notify::show-labels", G_CALLBACK (on_view_labels), self,
                           G_CONNECT_DEFAULT);
  /* disconnected with the window's other handlers when the simulation goes */
  g_signal_connect_swapped (self->sim, "notify::phi", G_CALLBACK (update_phi_label), self);
  update_phi_label (self);
  apply_view_mode (self);
}

/* ---- lessons ---- */

static void
close_lesson (BraggscopeWindow *self)
{
  /* hidden, not only folded: a folded revealer still measures its wrapping label */
  gtk_revealer_set_reveal_child (self->lesson_revealer, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->lesson_revealer), FALSE);
  g_clear_pointer (&self->lesson_id, g_free);
  self->callbacks.update_subtitle (self);
}

static void
lesson_close_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  close_lesson (user_data);
}

/* The lesson's slider: a scale sharing the adjustment of the controls' own,
 * so both move together. */
static void
show_try_slider (BraggscopeWindow *self, const BraggscopeLesson *lesson)
{
  g_autofree char *name = g_strconcat (lesson->try_property, "-scale", NULL);
  GtkWidget *scale = braggscope_controls_get_widget (BRAGGSCOPE_CONTROLS (self->controls), name);
  GParamSpec *pspec =
      g_object_class_find_property (G_OBJECT_GET_CLASS (self->sim), lesson->try_property);
  GtkWidget *child;
  g_autofree char *text = NULL;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->lesson_try))) != NULL)
    gtk_box_remove (self->lesson_try, child);
  if (scale == NULL || pspec == NULL)
    return;
  /* Translators: in a lesson's panel, before the slider of the one parameter to try */
  text = g_strdup_printf (_ ("Try: %s"), _ (g_param_spec_get_nick (pspec)));
  gtk_box_append (self->lesson_try, gtk_label_new (text));
  child = gtk_scale_new (GTK_ORIENTATION_HORIZONTAL, gtk_range_get_adjustment (GTK_RANGE (scale)));
  gtk_scale_set_draw_value (GTK_SCALE (child), TRUE);
  gtk_scale_set_value_pos (GTK_SCALE (child), GTK_POS_RIGHT);
  gtk_scale_set_digits (GTK_SCALE (child), gtk_scale_get_digits (GTK_SCALE (scale)));
  gtk_widget_set_hexpand (child, TRUE);
  gtk_widget_set_name (child, "lesson-try-scale");
  gtk_accessible_update_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
  gtk_box_append (self->lesson_try, child);
}

static void
on_structure_factors_chosen (GtkDropDown *choice, GParamSpec *pspec, BraggscopeWindow *self)
{
  const BraggscopeLesson *lesson = g_object_get_data (G_OBJECT (choice), "lesson");
  g_autoptr (GError) error = NULL;

  if (!braggscope_lesson_choose_structure_factors (lesson, self->sim,
                                                   gtk_drop_down_get_selected (choice), &error))
    {
      self->callbacks.show_message (self, error->message, TRUE);
      return;
    }
  braggscope_simulation_render (self->sim);
}

/* The lesson's switch between the files its StructureFactors lists (the
 * same crystal with other molecules in its cell): a drop-down of their
 * names beside the slider, when it lists more than one.  It holds @lesson. */
static void
show_structure_factors_choice (BraggscopeWindow *self, BraggscopeLesson *lesson)
{
  GtkWidget *choice;

  if (braggscope_lesson_n_structure_factors (lesson) < 2)
    {
      braggscope_lesson_free (lesson);
      return;
    }
  /* Translators: in a lesson's panel, before the list of the structure files to switch between */
  gtk_box_append (self->lesson_try, gtk_label_new (_ ("Molecule:")));
  choice = gtk_drop_down_new_from_strings ((const char *const *) lesson->structure_factor_choices);
  gtk_widget_set_name (choice, "lesson-structure-factors");
  gtk_accessible_update_property (GTK_ACCESSIBLE (choice), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _ ("Molecule:"), -1);
  g_object_set_data_full (G_OBJECT (choice), "lesson", lesson,
                          (GDestroyNotify) braggscope_lesson_free);
  g_signal_connect (choice, "notify::selected", G_CALLBACK (on_structure_factors_chosen), self);
  gtk_box_append (self->lesson_try, choice);
}

/* Sets the double property @name of @object to the finite @value, clamped to
 * the property's range as a slider clamps (GObject would refuse it with a
 * warning). */
static void
set_clamped (GObject *object, const char *name, double value)
{
  GParamSpecDouble *pspec =
      G_PARAM_SPEC_DOUBLE (g_object_class_find_property (G_OBJECT_GET_CLASS (object), name));

  g_object_set (object, name, CLAMP (value, pspec->minimum, pspec->maximum), NULL);
}

gboolean
_braggscope_window_open_lesson (BraggscopeWindow *self, const char *id, GError **error)
{
  g_autoptr (BraggscopeLesson) lesson = braggscope_lesson_find (id, error);
  g_autoptr (BraggscopeSimulation) sim = NULL;

  if (lesson == NULL || (sim = braggscope_lesson_create_simulation (lesson, NULL, error)) == NULL)
    return FALSE;
  self->callbacks.set_simulation (self, sim);
  braggscope_simulation_render (sim);
  g_action_group_change_action_state (G_ACTION_GROUP (self), "view-mode",
                                      g_variant_new_string (lesson->view));
  g_action_group_change_action_state (G_ACTION_GROUP (self), "show-labels",
                                      g_variant_new_boolean (lesson->labels));
  braggscope_view_set_label_count (self->view, MAX (lesson->label_count, 1));
  braggscope_view_set_ring_resolutions (self->view, lesson->rings);
  braggscope_view_set_label_reflections (self->view, lesson->label_reflections);
  if (lesson->contrast_percentile > 0)
    {
      /* the lesson's contrast, for its scene only: the user's setting stays */
      g_settings_unbind (self->view, "auto-contrast");
      braggscope_view_set_contrast_percentile (self->view, lesson->contrast_percentile);
      braggscope_view_set_auto_contrast (self->view, TRUE);
    }
  set_clamped (G_OBJECT (self->reciprocal), "resolution-limit", lesson->reciprocal_resolution);
  set_clamped (G_OBJECT (self->reciprocal), "zoom", lesson->reciprocal_zoom);
  set_clamped (G_OBJECT (self->reciprocal), "scale-wavelength", lesson->scale_wavelength);
  if (lesson->playback)
    {
      gtk_spin_button_set_value (self->play_start_spin, lesson->play_start);
      gtk_spin_button_set_value (self->play_range_spin, lesson->play_range);
      gtk_spin_button_set_value (self->play_speed_spin, lesson->play_speed);
      gtk_expander_set_expanded (self->play_expander, TRUE);
    }

  gtk_label_set_text (self->lesson_title, lesson->title);
  gtk_label_set_text (self->lesson_text, lesson->text);
  show_try_slider (self, lesson);
  gtk_widget_set_visible (GTK_WIDGET (self->lesson_revealer), TRUE);
  gtk_revealer_set_reveal_child (self->lesson_revealer, TRUE);
  g_free (self->lesson_id);
  self->lesson_id = g_strdup (lesson->id);
  self->callbacks.update_subtitle (self);
  self->callbacks.show_message (self, lesson->title, FALSE);
  show_structure_factors_choice (self, g_steal_pointer (&lesson));
  return TRUE;
}

static void
lesson_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  g_autoptr (GError) error = NULL;

  if (!_braggscope_window_open_lesson (self, g_variant_get_string (parameter, NULL), &error))
    self->callbacks.show_message (self, error->message, TRUE);
}

/* The next (@step 1) or previous (-1) lesson, the first when none is open. */
static void
lesson_step_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) lessons = braggscope_lessons_load (&error);
  int step = g_variant_get_int32 (parameter), at = -1;

  if (lessons == NULL || lessons->len == 0)
    {
      if (error != NULL)
        self->callbacks.show_message (self, error->message, TRUE);
      return;
    }
  for (guint i = 0; i < lessons->len; i++)
    if (g_strcmp0 (((BraggscopeLesson *) g_ptr_array_index (lessons, i))->id, self->lesson_id) == 0)
      at = (int) i;
  at = at < 0 ? 0 : (at + step + (int) lessons->len) % (int) lessons->len;
  if (!_braggscope_window_open_lesson (
          self, ((BraggscopeLesson *) g_ptr_array_index (lessons, at))->id, &error))
    self->callbacks.show_message (self, error->message, TRUE);
}

static GMenuModel *
lessons_menu (void)
{
  GMenu *menu = g_menu_new ();
  g_autoptr (GPtrArray) lessons = braggscope_lessons_load (NULL);

  for (guint i = 0; lessons != NULL && i < lessons->len; i++)
    {
      const BraggscopeLesson *lesson = g_ptr_array_index (lessons, i);
      g_autofree char *action = g_strdup_printf ("win.lesson('%s')", lesson->id);

      g_menu_append (menu, lesson->title, action);
    }
  return G_MENU_MODEL (menu);
}

/* ---- playback ---- */

static double
phi_of (BraggscopeWindow *self)
{
  double phi = 0.0;

  g_object_get (self->sim, "phi", &phi, NULL);
  return phi;
}

static void
set_phi (BraggscopeWindow *self, double phi)
{
  g_object_set (self->sim, "phi", phi, NULL);
}

/* The play button says what it would do: play, or pause while playing. */
static void
update_play_button (BraggscopeWindow *self, gboolean playing)
{
  if (self->play_button == NULL)
    return;
  gtk_button_set_icon_name (GTK_BUTTON (self->play_button), playing
                                                                ? "media-playback-pause-symbolic"
                                                                : "media-playback-start-symbolic");
  gtk_widget_set_tooltip_text (self->play_button, playing ? _ ("Pause the rotation (Ctrl+P)")
                                                          : _ ("Play the rotation (Ctrl+P)"));
}

/* Playback leaves the full frames it waited for: previews again as a slider moves. */
static void
play_with_previews (BraggscopeWindow *self)
{
  if (self->play_full && self->sim != NULL)
    g_object_set (self->sim, "preview-while-dragging", TRUE, NULL);
  self->play_full = FALSE;
}

static void
stop_playing (BraggscopeWindow *self)
{
  g_clear_handle_id (&self->play_source, g_source_remove);
  play_with_previews (self);
  g_simple_action_set_state (
      G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (self), "play")),
      g_variant_new_boolean (FALSE));
  update_play_button (self, FALSE);
}

/* Whether a playback showing full frames must wait for the one of the current
 * step; one that does not come in time turns it to previews. */
static gboolean
play_waits (BraggscopeWindow *self, gint64 now)
{
  BraggscopeFrame *current;

  if (!self->play_full)
    return FALSE;
  current = _braggscope_window_current_frame (self->sim);
  if (current == NULL || braggscope_view_get_frame (self->view) != current)
    {
      if (now - self->play_set_us < (gint64) (2 * PLAY_FULL_FRAME_MS * 1000))
        return TRUE;
      play_with_previews (self);
      return FALSE;
    }
  if (braggscope_frame_get_total_ms (current) > PLAY_FULL_FRAME_MS)
    play_with_previews (self);
  return FALSE;
}

static gboolean
play_tick (gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  gint64 now = g_get_monotonic_time ();
  double start = gtk_spin_button_get_value (self->play_start_spin);
  double range = gtk_spin_button_get_value (self->play_range_spin);
  double speed = gtk_spin_button_get_value (self->play_speed_spin);
  double phi;

  if (play_waits (self, now))
    return G_SOURCE_CONTINUE;
  /* the time waited for a full frame turns the crystal as far as playing would */
  phi = self->play_phi + speed * (now - self->play_last_us) / 1e6;
  self->play_last_us = now;
  self->play_set_us = now;
  if (phi > start + range)
    {
      if (!gtk_check_button_get_active (self->play_loop_check))
        {
          set_phi (self, start + range);
          self->play_source = 0;
          stop_playing (self);
          return G_SOURCE_REMOVE;
        }
      phi = start + fmod (phi - start, MAX (range, 1e-6));
    }
  self->play_phi = phi;
  set_phi (self, phi);
  return G_SOURCE_CONTINUE;
}

static void
play_changed (GSimpleAction *action, GVariant *value, gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  double start = gtk_spin_button_get_value (self->play_start_spin);
  double range = gtk_spin_button_get_value (self->play_range_spin);

  if (!g_variant_get_boolean (value))
    {
      stop_playing (self);
      return;
    }
  if (self->export != NULL)
    return;
  g_simple_action_set_state (action, value);
  update_play_button (self, TRUE);
  /* full frames, no previews, while they keep up (play_waits) */
  if (!self->play_full)
    g_object_set (self->sim, "preview-while-dragging", FALSE, NULL);
  self->play_full = TRUE;
  self->play_set_us = g_get_monotonic_time ();
  self->play_phi = phi_of (self);
  if (self->play_phi < start || self->play_phi >= start + range)
    self->play_phi = start;
  self->play_last_us = g_get_monotonic_time ();
  if (self->play_source == 0)
    self->play_source = g_timeout_add (PLAY_TICK_MS, play_tick, self);
}

/* One step of a rotation: the oscillation when there is one, else 1 degree. */
static double
play_step (BraggscopeWindow *self)
{
  double osc = 0.0;

  g_object_get (self->sim, "osc", &osc, NULL);
  return osc > 0 ? osc : 1.0;
}

static void
play_step_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  double start = gtk_spin_button_get_value (self->play_start_spin);
  double range = gtk_spin_button_get_value (self->play_range_spin);
  double phi = phi_of (self) + g_variant_get_int32 (parameter) * play_step (self);

  stop_playing (self);
  if (phi > start + range + 1e-9)
    phi = start;
  if (phi < start - 1e-9)
    phi = start + range;
  set_phi (self, phi);
}

/* ---- export ---- */

/* The views shown, as one picture: the detector at the frame's resolution,
 * the reciprocal view as a square as tall as it, side by side. */
static guint8 *
render_views (BraggscopeWindow *self, int *width, int *height)
{
  const char *mode = view_mode (self);
  g_autofree guint8 *detector = NULL;
  g_autoptr (GBytes) space = NULL;
  guint8 *rgba;
  int w = 0, h = 0, side;

  detector = braggscope_view_render_rgba (self->view, &w, &h);
  if (detector == NULL)
    return NULL;
  if (g_strcmp0 (mode, "detector") == 0)
    {
      *width = w;
      *height = h;
      rgba = g_steal_pointer (&detector);
    }
  else
    {
      side = MAX (h, 240);
      space = braggscope_reciprocal_view_render_bytes (self->reciprocal, side, side);
      rgba = braggscope_join_side_by_side (g_strcmp0 (mode, "both") == 0 ? detector : NULL, w, h,
                                           space != NULL ? g_bytes_get_data (space, NULL) : NULL,
                                           side, width, height);
    }
  /* each frame of a rotation says where it is */
  braggscope_caption_phi (rgba, *width, *height, phi_of (self));
  return rgba;
}

static void
export_next (BraggscopeWindow *self)
{
  BraggscopeExport *export = self->export;
  g_autofree char *text =
      g_strdup_printf (_ ("Exporting frame %u of %u…"), export->i + 1, export->n);

  self->callbacks.show_message (self, text, FALSE);
  set_phi (self, export->start + export->i * export->step);
  /* a phi equal to the current one starts no render: ask for one */
  braggscope_simulation_render (self->sim);
}

static void
export_finish (BraggscopeWindow *self, GError *error)
{
  BraggscopeExport *export = g_steal_pointer (&self->export);
  g_autofree char *text = NULL;

  if (error == NULL && export->gif)
    {
      BraggscopeGifWriter *writer = g_steal_pointer (&export->writer);

      if (writer != NULL)
        braggscope_gif_writer_finish (writer, &error);
    }
  if (error != NULL)
    self->callbacks.show_message (self, error->message, TRUE);
  else
    {
      text = export->gif
                 ? g_strdup_printf (_ ("Exported %u frames to %s"), export->n, export->path)
                 : g_strdup_printf (_ ("Exported %u PNG snapshots to %s"), export->n, export->path);
      self->callbacks.show_message (self, text, FALSE);
    }
  g_clear_error (&error);
  export_free (export);
}

void
_braggscope_window_export_frame (BraggscopeWindow *self, const GError *failed)
{
  BraggscopeExport *export = self->export;
  g_autofree guint8 *rgba = NULL;
  GError *error = NULL;
  int width = 0, height = 0;

  if (export == NULL)
    return;
  if (failed != NULL)
    {
      export_finish (self, g_error_copy (failed));
      return;
    }
  if (_braggscope_window_current_frame (self->sim) == NULL ||
      braggscope_view_get_frame (self->view) != _braggscope_window_current_frame (self->sim))
    return;
  rgba = render_views (self, &width, &height);
  if (rgba == NULL)
    return;
  if (export->gif)
    {
      if (export->writer == NULL)
        export->writer =
            braggscope_gif_writer_new (export->path, width, height, GIF_DELAY_MS, &error);
      if (export->writer != NULL)
        braggscope_gif_writer_add (export->writer, rgba, &error);
    }
  else
    {
      g_autofree char *name = g_strdup_printf ("frame-%03u.png", export->i + 1);
      g_autofree char *path = g_build_filename (export->path, name, NULL);

      braggscope_snapshot_save (path, rgba, width, height, self->sim, &error);
    }
  if (error != NULL || ++export->i >= export->n)
    {
      export_finish (self, error);
      return;
    }
  export_next (self);
}

void
_braggscope_window_export_rotation (BraggscopeWindow *self, gboolean gif, const char *path)
{
  BraggscopeExport *export;
  double range = gtk_spin_button_get_value (self->play_range_spin);

  g_return_if_fail (path != NULL);

  stop_playing (self);
  export_free (g_steal_pointer (&self->export));
  if (!gif && g_mkdir_with_parents (path, 0755) != 0)
    {
      g_autofree char *text =
          g_strdup_printf (_ ("%s: cannot make the folder: %s"), path, g_strerror (errno));

      self->callbacks.show_message (self, text, TRUE);
      return;
    }
  export = g_new0 (BraggscopeExport, 1);
  export->gif = gif;
  export->path = g_strdup (path);
  export->start = gtk_spin_button_get_value (self->play_start_spin);
  export->step = play_step (self);
  export->n = (guint) CLAMP (floor (range / export->step + 1e-9) + 1, 1, MAX_EXPORTED);
  self->export = export;
  export_next (self);
}

static void
export_gif_file_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  _braggscope_window_export_rotation (user_data, TRUE, g_variant_get_string (parameter, NULL));
}

static void
export_pngs_folder_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  _braggscope_window_export_rotation (user_data, FALSE, g_variant_get_string (parameter, NULL));
}

static void
export_dialog (BraggscopeWindow *self, gboolean gif)
{
  static const char *const gifs[] = { "*.gif", "*.GIF", NULL }, *const any[] = { "*", NULL };

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  if (gif)
    _braggscope_window_choose_file (self, GTK_FILE_CHOOSER_ACTION_SAVE,
                                    _ ("Export the Rotation as an Animated GIF"), _ ("_Export"),
                                    "rotation.gif", _ ("GIF images"), gifs, "export-gif-file");
  else
    _braggscope_window_choose_file (self, GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                    _ ("Export the Rotation as Numbered PNG Snapshots"),
                                    _ ("_Export"), NULL, _ ("Folders"), any, "export-pngs-folder");
  G_GNUC_END_IGNORE_DEPRECATIONS
}

static void
export_gif_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  export_dialog (user_data, TRUE);
}

static void
export_pngs_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  export_dialog (user_data, FALSE);
}

/* ---- building ---- */

static const GActionEntry teaching_entries[] = {
  { "view-mode", NULL, "s", "'detector'", view_mode_changed, { 0 } },
  { "show-labels", NULL, NULL, "false", show_labels_changed, { 0 } },
  { "lesson", lesson_activated, "s", NULL, NULL, { 0 } },
  { "lesson-step", lesson_step_activated, "i", NULL, NULL, { 0 } },
  { "lesson-close", lesson_close_activated, NULL, NULL, NULL, { 0 } },
  { "play", NULL, NULL, "false", play_changed, { 0 } },
  { "play-step", play_step_activated, "i", NULL, NULL, { 0 } },
  { "export-gif", export_gif_activated, NULL, NULL, NULL, { 0 } },
  { "export-gif-file", export_gif_file_activated, "s", NULL, NULL, { 0 } },
  { "export-pngs", export_pngs_activated, NULL, NULL, NULL, { 0 } },
  { "export-pngs-folder", export_pngs_folder_activated, "s", NULL, NULL, { 0 } },
};

static GtkWidget *
lesson_panel (BraggscopeWindow *self)
{
  GtkWidget *revealer = gtk_revealer_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *close = gtk_button_new_from_icon_name ("window-close-symbolic");

  gtk_widget_set_name (revealer, "lesson-panel");
  self->lesson_revealer = GTK_REVEALER (revealer);
  self->lesson_title = GTK_LABEL (gtk_label_new (NULL));
  self->lesson_text = GTK_LABEL (gtk_label_new (NULL));
  self->lesson_try = GTK_BOX (gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8));
  gtk_widget_add_css_class (GTK_WIDGET (self->lesson_title), "heading");
  gtk_label_set_xalign (self->lesson_title, 0.0f);
  gtk_widget_set_hexpand (GTK_WIDGET (self->lesson_title), TRUE);
  gtk_label_set_xalign (self->lesson_text, 0.0f);
  gtk_label_set_wrap (self->lesson_text, TRUE);
  gtk_label_set_selectable (self->lesson_text, TRUE);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (close), "win.lesson-close");
  gtk_widget_set_tooltip_text (close, _ ("Close the lesson"));
  gtk_box_append (GTK_BOX (top), GTK_WIDGET (self->lesson_title));
  gtk_box_append (GTK_BOX (top), close);
  gtk_box_append (GTK_BOX (box), top);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->lesson_text));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->lesson_try));
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 8);
  gtk_widget_set_margin_bottom (box, 8);
  gtk_revealer_set_child (self->lesson_revealer, box);
  gtk_widget_set_visible (revealer, FALSE);
  return revealer;
}

static GtkSpinButton *
playback_spin (GtkGrid *grid,
               int row,
               const char *label,
               const char *name,
               double lower,
               double upper,
               double value,
               const char *tooltip)
{
  GtkWidget *title = gtk_label_new_with_mnemonic (label);
  GtkWidget *spin = gtk_spin_button_new_with_range (lower, upper, 1.0);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
  gtk_widget_set_name (spin, name);
  gtk_widget_set_tooltip_text (spin, tooltip);
  gtk_widget_set_hexpand (spin, TRUE);
  gtk_label_set_mnemonic_widget (GTK_LABEL (title), spin);
  gtk_label_set_xalign (GTK_LABEL (title), 0.0f);
  gtk_grid_attach (grid, title, 0, row, 1, 1);
  gtk_grid_attach (grid, spin, 1, row, 1, 1);
  return GTK_SPIN_BUTTON (spin);
}

static GtkWidget *
button (const char *icon, const char *action, const char *tooltip)
{
  GtkWidget *b = gtk_button_new_from_icon_name (icon);

  gtk_actionable_set_action_name (GTK_ACTIONABLE (b), action);
  gtk_widget_set_tooltip_text (b, tooltip);
  return b;
}

static GtkWidget *
playback_group (BraggscopeWindow *self)
{
  GtkWidget *expander = gtk_expander_new (NULL);
  GtkWidget *header = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());
  GtkWidget *buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  GtkWidget *play = gtk_toggle_button_new ();

  gtk_widget_set_name (expander, "playback-group");
  self->play_expander = GTK_EXPANDER (expander);
  /* the spindle angle, in or out of a lesson, folded or not */
  self->phi_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_set_name (GTK_WIDGET (self->phi_label), "phi-label");
  gtk_widget_add_css_class (GTK_WIDGET (self->phi_label), "numeric");
  gtk_widget_add_css_class (GTK_WIDGET (self->phi_label), "dim-label");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->phi_label), _ ("The spindle angle φ now"));
  gtk_box_append (GTK_BOX (header), gtk_label_new (_ ("Rotation playback")));
  gtk_box_append (GTK_BOX (header), GTK_WIDGET (self->phi_label));
  gtk_expander_set_label_widget (GTK_EXPANDER (expander), header);
  gtk_grid_set_row_spacing (grid, 6);
  gtk_grid_set_column_spacing (grid, 12);
  gtk_widget_set_margin_start (GTK_WIDGET (grid), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (grid), 6);
  self->play_start_spin = playback_spin (grid, 0, _ ("_From φ (°)"), "play-start-spin", -360, 360,
                                         0, _ ("Spindle angle where the rotation starts"));
  self->play_range_spin = playback_spin (grid, 1, _ ("_Range (°)"), "play-range-spin", 0.1, 360, 90,
                                         _ ("How far the rotation turns"));
  self->play_speed_spin = playback_spin (grid, 2, _ ("S_peed (°/s)"), "play-speed-spin", 0.1, 90,
                                         10, _ ("Degrees of rotation per second while playing"));
  self->play_loop_check = GTK_CHECK_BUTTON (gtk_check_button_new_with_mnemonic (_ ("_Loop")));
  gtk_check_button_set_active (self->play_loop_check, TRUE);
  gtk_widget_set_name (GTK_WIDGET (self->play_loop_check), "play-loop-check");
  gtk_grid_attach (grid, GTK_WIDGET (self->play_loop_check), 0, 3, 2, 1);

  gtk_button_set_icon_name (GTK_BUTTON (play), "media-playback-start-symbolic");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (play), "win.play");
  gtk_widget_set_name (play, "play-button");
  self->play_button = play;
  update_play_button (self, FALSE);
  gtk_box_append (GTK_BOX (buttons), button ("media-skip-backward-symbolic", "win.play-step(-1)",
                                             _ ("One step back (Ctrl+comma)")));
  gtk_box_append (GTK_BOX (buttons), play);
  gtk_box_append (GTK_BOX (buttons),
                  button ("media-skip-forward-symbolic", "win.play-step(1)",
                          _ ("One step on: the oscillation, or 1° (Ctrl+period)")));
  gtk_box_append (GTK_BOX (buttons),
                  button ("image-x-generic-symbolic", "win.export-gif",
                          _ ("Export the rotation as an animated GIF (Ctrl+G)")));
  gtk_box_append (GTK_BOX (buttons),
                  button ("folder-pictures-symbolic", "win.export-pngs",
                          _ ("Export the rotation as numbered PNG snapshots (Ctrl+Shift+G)")));
  gtk_grid_attach (grid, buttons, 0, 4, 2, 1);
  gtk_expander_set_child (GTK_EXPANDER (expander), GTK_WIDGET (grid));
  return expander;
}

static void
add_menus (BraggscopeWindow *self)
{
  g_autoptr (GMenu) views = g_menu_new ();
  g_autoptr (GMenuModel) lessons = lessons_menu ();

  g_menu_append (views, _ ("_Detector"), "win.view-mode('detector')");
  g_menu_append (views, _ ("Reciprocal _Space (Ewald Sphere)"), "win.view-mode('reciprocal')");
  g_menu_append (views, _ ("_Both Side by Side"), "win.view-mode('both')");
  g_menu_append (views, _ ("_Miller Indices on Spots"), "win.show-labels");
  g_menu_append (views, _ ("_Play the Rotation"), "win.play");
  g_menu_insert_section (self->primary_menu, 0, NULL, G_MENU_MODEL (views));
  g_menu_insert_submenu (self->primary_menu, 1, _ ("_Lessons"), lessons);
}

void
_braggscope_window_show_domains (BraggscopeWindow *self, BraggscopeFrame *frame)
{
  int asked = 0, used = braggscope_frame_get_mosaic_domains (frame);
  g_autofree char *text = NULL;

  g_object_get (self->sim, "mosaic-domains", &asked, NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->domains_label), used > asked && asked > 0);
  if (!(used > asked && asked > 0))
    return;
  /* Translators: the status line, when a full frame used more mosaic domains
   * than set, so that a large mosaic spread draws arcs, not copies of spots */
  text = g_strdup_printf (_ ("%d mosaic domains (%d set): smooth arcs"), used, asked);
  gtk_label_set_text (self->domains_label, text);
}

void
_braggscope_window_init_teaching (BraggscopeWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), teaching_entries,
                                   G_N_ELEMENTS (teaching_entries), self);
  self->views_paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_widget_set_vexpand (self->views_paned, TRUE);
  gtk_widget_set_hexpand (self->views_paned, TRUE);
  gtk_paned_set_shrink_start_child (GTK_PANED (self->views_paned), FALSE);
  gtk_paned_set_shrink_end_child (GTK_PANED (self->views_paned), FALSE);
  gtk_box_append (self->view_slot, lesson_panel (self));
  gtk_box_append (self->view_slot, self->views_paned);
  gtk_box_append (self->sidebar_box, playback_group (self));
  add_menus (self);
  self->domains_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_set_name (GTK_WIDGET (self->domains_label), "domains-label");
  gtk_widget_set_tooltip_text (
      GTK_WIDGET (self->domains_label),
      _ ("With a large mosaic spread the domains would draw separate copies of each spot: full "
         "frames take as many domains as make the copies merge into arcs (their spacing, spread / "
         "√domains, no larger than a spot's angular width d / (N a)), at most 96; previews keep "
         "the set count"));
  gtk_widget_set_visible (GTK_WIDGET (self->domains_label), FALSE);
  gtk_box_insert_child_after (GTK_BOX (gtk_widget_get_parent (GTK_WIDGET (self->oversample_label))),
                              GTK_WIDGET (self->domains_label),
                              GTK_WIDGET (self->oversample_label));
}

void
_braggscope_window_dispose_teaching (BraggscopeWindow *self)
{
  g_clear_handle_id (&self->play_source, g_source_remove);
  export_free (g_steal_pointer (&self->export));
  g_clear_pointer (&self->lesson_id, g_free);
}
