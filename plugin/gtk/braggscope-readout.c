/* braggscope-readout.c: BraggscopeReadout, the view's readout as a widget.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-readout.h"
#include "braggscope-gtk-i18n-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

/**
 * BraggscopeReadout:
 *
 * What the detector sees under the pointer of a [class@BraggscopeGtk.View]:
 * the pixel, its intensity in photons, the resolution d (Å), the scattering
 * angle 2θ (degrees), |q| (Å⁻¹), the nearest and fractional Miller indices
 * h k l, and the structure factor F of that reflection (marked when it is the
 * default F, not one of the file's; for structure factors computed from an
 * atomic model, with the reflection's resolution and the model's, as in
 * "123.4 (2.10 Å; model to 1.90 Å)").
 *
 * The readout follows [signal@BraggscopeGtk.View::readout-changed], so it
 * updates when the pointer moves, when a new frame arrives under a still
 * pointer, and when the view zooms or pans.
 *
 * A horizontal readout (the default) is one line, ellipsized at the end, for
 * a status bar; a vertical one is a two-column table of names and values, for
 * a side panel.  Set [property@Gtk.Orientable:orientation] to choose.  When
 * the pointer is not on the frame the horizontal readout shows
 * [property@BraggscopeGtk.Readout:placeholder] and the table's values are
 * empty.
 *
 * Each value is also available as text through
 * [method@BraggscopeGtk.Readout.get_field]; a host that wants the numbers
 * calls [method@BraggscopeGtk.View.get_readout] itself.
 *
 * Since: 0.1
 */

/* The fields in display order: the name a host asks for, the name shown in
 * the vertical table (translated where it is a word). */
typedef enum
{
  FIELD_PANEL,
  FIELD_PIXEL,
  FIELD_PHOTONS,
  FIELD_D,
  FIELD_TWO_THETA,
  FIELD_Q,
  FIELD_HKL,
  FIELD_F,
  FIELD_REFERENCE,
  N_FIELDS
} Field;

static const struct
{
  const char *name;
  const char *title;
} fields[N_FIELDS] = {
  [FIELD_PANEL] = { "panel", N_ ("Panel") },
  [FIELD_PIXEL] = { "pixel", N_ ("Pixel") },
  [FIELD_PHOTONS] = { "photons", N_ ("Photons") },
  [FIELD_D] = { "d", "d" },
  [FIELD_TWO_THETA] = { "two-theta", "2\u03b8" },
  [FIELD_Q] = { "q", "|q|" },
  [FIELD_HKL] = { "hkl", "h k l" },
  [FIELD_F] = { "structure-factor", "F" },
  [FIELD_REFERENCE] = { "reference", N_ ("Reference") },
};

struct _BraggscopeReadout
{
  GtkWidget parent_instance;

  BraggscopeView *view;
  gulong readout_handler;
  GtkOrientation orientation;
  char *placeholder;

  GtkWidget *line;  /* GtkLabel: the horizontal readout */
  GtkWidget *table; /* GtkGrid: the vertical one */
  GtkWidget *values[N_FIELDS];
  GtkWidget *titles[N_FIELDS];
  char *texts[N_FIELDS];  /* NULL when the point is not on the frame */
  char *text;             /* the line */
  double reference_value; /* NaN when none */
};

enum
{
  PROP_0,
  PROP_VIEW,
  PROP_PLACEHOLDER,
  PROP_TEXT,
  PROP_REFERENCE_VALUE,
  /* GtkOrientable */
  PROP_ORIENTATION,
  N_PROPS = PROP_ORIENTATION
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE_WITH_CODE (BraggscopeReadout,
                               braggscope_readout,
                               GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_ORIENTABLE, NULL))

/* What F is: " (default F)" for a reflection outside the file's; for
 * structure factors computed from a model, the reflection's resolution and
 * the model's (beyond which F is the default), as the engine used them. */
