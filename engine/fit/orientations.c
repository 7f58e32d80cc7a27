/* orientations.c: the candidate orientations of the orientation search
 * (refine.c): a grid over all rotations scored in reciprocal space, and the
 * orientations whose cell edges lie along the lattice rows the peaks show;
 * and the lattice's own rotations, which make two candidates one.
 *
 * Whatever the number of threads, the candidates are the same and in the
 * same order: each thread keeps its best under one total order (score, then
 * where the candidate came from), and the threads' lists together hold the
 * best of the whole grid, which alone go on (thread_best).
 */
#include "nb-search-private.h"
#include "model/nb-model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The rotation of unit quaternion @q (w, x, y, z), row-major. */
static void
quat_matrix (const double q[4], double U[9])
{
  double w = q[0], x = q[1], y = q[2], z = q[3];

  U[0] = 1 - 2 * (y * y + z * z);
  U[1] = 2 * (x * y - w * z);
  U[2] = 2 * (x * z + w * y);
  U[3] = 2 * (x * y + w * z);
  U[4] = 1 - 2 * (x * x + z * z);
  U[5] = 2 * (y * z - w * x);
  U[6] = 2 * (x * z - w * y);
  U[7] = 2 * (y * z + w * x);
  U[8] = 1 - 2 * (x * x + y * y);
}

/* Grid point @index of the cubed 3-sphere with @n cells per edge: face
 * index / n^3 fixes one quaternion component to 1, the other three are
 * tan(u) at the cell centres u of [-pi/4, pi/4]; normalised. */
static void
grid_quaternion (long index, int n, double q[4])
{
  long n3 = (long) n * n * n, r = index % n3;
  int face = (int) (index / n3), c = 0;
  double t[3], norm = 1;

  t[0] = tan (-M_PI / 4 + (r / ((long) n * n) + 0.5) * (M_PI / 2) / n);
  t[1] = tan (-M_PI / 4 + ((r / n) % n + 0.5) * (M_PI / 2) / n);
  t[2] = tan (-M_PI / 4 + (r % n + 0.5) * (M_PI / 2) / n);
  for (int i = 0; i < 3; i++)
    norm += t[i] * t[i];
  norm = sqrt (norm);
  for (int i = 0; i < 4; i++)
    q[i] = i == face ? 1.0 / norm : t[c++] / norm;
}

/* The rotations of the lattice onto itself (its metric symmetry), as
 * matrices S in the crystal's base frame (a_lab = U S a0 is the same lattice
 * as U a0): integer changes of basis N with entries -1..1 whose
 * A0^T N A0^-T is a proper rotation to @tol.  Returns how many (at most 48). */
int
nb_lattice_rotations (const nb_model *m, double S[48][9], double tol)
{
  double At[9], Ati[9], det;
  int count = 0;

  nb_mat_transpose (m->A0, At);
  /* inverse of At by cofactors */
  det = At[0] * (At[4] * At[8] - At[5] * At[7]) - At[1] * (At[3] * At[8] - At[5] * At[6]) +
        At[2] * (At[3] * At[7] - At[4] * At[6]);
  Ati[0] = (At[4] * At[8] - At[5] * At[7]) / det;
  Ati[1] = (At[2] * At[7] - At[1] * At[8]) / det;
  Ati[2] = (At[1] * At[5] - At[2] * At[4]) / det;
  Ati[3] = (At[5] * At[6] - At[3] * At[8]) / det;
  Ati[4] = (At[0] * At[8] - At[2] * At[6]) / det;
  Ati[5] = (At[2] * At[3] - At[0] * At[5]) / det;
  Ati[6] = (At[3] * At[7] - At[4] * At[6]) / det;
  Ati[7] = (At[1] * At[6] - At[0] * At[7]) / det;
  Ati[8] = (At[0] * At[4] - At[1] * At[3]) / det;
  for (int code = 0; code < 19683 && count < 48; code++)
    {
      double N[9], R[9], RRt[9], Rt[9], err = 0, d;
      int c = code;

      for (int i = 0; i < 9; i++, c /= 3)
        N[i] = c % 3 - 1;
      d = N[0] * (N[4] * N[8] - N[5] * N[7]) - N[1] * (N[3] * N[8] - N[5] * N[6]) +
          N[2] * (N[3] * N[7] - N[4] * N[6]);
      if (d != 1.0)
        continue;
      nb_mat_mul (At, N, R);
      nb_mat_mul (R, Ati, R);
      nb_mat_transpose (R, Rt);
      nb_mat_mul (R, Rt, RRt);
      for (int i = 0; i < 9; i++)
        err += fabs (RRt[i] - (i % 4 == 0));
      if (err < tol)
        memcpy (S[count++], R, sizeof R);
    }
  return count;
}

