/* frame-smv.c: SMV frames (ADSC, Rayonix, Timepix, nanoBragg) as measured
 * frames: the header's keys read exactly (not nanoBragg's substring search),
 * 16- and 32-bit pixels of either byte order, and the file's size checked
 * against the header.
 *
 * The beam centre has no one convention in SMV headers; in order of trust:
 *   ADXV_CENTER_X/Y  nanoBragg's own headers: mm, X along fast, Y along slow
 *                    from the far edge (io.c writes them from Fbeam/Sbeam)
 *   BEAM_CENTER_X/Y with BEAMLINE=TIMEPIX_SU  pixels along fast and slow (the
 *                    Stockholm Timepix's RED software; as dxtbx's
 *                    FormatSMVTimePix_SU_516x516 reads them)
 *   BEAM_CENTER_X/Y  ADSC's: mm in MOSFLM's frame, X along slow and Y along
 *                    fast (as dxtbx's FormatSMVADSC reads them)
 *   DENZO_X_BEAM/DENZO_Y_BEAM  mm, X along slow and Y along fast
 */
#include "nb-frame-private.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define RTD (180.0 / M_PI)

/* The header text (NUL-terminated, owned by the frame) and what the keys
 * are looked up in. */
typedef struct
{
  const char *path;
  const char *text;
} smv_header;

/* Finds KEY=VALUE with @key the whole name at a line's start (after blanks);
 * the first occurrence counts.  Returns the value's start (after '=' and
 * blanks) or NULL; *@line gets its 1-based line. */
static const char *
smv_find (const smv_header *h, const char *key, long *line)
{
  size_t keylen = strlen (key);
  const char *p = h->text;
  long n = 1;

  while (*p != '\0')
    {
      const char *q = p;

      while (*q == ' ' || *q == '\t' || *q == '{')
        q++;
      if (strncmp (q, key, keylen) == 0)
        {
          const char *r = q + keylen;

          while (*r == ' ' || *r == '\t')
            r++;
          if (*r == '=')
            {
              r++;
              while (*r == ' ' || *r == '\t')
                r++;
              *line = n;
              return r;
            }
        }
      p = strchr (p, '\n');
      if (p == NULL)
        break;
      p++;
      n++;
    }
  return NULL;
}

/* The value's text up to ';' or the line's end, printable, in @out. */
static void
smv_raw (const char *value, char *out, size_t size)
{
  size_t n = strcspn (value, ";\r\n");

  nb_frame_quote (value, n, out, size);
}

/* A numeric key: 0 absent, 1 found (*@v), or an NB_ERR_PARSE naming the
 * file and line when the value is not one finite number (or, with
 * @positive, not > 0). */
static nb_status
smv_number (const smv_header *h,
            const char *key,
            int positive,
            double *v,
            int *found,
            long *line,
            nb_error *err)
{
  const char *value = smv_find (h, key, line);
  char *end, raw[64];

  *found = 0;
  if (value == NULL)
    return NB_OK;
  *v = nb_frame_strtod (value, &end);
  while (*end == ' ' || *end == '\t')
    end++;
  smv_raw (value, raw, sizeof raw);
  if (end == value || !(*end == ';' || *end == '\r' || *end == '\n' || *end == '\0') ||
      !isfinite (*v))
    return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: %s='%s' is not a number", h->path, *line, key,
                         raw);
  if (positive && !(*v > 0.0))
    return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: %s=%s (allowed: > 0)", h->path, *line, key,
                         raw);
  *found = 1;
  return NB_OK;
}

/* A word value (TYPE, BYTE_ORDER, BEAMLINE) into @out; 0 when absent. */
static int
smv_word (const smv_header *h, const char *key, char *out, size_t size, long *line)
{
  const char *value = smv_find (h, key, line);
  size_t n;

  if (value == NULL)
    return 0;
  n = strcspn (value, "; \t\r\n");
  nb_frame_quote (value, n < size - 1 ? n : size - 1, out, size);
  return 1;
}

typedef struct
{
  const char *key;
  double to_si;
  int positive;
  nb_frame_item item;
  const char *unit;
} smv_item;

