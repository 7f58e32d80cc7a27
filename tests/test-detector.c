/* test-detector.c: multi-panel detectors (issue 29): the CrystFEL geometry
 * reader on CrystFEL's own examples and on files it must refuse, and the
 * multi-panel image of `nanobragg -detector FILE` against one-panel runs of
 * `nanobragg` with each panel's -fdet_vector, -sdet_vector, -odet_vector,
 * -pix0_vector and pixel counts, bit for bit. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/nb-geom.h"
#include "nanobragg.h"
#include "nb-detector.h"
#include "nb-test-util.h"

static char *
data_path (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "detectors", name, NULL);
}

static void
assert_close (double a, double b, double tol)
{
  if (fabs (a - b) > tol)
    g_error ("%.17g != %.17g (tolerance %g)", a, b, tol);
}

static void
test_geom_jungfrau (void)
{
  g_autofree char *path = data_path ("jf-swissfel-16M.geom");
  nb_detector_model m;
  nb_error err = { 0 };
  const double res = 13333.3;

  g_assert_cmpint (nb_detector_model_read (path, &m, &err), ==, NB_OK);
  g_assert_cmpint (m.kind, ==, NB_DETECTOR_FILE_GEOM);
  g_assert_cmpint (m.n_panels, ==, 32);
  g_assert_cmpint (nb_detector_model_pixels (&m), ==, 32LL * 1030 * 514);
  g_assert_cmpint (m.data_fpixels, ==, 1030);
  g_assert_cmpint (m.data_spixels, ==, 32 * 514);
  g_assert_cmpstr (m.panels[0].name, ==, "m0");
  g_assert_cmpint (m.panels[1].data_origin_s, ==, 514);
  assert_close (m.panels[0].pixel_size, 1.0 / res, 1e-15);
  /* m0: fs = 0.000342x -0.999931y, corner (2147.07, 1131.30) px, clen 95.3 mm, coffset -0.085 mm;
   * nanoBragg's frame is (z, y, -x) of CrystFEL's */
  assert_close (m.panels[0].pix0[0], 0.0953 - 0.000085, 1e-12); /* m0/coffset */
  assert_close (m.panels[0].pix0[1], 1131.30172146 / res, 1e-12);
  assert_close (m.panels[0].pix0[2], -2147.07110898 / res, 1e-12);
  assert_close (m.panels[0].fdet[1], -0.999931 / hypot (0.000342, 0.999931), 1e-12);
  assert_close (m.panels[0].fdet[2], -0.000342 / hypot (0.000342, 0.999931), 1e-12);
  assert_close (m.panels[0].sdet[2], 0.998976 / hypot (0.998976, 0.00005), 1e-12);
  assert_close (m.beam[0], 1.0, 0.0);
  assert_close (m.wavelength, 12398.42 / 4570 * 1e-10, 1e-16);
  /* bad_bs_1: fs 890..1029, ss 7710..7770 of the data array, in m15 (ss from 7710) */
  g_assert_nonnull (m.panels[15].mask);
  g_assert_cmpint (m.panels[15].mask[0 * 1030 + 890], !=, 0);
  g_assert_cmpint (m.panels[15].mask[60 * 1030 + 1029], !=, 0);
  g_assert_cmpint (m.panels[15].mask[61 * 1030 + 1029], ==, 0);
  g_assert_cmpint (m.panels[15].mask[0 * 1030 + 889], ==, 0);
  g_assert_null (m.panels[0].mask);
  g_assert_nonnull (strstr (m.note, "not used"));
  nb_detector_model_clear (&m);
}

