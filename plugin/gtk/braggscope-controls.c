/* braggscope-controls.c: the simulation's parameters as sliders, spin buttons,
 * drop-downs and entries, in the groups crystal, beam, detector and sampling.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-controls-private.h"
#include "braggscope-control-hints-private.h"
#include "braggscope-gtk-i18n-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>

/**
 * BraggscopeControls:
 *
 * A vertical box of expanders (crystal, effects, beam, detector, sampling,
 * and with a [property@BraggscopeGtk.Controls:view] display) whose widgets
 * are bound to a [class@Braggscope.Simulation]'s properties with
 * [method@GObject.Object.bind_property]: moving a slider sets the property
 * (and so starts a render), and a property set elsewhere moves the slider.
 *
 * The groups scroll up and down inside the controls' own allocation (a
 * host may give them any height: a scroll bar appears instead of a clipped
 * row); they ask for the width of their widest row and never scroll
 * sideways.  The scroll wheel over a slider or a spin button scrolls the
 * panel rather than changing the value, and a sideways wheel there does
 * nothing.  Angle sliders step in tenths of a degree from the keyboard;
 * dragging one with Shift held moves it ten times finer.  An angle whose
 * range is wider than 60° (the misset, φ, two-theta) has a slider that spans
 * 60° about its value, so that a pixel is a fraction of a degree; it moves
 * on when the angle nears one of its ends, and the spin button beside it
 * takes any angle of the range.
 *
 * The Effects group switches one physical effect off and on with one click
 * each (mosaicity, divergence, dispersion, polarization, the crystal's shape
 * transform, the structure factors), restoring the value it had.
 *
 * Each widget is named after its property and kind: "misset-x-scale" and
 * "misset-x-spin" for a number, "convention-dropdown", "preview-while-dragging-switch",
 * "structure-factors-entry", "fluence-entry", "energy-spin" (the wavelength
 * as photon energy in keV); find one with
 * [method@BraggscopeGtk.Controls.get_widget].  Properties the simulation does not have
 * are left out.  The slider ranges are what is useful to drag through; a value
 * set outside one widens it rather than being clamped, while a number typed
 * outside a spin button's range is clamped to it and said
 * ([signal@BraggscopeGtk.Controls::value-clamped]).
 *
 * Since: 0.1
 */

/* The layout: which property goes into which group, in which order, and as
 * what widget.  What a property is (its label, unit, tooltip and the range
 * worth dragging through) is the simulation's, from the engine's parameter
 * table: the pspec's nick and blurb and its BraggscopeControlHints. */
typedef enum
{
  SLIDER,       /* a slider and a spin button */
  SPIN,         /* a spin button */
  DROPDOWN,     /* an enum property, or a string one of a few words */
  SWITCH,       /* a boolean */
  FILE_ENTRY,   /* a path entry with a chooser button */
  NUMBER_ENTRY, /* a number too wide for a spin button (%g) */
} Widget;

typedef struct
{
  const char *property;
  Widget widget;
} Row;

typedef struct
{
  const char *name;
  const char *title;
  gboolean expanded;
  const Row *rows;
  guint n_rows;
} Group;

/* The sliders come first in their groups, which start expanded: the
 * parameters one drags (misset, mosaic spread, wavelength). */
static const Row crystal_rows[] = {
  { "misset-x", SLIDER },
  { "misset-y", SLIDER },
  { "misset-z", SLIDER },
  { "mosaic-spread", SLIDER },
  { "mosaic-domains", SLIDER },
  { "n-cells", SLIDER },
  { "cell-a", SPIN },
  { "cell-b", SPIN },
  { "cell-c", SPIN },
  { "cell-alpha", SPIN },
  { "cell-beta", SPIN },
  { "cell-gamma", SPIN },
  { "crystal-shape", DROPDOWN },
  { "structure-factors", FILE_ENTRY },
  { "default-f", SPIN },
};

static const Row beam_rows[] = {
  { "wavelength", SLIDER }, { "energy", SPIN },       { "dispersion", SLIDER },
  { "divergence", SLIDER }, { "polarization", SPIN }, { "fluence", NUMBER_ENTRY },
};

static const Row detector_rows[] = {
  { "distance", SLIDER },           { "beam-center-x", SLIDER }, { "beam-center-y", SLIDER },
  { "two-theta", SLIDER },          { "detector-rotx", SPIN },   { "detector-roty", SPIN },
  { "detector-rotz", SPIN },        { "pixel-size", SPIN },      { "detector-pixels-fast", SPIN },
  { "detector-pixels-slow", SPIN }, { "convention", DROPDOWN },
};

static const Row sampling_rows[] = {
  { "oversample", SPIN },        { "phi", SLIDER },         { "osc", SLIDER },
  { "water", SLIDER },           { "precision", DROPDOWN }, { "integration", DROPDOWN },
  { "tolerance", NUMBER_ENTRY }, { "backend", DROPDOWN },   { "preview-while-dragging", SWITCH },
  { "preview-stride", SPIN },
};

static const Group groups[] = {
  { "crystal", N_ ("Crystal"), TRUE, crystal_rows, G_N_ELEMENTS (crystal_rows) },
  { "beam", N_ ("Beam"), TRUE, beam_rows, G_N_ELEMENTS (beam_rows) },
  { "detector", N_ ("Detector"), FALSE, detector_rows, G_N_ELEMENTS (detector_rows) },
  { "sampling", N_ ("Sampling"), FALSE, sampling_rows, G_N_ELEMENTS (sampling_rows) },
};

