/* test-mtz.c: structure factors from an MTZ file: the 1HPV calculation (P 61)
 * expanded to P1 equals the P1 HKL text file made from the same model, and the
 * image it gives equals the image of the HKL file.  Byte order, the 64-bit
 * header pointer and the missing-number flag read as the format says.
 *
 * Damaged copies (issue 18: libccp4's reader crashed or never returned on
 * some): thousands of copies of the file, of each kind of damage, made from
 * fixed seeds, are each refused within a second with one line naming the
 * file, or read; a copy damaged only in its header that is read gives the
 * grid of the good file. */
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "mtz-fixtures.h"
#include "nanobragg.h"
#include "formats/nb-hkl.h"
#include "formats/nb-mtz.h"
#include "nb-test-util.h"

static char *
data_path (const char *name)
{
  const char *dir = g_getenv ("NB_DATA_DIR");

  return g_build_filename (dir != NULL ? dir : "data", name, NULL);
}

static void
test_expansion_matches_p1 (void)
{
  g_autofree char *mtz = data_path ("1hpv_fcalc.mtz");
  g_autofree char *hkl = data_path ("1hpv_p1.hkl");
  nb_hkl_grid a, b;
  nb_error err;
  char column[32];
  long compared = 0;
  double worst = 0.0;

  g_assert_cmpint (nb_mtz_read (mtz, NULL, 0.0, SIZE_MAX, sizeof (double), &a, column, &err), ==,
                   NB_OK);
  g_assert_cmpstr (column, ==, "FC");
  g_assert_cmpint (nb_hkl_read (hkl, 0.0, &b, &err), ==, NB_OK);
  g_assert_cmpint (a.h_min, ==, b.h_min);
  g_assert_cmpint (a.h_max, ==, b.h_max);
  g_assert_cmpint (a.k_min, ==, b.k_min);
  g_assert_cmpint (a.k_max, ==, b.k_max);
  g_assert_cmpint (a.l_min, ==, b.l_min);
  g_assert_cmpint (a.l_max, ==, b.l_max);
  for (int h = a.h_min; h <= a.h_max; h++)
    for (int k = a.k_min; k <= a.k_max; k++)
      for (int l = a.l_min; l <= a.l_max; l++)
        {
          double fa = nb_hkl_lookup_nearest (&a, h, k, l, -1.0);
          double fb = nb_hkl_lookup_nearest (&b, h, k, l, -1.0);

          /* the text file holds two decimals; both list the same reflections */
          g_assert_cmpint (fa == 0.0, ==, fb == 0.0);
          worst = fmax (worst, fabs (fa - fb));
          compared += fb != 0.0;
        }
  g_test_message ("%ld reflections compared, worst |dF| %.4f", compared, worst);
  g_assert_cmpint (compared, >, 100000);
  g_assert_cmpfloat (worst, <=, 0.0051);
  nb_hkl_grid_clear (&a);
  nb_hkl_grid_clear (&b);
}

static void
test_errors (void)
{
  g_autofree char *hkl = data_path ("1hpv_p1.hkl");
  g_autofree char *mtz = data_path ("1hpv_fcalc.mtz");
  nb_hkl_grid g;
  nb_error err;

  g_assert_cmpint (nb_mtz_read ("/nonexistent/x.mtz", NULL, 0.0, SIZE_MAX, 8, &g, NULL, &err), ==,
                   NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, "/nonexistent/x.mtz"));
  g_assert_cmpint (nb_mtz_read (hkl, NULL, 0.0, SIZE_MAX, 8, &g, NULL, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "not an MTZ file"));
  g_assert_cmpint (nb_mtz_read (mtz, "FOBS", 0.0, SIZE_MAX, 8, &g, NULL, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "FOBS"));
  /* a budget too small for its reflections expanded to P1, or for the grid
   * beside them, is refused, naming the file and the budget (the file itself
   * is read in 64 KB chunks, not held) */
  g_assert_cmpint (nb_mtz_read (mtz, NULL, 0.0, 100000, 8, &g, NULL, &err), ==, NB_ERR_NOMEM);
  g_assert_nonnull (strstr (err.message, "1hpv_fcalc.mtz"));
  g_assert_nonnull (strstr (err.message, "memory budget"));
  g_assert_cmpint (nb_mtz_read (mtz, NULL, 0.0, 2000000, 8, &g, NULL, &err), ==, NB_ERR_NOMEM);
  g_assert_nonnull (strstr (err.message, "6 symmetry operators"));
  g_assert_cmpint (nb_mtz_read (mtz, NULL, 0.0, 5000000, 12, &g, NULL, &err), ==, NB_ERR_NOMEM);
  g_assert_nonnull (strstr (err.message, "64 x 64 x 84 structure-factor grid"));
  g_assert_null (g.F);
  g_assert_false (nb_file_is_mtz (hkl));
  g_assert_true (nb_file_is_mtz (mtz));
}

