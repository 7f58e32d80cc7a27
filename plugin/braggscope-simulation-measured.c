/* braggscope-simulation-measured.c: a simulation against a measured frame:
 * adopting the frame's geometry, the match score of every full frame
 * (computed by the worker with the frame, braggscope-worker.c), and the
 * refinement and orientation search, which run on the worker thread too. */
#include "braggscope-simulation-private.h"
#include "braggscope-worker-private.h"

#include "nb-param.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

enum
{
  PROP_MEASURED_FRAME,
  PROP_MATCH_RADIUS,
  PROP_MATCH_PEAKS,
  PROP_MATCH_MATCHED,
  PROP_MATCH_FRACTION,
  PROP_MATCH_RMS_DISTANCE,
  PROP_MATCH_CORRELATION,
  PROP_MATCH_CHANCE_FRACTION,
  PROP_MATCH_P_VALUE,
  PROP_MATCH_SIGNIFICANT,
  PROP_MATCH_SHELLS,
  PROP_FITTING,
  PROP_HKL_CELL_WARNING,
  PROP_STRUCTURE_FACTORS_NOTE,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

/* The score against chance: match-chance-fraction, match-p-value,
 * match-significant. */
static void
install_chance_properties (void)
{
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  /**
   * BraggscopeSimulation:match-chance-fraction:
   *
   * What chance gives for the same predictions: the fraction (0 to 1) of
   * the measured frame's unmasked pixels within the scored peaks' resolution
   * range that lie within [property@Braggscope.Simulation:match-radius] of a
   * predicted reflection, counted on the pixel grid; peaks placed at random
   * there would score it.  NaN without a score.  Read-only; notified with
   * every full frame.
   *
   * Since: 0.1
   */
  props[PROP_MATCH_CHANCE_FRACTION] = g_param_spec_double (
      "match-chance-fraction", NULL, N_ ("Fraction of the frame's area the predictions cover"), 0.0,
      1.0, 0.0, ro);
  /**
   * BraggscopeSimulation:match-p-value:
   *
   * The probability (0 to 1) that peaks at random places match as many as
   * [property@Braggscope.Simulation:match-matched] or more: the binomial
   * upper tail against
   * [property@Braggscope.Simulation:match-chance-fraction].  It may
   * underflow to 0 for a strong match.  NaN without a score.  Read-only;
   * notified with every full frame.
   *
   * Since: 0.1
   */
  props[PROP_MATCH_P_VALUE] = g_param_spec_double (
      "match-p-value", NULL, N_ ("Probability of the score by chance"), 0.0, 1.0, 0.0, ro);
  /**
   * BraggscopeSimulation:match-significant:
   *
   * %TRUE when the score is a match: its p-value, times the orientations
   * (and detector positions) the last fit chose among while its result
   * stands (1 for parameters set by hand), is below 0.001.  %FALSE without a
   * score, or when the score is no better than chance.  Read-only; notified
   * with every full frame.
   *
   * Since: 0.1
   */
  props[PROP_MATCH_SIGNIFICANT] = g_param_spec_boolean (
      "match-significant", NULL, N_ ("The score is better than chance"), FALSE, ro);
}

/* The properties that say where the structure factors come from, and
 * whether they can belong to the crystal. */
static void
install_structure_factor_properties (GParamFlags ro)
{
  /**
   * BraggscopeSimulation:hkl-cell-warning:
   *
   * Why the structure factors cannot belong to the crystal, or %NULL: the
   * unit cell the structure-factor file is of (an MTZ file's header, or the
   * default scene's cell for the file it came with) is not the crystal's
   * (edges more than 3 % or angles more than 3 degrees apart), as under a
   * measured frame's cell the default 1HPV file (P6₁, a = 63.4 Å) would be.
   * One line in English, set with the frame whose plan found it and notified
   * when it changes, so a host says it once.  Read-only.
   *
   * Since: 0.1
   */
  props[PROP_HKL_CELL_WARNING] =
      g_param_spec_string ("hkl-cell-warning", NULL,
                           N_ ("Why the structure factors cannot belong to the crystal"), NULL, ro);
  /**
   * BraggscopeSimulation:structure-factors-note:
   *
   * Where the structure factors come from when the file gives a cell, or
   * %NULL: for an atomic model (PDB, mmCIF), that they are computed from its
   * atoms, and the cell and space group it gives; whether that cell is the
   * crystal's (no `-cell` given: setting
   * [property@Braggscope.Simulation:structure-factors] to a model clears the
   * cell, so that the cell properties then read the model's) or another one
   * ([property@Braggscope.Simulation:hkl-cell-warning] says when they cannot
   * belong together).  One line in English, set with the frame whose plan
   * read the file and notified when it changes (not with the resolution the
   * structure factors are computed to, which follows the detector), so a host
   * says it once.  Read-only.
   *
   * Since: 0.1
   */
  props[PROP_STRUCTURE_FACTORS_NOTE] =
      g_param_spec_string ("structure-factors-note", NULL,
                           N_ ("Where the structure factors and their cell come from"), NULL, ro);
}

void
_braggscope_simulation_install_measured_properties (GObjectClass *klass, guint first)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  /**
   * BraggscopeSimulation:measured-frame:
   *
   * The measured frame every full frame is scored against, or %NULL.
   * Setting it renders the full frame of the current parameters again (once
   * rendering has started), and its score fills the `match-*` properties
   * ([property@Braggscope.Simulation:match-fraction] and the others).  It is
   * also the frame [method@Braggscope.Simulation.refine_async] and
   * [method@Braggscope.Simulation.search_orientation_async] fit.  Setting
   * it does not change the detector: see
   * [method@Braggscope.Simulation.adopt_geometry].
   *
   * Since: 0.1
   */
  props[PROP_MEASURED_FRAME] =
      g_param_spec_object ("measured-frame", N_ ("Measured frame"),
                           N_ ("The measured frame the simulation is scored against"),
                           BRAGGSCOPE_TYPE_MEASURED_FRAME, rw);
  /**
   * BraggscopeSimulation:match-radius:
   *
   * A measured peak matches when a predicted reflection lies within this
   * many pixels of its centroid: the tolerance of
   * [property@Braggscope.Simulation:match-fraction] and the final one of a
   * fit.  0.5 to 50 pixels, default 3.
   *
   * Since: 0.1
   */
  props[PROP_MATCH_RADIUS] = g_param_spec_double (
      "match-radius", N_ ("Match radius"), N_ ("Distance within which a peak matches (pixels)"),
      0.5, 50.0, 3.0, rw);
  /**
   * BraggscopeSimulation:match-peaks:
   *
   * The number of measured peaks scored: the strongest local maxima of the
   * measured frame (at most 50) within 100 Å resolution, so that the direct
   * beam and the beam stop's shadow are left out.  0 without a score.
   * Read-only; notified with every full frame.
   *
   * Since: 0.1
   */
  props[PROP_MATCH_PEAKS] = g_param_spec_int (
      "match-peaks", NULL, N_ ("Measured peaks scored (count)"), 0, G_MAXINT, 0, ro);
  /**
   * BraggscopeSimulation:match-matched:
   *
   * The number of the scored peaks that lie within
   * [property@Braggscope.Simulation:match-radius] of a reflection predicted
   * from the parameters of the last full frame.  Read-only; notified with
   * every full frame.
   *
   * Since: 0.1
   */
  props[PROP_MATCH_MATCHED] = g_param_spec_int (
      "match-matched", NULL, N_ ("Measured peaks matched (count)"), 0, G_MAXINT, 0, ro);
  /**
   * BraggscopeSimulation:match-fraction:
   *
   * The match score: the fraction (0 to 1) of the scored measured peaks that
   * lie within [property@Braggscope.Simulation:match-radius] of a predicted
   * reflection, for the parameters of the last full frame; NaN while there is
   * no score (no measured frame, or no full frame since it was set).
   * Read-only; notified with every full frame.
   *
   * Since: 0.1
   */
  props[PROP_MATCH_FRACTION] = g_param_spec_double (
      "match-fraction", NULL, N_ ("Fraction of the measured peaks matched"), 0.0, 1.0, 0.0, ro);
  /**
   * BraggscopeSimulation:match-rms-distance:
   *
   * The root-mean-square distance in pixels from the matched peaks to their
   * predicted reflections; NaN without a score or a match.  Read-only;
   * notified with every full frame.
   *
   * Since: 0.1
   */
  props[PROP_MATCH_RMS_DISTANCE] = g_param_spec_double (
      "match-rms-distance", NULL, N_ ("RMS distance of the matched peaks (pixels)"), 0.0,
      G_MAXDOUBLE, 0.0, ro);
  /**
   * BraggscopeSimulation:match-correlation:
   *
   * The Pearson correlation (dimensionless, -1 to 1) of the last full frame
   * with the measured counts over the measured frame's valid pixels; NaN
   * without a score or when the two differ in size.  Per resolution shell:
   * [method@Braggscope.Simulation.get_match_shell].  Read-only; notified
   * with every full frame.
   *
   * Since: 0.1
   */
  props[PROP_MATCH_CORRELATION] = g_param_spec_double (
      "match-correlation", NULL,
      N_ ("Correlation of the simulated and measured pixels (dimensionless)"), -1.0, 1.0, 0.0, ro);
  install_chance_properties ();
  /**
   * BraggscopeSimulation:match-shells:
   *
   * The number of resolution shells of the correlation
   * ([method@Braggscope.Simulation.get_match_shell]): 10 when the last
   * full frame and the measured frame have the same size, else 0.
   * Read-only; notified with every full frame.
   *
   * Since: 0.1
   */
  props[PROP_MATCH_SHELLS] =
      g_param_spec_int ("match-shells", NULL, N_ ("Resolution shells of the correlation (count)"),
                        0, NB_MAX_SHELLS, 0, ro);
  /**
   * BraggscopeSimulation:fitting:
   *
   * %TRUE while a refinement or an orientation search runs on the worker
   * thread (frames wait for it).  Read-only.
   *
   * Since: 0.1
   */
  props[PROP_FITTING] = g_param_spec_boolean ("fitting", NULL, N_ ("A fit is running"), FALSE, ro);
  install_structure_factor_properties (ro);
  for (guint i = 0; i < N_PROPS; i++)
    g_object_class_install_property (klass, first + i, props[i]);
}

