/* hkl.c: structure factors: the HKL text reader, the padded grid, the Fdump
 * cache and tricubic interpolation (physics.md §15).
 *
 * The grid layout and the Fdump bytes follow the reference exactly, so a dump
 * written here is read by nanoBragg and the other way round.  The text reader
 * deliberately does not: it is line based and strict (see nb-hkl.h).
 */
#include "nb-hkl.h"
#include "base/nb-input.h"
#include "nb-io.h"
#include "base/nb-textfile.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Longest token quoted back in an error message. */
#define TOKEN_QUOTE_MAX 40

static int
is_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static char *
skip_blanks (char *p)
{
  while (is_blank (*p))
    p++;
  return p;
}

static int
token_length (const char *p)
{
  int n = 0;

  while (p[n] != '\0' && !is_blank (p[n]) && n < TOKEN_QUOTE_MAX)
    n++;
  return n;
}

/* The token at @p as a message may quote it (nb_text_excerpt). */
static const char *
token_excerpt (const char *p, char out[NB_EXCERPT_SIZE])
{
  return nb_text_excerpt (p, (size_t) token_length (p), out);
}

/* parse_index: one Miller index at *@p; advances *@p past it.  Decimal digits
 * with an optional sign, read by hand: strtol's locale and base handling cost
 * more than the rest of a line. */
static nb_status
parse_index (const char *path, long line, const char *what, char **p, int *out, nb_error *err)
{
  char *start = skip_blanks (*p);
  char *q = start;
  char shown[NB_EXCERPT_SIZE];
  int negative = 0;
  long v = 0;

  if (*start == '\0')
    return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: missing index %s (expected \"h k l F\")", path,
                         line, what);
  if (*q == '+' || *q == '-')
    negative = *q++ == '-';
  if (*q < '0' || *q > '9')
    return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: index %s '%s' is not an integer", path, line,
                         what, token_excerpt (start, shown));
  for (; *q >= '0' && *q <= '9'; q++)
    if (v <= NB_HKL_INDEX_MAX) /* beyond it only the digits are checked */
      v = v * 10 + (*q - '0');
  if (*q != '\0' && !is_blank (*q))
    return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: index %s '%s' is not an integer", path, line,
                         what, token_excerpt (start, shown));
  if (v > NB_HKL_INDEX_MAX)
    return nb_error_set (err, NB_ERR_INVALID, "%s:%ld: index %s '%s' is outside [%d, %d]", path,
                         line, what, token_excerpt (start, shown), -NB_HKL_INDEX_MAX,
                         NB_HKL_INDEX_MAX);
  *out = negative ? (int) -v : (int) v;
  *p = q;
  return NB_OK;
}

/* parse_decimal: the number at @p when it is a plain decimal ([sign] digits
 * [. digits] [e [sign] digits]) whose digits, without the point, make an
 * integer m <= 2^53 and whose power of ten e has |e| <= 22: then m and 10^|e|
 * are exact doubles and m * 10^e (or m / 10^-e) is one correctly rounded
 * operation, the value strtod gives (Clinger's fast path, "How to read
 * floating point numbers accurately", PLDI 1990).  Returns the end of the
 * number, or NULL for anything else (more digits, hexadecimal, inf, nan,
 * malformed), which the caller gives to strtod_l. */
static const char *
parse_decimal (const char *p, double *out)
{
  static const double pow10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
  const uint64_t exact_max = (uint64_t) 1 << 53;
  uint64_t m = 0;
  int negative = 0, digits = 0, exponent = 0;
  double v;

  if (*p == '+' || *p == '-')
    negative = *p++ == '-';
  for (; *p >= '0' && *p <= '9'; p++, digits += digits < 1000)
    {
      if (m > (exact_max - 9) / 10)
        return NULL;
      m = m * 10 + (uint64_t) (*p - '0');
    }
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++, digits += digits<1000, exponent -= exponent> - 1000)
      {
        if (m > (exact_max - 9) / 10)
          return NULL;
        m = m * 10 + (uint64_t) (*p - '0');
      }
  if (digits == 0)
    return NULL;
  if (*p == 'e' || *p == 'E')
    {
      int e = 0, e_negative = 0, e_digits = 0;

      p++;
      if (*p == '+' || *p == '-')
        e_negative = *p++ == '-';
      for (; *p >= '0' && *p <= '9'; p++, e_digits += e_digits < 1000)
        if (e < 1000)
          e = e * 10 + (*p - '0');
      if (e_digits == 0)
        return NULL;
      exponent += e_negative ? -e : e;
    }
  if (exponent < -22 || exponent > 22)
    return NULL;
  v = (double) m;
  v = exponent < 0 ? v / pow10[-exponent] : v * pow10[exponent];
  *out = negative ? -v : v;
  return p;
}

