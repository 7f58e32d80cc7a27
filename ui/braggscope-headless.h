/* braggscope-headless.h: `braggscope --snapshot FILE.png [flags]`.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <gio/gio.h>

#include <braggscope.h>

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

/* braggscope_headless_render: the picture braggscope_headless_snapshot()
 * writes (RGBA, *@width x *@height, g_free() it), and the simulation it
 * shows in *@simulation (a reference); the labels drawn on its detector half
 * go into @label_boxes (BraggscopeLabelBox, the picture's pixels) when not
 * NULL.  NULL with @error set and *@status the exit status on failure. */
guint8 *braggscope_headless_render (const BraggscopeOptions *opts,
                                    GSettings *settings,
                                    GArray *label_boxes,
                                    BraggscopeSimulation **simulation,
                                    int *width,
                                    int *height,
                                    int *status,
                                    GError **error);

/* braggscope_join_side_by_side: @left (@lw x @lh RGBA, may be NULL) and
 * @right (@side x @side RGBA, may be NULL) side by side on one picture,
 * g_free() it; its size in *@width, *@height. */
guint8 *braggscope_join_side_by_side (
    const guint8 *left, int lw, int lh, const guint8 *right, int side, int *width, int *height);

/* braggscope_caption_phi: "φ 12.0°" (the spindle angle @phi, degrees) in
 * white on a dark box in the bottom-left corner of @rgba (@width x @height,
 * opaque RGBA), as an exported frame of a rotation carries it. */
void braggscope_caption_phi (guint8 *rgba, int width, int height, double phi);

G_END_DECLS