gboolean
_braggscope_simulation_get_measured_property (BraggscopeSimulation *self, guint id, GValue *value)
{
  const nb_match_result *m = self->have_match ? &self->match : NULL;

  switch (id)
    {
      case PROP_MEASURED_FRAME:
        g_value_set_object (value, self->measured);
        break;
      case PROP_MATCH_RADIUS:
        g_value_set_double (value, self->match_radius);
        break;
      case PROP_MATCH_PEAKS:
        g_value_set_int (value, m != NULL ? m->n_peaks : 0);
        break;
      case PROP_MATCH_MATCHED:
        g_value_set_int (value, m != NULL ? m->n_matched : 0);
        break;
      case PROP_MATCH_FRACTION:
        g_value_set_double (value, m != NULL ? m->fraction : NAN);
        break;
      case PROP_MATCH_RMS_DISTANCE:
        g_value_set_double (value, m != NULL && m->n_matched > 0 ? m->rms_distance : NAN);
        break;
      case PROP_MATCH_CORRELATION:
        g_value_set_double (value, m != NULL && m->n_shells > 0 ? m->cc : NAN);
        break;
      case PROP_MATCH_CHANCE_FRACTION:
        g_value_set_double (value, m != NULL ? m->chance_fraction : NAN);
        break;
      case PROP_MATCH_P_VALUE:
        g_value_set_double (value, m != NULL ? m->p_value : NAN);
        break;
      case PROP_MATCH_SIGNIFICANT:
        g_value_set_boolean (value, m != NULL && m->significant);
        break;
      case PROP_MATCH_SHELLS:
        g_value_set_int (value, m != NULL ? m->n_shells : 0);
        break;
      case PROP_FITTING:
        g_value_set_boolean (value, self->fit_task != NULL);
        break;
      case PROP_HKL_CELL_WARNING:
        g_value_set_string (value, self->hkl_warning);
        break;
      case PROP_STRUCTURE_FACTORS_NOTE:
        g_value_set_string (value, self->sf_note);
        break;
      default:
        return FALSE;
    }
  return TRUE;
}

