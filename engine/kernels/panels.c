/* panels.c: one panel of a multi-panel plan (plan/panels.c) put in place for
 * the kernels, as execute renders it: by plan.c's execute_panels (through
 * nb_backends_select_panel, backend.c) and by the GPU's sync of every
 * panel's scene (backend-cuda.c), so that the two see the same panel. */
#include "nb-kernel.h"

void
nb_kernels_select_panel (nb_plan *plan, int i)
{
  const nb_plan_panel *pn = &plan->panels[i < 0 ? 0 : i];

  plan->det = pn->det;
  plan->steps = pn->steps;
  /* a panel without bad regions runs the kernels' unmasked path */
  plan->mask = i >= 0 && plan->panel_mask != NULL && plan->detector.panels[i].mask != NULL
                   ? plan->panel_mask + pn->offset
                   : NULL;
}
