/* braggscope-snapshot-chunks.c: a snapshot's text and private chunks, read
 * by walking the PNG's chunk headers (length, type, CRC) without decoding the
 * image.
 *
 * libpng was the reader before: to find text chunks placed after the image
 * data it decoded every row, so that a 35 MB PNG of 65536 x 65536 RGBA16
 * pixels (34 GB inflated) held the calling thread for 80 s.  A snapshot's
 * parameters need none of the pixels: here the image data is skipped unread,
 * and only the few chunks of our keys are read and, when compressed,
 * inflated with a cap on the output.
 */
#include "braggscope-private.h"
#include "braggscope-snapshot-private.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

void
_braggscope_snapshot_chunks_clear (SnapshotChunks *chunks)
{
  g_clear_pointer (&chunks->args, g_free);
  g_clear_pointer (&chunks->sf_text, g_free);
  g_clear_pointer (&chunks->bsfz, g_bytes_unref);
}

static guint32
get_be32 (const guint8 *in)
{
  return (guint32) in[0] << 24 | (guint32) in[1] << 16 | (guint32) in[2] << 8 | in[3];
}

/* A chunk type is four ASCII letters; anything else is named by its bytes. */
static void
chunk_type_name (const guint8 *type, char out[16])
{
  if (g_ascii_isalpha (type[0]) && g_ascii_isalpha (type[1]) && g_ascii_isalpha (type[2]) &&
      g_ascii_isalpha (type[3]))
    g_snprintf (out, 16, "%.4s", (const char *) type);
  else
    g_snprintf (out, 16, "%02x%02x%02x%02x", type[0], type[1], type[2], type[3]);
}

/* Opens @path for reading without blocking on a FIFO or a device, and only
 * when it is a regular file. */
static FILE *
open_regular (const char *path, GError **error)
{
  GStatBuf st;
  int fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0);
  int saved;
  FILE *fp;

  if (fd < 0)
    {
      saved = errno;
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO, "%s: %s", path,
                   g_strerror (saved));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO, "%s: not a regular file", path);
      return NULL;
    }
  /* reads of a regular file never wait; clear the flag all the same */
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  fp = fdopen (fd, "rb");
  if (fp == NULL)
    {
      saved = errno;
      close (fd);
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO, "%s: %s", path,
                   g_strerror (saved));
    }
  return fp;
}

/* Skips @n bytes of @fp: short skips read through the stream's buffer, so that
 * a file of many small chunks costs no system call each. */
static gboolean
skip_bytes (FILE *fp, guint64 n)
{
  guint8 scratch[4096];

  if (n > 65536)
    return fseeko (fp, (off_t) n, SEEK_CUR) == 0;
  while (n > 0)
    {
      gsize k = (gsize) MIN (n, sizeof scratch);

      if (fread (scratch, 1, k, fp) != k)
        return FALSE;
      n -= k;
    }
  return TRUE;
}

/* The zlib stream @in inflated, at most TEXT_INFLATED_MAX bytes, as a string;
 * NULL with @error for a damaged stream or one that gives more. */
static char *
inflate_text (const guint8 *in, gsize n, const char *path, const char *key, GError **error)
{
  g_autoptr (GByteArray) out = g_byte_array_new ();
  z_stream z = { 0 };
  guint8 buffer[16384];
  int status;

  if (inflateInit (&z) != Z_OK)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_NOMEM,
                   "%s: out of memory to inflate the '%s' text", path, key);
      return NULL;
    }
  z.next_in = (Bytef *) in;
  z.avail_in = (uInt) n;
  do
    {
      gsize got;

      z.next_out = buffer;
      z.avail_out = sizeof buffer;
      status = inflate (&z, Z_NO_FLUSH);
      got = sizeof buffer - z.avail_out;
      if (out->len + got > TEXT_INFLATED_MAX)
        {
          inflateEnd (&z);
          g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                       "%s: the '%s' text inflates to more than a snapshot's %u bytes", path, key,
                       TEXT_INFLATED_MAX);
          return NULL;
        }
      g_byte_array_append (out, buffer, (guint) got);
    }
  while (status == Z_OK);
  inflateEnd (&z);
  if (status != Z_STREAM_END)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                   "%s: the '%s' text is damaged (its zlib stream does not inflate)", path, key);
      return NULL;
    }
  return g_strndup ((const char *) out->data, out->len);
}

/* The text of a tEXt, zTXt or iTXt chunk (@type, @data of @n bytes, after
 * the key and its NUL), inflated where compressed; NULL with @error. */
static char *
chunk_text (const guint8 *type,
            const guint8 *data,
            gsize n,
            const char *path,
            const char *key,
            GError **error)
{
  gboolean compressed = FALSE;
  const guint8 *end = data + n, *nul;

  if (memcmp (type, "zTXt", 4) == 0)
    {
      /* compression method, then the stream */
      compressed = TRUE;
      if (n < 1 || data[0] != 0)
        goto damaged;
      data++;
    }
  else if (memcmp (type, "iTXt", 4) == 0)
    {
      /* compression flag and method, language tag, translated key, text */
      if (n < 2 || data[0] > 1 || (data[0] == 1 && data[1] != 0))
        goto damaged;
      compressed = data[0] == 1;
      data += 2;
      for (int field = 0; field < 2; field++)
        {
          if ((nul = memchr (data, '\0', (gsize) (end - data))) == NULL)
            goto damaged;
          data = nul + 1;
        }
    }
  if (compressed)
    return inflate_text (data, (gsize) (end - data), path, key, error);
  return g_strndup ((const char *) data, (gsize) (end - data));

damaged:
  g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
               "%s: the %.4s chunk of '%s' is malformed", path, (const char *) type, key);
  return NULL;
}

