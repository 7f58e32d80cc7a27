/* test-bad-inputs.c: libbraggscope refuses bad input with one clear error and
 * keeps working (issue 7, the plugin's side of the bad-input table).
 *
 * One simulation receives every bad input of the table in turn: nanoBragg
 * flags (set_from_args), property values, structure-factor files, snapshots
 * to restore.  Each row checks the GError's domain and code, that its
 * message is one line naming the input, and that a rejected change changed
 * nothing (the sequence stays; files are read by the worker, so their errors
 * come through the error signal and the row then takes the file back).
 * After the whole table a valid change renders the engine's image.
 *
 * The writers (braggscope_snapshot_save, braggscope_frame_save_float and
 * _smv) run against a folder that cannot be written and already holds files
 * of the names asked for: each call fails naming the path and every file is
 * byte-identical afterwards.  As root every folder is writable, so that part
 * runs in a subprocess that first becomes the user nobody.
 */
#define _DEFAULT_SOURCE 1 /* setgroups () */

#include "plugin-test-util.h"

#include "../mtz-fixtures.h"

#include <errno.h>
#include <grp.h>
#include <unistd.h>
#include <png.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <zlib.h>

#define DIR_ENV   "BRAGGSCOPE_TEST_BAD_INPUTS_DIR"
#define CHILD_ENV "BRAGGSCOPE_TEST_BAD_INPUTS_CHILD"

typedef enum
{
  ARGS,              /* braggscope_simulation_set_from_args (args) */
  PROPERTY,          /* args[0] = property, args[1] = value (number, or the string) */
  STRUCTURE_FACTORS, /* the structure-factors property = file args[0] */
  LOAD_SNAPSHOT,     /* braggscope_simulation_load_snapshot (file args[0]) */
} Kind;

typedef struct
{
  Kind kind;
  const char *args[8]; /* file names are relative to the fixture folder */
  BraggscopeError code;
  const char *mention;  /* the message names this */
  gboolean from_worker; /* reported when the worker reads the file */
} BadInput;

