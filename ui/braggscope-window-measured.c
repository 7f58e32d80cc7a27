/* braggscope-window-measured.c: a measured frame in the window: opening one,
 * the offer to adopt its header's geometry, the frame as the detector view's
 * second layer (the reference of braggscope-window-compare.c, shown in its
 * compare modes), the match score in the status line, the measured count
 * beside the simulated photons under the pointer, and the refinement and
 * orientation search with their progress and cancellation (both run on the
 * simulation's worker thread).
 *
 * As in braggscope-window-actions.c, the dialog action ("open-measured")
 * has a twin taking the path ("open-measured-file") for tests and scripts.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-window-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

/* The view's label of the measured layer, translated once. */
static const char *
measured_label (void)
{
  return C_ ("reference layer", "measured");
}

/* Whether the view's reference layer is the measured frame (a held frame may
 * have taken its place). */
static gboolean
layer_is_measured (BraggscopeWindow *self)
{
  return self->view != NULL && braggscope_view_get_has_reference (self->view) &&
         g_strcmp0 (braggscope_view_get_reference_label (self->view), measured_label ()) == 0;
}

/* Actions that need a measured frame, and those that need no fit running. */
static const char *const frame_actions[] = { "adopt-geometry", "close-measured", NULL };
static const char *const fit_actions[] = { "refine", "refine-detector", "search-orientation",
                                           NULL };

static void
set_enabled (BraggscopeWindow *self, const char *name, gboolean enabled)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), name);

  g_simple_action_set_enabled (G_SIMPLE_ACTION (action), enabled);
}

/* A frame whose header describes a detector one flat panel cannot stand
 * for: shown, but neither adopted, scored nor fitted. */
static const char *
detector_problem (BraggscopeWindow *self)
{
  return self->measured != NULL ? braggscope_measured_frame_get_detector_problem (self->measured)
                                : NULL;
}

static void
update_actions (BraggscopeWindow *self)
{
  gboolean have = self->measured != NULL, fitting = self->fit_cancellable != NULL;
  gboolean usable = have && detector_problem (self) == NULL;

  for (int i = 0; frame_actions[i] != NULL; i++)
    set_enabled (self, frame_actions[i], have);
  set_enabled (self, "adopt-geometry", usable);
  for (int i = 0; fit_actions[i] != NULL; i++)
    set_enabled (self, fit_actions[i], usable && !fitting);
  set_enabled (self, "cancel-fit", fitting);
}

/* The structure factors cannot belong to the crystal: said once, when the
 * simulation finds it. */
static void
on_hkl_cell_warning (BraggscopeWindow *self)
{
  g_autofree char *warning = NULL;

  g_object_get (self->sim, "hkl-cell-warning", &warning, NULL);
  if (warning != NULL)
    self->callbacks.show_message (self, warning, TRUE);
}

/* An atomic model's structure factors and cell: said once, when the
 * simulation has read it. */
static void
on_structure_factors_note (BraggscopeWindow *self)
{
  g_autofree char *note = NULL;

  g_object_get (self->sim, "structure-factors-note", &note, NULL);
  if (note != NULL)
    self->callbacks.show_message (self, note, FALSE);
}

/* ---- the status line ---- */

