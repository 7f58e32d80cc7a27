/* braggscope-view.c: shows a simulation's frames, colour-mapped on the GPU
 * (braggscope-view-gl.c: GtkGLArea + shaders/colormap.frag) or on the CPU
 * (braggscope-view-software.c: GdkMemoryTexture), with zoom, pan, a readout
 * under the cursor and beam centre / resolution ring overlays; the same
 * pictures without a widget in braggscope-view-render.c.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-view-private.h"
#include "braggscope-gtk-i18n-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

/**
 * BraggscopeView:
 *
 * A widget showing the newest frame of a #BraggscopeSimulation.
 *
 * The frame's photons/pixel are uploaded once as a float texture and colour
 * mapped in a fragment shader, so contrast and colormap changes never
 * re-simulate; where OpenGL is not available (or #BraggscopeView:force-software
 * is set, or the environment variable `BRAGGSCOPE_RENDERER=software`) the same
 * mapping runs on the CPU (braggscope_colormap_apply()) and is drawn as a
 * texture.  A software rasterizer (Mesa's llvmpipe) counts as no OpenGL: the
 * CPU path is faster than the shader run on the CPU; `BRAGGSCOPE_RENDERER=gl`
 * uses the shader anyway.  Both paths sample the frame the same way (the frame pixel under
 * each screen pixel's centre when zoomed in; the brightest of the frame
 * pixels a screen pixel covers when zoomed out, so spots never drop out), so
 * they show the same pixels.  `BRAGGSCOPE_GL=gles` asks for an
 * OpenGL ES context instead of desktop OpenGL.
 *
 * Dragging pans, the scroll wheel zooms about the pointer, a double click fits
 * the frame to the widget.  Moving the pointer updates the readout (pixel,
 * value, resolution, 2 theta, Miller indices) and emits
 * #BraggscopeView::readout-changed.
 */

G_DEFINE_FINAL_TYPE (BraggscopeView, braggscope_view, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_SIMULATION,
  PROP_FRAME,
  PROP_COLORMAP,
  PROP_SCALE,
  PROP_GAMMA,
  PROP_AUTO_CONTRAST,
  PROP_LOW,
  PROP_HIGH,
  PROP_SHOW_RINGS,
  PROP_SHOW_BEAM_CENTER,
  PROP_SHOW_LABELS,
  PROP_LABEL_COUNT,
  PROP_RING_RESOLUTIONS,
  PROP_ZOOM,
  PROP_RENDERER,
  PROP_FORCE_SOFTWARE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_READOUT_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void update_readout (BraggscopeView *self);

/* ------------------------------------------------------------------------- */
/* Geometry of the view */

gboolean
_braggscope_view_frame_size (BraggscopeView *self, int *width, int *height)
{
  if (self->frame == NULL)
    return FALSE;
  *width = braggscope_frame_get_width (self->frame);
  *height = braggscope_frame_get_height (self->frame);
  return *width > 0 && *height > 0;
}

/* Logical widget pixels per frame pixel, and the frame coordinates of the
 * widget's top-left corner. */
gboolean
_braggscope_view_transform (BraggscopeView *self, double *scale, double *origin_x, double *origin_y)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  int frame_width, frame_height;
  double fit;

  if (!_braggscope_view_frame_size (self, &frame_width, &frame_height) || width <= 0 || height <= 0)
    return FALSE;

  fit = MIN ((double) width / frame_width, (double) height / frame_height);
  *scale = self->zoom * fit;
  *origin_x = self->center_x - 0.5 * width / *scale;
  *origin_y = self->center_y - 0.5 * height / *scale;
  return TRUE;
}

/* ------------------------------------------------------------------------- */
/* Invalidation */

void
_braggscope_view_invalidate (BraggscopeView *self, Changes changes)
{
  if (changes & CHANGED_IMAGE)
    self->image_dirty = TRUE;
  if (changes & CHANGED_DISPLAY)
    self->lut_dirty = TRUE;
  if (changes & (CHANGED_IMAGE | CHANGED_DISPLAY))
    self->frame_indices_dirty = TRUE;
  if (changes & (CHANGED_IMAGE | CHANGED_DISPLAY | CHANGED_VIEW))
    self->screen_dirty = TRUE;

  if (self->use_gl && self->gl_area != NULL && (changes & ~CHANGED_OVERLAY))
    gtk_gl_area_queue_render (GTK_GL_AREA (self->gl_area));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* ------------------------------------------------------------------------- */
/* GtkWidget */

static void
braggscope_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  if (width <= 0 || height <= 0)
    return;

  if (self->use_gl && self->gl_area != NULL)
    gtk_widget_snapshot_child (widget, self->gl_area, snapshot);
  else
    _braggscope_view_snapshot_software (self, snapshot, width, height);

  _braggscope_view_snapshot_overlays (self, snapshot, width, height);
}

