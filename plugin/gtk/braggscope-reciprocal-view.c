/* braggscope-reciprocal-view.c: BraggscopeReciprocalView, the Ewald
 * construction of a simulation's frames (braggscope-reciprocal-scene.c
 * builds and draws it), turned with the mouse or the keyboard and linked with
 * a BraggscopeView both ways.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-reciprocal-view.h"
#include "braggscope-gtk-i18n-private.h"
#include "braggscope-reciprocal-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

/**
 * BraggscopeReciprocalView:
 *
 * The reciprocal space of a [class@Braggscope.Simulation]'s frames: the
 * Ewald sphere of the wavelength (and the spread of spheres the dispersion
 * and divergence make), the reciprocal-lattice points of the crystal in its
 * orientation within a resolution limit (those in diffracting position
 * highlighted, sized by |F|² and shaded by their distance from the sphere,
 * the lattice transform), the beam, the rotation axis, and the mosaic spread
 * as each point's angular smear.
 *
 * It follows the simulation's frames as they arrive (previews while a slider
 * moves, then the full frame): the scene comes from each frame's parameters
 * ([method@Braggscope.Frame.get_lattice]), nothing is simulated for it.
 *
 * Drag to turn it, scroll to zoom; the arrow keys turn it, `+` and `-` zoom,
 * `Home` returns to the first view.
 *
 * Its natural size is 480 x 480 pixels (its minimum 120): in a box beside a
 * host's own panels, give it a size request of the host's choosing or put it
 * in a [class@Gtk.Paned], so that its natural height does not squeeze them.
 *
 * Linked with a [class@BraggscopeGtk.View]
 * ([property@BraggscopeGtk.ReciprocalView:detector-view]): the point under
 * the detector view's readout is highlighted with its diffracted ray, and
 * pointing at a lattice point here marks where its ray meets the detector
 * ([method@BraggscopeGtk.View.set_marker]) or says that it misses.
 *
 * Since: 0.1
 */

struct _BraggscopeReciprocalView
{
  GtkWidget parent_instance;

  BraggscopeSimulation *simulation;
  gulong frame_ready_handler;
  BraggscopeFrame *frame;
  BraggscopeView *detector_view;
  gulong readout_handler;

  BraggscopeReciprocalScene *scene; /* of frame, built when first drawn */
  BraggscopeLattice scene_lattice;  /* what scene was built from */
  BraggscopeGeometry *scene_geometry;
  double scene_limit;
  double resolution_limit;

  BraggscopeReciprocalLook look;
  gboolean pointing; /* the highlight follows the pointer here, not the detector view */
  char *message;

  cairo_surface_t *surface; /* the last drawing, device pixels */
  gboolean surface_dirty;
  BraggscopeReciprocalDrawn drawn; /* what it drew, device pixels */
  int drawn_scale;                 /* the device pixels per widget pixel it was drawn at */
  GdkTexture *texture;

  double drag_yaw, drag_pitch;
};

G_DEFINE_FINAL_TYPE (BraggscopeReciprocalView, braggscope_reciprocal_view, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_SIMULATION,
  PROP_FRAME,
  PROP_DETECTOR_VIEW,
  PROP_YAW,
  PROP_PITCH,
  PROP_ZOOM,
  PROP_RESOLUTION_LIMIT,
  PROP_SIZE_BY_STRUCTURE_FACTOR,
  PROP_SCALE_WAVELENGTH,
  PROP_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
redraw (BraggscopeReciprocalView *self)
{
  self->surface_dirty = TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
set_message (BraggscopeReciprocalView *self, const char *message)
{
  if (g_strcmp0 (self->message, message) == 0)
    return;
  g_free (self->message);
  self->message = g_strdup (message);
  self->look.message = self->message;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MESSAGE]);
  redraw (self);
}

/* The scene of the frame shown, rebuilt only when the lattice, the geometry
 * or the limit changed: a preview and its full frame share one. */
static BraggscopeReciprocalScene *
ensure_scene (BraggscopeReciprocalView *self)
{
  BraggscopeLattice lattice;

  if (self->frame == NULL || !braggscope_frame_get_lattice (self->frame, &lattice))
    {
      g_clear_pointer (&self->scene, _braggscope_reciprocal_scene_free);
      return NULL;
    }
  if (self->scene != NULL && memcmp (&lattice, &self->scene_lattice, sizeof lattice) == 0 &&
      braggscope_frame_get_geometry (self->frame) == self->scene_geometry &&
      self->scene_limit == self->resolution_limit)
    return self->scene;

  g_clear_pointer (&self->scene, _braggscope_reciprocal_scene_free);
  self->scene = _braggscope_reciprocal_scene_new (self->frame, self->resolution_limit);
  self->scene_lattice = lattice;
  self->scene_geometry = braggscope_frame_get_geometry (self->frame);
  self->scene_limit = self->resolution_limit;
  return self->scene;
}

/* ------------------------------------------------------------------------- */
/* Linking */

