/* predict.c: reflections predicted from a plan's geometry (the rotation
 * method's prediction, stills as its zero-range case).
 *
 * Taken unchanged from the measured-frames branch's match.c (commit fd85081,
 * "Match score, refinement and orientation search"), which writes the
 * predictor for matching measured frames; the viewer's Miller-index labels
 * need the same one for its stills and rotations.  When that branch lands,
 * match.c and this file hold one copy between them (see nb-predict.h).
 *
 * Prediction is the rotation method's (Kabsch, J. Appl. Cryst. 21 (1988)
 * 916; the form of DIALS' rotation-angle solver): with the crystal turned by
 * phi about the unit spindle e, a reciprocal-lattice vector r becomes
 * r(phi) = r_par + cos(phi) r_perp + sin(phi) e x r_perp, and it diffracts
 * where |k s0 + r(phi)| = k (k = 1/lambda), i.e.
 * s0.r_par + cos(phi) s0.r_perp + sin(phi) s0.(e x r_perp) = -|r|^2 / (2k).
 *
 * Below the predictor, what matching and refinement ask of the model (a
 * peak's lattice vector, the nearest predicted spot, a moved detector) and
 * the matrix helpers: match.c, match-chance.c and refine.c call down into
 * this file, never the other way.
 */
#include "nb-predict-private.h"
#include "model/nb-model.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RTD (180.0 / M_PI)

/* ------------------------------------------------------------------------ */
/* Matrices                                                                  */

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

/* The largest |x| = 2 sin(theta) / lambda over the corners of the
 * detector's panels. */
static double
corner_resolution (const nb_model *m)
{
  double best = 0.0;

  for (int p = 0; p < m->n_panels; p++)
    for (int c = 0; c < 4; c++)
      {
        const nb_model_panel *d = &m->panels[p];
        double f = (c & 1) ? d->fpixels : 0, s = (c & 2) ? d->spixels : 0, pos[3], dir[3], x[3];

        nb_model_position (m, p, f, s, pos);
        nb_unitize (pos, dir);
        for (int i = 0; i < 3; i++)
          x[i] = m->k * (dir[i] - m->s0[i]);
        if (nb_magnitude (x) > best)
          best = nb_magnitude (x);
      }
  return best;
}

/* The panels of @plan into @m (one without a -detector model). */
static nb_status
model_panels (nb_model *m, const nb_plan *plan, nb_error *err)
{
  const nb_plan_info *in = nb_plan_get_info (plan);
  const nb_detector_model *det = nb_plan_get_detector_model (plan);
  int n = in->n_panels > 0 ? in->n_panels : 1;

  if (n > NB_MODEL_PANELS_MAX)
    return nb_error_set (err, NB_ERR_INVALID,
                         "prediction: the detector has %d panels, at most %d are matched", n,
                         NB_MODEL_PANELS_MAX);
  m->n_panels = n;
  if (det != NULL)
    {
      m->data_fpixels = det->data_fpixels;
      m->data_spixels = det->data_spixels;
    }
  for (int p = 0; p < n; p++)
    {
      nb_model_panel *d = &m->panels[p];
      nb_plan_info pi;
      nb_status st = nb_plan_get_panel_info (plan, p, &pi, err);

      if (st != NB_OK)
        return st;
      memcpy (d->pix0, pi.pix0, sizeof d->pix0);
      memcpy (d->fdet, pi.fdet, sizeof d->fdet);
      memcpy (d->sdet, pi.sdet, sizeof d->sdet);
      memcpy (d->odet, pi.odet, sizeof d->odet);
      d->pixel = pi.pixel_size;
      d->fpixels = pi.fpixels;
      d->spixels = pi.spixels;
      d->data_origin_f = det != NULL ? det->panels[p].data_origin_f : -1;
      d->data_origin_s = det != NULL ? det->panels[p].data_origin_s : -1;
      d->offset = p > 0 ? m->panels[p - 1].offset +
                              (size_t) m->panels[p - 1].fpixels * (size_t) m->panels[p - 1].spixels
                        : 0;
    }
  return NB_OK;
}

/* The masks of @plan's -detector model's panels, laid out as @m's panels,
 * into *@masked (NULL when none has one). */
