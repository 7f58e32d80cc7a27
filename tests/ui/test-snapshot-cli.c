/* test-snapshot-cli.c: `braggscope --snapshot FILE.png [flags]` with and
 * without a display, its display options, its errors and exit statuses.
 *
 * The program is $BRAGGSCOPE_EXE.  Cases that need a display use $DISPLAY
 * (the harness runs this test under xvfb-run); the others remove it.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-config.h"

#include "braggscope-lesson.h"
#include "ui-test-util.h"

#include <braggscope.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef NB_HAVE_HDF5
#include <hdf5.h>
#endif

/* A small, quick scene: the default crystal on 256 x 256 pixels of 0.4 mm. */
#define SMALL "-detpixels", "256", "-pixel", "0.4"

static char *tmpdir;

typedef struct
{
  int status;
  char *out;
  char *err;      /* stderr without the progress lines of a slow frame */
  char *progress; /* those lines ("braggscope: Full frame: ..."), which a loaded machine may add */
} Run;

static void
run_clear (Run *run)
{
  g_free (run->out);
  g_free (run->err);
  g_free (run->progress);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

/* Moves the progress lines of a frame that took over 2 s out of run->err: whether a frame takes
 * that long depends on the machine's load, not on what a test checks. */
static void
split_progress (Run *run)
{
  g_auto (GStrv) lines = g_strsplit (run->err, "\n", -1);
  GString *rest = g_string_new (NULL), *progress = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (lines[i][0] == '\0' && lines[i + 1] == NULL)
        break;
      g_string_append_printf (g_str_has_prefix (lines[i], "braggscope: Full frame: ") ? progress
                                                                                      : rest,
                              "%s\n", lines[i]);
    }
  g_free (run->err);
  run->err = g_string_free (rest, FALSE);
  run->progress = g_string_free (progress, FALSE);
}

/* A run that blocks (on a FIFO, a terminal) is killed by SIGALRM after this
 * long and the case fails naming the signal, instead of hanging the suite. */
#define RUN_ALARM_S 120

/* The address space of the next run, as `ulimit -v` would set it; 0: none. */
static rlim_t child_address_space;

static void
child_setup (gpointer data)
{
  alarm (RUN_ALARM_S);
  if (child_address_space > 0)
    {
      struct rlimit rl = { child_address_space, child_address_space };

      setrlimit (RLIMIT_AS, &rl);
    }
}

/* Runs braggscope with @args; without a display unless @display. */
static void
run_braggscope (Run *run, gboolean display, const char *const *env_extra, const char *const *args)
{
  const char *exe = g_getenv ("BRAGGSCOPE_EXE");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_auto (GStrv) envp = g_get_environ ();
  g_autoptr (GError) error = NULL;

  g_assert_nonnull (exe);
  if (!display)
    {
      envp = g_environ_unsetenv (envp, "DISPLAY");
      envp = g_environ_unsetenv (envp, "WAYLAND_DISPLAY");
    }
  for (int i = 0; env_extra != NULL && env_extra[i] != NULL; i += 2)
    envp = g_environ_setenv (envp, env_extra[i], env_extra[i + 1], TRUE);

  g_ptr_array_add (argv, (gpointer) exe);
  for (int i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  memset (run, 0, sizeof *run);
  g_assert_true (g_spawn_sync (tmpdir, (char **) argv->pdata, envp, G_SPAWN_DEFAULT, child_setup,
                               NULL, &run->out, &run->err, &run->status, &error));
  g_assert_no_error (error);
  run->status = WIFEXITED (run->status) ? WEXITSTATUS (run->status) : 128 + WTERMSIG (run->status);
  split_progress (run);
}

static guint8 *
read_snapshot (const char *path, int *width, int *height, GHashTable **text)
{
  g_autoptr (GError) error = NULL;
  guint8 *pixels = ui_test_read_png (path, width, height, text, &error);

  g_assert_no_error (error);
  return pixels;
}

static void
test_no_display (void)
{
  g_autofree char *path = g_build_filename (tmpdir, "no-display.png", NULL);
  const char *args[] = { "--snapshot", path, SMALL, "-misset", "12", "20", "30", NULL };
  g_auto (Run) run;
  g_autoptr (GHashTable) text = NULL;
  g_autofree guint8 *pixels = NULL;
  g_auto (GStrv) saved = NULL;
  int width = 0, height = 0;

  run_braggscope (&run, FALSE, NULL, args);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_cmpint (run.status, ==, 0);

  pixels = read_snapshot (path, &width, &height, &text);
  g_assert_cmpint (width, ==, 256);
  g_assert_cmpint (height, ==, 256);
  g_assert_true (g_str_has_prefix (g_hash_table_lookup (text, "Software"), "Braggscope "));
  g_assert_nonnull (
      strstr (g_hash_table_lookup (text, "braggscope:command-line"), "-misset 12 20 30"));
  saved = braggscope_snapshot_load_args (path, NULL);
  g_assert_nonnull (saved);
  g_assert_true (g_strv_contains ((const char *const *) saved, "-detpixels"));
  /* Not a blank picture: inverted grey with automatic contrast spans light to dark. */
  {
    int lightest = 0, darkest = 255;

    for (int i = 0; i < width * height; i++)
      {
        lightest = MAX (lightest, pixels[4 * i + 1]);
        darkest = MIN (darkest, pixels[4 * i + 1]);
      }
    g_assert_cmpint (lightest - darkest, >, 128);
  }
}

static void
test_display_matches (void)
{
  g_autofree char *with = g_build_filename (tmpdir, "with-display.png", NULL);
  g_autofree char *without = g_build_filename (tmpdir, "without-display.png", NULL);
  /* Over 512 pixels, so that the overlays' line width and font grow with the frame. */
  const char *args_with[] = { "--snapshot", with, "-detpixels", "640", "-pixel", "0.16", NULL };
  const char *args_without[] = {
    "--snapshot", without, "-detpixels", "640", "-pixel", "0.16", NULL
  };
  g_auto (Run) run_with;
  g_auto (Run) run_without;
  g_autofree guint8 *a = NULL, *b = NULL;
  int wa, ha, wb, hb;

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_test_skip ("no display (run under xvfb-run)");
      return;
    }

  run_braggscope (&run_with, TRUE, NULL, args_with);
  g_assert_cmpstr (run_with.err, ==, "");
  g_assert_cmpint (run_with.status, ==, 0);
  run_braggscope (&run_without, FALSE, NULL, args_without);
  g_assert_cmpint (run_without.status, ==, 0);

  /* A display changes nothing: the picture is libbraggscope-gtk's display-free
   * rendering either way (tests/gtk/test-view.c checks it against the view's). */
  a = read_snapshot (with, &wa, &ha, NULL);
  b = read_snapshot (without, &wb, &hb, NULL);
  g_assert_cmpint (wa, ==, wb);
  g_assert_cmpint (ha, ==, hb);
  g_assert_cmpmem (a, (gsize) wa * ha * 4, b, (gsize) wb * hb * 4);
}