/* A property's BraggscopeControlHints, or empty ones. */
const BraggscopeControlHints *
_braggscope_controls_hints_of (GParamSpec *pspec)
{
  static const BraggscopeControlHints none = { "", 0, 0, 0, 0, NULL };
  const BraggscopeControlHints *hints =
      g_param_spec_get_qdata (pspec, g_quark_from_static_string (BRAGGSCOPE_CONTROL_HINTS_KEY));

  return hints != NULL ? hints : &none;
}

G_DEFINE_FINAL_TYPE (BraggscopeControls, braggscope_controls, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_SIMULATION,
  PROP_VIEW,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  VALUE_CLAMPED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* ------------------------------------------------------------------------- */
/* Numbers */

static gboolean
value_as_double (const GValue *value, double *out)
{
  GValue d = G_VALUE_INIT;

  g_value_init (&d, G_TYPE_DOUBLE);
  if (!g_value_transform (value, &d))
    return FALSE;
  *out = g_value_get_double (&d);
  g_value_unset (&d);
  return TRUE;
}

/* simulation -> adjustment; a value outside the adjustment widens it, so it is
 * shown as it is instead of being clamped (and written back clamped). */
static gboolean
number_to_adjustment (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  GtkAdjustment *adjustment = GTK_ADJUSTMENT (g_binding_dup_target (binding));
  double v;

  if (adjustment == NULL || !value_as_double (from, &v) || !isfinite (v))
    {
      g_clear_object (&adjustment);
      return FALSE;
    }
  if (v < gtk_adjustment_get_lower (adjustment))
    gtk_adjustment_set_lower (adjustment, v);
  if (v > gtk_adjustment_get_upper (adjustment))
    gtk_adjustment_set_upper (adjustment, v);
  g_value_set_double (to, v);
  g_object_unref (adjustment);
  return TRUE;
}

/* adjustment -> simulation; integers are rounded, not truncated. */
static gboolean
adjustment_to_number (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  double v = g_value_get_double (from);
  GValue d = G_VALUE_INIT;
  gboolean ok;

  if (G_VALUE_TYPE (to) != G_TYPE_DOUBLE && G_VALUE_TYPE (to) != G_TYPE_FLOAT)
    v = round (v);
  g_value_init (&d, G_TYPE_DOUBLE);
  g_value_set_double (&d, v);
  ok = g_value_transform (&d, to);
  g_value_unset (&d);
  return ok;
}

/* Integer properties: the widgets show whole numbers too (the binding rounds
 * what it passes on, but cannot write back to the adjustment it came from). */
static void
on_integer_value_changed (GtkAdjustment *adjustment, gpointer user_data)
{
  double v = gtk_adjustment_get_value (adjustment);

  if (v != round (v))
    gtk_adjustment_set_value (adjustment, round (v));
}

/* "0.2 Å", or "200" for a number without a unit, in the user's locale. */
static char *
format_with_unit (double v, const char *unit)
{
  return *unit != '\0' ? g_strdup_printf ("%g %s", v, _ (unit)) : g_strdup_printf ("%g", v);
}

/* Says that the number typed into @pspec's spin button, @typed, lay outside
 * its range and @applied was set instead. */
static void
report_clamp (BraggscopeControls *self, GParamSpec *pspec, double typed, double applied)
{
  const char *unit = _braggscope_controls_hints_of (pspec)->unit;
  const char *label = _ (g_param_spec_get_nick (pspec));
  g_autofree char *from = format_with_unit (typed, unit);
  g_autofree char *to = format_with_unit (applied, unit);
  g_autofree char *message = NULL;

  if (typed < applied)
    /* Translators: a number typed into a control was out of its range: the
     * control's label, the typed value and the value set, with units, as
     * "Wavelength: 0 Å is below the minimum; set to 0.2 Å" */
    message = g_strdup_printf (_ ("%s: %s is below the minimum; set to %s"), label, from, to);
  else
    /* Translators: as "Mosaic domains: 500 is above the maximum; set to 200" */
    message = g_strdup_printf (_ ("%s: %s is above the maximum; set to %s"), label, from, to);
  g_signal_emit (self, signals[VALUE_CLAMPED], 0, pspec->name, typed, applied, message);
}

/* A spin button shows its value rounded to its digits.  When its text is
 * still that rounding, leaving it (focus out, Enter) keeps the value as it is
 * instead of writing the rounded one back, which would change a dragged
 * wavelength or misset and start a render.  Typed text is read as GTK reads
 * it (g_strtod, the whole text); a number outside the range is clamped here,
 * as GTK would, but said (BraggscopeControls::value-clamped).  Text that is
 * no number (empty, "1.2.3", "nan") keeps the value: GTK would read it as 0
 * and silently set the minimum.  A number in range is left to GTK. */
static int
on_spin_input (GtkSpinButton *spin, double *new_value, gpointer user_data)
{
  BraggscopeControls *self = g_object_get_data (G_OBJECT (spin), "braggscope-controls");
  GtkAdjustment *adjustment = gtk_spin_button_get_adjustment (spin);
  const char *text = gtk_editable_get_text (GTK_EDITABLE (spin));
  double v = gtk_spin_button_get_value (spin);
  g_autofree char *shown = g_strdup_printf ("%0.*f", gtk_spin_button_get_digits (spin), v);
  double typed, lower = gtk_adjustment_get_lower (adjustment),
                upper = gtk_adjustment_get_upper (adjustment);
  char *end = NULL;

  if (g_strcmp0 (text, shown) == 0)
    {
      *new_value = v;
      return TRUE;
    }
  typed = g_strtod (text, &end);
  if (end == text || *end != '\0' || isnan (typed))
    {
      *new_value = v;
      return TRUE;
    }
  if (typed >= lower && typed <= upper)
    return FALSE;
  *new_value = typed < lower ? lower : upper;
  report_clamp (self, user_data, typed, *new_value);
  return TRUE;
}

/* The pspec's own limits, where it has them. */
static void
pspec_limits (GParamSpec *pspec, double *lower, double *upper)
{
  *lower = -G_MAXDOUBLE;
  *upper = G_MAXDOUBLE;
  if (G_IS_PARAM_SPEC_DOUBLE (pspec))
    {
      *lower = G_PARAM_SPEC_DOUBLE (pspec)->minimum;
      *upper = G_PARAM_SPEC_DOUBLE (pspec)->maximum;
    }
  else if (G_IS_PARAM_SPEC_FLOAT (pspec))
    {
      *lower = G_PARAM_SPEC_FLOAT (pspec)->minimum;
      *upper = G_PARAM_SPEC_FLOAT (pspec)->maximum;
    }
  else if (G_IS_PARAM_SPEC_INT (pspec))
    {
      *lower = G_PARAM_SPEC_INT (pspec)->minimum;
      *upper = G_PARAM_SPEC_INT (pspec)->maximum;
    }
  else if (G_IS_PARAM_SPEC_UINT (pspec))
    {
      *lower = G_PARAM_SPEC_UINT (pspec)->minimum;
      *upper = G_PARAM_SPEC_UINT (pspec)->maximum;
    }
}

/* ------------------------------------------------------------------------- */
/* Angle sliders: a window of ANGLE_WINDOW degrees about the value */

#define ANGLE_WINDOW 60.0
/* the window moves on when the angle comes within this fraction of an end */
#define ANGLE_MARGIN 0.1

typedef struct
{
  GtkAdjustment *full;   /* the spin button's, the whole range (a reference) */
  GtkAdjustment *window; /* the slider's (a reference) */
  gboolean pressed;      /* the slider is being dragged */
  guint idle;
} AngleWindow;

static void
angle_window_free (gpointer data)
{
  AngleWindow *window = data;

  g_clear_handle_id (&window->idle, g_source_remove);
  g_object_unref (window->full);
  g_object_unref (window->window);
  g_free (window);
}

static gboolean
angle_near_end (AngleWindow *window, double v)
{
  double lower = gtk_adjustment_get_lower (window->window);
  double upper = gtk_adjustment_get_upper (window->window);
  double margin = ANGLE_MARGIN * (upper - lower);

  return (v < lower + margin && lower > gtk_adjustment_get_lower (window->full)) ||
         (v > upper - margin && upper < gtk_adjustment_get_upper (window->full));
}

/* The window centred on @v, kept inside the whole range. */
static void
angle_recentre (AngleWindow *window, double v)
{
  double lower = gtk_adjustment_get_lower (window->full);
  double upper = gtk_adjustment_get_upper (window->full);
  double from = CLAMP (v - 0.5 * ANGLE_WINDOW, lower, MAX (lower, upper - ANGLE_WINDOW));

  gtk_adjustment_configure (window->window, v, from, MIN (from + ANGLE_WINDOW, upper),
                            gtk_adjustment_get_step_increment (window->window),
                            gtk_adjustment_get_page_increment (window->window), 0.0);
}

/* spin -> slider: a value set elsewhere (typed, a key, a lesson) that lies
 * off the window, or near its ends, moves the window to it. */
static gboolean
angle_to_window (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  AngleWindow *window = user_data;
  double v = g_value_get_double (from);

  if (v < gtk_adjustment_get_lower (window->window) ||
      v > gtk_adjustment_get_upper (window->window) || angle_near_end (window, v))
    angle_recentre (window, v);
  g_value_set_double (to, v);
  return TRUE;
}

static gboolean
angle_recentre_idle (gpointer data)
{
  AngleWindow *window = data;

  window->idle = 0;
  if (!window->pressed && angle_near_end (window, gtk_adjustment_get_value (window->window)))
    angle_recentre (window, gtk_adjustment_get_value (window->window));
  return G_SOURCE_REMOVE;
}

/* The slider itself brought the angle near an end (keys, a drag): the
 * window moves on once the pointer lets go, not under it. */
static void
on_angle_window_changed (GtkAdjustment *adjustment, AngleWindow *window)
{
  if (window->idle == 0 && angle_near_end (window, gtk_adjustment_get_value (adjustment)))
    window->idle = g_idle_add (angle_recentre_idle, window);
}

static gboolean
on_angle_slider_event (GtkEventControllerLegacy *controller, GdkEvent *event, AngleWindow *window)
{
  GdkEventType type = gdk_event_get_event_type (event);

  if (type == GDK_BUTTON_PRESS || type == GDK_TOUCH_BEGIN)
    window->pressed = TRUE;
  else if (type == GDK_BUTTON_RELEASE || type == GDK_TOUCH_END || type == GDK_TOUCH_CANCEL)
    {
      window->pressed = FALSE;
      on_angle_window_changed (window->window, window);
    }
  return GDK_EVENT_PROPAGATE;
}

/* A window of @full's range for the slider @scale, bound to it. */
static GtkAdjustment *
angle_window_new (GtkWidget *scale, GtkAdjustment *full)
{
  AngleWindow *window = g_new0 (AngleWindow, 1);
  GtkEventController *legacy = gtk_event_controller_legacy_new ();

  window->full = g_object_ref (full);
  window->window = g_object_ref_sink (
      gtk_adjustment_new (0.0, 0.0, ANGLE_WINDOW, gtk_adjustment_get_step_increment (full),
                          gtk_adjustment_get_page_increment (full), 0.0));
  angle_recentre (window, gtk_adjustment_get_value (full));
  g_object_set_data_full (G_OBJECT (scale), "braggscope-angle-window", window, angle_window_free);
  g_object_bind_property_full (full, "value", window->window, "value",
                               G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE, angle_to_window,
                               NULL, window, NULL);
  g_signal_connect (window->window, "value-changed", G_CALLBACK (on_angle_window_changed), window);
  gtk_event_controller_set_propagation_phase (legacy, GTK_PHASE_CAPTURE);
  g_signal_connect (legacy, "event", G_CALLBACK (on_angle_slider_event), window);
  gtk_widget_add_controller (scale, legacy);
  return window->window;
}

static void
add_number (BraggscopeControls *self, GtkGrid *grid, int row, const Row *layout, GParamSpec *pspec)
{
  const BraggscopeControlHints *hints = _braggscope_controls_hints_of (pspec);
  gboolean slider = layout->widget == SLIDER;
  double lower, upper, step = hints->step > 0.0 ? hints->step : 1.0;
  GtkAdjustment *adjustment;
  GtkWidget *spin;
  g_autofree char *spin_name = g_strconcat (layout->property, "-spin", NULL);

  /* angles: tenths of a degree from the keys (Shift-drag finer still) */
  if (g_strcmp0 (hints->unit, "\u00b0") == 0 && step > 0.1)
    step = 0.1;
  pspec_limits (pspec, &lower, &upper);
  lower = MAX (lower, hints->lower);
  upper = MIN (upper, hints->upper);
  if (!(upper > lower))
    upper = lower + step;
  adjustment = gtk_adjustment_new (lower, lower, upper, step, step * 10, 0);
  if (G_IS_PARAM_SPEC_INT (pspec) || G_IS_PARAM_SPEC_UINT (pspec))
    g_signal_connect (adjustment, "value-changed", G_CALLBACK (on_integer_value_changed), NULL);

  if (slider)
    {
      GtkWidget *scale = gtk_scale_new (GTK_ORIENTATION_HORIZONTAL, NULL);
      g_autofree char *scale_name = g_strconcat (layout->property, "-scale", NULL);

      if (g_strcmp0 (hints->unit, "\u00b0") == 0 && upper - lower > ANGLE_WINDOW)
        gtk_range_set_adjustment (GTK_RANGE (scale), angle_window_new (scale, adjustment));
      else
        gtk_range_set_adjustment (GTK_RANGE (scale), adjustment);

      gtk_scale_set_draw_value (GTK_SCALE (scale), FALSE);
      gtk_range_set_round_digits (GTK_RANGE (scale), MAX (hints->digits, step < 1.0 ? 1 : 0));
      _braggscope_controls_add_fine_drag (scale);
      gtk_widget_set_hexpand (scale, TRUE);
      gtk_widget_set_size_request (scale, 160, -1);
      gtk_widget_set_name (scale, scale_name);
      gtk_widget_set_tooltip_text (scale, _ (g_param_spec_get_blurb (pspec)));
      gtk_accessible_update_property (GTK_ACCESSIBLE (scale), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _ (g_param_spec_get_nick (pspec)), -1);
      gtk_grid_attach (grid, scale, 1, row, 1, 1);
      g_hash_table_insert (self->widgets, g_steal_pointer (&scale_name), scale);
    }

  spin = gtk_spin_button_new (adjustment, step, hints->digits);
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), TRUE);
  /* its input handler reports a clamped value */
  g_object_set_data (G_OBJECT (spin), "braggscope-controls", self);
  g_signal_connect (spin, "input", G_CALLBACK (on_spin_input), pspec);
  gtk_editable_set_width_chars (GTK_EDITABLE (spin), 8);
  gtk_widget_set_name (spin, spin_name);
  gtk_widget_set_tooltip_text (spin, _ (g_param_spec_get_blurb (pspec)));
  gtk_widget_set_halign (spin, slider ? GTK_ALIGN_END : GTK_ALIGN_FILL);
  gtk_grid_attach (grid, spin, slider ? 2 : 1, row, slider ? 1 : 2, 1);
  g_hash_table_insert (self->widgets, g_steal_pointer (&spin_name), spin);

  g_object_bind_property_full (self->simulation, layout->property, adjustment, "value",
                               G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE,
                               number_to_adjustment, adjustment_to_number, NULL, NULL);
}

