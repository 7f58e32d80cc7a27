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

/* The image of "nanobragg @args", @n pixels, in a new buffer. */
static float *
render (const char *args, int n, char **log)
{
  nb_plan *plan = plan_new (args);
  float *img = g_new (float, n);
  nb_error err;

  g_assert_cmpint (nb_plan_get_info (plan)->fpixels * nb_plan_get_info (plan)->spixels, ==, n);
  g_assert_cmpint (nb_plan_execute (plan, img, NULL, &err), ==, NB_OK);
  if (log != NULL)
    *log = g_strdup (nb_plan_get_log (plan));
  nb_plan_destroy (plan);
  return img;
}

/* The golden images' parity (tests/golden/README.md): correlation, largest
 * difference and sum of @a against the reference @b. */
static void
assert_parity (const float *a, const float *b, int n)
{
  double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0, dmax = 0, vmax = 0, cc;

  for (int j = 0; j < n; j++)
    {
      sa += a[j];
      sb += b[j];
      saa += (double) a[j] * a[j];
      sbb += (double) b[j] * b[j];
      sab += (double) a[j] * b[j];
      dmax = fmax (dmax, fabs ((double) a[j] - b[j]));
      vmax = fmax (vmax, fabs ((double) b[j]));
    }
  cc = (n * sab - sa * sb) / sqrt ((n * saa - sa * sa) * (n * sbb - sb * sb));
  g_test_message ("CC %.7f, max |diff| %.3g of %.3g, sum ratio %.6f", cc, dmax, vmax, sa / sb);
  g_assert_cmpfloat (vmax, >, 0.0);
  g_assert_cmpfloat (cc, >=, 0.99999);
  g_assert_cmpfloat (dmax, <=, 1e-3 * vmax);
  g_assert_cmpfloat (fabs (sa / sb - 1.0), <=, 1e-3);
}

#define SCENE                                                                                      \
  "-misset 10 20 30 -lambda 1.0 -N 10 -distance 60 -detpixels 128 -pixel 0.4 -dmin 2 "             \
  "-precision single"

/* The image of the model (its cell, no -cell) equals the image of gemmi's
 * table of the same model (with the cell given). */
static void
test_image_matches_mtz (void)
{
  g_autofree char *pdb = data_path ("1hpv.pdb");
  g_autofree char *mtz = data_path ("1hpv_fcalc.mtz");
  g_autofree char *a_args = g_strdup_printf ("-model %s " SCENE, pdb);
  g_autofree char *b_args = g_strdup_printf ("-hkl %s -cell 63.4 63.4 83.8 90 90 120 " SCENE, mtz);
  g_autofree char *log = NULL;
  float *a, *b;

  if (skip_without_models ())
    return;
  a = render (a_args, 128 * 128, &log);
  b = render (b_args, 128 * 128, NULL);
  g_assert_nonnull (strstr (log, "unit cell of "));
  g_assert_nonnull (strstr (log, "computed "));
  assert_parity (a, b, 128 * 128);
  g_free (a);
  g_free (b);
}

/* An update that keeps the model and the resolution keeps its structure
 * factors; moving the detector closer (it then reaches further) computes
 * them again; moving it away, or a -dmin short of them, does not. */
