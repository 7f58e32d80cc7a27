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
 * The crystal shape transform.
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
 */
typedef enum
{
  BRAGGSCOPE_PRECISION_SINGLE,
  BRAGGSCOPE_PRECISION_DOUBLE,
  BRAGGSCOPE_PRECISION_EXACT,
} BraggscopePrecision;

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