static void
update_score (BraggscopeWindow *self)
{
  g_autofree char *text = NULL;
  g_autoptr (GString) tooltip = NULL;
  double fraction = NAN, radius = 3.0, cc = NAN, rms = NAN, chance = NAN, p = NAN;
  int peaks = 0, matched = 0, shells = 0;
  gboolean significant = FALSE;

  if (self->measured == NULL)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->score_label), FALSE);
      return;
    }
  if (detector_problem (self) != NULL)
    {
      gtk_label_set_text (self->score_label,
                          _ ("Match: none, the frame's detector is not one flat panel"));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->score_label), detector_problem (self));
      gtk_widget_set_visible (GTK_WIDGET (self->score_label), TRUE);
      return;
    }
  g_object_get (self->sim, "match-fraction", &fraction, "match-peaks", &peaks, "match-matched",
                &matched, "match-radius", &radius, "match-correlation", &cc, "match-rms-distance",
                &rms, "match-shells", &shells, "match-chance-fraction", &chance, "match-p-value",
                &p, "match-significant", &significant, NULL);
  if (isnan (fraction))
    text = g_strdup (_ ("Match: waiting for the full frame"));
  else
    {
      const char *verdict = significant ? _ ("a match") : _ ("no better than chance");

      if (isnan (cc))
        /* Translators: measured peaks near a predicted reflection: matched of
         * all, the percentage, the distance in pixels, the percentage peaks at
         * random places would match, and "a match" or "no better than
         * chance". */
        text = g_strdup_printf (_ ("Match: %d of %d peaks (%.0f %%) within %g px, chance %.1f %% · "
                                   "%s"),
                                matched, peaks, 100.0 * fraction, radius, 100.0 * chance, verdict);
      else
        /* Translators: as "Match: %d of %d peaks...", then the correlation
         * coefficient of the simulated and measured pixels. */
        text =
            g_strdup_printf (_ ("Match: %d of %d peaks (%.0f %%) within %g px, chance %.1f %% · "
                                "%s · CC %.2f"),
                             matched, peaks, 100.0 * fraction, radius, 100.0 * chance, verdict, cc);
    }
  gtk_label_set_text (self->score_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->score_label), TRUE);

  tooltip = g_string_new (NULL);
  if (!isnan (p))
    /* Translators: the probability that peaks at random places match as
     * many, and what a match needs. */
    g_string_append_printf (tooltip,
                            _ ("Peaks at random places would match as many with probability %.2g; "
                               "a match needs less than 0.001 (divided by the orientations a fit "
                               "chose among)"),
                            p);
  if (!isnan (rms))
    g_string_append_printf (tooltip, _ ("\nRMS distance of the matched peaks: %.2f px"), rms);
  for (int i = 0; i < shells; i++)
    {
      double d_max, d_min, shell_cc;

      if (braggscope_simulation_get_match_shell (self->sim, i, &d_max, &d_min, &shell_cc))
        /* Translators: a resolution shell (Å) and the correlation in it. */
        g_string_append_printf (tooltip, _ ("\n%.2f–%.2f Å: CC %.3f"), d_max, d_min, shell_cc);
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->score_label),
                               tooltip->len > 0 ? tooltip->str : NULL);
}

/* Whether the measured layer lies on the panels of a multi-panel detector. */
static gboolean
layer_on_panels (BraggscopeWindow *self)
{
  return self->measured_on_panels;
}

/* The measured count under the readout point, beside the simulated photons. */
static void
update_counts (BraggscopeWindow *self)
{
  BraggscopeFrame *frame = self->view != NULL ? braggscope_view_get_frame (self->view) : NULL;
  g_autofree char *text = NULL;
  int x, y, width, height;
  float value, counts;

  if (self->measured == NULL || frame == NULL ||
      !braggscope_view_get_readout (self->view, NULL, NULL, &x, &y, &value, NULL) ||
      (layer_on_panels (self) && !layer_is_measured (self)))
    {
      gtk_widget_set_visible (GTK_WIDGET (self->counts_label), FALSE);
      return;
    }
  width = braggscope_measured_frame_get_width (self->measured);
  height = braggscope_measured_frame_get_height (self->measured);
  if (!layer_on_panels (self) && (width != braggscope_frame_get_width (frame) ||
                                  height != braggscope_frame_get_height (frame)))
    {
      /* Translators: the measured frame's size in pixels, then the simulation's. */
      text =
          g_strdup_printf (_ ("measured frame %d × %d, simulation %d × %d"), width, height,
                           braggscope_frame_get_width (frame), braggscope_frame_get_height (frame));
      gtk_label_set_text (self->counts_label, text);
      gtk_widget_set_visible (GTK_WIDGET (self->counts_label), TRUE);
      return;
    }
  /* the layer's value reads the same pixel (on panels: the same panel's pixel) */
  if (layer_is_measured (self))
    counts = braggscope_view_get_reference_value (self->view);
  else
    {
      g_autoptr (GBytes) pixels = braggscope_measured_frame_get_pixels (self->measured);

      counts = ((const float *) g_bytes_get_data (pixels, NULL))[(gsize) y * width + x];
    }
  if (isnan (counts))
    /* Translators: the measured pixel is no measurement (a gap, a bad
     * pixel or an overload); the number is the simulated value. */
    text = g_strdup_printf (_ ("measured: masked · simulated %.3g photons"), value);
  else
    text = g_strdup_printf (_ ("measured %.0f counts · simulated %.3g photons"), counts, value);
  gtk_label_set_text (self->counts_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->counts_label), TRUE);
}

