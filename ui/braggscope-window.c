/* braggscope-window.c: the main window: layout from braggscope-window.ui,
 * the display group bound to the view and to the settings, the status line.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-window-private.h"
#include "braggscope-progress.h"

#include <glib/gi18n.h>
#include <math.h>

G_DEFINE_FINAL_TYPE (BraggscopeWindow, braggscope_window, GTK_TYPE_APPLICATION_WINDOW)

enum
{
  PROP_0,
  PROP_SIMULATION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* A message speaks of the parameters it was shown with: the frame of a later
 * change ends it.  The change a message answers may be applied in the same
 * turn of the main loop as it is shown (a clamped number), so the change it
 * follows is read again once that turn is over. */
static gboolean
remember_message_change_idle (gpointer data)
{
  BraggscopeWindow *self = data;

  self->message_idle = 0;
  if (self->sim != NULL)
    self->message_sequence = braggscope_simulation_get_sequence (self->sim);
  return G_SOURCE_REMOVE;
}

static void
remember_message_change (BraggscopeWindow *self)
{
  if (self->sim != NULL)
    self->message_sequence = braggscope_simulation_get_sequence (self->sim);
  if (self->message_idle == 0)
    self->message_idle = g_idle_add (remember_message_change_idle, self);
}

static void
end_old_message (BraggscopeWindow *self, BraggscopeFrame *frame)
{
  if (self->message_idle == 0 && braggscope_frame_get_sequence (frame) > self->message_sequence &&
      *gtk_label_get_text (self->message_label) != '\0')
    braggscope_window_show_message (self, NULL, FALSE);
}

/* A status label cut short shows its whole text in its tooltip, above what
 * the tooltip says of it. */
static gboolean
on_status_query_tooltip (
    GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip, gpointer data)
{
  const char *text = gtk_label_get_text (GTK_LABEL (widget));
  const char *about = gtk_widget_get_tooltip_text (widget);
  g_autofree char *both = NULL;

  if (!pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (widget))) ||
      g_strcmp0 (text, about) == 0)
    {
      if (about == NULL)
        return FALSE;
      gtk_tooltip_set_text (tooltip, about);
      return TRUE;
    }
  both = about != NULL ? g_strdup_printf ("%s\n\n%s", text, about) : g_strdup (text);
  gtk_tooltip_set_text (tooltip, both);
  return TRUE;
}

/* The most characters a label of the status line asks room for. */
#define STATUS_LABEL_CHARS 30

/* Every label of the status line gives way when the window is narrow: cut
 * short (whole in its tooltip) rather than widening the window. */
static void
fit_status_line (BraggscopeWindow *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->status_box)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!GTK_IS_LABEL (child))
        continue;
      if (gtk_label_get_ellipsize (GTK_LABEL (child)) == PANGO_ELLIPSIZE_NONE)
        gtk_label_set_ellipsize (GTK_LABEL (child), PANGO_ELLIPSIZE_END);
      /* the window's natural width stays that of a screen */
      if (gtk_label_get_max_width_chars (GTK_LABEL (child)) < 0)
        gtk_label_set_max_width_chars (GTK_LABEL (child), STATUS_LABEL_CHARS);
      gtk_widget_set_has_tooltip (child, TRUE);
      g_signal_connect (child, "query-tooltip", G_CALLBACK (on_status_query_tooltip), NULL);
    }
}

/* ---- the status line ---- */

static void
show_message (BraggscopeWindow *self, const char *text, gboolean is_error)
{
  gtk_label_set_text (self->message_label, text != NULL ? text : "");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->message_label), text);
  remember_message_change (self);
  if (is_error)
    gtk_widget_add_css_class (GTK_WIDGET (self->message_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->message_label), "error");
}

void
braggscope_window_show_message (BraggscopeWindow *self, const char *text, gboolean is_error)
{
  g_return_if_fail (BRAGGSCOPE_IS_WINDOW (self));

  show_message (self, text, is_error);
}

const char *
braggscope_window_get_message (BraggscopeWindow *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_WINDOW (self), NULL);

  return gtk_label_get_text (self->message_label);
}

/* Automatic oversampling above this many sub-pixels per axis is said in the
 * status line: it is what makes a frame slow without any slider saying so
 * (a wavelength of 0.2 Å asks for 11 x 11 samples per pixel in the default
 * scene, 13 times the work at 1 Å).  The default scene's own 3 x 3 at 1 Å is the
 * normal cost of a frame and not worth a word; from 5 x 5 (2.8 times that work) it is. */
#define OVERSAMPLE_NOTE_ABOVE 4

