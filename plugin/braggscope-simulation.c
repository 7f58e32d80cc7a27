/* braggscope-simulation.c: BraggscopeSimulation, a live simulation on one warm worker thread.
 *
 * Threads.  The object lives on the thread of the main context it was created
 * in (its "owner"): properties are set and signals emitted there.  A worker
 * thread, started by the first render request, owns the engine plan; nothing
 * else touches it.  The two meet in a request slot (Worker.pending) under a
 * mutex:
 *
 *   owner thread                          worker thread
 *   property change -> validate ->        wait for a request
 *   copy params into the slot,            take the newest; update the plan
 *   raise the cancel flag (latest wins)   (only the stale stages), execute
 *                                         -> frame -> idle on the owner's context
 *   frame-ready <- drop frames older ---'
 *                  than the last delivered
 *
 * A change first renders a preview (one pixel per preview-stride^2 block) and,
 * when no newer request arrived meanwhile, the full frame; a newer request
 * cancels a full render in flight, while a preview (cheap by construction)
 * runs to its end, so a continuous drag keeps producing frames instead of
 * cancelling each.  Where the GPU rendered the last full frame within a
 * display frame (16.7 ms), the full frame takes the preview's place.  Frame
 * buffers are recycled through a pool (page-locked for the GPU, which copies
 * into them directly), and the frame's maximum and display window come from
 * the engine, computed where the frame was rendered.
 *
 * Lifetime.  The worker's shared state is reference counted: the thread and
 * every result in flight hold a reference, the simulation a weak one back, so
 * disposing the simulation while the worker renders only has to cancel and
 * join; results still queued on the context find no simulation and are
 * dropped.
 */
#include "braggscope-simulation.h"
#include "braggscope-enums.h"
#include "braggscope-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

/* degrees per radian, written as the engine's parser computes it (180 M_1_PI)
 * so that a property and its flag give the same bits */
#define RTD (180.0 * 0.31830988618379067154)

#define DEFAULT_SCENE_HKL "1hpv_p1.hkl"

/* ------------------------------------------------------------------------- */
/* The worker */

typedef struct
{
  gboolean valid;
  nb_params params;
  guint64 id;        /* request number, increasing: orders the frames */
  guint64 sequence;  /* the simulation's sequence the params answer */
  gint64 changed_us; /* monotonic time of the change */
  gboolean preview;  /* render a preview before the full frame */
  int stride;
} Request;

typedef struct
{
  gatomicrefcount ref_count;
  GMutex lock;
  GCond cond;
  GThread *thread;
  GMainContext *context; /* the owner's: results go there */
  GWeakRef simulation;
  BraggscopeFramePool *pool;

  /* under lock */
  Request pending;
  gboolean quit;
  gboolean preview_in_flight; /* a preview, or a full frame in its place: not cancelled */
  gint cancel;                /* raised under lock; the engine polls it (nb_exec_options.cancel) */

  /* worker thread only */
  nb_plan *plan;
  guint64 plan_request; /* the request whose params the plan holds; 0: none */
  int hits, rebuilds;   /* stage counters of that update */
  nb_geometry *geometry_key;
  BraggscopeGeometry *geometry;
  BraggscopeFrameSource *source;

  /* owner thread only */
  guint64 last_id;      /* newest request posted */
  guint64 delivered_id; /* request of the last frame delivered */
  gboolean delivered_full;
} Worker;

typedef struct
{
  Worker *worker;
  guint64 id;
  guint64 sequence;
  BraggscopeFrame *frame; /* or */
  GError *error;
  gboolean is_preview;
  double beam_mm[2]; /* the plan's beam centre (convention frame) */
} Delivery;

static void simulation_deliver (BraggscopeSimulation *self, Delivery *d);

static void
request_clear (Request *r)
{
  if (r->valid)
    nb_params_clear (&r->params);
  memset (r, 0, sizeof *r);
}

static Worker *
worker_ref (Worker *w)
{
  g_atomic_ref_count_inc (&w->ref_count);
  return w;
}

static void
worker_unref (Worker *w)
{
  if (!g_atomic_ref_count_dec (&w->ref_count))
    return;
  request_clear (&w->pending);
  g_weak_ref_clear (&w->simulation);
  _braggscope_frame_pool_unref (w->pool);
  g_main_context_unref (w->context);
  g_cond_clear (&w->cond);
  g_mutex_clear (&w->lock);
  g_free (w);
}

static void
delivery_free (gpointer data)
{
  Delivery *d = data;

  g_clear_object (&d->frame);
  g_clear_error (&d->error);
  worker_unref (d->worker);
  g_free (d);
}

static gboolean
delivery_dispatch (gpointer data)
{
  Delivery *d = data;
  g_autoptr (BraggscopeSimulation) self = g_weak_ref_get (&d->worker->simulation);

  if (self != NULL)
    simulation_deliver (self, d);
  return G_SOURCE_REMOVE;
}

static void
worker_post (Worker *w, Delivery *d)
{
  d->worker = worker_ref (w);
  g_main_context_invoke_full (w->context, G_PRIORITY_DEFAULT, delivery_dispatch, d, delivery_free);
}

static void
worker_post_error (Worker *w, const Request *req, const nb_error *err)
{
  Delivery *d = g_new0 (Delivery, 1);

  d->id = req->id;
  d->sequence = req->sequence;
  d->error = _braggscope_error_from_nb (err);
  worker_post (w, d);
}

static void
sum_stats (const nb_plan_stats *before, const nb_plan_stats *after, int *hits, int *rebuilds)
{
  *hits = *rebuilds = 0;
  for (int i = 0; i < NB_N_STAGES; i++)
    {
      *hits += (int) (after->hits[i] - before->hits[i]);
      *rebuilds += (int) (after->rebuilds[i] - before->rebuilds[i]);
    }
}

/* The plan's -mask pixels for a frame source: those of the previous source
 * when they did not change (a mask is copied once, not per update). */
static GBytes *
worker_mask (Worker *w)
{
  const nb_plan_info *info = nb_plan_get_info (w->plan);
  const guint16 *mask = nb_plan_get_mask (w->plan);
  gsize size = (gsize) info->fpixels * (gsize) info->spixels * sizeof (guint16);
  GBytes *previous = _braggscope_frame_source_peek_mask (w->source);

  if (mask == NULL)
    return NULL;
  if (previous != NULL && g_bytes_get_size (previous) == size &&
      memcmp (g_bytes_get_data (previous, NULL), mask, size) == 0)
    return g_bytes_ref (previous);
  return g_bytes_new (mask, size);
}

/* Brings the plan to @req's parameters (creating it the first time). */
static nb_status
worker_update_plan (Worker *w, const Request *req, nb_error *err)
{
  nb_plan_stats before = { 0 }, after;
  BraggscopeFrameSource *source = NULL;
  nb_geometry *geom;
  char **args;
  g_autoptr (GBytes) mask = NULL;
  nb_status st;

  if (w->plan == NULL)
    {
      /* a viewer renders many frames: the GPU's start-up is worth it, and
       * starts while the plan reads its files */
      nb_cuda_warm_up (&req->params);
      st = nb_plan_create (&req->params, &w->plan, err);
    }
  else
    {
      nb_plan_get_stats (w->plan, &before);
      st = nb_plan_update (w->plan, &req->params, err);
    }
  if (st != NB_OK)
    {
      /* the plan keeps its previous parameters (or there is none yet) */
      w->plan_request = 0;
      return st;
    }
  nb_plan_get_stats (w->plan, &after);
  sum_stats (&before, &after, &w->hits, &w->rebuilds);
  w->plan_request = req->id;

  /* the snapshot is shared until an update changes what it holds */
  geom = nb_plan_ref_geometry (w->plan);
  args = _braggscope_params_to_strv (&req->params);
  if (args != NULL)
    {
      mask = worker_mask (w);
      source = _braggscope_frame_source_new (nb_plan_get_info (w->plan), &req->params, mask, args);
    }
  if (geom == NULL || source == NULL)
    {
      nb_geometry_unref (geom);
      _braggscope_frame_source_unref (source);
      w->plan_request = 0;
      return nb_error_set (err, NB_ERR_NOMEM, "out of memory for a frame's geometry");
    }
  if (geom == w->geometry_key)
    nb_geometry_unref (geom);
  else
    {
      if (w->geometry != NULL)
        braggscope_geometry_unref (w->geometry);
      w->geometry = _braggscope_geometry_new_take (geom);
      w->geometry_key = geom;
    }
  _braggscope_frame_source_unref (w->source);
  w->source = source;
  return NB_OK;
}

