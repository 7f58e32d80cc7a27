/* braggscope-headless.h: `braggscope --snapshot FILE.png [flags]`.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gio/gio.h>

#include "braggscope-options.h"

G_BEGIN_DECLS

/* braggscope_headless_snapshot: renders the default scene with @opts->nb_args
 * applied, as the window would show it (colormap, scale, automatic contrast,
 * resolution rings and beam centre from @settings when non-NULL, else the
 * schema's defaults; @opts' display options override both), to the PNG
 * @opts->snapshot with the parameters in its text chunks.  Waits for the full
 * frame.  Needs no display: the frame is drawn by braggscope_render_rgba(),
 * as a BraggscopeView would show it.
 *
 * Returns the exit status: 0 on success; 2 when the nanoBragg flags are
 * rejected; 1 when the scene cannot be simulated or the file not written,
 * with @error set (its message names the input and value). */
int
braggscope_headless_snapshot (const BraggscopeOptions *opts, GSettings *settings, GError **error);

/* braggscope_join_side_by_side: @left (@lw x @lh RGBA, may be NULL) and
 * @right (@side x @side RGBA, may be NULL) side by side on one picture,
 * g_free() it; its size in *@width, *@height. */
guint8 *braggscope_join_side_by_side (
    const guint8 *left, int lw, int lh, const guint8 *right, int side, int *width, int *height);

G_END_DECLS
