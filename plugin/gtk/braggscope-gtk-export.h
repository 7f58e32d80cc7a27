/* braggscope-gtk-export.h: which symbols libbraggscope-gtk exports (the
 * library is built with hidden visibility; only the public API is seen).
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#if defined(BRAGGSCOPE_GTK_COMPILATION) && defined(__GNUC__)
#define BRAGGSCOPE_GTK_EXPORT __attribute__ ((visibility ("default"))) extern
#else
#define BRAGGSCOPE_GTK_EXPORT extern
#endif
