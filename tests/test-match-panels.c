/* test-match-panels.c: prediction, peaks, the match score, its chance and
 * refinement over every panel of a multi-panel detector (issue 29).
 *
 * The detector: three sensors of 128 x 128 pixels of 0.1 mm written by the
 * test as a CrystFEL .geom, one square to the beam across it, one to its
 * side tilted 20 deg about the slow axis, one above tilted about the fast
 * axis, placed side by side in a 256 x 256 data array (min_fs/min_ss), as a
 * measured frame cut by a geometry file holds them.  The frame: 1HPV at a
 * known misset, simulated on all three panels with photon noise, the panels
 * laid into the data array at their origins. */
#include <glib.h>
#include <glib/gstdio.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nb-detector.h"
#include "nb-test-panels.h"
#include "nb-frame.h"
#include "nb-io.h"
#include "nb-match.h"

#define RTD (180.0 / G_PI)

#define SCENE                                                                                      \
  "-cell 63.4 63.4 83.8 90 90 120 -lambda 1.0 -N 8 -gauss_xtal -fluence 1e27 -oversample 1 "       \
  "-precision single -backend cpu"

static const double misset_M[3] = { 10.0, 20.0, 30.0 }; /* deg */

/* The panels (CrystFEL's frame: x, y across the beam, z along it; pixels of
 * 0.1 mm at clen 60 mm): name, min_fs, min_ss (the data origin), fs, ss,
 * corner_x, corner_y; each 128 x 128 pixels. */
static const struct
{
  const char *name;
  int min_fs, min_ss;
  double fs[3], ss[3], corner[2];
} panels[3] = {
  { "centre", 0, 0, { 1, 0, 0 }, { 0, 1, 0 }, { -64, -64 } },
  { "side", 128, 0, { 0.9397, 0, 0.3420 }, { 0, 1, 0 }, { 70, -64 } },
  { "top", 0, 128, { 1, 0, 0 }, { 0, 0.9397, 0.3420 }, { -64, 70 } },
};

/* The geometry file of the three panels, the whole detector turned by
 * @turn_deg about the beam (x towards y) and moved @shift_px pixels along x. */
static char *
geom_text (double turn_deg, double shift_px)
{
  GString *g = g_string_new ("; three sensors around the beam, hand-built\nres = 10000\n"
                             "clen = 0.06 m\n");
  double c = cos (turn_deg / RTD), sn = sin (turn_deg / RTD);

  for (int p = 0; p < 3; p++)
    {
      const char *n = panels[p].name;
      const double *fs = panels[p].fs, *ss = panels[p].ss, *k = panels[p].corner;

      g_string_append_printf (g, "%s/min_fs = %d\n%s/max_fs = %d\n%s/min_ss = %d\n%s/max_ss = %d\n",
                              n, panels[p].min_fs, n, panels[p].min_fs + 127, n, panels[p].min_ss,
                              n, panels[p].min_ss + 127);
      g_string_append_printf (g, "%s/fs = %.9fx %+.9fy %+.9fz\n", n, c * fs[0] - sn * fs[1],
                              sn * fs[0] + c * fs[1], fs[2]);
      g_string_append_printf (g, "%s/ss = %.9fx %+.9fy %+.9fz\n", n, c * ss[0] - sn * ss[1],
                              sn * ss[0] + c * ss[1], ss[2]);
      g_string_append_printf (g, "%s/corner_x = %.9f\n%s/corner_y = %.9f\n", n,
                              c * k[0] - sn * k[1] + shift_px, n, sn * k[0] + c * k[1]);
    }
  return g_string_free (g, FALSE);
}

typedef struct
{
  char *dir, *geom;
  nb_detector_model model;
  nb_params truth;
  nb_frame frame; /* 256 x 256, the panels at their data origins */
  nb_peak *peaks;
  int n_peaks;
} scene;

static void
params_from (nb_params *p, const char *cmdline)
{
  g_autofree char *full = g_strconcat ("nanobragg ", cmdline, NULL);
  g_auto (GStrv) argv = NULL;
  int argc = 0;
  nb_error err = { 0 };

  g_assert_true (g_shell_parse_argv (full, &argc, &argv, NULL));
  nb_params_init (p);
  if (nb_params_parse_argv (p, argc, (const char *const *) argv, &err) != NB_OK)
    g_error ("'%s': %s", cmdline, err.message);
}

static void
scene_geometry (scene *sc)
{
  nb_error err = { 0 };

  sc->dir = g_dir_make_tmp ("nb-match-panels-XXXXXX", NULL);
  g_assert_nonnull (sc->dir);
  sc->geom = g_build_filename (sc->dir, "three.geom", NULL);
  {
    g_autofree char *text = geom_text (0, 0);

    g_assert_true (g_file_set_contents (sc->geom, text, -1, NULL));
  }
  g_assert_cmpint (nb_detector_model_read (sc->geom, &sc->model, &err), ==, NB_OK);
  g_assert_cmpint (sc->model.n_panels, ==, 3);
  g_assert_cmpint (sc->model.data_fpixels, ==, 256);
  g_assert_cmpint (sc->model.data_spixels, ==, 256);
}

/* The scene at misset M with 1HPV's structure factors, with noise, laid out
 * as the data array; its 60 strongest peaks within 100 A. */
static void
scene_init (scene *sc)
{
  g_autofree char *hkl = g_build_filename (g_getenv ("NB_DATA_DIR"), "1hpv_p1.hkl", NULL);
  g_autofree char *cmd = NULL;
  nb_plan *plan = NULL;
  nb_error err = { 0 };
  const nb_plan_info *in;
  nb_peak_options po;
  g_autofree float *image = NULL;
  g_autofree uint16_t *noise = NULL;
  int overloads, all;
  size_t n;

  memset (sc, 0, sizeof *sc);
  scene_geometry (sc);
  cmd = g_strdup_printf ("%s -hkl %s -misset %g %g %g -detector %s", SCENE, hkl, misset_M[0],
                         misset_M[1], misset_M[2], sc->geom);
  params_from (&sc->truth, cmd);
  g_assert_cmpint (nb_plan_create (&sc->truth, &plan, &err), ==, NB_OK);
  in = nb_plan_get_info (plan);
  g_assert_cmpint (in->n_panels, ==, 3);
  n = (size_t) in->fpixels * in->spixels;
  g_assert_cmpuint (n, ==, 3 * 128 * 128);
  image = g_new (float, n);
  noise = g_new (uint16_t, n);
  g_assert_cmpint (nb_plan_execute (plan, image, NULL, &err), ==, NB_OK);
  nb_image_to_noise (plan, image, -4321, 0.0, noise, &overloads);
  nb_plan_destroy (plan);
  g_assert_cmpint (nb_frame_alloc (&sc->frame, 256, 256, "three panels", &err), ==, NB_OK);
  for (int p = 0; p < 3; p++)
    {
      const nb_panel *pn = &sc->model.panels[p];
      size_t offset = nb_detector_model_panel_offset (&sc->model, p);

      for (int s = 0; s < pn->spixels; s++)
        for (int f = 0; f < pn->fpixels; f++)
          sc->frame.counts[(size_t) (pn->data_origin_s + s) * 256 + pn->data_origin_f + f] =
              noise[offset + (size_t) s * pn->fpixels + f];
    }
  nb_peak_options_init (&po);
  po.max_peaks = 600;
  g_assert_cmpint (nb_find_panel_peaks (&sc->frame, &sc->model, &po, &sc->peaks, &all, &err), ==,
                   NB_OK);
  all = nb_peaks_in_resolution (&sc->truth, sc->peaks, all, 0, 100, &err);
  g_assert_cmpint (all, >=, 30);
  /* the 20 strongest of each panel (the low-resolution spots of the centre are the strongest of
   * all), strongest first */
  {
    int taken[3] = { 0, 0, 0 };

    for (int i = 0; i < all; i++)
      if (taken[sc->peaks[i].panel]++ < 20)
        sc->peaks[sc->n_peaks++] = sc->peaks[i];
  }
}