/* ------------------------------------------------------------------------- */
/* Choices */

typedef struct
{
  GType enum_type;            /* or G_TYPE_INVALID for a string list */
  const char *const *strings; /* the choices of a string property */
} ChoiceMap;

static gboolean
choice_to_selected (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  const ChoiceMap *map = user_data;

  if (map->enum_type != G_TYPE_INVALID)
    {
      g_autoptr (GEnumClass) klass = g_type_class_ref (map->enum_type);
      int value = g_value_get_enum (from);

      for (guint i = 0; i < klass->n_values; i++)
        if (klass->values[i].value == value)
          {
            g_value_set_uint (to, i);
            return TRUE;
          }
      return FALSE;
    }

  for (guint i = 0; map->strings[i] != NULL; i++)
    if (g_strcmp0 (map->strings[i], g_value_get_string (from)) == 0)
      {
        g_value_set_uint (to, i);
        return TRUE;
      }
  return FALSE;
}

static gboolean
selected_to_choice (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  const ChoiceMap *map = user_data;
  guint selected = g_value_get_uint (from);

  if (map->enum_type != G_TYPE_INVALID)
    {
      g_autoptr (GEnumClass) klass = g_type_class_ref (map->enum_type);

      if (selected >= klass->n_values)
        return FALSE;
      g_value_set_enum (to, klass->values[selected].value);
      return TRUE;
    }

  if (selected >= g_strv_length ((char **) map->strings))
    return FALSE;
  g_value_set_string (to, map->strings[selected]);
  return TRUE;
}