/* Renders @req (a preview or the full frame) and posts the frame or the
 * error.  Returns NB_ERR_CANCELLED, silently, when a newer request or
 * shutdown interrupted it. */
static nb_status
worker_run (Worker *w, const Request *req, gboolean preview)
{
  gint64 start = g_get_monotonic_time (), end;
  nb_exec_options opts = { 0 };
  nb_error err = { 0 };
  const nb_plan_info *info;
  BraggscopeFrameInit init = { 0 };
  nb_exec_stats stats = { 0 };
  Delivery *d;
  gsize n;
  float *data;
  gboolean pinned;
  nb_status st;

  if (w->plan == NULL || w->plan_request != req->id)
    if ((st = worker_update_plan (w, req, &err)) != NB_OK)
      {
        worker_post_error (w, req, &err);
        return st;
      }

  info = nb_plan_get_info (w->plan);
  n = (gsize) info->fpixels * (gsize) info->spixels;
  /* the GPU copies straight into a page-locked frame */
  pinned = strcmp (nb_plan_get_backend (w->plan), "cuda") == 0;
  data = _braggscope_frame_pool_acquire (w->pool, n, pinned);
  opts.cancel = (const volatile int *) &w->cancel;
  opts.preview_stride = preview ? req->stride : 0;
  /* the maximum and, for a full frame, the display window, computed where
   * the frame is rendered */
  stats.window = !preview;
  stats.low_percentile = _BRAGGSCOPE_AUTO_LOW_PERCENTILE;
  stats.high_percentile = _BRAGGSCOPE_AUTO_HIGH_PERCENTILE;
  opts.stats = &stats;
  st = nb_plan_execute (w->plan, data, &opts, &err);
  if (st != NB_OK)
    {
      _braggscope_frame_pool_release (w->pool, data, n, pinned);
      if (st != NB_ERR_CANCELLED)
        worker_post_error (w, req, &err);
      return st;
    }
  end = g_get_monotonic_time ();

  init.pool = w->pool;
  init.data = data;
  init.pinned = pinned;
  init.width = info->fpixels;
  init.height = info->spixels;
  init.is_preview = preview;
  init.sequence = req->sequence;
  init.queue_ms = (start - req->changed_us) / 1000.0;
  init.execute_ms = (end - start) / 1000.0;
  init.total_ms = (end - req->changed_us) / 1000.0;
  init.backend = nb_plan_get_backend (w->plan);
  init.cache_hits = w->hits;
  init.cache_rebuilds = w->rebuilds;
  init.max_value = stats.max;
  init.has_auto_window = stats.has_window;
  init.auto_low = stats.low;
  init.auto_high = stats.high;
  init.source = w->source;
  init.geometry = w->geometry;

  d = g_new0 (Delivery, 1);
  d->id = req->id;
  d->sequence = req->sequence;
  d->is_preview = preview;
  d->frame = _braggscope_frame_new (&init);
  d->beam_mm[0] = info->Xbeam * 1000.0;
  d->beam_mm[1] = info->Ybeam * 1000.0;
  worker_post (w, d);
  return NB_OK;
}

/* A full frame the GPU rendered within this (60 Hz) needs no preview. */
#define FRAME_BUDGET_MS (1000.0 / 60.0)

/* Whether @req's preview is worth rendering first: not where the plan's
 * last full frame, on the GPU, already fit the frame budget (the full frame
 * comes as soon as a preview would). */
static gboolean
worker_wants_preview (Worker *w, const Request *req)
{
  nb_plan_timing t;

  if (!req->preview || w->plan == NULL)
    return req->preview;
  nb_plan_get_timing (w->plan, &t);
  return !(t.on_gpu && t.execute_ms > 0.0 && t.execute_ms <= FRAME_BUDGET_MS);
}

static gpointer
worker_thread (gpointer data)
{
  Worker *w = data;
  /* g_main_context_invoke_full() calls back at once, on the calling thread,
   * when the target is that thread's default context and nobody owns it;
   * pushing a context of our own makes it always queue to the owner. */
  GMainContext *own = g_main_context_new ();
  Request req = { 0 };
  gboolean full_due = FALSE; /* req's preview is done, its full frame is not */

  g_main_context_push_thread_default (own);
  g_mutex_lock (&w->lock);
  for (;;)
    {
      Request old = { 0 };
      gboolean preview = FALSE, short_run = FALSE;
      nb_status st;

      while (!w->quit && !w->pending.valid && !full_due)
        g_cond_wait (&w->cond, &w->lock);
      if (w->quit)
        break;
      if (w->pending.valid)
        {
          old = req;
          req = w->pending;
          memset (&w->pending, 0, sizeof w->pending);
          preview = worker_wants_preview (w, &req);
          /* a full frame standing in for the preview runs to its end, as
           * the preview would (a drag must not cancel every frame) */
          short_run = req.preview;
          full_due = TRUE;
        }
      g_atomic_int_set (&w->cancel, 0);
      w->preview_in_flight = short_run;
      g_mutex_unlock (&w->lock);

      request_clear (&old);
      st = worker_run (w, &req, preview);
      if (!preview || st != NB_OK)
        full_due = FALSE;

      g_mutex_lock (&w->lock);
      w->preview_in_flight = FALSE;
    }
  g_mutex_unlock (&w->lock);

  request_clear (&req);
  nb_plan_destroy (w->plan);
  w->plan = NULL;
  if (w->geometry != NULL)
    braggscope_geometry_unref (w->geometry);
  w->geometry = NULL;
  w->geometry_key = NULL;
  _braggscope_frame_source_unref (w->source);
  w->source = NULL;
  g_main_context_pop_thread_default (own);
  g_main_context_unref (own);
  worker_unref (w);
  return NULL;
}

static Worker *
worker_new (BraggscopeSimulation *self, GMainContext *context)
{
  Worker *w = g_new0 (Worker, 1);

  g_atomic_ref_count_init (&w->ref_count);
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  w->context = g_main_context_ref (context);
  g_weak_ref_init (&w->simulation, self);
  w->pool = _braggscope_frame_pool_new ();
  w->thread = g_thread_new ("braggscope-worker", worker_thread, worker_ref (w));
  return w;
}

/* Replaces the pending request (latest wins) and cancels a full render in flight. */
static void
worker_submit (Worker *w, Request *req)
{
  Request old;

  g_mutex_lock (&w->lock);
  old = w->pending;
  w->pending = *req;
  if (!w->preview_in_flight)
    g_atomic_int_set (&w->cancel, 1);
  g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);
  request_clear (&old);
  memset (req, 0, sizeof *req);
}

static void
worker_stop (Worker *w)
{
  g_mutex_lock (&w->lock);
  w->quit = TRUE;
  g_atomic_int_set (&w->cancel, 1);
  g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);
  g_thread_join (w->thread);
  w->thread = NULL;
  g_weak_ref_set (&w->simulation, NULL);
}

