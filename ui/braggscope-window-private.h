/* braggscope-window-private.h: BraggscopeWindow's instance, shared by
 * braggscope-window.c (layout, bindings, status) and its parts:
 * braggscope-window-actions.c (files, clipboard, keyboard),
 * -teaching.c (lessons, playback, the reciprocal view, exports), -compare.c
 * (the Compare menu) and -measured.c (a measured frame and the fits to it).
 * The window calls its parts; a part asks the window for something only
 * through the callbacks it was given (BraggscopeWindowCallbacks), and
 * -teaching.c and -measured.c use -actions.c's file chooser.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include "braggscope-window.h"

G_BEGIN_DECLS

/* What a file action does once the full frame of the current parameters is shown. */
typedef enum
{
  BRAGGSCOPE_PENDING_SNAPSHOT,
  BRAGGSCOPE_PENDING_FLOAT,
  BRAGGSCOPE_PENDING_SMV,
} BraggscopePendingKind;

typedef struct
{
  BraggscopePendingKind kind;
  char *path;
} BraggscopePending;

typedef struct _BraggscopeExport BraggscopeExport;

/* What the window's parts (-actions.c, -teaching.c, -compare.c, -measured.c)
 * ask of it.  braggscope-window.c fills this in before it sets its parts up;
 * the parts call these and no function of braggscope-window.c, so calls go
 * one way: from the window to its parts. */
typedef struct
{
  /* @text in the status line (NULL clears it), styled as an error when @is_error. */
  void (*show_message) (BraggscopeWindow *self, const char *text, gboolean is_error);
  /* Shows @sim (a new reference is taken): its controls, views, bindings and
   * each part's own (a lesson's scene, the default scene). */
  void (*set_simulation) (BraggscopeWindow *self, BraggscopeSimulation *sim);
  /* The header's subtitle: the scene's title (the lesson's, "HIV-1 protease
   * (PDB 1HPV)" for the default scene's structure factors, else their file's
   * name) and the wavelength. */
  void (*update_subtitle) (BraggscopeWindow *self);
} BraggscopeWindowCallbacks;

/* The most mosaic domains a full frame of the viewer takes to draw smooth
 * arcs (BraggscopeSimulation:max-arc-domains): about 2 s a frame for 1HPV at
 * 1024^2 on two cores; previews keep the parameters' count. */
#define BRAGGSCOPE_VIEWER_ARC_DOMAINS 96

struct _BraggscopeWindow
{
  GtkApplicationWindow parent_instance;

  BraggscopeWindowCallbacks callbacks; /* set by braggscope-window.c for the parts */
  BraggscopeSimulation *sim;
  BraggscopeView *view;
  GtkWidget *controls;
  GSettings *settings;    /* NULL without an installed schema */
  GBinding *busy_binding; /* simulation busy -> spinner */

  /* Output requests waiting for a full frame of the current parameters (in order). */
  GQueue pending;
  /* Exports writing in a worker thread; cancelled when the window goes. */
  GCancellable *cancellable;

  /* Template children. */
  GtkLabel *subtitle_label;
  GtkPaned *paned;
  GtkBox *controls_slot;
  GtkBox *view_slot;
  BraggscopeReadout *readout;

  /* Template children: the status line. */
  GtkSpinner *busy_spinner;
  GtkLabel *frame_kind_label;
  GtkLabel *frame_time_label;
  GtkLabel *oversample_label;
  GtkLabel *integration_label;         /* the full frame's method and samples per pixel */
  GtkLabel *integration_details_label; /* the same in the details popover, with the tolerance */
  GtkMenuButton *frame_details_button; /* its popover: the two below */
  GtkLabel *backend_label;
  GtkLabel *cache_label;
  GtkLabel *message_label;
  GtkBox *status_box;
  /* a slow full frame: what it costs, how far it is */
  GtkLabel *render_estimate_label;
  GtkProgressBar *render_progress_bar;
  gboolean render_progress_shown;
  guint64 render_progress_sequence; /* the frame they speak of */
  /* the change a message follows: a frame of a later one clears it */
  guint64 message_sequence;
  guint message_idle;

