/* png.c: 8-bit greyscale PNG output through libpng, when the build has it. */
#include "nb-io.h"

#ifdef NB_HAVE_PNG

#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The encoded file is built in memory and handed to nb_write_file_atomic,
 * so a failure half-way never leaves a partial PNG behind. */
typedef struct
{
  unsigned char *data;
  size_t len;
  size_t cap;
  int nomem;
  char message[256];
} png_sink;

static void
sink_write (png_structp png, png_bytep data, size_t n)
{
  png_sink *s = png_get_io_ptr (png);

  if (n > s->cap - s->len)
    {
      size_t cap = s->cap > 0 ? s->cap : 65536;
      unsigned char *grown;

      while (n > cap - s->len)
        {
          if (cap > SIZE_MAX / 2)
            {
              s->nomem = 1;
              png_error (png, "out of memory");
            }
          cap *= 2;
        }
      grown = realloc (s->data, cap);
      if (grown == NULL)
        {
          s->nomem = 1;
          png_error (png, "out of memory");
        }
      s->data = grown;
      s->cap = cap;
    }
  memcpy (s->data + s->len, data, n);
  s->len += n;
}

static void
sink_flush (png_structp png)
{
  (void) png;
}

/* libpng's default handlers print to stderr; the engine never prints. */
static void
on_error (png_structp png, png_const_charp msg)
{
  png_sink *s = png_get_error_ptr (png);

  snprintf (s->message, sizeof s->message, "%s", msg);
  png_longjmp (png, 1);
}

static void
on_warning (png_structp png, png_const_charp msg)
{
  (void) png;
  (void) msg;
}

/* A PNG keyword: 1-79 printable Latin-1 characters without leading, trailing
 * or doubled spaces.  Only ASCII is accepted because callers pass UTF-8. */
static int
valid_keyword (const char *key)
{
  size_t n = strlen (key);

  if (n < 1 || n > 79 || key[0] == ' ' || key[n - 1] == ' ')
    return 0;
  for (size_t i = 0; i < n; i++)
    {
      unsigned char c = (unsigned char) key[i];

      if (c < 32 || c > 126 || (c == ' ' && key[i + 1] == ' '))
        return 0;
    }
  return 1;
}

/* Decodes UTF-8 @in.  Returns -1 if it is not valid UTF-8, 1 if every code
 * point fits Latin-1 (then @latin1, at least strlen (@in) + 1 bytes, holds the
 * Latin-1 text for a tEXt chunk), 0 otherwise (an iTXt chunk is needed). */
static int
utf8_to_latin1 (const char *in, char *latin1)
{
  const unsigned char *p = (const unsigned char *) in;
  char *o = latin1;
  int fits = 1;

  while (*p != 0)
    {
      uint32_t cp;
      int extra;

      if (p[0] < 0x80)
        extra = 0;
      else if ((p[0] & 0xe0) == 0xc0)
        extra = 1;
      else if ((p[0] & 0xf0) == 0xe0)
        extra = 2;
      else if ((p[0] & 0xf8) == 0xf0)
        extra = 3;
      else
        return -1;
      /* the lead byte's payload bits: 7, 5, 4 or 3 */
      cp = p[0] & (extra == 0 ? 0x7f : 0x3f >> extra);
      for (int i = 1; i <= extra; i++)
        {
          if ((p[i] & 0xc0) != 0x80)
            return -1;
          cp = (cp << 6) | (p[i] & 0x3f);
        }
      /* overlong forms, surrogates and values past U+10FFFF */
      if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000) ||
          (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return -1;
      if (cp > 0xff)
        fits = 0;
      else
        *o++ = (char) cp;
      p += extra + 1;
    }
  *o = '\0';
  return fits;
}

/* Encodes the image (@channels 1: grey, 3: RGB) into @sink.  Kept apart from
 * the caller so that the only locals alive across setjmp() are never changed
 * after it. */
static int
encode_png (png_sink *sink,
            const uint8_t *bytes,
            int width,
            int height,
            int channels,
            png_textp texts,
            int n_text)
{
  png_structp png;
  png_infop info;

  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, sink, on_error, on_warning);
  if (png == NULL)
    {
      sink->nomem = 1;
      return -1;
    }
  info = png_create_info_struct (png);
  if (info == NULL)
    {
      png_destroy_write_struct (&png, NULL);
      sink->nomem = 1;
      return -1;
    }
  if (setjmp (png_jmpbuf (png)))
    {
      png_destroy_write_struct (&png, &info);
      return -1;
    }

  png_set_write_fn (png, sink, sink_write, sink_flush);
  png_set_IHDR (png, info, (png_uint_32) width, (png_uint_32) height, 8,
                channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (n_text > 0)
    png_set_text (png, info, texts, n_text);
  png_write_info (png, info);
  for (int y = 0; y < height; y++)
    png_write_row (png, bytes + (size_t) y * (size_t) width * (size_t) channels);
  png_write_end (png, info);
  png_destroy_write_struct (&png, &info);
  return 0;
}

