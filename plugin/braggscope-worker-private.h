/* braggscope-worker-private.h: the worker thread of a BraggscopeSimulation
 * (braggscope-worker.c), as the simulation (braggscope-simulation.c) drives
 * it.  All calls are made on the simulation's thread. */
#pragma once

#include "braggscope-simulation-private.h"

G_BEGIN_DECLS

/* One render request: the parameters (owned, when @valid) and what the frame
 * will say about them. */
typedef struct
{
  gboolean valid;
  nb_params params;
  guint64 id;        /* request number, increasing: orders the frames */
  guint64 sequence;  /* the simulation's sequence the params answer */
  gint64 changed_us; /* monotonic time of the change */
  gboolean preview;  /* render a preview before the full frame */
  gboolean batch;    /* queued behind the others, never replacing or cancelling them */
  int stride;
  int max_arc_domains;               /* the full frame's mosaic domains may rise to this (0: off) */
  BraggscopeMeasuredFrame *measured; /* the full frame is scored against it (owned) */
  double match_radius;               /* pixels */
  double match_trials;               /* the score's correction (nb_match_options.trials) */
} BraggscopeRequest;

/* One result, delivered on the simulation's main context. */
typedef struct
{
  BraggscopeWorker *worker; /* the one that rendered it (holds a reference) */
  guint64 id;
  guint64 sequence;
  BraggscopeFrame *frame; /* or */
  GError *error;
  gboolean is_preview;
  nb_plan_info info; /* the plan's derived values */
  gboolean has_match;
  nb_match_result match; /* the full frame against the request's measured frame */
} BraggscopeDelivery;

/* A refinement or orientation search, run on the worker thread. */
struct _BraggscopeFitJob
{
  gboolean search;
  gboolean refine_distance, refine_beam;
  double radius;                     /* pixels */
  nb_params params;                  /* the start; on success the result */
  BraggscopeMeasuredFrame *measured; /* owned */
  gint cancel;                       /* raised by the task's cancellable (atomic) */
  /* the result */
  nb_status status;
  nb_error err;
  nb_match_result score;
  /* main context only */
  GTask *task;
  gulong cancel_id;
};

/* How the worker reports to its owner, each call made on the owner's
 * context.  All but @fit_done are skipped once the owner is gone (the worker
 * holds it weakly) or the worker stopped. */
typedef struct
{
  /* a frame or error of a request; @d stays the worker's */
  void (*deliver) (GObject *owner, BraggscopeDelivery *d);
  /* where the full frame of request @id stands */
  void (*render_progress) (GObject *owner, guint64 id, BraggscopeRenderProgress *progress);
  /* where the fit stands: @fraction 0..1, @stage a static name, @score its best */
  void (*fit_progress) (GObject *owner, double fraction, const char *stage, double score);
  /* a fit ended: @job (taken over) is handed back even when the owner is gone */
  void (*fit_done) (BraggscopeFitJob *job);
} BraggscopeWorkerCallbacks;

/* Queues @job (taken over) behind the frame in flight; when it ends, the
 * worker hands it to its callbacks' fit_done () on the owner's context. */
void _braggscope_worker_fit (BraggscopeWorker *w, BraggscopeFitJob *job);

/* Starts the thread; it reports to @owner (held weakly) through
 * @callbacks (copied) on @context. */
BraggscopeWorker *_braggscope_worker_new (GObject *owner,
                                          const BraggscopeWorkerCallbacks *callbacks,
                                          GMainContext *context);

/* Queues @req (taken over and zeroed): a batched request behind the others;
 * any other replaces those waiting (the newest wins) and cancels a full
 * render in flight. */
void _braggscope_worker_submit (BraggscopeWorker *w, BraggscopeRequest *req);

/* Cancels, joins the thread and forgets the simulation: results still queued
 * are dropped. */
void _braggscope_worker_stop (BraggscopeWorker *w);
void _braggscope_worker_unref (BraggscopeWorker *w);

/* Image buffers the worker's pool ever allocated (tests of steady state). */
guint _braggscope_worker_get_buffers_allocated (BraggscopeWorker *w);

G_END_DECLS
