/* braggscope-view-properties.c: BraggscopeView's properties, their
 * reference documentation, and get/set_property, which hand each to the
 * view's accessors (braggscope-view.c, braggscope-view-marks.c).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-view-private.h"

GParamSpec *_braggscope_view_properties[N_PROPS];

void
_braggscope_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (object);

  switch (prop_id)
    {
      case PROP_SIMULATION:
        g_value_set_object (value, self->simulation);
        break;
      case PROP_FRAME:
        g_value_set_object (value, self->given_frame);
        break;
      case PROP_COLORMAP:
        g_value_set_enum (value, self->display.colormap);
        break;
      case PROP_SCALE:
        g_value_set_enum (value, self->display.scale);
        break;
      case PROP_GAMMA:
        g_value_set_double (value, self->display.gamma);
        break;
      case PROP_AUTO_CONTRAST:
        g_value_set_boolean (value, self->auto_contrast);
        break;
      case PROP_CONTRAST_PERCENTILE:
        g_value_set_double (value, self->contrast_percentile);
        break;
      case PROP_LOW:
        g_value_set_double (value, self->display.low);
        break;
      case PROP_HIGH:
        g_value_set_double (value, self->display.high);
        break;
      case PROP_SHOW_RINGS:
        g_value_set_boolean (value, self->show_rings);
        break;
      case PROP_SHOW_BEAM_CENTER:
        g_value_set_boolean (value, self->show_beam_center);
        break;
      case PROP_SHOW_LABELS:
        g_value_set_boolean (value, self->show_labels);
        break;
      case PROP_LABEL_COUNT:
        g_value_set_uint (value, self->label_count);
        break;
      case PROP_RING_RESOLUTIONS:
        g_value_set_string (value, self->ring_resolutions);
        break;
      case PROP_LABEL_REFLECTIONS:
        g_value_set_string (value, self->label_reflections);
        break;
      case PROP_ZOOM:
        g_value_set_double (value, self->zoom);
        break;
      case PROP_RENDERER:
        g_value_set_string (value, braggscope_view_get_renderer (self));
        break;
      case PROP_FORCE_SOFTWARE:
        g_value_set_boolean (value, self->force_software);
        break;
      case PROP_COMPARE_MODE:
      case PROP_HAS_REFERENCE:
      case PROP_REFERENCE_LABEL:
      case PROP_BLINK_REFERENCE:
      case PROP_REFERENCE_AUTO_WINDOW:
      case PROP_REFERENCE_MIN:
      case PROP_REFERENCE_MAX:
      case PROP_REFERENCE_SCALE:
      case PROP_COMPARE_FALLBACK:
        _braggscope_view_compare_get_property (self, prop_id, value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

void
_braggscope_view_set_property (GObject *object,
                               guint prop_id,
                               const GValue *value,
                               GParamSpec *pspec)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (object);

  switch (prop_id)
    {
      case PROP_SIMULATION:
        braggscope_view_set_simulation (self, g_value_get_object (value));
        break;
      case PROP_COLORMAP:
        braggscope_view_set_colormap (self, g_value_get_enum (value));
        break;
      case PROP_SCALE:
        braggscope_view_set_scale (self, g_value_get_enum (value));
        break;
      case PROP_GAMMA:
        braggscope_view_set_gamma (self, g_value_get_double (value));
        break;
      case PROP_AUTO_CONTRAST:
        braggscope_view_set_auto_contrast (self, g_value_get_boolean (value));
        break;
      case PROP_CONTRAST_PERCENTILE:
        braggscope_view_set_contrast_percentile (self, g_value_get_double (value));
        break;
      case PROP_LOW:
        braggscope_view_set_low (self, g_value_get_double (value));
        break;
      case PROP_HIGH:
        braggscope_view_set_high (self, g_value_get_double (value));
        break;
      case PROP_SHOW_RINGS:
        braggscope_view_set_show_rings (self, g_value_get_boolean (value));
        break;
      case PROP_SHOW_BEAM_CENTER:
        braggscope_view_set_show_beam_center (self, g_value_get_boolean (value));
        break;
      case PROP_SHOW_LABELS:
        braggscope_view_set_show_labels (self, g_value_get_boolean (value));
        break;
      case PROP_LABEL_COUNT:
        braggscope_view_set_label_count (self, g_value_get_uint (value));
        break;
      case PROP_RING_RESOLUTIONS:
        braggscope_view_set_ring_resolutions (self, g_value_get_string (value));
        break;
      case PROP_LABEL_REFLECTIONS:
        braggscope_view_set_label_reflections (self, g_value_get_string (value));
        break;
      case PROP_ZOOM:
        braggscope_view_set_zoom (self, g_value_get_double (value));
        break;
      case PROP_FORCE_SOFTWARE:
        self->force_software = g_value_get_boolean (value);
        break;
      case PROP_COMPARE_MODE:
      case PROP_HAS_REFERENCE:
      case PROP_REFERENCE_LABEL:
      case PROP_BLINK_REFERENCE:
      case PROP_REFERENCE_AUTO_WINDOW:
      case PROP_REFERENCE_MIN:
      case PROP_REFERENCE_MAX:
      case PROP_REFERENCE_SCALE:
      case PROP_COMPARE_FALLBACK:
        _braggscope_view_compare_set_property (self, prop_id, value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* What a teaching view draws over the frame: labels and fixed rings. */
