/* test-mtz.c: structure factors from an MTZ file: the 1HPV calculation (P 61)
 * expanded to P1 equals the P1 HKL text file made from the same model, and the
 * image it gives equals the image of the HKL file. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "nanobragg.h"
#include "nb-hkl.h"
#include "nb-mtz.h"

static char *
data_path (const char *name)
{
  const char *dir = g_getenv ("NB_DATA_DIR");

  return g_build_filename (dir != NULL ? dir : "data", name, NULL);
}

static void
test_expansion_matches_p1 (void)
{
  g_autofree char *mtz = data_path ("1hpv_fcalc.mtz");
  g_autofree char *hkl = data_path ("1hpv_p1.hkl");
  nb_hkl_grid a, b;
  nb_error err;
  char column[32];
  long compared = 0;
  double worst = 0.0;

  if (!nb_mtz_supported ())
    {
      g_test_skip ("built without libccp4");
      return;
    }
  g_assert_cmpint (nb_mtz_read (mtz, NULL, 0.0, SIZE_MAX, sizeof (double), &a, column, &err), ==,
                   NB_OK);
  g_assert_cmpstr (column, ==, "FC");
  g_assert_cmpint (nb_hkl_read (hkl, 0.0, &b, &err), ==, NB_OK);
  g_assert_cmpint (a.h_min, ==, b.h_min);
  g_assert_cmpint (a.h_max, ==, b.h_max);
  g_assert_cmpint (a.k_min, ==, b.k_min);
  g_assert_cmpint (a.k_max, ==, b.k_max);
  g_assert_cmpint (a.l_min, ==, b.l_min);
  g_assert_cmpint (a.l_max, ==, b.l_max);
  for (int h = a.h_min; h <= a.h_max; h++)
    for (int k = a.k_min; k <= a.k_max; k++)
      for (int l = a.l_min; l <= a.l_max; l++)
        {
          double fa = nb_hkl_lookup_nearest (&a, h, k, l, -1.0);
          double fb = nb_hkl_lookup_nearest (&b, h, k, l, -1.0);

          /* the text file holds two decimals; both list the same reflections */
          g_assert_cmpint (fa == 0.0, ==, fb == 0.0);
          worst = fmax (worst, fabs (fa - fb));
          compared += fb != 0.0;
        }
  g_test_message ("%ld reflections compared, worst |dF| %.4f", compared, worst);
  g_assert_cmpint (compared, >, 100000);
  g_assert_cmpfloat (worst, <=, 0.0051);
  nb_hkl_grid_clear (&a);
  nb_hkl_grid_clear (&b);
}

static void
test_errors (void)
{
  g_autofree char *hkl = data_path ("1hpv_p1.hkl");
  g_autofree char *mtz = data_path ("1hpv_fcalc.mtz");
  nb_hkl_grid g;
  nb_error err;

  if (!nb_mtz_supported ())
    {
      g_test_skip ("built without libccp4");
      return;
    }
  g_assert_cmpint (nb_mtz_read ("/nonexistent/x.mtz", NULL, 0.0, SIZE_MAX, 8, &g, NULL, &err), ==,
                   NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, "/nonexistent/x.mtz"));
  g_assert_cmpint (nb_mtz_read (hkl, NULL, 0.0, SIZE_MAX, 8, &g, NULL, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "not an MTZ file"));
  g_assert_cmpint (nb_mtz_read (mtz, "FOBS", 0.0, SIZE_MAX, 8, &g, NULL, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "FOBS"));
  /* a budget too small for the file, for its reflections expanded to P1, or
   * for the grid is refused, naming the file and the budget */
  g_assert_cmpint (nb_mtz_read (mtz, NULL, 0.0, 100000, 8, &g, NULL, &err), ==, NB_ERR_NOMEM);
  g_assert_nonnull (strstr (err.message, "1hpv_fcalc.mtz"));
  g_assert_nonnull (strstr (err.message, "memory budget"));
  g_assert_cmpint (nb_mtz_read (mtz, NULL, 0.0, 2000000, 8, &g, NULL, &err), ==, NB_ERR_NOMEM);
  g_assert_nonnull (strstr (err.message, "6 symmetry operators"));
  g_assert_cmpint (nb_mtz_read (mtz, NULL, 0.0, 5000000, 12, &g, NULL, &err), ==, NB_ERR_NOMEM);
  g_assert_nonnull (strstr (err.message, "64 x 64 x 84 structure-factor grid"));
  g_assert_null (g.F);
  g_assert_false (nb_file_is_mtz (hkl));
  g_assert_true (nb_file_is_mtz (mtz));
}

/* -hkl FILE.mtz renders what -hkl FILE.hkl renders (to the text file's
 * rounding). */
static void
test_image_matches (void)
{
  g_autofree char *mtz = data_path ("1hpv_fcalc.mtz");
  g_autofree char *hkl = data_path ("1hpv_p1.hkl");
  const char *files[2] = { mtz, hkl };
  float *img[2];
  double dmax = 0.0, vmax = 0.0;
  int n = 128 * 128;

  if (!nb_mtz_supported ())
    {
      g_test_skip ("built without libccp4");
      return;
    }
  for (int i = 0; i < 2; i++)
    {
      const char *argv[] = { "nanobragg",  "-hkl",  files[i],     "-cell", "63.4",    "63.4",
                             "83.8",       "90",    "90",         "120",   "-misset", "10",
                             "20",         "30",    "-lambda",    "1.0",   "-N",      "10",
                             "-distance",  "60",    "-detpixels", "128",   "-pixel",  "0.4",
                             "-precision", "single" };
      nb_params p;
      nb_plan *plan;
      nb_error err;

      nb_params_init (&p);
      g_assert_cmpint (nb_params_parse_argv (&p, G_N_ELEMENTS (argv), argv, &err), ==, NB_OK);
      g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
      img[i] = g_new (float, n);
      g_assert_cmpint (nb_plan_execute (plan, img[i], NULL, &err), ==, NB_OK);
      nb_plan_destroy (plan);
      nb_params_clear (&p);
    }
  for (int j = 0; j < n; j++)
    {
      dmax = fmax (dmax, fabs ((double) img[0][j] - img[1][j]));
      vmax = fmax (vmax, img[1][j]);
    }
  g_test_message ("max |diff| %.3g of max %.3g", dmax, vmax);
  g_assert_cmpfloat (vmax, >, 0.0);
  g_assert_cmpfloat (dmax, <=, 1e-3 * vmax);
  g_free (img[0]);
  g_free (img[1]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/mtz/expansion-matches-p1", test_expansion_matches_p1);
  g_test_add_func ("/mtz/errors", test_errors);
  g_test_add_func ("/mtz/image-matches", test_image_matches);
  return g_test_run ();
}
