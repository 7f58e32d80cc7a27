/* braggscope-view-private.h: BraggscopeView's instance and what its files
 * share: braggscope-view.c (the widget), braggscope-view-gl.c (the OpenGL
 * path), braggscope-view-software.c (the CPU path) and
 * braggscope-view-render.c (pictures of a frame without a widget),
 * braggscope-view-properties.c (its properties and their docs).
 *
 * Calls go one way: the two drawing paths receive what they draw
 * (BraggscopeViewScene, filled by braggscope-view.c) and report a fall back
 * to the CPU through the callback they were given; braggscope-view-render.c
 * uses the view and nothing in the view calls it.  braggscope-view.c,
 * -properties.c, -marks.c and -compare.c are BraggscopeView's own methods
 * split for size (check-layers.py's PROGRAM_UNITS).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <epoxy/gl.h>

#include "braggscope-overlay-private.h"
#include "braggscope-view.h"

G_BEGIN_DECLS

#define SHADER_PATH "/io/github/braggscope/gtk/shaders/"

#define MIN_ZOOM  0.25
#define MAX_ZOOM  256.0
#define ZOOM_STEP 1.2

/* The automatic window's percentiles, as braggscope_frame_get_auto_window's */
#define AUTO_LOW_PERCENTILE  1.0
#define AUTO_HIGH_PERCENTILE 99.5

/* Outside the frame: the same bytes on both paths. */
static const guint8 _braggscope_view_background[4] = { 32, 32, 32, 255 };

struct _BraggscopeView
{
  GtkWidget parent_instance;

  BraggscopeSimulation *simulation;
  gulong frame_ready_handler;
  BraggscopeFrame *frame;       /* shown: given_frame, or its projection (several panels) */
  BraggscopeFrame *given_frame; /* the simulation's */

  BraggscopeDisplay display;
  gboolean auto_contrast;
  double contrast_percentile; /* the top of the automatic window */
  gboolean show_rings;
  gboolean show_beam_center;
  gboolean force_software;

  double zoom;
  double center_x, center_y; /* frame coordinates shown at the widget's centre */

  BraggscopeGeometry *overlay_source; /* what overlay was computed from (a ref) */
  BraggscopeOverlayGeometry overlay;

  /* OpenGL path */
  GtkWidget *gl_area;
  gboolean use_gl;
  void (*fell_back) (BraggscopeView *self); /* braggscope-view.c's, given to the GL area */
  GLuint program, vao, image_texture, lut_texture;
  GLint max_texture_size;
  gboolean image_dirty, lut_dirty;
  struct
  {
    GLint image, lut, origin, step, viewport_height, scale, empty, low, range, log_range,
        inverse_gamma, background;
  } uniforms;

  /* software path */
  guint8 *frame_indices; /* colour table index of each frame pixel */
  gsize frame_indices_size;
  gboolean frame_indices_dirty;
  GdkTexture *screen_texture; /* what the widget shows, device pixels */
  gboolean screen_dirty;

  /* readout */
  gboolean pointer_inside;
  double pointer_x, pointer_y;
  gboolean readout_inside;
  double readout_x, readout_y;
  int readout_pixel_x, readout_pixel_y;
  float readout_value;
  BraggscopePixelInfo readout_info;

  double drag_center_x, drag_center_y;

  /* Miller-index labels and rings at fixed resolutions */
  gboolean show_labels;
  guint label_count;
  char *ring_resolutions;
  BraggscopeFrame *labels_frame; /* what labels were chosen for */
  GArray *labels;                /* BraggscopeReflection */
  GArray *labels_placed;         /* those drawn the last time */
  char *label_reflections;       /* "h k l; ..." labelled first, or NULL */
  GArray *label_boxes;           /* BraggscopeLabelBox of the text drawn the last time */

  /* the second layer and how it is shown (braggscope-view-compare.c) */
  GBytes *reference;             /* float32, reference_width x reference_height; NaN masked */
  BraggscopeFrame *held_preview; /* a preview held as A, until its full frame comes */
  int reference_width, reference_height;
  char *reference_label;
  BraggscopeCompareMode compare_mode;
  gboolean blink_reference;
  gboolean reference_scale;
  BraggscopeDisplay reference_display; /* the current display with the reference's window */
  gboolean reference_auto_window;
  guint8 *compare_rgba, *compare_keys; /* the composed picture, one pixel per frame pixel */
  int compare_width, compare_height;
  gboolean compare_dirty;
  const char *compare_fallback; /* static, translated; NULL when the mode is shown */
  float readout_reference;      /* NaN when none */
  /* the reference's own overlays: a held frame's geometry and labels, or a
   * geometry a host gave; none for a layer without one */
  BraggscopeFrame *reference_frame; /* a held frame, for its labels; or NULL */
  BraggscopeGeometry *reference_geometry;
  BraggscopeGeometry *reference_overlay_source; /* what reference_overlay was computed from */
  BraggscopeOverlayGeometry reference_overlay;
  GArray *reference_labels; /* BraggscopeReflection of reference_frame, or NULL */
  char *reference_caption;  /* as the host set it, or NULL for the automatic one */

