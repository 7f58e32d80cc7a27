/* braggscope-gif.h: animated GIFs of a rotation for slides, through giflib
 * (Debian libgif-dev): each frame quantised to its own 256-colour table, a
 * fixed delay, looping for ever.  Written under a temporary name and renamed
 * when finished, so a failed export leaves nothing behind.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _BraggscopeGifWriter BraggscopeGifWriter;

/* Starts @path (frames of @width x @height, shown @delay_ms each).  Errors:
 * G_FILE_ERROR naming @path. */
BraggscopeGifWriter *
braggscope_gif_writer_new (const char *path, int width, int height, int delay_ms, GError **error);

/* Appends a frame: @rgba is width * height * 4 bytes, row-major. */
gboolean
braggscope_gif_writer_add (BraggscopeGifWriter *writer, const guint8 *rgba, GError **error);

/* Closes the file and moves it to its name; frees @writer either way. */
gboolean braggscope_gif_writer_finish (BraggscopeGifWriter *writer, GError **error);

/* Drops the file; frees @writer (NULL allowed). */
void braggscope_gif_writer_abort (BraggscopeGifWriter *writer);

G_END_DECLS