static nb_status
model_masks (const nb_model *m, const nb_plan *plan, uint8_t **masked, nb_error *err)
{
  const nb_detector_model *det = nb_plan_get_detector_model (plan);
  const nb_model_panel *last = &m->panels[m->n_panels - 1];
  int any = 0;

  *masked = NULL;
  for (int p = 0; det != NULL && p < det->n_panels && p < m->n_panels; p++)
    any |= det->panels[p].mask != NULL;
  if (!any)
    return NB_OK;
  *masked = calloc (last->offset + (size_t) last->fpixels * (size_t) last->spixels, 1);
  if (*masked == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "prediction: out of memory for the panels' masks");
  for (int p = 0; p < det->n_panels && p < m->n_panels; p++)
    if (det->panels[p].mask != NULL && det->panels[p].fpixels == m->panels[p].fpixels &&
        det->panels[p].spixels == m->panels[p].spixels)
      memcpy (*masked + m->panels[p].offset, det->panels[p].mask,
              (size_t) m->panels[p].fpixels * (size_t) m->panels[p].spixels);
  return NB_OK;
}

nb_status
nb_model_init (nb_model *m, const nb_params *p, const nb_predict_options *opt, nb_error *err)
{
  return nb_model_init_masked (m, p, opt, NULL, err);
}

nb_status
nb_model_init_masked (
    nb_model *m, const nb_params *p, const nb_predict_options *opt, uint8_t **masked, nb_error *err)
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
  if (masked != NULL)
    *masked = NULL;
  if ((st = model_panels (m, plan, err)) != NB_OK ||
      (masked != NULL && (st = model_masks (m, plan, masked, err)) != NB_OK))
    {
      nb_plan_destroy (plan);
      nb_params_clear (&q);
      return st;
    }
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
  nb_rotate_umat (in->a0, U0t, a[0]);
  nb_rotate_umat (in->b0, U0t, a[1]);
  nb_rotate_umat (in->c0, U0t, a[2]);
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
    {
      if (masked != NULL)
        {
          free (*masked);
          *masked = NULL;
        }
      return nb_error_set (err, NB_ERR_INVALID, "the unit cell has no volume");
    }
  return NB_OK;
}

int
nb_spot_masked (const nb_model *m, const nb_spot_mask *mask, int panel, double f, double s)
{
  const nb_model_panel *d;
  int pf, ps;

  if (mask == NULL || panel < 0 || panel >= m->n_panels)
    return 0;
  d = &m->panels[panel];
  if (!(f >= 0 && s >= 0 && f < d->fpixels && s < d->spixels))
    return 0;
  pf = (int) f;
  ps = (int) s;
  if (mask->panels != NULL && mask->panels[d->offset + (size_t) ps * d->fpixels + pf])
    return 1;
  return mask->frame != NULL &&
         mask->frame->mask[mask->base[panel] + (size_t) ps * mask->stride[panel] + pf] ==
             NB_PIXEL_MASKED;
}
/* Where the ray from the sample along @dir meets the plane of panel @d, in
 * pixels; 0 when it does not (parallel, or behind the sample). */
static int
ray_to_pixel (const nb_model_panel *d, const double dir[3], double *f, double *s)
{
  double den = nb_dot (dir, d->odet), t, pos[3];

  if (fabs (den) < 1e-12)
    return 0;
  t = nb_dot (d->pix0, d->odet) / den;
  if (!(t > 0))
    return 0;
  for (int i = 0; i < 3; i++)
    pos[i] = t * dir[i] - d->pix0[i];
  *f = nb_dot (pos, d->fdet) / d->pixel;
  *s = nb_dot (pos, d->sdet) / d->pixel;
  return 1;
}

/* Where the ray along @dir meets the detector of @m: on panel *@panel's
 * plane when it is >= 0, else (nb_model_predict's -1) on the panel whose
 * pixels it meets, that panel's index into *@panel.  0 when it meets none
 * (a ray off a one-panel detector still meets its plane: 1, panel 0). */
