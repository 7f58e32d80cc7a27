/* crystal.c: unit cell, orientation (misset, -mat), crystal size, mosaic
 * domains and the per-step orientation tables.
 *
 * Source: nanoBragg.c main(), unit-cell block, -mat block, misset, crystal
 * size, mosaic_rotation_umat() loop, and the phi/mosaic rotations of the pixel
 * loop; physics.md §7, §8, §12.4, §13.3, §16.
 */
#include "params/nb-param-private.h"
#include "nb-model.h"
#include "base/nb-memory.h"
#include "base/nb-textfile.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

static void
clamp_angles (double *sin_a, double *cos_a)
{
  if (*sin_a > 1.0)
    *sin_a = 1.0;
  if (*sin_a < -1.0)
    *sin_a = -1.0;
  if (*cos_a * *cos_a > 1.0)
    *cos_a = 1.0;
}

/* The reference's warning where a sine or cosine of the cell's angles lies
 * beyond +-1.0000001 (a triclinic cell through Q-5 does this): @title, then
 * sin and cos of alpha, beta, gamma in @v with the reference's @labels. */
static void
warn_oddball (nb_log *log, const char *title, const char *const labels[6], const double v[6])
{
  int odd = 0;

  for (int k = 0; k < 6; k++)
    odd |= v[k] > 1.0000001 || v[k] < -1.0000001;
  if (!odd)
    return;
  nb_log_printf (log, "WARNING: %s:\n", title);
  for (int k = 0; k < 6; k++)
    nb_log_printf (log, "%s = %.25g\n", labels[k], v[k]);
}

/* the reference's labels, its typo in the first warning included */
static const char *const recip_labels_first[6] = { "sin(alpha_star)", "cos(alpha_star)",
                                                   "sin(beta_star) ", "cos(beta_star) ",
                                                   "sin(gamma_star)", "cos9gamma_star)" };
static const char *const recip_labels[6] = { "sin(alpha_star)", "cos(alpha_star)",
                                             "sin(beta_star) ", "cos(beta_star) ",
                                             "sin(gamma_star)", "cos(gamma_star)" };
static const char *const cell_labels[6] = { "sin_alpha", "cos_alpha", "sin_beta ",
                                            "cos_beta ", "sin_gamma", "cos_gamma" };

/* The reciprocal cell of -cell (Angstrom, radians), in the reference's frame
 * (a* along x, b* in the xy plane); *@la, *@lb, *@lc and *@V_cell get the
 * cell's lengths (missing ones as a) and volume. */
static nb_status
reciprocal_cell (nb_plan *plan,
                 double a_star[3],
                 double b_star[3],
                 double c_star[3],
                 double *la_out,
                 double *lb_out,
                 double *lc_out,
                 double *V_out,
                 nb_error *err)
{
  const nb_params *p = &plan->params;
  /* -cell, or the cell of the model given as -hkl (atomic-model.c) */
  const double *cell = p->cell[0] != 0.0 ? p->cell : plan->model_cell;
  double la = cell[0], lb = cell[1], lc = cell[2];
  double alpha = cell[3], beta = cell[4], gamma = cell[5];
  double V_cell, V_star, skew, aavg, sas, sbs, sgs, cas, cbs, cgs, as, bs, cs;

  if (!(la > 0) || !isfinite (la))
    return nb_error_set (err, NB_ERR_INVALID, "-cell: a = %g Angstrom must be positive", la);
  if (lb <= 0.0)
    lb = la;
  if (lc <= 0.0)
    lc = la;
  if (alpha <= 0.0)
    alpha = M_PI / 2;
  if (beta <= 0.0)
    beta = M_PI / 2;
  if (gamma <= 0.0)
    gamma = M_PI / 2;
  aavg = (alpha + beta + gamma) / 2;
  skew = sin (aavg) * sin (aavg - alpha) * sin (aavg - beta) * sin (aavg - gamma);
  if (skew < 0.0)
    skew = -skew;
  V_cell = 2.0 * la * lb * lc * sqrt (skew);
  if (V_cell <= 0.0)
    return nb_error_set (err, NB_ERR_INVALID,
                         "-cell %g %g %g %g %g %g: impossible unit cell (volume %g)", la, lb, lc,
                         alpha * NB_RTD, beta * NB_RTD, gamma * NB_RTD, V_cell);
  V_star = 1.0 / V_cell;
  as = lb * lc * sin (alpha) * V_star;
  bs = lc * la * sin (beta) * V_star;
  cs = la * lb * sin (gamma) * V_star;
  if (as <= 0.0 || bs <= 0.0 || cs <= 0.0)
    return nb_error_set (err, NB_ERR_INVALID, "-cell: impossible reciprocal cell lengths %g %g %g",
                         as, bs, cs);
  sas = la * V_star / bs / cs;
  sbs = lb * V_star / as / cs;
  sgs = lc * V_star / as / bs;
  cas = (cos (beta) * cos (gamma) - cos (alpha)) / (sin (beta) * sin (gamma));
  cbs = (cos (gamma) * cos (alpha) - cos (beta)) / (sin (gamma) * sin (alpha));
  cgs = (cos (alpha) * cos (beta) - cos (gamma)) / (sin (alpha) * sin (beta));
  warn_oddball (&plan->log, "oddball reciprocal cell angles", recip_labels_first,
                (const double[6]){ sas, cas, sbs, cbs, sgs, cgs });
  clamp_angles (&sas, &cas);
  clamp_angles (&sbs, &cbs);
  clamp_angles (&sgs, &cgs);
  a_star[0] = as;
  b_star[0] = bs * cgs;
  c_star[0] = cs * cbs;
  a_star[1] = 0.0;
  b_star[1] = bs * sgs;
  c_star[1] = cs * (cas - cbs * cgs) / sgs;
  a_star[2] = 0.0;
  b_star[2] = 0.0;
  if (p->physical)
    c_star[2] = V_star / (as * bs * sgs); /* Q-5 corrected: textbook c*_z */
  else
    c_star[2] = cs * V_cell / (la * lb * lc * sgs);
  *la_out = la;
  *lb_out = lb;
  *lc_out = lc;
  *V_out = V_cell;
  return NB_OK;
}

