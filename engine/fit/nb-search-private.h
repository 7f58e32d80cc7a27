/* nb-search-private.h: the candidate orientations of orientations.c for the
 * orientation search of refine.c. */
#pragma once

#include "nb-match-private.h"

#define RTD (180.0 / M_PI)

/* Whether the caller's cancel flag (NULL: none) is set; read without tearing
 * while the caller's thread writes it. */
static inline int
nb_cancelled (const volatile int *flag)
{
  if (flag == NULL)
    return 0;
#if defined(__GNUC__) || defined(__clang__)
  return __atomic_load_n (flag, __ATOMIC_RELAXED) != 0;
#else
  return *flag != 0;
#endif
}

/* What the search ranks its candidates (and lattice-row directions) by, the
 * first member of each: best first, equal scores in the order of their index,
 * so that the order, and what a search keeps of it, is the same for any
 * number of threads. */
typedef struct
{
  double score;
  long long index; /* where it came from (grid point, basis triplet, hemisphere point) */
} nb_rank;

/* One candidate orientation. */
typedef struct
{
  nb_rank rank; /* score: peaks matched in reciprocal space, plus a fraction for closeness */
  double U[9];  /* the crystal's rotation, row-major */
} nb_candidate;

/* A growing list of candidates: @list malloc'ed (free() it), @n of @cap used;
 * { NULL, 0, 0 } is empty. */
typedef struct
{
  nb_candidate *list;
  int n, cap;
} nb_candidates;

/* The peaks as reciprocal vectors at phi = 0 (1/Angstrom), with the
 * reciprocal distance the match radius makes at each. */
typedef struct
{
  int n;
  double *y; /* 3 n */
  double *tau0;
} nb_peak_vectors;

/* @c's candidates best first, equal scores in the order of their index: the
 * same order for any number of threads. */
void nb_candidates_sort (nb_candidates *c);

/* The rotations of the lattice onto itself (its metric symmetry), as
 * matrices S in the crystal's base frame (a_lab = U S a0 is the same lattice
 * as U a0): integer changes of basis N with entries -1..1 whose
 * A0^T N A0^-T is a proper rotation to @tol.  Returns how many (at most 48). */
int nb_lattice_rotations (const nb_model *m, double S[48][9], double tol);

/* The smallest angle (rad) between orientations @a and @b up to the
 * lattice's rotations @S (@n_sym of them). */
double nb_symmetric_angle (const double a[9], const double b[9], double S[48][9], int n_sym);

/* How many peaks of @pv lie within their tolerance of a lattice point with
 * the crystal in orientation @U, the tolerance allowing an orientation error
 * @theta (rad); plus a fraction for closeness. */
double
nb_reciprocal_count (const nb_model *m, const nb_peak_vectors *pv, const double U[9], double theta);

/* The SO(3) grid: every orientation of the cubed 3-sphere @opt->step apart,
 * the informative peaks (@yx, @yy, @yz, @tau2: @n_inf) counted on
 * @nthreads threads; the grid's best 16 @opt->candidates appended to @out,
 * the same for any @nthreads.  *@points: the orientations the grid has.
 * 0, -1 cancelled (opt->refine.cancel), -2 out of memory. */
int nb_so3_grid (const nb_model *m,
                 const double *yx,
                 const double *yy,
                 const double *yz,
                 const double *tau2,
                 int n_inf,
                 const nb_search_options *opt,
                 int nthreads,
                 nb_candidates *out,
                 long *points);

/* Orientations whose real cell vectors lie along periodicity directions of
 * the peaks @pv (the known-cell form of a real-space grid search):
 * directions for the lengths of a, b and c on a hemisphere grid @step (rad)
 * apart, combined into right-handed triplets with the cell's angles (within
 * 2 deg), each scored in reciprocal space and appended to @out.  0, -1
 * cancelled (@cancel), -2 out of memory. */
int nb_basis_candidates (const nb_model *m,
                         const nb_peak_vectors *pv,
                         double step,
                         int nthreads,
                         const volatile int *cancel,
                         nb_candidates *out);
