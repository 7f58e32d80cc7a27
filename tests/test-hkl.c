/* test-hkl.c: HKL files, the padded grid, Fdump, tricubic interpolation, and
 * the small text inputs (tables and matrices). */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/nb-hkl.h"
#include "base/nb-textfile.h"

/* Per-run scratch folder for the files the tests write. */
static char *scratch_dir;

/* write_scratch: @contents (@len bytes, or a C string when -1) into a new file
 * of the scratch folder; returns its path. */
static char *
write_scratch (const char *name, const char *contents, gssize len)
{
  g_autoptr (GError) error = NULL;
  char *path = g_build_filename (scratch_dir, name, NULL);

  g_file_set_contents (path, contents, len, &error);
  g_assert_no_error (error);
  return path;
}

static size_t
cell (const nb_hkl_grid *g, int h, int k, int l)
{
  return ((size_t) (h - g->h_min) * (size_t) (g->k_range + 1) + (size_t) (k - g->k_min)) *
             (size_t) (g->l_range + 1) +
         (size_t) (l - g->l_min);
}

static size_t
cells (const nb_hkl_grid *g)
{
  return (size_t) (g->h_range + 1) * (size_t) (g->k_range + 1) * (size_t) (g->l_range + 1);
}

/* read_hkl_text: nb_hkl_read() of @contents, which must succeed. */
static void
read_hkl_text (const char *contents, double default_F, nb_hkl_grid *g)
{
  g_autofree char *path = write_scratch ("in.hkl", contents, -1);
  nb_error err = { 0 };

  g_assert_cmpint (nb_hkl_read (path, default_F, g, &err), ==, NB_OK);
  g_assert_cmpstr (err.message, ==, "");
  g_remove (path);
}

/* The reference's [h][k][l] layout with one zero plane at the top of each
 * axis; ranges are counts. */
static void
test_read_layout (void)
{
  nb_hkl_grid g;

  read_hkl_text ("1 2 3 10\n"
                 "2 2 3 20\n"
                 "1 4 3 30\n"
                 "1 2 6 40\n"
                 "3 5 7 50\n",
                 0.0, &g);
  g_assert_cmpint (g.h_min, ==, 1);
  g_assert_cmpint (g.h_max, ==, 3);
  g_assert_cmpint (g.k_min, ==, 2);
  g_assert_cmpint (g.k_max, ==, 5);
  g_assert_cmpint (g.l_min, ==, 3);
  g_assert_cmpint (g.l_max, ==, 7);
  g_assert_cmpint (g.h_range, ==, 3);
  g_assert_cmpint (g.k_range, ==, 4);
  g_assert_cmpint (g.l_range, ==, 5);
  g_assert_cmpint (g.hkls, ==, 5);

  /* Strides by hand: l fastest, (l_range + 1) per k row, (k_range + 1) rows
   * per h plane. */
  g_assert_cmpfloat (g.F[0], ==, 10.0);
  g_assert_cmpfloat (g.F[1 * 5 * 6], ==, 20.0);
  g_assert_cmpfloat (g.F[2 * 6], ==, 30.0);
  g_assert_cmpfloat (g.F[3], ==, 40.0);
  g_assert_cmpfloat (g.F[(2 * 5 + 3) * 6 + 4], ==, 50.0);

  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 3, 5, 7, -1.0), ==, 50.0);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 2, 3, 4, -1.0), ==, 0.0);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 4, 5, 7, -1.0), ==, -1.0);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 0, 2, 3, -1.0), ==, -1.0);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 1, 2, 8, -1.0), ==, -1.0);

  {
    double sum = 0.0;

    for (size_t i = 0; i < cells (&g); i++)
      sum += g.F[i];
    g_assert_cmpfloat (sum, ==, 150.0);
  }
  nb_hkl_grid_clear (&g);
  g_assert_null (g.F);
  g_assert_cmpint (g.hkls, ==, 0);
}

static void
test_read_default_F (void)
{
  nb_hkl_grid g;
  size_t n_default = 0, n_zero = 0;

  read_hkl_text ("0 0 0 5\n2 1 3 7\n", 2.5, &g);
  g_assert_cmpint (g.h_range, ==, 3);
  g_assert_cmpint (g.k_range, ==, 2);
  g_assert_cmpint (g.l_range, ==, 4);

  for (int h = 0; h <= g.h_range; h++)
    for (int k = 0; k <= g.k_range; k++)
      for (int l = 0; l <= g.l_range; l++)
        {
          double F = g.F[cell (&g, h + g.h_min, k + g.k_min, l + g.l_min)];
          int padding = h == g.h_range || k == g.k_range || l == g.l_range;

          if (padding)
            {
              g_assert_cmpfloat (F, ==, 0.0);
              n_zero++;
            }
          else if (!(h == 0 && k == 0 && l == 0) && !(h == 2 && k == 1 && l == 3))
            {
              g_assert_cmpfloat (F, ==, 2.5);
              n_default++;
            }
        }
  g_assert_cmpuint (n_default, ==, 3 * 2 * 4 - 2);
  g_assert_cmpuint (n_zero, ==, 4 * 3 * 5 - 3 * 2 * 4);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 0, 0, 0, 0.0), ==, 5.0);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 2, 1, 3, 0.0), ==, 7.0);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 1, 1, 1, 0.0), ==, 2.5);
  nb_hkl_grid_clear (&g);

  /* default_F == 0: nothing is pre-filled. */
  read_hkl_text ("0 0 0 5\n2 1 3 7\n", 0.0, &g);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 1, 1, 1, 9.0), ==, 0.0);
  nb_hkl_grid_clear (&g);
}

static void
test_read_duplicates (void)
{
  nb_hkl_grid g;

  read_hkl_text ("1 1 1 3\n0 0 0 1\n1 1 1 4\n", 0.0, &g);
  g_assert_cmpint (g.hkls, ==, 3);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 1, 1, 1, 0.0), ==, 4.0);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 0, 0, 0, 0.0), ==, 1.0);
  nb_hkl_grid_clear (&g);
}

