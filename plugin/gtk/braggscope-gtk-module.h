/* braggscope-gtk-module.h: loading libbraggscope-gtk at run time, without
 * linking to it.
 *
 * The widget library's counterpart of braggscope-module.h, for GTK hosts that
 * load plugins with GModule.  One g_module_open() of libbraggscope-gtk-1.so
 * (which loads libbraggscope-1.so with it) and one symbol give both tables:
 *
 *   GModule *module = g_module_open (path_to_libbraggscope_gtk, G_MODULE_BIND_LOCAL);
 *   BraggscopeGtkPluginInitFunc init;
 *   g_module_symbol (module, BRAGGSCOPE_GTK_PLUGIN_INIT_SYMBOL, (gpointer *) &init);
 *   const BraggscopeGtkPluginApi *gtk_api = init (BRAGGSCOPE_GTK_PLUGIN_API_VERSION);
 *   GObject *sim = gtk_api->core->simulation_new_default_scene (&error);
 *   GtkWidget *view = gtk_api->view_new (sim);
 *   GtkWidget *controls = gtk_api->controls_new (sim);
 *   GtkWidget *readout = gtk_api->readout_new (view);
 *
 * Everything else goes through GObject: the widgets' properties ("colormap",
 * "show-rings", "orientation"...) with g_object_set(), their signals with
 * g_signal_connect().  The library makes itself resident when loaded.
 *
 * This header is not part of the GObject Introspection data.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gtk/gtk.h>

#include "braggscope-gtk-export.h"
#include "braggscope-module.h"

G_BEGIN_DECLS

/* The table's layout version, as BRAGGSCOPE_PLUGIN_API_VERSION. */
#define BRAGGSCOPE_GTK_PLUGIN_API_VERSION 1
#define BRAGGSCOPE_GTK_PLUGIN_INIT_SYMBOL "braggscope_gtk_plugin_init"

typedef struct
{
  guint api_version;               /* BRAGGSCOPE_GTK_PLUGIN_API_VERSION of the plugin */
  const char *version;             /* the library's version, "0.1.0" */
  const BraggscopePluginApi *core; /* libbraggscope's table, BRAGGSCOPE_PLUGIN_API_VERSION */

  /* the widgets (BraggscopeView, BraggscopeControls, BraggscopeReadout), floating */
  GtkWidget *(*view_new) (GObject *simulation);
  GtkWidget *(*controls_new) (GObject *simulation);
  GtkWidget *(*readout_new) (GtkWidget *view);

  /* the view's readout point, for hosts that move it themselves */
  gboolean (*view_frame_to_widget) (
      GtkWidget *view, double frame_x, double frame_y, double *x, double *y);
  void (*view_set_readout_point) (GtkWidget *view, double x, double y);
} BraggscopeGtkPluginApi;

typedef const BraggscopeGtkPluginApi *(*BraggscopeGtkPluginInitFunc) (guint api_version);

BRAGGSCOPE_GTK_EXPORT
const BraggscopeGtkPluginApi *braggscope_gtk_plugin_init (guint api_version);

G_END_DECLS
