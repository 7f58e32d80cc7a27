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
 * A widget showing the newest frame of a [class@Braggscope.Simulation],
 * with zoom, pan, a readout of what the detector sees under the pointer,
 * and resolution rings and the beam centre drawn over the frame.
 *
 * The frame's photons per pixel are uploaded once as a float texture and
 * colour-mapped in a fragment shader, so changes of the colour table, scale
 * or window ([property@BraggscopeGtk.View:colormap],
 * [property@BraggscopeGtk.View:scale], [property@BraggscopeGtk.View:low],
 * [property@BraggscopeGtk.View:high]) recolour without simulating again.
 * Where OpenGL is not available, where it is a software rasterizer (Mesa's
 * llvmpipe: the CPU path is faster than the shader run on the CPU), or when
 * [property@BraggscopeGtk.View:force-software] is set or the environment
 * variable `BRAGGSCOPE_RENDERER` is `software`, the same mapping
 * ([func@Braggscope.Colormap.apply]) runs on the CPU and is drawn as a
 * texture; `BRAGGSCOPE_RENDERER=gl` uses the shader even on a software
 * rasterizer, and `BRAGGSCOPE_GL=gles` asks for an OpenGL ES context.
 * [property@BraggscopeGtk.View:renderer] says which path draws.  Both paths
 * sample the frame the same way (the frame pixel under each screen pixel's
 * centre when zoomed in; the brightest of the frame pixels a screen pixel
 * covers when zoomed out, so that spots never drop out), so they show the
 * same pixels.
 *
 * Dragging pans, the scroll wheel zooms about the pointer (a factor of 1.2
 * per step), a double click fits the frame to the widget.  Moving the
 * pointer moves the readout (pixel, intensity, resolution, 2θ, Miller
 * indices) and emits [signal@BraggscopeGtk.View::readout-changed];
 * [class@BraggscopeGtk.Readout] shows it.  The view asks for 512 x 512
 * logical pixels and accepts down to 64; its CSS name is `braggscope-view`.
 *
 * Threads: as every GTK widget, the view is used on the GTK thread only, and
 * its signals are emitted there.  The simulation it shows must belong to
 * that thread's main context (create it on the GTK thread), whose loop
 * delivers its frames.  Frames, which never change, may be handed to other
 * threads.
 *
 * Since: 0.1
 */

G_DEFINE_FINAL_TYPE (BraggscopeView, braggscope_view, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_READOUT_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

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
  double x0, y0, x1, y1, fit;

  if (!_braggscope_view_canvas (self, &x0, &y0, &x1, &y1) || width <= 0 || height <= 0)
    return FALSE;

  fit = MIN (width / (x1 - x0), height / (y1 - y0));
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
  if (changes & (CHANGED_IMAGE | CHANGED_DISPLAY))
    self->compare_dirty = TRUE;
  if (changes & (CHANGED_IMAGE | CHANGED_DISPLAY | CHANGED_VIEW | CHANGED_COMPARE))
    self->screen_dirty = TRUE;

  if (self->use_gl && self->gl_area != NULL && (changes & ~CHANGED_OVERLAY))
    gtk_gl_area_queue_render (GTK_GL_AREA (self->gl_area));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* ------------------------------------------------------------------------- */
/* GtkWidget */

/* What the drawing paths draw now (the composed picture only when @compare). */
static void
get_scene (BraggscopeView *self, gboolean compare, BraggscopeViewScene *scene)
{
  memset (scene, 0, sizeof *scene);
  if (compare && !_braggscope_view_ensure_compare (self, &scene->compare_rgba, &scene->compare_keys,
                                                   &scene->compare_width, &scene->compare_height,
                                                   &scene->compare_x0))
    scene->compare_rgba = NULL;
  scene->has_frame = _braggscope_view_frame_size (self, &scene->frame_width, &scene->frame_height);
  scene->placed =
      _braggscope_view_transform (self, &scene->scale, &scene->origin_x, &scene->origin_y);
}

static gboolean
on_gl_render (GtkGLArea *area, GdkGLContext *context, BraggscopeView *self)
{
  BraggscopeViewScene scene;

  (void) context;
  get_scene (self, FALSE, &scene);
  return _braggscope_view_gl_render (self, area, &scene);
}

/* The GL area gave up: the CPU draws everything again. */
static void
gl_fell_back (BraggscopeView *self)
{
  _braggscope_view_invalidate (self, CHANGED_IMAGE | CHANGED_DISPLAY | CHANGED_VIEW);
}

static void
braggscope_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  BraggscopeView *self = BRAGGSCOPE_VIEW (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);

  if (width <= 0 || height <= 0)
    return;

  /* comparing draws the composed layers on the CPU */
  if (self->use_gl && self->gl_area != NULL &&
      _braggscope_view_compare_layout (self) == BRAGGSCOPE_COMPARE_NONE)
    gtk_widget_snapshot_child (widget, self->gl_area, snapshot);
  else
    {
      BraggscopeViewScene scene;

      get_scene (self, TRUE, &scene);
      _braggscope_view_snapshot_software (self, &scene, snapshot, width, height);
    }

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
    g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_LOW]);
  if (high_changed)
    g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_HIGH]);
}

