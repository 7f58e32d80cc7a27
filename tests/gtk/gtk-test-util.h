/* gtk-test-util.h: helpers shared by the libbraggscope-gtk tests that show a
 * view and its readout (test-readout, test-panels, test-measured-panels). */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

#include "braggscope-gtk.h"

/* Iterates the main context until @view is on screen with a frame. */
static inline void
wait_shown (BraggscopeView *view)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (!gtk_widget_get_mapped (GTK_WIDGET (view)) ||
         gtk_widget_get_width (GTK_WIDGET (view)) == 0 || braggscope_view_get_frame (view) == NULL)
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("the view was not on screen with a frame within 60 s");
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

/* A window of @sim's view (asked for @width x @height pixels, drawn in
 * software) above its readout, on screen with a frame.  @view and @readout
 * are the window's: gtk_window_destroy() on the returned window ends them. */
static inline GtkWidget *
present_view_with_readout (BraggscopeSimulation *sim,
                           int width,
                           int height,
                           BraggscopeView **view,
                           BraggscopeReadout **readout)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  *view = BRAGGSCOPE_VIEW (
      g_object_new (BRAGGSCOPE_TYPE_VIEW, "simulation", sim, "force-software", TRUE, NULL));
  gtk_widget_set_size_request (GTK_WIDGET (*view), width, height);
  *readout = BRAGGSCOPE_READOUT (braggscope_readout_new (*view));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (*view));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (*readout));
  gtk_window_set_child (GTK_WINDOW (window), box);
  gtk_window_present (GTK_WINDOW (window));
  wait_shown (*view);
  return window;
}

/* Removes the test's folder @dir and the files in it (no subfolders). */
static inline void
remove_test_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}