/* ------------------------------------------------------------------------- */
/* The simulation */

struct _BraggscopeSimulation
{
  GObject parent_instance;

  GMainContext *context;
  nb_params params;
  gboolean preview_while_dragging;
  int preview_stride;
  guint64 sequence;
  gboolean rendering; /* changes render: set by the first render () */
  gboolean busy;
  BraggscopeFrame *last_frame;
  double derived_beam_mm[2]; /* the centre the plan chose when none is given; NAN until known */
  Worker *worker;
};

G_DEFINE_FINAL_TYPE (BraggscopeSimulation, braggscope_simulation, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_MISSET_X,
  PROP_MISSET_Y,
  PROP_MISSET_Z,
  PROP_WAVELENGTH,
  PROP_MOSAIC_SPREAD,
  PROP_MOSAIC_DOMAINS,
  PROP_N_CELLS,
  PROP_CELL_A,
  PROP_CELL_B,
  PROP_CELL_C,
  PROP_CELL_ALPHA,
  PROP_CELL_BETA,
  PROP_CELL_GAMMA,
  PROP_CRYSTAL_SHAPE,
  PROP_DISTANCE,
  PROP_BEAM_CENTER_X,
  PROP_BEAM_CENTER_Y,
  PROP_PIXEL_SIZE,
  PROP_DETECTOR_PIXELS_FAST,
  PROP_DETECTOR_PIXELS_SLOW,
  PROP_CONVENTION,
  PROP_TWO_THETA,
  PROP_DETECTOR_ROTX,
  PROP_DETECTOR_ROTY,
  PROP_DETECTOR_ROTZ,
  PROP_OVERSAMPLE,
  PROP_PHI,
  PROP_OSC,
  PROP_DISPERSION,
  PROP_DIVERGENCE,
  PROP_POLARIZATION,
  PROP_FLUENCE,
  PROP_STRUCTURE_FACTORS,
  PROP_DEFAULT_F,
  PROP_PRECISION,
  PROP_BACKEND,
  PROP_PREVIEW_WHILE_DRAGGING,
  PROP_PREVIEW_STRIDE,
  /* read-only */
  PROP_BUSY,
  PROP_SEQUENCE,
  N_PROPS
};

enum
{
  SIGNAL_FRAME_READY,
  SIGNAL_ERROR,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* by nb_backend */
static const char *const backend_names[] = { "cpu", "auto", "cuda" };

static void
emit_error (BraggscopeSimulation *self, GError *error)
{
  g_signal_emit (self, signals[SIGNAL_ERROR], 0, error);
}

static void
set_busy (BraggscopeSimulation *self, gboolean busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
simulation_deliver (BraggscopeSimulation *self, Delivery *d)
{
  Worker *w = self->worker;

  if (w == NULL || d->worker != w)
    return;
  if (d->error != NULL)
    {
      if (d->id == w->last_id)
        set_busy (self, FALSE);
      emit_error (self, d->error);
      return;
    }
  /* never backwards: an older request's frame, or a preview after its full frame */
  if (d->id < w->delivered_id || (d->id == w->delivered_id && (w->delivered_full || d->is_preview)))
    return;
  w->delivered_id = d->id;
  w->delivered_full = !d->is_preview;

  g_set_object (&self->last_frame, d->frame);
  if (d->beam_mm[0] != self->derived_beam_mm[0] || d->beam_mm[1] != self->derived_beam_mm[1])
    {
      self->derived_beam_mm[0] = d->beam_mm[0];
      self->derived_beam_mm[1] = d->beam_mm[1];
      if (isnan (self->params.Xbeam))
        g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BEAM_CENTER_X]);
      if (isnan (self->params.Ybeam))
        g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BEAM_CENTER_Y]);
    }
  if (!d->is_preview && d->id == w->last_id)
    set_busy (self, FALSE);
  g_signal_emit (self, signals[SIGNAL_FRAME_READY], 0, d->frame);
}

/* Sends the current parameters to the worker: a preview first when
 * @interactive (a change) and previews are on, then the full frame. */
static void
simulation_request (BraggscopeSimulation *self, gboolean interactive)
{
  Request req = { 0 };
  nb_error err = { 0 };

  if (!self->rendering)
    return;
  if (nb_params_copy (&req.params, &self->params, &err) != NB_OK)
    {
      g_autoptr (GError) error = _braggscope_error_from_nb (&err);
      emit_error (self, error);
      return;
    }
  if (self->worker == NULL)
    self->worker = worker_new (self, self->context);
  req.valid = TRUE;
  req.id = ++self->worker->last_id;
  req.sequence = self->sequence;
  req.changed_us = g_get_monotonic_time ();
  req.stride = self->preview_stride;
  req.preview = interactive && self->preview_while_dragging && self->preview_stride >= 2;
  worker_submit (self->worker, &req);
  set_busy (self, TRUE);
}

/* An accepted change: a new sequence number, and a render when rendering. */
static void
simulation_changed (BraggscopeSimulation *self)
{
  self->sequence++;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEQUENCE]);
  simulation_request (self, TRUE);
}

/* ---- properties <-> nb_params ---- */

static double
not_given_as_zero (double v, double scale)
{
  return v < 0.0 ? 0.0 : v * scale;
}

static int
pixel_count (int n, double detsize, double pixel_size)
{
  /* nb_detector_setup's rule when only the size is given */
  return n > 0 ? n : (int) ceil (detsize / pixel_size - 0.5);
}

