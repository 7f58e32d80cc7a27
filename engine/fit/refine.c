/* refine.c: refining the crystal orientation (and detector distance and beam
 * centre) against measured peaks, and searching all orientations for a known
 * cell from the candidates of orientations.c.
 *
 * Both maximise smooth versions of the match score with Nelder and Mead's
 * simplex (Comput. J. 7 (1965) 308; reflection 1, expansion 2, contraction
 * and shrink 1/2), over a rotation vector about the current orientation: first
 * in reciprocal space (each peak back-projected onto the Ewald sphere against
 * its nearest lattice point, within tolerances that narrow stage by stage),
 * then on the detector (the distance from each peak to the nearest predicted
 * spot), so that a start a degree or two off, where the spots do not yet
 * overlap, still finds its way.
 */
#include "nb-search-private.h"
#include "model/nb-model.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static double
seconds_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------ */
/* The objectives                                                            */

/* Parameter units: the simplex works in these, so that one unit of each
 * axis moves spots by comparable amounts. */
#define UNIT_ROT (0.1 / RTD) /* rad */

typedef struct
{
  const nb_model *base; /* the detector as the parameters give it */
  const nb_peak *peaks;
  int n;
  double U_origin[9]; /* where the refinement started: bounds count from it */
  double U_start[9];  /* the centre of this stage's simplex */
  double shift[6];    /* the detector's motion at the stage's centre: dD, dF, dS (m), then
                         the rotation vector of the whole detector (rad, nb_model_turn) */
  int use_dist, use_beam, use_turn, npar;
  double unit_dist, unit_beam; /* m per parameter unit */
  double max_rot, max_dist, max_beam, max_turn;
  double across[2][3]; /* unit axes normal to the beam and each other: the detector's turns */
  int mode;            /* 0: reciprocal space, 1: detector (Gaussian), 2: detector (truncated least
                   squares), 3: detector (least squares of the inliers) */
  double width;        /* mode 0: orientation uncertainty (rad); 1: spot distance sigma (pixels);
                   2: distance cut (pixels); 3: the distance unit (pixels) */
  unsigned char *inlier; /* mode 3: the peaks fitted */
  double radius;
  int evals;
  const volatile int *cancel;
  int stop;
} objective;

/* @m moved by @shift: its first three along the beam and panel 0's fast and
 * slow axes (nb_model_shift), then the rest turning the whole detector
 * (nb_model_turn). */
static void
move_model (nb_model *m, const double shift[6])
{
  nb_model_shift (m, shift[0], shift[1], shift[2]);
  nb_model_turn (m, shift + 3);
}

/* The orientation and detector of parameter vector @x. */
static void
objective_state (const objective *o, const double *x, double U[9], double shift[6])
{
  double w[3] = { x[0] * UNIT_ROT, x[1] * UNIT_ROT, x[2] * UNIT_ROT }, R[9];
  int j = 3;

  nb_rotvec_matrix (w, R);
  nb_mat_mul (R, o->U_start, U);
  memcpy (shift, o->shift, 6 * sizeof *shift);
  if (o->use_dist)
    shift[0] += x[j++] * o->unit_dist;
  if (o->use_beam)
    {
      shift[1] += x[j++] * o->unit_beam;
      shift[2] += x[j++] * o->unit_beam;
    }
  /* the turn across the beam only: one about the beam is the crystal's own turn about it
   * (rotating crystal and detector together about the beam changes no spot) */
  if (o->use_turn)
    {
      double a = x[j++] * UNIT_ROT, b = x[j++] * UNIT_ROT;

      for (int i = 0; i < 3; i++)
        shift[3 + i] += a * o->across[0][i] + b * o->across[1][i];
    }
}

/* A penalty outside the bounds (0 inside), growing with the excess. */
static double
objective_excess (const objective *o, const double U[9], const double shift[6])
{
  double ex = 0, a = nb_mat_angle (U, o->U_origin);

  if (a > o->max_rot)
    ex += (a - o->max_rot) / o->max_rot;
  if (fabs (shift[0]) > o->max_dist)
    ex += (fabs (shift[0]) - o->max_dist) / o->max_dist;
  for (int i = 1; i < 3; i++)
    if (fabs (shift[i]) > o->max_beam)
      ex += (fabs (shift[i]) - o->max_beam) / o->max_beam;
  if (o->use_turn)
    {
      double t = sqrt (shift[3] * shift[3] + shift[4] * shift[4] + shift[5] * shift[5]);

      if (t > o->max_turn)
        ex += (t - o->max_turn) / o->max_turn;
    }
  return ex;
}

