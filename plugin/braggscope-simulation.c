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

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

/* the default scene's files, in the data folder */
#define DEFAULT_SCENE_HKL  "1hpv_p1.hkl"
#define DEFAULT_SCENE_ARGS "1hpv-scene.args"

/* ------------------------------------------------------------------------- */
/* The simulation */

/**
 * BraggscopeSimulation:
 *
 * A live nanoBragg simulation: parameters in, frames out, rendered on a
 * worker thread (see braggscope_simulation_render()).
 *
 * The parameters are properties, one per nanoBragg flag a host edits, made
 * from the engine's parameter table: each takes its flag's unit (distance in
 * mm, misset-x, -y and -z the three angles of `-misset` in degrees, n-cells
 * is `-N`, wavelength is `-lambda` in Angstrom, energy is `-energy` in keV),
 * has its flag's side effects (distance also pivots the detector about the
 * beam spot, convention sets the pivot, polarization clears `-nopolar`) and
 * is refused where the flag is, with the same message after the property's
 * name, through #BraggscopeSimulation::error (the property keeps its value).
 * A property's nick is a short label and its blurb says what it is and its
 * unit; `nanobragg --help` lists every flag.  Counts and distances given as
 * "automatic" read as the flags say (mosaic-domains -1, oversample 0), and
 * beam-center-x and -y read the centre the last frame's plan chose while
 * none is given.
 */
G_DEFINE_FINAL_TYPE (BraggscopeSimulation, braggscope_simulation, G_TYPE_OBJECT)

enum
{
  SIGNAL_FRAME_READY,
  SIGNAL_ERROR,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

void
_braggscope_simulation_emit_error (BraggscopeSimulation *self, GError *error)
{
  g_signal_emit (self, signals[SIGNAL_ERROR], 0, error);
}

static void
set_busy (BraggscopeSimulation *self, gboolean busy)
{
  if (self->busy == busy)
    return;
  self->busy = busy;
  _braggscope_simulation_notify_busy (self);
}

void
_braggscope_simulation_deliver (BraggscopeSimulation *self, BraggscopeDelivery *d)
{
  BraggscopeWorker *w = self->worker;

  if (w == NULL || d->worker != w)
    return;
  if (d->error != NULL)
    {
      if (d->id == self->last_id)
        set_busy (self, FALSE);
      _braggscope_simulation_emit_error (self, d->error);
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
  if (!d->is_preview && d->id == self->last_id)
    set_busy (self, FALSE);
  g_signal_emit (self, signals[SIGNAL_FRAME_READY], 0, d->frame);
}

/* Sends the current parameters to the worker: a preview first when
 * @interactive (a change) and previews are on, then the full frame. */
static void
simulation_request (BraggscopeSimulation *self, gboolean interactive)
{
  BraggscopeRequest req = { 0 };
  nb_error err = { 0 };

  if (!self->rendering)
    return;
  if (nb_params_copy (&req.params, &self->params, &err) != NB_OK)
    {
      g_autoptr (GError) error = _braggscope_error_from_nb (&err);
      _braggscope_simulation_emit_error (self, error);
      return;
    }
  if (self->worker == NULL)
    self->worker = _braggscope_worker_new (self, self->context);
  req.valid = TRUE;
  req.id = ++self->last_id;
  req.sequence = self->sequence;
  req.changed_us = g_get_monotonic_time ();
  req.stride = self->preview_stride;
  req.preview = interactive && self->preview_while_dragging && self->preview_stride >= 2;
  req.max_arc_domains = self->max_arc_domains;
  _braggscope_worker_submit (self->worker, &req);
  set_busy (self, TRUE);
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

  if (self->worker != NULL)
    {
      _braggscope_worker_stop (self->worker);
      g_clear_pointer (&self->worker, _braggscope_worker_unref);
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
  _braggscope_simulation_default_params (&self->params);
  self->preview_while_dragging = TRUE;
  self->preview_stride = 4;
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
 * @error: a #GError, %BRAGGSCOPE_ERROR_IO when a data file is missing,
 *   %BRAGGSCOPE_ERROR_PARSE or %BRAGGSCOPE_ERROR_INVALID for a scene file
 *   that is no command line
 *
 * The default scene: HIV-1 protease (PDB 1HPV, structure factors from
 * `1hpv_p1.hkl`, P1, cell 63.4 63.4 83.8 90 90 120), misset 10 20 30 degrees,
 * 1 Angstrom, 10 x 10 x 10 cells, 0.2 degree mosaic spread in 5 domains, 120 mm,
 * 1024 x 1024 pixels of 0.1 mm, single precision: the flags of
 * `1hpv-scene.args` beside the structure factors.  The data files are looked
 * up in $BRAGGSCOPE_DATADIR, the installed data folder (datadir/braggscope),
 * then the source tree.  Rendering starts at once.
 *
 * Returns: (transfer full): a new simulation, or %NULL with @error set
 */
BraggscopeSimulation *
braggscope_simulation_new_default_scene (GError **error)
{
  g_autofree char *hkl = find_default_scene (error);
  g_autofree char *folder = NULL, *path = NULL, *text = NULL, *line = NULL;
  g_auto (GStrv) args = NULL;
  g_autoptr (BraggscopeSimulation) self = NULL;

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
  if (!braggscope_simulation_set_from_args (self, (const char *const *) args, error))
    {
      g_prefix_error (error, "%s: ", path);
      return NULL;
    }
  braggscope_simulation_render (self);
  return g_steal_pointer (&self);
}

/* Replaces the parameters by @next (taken over) and reports the change. */
static void
simulation_replace_params (BraggscopeSimulation *self, nb_params *next)
{
  GValue *before = _braggscope_simulation_snapshot (self);

  nb_params_clear (&self->params);
  self->params = *next;
  _braggscope_simulation_notify_changed (self, before);
  _braggscope_simulation_changed (self);
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
  return self->worker != NULL ? _braggscope_worker_get_buffers_allocated (self->worker) : 0;
}