static void
simulation_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  BraggscopeSimulation *self = BRAGGSCOPE_SIMULATION (object);
  const nb_params *p = &self->params;

  switch (prop_id)
    {
      case PROP_MISSET_X:
      case PROP_MISSET_Y:
      case PROP_MISSET_Z:
        g_value_set_double (value, p->misset[prop_id - PROP_MISSET_X] * RTD);
        break;
      case PROP_WAVELENGTH:
        g_value_set_double (value, p->lambda0 * 1e10);
        break;
      case PROP_MOSAIC_SPREAD:
        g_value_set_double (value, not_given_as_zero (p->mosaic_spread, RTD));
        break;
      case PROP_MOSAIC_DOMAINS:
        g_value_set_int (value, p->mosaic_domains);
        break;
      case PROP_N_CELLS:
        g_value_set_int (value, (int) p->Na);
        break;
      case PROP_CELL_A:
      case PROP_CELL_B:
      case PROP_CELL_C:
        g_value_set_double (value, p->cell[prop_id - PROP_CELL_A]);
        break;
      case PROP_CELL_ALPHA:
      case PROP_CELL_BETA:
      case PROP_CELL_GAMMA:
        g_value_set_double (value, p->cell[3 + prop_id - PROP_CELL_ALPHA] * RTD);
        break;
      case PROP_CRYSTAL_SHAPE:
        g_value_set_enum (value, (int) p->shape);
        break;
      case PROP_DISTANCE:
        g_value_set_double (value, p->distance * 1000.0);
        break;
      case PROP_BEAM_CENTER_X:
        g_value_set_double (value, isnan (p->Xbeam) ? self->derived_beam_mm[0] : p->Xbeam * 1000.0);
        break;
      case PROP_BEAM_CENTER_Y:
        g_value_set_double (value, isnan (p->Ybeam) ? self->derived_beam_mm[1] : p->Ybeam * 1000.0);
        break;
      case PROP_PIXEL_SIZE:
        g_value_set_double (value, p->pixel_size * 1000.0);
        break;
      case PROP_DETECTOR_PIXELS_FAST:
        g_value_set_int (value, pixel_count (p->fpixels, p->detsize_f, p->pixel_size));
        break;
      case PROP_DETECTOR_PIXELS_SLOW:
        g_value_set_int (value, pixel_count (p->spixels, p->detsize_s, p->pixel_size));
        break;
      case PROP_CONVENTION:
        g_value_set_enum (value, (int) p->convention);
        break;
      case PROP_TWO_THETA:
        g_value_set_double (value, p->twotheta * RTD);
        break;
      case PROP_DETECTOR_ROTX:
        g_value_set_double (value, p->rotx * RTD);
        break;
      case PROP_DETECTOR_ROTY:
        g_value_set_double (value, p->roty * RTD);
        break;
      case PROP_DETECTOR_ROTZ:
        g_value_set_double (value, p->rotz * RTD);
        break;
      case PROP_OVERSAMPLE:
        g_value_set_int (value, p->oversample < 0 ? 0 : p->oversample);
        break;
      case PROP_PHI:
        g_value_set_double (value, p->phi0 * RTD);
        break;
      case PROP_OSC:
        g_value_set_double (value, not_given_as_zero (p->osc, RTD));
        break;
      case PROP_DISPERSION:
        g_value_set_double (value, p->dispersion * 100.0);
        break;
      case PROP_DIVERGENCE:
        g_value_set_double (value, not_given_as_zero (p->hdivrange, 1000.0));
        break;
      case PROP_POLARIZATION:
        g_value_set_double (value, p->polarization);
        break;
      case PROP_FLUENCE:
        g_value_set_double (value, p->fluence);
        break;
      case PROP_STRUCTURE_FACTORS:
        g_value_set_string (value, p->hkl_file);
        break;
      case PROP_DEFAULT_F:
        g_value_set_double (value, p->default_F);
        break;
      case PROP_PRECISION:
        g_value_set_enum (value, p->precision == NB_PRECISION_SINGLE ? BRAGGSCOPE_PRECISION_SINGLE
                                 : p->precision == NB_PRECISION_EXACT
                                     ? BRAGGSCOPE_PRECISION_EXACT
                                     : BRAGGSCOPE_PRECISION_DOUBLE);
        break;
      case PROP_BACKEND:
        g_value_set_string (value, backend_names[p->backend]);
        break;
      case PROP_PREVIEW_WHILE_DRAGGING:
        g_value_set_boolean (value, self->preview_while_dragging);
        break;
      case PROP_PREVIEW_STRIDE:
        g_value_set_int (value, self->preview_stride);
        break;
      case PROP_BUSY:
        g_value_set_boolean (value, self->busy);
        break;
      case PROP_SEQUENCE:
        g_value_set_uint64 (value, self->sequence);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* Writes the property into @p as its command-line flag would (same units and
 * side effects: -distance and -Xbeam/-Ybeam pivot about the beam, -twotheta
 * about the sample, a convention sets its pivot, -polar clears -nopolar). */
static void
apply_property (nb_params *p, guint prop_id, const GValue *value)
{
  double v = G_VALUE_HOLDS_DOUBLE (value) ? g_value_get_double (value) : 0.0;

  switch (prop_id)
    {
      case PROP_MISSET_X:
      case PROP_MISSET_Y:
      case PROP_MISSET_Z:
        p->misset[prop_id - PROP_MISSET_X] = v / RTD;
        p->misset_random = 0;
        break;
      case PROP_WAVELENGTH:
        p->lambda0 = v / 1.0e10;
        break;
      case PROP_MOSAIC_SPREAD:
        p->mosaic_spread = v / RTD;
        break;
      case PROP_MOSAIC_DOMAINS:
        p->mosaic_domains = g_value_get_int (value);
        break;
      case PROP_N_CELLS:
        p->Na = p->Nb = p->Nc = g_value_get_int (value);
        break;
      case PROP_CELL_A:
      case PROP_CELL_B:
      case PROP_CELL_C:
        p->cell[prop_id - PROP_CELL_A] = v;
        break;
      case PROP_CELL_ALPHA:
      case PROP_CELL_BETA:
      case PROP_CELL_GAMMA:
        p->cell[3 + prop_id - PROP_CELL_ALPHA] = v / RTD;
        break;
      case PROP_CRYSTAL_SHAPE:
        p->shape = (nb_shape) g_value_get_enum (value);
        break;
      case PROP_DISTANCE:
        p->distance = v / 1000.0;
        p->pivot = NB_PIVOT_BEAM;
        break;
      case PROP_BEAM_CENTER_X:
        p->Xbeam = isnan (v) ? NAN : v / 1000.0;
        p->pivot = NB_PIVOT_BEAM;
        break;
      case PROP_BEAM_CENTER_Y:
        p->Ybeam = isnan (v) ? NAN : v / 1000.0;
        p->pivot = NB_PIVOT_BEAM;
        break;
      case PROP_PIXEL_SIZE:
        p->pixel_size = v / 1000.0;
        break;
      case PROP_DETECTOR_PIXELS_FAST:
        p->fpixels = g_value_get_int (value);
        break;
      case PROP_DETECTOR_PIXELS_SLOW:
        p->spixels = g_value_get_int (value);
        break;
      case PROP_CONVENTION:
        p->convention = (nb_convention) g_value_get_enum (value);
        if (p->convention == NB_CONVENTION_XDS)
          p->pivot = NB_PIVOT_SAMPLE;
        else if (p->convention != NB_CONVENTION_CUSTOM)
          p->pivot = NB_PIVOT_BEAM;
        break;
      case PROP_TWO_THETA:
        p->twotheta = v / RTD;
        p->pivot = NB_PIVOT_SAMPLE;
        break;
      case PROP_DETECTOR_ROTX:
        p->rotx = v / RTD;
        break;
      case PROP_DETECTOR_ROTY:
        p->roty = v / RTD;
        break;
      case PROP_DETECTOR_ROTZ:
        p->rotz = v / RTD;
        break;
      case PROP_OVERSAMPLE:
        p->oversample = g_value_get_int (value) == 0 ? -1 : g_value_get_int (value);
        break;
      case PROP_PHI:
        p->phi0 = v / RTD;
        break;
      case PROP_OSC:
        p->osc = v / RTD;
        break;
      case PROP_DISPERSION:
        p->dispersion = v / 100.0;
        break;
      case PROP_DIVERGENCE:
        p->hdivrange = p->vdivrange = v / 1000.0;
        break;
      case PROP_POLARIZATION:
        p->polarization = v;
        p->nopolar = 0;
        break;
      case PROP_FLUENCE:
        p->fluence = v;
        break;
      case PROP_DEFAULT_F:
        p->default_F = v;
        break;
      case PROP_BACKEND:
        for (gsize i = 0; i < G_N_ELEMENTS (backend_names); i++)
          if (g_strcmp0 (g_value_get_string (value) ? g_value_get_string (value) : "auto",
                         backend_names[i]) == 0)
            p->backend = (nb_backend) i;
        break;
      case PROP_PRECISION:
        switch ((BraggscopePrecision) g_value_get_enum (value))
          {
            case BRAGGSCOPE_PRECISION_SINGLE:
              p->precision = NB_PRECISION_SINGLE;
              break;
            case BRAGGSCOPE_PRECISION_DOUBLE:
              p->precision = NB_PRECISION_DOUBLE;
              break;
            case BRAGGSCOPE_PRECISION_EXACT:
              p->precision = NB_PRECISION_EXACT;
              break;
          }
        break;
      default:
        g_assert_not_reached ();
    }
}

/* The values of every parameter property, to see which ones a bulk change
 * (set_from_args, load_snapshot) changed. */
static GValue *
snapshot_properties (BraggscopeSimulation *self)
{
  GValue *values = g_new0 (GValue, N_PROPS);

  for (guint i = PROP_0 + 1; i < N_PROPS; i++)
    {
      g_value_init (&values[i], properties[i]->value_type);
      simulation_get_property (G_OBJECT (self), i, &values[i], properties[i]);
    }
  return values;
}

static void
notify_changed_since (BraggscopeSimulation *self, GValue *before)
{
  GValue now = G_VALUE_INIT;

  g_object_freeze_notify (G_OBJECT (self));
  for (guint i = PROP_0 + 1; i < N_PROPS; i++)
    {
      g_value_init (&now, properties[i]->value_type);
      simulation_get_property (G_OBJECT (self), i, &now, properties[i]);
      if (g_param_values_cmp (properties[i], &before[i], &now) != 0)
        g_object_notify_by_pspec (G_OBJECT (self), properties[i]);
      g_value_unset (&now);
      g_value_unset (&before[i]);
    }
  g_free (before);
  g_object_thaw_notify (G_OBJECT (self));
}

static gboolean
set_structure_factors (BraggscopeSimulation *self, const char *path, GError **error)
{
  char *copy = NULL;

  if (path != NULL && path[0] != '\0')
    {
      if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
        {
          g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO,
                       "structure-factors: '%s' is not a readable file", path);
          return FALSE;
        }
      copy = strdup (path); /* the engine frees it with free () */
      if (copy == NULL)
        {
          g_set_error_literal (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_NOMEM, "out of memory");
          return FALSE;
        }
    }
  if (g_strcmp0 (copy, self->params.hkl_file) == 0)
    {
      free (copy);
      return TRUE;
    }
  free (self->params.hkl_file);
  self->params.hkl_file = copy;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STRUCTURE_FACTORS]);
  simulation_changed (self);
  return TRUE;
}

