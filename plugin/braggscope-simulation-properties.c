/* braggscope-simulation-properties.c: BraggscopeSimulation's properties.
 *
 * The parameter properties are generated, at class init, from the engine's
 * parameter table (nb-param.h): one property per row with a property name,
 * of the row's type, in its flag's unit, with its label as nick and its help
 * as blurb.  They are read and written through the table
 * (nb_param_get_number(), nb_param_set_number()...), so a property converts,
 * checks and has the side effects of its flag, and refuses what the command
 * line refuses, with the same message after the property's name.  The
 * simulation's own properties (previews, busy, sequence) are written out
 * below.
 *
 * Each property also carries BraggscopeControlHints (its unit symbol and the
 * range a slider spans) for BraggscopeControls.
 */
#include "braggscope-simulation-private.h"

#include "braggscope-control-hints-private.h"
#include "braggscope-enums.h"
#include "nb-param.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

/* The public enums are the engine's, value for value, so that a host may
 * hand either to the other; properties map them by nick (the table's words). */
G_STATIC_ASSERT ((int) BRAGGSCOPE_SHAPE_SQUARE == (int) NB_SHAPE_SQUARE);
G_STATIC_ASSERT ((int) BRAGGSCOPE_SHAPE_ROUND == (int) NB_SHAPE_ROUND);
G_STATIC_ASSERT ((int) BRAGGSCOPE_SHAPE_GAUSS == (int) NB_SHAPE_GAUSS);
G_STATIC_ASSERT ((int) BRAGGSCOPE_SHAPE_TOPHAT == (int) NB_SHAPE_TOPHAT);
G_STATIC_ASSERT ((int) BRAGGSCOPE_CONVENTION_CUSTOM == (int) NB_CONVENTION_CUSTOM);
G_STATIC_ASSERT ((int) BRAGGSCOPE_CONVENTION_ADXV == (int) NB_CONVENTION_ADXV);
G_STATIC_ASSERT ((int) BRAGGSCOPE_CONVENTION_MOSFLM == (int) NB_CONVENTION_MOSFLM);
G_STATIC_ASSERT ((int) BRAGGSCOPE_CONVENTION_XDS == (int) NB_CONVENTION_XDS);
G_STATIC_ASSERT ((int) BRAGGSCOPE_CONVENTION_DIALS == (int) NB_CONVENTION_DIALS);
G_STATIC_ASSERT ((int) BRAGGSCOPE_CONVENTION_DENZO == (int) NB_CONVENTION_DENZO);

enum
{
  PROP_0,
  PROP_PREVIEW_WHILE_DRAGGING,
  PROP_PREVIEW_STRIDE,
  PROP_MAX_ARC_DOMAINS,
  PROP_BATCH,
  /* read-only */
  PROP_BUSY,
  PROP_SEQUENCE,
  N_OWN_PROPS
  /* then the parameter properties, N_OWN_PROPS + their place in param_rows */
};

#define MAX_PARAM_PROPS _BRAGGSCOPE_MAX_PARAM_PROPS

static GParamSpec *own_props[N_OWN_PROPS];
/* the measured frame's properties follow the parameters' */
static guint measured_first;
static const nb_param *param_rows[MAX_PARAM_PROPS];
static GParamSpec *param_props[MAX_PARAM_PROPS];
static guint n_param_props;

static const BraggscopeControlHints preview_stride_hints = { "px", 1, 16, 1, 0, NULL };

/* ------------------------------------------------------------------------- */
/* Creating the parameter properties */

/* The public enum whose nicks are the words of @row's choices, if any: the
 * crystal shape, the convention, the precision, the integration and the
 * backend. */
static GType
choice_enum_type (const nb_param *row)
{
  GType types[] = { BRAGGSCOPE_TYPE_SHAPE, BRAGGSCOPE_TYPE_CONVENTION, BRAGGSCOPE_TYPE_PRECISION,
                    BRAGGSCOPE_TYPE_INTEGRATION, BRAGGSCOPE_TYPE_BACKEND };

  for (gsize t = 0; t < G_N_ELEMENTS (types); t++)
    {
      g_autoptr (GEnumClass) klass = g_type_class_ref (types[t]);
      guint words = 0, found = 0;

      for (const nb_choice *c = row->choices; c->word != NULL; c++, words++)
        found += g_enum_get_value_by_nick (klass, c->word) != NULL;
      if (words == klass->n_values && found == words)
        return types[t];
    }
  return G_TYPE_INVALID;
}