/* The words a dropdown shows for a choice whose nick is nanoBragg's (the
 * property keeps the nick): the crystal's shape in the user's language. */
static const struct
{
  const char *property, *nick, *label;
} choice_labels[] = {
  { "crystal-shape", "square", NC_ ("crystal shape", "square (parallelepiped)") },
  { "crystal-shape", "round", NC_ ("crystal shape", "round (sphere)") },
  { "crystal-shape", "gauss", NC_ ("crystal shape", "Gaussian") },
  { "crystal-shape", "tophat", NC_ ("crystal shape", "flat-top") },
};

static const char *
choice_label (const char *property, const char *nick)
{
  for (gsize i = 0; i < G_N_ELEMENTS (choice_labels); i++)
    if (g_strcmp0 (choice_labels[i].property, property) == 0 &&
        g_strcmp0 (choice_labels[i].nick, nick) == 0)
      return g_dpgettext2 (GETTEXT_PACKAGE, "crystal shape", choice_labels[i].label);
  return nick;
}

static void
add_choice (BraggscopeControls *self, GtkGrid *grid, int row, const Row *layout, GParamSpec *pspec)
{
  const BraggscopeControlHints *hints = _braggscope_controls_hints_of (pspec);
  g_autoptr (GtkStringList) list = gtk_string_list_new (NULL);
  g_autofree char *name = g_strconcat (layout->property, "-dropdown", NULL);
  ChoiceMap *map = g_new0 (ChoiceMap, 1);
  GtkWidget *dropdown;

  if (G_IS_PARAM_SPEC_ENUM (pspec))
    {
      GEnumClass *klass = G_PARAM_SPEC_ENUM (pspec)->enum_class;

      map->enum_type = G_TYPE_FROM_CLASS (klass);
      for (guint i = 0; i < klass->n_values; i++)
        gtk_string_list_append (list, choice_label (layout->property, klass->values[i].value_nick));
    }
  else if (G_IS_PARAM_SPEC_STRING (pspec) && hints->choices != NULL)
    {
      map->strings = hints->choices;
      for (guint i = 0; hints->choices[i] != NULL; i++)
        gtk_string_list_append (list, choice_label (layout->property, hints->choices[i]));
    }
  else
    {
      g_free (map);
      return;
    }

  dropdown = gtk_drop_down_new (G_LIST_MODEL (g_steal_pointer (&list)), NULL);
  gtk_widget_set_name (dropdown, name);
  gtk_widget_set_tooltip_text (dropdown, _ (g_param_spec_get_blurb (pspec)));
  gtk_grid_attach (grid, dropdown, 1, row, 2, 1);
  g_hash_table_insert (self->widgets, g_steal_pointer (&name), dropdown);

  g_object_bind_property_full (self->simulation, layout->property, dropdown, "selected",
                               G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE, choice_to_selected,
                               selected_to_choice, map, g_free);
}

