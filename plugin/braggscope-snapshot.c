/* braggscope-snapshot.c: PNG snapshots through libpng, with the parameters in text chunks and
 * the structure factors inside, so that a snapshot reopens on another machine.
 *
 * A snapshot holds the picture as shown (RGBA, 8 bits per channel) and, before
 * the image data (braggscope-snapshot-chunks.c reads them, wherever they
 * stand, without decoding it):
 *   Software                      "Braggscope <version>"
 *   braggscope:command-line       the equivalent nanobragg command line
 *   braggscope:args               braggscope_simulation_to_args(), one per line
 *   braggscope:structure-factors  the -hkl file: "name=", "size=", "sha256=" and
 *                                 "embedded=" lines (when the file could be read)
 *   bsFz                          the -hkl file itself, zlib-compressed (when small enough)
 * Text chunks are tEXt when their text is printable ASCII (what exiftool,
 * ImageMagick's identify -verbose and most viewers show), else iTXt (UTF-8).
 *
 * bsFz follows the PNG chunk naming rules: b lowercase, ancillary (a decoder
 * may ignore it); s lowercase, private (not a registered chunk); F uppercase,
 * the reserved bit clear; z lowercase, safe to copy (it does not depend on the
 * pixels, so an editor that changes the image may keep it).  Its data, all
 * integers big-endian as PNG's own:
 *   1 byte   format version, 1
 *   1 byte   compression: 0 = zlib stream (RFC 1950)
 *   2 bytes  length of the name in bytes (1..255)
 *   8 bytes  size of the file in bytes
 *   32 bytes SHA-256 of the file
 *   name     the file's base name, UTF-8, no '/'
 *   rest     the zlib stream of the file
 * The file's bytes travel, not a parsed reflection list: the same bytes give
 * the same SHA-256, the same parse (HKL or MTZ alike) and so the same image,
 * and text reflection lists compress well (1HPV's 3.97 MB to 0.69 MB), better
 * than a list of binary F values would (their low bits are noise).
 *
 * The PNG is encoded in memory and written by the engine's
 * nb_write_file_atomic(), the writer of every other output (the CLI's files,
 * the float and SMV exports): a file is written to a temporary name in the
 * target folder and renamed, so a failed or interrupted save never leaves half
 * a PNG under the name; a link's target is replaced and the link kept; a
 * device, pipe or socket is written through.
 */
#include "braggscope-snapshot.h"
#include "braggscope-private.h"
#include "braggscope-snapshot-private.h"

#include "nb-io.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define ARGS_KEY         SNAPSHOT_ARGS_KEY
#define COMMAND_LINE_KEY SNAPSHOT_COMMAND_LINE_KEY
#define SF_KEY           SNAPSHOT_SF_KEY

typedef struct
{
  jmp_buf jump;
  char message[256];
} png_failure;

/* What a snapshot says about its -hkl file. */
typedef struct
{
  char *name;       /* base name */
  guint64 size;     /* bytes */
  char sha256[65];  /* lowercase hex */
  GBytes *embedded; /* the zlib stream of bsFz, or NULL */
} StructureFactors;

static void
structure_factors_clear (StructureFactors *sf)
{
  g_clear_pointer (&sf->name, g_free);
  g_clear_pointer (&sf->embedded, g_bytes_unref);
  memset (sf, 0, sizeof *sf);
}

static void
on_png_error (png_structp png, png_const_charp message)
{
  png_failure *f = png_get_error_ptr (png);

  g_strlcpy (f->message, message, sizeof f->message);
  longjmp (f->jump, 1);
}

static void
on_png_warning (png_structp png, png_const_charp message)
{
  /* the library never prints; a warning does not stop the file */
}

static gboolean
is_printable_ascii (const char *text)
{
  for (const char *c = text; *c != '\0'; c++)
    if (*c != '\n' && (*c < 0x20 || *c > 0x7e))
      return FALSE;
  return TRUE;
}

static void
add_text (png_text *text, int *n, const char *key, char *value)
{
  text[*n].compression =
      is_printable_ascii (value) ? PNG_TEXT_COMPRESSION_NONE : PNG_ITXT_COMPRESSION_NONE;
  text[*n].key = (char *) key;
  text[*n].text = value;
  (*n)++;
}

static void
put_be (guint8 *out, guint64 value, int bytes)
{
  for (int i = bytes - 1; i >= 0; i--, value >>= 8)
    out[i] = (guint8) value;
}