static void
install_mark_properties (GParamFlags rw)
{
  /**
   * BraggscopeView:show-labels:
   *
   * Whether the brightest predicted reflections of a full frame are labelled
   * with h k l ([method@Braggscope.Frame.get_brightest_reflections]): at
   * most [property@BraggscopeGtk.View:label-count] of them, each where its
   * label overlaps no other.
   *
   * Since: 0.1
   */
  _braggscope_view_properties[PROP_SHOW_LABELS] = g_param_spec_boolean (
      "show-labels", "Miller indices", "Label the brightest spots with h k l", FALSE, rw);

  /**
   * BraggscopeView:label-count:
   *
   * How many of the brightest predicted reflections to label (a count).
   *
   * Since: 0.1
   */
  _braggscope_view_properties[PROP_LABEL_COUNT] = g_param_spec_uint (
      "label-count", "Labels", "How many spots to label with h k l", 1, 500, 20, rw);

  /**
   * BraggscopeView:ring-resolutions:
   *
   * Resolutions d of the rings, in Å, as numbers separated by blanks or
   * commas ("3 2.5 2"; at most six), so that rings stay at those d when the
   * wavelength or the distance changes; %NULL or empty for rings chosen
   * from the detector's range of 2θ, each at a round d (10, 5, 3.5 Å...).
   *
   * Since: 0.1
   */
  _braggscope_view_properties[PROP_RING_RESOLUTIONS] = g_param_spec_string (
      "ring-resolutions", "Ring resolutions", "Resolutions of the rings (Å)", NULL, rw);

  /**
   * BraggscopeView:label-reflections:
   *
   * Reflections labelled whenever they are predicted on the detector, before
   * the brightest ones: Miller indices h k l, three integers each, separated
   * by semicolons or commas ("0 0 6; 0 0 12"), the reflections a lesson
   * names; %NULL or empty for none.
   *
   * Since: 0.1
   */
  _braggscope_view_properties[PROP_LABEL_REFLECTIONS] =
      g_param_spec_string ("label-reflections", "Labelled reflections",
                           "Reflections labelled first, whenever predicted (h k l; ...)", NULL, rw);
}

/* The properties' reference documentation, here rather than beside each
 * g_param_spec_*() call below, which it would make longer than a function may be. */

/**
 * BraggscopeView:simulation:
 *
 * The simulation whose frames are shown: the view follows its
 * [signal@Braggscope.Simulation::frame-ready] and shows its last frame at
 * once.  The view holds a reference to it.  Set to %NULL, the view stops
 * following it and keeps showing the frame it has.
 *
 * Since: 0.1
 */

/**
 * BraggscopeView:frame:
 *
 * The frame shown: the simulation's newest, previews included, or %NULL
 * before the first.  Read-only; notified at every new frame.
 *
 * Since: 0.1
 */

/**
 * BraggscopeView:colormap:
 *
 * The colour table; inverted grey (film) by default.  A change recolours
 * the frame without simulating it again.
 *
 * Since: 0.1
 */

/**
 * BraggscopeView:scale:
 *
 * How an intensity becomes a position in the colour table: linear (the
 * default), logarithmic or gamma, as [struct@Braggscope.Display] describes.
 * A change recolours the frame without simulating it again.
 *
 * Since: 0.1
 */