/* parse_line: fills @rec from one NUL-terminated data line.  Returns NB_OK,
 * or an error naming the line.  @c_locale keeps '.' the decimal point when a
 * GUI has called setlocale(). */
static nb_status
parse_line (const char *path,
            long line,
            char *p,
            locale_t c_locale,
            int hkl[3],
            double *F_out,
            nb_error *err)
{
  nb_status st;
  char *start, *end;
  double F;

  if ((st = parse_index (path, line, "h", &p, &hkl[0], err)) != NB_OK ||
      (st = parse_index (path, line, "k", &p, &hkl[1], err)) != NB_OK ||
      (st = parse_index (path, line, "l", &p, &hkl[2], err)) != NB_OK)
    return st;

  start = skip_blanks (p);
  if (*start == '\0')
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s:%ld: missing structure factor (expected \"h k l F\")", path, line);
  end = (char *) parse_decimal (start, &F);
  if (end == NULL || (*end != '\0' && !is_blank (*end)))
    F = strtod_l (start, &end, c_locale); /* and everything else strtod reads (0x1p3, 1e300) */
  if (end == start || (*end != '\0' && !is_blank (*end)) || !isfinite (F))
    {
      char shown[NB_EXCERPT_SIZE];

      return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: structure factor '%s' is not a number", path,
                           line, token_excerpt (start, shown));
    }
  *F_out = F;
  return NB_OK;
}

/* is_data_line: whether the line at @p (ending at '\n' or NUL) holds a
 * reflection: not blank, not a '#' or '!' comment. */
static int
is_data_line (const char *p)
{
  while (is_blank (*p))
    p++;
  return *p != '\0' && *p != '\n' && *p != '#' && *p != '!';
}

/* parse_records: every data line of @text, in file order (duplicates kept:
 * the later one must win when the grid is filled), into *@hkl (3 indices a
 * reflection) and *@F, sized once from a count of the data lines, which must
 * fit in what @max_bytes leaves beside the text.  Both live in one block:
 * free *@F_out only. */
static nb_status
parse_records (const char *path,
               char *text,
               size_t len,
               size_t max_bytes,
               int **hkl_out,
               double **F_out,
               long *count,
               nb_error *err)
{
  const size_t record_bytes = 3 * sizeof (int) + sizeof (double);
  locale_t c_locale;
  int *hkl = NULL;
  double *F = NULL;
  size_t n = 0, data_lines = 0;
  char *p = text, *text_end = text + len;
  long line = 0;
  nb_status st = NB_OK;

  *hkl_out = NULL;
  *F_out = NULL;
  *count = 0;

  /* A NUL would silently cut a line short; it also catches an Fdump.bin or
   * MTZ given where a text file belongs. */
  if (strlen (text) != len)
    {
      const char *nul = text + strlen (text);
      long nul_line = 1;

      for (const char *q = text; q < nul; q++)
        nul_line += *q == '\n';
      return nb_error_set (err, NB_ERR_PARSE, "%s:%ld: NUL byte: not a text HKL file", path,
                           nul_line);
    }

  for (const char *q = text; q < text_end; q++)
    {
      data_lines += is_data_line (q);
      if ((q = memchr (q, '\n', (size_t) (text_end - q))) == NULL)
        break;
    }
  if (data_lines == 0)
    return nb_error_set (err, NB_ERR_INVALID, "%s: no reflections", path);
  if (len > max_bytes || data_lines > (max_bytes - len) / record_bytes)
    return nb_error_set (err, NB_ERR_NOMEM,
                         "%s: %zu reflections, more than the memory budget leaves for structure "
                         "factors (%.1f MB; see -memory_budget)",
                         path, data_lines, (double) max_bytes / 1e6);
  /* one block, F first (8-byte aligned), then the indices: a single buffer
   * of 3 MB (1HPV) lands on huge pages where two of 1-2 MB would fault page
   * by page */
  F = nb_alloc_large (data_lines * record_bytes);
  if (F != NULL)
    hkl = (int *) (void *) (F + data_lines);
  c_locale = newlocale (LC_ALL_MASK, "C", (locale_t) 0);
  if (F == NULL || c_locale == (locale_t) 0)
    {
      free (F);
      if (c_locale != (locale_t) 0)
        freelocale (c_locale);
      return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory for %zu reflections", path,
                           data_lines);
    }

  while (p < text_end)
    {
      char *eol = memchr (p, '\n', (size_t) (text_end - p));
      char *first;

      if (eol == NULL)
        eol = text_end;
      *eol = '\0';
      line++;

      first = skip_blanks (p);
      if (*first != '\0' && *first != '#' && *first != '!')
        {
          st = parse_line (path, line, first, c_locale, hkl + 3 * n, F + n, err);
          if (st != NB_OK)
            break;
          n++;
        }
      p = eol + 1;
    }

  freelocale (c_locale);
  if (st != NB_OK)
    {
      free (F);
      return st;
    }
  *hkl_out = hkl;
  *F_out = F;
  *count = (long) n;
  return NB_OK;
}

