/* params-validate.c: nb_params_validate(): the table's ranges, then the
 * relations between fields no row can state alone.
 *
 * Every message names the parameter as its command-line flag and gives the
 * value in the flag's units, then what is allowed.
 */
#include "nb-param-private.h"
#include "base/nb-input.h"
#include "formats/nb-models.h"

#include <stdio.h>

#define MAX_STEPS    1e5 /* phi steps, wavelengths, divergence steps per axis */
#define MAX_DIV_GRID 1e7 /* divergence grid points (h x v) */
#define MAX_LAYERS   1000

/* A bound as a message writes it: whole numbers in full (1000000, not 1e+06). */
static const char *
bound (double v, char buf[32])
{
  snprintf (buf, 32, v == floor (v) && fabs (v) < 1e15 ? "%.0f" : "%g", v);
  return buf;
}

void
nb_param_describe_range (const nb_param *row, char *buf, size_t size)
{
  char unit[32], lo[32], hi[32];
  const char *u = nb_unit_suffix (row->unit, unit);
  const char *whole =
      row->kind == NB_PARAM_WHOLE && row->type == NB_FIELD_DOUBLE ? "a whole number " : "";
  int has_min = isfinite (row->min), has_max = isfinite (row->max);
  int len;

  bound (row->min, lo);
  bound (row->max, hi);
  if (row->choices != NULL)
    {
      nb_param_choice_list (row, ", ", buf, size);
      len = (int) strlen (buf);
    }
  else if (has_min && has_max && (row->flags & NB_PARAM_MIN_OPEN))
    len = snprintf (buf, size, "%s> %s, up to %s%s", whole, lo, hi, u);
  else if (has_min && has_max)
    len = snprintf (buf, size, "%s%s to %s%s%s", whole, lo,
                    (row->flags & NB_PARAM_MAX_OPEN) ? "below " : "", hi, u);
  else if (has_min)
    len = snprintf (buf, size, "%s%s %s", whole, (row->flags & NB_PARAM_MIN_OPEN) ? ">" : ">=", lo);
  else if (has_max)
    len = snprintf (buf, size, "%sup to %s%s", whole, hi, u);
  else
    len = snprintf (buf, size, "a finite number");
  if (row->note != NULL && len >= 0 && (size_t) len < size)
    snprintf (buf + len, size - (size_t) len, " (%s)", row->note);
}

nb_status
nb_param_range_error (const nb_param *row, double v, nb_error *err)
{
  char unit[32], range[128], value[160];
  const char *name = row->flag != NULL ? row->flag : row->name;

  if (row->type == NB_FIELD_DOUBLE)
    snprintf (value, sizeof value, "%g%s", nb_unit_from_field (row->unit, v),
              nb_unit_suffix (row->unit, unit));
  else
    snprintf (value, sizeof value, "%.0f", v);
  nb_param_describe_range (row, range, sizeof range);
  return nb_error_set (err, NB_ERR_INVALID, "%s %s: allowed %s", name, value, range);
}

/* The values of every field of a multi-value row (-fdet_vector 0 0 nan). */
static nb_status
row_error (const nb_param *row, const nb_params *p, nb_error *err)
{
  char unit[32], range[128], values[256];
  size_t len = 0;

  for (int k = 0; k < row->n_field && len < sizeof values; k++)
    {
      double v = nb_param_field (row, p, k);

      len +=
          (size_t) snprintf (values + len, sizeof values - len, k ? " %g" : "%g",
                             row->type == NB_FIELD_DOUBLE ? nb_unit_from_field (row->unit, v) : v);
    }
  nb_param_describe_range (row, range, sizeof range);
  return nb_error_set (err, NB_ERR_INVALID, "%s %s%s: allowed %s", row->flag, values,
                       nb_unit_suffix (row->unit, unit), range);
}

static int
in_range (const nb_param *row, double v)
{
  double lo, hi;

  if ((row->flags & NB_PARAM_UNSET_OK) && nb_param_is_unset (row, v))
    return 1;
  if (row->choices != NULL)
    {
      for (const nb_choice *c = row->choices; c->word != NULL; c++)
        if (c->value == v)
          return 1;
      return 0;
    }
  if (!isfinite (v))
    return 0;
  if (row->kind == NB_PARAM_WHOLE && v != floor (v))
    return 0;
  /* the bounds as the parser converts them, so a flag's limit is allowed to
   * the bit (-mosaic 180) */
  lo = nb_unit_to_field (row->unit, row->min);
  hi = nb_unit_to_field (row->unit, row->max);
  if ((row->flags & NB_PARAM_MIN_OPEN) ? !(v > lo) : !(v >= lo))
    return 0;
  if ((row->flags & NB_PARAM_MAX_OPEN) ? !(v < hi) : !(v <= hi))
    return 0;
  return 1;
}