static const BadInput table[] = {
  /* nanoBragg flags: unknown, incomplete, not numbers, not finite */
  { ARGS, { "-frobnicate", "1" }, BRAGGSCOPE_ERROR_INVALID, "-frobnicate" },
  { ARGS, { "-lambda" }, BRAGGSCOPE_ERROR_INVALID, "-lambda" },
  { ARGS, { "-misset", "10", "20" }, BRAGGSCOPE_ERROR_INVALID, "-misset" },
  { ARGS, { "42" }, BRAGGSCOPE_ERROR_INVALID, "'42'" },
  { ARGS, { "-distance", "far" }, BRAGGSCOPE_ERROR_INVALID, "'far'" },
  { ARGS, { "-lambda", "nan" }, BRAGGSCOPE_ERROR_INVALID, "'nan'" },
  { ARGS, { "-pixel", "inf" }, BRAGGSCOPE_ERROR_INVALID, "'inf'" },
  { ARGS, { "-lambda", "1,5" }, BRAGGSCOPE_ERROR_INVALID, "'1,5'" },
  { ARGS, { "-precision", "quad" }, BRAGGSCOPE_ERROR_INVALID, "'quad'" },
  /* impossible cells */
  { ARGS, { "-cell", "10", "10", "10", "170", "170", "170" }, BRAGGSCOPE_ERROR_INVALID, "-cell" },
  { ARGS, { "-cell", "-10", "10", "10", "90", "90", "90" }, BRAGGSCOPE_ERROR_INVALID, "-10" },
  /* zero and negative sizes and counts */
  { ARGS, { "-pixel", "0" }, BRAGGSCOPE_ERROR_INVALID, "-pixel 0" },
  { ARGS, { "-detpixels", "0" }, BRAGGSCOPE_ERROR_INVALID, "-detpixels" },
  { ARGS, { "-distance", "-5" }, BRAGGSCOPE_ERROR_INVALID, "-distance -5" },
  { ARGS, { "-N", "-3" }, BRAGGSCOPE_ERROR_INVALID, "-N -3" },
  { ARGS, { "-xtalsize", "-1" }, BRAGGSCOPE_ERROR_INVALID, "-xtalsize -1" },
  { ARGS, { "-lambda", "0" }, BRAGGSCOPE_ERROR_INVALID, "-lambda 0" },
  { ARGS, { "-mosaic", "-1" }, BRAGGSCOPE_ERROR_INVALID, "-mosaic" },
  /* property values */
  { PROPERTY, { "wavelength", "nan" }, BRAGGSCOPE_ERROR_INVALID, "wavelength" },
  { PROPERTY, { "wavelength", "-1" }, BRAGGSCOPE_ERROR_INVALID, "wavelength" },
  /* below any physical wavelength or cell edge (issue 23) */
  { PROPERTY, { "wavelength", "1e-15" }, BRAGGSCOPE_ERROR_INVALID, "wavelength" },
  { PROPERTY, { "cell-a", "1e-15" }, BRAGGSCOPE_ERROR_INVALID, "cell-a" },
  { ARGS, { "-cell", "1e-15", "100", "100", "90", "90", "90" }, BRAGGSCOPE_ERROR_INVALID, "1e-15" },
  { PROPERTY, { "pixel-size", "0" }, BRAGGSCOPE_ERROR_INVALID, "pixel-size" },
  { PROPERTY, { "distance", "-100" }, BRAGGSCOPE_ERROR_INVALID, "distance" },
  { PROPERTY, { "cell-alpha", "200" }, BRAGGSCOPE_ERROR_INVALID, "cell-alpha" },
  { PROPERTY, { "cell-b", "inf" }, BRAGGSCOPE_ERROR_INVALID, "cell-b" },
  { PROPERTY, { "mosaic-spread", "-0.5" }, BRAGGSCOPE_ERROR_INVALID, "mosaic-spread" },
  { PROPERTY, { "n-cells", "-2" }, BRAGGSCOPE_ERROR_INVALID, "n-cells" },
  { PROPERTY, { "detector-pixels-fast", "0" }, BRAGGSCOPE_ERROR_INVALID, "detector-pixels-fast" },
  { PROPERTY, { "oversample", "-1" }, BRAGGSCOPE_ERROR_INVALID, "oversample" },
  { PROPERTY, { "fluence", "nan" }, BRAGGSCOPE_ERROR_INVALID, "fluence" },
  { PROPERTY, { "polarization", "2" }, BRAGGSCOPE_ERROR_INVALID, "polarization" },
  /* structure factors */
  { STRUCTURE_FACTORS, { "missing.hkl" }, BRAGGSCOPE_ERROR_IO, "missing.hkl" },
  { STRUCTURE_FACTORS, { "empty.hkl" }, BRAGGSCOPE_ERROR_INVALID, "empty.hkl", TRUE },
  { STRUCTURE_FACTORS, { "bad.hkl" }, BRAGGSCOPE_ERROR_PARSE, "bad.hkl:3", TRUE },
  { STRUCTURE_FACTORS, { "bad.mtz" }, BRAGGSCOPE_ERROR_PARSE, "bad.mtz", TRUE },
  /* damaged as MTZ files that crashed or hung libccp4's reader (issue 18) */
  { STRUCTURE_FACTORS, { "end-record.mtz" }, BRAGGSCOPE_ERROR_PARSE, "end-record.mtz", TRUE },
  { STRUCTURE_FACTORS, { "symm-record.mtz" }, BRAGGSCOPE_ERROR_PARSE, "symm-record.mtz", TRUE },
  { STRUCTURE_FACTORS,
    { "header-pointer.mtz" },
    BRAGGSCOPE_ERROR_PARSE,
    "header-pointer.mtz",
    TRUE },
  { STRUCTURE_FACTORS, { "truncated.mtz" }, BRAGGSCOPE_ERROR_PARSE, "truncated.mtz", TRUE },
  /* a missing file fails the call that names it (issue 27), not the render */
  { ARGS, { "-hkl", "missing.hkl" }, BRAGGSCOPE_ERROR_IO, "missing.hkl" },
  /* snapshots */
  { LOAD_SNAPSHOT, { "missing.png" }, BRAGGSCOPE_ERROR_IO, "missing.png" },
  { LOAD_SNAPSHOT, { "not-a-png.png" }, BRAGGSCOPE_ERROR_PARSE, "not-a-png.png" },
  { LOAD_SNAPSHOT, { "truncated.png" }, BRAGGSCOPE_ERROR_PARSE, "truncated.png" },
  { LOAD_SNAPSHOT, { "plain.png" }, BRAGGSCOPE_ERROR_PARSE, "plain.png" },
  { LOAD_SNAPSHOT, { "bad-args.png" }, BRAGGSCOPE_ERROR_INVALID, "bad-args.png" },
  /* snapshots with their structure factors (bsFz, see make_sf_fixtures) */
  { LOAD_SNAPSHOT, { "sf-missing.png" }, BRAGGSCOPE_ERROR_IO, "gone.hkl (34 bytes, SHA-256" },
  { LOAD_SNAPSHOT, { "sf-bad-crc.png" }, BRAGGSCOPE_ERROR_PARSE, "bad CRC" },
  { LOAD_SNAPSHOT, { "sf-too-long.png" }, BRAGGSCOPE_ERROR_PARSE, "a bsFz chunk of 9000000 bytes" },
  { LOAD_SNAPSHOT, { "sf-cut.png" }, BRAGGSCOPE_ERROR_PARSE, "bsFz chunk is cut off" },
  { LOAD_SNAPSHOT, { "sf-version.png" }, BRAGGSCOPE_ERROR_PARSE, "unknown format (version 2" },
  { LOAD_SNAPSHOT, { "sf-evil-name.png" }, BRAGGSCOPE_ERROR_PARSE, "invalid file name" },
  /* issue 23: names the cache would hold and a terminal or the next save
   * would trip on (an escape sequence, a newline, a C1 control) */
  { LOAD_SNAPSHOT, { "sf-escape-name.png" }, BRAGGSCOPE_ERROR_PARSE, "invalid file name" },
  { LOAD_SNAPSHOT, { "sf-newline-name.png" }, BRAGGSCOPE_ERROR_PARSE, "invalid file name" },
  { LOAD_SNAPSHOT, { "sf-c1-name.png" }, BRAGGSCOPE_ERROR_PARSE, "invalid file name" },
  { LOAD_SNAPSHOT, { "sf-huge-size.png" }, BRAGGSCOPE_ERROR_PARSE, "invalid file name or a size" },
  { LOAD_SNAPSHOT, { "sf-short.png" }, BRAGGSCOPE_ERROR_PARSE, "does not inflate to its 35 bytes" },
  { LOAD_SNAPSHOT, { "sf-long.png" }, BRAGGSCOPE_ERROR_PARSE, "does not inflate to its 33 bytes" },
  { LOAD_SNAPSHOT,
    { "sf-wrong-sha.png" },
    BRAGGSCOPE_ERROR_PARSE,
    "the embedded gone.hkl has SHA-256" },
  { LOAD_SNAPSHOT, { "sf-disagree.png" }, BRAGGSCOPE_ERROR_PARSE, "name different files" },
  { LOAD_SNAPSHOT,
    { "sf-bad-text.png" },
    BRAGGSCOPE_ERROR_PARSE,
    "lacks a valid name, size or sha256" },
};