/* Says why a full frame may be slow: oversampling nobody asked for. */
static void
show_oversample_note (BraggscopeWindow *self, BraggscopeFrame *frame)
{
  int n = braggscope_frame_get_oversample (frame);
  g_autofree char *text = NULL;

  /* adaptive integration spends the oversampling only near the spots */
  if (!braggscope_frame_get_oversample_auto (frame) || n <= OVERSAMPLE_NOTE_ABOVE ||
      braggscope_frame_get_integration (frame) == BRAGGSCOPE_INTEGRATION_ADAPTIVE)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->oversample_label), FALSE);
      return;
    }
  /* Translators: nanoBragg's "auto-selected 11-fold oversampling"; the second
   * number is the samples per pixel (11 x 11), which the frame costs. */
  text = g_strdup_printf (_ ("Auto-selected %d-fold oversampling: %d samples per pixel (set "
                             "Oversample to override)"),
                          n, n * n);
  gtk_label_set_text (self->oversample_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->oversample_label), TRUE);
}

/* Says how the full frame integrated its pixels and what it spent: the
 * method and the sub-pixel samples per pixel in the status line, with the
 * tolerance in the details popover. */
static void
show_integration (BraggscopeWindow *self, BraggscopeFrame *frame)
{
  gboolean adaptive = braggscope_frame_get_integration (frame) == BRAGGSCOPE_INTEGRATION_ADAPTIVE;
  double samples = braggscope_frame_get_samples_per_pixel (frame);
  double tolerance = 0.0;
  g_autofree char *text = NULL;
  g_autofree char *details = NULL;

  g_object_get (braggscope_window_get_simulation (self), "tolerance", &tolerance, NULL);
  /* Translators: the status line after a full frame: how its pixels were
   * integrated (adaptive or exact), then the sub-pixel samples it spent per
   * pixel, e.g. "adaptive, 1.3 samples/pixel" */
  text = g_strdup_printf (_ ("%s, %.3g samples/pixel"),
                          adaptive ? C_ ("integration", "adaptive") : C_ ("integration", "exact"),
                          samples);
  if (adaptive)
    /* Translators: in the details popover; the tolerance is a fraction of the
     * frame's brightest pixel */
    details = g_strdup_printf (_ ("Integration: adaptive, within %g of the brightest pixel; "
                                  "%.3g sub-pixel samples per pixel"),
                               tolerance, samples);
  else
    details = g_strdup_printf (_ ("Integration: exact (nanoBragg's), %.3g sub-pixel samples "
                                  "in every pixel"),
                               samples);
  gtk_label_set_text (self->integration_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->integration_label), samples > 0.0);
  gtk_label_set_text (self->integration_details_label, details);
}

static void
show_frame_status (BraggscopeWindow *self, BraggscopeFrame *frame)
{
  g_autofree char *time = NULL;
  g_autofree char *cache = NULL;
  g_autofree char *backend = NULL;
  g_autofree char *tooltip = NULL;

  if (frame == NULL)
    return;

  gtk_label_set_text (self->frame_kind_label, braggscope_frame_get_is_preview (frame)
                                                  ? C_ ("frame", "Preview")
                                                  : C_ ("frame", "Full frame"));
  /* Translators: the first number is the time from a parameter change to the
   * frame on screen, the second the part spent simulating it. */
  time = g_strdup_printf (_ ("%.1f ms (simulation %.1f ms)"), braggscope_frame_get_total_ms (frame),
                          braggscope_frame_get_execute_ms (frame));
  gtk_label_set_text (self->frame_time_label, time);
  backend = g_strdup_printf (_ ("Backend: %s"), braggscope_frame_get_backend (frame));
  gtk_label_set_text (self->backend_label, backend);
  /* Translators: in the details popover, the plan cache's hits and rebuilds in plain words:
   * stages of the simulation plan kept from the frame before, then those
   * computed again for this frame */
  cache = g_strdup_printf (_ ("Parts of the simulation kept from the frame before: %d; "
                              "computed again: %d"),
                           braggscope_frame_get_cache_hits (frame),
                           braggscope_frame_get_cache_rebuilds (frame));
  gtk_label_set_text (self->cache_label, cache);
  tooltip =
      g_strdup_printf (_ ("Frame %llu, %d × %d pixels, brightest pixel %.4g photons"),
                       (unsigned long long) braggscope_frame_get_sequence (frame),
                       braggscope_frame_get_width (frame), braggscope_frame_get_height (frame),
                       braggscope_frame_get_max_value (frame));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->frame_kind_label), tooltip);
  /* a preview samples one pixel per block: its cost says little */
  if (!braggscope_frame_get_is_preview (frame))
    {
      show_integration (self, frame);
      show_oversample_note (self, frame);
      _braggscope_window_show_domains (self, frame);
    }
}