nb_status
nb_param_check_range (const nb_param *row, const nb_params *p, int k, nb_error *err)
{
  double v;

  if (row->type == NB_FIELD_STRING)
    {
      const char *s = *nb_param_string ((nb_params *) p, row, k);

      if (s != NULL && s[0] == '\0')
        return nb_error_set (err, NB_ERR_INVALID, "%s '': allowed a file name, not an empty one",
                             row->flag);
      return NB_OK;
    }
  v = nb_param_field (row, p, k);
  if (in_range (row, v))
    return NB_OK;
  return row->nargs > 1 ? row_error (row, p, err) : nb_param_range_error (row, v, err);
}

/* A flag with one value for several fields checks them when they are equal
 * and it names them (-N); otherwise the flags of the single fields do. */
static int
checks_fields (const nb_param *row, const nb_params *p)
{
  if (row->nargs != 1 || row->n_field < 2)
    return 1;
  if (!(row->flags & NB_PARAM_NAMES_ALL))
    return 0;
  for (int k = 1; k < row->n_field; k++)
    if (nb_param_field (row, p, k) != nb_param_field (row, p, 0))
      return 0;
  return 1;
}

/* ---- the special rows (nb_param_special) ---- */

/* The cell's lengths and angles, and whether the angles close a cell. */
static nb_status
check_cell (const nb_param *row, const nb_params *p, nb_error *err)
{
  static const char *const names[6] = { "a", "b", "c", "alpha", "beta", "gamma" };
  double ang[3];

  if (p->cell[0] == 0.0)
    return NB_OK; /* no -cell */
  for (int k = 0; k < 6; k++)
    if (!isfinite (p->cell[k]))
      return nb_error_set (err, NB_ERR_INVALID, "-cell: %s = %g is not a finite number", names[k],
                           k < 3 ? p->cell[k] : nb_unit_from_field (&nb_unit_deg, p->cell[k]));
  if (p->cell[0] < NB_CELL_LENGTH_MIN_A || p->cell[0] > NB_CELL_LENGTH_MAX_A)
    return nb_error_set (err, NB_ERR_INVALID, "-cell: a = %g Angstrom (allowed: %g to %g)",
                         p->cell[0], NB_CELL_LENGTH_MIN_A, NB_CELL_LENGTH_MAX_A);
  for (int k = 1; k < 3; k++)
    if ((p->cell[k] != 0.0 && p->cell[k] < NB_CELL_LENGTH_MIN_A) ||
        p->cell[k] > NB_CELL_LENGTH_MAX_A)
      return nb_error_set (err, NB_ERR_INVALID,
                           "-cell: %s = %g Angstrom (allowed: %g to %g, or 0 for the same as a)",
                           names[k], p->cell[k], NB_CELL_LENGTH_MIN_A, NB_CELL_LENGTH_MAX_A);
  for (int k = 0; k < 3; k++)
    {
      double angle = nb_unit_from_field (&nb_unit_deg, p->cell[3 + k]);

      if (angle < 0.0 || angle >= 180.0)
        return nb_error_set (err, NB_ERR_INVALID,
                             "-cell: %s = %g deg (allowed: 0 < %s < 180, or 0 for 90)",
                             names[3 + k], angle, names[3 + k]);
      ang[k] = angle == 0.0 ? 90.0 : angle;
    }
  /* The three angles close a cell only as the sides of a spherical triangle:
   * each smaller than the sum of the others, and all three below 360.  The
   * reference takes |volume^2| and quietly simulates an impossible cell. */
  if (ang[0] >= ang[1] + ang[2] - 1e-9 || ang[1] >= ang[0] + ang[2] - 1e-9 ||
      ang[2] >= ang[0] + ang[1] - 1e-9 || ang[0] + ang[1] + ang[2] >= 360.0 - 1e-9)
    return nb_error_set (err, NB_ERR_INVALID,
                         "-cell: angles %g %g %g deg make no unit cell (allowed: each angle "
                         "smaller than the sum of the other two, all three below 360)",
                         ang[0], ang[1], ang[2]);
  return NB_OK;
}