static void
test_geom_eiger (void)
{
  g_autofree char *path = data_path ("Eiger16M-binning2-nativefiles.geom");
  nb_detector_model m;
  nb_error err = { 0 };
  size_t bad = 0;

  g_assert_cmpint (nb_detector_model_read (path, &m, &err), ==, NB_OK);
  g_assert_cmpint (m.n_panels, ==, 1);
  g_assert_cmpint (m.panels[0].fpixels, ==, 2070);
  g_assert_cmpint (m.panels[0].spixels, ==, 2167);
  /* fs = x, ss = y: fdet = -z, sdet = +y in nanoBragg's frame, odet along the beam */
  assert_close (m.panels[0].fdet[2], -1.0, 0.0);
  assert_close (m.panels[0].sdet[1], 1.0, 0.0);
  assert_close (m.panels[0].pix0[0], 0.1, 0.0);
  assert_close (m.panels[0].pix0[2], 1000.0 / 13333.3, 1e-15);
  /* the gaps: one vertical strip of 10 x 2167, three horizontal of 2070 x 37 */
  for (size_t i = 0; i < (size_t) 2070 * 2167; i++)
    bad += m.panels[0].mask[i] != 0;
  g_assert_cmpuint (bad, ==, 10 * 2167 + 3 * (2070 - 10) * 37);
  nb_detector_model_clear (&m);
}

/* A header clen (pilatus.geom's /LCLS/detectorPosition) is refused naming the line. */
static void
test_geom_header_clen (void)
{
  g_autofree char *path = data_path ("pilatus.geom");
  g_autofree char *where = g_strdup_printf ("%s:3:", path);
  nb_detector_model m;
  nb_error err = { 0 };

  g_assert_cmpint (nb_detector_model_read (path, &m, &err), ==, NB_ERR_PARSE);
  g_test_message ("%s", err.message);
  g_assert_true (g_str_has_prefix (err.message, where));
  g_assert_nonnull (strstr (err.message, "header"));
  g_assert_cmpint (m.n_panels, ==, 0);
}

static const char small_geom[] = "res = 10000 ; 0.1 mm pixels\n"
                                 "clen = 100 mm\n"
                                 "a/min_fs = 0\na/max_fs = 39\na/min_ss = 0\na/max_ss = 23\n"
                                 "a/fs = x\na/ss = y\na/corner_x = -20\na/corner_y = -12\n";

/* One line broken in each way a file may be: the error names the file and that line. */
static void
test_geom_refusals (void)
{
  static const struct
  {
    const char *line;
    const char *says;
  } cases[] = {
    { "a/fs = 0.5q", "direction" },
    { "a/max_fs = -3", "pixel index" },
    { "a/corner_x = left", "not a number" },
    { "a/colour = blue", "not a panel key" },
    { "just words", "key = value" },
    { "clen = 0.1 furlong", "length" },
    { "bad_x/min_fs = 100\nbad_x/max_fs = 200\nbad_x/min_ss = 0\nbad_x/max_ss = 1",
      "within panel" },
    { "bad_y/min_x = 0", "min_x, max_x" },
    { "a/ss = 2x", "parallel" },
    { "a/max_fs = 16777216", "pixel index" },
  };
  g_autofree char *dir = g_dir_make_tmp ("nb-geom-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "bad.geom", NULL);

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = g_strconcat (small_geom, cases[i].line, "\n", NULL);
      nb_detector_model m;
      nb_error err = { 0 };

      g_assert_true (g_file_set_contents (path, text, -1, NULL));
      g_assert_cmpint (nb_detector_model_read (path, &m, &err), ==, NB_ERR_PARSE);
      g_test_message ("%s -> %s", cases[i].line, err.message);
      g_assert_true (g_str_has_prefix (err.message, path));
      g_assert_nonnull (strstr (err.message, cases[i].says));
      g_assert_null (strchr (err.message, '\n'));
      g_assert_cmpint (m.n_panels, ==, 0);
    }
  {
    /* a line of 5000 bytes */
    g_autofree char *longline = g_strnfill (5000, 'x');
    g_autofree char *text = g_strconcat (small_geom, ";", longline, "\n", NULL);
    nb_detector_model m;
    nb_error err = { 0 };

    g_assert_true (g_file_set_contents (path, text, -1, NULL));
    g_assert_cmpint (nb_detector_model_read (path, &m, &err), ==, NB_ERR_PARSE);
    g_assert_nonnull (strstr (err.message, ":11: line longer"));
  }
  nb_test_remove_tree (dir);
}

