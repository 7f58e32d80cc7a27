/* nb-mtz.h: structure factors from an MTZ file (CCP4's reflection format),
 * expanded from the file's space group to P1.
 *
 * Source: the MTZ format as CCP4 documents it and libccp4 (cmtzlib.c) writes
 * it; read by mtz.c itself, which says why not through libccp4.  The
 * expansion h' = h R runs over the point group's rotations R, plus Friedel
 * mates -h' (the amplitudes of a structure factor calculation obey
 * |F(h)| = |F(-h)|).
 */
#pragma once

#include "nb-hkl.h"
#include "nb-status.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* nb_mtz_supported: 1: every build reads MTZ files (kept for callers that
 * asked when reading needed libccp4). */
  int nb_mtz_supported (void);

  /* nb_file_is_mtz: 1 when @path starts with the MTZ magic "MTZ ", 0 otherwise
 * (including when it cannot be read: the caller's reader reports that). */
  int nb_file_is_mtz (const char *path);

  /* nb_mtz_read: the amplitudes of the first column of type F (or of the
 * first column labelled @column when non-NULL) of the MTZ file @path,
 * expanded to P1 with Friedel mates, in the padded grid layout of
 * nb_hkl_read() (cells not listed hold @default_F).  Missing values (NaN, or
 * the file's VALM number) are skipped.  @column_used, when non-NULL, receives
 * the label read (up to 30 bytes + NUL).  IEEE reals in either byte order;
 * a 32- or 64-bit header pointer.  Every header record up to END is checked
 * (printable text, counts against each other and against the file's size,
 * the symmetry operators a group) before anything is allocated, so a damaged
 * file is refused in time proportional to its size.  The expansion block
 * (20 bytes per reflection, operator and Friedel mate) and then the grid, at
 * @cell_bytes per cell, must fit in @max_bytes.  Errors, each one line
 * naming @path: NB_ERR_IO (cannot open or read, not a regular file),
 * NB_ERR_PARSE (not MTZ, truncated or damaged, naming the header record and
 * what is wrong; no H K L or amplitude column), NB_ERR_INVALID (an index not
 * a whole number within NB_HKL_INDEX_MAX, an infinite F, no reflections),
 * NB_ERR_NOMEM (beyond @max_bytes, as nb_hkl_read_limited()). */
  nb_status nb_mtz_read (const char *path,
                         const char *column,
                         double default_F,
                         size_t max_bytes,
                         size_t cell_bytes,
                         nb_hkl_grid *out,
                         char column_used[32],
                         nb_error *err);

#ifdef __cplusplus
}
#endif