/* grid_cells: (h_range+1)(k_range+1)(l_range+1), or 0 when that many doubles
 * cannot be addressed. */
static size_t
grid_cells (int h_range, int k_range, int l_range)
{
  size_t nh = (size_t) h_range + 1, nk = (size_t) k_range + 1, nl = (size_t) l_range + 1;

  if (nk > SIZE_MAX / sizeof (double) / nh || nl > SIZE_MAX / sizeof (double) / (nh * nk))
    return 0;
  return nh * nk * nl;
}

static size_t
grid_index (const nb_hkl_grid *g, int h, int k, int l)
{
  return ((size_t) (h - g->h_min) * (size_t) (g->k_range + 1) + (size_t) (k - g->k_min)) *
             (size_t) (g->l_range + 1) +
         (size_t) (l - g->l_min);
}

/* grid_fits: whether a grid of @cells cells at @cell_bytes each, plus
 * @held bytes, stays within @max_bytes; otherwise an NB_ERR_NOMEM error
 * naming @path, the index ranges and the sizes.  Checked before the grid is
 * allocated. */
static int
grid_fits (const char *path,
           const nb_hkl_grid *g,
           size_t cells,
           size_t cell_bytes,
           size_t held,
           size_t max_bytes,
           nb_error *err)
{
  if (cells != 0 && cells <= (SIZE_MAX - held) / cell_bytes &&
      cells * cell_bytes + held <= max_bytes)
    return 1;
  nb_error_set (err, NB_ERR_NOMEM,
                "%s: Miller indices h %d..%d, k %d..%d, l %d..%d need a %d x %d x %d "
                "structure-factor grid (%.1f MB), more than the %.1f MB the memory budget leaves "
                "for it (see -memory_budget)",
                path, g->h_min, g->h_max, g->k_min, g->k_max, g->l_min, g->l_max, g->h_range + 1,
                g->k_range + 1, g->l_range + 1,
                ((double) g->h_range + 1) * ((double) g->k_range + 1) * ((double) g->l_range + 1) *
                    (double) cell_bytes / 1e6,
                (double) (max_bytes > held ? max_bytes - held : 0) / 1e6);
  return 0;
}

nb_status
nb_hkl_read (const char *path, double default_F, nb_hkl_grid *out, nb_error *err)
{
  return nb_hkl_read_limited (path, default_F, SIZE_MAX, sizeof (double), out, err);
}

nb_status
nb_hkl_read_limited (const char *path,
                     double default_F,
                     size_t max_bytes,
                     size_t cell_bytes,
                     nb_hkl_grid *out,
                     nb_error *err)
{
  char *text;
  size_t len;
  int *hkl;
  double *F;
  long n;
  nb_status st;

  memset (out, 0, sizeof *out);
  st = nb_read_text (path, max_bytes == SIZE_MAX ? SIZE_MAX - 2 : max_bytes, 0,
                     "the memory budget leaves for structure factors (see -memory_budget)", &text,
                     &len, err);
  if (st != NB_OK)
    return st;
  st = parse_records (path, text, len, max_bytes, &hkl, &F, &n, err);
  free (text);
  if (st != NB_OK)
    return st;
  st = nb_hkl_grid_build (path, hkl, F, n, default_F, max_bytes, cell_bytes,
                          (size_t) n * (3 * sizeof (int) + sizeof (double)), out, err);
  free (F); /* and hkl, in the same block */
  return st;
}