static void
simulation_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  BraggscopeSimulation *self = BRAGGSCOPE_SIMULATION (object);
  g_autoptr (GError) error = NULL;
  nb_params next;
  nb_error err = { 0 };

  switch (prop_id)
    {
      case PROP_STRUCTURE_FACTORS:
        if (!set_structure_factors (self, g_value_get_string (value), &error))
          emit_error (self, error);
        return;
      case PROP_BACKEND:
        {
          const char *name = g_value_get_string (value) ? g_value_get_string (value) : "auto";
          gsize i = 0;

          while (i < G_N_ELEMENTS (backend_names) && strcmp (name, backend_names[i]) != 0)
            i++;
          if (i == G_N_ELEMENTS (backend_names))
            {
              g_set_error (&error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                           "backend: '%s' is not one of auto, cpu, cuda", name);
              emit_error (self, error);
              return;
            }
        }
        break;
      case PROP_PREVIEW_WHILE_DRAGGING:
        if (self->preview_while_dragging != g_value_get_boolean (value))
          {
            self->preview_while_dragging = g_value_get_boolean (value);
            g_object_notify_by_pspec (object, pspec);
          }
        return;
      case PROP_PREVIEW_STRIDE:
        if (self->preview_stride != g_value_get_int (value))
          {
            self->preview_stride = g_value_get_int (value);
            g_object_notify_by_pspec (object, pspec);
          }
        return;
      case PROP_BUSY:
      case PROP_SEQUENCE:
      case PROP_0:
      case N_PROPS:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
        return;
      default:
        break;
    }

  /* the engine reads 0 here as "from -detsize" and -1 as "automatic"; as
   * properties, counts are counts */
  if ((prop_id == PROP_DETECTOR_PIXELS_FAST || prop_id == PROP_DETECTOR_PIXELS_SLOW ||
       prop_id == PROP_OVERSAMPLE) &&
      g_value_get_int (value) < (prop_id == PROP_OVERSAMPLE ? 0 : 1))
    {
      g_set_error (&error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID, "%s: %d (allowed: %s)",
                   pspec->name, g_value_get_int (value),
                   prop_id == PROP_OVERSAMPLE ? "0 = automatic, or 1 to 1000" : "1 to 65536");
      emit_error (self, error);
      return;
    }

  /* a numeric parameter: the strings stay shared, so a shallow copy will do */
  next = self->params;
  apply_property (&next, prop_id, value);
  if (memcmp (&next, &self->params, sizeof next) == 0)
    return;
  if (nb_params_validate (&next, &err) != NB_OK)
    {
      error = _braggscope_error_from_nb (&err);
      g_prefix_error (&error, "%s: ", pspec->name);
      emit_error (self, error);
      return;
    }
  self->params = next;
  g_object_notify_by_pspec (object, pspec);
  simulation_changed (self);
}

static void
simulation_dispose (GObject *object)
{
  BraggscopeSimulation *self = BRAGGSCOPE_SIMULATION (object);

  if (self->worker != NULL)
    {
      worker_stop (self->worker);
      g_clear_pointer (&self->worker, worker_unref);
    }
  g_clear_object (&self->last_frame);
  G_OBJECT_CLASS (braggscope_simulation_parent_class)->dispose (object);
}

static void
simulation_finalize (GObject *object)
{
  BraggscopeSimulation *self = BRAGGSCOPE_SIMULATION (object);

  nb_params_clear (&self->params);
  g_main_context_unref (self->context);
  G_OBJECT_CLASS (braggscope_simulation_parent_class)->finalize (object);
}

static GParamSpec *
angle_param (const char *name, const char *blurb)
{
  return g_param_spec_double (name, NULL, blurb, -INFINITY, INFINITY, 0.0,
                              G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS |
                                  G_PARAM_LAX_VALIDATION);
}

