/* test-controls.c: BraggscopeControls' widgets, found by name, bound both
 * ways to the simulation's properties.  Runs under build-aux/xvfb-test.sh.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <math.h>
#include <string.h>

#include "braggscope-gtk.h"

/* Searches the widget tree itself, so the names are the widgets' own. */
static GtkWidget *
find_named (GtkWidget *root, const char *name)
{
  if (g_strcmp0 (gtk_widget_get_name (root), name) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_named (child, name);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
widget (BraggscopeControls *controls, const char *name, GType type)
{
  GtkWidget *w = braggscope_controls_get_widget (controls, name);

  if (w == NULL)
    g_error ("no widget named %s", name);
  g_assert_true (find_named (GTK_WIDGET (controls), name) == w);
  g_assert_true (G_TYPE_CHECK_INSTANCE_TYPE (w, type));
  return w;
}

/* New controls with every group open (a closed GtkExpander takes its child
 * out of the widget tree). */
static BraggscopeControls *
new_controls (BraggscopeSimulation *sim)
{
  BraggscopeControls *controls =
      g_object_ref_sink (BRAGGSCOPE_CONTROLS (braggscope_controls_new (sim)));

  GtkWidget *box =
      gtk_widget_get_parent (braggscope_controls_get_widget (controls, "crystal-group"));

  for (GtkWidget *child = gtk_widget_get_first_child (box); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    gtk_expander_set_expanded (GTK_EXPANDER (child), TRUE);
  return controls;
}

/* The simulation keeps its own units inside (radians, metres): values come
 * back within rounding. */
static void
assert_close (double a, double b)
{
  g_assert_cmpfloat_with_epsilon (a, b, 1e-9 * MAX (1.0, fabs (b)));
}

static double
get_double (BraggscopeSimulation *sim, const char *property)
{
  double v;

  g_object_get (sim, property, &v, NULL);
  return v;
}

static void
test_names_and_groups (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  BraggscopeControls *controls =
      g_object_ref_sink (BRAGGSCOPE_CONTROLS (braggscope_controls_new (sim)));
  const char *groups[] = { "crystal", "effects", "beam", "detector", "sampling" };
  const gboolean expanded[] = { TRUE, FALSE, TRUE, FALSE, FALSE };
  /* The drag sliders, and where each belongs. */
  const char *sliders[][2] = {
    { "misset-x-scale", "crystal-group" },       { "misset-y-scale", "crystal-group" },
    { "misset-z-scale", "crystal-group" },       { "mosaic-spread-scale", "crystal-group" },
    { "wavelength-scale", "beam-group" },        { "distance-scale", "detector-group" },
    { "beam-center-x-scale", "detector-group" }, { "phi-scale", "sampling-group" },
    { "water-scale", "sampling-group" },
  };
  const char *spins[] = { "misset-x-spin",      "wavelength-spin",
                          "mosaic-spread-spin", "mosaic-domains-spin",
                          "n-cells-spin",       "cell-a-spin",
                          "cell-gamma-spin",    "distance-spin",
                          "pixel-size-spin",    "detector-pixels-fast-spin",
                          "oversample-spin",    "default-f-spin" };
  GtkWidget *child;
  int n_children = 0;

  g_assert_true (braggscope_controls_get_simulation (controls) == sim);

  /* A vertical box of the groups, in order, in a scrolled window; the dragged ones open. */
  child = gtk_widget_get_first_child (
      gtk_widget_get_parent (braggscope_controls_get_widget (controls, "crystal-group")));
  for (guint g = 0; g < G_N_ELEMENTS (groups); g++, child = gtk_widget_get_next_sibling (child))
    {
      g_autofree char *name = g_strconcat (groups[g], "-group", NULL);

      g_assert_nonnull (child);
      g_assert_true (widget (controls, name, GTK_TYPE_EXPANDER) == child);
      g_assert_cmpint (gtk_expander_get_expanded (GTK_EXPANDER (child)), ==, expanded[g]);
      n_children++;
    }
  g_assert_null (child);
  g_assert_cmpint (n_children, ==, 5);
  for (guint g = 0; g < G_N_ELEMENTS (groups); g++)
    {
      g_autofree char *name = g_strconcat (groups[g], "-group", NULL);
      gtk_expander_set_expanded (GTK_EXPANDER (braggscope_controls_get_widget (controls, name)),
                                 TRUE);
    }

  for (guint i = 0; i < G_N_ELEMENTS (sliders); i++)
    {
      GtkWidget *scale = widget (controls, sliders[i][0], GTK_TYPE_SCALE);
      g_assert_true (
          gtk_widget_is_ancestor (scale, braggscope_controls_get_widget (controls, sliders[i][1])));
    }
  for (guint i = 0; i < G_N_ELEMENTS (spins); i++)
    widget (controls, spins[i], GTK_TYPE_SPIN_BUTTON);
  widget (controls, "convention-dropdown", GTK_TYPE_DROP_DOWN);
  widget (controls, "crystal-shape-dropdown", GTK_TYPE_DROP_DOWN);
  widget (controls, "precision-dropdown", GTK_TYPE_DROP_DOWN);
  widget (controls, "backend-dropdown", GTK_TYPE_DROP_DOWN);
  widget (controls, "preview-while-dragging-switch", GTK_TYPE_SWITCH);
  widget (controls, "structure-factors-entry", GTK_TYPE_ENTRY);
  widget (controls, "fluence-entry", GTK_TYPE_ENTRY);
  g_assert_null (braggscope_controls_get_widget (controls, "no-such-scale"));

  /* The misset sliders come first in their group. */
  {
    GtkWidget *grid = gtk_expander_get_child (
        GTK_EXPANDER (braggscope_controls_get_widget (controls, "crystal-group")));
    GtkWidget *first = gtk_grid_get_child_at (GTK_GRID (grid), 1, 0);
    g_assert_cmpstr (gtk_widget_get_name (first), ==, "misset-x-scale");
  }

  g_object_unref (controls);
}

static void
test_numbers (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  BraggscopeControls *controls = new_controls (sim);
  GtkRange *misset = GTK_RANGE (widget (controls, "misset-x-scale", GTK_TYPE_SCALE));
  GtkSpinButton *misset_spin =
      GTK_SPIN_BUTTON (widget (controls, "misset-x-spin", GTK_TYPE_SPIN_BUTTON));
  GtkRange *wavelength = GTK_RANGE (widget (controls, "wavelength-scale", GTK_TYPE_SCALE));
  GtkRange *mosaic = GTK_RANGE (widget (controls, "mosaic-spread-scale", GTK_TYPE_SCALE));
  GtkSpinButton *cells = GTK_SPIN_BUTTON (widget (controls, "n-cells-spin", GTK_TYPE_SPIN_BUTTON));
  guint64 sequence;
  int n;

  /* The widgets start at the simulation's values. */
  assert_close (gtk_range_get_value (wavelength), get_double (sim, "wavelength"));
  assert_close (gtk_range_get_value (misset), get_double (sim, "misset-x"));

  /* simulation -> slider and spin button */
  g_object_set (sim, "misset-x", 12.5, NULL);
  assert_close (gtk_range_get_value (misset), 12.5);
  assert_close (gtk_spin_button_get_value (misset_spin), 12.5);

  /* slider -> simulation, which counts it as a change */
  sequence = braggscope_simulation_get_sequence (sim);
  gtk_range_set_value (wavelength, 1.234);
  assert_close (get_double (sim, "wavelength"), 1.234);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), >, sequence);
  gtk_range_set_value (mosaic, 0.35);
  assert_close (get_double (sim, "mosaic-spread"), 0.35);
  gtk_spin_button_set_value (misset_spin, -7.25);
  assert_close (get_double (sim, "misset-x"), -7.25);
  assert_close (gtk_range_get_value (misset), -7.25);

  /* An integer property takes the rounded value. */
  gtk_spin_button_set_value (cells, 7.6);
  g_object_get (sim, "n-cells", &n, NULL);
  g_assert_cmpint (n, ==, 8);
  assert_close (gtk_spin_button_get_value (cells), 8.0);

  /* A value beyond the slider's range widens it instead of being clamped. */
  g_object_set (sim, "wavelength", 6.5, NULL);
  assert_close (gtk_range_get_value (wavelength), 6.5);
  g_assert_cmpfloat (gtk_adjustment_get_upper (gtk_range_get_adjustment (wavelength)), >=,
                     6.5 - 1e-9);
  assert_close (get_double (sim, "wavelength"), 6.5);

  g_object_unref (controls);
}

/* The photon energy spin button edits the wavelength in keV, with the
 * constant of nanoBragg's -energy (12398.42 eV A). */
static void
test_energy (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  BraggscopeControls *controls = new_controls (sim);
  GtkSpinButton *energy = GTK_SPIN_BUTTON (widget (controls, "energy-spin", GTK_TYPE_SPIN_BUTTON));
  GtkRange *wavelength = GTK_RANGE (widget (controls, "wavelength-scale", GTK_TYPE_SCALE));
  guint64 sequence;

  assert_close (gtk_spin_button_get_value (energy), 12.39842 / get_double (sim, "wavelength"));
  /* leaving the spin button, whose text shows 8.2656 keV, keeps 1.5 A exactly */
  gtk_range_set_value (wavelength, 1.5);
  sequence = braggscope_simulation_get_sequence (sim);
  gtk_spin_button_update (energy);
  g_assert_cmpfloat (get_double (sim, "wavelength"), ==, 1.5);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), ==, sequence);
  gtk_range_set_value (wavelength, 2.0);
  assert_close (gtk_spin_button_get_value (energy), 6.19921);
  sequence = braggscope_simulation_get_sequence (sim);
  gtk_spin_button_set_value (energy, 12.39842);
  assert_close (get_double (sim, "wavelength"), 1.0);
  assert_close (gtk_range_get_value (wavelength), 1.0);
  g_assert_cmpuint (braggscope_simulation_get_sequence (sim), >, sequence);
  /* the same wavelength as the -energy flag gives */
  {
    g_autoptr (GError) error = NULL;
    const char *args[] = { "-energy", "8000", NULL };

    g_assert_true (braggscope_simulation_set_from_args (sim, args, &error));
    g_assert_no_error (error);
    assert_close (gtk_spin_button_get_value (energy), 8.0);
  }
  g_object_unref (controls);
}