static gboolean
in_lut (const guint8 *pixel, const guint8 *lut)
{
  for (int i = 0; i < 256; i++)
    if (memcmp (pixel, lut + 4 * i, 3) == 0)
      return TRUE;
  return FALSE;
}

static void
test_display_options (void)
{
  g_autofree char *plain = g_build_filename (tmpdir, "viridis-plain.png", NULL);
  g_autofree char *rings = g_build_filename (tmpdir, "viridis-rings.png", NULL);
  const char *args_plain[] = { "--snapshot", plain,        "--colormap",       "viridis", "--scale",
                               "linear",     "--no-rings", "--no-beam-center", SMALL,     NULL };
  const char *args_rings[] = {
    "--snapshot", rings, "--colormap=viridis", "--scale=linear", "--rings", "--no-beam-center",
    SMALL,        NULL
  };
  guint8 lut[256 * 4];
  g_auto (Run) run;
  g_auto (Run) run2;
  g_autofree guint8 *a = NULL, *b = NULL;
  int w, h, outside = 0, distinct = 0;

  braggscope_colormap_lut (BRAGGSCOPE_COLORMAP_VIRIDIS, lut);

  run_braggscope (&run, FALSE, NULL, args_plain);
  g_assert_cmpint (run.status, ==, 0);
  a = read_snapshot (plain, &w, &h, NULL);
  /* Without overlays every pixel is a colour of the viridis table. */
  for (int i = 0; i < w * h; i++)
    g_assert_true (in_lut (a + 4 * i, lut));
  for (int i = 0; i < 256; i++)
    for (int p = 0; p < w * h; p++)
      if (memcmp (a + 4 * p, lut + 4 * i, 3) == 0)
        {
          distinct++;
          break;
        }
  g_assert_cmpint (distinct, >, 8);

  run_braggscope (&run2, FALSE, NULL, args_rings);
  g_assert_cmpint (run2.status, ==, 0);
  b = read_snapshot (rings, &w, &h, NULL);
  /* The rings add colours of their own. */
  for (int i = 0; i < w * h; i++)
    outside += !in_lut (b + 4 * i, lut);
  g_assert_cmpint (outside, >, 50);
}

typedef struct
{
  const char *args[12];
  int status;
  const char *mention;
} ErrorCase;