/* -hkl FILE.mtz renders what -hkl FILE.hkl renders (to the text file's
 * rounding). */
static void
test_image_matches (void)
{
  g_autofree char *mtz = data_path ("1hpv_fcalc.mtz");
  g_autofree char *hkl = data_path ("1hpv_p1.hkl");
  const char *files[2] = { mtz, hkl };
  float *img[2];
  double dmax = 0.0, vmax = 0.0;
  int n = 128 * 128;

  for (int i = 0; i < 2; i++)
    {
      const char *argv[] = { "nanobragg",  "-hkl",  files[i],     "-cell", "63.4",    "63.4",
                             "83.8",       "90",    "90",         "120",   "-misset", "10",
                             "20",         "30",    "-lambda",    "1.0",   "-N",      "10",
                             "-distance",  "60",    "-detpixels", "128",   "-pixel",  "0.4",
                             "-precision", "single" };
      nb_params p;
      nb_plan *plan;
      nb_error err;

      nb_params_init (&p);
      g_assert_cmpint (nb_params_parse_argv (&p, G_N_ELEMENTS (argv), argv, &err), ==, NB_OK);
      g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
      img[i] = g_new (float, n);
      g_assert_cmpint (nb_plan_execute (plan, img[i], NULL, &err), ==, NB_OK);
      nb_plan_destroy (plan);
      nb_params_clear (&p);
    }
  for (int j = 0; j < n; j++)
    {
      dmax = fmax (dmax, fabs ((double) img[0][j] - img[1][j]));
      vmax = fmax (vmax, img[1][j]);
    }
  g_test_message ("max |diff| %.3g of max %.3g", dmax, vmax);
  g_assert_cmpfloat (vmax, >, 0.0);
  g_assert_cmpfloat (dmax, <=, 1e-3 * vmax);
  g_free (img[0]);
  g_free (img[1]);
}

/* ---- damaged copies ---- */

/* what a damaged copy must do */
typedef enum
{
  REFUSED,         /* be refused */
  SAME,            /* read as the good file */
  SAME_OR_REFUSED, /* either (damage in the header) */
  READ_OR_REFUSED, /* either, the grid may differ (damage in the reflections) */
} expectation;

typedef struct
{
  const char *kind;
  int copies, read, refused;
  gint64 slowest_us;
} tally;

/* The good file, what it reads as, and one scratch copy patched in place. */
typedef struct
{
  MtzFixture m;
  nb_hkl_grid good;
  char *dir, *path;
  int fd;
  GRand *rand;
} bench;

/* structure factors of a damaged copy: enough for the good file, little
 * enough that no damage makes a test slow */
#define DAMAGE_BUDGET ((size_t) 256 << 20)

static int
same_grid (const nb_hkl_grid *a, const nb_hkl_grid *b)
{
  size_t cells = (size_t) (a->h_range + 1) * (a->k_range + 1) * (a->l_range + 1);

  return a->h_min == b->h_min && a->h_max == b->h_max && a->k_min == b->k_min &&
         a->k_max == b->k_max && a->l_min == b->l_min && a->l_max == b->l_max &&
         memcmp (a->F, b->F, cells * sizeof (double)) == 0;
}

