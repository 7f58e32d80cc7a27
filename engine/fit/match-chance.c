/* match-chance.c: what chance gives for a match score, and how far the
 * score is from it.
 *
 * A peak matches when a predicted spot lies within the match radius of it.
 * Predictions dense enough to cover much of the detector match peaks
 * anywhere: a wrong cell on a frame of dense predictions (electron
 * diffraction, a large cell) scores well.  So every score comes with the
 * fraction of the area the peaks could have been found in (the unmasked
 * pixels within the peaks' resolution range) that lies within the radius of
 * some predicted spot, counted exactly on the pixel grid: the fraction peaks
 * placed at random would score.  The count of matched peaks is then judged
 * by the binomial upper tail against it.
 *
 * A fit chooses its orientation among many (a search among all of them), and
 * the best of many is better than chance more often; the p-value is
 * corrected (Bonferroni) by the number of orientations and detector
 * positions the fit could tell apart at the match radius (nb_model_trials).
 */
#include "nb-match-private.h"
#include "model/nb-model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* log10 P(X >= k), X binomial (n, p0): the terms from k up, summed in log
 * space around the largest (each from the last by the ratio of binomial
 * coefficients), so nothing underflows before the logarithm is taken. */
double
nb_binomial_log10_tail (int k, int n, double p0)
{
  double lp, lq, step, t, best, sum = 0;

  if (k <= 0)
    return 0.0;
  if (k > n || !(p0 > 0))
    return -INFINITY;
  if (p0 >= 1)
    return 0.0;
  lp = log (p0);
  lq = log1p (-p0);
  /* the term j = k: log C(n, k) + k log p0 + (n - k) log q */
  t = k * lp + (double) (n - k) * lq;
  for (int i = 1; i <= k; i++)
    t += log ((double) (n - k + i) / i);
  /* the largest term of the tail: the first, or the mode when the tail holds it */
  best = t;
  step = t;
  for (int j = k; j < n && j + 1 <= (n + 1) * p0; j++)
    {
      step += log ((double) (n - j) / (j + 1)) + lp - lq;
      if (step > best)
        best = step;
    }
  for (int j = k; j <= n; j++)
    {
      sum += exp (t - best);
      if (j < n)
        t += log ((double) (n - j) / (j + 1)) + lp - lq;
    }
  t = best + log (sum);
  return t > 0 ? 0.0 : t / M_LN10;
}

/* |x|^2 / (2 k^2) = 1 - cos(2 theta) at the point @pos of the detector (m,
 * from the sample): the resolution measure compared without square roots. */
static double
one_minus_cos (const double pos[3], const double s0[3])
{
  double len = sqrt (pos[0] * pos[0] + pos[1] * pos[1] + pos[2] * pos[2]);

  return len > 0 ? 1.0 - (pos[0] * s0[0] + pos[1] * s0[1] + pos[2] * s0[2]) / len : 0.0;
}

/* Marks in @covered (W x H) the pixels whose centres lie within @radius of
 * (@f, @s). */
static void
mark_disc (uint8_t *covered, int W, int H, double f, double s, double radius)
{
  int f0 = (int) ceil (f - radius - 0.5), f1 = (int) floor (f + radius - 0.5);
  int s0 = (int) ceil (s - radius - 0.5), s1 = (int) floor (s + radius - 0.5);
  double r2 = radius * radius;

  if (f0 < 0)
    f0 = 0;
  if (s0 < 0)
    s0 = 0;
  if (f1 > W - 1)
    f1 = W - 1;
  if (s1 > H - 1)
    s1 = H - 1;
  for (int j = s0; j <= s1; j++)
    {
      double ds = j + 0.5 - s;

      for (int i = f0; i <= f1; i++)
        {
          double df = i + 0.5 - f;

          if (df * df + ds * ds <= r2)
            covered[(size_t) j * W + i] = 1;
        }
    }
}

/* Whether nb_model_nearest() finds the spot of (@h, @k, @l) at (@f, @s) from
 * a peak there: it looks at the lattice points next to the one nearest the
 * peak's back-projection (in orientation U, @Ut its transpose).  A point far
 * off the Ewald sphere (a small crystal's wide spots) may be predicted where
 * the matcher never looks; the chance fraction counts what the matcher can
 * match. */
