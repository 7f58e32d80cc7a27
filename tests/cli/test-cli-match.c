/* test-cli-match.c: the command-line side of measured frames, end to end.
 * nanobragg writes a noisy 1HPV frame (an SMV file with nanoBragg's header);
 * `nanobragg -frame` adopts its geometry and says where each value came from;
 * nanobragg-match reads it, refines a misset a degree off back to the one it
 * was made with (a match, far beyond chance), writes the overlay, and refuses
 * bad input clearly.  On the real frames of tests/data/measured: a wrong cell
 * on the simtbx frame is no match (exit 3, --json says so), thaumatin on the
 * I03 frame is found and is one, and the I23 Pilatus 12M is refused. */
#include <glib.h>
#include <glib/gstdio.h>

#include <math.h>
#include <string.h>
#include <sys/wait.h>
#ifdef NB_HAVE_ZLIB
#include <zlib.h>
#endif

#include "nb-test-util.h"

#ifdef NB_HAVE_PNG
#include <png.h>
#endif

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
  g_assert_nonnull (strstr (out, "below 0.001: a match\n"));
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
}

#ifdef NB_HAVE_PNG
/* Whether pixel (@x, @y) of an overlay @rgb 128 pixels wide is (r, g, b). */
static gboolean
overlay_is (const uint8_t *rgb, int x, int y, int r, int g, int b)
{
  const uint8_t *px = rgb + 3 * ((size_t) y * 128 + x);

  return px[0] == r && px[1] == g && px[2] == b;
}
#endif

/* A frame of three panels (one tilted to each side of the beam) written by
 * nanobragg -detector, matched by nanobragg-match -detector from 0.5 deg
 * away: the misset is found, the report lists the matched peaks of each
 * panel by name, and --simulate correlates the refined simulation with the
 * frame in shells over all three panels, each pixel at its own panel's
 * resolution (the tilted panels' corners reach 3.3 A; panel 0's plane
 * stretched over the frame's 384 rows would reach 2 A). */
