/* braggscope-worker.c: the thread that owns a BraggscopeSimulation's plan.
 *
 * The simulation posts requests (the newest wins, a full render in flight is
 * cancelled); this thread brings the plan to a request's parameters, renders
 * a preview and then the full frame, and hands each frame (or error) to the
 * simulation on its main context through the callbacks it was given at
 * creation (BraggscopeWorkerCallbacks).  See braggscope-simulation.c for the
 * protocol and braggscope-worker-private.h for the interface.
 */
#include "braggscope-worker-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The measured peaks a score and a fit use: the strongest this many within
 * MATCH_D_MAX (the direct beam and the beam stop's shadow lie beyond it), as
 * nanobragg-match takes them, from the strongest PEAKS_FOUND of the frame. */
#define MATCH_PEAKS 50
#define PEAKS_FOUND (20 * MATCH_PEAKS)
#define MATCH_D_MAX 100.0
/* fit-progress at most this often (microseconds) */
#define PROGRESS_INTERVAL_US 100000
/* render-progress at most this often (microseconds) */
#define RENDER_PROGRESS_INTERVAL_US 200000
/* a frame's own progress predicts its end alone once this much of it is
 * done; before, it is weighed against the rate of the frames before, or,
 * without one, trusted only after RENDER_PROGRESS_SETTLED_S (the first tiles
 * also pay for starting the threads and touching the image) */
#define RENDER_PROGRESS_TRUSTED   0.05
#define RENDER_PROGRESS_SETTLED_S 1.0

struct _BraggscopeWorker
{
  gatomicrefcount ref_count;
  GMutex lock;
  GCond cond;
  GThread *thread;
  GMainContext *context; /* the owner's: results go there */
  GWeakRef owner;
  BraggscopeWorkerCallbacks callbacks;
  BraggscopeFramePool *pool;

  /* under lock */
  GQueue pending; /* BraggscopeRequest *, oldest first: the newest alone unless batched */
  gboolean quit;
  gboolean preview_in_flight; /* a preview, or a full frame in its place: not cancelled */
  gint cancel;                /* raised under lock; the engine polls it (nb_exec_options.cancel) */
  BraggscopeFitJob *fit;      /* queued */

  /* worker thread only */
  nb_plan *plan;
  guint64 plan_request; /* the request whose params the plan holds; 0: none */
  int hits, rebuilds;   /* stage counters of that update */
  nb_geometry *geometry_key;
  BraggscopeGeometry *geometry;
  BraggscopeFrameSource *source;
  /* the peaks of a measured frame (found once per frame) */
  BraggscopeMeasuredFrame *peaks_of;
  nb_peak *peaks;
  int n_peaks;
  char *peaks_detector; /* the -detector file the peaks were found panel by panel with */
  /* this machine's rate: seconds per sample (pixel x sub-pixel x source x
   * domain x phi step) of the last frame executed to its end; 0: none yet */
  double seconds_per_sample;
  /* the last adaptive full frame's samples per pixel (its cells' count,
   * nb_plan_timing.samples) and seconds per sample of adaptive_samples_of
   * (its samples are not the fast kernel's vectorised ones); 0: none yet */
  double adaptive_samples_per_pixel, adaptive_seconds_per_sample;
};

static void
request_clear (BraggscopeRequest *r)
{
  if (r->valid)
    nb_params_clear (&r->params);
  g_clear_object (&r->measured);
  memset (r, 0, sizeof *r);
}

static void
request_free (gpointer data)
{
  request_clear (data);
  g_free (data);
}

static BraggscopeWorker *
worker_ref (BraggscopeWorker *w)
{
  g_atomic_ref_count_inc (&w->ref_count);
  return w;
}

void
_braggscope_worker_unref (BraggscopeWorker *w)
{
  if (!g_atomic_ref_count_dec (&w->ref_count))
    return;
  g_queue_clear_full (&w->pending, request_free);
  g_weak_ref_clear (&w->owner);
  _braggscope_frame_pool_unref (w->pool);
  g_main_context_unref (w->context);
  g_cond_clear (&w->cond);
  g_mutex_clear (&w->lock);
  g_free (w);
}

static void
delivery_free (gpointer data)
{
  BraggscopeDelivery *d = data;

  g_clear_object (&d->frame);
  g_clear_error (&d->error);
  _braggscope_worker_unref (d->worker);
  g_free (d);
}

static gboolean
delivery_dispatch (gpointer data)
{
  BraggscopeDelivery *d = data;
  g_autoptr (GObject) owner = g_weak_ref_get (&d->worker->owner);

  if (owner != NULL)
    d->worker->callbacks.deliver (owner, d);
  return G_SOURCE_REMOVE;
}

static void
worker_post (BraggscopeWorker *w, BraggscopeDelivery *d)
{
  d->worker = worker_ref (w);
  g_main_context_invoke_full (w->context, G_PRIORITY_DEFAULT, delivery_dispatch, d, delivery_free);
}

static void
worker_post_error (BraggscopeWorker *w, const BraggscopeRequest *req, const nb_error *err)
{
  BraggscopeDelivery *d = g_new0 (BraggscopeDelivery, 1);

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
worker_mask (BraggscopeWorker *w)
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

/* Brings the plan to @params; @key says which request (and variant) it
 * then holds. */
static nb_status
worker_update_plan (BraggscopeWorker *w, const nb_params *params, guint64 key, nb_error *err)
{
  nb_plan_stats before = { 0 }, after;
  BraggscopeFrameSource *source = NULL;
  nb_geometry *geom;
  g_autoptr (GBytes) mask = NULL;
  nb_status st;

  if (w->plan == NULL)
    {
      /* a viewer renders many frames: the GPU's start-up is worth it, and
       * starts while the plan reads its files */
      nb_cuda_warm_up (params);
      st = nb_plan_create (params, &w->plan, err);
    }
  else
    {
      nb_plan_get_stats (w->plan, &before);
      st = nb_plan_update (w->plan, params, err);
    }
  if (st != NB_OK)
    {
      /* the plan keeps its previous parameters (or there is none yet) */
      w->plan_request = 0;
      return st;
    }
  nb_plan_get_stats (w->plan, &after);
  sum_stats (&before, &after, &w->hits, &w->rebuilds);
  w->plan_request = key;

  /* the snapshot is shared until an update changes what it holds */
  geom = nb_plan_ref_geometry (w->plan);
  mask = worker_mask (w);
  source = _braggscope_frame_source_new (nb_plan_get_info (w->plan), params, mask,
                                         nb_plan_get_warnings (w->plan));
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
      BraggscopeGeometry *previous = w->geometry;

      w->geometry = _braggscope_geometry_new_plan (geom, w->plan);
      if (w->geometry == NULL)
        {
          g_clear_pointer (&previous, braggscope_geometry_unref);
          w->geometry_key = NULL;
          _braggscope_frame_source_unref (source);
          w->plan_request = 0;
          return nb_error_set (err, NB_ERR_NOMEM, "out of memory for a frame's panels");
        }
      w->geometry_key = geom;
      /* a multi-panel detector's picture as the sample sees it is made
       * here, once per geometry, rather than by the thread that shows the
       * frame (braggscope_frame_project): seconds for a 16-Mpixel one,
       * unless the previous geometry's picture of the same panels serves */
      if (braggscope_geometry_get_n_panels (w->geometry) > 1)
        _braggscope_geometry_project_after (w->geometry, previous);
      g_clear_pointer (&previous, braggscope_geometry_unref);
    }
  _braggscope_frame_source_unref (w->source);
  w->source = source;
  return NB_OK;
}

/* The measured peaks to match with @params: the strongest MATCH_PEAKS of
 * @measured within MATCH_D_MAX, a malloc'ed array in *@out of *@n. */
static nb_status
worker_peaks (BraggscopeWorker *w,
              BraggscopeMeasuredFrame *measured,
              const nb_params *params,
              nb_peak **out,
              int *n,
              nb_error *err)
{
  *out = NULL;
  *n = 0;
  if (w->peaks_of != measured || g_strcmp0 (w->peaks_detector, params->detector_file) != 0)
    {
      nb_peak_options opt;
      nb_detector_model detector;
      nb_status st;

      /* a -detector model's frame is searched panel by panel, its peaks in their panels (the
       * file read here: a fit may come before any plan of it) */
      nb_detector_model_init (&detector);
      if (params->detector_file != NULL &&
          (st = nb_detector_model_read (params->detector_file, &detector, err)) != NB_OK)
        return st;
      g_clear_object (&w->peaks_of);
      g_clear_pointer (&w->peaks, free);
      g_clear_pointer (&w->peaks_detector, g_free);
      w->n_peaks = 0;
      nb_peak_options_init (&opt);
      opt.max_peaks = PEAKS_FOUND;
      st = nb_find_panel_peaks (_braggscope_measured_frame_peek (measured), &detector, &opt,
                                &w->peaks, &w->n_peaks, err);
      nb_detector_model_clear (&detector);
      if (st != NB_OK)
        return st;
      w->peaks_of = g_object_ref (measured);
      w->peaks_detector = g_strdup (params->detector_file);
    }
  if (w->n_peaks == 0)
    return NB_OK;
  *out = malloc ((size_t) w->n_peaks * sizeof **out);
  if (*out == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory for the measured peaks");
  memcpy (*out, w->peaks, (size_t) w->n_peaks * sizeof **out);
  *n = nb_peaks_in_resolution (params, *out, w->n_peaks, 0.0, MATCH_D_MAX, err);
  if (*n < 0)
    {
      g_clear_pointer (out, free);
      *n = 0;
      return err->code;
    }
  if (*n > MATCH_PEAKS)
    *n = MATCH_PEAKS;
  return NB_OK;
}

/* The match score of the full frame @image of @req against its measured
 * frame into @d: the peaks' part always, the correlation in shells when the
 * sizes agree or the plan's panels lie in the frame.  A failure leaves @d
 * without a score (the frame still arrives). */
static void
worker_score (BraggscopeWorker *w,
              const BraggscopeRequest *req,
              const float *image,
              BraggscopeDelivery *d)
{
  const nb_frame *frame = _braggscope_measured_frame_peek (req->measured);
  const nb_plan_info *info = nb_plan_get_info (w->plan);
  nb_match_options opt;
  nb_peak *peaks = NULL;
  nb_error err = { 0 };
  int n;
  nb_status st;

  /* a detector one flat panel cannot represent has no score that means anything, unless a
   * -detector model gives its panels */
  if (braggscope_measured_frame_get_detector_problem (req->measured) != NULL &&
      req->params.detector_file == NULL)
    return;
  if (worker_peaks (w, req->measured, &req->params, &peaks, &n, &err) != NB_OK)
    return;
  nb_match_options_init (&opt);
  opt.radius = req->match_radius;
  opt.trials = req->match_trials;
  /* the frame's unmasked pixels make the chance area, and the shells' pixels: several
   * panels' are taken from the frame panel by panel (at their data origins, or one after
   * another) */
  if (info->n_panels > 0 || (info->fpixels == frame->fpixels && info->spixels == frame->spixels))
    st = nb_match_frame (w->plan, image, frame, peaks, n, &opt, &d->match, &err);
  else
    st = nb_match_peaks (&req->params, peaks, n, &opt, &d->match, NULL, &err);
  free (peaks);
  d->has_match = st == NB_OK;
}

/* The plan's key for @req: its parameters as given, or (arcs) with the
 * mosaic domains its full frame draws smooth arcs with. */
#define KEY(req, arcs) ((req)->id * 2 + ((arcs) ? 1 : 0))

/* Brings the plan to what @req's preview or full frame renders: a full
 * frame may take more mosaic domains (BraggscopeSimulation:max-arc-domains),
 * a preview keeps the parameters' count. */
static nb_status
worker_prepare (BraggscopeWorker *w, const BraggscopeRequest *req, gboolean preview, nb_error *err)
{
  nb_params arcs;
  nb_status st;
  int n;

  if (w->plan != NULL && w->plan_request == KEY (req, TRUE) && !preview)
    return NB_OK;
  if (w->plan == NULL || w->plan_request != KEY (req, FALSE))
    if ((st = worker_update_plan (w, &req->params, KEY (req, FALSE), err)) != NB_OK)
      return st;
  if (preview || req->max_arc_domains <= 0)
    return NB_OK;
  n = nb_plan_arc_domains (w->plan, req->max_arc_domains);
  if (n <= nb_plan_get_info (w->plan)->mosaic_domains)
    return NB_OK;
  if ((st = nb_params_copy (&arcs, &req->params, err)) != NB_OK)
    return st;
  arcs.mosaic_domains = n;
  st = worker_update_plan (w, &arcs, KEY (req, TRUE), err);
  nb_params_clear (&arcs);
  return st;
}

/* ------------------------------------------------------------------------- */
/* A full frame's progress */

/* The samples an execute of @info renders: the pixels it simulates (one per
 * @stride x @stride block for a preview) times the steps of each. */
static double
samples_of (const nb_plan_info *info, int stride)
{
  int k = MAX (stride, 1);
  double width = CLAMP (info->roi[1] - info->roi[0], 1, info->fpixels);
  double height = CLAMP (info->roi[3] - info->roi[2], 1, info->spixels);

  return ceil (width / k) * ceil (height / k) * MAX (info->steps, 1);
}

/* An adaptive frame's cost per pixel beyond its samples, in samples: the
 * bound of each pixel (about a sample's work per source and step) in the
 * last pass and of every second row in the first (kernel-adaptive.c). */
#define ADAPTIVE_BOUND_SAMPLES 1.5

/* The samples, in samples_of's units, of a full frame of @info integrated
 * adaptively at @per_pixel sub-pixel samples per pixel (at most the exact
 * method's: the cap of docs/adaptive-integration.md), its bounds included. */
static double
adaptive_samples_of (const nb_plan_info *info, double per_pixel)
{
  double os2 = (double) info->oversample * info->oversample;

  per_pixel = MIN (per_pixel, os2 * MAX (info->thicksteps, 1));
  return samples_of (info, 1) / os2 * (per_pixel + ADAPTIVE_BOUND_SAMPLES);
}

typedef struct
{
  BraggscopeWorker *w;
  guint64 id;
  gint64 start_us, last_us;
  gboolean finished; /* the end was posted */
  double predicted;  /* seconds, from the rate; 0 when unknown */
  BraggscopeRenderProgress progress;
} RenderProgress;

typedef struct
{
  BraggscopeWorker *worker;
  guint64 id;
  BraggscopeRenderProgress progress;
} RenderProgressMessage;

static gboolean
render_progress_dispatch (gpointer data)
{
  RenderProgressMessage *m = data;
  g_autoptr (GObject) owner = g_weak_ref_get (&m->worker->owner);

  if (owner != NULL)
    m->worker->callbacks.render_progress (owner, m->id, &m->progress);
  return G_SOURCE_REMOVE;
}

static void
render_progress_free (gpointer data)
{
  RenderProgressMessage *m = data;

  _braggscope_worker_unref (m->worker);
  g_free (m);
}

/* Posts where @p stands at @fraction. */
static void
render_progress_post (RenderProgress *p, double fraction, gint64 now)
{
  RenderProgressMessage *m = g_new0 (RenderProgressMessage, 1);
  double elapsed = (now - p->start_us) / 1e6;

  p->last_us = now;
  m->worker = worker_ref (p->w);
  m->id = p->id;
  m->progress = p->progress;
  m->progress.fraction = fraction;
  m->progress.elapsed = elapsed;
  if (fraction >= 1.0)
    m->progress.remaining = 0.0;
  else if (fraction > 0.0 && (p->predicted > 0.0 || fraction >= RENDER_PROGRESS_TRUSTED ||
                              elapsed >= RENDER_PROGRESS_SETTLED_S))
    {
      /* the rows are rendered in tiles of equal work */
      double extrapolated = elapsed * (1.0 - fraction) / fraction;
      double weight = p->predicted > 0.0 ? MIN (fraction / RENDER_PROGRESS_TRUSTED, 1.0) : 1.0;

      m->progress.remaining =
          weight * extrapolated + (1.0 - weight) * MAX (p->predicted - elapsed, 0.0);
    }
  else if (p->predicted > 0.0)
    m->progress.remaining = MAX (p->predicted - elapsed, 0.0);
  else
    m->progress.remaining = NAN;
  m->progress.estimate = elapsed + m->progress.remaining;
  g_main_context_invoke_full (p->w->context, G_PRIORITY_DEFAULT, render_progress_dispatch, m,
                              render_progress_free);
}

/* nb_exec_options.progress: called by the engine on the rendering thread
 * (inside its OpenMP team, once per tile) with the rows done; an atomic-free
 * time check per tile, a post to the main context a few times a second. */
static void
render_progress (void *user, int done, int total)
{
  RenderProgress *p = user;
  gint64 now = g_get_monotonic_time ();

  if (total <= 0 || p->finished || (done < total && now - p->last_us < RENDER_PROGRESS_INTERVAL_US))
    return;
  /* the last tile's report and execute's own at the end: said once */
  p->finished = done >= total;
  render_progress_post (p, (double) done / total, now);
}

/* Sets up @p for the full frame of @req on the plan as it stands, and says
 * at once what the frame will cost. */
static void
render_progress_start (BraggscopeWorker *w, const BraggscopeRequest *req, RenderProgress *p)
{
  const nb_plan_info *info = nb_plan_get_info (w->plan);

  memset (p, 0, sizeof *p);
  p->w = w;
  p->id = req->id;
  p->start_us = g_get_monotonic_time ();
  /* an adaptive frame costs what the last one spent per pixel (unknown
   * before the first: the bar then extrapolates from the rows done) */
  if (info->integration != NB_INTEGRATION_ADAPTIVE)
    p->predicted = w->seconds_per_sample * samples_of (info, 1);
  else if (w->adaptive_samples_per_pixel > 0.0)
    p->predicted =
        w->adaptive_seconds_per_sample * adaptive_samples_of (info, w->adaptive_samples_per_pixel);
  p->progress.sequence = req->sequence;
  p->progress.width = info->fpixels;
  p->progress.height = info->spixels;
  p->progress.oversample = info->oversample;
  p->progress.sources = info->sources;
  p->progress.mosaic_domains = info->mosaic_domains;
  p->progress.phi_steps = info->phisteps;
  p->progress.cells = info->Na;
  render_progress_post (p, 0.0, p->start_us);
}

/* Renders @req (a preview or the full frame) and posts the frame or the
 * error.  Returns NB_ERR_CANCELLED, silently, when a newer request or
 * shutdown interrupted it. */
static nb_status
worker_run (BraggscopeWorker *w, const BraggscopeRequest *req, gboolean preview)
{
  gint64 start = g_get_monotonic_time (), executing, end;
  nb_exec_options opts = { 0 };
  nb_error err = { 0 };
  const nb_plan_info *info;
  BraggscopeFrameInit init = { 0 };
  nb_exec_stats stats = { 0 };
  RenderProgress progress;
  BraggscopeDelivery *d;
  gsize n;
  float *data;
  gboolean pinned;
  nb_status st;

  if ((st = worker_prepare (w, req, preview, &err)) != NB_OK)
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
  executing = g_get_monotonic_time ();
  if (!preview)
    {
      render_progress_start (w, req, &progress);
      opts.progress = render_progress;
      opts.user = &progress;
    }
  st = nb_plan_execute (w->plan, data, &opts, &err);
  /* an image of infinities or NaNs is an error, as nanobragg says (issue 23) */
  if (st == NB_OK)
    st = nb_image_check_finite (w->plan, data, &err);
  if (st != NB_OK)
    {
      _braggscope_frame_pool_release (w->pool, data, n, pinned);
      if (st != NB_ERR_CANCELLED)
        worker_post_error (w, req, &err);
      return st;
    }
  end = g_get_monotonic_time ();
  if (!preview && info->integration == NB_INTEGRATION_ADAPTIVE)
    {
      nb_plan_timing timing;
      double pixels = samples_of (info, 1) / MAX (info->steps, 1);

      nb_plan_get_timing (w->plan, &timing);
      if (timing.adaptive && timing.samples > 0.0 && pixels > 0.0)
        {
          w->adaptive_samples_per_pixel = timing.samples / pixels;
          if (end > executing)
            w->adaptive_seconds_per_sample =
                (end - executing) / 1e6 / adaptive_samples_of (info, w->adaptive_samples_per_pixel);
        }
    }
  else if (end > executing)
    w->seconds_per_sample = (end - executing) / 1e6 / samples_of (info, preview ? req->stride : 1);

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
  /* a full frame's method and cost (a preview is the fast kernel's, exact) */
  init.samples_per_pixel = (double) info->oversample * info->oversample * MAX (info->thicksteps, 1);
  if (!preview)
    {
      nb_plan_timing timing;
      double pixels = samples_of (info, 1) / MAX (info->steps, 1);

      nb_plan_get_timing (w->plan, &timing);
      init.adaptive = timing.adaptive;
      if (timing.samples > 0.0 && pixels > 0.0)
        init.samples_per_pixel = timing.samples / pixels;
    }

  d = g_new0 (BraggscopeDelivery, 1);
  if (!preview && req->measured != NULL)
    worker_score (w, req, data, d);
  d->id = req->id;
  d->sequence = req->sequence;
  d->is_preview = preview;
  d->frame = _braggscope_frame_new (&init);
  d->info = *info;
  worker_post (w, d);
  return NB_OK;
}

/* ------------------------------------------------------------------------- */
/* Fits */

typedef struct
{
  BraggscopeWorker *w;
  gint64 last_us;
  const char *last_stage;
} FitProgress;

typedef struct
{
  BraggscopeWorker *worker;
  double fraction, score;
  const char *stage; /* static */
} ProgressMessage;

static gboolean
progress_dispatch (gpointer data)
{
  ProgressMessage *m = data;
  g_autoptr (GObject) owner = g_weak_ref_get (&m->worker->owner);

  if (owner != NULL)
    m->worker->callbacks.fit_progress (owner, m->fraction, m->stage, m->score);
  return G_SOURCE_REMOVE;
}

static void
progress_free (gpointer data)
{
  ProgressMessage *m = data;

  _braggscope_worker_unref (m->worker);
  g_free (m);
}

/* nb_match_progress, on the worker thread: posts the progress to the
 * owner's context, at most every PROGRESS_INTERVAL_US but at every
 * new stage. */
static void
fit_progress (void *user, double fraction, const char *stage, double score)
{
  FitProgress *p = user;
  gint64 now = g_get_monotonic_time ();
  ProgressMessage *m;

  if (stage == p->last_stage && now - p->last_us < PROGRESS_INTERVAL_US && fraction < 1.0)
    return;
  p->last_us = now;
  p->last_stage = stage;
  m = g_new0 (ProgressMessage, 1);
  m->worker = worker_ref (p->w);
  m->fraction = fraction;
  m->stage = stage;
  m->score = score;
  g_main_context_invoke_full (p->w->context, G_PRIORITY_DEFAULT, progress_dispatch, m,
                              progress_free);
}

typedef struct
{
  void (*fit_done) (BraggscopeFitJob *job);
  BraggscopeFitJob *job;
} FitDoneMessage;

static gboolean
fit_done_dispatch (gpointer data)
{
  FitDoneMessage *m = data;

  m->fit_done (m->job);
  return G_SOURCE_REMOVE;
}

/* Hands @job to the owner's fit_done () on its context (the job's task
 * holds the owner). */
static void
fit_done_post (BraggscopeWorker *w, BraggscopeFitJob *job)
{
  FitDoneMessage *m = g_new0 (FitDoneMessage, 1);

  m->fit_done = w->callbacks.fit_done;
  m->job = job;
  g_main_context_invoke_full (w->context, G_PRIORITY_DEFAULT, fit_done_dispatch, m, g_free);
}

/* Runs @job on the worker thread, then hands it to the owner's context. */
static void
worker_run_fit (BraggscopeWorker *w, BraggscopeFitJob *job)
{
  FitProgress progress = { w, 0, NULL };
  nb_refine_options ro;
  nb_peak *peaks = NULL;
  int n = 0;

  fit_progress (&progress, 0.0, "peaks", 0.0);
  job->status = worker_peaks (w, job->measured, &job->params, &peaks, &n, &job->err);
  if (job->status == NB_OK && n < 3)
    job->status =
        nb_error_set (&job->err, NB_ERR_INVALID,
                      "%s: %d peaks within %g A of the frame: too few to fit (3 at least)",
                      braggscope_measured_frame_get_path (job->measured), n, MATCH_D_MAX);
  nb_refine_options_init (&ro);
  ro.match.radius = job->radius;
  ro.match.frame = _braggscope_measured_frame_peek (job->measured);
  ro.refine_distance = job->refine_distance;
  ro.refine_beam = job->refine_beam;
  /* a -detector model's panels move as one body (its distance and beam centre, and with both
   * asked its turn across the beam), the motion left in -detector_shift, -detector_rotation */
  ro.refine_detector_rotation =
      job->params.detector_file != NULL && job->refine_distance && job->refine_beam;
  ro.progress = fit_progress;
  ro.user = &progress;
  ro.cancel = (const volatile int *) &job->cancel;
  if (job->status == NB_OK && job->search)
    {
      nb_search_options so;
      nb_search_result sr;

      nb_search_options_init (&so);
      so.refine = ro;
      job->status = nb_orientation_search (&job->params, peaks, n, &so, &sr, &job->err);
      job->score = sr.score;
    }
  else if (job->status == NB_OK)
    {
      nb_refine_result rr;

      job->status = nb_refine (&job->params, peaks, n, &ro, &rr, &job->err);
      job->score = rr.score;
    }
  free (peaks);
  fit_done_post (w, job);
}

void
_braggscope_worker_fit (BraggscopeWorker *w, BraggscopeFitJob *job)
{
  g_mutex_lock (&w->lock);
  g_assert (w->fit == NULL);
  w->fit = job;
  g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);
}

/* A full frame the GPU rendered within this (60 Hz) needs no preview. */
#define FRAME_BUDGET_MS (1000.0 / 60.0)

/* Whether @req's preview is worth rendering first: not where the plan's
 * last full frame, on the GPU, already fit the frame budget (the full frame
 * comes as soon as a preview would). */
static gboolean
worker_wants_preview (BraggscopeWorker *w, const BraggscopeRequest *req)
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
  BraggscopeWorker *w = data;
  /* g_main_context_invoke_full() calls back at once, on the calling thread,
   * when the target is that thread's default context and nobody owns it;
   * pushing a context of our own makes it always queue to the owner. */
  GMainContext *own = g_main_context_new ();
  BraggscopeRequest req = { 0 };
  gboolean full_due = FALSE; /* req's preview is done, its full frame is not */
  BraggscopeFitJob *left;    /* a fit queued when the thread was told to quit */

  g_main_context_push_thread_default (own);
  g_mutex_lock (&w->lock);
  for (;;)
    {
      BraggscopeRequest old = { 0 };
      gboolean preview = FALSE, short_run = FALSE;
      nb_status st;

      while (!w->quit && g_queue_is_empty (&w->pending) && !full_due && w->fit == NULL)
        g_cond_wait (&w->cond, &w->lock);
      if (w->quit)
        break;
      /* a fit runs between frames: the frames wait for it */
      if (w->fit != NULL)
        {
          BraggscopeFitJob *job = w->fit;

          w->fit = NULL;
          g_mutex_unlock (&w->lock);
          worker_run_fit (w, job);
          g_mutex_lock (&w->lock);
          continue;
        }
      if (!g_queue_is_empty (&w->pending))
        {
          BraggscopeRequest *next = g_queue_pop_head (&w->pending);

          old = req;
          req = *next;
          g_free (next);
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
  left = w->fit;
  w->fit = NULL;
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
  g_clear_object (&w->peaks_of);
  g_clear_pointer (&w->peaks_detector, g_free);
  g_clear_pointer (&w->peaks, free);
  /* a fit queued behind the quit still ends, cancelled: its task waits for it */
  if (left != NULL)
    {
      left->status =
          nb_error_set (&left->err, NB_ERR_CANCELLED, "fit cancelled: the simulation stopped");
      fit_done_post (w, left);
    }
  g_main_context_pop_thread_default (own);
  g_main_context_unref (own);
  _braggscope_worker_unref (w);
  return NULL;
}

BraggscopeWorker *
_braggscope_worker_new (GObject *owner,
                        const BraggscopeWorkerCallbacks *callbacks,
                        GMainContext *context)
{
  BraggscopeWorker *w = g_new0 (BraggscopeWorker, 1);

  g_assert (callbacks->deliver != NULL && callbacks->render_progress != NULL &&
            callbacks->fit_progress != NULL && callbacks->fit_done != NULL);
  g_atomic_ref_count_init (&w->ref_count);
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  w->context = g_main_context_ref (context);
  g_weak_ref_init (&w->owner, owner);
  w->callbacks = *callbacks;
  w->pool = _braggscope_frame_pool_new ();
  w->thread = g_thread_new ("braggscope-worker", worker_thread, worker_ref (w));
  return w;
}

/* Queues @req: a batched one behind the others, to be rendered in turn;
 * any other replaces what waits (latest wins) and cancels a full render in
 * flight. */
void
_braggscope_worker_submit (BraggscopeWorker *w, BraggscopeRequest *req)
{
  GQueue dropped = G_QUEUE_INIT;
  BraggscopeRequest *r = g_memdup2 (req, sizeof *req);

  memset (req, 0, sizeof *req);
  g_mutex_lock (&w->lock);
  if (!r->batch)
    {
      dropped = w->pending;
      g_queue_init (&w->pending);
      if (!w->preview_in_flight)
        g_atomic_int_set (&w->cancel, 1);
    }
  g_queue_push_tail (&w->pending, r);
  g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);
  g_queue_clear_full (&dropped, request_free);
}

void
_braggscope_worker_stop (BraggscopeWorker *w)
{
  g_mutex_lock (&w->lock);
  w->quit = TRUE;
  g_atomic_int_set (&w->cancel, 1);
  g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);
  g_thread_join (w->thread);
  w->thread = NULL;
  g_weak_ref_set (&w->owner, NULL);
}

guint
_braggscope_worker_get_buffers_allocated (BraggscopeWorker *w)
{
  return _braggscope_frame_pool_get_allocated (w->pool);
}