/* Files of the names the writers are asked for, in a folder nobody may write. */
static const char *const kept_files[] = { "snap.png", "frame.float", "frame.img" };

static char *dir;           /* the fixtures */
static const char *program; /* this test's executable, for the subprocess */
static gboolean is_child;   /* this process is that subprocess */

static char *
fixture (const char *name)
{
  return g_build_filename (dir, name, NULL);
}

static void
write_file (const char *name, const char *contents, gssize length)
{
  g_autofree char *path = fixture (name);
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (path, contents, length, &error));
  g_assert_no_error (error);
}

/* A 2 x 2 PNG whose "braggscope:args" text chunk holds @args. */
static void
write_png_with_args (const char *name, const char *args)
{
  g_autofree char *path = fixture (name);
  const guint8 row[2 * 4] = { 0, 0, 0, 255, 255, 255, 255, 255 };
  png_structp png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png_create_info_struct (png);
  png_text text = { .compression = PNG_TEXT_COMPRESSION_NONE,
                    .key = (char *) "braggscope:args",
                    .text = (char *) args };
  FILE *fp = fopen (path, "wb");

  g_assert_nonnull (fp);
  png_init_io (png, fp);
  png_set_IHDR (png, info, 2, 2, 8, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_text (png, info, &text, 1);
  png_write_info (png, info);
  png_write_row (png, row);
  png_write_row (png, row);
  png_write_end (png, info);
  png_destroy_write_struct (&png, &info);
  g_assert_cmpint (fclose (fp), ==, 0);
}

/* The chunks of a PNG file as (type, data) pairs, and back. */
typedef struct
{
  char type[5];
  GByteArray *data;
} PngChunk;

static GArray *
read_chunks (const char *name)
{
  g_autofree char *path = fixture (name);
  g_autofree guint8 *png = NULL;
  gsize length = 0;
  GArray *chunks = g_array_new (FALSE, TRUE, sizeof (PngChunk));

  g_assert_true (g_file_get_contents (path, (char **) &png, &length, NULL));
  for (gsize at = 8; at + 12 <= length;)
    {
      PngChunk c;
      guint32 n = (guint32) png[at] << 24 | (guint32) png[at + 1] << 16 |
                  (guint32) png[at + 2] << 8 | png[at + 3];

      memcpy (c.type, png + at + 4, 4);
      c.type[4] = '\0';
      c.data = g_byte_array_new ();
      g_byte_array_append (c.data, png + at + 8, n);
      g_array_append_val (chunks, c);
      at += 12 + (gsize) n;
    }
  return chunks;
}

/* Writes @chunks as PNG file @name: each with its length and a correct CRC
 * (@length_lie replaces the bsFz length; @crc_lie spoils its CRC; @cut stops
 * the file inside the bsFz chunk). */
static void
write_chunks (const char *name, GArray *chunks, guint32 length_lie, gboolean crc_lie, gboolean cut)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  static const guint8 signature[8] = { 137, 'P', 'N', 'G', 13, 10, 26, 10 };

  g_byte_array_append (out, signature, 8);
  for (guint i = 0; i < chunks->len; i++)
    {
      PngChunk *c = &g_array_index (chunks, PngChunk, i);
      gboolean sf = g_str_equal (c->type, "bsFz");
      guint32 length = GUINT32_TO_BE (sf && length_lie ? length_lie : c->data->len);
      guint32 crc =
          (guint32) crc32 (crc32 (0, (const guint8 *) c->type, 4), c->data->data, c->data->len);

      crc = GUINT32_TO_BE (sf && crc_lie ? crc ^ 1 : crc);
      g_byte_array_append (out, (const guint8 *) &length, 4);
      g_byte_array_append (out, (const guint8 *) c->type, 4);
      if (sf && cut)
        {
          g_byte_array_append (out, c->data->data, c->data->len / 2);
          break;
        }
      g_byte_array_append (out, c->data->data, c->data->len);
      g_byte_array_append (out, (const guint8 *) &crc, 4);
    }
  write_file (name, (const char *) out->data, out->len);
}

