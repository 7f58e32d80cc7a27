/* test-worker.c: the simulation's worker thread: coalescing, previews, cancellation,
 * shutdown while running, buffer recycling, and a stress run of random changes. */
#include "plugin-test-util.h"

/* About 5-20 ms a frame on two cores. */
#define MEDIUM_SCENE                                                                               \
  "-default_F 100 -cell 100 100 100 90 90 90 -lambda 1 -N 5 -distance 100 -detpixels 256 "         \
  "-pixel 0.2 -oversample 3 -mosaic 0.5 -mosaic_domains 4 -precision single"

/* Long enough (a second or so) for a change to arrive mid-frame. */
#define SLOW_SCENE                                                                                 \
  "-default_F 100 -cell 100 100 100 90 90 90 -lambda 1 -N 5 -distance 100 -detpixels 512 "         \
  "-pixel 0.1 -oversample 8 -mosaic 0.5 -mosaic_domains 4 -precision double -integration exact"

static double
seconds_since (gint64 start)
{
  return (g_get_monotonic_time () - start) / 1e6;
}

/* 100 changes in a row: the last frame is the full frame of the last values,
 * identical to the engine's image of them, and far fewer than 100 were made. */
static void
test_coalescing (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (MEDIUM_SCENE);
  BraggscopeFrame *last;
  guint before, rendered = 0;
  guint64 first_seq;
  double misset;
  g_auto (GStrv) args = NULL;
  Watch w;

  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  watch_wait_full (&w, 30);
  before = w.frames->len;
  first_seq = braggscope_simulation_get_sequence (sim) + 1;

  for (int i = 1; i <= 100; i++)
    g_object_set (sim, "misset-x", i * 0.25, NULL);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, first_seq + 99);
  last = watch_wait_full (&w, 30);
  spin (0.05);
  g_assert_true (watch_last (&w) == last);

  g_object_get (sim, "misset-x", &misset, NULL);
  g_assert_cmpfloat (misset, ==, 25.0);
  args = braggscope_simulation_to_args (sim);
  g_assert_true (g_strv_equal ((const char *const *) args,
                               (const char *const *) braggscope_frame_get_args (last)));
  assert_frame_is_engine_image (last, args);

  /* latest wins: most intermediate parameter sets were never rendered */
  {
    guint64 prev = 0;
    for (guint i = before; i < w.frames->len; i++)
      {
        guint64 s = braggscope_frame_get_sequence (g_ptr_array_index (w.frames, i));
        g_assert_cmpuint (s, >=, first_seq);
        if (s != prev)
          rendered++;
        prev = s;
      }
  }
  g_test_message ("100 changes, %u parameter sets rendered, %u frames", rendered,
                  w.frames->len - before);
  g_assert_cmpuint (rendered, <, 50);
  watch_clear (&w);
}

/* A change renders a preview (blocks of preview-stride pixels), then the
 * full frame of the same sequence. */