static void
test_match_panels (void)
{
  static const char geom[] = "res = 10000\nclen = 0.06 m\n"
                             "centre/min_fs = 0\ncentre/max_fs = 127\n"
                             "centre/min_ss = 0\ncentre/max_ss = 127\n"
                             "centre/fs = x\ncentre/ss = y\n"
                             "centre/corner_x = -64\ncentre/corner_y = -64\n"
                             "side/min_fs = 0\nside/max_fs = 127\n"
                             "side/min_ss = 128\nside/max_ss = 255\n"
                             "side/fs = 0.9397x +0.3420z\nside/ss = y\n"
                             "side/corner_x = 70\nside/corner_y = -64\n"
                             "top/min_fs = 0\ntop/max_fs = 127\n"
                             "top/min_ss = 256\ntop/max_ss = 383\n"
                             "top/fs = x\ntop/ss = 0.9397y +0.3420z\n"
                             "top/corner_x = -64\ntop/corner_y = 70\n";
  g_autofree char *hkl = g_build_filename (g_getenv ("NB_DATA_DIR"), "1hpv_p1.hkl", NULL);
  g_autofree char *path = g_build_filename (dir, "three.geom", NULL);
  const char *sim[] = { cli,          "-hkl",       hkl,           "-cell",       "63.4",
                        "63.4",       "83.8",       "90",          "90",          "120",
                        "-N",         "8",          "-gauss_xtal", "-lambda",     "1",
                        "-misset",    "10",         "20",          "30",          "-fluence",
                        "1e27",       "-seed",      "4321",        "-noisefile",  "three.img",
                        "-nopgm",     "-precision", "single",      "-noprogress", "-detector",
                        "three.geom", NULL };
  const char *match[] = { match_cli,
                          "three.img",
                          "--no-search",
                          "-detector",
                          "three.geom",
                          "-cell",
                          "63.4",
                          "63.4",
                          "83.8",
                          "90",
                          "90",
                          "120",
                          "-N",
                          "8",
                          "-gauss_xtal",
                          "-misset",
                          "10.5",
                          "20",
                          "29.6",
                          "-hkl",
                          hkl,
                          "-lambda",
                          "1",
                          "-fluence",
                          "1e27",
                          "--simulate",
                          "--overlay",
                          "three.png",
                          "--overlay-bin",
                          "1",
                          NULL };
  g_autofree char *out = NULL, *err = NULL;
  const char *line;
  int matched[3], found[3];
  double m[3];

  g_assert_true (g_file_set_contents (path, geom, -1, NULL));
  g_assert_cmpint (run (sim, &out, &err), ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (match, &out, &err), ==, 0);
  g_test_message ("%s", out);
  g_assert_nonnull (strstr (out, "detector: 3 panels from three.geom"));
  line = strstr (out, "\nmisset ");
  g_assert_nonnull (line);
  g_assert_cmpint (sscanf (line, "\nmisset %lf %lf %lf deg", &m[0], &m[1], &m[2]), ==, 3);
  g_assert_cmpfloat (fabs (m[0] - 10), <, 0.05);
  g_assert_cmpfloat (fabs (m[1] - 20), <, 0.05);
  g_assert_cmpfloat (fabs (m[2] - 30), <, 0.05);
  g_assert_nonnull (strstr (out, "below 0.001: a match\n"));
  line = strstr (out, "matched peaks by panel:");
  g_assert_nonnull (line);
  g_assert_cmpint (sscanf (line, "matched peaks by panel: centre %d/%d side %d/%d top %d/%d",
                           &matched[0], &found[0], &matched[1], &found[1], &matched[2], &found[2]),
                   ==, 6);
  for (int k = 0; k < 3; k++)
    {
      g_assert_cmpint (found[k], >=, 3);
      g_assert_cmpint (matched[k], >=, found[k] - 1);
    }
  line = strstr (out, "correlation of the simulation with the frame: ");
  g_assert_nonnull (line);
  line = strstr (line, "CC\n");
  g_assert_nonnull (line);
  line += 3;
  for (int j = 0; j < 10; j++)
    {
      double d_max, d_min, cc;
      long pixels;

      g_assert_cmpint (sscanf (line, " %lf %lf %ld %lf", &d_max, &d_min, &pixels, &cc), ==, 4);
      g_assert_cmpfloat (d_min, <, d_max);
      g_assert_cmpfloat (d_min, >, 3.2);
      if (j < 5)
        g_assert_cmpfloat (cc, >, 0.9);
      line = strchr (line, '\n');
      g_assert_nonnull (line);
      line++;
    }

#ifdef NB_HAVE_PNG
  /* the overlay draws the frame's 128 x 384 pixels, the panels one after another as the file
   * holds them, and each peak where its panel's pixel lies: a peak's green cross sits in a red
   * circle (3 pixels about a prediction) on every panel, as the report matched them */
  {
    g_autofree char *png = g_build_filename (dir, "three.png", NULL);
    int in_circle[3] = { 0, 0, 0 }, crosses[3] = { 0, 0, 0 };
    png_image image;
    g_autofree uint8_t *rgb = NULL;

    memset (&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    g_assert_true (png_image_begin_read_from_file (&image, png));
    g_assert_cmpint (image.width, ==, 128);
    g_assert_cmpint (image.height, ==, 384);
    image.format = PNG_FORMAT_RGB;
    rgb = g_malloc (PNG_IMAGE_SIZE (image));
    g_assert_true (png_image_finish_read (&image, NULL, rgb, 0, NULL));
    for (int y = 2; y < 382; y++)
      for (int x = 2; x < 126; x++)
        {
          gboolean cross = TRUE, red = FALSE;

          /* a cross's centre: green with its four arms 2 pixels long */
          for (int d = -2; d <= 2; d++)
            cross = cross && overlay_is (rgb, x + d, y, 0, 170, 0) &&
                    overlay_is (rgb, x, y + d, 0, 170, 0);
          if (!cross)
            continue;
          for (int dy = -6; dy <= 6 && !red; dy++)
            for (int dx = -6; dx <= 6 && !red; dx++)
              red = x + dx >= 0 && x + dx < 128 && y + dy >= 0 && y + dy < 384 &&
                    overlay_is (rgb, x + dx, y + dy, 220, 30, 30);
          crosses[y / 128]++;
          in_circle[y / 128] += red;
        }
    g_test_message ("overlay: crosses %d %d %d, in a circle %d %d %d", crosses[0], crosses[1],
                    crosses[2], in_circle[0], in_circle[1], in_circle[2]);
    for (int k = 0; k < 3; k++)
      {
        g_assert_cmpint (crosses[k], >=, found[k] - 1);
        g_assert_cmpint (in_circle[k], >=, matched[k] - 1);
        g_assert_cmpint (in_circle[k], >=, 3);
      }
  }
#endif

  /* --refine-detector with the search (refused before the parameters held the panels' motion),
   * from a detector 0.3 mm too far: it prints the flags that put the panels back */
  {
    const char *refine[] = { match_cli,     "three.img",  "--refine-detector",
                             "-detector",   "three.geom", "-detector_shift",
                             "0.3",         "0",          "0",
                             "-cell",       "63.4",       "63.4",
                             "83.8",        "90",         "90",
                             "120",         "-N",         "8",
                             "-gauss_xtal", NULL };
    double t[3], w[3];

    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run (refine, &out, &err), ==, 0);
    g_test_message ("%s", out);
    line = strstr (out, "moved as one body: -detector_shift ");
    g_assert_nonnull (line);
    g_assert_cmpint (sscanf (line,
                             "moved as one body: -detector_shift %lf %lf %lf (mm) "
                             "-detector_rotation %lf %lf %lf",
                             &t[0], &t[1], &t[2], &w[0], &w[1], &w[2]),
                     ==, 6);
    g_assert_cmpfloat (fabs (t[0]), <, 0.03);
    g_assert_nonnull (strstr (out, "below 0.001: a match\n"));

    /* the same search on 3 threads, refining 36 candidates, finds the same orientation and
     * motion, digit for digit.  The candidates each thread kept were once merged whole, so that 3
     * threads refined others than 2; and among 36 a candidate at rms 0.43 pixels, the detector
     * turned 0.13 deg against the crystal, won on a p-value 1.2 times smaller (p-values within
     * a factor of 2 now count as one, closer matches winning) */
    {
      const char *three[G_N_ELEMENTS (refine) + 4];
      g_autofree char *out3 = NULL, *err3 = NULL;
      size_t k = 0;

      for (; refine[k] != NULL; k++)
        three[k] = refine[k];
      three[k++] = "--threads";
      three[k++] = "3";
      three[k++] = "--candidates";
      three[k++] = "36";
      three[k] = NULL;
      const char *from = strstr (out, "moved as one body"), *to = strstr (out, " -seed ");
      const char *from3, *to3;

      g_assert_cmpint (run (three, &out3, &err3), ==, 0);
      from3 = strstr (out3, "moved as one body");
      to3 = strstr (out3, " -seed "); /* the command line's seed is the clock's */
      g_assert_true (from != NULL && to > from && from3 != NULL && to3 > from3);
      g_assert_cmpmem (from3, to3 - from3, from, to - from);
    }
  }
  g_unlink (path);
}

