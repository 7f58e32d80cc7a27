/* test-series.c: the series' counter-based random choices (nb-series.h),
 * SHA-256 and the frames' fingerprints (nb-fingerprint.h), the check of a
 * frame's parameters before any is made, and the frame writers
 * (nb-frame-write.h): CBF and NeXus files written, read back and verified,
 * and damaged or edited files refused. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "nb-fingerprint.h"
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

/* The whole of @path, read as nanobragg-series reads a frame's file. */
static void *
read_back (const char *path, gsize *n)
{
  void *bytes = NULL;
  size_t size = 0;
  nb_error err = { 0 };

  if (nb_read_regular_file (path, 1 << 24, &bytes, &size, &err) != NB_OK)
    g_error ("%s", err.message);
  *n = size;
  return bytes;
}

/* Replaces the first @from in the file @path by @to (as long). */
static void
edit (const char *path, const char *from, const char *to)
{
  g_autofree char *data = NULL;
  gsize n = 0;
  char *at;

  g_assert_cmpuint (strlen (from), ==, strlen (to));
  g_assert_true (g_file_get_contents (path, &data, &n, NULL));
  at = memmem (data, n, from, strlen (from));
  g_assert_nonnull (at);
  memcpy (at, to, strlen (to));
  g_assert_true (g_file_set_contents (path, data, (gssize) n, NULL));
}

static nb_status
cbf_verify_file (const char *path, int f, int s, const nb_sha256 *key, nb_error *err)
{
  gsize n = 0;
  g_autofree void *bytes = read_back (path, &n);

  return nb_cbf_verify (path, bytes, n, f, s, key, err);
}

