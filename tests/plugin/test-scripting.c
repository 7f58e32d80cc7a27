/* test-scripting.c: what a script needs of a simulation (issue 27): waiting
 * for a frame (render_frame and its async form), batch mode, errors that
 * fail the call that made them, and properties whose pspecs carry the
 * parameter table's ranges. */
#include "plugin-test-util.h"

#include <sys/stat.h>

/* A scene whose full frame takes long enough to cancel (a second or more). */
#define SLOW_SCENE                                                                                 \
  "-default_F 100 -cell 100 100 100 90 90 90 -lambda 1 -N 5 -distance 100 -detpixels 1024 "        \
  "-pixel 0.1 -precision exact -oversample 4 -mosaic 1 -mosaic_domains 20"

static gboolean
cancel_now (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

/* render_frame with a guard: a wait that hangs fails the test after
 * @timeout_s instead of hanging it. */
static BraggscopeFrame *
render_frame_within (BraggscopeSimulation *sim, double timeout_s, GError **error)
{
  g_autoptr (GCancellable) guard = g_cancellable_new ();
  guint timeout = g_timeout_add ((guint) (timeout_s * 1000), cancel_now, guard);
  BraggscopeFrame *frame = braggscope_simulation_render_frame (sim, guard, error);

  if (g_cancellable_is_cancelled (guard))
    g_error ("render_frame did not return within %g s", timeout_s);
  g_source_remove (timeout);
  return frame;
}

static void
count_error (BraggscopeSimulation *sim, GError *error, guint *count)
{
  (*count)++;
}

static void
test_render_frame_unchanged (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeFrame) first = NULL, second = NULL, again = NULL;
  guint64 sequence;
  gint64 start;

  /* never rendered: render_frame starts rendering and waits */
  first = render_frame_within (sim, 30, &error);
  g_assert_no_error (error);
  g_assert_nonnull (first);
  g_assert_false (braggscope_frame_get_is_preview (first));
  g_assert_cmpuint (braggscope_frame_get_sequence (first), ==,
                    braggscope_simulation_get_sequence (sim));

  g_object_set (sim, "misset-x", 10.0, NULL);
  second = render_frame_within (sim, 30, &error);
  g_assert_no_error (error);
  g_assert_true (second != first);
  g_assert_cmpuint (braggscope_frame_get_sequence (second), ==,
                    braggscope_simulation_get_sequence (sim));

  /* the same value again: no change, no frame on its way; the frame
   * delivered is the answer, at once (the wait hung here) */
  sequence = braggscope_simulation_get_sequence (sim);
  g_object_set (sim, "misset-x", 10.0, NULL);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, sequence);
  start = g_get_monotonic_time ();
  again = render_frame_within (sim, 5, &error);
  g_assert_no_error (error);
  g_assert_true (again == second);
  g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC);
  g_assert_false (braggscope_simulation_get_busy (sim));
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, sequence);
}

static void
test_render_frame_errors (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autoptr (BraggscopeSimulation) bad_file = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeFrame) frame = NULL;
  g_autofree char *dir = g_dir_make_tmp ("braggscope-scripting-XXXXXX", NULL);
  g_autofree char *hkl = g_build_filename (dir, "broken.hkl", NULL);
  g_autofree char *cmdline = NULL;
  guint errors = 0;
  const char *cell[] = { "-cell", "50",         "50", "50",         "90", "90",
                         "90",    "-default_F", "10", "-detpixels", "32", NULL };

  /* counts the signal too: the error is raised and still emitted */
  g_signal_connect (sim, "error", G_CALLBACK (count_error), &errors);
  /* no unit cell: the render fails, and the call says why */
  frame = render_frame_within (sim, 30, &error);
  g_assert_null (frame);
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_assert_cmpuint (errors, ==, 1);
  g_clear_error (&error);
  /* asked again without a change: rendered again, failing again (no hang) */
  frame = render_frame_within (sim, 30, &error);
  g_assert_null (frame);
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_assert_cmpuint (errors, ==, 2);
  g_clear_error (&error);

  g_assert_true (braggscope_simulation_set_from_args (sim, cell, &error));
  g_assert_no_error (error);
  frame = render_frame_within (sim, 30, &error);
  g_assert_no_error (error);
  g_assert_nonnull (frame);
  g_assert_cmpint (braggscope_frame_get_width (frame), ==, 32);

  /* a structure-factor file found but malformed: the render's error */
  g_assert_true (g_file_set_contents (hkl, "1 2 3 x\n", -1, NULL));
  cmdline = g_strdup_printf ("%s -hkl %s", SMALL_SCENE, hkl);
  bad_file = simulation_from_cmdline (cmdline);
  g_signal_connect (bad_file, "error", G_CALLBACK (count_error), &errors);
  g_clear_object (&frame);
  frame = render_frame_within (bad_file, 30, &error);
  g_assert_null (frame);
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "broken.hkl"));
  g_unlink (hkl);
  g_rmdir (dir);
}