static char *
structure_factor_note (const BraggscopePixelInfo *info)
{
  if (info->computed_to > 0.0 && info->reflection_d_spacing < info->computed_to)
    /* Translators: after F in the readout: the reflection's resolution d lies beyond the
     * resolution the structure factors were computed to from the atomic model. */
    return g_strdup_printf (_ (" (%.2f Å, beyond the model's %.2f Å: default F)"),
                            info->reflection_d_spacing, info->computed_to);
  if (info->computed_to > 0.0)
    /* Translators: after F in the readout: the reflection's resolution d, and the resolution
     * its structure factors were computed to from the atomic model. */
    return g_strdup_printf (_ (" (%.2f Å; model to %.2f Å)"), info->reflection_d_spacing,
                            info->computed_to);
  return g_strdup (info->from_file ? "" : _ (" (default F)"));
}

/* Reads the view's readout into the fields and the line. */
static void
readout_update (BraggscopeReadout *self)
{
  BraggscopePixelInfo info;
  int pixel_x = 0, pixel_y = 0;
  float value = 0.0f;
  gboolean inside;
  g_autofree char *text = NULL;

  inside = self->view != NULL &&
           braggscope_view_get_readout (self->view, NULL, NULL, &pixel_x, &pixel_y, &value, &info);
  double reference = NAN;

  for (int i = 0; i < N_FIELDS; i++)
    g_clear_pointer (&self->texts[i], g_free);

  if (inside)
    {
      g_autofree char *default_f = structure_factor_note (&info);

      BraggscopeFrame *frame = braggscope_view_get_shown_frame (self->view);
      BraggscopeGeometry *geometry = frame != NULL ? braggscope_frame_get_geometry (frame) : NULL;

      /* a multi-panel detector: the panel, and the pixel of that panel */
      if (geometry != NULL && braggscope_geometry_get_n_panels (geometry) > 1)
        {
          self->texts[FIELD_PANEL] =
              info.panel >= 0 ? g_strdup (braggscope_geometry_get_panel_name (geometry, info.panel))
                              : g_strdup (_ ("between panels"));
          if (info.panel >= 0)
            {
              pixel_x = (int) floor (info.panel_x);
              pixel_y = (int) floor (info.panel_y);
            }
        }
      self->texts[FIELD_PIXEL] = g_strdup_printf ("%d, %d", pixel_x, pixel_y);
      self->texts[FIELD_PHOTONS] = g_strdup_printf ("%.4g", (double) value);
      self->texts[FIELD_D] = isfinite (info.d_spacing)
                                 ? g_strdup_printf ("%.3f \u00c5", info.d_spacing)
                                 : g_strdup ("\u221e");
      self->texts[FIELD_TWO_THETA] = g_strdup_printf ("%.2f\u00b0", info.two_theta);
      self->texts[FIELD_Q] = g_strdup_printf ("%.3f \u00c5\u207b\u00b9", info.q);
      self->texts[FIELD_HKL] =
          g_strdup_printf ("%d %d %d (%.2f %.2f %.2f)", info.nearest_h, info.nearest_k,
                           info.nearest_l, info.h, info.k, info.l);
      self->texts[FIELD_F] = g_strdup_printf ("%.4g%s", info.structure_factor, default_f);
      /* Translators: the readout under the pointer: pixel, intensity, resolution d,
       * scattering angle 2θ, |q|, the nearest Miller indices and their structure factor. */
      text =
          g_strdup_printf (_ ("pixel %d, %d   %.4g photons   d %s   2θ %.2f°   q %.3f Å⁻¹   "
                              "h k l %d %d %d (%.2f %.2f %.2f)   F %.4g%s"),
                           pixel_x, pixel_y, (double) value, self->texts[FIELD_D], info.two_theta,
                           info.q, info.nearest_h, info.nearest_k, info.nearest_l, info.h, info.k,
                           info.l, info.structure_factor, default_f);
      if (self->texts[FIELD_PANEL] != NULL)
        {
          /* Translators: the readout's panel of a multi-panel detector, before the rest */
          char *line = g_strdup_printf (_ ("panel %s   %s"), self->texts[FIELD_PANEL], text);

          g_free (text);
          text = line;
        }
      reference = braggscope_view_get_reference_value (self->view);
      if (braggscope_view_get_has_reference (self->view))
        {
          /* the second layer's value at the same pixel, under its own name */
          const char *label = braggscope_view_get_reference_label (self->view);
          char *line;

          self->texts[FIELD_REFERENCE] =
              isnan (reference) ? g_strdup (_ ("masked")) : g_strdup_printf ("%.4g", reference);
          line = g_strdup_printf ("%s   %s %s", text, label, self->texts[FIELD_REFERENCE]);
          g_free (text);
          text = line;
        }
    }

  for (int i = 0; i < N_FIELDS; i++)
    gtk_label_set_text (GTK_LABEL (self->values[i]), self->texts[i] ? self->texts[i] : "");
  /* the panel's row only for a detector of several */
  gtk_widget_set_visible (self->titles[FIELD_PANEL], self->texts[FIELD_PANEL] != NULL);
  gtk_widget_set_visible (self->values[FIELD_PANEL], self->texts[FIELD_PANEL] != NULL);
  gtk_label_set_text (GTK_LABEL (self->line), text ? text : self->placeholder);
  if (!(isnan (reference) && isnan (self->reference_value)) && reference != self->reference_value)
    {
      self->reference_value = reference;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REFERENCE_VALUE]);
    }
  if (g_strcmp0 (text, self->text) != 0)
    {
      g_free (self->text);
      self->text = g_steal_pointer (&text);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXT]);
    }
}

