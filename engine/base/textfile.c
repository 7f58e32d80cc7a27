/* textfile.c: -sourcefile, -stol/-4stol/-Q tables and -mat matrices
 * (physics.md §7.2, §11.2, §18).
 *
 * The reference's read_text_file() reads a comment as a row of zeros and a
 * last line without a newline as zeros (quirk Q-19); here both are handled
 * as the header documents (comments as the reference reads them when asked,
 * for -sourcefile without -physical), and anything else unexpected is an
 * error that names the line, since a silently zeroed source or matrix would
 * still simulate an image.
 */
#include "nb-textfile.h"
#include "nanobragg.h"
#include "nb-input.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Longest field quoted back in an error message. */
#define FIELD_QUOTE_MAX 40

/* The reference's field delimiters, plus the rest of the C whitespace so that
 * CRLF files read like LF files. */
static const char table_delimiters[] = " \t,;:!\r\v\f";

/* Limits on what these small files may make us allocate: a source list or
 * stol table is a few thousand lines; nanoBragg itself would take days on
 * more sources than this. */
#define TABLE_TEXT_MAX ((size_t) 256 << 20)
#define TABLE_ROWS_MAX 10000000
/* A matrix is read from the start of its file: only its first nine numbers
 * count, so the rest is never read. */
#define MATRIX_TEXT_MAX ((size_t) 1 << 20)

nb_status
nb_read_text (const char *path,
              size_t max_bytes,
              int prefix_ok,
              const char *limit,
              char **text,
              size_t *len,
              nb_error *err)
{
  FILE *f;
  struct stat st;
  size_t cap, n = 0;
  char *buf;

  *text = NULL;
  *len = 0;
  if (max_bytes == 0)
    return nb_error_set (err, NB_ERR_NOMEM, "%s: no room for its text (0 MB %s)", path, limit);
  if (nb_input_fopen (path, &f, &st, err) != NB_OK)
    return NB_ERR_IO;

  /* The size is only a hint: /proc files report 0.  Two bytes more than the
   * file: the NUL, and room for the read that finds the end of the file
   * without growing the buffer. */
  cap = 4096;
  if (st.st_size > 0)
    {
      if ((uintmax_t) st.st_size > max_bytes && !prefix_ok)
        {
          fclose (f);
          return nb_error_set (err, NB_ERR_NOMEM, "%s: %.1f MB of text, more than the %.1f MB %s",
                               path, (double) st.st_size / 1e6, (double) max_bytes / 1e6, limit);
        }
      cap = (uintmax_t) st.st_size < max_bytes ? (size_t) st.st_size + 2 : max_bytes + 1;
    }
  if (cap > max_bytes + 1) /* a /proc file's first chunk, under a small budget */
    cap = max_bytes + 1;

  buf = nb_alloc_large (cap);
  if (buf == NULL)
    {
      fclose (f);
      return nb_error_set (err, NB_ERR_NOMEM, "%s: cannot allocate %zu bytes", path, cap);
    }

  for (;;)
    {
      size_t got;

      if (n + 1 >= cap)
        {
          char *bigger;
          size_t new_cap = cap > max_bytes / 2 ? max_bytes + 1 : cap * 2;

          if (new_cap <= cap)
            {
              if (prefix_ok)
                break;
              free (buf);
              fclose (f);
              return nb_error_set (err, NB_ERR_NOMEM, "%s: more than the %.1f MB of text %s", path,
                                   (double) max_bytes / 1e6, limit);
            }
          if ((bigger = realloc (buf, new_cap)) == NULL)
            {
              free (buf);
              fclose (f);
              return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory reading it", path);
            }
          buf = bigger;
          cap = new_cap;
        }
      got = fread (buf + n, 1, cap - 1 - n, f);
      n += got;
      if (got == 0 || memchr (buf + n - got, '\0', got) != NULL)
        break;
    }

  if (ferror (f))
    {
      int e = errno;

      free (buf);
      fclose (f);
      return nb_error_set (err, NB_ERR_IO, "%s: read error: %s", path, strerror (e));
    }
  fclose (f);

  buf[n] = '\0';
  *text = buf;
  *len = n;
  return NB_OK;
}