/* The number after "@key": in a one-line JSON object. */
static double
json_number (const char *json, const char *key)
{
  g_autofree char *quoted = g_strdup_printf ("\"%s\": ", key);
  const char *at = strstr (json, quoted);

  g_assert_nonnull (at);
  return g_ascii_strtod (at + strlen (quoted), NULL);
}

/* tests/data/measured/@name.gz decompressed into the test's folder; FALSE
 * (the test skipped) without zlib, or without CBFlib for a CBF. */
static gboolean
measured (const char *name)
{
#ifdef NB_HAVE_ZLIB
  g_autofree char *gz_name = g_strconcat (name, ".gz", NULL);
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "data", "measured", gz_name, NULL);
  g_autofree char *dst = g_build_filename (dir, name, NULL);
  gzFile in;
  FILE *out;
  char buf[65536];
  int got;

#ifndef NB_HAVE_CBF
  if (g_str_has_suffix (name, ".cbf"))
    {
      g_test_skip ("this build has no CBFlib");
      return FALSE;
    }
#endif
  if (g_file_test (dst, G_FILE_TEST_EXISTS))
    return TRUE;
  in = gzopen (src, "rb");
  g_assert_nonnull (in);
  out = fopen (dst, "wb");
  g_assert_nonnull (out);
  while ((got = gzread (in, buf, sizeof buf)) > 0)
    g_assert_cmpint ((int) fwrite (buf, 1, (size_t) got, out), ==, got);
  gzclose (in);
  g_assert_cmpint (fclose (out), ==, 0);
  return TRUE;