static void
on_readout_changed (BraggscopeView *view, gboolean on_frame, BraggscopeWindow *self)
{
  update_counts (self);
}

/* ---- opening and adopting ---- */

/* The panels the view shows (a key of the projection's layout), "" for a
 * detector of one panel: the measured layer is laid out again when they
 * change (another detector file, a refined distance). */
static char *
layout_key (BraggscopeWindow *self)
{
  BraggscopeFrame *shown = braggscope_view_get_shown_frame (self->view);
  BraggscopeGeometry *geometry = shown != NULL ? braggscope_frame_get_geometry (shown) : NULL;
  BraggscopePanel p0;
  int width, height;

  if (geometry == NULL || braggscope_geometry_get_n_panels (geometry) < 2 ||
      !braggscope_geometry_get_panel (geometry, 0, &p0))
    return g_strdup ("");
  braggscope_geometry_get_size (geometry, &width, &height);
  return g_strdup_printf ("%d %d %d %.17g %.17g %.17g", braggscope_geometry_get_n_panels (geometry),
                          width, height, p0.origin[0], p0.origin[1], p0.origin[2]);
}

/* The measured pixels where the view draws the simulation's: on a
 * multi-panel detector each panel's pixels from the frame's array, carried
 * as the view projects the simulated ones; NULL with @error when the panels
 * do not fit the frame. */
static GBytes *
measured_layer (BraggscopeWindow *self, int *width, int *height, GError **error)
{
  BraggscopeFrame *shown = braggscope_view_get_shown_frame (self->view);

  if (shown != NULL)
    return braggscope_measured_frame_lay_out (self->measured, shown, width, height, error);
  *width = braggscope_measured_frame_get_width (self->measured);
  *height = braggscope_measured_frame_get_height (self->measured);
  return braggscope_measured_frame_get_pixels (self->measured);
}

/* The measured frame as the view's reference layer, the difference scaled
 * (counts against photons); a view that compares nothing yet overlays it
 * (side by side, and says so, when the sizes differ).  On a multi-panel
 * detector it lies on the panels as the simulation does, with their
 * geometry's rings. */
static void
show_layer (BraggscopeWindow *self)
{
  g_autoptr (GBytes) pixels = NULL;
  g_autoptr (GError) error = NULL;
  GAction *mode = g_action_map_lookup_action (G_ACTION_MAP (self), "compare-mode");
  g_autoptr (GVariant) state = g_action_get_state (mode);
  int width, height;

  g_free (self->measured_layout);
  self->measured_layout = layout_key (self);
  self->measured_on_panels = self->measured_layout[0] != '\0';
  if ((pixels = measured_layer (self, &width, &height, &error)) == NULL)
    {
      /* shown as it is, beside the simulation, and why */
      self->callbacks.show_message (self, error->message, TRUE);
      g_clear_error (&error);
      self->measured_on_panels = FALSE;
      width = braggscope_measured_frame_get_width (self->measured);
      height = braggscope_measured_frame_get_height (self->measured);
      pixels = braggscope_measured_frame_get_pixels (self->measured);
    }
  if (!braggscope_view_set_reference (self->view, pixels, width, height, measured_label (), &error))
    {
      self->callbacks.show_message (self, error->message, TRUE);
      return;
    }
  if (layer_on_panels (self))
    braggscope_view_set_reference_geometry (
        self->view, braggscope_frame_get_geometry (braggscope_view_get_shown_frame (self->view)));
  {
    g_autofree char *name =
        g_path_get_basename (braggscope_measured_frame_get_path (self->measured));
    /* Translators: the caption over the measured frame when compared: its file name */
    g_autofree char *caption = g_strdup_printf (_ ("measured: %s"), name);

    braggscope_view_set_reference_caption (self->view, caption);
  }
  g_object_set (self->view, "reference-scale", TRUE, NULL);
  if (g_strcmp0 (g_variant_get_string (state, NULL), "none") == 0)
    g_action_change_state (mode, g_variant_new_string ("overlay"));
}

