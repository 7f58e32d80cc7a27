/* nb-textfile.h: the small text inputs: -sourcefile, -stol/-4stol/-Q tables
 * and -mat orientation matrices.
 *
 * Source: nanoBragg.c read_text_file() and the -mat reading block;
 * physics.md §7.2, §11.2, §18.  Unlike the reference, lines whose first
 * non-blank character is '#' are comments (unless NB_TABLE_REFERENCE_COMMENTS),
 * and a field that is not a number is an error naming the file and line (the
 * reference reads such a line as zeros).
 */
#pragma once

#include "nb-status.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C"
{
#endif

  /* nb_read_text: the whole of @path, NUL-terminated, in one buffer (*@text,
 * *@len bytes before the NUL; free with free()) of at most @max_bytes of text:
 * more is NB_ERR_NOMEM naming the file, the size and @limit (what the limit
 * is, "allowed for a table"), or with @prefix_ok the rest is not read.
 * Reading stops at the first NUL byte, which the callers report by its line,
 * so a binary file or /dev/zero costs one chunk.  The buffer comes from
 * nb_alloc_large(): one read and a parse in memory is several times faster
 * than stdio scanning.  Errors: NB_ERR_IO (open, read), NB_ERR_NOMEM. */
  nb_status nb_read_text (const char *path,
                          size_t max_bytes,
                          int prefix_ok,
                          const char *limit,
                          char **text,
                          size_t *len,
                          nb_error *err);

  /* Bytes of a file's text an error message quotes at most: a number or an
 * index fits, the contents of a file named by mistake (or by an attacker:
 * /etc/shadow as -hkl) do not. */
#define NB_EXCERPT_BYTES 12
/* Room for an excerpt: each byte escaped as \xNN at worst, "..." and the NUL. */
#define NB_EXCERPT_SIZE (NB_EXCERPT_BYTES * 4 + 4)

  /* nb_text_excerpt: the first NB_EXCERPT_BYTES of the @n bytes at @p, for
 * quoting in a message: printable ASCII as it is, a backslash, a quote and
 * every other byte escaped (\\, \', \xNN), "..." when there was more: a
 * short, valid UTF-8 string whatever the file holds.  Returns @out. */
  const char *nb_text_excerpt (const char *p, size_t n, char out[NB_EXCERPT_SIZE]);

  /* A table of @rows rows and @cols columns, row-major in @v (owned).  Missing
 * trailing columns of a row are NAN (the reference's convention, which the
 * callers then replace with their defaults). */
  typedef struct
  {
    int rows;
    int cols;
    double *v;
    long *lines;            /* rows: the 1-based file line of each row, for messages (owned) */
    unsigned char *comment; /* rows: 1 where a '#' line was read as a row (owned) */
  } nb_table;

/* nb_table_read_with() flag: '#' lines are rows, read as the reference reads
 * them */
#define NB_TABLE_REFERENCE_COMMENTS 1u

  /* nb_table_read: reads a text table of up to @cols numbers per line.  Fields
 * are separated by any of " \t,;:!" (the reference's delimiters); blank lines
 * and '#' comment lines are skipped; more than @cols numbers on a line, or a
 * field that is not a finite number, is NB_ERR_PARSE "FILE:LINE: ...".
 * An empty table is NB_ERR_PARSE ("no data").  Free with nb_table_clear(). */
  nb_status nb_table_read (const char *path, int cols, nb_table *out, nb_error *err);

  /* nb_table_read_with: nb_table_read() with @flags.  NB_TABLE_REFERENCE_COMMENTS:
 * a '#' line is a row, read as nanoBragg's read_text_file() reads any line
 * each field, '#' included, is atof()'d, so words count as 0 and the
 * numbers within are read; a line whose last word is not made of digits,
 * signs, points and exponent letters then has every remaining column 0 (a
 * heading such as "# x y z weight lambda" is a row of five zeros), one whose
 * last word is keeps its missing columns NAN.  The row's comment[] is 1. */
  nb_status
  nb_table_read_with (const char *path, int cols, unsigned flags, nb_table *out, nb_error *err);
  void nb_table_clear (nb_table *t);

  /* nb_matrix_read: the first nine numbers of a MOSFLM-style matrix file (line
 * breaks do not matter; the rest of the file is ignored; a singular matrix is
 * NB_ERR_PARSE).  @m receives them in
 * file order: m[0..2] are the X components of a*, b*, c* (in 1/Angstrom times
 * the wavelength), m[3..5] the Y components, m[6..8] the Z components.
 * Errors: NB_ERR_IO, NB_ERR_PARSE when fewer than nine numbers come first. */
  nb_status nb_matrix_read (const char *path, double m[9], nb_error *err);

#ifdef __cplusplus
}
#endif
