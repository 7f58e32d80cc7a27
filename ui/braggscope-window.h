/* braggscope-window.h: the viewer's main window: the simulation's controls
 * and display choices on the left, the BraggscopeView on the right, a status
 * line below.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gtk/gtk.h>

#include <braggscope.h>
#include <braggscope-gtk.h>

G_BEGIN_DECLS

#define BRAGGSCOPE_TYPE_WINDOW (braggscope_window_get_type ())
G_DECLARE_FINAL_TYPE (BraggscopeWindow, braggscope_window, BRAGGSCOPE, WINDOW, GtkApplicationWindow)

/* braggscope_window_new: a window of @app showing @sim (a new reference is
 * taken).  Its display choices and size are bound to @settings (the
 * io.github.braggscope.Braggscope schema; a new reference is taken) when
 * not NULL, else nothing is remembered.  The application creates its
 * windows; the window never calls it back.
 *
 * Window actions (all also reachable from the menu or a shortcut):
 *   win.open-structure-factors       choose an HKL file (Ctrl+O)
 *   win.open-structure-factors-file  (s) path: load it without asking
 *   win.open-snapshot                choose a Braggscope PNG and restore its parameters
 *   win.open-snapshot-file           (s) path
 *   win.save-snapshot                choose a PNG file name and save what is shown (Ctrl+S)
 *   win.save-snapshot-file           (s) path: saved once the full frame of the current
 *                                    parameters is shown
 *   win.export-float, win.export-float-file (s)   the frame as raw float32 (photons/pixel)
 *   win.export-smv, win.export-smv-file (s)       the frame as an SMV image, as nanobragg -intfile
 *   win.copy-command-line            the equivalent nanobragg command line, to the clipboard
 *   win.reset-scene                  back to the default 1HPV scene
 *   win.misset-step                  ((sd) axis "x", "y" or "z", degrees) turn the crystal */
BraggscopeWindow *
braggscope_window_new (GtkApplication *app, BraggscopeSimulation *sim, GSettings *settings);

/* The window's parts (transfer none); the simulation changes on win.reset-scene,
 * and the view and controls with it. */
BraggscopeSimulation *braggscope_window_get_simulation (BraggscopeWindow *self);
BraggscopeView *braggscope_window_get_view (BraggscopeWindow *self);
GtkWidget *braggscope_window_get_controls (BraggscopeWindow *self);

/* braggscope_window_show_message: @text in the status line, styled as an
 * error when @is_error.  Also what the file actions report ("Saved …"). */
void braggscope_window_show_message (BraggscopeWindow *self, const char *text, gboolean is_error);

/* braggscope_window_get_message: the status line's current message (transfer none). */
const char *braggscope_window_get_message (BraggscopeWindow *self);

/* braggscope_window_get_reciprocal_view: the reciprocal-space view (transfer none). */
BraggscopeReciprocalView *braggscope_window_get_reciprocal_view (BraggscopeWindow *self);

/* braggscope_window_open_lesson: the lesson @id (data/lessons): its scene,
 * views and panel.  G_IO_ERROR_NOT_FOUND names the lessons there are. */
gboolean braggscope_window_open_lesson (BraggscopeWindow *self, const char *id, GError **error);

/* braggscope_window_export_rotation: plays the rotation of the playback
 * group (start, range; one step is the oscillation, or 1 degree) frame by
 * frame into an animated GIF at @path (@gif) or numbered PNG snapshots in
 * the folder @path; the status line says when it is done. */
void braggscope_window_export_rotation (BraggscopeWindow *self, gboolean gif, const char *path);

G_END_DECLS