static void
test_preview_then_full (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (MEDIUM_SCENE);
  BraggscopeFrame *preview = NULL, *full;
  g_auto (GStrv) args = NULL;
  const float *data;
  guint before;
  Watch w;

  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  watch_wait_full (&w, 30);
  before = w.frames->len;
  g_object_set (sim, "misset-z", 7.0, NULL);
  full = watch_wait_full (&w, 30);
  g_assert_cmpuint (w.frames->len, ==, before + 2);
  preview = g_ptr_array_index (w.frames, before);
  g_assert_true (braggscope_frame_get_is_preview (preview));
  g_assert_false (braggscope_frame_get_is_preview (full));
  g_assert_cmpuint (braggscope_frame_get_sequence (preview), ==,
                    braggscope_frame_get_sequence (full));
  /* one simulated pixel per 4 x 4 block, copied to the block */
  data = braggscope_frame_get_data (preview, NULL);
  for (int y = 0; y < 256; y++)
    for (int x = 0; x < 256; x++)
      g_assert_cmpfloat (data[y * 256 + x], ==, data[(y / 4 * 4) * 256 + x / 4 * 4]);
  /* the maximum and the display window come with the frame (a full frame's
   * window computed by the engine where it rendered, a preview's on demand),
   * and are those of its pixels */
  for (int i = 0; i < 2; i++)
    {
      BraggscopeFrame *frame = i == 0 ? preview : full;
      double low, high, want_low, want_high;
      float max = -1.0f;
      gsize n;

      data = braggscope_frame_get_data (frame, &n);
      for (gsize j = 0; j < n; j++)
        max = MAX (max, data[j]);
      g_assert_cmpfloat (braggscope_frame_get_max_value (frame), ==, max);
      braggscope_frame_get_auto_window (frame, &low, &high);
      braggscope_auto_contrast (data, n, 1.0, 99.5, &want_low, &want_high);
      g_assert_cmpfloat (low, ==, want_low);
      g_assert_cmpfloat (high, ==, want_high);
      g_assert_cmpfloat (high, >, low);
      braggscope_frame_get_auto_window (frame, &low, &high); /* computed once */
      g_assert_cmpfloat (low, ==, want_low);
    }
  args = braggscope_simulation_to_args (sim);
  assert_frame_is_engine_image (full, args);
  g_assert_cmpint (braggscope_frame_get_cache_rebuilds (full), >=, 1);
  g_assert_cmpint (braggscope_frame_get_cache_hits (full), >=, 1);
  g_assert_cmpstr (braggscope_frame_get_backend (full), ==, "cpu");
  g_assert_cmpfloat (braggscope_frame_get_total_ms (full), >=,
                     braggscope_frame_get_execute_ms (full));

  /* without previews, only full frames */
  g_object_set (sim, "preview-while-dragging", FALSE, NULL);
  before = w.frames->len;
  g_object_set (sim, "misset-z", 8.0, NULL);
  watch_wait_full (&w, 30);
  spin (0.02);
  g_assert_cmpuint (w.frames->len, ==, before + 1);
  watch_clear (&w);
}

static void
on_notify_busy (GObject *object, GParamSpec *pspec, GArray *states)
{
  gboolean busy = braggscope_simulation_get_busy (BRAGGSCOPE_SIMULATION (object));
  g_array_append_val (states, busy);
}

static void
test_busy (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_autoptr (GArray) states = g_array_new (FALSE, FALSE, sizeof (gboolean));
  Watch w;

  watch_init (&w, sim);
  g_signal_connect (sim, "notify::busy", G_CALLBACK (on_notify_busy), states);
  g_assert_false (braggscope_simulation_get_busy (sim));
  /* no rendering before the first render () */
  g_object_set (sim, "misset-x", 1.0, NULL);
  spin (0.05);
  g_assert_cmpuint (w.frames->len, ==, 0);
  g_assert_false (braggscope_simulation_get_busy (sim));

  braggscope_simulation_render (sim);
  g_assert_true (braggscope_simulation_get_busy (sim));
  watch_wait_full (&w, 30);
  g_assert_false (braggscope_simulation_get_busy (sim));
  g_assert_cmpuint (states->len, ==, 2);
  watch_clear (&w);
}

/* The time the engine takes for a full frame of SLOW_SCENE. */
static double
slow_scene_seconds (void)
{
  static double seconds = 0.0;

  if (seconds == 0.0)
    {
      g_auto (GStrv) argv = NULL;
      g_autofree char *cmdline = g_strconcat ("nanobragg ", SLOW_SCENE, NULL);
      g_autofree float *image = NULL;
      gint64 start;
      int w, h;

      g_assert_true (g_shell_parse_argv (cmdline, NULL, &argv, NULL));
      start = g_get_monotonic_time ();
      image = engine_render (argv, &w, &h);
      seconds = seconds_since (start);
      g_test_message ("slow scene: %.3f s a frame", seconds);
    }
  return seconds;
}