gboolean
_braggscope_simulation_set_measured_property (BraggscopeSimulation *self,
                                              guint id,
                                              const GValue *value)
{
  switch (id)
    {
      case PROP_MEASURED_FRAME:
        braggscope_simulation_set_measured_frame (self, g_value_get_object (value));
        break;
      case PROP_MATCH_RADIUS:
        if (self->match_radius != g_value_get_double (value))
          {
            self->match_radius = g_value_get_double (value);
            g_object_notify_by_pspec (G_OBJECT (self), props[PROP_MATCH_RADIUS]);
            if (self->measured != NULL)
              _braggscope_simulation_rescore (self);
          }
        break;
      default:
        return FALSE;
    }
  return TRUE;
}

void
_braggscope_simulation_set_match (BraggscopeSimulation *self, const nb_match_result *match)
{
  if (match == NULL && !self->have_match)
    return;
  self->have_match = match != NULL;
  if (match != NULL)
    self->match = *match;
  g_object_freeze_notify (G_OBJECT (self));
  for (guint i = PROP_MATCH_PEAKS; i <= PROP_MATCH_SHELLS; i++)
    g_object_notify_by_pspec (G_OBJECT (self), props[i]);
  g_object_thaw_notify (G_OBJECT (self));
}

/**
 * braggscope_simulation_get_measured_frame:
 * @self: a simulation
 *
 * [property@Braggscope.Simulation:measured-frame].
 *
 * Returns: (transfer none) (nullable): the measured frame, or %NULL
 *
 * Since: 0.1
 */
BraggscopeMeasuredFrame *
braggscope_simulation_get_measured_frame (BraggscopeSimulation *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), NULL);
  return self->measured;
}

