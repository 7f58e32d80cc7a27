/* braggscope-simulation-waits.c: the waits for a frame of a
 * BraggscopeSimulation (braggscope_simulation_render_frame_async(), in
 * braggscope-simulation-render.c), kept in its instance and completed by its
 * deliveries (braggscope-simulation.c).  Below both: it calls neither.
 */
#include "braggscope-simulation-private.h"

typedef struct _RenderWait
{
  BraggscopeSimulation *self; /* not a reference: the task holds one */
  GTask *task;
  guint64 id;            /* the request whose full frame, or a later one's, completes it */
  GSource *cancel_watch; /* on the simulation's context */
} RenderWait;

static void
render_wait_free (RenderWait *wait)
{
  if (wait->cancel_watch != NULL)
    {
      g_source_destroy (wait->cancel_watch);
      g_source_unref (wait->cancel_watch);
    }
  g_object_unref (wait->task);
  g_free (wait);
}

/* Completes the waits @match picks with @frame or @error (one of them):
 * taken out of the list first, so that a callback may wait again. */
static void
complete_waits (BraggscopeSimulation *self,
                gboolean (*match) (RenderWait *wait, gpointer data),
                gpointer data,
                BraggscopeFrame *frame,
                const GError *error)
{
  g_autoptr (GPtrArray) done = g_ptr_array_new_with_free_func ((GDestroyNotify) render_wait_free);

  for (guint i = 0; self->waits != NULL && i < self->waits->len;)
    if (match (g_ptr_array_index (self->waits, i), data))
      g_ptr_array_add (done, g_ptr_array_steal_index (self->waits, i));
    else
      i++;
  for (guint i = 0; i < done->len; i++)
    {
      RenderWait *wait = g_ptr_array_index (done, i);

      if (frame != NULL)
        g_task_return_pointer (wait->task, g_object_ref (frame), g_object_unref);
      else
        g_task_return_error (wait->task, g_error_copy (error));
    }
}

static gboolean
answered_by (RenderWait *wait, gpointer data)
{
  return *(const guint64 *) data >= wait->id;
}

gboolean
_braggscope_simulation_is_awaited (BraggscopeSimulation *self, guint64 id)
{
  for (guint i = 0; self->waits != NULL && i < self->waits->len; i++)
    if (answered_by (g_ptr_array_index (self->waits, i), &id))
      return TRUE;
  return FALSE;
}

void
_braggscope_simulation_wake (BraggscopeSimulation *self,
                             guint64 id,
                             BraggscopeFrame *frame,
                             const GError *error)
{
  complete_waits (self, answered_by, &id, frame, error);
}

static gboolean
any_wait (RenderWait *wait, gpointer data)
{
  return TRUE;
}

void
_braggscope_simulation_cancel_waits (BraggscopeSimulation *self)
{
  g_autoptr (GError) error = g_error_new_literal (BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_CANCELLED,
                                                  "render cancelled: the simulation was disposed");

  complete_waits (self, any_wait, NULL, NULL, error);
}

static gboolean
is_wait (RenderWait *wait, gpointer data)
{
  return wait == data;
}

static gboolean
render_wait_cancelled (GCancellable *cancellable, gpointer data)
{
  RenderWait *wait = data;
  g_autoptr (GError) error = g_error_new_literal (BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_CANCELLED,
                                                  "waiting for a frame cancelled");

  /* destroys this source, which its dispatch holds meanwhile */
  complete_waits (wait->self, is_wait, wait, NULL, error);
  return G_SOURCE_REMOVE;
}

void
_braggscope_simulation_add_wait (BraggscopeSimulation *self,
                                 GTask *task,
                                 guint64 id,
                                 GCancellable *cancellable)
{
  RenderWait *wait = g_new0 (RenderWait, 1);

  wait->self = self;
  wait->task = task;
  wait->id = id;
  if (cancellable != NULL)
    {
      wait->cancel_watch = g_cancellable_source_new (cancellable);
      g_source_set_callback (wait->cancel_watch, G_SOURCE_FUNC (render_wait_cancelled), wait, NULL);
      g_source_set_static_name (wait->cancel_watch, "[braggscope] render_frame cancellable");
      g_source_attach (wait->cancel_watch, self->context);
    }
  if (self->waits == NULL)
    self->waits = g_ptr_array_new_with_free_func ((GDestroyNotify) render_wait_free);
  g_ptr_array_add (self->waits, wait);
}
