/* plugin-test-util.h: helpers shared by the libbraggscope tests. */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "braggscope.h"
#include "nanobragg.h"

/* A quick scene: no files, a few ms per frame. */
#define SMALL_SCENE                                                                                \
  "-default_F 100 -cell 100 100 100 90 90 90 -lambda 1 -N 5 -distance 100 -detpixels 64 "          \
  "-pixel 0.4 -precision single"

/* Watches a simulation: every frame and error, and that frames never go back. */
typedef struct
{
  BraggscopeSimulation *sim;
  GPtrArray *frames; /* BraggscopeFrame, in delivery order */
  GPtrArray *errors; /* GError */
  guint64 last_sequence;
  gboolean last_was_full;
  guint64 wait_sequence; /* wait_full_frame () stops at the full frame of this */
  gboolean keep_frames;
} Watch;

static void
watch_on_frame (BraggscopeSimulation *sim, BraggscopeFrame *frame, Watch *w)
{
  guint64 seq = braggscope_frame_get_sequence (frame);
  gboolean full = !braggscope_frame_get_is_preview (frame);

  g_assert_true (braggscope_simulation_get_last_frame (sim) == frame);
  /* never backwards; at one sequence a preview may precede the full frame, never follow it */
  g_assert_cmpuint (seq, >=, w->last_sequence);
  if (seq == w->last_sequence && w->last_was_full)
    g_assert_true (full);
  w->last_sequence = seq;
  w->last_was_full = full;
  if (w->keep_frames)
    g_ptr_array_add (w->frames, g_object_ref (frame));
  else
    {
      g_ptr_array_set_size (w->frames, 0);
      g_ptr_array_add (w->frames, g_object_ref (frame));
    }
}

static void
watch_on_error (BraggscopeSimulation *sim, GError *error, Watch *w)
{
  g_ptr_array_add (w->errors, g_error_copy (error));
}

static inline void
watch_init (Watch *w, BraggscopeSimulation *sim)
{
  memset (w, 0, sizeof *w);
  w->sim = sim;
  w->frames = g_ptr_array_new_with_free_func (g_object_unref);
  w->errors = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  w->keep_frames = TRUE;
  g_signal_connect (sim, "frame-ready", G_CALLBACK (watch_on_frame), w);
  g_signal_connect (sim, "error", G_CALLBACK (watch_on_error), w);
}

static inline void
watch_clear (Watch *w)
{
  g_signal_handlers_disconnect_by_data (w->sim, w);
  g_ptr_array_unref (w->frames);
  g_ptr_array_unref (w->errors);
}

static inline GError *
watch_error (Watch *w, guint i)
{
  g_assert_cmpuint (i, <, w->errors->len);
  return g_ptr_array_index (w->errors, i);
}

static inline BraggscopeFrame *
watch_last (Watch *w)
{
  return w->frames->len ? g_ptr_array_index (w->frames, w->frames->len - 1) : NULL;
}

/* Iterates the default context until the full frame of the simulation's
 * current sequence arrives (or an error, or @timeout_s); returns it. */
static inline BraggscopeFrame *
watch_wait_full (Watch *w, double timeout_s)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) (timeout_s * 1e6);
  guint errors = w->errors->len;
  guint64 seq = braggscope_simulation_get_sequence (w->sim);

  for (;;)
    {
      BraggscopeFrame *f = braggscope_simulation_get_last_frame (w->sim);

      if (f != NULL && braggscope_frame_get_sequence (f) == seq &&
          !braggscope_frame_get_is_preview (f))
        return f;
      if (w->errors->len > errors)
        g_error ("waiting for frame %" G_GUINT64_FORMAT ": %s", seq,
                 ((GError *) g_ptr_array_index (w->errors, w->errors->len - 1))->message);
      if (g_get_monotonic_time () > deadline)
        g_error ("no full frame for sequence %" G_GUINT64_FORMAT " within %g s", seq, timeout_s);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (200);
    }
}

/* Iterates the default context for @seconds. */
static inline void
spin (double seconds)
{
  gint64 end = g_get_monotonic_time () + (gint64) (seconds * 1e6);

  while (g_get_monotonic_time () < end)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (500);
    }
}

static inline BraggscopeSimulation *
simulation_from_cmdline (const char *cmdline)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) argv = NULL;
  BraggscopeSimulation *sim = braggscope_simulation_new ();

  g_assert_true (g_shell_parse_argv (cmdline, NULL, &argv, &error));
  g_assert_true (braggscope_simulation_set_from_args (sim, (const char *const *) argv, &error));
  g_assert_no_error (error);
  return sim;
}

/* The engine's own full image of the parameters @args (args[0] the program). */
static inline float *
engine_render (char **args, int *width, int *height)
{
  nb_params p;
  nb_plan *plan = NULL;
  nb_error err = { 0 };
  float *image;

  nb_params_init (&p);
  if (nb_params_parse_argv (&p, (int) g_strv_length (args), (const char *const *) args, &err) !=
      NB_OK)
    g_error ("%s", err.message);
  if (nb_plan_create (&p, &plan, &err) != NB_OK)
    g_error ("%s", err.message);
  *width = nb_plan_get_info (plan)->fpixels;
  *height = nb_plan_get_info (plan)->spixels;
  image = g_new (float, (gsize) *width **height);
  if (nb_plan_execute (plan, image, NULL, &err) != NB_OK)
    g_error ("%s", err.message);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
  return image;
}

/* Asserts that @frame holds exactly the engine's image of @args. */
static inline void
assert_frame_is_engine_image (BraggscopeFrame *frame, char **args)
{
  int w = 0, h = 0;
  g_autofree float *expected = engine_render (args, &w, &h);
  gsize n = 0;
  const float *data = braggscope_frame_get_data (frame, &n);

  g_assert_cmpint (braggscope_frame_get_width (frame), ==, w);
  g_assert_cmpint (braggscope_frame_get_height (frame), ==, h);
  g_assert_cmpuint (n, ==, (gsize) w * h);
  for (gsize i = 0; i < n; i++)
    if (memcmp (&data[i], &expected[i], sizeof (float)) != 0)
      g_error ("pixel %zu: frame %.9g, engine %.9g", i, data[i], expected[i]);
}