/* Says where lattice point @hkl's ray meets the detector and marks it there. */
static void
describe_point (BraggscopeReciprocalView *self, const int hkl[3])
{
  BraggscopeReciprocalScene *scene = ensure_scene (self);
  BraggscopeGeometry *geometry;
  double dir[3], d = 0.0, x = 0.0, y = 0.0;
  gboolean diffracting = FALSE, hits = FALSE;
  int width = 0, height = 0;
  g_autofree char *label = NULL;
  g_autofree char *text = NULL;

  if (scene == NULL)
    return;
  _braggscope_reciprocal_scene_describe (scene, hkl, dir, &d, &diffracting);
  geometry = _braggscope_reciprocal_scene_get_geometry (scene);
  if (geometry != NULL)
    {
      braggscope_geometry_get_size (geometry, &width, &height);
      hits = braggscope_geometry_direction_to_pixel (geometry, dir[0], dir[1], dir[2], &x, &y) &&
             x >= 0 && y >= 0 && x < width && y < height;
    }
  label = g_strdup_printf ("%d %d %d", hkl[0], hkl[1], hkl[2]);
  if (hits)
    /* Translators: a reciprocal-lattice point (h k l), its resolution, where
     * its diffracted ray meets the detector (pixels), and whether it is in
     * diffracting position now */
    text =
        g_strdup_printf (_ ("%s: d %.3g Å, its ray meets the detector at %.0f, %.0f (%s)"), label,
                         d, x, y, diffracting ? _ ("diffracting") : _ ("not on the sphere"));
  else
    text = g_strdup_printf (_ ("%s: d %.3g Å, its ray misses the detector (%s)"), label, d,
                            diffracting ? _ ("diffracting") : _ ("not on the sphere"));
  set_message (self, text);
  if (self->detector_view != NULL)
    {
      if (hits)
        braggscope_view_set_marker (self->detector_view, x, y, label);
      else
        braggscope_view_clear_marker (self->detector_view);
    }
}

static void
on_readout_changed (BraggscopeView *view, gboolean inside, BraggscopeReciprocalView *self)
{
  BraggscopePixelInfo info;

  if (self->pointing)
    return;
  if (inside && braggscope_view_get_readout (view, NULL, NULL, NULL, NULL, NULL, &info))
    braggscope_reciprocal_view_set_highlight (self, info.nearest_h, info.nearest_k, info.nearest_l);
  else
    braggscope_reciprocal_view_clear_highlight (self);
}

/* ------------------------------------------------------------------------- */
/* Drawing */

/* The view drawn at @width x @height; what it drew into @drawn when not
 * NULL. */
static cairo_surface_t *
render_surface (BraggscopeReciprocalView *self,
                int width,
                int height,
                BraggscopeReciprocalDrawn *drawn)
{
  BraggscopeReciprocalScene *scene = ensure_scene (self);
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);

  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      return NULL;
    }
  if (drawn != NULL)
    memset (drawn, 0, sizeof *drawn);
  if (scene != NULL)
    _braggscope_reciprocal_scene_draw (scene, &self->look, surface, drawn);
  else
    {
      cairo_t *cr = cairo_create (surface);

      cairo_set_source_rgb (cr, 24 / 255.0, 24 / 255.0, 28 / 255.0);
      cairo_paint (cr);
      cairo_destroy (cr);
    }
  return surface;
}

static GdkTexture *
texture_from_surface (cairo_surface_t *surface)
{
  int width = cairo_image_surface_get_width (surface);
  int height = cairo_image_surface_get_height (surface);
  int stride = cairo_image_surface_get_stride (surface);
  g_autoptr (GBytes) bytes = NULL;

  cairo_surface_flush (surface);
  bytes = g_bytes_new (cairo_image_surface_get_data (surface), (gsize) stride * height);
  /* cairo's ARGB32 is GDK_MEMORY_DEFAULT: premultiplied native-endian words */
  return gdk_memory_texture_new (width, height, GDK_MEMORY_DEFAULT, bytes, stride);
}

static void
braggscope_reciprocal_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  BraggscopeReciprocalView *self = BRAGGSCOPE_RECIPROCAL_VIEW (widget);
  int width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  int scale = gtk_widget_get_scale_factor (widget);

  if (width <= 0 || height <= 0)
    return;
  if (self->surface_dirty || self->texture == NULL ||
      gdk_texture_get_width (self->texture) != width * scale ||
      gdk_texture_get_height (self->texture) != height * scale)
    {
      g_clear_pointer (&self->surface, cairo_surface_destroy);
      g_clear_object (&self->texture);
      self->surface = render_surface (self, width * scale, height * scale, &self->drawn);
      self->drawn_scale = scale;
      if (self->surface != NULL)
        self->texture = texture_from_surface (self->surface);
      self->surface_dirty = FALSE;
    }
  if (self->texture != NULL)
    gtk_snapshot_append_texture (snapshot, self->texture,
                                 &GRAPHENE_RECT_INIT (0, 0, width, height));
}

static void
braggscope_reciprocal_view_measure (GtkWidget *widget,
                                    GtkOrientation orientation,
                                    int for_size,
                                    int *minimum,
                                    int *natural,
                                    int *minimum_baseline,
                                    int *natural_baseline)
{
  *minimum = 120;
  *natural = 480;
}

/* ------------------------------------------------------------------------- */
/* Input */

static void
set_angles (BraggscopeReciprocalView *self, double yaw, double pitch)
{
  yaw = remainder (yaw, 360.0);
  pitch = CLAMP (pitch, -90.0, 90.0);
  if (yaw != self->look.yaw)
    {
      self->look.yaw = yaw;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_YAW]);
    }
  if (pitch != self->look.pitch)
    {
      self->look.pitch = pitch;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PITCH]);
    }
  redraw (self);
}