static void
test_choices_and_entries (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  BraggscopeControls *controls = new_controls (sim);
  GtkDropDown *convention =
      GTK_DROP_DOWN (widget (controls, "convention-dropdown", GTK_TYPE_DROP_DOWN));
  GtkDropDown *backend = GTK_DROP_DOWN (widget (controls, "backend-dropdown", GTK_TYPE_DROP_DOWN));
  GtkSwitch *preview =
      GTK_SWITCH (widget (controls, "preview-while-dragging-switch", GTK_TYPE_SWITCH));
  GtkWidget *fluence = widget (controls, "fluence-entry", GTK_TYPE_ENTRY);
  GtkWidget *hkl = widget (controls, "structure-factors-entry", GTK_TYPE_ENTRY);
  GListModel *items = gtk_drop_down_get_model (convention);
  g_autofree char *path = NULL, *current = NULL;
  BraggscopeBackend backend_now = BRAGGSCOPE_BACKEND_AUTO;
  GtkStringObject *item;
  int value;
  gboolean active;
  double flux;

  /* Enum: the drop-down lists the nicks and follows the property. */
  g_object_set (sim, "convention", BRAGGSCOPE_CONVENTION_XDS, NULL);
  item = GTK_STRING_OBJECT (gtk_drop_down_get_selected_item (convention));
  g_assert_cmpstr (gtk_string_object_get_string (item), ==, "xds");
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr (GtkStringObject) s = g_list_model_get_item (items, i);
      if (g_strcmp0 (gtk_string_object_get_string (s), "mosflm") == 0)
        gtk_drop_down_set_selected (convention, i);
    }
  g_object_get (sim, "convention", &value, NULL);
  g_assert_cmpint (value, ==, BRAGGSCOPE_CONVENTION_MOSFLM);

  /* The backend, an enum too (issue 27). */
  gtk_drop_down_set_selected (backend, 1);
  g_object_get (sim, "backend", &backend_now, NULL);
  g_assert_cmpint (backend_now, ==, BRAGGSCOPE_BACKEND_CPU);
  g_object_set (sim, "backend", BRAGGSCOPE_BACKEND_AUTO, NULL);
  g_assert_cmpuint (gtk_drop_down_get_selected (backend), ==, 0);

  /* The integration and its tolerance, in Sampling (issue 31). */
  {
    GtkDropDown *integration =
        GTK_DROP_DOWN (widget (controls, "integration-dropdown", GTK_TYPE_DROP_DOWN));
    GtkWidget *tolerance = widget (controls, "tolerance-entry", GTK_TYPE_ENTRY);
    BraggscopeIntegration now = BRAGGSCOPE_INTEGRATION_ADAPTIVE;
    double tol = 0.0;

    item = GTK_STRING_OBJECT (gtk_drop_down_get_selected_item (integration));
    g_assert_cmpstr (gtk_string_object_get_string (item), ==, "adaptive");
    gtk_drop_down_set_selected (integration, 0);
    g_object_get (sim, "integration", &now, NULL);
    g_assert_cmpint (now, ==, BRAGGSCOPE_INTEGRATION_EXACT);
    g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (tolerance)), ==, "0.001");
    gtk_editable_set_text (GTK_EDITABLE (tolerance), "1e-4");
    g_signal_emit_by_name (tolerance, "activate");
    g_object_get (sim, "tolerance", &tol, NULL);
    assert_close (tol, 1e-4);
  }

  /* A switch. */
  g_object_set (sim, "preview-while-dragging", FALSE, NULL);
  g_assert_false (gtk_switch_get_active (preview));
  gtk_switch_set_active (preview, TRUE);
  g_object_get (sim, "preview-while-dragging", &active, NULL);
  g_assert_true (active);

  /* A number in an entry: committed on Enter, refused when not a number. */
  gtk_editable_set_text (GTK_EDITABLE (fluence), "2.5e24");
  g_object_get (sim, "fluence", &flux, NULL);
  g_assert_cmpfloat (flux, !=, 2.5e24); /* typing alone does not commit */
  g_signal_emit_by_name (fluence, "activate");
  g_object_get (sim, "fluence", &flux, NULL);
  assert_close (flux, 2.5e24);
  gtk_editable_set_text (GTK_EDITABLE (fluence), "lots");
  g_signal_emit_by_name (fluence, "activate");
  g_assert_true (gtk_widget_has_css_class (fluence, "error"));
  g_object_get (sim, "fluence", &flux, NULL);
  assert_close (flux, 2.5e24);
  g_object_set (sim, "fluence", 1e20, NULL);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (fluence)), ==, "1e+20");
  g_assert_false (gtk_widget_has_css_class (fluence, "error"));

  /* A file. */
  path = g_build_filename (g_getenv ("NB_DATA_DIR") != NULL ? g_getenv ("NB_DATA_DIR") : ".",
                           "1hpv_p1.hkl", NULL);
  gtk_editable_set_text (GTK_EDITABLE (hkl), path);
  g_signal_emit_by_name (hkl, "activate");
  g_object_get (sim, "structure-factors", &current, NULL);
  g_assert_cmpstr (current, ==, path);
  g_object_set (sim, "structure-factors", NULL, NULL);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (hkl)), ==, "");

  g_object_unref (controls);
  /* The simulation outlives the controls and stays usable. */
  g_object_set (sim, "misset-x", 3.0, "fluence", 2e20, NULL);
  assert_close (get_double (sim, "misset-x"), 3.0);
}