static int
ray_to_panel (const nb_model *m, const double dir[3], int *panel, double *f, double *s)
{
  if (*panel >= 0)
    return ray_to_pixel (&m->panels[*panel], dir, f, s);
  if (m->n_panels == 1)
    {
      *panel = 0;
      return ray_to_pixel (&m->panels[0], dir, f, s);
    }
  for (int p = 0; p < m->n_panels; p++)
    {
      const nb_model_panel *d = &m->panels[p];

      if (ray_to_pixel (d, dir, f, s) && *f >= 0 && *s >= 0 && *f < d->fpixels && *s < d->spixels)
        {
          *panel = p;
          return 1;
        }
    }
  *f = *s = NAN;
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
                  int panel[2],
                  double f[2],
                  double s[2],
                  double phi[2])
{
  double r0[3], r[3], par, rperp[3], w[3], a, b, c, rho, r2, base, delta;
  int n = 0, want = panel[0];

  for (int i = 0; i < 3; i++)
    r0[i] = h * m->B0[i] + k * m->B0[3 + i] + l * m->B0[6 + i];
  nb_rotate_umat (r0, U, r);
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
      panel[n] = want;
      if (ray_to_panel (m, s1, &panel[n], &f[n], &s[n]))
        phi[n++] = ang;
    }
  return n;
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
  nb_spot_mask mask = { 0 };
  uint8_t *masked = NULL;
  nb_status st;

  *out = NULL;
  *n_out = 0;
  if (opt == NULL)
    {
      nb_predict_options_init (&defaults);
      opt = &defaults;
    }
  if ((st = nb_model_init_masked (&m, p, opt, &masked, err)) != NB_OK)
    return st;
  mask.panels = masked;
  for (int i = 0; i < 3; i++)
    {
      double lim = nb_magnitude (m.A0 + 3 * i) * m.s_max;

      if (!(lim < 2000))
        {
          free (masked);
          return nb_error_set (err, NB_ERR_INVALID,
                               "prediction: Miller indices up to %g at this resolution (cell %g "
                               "A, d_min %g A): too many reflections",
                               lim, nb_magnitude (m.A0 + 3 * i), 1.0 / m.s_max);
        }
      hmax[i] = (int) ceil (lim);
    }
  if ((double) (2 * hmax[0] + 1) * (2 * hmax[1] + 1) * (2 * hmax[2] + 1) > 2e9)
    {
      free (masked);
      return nb_error_set (err, NB_ERR_INVALID, "prediction: too many lattice points");
    }

  for (int h = -hmax[0]; h <= hmax[0]; h++)
    for (int k = -hmax[1]; k <= hmax[1]; k++)
      for (int l = -hmax[2]; l <= hmax[2]; l++)
        {
          double f[2], s[2], phi[2];
          int pan[2] = { -1, -1 };
          int got = nb_model_predict (&m, m.U0, h, k, l, 1, pan, f, s, phi);

          for (int j = 0; j < got; j++)
            {
              double r0[3], r[3];

              /* on the detector: on a panel's pixels, and not on a pixel its mask masks (a
               * gap, a bad region) */
              if (opt->on_detector &&
                  (pan[j] < 0 ||
                   !(f[j] >= 0 && s[j] >= 0 && f[j] < m.panels[pan[j]].fpixels &&
                     s[j] < m.panels[pan[j]].spixels) ||
                   nb_spot_masked (&m, &mask, pan[j], f[j], s[j])))
                continue;
              if (n == cap)
                {
                  size_t grown = cap ? cap * 2 : 1024;
                  nb_reflection *bigger;

                  if (grown > 10000000)
                    {
                      free (list);
                      free (masked);
                      return nb_error_set (err, NB_ERR_INVALID,
                                           "prediction: more than 10 million reflections");
                    }
                  bigger = realloc (list, grown * sizeof *bigger);
                  if (bigger == NULL)
                    {
                      free (list);
                      free (masked);
                      return nb_error_set (err, NB_ERR_NOMEM, "out of memory predicting");
                    }
                  list = bigger;
                  cap = grown;
                }
              for (int i = 0; i < 3; i++)
                r0[i] = h * m.B0[i] + k * m.B0[3 + i] + l * m.B0[6 + i];
              nb_rotate_umat (r0, m.U0, r);
              list[n].h = h;
              list[n].k = k;
              list[n].l = l;
              list[n].f = f[j];
              list[n].s = s[j];
              list[n].phi = phi[j];
              list[n].d = 1.0 / nb_magnitude (r);
              list[n].panel = pan[j];
              n++;
            }
        }
  free (masked);
  *out = list;
  *n_out = n;
  return NB_OK;
}

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

