/* kernel-fast-generic.c: the fast kernel compiled for generic (kernel-fast-variants.h). */
#include "nb-kernel.h"

#define NB_ISA generic
#include "kernel-fast-variants.h"
