/* io.c: raw float, SMV and PGM images (physics.md §19); the atomic writer
 * behind every output file is io-write.c. */
#include "nb-io.h"
#include "base/nb-input.h"
#include "base/nb-io-write.h"
#include "base/nb-memory.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* nanoBragg's header is 512 bytes; a text that does not fit is written with
 * the next multiple of 512 instead (see nb_write_smv). */
#define SMV_HEADER_BYTES 512
#define SMV_HEADER_MAX   1024
#define SMV_MAGIC        "{\nHEADER_BYTES="

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

/* Headers must read and write "0.1", not "0,1", whatever locale the
 * application (a GTK program calls setlocale) has chosen; uselocale() changes
 * only this thread. */
typedef struct
{
  locale_t c;
  locale_t old;
} c_numeric;

static void
c_numeric_push (c_numeric *l)
{
  l->c = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
  l->old = l->c != (locale_t) 0 ? uselocale (l->c) : (locale_t) 0;
}

static void
c_numeric_pop (c_numeric *l)
{
  if (l->c != (locale_t) 0)
    {
      uselocale (l->old);
      freelocale (l->c);
    }
}

static int
host_is_little_endian (void)
{
  const uint16_t one = 1;

  return *(const unsigned char *) &one == 1;
}

static int
image_bytes (int width, int height, size_t item, size_t *out)
{
  if (width <= 0 || height <= 0)
    return 0;
  if ((size_t) width > SIZE_MAX / item / (size_t) height)
    return 0;
  *out = (size_t) width * (size_t) height * item;
  return 1;
}

/* ------------------------------------------------------------------------ */
/* Raw float                                                                 */

nb_status
nb_write_float_image (const char *path, const float *image, int fpixels, int spixels, nb_error *err)
{
  const void *chunks[1] = { image };
  size_t sizes[1];

  if (image == NULL || !image_bytes (fpixels, spixels, sizeof (float), &sizes[0]))
    return nb_error_set (err, NB_ERR_INVALID, "cannot write %s: bad image size %d x %d",
                         path != NULL ? path : "(null)", fpixels, spixels);
  return nb_write_file_atomic (path, chunks, sizes, 1, err);
}

/* ------------------------------------------------------------------------ */
/* SMV                                                                       */

/* The header text, in nanoBragg's key order and number formats, claiming
 * @header_bytes.  With @h->dials, DIALS_ORIGIN ends in its ';' and
 * ADC_OFFSET follows TWOTHETA (the reference's header lacks both).  Returns
 * its length (snprintf semantics). */
static size_t
smv_header_text (const nb_smv_header *h, int header_bytes, char *buf, size_t n)
{
  c_numeric loc;
  char adc[48] = "";
  int len;

  c_numeric_push (&loc);
  if (h->dials)
    snprintf (adc, sizeof adc, "ADC_OFFSET=%g;\n", h->adc_offset);
  len = snprintf (buf, n,
                  "{\nHEADER_BYTES=%d;\nDIM=2;\nBYTE_ORDER=little_endian;\nTYPE=unsigned_short;\n"
                  "SIZE1=%d;\nSIZE2=%d;\nPIXEL_SIZE=%g;\nDISTANCE=%g;\n"
                  "WAVELENGTH=%g;\n"
                  "BEAM_CENTER_X=%g;\nBEAM_CENTER_Y=%g;\n"
                  "ADXV_CENTER_X=%g;\nADXV_CENTER_Y=%g;\n"
                  "MOSFLM_CENTER_X=%g;\nMOSFLM_CENTER_Y=%g;\n"
                  "DENZO_X_BEAM=%g;\nDENZO_Y_BEAM=%g;\n"
                  "DIALS_ORIGIN=%g,%g,%g%s\n"
                  "XDS_ORGX=%g;\nXDS_ORGY=%g;\n"
                  "CLOSE_DISTANCE=%g;\n"
                  "PHI=%g;\nOSC_START=%g;\nOSC_RANGE=%g;\n"
                  "TWOTHETA=%g;\n"
                  "%s"
                  "DETECTOR_SN=000;\n"
                  "BEAMLINE=fake;\n"
                  "}\f",
                  header_bytes, h->size1, h->size2, h->pixel_size_mm, h->distance_mm,
                  h->wavelength_A, h->beam_center_x_mm, h->beam_center_y_mm, h->adxv_center_x_mm,
                  h->adxv_center_y_mm, h->mosflm_center_x_mm, h->mosflm_center_y_mm,
                  h->denzo_x_beam_mm, h->denzo_y_beam_mm, h->dials_origin_mm[0],
                  h->dials_origin_mm[1], h->dials_origin_mm[2], h->dials ? ";" : "", h->xds_orgx_px,
                  h->xds_orgy_px, h->close_distance_mm, h->phi_deg, h->osc_start_deg,
                  h->osc_range_deg, h->twotheta_deg, adc);
  c_numeric_pop (&loc);
  return len < 0 ? 0 : (size_t) len;
}

