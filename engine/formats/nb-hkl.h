/* nb-hkl.h: structure factors: HKL text files, the Fdump cache, the padded
 * grid and its lookups (nearest neighbour and tricubic).
 *
 * Source: nanoBragg.c HKL reading block, Fdump writing/reading, polint() and
 * polin3(); physics.md §15.
 */
#pragma once

#include <stddef.h>

#include "nb-status.h"

#ifdef __cplusplus
extern "C"
{
#endif

  /* The structure-factor grid.  F[((h - h_min) * (k_range + 1) + (k - k_min)) *
 * (l_range + 1) + (l - l_min)] with h_range = h_max - h_min + 1 (a count) and
 * one zero padding plane at the top of each axis, exactly as the reference
 * lays out its Fhkl array and Fdump.bin.  Cells not listed hold default_F
 * (padding stays 0) when default_F != 0 at load time. */
  typedef struct
  {
    int h_min, h_max, k_min, k_max, l_min, l_max;
    int h_range, k_range, l_range;
    long hkls;            /* records read (pass 1), or h_range*k_range*l_range from a dump */
    double *F;            /* owned; (h_range+1)*(k_range+1)*(l_range+1) doubles */
    double cell[6];       /* the file's unit cell (A, deg) when it gives one (MTZ CELL), else 0 */
    char space_group[16]; /* its space group's name (MTZ SYMINF), or "" */
  } nb_hkl_grid;

/* Limit on any index's magnitude; larger indices are refused (not turned into
 * a giant grid). */
#define NB_HKL_INDEX_MAX 1024

  /* nb_hkl_read: reads a text file of "h k l F" records.  Unlike the reference
 * (which scans a stream of numbers, quirk Q-23), this parser is line based:
 * blank lines and lines whose first non-blank character is '#' or '!' are
 * skipped; every other line must start with three integers and a number F;
 * further columns (sigma, phase) are ignored.  A malformed line is an error
 * naming @path and the line number.  Later duplicates overwrite earlier ones.
 * The grid is pre-filled with @default_F when it is non-zero (padding stays 0).
 * Errors: NB_ERR_IO, NB_ERR_PARSE, NB_ERR_INVALID (|index| > NB_HKL_INDEX_MAX or
 * no reflections), NB_ERR_NOMEM.  Free with nb_hkl_grid_clear(). */
  nb_status nb_hkl_read (const char *path, double default_F, nb_hkl_grid *out, nb_error *err);

  /* nb_hkl_read_limited: nb_hkl_read() that allocates at most @max_bytes: the
 * file's text and records while reading, then the grid, counted at
 * @cell_bytes per cell (>= sizeof (double); a caller that keeps another copy,
 * such as the plan's single-precision one, counts it here).  Anything larger
 * is refused with NB_ERR_NOMEM naming the file, the index ranges and the sizes,
 * before the grid is allocated.  nb_hkl_read() is this with no limit. */
  nb_status nb_hkl_read_limited (const char *path,
                                 double default_F,
                                 size_t max_bytes,
                                 size_t cell_bytes,
                                 nb_hkl_grid *out,
                                 nb_error *err);

  /* nb_hkl_grid_build: the padded grid of @n reflections (@hkl: 3n indices,
 * @F: n amplitudes), later duplicates overwriting earlier ones, other cells
 * @default_F (padding planes 0), as nb_hkl_read() lays it out; the HKL and
 * MTZ readers both end here.  @source names the input in messages.  The grid,
 * at @cell_bytes per cell (>= sizeof (double)), plus the @held bytes the
 * caller keeps meanwhile, must fit in @max_bytes; it is refused before it is
 * allocated.  Errors: NB_ERR_INVALID (n == 0 or an index beyond
 * NB_HKL_INDEX_MAX), NB_ERR_NOMEM. */
  nb_status nb_hkl_grid_build (const char *source,
                               const int *hkl,
                               const double *F,
                               long n,
                               double default_F,
                               size_t max_bytes,
                               size_t cell_bytes,
                               size_t held,
                               nb_hkl_grid *out,
                               nb_error *err);

  /* nb_hkl_write_dump: writes @g in the reference's Fdump.bin format
 * ("%d %d %d %d %d %d\n\f" then the padded grid as native doubles), atomically. */
  nb_status nb_hkl_write_dump (const char *path, const nb_hkl_grid *g, nb_error *err);

  /* nb_hkl_read_dump: reads an Fdump.bin file written by the reference or by
 * nb_hkl_write_dump().  hkls = h_range*k_range*l_range, as the reference sets it.
 * Errors: NB_ERR_IO, NB_ERR_PARSE (bad header, short data). */
  nb_status nb_hkl_read_dump (const char *path, nb_hkl_grid *out, nb_error *err);

  /* nb_hkl_read_dump_limited: nb_hkl_read_dump() whose grid (@cell_bytes per
 * cell, as nb_hkl_read_limited()) must fit in @max_bytes.  A regular file too
 * short for the grid its header announces is NB_ERR_PARSE before anything is
 * allocated. */
  nb_status nb_hkl_read_dump_limited (
      const char *path, size_t max_bytes, size_t cell_bytes, nb_hkl_grid *out, nb_error *err);

  void nb_hkl_grid_clear (nb_hkl_grid *g);

  /* nb_hkl_lookup_nearest: F at integer (h0,k0,l0) if hkls != 0 and inside
 * [min,max] on every axis, else @default_F.  Source: nanoBragg.c pixel loop. */
  static inline double
  nb_hkl_lookup_nearest (const nb_hkl_grid *g, int h0, int k0, int l0, double default_F)
  {
    if (g->hkls && h0 <= g->h_max && h0 >= g->h_min && k0 <= g->k_max && k0 >= g->k_min &&
        l0 <= g->l_max && l0 >= g->l_min)
      return g
          ->F[((size_t) (h0 - g->h_min) * (size_t) (g->k_range + 1) + (size_t) (k0 - g->k_min)) *
                  (size_t) (g->l_range + 1) +
              (size_t) (l0 - g->l_min)];
    return default_F;
  }

  /* nb_hkl_tricubic_in_range: the reference's test for a full 4x4x4
 * neighbourhood: false when (h - h_min + 3) > h_range or h - 2 < h_min (same
 * for k, l), i.e. valid only for h_min + 2 <= h <= h_max - 2. */
  static inline int
  nb_hkl_tricubic_in_range (const nb_hkl_grid *g, double h, double k, double l)
  {
    return !(((h - g->h_min + 3) > g->h_range) || (h - 2 < g->h_min) ||
             ((k - g->k_min + 3) > g->k_range) || (k - 2 < g->k_min) ||
             ((l - g->l_min + 3) > g->l_range) || (l - 2 < g->l_min));
  }

  /* nb_hkl_tricubic: 4-point Lagrange interpolation along l, then k, then h
 * over nodes floor(x)-1 .. floor(x)+2, with the reference's term order (polint,
 * polin3) so results match bit for bit.  Caller guarantees
 * nb_hkl_tricubic_in_range(). */
  double nb_hkl_tricubic (const nb_hkl_grid *g, double h, double k, double l);

  /* nb_polint4: one 4-point Lagrange evaluation at @x, nodes @xa, values @ya,
 * term by term ((x-xa_a)*(x-xa_b)*(x-xa_c))*ya_j/((xa_j-xa_a)*(xa_j-xa_b)*(xa_j-xa_c))
 * summed ((t0+t1)+t2)+t3.  Exposed for tests. */
  double nb_polint4 (const double xa[4], const double ya[4], double x);

#ifdef __cplusplus
}
#endif
