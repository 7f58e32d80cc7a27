/* braggscope-simulation.h: a live diffraction simulation on a worker thread. */
#pragma once

#include "braggscope-export.h"

#include <gio/gio.h>

#include "braggscope-frame.h"
#include "braggscope-measured.h"

G_BEGIN_DECLS

/**
 * BraggscopeShape:
 * @BRAGGSCOPE_SHAPE_SQUARE: parallelepiped crystal: spots are products of
 *   grating (sincg) functions (nanoBragg's default, `-square_xtal`)
 * @BRAGGSCOPE_SHAPE_ROUND: spherical crystal: sinc3 spots (`-round_xtal`)
 * @BRAGGSCOPE_SHAPE_GAUSS: Gaussian spots (`-gauss_xtal`)
 * @BRAGGSCOPE_SHAPE_TOPHAT: flat-top spots (`-tophat_spots`)
 *
 * The crystal shape transform.
 *
 * Since: 0.1
 */
typedef enum
{
  BRAGGSCOPE_SHAPE_SQUARE,
  BRAGGSCOPE_SHAPE_ROUND,
  BRAGGSCOPE_SHAPE_GAUSS,
  BRAGGSCOPE_SHAPE_TOPHAT,
} BraggscopeShape;

/**
 * BraggscopeConvention:
 * @BRAGGSCOPE_CONVENTION_CUSTOM: the detector vectors as given
 * @BRAGGSCOPE_CONVENTION_ADXV: ADXV's frame (`-adxv`)
 * @BRAGGSCOPE_CONVENTION_MOSFLM: MOSFLM's frame, nanoBragg's default (`-mosflm`)
 * @BRAGGSCOPE_CONVENTION_XDS: XDS's frame, pivot about the sample (`-xds`)
 * @BRAGGSCOPE_CONVENTION_DIALS: DIALS's frame (`-dials`)
 * @BRAGGSCOPE_CONVENTION_DENZO: DENZO's frame (`-denzo`)
 *
 * The detector convention: axes, beam centre and pivot.
 *
 * Since: 0.1
 */
typedef enum
{
  BRAGGSCOPE_CONVENTION_CUSTOM,
  BRAGGSCOPE_CONVENTION_ADXV,
  BRAGGSCOPE_CONVENTION_MOSFLM,
  BRAGGSCOPE_CONVENTION_XDS,
  BRAGGSCOPE_CONVENTION_DIALS,
  BRAGGSCOPE_CONVENTION_DENZO,
} BraggscopeConvention;

/**
 * BraggscopePrecision:
 * @BRAGGSCOPE_PRECISION_SINGLE: single-precision vectorised kernel (fast)
 * @BRAGGSCOPE_PRECISION_DOUBLE: the fast kernel in double precision
 * @BRAGGSCOPE_PRECISION_EXACT: nanoBragg's own arithmetic and loop order, bit
 *   for bit (slowest)
 *
 * The arithmetic of the kernel (`-precision single|double|exact`).
 *
 * Since: 0.1
 */
typedef enum
{
  BRAGGSCOPE_PRECISION_SINGLE,
  BRAGGSCOPE_PRECISION_DOUBLE,
  BRAGGSCOPE_PRECISION_EXACT,
} BraggscopePrecision;

/**
 * BraggscopeBackend:
 * @BRAGGSCOPE_BACKEND_AUTO: CUDA when a device is there and the scene suits
 *   it, else the CPU (the frame's `backend` says which ran, and why)
 * @BRAGGSCOPE_BACKEND_CPU: the CPU kernels (OpenMP)
 * @BRAGGSCOPE_BACKEND_CUDA: the CUDA kernels; refused
 *   (`BRAGGSCOPE_ERROR_UNSUPPORTED`) by a build or a machine without them
 *
 * Where the image is computed (`-backend auto|cpu|cuda`).
 *
 * Since: 0.1
 */
typedef enum
{
  BRAGGSCOPE_BACKEND_AUTO,
  BRAGGSCOPE_BACKEND_CPU,
  BRAGGSCOPE_BACKEND_CUDA,
} BraggscopeBackend;

