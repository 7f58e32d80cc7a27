/* test-labels.c: the reflections a view labels with h k l
 * (braggscope_frame_get_brightest_reflections) agree with the simulated image
 * and with the engine's pixel query, for the 1HPV scene:
 *   - each labelled reflection's h k l is the pixel query's nearest indices
 *     at its predicted spot;
 *   - in ten random orientations, each labelled reflection's predicted spot
 *     lies within 2 pixels of a local maximum of the image.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "braggscope.h"
#include "plugin-test-util.h"

#include <math.h>

#define N_LABELS 20

/* The 1HPV default scene on a 512^2 detector of 0.2 mm pixels (the 1024^2
 * detector's area at a quarter of the pixels). */
static BraggscopeSimulation *
new_scene (void)
{
  g_autoptr (GError) error = NULL;
  BraggscopeSimulation *sim = braggscope_simulation_new_default_scene (&error);
  const char *args[] = { "-detpixels", "512", "-pixel", "0.2", NULL };

  g_assert_no_error (error);
  g_assert_true (braggscope_simulation_set_from_args (sim, args, &error));
  g_assert_no_error (error);
  return sim;
}

static BraggscopeFrame *
render (BraggscopeSimulation *sim, Watch *w)
{
  braggscope_simulation_render (sim);
  return watch_wait_full (w, 120);
}

static gboolean
is_local_maximum (const float *data, int width, int height, int i, int j)
{
  float v = data[(gsize) j * width + i];

  if (!(v > 0))
    return FALSE;
  for (int dj = -1; dj <= 1; dj++)
    for (int di = -1; di <= 1; di++)
      {
        int x = i + di, y = j + dj;

        if ((di || dj) && x >= 0 && y >= 0 && x < width && y < height &&
            data[(gsize) y * width + x] > v)
          return FALSE;
      }
  return TRUE;
}

/* Distance (pixels) from frame point (@x, @y) to the centre of the nearest
 * local maximum within 4 pixels; INFINITY when there is none. */
static double
distance_to_maximum (BraggscopeFrame *frame, double x, double y)
{
  int width = braggscope_frame_get_width (frame), height = braggscope_frame_get_height (frame);
  const float *data = braggscope_frame_get_data (frame, NULL);
  double best = INFINITY;

  for (int j = (int) floor (y) - 4; j <= (int) floor (y) + 4; j++)
    for (int i = (int) floor (x) - 4; i <= (int) floor (x) + 4; i++)
      if (i >= 0 && j >= 0 && i < width && j < height &&
          is_local_maximum (data, width, height, i, j))
        best = MIN (best, hypot (i + 0.5 - x, j + 0.5 - y));
  return best;
}