static void
test_render_frame_cancel (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SLOW_SCENE);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeFrame) frame = NULL;
  gint64 start;

  /* cancelled before: fails at once, nothing rendered */
  g_cancellable_cancel (cancellable);
  frame = braggscope_simulation_render_frame (sim, cancellable, &error);
  g_assert_null (frame);
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_CANCELLED);
  g_assert_false (braggscope_simulation_get_busy (sim));
  g_clear_error (&error);

  /* cancelled while the frame renders: the wait ends at once */
  g_cancellable_reset (cancellable);
  g_timeout_add (50, cancel_now, cancellable);
  start = g_get_monotonic_time ();
  frame = braggscope_simulation_render_frame (sim, cancellable, &error);
  g_assert_null (frame);
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 2 * G_USEC_PER_SEC);
  /* the render goes on: the simulation still owes the frame */
  g_assert_true (braggscope_simulation_get_busy (sim));
}

static void
on_rendered (GObject *source, GAsyncResult *result, gpointer data)
{
  GPtrArray *results = data;
  GError *error = NULL;
  BraggscopeFrame *frame =
      braggscope_simulation_render_frame_finish (BRAGGSCOPE_SIMULATION (source), result, &error);

  g_assert_no_error (error);
  g_ptr_array_add (results, frame);
}