static void
on_readout_changed (BraggscopeView *view, gboolean inside, BraggscopeReadout *self)
{
  readout_update (self);
}

static void
readout_set_orientation (BraggscopeReadout *self, GtkOrientation orientation)
{
  if (self->orientation == orientation)
    return;
  self->orientation = orientation;
  gtk_widget_set_visible (self->line, orientation == GTK_ORIENTATION_HORIZONTAL);
  gtk_widget_set_visible (self->table, orientation == GTK_ORIENTATION_VERTICAL);
  g_object_notify (G_OBJECT (self), "orientation");
}

static void
braggscope_readout_dispose (GObject *object)
{
  BraggscopeReadout *self = BRAGGSCOPE_READOUT (object);

  braggscope_readout_set_view (self, NULL);
  g_clear_pointer (&self->line, gtk_widget_unparent);
  g_clear_pointer (&self->table, gtk_widget_unparent);
  G_OBJECT_CLASS (braggscope_readout_parent_class)->dispose (object);
}

static void
braggscope_readout_finalize (GObject *object)
{
  BraggscopeReadout *self = BRAGGSCOPE_READOUT (object);

  for (int i = 0; i < N_FIELDS; i++)
    g_free (self->texts[i]);
  g_free (self->text);
  g_free (self->placeholder);
  G_OBJECT_CLASS (braggscope_readout_parent_class)->finalize (object);
}