static void
braggscope_view_measure (GtkWidget *widget,
                         GtkOrientation orientation,
                         int for_size,
                         int *minimum,
                         int *natural,
                         int *minimum_baseline,
                         int *natural_baseline)
{
  *minimum = 64;
  *natural = 512;
}

static void
braggscope_view_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (widget);

  if (self->gl_area != NULL)
    gtk_widget_allocate (self->gl_area, width, height, baseline, NULL);
  self->screen_dirty = TRUE;
}

/* ------------------------------------------------------------------------- */
/* Frames */

static void
set_window (BraggscopeView *self, double low, double high)
{
  gboolean low_changed = self->display.low != low;
  gboolean high_changed = self->display.high != high;

  if (!low_changed && !high_changed)
    return;
  self->display.low = low;
  self->display.high = high;
  _braggscope_view_invalidate (self, CHANGED_DISPLAY);
  if (low_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOW]);
  if (high_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIGH]);
}

static void
apply_auto_contrast (BraggscopeView *self)
{
  BraggscopeDisplay display = self->display;

  if (self->frame == NULL)
    return;
  braggscope_render_auto_window (self->frame, &display);
  set_window (self, display.low, display.high);
}

static void
set_frame (BraggscopeView *self, BraggscopeFrame *frame)
{
  int old_width = 0, old_height = 0, width = 0, height = 0;
  gboolean had_frame = _braggscope_view_frame_size (self, &old_width, &old_height);

  if (frame == self->frame)
    return;

  g_set_object (&self->frame, frame);
  if (_braggscope_view_frame_size (self, &width, &height) &&
      (width != old_width || height != old_height))
    {
      self->center_x = 0.5 * width;
      self->center_y = 0.5 * height;
    }

  /* Previews keep the window of the last full frame, so a drag does not
   * flicker and costs no selection per preview. */
  if (self->auto_contrast && self->frame != NULL &&
      (!braggscope_frame_get_is_preview (self->frame) || !had_frame || width != old_width ||
       height != old_height))
    apply_auto_contrast (self);

  _braggscope_view_invalidate (self, CHANGED_IMAGE | CHANGED_VIEW);
  update_readout (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRAME]);
}

static void
on_frame_ready (BraggscopeSimulation *simulation, BraggscopeFrame *frame, BraggscopeView *self)
{
  set_frame (self, frame);
}

/* ------------------------------------------------------------------------- */
/* Readout */

static void
update_readout (BraggscopeView *self)
{
  gboolean inside = FALSE;
  int width, height;
  double x, y;

  if (self->pointer_inside && _braggscope_view_frame_size (self, &width, &height) &&
      braggscope_view_widget_to_frame (self, self->pointer_x, self->pointer_y, &x, &y) &&
      x >= 0.0 && y >= 0.0 && x < width && y < height)
    {
      BraggscopeGeometry *geometry = braggscope_frame_get_geometry (self->frame);
      const float *data = braggscope_frame_get_data (self->frame, NULL);
      BraggscopePixelInfo info;

      if (geometry != NULL && braggscope_geometry_query (geometry, x, y, &info, NULL))
        {
          inside = TRUE;
          self->readout_x = x;
          self->readout_y = y;
          self->readout_pixel_x = MIN ((int) floor (x), width - 1);
          self->readout_pixel_y = MIN ((int) floor (y), height - 1);
          self->readout_value = data[(gsize) self->readout_pixel_y * width + self->readout_pixel_x];
          self->readout_info = info;
        }
    }

  if (!inside && !self->readout_inside)
    return;
  self->readout_inside = inside;
  g_signal_emit (self, signals[SIGNAL_READOUT_CHANGED], 0, inside);
}

static void
on_motion (GtkEventControllerMotion *controller, double x, double y, BraggscopeView *self)
{
  braggscope_view_set_readout_point (self, x, y);
}

static void
on_leave (GtkEventControllerMotion *controller, BraggscopeView *self)
{
  braggscope_view_clear_readout (self);
}

/* ------------------------------------------------------------------------- */
/* Zoom and pan */

static void
clamp_center (BraggscopeView *self)
{
  int width, height;

  if (!_braggscope_view_frame_size (self, &width, &height))
    return;
  self->center_x = CLAMP (self->center_x, 0.0, (double) width);
  self->center_y = CLAMP (self->center_y, 0.0, (double) height);
}