/* line_of: the 1-based line number of @at in @text. */
static long
line_of (const char *text, const char *at)
{
  long line = 1;

  for (const char *q = text; q < at; q++)
    line += *q == '\n';
  return line;
}

const char *
nb_text_excerpt (const char *p, size_t n, char out[NB_EXCERPT_SIZE])
{
  static const char hex[] = "0123456789abcdef";
  size_t k = 0;

  for (size_t i = 0; i < n && i < NB_EXCERPT_BYTES; i++)
    {
      unsigned char c = (unsigned char) p[i];

      if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
        out[k++] = (char) c;
      else if (c == '\\' || c == '\'')
        {
          out[k++] = '\\';
          out[k++] = (char) c;
        }
      else
        {
          out[k++] = '\\';
          out[k++] = 'x';
          out[k++] = hex[c >> 4];
          out[k++] = hex[c & 15];
        }
    }
  if (n > NB_EXCERPT_BYTES)
    {
      memcpy (out + k, "...", 3);
      k += 3;
    }
  out[k] = '\0';
  return out;
}

static int
field_length (const char *p, const char *delimiters)
{
  int n = 0;

  while (p[n] != '\0' && strchr (delimiters, p[n]) == NULL && n < FIELD_QUOTE_MAX)
    n++;
  return n;
}

/* The C locale object for strtod_l(): a GUI will have called setlocale(),
 * and a decimal comma must not turn "0.5" into 0. */
static locale_t
c_locale_new (void)
{
  return newlocale (LC_ALL_MASK, "C", (locale_t) 0);
}

/* table_append_row: grows @t by one row of NANs and returns it. */
static double *
table_append_row (nb_table *t, size_t *cap_rows)
{
  double *row;

  if ((size_t) t->rows == *cap_rows)
    {
      size_t new_cap = *cap_rows ? *cap_rows * 2 : 64;
      double *bigger;

      if (new_cap > TABLE_ROWS_MAX)
        new_cap = TABLE_ROWS_MAX;
      if (new_cap <= *cap_rows || new_cap > SIZE_MAX / sizeof (double) / (size_t) t->cols)
        return NULL;
      bigger = realloc (t->v, new_cap * (size_t) t->cols * sizeof (double));
      if (bigger == NULL)
        return NULL;
      t->v = bigger;
      {
        long *lines = realloc (t->lines, new_cap * sizeof (long));

        if (lines == NULL)
          return NULL;
        t->lines = lines;
      }
      {
        unsigned char *comment = realloc (t->comment, new_cap);

        if (comment == NULL)
          return NULL;
        t->comment = comment;
      }
      *cap_rows = new_cap;
    }
  row = t->v + (size_t) t->rows * (size_t) t->cols;
  for (int c = 0; c < t->cols; c++)
    row[c] = NAN;
  t->rows++;
  return row;
}

/* table_parse_line: the fields of one NUL-terminated data line into @row. */
static nb_status
table_parse_line (
    const char *path, long line, char *p, int cols, locale_t c_locale, double *row, nb_error *err)
{
  int col = 0;

  while (*p != '\0')
    {
      char *end;
      double v;

      if (col == cols)
        return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: more than %d numbers on the line", path,
                             line, cols);
      v = strtod_l (p, &end, c_locale);
      if (end == p || (*end != '\0' && strchr (table_delimiters, *end) == NULL) || !isfinite (v))
        {
          char shown[NB_EXCERPT_SIZE];

          return nb_error_set (
              err, NB_ERR_PARSE, "%s:%ld: field %d '%s' is not a number", path, line, col + 1,
              nb_text_excerpt (p, (size_t) field_length (p, table_delimiters), shown));
        }
      row[col++] = v;
      p = end + strspn (end, table_delimiters);
    }
  return NB_OK;
}