static void
braggscope_readout_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  BraggscopeReadout *self = BRAGGSCOPE_READOUT (object);

  switch (prop_id)
    {
      case PROP_VIEW:
        g_value_set_object (value, self->view);
        break;
      case PROP_PLACEHOLDER:
        g_value_set_string (value, self->placeholder);
        break;
      case PROP_TEXT:
        g_value_set_string (value, self->text);
        break;
      case PROP_REFERENCE_VALUE:
        g_value_set_double (value, self->reference_value);
        break;
      case PROP_ORIENTATION:
        g_value_set_enum (value, self->orientation);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
braggscope_readout_set_property (GObject *object,
                                 guint prop_id,
                                 const GValue *value,
                                 GParamSpec *pspec)
{
  BraggscopeReadout *self = BRAGGSCOPE_READOUT (object);

  switch (prop_id)
    {
      case PROP_VIEW:
        braggscope_readout_set_view (self, g_value_get_object (value));
        break;
      case PROP_PLACEHOLDER:
        braggscope_readout_set_placeholder (self, g_value_get_string (value));
        break;
      case PROP_ORIENTATION:
        readout_set_orientation (self, g_value_get_enum (value));
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
braggscope_readout_class_init (BraggscopeReadoutClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  _braggscope_gtk_ensure_textdomain ();
  object_class->dispose = braggscope_readout_dispose;
  object_class->finalize = braggscope_readout_finalize;
  object_class->get_property = braggscope_readout_get_property;
  object_class->set_property = braggscope_readout_set_property;

  /**
   * BraggscopeReadout:view:
   *
   * The view whose readout point is shown, or %NULL (then only the
   * placeholder is shown).
   *
   * Since: 0.1
   */
  properties[PROP_VIEW] =
      g_param_spec_object ("view", NULL, NULL, BRAGGSCOPE_TYPE_VIEW,
                           G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * BraggscopeReadout:placeholder:
   *
   * The text of the horizontal readout while the pointer is not on the frame
   * (by default a translated "Point at the image to read the resolution and
   * the Miller indices").
   *
   * Since: 0.1
   */
  properties[PROP_PLACEHOLDER] =
      g_param_spec_string ("placeholder", NULL, NULL, NULL,
                           G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * BraggscopeReadout:text:
   *
   * The readout as one line: pixel, photons, d (Å), 2θ (degrees), |q| (Å⁻¹),
   * the nearest h k l with the fractional indices in parentheses, and F; or
   * %NULL while the pointer is not on the frame.  Translated.
   *
   * Since: 0.1
   */
  properties[PROP_TEXT] =
      g_param_spec_string ("text", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * BraggscopeReadout:reference-value:
   *
   * The value of the view's reference layer
   * ([method@BraggscopeGtk.View.set_reference]) at the readout's pixel, in
   * the reference's own units (photons per pixel for a held frame, counts
   * for a measured one); NaN without a reference, while the pointer is off
   * the frame, or where the reference is masked.  The line then ends with
   * the reference's label and this value ("… measured 12").
   *
   * Since: 0.1
   */
  properties[PROP_REFERENCE_VALUE] =
      g_param_spec_double ("reference-value", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
  g_object_class_override_property (object_class, PROP_ORIENTATION, "orientation");

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "braggscope-readout");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_STATUS);
}

static void
braggscope_readout_init (BraggscopeReadout *self)
{
  GtkGrid *grid;

  self->orientation = GTK_ORIENTATION_HORIZONTAL;
  self->reference_value = NAN;
  self->placeholder =
      g_strdup (_ ("Point at the image to read the resolution and the Miller indices"));

  self->line = gtk_label_new (self->placeholder);
  gtk_label_set_xalign (GTK_LABEL (self->line), 0.0f);
  gtk_label_set_single_line_mode (GTK_LABEL (self->line), TRUE);
  gtk_label_set_ellipsize (GTK_LABEL (self->line), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (self->line, "numeric");
  gtk_widget_set_parent (self->line, GTK_WIDGET (self));

  self->table = gtk_grid_new ();
  grid = GTK_GRID (self->table);
  gtk_grid_set_column_spacing (grid, 12);
  gtk_grid_set_row_spacing (grid, 2);
  for (int i = 0; i < N_FIELDS; i++)
    {
      GtkWidget *title = self->titles[i] = gtk_label_new (_ (fields[i].title));

      gtk_label_set_xalign (GTK_LABEL (title), 0.0f);
      gtk_widget_add_css_class (title, "dim-label");
      gtk_grid_attach (grid, title, 0, i, 1, 1);
      self->values[i] = gtk_label_new ("");
      gtk_label_set_xalign (GTK_LABEL (self->values[i]), 0.0f);
      gtk_label_set_selectable (GTK_LABEL (self->values[i]), TRUE);
      gtk_widget_add_css_class (self->values[i], "numeric");
      gtk_widget_set_name (self->values[i], fields[i].name);
      gtk_grid_attach (grid, self->values[i], 1, i, 1, 1);
    }
  /* the panel's row shows for a multi-panel detector only */
  gtk_widget_set_visible (self->titles[FIELD_PANEL], FALSE);
  gtk_widget_set_visible (self->values[FIELD_PANEL], FALSE);
  gtk_widget_set_visible (self->table, FALSE);
  gtk_widget_set_parent (self->table, GTK_WIDGET (self));
}

/**
 * braggscope_readout_new:
 * @view: (nullable): the view to follow
 *
 * A horizontal readout of @view's pointer.
 *
 * Returns: (transfer floating): the new readout
 *
 * Since: 0.1
 */
GtkWidget *
braggscope_readout_new (BraggscopeView *view)
{
  g_return_val_if_fail (view == NULL || BRAGGSCOPE_IS_VIEW (view), NULL);

  return g_object_new (BRAGGSCOPE_TYPE_READOUT, "view", view, NULL);
}

/**
 * braggscope_readout_get_view:
 * @self: a readout
 *
 * The view the readout follows.
 *
 * Returns: (transfer none) (nullable): the view, or %NULL
 *
 * Since: 0.1
 */
BraggscopeView *
braggscope_readout_get_view (BraggscopeReadout *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_READOUT (self), NULL);

  return self->view;
}

/**
 * braggscope_readout_set_view:
 * @self: a readout
 * @view: (nullable): the view to follow, or %NULL for none
 *
 * Makes the readout follow @view's readout point (the pointer, or the point
 * given to [method@BraggscopeGtk.View.set_readout_point]).  The readout holds
 * a reference to @view until another view is set or it is disposed.
 *
 * Since: 0.1
 */
void
braggscope_readout_set_view (BraggscopeReadout *self, BraggscopeView *view)
{
  g_return_if_fail (BRAGGSCOPE_IS_READOUT (self));
  g_return_if_fail (view == NULL || BRAGGSCOPE_IS_VIEW (view));

  if (self->view == view)
    return;
  if (self->view != NULL)
    g_clear_signal_handler (&self->readout_handler, self->view);
  g_set_object (&self->view, view);
  if (view != NULL)
    self->readout_handler =
        g_signal_connect (view, "readout-changed", G_CALLBACK (on_readout_changed), self);
  readout_update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VIEW]);
}

/**
 * braggscope_readout_get_placeholder:
 * @self: a readout
 *
 * The text shown while the pointer is not on the frame.
 *
 * Returns: (nullable): the placeholder
 *
 * Since: 0.1
 */
const char *
braggscope_readout_get_placeholder (BraggscopeReadout *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_READOUT (self), NULL);

  return self->placeholder;
}

/**
 * braggscope_readout_set_placeholder:
 * @self: a readout
 * @placeholder: (nullable): the text, or %NULL for none
 *
 * Sets the text the horizontal readout shows while the pointer is not on the
 * frame.
 *
 * Since: 0.1
 */
void
braggscope_readout_set_placeholder (BraggscopeReadout *self, const char *placeholder)
{
  g_return_if_fail (BRAGGSCOPE_IS_READOUT (self));

  if (g_strcmp0 (self->placeholder, placeholder) == 0)
    return;
  g_free (self->placeholder);
  self->placeholder = g_strdup (placeholder);
  if (self->text == NULL)
    gtk_label_set_text (GTK_LABEL (self->line), placeholder ? placeholder : "");
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PLACEHOLDER]);
}