static void
braggscope_simulation_class_init (BraggscopeSimulationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  /* doubles: NaN would fail GObject's own range check (with a warning) */
  GParamFlags rw_double = rw | G_PARAM_LAX_VALIDATION;
  nb_params d;

  object_class->get_property = simulation_get_property;
  object_class->set_property = simulation_set_property;
  object_class->dispose = simulation_dispose;
  object_class->finalize = simulation_finalize;

  /* Defaults are nanoBragg's (nb_params_init).  The ranges are unbounded on
   * purpose (and NaN gets through): the engine's nb_params_validate() judges
   * a value, and a rejected one is reported through
   * #BraggscopeSimulation::error rather than as a GObject warning. */
  nb_params_init (&d);

  /**
   * BraggscopeSimulation:misset-x:
   *
   * Misset rotation of the crystal about the lab X axis, degrees (`-misset`;
   * applied X, then Y, then Z).
   */
  properties[PROP_MISSET_X] = angle_param ("misset-x", N_ ("Misset about X (degrees)"));
  /**
   * BraggscopeSimulation:misset-y:
   *
   * Misset rotation about the lab Y axis, degrees.
   */
  properties[PROP_MISSET_Y] = angle_param ("misset-y", N_ ("Misset about Y (degrees)"));
  /**
   * BraggscopeSimulation:misset-z:
   *
   * Misset rotation about the lab Z axis, degrees.
   */
  properties[PROP_MISSET_Z] = angle_param ("misset-z", N_ ("Misset about Z (degrees)"));
  /**
   * BraggscopeSimulation:wavelength:
   *
   * Central X-ray wavelength, Angstrom (`-lambda`), > 0.
   */
  properties[PROP_WAVELENGTH] =
      g_param_spec_double ("wavelength", NULL, N_ ("Wavelength (Angstrom)"), -INFINITY, INFINITY,
                           d.lambda0 * 1e10, rw_double);
  /**
   * BraggscopeSimulation:mosaic-spread:
   *
   * Isotropic mosaic spread, degrees (`-mosaic`), 0 to 180.
   */
  properties[PROP_MOSAIC_SPREAD] = g_param_spec_double (
      "mosaic-spread", NULL, N_ ("Mosaic spread (degrees)"), -INFINITY, INFINITY, 0.0, rw_double);
  /**
   * BraggscopeSimulation:mosaic-domains:
   *
   * Number of mosaic domains (`-mosaic_domains`); -1 (the default): chosen by
   * nanoBragg from the mosaic spread (1 without spread, else 10).
   */
  properties[PROP_MOSAIC_DOMAINS] =
      g_param_spec_int ("mosaic-domains", NULL, N_ ("Mosaic domains (count; -1 = automatic)"),
                        G_MININT, G_MAXINT, d.mosaic_domains, rw);
  /**
   * BraggscopeSimulation:n-cells:
   *
   * Unit cells along each crystal axis (`-N`: Na = Nb = Nc); reading gives Na.
   */
  properties[PROP_N_CELLS] =
      g_param_spec_int ("n-cells", NULL, N_ ("Unit cells along each axis (count)"), G_MININT,
                        G_MAXINT, (int) d.Na, rw);
  /**
   * BraggscopeSimulation:cell-a:
   *
   * Unit cell length a, Angstrom (`-cell`); 0 with the other cell properties:
   * no cell given.
   */
  properties[PROP_CELL_A] = g_param_spec_double ("cell-a", NULL, N_ ("Unit cell a (Angstrom)"),
                                                 -INFINITY, INFINITY, 0.0, rw_double);
  /**
   * BraggscopeSimulation:cell-b:
   *
   * Unit cell length b, Angstrom.
   */
  properties[PROP_CELL_B] = g_param_spec_double ("cell-b", NULL, N_ ("Unit cell b (Angstrom)"),
                                                 -INFINITY, INFINITY, 0.0, rw_double);
  /**
   * BraggscopeSimulation:cell-c:
   *
   * Unit cell length c, Angstrom.
   */
  properties[PROP_CELL_C] = g_param_spec_double ("cell-c", NULL, N_ ("Unit cell c (Angstrom)"),
                                                 -INFINITY, INFINITY, 0.0, rw_double);
  /**
   * BraggscopeSimulation:cell-alpha:
   *
   * Unit cell angle alpha, degrees.
   */
  properties[PROP_CELL_ALPHA] = angle_param ("cell-alpha", N_ ("Unit cell alpha (degrees)"));
  /**
   * BraggscopeSimulation:cell-beta:
   *
   * Unit cell angle beta, degrees.
   */
  properties[PROP_CELL_BETA] = angle_param ("cell-beta", N_ ("Unit cell beta (degrees)"));
  /**
   * BraggscopeSimulation:cell-gamma:
   *
   * Unit cell angle gamma, degrees.
   */
  properties[PROP_CELL_GAMMA] = angle_param ("cell-gamma", N_ ("Unit cell gamma (degrees)"));
  /**
   * BraggscopeSimulation:crystal-shape:
   *
   * The crystal's shape transform.
   */
  properties[PROP_CRYSTAL_SHAPE] =
      g_param_spec_enum ("crystal-shape", NULL, N_ ("Crystal shape transform"),
                         BRAGGSCOPE_TYPE_SHAPE, BRAGGSCOPE_SHAPE_SQUARE, rw);
  /**
   * BraggscopeSimulation:distance:
   *
   * Sample to beam spot on the detector, mm (`-distance`: also pivots the
   * detector about the beam spot), > 0.
   */
  properties[PROP_DISTANCE] =
      g_param_spec_double ("distance", NULL, N_ ("Detector distance (mm)"), -INFINITY, INFINITY,
                           d.distance * 1000.0, rw_double);
  /**
   * BraggscopeSimulation:beam-center-x:
   *
   * Beam centre along the convention's X, mm (`-Xbeam`).  Setting NaN returns
   * to the convention's default; reading then gives the centre the last
   * rendered frame used (NaN before the first frame).
   */
  properties[PROP_BEAM_CENTER_X] = g_param_spec_double (
      "beam-center-x", NULL, N_ ("Beam centre X (mm)"), -INFINITY, INFINITY, 0.0, rw_double);
  /**
   * BraggscopeSimulation:beam-center-y:
   *
   * Beam centre along the convention's Y, mm (`-Ybeam`); NaN as for
   * #BraggscopeSimulation:beam-center-x.
   */
  properties[PROP_BEAM_CENTER_Y] = g_param_spec_double (
      "beam-center-y", NULL, N_ ("Beam centre Y (mm)"), -INFINITY, INFINITY, 0.0, rw_double);
  /**
   * BraggscopeSimulation:pixel-size:
   *
   * Detector pixel size, mm (`-pixel`), > 0.
   */
  properties[PROP_PIXEL_SIZE] =
      g_param_spec_double ("pixel-size", NULL, N_ ("Pixel size (mm)"), -INFINITY, INFINITY,
                           d.pixel_size * 1000.0, rw_double);
  /**
   * BraggscopeSimulation:detector-pixels-fast:
   *
   * Pixels along the detector's fast axis (`-detpixels_f`), 1 to 65536.
   */
  properties[PROP_DETECTOR_PIXELS_FAST] = g_param_spec_int (
      "detector-pixels-fast", NULL, N_ ("Detector pixels along the fast axis (count)"), G_MININT,
      G_MAXINT, 512, rw);
  /**
   * BraggscopeSimulation:detector-pixels-slow:
   *
   * Pixels along the detector's slow axis (`-detpixels_s`), 1 to 65536.
   */
  properties[PROP_DETECTOR_PIXELS_SLOW] = g_param_spec_int (
      "detector-pixels-slow", NULL, N_ ("Detector pixels along the slow axis (count)"), G_MININT,
      G_MAXINT, 512, rw);
  /**
   * BraggscopeSimulation:convention:
   *
   * Detector convention (`-mosflm`, `-xds`...); sets the pivot as the flag
   * does.
   */
  properties[PROP_CONVENTION] =
      g_param_spec_enum ("convention", NULL, N_ ("Detector convention"), BRAGGSCOPE_TYPE_CONVENTION,
                         BRAGGSCOPE_CONVENTION_MOSFLM, rw);
  /**
   * BraggscopeSimulation:two-theta:
   *
   * Detector two-theta swing, degrees (`-twotheta`: also pivots about the
   * sample).
   */
  properties[PROP_TWO_THETA] = angle_param ("two-theta", N_ ("Detector two-theta (degrees)"));
  /**
   * BraggscopeSimulation:detector-rotx:
   *
   * Detector rotation about the lab X axis, degrees (`-detector_rotx`).
   */
  properties[PROP_DETECTOR_ROTX] =
      angle_param ("detector-rotx", N_ ("Detector rotation X (degrees)"));
  /**
   * BraggscopeSimulation:detector-roty:
   *
   * Detector rotation about the lab Y axis, degrees.
   */
  properties[PROP_DETECTOR_ROTY] =
      angle_param ("detector-roty", N_ ("Detector rotation Y (degrees)"));
  /**
   * BraggscopeSimulation:detector-rotz:
   *
   * Detector rotation about the lab Z axis, degrees.
   */
  properties[PROP_DETECTOR_ROTZ] =
      angle_param ("detector-rotz", N_ ("Detector rotation Z (degrees)"));
  /**
   * BraggscopeSimulation:oversample:
   *
   * Sub-pixels per pixel axis (`-oversample`), 0 = automatic from the
   * crystal size, up to 1000.
   */
  properties[PROP_OVERSAMPLE] =
      g_param_spec_int ("oversample", NULL, N_ ("Sub-pixels per pixel axis (count; 0 = automatic)"),
                        G_MININT, G_MAXINT, 0, rw);
  /**
   * BraggscopeSimulation:phi:
   *
   * Spindle angle at the start of the exposure, degrees (`-phi`).
   */
  properties[PROP_PHI] = angle_param ("phi", N_ ("Start spindle angle phi (degrees)"));
  /**
   * BraggscopeSimulation:osc:
   *
   * Oscillation range, degrees (`-osc`), >= 0.
   */
  properties[PROP_OSC] = angle_param ("osc", N_ ("Oscillation range (degrees)"));
  /**
   * BraggscopeSimulation:dispersion:
   *
   * Full spectral width, percent of the wavelength (`-dispersion`).
   */
  properties[PROP_DISPERSION] =
      g_param_spec_double ("dispersion", NULL, N_ ("Spectral dispersion (percent)"), -INFINITY,
                           INFINITY, 0.0, rw_double);
  /**
   * BraggscopeSimulation:divergence:
   *
   * Beam divergence, horizontal and vertical, mrad (`-divergence`).
   */
  properties[PROP_DIVERGENCE] = g_param_spec_double (
      "divergence", NULL, N_ ("Beam divergence (mrad)"), -INFINITY, INFINITY, 0.0, rw_double);
  /**
   * BraggscopeSimulation:polarization:
   *
   * Kahn polarization factor (`-polar`), -1 to 1.
   */
  properties[PROP_POLARIZATION] =
      g_param_spec_double ("polarization", NULL, N_ ("Kahn polarization factor"), -INFINITY,
                           INFINITY, d.polarization, rw_double);
  /**
   * BraggscopeSimulation:fluence:
   *
   * Incident fluence, photons/m^2 (`-fluence`).
   */
  properties[PROP_FLUENCE] = g_param_spec_double ("fluence", NULL, N_ ("Fluence (photons/m^2)"),
                                                  -INFINITY, INFINITY, d.fluence, rw_double);
  /**
   * BraggscopeSimulation:structure-factors:
   *
   * File of structure factors, one "h k l F" per line (`-hkl`); %NULL or ""
   * for none (#BraggscopeSimulation:default-f for every reflection).
   */
  properties[PROP_STRUCTURE_FACTORS] = g_param_spec_string (
      "structure-factors", NULL, N_ ("Structure factor file (HKL text; path)"), NULL, rw);
  /**
   * BraggscopeSimulation:default-f:
   *
   * Structure factor of reflections not in the file (`-default_F`).
   */
  properties[PROP_DEFAULT_F] = g_param_spec_double (
      "default-f", NULL, N_ ("Structure factor of reflections not in the file"), -G_MAXDOUBLE,
      G_MAXDOUBLE, d.default_F, rw_double);
  /**
   * BraggscopeSimulation:precision:
   *
   * Kernel arithmetic (`-precision`).
   */
  properties[PROP_PRECISION] =
      g_param_spec_enum ("precision", NULL, N_ ("Kernel arithmetic"), BRAGGSCOPE_TYPE_PRECISION,
                         BRAGGSCOPE_PRECISION_DOUBLE, rw);
  /**
   * BraggscopeSimulation:backend:
   *
   * Where frames are computed: "auto" (the GPU when there is one, else the
   * CPU), "cpu" or "cuda" (`-backend`).  Asking for "cuda" where this build or
   * machine has none is reported through #BraggscopeSimulation::error when
   * rendering.
   */
  properties[PROP_BACKEND] =
      g_param_spec_string ("backend", NULL, N_ ("Compute backend (auto, cpu, cuda)"), "auto", rw);
  /**
   * BraggscopeSimulation:preview-while-dragging:
   *
   * Render a coarse preview first for every change, then the full frame.
   */
  properties[PROP_PREVIEW_WHILE_DRAGGING] = g_param_spec_boolean (
      "preview-while-dragging", NULL, N_ ("Render previews while parameters change"), TRUE, rw);
  /**
   * BraggscopeSimulation:preview-stride:
   *
   * A preview simulates one pixel per preview-stride x preview-stride block
   * (1: no previews).
   */
  properties[PROP_PREVIEW_STRIDE] =
      g_param_spec_int ("preview-stride", NULL, N_ ("Preview block size (pixels)"), 1, 64, 4, rw);
  /**
   * BraggscopeSimulation:busy:
   *
   * %TRUE from a render request until its full frame (or error) arrives.
   */
  properties[PROP_BUSY] =
      g_param_spec_boolean ("busy", NULL, N_ ("A frame is being rendered"), FALSE,
                            G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * BraggscopeSimulation:sequence:
   *
   * Incremented by every accepted parameter change; frames carry the
   * sequence they answer.
   */
  properties[PROP_SEQUENCE] = g_param_spec_uint64 (
      "sequence", NULL, N_ ("Accepted parameter changes (count)"), 0, G_MAXUINT64, 0,
      G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  nb_params_clear (&d);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * BraggscopeSimulation::frame-ready:
   * @self: the simulation
   * @frame: the new frame
   *
   * A frame is ready: a preview while parameters change, then the full
   * frame.  Emitted on the thread-default main context the simulation was
   * created in; frames never answer an older sequence than one delivered
   * before.  braggscope_simulation_get_last_frame() returns it afterwards.
   */
  signals[SIGNAL_FRAME_READY] =
      g_signal_new ("frame-ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                    NULL, G_TYPE_NONE, 1, BRAGGSCOPE_TYPE_FRAME);
  /**
   * BraggscopeSimulation::error:
   * @self: the simulation
   * @error: what went wrong, in the %BRAGGSCOPE_ERROR domain
   *
   * A parameter change was rejected (the property keeps its value), or the
   * engine failed to render the parameters (the frames keep showing the last
   * parameters it accepted).  Emitted on the creation context.
   */
  signals[SIGNAL_ERROR] = g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
braggscope_simulation_init (BraggscopeSimulation *self)
{
  self->context = g_main_context_ref_thread_default ();
  nb_params_init (&self->params);
  self->params.fpixels = self->params.spixels = 512;
  self->preview_while_dragging = TRUE;
  self->preview_stride = 4;
  self->derived_beam_mm[0] = self->derived_beam_mm[1] = NAN;
}

/**
 * braggscope_simulation_new:
 *
 * A simulation with nanoBragg's defaults (no cell and no structure factors
 * yet: set them, then call braggscope_simulation_render()) on a 512 x 512
 * detector.
 *
 * Returns: (transfer full): a new simulation
 */
BraggscopeSimulation *
braggscope_simulation_new (void)
{
  return g_object_new (BRAGGSCOPE_TYPE_SIMULATION, NULL);
}

static char *
find_default_scene (GError **error)
{
  const char *dirs[3] = { g_getenv ("BRAGGSCOPE_DATADIR"), BRAGGSCOPE_INSTALLED_DATADIR,
                          BRAGGSCOPE_SOURCE_DATADIR };

  for (gsize i = 0; i < G_N_ELEMENTS (dirs); i++)
    if (dirs[i] != NULL && dirs[i][0] != '\0')
      {
        g_autofree char *path = g_build_filename (dirs[i], DEFAULT_SCENE_HKL, NULL);

        if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
          return g_steal_pointer (&path);
      }
  g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO,
               "%s: not found in $BRAGGSCOPE_DATADIR (%s), %s or %s", DEFAULT_SCENE_HKL,
               dirs[0] ? dirs[0] : "unset", BRAGGSCOPE_INSTALLED_DATADIR,
               BRAGGSCOPE_SOURCE_DATADIR);
  return NULL;
}

/**
 * braggscope_simulation_new_default_scene:
 * @error: a #GError, %BRAGGSCOPE_ERROR_IO when the data file is missing
 *
 * The default scene: HIV-1 protease (PDB 1HPV, structure factors from
 * `1hpv_p1.hkl`, P1, cell 63.4 63.4 83.8 90 90 120), misset 10 20 30 degrees,
 * 1 Angstrom, 10 x 10 x 10 cells, 0.2 degree mosaic spread in 5 domains, 120 mm,
 * 1024 x 1024 pixels of 0.1 mm, single precision.  The data file is looked
 * up in $BRAGGSCOPE_DATADIR, the installed data folder (datadir/braggscope),
 * then the source tree.  Rendering starts at once.
 *
 * Returns: (transfer full): a new simulation, or %NULL with @error set
 */
BraggscopeSimulation *
braggscope_simulation_new_default_scene (GError **error)
{
  g_autofree char *hkl = find_default_scene (error);
  g_autoptr (BraggscopeSimulation) self = NULL;
  const char *args[] = { "-hkl",   hkl,         "-cell",      "63.4",       "63.4",
                         "83.8",   "90",        "90",         "120",        "-misset",
                         "10",     "20",        "30",         "-lambda",    "1.0",
                         "-N",     "10",        "-mosaic",    "0.2",        "-mosaic_domains",
                         "5",      "-distance", "120",        "-detpixels", "1024",
                         "-pixel", "0.1",       "-precision", "single",     NULL };

  if (hkl == NULL)
    return NULL;
  self = braggscope_simulation_new ();
  if (!braggscope_simulation_set_from_args (self, args, error))
    return NULL;
  braggscope_simulation_render (self);
  return g_steal_pointer (&self);
}

/* Replaces the parameters by @next (taken over) and reports the change. */
static void
simulation_replace_params (BraggscopeSimulation *self, nb_params *next)
{
  GValue *before = snapshot_properties (self);

  nb_params_clear (&self->params);
  self->params = *next;
  notify_changed_since (self, before);
  simulation_changed (self);
}

/* Parses nanoBragg flags (argv[0] the program name) on top of @base into @out. */
static gboolean
parse_flags (const nb_params *base, const char *const *argv, nb_params *out, GError **error)
{
  nb_error err = { 0 };
  int argc = (int) g_strv_length ((char **) argv);

  if (nb_params_copy (out, base, &err) != NB_OK)
    goto fail;
  if (nb_params_parse_argv (out, argc, argv, &err) != NB_OK ||
      nb_params_validate (out, &err) != NB_OK)
    {
      nb_params_clear (out);
      goto fail;
    }
  return TRUE;

fail:
  _braggscope_propagate_nb (error, &err);
  return FALSE;
}

/**
 * braggscope_simulation_set_from_args:
 * @self: a simulation
 * @args: (array zero-terminated=1): nanoBragg flags, without the program
 *   name, e.g. { "-lambda", "1.2", "-distance", "150", NULL }
 * @error: a #GError, %BRAGGSCOPE_ERROR_INVALID naming the flag and value
 *
 * Applies nanoBragg command-line flags on top of the current parameters,
 * in order, last wins, with nanoBragg's spellings and units.  Nothing changes
 * on error.  Files named by the flags are read when the frame is rendered;
 * errors reading them arrive as #BraggscopeSimulation::error.
 *
 * Returns: %TRUE when the flags were applied
 */
gboolean
braggscope_simulation_set_from_args (BraggscopeSimulation *self,
                                     const char *const *args,
                                     GError **error)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  nb_params next;

  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), FALSE);
  g_return_val_if_fail (args != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_ptr_array_add (argv, (gpointer) "braggscope");
  for (gsize i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  if (!parse_flags (&self->params, (const char *const *) argv->pdata, &next, error))
    return FALSE;
  simulation_replace_params (self, &next);
  return TRUE;
}

/* Restores the parameters from @args (args[0] the program name) on top of
 * nanoBragg's defaults; the snapshot loader uses it. */
gboolean
_braggscope_simulation_restore_args (BraggscopeSimulation *self,
                                     const char *const *args,
                                     GError **error)
{
  nb_params base, next;
  gboolean ok;

  nb_params_init (&base);
  ok = parse_flags (&base, args, &next, error);
  nb_params_clear (&base);
  if (!ok)
    return FALSE;
  simulation_replace_params (self, &next);
  return TRUE;
}

char **
_braggscope_params_to_strv (const nb_params *params)
{
  int argc = 0;
  char **argv = nb_params_to_argv (params, &argc);
  char **strv;

  if (argv == NULL)
    return NULL;
  strv = g_new (char *, argc + 1);
  for (int i = 0; i < argc; i++)
    strv[i] = g_strdup (argv[i]);
  strv[argc] = NULL;
  nb_argv_free (argv);
  return strv;
}

/**
 * braggscope_simulation_to_args:
 * @self: a simulation
 *
 * The current parameters as a `nanobragg` command line: the first element is
 * "nanobragg", then the flags of every parameter that differs from
 * nanoBragg's defaults (and the seeds), so that the command-line program, or
 * braggscope_simulation_set_from_args() on a new simulation (without the
 * first element), reproduces them.
 *
 * Returns: (transfer full) (array zero-terminated=1): the flags; free with
 *   g_strfreev()
 */
char **
braggscope_simulation_to_args (BraggscopeSimulation *self)
{
  char **args;

  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), NULL);

  args = _braggscope_params_to_strv (&self->params);
  if (args == NULL)
    g_error ("out of memory formatting the parameters");
  return args;
}