/* By contents: JSON and HDF5 go to the formats module's readers; a FIFO is
 * refused without waiting for a writer. */
static void
test_read_dispatch (void)
{
  g_autofree char *dir = g_dir_make_tmp ("nb-geom-XXXXXX", NULL);
  g_autofree char *expt = g_build_filename (dir, "a.geom", NULL);
  g_autofree char *h5 = g_build_filename (dir, "b.geom", NULL);
  g_autofree char *fifo = g_build_filename (dir, "fifo.geom", NULL);
  static const char hdf5[] = "\211HDF\r\n\032\n\0\0\0";
  nb_detector_model m;
  nb_error err = { 0 };

  g_assert_true (g_file_set_contents (expt, "\n  {\"__id__\": \"ExperimentList\"}", -1, NULL));
  /* the .expt reader answers (or the build says it has none), not CrystFEL's */
  g_assert_cmpint (nb_detector_model_read (expt, &m, &err), !=, NB_OK);
  g_assert_nonnull (strstr (err.message, "experiment list"));
  g_assert_true (g_file_set_contents (h5, hdf5, sizeof hdf5, NULL));
  g_assert_cmpint (nb_detector_model_read (h5, &m, &err), !=, NB_OK);
  g_assert_nonnull (strstr (err.message, "libhdf5"));
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (nb_detector_model_read (fifo, &m, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, "FIFO"));
  nb_test_remove_tree (dir);
}

/* Diamond I23's Pilatus 12M (dls-i23-pilatus12m.geom, ours): 24 modules of
 * 2463 x 195 pixels of 172 um, module j at rows 212 j of the 2463 x 5071
 * miniCBF array, standing on a cylinder of radius 250 mm about the
 * horizontal axis normal to the beam (fdet along it): module j's slow axis
 * turned 7.903 / 2 - 12.2 + 8.344 j deg about it, its first pixel's corner
 * 184.9 mm along -fdet and 16.8 mm along -sdet from its foot on the axis.
 * The axis passes 10 mm downstream of the sample (Detector_distance), shifted
 * by the header's beam centre (1080, 2595) from the blueprint's (1075, 2594)
 * pixels: 0.86 mm along -fdet, 0.172 mm down.  The 7-pixel gaps between a
 * module's five sensors are masked. */
