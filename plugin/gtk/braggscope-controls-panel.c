/* braggscope-controls-panel.c: what makes BraggscopeControls a panel a host
 * can give any size: scrolling inside its own allocation (the wheel over a
 * slider scrolls the panel), fine drags of angle sliders, and the Effects and
 * Display groups.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-controls-private.h"
#include "braggscope-gtk-i18n-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>

/* ------------------------------------------------------------------------- */
/* Scrolling */

/* The nearest scrolled window at or above @widget that can scroll now. */
static GtkScrolledWindow *
scrollable_ancestor (GtkWidget *widget)
{
  for (; widget != NULL; widget = gtk_widget_get_parent (widget))
    if (GTK_IS_SCROLLED_WINDOW (widget))
      {
        GtkAdjustment *v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (widget));

        if (gtk_adjustment_get_upper (v) - gtk_adjustment_get_page_size (v) > 0.5)
          return GTK_SCROLLED_WINDOW (widget);
      }
  return NULL;
}

/* The wheel over a slider or a spin button scrolls the panel: a value that
 * changes under a scrolling hand is a value changed by accident.  A wheel
 * turned sideways (or a touchpad swiped sideways) there does nothing: the
 * panel never scrolls sideways, and GtkRange would take it as a change. */
static gboolean
on_scroll (GtkEventControllerScroll *controller, double dx, double dy, BraggscopeControls *self)
{
  GtkWidget *target =
      gtk_widget_pick (GTK_WIDGET (self), self->pointer_x, self->pointer_y, GTK_PICK_DEFAULT);
  GtkScrolledWindow *scroller;
  GtkAdjustment *v;
  double page;

  if (target == NULL || (gtk_widget_get_ancestor (target, GTK_TYPE_RANGE) == NULL &&
                         gtk_widget_get_ancestor (target, GTK_TYPE_SPIN_BUTTON) == NULL))
    return FALSE;
  scroller = scrollable_ancestor (self->scroller);
  if (scroller == NULL)
    return TRUE;
  v = gtk_scrolled_window_get_vadjustment (scroller);
  page = gtk_adjustment_get_page_size (v);
  /* GTK's own step for a wheel notch */
  gtk_adjustment_set_value (v, gtk_adjustment_get_value (v) + dy * pow (page, 2.0 / 3.0));
  return TRUE;
}

static void
on_motion (GtkEventControllerMotion *controller, double x, double y, BraggscopeControls *self)
{
  self->pointer_x = x;
  self->pointer_y = y;
}

void
_braggscope_controls_init_scrolling (BraggscopeControls *self)
{
  GtkEventController *scroll =
      gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  GtkEventController *motion = gtk_event_controller_motion_new ();

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  self->scroller = gtk_scrolled_window_new ();
  gtk_widget_set_name (self->scroller, "controls-scroller");
  /* as large as the groups where there is room; a scroll bar, never a clipped
   * label, where there is not: the panel is at least as wide as its widest
   * row and never scrolls sideways (focusing an entry would scroll it) */
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_width (GTK_SCROLLED_WINDOW (self->scroller), TRUE);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (self->scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scroller), self->box);
  gtk_widget_set_parent (self->scroller, GTK_WIDGET (self));

  gtk_event_controller_set_propagation_phase (scroll, GTK_PHASE_CAPTURE);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
}

/* ------------------------------------------------------------------------- */
/* Fine drags: Shift held, a slider moves a tenth as far as the pointer */

#define FINE 0.1

static void
on_fine_begin (GtkGestureDrag *gesture, double x, double y, GtkWidget *scale)
{
  GdkModifierType state =
      gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  if (!(state & GDK_SHIFT_MASK))
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  g_object_set_data_full (
      G_OBJECT (gesture), "braggscope-start",
      g_memdup2 (&(double){ gtk_range_get_value (GTK_RANGE (scale)) }, sizeof (double)), g_free);
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

static void
on_fine_update (GtkGestureDrag *gesture, double dx, double dy, GtkWidget *scale)
{
  const double *start = g_object_get_data (G_OBJECT (gesture), "braggscope-start");
  GtkAdjustment *adjustment = gtk_range_get_adjustment (GTK_RANGE (scale));
  int width = MAX (gtk_widget_get_width (scale), 1);
  double span = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_lower (adjustment);

  if (start != NULL)
    gtk_range_set_value (GTK_RANGE (scale), *start + FINE * dx * span / width);
}

void
_braggscope_controls_add_fine_drag (GtkWidget *scale)
{
  GtkGesture *drag = gtk_gesture_drag_new ();

  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (drag), GTK_PHASE_CAPTURE);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_fine_begin), scale);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_fine_update), scale);
  gtk_widget_add_controller (scale, GTK_EVENT_CONTROLLER (drag));
}