/* A file that does not span index 0 keeps its own range. */
static void
test_read_negative (void)
{
  nb_hkl_grid g;

  read_hkl_text ("-3 -7 -2 1.5\n-1 -5 -2 2.5\n-2 -6 -4 -3.5\n", 0.0, &g);
  g_assert_cmpint (g.h_min, ==, -3);
  g_assert_cmpint (g.h_max, ==, -1);
  g_assert_cmpint (g.k_min, ==, -7);
  g_assert_cmpint (g.k_max, ==, -5);
  g_assert_cmpint (g.l_min, ==, -4);
  g_assert_cmpint (g.l_max, ==, -2);
  g_assert_cmpint (g.h_range, ==, 3);
  g_assert_cmpint (g.k_range, ==, 3);
  g_assert_cmpint (g.l_range, ==, 3);
  g_assert_cmpfloat (g.F[2], ==, 1.5);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, -1, -5, -2, 0.0), ==, 2.5);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, -2, -6, -4, 0.0), ==, -3.5);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 0, -5, -2, 8.0), ==, 8.0);
  nb_hkl_grid_clear (&g);
}

static void
test_read_comments (void)
{
  nb_hkl_grid g;

  read_hkl_text ("# h k l F\n"
                 "\n"
                 "   ! written by hand\r\n"
                 "\t1 0 0 +2.0e1\r\n"
                 "  \t \n"
                 "#9 9 9 9\n"
                 "0\t0 -1 .5", /* no final newline */
                 0.0, &g);
  g_assert_cmpint (g.hkls, ==, 2);
  g_assert_cmpint (g.h_max, ==, 1);
  g_assert_cmpint (g.l_min, ==, -1);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 1, 0, 0, 0.0), ==, 20.0);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 0, 0, -1, 0.0), ==, 0.5);
  nb_hkl_grid_clear (&g);
}

/* Sigma and phase columns are ignored, unlike the reference's stream reader
 * (quirk Q-23). */
static void
test_read_extra_columns (void)
{
  nb_hkl_grid g4, g5;

  read_hkl_text ("1 2 3 10.5\n-1 0 2 7.25\n0 0 0 1e3\n", 0.0, &g4);
  read_hkl_text ("1 2 3 10.5 0.3\n-1 0 2 7.25 0.1 45.0\n0 0 0 1e3 9 # F000\n", 0.0, &g5);
  g_assert_cmpint (g5.hkls, ==, g4.hkls);
  g_assert_cmpint (g5.h_min, ==, g4.h_min);
  g_assert_cmpint (g5.l_max, ==, g4.l_max);
  g_assert_cmpuint (cells (&g5), ==, cells (&g4));
  g_assert_cmpmem (g5.F, cells (&g5) * sizeof (double), g4.F, cells (&g4) * sizeof (double));
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g5, -1, 0, 2, 0.0), ==, 7.25);
  nb_hkl_grid_clear (&g4);
  nb_hkl_grid_clear (&g5);
}

static void
test_read_errors (void)
{
  static const struct
  {
    const char *contents;
    nb_status code;
    int line; /* 0: the message names no line */
  } cases[] = {
    { "1 2 3 4\n# fine\n1 2 x 4\n", NB_ERR_PARSE, 3 },
    { "1 2 3 4\n1.0 2 3 4\n", NB_ERR_PARSE, 2 },
    { "1 2 3 4\n\n1 2 3\n", NB_ERR_PARSE, 3 },
    { "1 2 3 4\n1 2 3 4x\n", NB_ERR_PARSE, 2 },
    { "1 2 3 nan\n", NB_ERR_PARSE, 1 },
    { "1 2 3 4\n1 2 3 inf\n", NB_ERR_PARSE, 2 },
    { "H K L F\n1 2 3 4\n", NB_ERR_PARSE, 1 },
    { "1,2,3,4\n", NB_ERR_PARSE, 1 },
    { "1 2 3 4\n0 0 1025 1\n", NB_ERR_INVALID, 2 },
    { "-1025 0 0 1\n", NB_ERR_INVALID, 1 },
    { "1 99999999999999999999 0 1\n", NB_ERR_INVALID, 1 },
    { "# nothing\n\n", NB_ERR_INVALID, 0 },
    { "", NB_ERR_INVALID, 0 },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("bad%zu.hkl", i);
      g_autofree char *path = write_scratch (name, cases[i].contents, -1);
      g_autofree char *shown = g_strescape (cases[i].contents, NULL);
      nb_hkl_grid g;
      nb_error err = { 0 };

      g_test_message ("case %zu: \"%s\"", i, shown);
      g_assert_cmpint (nb_hkl_read (path, 0.0, &g, &err), ==, cases[i].code);
      g_assert_cmpint (err.code, ==, cases[i].code);
      g_assert_null (g.F);
      g_assert_nonnull (strstr (err.message, path));
      if (cases[i].line > 0)
        {
          g_autofree char *where = g_strdup_printf ("%s:%d: ", path, cases[i].line);

          g_assert_true (g_str_has_prefix (err.message, where));
        }
      g_remove (path);
    }

  /* A binary file where text belongs. */
  {
    g_autofree char *path = write_scratch ("binary.hkl", "0 0 0 1\n1\0 2 3 4\n", 16);
    nb_hkl_grid g;
    nb_error err = { 0 };

    g_assert_cmpint (nb_hkl_read (path, 0.0, &g, &err), ==, NB_ERR_PARSE);
    g_assert_nonnull (strstr (err.message, ":2: "));
    g_remove (path);
  }
  {
    g_autofree char *path = g_build_filename (scratch_dir, "absent.hkl", NULL);
    nb_hkl_grid g;
    nb_error err = { 0 };

    g_assert_cmpint (nb_hkl_read (path, 0.0, &g, &err), ==, NB_ERR_IO);
    g_assert_nonnull (strstr (err.message, path));
  }
}

/* Structure factors are read with a fast path for plain decimals and strtod
 * for the rest: every way of writing F must give strtod's double, bit for
 * bit (the golden images in double precision depend on it). */