/**
 * braggscope_simulation_set_measured_frame:
 * @self: a simulation
 * @frame: (nullable): a measured frame, or %NULL for none
 *
 * Sets [property@Braggscope.Simulation:measured-frame]: from the next full
 * frame on (which this requests, once rendering has started) each full frame
 * is scored against @frame.  The score of the previous frame is dropped at
 * once.
 *
 * Since: 0.1
 */
void
braggscope_simulation_set_measured_frame (BraggscopeSimulation *self,
                                          BraggscopeMeasuredFrame *frame)
{
  g_return_if_fail (BRAGGSCOPE_IS_SIMULATION (self));
  g_return_if_fail (frame == NULL || BRAGGSCOPE_IS_MEASURED_FRAME (frame));

  if (!g_set_object (&self->measured, frame))
    return;
  _braggscope_simulation_set_match (self, NULL);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_MEASURED_FRAME]);
  if (frame != NULL)
    _braggscope_simulation_rescore (self);
}

/**
 * braggscope_simulation_get_match_shell:
 * @self: a simulation
 * @shell: the shell, 0 (lowest resolution) to
 *   [property@Braggscope.Simulation:match-shells] - 1
 * @d_max: (out) (optional): its low-resolution edge (Å)
 * @d_min: (out) (optional): its high-resolution edge (Å)
 * @correlation: (out) (optional): the Pearson correlation (dimensionless)
 *   of the last full frame with the measured counts in the shell, NaN with
 *   fewer than 3 valid pixels there or no variance
 *
 * The correlation of the last full frame with the measured frame in one of
 * 10 resolution shells of equal reciprocal-space volume between the lowest
 * and the highest resolution of the detector's pixels.
 *
 * Returns: %TRUE when there is a score with @shell; %FALSE (the outputs
 *   untouched) otherwise
 *
 * Since: 0.1
 */
gboolean
braggscope_simulation_get_match_shell (
    BraggscopeSimulation *self, int shell, double *d_max, double *d_min, double *correlation)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), FALSE);

  if (!self->have_match || shell < 0 || shell >= self->match.n_shells)
    return FALSE;
  if (d_max != NULL)
    *d_max = self->match.shell_d_max[shell];
  if (d_min != NULL)
    *d_min = self->match.shell_d_min[shell];
  if (correlation != NULL)
    *correlation = self->match.shell_cc[shell];
  return TRUE;
}

/**
 * braggscope_simulation_adopt_geometry:
 * @self: a simulation
 * @frame: a measured frame
 * @error: return location for a [struct@GLib.Error], or %NULL
 *
 * Makes the simulation's detector and beam those of @frame's header: the
 * flags `-frame FILE -frame_index N` applied through
 * [method@Braggscope.Simulation.set_from_args], so as one change (one
 * notification of each property that changed, one new frame): the pixel
 * counts (always), and the pixel size, wavelength, distance, beam centre (in
 * the simulation's convention), start angle, oscillation and exposure where
 * the header gives them; what it lacks keeps its value.  The two-theta and
 * sensor thickness a header gives are never adopted.
 * [method@Braggscope.MeasuredFrame.get_report] says where each value came
 * from.
 *
 * A frame whose file places several detector modules itself (an NXmx file
 * of several `NXdetector_module` groups,
 * [method@Braggscope.MeasuredFrame.get_n_panels]) makes them the
 * simulation's panels: [property@Braggscope.Simulation:detector-file]
 * becomes the frame's file, and only the wavelength, start angle,
 * oscillation and exposure come from its header.  With a detector file set
 * already (a geometry whose panels cut the frame's array) the same: the
 * header's beam is adopted, its one-panel geometry is not.
 *
 * The header is read again from the frame's file.  Otherwise a frame whose
 * detector one flat panel cannot represent
 * ([method@Braggscope.MeasuredFrame.get_detector_problem]) is refused with
 * `BRAGGSCOPE_ERROR_UNSUPPORTED` and that reason.  It fails as
 * [method@Braggscope.Simulation.set_from_args] does: `BRAGGSCOPE_ERROR_IO`
 * or `BRAGGSCOPE_ERROR_PARSE` when the file can no longer be read,
 * `BRAGGSCOPE_ERROR_INVALID` when the header's values are outside what the
 * simulation allows, `BRAGGSCOPE_ERROR_NOMEM`; nothing changes then.
 *
 * Returns: %TRUE when the geometry was adopted, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
braggscope_simulation_adopt_geometry (BraggscopeSimulation *self,
                                      BraggscopeMeasuredFrame *frame,
                                      GError **error)
{
  g_autofree char *index = NULL;
  const nb_param *file_row = nb_param_find_field (offsetof (nb_params, frame_file));
  const nb_param *index_row = nb_param_find_field (offsetof (nb_params, frame_index));
  const char *args[5];

  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), FALSE);
  g_return_val_if_fail (BRAGGSCOPE_IS_MEASURED_FRAME (frame), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* the engine's -frame makes an NXmx file's own modules the detector
   * (-detector FILE), and with a -detector model takes only the beam */
  index = g_strdup_printf ("%d", braggscope_measured_frame_get_index (frame));
  args[0] = file_row->flag;
  args[1] = braggscope_measured_frame_get_path (frame);
  args[2] = index_row->flag;
  args[3] = index;
  args[4] = NULL;
  return braggscope_simulation_set_from_args (self, args, error);
}