/* The mean soft score (0..1) of orientation @U and detector @m: mode 0 in
 * reciprocal space with orientation uncertainty @width (rad), mode 1 on the
 * detector with sigma @width pixels, mode 2 truncated least squares of the
 * distances on the detector, cut at @width pixels. */
static double
soft_score (const nb_model *m,
            const double U[9],
            const nb_peak *peaks,
            int n,
            int mode,
            double width,
            double radius,
            const unsigned char *inlier)
{
  double sum = 0, Ut[9], M[9];
  int used = 0;

  nb_mat_transpose (U, Ut);
  nb_mat_mul (m->A0, Ut, M);
  for (int i = 0; i < n; i++)
    {
      if (mode == 0)
        {
          double y[3], tau0, frac[3], e[3], d2 = 0, yy, tau2;

          nb_model_peak_vector (m, peaks[i].panel, peaks[i].f, peaks[i].s, radius, y, &tau0);
          for (int r = 0; r < 3; r++)
            {
              frac[r] = M[3 * r] * y[0] + M[3 * r + 1] * y[1] + M[3 * r + 2] * y[2];
              e[r] = frac[r] - floor (frac[r] + 0.5);
            }
          for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
              d2 += e[r] * m->G[3 * r + c] * e[c];
          yy = nb_dot (y, y);
          tau2 =
              tau0 * tau0 + yy * ((0.5 * m->osc + m->excitation) * (0.5 * m->osc + m->excitation) +
                                  width * width);
          sum += exp (-d2 / (2 * tau2));
        }
      else
        {
          double d = nb_model_nearest (m, U, peaks[i].panel, peaks[i].f, peaks[i].s, 1, NULL, NULL);

          if (mode == 1 && isfinite (d))
            sum += exp (-d * d / (2 * width * width));
          /* mode 2: truncated least squares, 1 - min(d, width)^2 / width^2 */
          if (mode == 2 && d < width)
            sum += 1.0 - d * d / (width * width);
          /* mode 3: least squares over the inliers (bounded, so that one lost prediction
           * cannot run away with the sum) */
          if (mode == 3 && inlier[i])
            {
              double r2 = d * d / (width * width);

              sum -= r2 < 25.0 ? r2 : 25.0;
              used++;
            }
        }
    }
  if (mode == 3)
    return used > 0 ? 1.0 + sum / used : 0.0;
  return n > 0 ? sum / n : 0.0;
}

static double
objective_eval (const double *x, void *data)
{
  objective *o = data;
  double U[9], shift[6], ex;
  nb_model m;

  o->evals++;
  if (nb_cancelled (o->cancel))
    o->stop = 1;
  if (o->stop)
    return 0.0;
  objective_state (o, x, U, shift);
  ex = objective_excess (o, U, shift);
  if (ex > 0)
    return ex;
  m = *o->base;
  move_model (&m, shift);
  return -soft_score (&m, U, o->peaks, o->n, o->mode, o->width, o->radius, o->inlier);
}

/* Runs one stage (@mode, @width) from the objective's centre and moves the
 * centre to its result. */