/* ------------------------------------------------------------------------- */
/* Effects: one click switches an effect off, the next restores its value */

typedef enum
{
  OFF_NUMBER, /* the property set to 0 */
  OFF_POLAR,  /* nanoBragg's -nopolar (polarization factor 1); back with -polar K */
  OFF_SHAPE,  /* the crystal shape set to tophat: no fringes, a flat spot */
  OFF_F,      /* no structure-factor file and every F equal */
} OffKind;

typedef struct
{
  const char *name;     /* the check button is name + "-effect-check" */
  const char *label;    /* N_() */
  const char *tooltip;  /* N_() */
  const char *property; /* the simulation property it switches */
  OffKind kind;
} EffectSpec;

static const EffectSpec effect_specs[] = {
  { "mosaicity", N_ ("Mosaicity"), N_ ("Mosaic spread: off sets it to 0, on restores it"),
    "mosaic-spread", OFF_NUMBER },
  { "divergence", N_ ("Beam divergence"), N_ ("Divergence: off sets it to 0, on restores it"),
    "divergence", OFF_NUMBER },
  { "dispersion", N_ ("Spectral dispersion"),
    N_ ("Spectral width: off makes the beam monochromatic, on restores it"), "dispersion",
    OFF_NUMBER },
  { "polarization", N_ ("Polarization factor"),
    N_ ("Off: every pixel's polarization factor is 1 (nanoBragg's -nopolar); on restores the "
        "Kahn factor"),
    "polarization", OFF_POLAR },
  { "shape-transform", N_ ("Crystal shape transform"),
    N_ ("Off: spots become flat discs without fringes (tophat); on restores the crystal's shape"),
    "crystal-shape", OFF_SHAPE },
  { "structure-factors", N_ ("Structure factors"),
    N_ ("Off: every reflection has the same F; on restores the structure-factor file"),
    "structure-factors", OFF_F },
};

/* What an effect had before it was switched off. */
typedef struct
{
  BraggscopeControls *self;
  const EffectSpec *spec;
  GtkWidget *check;
  gboolean off;
  double number;
  int shape;
  char *file;
  double default_f;
  gboolean applying;
} Effect;

static void
effect_free (gpointer data)
{
  Effect *effect = data;

  g_free (effect->file);
  g_free (effect);
}

static void
apply_args (BraggscopeSimulation *sim, const char *flag, double value)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];
  const char *args[] = { flag, g_ascii_dtostr (buffer, sizeof buffer, value), NULL };

  if (isnan (value))
    args[1] = NULL;
  braggscope_simulation_set_from_args (sim, args, NULL);
}

static void
switch_off (Effect *e)
{
  GObject *sim = G_OBJECT (e->self->simulation);

  switch (e->spec->kind)
    {
      case OFF_NUMBER:
        g_object_get (sim, e->spec->property, &e->number, NULL);
        g_object_set (sim, e->spec->property, 0.0, NULL);
        break;
      case OFF_POLAR:
        g_object_get (sim, e->spec->property, &e->number, NULL);
        apply_args (e->self->simulation, "-nopolar", NAN);
        break;
      case OFF_SHAPE:
        {
          g_autoptr (GEnumClass) klass = NULL;
          GParamSpec *pspec =
              g_object_class_find_property (G_OBJECT_GET_CLASS (sim), e->spec->property);
          GEnumValue *tophat;

          klass = g_type_class_ref (pspec->value_type);
          tophat = g_enum_get_value_by_nick (klass, "tophat");
          g_object_get (sim, e->spec->property, &e->shape, NULL);
          if (tophat != NULL)
            g_object_set (sim, e->spec->property, tophat->value, NULL);
        }
        break;
      case OFF_F:
        g_clear_pointer (&e->file, g_free);
        g_object_get (sim, "structure-factors", &e->file, "default-f", &e->default_f, NULL);
        /* every F the same: the default F, or 100 where there was none */
        g_object_set (sim, "structure-factors", NULL, "default-f",
                      e->default_f > 0 ? e->default_f : 100.0, NULL);
        break;
    }
}