/* The smallest angle between @a and @b up to the lattice's rotations. */
double
nb_symmetric_angle (const double a[9], const double b[9], double S[48][9], int n_sym)
{
  double best = nb_mat_angle (a, b);

  for (int i = 0; i < n_sym; i++)
    {
      double as[9], t;

      nb_mat_mul (a, S[i], as);
      t = nb_mat_angle (as, b);
      if (t < best)
        best = t;
    }
  return best;
}

/* ---- each thread's best ---- */

/* The best @keep items of a search whose points the threads share, the same
 * for any number of threads: each thread keeps its best @keep under one
 * total order (@compare, qsort's: best first, no two items equal), which
 * together hold the best @keep of all. */
typedef struct
{
  char *items; /* nthreads x keep items of @size bytes */
  int *n;      /* items each thread holds */
  int *lowest; /* each thread's worst, once it holds @keep */
  int keep;
  size_t size;
  int (*compare) (const void *, const void *);
} thread_best;

static int
thread_best_init (thread_best *b,
                  int nthreads,
                  int keep,
                  size_t size,
                  int (*compare) (const void *, const void *))
{
  b->items = calloc ((size_t) nthreads * (size_t) keep, size);
  b->n = calloc ((size_t) nthreads, sizeof *b->n);
  b->lowest = calloc ((size_t) nthreads, sizeof *b->lowest);
  b->keep = keep;
  b->size = size;
  b->compare = compare;
  return b->items != NULL && b->n != NULL && b->lowest != NULL;
}

static void
thread_best_clear (thread_best *b)
{
  free (b->items);
  free (b->n);
  free (b->lowest);
}

/* Whether thread @tid keeps @item (its first @keep, or better than its worst). */
static int
thread_best_wants (const thread_best *b, int tid, const void *item)
{
  const char *mine = b->items + (size_t) tid * b->keep * b->size;

  return b->n[tid] < b->keep || b->compare (item, mine + (size_t) b->lowest[tid] * b->size) < 0;
}

/* Thread @tid keeps @item, which thread_best_wants(). */
static void
thread_best_keep (thread_best *b, int tid, const void *item)
{
  char *mine = b->items + (size_t) tid * b->keep * b->size;
  int at = b->n[tid] < b->keep ? b->n[tid]++ : b->lowest[tid], lowest = 0;

  memcpy (mine + (size_t) at * b->size, item, b->size);
  for (int i = 1; i < b->n[tid]; i++)
    if (b->compare (mine + (size_t) lowest * b->size, mine + (size_t) i * b->size) < 0)
      lowest = i;
  b->lowest[tid] = lowest;
}

/* The best @keep of all (fewer when fewer were offered), best first, at the
 * front of b->items; returns how many. */
static int
thread_best_gather (thread_best *b, int nthreads)
{
  size_t total = 0;

  for (int t = 0; t < nthreads; t++)
    {
      memmove (b->items + total * b->size, b->items + (size_t) t * b->keep * b->size,
               (size_t) b->n[t] * b->size);
      total += (size_t) b->n[t];
    }
  qsort (b->items, total, b->size, b->compare);
  return total < (size_t) b->keep ? (int) total : b->keep;
}