static void
run_stage (objective *o, int mode, double width, int max_evals)
{
  double x[NB_NM_MAX] = { 0 }, step[NB_NM_MAX], fx, U[9], shift[6], rot;
  int j = 3;

  o->mode = mode;
  o->width = width;
  if (mode == 3)
    {
      /* the inliers: peaks within the width of a prediction at the stage's centre */
      nb_model m = *o->base;
      int count = 0;

      move_model (&m, o->shift);
      for (int i = 0; i < o->n; i++)
        {
          double d = nb_model_nearest (&m, o->U_start, o->peaks[i].panel, o->peaks[i].f,
                                       o->peaks[i].s, 1, NULL, NULL);

          o->inlier[i] = d < width;
          count += o->inlier[i];
        }
      if (count < 3)
        return;
    }
  /* a rotation that moves spots by about the stage's width */
  rot = mode == 0 ? width : width * o->base->panels[0].pixel / o->base->distance;
  if (rot < 0.002 / RTD)
    rot = 0.002 / RTD;
  for (int i = 0; i < 3; i++)
    step[i] = rot / UNIT_ROT;
  /* a distance change dD moves a spot at radius rho by rho dD / D: like a
   * relative error of the cell (mode 0), or by ~2 dD pixel/pixel at 2 theta ~ 27 deg */
  if (o->use_dist)
    step[j++] = (mode == 0 ? width * o->base->distance : 2.0 * width * o->base->panels[0].pixel) /
                o->unit_dist;
  if (o->use_beam)
    {
      double px = mode == 0 ? rot * o->base->distance / o->base->panels[0].pixel : width;

      step[j++] = px;
      step[j++] = px;
    }
  /* a turn of the detector moves spots as a turn of the crystal of the same size, at most */
  if (o->use_turn)
    for (int i = 0; i < 2; i++)
      step[j++] = rot / UNIT_ROT;
  for (int pass = 0; pass < 2 && !o->stop; pass++)
    {
      /* a second simplex from the first's result: one collapsed early recovers */
      nb_nelder_mead (objective_eval, o, o->npar, x, &fx, step, max_evals, 1e-3, 1e-9, &o->stop);
      for (int i = 0; i < o->npar; i++)
        step[i] *= 0.5;
    }
  objective_state (o, x, U, shift);
  if (objective_excess (o, U, shift) == 0)
    {
      memcpy (o->U_start, U, sizeof U);
      memcpy (o->shift, shift, sizeof shift);
    }
}

/* The match of orientation @U and detector shift @shift (peak part). */
static void
model_score (const nb_model *base,
             const double U[9],
             const double shift[6],
             const nb_peak *peaks,
             int n,
             double radius,
             nb_match_result *res)
{
  nb_model m = *base;
  double sum2 = 0, soft = 0, sigma = radius / 2;

  memset (res, 0, sizeof *res);
  move_model (&m, shift);
  res->n_peaks = n;
  for (int i = 0; i < n; i++)
    {
      double d = nb_model_nearest (&m, U, peaks[i].panel, peaks[i].f, peaks[i].s, 1, NULL, NULL);

      if (d <= radius)
        {
          res->n_matched++;
          sum2 += d * d;
        }
      if (isfinite (d))
        soft += exp (-d * d / (2 * sigma * sigma));
    }
  res->fraction = n > 0 ? (double) res->n_matched / n : 0;
  res->soft = n > 0 ? soft / n : 0;
  res->rms_distance = res->n_matched ? sqrt (sum2 / res->n_matched) : 0;
}

static int
better (const nb_match_result *a, const nb_match_result *b)
{
  if (a->n_matched != b->n_matched)
    return a->n_matched > b->n_matched;
  return a->soft > b->soft;
}

/* The stages of one refinement from orientation @U (in/out) and detector
 * shift @shift (in/out); *@res the match at the end.  Returns 0, or -1 when
 * cancelled. */