static void
scene_clear (scene *sc)
{
  free (sc->peaks);
  nb_frame_clear (&sc->frame);
  nb_params_clear (&sc->truth);
  nb_detector_model_clear (&sc->model);
  g_unlink (sc->geom);
  g_rmdir (sc->dir);
  g_free (sc->geom);
  g_free (sc->dir);
}

/* Each panel's predictions are what one-panel runs with that panel's
 * vectors predict (nanobragg's CUSTOM convention), spot for spot. */
static void
test_predict_per_panel (void)
{
  scene sc;
  nb_reflection *all = NULL;
  size_t n_all, counted = 0;
  nb_error err = { 0 };
  nb_plan *plan = NULL;
  int per_panel[3] = { 0, 0, 0 };

  memset (&sc, 0, sizeof sc);
  scene_geometry (&sc);
  {
    g_autofree char *cmd =
        g_strdup_printf ("%s -default_F 1 -misset 10 20 30 -detector %s", SCENE, sc.geom);

    params_from (&sc.truth, cmd);
  }
  g_assert_cmpint (nb_predict_reflections (&sc.truth, NULL, &all, &n_all, &err), ==, NB_OK);
  g_assert_cmpint (nb_plan_create (&sc.truth, &plan, &err), ==, NB_OK);
  for (size_t i = 0; i < n_all; i++)
    {
      g_assert_cmpint (all[i].panel, >=, 0);
      g_assert_cmpint (all[i].panel, <, 3);
      per_panel[all[i].panel]++;
    }
  g_test_message ("%zu reflections: %d, %d, %d on the panels", n_all, per_panel[0], per_panel[1],
                  per_panel[2]);
  for (int p = 0; p < 3; p++)
    {
      nb_plan_info info;
      nb_params one;
      nb_reflection *refl = NULL;
      size_t n;
      g_autofree char *cmd = NULL;

      g_assert_cmpint (per_panel[p], >, 5);
      g_assert_cmpint (nb_plan_get_panel_info (plan, p, &info, &err), ==, NB_OK);
      cmd = g_strdup_printf (
          "%s -default_F 1 -misset 10 20 30 -fdet_vector %.17g %.17g %.17g -sdet_vector "
          "%.17g %.17g %.17g -odet_vector %.17g %.17g %.17g -pix0_vector %.17g "
          "%.17g %.17g -beam_vector 1 0 0 -detpixels_f 128 -detpixels_s 128 "
          "-pixel 0.1",
          SCENE, info.fdet[0], info.fdet[1], info.fdet[2], info.sdet[0], info.sdet[1], info.sdet[2],
          info.odet[0], info.odet[1], info.odet[2], info.pix0[0], info.pix0[1], info.pix0[2]);
      params_from (&one, cmd);
      g_assert_cmpint (nb_predict_reflections (&one, NULL, &refl, &n, &err), ==, NB_OK);
      /* a panel's own spots that no other panel before it in the model's order holds */
      for (size_t i = 0; i < n; i++)
        {
          int found = 0;

          g_assert_cmpint (refl[i].panel, ==, 0);
          for (size_t j = 0; j < n_all && !found; j++)
            if (all[j].h == refl[i].h && all[j].k == refl[i].k && all[j].l == refl[i].l &&
                fabs (all[j].phi - refl[i].phi) < 1e-12)
              {
                found = 1;
                if (all[j].panel == p)
                  {
                    g_assert_cmpfloat (fabs (all[j].f - refl[i].f), <, 1e-6);
                    g_assert_cmpfloat (fabs (all[j].s - refl[i].s), <, 1e-6);
                    counted++;
                  }
              }
          g_assert_true (found);
        }
      free (refl);
      nb_params_clear (&one);
    }
  g_assert_cmpuint (counted, ==, n_all);
  nb_plan_destroy (plan);
  free (all);
  scene_clear (&sc);
}

/* Peaks on all three panels; at the true orientation they match, far
 * beyond chance, whose area spans the panels; a wrong cell does not. */
static void
test_match_significant (void)
{
  scene sc;
  nb_match_options mo;
  nb_match_result res;
  nb_peak_match *detail;
  nb_error err = { 0 };
  int on[3] = { 0, 0, 0 };

  scene_init (&sc);
  for (int i = 0; i < sc.n_peaks; i++)
    on[sc.peaks[i].panel]++;
  g_test_message ("%d peaks: %d, %d, %d on the panels", sc.n_peaks, on[0], on[1], on[2]);
  g_assert_cmpint (on[1], >=, 3);
  g_assert_cmpint (on[2], >=, 3);
  nb_match_options_init (&mo);
  mo.frame = &sc.frame;
  detail = g_new (nb_peak_match, sc.n_peaks);
  g_assert_cmpint (nb_match_peaks (&sc.truth, sc.peaks, sc.n_peaks, &mo, &res, detail, &err), ==,
                   NB_OK);
  g_test_message ("at M: %d of %d matched, rms %.3f px, chance %.2f %% of %ld pixels, log10 p "
                  "%.1f",
                  res.n_matched, res.n_peaks, res.rms_distance, 100 * res.chance_fraction,
                  res.chance_pixels, res.log10_p);
  g_assert_cmpfloat (res.fraction, >=, 0.9);
  g_assert_cmpfloat (res.rms_distance, <, 1.0);
  g_assert_true (res.significant);
  g_assert_cmpfloat (res.log10_p, <, -20);
  /* the area: pixels of more than one panel, never more than all three hold */
  g_assert_cmpint (res.chance_pixels, >, 128 * 128);
  g_assert_cmpint (res.chance_pixels, <=, 3 * 128 * 128);
  for (int i = 0; i < sc.n_peaks; i++)
    {
      g_assert_cmpint (detail[i].panel, ==, sc.peaks[i].panel);
      if (detail[i].distance <= 3)
        g_assert_cmpfloat (hypot (detail[i].f - sc.peaks[i].f, detail[i].s - sc.peaks[i].s), <=,
                           3.0);
    }
  g_free (detail);

  /* a wrong cell, refined from the same misset: no better than chance */
  {
    nb_params wrong;
    nb_refine_options ro;
    nb_refine_result rr;

    g_assert_cmpint (nb_params_copy (&wrong, &sc.truth, &err), ==, NB_OK);
    wrong.cell[0] = wrong.cell[1] = wrong.cell[2] = 50;
    wrong.cell[3] = wrong.cell[4] = wrong.cell[5] = G_PI / 2;
    /* 1HPV's structure factors are not this cell's: a prediction needs none */
    free (wrong.hkl_file);
    wrong.hkl_file = NULL;
    wrong.default_F = 1;
    nb_refine_options_init (&ro);
    ro.match.frame = &sc.frame;
    if (nb_refine (&wrong, sc.peaks, sc.n_peaks, &ro, &rr, &err) != NB_OK)
      g_error ("%s", err.message);
    g_test_message ("wrong cell: %d of %d, chance %.1f %%, p %.3g x %.3g trials",
                    rr.score.n_matched, rr.score.n_peaks, 100 * rr.score.chance_fraction,
                    rr.score.p_value, rr.score.trials);
    g_assert_false (rr.score.significant);
    nb_params_clear (&wrong);
  }
  scene_clear (&sc);
}