/* Zooms by @factor keeping the frame point under (x, y) where it is. */
static void
zoom_about (BraggscopeView *self, double factor, double x, double y)
{
  double before_x, before_y, after_x, after_y;
  double zoom = CLAMP (self->zoom * factor, MIN_ZOOM, MAX_ZOOM);
  gboolean anchored;

  if (zoom == self->zoom)
    return;
  anchored = braggscope_view_widget_to_frame (self, x, y, &before_x, &before_y);
  self->zoom = zoom;
  if (anchored && braggscope_view_widget_to_frame (self, x, y, &after_x, &after_y))
    {
      self->center_x += before_x - after_x;
      self->center_y += before_y - after_y;
      clamp_center (self);
    }
  _braggscope_view_invalidate (self, CHANGED_VIEW);
  update_readout (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

static gboolean
on_scroll (GtkEventControllerScroll *controller, double dx, double dy, BraggscopeView *self)
{
  double x =
      self->pointer_inside ? self->pointer_x : 0.5 * gtk_widget_get_width (GTK_WIDGET (self));
  double y =
      self->pointer_inside ? self->pointer_y : 0.5 * gtk_widget_get_height (GTK_WIDGET (self));

  zoom_about (self, pow (ZOOM_STEP, -dy), x, y);
  return TRUE;
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, BraggscopeView *self)
{
  self->drag_center_x = self->center_x;
  self->drag_center_y = self->center_y;
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, BraggscopeView *self)
{
  double scale, origin_x, origin_y;

  if (!_braggscope_view_transform (self, &scale, &origin_x, &origin_y))
    return;
  self->center_x = self->drag_center_x - dx / scale;
  self->center_y = self->drag_center_y - dy / scale;
  clamp_center (self);
  _braggscope_view_invalidate (self, CHANGED_VIEW);
  update_readout (self);
}

static void
on_pressed (GtkGestureClick *gesture, int n_press, double x, double y, BraggscopeView *self)
{
  if (n_press == 2)
    braggscope_view_fit (self);
}

/* ------------------------------------------------------------------------- */
/* GObject */

static void
braggscope_view_constructed (GObject *object)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (object);

  G_OBJECT_CLASS (braggscope_view_parent_class)->constructed (object);

  if (g_strcmp0 (g_getenv ("BRAGGSCOPE_RENDERER"), "software") == 0)
    self->force_software = TRUE;
  if (!self->force_software)
    {
      self->gl_area = _braggscope_view_gl_area_new (self);
      gtk_widget_set_parent (self->gl_area, GTK_WIDGET (self));
      self->use_gl = TRUE;
    }
}

static void
braggscope_view_dispose (GObject *object)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (object);

  braggscope_view_set_simulation (self, NULL);
  g_clear_pointer (&self->gl_area, gtk_widget_unparent);
  g_clear_object (&self->frame);
  g_clear_object (&self->screen_texture);
  g_clear_pointer (&self->overlay_source, braggscope_geometry_unref);
  g_clear_pointer (&self->marker_label, g_free);
  g_clear_pointer (&self->ring_resolutions, g_free);
  g_clear_pointer (&self->labels, g_array_unref);
  g_clear_pointer (&self->labels_placed, g_array_unref);
  g_clear_object (&self->labels_frame);

  G_OBJECT_CLASS (braggscope_view_parent_class)->dispose (object);
}

static void
braggscope_view_finalize (GObject *object)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (object);

  g_free (self->frame_indices);

  G_OBJECT_CLASS (braggscope_view_parent_class)->finalize (object);
}