nb_status
nb_hkl_grid_build (const char *source,
                   const int *hkl,
                   const double *F,
                   long n,
                   double default_F,
                   size_t max_bytes,
                   size_t cell_bytes,
                   size_t held,
                   nb_hkl_grid *out,
                   nb_error *err)
{
  size_t cells;
  nb_hkl_grid g;

  memset (out, 0, sizeof *out);
  if (cell_bytes < sizeof (double))
    cell_bytes = sizeof (double);
  if (n <= 0)
    return nb_error_set (err, NB_ERR_INVALID, "%s: no reflections", source);
  memset (&g, 0, sizeof g);
  g.h_min = g.h_max = hkl[0];
  g.k_min = g.k_max = hkl[1];
  g.l_min = g.l_max = hkl[2];
  for (long i = 0; i < n; i++)
    {
      const int *r = hkl + 3 * i;

      for (int a = 0; a < 3; a++)
        if (r[a] > NB_HKL_INDEX_MAX || r[a] < -NB_HKL_INDEX_MAX)
          return nb_error_set (err, NB_ERR_INVALID, "%s: Miller index %d %d %d beyond +-%d", source,
                               r[0], r[1], r[2], NB_HKL_INDEX_MAX);
      g.h_min = r[0] < g.h_min ? r[0] : g.h_min;
      g.h_max = r[0] > g.h_max ? r[0] : g.h_max;
      g.k_min = r[1] < g.k_min ? r[1] : g.k_min;
      g.k_max = r[1] > g.k_max ? r[1] : g.k_max;
      g.l_min = r[2] < g.l_min ? r[2] : g.l_min;
      g.l_max = r[2] > g.l_max ? r[2] : g.l_max;
    }
  /* Counts, not spans: the reference's h_range is one more than max - min. */
  g.h_range = g.h_max - g.h_min + 1;
  g.k_range = g.k_max - g.k_min + 1;
  g.l_range = g.l_max - g.l_min + 1;
  g.hkls = n;

  cells = grid_cells (g.h_range, g.k_range, g.l_range);
  if (!grid_fits (source, &g, cells, cell_bytes, held, max_bytes, err))
    return NB_ERR_NOMEM;
  g.F = nb_alloc_large (cells * sizeof (double));
  if (g.F == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "%s: cannot allocate a %d x %d x %d grid", source,
                         g.h_range + 1, g.k_range + 1, g.l_range + 1);
  memset (g.F, 0, cells * sizeof (double));

  /* The padding planes stay 0, as in the reference: the tricubic range test
   * never reaches them, but a Fdump of this grid must match byte for byte. */
  if (default_F != 0.0)
    for (int h = 0; h < g.h_range; h++)
      for (int k = 0; k < g.k_range; k++)
        {
          double *row =
              g.F + ((size_t) h * (size_t) (g.k_range + 1) + (size_t) k) * (size_t) (g.l_range + 1);

          for (int l = 0; l < g.l_range; l++)
            row[l] = default_F;
        }

  for (long i = 0; i < n; i++)
    g.F[grid_index (&g, hkl[3 * i], hkl[3 * i + 1], hkl[3 * i + 2])] = F[i];

  *out = g;
  return NB_OK;
}

void
nb_hkl_grid_clear (nb_hkl_grid *g)
{
  if (g == NULL)
    return;
  free (g->F);
  memset (g, 0, sizeof *g);
}