/* A new frame on other panels (the frame's modules adopted, another
 * detector file): the measured layer follows them. */
static void
on_view_frame (BraggscopeWindow *self)
{
  g_autofree char *key = NULL;

  if (self->measured == NULL || !layer_is_measured (self))
    return;
  key = layout_key (self);
  if (self->measured_layout != NULL && strcmp (key, self->measured_layout) != 0)
    show_layer (self);
}

/* ---- the measured layer's own contrast ---- */

/* The group of the measured layer's window, shown while there is a frame. */
static void
update_contrast_group (BraggscopeWindow *self)
{
  if (self->measured_group != NULL)
    gtk_widget_set_visible (self->measured_group, self->measured != NULL);
}

static GtkSpinButton *
contrast_spin (GtkGrid *grid, int row, const char *label, const char *name, const char *tooltip)
{
  GtkWidget *title = gtk_label_new_with_mnemonic (label);
  GtkWidget *spin = gtk_spin_button_new_with_range (-1e6, 1e9, 1.0);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), 1);
  gtk_widget_set_name (spin, name);
  gtk_widget_set_tooltip_text (spin, tooltip);
  gtk_widget_set_hexpand (spin, TRUE);
  gtk_label_set_mnemonic_widget (GTK_LABEL (title), spin);
  gtk_label_set_xalign (GTK_LABEL (title), 0.0f);
  gtk_grid_attach (grid, title, 0, row, 1, 1);
  gtk_grid_attach (grid, spin, 1, row, 1, 1);
  return GTK_SPIN_BUTTON (spin);
}

/* The measured layer's window, apart from the simulation's: low-count frames
 * need their own (the view's reference-min, -max and -auto-window). */
static GtkWidget *
contrast_group (BraggscopeWindow *self)
{
  GtkWidget *expander = gtk_expander_new (_ ("Measured frame contrast"));
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());

  gtk_widget_set_name (expander, "measured-contrast-group");
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  gtk_grid_set_row_spacing (grid, 6);
  gtk_grid_set_column_spacing (grid, 12);
  gtk_widget_set_margin_start (GTK_WIDGET (grid), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (grid), 6);
  self->measured_auto_check =
      GTK_CHECK_BUTTON (gtk_check_button_new_with_mnemonic (_ ("_Automatic window")));
  gtk_widget_set_name (GTK_WIDGET (self->measured_auto_check), "measured-auto-window-check");
  gtk_widget_set_tooltip_text (
      GTK_WIDGET (self->measured_auto_check),
      _ ("From the frame's counts: its 1st and 99.5th percentiles, the top at least ten times "
         "the background's photon noise above it, so that single photons stay light"));
  gtk_grid_attach (grid, GTK_WIDGET (self->measured_auto_check), 0, 0, 2, 1);
  self->measured_low_spin =
      contrast_spin (grid, 1, _ ("Window _low (counts)"), "measured-low-spin",
                     _ ("Counts shown in the first colour of the colour map"));
  self->measured_high_spin =
      contrast_spin (grid, 2, _ ("Window _high (counts)"), "measured-high-spin",
                     _ ("Counts shown in the last colour of the colour map"));
  gtk_expander_set_child (GTK_EXPANDER (expander), GTK_WIDGET (grid));
  gtk_widget_set_visible (expander, FALSE);
  return expander;
}