/* A newer request cancels the full frame in flight: the new (cheap) frame
 * arrives long before the old one could have finished, and the old one
 * never arrives. */
static void
test_cancellation (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SLOW_SCENE);
  double slow = slow_scene_seconds (), waited;
  guint64 old_seq;
  BraggscopeFrame *frame;
  gint64 start;
  Watch w;

  watch_init (&w, sim);
  g_object_set (sim, "preview-while-dragging", FALSE, NULL);
  old_seq = braggscope_simulation_get_sequence (sim);
  braggscope_simulation_render (sim);
  spin (MIN (0.2, slow / 4)); /* the slow frame is under way */
  g_assert_cmpuint (w.frames->len, ==, 0);

  start = g_get_monotonic_time ();
  g_object_set (sim, "oversample", 1, NULL);
  frame = watch_wait_full (&w, 30);
  waited = seconds_since (start);
  g_test_message ("slow frame %.3f s; the newer frame came %.3f s after the change", slow, waited);
  g_assert_cmpuint (w.frames->len, ==, 1);
  g_assert_cmpuint (braggscope_frame_get_sequence (frame), ==, old_seq + 1);
  g_assert_cmpfloat (waited, <, slow * 0.5);
  spin (0.05);
  g_assert_cmpuint (w.frames->len, ==, 1);
  watch_clear (&w);
}

static void
unref_in_handler (BraggscopeSimulation *sim, BraggscopeFrame *frame, BraggscopeSimulation **slot)
{
  if (braggscope_frame_get_is_preview (frame) && *slot != NULL)
    {
      /* dropping the last reference from its own signal: the emission holds
       * one until it returns */
      g_object_unref (g_steal_pointer (slot));
    }
}

/* Disposing a simulation while its worker renders cancels, joins, and drops
 * the results still queued. */
static void
test_finalize_running (void)
{
  gboolean timing = g_getenv ("BRAGGSCOPE_TEST_NO_TIMING") == NULL;
  double slow = timing ? slow_scene_seconds () : 0.0;

  /* 1: right after the render request (plan being created) */
  {
    BraggscopeSimulation *sim = simulation_from_cmdline (SLOW_SCENE);

    g_object_add_weak_pointer (G_OBJECT (sim), (gpointer *) &sim);
    braggscope_simulation_render (sim);
    g_object_unref (sim);
    g_assert_null (sim);
    spin (0.02);
  }
  /* 2: mid-frame, with changes pending */
  {
    BraggscopeSimulation *sim = simulation_from_cmdline (SLOW_SCENE);
    gint64 start;

    g_object_add_weak_pointer (G_OBJECT (sim), (gpointer *) &sim);
    braggscope_simulation_render (sim);
    spin (0.1);
    g_object_set (sim, "misset-x", 3.0, NULL);
    g_object_set (sim, "misset-x", 4.0, NULL);
    start = g_get_monotonic_time ();
    g_object_unref (sim);
    g_assert_null (sim);
    if (timing)
      g_assert_cmpfloat (seconds_since (start), <, slow * 0.5);
    spin (0.05);
  }
  /* 3: from a frame-ready handler, frames of its sequence still queued */
  {
    BraggscopeSimulation *sim = simulation_from_cmdline (MEDIUM_SCENE), *slot;

    slot = sim;
    g_object_add_weak_pointer (G_OBJECT (sim), (gpointer *) &sim);
    g_signal_connect (sim, "frame-ready", G_CALLBACK (unref_in_handler), &slot);
    braggscope_simulation_render (sim);
    g_object_set (sim, "misset-y", 2.0, NULL);
    while (sim != NULL)
      g_main_context_iteration (NULL, TRUE);
    spin (0.05);
  }
  /* 4: a frame kept by the host outlives the simulation */
  {
    g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
    g_autoptr (BraggscopeFrame) frame = NULL;
    g_autoptr (GBytes) bytes = NULL;
    Watch w;

    watch_init (&w, sim);
    braggscope_simulation_render (sim);
    frame = g_object_ref (watch_wait_full (&w, 30));
    bytes = braggscope_frame_get_bytes (frame);
    watch_clear (&w);
    g_clear_object (&sim);
    g_assert_cmpuint (g_bytes_get_size (bytes), ==, 64 * 64 * sizeof (float));
    g_assert_true (g_bytes_get_data (bytes, NULL) == braggscope_frame_get_data (frame, NULL));
    g_clear_object (&frame);
    /* the bytes keep the pixels alive */
    g_assert_cmpfloat (((const float *) g_bytes_get_data (bytes, NULL))[0], >=, 0.0f);
  }
}