static void
bench_init (bench *b)
{
  g_autoptr (GError) error = NULL;
  nb_error err;

  mtz_fixture_load (&b->m, -1);
  b->dir = g_dir_make_tmp ("test-mtz-XXXXXX", &error);
  g_assert_no_error (error);
  b->path = g_build_filename (b->dir, "copy.mtz", NULL);
  b->fd = open (b->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  g_assert_cmpint (b->fd, >=, 0);
  g_assert_cmpint (pwrite (b->fd, b->m.data, b->m.size, 0), ==, (gssize) b->m.size);
  g_assert_cmpint (
      nb_mtz_read (b->path, NULL, 0.0, DAMAGE_BUDGET, sizeof (double), &b->good, NULL, &err), ==,
      NB_OK);
  b->rand = g_rand_new_with_seed (18);
}

static void
bench_clear (bench *b)
{
  close (b->fd);
  g_remove (b->path);
  g_rmdir (b->dir);
  g_free (b->path);
  g_free (b->dir);
  nb_hkl_grid_clear (&b->good);
  mtz_fixture_clear (&b->m);
  g_rand_free (b->rand);
}

/* patch: @n bytes of @bytes at @at in the copy (NULL: the good file's). */
static void
patch (bench *b, gsize at, const guint8 *bytes, gsize n)
{
  g_assert_cmpuint (at + n, <=, b->m.size);
  g_assert_cmpint (pwrite (b->fd, bytes != NULL ? bytes : b->m.data + at, n, (off_t) at), ==,
                   (gssize) n);
}

/* check: reads the copy as it now is and holds it to @expect. */
static void
check (bench *b, expectation expect, tally *t, const char *what)
{
  nb_hkl_grid g;
  nb_error err = { 0 };
  gint64 start = g_get_monotonic_time (), took;
  nb_status st = nb_mtz_read (b->path, NULL, 0.0, DAMAGE_BUDGET, sizeof (double), &g, NULL, &err);

  took = g_get_monotonic_time () - start;
  t->copies++;
  t->slowest_us = MAX (t->slowest_us, took);
  if (took >= G_USEC_PER_SEC)
    g_error ("%s, %s: took %.2f s", t->kind, what, took / 1e6);
  if (st == NB_OK)
    {
      t->read++;
      if (expect == REFUSED)
        g_error ("%s, %s: read, where it must be refused", t->kind, what);
      if ((expect == SAME || expect == SAME_OR_REFUSED) && !same_grid (&g, &b->good))
        g_error ("%s, %s: read other structure factors than the good file", t->kind, what);
      nb_hkl_grid_clear (&g);
      return;
    }
  t->refused++;
  if (expect == SAME)
    g_error ("%s, %s: refused: %s", t->kind, what, err.message);
  g_assert_null (g.F);
  if (!g_str_has_prefix (err.message, b->path) || err.message[strlen (b->path)] != ':' ||
      strchr (err.message, '\n') != NULL || strlen (err.message) < strlen (b->path) + 10)
    g_error ("%s, %s: not a one-line message naming the file and the reason: '%s'", t->kind, what,
             err.message);
}

static void
report (const tally *t)
{
  g_test_message ("%s: %d copies, %d read, %d refused, slowest %.1f ms", t->kind, t->copies,
                  t->read, t->refused, t->slowest_us / 1e3);
}

/* A byte other than @old: from the whole range, or printable. */
static guint8
other_byte (GRand *rand, guint8 old, gboolean printable)
{
  guint8 v;

  do
    v = printable ? (guint8) g_rand_int_range (rand, 0x20, 0x7f)
                  : (guint8) g_rand_int_range (rand, 0, 256);
  while (v == old);
  return v;
}

static int
by_size_down (gconstpointer a, gconstpointer b)
{
  gsize x = *(const gsize *) a, y = *(const gsize *) b;

  return x < y ? 1 : x > y ? -1 : 0;
}

/* truncated: at fixed lengths (the preamble, the reflections, each header
 * record's edges) and random ones; read only once END is whole */
static void
damage_truncated (bench *b, tally *t)
{
  const gsize end = b->m.header + b->m.records * MTZ_FIXTURE_RECORD;
  static const gsize fixed[] = { 0, 1, 3, 4, 7, 8, 11, 12, 19, 20, 79, 80, 81, 159, 160, 161 };
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (gsize));
  gsize last = G_MAXSIZE;

  g_array_append_vals (sizes, fixed, G_N_ELEMENTS (fixed));
  for (gsize r = 0; b->m.header + r * MTZ_FIXTURE_RECORD < b->m.size; r++)
    for (int d = -1; d <= 1; d++)
      {
        gsize at = b->m.header + r * MTZ_FIXTURE_RECORD + (gsize) d;

        g_array_append_val (sizes, at);
      }
  for (int i = 0; i < 40; i++)
    {
      gsize at = (gsize) g_rand_int_range (b->rand, 0, (gint32) b->m.size);

      g_array_append_val (sizes, at);
    }
  g_array_sort (sizes, by_size_down);
  for (guint i = 0; i < sizes->len; i++)
    {
      gsize size = g_array_index (sizes, gsize, i);
      char what[64];

      if (size == last)
        continue;
      last = size;
      g_assert_cmpint (ftruncate (b->fd, (off_t) size), ==, 0);
      g_snprintf (what, sizeof what, "%zu of %zu bytes", size, b->m.size);
      check (b, size >= end ? SAME : REFUSED, t, what);
    }
  patch (b, 0, NULL, b->m.size);
}

