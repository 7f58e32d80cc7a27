/* kernel-fast-sse41.c: the fast kernel compiled for SSE4.1 (kernel-fast-variants.h), for
 * processors without AVX2 (Atom-class Celeron and Pentium Silver, Core before Haswell). */
#include "nb-kernel.h"

/* elsewhere than x86 this is a second copy of the portable code (never selected) */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__clang__)
/* clang ignores GCC's pragma; it applies the attribute to every function until the pop below */
#pragma clang attribute push(__attribute__((target("sse4.1"))), apply_to = function)
#elif defined(__x86_64__) || defined(__i386__)
#pragma GCC target("sse4.1")
#endif

#define NB_ISA sse41
#if defined(__x86_64__) || defined(__i386__)
#define NB_SIMD_ISA 3
#endif
#include "kernel-fast-variants.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__clang__)
#pragma clang attribute pop
#endif