static int
refine_from (const nb_model *base,
             const nb_peak *peaks,
             int n,
             const nb_refine_options *opt,
             double U[9],
             double shift[6],
             nb_match_result *res,
             int *evals,
             double progress_lo,
             double progress_hi)
{
  objective o;
  double radius = opt->match.radius;
  const double recip[] = { 0.5, 0.2, 0.07, 0.02 };
  const double det[] = { 6.0, 3.0, 1.5 };
  int stages = 4 + 3 + 2, done = 0;
  unsigned char *inlier = calloc ((size_t) n, 1);
  nb_match_result start, end;

  memset (&o, 0, sizeof o);
  o.base = base;
  o.peaks = peaks;
  o.n = n;
  memcpy (o.U_origin, U, sizeof o.U_origin);
  memcpy (o.U_start, U, sizeof o.U_start);
  memcpy (o.shift, shift, sizeof o.shift);
  o.use_dist = opt->refine_distance;
  o.use_beam = opt->refine_beam;
  o.use_turn = opt->refine_detector_rotation;
  o.npar = 3 + o.use_dist + 2 * o.use_beam + 2 * o.use_turn;
  {
    /* any axis not along the beam, made normal to it, and the beam cross it */
    double t[3] = { 0, 0, 0 }, d;
    int k = fabs (base->s0[0]) < 0.9 ? 0 : 1;

    t[k] = 1.0;
    d = nb_dot (t, base->s0);
    for (int i = 0; i < 3; i++)
      t[i] -= d * base->s0[i];
    nb_unitize (t, o.across[0]);
    nb_cross (base->s0, o.across[0], o.across[1]);
  }
  o.unit_dist = 1e-3 * base->distance;
  o.unit_beam = base->panels[0].pixel;
  o.max_rot = opt->max_rotation;
  o.max_dist = opt->max_distance_change > 0 ? opt->max_distance_change : 0.05 * base->distance;
  o.max_beam = opt->max_beam_change * base->panels[0].pixel;
  o.max_turn = opt->max_detector_rotation;
  o.radius = radius;
  o.cancel = opt->cancel;
  o.inlier = inlier;

  model_score (base, U, shift, peaks, n, radius, &start);
  for (int s = 0; s < 4 && !o.stop; s++, done++)
    {
      run_stage (&o, 0, recip[s] * opt->max_rotation, opt->max_evaluations);
      if (opt->progress != NULL)
        opt->progress (opt->user, progress_lo + (progress_hi - progress_lo) * (done + 1) / stages,
                       "refine", start.fraction);
    }
  for (int s = 0; s < 3 + 2 && !o.stop; s++, done++)
    {
      if (s < 3)
        run_stage (&o, 1, det[s] * radius, opt->max_evaluations);
      else if (s == 3)
        run_stage (&o, 2, 0.5 * radius, opt->max_evaluations);
      else if (inlier != NULL) /* the last: least squares of the peaks that clearly match */
        run_stage (&o, 3, 0.5 * radius, opt->max_evaluations);
      if (opt->progress != NULL)
        opt->progress (opt->user, progress_lo + (progress_hi - progress_lo) * (done + 1) / stages,
                       "refine", start.fraction);
    }
  *evals += o.evals;
  free (inlier);
  if (o.stop)
    return -1;
  model_score (base, o.U_start, o.shift, peaks, n, radius, &end);
  /* never worse than where it started */
  if (better (&start, &end))
    {
      *res = start;
      return 0;
    }
  memcpy (U, o.U_start, 9 * sizeof *U);
  memcpy (shift, o.shift, 6 * sizeof *shift);
  *res = end;
  return 0;
}

/* The rotation vector (rad) of rotation matrix @R (row-major): its angle in
 * [0, pi] times its unit axis. */
static void
mat_to_rotvec (const double R[9], double w[3])
{
  double v[3] = { R[7] - R[5], R[2] - R[6], R[3] - R[1] }, n = nb_magnitude (v);
  double angle = atan2 (0.5 * n, 0.5 * (R[0] + R[4] + R[8] - 1.0));

  if (angle > M_PI - 1e-6 || (n == 0.0 && angle > 1.0))
    {
      /* a half turn: the axis from the diagonal, R = 2 e e^T - 1, signed by the largest */
      int k = R[0] >= R[4] && R[0] >= R[8] ? 0 : R[4] >= R[8] ? 1 : 2;
      double e[3];

      e[k] = sqrt (fmax (0.0, (R[4 * k] + 1.0) / 2.0));
      for (int i = 0; i < 3; i++)
        if (i != k)
          e[i] = (R[3 * i + k] + R[3 * k + i]) / (4.0 * e[k]);
      nb_unitize (e, e);
      for (int i = 0; i < 3; i++)
        w[i] = angle * e[i];
      return;
    }
  for (int i = 0; i < 3; i++)
    w[i] = n > 0.0 ? angle * v[i] / n : 0.5 * v[i];
}

/* The motion of the whole detector @shift (dD, dF, dS, turn: move_model) of
 * @m, composed with the motion the parameters @p already give its panels
 * (-detector_shift, -detector_rotation: x -> R0 x + t0), into @p: the panels
 * of @m are those of the file moved by (R0, t0); @shift moves them on by x ->
 * R1 x + t1, so the file's panels are moved by R1 R0 and R1 t0 + t1. */
