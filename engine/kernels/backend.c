/* backend.c: where a plan's execute runs, in one table.
 *
 * The backends, from the fallback up: the CPU's exact kernel (the
 * reference's arithmetic and loop order, kernel.c), the CPU's fast kernels
 * (kernel-fast.c), the GPU (backend-cuda.c) and the adaptive integrator
 * (kernel-adaptive.c, on the fast kernel's tables).  After every build of a plan
 * each backend prepares in that order, so one may use what an earlier one
 * made (the GPU gets a copy of the fast kernel's tables); execute runs on the
 * last backend that takes the plan as it stands.
 */
#include "nb-backend.h"

typedef struct
{
  const char *name;
  /* 1 when the backend runs @plan now */
  int (*takes) (const nb_plan *plan);
  /* after every creation and update (@rebuild: the stages rebuilt); NULL: nothing to do */
  nb_status (*prepare) (nb_plan *plan, unsigned rebuild, nb_error *err);
  nb_status (*execute) (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err);
  /* frees what prepare made; NULL: nothing */
  void (*release) (nb_plan *plan);
} backend;

static int
always (const nb_plan *plan)
{
  return 1;
}

/* The fast kernels, but for what only the exact kernel reproduces: tricubic
 * interpolation (its fallback is global, Q-15) and sources read from '#'
 * lines, whose infinite scattering vectors give what the reference's
 * arithmetic gives only there. */
static int
fast_takes (const nb_plan *plan)
{
  return plan->params.precision != NB_PRECISION_EXACT && !plan->interpolate &&
         plan->src.comment_rows == 0;
}

static nb_status
fast_prepare (nb_plan *plan, unsigned rebuild, nb_error *err)
{
  return nb_fast_prepare (plan, (rebuild & (1u << NB_STAGE_STRUCTURE_FACTORS)) != 0, err);
}

static const backend backends[] = {
  { "cpu", always, NULL, nb_kernel_execute, NULL },
  { "cpu", fast_takes, fast_prepare, nb_kernel_execute_fast, nb_fast_free },
  { "cuda", nb_backend_cuda_active, nb_backend_sync, nb_backend_cuda_execute, nb_backend_free },
  /* -integration adaptive: the CPU's, on the fast kernel's tables, also where the GPU would
   * have taken the plan (the GPU integrates by the reference's oversampling) */
  { "cpu", nb_adaptive_takes, NULL, nb_kernel_execute_adaptive, NULL },
};

#define N_BACKENDS (sizeof backends / sizeof backends[0])

static const backend *
backend_of (const nb_plan *plan)
{
  size_t i = N_BACKENDS;

  while (i-- > 1 && !backends[i].takes (plan))
    ;
  return &backends[i];
}

nb_status
nb_backends_prepare (nb_plan *plan, unsigned rebuild, nb_error *err)
{
  nb_status st;

  for (size_t i = 0; i < N_BACKENDS; i++)
    if (backends[i].prepare != NULL && (st = backends[i].prepare (plan, rebuild, err)) != NB_OK)
      return st;
  return NB_OK;
}

nb_status
nb_backends_execute (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err)
{
  return backend_of (plan)->execute (plan, image, opts, err);
}

nb_status
nb_backends_set_panel (nb_plan *plan, nb_error *err)
{
  /* the fast kernels' tables hold the detector; the rest is rebuilt with it,
   * about a microsecond a source or orientation step */
  if (fast_takes (plan))
    return nb_fast_prepare (plan, 0, err);
  return NB_OK;
}

nb_status
nb_backends_select_panel (nb_plan *plan, int i, nb_error *err)
{
  nb_kernels_select_panel (plan, i);
  nb_backend_cuda_panel (plan, i < 0 ? 0 : i);
  return nb_backends_set_panel (plan, err);
}

void
nb_backends_release (nb_plan *plan)
{
  for (size_t i = N_BACKENDS; i-- > 0;)
    if (backends[i].release != NULL)
      backends[i].release (plan);
}

int
nb_backends_adaptive (const nb_plan *plan)
{
  return backend_of (plan)->execute == nb_kernel_execute_adaptive;
}

const char *
nb_plan_get_backend (const nb_plan *plan)
{
  return backend_of (plan)->name;
}