static void
switch_on (Effect *e)
{
  GObject *sim = G_OBJECT (e->self->simulation);

  switch (e->spec->kind)
    {
      case OFF_NUMBER:
        g_object_set (sim, e->spec->property, e->number, NULL);
        break;
      case OFF_POLAR:
        apply_args (e->self->simulation, "-polar", e->number);
        break;
      case OFF_SHAPE:
        g_object_set (sim, e->spec->property, e->shape, NULL);
        break;
      case OFF_F:
        g_object_set (sim, "default-f", e->default_f, "structure-factors", e->file, NULL);
        break;
    }
}

static void
on_effect_toggled (GtkCheckButton *check, Effect *e)
{
  gboolean on = gtk_check_button_get_active (check);

  if (e->applying || on == !e->off)
    return;
  e->applying = TRUE;
  if (on)
    switch_on (e);
  else
    switch_off (e);
  e->off = !on;
  e->applying = FALSE;
}

/* The property changed elsewhere (a slider, a lesson): a value of its own
 * switches the effect back on, without restoring the old one. */
static void
on_effect_property (GObject *sim, GParamSpec *pspec, Effect *e)
{
  gboolean now_off = e->off;

  if (e->applying || !e->off)
    return;
  if (e->spec->kind == OFF_NUMBER)
    {
      double v = 0.0;

      g_object_get (sim, e->spec->property, &v, NULL);
      now_off = v == 0.0;
    }
  else if (e->spec->kind == OFF_F)
    {
      g_autofree char *file = NULL;

      g_object_get (sim, "structure-factors", &file, NULL);
      now_off = file == NULL || *file == '\0';
    }
  else if (e->spec->kind == OFF_SHAPE)
    {
      int shape = 0;
      GEnumValue *tophat;
      g_autoptr (GEnumClass) klass = g_type_class_ref (pspec->value_type);

      g_object_get (sim, e->spec->property, &shape, NULL);
      tophat = g_enum_get_value_by_nick (klass, "tophat");
      now_off = tophat != NULL && shape == tophat->value;
    }
  else
    now_off = FALSE;
  if (!now_off)
    {
      e->off = FALSE;
      e->applying = TRUE;
      gtk_check_button_set_active (GTK_CHECK_BUTTON (e->check), TRUE);
      e->applying = FALSE;
    }
}

void
_braggscope_controls_build_effects (BraggscopeControls *self)
{
  GtkWidget *expander = gtk_expander_new (_ ("Effects"));
  GtkWidget *flow = gtk_flow_box_new ();
  GObjectClass *klass = G_OBJECT_GET_CLASS (self->simulation);

  gtk_widget_set_name (expander, "effects-group");
  gtk_widget_set_tooltip_text (expander, _ ("Switch one effect off and on again to see what it "
                                            "does; switching it on restores its value"));
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (flow), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (flow), 2);
  gtk_widget_set_margin_start (flow, 12);
  for (guint i = 0; i < G_N_ELEMENTS (effect_specs); i++)
    {
      const EffectSpec *spec = &effect_specs[i];
      g_autofree char *name = g_strconcat (spec->name, "-effect-check", NULL);
      g_autofree char *signal = g_strconcat ("notify::", spec->property, NULL);
      Effect *e;

      if (g_object_class_find_property (klass, spec->property) == NULL)
        continue;
      e = g_new0 (Effect, 1);
      e->self = self;
      e->spec = spec;
      e->check = gtk_check_button_new_with_label (_ (spec->label));
      gtk_check_button_set_active (GTK_CHECK_BUTTON (e->check), TRUE);
      gtk_widget_set_name (e->check, name);
      gtk_widget_set_tooltip_text (e->check, _ (spec->tooltip));
      g_signal_connect (e->check, "toggled", G_CALLBACK (on_effect_toggled), e);
      /* disconnected with the controls (dispose), before the Effect goes */
      g_ptr_array_add (self->notify_handlers,
                       GSIZE_TO_POINTER ((gsize) g_signal_connect (
                           self->simulation, signal, G_CALLBACK (on_effect_property), e)));
      gtk_flow_box_append (GTK_FLOW_BOX (flow), e->check);
      g_hash_table_insert (self->widgets, g_steal_pointer (&name), e->check);
      g_ptr_array_add (self->effects, e);
    }
  g_ptr_array_set_free_func (self->effects, effect_free);
  gtk_expander_set_child (GTK_EXPANDER (expander), flow);
  gtk_box_append (GTK_BOX (self->box), expander);
  g_hash_table_insert (self->widgets, g_strdup ("effects-group"), expander);
}

