/* mtz.c: structure factors from MTZ files (CCP4's reflection format), read
 * here and expanded to P1.
 *
 * The layout read (CCP4's MTZ format description, as libccp4's cmtzlib.c
 * writes it):
 *   bytes 0-3     "MTZ "
 *   bytes 4-7     the header pointer: the 1-based 4-byte word at which the
 *                 header records start, an integer in the file's byte order;
 *                 -1 when it is the 64-bit integer at bytes 12-19
 *   bytes 8-9     the machine stamp: the high nibble of byte 8 gives the real
 *                 format (1 big-endian IEEE, 4 little-endian IEEE, 2 VAX,
 *                 5 Convex), that of byte 9 the integer format (1 big-endian,
 *                 4 little-endian); 0 is this machine's, as libccp4 takes it
 *   bytes 80-     NCOL's nref reflection records of ncol reals, in the order
 *                 of the COLUMN records; the header pointer follows them
 *   then          80-character ASCII records (VERS, TITLE, NCOL, CELL, SORT,
 *                 SYMINF, SYMM, RESO, VALM, COLUMN, COLSRC, COLGRP, NDIF,
 *                 PROJECT, CRYSTAL, DATASET, DCELL, DWAVEL, BATCH ...) up to
 *                 END; then history, batch headers and MTZENDOFHEADERS, which
 *                 nothing here needs and so nothing here reads.
 *
 * Why not libccp4's MtzGet(), which read these files until issue 18: it hands
 * every header record to ccp4_parser(), CCP4's keyword-input parser, which
 * treats a record as a line typed by a user: a record whose last word is "-",
 * "&" or "\" continues on the next line of standard input, and an empty one
 * reads standard input too, so a legal TITLE such as "refined -" blocks any
 * program reading the file (the viewer's worker for good); no check can make
 * that safe without refusing valid files.  Beyond it, MtzGet copies words into
 * fixed buffers unchecked (labels into 31 bytes, names into 65 on the stack),
 * reads words a short VALM, COLSRC or COLGRP record lacks (NULL pointers),
 * indexes with counts left uninitialised when NCOL or SORT is missing, writes
 * SYMM records past its 192 operators, reads batch headers of the length they
 * announce into a fixed stack buffer, loops to END and to MTZENDOFHEADERS
 * without looking for the end of the file (the endless loop seen in issue 18),
 * and opens the file an environment variable of the same name points to.
 * Checking all of that first would mean re-deriving its five passes over the
 * header (with its crystal and dataset bookkeeping) and tying the check to
 * one libccp4 version, while what nanobragg needs is four columns, the
 * symmetry operators and the missing-number flag.
 *
 * So this reader is bounded by construction: each header record up to END is
 * read once, 80 bytes at a time, and must be printable ASCII; each count is
 * checked against the others and the header pointer against the file's size
 * before anything is allocated; the reflections are read in fixed chunks.  A
 * damaged file is refused with a one-line message naming it, the record and
 * the reason.  The fuzz target tests/fuzz/fuzz-mtz.c covers this file.
 */
#include "nb-mtz.h"
#include "nanobragg.h"
#include "base/nb-input.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MTZ_RECORD 80
/* words before the reflections: the magic, the pointer, the stamp, reserved */
#define MTZ_PREAMBLE_WORDS 20
/* libccp4's limits: MCOLUMNS, and the size of its symmetry array */
#define MTZ_MAX_COLUMNS 10000
#define MTZ_MAX_SYMOPS  192
/* the order of the largest finite group of integer 3 x 3 matrices (m-3m) */
#define MTZ_MAX_ROTATIONS 48
/* longest column label (libccp4's MTZCOL label[31]) */
#define MTZ_LABEL_MAX 30
/* bytes of reflection records read at a time */
#define MTZ_CHUNK_BYTES ((size_t) 1 << 16)

