/* kernel-fast-generic.c: the fast kernel compiled for generic, in single and
 * double precision (kernel-fast-body.h). */
#include "nb-private.h"

#include <tgmath.h>

#define NB_CTX nb_f32_ctx
#define NB_REAL float
#define NB_REAL_IS_DOUBLE 0
#define NB_SUFFIX _f32_generic
#define NB_PHYS_SUFFIX _f32_generic
#include "kernel-fast-body.h"
#undef NB_CTX
#undef NB_REAL
#undef NB_REAL_IS_DOUBLE
#undef NB_SUFFIX
#undef NB_PHYS_SUFFIX

#define NB_CTX nb_f64_ctx
#define NB_REAL double
#define NB_REAL_IS_DOUBLE 1
#define NB_SUFFIX _f64_generic
#define NB_PHYS_SUFFIX _f64_generic
#include "kernel-fast-body.h"