static int
findable (const nb_model *m, const double Ut[9], int panel, double f, double s, int h, int k, int l)
{
  double y[3], y0[3], frac[3];
  int hkl[3] = { h, k, l };

  nb_model_peak_vector (m, panel, f, s, 0.0, y, NULL);
  nb_rotate_umat (y, Ut, y0);
  nb_rotate_umat (y0, m->A0, frac);
  for (int i = 0; i < 3; i++)
    if (!(fabs (floor (frac[i] + 0.5) - hkl[i]) <= 1.0))
      return 0;
  return 1;
}

/* Predicts every reflection of @m in orientation @U with |x| within
 * [@x_lo, @x_hi] and marks its disc on every panel it reaches (@covered
 * holds the panels one after another), but for a spot on a pixel @mask
 * masks, which the matcher does not match either; returns how many spots
 * were marked, -1 when the lattice is too fine for any count. */
static long
mark_predictions (const nb_model *m,
                  const double U[9],
                  double x_lo,
                  double x_hi,
                  double radius,
                  const nb_spot_mask *mask,
                  uint8_t *covered)
{
  int hmax[3];
  long marked = 0;
  double Ut[9];
  double cm = cos (m->phi_mid), sm = sin (m->phi_mid), es0 = nb_dot (m->s0, m->e);
  /* a crossing is recorded within about a width (at most hypot(0.1, excitation) rad, as
   * nb_model_predict caps it) of the exposure: farther from the middle than this, none */
  double reach = 0.5 * m->osc + 1.1 * hypot (0.1, m->excitation) + 1e-6;

  for (int i = 0; i < 3; i++)
    {
      double lim = nb_magnitude (m->A0 + 3 * i) * x_hi;

      if (!(lim < 4000))
        return -1;
      hmax[i] = (int) ceil (lim);
    }
  if ((double) (2 * hmax[0] + 1) * (2 * hmax[1] + 1) * (2 * hmax[2] + 1) > 4e9)
    return -1;
  nb_mat_transpose (U, Ut);
  for (int h = -hmax[0]; h <= hmax[0]; h++)
    for (int k = -hmax[1]; k <= hmax[1]; k++)
      for (int l = -hmax[2]; l <= hmax[2]; l++)
        {
          double r[3], r2, f[2], s[2], phi[2];
          int got;

          for (int i = 0; i < 3; i++)
            r[i] = h * m->B0[i] + k * m->B0[3 + i] + l * m->B0[6 + i];
          r2 = nb_dot (r, r);
          if (r2 < x_lo * x_lo || r2 > x_hi * x_hi)
            continue;
          {
            /* nb_model_predict's crossing condition a cos phi + b sin phi = c: its left side
             * changes by at most rho per radian, so a point far from it at the middle of the
             * exposure cannot cross within reach (most points: trigonometry saved) */
            double ru[3], par, rperp[3], w[3], a, b, c;

            nb_rotate_umat (r, U, ru);
            par = nb_dot (m->e, ru);
            for (int i = 0; i < 3; i++)
              rperp[i] = ru[i] - par * m->e[i];
            nb_cross (m->e, rperp, w);
            a = nb_dot (m->s0, rperp);
            b = nb_dot (m->s0, w);
            c = -r2 / (2.0 * m->k) - par * es0;
            if (fabs (a * cm + b * sm - c) > hypot (a, b) * reach)
              continue;
          }
          /* on each panel's plane: a spot in a gap still covers the pixels of the panels
           * within the radius of it, as the matcher measures a peak's distance on its own
           * panel's plane */
          for (int p = 0, offset = 0; p < m->n_panels; p++)
            {
              int W = m->panels[p].fpixels, H = m->panels[p].spixels, pan[2] = { p, p };

              got = nb_model_predict (m, U, h, k, l, 1, pan, f, s, phi);
              for (int j = 0; j < got; j++)
                if (f[j] > -radius && s[j] > -radius && f[j] < W + radius && s[j] < H + radius &&
                    !nb_spot_masked (m, mask, p, f[j], s[j]) &&
                    findable (m, Ut, p, f[j], s[j], h, k, l))
                  {
                    mark_disc (covered + offset, W, H, f[j], s[j], radius);
                    marked++;
                  }
              offset += W * H;
            }
        }
  return marked;
}