/* ---- candidate orientations ---- */

/* The index of the first basis-triplet candidate, past every grid point (at
 * most 4 n^3 for n = ceil(pi / 0.1 deg)). */
#define BASIS_INDEX (1LL << 40)

static int
candidates_add (nb_candidates *c, double score, const double U[9], long long index)
{
  if (c->n == c->cap)
    {
      int cap = c->cap ? 2 * c->cap : 256;
      nb_candidate *bigger = realloc (c->list, (size_t) cap * sizeof *bigger);

      if (bigger == NULL)
        return 0;
      c->list = bigger;
      c->cap = cap;
    }
  c->list[c->n].rank.score = score;
  c->list[c->n].rank.index = index;
  memcpy (c->list[c->n].U, U, 9 * sizeof *U);
  c->n++;
  return 1;
}

static int
rank_before (const nb_rank *x, const nb_rank *y)
{
  return x->score > y->score || (x->score == y->score && x->index < y->index);
}

/* qsort's order of items whose first member is an nb_rank: best first. */
static int
by_rank (const void *a, const void *b)
{
  const nb_rank *x = a, *y = b;

  return rank_before (x, y) ? -1 : rank_before (y, x);
}

void
nb_candidates_sort (nb_candidates *c)
{
  qsort (c->list, (size_t) c->n, sizeof *c->list, by_rank);
}

/* How many peaks of @pv lie within their tolerance of a lattice point with
 * the crystal in orientation @U, the tolerance allowing an orientation error
 * @theta (rad); plus a fraction for closeness. */
double
nb_reciprocal_count (const nb_model *m, const nb_peak_vectors *pv, const double U[9], double theta)
{
  double Ut[9], M[9], count = 0, close = 0;
  double smear = 0.5 * m->osc + m->excitation;

  nb_mat_transpose (U, Ut);
  nb_mat_mul (m->A0, Ut, M);
  for (int i = 0; i < pv->n; i++)
    {
      const double *y = pv->y + 3 * i;
      double e[3], d2 = 0, t2;

      for (int r = 0; r < 3; r++)
        {
          double h = M[3 * r] * y[0] + M[3 * r + 1] * y[1] + M[3 * r + 2] * y[2];

          e[r] = h - floor (h + 0.5);
        }
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
          d2 += e[r] * m->G[3 * r + c] * e[c];
      t2 = pv->tau0[i] * pv->tau0[i] + nb_dot (y, y) * (smear * smear + theta * theta);
      if (d2 < t2)
        {
          count++;
          close += 1.0 - d2 / t2;
        }
    }
  return count + close / (pv->n + 1);
}

/* The SO(3) grid (nb-search-private.h): every orientation of the cubed
 * 3-sphere @opt->step apart, the informative peaks counted; the grid's best
 * 16 @opt->candidates appended to @out. */