static void
write_detector_motion (nb_params *p, const nb_model *m, const double shift[6])
{
  nb_model moved = *m;
  double R0[9], R1[9], R[9], t1[3], rt0[3], r1x[3];

  if (shift[0] == 0.0 && shift[1] == 0.0 && shift[2] == 0.0 && shift[3] == 0.0 && shift[4] == 0.0 &&
      shift[5] == 0.0)
    return;
  move_model (&moved, shift);
  /* t1: where the motion takes the sample, from panel 0's corner */
  nb_rotvec_matrix (shift + 3, R1);
  nb_rotate_umat (m->panels[0].pix0, R1, r1x);
  for (int i = 0; i < 3; i++)
    t1[i] = moved.panels[0].pix0[i] - r1x[i];
  nb_rotvec_matrix (p->detector_rotation, R0);
  nb_mat_mul (R1, R0, R);
  nb_rotate_umat (p->detector_shift, R1, rt0);
  for (int i = 0; i < 3; i++)
    p->detector_shift[i] = rt0[i] + t1[i];
  if (shift[3] != 0.0 || shift[4] != 0.0 || shift[5] != 0.0)
    mat_to_rotvec (R, p->detector_rotation);
}

/* Writes orientation @U and detector shift @shift of @m into @p. */
static void
write_params (nb_params *p,
              const nb_model *m,
              const double U[9],
              const double shift[6],
              const nb_refine_options *opt)
{
  nb_mat_to_misset (U, p->misset);
  p->misset_random = 0;
  /* a -detector model's panels are placed by its file, moved by -detector_shift and
   * -detector_rotation: the refined motion goes there */
  if (p->detector_file != NULL)
    {
      write_detector_motion (p, m, shift);
      return;
    }
  if (opt->refine_distance && shift[0] != 0.0)
    {
      p->distance = m->distance + shift[0];
      if (!isnan (p->close_distance))
        p->close_distance += shift[0];
    }
  if (opt->refine_beam && (shift[1] != 0.0 || shift[2] != 0.0))
    nb_params_set_beam_centre (p, m->Fbeam + shift[1], m->Sbeam + shift[2]);
}

void
nb_refine_options_init (nb_refine_options *opt)
{
  memset (opt, 0, sizeof *opt);
  nb_match_options_init (&opt->match);
  opt->max_rotation = 3.0 / RTD;
  opt->max_distance_change = 0.0;
  opt->max_beam_change = 20.0;
  opt->max_detector_rotation = 1.0 / RTD;
  opt->max_evaluations = 600;
}

static nb_status
check_refine_options (const nb_params *p, const nb_refine_options *opt, int n, nb_error *err)
{
  /* the motion written into -detector_shift and -detector_rotation moves the file's panels
   * before -detector_rotx/y/z and -twotheta turn them: composing it with those is not done */
  if (p->detector_file != NULL &&
      (opt->refine_distance || opt->refine_beam || opt->refine_detector_rotation) &&
      (p->rotx != 0.0 || p->roty != 0.0 || p->rotz != 0.0 || p->twotheta != 0.0))
    return nb_error_set (err, NB_ERR_INVALID,
                         "refining the position of %s with -detector_rotx/-detector_roty/"
                         "-detector_rotz or -twotheta also given: give the turn as "
                         "-detector_rotation instead",
                         p->detector_file);
  if (n < 3)
    return nb_error_set (err, NB_ERR_INVALID, "refinement needs at least 3 peaks, got %d", n);
  if (!(opt->match.radius > 0) || !(opt->max_rotation > 0) || opt->max_rotation > M_PI ||
      !(opt->max_beam_change >= 0) || !(opt->max_distance_change >= 0) ||
      opt->max_evaluations < 10 ||
      (opt->refine_detector_rotation &&
       !(opt->max_detector_rotation > 0 && opt->max_detector_rotation <= M_PI)))
    return nb_error_set (err, NB_ERR_INVALID,
                         "refinement options out of range (radius %g px, max rotation %g deg, "
                         "max beam change %g px, %d evaluations)",
                         opt->match.radius, opt->max_rotation * RTD, opt->max_beam_change,
                         opt->max_evaluations);
  return NB_OK;
}

/* The frame of @opt (its mask bounds the chance area) fits the detector of
 * @m: nb_model_chance() checks that before it counts anything. */
static nb_status
check_frame (const nb_model *m, const nb_match_options *opt, nb_error *err)
{
  nb_chance none;

  return nb_model_chance (m, m->U0, opt->frame, NULL, 0, opt->radius, &none, err);
}

/* The score of orientation @U on the detector of @m moved by @shift (a
 * flat detector turned, a motion its parameters cannot hold), with its
 * chance and significance as nb_match_peaks() gives them. */