/* Steady state: frames recycle their buffers. */
static void
test_buffer_recycling (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_autoptr (GHashTable) buffers = g_hash_table_new (NULL, NULL);
  Watch w;

  watch_init (&w, sim);
  w.keep_frames = FALSE; /* as a viewer: only the newest frame is held */
  braggscope_simulation_render (sim);
  for (int i = 0; i < 60; i++)
    {
      BraggscopeFrame *f;

      g_object_set (sim, "misset-x", i * 1.0, NULL);
      f = watch_wait_full (&w, 30);
      g_hash_table_add (buffers, (gpointer) braggscope_frame_get_data (f, NULL));
    }
  g_test_message ("60 changes, 120 frames, %u distinct buffers", g_hash_table_size (buffers));
  g_assert_cmpuint (g_hash_table_size (buffers), <=, 6);
  watch_clear (&w);
}

/* ---- stress ---- */

typedef struct
{
  const char *name;
  GType type;    /* G_TYPE_DOUBLE, G_TYPE_INT, G_TYPE_STRING, or an enum */
  double lo, hi; /* valid values drawn from here */
  double bad[3]; /* invalid values (NAN-terminated when fewer) */
  int n_bad;
} stress_prop;

static void
stress_set (BraggscopeSimulation *sim, const stress_prop *p, gboolean valid)
{
  GValue v = G_VALUE_INIT;

  if (p->type == G_TYPE_DOUBLE)
    {
      g_value_init (&v, G_TYPE_DOUBLE);
      g_value_set_double (&v, valid ? g_test_rand_double_range (p->lo, p->hi)
                                    : p->bad[g_test_rand_int_range (0, p->n_bad)]);
    }
  else if (p->type == G_TYPE_INT)
    {
      g_value_init (&v, G_TYPE_INT);
      g_value_set_int (&v, valid ? g_test_rand_int_range ((int) p->lo, (int) p->hi + 1)
                                 : (int) p->bad[g_test_rand_int_range (0, p->n_bad)]);
    }
  else
    {
      g_value_init (&v, p->type);
      g_value_set_enum (&v, g_test_rand_int_range ((int) p->lo, (int) p->hi + 1));
    }
  g_object_set_property (G_OBJECT (sim), p->name, &v);
  g_value_unset (&v);
}

static void
count_frame (guint *frames)
{
  (*frames)++;
}

/* 10,000 random changes, about one in ten invalid: each invalid one is
 * reported once, nothing crashes, frames keep coming in order, and the last
 * frame is the engine's image of the last accepted parameters. */
