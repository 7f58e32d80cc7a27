/* braggscope-export.h: which symbols libbraggscope exports.  The library is
 * built with hidden visibility; its public declarations are marked, as
 * libbraggscope-gtk's are (braggscope-gtk-export.h).
 */
#pragma once

#if defined(BRAGGSCOPE_COMPILATION) && defined(__GNUC__)
#define BRAGGSCOPE_EXPORT __attribute__ ((visibility ("default"))) extern
#else
#define BRAGGSCOPE_EXPORT extern
#endif