static void
test_read_numbers (void)
{
  static const char *const fixed[] = {
    "0",
    "-0",
    "+0.0",
    "57.35",
    "1.",
    ".5",
    "-.5",
    "1e22",
    "1e23",
    "1e-22",
    "1e-23",
    "2.5E+3",
    "0x1.8p3",
    "9007199254740992",
    "9007199254740993",
    "123456789012345678901",
    "0.1",
    "0.30000000000000004",
    "4.9e-324",
    "1.7976931348623157e308",
    "00012.5000",
    "3.14159265358979323846",
  };
  const int n_random = 20000;
  int n = (int) G_N_ELEMENTS (fixed) + n_random;
  GString *text = g_string_new (NULL);
  g_autoptr (GPtrArray) tokens = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *path = NULL;
  nb_hkl_grid g;
  nb_error err = { 0 };

  for (int i = 0; i < n; i++)
    {
      char *token;

      if (i < (int) G_N_ELEMENTS (fixed))
        token = g_strdup (fixed[i]);
      else
        {
          double v =
              g_test_rand_double_range (-1.0, 1.0) * pow (10.0, g_test_rand_int_range (-8, 9));
          int digits = g_test_rand_int_range (0, 18);

          switch (g_test_rand_int_range (0, 4))
            {
              case 0:
                token = g_strdup_printf ("%.*f", digits, v);
                break;
              case 1:
                token = g_strdup_printf ("%.*e", digits, v);
                break;
              case 2:
                token = g_strdup_printf ("%.17g", v);
                break;
              default:
                token = g_strdup_printf ("%.*g", digits + 1, v);
                break;
            }
        }
      g_string_append_printf (text, "%d %d %d %s\n", i % 50, (i / 50) % 50, i / 2500, token);
      g_ptr_array_add (tokens, token);
    }
  path = write_scratch ("numbers.hkl", text->str, (gssize) text->len);
  g_string_free (text, TRUE);
  g_assert_cmpint (nb_hkl_read (path, 0.0, &g, &err), ==, NB_OK);
  for (int i = 0; i < n; i++)
    {
      const char *token = g_ptr_array_index (tokens, i);
      double expected = g_ascii_strtod (token, NULL);
      double got = g.F[cell (&g, i % 50, (i / 50) % 50, i / 2500)];

      if (memcmp (&got, &expected, sizeof got) != 0)
        g_error ("F '%s': read %.17g, strtod gives %.17g", token, got, expected);
    }
  nb_hkl_grid_clear (&g);
  g_remove (path);
}

static char *
data_1hpv_path (void)
{
  const char *dir = g_getenv ("NB_DATA_DIR");

  if (dir != NULL)
    return g_build_filename (dir, "1hpv_p1.hkl", NULL);
  return g_test_build_filename (G_TEST_DIST, "..", "data", "1hpv_p1.hkl", NULL);
}

static void
test_read_1hpv (void)
{
  g_autofree char *path = data_1hpv_path ();
  nb_hkl_grid g;
  nb_error err = { 0 };
  gint64 t0, t1;

  t0 = g_get_monotonic_time ();
  g_assert_cmpint (nb_hkl_read (path, 0.0, &g, &err), ==, NB_OK);
  t1 = g_get_monotonic_time ();
  g_test_message ("read %s in %.1f ms", path, (t1 - t0) / 1000.0);

  g_assert_cmpint (g.hkls, ==, 152676);
  g_assert_cmpint (g.h_min, ==, -31);
  g_assert_cmpint (g.h_max, ==, 31);
  g_assert_cmpint (g.k_min, ==, -31);
  g_assert_cmpint (g.k_max, ==, 31);
  g_assert_cmpint (g.l_min, ==, -41);
  g_assert_cmpint (g.l_max, ==, 41);
  g_assert_cmpint (g.h_range, ==, 63);
  g_assert_cmpint (g.k_range, ==, 63);
  g_assert_cmpint (g.l_range, ==, 83);
  /* First and last lines of the file. */
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, -31, 10, -2, 0.0), ==, 57.35);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 31, -10, 2, 0.0), ==, 57.35);
  nb_hkl_grid_clear (&g);
}

/* physics.md §15.2's verified example: h, k in {0,1,2}, l = 0. */
static void
test_dump_header (void)
{
  GString *text = g_string_new (NULL);
  g_autofree char *dump = g_build_filename (scratch_dir, "Fdump.bin", NULL);
  g_autofree char *bytes = NULL;
  gsize len = 0;
  nb_hkl_grid g;
  nb_error err = { 0 };
  static const char header[] = "0 2 0 2 0 0\n\f";
  const size_t header_len = sizeof header - 1;
  double data[32];

  for (int h = 0; h <= 2; h++)
    for (int k = 0; k <= 2; k++)
      g_string_append_printf (text, "%d %d 0 %d\n", h, k, 10 * h + k + 1);
  read_hkl_text (text->str, 0.0, &g);
  g_string_free (text, TRUE);

  /* (h_range + 1)(k_range + 1)(l_range + 1) = 4 * 4 * 2 doubles. */
  g_assert_cmpuint (cells (&g), ==, 32);
  g_assert_cmpint (nb_hkl_write_dump (dump, &g, &err), ==, NB_OK);
  g_assert_true (g_file_get_contents (dump, &bytes, &len, NULL));
  g_assert_cmpuint (len, ==, header_len + 32 * sizeof (double));
  g_assert_cmpmem (bytes, header_len, header, header_len);

  memcpy (data, bytes + header_len, sizeof data);
  for (int h = 0; h < 4; h++)
    for (int k = 0; k < 4; k++)
      for (int l = 0; l < 2; l++)
        {
          double want = (h < 3 && k < 3 && l == 0) ? 10 * h + k + 1 : 0.0;

          g_assert_cmpfloat (data[(h * 4 + k) * 2 + l], ==, want);
        }
  nb_hkl_grid_clear (&g);
  g_remove (dump);
}

static void
assert_grids_equal (const nb_hkl_grid *a, const nb_hkl_grid *b)
{
  g_assert_cmpint (a->h_min, ==, b->h_min);
  g_assert_cmpint (a->h_max, ==, b->h_max);
  g_assert_cmpint (a->k_min, ==, b->k_min);
  g_assert_cmpint (a->k_max, ==, b->k_max);
  g_assert_cmpint (a->l_min, ==, b->l_min);
  g_assert_cmpint (a->l_max, ==, b->l_max);
  g_assert_cmpint (a->h_range, ==, b->h_range);
  g_assert_cmpint (a->k_range, ==, b->k_range);
  g_assert_cmpint (a->l_range, ==, b->l_range);
  g_assert_cmpmem (a->F, cells (a) * sizeof (double), b->F, cells (b) * sizeof (double));
}

