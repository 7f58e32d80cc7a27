/* tsan-glib.c: lets ThreadSanitizer see GLib's synchronisation.
 *
 * Debian's GLib is not built with -fsanitize=thread, and its GMutex, GCond,
 * main-context queues and GObject reference counts are futexes and atomics
 * inside the library, invisible to TSan: every access a GMutex protects then
 * looks like a race.  Preloaded (LD_PRELOAD) into a TSan build's tests, this
 * library wraps the GLib calls Braggscope synchronises with and tells TSan
 * what they mean (acquire and release on the object's address), then calls the
 * real function.  It adds no synchronisation of its own, so a real race still
 * shows: one that no lock, hand-off or reference count orders.
 *
 * Built by build-aux/setup.sh for its ThreadSanitizer run:
 *   cc -shared -fPIC -fsanitize=thread -O1 tsan-glib.c -o libtsan-glib.so
 *      $(pkg-config --cflags --libs gio-2.0) -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <gio/gio.h>
#include <glib-object.h>
#include <stdlib.h>

/* macros in GLib's headers; the functions behind them are what is wrapped */
#undef g_once_init_leave
#undef g_object_unref

void __tsan_acquire (void *addr);
void __tsan_release (void *addr);

#define REAL(ret, name, params)                                                                    \
  static ret (*real_##name) params;                                                                \
  static void init_##name (void)                                                                   \
  {                                                                                                \
    if (real_##name == NULL)                                                                       \
      {                                                                                            \
        real_##name = (ret (*) params) dlsym (RTLD_NEXT, #name);                                   \
        if (real_##name == NULL)                                                                   \
          abort ();                                                                                \
      }                                                                                            \
  }

REAL (void, g_mutex_lock, (GMutex *) )
REAL (gboolean, g_mutex_trylock, (GMutex *) )
REAL (void, g_mutex_unlock, (GMutex *) )
REAL (void, g_cond_wait, (GCond *, GMutex *) )
REAL (gboolean, g_cond_wait_until, (GCond *, GMutex *, gint64))
REAL (void, g_cond_signal, (GCond *) )
REAL (void, g_cond_broadcast, (GCond *) )
REAL (void, g_object_unref, (gpointer))
REAL (void, g_bytes_unref, (GBytes *) )
REAL (void, g_once_init_leave, (volatile void *, gsize))
REAL (void,
      g_main_context_invoke_full,
      (GMainContext *, gint, GSourceFunc, gpointer, GDestroyNotify))
REAL (guint, g_idle_add_full, (gint, GSourceFunc, gpointer, GDestroyNotify))
REAL (guint, g_timeout_add_full, (gint, guint, GSourceFunc, gpointer, GDestroyNotify))
REAL (void, g_task_run_in_thread, (GTask *, GTaskThreadFunc))
REAL (void, g_task_return_pointer, (GTask *, gpointer, GDestroyNotify))
REAL (void, g_task_return_boolean, (GTask *, gboolean))
REAL (void, g_task_return_error, (GTask *, GError *) )
REAL (gboolean, g_task_return_error_if_cancelled, (GTask *) )
REAL (gpointer, g_task_propagate_pointer, (GTask *, GError **) )
REAL (gboolean, g_task_propagate_boolean, (GTask *, GError **) )

void
g_mutex_lock (GMutex *mutex)
{
  init_g_mutex_lock ();
  real_g_mutex_lock (mutex);
  __tsan_acquire (mutex);
}

gboolean
g_mutex_trylock (GMutex *mutex)
{
  gboolean locked;

  init_g_mutex_trylock ();
  locked = real_g_mutex_trylock (mutex);
  if (locked)
    __tsan_acquire (mutex);
  return locked;
}

void
g_mutex_unlock (GMutex *mutex)
{
  init_g_mutex_unlock ();
  __tsan_release (mutex);
  real_g_mutex_unlock (mutex);
}

void
g_cond_signal (GCond *cond)
{
  init_g_cond_signal ();
  __tsan_release (cond);
  real_g_cond_signal (cond);
}

void
g_cond_broadcast (GCond *cond)
{
  init_g_cond_broadcast ();
  __tsan_release (cond);
  real_g_cond_broadcast (cond);
}

void
g_cond_wait (GCond *cond, GMutex *mutex)
{
  init_g_cond_wait ();
  __tsan_release (mutex);
  real_g_cond_wait (cond, mutex);
  __tsan_acquire (cond);
  __tsan_acquire (mutex);
}

gboolean
g_cond_wait_until (GCond *cond, GMutex *mutex, gint64 end_time)
{
  gboolean signalled;

  init_g_cond_wait_until ();
  __tsan_release (mutex);
  signalled = real_g_cond_wait_until (cond, mutex, end_time);
  __tsan_acquire (cond);
  __tsan_acquire (mutex);
  return signalled;
}

/* A reference count: every unref publishes what its thread did to the
 * object, and sees what the others did, so the last one, which frees it,
 * comes after all uses. */
void
g_object_unref (gpointer object)
{
  init_g_object_unref ();
  if (object != NULL)
    {
      __tsan_release (object);
      __tsan_acquire (object);
    }
  real_g_object_unref (object);
}

void
g_bytes_unref (GBytes *bytes)
{
  init_g_bytes_unref ();
  if (bytes != NULL)
    {
      __tsan_release (bytes);
      __tsan_acquire (bytes);
    }
  real_g_bytes_unref (bytes);
}

/* g_once_init_enter()'s fast path is an inline atomic load in the caller:
 * store the result again with an instrumented release, so it pairs. */
void
g_once_init_leave (volatile void *location, gsize result)
{
  init_g_once_init_leave ();
  real_g_once_init_leave (location, result);
  __atomic_store_n ((gsize *) location, result, __ATOMIC_RELEASE);
}

/* Callbacks queued to a main context run after the queueing: the
 * trampoline acquires what the queueing thread released. */
typedef struct
{
  GSourceFunc func;
  gpointer data;
  GDestroyNotify notify;
} Hop;

static gboolean
hop_run (gpointer user_data)
{
  Hop *hop = user_data;

  __tsan_acquire (hop);
  return hop->func (hop->data);
}

static void
hop_free (gpointer user_data)
{
  Hop *hop = user_data;

  __tsan_acquire (hop);
  if (hop->notify != NULL)
    hop->notify (hop->data);
  g_free (hop);
}

static Hop *
hop_new (GSourceFunc func, gpointer data, GDestroyNotify notify)
{
  Hop *hop = g_new (Hop, 1);

  hop->func = func;
  hop->data = data;
  hop->notify = notify;
  __tsan_release (hop);
  return hop;
}

void
g_main_context_invoke_full (GMainContext *context,
                            gint priority,
                            GSourceFunc function,
                            gpointer data,
                            GDestroyNotify notify)
{
  init_g_main_context_invoke_full ();
  real_g_main_context_invoke_full (context, priority, hop_run, hop_new (function, data, notify),
                                   hop_free);
}

guint
g_idle_add_full (gint priority, GSourceFunc function, gpointer data, GDestroyNotify notify)
{
  init_g_idle_add_full ();
  return real_g_idle_add_full (priority, hop_run, hop_new (function, data, notify), hop_free);
}

guint
g_timeout_add_full (
    gint priority, guint interval, GSourceFunc function, gpointer data, GDestroyNotify notify)
{
  init_g_timeout_add_full ();
  return real_g_timeout_add_full (priority, interval, hop_run, hop_new (function, data, notify),
                                  hop_free);
}

/* GTask: the thread function of g_task_run_in_thread() runs after the call
 * (GLib's thread pool hands it over inside the library), and what a task
 * returns is read after its g_task_return_*(), by its g_task_propagate_*()
 * (GLib hands the result to the task's context inside the library too). */
static const char task_thread_key[] = "tsan-glib-task-thread";

static void
task_thread_hop (GTask *task, gpointer source_object, gpointer task_data, GCancellable *cancellable)
{
  GTaskThreadFunc func;

  __tsan_acquire (task);
  func = (GTaskThreadFunc) g_object_get_data (G_OBJECT (task), task_thread_key);
  func (task, source_object, task_data, cancellable);
}

void
g_task_run_in_thread (GTask *task, GTaskThreadFunc task_func)
{
  init_g_task_run_in_thread ();
  g_object_set_data (G_OBJECT (task), task_thread_key, (gpointer) task_func);
  __tsan_release (task);
  real_g_task_run_in_thread (task, task_thread_hop);
}

void
g_task_return_pointer (GTask *task, gpointer result, GDestroyNotify result_destroy)
{
  init_g_task_return_pointer ();
  __tsan_release (task);
  real_g_task_return_pointer (task, result, result_destroy);
}

void
g_task_return_boolean (GTask *task, gboolean result)
{
  init_g_task_return_boolean ();
  __tsan_release (task);
  real_g_task_return_boolean (task, result);
}

void
g_task_return_error (GTask *task, GError *error)
{
  init_g_task_return_error ();
  __tsan_release (task);
  real_g_task_return_error (task, error);
}

gboolean
g_task_return_error_if_cancelled (GTask *task)
{
  init_g_task_return_error_if_cancelled ();
  __tsan_release (task);
  return real_g_task_return_error_if_cancelled (task);
}

gpointer
g_task_propagate_pointer (GTask *task, GError **error)
{
  gpointer result;

  init_g_task_propagate_pointer ();
  result = real_g_task_propagate_pointer (task, error);
  __tsan_acquire (task);
  return result;
}

gboolean
g_task_propagate_boolean (GTask *task, GError **error)
{
  gboolean result;

  init_g_task_propagate_boolean ();
  result = real_g_task_propagate_boolean (task, error);
  __tsan_acquire (task);
  return result;
}