static guint64
get_be (const guint8 *in, int bytes)
{
  guint64 value = 0;

  for (int i = 0; i < bytes; i++)
    value = value << 8 | in[i];
  return value;
}

/* The largest file a snapshot embeds: SF_EMBED_MAX, or less through
 * $BRAGGSCOPE_SNAPSHOT_EMBED_LIMIT (bytes; 0 never embeds). */
static gsize
embed_limit (void)
{
  const char *env = g_getenv ("BRAGGSCOPE_SNAPSHOT_EMBED_LIMIT");
  guint64 limit;

  if (env == NULL || !g_ascii_string_to_unsigned (env, 10, 0, G_MAXUINT64, &limit, NULL))
    return SF_EMBED_MAX;
  return (gsize) MIN (limit, SF_EMBED_MAX);
}

/* A name a snapshot may give its structure-factor file: one path component,
 * which the cache holds under that name and messages and file choosers show:
 * no control character (a newline, which no argument line can hold, or the
 * escape sequences of a terminal: C0, DEL, and C1 whether UTF-8 or single
 * bytes).  Other bytes that are not UTF-8 are a file system's own. */
static gboolean
valid_file_name (const char *name, gsize length)
{
  gboolean utf8 = g_utf8_validate_len (name, length, NULL);

  if (length == 0 || length > SF_NAME_MAX || memchr (name, '/', length) != NULL ||
      (length == 1 && name[0] == '.') || (length == 2 && name[0] == '.' && name[1] == '.'))
    return FALSE;
  for (const char *c = name; c < name + length; c = utf8 ? g_utf8_next_char (c) : c + 1)
    {
      gunichar u = utf8 ? g_utf8_get_char (c) : (guchar) *c;

      if (u < 0x20 || (u >= 0x7f && u <= 0x9f))
        return FALSE;
    }
  return TRUE;
}

/* Reads the -hkl file @path into @sf: name, size, SHA-256 and, when small
 * enough, its zlib stream.  FALSE when it cannot be read (the snapshot then
 * keeps only its path, as the args have it). */
static gboolean
structure_factors_read (const char *path, StructureFactors *sf)
{
  g_autoptr (GMappedFile) file = g_mapped_file_new (path, FALSE, NULL);
  const guint8 *data;
  gsize size;

  if (file == NULL)
    return FALSE;
  data = (const guint8 *) g_mapped_file_get_contents (file);
  size = g_mapped_file_get_length (file);
  sf->name = g_path_get_basename (path);
  if (!valid_file_name (sf->name, strlen (sf->name)))
    {
      /* a name the reader would refuse: the path alone, as for a file that
       * cannot be read */
      g_clear_pointer (&sf->name, g_free);
      return FALSE;
    }
  sf->size = size;
  {
    g_autofree char *hex = g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, size);
    g_strlcpy (sf->sha256, hex, sizeof sf->sha256);
  }
  if (size <= embed_limit () && strlen (sf->name) <= SF_NAME_MAX)
    {
      uLongf compressed_size = compressBound (size);
      guint8 *compressed = g_malloc (compressed_size);

      if (compress2 (compressed, &compressed_size, data, size, Z_DEFAULT_COMPRESSION) == Z_OK &&
          compressed_size <= SF_COMPRESSED_MAX)
        sf->embedded = g_bytes_new_take (g_realloc (compressed, compressed_size), compressed_size);
      else
        g_free (compressed);
    }
  return TRUE;
}

static char *
structure_factors_text (const StructureFactors *sf)
{
  return g_strdup_printf ("name=%s\nsize=%" G_GUINT64_FORMAT "\nsha256=%s\nembedded=%s", sf->name,
                          sf->size, sf->sha256, sf->embedded != NULL ? SF_CHUNK : "no");
}

