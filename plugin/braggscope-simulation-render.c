/* braggscope-simulation-render.c: waiting for a frame, for scripts.
 *
 * braggscope_simulation_render_frame_async() registers a wait for the
 * newest render request (posting one when the current parameters have none
 * and their frame is not the last delivered) with
 * braggscope-simulation-waits.c; every delivery of the worker passes through
 * _braggscope_simulation_wake(), which completes the waits that request, or
 * a later one, answers: a full frame or an error.  A wait
 * never depends on a property notification or on the scene changing, so
 * asking again for the frame already delivered returns at once.
 */
#include "braggscope-simulation-private.h"

#include <glib/gi18n-lib.h>

/* Whether the last frame delivered is the full frame of the current
 * parameters, the answer of their newest request. */
static gboolean
frame_is_current (BraggscopeSimulation *self)
{
  return self->last_frame != NULL && self->delivered_full && self->delivered_id == self->last_id &&
         braggscope_frame_get_sequence (self->last_frame) == self->sequence;
}

/**
 * braggscope_simulation_render_frame_async:
 * @self: a simulation
 * @cancellable: (nullable): stops the wait (not the render)
 * @callback: (scope async): called with the frame, on the thread-default
 *   main context of the caller
 * @user_data: data for @callback
 *
 * Asks for the full frame of the current parameters and calls @callback
 * when it is there; finish with
 * [method@Braggscope.Simulation.render_frame_finish].  Unlike
 * [method@Braggscope.Simulation.render], this does not depend on a change:
 * when the last frame delivered is already the full frame of the current
 * parameters (setting a property to the value it has changes nothing), that
 * frame is the answer, at once.  When they are still rendering, the answer
 * is the frame they are owed; when they have none (rendering was never
 * started, or their last render failed), they are rendered again.  A
 * simulation not yet rendering starts rendering, as with
 * [method@Braggscope.Simulation.render].
 *
 * Outside [property@Braggscope.Simulation:batch] mode a change made while
 * waiting replaces the request, and the answer is then the full frame of the
 * newer parameters; in batch mode every change gets its own frame and the
 * answer is the one of the parameters current at this call.
 *
 * In PyGObject and GJS this is the awaitable form (GJS: after
 * `Gio._promisify (Braggscope.Simulation.prototype, 'render_frame_async')`).
 *
 * Since: 0.1
 */
void
braggscope_simulation_render_frame_async (BraggscopeSimulation *self,
                                          GCancellable *cancellable,
                                          GAsyncReadyCallback callback,
                                          gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  g_autoptr (GError) error = NULL;

  g_return_if_fail (BRAGGSCOPE_IS_SIMULATION (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, braggscope_simulation_render_frame_async);
  /* the library's own code for a cancelled wait, not GIO's */
  g_task_set_check_cancellable (task, FALSE);
  if (g_cancellable_is_cancelled (cancellable))
    {
      g_task_return_new_error (task, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_CANCELLED,
                               "waiting for a frame cancelled");
      return;
    }
  if (frame_is_current (self))
    {
      g_task_return_pointer (task, g_object_ref (self->last_frame), g_object_unref);
      return;
    }
  if (!self->busy || !self->rendering)
    {
      self->rendering = TRUE;
      if (!_braggscope_simulation_request (self, FALSE, &error))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
    }
  _braggscope_simulation_add_wait (self, g_steal_pointer (&task), self->last_id, cancellable);
}

/**
 * braggscope_simulation_render_frame_finish:
 * @self: a simulation
 * @result: the result given to the callback of
 *   [method@Braggscope.Simulation.render_frame_async]
 * @error: return location for a [struct@GLib.Error], or %NULL
 *
 * The frame [method@Braggscope.Simulation.render_frame_async] waited for.
 *
 * Fails with the error that ended the render, as
 * [signal@Braggscope.Simulation::error] carries it
 * (`BRAGGSCOPE_ERROR_IO` for a structure-factor file that cannot be read,
 * `BRAGGSCOPE_ERROR_INVALID` for a scene without a unit cell...), and with
 * `BRAGGSCOPE_ERROR_CANCELLED` when the wait was cancelled or the
 * simulation disposed.
 *
 * Returns: (transfer full): the full frame, or %NULL with @error set
 *
 * Since: 0.1
 */
BraggscopeFrame *
braggscope_simulation_render_frame_finish (BraggscopeSimulation *self,
                                           GAsyncResult *result,
                                           GError **error)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (
      g_task_get_source_tag (G_TASK (result)) == braggscope_simulation_render_frame_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
render_frame_ready (GObject *source, GAsyncResult *result, gpointer data)
{
  *(GAsyncResult **) data = g_object_ref (result);
}

/**
 * braggscope_simulation_render_frame:
 * @self: a simulation
 * @cancellable: (nullable): stops the wait
 * @error: return location for a [struct@GLib.Error], or %NULL
 *
 * [method@Braggscope.Simulation.render_frame_async] as one call for a
 * script: returns the full frame of the current parameters, at once when it
 * is the last frame delivered, else when it has been rendered.  Call it on
 * the simulation's thread: meanwhile it runs the simulation's main context,
 * so the signals of the frames on their way (previews, `frame-ready`,
 * `render-progress`) are emitted and their handlers, and other sources of
 * that context, run as in a main loop.  A window's host, whose main loop
 * must not stop, uses the async form instead.
 *
 * Fails as [method@Braggscope.Simulation.render_frame_finish] does, and
 * with `BRAGGSCOPE_ERROR_FAILED` when called on a thread that cannot run the
 * simulation's main context (another thread owns it).
 *
 * Returns: (transfer full): the full frame, or %NULL with @error set
 *
 * Since: 0.1
 */
BraggscopeFrame *
braggscope_simulation_render_frame (BraggscopeSimulation *self,
                                    GCancellable *cancellable,
                                    GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;
  g_autoptr (BraggscopeSimulation) keep = NULL;

  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!g_main_context_acquire (self->context))
    {
      g_set_error_literal (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_FAILED,
                           "render_frame: the simulation's main context runs on another thread; "
                           "call it on the simulation's thread, or use render_frame_async");
      return NULL;
    }
  keep = g_object_ref (self);
  /* the task's callback goes to the context this loop runs */
  g_main_context_push_thread_default (self->context);
  braggscope_simulation_render_frame_async (self, cancellable, render_frame_ready, &result);
  while (result == NULL)
    g_main_context_iteration (self->context, TRUE);
  g_main_context_pop_thread_default (self->context);
  g_main_context_release (self->context);
  return braggscope_simulation_render_frame_finish (self, result, error);
}
