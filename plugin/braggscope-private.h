/* braggscope-private.h: what the files of libbraggscope share and hosts never see.
 *
 * The only header of the library that includes the engine's: the public
 * headers keep nb_* types out of the API and the GIR.
 */
#pragma once

#include <glib-object.h>

#include "nanobragg.h"
#include "nb-match.h"

#include "braggscope-error.h"
#include "braggscope-frame.h"
#include "braggscope-geometry.h"
#include "braggscope-measured.h"
#include "braggscope-simulation.h"

G_BEGIN_DECLS

/* errors */
BraggscopeError _braggscope_error_code (int status);
GError *_braggscope_error_from_nb (const nb_error *err);
void _braggscope_propagate_nb (GError **error, const nb_error *err);
/* Makes *@error's message valid UTF-8 (file names' bytes that are not become
 * U+FFFD, as g_filename_display_name() shows them); NULL allowed. */
void _braggscope_error_make_utf8 (GError **error);

/* The folders to look for the library's data files in, in order:
 * $BRAGGSCOPE_DATADIR, then datadir/braggscope relative to the library's
 * own folder (a moved install) or, for the build tree's library only, the
 * source tree's data/, then the configured datadir/braggscope.  Free with g_strfreev(). */
char **_braggscope_data_dirs (void);

/* geometry (braggscope-geometry.c; its panels, braggscope-geometry-panels.c) */

/* One panel of a multi-panel detector, as the plan rendered it. */
typedef struct
{
  char *name;
  nb_geometry *geom; /* the panel's own (a reference) */
  int width, height;
  gsize offset;      /* its pixel (0, 0) in the frame's data */
  int row;           /* its first row in the frame's image, or -1 when widths differ */
  double pixel_size; /* m */
  double pix0[3], fdet[3], sdet[3], normal[3]; /* lab frame (m; unit axes) */
  int data_origin_f, data_origin_s;            /* in the geometry file's data array, or -1 */
} BraggscopeGeometryPanel;

struct _BraggscopeGeometry
{
  gatomicrefcount ref_count;
  nb_geometry *geom; /* one detector; a multi-panel one's panel 0, or the plane of a projection */
  int width, height; /* the coordinates queries take: the frame's image, or the projection's */
  int n_panels;      /* 0: one detector (geom) */
  BraggscopeGeometryPanel *panels;
  double beam[3];              /* unit, source to sample */
  gboolean projected;          /* coordinates are a projection's (layout) */
  BraggscopeProjection layout; /* which: the plane normal to the beam (geom), or equal-angle */
  double layout_pix0[3], layout_u[3], layout_v[3], layout_pixel; /* that plane (m) */
  double layout_distance, layout_x0, layout_y0; /* equal-angle: radius per radian of two-theta
                                                   (m), the picture's corner (m from the beam) */
  BraggscopeGeometry *projection; /* of a multi-panel one, made when first asked for */
  GBytes *picture_map; /* a projection's: each pixel's index in the frame's data (guint32),
                         or none; shared by projections of the same picture */
  gboolean projection_tried;
  double a_star[3], b_star[3], c_star[3]; /* the plan's reciprocal cell (1/Angstrom) */
  double computed_to;                     /* the plan's hkl_d_min (Angstrom) */
};

/* Takes over the caller's reference to @geom; @info: the plan's, for the
 * reciprocal cell and the resolution of computed structure factors, or NULL. */
BraggscopeGeometry *_braggscope_geometry_new_take (nb_geometry *geom, const nb_plan_info *info);
/* Takes @geom (the plan's, panel 0's with panels) and adds the plan's panels;
 * NULL when out of memory (@geom released). */
BraggscopeGeometry *_braggscope_geometry_new_plan (nb_geometry *geom, nb_plan *plan);
void _braggscope_geometry_panels_free (BraggscopeGeometry *self);
/* The panel under the point (@x, @y) of @self's coordinates and the point on
 * it (pixels); FALSE when none. */
gboolean _braggscope_geometry_locate (
    BraggscopeGeometry *self, double x, double y, int *panel, double *f, double *s);
/* @self's panels seen from the sample: a geometry whose coordinates are the
 * plane normal to the beam (NULL for a geometry without panels, or panels
 * behind the sample; made once, owned by @self), and its picture of @data (@self's image) into @out
 * (width x height floats; the gaps @gap). */
BraggscopeGeometry *_braggscope_geometry_project (BraggscopeGeometry *self);
/* _braggscope_geometry_project(), its picture map shared with @previous's
 * projection (NULL, or not made yet: none) where that is the same picture of
 * the same panels (another orientation of the crystal). */
BraggscopeGeometry *_braggscope_geometry_project_after (BraggscopeGeometry *self,
                                                        BraggscopeGeometry *previous);
/* Where the ray from the sample along @dir (any length) lies in the
 * projection @proj's coordinates; FALSE when nowhere (behind the gnomonic
 * plane, or not finite). */
gboolean _braggscope_geometry_layout_point (BraggscopeGeometry *proj,
                                            const double dir[3],
                                            double *x,
                                            double *y);
