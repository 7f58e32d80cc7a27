/* braggscope-private.h: what the files of libbraggscope share and hosts never see.
 *
 * The only header of the library that includes the engine's: the public
 * headers keep nb_* types out of the API and the GIR.
 */
#pragma once

#include <glib-object.h>

#include "nanobragg.h"

#include "braggscope-error.h"
#include "braggscope-frame.h"
#include "braggscope-geometry.h"
#include "braggscope-simulation.h"

G_BEGIN_DECLS

/* errors */
BraggscopeError _braggscope_error_code (int status);
GError *_braggscope_error_from_nb (const nb_error *err);
void _braggscope_propagate_nb (GError **error, const nb_error *err);

/* geometry */
BraggscopeGeometry *_braggscope_geometry_new_take (nb_geometry *geom);
nb_geometry *_braggscope_geometry_peek (BraggscopeGeometry *self);

/* the pool of frame buffers (thread-safe) */
typedef struct _BraggscopeFramePool BraggscopeFramePool;

BraggscopeFramePool *_braggscope_frame_pool_new (void);
BraggscopeFramePool *_braggscope_frame_pool_ref (BraggscopeFramePool *pool);
void _braggscope_frame_pool_unref (BraggscopeFramePool *pool);
float *_braggscope_frame_pool_acquire (BraggscopeFramePool *pool, gsize n_floats);
void _braggscope_frame_pool_release (BraggscopeFramePool *pool, float *buffer, gsize n_floats);
guint _braggscope_frame_pool_get_allocated (BraggscopeFramePool *pool);

/* a reference-counted, immutable string vector */
typedef struct _BraggscopeArgs BraggscopeArgs;

BraggscopeArgs *_braggscope_args_new_take (char **args);
BraggscopeArgs *_braggscope_args_ref (BraggscopeArgs *self);
void _braggscope_args_unref (BraggscopeArgs *self);
char **_braggscope_args_peek (BraggscopeArgs *self);

typedef struct
{
  BraggscopeFramePool *pool;
  float *data; /* taken over; from @pool */
  int width, height;
  gboolean is_preview;
  guint64 sequence;
  double queue_ms, execute_ms, total_ms;
  const char *backend; /* static */
  int cache_hits, cache_rebuilds;
  float max_value;
  BraggscopeArgs *args;
  BraggscopeGeometry *geometry;
} BraggscopeFrameInit;

BraggscopeFrame *_braggscope_frame_new (const BraggscopeFrameInit *init);

/* simulation: parameters from a full argv (argv[0] the program name) on top of
 * nanoBragg's defaults; image buffers its worker allocated */
gboolean _braggscope_simulation_restore_args (BraggscopeSimulation *self,
                                              const char *const *args,
                                              GError **error);
guint _braggscope_simulation_get_buffers_allocated (BraggscopeSimulation *self);

/* nb_params_to_argv as a GStrv */
char **_braggscope_params_to_strv (const nb_params *params);

G_END_DECLS