/* The orientation search finds M from no orientation, significant over all
 * panels; refinement returns to it from 1 deg away. */
static void
test_search_and_refine (void)
{
  scene sc;
  nb_params p;
  nb_search_options so;
  nb_search_result sr;
  nb_refine_options ro;
  nb_refine_result rr;
  nb_match_result at_truth;
  nb_error err = { 0 };

  scene_init (&sc);
  g_assert_cmpint (nb_match_peaks (&sc.truth, sc.peaks, sc.n_peaks, NULL, &at_truth, NULL, &err),
                   ==, NB_OK);
  g_assert_cmpint (nb_params_copy (&p, &sc.truth, &err), ==, NB_OK);
  p.misset[0] = p.misset[1] = p.misset[2] = 0;
  nb_search_options_init (&so);
  so.step = 3.0 / RTD;
  so.candidates = 4;
  so.refine.match.frame = &sc.frame;
  g_assert_cmpint (nb_orientation_search (&p, sc.peaks, sc.n_peaks, &so, &sr, &err), ==, NB_OK);
  g_test_message ("search: misset %.3f %.3f %.3f, %d of %d matched (at M %d), p %.3g x %.3g "
                  "trials",
                  p.misset[0] * RTD, p.misset[1] * RTD, p.misset[2] * RTD, sr.score.n_matched,
                  sc.n_peaks, at_truth.n_matched, sr.score.p_value, sr.score.trials);
  g_assert_true (sr.score.significant);
  g_assert_cmpint (sr.score.n_matched, >=, at_truth.n_matched - 1);
  nb_params_clear (&p);

  g_assert_cmpint (nb_params_copy (&p, &sc.truth, &err), ==, NB_OK);
  p.misset[0] += 0.6 / RTD;
  p.misset[1] -= 0.6 / RTD;
  p.misset[2] += 0.5 / RTD;
  nb_refine_options_init (&ro);
  ro.match.frame = &sc.frame;
  g_assert_cmpint (nb_refine (&p, sc.peaks, sc.n_peaks, &ro, &rr, &err), ==, NB_OK);
  g_test_message ("refined: misset %+.4f %+.4f %+.4f deg from M, %d of %d",
                  p.misset[0] * RTD - misset_M[0], p.misset[1] * RTD - misset_M[1],
                  p.misset[2] * RTD - misset_M[2], rr.score.n_matched, sc.n_peaks);
  for (int k = 0; k < 3; k++)
    g_assert_cmpfloat (fabs (p.misset[k] * RTD - misset_M[k]), <, 0.05);
  g_assert_true (rr.score.significant);
  nb_params_clear (&p);
  scene_clear (&sc);
}

/* A frame that holds the panels neither at their origins nor one after
 * another, and a peak on a panel the detector lacks, are refused. */
static void
test_bad_input (void)
{
  scene sc;
  nb_frame small;
  nb_peak *peaks = NULL, bad = { .f = 10, .s = 10, .panel = 3 };
  nb_match_result res;
  int n;
  nb_error err = { 0 };

  memset (&sc, 0, sizeof sc);
  scene_geometry (&sc);
  {
    g_autofree char *cmd = g_strdup_printf ("%s -detector %s", SCENE, sc.geom);

    params_from (&sc.truth, cmd);
  }
  g_assert_cmpint (nb_frame_alloc (&small, 200, 200, "small", &err), ==, NB_OK);
  g_assert_cmpint (nb_find_panel_peaks (&small, &sc.model, NULL, &peaks, &n, &err), ==,
                   NB_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "small"));
  g_assert_cmpint (nb_match_peaks (&sc.truth, &bad, 1, NULL, &res, NULL, &err), ==, NB_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "panel 3"));
  nb_frame_clear (&small);
  scene_clear (&sc);
}

/* The simulation of all three panels against its own noisy frame (the
 * panels at their data origins) correlates in the shells of the spots; a
 * simulation of a wrong cell does not correlate at all. */