static void
apply_auto_contrast (BraggscopeView *self)
{
  BraggscopeDisplay display = self->display;
  gsize n = 0;
  const float *data;

  if (self->frame == NULL)
    return;
  /* the frame brings the usual window along; another top costs a pass */
  if (self->contrast_percentile == AUTO_HIGH_PERCENTILE ||
      (data = braggscope_frame_get_data (self->frame, &n)) == NULL)
    braggscope_frame_get_auto_window (self->frame, &display.low, &display.high);
  else
    braggscope_auto_contrast (data, n, AUTO_LOW_PERCENTILE, self->contrast_percentile, &display.low,
                              &display.high);
  set_window (self, display.low, display.high);
}

static void
set_frame (BraggscopeView *self, BraggscopeFrame *frame)
{
  int old_width = 0, old_height = 0, width = 0, height = 0;
  gboolean had_frame = _braggscope_view_frame_size (self, &old_width, &old_height);

  g_autoptr (BraggscopeFrame) shown = NULL;

  if (frame == self->frame || (frame != NULL && frame == self->given_frame))
    return;
  g_set_object (&self->given_frame, frame);
  /* a multi-panel detector is shown as the sample sees it */
  if (frame != NULL && (shown = braggscope_frame_project (frame)) != NULL)
    frame = shown;
  g_set_object (&self->frame, frame);
  _braggscope_view_compare_frame_changed (self);
  if (_braggscope_view_frame_size (self, &width, &height) &&
      (width != old_width || height != old_height))
    {
      double x0, y0, x1, y1;

      _braggscope_view_canvas (self, &x0, &y0, &x1, &y1);
      self->center_x = 0.5 * (x0 + x1);
      self->center_y = 0.5 * (y0 + y1);
    }

  /* Previews keep the window of the last full frame, so a drag does not
   * flicker and costs no selection per preview. */
  if (self->auto_contrast && self->frame != NULL &&
      (!braggscope_frame_get_is_preview (self->frame) || !had_frame || width != old_width ||
       height != old_height))
    apply_auto_contrast (self);

  _braggscope_view_invalidate (self, CHANGED_IMAGE | CHANGED_VIEW);
  _braggscope_view_update_readout (self);
  g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_FRAME]);
}

static void
on_frame_ready (BraggscopeSimulation *simulation, BraggscopeFrame *frame, BraggscopeView *self)
{
  set_frame (self, frame);
}

/* ------------------------------------------------------------------------- */
/* Readout */