static void
braggscope_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (object);

  switch (prop_id)
    {
      case PROP_SIMULATION:
        g_value_set_object (value, self->simulation);
        break;
      case PROP_FRAME:
        g_value_set_object (value, self->frame);
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
      case PROP_ZOOM:
        g_value_set_double (value, self->zoom);
        break;
      case PROP_RENDERER:
        g_value_set_string (value, braggscope_view_get_renderer (self));
        break;
      case PROP_FORCE_SOFTWARE:
        g_value_set_boolean (value, self->force_software);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
braggscope_view_set_property (GObject *object,
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
      case PROP_ZOOM:
        braggscope_view_set_zoom (self, g_value_get_double (value));
        break;
      case PROP_FORCE_SOFTWARE:
        self->force_software = g_value_get_boolean (value);
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
  properties[PROP_SHOW_LABELS] = g_param_spec_boolean (
      "show-labels", "Miller indices", "Label the brightest spots with h k l", FALSE, rw);

  /**
   * BraggscopeView:label-count:
   *
   * How many of the brightest predicted reflections to label (a count).
   *
   * Since: 0.1
   */
  properties[PROP_LABEL_COUNT] = g_param_spec_uint (
      "label-count", "Labels", "How many spots to label with h k l", 1, 500, 20, rw);

  /**
   * BraggscopeView:ring-resolutions:
   *
   * Resolutions d of the rings, in Å, as numbers separated by blanks or
   * commas ("3 2.5 2"; at most six), so that rings stay at those d when the
   * wavelength or the distance changes; %NULL or empty for rings chosen
   * from the detector's range of 2θ.
   *
   * Since: 0.1
   */
  properties[PROP_RING_RESOLUTIONS] = g_param_spec_string (
      "ring-resolutions", "Ring resolutions", "Resolutions of the rings (Å)", NULL, rw);
}

static void
install_properties (GObjectClass *object_class)
{
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  /**
   * BraggscopeView:simulation:
   *
   * The simulation whose frames are shown (its #BraggscopeSimulation::frame-ready).
   */
  properties[PROP_SIMULATION] =
      g_param_spec_object ("simulation", "Simulation", "The simulation whose frames are shown",
                           BRAGGSCOPE_TYPE_SIMULATION, rw);

  /**
   * BraggscopeView:frame:
   *
   * The frame shown (the simulation's newest).
   */
  properties[PROP_FRAME] =
      g_param_spec_object ("frame", "Frame", "The frame shown", BRAGGSCOPE_TYPE_FRAME,
                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * BraggscopeView:colormap:
   *
   * The colour table.
   */
  properties[PROP_COLORMAP] =
      g_param_spec_enum ("colormap", "Colormap", "The colour table", BRAGGSCOPE_TYPE_COLORMAP,
                         BRAGGSCOPE_COLORMAP_INVERTED_GREY, rw);

  /**
   * BraggscopeView:scale:
   *
   * The intensity scale (linear, log or gamma).
   */
  properties[PROP_SCALE] =
      g_param_spec_enum ("scale", "Scale", "The intensity scale (linear, log, gamma)",
                         BRAGGSCOPE_TYPE_SCALE, BRAGGSCOPE_SCALE_LINEAR, rw);

  /**
   * BraggscopeView:gamma:
   *
   * The exponent of the gamma scale: t^(1/gamma).
   */
  properties[PROP_GAMMA] = g_param_spec_double (
      "gamma", "Gamma", "Exponent of the gamma scale, t^(1/gamma)", 0.05, 20.0, 1.0, rw);

  /**
   * BraggscopeView:auto-contrast:
   *
   * Whether the window (#BraggscopeView:low, #BraggscopeView:high) follows
   * each full frame: its 1st and 99.5th percentiles.  Setting low or high
   * turns it off.
   */
  properties[PROP_AUTO_CONTRAST] = g_param_spec_boolean (
      "auto-contrast", "Auto contrast",
      "Set the window to the 1st and 99.5th percentiles of each full frame", TRUE, rw);

  /**
   * BraggscopeView:low:
   *
   * The intensity (photons/pixel) shown as the first colour.
   */
  properties[PROP_LOW] =
      g_param_spec_double ("low", "Low", "Intensity shown as the first colour (photons/pixel)",
                           -G_MAXDOUBLE, G_MAXDOUBLE, 0.0, rw);

  /**
   * BraggscopeView:high:
   *
   * The intensity (photons/pixel) shown as the last colour.
   */
  properties[PROP_HIGH] =
      g_param_spec_double ("high", "High", "Intensity shown as the last colour (photons/pixel)",
                           -G_MAXDOUBLE, G_MAXDOUBLE, 100.0, rw);

  /**
   * BraggscopeView:show-rings:
   *
   * Whether resolution rings (labelled with d in Angstrom) are drawn.
   */
  properties[PROP_SHOW_RINGS] = g_param_spec_boolean (
      "show-rings", "Show rings", "Draw resolution rings labelled with d (Angstrom)", TRUE, rw);

  /**
   * BraggscopeView:show-beam-center:
   *
   * Whether a cross marks where the direct beam meets the detector.
   */
  properties[PROP_SHOW_BEAM_CENTER] =
      g_param_spec_boolean ("show-beam-center", "Show beam centre",
                            "Mark where the direct beam meets the detector", TRUE, rw);

  /**
   * BraggscopeView:zoom:
   *
   * Magnification relative to the whole frame fitting the widget (1).
   */
  properties[PROP_ZOOM] =
      g_param_spec_double ("zoom", "Zoom", "Magnification; 1 fits the whole frame in the widget",
                           MIN_ZOOM, MAX_ZOOM, 1.0, rw);

  /**
   * BraggscopeView:renderer:
   *
   * "gl" when frames are colour-mapped by the OpenGL shader, "software" when
   * on the CPU.
   */
  properties[PROP_RENDERER] =
      g_param_spec_string ("renderer", "Renderer", "\"gl\" or \"software\"", "gl",
                           G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * BraggscopeView:force-software:
   *
   * Colour-map on the CPU even where OpenGL works.
   */
  properties[PROP_FORCE_SOFTWARE] = g_param_spec_boolean (
      "force-software", "Force software", "Colour-map on the CPU even where OpenGL works", FALSE,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  install_mark_properties (rw);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
braggscope_view_class_init (BraggscopeViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  _braggscope_gtk_ensure_textdomain ();
  object_class->constructed = braggscope_view_constructed;
  object_class->dispose = braggscope_view_dispose;
  object_class->finalize = braggscope_view_finalize;
  object_class->get_property = braggscope_view_get_property;
  object_class->set_property = braggscope_view_set_property;

  widget_class->snapshot = braggscope_view_snapshot;
  widget_class->measure = braggscope_view_measure;
  widget_class->size_allocate = braggscope_view_size_allocate;

  install_properties (object_class);

  /**
   * BraggscopeView::readout-changed:
   * @self: the view
   * @inside: whether the point is on the frame (then
   *   braggscope_view_get_readout() has its values)
   *
   * The readout point moved, left the frame, or the frame under it changed.
   */
  signals[SIGNAL_READOUT_CHANGED] =
      g_signal_new ("readout-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                    NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);

  gtk_widget_class_set_css_name (widget_class, "braggscope-view");
}

static void
braggscope_view_init (BraggscopeView *self)
{
  GtkEventController *motion, *scroll;
  GtkGesture *drag, *click;

  braggscope_display_init (&self->display);
  self->auto_contrast = TRUE;
  self->show_rings = TRUE;
  self->show_beam_center = TRUE;
  self->label_count = 20;
  self->zoom = 1.0;
  self->frame_indices_dirty = TRUE;
  self->screen_dirty = TRUE;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);

  motion = gtk_event_controller_motion_new ();
  g_signal_connect (motion, "enter", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);

  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);

  drag = gtk_gesture_drag_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (drag), GDK_BUTTON_PRIMARY);
  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));

  click = gtk_gesture_click_new ();
  g_signal_connect (click, "pressed", G_CALLBACK (on_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
}

/* ------------------------------------------------------------------------- */
/* Public API */

/**
 * braggscope_view_new:
 * @simulation: (nullable): the simulation to show
 *
 * Creates a view of @simulation's frames (it shows the last frame at once, if
 * there is one, and every frame the simulation delivers after).
 *
 * Returns: (transfer floating): a new #BraggscopeView
 */
GtkWidget *
braggscope_view_new (BraggscopeSimulation *simulation)
{
  g_return_val_if_fail (simulation == NULL || BRAGGSCOPE_IS_SIMULATION (simulation), NULL);

  return g_object_new (BRAGGSCOPE_TYPE_VIEW, "simulation", simulation, NULL);
}

/**
 * braggscope_view_get_simulation:
 * @self: a view
 *
 * Returns: (transfer none) (nullable): the simulation shown
 */
BraggscopeSimulation *
braggscope_view_get_simulation (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  return self->simulation;
}

/**
 * braggscope_view_set_simulation:
 * @self: a view
 * @simulation: (nullable): the simulation to show
 *
 * Shows @simulation's frames from now on (its last frame at once).
 */
void
braggscope_view_set_simulation (BraggscopeView *self, BraggscopeSimulation *simulation)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));
  g_return_if_fail (simulation == NULL || BRAGGSCOPE_IS_SIMULATION (simulation));

  if (simulation == self->simulation)
    return;

  if (self->simulation != NULL)
    {
      g_clear_signal_handler (&self->frame_ready_handler, self->simulation);
      g_clear_object (&self->simulation);
    }
  if (simulation != NULL)
    {
      self->simulation = g_object_ref (simulation);
      self->frame_ready_handler = g_signal_connect_object (
          simulation, "frame-ready", G_CALLBACK (on_frame_ready), self, G_CONNECT_DEFAULT);
      if (braggscope_simulation_get_last_frame (simulation) != NULL)
        set_frame (self, braggscope_simulation_get_last_frame (simulation));
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SIMULATION]);
}