/* What BraggscopeControls::value-clamped said, the last time. */
typedef struct
{
  int count;
  char *property;
  double requested, applied;
  char *message;
} Clamped;

static void
on_value_clamped (BraggscopeControls *controls,
                  const char *property,
                  double requested,
                  double applied,
                  const char *message,
                  Clamped *c)
{
  c->count++;
  g_free (c->property);
  g_free (c->message);
  c->property = g_strdup (property);
  c->requested = requested;
  c->applied = applied;
  c->message = g_strdup (message);
}

/* Types @text into @spin and leaves it, as Enter does. */
static void
type_into (GtkSpinButton *spin, const char *text)
{
  gtk_editable_set_text (GTK_EDITABLE (spin), text);
  gtk_spin_button_update (spin);
}

/* A number typed outside a spin button's range is clamped to the range, as
 * GTK always did, and now said: what was typed, what was set, in a sentence. */
static void
test_clamped (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  BraggscopeControls *controls = new_controls (sim);
  GtkSpinButton *wavelength =
      GTK_SPIN_BUTTON (widget (controls, "wavelength-spin", GTK_TYPE_SPIN_BUTTON));
  GtkSpinButton *energy = GTK_SPIN_BUTTON (widget (controls, "energy-spin", GTK_TYPE_SPIN_BUTTON));
  GtkSpinButton *domains =
      GTK_SPIN_BUTTON (widget (controls, "mosaic-domains-spin", GTK_TYPE_SPIN_BUTTON));
  Clamped c = { 0 };
  int n;

  g_signal_connect (controls, "value-clamped", G_CALLBACK (on_value_clamped), &c);

  /* in range: taken as typed, nothing said */
  type_into (wavelength, "2.5");
  assert_close (get_double (sim, "wavelength"), 2.5);
  g_assert_cmpint (c.count, ==, 0);

  /* below: the minimum, said */
  type_into (wavelength, "0");
  assert_close (get_double (sim, "wavelength"), 0.2);
  g_assert_cmpint (c.count, ==, 1);
  g_assert_cmpstr (c.property, ==, "wavelength");
  g_assert_cmpfloat (c.requested, ==, 0.0);
  assert_close (c.applied, 0.2);
  g_assert_cmpstr (c.message, ==, "Wavelength: 0 \u00c5 is below the minimum; set to 0.2 \u00c5");

  /* above, on an integer without a unit */
  type_into (domains, "500");
  g_object_get (sim, "mosaic-domains", &n, NULL);
  g_assert_cmpint (n, ==, 200);
  g_assert_cmpint (c.count, ==, 2);
  g_assert_cmpstr (c.message, ==, "Mosaic domains: 500 is above the maximum; set to 200");

  /* the photon energy, in its own unit (the energy property, which sets the
   * wavelength) */
  type_into (energy, "100");
  assert_close (get_double (sim, "wavelength"), 12.39842 / 62.0);
  g_assert_cmpint (c.count, ==, 3);
  g_assert_cmpstr (c.property, ==, "energy");
  g_assert_cmpstr (c.message, ==, "Photon energy: 100 keV is above the maximum; set to 62 keV");

  /* no number: the value stays (GTK alone would have read 0 and set the
   * minimum without a word) */
  type_into (wavelength, "1.5");
  type_into (wavelength, "");
  type_into (wavelength, "1.2.3");
  type_into (wavelength, "nan");
  assert_close (get_double (sim, "wavelength"), 1.5);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (wavelength)), ==, "1.5000");
  g_assert_cmpint (c.count, ==, 3);

  g_free (c.property);
  g_free (c.message);
  g_object_unref (controls);
}