static nb_status
check_detector_abs (const nb_param *row, const nb_params *p, nb_error *err)
{
  if (p->detector_mu != -1.0 && !(isfinite (p->detector_mu) && p->detector_mu >= 0.0))
    return nb_error_set (err, NB_ERR_INVALID,
                         "-detector_abs %g um: allowed an attenuation depth > 0, or 0/inf for none",
                         1e6 / p->detector_mu);
  return NB_OK;
}

/* -distance is the distance to the beam spot unless -close_distance is given,
 * which then decides it. */
static nb_status
check_distance (const nb_param *row, const nb_params *p, nb_error *err)
{
  if (!isfinite (p->distance) || (!(p->distance > 0.0) && isnan (p->close_distance)))
    return nb_param_range_error (row, p->distance, err);
  return NB_OK;
}

/* The detector's size counts only where its pixel count is not given. */
static nb_status
check_detsize (const nb_param *row, const nb_params *p, nb_error *err)
{
  int n = row->field[0] == offsetof (nb_params, detsize_f) ? p->fpixels : p->spixels;
  double size = nb_param_field (row, p, 0);

  if (n == 0 && !(isfinite (size) && size > 0.0))
    return nb_param_range_error (row, size, err);
  return NB_OK;
}

typedef nb_status (*special_check_fn) (const nb_param *row, const nb_params *p, nb_error *err);

static special_check_fn
special_check (const nb_param *row)
{
  static const special_check_fn checks[NB_PARAM_N_SPECIAL] = {
    [NB_PARAM_SPECIAL_CELL] = check_cell,
    [NB_PARAM_SPECIAL_DETECTOR_ABS] = check_detector_abs,
    [NB_PARAM_SPECIAL_DISTANCE] = check_distance,
    [NB_PARAM_SPECIAL_DETSIZE] = check_detsize,
  };

  return row->special < NB_PARAM_N_SPECIAL ? checks[row->special] : NULL;
}

static nb_status
check_rows (const nb_params *p, nb_error *err)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);
  nb_status st;

  for (size_t i = 0; i < n; i++)
    {
      const nb_param *row = &rows[i];
      special_check_fn check;

      if (row->kind == NB_PARAM_SECTION || row->kind == NB_PARAM_SWITCH ||
          row->kind == NB_PARAM_IGNORED || (row->flags & (NB_PARAM_COMPONENT | NB_PARAM_NO_RANGE)))
        continue;
      if ((check = special_check (row)) != NULL)
        {
          if ((st = check (row, p, err)) != NB_OK)
            return st;
          continue;
        }
      if (!checks_fields (row, p))
        continue;
      for (int k = 0; k < row->n_field; k++)
        if ((st = nb_param_check_range (row, p, k, err)) != NB_OK)
          return st;
    }
  return NB_OK;
}

/* ------------------------------------------------------------------------- */
/* Relations */

/* The number of steps nanoBragg's count/range/step rule gives before its
 * sanity pass (sources.c, physics.md §10.2), as a double so that a huge
 * range/step ratio is seen before any conversion to int. */
static double
grid_steps (int n, double range, double step)
{
  if (n > 0)
    return n;
  if (range < 0.0)
    return step <= 0.0 ? 1.0 : 2.0;
  if (step <= 0.0)
    return 2.0;
  return ceil (range / step);
}

/* A sampled axis (phi, divergence, dispersion, sensor layers): a bounded
 * number of steps from its range, step and count. */
static nb_status
check_grid (const char *range_flag,
            const char *step_flag,
            const nb_params *p,
            double range,
            double step,
            int n,
            double max_steps,
            nb_error *err)
{
  double steps = grid_steps (n, range, step);
  const nb_param *row;
  char unit[32];
  const char *u;

  if (steps <= max_steps)
    return NB_OK;
  /* the row's unit only for the message: validation runs on every update */
  row = nb_param_find (range_flag);
  u = nb_unit_suffix (row->unit, unit);
  return nb_error_set (err, NB_ERR_INVALID,
                       "%s %g%s with %s %g%s gives %.0f steps (allowed: up to %.0f)", range_flag,
                       nb_unit_from_field (row->unit, range), u, step_flag,
                       nb_unit_from_field (row->unit, step), u, steps, max_steps);
}