/* The number properties' pspecs: GParamSpecDouble and GParamSpecInt whose
 * minimum and maximum are the parameter table's range
 * (nb_param_property_range), for hosts and inspectors, but which never clamp
 * or refuse a value themselves.  The simulation judges every value as the
 * engine does and refuses one with the engine's message, naming the flag and
 * the range, through BraggscopeSimulation::error (or the GError of
 * braggscope_simulation_set_value()); GObject's own check would clamp a lax
 * value silently, or refuse a strict one with a warning no host can catch,
 * and would refuse NaN, which sets an automatic beam centre. */
static gboolean
param_value_keep (GParamSpec *pspec, GValue *value)
{
  return FALSE;
}

static gboolean
param_value_any (GParamSpec *pspec, const GValue *value)
{
  return TRUE;
}

static void
param_class_init (gpointer klass, gpointer data)
{
  GParamSpecClass *pspec_class = klass;

  pspec_class->value_validate = param_value_keep;
  pspec_class->value_is_valid = param_value_any;
}

static GType
param_type (GType parent)
{
  static GType types[2];
  int i = parent == G_TYPE_PARAM_DOUBLE ? 0 : 1;

  if (types[i] == 0)
    types[i] = g_type_register_static_simple (
        parent, i == 0 ? "BraggscopeParamDouble" : "BraggscopeParamInt", sizeof (GParamSpecClass),
        param_class_init, i == 0 ? sizeof (GParamSpecDouble) : sizeof (GParamSpecInt), NULL, 0);
  return types[i];
}

static GParamSpec *
param_spec (const nb_param *row, const nb_params *defaults)
{
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  double lower, upper, v;

  if (row->kind == NB_PARAM_CHOICE)
    {
      GType type = choice_enum_type (row);
      const char *word = nb_param_get_text (row, defaults);

      if (type != G_TYPE_INVALID)
        {
          g_autoptr (GEnumClass) klass = g_type_class_ref (type);

          return g_param_spec_enum (row->property, row->label, row->help, type,
                                    g_enum_get_value_by_nick (klass, word)->value, flags);
        }
      return g_param_spec_string (row->property, row->label, row->help, word, flags);
    }
  if (row->kind == NB_PARAM_TEXT)
    return g_param_spec_string (row->property, row->label, row->help, NULL, flags);
  nb_param_property_range (row, &lower, &upper);
  v = nb_param_get_number (row, defaults, NULL);
  v = isfinite (v) ? CLAMP (v, lower, upper) : CLAMP (0.0, lower, upper);
  if (row->kind == NB_PARAM_WHOLE)
    {
      GParamSpecInt *spec = g_param_spec_internal (param_type (G_TYPE_PARAM_INT), row->property,
                                                   row->label, row->help, flags);

      spec->minimum = (int) MAX (lower, G_MININT);
      spec->maximum = (int) MIN (upper, G_MAXINT);
      spec->default_value = (int) v;
      return G_PARAM_SPEC (spec);
    }
  {
    GParamSpecDouble *spec = g_param_spec_internal (param_type (G_TYPE_PARAM_DOUBLE), row->property,
                                                    row->label, row->help, flags);

    spec->minimum = lower;
    spec->maximum = upper;
    spec->default_value = v;
    return G_PARAM_SPEC (spec);
  }
}

/* The simulation's defaults: nanoBragg's, on a 512 x 512 detector, with
 * adaptive integration (tolerance 1e-3, the engine's) for the full frames. */
void
_braggscope_simulation_default_params (nb_params *p)
{
  nb_params_init (p);
  p->fpixels = p->spixels = 512;
  p->integration = NB_INTEGRATION_ADAPTIVE;
}

