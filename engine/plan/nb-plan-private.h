/* nb-plan-private.h: what the plan (plan.c) offers the engine beyond
 * nanobragg.h. */
#pragma once

#include "nanobragg.h"

/* plan.c: what nb_plan_create() checks of @params up to its memory budget
 * (validation, the detector, the fluence, the sampling counts, the memory
 * estimate) without allocating per pixel, for a caller that holds
 * @caller_bytes_per_pixel bytes per pixel (<= 0: the CLI's 7).  Errors as
 * nb_plan_create()'s. */
nb_status
nb_plan_check_budget (const nb_params *params, double caller_bytes_per_pixel, nb_error *err);