/**
 * braggscope_simulation_to_command_line:
 * @self: a simulation
 *
 * braggscope_simulation_to_args() as one string, each argument quoted for a
 * POSIX shell where needed.
 *
 * Returns: (transfer full): the command line
 */
char *
braggscope_simulation_to_command_line (BraggscopeSimulation *self)
{
  g_auto (GStrv) args = NULL;
  GString *line = g_string_new (NULL);

  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), NULL);

  args = braggscope_simulation_to_args (self);
  for (guint i = 0; args[i] != NULL; i++)
    {
      gboolean plain = args[i][0] != '\0';

      for (const char *c = args[i]; *c != '\0' && plain; c++)
        plain = g_ascii_isalnum (*c) || strchr ("-_./+=:,@%", *c) != NULL;
      if (i > 0)
        g_string_append_c (line, ' ');
      if (plain)
        g_string_append (line, args[i]);
      else
        {
          g_autofree char *quoted = g_shell_quote (args[i]);
          g_string_append (line, quoted);
        }
    }
  return g_string_free (line, FALSE);
}

/**
 * braggscope_simulation_render:
 * @self: a simulation
 *
 * Requests a full frame of the current parameters; from then on every
 * accepted change renders too.  The frame arrives as
 * #BraggscopeSimulation::frame-ready, a failure as
 * #BraggscopeSimulation::error.
 */