/* The bsFz chunk of @sf (which has embedded data). */
static guint8 *
structure_factors_chunk (const StructureFactors *sf, gsize *size)
{
  gsize name_len = strlen (sf->name), stream_len;
  const guint8 *stream = g_bytes_get_data (sf->embedded, &stream_len);
  guint8 *chunk;

  *size = SF_HEADER + name_len + stream_len;
  chunk = g_malloc (*size);
  chunk[0] = SF_VERSION;
  chunk[1] = 0;
  put_be (chunk + 2, name_len, 2);
  put_be (chunk + 4, sf->size, 8);
  for (int i = 0; i < 32; i++)
    chunk[12 + i] = (guint8) (g_ascii_xdigit_value (sf->sha256[2 * i]) << 4 |
                              g_ascii_xdigit_value (sf->sha256[2 * i + 1]));
  memcpy (chunk + SF_HEADER, sf->name, name_len);
  memcpy (chunk + SF_HEADER + name_len, stream, stream_len);
  return chunk;
}

static void
on_png_write (png_structp png, png_bytep data, png_size_t n)
{
  GByteArray *out = png_get_io_ptr (png);

  /* a GByteArray counts in guint */
  if (n > G_MAXUINT - out->len)
    png_error (png, "the encoded PNG would be larger than 4 GiB");
  g_byte_array_append (out, data, (guint) n);
}

static void
on_png_flush (png_structp png)
{
}

/* Encodes the PNG into @out; FALSE with @error set on failure. */
static gboolean
encode_png (GByteArray *out,
            const char *path,
            const guint8 *rgba,
            int width,
            int height,
            char *command_line,
            char *args,
            char *sf_text,
            guint8 *sf_chunk,
            gsize sf_chunk_size,
            GError **error)
{
  png_failure failure = { .message = "" };
  png_structp png;
  png_infop info = NULL;
  png_text text[4];
  int n_text = 0;
  char software[64];
  png_unknown_chunk unknown = { .data = sf_chunk,
                                .size = sf_chunk_size,
                                .location = PNG_HAVE_IHDR };

  memcpy (unknown.name, SF_CHUNK, 5);
  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, &failure, on_png_error, on_png_warning);
  if (png == NULL || (info = png_create_info_struct (png)) == NULL)
    {
      png_destroy_write_struct (&png, NULL);
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_NOMEM,
                   "%s: out of memory for the PNG writer", path);
      return FALSE;
    }
  if (setjmp (failure.jump))
    {
      png_destroy_write_struct (&png, &info);
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO, "%s: %s", path, failure.message);
      return FALSE;
    }

  png_set_write_fn (png, out, on_png_write, on_png_flush);
  png_set_IHDR (png, info, (png_uint_32) width, (png_uint_32) height, 8, PNG_COLOR_TYPE_RGB_ALPHA,
                PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);

  memset (text, 0, sizeof text);
  g_snprintf (software, sizeof software, "Braggscope %s", BRAGGSCOPE_VERSION);
  add_text (text, &n_text, "Software", software);
  if (command_line != NULL)
    add_text (text, &n_text, COMMAND_LINE_KEY, command_line);
  if (args != NULL)
    add_text (text, &n_text, ARGS_KEY, args);
  if (sf_text != NULL)
    add_text (text, &n_text, SF_KEY, sf_text);
  png_set_text (png, info, text, n_text);

  if (sf_chunk != NULL)
    {
      png_set_keep_unknown_chunks (png, PNG_HANDLE_CHUNK_ALWAYS, (png_const_bytep) SF_CHUNK, 1);
      png_set_unknown_chunks (png, info, &unknown, 1);
    }

  png_write_info (png, info);
  for (int y = 0; y < height; y++)
    png_write_row (png, rgba + (gsize) y * (gsize) width * 4);
  png_write_end (png, info);
  png_destroy_write_struct (&png, &info);
  return TRUE;
}