/* the reflections: 1 to 4 random bytes changed */
static void
damage_reflections (bench *b, tally *t)
{
  for (int i = 0; i < 60; i++)
    {
      int n = g_rand_int_range (b->rand, 1, 5);
      gsize at[4];
      char what[128] = "bytes";

      for (int k = 0; k < n; k++)
        {
          guint8 v = (guint8) g_rand_int_range (b->rand, 0, 256);

          at[k] = (gsize) g_rand_int_range (b->rand, 80, (gint32) b->m.header);
          patch (b, at[k], &v, 1);
          g_snprintf (what + strlen (what), sizeof what - strlen (what), " %zu=0x%02x", at[k], v);
        }
      check (b, READ_OR_REFUSED, t, what);
      for (int k = 0; k < n; k++)
        patch (b, at[k], NULL, 1);
    }
}

/* one byte of record @r changed at @column to @v */
static void
damage_record_byte (bench *b, tally *t, gsize r, int column, guint8 v)
{
  gsize at = b->m.header + r * MTZ_FIXTURE_RECORD + (gsize) column;
  char what[160];

  g_snprintf (what, sizeof what, "record %zu \"%.20s\", column %d = 0x%02x", r + 1,
              (const char *) b->m.data + b->m.header + r * MTZ_FIXTURE_RECORD, column + 1, v);
  patch (b, at, &v, 1);
  /* beyond END nothing is read */
  check (b, r < b->m.records ? SAME_OR_REFUSED : SAME, t, what);
  patch (b, at, NULL, 1);
}

/* every header record, and the one after END: six random bytes each */
static void
damage_header (bench *b, tally *t)
{
  for (gsize r = 0; r <= b->m.records; r++)
    for (int i = 0; i < 6; i++)
      {
        int column = g_rand_int_range (b->rand, 0, MTZ_FIXTURE_RECORD);
        gsize at = b->m.header + r * MTZ_FIXTURE_RECORD + (gsize) column;

        damage_record_byte (b, t, r, column, other_byte (b->rand, b->m.data[at], i % 2));
      }
}

/* every byte of every SYMM record and of END, to a random and to a printable byte */
static void
damage_symm_end (bench *b, tally *t)
{
  for (gsize r = 0; r < b->m.records; r++)
    {
      const guint8 *rec = b->m.data + b->m.header + r * MTZ_FIXTURE_RECORD;

      if (memcmp (rec, "SYMM ", 5) != 0 && memcmp (rec, "END ", 4) != 0)
        continue;
      for (int column = 0; column < MTZ_FIXTURE_RECORD; column++)
        for (int printable = 0; printable < 2; printable++)
          damage_record_byte (b, t, r, column, other_byte (b->rand, rec[column], printable));
    }
}

