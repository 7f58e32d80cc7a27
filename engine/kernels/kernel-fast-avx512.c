/* kernel-fast-avx512.c: the fast kernel compiled for avx512 (kernel-fast-variants.h). */
#include "nb-kernel.h"

/* elsewhere than x86 this is a second copy of the portable code (never selected) */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__clang__)
/* clang ignores GCC's pragma; it applies the attribute to every function until the pop below */
#pragma clang attribute push(__attribute__((target("avx512f,avx512dq,avx512vl,avx2,fma"))),        \
                             apply_to = function)
#elif defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx512f,avx512dq,avx512vl,avx2,fma")
#endif

#define NB_ISA avx512
#if defined(__x86_64__) || defined(__i386__)
#define NB_SIMD_ISA 2
#endif
#include "kernel-fast-variants.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__clang__)
#pragma clang attribute pop
#endif