/* ------------------------------------------------------------------------- */
/* Display: the view's colormap, scale, contrast, rings, labels, beam centre */

static gboolean
enum_to_position (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  g_value_set_uint (to, (guint) g_value_get_enum (from));
  return TRUE;
}

static gboolean
position_to_enum (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  guint position = g_value_get_uint (from);

  if (position == GTK_INVALID_LIST_POSITION)
    return FALSE;
  g_value_set_enum (to, (int) position);
  return TRUE;
}

static gboolean
scale_is_gamma (GBinding *binding, const GValue *from, GValue *to, gpointer user_data)
{
  g_value_set_boolean (to, g_value_get_enum (from) == BRAGGSCOPE_SCALE_GAMMA);
  return TRUE;
}

static void
attach (BraggscopeControls *self,
        GtkGrid *grid,
        int row,
        const char *label,
        GtkWidget *widget,
        const char *name,
        const char *tooltip)
{
  gtk_widget_set_name (widget, name);
  gtk_widget_set_tooltip_text (widget, tooltip);
  if (label != NULL)
    {
      GtkWidget *title = gtk_label_new_with_mnemonic (label);

      gtk_label_set_mnemonic_widget (GTK_LABEL (title), widget);
      gtk_label_set_xalign (GTK_LABEL (title), 0.0f);
      gtk_grid_attach (grid, title, 0, row, 1, 1);
      gtk_grid_attach (grid, widget, 1, row, 2, 1);
    }
  else
    gtk_grid_attach (grid, widget, 0, row, 3, 1);
  g_hash_table_insert (self->widgets, g_strdup (name), widget);
}

static GtkWidget *
dropdown (const char *const *items)
{
  return gtk_drop_down_new_from_strings (items);
}

