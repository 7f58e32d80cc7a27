/* braggscope-drag-bench: a slider drag played into a simulation, headless.
 *
 * For each detector size, the 1HPV default scene is rendered once (the plan
 * warm), then misset-x changes at a fixed rate (60 Hz) for a few seconds, as
 * a user dragging a slider; the drag then stops.  Measured on the main
 * context, as a viewer would see it:
 *   - frames delivered during the drag (previews and full frames), per second;
 *   - latency from a property change to the frame-ready that answers it (a
 *     frame answers the newest change it includes), p50 and p95, for previews
 *     and for full frames;
 *   - after the drag stops: the latency of the full frame of the last change.
 *
 *   braggscope-drag-bench [--sizes 512,1024] [--seconds 3] [--rate 60]
 *                         [--stride 4] [--backend auto|cpu|cuda]
 *                         [--precision single|double] [--json]
 *                         [--reciprocal SIZE]
 *
 * --reciprocal draws every frame's reciprocal space as an open
 * BraggscopeReciprocalView would (its scene from the frame's parameters, a
 * SIZE x SIZE drawing), on the main context, so that its cost shows in the
 * frames per second; the drawing time's median is reported.
 * Each line (or JSON object) says where the frames were computed (the
 * backend of the last full frame) and in which precision.
 */
#include "braggscope.h"
#ifdef BRAGGSCOPE_DRAG_BENCH_RECIPROCAL
#include "braggscope-gtk.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  BraggscopeSimulation *sim;
  GMainLoop *loop;
  guint64 first_sequence; /* sequence of the first change of the drag */
  GArray *change_us;      /* time of change i (sequence first_sequence + i) */
  gboolean dragging;
  gint64 drag_end_us;
  guint64 final_sequence; /* last change: its full frame ends the run */
  gint64 final_full_us;   /* when it arrived; 0 before */
  GArray *preview_ms, *full_ms;
  GArray *preview_exec_ms, *full_exec_ms; /* the frames' own execute-ms */
  guint frames_in_drag;
  guint errors;
  const char *backend;   /* of the last frame (a static string) */
  GArray *reciprocal_ms; /* drawing each frame's reciprocal space */
} Bench;

/* --reciprocal: the side of the reciprocal view drawn for every frame (0: none). */
static int reciprocal_size;

/* What an open reciprocal view does with a new frame. */
static void
draw_reciprocal (BraggscopeFrame *frame, Bench *b)
{
#ifdef BRAGGSCOPE_DRAG_BENCH_RECIPROCAL
  gint64 start = g_get_monotonic_time ();
  g_autoptr (GBytes) rgba = NULL;
  double ms;

  if (reciprocal_size <= 0)
    return;
  rgba = braggscope_render_reciprocal_bytes (frame, 25.0, 20.0, 1.0, 0.0, reciprocal_size,
                                             reciprocal_size);
  ms = (g_get_monotonic_time () - start) / 1000.0;
  if (b->reciprocal_ms != NULL)
    g_array_append_val (b->reciprocal_ms, ms);
#endif
}

static int
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* The p-th percentile (0..100), nearest rank; NAN for no samples. */
static double
percentile (GArray *values, double p)
{
  gsize rank;

  if (values->len == 0)
    return NAN;
  g_array_sort (values, compare_double);
  rank = (gsize) ceil (p / 100.0 * values->len);
  if (rank < 1)
    rank = 1;
  return g_array_index (values, double, rank - 1);
}

static void
on_frame_ready (BraggscopeSimulation *sim, BraggscopeFrame *frame, Bench *b)
{
  gint64 now = g_get_monotonic_time ();
  guint64 seq = braggscope_frame_get_sequence (frame);
  gboolean preview = braggscope_frame_get_is_preview (frame);
  double ms;

  b->backend = braggscope_frame_get_backend (frame);
  draw_reciprocal (frame, b);
  if (b->change_us == NULL || seq < b->first_sequence ||
      seq - b->first_sequence >= b->change_us->len)
    {
      if (b->change_us == NULL && !preview) /* the warm-up render */
        g_main_loop_quit (b->loop);
      return;
    }
  ms = (now - g_array_index (b->change_us, gint64, seq - b->first_sequence)) / 1000.0;
  g_array_append_val (preview ? b->preview_ms : b->full_ms, ms);
  ms = braggscope_frame_get_execute_ms (frame);
  g_array_append_val (preview ? b->preview_exec_ms : b->full_exec_ms, ms);
  if (b->dragging)
    b->frames_in_drag++;
  if (!b->dragging && !preview && seq == b->final_sequence)
    {
      b->final_full_us = now;
      g_main_loop_quit (b->loop);
    }
}