static void
test_pixel_query (void)
{
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = new_scene ();
  g_autoptr (GArray) labels = NULL;
  g_autoptr (GError) error = NULL;
  BraggscopeFrame *frame;
  BraggscopeGeometry *geometry;

  watch_init (&w, sim);
  frame = render (sim, &w);
  geometry = braggscope_frame_get_geometry (frame);
  labels = braggscope_frame_get_brightest_reflections (frame, N_LABELS, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (labels->len, ==, N_LABELS);
  for (guint i = 0; i < labels->len; i++)
    {
      const BraggscopeReflection *r = &g_array_index (labels, BraggscopeReflection, i);
      BraggscopePixelInfo info;

      g_assert_true (braggscope_geometry_query (geometry, r->x, r->y, &info, &error));
      g_assert_cmpint (info.nearest_h, ==, r->h);
      g_assert_cmpint (info.nearest_k, ==, r->k);
      g_assert_cmpint (info.nearest_l, ==, r->l);
      g_assert_cmpfloat_with_epsilon (info.d_spacing, r->d_spacing, 1e-3 * r->d_spacing);
    }
  watch_clear (&w);
}

static void
test_local_maxima (void)
{
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = new_scene ();
  GRand *rand = g_rand_new_with_seed (12);
  double worst = 0.0, sum = 0.0;
  guint n = 0;

  watch_init (&w, sim);
  w.keep_frames = FALSE;
  for (int trial = 0; trial < 10; trial++)
    {
      g_autoptr (GArray) labels = NULL;
      g_autoptr (GError) error = NULL;
      BraggscopeFrame *frame;
      double trial_worst = 0.0;

      g_object_set (sim, "misset-x", g_rand_double_range (rand, -180, 180), "misset-y",
                    g_rand_double_range (rand, -90, 90), "misset-z",
                    g_rand_double_range (rand, -180, 180), NULL);
      frame = render (sim, &w);
      labels = braggscope_frame_get_brightest_reflections (frame, N_LABELS, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (labels->len, >, N_LABELS / 2);
      for (guint i = 0; i < labels->len; i++)
        {
          const BraggscopeReflection *r = &g_array_index (labels, BraggscopeReflection, i);
          double d = distance_to_maximum (frame, r->x, r->y);

          if (d > 2.0)
            g_test_message ("orientation %d: %d %d %d at %.2f, %.2f is %.2f px from a maximum",
                            trial, r->h, r->k, r->l, r->x, r->y, d);
          g_assert_cmpfloat (d, <=, 2.0);
          trial_worst = MAX (trial_worst, d);
          sum += d;
          n++;
        }
      worst = MAX (worst, trial_worst);
    }
  g_test_message ("%u labelled reflections in 10 orientations: mean %.2f px, worst %.2f px from "
                  "a local maximum",
                  n, sum / n, worst);
  g_rand_free (rand);
  watch_clear (&w);
}

/* Smooth mosaic arcs: the full frame takes the domains the rule asks for, a
 * preview keeps the parameters' count, and the image is the engine's with
 * that count. */
static void
test_arc_domains (void)
{
  Watch w;
  g_autoptr (BraggscopeSimulation) sim = new_scene ();
  const char *args[] = { "-mosaic", "2",   "-mosaic_domains", "5", "-detpixels", "128",
                         "-pixel",  "0.8", "-oversample",     "1", NULL };
  BraggscopeFrame *frame;
  char **frame_args; /* the frame's own */
  int full, previews = 0;

  g_assert_true (braggscope_simulation_set_from_args (sim, args, NULL));
  watch_init (&w, sim);
  frame = render (sim, &w);
  g_assert_cmpint (braggscope_frame_get_mosaic_domains (frame), ==, 5);

  g_object_set (sim, "max-arc-domains", 96, NULL);
  frame = watch_wait_full (&w, 120);
  full = braggscope_frame_get_mosaic_domains (frame);
  g_test_message ("2 deg of mosaic spread: %d domains in the full frame", full);
  g_assert_cmpint (full, >, 5);
  g_assert_cmpint (full, <=, 96);
  frame_args = braggscope_frame_get_args (frame);
  assert_frame_is_engine_image (frame, frame_args);

  /* a drag: previews keep 5 domains, the full frame the raised count */
  g_object_set (sim, "misset-x", 11.0, NULL);
  frame = watch_wait_full (&w, 120);
  for (guint i = 0; i < w.frames->len; i++)
    {
      BraggscopeFrame *f = g_ptr_array_index (w.frames, i);

      if (braggscope_frame_get_is_preview (f))
        {
          g_assert_cmpint (braggscope_frame_get_mosaic_domains (f), ==, 5);
          previews++;
        }
    }
  g_assert_cmpint (previews, >, 0);
  g_assert_cmpint (braggscope_frame_get_mosaic_domains (frame), ==, full);

  /* a spread the domains already draw as arcs is left alone */
  g_object_set (sim, "mosaic-spread", 0.05, NULL);
  frame = watch_wait_full (&w, 120);
  g_assert_cmpint (braggscope_frame_get_mosaic_domains (frame), ==, 5);
  watch_clear (&w);
}

int
main (int argc, char **argv)
{
  g_setenv ("NB_BACKEND", "cpu", FALSE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/labels/pixel-query", test_pixel_query);
  g_test_add_func ("/labels/local-maxima", test_local_maxima);
  g_test_add_func ("/arcs/domains", test_arc_domains);
  return g_test_run ();
}