static gboolean
save_snapshot (const char *path,
               const guint8 *rgba,
               int width,
               int height,
               BraggscopeSimulation *sim,
               GError **error)
{
  g_autofree char *command_line = NULL, *args_text = NULL, *sf_text = NULL;
  g_autofree guint8 *sf_chunk = NULL;
  gsize sf_chunk_size = 0;
  GByteArray *png_bytes;
  gboolean ok = FALSE;

  if (width < 1 || height < 1 || width > 1000000 || height > 1000000)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                   "%s: image size %d x %d (allowed: 1 to 1000000 per side)", path, width, height);
      return FALSE;
    }
  if (sim != NULL)
    {
      g_auto (GStrv) args = braggscope_simulation_to_args (sim);
      const char *hkl = NULL;

      for (guint i = 0; args[i] != NULL; i++)
        {
          if (strchr (args[i], '\n') != NULL)
            {
              g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                           "%s: argument '%s' contains a line break and cannot be stored", path,
                           args[i]);
              return FALSE;
            }
          if (g_str_equal (args[i], "-hkl") && args[i + 1] != NULL)
            hkl = args[i + 1];
        }
      args_text = g_strjoinv ("\n", args);
      command_line = braggscope_simulation_to_command_line (sim);
      if (hkl != NULL)
        {
          StructureFactors sf = { 0 };

          if (structure_factors_read (hkl, &sf))
            sf_text = structure_factors_text (&sf);
          if (sf.embedded != NULL)
            sf_chunk = structure_factors_chunk (&sf, &sf_chunk_size);
          structure_factors_clear (&sf);
        }
    }

  png_bytes = g_byte_array_new ();
  if (encode_png (png_bytes, path, rgba, width, height, command_line, args_text, sf_text, sf_chunk,
                  sf_chunk_size, error))
    {
      const void *chunks[1] = { png_bytes->data };
      const size_t sizes[1] = { png_bytes->len };
      nb_error err = { 0 };

      if (nb_write_file_atomic (path, chunks, sizes, 1, &err) == NB_OK)
        ok = TRUE;
      else
        _braggscope_propagate_nb (error, &err);
    }
  g_byte_array_unref (png_bytes);
  return ok;
}

/**
 * braggscope_snapshot_save: (skip)
 * @path: (type filename): the PNG to write (replaced atomically)
 * @rgba: (array): @width * @height pixels of 4 bytes, R G B A, rows top to
 *   bottom
 * @width: pixels per row, 1 to 1000000
 * @height: rows, 1 to 1000000
 * @sim: (nullable): the simulation whose parameters the picture shows, saved
 *   for [method@Braggscope.Simulation.load_snapshot]
 * @error: the error, if any
 *
 * Writes a PNG snapshot: the picture, the simulation's `nanobragg` command
 * line and parameters in text chunks (tEXt where they are ASCII, so that
 * common tools show them), and its structure-factor file (`-hkl`: HKL text,
 * MTZ, `-sf.cif`, or the atomic model the structure factors are computed
 * from, PDB or mmCIF, gzip or plain, as its bytes), so that the snapshot
 * reopens on a machine without that file.  A reopened model is read as any
 * model is (bounded by the engine's limits on its size and atoms) and its
 * structure factors computed again: a model's 150 kB travel as about 40 kB,
 * far less than its computed table would.
 *
 * The structure-factor file is embedded, zlib-compressed, in a private PNG
 * chunk (`bsFz`) when it has at most 32 MiB and compresses to at most 4 MiB
 * (the environment variable `BRAGGSCOPE_SNAPSHOT_EMBED_LIMIT` lowers the 32
 * MiB, in bytes; 0 never embeds); otherwise only its name, size and SHA-256
 * are stored, and reopening looks for it.  A file that cannot be read now is
 * recorded by its path alone.  Reading and compressing the 4 MB 1HPV file
 * takes about 0.1 s.
 *
 * The PNG is written to a temporary file in the target folder, then renamed
 * over @path: on failure an existing file is left untouched.  A symbolic
 * link's target is replaced and the link kept; a device, pipe or socket is
 * written through.
 *
 * Fails with %BRAGGSCOPE_ERROR_IO when the file cannot be written and
 * %BRAGGSCOPE_ERROR_INVALID for a size out of range or a parameter that
 * cannot be stored (an argument containing a line break).
 *
 * In bindings this name is the form that takes the pixels as a
 * [struct@GLib.Bytes]: `Braggscope.snapshot_save (path, GLib.Bytes.new
 * (rgba), width, height, sim)` in Python and GJS (in C, the function
 * `braggscope_snapshot_save_bytes`).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
braggscope_snapshot_save (const char *path,
                          const guint8 *rgba,
                          int width,
                          int height,
                          BraggscopeSimulation *sim,
                          GError **error)
{
  gboolean ok;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (rgba != NULL, FALSE);
  g_return_val_if_fail (sim == NULL || BRAGGSCOPE_IS_SIMULATION (sim), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  ok = save_snapshot (path, rgba, width, height, sim, error);
  _braggscope_error_make_utf8 (error);
  return ok;
}

/**
 * braggscope_snapshot_save_bytes: (rename-to braggscope_snapshot_save)
 * @path: (type filename): the PNG to write (replaced atomically)
 * @rgba: @width * @height pixels of 4 bytes, R G B A, rows top to bottom
 * @width: pixels per row, 1 to 1000000
 * @height: rows, 1 to 1000000
 * @sim: (nullable): the simulation whose parameters the picture shows
 * @error: the error, if any
 *
 * [func@Braggscope.snapshot_save] with the pixels in a [struct@GLib.Bytes],
 * for bindings (which call it `snapshot_save`).
 *
 * Fails as [func@Braggscope.snapshot_save] does, and with
 * %BRAGGSCOPE_ERROR_INVALID when @rgba is not @width * @height * 4 bytes.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
braggscope_snapshot_save_bytes (const char *path,
                                GBytes *rgba,
                                int width,
                                int height,
                                BraggscopeSimulation *sim,
                                GError **error)
{
  gsize size = 0;
  const guint8 *data;

  g_return_val_if_fail (rgba != NULL, FALSE);

  data = g_bytes_get_data (rgba, &size);
  if (width < 1 || height < 1 || size != (gsize) width * (gsize) height * 4)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                   "%s: %zu bytes of pixels for a %d x %d RGBA image", path, size, width, height);
      return FALSE;
    }
  return braggscope_snapshot_save (path, data, width, height, sim, error);
}

/* ------------------------------------------------------------------------- */
/* Reading */