static nb_status
moved_score (const nb_model *m,
             const double U[9],
             const double shift[6],
             const nb_peak *peaks,
             int n,
             const nb_match_options *mo,
             nb_match_result *score,
             nb_error *err)
{
  nb_model moved = *m;
  nb_chance c;
  nb_status st;

  model_score (m, U, shift, peaks, n, mo->radius, score);
  move_model (&moved, shift);
  if ((st = nb_model_chance (&moved, U, mo->frame, peaks, n, mo->radius, &c, err)) != NB_OK)
    return st;
  nb_match_judge (score, &c, mo->trials, mo->alpha);
  score->distance = moved.distance;
  score->beam_f = moved.Fbeam;
  score->beam_s = moved.Sbeam;
  return NB_OK;
}

/* The result's params: a copy of @p with @U and @shift, scored afresh
 * through the engine's geometry, its significance corrected for @trials. */
static nb_status
finish (nb_params *p,
        const nb_model *m,
        const double U[9],
        const double shift[6],
        const nb_peak *peaks,
        int n,
        const nb_refine_options *opt,
        double trials,
        nb_match_result *score,
        nb_error *err)
{
  nb_params q;
  nb_match_options mo = opt->match;
  nb_status st = nb_params_copy (&q, p, err);

  if (st != NB_OK)
    return st;
  write_params (&q, m, U, shift, opt);
  mo.trials = trials;
  /* a -detector model's motion is in @q's -detector_shift and -detector_rotation: @q is
   * scored as every frame is (the panels' masks too); a flat detector cannot hold a turn */
  if (p->detector_file == NULL && opt->refine_detector_rotation)
    st = moved_score (m, U, shift, peaks, n, &mo, score, err);
  else
    st = nb_match_peaks (&q, peaks, n, &mo, score, NULL, err);
  if (st != NB_OK)
    {
      nb_params_clear (&q);
      return st;
    }
  nb_params_clear (p);
  *p = q;
  return NB_OK;
}

nb_status
nb_refine (nb_params *p,
           const nb_peak *peaks,
           int n,
           const nb_refine_options *opt,
           nb_refine_result *res,
           nb_error *err)
{
  nb_refine_options defaults;
  nb_model m;
  double U[9], shift[6] = { 0, 0, 0, 0, 0, 0 };
  nb_match_result r;
  nb_status st;
  int evals = 0;

  memset (res, 0, sizeof *res);
  if (opt == NULL)
    {
      nb_refine_options_init (&defaults);
      opt = &defaults;
    }
  if ((st = check_refine_options (p, opt, n, err)) != NB_OK)
    return st;
  if ((st = nb_model_init (&m, p, &opt->match.predict, err)) != NB_OK ||
      (st = check_frame (&m, &opt->match, err)) != NB_OK ||
      (st = nb_model_check_peaks (&m, peaks, n, err)) != NB_OK)
    return st;
  memcpy (U, m.U0, sizeof U);
  if (refine_from (&m, peaks, n, opt, U, shift, &r, &evals, 0.0, 1.0) != 0)
    return nb_error_set (err, NB_ERR_CANCELLED, "refinement cancelled");
  res->rotation = nb_mat_angle (U, m.U0);
  res->evaluations = evals;
  {
    nb_model moved = m;

    nb_model_shift (&moved, shift[0], shift[1], shift[2]);
    for (int i = 0; i < 3; i++)
      {
        res->detector_shift[i] = moved.panels[0].pix0[i] - m.panels[0].pix0[i];
        res->detector_rotation[i] = shift[3 + i];
      }
  }
  return finish (p, &m, U, shift, peaks, n, opt, nb_model_trials (&m, peaks, n, opt, 0),
                 &res->score, err);
}

/* ------------------------------------------------------------------------ */
/* Orientation search                                                        */

void
nb_search_options_init (nb_search_options *opt)
{
  opt->step = 1.5 / RTD;
  opt->candidates = 12;
  nb_refine_options_init (&opt->refine);
  opt->threads = 0;
}

/* ---- the search ---- */

/* log10 of the factor within which two candidates' p-values count as equal */
#define SAME_SIGNIFICANCE 0.30103

/* The search's second half: every candidate of @cands scored alike in
 * reciprocal space (tolerance @theta), the distinct best (up to the
 * lattice's rotations, @S a buffer of 48) refined, the best result's
 * orientation and detector shift in @best_U, @best_shift.  0, -1 when
 * cancelled, -2 out of memory. */