static void
set_zoom (BraggscopeReciprocalView *self, double zoom)
{
  zoom = CLAMP (zoom, RECIPROCAL_MIN_ZOOM, RECIPROCAL_MAX_ZOOM);
  if (zoom == self->look.zoom)
    return;
  self->look.zoom = zoom;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
  redraw (self);
}

static void
on_drag_begin (GtkGestureDrag *gesture, double x, double y, BraggscopeReciprocalView *self)
{
  self->drag_yaw = self->look.yaw;
  self->drag_pitch = self->look.pitch;
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

static void
on_drag_update (GtkGestureDrag *gesture, double dx, double dy, BraggscopeReciprocalView *self)
{
  set_angles (self, self->drag_yaw + 0.4 * dx, self->drag_pitch + 0.4 * dy);
}

static gboolean
on_scroll (GtkEventControllerScroll *controller,
           double dx,
           double dy,
           BraggscopeReciprocalView *self)
{
  set_zoom (self, self->look.zoom * pow (1.15, -dy));
  return TRUE;
}

static void
on_motion (GtkEventControllerMotion *controller, double x, double y, BraggscopeReciprocalView *self)
{
  braggscope_reciprocal_view_point_at (self, x, y);
}

static void
on_leave (GtkEventControllerMotion *controller, BraggscopeReciprocalView *self)
{
  self->pointing = FALSE;
  set_message (self, NULL);
  braggscope_reciprocal_view_clear_highlight (self);
  if (self->detector_view != NULL)
    braggscope_view_clear_marker (self->detector_view);
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller,
                guint keyval,
                guint keycode,
                GdkModifierType state,
                BraggscopeReciprocalView *self)
{
  double step = (state & GDK_SHIFT_MASK) ? 1.0 : 5.0;

  switch (keyval)
    {
      case GDK_KEY_Left:
        set_angles (self, self->look.yaw - step, self->look.pitch);
        return TRUE;
      case GDK_KEY_Right:
        set_angles (self, self->look.yaw + step, self->look.pitch);
        return TRUE;
      case GDK_KEY_Up:
        set_angles (self, self->look.yaw, self->look.pitch - step);
        return TRUE;
      case GDK_KEY_Down:
        set_angles (self, self->look.yaw, self->look.pitch + step);
        return TRUE;
      case GDK_KEY_plus:
      case GDK_KEY_KP_Add:
      case GDK_KEY_equal:
        set_zoom (self, self->look.zoom * 1.2);
        return TRUE;
      case GDK_KEY_minus:
      case GDK_KEY_KP_Subtract:
        set_zoom (self, self->look.zoom / 1.2);
        return TRUE;
      case GDK_KEY_Home:
      case GDK_KEY_KP_Home:
        {
          BraggscopeReciprocalLook first;

          _braggscope_reciprocal_look_init (&first);
          set_angles (self, first.yaw, first.pitch);
          set_zoom (self, first.zoom);
        }
        return TRUE;
      default:
        return FALSE;
    }
}

/* ------------------------------------------------------------------------- */
/* GObject */

static void
on_frame_ready (BraggscopeSimulation *simulation,
                BraggscopeFrame *frame,
                BraggscopeReciprocalView *self)
{
  braggscope_reciprocal_view_set_frame (self, frame);
}

static void
braggscope_reciprocal_view_dispose (GObject *object)
{
  BraggscopeReciprocalView *self = BRAGGSCOPE_RECIPROCAL_VIEW (object);

  braggscope_reciprocal_view_set_simulation (self, NULL);
  braggscope_reciprocal_view_set_detector_view (self, NULL);
  g_clear_object (&self->frame);
  g_clear_pointer (&self->scene, _braggscope_reciprocal_scene_free);
  g_clear_pointer (&self->surface, cairo_surface_destroy);
  g_clear_object (&self->texture);
  g_clear_pointer (&self->message, g_free);
  self->look.message = NULL;

  G_OBJECT_CLASS (braggscope_reciprocal_view_parent_class)->dispose (object);
}

static void
braggscope_reciprocal_view_get_property (GObject *object,
                                         guint prop_id,
                                         GValue *value,
                                         GParamSpec *pspec)
{
  BraggscopeReciprocalView *self = BRAGGSCOPE_RECIPROCAL_VIEW (object);

  switch (prop_id)
    {
      case PROP_SIMULATION:
        g_value_set_object (value, self->simulation);
        break;
      case PROP_FRAME:
        g_value_set_object (value, self->frame);
        break;
      case PROP_DETECTOR_VIEW:
        g_value_set_object (value, self->detector_view);
        break;
      case PROP_YAW:
        g_value_set_double (value, self->look.yaw);
        break;
      case PROP_PITCH:
        g_value_set_double (value, self->look.pitch);
        break;
      case PROP_ZOOM:
        g_value_set_double (value, self->look.zoom);
        break;
      case PROP_RESOLUTION_LIMIT:
        g_value_set_double (value, self->resolution_limit);
        break;
      case PROP_SIZE_BY_STRUCTURE_FACTOR:
        g_value_set_boolean (value, self->look.size_by_structure_factor);
        break;
      case PROP_SCALE_WAVELENGTH:
        g_value_set_double (value, self->look.scale_wavelength);
        break;
      case PROP_MESSAGE:
        g_value_set_string (value, self->message);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
braggscope_reciprocal_view_set_property (GObject *object,
                                         guint prop_id,
                                         const GValue *value,
                                         GParamSpec *pspec)
{
  BraggscopeReciprocalView *self = BRAGGSCOPE_RECIPROCAL_VIEW (object);

  switch (prop_id)
    {
      case PROP_SIMULATION:
        braggscope_reciprocal_view_set_simulation (self, g_value_get_object (value));
        break;
      case PROP_FRAME:
        braggscope_reciprocal_view_set_frame (self, g_value_get_object (value));
        break;
      case PROP_DETECTOR_VIEW:
        braggscope_reciprocal_view_set_detector_view (self, g_value_get_object (value));
        break;
      case PROP_YAW:
        set_angles (self, g_value_get_double (value), self->look.pitch);
        break;
      case PROP_PITCH:
        set_angles (self, self->look.yaw, g_value_get_double (value));
        break;
      case PROP_ZOOM:
        set_zoom (self, g_value_get_double (value));
        break;
      case PROP_RESOLUTION_LIMIT:
        self->resolution_limit = g_value_get_double (value);
        redraw (self);
        break;
      case PROP_SIZE_BY_STRUCTURE_FACTOR:
        self->look.size_by_structure_factor = g_value_get_boolean (value);
        redraw (self);
        break;
      case PROP_SCALE_WAVELENGTH:
        if (self->look.scale_wavelength == g_value_get_double (value))
          break;
        self->look.scale_wavelength = g_value_get_double (value);
        g_object_notify_by_pspec (object, pspec);
        redraw (self);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
install_properties (GObjectClass *object_class)
{
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  /**
   * BraggscopeReciprocalView:simulation:
   *
   * The simulation whose frames are shown (its
   * [signal@Braggscope.Simulation::frame-ready]).
   *
   * Since: 0.1
   */
  properties[PROP_SIMULATION] =
      g_param_spec_object ("simulation", NULL, NULL, BRAGGSCOPE_TYPE_SIMULATION, rw);
  /**
   * BraggscopeReciprocalView:frame:
   *
   * The frame whose reciprocal space is shown.
   *
   * Since: 0.1
   */
  properties[PROP_FRAME] = g_param_spec_object ("frame", NULL, NULL, BRAGGSCOPE_TYPE_FRAME, rw);
  /**
   * BraggscopeReciprocalView:detector-view:
   *
   * The detector view linked with this one: its readout point highlights a
   * lattice point here, and pointing at a lattice point here marks its spot
   * there.
   *
   * Since: 0.1
   */
  properties[PROP_DETECTOR_VIEW] =
      g_param_spec_object ("detector-view", NULL, NULL, BRAGGSCOPE_TYPE_VIEW, rw);
  /**
   * BraggscopeReciprocalView:yaw:
   *
   * How far the camera is turned about the screen's vertical, in degrees
   * (at 0 the beam runs left to right in the screen's plane).
   *
   * Since: 0.1
   */
  properties[PROP_YAW] = g_param_spec_double ("yaw", NULL, NULL, -360.0, 360.0, 25.0, rw);
  /**
   * BraggscopeReciprocalView:pitch:
   *
   * How far the camera is turned about the screen's horizontal, in degrees
   * (at 0 the rotation axis points up).
   *
   * Since: 0.1
   */
  properties[PROP_PITCH] = g_param_spec_double ("pitch", NULL, NULL, -90.0, 90.0, 20.0, rw);
  /**
   * BraggscopeReciprocalView:zoom:
   *
   * Magnification (dimensionless): 1 fits the Ewald sphere and the lattice
   * drawn.
   *
   * Since: 0.1
   */
  properties[PROP_ZOOM] =
      g_param_spec_double ("zoom", NULL, NULL, RECIPROCAL_MIN_ZOOM, RECIPROCAL_MAX_ZOOM, 1.0, rw);
  /**
   * BraggscopeReciprocalView:resolution-limit:
   *
   * The lattice points drawn reach this resolution d, in Å; 0 takes the
   * resolution the detector's corners reach, or a coarser one where that
   * would draw more than 40,000 points (so that drawing keeps a drag's pace:
   * about 3 ms a frame).
   *
   * Since: 0.1
   */
  properties[PROP_RESOLUTION_LIMIT] =
      g_param_spec_double ("resolution-limit", NULL, NULL, 0.0, RECIPROCAL_MAX_RESOLUTION, 0.0, rw);
  /**
   * BraggscopeReciprocalView:size-by-structure-factor:
   *
   * Whether a lattice point's size and brightness follow its |F|² (else
   * all are drawn alike).
   *
   * Since: 0.1
   */
  properties[PROP_SIZE_BY_STRUCTURE_FACTOR] =
      g_param_spec_boolean ("size-by-structure-factor", NULL, NULL, TRUE, rw);
  /**
   * BraggscopeReciprocalView:scale-wavelength:
   *
   * A fixed reciprocal-space scale: the drawing's scale and centre are those
   * that fit the Ewald sphere of this wavelength, in Å, whatever the
   * frame's.  The lattice then keeps its place and size while the
   * wavelength changes, and the sphere of radius 1/λ grows as λ falls (the
   * wavelength lesson's picture).  0 (the default): each frame's own sphere
   * fits, so the sphere keeps its size on screen and the lattice scales.
   *
   * Since: 0.1
   */
  properties[PROP_SCALE_WAVELENGTH] =
      g_param_spec_double ("scale-wavelength", NULL, NULL, 0.0, 100.0, 0.0, rw);
  /**
   * BraggscopeReciprocalView:message:
   *
   * What the view says about the lattice point pointed at (its resolution,
   * where its ray meets the detector or that it misses), translated; %NULL
   * when none is pointed at.
   *
   * Since: 0.1
   */
  properties[PROP_MESSAGE] =
      g_param_spec_string ("message", NULL, NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
braggscope_reciprocal_view_class_init (BraggscopeReciprocalViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  _braggscope_gtk_ensure_textdomain ();
  object_class->dispose = braggscope_reciprocal_view_dispose;
  object_class->get_property = braggscope_reciprocal_view_get_property;
  object_class->set_property = braggscope_reciprocal_view_set_property;
  widget_class->snapshot = braggscope_reciprocal_view_snapshot;
  widget_class->measure = braggscope_reciprocal_view_measure;
  install_properties (object_class);
  gtk_widget_class_set_css_name (widget_class, "braggscope-reciprocal-view");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
braggscope_reciprocal_view_init (BraggscopeReciprocalView *self)
{
  GtkGesture *drag = gtk_gesture_drag_new ();
  GtkEventController *scroll =
      gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  GtkEventController *motion = gtk_event_controller_motion_new ();
  GtkEventController *key = gtk_event_controller_key_new ();

  _braggscope_reciprocal_look_init (&self->look);
  self->surface_dirty = TRUE;
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (self), TRUE);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self),
                               _ ("Ewald sphere and reciprocal lattice: drag or use the arrow "
                                  "keys to turn, scroll or +/− to zoom, Home for the first view"));

  g_signal_connect (drag, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (drag, "drag-update", G_CALLBACK (on_drag_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drag));
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), scroll);
  g_signal_connect (motion, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (motion, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
  g_signal_connect (key, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), key);
}

/* ------------------------------------------------------------------------- */
/* Public API */

/**
 * braggscope_reciprocal_view_new:
 * @simulation: (nullable): the simulation whose frames to show
 *
 * Creates a reciprocal-space view following @simulation's frames.
 *
 * Returns: (transfer floating): a new [class@BraggscopeGtk.ReciprocalView]
 *
 * Since: 0.1
 */
GtkWidget *
braggscope_reciprocal_view_new (BraggscopeSimulation *simulation)
{
  return g_object_new (BRAGGSCOPE_TYPE_RECIPROCAL_VIEW, "simulation", simulation, NULL);
}

/**
 * braggscope_reciprocal_view_get_simulation:
 * @self: a reciprocal view
 *
 * The [property@BraggscopeGtk.ReciprocalView:simulation].
 *
 * Returns: (transfer none) (nullable): the simulation whose frames are shown
 *
 * Since: 0.1
 */
BraggscopeSimulation *
braggscope_reciprocal_view_get_simulation (BraggscopeReciprocalView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self), NULL);
  return self->simulation;
}

/**
 * braggscope_reciprocal_view_set_simulation:
 * @self: a reciprocal view
 * @simulation: (nullable): the simulation whose frames to show
 *
 * Follows @simulation's frames from now on, starting with its last one.
 *
 * Since: 0.1
 */
void
braggscope_reciprocal_view_set_simulation (BraggscopeReciprocalView *self,
                                           BraggscopeSimulation *simulation)
{
  g_return_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self));
  g_return_if_fail (simulation == NULL || BRAGGSCOPE_IS_SIMULATION (simulation));

  if (self->simulation == simulation)
    return;
  if (self->simulation != NULL)
    g_clear_signal_handler (&self->frame_ready_handler, self->simulation);
  g_set_object (&self->simulation, simulation);
  if (simulation != NULL)
    {
      BraggscopeFrame *last = braggscope_simulation_get_last_frame (simulation);

      self->frame_ready_handler =
          g_signal_connect (simulation, "frame-ready", G_CALLBACK (on_frame_ready), self);
      if (last != NULL)
        braggscope_reciprocal_view_set_frame (self, last);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SIMULATION]);
}