static void
free_chunks (GArray *chunks)
{
  for (guint i = 0; i < chunks->len; i++)
    g_byte_array_unref (g_array_index (chunks, PngChunk, i).data);
  g_array_unref (chunks);
}

static PngChunk *
chunk_of (GArray *chunks, const char *type, const char *key)
{
  for (guint i = 0; i < chunks->len; i++)
    {
      PngChunk *c = &g_array_index (chunks, PngChunk, i);

      if (g_str_equal (c->type, type) &&
          (key == NULL ||
           (c->data->len > strlen (key) && memcmp (c->data->data, key, strlen (key) + 1) == 0)))
        return c;
    }
  g_error ("no %s chunk", type);
}

typedef enum
{
  SF_AS_SAVED,
  SF_NO_TEXT,   /* without the structure-factors text chunk: bsFz alone */
  SF_TEXT_ONLY, /* without bsFz */
} SfVariant;

/* A variant of the snapshot sf.png: @edit changes the bsFz data (after its
 * header, offset 0 is the version byte). */
static void
write_sf_variant (const char *name,
                  SfVariant variant,
                  void (*edit) (GByteArray *bsfz),
                  guint32 length_lie,
                  gboolean crc_lie,
                  gboolean cut)
{
  GArray *chunks = read_chunks ("sf.png");

  if (edit != NULL)
    edit (chunk_of (chunks, "bsFz", NULL)->data);
  for (guint i = chunks->len; i-- > 0;)
    {
      PngChunk *c = &g_array_index (chunks, PngChunk, i);
      gboolean text = g_str_equal (c->type, "tEXt") && c->data->len > 28 &&
                      memcmp (c->data->data, "braggscope:structure-factors", 29) == 0;

      if ((variant == SF_NO_TEXT && text) ||
          (variant == SF_TEXT_ONLY && g_str_equal (c->type, "bsFz")))
        {
          g_byte_array_unref (c->data);
          g_array_remove_index (chunks, i);
        }
    }
  write_chunks (name, chunks, length_lie, crc_lie, cut);
  free_chunks (chunks);
}

static void
edit_version (GByteArray *b)
{
  b->data[0] = 2;
}

static void
edit_name (GByteArray *b)
{
  /* "gone.hkl" -> "../e.hkl" */
  memcpy (b->data + 44, "../e", 4);
}

static void
edit_escape_name (GByteArray *b)
{
  /* "gone.hkl" -> ESC "[2J" "e.hkl": clears the terminal that lists the cache */
  memcpy (b->data + 44, "\033[2J", 4);
}

static void
edit_newline_name (GByteArray *b)
{
  b->data[44 + 2] = '\n';
}

static void
edit_c1_name (GByteArray *b)
{
  /* U+009B, the C1 control sequence introducer, in UTF-8 */
  memcpy (b->data + 44, "\xc2\x9b", 2);
}

static void
edit_huge_size (GByteArray *b)
{
  b->data[4] = 1; /* 2^56 bytes and more */
}

static void
edit_size (GByteArray *b, int delta)
{
  b->data[11] = (guint8) (b->data[11] + delta);
}

static void
edit_size_up (GByteArray *b)
{
  edit_size (b, +1);
}

static void
edit_size_down (GByteArray *b)
{
  edit_size (b, -1);
}

static void
edit_sha (GByteArray *b)
{
  b->data[12] ^= 0xff;
}

/* Snapshots of a scene whose 34-byte structure-factor file gone.hkl is no
 * longer there: embedded (sf.png) and damaged in every way the reader checks,
 * and not embedded (sf-missing.png). */