/* Parses the "braggscope:structure-factors" text into @sf. */
static gboolean
parse_structure_factors (const char *text, const char *path, StructureFactors *sf, GError **error)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean have_size = FALSE;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *value = strchr (lines[i], '=');
      gsize key_length;

      if (value == NULL)
        continue;
      key_length = (gsize) (value++ - lines[i]);
      if (key_length == 4 && strncmp (lines[i], "name", 4) == 0 &&
          valid_file_name (value, strlen (value)))
        {
          g_free (sf->name);
          sf->name = g_strdup (value);
        }
      else if (key_length == 4 && strncmp (lines[i], "size", 4) == 0)
        have_size = g_ascii_string_to_unsigned (value, 10, 0, G_MAXUINT64, &sf->size, NULL);
      else if (key_length == 6 && strncmp (lines[i], "sha256", 6) == 0 && strlen (value) == 64 &&
               strspn (value, "0123456789abcdef") == 64)
        memcpy (sf->sha256, value, 65);
    }
  if (sf->name == NULL || !have_size || sf->sha256[0] == '\0')
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                   "%s: the '%s' text chunk lacks a valid name, size or sha256 line", path, SF_KEY);
      return FALSE;
    }
  return TRUE;
}

/* Parses a bsFz chunk into @sf (name, size and SHA-256 from its header, the
 * zlib stream kept); when @sf already has them from the text chunk, they must
 * agree. */
static gboolean
parse_bsfz (GBytes *chunk, const char *path, StructureFactors *sf, GError **error)
{
  gsize length;
  const guint8 *data = g_bytes_get_data (chunk, &length);
  gsize name_length;
  guint64 size;
  char sha256[65];

  if (length < SF_HEADER || data[0] != SF_VERSION || data[1] != 0)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                   "%s: a %s chunk of an unknown format (version %d, compression %d)", path,
                   SF_CHUNK, length > 0 ? data[0] : -1, length > 1 ? data[1] : -1);
      return FALSE;
    }
  name_length = (gsize) get_be (data + 2, 2);
  size = get_be (data + 4, 8);
  for (int i = 0; i < 32; i++)
    g_snprintf (sha256 + 2 * i, 3, "%02x", data[12 + i]);
  if (name_length > length - SF_HEADER ||
      !valid_file_name ((const char *) data + SF_HEADER, name_length) || size > SF_EMBED_MAX)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                   "%s: the %s chunk has an invalid file name or a size over %" G_GSIZE_FORMAT
                   " bytes",
                   path, SF_CHUNK, SF_EMBED_MAX);
      return FALSE;
    }
  if (sf->name != NULL &&
      (strlen (sf->name) != name_length || memcmp (sf->name, data + SF_HEADER, name_length) != 0 ||
       sf->size != size || strcmp (sf->sha256, sha256) != 0))
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                   "%s: the %s chunk and the '%s' text chunk name different files", path, SF_CHUNK,
                   SF_KEY);
      return FALSE;
    }
  g_free (sf->name);
  sf->name = g_strndup ((const char *) data + SF_HEADER, name_length);
  sf->size = size;
  memcpy (sf->sha256, sha256, sizeof sha256);
  sf->embedded =
      g_bytes_new_from_bytes (chunk, SF_HEADER + name_length, length - SF_HEADER - name_length);
  return TRUE;
}