/**
 * braggscope_reciprocal_view_get_frame:
 * @self: a reciprocal view
 *
 * The [property@BraggscopeGtk.ReciprocalView:frame].
 *
 * Returns: (transfer none) (nullable): the frame shown
 *
 * Since: 0.1
 */
BraggscopeFrame *
braggscope_reciprocal_view_get_frame (BraggscopeReciprocalView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self), NULL);
  return self->frame;
}

/**
 * braggscope_reciprocal_view_set_frame:
 * @self: a reciprocal view
 * @frame: (nullable): the frame to show
 *
 * Shows @frame's reciprocal space (a view following a simulation does this
 * for each of its frames).
 *
 * Since: 0.1
 */
void
braggscope_reciprocal_view_set_frame (BraggscopeReciprocalView *self, BraggscopeFrame *frame)
{
  g_return_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self));
  g_return_if_fail (frame == NULL || BRAGGSCOPE_IS_FRAME (frame));

  if (!g_set_object (&self->frame, frame))
    return;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRAME]);
  redraw (self);
}

/**
 * braggscope_reciprocal_view_get_detector_view:
 * @self: a reciprocal view
 *
 * The [property@BraggscopeGtk.ReciprocalView:detector-view].
 *
 * Returns: (transfer none) (nullable): the linked detector view
 *
 * Since: 0.1
 */