int
nb_so3_grid (const nb_model *m,
             const double *yx,
             const double *yy,
             const double *yz,
             const double *tau2,
             int n_inf,
             const nb_search_options *opt,
             int nthreads,
             nb_candidates *out,
             long *points)
{
  int grid_n = (int) ceil (M_PI / opt->step), stop = 0;
  long rows = 4L * grid_n * grid_n, rows_done = 0;
  thread_best best;

  *points = rows * grid_n;
  if (!thread_best_init (&best, nthreads, 16 * opt->candidates, sizeof (nb_candidate), by_rank))
    {
      thread_best_clear (&best);
      return -2;
    }
#pragma omp parallel num_threads(nthreads)
  {
    int tid = 0;

#ifdef _OPENMP
    tid = omp_get_thread_num ();
#endif
#pragma omp for schedule(dynamic, 16)
    for (long row = 0; row < rows; row++)
      {
        int stopped;

#pragma omp atomic read
        stopped = stop;
        if (stopped || nb_cancelled (opt->refine.cancel))
          {
#pragma omp atomic write
            stop = 1;
            continue;
          }
        for (int c = 0; c < grid_n; c++)
          {
            double q[4], U[9], Ut[9], M[9], soft = 0;
            int count = 0;
            nb_candidate here;
            const double magic = 6755399441055744.0; /* 1.5 * 2^52: adding it rounds */

            grid_quaternion (row * grid_n + c, grid_n, q);
            quat_matrix (q, U);
            nb_mat_transpose (U, Ut);
            nb_mat_mul (m->A0, Ut, M);
            for (int i = 0; i < n_inf; i++)
              {
                double h = M[0] * yx[i] + M[1] * yy[i] + M[2] * yz[i];
                double k = M[3] * yx[i] + M[4] * yy[i] + M[5] * yz[i];
                double l = M[6] * yx[i] + M[7] * yy[i] + M[8] * yz[i];
                double eh = h - ((h + magic) - magic), ek = k - ((k + magic) - magic),
                       el = l - ((l + magic) - magic);
                double d2 = eh * eh * m->G[0] + ek * ek * m->G[4] + el * el * m->G[8] +
                            2 * (eh * ek * m->G[1] + eh * el * m->G[2] + ek * el * m->G[5]);
                double r = d2 / tau2[i];

                count += r < 1.0;
                soft += r < 1.0 ? 1.0 - r : 0.0;
              }
            here.rank.score = count + soft / (n_inf + 1);
            here.rank.index = (long long) row * grid_n + c;
            if (thread_best_wants (&best, tid, &here))
              {
                memcpy (here.U, U, sizeof U);
                thread_best_keep (&best, tid, &here);
              }
          }
        if (tid == 0 && opt->refine.progress != NULL)
          {
            long done;

#pragma omp atomic read
            done = rows_done;
            opt->refine.progress (opt->refine.user, 0.5 * done / rows, "grid", 0.0);
          }
#pragma omp atomic update
        rows_done++;
      }
  }
  /* the grid's best 16 candidates alone go on */
  if (!stop)
    {
      const nb_candidate *hits = (const nb_candidate *) best.items;
      int n = thread_best_gather (&best, nthreads);

      for (int i = 0; i < n && !stop; i++)
        if (!candidates_add (out, hits[i].rank.score, hits[i].U, hits[i].rank.index))
          stop = 2;
    }
  thread_best_clear (&best);
  return stop == 1 ? -1 : stop == 2 ? -2 : 0;
}

/* ---- basis directions ---- */

typedef struct
{
  nb_rank rank; /* score: the periodicity functional; index: its point on the hemisphere */
  double t[3];  /* unit direction, lab frame */
} direction;

/* The periodicity of the peaks' projections on direction @t for a lattice
 * row of length @L (Angstrom): the mean of cos(2 pi L t.y) over the peaks
 * (1 when every peak has a whole index along it).  Peaks with L |y| above
 * @reach are left out (too fine for the direction's uncertainty). */
static double
periodicity (const nb_peak_vectors *pv, const double t[3], double L, double reach)
{
  double sum = 0;
  int used = 0;

  for (int i = 0; i < pv->n; i++)
    {
      const double *y = pv->y + 3 * i;

      if (L * nb_magnitude (y) > reach)
        continue;
      sum += cos (2.0 * M_PI * L * nb_dot (t, y));
      used++;
    }
  return used > 0 ? sum / used : 0.0;
}

/* The directions (up to @max_out) along which the peaks show the periodicity
 * of a lattice row of length @L: the best points of a Fibonacci hemisphere
 * @step apart, distinct (3 steps apart), each refined on finer local grids. */