static void
test_cbf_round_trip (void)
{
  g_autofree char *dir = g_dir_make_tmp ("nb-series-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "f.cbf", NULL);
  g_autofree char *text = NULL;
  g_autofree int32_t *px = NULL;
  const char *words[2] = { "nanobragg", "-phi 5" }, *other[2] = { "nanobragg", "-phi 6" };
  nb_sha256 key, other_key;
  nb_frame_geometry g;
  nb_error err = { 0 };
  gsize n = 0;

  if (!nb_cbf_available ())
    {
      g_test_skip ("no CBFlib in this build");
      return;
    }
  nb_fingerprint_begin (&key, words, 2);
  nb_fingerprint_begin (&other_key, other, 2);
  sample_geometry (&g);
  px = sample_pixels (&g);
  g_assert_cmpint (nb_write_cbf (path, &g, px, "# Extra 1\n", &key, &err), ==, NB_OK);
  if (cbf_verify_file (path, 40, 30, &key, &err) != NB_OK)
    g_error ("%s", err.message);
  /* another frame's parameters */
  g_assert_cmpint (cbf_verify_file (path, 40, 30, &other_key, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "f.cbf: fingerprint differs"));
  g_assert_cmpint (cbf_verify_file (path, 30, 40, &key, &err), ==, NB_ERR_PARSE);

  /* the header items processing programs read, in CBF's CR LF lines of at
   * most 80 characters (a longer one folds the text field) */
  g_assert_true (g_file_get_contents (path, &text, &n, NULL));
  g_assert_nonnull (strstr (text, "# Pixel_size 172e-6 m x 172e-6 m\r\n"));
  g_assert_nonnull (strstr (text, "# Wavelength 0.98 A\r\n"));
  g_assert_nonnull (strstr (text, "# Detector_distance 0.15 m\r\n"));
  g_assert_nonnull (strstr (text, "# Start_angle 5 deg.\r\n"));
  g_assert_nonnull (strstr (text, "# Angle_increment 0.25 deg.\r\n"));
  g_assert_nonnull (strstr (text, "# Exposure_time 0.1 s\r\n"));
  g_assert_nonnull (strstr (text, "# Count_cutoff 65535 counts\r\n"));
  g_assert_nonnull (strstr (text, "# Silicon sensor, thickness 0.000450000 m\r\n"));
  g_assert_nonnull (strstr (text, "# Extra 1\r\n# Braggscope_fp "));
  g_assert_null (strstr (text, ";\\"));

  /* an edited header: CBFlib's MD5 digest covers the binary section only */
  edit (path, "# Wavelength 0.98 A", "# Wavelength 8.82 A");
  g_assert_cmpint (cbf_verify_file (path, 40, 30, NULL, &err), ==, NB_OK);
  g_assert_cmpint (cbf_verify_file (path, 40, 30, &key, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "fingerprint differs"));
  edit (path, "# Wavelength 8.82 A", "# Wavelength 0.98 A");
  g_assert_cmpint (cbf_verify_file (path, 40, 30, &key, &err), ==, NB_OK);
  /* the fingerprint line gone */
  edit (path, "# Braggscope_fp ", "# Braggscope_FP ");
  g_assert_cmpint (cbf_verify_file (path, 40, 30, &key, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "no fingerprint"));
  edit (path, "# Braggscope_FP ", "# Braggscope_fp ");

  /* a damaged byte of the compressed image fails the MD5 digest */
  damage (path, n - 4096 - 100);
  g_assert_cmpint (cbf_verify_file (path, 40, 30, NULL, &err), ==, NB_ERR_PARSE);
  g_assert_cmpint (cbf_verify_file (path, 40, 30, &key, &err), ==, NB_ERR_PARSE);
  /* a cut file */
  g_assert_cmpint (truncate (path, (off_t) (n / 2)), ==, 0);
  g_assert_cmpint (cbf_verify_file (path, 40, 30, NULL, &err), ==, NB_ERR_PARSE);
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
  g_assert_cmpint (nb_write_cbf (cbf, &g, px, NULL, NULL, &err), ==, NB_OK);
  g_assert_cmpint (nb_write_nexus_frame (h5, &g, px, keys, values, 1, NULL, &err), ==, NB_OK);
  g_assert_false (g_file_test (cbf, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (h5, G_FILE_TEST_EXISTS));
  g_assert_cmpint (nb_output_commit (&err), ==, NB_OK);
  g_assert_true (g_file_test (cbf, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (h5, G_FILE_TEST_IS_REGULAR));

  nb_output_begin ();
  g_assert_cmpint (nb_write_nexus_frame (dropped, &g, px, keys, values, 1, NULL, &err), ==, NB_OK);
  nb_output_abort ();
  /* neither the file nor its temporary name is left */
  d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  for (const char *name; (name = g_dir_read_name (d)) != NULL;)
    g_assert_true (strcmp (name, "f.cbf") == 0 || strcmp (name, "f.h5") == 0);
  g_dir_close (d);
  nb_test_remove_tree (dir);
}

static nb_status
nexus_verify_file (const char *path, int f, int s, const nb_sha256 *key, nb_error *err)
{
  gsize n = 0;
  g_autofree void *bytes = read_back (path, &n);

  return nb_nexus_verify_frame (path, bytes, n, f, s, key, err);
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
  const char *keys[1] = { "braggscope_command" }, *values[1] = { "nanobragg -phi 5" };
  const char *words[2] = { "nanobragg", "-phi 5" }, *other[2] = { "nanobragg", "-phi 6" };
  const char *names[2] = { "f_000001.h5", "f_000002.h5" };
  nb_sha256 key, other_key;
  double omega[2];
  nb_frame_geometry g;
  nb_error err = { 0 };
  gsize na = 0, nb = 0;

  if (!nb_nexus_available ())
    {
      g_test_skip ("no libhdf5 in this build");
      return;
    }
  nb_fingerprint_begin (&key, words, 2);
  nb_fingerprint_begin (&other_key, other, 2);
  sample_geometry (&g);
  px = sample_pixels (&g);
  g_assert_cmpint (nb_write_nexus_frame (path, &g, px, keys, values, 1, &key, &err), ==, NB_OK);
  g_assert_cmpint (nb_write_nexus_frame (path2, &g, px, keys, values, 1, &key, &err), ==, NB_OK);
  /* no time stamps: the same frame, the same bytes */
  g_assert_true (g_file_get_contents (path, &a, &na, NULL));
  g_assert_true (g_file_get_contents (path2, &b, &nb, NULL));
  g_assert_cmpmem (a, na, b, nb);
  if (nexus_verify_file (path, 40, 30, &key, &err) != NB_OK)
    g_error ("%s", err.message);
  g_assert_cmpint (nexus_verify_file (path, 40, 30, &other_key, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "fingerprint differs"));
  g_assert_cmpint (nexus_verify_file (path, 30, 40, NULL, &err), ==, NB_ERR_PARSE);
  omega[0] = g.start_angle;
  omega[1] = g.start_angle + g.angle_increment;
  g_assert_cmpint (nb_write_nexus_master (master, &g, 2, omega, names, &err), ==, NB_OK);

  /* an edited value outside the image (the command line, as long) */
  edit (path, "-phi 5", "-phi 9");
  g_assert_cmpint (nexus_verify_file (path, 40, 30, NULL, &err), ==, NB_OK);
  g_assert_cmpint (nexus_verify_file (path, 40, 30, &key, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "fingerprint differs"));
  /* a file without the attribute */
  g_assert_cmpint (nb_write_nexus_frame (path, &g, px, keys, values, 1, NULL, &err), ==, NB_OK);
  g_assert_cmpint (nexus_verify_file (path, 40, 30, &key, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "no fingerprint"));

  /* a cut frame file is refused */
  g_assert_cmpint (truncate (path2, (off_t) (nb - 200)), ==, 0);
  g_assert_cmpint (nexus_verify_file (path2, 40, 30, NULL, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "f_000002.h5"));
  nb_test_remove_tree (dir);
}

/* SHA-256 against FIPS 180-4's examples (one block, two blocks) and the
 * million 'a's of its test vectors, fed in pieces of every size from 1 to
 * 129 bytes so that each path through the block buffer is taken; with the x86
 * SHA extensions where the processor has them, and in plain C. */
static void
check_sha256 (void)
{
  static const struct
  {
    const char *text;
    const char *digest;
  } known[] = {
    { "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
    { "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
    { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
  };
  char hex[65];
  nb_sha256 s;

  for (gsize i = 0; i < G_N_ELEMENTS (known); i++)
    {
      nb_sha256_init (&s);
      nb_sha256_update (&s, known[i].text, strlen (known[i].text));
      nb_sha256_final (&s, hex);
      g_assert_cmpstr (hex, ==, known[i].digest);
    }
  for (gsize piece = 1; piece <= 129; piece += piece < 8 ? 1 : 11)
    {
      char a[129];

      memset (a, 'a', sizeof a);
      nb_sha256_init (&s);
      for (gsize done = 0; done < 1000000; done += piece)
        nb_sha256_update (&s, a, MIN (piece, 1000000 - done));
      nb_sha256_final (&s, hex);
      g_assert_cmpstr (hex, ==, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }
}

static void
test_sha256 (void)
{
  nb_sha256 s;

  nb_sha256_init (&s);
  g_test_message ("SHA-256 %s", s.sha_ni ? "with the x86 SHA extensions" : "in plain C");
  check_sha256 ();
  g_setenv ("NB_SHA256", "portable", TRUE);
  nb_sha256_init (&s);
  g_assert_false (s.sha_ni);
  check_sha256 ();
  g_unsetenv ("NB_SHA256");
}

/* A fingerprint covers the frame's words (their boundaries too) and every
 * byte but its own digits; sealing needs one place for it. */
static void
test_fingerprint (void)
{
  const char *ab[2] = { "ab", "c" }, *a_bc[2] = { "a", "bc" };
  nb_sha256 k1, k2;
  char marker_text[] =
      "head # fp 0000000000000000000000000000000000000000000000000000000000000000 tail";
  char copy[sizeof marker_text], h1[65], h2[65];
  nb_error err = { 0 };
  long long at;

  nb_fingerprint_begin (&k1, ab, 2);
  nb_fingerprint_begin (&k2, a_bc, 2);
  nb_fingerprint_of (&k1, "x", 1, SIZE_MAX, h1);
  nb_fingerprint_of (&k2, "x", 1, SIZE_MAX, h2);
  g_assert_cmpstr (h1, !=, h2);

  memcpy (copy, marker_text, sizeof copy);
  g_assert_cmpint (nb_fingerprint_seal (&k1, copy, sizeof copy, "# fp ", "t", &err), ==, NB_OK);
  at = nb_fingerprint_find (copy, sizeof copy, "# fp ", 5);
  g_assert_cmpint (at, ==, 5);
  g_assert_cmpint (nb_fingerprint_check (&k1, copy, sizeof copy, (size_t) at + 5, "t", &err), ==,
                   NB_OK);
  g_assert_cmpint (nb_fingerprint_check (&k2, copy, sizeof copy, (size_t) at + 5, "t", &err), ==,
                   NB_ERR_PARSE);
  g_assert_cmpstr (err.message, ==, "t: fingerprint differs");
  /* any other byte */
  copy[sizeof copy - 2] ^= 1;
  g_assert_cmpint (nb_fingerprint_check (&k1, copy, sizeof copy, (size_t) at + 5, "t", &err), ==,
                   NB_ERR_PARSE);
  /* no place, or two */
  g_assert_cmpint (nb_fingerprint_seal (&k1, copy, sizeof copy, "# fp ", "t", &err), ==,
                   NB_ERR_INVALID);
  g_assert_cmpint (nb_fingerprint_find ("aXaXa", 5, "aXa", 3), ==, -2);
  g_assert_cmpint (nb_fingerprint_find ("aXaXa", 5, "Xa", 2), ==, -2);
  g_assert_cmpint (nb_fingerprint_find ("aXaXa", 5, "aXaX", 4), ==, 0);
  g_assert_cmpint (nb_fingerprint_find ("aXaXa", 5, "aXaXa", 5), ==, 0);
  g_assert_cmpint (nb_fingerprint_find ("aXaXa", 5, "b", 1), ==, -1);
}

/* Files a frame's checks must not trust: a link, a pipe (not waited on), a
 * folder, one larger than its kind can be. */
static void
test_read_regular_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("nb-series-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir, "f", NULL);
  g_autofree char *link = g_build_filename (dir, "l", NULL);
  g_autofree char *fifo = g_build_filename (dir, "p", NULL);
  void *bytes = NULL;
  size_t size = 0;
  nb_error err = { 0 };

  g_assert_true (g_file_set_contents (file, "12345", 5, NULL));
  g_assert_cmpint (symlink ("f", link), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (nb_read_regular_file (file, 5, &bytes, &size, &err), ==, NB_OK);
  g_assert_cmpmem (bytes, size, "12345", 5);
  free (bytes);
  g_assert_cmpint (nb_read_regular_file (file, 4, &bytes, &size, &err), ==, NB_ERR_PARSE);
  g_assert_null (bytes);
  g_assert_cmpint (nb_read_regular_file (link, 5, &bytes, &size, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, "a symbolic link"));
  g_assert_cmpint (nb_read_regular_file (fifo, 5, &bytes, &size, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, "not a regular file"));
  g_assert_cmpint (nb_read_regular_file (dir, 5, &bytes, &size, &err), ==, NB_ERR_IO);
  nb_test_remove_tree (dir);
}

/* A frame is checked before any is made: the memory budget counts what the
 * series holds per pixel; a frame the plan itself would refuse is refused. */
static void
test_check_frame (void)
{
  const char *big[] = {
    "nanobragg", "-default_F", "1",    "-cell",          "50", "60", "70", "90", "90",
    "90",        "-detpixels", "3000", "-memory_budget", "100"
  };
  const char *bad[] = { "nanobragg", "-default_F", "1",  "-cell",     "50",     "60",   "70",
                        "90",        "90",         "90", "-phisteps", "200000", "-osc", "1" };
  nb_params p;
  nb_error err = { 0 };

  nb_params_init (&p);
  g_assert_cmpint (nb_params_parse_argv (&p, G_N_ELEMENTS (big), big, &err), ==, NB_OK);
  /* 9 M pixels: 7 bytes a pixel fit in 100 MB, 36 do not */
  g_assert_cmpint (nb_series_check_frame (&p, 7, &err), ==, NB_OK);
  g_assert_cmpint (nb_series_check_frame (&p, 36, &err), ==, NB_ERR_NOMEM);
  g_assert_nonnull (strstr (err.message, "memory budget"));
  nb_params_clear (&p);
  nb_params_init (&p);
  g_assert_cmpint (nb_params_parse_argv (&p, G_N_ELEMENTS (bad), bad, &err), ==, NB_OK);
  g_assert_cmpint (nb_series_check_frame (&p, 36, &err), ==, NB_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "-phisteps 200000"));
  nb_params_clear (&p);
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
  g_test_add_func ("/series/sha256", test_sha256);
  g_test_add_func ("/series/fingerprint", test_fingerprint);
  g_test_add_func ("/series/read-regular-file", test_read_regular_file);
  g_test_add_func ("/series/check-frame", test_check_frame);
  return g_test_run ();
}