/* the header pointer (32-bit, and -1 then 64-bit) and the machine stamp */
static void
damage_preamble (bench *b, tally *t)
{
  const guint32 p = mtz_fixture_word (b->m.data + 4), words = (guint32) (b->m.size / 4);
  const guint32 wrong[] = { 0,
                            1,
                            2,
                            20,
                            21,
                            22,
                            p - 21,
                            p - 20,
                            p - 1,
                            p + 1,
                            p + 20,
                            p + 21,
                            words,
                            words + 1,
                            0x7fffffff,
                            0x80000000u,
                            0xfffffffe,
                            GUINT32_SWAP_LE_BE (p),
                            p + 4 * (guint32) b->m.records };
  const struct
  {
    guint64 pointer;
    expectation expect;
  } wide[] = { { p, SAME },
               { p + 1, REFUSED },
               { 0, REFUSED },
               { 1ull << 40, REFUSED },
               { G_MAXINT64, REFUSED },
               { (guint64) -5, REFUSED },
               { G_MAXUINT64, REFUSED } };
  const struct
  {
    guint8 stamp[2];
    expectation expect;
  } stamps[] = { { { 0x00, 0x00 }, SAME },    /* the writer's own: this machine's */
                 { { 0x11, 0x11 }, REFUSED }, /* big-endian: the pointer is then huge */
                 { { 0x44, 0x14 }, REFUSED }, { { 0x14, 0x41 }, REFUSED },
                 { { 0x22, 0x41 }, REFUSED }, /* VAX reals */
                 { { 0x54, 0x41 }, REFUSED }, /* Convex reals */
                 { { 0x34, 0x41 }, REFUSED }, { { 0x44, 0xf1 }, REFUSED } };
  char what[96];

  for (gsize i = 0; i < G_N_ELEMENTS (wrong); i++)
    {
      guint8 w[4];

      mtz_fixture_set_word (w, wrong[i]);
      patch (b, 4, w, 4);
      g_snprintf (what, sizeof what, "header pointer %" G_GUINT32_FORMAT, wrong[i]);
      check (b, REFUSED, t, what);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (wide); i++)
    {
      guint8 w[12];

      mtz_fixture_set_word (w, 0xffffffff);
      memcpy (w + 4, b->m.data + 8, 4);
      mtz_fixture_set_word (w + 8, (guint32) wide[i].pointer);
      patch (b, 4, w, 12);
      mtz_fixture_set_word (w, (guint32) (wide[i].pointer >> 32));
      patch (b, 16, w, 4);
      g_snprintf (what, sizeof what, "64-bit header pointer %" G_GUINT64_FORMAT, wide[i].pointer);
      check (b, wide[i].expect, t, what);
      patch (b, 4, NULL, 16);
    }
  patch (b, 4, NULL, 4);
  for (gsize i = 0; i < G_N_ELEMENTS (stamps); i++)
    {
      patch (b, 8, stamps[i].stamp, 2);
      g_snprintf (what, sizeof what, "machine stamp %02x%02x", stamps[i].stamp[0],
                  stamps[i].stamp[1]);
      check (b, stamps[i].expect, t, what);
    }
  patch (b, 8, NULL, 2);
}

static void
test_damaged_copies (void)
{
  bench b;
  tally t[] = { { .kind = "truncated" },
                { .kind = "reflection bytes changed" },
                { .kind = "header record bytes changed" },
                { .kind = "SYMM and END record bytes changed" },
                { .kind = "header pointer and machine stamp changed" } };
  int copies = 0;

  bench_init (&b);
  damage_truncated (&b, &t[0]);
  damage_reflections (&b, &t[1]);
  damage_header (&b, &t[2]);
  damage_symm_end (&b, &t[3]);
  damage_preamble (&b, &t[4]);
  for (gsize i = 0; i < G_N_ELEMENTS (t); i++)
    {
      report (&t[i]);
      g_assert_cmpint (t[i].refused, >, 0);
      copies += t[i].copies;
    }
  /* damage that the reader cannot see reads */
  g_assert_cmpint (t[1].read, >, 0);
  g_assert_cmpint (t[3].read, >, 0);
  g_assert_cmpint (copies, >, 1500);
  bench_clear (&b);
}

/* The copies of the file that crashed or hung libccp4's reader, through a plan
 * (as nanobragg and the viewer's worker read them). */
static void
test_damaged_plan (void)
{
  static const char *const damages[] = { "end-record", "symm-record", "header-pointer",
                                         "truncated" };
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("test-mtz-XXXXXX", &error);

  g_assert_no_error (error);
  for (gsize i = 0; i < G_N_ELEMENTS (damages); i++)
    {
      g_autofree char *name = g_strconcat (damages[i], ".mtz", NULL);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      const char *argv[] = { "nanobragg", "-hkl", path, "-cell", "63.4",       "63.4",
                             "83.8",      "90",   "90", "120",   "-detpixels", "16" };
      nb_params p;
      nb_plan *plan = NULL;
      nb_error err;

      mtz_fixture_write_damaged (path, damages[i], -1);
      nb_params_init (&p);
      g_assert_cmpint (nb_params_parse_argv (&p, G_N_ELEMENTS (argv), argv, &err), ==, NB_OK);
      g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_ERR_PARSE);
      g_test_message ("%s", err.message);
      g_assert_null (plan);
      g_assert_true (g_str_has_prefix (err.message, path));
      g_assert_null (strchr (err.message, '\n'));
      nb_params_clear (&p);
      g_remove (path);
    }
  g_rmdir (dir);
}