/* Reads a snapshot's args and what it says about its structure factors
 * (@sf may be NULL when only the args are wanted). */
static char **
read_snapshot (const char *path, StructureFactors *sf, GError **error)
{
  SnapshotChunks chunks;
  g_auto (GStrv) args = NULL;

  if (!_braggscope_snapshot_read_chunks (path, &chunks, error))
    return NULL;
  if (chunks.args != NULL)
    {
      args = g_strsplit (chunks.args, "\n", -1);
      /* a trailing line break leaves an empty last element */
      for (guint n = g_strv_length (args); n > 0 && args[n - 1][0] == '\0'; n--)
        g_clear_pointer (&args[n - 1], g_free);
    }
  if (args == NULL || args[0] == NULL)
    {
      _braggscope_snapshot_chunks_clear (&chunks);
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                   "%s: no '%s' text chunk: not a Braggscope snapshot", path, ARGS_KEY);
      return NULL;
    }
  if (sf != NULL &&
      ((chunks.sf_text != NULL && !parse_structure_factors (chunks.sf_text, path, sf, error)) ||
       (chunks.bsfz != NULL && !parse_bsfz (chunks.bsfz, path, sf, error))))
    {
      _braggscope_snapshot_chunks_clear (&chunks);
      structure_factors_clear (sf);
      return NULL;
    }
  _braggscope_snapshot_chunks_clear (&chunks);
  return g_steal_pointer (&args);
}

/**
 * braggscope_snapshot_load_args:
 * @path: (type filename): a PNG written by [func@Braggscope.snapshot_save]
 * @error: the error, if any
 *
 * The parameters saved in a snapshot, as they were saved: its
 * "braggscope:args" text chunk, with the structure-factor file (`-hkl`) under
 * the path it had on the machine that saved it.
 * [func@Braggscope.snapshot_restore_args] finds that file on this machine.
 *
 * Only the PNG's chunk headers and the chunks of the snapshot's own keys
 * are read: the image data is skipped unread, so that a picture that would
 * inflate to gigabytes costs no more than its chunk headers (a 34 MB PNG of
 * 65536 x 65536 RGBA16 pixels: under a millisecond), and a compressed text
 * chunk inflates to 1 MiB at most.
 *
 * Fails with %BRAGGSCOPE_ERROR_IO when the file cannot be read or is not a
 * regular file (a FIFO is refused, not waited on) and
 * %BRAGGSCOPE_ERROR_PARSE when it is not a PNG, holds no parameters, or has a
 * chunk over a snapshot's limits, a damaged chunk of its own, or a text that
 * inflates to more than 1 MiB.
 *
 * Returns: (transfer full) (array zero-terminated=1) (element-type filename):
 *   the arguments, the first "nanobragg" (file names are the bytes saved,
 *   which need not be UTF-8); free with [func@GLib.strfreev]
 *
 * Since: 0.1
 */
char **
braggscope_snapshot_load_args (const char *path, GError **error)
{
  char **args;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  args = read_snapshot (path, NULL, error);
  _braggscope_error_make_utf8 (error);
  return args;
}

/* Checks candidate @path against @sf (its size first, then its SHA-256);
 * notes why it does not fit in @tried (when not NULL). */
static gboolean
candidate_fits (const char *path, const StructureFactors *sf, GString *tried)
{
  g_autoptr (GMappedFile) file = NULL;
  g_autofree char *sha256 = NULL;
  GStatBuf st;

  if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode))
    {
      if (tried != NULL)
        g_string_append_printf (tried, "%s%s (missing)", tried->len > 0 ? ", " : "", path);
      return FALSE;
    }
  if ((guint64) st.st_size == sf->size && (file = g_mapped_file_new (path, FALSE, NULL)) != NULL)
    {
      sha256 = g_compute_checksum_for_data (
          G_CHECKSUM_SHA256, (const guint8 *) g_mapped_file_get_contents (file), sf->size);
      if (strcmp (sha256, sf->sha256) == 0)
        return TRUE;
    }
  if (tried != NULL)
    {
      g_string_append_printf (tried, "%s%s (another file: %" G_GUINT64_FORMAT " bytes",
                              tried->len > 0 ? ", " : "", path, (guint64) st.st_size);
      if (sha256 != NULL)
        g_string_append_printf (tried, ", SHA-256 %.12s...", sha256);
      g_string_append_c (tried, ')');
    }
  return FALSE;
}

