/* c-host.c: a C program that loads Braggscope at run time, without linking to it.
 *
 * It opens the plugin with GModule, takes its function table from the one
 * entry point (braggscope_plugin_init, see braggscope-module.h), creates the
 * default scene, turns the crystal, and prints the frames that come back.
 * Everything except the table goes through plain GObject: properties with
 * g_object_set()/g_object_get(), results with g_signal_connect().
 *
 *   braggscope-c-host [PATH-TO-libbraggscope-1.so]
 *
 * PATH defaults to $BRAGGSCOPE_PLUGIN, then "libbraggscope-1.so" on the
 * library search path.  Exits 0 when both frames arrived and match.
 */
#include <gmodule.h>
#include <glib-object.h>

#include "braggscope-module.h"

typedef struct
{
  const BraggscopePluginApi *api;
  GMainLoop *loop;
  guint64 waiting_for; /* the sequence whose full frame ends the wait */
  gboolean failed;
} Host;

static void
on_frame_ready (GObject *sim, GObject *frame, gpointer data)
{
  Host *host = data;
  guint64 sequence;
  gboolean preview;
  int width, height;
  float max_value;
  gsize n;
  const float *pixels;
  double sum = 0.0;

  g_object_get (frame, "sequence", &sequence, "is-preview", &preview, "width", &width, "height",
                &height, "max-value", &max_value, NULL);
  pixels = host->api->frame_get_data (frame, &n);
  for (gsize i = 0; i < n; i++)
    sum += pixels[i];
  g_print ("frame: sequence %" G_GUINT64_FORMAT ", %s, %d x %d, max %.4g photons, total %.4g\n",
           sequence, preview ? "preview" : "full", width, height, max_value, sum);
  if (!preview && sequence == host->waiting_for)
    g_main_loop_quit (host->loop);
}

static void
on_error (GObject *sim, GError *error, gpointer data)
{
  Host *host = data;

  g_printerr ("c-host: %s\n", error->message);
  host->failed = TRUE;
  g_main_loop_quit (host->loop);
}

static gboolean
on_timeout (gpointer data)
{
  Host *host = data;

  g_printerr ("c-host: no frame within 60 s\n");
  host->failed = TRUE;
  g_main_loop_quit (host->loop);
  return G_SOURCE_REMOVE;
}

/* Runs the main loop until the full frame of the simulation's current sequence. */
static gboolean
wait_for_frame (Host *host, GObject *sim)
{
  guint timeout = g_timeout_add_seconds (60, on_timeout, host);

  g_object_get (sim, "sequence", &host->waiting_for, NULL);
  g_main_loop_run (host->loop);
  if (!host->failed)
    g_source_remove (timeout);
  return !host->failed;
}

int
main (int argc, char **argv)
{
  const char *path = argc > 1 ? argv[1] : g_getenv ("BRAGGSCOPE_PLUGIN");
  g_autoptr (GError) error = NULL;
  BraggscopePluginInitFunc init = NULL;
  GModule *module;
  GObject *sim, *frame;
  Host host = { 0 };
  char **args;
  gboolean found = FALSE;

  if (path == NULL)
    path = "libbraggscope-1.so";
  module = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
  if (module == NULL)
    {
      g_printerr ("c-host: %s\n", g_module_error ());
      return 1;
    }
  if (!g_module_symbol (module, BRAGGSCOPE_PLUGIN_INIT_SYMBOL, (gpointer *) &init) ||
      (host.api = init (BRAGGSCOPE_PLUGIN_API_VERSION)) == NULL)
    {
      g_printerr ("c-host: %s is not a Braggscope plugin of API version %d\n", path,
                  BRAGGSCOPE_PLUGIN_API_VERSION);
      return 1;
    }
  g_print ("loaded Braggscope %s from %s\n", host.api->version, path);

  host.loop = g_main_loop_new (NULL, FALSE);
  sim = host.api->simulation_new_default_scene (&error);
  if (sim == NULL)
    {
      g_printerr ("c-host: %s\n", error->message);
      return 1;
    }
  g_signal_connect (sim, "frame-ready", G_CALLBACK (on_frame_ready), &host);
  g_signal_connect (sim, "error", G_CALLBACK (on_error), &host);

  /* a smaller detector than the scene's 1024 x 1024, to be quick */
  g_object_set (sim, "detector-pixels-fast", 256, "detector-pixels-slow", 256, NULL);
  if (!wait_for_frame (&host, sim))
    return 1;

  /* turn the crystal as a slider would, and wait for the full frame */
  g_object_set (sim, "misset-x", 12.5, NULL);
  if (!wait_for_frame (&host, sim))
    return 1;

  /* the frame knows the parameters it was made from */
  frame = host.api->simulation_get_last_frame (sim);
  args = host.api->frame_get_args (frame);
  for (guint i = 0; args[i] != NULL && args[i + 1] != NULL; i++)
    if (g_str_equal (args[i], "-misset"))
      found = g_str_equal (args[i + 1], "12.5");
  {
    g_autofree char *command_line = host.api->simulation_to_command_line (sim);
    g_print ("parameters: %s\n", command_line);
  }
  if (!found)
    {
      g_printerr ("c-host: the last frame does not answer -misset 12.5\n");
      return 1;
    }

  g_object_unref (sim);
  g_main_loop_unref (host.loop);
  g_module_close (module);
  return 0;
}
