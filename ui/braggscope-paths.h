/* braggscope-paths.h: where the viewer finds what it did not build into
 * itself: its translations and the nanobragg program.  A program run from
 * the build tree (its executable lies under the build folder: the viewer,
 * the tests) takes the build tree's, as it takes the build tree's settings
 * schema and the source tree's data; an installed one the installed ones.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether the running executable lies under the build folder it was built in. */
gboolean braggscope_paths_run_from_build_tree (void);

/* The folder of the message catalogues (LANG/LC_MESSAGES/braggscope.mo):
 * $BRAGGSCOPE_LOCALEDIR when set, else the build tree's po/ when run from it,
 * else the installed locale folder.  A static string. */
const char *braggscope_paths_locale_dir (void);

/* The path of the nanobragg program that runs a copied command line: the
 * build tree's when run from it; else the one beside the running executable,
 * else the installed one, else the bare name "nanobragg" when neither is
 * there.  Free with g_free. */
char *braggscope_paths_nanobragg (void);

G_END_DECLS