static void
test_stress (void)
{
  const stress_prop props[] = {
    { "misset-x", G_TYPE_DOUBLE, -180, 180, { NAN }, 1 },
    { "misset-y", G_TYPE_DOUBLE, -180, 180, { NAN }, 1 },
    { "misset-z", G_TYPE_DOUBLE, -180, 180, { NAN }, 1 },
    { "wavelength", G_TYPE_DOUBLE, 0.8, 1.6, { 0, -1, NAN }, 3 },
    { "mosaic-spread", G_TYPE_DOUBLE, 0, 0.5, { -0.5, 200, NAN }, 3 },
    { "mosaic-domains", G_TYPE_INT, 1, 4, { 0, -7, 2000000 }, 3 },
    { "n-cells", G_TYPE_INT, 2, 8, { -1, 2000000 }, 2 },
    { "cell-a", G_TYPE_DOUBLE, 60, 140, { -5 }, 1 },
    { "cell-alpha", G_TYPE_DOUBLE, 80, 100, { 190, -10 }, 2 },
    { "distance", G_TYPE_DOUBLE, 50, 200, { 0, -100 }, 2 },
    { "beam-center-x", G_TYPE_DOUBLE, 5, 35, { 0 }, 0 },
    { "pixel-size", G_TYPE_DOUBLE, 0.5, 1.0, { 0, -0.1 }, 2 },
    { "detector-pixels-fast", G_TYPE_INT, 16, 48, { 0, -5, 70000 }, 3 },
    { "detector-pixels-slow", G_TYPE_INT, 16, 48, { 0, 70000 }, 2 },
    { "two-theta", G_TYPE_DOUBLE, -10, 10, { NAN }, 1 },
    { "detector-rotz", G_TYPE_DOUBLE, -5, 5, { NAN }, 1 },
    { "oversample", G_TYPE_INT, 1, 2, { -3, 5000 }, 2 },
    { "phi", G_TYPE_DOUBLE, -90, 90, { NAN }, 1 },
    { "osc", G_TYPE_DOUBLE, 0, 0.5, { -1 }, 1 },
    { "dispersion", G_TYPE_DOUBLE, 0, 1, { 250, -1 }, 2 },
    { "divergence", G_TYPE_DOUBLE, 0, 0.3, { -1 }, 1 },
    { "polarization", G_TYPE_DOUBLE, -1, 1, { 1.5, -3 }, 2 },
    { "fluence", G_TYPE_DOUBLE, 1e20, 1e30, { -1 }, 1 },
    { "default-f", G_TYPE_DOUBLE, 1, 200, { NAN }, 1 },
    { "crystal-shape", BRAGGSCOPE_TYPE_SHAPE, 0, 3, { 0 }, 0 },
    { "precision", BRAGGSCOPE_TYPE_PRECISION, 0, 1, { 0 }, 0 },
  };
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (
      "-default_F 100 -cell 100 100 100 90 90 90 -lambda 1 -N 5 -distance 100 -detpixels 32 "
      "-pixel 0.8 -oversample 1 -precision single");
  g_auto (GStrv) args = NULL;
  guint invalid = 0, string_changes = 0, frames = 0;
  BraggscopeFrame *last;
  gint64 start = g_get_monotonic_time ();
  Watch w;

  watch_init (&w, sim);
  w.keep_frames = FALSE;
  g_signal_connect_swapped (sim, "frame-ready", G_CALLBACK (count_frame), &frames);
  braggscope_simulation_render (sim);
  for (int i = 0; i < 10000; i++)
    {
      const stress_prop *p = &props[g_test_rand_int_range (0, G_N_ELEMENTS (props))];
      gboolean valid = p->n_bad == 0 || g_test_rand_int_range (0, 10) != 0;

      if (g_test_rand_int_range (0, 200) == 0)
        {
          /* a string property: a missing file */
          g_object_set (sim, "structure-factors", "/no/such/file.hkl", NULL);
          string_changes++;
          continue;
        }
      stress_set (sim, p, valid);
      if (!valid)
        invalid++;
      if (i % 50 == 0)
        {
          /* let the worker render and deliver now and then */
          g_usleep (500);
          while (g_main_context_iteration (NULL, FALSE))
            ;
        }
    }
  g_assert_cmpuint (w.errors->len, ==, invalid + string_changes);
  for (guint i = 0; i < w.errors->len; i++)
    {
      GError *e = watch_error (&w, i);

      g_assert_true (e->domain == BRAGGSCOPE_ERROR);
      g_assert_true (e->code == BRAGGSCOPE_ERROR_INVALID || e->code == BRAGGSCOPE_ERROR_IO);
    }

  last = watch_wait_full (&w, 60);
  args = braggscope_simulation_to_args (sim);
  g_assert_true (g_strv_equal ((const char *const *) args,
                               (const char *const *) braggscope_frame_get_args (last)));
  assert_frame_is_engine_image (last, args);
  g_test_message ("10000 changes (%u invalid) in %.1f s, %" G_GUINT64_FORMAT " accepted, %u frames",
                  invalid + string_changes, seconds_since (start),
                  braggscope_simulation_get_sequence (sim), frames);
  g_assert_cmpuint (w.errors->len, ==, invalid + string_changes);
  watch_clear (&w);
}

