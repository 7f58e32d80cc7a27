/* fuzz-png-args: the plugin's snapshot reader and the path a snapshot's
 * arguments take into a simulation.
 *
 * An input that starts with the PNG signature is a snapshot: it goes to
 * braggscope_snapshot_load_args (the chunk walker: chunk limits and CRCs,
 * tEXt, zTXt and iTXt, the inflate cap, the bsFz chunk), to
 * braggscope_snapshot_restore_args (the structure-factor text chunk, the bsFz
 * header, inflating and hashing the embedded file, the search for it on disk)
 * and to braggscope_simulation_load_snapshot; then once more with every
 * chunk's CRC made right, so that mutations reach past the CRC checks.
 * Any other input is an argument list, one per line, that the target wraps
 * into a snapshot (a valid PNG with a "braggscope:args" text chunk) and loads
 * the same way: the parser, the scene rule and validation as a snapshot meets
 * them.
 *
 * Invariants: no crash; every error a one-line message; load_snapshot
 * refuses any argument list naming a file to write (NB_PARAM_OUTPUT), and a
 * simulation it restored gives no such flag back in to_args. */
#include "fuzz-util.h"

#include "nb-param.h"

#include <braggscope.h>
#include <zlib.h>

static const uint8_t png_signature[8] = { 137, 'P', 'N', 'G', 13, 10, 26, 10 };

static void
check_error (GError *error)
{
  if (error == NULL || error->message == NULL || strchr (error->message, '\n') != NULL ||
      !g_utf8_validate (error->message, -1, NULL))
    abort ();
}

static void
append_chunk (GByteArray *out, const char *type, const uint8_t *data, size_t length)
{
  uint8_t be[4] = { length >> 24, length >> 16, length >> 8, length };
  uint32_t crc = (uint32_t) crc32 (crc32 (0, (const Bytef *) type, 4), data, (uInt) length);
  uint8_t crc_be[4] = { crc >> 24, crc >> 16, crc >> 8, crc };

  g_byte_array_append (out, be, 4);
  g_byte_array_append (out, (const guint8 *) type, 4);
  if (length > 0)
    g_byte_array_append (out, data, (guint) length);
  g_byte_array_append (out, crc_be, 4);
}

/* A 1 x 1 snapshot whose "braggscope:args" text is @text. */
static GByteArray *
wrap_args (const uint8_t *text, size_t size)
{
  static const uint8_t ihdr[13] = { 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0 };
  /* zlib of one filter byte and one RGBA pixel */
  static const uint8_t idat[] = {
    0x78, 0x9c, 0x63, 0x60, 0x00, 0x02, 0x00, 0x00, 0x05, 0x00, 0x01
  };
  GByteArray *png = g_byte_array_new ();
  g_autoptr (GByteArray) chunk = g_byte_array_new ();

  g_byte_array_append (png, png_signature, 8);
  append_chunk (png, "IHDR", ihdr, sizeof ihdr);
  g_byte_array_append (chunk, (const guint8 *) "braggscope:args", 16);
  g_byte_array_append (chunk, text, (guint) size);
  append_chunk (png, "tEXt", chunk->data, chunk->len);
  append_chunk (png, "IDAT", idat, sizeof idat);
  append_chunk (png, "IEND", NULL, 0);
  return png;
}

/* A copy of the PNG @data with every whole chunk's CRC made right. */
static GByteArray *
repair_crcs (const uint8_t *data, size_t size)
{
  GByteArray *png = g_byte_array_new ();
  size_t at = 8;

  g_byte_array_append (png, data, (guint) size);
  while (at + 12 <= size)
    {
      uint32_t n = (uint32_t) data[at] << 24 | (uint32_t) data[at + 1] << 16 |
                   (uint32_t) data[at + 2] << 8 | data[at + 3];
      uint32_t crc;

      if (n > size - at - 12)
        break;
      crc = (uint32_t) crc32 (0, data + at + 4, n + 4);
      png->data[at + 8 + n] = crc >> 24;
      png->data[at + 9 + n] = crc >> 16;
      png->data[at + 10 + n] = crc >> 8;
      png->data[at + 11 + n] = crc;
      at += 12 + (size_t) n;
    }
  return png;
}

/* Flags the parser reads files for while parsing (-img, -mask, -frame): a
 * snapshot naming them is not loaded here, so that the target reads no file
 * outside its scratch folder. */
static gboolean
reads_files_at_parse (char **args)
{
  for (char **a = args; *a != NULL; a++)
    {
      const nb_param *row = nb_param_find (*a);

      if (row != NULL && row->flag != NULL &&
          (strcmp (row->flag, "-img") == 0 || strcmp (row->flag, "-mask") == 0 ||
           strcmp (row->flag, "-frame") == 0))
        return TRUE;
    }
  return FALSE;
}

/* Whether @args (a command line) holds a flag naming a file to write. */
static gboolean
names_output (char **args)
{
  int argc = (int) g_strv_length (args);

  /* args[0] is the program's name, which the parser does not read */
  for (int i = 1; i < argc; i++)
    if (nb_argv_output_words (argc, (const char *const *) args, i) > 0)
      return TRUE;
  return FALSE;
}

static void
load_snapshot (const char *path)
{
  static BraggscopeSimulation *sim;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = NULL, restored = NULL, back = NULL;
  gboolean loaded;

  args = braggscope_snapshot_load_args (path, &error);
  if (args == NULL)
    {
      check_error (error);
      return;
    }
  if (error != NULL || args[0] == NULL)
    abort ();

  restored = braggscope_snapshot_restore_args (path, &error);
  if (restored == NULL)
    check_error (error);
  else if (error != NULL || g_strv_length (restored) != g_strv_length (args))
    abort ();
  g_clear_error (&error);

  if (reads_files_at_parse (args))
    return;
  if (sim == NULL)
    sim = braggscope_simulation_new ();
  loaded = braggscope_simulation_load_snapshot (sim, path, &error);
  if (!loaded)
    {
      check_error (error);
      return;
    }
  /* the scene rule: nothing that writes a file gets in, or comes back out */
  if (names_output (args))
    abort ();
  back = braggscope_simulation_to_args (sim);
  if (names_output (back))
    abort ();
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* An embedded file that inflates and hashes right is written to the user's
   * cache: a folder inside a regular file cannot be made, so the write fails
   * (an error like any other) and nothing is left behind. */
  char cache[4200];

  snprintf (cache, sizeof cache, "%s/in-0/cache", fuzz_scratch_dir ());
  setenv ("XDG_CACHE_HOME", cache, 1);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static int initialized;

  if (!initialized)
    {
      LLVMFuzzerInitialize (NULL, NULL);
      initialized = 1;
    }
  if (size >= 8 && memcmp (data, png_signature, 8) == 0)
    {
      g_autoptr (GByteArray) repaired = repair_crcs (data, size);

      load_snapshot (fuzz_write (0, data, size));
      if (memcmp (repaired->data, data, size) != 0)
        load_snapshot (fuzz_write (0, repaired->data, repaired->len));
    }
  else
    {
      g_autoptr (GByteArray) png = wrap_args (data, size);

      load_snapshot (fuzz_write (0, png->data, png->len));
    }
  return 0;
}