static GtkWidget *
limit_spin (BraggscopeView *view, const char *property)
{
  GtkAdjustment *adjustment = gtk_adjustment_new (0, 0, 1e12, 1, 100, 0);
  GtkWidget *spin = gtk_spin_button_new (adjustment, 1, 3);

  g_object_bind_property (view, property, adjustment, "value",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  /* insensitive while the contrast is automatic: focus would re-round it */
  g_object_bind_property (view, "auto-contrast", spin, "sensitive",
                          G_BINDING_SYNC_CREATE | G_BINDING_INVERT_BOOLEAN);
  return spin;
}

static void
on_rings_entry_commit (GtkEntry *entry, BraggscopeView *view)
{
  braggscope_view_set_ring_resolutions (view, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

static void
on_rings_entry_leave (GtkEventControllerFocus *focus, BraggscopeView *view)
{
  on_rings_entry_commit (GTK_ENTRY (gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (focus))),
                         view);
}

static GtkWidget *
check (BraggscopeView *view, const char *label, const char *property)
{
  GtkWidget *button = gtk_check_button_new_with_mnemonic (label);

  g_object_bind_property (view, property, button, "active",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  return button;
}

void
_braggscope_controls_build_display (BraggscopeControls *self)
{
  static const char *colormaps[] = { N_ ("Grey"),    N_ ("Inverted grey (film)"),
                                     N_ ("Viridis"), N_ ("Magma"),
                                     N_ ("Heat"),    NULL };
  static const char *scales[] = { N_ ("Linear"), N_ ("Logarithmic"), N_ ("Gamma"), NULL };
  const char *translated_maps[G_N_ELEMENTS (colormaps)], *translated_scales[G_N_ELEMENTS (scales)];
  BraggscopeView *view = self->view;
  GtkWidget *expander = gtk_expander_new (_ ("Display"));
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());
  GtkWidget *w, *gamma;
  GtkEventController *focus;
  const GBindingFlags both = G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE;

  for (guint i = 0; i < G_N_ELEMENTS (colormaps); i++)
    translated_maps[i] = colormaps[i] != NULL ? _ (colormaps[i]) : NULL;
  for (guint i = 0; i < G_N_ELEMENTS (scales); i++)
    translated_scales[i] = scales[i] != NULL ? _ (scales[i]) : NULL;

  gtk_widget_set_name (expander, "display-group");
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  gtk_grid_set_row_spacing (grid, 4);
  gtk_grid_set_column_spacing (grid, 8);
  gtk_widget_set_margin_start (GTK_WIDGET (grid), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (grid), 4);
  gtk_widget_set_margin_bottom (GTK_WIDGET (grid), 8);

  w = dropdown (translated_maps);
  gtk_widget_set_hexpand (w, TRUE);
  g_object_bind_property_full (view, "colormap", w, "selected", both, enum_to_position,
                               position_to_enum, NULL, NULL);
  attach (self, grid, 0, _ ("_Colormap"), w, "colormap-dropdown",
          _ ("Colours of the image; inverted grey looks like film"));
  w = dropdown (translated_scales);
  g_object_bind_property_full (view, "scale", w, "selected", both, enum_to_position,
                               position_to_enum, NULL, NULL);
  attach (self, grid, 1, _ ("_Scale"), w, "scale-dropdown",
          _ ("How photons per pixel map to colours between the contrast limits"));
  gamma = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0.1, 5.0, 0.05);
  gtk_scale_set_draw_value (GTK_SCALE (gamma), TRUE);
  gtk_scale_set_value_pos (GTK_SCALE (gamma), GTK_POS_RIGHT);
  gtk_scale_set_digits (GTK_SCALE (gamma), 2);
  g_object_bind_property (view, "gamma", gtk_range_get_adjustment (GTK_RANGE (gamma)), "value",
                          both);
  g_object_bind_property_full (view, "scale", gamma, "sensitive", G_BINDING_SYNC_CREATE,
                               scale_is_gamma, NULL, NULL, NULL);
  attach (self, grid, 2, _ ("_Gamma"), gamma, "gamma-scale",
          _ ("Exponent of the gamma scale: above 1 brings out weak spots"));
  attach (self, grid, 3, NULL, check (view, _ ("_Automatic contrast"), "auto-contrast"),
          "auto-contrast-check", _ ("Set the limits from percentiles of each new frame"));
  attach (self, grid, 4, _ ("_Low (photons)"), limit_spin (view, "low"), "low-spin",
          _ ("Photons per pixel shown as the lowest colour"));
  attach (self, grid, 5, _ ("_High (photons)"), limit_spin (view, "high"), "high-spin",
          _ ("Photons per pixel shown as the highest colour"));
  attach (self, grid, 6, NULL, check (view, _ ("_Resolution rings"), "show-rings"),
          "show-rings-check", _ ("Circles of constant resolution d, labelled in Ångström"));
  w = gtk_entry_new ();
  gtk_entry_set_placeholder_text (GTK_ENTRY (w), _ ("automatic"));
  if (braggscope_view_get_ring_resolutions (view) != NULL)
    gtk_editable_set_text (GTK_EDITABLE (w), braggscope_view_get_ring_resolutions (view));
  g_signal_connect_object (w, "activate", G_CALLBACK (on_rings_entry_commit), view,
                           G_CONNECT_DEFAULT);
  focus = gtk_event_controller_focus_new ();
  g_signal_connect_object (focus, "leave", G_CALLBACK (on_rings_entry_leave), view,
                           G_CONNECT_DEFAULT);
  gtk_widget_add_controller (w, focus);
  attach (self, grid, 7, _ ("Rings _at (Å)"), w, "ring-resolutions-entry",
          _ ("Resolutions of the rings in Å (\"3 2.5\"), so that they stay at those d when the "
             "wavelength changes; empty for automatic rings"));
  attach (self, grid, 8, NULL, check (view, _ ("_Miller indices (h k l)"), "show-labels"),
          "show-labels-check", _ ("Label the brightest predicted spots with h k l"));
  attach (self, grid, 9, NULL, check (view, _ ("_Beam centre"), "show-beam-center"),
          "show-beam-center-check", _ ("Mark where the direct beam meets the detector"));

  gtk_expander_set_child (GTK_EXPANDER (expander), GTK_WIDGET (grid));
  gtk_box_append (GTK_BOX (self->box), expander);
  g_hash_table_insert (self->widgets, g_strdup ("display-group"), expander);
}