static void
test_dump_round_trip (void)
{
  g_autofree char *dump = g_build_filename (scratch_dir, "round.bin", NULL);
  nb_hkl_grid g, back;
  nb_error err = { 0 };
  double tricky;
  uint64_t bits = G_GUINT64_CONSTANT (0x405900000000200c);

  read_hkl_text ("-2 3 -1 1.25\n4 -1 2 -8\n0 0 0 3e7\n1 1 1 0.1\n", 1.5, &g);
  /* A first double whose leading bytes (little-endian) are form feed and
   * space: the reference's fscanf("...\n\f") would swallow them. */
  memcpy (&tricky, &bits, sizeof tricky);
  g.F[0] = tricky;

  g_assert_cmpint (nb_hkl_write_dump (dump, &g, &err), ==, NB_OK);
  g_assert_cmpint (nb_hkl_read_dump (dump, &back, &err), ==, NB_OK);
  assert_grids_equal (&g, &back);
  /* The reference's count from a dump is cells, not reflections. */
  g_assert_cmpint (back.hkls, ==, (long) g.h_range * g.k_range * g.l_range);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&back, 4, -1, 2, 0.0), ==, -8.0);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&back, 1, 0, 0, 0.0), ==, 1.5);

  /* Writing again replaces the file. */
  nb_hkl_grid_clear (&back);
  g.F[cell (&g, 1, 1, 1)] = 42.0;
  g_assert_cmpint (nb_hkl_write_dump (dump, &g, &err), ==, NB_OK);
  g_assert_cmpint (nb_hkl_read_dump (dump, &back, &err), ==, NB_OK);
  assert_grids_equal (&g, &back);

  nb_hkl_grid_clear (&back);
  nb_hkl_grid_clear (&g);
  g_remove (dump);
}

static void
test_dump_errors (void)
{
  static const struct
  {
    const char *contents;
    gssize len;
  } cases[] = {
    { "0 2 0 2 0 0\n\f", -1 },           /* no data */
    { "0 2 0 2 0 0\n\f0123456789", -1 }, /* short data */
    { "0 2 0 2 0\n\f", -1 },             /* five numbers */
    { "0 2 0 2 0 0\n", -1 },             /* no form feed */
    { "2 0 0 2 0 0\n\f", -1 },           /* min > max */
    { "0 2000 0 2 0 0\n\f", -1 },        /* index too large */
    { "", 0 },
    { "\x00\x00\x00\x00\x00\x00\x00\x00", 8 },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = write_scratch ("bad.bin", cases[i].contents, cases[i].len);
      nb_hkl_grid g;
      nb_error err = { 0 };

      g_test_message ("case %zu", i);
      g_assert_cmpint (nb_hkl_read_dump (path, &g, &err), ==, NB_ERR_PARSE);
      g_assert_null (g.F);
      g_assert_nonnull (strstr (err.message, path));
      g_remove (path);
    }

  {
    g_autofree char *path = g_build_filename (scratch_dir, "absent.bin", NULL);
    g_autofree char *unwritable = g_build_filename (scratch_dir, "no", "such", "dir", NULL);
    nb_hkl_grid g;
    nb_error err = { 0 };

    g_assert_cmpint (nb_hkl_read_dump (path, &g, &err), ==, NB_ERR_IO);
    read_hkl_text ("0 0 0 1\n", 0.0, &g);
    g_assert_cmpint (nb_hkl_write_dump (unwritable, &g, &err), ==, NB_ERR_IO);
    nb_hkl_grid_clear (&g);
  }
}

/* grid.hkl of physics.md §23: every h, k, l in [-6, 6]. */
static double
grid_F (int h, int k, int l)
{
  return 100 + 10 * h - 7 * k + 3 * l + ((h * k * l) % 5);
}

static void
make_grid (double (*f) (int, int, int), nb_hkl_grid *g)
{
  GString *text = g_string_new (NULL);

  for (int h = -6; h <= 6; h++)
    for (int k = -6; k <= 6; k++)
      for (int l = -6; l <= 6; l++)
        g_string_append_printf (text, "%d %d %d %.17g\n", h, k, l, f (h, k, l));
  read_hkl_text (text->str, 0.0, g);
  g_string_free (text, TRUE);
}

static void
test_tricubic_nodes (void)
{
  nb_hkl_grid g;

  make_grid (grid_F, &g);
  for (int h = -4; h <= 4; h++)
    for (int k = -4; k <= 4; k++)
      for (int l = -4; l <= 4; l++)
        {
          g_assert_true (nb_hkl_tricubic_in_range (&g, h, k, l));
          g_assert_cmpfloat (nb_hkl_tricubic (&g, h, k, l), ==, grid_F (h, k, l));
        }
  nb_hkl_grid_clear (&g);
}

static double
cubic (double h, double k, double l)
{
  return 3.0 + 2.0 * h - k * k + 0.5 * h * k * l + 0.25 * l * l * l - 0.125 * h * h * h + k * l * l;
}

static double
cubic_at_node (int h, int k, int l)
{
  return cubic (h, k, l);
}

/* 4-point Lagrange is exact for polynomials up to degree 3 in each index. */
static void
test_tricubic_cubic (void)
{
  nb_hkl_grid g;
  static const double points[][3] = {
    { 0.5, 0.5, 0.5 },  { -3.75, 2.2, 1.1 },   { 3.999, -3.999, 0.0 },
    { 1.3, -2.7, 3.9 }, { -0.01, 0.01, -4.0 },
  };

  make_grid (cubic_at_node, &g);
  for (size_t i = 0; i < G_N_ELEMENTS (points); i++)
    {
      double h = points[i][0], k = points[i][1], l = points[i][2];
      double want = cubic (h, k, l);

      g_assert_true (nb_hkl_tricubic_in_range (&g, h, k, l));
      g_assert_cmpfloat_with_epsilon (nb_hkl_tricubic (&g, h, k, l), want,
                                      1e-12 * (1.0 + fabs (want)));
    }
  nb_hkl_grid_clear (&g);
}

/* Bit patterns from the reference's polin3()/polint(): any change in the
 * order of the products or the sum shows up here. */