static void
install_param_props (GObjectClass *klass)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);
  nb_params defaults;
  GQuark hints_quark = g_quark_from_static_string (BRAGGSCOPE_CONTROL_HINTS_KEY);

  _braggscope_simulation_default_params (&defaults);
  for (size_t i = 0; i < n; i++)
    {
      const nb_param *row = &rows[i];
      BraggscopeControlHints *hints;
      GParamSpec *pspec;

      if (row->property == NULL)
        continue;
      g_assert (n_param_props < MAX_PARAM_PROPS);
      pspec = param_spec (row, &defaults);
      /* class data: kept for the life of the process, as the class is */
      hints = g_new0 (BraggscopeControlHints, 1);
      hints->unit = nb_param_unit_symbol (row);
      hints->lower = row->ui_lower;
      hints->upper = row->ui_upper;
      hints->step = row->ui_step;
      hints->digits = row->ui_digits;
      if (G_IS_PARAM_SPEC_STRING (pspec) && row->choices != NULL)
        {
          /* the words of a string property (the backend), for a drop-down */
          GPtrArray *words = g_ptr_array_new ();

          for (const nb_choice *c = row->choices; c->word != NULL; c++)
            g_ptr_array_add (words, (gpointer) c->word);
          g_ptr_array_add (words, NULL);
          hints->choices = (const char *const *) g_ptr_array_free (words, FALSE);
        }
      g_param_spec_set_qdata (pspec, hints_quark, hints);
      param_rows[n_param_props] = row;
      param_props[n_param_props] = pspec;
      g_object_class_install_property (klass, N_OWN_PROPS + n_param_props, pspec);
      n_param_props++;
    }
  nb_params_clear (&defaults);
}

void
_braggscope_simulation_install_properties (GObjectClass *klass)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  /**
   * BraggscopeSimulation:preview-while-dragging:
   *
   * Whether each change first renders a coarse preview (one simulated pixel
   * per [property@Braggscope.Simulation:preview-stride]² block), then the
   * full frame.  Without previews every change renders the full frame only,
   * and a newer change cancels it, so a continuous drag may show nothing new
   * until it stops.  On by default.
   *
   * Since: 0.1
   */
  own_props[PROP_PREVIEW_WHILE_DRAGGING] =
      g_param_spec_boolean ("preview-while-dragging", N_ ("Preview while dragging"),
                            N_ ("Render previews while parameters change"), TRUE, rw);
  /**
   * BraggscopeSimulation:preview-stride:
   *
   * The side, in pixels, of the square blocks of a preview: a preview
   * simulates one pixel per block and copies it to the whole block, so it
   * costs about 1/stride² of a full frame.  1 to 64, default 4; below 2 no
   * previews are rendered.  Takes effect at the next change.
   *
   * Since: 0.1
   */
  own_props[PROP_PREVIEW_STRIDE] = g_param_spec_int (
      "preview-stride", N_ ("Preview stride"), N_ ("Preview block size (pixels)"), 1, 64, 4, rw);
  g_param_spec_set_qdata (own_props[PROP_PREVIEW_STRIDE],
                          g_quark_from_static_string (BRAGGSCOPE_CONTROL_HINTS_KEY),
                          (gpointer) &preview_stride_hints);
  /**
   * BraggscopeSimulation:max-arc-domains:
   *
   * Smooth mosaic arcs: when the mosaic spread makes the domains draw
   * separate copies of each spot, full frames are rendered with as many
   * domains as make the copies merge (the engine's nb_plan_arc_domains:
   * (spread / w)^2, w = d_min / (N a) the angle of a spot's own width), up to
   * this many (a count); previews keep the parameters' count, so dragging
   * stays as fast.  A frame says how many it used
   * ([method@Braggscope.Frame.get_mosaic_domains]).  0 (the default)
   * renders exactly the parameters' count, as nanoBragg does.
   *
   * Since: 0.1
   */
  own_props[PROP_MAX_ARC_DOMAINS] = g_param_spec_int (
      "max-arc-domains", N_ ("Smooth mosaic arcs"),
      N_ ("Most mosaic domains a full frame may use to draw arcs (0: off)"), 0, 10000, 0, rw);
  /**
   * BraggscopeSimulation:batch:
   *
   * Batch mode, for a script or a data set that queues changes: every
   * accepted change gets its own full frame, in order, with no preview
   * before it, and no change replaces or cancels the frames of the changes
   * before it (the worker renders them in turn while the caller goes on
   * setting parameters).  Off by default: a viewer wants the newest
   * parameters fast, so changes are coalesced and previewed.  Switching it
   * off makes the next change replace the frames still queued.
   *
   * Since: 0.1
   */
  own_props[PROP_BATCH] = g_param_spec_boolean (
      "batch", N_ ("Batch mode"), N_ ("Render every change in full, in order"), FALSE, rw);
  /**
   * BraggscopeSimulation:busy:
   *
   * %TRUE from a render request until the full frame of the newest parameters,
   * or the error that ended its render, has been delivered.  Read-only;
   * notified on the simulation's main context.
   *
   * Since: 0.1
   */
  own_props[PROP_BUSY] =
      g_param_spec_boolean ("busy", NULL, N_ ("A frame is being rendered"), FALSE, ro);
  /**
   * BraggscopeSimulation:sequence:
   *
   * The number of parameter changes accepted so far (a count, 0 for a new
   * simulation): each property change the engine accepts, and each successful
   * [method@Braggscope.Simulation.set_from_args], adds one; a refused value
   * or a value equal to the current one adds nothing.  Every frame carries the
   * number of the change it answers ([property@Braggscope.Frame:sequence]).
   * Read-only.
   *
   * Since: 0.1
   */
  own_props[PROP_SEQUENCE] = g_param_spec_uint64 (
      "sequence", NULL, N_ ("Accepted parameter changes (count)"), 0, G_MAXUINT64, 0, ro);
  g_object_class_install_properties (klass, N_OWN_PROPS, own_props);
  install_param_props (klass);
  measured_first = N_OWN_PROPS + n_param_props;
  _braggscope_simulation_install_measured_properties (klass, measured_first);
}

