/* test-cli-match.c: the command-line side of measured frames, end to end.
 * nanobragg writes a noisy 1HPV frame (an SMV file with nanoBragg's header);
 * `nanobragg -frame` adopts its geometry and says where each value came from;
 * nanobragg-match reads it, refines a misset a degree off back to the one it
 * was made with, writes the overlay, and refuses bad input clearly. */
#include <glib.h>
#include <glib/gstdio.h>

#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "nb-test-util.h"

static const char *cli, *match_cli;
static char *dir;

#define SCENE_CELL "-cell 63.4 63.4 83.8 90 90 120 -N 8 -gauss_xtal"

static int
run (const char *const *argv, char **out, char **err)
{
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (dir, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

/* The frame: 256 x 256 pixels of 0.1 mm at 60 mm, misset 10 20 30. */
static void
make_frame (void)
{
  g_autofree char *hkl = g_build_filename (g_getenv ("NB_DATA_DIR"), "1hpv_p1.hkl", NULL);
  const char *argv[] = { cli,          "-hkl",     hkl,           "-cell",       "63.4",
                         "63.4",       "83.8",     "90",          "90",          "120",
                         "-N",         "8",        "-gauss_xtal", "-lambda",     "1",
                         "-detpixels", "256",      "-pixel",      "0.1",         "-distance",
                         "60",         "-misset",  "10",          "20",          "30",
                         "-fluence",   "1e27",     "-seed",       "4321",        "-noisefile",
                         "frame.img",  "-nopgm",   "-precision",  "single",      "-floatfile",
                         "frame.bin",  "-intfile", "int.img",     "-noprogress", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run (argv, &out, &err), ==, 0);
}

static void
test_frame_flag (void)
{
  const char *argv[] = { cli,           "-frame",   "frame.img",  "-default_F",  "1",
                         "-cell",       "50",       "-floatfile", "adopted.bin", "-intfile",
                         "adopted.img", "-nonoise", "-nopgm",     NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run (argv, &out, &err), ==, 0);
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "SMV frame 256 x 256 pixels (unsigned 16-bit)"));
  g_assert_nonnull (strstr (out, "distance 60 mm from the SMV header line"));
  g_assert_nonnull (strstr (out, "pixel size 0.1 mm from the SMV header line"));
  g_assert_nonnull (strstr (out, "'ADXV_CENTER_X="));
}

static void
test_match_refines (void)
{
  const char *argv[] = { match_cli, "frame.img", "--no-search", "--overlay", "overlay.png",
                         "-cell",   "63.4",      "63.4",        "83.8",      "90",
                         "90",      "120",       "-N",          "8",         "-gauss_xtal",
                         "-misset", "11",        "20.5",        "29.5",      NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *png = g_build_filename (dir, "overlay.png", NULL);
  const char *line;
  double m[3];

  g_assert_cmpint (run (argv, &out, &err), ==, 0);
  g_test_message ("%s", out);
  line = strstr (out, "\nmisset ");
  g_assert_nonnull (line);
  g_assert_cmpint (sscanf (line, "\nmisset %lf %lf %lf deg", &m[0], &m[1], &m[2]), ==, 3);
  g_assert_cmpfloat (fabs (m[0] - 10), <, 0.05);
  g_assert_cmpfloat (fabs (m[1] - 20), <, 0.05);
  g_assert_cmpfloat (fabs (m[2] - 30), <, 0.05);
  g_assert_nonnull (strstr (out, "score: "));
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
}

static void
test_match_refuses (void)
{
  struct
  {
    const char *args[6];
    int status;
    const char *names;
  } cases[] = {
    { { "nothere.cbf", SCENE_CELL, NULL }, 1, "nothere.cbf" },
    { { "frame.bin", NULL }, 1, "frame.bin" },
    { { "frame.img", "--peaks", "x", NULL }, 2, "--peaks" },
    { { "frame.img", "--frobnicate", NULL }, 2, "--frobnicate" },
    /* an option of several values is named with the value at fault, not the one before
     * it (issue 23) */
    { { "frame.img", "--overlay-crop 0 0 2147483647 2147483647", NULL },
      2,
      "nanobragg-match: --overlay-crop W 2147483647: not a number from 1 to 65536" },
    { { "frame.img", "--overlay-crop 0 0", NULL }, 2, "--overlay-crop W needs a value" },
    { { "frame.img", "--overlay-crop 0 -1 5 5", NULL }, 2, "--overlay-crop S0 -1" },
    { { "frame.img", "--overlay-bin 0", NULL }, 2, "--overlay-bin 0" },
    { { "frame.img", "-detpixels", "100", "-cell", "50", NULL }, 2, "100 x 100" },
    { { NULL }, 2, "FRAME" },
  };

  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *out = NULL, *err = NULL;

      g_ptr_array_add (argv, g_strdup (match_cli));
      for (int i = 0; i < 6 && cases[c].args[i] != NULL; i++)
        {
          g_auto (GStrv) split = g_strsplit (cases[c].args[i], " ", -1);

          for (int k = 0; split[k] != NULL; k++)
            g_ptr_array_add (argv, g_strdup (split[k]));
        }
      g_ptr_array_add (argv, NULL);
      g_assert_cmpint (run ((const char *const *) argv->pdata, &out, &err), ==, cases[c].status);
      g_test_message ("%s", err);
      g_assert_nonnull (strstr (err, cases[c].names));
      /* one line */
      g_assert_nonnull (strchr (err, '\n'));
      g_assert_null (strchr (strchr (err, '\n') + 1, '\n'));
    }
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  int rc;

  g_test_init (&argc, &argv, NULL);
  cli = g_getenv ("NB_CLI");
  match_cli = g_getenv ("NB_MATCH_CLI");
  g_assert_nonnull (cli);
  g_assert_nonnull (match_cli);
  dir = g_dir_make_tmp ("nb-test-cli-match-XXXXXX", &error);
  g_assert_no_error (error);
  make_frame ();
  g_test_add_func ("/cli/match/frame-flag", test_frame_flag);
  g_test_add_func ("/cli/match/refines", test_match_refines);
  g_test_add_func ("/cli/match/refuses", test_match_refuses);
  rc = g_test_run ();
  nb_test_remove_tree (dir);
  g_free (dir);
  return rc;
}