static void
make_sf_fixtures (void)
{
  static const guint8 rgba[4 * 4] = { 0 };
  g_autofree char *hkl = fixture ("gone.hkl");
  g_autofree char *png = fixture ("sf.png");
  g_autofree char *missing = fixture ("sf-missing.png");
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_autoptr (GError) error = NULL;
  GArray *chunks;
  PngChunk *text;

  write_file ("gone.hkl", "1 2 3 100\n-1 0 4 50.5\n0 0 2 20.25\n", -1);
  g_object_set (sim, "structure-factors", hkl, NULL);
  g_assert_true (braggscope_snapshot_save (png, rgba, 2, 2, sim, &error));
  g_setenv ("BRAGGSCOPE_SNAPSHOT_EMBED_LIMIT", "0", TRUE);
  g_assert_true (braggscope_snapshot_save (missing, rgba, 2, 2, sim, &error));
  g_unsetenv ("BRAGGSCOPE_SNAPSHOT_EMBED_LIMIT");
  g_assert_no_error (error);
  g_unlink (hkl);

  write_sf_variant ("sf-bad-crc.png", SF_AS_SAVED, NULL, 0, TRUE, FALSE);
  write_sf_variant ("sf-too-long.png", SF_AS_SAVED, NULL, 9000000, FALSE, FALSE);
  write_sf_variant ("sf-cut.png", SF_AS_SAVED, NULL, 0, FALSE, TRUE);
  write_sf_variant ("sf-version.png", SF_NO_TEXT, edit_version, 0, FALSE, FALSE);
  write_sf_variant ("sf-evil-name.png", SF_NO_TEXT, edit_name, 0, FALSE, FALSE);
  write_sf_variant ("sf-escape-name.png", SF_NO_TEXT, edit_escape_name, 0, FALSE, FALSE);
  write_sf_variant ("sf-newline-name.png", SF_NO_TEXT, edit_newline_name, 0, FALSE, FALSE);
  write_sf_variant ("sf-c1-name.png", SF_NO_TEXT, edit_c1_name, 0, FALSE, FALSE);
  write_sf_variant ("sf-huge-size.png", SF_NO_TEXT, edit_huge_size, 0, FALSE, FALSE);
  write_sf_variant ("sf-short.png", SF_NO_TEXT, edit_size_up, 0, FALSE, FALSE);
  write_sf_variant ("sf-long.png", SF_NO_TEXT, edit_size_down, 0, FALSE, FALSE);
  write_sf_variant ("sf-wrong-sha.png", SF_NO_TEXT, edit_sha, 0, FALSE, FALSE);
  write_sf_variant ("sf-disagree.png", SF_AS_SAVED, edit_sha, 0, FALSE, FALSE);

  /* a text chunk without its sha256 line */
  chunks = read_chunks ("sf.png");
  text = chunk_of (chunks, "tEXt", "braggscope:structure-factors");
  g_byte_array_set_size (text->data, text->data->len - 71);
  write_chunks ("sf-bad-text.png", chunks, 0, FALSE, FALSE);
  free_chunks (chunks);
}

static void
make_fixtures (void)
{
  static const guint8 rgba[4 * 4] = { 0 };
  static const char mtz[] = "MTZ \x00\x00\x00\x00 not really an MTZ file";
  g_autofree char *plain = fixture ("plain.png");
  g_autofree char *locked = fixture ("locked");
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  gsize length = 0;

  write_file ("empty.hkl", "", 0);
  write_file ("bad.hkl", "1 2 3 100\n2 0 0 50\n1 2 x 5\n", -1);
  write_file ("bad.mtz", mtz, sizeof mtz - 1);
  for (gsize i = 0; i < G_N_ELEMENTS (table); i++)
    if (g_str_has_suffix (table[i].args[0], ".mtz") && !g_str_equal (table[i].args[0], "bad.mtz"))
      {
        g_autofree char *path = fixture (table[i].args[0]);
        g_autofree char *damage = g_strndup (table[i].args[0], strlen (table[i].args[0]) - 4);

        mtz_fixture_write_damaged (path, damage, -1);
      }
  write_file ("not-a-png.png", "this is text, not a picture\n", -1);
  /* a PNG without our chunks: a snapshot of no simulation */
  g_assert_true (braggscope_snapshot_save (plain, rgba, 2, 2, NULL, &error));
  g_assert_no_error (error);
  /* the same, cut off after its header */
  g_assert_true (g_file_get_contents (plain, &contents, &length, NULL));
  g_assert_cmpuint (length, >, 40);
  write_file ("truncated.png", contents, 40);
  write_png_with_args ("bad-args.png", "nanobragg\n-lambda\nblue\n");
  {
    g_autofree char *fifo = fixture ("pipe.in");

    g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  }
  make_sf_fixtures ();

  g_assert_cmpint (g_mkdir (locked, 0755), ==, 0);
  for (gsize i = 0; i < G_N_ELEMENTS (kept_files); i++)
    {
      g_autofree char *name = g_build_filename ("locked", kept_files[i], NULL);
      g_autofree char *text = g_strdup_printf ("the precious %s\n", kept_files[i]);

      write_file (name, text, -1);
    }
  g_assert_cmpint (g_chmod (locked, 0555), ==, 0);
  /* the subprocess may run as another user: it must reach the fixtures */
  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
}

static gboolean
set_property_from_string (BraggscopeSimulation *sim, const char *name, const char *text)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (sim), name);
  GValue value = G_VALUE_INIT;

  g_assert_nonnull (pspec);
  g_value_init (&value, pspec->value_type);
  if (pspec->value_type == G_TYPE_DOUBLE)
    g_value_set_double (&value, g_ascii_strtod (text, NULL));
  else if (pspec->value_type == G_TYPE_INT)
    g_value_set_int (&value, atoi (text));
  else if (pspec->value_type == G_TYPE_STRING)
    g_value_set_string (&value, text);
  else
    g_assert_not_reached ();
  g_object_set_property (G_OBJECT (sim), name, &value);
  g_value_unset (&value);
  return TRUE;
}

/* Waits for an error from the worker; returns it (owned by @w). */
static GError *
wait_error (Watch *w, guint before, double timeout_s)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) (timeout_s * 1e6);

  while (w->errors->len <= before)
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("no error from the worker within %g s", timeout_s);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (200);
    }
  return watch_error (w, before);
}