static void
on_error (BraggscopeSimulation *sim, GError *error, Bench *b)
{
  g_printerr ("braggscope-drag-bench: %s\n", error->message);
  b->errors++;
  g_main_loop_quit (b->loop);
}

typedef struct
{
  GSource source;
  Bench *bench;
  gint64 start_us, period_us;
  guint tick, ticks;
  double degrees_per_tick;
} DragSource;

/* One slider step per period, at absolute times (no drift). */
static gboolean
drag_dispatch (GSource *source, GSourceFunc callback, gpointer data)
{
  DragSource *drag = (DragSource *) source;
  Bench *b = drag->bench;
  gint64 now;

  g_object_set (b->sim, "misset-x", 10.0 + drag->degrees_per_tick * (drag->tick + 1), NULL);
  now = g_get_monotonic_time ();
  if (b->change_us->len == 0)
    b->first_sequence = braggscope_simulation_get_sequence (b->sim);
  g_array_append_val (b->change_us, now);
  drag->tick++;
  if (drag->tick >= drag->ticks)
    {
      b->dragging = FALSE;
      b->drag_end_us = now;
      b->final_sequence = braggscope_simulation_get_sequence (b->sim);
      return G_SOURCE_REMOVE;
    }
  g_source_set_ready_time (source, drag->start_us + drag->tick * drag->period_us);
  return G_SOURCE_CONTINUE;
}

static GSourceFuncs drag_funcs = { .dispatch = drag_dispatch };

static gboolean
on_timeout (gpointer data)
{
  Bench *b = data;

  g_printerr ("braggscope-drag-bench: no final frame within 60 s\n");
  b->errors++;
  g_main_loop_quit (b->loop);
  return G_SOURCE_REMOVE;
}