void
braggscope_simulation_render (BraggscopeSimulation *self)
{
  g_return_if_fail (BRAGGSCOPE_IS_SIMULATION (self));

  self->rendering = TRUE;
  simulation_request (self, FALSE);
}

/**
 * braggscope_simulation_get_last_frame:
 * @self: a simulation
 *
 * Returns: (transfer none) (nullable): the frame last delivered by
 *   #BraggscopeSimulation::frame-ready, or %NULL before the first
 */
BraggscopeFrame *
braggscope_simulation_get_last_frame (BraggscopeSimulation *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), NULL);
  return self->last_frame;
}

/**
 * braggscope_simulation_get_busy:
 * @self: a simulation
 *
 * Returns: %TRUE while a requested frame has not arrived
 */
gboolean
braggscope_simulation_get_busy (BraggscopeSimulation *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), FALSE);
  return self->busy;
}

/**
 * braggscope_simulation_get_sequence:
 * @self: a simulation
 *
 * Returns: the number of accepted parameter changes so far
 */
guint64
braggscope_simulation_get_sequence (BraggscopeSimulation *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), 0);
  return self->sequence;
}

/* For tests of steady state: image buffers the worker ever allocated. */
guint
_braggscope_simulation_get_buffers_allocated (BraggscopeSimulation *self)
{
  return self->worker != NULL ? _braggscope_frame_pool_get_allocated (self->worker->pool) : 0;
}