size_t
nb_smv_format_header (const nb_smv_header *h, char out[512])
{
  char buf[SMV_HEADER_MAX + 1];
  size_t len = smv_header_text (h, SMV_HEADER_BYTES, buf, sizeof buf);
  size_t used = len < SMV_HEADER_BYTES ? len : SMV_HEADER_BYTES;

  memcpy (out, buf, used);
  memset (out + used, ' ', SMV_HEADER_BYTES - used);
  return len;
}

nb_status
nb_smv_encode (
    const nb_smv_header *h, const uint16_t *pixels, void **bytes, size_t *size, nb_error *err)
{
  char header[SMV_HEADER_MAX];
  size_t pixel_bytes, n_pixels, len, header_bytes = SMV_HEADER_BYTES;
  unsigned char *out;

  *bytes = NULL;
  *size = 0;
  if (h == NULL || pixels == NULL ||
      !image_bytes (h->size1, h->size2, sizeof (uint16_t), &pixel_bytes) ||
      pixel_bytes > SIZE_MAX - SMV_HEADER_MAX)
    return nb_error_set (err, NB_ERR_INVALID, "bad SMV image size");
  n_pixels = pixel_bytes / sizeof (uint16_t);

  len = smv_header_text (h, SMV_HEADER_BYTES, header, sizeof header);
  if (len > SMV_HEADER_BYTES)
    {
      /* nanoBragg would write the long text unpadded under a false
       * HEADER_BYTES=512, so no reader finds the pixels; say the truth. */
      header_bytes = SMV_HEADER_MAX;
      len = smv_header_text (h, SMV_HEADER_MAX, header, sizeof header);
      if (len > SMV_HEADER_MAX)
        return nb_error_set (err, NB_ERR_INVALID, "SMV header too long");
    }
  memset (header + len, ' ', header_bytes - len);

  out = malloc (header_bytes + pixel_bytes);
  if (out == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory for an SMV image");
  memcpy (out, header, header_bytes);
  if (host_is_little_endian ())
    memcpy (out + header_bytes, pixels, pixel_bytes);
  else
    for (size_t i = 0; i < n_pixels; i++)
      {
        out[header_bytes + 2 * i] = (unsigned char) (pixels[i] & 0xff);
        out[header_bytes + 2 * i + 1] = (unsigned char) (pixels[i] >> 8);
      }
  *bytes = out;
  *size = header_bytes + pixel_bytes;
  return NB_OK;
}

nb_status
nb_write_smv (const char *path, const nb_smv_header *h, const uint16_t *pixels, nb_error *err)
{
  const void *chunks[1];
  size_t sizes[1];
  void *bytes;
  nb_error why = { 0 };
  nb_status status;

  if ((status = nb_smv_encode (h, pixels, &bytes, &sizes[0], &why)) != NB_OK)
    return nb_error_set (err, status, "cannot write %s: %s", path != NULL ? path : "(null)",
                         why.message);
  chunks[0] = bytes;
  status = nb_write_file_atomic (path, chunks, sizes, 1, err);
  free (bytes);
  return status;
}

/* ValueOf()'s search: the last occurrence of @key (NULL when absent); *@eq
 * receives the first '=' after it, or NULL. */
static const char *
smv_find_key (const char *text, const char *key, const char **eq)
{
  size_t keylen;
  const char *p, *q, *last = NULL;

  *eq = NULL;
  if (text == NULL || key == NULL || key[0] == '\0')
    return NULL;
  keylen = strlen (key);
  p = text;
  while ((q = strstr (p, key)) != NULL)
    {
      last = q;
      p = q + keylen;
    }
  if (last != NULL)
    *eq = strchr (last + keylen, '=');
  return last;
}

/* ValueOf(): the last occurrence of @key wins, then the first '=' after it.
 * A key with no '=' after it gives 0, as atof("") would. */
static double
smv_text_value (const char *text, const char *key)
{
  const char *eq;
  c_numeric loc;
  double v;

  if (smv_find_key (text, key, &eq) == NULL)
    return NAN;
  if (eq == NULL)
    return 0.0;

  c_numeric_push (&loc);
  v = strtod (eq + 1, NULL);
  c_numeric_pop (&loc);
  return v;
}

int
nb_smv_lookup (
    const nb_smv_file *f, const char *key, double *value, long *line, char *raw, size_t raw_size)
{
  const char *at, *eq, *start;
  char *end;
  c_numeric loc;
  size_t n = 0;
  int status;

  *value = NAN;
  *line = 0;
  if (raw_size > 0)
    raw[0] = '\0';
  if (f == NULL || (at = smv_find_key (f->text, key, &eq)) == NULL)
    return 0;
  *line = 1;
  for (const char *q = f->text; q < at; q++)
    *line += *q == '\n';
  if (eq == NULL)
    return -1;

  start = eq + 1;
  c_numeric_push (&loc);
  *value = strtod (start, &end);
  c_numeric_pop (&loc);
  /* the number must end the field: "0.1;", "0.1" at a line end, "0.1 mm;" is not one */
  while (*end == ' ' || *end == '\t')
    end++;
  status = end > start && (*end == ';' || *end == '\n' || *end == '\r' || *end == '\0') &&
                   isfinite (*value)
               ? 1
               : -1;
  if (status < 0)
    *value = NAN;
  if (raw_size > 0)
    {
      while (start[n] != '\0' && start[n] != ';' && start[n] != '\n' && n + 1 < raw_size)
        {
          unsigned char c = (unsigned char) start[n];

          raw[n] = c >= 0x20 && c < 0x7f ? (char) c : '?';
          n++;
        }
      raw[n] = '\0';
    }
  return status;
}

double
nb_smv_value (const nb_smv_file *f, const char *key)
{
  if (f == NULL)
    return NAN;
  return smv_text_value (f->text, key);
}

void
nb_smv_file_clear (nb_smv_file *f)
{
  if (f == NULL)
    return;
  free (f->text);
  free (f->pixels);
  memset (f, 0, sizeof *f);
}

/* Reads up to @n bytes; returns how many, or -1 on a read error. */
static long
read_some (FILE *fp, void *buf, size_t n)
{
  size_t got = fread (buf, 1, n, fp);

  if (got < n && ferror (fp))
    return -1;
  return (long) got;
}

/* A header dimension: a positive whole number of pixels. */
static int
smv_dimension (double v, int *out)
{
  if (!(v >= 1.0 && v < (double) INT_MAX))
    return 0;
  *out = (int) v;
  return 1;
}

/* The byte order and size of the pixels the header of @out describes (its
 * text read).  Source: nanoBragg.c GetFrame(). */
static nb_status
smv_layout (nb_smv_file *out, const char *path, int *file_little, nb_error *err)
{
  const char *order = NULL, *q;

  /* Like GetFrame(), the last BYTE_ORDER= in the header counts. */
  for (q = out->text; (q = strstr (q, "BYTE_ORDER=")) != NULL; q += strlen ("BYTE_ORDER="))
    order = q + strlen ("BYTE_ORDER=");
  if (order != NULL && strncmp (order, "little_endian", 13) == 0)
    *file_little = 1;
  else if (order != NULL && strncmp (order, "big_endian", 10) == 0)
    *file_little = 0;
  else
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s: BYTE_ORDER is missing or neither little_endian nor big_endian", path);

  if (!smv_dimension (nb_smv_value (out, "SIZE1"), &out->size1) ||
      !smv_dimension (nb_smv_value (out, "SIZE2"), &out->size2))
    {
      /* GetFrame() falls back to DETECTOR_DIMENSIONS for square detectors */
      if (!smv_dimension (nb_smv_value (out, "DETECTOR_DIMENSIONS"), &out->size1))
        return nb_error_set (err, NB_ERR_PARSE,
                             "%s: SIZE1/SIZE2 (or DETECTOR_DIMENSIONS) missing or not a "
                             "positive pixel count",
                             path);
      out->size2 = out->size1;
    }
  return NB_OK;
}

nb_status
nb_read_smv (const char *path, nb_smv_file *out, nb_error *err)
{
  FILE *fp = NULL;
  struct stat st;
  char first[SMV_HEADER_BYTES + 1];
  double hb;
  long got;
  size_t header_bytes, data_bytes, n;
  int file_little = 0;
  nb_status status = NB_OK;

  if (out == NULL)
    return nb_error_set (err, NB_ERR_INVALID, "nb_read_smv: no output for %s",
                         path != NULL ? path : "(null)");
  memset (out, 0, sizeof *out);
  if (path == NULL)
    return nb_error_set (err, NB_ERR_IO, "cannot open a file with no name");

  if ((status = nb_input_fopen (path, &fp, &st, err)) != NB_OK)
    return status;

  got = read_some (fp, first, SMV_HEADER_BYTES);
  if (got < 0)
    {
      status = nb_io_error (err, errno, "cannot read", path);
      goto fail;
    }
  first[got] = '\0';
  if ((size_t) got < strlen (SMV_MAGIC) || memcmp (first, SMV_MAGIC, strlen (SMV_MAGIC)) != 0)
    {
      status = nb_error_set (err, NB_ERR_PARSE,
                             "%s: not an SMV (ADSC) image: it does not start with "
                             "\"{\" and HEADER_BYTES=",
                             path);
      goto fail;
    }

  hb = smv_text_value (first, "HEADER_BYTES");
  if (!(hb >= (double) strlen (SMV_MAGIC) && hb <= (double) st.st_size))
    {
      status = nb_error_set (err, NB_ERR_PARSE,
                             "%s: HEADER_BYTES=%g is not a header size within the file "
                             "(%lld bytes)",
                             path, hb, (long long) st.st_size);
      goto fail;
    }
  header_bytes = (size_t) hb;

  out->text = malloc (header_bytes + 1);
  if (out->text == NULL)
    {
      status = nb_error_set (err, NB_ERR_NOMEM, "out of memory reading %s", path);
      goto fail;
    }
  if (fseek (fp, 0, SEEK_SET) != 0)
    {
      status = nb_io_error (err, errno, "cannot read", path);
      goto fail;
    }
  got = read_some (fp, out->text, header_bytes);
  if (got < 0 || (size_t) got != header_bytes)
    {
      status = got < 0 ? nb_io_error (err, errno, "cannot read", path)
                       : nb_error_set (err, NB_ERR_PARSE,
                                       "%s: header shorter than "
                                       "HEADER_BYTES=%zu",
                                       path, header_bytes);
      goto fail;
    }
  out->text[header_bytes] = '\0';
  out->header_bytes = header_bytes;

  if ((status = smv_layout (out, path, &file_little, err)) != NB_OK)
    goto fail;

  if (!image_bytes (out->size1, out->size2, sizeof (uint16_t), &data_bytes))
    {
      status = nb_error_set (err, NB_ERR_PARSE, "%s: SIZE1=%d x SIZE2=%d is too large", path,
                             out->size1, out->size2);
      goto fail;
    }
  if ((uintmax_t) st.st_size - header_bytes < data_bytes)
    {
      status = nb_error_set (err, NB_ERR_PARSE,
                             "%s: truncated: SIZE1=%d x SIZE2=%d needs %zu bytes of pixels "
                             "after the %zu-byte header, the file has %lld",
                             path, out->size1, out->size2, data_bytes, header_bytes,
                             (long long) st.st_size - (long long) header_bytes);
      goto fail;
    }

  out->pixels = malloc (data_bytes);
  if (out->pixels == NULL)
    {
      status = nb_error_set (err, NB_ERR_NOMEM, "out of memory reading %s", path);
      goto fail;
    }
  if (fseeko (fp, (off_t) header_bytes, SEEK_SET) != 0)
    {
      status = nb_io_error (err, errno, "cannot read", path);
      goto fail;
    }
  n = fread (out->pixels, 1, data_bytes, fp);
  if (n != data_bytes)
    {
      status = ferror (fp) ? nb_io_error (err, errno, "cannot read", path)
                           : nb_error_set (err, NB_ERR_PARSE, "%s: truncated pixel data", path);
      goto fail;
    }

  if (file_little != host_is_little_endian ())
    {
      size_t count = data_bytes / sizeof (uint16_t);

      for (size_t k = 0; k < count; k++)
        out->pixels[k] = (uint16_t) ((out->pixels[k] >> 8) | (out->pixels[k] << 8));
    }

  fclose (fp);
  return NB_OK;

fail:
  fclose (fp);
  nb_smv_file_clear (out);
  return status;
}

/* ------------------------------------------------------------------------ */
/* PGM                                                                       */

nb_status
nb_write_pgm (
    const char *path, const uint8_t *bytes, int width, int height, double scale, nb_error *err)
{
  char header[128];
  const void *chunks[2];
  size_t sizes[2];
  c_numeric loc;
  int len;

  if (bytes == NULL || !image_bytes (width, height, 1, &sizes[1]))
    return nb_error_set (err, NB_ERR_INVALID, "cannot write %s: bad image size %d x %d",
                         path != NULL ? path : "(null)", width, height);

  c_numeric_push (&loc);
  len = snprintf (header, sizeof header, "P5\n%d %d\n# pixels scaled by %g\n255\n", width, height,
                  scale);
  c_numeric_pop (&loc);
  if (len < 0 || (size_t) len >= sizeof header)
    return nb_error_set (err, NB_ERR_INVALID, "cannot write %s: PGM header", path);

  chunks[0] = header;
  sizes[0] = (size_t) len;
  chunks[1] = bytes;
  return nb_write_file_atomic (path, chunks, sizes, 2, err);
}