static void
test_render_frame_async (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_autoptr (GPtrArray) results = g_ptr_array_new_with_free_func (g_object_unref);
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  /* two waits for one frame: both get it; a third after a change gets the newer */
  braggscope_simulation_render_frame_async (sim, NULL, on_rendered, results);
  braggscope_simulation_render_frame_async (sim, NULL, on_rendered, results);
  /* nothing is called back before the caller returns to its main loop */
  g_assert_cmpuint (results->len, ==, 0);
  while (results->len < 2 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (results->len, ==, 2);
  g_assert_true (g_ptr_array_index (results, 0) == g_ptr_array_index (results, 1));

  g_object_set (sim, "misset-y", 5.0, NULL);
  braggscope_simulation_render_frame_async (sim, NULL, on_rendered, results);
  while (results->len < 3 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (results->len, ==, 3);
  g_assert_cmpuint (braggscope_frame_get_sequence (g_ptr_array_index (results, 2)), ==,
                    braggscope_simulation_get_sequence (sim));

  /* current already: answered from the main loop, not from within the call */
  braggscope_simulation_render_frame_async (sim, NULL, on_rendered, results);
  g_assert_cmpuint (results->len, ==, 3);
  while (results->len < 4 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (g_ptr_array_index (results, 3) == g_ptr_array_index (results, 2));
}

/* Five quick sets in batch mode: five full frames, in order, no previews. */
static void
test_batch (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeFrame) first = NULL, last = NULL;
  guint64 start;
  gboolean batch = FALSE;
  Watch w;

  first = render_frame_within (sim, 30, &error);
  g_assert_no_error (error);
  g_object_set (sim, "batch", TRUE, NULL);
  g_object_get (sim, "batch", &batch, NULL);
  g_assert_true (batch);
  watch_init (&w, sim);
  start = braggscope_simulation_get_sequence (sim);
  for (int i = 1; i <= 5; i++)
    g_object_set (sim, "misset-x", 2.0 * i, NULL);
  last = render_frame_within (sim, 60, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (w.frames->len, ==, 5);
  for (guint i = 0; i < w.frames->len; i++)
    {
      BraggscopeFrame *f = g_ptr_array_index (w.frames, i);
      g_autofree char *line = g_strjoinv (" ", braggscope_frame_get_args (f));
      g_autofree char *misset = g_strdup_printf ("-misset %g 0 0", 2.0 * (i + 1));

      g_assert_false (braggscope_frame_get_is_preview (f));
      g_assert_cmpuint (braggscope_frame_get_sequence (f), ==, start + i + 1);
      g_assert_nonnull (strstr (line, misset));
    }
  g_assert_true (last == g_ptr_array_index (w.frames, 4));
  g_assert_cmpuint (w.errors->len, ==, 0);
  watch_clear (&w);
}

/* Point 4: a file named for reading that is missing fails set_from_args
 * itself, stores nothing and emits nothing; a named pipe is refused
 * without waiting for a writer. */
static void
test_args_file_errors (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("braggscope-scripting-XXXXXX", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.hkl", NULL);
  g_autofree char *fifo = g_build_filename (dir, "pipe.hkl", NULL);
  g_autofree char *before = NULL, *after = NULL;
  const char *args[] = { "-hkl", missing, "-lambda", "1.5", NULL };
  guint64 sequence = braggscope_simulation_get_sequence (sim);
  guint errors = 0;
  gint64 start;

  g_signal_connect (sim, "error", G_CALLBACK (count_error), &errors);
  g_object_get (sim, "structure-factors", &before, NULL);
  g_assert_false (braggscope_simulation_set_from_args (sim, args, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "-hkl"));
  g_assert_nonnull (strstr (error->message, "missing.hkl"));
  g_assert_null (strchr (error->message, '\n'));
  g_clear_error (&error);
  /* nothing stored, nothing emitted, even later */
  g_object_get (sim, "structure-factors", &after, NULL);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, sequence);
  spin (0.1);
  g_assert_cmpuint (errors, ==, 0);

  /* a FIFO nobody writes: refused at once (opening it for reading would block) */
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  args[1] = fifo;
  start = g_get_monotonic_time ();
  g_assert_false (braggscope_simulation_set_from_args (sim, args, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "pipe.hkl"));
  g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC);
  g_clear_error (&error);

  /* the structure-factors property refuses it the same way, through set_value */
  {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_STRING);
    g_value_set_string (&v, missing);
    g_assert_false (braggscope_simulation_set_value (sim, "structure-factors", &v, &error));
    g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
    g_value_unset (&v);
  }
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, sequence);
  g_assert_cmpuint (errors, ==, 0);
  g_unlink (fifo);
  g_rmdir (dir);
}

/* Point 4: a refused value with no 'error' handler is never silent. */
static void
test_unhandled_error_warns (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  double wavelength = 0;
  guint errors = 0;
  gulong handler;

  g_test_expect_message ("Braggscope", G_LOG_LEVEL_WARNING, "*wavelength*-1*error*");
  g_object_set (sim, "wavelength", -1.0, NULL);
  g_test_assert_expected_messages ();
  g_object_get (sim, "wavelength", &wavelength, NULL);
  g_assert_cmpfloat (wavelength, ==, 1.0);

  /* with a handler, the handler has it and nothing is logged */
  handler = g_signal_connect (sim, "error", G_CALLBACK (count_error), &errors);
  g_object_set (sim, "wavelength", -1.0, NULL);
  g_assert_cmpuint (errors, ==, 1);
  g_signal_handler_disconnect (sim, handler);
}