static void
test_errors (void)
{
  g_autofree char *out = g_build_filename (tmpdir, "error.png", NULL);
  const ErrorCase cases[] = {
    { { "--snapshot", out, "-nonsense", "1", NULL }, 2, "-nonsense" },
    { { "--snapshot", out, "-lambda", "blue", NULL }, 2, "blue" },
    { { "--snapshot", out, "--gamma", "abc", NULL }, 2, "abc" },
    { { "--snapshot", out, "--colormap", "rainbow", NULL }, 2, "rainbow" },
    { { "--snapshot", NULL }, 2, "--snapshot" },
    { { "--colormap", "grey", NULL }, 2, "--snapshot" },
    { { "--frobnicate", NULL }, 2, "--frobnicate" },
    /* The window needs a display; the message points at --snapshot. */
    { { "-lambda", "1.2", NULL }, 1, "--snapshot" },
    /* refused with the flags, as -mask is (issue 27) */
    { { "--snapshot", out, SMALL, "-hkl", "/nonexistent/x.hkl", NULL }, 2, "/nonexistent/x.hkl" },
    { { "--snapshot", "/nonexistent-folder/x.png", SMALL, NULL }, 1, "/nonexistent-folder/x.png" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (Run) run;
      const char *newline;

      run_braggscope (&run, FALSE, NULL, cases[i].args);
      g_test_message ("case %" G_GSIZE_FORMAT ": status %d, stderr: %s", i, run.status, run.err);
      g_assert_cmpint (run.status, ==, cases[i].status);
      /* One line, "braggscope: ...", naming the input. */
      g_assert_true (g_str_has_prefix (run.err, "braggscope: "));
      newline = strchr (run.err, '\n');
      g_assert_nonnull (newline);
      g_assert_cmpstr (newline + 1, ==, "");
      g_assert_nonnull (strstr (run.err, cases[i].mention));
      g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
    }
}

/* Issue 29: `braggscope --detector FILE --snapshot` draws a multi-panel
 * detector as the sample sees it: a picture of the panels' projection (much
 * larger than one 1024 x 512 module, about the 16M detector's own pixel
 * count), the flag kept in its parameters; a missing or broken geometry file
 * is one line naming it, and no picture. */
static void
test_detector (void)
{
  g_autofree char *out = g_build_filename (tmpdir, "jungfrau.png", NULL);
  g_autofree char *broken = g_build_filename (tmpdir, "broken.geom", NULL);
  g_autofree char *geom =
      g_test_build_filename (G_TEST_DIST, "..", "data", "detectors", "jf-swissfel-16M.geom", NULL);
  g_autoptr (GHashTable) text = NULL;
  g_autofree guint8 *pixels = NULL;
  int width, height;

  {
    g_auto (Run) run;

    run_braggscope (&run, FALSE, NULL,
                    (const char *const[]){ "--snapshot", out, "--detector", geom, "-roi", "0", "31",
                                           "0", "31", "-oversample", "1", NULL });
    g_test_message ("stderr: %s", run.err);
    g_assert_cmpint (run.status, ==, 0);
  }
  pixels = read_snapshot (out, &width, &height, &text);
  g_test_message ("the Jungfrau 16M seen from the sample: %d x %d", width, height);
  g_assert_cmpint (width, >, 2 * 1024);
  g_assert_cmpint (height, >, 4 * 512);
  g_assert_cmpfloat ((double) width * height, >, 16e6);
  g_assert_cmpfloat ((double) width * height, <, 24.0 * (1 << 20));
  g_assert_true (g_unlink (out) == 0);

  g_assert_true (g_file_set_contents (broken, "m0/min_fs = 0\nm0/max_fs = lots\n", -1, NULL));
  for (int i = 0; i < 2; i++)
    {
      const char *file = i == 0 ? "/nonexistent/detector.geom" : broken;
      g_auto (Run) run;

      run_braggscope (&run, FALSE, NULL,
                      (const char *const[]){ "--snapshot", out, "--detector", file, NULL });
      g_test_message ("status %d, stderr: %s", run.status, run.err);
      g_assert_cmpint (run.status, !=, 0);
      g_assert_true (g_str_has_prefix (run.err, "braggscope: "));
      g_assert_nonnull (strstr (run.err, file));
      g_assert_cmpstr (strchr (run.err, '\n') + 1, ==, "");
      g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
    }
}

/* The mean brightness (0-255) of the 9 x 9 box about (@x, @y) of @pixels. */
static double
brightness (const guint8 *pixels, int width, int x, int y)
{
  double sum = 0.0;

  for (int j = y - 4; j <= y + 4; j++)
    for (int i = x - 4; i <= x + 4; i++)
      {
        const guint8 *px = pixels + 4 * ((gsize) j * width + i);

        sum += (px[0] + px[1] + px[2]) / 3.0;
      }
  return sum / 81.0;
}

/* Issue 29: `braggscope --snapshot --measured FRAME` on an NXmx frame of four
 * modules (four 200 x 150 sensors around the beam, a few degrees tilted,
 * pixel (f, s) of module p counting 1000 p + 7 f + 3 s, written by the
 * engine): the modules are adopted as the simulation's panels, the measured
 * frame is laid out on them as the simulation is (side by side two halves
 * of one size, the overlay one layer: no fallback), its panels where the
 * simulation's are (module p's grey from its counts, darker with p, the
 * gap between them the colour of no counts), and the score says why
 * there is none.  It was refused before (exit 2). */
static void
test_measured_panels (void)
{
#ifdef NB_HAVE_HDF5
  const char *tool = g_getenv ("NB_DETECTOR_TOOL");
  g_autofree char *geom = g_build_filename (tmpdir, "four.geom", NULL);
  g_autofree char *nxs = g_build_filename (tmpdir, "four.nxs", NULL);
  g_autoptr (GString) text =
      g_string_new ("res = 9090.909\nclen = 0.1 m\nphoton_energy = 9500 eV\n");
  int width[2] = { 0, 0 }, height[2] = { 0, 0 };

  g_assert_nonnull (tool);
  for (int p = 0; p < 4; p++)
    {
      double tilt = (3.0 + p) * (p % 2 == 0 ? -1.0 : 1.0) * G_PI / 180.0;
      char c[G_ASCII_DTOSTR_BUF_SIZE], z[G_ASCII_DTOSTR_BUF_SIZE];

      g_ascii_formatd (c, sizeof c, "%.6f", cos (tilt));
      g_ascii_formatd (z, sizeof z, "%+.6f", sin (tilt));
      g_string_append_printf (text, "m%d/min_fs = %d\nm%d/max_fs = %d\nm%d/min_ss = %d\n", p,
                              220 * (p % 2), p, 220 * (p % 2) + 199, p, 170 * (p / 2));
      g_string_append_printf (text, "m%d/max_ss = %d\nm%d/fs = %sx %sz\nm%d/ss = y\n", p,
                              170 * (p / 2) + 149, p, c, z, p);
      g_string_append_printf (text, "m%d/corner_x = %d\nm%d/corner_y = %d\n", p,
                              p % 2 == 0 ? -210 : 10, p, p / 2 == 0 ? -160 : 10);
    }
  g_assert_true (g_file_set_contents (geom, text->str, -1, NULL));
  {
    const char *argv[] = { tool, "write-nxmx", "geom", geom, nxs, NULL };
    g_autoptr (GError) error = NULL;
    int status = 1;

    g_assert_true (g_spawn_sync (tmpdir, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                                 NULL, &status, &error));
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
  }
  for (int m = 0; m < 2; m++)
    {
      g_autofree char *out =
          g_build_filename (tmpdir, m == 0 ? "four-side.png" : "four-over.png", NULL);
      const char *args[] = { "--snapshot",
                             out,
                             "--measured",
                             nxs,
                             "--compare-mode",
                             m == 0 ? "side-by-side" : "overlay",
                             "-cell",
                             "30",
                             "40",
                             "50",
                             "90",
                             "90",
                             "90",
                             "-misset",
                             "10",
                             "20",
                             "30",
                             "-N",
                             "3",
                             "-default_F",
                             "100",
                             "-oversample",
                             "1",
                             NULL };
      g_autoptr (GHashTable) meta = NULL;
      g_autofree guint8 *pixels = NULL;
      g_auto (Run) run;

      run_braggscope (&run, FALSE, NULL, args);
      g_test_message ("status %d, stdout: %s, stderr: %s", run.status, run.out, run.err);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_cmpstr (run.err, ==, "");
      g_assert_true (g_str_has_prefix (run.out, "match: "));
      g_assert_null (strstr (run.out, "not scored"));
      pixels = read_snapshot (out, &width[m], &height[m], &meta);
      if (m == 0)
        {
          /* the measured half: module p's counts darker with p, the gap between them
           * (the beam's place) as light as no counts */
          int w = width[0] / 2, h = height[0];
          double q[4] = { brightness (pixels, width[0], w / 4, h / 4 + 20),
                          brightness (pixels, width[0], 3 * w / 4, h / 4 + 20),
                          brightness (pixels, width[0], w / 4, 3 * h / 4 - 20),
                          brightness (pixels, width[0], 3 * w / 4, 3 * h / 4 - 20) };
          double gap = brightness (pixels, width[0], w / 2, h / 2);

          g_test_message ("modules %.0f %.0f %.0f %.0f, gap %.0f", q[0], q[1], q[2], q[3], gap);
          g_assert_cmpfloat (q[0], >, q[1] + 10);
          g_assert_cmpfloat (q[1], >, q[2] + 10);
          g_assert_cmpfloat (q[2], >, q[3] + 10);
          g_assert_cmpfloat (gap, >, q[0] + 10);
        }
      if (g_getenv ("BRAGGSCOPE_MEASURED_PANELS_PNG") == NULL)
        g_remove (out);
    }
  /* side by side: two halves of the projection's size; overlaid: one */
  g_assert_cmpint (width[0], ==, 2 * width[1]);
  g_assert_cmpint (height[0], ==, height[1]);
  g_assert_cmpint (width[1], >, 400);
  g_remove (geom);
  g_remove (nxs);
#else
  g_test_skip ("this build reads and writes no NeXus files (-Dhdf5)");
#endif
}

/* Issue 23: what an attacker's snapshot or command line can name.  A FIFO as
 * -hkl, -mask or --measured blocked the program for ever; an intensity of
 * 1e308 photons gave a black picture and exit 0.  Each is now one line naming
 * the input, a non-zero exit and no picture, at once. */
static void
test_hostile_inputs (void)
{
  g_autofree char *out = g_build_filename (tmpdir, "hostile.png", NULL);
  g_autofree char *fifo = g_build_filename (tmpdir, "pipe.in", NULL);
  const ErrorCase cases[] = {
    { { "--snapshot", out, SMALL, "-hkl", fifo, NULL }, 2, "a named pipe (FIFO)" },
    { { "--snapshot", out, SMALL, "-mask", fifo, NULL }, 2, "a named pipe (FIFO)" },
    { { "--snapshot", out, SMALL, "-sourcefile", fifo, NULL }, 2, "a named pipe (FIFO)" },
    { { "--snapshot", out, "--measured", fifo, NULL }, 2, "a named pipe (FIFO)" },
    { { "--snapshot", out, SMALL, "-default_F", "1e308", NULL }, 1, "non-finite pixels" },
    { { "--snapshot", out, SMALL, "-fluence", "1e308", NULL }, 1, "non-finite pixels" },
  };

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (Run) run;
      gint64 start = g_get_monotonic_time ();

      run_braggscope (&run, FALSE, NULL, cases[i].args);
      g_test_message ("case %" G_GSIZE_FORMAT ": status %d, stderr: %s", i, run.status, run.err);
      g_assert_cmpint (run.status, ==, cases[i].status);
      g_assert_true (g_str_has_prefix (run.err, "braggscope: "));
      g_assert_cmpstr (strchr (run.err, '\n'), ==, "\n");
      g_assert_nonnull (strstr (run.err, cases[i].mention));
      g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
      g_assert_cmpint (g_get_monotonic_time () - start, <, 60 * G_USEC_PER_SEC);
    }
  g_remove (fifo);

  {
    /* a reproduced quirk that gives negative photons: the picture, and a warning */
    const char *args[] = { "--snapshot", out, SMALL, "-twotheta", "120", NULL };
    g_auto (Run) run;

    run_braggscope (&run, FALSE, NULL, args);
    g_test_message ("-twotheta 120: status %d, stderr: %s", run.status, run.err);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_true (g_str_has_prefix (run.err, "braggscope: warning: two-theta 120 deg"));
    g_assert_nonnull (strstr (run.err, "(quirk Q-2)"));
    g_assert_nonnull (strstr (run.err, "-physical"));
    g_assert_cmpstr (strchr (run.err, '\n'), ==, "\n");
    g_assert_true (g_file_test (out, G_FILE_TEST_EXISTS));
    g_remove (out);
  }
}