static int
refine_candidates (const nb_model *m,
                   const nb_peak *peaks,
                   int n,
                   const nb_search_options *opt,
                   const nb_peak_vectors *pv,
                   double theta,
                   double (*S)[9],
                   nb_candidates *cands,
                   nb_search_result *res,
                   double best_U[9],
                   double best_shift[6])
{
  nb_match_result best;
  double (*chosen)[9] = malloc ((size_t) opt->candidates * sizeof *chosen);
  int n_chosen = 0, evals = 0, n_sym;

  if (chosen == NULL)
    return -2;
  for (int i = 0; i < cands->n; i++)
    cands->list[i].rank.score = nb_reciprocal_count (m, pv, cands->list[i].U, theta);
  nb_candidates_sort (cands);
  res->grid_best = (int) cands->list[0].rank.score;
  n_sym = nb_lattice_rotations (m, S, 1e-3);
  for (int i = 0; i < cands->n && n_chosen < opt->candidates; i++)
    {
      int near = 0;

      for (int j = 0; j < n_chosen && !near; j++)
        near = nb_symmetric_angle (cands->list[i].U, chosen[j], S, n_sym) < 2 * opt->step;
      if (!near)
        memcpy (chosen[n_chosen++], cands->list[i].U, sizeof chosen[0]);
    }
  memset (&best, 0, sizeof best);
  best.soft = -1;
  memcpy (best_U, m->U0, 9 * sizeof *best_U);
  /* ranked by significance: a candidate whose predictions cover more of the frame needs more
   * matches */
  for (int c = 0; c < n_chosen; c++)
    {
      double U[9], shift[6] = { 0, 0, 0, 0, 0, 0 };
      nb_match_result r;

      memcpy (U, chosen[c], sizeof U);
      if (refine_from (m, peaks, n, &opt->refine, U, shift, &r, &evals, 0.7 + 0.3 * c / n_chosen,
                       0.7 + 0.3 * (c + 1) / n_chosen) != 0)
        {
          free (chosen);
          return -1;
        }
      r.log10_p = nb_model_log10_p (m, U, shift, opt->refine.match.frame, peaks, n,
                                    opt->refine.match.radius, r.n_matched);
      if (isnan (r.log10_p))
        {
          free (chosen);
          return -2;
        }
      /* p-values within a factor of 2 are one significance (the chance fraction under them is
       * itself estimated from the predicted spots' area): of two such, more matches, then
       * closer ones, win.  Else 48 candidates of the 3-panel test preferred p 8.5e-48 at rms
       * 0.43 pixels, the detector turned 0.13 deg against the crystal, to p 9.8e-48 at 0.02 */
      double gain = r.log10_p - best.log10_p;

      if (best.soft < 0 || gain < -SAME_SIGNIFICANCE ||
          (fabs (gain) <= SAME_SIGNIFICANCE && better (&r, &best)))
        {
          best = r;
          memcpy (best_U, U, sizeof U);
          memcpy (best_shift, shift, 6 * sizeof *best_shift);
        }
    }
  free (chosen);
  return 0;
}