/* ------------------------------------------------------------------------- */
/* Reading */

static const nb_param *
param_row (guint prop_id)
{
  return prop_id >= N_OWN_PROPS && prop_id < N_OWN_PROPS + n_param_props
             ? param_rows[prop_id - N_OWN_PROPS]
             : NULL;
}

static guint
param_index (const nb_param *row)
{
  for (guint i = 0; i < n_param_props; i++)
    if (param_rows[i] == row)
      return i;
  g_assert_not_reached ();
}

/* @row's place in -cell (0 to 5: a b c alpha beta gamma), or -1 when it is
 * not one of the cell's components. */
static int
cell_component (const nb_param *row)
{
  const size_t first = offsetof (nb_params, cell);

  if (!(row->flags & NB_PARAM_COMPONENT) || row->n_field != 1 || row->field[0] < first ||
      row->field[0] >= first + sizeof ((nb_params *) NULL)->cell)
    return -1;
  return (int) ((row->field[0] - first) / sizeof (double));
}

/* The crystal's cell as the last plan built it, when the parameters give
 * none (an atomic model's own cell): @cell in the fields' units (Angstrom,
 * rad); FALSE when the parameters give one, a -mat gives it, or no plan was
 * built yet. */
static gboolean
plan_cell (BraggscopeSimulation *self, const nb_params *p, double cell[6])
{
  if (p->cell[0] != 0.0 || p->mat_file != NULL || !self->have_info || !(self->info.cell[0] > 0.0))
    return FALSE;
  for (int i = 0; i < 6; i++)
    cell[i] = i < 3 ? self->info.cell[i] : self->info.cell[i] * (G_PI / 180.0);
  return TRUE;
}

void
_braggscope_simulation_follow_model_cell (BraggscopeSimulation *self,
                                          const nb_params *before,
                                          nb_params *next,
                                          gboolean gave_cell)
{
  if (gave_cell || next->mat_file != NULL || g_strcmp0 (next->hkl_file, before->hkl_file) == 0)
    return;
  if (nb_params_hkl_is_model (next))
    memset (next->cell, 0, sizeof next->cell);
  else
    plan_cell (self, next, next->cell);
}

