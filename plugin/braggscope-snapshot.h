/* braggscope-snapshot.h: PNG snapshots that remember their parameters. */
#pragma once

#include "braggscope-export.h"

#include <glib.h>

#include "braggscope-simulation.h"

G_BEGIN_DECLS

BRAGGSCOPE_EXPORT
gboolean braggscope_snapshot_save (const char *path,
                                   const guint8 *rgba,
                                   int width,
                                   int height,
                                   BraggscopeSimulation *sim,
                                   GError **error);

BRAGGSCOPE_EXPORT
gboolean braggscope_snapshot_save_bytes (const char *path,
                                         GBytes *rgba,
                                         int width,
                                         int height,
                                         BraggscopeSimulation *sim,
                                         GError **error);

BRAGGSCOPE_EXPORT
char **braggscope_snapshot_load_args (const char *path, GError **error);
BRAGGSCOPE_EXPORT
char **braggscope_snapshot_restore_args (const char *path, GError **error);

BRAGGSCOPE_EXPORT
gboolean
braggscope_simulation_load_snapshot (BraggscopeSimulation *self, const char *path, GError **error);

G_END_DECLS