/* The cell as the reference prints it, its angles from the vectors; warns of
 * angles whose sine and cosine do not match (an odd -mat). */
static void
log_cell (nb_plan *plan,
          const double a[3],
          const double b[3],
          const double c[3],
          const double a_star[3],
          const double b_star[3],
          const double c_star[3],
          double V_cell,
          double V_star)
{
  nb_crystal *x = &plan->xtal;
  double A = nb_magnitude (a), B = nb_magnitude (b), C = nb_magnitude (c);
  double As = nb_magnitude (a_star), Bs = nb_magnitude (b_star), Cs = nb_magnitude (c_star);
  double sa = As * V_cell / B / C, sb = Bs * V_cell / A / C, sg = Cs * V_cell / A / B;
  double ca = nb_dot (b, c) / B / C, cb = nb_dot (a, c) / A / C, cg = nb_dot (a, b) / A / B;
  double sas = A * V_star / Bs / Cs, sbs = B * V_star / As / Cs, sgs = C * V_star / As / Bs;
  double cas = nb_dot (b_star, c_star) / Bs / Cs, cbs = nb_dot (a_star, c_star) / As / Cs;
  double cgs = nb_dot (a_star, b_star) / As / Bs;

  warn_oddball (&plan->log, "oddball cell angles", cell_labels,
                (const double[6]){ sa, ca, sb, cb, sg, cg });
  warn_oddball (&plan->log, "oddball reciprocal cell angles", recip_labels,
                (const double[6]){ sas, cas, sbs, cbs, sgs, cgs });
  clamp_angles (&sa, &ca);
  clamp_angles (&sb, &cb);
  clamp_angles (&sg, &cg);
  clamp_angles (&sas, &cas);
  clamp_angles (&sbs, &cbs);
  clamp_angles (&sgs, &cgs);
  x->cell_print[0] = A;
  x->cell_print[1] = B;
  x->cell_print[2] = C;
  x->cell_print[3] = atan2 (sa, ca) * NB_RTD;
  x->cell_print[4] = atan2 (sb, cb) * NB_RTD;
  x->cell_print[5] = atan2 (sg, cg) * NB_RTD;
  x->recip_print[0] = As;
  x->recip_print[1] = Bs;
  x->recip_print[2] = Cs;
  x->recip_print[3] = atan2 (sas, cas) * NB_RTD;
  x->recip_print[4] = atan2 (sbs, cbs) * NB_RTD;
  x->recip_print[5] = atan2 (sgs, cgs) * NB_RTD;
  nb_log_printf (&plan->log, "Unit Cell: %g %g %g %g %g %g\n", A, B, C, x->cell_print[3],
                 x->cell_print[4], x->cell_print[5]);
  nb_log_printf (&plan->log, "Recp Cell: %g %g %g %g %g %g\n", As, Bs, Cs, x->recip_print[3],
                 x->recip_print[4], x->recip_print[5]);
  nb_log_printf (&plan->log, "volume = %g A^3\n", V_cell);
  nb_log_printf (&plan->log, "real-space cell vectors (Angstrom):\n");
  nb_log_printf (&plan->log, "     %-10s  %-10s  %-10s\n", "a", "b", "c");
  for (int k = 0; k < 3; k++)
    nb_log_printf (&plan->log, "%c: %11.8f %11.8f %11.8f\n", "XYZ"[k], a[k], b[k], c[k]);
  nb_log_printf (&plan->log, "reciprocal-space cell vectors (Angstrom^-1):\n");
  nb_log_printf (&plan->log, "     %-10s  %-10s  %-10s\n", "a_star", "b_star", "c_star");
  for (int k = 0; k < 3; k++)
    nb_log_printf (&plan->log, "%c: %11.8f %11.8f %11.8f\n", "XYZ"[k], a_star[k], b_star[k],
                   c_star[k]);
}

