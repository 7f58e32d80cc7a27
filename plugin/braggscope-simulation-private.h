/* braggscope-simulation-private.h: BraggscopeSimulation's instance and what
 * its files share (braggscope-simulation.c: the object and its API;
 * braggscope-simulation-properties.c: its properties). */
#pragma once

#include "braggscope-private.h"

G_BEGIN_DECLS

typedef struct _BraggscopeWorker BraggscopeWorker;
typedef struct _BraggscopeFitJob BraggscopeFitJob; /* braggscope-worker-private.h */

/* the most parameter properties the table may give (an assertion checks) */
#define _BRAGGSCOPE_MAX_PARAM_PROPS 64

/* A number property's value as the host set it, and what the property read
 * right after: while it still reads that, it reads the value set (15 degrees
 * stays 15, not 14.999999999999998 after its trip through radians). */
typedef struct
{
  gboolean set;
  double value, reads;
} BraggscopeTyped;

struct _BraggscopeSimulation
{
  GObject parent_instance;

  GMainContext *context;
  GThread *owner; /* the thread that created it: properties are set there */
  nb_params params;
  BraggscopeTyped typed[_BRAGGSCOPE_MAX_PARAM_PROPS];
  gboolean preview_while_dragging;
  int preview_stride;
  int max_arc_domains; /* 0: the parameters' mosaic domains only */
  guint64 sequence;
  gboolean rendering; /* changes render: set by the first render () */
  gboolean batch;     /* every change its full frame, in order: no previews, no coalescing */
  GPtrArray *waits;   /* render_frame's waits (braggscope-simulation-render.c) */
  gboolean busy;
  BraggscopeFrame *last_frame;
  nb_plan_info info; /* the last frame's plan: what "not given" properties read */
  gboolean have_info;
  BraggscopeWorker *worker;
  /* requests: the newest posted, the one of the last frame delivered */
  guint64 last_id;
  guint64 delivered_id;
  gboolean delivered_full;
  /* the measured frame, its score against the last full frame, the fit
   * running (braggscope-simulation-measured.c) */
  BraggscopeMeasuredFrame *measured;
  double match_radius;
  gboolean have_match;
  nb_match_result match;
  GTask *fit_task;
  /* the orientations the last fit chose among, while the parameters it set
   * stand: a score of them is corrected for that many (fit_key: misset, cell,
   * distance, beam centre as the fit left them) */
  double fit_trials;
  double fit_key[13];
  /* the structure factors' cell: the default scene's file and the cell it
   * came with; the warning when the crystal's is another
   * (braggscope-simulation-measured.c) */
  char *scene_hkl;
  double scene_cell[6]; /* Angstrom, degrees */
  char *hkl_warning;
  char *sf_note; /* structure-factors-note */
};

/* braggscope-simulation.c */

/* Posts a render request of the current parameters when rendering (a
 * preview first when @interactive); FALSE with @error when they cannot be
 * copied. */
gboolean
_braggscope_simulation_request (BraggscopeSimulation *self, gboolean interactive, GError **error);
/* Whether the calling thread is the simulation's; warns (naming @what)
 * when it is not. */
gboolean _braggscope_simulation_check_thread (BraggscopeSimulation *self, const char *what);
/* An accepted change: a new sequence number, and a render when rendering. */
void _braggscope_simulation_changed (BraggscopeSimulation *self);
void _braggscope_simulation_emit_error (BraggscopeSimulation *self, GError *error);

/* braggscope-simulation-properties.c */

/* nanoBragg's defaults on a 512 x 512 detector, into uninitialised @p. */
void _braggscope_simulation_default_params (nb_params *p);
void _braggscope_simulation_install_properties (GObjectClass *klass);
void _braggscope_simulation_get_property (GObject *object,
                                          guint prop_id,
                                          GValue *value,
                                          GParamSpec *pspec);
void _braggscope_simulation_set_property (GObject *object,
                                          guint prop_id,
                                          const GValue *value,
                                          GParamSpec *pspec);

/* When @next's structure factors are another file than @before's: an atomic
 * model (or -sf.cif) lends the crystal its own cell, unless the change gave
 * a cell (@gave_cell) or -mat gives it; another file keeps the cell the
 * crystal has (a model's, taken from the last plan). */
void _braggscope_simulation_follow_model_cell (BraggscopeSimulation *self,
                                               const nb_params *before,
                                               nb_params *next,
                                               gboolean gave_cell);

/* The values of every parameter property, then, after a change, notify
 * those that differ (and free @before). */
GValue *_braggscope_simulation_snapshot (BraggscopeSimulation *self);
void _braggscope_simulation_notify_changed (BraggscopeSimulation *self, GValue *before);

/* A frame's plan values: notifies the properties that read them. */
void _braggscope_simulation_set_info (BraggscopeSimulation *self, const nb_plan_info *info);

void _braggscope_simulation_notify_busy (BraggscopeSimulation *self);

/* Requests a full frame of the current parameters, when rendering (a new
 * measured frame or match radius: the score comes with the frame). */
void _braggscope_simulation_rescore (BraggscopeSimulation *self);
/* Checks the structure factors' cell against the crystal's of @info (the
 * last plan): sets hkl-cell-warning. */
void _braggscope_simulation_check_hkl_cell (BraggscopeSimulation *self, const nb_plan_info *info);
/* The correction of a score of @p: the last fit's trials while @p holds
 * what that fit set, else 1. */
double _braggscope_simulation_match_trials (BraggscopeSimulation *self, const nb_params *p);
/* Replaces the parameters by @next (taken over): one notify batch, one
 * change. */
void _braggscope_simulation_replace_params (BraggscopeSimulation *self, nb_params *next);
/* The worker, started on first use with the simulation's callbacks. */
BraggscopeWorker *_braggscope_simulation_get_worker (BraggscopeSimulation *self);

/* braggscope-simulation-waits.c */

/* Waits for the full frame of request @id or a later one: completes @task
 * (taken over) with it, or with the error that ended it; @cancellable
 * (nullable) ends the wait, not the render. */
void _braggscope_simulation_add_wait (BraggscopeSimulation *self,
                                      GTask *task,
                                      guint64 id,
                                      GCancellable *cancellable);

/* A delivery of request @id, a full frame or an error: completes the waits
 * it answers. */
void _braggscope_simulation_wake (BraggscopeSimulation *self,
                                  guint64 id,
                                  BraggscopeFrame *frame,
                                  const GError *error);
/* Whether a wait takes the delivery of request @id. */
gboolean _braggscope_simulation_is_awaited (BraggscopeSimulation *self, guint64 id);
/* Fails every wait with BRAGGSCOPE_ERROR_CANCELLED (disposal). */
void _braggscope_simulation_cancel_waits (BraggscopeSimulation *self);

/* braggscope-simulation-measured.c */

/* The properties of the measured frame and its score, ids from @first. */
void _braggscope_simulation_install_measured_properties (GObjectClass *klass, guint first);
gboolean
_braggscope_simulation_get_measured_property (BraggscopeSimulation *self, guint id, GValue *value);
gboolean _braggscope_simulation_set_measured_property (BraggscopeSimulation *self,
                                                       guint id,
                                                       const GValue *value);
/* A full frame's score (NULL: none) becomes the match properties. */
void _braggscope_simulation_set_match (BraggscopeSimulation *self, const nb_match_result *match);
void _braggscope_simulation_notify_sequence (BraggscopeSimulation *self);
/* The worker's fit_done (): a fit ended; returns its task and frees @job. */
void _braggscope_simulation_fit_done (BraggscopeFitJob *job);

G_END_DECLS
