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
  int stride;
  int max_arc_domains; /* the full frame's mosaic domains may rise to this (0: off) */
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
} BraggscopeDelivery;

/* Starts the thread; results go to @self (held weakly) on @context. */
BraggscopeWorker *_braggscope_worker_new (BraggscopeSimulation *self, GMainContext *context);

/* Replaces the pending request by @req (taken over and zeroed: the newest
 * wins) and cancels a full render in flight. */
void _braggscope_worker_submit (BraggscopeWorker *w, BraggscopeRequest *req);

/* Cancels, joins the thread and forgets the simulation: results still queued
 * are dropped. */
void _braggscope_worker_stop (BraggscopeWorker *w);
void _braggscope_worker_unref (BraggscopeWorker *w);

/* Image buffers the worker's pool ever allocated (tests of steady state). */
guint _braggscope_worker_get_buffers_allocated (BraggscopeWorker *w);

/* braggscope-simulation.c: takes a result of its worker. */
void _braggscope_simulation_deliver (BraggscopeSimulation *self, BraggscopeDelivery *d);

G_END_DECLS