/* ------------------------------------------------------------------------- */
/* Switches */

static void
add_switch (BraggscopeControls *self, GtkGrid *grid, int row, const Row *layout, GParamSpec *pspec)
{
  g_autofree char *name = g_strconcat (layout->property, "-switch", NULL);
  GtkWidget *toggle = gtk_switch_new ();

  gtk_widget_set_halign (toggle, GTK_ALIGN_START);
  gtk_widget_set_name (toggle, name);
  gtk_widget_set_tooltip_text (toggle, _ (g_param_spec_get_blurb (pspec)));
  gtk_grid_attach (grid, toggle, 1, row, 2, 1);
  g_hash_table_insert (self->widgets, g_steal_pointer (&name), toggle);

  g_object_bind_property (self->simulation, layout->property, toggle, "active",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
}

/* ------------------------------------------------------------------------- */
/* Entries: committed on Enter (or when focus leaves), so a half-typed path or
 * number never reaches the simulation. */

typedef struct
{
  BraggscopeControls *self;
  const char *property; /* static, from the layout */
  GtkWidget *entry;
} EntryBinding;

static void
entry_show (EntryBinding *binding)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (binding->self->simulation),
                                                    binding->property);
  GValue value = G_VALUE_INIT;
  g_autofree char *text = NULL;

  g_value_init (&value, pspec->value_type);
  g_object_get_property (G_OBJECT (binding->self->simulation), binding->property, &value);
  /* a string property here is a file name, which need not be UTF-8: shown
   * as GLib shows file names (entry_commit knows it unchanged) */
  if (G_VALUE_HOLDS_STRING (&value))
    text = g_value_get_string (&value) != NULL
               ? g_filename_display_name (g_value_get_string (&value))
               : NULL;
  else
    {
      double v = 0.0;
      char buffer[G_ASCII_DTOSTR_BUF_SIZE];

      value_as_double (&value, &v);
      text = g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%.6g", v));
    }
  g_value_unset (&value);

  gtk_editable_set_text (GTK_EDITABLE (binding->entry), text != NULL ? text : "");
  gtk_widget_remove_css_class (binding->entry, "error");
}