static void
get_param (BraggscopeSimulation *self, const nb_param *row, GValue *value)
{
  const nb_plan_info *info = self->have_info ? &self->info : NULL;
  const BraggscopeTyped *typed = &self->typed[param_index (row)];

  if (G_VALUE_HOLDS_ENUM (value))
    {
      g_autoptr (GEnumClass) klass = g_type_class_ref (G_VALUE_TYPE (value));
      GEnumValue *v = g_enum_get_value_by_nick (klass, nb_param_get_text (row, &self->params));

      g_value_set_enum (value, v != NULL ? v->value : 0);
    }
  else if (G_VALUE_HOLDS_STRING (value))
    g_value_set_string (value, nb_param_get_text (row, &self->params));
  else if (G_VALUE_HOLDS_INT (value))
    g_value_set_int (value, (int) nb_param_get_number (row, &self->params, info));
  else
    {
      double reads = nb_param_get_number (row, &self->params, info);
      double cell[6];
      int k = cell_component (row);

      /* no -cell: the crystal's, an atomic model's own */
      if (k >= 0 && plan_cell (self, &self->params, cell))
        reads = k < 3 ? cell[k] : cell[k] * (180.0 / G_PI);

      g_value_set_double (value, typed->set && typed->reads == reads ? typed->value : reads);
    }
}

/* After @row's property was set to @value: remembers it while the property
 * reads what it reads now. */
static void
remember_typed (BraggscopeSimulation *self, const nb_param *row, const GValue *value)
{
  BraggscopeTyped *typed = &self->typed[param_index (row)];

  typed->set = G_VALUE_HOLDS_DOUBLE (value);
  if (typed->set)
    {
      typed->value = g_value_get_double (value);
      typed->reads = nb_param_get_number (row, &self->params, self->have_info ? &self->info : NULL);
    }
}

void
_braggscope_simulation_get_property (GObject *object,
                                     guint prop_id,
                                     GValue *value,
                                     GParamSpec *pspec)
{
  BraggscopeSimulation *self = BRAGGSCOPE_SIMULATION (object);
  const nb_param *row = param_row (prop_id);

  if (row != NULL)
    {
      get_param (self, row, value);
      return;
    }
  switch (prop_id)
    {
      case PROP_PREVIEW_WHILE_DRAGGING:
        g_value_set_boolean (value, self->preview_while_dragging);
        break;
      case PROP_PREVIEW_STRIDE:
        g_value_set_int (value, self->preview_stride);
        break;
      case PROP_MAX_ARC_DOMAINS:
        g_value_set_int (value, self->max_arc_domains);
        break;
      case PROP_BATCH:
        g_value_set_boolean (value, self->batch);
        break;
      case PROP_BUSY:
        g_value_set_boolean (value, self->busy);
        break;
      case PROP_SEQUENCE:
        g_value_set_uint64 (value, self->sequence);
        break;
      default:
        if (prop_id < measured_first ||
            !_braggscope_simulation_get_measured_property (self, prop_id - measured_first, value))
          G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

GValue *
_braggscope_simulation_snapshot (BraggscopeSimulation *self)
{
  GValue *values = g_new0 (GValue, n_param_props);

  for (guint i = 0; i < n_param_props; i++)
    {
      g_value_init (&values[i], param_props[i]->value_type);
      get_param (self, param_rows[i], &values[i]);
    }
  return values;
}

void
_braggscope_simulation_notify_changed (BraggscopeSimulation *self, GValue *before)
{
  GValue now = G_VALUE_INIT;

  g_object_freeze_notify (G_OBJECT (self));
  for (guint i = 0; i < n_param_props; i++)
    {
      g_value_init (&now, param_props[i]->value_type);
      get_param (self, param_rows[i], &now);
      if (g_param_values_cmp (param_props[i], &before[i], &now) != 0 ||
          (G_VALUE_HOLDS_DOUBLE (&now) &&
           isnan (g_value_get_double (&now)) != isnan (g_value_get_double (&before[i]))))
        g_object_notify_by_pspec (G_OBJECT (self), param_props[i]);
      g_value_unset (&now);
      g_value_unset (&before[i]);
    }
  g_free (before);
  g_object_thaw_notify (G_OBJECT (self));
}

void
_braggscope_simulation_set_info (BraggscopeSimulation *self, const nb_plan_info *info)
{
  GValue *before;

  if (self->have_info && memcmp (&self->info, info, sizeof *info) == 0)
    return;
  before = _braggscope_simulation_snapshot (self);
  self->info = *info;
  self->have_info = TRUE;
  _braggscope_simulation_notify_changed (self, before);
  _braggscope_simulation_check_hkl_cell (self, info);
}

void
_braggscope_simulation_notify_busy (BraggscopeSimulation *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), own_props[PROP_BUSY]);
}