/**
 * braggscope_view_get_frame:
 * @self: a view
 *
 * Returns: (transfer none) (nullable): the frame shown
 */
BraggscopeFrame *
braggscope_view_get_frame (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  return self->frame;
}

/**
 * braggscope_view_get_colormap:
 * @self: a view
 *
 * Returns: the colour table
 */
BraggscopeColormap
braggscope_view_get_colormap (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), BRAGGSCOPE_COLORMAP_GREY);

  return self->display.colormap;
}

/**
 * braggscope_view_set_colormap:
 * @self: a view
 * @colormap: the colour table
 *
 * Sets the colour table (no re-simulation).
 */
void
braggscope_view_set_colormap (BraggscopeView *self, BraggscopeColormap colormap)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (self->display.colormap == colormap)
    return;
  self->display.colormap = colormap;
  _braggscope_view_invalidate (self, CHANGED_DISPLAY);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COLORMAP]);
}

/**
 * braggscope_view_get_scale:
 * @self: a view
 *
 * Returns: the intensity scale
 */
BraggscopeScale
braggscope_view_get_scale (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), BRAGGSCOPE_SCALE_LINEAR);

  return self->display.scale;
}

/**
 * braggscope_view_set_scale:
 * @self: a view
 * @scale: the intensity scale
 *
 * Sets the intensity scale (no re-simulation).
 */
void
braggscope_view_set_scale (BraggscopeView *self, BraggscopeScale scale)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (self->display.scale == scale)
    return;
  self->display.scale = scale;
  _braggscope_view_invalidate (self, CHANGED_DISPLAY);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SCALE]);
}

/**
 * braggscope_view_get_gamma:
 * @self: a view
 *
 * Returns: the exponent of the gamma scale
 */
double
braggscope_view_get_gamma (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), 1.0);

  return self->display.gamma;
}