static void
test_shells_self_and_wrong (void)
{
  scene sc;
  nb_plan *plan = NULL;
  nb_match_result res, wrong;
  nb_error err = { 0 };
  const nb_plan_info *in;
  g_autofree float *image = NULL;
  long counted = 0;

  scene_init (&sc);
  g_assert_cmpint (nb_plan_create (&sc.truth, &plan, &err), ==, NB_OK);
  in = nb_plan_get_info (plan);
  image = g_new (float, (size_t) in->fpixels * in->spixels);
  g_assert_cmpint (nb_plan_execute (plan, image, NULL, &err), ==, NB_OK);
  if (nb_match_frame (plan, image, &sc.frame, sc.peaks, sc.n_peaks, NULL, &res, &err) != NB_OK)
    g_error ("%s", err.message);
  nb_plan_destroy (plan);
  g_test_message ("itself with noise: CC %.4f over all", res.cc);
  g_assert_cmpint (res.n_shells, ==, 10);
  for (int j = 0; j < res.n_shells; j++)
    {
      g_test_message ("shell %d: %.2f-%.2f A, %ld pixels, CC %.4f", j, res.shell_d_max[j],
                      res.shell_d_min[j], res.shell_pixels[j], res.shell_cc[j]);
      g_assert_cmpfloat (res.shell_d_min[j], <, res.shell_d_max[j]);
      counted += res.shell_pixels[j];
    }
  /* every pixel of the three panels, none of the data array's empty quarter */
  g_assert_cmpint (counted, ==, 3 * 128 * 128);
  g_assert_cmpfloat (res.cc, >, 0.9);
  /* the bright shells: the inner half, where the strong spots lie */
  for (int j = 0; j < res.n_shells / 2; j++)
    g_assert_cmpfloat (res.shell_cc[j], >, 0.9);

  {
    nb_params p;
    g_autofree char *cmd = g_strdup_printf ("%s -cell 50 50 50 90 90 90 -default_F 1 -misset %g "
                                            "%g %g -detector %s",
                                            SCENE, misset_M[0], misset_M[1], misset_M[2], sc.geom);
    g_autofree float *other = NULL;

    params_from (&p, cmd);
    g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
    in = nb_plan_get_info (plan);
    other = g_new (float, (size_t) in->fpixels * in->spixels);
    g_assert_cmpint (nb_plan_execute (plan, other, NULL, &err), ==, NB_OK);
    g_assert_cmpint (nb_match_frame (plan, other, &sc.frame, NULL, 0, NULL, &wrong, &err), ==,
                     NB_OK);
    g_test_message ("a wrong cell: CC %.4f over all", wrong.cc);
    for (int j = 0; j < wrong.n_shells; j++)
      g_test_message ("shell %d: %.2f-%.2f A, CC %.4f", j, wrong.shell_d_max[j],
                      wrong.shell_d_min[j], wrong.shell_cc[j]);
    g_assert_cmpint (wrong.n_shells, ==, 10);
    g_assert_cmpfloat (fabs (wrong.cc), <, 0.1);
    for (int j = 0; j < wrong.n_shells / 2; j++)
      g_assert_cmpfloat (fabs (wrong.shell_cc[j]), <, 0.1);
    nb_plan_destroy (plan);
    nb_params_clear (&p);
  }
  scene_clear (&sc);
}

/* d = lambda / (2 sin theta) (Angstrom, lambda 1 A) of the centre of pixel
 * (@f, @s) of panel @p, from the geometry file's numbers (pixels of 0.1 mm,
 * clen 60 mm = 600 pixels, CrystFEL's frame: z along the beam). */
static double
hand_d (int p, int f, int s)
{
  const double *fs = panels[p].fs, *ss = panels[p].ss;
  double lf = sqrt (fs[0] * fs[0] + fs[1] * fs[1] + fs[2] * fs[2]);
  double ls = sqrt (ss[0] * ss[0] + ss[1] * ss[1] + ss[2] * ss[2]);
  double r[3] = { panels[p].corner[0], panels[p].corner[1], 600.0 };

  for (int i = 0; i < 3; i++)
    r[i] += (f + 0.5) * fs[i] / lf + (s + 0.5) * ss[i] / ls;
  return 1.0 / (2.0 * sin (0.5 * atan2 (hypot (r[0], r[1]), r[2])));
}

/* Each pixel's resolution comes from its own panel's geometry (two of them
 * tilted): a frame whose only valid pixels are a pair of pixels spans shells
 * from the one's d to the other's; a pixel of a bad region of its panel, or
 * one the frame masks, is left out. */
static void
test_shells_own_geometry (void)
{
  static const struct
  {
    int panel[2], f[2], s[2];
  } pairs[] = {
    { { 1, 2 }, { 100, 5 }, { 20, 120 } },
    { { 0, 1 }, { 3, 127 }, { 7, 64 } },
    { { 2, 0 }, { 64, 120 }, { 127, 100 } },
    { { 1, 1 }, { 0, 119 }, { 0, 119 } },
  };
  g_autofree char *dir = g_dir_make_tmp ("nb-shells-XXXXXX", NULL);
  g_autofree char *geom = g_build_filename (dir, "bad.geom", NULL);
  g_autofree char *cmd = NULL;
  g_autofree float *image = NULL;
  nb_params p;
  nb_plan *plan = NULL;
  nb_frame frame;
  nb_error err = { 0 };
  const nb_plan_info *in;

  {
    /* the side panel's pixels (120..127, 120..127) are a bad region */
    g_autofree char *text = geom_text (0, 0);
    g_autofree char *with_bad =
        g_strconcat (text,
                     "bad_corner/min_fs = 248\nbad_corner/max_fs = 255\nbad_corner/min_ss = 120\n"
                     "bad_corner/max_ss = 127\nbad_corner/panel = side\n",
                     NULL);

    g_assert_true (g_file_set_contents (geom, with_bad, -1, NULL));
  }
  cmd = g_strdup_printf ("%s -default_F 1 -detector %s", SCENE, geom);
  params_from (&p, cmd);
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  in = nb_plan_get_info (plan);
  g_assert_cmpint (in->n_panels, ==, 3);
  image = g_new0 (float, (size_t) in->fpixels * in->spixels);
  g_assert_cmpint (nb_frame_alloc (&frame, 256, 256, "pairs", &err), ==, NB_OK);
  for (size_t q = 0; q < G_N_ELEMENTS (pairs); q++)
    {
      nb_match_result res;
      double d[2], lo, hi;
      long counted = 0;

      memset (frame.mask, NB_PIXEL_MASKED, 256 * 256);
      for (int i = 0; i < 2; i++)
        {
          int pn = pairs[q].panel[i];

          frame.mask[(size_t) (panels[pn].min_ss + pairs[q].s[i]) * 256 + panels[pn].min_fs +
                     pairs[q].f[i]] = NB_PIXEL_VALID;
          d[i] = hand_d (pn, pairs[q].f[i], pairs[q].s[i]);
        }
      /* the side panel's outermost pixel, in its bad region: the highest resolution of all
       * four panels' pixels here, were it counted */
      frame.mask[(size_t) 127 * 256 + 255] = NB_PIXEL_VALID;
      g_assert_cmpint (nb_match_frame (plan, image, &frame, NULL, 0, NULL, &res, &err), ==, NB_OK);
      g_assert_cmpint (res.n_shells, ==, 10);
      for (int j = 0; j < res.n_shells; j++)
        counted += res.shell_pixels[j];
      lo = fmin (d[0], d[1]);
      hi = fmax (d[0], d[1]);
      g_assert_cmpfloat (hand_d (1, 127, 127), <, lo);
      g_test_message ("panels %d and %d: d %.6f and %.6f A by hand, shells %.6f to %.6f A",
                      pairs[q].panel[0], pairs[q].panel[1], d[0], d[1], res.shell_d_max[0],
                      res.shell_d_min[res.n_shells - 1]);
      g_assert_cmpint (counted, ==, 2);
      g_assert_cmpfloat (fabs (res.shell_d_max[0] - hi), <, 1e-5 * hi);
      g_assert_cmpfloat (fabs (res.shell_d_min[res.n_shells - 1] - lo), <, 1e-5 * lo);
    }
  nb_frame_clear (&frame);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
  g_unlink (geom);
  g_rmdir (dir);
}

