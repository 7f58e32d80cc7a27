/* test-leak-canary.c: proof that the AddressSanitizer run of the GTK tests still catches a leak of
 * Braggscope's own.  It does what the view and controls tests do (GTK with OpenGL on Xvfb, a
 * window with a BraggscopeView and BraggscopeControls, a frame drawn) and then loses one block
 * from canary_plant_leak().  check-leak-canary.sh requires LeakSanitizer to report exactly that
 * block and nothing else: a report naming Mesa's driver, or no report, fails it.
 * Built only in sanitizer builds (tests/gtk/meson.build).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdlib.h>
#include <string.h>

#include "braggscope-gtk.h"

void *volatile canary_sink;

/* Not inlined, so that its name is a frame of the leak's stack. */
__attribute__ ((noinline)) static void
canary_plant_leak (void)
{
  char *block = malloc (77);

  memset (block, 'x', 77);
  canary_sink = block;
  canary_sink = NULL;
}

static gboolean
frame_seen (gpointer data)
{
  return braggscope_simulation_get_last_frame (data) != NULL;
}

int
main (int argc, char **argv)
{
  g_autoptr (BraggscopeSimulation) sim = NULL;
  g_autoptr (GError) error = NULL;
  const char *args[] = { "-default_F", "100", "-cell",      "40", "50", "60", "90",
                         "90",         "90",  "-detpixels", "64", "-N", "3",  NULL };
  GtkWidget *window, *box;
  gint64 deadline;

  if (!gtk_init_check ())
    {
      g_printerr ("no display (run under build-aux/xvfb-test.sh)\n");
      return 77;
    }

  sim = braggscope_simulation_new ();
  if (!braggscope_simulation_set_from_args (sim, args, &error))
    g_error ("%s", error->message);

  window = gtk_window_new ();
  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_box_append (GTK_BOX (box), braggscope_view_new (sim));
  gtk_box_append (GTK_BOX (box), braggscope_controls_new (sim));
  gtk_window_set_child (GTK_WINDOW (window), box);
  gtk_window_set_default_size (GTK_WINDOW (window), 400, 300);
  gtk_window_present (GTK_WINDOW (window));
  braggscope_simulation_render (sim);

  deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  while (!frame_seen (sim) && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  if (!frame_seen (sim))
    g_error ("no frame within 60 s");

  gtk_window_destroy (GTK_WINDOW (window));
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);

  canary_plant_leak ();
  return 0;
}