/* Valid files the old reader mishandled or that take other paths: each reads
 * as the good file. */
static void
test_variants (void)
{
  bench b;
  tally t = { .kind = "valid variants" };
  gsize title, project;
  char line[MTZ_FIXTURE_RECORD + 1];

  bench_init (&b);
  /* a title ending in " -": libccp4 read the next line of stdin for it */
  title = mtz_fixture_record (&b.m, "TITLE", 0);
  g_snprintf (line, sizeof line, "%-80s", "TITLE Fcalc generated by gemmi -");
  patch (&b, title, (const guint8 *) line, MTZ_FIXTURE_RECORD);
  check (&b, SAME, &t, "TITLE ending in -");
  patch (&b, title, NULL, MTZ_FIXTURE_RECORD);
  /* a PROJECT record ending in "\": libccp4's stack was smashed */
  project = mtz_fixture_record (&b.m, "PROJECT", 0);
  patch (&b, project + 57, (const guint8 *) "\\", 1);
  check (&b, SAME, &t, "PROJECT ending in \\");
  patch (&b, project + 57, NULL, 1);
  /* big-endian: every word of the reflections and the pointer swapped */
  {
    guint8 *swapped = g_memdup2 (b.m.data, b.m.header);

    for (gsize at = 4; at < b.m.header; at += 4)
      if (at != 8)
        for (int k = 0; k < 2; k++)
          {
            guint8 c = swapped[at + (gsize) k];

            swapped[at + (gsize) k] = swapped[at + 3 - (gsize) k];
            swapped[at + 3 - (gsize) k] = c;
          }
    swapped[8] = swapped[9] = 0x11;
    patch (&b, 0, swapped, b.m.header);
    check (&b, SAME, &t, "big-endian");
    patch (&b, 0, NULL, b.m.header);
    g_free (swapped);
  }
  report (&t);
  bench_clear (&b);
}

/* VALM: a number marks missing amplitudes. */
static void
test_missing_number_flag (void)
{
  bench b;
  gsize valm;
  char line[MTZ_FIXTURE_RECORD + 1];
  float first[4];
  nb_hkl_grid g;
  nb_error err;

  bench_init (&b);
  for (int c = 0; c < 4; c++)
    {
      guint32 w = mtz_fixture_word (b.m.data + 80 + 4 * (gsize) c);

      memcpy (&first[c], &w, sizeof w);
    }
  valm = mtz_fixture_record (&b.m, "VALM", 0);
  g_snprintf (line, sizeof line, "VALM %-75.9g", (double) first[3]);
  patch (&b, valm, (const guint8 *) line, MTZ_FIXTURE_RECORD);
  g_assert_cmpint (nb_mtz_read (b.path, NULL, 0.0, DAMAGE_BUDGET, sizeof (double), &g, NULL, &err),
                   ==, NB_OK);
  g_assert_cmpfloat (
      nb_hkl_lookup_nearest (&b.good, (int) first[0], (int) first[1], (int) first[2], -1.0), ==,
      first[3]);
  g_assert_cmpfloat (
      nb_hkl_lookup_nearest (&g, (int) first[0], (int) first[1], (int) first[2], -1.0), ==, 0.0);
  nb_hkl_grid_clear (&g);
  /* not a number */
  memcpy (line + 5, "NAN?", 4);
  patch (&b, valm, (const guint8 *) line, MTZ_FIXTURE_RECORD);
  g_assert_cmpint (nb_mtz_read (b.path, NULL, 0.0, DAMAGE_BUDGET, sizeof (double), &g, NULL, &err),
                   ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "VALM"));
  bench_clear (&b);
}

/* listed_cells: the cells of @g that hold an amplitude (default_F 0). */
static long
listed_cells (const nb_hkl_grid *g)
{
  size_t cells = (size_t) (g->h_range + 1) * (g->k_range + 1) * (g->l_range + 1);
  long n = 0;

  for (size_t i = 0; i < cells; i++)
    n += g->F[i] != 0.0;
  return n;
}