static gboolean
run_size (int size,
          double seconds,
          double rate,
          int stride,
          const char *backend,
          const char *precision,
          gboolean json)
{
  g_autoptr (GError) error = NULL;
  Bench b = { 0 };
  DragSource *drag;
  gint64 start_us;
  guint timeout;
  double drag_s;

  b.loop = g_main_loop_new (NULL, FALSE);
  b.sim = braggscope_simulation_new_default_scene (&error);
  if (b.sim == NULL)
    {
      g_printerr ("braggscope-drag-bench: %s\n", error->message);
      return FALSE;
    }
  g_signal_connect (b.sim, "frame-ready", G_CALLBACK (on_frame_ready), &b);
  g_signal_connect (b.sim, "error", G_CALLBACK (on_error), &b);
  g_object_set (b.sim, "detector-pixels-fast", size, "detector-pixels-slow", size, "preview-stride",
                stride, NULL);
  if (backend != NULL)
    {
      /* an enum property: set by its nick, and refused loudly otherwise */
      GValue word = G_VALUE_INIT;
      g_autoptr (GError) refused = NULL;

      g_value_init (&word, G_TYPE_STRING);
      g_value_set_string (&word, backend);
      if (!braggscope_simulation_set_value (b.sim, "backend", &word, &refused))
        {
          g_printerr ("braggscope-drag-bench: --backend '%s': %s\n", backend, refused->message);
          g_value_unset (&word);
          return FALSE;
        }
      g_value_unset (&word);
    }
  if (precision != NULL)
    {
      GEnumClass *klass = g_type_class_ref (BRAGGSCOPE_TYPE_PRECISION);
      GEnumValue *v = g_enum_get_value_by_nick (klass, precision);

      if (v == NULL)
        {
          g_printerr ("braggscope-drag-bench: --precision '%s': allowed single, double, exact\n",
                      precision);
          g_type_class_unref (klass);
          return FALSE;
        }
      g_object_set (b.sim, "precision", v->value, NULL);
      g_type_class_unref (klass);
    }

  /* warm-up: the first full frame of this size (plan built, buffers pooled) */
  timeout = g_timeout_add_seconds (60, on_timeout, &b);
  while (braggscope_simulation_get_busy (b.sim) && b.errors == 0)
    g_main_loop_run (b.loop);
  g_source_remove (timeout);
  if (b.errors > 0)
    return FALSE;

  b.change_us = g_array_new (FALSE, FALSE, sizeof (gint64));
  b.preview_ms = g_array_new (FALSE, FALSE, sizeof (double));
  b.full_ms = g_array_new (FALSE, FALSE, sizeof (double));
  b.preview_exec_ms = g_array_new (FALSE, FALSE, sizeof (double));
  b.full_exec_ms = g_array_new (FALSE, FALSE, sizeof (double));
  b.reciprocal_ms = g_array_new (FALSE, FALSE, sizeof (double));
  b.dragging = TRUE;

  drag = (DragSource *) g_source_new (&drag_funcs, sizeof (DragSource));
  drag->bench = &b;
  drag->period_us = (gint64) (1e6 / rate);
  drag->ticks = (guint) MAX (1, (int) (seconds * rate + 0.5));
  drag->degrees_per_tick = 0.05;
  drag->start_us = start_us = g_get_monotonic_time ();
  g_source_set_ready_time ((GSource *) drag, drag->start_us);
  g_source_attach ((GSource *) drag, NULL);
  g_source_unref ((GSource *) drag);

  timeout = g_timeout_add_seconds ((guint) ceil (seconds) + 60, on_timeout, &b);
  g_main_loop_run (b.loop);
  if (b.errors == 0)
    g_source_remove (timeout);
  /* the drag source is gone by now (it removes itself after its last tick) */
  drag_s = (b.drag_end_us - start_us) / 1e6 + 1.0 / rate;

  {
    guint previews = b.preview_ms->len, fulls = b.full_ms->len;
    double p50 = percentile (b.preview_ms, 50), p95 = percentile (b.preview_ms, 95);
    double f50 = percentile (b.full_ms, 50), f95 = percentile (b.full_ms, 95);
    double final_ms = b.final_full_us ? (b.final_full_us - b.drag_end_us) / 1000.0 : NAN;
    double fps = b.frames_in_drag / drag_s;
    double pe = percentile (b.preview_exec_ms, 50), fe = percentile (b.full_exec_ms, 50);
    double re = percentile (b.reciprocal_ms, 50);
    char buf[9][G_ASCII_DTOSTR_BUF_SIZE];
    const double v[9] = { p50, p95, f50, f95, final_ms, fps, pe, fe, re };

    /* JSON has no NaN: null */
    for (int i = 0; i < 9; i++)
      if (isnan (v[i]))
        g_strlcpy (buf[i], "null", sizeof buf[i]);
      else
        g_ascii_formatd (buf[i], sizeof buf[i], "%.2f", v[i]);
    g_autofree char *precision_nick = NULL;
    int precision_value = 0;
    GEnumClass *klass = g_type_class_ref (BRAGGSCOPE_TYPE_PRECISION);

    g_object_get (b.sim, "precision", &precision_value, NULL);
    precision_nick = g_strdup (g_enum_get_value (klass, precision_value)->value_nick);
    g_type_class_unref (klass);
    if (json)
      g_print ("{\"size\": %d, \"backend\": \"%s\", \"precision\": \"%s\", "
               "\"seconds\": %.2f, \"rate_hz\": %.1f, \"preview_stride\": %d, "
               "\"changes\": %u, \"frames_during_drag\": %u, \"fps_during_drag\": %s, "
               "\"previews\": %u, \"full_frames\": %u, \"preview_p50_ms\": %s, "
               "\"preview_p95_ms\": %s, \"full_p50_ms\": %s, \"full_p95_ms\": %s, "
               "\"final_full_ms\": %s, \"preview_execute_p50_ms\": %s, "
               "\"full_execute_p50_ms\": %s, \"reciprocal_view\": %d, "
               "\"reciprocal_draw_p50_ms\": %s, \"errors\": %u}\n",
               size, b.backend != NULL ? b.backend : "", precision_nick, drag_s, rate, stride,
               b.change_us->len, b.frames_in_drag, buf[5], previews, fulls, buf[0], buf[1], buf[2],
               buf[3], buf[4], buf[6], buf[7], reciprocal_size, buf[8], b.errors);
    else
      g_print ("%4d^2 (%s, %s): %u changes in %.2f s, %u frames during the drag (%s/s): %u "
               "previews p50 %s ms p95 %s ms, %u full p50 %s ms p95 %s ms; full frame %s ms "
               "after the drag stopped (execute p50: preview %s ms, full %s ms)\n",
               size, b.backend != NULL ? b.backend : "?", precision_nick, b.change_us->len, drag_s,
               b.frames_in_drag, buf[5], previews, buf[0], buf[1], fulls, buf[2], buf[3], buf[4],
               buf[6], buf[7]);
    if (!json && reciprocal_size > 0)
      g_print ("      with the reciprocal view open (%d^2): its drawing p50 %s ms a frame\n",
               reciprocal_size, buf[8]);
  }

  g_array_unref (b.change_us);
  g_array_unref (b.preview_ms);
  g_array_unref (b.full_ms);
  g_array_unref (b.preview_exec_ms);
  g_array_unref (b.full_exec_ms);
  g_array_unref (b.reciprocal_ms);
  g_object_unref (b.sim);
  g_main_loop_unref (b.loop);
  return b.errors == 0;
}