static void
check_error (const GError *error, const BadInput *row, const char *what)
{
  g_test_message ("%s: %s", what, error != NULL ? error->message : "(no error)");
  g_assert_nonnull (error);
  g_assert_error ((GError *) error, BRAGGSCOPE_ERROR, (int) row->code);
  g_assert_null (strchr (error->message, '\n'));
  if (strstr (error->message, row->mention) == NULL)
    g_error ("%s: the message '%s' does not name '%s'", what, error->message, row->mention);
  /* a property's message names the property (mention) and the value */
  if (row->kind == PROPERTY && strstr (error->message, row->args[1]) == NULL)
    g_error ("%s: the message '%s' does not give the value", what, error->message);
}

static void
test_table (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_autoptr (BraggscopeSimulation) expect = simulation_from_cmdline (SMALL_SCENE " -lambda 1.2");
  g_auto (GStrv) expect_args = braggscope_simulation_to_args (expect);
  BraggscopeFrame *frame;
  Watch w;

  g_assert_cmpuint (G_N_ELEMENTS (table), >=, 25);
  watch_init (&w, sim);
  w.keep_frames = FALSE;
  braggscope_simulation_render (sim);
  watch_wait_full (&w, 30);

  for (gsize i = 0; i < G_N_ELEMENTS (table); i++)
    {
      const BadInput *row = &table[i];
      g_autofree char *what = g_strjoinv (" ", (char **) row->args);
      g_autofree char *file = fixture (row->args[0]);
      g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GError) error = NULL;
      guint64 sequence = braggscope_simulation_get_sequence (sim);
      guint errors = w.errors->len;

      switch (row->kind)
        {
          case ARGS:
            /* the value of -hkl names a fixture */
            for (gsize k = 0; row->args[k] != NULL; k++)
              g_ptr_array_add (args, k > 0 && g_str_equal (row->args[k - 1], "-hkl")
                                         ? fixture (row->args[k])
                                         : g_strdup (row->args[k]));
            g_ptr_array_add (args, NULL);
            if (braggscope_simulation_set_from_args (sim, (const char *const *) args->pdata,
                                                     &error))
              g_assert_true (row->from_worker);
            break;
          case PROPERTY:
            set_property_from_string (sim, row->args[0], row->args[1]);
            break;
          case STRUCTURE_FACTORS:
            g_object_set (sim, "structure-factors", file, NULL);
            break;
          case LOAD_SNAPSHOT:
            g_assert_false (braggscope_simulation_load_snapshot (sim, file, &error));
            break;
        }

      if (row->from_worker)
        {
          /* accepted, then refused by the worker reading the file */
          g_assert_no_error (error);
          g_assert_cmpuint (braggscope_simulation_get_sequence (sim), >, sequence);
          check_error (wait_error (&w, errors, 30), row, what);
          /* take the file back: the scene renders again */
          g_object_set (sim, "structure-factors", NULL, NULL);
          watch_wait_full (&w, 30);
          continue;
        }
      if (error == NULL)
        {
          /* properties report through the error signal, at once */
          g_assert_cmpuint (w.errors->len, ==, errors + 1);
          error = g_error_copy (watch_error (&w, errors));
        }
      else
        g_assert_cmpuint (w.errors->len, ==, errors);
      check_error (error, row, what);
      /* nothing changed */
      g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, sequence);
    }

  /* still working: a valid change renders the engine's image of the
   * parameters, which are those of the scene with that change */
  g_object_set (sim, "wavelength", 1.2, NULL);
  frame = watch_wait_full (&w, 30);
  g_assert_true (g_strv_equal ((const char *const *) braggscope_frame_get_args (frame),
                               (const char *const *) expect_args));
  assert_frame_is_engine_image (frame, braggscope_frame_get_args (frame));
  watch_clear (&w);
}