/* Whether @text holds a GLib CRITICAL or WARNING ("Gtk-WARNING **", "GLib-GObject-CRITICAL **",
 * "(braggscope:12): WARNING **"); nanoBragg's own "braggscope: warning: ..." is no such thing. */
static gboolean
has_glib_complaint (const char *text)
{
  return strstr (text, "CRITICAL") != NULL || strstr (text, "WARNING **") != NULL;
}

/* Issue 24: `braggscope --snapshot out.png --measured DLS_I03_smargon_0001.cbf` printed
 * "GLib-GObject-CRITICAL: g_enum_get_value_by_nick: assertion 'nick != NULL' failed".  Every
 * headless mode (each lesson, each compare mode, a measured frame of each format: SMV, CBF,
 * NeXus, with and without --compare-mode) runs with criticals and warnings fatal, and says
 * neither. */
static void
test_no_criticals (void)
{
  const char *env[] = { "G_DEBUG", "fatal-warnings", NULL };
  g_autoptr (GPtrArray) lessons = braggscope_lessons_load (NULL);
  g_autoptr (GPtrArray) runs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_autofree char *out = g_build_filename (tmpdir, "quiet.png", NULL);
  g_autofree char *smv = ui_test_measured_frame ("TIMEPIX_SU_516-stdgoni_0001.img", tmpdir);
  g_autofree char *cbf = ui_test_measured_frame ("DLS_I03_smargon_0001.cbf", tmpdir);
  const char *const modes[] = { "side-by-side", "blink", "overlay", "difference" };
  const char *const frames[] = { smv, cbf };

  g_assert_nonnull (lessons);
  for (guint i = 0; i < lessons->len; i++)
    g_ptr_array_add (runs,
                     g_strdupv ((char *[]){ "--snapshot", out, "--lesson",
                                            ((BraggscopeLesson *) lessons->pdata[i])->id, NULL }));
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    g_ptr_array_add (runs,
                     g_strdupv ((char *[]){ "--snapshot", out, "--compare", "-misset 10 22 30",
                                            "--compare-mode", (char *) modes[i], SMALL, NULL }));
  for (guint i = 0; i < G_N_ELEMENTS (frames); i++)
    {
      g_ptr_array_add (runs,
                       g_strdupv ((char *[]){ "--snapshot", out, "--measured", (char *) frames[i],
                                              "-oversample", "1", NULL }));
      g_ptr_array_add (
          runs, g_strdupv ((char *[]){ "--snapshot", out, "--measured", (char *) frames[i],
                                       "--compare-mode", "blink", "-oversample", "1", NULL }));
    }
#ifdef NB_HAVE_HDF5
  {
    /* a NeXus frame as nanobragg-series writes it */
    const char *series = g_getenv ("NB_SERIES_CLI");
    g_autofree char *prefix = g_build_filename (tmpdir, "nx", NULL);
    g_autofree char *master = g_build_filename (tmpdir, "nx_master.h5", NULL);
    const char *argv[] = { series, "--frames",   "1",   "--format", "nexus",     "--out",
                           prefix, "-detpixels", "128", "-pixel",   "0.4",       "-N",
                           "5",    "-default_F", "100", "-cell",    "40",        "40",
                           "40",   "90",         "90",  "90",       "-distance", "100",
                           "-osc", "0.5",        NULL };
    g_autoptr (GError) error = NULL;
    int status = 1;

    g_assert_nonnull (series);
    g_assert_true (g_spawn_sync (tmpdir, (char **) argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
                                 NULL, NULL, NULL, &status, &error));
    g_assert_no_error (error);
    g_assert_true (g_spawn_check_wait_status (status, NULL));
    g_ptr_array_add (runs, g_strdupv ((char *[]){ "--snapshot", out, "--measured", master, NULL }));
  }
#endif

  for (guint i = 0; i < runs->len; i++)
    {
      const char *const *args = runs->pdata[i];
      g_autofree char *shown = g_strjoinv (" ", (char **) args);
      g_auto (Run) run;

      run_braggscope (&run, FALSE, env, args);
      g_test_message ("braggscope %s: status %d%s%s", shown, run.status, *run.err ? ", " : "",
                      run.err);
      g_assert_false (has_glib_complaint (run.err));
      g_assert_cmpint (run.status, ==, 0);
      g_assert_true (g_file_test (out, G_FILE_TEST_IS_REGULAR));
      g_remove (out);
    }
  g_remove (smv);
  g_remove (cbf);
}

/* Issue 23, item 7: `braggscope --snapshot m.png --measured nx.h5` on a tiny
 * NeXus file declaring 16384 x 16384 pixels, in 4 GB, allocated until GLib
 * aborted (SIGTRAP).  The frame is now refused within the engine's memory
 * budget (half of what the process may use), before anything is allocated:
 * one line, exit 2, no picture. */
