/* kernel-f32-avx512.c: the single-precision kernel compiled for avx512. */
#include "nb-private.h"

#include <math.h>

#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx512f,avx512dq,avx512vl,avx2,fma")
#define NB_F32_SUFFIX _avx512
#include "kernel-f32-body.h"
#endif