nb_status
nb_crystal_setup (nb_plan *plan, nb_error *err)
{
  const nb_params *p = &plan->params;
  nb_crystal *x = &plan->xtal;
  double a_star[3] = { 0 }, b_star[3] = { 0 }, c_star[3] = { 0 };
  double a[3], b[3], c[3];
  double axb[3], bxc[3], cxa[3];
  double V_cell = 0.0, V_star;
  double la = 0, lb = 0, lc = 0;
  int user_cell = p->cell[0] != 0.0 || (p->mat_file == NULL && plan->model_cell[0] != 0.0);
  nb_status st;

  if (user_cell &&
      (st = reciprocal_cell (plan, a_star, b_star, c_star, &la, &lb, &lc, &V_cell, err)) != NB_OK)
    return st;

  if (p->mat_file != NULL)
    {
      const double *m = plan->mat;

      if (plan->mat_path == NULL || strcmp (plan->mat_path, p->mat_file) != 0)
        {
          double read[9];
          char *path;

          if ((st = nb_matrix_read (p->mat_file, read, err)) != NB_OK)
            return st;
          if ((path = strdup (p->mat_file)) == NULL)
            return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
          free (plan->mat_path);
          plan->mat_path = path;
          memcpy (plan->mat, read, sizeof read);
        }
      nb_log_printf (&plan->log, "reading %s\n", p->mat_file);
      for (int k = 0; k < 3; k++)
        {
          a_star[k] = m[3 * k + 0];
          b_star[k] = m[3 * k + 1];
          c_star[k] = m[3 * k + 2];
        }
      nb_scale (a_star, 1e-10 / p->lambda0, a_star);
      nb_scale (b_star, 1e-10 / p->lambda0, b_star);
      nb_scale (c_star, 1e-10 / p->lambda0, c_star);
    }
  else if (!user_cell)
    return nb_error_set (err, NB_ERR_USAGE,
                         "no unit cell: give -cell a b c alpha beta gamma or -mat FILE");

  if (p->misset_random)
    {
      double umat[9], mis[3];
      long seed = p->misset_seed;

      /* The reference passes 90.0 where radians are expected; kept in
       * both modes: any random orientation is as good as another. */
      nb_mosaic_rotation_umat (&plan->ran, 90.0f, &seed, umat);
      nb_umat2misset (umat, mis);
      for (int k = 0; k < 3; k++)
        x->misset_random_deg[k] = mis[k] * NB_RTD;
      nb_log_printf (&plan->log, "random orientation misset angles: %f %f %f deg\n",
                     mis[0] * NB_RTD, mis[1] * NB_RTD, mis[2] * NB_RTD);
      nb_rotate_xyz (a_star, mis[0], mis[1], mis[2], a_star);
      nb_rotate_xyz (b_star, mis[0], mis[1], mis[2], b_star);
      nb_rotate_xyz (c_star, mis[0], mis[1], mis[2], c_star);
    }
  else
    {
      nb_rotate_xyz (a_star, p->misset[0], p->misset[1], p->misset[2], a_star);
      nb_rotate_xyz (b_star, p->misset[0], p->misset[1], p->misset[2], b_star);
      nb_rotate_xyz (c_star, p->misset[0], p->misset[1], p->misset[2], c_star);
    }

  nb_cross (a_star, b_star, axb);
  nb_cross (b_star, c_star, bxc);
  nb_cross (c_star, a_star, cxa);
  V_star = nb_dot (a_star, bxc);
  if (user_cell)
    {
      nb_rescale (bxc, la / V_cell, bxc);
      nb_rescale (cxa, lb / V_cell, cxa);
      nb_rescale (axb, lc / V_cell, axb);
      V_star = 1.0 / V_cell;
    }
  if (!(V_star != 0.0) || !isfinite (V_star))
    return nb_error_set (err, NB_ERR_INVALID, "%s: the orientation matrix is singular",
                         p->mat_file ? p->mat_file : "-cell");
  V_cell = 1.0 / V_star;
  nb_scale (bxc, V_cell, a);
  nb_scale (cxa, V_cell, b);
  nb_scale (axb, V_cell, c);
  /* a matrix (over the wavelength) may describe any cell: the bound of -cell */
  if (p->mat_file != NULL)
    {
      const double edge[3] = { nb_magnitude (a), nb_magnitude (b), nb_magnitude (c) };

      for (int k = 0; k < 3; k++)
        if (!(edge[k] >= NB_CELL_LENGTH_MIN_A))
          return nb_error_set (err, NB_ERR_INVALID,
                               "%s: a cell edge of %g Angstrom at -lambda %g (allowed: at least "
                               "%g)",
                               p->mat_file, edge[k], p->lambda0 * 1e10, NB_CELL_LENGTH_MIN_A);
    }
  {
    double t[3];
    nb_cross (a, b, t);
    nb_scale (t, V_star, c_star);
    nb_cross (b, c, t);
    nb_scale (t, V_star, a_star);
    nb_cross (c, a, t);
    nb_scale (t, V_star, b_star);
  }
  memcpy (x->a_star, a_star, sizeof a_star);
  memcpy (x->b_star, b_star, sizeof b_star);
  memcpy (x->c_star, c_star, sizeof c_star);
  memcpy (x->a_A, a, sizeof a);
  memcpy (x->b_A, b, sizeof b);
  memcpy (x->c_A, c, sizeof c);
  x->V_cell = V_cell;

  log_cell (plan, a, b, c, a_star, b_star, c_star, V_cell, V_star);

  nb_scale (a, 1e-10, x->a0);
  nb_scale (b, 1e-10, x->b0);
  nb_scale (c, 1e-10, x->c0);

  x->Na = p->Na;
  x->Nb = p->Nb;
  x->Nc = p->Nc;
  return NB_OK;
}