static nb_status
check_grids (const nb_params *p, nb_error *err)
{
  nb_status st;
  double h, v;

  if ((st = check_grid ("-dispersion", "dispstep", p, p->dispersion, p->dispstep, p->dispsteps,
                        MAX_STEPS, err)) != NB_OK ||
      (st = check_grid ("-hdivrange", "-hdivstep", p, p->hdivrange, p->hdivstep, p->hdivsteps,
                        MAX_STEPS, err)) != NB_OK ||
      (st = check_grid ("-vdivrange", "-vdivstep", p, p->vdivrange, p->vdivstep, p->vdivsteps,
                        MAX_STEPS, err)) != NB_OK ||
      (st = check_grid ("-osc", "-phistep", p, p->osc, p->phistep, p->phisteps, MAX_STEPS, err)) !=
          NB_OK ||
      (st = check_grid ("-detector_thick", "thickstep", p, p->detector_thick, p->detector_thickstep,
                        p->detector_thicksteps, MAX_LAYERS, err)) != NB_OK)
    return st;
  h = grid_steps (p->hdivsteps, p->hdivrange, p->hdivstep);
  v = grid_steps (p->vdivsteps, p->vdivrange, p->vdivstep);
  if (h * v > MAX_DIV_GRID)
    return nb_error_set (err, NB_ERR_INVALID,
                         "divergence grid of %.0f x %.0f points (-hdivsteps, -vdivsteps or "
                         "range/step): allowed up to %.0f points",
                         h, v, MAX_DIV_GRID);
  return NB_OK;
}

static int
vec_zero (const double v[3])
{
  return v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0;
}

/* The detector's pixel counts as nb_detector_setup() derives them. */
static double
pixel_count (int n, double detsize, double pixel_size)
{
  return n ? n : ceil (detsize / pixel_size - 0.5);
}

/* The axes a CUSTOM detector is given: directions, and a plane. */
static nb_status
check_custom_axes (const nb_params *p, nb_error *err)
{
  static const char *const flags[] = { "-fdet_vector", "-sdet_vector", "-beam_vector",
                                       "-polar_vector", "-spindle_axis" };
  const double *vecs[] = { p->fdet, p->sdet, p->beam, p->polar_vector, p->spindle };
  double cross[3], lf, ls;

  /* the vectors a named convention would replace */
  for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++)
    if (vec_zero (vecs[i]))
      return nb_error_set (err, NB_ERR_INVALID, "%s 0 0 0: allowed a non-zero direction", flags[i]);
  cross[0] = p->fdet[1] * p->sdet[2] - p->fdet[2] * p->sdet[1];
  cross[1] = p->fdet[2] * p->sdet[0] - p->fdet[0] * p->sdet[2];
  cross[2] = p->fdet[0] * p->sdet[1] - p->fdet[1] * p->sdet[0];
  lf = sqrt (p->fdet[0] * p->fdet[0] + p->fdet[1] * p->fdet[1] + p->fdet[2] * p->fdet[2]);
  ls = sqrt (p->sdet[0] * p->sdet[0] + p->sdet[1] * p->sdet[1] + p->sdet[2] * p->sdet[2]);
  if (sqrt (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]) <= 1e-9 * lf * ls)
    return nb_error_set (err, NB_ERR_INVALID,
                         "-fdet_vector %g %g %g and -sdet_vector %g %g %g are parallel: the "
                         "detector has no plane",
                         p->fdet[0], p->fdet[1], p->fdet[2], p->sdet[0], p->sdet[1], p->sdet[2]);
  if (p->twotheta != 0.0 && vec_zero (p->twotheta_axis))
    return nb_error_set (err, NB_ERR_INVALID,
                         "-twotheta_axis 0 0 0 with -twotheta %g deg: allowed a non-zero axis",
                         nb_unit_from_field (&nb_unit_deg, p->twotheta));
  return NB_OK;
}