static void
on_entry_property_notify (GObject *object, GParamSpec *pspec, EntryBinding *binding)
{
  entry_show (binding);
}

static void
entry_commit (EntryBinding *binding)
{
  GObject *simulation = G_OBJECT (binding->self->simulation);
  GParamSpec *pspec =
      g_object_class_find_property (G_OBJECT_GET_CLASS (simulation), binding->property);
  const char *text = gtk_editable_get_text (GTK_EDITABLE (binding->entry));

  if (G_IS_PARAM_SPEC_STRING (pspec))
    {
      g_autofree char *current = NULL, *shown = NULL;

      g_object_get (simulation, binding->property, &current, NULL);
      shown = current != NULL ? g_filename_display_name (current) : g_strdup ("");
      if (g_strcmp0 (shown, text) != 0)
        g_object_set (simulation, binding->property, *text != '\0' ? text : NULL, NULL);
      return;
    }

  {
    char *end = NULL;
    double v = g_ascii_strtod (text, &end);
    double lower, upper;
    GValue d = G_VALUE_INIT, value = G_VALUE_INIT;

    pspec_limits (pspec, &lower, &upper);
    if (end == text || *g_strchug (end) != '\0' || !isfinite (v) || v < lower || v > upper)
      {
        gtk_widget_add_css_class (binding->entry, "error");
        return;
      }
    gtk_widget_remove_css_class (binding->entry, "error");
    g_value_init (&d, G_TYPE_DOUBLE);
    g_value_set_double (&d, v);
    g_value_init (&value, pspec->value_type);
    if (g_value_transform (&d, &value))
      g_object_set_property (simulation, binding->property, &value);
    g_value_unset (&value);
    g_value_unset (&d);
  }
}

static void
on_entry_activate (GtkEntry *entry, EntryBinding *binding)
{
  entry_commit (binding);
}

static void
on_entry_focus_leave (GtkEventControllerFocus *controller, EntryBinding *binding)
{
  entry_commit (binding);
}

/* @entry is a reference the dialog held: the controls may be gone by now. */
static void
on_file_chosen (GtkNativeDialog *dialog, int response, GtkWidget *entry)
{
  EntryBinding *binding = g_object_get_data (G_OBJECT (entry), "braggscope-entry-binding");

  if (response == GTK_RESPONSE_ACCEPT && binding != NULL && gtk_widget_get_root (entry) != NULL)
    {
      G_GNUC_BEGIN_IGNORE_DEPRECATIONS
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      G_GNUC_END_IGNORE_DEPRECATIONS
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

      /* the path itself, not the entry's UTF-8 text of it */
      if (path != NULL)
        {
          g_object_set (binding->self->simulation, binding->property, path, NULL);
          entry_show (binding);
        }
    }
  g_object_unref (entry);
  g_object_unref (dialog);
}

static void
on_choose_file (GtkButton *button, EntryBinding *binding)
{
  GtkNative *native = gtk_widget_get_native (GTK_WIDGET (button));
  GtkNativeDialog *dialog;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  dialog = GTK_NATIVE_DIALOG (gtk_file_chooser_native_new (
      _ ("Structure factors"), GTK_IS_WINDOW (native) ? GTK_WINDOW (native) : NULL,
      GTK_FILE_CHOOSER_ACTION_OPEN, _ ("_Open"), _ ("_Cancel")));
  G_GNUC_END_IGNORE_DEPRECATIONS
  gtk_native_dialog_set_modal (dialog, TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (on_file_chosen), g_object_ref (binding->entry));
  gtk_native_dialog_show (dialog);
}

static void
add_entry (BraggscopeControls *self, GtkGrid *grid, int row, const Row *layout, GParamSpec *pspec)
{
  g_autofree char *name = g_strconcat (layout->property, "-entry", NULL);
  g_autofree char *signal = g_strconcat ("notify::", layout->property, NULL);
  EntryBinding *binding = g_new0 (EntryBinding, 1);
  GtkEventController *focus;
  gulong handler;

  binding->self = self;
  binding->property = layout->property;
  binding->entry = gtk_entry_new ();
  gtk_widget_set_name (binding->entry, name);
  gtk_widget_set_tooltip_text (binding->entry, _ (g_param_spec_get_blurb (pspec)));
  gtk_widget_set_hexpand (binding->entry, TRUE);
  g_object_set_data_full (G_OBJECT (binding->entry), "braggscope-entry-binding", binding, g_free);
  g_signal_connect (binding->entry, "activate", G_CALLBACK (on_entry_activate), binding);
  focus = gtk_event_controller_focus_new ();
  g_signal_connect (focus, "leave", G_CALLBACK (on_entry_focus_leave), binding);
  gtk_widget_add_controller (binding->entry, focus);
  g_hash_table_insert (self->widgets, g_steal_pointer (&name), binding->entry);

  if (layout->widget == FILE_ENTRY)
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
      GtkWidget *button = gtk_button_new_from_icon_name ("document-open-symbolic");
      g_autofree char *button_name = g_strconcat (layout->property, "-button", NULL);

      gtk_widget_set_name (button, button_name);
      gtk_widget_set_tooltip_text (button, _ ("Choose a file of structure factors (HKL)"));
      g_signal_connect (button, "clicked", G_CALLBACK (on_choose_file), binding);
      gtk_box_append (GTK_BOX (box), binding->entry);
      gtk_box_append (GTK_BOX (box), button);
      gtk_grid_attach (grid, box, 1, row, 2, 1);
      g_hash_table_insert (self->widgets, g_steal_pointer (&button_name), button);
    }
  else
    gtk_grid_attach (grid, binding->entry, 1, row, 2, 1);

  entry_show (binding);
  handler =
      g_signal_connect (self->simulation, signal, G_CALLBACK (on_entry_property_notify), binding);
  /* The handler holds the binding, which the entry owns: disconnect it with
   * the controls (dispose), before the entry goes. */
  g_ptr_array_add (self->notify_handlers, GSIZE_TO_POINTER ((gsize) handler));
}