static void
test_geom_i23 (void)
{
  g_autofree char *path = data_path ("dls-i23-pilatus12m.geom");
  const double axis[3] = { 0.010, -0.000172, 0.00086 }; /* m, lab frame */
  nb_detector_model m;
  nb_error err = { 0 };

  g_assert_cmpint (nb_detector_model_read (path, &m, &err), ==, NB_OK);
  g_assert_cmpint (m.n_panels, ==, 24);
  g_assert_cmpint (m.data_fpixels, ==, 2463);
  g_assert_cmpint (m.data_spixels, ==, 5071);
  for (int j = 0; j < 24; j++)
    {
      const nb_panel *p = &m.panels[j];
      double a = (-12.2 + 0.5 * 7.903 + j * (7.903 + 0.441)) * G_PI / 180.0;
      double normal[3], rel[3], along_f = 0, along_s = 0, out = 0;
      int masked = 0;

      g_assert_cmpint (p->fpixels, ==, 2463);
      g_assert_cmpint (p->spixels, ==, 195);
      g_assert_cmpint (p->data_origin_f, ==, 0);
      g_assert_cmpint (p->data_origin_s, ==, 212 * j);
      assert_close (p->pixel_size, 172e-6, 1e-15);
      assert_close (p->fdet[0], 0.0, 1e-15);
      assert_close (p->fdet[1], 0.0, 1e-15);
      assert_close (p->fdet[2], -1.0, 1e-15);
      assert_close (p->sdet[0], cos (a), 1e-12);
      assert_close (p->sdet[1], sin (a), 1e-12);
      assert_close (p->sdet[2], 0.0, 1e-15);
      normal[0] = p->fdet[1] * p->sdet[2] - p->fdet[2] * p->sdet[1];
      normal[1] = p->fdet[2] * p->sdet[0] - p->fdet[0] * p->sdet[2];
      normal[2] = p->fdet[0] * p->sdet[1] - p->fdet[1] * p->sdet[0];
      for (int k = 0; k < 3; k++)
        {
          rel[k] = p->pix0[k] - axis[k];
          along_f += rel[k] * p->fdet[k];
          along_s += rel[k] * p->sdet[k];
          out += rel[k] * normal[k];
        }
      /* 1e-9 m = 1e-6 mm */
      assert_close (fabs (out), 0.250, 1e-9);
      assert_close (along_f, -0.1849, 1e-9);
      assert_close (along_s, -0.0168, 1e-9);
      g_assert_nonnull (p->mask);
      for (int s = 0; s < 195; s++)
        for (int f = 0; f < 2463; f++)
          {
            int gap = f % 494 >= 487;
            g_assert_cmpint (p->mask[s * 2463 + f] != 0, ==, gap);
            masked += gap;
          }
      g_assert_cmpint (masked, ==, 4 * 7 * 195);
    }
  nb_detector_model_clear (&m);
}

/* ---- the multi-panel image against one-panel runs ---- */

static char *
run_cli (const char *dir, GPtrArray *args)
{
  const char *cli = g_getenv ("NB_CLI");
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL, *errors = NULL;
  int status = 0;

  g_assert_nonnull (cli);
  g_ptr_array_insert (args, 0, g_strdup (cli));
  g_ptr_array_add (args, NULL);
  g_assert_true (g_spawn_sync (dir, (char **) args->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                               &errors, &status, &error));
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("nanobragg failed: %s", errors);
  return g_steal_pointer (&out);
}

static void
add_args (GPtrArray *args, const char *const *words)
{
  for (; *words != NULL; words++)
    g_ptr_array_add (args, g_strdup (*words));
}

static void
add_vector (GPtrArray *args, const char *flag, const double v[3])
{
  g_ptr_array_add (args, g_strdup (flag));
  for (int k = 0; k < 3; k++)
    g_ptr_array_add (args, g_strdup_printf ("%.17g", v[k]));
}

/* The -pixel value (mm) that the parser turns into @size metres exactly. */
static char *
pixel_mm (double size)
{
  double mm = size * 1000.0;

  for (int i = 0; i < 8 && mm / 1000.0 != size; i++)
    mm = nextafter (mm, mm / 1000.0 < size ? INFINITY : 0.0);
  g_assert_true (mm / 1000.0 == size);
  return g_strdup_printf ("%.17g", mm);
}

static GPtrArray *
common_args (const char *const *flags)
{
  static const char *const base[] = { "-default_F", "100", "-cell",    "61",      "72",
                                      "83",         "90",  "90",       "90",      "-misset",
                                      "10",         "20",  "30",       "-lambda", "1.1",
                                      "-N",         "4",   "-nonoise", "-nopgm",  NULL };
  GPtrArray *args = g_ptr_array_new_with_free_func (g_free);

  add_args (args, base);
  add_args (args, flags);
  return args;
}

/* Renders @geom with `nanobragg -detector`, then each panel alone, and
 * compares the blocks' bytes. */
