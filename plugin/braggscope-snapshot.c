/* braggscope-snapshot.c: PNG snapshots through libpng, with the parameters in text chunks.
 *
 * A snapshot holds the picture as shown (RGBA, 8 bits per channel) and three
 * text chunks written before the image data, so a loader finds them without
 * decoding it:
 *   Software                  "Braggscope <version>" (tEXt)
 *   braggscope:command-line   the equivalent nanobragg command line (iTXt, UTF-8)
 *   braggscope:args           braggscope_simulation_to_args(), one per line (iTXt)
 * The PNG is encoded in memory and written by the engine's
 * nb_write_file_atomic(), the writer of every other output (the CLI's files,
 * the float and SMV exports): a file is written to a temporary name in the
 * target folder and renamed, so a failed or interrupted save never leaves half
 * a PNG under the name; a link's target is replaced and the link kept; a
 * device, pipe or socket is written through.
 */
#include "braggscope-snapshot.h"
#include "braggscope-private.h"

#include "nb-io.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#define ARGS_KEY         "braggscope:args"
#define COMMAND_LINE_KEY "braggscope:command-line"

typedef struct
{
  jmp_buf jump;
  char message[256];
} png_failure;

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
            GError **error)
{
  png_failure failure = { .message = "" };
  png_structp png;
  png_infop info = NULL;
  png_text text[3];
  int n_text = 0;
  char software[64];

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
  text[n_text].compression = PNG_TEXT_COMPRESSION_NONE;
  text[n_text].key = (char *) "Software";
  text[n_text].text = software;
  n_text++;
  if (command_line != NULL)
    {
      text[n_text].compression = PNG_ITXT_COMPRESSION_NONE;
      text[n_text].key = (char *) COMMAND_LINE_KEY;
      text[n_text].text = command_line;
      n_text++;
    }
  if (args != NULL)
    {
      text[n_text].compression = PNG_ITXT_COMPRESSION_NONE;
      text[n_text].key = (char *) ARGS_KEY;
      text[n_text].text = args;
      n_text++;
    }
  png_set_text (png, info, text, n_text);

  png_write_info (png, info);
  for (int y = 0; y < height; y++)
    png_write_row (png, rgba + (gsize) y * (gsize) width * 4);
  png_write_end (png, info);
  png_destroy_write_struct (&png, &info);
  return TRUE;
}

/**
 * braggscope_snapshot_save: (skip)
 * @path: (type filename): the PNG to write (replaced atomically)
 * @rgba: @width * @height pixels of 4 bytes, R G B A, rows top to bottom
 * @width: pixels per row, >= 1
 * @height: rows, >= 1
 * @sim: (nullable): the simulation whose parameters the picture shows, saved
 *   in text chunks for braggscope_simulation_load_snapshot()
 * @error: a #GError: %BRAGGSCOPE_ERROR_IO when the file cannot be written,
 *   %BRAGGSCOPE_ERROR_INVALID for a parameter that cannot be stored (an
 *   argument containing a line break)
 *
 * Writes a PNG snapshot, with the simulation's nanobragg command line and
 * parameters, to a temporary file in the target folder, then renames it (a
 * symbolic link's target is replaced, the link kept; a device, pipe or
 * socket is written through, see the module's comment).
 *
 * Returns: %TRUE on success
 */
