/* braggscope-frame.h: one rendered detector image and how it was made. */
#pragma once

#include "braggscope-export.h"

#include <glib-object.h>

#include "braggscope-geometry.h"

G_BEGIN_DECLS

/**
 * BraggscopeIntegration:
 * @BRAGGSCOPE_INTEGRATION_EXACT: nanoBragg's method: oversample² sub-pixels
 *   in every pixel
 * @BRAGGSCOPE_INTEGRATION_ADAPTIVE: sub-pixels only where the shape
 *   transform's envelope says they change the pixel by more than
 *   [property@Braggscope.Simulation:tolerance] times the frame's brightest
 *   pixel; it converges to the image nanoBragg approaches as its oversampling
 *   grows (docs/adaptive-integration.md)
 *
 * How a pixel's lattice factor is integrated over its area
 * (`-integration exact|adaptive`).  The simulation's full frames are adaptive
 * by default; its previews stay exact, one oversampled pixel per block, as
 * cheap as before.  Adaptive integration runs on the CPU's fast
 * kernels; `-precision exact`, `-curved_det` and
 * `-oversample_thick/polar/omega` keep the exact method (the frame's plan
 * info says which ran).
 *
 * Since: 0.1
 */
typedef enum
{
  BRAGGSCOPE_INTEGRATION_EXACT,
  BRAGGSCOPE_INTEGRATION_ADAPTIVE,
} BraggscopeIntegration;

/**
 * BraggscopeFrame:
 *
 * One rendered detector image and how it was made: the pixels (photons per
 * pixel, 32-bit floats, fast index first), the geometry it was rendered with
 * for pixel queries, the parameters as nanoBragg flags, and timings.
 *
 * A [class@Braggscope.Simulation] delivers frames with
 * [signal@Braggscope.Simulation::frame-ready]: previews while parameters
 * change ([property@Braggscope.Frame:is-preview]), then the full frame.  A
 * frame is immutable: made on the simulation's worker thread, it may be read
 * from any thread, and it keeps its pixels as long as a reference to it, or
 * to the [struct@GLib.Bytes] of [method@Braggscope.Frame.get_bytes], lives
 * (the buffer then returns to the simulation's pool).
 *
 * Since: 0.1
 */
#define BRAGGSCOPE_TYPE_FRAME (braggscope_frame_get_type ())

BRAGGSCOPE_EXPORT
G_DECLARE_FINAL_TYPE (BraggscopeFrame, braggscope_frame, BRAGGSCOPE, FRAME, GObject)

BRAGGSCOPE_EXPORT
int braggscope_frame_get_width (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
int braggscope_frame_get_height (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
gboolean braggscope_frame_get_is_preview (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
guint64 braggscope_frame_get_sequence (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
double braggscope_frame_get_queue_ms (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
double braggscope_frame_get_execute_ms (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
double braggscope_frame_get_total_ms (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
const char *braggscope_frame_get_backend (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
const char *const *braggscope_frame_get_warnings (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
int braggscope_frame_get_cache_hits (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
int braggscope_frame_get_cache_rebuilds (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
float braggscope_frame_get_max_value (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
void braggscope_frame_get_auto_window (BraggscopeFrame *self, double *low, double *high);
BRAGGSCOPE_EXPORT
int braggscope_frame_get_oversample (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
gboolean braggscope_frame_get_oversample_auto (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
BraggscopeIntegration braggscope_frame_get_integration (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
double braggscope_frame_get_samples_per_pixel (BraggscopeFrame *self);

BRAGGSCOPE_EXPORT
const float *braggscope_frame_get_data (BraggscopeFrame *self, gsize *n_pixels);
BRAGGSCOPE_EXPORT
GBytes *braggscope_frame_get_bytes (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
char **braggscope_frame_get_args (BraggscopeFrame *self);
BRAGGSCOPE_EXPORT
BraggscopeGeometry *braggscope_frame_get_geometry (BraggscopeFrame *self);

BRAGGSCOPE_EXPORT
const float *
braggscope_frame_get_panel_data (BraggscopeFrame *self, int panel, int *width, int *height);
BRAGGSCOPE_EXPORT
BraggscopeFrame *braggscope_frame_project (BraggscopeFrame *self);

BRAGGSCOPE_EXPORT
gboolean braggscope_frame_save_float (BraggscopeFrame *self, const char *path, GError **error);
BRAGGSCOPE_EXPORT
gboolean braggscope_frame_save_smv (BraggscopeFrame *self, const char *path, GError **error);

G_END_DECLS
