/* nb-module-search.h: where the engine finds its loadable modules (the
 * CBF/NeXus module of nb-formats.h, the models module of nb-models.h).
 *
 * First found wins:
 *   1. $@env, the module's full path (for unusual setups): only that file is
 *      tried;
 *   2. beside the object that holds the engine (the program, or
 *      libbraggscope), by the install's own layout: bindir's and libdir's way
 *      to libdir/nanobragg, so a relocated or DESTDIR install finds its own;
 *   3. the build tree's engine folder, when that object lies in the build tree
 *      (a program run from the build, with an older install present);
 *   4. the installed libdir/nanobragg;
 *   5. the build tree's engine folder.
 */
#pragma once

#include <stddef.h>

/* nb_module_search: dlopen()s the module @name (RTLD_NOW | RTLD_LOCAL) where
 * the list above finds it and returns its handle, or NULL with a one-line
 * @problem: the module (called @what in it) could not be loaded, or was found
 * nowhere (naming where it was looked for and @env).  @shown receives the
 * name messages give the module (its path, or "$ENV=path"). */
void *nb_module_search (const char *name,
                        const char *env,
                        const char *what,
                        char *shown,
                        size_t shown_size,
                        char *problem,
                        size_t problem_size);