nb_status
nb_orientation_search (nb_params *p,
                       const nb_peak *peaks,
                       int n,
                       const nb_search_options *opt,
                       nb_search_result *res,
                       nb_error *err)
{
  nb_search_options defaults;
  nb_model m;
  nb_status st = NB_OK;
  double theta, t0 = seconds_now ();
  double *yx = NULL, *yy = NULL, *yz = NULL, *tau2 = NULL;
  nb_peak_vectors pv = { 0, NULL, NULL };
  nb_candidates cands = { NULL, 0, 0 };
  int n_inf = 0, nthreads = 1, rc;
  double (*S)[9] = NULL;

  memset (res, 0, sizeof *res);
  if (opt == NULL)
    {
      nb_search_options_init (&defaults);
      opt = &defaults;
    }
  if ((st = check_refine_options (p, &opt->refine, n, err)) != NB_OK)
    return st;
  if (!(opt->step >= 0.1 / RTD && opt->step <= 30 / RTD) || opt->candidates < 1 ||
      opt->candidates > 1000 || opt->threads < 0)
    return nb_error_set (err, NB_ERR_INVALID,
                         "orientation search: step %g deg (allowed 0.1 to 30), %d candidates "
                         "(1 to 1000)",
                         opt->step * RTD, opt->candidates);
  if ((st = nb_model_init (&m, p, &opt->refine.match.predict, err)) != NB_OK ||
      (st = check_frame (&m, &opt->refine.match, err)) != NB_OK ||
      (st = nb_model_check_peaks (&m, peaks, n, err)) != NB_OK)
    return st;
#ifdef _OPENMP
  nthreads = opt->threads > 0 ? opt->threads : omp_get_max_threads ();
#endif

  yx = malloc ((size_t) n * sizeof *yx);
  yy = malloc ((size_t) n * sizeof *yy);
  yz = malloc ((size_t) n * sizeof *yz);
  tau2 = malloc ((size_t) n * sizeof *tau2);
  pv.y = malloc ((size_t) n * 3 * sizeof *pv.y);
  pv.tau0 = malloc ((size_t) n * sizeof *pv.tau0);
  S = malloc (48 * sizeof *S);
  if (yx == NULL || yy == NULL || yz == NULL || tau2 == NULL || pv.y == NULL || pv.tau0 == NULL ||
      S == NULL)
    goto nomem;
  pv.n = n;
  /* the peaks as reciprocal vectors; for the grid, with the tolerance its
   * spacing allows: those that would match a lattice point by chance more
   * often than not at that tolerance say nothing and are left out */
  theta = 0.5 * opt->step;
  for (int i = 0; i < n; i++)
    {
      double *y = pv.y + 3 * i, t2, chance;

      nb_model_peak_vector (&m, peaks[i].panel, peaks[i].f, peaks[i].s, opt->refine.match.radius, y,
                            &pv.tau0[i]);
      t2 = pv.tau0[i] * pv.tau0[i] +
           nb_dot (y, y) *
               ((0.5 * m.osc + m.excitation) * (0.5 * m.osc + m.excitation) + theta * theta);
      chance = 4.0 / 3.0 * M_PI * t2 * sqrt (t2) * m.V;
      if (chance > 0.3)
        continue;
      yx[n_inf] = y[0];
      yy[n_inf] = y[1];
      yz[n_inf] = y[2];
      tau2[n_inf] = t2;
      n_inf++;
    }
  res->informative = n_inf;

  /* 1: the grid over all orientations, when enough peaks are sharp at its spacing */
  if (n_inf >= 6)
    {
      rc = nb_so3_grid (&m, yx, yy, yz, tau2, n_inf, opt, nthreads, &cands, &res->grid_points);
      if (rc == -1)
        goto cancelled;
      if (rc == -2)
        goto nomem;
    }
  /* 2: orientations from the lattice rows the peaks show (large cells, where few peaks are
   * sharp at the grid's spacing) */
  rc = nb_basis_candidates (&m, &pv, fmin (opt->step, 0.25 / RTD), nthreads, opt->refine.cancel,
                            &cands);
  if (rc == -1)
    goto cancelled;
  if (rc == -2)
    goto nomem;
  res->grid_seconds = seconds_now () - t0;
  if (opt->refine.progress != NULL)
    opt->refine.progress (opt->refine.user, 0.7, "candidates", 0.0);
  if (cands.n == 0)
    {
      st = nb_error_set (err, NB_ERR_INVALID,
                         "orientation search: no candidate orientation (%d peaks, %d sharp "
                         "enough for a %g deg grid, no lattice rows of the cell found)",
                         n, n_inf, opt->step * RTD);
      goto out;
    }

  {
    double best_U[9], best_shift[6] = { 0, 0, 0, 0, 0, 0 }, t1 = seconds_now ();

    rc = refine_candidates (&m, peaks, n, opt, &pv, theta, S, &cands, res, best_U, best_shift);
    if (rc == -1)
      goto cancelled;
    if (rc == -2)
      goto nomem;
    res->refine_seconds = seconds_now () - t1;
    st = finish (p, &m, best_U, best_shift, peaks, n, &opt->refine,
                 nb_model_trials (&m, peaks, n, &opt->refine, 1), &res->score, err);
  }
  goto out;

cancelled:
  st = nb_error_set (err, NB_ERR_CANCELLED, "orientation search cancelled");
  goto out;
nomem:
  st = nb_error_set (err, NB_ERR_NOMEM, "orientation search: out of memory");
out:
  free (yx);
  free (yy);
  free (yz);
  free (tau2);
  free (pv.y);
  free (pv.tau0);
  free (cands.list);
  free (S);
  return st;
}