/* The geometry items of the header. */
static nb_status
smv_geometry (const smv_header *h, nb_frame *frame, nb_error *err)
{
  static const smv_item items[] = {
    { "WAVELENGTH", 1e-10, 1, NB_FRAME_WAVELENGTH, "A" },
    { "DISTANCE", 1e-3, 1, NB_FRAME_DISTANCE, "mm" },
    { "PIXEL_SIZE", 1e-3, 1, NB_FRAME_PIXEL_SIZE, "mm" },
    { "OSC_RANGE", 1.0 / RTD, 0, NB_FRAME_OSCILLATION, "deg" },
    { "TIME", 1.0, 0, NB_FRAME_EXPOSURE, "s" },
    { "TWOTHETA", 1.0 / RTD, 0, NB_FRAME_TWOTHETA, "deg" },
  };
  char raw[64], beamline[32] = "";
  double v, x, y, px;
  long line, line_y;
  int found, found_y;
  nb_status st;

  for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
    {
      if ((st = smv_number (h, items[i].key, items[i].positive, &v, &found, &line, err)) != NB_OK)
        return st;
      if (!found)
        continue;
      if (items[i].item == NB_FRAME_OSCILLATION && v < 0)
        return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: OSC_RANGE=%g (allowed: >= 0)", h->path,
                             line, v);
      smv_raw (smv_find (h, items[i].key, &line), raw, sizeof raw);
      nb_frame_set_item (frame, items[i].item, v * items[i].to_si,
                         "the SMV header line %ld '%s=%s'", line, items[i].key, raw);
    }

  /* the start angle: OSC_START, else PHI */
  {
    const char *key = "OSC_START";

    if ((st = smv_number (h, key, 0, &v, &found, &line, err)) != NB_OK)
      return st;
    if (!found)
      {
        key = "PHI";
        if ((st = smv_number (h, key, 0, &v, &found, &line, err)) != NB_OK)
          return st;
      }
    if (found)
      {
        smv_raw (smv_find (h, key, &line), raw, sizeof raw);
        nb_frame_set_item (frame, NB_FRAME_PHI_START, v / RTD, "the SMV header line %ld '%s=%s'",
                           line, key, raw);
      }
  }

  /* the beam centre, by the rules at the top of this file */
  px = frame->item[NB_FRAME_PIXEL_SIZE].have ? frame->item[NB_FRAME_PIXEL_SIZE].value : NAN;
  smv_word (h, "BEAMLINE", beamline, sizeof beamline, &line);
  {
    static const struct
    {
      const char *x, *y;
      int pixels;      /* values in pixels, not mm */
      int x_is_fast;   /* X along fast (else along slow) */
      int y_from_edge; /* Y counted from the far edge of the slow axis */
      const char *how;
    } rules[] = {
      { "ADXV_CENTER_X", "ADXV_CENTER_Y", 0, 1, 1, "nanoBragg's ADXV frame: mm" },
      { "BEAM_CENTER_X", "BEAM_CENTER_Y", 1, 1, 0, "TIMEPIX_SU: pixels, X fast" },
      { "BEAM_CENTER_X", "BEAM_CENTER_Y", 0, 0, 0, "ADSC's MOSFLM frame: mm, X slow" },
      { "DENZO_X_BEAM", "DENZO_Y_BEAM", 0, 0, 0, "DENZO frame: mm, X slow" },
    };
    int timepix = strcasecmp (beamline, "TIMEPIX_SU") == 0;

    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++)
      {
        char raw_y[64];
        double f, s;

        if (rules[r].pixels != timepix && strcmp (rules[r].x, "BEAM_CENTER_X") == 0)
          continue;
        if ((st = smv_number (h, rules[r].x, 0, &x, &found, &line, err)) != NB_OK ||
            (st = smv_number (h, rules[r].y, 0, &y, &found_y, &line_y, err)) != NB_OK)
          return st;
        if (!found || !found_y)
          continue;
        if (rules[r].pixels && !(px > 0))
          return nb_error_set (err, NB_ERR_PARSE,
                               "%s:%ld: %s is in pixels, but the header has no PIXEL_SIZE", h->path,
                               line, rules[r].x);
        x = rules[r].pixels ? x * px : x * 1e-3;
        y = rules[r].pixels ? y * px : y * 1e-3;
        if (rules[r].y_from_edge)
          {
            if (!(px > 0))
              return nb_error_set (err, NB_ERR_PARSE,
                                   "%s:%ld: %s counts from the detector's edge, but the header "
                                   "has no PIXEL_SIZE",
                                   h->path, line_y, rules[r].y);
            y = frame->spixels * px - y;
          }
        f = rules[r].x_is_fast ? x : y;
        s = rules[r].x_is_fast ? y : x;
        smv_raw (smv_find (h, rules[r].x, &line), raw, sizeof raw);
        smv_raw (smv_find (h, rules[r].y, &line_y), raw_y, sizeof raw_y);
        nb_frame_set_item (frame, NB_FRAME_BEAM_F, f,
                           "the SMV header lines %ld-%ld '%s=%s' '%s=%s' (%s)",
                           line < line_y ? line : line_y, line < line_y ? line_y : line, rules[r].x,
                           raw, rules[r].y, raw_y, rules[r].how);
        nb_frame_set_item (frame, NB_FRAME_BEAM_S, s, "%s", frame->item[NB_FRAME_BEAM_F].source);
        break;
      }
  }
  return NB_OK;
}