/* The area of @c on every panel of @m: the pixels neither @frame (placed by
 * @base, @stride) nor the panels' masks (@panels, or NULL) mask within
 * [@q_lo, @q_hi] of 1 - cos(2 theta), and those of them @covered marks. */
static void
count_area (const nb_model *m,
            const nb_frame *frame,
            const size_t *base,
            const int *stride,
            const uint8_t *panels,
            const uint8_t *covered,
            double q_lo,
            double q_hi,
            nb_chance *c)
{
  long area = 0, hit = 0;

  for (int p = 0, offset = 0; p < m->n_panels; p++)
    {
      const nb_model_panel *d = &m->panels[p];
      int W = d->fpixels, H = d->spixels;

      for (int s = 0; s < H; s++)
        {
          double row[3];

          nb_model_position (m, p, 0.0, s + 0.5, row);
          for (int f = 0; f < W; f++)
            {
              size_t i = (size_t) offset + (size_t) s * W + f;
              double pos[3], q;

              if (frame != NULL &&
                  frame->mask[base[p] + (size_t) s * stride[p] + f] == NB_PIXEL_MASKED)
                continue;
              if (panels != NULL && panels[i])
                continue;
              for (int j = 0; j < 3; j++)
                pos[j] = row[j] + (f + 0.5) * d->pixel * d->fdet[j];
              q = one_minus_cos (pos, m->s0);
              if (q < q_lo || q > q_hi)
                continue;
              area++;
              hit += covered[i];
            }
        }
      offset += W * H;
    }
  c->area = area;
  c->covered = hit;
}

nb_status
nb_model_frame_check (const nb_model *m, const nb_frame *frame, nb_spot_mask *mask, nb_error *err)
{
  memset (mask, 0, sizeof *mask);
  if (frame == NULL)
    return NB_OK;
  if (frame->mask == NULL)
    return nb_error_set (err, NB_ERR_INVALID, "chance fraction: the frame %s has no mask",
                         frame->path != NULL ? frame->path : "");
  if (m->n_panels == 1 &&
      (frame->fpixels != m->panels[0].fpixels || frame->spixels != m->panels[0].spixels))
    return nb_error_set (err, NB_ERR_INVALID,
                         "chance fraction: the frame %s is %d x %d pixels, the detector %d x %d",
                         frame->path != NULL ? frame->path : "", frame->fpixels, frame->spixels,
                         m->panels[0].fpixels, m->panels[0].spixels);
  mask->frame = frame;
  return nb_model_frame_layout (m, frame, mask->base, mask->stride, err);
}

nb_status
nb_model_chance (const nb_model *m,
                 const double U[9],
                 const nb_frame *frame,
                 const nb_peak *peaks,
                 int n,
                 double radius,
                 nb_chance *c,
                 nb_error *err)
{
  return nb_model_chance_masked (m, U, frame, NULL, peaks, n, radius, c, err);
}