/* read_with_symmetry: the 1HPV file with other symmetry records, read. */
static nb_status
read_with_symmetry (const char *dir,
                    const char *syminf,
                    const char *const *ops,
                    int n,
                    nb_hkl_grid *g,
                    nb_error *err)
{
  g_autofree char *path = g_build_filename (dir, "symmetry.mtz", NULL);
  g_autoptr (GError) error = NULL;
  MtzFixture m;
  nb_status st;

  mtz_fixture_load (&m, -1);
  mtz_fixture_set_symmetry (&m, syminf, ops, n);
  g_assert_true (g_file_set_contents (path, (const char *) m.data, (gssize) m.size, &error));
  mtz_fixture_clear (&m);
  st = nb_mtz_read (path, NULL, 0.0, DAMAGE_BUDGET, sizeof (double), g, NULL, err);
  g_remove (path);
  return st;
}

/* Space groups: centring operators repeat the primitive rotations; the
 * rotations must form a group of SYMINF's size, within the limits. */
static void
test_symmetry (void)
{
  static const char *const p61[] = { "X,Y,Z",       "X-Y,X,Z+1/6",   "-Y,X-Y,Z+1/3",
                                     "-X,-Y,Z+1/2", "-X+Y,-X,Z+2/3", "Y,-X+Y,Z+5/6" };
  static const char *const c2[] = { "X,  Y,  Z", "-X,  Y,  -Z", "1/2+X,  1/2+Y,  Z",
                                    "1/2-X,1/2+Y,-Z" };
  static const char *const not_group[] = { "X,Y,Z",       "X-Y,X,Z+1/6",   "-Y,X-Y,Z+1/3",
                                           "-X,-Y,Z+1/2", "-X+Y,-X,Z+2/3", "Y,X,Z+5/6" };
  static const char *const repeated[] = { "X,Y,Z", "X,Y,Z+1/2" };
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("test-mtz-XXXXXX", &error);
  const char *many[MTZ_FIXTURE_RECORD * 3];
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  nb_hkl_grid g, h;
  nb_error err;
  long cells[3];
  int n = 0;

  /* the file's own records, rewritten, read the same; C 1 2 1 reads as
   * P 1 2 1 (centring adds no rotation); each group's rotations fill more of
   * the grid than a subgroup's: P 1 < P 1 2 1 < P 61 */
  g_assert_cmpint (read_with_symmetry (dir, "SYMINF   6  6 P   169 'P 61' PG6", p61, 6, &g, &err),
                   ==, NB_OK);
  cells[2] = listed_cells (&g);
  nb_hkl_grid_clear (&g);
  g_assert_cmpint (read_with_symmetry (dir, "SYMINF 4 2 C 5 'C 1 2 1' PG2", c2, 4, &g, &err), ==,
                   NB_OK);
  g_assert_cmpint (read_with_symmetry (dir, "SYMINF 2 2 P 3 'P 1 2 1' PG2", c2, 2, &h, &err), ==,
                   NB_OK);
  g_assert_true (same_grid (&g, &h));
  cells[1] = listed_cells (&g);
  nb_hkl_grid_clear (&g);
  nb_hkl_grid_clear (&h);
  g_assert_cmpint (read_with_symmetry (dir, "SYMINF 1 1 P 1 'P 1' PG1", c2, 1, &g, &err), ==,
                   NB_OK);
  cells[0] = listed_cells (&g);
  nb_hkl_grid_clear (&g);
  g_test_message ("cells listed: P 1 %ld, P 1 2 1 %ld, P 61 %ld", cells[0], cells[1], cells[2]);
  g_assert_cmpint (cells[0], <, cells[1]);
  g_assert_cmpint (cells[1], <, cells[2]);

  /* refused: not a group, a count that disagrees, too many */
  g_assert_cmpint (read_with_symmetry (dir, "SYMINF 6 6 P 169 'P 61' PG6", not_group, 6, &g, &err),
                   ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "no group"));
  g_assert_cmpint (read_with_symmetry (dir, "SYMINF 6 3 P 169 'P 61' PG6", p61, 6, &g, &err), ==,
                   NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "6 different rotations"));
  g_assert_cmpint (read_with_symmetry (dir, "SYMINF 2 2 P 1 'P 1' PG1", repeated, 2, &g, &err), ==,
                   NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "1 different rotations"));
  /* the 48 signed permutations, and one hexagonal rotation more */
  for (int perm = 0; perm < 6; perm++)
    for (int signs = 0; signs < 8; signs++)
      {
        static const char axes[6][4] = { "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX" };

        g_ptr_array_add (names,
                         g_strdup_printf ("%c%c,%c%c,%c%c", signs & 1 ? '-' : '+', axes[perm][0],
                                          signs & 2 ? '-' : '+', axes[perm][1],
                                          signs & 4 ? '-' : '+', axes[perm][2]));
        many[n++] = g_ptr_array_index (names, names->len - 1);
      }
  many[n++] = "X-Y,X,Z";
  g_assert_cmpint (read_with_symmetry (dir, "SYMINF 49 49 P 0 'X' PGX", many, n, &g, &err), ==,
                   NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "more than 48 different rotations"));
  for (n = 0; n < 193; n++)
    many[n] = "X,Y,Z";
  g_assert_cmpint (read_with_symmetry (dir, "SYMINF 192 1 P 1 'P 1' PG1", many, n, &g, &err), ==,
                   NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "more than 192 symmetry operators"));
  g_rmdir (dir);
}

