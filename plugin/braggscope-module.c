/* braggscope-module.c: the GModule entry point for hosts that load the plugin at run time. */
#include "braggscope-module.h"
#include "braggscope.h"

#include <gmodule.h>

/* The GTypes the library registers cannot be unregistered: once loaded, it stays. */
G_MODULE_EXPORT const char *g_module_check_init (GModule *module);

const char *
g_module_check_init (GModule *module)
{
  g_module_make_resident (module);
  return NULL;
}

static GObject *
simulation_new (void)
{
  return G_OBJECT (braggscope_simulation_new ());
}

static GObject *
simulation_new_default_scene (GError **error)
{
  return G_OBJECT (braggscope_simulation_new_default_scene (error));
}

static gboolean
simulation_set_from_args (GObject *sim, const char *const *args, GError **error)
{
  return braggscope_simulation_set_from_args (BRAGGSCOPE_SIMULATION (sim), args, error);
}

static char **
simulation_to_args (GObject *sim)
{
  return braggscope_simulation_to_args (BRAGGSCOPE_SIMULATION (sim));
}

static char *
simulation_to_command_line (GObject *sim)
{
  return braggscope_simulation_to_command_line (BRAGGSCOPE_SIMULATION (sim));
}

static void
simulation_render (GObject *sim)
{
  braggscope_simulation_render (BRAGGSCOPE_SIMULATION (sim));
}

static GObject *
simulation_get_last_frame (GObject *sim)
{
  return (GObject *) braggscope_simulation_get_last_frame (BRAGGSCOPE_SIMULATION (sim));
}

static const float *
frame_get_data (GObject *frame, gsize *n_pixels)
{
  return braggscope_frame_get_data (BRAGGSCOPE_FRAME (frame), n_pixels);
}

static char **
frame_get_args (GObject *frame)
{
  return braggscope_frame_get_args (BRAGGSCOPE_FRAME (frame));
}

static gboolean
snapshot_save (
    const char *path, const guint8 *rgba, int width, int height, GObject *sim, GError **error)
{
  return braggscope_snapshot_save (path, rgba, width, height,
                                   sim != NULL ? BRAGGSCOPE_SIMULATION (sim) : NULL, error);
}

static gboolean
simulation_load_snapshot (GObject *sim, const char *path, GError **error)
{
  return braggscope_simulation_load_snapshot (BRAGGSCOPE_SIMULATION (sim), path, error);
}

static const BraggscopePluginApi api_v1 = {
  .api_version = BRAGGSCOPE_PLUGIN_API_VERSION,
  .version = BRAGGSCOPE_VERSION,
  .simulation_new = simulation_new,
  .simulation_new_default_scene = simulation_new_default_scene,
  .simulation_set_from_args = simulation_set_from_args,
  .simulation_to_args = simulation_to_args,
  .simulation_to_command_line = simulation_to_command_line,
  .simulation_render = simulation_render,
  .simulation_get_last_frame = simulation_get_last_frame,
  .frame_get_data = frame_get_data,
  .frame_get_args = frame_get_args,
  .snapshot_save = snapshot_save,
  .simulation_load_snapshot = simulation_load_snapshot,
};

/**
 * braggscope_plugin_init: (skip)
 * @api_version: the BRAGGSCOPE_PLUGIN_API_VERSION the host was built with
 *
 * The entry point a host finds with g_module_symbol(): the plugin's function
 * table (see braggscope-module.h).
 *
 * Returns: the table (static, never freed), or %NULL when the plugin does
 *   not provide @api_version
 */
const BraggscopePluginApi *
braggscope_plugin_init (guint api_version)
{
  if (api_version != 1)
    return NULL;
  return &api_v1;
}