int
nb_file_is_mtz (const char *path)
{
  char magic[4];
  FILE *f;
  int is = 0;

  /* a FIFO or a terminal is no MTZ file: the readers refuse it by name */
  if (nb_input_fopen (path, &f, NULL, NULL) != NB_OK)
    return 0;
  is = fread (magic, 1, 4, f) == 4 && memcmp (magic, "MTZ ", 4) == 0;
  fclose (f);
  return is;
}

int
nb_mtz_supported (void)
{
  return 1;
}

typedef int mtz_rotation[3][3]; /* [r][c]: the coefficient of axis c in component r */

/* What the header says, as far as nanobragg needs it. */
typedef struct
{
  const char *path;
  const char *want; /* the F column's label, or NULL for the first of type F */
  int64_t pointer;  /* the header pointer, in words */
  int ncol;         /* NCOL: columns (-1 until read) and reflections */
  long nref;
  int columns;                    /* COLUMN records so far */
  int col_h, col_k, col_l, col_f; /* the positions of the columns read, -1 while absent */
  char label_f[MTZ_LABEL_MAX + 1];
  int nsym, nsymp; /* SYMINF (-1 until read) */
  int nops;        /* SYMM records so far */
  int nrot;        /* the different rotations among them, in order of appearance */
  mtz_rotation rot[MTZ_MAX_ROTATIONS];
  int have_vers, have_valm, valm_is_nan;
  float valm;
  double cell[6];       /* CELL (0 until read) */
  char space_group[16]; /* SYMINF's name ('P 61'), or "" */
} mtz_header;

/* An error in @err about header record @index (1-based) @rec of @h's file,
 * quoting the record. */
#define record_error(err, h, index, rec, fmt, ...)                                                 \
  nb_error_set ((err), NB_ERR_PARSE, "%s: header record %ld \"%.*s\": " fmt, (h)->path, (index),   \
                record_length (rec), (rec), __VA_ARGS__)

/* The length of record @r without its trailing blanks. */
static int
record_length (const char *r)
{
  int n = MTZ_RECORD;

  while (n > 0 && r[n - 1] == ' ')
    n--;
  return n;
}

/* next_word: the next blank-separated word of the text [*@p, @end): its start
 * in *@word, its length returned (0 at the end).  Advances *@p past it. */
static int
next_word (const char **p, const char *end, const char **word)
{
  const char *q = *p;
  int n = 0;

  while (q < end && *q == ' ')
    q++;
  *word = q;
  while (q + n < end && q[n] != ' ')
    n++;
  *p = q + n;
  return n;
}

/* word_to_long: the word [w, w + n) as a decimal integer within [@lo, @hi],
 * or 0 when it is not one. */
static int
word_to_long (const char *w, int n, long lo, long hi, long *out)
{
  char buf[24], *end;
  long v;

  if (n <= 0 || n >= (int) sizeof buf)
    return 0;
  memcpy (buf, w, (size_t) n);
  buf[n] = '\0';
  errno = 0;
  v = strtol (buf, &end, 10);
  if (*end != '\0' || errno != 0 || v < lo || v > hi)
    return 0;
  *out = v;
  return 1;
}

/* word_to_double: the word [w, w + n) as a number (inf and nan included: a
 * writer may print the range of an empty column so), or 0. */
static int
word_to_double (const char *w, int n, double *out)
{
  char buf[MTZ_RECORD + 1], *end;

  if (n <= 0 || n > MTZ_RECORD)
    return 0;
  memcpy (buf, w, (size_t) n);
  buf[n] = '\0';
  *out = strtod (buf, &end);
  return *end == '\0';
}

/* skip_number: an unsigned decimal of up to 9 digits ("2", "0.5") at *@p,
 * which it advances; 0 when there is none. */
static int
skip_number (const char **p, const char *end)
{
  const char *q = *p;
  int digits = 0;

  for (; q < end && *q >= '0' && *q <= '9' && digits < 9; q++)
    digits++;
  if (q < end && *q == '.')
    for (q++; q < end && *q >= '0' && *q <= '9' && digits < 9; q++)
      digits++;
  if (digits == 0 || (q < end && *q >= '0' && *q <= '9'))
    return 0;
  *p = q;
  return 1;
}

