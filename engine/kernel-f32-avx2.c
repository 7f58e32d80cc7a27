/* kernel-f32-avx2.c: the single-precision kernel compiled for avx2. */
#include "nb-private.h"

#include <math.h>

#if defined(__x86_64__) || defined(__i386__)
#pragma GCC target("avx2,fma")
#define NB_F32_SUFFIX _avx2
#include "kernel-f32-body.h"
#endif