  /* a point marked by a linked view (frame pixels) */
  gboolean has_marker;
  double marker_x, marker_y;
  char *marker_label;
};

typedef enum
{
  CHANGED_VIEW = 1 << 0,    /* zoom, pan, size */
  CHANGED_DISPLAY = 1 << 1, /* colormap, scale, window */
  CHANGED_IMAGE = 1 << 2,   /* a new frame */
  CHANGED_OVERLAY = 1 << 3, /* overlay switches only */
  CHANGED_COMPARE = 1 << 4, /* the reference layer or how it is shown */
} Changes;

/* What a drawing path draws, filled by braggscope-view.c just before. */
typedef struct
{
  gboolean has_frame;        /* FALSE without a frame (nothing else is set then) */
  int frame_width;           /* frame pixels */
  int frame_height;          /* frame pixels */
  gboolean placed;           /* scale and origin set: a frame and a widget size */
  double scale;              /* logical widget pixels per frame pixel */
  double origin_x, origin_y; /* frame coordinates of the widget's top-left corner */
  /* comparing: the composed picture (braggscope-view-compare.c's, borrowed),
   * its size and its left edge in frame coordinates; else rgba is NULL */
  const guint8 *compare_rgba, *compare_keys;
  int compare_width, compare_height;
  double compare_x0;
} BraggscopeViewScene;

/* braggscope-view.c */

/* The frame's size; FALSE without a frame. */
gboolean _braggscope_view_frame_size (BraggscopeView *self, int *width, int *height);

/* Logical widget pixels per frame pixel, and the frame coordinates of the
 * widget's top-left corner; FALSE without a frame or a size. */
gboolean _braggscope_view_transform (BraggscopeView *self,
                                     double *scale,
                                     double *origin_x,
                                     double *origin_y);

/* Reads the readout at the pointer again; emits readout-changed. */
void _braggscope_view_update_readout (BraggscopeView *self);

/* Marks what @changes make stale and queues a redraw. */
void _braggscope_view_invalidate (BraggscopeView *self, Changes changes);

/* The overlay of the frame's geometry, computed once per geometry and size;
 * NULL where there is none. */
const BraggscopeOverlayGeometry *_braggscope_view_ensure_overlay (BraggscopeView *self);

/* braggscope-view-marks.c: the rings, beam centre, labels and marker over
 * the frame, in widget coordinates; comparing, each layer's own overlays
 * inside its own part of the widget, and the layers' captions. */
void _braggscope_view_snapshot_overlays (BraggscopeView *self,
                                         GtkSnapshot *snapshot,
                                         int width,
                                         int height);

/* The reflections labelled on the frame shown (BraggscopeReflection,
 * brightest first), computed once per full frame; NULL when labels are off,
 * for previews, or when prediction failed. */
GArray *_braggscope_view_ensure_labels (BraggscopeView *self);

/* The reference layer's overlay (from its own geometry, at its size) and
 * labels (of a held full frame); NULL where it has none. */
const BraggscopeOverlayGeometry *_braggscope_view_ensure_reference_overlay (BraggscopeView *self);
GArray *_braggscope_view_ensure_reference_labels (BraggscopeView *self);

/* braggscope-view-gl.c: the GL area drawing the frame; it falls back to the
 * CPU path when OpenGL fails: it clears self->use_gl, then, at an idle
 * moment, calls @fell_back (which redraws) and notifies
 * BraggscopeView:renderer.  Its "render" handler is the view's, which calls
 * _braggscope_view_gl_render() with the scene. */
GtkWidget *_braggscope_view_gl_area_new (BraggscopeView *self,
                                         void (*fell_back) (BraggscopeView *self));

/* Draws @scene's frame in @area (its context current); TRUE (the signal's
 * return value). */
gboolean _braggscope_view_gl_render (BraggscopeView *self,
                                     GtkGLArea *area,
                                     const BraggscopeViewScene *scene);