/* A reflection whose spot falls on a pixel masked by its panel's mask (a
 * bad region of the geometry file) or by the frame is neither predicted
 * on the detector nor matched; the rest are. */
static void
test_masked_spot (void)
{
  g_autofree char *hkl_path = g_build_filename (g_getenv ("NB_DATA_DIR"), "1hpv_p1.hkl", NULL);
  g_autofree char *bad_geom = NULL, *cmd = NULL;
  scene sc;
  nb_match_options mo;
  nb_match_result res, masked;
  nb_peak_match *detail, *after;
  nb_reflection *refl = NULL;
  nb_params p;
  nb_frame frame;
  nb_error err = { 0 };
  size_t n_refl;
  int pick = -1, hkl[3], panel, pf, ps, found = 0;

  scene_init (&sc);
  nb_match_options_init (&mo);
  mo.frame = &sc.frame;
  detail = g_new (nb_peak_match, sc.n_peaks);
  after = g_new (nb_peak_match, sc.n_peaks);
  g_assert_cmpint (nb_match_peaks (&sc.truth, sc.peaks, sc.n_peaks, &mo, &res, detail, &err), ==,
                   NB_OK);
  /* a peak of a tilted panel matched within a pixel */
  for (int i = 0; i < sc.n_peaks && pick < 0; i++)
    if (detail[i].panel > 0 && detail[i].distance < 1.0)
      pick = i;
  g_assert_cmpint (pick, >=, 0);
  hkl[0] = detail[pick].h;
  hkl[1] = detail[pick].k;
  hkl[2] = detail[pick].l;
  panel = detail[pick].panel;
  pf = (int) floor (detail[pick].f);
  ps = (int) floor (detail[pick].s);
  g_test_message ("peak %d: %d %d %d at panel %d pixel (%d, %d), %.2f px away", pick, hkl[0],
                  hkl[1], hkl[2], panel, pf, ps, detail[pick].distance);

  /* the spot's pixel a bad region of its panel */
  {
    g_autofree char *text = geom_text (0, 0);
    g_autofree char *with_bad = g_strdup_printf (
        "%sbad_spot/min_fs = %d\nbad_spot/max_fs = %d\nbad_spot/min_ss = %d\nbad_spot/max_ss = "
        "%d\nbad_spot/panel = %s\n",
        text, panels[panel].min_fs + pf, panels[panel].min_fs + pf, panels[panel].min_ss + ps,
        panels[panel].min_ss + ps, panels[panel].name);

    bad_geom = g_build_filename (sc.dir, "bad-spot.geom", NULL);
    g_assert_true (g_file_set_contents (bad_geom, with_bad, -1, NULL));
  }
  cmd = g_strdup_printf ("%s -hkl %s -misset %g %g %g -detector %s", SCENE, hkl_path, misset_M[0],
                         misset_M[1], misset_M[2], bad_geom);
  params_from (&p, cmd);
  g_assert_cmpint (nb_predict_reflections (&sc.truth, NULL, &refl, &n_refl, &err), ==, NB_OK);
  for (size_t j = 0; j < n_refl; j++)
    found +=
        refl[j].h == hkl[0] && refl[j].k == hkl[1] && refl[j].l == hkl[2] && refl[j].panel == panel;
  g_assert_cmpint (found, ==, 1);
  free (refl);
  found = 0;
  g_assert_cmpint (nb_predict_reflections (&p, NULL, &refl, &n_refl, &err), ==, NB_OK);
  for (size_t j = 0; j < n_refl; j++)
    found +=
        refl[j].h == hkl[0] && refl[j].k == hkl[1] && refl[j].l == hkl[2] && refl[j].panel == panel;
  g_assert_cmpint (found, ==, 0);
  free (refl);

  g_assert_cmpint (nb_match_peaks (&p, sc.peaks, sc.n_peaks, &mo, &masked, after, &err), ==, NB_OK);
  g_test_message ("bad region: %d of %d matched (%d before), chance %ld pixels (%ld before)",
                  masked.n_matched, masked.n_peaks, res.n_matched, masked.chance_pixels,
                  res.chance_pixels);
  g_assert_false (after[pick].distance <= mo.radius && after[pick].h == hkl[0] &&
                  after[pick].k == hkl[1] && after[pick].l == hkl[2]);
  g_assert_cmpint (masked.n_matched, <, res.n_matched);
  /* the bad pixel leaves the chance area, if the peaks' range holds it */
  g_assert_cmpint (masked.chance_pixels, >=, res.chance_pixels - 1);
  g_assert_cmpint (masked.chance_pixels, <=, res.chance_pixels);
  for (int i = 0; i < sc.n_peaks; i++)
    if (i != pick && detail[i].distance <= mo.radius)
      g_assert_cmpfloat (after[i].distance, ==, detail[i].distance);
  nb_params_clear (&p);

  /* the same pixel masked by the frame, the geometry without the bad region */
  g_assert_cmpint (nb_frame_alloc (&frame, 256, 256, "masked spot", &err), ==, NB_OK);
  memcpy (frame.counts, sc.frame.counts, 256 * 256 * sizeof *frame.counts);
  frame.mask[(size_t) (panels[panel].min_ss + ps) * 256 + panels[panel].min_fs + pf] =
      NB_PIXEL_MASKED;
  mo.frame = &frame;
  g_assert_cmpint (nb_match_peaks (&sc.truth, sc.peaks, sc.n_peaks, &mo, &masked, after, &err), ==,
                   NB_OK);
  g_test_message ("frame mask: %d of %d matched", masked.n_matched, masked.n_peaks);
  g_assert_false (after[pick].distance <= mo.radius && after[pick].h == hkl[0] &&
                  after[pick].k == hkl[1] && after[pick].l == hkl[2]);
  g_assert_cmpint (masked.n_matched, <, res.n_matched);
  nb_frame_clear (&frame);
  g_unlink (bad_geom);
  g_free (detail);
  g_free (after);
  scene_clear (&sc);
}

/* R of rotation vector @w (rad), row-major: Rodrigues' formula. */
static void
rotvec_matrix (const double w[3], double R[9])
{
  double a = sqrt (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]), e[3], c, s, K[9];

  for (int i = 0; i < 3; i++)
    e[i] = a > 0 ? w[i] / a : 0;
  c = cos (a);
  s = sin (a);
  K[0] = K[4] = K[8] = 0;
  K[1] = -e[2], K[2] = e[1], K[3] = e[2], K[5] = -e[0], K[6] = -e[1], K[7] = e[0];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      R[3 * i + j] = (i == j ? c : 0) + s * K[3 * i + j] + (1 - c) * e[i] * e[j];
}

