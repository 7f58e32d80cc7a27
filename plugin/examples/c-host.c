/* c-host.c: a GTK 4 program that loads Braggscope at run time, without
 * linking to it, and shows the view, the controls and a readout.
 *
 * It opens the widget library with GModule, takes the function tables from
 * its one entry point (braggscope_gtk_plugin_init, see
 * braggscope-gtk-module.h), creates the default scene (HIV-1 protease, PDB
 * 1HPV), applies the nanoBragg flags given on the command line, and puts the
 * three widgets in a window.  Everything except the tables goes through plain
 * GObject: properties with g_object_set()/g_object_get(), results with
 * g_signal_connect().
 *
 *   braggscope-c-host [--plugin PATH] [--quit-after-frame] [nanoBragg flags...]
 *
 * PATH is libbraggscope-gtk-1.so; it defaults to $BRAGGSCOPE_GTK_PLUGIN, then
 * "libbraggscope-gtk-1.so.0" on the library search path.  With
 * --quit-after-frame the program points the readout at the brightest pixel of
 * the first full frame the view shows, prints it and exits (0 when it worked),
 * so tests can run it.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <gmodule.h>
#include <gtk/gtk.h>

#include "braggscope-gtk-module.h"

typedef struct
{
  const BraggscopeGtkPluginApi *api;
  GObject *sim;
  GtkWidget *window, *view, *readout;
  gboolean quit_after_frame;
  gboolean done;
  int status;
} Host;

static void
host_quit (Host *host, int status)
{
  host->status = status;
  host->done = TRUE;
  g_main_context_wakeup (NULL);
}

static void
on_frame_ready (GObject *sim, GObject *frame, Host *host)
{
  guint64 sequence;
  gboolean preview;
  int width, height;
  float max_value;
  double total_ms;

  g_object_get (frame, "sequence", &sequence, "is-preview", &preview, "width", &width, "height",
                &height, "max-value", &max_value, "total-ms", &total_ms, NULL);
  if (!preview)
    g_print ("frame %" G_GUINT64_FORMAT ": %d x %d, brightest pixel %.4g photons, %.1f ms\n",
             sequence, width, height, max_value, total_ms);
}

static void
on_error (GObject *sim, GError *error, Host *host)
{
  g_printerr ("c-host: %s\n", error->message);
  if (host->quit_after_frame)
    host_quit (host, 1);
}

/* --quit-after-frame: once the view shows the full frame of the current
 * parameters, read the brightest pixel through the readout. */
static gboolean
check_frame_shown (gpointer data)
{
  Host *host = data;
  g_autoptr (GObject) shown = NULL;
  g_autofree char *text = NULL;
  GObject *frame = host->api->core->simulation_get_last_frame (host->sim);
  guint64 sequence, wanted;
  gboolean preview;
  int width;
  gsize n, brightest = 0;
  const float *pixels;
  double x, y;

  if (frame == NULL || !gtk_widget_get_mapped (host->view) ||
      gtk_widget_get_width (host->view) == 0)
    return G_SOURCE_CONTINUE;
  g_object_get (frame, "sequence", &sequence, "is-preview", &preview, "width", &width, NULL);
  g_object_get (host->sim, "sequence", &wanted, NULL);
  g_object_get (host->view, "frame", &shown, NULL);
  if (preview || sequence != wanted || shown != frame)
    return G_SOURCE_CONTINUE;

  pixels = host->api->core->frame_get_data (frame, &n);
  for (gsize i = 1; i < n; i++)
    if (pixels[i] > pixels[brightest])
      brightest = i;
  if (!host->api->view_frame_to_widget (host->view, brightest % width + 0.5,
                                        brightest / width + 0.5, &x, &y))
    return G_SOURCE_CONTINUE;
  host->api->view_set_readout_point (host->view, x, y);
  g_object_get (host->readout, "text", &text, NULL);
  g_print ("readout at the brightest pixel: %s\n", text ? text : "(none)");
  host_quit (host, text != NULL ? 0 : 1);
  return G_SOURCE_REMOVE;
}