/* The MTZ file's cell and space group reach the plan; under another cell
 * (thaumatin's) the plan says they cannot belong to it, once, in its log;
 * under 1HPV's own it says nothing.  nb_cell_differs: another setting of
 * the same cell, or a refined one, is the same. */
static void
test_cell_warning (void)
{
  g_autofree char *mtz = data_path ("1hpv_fcalc.mtz");
  static const double hpv[6] = { 63.4, 63.4, 83.8, 90, 90, 120 };
  static const double setting[6] = { 83.8, 63.4, 63.4, 120, 90, 90 };
  static const double refined[6] = { 63.5, 63.3, 84.0, 90, 90, 119.8 };
  static const double thaumatin[6] = { 57.8, 57.8, 150.2, 90, 90, 90 };
  static const double unknown[6] = { 0, 0, 0, 0, 0, 0 };
  const char *cells[2] = { "57.8 57.8 150.2 90 90 90", "63.4 63.4 83.8 90 90 120" };

  g_assert_false (nb_cell_differs (hpv, setting));
  g_assert_false (nb_cell_differs (hpv, refined));
  g_assert_true (nb_cell_differs (hpv, thaumatin));
  g_assert_false (nb_cell_differs (hpv, unknown));
  for (int c = 0; c < 2; c++)
    {
      g_autofree char *cmd =
          g_strdup_printf ("-hkl %s -cell %s -detpixels 64 -pixel 0.4", mtz, cells[c]);
      nb_plan *plan = plan_new (cmd);
      const nb_plan_info *in = nb_plan_get_info (plan);
      const char *log = nb_plan_get_log (plan);

      for (int i = 0; i < 6; i++)
        g_assert_cmpfloat_with_epsilon (in->hkl_cell[i], hpv[i], 1e-3);
      g_assert_cmpstr (in->hkl_space_group, ==, "P 61");
      g_assert_cmpint (in->hkl_cell_differs, ==, c == 0);
      if (c == 0)
        {
          g_assert_nonnull (strstr (log, "WARNING: "));
          g_assert_nonnull (strstr (log, "is of the cell 63.4 63.4 83.8 90 90 120 (P 61), not the "
                                         "crystal's 57.8 57.8 150.2 90 90 90"));
          g_assert_null (strstr (strstr (log, "WARNING: ") + 1, "WARNING: "));
        }
      else
        g_assert_null (strstr (log, "WARNING: "));
      nb_plan_destroy (plan);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mtz/expansion-matches-p1", test_expansion_matches_p1);
  g_test_add_func ("/mtz/errors", test_errors);
  g_test_add_func ("/mtz/image-matches", test_image_matches);
  g_test_add_func ("/mtz/variants", test_variants);
  g_test_add_func ("/mtz/symmetry", test_symmetry);
  g_test_add_func ("/mtz/missing-number-flag", test_missing_number_flag);
  g_test_add_func ("/mtz/damaged-copies", test_damaged_copies);
  g_test_add_func ("/mtz/damaged-plan", test_damaged_plan);
  g_test_add_func ("/mtz/cell-warning", test_cell_warning);
  return g_test_run ();
}