/* The bindings are held: one whose view is gone has released itself, and
 * unbinding it again is harmless while it is held. */
static void
unbind_contrast (BraggscopeWindow *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->measured_bindings); i++)
    if (self->measured_bindings[i] != NULL)
      {
        g_binding_unbind (self->measured_bindings[i]);
        g_clear_object (&self->measured_bindings[i]);
      }
}

/* The group follows the window's view (a new one with each simulation). */
static void
bind_contrast (BraggscopeWindow *self)
{
  const GBindingFlags flags = G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE;

  unbind_contrast (self);
  if (self->view == NULL || self->measured_group == NULL)
    return;
  self->measured_bindings[0] = g_object_ref (g_object_bind_property (
      self->view, "reference-auto-window", self->measured_auto_check, "active", flags));
  self->measured_bindings[1] = g_object_ref (g_object_bind_property (
      self->view, "reference-min", gtk_spin_button_get_adjustment (self->measured_low_spin),
      "value", flags));
  self->measured_bindings[2] = g_object_ref (g_object_bind_property (
      self->view, "reference-max", gtk_spin_button_get_adjustment (self->measured_high_spin),
      "value", flags));
}

static void
set_measured (BraggscopeWindow *self, BraggscopeMeasuredFrame *frame)
{
  if (frame == NULL && layer_is_measured (self))
    braggscope_view_clear_reference (self->view);
  if (frame == NULL)
    {
      g_clear_pointer (&self->measured_layout, g_free);
      self->measured_on_panels = FALSE;
    }
  g_set_object (&self->measured, frame);
  braggscope_simulation_set_measured_frame (self->sim, frame);
  if (frame != NULL)
    show_layer (self);
  update_actions (self);
  update_score (self);
  update_counts (self);
  update_contrast_group (self);
}

static void
adopt (BraggscopeWindow *self)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *base = NULL;

  if (self->measured == NULL)
    return;
  if (!braggscope_simulation_adopt_geometry (self->sim, self->measured, &error))
    {
      self->callbacks.show_message (self, error->message, TRUE);
      return;
    }
  base = g_path_get_basename (braggscope_measured_frame_get_path (self->measured));
  if (braggscope_measured_frame_get_n_panels (self->measured) > 1)
    /* Translators: the frame's file, then the number of its detector modules */
    text = g_strdup_printf (_ ("Adopted the detector geometry of %s: its %d modules are the "
                               "simulation's panels"),
                            base, braggscope_measured_frame_get_n_panels (self->measured));
  else
    text = g_strdup_printf (_ ("Adopted the detector geometry of %s"), base);
  self->callbacks.show_message (self, text, FALSE);
}