void
_braggscope_view_update_readout (BraggscopeView *self)
{
  gboolean inside = FALSE;
  int width = 0, height = 0;
  double x, y;

  self->readout_reference = NAN;
  /* side by side, a point on the reference's panel reads the same pixel of both */
  if (self->pointer_inside && _braggscope_view_frame_size (self, &width, &height) &&
      braggscope_view_widget_to_frame (self, self->pointer_x, self->pointer_y, &x, &y))
    self->readout_reference = _braggscope_view_reference_at (self, &x, y);
  else
    x = y = -1.0;
  if (x >= 0.0 && y >= 0.0 && x < width && y < height)
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
  double x0, y0, x1, y1;

  if (!_braggscope_view_canvas (self, &x0, &y0, &x1, &y1))
    return;
  self->center_x = CLAMP (self->center_x, x0, x1);
  self->center_y = CLAMP (self->center_y, y0, y1);
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
  _braggscope_view_update_readout (self);
  g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_ZOOM]);
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
  _braggscope_view_update_readout (self);
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
      self->gl_area = _braggscope_view_gl_area_new (self, gl_fell_back);
      g_signal_connect (self->gl_area, "render", G_CALLBACK (on_gl_render), self);
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
  g_clear_object (&self->given_frame);
  g_clear_object (&self->screen_texture);
  g_clear_pointer (&self->overlay_source, braggscope_geometry_unref);
  g_clear_pointer (&self->marker_label, g_free);
  g_clear_pointer (&self->ring_resolutions, g_free);
  g_clear_pointer (&self->labels, g_array_unref);
  g_clear_pointer (&self->labels_placed, g_array_unref);
  g_clear_pointer (&self->label_boxes, g_array_unref);
  g_clear_pointer (&self->label_reflections, g_free);
  g_clear_object (&self->labels_frame);
  _braggscope_view_compare_dispose (self);

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
braggscope_view_class_init (BraggscopeViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  _braggscope_gtk_ensure_textdomain ();
  object_class->constructed = braggscope_view_constructed;
  object_class->dispose = braggscope_view_dispose;
  object_class->finalize = braggscope_view_finalize;
  object_class->get_property = _braggscope_view_get_property;
  object_class->set_property = _braggscope_view_set_property;

  widget_class->snapshot = braggscope_view_snapshot;
  widget_class->measure = braggscope_view_measure;
  widget_class->size_allocate = braggscope_view_size_allocate;

  _braggscope_view_install_properties (object_class);

  /**
   * BraggscopeView::readout-changed:
   * @self: the view
   * @inside: whether the readout point is on the frame; then
   *   [method@BraggscopeGtk.View.get_readout] returns its values
   *
   * The readout changed: its point moved (pointer motion,
   * [method@BraggscopeGtk.View.set_readout_point]), left the frame or the
   * widget, or what lies under it changed (a new frame, a zoom, a pan).  Not
   * emitted while the point stays off the frame.  Emitted on the GTK thread.
   *
   * Since: 0.1
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
  self->contrast_percentile = AUTO_HIGH_PERCENTILE;
  self->show_rings = TRUE;
  self->show_beam_center = TRUE;
  self->label_count = 20;
  self->zoom = 1.0;
  self->frame_indices_dirty = TRUE;
  self->screen_dirty = TRUE;
  _braggscope_view_compare_init (self);

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
 * @simulation: (nullable): the simulation whose frames to show, or %NULL to
 *   set one later
 *
 * Creates a view of @simulation's frames: it shows the simulation's last
 * frame at once, if there is one, and every frame the simulation delivers
 * after.  The view takes a reference to @simulation.
 *
 * Returns: (transfer floating): a new [class@BraggscopeGtk.View]
 *
 * Since: 0.1
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
 * The simulation shown, [property@BraggscopeGtk.View:simulation].
 *
 * Returns: (transfer none) (nullable): the simulation, or %NULL
 *
 * Since: 0.1
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
 * @simulation: (nullable): the simulation to show, or %NULL to stop
 *   following one (the frame shown stays)
 *
 * Shows @simulation's frames from now on, its last frame at once.  The view
 * takes a reference to @simulation and drops the one it held to the
 * previous simulation.
 *
 * Since: 0.1
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
  g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_SIMULATION]);
}

/**
 * braggscope_view_get_frame:
 * @self: a view
 *
 * The frame shown, [property@BraggscopeGtk.View:frame] (for a multi-panel
 * detector, drawn as its projection: [method@BraggscopeGtk.View.get_shown_frame]).
 *
 * Returns: (transfer none) (nullable): the frame, held by the view until the
 *   next one (take a reference with [method@GObject.Object.ref] to keep it),
 *   or %NULL before the first
 *
 * Since: 0.1
 */
BraggscopeFrame *
braggscope_view_get_frame (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), NULL);

  return self->given_frame;
}

/**
 * braggscope_view_get_colormap:
 * @self: a view
 *
 * The colour table, [property@BraggscopeGtk.View:colormap].
 *
 * Returns: the colour table
 *
 * Since: 0.1
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
 * Sets [property@BraggscopeGtk.View:colormap]: the frame is recoloured,
 * not simulated again.
 *
 * Since: 0.1
 */
void
braggscope_view_set_colormap (BraggscopeView *self, BraggscopeColormap colormap)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (self->display.colormap == colormap)
    return;
  self->display.colormap = colormap;
  _braggscope_view_invalidate (self, CHANGED_DISPLAY);
  g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_COLORMAP]);
}

/**
 * braggscope_view_get_scale:
 * @self: a view
 *
 * The intensity scale, [property@BraggscopeGtk.View:scale].
 *
 * Returns: the intensity scale
 *
 * Since: 0.1
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
 * Sets [property@BraggscopeGtk.View:scale]: the frame is recoloured, not
 * simulated again.
 *
 * Since: 0.1
 */