/* Each effect goes off with one click and comes back with its value. */
static void
test_effects (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new_default_scene (&error);
  BraggscopeControls *controls;
  GtkCheckButton *check;
  g_auto (GStrv) args = NULL;
  g_autofree char *file = NULL;
  int shape = 0;

  g_assert_no_error (error);
  g_object_set (sim, "mosaic-spread", 0.5, "divergence", 0.2, "dispersion", 0.01, NULL);
  controls = new_controls (sim);

  for (guint i = 0; i < 3; i++)
    {
      const char *names[][2] = { { "mosaicity-effect-check", "mosaic-spread" },
                                 { "divergence-effect-check", "divergence" },
                                 { "dispersion-effect-check", "dispersion" } };
      double before = get_double (sim, names[i][1]);

      check = GTK_CHECK_BUTTON (widget (controls, names[i][0], GTK_TYPE_CHECK_BUTTON));
      g_assert_true (gtk_check_button_get_active (check));
      gtk_check_button_set_active (check, FALSE);
      g_assert_cmpfloat (get_double (sim, names[i][1]), ==, 0.0);
      gtk_check_button_set_active (check, TRUE);
      assert_close (get_double (sim, names[i][1]), before);
    }

  /* a value set while off switches the effect back on, and stays */
  check = GTK_CHECK_BUTTON (widget (controls, "mosaicity-effect-check", GTK_TYPE_CHECK_BUTTON));
  gtk_check_button_set_active (check, FALSE);
  g_object_set (sim, "mosaic-spread", 1.5, NULL);
  g_assert_true (gtk_check_button_get_active (check));
  assert_close (get_double (sim, "mosaic-spread"), 1.5);

  check = GTK_CHECK_BUTTON (widget (controls, "polarization-effect-check", GTK_TYPE_CHECK_BUTTON));
  gtk_check_button_set_active (check, FALSE);
  args = braggscope_simulation_to_args (sim);
  g_assert_true (g_strv_contains ((const char *const *) args, "-nopolar"));
  g_clear_pointer (&args, g_strfreev);
  gtk_check_button_set_active (check, TRUE);
  args = braggscope_simulation_to_args (sim);
  g_assert_false (g_strv_contains ((const char *const *) args, "-nopolar"));

  check =
      GTK_CHECK_BUTTON (widget (controls, "shape-transform-effect-check", GTK_TYPE_CHECK_BUTTON));
  g_object_get (sim, "crystal-shape", &shape, NULL);
  gtk_check_button_set_active (check, FALSE);
  {
    int off = 0;

    g_object_get (sim, "crystal-shape", &off, NULL);
    g_assert_cmpint (off, !=, shape);
  }
  gtk_check_button_set_active (check, TRUE);
  {
    int back = 0;

    g_object_get (sim, "crystal-shape", &back, NULL);
    g_assert_cmpint (back, ==, shape);
  }

  check =
      GTK_CHECK_BUTTON (widget (controls, "structure-factors-effect-check", GTK_TYPE_CHECK_BUTTON));
  g_object_get (sim, "structure-factors", &file, NULL);
  g_assert_nonnull (file);
  gtk_check_button_set_active (check, FALSE);
  {
    g_autofree char *none = NULL;

    g_object_get (sim, "structure-factors", &none, NULL);
    g_assert_null (none);
    g_assert_cmpfloat (get_double (sim, "default-f"), >, 0.0);
  }
  gtk_check_button_set_active (check, TRUE);
  {
    g_autofree char *back = NULL;

    g_object_get (sim, "structure-factors", &back, NULL);
    g_assert_cmpstr (back, ==, file);
  }
  g_object_unref (controls);
}

