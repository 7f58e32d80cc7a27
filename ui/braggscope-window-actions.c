/* braggscope-window-actions.c: the window's actions: files (structure
 * factors, snapshots, exports), the clipboard, the default scene and the
 * keyboard's misset steps.
 *
 * Every dialog action ("save-snapshot") has a twin taking the path as its
 * parameter ("save-snapshot-file"): the dialog activates the twin, and tests
 * and scripts call the twin directly.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-window-private.h"
#include "braggscope-paths.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

void
_braggscope_pending_free (BraggscopePending *pending)
{
  g_free (pending->path);
  g_free (pending);
}

/* ---- output files: written from the full frame of the current parameters ---- */

static void
smv_thread (GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
  BraggscopeFrame *frame = task_data;
  const char *path = g_object_get_data (G_OBJECT (task), "path");
  GError *error = NULL;

  if (braggscope_frame_save_smv (frame, path, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
smv_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  BraggscopeWindow *self = (BraggscopeWindow *) source;
  const char *path = g_object_get_data (G_OBJECT (result), "path");
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean written = g_task_propagate_boolean (G_TASK (result), &error);

  /* The window was closed meanwhile: its widgets are gone (the file is written). */
  if (g_cancellable_is_cancelled (g_task_get_cancellable (G_TASK (result))))
    return;
  if (!written)
    {
      self->callbacks.show_message (self, error->message, TRUE);
      return;
    }
  text = g_strdup_printf (_ ("Exported the SMV image to %s"), path);
  self->callbacks.show_message (self, text, FALSE);
}

static void
write_output (BraggscopeWindow *self, BraggscopeFrame *frame, BraggscopePending *pending)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  switch (pending->kind)
    {
      case BRAGGSCOPE_PENDING_SNAPSHOT:
        {
          g_autofree guint8 *rgba = NULL;
          int width = 0, height = 0;

          rgba = braggscope_view_render_rgba (self->view, &width, &height);
          if (rgba == NULL)
            g_set_error (&error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_FAILED,
                         _ ("%s: there is no image to save yet"), pending->path);
          else if (braggscope_snapshot_save (pending->path, rgba, width, height, self->sim, &error))
            text = g_strdup_printf (_ ("Saved the snapshot to %s"), pending->path);
        }
        break;

      case BRAGGSCOPE_PENDING_FLOAT:
        if (braggscope_frame_save_float (frame, pending->path, &error))
          text = g_strdup_printf (
              _ ("Exported the float image (%d × %d float32, photons per pixel) to %s"),
              braggscope_frame_get_width (frame), braggscope_frame_get_height (frame),
              pending->path);
        break;

      case BRAGGSCOPE_PENDING_SMV:
        {
          /* Written and synced to the disk: off the main thread. */
          g_autoptr (GTask) task = g_task_new (self, self->cancellable, smv_done, NULL);

          g_task_set_source_tag (task, write_output);
          g_task_set_task_data (task, g_object_ref (frame), g_object_unref);
          g_object_set_data_full (G_OBJECT (task), "path", g_strdup (pending->path), g_free);
          g_task_run_in_thread (task, smv_thread);
          text = g_strdup_printf (_ ("Exporting the SMV image to %s…"), pending->path);
        }
        break;
    }

  if (error != NULL)
    self->callbacks.show_message (self, error->message, TRUE);
  else
    self->callbacks.show_message (self, text, FALSE);
}

void
_braggscope_window_run_pending (BraggscopeWindow *self, const GError *error)
{
  BraggscopeFrame *frame;
  BraggscopePending *pending;

  if (error != NULL)
    {
      /* The scene cannot be simulated: the requests would wait for ever. */
      g_queue_clear_full (&self->pending, (GDestroyNotify) _braggscope_pending_free);
      return;
    }

  frame = _braggscope_window_current_frame (self->sim);
  if (frame == NULL)
    return;
  while ((pending = g_queue_pop_head (&self->pending)) != NULL)
    {
      write_output (self, frame, pending);
      _braggscope_pending_free (pending);
    }
}

static void
request_output (BraggscopeWindow *self, BraggscopePendingKind kind, const char *path)
{
  BraggscopePending *pending = g_new0 (BraggscopePending, 1);

  pending->kind = kind;
  pending->path = g_strdup (path);
  g_queue_push_tail (&self->pending, pending);
  if (_braggscope_window_current_frame (self->sim) == NULL)
    self->callbacks.show_message (self, _ ("Waiting for the full frame of the current parameters…"),
                                  FALSE);
  _braggscope_window_run_pending (self, NULL);
}

static void
save_snapshot_file_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  request_output (user_data, BRAGGSCOPE_PENDING_SNAPSHOT, g_variant_get_string (parameter, NULL));
}

static void
export_float_file_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  request_output (user_data, BRAGGSCOPE_PENDING_FLOAT, g_variant_get_string (parameter, NULL));
}

static void
export_smv_file_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  request_output (user_data, BRAGGSCOPE_PENDING_SMV, g_variant_get_string (parameter, NULL));
}