static int
row_directions (const nb_peak_vectors *pv,
                double L,
                double step,
                int nthreads,
                direction *out,
                int max_out,
                const volatile int *cancel)
{
  long npts = (long) ceil (2.0 * M_PI / (step * step));
  double golden = M_PI * (3.0 - sqrt (5.0)), reach = 0.25 / step;
  int n_out = 0, stop = 0;
  thread_best best;

  if (!thread_best_init (&best, nthreads, 32 * max_out, sizeof (direction), by_rank))
    {
      thread_best_clear (&best);
      return -2;
    }
#pragma omp parallel num_threads(nthreads)
  {
    int tid = 0;

#ifdef _OPENMP
    tid = omp_get_thread_num ();
#endif
#pragma omp for schedule(dynamic, 4096)
    for (long i = 0; i < npts; i++)
      {
        double z = 1.0 - (i + 0.5) / npts, r = sqrt (1.0 - z * z), t[3];
        direction here;

        if ((i & 4095) == 0 && nb_cancelled (cancel))
          {
#pragma omp atomic write
            stop = 1;
          }
        t[0] = r * cos (golden * i);
        t[1] = r * sin (golden * i);
        t[2] = z;
        here.rank.score = periodicity (pv, t, L, reach);
        here.rank.index = i;
        if (thread_best_wants (&best, tid, &here))
          {
            memcpy (here.t, t, sizeof t);
            thread_best_keep (&best, tid, &here);
          }
      }
  }
  if (stop)
    {
      thread_best_clear (&best);
      return -1;
    }
  /* the distinct ones of the best 32 max_out, best first */
  {
    const direction *top = (const direction *) best.items;
    int total = thread_best_gather (&best, nthreads);

    for (int i = 0; i < total && n_out < max_out; i++)
      {
        int near = 0;

        for (int j = 0; j < n_out && !near; j++)
          near = fabs (nb_dot (top[i].t, out[j].t)) > cos (3 * step);
        if (!near)
          out[n_out++] = top[i];
      }
  }
  thread_best_clear (&best);

  /* each refined on local grids of ever finer spacing, with every peak */
  for (int i = 0; i < n_out; i++)
    {
      double h = step;

      for (int zoom = 0; zoom < 4; zoom++, h /= 3)
        {
          double u[3], v[3], t0[3], bestv = periodicity (pv, out[i].t, L, 1e9);

          memcpy (t0, out[i].t, sizeof t0);
          /* two directions perpendicular to t0 */
          u[0] = fabs (t0[0]) < 0.9 ? 1 : 0;
          u[1] = fabs (t0[0]) < 0.9 ? 0 : 1;
          u[2] = 0;
          nb_cross (t0, u, v);
          nb_unitize (v, v);
          nb_cross (v, t0, u);
          for (int a = -3; a <= 3; a++)
            for (int b = -3; b <= 3; b++)
              {
                double t[3], val;

                for (int k = 0; k < 3; k++)
                  t[k] = t0[k] + a * h * u[k] + b * h * v[k];
                nb_unitize (t, t);
                val = periodicity (pv, t, L, 1e9);
                if (val > bestv)
                  {
                    bestv = val;
                    memcpy (out[i].t, t, sizeof t);
                  }
              }
          out[i].rank.score = bestv;
        }
    }
  /* maxima that the refinement brought together count once */
  {
    int kept = 0;

    qsort (out, (size_t) n_out, sizeof *out, by_rank);
    for (int i = 0; i < n_out; i++)
      {
        int near = 0;

        for (int j = 0; j < kept && !near; j++)
          near = fabs (nb_dot (out[i].t, out[j].t)) > cos (step);
        if (!near)
          out[kept++] = out[i];
      }
    n_out = kept;
  }
  return n_out;
}

/* The rotation taking base frame (unit a0, unit a0 x b0) onto (unit va,
 * unit va x vb). */
static void
frame_rotation (
    const double a0[3], const double b0[3], const double va[3], const double vb[3], double U[9])
{
  double f[3][3], g[3][3];

  nb_unitize (a0, f[0]);
  nb_cross (a0, b0, f[1]);
  nb_unitize (f[1], f[1]);
  nb_cross (f[0], f[1], f[2]);
  nb_unitize (va, g[0]);
  nb_cross (va, vb, g[1]);
  nb_unitize (g[1], g[1]);
  nb_cross (g[0], g[1], g[2]);
  /* U = sum_k g_k f_k^T */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      U[3 * i + j] = g[0][i] * f[0][j] + g[1][i] * f[1][j] + g[2][i] * f[2][j];
}