static nb_status
check_detector (const nb_params *p, nb_error *err)
{
  double nf = pixel_count (p->fpixels, p->detsize_f, p->pixel_size);
  double ns = pixel_count (p->spixels, p->detsize_s, p->pixel_size);
  nb_status st;

  if (!(nf >= 1 && nf <= NB_MAX_PIXELS && ns >= 1 && ns <= NB_MAX_PIXELS))
    return nb_error_set (err, NB_ERR_INVALID,
                         "-detsize %g x %g mm with -pixel %g mm gives %.0f x %.0f pixels (allowed: "
                         "1 to %d per axis)",
                         p->detsize_f * 1000, p->detsize_s * 1000, p->pixel_size * 1000, nf, ns,
                         NB_MAX_PIXELS);
  if (p->convention == NB_CONVENTION_CUSTOM && (st = check_custom_axes (p, err)) != NB_OK)
    return st;

  if (p->detector_file == NULL)
    for (int k = 0; k < 3; k++)
      if (p->detector_shift[k] != 0.0 || p->detector_rotation[k] != 0.0)
        {
          const nb_param *row = nb_param_find_field (p->detector_shift[k] != 0.0
                                                         ? offsetof (nb_params, detector_shift)
                                                         : offsetof (nb_params, detector_rotation));

          return nb_error_set (err, NB_ERR_INVALID,
                               "%s moves a -detector model's panels; no -detector is given",
                               row != NULL ? row->flag : "the detector motion");
        }
  if (p->detector_file != NULL && p->mask_file != NULL)
    return nb_error_set (err, NB_ERR_INVALID,
                         "-mask %s with -detector %s: a multi-panel detector's masks come from "
                         "its geometry file (bad regions)",
                         p->mask_file, p->detector_file);
  /* -roi xmin xmax ymin ymax, inclusive; -1 = that edge of the detector; with
   * -detector it applies to each panel, which may have no pixel inside */
  for (int k = 0; k < 4; k++)
    if (p->roi[k] < -1)
      return nb_error_set (err, NB_ERR_INVALID,
                           "-roi %d %d %d %d: allowed pixel indices >= 0 (or -1 for the edge)",
                           p->roi[0], p->roi[1], p->roi[2], p->roi[3]);
  {
    double xmin = p->roi[0] < 0 ? 0 : p->roi[0], xmax = p->roi[1] < 0 ? nf : p->roi[1];
    double ymin = p->roi[2] < 0 ? 0 : p->roi[2], ymax = p->roi[3] < 0 ? ns : p->roi[3];

    if (xmin > xmax || ymin > ymax || (p->detector_file == NULL && (xmin >= nf || ymin >= ns)))
      return nb_error_set (err, NB_ERR_INVALID,
                           "-roi %d %d %d %d: no pixel of the %.0f x %.0f detector is inside "
                           "(allowed: xmin <= xmax, ymin <= ymax, within the detector)",
                           p->roi[0], p->roi[1], p->roi[2], p->roi[3], nf, ns);
  }
  return NB_OK;
}

nb_status
nb_params_check_relations (const nb_params *p, nb_error *err)
{
  nb_status st;

  if ((st = check_grids (p, err)) != NB_OK)
    return st;
  /* the reference then silently keeps -fluence, or divides by zero */
  if (p->flux != 0.0 && !(p->exposure > 0.0 && p->beamsize > 0.0))
    return nb_error_set (err, NB_ERR_INVALID,
                         "-flux %g photons/s needs -exposure > 0 s and -beamsize > 0 mm (got %g s, "
                         "%g mm)",
                         p->flux, p->exposure, p->beamsize * 1000.0);
  if (p->frame_index != 0 && p->frame_file == NULL)
    return nb_error_set (err, NB_ERR_INVALID, "-frame_index %d without -frame: which file?",
                         p->frame_index);
  return check_detector (p, err);
}

nb_status
nb_params_validate (const nb_params *p, nb_error *err)
{
  nb_status st;

  if (p == NULL)
    return nb_error_set (err, NB_ERR_INVALID, "no parameters");
  if ((st = check_rows (p, err)) != NB_OK)
    return st;
  return nb_params_check_relations (p, err);
}

nb_status
nb_params_check_inputs (const nb_params *p, const nb_params *before, nb_error *err)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);

  nb_error_clear (err);
  for (size_t i = 0; i < n; i++)
    {
      const nb_param *row = &rows[i];
      const char *path;
      nb_error why = { 0 };

      if (!(row->flags & NB_PARAM_INPUT_FILE) || row->kind != NB_PARAM_TEXT ||
          (before != NULL && nb_param_same (row, p, before, 0)))
        continue;
      path = nb_param_get_text (row, p);
      if (path == NULL || path[0] == '\0')
        continue;
      if (nb_input_check (path, &why) != NB_OK)
        return nb_error_set (err, NB_ERR_IO, "%s: %s", row->flag != NULL ? row->flag : row->name,
                             why.message);
    }
  return NB_OK;
}

int
nb_params_hkl_is_model (const nb_params *p)
{
  return p->hkl_file != NULL && nb_file_is_model (p->hkl_file);
}