void
braggscope_view_set_scale (BraggscopeView *self, BraggscopeScale scale)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (self->display.scale == scale)
    return;
  self->display.scale = scale;
  _braggscope_view_invalidate (self, CHANGED_DISPLAY);
  g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_SCALE]);
}

/**
 * braggscope_view_get_gamma:
 * @self: a view
 *
 * The exponent of the gamma scale, [property@BraggscopeGtk.View:gamma].
 *
 * Returns: the exponent (dimensionless, 0.05 to 20)
 *
 * Since: 0.1
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
 * @gamma: the exponent (dimensionless), clamped to 0.05 to 20
 *
 * Sets [property@BraggscopeGtk.View:gamma]: the gamma scale shows
 * t^(1/gamma) of the position t of an intensity in the window.
 *
 * Since: 0.1
 */
void
braggscope_view_set_gamma (BraggscopeView *self, double gamma)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  /* as the slider: clamped to its range, and NaN, which no slider gives, refused */
  if (isnan (gamma))
    return;
  gamma = CLAMP (gamma, 0.05, 20.0);
  if (self->display.gamma == gamma)
    return;
  self->display.gamma = gamma;
  _braggscope_view_invalidate (self, CHANGED_DISPLAY);
  g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_GAMMA]);
}

/**
 * braggscope_view_get_auto_contrast:
 * @self: a view
 *
 * Whether the window follows the frames,
 * [property@BraggscopeGtk.View:auto-contrast].
 *
 * Returns: %TRUE when each full frame sets the window
 *
 * Since: 0.1
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
 * @auto_contrast: whether the window follows the frames
 *
 * Sets [property@BraggscopeGtk.View:auto-contrast].  Turned on, the window
 * is set at once from the frame shown, then from each full frame (previews
 * keep it); turned off, the window stays where it is.
 *
 * Since: 0.1
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
  g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_AUTO_CONTRAST]);
}

/**
 * braggscope_view_get_contrast_percentile:
 * @self: a view
 *
 * The [property@BraggscopeGtk.View:contrast-percentile].
 *
 * Returns: the percentile of a frame's pixels that automatic contrast
 *   takes as the window's top
 *
 * Since: 0.1
 */
double
braggscope_view_get_contrast_percentile (BraggscopeView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_VIEW (self), AUTO_HIGH_PERCENTILE);

  return self->contrast_percentile;
}

/**
 * braggscope_view_set_contrast_percentile:
 * @self: a view
 * @percentile: the percentile (50 to 100) of a frame's pixels that
 *   automatic contrast takes as the window's top; others are clamped
 *
 * Sets [property@BraggscopeGtk.View:contrast-percentile]; with automatic
 * contrast on, the window is set again at once.
 *
 * Since: 0.1
 */
void
braggscope_view_set_contrast_percentile (BraggscopeView *self, double percentile)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  percentile = isfinite (percentile) ? CLAMP (percentile, 50.0, 100.0) : AUTO_HIGH_PERCENTILE;
  if (self->contrast_percentile == percentile)
    return;
  self->contrast_percentile = percentile;
  if (self->auto_contrast)
    apply_auto_contrast (self);
  g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_CONTRAST_PERCENTILE]);
}

/**
 * braggscope_view_get_low:
 * @self: a view
 *
 * The bottom of the window, [property@BraggscopeGtk.View:low].
 *
 * Returns: the intensity (photons/pixel) shown as the first colour
 *
 * Since: 0.1
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
 * @low: the intensity (photons/pixel) to show as the first colour
 *
 * Sets the bottom of the window, [property@BraggscopeGtk.View:low], and
 * turns [property@BraggscopeGtk.View:auto-contrast] off.  A window whose
 * high is not above its low shows every intensity above low in the last
 * colour.
 *
 * Since: 0.1
 */
void
braggscope_view_set_low (BraggscopeView *self, double low)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (isnan (low))
    return;
  braggscope_view_set_auto_contrast (self, FALSE);
  set_window (self, CLAMP (low, -G_MAXDOUBLE, G_MAXDOUBLE), self->display.high);
}