/* ------------------------------------------------------------------------- */
/* Fits */

static void
fit_cancelled (GCancellable *cancellable, gpointer data)
{
  BraggscopeFitJob *job = data;

  g_atomic_int_set (&job->cancel, 1);
}

static void
fit_job_free (BraggscopeFitJob *job)
{
  nb_params_clear (&job->params);
  g_clear_object (&job->measured);
  g_clear_object (&job->task);
  g_free (job);
}

/* structure-factors-note of @info's plan (NULL: none). */
static char *
structure_factors_note (BraggscopeSimulation *self, const nb_plan_info *info)
{
  const char *file = self->params.hkl_file;
  const double *c = info->hkl_cell;
  g_autofree char *name = NULL;
  g_autofree char *what = NULL;
  const char *group = info->hkl_space_group[0] ? info->hkl_space_group : "P 1";

  if (file == NULL || !(c[0] > 0.0) ||
      (info->hkl_d_min <= 0.0 && (self->params.cell[0] != 0.0 || self->params.mat_file != NULL)))
    return NULL;
  name = g_filename_display_basename (file);
  what = info->hkl_d_min > 0.0
             ? g_strdup_printf ("structure factors computed from the atoms of %s", name)
             : g_strdup_printf ("structure factors read from %s", name);
  if (self->params.cell[0] == 0.0 && self->params.mat_file == NULL)
    return g_strdup_printf ("%s; its cell %g %g %g %g %g %g and space group %s are the crystal's",
                            what, c[0], c[1], c[2], c[3], c[4], c[5], group);
  return g_strdup_printf ("%s (cell %g %g %g %g %g %g, space group %s), on the crystal's own cell",
                          what, c[0], c[1], c[2], c[3], c[4], c[5], group);
}

void
_braggscope_simulation_check_hkl_cell (BraggscopeSimulation *self, const nb_plan_info *info)
{
  {
    g_autofree char *note = structure_factors_note (self, info);

    if (g_strcmp0 (note, self->sf_note) != 0)
      {
        g_free (self->sf_note);
        self->sf_note = g_steal_pointer (&note);
        g_object_notify_by_pspec (G_OBJECT (self), props[PROP_STRUCTURE_FACTORS_NOTE]);
      }
  }
  g_autofree char *warning = NULL;
  const char *file = self->params.hkl_file;
  const double *c = info->cell;

  if (file == NULL)
    ;
  else if (info->hkl_cell_differs)
    warning = g_strdup_printf (
        "%s is of the cell %g %g %g %g %g %g (%s), not the crystal's %.4g %.4g %.4g %.4g %.4g "
        "%.4g: its structure factors cannot belong to this crystal",
        file, info->hkl_cell[0], info->hkl_cell[1], info->hkl_cell[2], info->hkl_cell[3],
        info->hkl_cell[4], info->hkl_cell[5],
        info->hkl_space_group[0] ? info->hkl_space_group : "space group not given", c[0], c[1],
        c[2], c[3], c[4], c[5]);
  else if (self->scene_hkl != NULL && g_strcmp0 (file, self->scene_hkl) == 0 &&
           nb_cell_differs (c, self->scene_cell))
    warning = g_strdup_printf (
        "%s holds the default scene's structure factors, of the cell %g %g %g %g %g %g, not the "
        "crystal's %.4g %.4g %.4g %.4g %.4g %.4g: they cannot belong to this crystal",
        file, self->scene_cell[0], self->scene_cell[1], self->scene_cell[2], self->scene_cell[3],
        self->scene_cell[4], self->scene_cell[5], c[0], c[1], c[2], c[3], c[4], c[5]);
  /* said once: the same file under another wrong cell keeps the first words */
  if (g_strcmp0 (warning, self->hkl_warning) == 0 ||
      (warning != NULL && self->hkl_warning != NULL && g_str_has_prefix (self->hkl_warning, file)))
    return;
  g_free (self->hkl_warning);
  self->hkl_warning = g_steal_pointer (&warning);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_HKL_CELL_WARNING]);
}

