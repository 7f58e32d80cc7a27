/* test-series.c: the series' counter-based random choices (nb-series.h) and
 * the frame writers (nb-frame-write.h): CBF and NeXus files written, read
 * back and verified, and damaged files refused. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "nb-frame-write.h"
#include "nb-io.h"
#include "nb-series.h"
#include "nb-test-util.h"

/* The same (seed, index, stream) gives the same value; each argument
 * changes it. */
static void
test_hash_pure (void)
{
  uint64_t h = nb_series_hash (7, 3, 0);

  g_assert_cmpuint (h, ==, nb_series_hash (7, 3, 0));
  g_assert_cmpuint (h, !=, nb_series_hash (8, 3, 0));
  g_assert_cmpuint (h, !=, nb_series_hash (7, 4, 0));
  g_assert_cmpuint (h, !=, nb_series_hash (7, 3, 1));
  for (uint64_t i = 0; i < 1000; i++)
    {
      double u = nb_series_uniform (1, i, 5);
      long s = nb_series_seed (1, i, NB_SERIES_STREAM_NOISE);

      g_assert_cmpfloat (u, >=, 0.0);
      g_assert_cmpfloat (u, <, 1.0);
      g_assert_cmpint (s, >=, 1);
      g_assert_cmpint (s, <=, 2147483646);
    }
}

/* Uniform on SO(3): for Haar-distributed rotations every matrix element has
 * mean 0 and variance 1/3, and the trace has mean 0 and variance 1.  With
 * 20000 draws the means are within 5 standard errors. */
static void
test_orientation_uniform (void)
{
  enum
  {
    N = 20000
  };
  double sum[9] = { 0 }, sum2[9] = { 0 }, tr = 0, tr2 = 0;

  for (uint64_t i = 0; i < N; i++)
    {
      double q[4], u[9], t;

      nb_series_orientation (42, i, q, u);
      g_assert_cmpfloat_with_epsilon (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0,
                                      1e-12);
      for (int k = 0; k < 9; k++)
        {
          sum[k] += u[k];
          sum2[k] += u[k] * u[k];
        }
      t = u[0] + u[4] + u[8];
      tr += t;
      tr2 += t * t;
      /* a rotation: rows orthonormal, determinant +1 */
      g_assert_cmpfloat_with_epsilon (u[0] * (u[4] * u[8] - u[5] * u[7]) -
                                          u[1] * (u[3] * u[8] - u[5] * u[6]) +
                                          u[2] * (u[3] * u[7] - u[4] * u[6]),
                                      1.0, 1e-12);
    }
  for (int k = 0; k < 9; k++)
    {
      g_assert_cmpfloat (fabs (sum[k] / N), <, 5 * sqrt (1.0 / 3 / N));
      g_assert_cmpfloat (fabs (sum2[k] / N - 1.0 / 3), <, 0.01);
    }
  g_assert_cmpfloat (fabs (tr / N), <, 5 * sqrt (1.0 / N));
  g_assert_cmpfloat (fabs (tr2 / N - 1.0), <, 0.03);
}

/* The misset angles of an orientation make the plan turn the reciprocal
 * cell by that rotation. */
static void
test_orientation_misset (void)
{
  nb_plan *plan0 = plan_new ("-default_F 1 -cell 50 60 70 90 90 90 -detpixels 8 -misset 0 0 0");
  const nb_plan_info *in0 = nb_plan_get_info (plan0);

  for (uint64_t i = 0; i < 5; i++)
    {
      double u[9], m[3];
      g_autofree char *cmd = NULL;
      nb_plan *plan;
      const nb_plan_info *in;

      nb_series_orientation (9, i, NULL, u);
      nb_series_misset (u, m);
      cmd = g_strdup_printf ("-default_F 1 -cell 50 60 70 90 90 90 -detpixels 8 -misset %.17g "
                             "%.17g %.17g",
                             m[0] * 180 / M_PI, m[1] * 180 / M_PI, m[2] * 180 / M_PI);
      plan = plan_new (cmd);
      in = nb_plan_get_info (plan);
      for (int r = 0; r < 3; r++)
        {
          double want = u[3 * r] * in0->a_star[0] + u[3 * r + 1] * in0->a_star[1] +
                        u[3 * r + 2] * in0->a_star[2];

          g_assert_cmpfloat_with_epsilon (in->a_star[r], want, 1e-9);
          want = u[3 * r] * in0->c_star[0] + u[3 * r + 1] * in0->c_star[1] +
                 u[3 * r + 2] * in0->c_star[2];
          g_assert_cmpfloat_with_epsilon (in->c_star[r], want, 1e-9);
        }
      nb_plan_destroy (plan);
    }
  nb_plan_destroy (plan0);
}