/**
 * braggscope_view_set_gamma:
 * @self: a view
 * @gamma: the exponent of the gamma scale, 0.05..20
 *
 * Sets gamma: the gamma scale shows t^(1/gamma).
 */
void
braggscope_view_set_gamma (BraggscopeView *self, double gamma)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  gamma = CLAMP (gamma, 0.05, 20.0);
  if (self->display.gamma == gamma)
    return;
  self->display.gamma = gamma;
  _braggscope_view_invalidate (self, CHANGED_DISPLAY);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_GAMMA]);
}

/**
 * braggscope_view_get_auto_contrast:
 * @self: a view
 *
 * Returns: whether the window follows each full frame
 */
gboolean
braggscope_view_get_auto_contrast (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  return self->auto_contrast;
}

/**
 * braggscope_view_set_auto_contrast:
 * @self: a view
 * @auto_contrast: whether the window follows each full frame
 *
 * With @auto_contrast the window is set at once from the frame shown, then
 * from each full frame (previews keep it).
 */
void
braggscope_view_set_auto_contrast (BraggscopeView *self, gboolean auto_contrast)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  auto_contrast = !!auto_contrast;
  if (self->auto_contrast == auto_contrast)
    return;
  self->auto_contrast = auto_contrast;
  if (auto_contrast)
    apply_auto_contrast (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUTO_CONTRAST]);
}

/**
 * braggscope_view_get_low:
 * @self: a view
 *
 * Returns: the intensity (photons/pixel) shown as the first colour
 */
double
braggscope_view_get_low (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), 0.0);

  return self->display.low;
}

/**
 * braggscope_view_set_low:
 * @self: a view
 * @low: intensity (photons/pixel) shown as the first colour
 *
 * Sets the bottom of the window; turns #BraggscopeView:auto-contrast off.
 */
void
braggscope_view_set_low (BraggscopeView *self, double low)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  braggscope_view_set_auto_contrast (self, FALSE);
  set_window (self, low, self->display.high);
}

/**
 * braggscope_view_get_high:
 * @self: a view
 *
 * Returns: the intensity (photons/pixel) shown as the last colour
 */
double
braggscope_view_get_high (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), 0.0);

  return self->display.high;
}

/**
 * braggscope_view_set_high:
 * @self: a view
 * @high: intensity (photons/pixel) shown as the last colour
 *
 * Sets the top of the window; turns #BraggscopeView:auto-contrast off.
 */
void
braggscope_view_set_high (BraggscopeView *self, double high)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  braggscope_view_set_auto_contrast (self, FALSE);
  set_window (self, self->display.low, high);
}

/**
 * braggscope_view_get_display:
 * @self: a view
 * @display: (out caller-allocates): the colormap, scale, gamma and window in use
 *
 * What braggscope_colormap_apply() needs to colour a frame as the view does.
 */
void
braggscope_view_get_display (BraggscopeView *self, BraggscopeDisplay *display)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));
  g_return_if_fail (display != NULL);

  *display = self->display;
}

/**
 * braggscope_view_get_show_rings:
 * @self: a view
 *
 * Returns: whether resolution rings are drawn
 */
gboolean
braggscope_view_get_show_rings (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  return self->show_rings;
}

/**
 * braggscope_view_set_show_rings:
 * @self: a view
 * @show_rings: whether to draw resolution rings
 *
 * Shows or hides the resolution rings.
 */
void
braggscope_view_set_show_rings (BraggscopeView *self, gboolean show_rings)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  show_rings = !!show_rings;
  if (self->show_rings == show_rings)
    return;
  self->show_rings = show_rings;
  _braggscope_view_invalidate (self, CHANGED_OVERLAY);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_RINGS]);
}

/**
 * braggscope_view_get_show_beam_center:
 * @self: a view
 *
 * Returns: whether the beam centre is marked
 */
gboolean
braggscope_view_get_show_beam_center (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  return self->show_beam_center;
}

/**
 * braggscope_view_set_show_beam_center:
 * @self: a view
 * @show_beam_center: whether to mark the beam centre
 *
 * Shows or hides the beam centre cross.
 */
void
braggscope_view_set_show_beam_center (BraggscopeView *self, gboolean show_beam_center)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  show_beam_center = !!show_beam_center;
  if (self->show_beam_center == show_beam_center)
    return;
  self->show_beam_center = show_beam_center;
  _braggscope_view_invalidate (self, CHANGED_OVERLAY);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOW_BEAM_CENTER]);
}

/**
 * braggscope_view_get_zoom:
 * @self: a view
 *
 * Returns: the magnification; 1 fits the whole frame
 */
double
braggscope_view_get_zoom (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), 1.0);

  return self->zoom;
}

/**
 * braggscope_view_set_zoom:
 * @self: a view
 * @zoom: magnification, 0.25..256; 1 fits the whole frame in the widget
 *
 * Zooms about the centre of the widget.
 */