/* What a fit sets, to tell whether the parameters still hold its result. */
static void
fit_key (const nb_params *p, double key[13])
{
  const double values[13] = { p->misset[0], p->misset[1], p->misset[2],     p->cell[0], p->cell[1],
                              p->cell[2],   p->cell[3],   p->cell[4],       p->cell[5], p->distance,
                              p->Xbeam,     p->Ybeam,     p->ORGX + p->ORGY };

  memcpy (key, values, sizeof values);
}

double
_braggscope_simulation_match_trials (BraggscopeSimulation *self, const nb_params *p)
{
  double key[13];

  if (self->fit_trials <= 1.0 || p->misset_random)
    return 1.0;
  fit_key (p, key);
  return memcmp (key, self->fit_key, sizeof key) == 0 ? self->fit_trials : 1.0;
}

/* The fitted orientation (and detector) of @job onto the current
 * parameters, as one change. */
static gboolean
fit_apply (BraggscopeSimulation *self, const BraggscopeFitJob *job, GError **error)
{
  nb_params next;
  nb_error err = { 0 };

  if (nb_params_copy (&next, &self->params, &err) != NB_OK)
    {
      _braggscope_propagate_nb (error, &err);
      return FALSE;
    }
  memcpy (next.misset, job->params.misset, sizeof next.misset);
  next.misset_random = job->params.misset_random;
  if (job->refine_distance)
    {
      next.distance = job->params.distance;
      next.close_distance = job->params.close_distance;
    }
  /* a -detector model's panels: the whole motion, composed by the refinement, in one change */
  if (next.detector_file != NULL && (job->refine_distance || job->refine_beam))
    {
      memcpy (next.detector_shift, job->params.detector_shift, sizeof next.detector_shift);
      memcpy (next.detector_rotation, job->params.detector_rotation, sizeof next.detector_rotation);
    }
  if (job->refine_beam)
    {
      next.Xbeam = job->params.Xbeam;
      next.Ybeam = job->params.Ybeam;
      next.ORGX = job->params.ORGX;
      next.ORGY = job->params.ORGY;
    }
  if (nb_params_validate (&next, &err) != NB_OK)
    {
      nb_params_clear (&next);
      _braggscope_propagate_nb (error, &err);
      return FALSE;
    }
  fit_key (&next, self->fit_key);
  self->fit_trials = job->score.trials >= 1 ? job->score.trials : 1.0;
  _braggscope_simulation_replace_params (self, &next);
  return TRUE;
}

void
_braggscope_simulation_fit_done (BraggscopeFitJob *job)
{
  GTask *task = job->task;
  BraggscopeSimulation *self = g_task_get_source_object (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  GError *error = NULL;

  g_cancellable_disconnect (cancellable, job->cancel_id);
  if (self->fit_task == task)
    {
      self->fit_task = NULL;
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_FITTING]);
    }
  if (job->status == NB_OK && g_cancellable_is_cancelled (cancellable))
    job->status = nb_error_set (&job->err, NB_ERR_CANCELLED, "fit cancelled");
  if (job->status != NB_OK)
    g_task_return_error (task, _braggscope_error_from_nb (&job->err));
  else if (job->search && !job->score.significant)
    g_task_return_new_error (
        task, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_NO_MATCH,
        "No orientation found: the best the search tried matches %d of %d peaks (%.0f %%) "
        "where chance gives %.1f %% (p %.2g, times %.2g orientations): no better than chance",
        job->score.n_matched, job->score.n_peaks, 100 * job->score.fraction,
        100 * job->score.chance_fraction, job->score.p_value, job->score.trials);
  else if (!fit_apply (self, job, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
  fit_job_free (job);
}

static void
fit_start (BraggscopeSimulation *self,
           gboolean search,
           BraggscopeFitFlags flags,
           GCancellable *cancellable,
           GAsyncReadyCallback callback,
           gpointer user_data,
           gpointer source_tag)
{
  g_autoptr (GTask) task = g_task_new (self, cancellable, callback, user_data);
  BraggscopeFitJob *job;
  nb_error err = { 0 };

  g_task_set_source_tag (task, source_tag);
  g_task_set_check_cancellable (task, FALSE);
  if (self->measured == NULL)
    {
      g_task_return_new_error (task, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                               "%s: no measured frame to fit (measured-frame is not set)",
                               search ? "orientation search" : "refinement");
      return;
    }
  if (self->fit_task != NULL)
    {
      g_task_return_new_error (task, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                               "%s: a fit is running already",
                               search ? "orientation search" : "refinement");
      return;
    }
  /* a -detector model's panels stand for what one flat panel cannot, and cut
   * the frame's array at their data origins (the engine checks the layout) */
  if (braggscope_measured_frame_get_detector_problem (self->measured) != NULL &&
      self->params.detector_file == NULL)
    {
      g_task_return_new_error (task, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_UNSUPPORTED, "%s: %s",
                               braggscope_measured_frame_get_path (self->measured),
                               braggscope_measured_frame_get_detector_problem (self->measured));
      return;
    }
  if (self->params.detector_file == NULL &&
      (braggscope_measured_frame_get_width (self->measured) != self->params.fpixels ||
       braggscope_measured_frame_get_height (self->measured) != self->params.spixels))
    {
      g_task_return_new_error (
          task, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
          "%s: the measured frame is %d x %d pixels, the simulation's detector %d x %d: adopt "
          "the frame's geometry first",
          search ? "orientation search" : "refinement",
          braggscope_measured_frame_get_width (self->measured),
          braggscope_measured_frame_get_height (self->measured), self->params.fpixels,
          self->params.spixels);
      return;
    }
  job = g_new0 (BraggscopeFitJob, 1);
  if (nb_params_copy (&job->params, &self->params, &err) != NB_OK)
    {
      g_free (job);
      g_task_return_error (task, _braggscope_error_from_nb (&err));
      return;
    }
  job->search = search;
  job->refine_distance = (flags & BRAGGSCOPE_FIT_DISTANCE) != 0;
  job->refine_beam = (flags & BRAGGSCOPE_FIT_BEAM_CENTER) != 0;
  job->radius = self->match_radius;
  job->measured = g_object_ref (self->measured);
  job->task = g_object_ref (task);
  if (cancellable != NULL)
    job->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (fit_cancelled), job, NULL);
  self->fit_task = task;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_FITTING]);
  _braggscope_worker_fit (_braggscope_simulation_get_worker (self), job);
}