static double
cosine (const double a[3], const double b[3])
{
  return nb_dot (a, b) / (nb_magnitude (a) * nb_magnitude (b));
}

/* Orientations whose real cell vectors lie along periodicity directions of
 * the peaks (the known-cell form of a real-space grid search): directions for
 * the lengths of a, b and c, combined into right-handed triplets with the
 * cell's angles (within 2 deg), each scored in reciprocal space and appended
 * to @out. */
int
nb_basis_candidates (const nb_model *m,
                     const nb_peak_vectors *pv,
                     double step,
                     int nthreads,
                     const volatile int *cancel,
                     nb_candidates *out)
{
  enum
  {
    MAX_DIR = 48
  };
  direction dirs[3][MAX_DIR];
  int nd[3];
  long long triplet = 0;
  double L[3], cosang[3], tol = 2.0 / RTD;
  const double *base[3] = { m->A0, m->A0 + 3, m->A0 + 6 };

  for (int i = 0; i < 3; i++)
    L[i] = nb_magnitude (base[i]);
  cosang[0] = cosine (base[1], base[2]); /* alpha */
  cosang[1] = cosine (base[0], base[2]); /* beta */
  cosang[2] = cosine (base[0], base[1]); /* gamma */
  for (int i = 0; i < 3; i++)
    {
      int same = -1;

      for (int j = 0; j < i; j++)
        if (fabs (L[j] - L[i]) < 1e-3 * L[i])
          same = j;
      if (same >= 0)
        {
          memcpy (dirs[i], dirs[same], sizeof dirs[i]);
          nd[i] = nd[same];
          continue;
        }
      nd[i] = row_directions (pv, L[i], step, nthreads, dirs[i], MAX_DIR, cancel);
      if (nd[i] < 0)
        return nd[i];
    }
  for (int ia = 0; ia < nd[0]; ia++)
    for (int ib = 0; ib < nd[1]; ib++)
      for (int sb = -1; sb <= 1; sb += 2)
        {
          double va[3], vb[3];

          for (int k = 0; k < 3; k++)
            {
              va[k] = L[0] * dirs[0][ia].t[k];
              vb[k] = sb * L[1] * dirs[1][ib].t[k];
            }
          if (fabs (acos (fmax (-1, fmin (1, cosine (va, vb)))) -
                    acos (fmax (-1, fmin (1, cosang[2])))) > tol)
            continue;
          for (int ic = 0; ic < nd[2]; ic++)
            for (int sc = -1; sc <= 1; sc += 2)
              {
                double vc[3], axb[3], U[9];

                for (int k = 0; k < 3; k++)
                  vc[k] = sc * L[2] * dirs[2][ic].t[k];
                nb_cross (va, vb, axb);
                if (nb_dot (axb, vc) <= 0)
                  continue;
                if (fabs (acos (fmax (-1, fmin (1, cosine (va, vc)))) -
                          acos (fmax (-1, fmin (1, cosang[1])))) > tol ||
                    fabs (acos (fmax (-1, fmin (1, cosine (vb, vc)))) -
                          acos (fmax (-1, fmin (1, cosang[0])))) > tol)
                  continue;
                /* both signs of a: -a with -b is the 2-fold about c */
                for (int sa = -1; sa <= 1; sa += 2)
                  {
                    double ua[3], ub[3];

                    for (int k = 0; k < 3; k++)
                      {
                        ua[k] = sa * va[k];
                        ub[k] = sa * vb[k];
                      }
                    frame_rotation (base[0], base[1], ua, ub, U);
                    if (!candidates_add (out, nb_reciprocal_count (m, pv, U, 0.2 / RTD), U,
                                         BASIS_INDEX + triplet++))
                      return -2;
                  }
              }
        }
  return 0;
}
