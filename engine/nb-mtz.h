/* nb-mtz.h: structure factors from an MTZ file (CCP4's reflection format)
 * through libccp4, expanded from the file's space group to P1.
 *
 * Source: the MTZ format and symmetry operators as libccp4 (cmtzlib.h)
 * exposes them; the expansion h' = h R over the point group's rotations R,
 * plus Friedel mates -h' (the amplitudes of a structure factor calculation
 * obey |F(h)| = |F(-h)|).
 */
#pragma once

#include "nb-hkl.h"
#include "nb-status.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* nb_mtz_supported: 1 when this build reads MTZ files (libccp4 was found). */
  int nb_mtz_supported (void);

  /* nb_file_is_mtz: 1 when @path starts with the MTZ magic "MTZ ", 0 otherwise
 * (including when it cannot be read: the caller's reader reports that). */
  int nb_file_is_mtz (const char *path);

  /* nb_mtz_read: the amplitudes of the first column of type F (or of the
 * column labelled @column when non-NULL) of the MTZ file @path, expanded to
 * P1 with Friedel mates, in the padded grid layout of nb_hkl_read() (cells
 * not listed hold @default_F).  Missing values are skipped.  @column_used,
 * when non-NULL, receives the label read (up to 31 bytes + NUL).  Errors:
 * NB_ERR_IO (cannot open), NB_ERR_PARSE (not MTZ, no amplitude column, no
 * reflections), NB_ERR_INVALID (an index beyond NB_HKL_INDEX_MAX),
 * NB_ERR_NOMEM (also a grid beyond @max_bytes at @cell_bytes per cell, as
 * nb_hkl_read_limited()), NB_ERR_UNSUPPORTED (built without libccp4). */
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
