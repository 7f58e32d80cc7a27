/* ui-test-util.h: helpers shared by the viewer's tests.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gtk/gtk.h>

#include "braggscope-application.h"
#include "braggscope-window.h"

G_BEGIN_DECLS

/* Reads a PNG as 8-bit RGBA rows (width * 4 bytes each, no padding).  Its
 * text chunks go into @text (key -> value, owned) when non-NULL.  NULL with
 * @error set when the file is not a readable PNG. */
guint8 *
ui_test_read_png (const char *path, int *width, int *height, GHashTable **text, GError **error);

/* Iterates the default main context until @done (@data) is TRUE or
 * @seconds pass; returns whether @done became TRUE. */
gboolean ui_test_wait (gboolean (*done) (gpointer data), gpointer data, double seconds);

/* The text on @widget's clipboard, read as a paste reads it (asynchronously),
 * waiting at most @seconds (the test fails after that); NULL when the clipboard
 * holds no text.  Free with g_free. */
char *ui_test_clipboard_text (GtkWidget *widget, double seconds);

/* The first widget named @name in the tree under @root (depth first), or NULL. */
GtkWidget *ui_test_find_widget (GtkWidget *root, const char *name);

/* What @widget shows now, rendered by its window's renderer as on screen. */
GdkTexture *ui_test_screenshot (GtkWidget *widget);

/* @texture's pixels as 8-bit RGBA rows (width * 4 bytes); free with g_free. */
guint8 *ui_test_texture_rgba (GdkTexture *texture);

/* Number of pixels whose channels differ by more than @tolerance in
 * two RGBA buffers of @n_pixels pixels. */
gsize ui_test_count_differences (const guint8 *a, const guint8 *b, gsize n_pixels, int tolerance);

/* Removes @dir and the files in it (one level, as the tests create them). */
void ui_test_remove_dir (const char *dir);

/* tests/data/measured/@name.gz (a real detector frame, kept compressed),
 * decompressed into @dir; the path (free with g_free). */
char *ui_test_measured_frame (const char *name, const char *dir);

/* Whether @window (a BraggscopeWindow) shows a full frame of its
 * simulation's current parameters: the newest frame is no preview, answers
 * the latest change, and is the view's.  A predicate for ui_test_wait(). */
gboolean ui_test_full_frame_shown (gpointer window);

/* Waits (at most 120 s, else the test fails) until @window shows a full
 * frame of its current parameters and the view has drawn it; that frame. */
BraggscopeFrame *ui_test_wait_full_frame (BraggscopeWindow *window);

/* A viewer window of @app on the default scene changed by the nanoBragg flags
 * @args, @width x @height, presented, once it shows its first full frame.
 * The caller owns a reference (a test may close, and so destroy, it). */
BraggscopeWindow *
ui_test_open_window (BraggscopeApplication *app, const char *const *args, int width, int height);

/* Activates @window's action @name (which must exist) with @parameter. */
void ui_test_activate (BraggscopeWindow *window, const char *name, GVariant *parameter);

G_END_DECLS
