/* braggscope-progress.h: what the viewer and its headless snapshot say about
 * a slow full frame: its cost before it starts, its progress while it runs.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <braggscope.h>

G_BEGIN_DECLS

/* A full frame expected (or found) to take longer than this many seconds is
 * announced, and its progress shown. */
#define BRAGGSCOPE_SLOW_FRAME_S 2.0

/* Whether @progress is of a frame worth a word: expected, or already
 * running, longer than BRAGGSCOPE_SLOW_FRAME_S. */
gboolean braggscope_progress_is_slow (const BraggscopeRenderProgress *progress);

/* "Full frame: about 45 s (121 sub-pixels per pixel at N = 70; lower
 * Oversample to speed up)": the expected time and the largest factor of the
 * frame's cost with what lowers it; "Full frame: time unknown (...)" before
 * there is an estimate.  Translated; free with g_free. */
char *braggscope_progress_describe_cost (const BraggscopeRenderProgress *progress);

/* "Full frame: 40 %, about 26 s left".  Translated; free with g_free. */
char *braggscope_progress_describe (const BraggscopeRenderProgress *progress);

G_END_DECLS