/* reference_row: line @p (NUL-terminated, without its newline; @newline: it
 * had one) as nanoBragg's read_text_file() reads it: from each field start,
 * atof(); then past the characters a number is made of; done at the newline;
 * else past the rest of the field and the delimiters; done at the newline or
 * once @cols values are read.  Running past the end of a line without a
 * newline, or past the newline when a field does not end in number
 * characters, keeps the loop going on an empty string: atof("") = 0 for every
 * column left.  Only used for '#' lines (and only those can reach a 0 column
 * this way with a newline), so no error is possible but memory. */
static nb_status
reference_row (const char *p, int newline, int cols, locale_t c_locale, double *row)
{
  static const char delimiters[] = " \t,;:!";
  static const char number_chars[] = "0123456789-+.EGeg";
  size_t len = strlen (p);
  char *text = malloc (len + 2);
  const char *tok;
  int col = 0;

  if (text == NULL)
    return NB_ERR_NOMEM;
  memcpy (text, p, len);
  memcpy (text + len, newline ? "\n" : "", newline ? 2 : 1);

  tok = text + strspn (text, delimiters);
  for (;;)
    {
      row[col] = strtod_l (tok, NULL, c_locale);
      tok += strspn (tok, number_chars);
      if (strcmp (tok, "\n") == 0)
        break;
      tok += strcspn (tok, delimiters);
      tok += strspn (tok, delimiters);
      if (strcmp (tok, "\n") == 0 || ++col >= cols)
        break;
    }
  free (text);
  return NB_OK;
}

nb_status
nb_table_read (const char *path, int cols, nb_table *out, nb_error *err)
{
  return nb_table_read_with (path, cols, 0, out, err);
}

nb_status
nb_table_read_with (const char *path, int cols, unsigned flags, nb_table *out, nb_error *err)
{
  char *text, *p, *text_end;
  size_t len, cap_rows = 0;
  long line = 0;
  locale_t c_locale;
  nb_status st = NB_OK;
  nb_table t;

  memset (out, 0, sizeof *out);
  if (cols < 1)
    return nb_error_set (err, NB_ERR_INVALID, "%s: a table needs at least one column (got %d)",
                         path, cols);

  st = nb_read_text (path, TABLE_TEXT_MAX, 0, "allowed for a table", &text, &len, err);
  if (st != NB_OK)
    return st;
  if (strlen (text) != len)
    {
      long at = line_of (text, text + strlen (text));

      free (text);
      return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: NUL byte: not a text file", path, at);
    }

  c_locale = c_locale_new ();
  if (c_locale == (locale_t) 0)
    {
      free (text);
      return nb_error_set (err, NB_ERR_NOMEM, "%s: cannot create the C locale", path);
    }

  memset (&t, 0, sizeof t);
  t.cols = cols;
  p = text;
  text_end = text + len;
  while (p < text_end)
    {
      char *eol = memchr (p, '\n', (size_t) (text_end - p));
      char *first;
      double *row;
      int is_comment;

      if (eol == NULL)
        eol = text_end;
      *eol = '\0';
      line++;

      first = p + strspn (p, table_delimiters);
      p = eol + 1;
      is_comment = *first == '#';
      if (*first == '\0' || (is_comment && !(flags & NB_TABLE_REFERENCE_COMMENTS)))
        continue;

      row = table_append_row (&t, &cap_rows);
      if (row != NULL)
        {
          t.lines[t.rows - 1] = line;
          t.comment[t.rows - 1] = (unsigned char) is_comment;
        }
      if (row == NULL)
        {
          st = t.rows >= TABLE_ROWS_MAX
                   ? nb_error_set (err, NB_ERR_NOMEM, "%s:%ld: more than %d rows", path, line,
                                   TABLE_ROWS_MAX)
                   : nb_error_set (err, NB_ERR_NOMEM, "%s:%ld: out of memory", path, line);
          break;
        }
      if (is_comment)
        {
          if (reference_row (first, eol < text_end, cols, c_locale, row) != NB_OK)
            st = nb_error_set (err, NB_ERR_NOMEM, "%s:%ld: out of memory", path, line);
        }
      else
        st = table_parse_line (path, line, first, cols, c_locale, row, err);
      if (st != NB_OK)
        break;
    }

  freelocale (c_locale);
  free (text);
  if (st == NB_OK && t.rows == 0)
    st = nb_error_set (err, NB_ERR_PARSE, "%s: no data", path);
  if (st != NB_OK)
    {
      free (t.v);
      free (t.lines);
      free (t.comment);
      return st;
    }
  *out = t;
  return NB_OK;
}

