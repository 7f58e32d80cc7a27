/* c-host-linked.c: a GTK 4 program linked to libbraggscope-gtk that shows the
 * view, the controls and a readout of a live simulation.
 *
 * Build it against an installed Braggscope with pkg-config:
 *
 *   cc -o c-host-linked c-host-linked.c $(pkg-config --cflags --libs braggscope-gtk-1)
 *
 *   c-host-linked [--quit-after-frame] [nanoBragg flags...]
 *
 * It creates the default scene (HIV-1 protease, PDB 1HPV), applies the flags
 * (e.g. -lambda 1.2 -distance 150), and shows the frames as they arrive; the
 * readout follows the pointer.  With --quit-after-frame it points the readout
 * at the brightest pixel of the first full frame on screen, prints it and the
 * frame's statistics, and exits (0 when it worked), so tests can run it.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <braggscope-gtk.h>

typedef struct
{
  BraggscopeSimulation *sim;
  BraggscopeView *view;
  BraggscopeReadout *readout;
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

/* Frames arrive on the main thread; their pixels are floats, photons per
 * pixel, row after row (fast index first). */
static void
on_frame_ready (BraggscopeSimulation *sim, BraggscopeFrame *frame, Host *host)
{
  gsize n;
  const float *pixels = braggscope_frame_get_data (frame, &n);
  double sum = 0.0;

  if (braggscope_frame_get_is_preview (frame))
    return;
  for (gsize i = 0; i < n; i++)
    sum += pixels[i];
  g_print ("frame %" G_GUINT64_FORMAT ": %d x %d, %.4g photons in all, brightest %.4g, "
           "%.1f ms (%s)\n",
           braggscope_frame_get_sequence (frame), braggscope_frame_get_width (frame),
           braggscope_frame_get_height (frame), sum, braggscope_frame_get_max_value (frame),
           braggscope_frame_get_total_ms (frame), braggscope_frame_get_backend (frame));
}

static void
on_error (BraggscopeSimulation *sim, GError *error, Host *host)
{
  g_printerr ("c-host-linked: %s\n", error->message);
  if (host->quit_after_frame)
    host_quit (host, 1);
}

static gboolean
check_frame_shown (gpointer data)
{
  Host *host = data;
  BraggscopeFrame *frame = braggscope_simulation_get_last_frame (host->sim);
  BraggscopePixelInfo info;
  const float *pixels;
  gsize n, brightest = 0;
  int width;
  double x, y;

  if (frame == NULL || braggscope_frame_get_is_preview (frame) ||
      braggscope_frame_get_sequence (frame) != braggscope_simulation_get_sequence (host->sim) ||
      braggscope_view_get_frame (host->view) != frame ||
      !gtk_widget_get_mapped (GTK_WIDGET (host->view)))
    return G_SOURCE_CONTINUE;

  pixels = braggscope_frame_get_data (frame, &n);
  width = braggscope_frame_get_width (frame);
  for (gsize i = 1; i < n; i++)
    if (pixels[i] > pixels[brightest])
      brightest = i;
  if (!braggscope_view_frame_to_widget (host->view, brightest % width + 0.5,
                                        brightest / width + 0.5, &x, &y))
    return G_SOURCE_CONTINUE;
  braggscope_view_set_readout_point (host->view, x, y);
  if (!braggscope_view_get_readout (host->view, NULL, NULL, NULL, NULL, NULL, &info) ||
      braggscope_readout_get_text (host->readout) == NULL)
    {
      host_quit (host, 1);
      return G_SOURCE_REMOVE;
    }
  g_print ("readout at the brightest pixel: %s\n", braggscope_readout_get_text (host->readout));
  g_print ("reflection %d %d %d at d = %.3f A\n", info.nearest_h, info.nearest_k, info.nearest_l,
           info.d_spacing);
  host_quit (host, 0);
  return G_SOURCE_REMOVE;
}

static gboolean
on_timeout (gpointer data)
{
  g_printerr ("c-host-linked: no full frame on screen within 60 s\n");
  host_quit (data, 1);
  return G_SOURCE_REMOVE;
}

static gboolean
on_close_request (GtkWindow *window, Host *host)
{
  host_quit (host, 0);
  return FALSE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GPtrArray) flags = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  GtkWidget *window, *paned, *scrolled, *right;
  Host host = { 0 };

  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "--quit-after-frame"))
      host.quit_after_frame = TRUE;
    else
      g_ptr_array_add (flags, argv[i]);
  g_ptr_array_add (flags, NULL);

  gtk_init ();
  host.sim = braggscope_simulation_new_default_scene (&error);
  if (host.sim == NULL ||
      !braggscope_simulation_set_from_args (host.sim, (const char *const *) flags->pdata, &error))
    {
      g_printerr ("c-host-linked: %s\n", error->message);
      return 1;
    }
  g_signal_connect (host.sim, "frame-ready", G_CALLBACK (on_frame_ready), &host);
  g_signal_connect (host.sim, "error", G_CALLBACK (on_error), &host);

  /* controls on the left (scrolled: they are taller than most windows), the
   * view and its readout on the right */
  host.view = BRAGGSCOPE_VIEW (braggscope_view_new (host.sim));
  braggscope_view_set_show_rings (host.view, TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (host.view), TRUE);
  gtk_widget_set_vexpand (GTK_WIDGET (host.view), TRUE);
  host.readout = BRAGGSCOPE_READOUT (braggscope_readout_new (host.view));
  gtk_widget_set_margin_start (GTK_WIDGET (host.readout), 6);
  gtk_widget_set_margin_end (GTK_WIDGET (host.readout), 6);
  gtk_widget_set_margin_bottom (GTK_WIDGET (host.readout), 4);
  right = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  gtk_box_append (GTK_BOX (right), GTK_WIDGET (host.view));
  gtk_box_append (GTK_BOX (right), GTK_WIDGET (host.readout));

  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_width (GTK_SCROLLED_WINDOW (scrolled), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled),
                                 braggscope_controls_new (host.sim));
  paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  gtk_paned_set_start_child (GTK_PANED (paned), scrolled);
  gtk_paned_set_end_child (GTK_PANED (paned), right);
  gtk_paned_set_shrink_start_child (GTK_PANED (paned), FALSE);
  gtk_paned_set_resize_start_child (GTK_PANED (paned), FALSE);

  window = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (window), "Braggscope in a C host (linked)");
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 720);
  gtk_window_set_child (GTK_WINDOW (window), paned);
  g_signal_connect (window, "close-request", G_CALLBACK (on_close_request), &host);
  gtk_window_present (GTK_WINDOW (window));

  if (host.quit_after_frame)
    {
      g_timeout_add (50, check_frame_shown, &host);
      g_timeout_add_seconds (60, on_timeout, &host);
    }
  while (!host.done)
    g_main_context_iteration (NULL, TRUE);

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (host.sim);
  return host.status;
}