static void
test_measured_budget (void)
{
#ifdef NB_HAVE_HDF5
  g_autofree char *out = g_build_filename (tmpdir, "budget.png", NULL);
  g_autofree char *nexus = g_build_filename (tmpdir, "declares_16384.h5", NULL);
  hsize_t dims[3] = { 1, 16384, 16384 }, chunk[3] = { 1, 1024, 1024 };
  hid_t f = H5Fcreate (nexus, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t entry = H5Gcreate2 (f, "entry", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t data = H5Gcreate2 (entry, "data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hid_t space = H5Screate_simple (3, dims, NULL), dcpl = H5Pcreate (H5P_DATASET_CREATE), d;
  const char *args[] = { "--snapshot", out, "--measured", nexus, NULL };
  g_auto (Run) run;
  GStatBuf st;

  /* no chunk is stored: a file of a few kB */
  H5Pset_chunk (dcpl, 3, chunk);
  H5Pset_deflate (dcpl, 1);
  d = H5Dcreate2 (data, "data", H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  g_assert_cmpint (d, >=, 0);
  H5Dclose (d);
  H5Pclose (dcpl);
  H5Sclose (space);
  H5Gclose (data);
  H5Gclose (entry);
  H5Fclose (f);
  g_assert_cmpint (g_stat (nexus, &st), ==, 0);
  g_assert_cmpint (st.st_size, <, 1 << 20);

  child_address_space = (rlim_t) 4 << 30;
  run_braggscope (&run, FALSE, NULL, args);
  child_address_space = 0;
  g_test_message ("status %d, stderr: %s", run.status, run.err);
  g_assert_cmpint (run.status, ==, 2);
  g_assert_true (g_str_has_prefix (run.err, "braggscope: --measured: "));
  g_assert_cmpstr (strchr (run.err, '\n'), ==, "\n");
  g_assert_nonnull (strstr (run.err, "16384 x 16384 frame needs about 2415.9 MB"));
  g_assert_nonnull (strstr (run.err, "memory budget of 2147.5 MB"));
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  g_remove (nexus);
#else
  g_test_skip ("this build has no libhdf5");
#endif
}

static void
test_help_version (void)
{
  const char *help[] = { "--help", NULL };
  const char *version[] = { "--version", NULL };
  g_auto (Run) run;
  g_auto (Run) run2;

  run_braggscope (&run, FALSE, NULL, help);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "--snapshot FILE.png"));
  run_braggscope (&run2, FALSE, NULL, version);
  g_assert_cmpint (run2.status, ==, 0);
  g_assert_true (g_str_has_prefix (run2.out, "braggscope " PACKAGE_VERSION));
}

/* The German catalogue, compiled into the build tree, is used at run time. */
static void
test_german (void)
{
  const char *mo = g_getenv ("BRAGGSCOPE_TEST_MO");
  g_autofree char *localedir = g_build_filename (tmpdir, "locale", NULL);
  g_autofree char *messages = g_build_filename (localedir, "de", "LC_MESSAGES", NULL);
  g_autofree char *target = g_build_filename (messages, "braggscope.mo", NULL);
  g_autofree char *de = g_build_filename (localedir, "de", NULL);
  g_autofree char *contents = NULL;
  gsize length = 0;
  const char *env[] = { "LANGUAGE", "de", "LC_ALL", "C.UTF-8", "BRAGGSCOPE_LOCALEDIR",
                        localedir,  NULL };
  const char *help[] = { "--help", NULL };
  const char *bad[] = { "--frobnicate", NULL };
  g_auto (Run) run;
  g_auto (Run) run2;

  /* The catalogue msgfmt compiled from po/de.po, in a locale folder of its own. */
  g_assert_nonnull (mo);
  g_assert_true (g_file_get_contents (mo, &contents, &length, NULL));
  g_assert_cmpint (g_mkdir_with_parents (messages, 0755), ==, 0);
  g_assert_true (g_file_set_contents (target, contents, length, NULL));
  run_braggscope (&run, FALSE, env, help);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "Aufruf:"));
  g_assert_null (strstr (run.out, "Usage:"));
  run_braggscope (&run2, FALSE, env, bad);
  g_assert_cmpint (run2.status, ==, 2);
  g_assert_nonnull (strstr (run2.err, "unbekannte Option"));
  g_remove (target);
  g_rmdir (messages);
  g_rmdir (de);
  g_rmdir (localedir);
}

/* Issue 24: `LANGUAGE=de build/ui/braggscope` was all English: a program run from the build
 * tree looked only in the installed locale folder.  With no $BRAGGSCOPE_LOCALEDIR it takes the
 * build tree's catalogue (po/, compiled by the build), as it takes the build tree's schema. */
static void
test_build_tree_translations (void)
{
  const char *env[] = { "LANGUAGE", "de", "LC_ALL", "C.UTF-8", "BRAGGSCOPE_LOCALEDIR", "", NULL };
  const char *help[] = { "--help", NULL };
  g_auto (Run) run;

  run_braggscope (&run, FALSE, env, help);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "Aufruf:"));
  g_assert_null (strstr (run.out, "Usage:"));
}

/* --view, --labels, --rings-at and --lesson: the teaching views headless. */
static void
test_teaching_views (void)
{
  struct
  {
    const char *name;
    const char *const *extra;
    int width, height;
  } cases[] = {
    { "detector.png", (const char *const[]){ "--no-labels", NULL }, 256, 256 },
    { "labels.png", (const char *const[]){ "--labels", NULL }, 256, 256 },
    { "rings-at.png", (const char *const[]){ "--rings-at", "3, 2.5", NULL }, 256, 256 },
    { "reciprocal.png", (const char *const[]){ "--view", "reciprocal", NULL }, 256, 256 },
    { "both.png", (const char *const[]){ "--view=both", "--labels", NULL }, 512, 256 },
  };
  g_autofree guint8 *plain = NULL;

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *path = g_build_filename (tmpdir, cases[c].name, NULL);
      g_autoptr (GPtrArray) args = g_ptr_array_new ();
      g_auto (Run) run;
      g_autofree guint8 *pixels = NULL;
      int width = 0, height = 0;

      g_ptr_array_add (args, "--snapshot");
      g_ptr_array_add (args, path);
      for (int i = 0; cases[c].extra[i] != NULL; i++)
        g_ptr_array_add (args, (gpointer) cases[c].extra[i]);
      for (const char *const *a = (const char *const[]){ SMALL, NULL }; *a != NULL; a++)
        g_ptr_array_add (args, (gpointer) *a);
      g_ptr_array_add (args, NULL);
      run_braggscope (&run, FALSE, NULL, (const char *const *) args->pdata);
      g_assert_cmpstr (run.err, ==, "");
      g_assert_cmpint (run.status, ==, 0);
      pixels = read_snapshot (path, &width, &height, NULL);
      g_assert_cmpint (width, ==, cases[c].width);
      g_assert_cmpint (height, ==, cases[c].height);
      if (c == 0)
        plain = g_steal_pointer (&pixels);
      else if (c < 3)
        /* labels and fixed rings are drawn over the same picture */
        g_assert_cmpint (memcmp (plain, pixels, (gsize) width * height * 4), !=, 0);
    }

  /* a lesson's scene and views; flags after it apply on top */
  {
    g_autofree char *path = g_build_filename (tmpdir, "lesson.png", NULL);
    const char *args[] = { "--snapshot", path, "--lesson", "wavelength", "-lambda", "1.5", NULL };
    g_auto (Run) run;
    g_autoptr (GHashTable) text = NULL;
    g_autofree guint8 *pixels = NULL;
    int width = 0, height = 0;

    run_braggscope (&run, FALSE, NULL, args);
    g_assert_cmpstr (run.err, ==, "");
    g_assert_cmpint (run.status, ==, 0);
    pixels = read_snapshot (path, &width, &height, &text);
    g_assert_cmpint (width, ==, 1024); /* both views of its 512 x 512 detector */
    g_assert_cmpint (height, ==, 512);
    g_assert_nonnull (
        strstr (g_hash_table_lookup (text, "braggscope:command-line"), "-lambda 1.5"));
  }
  {
    const char *args[] = { "--snapshot", "x.png", "--lesson", "no-such-lesson", NULL };
    g_auto (Run) run;

    run_braggscope (&run, FALSE, NULL, args);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "no lesson 'no-such-lesson'"));
    g_assert_nonnull (strstr (run.err, "ewald-sphere"));
  }
  {
    const char *bad[][4] = {
      { "--snapshot", "x.png", "--view", "sideways" },
      { "--snapshot", "x.png", "--rings-at", "3,x" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        const char *args[] = { bad[i][0], bad[i][1], bad[i][2], bad[i][3], NULL };
        g_auto (Run) run;

        run_braggscope (&run, FALSE, NULL, args);
        g_assert_cmpint (run.status, ==, 2);
        g_assert_nonnull (strstr (run.err, bad[i][2]));
      }
  }
}