static void
sample_geometry (nb_frame_geometry *g)
{
  nb_plan *plan = plan_new ("-default_F 1 -cell 50 60 70 90 90 90 -detpixels_f 40 "
                            "-detpixels_s 30 -pixel 0.172 -distance 150 -lambda 0.98 -phi 5 "
                            "-osc 0.25 -detector_thick 450 -exposure 0.1");

  nb_frame_geometry_from_plan (nb_plan_get_info (plan), nb_plan_get_params (plan), 65535, g);
  nb_plan_destroy (plan);
}

static int32_t *
sample_pixels (const nb_frame_geometry *g)
{
  int32_t *px = g_new (int32_t, (gsize) g->fpixels * (gsize) g->spixels);

  for (int i = 0; i < g->fpixels * g->spixels; i++)
    px[i] = (i * 7919) % 70000 - 3;
  return px;
}

/* Flips one byte in the middle of @path. */
static void
damage (const char *path, gsize where)
{
  g_autofree char *data = NULL;
  gsize n = 0;

  g_assert_true (g_file_get_contents (path, &data, &n, NULL));
  g_assert_cmpuint (where, <, n);
  data[where] ^= 0x5a;
  g_assert_true (g_file_set_contents (path, data, (gssize) n, NULL));
}

static void
test_cbf_round_trip (void)
{
  g_autofree char *dir = g_dir_make_tmp ("nb-series-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "f.cbf", NULL);
  g_autofree char *text = NULL;
  g_autofree int32_t *px = NULL;
  nb_frame_geometry g;
  nb_error err = { 0 };
  gsize n = 0;

  if (!nb_cbf_available ())
    {
      g_test_skip ("no CBFlib in this build");
      return;
    }
  sample_geometry (&g);
  px = sample_pixels (&g);
  g_assert_cmpint (nb_write_cbf (path, &g, px, "# Braggscope_fingerprint 0123\n", &err), ==, NB_OK);
  if (nb_cbf_verify (path, 40, 30, "Braggscope_fingerprint 0123", &err) != NB_OK)
    g_error ("%s", err.message);
  g_assert_cmpint (nb_cbf_verify (path, 40, 30, "Braggscope_fingerprint 4567", &err), ==,
                   NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "f.cbf"));
  g_assert_cmpint (nb_cbf_verify (path, 30, 40, NULL, &err), ==, NB_ERR_PARSE);

  /* the header items processing programs read, in CBF's CR LF lines */
  g_assert_true (g_file_get_contents (path, &text, &n, NULL));
  g_assert_nonnull (strstr (text, "# Pixel_size 172e-6 m x 172e-6 m\r\n"));
  g_assert_nonnull (strstr (text, "# Wavelength 0.98 A\r\n"));
  g_assert_nonnull (strstr (text, "# Detector_distance 0.15 m\r\n"));
  g_assert_nonnull (strstr (text, "# Start_angle 5 deg.\r\n"));
  g_assert_nonnull (strstr (text, "# Angle_increment 0.25 deg.\r\n"));
  g_assert_nonnull (strstr (text, "# Exposure_time 0.1 s\r\n"));
  g_assert_nonnull (strstr (text, "# Count_cutoff 65535 counts\r\n"));
  g_assert_nonnull (strstr (text, "# Silicon sensor, thickness 0.000450000 m\r\n"));

  /* a damaged byte of the compressed image fails the MD5 digest */
  damage (path, n - 4096 - 100);
  g_assert_cmpint (nb_cbf_verify (path, 40, 30, NULL, &err), ==, NB_ERR_PARSE);
  /* a cut file */
  g_assert_cmpint (truncate (path, (off_t) (n / 2)), ==, 0);
  g_assert_cmpint (nb_cbf_verify (path, 40, 30, NULL, &err), ==, NB_ERR_PARSE);
  nb_test_remove_tree (dir);
}

/* A frame's CBF and NeXus files join the caller's set of outputs like its SMV
 * file: nothing appears before nb_output_commit(), everything at it, nothing
 * after nb_output_abort() (the writers live in the CBF/NeXus module, which must
 * stage them in the engine's set, not in one of its own). */