void
nb_table_clear (nb_table *t)
{
  if (t == NULL)
    return;
  free (t->v);
  free (t->lines);
  free (t->comment);
  memset (t, 0, sizeof *t);
}

nb_status
nb_matrix_read (const char *path, double m[9], nb_error *err)
{
  static const char space[] = " \t\n\r\v\f";
  char *text, *p;
  size_t len;
  locale_t c_locale;
  nb_status st;
  double v9[9];
  int n = 0;

  st = nb_read_text (path, MATRIX_TEXT_MAX, 1, "read of a matrix file", &text, &len, err);
  if (st != NB_OK)
    return st;

  c_locale = c_locale_new ();
  if (c_locale == (locale_t) 0)
    {
      free (text);
      return nb_error_set (err, NB_ERR_NOMEM, "%s: cannot create the C locale", path);
    }

  /* Only the first nine numbers count; a NUL (binary data) ends the text
   * like the end of the file does. */
  p = text + strspn (text, space);
  while (n < 9 && *p != '\0')
    {
      char *end;
      double v = strtod_l (p, &end, c_locale);

      if (end == p || (*end != '\0' && strchr (space, *end) == NULL) || !isfinite (v))
        {
          char shown[NB_EXCERPT_SIZE];

          st = nb_error_set (err, NB_ERR_PARSE,
                             "%s:%ld: number %d of the matrix '%s' is not a number", path,
                             line_of (text, p), n + 1,
                             nb_text_excerpt (p, (size_t) field_length (p, space), shown));
          break;
        }
      v9[n++] = v;
      p = end + strspn (end, space);
    }
  if (st == NB_OK && n < 9)
    st = nb_error_set (err, NB_ERR_PARSE,
                       "%s:%ld: the file ends after %d numbers; a matrix needs "
                       "nine",
                       path, line_of (text, text + strlen (text)), n);
  if (st == NB_OK)
    {
      /* columns a*, b*, c*: a singular matrix has no real cell, and with -cell
       * the plan would rescale its zero vectors into a silent blank image */
      double det = v9[0] * (v9[4] * v9[8] - v9[5] * v9[7]) -
                   v9[1] * (v9[3] * v9[8] - v9[5] * v9[6]) +
                   v9[2] * (v9[3] * v9[7] - v9[4] * v9[6]);
      double norm = 1.0;

      for (int c = 0; c < 3; c++)
        norm *= sqrt (v9[c] * v9[c] + v9[3 + c] * v9[3 + c] + v9[6 + c] * v9[6 + c]);
      if (!(fabs (det) > 1e-9 * norm) || !isfinite (det))
        st = nb_error_set (err, NB_ERR_PARSE,
                           "%s: the matrix is singular (determinant %g): its columns a*, b*, c* "
                           "span no cell",
                           path, det);
    }
  /* @m is left alone on failure: callers may keep the orientation from -cell. */
  if (st == NB_OK)
    memcpy (m, v9, sizeof v9);

  freelocale (c_locale);
  free (text);
  return st;
}