/* --compare: A is the scene, B the scene with the flags on top. */
static void
test_compare (void)
{
  struct
  {
    const char *name, *mode, *flags;
    int width, height, status;
  } cases[] = {
    { "cmp-side.png", "side-by-side", "-misset 10 22 30", 512, 256, 0 },
    { "cmp-blink.png", "blink", "-misset 10 22 30", 256, 256, 0 },
    { "cmp-overlay.png", "overlay", "-misset 10 22 30", 256, 256, 0 },
    { "cmp-diff.png", "difference", "-misset 10 22 30", 256, 256, 0 },
    /* the default scene's own misset: B is A */
    { "cmp-same.png", "difference", "-misset 10 20 30", 256, 256, 0 },
    /* a smaller B: the difference is drawn side by side, and said */
    { "cmp-size.png", "difference", "-detpixels 200", 456, 256, 0 },
  };
  g_autofree guint8 *alone = NULL;

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *path = g_build_filename (tmpdir, cases[c].name, NULL);
      const char *args[] = { "--snapshot",
                             path,
                             "--no-rings",
                             "--no-beam-center",
                             "--compare",
                             cases[c].flags,
                             "--compare-mode",
                             cases[c].mode,
                             SMALL,
                             NULL };
      g_auto (Run) run;
      g_autofree guint8 *pixels = NULL;
      int width = 0, height = 0, white = 0, coloured = 0;

      run_braggscope (&run, FALSE, NULL, args);
      g_assert_cmpint (run.status, ==, cases[c].status);
      if (c == 5)
        g_assert_nonnull (strstr (run.err, "side by side"));
      else
        g_assert_cmpstr (run.err, ==, "");
      pixels = read_snapshot (path, &width, &height, NULL);
      g_assert_cmpint (width, ==, cases[c].width);
      g_assert_cmpint (height, ==, cases[c].height);
      for (int i = 0; i < width * height; i++)
        {
          const guint8 *p = pixels + 4 * i;

          white += p[0] == 255 && p[1] == 255 && p[2] == 255;
          coloured += p[0] != p[1] || p[1] != p[2];
        }
      if (c == 4)
        /* the difference of a frame with itself is zero: white everywhere */
        g_assert_cmpint (white, ==, width * height);
      else if (c == 3 || c == 2)
        /* a turned crystal differs (and is drawn in colour) */
        g_assert_cmpint (coloured, >, 100);
      if (c == 0)
        alone = g_steal_pointer (&pixels);
      else if (c == 1)
        {
          /* blink shows A, the left half of side by side */
          for (int y = 0; y < height; y++)
            g_assert_cmpmem (pixels + (gsize) y * width * 4, (gsize) width * 4,
                             alone + (gsize) y * 2 * width * 4, (gsize) width * 4);
        }
    }

  /* with rings: A keeps its own (λ 1 Å), B has its own (1.2 Å), so the left
   * half is A's snapshot alone, rings and all */
  {
    g_autofree char *a_path = g_build_filename (tmpdir, "cmp-a.png", NULL);
    g_autofree char *ab_path = g_build_filename (tmpdir, "cmp-ab.png", NULL);
    const char *a_args[] = { "--snapshot", a_path, "--no-beam-center", "--rings-at", "4 3",
                             SMALL,        NULL };
    const char *ab_args[] = {
      "--snapshot",  ab_path,          "--no-beam-center", "--rings-at", "4 3", "--compare",
      "-lambda 1.2", "--compare-mode", "side-by-side",     SMALL,        NULL
    };
    g_auto (Run) run_a;
    g_auto (Run) run_ab;
    g_autofree guint8 *a = NULL, *ab = NULL;
    int wa, ha, wab, hab;
    gsize differ = 0;

    run_braggscope (&run_a, FALSE, NULL, a_args);
    g_assert_cmpint (run_a.status, ==, 0);
    run_braggscope (&run_ab, FALSE, NULL, ab_args);
    g_assert_cmpint (run_ab.status, ==, 0);
    a = read_snapshot (a_path, &wa, &ha, NULL);
    ab = read_snapshot (ab_path, &wab, &hab, NULL);
    g_assert_cmpint (wab, ==, 2 * wa);
    for (int y = 0; y < ha; y++)
      differ += memcmp (ab + (gsize) y * wab * 4, a + (gsize) y * wa * 4, (gsize) wa * 4) != 0;
    g_test_message ("rows of A's half that differ from A's own snapshot: %" G_GSIZE_FORMAT, differ);
    g_assert_cmpuint (differ, ==, 0);
  }

  {
    const char *bad[][6] = {
      { "--snapshot", "x.png", "--compare", "-lambda -3", NULL, NULL },
      { "--snapshot", "x.png", "--compare", "-misset 1 2 3", "--compare-mode", "sideways" },
      { "--snapshot", "x.png", "--compare-mode", "blink", NULL, NULL },
      { "--compare", "-lambda 2", NULL, NULL, NULL, NULL },
    };
    const char *expect[] = { "--compare: -lambda", "--compare-mode", "--compare-mode needs",
                             "--snapshot" };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_auto (Run) run;

        run_braggscope (&run, FALSE, NULL, bad[i]);
        g_assert_cmpint (run.status, ==, 2);
        g_assert_nonnull (strstr (run.err, expect[i]));
      }
  }
}

/* The share of the pixels of the box (@x0, @y0)-(@x1, @y1) of @pixels
 * (@width wide, RGBA) darkened to grey below 110, as a caption's box makes
 * them. */
static double
dark_share (const guint8 *pixels, int width, int x0, int y0, int x1, int y1)
{
  int dark = 0;

  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      {
        const guint8 *px = pixels + 4 * ((gsize) y * width + x);

        dark += px[0] < 110 && px[0] == px[1] && px[1] == px[2];
      }
  return (double) dark / ((x1 - x0) * (y1 - y0));
}

/* --measured: the Timepix frame as A, the scene on its header's geometry as
 * B (516 x 516 pixels), the score and its chance on stdout; the picture's
 * layers captioned, and the score along its bottom; the Eiger frame
 * likewise; errors name the option, and the I23 Pilatus 12M is refused,
 * naming its header line. */