static void
mat_vec (const double R[9], const double v[3], double out[3])
{
  for (int i = 0; i < 3; i++)
    out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

/* @m's panels as a CrystFEL .geom (0.1 mm pixels, clen 60 mm plus each panel's coffset),
 * every vector written to 17 digits: the lab's (x, y, z) is CrystFEL's (-z, y, x). */
static char *
geom_of_model (const nb_detector_model *m)
{
  GString *g = g_string_new ("res = 10000\nclen = 0.06 m\n");

  for (int p = 0; p < m->n_panels; p++)
    {
      const nb_panel *a = &m->panels[p];
      const char *n = a->name;

      g_string_append_printf (g, "%s/min_fs = %d\n%s/max_fs = %d\n%s/min_ss = %d\n%s/max_ss = %d\n",
                              n, a->data_origin_f, n, a->data_origin_f + a->fpixels - 1, n,
                              a->data_origin_s, n, a->data_origin_s + a->spixels - 1);
      g_string_append_printf (g, "%s/fs = %.17gx %+.17gy %+.17gz\n", n, -a->fdet[2], a->fdet[1],
                              a->fdet[0]);
      g_string_append_printf (g, "%s/ss = %.17gx %+.17gy %+.17gz\n", n, -a->sdet[2], a->sdet[1],
                              a->sdet[0]);
      g_string_append_printf (g, "%s/corner_x = %.17g\n%s/corner_y = %.17g\n%s/coffset = %.17g\n",
                              n, -a->pix0[2] / 1e-4, n, a->pix0[1] / 1e-4, n, a->pix0[0] - 0.06);
    }
  return g_string_free (g, FALSE);
}

/* Panel @i of the plan of @cmdline. */
static void
panel_of (const char *cmdline, int i, nb_plan_info *pi)
{
  nb_params p;
  nb_plan *plan = NULL;
  nb_error err = { 0 };

  params_from (&p, cmdline);
  if (nb_plan_create (&p, &plan, &err) != NB_OK ||
      nb_plan_get_panel_info (plan, i, pi, &err) != NB_OK)
    g_error ("'%s': %s", cmdline, err.message);
  nb_plan_destroy (plan);
  nb_params_clear (&p);
}

/* -detector_shift and -detector_rotation move the panels as the same geometry file written
 * with the moved vectors places them (to 1e-12 m); zero motion changes no bit of the image, a
 * plan updated with a motion moves its panels, and the flags without -detector are refused. */
static void
test_detector_motion (void)
{
  scene sc;
  const double t_mm[3] = { 0.4, -0.7, 1.3 }, w_deg[3] = { 0.5, -0.8, 1.1 };
  double R[9], w[3];
  nb_detector_model moved;
  nb_error err = { 0 };
  g_autofree char *moved_path = NULL, *text = NULL, *base = NULL, *with = NULL, *zero = NULL;

  memset (&sc, 0, sizeof sc);
  scene_geometry (&sc);
  for (int i = 0; i < 3; i++)
    w[i] = w_deg[i] / RTD;
  rotvec_matrix (w, R);
  /* the file's panels moved by hand: x -> R x + t */
  nb_detector_model_init (&moved);
  g_assert_cmpint (nb_detector_model_read (sc.geom, &moved, &err), ==, NB_OK);
  for (int p = 0; p < moved.n_panels; p++)
    {
      nb_panel *a = &moved.panels[p];
      double v[3];

      mat_vec (R, a->pix0, v);
      for (int i = 0; i < 3; i++)
        a->pix0[i] = v[i] + t_mm[i] * 1e-3;
      mat_vec (R, a->fdet, v);
      memcpy (a->fdet, v, sizeof v);
      mat_vec (R, a->sdet, v);
      memcpy (a->sdet, v, sizeof v);
    }
  moved_path = g_build_filename (sc.dir, "hand-moved.geom", NULL);
  text = geom_of_model (&moved);
  g_assert_true (g_file_set_contents (moved_path, text, -1, NULL));
  base = g_strdup_printf (
      "-cell 63.4 63.4 83.8 90 90 120 -lambda 1.0 -N 2 -default_F 10 -oversample 1 "
      "-detector %s",
      sc.geom);
  with =
      g_strdup_printf ("%s -detector_shift %.17g %.17g %.17g -detector_rotation %.17g %.17g %.17g",
                       base, t_mm[0], t_mm[1], t_mm[2], w_deg[0], w_deg[1], w_deg[2]);
  {
    g_autofree char *hand =
        g_strdup_printf ("-cell 63.4 63.4 83.8 90 90 120 -lambda 1.0 -N 2 -default_F 10 "
                         "-oversample 1 -detector %s",
                         moved_path);

    for (int p = 0; p < 3; p++)
      {
        nb_plan_info a, b;

        panel_of (with, p, &a);
        panel_of (hand, p, &b);
        for (int i = 0; i < 3; i++)
          {
            g_assert_cmpfloat (fabs (a.pix0[i] - b.pix0[i]), <, 1e-12);
            g_assert_cmpfloat (fabs (a.fdet[i] - b.fdet[i]), <, 1e-12);
            g_assert_cmpfloat (fabs (a.sdet[i] - b.sdet[i]), <, 1e-12);
            g_assert_cmpfloat (fabs (a.odet[i] - b.odet[i]), <, 1e-12);
          }
      }
  }
  /* a plan updated from the file's panels to the motion moves them; back to zero restores them
   * bit for bit, and its image is the one without the flags */
  {
    nb_params p0, p1, pz;
    nb_plan *plan = NULL;
    nb_plan_info a, b, c;
    const nb_plan_info *in;
    g_autofree float *im0 = NULL, *imz = NULL;
    size_t n;

    params_from (&p0, base);
    params_from (&p1, with);
    zero = g_strdup_printf ("%s -detector_shift 0 0 0 -detector_rotation 0 0 0", base);
    params_from (&pz, zero);
    g_assert_cmpint (nb_plan_create (&p0, &plan, &err), ==, NB_OK);
    in = nb_plan_get_info (plan);
    n = (size_t) in->fpixels * in->spixels;
    im0 = g_new (float, n);
    imz = g_new (float, n);
    g_assert_cmpint (nb_plan_execute (plan, im0, NULL, &err), ==, NB_OK);
    g_assert_cmpint (nb_plan_get_panel_info (plan, 1, &a, &err), ==, NB_OK);
    g_assert_cmpint (nb_plan_update (plan, &p1, &err), ==, NB_OK);
    g_assert_cmpint (nb_plan_get_panel_info (plan, 1, &b, &err), ==, NB_OK);
    panel_of (with, 1, &c);
    g_assert_cmpmem (b.pix0, sizeof b.pix0, c.pix0, sizeof c.pix0);
    g_assert_cmpfloat (fabs (b.pix0[0] - a.pix0[0]), >, 1e-4);
    /* the model a host writes as NXmx is the moved one */
    g_assert_cmpfloat (fabs (nb_plan_get_detector_model (plan)->panels[1].pix0[0] - c.pix0[0]), <,
                       1e-15);
    g_assert_cmpint (nb_plan_update (plan, &pz, &err), ==, NB_OK);
    g_assert_cmpint (nb_plan_get_panel_info (plan, 1, &b, &err), ==, NB_OK);
    g_assert_cmpmem (&a, sizeof a, &b, sizeof b);
    g_assert_cmpint (nb_plan_execute (plan, imz, NULL, &err), ==, NB_OK);
    g_assert_cmpmem (im0, n * sizeof *im0, imz, n * sizeof *imz);
    nb_plan_destroy (plan);
    nb_params_clear (&p0);
    nb_params_clear (&p1);
    nb_params_clear (&pz);
  }
  /* without -detector: refused, naming the flag; zero motion is allowed */
  {
    const char *bad[] = { "nanobragg", "-detector_rotation", "0", "0.1", "0", NULL };
    const char *fine[] = { "nanobragg", "-detector_shift", "0", "0", "0", NULL };
    nb_params p;

    nb_plan *plan = NULL;

    nb_params_init (&p);
    g_assert_cmpint (nb_params_parse_argv (&p, 5, bad, &err), ==, NB_OK);
    p.default_F = 1;
    g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_ERR_INVALID);
    g_assert_nonnull (strstr (err.message, "-detector_rotation"));
    g_assert_null (strchr (err.message, '\n'));
    nb_params_clear (&p);
    nb_params_init (&p);
    g_assert_cmpint (nb_params_parse_argv (&p, 5, fine, &err), ==, NB_OK);
    p.default_F = 1;
    p.fpixels = p.spixels = 8;
    p.cell[0] = p.cell[1] = p.cell[2] = 50;
    if (nb_plan_create (&p, &plan, &err) != NB_OK)
      g_error ("%s", err.message);
    nb_plan_destroy (plan);
    nb_params_clear (&p);
  }
  g_unlink (moved_path);
  nb_detector_model_clear (&moved);
  scene_clear (&sc);
}