/* Reads the @length bytes of the chunk whose header is @head and its CRC;
 * NULL with @error when cut off or damaged. */
static guint8 *
read_chunk (FILE *fp, const guint8 head[8], guint32 length, const char *path, GError **error)
{
  g_autofree guint8 *data = g_malloc ((gsize) length + 4);
  char type[16];

  chunk_type_name (head + 4, type);
  if (fread (data, 1, (gsize) length + 4, fp) != (gsize) length + 4)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE, "%s: the %s chunk is cut off",
                   path, type);
      return NULL;
    }
  if ((guint32) crc32 (crc32 (0, head + 4, 4), data, length) != get_be32 (data + length))
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                   "%s: the %s chunk is damaged: bad CRC", path, type);
      return NULL;
    }
  return g_steal_pointer (&data);
}

/* A text chunk: kept in @out when its key is one of ours and the first of
 * that key; every other is skipped. */
static gboolean
take_text (FILE *fp,
           const guint8 head[8],
           guint32 length,
           const char *path,
           SnapshotChunks *out,
           GError **error)
{
  g_autofree guint8 *data = read_chunk (fp, head, length, path, error);
  const guint8 *nul;
  char **slot;

  if (data == NULL)
    return FALSE;
  /* a key is 1 to 79 bytes before a NUL; other text is not ours */
  nul = memchr (data, '\0', MIN (length, 80));
  if (nul == NULL)
    return TRUE;
  if (strcmp ((const char *) data, SNAPSHOT_ARGS_KEY) == 0)
    slot = &out->args;
  else if (strcmp ((const char *) data, SNAPSHOT_SF_KEY) == 0)
    slot = &out->sf_text;
  else
    return TRUE;
  if (*slot != NULL)
    return TRUE;
  *slot = chunk_text (head + 4, nul + 1, (gsize) (data + length - nul - 1), path,
                      (const char *) data, error);
  return *slot != NULL;
}

static gboolean
is_text_chunk (const guint8 *type)
{
  return memcmp (type, "tEXt", 4) == 0 || memcmp (type, "zTXt", 4) == 0 ||
         memcmp (type, "iTXt", 4) == 0;
}

/* Walks the chunks of @fp (after the signature) into @out. */
static gboolean
walk_chunks (FILE *fp, const char *path, SnapshotChunks *out, GError **error)
{
  guint8 head[8];
  char type[16];

  for (guint64 index = 0; fread (head, 1, sizeof head, fp) == sizeof head; index++)
    {
      guint32 length = get_be32 (head);
      gboolean image = memcmp (head + 4, "IDAT", 4) == 0;
      gboolean sf = memcmp (head + 4, SF_CHUNK, 4) == 0;
      guint32 limit = sf ? SF_CHUNK_MAX : PNG_CHUNK_MAX;

      chunk_type_name (head + 4, type);
      if (strlen (type) != 4 || (index == 0 && memcmp (head + 4, "IHDR", 4) != 0) ||
          length > G_MAXINT32)
        {
          g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                       "%s: not a PNG file (chunk %" G_GUINT64_FORMAT " is %s of %u bytes)", path,
                       index, type, length);
          return FALSE;
        }
      if (!image && length > limit)
        {
          g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE,
                       "%s: a %s chunk of %u bytes, more than a snapshot's %u", path, type, length,
                       limit);
          return FALSE;
        }
      if (memcmp (head + 4, "IEND", 4) == 0)
        break;
      if (is_text_chunk (head + 4))
        {
          if (!take_text (fp, head, length, path, out, error))
            return FALSE;
        }
      else if (sf && out->bsfz == NULL)
        {
          guint8 *data = read_chunk (fp, head, length, path, error);

          if (data == NULL)
            return FALSE;
          out->bsfz = g_bytes_new_take (data, length);
        }
      else if (!skip_bytes (fp, (guint64) length + 4))
        break; /* cut off inside a chunk not ours */
    }
  if (ferror (fp))
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO, "%s: read error", path);
      return FALSE;
    }
  return TRUE;
}

gboolean
_braggscope_snapshot_read_chunks (const char *path, SnapshotChunks *out, GError **error)
{
  static const guint8 signature[8] = { 137, 'P', 'N', 'G', 13, 10, 26, 10 };
  guint8 head[8];
  gboolean ok;
  FILE *fp;

  memset (out, 0, sizeof *out);
  if ((fp = open_regular (path, error)) == NULL)
    return FALSE;
  if (fread (head, 1, sizeof head, fp) != sizeof head || memcmp (head, signature, 8) != 0)
    {
      fclose (fp);
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE, "%s: not a PNG file", path);
      return FALSE;
    }
  ok = walk_chunks (fp, path, out, error);
  fclose (fp);
  if (!ok)
    _braggscope_snapshot_chunks_clear (out);
  return ok;
}