/* ---- a slow full frame ---- */

static void
hide_render_progress (BraggscopeWindow *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->render_estimate_label), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->render_progress_bar), FALSE);
  self->render_progress_shown = FALSE;
}

/* A full frame expected to take more than a moment says so at once (its
 * time and what makes it slow), then shows how far it is; a frame that is
 * not slow, the frame delivered or an error end it. */
static void
on_render_progress (BraggscopeSimulation *sim,
                    BraggscopeRenderProgress *progress,
                    BraggscopeWindow *self)
{
  g_autofree char *text = NULL;

  gboolean same =
      self->render_progress_shown && progress->sequence == self->render_progress_sequence;

  if (!braggscope_progress_is_slow (progress) || progress->fraction >= 1.0)
    {
      if (!same || progress->fraction >= 1.0)
        hide_render_progress (self);
      return;
    }
  if (!same)
    {
      g_autofree char *cost = braggscope_progress_describe_cost (progress);

      gtk_label_set_text (self->render_estimate_label, cost);
      gtk_widget_set_visible (GTK_WIDGET (self->render_estimate_label), TRUE);
      gtk_widget_set_visible (GTK_WIDGET (self->render_progress_bar), TRUE);
      self->render_progress_sequence = progress->sequence;
      self->render_progress_shown = TRUE;
    }
  text = braggscope_progress_describe (progress);
  gtk_progress_bar_set_fraction (self->render_progress_bar, progress->fraction);
  gtk_progress_bar_set_text (self->render_progress_bar, text);
}

static void
on_frame_ready (BraggscopeSimulation *sim, BraggscopeFrame *frame, BraggscopeWindow *self)
{
  if (!braggscope_frame_get_is_preview (frame))
    hide_render_progress (self);
  end_old_message (self, frame);
  show_frame_status (self, frame);
  _braggscope_window_run_pending (self, NULL);
  _braggscope_window_export_frame (self, NULL);
}

/* A number typed outside a control's range was clamped: say so. */
static void
on_value_clamped (BraggscopeControls *controls,
                  const char *property,
                  double requested,
                  double applied,
                  const char *message,
                  BraggscopeWindow *self)
{
  braggscope_window_show_message (self, message, FALSE);
}

static void
on_simulation_error (BraggscopeSimulation *sim, GError *error, BraggscopeWindow *self)
{
  hide_render_progress (self);
  braggscope_window_show_message (self, error->message, TRUE);
  _braggscope_window_run_pending (self, error);
  _braggscope_window_export_frame (self, error);
}

/* The structure factors of the default scene: whatever the scene, they are
 * HIV-1 protease's. */
#define DEFAULT_SCENE_HKL "1hpv_p1.hkl"

static void
update_subtitle (BraggscopeWindow *self)
{
  g_autofree char *file = NULL;
  g_autofree char *base = NULL;
  g_autofree char *text = NULL;
  double lambda = 0.0;
  double default_f = 0.0;

  g_object_get (self->sim, "structure-factors", &file, "wavelength", &lambda, "default-f",
                &default_f, NULL);
  /* the scene's title: the lesson's, the structure's, else the file's name */
  if (self->lesson_id != NULL)
    base = g_strdup (gtk_label_get_text (self->lesson_title));
  else if (file != NULL && *file != '\0')
    {
      g_autofree char *name = g_path_get_basename (file);

      base = g_strcmp0 (name, DEFAULT_SCENE_HKL) == 0 ? g_strdup (_ ("HIV-1 protease (PDB 1HPV)"))
                                                      /* a label is UTF-8; a file name may not be */
                                                      : g_filename_display_basename (file);
    }
  else
    base = g_strdup_printf (_ ("F = %g everywhere"), default_f);
  /* Translators: the scene (a lesson's title, the structure or a file name), then the
   * wavelength. */
  text = g_strdup_printf (_ ("%s · λ %.4g Å"), base, lambda);
  gtk_label_set_text (self->subtitle_label, text);
}

/* ---- the display: the view's settings are kept in GSettings ---- */

