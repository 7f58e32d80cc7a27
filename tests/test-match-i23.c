/* test-match-i23.c: the I23 thaumatin frame (issue 29 item 5) found and
 * scored over all 24 panels of its cylindrical Pilatus 12M.
 *
 * The frame: tests/data/measured/DLS_I23_P12M_thau_00001.cbf.gz, thaumatin
 * (P4(1)2(1)2, a = b = 57.8, c = 150.2 A) at 2.7552 A, omega -210 deg to
 * -209.95 about dxtbx's +x (nanoBragg's +z).  The geometry: the 24 modules of
 * tests/data/detectors/dls-i23-pilatus12m.geom, cut from the 2463 x 5071
 * array at their data origins.  The orientation: DIALS's (dials.find_spots,
 * dials.index with that cell, detector and beam fixed, on the real frame;
 * 204 of 206 strong spots indexed), U in dxtbx's frame
 *   -0.28548 -0.01886  0.95820
 *    0.25733 -0.96460  0.05768
 *    0.92319  0.26304  0.28023
 * as -misset angles about nanoBragg's x, y, z: -1.1277 16.5878 164.4247 deg
 * (docs: README.md "Measured frames"). */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nb-detector.h"
#include "nb-frame.h"
#include "nb-match.h"
#include "nb-test-measured.h"

#define RTD (180.0 / G_PI)

#define I23_FRAME "DLS_I23_P12M_thau_00001.cbf"
#define I23_FLAGS                                                                                  \
  "-lambda 2.7552 -cell 57.8 57.8 150.2 90 90 90 -default_F 1 -N 1000 -mosaic 0.1 "                \
  "-spindle_axis 0 0 1 -phi -210 -osc 0.05"
static const double misset_dials[3] = { -1.1277, 16.5878, 164.4247 }; /* deg */

/* The I23 parameters: the geometry file, I23_FLAGS, then the misset @m (deg). */
static void
i23_params (nb_params *p, const double m[3])
{
  g_autofree char *geom =
      g_test_build_filename (G_TEST_DIST, "data", "detectors", "dls-i23-pilatus12m.geom", NULL);
  g_autofree char *flags = g_strdup_printf (
      "nanobragg -detector %s " I23_FLAGS " -misset %.4f %.4f %.4f", geom, m[0], m[1], m[2]);
  g_auto (GStrv) argv = NULL;
  int argc = 0;
  nb_error err = { 0 };

  g_assert_true (g_shell_parse_argv (flags, &argc, &argv, NULL));
  nb_params_init (p);
  if (nb_params_parse_argv (p, argc, (const char *const *) argv, &err) != NB_OK)
    g_error ("'%s': %s", flags, err.message);
}

typedef struct
{
  nb_frame frame;
  nb_detector_model model;
  nb_peak *peaks;
  int n_peaks;
} i23_scene;

/* The frame and the strongest 100 peaks of its 24 panels. */
static void
i23_scene_init (i23_scene *sc)
{
  g_autofree char *geom =
      g_test_build_filename (G_TEST_DIST, "data", "detectors", "dls-i23-pilatus12m.geom", NULL);
  nb_peak_options po;
  nb_error err = { 0 };
  int on[24] = { 0 }, panels = 0;

  memset (sc, 0, sizeof *sc);
  nb_test_read_measured (I23_FRAME, &sc->frame);
  g_assert_cmpint (sc->frame.fpixels, ==, 2463);
  g_assert_cmpint (sc->frame.spixels, ==, 5071);
  g_assert_cmpint (nb_detector_model_read (geom, &sc->model, &err), ==, NB_OK);
  nb_peak_options_init (&po);
  po.max_peaks = 100;
  g_assert_cmpint (
      nb_find_panel_peaks (&sc->frame, &sc->model, &po, &sc->peaks, &sc->n_peaks, &err), ==, NB_OK);
  for (int i = 0; i < sc->n_peaks; i++)
    {
      g_assert_cmpint (sc->peaks[i].panel, >=, 0);
      g_assert_cmpint (sc->peaks[i].panel, <, 24);
      panels += !on[sc->peaks[i].panel];
      on[sc->peaks[i].panel] = 1;
    }
  g_test_message ("%d peaks on %d of the 24 panels", sc->n_peaks, panels);
  g_assert_cmpint (sc->n_peaks, >=, 50);
  g_assert_cmpint (panels, >=, 12);
}

static void
i23_scene_clear (i23_scene *sc)
{
  free (sc->peaks);
  nb_detector_model_clear (&sc->model);
  nb_frame_clear (&sc->frame);
}

/* The score of the misset @m (deg) in @res. */
/* The blueprint geometry places every module within about 12 pixels of
 * where the frame's spots say it is (a rigid offset of the detector of about
 * 2 mm, which dials.index removes when it refines the detector: 0.5 pixel
 * RMSD then, 2.5 x 10.5 pixels with it fixed): the match radius. */