static void
on_adopt_response (GtkDialog *dialog, int response, gpointer data)
{
  BraggscopeWindow *self = (BraggscopeWindow *) gtk_window_get_transient_for (GTK_WINDOW (dialog));

  if (response == GTK_RESPONSE_ACCEPT)
    adopt (self);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* Asks whether the simulation should take the frame's geometry: the header
 * (report) says what would change. */
static void
offer_adoption (BraggscopeWindow *self)
{
  g_autofree char *report = braggscope_measured_frame_get_report (self->measured);
  g_autofree char *base = g_path_get_basename (braggscope_measured_frame_get_path (self->measured));
  GtkWidget *dialog;

  dialog = gtk_message_dialog_new (
      GTK_WINDOW (self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT, GTK_MESSAGE_QUESTION,
      GTK_BUTTONS_NONE, _ ("Adopt the detector geometry of %s?"), base);
  gtk_widget_set_name (dialog, "adopt-geometry-dialog");
  gtk_message_dialog_format_secondary_text (
      GTK_MESSAGE_DIALOG (dialog), "%s\n\n%s",
      _ ("The wavelength, distance, beam centre, pixel size and count, start angle and "
         "oscillation of the simulation become those of the frame's header (below, in "
         "English, with where each came from); the crystal stays as it is."),
      report);
  gtk_dialog_add_buttons (GTK_DIALOG (dialog), _ ("_Keep the Current Geometry"),
                          GTK_RESPONSE_REJECT, _ ("_Adopt"), GTK_RESPONSE_ACCEPT, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  g_signal_connect (dialog, "response", G_CALLBACK (on_adopt_response), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_measured_loaded (GObject *source, GAsyncResult *result, gpointer data)
{
  BraggscopeWindow *self = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeMeasuredFrame) frame =
      braggscope_measured_frame_load_finish (result, &error);
  g_autofree char *base = NULL;
  g_autofree char *text = NULL;

  /* the window was closed meanwhile: its cancellable, which the load took, says so even
   * when the frame was read before it */
  if (g_cancellable_is_cancelled (self->cancellable))
    {
      g_object_unref (self);
      return;
    }
  if (frame == NULL)
    {
      self->callbacks.show_message (self, error->message, TRUE);
      g_object_unref (self);
      return;
    }
  set_measured (self, frame);
  if (braggscope_measured_frame_get_detector_problem (frame) != NULL)
    {
      /* its geometry would be wrong: shown as a layer, neither adopted nor fitted */
      self->callbacks.show_message (self, braggscope_measured_frame_get_detector_problem (frame),
                                    TRUE);
      g_object_unref (self);
      return;
    }
  base = g_path_get_basename (braggscope_measured_frame_get_path (frame));
  /* Translators: the file, its format (SMV, miniCBF, CBF, NeXus) and size. */
  text = g_strdup_printf (_ ("Measured frame %s: %s, %d × %d pixels"), base,
                          braggscope_measured_frame_get_format (frame),
                          braggscope_measured_frame_get_width (frame),
                          braggscope_measured_frame_get_height (frame));
  self->callbacks.show_message (self, text, FALSE);
  offer_adoption (self);
  g_object_unref (self);
}

static void
open_measured_file_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;
  const char *path = g_variant_get_string (parameter, NULL);
  g_autofree char *text = g_strdup_printf (_ ("Opening the measured frame %s…"), path);

  self->callbacks.show_message (self, text, FALSE);
  braggscope_measured_frame_load_async (path, 0, self->cancellable, on_measured_loaded,
                                        g_object_ref (self));
}

static void
open_measured_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  /* the readers choose by the file's first bytes: the filter only helps to find them */
  static const char *const patterns[] = { "*.img", "*.smv", "*.cbf", "*.h5", "*.nxs",
                                          "*.IMG", "*.CBF", "*.H5",  NULL };

  _braggscope_window_choose_file (
      user_data, GTK_FILE_CHOOSER_ACTION_OPEN, _ ("Open Measured Frame"), _ ("_Open"), NULL,
      _ ("Detector frames (SMV, CBF, NeXus/HDF5)"), patterns, "open-measured-file");
}

static void
adopt_geometry_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  adopt (user_data);
}

static void
close_measured_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;

  set_measured (self, NULL);
  self->callbacks.show_message (self, _ ("Closed the measured frame"), FALSE);
}

/* ---- fits ---- */

static void
on_fit_progress (BraggscopeSimulation *sim,
                 double fraction,
                 const char *stage,
                 double score,
                 BraggscopeWindow *self)
{
  gtk_progress_bar_set_fraction (self->fit_progress, fraction);
}