nb_status
nb_hkl_write_dump (const char *path, const nb_hkl_grid *g, nb_error *err)
{
  char header[128];
  int header_len;
  size_t cells;
  const void *chunks[2];
  size_t sizes[2];

  if (g == NULL || g->F == NULL || g->h_range < 0 || g->k_range < 0 || g->l_range < 0)
    return nb_error_set (err, NB_ERR_INVALID, "%s: no structure factors to dump", path);
  cells = grid_cells (g->h_range, g->k_range, g->l_range);
  if (cells == 0)
    return nb_error_set (err, NB_ERR_INVALID, "%s: grid too large to dump", path);

  /* The form feed after the newline is part of the reference's format. */
  header_len = snprintf (header, sizeof header, "%d %d %d %d %d %d\n\f", g->h_min, g->h_max,
                         g->k_min, g->k_max, g->l_min, g->l_max);
  chunks[0] = header;
  sizes[0] = (size_t) header_len;
  chunks[1] = g->F;
  sizes[1] = cells * sizeof (double);
  return nb_write_file_atomic (path, chunks, sizes, 2, err);
}

/* parse_dump_header: the six integers of "%d %d %d %d %d %d\n\f" at the start
 * of @buf (@n bytes, NUL-terminated); *@data_offset receives the offset of the
 * first double. */
static int
parse_dump_header (char *buf, size_t n, int v[6], size_t *data_offset)
{
  char *p = buf;

  for (int i = 0; i < 6; i++)
    {
      char *end;
      long x;

      /* Only spaces between numbers: strtol would otherwise skip the "\n\f"
       * and run into the binary data. */
      while (*p == ' ')
        p++;
      if (!(*p == '-' || *p == '+' || (*p >= '0' && *p <= '9')))
        return 0;
      errno = 0;
      x = strtol (p, &end, 10);
      if (end == p || errno == ERANGE || x > NB_HKL_INDEX_MAX || x < -NB_HKL_INDEX_MAX)
        return 0;
      v[i] = (int) x;
      p = end;
    }
  /* Unlike the reference's fscanf("...\n\f"), exactly these two bytes are
   * consumed, so data that starts with a whitespace byte stays aligned. */
  if ((size_t) (p - buf) + 2 > n || p[0] != '\n' || p[1] != '\f')
    return 0;
  *data_offset = (size_t) (p - buf) + 2;
  return 1;
}

nb_status
nb_hkl_read_dump (const char *path, nb_hkl_grid *out, nb_error *err)
{
  return nb_hkl_read_dump_limited (path, SIZE_MAX, sizeof (double), out, err);
}

nb_status
nb_hkl_read_dump_limited (
    const char *path, size_t max_bytes, size_t cell_bytes, nb_hkl_grid *out, nb_error *err)
{
  FILE *f;
  char head[128];
  size_t head_n, offset, cells, got;
  int v[6];
  nb_hkl_grid g;
  struct stat st;

  memset (out, 0, sizeof *out);
  if (cell_bytes < sizeof (double))
    cell_bytes = sizeof (double);

  if (nb_input_fopen (path, &f, &st, err) != NB_OK)
    return NB_ERR_IO;

  head_n = fread (head, 1, sizeof head - 1, f);
  if (ferror (f))
    {
      int e = errno;

      fclose (f);
      return nb_error_set (err, NB_ERR_IO, "%s: read error: %s", path, strerror (e));
    }
  head[head_n] = '\0';

  memset (&g, 0, sizeof g);
  if (!parse_dump_header (head, head_n, v, &offset) || v[0] > v[1] || v[2] > v[3] || v[4] > v[5])
    {
      fclose (f);
      return nb_error_set (err, NB_ERR_PARSE,
                           "%s: bad Fdump header (expected \"h_min h_max k_min k_max l_min "
                           "l_max\\n\\f\" with min <= max and |index| <= %d)",
                           path, NB_HKL_INDEX_MAX);
    }
  g.h_min = v[0];
  g.h_max = v[1];
  g.k_min = v[2];
  g.k_max = v[3];
  g.l_min = v[4];
  g.l_max = v[5];
  g.h_range = g.h_max - g.h_min + 1;
  g.k_range = g.k_max - g.k_min + 1;
  g.l_range = g.l_max - g.l_min + 1;
  /* The reference's count from a dump: cells, not reflections. */
  g.hkls = (long) g.h_range * g.k_range * g.l_range;

  cells = grid_cells (g.h_range, g.k_range, g.l_range);
  /* A header alone must not make us allocate: a regular file has to hold the
   * grid it announces. */
  if (cells != 0 && ((uintmax_t) st.st_size < offset ||
                     ((uintmax_t) st.st_size - offset) / sizeof (double) < cells))
    {
      fclose (f);
      return nb_error_set (err, NB_ERR_PARSE,
                           "%s: short Fdump data: %ju bytes after the header, a %d x %d x %d grid "
                           "needs %zu doubles",
                           path,
                           (uintmax_t) st.st_size > offset ? (uintmax_t) st.st_size - offset : 0,
                           g.h_range + 1, g.k_range + 1, g.l_range + 1, cells);
    }
  if (!grid_fits (path, &g, cells, cell_bytes, 0, max_bytes, err))
    {
      fclose (f);
      return NB_ERR_NOMEM;
    }
  g.F = malloc (cells * sizeof (double));
  if (g.F == NULL)
    {
      fclose (f);
      return nb_error_set (err, NB_ERR_NOMEM, "%s: cannot allocate a %d x %d x %d grid", path,
                           g.h_range + 1, g.k_range + 1, g.l_range + 1);
    }

  if (fseek (f, (long) offset, SEEK_SET) != 0)
    {
      int e = errno;

      fclose (f);
      free (g.F);
      return nb_error_set (err, NB_ERR_IO, "%s: seek error: %s", path, strerror (e));
    }
  got = fread (g.F, sizeof (double), cells, f);
  if (got != cells)
    {
      int io_error = ferror (f);
      int e = errno;

      fclose (f);
      free (g.F);
      if (io_error)
        return nb_error_set (err, NB_ERR_IO, "%s: read error: %s", path, strerror (e));
      return nb_error_set (err, NB_ERR_PARSE,
                           "%s: short Fdump data: %zu of %zu doubles for a %d x %d x %d grid", path,
                           got, cells, g.h_range + 1, g.k_range + 1, g.l_range + 1);
    }
  fclose (f);

  *out = g;
  return NB_OK;
}