/**
 * BraggscopeFitFlags:
 * @BRAGGSCOPE_FIT_ORIENTATION: the crystal's orientation only (misset)
 * @BRAGGSCOPE_FIT_DISTANCE: also the detector distance (within 5 %)
 * @BRAGGSCOPE_FIT_BEAM_CENTER: also the beam centre (within 20 pixels)
 *
 * What [method@Braggscope.Simulation.refine_async] and
 * [method@Braggscope.Simulation.search_orientation_async] adjust besides the
 * orientation, which they always adjust.  With a multi-panel detector (a
 * `-detector` model) the panels move as one rigid body: the distance along
 * the beam, the beam centre across it, and with both flags the detector's
 * turn across the beam; the motion is left in the parameters'
 * `-detector_shift` and `-detector_rotation` (the geometry file is not
 * changed), applied as one change.
 *
 * Since: 0.1
 */
typedef enum
{
  BRAGGSCOPE_FIT_ORIENTATION = 0,
  BRAGGSCOPE_FIT_DISTANCE = 1 << 0,
  BRAGGSCOPE_FIT_BEAM_CENTER = 1 << 1,
} BraggscopeFitFlags;

/**
 * BraggscopeSimulation:
 *
 * A live diffraction simulation: nanoBragg's parameters as properties, and a
 * worker thread that owns one warm engine plan and renders them.
 *
 * ## Parameters
 *
 * The parameters are properties, one per nanoBragg flag a host edits, made
 * from the engine's parameter table.  Each is in its flag's unit
 * ([property@Braggscope.Simulation:misset-x] in degrees,
 * [property@Braggscope.Simulation:wavelength] in Å,
 * [property@Braggscope.Simulation:distance] in mm, [property@Braggscope.Simulation:energy]
 * in keV...; each property's page names its flag, unit and range), and has
 * its flag's side effects: setting [property@Braggscope.Simulation:distance]
 * pivots the detector about the beam spot, as `-distance` does,
 * [property@Braggscope.Simulation:polarization] clears `-nopolar`, and so on.
 * A property's nick is a short label for a control and its blurb says what it
 * is, with its unit.
 *
 * Some parameters have an "automatic" value, which the property reads as the
 * flag spells it: [property@Braggscope.Simulation:mosaic-domains] reads -1
 * and [property@Braggscope.Simulation:oversample] 0 while nanoBragg chooses.
 * [property@Braggscope.Simulation:beam-center-x] and
 * [property@Braggscope.Simulation:beam-center-y], while none is given, read
 * NaN until the first frame arrives, then the centre (mm) the engine derived
 * from the convention for the last frame; setting NaN gives the choice back
 * to the convention.
 *
 * [property@Braggscope.Simulation:structure-factors] names a file of
 * structure factors (HKL text, MTZ, mmCIF `-sf.cif`) or an atomic model to
 * compute them from (PDB, mmCIF, gzip or plain; `-model`), told apart by
 * the file's first bytes.  A model (or `-sf.cif` file) set without a cell
 * lends the crystal its own: setting the property to one clears the cell
 * (unless `-mat` gives it), so that the `cell-*` properties, such as
 * [property@Braggscope.Simulation:cell-a], read the model's cell once its
 * frame arrives, [property@Braggscope.Simulation:structure-factors-note]
 * says so, and setting one edge or angle keeps the model's others; another
 * file keeps the cell the crystal has.  [method@Braggscope.Simulation.set_from_args]
 * does the same unless its flags give `-cell` or `-mat`.  A cell that cannot
 * be the model's is said in [property@Braggscope.Simulation:hkl-cell-warning].
 *
 * Any flag can also be applied with
 * [method@Braggscope.Simulation.set_from_args], and
 * [method@Braggscope.Simulation.to_args] gives the `nanobragg` command line
 * that reproduces the current parameters; `nanobragg --help` lists every
 * flag.
 *
 * ## Rendering
 *
 * Rendering starts with [method@Braggscope.Simulation.render] (at once for
 * [ctor@Braggscope.Simulation.new_default_scene]); from then on every
 * accepted change renders.  Changes are coalesced (the newest wins), a newer
 * change cancels a full frame in flight, each change gets a coarse preview
 * (one simulated pixel per
 * [property@Braggscope.Simulation:preview-stride]² block) and then, once
 * changes stop, the full frame.  Frames arrive as
 * [signal@Braggscope.Simulation::frame-ready], never older than one already
 * delivered; [property@Braggscope.Simulation:busy] is %TRUE while a full
 * frame is owed.
 *
 * A script waits for a frame with [method@Braggscope.Simulation.render_frame]
 * (or its async form): the full frame of the current parameters, at once when
 * it is the last delivered, a render error raised.  In
 * [property@Braggscope.Simulation:batch] mode every change gets its own full
 * frame, in order, without previews.
 *
 * ## Threads
 *
 * The simulation belongs to the thread-default [struct@GLib.MainContext] of
 * the thread that created it (the main thread's global default context for a
 * GTK host): set its properties and call its methods on that thread.  Its
 * signals and property notifications are emitted on that context, so that
 * context must be running for frames to arrive.  The engine runs on one
 * worker thread per simulation, started by the first render request and
 * joined when the simulation is disposed.  [class@Braggscope.Frame]s are
 * immutable and may be read from any thread.
 *
 * ## Errors
 *
 * A value the engine rejects is reported at once, before the setter
 * returns, as [signal@Braggscope.Simulation::error]
 * (`BRAGGSCOPE_ERROR_INVALID`, or `BRAGGSCOPE_ERROR_IO` for a file name that
 * names no readable file), with the property's name before the engine's
 * message; the property keeps its value and no frame is requested.  What
 * only rendering finds out arrives later through the same signal, on the
 * simulation's context: an input file (structure factors, `-mat`,
 * `-sourcefile`, `-mask`...) that cannot be read (`BRAGGSCOPE_ERROR_IO`) or
 * parsed (`BRAGGSCOPE_ERROR_PARSE`), parameters
 * that need more memory than the plan may take (`BRAGGSCOPE_ERROR_NOMEM`),
 * `-backend cuda` without a usable GPU (`BRAGGSCOPE_ERROR_UNSUPPORTED`), a
 * scene the engine cannot render, such as one without a unit cell or without
 * structure factors (`BRAGGSCOPE_ERROR_INVALID`); the frames then keep
 * showing the last parameters the engine rendered.
 *
 * Since: 0.1
 */