nb_status
nb_model_chance_masked (const nb_model *m,
                        const double U[9],
                        const nb_frame *frame,
                        const uint8_t *panels,
                        const nb_peak *peaks,
                        int n,
                        double radius,
                        nb_chance *c,
                        nb_error *err)
{
  double q_lo = INFINITY, q_hi = -INFINITY, x_lo, x_hi, margin = INFINITY;
  uint8_t *covered;
  size_t pixels = 0;
  nb_spot_mask mask;
  nb_status st;

  memset (c, 0, sizeof *c);
  c->d_max = c->d_min = NAN;
  if ((st = nb_model_frame_check (m, frame, &mask, err)) != NB_OK)
    return st;
  mask.panels = panels;
  if (n <= 0)
    return NB_OK;
  if ((st = nb_model_check_peaks (m, peaks, n, err)) != NB_OK)
    return st;
  /* the peaks' range, as 1 - cos(2 theta) */
  for (int i = 0; i < n; i++)
    {
      double pos[3], q;

      nb_model_position (m, peaks[i].panel, peaks[i].f, peaks[i].s, pos);
      q = one_minus_cos (pos, m->s0);
      q_lo = q < q_lo ? q : q_lo;
      q_hi = q > q_hi ? q : q_hi;
    }
  x_lo = m->k * sqrt (2 * q_lo);
  x_hi = m->k * sqrt (2 * q_hi);
  c->d_max = x_lo > 0 ? 1.0 / x_lo : INFINITY;
  c->d_min = x_hi > 0 ? 1.0 / x_hi : INFINITY;
  /* a spot within the radius of the area has |x| within this of the area's range: its ray
   * moves at least (distance / k) per unit of |x| on the detector (the farthest panel's) */
  for (int p = 0; p < m->n_panels; p++)
    {
      const nb_model_panel *d = &m->panels[p];
      double dmin = fabs (nb_dot (d->pix0, d->odet));
      double mp = dmin > 0 ? m->k * (radius + 1) * d->pixel / dmin : INFINITY;

      margin = mp < margin ? mp : margin;
      pixels += (size_t) d->fpixels * (size_t) d->spixels;
    }
  covered = calloc (pixels, 1);
  if (covered == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "chance fraction: out of memory");
  c->predicted =
      mark_predictions (m, U, fmax (0.0, x_lo - margin), fmin (m->s_max, x_hi + margin), radius,
                        mask.frame != NULL || panels != NULL ? &mask : NULL, covered);
  if (c->predicted < 0)
    {
      free (covered);
      return nb_error_set (err, NB_ERR_INVALID,
                           "chance fraction: Miller indices beyond 4000 at %g A: the cell is too "
                           "large for this resolution",
                           c->d_min);
    }
  count_area (m, frame, mask.base, mask.stride, panels, covered, q_lo, q_hi, c);
  free (covered);
  /* peaks at one resolution: the pixels of their ring are the area, and a ring of no pixel
   * centres (a single peak) counts as covered or not by the peaks themselves */
  c->fraction = c->area > 0 ? (double) c->covered / c->area : 1.0;
  return NB_OK;
}

double
nb_model_log10_p (const nb_model *m,
                  const double U[9],
                  const double shift[6],
                  const nb_frame *frame,
                  const nb_peak *peaks,
                  int n,
                  double radius,
                  int matched)
{
  nb_model moved = *m;
  nb_chance c;

  nb_model_shift (&moved, shift[0], shift[1], shift[2]);
  nb_model_turn (&moved, shift + 3);
  if (nb_model_chance (&moved, U, frame, peaks, n, radius, &c, NULL) != NB_OK)
    return NAN;
  return nb_binomial_log10_tail (matched, n, c.fraction);
}

void
nb_match_judge (nb_match_result *res, const nb_chance *c, double trials, double alpha)
{
  res->chance_fraction = c->fraction;
  res->chance_d_max = c->d_max;
  res->chance_d_min = c->d_min;
  res->chance_pixels = c->area;
  res->n_predicted = c->predicted;
  res->trials = trials;
  res->alpha = alpha;
  if (res->n_peaks <= 0)
    {
      res->log10_p = 0.0;
      res->p_value = 1.0;
      res->significant = 0;
      return;
    }
  res->log10_p = nb_binomial_log10_tail (res->n_matched, res->n_peaks, c->fraction);
  res->p_value = pow (10.0, res->log10_p);
  res->significant = res->log10_p + log10 (trials) < log10 (alpha);
}

/* The options of a match and of its chance (nb-match.h). */
void
nb_match_options_init (nb_match_options *opt)
{
  opt->radius = 3.0;
  nb_predict_options_init (&opt->predict);
  opt->frame = NULL;
  opt->alpha = 1e-3;
  opt->trials = 1.0;
}

nb_status
nb_match_chance (const nb_params *p,
                 const nb_peak *peaks,
                 int n,
                 const nb_match_options *opt,
                 nb_match_result *res,
                 nb_error *err)
{
  nb_match_options defaults;
  nb_model m;
  nb_chance c;
  uint8_t *masked = NULL;
  nb_status st;

  if (opt == NULL)
    {
      nb_match_options_init (&defaults);
      opt = &defaults;
    }
  if (!(opt->radius > 0) || !(opt->alpha > 0 && opt->alpha < 1) || !(opt->trials >= 1))
    return nb_error_set (err, NB_ERR_INVALID,
                         "match options out of range: radius %g pixels (> 0), alpha %g (0 to 1), "
                         "trials %g (>= 1)",
                         opt->radius, opt->alpha, opt->trials);
  if ((st = nb_model_init_masked (&m, p, &opt->predict, &masked, err)) != NB_OK)
    return st;
  st = nb_model_chance_masked (&m, m.U0, opt->frame, masked, peaks, n, opt->radius, &c, err);
  free (masked);
  if (st != NB_OK)
    return st;
  nb_match_judge (res, &c, opt->trials, opt->alpha);
  return NB_OK;
}