static int
determinant (const mtz_rotation m)
{
  return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
         m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
         m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

/* parse_symop: the rotation of a real-space symmetry operator such as
 * "-Y,X-Y,Z+1/3" in [@p, @end): three components, each a sum of signed terms,
 * each an axis (X, Y or Z in either case, at most once) or a translation (a
 * number or a fraction, at most once); blanks anywhere.  Its determinant must
 * be +-1.  Returns 0 for anything else.  (libccp4's symop_to_mat4() also takes
 * reciprocal-space and axis notations, which no MTZ file holds.) */
static int
parse_symop (const char *p, const char *end, mtz_rotation rot)
{
  memset (rot, 0, sizeof (mtz_rotation));
  for (int r = 0; r < 3; r++)
    {
      int terms = 0, translation = 0;

      for (;; terms++)
        {
          int sign = 1;

          while (p < end && *p == ' ')
            p++;
          if (p < end && (*p == '+' || *p == '-'))
            sign = *p++ == '-' ? -1 : 1;
          else if (terms > 0)
            break;
          while (p < end && *p == ' ')
            p++;
          if (p < end &&
              (*p == 'X' || *p == 'Y' || *p == 'Z' || *p == 'x' || *p == 'y' || *p == 'z'))
            {
              int c = (*p++ | 0x20) - 'x';

              if (rot[r][c] != 0)
                return 0;
              rot[r][c] = sign;
            }
          else if (translation || !skip_number (&p, end))
            return 0;
          else if (p < end && *p == '/')
            {
              const char *den = ++p;
              int nonzero = 0;

              if (!skip_number (&p, end))
                return 0;
              for (; den < p; den++)
                nonzero |= *den >= '1' && *den <= '9';
              if (!nonzero)
                return 0;
              translation = 1;
            }
          else
            translation = 1;
        }
      /* the loop stopped at the first non-blank after the last term */
      if (r < 2 && (p == end || *p++ != ','))
        return 0;
    }
  return p == end && abs (determinant (rot)) == 1;
}

/* add_rotation: @rot into the different rotations of @h, if new.  0 when
 * there would be more than a crystallographic group has. */
static int
add_rotation (mtz_header *h, const mtz_rotation rot)
{
  for (int s = 0; s < h->nrot; s++)
    if (memcmp (h->rot[s], rot, sizeof (mtz_rotation)) == 0)
      return 1;
  if (h->nrot == MTZ_MAX_ROTATIONS)
    return 0;
  memcpy (h->rot[h->nrot++], rot, sizeof (mtz_rotation));
  return 1;
}

/* space_group_name: SYMINF's quoted name ('P 61' in "SYMINF nsym nsymp
 * lattice number 'P 61' point-group") of record @rec into @h, when it fits. */
static void
space_group_name (mtz_header *h, const char *rec)
{
  const char *q0 = memchr (rec, '\'', MTZ_RECORD), *q1;

  q1 = q0 != NULL ? memchr (q0 + 1, '\'', (size_t) (rec + MTZ_RECORD - q0 - 1)) : NULL;
  if (q1 != NULL && q1 - q0 - 1 < (long) sizeof h->space_group)
    {
      memcpy (h->space_group, q0 + 1, (size_t) (q1 - q0 - 1));
      h->space_group[q1 - q0 - 1] = '\0';
    }
}

/* cell_record: CELL's six numbers (@words words @w of lengths @n) into @h;
 * an unusable cell is left out: only the warning of a mismatch needs it. */
static void
cell_record (mtz_header *h, const char *const *w, const int *n, int words)
{
  double c[6];
  int ok = words == 6;

  for (int i = 0; i < 6 && ok; i++)
    ok = word_to_double (w[i], n[i], &c[i]) && isfinite (c[i]) && c[i] > 0 && (i < 3 || c[i] < 180);
  if (ok)
    memcpy (h->cell, c, sizeof c);
}

/* parse_record: header record number @index, @rec (80 printable bytes), into
 * @h.  Sets *@end at the END record. */
static nb_status
parse_record (mtz_header *h, long index, const char *rec, int *end, nb_error *err)
{
  const char *p = rec, *stop = rec + MTZ_RECORD, *w[6];
  int n[6], words = 0;
  char key[5] = "";

  /* libccp4 tells records by their first four characters */
  if (rec[0] < 'A' || rec[0] > 'Z')
    return record_error (err, h, index, rec, "no keyword at its start%s",
                         index == 1 ? " (is the header pointer wrong?)" : "");
  memcpy (key, rec, 4);
  if (strncmp (rec, "END ", 4) == 0)
    {
      *end = 1;
      return NB_OK;
    }
  /* what follows END: met first, END is missing or damaged */
  if (strcmp (key, "MTZH") == 0 || strcmp (key, "MTZB") == 0 || strcmp (key, "MTZE") == 0)
    return record_error (err, h, index, rec, "%s",
                         "comes before any END record: END is missing or damaged");

  if (strcmp (key, "SYMM") == 0)
    {
      mtz_rotation rot;

      if (h->nops == MTZ_MAX_SYMOPS)
        return record_error (err, h, index, rec, "more than %d symmetry operators", MTZ_MAX_SYMOPS);
      if (!parse_symop (rec + 4, stop, rot))
        return record_error (err, h, index, rec, "%s",
                             "not a symmetry operator such as X,Y,Z or -Y,X-Y,Z+1/3");
      if (!add_rotation (h, rot))
        return record_error (err, h, index, rec,
                             "more than %d different rotations: no crystallographic group",
                             MTZ_MAX_ROTATIONS);
      h->nops++;
      return NB_OK;
    }

  /* the keyword, then up to six words (one more than any record used has) */
  next_word (&p, stop, &w[0]);
  while (words < 6 && (n[words] = next_word (&p, stop, &w[words])) > 0)
    words++;

  if (strcmp (key, "VERS") == 0)
    {
      if (h->have_vers++)
        return record_error (err, h, index, rec, "%s", "a second VERS record");
      if (words != 1 || n[0] < 8 || strncmp (w[0], "MTZ:V1.", 7) != 0)
        return record_error (err, h, index, rec, "%s",
                             "not MTZ version 1 (\"VERS MTZ:V1.1\"), the one this reader knows");
    }
  else if (strcmp (key, "NCOL") == 0)
    {
      long ncol, nref, nbat;
      uint64_t words_of_data;

      if (h->ncol >= 0)
        return record_error (err, h, index, rec, "%s", "a second NCOL record");
      if (words < 2 || words > 3 || !word_to_long (w[0], n[0], 1, MTZ_MAX_COLUMNS, &ncol) ||
          !word_to_long (w[1], n[1], 0, INT32_MAX, &nref) ||
          (words == 3 && !word_to_long (w[2], n[2], 0, INT32_MAX, &nbat)))
        return record_error (err, h, index, rec,
                             "expected NCOL columns (1 to %d) reflections [batches]",
                             MTZ_MAX_COLUMNS);
      /* the reflections fill the words from the preamble to the header */
      words_of_data = (uint64_t) nref * (uint64_t) ncol;
      if ((uint64_t) h->pointer - 1 != MTZ_PREAMBLE_WORDS + words_of_data)
        return record_error (err, h, index, rec,
                             "%ld reflections of %ld columns end at word %" PRIu64
                             ", the header pointer says %" PRId64 ": the file is damaged",
                             nref, ncol, MTZ_PREAMBLE_WORDS + words_of_data, h->pointer - 1);
      h->ncol = (int) ncol;
      h->nref = nref;
    }
  else if (strcmp (key, "SYMI") == 0)
    {
      long nsym, nsymp;

      if (h->nsym >= 0)
        return record_error (err, h, index, rec, "%s", "a second SYMINF record");
      if (words < 2 || !word_to_long (w[0], n[0], 1, MTZ_MAX_SYMOPS, &nsym) ||
          !word_to_long (w[1], n[1], 1, nsym, &nsymp))
        return record_error (err, h, index, rec,
                             "expected SYMINF operators (1 to %d) primitive-operators ...",
                             MTZ_MAX_SYMOPS);
      h->nsym = (int) nsym;
      h->nsymp = (int) nsymp;
      space_group_name (h, rec);
    }
  else if (strcmp (key, "CELL") == 0)
    cell_record (h, w, n, words);
  else if (strcmp (key, "VALM") == 0)
    {
      double v;

      if (h->have_valm++)
        return record_error (err, h, index, rec, "%s", "a second VALM record");
      if (words == 1 && n[0] == 3 && strncmp (w[0], "NAN", 3) == 0)
        h->valm_is_nan = 1;
      else if (words == 1 && word_to_double (w[0], n[0], &v) && isfinite (v))
        h->valm = (float) v;
      else
        return record_error (err, h, index, rec, "%s",
                             "expected VALM NAN or VALM and a number (the missing-number flag)");
    }
  else if (strcmp (key, "COLU") == 0)
    {
      double range;
      long set;
      int c = h->columns;

      if (c == MTZ_MAX_COLUMNS)
        return record_error (err, h, index, rec, "more than %d columns", MTZ_MAX_COLUMNS);
      if (words < 4 || words > 5 || n[0] > MTZ_LABEL_MAX || n[1] != 1 ||
          !word_to_double (w[2], n[2], &range) || !word_to_double (w[3], n[3], &range) ||
          (words == 5 && !word_to_long (w[4], n[4], 0, INT32_MAX, &set)))
        return record_error (err, h, index, rec,
                             "expected COLUMN label (up to %d characters) type minimum maximum "
                             "[dataset]",
                             MTZ_LABEL_MAX);
      /* the indices: labels H, K, L of type H */
      if (w[1][0] == 'H' && n[0] == 1)
        {
          int *slot = w[0][0] == 'H'   ? &h->col_h
                      : w[0][0] == 'K' ? &h->col_k
                      : w[0][0] == 'L' ? &h->col_l
                                       : NULL;

          if (slot != NULL && *slot < 0)
            *slot = c;
        }
      if (h->col_f < 0 && (h->want != NULL ? n[0] == (int) strlen (h->want) &&
                                                 memcmp (w[0], h->want, (size_t) n[0]) == 0
                                           : w[1][0] == 'F'))
        {
          h->col_f = c;
          memcpy (h->label_f, w[0], (size_t) n[0]);
          h->label_f[n[0]] = '\0';
        }
      h->columns++;
    }
  /* TITLE, SORT, RESO, COLSRC, COLGRP, NDIF, PROJECT, CRYSTAL, DATASET,
   * DCELL, DWAVEL, BATCH and what other writers add: nothing here needs them */
  return NB_OK;
}

/* from_file: the @bytes-byte integer at @p in the file's byte order */
static uint64_t
from_file (const unsigned char *p, int bytes, int big)
{
  uint64_t v = 0;

  for (int b = 0; b < bytes; b++)
    v = v << 8 | p[big ? b : bytes - 1 - b];
  return v;
}

/* check_group: the different rotations of the SYMM operators are as many as
 * SYMINF's primitive operators and close under products (a group: a damaged
 * operator that still parses breaks this). */
static nb_status
check_group (const mtz_header *h, nb_error *err)
{
  if (h->nrot != h->nsymp)
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s: the SYMM operators have %d different rotations, SYMINF announces %d "
                         "primitive operators: the symmetry operators are damaged",
                         h->path, h->nrot, h->nsymp);
  for (int a = 0; a < h->nrot; a++)
    for (int b = 0; b < h->nrot; b++)
      {
        mtz_rotation prod;
        int found = 0;

        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++)
            prod[r][c] = h->rot[a][r][0] * h->rot[b][0][c] + h->rot[a][r][1] * h->rot[b][1][c] +
                         h->rot[a][r][2] * h->rot[b][2][c];
        for (int s = 0; s < h->nrot && !found; s++)
          found = memcmp (prod, h->rot[s], sizeof prod) == 0;
        if (!found)
          return nb_error_set (err, NB_ERR_PARSE,
                               "%s: the symmetry operators are no group (the product of two "
                               "rotations is none of them): they are damaged",
                               h->path);
      }
  return NB_OK;
}