static void
test_cache (void)
{
  g_autofree char *pdb = data_path ("1hpv.pdb");
  g_autofree char *args = g_strdup_printf ("nanobragg -model %s -detpixels 64 -pixel 0.4 "
                                           "-distance 200 -N 5",
                                           pdb);
  g_auto (GStrv) argv = NULL;
  int argc;
  nb_params p;
  nb_plan *plan;
  nb_plan_stats stats;
  nb_error err;

  if (skip_without_models ())
    return;
  g_assert_true (g_shell_parse_argv (args, &argc, &argv, NULL));
  nb_params_init (&p);
  g_assert_cmpint (nb_params_parse_argv (&p, argc, (const char *const *) argv, &err), ==, NB_OK);
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);

  p.misset[0] = 0.3;
  p.distance = 0.3; /* further: less reach */
  g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
  nb_plan_get_stats (plan, &stats);
  g_assert_cmpint (stats.rebuilds[NB_STAGE_STRUCTURE_FACTORS], ==, 1);

  p.distance = 0.05; /* closer: the corners reach 2.3 A, beyond the first table */
  g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
  nb_plan_get_stats (plan, &stats);
  g_assert_cmpint (stats.rebuilds[NB_STAGE_STRUCTURE_FACTORS], ==, 2);
  g_assert_cmpint (nb_plan_get_info (plan)->fpixels, ==, 64);

  p.dmin = 3.0e-10;
  g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
  p.misset[1] = 0.2;
  p.distance = 0.1;
  g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
  nb_plan_get_stats (plan, &stats);
  g_assert_cmpint (stats.rebuilds[NB_STAGE_STRUCTURE_FACTORS], ==, 2);
  g_assert_cmpint (stats.hits[NB_STAGE_STRUCTURE_FACTORS], ==, 3);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
}

/* -cell other than the model's: rendered in the crystal's cell, with one
 * warning line. */
static void
test_cell_warning (void)
{
  g_autofree char *pdb = data_path ("1hpv.pdb");
  g_autofree char *args = g_strdup_printf (
      "-model %s -cell 57.8 57.8 150.2 90 90 90 -detpixels 32 -pixel 0.4 -dmin 4", pdb);
  nb_plan *plan;
  const char *log, *w;

  if (skip_without_models ())
    return;
  plan = plan_new (args);
  log = nb_plan_get_log (plan);
  g_assert_true (nb_plan_get_info (plan)->hkl_cell_differs);
  g_assert_null (strstr (log, "unit cell of "));
  g_assert_nonnull (w = strstr (log, "WARNING: "));
  g_assert_nonnull (strstr (w, "is of the cell 63.4 63.4 83.8 90 90 120 (P 61)"));
  g_assert_null (strstr (w + 1, "WARNING: "));
  nb_plan_destroy (plan);
}

/* A deposited -sf.cif (a subset of PDB 4AAP's): its amplitudes, expanded
 * from P 32 2 1, and its cell. */
static void
test_sf_cif (void)
{
  g_autofree char *cif = data_path ("4aap-sf-subset.cif");
  g_autofree char *args = g_strdup_printf ("-hkl %s -detpixels 32 -pixel 0.4", cif);
  nb_structure m;
  nb_hkl_grid g;
  nb_error err;
  nb_plan *plan;

  if (skip_without_models ())
    return;
  g_assert_true (nb_file_is_model (cif));
  g_assert_cmpint (nb_structure_read (cif, SIZE_MAX, &m, &err), ==, NB_OK);
  g_assert_cmpint (m.kind, ==, NB_STRUCTURE_REFLECTIONS);
  g_assert_cmpstr (m.space_group, ==, "P 32 2 1");
  g_assert_cmpstr (m.column, ==, "F_meas_au");
  g_assert_cmpint (m.n_reflections, ==, 29);
  g_assert_cmpfloat_with_epsilon (m.cell[2], 269.003, 1e-9);
  g_assert_cmpint (nb_sf_expand_grid (cif, &m, -1.0, SIZE_MAX, sizeof (double), &g, &err), ==,
                   NB_OK);
  /* 7 5 2 and its images: (h k l) -> (k h -l), (-h-k, k, -l)... and Friedel */
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 7, 5, 2, -1), ==, 348.3);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 5, 7, -2, -1), ==, 348.3);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, -7, -5, -2, -1), ==, 348.3);
  g_assert_cmpfloat (nb_hkl_lookup_nearest (&g, 4, 1, -101, -1), ==, -1.0); /* "?" */
  nb_hkl_grid_clear (&g);
  nb_structure_clear (&m);
  plan = plan_new (args);
  g_assert_cmpfloat_with_epsilon (nb_plan_get_info (plan)->cell[2], 269.003, 1e-6);
  nb_plan_destroy (plan);
}

typedef struct
{
  const char *name, *text;
  gssize len;       /* of text; -1: its strlen */
  const char *says; /* in the message */
} damage;