static gboolean
fit_finish (BraggscopeSimulation *self, GAsyncResult *result, gpointer source_tag, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * braggscope_simulation_refine_async:
 * @self: a simulation
 * @flags: what to adjust besides the orientation
 * @cancellable: (nullable): a [class@Gio.Cancellable], or %NULL
 * @callback: (scope async): called on the simulation's main context when
 *   the refinement ends
 * @user_data: data for @callback
 *
 * Refines the crystal's orientation (misset), and the distance and beam
 * centre when @flags asks, from the current parameters to match the peaks
 * of [property@Braggscope.Simulation:measured-frame]: Nelder-Mead simplex
 * searches of the engine's `nb_refine()` (see the engine's C API), first in
 * reciprocal space, then on the distances of the measured peaks to the
 * predicted reflections, narrowing to
 * [property@Braggscope.Simulation:match-radius].  The result is never worse
 * than the start.
 *
 * It runs on the simulation's worker thread (frames wait for it), reports
 * [signal@Braggscope.Simulation::fit-progress], and stops soon after
 * @cancellable is cancelled.  On success the refined values are set as one
 * change (the properties that changed are notified and the new parameters
 * render); the misset then holds explicit angles, even where it was
 * `-misset random`.  Call [method@Braggscope.Simulation.refine_finish] in
 * @callback.
 *
 * Since: 0.1
 */
void
braggscope_simulation_refine_async (BraggscopeSimulation *self,
                                    BraggscopeFitFlags flags,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  g_return_if_fail (BRAGGSCOPE_IS_SIMULATION (self));
  fit_start (self, FALSE, flags, cancellable, callback, user_data,
             braggscope_simulation_refine_async);
}

/**
 * braggscope_simulation_get_detector_motion:
 * @self: a simulation
 * @shift: (out caller-allocates) (array fixed-size=3): the panels' shift, mm,
 *   in nanoBragg's lab frame (x along the beam)
 * @rotation: (out caller-allocates) (array fixed-size=3): the rotation
 *   vector turning them about the sample, degrees (a turn by its length
 *   about its direction), applied before @shift
 *
 * How far the multi-panel detector (the parameters' `-detector` model) is
 * moved from where its geometry file puts it, as one rigid body: the
 * parameters' `-detector_shift` and `-detector_rotation`, which a fit of
 * the distance or beam centre sets.  Zeros without a
 * `-detector` model.
 *
 * Returns: %TRUE when the simulation has a `-detector` model
 *
 * Since: 0.1
 */
gboolean
braggscope_simulation_get_detector_motion (BraggscopeSimulation *self,
                                           double *shift,
                                           double *rotation)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), FALSE);
  g_return_val_if_fail (shift != NULL && rotation != NULL, FALSE);

  for (int k = 0; k < 3; k++)
    {
      shift[k] = self->params.detector_shift[k] * 1e3;
      rotation[k] = self->params.detector_rotation[k] * (180.0 / G_PI);
    }
  return self->params.detector_file != NULL;
}