void
_braggscope_simulation_notify_sequence (BraggscopeSimulation *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), own_props[PROP_SEQUENCE]);
}

/* ------------------------------------------------------------------------- */
/* Writing */

static gboolean
set_file (BraggscopeSimulation *self,
          const nb_param *row,
          const char *path,
          nb_params *next,
          GError **error)
{
  nb_error err = { 0 };

  /* a file to read is refused here if the plan could not open it */
  if (nb_params_copy (next, &self->params, &err) != NB_OK ||
      nb_param_set_text (row, next, path, &err) != NB_OK ||
      nb_params_check_inputs (next, &self->params, &err) != NB_OK)
    {
      nb_params_clear (next);
      _braggscope_propagate_nb (error, &err);
      return FALSE;
    }
  return TRUE;
}

/* @next: @self's parameters with @row set to @value, as its flag would set
 * it.  Numbers and words leave the strings shared with @self->params; a file
 * name makes @next a deep copy (*@deep). */
static gboolean
apply_value (BraggscopeSimulation *self,
             const nb_param *row,
             const GValue *value,
             nb_params *next,
             gboolean *deep,
             GError **error)
{
  nb_error err = { 0 };
  nb_status st;

  *deep = FALSE;
  *next = self->params;
  if (G_VALUE_HOLDS_STRING (value) && row->kind == NB_PARAM_TEXT)
    {
      if (!set_file (self, row, g_value_get_string (value), next, error))
        return FALSE;
      _braggscope_simulation_follow_model_cell (self, &self->params, next, FALSE);
      return (*deep = TRUE);
    }
  /* one edge or angle of a model's cell: the others stay the model's */
  if (cell_component (row) >= 0)
    plan_cell (self, next, next->cell);
  if (G_VALUE_HOLDS_ENUM (value))
    {
      g_autoptr (GEnumClass) klass = g_type_class_ref (G_VALUE_TYPE (value));
      GEnumValue *v = g_enum_get_value (klass, g_value_get_enum (value));

      st = nb_param_set_text (row, next, v != NULL ? v->value_nick : "", &err);
    }
  else if (G_VALUE_HOLDS_STRING (value))
    st = nb_param_set_text (row, next, g_value_get_string (value), &err);
  else if (G_VALUE_HOLDS_INT (value))
    st = nb_param_set_number (row, next, g_value_get_int (value), &err);
  else
    st = nb_param_set_number (row, next, g_value_get_double (value), &err);
  if (st != NB_OK)
    _braggscope_propagate_nb (error, &err);
  return st == NB_OK;
}

/* Sets @row's property to @value as its flag would: FALSE with @error (the
 * message after the property's name) when the engine refuses it. */