#else
  g_test_skip ("no zlib to decompress the measured frames");
  return FALSE;
#endif
}

/* The 100 A cubic cell on the simtbx frame "matched" 64 %: it is no
 * match (exit 3), --json says so in one object on stdout and the report goes
 * to stderr. */
static void
test_match_json_no_match (void)
{
  const char *argv[] = { match_cli, "simtbx_FormatSMVJHSim_001.img",
                         "--json",  "--no-search",
                         "-cell",   "100",
                         "100",     "100",
                         "90",      "90",
                         "90",      NULL };
  g_autofree char *out = NULL, *err = NULL;

  if (!measured ("simtbx_FormatSMVJHSim_001.img"))
    return;
  g_assert_cmpint (run (argv, &out, &err), ==, 3);
  g_test_message ("%s%s", err, out);
  /* one object, one line */
  g_assert_true (g_str_has_prefix (out, "{\"frame\": \"simtbx_FormatSMVJHSim_001.img\", "));
  g_assert_true (g_str_has_suffix (out, "}\n"));
  g_assert_true (strchr (out, '\n') == out + strlen (out) - 1);
  g_assert_nonnull (strstr (out, "\"significant\": false"));
  g_assert_cmpfloat (json_number (out, "peaks"), ==, 50);
  g_assert_cmpfloat (json_number (out, "fraction"), >, 0.5);
  g_assert_cmpfloat (json_number (out, "chance_fraction"), >, 0.4);
  g_assert_cmpfloat (json_number (out, "p_value"), >, 1e-3);
  g_assert_nonnull (strstr (out, "\"misset_deg\": ["));
  g_assert_nonnull (strstr (out, "\"beam_centre_px\": [512, 512]"));
  g_assert_cmpfloat (json_number (out, "distance_mm"), ==, 1590);
  g_assert_nonnull (strstr (err, "no better than chance"));
  g_assert_nonnull (strstr (err, "no match: "));
  g_assert_null (strstr (err, "command line:"));
}

/* Thaumatin's cell on the I03 frame: the search finds it and calls it a
 * match (exit 0), against a chance fraction of about 1 %. */