/**
 * braggscope_view_get_high:
 * @self: a view
 *
 * The top of the window, [property@BraggscopeGtk.View:high].
 *
 * Returns: the intensity (photons/pixel) shown as the last colour
 *
 * Since: 0.1
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
 * @high: the intensity (photons/pixel) to show as the last colour
 *
 * Sets the top of the window, [property@BraggscopeGtk.View:high], and turns
 * [property@BraggscopeGtk.View:auto-contrast] off.
 *
 * Since: 0.1
 */
void
braggscope_view_set_high (BraggscopeView *self, double high)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (isnan (high))
    return;
  braggscope_view_set_auto_contrast (self, FALSE);
  set_window (self, self->display.low, CLAMP (high, -G_MAXDOUBLE, G_MAXDOUBLE));
}

/**
 * braggscope_view_get_display:
 * @self: a view
 * @display: (out caller-allocates): filled with the colour table, scale,
 *   gamma and window in use
 *
 * What [func@Braggscope.Colormap.apply] needs to colour a frame as the view
 * does (without the overlays, which
 * [method@BraggscopeGtk.View.render_rgba] adds).
 *
 * Since: 0.1
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
 * Whether resolution rings are drawn,
 * [property@BraggscopeGtk.View:show-rings].
 *
 * Returns: %TRUE when rings are drawn
 *
 * Since: 0.1
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
 * Shows or hides the resolution rings,
 * [property@BraggscopeGtk.View:show-rings].
 *
 * Since: 0.1
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
  g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_SHOW_RINGS]);
}

/**
 * braggscope_view_get_show_beam_center:
 * @self: a view
 *
 * Whether the beam centre is marked,
 * [property@BraggscopeGtk.View:show-beam-center].
 *
 * Returns: %TRUE when the beam centre is marked
 *
 * Since: 0.1
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
 * Shows or hides the beam centre cross,
 * [property@BraggscopeGtk.View:show-beam-center].
 *
 * Since: 0.1
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
  g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_SHOW_BEAM_CENTER]);
}

/**
 * braggscope_view_get_zoom:
 * @self: a view
 *
 * The magnification, [property@BraggscopeGtk.View:zoom].
 *
 * Returns: the magnification factor; 1 fits the whole frame
 *
 * Since: 0.1
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
 * @zoom: the magnification factor, clamped to 0.25 to 256; 1 fits the whole
 *   frame in the widget
 *
 * Zooms about the centre of the widget,
 * [property@BraggscopeGtk.View:zoom].
 *
 * Since: 0.1
 */
void
braggscope_view_set_zoom (BraggscopeView *self, double zoom)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (isnan (zoom))
    return;
  zoom = CLAMP (zoom, MIN_ZOOM, MAX_ZOOM);
  if (zoom == self->zoom)
    return;
  self->zoom = zoom;
  _braggscope_view_invalidate (self, CHANGED_VIEW);
  _braggscope_view_update_readout (self);
  g_object_notify_by_pspec (G_OBJECT (self), _braggscope_view_properties[PROP_ZOOM]);
}

/**
 * braggscope_view_get_center:
 * @self: a view
 * @x: (out) (optional): frame x (fast axis, pixels) at the widget's centre
 * @y: (out) (optional): frame y (slow axis, pixels) at the widget's centre
 *
 * The frame point shown at the centre of the widget.  Frame coordinates run
 * from 0 to the frame's width and height; pixel (i, j) covers [i, i + 1) x
 * [j, j + 1).
 *
 * Since: 0.1
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
 * @x: frame x (fast axis, pixels), a finite number
 * @y: frame y (slow axis, pixels), a finite number
 *
 * Pans so that the frame point (@x, @y) is at the centre of the widget; the
 * point is clamped to the frame when there is one.
 *
 * Since: 0.1
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
  _braggscope_view_update_readout (self);
}

/**
 * braggscope_view_fit:
 * @self: a view
 *
 * Shows the whole frame: zoom 1, the frame centred in the widget (as a
 * double click does).
 *
 * Since: 0.1
 */
void
braggscope_view_fit (BraggscopeView *self)
{
  double x0, y0, x1, y1;

  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  if (_braggscope_view_canvas (self, &x0, &y0, &x1, &y1))
    braggscope_view_set_center (self, 0.5 * (x0 + x1), 0.5 * (y0 + y1));
  braggscope_view_set_zoom (self, 1.0);
}