BraggscopeView *
braggscope_reciprocal_view_get_detector_view (BraggscopeReciprocalView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self), NULL);
  return self->detector_view;
}

/**
 * braggscope_reciprocal_view_set_detector_view:
 * @self: a reciprocal view
 * @view: (nullable): the detector view to link with
 *
 * Links the two views both ways: the readout point of @view highlights its
 * lattice point and diffracted ray here, and pointing at a lattice point here
 * marks where its ray meets @view's detector.  Held by a weak link: the
 * views may be destroyed in any order.
 *
 * Since: 0.1
 */
void
braggscope_reciprocal_view_set_detector_view (BraggscopeReciprocalView *self, BraggscopeView *view)
{
  g_return_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self));
  g_return_if_fail (view == NULL || BRAGGSCOPE_IS_VIEW (view));

  if (self->detector_view == view)
    return;
  if (self->detector_view != NULL)
    {
      g_clear_signal_handler (&self->readout_handler, self->detector_view);
      g_object_remove_weak_pointer (G_OBJECT (self->detector_view),
                                    (gpointer *) &self->detector_view);
    }
  self->detector_view = view;
  if (view != NULL)
    {
      g_object_add_weak_pointer (G_OBJECT (view), (gpointer *) &self->detector_view);
      self->readout_handler =
          g_signal_connect (view, "readout-changed", G_CALLBACK (on_readout_changed), self);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DETECTOR_VIEW]);
}