static void
test_match_i03_thaumatin (void)
{
  const char *argv[] = { match_cli, "DLS_I03_smargon_0001.cbf",
                         "--json",  "-cell",
                         "57.8",    "57.8",
                         "150.2",   "90",
                         "90",      "90",
                         "-N",      "1000",
                         "-mosaic", "0.1",
                         NULL };
  g_autofree char *out = NULL, *err = NULL;

  if (!measured ("DLS_I03_smargon_0001.cbf"))
    return;
  g_assert_cmpint (run (argv, &out, &err), ==, 0);
  g_test_message ("%s%s", err, out);
  g_assert_nonnull (strstr (out, "\"significant\": true"));
  g_assert_nonnull (strstr (out, "\"search\": true"));
  g_assert_cmpfloat (json_number (out, "matched"), >=, 20);
  g_assert_cmpfloat (json_number (out, "chance_fraction"), <, 0.03);
  g_assert_cmpfloat (json_number (out, "log10_p_value"), <, -20);
  g_assert_cmpfloat (json_number (out, "seconds"), >, 0);
  g_assert_cmpfloat (json_number (out, "rms_px"), <, 2);
  /* the peaks' real range, not the limits asked for */
  g_assert_null (strstr (err, "between 100 and 0 A"));
  g_assert_nonnull (strstr (err, "peaks: the 50 strongest of 1000 found, from "));
  g_assert_nonnull (strstr (err, ": a match\n"));
}

/* The I23 Pilatus 12M: refused, naming its header line, by nanobragg-match
 * and nanobragg -frame; --flat-detector goes on only with a distance. */