void
nb_model_position (const nb_model *m, int panel, double f, double s, double pos[3])
{
  const nb_model_panel *d = &m->panels[panel];

  for (int i = 0; i < 3; i++)
    pos[i] = d->pix0[i] + f * d->pixel * d->fdet[i] + s * d->pixel * d->sdet[i];
}

void
nb_model_shift (nb_model *m, double dD, double dF, double dS)
{
  double v[3];

  for (int i = 0; i < 3; i++)
    v[i] = dD * m->s0[i] - dF * m->panels[0].fdet[i] - dS * m->panels[0].sdet[i];
  for (int p = 0; p < m->n_panels; p++)
    for (int i = 0; i < 3; i++)
      m->panels[p].pix0[i] += v[i];
  m->Fbeam += dF;
  m->Sbeam += dS;
  m->distance += dD;
}

void
nb_model_turn (nb_model *m, const double w[3])
{
  const nb_model_panel *d0 = &m->panels[0];
  double R[9], den = nb_dot (m->s0, d0->odet), centre[3] = { 0, 0, 0 };

  if (!(w[0] != 0 || w[1] != 0 || w[2] != 0))
    return;
  /* the pivot: the beam's point on panel 0's plane (the sample when the beam misses it) */
  if (fabs (den) > 1e-12)
    for (int i = 0; i < 3; i++)
      centre[i] = nb_dot (d0->pix0, d0->odet) / den * m->s0[i];
  nb_rotvec_matrix (w, R);
  for (int p = 0; p < m->n_panels; p++)
    {
      nb_model_panel *d = &m->panels[p];
      double rel[3];

      for (int i = 0; i < 3; i++)
        rel[i] = d->pix0[i] - centre[i];
      nb_rotate_umat (rel, R, d->pix0);
      for (int i = 0; i < 3; i++)
        d->pix0[i] += centre[i];
      nb_rotate_umat (d->fdet, R, rel);
      memcpy (d->fdet, rel, sizeof rel);
      nb_rotate_umat (d->sdet, R, rel);
      memcpy (d->sdet, rel, sizeof rel);
      nb_rotate_umat (d->odet, R, rel);
      memcpy (d->odet, rel, sizeof rel);
    }
  for (int i = 0; i < 3; i++)
    m->turn[i] += w[i];
}

void
nb_model_peak_vector (
    const nb_model *m, int panel, double f, double s, double radius, double y[3], double *tau0)
{
  double pos[3], dir[3], x[3], dist;

  nb_model_position (m, panel, f, s, pos);
  dist = nb_unitize (pos, dir);
  for (int i = 0; i < 3; i++)
    x[i] = m->k * (dir[i] - m->s0[i]);
  /* back to phi = 0 */
  rotate_about (m->e, cos (-m->phi_mid), sin (-m->phi_mid), x, y);
  if (tau0 != NULL)
    *tau0 = m->k * radius * m->panels[panel].pixel / dist;
}

double
nb_model_nearest (const nb_model *m,
                  const double U[9],
                  int panel,
                  double f,
                  double s,
                  int gate,
                  int hkl[3],
                  double spot[2])
{
  return nb_model_nearest_masked (m, U, panel, f, s, gate, NULL, hkl, spot);
}

double
nb_model_nearest_masked (const nb_model *m,
                         const double U[9],
                         int panel,
                         double f,
                         double s,
                         int gate,
                         const nb_spot_mask *mask,
                         int hkl[3],
                         double spot[2])
{
  double y[3], Ut[9], y0[3], frac[3], best = INFINITY;
  int base[3];

  nb_model_peak_vector (m, panel, f, s, 0.0, y, NULL);
  nb_mat_transpose (U, Ut);
  nb_rotate_umat (y, Ut, y0);
  nb_rotate_umat (y0, m->A0, frac);
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
          int pan[2] = { panel, panel };
          int n = nb_model_predict (m, U, h, k, l, gate, pan, pf, ps, ph);

          for (int j = 0; j < n; j++)
            {
              double d = hypot (pf[j] - f, ps[j] - s);

              if (d < best && !nb_spot_masked (m, mask, panel, pf[j], ps[j]))
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