/**
 * braggscope_reciprocal_view_set_highlight:
 * @self: a reciprocal view
 * @h: Miller index h
 * @k: Miller index k
 * @l: Miller index l
 *
 * Marks lattice point (@h, @k, @l) with its diffracted ray (from the crystal
 * at the sphere's centre through the point).
 *
 * Since: 0.1
 */
void
braggscope_reciprocal_view_set_highlight (BraggscopeReciprocalView *self, int h, int k, int l)
{
  g_return_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self));

  if (self->look.has_highlight && self->look.highlight[0] == h && self->look.highlight[1] == k &&
      self->look.highlight[2] == l)
    return;
  self->look.has_highlight = TRUE;
  self->look.highlight[0] = h;
  self->look.highlight[1] = k;
  self->look.highlight[2] = l;
  redraw (self);
}

/**
 * braggscope_reciprocal_view_clear_highlight:
 * @self: a reciprocal view
 *
 * Removes the mark of [method@BraggscopeGtk.ReciprocalView.set_highlight].
 *
 * Since: 0.1
 */
void
braggscope_reciprocal_view_clear_highlight (BraggscopeReciprocalView *self)
{
  g_return_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self));

  if (!self->look.has_highlight)
    return;
  self->look.has_highlight = FALSE;
  redraw (self);
}

/**
 * braggscope_reciprocal_view_get_highlight:
 * @self: a reciprocal view
 * @h: (out) (optional): Miller index h of the highlighted point
 * @k: (out) (optional): Miller index k
 * @l: (out) (optional): Miller index l
 *
 * The lattice point marked with its ray: by
 * [method@BraggscopeGtk.ReciprocalView.set_highlight], the linked detector
 * view's readout or the pointer.
 *
 * Returns: %TRUE when a lattice point is highlighted
 *
 * Since: 0.1
 */
gboolean
braggscope_reciprocal_view_get_highlight (BraggscopeReciprocalView *self, int *h, int *k, int *l)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self), FALSE);

  if (h != NULL)
    *h = self->look.highlight[0];
  if (k != NULL)
    *k = self->look.highlight[1];
  if (l != NULL)
    *l = self->look.highlight[2];
  return self->look.has_highlight;
}

/**
 * braggscope_reciprocal_view_point_at:
 * @self: a reciprocal view
 * @x: widget coordinate, logical pixels from the left
 * @y: widget coordinate, logical pixels from the top
 *
 * What the pointer does: the lattice point drawn nearest (@x, @y), within a
 * few pixels, is highlighted with its ray, and the linked detector view
 * marks where that ray meets the detector
 * ([property@BraggscopeGtk.ReciprocalView:message] says where, or that it
 * misses).
 *
 * Returns: %TRUE when a lattice point was found there
 *
 * Since: 0.1
 */
gboolean
braggscope_reciprocal_view_point_at (BraggscopeReciprocalView *self, double x, double y)
{
  BraggscopeReciprocalScene *scene;
  int hkl[3], scale;

  g_return_val_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self), FALSE);

  scene = ensure_scene (self);
  scale = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  if (scene == NULL ||
      !_braggscope_reciprocal_scene_pick (
          scene, &self->look, gtk_widget_get_width (GTK_WIDGET (self)) * scale,
          gtk_widget_get_height (GTK_WIDGET (self)) * scale, x * scale, y * scale, hkl))
    {
      if (self->pointing)
        on_leave (NULL, self);
      return FALSE;
    }
  self->pointing = TRUE;
  braggscope_reciprocal_view_set_highlight (self, hkl[0], hkl[1], hkl[2]);
  describe_point (self, hkl);
  return TRUE;
}

/**
 * braggscope_reciprocal_view_get_message:
 * @self: a reciprocal view
 *
 * What the view says about the lattice point pointed at.
 *
 * Returns: (nullable): the [property@BraggscopeGtk.ReciprocalView:message]
 *
 * Since: 0.1
 */
const char *
braggscope_reciprocal_view_get_message (BraggscopeReciprocalView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self), NULL);
  return self->message;
}