/**
 * BraggscopeView:gamma:
 *
 * The exponent of the gamma scale (%BRAGGSCOPE_SCALE_GAMMA), dimensionless,
 * 0.05 to 20, default 1 ([method@BraggscopeGtk.View.set_gamma] clamps values
 * outside): the gamma scale shows t^(1/gamma) of the position t of an
 * intensity in the window, so a gamma above 1 lifts faint pixels up the
 * colour table.  Used by the gamma scale only.
 *
 * Since: 0.1
 */

/**
 * BraggscopeView:auto-contrast:
 *
 * Whether the window ([property@BraggscopeGtk.View:low] to
 * [property@BraggscopeGtk.View:high]) follows the frames: each full frame
 * sets it to its 1st and 99.5th percentiles
 * ([method@Braggscope.Frame.get_auto_window]); a preview keeps the window of
 * the last full frame, unless it is the first frame or its size differs.
 * Turning it on sets the window from the frame shown at once; setting low
 * or high turns it off.  On by default.
 *
 * Since: 0.1
 */

/**
 * BraggscopeView:contrast-percentile:
 *
 * The percentile of a full frame's pixels that
 * [property@BraggscopeGtk.View:auto-contrast] takes as the window's top
 * (50 to 100; the bottom stays the 1st).  The default, 99.5, shows faint
 * spots; near 100 the window follows the brightest spots, so that weak ones
 * fade as they would beside them (a lesson on the shape transform sets
 * 99.99).
 *
 * Since: 0.1
 */

/**
 * BraggscopeView:low:
 *
 * The bottom of the window, in photons per pixel: intensities at or below
 * it get the first colour of the table.  Default 0.  Setting it turns
 * [property@BraggscopeGtk.View:auto-contrast] off; while that is on, it
 * follows the frames and is notified when it changes.
 *
 * Since: 0.1
 */

/**
 * BraggscopeView:high:
 *
 * The top of the window, in photons per pixel: intensities at or above it
 * get the last colour of the table.  Default 100.  Setting it turns
 * [property@BraggscopeGtk.View:auto-contrast] off; while that is on, it
 * follows the frames and is notified when it changes.
 *
 * Since: 0.1
 */

/**
 * BraggscopeView:show-rings:
 *
 * Whether resolution rings are drawn over the frame, at round d spacings
 * across the resolution range the detector covers, each labelled with its
 * d in Å.  Rings are drawn on a flat detector only (not with
 * `-curved_det`).  On by default.
 *
 * Since: 0.1
 */

/**
 * BraggscopeView:show-beam-center:
 *
 * Whether a cross marks where the direct beam meets the detector plane
 * ([method@BraggscopeGtk.View.get_beam_center]); drawn when the detector is
 * flat and the beam meets it in front of the sample.  On by default.
 *
 * Since: 0.1
 */

/**
 * BraggscopeView:zoom:
 *
 * The magnification, a factor relative to the whole frame fitting the
 * widget: 1 (the default) fits the frame, 2 shows its pixels twice as
 * large.  0.25 to 256 ([method@BraggscopeGtk.View.set_zoom] clamps values
 * outside).  Setting it zooms about the centre of the widget.
 *
 * Since: 0.1
 */

/**
 * BraggscopeView:renderer:
 *
 * `gl` while frames are colour-mapped by the OpenGL shader, `software` when
 * on the CPU.  It reads `gl` from construction unless
 * [property@BraggscopeGtk.View:force-software] is set, and turns to
 * `software`, notified from an idle callback, when the realized widget
 * finds OpenGL failing or running on a software rasterizer.  Read-only.
 *
 * Since: 0.1
 */

/**
 * BraggscopeView:force-software:
 *
 * Colour-map on the CPU even where OpenGL works (both paths show the same
 * pixels).  Construct-only; also set when the environment variable
 * `BRAGGSCOPE_RENDERER` is `software`.
 *
 * Since: 0.1
 */

/* The second layer (braggscope-view-compare.c): a held frame or a measured
 * one, and how it is shown with the current frame. */