static void
test_match_i23_refused (void)
{
  const char *name = "DLS_I23_P12M_thau_00001_zeroed.cbf";
  const char *match_argv[] = { match_cli, name, "-cell", "57.8", "57.8",
                               "150.2",   "90", "90",    "90",   NULL };
  const char *frame_argv[] = { cli, "-frame", name, "-cell", "57.8", "-default_F", "1", NULL };
  const char *flat_argv[] = { match_cli, name, "--flat-detector", "-cell", "57.8", NULL };
  const char *given_argv[] = { match_cli, name, "--flat-detector", "-distance", "250", "-cell",
                               "57.8",    NULL };
  g_autofree char *out = NULL, *err = NULL;

  if (!measured (name))
    return;
  g_assert_cmpint (run (match_argv, &out, &err), ==, 1);
  g_test_message ("%s", err);
  g_assert_nonnull (strstr (err, "'# Detector: PILATUS 12M, S/N 120-0100'"));
  g_assert_nonnull (strstr (err, "one flat panel cannot represent"));
  g_assert_null (strchr (strchr (err, '\n') + 1, '\n'));
  g_assert_null (strstr (out, "misset"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run (frame_argv, &out, &err), !=, 0);
  g_assert_nonnull (strstr (err, "PILATUS 12M"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run (flat_argv, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "--flat-detector needs the distance"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* past the refusal: the zeroed copy has no peaks to match */
  g_assert_cmpint (run (given_argv, &out, &err), ==, 1);
  g_test_message ("%s%s", out, err);
  g_assert_nonnull (strstr (out, "note: the miniCBF header line"));
  g_assert_nonnull (strstr (out, "taken as one flat panel: distance 250 mm from the flags"));
  g_assert_nonnull (strstr (err, "only 0 peaks"));
}

static void
test_match_help (void)
{
  const char *argv[] = { match_cli, "--help", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run (argv, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "--json"));
  g_assert_nonnull (strstr (out, "chance_fraction"));
  g_assert_nonnull (strstr (out, "--flat-detector"));
  g_assert_nonnull (strstr (out, "3 no match"));
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

/* The first 512 bytes of @name in the test's folder (an SMV header). */
static char *
smv_header (const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;
  char *text = NULL;
  gsize size = 0;

  g_assert_true (g_file_get_contents (path, &text, &size, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (size, >, 512);
  text[512] = '\0';
  return text;
}

/* Issue 26: `nanobragg -physical` writes the SMV header DIALS reads, whose
 * BEAM_CENTER_X/Y are dxtbx's, not nanoBragg's Xbeam/Ybeam; `-img` of that
 * image, in the convention it was made in, puts the beam (and so pix0, the
 * DIALS origin and every centre in the header) where it was. */
static void
test_img_dials_header (void)
{
  static const char *const conventions[][5] = {
    { "-mosflm", "-Xbeam", "2.3", "-Ybeam", "3.9" },
    { "-adxv", "-Xbeam", "3.9", "-Ybeam", "2.3" },
    { "-xds", "-ORGX", "30.5", "-ORGY", "20.25" },
  };
  const char *scene[] = {
    "-default_F", "100",        "-cell",     "100",          "100",        "100",
    "90",         "90",         "90",        "-lambda",      "1.2",        "-N",
    "1",          "-distance",  "80",        "-detpixels_x", "64",         "-detpixels_y",
    "48",         "-pixel",     "0.1",       "-oversample",  "1",          "-nonoise",
    "-nopgm",     "-floatfile", "/dev/null", "-physical",    "-noprogress"
  };

  for (gsize c = 0; c < G_N_ELEMENTS (conventions); c++)
    {
      g_autoptr (GPtrArray) write = g_ptr_array_new ();
      g_autoptr (GPtrArray) read = g_ptr_array_new ();
      g_autofree char *out_w = NULL, *out_r = NULL, *err = NULL;
      g_autofree char *head_w = NULL, *head_r = NULL;
      const char *fb_w, *fb_r;

      g_ptr_array_add (write, (char *) cli);
      g_ptr_array_add (read, (char *) cli);
      for (gsize i = 0; i < G_N_ELEMENTS (scene); i++)
        {
          g_ptr_array_add (write, (char *) scene[i]);
          g_ptr_array_add (read, (char *) scene[i]);
        }
      for (gsize i = 0; i < 5; i++)
        g_ptr_array_add (write, (char *) conventions[c][i]);
      g_ptr_array_add (read, (char *) conventions[c][0]);
      g_ptr_array_add (write, "-intfile");
      g_ptr_array_add (write, "dials-w.img");
      g_ptr_array_add (read, "-img");
      g_ptr_array_add (read, "dials-w.img");
      g_ptr_array_add (read, "-intfile");
      g_ptr_array_add (read, "dials-r.img");
      g_ptr_array_add (write, NULL);
      g_ptr_array_add (read, NULL);
      g_assert_cmpint (run ((const char *const *) write->pdata, &out_w, &err), ==, 0);
      g_clear_pointer (&err, g_free);
      g_assert_cmpint (run ((const char *const *) read->pdata, &out_r, &err), ==, 0);
      head_w = smv_header ("dials-w.img");
      head_r = smv_header ("dials-r.img");
      g_test_message ("%s:\n%s\n%s", conventions[c][0], head_w, head_r);
      g_assert_nonnull (strstr (head_w, "ADC_OFFSET="));
      /* the same beam centre in every convention's terms, DIALS origin, ORGX/ORGY */
      g_assert_cmpstr (head_r, ==, head_w);
      fb_w = strstr (out_w, "  Fbeam=");
      fb_r = strstr (out_r, "  Fbeam=");
      g_assert_nonnull (fb_w);
      g_assert_nonnull (fb_r);
      g_assert_cmpint (strcspn (fb_r, "\n"), ==, strcspn (fb_w, "\n"));
      g_assert_cmpmem (fb_r, strcspn (fb_r, "\n"), fb_w, strcspn (fb_w, "\n"));
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
  g_test_add_func ("/cli/match/help", test_match_help);
  g_test_add_func ("/cli/match/json-no-match", test_match_json_no_match);
  g_test_add_func ("/cli/match/i03-thaumatin", test_match_i03_thaumatin);
  g_test_add_func ("/cli/match/i23-refused", test_match_i23_refused);
  g_test_add_func ("/cli/match/panels", test_match_panels);
  g_test_add_func ("/cli/img/dials-header", test_img_dials_header);
  rc = g_test_run ();
  nb_test_remove_tree (dir);
  g_free (dir);
  return rc;
}