static void
bind_display (BraggscopeWindow *self)
{
  /* A locked key must not make the whole view insensitive. */
  const GSettingsBindFlags flags = G_SETTINGS_BIND_DEFAULT | G_SETTINGS_BIND_NO_SENSITIVITY;
  GObject *view = G_OBJECT (self->view);

  if (self->settings == NULL)
    return;
  g_settings_bind (self->settings, "colormap", view, "colormap", flags);
  g_settings_bind (self->settings, "scale", view, "scale", flags);
  g_settings_bind (self->settings, "gamma", view, "gamma", flags);
  g_settings_bind (self->settings, "auto-contrast", view, "auto-contrast", flags);
  g_settings_bind (self->settings, "show-rings", view, "show-rings", flags);
  g_settings_bind (self->settings, "show-beam-center", view, "show-beam-center", flags);
}

static void
set_simulation (BraggscopeWindow *self, BraggscopeSimulation *sim)
{
  g_return_if_fail (BRAGGSCOPE_IS_SIMULATION (sim));

  if (self->sim != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->sim, self);
      g_clear_pointer (&self->busy_binding, g_binding_unbind);
      gtk_paned_set_start_child (GTK_PANED (self->views_paned), NULL);
      gtk_paned_set_end_child (GTK_PANED (self->views_paned), NULL);
      gtk_box_remove (self->controls_slot, self->controls);
      self->view = NULL;
      self->reciprocal = NULL;
      self->controls = NULL;
      g_clear_object (&self->sim);
    }

  self->sim = g_object_ref (sim);
  /* full frames draw a large mosaic spread as arcs, previews stay fast */
  g_object_set (sim, "max-arc-domains", BRAGGSCOPE_VIEWER_ARC_DOMAINS, NULL);
  self->view = BRAGGSCOPE_VIEW (braggscope_view_new (sim));
  gtk_widget_set_hexpand (GTK_WIDGET (self->view), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self->view), TRUE);
  _braggscope_window_place_views (self);
  _braggscope_window_connect_compare (self);
  self->controls = braggscope_controls_new_with_view (sim, self->view);
  gtk_box_append (self->controls_slot, self->controls);
  g_signal_connect (self->controls, "value-clamped", G_CALLBACK (on_value_clamped), self);

  bind_display (self);
  braggscope_readout_set_view (self->readout, self->view);

  /* Connected after the view's own handler, so the view holds the frame when
   * the pending snapshots run. */
  g_signal_connect (sim, "frame-ready", G_CALLBACK (on_frame_ready), self);
  g_signal_connect (sim, "error", G_CALLBACK (on_simulation_error), self);
  g_signal_connect (sim, "render-progress", G_CALLBACK (on_render_progress), self);
  hide_render_progress (self);
  g_signal_connect_swapped (sim, "notify::structure-factors", G_CALLBACK (update_subtitle), self);
  g_signal_connect_swapped (sim, "notify::wavelength", G_CALLBACK (update_subtitle), self);
  g_signal_connect_swapped (sim, "notify::default-f", G_CALLBACK (update_subtitle), self);
  self->busy_binding =
      g_object_bind_property (sim, "busy", self->busy_spinner, "spinning", G_BINDING_SYNC_CREATE);

  _braggscope_window_measured_set_simulation (self);
  /* a message of the scene before stays until this one changes */
  remember_message_change (self);
  update_subtitle (self);
  show_frame_status (self, braggscope_simulation_get_last_frame (sim));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SIMULATION]);
}

/* ---- window state ---- */

static void
restore_window_state (BraggscopeWindow *self)
{
  if (self->settings == NULL)
    return;
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
}

static gboolean
all_utf8 (const char *const *strv)
{
  for (; *strv != NULL; strv++)
    if (!g_utf8_validate (*strv, -1, NULL))
      return FALSE;
  return TRUE;
}

static void
save_window_state (BraggscopeWindow *self)
{
  g_auto (GStrv) args = NULL;
  int width = 0, height = 0;

  if (self->settings == NULL)
    return;

  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);
  g_settings_delay (self->settings);
  if (width > 0 && height > 0)
    {
      g_settings_set_int (self->settings, "window-width", MAX (width, 320));
      g_settings_set_int (self->settings, "window-height", MAX (height, 240));
    }
  g_settings_set_boolean (self->settings, "window-maximized",
                          gtk_window_is_maximized (GTK_WINDOW (self)));
  /* The scene without the program name that to_args() puts first (and
   * without flags naming files to write, which to_args() leaves out).  A
   * settings string is UTF-8: a scene naming a file whose name is not is
   * not kept, and the last one stays. */
  args = braggscope_simulation_to_args (self->sim);
  if (args != NULL && args[0] != NULL && all_utf8 ((const char *const *) args))
    g_settings_set_strv (self->settings, "last-scene", (const char *const *) args + 1);
  g_settings_apply (self->settings);
}

static gboolean
braggscope_window_close_request (GtkWindow *window)
{
  save_window_state (BRAGGSCOPE_WINDOW (window));
  return GTK_WINDOW_CLASS (braggscope_window_parent_class)->close_request (window);
}