static void
test_frame_files_together (void)
{
  g_autofree char *dir = g_dir_make_tmp ("nb-series-XXXXXX", NULL);
  g_autofree char *cbf = g_build_filename (dir, "f.cbf", NULL);
  g_autofree char *h5 = g_build_filename (dir, "f.h5", NULL);
  g_autofree char *dropped = g_build_filename (dir, "g.h5", NULL);
  g_autofree int32_t *px = NULL;
  const char *keys[1] = { "k" }, *values[1] = { "v" };
  nb_frame_geometry g;
  nb_error err = { 0 };
  GDir *d;

  if (!nb_cbf_available () || !nb_nexus_available ())
    {
      g_test_skip ("no CBFlib or no libhdf5 in this build");
      return;
    }
  sample_geometry (&g);
  px = sample_pixels (&g);
  nb_output_begin ();
  g_assert_cmpint (nb_write_cbf (cbf, &g, px, NULL, &err), ==, NB_OK);
  g_assert_cmpint (nb_write_nexus_frame (h5, &g, px, keys, values, 1, &err), ==, NB_OK);
  g_assert_false (g_file_test (cbf, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (h5, G_FILE_TEST_EXISTS));
  g_assert_cmpint (nb_output_commit (&err), ==, NB_OK);
  g_assert_true (g_file_test (cbf, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (h5, G_FILE_TEST_IS_REGULAR));

  nb_output_begin ();
  g_assert_cmpint (nb_write_nexus_frame (dropped, &g, px, keys, values, 1, &err), ==, NB_OK);
  nb_output_abort ();
  /* neither the file nor its temporary name is left */
  d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  for (const char *name; (name = g_dir_read_name (d)) != NULL;)
    g_assert_true (strcmp (name, "f.cbf") == 0 || strcmp (name, "f.h5") == 0);
  g_dir_close (d);
  nb_test_remove_tree (dir);
}

static void
test_nexus_round_trip (void)
{
  g_autofree char *dir = g_dir_make_tmp ("nb-series-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "f_000001.h5", NULL);
  g_autofree char *path2 = g_build_filename (dir, "f_000002.h5", NULL);
  g_autofree char *master = g_build_filename (dir, "f_master.h5", NULL);
  g_autofree char *a = NULL, *b = NULL;
  g_autofree int32_t *px = NULL;
  const char *keys[1] = { "braggscope_fingerprint" }, *values[1] = { "0123" };
  const char *names[2] = { "f_000001.h5", "f_000002.h5" };
  double omega[2];
  nb_frame_geometry g;
  nb_error err = { 0 };
  gsize na = 0, nb = 0;

  if (!nb_nexus_available ())
    {
      g_test_skip ("no libhdf5 in this build");
      return;
    }
  sample_geometry (&g);
  px = sample_pixels (&g);
  g_assert_cmpint (nb_write_nexus_frame (path, &g, px, keys, values, 1, &err), ==, NB_OK);
  g_assert_cmpint (nb_write_nexus_frame (path2, &g, px, keys, values, 1, &err), ==, NB_OK);
  /* no time stamps: the same frame, the same bytes */
  g_assert_true (g_file_get_contents (path, &a, &na, NULL));
  g_assert_true (g_file_get_contents (path2, &b, &nb, NULL));
  g_assert_cmpmem (a, na, b, nb);
  g_assert_cmpint (nb_nexus_verify_frame (path, 40, 30, "braggscope_fingerprint", "0123", &err), ==,
                   NB_OK);
  g_assert_cmpint (nb_nexus_verify_frame (path, 40, 30, "braggscope_fingerprint", "9", &err), ==,
                   NB_ERR_PARSE);
  g_assert_cmpint (nb_nexus_verify_frame (path, 30, 40, NULL, NULL, &err), ==, NB_ERR_PARSE);
  omega[0] = g.start_angle;
  omega[1] = g.start_angle + g.angle_increment;
  g_assert_cmpint (nb_write_nexus_master (master, &g, 2, omega, names, &err), ==, NB_OK);

  /* a cut frame file is refused */
  g_assert_cmpint (truncate (path2, (off_t) (nb - 200)), ==, 0);
  g_assert_cmpint (nb_nexus_verify_frame (path2, 40, 30, NULL, NULL, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "f_000002.h5"));
  nb_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/series/hash", test_hash_pure);
  g_test_add_func ("/series/orientation/uniform", test_orientation_uniform);
  g_test_add_func ("/series/orientation/misset", test_orientation_misset);
  g_test_add_func ("/series/cbf/round-trip", test_cbf_round_trip);
  g_test_add_func ("/series/nexus/round-trip", test_nexus_round_trip);
  g_test_add_func ("/series/frame-files-together", test_frame_files_together);
  return g_test_run ();
}
