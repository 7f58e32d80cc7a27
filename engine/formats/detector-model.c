/* detector-model.c: the multi-panel detector model's bookkeeping
 * (nb-detector.h); the readers of the geometry files that fill it live
 * beside it. */
#include "nb-detector.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void
nb_detector_model_init (nb_detector_model *model)
{
  memset (model, 0, sizeof *model);
  model->beam[0] = 1.0;
}

void
nb_detector_model_clear (nb_detector_model *model)
{
  if (model == NULL)
    return;
  for (int p = 0; p < model->n_panels; p++)
    free (model->panels[p].mask);
  free (model->panels);
  nb_detector_model_init (model);
}

long long
nb_detector_model_pixels (const nb_detector_model *model)
{
  long long total = 0;

  for (int p = 0; p < model->n_panels; p++)
    {
      long long n = (long long) model->panels[p].fpixels * model->panels[p].spixels;
      if (n < 0 || total > (long long) (SIZE_MAX / sizeof (float)) - n)
        return -1;
      total += n;
    }
  return total;
}

size_t
nb_detector_model_panel_offset (const nb_detector_model *model, int panel)
{
  size_t offset = 0;

  for (int p = 0; p < panel && p < model->n_panels; p++)
    offset += (size_t) model->panels[p].fpixels * (size_t) model->panels[p].spixels;
  return offset;
}