/**
 * braggscope_view_widget_to_frame:
 * @self: a view
 * @x: widget x (logical pixels from the left edge)
 * @y: widget y (logical pixels from the top edge)
 * @frame_x: (out) (optional): frame x (fast axis, pixels; pixel i spans
 *   [i, i + 1))
 * @frame_y: (out) (optional): frame y (slow axis, pixels)
 *
 * Where a widget point falls on the frame, inside it or not.
 *
 * Returns: %FALSE, leaving the outputs unset, when there is no frame or the
 *   widget has no size yet
 *
 * Since: 0.1
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
 * @x: (out) (optional): widget x (logical pixels from the left edge)
 * @y: (out) (optional): widget y (logical pixels from the top edge)
 *
 * Where a frame point is drawn in the widget, inside its allocation or not.
 *
 * Returns: %FALSE, leaving the outputs unset, when there is no frame or the
 *   widget has no size yet
 *
 * Since: 0.1
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
 * Which path colour-maps the frames,
 * [property@BraggscopeGtk.View:renderer].
 *
 * Returns: (transfer none): `gl` when the OpenGL shader does (or will, once
 *   the widget is realized), `software` when the CPU does; a static string
 *
 * Since: 0.1
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
 * Whether the view was made to colour-map on the CPU,
 * [property@BraggscopeGtk.View:force-software].
 *
 * Returns: %TRUE when the CPU path was asked for
 *
 * Since: 0.1
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
 * Where the direct beam meets the detector plane of the frame shown, found
 * from the frame's geometry; the point may lie outside the frame.
 *
 * Returns: %FALSE, leaving the outputs unset, without a frame, for a curved
 *   detector, or when the beam does not meet the detector plane in front of
 *   the sample
 *
 * Since: 0.1
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
 * Moves the readout to a widget point, as the pointer does (for a host that
 * drives the readout from its own cursor, or a test), and emits
 * [signal@BraggscopeGtk.View::readout-changed] when the point is on the
 * frame or was before.  The point is kept in widget coordinates: the
 * readout follows new frames, zoom and pan until the pointer moves over
 * the widget or [method@BraggscopeGtk.View.clear_readout] is called.
 *
 * Since: 0.1
 */
void
braggscope_view_set_readout_point (BraggscopeView *self, double x, double y)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  self->pointer_inside = TRUE;
  self->pointer_x = x;
  self->pointer_y = y;
  _braggscope_view_update_readout (self);
}

/**
 * braggscope_view_clear_readout:
 * @self: a view
 *
 * Removes the readout point, as when the pointer leaves the widget; emits
 * [signal@BraggscopeGtk.View::readout-changed] with %FALSE when the point
 * was on the frame.
 *
 * Since: 0.1
 */
void
braggscope_view_clear_readout (BraggscopeView *self)
{
  g_return_if_fail (BRAGGSCOPE_IS_VIEW (self));

  self->pointer_inside = FALSE;
  _braggscope_view_update_readout (self);
}

/**
 * braggscope_view_get_readout:
 * @self: a view
 * @frame_x: (out) (optional): frame x of the readout point (fast axis, pixels)
 * @frame_y: (out) (optional): frame y (slow axis, pixels)
 * @pixel_x: (out) (optional): the pixel's column, floor (frame_x)
 * @pixel_y: (out) (optional): the pixel's row, floor (frame_y)
 * @value: (out) (optional): the pixel's intensity, in photons
 * @info: (out caller-allocates) (optional): what the detector sees at the
 *   point: resolution, 2θ, |q|, Miller indices and structure factor
 *   ([method@Braggscope.Geometry.query] of the frame's geometry)
 *
 * The readout at the point under the pointer, or the point given to
 * [method@BraggscopeGtk.View.set_readout_point], as of the last
 * [signal@BraggscopeGtk.View::readout-changed].
 *
 * Returns: %FALSE, leaving the outputs unset, when the point is not on the
 *   frame
 *
 * Since: 0.1
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
 * The readout as one translated line for a status bar: the pixel, its
 * intensity in photons, d in Å, 2θ in degrees, and the fractional and
 * nearest Miller indices.  [class@BraggscopeGtk.Readout] shows more (|q| and
 * the structure factor).
 *
 * Returns: (transfer full) (nullable): the text, freed with
 *   [func@GLib.free], or %NULL when the point is not on the frame
 *
 * Since: 0.1
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
 * the window's renderer into a texture of the widget's size; on the OpenGL
 * path this reads back the shader's output.  For the frame at its own
 * resolution, use [method@BraggscopeGtk.View.render_bytes].
 *
 * Returns: (transfer full) (nullable): the texture, or %NULL when the view
 *   is not realized or has no size
 *
 * Since: 0.1
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