static void
test_tricubic_reference_bits (void)
{
  static const struct
  {
    double h, k, l;
    guint64 bits;
  } cases[] = {
    { 0.3, -1.7, 2.45, G_GUINT64_CONSTANT (0x405e53594e3aa08f) },
    { -3.9, 3.99, 0.001, G_GUINT64_CONSTANT (0x4040893411b675d0) },
    { 1.5, 1.5, 1.5, G_GUINT64_CONSTANT (0x405c22f000000000) },
    { -0.378713, 2.1, -1.2, G_GUINT64_CONSTANT (0x4053bdd9949e65c3) },
    { 4, -4, 0.75, G_GUINT64_CONSTANT (0x4065300000000000) },
  };
  static const double xa1[4] = { -1, 0, 1, 2 }, ya1[4] = { 0.1, 0.7, -0.3, 1e-3 };
  static const double xa2[4] = { 3, 4, 5, 6 }, ya2[4] = { 1e10, 1, -1e-10, 7 };
  nb_hkl_grid g;
  double v;
  guint64 bits;

  make_grid (grid_F, &g);
  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      v = nb_hkl_tricubic (&g, cases[i].h, cases[i].k, cases[i].l);
      memcpy (&bits, &v, sizeof bits);
      g_assert_cmphex (bits, ==, cases[i].bits);
    }
  nb_hkl_grid_clear (&g);

  v = nb_polint4 (xa1, ya1, 0.37);
  memcpy (&bits, &v, sizeof bits);
  g_assert_cmphex (bits, ==, G_GUINT64_CONSTANT (0x3fd72c3fa9ecab98));
  v = nb_polint4 (xa2, ya2, 4.1);
  memcpy (&bits, &v, sizeof bits);
  g_assert_cmphex (bits, ==, G_GUINT64_CONSTANT (0xc1b0fcc13f2cccbd));
}

/* Valid only for min + 2 <= x <= max - 2 on every axis. */
static void
test_tricubic_in_range (void)
{
  nb_hkl_grid g;

  make_grid (grid_F, &g);
  g_assert_true (nb_hkl_tricubic_in_range (&g, 4.0, 0, 0));
  g_assert_false (nb_hkl_tricubic_in_range (&g, 4.0001, 0, 0));
  g_assert_true (nb_hkl_tricubic_in_range (&g, -4.0, 0, 0));
  g_assert_false (nb_hkl_tricubic_in_range (&g, -4.0001, 0, 0));
  g_assert_true (nb_hkl_tricubic_in_range (&g, 0, 4.0, -4.0));
  g_assert_false (nb_hkl_tricubic_in_range (&g, 0, 4.5, 0));
  g_assert_false (nb_hkl_tricubic_in_range (&g, 0, -4.5, 0));
  g_assert_false (nb_hkl_tricubic_in_range (&g, 0, 0, 4.25));
  g_assert_false (nb_hkl_tricubic_in_range (&g, 0, 0, -4.25));

  /* At the top edge the nodes reach max, never the padding plane. */
  g_assert_cmpfloat (nb_hkl_tricubic (&g, 4.0, 4.0, 4.0), ==, grid_F (4, 4, 4));
  g_assert_true (isnan (nb_hkl_tricubic (&g, NAN, 0, 0)));
  nb_hkl_grid_clear (&g);
}

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", name, NULL);
}

static void
test_table_sources (void)
{
  g_autofree char *path = data_path ("sources.txt");
  nb_table t;
  nb_error err = { 0 };
  static const double want[3][5] = {
    { -10, 0, 0, 1.0, 1.0e-10 },
    { -10, 0.02, 0, 0.5, 1.02e-10 },
    { -10, 0, 0.02, 2.0, 0.98e-10 },
  };

  g_assert_cmpint (nb_table_read (path, 5, &t, &err), ==, NB_OK);
  g_assert_cmpint (t.rows, ==, 3);
  g_assert_cmpint (t.cols, ==, 5);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 5; c++)
      g_assert_cmpfloat (t.v[r * 5 + c], ==, want[r][c]);
  nb_table_clear (&t);
  g_assert_null (t.v);

  /* Seven columns asked of a five-column file: the last two are NAN. */
  g_assert_cmpint (nb_table_read (path, 7, &t, &err), ==, NB_OK);
  g_assert_cmpint (t.rows, ==, 3);
  g_assert_cmpfloat (t.v[1 * 7 + 4], ==, 1.02e-10);
  g_assert_true (isnan (t.v[1 * 7 + 5]));
  g_assert_true (isnan (t.v[2 * 7 + 6]));
  nb_table_clear (&t);

  /* Fewer columns than the file has is an error naming the first line. */
  g_assert_cmpint (nb_table_read (path, 4, &t, &err), ==, NB_ERR_PARSE);
  {
    g_autofree char *where = g_strdup_printf ("%s:1: ", path);

    g_assert_true (g_str_has_prefix (err.message, where));
  }
}

/* with NB_TABLE_REFERENCE_COMMENTS a '#' line is a row, read field by
 * field as nanoBragg's read_text_file() reads it (values checked against the
 * source list the reference printed for this file). */
static void
test_table_reference_comments (void)
{
  g_autofree char *path = write_scratch ("comments.txt",
                                         "# x y z weight lambda\n"
                                         "# 3 sources, lambda 1e-10\n"
                                         "-10 0 0 1.0 1.0e-10\n"
                                         "  # 5\n"
                                         "\n"
                                         "-10 0.02 0 0.5 1.02e-10\n"
                                         "#\n"
                                         "#0 0 -10 1 2e-10",
                                         -1);
  static const double want[7][5] = {
    { 0, 0, 0, 0, 0 },       { 0, 3, 0, 0, 1e-10 },           { -10, 0, 0, 1, 1e-10 },
    { 0, 5, NAN, NAN, NAN }, { -10, 0.02, 0, 0.5, 1.02e-10 }, { 0, 0, 0, 0, 0 },
    { 0, 0, -10, 1, 2e-10 },
  };
  static const long lines[7] = { 1, 2, 3, 4, 6, 7, 8 };
  nb_table t;
  nb_error err = { 0 };

  g_assert_cmpint (nb_table_read_with (path, 5, NB_TABLE_REFERENCE_COMMENTS, &t, &err), ==, NB_OK);
  g_assert_cmpint (t.rows, ==, 7);
  for (int r = 0; r < 7; r++)
    {
      g_assert_cmpint (t.lines[r], ==, lines[r]);
      g_assert_cmpint (t.comment[r], ==, r != 2 && r != 4);
      for (int c = 0; c < 5; c++)
        if (isnan (want[r][c]))
          g_assert_true (isnan (t.v[r * 5 + c]));
        else
          g_assert_cmpfloat (t.v[r * 5 + c], ==, want[r][c]);
    }
  nb_table_clear (&t);

  /* without the flag (and with -physical) they are comments */
  g_assert_cmpint (nb_table_read_with (path, 5, 0, &t, &err), ==, NB_OK);
  g_assert_cmpint (t.rows, ==, 2);
  g_assert_cmpfloat (t.v[0], ==, -10.0);
  g_assert_cmpfloat (t.v[5 + 1], ==, 0.02);
  g_assert_cmpint (t.comment[0] + t.comment[1], ==, 0);
  nb_table_clear (&t);
}