/* Damaged copies of the model, each refused with one line naming the file. */
static void
test_damaged (void)
{
  g_autofree char *pdb_path = data_path ("1hpv.pdb");
  g_autofree char *cif_path = data_path ("1hpv.cif");
  g_autofree char *dir = g_dir_make_tmp ("nb-model-XXXXXX", NULL);
  g_autofree char *pdb = NULL, *cif = NULL;
  gsize pdb_len, cif_len;
  damage cases[8];
  int n = 0;

  if (skip_without_models ())
    return;
  g_assert_true (g_file_get_contents (pdb_path, &pdb, &pdb_len, NULL));
  g_assert_true (g_file_get_contents (cif_path, &cif, &cif_len, NULL));
  cases[n++] = (damage){ "cut.pdb", pdb, 60000, "truncated" };
  cases[n++] = (damage){ "cut.cif", cif, 50000, "cut.cif:316:" };
  cases[n++] = (damage){ "junk.pdb",
                         "CRYST1   63.400   63.400   83.800  90.00  90.00 "
                         "120.00 P 61\n\x01\x00\xff\xfe",
                         -1, "binary" };
  cases[n++] = (damage){ "nocell.pdb",
                         "ATOM      1  N   PRO A   1      13.120  39.003   5.159  1.00 "
                         "55.41           N\nEND\n",
                         -1, "no unit cell" };
  cases[n++] = (damage){ "noatoms.pdb",
                         "CRYST1   63.400   63.400   83.800  90.00  90.00 120.00 P 61\n"
                         "END\n",
                         -1, "no atoms" };
  cases[n++] = (damage){ "badcell.pdb",
                         "CRYST1   63.400   63.400  -83.800  90.00  90.00 120.00 P 61\n"
                         "ATOM      1  N   PRO A   1      13.120  39.003   5.159  1.00 "
                         "55.41           N\nEND\n",
                         -1, "cell" };
  cases[n++] = (damage){ "unknown.pdb",
                         "CRYST1   63.400   63.400   83.800  90.00  90.00 120.00 P 61\n"
                         "ATOM      1  XX  UNK A   1      13.120  39.003   5.159  1.00 "
                         "55.41          XX\nEND\n",
                         -1, "form factor" };
  cases[n++] = (damage){ "empty.cif", "data_x\n_cell.length_a 10\n", -1, "neither" };
  for (int i = 0; i < n; i++)
    {
      g_autofree char *path = g_build_filename (dir, cases[i].name, NULL);
      nb_structure m;
      nb_error err;
      gssize len = cases[i].len;

      if (len < 0)
        len = (gssize) strlen (cases[i].text) +
              (strstr (cases[i].name, "junk") ? 3 : 0); /* to \xfe */
      g_assert_true (g_file_set_contents (path, cases[i].text, len, NULL));
      g_assert_cmpint (nb_structure_read (path, SIZE_MAX, &m, &err), !=, NB_OK);
      g_test_message ("%s", err.message);
      g_assert_true (g_str_has_prefix (err.message, path));
      g_assert_null (strchr (err.message, '\n'));
      g_assert_nonnull (strstr (err.message, cases[i].says));
      g_assert_null (m.atoms);
      g_unlink (path);
    }
  /* bounded: a file larger than the caller allows is not read */
  {
    nb_structure m;
    nb_error err;

    g_assert_cmpint (nb_structure_read (pdb_path, 100000, &m, &err), ==, NB_ERR_NOMEM);
    g_assert_nonnull (strstr (err.message, "more than 100000 bytes"));
  }
  g_rmdir (dir);
}

/* A small-molecule CIF of @ops operators (the loop's rows, "" for none) and
 * symbol @hm ("" for none): a monoclinic cell with one atom of each kind of
 * displacement (U_iso, B_iso, U_ij) and one of half occupancy. */