static void
check_panels_exact (const char *geom, const char *const *flags, int min_lit)
{
  g_autofree char *dir = g_dir_make_tmp ("nb-panels-XXXXXX", NULL);
  g_autofree char *whole_path = g_build_filename (dir, "whole.bin", NULL);
  g_autofree char *whole = NULL;
  gsize whole_len = 0;
  nb_detector_model m;
  nb_plan *plan;
  nb_params p;
  nb_error err = { 0 };
  int lit_panels = 0;
  size_t masked = 0;

  g_assert_cmpint (nb_detector_model_read (geom, &m, &err), ==, NB_OK);
  {
    g_autoptr (GPtrArray) args = common_args (flags);
    g_autofree char *out = NULL;

    add_args (args, (const char *const[]){ "-detector", geom, "-floatfile", "whole.bin", NULL });
    out = run_cli (dir, args);
    g_assert_nonnull (strstr (out, "panels one after another"));
    g_assert_true (g_file_get_contents (whole_path, &whole, &whole_len, NULL));
    g_assert_cmpuint (whole_len, ==, (gsize) nb_detector_model_pixels (&m) * sizeof (float));
    /* the plan's view of each panel: its normal, away from the sample */
    g_ptr_array_remove_index (args, 0);
    g_ptr_array_set_size (args, args->len - 1);
    g_ptr_array_insert (args, 0, g_strdup ("nanobragg"));
    nb_params_init (&p);
    g_assert_cmpint (
        nb_params_parse_argv (&p, (int) args->len, (const char *const *) args->pdata, &err), ==,
        NB_OK);
    g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
    nb_params_clear (&p);
  }
  g_assert_cmpint (nb_plan_get_info (plan)->n_panels, ==, m.n_panels);
  for (int i = 0; i < m.n_panels; i++)
    {
      const nb_panel *pn = &m.panels[i];
      g_autoptr (GPtrArray) args = common_args (flags);
      g_autofree char *one_path = g_build_filename (dir, "one.bin", NULL);
      g_autofree char *one = NULL, *out = NULL, *pixel = pixel_mm (pn->pixel_size);
      g_autofree char *nf = g_strdup_printf ("%d", pn->fpixels);
      g_autofree char *ns = g_strdup_printf ("%d", pn->spixels);
      gsize one_len = 0;
      size_t offset = nb_detector_model_panel_offset (&m, i), lit = 0;
      nb_plan_info info;
      g_autofree float *mine = NULL;
      nb_plan *alone = NULL;

      g_assert_cmpint (nb_plan_get_panel_info (plan, i, &info, &err), ==, NB_OK);
      /* the panel's corner is where the file puts it (-pix0_vector takes effect, Q-13) */
      for (int k = 0; k < 3; k++)
        g_assert_cmpfloat (info.pix0[k], ==, pn->pix0[k]);
      g_assert_cmpint (info.fpixels, ==, pn->fpixels);
      g_assert_cmpint (info.spixels, ==, pn->spixels);
      g_assert_cmpfloat (info.odet[0] * pn->pix0[0] + info.odet[1] * pn->pix0[1] +
                             info.odet[2] * pn->pix0[2],
                         >, 0.0);
      /* nb_plan_get_panel_params() gives the panel as these flags do */
      {
        nb_params given;

        g_assert_cmpint (nb_plan_get_panel_params (plan, i, &given, &err), ==, NB_OK);
        g_assert_null (given.detector_file);
        g_assert_cmpint (given.convention, ==, NB_CONVENTION_CUSTOM);
        g_assert_cmpmem (given.fdet, sizeof given.fdet, pn->fdet, sizeof pn->fdet);
        g_assert_cmpmem (given.sdet, sizeof given.sdet, pn->sdet, sizeof pn->sdet);
        for (int k = 0; k < 3; k++)
          g_assert_cmpfloat (fabs (given.odet[k] - info.odet[k]), <=, 1e-15);
        g_assert_cmpmem (given.pix0, sizeof given.pix0, pn->pix0, sizeof pn->pix0);
        g_assert_cmpmem (given.beam, sizeof given.beam, m.beam, sizeof m.beam);
        g_assert_cmpint (given.fpixels, ==, pn->fpixels);
        g_assert_cmpint (given.spixels, ==, pn->spixels);
        g_assert_cmpfloat (given.pixel_size, ==, pn->pixel_size);
        mine = g_new (float, (size_t) pn->fpixels * pn->spixels);
        g_assert_cmpint (nb_plan_create (&given, &alone, &err), ==, NB_OK);
        g_assert_cmpint (nb_plan_execute (alone, mine, NULL, &err), ==, NB_OK);
        nb_plan_destroy (alone);
        nb_params_clear (&given);
      }
      add_vector (args, "-fdet_vector", pn->fdet);
      add_vector (args, "-sdet_vector", pn->sdet);
      add_vector (args, "-odet_vector", info.odet);
      add_vector (args, "-pix0_vector", pn->pix0);
      add_vector (args, "-beam_vector", m.beam);
      add_args (args,
                (const char *const[]){ "-detpixels_f", nf, "-detpixels_s", ns, "-pixel", pixel,
                                       "-floatfile", "one.bin", "-intfile", "one.img", NULL });
      out = run_cli (dir, args);
      g_assert_true (g_file_get_contents (one_path, &one, &one_len, NULL));
      g_assert_cmpuint (one_len, ==, (gsize) pn->fpixels * pn->spixels * sizeof (float));
      /* and renders it as they do, bit for bit */
      g_assert_cmpmem (mine, one_len, one, one_len);
      /* bit for bit, but where the file's bad regions mask the panel: 0 there */
      for (size_t k = 0; k < one_len / sizeof (float); k++)
        {
          const float *a = (const float *) (const void *) whole + offset + k;
          const float *b = (const float *) (const void *) one + k;

          if (pn->mask != NULL && pn->mask[k] != 0)
            {
              g_assert_cmpfloat (*a, ==, 0.0f);
              masked++;
            }
          else if (memcmp (a, b, sizeof *a) != 0)
            g_error ("panel %s pixel %zu: %.9g in the multi-panel image, %.9g alone", pn->name, k,
                     *a, *b);
          lit += *b > 0.0f;
        }
      lit_panels += lit > 0;
    }
  {
    nb_params none;

    g_assert_cmpint (nb_plan_get_panel_params (plan, m.n_panels, &none, &err), ==, NB_ERR_INVALID);
    g_assert_cmpint (nb_plan_get_panel_params (plan, -1, &none, &err), ==, NB_ERR_INVALID);
  }
  g_test_message ("%d of %d panels lit, %zu pixels masked", lit_panels, m.n_panels, masked);
  g_assert_cmpint (lit_panels, >=, min_lit);
  nb_plan_destroy (plan);
  nb_detector_model_clear (&m);
  nb_test_remove_tree (dir);
}