/* The writers against the locked folder (see the file comment). */
static void
test_unwritable_folder (void)
{
  g_autofree char *locked = fixture ("locked");

  if (!is_child)
    {
      const char *argv[] = { program, "-p", "/bad-inputs/unwritable-folder", NULL };
      g_auto (GStrv) envp = g_get_environ ();
      g_autofree char *out = NULL, *err = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (GDir) listing = NULL;
      const char *name, *skip;
      guint n = 0;
      int status = 0;

      envp = g_environ_setenv (envp, DIR_ENV, dir, TRUE);
      envp = g_environ_setenv (envp, CHILD_ENV, "1", TRUE);
      g_assert_true (g_spawn_sync (NULL, (char **) argv, envp, G_SPAWN_DEFAULT, NULL, NULL, &out,
                                   &err, &status, &error));
      g_assert_no_error (error);
      if (!g_spawn_check_wait_status (status, NULL))
        g_error ("the subprocess failed:\n%s%s", out, err);
      if ((skip = strstr (out, "SKIP: ")) != NULL)
        {
          g_autofree char *reason = g_strndup (skip + 6, strcspn (skip + 6, "\n"));

          g_test_skip (reason);
          return;
        }
      g_test_message ("%s", out);

      /* every file is as it was, and no temporary file was left behind */
      for (gsize i = 0; i < G_N_ELEMENTS (kept_files); i++)
        {
          g_autofree char *path = g_build_filename (locked, kept_files[i], NULL);
          g_autofree char *expect = g_strdup_printf ("the precious %s\n", kept_files[i]);
          g_autofree char *contents = NULL;
          gsize length = 0;

          g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
          g_assert_cmpmem (contents, length, expect, strlen (expect));
        }
      listing = g_dir_open (locked, 0, NULL);
      g_assert_nonnull (listing);
      while ((name = g_dir_read_name (listing)) != NULL)
        n++;
      g_assert_cmpuint (n, ==, G_N_ELEMENTS (kept_files));
      return;
    }

  /* the subprocess: as root, become nobody first (before any thread starts) */
  if (geteuid () == 0)
    {
      if (setgroups (0, NULL) != 0 || setgid (65534) != 0 || setuid (65534) != 0)
        {
          g_print ("SKIP: cannot drop root privileges (%s), so no folder is unwritable\n",
                   g_strerror (errno));
          return;
        }
      /* changing user made the process undumpable, which would keep
       * LeakSanitizer (sanitizer builds) from inspecting it at exit */
      prctl (PR_SET_DUMPABLE, 1, 0, 0, 0);
    }
  if (access (locked, W_OK) == 0)
    {
      g_print ("SKIP: %s is writable even with mode 0555\n", locked);
      return;
    }

  {
    g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
    g_autofree char *png = g_build_filename (locked, "snap.png", NULL);
    g_autofree char *floats = g_build_filename (locked, "frame.float", NULL);
    g_autofree char *smv = g_build_filename (locked, "frame.img", NULL);
    static const guint8 rgba[4 * 4] = { 0 };
    GError *error = NULL;
    BraggscopeFrame *frame;
    Watch w;

    watch_init (&w, sim);
    braggscope_simulation_render (sim);
    frame = watch_wait_full (&w, 30);

    g_assert_false (braggscope_snapshot_save (png, rgba, 2, 2, sim, &error));
    g_test_message ("%s", error->message);
    g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
    g_assert_nonnull (strstr (error->message, png));
    g_clear_error (&error);

    g_assert_false (braggscope_frame_save_float (frame, floats, &error));
    g_test_message ("%s", error->message);
    g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
    g_assert_nonnull (strstr (error->message, floats));
    g_clear_error (&error);

    g_assert_false (braggscope_frame_save_smv (frame, smv, &error));
    g_test_message ("%s", error->message);
    g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
    g_assert_nonnull (strstr (error->message, smv));
    g_clear_error (&error);

    watch_clear (&w);
  }
}