/* With a view: the Display group edits it. */
static void
test_display (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  GtkWidget *view = g_object_ref_sink (braggscope_view_new (sim));
  BraggscopeControls *controls = g_object_ref_sink (
      BRAGGSCOPE_CONTROLS (braggscope_controls_new_with_view (sim, BRAGGSCOPE_VIEW (view))));
  GtkWidget *w;

  g_assert_true (braggscope_controls_get_widget (controls, "display-group") != NULL);
  w = widget (controls, "colormap-dropdown", GTK_TYPE_DROP_DOWN);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (w), BRAGGSCOPE_COLORMAP_MAGMA);
  g_assert_cmpint (braggscope_view_get_colormap (BRAGGSCOPE_VIEW (view)), ==,
                   BRAGGSCOPE_COLORMAP_MAGMA);
  braggscope_view_set_scale (BRAGGSCOPE_VIEW (view), BRAGGSCOPE_SCALE_GAMMA);
  g_assert_cmpuint (gtk_drop_down_get_selected (
                        GTK_DROP_DOWN (widget (controls, "scale-dropdown", GTK_TYPE_DROP_DOWN))),
                    ==, BRAGGSCOPE_SCALE_GAMMA);
  g_assert_true (gtk_widget_get_sensitive (widget (controls, "gamma-scale", GTK_TYPE_SCALE)));
  w = widget (controls, "auto-contrast-check", GTK_TYPE_CHECK_BUTTON);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (w), FALSE);
  g_assert_false (braggscope_view_get_auto_contrast (BRAGGSCOPE_VIEW (view)));
  g_assert_true (gtk_widget_get_sensitive (widget (controls, "low-spin", GTK_TYPE_SPIN_BUTTON)));
  gtk_check_button_set_active (
      GTK_CHECK_BUTTON (widget (controls, "show-labels-check", GTK_TYPE_CHECK_BUTTON)), TRUE);
  g_assert_true (braggscope_view_get_show_labels (BRAGGSCOPE_VIEW (view)));
  w = widget (controls, "ring-resolutions-entry", GTK_TYPE_ENTRY);
  gtk_editable_set_text (GTK_EDITABLE (w), "3 2");
  g_signal_emit_by_name (w, "activate");
  g_assert_cmpstr (braggscope_view_get_ring_resolutions (BRAGGSCOPE_VIEW (view)), ==, "3 2");
  /* no view, no Display group */
  {
    BraggscopeControls *plain =
        g_object_ref_sink (BRAGGSCOPE_CONTROLS (braggscope_controls_new (sim)));

    g_assert_null (braggscope_controls_get_widget (plain, "display-group"));
    g_object_unref (plain);
  }
  g_object_unref (controls);
  g_object_unref (view);
}