int
main (int argc, char **argv)
{
  g_autofree char *sizes = NULL;
  double seconds = 3.0, rate = 60.0;
  int stride = 4;
  g_autofree char *backend = NULL, *precision = NULL;
  gboolean json = FALSE;
  g_auto (GStrv) list = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) context = NULL;
  GOptionEntry entries[] = {
    { "sizes", 0, 0, G_OPTION_ARG_STRING, &sizes, "Detector sizes (pixels per side)", "512,1024" },
    { "seconds", 0, 0, G_OPTION_ARG_DOUBLE, &seconds, "Length of the drag (s)", "3" },
    { "rate", 0, 0, G_OPTION_ARG_DOUBLE, &rate, "Changes per second", "60" },
    { "stride", 0, 0, G_OPTION_ARG_INT, &stride, "Preview stride (1: no previews)", "4" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend, "Compute backend (default: the scene's)",
      "auto|cpu|cuda" },
    { "precision", 0, 0, G_OPTION_ARG_STRING, &precision, "Kernel precision (default: the scene's)",
      "single|double" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "One JSON object per size", NULL },
    { "reciprocal", 0, 0, G_OPTION_ARG_INT, &reciprocal_size,
      "Draw each frame's reciprocal view, SIZE x SIZE pixels, as an open one would (0: none)",
      "SIZE" },
    { NULL }
  };
  gboolean ok = TRUE;

  context = g_option_context_new ("- play a slider drag into the 1HPV scene");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("braggscope-drag-bench: %s\n", error->message);
      return 2;
    }
  if (!(seconds > 0.0 && seconds <= 3600.0) || !(rate > 0.0 && rate <= 10000.0) || stride < 1 ||
      stride > 64)
    {
      g_printerr ("braggscope-drag-bench: --seconds %g, --rate %g, --stride %d: allowed 0 to "
                  "3600 s, 0 to 10000 Hz, 1 to 64\n",
                  seconds, rate, stride);
      return 2;
    }
#ifndef BRAGGSCOPE_DRAG_BENCH_RECIPROCAL
  if (reciprocal_size > 0)
    {
      g_printerr ("braggscope-drag-bench: --reciprocal: this build has no libbraggscope-gtk\n");
      return 2;
    }
#endif
  if (reciprocal_size < 0 || reciprocal_size > 8192)
    {
      g_printerr ("braggscope-drag-bench: --reciprocal %d: allowed 0 to 8192\n", reciprocal_size);
      return 2;
    }
  list = g_strsplit (sizes != NULL ? sizes : "512,1024", ",", -1);
  for (guint i = 0; list[i] != NULL && ok; i++)
    {
      char *end;
      long size = strtol (list[i], &end, 10);

      if (end == list[i] || *end != '\0' || size < 1 || size > 65536)
        {
          g_printerr ("braggscope-drag-bench: --sizes: '%s' is not a size (1 to 65536)\n", list[i]);
          return 2;
        }
      ok = run_size ((int) size, seconds, rate, stride, backend, precision, json);
    }
  return ok ? 0 : 1;
}
