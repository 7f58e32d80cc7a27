/* braggscope-simulation.c: BraggscopeSimulation, a live simulation on one warm worker thread.
 *
 * Threads.  The object lives on the thread of the main context it was created
 * in (its "owner"): properties are set and signals emitted there.  A worker
 * thread, started by the first render request, owns the engine plan; nothing
 * else touches it (braggscope-worker.c).  The two meet in a request slot
 * under a mutex:
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
#include "braggscope-simulation-private.h"
#include "braggscope-worker-private.h"
#include "braggscope-enums.h"
#include "nb-param.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

/* the default scene's files, in the data folder */
#define DEFAULT_SCENE_HKL  "1hpv_p1.hkl"
#define DEFAULT_SCENE_ARGS "1hpv-scene.args"

/* ------------------------------------------------------------------------- */
/* The simulation (its reference documentation is in braggscope-simulation.h) */

G_DEFINE_FINAL_TYPE (BraggscopeSimulation, braggscope_simulation, G_TYPE_OBJECT)

enum
{
  SIGNAL_FRAME_READY,
  SIGNAL_ERROR,
  SIGNAL_FIT_PROGRESS,
  SIGNAL_RENDER_PROGRESS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Emits @error; a g_warning says it when no handler is connected and no
 * caller takes it (@raised: a render_frame wait raises it), so that a
 * script's bad value is never silent. */
static void
emit_error (BraggscopeSimulation *self, GError *error, gboolean raised)
{
  if (!raised && !g_signal_has_handler_pending (self, signals[SIGNAL_ERROR], 0, TRUE))
    g_warning ("BraggscopeSimulation: %s (connect to the 'error' signal to handle it)",
               error->message);
  g_signal_emit (self, signals[SIGNAL_ERROR], 0, error);
}

void
_braggscope_simulation_emit_error (BraggscopeSimulation *self, GError *error)
{
  emit_error (self, error, FALSE);
}

gboolean
_braggscope_simulation_check_thread (BraggscopeSimulation *self, const char *what)
{
  if (g_thread_self () == self->owner)
    return TRUE;
  g_warning ("BraggscopeSimulation: '%s' set on another thread than the simulation's (the one "
             "that created it): ignored; set it on the simulation's thread, e.g. with "
             "g_main_context_invoke () on its main context",
             what);
  return FALSE;
}

/* The worker's fit_progress (). */
static void
emit_fit_progress (GObject *owner, double fraction, const char *stage, double score)
{
  BraggscopeSimulation *self = BRAGGSCOPE_SIMULATION (owner);

  g_signal_emit (self, signals[SIGNAL_FIT_PROGRESS], 0, fraction, stage, score);
}

/* The worker's render_progress (): emits render-progress for request @id,
 * unless a newer one replaced it or its full frame was delivered. */
static void
emit_render_progress (GObject *owner, guint64 id, BraggscopeRenderProgress *progress)
{
  BraggscopeSimulation *self = BRAGGSCOPE_SIMULATION (owner);

  /* a request a newer one replaced renders no more; in batch mode none is replaced */
  if ((id != self->last_id && !self->batch) || id < self->delivered_id ||
      (id == self->delivered_id && self->delivered_full))
    return;
  g_signal_emit (self, signals[SIGNAL_RENDER_PROGRESS], 0, progress);
}

G_DEFINE_BOXED_TYPE (BraggscopeRenderProgress,
                     braggscope_render_progress,
                     braggscope_render_progress_copy,
                     braggscope_render_progress_free)

/**
 * braggscope_render_progress_copy:
 * @progress: a render progress
 *
 * Copies @progress, for bindings and boxed values.
 *
 * Returns: (transfer full): a copy, freed with
 *   [method@Braggscope.RenderProgress.free]
 *
 * Since: 0.1
 */
BraggscopeRenderProgress *
braggscope_render_progress_copy (const BraggscopeRenderProgress *progress)
{
  g_return_val_if_fail (progress != NULL, NULL);

  return g_memdup2 (progress, sizeof *progress);
}

/**
 * braggscope_render_progress_free:
 * @progress: (nullable): a render progress of
 *   [method@Braggscope.RenderProgress.copy]
 *
 * Frees @progress.
 *
 * Since: 0.1
 */
void
braggscope_render_progress_free (BraggscopeRenderProgress *progress)
{
  g_free (progress);
}

static void
set_busy (BraggscopeSimulation *self, gboolean busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  _braggscope_simulation_notify_busy (self);
}

/* The worker's deliver (): a frame or error of a request. */
static void
deliver (GObject *owner, BraggscopeDelivery *d)
{
  BraggscopeSimulation *self = BRAGGSCOPE_SIMULATION (owner);
  BraggscopeWorker *w = self->worker;

  if (w == NULL || d->worker != w)
    return;
  if (d->error != NULL)
    {
      if (d->id == self->last_id)
        set_busy (self, FALSE);
      emit_error (self, d->error, _braggscope_simulation_is_awaited (self, d->id));
      _braggscope_simulation_wake (self, d->id, NULL, d->error);
      return;
    }
  /* never backwards: an older request's frame, or a preview after its full frame */
  if (d->id < self->delivered_id ||
      (d->id == self->delivered_id && (self->delivered_full || d->is_preview)))
    return;
  self->delivered_id = d->id;
  self->delivered_full = !d->is_preview;

  g_set_object (&self->last_frame, d->frame);
  _braggscope_simulation_set_info (self, &d->info);
  if (!d->is_preview)
    _braggscope_simulation_set_match (self, d->has_match ? &d->match : NULL);
  if (!d->is_preview && d->id == self->last_id)
    set_busy (self, FALSE);
  g_signal_emit (self, signals[SIGNAL_FRAME_READY], 0, d->frame);
  if (!d->is_preview)
    _braggscope_simulation_wake (self, d->id, d->frame, NULL);
}

static const BraggscopeWorkerCallbacks worker_callbacks = {
  .deliver = deliver,
  .render_progress = emit_render_progress,
  .fit_progress = emit_fit_progress,
  .fit_done = _braggscope_simulation_fit_done,
};

BraggscopeWorker *
_braggscope_simulation_get_worker (BraggscopeSimulation *self)
{
  if (self->worker == NULL)
    self->worker = _braggscope_worker_new (G_OBJECT (self), &worker_callbacks, self->context);
  return self->worker;
}

/* Sends the current parameters to the worker: a preview first when
 * @interactive (a change), previews are on and the simulation is not in
 * batch mode, then the full frame.  FALSE with @error when they cannot be
 * copied. */
gboolean
_braggscope_simulation_request (BraggscopeSimulation *self, gboolean interactive, GError **error)
{
  BraggscopeRequest req = { 0 };
  nb_error err = { 0 };

  if (!self->rendering)
    return TRUE;
  if (nb_params_copy (&req.params, &self->params, &err) != NB_OK)
    {
      _braggscope_propagate_nb (error, &err);
      return FALSE;
    }
  _braggscope_simulation_get_worker (self);
  req.valid = TRUE;
  req.id = ++self->last_id;
  req.sequence = self->sequence;
  req.changed_us = g_get_monotonic_time ();
  req.stride = self->preview_stride;
  req.batch = self->batch;
  req.preview =
      interactive && !self->batch && self->preview_while_dragging && self->preview_stride >= 2;
  req.max_arc_domains = self->max_arc_domains;
  req.measured = self->measured != NULL ? g_object_ref (self->measured) : NULL;
  req.match_radius = self->match_radius;
  req.match_trials = _braggscope_simulation_match_trials (self, &self->params);
  _braggscope_worker_submit (self->worker, &req);
  set_busy (self, TRUE);
  return TRUE;
}

/* _braggscope_simulation_request, its error emitted */
static void
simulation_request (BraggscopeSimulation *self, gboolean interactive)
{
  g_autoptr (GError) error = NULL;

  if (!_braggscope_simulation_request (self, interactive, &error))
    _braggscope_simulation_emit_error (self, error);
}

void
_braggscope_simulation_rescore (BraggscopeSimulation *self)
{
  simulation_request (self, FALSE);
}

void
_braggscope_simulation_changed (BraggscopeSimulation *self)
{
  self->sequence++;
  _braggscope_simulation_notify_sequence (self);
  simulation_request (self, TRUE);
}

static void
simulation_dispose (GObject *object)
{
  BraggscopeSimulation *self = BRAGGSCOPE_SIMULATION (object);

  _braggscope_simulation_cancel_waits (self);
  g_clear_pointer (&self->waits, g_ptr_array_unref);
  if (self->worker != NULL)
    {
      _braggscope_worker_stop (self->worker);
      g_clear_pointer (&self->worker, _braggscope_worker_unref);
    }
  g_clear_object (&self->last_frame);
  g_clear_object (&self->measured);
  G_OBJECT_CLASS (braggscope_simulation_parent_class)->dispose (object);
}

static void
simulation_finalize (GObject *object)
{
  BraggscopeSimulation *self = BRAGGSCOPE_SIMULATION (object);

  nb_params_clear (&self->params);
  g_free (self->scene_hkl);
  g_free (self->hkl_warning);
  g_free (self->sf_note);
  g_main_context_unref (self->context);
  G_OBJECT_CLASS (braggscope_simulation_parent_class)->finalize (object);
}

static void
braggscope_simulation_class_init (BraggscopeSimulationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->get_property = _braggscope_simulation_get_property;
  object_class->set_property = _braggscope_simulation_set_property;
  object_class->dispose = simulation_dispose;
  object_class->finalize = simulation_finalize;

  _braggscope_simulation_install_properties (object_class);

  /**
   * BraggscopeSimulation::frame-ready:
   * @self: the simulation
   * @frame: the new frame; the simulation keeps a reference until the next
   *   one arrives, take your own ([method@GObject.Object.ref]) to keep it longer
   *
   * A frame is ready: a preview ([property@Braggscope.Frame:is-preview])
   * while parameters change, then the full frame of the newest parameters.
   * Frames never go backwards: none answers an older change
   * ([property@Braggscope.Frame:sequence]) than one delivered before, and no
   * preview follows the full frame of its change.
   *
   * When a handler runs, [method@Braggscope.Simulation.get_last_frame]
   * already returns @frame, the parameter properties that read values the
   * engine derived (the automatic beam centre) have been updated and notified,
   * and, for the full frame of the newest change,
   * [property@Braggscope.Simulation:busy] is %FALSE.
   *
   * Emitted on the thread-default main context the simulation was created
   * in, never on the worker thread.
   *
   * Since: 0.1
   */
  signals[SIGNAL_FRAME_READY] =
      g_signal_new ("frame-ready", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                    NULL, G_TYPE_NONE, 1, BRAGGSCOPE_TYPE_FRAME);
  /**
   * BraggscopeSimulation::error:
   * @self: the simulation
   * @error: what went wrong, in the `BRAGGSCOPE_ERROR` domain: a one-line
   *   message naming the input and its value
   *
   * A parameter change was refused, or the engine could not render the
   * parameters.  Emitted on the thread-default main context the simulation
   * was created in, at one of two moments:
   *
   * - at once, before the property setter returns, when a property is given a
   *   value the engine refuses: `BRAGGSCOPE_ERROR_INVALID` (a value out of
   *   range or against another parameter), or `BRAGGSCOPE_ERROR_IO` when
   *   [property@Braggscope.Simulation:structure-factors] names no readable
   *   file.  The message starts with the property's name; the property keeps
   *   its value and nothing is rendered.  `BRAGGSCOPE_ERROR_NOMEM` may also
   *   come at once, when a change or [method@Braggscope.Simulation.render]
   *   cannot copy the parameters for the worker;
   * - later, when the worker thread fails to render the parameters:
   *   `BRAGGSCOPE_ERROR_IO` or `BRAGGSCOPE_ERROR_PARSE` for an input file
   *   (structure factors, `-mat`, `-sourcefile`, `-mask`...) that cannot be
   *   read or is malformed, `BRAGGSCOPE_ERROR_NOMEM` for a plan larger than
   *   memory allows, `BRAGGSCOPE_ERROR_UNSUPPORTED` for `-backend cuda`
   *   without a usable GPU, `BRAGGSCOPE_ERROR_INVALID` for parameters the
   *   engine cannot render (no unit cell, no structure factors, a mask of
   *   another size than the detector).  Frames keep showing the last
   *   parameters that rendered, and [property@Braggscope.Simulation:busy]
   *   turns %FALSE when the failed request was the newest.
   *
   * A render superseded by a newer change is dropped silently: this signal
   * never carries `BRAGGSCOPE_ERROR_CANCELLED`.
   *
   * Since: 0.1
   */
  signals[SIGNAL_ERROR] = g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                        NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
  /**
   * BraggscopeSimulation::fit-progress:
   * @self: the simulation
   * @fraction: the fraction of the fit done, 0 to 1
   * @stage: what it is doing, an English word: `peaks`, `grid`,
   *   `candidates`, `refine`...
   * @score: the best fraction of the measured peaks matched so far (0 to 1)
   *
   * The progress of [method@Braggscope.Simulation.refine_async] or
   * [method@Braggscope.Simulation.search_orientation_async], a few times a
   * second at most, on the simulation's main context.
   *
   * Since: 0.1
   */
  signals[SIGNAL_FIT_PROGRESS] =
      g_signal_new ("fit-progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                    NULL, G_TYPE_NONE, 3, G_TYPE_DOUBLE, G_TYPE_STRING, G_TYPE_DOUBLE);
  /**
   * BraggscopeSimulation::render-progress:
   * @self: the simulation
   * @progress: where the full frame stands: its part rendered, the time
   *   spent and the time still to go, and what it costs
   *
   * A full frame of the newest change is rendering: emitted when it starts
   * (with the time it is expected to take, where earlier frames gave this
   * simulation its rate), then about five times a second, and when its last
   * row is done.  Nothing is emitted for previews, nor for a frame a newer
   * change cancelled: once [property@Braggscope.Simulation:sequence] moves
   * on, only the new change's frame reports.  A host says with it that a
   * slow frame is on its way (a frame of more than a second or two) and how
   * far it is.  Emitted on the simulation's main context.
   *
   * Since: 0.1
   */
  signals[SIGNAL_RENDER_PROGRESS] = g_signal_new (
      "render-progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
      G_TYPE_NONE, 1, BRAGGSCOPE_TYPE_RENDER_PROGRESS | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
braggscope_simulation_init (BraggscopeSimulation *self)
{
  self->context = g_main_context_ref_thread_default ();
  self->owner = g_thread_self ();
  _braggscope_simulation_default_params (&self->params);
  self->preview_while_dragging = TRUE;
  self->preview_stride = 4;
  self->match_radius = 3.0;
  self->fit_trials = 1.0;
}

/**
 * braggscope_simulation_new:
 *
 * Creates a simulation with nanoBragg's defaults on a 512 x 512 detector and
 * no crystal: before it can render, give it a unit cell (the `cell-*`
 * properties such as [property@Braggscope.Simulation:cell-a], or `-cell` or
 * `-mat` through [method@Braggscope.Simulation.set_from_args]) and structure
 * factors ([property@Braggscope.Simulation:structure-factors] or
 * [property@Braggscope.Simulation:default-f]), then call
 * [method@Braggscope.Simulation.render].  Nothing renders before that.
 *
 * The simulation belongs to the calling thread's thread-default main
 * context (see [class@Braggscope.Simulation]).  Its last reference cancels a
 * render in flight and waits for the worker thread to stop.
 *
 * Returns: (transfer full): a new simulation; release it with
 *   [method@GObject.Object.unref]
 *
 * Since: 0.1
 */
BraggscopeSimulation *
braggscope_simulation_new (void)
{
  return g_object_new (BRAGGSCOPE_TYPE_SIMULATION, NULL);
}

static gboolean set_from_args (BraggscopeSimulation *self,
                               const char *const *args,
                               const char *scene_source,
                               GError **error);

static char *
find_default_scene (GError **error)
{
  g_auto (GStrv) dirs = _braggscope_data_dirs ();
  g_autofree char *tried = NULL;

  for (gsize i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (dirs[i], DEFAULT_SCENE_HKL, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&path);
    }
  tried = g_strjoinv (", ", dirs);
  g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO,
               "%s: not found in the data folders (%s); $BRAGGSCOPE_DATADIR names another",
               DEFAULT_SCENE_HKL, tried);
  _braggscope_error_make_utf8 (error);
  return NULL;
}

/**
 * braggscope_simulation_new_default_scene:
 * @error: return location for a [struct@GLib.Error], or %NULL
 *
 * Creates the default scene and starts rendering it: HIV-1 protease (PDB
 * 1HPV, structure factors from `1hpv_p1.hkl`, P1, cell 63.4 63.4 83.8 Å,
 * 90 90 120 degrees), misset 10 20 30 degrees, 1 Å, 10 x 10 x 10 unit cells,
 * 0.2 degree mosaic spread in 5 domains, 120 mm, 1024 x 1024 pixels of
 * 0.1 mm, single precision: the flags of `1hpv-scene.args`, which lies beside
 * the structure factors.
 *
 * The two data files are looked up in the folder `$BRAGGSCOPE_DATADIR`
 * names, then in the data folder of the install the library belongs to
 * (datadir/braggscope found from the library's own folder, so that a moved
 * install finds its own; the source tree's data folder for a library still
 * in its build tree), then in the configured datadir/braggscope.  The structure factors
 * themselves are read by the worker: a failure to read them arrives as
 * [signal@Braggscope.Simulation::error].
 *
 * Fails with `BRAGGSCOPE_ERROR_IO` when `1hpv_p1.hkl` is in none of those
 * folders or `1hpv-scene.args` cannot be read, with
 * `BRAGGSCOPE_ERROR_PARSE` when `1hpv-scene.args` is not a command line a
 * shell could split, and with the errors of
 * [method@Braggscope.Simulation.set_scene_from_args] (`BRAGGSCOPE_ERROR_INVALID`
 * above all, for a flag naming a file to write too) when its flags are
 * refused; the message then starts with the file's path.
 *
 * Returns: (transfer full): a new simulation, rendering, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
BraggscopeSimulation *
braggscope_simulation_new_default_scene (GError **error)
{
  g_autofree char *hkl = find_default_scene (error);
  g_autofree char *folder = NULL, *path = NULL, *text = NULL, *line = NULL;
  g_auto (GStrv) args = NULL;
  g_autoptr (BraggscopeSimulation) self = NULL;
  g_autoptr (GError) local = NULL;

  if (hkl == NULL)
    return NULL;
  /* the flags beside the structure factors, one line of them after "-hkl FILE" */
  folder = g_path_get_dirname (hkl);
  path = g_build_filename (folder, DEFAULT_SCENE_ARGS, NULL);
  {
    g_autoptr (GError) failed = NULL;

    if (!g_file_get_contents (path, &text, NULL, &failed))
      {
        g_set_error_literal (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO, failed->message);
        return NULL;
      }
  }
  {
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    g_autoptr (GString) flags = g_string_new (NULL);
    g_autofree char *quoted = g_shell_quote (hkl);

    g_string_append_printf (flags, "-hkl %s", quoted);
    for (guint i = 0; lines[i] != NULL; i++)
      if (g_strstrip (lines[i])[0] != '#')
        g_string_append_printf (flags, " %s", lines[i]);
    line = g_string_free (g_steal_pointer (&flags), FALSE);
  }
  {
    g_autoptr (GError) failed = NULL;

    if (!g_shell_parse_argv (line, NULL, &args, &failed))
      {
        g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE, "%s: %s", path,
                     failed->message);
        return NULL;
      }
  }
  self = braggscope_simulation_new ();
  /* a data file: it describes the scene and writes nothing */
  if (!set_from_args (self, (const char *const *) args, path, &local))
    {
      if (!g_str_has_prefix (local->message, path))
        g_prefix_error (&local, "%s: ", path);
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  /* the file's structure factors are of this cell: another one under them is warned of */
  self->scene_hkl = g_strdup (self->params.hkl_file);
  for (int i = 0; i < 6; i++)
    self->scene_cell[i] = i < 3 ? self->params.cell[i] : self->params.cell[i] * 180.0 / G_PI;
  braggscope_simulation_render (self);
  return g_steal_pointer (&self);
}

void
_braggscope_simulation_replace_params (BraggscopeSimulation *self, nb_params *next)
{
  GValue *before = _braggscope_simulation_snapshot (self);

  nb_params_clear (&self->params);
  self->params = *next;
  _braggscope_simulation_notify_changed (self, before);
  _braggscope_simulation_changed (self);
}

/* Parses nanoBragg flags (argv[0] the program name) on top of @base into @out;
 * with a @scene_source, as a scene's arguments (nb_params_parse_scene_argv():
 * a flag naming a file to write is refused, the message starting with it). */
static gboolean
parse_flags (const nb_params *base,
             const char *const *argv,
             const char *scene_source,
             nb_params *out,
             GError **error)
{
  nb_error err = { 0 };
  int argc = (int) g_strv_length ((char **) argv);
  nb_status st;

  if (nb_params_copy (out, base, &err) != NB_OK)
    goto fail;
  if (scene_source != NULL)
    st = nb_params_parse_scene_argv (out, argc, argv, scene_source, &err);
  else
    st = nb_params_parse_argv (out, argc, argv, &err);
  /* a file named for reading is refused here, not when the worker reads it */
  if (st != NB_OK || nb_params_validate (out, &err) != NB_OK ||
      nb_params_check_inputs (out, base, &err) != NB_OK)
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
 * @args: (array zero-terminated=1) (element-type filename): nanoBragg flags
 *   and their values, without the program name, e.g. `{ "-lambda", "1.2", "-distance", "150",
 *   NULL }`
 * @error: return location for a [struct@GLib.Error], or %NULL
 *
 * Applies nanoBragg command-line flags on top of the current parameters, in
 * order, last wins, with nanoBragg's spellings, aliases and units (`nanobragg
 * --help` lists them), as one change: on success
 * [property@Braggscope.Simulation:sequence] grows by one, every property
 * whose value changed is notified, and, once
 * [method@Braggscope.Simulation.render] has been called, the new parameters
 * render.  On error nothing changes.
 *
 * The headers of `-img` and `-mask` files are read here, as nanoBragg reads
 * them; every other file named for reading (`-hkl`, `-mat`, `-sourcefile`...)
 * is checked here to be a regular file this process may open (opened and
 * closed, not read: a named pipe or a terminal is refused, never waited on),
 * and read when the frame is rendered: a file that is there but malformed
 * fails the render ([method@Braggscope.Simulation.render_frame] raises it,
 * [signal@Braggscope.Simulation::error] carries it).
 *
 * Fails with `BRAGGSCOPE_ERROR_INVALID` for an unknown flag, a stray word, a
 * missing or non-numeric value, or a value the physics does not allow (the
 * message names the flag and the value); `BRAGGSCOPE_ERROR_UNSUPPORTED` for
 * a `-backend` word that is not a backend; `BRAGGSCOPE_ERROR_IO` when a file
 * named for reading is missing, unreadable or not a regular file (the message
 * names the flag and the file), `BRAGGSCOPE_ERROR_IO` or
 * `BRAGGSCOPE_ERROR_PARSE` when an `-img` or `-mask` header is malformed;
 * `BRAGGSCOPE_ERROR_NOMEM` when the parameters cannot be copied.
 *
 * Returns: %TRUE when the flags were applied, %FALSE with @error set
 *
 * Since: 0.1
 */
/* Whether @args hold -cell or -mat, which give the crystal its cell. */
static gboolean
args_give_cell (const char *const *args)
{
  const nb_param *cell = nb_param_owner (nb_param_find_field (offsetof (nb_params, cell)));
  const nb_param *mat = nb_param_find_field (offsetof (nb_params, mat_file));

  for (gsize i = 0; args[i] != NULL; i++)
    {
      const nb_param *row = args[i][0] == '-' ? nb_param_find (args[i]) : NULL;

      if (row != NULL && (row == cell || row == mat))
        return TRUE;
    }
  return FALSE;
}

static gboolean
set_from_args (BraggscopeSimulation *self,
               const char *const *args,
               const char *scene_source,
               GError **error)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  nb_params next;

  g_ptr_array_add (argv, (gpointer) "braggscope");
  for (gsize i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  if (!parse_flags (&self->params, (const char *const *) argv->pdata, scene_source, &next, error))
    return FALSE;
  /* "-model FILE" on top of a scene's cell: the model's own, unless given */
  _braggscope_simulation_follow_model_cell (self, &self->params, &next, args_give_cell (args));
  _braggscope_simulation_replace_params (self, &next);
  return TRUE;
}

gboolean
braggscope_simulation_set_from_args (BraggscopeSimulation *self,
                                     const char *const *args,
                                     GError **error)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), FALSE);
  g_return_val_if_fail (args != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return set_from_args (self, args, NULL, error);
}

/**
 * braggscope_simulation_set_scene_from_args:
 * @self: a simulation
 * @args: (array zero-terminated=1) (element-type filename): nanoBragg flags
 *   and their values, without the program name
 * @source: (type filename): where @args come from (a file's path, "the last
 *   scene"), for the message
 * @error: return location for a [struct@GLib.Error], or %NULL
 *
 * [method@Braggscope.Simulation.set_from_args] for arguments that describe
 * a scene and nothing else, read from a file the user did not write (a
 * lesson, a saved scene): a flag whose value names a file to write
 * (`-dump`, `-floatfile`, `-intfile`, `-pgmfile`, `-noisefile`, `-pngfile`,
 * `-stolout`: the rows of the engine's parameter table marked as outputs)
 * is refused before anything is read or changed.
 *
 * Fails as [method@Braggscope.Simulation.set_from_args] does, and with
 * `BRAGGSCOPE_ERROR_INVALID` "SOURCE: -dump names a file to write, which a
 * scene may not hold" for such a flag.
 *
 * Returns: %TRUE when the flags were applied, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
braggscope_simulation_set_scene_from_args (BraggscopeSimulation *self,
                                           const char *const *args,
                                           const char *source,
                                           GError **error)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), FALSE);
  g_return_val_if_fail (args != NULL, FALSE);
  g_return_val_if_fail (source != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return set_from_args (self, args, source, error);
}

/**
 * braggscope_scene_args_drop_outputs:
 * @args: (array zero-terminated=1) (element-type filename): nanoBragg flags
 *   and their values, without the program name
 * @dropped: (out) (optional) (nullable) (transfer full) (type filename): the
 *   flags left out and their values, one line separated by spaces, or %NULL
 *   when there were none
 *
 * A copy of @args without the flags whose value names a file to write (those
 * [method@Braggscope.Simulation.set_scene_from_args] refuses) and their
 * values: how a host cleans arguments it saved before such flags were left
 * out of [method@Braggscope.Simulation.to_args] (an old "last scene"),
 * saying what it dropped.
 *
 * Returns: (transfer full) (array zero-terminated=1) (element-type filename):
 *   the other arguments, in order; free with [func@GLib.strfreev]
 *
 * Since: 0.1
 */
char **
braggscope_scene_args_drop_outputs (const char *const *args, char **dropped)
{
  g_autoptr (GStrvBuilder) kept = g_strv_builder_new ();
  g_autoptr (GString) left_out = NULL;
  int argc;

  g_return_val_if_fail (args != NULL, NULL);

  argc = (int) g_strv_length ((char **) args);
  for (int i = 0; i < argc;)
    {
      int words = nb_argv_output_words (argc, args, i);

      if (words == 0)
        {
          g_strv_builder_add (kept, args[i++]);
          continue;
        }
      if (left_out == NULL)
        left_out = g_string_new (NULL);
      for (; words > 0; words--, i++)
        g_string_append_printf (left_out, "%s%s", left_out->len > 0 ? " " : "", args[i]);
    }
  if (dropped != NULL)
    *dropped = left_out != NULL ? g_string_free (g_steal_pointer (&left_out), FALSE) : NULL;
  return g_strv_builder_end (kept);
}

/* Restores the parameters from @args (args[0] the program name) on top of
 * nanoBragg's defaults, as a scene read from @source; the snapshot loader
 * uses it. */
gboolean
_braggscope_simulation_restore_args (BraggscopeSimulation *self,
                                     const char *const *args,
                                     const char *source,
                                     GError **error)
{
  nb_params base, next;
  gboolean ok;

  nb_params_init (&base);
  ok = parse_flags (&base, args, source, &next, error);
  nb_params_clear (&base);
  if (!ok)
    return FALSE;
  _braggscope_simulation_replace_params (self, &next);
  return TRUE;
}

/**
 * braggscope_simulation_to_args:
 * @self: a simulation
 *
 * The current parameters as a `nanobragg` command line: the first element is
 * `nanobragg`, then the flags, in nanoBragg's units, of every parameter that
 * differs from nanoBragg's defaults, and the random seeds, so that the
 * command-line program, or [method@Braggscope.Simulation.set_from_args] on a
 * new simulation (given the elements after the first), reproduces them.
 * Values the engine derives while they are not given (an automatic beam
 * centre, oversampling or number of mosaic domains) are left out, as they
 * are on a command line.  So are the flags that name files to write
 * (`-dump`, `-floatfile`...: see
 * [method@Braggscope.Simulation.set_scene_from_args]): the arguments
 * describe the scene, and a snapshot or a saved scene made of them never
 * makes the program that reopens it write a file.
 *
 * File names are the file system's bytes, which need not be UTF-8.
 *
 * Returns: (transfer full) (array zero-terminated=1) (element-type filename):
 *   the program name and the flags; free with [func@GLib.strfreev]
 *
 * Since: 0.1
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
 * [method@Braggscope.Simulation.to_args] as one line for a POSIX shell: the
 * arguments separated by spaces, each quoted where it holds anything other
 * than letters, digits and `-_./+=:,@%`.
 *
 * Returns: (transfer full) (type filename): the command line (its file
 *   names are the file system's bytes, which need not be UTF-8); free with
 *   [func@GLib.free]
 *
 * Since: 0.1
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
 * Starts rendering: requests a full frame of the current parameters (no
 * preview), and from now on every accepted change renders too (a preview,
 * then the full frame; see [class@Braggscope.Simulation]).  Returns at once:
 * the frame arrives as [signal@Braggscope.Simulation::frame-ready] on the
 * simulation's main context, a failure as
 * [signal@Braggscope.Simulation::error].
 * [property@Braggscope.Simulation:busy] turns %TRUE until then.  The first
 * call starts the worker thread.
 *
 * Since: 0.1
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
 * The frame last delivered by [signal@Braggscope.Simulation::frame-ready], a
 * preview or a full frame.
 *
 * Returns: (transfer none) (nullable): the frame, owned by the simulation
 *   until the next one is delivered (take a reference with
 *   [method@GObject.Object.ref] to keep it), or %NULL before the first
 *
 * Since: 0.1
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
 * Whether a frame is owed, [property@Braggscope.Simulation:busy].
 *
 * Returns: %TRUE from a render request until the full frame of the newest
 *   parameters, or the error that ended its render, has been delivered
 *
 * Since: 0.1
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
 * The number of parameter changes accepted so far,
 * [property@Braggscope.Simulation:sequence].  A frame answers the change
 * whose number it carries in [property@Braggscope.Frame:sequence], so a frame
 * shows the current parameters when the two are equal.
 *
 * Returns: the count of accepted changes, 0 for a new simulation
 *
 * Since: 0.1
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
  return self->worker != NULL ? _braggscope_worker_get_buffers_allocated (self->worker) : 0;
}