/**
 * braggscope_reciprocal_view_get_n_diffracting:
 * @self: a reciprocal view
 *
 * Counts the lattice points of the frame shown that touch the Ewald sphere
 * within the tolerance the crystal size, mosaic spread, divergence and
 * dispersion give, or cross it during the exposure's rotation.
 *
 * Returns: how many lattice points of the frame shown are in diffracting
 *   position (a count; 0 without a frame)
 *
 * Since: 0.1
 */
guint
braggscope_reciprocal_view_get_n_diffracting (BraggscopeReciprocalView *self)
{
  BraggscopeReciprocalScene *scene;

  g_return_val_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self), 0);

  scene = ensure_scene (self);
  return scene != NULL ? _braggscope_reciprocal_scene_n_diffracting (scene) : 0;
}

/**
 * braggscope_reciprocal_view_get_sphere:
 * @self: a reciprocal view
 * @x: (out) (optional): the sphere's centre (where the crystal sits), widget
 *   pixels from the left
 * @y: (out) (optional): its centre, widget pixels from the top
 * @radius: (out) (optional): its radius 1/λ as drawn, in widget pixels
 *
 * The outline of the Ewald sphere as the view last drew it on screen.
 *
 * Returns: %TRUE when the view has drawn a scene since its last change
 *
 * Since: 0.1
 */
gboolean
braggscope_reciprocal_view_get_sphere (BraggscopeReciprocalView *self,
                                       double *x,
                                       double *y,
                                       double *radius)
{
  double scale;

  g_return_val_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self), FALSE);

  if (self->surface_dirty || !self->drawn.drawn)
    return FALSE;
  scale = MAX (self->drawn_scale, 1);
  if (x != NULL)
    *x = self->drawn.sphere_x / scale;
  if (y != NULL)
    *y = self->drawn.sphere_y / scale;
  if (radius != NULL)
    *radius = self->drawn.sphere_radius / scale;
  return TRUE;
}

/**
 * braggscope_reciprocal_view_get_n_crossing:
 * @self: a reciprocal view
 *
 * Counts the lattice points the view last drew as crossing the Ewald sphere
 * during the exposure's rotation (in green): in a rotation exposure, every
 * point that crosses between the start and the end angle.
 *
 * Returns: how many points the last drawing showed crossing (a count; 0
 *   before the first drawing, for a still or without a frame)
 *
 * Since: 0.1
 */
guint
braggscope_reciprocal_view_get_n_crossing (BraggscopeReciprocalView *self)
{
  g_return_val_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self), 0);

  return self->surface_dirty ? 0 : self->drawn.n_crossing;
}

/**
 * braggscope_reciprocal_view_get_point:
 * @self: a reciprocal view
 * @h: Miller index h
 * @k: Miller index k
 * @l: Miller index l
 * @x: (out) (optional): where the point is drawn, widget pixels from the left
 * @y: (out) (optional): widget pixels from the top
 * @diffracting: (out) (optional): whether it is drawn in diffracting
 *   position (yellow, or green when crossing)
 * @crossing: (out) (optional): whether it is drawn crossing the sphere
 *   during the exposure's rotation (green)
 *
 * How the view draws lattice point (@h, @k, @l) on screen: where, at the
 * middle of the exposure, with the camera of its last drawing, and in which
 * state.
 *
 * Returns: %TRUE when the point is among those drawn (within the resolution
 *   limit) and the view has drawn its scene
 *
 * Since: 0.1
 */
gboolean
braggscope_reciprocal_view_get_point (BraggscopeReciprocalView *self,
                                      int h,
                                      int k,
                                      int l,
                                      double *x,
                                      double *y,
                                      gboolean *diffracting,
                                      gboolean *crossing)
{
  const int hkl[3] = { h, k, l };
  gboolean on, across;
  double px, py;
  int scale;

  g_return_val_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self), FALSE);

  if (self->surface_dirty || self->surface == NULL || self->scene == NULL)
    return FALSE;
  if (!_braggscope_reciprocal_scene_locate (
          self->scene, &self->look, cairo_image_surface_get_width (self->surface),
          cairo_image_surface_get_height (self->surface), hkl, &px, &py, &on, &across))
    return FALSE;
  scale = MAX (self->drawn_scale, 1);
  if (x != NULL)
    *x = px / scale;
  if (y != NULL)
    *y = py / scale;
  if (diffracting != NULL)
    *diffracting = on;
  if (crossing != NULL)
    *crossing = across;
  return TRUE;
}

/* RGBA bytes from cairo's premultiplied words (the drawing is opaque). */
static GBytes *
surface_to_rgba (cairo_surface_t *surface)
{
  int width = cairo_image_surface_get_width (surface);
  int height = cairo_image_surface_get_height (surface);
  int stride = cairo_image_surface_get_stride (surface);
  const guint8 *data = cairo_image_surface_get_data (surface);
  guint8 *rgba = g_malloc ((gsize) width * height * 4);

  cairo_surface_flush (surface);
  for (int j = 0; j < height; j++)
    {
      const guint32 *row = (const guint32 *) (data + (gsize) j * stride);
      guint32 *out = (guint32 *) (rgba + (gsize) j * width * 4);

      /* opaque native-endian 0xAARRGGBB to the bytes R G B 255, a word at
       * a time (the loop vectorizes) */
      for (int i = 0; i < width; i++)
        out[i] = GUINT32_TO_LE ((row[i] >> 16 & 0xff) | (row[i] & 0xff00) | (row[i] & 0xff) << 16 |
                                0xff000000u);
    }
  return g_bytes_new_take (rgba, (gsize) width * height * 4);
}

