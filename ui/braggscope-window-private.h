/* braggscope-window-private.h: BraggscopeWindow's instance, shared by
 * braggscope-window.c (layout, bindings, status) and
 * braggscope-window-actions.c (files, clipboard, keyboard) and
 * braggscope-window-measured.c (a measured frame and the fits to it).
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

struct _BraggscopeWindow
{
  GtkApplicationWindow parent_instance;

  BraggscopeSimulation *sim;
  BraggscopeView *view;
  GtkWidget *controls;
  GSettings *settings;    /* NULL without an installed schema */
  GBinding *busy_binding; /* simulation busy -> spinner */

  /* Output requests waiting for a full frame of the current parameters (in order). */
  GQueue pending;
  /* Exports writing in a worker thread; cancelled when the window goes. */
  GCancellable *cancellable;

  /* Template children: the display group. */
  GtkLabel *subtitle_label;
  GtkPaned *paned;
  GtkBox *controls_slot;
  GtkBox *view_slot;
  GtkDropDown *colormap_dropdown;
  GtkDropDown *scale_dropdown;
  GtkScale *gamma_scale;
  GtkAdjustment *gamma_adjustment;
  GtkCheckButton *auto_contrast_check;
  GtkSpinButton *low_spin;
  GtkSpinButton *high_spin;
  GtkAdjustment *low_adjustment;
  GtkAdjustment *high_adjustment;
  GtkCheckButton *rings_check;
  GtkCheckButton *beam_center_check;
  BraggscopeReadout *readout;

  /* Template children: the status line. */
  GtkSpinner *busy_spinner;
  GtkLabel *frame_kind_label;
  GtkLabel *frame_time_label;
  GtkLabel *oversample_label;
  GtkLabel *backend_label;
  GtkLabel *cache_label;
  GtkLabel *message_label;

  /* A measured frame (braggscope-window-measured.c): the frame, the fit
   * running, and their parts of the status line. */
  BraggscopeMeasuredFrame *measured;
  GCancellable *fit_cancellable;
  GtkLabel *score_label;
  GtkLabel *counts_label;
  GtkProgressBar *fit_progress;
};

/* braggscope-window.c */
void _braggscope_window_set_simulation (BraggscopeWindow *self, BraggscopeSimulation *sim);
/* The newest frame when it is a full frame of the current parameters, else NULL. */
BraggscopeFrame *_braggscope_window_get_current_frame (BraggscopeWindow *self);

/* braggscope-window-actions.c */
void _braggscope_window_init_actions (BraggscopeWindow *self);
/* Runs the waiting output requests when @frame is a full frame of the current
 * parameters; fails them all with @error when it is non-NULL. */
void _braggscope_window_run_pending (BraggscopeWindow *self, const GError *error);
void _braggscope_pending_free (BraggscopePending *pending);
/* Asks for a file and activates @file_action (a "-file" action, static
 * string) with its path.  @patterns: NULL-terminated glob patterns. */
void _braggscope_window_choose_file (BraggscopeWindow *self,
                                     GtkFileChooserAction mode,
                                     const char *title,
                                     const char *accept,
                                     const char *suggested_name,
                                     const char *filter_name,
                                     const char *const *patterns,
                                     const char *file_action);

/* braggscope-window-measured.c: its actions and status labels; the new
 * simulation's signals and measured frame; what it holds. */
void _braggscope_window_init_measured (BraggscopeWindow *self);
void _braggscope_window_measured_set_simulation (BraggscopeWindow *self);
void _braggscope_window_measured_dispose (BraggscopeWindow *self);

G_END_DECLS