/* ------------------------------------------------------------------------- */
/* A full frame's progress */

typedef struct
{
  GArray *reports;            /* BraggscopeRenderProgress */
  guint64 forbidden_sequence; /* a cancelled change: must not report after it */
  gboolean armed;
} Reports;

static void
on_render_progress (BraggscopeSimulation *sim, BraggscopeRenderProgress *progress, Reports *r)
{
  if (r->armed)
    g_assert_cmpuint (progress->sequence, !=, r->forbidden_sequence);
  g_array_append_val (r->reports, *progress);
}

/* A heavy change after a light frame: the full frame says at once what it
 * will cost (from the rate the earlier frames measured), then how far it is,
 * to its end; a newer change silences a frame it cancels. */
static void
test_render_progress (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SLOW_SCENE);
  Reports r = { g_array_new (FALSE, FALSE, sizeof (BraggscopeRenderProgress)), 0, FALSE };
  const BraggscopeRenderProgress *first, *last;
  BraggscopeFrame *frame;
  guint64 sequence;
  double actual;
  Watch w;

  watch_init (&w, sim);
  g_signal_connect (sim, "render-progress", G_CALLBACK (on_render_progress), &r);
  g_object_set (sim, "oversample", 2, NULL);
  braggscope_simulation_render (sim);
  watch_wait_full (&w, 60);
  g_assert_cmpuint (r.reports->len, >=, 2);

  /* 64 times the samples per pixel */
  g_array_set_size (r.reports, 0);
  g_object_set (sim, "oversample", 16, NULL);
  sequence = braggscope_simulation_get_sequence (sim);
  frame = watch_wait_full (&w, 120);
  actual = braggscope_frame_get_execute_ms (frame) / 1000.0;
  g_assert_cmpuint (r.reports->len, >=, 2);
  first = &g_array_index (r.reports, BraggscopeRenderProgress, 0);
  last = &g_array_index (r.reports, BraggscopeRenderProgress, r.reports->len - 1);
  g_test_message ("announced %.3f s for a frame of %.3f s; %u reports", first->estimate, actual,
                  r.reports->len);
  g_assert_cmpuint (first->sequence, ==, sequence);
  g_assert_cmpfloat (first->fraction, ==, 0.0);
  g_assert_cmpint (first->oversample, ==, 16);
  g_assert_cmpint (first->mosaic_domains, ==, 4);
  g_assert_cmpint (first->width, ==, 512);
  g_assert_cmpfloat (first->cells, ==, 5.0);
  g_assert_true (isfinite (first->estimate));
  g_assert_cmpfloat (first->estimate, >, actual / 3.0);
  g_assert_cmpfloat (first->estimate, <, actual * 3.0);
  for (guint i = 1; i < r.reports->len; i++)
    {
      const BraggscopeRenderProgress *p = &g_array_index (r.reports, BraggscopeRenderProgress, i);

      g_assert_cmpuint (p->sequence, ==, sequence);
      g_assert_cmpfloat (p->fraction, >=, (p - 1)->fraction);
      g_assert_cmpfloat (p->elapsed, >=, (p - 1)->elapsed);
    }
  g_assert_cmpfloat (last->fraction, ==, 1.0);
  g_assert_cmpfloat (last->remaining, ==, 0.0);

  /* cancelled by the next change: its reports stop with it */
  g_object_set (sim, "oversample", 2, NULL);
  watch_wait_full (&w, 60);
  g_array_set_size (r.reports, 0);
  g_object_set (sim, "preview-while-dragging", FALSE, "oversample", 32, NULL);
  sequence = braggscope_simulation_get_sequence (sim);
  while (r.reports->len < 2)
    spin (0.01);
  g_assert_cmpfloat (g_array_index (r.reports, BraggscopeRenderProgress, 1).fraction, <, 1.0);
  r.forbidden_sequence = sequence;
  r.armed = TRUE;
  g_object_set (sim, "oversample", 1, NULL);
  frame = watch_wait_full (&w, 60);
  g_assert_cmpuint (braggscope_frame_get_sequence (frame), ==, sequence + 1);
  spin (0.3);
  g_signal_handlers_disconnect_by_func (sim, on_render_progress, &r);
  g_array_unref (r.reports);
  watch_clear (&w);
}

