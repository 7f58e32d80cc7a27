/* braggscope-module.h: loading libbraggscope at run time, without linking to it.
 *
 * A C host that loads plugins with GModule finds one entry point,
 * braggscope_plugin_init(), and gets a table of the functions it needs; every
 * other interaction goes through GObject (properties, signals), which the host
 * links anyway:
 *
 *   GModule *module = g_module_open (path_to_libbraggscope, G_MODULE_BIND_LOCAL);
 *   BraggscopePluginInitFunc init;
 *   g_module_symbol (module, BRAGGSCOPE_PLUGIN_INIT_SYMBOL, (gpointer *) &init);
 *   const BraggscopePluginApi *api = init (BRAGGSCOPE_PLUGIN_API_VERSION);
 *   GObject *sim = api->simulation_new_default_scene (&error);
 *   g_signal_connect (sim, "frame-ready", G_CALLBACK (on_frame), NULL);
 *   g_object_set (sim, "misset-x", 12.5, NULL);
 *
 * The library makes itself resident when loaded (its GTypes cannot be
 * unregistered), so g_module_close() does not unload it.
 *
 * This header is not part of the GObject Introspection data: bindings link
 * the library through the typelib instead.
 */
#pragma once

#include "braggscope-export.h"

#include <glib-object.h>

G_BEGIN_DECLS

/* The table's layout version: a host passes the one it was built with; the
 * plugin returns NULL for a version it does not provide.  New functions are
 * added at the end and raise the version. */
#define BRAGGSCOPE_PLUGIN_API_VERSION 1
#define BRAGGSCOPE_PLUGIN_INIT_SYMBOL "braggscope_plugin_init"

typedef struct
{
  guint api_version;   /* BRAGGSCOPE_PLUGIN_API_VERSION of the plugin */
  const char *version; /* the library's version, "0.1.0" */

  /* the simulation (a BraggscopeSimulation; properties and signals through GObject) */
  GObject *(*simulation_new) (void);
  GObject *(*simulation_new_default_scene) (GError **error);
  gboolean (*simulation_set_from_args) (GObject *sim, const char *const *args, GError **error);
  char **(*simulation_to_args) (GObject *sim);
  char *(*simulation_to_command_line) (GObject *sim);
  void (*simulation_render) (GObject *sim);
  GObject *(*simulation_get_last_frame) (GObject *sim);

  /* frames (BraggscopeFrame; width, height, is-preview... are properties) */
  const float *(*frame_get_data) (GObject *frame, gsize *n_pixels);
  char **(*frame_get_args) (GObject *frame);

  /* snapshots */
  gboolean (*snapshot_save) (
      const char *path, const guint8 *rgba, int width, int height, GObject *sim, GError **error);
  gboolean (*simulation_load_snapshot) (GObject *sim, const char *path, GError **error);
} BraggscopePluginApi;

typedef const BraggscopePluginApi *(*BraggscopePluginInitFunc) (guint api_version);

BRAGGSCOPE_EXPORT
const BraggscopePluginApi *braggscope_plugin_init (guint api_version);

G_END_DECLS