/* U = Rz(z) Ry(y) Rx(x), as nanoBragg applies -misset x y z (rad). */
static void
misset_matrix (double x, double y, double z, double U[9])
{
  double cx = cos (x), sx = sin (x), cy = cos (y), sy = sin (y), cz = cos (z), sz = sin (z);
  double Rx[9] = { 1, 0, 0, 0, cx, -sx, 0, sx, cx }, Ry[9] = { cy, 0, sy, 0, 1, 0, -sy, 0, cy };
  double Rz[9] = { cz, -sz, 0, sz, cz, 0, 0, 0, 1 }, T[9];

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      T[3 * i + j] = Ry[3 * i] * Rx[j] + Ry[3 * i + 1] * Rx[3 + j] + Ry[3 * i + 2] * Rx[6 + j];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      U[3 * i + j] = Rz[3 * i] * T[j] + Rz[3 * i + 1] * T[3 + j] + Rz[3 * i + 2] * T[6 + j];
}

/* From a detector turned by 0.2 deg about the beam and moved 0.3 mm, the
 * refinement of the detector as a whole (shift and turn of all panels
 * together, with the misset) brings it back: the motion it finds undoes the
 * error, and more peaks match than on the wrong detector. */
static void
test_refine_detector (void)
{
  scene sc;
  nb_params p;
  nb_refine_options ro;
  nb_refine_result rr, fixed;
  nb_error err = { 0 };
  g_autofree char *moved_path = NULL, *text = geom_text (0.2, 3.0);

  scene_init (&sc);
  moved_path = g_build_filename (sc.dir, "moved.geom", NULL);
  g_assert_true (g_file_set_contents (moved_path, text, -1, NULL));
  g_assert_cmpint (nb_params_copy (&p, &sc.truth, &err), ==, NB_OK);
  free (p.detector_file);
  p.detector_file = g_strdup (moved_path);
  /* the misset alone cannot make up for the detector's error */
  nb_refine_options_init (&ro);
  ro.match.frame = &sc.frame;
  ro.match.radius = 1.5;
  g_assert_cmpint (nb_refine (&p, sc.peaks, sc.n_peaks, &ro, &fixed, &err), ==, NB_OK);
  nb_params_clear (&p);
  g_assert_cmpint (nb_params_copy (&p, &sc.truth, &err), ==, NB_OK);
  free (p.detector_file);
  p.detector_file = g_strdup (moved_path);
  ro.refine_distance = ro.refine_beam = ro.refine_detector_rotation = 1;
  if (nb_refine (&p, sc.peaks, sc.n_peaks, &ro, &rr, &err) != NB_OK)
    g_error ("%s", err.message);
  g_test_message ("misset only: %d of %d within 1.5 px, rms %.3f; detector refined: %d, rms %.3f, "
                  "shift %+.4f %+.4f %+.4f mm, turn %+.4f %+.4f %+.4f deg, misset %+.4f %+.4f "
                  "%+.4f deg from M",
                  fixed.score.n_matched, sc.n_peaks, fixed.score.rms_distance, rr.score.n_matched,
                  rr.score.rms_distance, rr.detector_shift[0] * 1e3, rr.detector_shift[1] * 1e3,
                  rr.detector_shift[2] * 1e3, rr.detector_rotation[0] * RTD,
                  rr.detector_rotation[1] * RTD, rr.detector_rotation[2] * RTD,
                  p.misset[0] * RTD - misset_M[0], p.misset[1] * RTD - misset_M[1],
                  p.misset[2] * RTD - misset_M[2]);
  /* CrystFEL's x is the lab's -z, its y the lab's y, z the lab's x (the beam): the error was
   * +0.2 deg about the lab's x and -0.3 mm along its z.  The shift is undone; the turn about
   * the beam is the crystal's (turning both together moves no spot): the refined crystal is
   * turned +0.2 deg about the beam from M, and the detector is not turned */
  {
    double Um[9], Ur[9], R[9], angle, axis_x;

    misset_matrix (misset_M[0] / RTD, misset_M[1] / RTD, misset_M[2] / RTD, Um);
    misset_matrix (p.misset[0], p.misset[1], p.misset[2], Ur);
    /* R = Ur Um^T */
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        R[3 * i + j] =
            Ur[3 * i] * Um[3 * j] + Ur[3 * i + 1] * Um[3 * j + 1] + Ur[3 * i + 2] * Um[3 * j + 2];
    angle = acos (CLAMP ((R[0] + R[4] + R[8] - 1) / 2, -1.0, 1.0));
    axis_x = (R[7] - R[5]) / (2 * sin (angle));
    g_test_message ("the crystal turned %.4f deg from M, about an axis %.4f from the beam's",
                    angle * RTD, axis_x);
    g_assert_cmpfloat (fabs (angle * RTD * axis_x - 0.2), <, 0.03);
    /* across the beam, where the detector's tilts trade with the crystal's (a tilt of 0.05 deg
     * moves these spots by a few hundredths of a pixel) */
    g_assert_cmpfloat (angle * RTD * sqrt (fmax (0, 1 - axis_x * axis_x)), <, 0.05);
  }
  g_assert_cmpfloat (hypot (rr.detector_rotation[1], rr.detector_rotation[2]) * RTD, <, 0.05);
  g_assert_cmpfloat (fabs (rr.detector_shift[2] * 1e3 - 0.3), <, 0.03);
  g_assert_cmpfloat (fabs (rr.detector_shift[1] * 1e3), <, 0.03);
  g_assert_cmpint (rr.score.n_matched, >, fixed.score.n_matched);
  g_assert_cmpfloat (rr.score.rms_distance, <, 0.3);
  g_assert_true (rr.score.significant);
  g_unlink (moved_path);
  nb_params_clear (&p);
  scene_clear (&sc);
}