static void
test_table_stol (void)
{
  g_autofree char *path = data_path ("liquid.stol");
  nb_table t;
  nb_error err = { 0 };

  g_assert_cmpint (nb_table_read (path, 2, &t, &err), ==, NB_OK);
  g_assert_cmpint (t.rows, ==, 101);
  g_assert_cmpint (t.cols, ==, 2);
  g_assert_cmpfloat (t.v[0], ==, 0.0);
  g_assert_cmpfloat (t.v[1], ==, 2.5001);
  g_assert_cmpfloat (t.v[15 * 2], ==, 0.150);
  g_assert_cmpfloat (t.v[15 * 2 + 1], ==, 4.2360);
  g_assert_cmpfloat (t.v[100 * 2], ==, 1.0);
  g_assert_cmpfloat (t.v[100 * 2 + 1], ==, 2.5);
  nb_table_clear (&t);
}

static void
test_table_syntax (void)
{
  g_autofree char *path = write_scratch ("table.txt",
                                         "# X Y Z weight lambda\n"
                                         "\n"
                                         "  ,;  \n"
                                         "1,2;3:4!5\r\n"
                                         "\t  # indented comment\n"
                                         "6 \t 7,,,8\n"
                                         "  -1e-3\n"
                                         "9", /* no final newline: NAN, not 0 */
                                         -1);
  nb_table t;
  nb_error err = { 0 };

  g_assert_cmpint (nb_table_read (path, 5, &t, &err), ==, NB_OK);
  g_assert_cmpint (t.rows, ==, 4);
  for (int c = 0; c < 5; c++)
    g_assert_cmpfloat (t.v[c], ==, c + 1);
  g_assert_cmpfloat (t.v[5], ==, 6.0);
  g_assert_cmpfloat (t.v[6], ==, 7.0);
  g_assert_cmpfloat (t.v[7], ==, 8.0);
  g_assert_true (isnan (t.v[8]));
  g_assert_true (isnan (t.v[9]));
  g_assert_cmpfloat (t.v[10], ==, -1e-3);
  g_assert_true (isnan (t.v[11]));
  g_assert_cmpfloat (t.v[15], ==, 9.0);
  g_assert_true (isnan (t.v[16]));
  g_assert_true (isnan (t.v[19]));
  nb_table_clear (&t);
  g_remove (path);
}

static void
test_table_errors (void)
{
  static const struct
  {
    const char *contents;
    int line; /* 0: "no data" */
  } cases[] = {
    { "1 2\n3 x\n", 2 },
    { "1 2\n\n3 2O\n", 3 },
    { "1 2 3\n", 1 },
    { "1 2\n3 nan\n", 2 },
    { "1 2\n3 4 # trailing comment\n", 2 },
    { "# only comments\n\n", 0 },
    { "", 0 },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = write_scratch ("bad.txt", cases[i].contents, -1);
      g_autofree char *shown = g_strescape (cases[i].contents, NULL);
      nb_table t;
      nb_error err = { 0 };

      g_test_message ("case %zu: \"%s\"", i, shown);
      g_assert_cmpint (nb_table_read (path, 2, &t, &err), ==, NB_ERR_PARSE);
      g_assert_null (t.v);
      if (cases[i].line > 0)
        {
          g_autofree char *where = g_strdup_printf ("%s:%d: ", path, cases[i].line);

          g_assert_true (g_str_has_prefix (err.message, where));
        }
      else
        g_assert_nonnull (strstr (err.message, "no data"));
      g_remove (path);
    }

  {
    g_autofree char *path = g_build_filename (scratch_dir, "absent.txt", NULL);
    nb_table t;
    nb_error err = { 0 };

    g_assert_cmpint (nb_table_read (path, 2, &t, &err), ==, NB_ERR_IO);
    g_assert_nonnull (strstr (err.message, path));
  }
}

static void
test_matrix_triclinic (void)
{
  g_autofree char *path = data_path ("triclinic.mat");
  double m[9];
  nb_error err = { 0 };
  static const double want[9] = {
    0.01133060,  -0.00554900, 0.00056663, 0.00781724, 0.01018229,
    -0.00601419, 0.00549841,  0.00580999, 0.00940603,
  };

  g_assert_cmpint (nb_matrix_read (path, m, &err), ==, NB_OK);
  for (int i = 0; i < 9; i++)
    g_assert_cmpfloat (m[i], ==, want[i]);
}

static void
test_matrix_layout (void)
{
  /* 1 .. 8 and 10: 1 .. 9 would be a singular matrix */
  g_autofree char *one_line = write_scratch ("one.mat", "1 2 3 4 5 6 7 8 10 trailing words\n", -1);
  g_autofree char *ragged = write_scratch ("ragged.mat", "\n 1\t2\n3 4 5 6 7\r\n8\n\n  10", -1);
  g_autofree char *short_mat = write_scratch ("short.mat", "1 2 3\n4 5 6\n7 8\n", -1);
  g_autofree char *bad = write_scratch ("bad.mat", "1 2 3\n4 five 6\n7 8 9\n", -1);
  double m[9], keep[9];
  nb_error err = { 0 };

  g_assert_cmpint (nb_matrix_read (one_line, m, &err), ==, NB_OK);
  for (int i = 0; i < 9; i++)
    g_assert_cmpfloat (m[i], ==, i < 8 ? i + 1 : 10);
  memset (m, 0, sizeof m);
  g_assert_cmpint (nb_matrix_read (ragged, m, &err), ==, NB_OK);
  for (int i = 0; i < 9; i++)
    g_assert_cmpfloat (m[i], ==, i < 8 ? i + 1 : 10);

  /* Failures leave @m alone. */
  memcpy (keep, m, sizeof m);
  g_assert_cmpint (nb_matrix_read (short_mat, m, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, short_mat));
  g_assert_cmpmem (m, sizeof m, keep, sizeof keep);
  g_assert_cmpint (nb_matrix_read (bad, m, &err), ==, NB_ERR_PARSE);
  {
    g_autofree char *where = g_strdup_printf ("%s:2: ", bad);

    g_assert_true (g_str_has_prefix (err.message, where));
  }
  g_assert_cmpmem (m, sizeof m, keep, sizeof keep);
  g_remove (one_line);
  g_remove (ragged);
  g_remove (short_mat);
  g_remove (bad);
}