#define I23_RADIUS 12.0

/* The score of the misset @m (deg) in @res. */
static void
score (const i23_scene *sc, const double m[3], nb_match_result *res)
{
  nb_params p;
  nb_match_options mo;
  nb_error err = { 0 };

  i23_params (&p, m);
  nb_match_options_init (&mo);
  mo.frame = &sc->frame;
  mo.radius = I23_RADIUS;
  if (nb_match_peaks (&p, sc->peaks, sc->n_peaks, &mo, res, NULL, &err) != NB_OK)
    g_error ("%s", err.message);
  g_test_message ("misset %.4f %.4f %.4f: %d of %d peaks within %g px (%.0f %%), chance %.2f %% "
                  "(%ld predicted, %.2f to %.2f A), log10 p %.1f: %s",
                  m[0], m[1], m[2], res->n_matched, res->n_peaks, mo.radius, 100 * res->fraction,
                  100 * res->chance_fraction, res->n_predicted, res->chance_d_max,
                  res->chance_d_min, res->log10_p, res->significant ? "a match" : "no match");
  nb_params_clear (&p);
}

/* At DIALS's orientation the frame's peaks on all panels match, far beyond
 * chance (79 of 100 against 1.4 %); 5.6 deg away about z, none does. */
static void
test_i23_scored (void)
{
  const double off[3] = { misset_dials[0], misset_dials[1], 170.0 };
  i23_scene sc;
  nb_match_result res;

  if (!HAVE_MEASURED_CBF)
    {
      g_test_skip ("this build has no CBFlib");
      return;
    }
  i23_scene_init (&sc);
  score (&sc, misset_dials, &res);
  g_assert_true (res.significant);
  g_assert_cmpint (res.n_matched, >=, 60);
  g_assert_cmpfloat (res.chance_fraction, <, 0.05);
  g_assert_cmpfloat (res.log10_p, <, -50);
  score (&sc, off, &res);
  g_assert_false (res.significant);
  g_assert_cmpint (res.n_matched, <, 10);
  i23_scene_clear (&sc);
}

/* The rotation nanoBragg's -misset @m (rad) applies: Rz Ry Rx. */
static void
misset_matrix (const double m[3], double r[3][3])
{
  const double cx = cos (m[0]), sx = sin (m[0]), cy = cos (m[1]), sy = sin (m[1]);
  const double cz = cos (m[2]), sz = sin (m[2]);
  const double rx[3][3] = { { 1, 0, 0 }, { 0, cx, -sx }, { 0, sx, cx } };
  const double ry[3][3] = { { cy, 0, sy }, { 0, 1, 0 }, { -sy, 0, cy } };
  const double rz[3][3] = { { cz, -sz, 0 }, { sz, cz, 0 }, { 0, 0, 1 } };
  double t[3][3];

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      {
        t[i][j] = 0;
        for (int k = 0; k < 3; k++)
          t[i][j] += ry[i][k] * rx[k][j];
      }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      {
        r[i][j] = 0;
        for (int k = 0; k < 3; k++)
          r[i][j] += rz[i][k] * t[k][j];
      }
}

/* The angle (deg) between the orientations of the misset angles @a and @b
 * (rad) up to the tetragonal lattice's symmetry (422: the crystal's c along
 * nanoBragg's z at misset 0): the rotation between them, R_a^T R_b, against
 * the nearest signed permutation that keeps z's axis. */
static double
angle_up_to_422 (const double a[3], const double b[3])
{
  double ra[3][3], rb[3][3], d[3][3], best = 180.0;

  misset_matrix (a, ra);
  misset_matrix (b, rb);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      {
        d[i][j] = 0;
        for (int k = 0; k < 3; k++)
          d[i][j] += ra[k][i] * rb[k][j];
      }
  /* the 8 operations of 422: x' = (+-x or +-y), z' = +-z, proper */
  for (int op = 0; op < 8; op++)
    {
      double g[3][3] = { { 0 } }, trace = 0;
      int swap = op & 1, sa = op & 2 ? -1 : 1, sz = op & 4 ? -1 : 1;

      /* rows: images of x, y, z; det +1 fixes y's sign */
      g[0][swap ? 1 : 0] = sa;
      g[2][2] = sz;
      g[1][swap ? 0 : 1] = swap ? -sa * sz : sa * sz;
      for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
          trace += g[i][k] * d[i][k];
      best = MIN (best, acos (CLAMP ((trace - 1) / 2, -1.0, 1.0)) * RTD);
    }
  return best;
}

/* Found without DIALS: nanoBragg's orientation search from misset 0 over all
 * panels' peaks gives DIALS's orientation (up to 422) within 0.5 deg, a match
 * after its correction for every orientation it could tell apart. */