/* Crystal size from -xtalsize (after beam clipping). */
void
nb_crystal_size (nb_plan *plan, double sample_x, double sample_y, double sample_z)
{
  nb_crystal *x = &plan->xtal;
  double A = nb_magnitude (x->a0), B = nb_magnitude (x->b0), C = nb_magnitude (x->c0);

  if (sample_x > 0)
    x->Na = ceil (sample_x / A);
  if (sample_y > 0)
    x->Nb = ceil (sample_y / B);
  if (sample_z > 0)
    x->Nc = ceil (sample_z / C);
  if (x->Na <= 1.0)
    x->Na = 1.0;
  if (x->Nb <= 1.0)
    x->Nb = 1.0;
  if (x->Nc <= 1.0)
    x->Nc = 1.0;
}

nb_status
nb_mosaic_setup (nb_plan *plan, nb_error *err)
{
  nb_crystal *x = &plan->xtal;
  long seed = plan->params.mosaic_seed;

  if (!nb_reserve (&x->umats, &x->cap_umats, (size_t) x->mosaic_domains * 9 * sizeof (double)))
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory for %d mosaic domains",
                         x->mosaic_domains);
  for (int m = 0; m < x->mosaic_domains; m++)
    {
      double *u = x->umats + 9 * m;

      nb_mosaic_rotation_umat (&plan->ran, (float) x->mosaic_spread, &seed, u);
      if (m == 0)
        {
          memset (u, 0, 9 * sizeof (double));
          u[0] = u[4] = u[8] = 1.0;
        }
    }
  nb_log_printf (&plan->log, "  created a total of %d mosaic domains\n", x->mosaic_domains);
  return NB_OK;
}

