/* nb-test-panels.h: helpers shared by the tests of multi-panel detectors
 * (engine and library). */
#pragma once

#include <glib.h>
#include <math.h>

#include "nanobragg.h"

/* nb_test_corner_gap: the largest distance (m) between the panel corners of
 * the plans of @a and @b (the same panels, moved or not). */
static inline double
nb_test_corner_gap (const nb_params *a, const nb_params *b)
{
  nb_plan *pa = NULL, *pb = NULL;
  nb_error err = { 0 };
  double worst = 0;

  g_assert_cmpint (nb_plan_create (a, &pa, &err), ==, NB_OK);
  g_assert_cmpint (nb_plan_create (b, &pb, &err), ==, NB_OK);
  for (int p = 0; p < nb_plan_get_info (pa)->n_panels; p++)
    {
      nb_plan_info x, y;

      g_assert_cmpint (nb_plan_get_panel_info (pa, p, &x, &err), ==, NB_OK);
      g_assert_cmpint (nb_plan_get_panel_info (pb, p, &y, &err), ==, NB_OK);
      for (int c = 0; c < 4; c++)
        {
          double f = (c & 1) ? x.fpixels * x.pixel_size : 0;
          double s = (c & 2) ? x.spixels * x.pixel_size : 0, d2 = 0;

          for (int i = 0; i < 3; i++)
            {
              double u = x.pix0[i] + f * x.fdet[i] + s * x.sdet[i];
              double v = y.pix0[i] + f * y.fdet[i] + s * y.sdet[i];

              d2 += (u - v) * (u - v);
            }
          worst = fmax (worst, sqrt (d2));
        }
    }
  nb_plan_destroy (pa);
  nb_plan_destroy (pb);
  return worst;
}