/* The embedded file, inflated into the user's cache
 * (<cache>/braggscope/structure-factors/<sha256>/<name>), checked against its
 * size and SHA-256; its path, or NULL with @error set. */
static char *
extract_embedded (const StructureFactors *sf, const char *png_path, GError **error)
{
  g_autofree char *dir = g_build_filename (g_get_user_cache_dir (), "braggscope",
                                           "structure-factors", sf->sha256, NULL);
  g_autofree char *target = g_build_filename (dir, sf->name, NULL);
  g_autofree guint8 *data = NULL;
  g_autofree char *sha256 = NULL;
  g_autoptr (GError) write_error = NULL;
  const char *why;
  gsize stream_length;
  const guint8 *stream = g_bytes_get_data (sf->embedded, &stream_length);
  z_stream z = { 0 };
  int status;

  if (candidate_fits (target, sf, NULL))
    return g_steal_pointer (&target);

  /* inflate into exactly the declared size: a stream that would give more,
   * or less, is refused without growing the buffer */
  data = g_malloc (sf->size > 0 ? sf->size : 1);
  if (inflateInit (&z) != Z_OK)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_NOMEM,
                   "%s: out of memory to inflate the embedded %s", png_path, sf->name);
      return NULL;
    }
  z.next_in = (Bytef *) stream;
  z.avail_in = (uInt) stream_length;
  z.next_out = data;
  z.avail_out = (uInt) sf->size;
  status = inflate (&z, Z_FINISH);
  if (status == Z_STREAM_END)
    why = z.avail_in != 0 ? "data after the stream" : "the stream ends early";
  else if (z.avail_out == 0)
    why = "the stream holds more";
  else
    why = z.msg != NULL ? z.msg : "a damaged stream";
  inflateEnd (&z);
  if (status != Z_STREAM_END || z.total_out != sf->size || z.avail_in != 0)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                   "%s: the embedded %s does not inflate to its %" G_GUINT64_FORMAT " bytes (%s)",
                   png_path, sf->name, sf->size, why);
      return NULL;
    }
  sha256 = g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, sf->size);
  if (strcmp (sha256, sf->sha256) != 0)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                   "%s: the embedded %s has SHA-256 %.12s..., not the %.12s... it was saved with",
                   png_path, sf->name, sha256, sf->sha256);
      return NULL;
    }
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO,
                   "%s: cannot make %s for the embedded %s: %s", png_path, dir, sf->name,
                   g_strerror (saved));
      return NULL;
    }
  if (!g_file_set_contents_full (target, (const char *) data, (gssize) sf->size,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0644, &write_error))
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO,
                   "%s: cannot write the embedded %s: %s", png_path, sf->name,
                   write_error->message);
      return NULL;
    }
  return g_steal_pointer (&target);
}

/* Where @sf's file is on this machine: its saved path, the snapshot's folder,
 * the embedded copy, the data folders; NULL with @error when none has it. */
static char *
find_structure_factors (const StructureFactors *sf,
                        const char *saved_path,
                        const char *png_path,
                        GError **error)
{
  g_autofree char *png_dir = g_path_get_dirname (png_path);
  g_auto (GStrv) data_dirs = _braggscope_data_dirs ();
  g_autoptr (GPtrArray) candidates = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) tried = g_string_new (NULL);

  g_ptr_array_add (candidates, g_strdup (saved_path));
  g_ptr_array_add (candidates, g_build_filename (png_dir, sf->name, NULL));
  g_ptr_array_add (candidates, NULL); /* the embedded copy goes here */
  for (gsize i = 0; data_dirs[i] != NULL; i++)
    g_ptr_array_add (candidates, g_build_filename (data_dirs[i], sf->name, NULL));

  for (guint i = 0; i < candidates->len; i++)
    {
      const char *path = g_ptr_array_index (candidates, i);
      gboolean seen = FALSE;

      if (path == NULL)
        {
          if (sf->embedded != NULL)
            return extract_embedded (sf, png_path, error);
          continue;
        }
      for (guint k = 0; k < i && !seen; k++)
        seen = g_strcmp0 (g_ptr_array_index (candidates, k), path) == 0;
      if (!seen && candidate_fits (path, sf, tried))
        return g_strdup (path);
    }
  g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO,
               "%s: its structure factors %s (%" G_GUINT64_FORMAT
               " bytes, SHA-256 %s) are not embedded and were not found: %s; copy that file "
               "next to the snapshot",
               png_path, sf->name, sf->size, sf->sha256, tried->str);
  return NULL;
}

