/* braggscope-simulation.h: a live diffraction simulation on a worker thread. */
#pragma once

#include "braggscope-export.h"

#include <glib-object.h>

#include "braggscope-frame.h"

G_BEGIN_DECLS

/**
 * BraggscopeShape:
 * @BRAGGSCOPE_SHAPE_SQUARE: parallelepiped crystal: spots are products of
 *   grating (sincg) functions (nanoBragg's default, `-square_xtal`)
 * @BRAGGSCOPE_SHAPE_ROUND: spherical crystal: sinc3 spots (`-round_xtal`)
 * @BRAGGSCOPE_SHAPE_GAUSS: Gaussian spots (`-gauss_xtal`)
 * @BRAGGSCOPE_SHAPE_TOPHAT: flat-top spots (`-tophat_spots`)
 *
 * The crystal shape transform. *
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
 * The detector convention: axes, beam centre and pivot. *
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
 * The arithmetic of the kernel (`-precision single|double|exact`). *
 * Since: 0.1
 */
typedef enum
{
  BRAGGSCOPE_PRECISION_SINGLE,
  BRAGGSCOPE_PRECISION_DOUBLE,
  BRAGGSCOPE_PRECISION_EXACT,
} BraggscopePrecision;

/**
 * BraggscopeSimulation:
 *
 * A live diffraction simulation: nanoBragg's parameters as properties, and a
 * worker thread that owns one warm engine plan and renders them.
 *
 * The parameters are properties named after their nanoBragg flags, in the
 * flags' units ([property@Braggscope.Simulation:misset-x] in degrees,
 * [property@Braggscope.Simulation:wavelength] in Å,
 * [property@Braggscope.Simulation:distance] in mm...); any flag can also be
 * applied with [method@Braggscope.Simulation.set_from_args], and
 * [method@Braggscope.Simulation.to_args] gives the `nanobragg` command line
 * that reproduces the current set.
 *
 * Rendering starts with [method@Braggscope.Simulation.render] (at once for
 * [ctor@Braggscope.Simulation.new_default_scene]); from then on every
 * accepted change renders.  Changes are coalesced (the newest wins), a newer
 * change cancels a full frame in flight, each change gets a coarse preview
 * (one simulated pixel per
 * [property@Braggscope.Simulation:preview-stride]² block) and then, once
 * changes stop, the full frame.  Frames arrive as
 * [signal@Braggscope.Simulation::frame-ready], never older than one already
 * delivered.
 *
 * Threads: the simulation belongs to the thread-default main context it was
 * created in: set its properties there, and its signals are emitted there.
 * Frames may be read from any thread.
 *
 * Errors: a value the engine rejects is reported at once as
 * [signal@Braggscope.Simulation::error] (%BRAGGSCOPE_ERROR_INVALID) and the
 * property keeps its value; a file it cannot read is reported when rendering,
 * and frames keep showing the last parameters it accepted.
 *
 * Since: 0.1
 */
#define BRAGGSCOPE_TYPE_SIMULATION (braggscope_simulation_get_type ())

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
char **braggscope_simulation_to_args (BraggscopeSimulation *self);
BRAGGSCOPE_EXPORT
char *braggscope_simulation_to_command_line (BraggscopeSimulation *self);

BRAGGSCOPE_EXPORT
void braggscope_simulation_render (BraggscopeSimulation *self);
BRAGGSCOPE_EXPORT
BraggscopeFrame *braggscope_simulation_get_last_frame (BraggscopeSimulation *self);
BRAGGSCOPE_EXPORT
gboolean braggscope_simulation_get_busy (BraggscopeSimulation *self);
BRAGGSCOPE_EXPORT
guint64 braggscope_simulation_get_sequence (BraggscopeSimulation *self);

G_END_DECLS
