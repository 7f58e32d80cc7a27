/* detector-model.c: the multi-panel detector model's bookkeeping
 * (nb-detector.h); the readers of the geometry files that fill it live
 * beside it. */
#include "base/nb-rotation.h"
#include "nb-detector.h"

#include <math.h>
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

/* @v turned in place by the rotation @R (row-major). */
static void
turn (const double R[9], double v[3])
{
  double out[3];

  for (int i = 0; i < 3; i++)
    out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
  memcpy (v, out, sizeof out);
}

void
nb_detector_model_move (nb_detector_model *model, const double shift[3], const double rotation[3])
{
  int turned = rotation[0] != 0.0 || rotation[1] != 0.0 || rotation[2] != 0.0;
  double R[9];

  nb_rotvec_matrix (rotation, R);
  for (int p = 0; p < model->n_panels; p++)
    {
      nb_panel *pn = &model->panels[p];

      if (turned)
        {
          turn (R, pn->pix0);
          turn (R, pn->fdet);
          turn (R, pn->sdet);
        }
      for (int i = 0; i < 3; i++)
        if (shift[i] != 0.0) /* keeps a -0.0 */
          pn->pix0[i] += shift[i];
    }
}