/* nb_hkl_read_limited (issue 7): the grid, counted with the caller's copy,
 * is refused before it is allocated; the text and the records count too. */
static void
test_read_limited (void)
{
  g_autofree char *wide = write_scratch ("wide.hkl", "-1000 -1000 -1000 1\n1000 1000 1000 2\n", -1);
  g_autofree char *small = write_scratch ("small.hkl", "0 0 0 1\n1 1 1 2\n", -1);
  nb_hkl_grid g;
  nb_error err = { 0 };
  g_autofree char *where = NULL;

  /* 2002^3 cells of 12 bytes: 96 GB */
  g_assert_cmpint (nb_hkl_read_limited (wide, 0.0, (size_t) 1 << 30, 12, &g, &err), ==,
                   NB_ERR_NOMEM);
  g_assert_null (g.F);
  g_assert_nonnull (strstr (err.message, wide));
  g_assert_nonnull (strstr (err.message, "h -1000..1000"));
  g_assert_nonnull (strstr (err.message, "2002 x 2002 x 2002"));
  g_assert_nonnull (strstr (err.message, "-memory_budget"));

  /* 3 x 3 x 3 cells: 216 bytes as doubles, 324 with a float copy, plus the records */
  g_assert_cmpint (nb_hkl_read_limited (small, 0.0, 4096, 12, &g, &err), ==, NB_OK);
  g_assert_cmpint (g.h_range, ==, 2);
  nb_hkl_grid_clear (&g);
  g_assert_cmpint (nb_hkl_read_limited (small, 0.0, 300, 12, &g, &err), ==, NB_ERR_NOMEM);
  g_assert_cmpint (nb_hkl_read_limited (small, 0.0, 300, 8, &g, &err), ==, NB_OK);
  nb_hkl_grid_clear (&g);

  /* the text alone over the budget */
  g_assert_cmpint (nb_hkl_read_limited (small, 0.0, 10, 8, &g, &err), ==, NB_ERR_NOMEM);
  g_assert_nonnull (strstr (err.message, small));

  /* a stream that never ends is no file of structure factors: refused before a read */
  g_assert_cmpint (nb_hkl_read_limited ("/dev/zero", 0.0, (size_t) 1 << 30, 12, &g, &err), ==,
                   NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, "/dev/zero: a character device, not a regular file"));

  g_remove (wide);
  g_remove (small);
}

/* A named pipe (or a terminal) would block open() or the first read for as
 * long as nobody writes (issue 23): every text reader refuses it at once, by
 * name, whether or not a writer ever comes. */
static void
test_read_fifo_refused (void)
{
  g_autofree char *path = g_build_filename (scratch_dir, "hkl.fifo", NULL);
  nb_hkl_grid g;
  nb_table t;
  nb_error err = { 0 };
  double m[9];
  gint64 start = g_get_monotonic_time ();

  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  g_assert_cmpint (nb_hkl_read_limited (path, 0.0, 1000, 8, &g, &err), ==, NB_ERR_IO);
  g_assert_null (g.F);
  g_assert_nonnull (strstr (err.message, path));
  g_assert_nonnull (strstr (err.message, "a named pipe (FIFO), not a regular file"));
  g_assert_cmpint (nb_hkl_read_dump_limited (path, 1000, 8, &g, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, "not a regular file"));
  g_assert_cmpint (nb_table_read (path, 5, &t, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, "not a regular file"));
  g_assert_cmpint (nb_matrix_read (path, m, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, "not a regular file"));
  g_assert_cmpint (nb_table_read (scratch_dir, 2, &t, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, "a directory, not a regular file"));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
  g_remove (path);
}

/* An Fdump header must not make the reader allocate what the file does not
 * hold, nor more than the budget. */
static void
test_dump_limited (void)
{
  static const char huge[] = "-1024 1024 -1024 1024 -1024 1024\n\f12345678";
  g_autofree char *path = write_scratch ("huge.dump", huge, sizeof huge - 1);
  g_autofree char *small_hkl = write_scratch ("s.hkl", "0 0 0 1\n1 1 1 2\n", -1);
  g_autofree char *small = g_build_filename (scratch_dir, "s.dump", NULL);
  nb_hkl_grid g;
  nb_error err = { 0 };

  g_assert_cmpint (nb_hkl_read_dump_limited (path, SIZE_MAX, 8, &g, &err), ==, NB_ERR_PARSE);
  g_assert_null (g.F);
  g_assert_nonnull (strstr (err.message, "short Fdump data"));

  g_assert_cmpint (nb_hkl_read (small_hkl, 0.0, &g, &err), ==, NB_OK);
  g_assert_cmpint (nb_hkl_write_dump (small, &g, &err), ==, NB_OK);
  nb_hkl_grid_clear (&g);
  g_assert_cmpint (nb_hkl_read_dump_limited (small, 1000, 12, &g, &err), ==, NB_OK);
  nb_hkl_grid_clear (&g);
  g_assert_cmpint (nb_hkl_read_dump_limited (small, 300, 12, &g, &err), ==, NB_ERR_NOMEM);
  g_assert_nonnull (strstr (err.message, "s.dump"));
  g_remove (path);
  g_remove (small);
  g_remove (small_hkl);
}

/* Table rows remember their file lines (comments and blank lines skipped),
 * so callers can name the line of a bad value. */