static void
test_exact_jungfrau (void)
{
  g_autofree char *geom = data_path ("jf-swissfel-16M.geom");

  /* 24 x 16 pixels of each module's corner, the fast kernel in double */
  check_panels_exact (
      geom, (const char *const[]){ "-roi", "0", "23", "0", "15", "-precision", "double", NULL },
      32);
}

/* The CSPAD of a DIALS experiment list: 64 sensors whose axes and origins the
 * file gives relative to their quadrants and the detector (the .expt reader
 * composes them); skipped by a build that cannot read .expt files. */
static void
test_exact_cspad (void)
{
  g_autofree char *expt = data_path ("dials-cspad-single-image.expt");
  nb_detector_model m;
  nb_error err = { 0 };
  nb_status st = nb_detector_model_read (expt, &m, &err);

  if (st == NB_ERR_UNSUPPORTED)
    {
      g_test_skip (err.message);
      return;
    }
  g_assert_cmpint (st, ==, NB_OK);
  g_assert_cmpint (m.n_panels, ==, 64);
  nb_detector_model_clear (&m);
  /* 12 x 10 pixels of each sensor's corner, the fast kernel in double */
  check_panels_exact (
      expt, (const char *const[]){ "-roi", "0", "11", "0", "9", "-precision", "double", NULL }, 1);
}