/* A small allocation scrolls, never clips a label; angles step in tenths. */
static void
test_panel (void)
{
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  BraggscopeControls *controls = new_controls (sim);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *scroller = find_named (GTK_WIDGET (controls), "controls-scroller");
  GtkAdjustment *v;
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  GtkAdjustment *angle =
      gtk_range_get_adjustment (GTK_RANGE (widget (controls, "misset-x-scale", GTK_TYPE_SCALE)));

  g_assert_cmpfloat (gtk_adjustment_get_step_increment (angle), ==, 0.1);
  g_assert_nonnull (scroller);
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (controls));
  gtk_window_set_default_size (GTK_WINDOW (window), 200, 300);
  gtk_window_present (GTK_WINDOW (window));
  while (gtk_widget_get_height (scroller) == 0 || gtk_widget_get_height (scroller) > 400)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
    }
  v = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  g_assert_cmpfloat (gtk_adjustment_get_upper (v), >, gtk_adjustment_get_page_size (v));
  /* every label gets at least its minimum width: the panel scrolls instead */
  for (GtkWidget *w = GTK_WIDGET (controls); w != NULL;)
    {
      if (GTK_IS_LABEL (w) && gtk_widget_get_mapped (w))
        {
          int minimum = 0;

          gtk_widget_measure (w, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
          g_assert_cmpint (gtk_widget_get_width (w), >=, minimum);
        }
      if (gtk_widget_get_first_child (w) != NULL)
        w = gtk_widget_get_first_child (w);
      else
        {
          while (w != NULL && gtk_widget_get_next_sibling (w) == NULL && w != GTK_WIDGET (controls))
            w = gtk_widget_get_parent (w);
          w = w == NULL || w == GTK_WIDGET (controls) ? NULL : gtk_widget_get_next_sibling (w);
        }
    }
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (controls);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  if (!gtk_init_check ())
    {
      g_print ("1..0 # SKIP no display (run under build-aux/xvfb-test.sh)\n");
      return 0;
    }

  g_test_add_func ("/controls/names-and-groups", test_names_and_groups);
  g_test_add_func ("/controls/numbers", test_numbers);
  g_test_add_func ("/controls/energy", test_energy);
  g_test_add_func ("/controls/clamped", test_clamped);
  g_test_add_func ("/controls/choices-and-entries", test_choices_and_entries);
  g_test_add_func ("/controls/effects", test_effects);
  g_test_add_func ("/controls/display", test_display);
  g_test_add_func ("/controls/panel", test_panel);

  return g_test_run ();
}
