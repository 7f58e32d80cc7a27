/* kernel-fast-variants.h: the fast kernel and the adaptive integrator
 * (kernel-adaptive-body.h) in single and double precision for one
 * instruction set: included once by each kernel-fast-ISA.c file,
 * with NB_ISA naming the set (generic, avx2, avx512) after its target pragma. */
#include <tgmath.h>

#define NB_ISA_SUFFIX2(p, isa) _##p##_##isa
#define NB_ISA_SUFFIX(p, isa)  NB_ISA_SUFFIX2 (p, isa)

#define NB_CTX            nb_f32_ctx
#define NB_REAL           float
#define NB_REAL_IS_DOUBLE 0
#define NB_SUFFIX         NB_ISA_SUFFIX (f32, NB_ISA)
#define NB_PHYS_SUFFIX    NB_ISA_SUFFIX (f32, NB_ISA)
#ifdef NB_SIMD_ISA
#include "kernel-fast-simd.h"
#endif
#include "kernel-fast-body.h"
#include "kernel-adaptive-body.h"
#undef NB_CTX
#undef NB_REAL
#undef NB_REAL_IS_DOUBLE
#undef NB_SUFFIX
#undef NB_PHYS_SUFFIX

#define NB_CTX            nb_f64_ctx
#define NB_REAL           double
#define NB_REAL_IS_DOUBLE 1
#define NB_SUFFIX         NB_ISA_SUFFIX (f64, NB_ISA)
#define NB_PHYS_SUFFIX    NB_ISA_SUFFIX (f64, NB_ISA)
#ifdef NB_SIMD_ISA
#include "kernel-fast-simd.h"
#endif
#include "kernel-fast-body.h"
#include "kernel-adaptive-body.h"