static void
on_fit_done (GObject *source, GAsyncResult *result, gpointer data)
{
  BraggscopeWindow *self = data;
  BraggscopeSimulation *sim = BRAGGSCOPE_SIMULATION (source);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  gboolean search =
      g_task_get_source_tag (G_TASK (result)) == braggscope_simulation_search_orientation_async;
  gboolean ok = search ? braggscope_simulation_search_orientation_finish (sim, result, &error)
                       : braggscope_simulation_refine_finish (sim, result, &error);

  /* a fit of a simulation the window no longer shows (reset-scene) says nothing */
  if (sim == self->sim)
    {
      g_clear_object (&self->fit_cancellable);
      gtk_widget_set_visible (GTK_WIDGET (self->fit_progress), FALSE);
      update_actions (self);
      if (g_error_matches (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_CANCELLED))
        self->callbacks.show_message (self, _ ("Fit cancelled: the parameters are unchanged"),
                                      FALSE);
      else if (!ok)
        self->callbacks.show_message (self, error->message, TRUE);
      else
        {
          double x, y, z, shift[3], turn[3];

          g_object_get (sim, "misset-x", &x, "misset-y", &y, "misset-z", &z, NULL);
          if (self->fit_moves_detector &&
              braggscope_simulation_get_detector_motion (sim, shift, turn))
            /* Translators: a multi-panel detector refined as one body: how far it now is from
             * where its geometry file puts it (mm, lab x y z), its turn (a rotation vector,
             * degrees), and the misset angles (degrees). */
            text =
                g_strdup_printf (_ ("Detector refined as a whole: moved %.3f %.3f %.3f mm, "
                                    "turned %.3f %.3f %.3f° from its file; misset %.3f %.3f "
                                    "%.3f°"),
                                 shift[0], shift[1], shift[2], turn[0], turn[1], turn[2], x, y, z);
          else
            /* Translators: the misset angles the fit found (degrees). */
            text = g_strdup_printf (search ? _ ("Orientation found: misset %.3f %.3f %.3f°")
                                           : _ ("Orientation refined: misset %.3f %.3f %.3f°"),
                                    x, y, z);
          self->callbacks.show_message (self, text, FALSE);
        }
    }
  g_object_unref (self);
}

static void
start_fit (BraggscopeWindow *self, gboolean search, BraggscopeFitFlags flags)
{
  if (self->measured == NULL || self->fit_cancellable != NULL)
    return;
  self->fit_cancellable = g_cancellable_new ();
  self->fit_moves_detector = flags != BRAGGSCOPE_FIT_ORIENTATION;
  gtk_progress_bar_set_fraction (self->fit_progress, 0.0);
  gtk_widget_set_visible (GTK_WIDGET (self->fit_progress), TRUE);
  update_actions (self);
  self->callbacks.show_message (
      self,
      search ? _ ("Searching for the orientation that explains the measured peaks…")
             : _ ("Refining the orientation against the measured peaks…"),
      FALSE);
  if (search)
    braggscope_simulation_search_orientation_async (self->sim, flags, self->fit_cancellable,
                                                    on_fit_done, g_object_ref (self));
  else
    braggscope_simulation_refine_async (self->sim, flags, self->fit_cancellable, on_fit_done,
                                        g_object_ref (self));
}

static void
refine_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  start_fit (user_data, FALSE, BRAGGSCOPE_FIT_ORIENTATION);
}

static void
refine_detector_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  start_fit (user_data, FALSE, BRAGGSCOPE_FIT_DISTANCE | BRAGGSCOPE_FIT_BEAM_CENTER);
}

static void
search_orientation_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  start_fit (user_data, TRUE, BRAGGSCOPE_FIT_ORIENTATION);
}

static void
cancel_fit_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  BraggscopeWindow *self = user_data;

  if (self->fit_cancellable != NULL)
    g_cancellable_cancel (self->fit_cancellable);
}

static const GActionEntry measured_entries[] = {
  { "open-measured", open_measured_activated, NULL, NULL, NULL, { 0 } },
  { "open-measured-file", open_measured_file_activated, "s", NULL, NULL, { 0 } },
  { "adopt-geometry", adopt_geometry_activated, NULL, NULL, NULL, { 0 } },
  { "close-measured", close_measured_activated, NULL, NULL, NULL, { 0 } },
  { "refine", refine_activated, NULL, NULL, NULL, { 0 } },
  { "refine-detector", refine_detector_activated, NULL, NULL, NULL, { 0 } },
  { "search-orientation", search_orientation_activated, NULL, NULL, NULL, { 0 } },
  { "cancel-fit", cancel_fit_activated, NULL, NULL, NULL, { 0 } },
};