/* An adaptive full frame (issue 31) announces what adaptive costs, not the
 * exact method's 24 x 24 sub-pixels a pixel (about 150 times more on this
 * sparse scene): from the samples per pixel the last adaptive frame spent. */
#define SPARSE_SCENE                                                                               \
  "-default_F 100 -cell 63.4 63.4 83.8 90 90 120 -lambda 1 -N 50 -distance 120 -detpixels 512 "    \
  "-pixel 0.1 -oversample 24 -mosaic 0.2 -mosaic_domains 5 -precision single "                     \
  "-integration adaptive"

static void
test_render_progress_adaptive (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SPARSE_SCENE);
  Reports r = { g_array_new (FALSE, FALSE, sizeof (BraggscopeRenderProgress)), 0, FALSE };
  const BraggscopeRenderProgress *first;
  BraggscopeFrame *frame;
  double actual;
  Watch w;

  watch_init (&w, sim);
  g_signal_connect (sim, "render-progress", G_CALLBACK (on_render_progress), &r);
  braggscope_simulation_render (sim);
  frame = watch_wait_full (&w, 60);
  g_assert_true (braggscope_frame_get_integration (frame) == BRAGGSCOPE_INTEGRATION_ADAPTIVE);

  /* the crystal turned a little: about the same cost */
  g_array_set_size (r.reports, 0);
  g_object_set (sim, "misset-x", 1.0, NULL);
  frame = watch_wait_full (&w, 60);
  actual = braggscope_frame_get_execute_ms (frame) / 1000.0;
  g_assert_cmpuint (r.reports->len, >=, 1);
  first = &g_array_index (r.reports, BraggscopeRenderProgress, 0);
  g_test_message ("announced %.3f s for an adaptive frame of %.3f s (%.2f samples per pixel)",
                  first->estimate, actual, braggscope_frame_get_samples_per_pixel (frame));
  g_assert_true (isfinite (first->estimate));
  g_assert_cmpfloat (first->estimate, <, actual * 5.0 + 0.05);
  g_assert_cmpfloat (first->estimate, >, actual / 5.0);
  g_signal_handlers_disconnect_by_func (sim, on_render_progress, &r);
  g_array_unref (r.reports);
  watch_clear (&w);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/worker/coalescing", test_coalescing);
  g_test_add_func ("/worker/preview-then-full", test_preview_then_full);
  g_test_add_func ("/worker/busy", test_busy);
  g_test_add_func ("/worker/cancellation", test_cancellation);
  g_test_add_func ("/worker/finalize-running", test_finalize_running);
  g_test_add_func ("/worker/buffer-recycling", test_buffer_recycling);
  g_test_add_func ("/worker/stress", test_stress);
  g_test_add_func ("/worker/render-progress", test_render_progress);
  g_test_add_func ("/worker/render-progress-adaptive", test_render_progress_adaptive);
  return g_test_run ();
}