static void
test_measured (void)
{
  g_autofree char *frame = ui_test_measured_frame ("TIMEPIX_SU_516-stdgoni_0001.img", tmpdir);
  struct
  {
    const char *name, *mode;
    int width;
  } cases[] = {
    { "measured-side.png", "side-by-side", 2 * 516 },
    { "measured-overlay.png", "overlay", 516 },
    { "measured-difference.png", "difference", 516 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *path = g_build_filename (tmpdir, cases[c].name, NULL);
      const char *args[] = { "--snapshot",  path,    "--measured", frame, "--compare-mode",
                             cases[c].mode, "-cell", "30",         "30",  "30",
                             "90",          "90",    "90",         "-N",  "20",
                             "-default_F",  "100",   NULL };
      g_auto (Run) run;
      g_autofree guint8 *pixels = NULL;
      g_autoptr (GHashTable) text = NULL;
      int width = 0, height = 0;

      run_braggscope (&run, FALSE, NULL, args);
      g_assert_cmpint (run.status, ==, 0);
      g_assert_cmpstr (run.err, ==, "");
      g_assert_true (g_str_has_prefix (run.out, "match: "));
      g_assert_nonnull (strstr (run.out, " of 50 peaks"));
      g_assert_nonnull (strstr (run.out, ", chance "));
      g_assert_true (g_str_has_suffix (run.out, ": a match\n") ||
                     g_str_has_suffix (run.out, ": no better than chance\n"));
      pixels = read_snapshot (path, &width, &height, &text);
      g_assert_cmpint (width, ==, cases[c].width);
      g_assert_cmpint (height, ==, 516);
      /* the captions: the layer's at the top left (and the simulation's beside it), the
       * score at the bottom left */
      g_test_message ("%s: caption boxes %.2f, %.2f dark", cases[c].mode,
                      dark_share (pixels, width, 9, 9, 40, 18),
                      dark_share (pixels, width, 9, 490, 40, 500));
      g_assert_cmpfloat (dark_share (pixels, width, 9, 9, 40, 18), >, 0.3);
      g_assert_cmpfloat (dark_share (pixels, width, 9, 490, 40, 500), >, 0.3);
      if (width > 516)
        g_assert_cmpfloat (dark_share (pixels, width, 516 + 9, 9, 516 + 40, 18), >, 0.3);
    }

  {
    g_autofree char *i23 = ui_test_measured_frame ("DLS_I23_P12M_thau_00001_zeroed.cbf", tmpdir);
    g_autofree char *path = g_build_filename (tmpdir, "measured-i23.png", NULL);
    const char *args[] = { "--snapshot", path, "--measured", i23, "-cell", "57.8", NULL };
    g_auto (Run) run;

    run_braggscope (&run, FALSE, NULL, args);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "'# Detector: PILATUS 12M, S/N 120-0100'"));
    g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
    g_remove (i23);
  }

  /* the Eiger 16M frame too, on its own geometry (one sample per pixel and one mosaic
   * domain, not the 96 of smooth arcs: its 18 million pixels then take a second) */
  {
    g_autofree char *eiger = ui_test_measured_frame ("dlsnxs2cbf_therm_0001.cbf", tmpdir);
    g_autofree char *path = g_build_filename (tmpdir, "measured-eiger.png", NULL);
    const char *args[] = { "--snapshot", path,    "--measured", eiger,  "--compare-mode",
                           "overlay",    "-cell", "57.8",       "57.8", "150",
                           "90",         "90",    "90",         "-N",   "100",
                           "-default_F", "100",   "-mosaic",    "0",    "-oversample",
                           "1",          NULL };
    g_auto (Run) run;
    g_autofree char *png = NULL;
    guint32 size[2];
    gsize len = 0;

    run_braggscope (&run, FALSE, NULL, args);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_true (g_str_has_prefix (run.out, "match: "));
    g_test_message ("Eiger frame: %s", run.out);
    /* the size from the PNG's header (IHDR: big-endian width, height at bytes 16 and 20);
     * decoding 18 million pixels would add seconds and check nothing the Timepix cases do not */
    g_assert_true (g_file_get_contents (path, &png, &len, NULL));
    g_assert_cmpuint (len, >, 24);
    memcpy (size, png + 16, sizeof size);
    g_assert_cmpuint (GUINT32_FROM_BE (size[0]), ==, 4148);
    g_assert_cmpuint (GUINT32_FROM_BE (size[1]), ==, 4362);
    g_remove (path);
    g_remove (eiger);
  }

  {
    g_autofree char *missing = g_build_filename (tmpdir, "missing.img", NULL);
    const char *bad[][6] = {
      { "--snapshot", "x.png", "--measured", missing, NULL, NULL },
      { "--snapshot", "x.png", "--measured", frame, "--compare", "-lambda 2" },
      { "--measured", frame, NULL, NULL, NULL, NULL },
    };
    const char *expect[] = { "--measured: ", "one of them", "--snapshot" };

    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
      {
        g_auto (Run) run;

        run_braggscope (&run, FALSE, NULL, bad[i]);
        g_assert_cmpint (run.status, ==, 2);
        g_assert_nonnull (strstr (run.err, expect[i]));
      }
  }
}

static void
on_line (GObject *source, GAsyncResult *result, gpointer data)
{
  char **line = data;

  *line =
      g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source), result, NULL, NULL);
  if (*line == NULL)
    *line = g_strdup ("");
}

/* The next line of @in, or NULL when none comes within @seconds. */
static char *
read_line_within (GDataInputStream *in, double seconds)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  gint64 deadline = g_get_monotonic_time () + (gint64) (seconds * 1e6);
  char *line = NULL;

  g_data_input_stream_read_line_async (in, G_PRIORITY_DEFAULT, cancellable, on_line, &line);
  while (line == NULL && g_get_monotonic_time () < deadline)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (1000);
  if (line == NULL)
    {
      g_cancellable_cancel (cancellable);
      while (line == NULL)
        g_main_context_iteration (NULL, TRUE);
      g_clear_pointer (&line, g_free);
    }
  return line;
}

/* A full frame of minutes (a million sub-pixels in every pixel) says on stderr,
 * before its first percent is done, what it will cost and why, then how far
 * it is; the test stops it there. */