static char *
small_cif (const char *hm, const char *ops)
{
  return g_strdup_printf (
      "data_test\n_cell_length_a 7.1\n_cell_length_b 9.3\n_cell_length_c 6.4\n"
      "_cell_angle_alpha 90\n_cell_angle_beta 101.5\n_cell_angle_gamma 90\n%s%s%s%s"
      "loop_\n_atom_site_label\n_atom_site_type_symbol\n_atom_site_fract_x\n"
      "_atom_site_fract_y\n_atom_site_fract_z\n_atom_site_U_iso_or_equiv\n"
      "_atom_site_occupancy\n"
      "C1 C 0.1234 0.2345 0.3456 0.021 1\nN1 N 0.4012 0.0713 0.8122 0.034 0.5\n"
      "O1 O 0.7321 0.6152 0.1879 0.030 1\nS1 S 0.0511 0.9203 0.6604 0.025 1\n"
      "loop_\n_atom_site_aniso_label\n_atom_site_aniso_U_11\n_atom_site_aniso_U_22\n"
      "_atom_site_aniso_U_33\n_atom_site_aniso_U_12\n_atom_site_aniso_U_13\n"
      "_atom_site_aniso_U_23\nO1 0.041 0.022 0.030 0.006 0.009 -0.004\n"
      "S1 0.019 0.031 0.027 -0.003 0.005 0.002\n",
      hm[0] ? "_symmetry_space_group_name_H-M '" : "", hm, hm[0] ? "'\n" : "", ops);
}

/* gemmi's own sfcalc (the program) of small-molecule CIF @path to @d_min:
 * its reflections in @hkl, amplitudes in @F; FALSE with a skip when the
 * program is not installed. */
static gboolean
gemmi_sfcalc (const char *path, const char *d_min, GArray *hkl, GArray *F)
{
  g_autofree char *gemmi = g_find_program_in_path ("gemmi");
  g_autofree char *dmin = g_strconcat ("--dmin=", d_min, NULL);
  const char *argv[] = { gemmi, "sfcalc", dmin, path, NULL };
  g_autofree char *out = NULL;
  g_auto (GStrv) lines = NULL;
  int status;

  if (gemmi == NULL)
    {
      g_test_skip ("no gemmi program (Debian gemmi)");
      return FALSE;
    }
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                               &out, NULL, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  lines = g_strsplit (out, "\n", -1);
  for (int i = 0; lines[i] != NULL; i++)
    {
      int h[3];
      double f;

      if (sscanf (lines[i], " (%d %d %d) %lf", &h[0], &h[1], &h[2], &f) == 4)
        {
          g_array_append_vals (hkl, h, 3);
          g_array_append_val (F, f);
        }
    }
  return TRUE;
}

/* R and CC of @calc against @ref, @n values each. */
static void
compare_lists (const double *ref, const double *calc, long n, double *R, double *CC)
{
  double sum_d = 0, sum_r = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;

  for (long i = 0; i < n; i++)
    {
      sum_d += fabs (ref[i] - calc[i]);
      sum_r += ref[i];
      sx += ref[i];
      sy += calc[i];
      sxx += ref[i] * ref[i];
      syy += calc[i] * calc[i];
      sxy += ref[i] * calc[i];
    }
  *R = sum_d / sum_r;
  *CC = (n * sxy - sx * sy) / sqrt ((n * sxx - sx * sx) * (n * syy - sy * sy));
}

/* Small-molecule CIF @path read and its F computed by sfcalc.c, against
 * gemmi's own small-structure calculation to @d_min: R < 1 %, CC > 0.9999.
 * The structure read is left in @m. */
static void
check_small_against_gemmi (const char *path, const char *d_min, nb_structure *m)
{
  g_autoptr (GArray) hkl = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr (GArray) ref = g_array_new (FALSE, FALSE, sizeof (double));
  g_autofree double *F = NULL;
  nb_error err;
  double R, CC;
  long n;

  g_assert_cmpint (nb_structure_read (path, SIZE_MAX, m, &err), ==, NB_OK);
  g_test_message ("%s", m->note);
  g_assert_cmpint (m->kind, ==, NB_STRUCTURE_ATOMS);
  if (!gemmi_sfcalc (path, d_min, hkl, ref))
    return;
  n = (long) ref->len;
  g_assert_cmpint (n, >, 20);
  F = g_new (double, n);
  g_assert_cmpint (nb_sfcalc_list (m, (const int *) hkl->data, n, F, &err), ==, NB_OK);
  compare_lists ((const double *) ref->data, F, n, &R, &CC);
  g_test_message ("%s: %ld reflections to %s A, R %.2e, CC %.8f", path, n, d_min, R, CC);
  g_assert_cmpfloat (R, <, 0.01);
  g_assert_cmpfloat (CC, >, 0.9999);
}