/* ---- input files ---- */

static void
open_structure_factors_file_activated (GSimpleAction *action,
                                       GVariant *parameter,
                                       gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  const char *path = g_variant_get_string (parameter, NULL);
  g_autofree char *text = NULL;

  /* Said first: a file the simulation rejects, now or when its worker reads
   * it, comes back through the error signal and replaces this message. */
  text = g_strdup_printf (_ ("Structure factors from %s"), path);
  self->callbacks.show_message (self, text, FALSE);
  g_object_set (self->sim, "structure-factors", path, NULL);
}

static void
open_detector_file_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  const char *path = g_variant_get_string (parameter, NULL);
  g_autofree char *text = NULL;

  /* as the structure factors: a file the simulation rejects replaces this */
  text = g_strdup_printf (_ ("Detector geometry from %s"), path);
  self->callbacks.show_message (self, text, FALSE);
  g_object_set (self->sim, "detector-file", path, NULL);
}

static void
open_snapshot_file_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  const char *path = g_variant_get_string (parameter, NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  if (!braggscope_simulation_load_snapshot (self->sim, path, &error))
    {
      self->callbacks.show_message (self, error->message, TRUE);
      return;
    }
  text = g_strdup_printf (_ ("Restored the parameters of %s"), path);
  self->callbacks.show_message (self, text, FALSE);
}

/* ---- file dialogs (GtkFileDialog needs GTK 4.10; Debian 12 has 4.8) ---- */

static void
on_file_chosen (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  const char *file_action = user_data;
  GtkWindow *window = gtk_native_dialog_get_transient_for (dialog);

  if (response == GTK_RESPONSE_ACCEPT && window != NULL)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

      if (path != NULL)
        g_action_group_activate_action (G_ACTION_GROUP (window), file_action,
                                        g_variant_new_string (path));
      else if (file != NULL)
        {
          BraggscopeWindow *self = (BraggscopeWindow *) window;

          self->callbacks.show_message (self, _ ("Only local files can be used"), TRUE);
        }
    }
  g_object_unref (dialog);
}

/* Asks for a file and activates @file_action (a "-file" action, static
 * string) with its path.  @patterns: NULL-terminated glob patterns. */
void
_braggscope_window_choose_file (BraggscopeWindow *self,
                                GtkFileChooserAction mode,
                                const char *title,
                                const char *accept,
                                const char *suggested_name,
                                const char *filter_name,
                                const char *const *patterns,
                                const char *file_action)
{
  GtkFileChooserNative *dialog;
  GtkFileFilter *filter = gtk_file_filter_new ();
  GtkFileFilter *all = gtk_file_filter_new ();

  dialog = gtk_file_chooser_native_new (title, GTK_WINDOW (self), mode, accept, _ ("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);

  gtk_file_filter_set_name (filter, filter_name);
  for (int i = 0; patterns[i] != NULL; i++)
    gtk_file_filter_add_pattern (filter, patterns[i]);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  gtk_file_filter_set_name (all, _ ("All files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), all);
  gtk_file_chooser_set_filter (GTK_FILE_CHOOSER (dialog), filter);
  g_object_unref (filter);
  g_object_unref (all);

  if (suggested_name != NULL)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), suggested_name);

  g_signal_connect (dialog, "response", G_CALLBACK (on_file_chosen), (gpointer) file_action);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
open_structure_factors_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  /* the engine tells a model from structure factors by the file's first
   * bytes, gzip or plain: the filter only helps to find them */
  static const char *const patterns[] = { "*.hkl",    "*.HKL",      "*.mtz",    "*.MTZ",
                                          "*.pdb",    "*.PDB",      "*.ent",    "*.cif",
                                          "*.CIF",    "*.mmcif",    "*.pdb.gz", "*.ent.gz",
                                          "*.cif.gz", "*.mmcif.gz", NULL };

  _braggscope_window_choose_file (
      user_data, GTK_FILE_CHOOSER_ACTION_OPEN, _ ("Open Structure Factors or a Model"), _ ("_Open"),
      NULL, _ ("Structure factors (HKL, MTZ, -sf.cif) and models (PDB, mmCIF)"), patterns,
      "open-structure-factors-file");
}

static void
open_detector_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  static const char *const patterns[] = { "*.geom", "*.expt", "*.json", "*.nxs",
                                          "*.h5",   "*.hdf5", "*.nx5",  NULL };

  _braggscope_window_choose_file (user_data, GTK_FILE_CHOOSER_ACTION_OPEN,
                                  _ ("Open Detector Geometry"), _ ("_Open"), NULL,
                                  _ ("Detector geometry (CrystFEL .geom, DIALS .expt, NeXus NXmx)"),
                                  patterns, "open-detector-file");
}

static void
open_snapshot_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  static const char *const patterns[] = { "*.png", "*.PNG", NULL };

  _braggscope_window_choose_file (user_data, GTK_FILE_CHOOSER_ACTION_OPEN, _ ("Open Snapshot"),
                                  _ ("_Open"), NULL, _ ("Braggscope snapshots (PNG)"), patterns,
                                  "open-snapshot-file");
}