static void
test_slow_frame (void)
{
  const char *exe = g_getenv ("BRAGGSCOPE_EXE");
  g_autofree char *path = g_build_filename (tmpdir, "slow.png", NULL);
  g_autoptr (GSubprocessLauncher) launcher = g_subprocess_launcher_new (
      G_SUBPROCESS_FLAGS_STDERR_PIPE | G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  g_autoptr (GSubprocess) child = NULL;
  g_autoptr (GDataInputStream) err = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *first = NULL, *second = NULL;
  gint64 start = g_get_monotonic_time ();

  g_assert_nonnull (exe);
  g_subprocess_launcher_unsetenv (launcher, "DISPLAY");
  g_subprocess_launcher_unsetenv (launcher, "WAYLAND_DISPLAY");
  /* nanoBragg's integration: every pixel at every sub-pixel */
  child = g_subprocess_launcher_spawn (launcher, &error, exe, "--snapshot", path, "-detpixels",
                                       "256", "-pixel", "0.4", "-oversample", "1000",
                                       "-integration", "exact", NULL);
  g_assert_no_error (error);
  err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (child));
  first = read_line_within (err, 30.0);
  second = first != NULL ? read_line_within (err, 30.0) : NULL;
  g_test_message ("after %.1f s: \"%s\", then \"%s\"", (g_get_monotonic_time () - start) / 1e6,
                  first, second);
  g_subprocess_force_exit (child);
  g_subprocess_wait (child, NULL, NULL);
  g_assert_nonnull (first);
  g_assert_true (g_str_has_prefix (first, "braggscope: Full frame: about "));
  g_assert_nonnull (strstr (first, "(1000000 sub-pixels per pixel at N = 10; lower Oversample"));
  g_assert_nonnull (second);
  g_assert_true (g_str_has_prefix (second, "braggscope: Full frame: "));
  g_assert_nonnull (strstr (second, " %, about "));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* Issue 23: lesson files are data.  One malformed file costs only its own
 * lesson (a warning names it); a lesson may not name a file to write; its
 * numbers must be finite, and a zoom of 1e300 (which spun in cairo_arc) is
 * drawn as the view's largest. */
static void
write_lesson (const char *dir, const char *name, const char *id, const char *extra)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text = g_strdup_printf (
      "[Lesson]\nId=%s\nName=Test %s\nComment=A lesson made by the test.\nTry=misset-x\n"
      "Scene=empty\nArguments=-cell 40 40 40 90 90 90 -default_F 100 -lambda 1 -N 4 "
      "-distance 100 -detpixels 64 -pixel 0.8 -oversample 1%s\n",
      id, id, extra);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static void
test_bad_lessons (void)
{
  g_autofree char *dir = g_build_filename (tmpdir, "lessons", NULL);
  g_autofree char *victim = g_build_filename (tmpdir, "victim", NULL);
  g_autofree char *png = g_build_filename (tmpdir, "good-lesson.png", NULL);
  g_autofree char *dump = NULL, *broken = NULL, *contents = NULL;
  const char *env[] = { "BRAGGSCOPE_LESSONSDIR", dir, NULL };

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (victim, "precious", -1, NULL));
  write_lesson (dir, "01-good.desktop", "good",
                "\nView=both\nLabels=true\nLabelCount=1e300\nReciprocalZoom=1e300\n"
                "ReciprocalResolution=1e-300\nPlayRange=1e300\nPlaySpeed=-1e300");
  dump = g_strdup_printf (" -dump %s", victim);
  write_lesson (dir, "02-dump.desktop", "dump", dump);
  write_lesson (dir, "03-inf.desktop", "inf", "\nReciprocalZoom=inf");
  write_lesson (dir, "04-nan.desktop", "nan", "\nPlayRange=1\nPlaySpeed=nan");
  write_lesson (dir, "05-word.desktop", "word", "\nLabelCount=many");
  broken = g_build_filename (dir, "06-broken.desktop", NULL);
  g_assert_true (g_file_set_contents (broken, "not a key file\n[Lesson", -1, NULL));
  {
    /* a named pipe among the lessons blocked the viewer in open() */
    g_autofree char *fifo = g_build_filename (dir, "07-fifo.desktop", NULL);

    g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  }
  /* StructureFactors names a file of the data folder, never a path */
  write_lesson (dir, "08-up.desktop", "up", "\nStructureFactors=../../etc/passwd");
  write_lesson (dir, "09-absolute.desktop", "absolute", "\nStructureFactors=/etc/passwd");
  write_lesson (dir, "10-dots.desktop", "dots", "\nStructureFactors=..");
  write_lesson (dir, "11-second.desktop", "second", "\nStructureFactors=1hpv.pdb;../1hpv.pdb;");

  {
    const char *args[] = { "--snapshot", png, "--lesson", "good", NULL };
    g_auto (Run) run;
    gint64 start = g_get_monotonic_time ();

    run_braggscope (&run, FALSE, env, args);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_cmpint (g_get_monotonic_time () - start, <, 60 * G_USEC_PER_SEC);
    g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
    /* one line for each lesson skipped, naming its file and what is wrong */
    g_assert_nonnull (strstr (run.err, "02-dump.desktop: Arguments: -dump"));
    g_assert_nonnull (strstr (run.err, "03-inf.desktop: ReciprocalZoom: 'inf'"));
    g_assert_nonnull (strstr (run.err, "04-nan.desktop: PlaySpeed: 'nan'"));
    g_assert_nonnull (strstr (run.err, "05-word.desktop: LabelCount: 'many'"));
    g_assert_nonnull (strstr (run.err, "06-broken.desktop"));
    g_assert_nonnull (strstr (run.err, "07-fifo.desktop: not a regular file"));
    g_assert_nonnull (strstr (run.err, "08-up.desktop: StructureFactors: '../../etc/passwd'"));
    g_assert_nonnull (strstr (run.err, "09-absolute.desktop: StructureFactors: '/etc/passwd'"));
    g_assert_nonnull (strstr (run.err, "10-dots.desktop: StructureFactors: '..'"));
    g_assert_nonnull (strstr (run.err, "11-second.desktop: StructureFactors: '../1hpv.pdb'"));
    g_assert_null (strstr (run.err, "01-good"));
  }
  {
    const char *args[] = { "--snapshot", png, "--lesson", "dump", NULL };
    g_auto (Run) run;

    run_braggscope (&run, FALSE, env, args);
    g_assert_cmpint (run.status, ==, 2);
    g_assert_nonnull (strstr (run.err, "no lesson 'dump' (one of good)"));
  }
  g_assert_true (g_file_get_contents (victim, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "precious");
}

int
main (int argc, char *argv[])
{
  g_autoptr (GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("braggscope-cli-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/ui/snapshot/no-display", test_no_display);
  g_test_add_func ("/ui/snapshot/display-matches", test_display_matches);
  g_test_add_func ("/ui/snapshot/display-options", test_display_options);
  g_test_add_func ("/ui/snapshot/errors", test_errors);
  g_test_add_func ("/ui/snapshot/teaching-views", test_teaching_views);
  g_test_add_func ("/ui/snapshot/bad-lessons", test_bad_lessons);
  g_test_add_func ("/ui/snapshot/compare", test_compare);
  g_test_add_func ("/ui/snapshot/slow-frame", test_slow_frame);
  g_test_add_func ("/ui/snapshot/measured", test_measured);
  g_test_add_func ("/ui/snapshot/detector", test_detector);
  g_test_add_func ("/ui/snapshot/measured-panels", test_measured_panels);
  g_test_add_func ("/ui/snapshot/no-criticals", test_no_criticals);
  g_test_add_func ("/ui/snapshot/help-version", test_help_version);
  g_test_add_func ("/ui/snapshot/hostile-inputs", test_hostile_inputs);
  g_test_add_func ("/ui/snapshot/measured-budget", test_measured_budget);
  g_test_add_func ("/ui/snapshot/german", test_german);
  g_test_add_func ("/ui/snapshot/build-tree-translations", test_build_tree_translations);

  status = g_test_run ();
  ui_test_remove_dir (tmpdir);
  g_free (tmpdir);
  return status;
}
