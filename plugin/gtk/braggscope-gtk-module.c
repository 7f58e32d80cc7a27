/* braggscope-gtk-module.c: the GModule entry point of the widget library.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope-gtk-export.h"
#include "braggscope-gtk-module.h"
#include "braggscope-gtk.h"

#include <gmodule.h>

/* The widgets' GTypes cannot be unregistered: once loaded, the library stays. */
G_MODULE_EXPORT const char *g_module_check_init (GModule *module);

const char *
g_module_check_init (GModule *module)
{
  g_module_make_resident (module);
  return NULL;
}

static GtkWidget *
view_new (GObject *simulation)
{
  return braggscope_view_new (BRAGGSCOPE_SIMULATION (simulation));
}

static GtkWidget *
controls_new (GObject *simulation)
{
  return braggscope_controls_new (BRAGGSCOPE_SIMULATION (simulation));
}

static GtkWidget *
readout_new (GtkWidget *view)
{
  return braggscope_readout_new (view != NULL ? BRAGGSCOPE_VIEW (view) : NULL);
}

static gboolean
view_frame_to_widget (GtkWidget *view, double frame_x, double frame_y, double *x, double *y)
{
  return braggscope_view_frame_to_widget (BRAGGSCOPE_VIEW (view), frame_x, frame_y, x, y);
}

static void
view_set_readout_point (GtkWidget *view, double x, double y)
{
  braggscope_view_set_readout_point (BRAGGSCOPE_VIEW (view), x, y);
}

static gpointer
make_table (gpointer data)
{
  static BraggscopeGtkPluginApi api = {
    .api_version = BRAGGSCOPE_GTK_PLUGIN_API_VERSION,
    .version = BRAGGSCOPE_GTK_VERSION,
    .view_new = view_new,
    .controls_new = controls_new,
    .readout_new = readout_new,
    .view_frame_to_widget = view_frame_to_widget,
    .view_set_readout_point = view_set_readout_point,
  };

  api.core = braggscope_plugin_init (BRAGGSCOPE_PLUGIN_API_VERSION);
  return api.core != NULL ? &api : NULL;
}

/* braggscope_gtk_plugin_init: the table of braggscope-gtk-module.h (static,
 * never freed), or NULL for an @api_version this library does not provide. */
const BraggscopeGtkPluginApi *
braggscope_gtk_plugin_init (guint api_version)
{
  static GOnce once = G_ONCE_INIT;

  if (api_version != BRAGGSCOPE_GTK_PLUGIN_API_VERSION)
    return NULL;
  return g_once (&once, make_table, NULL);
}
