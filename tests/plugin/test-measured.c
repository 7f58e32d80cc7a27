/* test-measured.c: measured frames in libbraggscope: BraggscopeMeasuredFrame
 * (the two real frames of tests/data/measured, sync and async; damaged
 * files), adopting a frame's geometry, the match score of every full frame,
 * and refinement and orientation search on the worker (recovery of a known
 * orientation, cancellation); every score against chance, a search that
 * finds nothing better refused, and a detector one flat panel cannot
 * represent (Diamond I23's Pilatus 12M) reported, not adopted, not scored,
 * not fitted. */
#include "plugin-test-util.h"
#include "../nb-test-panels.h"
#include "nb-detector.h"
#include "nb-frame-write.h"
#include "nb-io.h"

#include <zlib.h>

/* The refinement scene of tests/test-match.c: 1HPV, 256 x 256 pixels of
 * 0.1 mm at 60 mm, a still with Gaussian spots, at misset M. */
#define MATCH_SCENE                                                                                \
  "-cell 63.4 63.4 83.8 90 90 120 -lambda 1.0 -detpixels 256 -pixel 0.1 -distance 60 -N 8 "        \
  "-gauss_xtal -fluence 1e27 -oversample 1 -precision single -backend cpu"

static const double misset_M[3] = { 10.0, 20.0, 30.0 }; /* degrees */

static char *tmpdir;

/* tests/data/measured/@name.gz, decompressed into the temporary folder. */
static char *
measured_file (const char *name)
{
  g_autofree char *gz_name = g_strconcat (name, ".gz", NULL);
  g_autofree char *src =
      g_test_build_filename (G_TEST_DIST, "..", "data", "measured", gz_name, NULL);
  char *dst = g_build_filename (tmpdir, name, NULL);
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  g_autoptr (GError) error = NULL;
  gzFile in;
  guint8 buf[65536];
  int got;

  if (g_file_test (dst, G_FILE_TEST_EXISTS))
    return dst;
  in = gzopen (src, "rb");
  g_assert_nonnull (in);
  while ((got = gzread (in, buf, sizeof buf)) > 0)
    g_byte_array_append (bytes, buf, (guint) got);
  g_assert_cmpint (got, ==, 0);
  gzclose (in);
  g_assert_true (g_file_set_contents (dst, (const char *) bytes->data, bytes->len, &error));
  return dst;
}

static void
on_loaded (GObject *source, GAsyncResult *result, gpointer data)
{
  GAsyncResult **out = data;

  *out = g_object_ref (result);
}

