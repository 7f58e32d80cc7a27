/* braggscope-export.h: a frame to the field's image files.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <braggscope.h>

G_BEGIN_DECLS

/* braggscope_export_float: writes @frame's intensities (photons/pixel) to
 * @path as raw native float32, fast index first, width * height values and no
 * header: what `nanobragg -floatfile` writes.  Atomic (temporary file in the
 * target folder, renamed).  Errors: G_FILE_ERROR naming the file. */
gboolean braggscope_export_float (BraggscopeFrame *frame, const char *path, GError **error);

/* braggscope_export_smv: writes @frame to @path as an SMV (ADSC) image with
 * nanoBragg's 512-byte header and little-endian uint16 pixels scaled as
 * `nanobragg -intfile` scales them (-scale from the frame's flags, else
 * 55000 / max), the header's geometry derived from the frame's flags by the
 * engine.  Atomic.  Reads the frame's input files again (the structure
 * factors): call it from a worker thread.  Errors: BRAGGSCOPE_ERROR_IO,
 * _PARSE, _INVALID with the engine's message. */
gboolean braggscope_export_smv (BraggscopeFrame *frame, const char *path, GError **error);

G_END_DECLS
