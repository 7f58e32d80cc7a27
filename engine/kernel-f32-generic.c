/* kernel-f32-generic.c: the single-precision kernel compiled for generic. */
#include "nb-private.h"

#include <math.h>


#define NB_F32_SUFFIX _generic
#include "kernel-f32-body.h"