/* The frame rendered on the three panels, refined from the detector moved by a known error
 * (-detector_shift, -detector_rotation): the parameters then hold the motion that puts the
 * panels back (every corner within 0.01 mm of the truth's), the same whether the error was in
 * the flags or in the file, and they predict the frame's peaks as the truth does. */
static void
test_refine_detector_params (void)
{
  scene sc;
  nb_params p, q;
  nb_refine_options ro;
  nb_refine_result rr;
  nb_match_result truth, refined;
  nb_error err = { 0 };
  const double error_mm[3] = { 0.4, 0.25, -0.3 }, error_deg[3] = { 0.0, 0.08, -0.06 };
  g_autofree char *moved_path = NULL, *text = NULL;

  scene_init (&sc);
  nb_refine_options_init (&ro);
  ro.match.frame = &sc.frame;
  ro.match.radius = 1.5;
  ro.refine_distance = ro.refine_beam = ro.refine_detector_rotation = 1;
  g_assert_cmpint (nb_params_copy (&p, &sc.truth, &err), ==, NB_OK);
  for (int i = 0; i < 3; i++)
    {
      p.detector_shift[i] = error_mm[i] * 1e-3;
      p.detector_rotation[i] = error_deg[i] / RTD;
    }
  g_test_message ("wrong detector: corners up to %.4f mm off",
                  nb_test_corner_gap (&p, &sc.truth) * 1e3);
  if (nb_refine (&p, sc.peaks, sc.n_peaks, &ro, &rr, &err) != NB_OK)
    g_error ("%s", err.message);
  g_test_message ("refined: -detector_shift %.4f %.4f %.4f mm -detector_rotation %.4f %.4f %.4f "
                  "deg, corners up to %.4f mm off; %d of %d peaks, rms %.3f px",
                  p.detector_shift[0] * 1e3, p.detector_shift[1] * 1e3, p.detector_shift[2] * 1e3,
                  p.detector_rotation[0] * RTD, p.detector_rotation[1] * RTD,
                  p.detector_rotation[2] * RTD, nb_test_corner_gap (&p, &sc.truth) * 1e3,
                  rr.score.n_matched, sc.n_peaks, rr.score.rms_distance);
  g_assert_cmpfloat (nb_test_corner_gap (&p, &sc.truth), <, 0.01e-3);
  /* the motion across the beam is the truth's (none) */
  g_assert_cmpfloat (fabs (p.detector_shift[0]) * 1e3, <, 0.01);
  g_assert_cmpfloat (hypot (p.detector_rotation[1], p.detector_rotation[2]) * RTD, <, 0.05);
  /* the refined parameters predict the frame's peaks as the truth does */
  g_assert_cmpint (nb_match_peaks (&sc.truth, sc.peaks, sc.n_peaks, &ro.match, &truth, NULL, &err),
                   ==, NB_OK);
  g_assert_cmpint (nb_match_peaks (&p, sc.peaks, sc.n_peaks, &ro.match, &refined, NULL, &err), ==,
                   NB_OK);
  g_test_message ("truth %d peaks, rms %.3f px; refined %d, rms %.3f px", truth.n_matched,
                  truth.rms_distance, refined.n_matched, refined.rms_distance);
  g_assert_cmpint (refined.n_matched, >=, truth.n_matched);
  g_assert_cmpfloat (refined.rms_distance, <, truth.rms_distance + 0.1);

  /* a detector also turned by -detector_rotx: the motion cannot be composed with it, refused */
  {
    nb_params r;
    nb_refine_result rr2;

    g_assert_cmpint (nb_params_copy (&r, &sc.truth, &err), ==, NB_OK);
    r.rotx = 0.5 / RTD;
    g_assert_cmpint (nb_refine (&r, sc.peaks, sc.n_peaks, &ro, &rr2, &err), ==, NB_ERR_INVALID);
    g_assert_nonnull (strstr (err.message, "-detector_rotation instead"));
    g_assert_nonnull (strstr (err.message, sc.geom));
    nb_params_clear (&r);
  }

  /* the same error in the file: the flags then hold the whole correction, and the panels end
   * where they did */
  {
    nb_detector_model m;

    nb_detector_model_init (&m);
    g_assert_cmpint (nb_detector_model_read (sc.geom, &m, &err), ==, NB_OK);
    {
      double sh[3], rot[3];

      for (int i = 0; i < 3; i++)
        sh[i] = error_mm[i] * 1e-3, rot[i] = error_deg[i] / RTD;
      nb_detector_model_move (&m, sh, rot);
    }
    text = geom_of_model (&m);
    nb_detector_model_clear (&m);
  }
  moved_path = g_build_filename (sc.dir, "error.geom", NULL);
  g_assert_true (g_file_set_contents (moved_path, text, -1, NULL));
  g_assert_cmpint (nb_params_copy (&q, &sc.truth, &err), ==, NB_OK);
  free (q.detector_file);
  q.detector_file = g_strdup (moved_path);
  if (nb_refine (&q, sc.peaks, sc.n_peaks, &ro, &rr, &err) != NB_OK)
    g_error ("%s", err.message);
  g_test_message ("from the moved file: corners up to %.4f mm from the flags' result",
                  nb_test_corner_gap (&p, &q) * 1e3);
  g_assert_cmpfloat (nb_test_corner_gap (&q, &p), <, 0.01e-3);
  g_unlink (moved_path);
  nb_params_clear (&q);
  nb_params_clear (&p);
  scene_clear (&sc);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/match-panels/predict/per-panel", test_predict_per_panel);
  g_test_add_func ("/match-panels/match/significant", test_match_significant);
  g_test_add_func ("/match-panels/search-and-refine", test_search_and_refine);
  g_test_add_func ("/match-panels/bad-input", test_bad_input);
  g_test_add_func ("/match-panels/refine-detector", test_refine_detector);
  g_test_add_func ("/match-panels/shells/self-and-wrong", test_shells_self_and_wrong);
  g_test_add_func ("/match-panels/shells/own-geometry", test_shells_own_geometry);
  g_test_add_func ("/match-panels/match/masked-spot", test_masked_spot);
  g_test_add_func ("/match-panels/detector-motion", test_detector_motion);
  g_test_add_func ("/match-panels/refine-detector/params", test_refine_detector_params);
  return g_test_run ();
}