static char **
restore_args (const char *path, GError **error)
{
  StructureFactors sf = { 0 };
  g_auto (GStrv) args = NULL;
  int hkl = -1;

  args = read_snapshot (path, &sf, error);
  if (args == NULL)
    return NULL;
  for (int i = 1; args[i] != NULL; i++)
    if (g_str_equal (args[i], "-hkl") && args[i + 1] != NULL)
      hkl = i + 1;
  if (hkl > 0 && sf.name != NULL)
    {
      char *found = find_structure_factors (&sf, args[hkl], path, error);

      if (found == NULL)
        {
          structure_factors_clear (&sf);
          return NULL;
        }
      g_free (args[hkl]);
      args[hkl] = found;
    }
  structure_factors_clear (&sf);
  return g_steal_pointer (&args);
}

/**
 * braggscope_snapshot_restore_args:
 * @path: (type filename): a PNG written by [func@Braggscope.snapshot_save]
 * @error: the error, if any
 *
 * The parameters saved in a snapshot, made to work on this machine: as
 * [func@Braggscope.snapshot_load_args], with the structure-factor file
 * (`-hkl`) replaced by a file of the same SHA-256 found here.  It is looked
 * for, in order, at the path it was saved from, next to the snapshot (under
 * its saved name), in the snapshot itself (an embedded copy is written once
 * to the user's cache folder, `braggscope/structure-factors/SHA-256/NAME`,
 * and read from there), and in the data folders (`$BRAGGSCOPE_DATADIR`,
 * then the installed `datadir/braggscope`).  A file of the right name but
 * another SHA-256 is never used.  Snapshots that recorded no SHA-256 (older
 * ones, or saved while the file could not be read) keep their path.
 *
 * Fails as [func@Braggscope.snapshot_load_args] does; with
 * %BRAGGSCOPE_ERROR_IO, naming the file, its size and SHA-256 and every place
 * tried, when the structure factors are neither embedded nor found, or the
 * embedded copy cannot be written to the cache; and with
 * %BRAGGSCOPE_ERROR_PARSE when the embedded copy does not inflate to the
 * recorded size and SHA-256.
 *
 * Returns: (transfer full) (array zero-terminated=1) (element-type filename):
 *   the arguments, the first "nanobragg" (file names are the bytes saved,
 *   which need not be UTF-8); free with [func@GLib.strfreev]
 *
 * Since: 0.1
 */
char **
braggscope_snapshot_restore_args (const char *path, GError **error)
{
  char **args;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  args = restore_args (path, error);
  _braggscope_error_make_utf8 (error);
  return args;
}

/**
 * braggscope_simulation_load_snapshot:
 * @self: a simulation
 * @path: (type filename): a PNG written by [func@Braggscope.snapshot_save]
 * @error: the error, if any
 *
 * Restores the parameters saved in a snapshot: nanoBragg's defaults with the
 * saved flags applied, the structure factors found as
 * [func@Braggscope.snapshot_restore_args] finds them, so that the simulation
 * renders the image that was saved.  Nothing changes on error.
 *
 * Fails as [func@Braggscope.snapshot_restore_args] does, and with
 * %BRAGGSCOPE_ERROR_INVALID, prefixed with @path, for parameters the engine
 * rejects.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
braggscope_simulation_load_snapshot (BraggscopeSimulation *self, const char *path, GError **error)
{
  g_auto (GStrv) args = NULL;
  g_autoptr (GError) local = NULL;

  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  args = restore_args (path, &local);
  if (args == NULL ||
      !_braggscope_simulation_restore_args (self, (const char *const *) args, path, &local))
    {
      /* a refused output flag's message starts with the path already */
      if (args != NULL && !g_str_has_prefix (local->message, path))
        g_prefix_error (&local, "%s: ", path);
      _braggscope_error_make_utf8 (&local);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}