static void
install_compare_properties (GParamFlags rw)
{
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  /**
   * BraggscopeView:compare-mode:
   *
   * How the current frame is shown with the reference layer
   * ([method@BraggscopeGtk.View.set_reference],
   * [method@BraggscopeGtk.View.hold_frame]): alone (the default), side by
   * side, as a blink, as an overlay or as their difference.  Without a
   * reference the view shows the current frame whatever the mode.
   *
   * Since: 0.1
   */
  _braggscope_view_properties[PROP_COMPARE_MODE] =
      g_param_spec_enum ("compare-mode", "Compare mode", "How the reference layer is shown",
                         BRAGGSCOPE_TYPE_COMPARE_MODE, BRAGGSCOPE_COMPARE_NONE, rw);

  /**
   * BraggscopeView:has-reference:
   *
   * Whether the view holds a reference layer.  Read-only.
   *
   * Since: 0.1
   */
  _braggscope_view_properties[PROP_HAS_REFERENCE] = g_param_spec_boolean (
      "has-reference", "Has reference", "Whether a reference layer is held", FALSE, ro);

  /**
   * BraggscopeView:reference-label:
   *
   * The reference layer's name as its setter gave it ("A" for a held frame,
   * "measured" for a measured one), shown by the readout beside its value;
   * %NULL without a reference.  Read-only.
   *
   * Since: 0.1
   */
  _braggscope_view_properties[PROP_REFERENCE_LABEL] = g_param_spec_string (
      "reference-label", "Reference label", "The reference layer's name", NULL, ro);

  /**
   * BraggscopeView:blink-reference:
   *
   * In %BRAGGSCOPE_COMPARE_BLINK mode, %TRUE shows the reference and %FALSE
   * (the default) the current frame; the `b` key over the view toggles it.
   *
   * Since: 0.1
   */
  _braggscope_view_properties[PROP_BLINK_REFERENCE] = g_param_spec_boolean (
      "blink-reference", "Blink reference", "Blink mode shows the reference", FALSE, rw);

  /**
   * BraggscopeView:reference-auto-window:
   *
   * Whether the reference's own window
   * ([property@BraggscopeGtk.View:reference-min] to
   * [property@BraggscopeGtk.View:reference-max]) is set from it, at its 1st
   * and 99.5th percentiles of the unmasked values, as the current frame's
   * automatic contrast does; for counts (whole numbers: a measured frame)
   * its top is at least the median plus ten times its noise
   * ([func@Braggscope.auto_contrast_counts]), so a sparse frame's single
   * photons stay light.  Setting either limit turns it off.  On by
   * default.
   *
   * Since: 0.1
   */
  _braggscope_view_properties[PROP_REFERENCE_AUTO_WINDOW] =
      g_param_spec_boolean ("reference-auto-window", "Reference automatic window",
                            "Set the reference's window from its percentiles", TRUE, rw);

  /**
   * BraggscopeView:reference-min:
   *
   * The bottom of the reference's window, in the reference's own units
   * (photons per pixel for a held frame, counts for a measured one).
   * Default 0.  Setting it turns
   * [property@BraggscopeGtk.View:reference-auto-window] off.
   *
   * Since: 0.1
   */
  _braggscope_view_properties[PROP_REFERENCE_MIN] = g_param_spec_double (
      "reference-min", "Reference min", "The reference's first colour (its units)", -G_MAXDOUBLE,
      G_MAXDOUBLE, 0.0, rw);

  /**
   * BraggscopeView:reference-max:
   *
   * The top of the reference's window, in the reference's own units
   * (photons per pixel for a held frame, counts for a measured one).
   * Default 100.  Setting it turns
   * [property@BraggscopeGtk.View:reference-auto-window] off.
   *
   * Since: 0.1
   */
  _braggscope_view_properties[PROP_REFERENCE_MAX] = g_param_spec_double (
      "reference-max", "Reference max", "The reference's last colour (its units)", -G_MAXDOUBLE,
      G_MAXDOUBLE, 100.0, rw);

  /**
   * BraggscopeView:reference-scale:
   *
   * Whether %BRAGGSCOPE_COMPARE_DIFFERENCE scales the reference by the
   * least-squares factor s = Σ c·r / Σ r² over the pixels unmasked in both
   * (c current, r reference; dimensionless, 1 when Σ r² is 0) before
   * subtracting it, for measured counts against simulated photons.  Off by
   * default: a held frame is subtracted as it is.
   *
   * Since: 0.1
   */
  _braggscope_view_properties[PROP_REFERENCE_SCALE] = g_param_spec_boolean (
      "reference-scale", "Scale reference",
      "Scale the reference by the least-squares factor in the difference", FALSE, rw);

  /**
   * BraggscopeView:compare-fallback:
   *
   * Why the view shows the layers side by side rather than in
   * [property@BraggscopeGtk.View:compare-mode]: blink, overlay and
   * difference need a reference of the frame's size, and a translated
   * sentence saying that the sizes differ is set here when they do; %NULL
   * when the mode is shown as asked.  Read-only; notified when it changes.
   *
   * Since: 0.1
   */
  _braggscope_view_properties[PROP_COMPARE_FALLBACK] = g_param_spec_string (
      "compare-fallback", "Compare fallback", "Why the layers are shown side by side", NULL, ro);
}

