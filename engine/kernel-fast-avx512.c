/* kernel-fast-avx512.c: the fast kernel compiled for avx512, in single and
 * double precision (kernel-fast-body.h). */
#include "nb-private.h"

#include <tgmath.h>

/* elsewhere than x86 this is a second copy of the portable code (never selected) */
#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx512f,avx512dq,avx512vl,avx2,fma")
#endif

#define NB_CTX nb_f32_ctx
#define NB_REAL float
#define NB_REAL_IS_DOUBLE 0
#define NB_SUFFIX _f32_avx512
#define NB_PHYS_SUFFIX _f32_avx512
#include "kernel-fast-body.h"
#undef NB_CTX
#undef NB_REAL
#undef NB_REAL_IS_DOUBLE
#undef NB_SUFFIX
#undef NB_PHYS_SUFFIX

#define NB_CTX nb_f64_ctx
#define NB_REAL double
#define NB_REAL_IS_DOUBLE 1
#define NB_SUFFIX _f64_avx512
#define NB_PHYS_SUFFIX _f64_avx512
#include "kernel-fast-body.h"