/* A label of the status line, before the message. */
static GtkLabel *
status_label (BraggscopeWindow *self, const char *name, GtkWidget *after)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_widget_set_name (label, name);
  gtk_widget_set_visible (label, FALSE);
  gtk_widget_add_css_class (label, "numeric");
  gtk_box_insert_child_after (GTK_BOX (gtk_widget_get_parent (after)), label, after);
  return GTK_LABEL (label);
}

void
_braggscope_window_init_measured (BraggscopeWindow *self)
{
  GtkWidget *after = GTK_WIDGET (self->frame_details_button);

  g_action_map_add_action_entries (G_ACTION_MAP (self), measured_entries,
                                   G_N_ELEMENTS (measured_entries), self);
  self->score_label = status_label (self, "match-score-label", after);
  self->counts_label = status_label (self, "measured-counts-label", GTK_WIDGET (self->score_label));
  self->fit_progress = GTK_PROGRESS_BAR (gtk_progress_bar_new ());
  gtk_widget_set_name (GTK_WIDGET (self->fit_progress), "fit-progress");
  gtk_widget_set_valign (GTK_WIDGET (self->fit_progress), GTK_ALIGN_CENTER);
  gtk_widget_set_visible (GTK_WIDGET (self->fit_progress), FALSE);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->fit_progress),
                               _ ("Fitting the crystal to the measured peaks (Escape cancels)"));
  gtk_box_insert_child_after (GTK_BOX (gtk_widget_get_parent (after)),
                              GTK_WIDGET (self->fit_progress), GTK_WIDGET (self->counts_label));
  self->measured_group = contrast_group (self);
  gtk_box_append (self->sidebar_box, self->measured_group);
  update_actions (self);
}

void
_braggscope_window_measured_set_simulation (BraggscopeWindow *self)
{
  /* a fit of the previous simulation ends on its own; its result is not shown */
  if (self->fit_cancellable != NULL)
    {
      g_cancellable_cancel (self->fit_cancellable);
      g_clear_object (&self->fit_cancellable);
      gtk_widget_set_visible (GTK_WIDGET (self->fit_progress), FALSE);
    }
  g_signal_connect_swapped (self->sim, "notify::match-fraction", G_CALLBACK (update_score), self);
  g_signal_connect_swapped (self->sim, "notify::match-correlation", G_CALLBACK (update_score),
                            self);
  g_signal_connect_swapped (self->sim, "notify::match-significant", G_CALLBACK (update_score),
                            self);
  g_signal_connect_swapped (self->sim, "notify::structure-factors-note",
                            G_CALLBACK (on_structure_factors_note), self);
  g_signal_connect_swapped (self->sim, "notify::hkl-cell-warning", G_CALLBACK (on_hkl_cell_warning),
                            self);
  g_signal_connect (self->sim, "fit-progress", G_CALLBACK (on_fit_progress), self);
  g_signal_connect_object (self->view, "readout-changed", G_CALLBACK (on_readout_changed), self, 0);
  g_signal_connect_object (self->view, "notify::frame", G_CALLBACK (on_view_frame), self,
                           G_CONNECT_SWAPPED);
  braggscope_simulation_set_measured_frame (self->sim, self->measured);
  if (self->measured != NULL)
    show_layer (self);
  bind_contrast (self);
  update_contrast_group (self);
  update_actions (self);
  update_score (self);
}

void
_braggscope_window_measured_dispose (BraggscopeWindow *self)
{
  if (self->fit_cancellable != NULL)
    g_cancellable_cancel (self->fit_cancellable);
  g_clear_object (&self->fit_cancellable);
  g_clear_object (&self->measured);
  g_clear_pointer (&self->measured_layout, g_free);
  unbind_contrast (self);
}