/* ------------------------------------------------------------------------- */

static void
build (BraggscopeControls *self)
{
  GObjectClass *klass = G_OBJECT_GET_CLASS (self->simulation);

  for (guint g = 0; g < G_N_ELEMENTS (groups); g++)
    {
      const Group *group = &groups[g];
      GtkWidget *expander = gtk_expander_new (_ (group->title));
      GtkWidget *grid = gtk_grid_new ();
      g_autofree char *expander_name = g_strconcat (group->name, "-group", NULL);
      int row = 0;

      gtk_widget_set_name (expander, expander_name);
      gtk_expander_set_expanded (GTK_EXPANDER (expander), group->expanded);
      gtk_grid_set_row_spacing (GTK_GRID (grid), 4);
      gtk_grid_set_column_spacing (GTK_GRID (grid), 8);
      gtk_widget_set_margin_start (grid, 12);
      gtk_widget_set_margin_top (grid, 4);
      gtk_widget_set_margin_bottom (grid, 8);

      for (guint i = 0; i < group->n_rows; i++)
        {
          const Row *layout = &group->rows[i];
          GParamSpec *pspec = g_object_class_find_property (klass, layout->property);
          const char *unit;
          g_autofree char *text = NULL;
          GtkWidget *label;

          if (pspec == NULL || !(pspec->flags & G_PARAM_WRITABLE) ||
              (pspec->flags & G_PARAM_CONSTRUCT_ONLY))
            continue;

          /* Translators: a control's label and its unit, as "Wavelength (Å)" */
          unit = _braggscope_controls_hints_of (pspec)->unit;
          text = unit != NULL && *unit != '\0'
                     ? g_strdup_printf (_ ("%s (%s)"), _ (g_param_spec_get_nick (pspec)), _ (unit))
                     : g_strdup (_ (g_param_spec_get_nick (pspec)));
          label = gtk_label_new (text);
          gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
          gtk_grid_attach (GTK_GRID (grid), label, 0, row, 1, 1);

          switch (layout->widget)
            {
              case SLIDER:
              case SPIN:
                add_number (self, GTK_GRID (grid), row, layout, pspec);
                break;
              case DROPDOWN:
                add_choice (self, GTK_GRID (grid), row, layout, pspec);
                break;
              case SWITCH:
                add_switch (self, GTK_GRID (grid), row, layout, pspec);
                break;
              case FILE_ENTRY:
              case NUMBER_ENTRY:
                add_entry (self, GTK_GRID (grid), row, layout, pspec);
                break;
            }
          row++;
        }

      gtk_expander_set_child (GTK_EXPANDER (expander), grid);
      gtk_box_append (GTK_BOX (self->box), expander);
      g_hash_table_insert (self->widgets, g_steal_pointer (&expander_name), expander);
      if (g == 0)
        _braggscope_controls_build_effects (self);
    }
  if (self->view != NULL)
    _braggscope_controls_build_display (self);
}

static void
braggscope_controls_constructed (GObject *object)
{
  BraggscopeControls *self = BRAGGSCOPE_CONTROLS (object);

  G_OBJECT_CLASS (braggscope_controls_parent_class)->constructed (object);

  if (self->simulation == NULL)
    self->simulation = braggscope_simulation_new ();
  build (self);
}

static void
braggscope_controls_dispose (GObject *object)
{
  BraggscopeControls *self = BRAGGSCOPE_CONTROLS (object);
  GtkWidget *child;

  if (self->simulation != NULL && self->notify_handlers != NULL)
    for (guint i = 0; i < self->notify_handlers->len; i++)
      g_signal_handler_disconnect (self->simulation, (gulong) GPOINTER_TO_SIZE (g_ptr_array_index (
                                                         self->notify_handlers, i)));
  g_clear_pointer (&self->notify_handlers, g_ptr_array_unref);
  g_clear_pointer (&self->widgets, g_hash_table_unref);
  g_clear_pointer (&self->effects, g_ptr_array_unref);

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->simulation);
  g_clear_object (&self->view);

  G_OBJECT_CLASS (braggscope_controls_parent_class)->dispose (object);
}