/* read_header: the preamble and the header records up to END of the open MTZ
 * file @f (@size bytes, at least a preamble and a record) into @h, checked
 * against each other and against the file. */
static nb_status
read_header (FILE *f, uint64_t size, int big_ints, mtz_header *h, nb_error *err)
{
  unsigned char pre[MTZ_PREAMBLE_WORDS * 4];
  char rec[MTZ_RECORD];
  uint64_t offset;
  long index = 0;
  int end = 0;
  nb_status st;

  if (fseek (f, 0, SEEK_SET) != 0 || fread (pre, 1, sizeof pre, f) != sizeof pre)
    return nb_error_set (err, NB_ERR_IO, "%s: cannot read its first %zu bytes", h->path,
                         sizeof pre);
  h->pointer = (int32_t) (uint32_t) from_file (pre + 4, 4, big_ints);
  if (h->pointer == -1)
    h->pointer = (int64_t) from_file (pre + 12, 8, big_ints);
  /* the records start after the preamble, and one fits before the end */
  if (h->pointer <= MTZ_PREAMBLE_WORDS || (uint64_t) h->pointer - 1 > (size - MTZ_RECORD) / 4)
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s: header pointer %" PRId64 " (in 4-byte words) lies outside the "
                         "file's %" PRIu64 " bytes: the file is damaged or truncated",
                         h->path, h->pointer, size);
  offset = ((uint64_t) h->pointer - 1) * 4;
  if (fseek (f, (long) offset, SEEK_SET) != 0)
    return nb_error_set (err, NB_ERR_IO, "%s: cannot seek to its header", h->path);

  while (!end)
    {
      index++;
      if (fread (rec, 1, MTZ_RECORD, f) != MTZ_RECORD)
        return nb_error_set (err, NB_ERR_PARSE,
                             "%s: no END record in the %ld header records from byte %" PRIu64
                             ": the file is damaged or truncated",
                             h->path, index - 1, offset);
      for (int i = 0; i < MTZ_RECORD; i++)
        if (rec[i] < 0x20 || rec[i] > 0x7e)
          return nb_error_set (err, NB_ERR_PARSE,
                               "%s: header record %ld holds byte 0x%02x at column %d, where an "
                               "MTZ header holds printable text: the file is damaged%s",
                               h->path, index, (unsigned char) rec[i], i + 1,
                               index == 1 ? " (is the header pointer wrong?)" : "");
      if ((st = parse_record (h, index, rec, &end, err)) != NB_OK)
        return st;
    }

  if (h->ncol < 0)
    return nb_error_set (err, NB_ERR_PARSE, "%s: no NCOL record in the header", h->path);
  if (h->columns != h->ncol)
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s: NCOL announces %d columns, the header describes %d (COLUMN records)",
                         h->path, h->ncol, h->columns);
  if (h->nsym < 0)
    return nb_error_set (err, NB_ERR_PARSE, "%s: no SYMINF record (the space group) in the header",
                         h->path);
  if (h->nops != h->nsym)
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s: SYMINF announces %d symmetry operators, the header holds %d (SYMM "
                         "records)",
                         h->path, h->nsym, h->nops);
  if (h->col_h < 0 || h->col_k < 0 || h->col_l < 0)
    return nb_error_set (err, NB_ERR_PARSE, "%s: no H K L index columns", h->path);
  if (h->col_f < 0)
    return h->want != NULL
               ? nb_error_set (err, NB_ERR_PARSE, "%s: no column labelled '%s'", h->path, h->want)
               : nb_error_set (err, NB_ERR_PARSE, "%s: no amplitude column (type F)", h->path);
  return check_group (h, err);
}