static BraggscopeMeasuredFrame *
load_async (const char *path, int index, GCancellable *cancellable, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  braggscope_measured_frame_load_async (path, index, cancellable, on_loaded, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return braggscope_measured_frame_load_finish (result, error);
}

/* The pixels are the counts, NaN exactly where they are no measurement. */
static void
check_pixels (BraggscopeMeasuredFrame *frame)
{
  g_autoptr (GBytes) pixels = braggscope_measured_frame_get_pixels (frame);
  g_autoptr (GBytes) counts = braggscope_measured_frame_get_counts (frame);
  gsize n = (gsize) braggscope_measured_frame_get_width (frame) *
            (gsize) braggscope_measured_frame_get_height (frame);
  const float *p = g_bytes_get_data (pixels, NULL);
  const gint32 *c = g_bytes_get_data (counts, NULL);
  gint64 cutoff = braggscope_measured_frame_get_count_cutoff (frame), nan = 0;
  double total = 0;

  g_assert_cmpuint (g_bytes_get_size (pixels), ==, n * sizeof (float));
  g_assert_cmpuint (g_bytes_get_size (counts), ==, n * sizeof (gint32));
  for (gsize i = 0; i < n; i++)
    if (isnan (p[i]))
      {
        nan++;
        g_assert_true (c[i] < 0 || (cutoff > 0 && c[i] >= cutoff));
      }
    else
      {
        g_assert_cmpfloat (p[i], ==, (float) c[i]);
        total += c[i];
      }
  g_assert_cmpint (nan, ==,
                   braggscope_measured_frame_get_n_masked (frame) +
                       braggscope_measured_frame_get_n_overloaded (frame));
  g_assert_cmpfloat_with_epsilon (braggscope_measured_frame_get_total_counts (frame), total, 0.5);
}

static void
assert_item (BraggscopeMeasuredFrame *frame, BraggscopeHeaderItem item, double want, double tol)
{
  double v = NAN;

  g_assert_true (braggscope_measured_frame_get_header_value (frame, item, &v));
  g_assert_cmpfloat_with_epsilon (v, want, tol);
  g_assert_nonnull (braggscope_measured_frame_get_header_source (frame, item));
}

/* Both real frames open, sync and async, with the geometry of their headers'
 * text (tests/data/measured/README.md). */
static void
test_real_frames (void)
{
  g_autofree char *smv = measured_file ("TIMEPIX_SU_516-stdgoni_0001.img");
  g_autofree char *cbf = measured_file ("dlsnxs2cbf_therm_0001.cbf");
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeMeasuredFrame) timepix = NULL;
  g_autoptr (BraggscopeMeasuredFrame) eiger = NULL;
  g_autofree char *report = NULL;

  timepix = braggscope_measured_frame_new_from_file (smv, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (braggscope_measured_frame_get_format (timepix), ==, "SMV");
  g_assert_cmpint (braggscope_measured_frame_get_width (timepix), ==, 516);
  g_assert_cmpint (braggscope_measured_frame_get_height (timepix), ==, 516);
  g_assert_cmpint (braggscope_measured_frame_get_n_frames (timepix), ==, 1);
  assert_item (timepix, BRAGGSCOPE_HEADER_WAVELENGTH, 0.0251, 1e-6);
  assert_item (timepix, BRAGGSCOPE_HEADER_DISTANCE, 531.85, 1e-6);
  assert_item (timepix, BRAGGSCOPE_HEADER_PIXEL_SIZE, 0.055, 1e-9);
  assert_item (timepix, BRAGGSCOPE_HEADER_PHI_START, -65.40, 1e-6);
  assert_item (timepix, BRAGGSCOPE_HEADER_OSCILLATION, 0.23, 1e-6);
  check_pixels (timepix);
  report = braggscope_measured_frame_get_report (timepix);
  g_test_message ("%s", report);
  g_assert_nonnull (strstr (report, "distance 531.85 mm from"));

  eiger = load_async (cbf, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (braggscope_measured_frame_get_format (eiger), ==, "miniCBF");
  g_assert_cmpint (braggscope_measured_frame_get_width (eiger), ==, 4148);
  g_assert_cmpint (braggscope_measured_frame_get_height (eiger), ==, 4362);
  g_assert_cmpint (braggscope_measured_frame_get_count_cutoff (eiger), ==, 65535);
  g_assert_cmpint (braggscope_measured_frame_get_n_masked (eiger), >, 0);
  assert_item (eiger, BRAGGSCOPE_HEADER_WAVELENGTH, 0.98027, 1e-9);
  assert_item (eiger, BRAGGSCOPE_HEADER_DISTANCE, 213.96, 1e-6);
  assert_item (eiger, BRAGGSCOPE_HEADER_BEAM_CENTER_FAST, 2216.06 * 0.075, 1e-6);
  assert_item (eiger, BRAGGSCOPE_HEADER_BEAM_CENTER_SLOW, 2300.41 * 0.075, 1e-6);
  assert_item (eiger, BRAGGSCOPE_HEADER_PHI_START, 174.0, 1e-9);
  assert_item (eiger, BRAGGSCOPE_HEADER_OSCILLATION, 0.25, 1e-9);
  assert_item (eiger, BRAGGSCOPE_HEADER_EXPOSURE, 0.008, 1e-12);
  check_pixels (eiger);
  g_test_message ("thermolysin frame: %.0f counts in all, %" G_GINT64_FORMAT " masked",
                  braggscope_measured_frame_get_total_counts (eiger),
                  braggscope_measured_frame_get_n_masked (eiger));
}

/* Damaged and missing files are refused with the file and the reason; a
 * cancelled load says so. */
static void
test_bad_files (void)
{
  g_autofree char *smv = measured_file ("TIMEPIX_SU_516-stdgoni_0001.img");
  g_autofree char *cut = g_build_filename (tmpdir, "truncated.img", NULL);
  g_autofree char *missing = g_build_filename (tmpdir, "missing.img", NULL);
  g_autofree char *contents = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  gsize len;
  GError *error = NULL;

  g_assert_true (g_file_get_contents (smv, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (cut, contents, (gssize) len - 1000, NULL));
  g_assert_null (braggscope_measured_frame_new_from_file (cut, 0, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, cut));
  g_assert_nonnull (strstr (error->message, "truncated"));
  g_clear_error (&error);

  g_assert_null (load_async (missing, 0, NULL, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, missing));
  g_clear_error (&error);

  g_assert_null (braggscope_measured_frame_new_from_file (smv, 1, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE);
  g_clear_error (&error);

  g_cancellable_cancel (cancellable);
  g_assert_null (load_async (smv, 0, cancellable, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_CANCELLED);
  g_clear_error (&error);
}

static void
count_notify (GObject *object, GParamSpec *pspec, int *count)
{
  (*count)++;
}

/* Adopting a frame's geometry sets its header's values as one change; a
 * frame whose file is gone changes nothing. */
static void
test_adopt (void)
{
  g_autofree char *smv = measured_file ("TIMEPIX_SU_516-stdgoni_0001.img");
  g_autofree char *copy = g_build_filename (tmpdir, "adopt-copy.img", NULL);
  g_autofree char *contents = NULL;
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autoptr (BraggscopeMeasuredFrame) frame = NULL;
  g_auto (GStrv) args = g_strsplit (SMALL_SCENE, " ", -1);
  g_autoptr (GError) error = NULL;
  double wavelength, distance, pixel, phi, osc;
  int width, height, distance_notes = 0;
  guint64 sequence;
  gsize len;

  g_assert_true (braggscope_simulation_set_from_args (sim, (const char *const *) args, &error));
  g_assert_true (g_file_get_contents (smv, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (copy, contents, (gssize) len, NULL));
  frame = braggscope_measured_frame_new_from_file (copy, 0, &error);
  g_assert_no_error (error);

  sequence = braggscope_simulation_get_sequence (sim);
  g_signal_connect (sim, "notify::distance", G_CALLBACK (count_notify), &distance_notes);
  g_assert_true (braggscope_simulation_adopt_geometry (sim, frame, &error));
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, sequence + 1);
  g_assert_cmpint (distance_notes, ==, 1);
  g_object_get (sim, "wavelength", &wavelength, "distance", &distance, "pixel-size", &pixel, "phi",
                &phi, "osc", &osc, "detector-pixels-fast", &width, "detector-pixels-slow", &height,
                NULL);
  g_assert_cmpfloat_with_epsilon (wavelength, 0.0251, 1e-9);
  g_assert_cmpfloat_with_epsilon (distance, 531.85, 1e-9);
  g_assert_cmpfloat_with_epsilon (pixel, 0.055, 1e-12);
  g_assert_cmpfloat_with_epsilon (phi, -65.40, 1e-9);
  g_assert_cmpfloat_with_epsilon (osc, 0.23, 1e-9);
  g_assert_cmpint (width, ==, 516);
  g_assert_cmpint (height, ==, 516);

  /* the file is gone: refused, nothing changes */
  g_assert_cmpint (g_unlink (copy), ==, 0);
  sequence = braggscope_simulation_get_sequence (sim);
  g_assert_false (braggscope_simulation_adopt_geometry (sim, frame, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, sequence);
}

/* The 1HPV still at @misset (degrees), rendered by the library: its full
 * frame, written as an SMV file, read back as a measured frame. */
static BraggscopeMeasuredFrame *
simulated_measured_frame_integrated (const double misset[3], BraggscopeIntegration integration)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autofree char *hkl = g_build_filename (g_getenv ("NB_DATA_DIR"), "1hpv_p1.hkl", NULL);
  g_autofree char *flags = g_strdup_printf ("%s -hkl %s", MATCH_SCENE, hkl);
  g_autofree char *path = g_build_filename (tmpdir, "1hpv-still.img", NULL);
  g_auto (GStrv) args = g_strsplit (flags, " ", -1);
  g_autoptr (GError) error = NULL;
  BraggscopeMeasuredFrame *frame;
  Watch w;

  g_assert_true (braggscope_simulation_set_from_args (sim, (const char *const *) args, &error));
  g_object_set (sim, "misset-x", misset[0], "misset-y", misset[1], "misset-z", misset[2],
                "integration", integration, NULL);
  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  watch_wait_full (&w, 60);
  g_assert_true (braggscope_frame_save_smv (watch_last (&w), path, &error));
  watch_clear (&w);
  frame = braggscope_measured_frame_new_from_file (path, 0, &error);
  g_assert_no_error (error);
  return frame;
}

/* The frame as the simulation renders it by default (adaptive). */
static BraggscopeMeasuredFrame *
simulated_measured_frame (const double misset[3])
{
  return simulated_measured_frame_integrated (misset, BRAGGSCOPE_INTEGRATION_ADAPTIVE);
}

/* A simulation of the refinement scene at misset M + @offset, scoring
 * against @frame, rendered. */
static BraggscopeSimulation *
scoring_simulation (BraggscopeMeasuredFrame *frame, const double offset[3], Watch *w)
{
  BraggscopeSimulation *sim = braggscope_simulation_new ();
  g_autofree char *hkl = g_build_filename (g_getenv ("NB_DATA_DIR"), "1hpv_p1.hkl", NULL);
  g_autofree char *flags = g_strdup_printf ("%s -hkl %s", MATCH_SCENE, hkl);
  g_auto (GStrv) args = g_strsplit (flags, " ", -1);
  g_autoptr (GError) error = NULL;

  g_assert_true (braggscope_simulation_set_from_args (sim, (const char *const *) args, &error));
  g_object_set (sim, "misset-x", misset_M[0] + offset[0], "misset-y", misset_M[1] + offset[1],
                "misset-z", misset_M[2] + offset[2], NULL);
  braggscope_simulation_set_measured_frame (sim, frame);
  watch_init (w, sim);
  braggscope_simulation_render (sim);
  watch_wait_full (w, 60);
  return sim;
}

/* Every full frame is scored against the measured frame: the peaks and the
 * correlation in shells. */
static void
test_score (void)
{
  static const double at_M[3] = { 0, 0, 0 };
  g_autoptr (BraggscopeMeasuredFrame) frame = simulated_measured_frame (misset_M);
  g_autoptr (BraggscopeSimulation) sim = NULL;
  double fraction, cc, rms, d_max, d_min, shell_cc;
  int peaks, matched, shells;
  Watch w;

  sim = scoring_simulation (frame, at_M, &w);
  g_object_get (sim, "match-fraction", &fraction, "match-peaks", &peaks, "match-matched", &matched,
                "match-correlation", &cc, "match-rms-distance", &rms, "match-shells", &shells,
                NULL);
  g_test_message ("at M: %d of %d peaks, rms %.3f px, correlation %.3f", matched, peaks, rms, cc);
  g_assert_cmpint (peaks, ==, 50);
  g_assert_cmpfloat (fraction, >=, 0.9);
  g_assert_cmpfloat (fraction, ==, (double) matched / peaks);
  g_assert_cmpfloat (cc, >, 0.99);
  g_assert_cmpint (shells, ==, 10);
  {
    double chance, p;
    gboolean significant;

    g_object_get (sim, "match-chance-fraction", &chance, "match-p-value", &p, "match-significant",
                  &significant, NULL);
    g_test_message ("at M: chance fraction %.3f, p %.3g", chance, p);
    g_assert_cmpfloat (chance, >, 0.0);
    g_assert_cmpfloat (chance, <, 0.5);
    g_assert_cmpfloat (p, <, 1e-10);
    g_assert_true (significant);
  }
  g_assert_true (braggscope_simulation_get_match_shell (sim, 0, &d_max, &d_min, &shell_cc));
  g_assert_cmpfloat (d_max, >, d_min);
  g_assert_false (braggscope_simulation_get_match_shell (sim, 10, NULL, NULL, NULL));

  /* 5 degrees away (this crystal of 8 cells a side has broad spots: its
   * score hardly changes over 1 degree), the score drops with the next full
   * frame */
  g_object_set (sim, "misset-y", misset_M[1] + 5.0, NULL);
  watch_wait_full (&w, 60);
  g_object_get (sim, "match-fraction", &fraction, "match-correlation", &cc, NULL);
  g_test_message ("5 deg away: fraction %.2f, correlation %.3f", fraction, cc);
  g_assert_cmpfloat (fraction, <, 0.5);
  g_assert_cmpfloat (cc, <, 0.95);

  /* no measured frame: no score */
  braggscope_simulation_set_measured_frame (sim, NULL);
  g_object_get (sim, "match-fraction", &fraction, "match-peaks", &peaks, NULL);
  g_assert_true (isnan (fraction));
  {
    double chance;
    gboolean significant;

    g_object_get (sim, "match-chance-fraction", &chance, "match-significant", &significant, NULL);
    g_assert_true (isnan (chance));
    g_assert_false (significant);
  }
  g_assert_cmpint (peaks, ==, 0);
  watch_clear (&w);
}

typedef struct
{
  GAsyncResult *result;
  int progress;
  double last_fraction;
  GCancellable *cancel_on_progress;
} Fit;

static void
on_fit (GObject *source, GAsyncResult *result, gpointer data)
{
  ((Fit *) data)->result = g_object_ref (result);
}

static void
on_progress (BraggscopeSimulation *sim, double fraction, const char *stage, double score, Fit *f)
{
  g_assert_cmpfloat (fraction, >=, 0.0);
  g_assert_cmpfloat (fraction, <=, 1.0);
  g_assert_nonnull (stage);
  f->progress++;
  f->last_fraction = fraction;
  if (f->cancel_on_progress != NULL)
    g_cancellable_cancel (f->cancel_on_progress);
}

static void
wait_fit (Fit *f)
{
  while (f->result == NULL)
    g_main_context_iteration (NULL, TRUE);
}

/* Refine, through the library, returns from 1 degree away to M within
 * 0.05 degrees on the worker, with progress; the score follows. */
static void
test_refine (void)
{
  static const double starts[2][3] = { { 1.0, 0, 0 }, { 0.57735, -0.57735, 0.57735 } };
  g_autoptr (BraggscopeMeasuredFrame) frame = simulated_measured_frame (misset_M);

  for (int t = 0; t < 2; t++)
    {
      g_autoptr (BraggscopeSimulation) sim = NULL;
      g_autoptr (GError) error = NULL;
      Fit f = { 0 };
      double m[3], fraction, before;
      gboolean fitting;
      Watch w;

      sim = scoring_simulation (frame, starts[t], &w);
      g_object_get (sim, "match-fraction", &before, NULL);
      g_signal_connect (sim, "fit-progress", G_CALLBACK (on_progress), &f);
      braggscope_simulation_refine_async (sim, BRAGGSCOPE_FIT_ORIENTATION, NULL, on_fit, &f);
      g_object_get (sim, "fitting", &fitting, NULL);
      g_assert_true (fitting);
      wait_fit (&f);
      g_assert_true (braggscope_simulation_refine_finish (sim, f.result, &error));
      g_assert_no_error (error);
      g_object_get (sim, "fitting", &fitting, "misset-x", &m[0], "misset-y", &m[1], "misset-z",
                    &m[2], NULL);
      g_assert_false (fitting);
      g_assert_cmpint (f.progress, >, 1);
      watch_wait_full (&w, 60);
      g_object_get (sim, "match-fraction", &fraction, NULL);
      g_test_message ("start %d: misset %.4f %.4f %.4f (M %+.4f %+.4f %+.4f), score %.2f -> %.2f, "
                      "%d progress reports",
                      t, m[0], m[1], m[2], m[0] - misset_M[0], m[1] - misset_M[1],
                      m[2] - misset_M[2], before, fraction, f.progress);
      for (int k = 0; k < 3; k++)
        g_assert_cmpfloat (fabs (m[k] - misset_M[k]), <, 0.05);
      g_assert_cmpfloat (fraction, >=, 0.9);
      g_clear_object (&f.result);
      watch_clear (&w);
    }
}

/* A search cancelled at its first progress report ends with
 * BRAGGSCOPE_ERROR_CANCELLED and the parameters unchanged; a fit without a
 * measured frame is refused. */
static void
test_cancel (void)
{
  static const double start[3] = { 5.0, -5.0, 5.0 };
  g_autoptr (BraggscopeMeasuredFrame) frame = simulated_measured_frame (misset_M);
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  guint64 sequence;
  Fit f = { 0 };
  double mx;
  Watch w;

  sim = scoring_simulation (frame, start, &w);
  sequence = braggscope_simulation_get_sequence (sim);
  f.cancel_on_progress = cancellable;
  g_signal_connect (sim, "fit-progress", G_CALLBACK (on_progress), &f);
  braggscope_simulation_search_orientation_async (sim, BRAGGSCOPE_FIT_ORIENTATION, cancellable,
                                                  on_fit, &f);
  wait_fit (&f);
  g_assert_false (braggscope_simulation_search_orientation_finish (sim, f.result, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_CANCELLED);
  g_assert_cmpint (f.progress, >=, 1);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, sequence);
  g_object_get (sim, "misset-x", &mx, NULL);
  g_assert_cmpfloat_with_epsilon (mx, misset_M[0] + start[0], 1e-9);
  g_clear_object (&f.result);
  g_clear_error (&error);

  braggscope_simulation_set_measured_frame (sim, NULL);
  braggscope_simulation_refine_async (sim, BRAGGSCOPE_FIT_ORIENTATION, NULL, on_fit, &f);
  wait_fit (&f);
  g_assert_false (braggscope_simulation_refine_finish (sim, f.result, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_clear_object (&f.result);
  watch_clear (&w);
}

/* A search with a cell that is not the crystal's (a 100 A cube on the 1HPV
 * frame) finds nothing better than chance: BRAGGSCOPE_ERROR_NO_MATCH saying
 * so, and the parameters unchanged. */
static void
test_search_no_match (void)
{
  static const double start[3] = { 0, 0, 0 };
  g_autoptr (BraggscopeMeasuredFrame) frame = simulated_measured_frame (misset_M);
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;
  const char *cube[] = { "-cell", "45", "52", "71", "90", "90", "90", NULL };
  guint64 sequence;
  Fit f = { 0 };
  double mx;
  Watch w;

  sim = scoring_simulation (frame, start, &w);
  g_assert_true (braggscope_simulation_set_from_args (sim, cube, &error));
  watch_wait_full (&w, 60);
  sequence = braggscope_simulation_get_sequence (sim);
  braggscope_simulation_search_orientation_async (sim, BRAGGSCOPE_FIT_ORIENTATION, NULL, on_fit,
                                                  &f);
  wait_fit (&f);
  g_assert_false (braggscope_simulation_search_orientation_finish (sim, f.result, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_NO_MATCH);
  g_assert_nonnull (strstr (error->message, "No orientation found"));
  g_assert_nonnull (strstr (error->message, "no better than chance"));
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, sequence);
  g_object_get (sim, "misset-x", &mx, NULL);
  g_assert_cmpfloat_with_epsilon (mx, misset_M[0], 1e-9);
  g_clear_object (&f.result);
  watch_clear (&w);
}

/* The I23 Pilatus 12M (its header, the pixels zeroed) opens, and says why
 * one flat panel cannot stand for it; its geometry is refused, it is not
 * scored, fits refuse it.  The real flat detectors have no problem. */
static void
test_detector_problem (void)
{
  g_autofree char *i23 = measured_file ("DLS_I23_P12M_thau_00001_zeroed.cbf");
  g_autofree char *smv = measured_file ("TIMEPIX_SU_516-stdgoni_0001.img");
  g_autoptr (BraggscopeMeasuredFrame) frame = NULL;
  g_autoptr (BraggscopeMeasuredFrame) timepix = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new_default_scene (&error);
  g_autofree char *report = NULL;
  const char *problem;
  double distance, fraction;
  int width;
  Fit f = { 0 };
  Watch w;

  frame = braggscope_measured_frame_new_from_file (i23, 0, &error);
  g_assert_no_error (error);
  problem = braggscope_measured_frame_get_detector_problem (frame);
  g_assert_nonnull (problem);
  g_test_message ("%s", problem);
  g_assert_nonnull (strstr (problem, "'# Detector: PILATUS 12M, S/N 120-0100'"));
  report = braggscope_measured_frame_get_report (frame);
  g_assert_nonnull (strstr (report, "\nnot adopted: the miniCBF header line"));
  timepix = braggscope_measured_frame_new_from_file (smv, 0, &error);
  g_assert_no_error (error);
  g_assert_null (braggscope_measured_frame_get_detector_problem (timepix));

  g_object_get (sim, "distance", &distance, "detector-pixels-fast", &width, NULL);
  g_assert_false (braggscope_simulation_adopt_geometry (sim, frame, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "PILATUS 12M"));
  g_clear_error (&error);
  {
    double after;
    int width_after;

    g_object_get (sim, "distance", &after, "detector-pixels-fast", &width_after, NULL);
    g_assert_cmpfloat (after, ==, distance);
    g_assert_cmpint (width_after, ==, width);
  }

  braggscope_simulation_set_measured_frame (sim, frame);
  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  watch_wait_full (&w, 60);
  g_object_get (sim, "match-fraction", &fraction, NULL);
  g_assert_true (isnan (fraction));
  braggscope_simulation_search_orientation_async (sim, BRAGGSCOPE_FIT_ORIENTATION, NULL, on_fit,
                                                  &f);
  wait_fit (&f);
  g_assert_false (braggscope_simulation_search_orientation_finish (sim, f.result, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "PILATUS 12M"));
  g_clear_object (&f.result);
  watch_clear (&w);
}

/* The real I23 frame with its 24-module geometry (issue 29 item 5, the
 * library's side): the simulation of the detector file's panels at DIALS's
 * thaumatin orientation (tests/test-match-i23.c) is scored significant over
 * all panels, 5.6 degrees away it is not; a refinement is not refused for a
 * frame one flat panel cannot represent once the panels are given, and ends
 * no further from DIALS's orientation (at 12 px the score is flat within
 * 0.3 degrees: the blueprint's geometry is ~12 px off, and the library keeps
 * a -detector model's panels where the file puts them). */
static void
test_i23_panels (void)
{
  static const double dials[3] = { -1.1277, 16.5878, 164.4247 }; /* deg */
  g_autofree char *i23 = measured_file ("DLS_I23_P12M_thau_00001.cbf");
  g_autofree char *geom = g_test_build_filename (G_TEST_DIST, "..", "data", "detectors",
                                                 "dls-i23-pilatus12m.geom", NULL);
  const char *args[] = { "-detector", geom,          "-lambda", "2.7552",  "-cell", "57.8",
                         "57.8",      "150.2",       "90",      "90",      "90",    "-default_F",
                         "1",         "-N",          "1000",    "-mosaic", "0.1",   "-spindle_axis",
                         "0",         "0",           "1",       "-phi",    "-210",  "-osc",
                         "0.05",      "-oversample", "1",       NULL };
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autoptr (BraggscopeMeasuredFrame) frame = NULL;
  g_autoptr (GError) error = NULL;
  double fraction, p, m[3], cc;
  int peaks, matched, shells;
  gboolean significant;
  Fit f = { 0 };
  Watch w;

  frame = braggscope_measured_frame_new_from_file (i23, 0, &error);
  g_assert_no_error (error);
  g_assert_true (braggscope_simulation_set_from_args (sim, args, &error));
  g_assert_no_error (error);
  g_object_set (sim, "misset-x", dials[0], "misset-y", dials[1], "misset-z", dials[2],
                "match-radius", 12.0, NULL);
  braggscope_simulation_set_measured_frame (sim, frame);
  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  watch_wait_full (&w, 120);
  g_object_get (sim, "match-fraction", &fraction, "match-peaks", &peaks, "match-matched", &matched,
                "match-p-value", &p, "match-significant", &significant, "match-correlation", &cc,
                "match-shells", &shells, NULL);
  g_test_message ("I23 at DIALS's orientation: %d of %d peaks within 12 px, p %.3g, CC %.4f in %d "
                  "shells",
                  matched, peaks, p, cc, shells);
  g_assert_cmpint (peaks, >=, 30);
  g_assert_cmpfloat (fraction, >=, 0.5);
  g_assert_true (significant);
  /* the pixels' correlation over all 24 panels, each at its own resolution */
  g_assert_cmpint (shells, ==, 10);
  g_assert_true (isfinite (cc));
  for (int j = 0; j < shells; j++)
    {
      double d_max, d_min, shell_cc;

      g_assert_true (braggscope_simulation_get_match_shell (sim, j, &d_max, &d_min, &shell_cc));
      g_test_message ("shell %d: %.2f-%.2f A, CC %.4f", j, d_max, d_min, shell_cc);
      g_assert_cmpfloat (d_min, <, d_max);
    }

  g_object_set (sim, "misset-y", dials[1] + 5.6, NULL);
  watch_wait_full (&w, 120);
  g_object_get (sim, "match-fraction", &fraction, "match-matched", &matched, "match-significant",
                &significant, NULL);
  g_test_message ("5.6 deg away: %d matched, fraction %.2f", matched, fraction);
  g_assert_cmpfloat (fraction, <, 0.1);
  g_assert_false (significant);

  /* refined from 0.3 degrees away, with the detector where its file puts it */
  g_object_set (sim, "misset-y", dials[1] + 0.3, NULL);
  watch_wait_full (&w, 120);
  braggscope_simulation_refine_async (sim, BRAGGSCOPE_FIT_ORIENTATION, NULL, on_fit, &f);
  wait_fit (&f);
  g_assert_true (braggscope_simulation_refine_finish (sim, f.result, &error));
  g_assert_no_error (error);
  g_object_get (sim, "misset-x", &m[0], "misset-y", &m[1], "misset-z", &m[2], NULL);
  g_test_message ("refined: %.4f %.4f %.4f (DIALS %+.4f %+.4f %+.4f)", m[0], m[1], m[2],
                  m[0] - dials[0], m[1] - dials[1], m[2] - dials[2]);
  for (int k = 0; k < 3; k++)
    g_assert_cmpfloat (fabs (m[k] - dials[k]), <=, 0.35);
  watch_wait_full (&w, 120);
  g_object_get (sim, "match-significant", &significant, NULL);
  g_assert_true (significant);
  g_clear_object (&f.result);
  watch_clear (&w);
}

static void
params_of (nb_params *p, const char *cmdline)
{
  g_auto (GStrv) argv = NULL;
  int argc = 0;
  nb_error err = { 0 };

  g_assert_true (g_shell_parse_argv (cmdline, &argc, &argv, NULL));
  nb_params_init (p);
  if (nb_params_parse_argv (p, argc, (const char *const *) argv, &err) != NB_OK)
    g_error ("'%s': %s", cmdline, err.message);
}

/* A measured NXmx frame of three tilted 128 x 128 sensors (tests/test-match-panels.c's),
 * rendered with photon noise, adopted with its panels moved by a known error (0.4 0.25 -0.3
 * mm, 0.08 and -0.06 deg across the beam): the library's refinement of the distance and beam
 * centre moves the detector as a whole, and the parameters then hold the motion that puts
 * every panel corner within 0.03 mm of the frame's (from 0.6). */
static void
test_refine_panels (void)
{
  static const char *geom_text =
      "res = 10000\nclen = 0.06 m\nphoton_energy = 12398.42 eV\n"
      "centre/min_fs = 0\ncentre/max_fs = 127\ncentre/min_ss = 0\ncentre/max_ss = 127\n"
      "centre/fs = 1x\ncentre/ss = 1y\ncentre/corner_x = -64\ncentre/corner_y = -64\n"
      "side/min_fs = 128\nside/max_fs = 255\nside/min_ss = 0\nside/max_ss = 127\n"
      "side/fs = 0.9397x +0.3420z\nside/ss = 1y\nside/corner_x = 70\nside/corner_y = -64\n"
      "top/min_fs = 0\ntop/max_fs = 127\ntop/min_ss = 128\ntop/max_ss = 255\n"
      "top/fs = 1x\ntop/ss = 0.9397y +0.3420z\ntop/corner_x = -64\ntop/corner_y = 70\n";
  g_autofree char *geom = g_build_filename (tmpdir, "three.geom", NULL);
  g_autofree char *nxs = g_build_filename (tmpdir, "three.nxs", NULL);
  g_autofree char *truth_cmd = NULL, *start_cmd = NULL, *after = NULL;
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autoptr (BraggscopeMeasuredFrame) frame = NULL;
  g_autoptr (GError) error = NULL;
  nb_detector_model model;
  nb_params truth, refined, start;
  nb_error err = { 0 };
  Fit f = { 0 };

  if (!nb_nexus_available ())
    {
      g_test_skip ("this build reads and writes no NeXus files (-Dhdf5)");
      return;
    }
  g_assert_true (g_file_set_contents (geom, geom_text, -1, NULL));
  nb_detector_model_init (&model);
  g_assert_cmpint (nb_detector_model_read (geom, &model, &err), ==, NB_OK);
  truth_cmd = g_strdup_printf ("nanobragg -cell 63.4 63.4 83.8 90 90 120 -lambda 1.0 -N 8 "
                               "-gauss_xtal -fluence 1e27 -default_F 100 -oversample 1 -precision "
                               "single -backend cpu -misset %g %g %g -detector %s",
                               misset_M[0], misset_M[1], misset_M[2], geom);
  params_of (&truth, truth_cmd);
  {
    nb_plan *plan = NULL;
    size_t n = (size_t) nb_detector_model_pixels (&model);
    g_autofree float *image = g_new (float, n);
    g_autofree uint16_t *noise = g_new (uint16_t, n);
    g_autofree int32_t *counts = g_new (int32_t, n);
    int overloads;

    g_assert_cmpint (nb_plan_create (&truth, &plan, &err), ==, NB_OK);
    g_assert_cmpint (nb_plan_execute (plan, image, NULL, &err), ==, NB_OK);
    nb_image_to_noise (plan, image, -4321, 0.0, noise, &overloads);
    nb_plan_destroy (plan);
    for (size_t k = 0; k < n; k++)
      counts[k] = noise[k];
    g_assert_cmpint (nb_write_nexus_detector (nxs, &model, counts, &err), ==, NB_OK);
  }
  /* the truth: the frame's own panels */
  free (truth.detector_file);
  truth.detector_file = g_strdup (nxs);
  frame = braggscope_measured_frame_new_from_file (nxs, 0, &error);
  g_assert_no_error (error);
  start_cmd = g_strdup_printf ("%s -detector_shift 0.4 0.25 -0.3 -detector_rotation 0 0.08 -0.06",
                               truth_cmd);
  {
    g_auto (GStrv) argv = NULL;

    g_assert_true (g_shell_parse_argv (start_cmd, NULL, &argv, NULL));
    g_free (argv[g_strv_length (argv) - 9]); /* the file: the frame's NXmx */
    argv[g_strv_length (argv) - 9] = g_strdup (nxs);
    g_assert_true (
        braggscope_simulation_set_from_args (sim, (const char *const *) argv + 1, &error));
    g_assert_no_error (error);
  }
  g_object_set (sim, "match-radius", 1.5, NULL);
  braggscope_simulation_set_measured_frame (sim, frame);
  {
    g_autofree char *cmd = braggscope_simulation_to_command_line (sim);

    params_of (&start, cmd);
  }
  g_test_message ("wrong detector: corners up to %.4f mm off",
                  nb_test_corner_gap (&start, &truth) * 1e3);
  g_assert_cmpfloat (nb_test_corner_gap (&start, &truth), >, 0.3e-3);
  braggscope_simulation_refine_async (sim, BRAGGSCOPE_FIT_DISTANCE | BRAGGSCOPE_FIT_BEAM_CENTER,
                                      NULL, on_fit, &f);
  wait_fit (&f);
  g_assert_true (braggscope_simulation_refine_finish (sim, f.result, &error));
  g_assert_no_error (error);
  after = braggscope_simulation_to_command_line (sim);
  params_of (&refined, after);
  g_test_message ("refined: %s; corners up to %.4f mm off", after,
                  nb_test_corner_gap (&refined, &truth) * 1e3);
  /* the worker's peaks of a uniform -default_F frame and the misset's trade with the turn across
   * the beam leave 0.02 mm (a fifth of a pixel) where the engine's test gets 0.007 */
  g_assert_cmpfloat (nb_test_corner_gap (&refined, &truth), <, 0.03e-3);
  g_assert_cmpfloat (nb_test_corner_gap (&refined, &truth), <,
                     nb_test_corner_gap (&start, &truth) / 20);
  g_clear_object (&f.result);
  nb_params_clear (&start);
  nb_params_clear (&refined);
  nb_params_clear (&truth);
  nb_detector_model_clear (&model);
  g_unlink (nxs);
  g_unlink (geom);
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("braggscope-measured-XXXXXX", NULL);
  g_assert_nonnull (tmpdir);

  g_test_add_func ("/measured/real-frames", test_real_frames);
  g_test_add_func ("/measured/bad-files", test_bad_files);
  g_test_add_func ("/measured/adopt", test_adopt);
  g_test_add_func ("/measured/score", test_score);
  g_test_add_func ("/measured/refine", test_refine);
  g_test_add_func ("/measured/cancel", test_cancel);
  g_test_add_func ("/measured/search-no-match", test_search_no_match);
  g_test_add_func ("/measured/detector-problem", test_detector_problem);
  g_test_add_func ("/measured/i23-panels", test_i23_panels);
  g_test_add_func ("/measured/refine-panels", test_refine_panels);
  rc = g_test_run ();

  {
    GDir *dir = g_dir_open (tmpdir, 0, NULL);
    const char *name;

    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *path = g_build_filename (tmpdir, name, NULL);
        g_unlink (path);
      }
    if (dir != NULL)
      g_dir_close (dir);
    g_rmdir (tmpdir);
    g_free (tmpdir);
  }
  return rc;
}