/* The fraction of all rotations (Haar measure) within angle @a of a given
 * one: (a - sin a) / pi. */
static double
rotation_ball (double a)
{
  if (a >= M_PI)
    return 1.0;
  /* a - sin a loses its digits for small a: its series */
  if (a < 1e-2)
    return a * a * a / 6.0 * (1.0 - a * a / 20.0) / M_PI;
  return (a - sin (a)) / M_PI;
}

/* The median of @v (@n >= 1; reordered). */
static double
median (double *v, int n)
{
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--)
      {
        double t = v[j];

        v[j] = v[j - 1];
        v[j - 1] = t;
      }
  return v[n / 2];
}

double
nb_model_trials (
    const nb_model *m, const nb_peak *peaks, int n, const nb_refine_options *opt, int whole_sphere)
{
  double *lever = malloc ((size_t) (n > 0 ? 2 * n : 1) * sizeof *lever), *x = lever + n;
  double radius = opt->match.radius, radial = 0, typical, tol_pos, tol_exc, tol, trials;

  if (lever == NULL || n <= 0)
    {
      free (lever);
      return 1.0;
    }
  /* a rotation by a moves a reciprocal-lattice point x by a |x|: its ray turns by a |x| / k
   * and its spot moves by a |x| L / k pixels (L the sample to spot distance): the lever in
   * pixels per radian of each peak */
  for (int i = 0; i < n; i++)
    {
      double pos[3], beam[3], L, pixel = m->panels[peaks[i].panel].pixel;

      nb_model_position (m, peaks[i].panel, peaks[i].f, peaks[i].s, pos);
      L = nb_magnitude (pos);
      x[i] = m->k * sqrt (2 * one_minus_cos (pos, m->s0));
      lever[i] = x[i] / m->k * L / pixel;
      /* the spot's distance from the beam centre (several panels: from the beam) */
      for (int j = 0; j < 3; j++)
        beam[j] = pos[j] - nb_dot (pos, m->s0) * m->s0[j];
      radial += m->n_panels == 1
                    ? hypot (peaks[i].f - m->Fbeam / pixel, peaks[i].s - m->Sbeam / pixel)
                    : nb_magnitude (beam) / pixel;
    }
  typical = median (lever, n);
  radial /= n;
  /* orientations a typical peak tells apart: by its spot's place (about the beam, it moves by
   * the radius), and by whether it diffracts at all (about axes across the beam, over its
   * excitation width, as nb_model_predict's: the spot size over the point's speed, and the
   * mosaic spread); the ball of all three, over the region the fit explores */
  tol_pos = typical > radius ? radius / typical : M_PI;
  {
    double xt = median (x, n);
    double by_size = xt > 0 ? fmin (m->spot_radius / xt, 0.1) : 0.1;

    tol_exc = hypot (by_size, m->excitation);
  }
  tol = cbrt (tol_pos * fmin (tol_pos, tol_exc) * fmin (tol_pos, tol_exc));
  free (lever);
  trials = (whole_sphere ? 1.0 : rotation_ball (opt->max_rotation)) / rotation_ball (tol);
  /* the beam centre moves every spot alike: a disc of max_beam_change over one of the radius */
  if (opt->refine_beam && opt->max_beam_change > radius)
    trials *= (opt->max_beam_change / radius) * (opt->max_beam_change / radius);
  /* the distance scales the spots' distances from the beam: a typical spot moves by the
   * radius for a change of distance * radius / its distance from the beam */
  /* a turn of the detector moves the spots by up to its angle times the distance */
  if (opt->refine_detector_rotation)
    {
      double step = radius * m->panels[0].pixel / m->distance;

      if (opt->max_detector_rotation > step)
        trials *= pow (opt->max_detector_rotation / step, 2);
    }
  if (opt->refine_distance && radial > radius)
    {
      double range = opt->max_distance_change > 0 ? opt->max_distance_change : 0.05 * m->distance;
      double step = m->distance * radius / radial;

      if (range > step)
        trials *= range / step;
    }
  return trials > 1.0 ? trials : 1.0;
}
