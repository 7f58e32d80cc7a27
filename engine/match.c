/* match.c: peaks on a measured frame, reflections predicted from the plan's
 * geometry, the match score and the correlation in resolution shells.
 *
 * Prediction is the rotation method's (Kabsch, J. Appl. Cryst. 21 (1988)
 * 916; the form of DIALS' rotation-angle solver): with the crystal turned by
 * phi about the unit spindle e, a reciprocal-lattice vector r becomes
 * r(phi) = r_par + cos(phi) r_perp + sin(phi) e x r_perp, and it diffracts
 * where |k s0 + r(phi)| = k (k = 1/lambda), i.e.
 * s0.r_par + cos(phi) s0.r_perp + sin(phi) s0.(e x r_perp) = -|r|^2 / (2k).
 */
#include "nb-match-private.h"
#include "nb-private.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RTD (180.0 / M_PI)

/* ------------------------------------------------------------------------ */
/* Matrices                                                                  */

void
nb_mat_mul (const double a[9], const double b[9], double out[9])
{
  double t[9];

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      t[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
  memcpy (out, t, sizeof t);
}

void
nb_mat_transpose (const double a[9], double out[9])
{
  double t[9];

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      t[3 * j + i] = a[3 * i + j];
  memcpy (out, t, sizeof t);
}

/* The rotation -misset applies: about lab X, then Y, then Z (nb_rotate_xyz),
 * as a matrix: its columns are the rotated unit vectors. */
void
nb_mat_misset (const double misset[3], double out[9])
{
  for (int j = 0; j < 3; j++)
    {
      double v[3] = { j == 0, j == 1, j == 2 }, r[3];

      nb_rotate_xyz (v, misset[0], misset[1], misset[2], r);
      out[j] = r[0];
      out[3 + j] = r[1];
      out[6 + j] = r[2];
    }
}

/* The inverse of nb_mat_misset: U = Rz(z) Ry(y) Rx(x), so U[2][0] = -sin y,
 * U[2][1] = cos y sin x, U[2][2] = cos y cos x, U[1][0] = sin z cos y,
 * U[0][0] = cos z cos y.  At y = +-90 deg only x - z (or x + z) is defined;
 * x = 0 is taken. */
void
nb_mat_to_misset (const double U[9], double misset[3])
{
  double sy = -U[6];

  if (sy > 1.0)
    sy = 1.0;
  if (sy < -1.0)
    sy = -1.0;
  misset[1] = asin (sy);
  if (fabs (sy) < 1.0 - 1e-12)
    {
      misset[0] = atan2 (U[7], U[8]);
      misset[2] = atan2 (U[3], U[0]);
    }
  else
    {
      /* U[0][1] = cos z sin y sin x - sin z cos x, U[1][1] = sin z sin y sin x + cos z cos x */
      misset[0] = 0.0;
      misset[2] = atan2 (-U[1], U[4]);
    }
}

/* exp([w]x): rotation by |w| about w (Rodrigues). */
void
nb_mat_rotvec (const double w[3], double out[9])
{
  double th = sqrt (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  double c, s, t, x, y, z;

  if (th < 1e-300)
    {
      static const double id[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };

      memcpy (out, id, sizeof id);
      return;
    }
  x = w[0] / th;
  y = w[1] / th;
  z = w[2] / th;
  c = cos (th);
  s = sin (th);
  t = 1.0 - c;
  out[0] = t * x * x + c;
  out[1] = t * x * y - s * z;
  out[2] = t * x * z + s * y;
  out[3] = t * x * y + s * z;
  out[4] = t * y * y + c;
  out[5] = t * y * z - s * x;
  out[6] = t * x * z - s * y;
  out[7] = t * y * z + s * x;
  out[8] = t * z * z + c;
}

/* The angle of the rotation a b^T (rad). */
double
nb_mat_angle (const double a[9], const double b[9])
{
  double bt[9], r[9], c;

  nb_mat_transpose (b, bt);
  nb_mat_mul (a, bt, r);
  c = (r[0] + r[4] + r[8] - 1.0) / 2.0;
  return acos (c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c);
}

static void
mat_vec (const double m[9], const double v[3], double out[3])
{
  double t0 = m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
  double t1 = m[3] * v[0] + m[4] * v[1] + m[5] * v[2];
  double t2 = m[6] * v[0] + m[7] * v[1] + m[8] * v[2];

  out[0] = t0;
  out[1] = t1;
  out[2] = t2;
}

/* v rotated by angle (cos @c, sin @s) about the unit axis @e. */
static void
rotate_about (const double e[3], double c, double s, const double v[3], double out[3])
{
  double par = nb_dot (e, v), cross[3];

  nb_cross (e, v, cross);
  for (int i = 0; i < 3; i++)
    out[i] = par * e[i] + c * (v[i] - par * e[i]) + s * cross[i];
}

/* ------------------------------------------------------------------------ */
/* The model                                                                 */

/* @p without what a prediction does not need: no files but -mat, one source,
 * one mosaic domain, no oversampling, the reference kernel (which prepares
 * no tables). */
static nb_status
stripped_params (nb_params *q, const nb_params *p, nb_error *err)
{
  nb_status st = nb_params_copy (q, p, err);
  char **strings[] = { &q->hkl_file,    &q->dump_file, &q->stol_file,
                       &q->source_file, &q->img_file,  &q->mask_file };

  if (st != NB_OK)
    return st;
  for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
    {
      free (*strings[i]);
      *strings[i] = NULL;
    }
  q->stol_kind = NB_STOL_NONE;
  if (q->default_F == 0.0)
    q->default_F = 1.0;
  q->mosaic_domains = 1;
  q->mosaic_spread = 0.0;
  q->dispersion = 0.0;
  q->dispsteps = -1;
  q->dispstep = -1;
  q->hdivrange = q->vdivrange = -1;
  q->hdivstep = q->vdivstep = -1;
  q->hdivsteps = q->vdivsteps = -1;
  q->oversample = 1;
  q->oversample_thick = q->oversample_polar = q->oversample_omega = 0;
  q->detector_thick = 0.0;
  q->detector_thicksteps = -1;
  q->water_size = 0.0;
  for (int i = 0; i < 4; i++)
    q->roi[i] = -1;
  q->precision = NB_PRECISION_EXACT;
  q->backend = NB_BACKEND_CPU;
  q->stats = 0;
  return NB_OK;
}

/* The largest |x| = 2 sin(theta) / lambda over the detector's corners. */
static double
corner_resolution (const nb_model *m)
{
  double best = 0.0;

  for (int c = 0; c < 4; c++)
    {
      double f = (c & 1) ? m->fpixels : 0, s = (c & 2) ? m->spixels : 0, pos[3], dir[3], x[3];

      for (int i = 0; i < 3; i++)
        pos[i] = m->pix0[i] + f * m->pixel * m->fdet[i] + s * m->pixel * m->sdet[i];
      nb_unitize (pos, dir);
      for (int i = 0; i < 3; i++)
        x[i] = m->k * (dir[i] - m->s0[i]);
      if (nb_magnitude (x) > best)
        best = nb_magnitude (x);
    }
  return best;
}

nb_status
nb_model_init (nb_model *m, const nb_params *p, const nb_predict_options *opt, nb_error *err)
{
  nb_predict_options defaults;
  nb_params q;
  nb_plan *plan = NULL;
  const nb_plan_info *in;
  double U0t[9], a[3][3];
  nb_status st;

  memset (m, 0, sizeof *m);
  if (opt == NULL)
    {
      nb_predict_options_init (&defaults);
      opt = &defaults;
    }
  if (p->cell[0] == 0.0 && p->mat_file == NULL)
    return nb_error_set (err, NB_ERR_INVALID,
                         "no unit cell: give -cell a b c alpha beta gamma or -mat FILE");
  if ((st = stripped_params (&q, p, err)) != NB_OK)
    return st;
  st = nb_plan_create (&q, &plan, err);
  if (st != NB_OK)
    {
      nb_params_clear (&q);
      return st;
    }
  in = nb_plan_get_info (plan);

  nb_unitize (in->beam, m->s0);
  m->k = 1.0 / (in->lambda0 * 1e10);
  nb_unitize (in->spindle, m->e);
  m->phi0 = in->phi0;
  m->osc = in->osc;
  m->phi_mid = in->phi0 + 0.5 * in->osc;
  memcpy (m->pix0, in->pix0, sizeof m->pix0);
  memcpy (m->fdet, in->fdet, sizeof m->fdet);
  memcpy (m->sdet, in->sdet, sizeof m->sdet);
  memcpy (m->odet, in->odet, sizeof m->odet);
  m->pixel = in->pixel_size;
  m->fpixels = in->fpixels;
  m->spixels = in->spixels;
  m->Fbeam = in->Fbeam;
  m->Sbeam = in->Sbeam;
  m->distance = in->distance;
  if (p->misset_random)
    {
      double mis[3];

      for (int i = 0; i < 3; i++)
        mis[i] = plan->xtal.misset_random_deg[i] / RTD;
      nb_mat_misset (mis, m->U0);
    }
  else
    nb_mat_misset (p->misset, m->U0);
  /* the cell at misset 0: the plan's vectors turned back */
  nb_mat_transpose (m->U0, U0t);
  mat_vec (U0t, in->a0, a[0]);
  mat_vec (U0t, in->b0, a[1]);
  mat_vec (U0t, in->c0, a[2]);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      m->A0[3 * i + j] = a[i][j] * 1e10;
  {
    double bc[3], ca[3], ab[3];

    nb_cross (m->A0 + 3, m->A0 + 6, bc);
    nb_cross (m->A0 + 6, m->A0, ca);
    nb_cross (m->A0, m->A0 + 3, ab);
    m->V = nb_dot (m->A0, bc);
    for (int j = 0; j < 3; j++)
      {
        m->B0[j] = bc[j] / m->V;
        m->B0[3 + j] = ca[j] / m->V;
        m->B0[6 + j] = ab[j] / m->V;
      }
    m->V = fabs (m->V);
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      m->G[3 * i + j] = nb_dot (m->B0 + 3 * i, m->B0 + 3 * j);

  if (opt->excitation >= 0)
    m->excitation = opt->excitation;
  else
    m->excitation = (p->mosaic_spread > 0 ? p->mosaic_spread : 0.0) + 0.05 / RTD;
  if (opt->spot_radius >= 0)
    m->spot_radius = opt->spot_radius;
  else
    {
      double widest = 0;

      for (int i = 0; i < 3; i++)
        {
          double n_cells = i == 0 ? p->Na : i == 1 ? p->Nb : p->Nc;
          double edge = nb_magnitude (m->A0 + 3 * i) * (n_cells > 1 ? n_cells : 1);

          if (1.0 / edge > widest)
            widest = 1.0 / edge;
        }
      /* the main lobe of the shape transform: sinc3's first zero, 1.43 / (N a) */
      m->spot_radius = 1.43 * widest;
    }
  m->s_max = opt->d_min > 0 ? 1.0 / opt->d_min : corner_resolution (m);
  if (m->s_max > 2.0 * m->k)
    m->s_max = 2.0 * m->k;
  nb_plan_destroy (plan);
  nb_params_clear (&q);
  if (!(m->V > 0) || !isfinite (m->V))
    return nb_error_set (err, NB_ERR_INVALID, "the unit cell has no volume");
  return NB_OK;
}

void
nb_model_shift (nb_model *m, double dD, double dF, double dS)
{
  for (int i = 0; i < 3; i++)
    m->pix0[i] += dD * m->s0[i] - dF * m->fdet[i] - dS * m->sdet[i];
  m->Fbeam += dF;
  m->Sbeam += dS;
  m->distance += dD;
}

/* Where the ray from the sample along @dir meets the detector plane, in
 * pixels; 0 when it does not (parallel, or behind the sample). */
static int
ray_to_pixel (const nb_model *m, const double dir[3], double *f, double *s)
{
  double den = nb_dot (dir, m->odet), t, pos[3];

  if (fabs (den) < 1e-12)
    return 0;
  t = nb_dot (m->pix0, m->odet) / den;
  if (!(t > 0))
    return 0;
  for (int i = 0; i < 3; i++)
    pos[i] = t * dir[i] - m->pix0[i];
  *f = nb_dot (pos, m->fdet) / m->pixel;
  *s = nb_dot (pos, m->sdet) / m->pixel;
  return 1;
}

/* The standard normal density and distribution. */
static double
normal_pdf (double x)
{
  return exp (-0.5 * x * x) / sqrt (2.0 * M_PI);
}

static double
normal_cdf (double x)
{
  return 0.5 * erfc (-x / M_SQRT2);
}

int
nb_model_predict (const nb_model *m,
                  const double U[9],
                  int h,
                  int k,
                  int l,
                  int gate,
                  double f[2],
                  double s[2],
                  double phi[2])
{
  double r0[3], r[3], par, rperp[3], w[3], a, b, c, rho, r2, base, delta;
  int n = 0;

  for (int i = 0; i < 3; i++)
    r0[i] = h * m->B0[i] + k * m->B0[3 + i] + l * m->B0[6 + i];
  mat_vec (U, r0, r);
  r2 = nb_dot (r, r);
  if (r2 == 0.0 || r2 > m->s_max * m->s_max * (1 + 1e-12))
    return 0;
  par = nb_dot (m->e, r);
  for (int i = 0; i < 3; i++)
    rperp[i] = r[i] - par * m->e[i];
  nb_cross (m->e, rperp, w);
  a = nb_dot (m->s0, rperp);
  b = nb_dot (m->s0, w);
  c = -r2 / (2.0 * m->k) - par * nb_dot (m->s0, m->e);
  rho = hypot (a, b);
  if (!(rho > 1e-15) || fabs (c) > rho)
    return 0;
  base = atan2 (b, a);
  delta = acos (c / rho);
  for (int sgn = -1; sgn <= 1; sgn += 2)
    {
      double ang = base + sgn * delta, cs, sn, s1[3], dr[3], speed, width, sigma, lo, hi, mean;

      if (sgn > 0 && delta == 0.0 && n > 0)
        continue;
      cs = cos (ang);
      sn = sin (ang);
      for (int i = 0; i < 3; i++)
        {
          s1[i] = m->k * m->s0[i] + par * m->e[i] + cs * rperp[i] + sn * w[i];
          dr[i] = cs * w[i] - sn * rperp[i]; /* dr/dphi = e x r(phi) */
        }
      /* The point crosses the sphere at speed s1/k . dr/dphi per radian: a point of radius
       * spot_radius touches it for spot_radius / speed either side (the Lorentz factor;
       * capped near the spindle, where the speed vanishes), widened by the excitation
       * (mosaic spread).  That contact is taken as a Gaussian in phi of 2 sigma = its
       * half-width. */
      speed = fabs (nb_dot (s1, dr)) / m->k;
      width = m->spot_radius > 0 ? m->spot_radius / (speed > 1e-9 ? speed : 1e-9) : 0;
      if (width > 0.1)
        width = 0.1;
      width = hypot (width, m->excitation);
      sigma = width > 1e-6 ? 0.5 * width : 0.5e-6;
      /* the crossing nearest the exposure */
      ang = m->phi0 + 0.5 * m->osc + remainder (ang - m->phi0 - 0.5 * m->osc, 2.0 * M_PI);
      lo = (m->phi0 - ang) / sigma;
      hi = (m->phi0 + m->osc - ang) / sigma;
      if (m->osc > 0)
        {
          /* recorded: the part of the profile inside the exposure, at least 2 % of it
           * (a crossing within the exposure widened by the half-width); its spot is where
           * the recorded part's mean angle puts the point (for a partial reflection,
           * towards the inside of the exposure; for the far tail of one, at the edge) */
          double part = normal_cdf (hi) - normal_cdf (lo);

          if (gate && !(part >= 0.02))
            continue;
          if (part > 1e-12)
            mean = ang + sigma * (normal_pdf (lo) - normal_pdf (hi)) / part;
          else
            mean = ang < m->phi0 ? m->phi0 : m->phi0 + m->osc;
        }
      else
        {
          /* a still: the point within its half-width of the sphere, seen where it is */
          if (gate && fabs (lo) > 2.0)
            continue;
          mean = m->phi0;
        }
      if (mean != ang)
        {
          /* the point at the mean angle, projected radially onto the sphere */
          double cm = cos (mean), sm = sin (mean);

          for (int i = 0; i < 3; i++)
            s1[i] = m->k * m->s0[i] + par * m->e[i] + cm * rperp[i] + sm * w[i];
        }
      if (ray_to_pixel (m, s1, &f[n], &s[n]))
        phi[n++] = ang;
    }
  return n;
}

void
nb_model_peak_vector (
    const nb_model *m, double f, double s, double radius, double y[3], double *tau0)
{
  double pos[3], dir[3], x[3], dist;

  for (int i = 0; i < 3; i++)
    pos[i] = m->pix0[i] + f * m->pixel * m->fdet[i] + s * m->pixel * m->sdet[i];
  dist = nb_unitize (pos, dir);
  for (int i = 0; i < 3; i++)
    x[i] = m->k * (dir[i] - m->s0[i]);
  /* back to phi = 0 */
  rotate_about (m->e, cos (-m->phi_mid), sin (-m->phi_mid), x, y);
  if (tau0 != NULL)
    *tau0 = m->k * radius * m->pixel / dist;
}

double
nb_model_nearest (
    const nb_model *m, const double U[9], double f, double s, int gate, int hkl[3], double spot[2])
{
  double y[3], Ut[9], y0[3], frac[3], best = INFINITY;
  int base[3];

  nb_model_peak_vector (m, f, s, 0.0, y, NULL);
  nb_mat_transpose (U, Ut);
  mat_vec (Ut, y, y0);
  mat_vec (m->A0, y0, frac);
  for (int i = 0; i < 3; i++)
    {
      if (!(fabs (frac[i]) < 1e6))
        return INFINITY;
      base[i] = (int) floor (frac[i] + 0.5);
    }
  for (int dh = -1; dh <= 1; dh++)
    for (int dk = -1; dk <= 1; dk++)
      for (int dl = -1; dl <= 1; dl++)
        {
          double pf[2], ps[2], ph[2];
          int h = base[0] + dh, k = base[1] + dk, l = base[2] + dl;
          int n = nb_model_predict (m, U, h, k, l, gate, pf, ps, ph);

          for (int j = 0; j < n; j++)
            {
              double d = hypot (pf[j] - f, ps[j] - s);

              if (d < best)
                {
                  best = d;
                  if (hkl != NULL)
                    {
                      hkl[0] = h;
                      hkl[1] = k;
                      hkl[2] = l;
                    }
                  if (spot != NULL)
                    {
                      spot[0] = pf[j];
                      spot[1] = ps[j];
                    }
                }
            }
        }
  return best;
}

/* ------------------------------------------------------------------------ */
/* Prediction                                                                */

void
nb_predict_options_init (nb_predict_options *opt)
{
  opt->excitation = -1.0;
  opt->spot_radius = -1.0;
  opt->d_min = 0.0;
  opt->on_detector = 1;
}

nb_status
nb_predict_reflections (const nb_params *p,
                        const nb_predict_options *opt,
                        nb_reflection **out,
                        size_t *n_out,
                        nb_error *err)
{
  nb_predict_options defaults;
  nb_model m;
  nb_reflection *list = NULL;
  size_t n = 0, cap = 0;
  int hmax[3];
  nb_status st;

  *out = NULL;
  *n_out = 0;
  if (opt == NULL)
    {
      nb_predict_options_init (&defaults);
      opt = &defaults;
    }
  if ((st = nb_model_init (&m, p, opt, err)) != NB_OK)
    return st;
  for (int i = 0; i < 3; i++)
    {
      double lim = nb_magnitude (m.A0 + 3 * i) * m.s_max;

      if (!(lim < 2000))
        return nb_error_set (err, NB_ERR_INVALID,
                             "prediction: Miller indices up to %g at this resolution (cell %g A, "
                             "d_min %g A): too many reflections",
                             lim, nb_magnitude (m.A0 + 3 * i), 1.0 / m.s_max);
      hmax[i] = (int) ceil (lim);
    }
  if ((double) (2 * hmax[0] + 1) * (2 * hmax[1] + 1) * (2 * hmax[2] + 1) > 2e9)
    return nb_error_set (err, NB_ERR_INVALID, "prediction: too many lattice points");

  for (int h = -hmax[0]; h <= hmax[0]; h++)
    for (int k = -hmax[1]; k <= hmax[1]; k++)
      for (int l = -hmax[2]; l <= hmax[2]; l++)
        {
          double f[2], s[2], phi[2];
          int got = nb_model_predict (&m, m.U0, h, k, l, 1, f, s, phi);

          for (int j = 0; j < got; j++)
            {
              double r0[3], r[3];

              if (opt->on_detector &&
                  !(f[j] >= 0 && s[j] >= 0 && f[j] < m.fpixels && s[j] < m.spixels))
                continue;
              if (n == cap)
                {
                  size_t grown = cap ? cap * 2 : 1024;
                  nb_reflection *bigger;

                  if (grown > 10000000)
                    {
                      free (list);
                      return nb_error_set (err, NB_ERR_INVALID,
                                           "prediction: more than 10 million reflections");
                    }
                  bigger = realloc (list, grown * sizeof *bigger);
                  if (bigger == NULL)
                    {
                      free (list);
                      return nb_error_set (err, NB_ERR_NOMEM, "out of memory predicting");
                    }
                  list = bigger;
                  cap = grown;
                }
              for (int i = 0; i < 3; i++)
                r0[i] = h * m.B0[i] + k * m.B0[3 + i] + l * m.B0[6 + i];
              mat_vec (m.U0, r0, r);
              list[n].h = h;
              list[n].k = k;
              list[n].l = l;
              list[n].f = f[j];
              list[n].s = s[j];
              list[n].phi = phi[j];
              list[n].d = 1.0 / nb_magnitude (r);
              n++;
            }
        }
  *out = list;
  *n_out = n;
  return NB_OK;
}

/* ------------------------------------------------------------------------ */
/* Peaks                                                                     */

void
nb_peak_options_init (nb_peak_options *opt)
{
  opt->max_peaks = 50;
  opt->min_height = 3.0;
  opt->sigmas = 3.0;
  opt->min_pixels = 2;
  opt->separation = 4;
  opt->block = 32;
  opt->edge = 1;
  opt->box = 2;
}

/* The @k-th smallest of @v (@n values; reordered): Hoare's selection. */
static int32_t
select_kth (int32_t *v, size_t n, size_t k)
{
  size_t lo = 0, hi = n - 1;

  while (lo < hi)
    {
      int32_t pivot = v[lo + (hi - lo) / 2];
      size_t i = lo, j = hi;

      while (i <= j)
        {
          while (v[i] < pivot)
            i++;
          while (v[j] > pivot)
            j--;
          if (i <= j)
            {
              int32_t t = v[i];

              v[i] = v[j];
              v[j] = t;
              i++;
              if (j == 0)
                break;
              j--;
            }
        }
      if (k <= j)
        hi = j;
      else if (k >= i)
        lo = i;
      else
        break;
    }
  return v[k];
}

static int
by_intensity (const void *a, const void *b)
{
  const nb_peak *x = a, *y = b;

  if (x->intensity != y->intensity)
    return x->intensity > y->intensity ? -1 : 1;
  if (x->height != y->height)
    return x->height > y->height ? -1 : 1;
  if (x->spixel != y->spixel)
    return x->spixel < y->spixel ? -1 : 1;
  return x->fpixel < y->fpixel ? -1 : x->fpixel > y->fpixel;
}

nb_status
nb_find_peaks (
    const nb_frame *frame, const nb_peak_options *opt, nb_peak **peaks, int *n_out, nb_error *err)
{
  nb_peak_options defaults;
  int W, H, nbx, nby, e;
  double *bg = NULL;
  int32_t *tmp = NULL;
  nb_peak *cand = NULL;
  size_t n_cand = 0, cap = 0;
  int n_kept = 0;

  *peaks = NULL;
  *n_out = 0;
  if (opt == NULL)
    {
      nb_peak_options_init (&defaults);
      opt = &defaults;
    }
  if (frame == NULL || frame->counts == NULL || frame->mask == NULL || frame->fpixels < 1 ||
      frame->spixels < 1)
    return nb_error_set (err, NB_ERR_INVALID, "peak search: the frame holds no pixels");
  if (opt->max_peaks < 1 || opt->max_peaks > 1000000 || opt->block < 4 || opt->block > 4096 ||
      opt->edge < 0 || opt->edge > 64 || opt->separation < 0 || opt->separation > 1000 ||
      opt->min_pixels < 1 || opt->min_pixels > 9 || !(opt->min_height >= 0) ||
      !(opt->sigmas >= 0) || opt->box < 1 || opt->box > 16)
    return nb_error_set (err, NB_ERR_INVALID,
                         "peak search: options out of range (max_peaks %d, block %d, edge %d, "
                         "separation %d, min_pixels %d, box %d)",
                         opt->max_peaks, opt->block, opt->edge, opt->separation, opt->min_pixels,
                         opt->box);
  W = frame->fpixels;
  H = frame->spixels;
  e = opt->edge > 1 ? opt->edge : 1;
  nbx = (W + opt->block - 1) / opt->block;
  nby = (H + opt->block - 1) / opt->block;
  bg = malloc ((size_t) nbx * (size_t) nby * sizeof *bg);
  tmp = malloc ((size_t) opt->block * (size_t) opt->block * sizeof *tmp);
  if (bg == NULL || tmp == NULL)
    goto nomem;

  /* the background: each block's median over its valid pixels */
  for (int by = 0; by < nby; by++)
    for (int bx = 0; bx < nbx; bx++)
      {
        size_t m = 0;

        for (int s = by * opt->block; s < H && s < (by + 1) * opt->block; s++)
          for (int f = bx * opt->block; f < W && f < (bx + 1) * opt->block; f++)
            {
              size_t i = (size_t) s * W + f;

              if (frame->mask[i] == NB_PIXEL_VALID)
                tmp[m++] = frame->counts[i];
            }
        bg[(size_t) by * nbx + bx] = m > 0 ? select_kth (tmp, m, m / 2) : 0.0;
      }

  for (int s = e; s < H - e; s++)
    for (int f = e; f < W - e; f++)
      {
        size_t i = (size_t) s * W + f;
        double b, c, thr, floor_b, sum = 0, sf = 0, ss = 0, wsum = 0;
        int above = 0, is_max = 1, overloaded = 0;

        if (frame->mask[i] == NB_PIXEL_MASKED)
          continue;
        b = bg[(size_t) (s / opt->block) * nbx + f / opt->block];
        c = frame->counts[i];
        thr = opt->sigmas * sqrt (b > 1 ? b : 1);
        if (thr < opt->min_height)
          thr = opt->min_height;
        if (c - b < thr || c - b <= 0)
          continue;
        /* nothing masked nearby: gaps and dead pixels make false maxima */
        for (int ds = -opt->edge; ds <= opt->edge && is_max; ds++)
          for (int df = -opt->edge; df <= opt->edge; df++)
            if (frame->mask[i + (ptrdiff_t) ds * W + df] == NB_PIXEL_MASKED)
              {
                is_max = 0;
                break;
              }
        if (!is_max)
          continue;
        floor_b = sqrt (b) > 1 ? sqrt (b) : 1;
        for (int ds = -1; ds <= 1 && is_max; ds++)
          for (int df = -1; df <= 1; df++)
            {
              size_t j = i + (ptrdiff_t) ds * W + df;
              double cj = frame->counts[j], w = cj - b;

              if (frame->mask[j] == NB_PIXEL_MASKED)
                continue;
              /* a plateau's first pixel in raster order is its maximum */
              if (j != i && (cj > c || (cj == c && j < i)))
                {
                  is_max = 0;
                  break;
                }
              above += w >= floor_b;
            }
        if (!is_max || above < opt->min_pixels)
          continue;
        /* intensity and centroid over the box: a spot wider than 3 x 3 pixels, cut by a
         * small box, would have its centroid pulled to the maximum's pixel centre */
        for (int ds = -opt->box; ds <= opt->box; ds++)
          for (int df = -opt->box; df <= opt->box; df++)
            {
              size_t j;
              double w;

              if (s + ds < 0 || s + ds >= H || f + df < 0 || f + df >= W)
                continue;
              j = i + (ptrdiff_t) ds * W + df;
              if (frame->mask[j] == NB_PIXEL_MASKED)
                continue;
              w = frame->counts[j] - b;
              sum += w;
              if (w > 0)
                {
                  sf += w * (f + df + 0.5);
                  ss += w * (s + ds + 0.5);
                  wsum += w;
                }
              overloaded |= frame->mask[j] == NB_PIXEL_OVERLOAD;
            }
        if (!(wsum > 0))
          continue;
        if (n_cand == cap)
          {
            size_t grown = cap ? cap * 2 : 1024;
            nb_peak *bigger = realloc (cand, grown * sizeof *bigger);

            if (bigger == NULL)
              goto nomem;
            cand = bigger;
            cap = grown;
          }
        cand[n_cand++] = (nb_peak){ .f = sf / wsum,
                                    .s = ss / wsum,
                                    .fpixel = f,
                                    .spixel = s,
                                    .intensity = sum,
                                    .height = c - b,
                                    .background = b,
                                    .pixels = above,
                                    .overloaded = overloaded };
      }
  free (bg);
  free (tmp);
  bg = NULL;
  tmp = NULL;

  if (n_cand > 0)
    qsort (cand, n_cand, sizeof *cand, by_intensity);
  /* greedy suppression, strongest first; survivors packed at the front */
  for (size_t i = 0; i < n_cand && n_kept < opt->max_peaks; i++)
    {
      int near = 0;

      for (int j = 0; j < n_kept; j++)
        if (abs (cand[j].fpixel - cand[i].fpixel) < opt->separation &&
            abs (cand[j].spixel - cand[i].spixel) < opt->separation)
          {
            near = 1;
            break;
          }
      if (!near)
        cand[n_kept++] = cand[i];
    }
  if (n_kept == 0)
    {
      free (cand);
      cand = NULL;
    }
  *peaks = cand;
  *n_out = n_kept;
  return NB_OK;

nomem:
  free (bg);
  free (tmp);
  free (cand);
  return nb_error_set (err, NB_ERR_NOMEM, "peak search: out of memory");
}

int
nb_peaks_in_resolution (
    const nb_params *p, nb_peak *peaks, int n, double d_min, double d_max, nb_error *err)
{
  nb_predict_options opt;
  nb_model m;
  int kept = 0;

  nb_predict_options_init (&opt);
  if (nb_model_init (&m, p, &opt, err) != NB_OK)
    return -1;
  for (int i = 0; i < n; i++)
    {
      double y[3], s;

      nb_model_peak_vector (&m, peaks[i].f, peaks[i].s, 0.0, y, NULL);
      s = nb_magnitude (y);
      if (d_max > 0 && !(s * d_max >= 1.0))
        continue;
      if (d_min > 0 && !(s * d_min <= 1.0))
        continue;
      peaks[kept++] = peaks[i];
    }
  return kept;
}

/* ------------------------------------------------------------------------ */
/* Scores                                                                    */

void
nb_match_options_init (nb_match_options *opt)
{
  opt->radius = 3.0;
  nb_predict_options_init (&opt->predict);
}

nb_status
nb_match_peaks (const nb_params *p,
                const nb_peak *peaks,
                int n,
                const nb_match_options *opt,
                nb_match_result *res,
                nb_peak_match *detail,
                nb_error *err)
{
  nb_match_options defaults;
  nb_model m;
  double sum2 = 0, soft = 0, sigma;
  nb_status st;

  memset (res, 0, sizeof *res);
  if (opt == NULL)
    {
      nb_match_options_init (&defaults);
      opt = &defaults;
    }
  if (!(opt->radius > 0))
    return nb_error_set (err, NB_ERR_INVALID, "match radius %g pixels (allowed: > 0)", opt->radius);
  if ((st = nb_model_init (&m, p, &opt->predict, err)) != NB_OK)
    return st;
  sigma = opt->radius / 2.0;
  res->n_peaks = n > 0 ? n : 0;
  for (int i = 0; i < n; i++)
    {
      int hkl[3] = { 0, 0, 0 };
      double spot[2] = { NAN, NAN };
      double d = nb_model_nearest (&m, m.U0, peaks[i].f, peaks[i].s, 1, hkl, spot);

      if (d <= opt->radius)
        {
          res->n_matched++;
          sum2 += d * d;
        }
      if (isfinite (d))
        soft += exp (-d * d / (2 * sigma * sigma));
      if (detail != NULL)
        {
          detail[i].distance = d;
          detail[i].h = hkl[0];
          detail[i].k = hkl[1];
          detail[i].l = hkl[2];
          detail[i].f = spot[0];
          detail[i].s = spot[1];
        }
    }
  if (n > 0)
    {
      res->fraction = (double) res->n_matched / n;
      res->soft = soft / n;
    }
  res->rms_distance = res->n_matched > 0 ? sqrt (sum2 / res->n_matched) : 0.0;
  return NB_OK;
}

nb_status
nb_shell_correlation (const nb_plan_info *info,
                      const float *image,
                      const nb_frame *frame,
                      int n_shells,
                      nb_match_result *res,
                      nb_error *err)
{
  double s0[3], k, lo = INFINITY, hi = 0, v_lo, v_hi;
  double sx[NB_MAX_SHELLS + 1] = { 0 }, sy[NB_MAX_SHELLS + 1] = { 0 },
                            sxx[NB_MAX_SHELLS + 1] = { 0 }, syy[NB_MAX_SHELLS + 1] = { 0 },
                            sxy[NB_MAX_SHELLS + 1] = { 0 };
  long cnt[NB_MAX_SHELLS + 1] = { 0 };
  int W, H;
  float *res_map = NULL;

  if (frame == NULL || frame->counts == NULL || image == NULL || info == NULL)
    return nb_error_set (err, NB_ERR_INVALID, "shell correlation: no image or frame pixels");
  if (info->fpixels != frame->fpixels || info->spixels != frame->spixels)
    return nb_error_set (err, NB_ERR_INVALID,
                         "shell correlation: the simulation is %d x %d pixels, the frame %s %d "
                         "x %d",
                         info->fpixels, info->spixels, frame->path ? frame->path : "",
                         frame->fpixels, frame->spixels);
  if (n_shells < 1 || n_shells > NB_MAX_SHELLS)
    return nb_error_set (err, NB_ERR_INVALID, "shell correlation: %d shells (allowed: 1 to %d)",
                         n_shells, NB_MAX_SHELLS);
  W = info->fpixels;
  H = info->spixels;
  nb_unitize (info->beam, s0);
  k = 1.0 / (info->lambda0 * 1e10);
  res_map = nb_alloc_large ((size_t) W * (size_t) H * sizeof *res_map);
  if (res_map == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "shell correlation: out of memory");
  /* |x| = 2 sin(theta) / lambda at each pixel centre */
  for (int s = 0; s < H; s++)
    for (int f = 0; f < W; f++)
      {
        double pos[3], dir[3], x[3], q;

        for (int i = 0; i < 3; i++)
          pos[i] = info->pix0[i] + (f + 0.5) * info->pixel_size * info->fdet[i] +
                   (s + 0.5) * info->pixel_size * info->sdet[i];
        nb_unitize (pos, dir);
        for (int i = 0; i < 3; i++)
          x[i] = k * (dir[i] - s0[i]);
        q = nb_magnitude (x);
        res_map[(size_t) s * W + f] = (float) q;
        if (frame->mask[(size_t) s * W + f] == NB_PIXEL_VALID)
          {
            if (q < lo)
              lo = q;
            if (q > hi)
              hi = q;
          }
      }
  res->n_shells = n_shells;
  if (!(hi > lo))
    {
      for (int j = 0; j < n_shells; j++)
        res->shell_cc[j] = NAN;
      res->cc = NAN;
      free (res_map);
      return NB_OK;
    }
  /* equal reciprocal volumes: edges at equal steps of |x|^3 */
  v_lo = lo * lo * lo;
  v_hi = hi * hi * hi;
  for (size_t i = 0; i < (size_t) W * (size_t) H; i++)
    {
      double q, xv, yv;
      int j;

      if (frame->mask[i] != NB_PIXEL_VALID)
        continue;
      q = res_map[i];
      j = (int) ((q * q * q - v_lo) / (v_hi - v_lo) * n_shells);
      j = j < 0 ? 0 : j >= n_shells ? n_shells - 1 : j;
      xv = image[i];
      yv = frame->counts[i];
      for (int t = 0; t < 2; t++)
        {
          int at = t ? NB_MAX_SHELLS : j;

          sx[at] += xv;
          sy[at] += yv;
          sxx[at] += xv * xv;
          syy[at] += yv * yv;
          sxy[at] += xv * yv;
          cnt[at]++;
        }
    }
  for (int j = 0; j <= n_shells; j++)
    {
      int at = j == n_shells ? NB_MAX_SHELLS : j;
      double nn = cnt[at], cov, vx, vy, cc = NAN;

      if (nn >= 3)
        {
          cov = sxy[at] - sx[at] * sy[at] / nn;
          vx = sxx[at] - sx[at] * sx[at] / nn;
          vy = syy[at] - sy[at] * sy[at] / nn;
          if (vx > 0 && vy > 0)
            cc = cov / sqrt (vx * vy);
        }
      if (j == n_shells)
        res->cc = cc;
      else
        {
          double a = cbrt (v_lo + (v_hi - v_lo) * j / n_shells);
          double b = cbrt (v_lo + (v_hi - v_lo) * (j + 1) / n_shells);

          res->shell_cc[j] = cc;
          res->shell_pixels[j] = cnt[at];
          res->shell_d_max[j] = a > 0 ? 1.0 / a : INFINITY;
          res->shell_d_min[j] = 1.0 / b;
        }
    }
  free (res_map);
  return NB_OK;
}

nb_status
nb_match_frame (const nb_plan *plan,
                const float *image,
                const nb_frame *frame,
                const nb_peak *peaks,
                int n,
                const nb_match_options *opt,
                nb_match_result *res,
                nb_error *err)
{
  nb_match_result shells;
  nb_status st;

  st = nb_match_peaks (nb_plan_get_params (plan), peaks, n, opt, res, NULL, err);
  if (st != NB_OK)
    return st;
  st = nb_shell_correlation (nb_plan_get_info (plan), image, frame, 10, &shells, err);
  if (st != NB_OK)
    return st;
  res->n_shells = shells.n_shells;
  memcpy (res->shell_d_max, shells.shell_d_max, sizeof res->shell_d_max);
  memcpy (res->shell_d_min, shells.shell_d_min, sizeof res->shell_d_min);
  memcpy (res->shell_cc, shells.shell_cc, sizeof res->shell_cc);
  memcpy (res->shell_pixels, shells.shell_pixels, sizeof res->shell_pixels);
  res->cc = shells.cc;
  return NB_OK;
}