static void
test_i23_found (void)
{
  const double zero[3] = { 0, 0, 0 };
  double dials[3];
  i23_scene sc;
  nb_params p;
  nb_search_options so;
  nb_search_result sr;
  nb_error err = { 0 };
  double angle;

  if (!HAVE_MEASURED_CBF)
    {
      g_test_skip ("this build has no CBFlib");
      return;
    }
  i23_scene_init (&sc);
  i23_params (&p, zero);
  nb_search_options_init (&so);
  so.refine.match.frame = &sc.frame;
  so.refine.match.radius = I23_RADIUS;
  so.candidates = 3;
  if (nb_orientation_search (&p, sc.peaks, sc.n_peaks, &so, &sr, &err) != NB_OK)
    g_error ("%s", err.message);
  for (int k = 0; k < 3; k++)
    dials[k] = misset_dials[k] / RTD;
  angle = angle_up_to_422 (p.misset, dials);
  g_test_message ("search (grid %.1f s, refinement %.1f s): misset %.4f %.4f %.4f, %.3f deg from "
                  "DIALS's up to 422; %d of %d peaks, chance %.2f %%, log10 p %.1f over %.3g "
                  "trials: %s",
                  sr.grid_seconds, sr.refine_seconds, p.misset[0] * RTD, p.misset[1] * RTD,
                  p.misset[2] * RTD, angle, sr.score.n_matched, sr.score.n_peaks,
                  100 * sr.score.chance_fraction, sr.score.log10_p, sr.score.trials,
                  sr.score.significant ? "a match" : "no match");
  g_assert_true (sr.score.significant);
  g_assert_cmpint (sr.score.n_matched, >=, 60);
  g_assert_cmpfloat (angle, <, 0.5);
  nb_params_clear (&p);
  i23_scene_clear (&sc);
}

/* The detector refined as one rigid body (the distance and beam centre, then
 * also turned across the beam) with the orientation, from DIALS's: the 12
 * pixels of the blueprint's offset close to 3, most peaks within them (77 of
 * 100, rms 1.0 pixel, 0.09 % by chance), the whole detector moved about 2 mm. */
static void
test_i23_refined (void)
{
  i23_scene sc;
  nb_params p;
  nb_refine_options ro;
  nb_refine_result rr;
  nb_error err = { 0 };
  double shift = 0;

  if (!HAVE_MEASURED_CBF)
    {
      g_test_skip ("this build has no CBFlib");
      return;
    }
  i23_scene_init (&sc);
  i23_params (&p, misset_dials);
  for (int pass = 0; pass < 2; pass++)
    {
      nb_refine_options_init (&ro);
      ro.match.frame = &sc.frame;
      ro.match.radius = pass == 0 ? I23_RADIUS : 3;
      ro.refine_beam = ro.refine_distance = 1;
      ro.refine_detector_rotation = pass;
      ro.max_distance_change = 0.004;
      if (nb_refine (&p, sc.peaks, sc.n_peaks, &ro, &rr, &err) != NB_OK)
        g_error ("%s", err.message);
      g_test_message ("within %g px: %d of %d, rms %.2f px, chance %.3f %%, log10 p %.1f; misset "
                      "%.4f %.4f %.4f; detector moved %.3f %.3f %.3f mm, turned %.3f %.3f %.3f deg",
                      ro.match.radius, rr.score.n_matched, rr.score.n_peaks, rr.score.rms_distance,
                      100 * rr.score.chance_fraction, rr.score.log10_p, p.misset[0] * RTD,
                      p.misset[1] * RTD, p.misset[2] * RTD, rr.detector_shift[0] * 1e3,
                      rr.detector_shift[1] * 1e3, rr.detector_shift[2] * 1e3,
                      rr.detector_rotation[0] * RTD, rr.detector_rotation[1] * RTD,
                      rr.detector_rotation[2] * RTD);
    }
  for (int k = 0; k < 3; k++)
    shift += rr.detector_shift[k] * rr.detector_shift[k];
  g_assert_true (rr.score.significant);
  g_assert_cmpint (rr.score.n_matched, >=, 60);
  g_assert_cmpfloat (rr.score.rms_distance, <, 1.5);
  g_assert_cmpfloat (rr.score.log10_p, <, -100);
  g_assert_cmpfloat (sqrt (shift), <, 0.004);
  g_assert_cmpfloat (rr.rotation * RTD, <, 0.2);
  nb_params_clear (&p);
  i23_scene_clear (&sc);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/match/i23/scored", test_i23_scored);
  g_test_add_func ("/match/i23/found", test_i23_found);
  g_test_add_func ("/match/i23/refined", test_i23_refined);
  return g_test_run ();
}
