/* nb-panels.h: a plan's multi-panel detector (panels.c), for plan.c. */
#pragma once

#include "model/nb-model.h"

/* A detector-dependent step of the build, run once per panel. */
typedef nb_status (*nb_panel_fn) (nb_plan *plan, void *data, nb_error *err);

/* nb_panels_read_model: reads params.detector_file when its name changed
 * (NULL: drops the model; the plan has no panels).  Errors of
 * nb_detector_model_read(), NB_ERR_INVALID for a panel whose corner is the
 * sample, NB_ERR_NOMEM. */
nb_status nb_panels_read_model (nb_plan *plan, nb_error *err);

/* nb_panels_each: @fn on the plan, or, with panels, once per panel with
 * that panel's parameters, det and steps in place (the log quiet after panel
 * 0); the results are kept per panel and panel 0's left in det and steps.
 * The first error ends it, its message prefixed with the panel's name. */
nb_status nb_panels_each (nb_plan *plan, nb_panel_fn fn, void *data, nb_error *err);

/* nb_plan_pixels: pixels of the image execute renders (every panel). */
size_t nb_plan_pixels (const nb_plan *plan);

/* nb_panels_max_spixels: the most rows of any panel (of det without panels). */
int nb_panels_max_spixels (const nb_plan *plan);

/* nb_panels_load_masks: the panels' bad-region masks in image layout
 * (plan->panel_mask; NULL when none has one).  NB_ERR_NOMEM. */
nb_status nb_panels_load_masks (nb_plan *plan, nb_error *err);

/* nb_panels_log: the panels' lines of the plan's summary. */
void nb_panels_log (nb_plan *plan);

/* nb_panels_image_shape: the image's fpixels x spixels as nb_plan_info
 * reports them for a plan with panels (unchanged without). */
void nb_panels_image_shape (const nb_plan *plan, int *fpixels, int *spixels);

/* nb_panels_release: frees the model, the panels and their masks. */
void nb_panels_release (nb_plan *plan);
