/* braggscope-reciprocal-private.h: the reciprocal-space scene of a frame (its
 * lattice points, their distance from the Ewald sphere, their structure
 * factors) and drawing it with cairo: shared by BraggscopeReciprocalView and
 * the display-free braggscope_render_reciprocal_rgba().
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <cairo.h>

#include "braggscope.h"

G_BEGIN_DECLS

typedef struct _BraggscopeReciprocalScene BraggscopeReciprocalScene;

/* The ranges the view's properties take and every drawing keeps to: a zoom
 * far beyond them drew circles so large that cairo_arc() spun for ever. */
#define RECIPROCAL_MIN_ZOOM       0.2
#define RECIPROCAL_MAX_ZOOM       50.0
#define RECIPROCAL_MAX_RESOLUTION 1000.0 /* Angstrom */

/* _braggscope_reciprocal_look_valid: @zoom, @yaw, @pitch and
 * @resolution_limit as a drawing takes them: FALSE when one is not a finite
 * number (the call is refused); else clamped to the view's ranges (the yaw
 * wrapped to -180..180 degrees, the pitch clamped to -90..90, a resolution
 * limit below 0 taken as 0, automatic). */
gboolean _braggscope_reciprocal_look_valid (double *zoom,
                                            double *yaw,
                                            double *pitch,
                                            double *resolution_limit);

/* The lattice points of @frame's crystal within @resolution_limit (Angstrom;
 * 0: what the detector's corners reach), at the middle of the exposure, with
 * their excitation errors and structure factors.  NULL for a frame that does
 * not know its parameters or has no unit cell. */
BraggscopeReciprocalScene *_braggscope_reciprocal_scene_new (BraggscopeFrame *frame,
                                                             double resolution_limit);
void _braggscope_reciprocal_scene_free (BraggscopeReciprocalScene *scene);

/* Lattice points in diffracting position (within the sphere's shell, or
   crossing it during the exposure's rotation). */
guint _braggscope_reciprocal_scene_n_diffracting (const BraggscopeReciprocalScene *scene);
/* All lattice points drawn (the origin not counted). */
guint _braggscope_reciprocal_scene_n_points (const BraggscopeReciprocalScene *scene);

/* How the scene is seen. */
typedef struct
{
  double yaw, pitch; /* degrees: the camera turned about the screen's vertical, then horizontal */
  double zoom;       /* 1 fits the sphere and the lattice */
  /* Angstrom: the scale that fits this wavelength's sphere, kept whatever
   * the frame's wavelength (the lattice stays, the sphere of radius 1/lambda
   * grows as lambda falls); 0: each frame's own wavelength fits */
  double scale_wavelength;
  gboolean size_by_structure_factor;
  gboolean has_highlight; /* mark @highlight and its diffracted ray */
  int highlight[3];
  const char *message; /* a line at the bottom (translated), or NULL */
} BraggscopeReciprocalLook;

void _braggscope_reciprocal_look_init (BraggscopeReciprocalLook *look);

/* What a drawing drew, in the surface's pixels. */
typedef struct
{
  gboolean drawn;
  double sphere_x, sphere_y, sphere_radius; /* the Ewald sphere's outline: centre, radius */
  double origin_x, origin_y;                /* the lattice's origin, 000 */
  guint n_shell;                            /* points drawn in diffracting position (yellow) */
  guint n_crossing; /* points drawn crossing the sphere during the exposure (green) */
} BraggscopeReciprocalDrawn;

/* Draws the scene into @surface (CAIRO_FORMAT_ARGB32, width x height, its
 * contents replaced); what it drew goes into @drawn when not NULL. */
void _braggscope_reciprocal_scene_draw (const BraggscopeReciprocalScene *scene,
                                        const BraggscopeReciprocalLook *look,
                                        cairo_surface_t *surface,
                                        BraggscopeReciprocalDrawn *drawn);

/* Where lattice point @hkl is drawn in a @width x @height drawing (surface
 * pixels), and whether in diffracting position and crossing the sphere
 * during the exposure (yellow or green); FALSE when it is not among the
 * points drawn. */
gboolean _braggscope_reciprocal_scene_locate (const BraggscopeReciprocalScene *scene,
                                              const BraggscopeReciprocalLook *look,
                                              int width,
                                              int height,
                                              const int hkl[3],
                                              double *x,
                                              double *y,
                                              gboolean *diffracting,
                                              gboolean *crossing);

/* The lattice point drawn nearest (@x, @y) (surface pixels of a @width x
 * @height drawing), within a few pixels; diffracting points win. */
gboolean _braggscope_reciprocal_scene_pick (const BraggscopeReciprocalScene *scene,
                                            const BraggscopeReciprocalLook *look,
                                            int width,
                                            int height,
                                            double x,
                                            double y,
                                            int hkl[3]);

/* Lattice point @hkl: its diffracted ray's direction from the crystal (lab
 * frame, the Ewald construction's k_out = k s0 + r), its resolution d
 * (Angstrom), and whether it diffracts (in the shell or crossing it). */
void _braggscope_reciprocal_scene_describe (const BraggscopeReciprocalScene *scene,
                                            const int hkl[3],
                                            double direction[3],
                                            double *d_spacing,
                                            gboolean *diffracting);

/* The frame's geometry (borrowed), to place rays on the detector. */
BraggscopeGeometry *_braggscope_reciprocal_scene_get_geometry (BraggscopeReciprocalScene *scene);

G_END_DECLS