static uint32_t
load_u32 (const unsigned char *b, int little)
{
  return little ? (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 |
                      (uint32_t) b[3] << 24
                : (uint32_t) b[3] | (uint32_t) b[2] << 8 | (uint32_t) b[1] << 16 |
                      (uint32_t) b[0] << 24;
}

static uint16_t
load_u16 (const unsigned char *b, int little)
{
  return little ? (uint16_t) (b[0] | b[1] << 8) : (uint16_t) (b[1] | b[0] << 8);
}

/* The pixels of an SMV file after its @header_bytes into @frame's counts
 * (@elsize bytes each, of @little endian order and @is_signed), with values
 * above INT32_MAX masked. */
static nb_status
smv_read_pixels (const char *path,
                 FILE *fp,
                 size_t header_bytes,
                 int elsize,
                 int is_signed,
                 int little,
                 nb_frame *frame,
                 nb_error *err)
{
  size_t n_pixels = (size_t) frame->fpixels * (size_t) frame->spixels, done = 0;
  /* read in slices so that the raw bytes never need a second full-size buffer */
  unsigned char *buf = malloc (65536);

  if (buf == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory reading %s", path);
  if (fseeko (fp, (off_t) header_bytes, SEEK_SET) != 0)
    {
      free (buf);
      return nb_error_set (err, NB_ERR_IO, "cannot read %s: %s", path, strerror (errno));
    }
  while (done < n_pixels)
    {
      size_t want =
          n_pixels - done < 65536 / (size_t) elsize ? n_pixels - done : 65536 / (size_t) elsize;

      if (fread (buf, (size_t) elsize, want, fp) != want)
        {
          int e = ferror (fp) ? errno : 0;

          free (buf);
          return e ? nb_error_set (err, NB_ERR_IO, "cannot read %s: %s", path, strerror (e))
                   : nb_error_set (err, NB_ERR_PARSE, "%s: truncated pixel data", path);
        }
      for (size_t i = 0; i < want; i++)
        {
          const unsigned char *b = buf + i * (size_t) elsize;
          int64_t c;

          if (elsize == 2)
            c = is_signed ? (int64_t) (int16_t) load_u16 (b, little) : load_u16 (b, little);
          else
            c = is_signed ? (int64_t) (int32_t) load_u32 (b, little) : load_u32 (b, little);
          if (c > INT32_MAX)
            {
              frame->mask[done + i] = NB_PIXEL_MASKED;
              c = INT32_MAX;
            }
          frame->counts[done + i] = (int32_t) c;
        }
      done += want;
    }
  free (buf);
  return NB_OK;
}

nb_status
nb_frame_read_smv (const char *path, FILE *fp, unsigned flags, nb_frame *frame, nb_error *err)
{
  char first[513], word[48];
  smv_header h = { path, NULL };
  struct stat st_file;
  double v;
  long line;
  int found, little, elsize, is_signed;
  size_t got, header_bytes, n_pixels, data_bytes;
  uint64_t cutoff = 0;
  nb_status st;

  frame->format = NB_FRAME_SMV;
  if (fstat (fileno (fp), &st_file) != 0)
    return nb_error_set (err, NB_ERR_IO, "cannot read %s: %s", path, strerror (errno));
  got = fread (first, 1, 512, fp);
  first[got] = '\0';
  /* HEADER_BYTES is in the first line after "{" */
  {
    char *end;

    v = nb_frame_strtod (first + 15, &end);
    if (end == first + 15 || !(v >= 16 && v <= (double) st_file.st_size) || v > 1 << 20)
      {
        char raw[48];

        smv_raw (first + 15, raw, sizeof raw);
        return nb_error_set (err, NB_ERR_PARSE,
                             "%s:2: HEADER_BYTES=%s is not a header size within the file "
                             "(%lld bytes)",
                             path, raw, (long long) st_file.st_size);
      }
    header_bytes = (size_t) v;
  }
  frame->header = malloc (header_bytes + 1);
  if (frame->header == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory reading %s", path);
  rewind (fp);
  if (fread (frame->header, 1, header_bytes, fp) != header_bytes)
    return nb_error_set (err, NB_ERR_PARSE, "%s: header shorter than HEADER_BYTES=%zu", path,
                         header_bytes);
  frame->header[header_bytes] = '\0';
  /* the text ends at the closing brace; padding (spaces, NULs, form feeds) follows */
  {
    char *close = memchr (frame->header, '}', header_bytes);

    if (close == NULL)
      return nb_error_set (err, NB_ERR_PARSE,
                           "%s: the header has no closing '}' within HEADER_BYTES=%zu", path,
                           header_bytes);
    close[1] = '\0';
  }
  h.text = frame->header;

  if ((st = smv_number (&h, "DIM", 1, &v, &found, &line, err)) != NB_OK)
    return st;
  if (found && v != 2)
    return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: DIM=%g (only 2-D frames are read)", path, line,
                         v);
  if (!smv_word (&h, "BYTE_ORDER", word, sizeof word, &line))
    return nb_error_set (err, NB_ERR_PARSE, "%s: the header has no BYTE_ORDER", path);
  if (strcmp (word, "little_endian") == 0)
    little = 1;
  else if (strcmp (word, "big_endian") == 0)
    little = 0;
  else
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s:%ld: BYTE_ORDER=%s (allowed: little_endian, big_endian)", path, line,
                         word);
  if (!smv_word (&h, "TYPE", word, sizeof word, &line) || strcmp (word, "unsigned_short") == 0)
    elsize = 2, is_signed = 0;
  else if (strcmp (word, "unsigned_long") == 0 || strcmp (word, "unsigned_int") == 0)
    elsize = 4, is_signed = 0;
  else if (strcmp (word, "signed_short") == 0 || strcmp (word, "short") == 0)
    elsize = 2, is_signed = 1;
  else if (strcmp (word, "signed_long") == 0 || strcmp (word, "long") == 0 ||
           strcmp (word, "signed_int") == 0 || strcmp (word, "int") == 0)
    elsize = 4, is_signed = 1;
  else
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s:%ld: TYPE=%s is not a pixel type this reader knows (unsigned_short, "
                         "unsigned_long, signed_short, signed_long)",
                         path, line, word);
  snprintf (frame->element_type, sizeof frame->element_type, "%s %d-bit",
            is_signed ? "signed" : "unsigned", elsize * 8);
  if (smv_word (&h, "COMPRESSION", word, sizeof word, &line) && strcasecmp (word, "none") != 0)
    return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: unknown compression COMPRESSION=%s", path,
                         line, word);

  {
    double s1, s2;
    int f1, f2;
    long l2;

    if ((st = smv_number (&h, "SIZE1", 1, &s1, &f1, &line, err)) != NB_OK ||
        (st = smv_number (&h, "SIZE2", 1, &s2, &f2, &l2, err)) != NB_OK)
      return st;
    if (!f1 || !f2)
      return nb_error_set (err, NB_ERR_PARSE, "%s: the header has no %s", path,
                           !f1 ? "SIZE1" : "SIZE2");
    if (s1 != floor (s1) || s2 != floor (s2) || s1 > 65536 || s2 > 65536)
      return nb_error_set (err, NB_ERR_PARSE,
                           "%s:%ld: SIZE1=%g x SIZE2=%g is not a pixel count of 1 to 65536 each",
                           path, line, s1, s2);
    frame->fpixels = (int) s1;
    frame->spixels = (int) s2;
  }
  n_pixels = (size_t) frame->fpixels * (size_t) frame->spixels;
  data_bytes = n_pixels * (size_t) elsize;
  if ((uint64_t) st_file.st_size != header_bytes + data_bytes)
    {
      long long have = (long long) st_file.st_size - (long long) header_bytes;

      return nb_error_set (err, NB_ERR_PARSE,
                           "%s: %s: SIZE1=%d x SIZE2=%d pixels of TYPE %s need %zu bytes after "
                           "HEADER_BYTES=%zu, the file has %lld",
                           path, have < (long long) data_bytes ? "truncated" : "wrong size",
                           frame->fpixels, frame->spixels, frame->element_type, data_bytes,
                           header_bytes, have);
    }

  if ((st = smv_number (&h, "SATURATED_VALUE", 1, &v, &found, &line, err)) != NB_OK)
    return st;
  if (found)
    cutoff = v < 9e18 ? (uint64_t) ceil (v) : UINT64_MAX;
  else if (!is_signed && elsize == 2)
    cutoff = 65535; /* a 16-bit counter stops there */
  frame->count_cutoff = cutoff > INT32_MAX ? 0 : (int64_t) cutoff;

  if ((st = smv_geometry (&h, frame, err)) != NB_OK)
    return st;
  if (flags & NB_FRAME_HEADER_ONLY)
    return NB_OK;

  if ((st = nb_frame_alloc_pixels (frame, err)) != NB_OK)
    return st;
  if ((st = smv_read_pixels (path, fp, header_bytes, elsize, is_signed, little, frame, err)) !=
      NB_OK)
    return st;
  nb_frame_classify (frame);
  return NB_OK;
}