/* The writers succeed where they may write, and replace the file whole. */
static void
test_writers_work (void)
{
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_autofree char *floats = fixture ("ok.float");
  g_autofree char *smv = fixture ("ok.img");
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  BraggscopeFrame *frame;
  gsize length = 0, n = 0;
  const float *data;
  Watch w;

  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  frame = watch_wait_full (&w, 30);
  data = braggscope_frame_get_data (frame, &n);

  write_file ("ok.float", "old", -1);
  g_assert_true (braggscope_frame_save_float (frame, floats, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (floats, &contents, &length, NULL));
  g_assert_cmpmem (contents, length, data, n * sizeof (float));
  g_clear_pointer (&contents, g_free);

  g_assert_true (braggscope_frame_save_smv (frame, smv, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (smv, &contents, &length, NULL));
  g_assert_cmpuint (length, ==, 512 + n * 2);
  g_assert_true (g_str_has_prefix (contents, "{\nHEADER_BYTES=512;\n"));
  g_assert_nonnull (strstr (contents, "SIZE1=64;"));
  watch_clear (&w);
}

/* Issue 23: a named pipe (or /dev/stdin, a terminal) named by a flag or a
 * snapshot blocked the worker in open() for ever (-hkl, -sourcefile, -mat,
 * -stol: no frame, no error, and the last unref never returned) or the main
 * thread in set_from_args() and load_snapshot() (-mask, -img).  Each is now
 * refused at once, naming the file, by the engine's readers. */
static void
test_fifo_inputs (void)
{
  static const char *const flags[] = { "-hkl",  "-sourcefile", "-mat", "-stol",
                                       "-dump", "-mask",       "-img", "-frame" };
  g_autofree char *fifo = fixture ("pipe.in");
  g_auto (GStrv) scene = g_strsplit (SMALL_SCENE, " ", -1);
  g_autofree char *scene_lines = g_strjoinv ("\n", scene);

  for (gsize i = 0; i < G_N_ELEMENTS (flags); i++)
    for (int snapshot = 0; snapshot < 2; snapshot++)
      {
        g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
        g_autofree char *name = g_strdup_printf ("fifo%s.png", flags[i]);
        g_autofree char *png = fixture (name);
        g_autofree char *text =
            g_strdup_printf ("nanobragg\n%s\n%s\n%s\n", scene_lines, flags[i], fifo);
        const char *args[] = { flags[i], fifo, NULL };
        g_autoptr (GError) error = NULL;
        const GError *reported;
        gint64 start = g_get_monotonic_time ();
        gboolean accepted;
        Watch w;

        watch_init (&w, sim);
        g_test_message ("%s %s%s", flags[i], fifo, snapshot ? " (in a snapshot)" : "");
        if (snapshot)
          {
            write_png_with_args (name, text);
            accepted = braggscope_simulation_load_snapshot (sim, png, &error);
          }
        else
          accepted = braggscope_simulation_set_from_args (sim, args, &error);
        if (accepted)
          braggscope_simulation_render (sim);
        /* a header (-mask, -img) is read at once; the other files by the worker */
        reported = accepted ? wait_error (&w, 0, 10) : error;
        g_assert_nonnull (reported);
        g_test_message ("%s", reported->message);
        if (snapshot && g_str_equal (flags[i], "-dump"))
          {
            /* a snapshot may not name an Fdump at all: -dump also names one to write */
            g_assert_error ((GError *) reported, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
            g_assert_nonnull (strstr (reported->message, "-dump names a file to write"));
            watch_clear (&w);
            continue;
          }
        g_assert_error ((GError *) reported, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
        g_assert_nonnull (strstr (reported->message, fifo));
        g_assert_nonnull (strstr (reported->message, "a named pipe (FIFO), not a regular file"));
        g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
        watch_clear (&w);
      }
}

/* Issue 23: an intensity scale so large that every pixel overflows (1e308
 * photons) gave a black frame with no error; nanobragg refuses the same
 * scene.  The worker runs the engine's check (nb_image_check_finite) and
 * reports through the error signal instead of delivering the frame. */
static void
test_non_finite_frame (void)
{
  static const char *const properties[] = { "default-f", "fluence", "water" };

  for (gsize i = 0; i < G_N_ELEMENTS (properties); i++)
    {
      g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
      const GError *error;
      guint frames;
      Watch w;

      watch_init (&w, sim);
      braggscope_simulation_render (sim);
      watch_wait_full (&w, 30);
      frames = w.frames->len;
      g_object_set (sim, properties[i], 1e308, NULL);
      error = wait_error (&w, 0, 30);
      g_test_message ("%s 1e308: %s", properties[i], error->message);
      g_assert_error ((GError *) error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, "non-finite pixels"));
      g_assert_nonnull (strstr (error->message, "-default_F"));
      g_assert_null (strchr (error->message, '\n'));
      /* no frame of those parameters was delivered, preview or full */
      spin (0.2);
      g_assert_cmpuint (w.frames->len, ==, frames);
      watch_clear (&w);
    }
}

/* Issue 23: error messages carried raw bytes of the files (and of file names
 * in another encoding), which PyGObject cannot convert to str.  Every GError
 * of the library is valid UTF-8, quoting at most a short escaped excerpt. */
static void
test_messages_are_utf8 (void)
{
  g_autofree char *latin1 = fixture ("caf\xe9-missing.hkl");
  g_autofree char *binary = fixture ("binary-bytes.hkl");
  const char *const files[] = { latin1, binary };

  write_file ("binary-bytes.hkl", "\xff\xfe\xfd\xfc 1 2 3\n", -1);
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
      const char *args[] = { "-hkl", files[i], NULL };
      g_autoptr (GError) refused = NULL;
      const GError *error;
      Watch w;

      watch_init (&w, sim);
      /* the missing file is refused by the call, the malformed one by the render */
      if (braggscope_simulation_set_from_args (sim, args, &refused))
        {
          braggscope_simulation_render (sim);
          error = wait_error (&w, 0, 30);
        }
      else
        error = refused;
      g_assert_cmpint (i == 0, ==, refused != NULL);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      g_test_message ("%s", error->message);
      if (i == 1)
        g_assert_nonnull (strstr (error->message, "'\\xff\\xfe\\xfd\\xfc'"));
      watch_clear (&w);
    }
}

static void
remove_tree (const char *path)
{
  g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
  const char *name;

  if (d != NULL)
    {
      g_chmod (path, 0755);
      while ((name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_unlink (path);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  gboolean own_dir;
  int status;

  program = argv[0];
  g_test_init (&argc, &argv, NULL);

  /* a subprocess works in its parent's fixtures */
  is_child = g_getenv (CHILD_ENV) != NULL && g_getenv (DIR_ENV) != NULL;
  own_dir = !is_child;
  if (own_dir)
    {
      dir = g_dir_make_tmp ("braggscope-bad-inputs-XXXXXX", &error);
      g_assert_no_error (error);
      make_fixtures ();
    }
  else
    dir = g_strdup (g_getenv (DIR_ENV));

  g_test_add_func ("/bad-inputs/table", test_table);
  g_test_add_func ("/bad-inputs/unwritable-folder", test_unwritable_folder);
  g_test_add_func ("/bad-inputs/writers-work", test_writers_work);
  g_test_add_func ("/bad-inputs/fifo", test_fifo_inputs);
  g_test_add_func ("/bad-inputs/non-finite-frame", test_non_finite_frame);
  g_test_add_func ("/bad-inputs/messages-are-utf8", test_messages_are_utf8);
  status = g_test_run ();

  if (own_dir)
    remove_tree (dir);
  g_free (dir);
  return status;
}