#define BRAGGSCOPE_TYPE_SIMULATION      (braggscope_simulation_get_type ())
#define BRAGGSCOPE_TYPE_RENDER_PROGRESS (braggscope_render_progress_get_type ())

/**
 * BraggscopeRenderProgress:
 * @sequence: the change the frame answers
 *   ([method@Braggscope.Simulation.get_sequence])
 * @fraction: the part of the frame rendered, 0 to 1
 * @elapsed: seconds since the frame started rendering
 * @remaining: seconds still to go, estimated: at the start from the rate
 *   this simulation measured on its earlier frames, then from the frame's
 *   own progress; NaN while unknown
 * @estimate: @elapsed + @remaining, the frame's expected time in seconds;
 *   NaN while unknown
 * @width: the frame's width in pixels
 * @height: the frame's height in pixels
 * @oversample: sub-pixels per pixel along each axis (the frame takes
 *   @oversample² samples per pixel)
 * @sources: beam sources (divergence and dispersion steps)
 * @mosaic_domains: mosaic domains the frame renders (the arc rule,
 *   [property@Braggscope.Simulation:max-arc-domains], may have raised them)
 * @phi_steps: φ steps
 * @cells: unit cells along a (nanoBragg's `-Na`)
 *
 * Where a full frame stands while it renders: the cost of a frame is its
 * pixels times @oversample² times @sources times @mosaic_domains times
 * @phi_steps samples, which the engine renders at a rate the simulation
 * measures from the frames it rendered before.  The argument of
 * [signal@Braggscope.Simulation::render-progress].
 *
 * Since: 0.1
 */
typedef struct
{
  guint64 sequence;
  double fraction;
  double elapsed;
  double remaining;
  double estimate;
  int width, height;
  int oversample;
  int sources, mosaic_domains, phi_steps;
  double cells;
} BraggscopeRenderProgress;

BRAGGSCOPE_EXPORT
GType braggscope_render_progress_get_type (void) G_GNUC_CONST;
BRAGGSCOPE_EXPORT
BraggscopeRenderProgress *
braggscope_render_progress_copy (const BraggscopeRenderProgress *progress);
BRAGGSCOPE_EXPORT
void braggscope_render_progress_free (BraggscopeRenderProgress *progress);

BRAGGSCOPE_EXPORT
G_DECLARE_FINAL_TYPE (BraggscopeSimulation, braggscope_simulation, BRAGGSCOPE, SIMULATION, GObject)