static void
braggscope_controls_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  BraggscopeControls *self = BRAGGSCOPE_CONTROLS (object);

  switch (prop_id)
    {
      case PROP_SIMULATION:
        g_value_set_object (value, self->simulation);
        break;
      case PROP_VIEW:
        g_value_set_object (value, self->view);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
braggscope_controls_set_property (GObject *object,
                                  guint prop_id,
                                  const GValue *value,
                                  GParamSpec *pspec)
{
  BraggscopeControls *self = BRAGGSCOPE_CONTROLS (object);

  switch (prop_id)
    {
      case PROP_SIMULATION:
        self->simulation = g_value_dup_object (value);
        break;
      case PROP_VIEW:
        self->view = g_value_dup_object (value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
braggscope_controls_class_init (BraggscopeControlsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  _braggscope_gtk_ensure_textdomain ();
  object_class->constructed = braggscope_controls_constructed;
  object_class->dispose = braggscope_controls_dispose;
  object_class->get_property = braggscope_controls_get_property;
  object_class->set_property = braggscope_controls_set_property;

  /**
   * BraggscopeControls:simulation:
   *
   * The simulation whose properties the widgets are bound to (a new one with
   * nanoBragg's defaults when none is given).  Construct-only; the controls
   * hold a reference to it.
   *
   * Since: 0.1
   */
  properties[PROP_SIMULATION] = g_param_spec_object (
      "simulation", "Simulation", "The simulation whose properties the widgets edit",
      BRAGGSCOPE_TYPE_SIMULATION,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * BraggscopeControls:view:
   *
   * The detector view whose display the Display group edits (colormap,
   * scale, gamma, contrast limits, rings, labels, beam centre); without one
   * there is no Display group.
   *
   * Since: 0.1
   */
  properties[PROP_VIEW] = g_param_spec_object (
      "view", "View", "The view whose display the Display group edits", BRAGGSCOPE_TYPE_VIEW,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * BraggscopeControls::value-clamped:
   * @controls: the controls
   * @property: the simulation property the spin button edits ("wavelength")
   * @requested: the number typed, in the spin button's unit (keV for the
   *   photon energy)
   * @applied: the number set instead: the nearer end of the spin button's range
   * @message: a translated sentence saying so, for a status line: "Wavelength:
   *   0 Å is below the minimum; set to 0.2 Å"
   *
   * Emitted when a number typed into a spin button lies outside its range and
   * the nearer end of the range is set instead, which would otherwise go
   * unnoticed (the text is simply replaced).
   *
   * Since: 0.1
   */
  signals[VALUE_CLAMPED] =
      g_signal_new ("value-clamped", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                    NULL, G_TYPE_NONE, 4, G_TYPE_STRING | G_SIGNAL_TYPE_STATIC_SCOPE, G_TYPE_DOUBLE,
                    G_TYPE_DOUBLE, G_TYPE_STRING);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "braggscope-controls");
}

static void
braggscope_controls_init (BraggscopeControls *self)
{
  self->widgets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->notify_handlers = g_ptr_array_new ();
  self->effects = g_ptr_array_new_with_free_func (g_free);
  _braggscope_controls_init_scrolling (self);
}

/**
 * braggscope_controls_new:
 * @simulation: the simulation to edit
 *
 * Creates the controls, bound to @simulation's properties, without a
 * Display group ([ctor@BraggscopeGtk.Controls.new_with_view] has one).
 *
 * Returns: (transfer floating): a new [class@BraggscopeGtk.Controls]
 *
 * Since: 0.1
 */
GtkWidget *
braggscope_controls_new (BraggscopeSimulation *simulation)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (simulation), NULL);

  return g_object_new (BRAGGSCOPE_TYPE_CONTROLS, "simulation", simulation, NULL);
}

/**
 * braggscope_controls_new_with_view:
 * @simulation: the simulation to edit
 * @view: the detector view whose display to edit
 *
 * Creates the controls, bound to @simulation's properties, with a Display
 * group bound to @view's (colormap, scale, gamma, contrast limits, rings,
 * labels, beam centre).
 *
 * Returns: (transfer floating): a new [class@BraggscopeGtk.Controls]
 *
 * Since: 0.1
 */
GtkWidget *
braggscope_controls_new_with_view (BraggscopeSimulation *simulation, BraggscopeView *view)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_SIMULATION (simulation), NULL);
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (view), NULL);

  return g_object_new (BRAGGSCOPE_TYPE_CONTROLS, "simulation", simulation, "view", view, NULL);
}

/**
 * braggscope_controls_get_simulation:
 * @self: the controls
 *
 * Gets the simulation whose properties the widgets edit
 * ([property@BraggscopeGtk.Controls:simulation]).
 *
 * Returns: (transfer none): the simulation the widgets edit
 *
 * Since: 0.1
 */
BraggscopeSimulation *
braggscope_controls_get_simulation (BraggscopeControls *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_CONTROLS (self), NULL);

  return self->simulation;
}

/**
 * braggscope_controls_get_widget:
 * @self: the controls
 * @name: a widget name: property + "-scale", "-spin", "-dropdown", "-switch",
 *   "-entry" or "-button", or a group + "-group" ("crystal-group")
 *
 * Finds one of the controls' widgets by its name, as the class description
 * names them ("misset-x-scale"), for a host or a test that drives one.
 *
 * Returns: (transfer none) (nullable): the widget, or %NULL if there is none
 *   of that name
 *
 * Since: 0.1
 */
GtkWidget *
braggscope_controls_get_widget (BraggscopeControls *self, const char *name)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_CONTROLS (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return self->widgets != NULL ? g_hash_table_lookup (self->widgets, name) : NULL;
}
