/* nb-backend.h: where a plan's execute runs: the table of backends
 * (backend.c) and the GPU's (backend-cuda.c).
 *
 * plan.c calls nb_backend_choose() at the start of every build and again
 * once the work of an image is known (after the crystal stage: pixels,
 * oversampling, sources, domains, phi steps), nb_backends_prepare() at the
 * end of every build (creation and update), nb_backends_release() when it
 * releases the plan, and nb_backends_execute() for every execute; the table
 * calls the GPU's nb_backend_sync(), nb_backend_free() and
 * nb_backend_cuda_execute(), which runs while nb_backend_cuda_active() says
 * so.
 *
 * NB_BACKEND=cpu makes -backend auto choose the CPU (read at each build), as
 * NB_KERNEL chooses the CPU's instruction set: a test environment can keep
 * the CPU kernels under test on a machine with a GPU.
 *
 * Debug switch, read at each run:
 *   NB_CUDA_FAULT=launch    the run's first kernel launch fails (a real
 *                           cudaErrorInvalidConfiguration): the run falls back
 *                           to the CPU, and so does the plan from then on
 */
#pragma once

#include "nb-kernel.h"
#include "cuda/nb-cuda.h"

/* nb_backends_prepare: every backend's preparation after a build of @plan
 * (@rebuild: the mask of rebuilt stages, 1 << nb_stage), in the table's
 * order; the first error ends it. */
nb_status nb_backends_prepare (nb_plan *plan, unsigned rebuild, nb_error *err);

/* nb_backends_execute: nb_plan_execute() on the backend that takes @plan
 * now: the GPU while it is active, else the CPU's fast kernel where it
 * reproduces the reference, else its exact kernel. */
nb_status
nb_backends_execute (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err);

/* nb_backends_set_panel: after the plan's det, steps and mask were set to
 * those of one panel of a multi-panel detector (plan/panels.c), brings what
 * a backend derived from them up to date (the fast kernels' tables).
 * NB_ERR_NOMEM. */
nb_status nb_backends_set_panel (nb_plan *plan, nb_error *err);

/* nb_backends_select_panel: the plan's det, steps and mask set to those of
 * panel @i (0 .. n_panels - 1) of its multi-panel detector, or, with @i -1,
 * back to what they are outside execute (panel 0's det and steps, no mask);
 * then nb_backends_set_panel().  The GPU renders that panel next.
 * NB_ERR_NOMEM. */
nb_status nb_backends_select_panel (nb_plan *plan, int i, nb_error *err);

/* nb_backend_cuda_panel: the panel the GPU's next sync or run is of
 * (nb_backends_select_panel()). */
void nb_backend_cuda_panel (nb_plan *plan, int i);

/* nb_backends_adaptive: 1 when @plan's execute integrates adaptively
 * (-integration adaptive on a plan the adaptive integrator takes). */
int nb_backends_adaptive (const nb_plan *plan);

/* nb_backends_release: frees what the backends hold for @plan. */
void nb_backends_release (nb_plan *plan);

/* nb_backend_choose: where the plan will use the GPU, starts creating the
 * CUDA context on a thread of its own while the rest of the plan is built:
 * -backend cuda at once (plan.c calls it first with @work_known 0), auto
 * once the work of an image is known (@work_known 1, after the crystal
 * stage), by its estimate (NB_BACKEND_AUTO, nanobragg.h).  Never fails;
 * nb_backend_sync() reports. */
void nb_backend_choose (nb_plan *plan, int work_known);

/* nb_backend_may_use_gpu: 1 where the plan may take the GPU (and a pinned
 * image): -backend cuda, or auto once the context is started with a device
 * present; never probes the device for a one-shot auto plan. */
int nb_backend_may_use_gpu (const nb_plan *plan);

/* nb_backend_sync: resolves params.backend for the plan as just built and,
 * for the GPU, creates the device context or uploads what changed.  @rebuild
 * is plan.c's mask of rebuilt stages (1 << nb_stage).  Errors:
 * NB_ERR_UNSUPPORTED for -backend cuda without a usable device or in a build
 * without CUDA, NB_ERR_INVALID for an unknown backend value, NB_ERR_NOMEM.
 * A CUDA error here is not an error of the plan: it runs on the CPU and the
 * log says why. */
nb_status nb_backend_sync (nb_plan *plan, unsigned rebuild, nb_error *err);

/* nb_backend_free: frees the plan's GPU side (NULL-safe on plan->cuda). */
void nb_backend_free (nb_plan *plan);

/* nb_backend_cuda_active: 1 when the plan's runs go to the GPU. */
int nb_backend_cuda_active (const nb_plan *plan);

/* nb_backend_cuda_execute: nb_plan_execute() on the GPU, with the
 * statistics of opts->stats where the GPU computed them (valid; else the
 * caller computes them); a CUDA error makes this run and the plan's later
 * ones use the CPU's fast kernel (logged). */
nb_status
nb_backend_cuda_execute (nb_plan *plan, float *image, const nb_exec_options *opts, nb_error *err);

/* nb_backend_cuda_kernel_ms: the GPU time of the last full image's kernels
 * (0 when it did not run on the GPU). */
double nb_backend_cuda_kernel_ms (const nb_plan *plan);

/* nb_backend_cuda_stats: the GPU context's counters (tests, benchmark);
 * returns 0 (and zeroes @stats) when the plan has none. */
int nb_backend_cuda_stats (const nb_plan *plan, nb_cuda_stats *stats);

/* nb_backend_cuda_emulate: tests: what nb_backend_cuda_execute() computes,
 * with the CUDA kernels' pixel code run on the CPU (nb_cuda_emulate()) for
 * the plan as built (any backend; precision single or double), and the
 * host's fill of a preview's blocks; @stats (or NULL) as the GPU's
 * statistics kernels (nb_cuda_emulate_stats()) and the fill compute them.
 * Returns 0 in a build without CUDA or for a plan the GPU would not run. */
int nb_backend_cuda_emulate (nb_plan *plan, float *image, int stride, nb_exec_stats *stats);

/* nb_backend_cuda_emulate_stats: tests: @stats of @image (@n floats) as the
 * GPU's statistics kernels compute them (nb_cuda_emulate_stats()).  Returns
 * 0 in a build without CUDA. */
int nb_backend_cuda_emulate_stats (const float *image, size_t n, nb_exec_stats *stats);