int
nb_png_available (void)
{
  return 1;
}

static nb_status
write_png (const char *path,
           const uint8_t *bytes,
           int width,
           int height,
           int channels,
           const char *const *keys,
           const char *const *values,
           int n_text,
           nb_error *err)
{
  png_sink sink = { 0 };
  png_textp texts = NULL;
  char **latin1 = NULL;
  nb_status status = NB_OK;
  int i;

  if (path == NULL || bytes == NULL || width <= 0 || height <= 0 || n_text < 0 ||
      (n_text > 0 && (keys == NULL || values == NULL)))
    return nb_error_set (err, NB_ERR_INVALID, "cannot write PNG %s: bad arguments (%d x %d)",
                         path != NULL ? path : "(null)", width, height);

  if (n_text > 0)
    {
      texts = calloc ((size_t) n_text, sizeof *texts);
      latin1 = calloc ((size_t) n_text, sizeof *latin1);
      if (texts == NULL || latin1 == NULL)
        {
          status = nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", path);
          goto out;
        }
    }
  for (i = 0; i < n_text; i++)
    {
      int fits;

      if (keys[i] == NULL || values[i] == NULL || !valid_keyword (keys[i]))
        {
          status = nb_error_set (err, NB_ERR_INVALID,
                                 "cannot write PNG %s: \"%s\" is not a PNG text keyword "
                                 "(1-79 printable ASCII characters)",
                                 path, keys[i] != NULL ? keys[i] : "(null)");
          goto out;
        }
      latin1[i] = malloc (strlen (values[i]) + 1);
      if (latin1[i] == NULL)
        {
          status = nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", path);
          goto out;
        }
      fits = utf8_to_latin1 (values[i], latin1[i]);
      /* Not UTF-8 (a command line in a legacy encoding, say): metadata is
       * not worth failing the image for, so the bytes go out as they are. */
      if (fits < 0)
        {
          strcpy (latin1[i], values[i]);
          fits = 1;
        }
      texts[i].key = (png_charp) keys[i];
      if (fits)
        {
          texts[i].compression = PNG_TEXT_COMPRESSION_NONE;
          texts[i].text = latin1[i];
          texts[i].text_length = strlen (latin1[i]);
        }
      else
        {
          texts[i].compression = PNG_ITXT_COMPRESSION_NONE;
          texts[i].text = (png_charp) values[i];
          texts[i].itxt_length = strlen (values[i]);
        }
    }

  if (encode_png (&sink, bytes, width, height, channels, texts, n_text) != 0)
    {
      if (sink.nomem)
        status = nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", path);
      else
        status = nb_error_set (err, NB_ERR_IO, "cannot write PNG %s: %s", path, sink.message);
    }
  else
    {
      const void *chunks[1] = { sink.data };
      size_t sizes[1] = { sink.len };

      status = nb_write_file_atomic (path, chunks, sizes, 1, err);
    }

out:
  if (latin1 != NULL)
    for (i = 0; i < n_text; i++)
      free (latin1[i]);
  free (latin1);
  free (texts);
  free (sink.data);
  return status;
}

nb_status
nb_write_png_gray8 (const char *path,
                    const uint8_t *bytes,
                    int width,
                    int height,
                    const char *const *keys,
                    const char *const *values,
                    int n_text,
                    nb_error *err)
{
  return write_png (path, bytes, width, height, 1, keys, values, n_text, err);
}

nb_status
nb_write_png_rgb8 (const char *path,
                   const uint8_t *rgb,
                   int width,
                   int height,
                   const char *const *keys,
                   const char *const *values,
                   int n_text,
                   nb_error *err)
{
  return write_png (path, rgb, width, height, 3, keys, values, n_text, err);
}

#else /* !NB_HAVE_PNG */

int
nb_png_available (void)
{
  return 0;
}

nb_status
nb_write_png_gray8 (const char *path,
                    const uint8_t *bytes,
                    int width,
                    int height,
                    const char *const *keys,
                    const char *const *values,
                    int n_text,
                    nb_error *err)
{
  (void) bytes;
  (void) width;
  (void) height;
  (void) keys;
  (void) values;
  (void) n_text;
  return nb_error_set (err, NB_ERR_UNSUPPORTED,
                       "cannot write PNG %s: this build has no libpng (reconfigure with "
                       "-Dpng=enabled)",
                       path != NULL ? path : "(null)");
}

nb_status
nb_write_png_rgb8 (const char *path,
                   const uint8_t *rgb,
                   int width,
                   int height,
                   const char *const *keys,
                   const char *const *values,
                   int n_text,
                   nb_error *err)
{
  return nb_write_png_gray8 (path, rgb, width, height, keys, values, n_text, err);
}

#endif