/**
 * braggscope_readout_get_text:
 * @self: a readout
 *
 * The readout as one line, as [property@BraggscopeGtk.Readout:text].
 *
 * Returns: (nullable): the line, or %NULL while the pointer is not on the
 *   frame
 *
 * Since: 0.1
 */
const char *
braggscope_readout_get_text (BraggscopeReadout *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_READOUT (self), NULL);

  return self->text;
}

/**
 * braggscope_readout_get_field:
 * @self: a readout
 * @name: a field: "panel", "pixel", "photons", "d", "two-theta", "q", "hkl",
 *   "structure-factor" or "reference"
 *
 * One value of the readout as the vertical table shows it: the panel's name
 * for a multi-panel detector ("q0a0", or "between panels"; %NULL for a
 * detector of one panel), "512, 300" for the pixel (column, row; of that
 * panel on a multi-panel detector), "12.5" photons, "2.345 Å" (or "∞" at the direct beam),
 * "24.31°", "2.680 Å⁻¹", "3 -4 12 (2.98 -4.03 11.97)" for the nearest h k l and
 * the fractional indices, "123.4" for F (with " (default F)" when the
 * reflection is not in the structure-factor file; " (2.10 Å; model to 1.90 Å)"
 * when F was computed from an atomic model, or " (1.85 Å, beyond the model's
 * 1.90 Å: default F)"), and the reference layer's
 * value at that pixel ("8.3", or "masked"; %NULL without a reference).  The
 * widget's value labels
 * are named after the fields, too.
 *
 * Returns: (nullable): the value, or %NULL while the pointer is not on the
 *   frame or for an unknown @name
 *
 * Since: 0.1
 */
const char *
braggscope_readout_get_field (BraggscopeReadout *self, const char *name)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_READOUT (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (int i = 0; i < N_FIELDS; i++)
    if (strcmp (fields[i].name, name) == 0)
      return self->texts[i];
  return NULL;
}