static gboolean
on_timeout (gpointer data)
{
  g_printerr ("c-host: no full frame on screen within 60 s\n");
  host_quit (data, 1);
  return G_SOURCE_REMOVE;
}

static gboolean
on_close_request (GtkWindow *window, Host *host)
{
  host_quit (host, 0);
  return FALSE;
}

static void
build_window (Host *host)
{
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *right = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  host->view = host->api->view_new (host->sim);
  host->readout = host->api->readout_new (host->view);
  gtk_widget_set_hexpand (host->view, TRUE);
  gtk_widget_set_vexpand (host->view, TRUE);
  g_object_set (host->view, "show-rings", TRUE, NULL);
  g_object_set (host->readout, "margin-start", 6, "margin-end", 6, "margin-top", 4, "margin-bottom",
                4, NULL);
  gtk_box_append (GTK_BOX (right), host->view);
  gtk_box_append (GTK_BOX (right), host->readout);

  /* the controls at their natural width, scrolled vertically; the view takes the rest */
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_width (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled),
                                 host->api->controls_new (host->sim));
  gtk_paned_set_start_child (GTK_PANED (paned), scrolled);
  gtk_paned_set_end_child (GTK_PANED (paned), right);
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_resize_start_child (GTK_PANED (paned), FALSE);

  host->window = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (host->window), "Braggscope in a C host (GModule)");
  gtk_window_set_default_size (GTK_WINDOW (host->window), 1100, 720);
  gtk_window_set_child (GTK_WINDOW (host->window), paned);
  g_signal_connect (host->window, "close-request", G_CALLBACK (on_close_request), host);
}

int
main (int argc, char **argv)
{
  const char *path = g_getenv ("BRAGGSCOPE_GTK_PLUGIN");
  g_autoptr (GPtrArray) flags = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  BraggscopeGtkPluginInitFunc init = NULL;
  GModule *module;
  Host host = { 0 };

  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "--quit-after-frame"))
      host.quit_after_frame = TRUE;
    else if (g_str_equal (argv[i], "--plugin") && i + 1 < argc)
      path = argv[++i];
    else
      g_ptr_array_add (flags, argv[i]);
  g_ptr_array_add (flags, NULL);
  if (path == NULL)
    path = "libbraggscope-gtk-1.so.0";

  gtk_init ();
  module = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (module == NULL)
    {
      g_printerr ("c-host: %s\n", g_module_error ());
      return 1;
    }
  if (!g_module_symbol (module, BRAGGSCOPE_GTK_PLUGIN_INIT_SYMBOL, (gpointer *) &init) ||
      (host.api = init (BRAGGSCOPE_GTK_PLUGIN_API_VERSION)) == NULL)
    {
      g_printerr ("c-host: %s is not a Braggscope widget plugin of API version %d\n", path,
                  BRAGGSCOPE_GTK_PLUGIN_API_VERSION);
      return 1;
    }
  g_print ("loaded Braggscope %s from %s\n", host.api->version, path);

  host.sim = host.api->core->simulation_new_default_scene (&error);
  if (host.sim == NULL || !host.api->core->simulation_set_from_args (
                              host.sim, (const char *const *) flags->pdata, &error))
    {
      g_printerr ("c-host: %s\n", error->message);
      return 1;
    }
  g_signal_connect (host.sim, "frame-ready", G_CALLBACK (on_frame_ready), &host);
  g_signal_connect (host.sim, "error", G_CALLBACK (on_error), &host);

  build_window (&host);
  gtk_window_present (GTK_WINDOW (host.window));
  if (host.quit_after_frame)
    {
      g_timeout_add (50, check_frame_shown, &host);
      g_timeout_add_seconds (60, on_timeout, &host);
    }

  while (!host.done)
    g_main_context_iteration (NULL, TRUE);

  {
    g_autofree char *command_line = host.api->core->simulation_to_command_line (host.sim);
    g_print ("parameters: %s\n", command_line);
  }
  gtk_window_destroy (GTK_WINDOW (host.window));
  g_object_unref (host.sim);
  g_module_close (module);
  return host.status;
}