/**
 * braggscope_reciprocal_view_render_bytes:
 * @self: a reciprocal view
 * @width: pixels across
 * @height: pixels down
 *
 * The view as it is (camera, highlight, message) drawn at @width x @height,
 * without a display.
 *
 * Returns: (transfer full) (nullable): @width * @height * 4 bytes of RGBA
 *   (alpha 255), row-major, or %NULL for a size cairo refuses
 *
 * Since: 0.1
 */
GBytes *
braggscope_reciprocal_view_render_bytes (BraggscopeReciprocalView *self, int width, int height)
{
  cairo_surface_t *surface;
  GBytes *rgba;

  g_return_val_if_fail (BRAGGSCOPE_IS_RECIPROCAL_VIEW (self), NULL);
  g_return_val_if_fail (width > 0 && height > 0, NULL);

  surface = render_surface (self, width, height, NULL);
  if (surface == NULL)
    return NULL;
  rgba = surface_to_rgba (surface);
  cairo_surface_destroy (surface);
  return rgba;
}

/**
 * braggscope_render_reciprocal_bytes:
 * @frame: a frame
 * @yaw: camera turn about the vertical, degrees (as
 *   [property@BraggscopeGtk.ReciprocalView:yaw])
 * @pitch: camera turn about the horizontal, degrees
 * @zoom: magnification, 1 fits the sphere and the lattice
 * @resolution_limit: resolution of the lattice drawn, Å; 0 for the
 *   detector's corners
 * @width: pixels across
 * @height: pixels down
 *
 * @frame's reciprocal space as a [class@BraggscopeGtk.ReciprocalView] shows
 * it, without a widget or a display (for headless programs).
 *
 * The numbers are taken as the view's properties take them: the zoom
 * clamped to 0.2 to 50, the yaw wrapped to -180 to 180 degrees, the pitch
 * clamped to -90 to 90 degrees, the resolution limit to 0 to 1000 Å.
 *
 * Returns: (transfer full) (nullable): @width * @height * 4 bytes of RGBA
 *   (alpha 255), row-major, or %NULL for a frame without a unit cell, a
 *   size cairo refuses, or a yaw, pitch, zoom or resolution limit that is
 *   not a finite number
 *
 * Since: 0.1
 */
GBytes *
braggscope_render_reciprocal_bytes (BraggscopeFrame *frame,
                                    double yaw,
                                    double pitch,
                                    double zoom,
                                    double resolution_limit,
                                    int width,
                                    int height)
{
  return braggscope_render_reciprocal_scaled_bytes (frame, yaw, pitch, zoom, resolution_limit, 0.0,
                                                    width, height);
}

/**
 * braggscope_render_reciprocal_scaled_bytes:
 * @frame: a frame
 * @yaw: camera turn about the vertical, degrees (as
 *   [property@BraggscopeGtk.ReciprocalView:yaw])
 * @pitch: camera turn about the horizontal, degrees
 * @zoom: magnification, 1 fits the sphere and the lattice
 * @resolution_limit: resolution of the lattice drawn, Å; 0 for the
 *   detector's corners
 * @scale_wavelength: a fixed reciprocal-space scale, the one that fits the
 *   sphere of this wavelength (Å), as
 *   [property@BraggscopeGtk.ReciprocalView:scale-wavelength]; 0 (or a value
 *   that is not a positive finite number) for @frame's own
 * @width: pixels across
 * @height: pixels down
 *
 * [func@BraggscopeGtk.render_reciprocal_bytes] at a fixed reciprocal-space
 * scale.
 *
 * Returns: (transfer full) (nullable): @width * @height * 4 bytes of RGBA
 *   (alpha 255), row-major, or %NULL for a frame without a unit cell or a
 *   size cairo refuses
 *
 * Since: 0.1
 */
GBytes *
braggscope_render_reciprocal_scaled_bytes (BraggscopeFrame *frame,
                                           double yaw,
                                           double pitch,
                                           double zoom,
                                           double resolution_limit,
                                           double scale_wavelength,
                                           int width,
                                           int height)
{
  BraggscopeReciprocalScene *scene;
  BraggscopeReciprocalLook look;
  cairo_surface_t *surface;
  GBytes *rgba;

  g_return_val_if_fail (BRAGGSCOPE_IS_FRAME (frame), NULL);
  g_return_val_if_fail (width > 0 && height > 0, NULL);

  if (!_braggscope_reciprocal_look_valid (&zoom, &yaw, &pitch, &resolution_limit))
    return NULL;
  _braggscope_gtk_ensure_textdomain ();
  scene = _braggscope_reciprocal_scene_new (frame, resolution_limit);
  if (scene == NULL)
    return NULL;
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      _braggscope_reciprocal_scene_free (scene);
      return NULL;
    }
  _braggscope_reciprocal_look_init (&look);
  look.yaw = yaw;
  look.pitch = pitch;
  look.zoom = zoom;
  look.scale_wavelength =
      scale_wavelength > 0 && isfinite (scale_wavelength) ? scale_wavelength : 0.0;
  _braggscope_reciprocal_scene_draw (scene, &look, surface, NULL);
  rgba = surface_to_rgba (surface);
  cairo_surface_destroy (surface);
  _braggscope_reciprocal_scene_free (scene);
  return rgba;
}
