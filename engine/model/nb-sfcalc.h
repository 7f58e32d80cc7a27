/* nb-sfcalc.h: structure factors of an atomic model by direct summation,
 * and the expansion of a reflection list to P1, into the padded grid of
 * nb-hkl.h.
 *
 * Physics: F(h) = sum over the atoms j of the asymmetric unit and the
 * space group's operators (R, t) of
 *   f0_j(s) occ_j T_j(h R) exp(2 pi i (h R . x_j + h . t)),
 * f0 the atom's International Tables Gaussians at s = sin(theta)/lambda =
 * 1/(2d), T = exp(-B s^2) for an isotropic atom, exp(-2 pi^2 k U k^T) at the
 * rotated index row k = h R for an anisotropic one (U in fractional terms,
 * nb_atom).  No anomalous scattering (f', f''), no hydrogens added, no bulk
 * solvent: what gemmi's sfcalc computes without them.  Only |F| is kept, so
 * the reflections computed are one of each set of symmetry equivalents and
 * Friedel mates (|F(h R)| = |F(h)| = |F(-h)|); the grid gets all of them.
 */
#pragma once

#include "formats/nb-hkl.h"
#include "formats/nb-models.h"

/* nb_sfcalc_grid: |F| of the atoms of @m (kind NB_STRUCTURE_ATOMS) for every
 * reflection of resolution @d_min (Angstrom) or lower, expanded to P1 with
 * Friedel mates, as a grid laid out as nb_hkl_read()'s (other cells
 * @default_F).  @max_bytes and @cell_bytes bound the grid as in
 * nb_hkl_grid_build(), and the reflection lists besides.  @n_unique, when
 * non-NULL, receives the count of reflections computed.  OpenMP threads over
 * reflections.  Errors: NB_ERR_INVALID (d_min not positive, an index beyond
 * NB_HKL_INDEX_MAX, a cell or operator that is not crystallographic),
 * NB_ERR_NOMEM. */
nb_status nb_sfcalc_grid (const char *source,
                          const nb_structure *m,
                          double d_min,
                          double default_F,
                          size_t max_bytes,
                          size_t cell_bytes,
                          nb_hkl_grid *out,
                          long *n_unique,
                          nb_error *err);

/* nb_sfcalc_unique: the reflections nb_sfcalc_grid() computes (one of each
 * set of equivalents and Friedel mates, to @d_min) in @hkl (3 n indices) and
 * their |F| in @F, both malloc()ed, n in @n; the lists must fit in
 * @max_bytes.  Errors as nb_sfcalc_grid(). */
nb_status nb_sfcalc_unique (const char *source,
                            const nb_structure *m,
                            double d_min,
                            size_t max_bytes,
                            int **hkl,
                            double **F,
                            long *n,
                            nb_error *err);

/* nb_sf_expand_list_grid: the @n reflections @hkl with amplitudes @F, with
 * their images under @m's operators and Friedel mates, as a grid (as
 * nb_sfcalc_grid()). */
nb_status nb_sf_expand_list_grid (const char *source,
                                  const nb_structure *m,
                                  const int *hkl,
                                  const double *F,
                                  long n,
                                  double default_F,
                                  size_t max_bytes,
                                  size_t cell_bytes,
                                  nb_hkl_grid *out,
                                  nb_error *err);

/* nb_sfcalc_list: |F| of @m's atoms at the @n reflections @hkl (3n indices)
 * into @F (n values), with no expansion: for tests and benchmarks. */
nb_status nb_sfcalc_list (const nb_structure *m, const int *hkl, long n, double *F, nb_error *err);

/* nb_sf_expand_grid: the reflections of @m (kind NB_STRUCTURE_REFLECTIONS)
 * expanded with its operators to P1 and Friedel mates, as a grid (as
 * nb_sfcalc_grid()). */
nb_status nb_sf_expand_grid (const char *source,
                             const nb_structure *m,
                             double default_F,
                             size_t max_bytes,
                             size_t cell_bytes,
                             nb_hkl_grid *out,
                             nb_error *err);

/* nb_structure_resolution: the d (Angstrom) of index @hkl in the cell of @m. */
double nb_structure_resolution (const nb_structure *m, const int hkl[3]);