/* NaCl (COD 1000041): F m -3 m from the CIF's 192 operators, both ions on
 * special positions (their occupancy divided by the site symmetry, 48). */
static void
test_small_nacl (void)
{
  g_autofree char *cif = data_path ("nacl.cif");
  nb_structure m;

  if (skip_without_models ())
    return;
  check_small_against_gemmi (cif, "0.5", &m);
  g_assert_cmpint (m.n_atoms, ==, 2);
  g_assert_cmpint (m.n_symops, ==, 192);
  g_assert_cmpstr (m.space_group, ==, "F m -3 m");
  g_assert_cmpfloat_with_epsilon (m.cell[0], 5.62, 1e-9);
  g_assert_cmpfloat_with_epsilon (m.atoms[0].occupancy, 1.0 / 48.0, 1e-12);
  g_assert_nonnull (strstr (m.note, "2 on special positions"));
  nb_structure_clear (&m);
}

/* A monoclinic crystal with U_iso, U_ij and half occupancy against gemmi; the
 * same given by its operators alone (no symbol) gives the same F. */
static void
test_small_general (void)
{
  static const char ops[] = "loop_\n_space_group_symop_operation_xyz\nx,y,z\n-x,1/2+y,1/2-z\n"
                            "-x,-y,-z\nx,1/2-y,1/2+z\n";
  g_autofree char *dir = g_dir_make_tmp ("nb-small-XXXXXX", NULL);
  g_autofree char *by_name = g_build_filename (dir, "named.cif", NULL);
  g_autofree char *by_ops = g_build_filename (dir, "ops.cif", NULL);
  g_autofree char *named = small_cif ("P 1 21/c 1", "");
  g_autofree char *listed = small_cif ("", ops);
  const int hkl[] = { 1, 0, 0, 0, 1, 1, 2, -1, 3, -3, 4, 2, 1, 5, -2, 0, 0, 4 };
  double F1[6], F2[6];
  nb_structure m, m2;
  nb_error err;

  if (skip_without_models ())
    return;
  g_assert_true (g_file_set_contents (by_name, named, -1, NULL));
  g_assert_true (g_file_set_contents (by_ops, listed, -1, NULL));
  check_small_against_gemmi (by_name, "1.0", &m);
  g_assert_cmpint (m.n_atoms, ==, 4);
  g_assert_cmpint (m.n_symops, ==, 4);
  g_assert_nonnull (strstr (m.note, "2 anisotropic, 0 on special positions"));
  g_assert_cmpfloat_with_epsilon (m.atoms[0].B, 8 * M_PI * M_PI * 0.021, 1e-9);
  g_assert_cmpfloat_with_epsilon (m.atoms[1].occupancy, 0.5, 1e-12);
  g_assert_cmpfloat (m.atoms[2].U[0], >, 0.0);

  g_assert_cmpint (nb_structure_read (by_ops, SIZE_MAX, &m2, &err), ==, NB_OK);
  g_test_message ("%s", m2.note);
  g_assert_cmpstr (m2.space_group, ==, "P 1 21/c 1");
  g_assert_nonnull (strstr (m2.note, "the 4 operators it lists"));
  g_assert_cmpint (nb_sfcalc_list (&m, hkl, 6, F1, &err), ==, NB_OK);
  g_assert_cmpint (nb_sfcalc_list (&m2, hkl, 6, F2, &err), ==, NB_OK);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat_with_epsilon (F1[i], F2[i], 1e-9 * F1[i]);
  nb_structure_clear (&m);
  nb_structure_clear (&m2);
  g_unlink (by_name);
  g_unlink (by_ops);
  g_rmdir (dir);
}