/* What the ray through the point (@x, @y) of an equal-angle projection sees,
 * as the plane of the panel it meets most squarely answers (the ray is the
 * same, so are its angles and h k l); NB_ERR_INVALID when no panel's plane
 * lies ahead along it. */
nb_status _braggscope_geometry_query_layout (
    BraggscopeGeometry *proj, double x, double y, nb_pixel_query *q, nb_error *err);
void _braggscope_geometry_project_data (BraggscopeGeometry *projection,
                                        const float *data,
                                        float *out,
                                        float gap);

/* the pool of frame buffers (thread-safe) */
typedef struct _BraggscopeFramePool BraggscopeFramePool;

BraggscopeFramePool *_braggscope_frame_pool_new (void);
BraggscopeFramePool *_braggscope_frame_pool_ref (BraggscopeFramePool *pool);
void _braggscope_frame_pool_unref (BraggscopeFramePool *pool);
float *_braggscope_frame_pool_acquire (BraggscopeFramePool *pool, gsize n_floats, gboolean pinned);
void _braggscope_frame_pool_release (BraggscopeFramePool *pool,
                                     float *buffer,
                                     gsize n_floats,
                                     gboolean pinned);

/* The percentiles of a frame's automatic display window
 * (braggscope_frame_get_auto_window()). */
#define _BRAGGSCOPE_AUTO_LOW_PERCENTILE  1.0
#define _BRAGGSCOPE_AUTO_HIGH_PERCENTILE 99.5
guint _braggscope_frame_pool_get_allocated (BraggscopeFramePool *pool);

/* What the worker's plan knew when it rendered a frame, for the frame's
 * flags and file exports without a plan: reference-counted, immutable, shared
 * by the preview and full frames of one plan update. */
typedef struct _BraggscopeFrameSource BraggscopeFrameSource;

/* Copies @info, @params and @warnings (nb_plan_get_warnings(): lines ending
 * in '\n'); takes a reference to @mask (the -mask pixels, fpixels * spixels
 * guint16, or NULL).  NULL when out of memory. */
BraggscopeFrameSource *_braggscope_frame_source_new (const nb_plan_info *info,
                                                     const nb_params *params,
                                                     GBytes *mask,
                                                     const char *warnings);
BraggscopeFrameSource *_braggscope_frame_source_ref (BraggscopeFrameSource *self);
void _braggscope_frame_source_unref (BraggscopeFrameSource *self);
/* The flags of the params (args[0] "nanobragg"), formatted on the first call
 * (thread-safe), owned by the source. */
char **_braggscope_frame_source_peek_args (BraggscopeFrameSource *self);
GBytes *_braggscope_frame_source_peek_mask (BraggscopeFrameSource *self);

typedef struct
{
  BraggscopeFramePool *pool;
  float *data;     /* taken over; from @pool */
  gboolean pinned; /* as @data was acquired */
  int width, height;
  gboolean is_preview;
  guint64 sequence;
  double queue_ms, execute_ms, total_ms;
  const char *backend; /* static */
  int cache_hits, cache_rebuilds;
  float max_value;
  gboolean has_auto_window; /* auto_low and auto_high are the frame's window */
  double auto_low, auto_high;
  BraggscopeFrameSource *source;
  BraggscopeGeometry *geometry;
  gboolean adaptive;        /* integrated adaptively (nb_plan_timing.adaptive) */
  double samples_per_pixel; /* sub-pixel samples per simulated pixel */
} BraggscopeFrameInit;

BraggscopeFrame *_braggscope_frame_new (const BraggscopeFrameInit *init);

/* What @frame was rendered from (NULL for a frame without a source). */
BraggscopeFrameSource *_braggscope_frame_peek_source (BraggscopeFrame *frame);
const nb_plan_info *_braggscope_frame_source_peek_info (BraggscopeFrameSource *self);
const nb_params *_braggscope_frame_source_peek_params (BraggscopeFrameSource *self);
/* The reflections predicted for the source's parameters (an array of
 * BraggscopeReflection, a new reference), computed on the first call and kept
 * (thread-safe), and in *@panels (int, a new reference) each one's panel, whose
 * pixels its x and y are (-1: on no panel); NULL with @error set when
 * prediction failed. */
GArray *
_braggscope_frame_source_predict (BraggscopeFrameSource *self, GArray **panels, GError **error);

/* simulation: parameters from a full argv (argv[0] the program name) on top of
 * nanoBragg's defaults, a scene read from @source (no flag naming a file to
 * write); image buffers its worker allocated */
gboolean _braggscope_simulation_restore_args (BraggscopeSimulation *self,
                                              const char *const *args,
                                              const char *source,
                                              GError **error);
guint _braggscope_simulation_get_buffers_allocated (BraggscopeSimulation *self);

/* measured frames: the engine's frame, immutable */
const nb_frame *_braggscope_measured_frame_peek (BraggscopeMeasuredFrame *self);
/* frame: nb_params_to_scene_argv as a GStrv: the scene, without the flags naming
 * files to write */
char **_braggscope_params_to_strv (const nb_params *params);

G_END_DECLS