BRAGGSCOPE_EXPORT
BraggscopeSimulation *braggscope_simulation_new (void);
BRAGGSCOPE_EXPORT
BraggscopeSimulation *braggscope_simulation_new_default_scene (GError **error);

BRAGGSCOPE_EXPORT
gboolean braggscope_simulation_set_from_args (BraggscopeSimulation *self,
                                              const char *const *args,
                                              GError **error);
BRAGGSCOPE_EXPORT
gboolean braggscope_simulation_set_scene_from_args (BraggscopeSimulation *self,
                                                    const char *const *args,
                                                    const char *source,
                                                    GError **error);
BRAGGSCOPE_EXPORT
char **braggscope_scene_args_drop_outputs (const char *const *args, char **dropped);
BRAGGSCOPE_EXPORT
gboolean braggscope_simulation_set_value (BraggscopeSimulation *self,
                                          const char *name,
                                          const GValue *value,
                                          GError **error);
BRAGGSCOPE_EXPORT
gboolean braggscope_simulation_get_slider_hint (const char *property,
                                                double *lower,
                                                double *upper,
                                                double *step,
                                                int *digits,
                                                const char **unit);
BRAGGSCOPE_EXPORT
char **braggscope_simulation_to_args (BraggscopeSimulation *self);
BRAGGSCOPE_EXPORT
char *braggscope_simulation_to_command_line (BraggscopeSimulation *self);

BRAGGSCOPE_EXPORT
void braggscope_simulation_render (BraggscopeSimulation *self);
BRAGGSCOPE_EXPORT
BraggscopeFrame *braggscope_simulation_render_frame (BraggscopeSimulation *self,
                                                     GCancellable *cancellable,
                                                     GError **error);
BRAGGSCOPE_EXPORT
void braggscope_simulation_render_frame_async (BraggscopeSimulation *self,
                                               GCancellable *cancellable,
                                               GAsyncReadyCallback callback,
                                               gpointer user_data);
BRAGGSCOPE_EXPORT
BraggscopeFrame *braggscope_simulation_render_frame_finish (BraggscopeSimulation *self,
                                                            GAsyncResult *result,
                                                            GError **error);
BRAGGSCOPE_EXPORT
BraggscopeFrame *braggscope_simulation_get_last_frame (BraggscopeSimulation *self);
BRAGGSCOPE_EXPORT
gboolean braggscope_simulation_get_busy (BraggscopeSimulation *self);
BRAGGSCOPE_EXPORT
guint64 braggscope_simulation_get_sequence (BraggscopeSimulation *self);

BRAGGSCOPE_EXPORT
gboolean braggscope_simulation_adopt_geometry (BraggscopeSimulation *self,
                                               BraggscopeMeasuredFrame *frame,
                                               GError **error);
BRAGGSCOPE_EXPORT
BraggscopeMeasuredFrame *braggscope_simulation_get_measured_frame (BraggscopeSimulation *self);
BRAGGSCOPE_EXPORT
void braggscope_simulation_set_measured_frame (BraggscopeSimulation *self,
                                               BraggscopeMeasuredFrame *frame);
BRAGGSCOPE_EXPORT
gboolean braggscope_simulation_get_match_shell (
    BraggscopeSimulation *self, int shell, double *d_max, double *d_min, double *correlation);
BRAGGSCOPE_EXPORT
void braggscope_simulation_refine_async (BraggscopeSimulation *self,
                                         BraggscopeFitFlags flags,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data);
BRAGGSCOPE_EXPORT
gboolean braggscope_simulation_refine_finish (BraggscopeSimulation *self,
                                              GAsyncResult *result,
                                              GError **error);
BRAGGSCOPE_EXPORT
gboolean braggscope_simulation_get_detector_motion (BraggscopeSimulation *self,
                                                    double *shift,
                                                    double *rotation);
BRAGGSCOPE_EXPORT
void braggscope_simulation_search_orientation_async (BraggscopeSimulation *self,
                                                     BraggscopeFitFlags flags,
                                                     GCancellable *cancellable,
                                                     GAsyncReadyCallback callback,
                                                     gpointer user_data);
BRAGGSCOPE_EXPORT
gboolean braggscope_simulation_search_orientation_finish (BraggscopeSimulation *self,
                                                          GAsyncResult *result,
                                                          GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (BraggscopeRenderProgress, braggscope_render_progress_free)

G_END_DECLS