/* nanobragg -model nacl.cif renders salt: spots, nothing that is not a
 * number, the cell of the CIF. */
static void
test_small_render (void)
{
  g_autofree char *cif = data_path ("nacl.cif");
  g_autofree char *args = g_strdup_printf ("-model %s -detpixels 128 -pixel 0.5 -distance 60 "
                                           "-lambda 0.7 -N 10 -misset 10 20 30 -mosaic 0.5 "
                                           "-mosaic_domains 4",
                                           cif);
  const size_t n = 128 * 128;
  g_autofree char *log = NULL;
  float *img;
  size_t bright = 0;
  float max = 0.0f;
  double sum = 0.0;

  if (skip_without_models ())
    return;
  img = render (args, (int) n, &log);
  g_assert_nonnull (strstr (log, "unit cell of "));
  g_assert_nonnull (strstr (log, "F m -3 m"));
  for (size_t i = 0; i < n; i++)
    {
      g_assert_true (isfinite (img[i]) && img[i] >= 0.0f);
      max = fmaxf (max, img[i]);
      sum += img[i];
    }
  for (size_t i = 0; i < n; i++)
    bright += img[i] > 0.1f * max;
  g_test_message ("NaCl: max %g, mean %g, %zu pixels above a tenth of the max", max, sum / n,
                  bright);
  /* spots: a few bright pixels over a dark background */
  g_assert_cmpfloat (max, >, 20.0 * sum / n);
  g_assert_cmpuint (bright, >, 0);
  g_assert_cmpuint (bright, <, n / 20);
  g_free (img);
}

/* The resolution (Angstrom) to which the plan of "nanobragg @args" computed
 * its model's structure factors, from its log. */
static double
computed_d_min (const char *args)
{
  nb_plan *plan = plan_new (args);
  const char *at = strstr (nb_plan_get_log (plan), "computed ");
  double d = 0.0;

  g_assert_nonnull (at);
  g_assert_nonnull (at = strstr (at, " to "));
  g_assert_cmpint (sscanf (at, " to %lf Angstrom", &d), ==, 1);
  nb_plan_destroy (plan);
  return d;
}

/* A multi-panel detector: the structure factors reach as far as its outer
 * panel does, not only panel 0 (near the beam); a curved detector bends its
 * corners further out than the flat one. */