/* Point 4: the raising setter. */
static void
test_set_value (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_autoptr (GError) error = NULL;
  GValue v = G_VALUE_INIT;
  guint64 sequence = braggscope_simulation_get_sequence (sim);
  double wavelength = 0;
  int pixels = 0;
  guint errors = 0;

  g_signal_connect (sim, "error", G_CALLBACK (count_error), &errors);
  g_value_init (&v, G_TYPE_DOUBLE);
  g_value_set_double (&v, -1.0);
  g_assert_false (braggscope_simulation_set_value (sim, "wavelength", &v, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_assert_true (g_str_has_prefix (error->message, "wavelength: "));
  g_assert_nonnull (strstr (error->message, "-lambda"));
  g_clear_error (&error);
  /* refused: nothing changed, nothing emitted */
  g_assert_cmpuint (errors, ==, 0);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, sequence);

  g_value_set_double (&v, 1.25);
  g_assert_true (braggscope_simulation_set_value (sim, "wavelength", &v, &error));
  g_assert_no_error (error);
  g_object_get (sim, "wavelength", &wavelength, NULL);
  g_assert_cmpfloat (wavelength, ==, 1.25);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, sequence + 1);

  /* a whole double for an int; a fraction refused */
  g_value_set_double (&v, 64.0);
  g_assert_true (braggscope_simulation_set_value (sim, "detector-pixels-fast", &v, &error));
  g_object_get (sim, "detector-pixels-fast", &pixels, NULL);
  g_assert_cmpint (pixels, ==, 64);
  g_value_set_double (&v, 64.5);
  g_assert_false (braggscope_simulation_set_value (sim, "detector-pixels-fast", &v, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_clear_error (&error);
  /* unknown and read-only properties */
  g_assert_false (braggscope_simulation_set_value (sim, "no-such-thing", &v, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_clear_error (&error);
  g_assert_false (braggscope_simulation_set_value (sim, "busy", &v, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_clear_error (&error);
  g_value_unset (&v);
  /* an enum by its nick */
  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, "mosflm");
  g_assert_true (braggscope_simulation_set_value (sim, "convention", &v, &error));
  g_assert_no_error (error);
  /* the backend is an enum too: an unknown word is refused, not stored */
  g_value_set_string (&v, "gpu");
  g_assert_false (braggscope_simulation_set_value (sim, "backend", &v, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "backend"));
  g_clear_error (&error);
  g_assert_cmpint (
      G_PARAM_SPEC_VALUE_TYPE (g_object_class_find_property (G_OBJECT_GET_CLASS (sim), "backend")),
      ==, BRAGGSCOPE_TYPE_BACKEND);
  g_value_unset (&v);
  g_assert_cmpuint (errors, ==, 0);
}

/* Point 8: a number reads back as it was set, not after its trip through
 * the engine's units (15 degrees read 14.999999999999998). */
static void
test_reads_back_as_set (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  const double values[] = { 15.0, 0.1, 33.3, -71.7 };
  double x = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_object_set (sim, "misset-x", values[i], NULL);
      g_object_get (sim, "misset-x", &x, NULL);
      g_assert_cmpfloat (x, ==, values[i]);
    }
  /* changed by other means (flags), the property reads the engine's value */
  {
    const char *args[] = { "-misset", "20", "0", "0", NULL };

    g_assert_true (braggscope_simulation_set_from_args (sim, args, NULL));
    g_object_get (sim, "misset-x", &x, NULL);
    g_assert_cmpfloat_with_epsilon (x, 20.0, 1e-12);
  }
}

static gpointer
set_from_thread (gpointer data)
{
  g_object_set (data, "misset-x", 40.0, NULL);
  return NULL;
}

/* Point 8: a property set on another thread is refused with a warning. */
static void
test_other_thread (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  guint64 sequence = braggscope_simulation_get_sequence (sim);
  double x = -1;

  g_test_expect_message ("Braggscope", G_LOG_LEVEL_WARNING, "*misset-x*another thread*");
  g_thread_join (g_thread_new ("host", set_from_thread, sim));
  g_test_assert_expected_messages ();
  g_object_get (sim, "misset-x", &x, NULL);
  g_assert_cmpfloat (x, ==, 0.0);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, sequence);
}

/* Point 5: the pspecs carry the parameter table's ranges. */
static void
test_ranges (void)
{
  g_autoptr (GTypeClass) klass = g_type_class_ref (BRAGGSCOPE_TYPE_SIMULATION);
  GObjectClass *oclass = G_OBJECT_CLASS (klass);
  GParamSpecDouble *wavelength =
      G_PARAM_SPEC_DOUBLE (g_object_class_find_property (oclass, "wavelength"));
  GParamSpecDouble *alpha =
      G_PARAM_SPEC_DOUBLE (g_object_class_find_property (oclass, "cell-alpha"));
  GParamSpecDouble *polarization =
      G_PARAM_SPEC_DOUBLE (g_object_class_find_property (oclass, "polarization"));
  GParamSpecInt *pixels =
      G_PARAM_SPEC_INT (g_object_class_find_property (oclass, "detector-pixels-fast"));
  GParamSpecInt *domains =
      G_PARAM_SPEC_INT (g_object_class_find_property (oclass, "mosaic-domains"));
  guint n = 0;
  g_autofree GParamSpec **all = g_object_class_list_properties (oclass, &n);
  double lower = 0, upper = 0, step = 0;
  int digits = -1;
  const char *unit = NULL;

  g_assert_cmpfloat (wavelength->minimum, >, 0.0);
  g_assert_cmpfloat (wavelength->minimum, <=, 0.01);
  g_assert_cmpfloat (alpha->minimum, >=, 0.0);
  g_assert_cmpfloat (alpha->maximum, <, 180.0);
  g_assert_cmpfloat (alpha->maximum, >, 179.9);
  g_assert_cmpfloat (polarization->minimum, ==, -1.0);
  g_assert_cmpfloat (polarization->maximum, ==, 1.0);
  g_assert_cmpint (pixels->minimum, ==, 1);
  g_assert_cmpint (pixels->maximum, <, G_MAXINT);
  /* -1: the automatic count, which the property may be set to */
  g_assert_cmpint (domains->minimum, ==, -1);
  /* every number property: a finite range holding its default, none the
   * whole double or int range */
  for (guint i = 0; i < n; i++)
    if (G_IS_PARAM_SPEC_DOUBLE (all[i]))
      {
        GParamSpecDouble *d = G_PARAM_SPEC_DOUBLE (all[i]);

        g_assert_true (isfinite (d->minimum) && isfinite (d->maximum));
        g_assert_cmpfloat (d->minimum, <=, d->default_value);
        g_assert_cmpfloat (d->default_value, <=, d->maximum);
      }
    else if (G_IS_PARAM_SPEC_INT (all[i]))
      {
        GParamSpecInt *d = G_PARAM_SPEC_INT (all[i]);

        g_assert_cmpint (d->minimum, <=, d->default_value);
        g_assert_cmpint (d->default_value, <=, d->maximum);
        g_assert_false (d->minimum == G_MININT && d->maximum == G_MAXINT);
      }

  /* the slider's span, inside the allowed range */
  g_assert_true (
      braggscope_simulation_get_slider_hint ("wavelength", &lower, &upper, &step, &digits, &unit));
  g_assert_cmpfloat (lower, >=, wavelength->minimum);
  g_assert_cmpfloat (lower, <, upper);
  g_assert_cmpfloat (step, >, 0.0);
  g_assert_cmpint (digits, >=, 0);
  g_assert_cmpstr (unit, ==, "\u00c5");
  g_assert_false (
      braggscope_simulation_get_slider_hint ("structure-factors", NULL, NULL, NULL, NULL, NULL));
  g_assert_false (
      braggscope_simulation_get_slider_hint ("no-such-thing", NULL, NULL, NULL, NULL, NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/scripting/render-frame/unchanged", test_render_frame_unchanged);
  g_test_add_func ("/scripting/render-frame/errors", test_render_frame_errors);
  g_test_add_func ("/scripting/render-frame/cancel", test_render_frame_cancel);
  g_test_add_func ("/scripting/render-frame/async", test_render_frame_async);
  g_test_add_func ("/scripting/batch", test_batch);
  g_test_add_func ("/scripting/args-file-errors", test_args_file_errors);
  g_test_add_func ("/scripting/unhandled-error-warns", test_unhandled_error_warns);
  g_test_add_func ("/scripting/set-value", test_set_value);
  g_test_add_func ("/scripting/reads-back-as-set", test_reads_back_as_set);
  g_test_add_func ("/scripting/other-thread", test_other_thread);
  g_test_add_func ("/scripting/ranges", test_ranges);
  return g_test_run ();
}