/**
 * braggscope_simulation_refine_finish:
 * @self: a simulation
 * @result: the [iface@Gio.AsyncResult] given to the callback
 * @error: return location for a [struct@GLib.Error], or %NULL
 *
 * Ends [method@Braggscope.Simulation.refine_async].  Fails with
 * `BRAGGSCOPE_ERROR_CANCELLED` when cancelled (the parameters are then
 * unchanged), `BRAGGSCOPE_ERROR_INVALID` without a measured frame, with a
 * fit already running, with fewer than 3 measured peaks, without a unit
 * cell or when the simulation's detector is not the frame's size,
 * `BRAGGSCOPE_ERROR_UNSUPPORTED` for a frame whose detector one flat panel
 * cannot represent ([method@Braggscope.MeasuredFrame.get_detector_problem]),
 * `BRAGGSCOPE_ERROR_IO` or `BRAGGSCOPE_ERROR_PARSE` for an input
 * file of the parameters the engine cannot read, and
 * `BRAGGSCOPE_ERROR_NOMEM`.  A refinement that ends no better than chance
 * is set all the same (it is never worse than its start):
 * [property@Braggscope.Simulation:match-significant] then says %FALSE.
 *
 * Returns: %TRUE when the refined values were set, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
braggscope_simulation_refine_finish (BraggscopeSimulation *self,
                                     GAsyncResult *result,
                                     GError **error)
{
  return fit_finish (self, result, braggscope_simulation_refine_async, error);
}

/**
 * braggscope_simulation_search_orientation_async:
 * @self: a simulation
 * @flags: what to adjust besides the orientation in the final refinement
 * @cancellable: (nullable): a [class@Gio.Cancellable], or %NULL
 * @callback: (scope async): called on the simulation's main context when
 *   the search ends
 * @user_data: data for @callback
 *
 * Finds the orientation of the simulation's unit cell that best explains
 * the peaks of [property@Braggscope.Simulation:measured-frame], whatever the
 * current orientation: the engine's `nb_orientation_search()` scores a
 * coarse grid over all orientations (1.5 degrees apart) and the orientations
 * whose cell edges lie along the lattice rows the peaks show on predicted
 * spot positions alone, then refines the best distinct candidates as
 * [method@Braggscope.Simulation.refine_async] does.  The cell's lattice
 * symmetry comes from its metric: orientations that differ by a rotation of
 * the lattice onto itself are one candidate; the space group's own
 * (structure-factor) symmetry plays no part.
 *
 * Runs on the worker thread, with progress and cancellation as
 * [method@Braggscope.Simulation.refine_async]; on success the orientation
 * found is set as one change, when it is better than chance (the
 * candidates are ranked by significance, so a dense lattice does not win by
 * covering the frame).  A search takes seconds to minutes, with the cell's
 * size and the number of peaks.  Call
 * [method@Braggscope.Simulation.search_orientation_finish] in @callback.
 *
 * Since: 0.1
 */
void
braggscope_simulation_search_orientation_async (BraggscopeSimulation *self,
                                                BraggscopeFitFlags flags,
                                                GCancellable *cancellable,
                                                GAsyncReadyCallback callback,
                                                gpointer user_data)
{
  g_return_if_fail (BRAGGSCOPE_IS_SIMULATION (self));
  fit_start (self, TRUE, flags, cancellable, callback, user_data,
             braggscope_simulation_search_orientation_async);
}

/**
 * braggscope_simulation_search_orientation_finish:
 * @self: a simulation
 * @result: the [iface@Gio.AsyncResult] given to the callback
 * @error: return location for a [struct@GLib.Error], or %NULL
 *
 * Ends [method@Braggscope.Simulation.search_orientation_async].  Fails as
 * [method@Braggscope.Simulation.refine_finish] does
 * (`BRAGGSCOPE_ERROR_CANCELLED`, `BRAGGSCOPE_ERROR_INVALID`,
 * `BRAGGSCOPE_ERROR_IO`, `BRAGGSCOPE_ERROR_PARSE`,
 * `BRAGGSCOPE_ERROR_NOMEM`, `BRAGGSCOPE_ERROR_UNSUPPORTED`), with
 * `BRAGGSCOPE_ERROR_INVALID` when no candidate orientation was found at all,
 * and with `BRAGGSCOPE_ERROR_NO_MATCH` when the best orientation found is no
 * better than chance: its p-value (the binomial tail of its matched peaks
 * against the fraction of the frame its predictions cover), times the
 * orientations the search told apart, is not below 0.001.  The parameters
 * are unchanged then; the message gives the best score and its chance.
 *
 * Returns: %TRUE when the orientation found was set, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
braggscope_simulation_search_orientation_finish (BraggscopeSimulation *self,
                                                 GAsyncResult *result,
                                                 GError **error)
{
  return fit_finish (self, result, braggscope_simulation_search_orientation_async, error);
}