static void
test_detector_reach (void)
{
  static const char panels[] = "res = 10000\nclen = 50 mm\n"
                               "near/min_fs = 0\nnear/max_fs = 19\nnear/min_ss = 0\n"
                               "near/max_ss = 19\nnear/fs = x\nnear/ss = y\n"
                               "near/corner_x = -10\nnear/corner_y = -10\n";
  static const char far[] = "far/min_fs = 0\nfar/max_fs = 19\nfar/min_ss = 20\nfar/max_ss = 39\n"
                            "far/fs = x\nfar/ss = y\nfar/corner_x = 200\nfar/corner_y = -10\n";
  g_autofree char *pdb = data_path ("1hpv.pdb");
  g_autofree char *dir = g_dir_make_tmp ("nb-reach-XXXXXX", NULL);
  g_autofree char *both = g_build_filename (dir, "both.geom", NULL);
  g_autofree char *near_only = g_build_filename (dir, "near.geom", NULL);
  g_autofree char *far_only = g_build_filename (dir, "far.geom", NULL);
  g_autofree char *both_text = g_strconcat (panels, far, NULL);
  g_autofree char *far_text = g_strconcat ("res = 10000\nclen = 50 mm\n", far, NULL);
  g_autofree char *a_both = NULL, *a_near = NULL, *a_far = NULL, *flat = NULL, *curved = NULL;
  double d_both, d_near, d_far, d_flat, d_curved, q, step, expect;

  if (skip_without_models ())
    return;
  g_assert_true (g_file_set_contents (both, both_text, -1, NULL));
  g_assert_true (g_file_set_contents (near_only, panels, -1, NULL));
  g_assert_true (g_file_set_contents (far_only, far_text, -1, NULL));
  a_both = g_strdup_printf ("-model %s -lambda 2 -N 3 -detector %s", pdb, both);
  a_near = g_strdup_printf ("-model %s -lambda 2 -N 3 -detector %s", pdb, near_only);
  a_far = g_strdup_printf ("-model %s -lambda 2 -N 3 -detector %s", pdb, far_only);
  d_both = computed_d_min (a_both);
  d_near = computed_d_min (a_near);
  d_far = computed_d_min (a_far);
  g_test_message ("d_min: both panels %g, near %g, far %g A", d_both, d_near, d_far);
  g_assert_cmpfloat (d_far, <, 0.5 * d_near);
  g_assert_cmpfloat (d_both, ==, d_far);

  /* one panel, 40 mm square, 50 mm away, beam at its centre (half a pixel
   * off, as MOSFLM's default): its furthest corner, 20.05 mm along each
   * axis, bends to 0.401 rad about each, so cos 2theta = cos^2 0.401; flat,
   * tan 2theta = sqrt 2 x 0.401, 6 % less far */
  flat = g_strdup_printf ("-model %s -lambda 2 -N 3 -detpixels 400 -pixel 0.1 -distance 50 "
                          "-nointerpolate",
                          pdb);
  curved = g_strconcat (flat, " -curved_det", NULL);
  d_flat = computed_d_min (flat);
  d_curved = computed_d_min (curved);
  step = 2.0 / 63.4 + 1.0 / 83.8; /* a reciprocal axis of each */
  q = sqrt (2.0 * (1.0 - cos (0.401) * cos (0.401))) / 2.0;
  expect = 1.0 / (q + step);
  g_test_message ("d_min: flat %g, curved %g A (expected %g)", d_flat, d_curved, expect);
  g_assert_cmpfloat (d_curved, <, d_flat);
  g_assert_cmpfloat (fabs (d_curved - expect), <, 0.01 * expect);
  g_unlink (both);
  g_unlink (near_only);
  g_unlink (far_only);
  g_rmdir (dir);
}

/* The program, as a user runs it: nanobragg -model FILE alone (no -cell)
 * writes its image and says whose cell it took. */
static void
test_cli_run (void)
{
  const char *cli = g_getenv ("NB_CLI");
  g_autofree char *pdb = data_path ("1hpv.pdb");
  g_autofree char *dir = g_dir_make_tmp ("nb-model-cli-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "model.float", NULL);
  g_autofree char *std_out = NULL, *std_err = NULL;
  const char *argv[] = { cli,   "-model",    pdb,   "-detpixels", "64", "-pixel",
                         "0.4", "-distance", "100", "-floatfile", out,  NULL };
  GStatBuf st;
  int status;

  if (skip_without_models ())
    return;
  if (cli == NULL)
    {
      g_test_skip ("NB_CLI not set");
      return;
    }
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &std_out,
                               &std_err, &status, NULL));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (std_out, "unit cell of "));
  g_assert_cmpint (g_stat (out, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 64 * 64 * sizeof (float));
  g_unlink (out);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/model/pdb-matches-gemmi", test_pdb_matches_gemmi);
  g_test_add_func ("/model/mmcif-matches-gemmi", test_mmcif_matches_gemmi);
  g_test_add_func ("/model/image-matches-mtz", test_image_matches_mtz);
  g_test_add_func ("/model/cache", test_cache);
  g_test_add_func ("/model/cell-warning", test_cell_warning);
  g_test_add_func ("/model/sf-cif", test_sf_cif);
  g_test_add_func ("/model/damaged", test_damaged);
  g_test_add_func ("/model/cli-run", test_cli_run);
  g_test_add_func ("/model/small-nacl", test_small_nacl);
  g_test_add_func ("/model/small-general", test_small_general);
  g_test_add_func ("/model/small-render", test_small_render);
  g_test_add_func ("/model/detector-reach", test_detector_reach);
  return g_test_run ();
}