static void
save_snapshot_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  static const char *const patterns[] = { "*.png", "*.PNG", NULL };

  _braggscope_window_choose_file (user_data, GTK_FILE_CHOOSER_ACTION_SAVE, _ ("Save Snapshot"),
                                  _ ("_Save"), "braggscope.png", _ ("PNG images"), patterns,
                                  "save-snapshot-file");
}

static void
export_float_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  static const char *const patterns[] = { "*.float", "*.bin", NULL };

  _braggscope_window_choose_file (user_data, GTK_FILE_CHOOSER_ACTION_SAVE, _ ("Export Float Image"),
                                  _ ("_Export"), "braggscope.float", _ ("Raw float32 images"),
                                  patterns, "export-float-file");
}

static void
export_smv_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  static const char *const patterns[] = { "*.img", "*.smv", NULL };

  _braggscope_window_choose_file (user_data, GTK_FILE_CHOOSER_ACTION_SAVE, _ ("Export SMV Image"),
                                  _ ("_Export"), "braggscope.img", _ ("SMV images"), patterns,
                                  "export-smv-file");
}

/* ---- clipboard, scene, keyboard ---- */

static void
copy_command_line_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  g_autofree char *command_line = braggscope_simulation_to_command_line (self->sim);
  g_autofree char *program = braggscope_paths_nanobragg ();
  g_autofree char *quoted = NULL;
  g_autofree char *runnable = NULL;

  /* the program that would run it, not a bare name a shell may not find */
  if (g_str_has_prefix (command_line, "nanobragg"))
    {
      quoted = strpbrk (program, " \t\n'\"\\$`*?[]{}()<>|&;#~") != NULL ? g_shell_quote (program)
                                                                        : g_strdup (program);
      runnable = g_strconcat (quoted, command_line + strlen ("nanobragg"), NULL);
    }
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)),
                          runnable != NULL ? runnable : command_line);
  self->callbacks.show_message (self, _ ("Copied the nanobragg command line to the clipboard"),
                                FALSE);
}

static void
reset_scene_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;

  sim = braggscope_simulation_new_default_scene (&error);
  if (sim == NULL)
    {
      self->callbacks.show_message (self, error->message, TRUE);
      return;
    }
  self->callbacks.set_simulation (self, sim);
  self->callbacks.show_message (self, _ ("Back to the default scene"), FALSE);
}

static void
misset_step_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  const char *axis = NULL;
  double step = 0.0, angle = 0.0;
  g_autofree char *property = NULL;

  g_variant_get (parameter, "(&sd)", &axis, &step);
  if (g_strcmp0 (axis, "x") != 0 && g_strcmp0 (axis, "y") != 0 && g_strcmp0 (axis, "z") != 0)
    {
      g_autofree char *text = g_strdup_printf (_ ("misset-step: unknown axis '%s'"), axis);

      self->callbacks.show_message (self, text, TRUE);
      return;
    }
  property = g_strconcat ("misset-", axis, NULL);
  g_object_get (self->sim, property, &angle, NULL);
  /* Kept in -180..180 degrees, the range of the sliders. */
  angle = remainder (angle + step, 360.0);
  g_object_set (self->sim, property, angle, NULL);
}

static const GActionEntry win_entries[] = {
  { "open-structure-factors", open_structure_factors_activated, NULL, NULL, NULL, { 0 } },
  { "open-structure-factors-file", open_structure_factors_file_activated, "s", NULL, NULL, { 0 } },
  { "open-detector", open_detector_activated, NULL, NULL, NULL, { 0 } },
  { "open-detector-file", open_detector_file_activated, "s", NULL, NULL, { 0 } },
  { "open-snapshot", open_snapshot_activated, NULL, NULL, NULL, { 0 } },
  { "open-snapshot-file", open_snapshot_file_activated, "s", NULL, NULL, { 0 } },
  { "save-snapshot", save_snapshot_activated, NULL, NULL, NULL, { 0 } },
  { "save-snapshot-file", save_snapshot_file_activated, "s", NULL, NULL, { 0 } },
  { "export-float", export_float_activated, NULL, NULL, NULL, { 0 } },
  { "export-float-file", export_float_file_activated, "s", NULL, NULL, { 0 } },
  { "export-smv", export_smv_activated, NULL, NULL, NULL, { 0 } },
  { "export-smv-file", export_smv_file_activated, "s", NULL, NULL, { 0 } },
  { "copy-command-line", copy_command_line_activated, NULL, NULL, NULL, { 0 } },
  { "reset-scene", reset_scene_activated, NULL, NULL, NULL, { 0 } },
  { "misset-step", misset_step_activated, "(sd)", NULL, NULL, { 0 } },
};

void
_braggscope_window_init_actions (BraggscopeWindow *self)
{
  g_action_map_add_action_entries (G_ACTION_MAP (self), win_entries, G_N_ELEMENTS (win_entries),
                                   self);
}