  /* Teaching (braggscope-window-teaching.c) */
  GtkBox *sidebar_box;
  GMenu *primary_menu;
  GtkWidget *views_paned;
  BraggscopeReciprocalView *reciprocal;
  GtkRevealer *lesson_revealer;
  GtkLabel *lesson_title;
  GtkLabel *lesson_text;
  GtkBox *lesson_try;
  char *lesson_id;
  GtkExpander *play_expander;
  GtkSpinButton *play_start_spin;
  GtkSpinButton *play_range_spin;
  GtkSpinButton *play_speed_spin;
  GtkCheckButton *play_loop_check;
  GtkWidget *play_button; /* its icon: play, or pause while playing */
  GtkLabel *phi_label;    /* the spindle angle, beside the group's title */
  gboolean play_full;     /* playing full frames, previews off, while they keep up */
  gint64 play_set_us;     /* when playback last turned phi */
  guint play_source;
  gint64 play_last_us;
  double play_phi;
  BraggscopeExport *export;
  GtkLabel *domains_label; /* says when full frames raised the mosaic domains */

  /* A measured frame (braggscope-window-measured.c): the frame, the fit
   * running, and their parts of the status line. */
  BraggscopeMeasuredFrame *measured;
  GCancellable *fit_cancellable;
  gboolean fit_moves_detector; /* the fit running refines the distance or beam centre */
  GtkLabel *score_label;
  GtkLabel *counts_label;
  GtkProgressBar *fit_progress;
  /* the measured layer's own window (the view's reference-auto-window, -min, -max) */
  GtkWidget *measured_group;
  GtkCheckButton *measured_auto_check;
  GtkSpinButton *measured_low_spin;
  GtkSpinButton *measured_high_spin;
  GBinding *measured_bindings[3];
  /* the panels the measured layer was laid out for ("" for one panel), and
   * whether it lies on them (its pixels fit them) */
  char *measured_layout;
  gboolean measured_on_panels;
};

/* The newest frame of @sim when it is a full frame of its current
 * parameters, else NULL (transfer none). */
static inline BraggscopeFrame *
_braggscope_window_current_frame (BraggscopeSimulation *sim)
{
  BraggscopeFrame *frame = braggscope_simulation_get_last_frame (sim);

  if (frame == NULL || braggscope_frame_get_is_preview (frame))
    return NULL;
  return braggscope_frame_get_sequence (frame) >= braggscope_simulation_get_sequence (sim) ? frame
                                                                                           : NULL;
}

/* braggscope-window-teaching.c */
void _braggscope_window_init_teaching (BraggscopeWindow *self);
void _braggscope_window_dispose_teaching (BraggscopeWindow *self);
/* Says how many mosaic domains @frame used when the arc rule raised them. */
void _braggscope_window_show_domains (BraggscopeWindow *self, BraggscopeFrame *frame);
/* Puts the simulation's detector view and a new reciprocal view side by side. */
void _braggscope_window_place_views (BraggscopeWindow *self);
/* braggscope_window_open_lesson() and braggscope_window_export_rotation()
 * once braggscope-window.c has checked their window. */
gboolean _braggscope_window_open_lesson (BraggscopeWindow *self, const char *id, GError **error);
void _braggscope_window_export_rotation (BraggscopeWindow *self, gboolean gif, const char *path);
/* Writes the frame of a rotation being exported once it is the full frame
 * of the current parameters, and moves on; @failed ends the export. */
void _braggscope_window_export_frame (BraggscopeWindow *self, const GError *failed);

/* braggscope-window-compare.c: the Compare menu and its actions. */
void _braggscope_window_init_compare (BraggscopeWindow *self);
/* Gives a new detector view the window's compare mode and follows its layer. */
void _braggscope_window_connect_compare (BraggscopeWindow *self);

/* braggscope-window-actions.c */
/* Asks for a file (or a folder) and activates @file_action (a "-file"
 * action, static string) with its path.  @patterns: NULL-terminated glob
 * patterns. */
void _braggscope_window_choose_file (BraggscopeWindow *self,
                                     GtkFileChooserAction mode,
                                     const char *title,
                                     const char *accept,
                                     const char *suggested_name,
                                     const char *filter_name,
                                     const char *const *patterns,
                                     const char *file_action);
void _braggscope_window_init_actions (BraggscopeWindow *self);
/* Runs the waiting output requests when @frame is a full frame of the current
 * parameters; fails them all with @error when it is non-NULL. */
void _braggscope_window_run_pending (BraggscopeWindow *self, const GError *error);
void _braggscope_pending_free (BraggscopePending *pending);

/* braggscope-window-measured.c: its actions and status labels; the new
 * simulation's signals and measured frame; what it holds. */
void _braggscope_window_init_measured (BraggscopeWindow *self);
void _braggscope_window_measured_set_simulation (BraggscopeWindow *self);
void _braggscope_window_measured_dispose (BraggscopeWindow *self);

G_END_DECLS