gboolean
braggscope_snapshot_save (const char *path,
                          const guint8 *rgba,
                          int width,
                          int height,
                          BraggscopeSimulation *sim,
                          GError **error)
{
  g_autofree char *command_line = NULL, *args_text = NULL;
  GByteArray *png_bytes;
  gboolean ok = FALSE;

  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (rgba != NULL, FALSE);
  g_return_val_if_fail (sim == NULL || BRAGGSCOPE_IS_SIMULATION (sim), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (width < 1 || height < 1 || width > 1000000 || height > 1000000)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                   "%s: image size %d x %d (allowed: 1 to 1000000 per side)", path, width, height);
      return FALSE;
    }
  if (sim != NULL)
    {
      g_auto (GStrv) args = braggscope_simulation_to_args (sim);

      for (guint i = 0; args[i] != NULL; i++)
        if (strchr (args[i], '\n') != NULL)
          {
            g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                         "%s: argument '%s' contains a line break and cannot be stored", path,
                         args[i]);
            return FALSE;
          }
      args_text = g_strjoinv ("\n", args);
      command_line = braggscope_simulation_to_command_line (sim);
    }

  png_bytes = g_byte_array_new ();
  if (encode_png (png_bytes, path, rgba, width, height, command_line, args_text, error))
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
 * braggscope_snapshot_save_bytes: (rename-to braggscope_snapshot_save)
 * @path: (type filename): the PNG to write (replaced atomically)
 * @rgba: @width * @height pixels of 4 bytes, R G B A, rows top to bottom
 * @width: pixels per row, >= 1
 * @height: rows, >= 1
 * @sim: (nullable): the simulation whose parameters the picture shows
 * @error: a #GError, as braggscope_snapshot_save(), or
 *   %BRAGGSCOPE_ERROR_INVALID when @rgba is not @width * @height * 4 bytes
 *
 * braggscope_snapshot_save() with the pixels in a #GBytes, for bindings.
 *
 * Returns: %TRUE on success
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

static const char *
find_text (png_structp png, png_infop info, const char *key)
{
  png_textp text = NULL;
  int n = 0;

  if (info == NULL || png_get_text (png, info, &text, &n) == 0)
    return NULL;
  for (int i = 0; i < n; i++)
    if (strcmp (text[i].key, key) == 0)
      return text[i].text;
  return NULL;
}

/**
 * braggscope_snapshot_load_args:
 * @path: (type filename): a PNG written by braggscope_snapshot_save()
 * @error: a #GError: %BRAGGSCOPE_ERROR_IO when the file cannot be read,
 *   %BRAGGSCOPE_ERROR_PARSE when it is not a PNG or holds no parameters
 *
 * The parameters saved in a snapshot: its "braggscope:args" text chunk.
 *
 * Returns: (transfer full) (array zero-terminated=1): the arguments, the
 *   first "nanobragg"; free with g_strfreev()
 */

/* PNG_CHUNK_MAX: the largest chunk other than image data a snapshot may hold
 * (our parameter chunks are a few kB). */
#define PNG_CHUNK_MAX (1u << 20)

/* chunks_within_limit: walks the chunk headers of @fp (positioned after the
 * signature) and refuses a chunk other than IDAT longer than PNG_CHUNK_MAX,
 * before libpng would allocate it; leaves @fp after the signature again. */
static gboolean
chunks_within_limit (FILE *fp, const char *path, GError **error)
{
  guint8 head[8];

  while (fread (head, 1, sizeof head, fp) == sizeof head)
    {
      guint32 length =
          (guint32) head[0] << 24 | (guint32) head[1] << 16 | (guint32) head[2] << 8 | head[3];

      if (memcmp (head + 4, "IDAT", 4) != 0 && length > PNG_CHUNK_MAX)
        {
          /* a chunk type is four ASCII letters; anything else is named by its bytes */
          char type[16];

          if (g_ascii_isalpha (head[4]) && g_ascii_isalpha (head[5]) && g_ascii_isalpha (head[6]) &&
              g_ascii_isalpha (head[7]))
            g_snprintf (type, sizeof type, "%.4s", (const char *) head + 4);
          else
            g_snprintf (type, sizeof type, "%02x%02x%02x%02x", head[4], head[5], head[6], head[7]);
          g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                       "%s: a %s chunk of %u bytes, more than a snapshot's %u", path, type, length,
                       PNG_CHUNK_MAX);
          return FALSE;
        }
      if (memcmp (head + 4, "IEND", 4) == 0 || fseek (fp, (long) length + 4, SEEK_CUR) != 0)
        break;
    }
  clearerr (fp);
  return fseek (fp, 8, SEEK_SET) == 0;
}