static gboolean
set_param (BraggscopeSimulation *self,
           const nb_param *row,
           GParamSpec *pspec,
           const GValue *value,
           GError **error)
{
  g_autoptr (GError) local = NULL;
  nb_params next;
  nb_error err = { 0 };
  gboolean deep;
  GValue *before;

  if (!apply_value (self, row, value, &next, &deep, &local))
    goto refused;
  if (deep ? g_strcmp0 (nb_param_get_text (row, &next), nb_param_get_text (row, &self->params)) == 0
           : memcmp (&next, &self->params, sizeof next) == 0)
    {
      if (deep)
        nb_params_clear (&next);
      remember_typed (self, row, value);
      return TRUE;
    }
  if (nb_params_validate (&next, &err) != NB_OK)
    {
      local = _braggscope_error_from_nb (&err);
      if (deep)
        nb_params_clear (&next);
      goto refused;
    }
  before = _braggscope_simulation_snapshot (self);
  if (deep)
    nb_params_clear (&self->params);
  self->params = next;
  remember_typed (self, row, value);
  _braggscope_simulation_notify_changed (self, before);
  _braggscope_simulation_changed (self);
  return TRUE;

refused:
  g_prefix_error (&local, "%s: ", pspec->name);
  g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

void
_braggscope_simulation_set_property (GObject *object,
                                     guint prop_id,
                                     const GValue *value,
                                     GParamSpec *pspec)
{
  BraggscopeSimulation *self = BRAGGSCOPE_SIMULATION (object);
  const nb_param *row = param_row (prop_id);

  if (!_braggscope_simulation_check_thread (self, pspec->name))
    return;
  if (row != NULL)
    {
      g_autoptr (GError) error = NULL;

      if (!set_param (self, row, pspec, value, &error))
        _braggscope_simulation_emit_error (self, error);
      return;
    }
  switch (prop_id)
    {
      case PROP_PREVIEW_WHILE_DRAGGING:
        if (self->preview_while_dragging != g_value_get_boolean (value))
          {
            self->preview_while_dragging = g_value_get_boolean (value);
            g_object_notify_by_pspec (object, pspec);
          }
        break;
      case PROP_PREVIEW_STRIDE:
        if (self->preview_stride != g_value_get_int (value))
          {
            self->preview_stride = g_value_get_int (value);
            g_object_notify_by_pspec (object, pspec);
          }
        break;
      case PROP_MAX_ARC_DOMAINS:
        if (self->max_arc_domains != g_value_get_int (value))
          {
            self->max_arc_domains = g_value_get_int (value);
            g_object_notify_by_pspec (object, pspec);
            /* the full frame changes: render it again */
            _braggscope_simulation_changed (self);
          }
        break;
      case PROP_BATCH:
        if (self->batch != g_value_get_boolean (value))
          {
            self->batch = g_value_get_boolean (value);
            g_object_notify_by_pspec (object, pspec);
          }
        break;
      default:
        if (prop_id < measured_first ||
            !_braggscope_simulation_set_measured_property (self, prop_id - measured_first, value))
          G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* ------------------------------------------------------------------------- */
/* For bindings: a setter that raises, and the slider hints */

/* @src as a value of @pspec's type in @dest (initialised here): numbers
 * convert when exact, a string names an enum value by nick or name. */
static gboolean
value_for_pspec (GParamSpec *pspec, const GValue *src, GValue *dest, GError **error)
{
  GType want = G_PARAM_SPEC_VALUE_TYPE (pspec);

  g_value_init (dest, want);
  if (G_VALUE_TYPE (src) == want)
    {
      g_value_copy (src, dest);
      return TRUE;
    }
  if (G_VALUE_HOLDS_STRING (src) && G_TYPE_IS_ENUM (want) && g_value_get_string (src) != NULL)
    {
      g_autoptr (GEnumClass) klass = g_type_class_ref (want);
      const char *word = g_value_get_string (src);
      GEnumValue *v = g_enum_get_value_by_nick (klass, word);

      if (v == NULL)
        v = g_enum_get_value_by_name (klass, word);
      if (v != NULL)
        {
          g_value_set_enum (dest, v->value);
          return TRUE;
        }
    }
  else if (want == G_TYPE_INT && g_value_type_transformable (G_VALUE_TYPE (src), G_TYPE_DOUBLE) &&
           !G_VALUE_HOLDS_STRING (src))
    {
      GValue number = G_VALUE_INIT;
      double x;

      g_value_init (&number, G_TYPE_DOUBLE);
      g_value_transform (src, &number);
      x = g_value_get_double (&number);
      if (x == floor (x) && x >= G_MININT && x <= G_MAXINT)
        {
          g_value_set_int (dest, (int) x);
          return TRUE;
        }
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                   "%s: %g is not a whole number of the int range", pspec->name, x);
      g_value_unset (dest);
      return FALSE;
    }
  else if (!G_VALUE_HOLDS_STRING (src) && g_value_type_transformable (G_VALUE_TYPE (src), want) &&
           g_value_transform (src, dest))
    return TRUE;
  g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID, "%s: a %s, not a %s", pspec->name,
               g_type_name (want), G_VALUE_TYPE_NAME (src));
  g_value_unset (dest);
  return FALSE;
}

/**
 * braggscope_simulation_set_value:
 * @self: a simulation
 * @name: a property's name, such as `wavelength` or `misset-x`
 * @value: the value: of the property's type, or one that converts to it
 *   exactly (an integer for a double, a whole number for an int, an enum
 *   value's nick or name as a string)
 * @error: return location for a [struct@GLib.Error], or %NULL
 *
 * Sets a property and says whether it was accepted: the setter for bindings
 * and scripts, where a value refused through
 * [signal@Braggscope.Simulation::error] would go unnoticed.  A value
 * accepted is exactly [method@GObject.Object.set_property]'s (a change,
 * notified, rendered); a value refused changes nothing, emits nothing and
 * fails here, with the message the signal would have carried.  In Python:
 * `sim.set_value("wavelength", 1.2)` raises `GLib.Error`.
 *
 * Fails with `BRAGGSCOPE_ERROR_INVALID` for an unknown or read-only property,
 * a value of another type, or a value the engine refuses (the message starts
 * with the property's name, then names the flag, the value and what is
 * allowed); `BRAGGSCOPE_ERROR_IO` for a file name that names no readable
 * file; `BRAGGSCOPE_ERROR_FAILED` on another thread than the simulation's.
 *
 * Returns: %TRUE when the value was set, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
braggscope_simulation_set_value (BraggscopeSimulation *self,
                                 const char *name,
                                 const GValue *value,
                                 GError **error)
{
  GParamSpec *pspec;
  GValue converted = G_VALUE_INIT;
  const nb_param *row;
  gboolean ok = TRUE;

  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (G_IS_VALUE (value), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (self), name);
  if (pspec == NULL || !(pspec->flags & G_PARAM_WRITABLE))
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID,
                   pspec == NULL ? "%s: no such property of a simulation" : "%s: read-only", name);
      return FALSE;
    }
  if (g_thread_self () != self->owner)
    {
      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_FAILED,
                   "%s: set on another thread than the simulation's", pspec->name);
      return FALSE;
    }
  if (!value_for_pspec (pspec, value, &converted, error))
    return FALSE;
  row = param_row (pspec->param_id);
  if (row != NULL)
    ok = set_param (self, row, pspec, &converted, error);
  else if (g_param_value_validate (pspec, &converted))
    {
      g_autofree char *shown = g_strdup_value_contents (value);

      g_set_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID, "%s: %s is out of its range",
                   pspec->name, shown);
      ok = FALSE;
    }
  else
    g_object_set_property (G_OBJECT (self), pspec->name, &converted);
  g_value_unset (&converted);
  return ok;
}

/**
 * braggscope_simulation_get_slider_hint:
 * @property: a property's name, such as `wavelength`
 * @lower: (out) (optional): the lower end of a slider, in the property's unit
 * @upper: (out) (optional): its upper end
 * @step: (out) (optional): the step of a slider or spin button
 * @digits: (out) (optional): the decimals worth showing
 * @unit: (out) (optional) (transfer none): the unit as a control shows it
 *   ("mm", "°", "keV"; "" for a count or a pure number), English
 *
 * The range worth dragging a slider through for a number property of
 * [class@Braggscope.Simulation]: what [class@BraggscopeGtk.Controls] uses,
 * narrower than the range the property allows (its pspec's minimum and
 * maximum, the parameter table's range: a wavelength may be 0.001 Å, a
 * slider spans 0.2 to 4 Å).  For a host that makes its own slider.
 *
 * Returns: %TRUE for a number property with a hint, %FALSE (outputs
 *   untouched) for another name
 *
 * Since: 0.1
 */
gboolean
braggscope_simulation_get_slider_hint (const char *property,
                                       double *lower,
                                       double *upper,
                                       double *step,
                                       int *digits,
                                       const char **unit)
{
  g_autoptr (GTypeClass) klass = g_type_class_ref (BRAGGSCOPE_TYPE_SIMULATION);
  GParamSpec *pspec;
  const BraggscopeControlHints *hints;

  g_return_val_if_fail (property != NULL, FALSE);

  pspec = g_object_class_find_property (G_OBJECT_CLASS (klass), property);
  if (pspec == NULL || !(G_IS_PARAM_SPEC_DOUBLE (pspec) || G_IS_PARAM_SPEC_INT (pspec)))
    return FALSE;
  hints = g_param_spec_get_qdata (pspec, g_quark_from_static_string (BRAGGSCOPE_CONTROL_HINTS_KEY));
  if (hints == NULL || !(hints->upper > hints->lower))
    return FALSE;
  if (lower != NULL)
    *lower = hints->lower;
  if (upper != NULL)
    *upper = hints->upper;
  if (step != NULL)
    *step = hints->step;
  if (digits != NULL)
    *digits = hints->digits;
  if (unit != NULL)
    *unit = hints->unit;
  return TRUE;
}