static void
fill_table (const nb_plan *plan, double *table, const double start[9], int physical)
{
  const nb_crystal *x = &plan->xtal;
  const double *u = plan->det.spindle;
  double cur[9];

  memcpy (cur, start, sizeof cur);
  for (int j = 0; j < x->phisteps; j++)
    {
      double phi = x->phi0 + x->phistep * j;

      if (phi != 0.0)
        {
          nb_rotate_axis (x->a0, u, phi, cur);
          nb_rotate_axis (x->b0, u, phi, cur + 3);
          nb_rotate_axis (x->c0, u, phi, cur + 6);
        }
      else if (physical)
        {
          memcpy (cur, x->a0, sizeof x->a0);
          memcpy (cur + 3, x->b0, sizeof x->b0);
          memcpy (cur + 6, x->c0, sizeof x->c0);
        }
      for (int m = 0; m < x->mosaic_domains; m++)
        {
          double *t = table + 9 * ((size_t) j * x->mosaic_domains + m);

          if (x->mosaic_spread > 0.0)
            {
              const double *U = x->umats + 9 * m;
              nb_rotate_umat (cur, U, t);
              nb_rotate_umat (cur + 3, U, t + 3);
              nb_rotate_umat (cur + 6, U, t + 6);
            }
          else
            memcpy (t, cur, 9 * sizeof (double));
        }
    }
}

/* The per-step tables, including the reference's phi = 0 carry-over:
 * a step whose angle is exactly 0 keeps the previous step's orientation, and
 * before the first rotation of the whole image that is the unrotated cell. */
nb_status
nb_orient_setup (nb_plan *plan, nb_error *err)
{
  const nb_crystal *x = &plan->xtal;
  nb_orient *o = &plan->orient;
  double start[9], last[9];
  int last_nonzero = -1;

  o->n = x->phisteps * x->mosaic_domains;
  if (!nb_reserve (&o->first, &o->cap_first, (size_t) o->n * 9 * sizeof (double)) ||
      !nb_reserve (&o->rest, &o->cap_rest, (size_t) o->n * 9 * sizeof (double)))
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory for orientation tables");
  memcpy (start, x->a0, sizeof x->a0);
  memcpy (start + 3, x->b0, sizeof x->b0);
  memcpy (start + 6, x->c0, sizeof x->c0);
  fill_table (plan, o->first, start, plan->params.physical);

  for (int j = 0; j < x->phisteps; j++)
    if (x->phi0 + x->phistep * j != 0.0)
      last_nonzero = j;
  if (last_nonzero < 0 || plan->params.physical)
    memcpy (last, start, sizeof last);
  else
    {
      double phi = x->phi0 + x->phistep * last_nonzero;
      nb_rotate_axis (x->a0, plan->det.spindle, phi, last);
      nb_rotate_axis (x->b0, plan->det.spindle, phi, last + 3);
      nb_rotate_axis (x->c0, plan->det.spindle, phi, last + 6);
    }
  fill_table (plan, o->rest, last, plan->params.physical);
  o->same = memcmp (o->first, o->rest, (size_t) o->n * 9 * sizeof (double)) == 0;
  return NB_OK;
}

void
nb_orient_free (nb_orient *o)
{
  free (o->first);
  free (o->rest);
  o->first = o->rest = NULL;
  o->cap_first = o->cap_rest = 0;
  o->n = 0;
}

void
nb_crystal_free (nb_crystal *c)
{
  free (c->umats);
  c->umats = NULL;
  c->cap_umats = 0;
}

/* ------------------------------------------------------------------------ */
/* Comparing cells                                                           */

static void
sort3 (double v[3])
{
  for (int i = 1; i < 3; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--)
      {
        double t = v[j];

        v[j] = v[j - 1];
        v[j - 1] = t;
      }
}

int
nb_cell_differs (const double a[6], const double b[6])
{
  double ea[3], eb[3], aa[3], ab[3];

  for (int i = 0; i < 3; i++)
    {
      if (!(a[i] > 0) || !(b[i] > 0))
        return 0;
      ea[i] = a[i];
      eb[i] = b[i];
      aa[i] = a[3 + i];
      ab[i] = b[3 + i];
    }
  sort3 (ea);
  sort3 (eb);
  sort3 (aa);
  sort3 (ab);
  for (int i = 0; i < 3; i++)
    if (fabs (ea[i] - eb[i]) > 0.03 * eb[i] || fabs (aa[i] - ab[i]) > 3.0)
      return 1;
  return 0;
}