/* braggscope-view-software.c: @scene's frame drawn on the CPU into
 * @snapshot (@width x @height logical pixels); when comparing, its composed
 * picture. */
void _braggscope_view_snapshot_software (BraggscopeView *self,
                                         const BraggscopeViewScene *scene,
                                         GtkSnapshot *snapshot,
                                         int width,
                                         int height);

/* braggscope-view-compare.c */

/* How the layers are laid out: @mode, or SIDE_BY_SIDE when @mode needs
 * layers of one size and they differ (then *@fallback, if given, says so,
 * translated; else it is set to NULL). */
BraggscopeCompareMode _braggscope_compare_layout (BraggscopeCompareMode mode,
                                                  int width,
                                                  int height,
                                                  int reference_width,
                                                  int reference_height,
                                                  const char **fallback);

/* The layout the view draws now: NONE without a frame, a reference or a
 * mode. */
BraggscopeCompareMode _braggscope_view_compare_layout (BraggscopeView *self);

/* The rectangle the view shows, in frame coordinates: the frame, widened to
 * the left by the reference when side by side; FALSE without a frame. */
gboolean
_braggscope_view_canvas (BraggscopeView *self, double *x0, double *y0, double *x1, double *y1);

/* The composed picture (RGBA, and a salience per pixel that the sampler
 * keeps when zoomed out) with its size and its left edge in frame
 * coordinates; FALSE when not comparing. */
gboolean _braggscope_view_ensure_compare (BraggscopeView *self,
                                          const guint8 **rgba,
                                          const guint8 **keys,
                                          int *width,
                                          int *height,
                                          double *x0);

/* The frame pixel under frame point (@x, @y) moved out of the reference's
 * panel (side by side: the same pixel of the current frame), and the
 * reference's value there (NaN where it has none). */
float _braggscope_view_reference_at (BraggscopeView *self, double *x, double y);

/* The colour of the overlays drawn over the picture of @layout: the
 * colormap's (_braggscope_overlay_color_for) where a layer is shown in its
 * own colours, else one apart from the blend's (grey and orange) or the
 * difference's (blue, white, red). */
void
_braggscope_view_overlay_color (BraggscopeView *self, BraggscopeCompareMode layout, double rgba[4]);

/* The caption drawn over the reference layer (@reference) or the current
 * frame in @layout, newly allocated; NULL where none is drawn. */
char *
_braggscope_view_caption (BraggscopeView *self, BraggscopeCompareMode layout, gboolean reference);

/* A new frame: the picture is stale, the sizes may now differ. */
void _braggscope_view_compare_frame_changed (BraggscopeView *self);
void _braggscope_view_compare_init (BraggscopeView *self);
void _braggscope_view_compare_dispose (BraggscopeView *self);

/* braggscope-view-properties.c */

typedef enum
{
  PROP_0,
  PROP_SIMULATION,
  PROP_FRAME,
  PROP_COLORMAP,
  PROP_SCALE,
  PROP_GAMMA,
  PROP_AUTO_CONTRAST,
  PROP_CONTRAST_PERCENTILE,
  PROP_LOW,
  PROP_HIGH,
  PROP_SHOW_RINGS,
  PROP_SHOW_BEAM_CENTER,
  PROP_SHOW_LABELS,
  PROP_LABEL_COUNT,
  PROP_RING_RESOLUTIONS,
  PROP_LABEL_REFLECTIONS,
  PROP_ZOOM,
  PROP_RENDERER,
  PROP_FORCE_SOFTWARE,
  PROP_COMPARE_MODE,
  PROP_HAS_REFERENCE,
  PROP_REFERENCE_LABEL,
  PROP_BLINK_REFERENCE,
  PROP_REFERENCE_AUTO_WINDOW,
  PROP_REFERENCE_MIN,
  PROP_REFERENCE_MAX,
  PROP_REFERENCE_SCALE,
  PROP_COMPARE_FALLBACK,
  N_PROPS
} BraggscopeViewProperty;

extern GParamSpec *_braggscope_view_properties[N_PROPS];

void _braggscope_view_install_properties (GObjectClass *object_class);
void
_braggscope_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec);
void _braggscope_view_set_property (GObject *object,
                                    guint prop_id,
                                    const GValue *value,
                                    GParamSpec *pspec);

/* The compare properties, read and written by braggscope-view-compare.c. */
void _braggscope_view_compare_get_property (BraggscopeView *self, guint prop_id, GValue *value);
void
_braggscope_view_compare_set_property (BraggscopeView *self, guint prop_id, const GValue *value);

G_END_DECLS