static void
test_table_lines (void)
{
  g_autofree char *path = write_scratch ("lines.txt", "# sources\n\n1 2\n\n# more\n3 4\n5\n", -1);
  nb_table t;
  nb_error err = { 0 };

  g_assert_cmpint (nb_table_read (path, 2, &t, &err), ==, NB_OK);
  g_assert_cmpint (t.rows, ==, 3);
  g_assert_cmpint (t.lines[0], ==, 3);
  g_assert_cmpint (t.lines[1], ==, 6);
  g_assert_cmpint (t.lines[2], ==, 7);
  g_assert_true (isnan (t.v[5]));
  nb_table_clear (&t);
  g_assert_null (t.lines);

  /* a stream of NUL bytes is no table: refused before a read */
  g_assert_cmpint (nb_table_read ("/dev/zero", 2, &t, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, "/dev/zero: a character device"));
  g_remove (path);
}

/* Issue 23: a message quoted up to 40 bytes of whatever file it was given
 * (/etc/shadow as -hkl: "index h 'root:*:19000:0:99999:7:::'"), raw binary
 * bytes included, which PyGObject cannot convert.  It quotes at most
 * NB_EXCERPT_BYTES, escaped: short, printable, valid UTF-8. */
static void
test_messages_quote_little (void)
{
  g_autofree char *shadow =
      write_scratch ("shadow", "root:*:19000:0:99999:7:::\nbin:*:19000:0:99999:7:::\n", -1);
  g_autofree char *binary = write_scratch ("binary.src", "\xff\xfe'\\ 0 0 1 1e-10\n", -1);
  g_autofree char *matrix = write_scratch ("utf8.mat", "0.01 0 0\n0 \xc3\xa9t\xc3\xa9 0\n", -1);
  const char *paths[] = { shadow, binary, matrix };
  const char *quoted[] = { "index h 'root:*:19000...' is not an integer",
                           "field 1 '\\xff\\xfe\\'\\\\' is not a number",
                           "number 5 of the matrix '\\xc3\\xa9t\\xc3\\xa9' is not a number" };
  nb_hkl_grid g;
  nb_table t;
  nb_error err = { 0 };
  double m[9];

  g_assert_cmpint (nb_hkl_read (shadow, 0.0, &g, &err), ==, NB_ERR_PARSE);
  g_assert_null (strstr (err.message, "99999"));
  for (gsize i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      if (i == 1)
        g_assert_cmpint (nb_table_read (binary, 5, &t, &err), ==, NB_ERR_PARSE);
      else if (i == 2)
        g_assert_cmpint (nb_matrix_read (matrix, m, &err), ==, NB_ERR_PARSE);
      else
        g_assert_cmpint (nb_hkl_read (shadow, 0.0, &g, &err), ==, NB_ERR_PARSE);
      g_test_message ("%s", err.message);
      g_assert_nonnull (strstr (err.message, paths[i]));
      g_assert_nonnull (strstr (err.message, quoted[i]));
      for (const char *c = err.message; *c != '\0'; c++)
        g_assert_true (*c >= 0x20 && *c < 0x7f);
    }
  g_remove (shadow);
  g_remove (binary);
  g_remove (matrix);
}

/* A singular matrix spans no cell: refused by the reader (the plan would turn it into a
 * blank image when -cell is also given). */
static void
test_matrix_singular (void)
{
  g_autofree char *zero = write_scratch ("zero.mat", "0 0 0\n0 0 0\n0 0 0\n", -1);
  g_autofree char *flat = write_scratch ("flat.mat", "1 2 3\n4 5 6\n7 8 9\n", -1);
  g_autofree char *fine = write_scratch ("fine.mat", "0.01 0 0\n0 0.02 0\n0 0 1e-4\n", -1);
  double m[9] = { 0 };
  nb_error err = { 0 };

  g_assert_cmpint (nb_matrix_read (zero, m, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "singular"));
  g_assert_cmpint (nb_matrix_read (flat, m, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, flat));
  g_assert_cmpint (nb_matrix_read (fine, m, &err), ==, NB_OK);
  g_assert_cmpfloat (m[8], ==, 1e-4);
  g_remove (zero);
  g_remove (flat);
  g_remove (fine);
}

int
main (int argc, char *argv[])
{
  g_autoptr (GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);

  scratch_dir = g_dir_make_tmp ("test-hkl-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/hkl/read/layout", test_read_layout);
  g_test_add_func ("/hkl/read/default-F", test_read_default_F);
  g_test_add_func ("/hkl/read/duplicates", test_read_duplicates);
  g_test_add_func ("/hkl/read/negative", test_read_negative);
  g_test_add_func ("/hkl/read/comments", test_read_comments);
  g_test_add_func ("/hkl/read/extra-columns", test_read_extra_columns);
  g_test_add_func ("/hkl/read/errors", test_read_errors);
  g_test_add_func ("/hkl/read/1hpv", test_read_1hpv);
  g_test_add_func ("/hkl/read/numbers", test_read_numbers);
  g_test_add_func ("/hkl/dump/header", test_dump_header);
  g_test_add_func ("/hkl/dump/round-trip", test_dump_round_trip);
  g_test_add_func ("/hkl/dump/errors", test_dump_errors);
  g_test_add_func ("/hkl/tricubic/nodes", test_tricubic_nodes);
  g_test_add_func ("/hkl/tricubic/cubic", test_tricubic_cubic);
  g_test_add_func ("/hkl/tricubic/reference-bits", test_tricubic_reference_bits);
  g_test_add_func ("/hkl/tricubic/in-range", test_tricubic_in_range);
  g_test_add_func ("/textfile/table/sources", test_table_sources);
  g_test_add_func ("/textfile/table/reference-comments", test_table_reference_comments);
  g_test_add_func ("/textfile/table/stol", test_table_stol);
  g_test_add_func ("/textfile/table/syntax", test_table_syntax);
  g_test_add_func ("/textfile/table/errors", test_table_errors);
  g_test_add_func ("/textfile/matrix/triclinic", test_matrix_triclinic);
  g_test_add_func ("/textfile/matrix/layout", test_matrix_layout);
  g_test_add_func ("/hkl/read/limited", test_read_limited);
  g_test_add_func ("/hkl/read/fifo-refused", test_read_fifo_refused);
  g_test_add_func ("/hkl/messages-quote-little", test_messages_quote_little);
  g_test_add_func ("/hkl/dump/limited", test_dump_limited);
  g_test_add_func ("/textfile/table/lines", test_table_lines);
  g_test_add_func ("/textfile/matrix/singular", test_matrix_singular);

  status = g_test_run ();

  g_rmdir (scratch_dir);
  g_free (scratch_dir);
  return status;
}