/* real_at: the 4-byte real at @p in the file's byte order. */
static float
real_at (const unsigned char *p, int big)
{
  uint32_t u = (uint32_t) from_file (p, 4, big);
  float v;

  memcpy (&v, &u, sizeof v);
  return v;
}

/* index_ok: a Miller index stored as a real: whole, and within the grid's range. */
static int
index_ok (float v)
{
  return isfinite (v) && fabsf (v) <= (float) NB_HKL_INDEX_MAX && v == nearbyintf (v);
}

/* expand: the reflections of @h from the open file @f, each present
 * amplitude with its symmetry and Friedel mates, into @hkl and @F (room for
 * nref x nrot x 2); their number in *@n. */
static nb_status
expand (FILE *f, const mtz_header *h, int big_reals, int *hkl, double *F, long *n, nb_error *err)
{
  size_t row_bytes = (size_t) h->ncol * 4;
  size_t rows_per_chunk = row_bytes < MTZ_CHUNK_BYTES ? MTZ_CHUNK_BYTES / row_bytes : 1;
  unsigned char *chunk = malloc (rows_per_chunk * row_bytes);
  nb_status st = NB_OK;

  if (chunk == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory for its reflections", h->path);
  if (fseek (f, MTZ_PREAMBLE_WORDS * 4, SEEK_SET) != 0)
    st = nb_error_set (err, NB_ERR_IO, "%s: cannot seek to its reflections", h->path);
  for (long first = 0; st == NB_OK && first < h->nref; first += (long) rows_per_chunk)
    {
      size_t rows =
          (size_t) (h->nref - first) < rows_per_chunk ? (size_t) (h->nref - first) : rows_per_chunk;

      if (fread (chunk, row_bytes, rows, f) != rows)
        st = nb_error_set (err, NB_ERR_IO, "%s: cannot read reflections %ld to %ld", h->path,
                           first + 1, first + (long) rows);
      for (size_t i = 0; st == NB_OK && i < rows; i++)
        {
          const unsigned char *row = chunk + i * row_bytes;
          float x[3] = { real_at (row + 4 * h->col_h, big_reals),
                         real_at (row + 4 * h->col_k, big_reals),
                         real_at (row + 4 * h->col_l, big_reals) };
          float v = real_at (row + 4 * h->col_f, big_reals);

          if (isnan (v) || (h->have_valm && !h->valm_is_nan && v == h->valm))
            continue; /* a missing amplitude */
          if (!index_ok (x[0]) || !index_ok (x[1]) || !index_ok (x[2]) || isinf (v))
            {
              st = nb_error_set (err, NB_ERR_INVALID,
                                 "%s: reflection %ld reads %g %g %g F %g: indices must be whole "
                                 "numbers within +-%d and F finite",
                                 h->path, first + (long) i + 1, (double) x[0], (double) x[1],
                                 (double) x[2], (double) v, NB_HKL_INDEX_MAX);
              break;
            }
          for (int s = 0; s < h->nrot; s++)
            {
              int hp[3];

              /* indices transform as a row vector by the rotation: h' = h R */
              for (int c = 0; c < 3; c++)
                hp[c] = (int) x[0] * h->rot[s][0][c] + (int) x[1] * h->rot[s][1][c] +
                        (int) x[2] * h->rot[s][2][c];
              for (int sign = 1; sign >= -1; sign -= 2)
                {
                  for (int c = 0; c < 3; c++)
                    hkl[3 * *n + c] = sign * hp[c];
                  F[(*n)++] = v;
                }
            }
        }
    }
  free (chunk);
  return st;
}

nb_status
nb_mtz_read (const char *path,
             const char *column,
             double default_F,
             size_t max_bytes,
             size_t cell_bytes,
             nb_hkl_grid *out,
             char column_used[32],
             nb_error *err)
{
  const uint16_t one = 1;
  const int host_big = *(const unsigned char *) &one == 0;
  unsigned char stamp[2];
  int big_ints, big_reals;
  struct stat sb;
  FILE *f;
  mtz_header *h;
  int *hkl = NULL;
  double *F = NULL;
  long n = 0;
  size_t held = 0;
  double cell[6] = { 0 };
  char space_group[16] = "";
  nb_status st;

  memset (out, 0, sizeof *out);
  if (nb_input_fopen (path, &f, &sb, err) != NB_OK)
    return NB_ERR_IO;
  if (!nb_file_is_mtz (path))
    {
      fclose (f);
      return nb_error_set (err, NB_ERR_PARSE, "%s: not an MTZ file (no \"MTZ \" magic)", path);
    }
  if ((uint64_t) sb.st_size < MTZ_PREAMBLE_WORDS * 4 + MTZ_RECORD)
    {
      fclose (f);
      return nb_error_set (err, NB_ERR_PARSE, "%s: %jd bytes, too short for an MTZ file: truncated",
                           path, (intmax_t) sb.st_size);
    }

  /* the machine stamp: the real and the integer formats */
  if (fseek (f, 8, SEEK_SET) != 0 || fread (stamp, 1, 2, f) != 2)
    {
      fclose (f);
      return nb_error_set (err, NB_ERR_IO, "%s: cannot read its machine stamp", path);
    }
  {
    int reals = stamp[0] >> 4, ints = stamp[1] >> 4;

    if ((reals != 0 && reals != 1 && reals != 4) || (ints != 0 && ints != 1 && ints != 4))
      {
        fclose (f);
        return nb_error_set (err, NB_ERR_PARSE,
                             "%s: machine stamp 0x%02x%02x (%s): only IEEE reals in either byte "
                             "order are read",
                             path, stamp[0], stamp[1],
                             reals == 2 || reals == 5 ? "VAX or Convex reals" : "unknown formats");
      }
    big_reals = reals == 0 ? host_big : reals == 1;
    big_ints = ints == 0 ? host_big : ints == 1;
  }

  if ((h = calloc (1, sizeof *h)) == NULL)
    {
      fclose (f);
      return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory for its header", path);
    }
  h->path = path;
  h->want = column;
  h->ncol = h->nsym = h->nsymp = -1;
  h->col_h = h->col_k = h->col_l = h->col_f = -1;
  if ((st = read_header (f, (uint64_t) sb.st_size, big_ints, h, err)) != NB_OK)
    goto done;
  if (column_used != NULL)
    snprintf (column_used, 32, "%s", h->label_f);

  if (h->nref > 0)
    {
      size_t cap = (size_t) h->nref * (size_t) h->nrot * 2;
      const size_t record_bytes = sizeof (double) + 3 * sizeof (int);

      /* every symmetry mate and its Friedel mate, before the grid is built */
      if (cap > max_bytes / record_bytes)
        {
          st = nb_error_set (err, NB_ERR_NOMEM,
                             "%s: %ld reflections x %d symmetry operators x 2 (Friedel) take "
                             "%.1f MB, more than the memory budget leaves for structure factors "
                             "(%.1f MB; see -memory_budget)",
                             path, h->nref, h->nrot, (double) cap * record_bytes / 1e6,
                             (double) max_bytes / 1e6);
          goto done;
        }
      /* one block, F then the indices (on huge pages, as the HKL reader's) */
      held = cap * record_bytes;
      if ((F = nb_alloc_large (held)) == NULL)
        {
          st = nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory for %ld reflections", path,
                             h->nref);
          goto done;
        }
      hkl = (int *) (void *) (F + cap);
    }
  st = expand (f, h, big_reals, hkl, F, &n, err);
  memcpy (cell, h->cell, sizeof cell);
  memcpy (space_group, h->space_group, sizeof space_group);

done:
  fclose (f);
  free (h);
  if (st == NB_OK)
    st = nb_hkl_grid_build (path, hkl, F, n, default_F, max_bytes, cell_bytes, held, out, err);
  if (st == NB_OK)
    {
      memcpy (out->cell, cell, sizeof out->cell);
      memcpy (out->space_group, space_group, sizeof out->space_group);
    }
  free (F); /* and hkl */
  return st;
}