/* ---- GObject ---- */

BraggscopeSimulation *
braggscope_window_get_simulation (BraggscopeWindow *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_WINDOW (self), NULL);

  return self->sim;
}

BraggscopeView *
braggscope_window_get_view (BraggscopeWindow *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_WINDOW (self), NULL);

  return self->view;
}

BraggscopeReciprocalView *
braggscope_window_get_reciprocal_view (BraggscopeWindow *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_WINDOW (self), NULL);

  return self->reciprocal;
}

GtkWidget *
braggscope_window_get_controls (BraggscopeWindow *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_WINDOW (self), NULL);

  return self->controls;
}

static void
braggscope_window_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  BraggscopeWindow *self = BRAGGSCOPE_WINDOW (object);

  switch (prop_id)
    {
      case PROP_SIMULATION:
        g_value_set_object (value, self->sim);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
braggscope_window_dispose (GObject *object)
{
  BraggscopeWindow *self = BRAGGSCOPE_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->message_idle, g_source_remove);
  _braggscope_window_dispose_teaching (self);
  g_queue_clear_full (&self->pending, (GDestroyNotify) _braggscope_pending_free);
  if (self->sim != NULL)
    g_signal_handlers_disconnect_by_data (self->sim, self);
  g_clear_pointer (&self->busy_binding, g_binding_unbind);
  _braggscope_window_measured_dispose (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), BRAGGSCOPE_TYPE_WINDOW);
  self->view = NULL;
  self->reciprocal = NULL;
  self->controls = NULL;
  g_clear_object (&self->sim);
  g_clear_object (&self->settings);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (braggscope_window_parent_class)->dispose (object);
}

static void
braggscope_window_class_init (BraggscopeWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->get_property = braggscope_window_get_property;
  object_class->dispose = braggscope_window_dispose;
  /* the template builds one */
  g_type_ensure (BRAGGSCOPE_TYPE_READOUT);
  window_class->close_request = braggscope_window_close_request;

  /**
   * BraggscopeWindow:simulation:
   *
   * The simulation shown; win.reset-scene replaces it (and the view and
   * controls with it).
   */
  properties[PROP_SIMULATION] =
      g_param_spec_object ("simulation", NULL, NULL, BRAGGSCOPE_TYPE_SIMULATION,
                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (
      widget_class, "/io/github/braggscope/Braggscope/braggscope-window.ui");
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, paned);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, controls_slot);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, view_slot);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, readout);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, busy_spinner);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, frame_kind_label);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, frame_time_label);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, oversample_label);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, integration_label);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, integration_details_label);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, backend_label);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, cache_label);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, frame_details_button);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, message_label);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, status_box);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, render_estimate_label);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, render_progress_bar);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, sidebar_box);
  gtk_widget_class_bind_template_child (widget_class, BraggscopeWindow, primary_menu);
}

static void
braggscope_window_init (BraggscopeWindow *self)
{
  g_queue_init (&self->pending);
  self->cancellable = g_cancellable_new ();
  gtk_widget_init_template (GTK_WIDGET (self));
  self->callbacks.show_message = show_message;
  self->callbacks.set_simulation = set_simulation;
  self->callbacks.update_subtitle = update_subtitle;
  _braggscope_window_init_actions (self);
  _braggscope_window_init_teaching (self);
  _braggscope_window_init_compare (self);
  _braggscope_window_init_measured (self);
  fit_status_line (self);
}

gboolean
braggscope_window_open_lesson (BraggscopeWindow *self, const char *id, GError **error)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_WINDOW (self), FALSE);

  return _braggscope_window_open_lesson (self, id, error);
}

void
braggscope_window_export_rotation (BraggscopeWindow *self, gboolean gif, const char *path)
{
  g_return_if_fail (BRAGGSCOPE_IS_WINDOW (self));

  _braggscope_window_export_rotation (self, gif, path);
}

BraggscopeWindow *
braggscope_window_new (GtkApplication *app, BraggscopeSimulation *sim, GSettings *settings)
{
  BraggscopeWindow *self;

  g_return_val_if_fail (GTK_IS_APPLICATION (app), NULL);
  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (sim), NULL);
  g_return_val_if_fail (settings == NULL || G_IS_SETTINGS (settings), NULL);

  self = g_object_new (BRAGGSCOPE_TYPE_WINDOW, "application", app, NULL);
  if (settings != NULL)
    self->settings = g_object_ref (settings);
  restore_window_state (self);
  set_simulation (self, sim);
  return self;
}