double
nb_polint4 (const double xa[4], const double ya[4], double x)
{
  /* Written as the reference writes polint(): each product left to right,
   * the sum left to right.  Reassociating changes the last bits. */
  double t0 = (x - xa[1]) * (x - xa[2]) * (x - xa[3]) * ya[0] /
              ((xa[0] - xa[1]) * (xa[0] - xa[2]) * (xa[0] - xa[3]));
  double t1 = (x - xa[0]) * (x - xa[2]) * (x - xa[3]) * ya[1] /
              ((xa[1] - xa[0]) * (xa[1] - xa[2]) * (xa[1] - xa[3]));
  double t2 = (x - xa[0]) * (x - xa[1]) * (x - xa[3]) * ya[2] /
              ((xa[2] - xa[0]) * (xa[2] - xa[1]) * (xa[2] - xa[3]));
  double t3 = (x - xa[0]) * (x - xa[1]) * (x - xa[2]) * ya[3] /
              ((xa[3] - xa[0]) * (xa[3] - xa[1]) * (xa[3] - xa[2]));

  return t0 + t1 + t2 + t3;
}

double
nb_hkl_tricubic (const nb_hkl_grid *g, double h, double k, double l)
{
  double hx[4], kx[4], lx[4], along_k[4], along_h[4];
  int h0, k0, l0;

  /* NaN passes nb_hkl_tricubic_in_range() (every comparison is false), and
   * converting it to int would index anywhere. */
  if (isnan (h) || isnan (k) || isnan (l))
    return NAN;

  h0 = (int) floor (h);
  k0 = (int) floor (k);
  l0 = (int) floor (l);
  for (int j = 0; j < 4; j++)
    {
      hx[j] = (double) (h0 - 1 + j);
      kx[j] = (double) (k0 - 1 + j);
      lx[j] = (double) (l0 - 1 + j);
    }

  /* polin3's order: along l for every (h, k), then along k, then along h. */
  for (int i = 0; i < 4; i++)
    {
      for (int j = 0; j < 4; j++)
        {
          const double *row = g->F + grid_index (g, h0 - 1 + i, k0 - 1 + j, l0 - 1);

          along_k[j] = nb_polint4 (lx, row, l);
        }
      along_h[i] = nb_polint4 (kx, along_k, k);
    }
  return nb_polint4 (hx, along_h, h);
}