void
braggscope_view_set_zoom (BraggscopeView *self, double zoom)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  zoom = CLAMP (zoom, MIN_ZOOM, MAX_ZOOM);
  if (zoom == self->zoom)
    return;
  self->zoom = zoom;
  _braggscope_view_invalidate (self, CHANGED_VIEW);
  update_readout (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
}

/**
 * braggscope_view_get_center:
 * @self: a view
 * @x: (out) (optional): frame x (fast axis, pixels) at the widget's centre
 * @y: (out) (optional): frame y (slow axis, pixels) at the widget's centre
 *
 * The frame point shown at the centre of the widget.
 */
void
braggscope_view_get_center (BraggscopeView *self, double *x, double *y)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (x != NULL)
    *x = self->center_x;
  if (y != NULL)
    *y = self->center_y;
}

/**
 * braggscope_view_set_center:
 * @self: a view
 * @x: frame x (fast axis, pixels), clamped to the frame
 * @y: frame y (slow axis, pixels), clamped to the frame
 *
 * Pans so that the frame point (@x, @y) is at the centre of the widget.
 */
void
braggscope_view_set_center (BraggscopeView *self, double x, double y)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));
  g_return_if_fail (isfinite (x) && isfinite (y));

  self->center_x = x;
  self->center_y = y;
  clamp_center (self);
  _braggscope_view_invalidate (self, CHANGED_VIEW);
  update_readout (self);
}

/**
 * braggscope_view_fit:
 * @self: a view
 *
 * Zoom 1, frame centred: the whole frame fits the widget.
 */
void
braggscope_view_fit (BraggscopeView *self)
{
  int width, height;

  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (_braggscope_view_frame_size (self, &width, &height))
    braggscope_view_set_center (self, 0.5 * width, 0.5 * height);
  braggscope_view_set_zoom (self, 1.0);
}

/**
 * braggscope_view_widget_to_frame:
 * @self: a view
 * @x: widget x (logical pixels)
 * @y: widget y (logical pixels)
 * @frame_x: (out) (optional): frame x (fast axis; pixel i spans [i, i + 1))
 * @frame_y: (out) (optional): frame y (slow axis)
 *
 * Where a widget point falls on the frame (possibly outside it).
 *
 * Returns: %FALSE when there is no frame or the widget has no size
 */
gboolean
braggscope_view_widget_to_frame (
    BraggscopeView *self, double x, double y, double *frame_x, double *frame_y)
{
  double scale, origin_x, origin_y;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  if (!_braggscope_view_transform (self, &scale, &origin_x, &origin_y))
    return FALSE;
  if (frame_x != NULL)
    *frame_x = origin_x + x / scale;
  if (frame_y != NULL)
    *frame_y = origin_y + y / scale;
  return TRUE;
}

/**
 * braggscope_view_frame_to_widget:
 * @self: a view
 * @frame_x: frame x (fast axis, pixels)
 * @frame_y: frame y (slow axis, pixels)
 * @x: (out) (optional): widget x (logical pixels)
 * @y: (out) (optional): widget y (logical pixels)
 *
 * Where a frame point is drawn in the widget.
 *
 * Returns: %FALSE when there is no frame or the widget has no size
 */
gboolean
braggscope_view_frame_to_widget (
    BraggscopeView *self, double frame_x, double frame_y, double *x, double *y)
{
  double scale, origin_x, origin_y;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  if (!_braggscope_view_transform (self, &scale, &origin_x, &origin_y))
    return FALSE;
  if (x != NULL)
    *x = (frame_x - origin_x) * scale;
  if (y != NULL)
    *y = (frame_y - origin_y) * scale;
  return TRUE;
}

/**
 * braggscope_view_get_renderer:
 * @self: a view
 *
 * Returns: "gl" when frames are colour-mapped by the OpenGL shader (or will
 *   be, once the widget is realized), "software" when on the CPU
 */
const char *
braggscope_view_get_renderer (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  return self->use_gl ? "gl" : "software";
}

/**
 * braggscope_view_get_force_software:
 * @self: a view
 *
 * Returns: whether the view was made to colour-map on the CPU
 */
gboolean
braggscope_view_get_force_software (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  return self->force_software;
}

/**
 * braggscope_view_get_beam_center:
 * @self: a view
 * @x: (out) (optional): frame x (fast axis, pixels) of the direct beam
 * @y: (out) (optional): frame y (slow axis, pixels) of the direct beam
 *
 * Where the direct beam meets the detector plane of the frame shown (found
 * from the frame's geometry; may lie outside the frame).
 *
 * Returns: %FALSE without a frame, for a detector the beam does not meet in
 *   front of the sample, or one that is not flat
 */
gboolean
braggscope_view_get_beam_center (BraggscopeView *self, double *x, double *y)
{
  const BraggscopeOverlayGeometry *geom;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  geom = _braggscope_view_ensure_overlay (self);
  if (geom == NULL || !geom->has_beam_center)
    return FALSE;
  if (x != NULL)
    *x = geom->beam_x;
  if (y != NULL)
    *y = geom->beam_y;
  return TRUE;
}