void
_braggscope_view_install_properties (GObjectClass *object_class)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  _braggscope_view_properties[PROP_SIMULATION] =
      g_param_spec_object ("simulation", "Simulation", "The simulation whose frames are shown",
                           BRAGGSCOPE_TYPE_SIMULATION, rw);

  _braggscope_view_properties[PROP_FRAME] =
      g_param_spec_object ("frame", "Frame", "The frame shown", BRAGGSCOPE_TYPE_FRAME,
                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  _braggscope_view_properties[PROP_COLORMAP] =
      g_param_spec_enum ("colormap", "Colormap", "The colour table", BRAGGSCOPE_TYPE_COLORMAP,
                         BRAGGSCOPE_COLORMAP_INVERTED_GREY, rw);

  _braggscope_view_properties[PROP_SCALE] =
      g_param_spec_enum ("scale", "Scale", "The intensity scale (linear, log, gamma)",
                         BRAGGSCOPE_TYPE_SCALE, BRAGGSCOPE_SCALE_LINEAR, rw);

  _braggscope_view_properties[PROP_GAMMA] = g_param_spec_double (
      "gamma", "Gamma", "Exponent of the gamma scale, t^(1/gamma)", 0.05, 20.0, 1.0, rw);

  _braggscope_view_properties[PROP_AUTO_CONTRAST] = g_param_spec_boolean (
      "auto-contrast", "Auto contrast",
      "Set the window to the 1st and 99.5th percentiles of each full frame", TRUE, rw);

  _braggscope_view_properties[PROP_CONTRAST_PERCENTILE] =
      g_param_spec_double ("contrast-percentile", "Contrast percentile",
                           "The percentile of each full frame that automatic contrast takes as "
                           "the window's top",
                           50.0, 100.0, AUTO_HIGH_PERCENTILE, rw);

  _braggscope_view_properties[PROP_LOW] =
      g_param_spec_double ("low", "Low", "Intensity shown as the first colour (photons/pixel)",
                           -G_MAXDOUBLE, G_MAXDOUBLE, 0.0, rw);

  _braggscope_view_properties[PROP_HIGH] =
      g_param_spec_double ("high", "High", "Intensity shown as the last colour (photons/pixel)",
                           -G_MAXDOUBLE, G_MAXDOUBLE, 100.0, rw);

  _braggscope_view_properties[PROP_SHOW_RINGS] = g_param_spec_boolean (
      "show-rings", "Show rings", "Draw resolution rings labelled with d (Angstrom)", TRUE, rw);

  _braggscope_view_properties[PROP_SHOW_BEAM_CENTER] =
      g_param_spec_boolean ("show-beam-center", "Show beam centre",
                            "Mark where the direct beam meets the detector", TRUE, rw);

  _braggscope_view_properties[PROP_ZOOM] =
      g_param_spec_double ("zoom", "Zoom", "Magnification; 1 fits the whole frame in the widget",
                           MIN_ZOOM, MAX_ZOOM, 1.0, rw);

  _braggscope_view_properties[PROP_RENDERER] =
      g_param_spec_string ("renderer", "Renderer", "\"gl\" or \"software\"", "gl",
                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  _braggscope_view_properties[PROP_FORCE_SOFTWARE] = g_param_spec_boolean (
      "force-software", "Force software", "Colour-map on the CPU even where OpenGL works", FALSE,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  install_mark_properties (rw);
  install_compare_properties (rw);
  g_object_class_install_properties (object_class, N_PROPS, _braggscope_view_properties);
}

/**
 * braggscope_view_get_shown_frame:
 * @self: a view
 *
 * The frame the view draws, whose coordinates those of
 * [method@BraggscopeGtk.View.widget_to_frame] and
 * [method@BraggscopeGtk.View.get_readout] are: the
 * [property@BraggscopeGtk.View:frame] itself, or, for a multi-panel
 * detector, its projection ([method@Braggscope.Frame.project]: the panels
 * as the sample sees them), made once per frame.
 *
 * Returns: (transfer none) (nullable): the frame drawn, held by the view
 *   until the next one, or %NULL before the first
 *
 * Since: 0.2
 */
BraggscopeFrame *
braggscope_view_get_shown_frame (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  return self->frame;
}