char **
braggscope_snapshot_load_args (const char *path, GError **error)
{
  png_failure failure = { .message = "" };
  png_structp png = NULL;
  png_infop info = NULL, end_info = NULL;
  volatile png_bytep row = NULL;
  const char *volatile text = NULL;
  char **volatile args = NULL;
  guint8 signature[8];
  FILE *fp;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  fp = g_fopen (path, "rb");
  if (fp == NULL)
    {
      int saved = errno;
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO, "%s: %s", path,
                   g_strerror (saved));
      return NULL;
    }
  if (fread (signature, 1, sizeof signature, fp) != sizeof signature ||
      png_sig_cmp (signature, 0, sizeof signature) != 0)
    {
      fclose (fp);
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE, "%s: not a PNG file", path);
      return NULL;
    }
  if (!chunks_within_limit (fp, path, error))
    {
      fclose (fp);
      return NULL;
    }

  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, &failure, on_png_error, on_png_warning);
  if (png == NULL || (info = png_create_info_struct (png)) == NULL ||
      (end_info = png_create_info_struct (png)) == NULL)
    {
      png_destroy_read_struct (&png, &info, NULL);
      fclose (fp);
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_NOMEM,
                   "%s: out of memory for the PNG reader", path);
      return NULL;
    }
  if (setjmp (failure.jump))
    {
      g_free (row);
      png_destroy_read_struct (&png, &info, &end_info);
      fclose (fp);
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE, "%s: %s", path,
                   failure.message);
      return NULL;
    }
  /* a chunk that claims gigabytes must not make libpng allocate them: our
   * parameter chunks are a few kB, our snapshots at most detector-sized */
  png_set_chunk_malloc_max (png, 1 << 20);
  png_set_chunk_cache_max (png, 64);
  png_set_user_limits (png, 65536, 65536);
  png_init_io (png, fp);
  png_set_sig_bytes (png, sizeof signature);
  png_read_info (png, info);
  text = find_text (png, info, ARGS_KEY);
  if (text == NULL)
    {
      /* another writer may have put the chunk after the image data */
      int passes = png_set_interlace_handling (png);
      png_uint_32 height = png_get_image_height (png, info);

      png_read_update_info (png, info);
      row = g_malloc (png_get_rowbytes (png, info));
      for (int pass = 0; pass < passes; pass++)
        for (png_uint_32 y = 0; y < height; y++)
          png_read_row (png, row, NULL);
      png_read_end (png, end_info);
      text = find_text (png, end_info, ARGS_KEY);
    }
  if (text != NULL)
    {
      args = g_strsplit (text, "\n", -1);
      /* a trailing line break leaves an empty last element */
      for (guint n = g_strv_length (args); n > 0 && args[n - 1][0] == '\0'; n--)
        {
          g_free (args[n - 1]);
          args[n - 1] = NULL;
        }
    }
  g_free (row);
  png_destroy_read_struct (&png, &info, &end_info);
  fclose (fp);

  if (args == NULL || args[0] == NULL)
    {
      g_strfreev (args);
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                   "%s: no '%s' text chunk: not a Braggscope snapshot", path, ARGS_KEY);
      return NULL;
    }
  return args;
}

/**
 * braggscope_simulation_load_snapshot:
 * @self: a simulation
 * @path: (type filename): a PNG written by braggscope_snapshot_save()
 * @error: a #GError, as braggscope_snapshot_load_args(), or
 *   %BRAGGSCOPE_ERROR_INVALID for parameters the engine rejects
 *
 * Restores the parameters saved in a snapshot: nanoBragg's defaults with the
 * saved flags applied, so the simulation ends up as the one that was saved.
 * Nothing changes on error.
 *
 * Returns: %TRUE on success
 */
gboolean
braggscope_simulation_load_snapshot (BraggscopeSimulation *self, const char *path, GError **error)
{
  g_auto (GStrv) args = NULL;

  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  args = braggscope_snapshot_load_args (path, error);
  if (args == NULL)
    return FALSE;
  if (!_braggscope_simulation_restore_args (self, (const char *const *) args, error))
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  return TRUE;
}