/**
 * braggscope_view_set_readout_point:
 * @self: a view
 * @x: widget x (logical pixels)
 * @y: widget y (logical pixels)
 *
 * Moves the readout to a widget point, as the pointer does; emits
 * #BraggscopeView::readout-changed.  The readout follows new frames, zoom and
 * pan until braggscope_view_clear_readout().
 */
void
braggscope_view_set_readout_point (BraggscopeView *self, double x, double y)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  self->pointer_inside = TRUE;
  self->pointer_x = x;
  self->pointer_y = y;
  update_readout (self);
}

/**
 * braggscope_view_clear_readout:
 * @self: a view
 *
 * No readout point (as when the pointer leaves the widget).
 */
void
braggscope_view_clear_readout (BraggscopeView *self)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  self->pointer_inside = FALSE;
  update_readout (self);
}

/**
 * braggscope_view_get_readout:
 * @self: a view
 * @frame_x: (out) (optional): frame x of the readout point (fast axis, pixels)
 * @frame_y: (out) (optional): frame y (slow axis, pixels)
 * @pixel_x: (out) (optional): the pixel's column, floor (frame_x)
 * @pixel_y: (out) (optional): the pixel's row
 * @value: (out) (optional): the pixel's intensity, photons
 * @info: (out caller-allocates) (optional): what the detector sees at the
 *   point (braggscope_geometry_query() of the frame's geometry)
 *
 * The readout under the pointer (or the point given to
 * braggscope_view_set_readout_point()).
 *
 * Returns: %FALSE when the point is not on the frame (the outputs are then
 *   not set)
 */
gboolean
braggscope_view_get_readout (BraggscopeView *self,
                             double *frame_x,
                             double *frame_y,
                             int *pixel_x,
                             int *pixel_y,
                             float *value,
                             BraggscopePixelInfo *info)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), FALSE);

  if (!self->readout_inside)
    return FALSE;
  if (frame_x != NULL)
    *frame_x = self->readout_x;
  if (frame_y != NULL)
    *frame_y = self->readout_y;
  if (pixel_x != NULL)
    *pixel_x = self->readout_pixel_x;
  if (pixel_y != NULL)
    *pixel_y = self->readout_pixel_y;
  if (value != NULL)
    *value = self->readout_value;
  if (info != NULL)
    *info = self->readout_info;
  return TRUE;
}

/**
 * braggscope_view_format_readout:
 * @self: a view
 *
 * The readout as one line for a status bar: pixel, value, d, 2 theta and the
 * Miller indices, or %NULL when the point is not on the frame.
 *
 * Returns: (transfer full) (nullable): the text
 */
char *
braggscope_view_format_readout (BraggscopeView *self)
{
  const BraggscopePixelInfo *info = &self->readout_info;
  g_autofree char *d = NULL;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  if (!self->readout_inside)
    return NULL;
  d = isfinite (info->d_spacing) ? g_strdup_printf ("%.3f \u00c5", info->d_spacing)
                                 : g_strdup ("\u221e");
  /* Translators: the readout under the pointer: pixel x, y, its intensity,
   * the resolution d (a number and Å, or ∞), the scattering angle 2θ, the
   * fractional Miller indices h k l and the nearest whole ones */
  return g_strdup_printf (_ ("pixel %d, %d   I %.4g photons   d %s   2\u03b8 %.3f\u00b0   "
                             "hkl %.2f %.2f %.2f (%d %d %d)"),
                          self->readout_pixel_x, self->readout_pixel_y, self->readout_value, d,
                          info->two_theta, info->h, info->k, info->l, info->nearest_h,
                          info->nearest_k, info->nearest_l);
}

/**
 * braggscope_view_snapshot_texture:
 * @self: a realized view
 *
 * What the widget shows now (its size, zoom, pan and overlays), rendered by
 * the window's renderer; on the OpenGL path this reads back the shader's
 * output.
 *
 * Returns: (transfer full) (nullable): the texture, or %NULL when the view is
 *   not realized or has no size
 */
GdkTexture *
braggscope_view_snapshot_texture (BraggscopeView *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  int height = gtk_widget_get_height (GTK_WIDGET (self));
  g_autoptr (GskRenderNode) node = NULL;
  GtkSnapshot *snapshot;
  GtkNative *native;
  GskRenderer *renderer;

  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  native = gtk_widget_get_native (GTK_WIDGET (self));
  if (!gtk_widget_get_realized (GTK_WIDGET (self)) || native == NULL || width <= 0 || height <= 0)
    return NULL;
  renderer = gtk_native_get_renderer (native);
  if (renderer == NULL)
    return NULL;

  /* The widget's own drawing, as in a frame (the GL area renders in it). */
  snapshot = gtk_snapshot_new ();
  braggscope_view_snapshot (GTK_WIDGET (self), snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return NULL;
  return gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
}