/* Three panels, two tilted out of the plane normal to the beam, one read
 * mirrored, of different sizes and distances; the reference-exact kernel. */
static void
test_exact_tilted (void)
{
  static const char geom[] =
      "; three sensors, hand-built\n"
      "res = 5000\n"
      "clen = 0.08 m\n"
      "left/min_fs = 0\nleft/max_fs = 29\nleft/min_ss = 0\nleft/max_ss = 19\n"
      "left/fs = 0.94x +0.34z\nleft/ss = y\nleft/corner_x = -45\nleft/corner_y = -10\n"
      "coffset = 0.01\n"
      "right/min_fs = 0\nright/max_fs = 23\nright/min_ss = 20\nright/max_ss = 47\n"
      "right/fs = -y\nright/ss = -x +0.2z\nright/corner_x = 40\nright/corner_y = 12\n"
      "top/min_fs = 30\ntop/max_fs = 45\ntop/min_ss = 0\ntop/max_ss = 11\n"
      "top/fs = x\ntop/ss = 0.9y -0.3z\ntop/corner_x = -8\ntop/corner_y = 30\n";
  g_autofree char *dir = g_dir_make_tmp ("nb-tilted-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "tilted.geom", NULL);

  g_assert_true (g_file_set_contents (path, geom, -1, NULL));
  check_panels_exact (path,
                      (const char *const[]){ "-precision", "exact", "-oversample", "2",
                                             "-detector_thick", "100", "-detector_abs", "300",
                                             "-detector_thicksteps", "2", NULL },
                      3);
  nb_test_remove_tree (dir);
}

static float *
render_params (const nb_params *p, nb_plan **plan, size_t *n)
{
  const nb_plan_info *in;
  nb_error err = { 0 };
  float *image;

  if (*plan == NULL)
    g_assert_cmpint (nb_plan_create (p, plan, &err), ==, NB_OK);
  else
    g_assert_cmpint (nb_plan_update (*plan, p, &err), ==, NB_OK);
  in = nb_plan_get_info (*plan);
  *n = (size_t) in->fpixels * in->spixels;
  image = g_new (float, *n);
  g_assert_cmpint (nb_plan_execute (*plan, image, NULL, &err), ==, NB_OK);
  return image;
}

/* The image conversions and statistics of a multi-panel plan cover every
 * panel: they had panel 0's region (its -roi, or its whole size) applied to
 * the stacked image, so the SMV, PGM and noise images of `nanobragg
 * -detector` held panel 0 alone and the printed mean and maximum were panel
 * 0's (the I23 frame's 24 panels rendered as one band and black). */
static void
test_output_every_panel (void)
{
  static const char geom[] = "res = 5000\nclen = 0.08 m\n"
                             "a/min_fs = 0\na/max_fs = 29\na/min_ss = 0\na/max_ss = 19\n"
                             "a/fs = x\na/ss = y\na/corner_x = -15\na/corner_y = -10\n"
                             "b/min_fs = 0\nb/max_fs = 29\nb/min_ss = 20\nb/max_ss = 39\n"
                             "b/fs = x\nb/ss = 0.9y -0.3z\nb/corner_x = -15\nb/corner_y = 14\n";
  g_autofree char *dir = g_dir_make_tmp ("nb-output-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "two.geom", NULL);
  const char *argv[] = { "nanobragg", "-default_F", "100",       "-cell", "30", "30",
                         "30",        "90",         "90",        "90",    "-N", "5",
                         "-lambda",   "1",          "-detector", path };
  nb_plan *plan = NULL;
  nb_params p;
  nb_image_stats st;
  nb_error err = { 0 };
  g_autofree float *image = NULL;
  g_autofree uint16_t *smv = NULL;
  double scale, sum = 0, max = 0;
  size_t n, lit = 0;

  g_assert_true (g_file_set_contents (path, geom, -1, NULL));
  nb_params_init (&p);
  g_assert_cmpint (nb_params_parse_argv (&p, G_N_ELEMENTS (argv), argv, &err), ==, NB_OK);
  image = render_params (&p, &plan, &n);
  g_assert_cmpuint (n, ==, 2 * 30 * 20);
  for (size_t i = 0; i < n; i++)
    {
      sum += image[i];
      max = MAX (max, image[i]);
      lit += i >= n / 2 && image[i] > 0;
    }
  g_assert_cmpuint (lit, >, 0);
  nb_image_statistics (plan, image, &st);
  g_assert_cmpint (st.n, ==, (long) n);
  assert_close (st.sum, sum, 1e-9 * sum);
  assert_close (st.max_I, max, 0);
  smv = g_new (uint16_t, n);
  scale = nb_image_to_smv (plan, image, &st, 0, 0, smv);
  for (size_t i = 0; i < n; i++)
    g_assert_cmpint (smv[i], ==, (int) MIN (65535.0f, floorf (image[i] * (float) scale + 0.5f)));
  nb_plan_destroy (plan);
  nb_params_clear (&p);
  nb_test_remove_tree (dir);
}

/* A plan updated to a -detector and back renders what fresh plans render. */
static void
test_plan_update (void)
{
  g_autofree char *geom = data_path ("Eiger16M-binning2-nativefiles.geom");
  nb_plan *warm = NULL;
  nb_params p;
  nb_error err = { 0 };
  const char *argv[] = { "nanobragg", "-default_F", "100", "-cell", "70", "80",         "90",
                         "90",        "90",         "90",  "-N",    "3",  "-detpixels", "32",
                         "-roi",      "0",          "31",  "0",     "31" };

  nb_params_init (&p);
  g_assert_cmpint (nb_params_parse_argv (&p, G_N_ELEMENTS (argv), argv, &err), ==, NB_OK);
  for (int round = 0; round < 3; round++)
    {
      nb_plan *fresh = NULL;
      size_t n_warm, n_fresh;
      g_autofree float *a = NULL, *b = NULL;

      free (p.detector_file);
      p.detector_file = round == 1 ? strdup (geom) : NULL;
      a = render_params (&p, &warm, &n_warm);
      b = render_params (&p, &fresh, &n_fresh);
      g_assert_cmpuint (n_warm, ==, n_fresh);
      g_assert_cmpuint (n_warm, ==, round == 1 ? (size_t) 2070 * 2167 : 32 * 32);
      g_assert_cmpint (memcmp (a, b, n_warm * sizeof (float)), ==, 0);
      g_assert_cmpint (nb_plan_get_info (warm)->n_panels, ==, round == 1);
      g_assert_true ((nb_plan_get_mask (warm) != NULL) == (round == 1));
      nb_plan_destroy (fresh);
    }
  nb_plan_destroy (warm);
  nb_params_clear (&p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/detector/geom/jungfrau", test_geom_jungfrau);
  g_test_add_func ("/detector/geom/eiger", test_geom_eiger);
  g_test_add_func ("/detector/geom/header-clen", test_geom_header_clen);
  g_test_add_func ("/detector/geom/refusals", test_geom_refusals);
  g_test_add_func ("/detector/geom/i23", test_geom_i23);
  g_test_add_func ("/detector/read/dispatch", test_read_dispatch);
  g_test_add_func ("/detector/exact/jungfrau", test_exact_jungfrau);
  g_test_add_func ("/detector/exact/tilted", test_exact_tilted);
  g_test_add_func ("/detector/exact/cspad", test_exact_cspad);
  g_test_add_func ("/detector/plan/update", test_plan_update);
  g_test_add_func ("/detector/output/every-panel", test_output_every_panel);
  return g_test_run ();
}
