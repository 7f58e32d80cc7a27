/* test-geometry.c: what nb_plan_create() derives before any pixel is
 * rendered: conventions, beam centres, pivots, rotations, pix0 (physics.md §4,
 * §5), the unit cell (§7) and the sampling auto-selection (§10, §11). */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "nanobragg.h"
#include "nb-test-util.h"

#define RTD (180.0 * M_1_PI)

/* A crystal and structure factors, so that a plan can be made. */
#define XTAL "-default_F 100 -cell 100 100 100 90 90 90 "

/* plan_fails: "nanobragg @cmdline" parses but nb_plan_create() fails with
 * @code; returns the message. */
static char *
plan_fails (const char *cmdline, nb_status code)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *full = g_strconcat ("nanobragg ", cmdline, NULL);
  g_auto (GStrv) argv = NULL;
  int argc = 0;
  nb_params p;
  nb_plan *plan = NULL;
  nb_error err = { 0 };
  nb_status st;

  g_assert_true (g_shell_parse_argv (full, &argc, &argv, &error));
  nb_params_init (&p);
  g_assert_cmpint (nb_params_parse_argv (&p, argc, (const char *const *) argv, &err), ==, NB_OK);
  st = nb_plan_create (&p, &plan, &err);
  nb_params_clear (&p);
  g_assert_null (plan);
  if (st != code)
    g_error ("'%s': expected %s, got %s (%s)", cmdline, nb_status_name (code), nb_status_name (st),
             err.message);
  g_assert_cmpstr (err.message, !=, "");
  return g_strdup (err.message);
}

static void
assert_close (double got, double want, double tol)
{
  if (!(fabs (got - want) <= tol))
    g_error ("got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

static void
assert_vec_close (const double v[3], double x, double y, double z, double tol)
{
  assert_close (v[0], x, tol);
  assert_close (v[1], y, tol);
  assert_close (v[2], z, tol);
}

/* assert_g: @v printed with "%g", as the reference prints it, is @want. */
static void
assert_g (double v, const char *want)
{
  g_autofree char *s = g_strdup_printf ("%g", v);

  g_assert_cmpstr (s, ==, want);
}

static void
assert_log_has (const nb_plan *plan, const char *line)
{
  const char *log = nb_plan_get_log (plan);

  if (strstr (log, line) == NULL)
    g_error ("the plan log lacks '%s':\n%s", line, log);
}

static void
assert_log_lacks (const nb_plan *plan, const char *line)
{
  if (strstr (nb_plan_get_log (plan), line) != NULL)
    g_error ("the plan log has '%s'", line);
}

static double
dot (const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void
cross (const double a[3], const double b[3], double out[3])
{
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* AT-GEO-001 (physics.md §5, verified). */
static void
test_at_geo_001 (void)
{
  nb_plan *plan = plan_new (XTAL "-mosflm -pixel 0.1 -distance 100 -Xbeam 51.2 -Ybeam 51.2 "
                                 "-detpixels 1024");
  const nb_plan_info *in = nb_plan_get_info (plan);

  g_assert_cmpint (in->convention, ==, NB_CONVENTION_MOSFLM);
  g_assert_cmpint (in->pivot, ==, NB_PIVOT_BEAM);
  assert_close (in->Fbeam, 0.05125, 1e-9);
  assert_close (in->Sbeam, 0.05125, 1e-9);
  assert_vec_close (in->pix0, 0.1, 0.05125, -0.05125, 1e-9);
  assert_vec_close (in->dials_origin, -51.25, 51.25, -100, 1e-9 * 1000);
  assert_close (in->ORGX, 513, 1e-9);
  assert_close (in->ORGY, 513, 1e-9);
  assert_close (in->distance, 0.1, 1e-12);
  assert_close (in->close_distance, 0.1, 1e-12);
  assert_log_has (plan, "mosflm convention selected.\n");
  assert_log_has (plan, "pivoting detector around direct beam spot\n");
  assert_log_has (plan, "XDS incident beam: 0 0 1\n");
  nb_plan_destroy (plan);
}

/* The SMV header values of physics.md §19.6 (verified) from the plan info,
 * converted as the CLI converts them. */
static void
test_header_values (void)
{
  nb_plan *plan = plan_new ("-default_F 100 -cell 100 100 100 90 90 90 -detpixels 64 "
                            "-distance 100 -lambda 1 -N 5");
  const nb_plan_info *in = nb_plan_get_info (plan);

  assert_g (in->pixel_size * 1000, "0.1");
  assert_g (in->distance * 1000, "100");
  assert_g (in->lambda0 * 1e10, "1");
  assert_g (in->Xbeam * 1000, "3.25");
  assert_g (in->Ybeam * 1000, "3.25");
  assert_g (in->Fbeam * 1000, "3.3");
  assert_g ((in->detsize_s - in->Sbeam) * 1000, "3.1");
  assert_g ((in->Sbeam - 0.5 * in->pixel_size) * 1000, "3.25");
  assert_g ((in->Fbeam - 0.5 * in->pixel_size) * 1000, "3.25");
  assert_g (in->Sbeam * 1000, "3.3");
  assert_g (in->dials_origin[0], "-3.3");
  assert_g (in->dials_origin[1], "3.3");
  assert_g (in->dials_origin[2], "-100");
  assert_g (in->ORGX, "33.5");
  assert_g (in->ORGY, "33.5");
  assert_g (in->close_distance * 1000, "100");
  assert_g (in->phi0 * RTD, "0");
  assert_g (in->osc * RTD, "0");
  assert_g (in->twotheta * RTD, "0");
  g_assert_cmpint (in->fpixels, ==, 64);
  g_assert_cmpint (in->spixels, ==, 64);
  /* physics.md §8: 100 A cell, N = 5, 1 A, 100 mm, 0.1 mm -> 2-fold */
  g_assert_cmpint (in->oversample, ==, 2);
  assert_log_has (plan, "auto-selected 2-fold oversampling\n");
  assert_log_has (plan, "  Fbeam=0.0033 Sbeam=0.0033\n");
  nb_plan_destroy (plan);
}

/* physics.md §5 step 6: two-theta is left out of the distance ratio. */
static void
test_twotheta_ratio (void)
{
  nb_plan *plan = plan_new (XTAL "-detpixels 64 -distance 100 -twotheta 10");
  const nb_plan_info *in = nb_plan_get_info (plan);

  /* named conventions keep their pivot whatever -twotheta asks */
  g_assert_cmpint (in->pivot, ==, NB_PIVOT_BEAM);
  assert_g (in->distance, "0.0984808");
  assert_g (in->distance * 1000, "98.4808");
  assert_g (in->Fbeam, "0.0033");
  assert_g (in->Sbeam, "0.00356381");
  assert_g (in->Fclose, "0.0033");
  assert_g (in->Sclose, "0.0206648");
  assert_g (in->twotheta * RTD, "10");
  nb_plan_destroy (plan);

  /* -physical: the ratio includes two-theta, the distance stays as given and
   * the reported beam centre is where the beam hits */
  plan = plan_new (XTAL "-detpixels 64 -distance 100 -twotheta 10 -physical");
  in = nb_plan_get_info (plan);
  assert_close (in->distance, 0.1, 1e-12);
  assert_close (in->Fbeam, 0.0033, 1e-12);
  assert_close (in->Sbeam, 0.0033, 1e-12);
  assert_close (in->close_distance, 0.1 * cos (10 / RTD), 1e-12);
  nb_plan_destroy (plan);
}

/* Default beam centres (physics.md §4.3): ADXV and DENZO half a pixel past the
 * centre, MOSFLM one pixel, XDS/DIALS/CUSTOM the exact centre. */
static void
test_default_beam_centres (void)
{
  static const struct
  {
    const char *flags;
    double centre;       /* Fbeam = Sbeam (mm) */
    double Xbeam, Ybeam; /* convention values (mm) */
  } cases[] = {
    { "-adxv", 3.25, 3.25, 3.15 },  { "-mosflm", 3.3, 3.25, 3.25 },
    { "-denzo", 3.25, 3.25, 3.25 }, { "-xds", 3.2, 3.2, 3.2 },
    { "-dials", 3.2, 3.2, 3.2 },    { "-pix0_vector 0 0 0", 3.2, 3.2, 3.2 },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *cmd = g_strdup_printf (XTAL "-detpixels 64 %s", cases[i].flags);
      nb_plan *plan = plan_new (cmd);
      const nb_plan_info *in = nb_plan_get_info (plan);

      g_test_message ("%s", cases[i].flags);
      assert_close (in->Fbeam, cases[i].centre / 1000, 1e-12);
      assert_close (in->Sbeam, cases[i].centre / 1000, 1e-12);
      assert_close (in->Xbeam, cases[i].Xbeam / 1000, 1e-12);
      assert_close (in->Ybeam, cases[i].Ybeam / 1000, 1e-12);
      /* no rotation: the near point is the beam spot */
      assert_close (in->Fclose, in->Fbeam, 1e-12);
      assert_close (in->Sclose, in->Sbeam, 1e-12);
      assert_close (in->ORGX, cases[i].centre / 0.1 + 0.5, 1e-9);
      assert_close (in->distance, 0.1, 1e-12);
      nb_plan_destroy (plan);
    }
}

/* Each convention's vectors (physics.md §4.3), its forced pivot and its
 * two-theta axis t, seen through a two-theta rotation of the normal:
 * o' = o cos(2theta) + (t x o) sin(2theta) for t perpendicular to o. */
static void
test_convention_vectors (void)
{
  static const struct
  {
    const char *flags;
    nb_convention convention;
    nb_pivot pivot;
    const char *name;
    double b[3], f[3], s[3], o[3], t[3], p[3], u[3];
  } cases[] = {
    { "-adxv",
      NB_CONVENTION_ADXV,
      NB_PIVOT_BEAM,
      "adxv",
      { 0, 0, 1 },
      { 1, 0, 0 },
      { 0, -1, 0 },
      { 0, 0, 1 },
      { -1, 0, 0 },
      { 1, 0, 0 },
      { 1, 0, 0 } },
    { "-mosflm",
      NB_CONVENTION_MOSFLM,
      NB_PIVOT_BEAM,
      "mosflm",
      { 1, 0, 0 },
      { 0, 0, 1 },
      { 0, -1, 0 },
      { 1, 0, 0 },
      { 0, 0, -1 },
      { 0, 0, 1 },
      { 0, 0, 1 } },
    { "-denzo",
      NB_CONVENTION_DENZO,
      NB_PIVOT_BEAM,
      "denzo",
      { 1, 0, 0 },
      { 0, 0, 1 },
      { 0, -1, 0 },
      { 1, 0, 0 },
      { 0, 0, -1 },
      { 0, 0, 1 },
      { 0, 0, 1 } },
    { "-xds",
      NB_CONVENTION_XDS,
      NB_PIVOT_SAMPLE,
      "xds",
      { 0, 0, 1 },
      { 1, 0, 0 },
      { 0, 1, 0 },
      { 0, 0, 1 },
      { 1, 0, 0 },
      { 1, 0, 0 },
      { 1, 0, 0 } },
    { "-dials",
      NB_CONVENTION_DIALS,
      NB_PIVOT_SAMPLE,
      "dials",
      { 0, 0, 1 },
      { 1, 0, 0 },
      { 0, 1, 0 },
      { 0, 0, 1 },
      { 0, 1, 0 },
      { 0, 1, 0 },
      { 0, 1, 0 } },
    { "-pix0_vector 0 0 0",
      NB_CONVENTION_CUSTOM,
      NB_PIVOT_BEAM,
      "custom",
      { 1, 0, 0 },
      { 0, 0, 1 },
      { 0, -1, 0 },
      { 1, 0, 0 },
      { 0, 1, 0 },
      { 0, 0, 1 },
      { 0, 0, 1 } },
  };
  const double tt = 30 / RTD;

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *cmd =
          g_strdup_printf (XTAL "-detpixels 64 -pivot sample %s", cases[i].flags);
      g_autofree char *cmd2 =
          g_strdup_printf (XTAL "-detpixels 64 %s -twotheta 30", cases[i].flags);
      g_autofree char *logline = g_strdup_printf ("%s convention selected.\n", cases[i].name);
      nb_plan *plan = plan_new (cmd);
      const nb_plan_info *in = nb_plan_get_info (plan);
      double txo[3];

      g_test_message ("%s", cases[i].flags);
      g_assert_cmpint (in->convention, ==, cases[i].convention);
      /* CUSTOM keeps the requested pivot; named conventions force theirs */
      g_assert_cmpint (in->pivot, ==,
                       cases[i].convention == NB_CONVENTION_CUSTOM ? NB_PIVOT_SAMPLE
                                                                   : cases[i].pivot);
      assert_log_has (plan, logline);
      assert_vec_close (in->beam, cases[i].b[0], cases[i].b[1], cases[i].b[2], 0);
      assert_vec_close (in->fdet, cases[i].f[0], cases[i].f[1], cases[i].f[2], 0);
      assert_vec_close (in->sdet, cases[i].s[0], cases[i].s[1], cases[i].s[2], 0);
      assert_vec_close (in->odet, cases[i].o[0], cases[i].o[1], cases[i].o[2], 0);
      assert_vec_close (in->polar_vector, cases[i].p[0], cases[i].p[1], cases[i].p[2], 0);
      assert_vec_close (in->spindle, cases[i].u[0], cases[i].u[1], cases[i].u[2], 0);
      nb_plan_destroy (plan);

      plan = plan_new (cmd2);
      in = nb_plan_get_info (plan);
      cross (cases[i].t, cases[i].o, txo);
      assert_vec_close (in->odet, cases[i].o[0] * cos (tt) + txo[0] * sin (tt),
                        cases[i].o[1] * cos (tt) + txo[1] * sin (tt),
                        cases[i].o[2] * cos (tt) + txo[2] * sin (tt), 1e-12);
      if (cases[i].convention == NB_CONVENTION_CUSTOM)
        g_assert_cmpint (in->pivot, ==, NB_PIVOT_SAMPLE);
      else
        g_assert_cmpint (in->pivot, ==, cases[i].pivot);
      nb_plan_destroy (plan);
    }
}

static void
matmul (const double a[9], const double b[9], double out[9])
{
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      out[3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
}

static void
matvec (const double m[9], const double v[3], double out[3])
{
  for (int r = 0; r < 3; r++)
    out[r] = m[3 * r] * v[0] + m[3 * r + 1] * v[1] + m[3 * r + 2] * v[2];
}

/* Detector rotations are about the fixed lab axes, X then Y then Z
 * (physics.md §3.1): f' = Rz Ry Rx f. */
static void
test_rotation_order (void)
{
  const double x = 10 / RTD, y = 20 / RTD, z = 30 / RTD;
  const double Rx[9] = { 1, 0, 0, 0, cos (x), -sin (x), 0, sin (x), cos (x) };
  const double Ry[9] = { cos (y), 0, sin (y), 0, 1, 0, -sin (y), 0, cos (y) };
  const double Rz[9] = { cos (z), -sin (z), 0, sin (z), cos (z), 0, 0, 0, 1 };
  const double f0[3] = { 0, 0, 1 }, s0[3] = { 0, -1, 0 }, o0[3] = { 1, 0, 0 };
  double t[9], R[9], Rwrong[9], want[3], wrong[3];
  nb_plan *plan = plan_new (XTAL "-mosflm -detpixels 64 -detector_rotx 10 -detector_roty 20 "
                                 "-detector_rotz 30");
  const nb_plan_info *in = nb_plan_get_info (plan);

  matmul (Ry, Rx, t);
  matmul (Rz, t, R);
  matmul (Ry, Rz, t);
  matmul (Rx, t, Rwrong);

  matvec (R, f0, want);
  assert_vec_close (in->fdet, want[0], want[1], want[2], 1e-12);
  matvec (Rwrong, f0, wrong);
  g_assert_cmpfloat (fabs (in->fdet[0] - wrong[0]) + fabs (in->fdet[1] - wrong[1]) +
                         fabs (in->fdet[2] - wrong[2]),
                     >, 1e-3);
  matvec (R, s0, want);
  assert_vec_close (in->sdet, want[0], want[1], want[2], 1e-12);
  matvec (R, o0, want);
  assert_vec_close (in->odet, want[0], want[1], want[2], 1e-12);
  /* the beam does not move */
  assert_vec_close (in->beam, 1, 0, 0, 0);
  nb_plan_destroy (plan);
}

/* beam_intercept: where the beam (through the sample, along b) meets the
 * detector plane, in the detector's fast/slow coordinates from pix0. */
static void
beam_intercept (const nb_plan_info *in, double *F, double *S)
{
  double t = dot (in->pix0, in->odet) / dot (in->beam, in->odet), w[3];

  for (int k = 0; k < 3; k++)
    w[k] = t * in->beam[k] - in->pix0[k];
  *F = dot (w, in->fdet);
  *S = dot (w, in->sdet);
}

/* BEAM pivot keeps the beam spot where it was asked, SAMPLE pivot the near
 * point (foot of the perpendicular from the sample) and its distance. */
static void
test_pivots (void)
{
  nb_plan *plan;
  const nb_plan_info *in;
  double F, S;

  /* MOSFLM beam centre -Xbeam 3 -Ybeam 4: Fbeam = 4.05 mm, Sbeam = 3.05 mm */
  plan = plan_new (XTAL "-detpixels 64 -Xbeam 3 -Ybeam 4 -detector_rotx 5 -detector_roty 3 "
                        "-detector_rotz 2 -twotheta 10");
  in = nb_plan_get_info (plan);
  g_assert_cmpint (in->pivot, ==, NB_PIVOT_BEAM);
  assert_log_has (plan, "pivoting detector around direct beam spot\n");
  beam_intercept (in, &F, &S);
  assert_close (F, 0.00405, 1e-12);
  assert_close (S, 0.00305, 1e-12);
  /* along the beam, the spot is -distance away */
  {
    double spot[3];
    for (int k = 0; k < 3; k++)
      spot[k] = in->pix0[k] + 0.00405 * in->fdet[k] + 0.00305 * in->sdet[k];
    assert_vec_close (spot, 0.1, 0, 0, 1e-12);
  }
  nb_plan_destroy (plan);

  /* the same without two-theta: the reported centre is the true one */
  plan = plan_new (XTAL "-detpixels 64 -Xbeam 3 -Ybeam 4 -detector_rotx 5 -detector_roty 3 "
                        "-detector_rotz 2");
  in = nb_plan_get_info (plan);
  assert_close (in->Fbeam, 0.00405, 1e-12);
  assert_close (in->Sbeam, 0.00305, 1e-12);
  assert_close (in->distance, 0.1, 1e-12);
  nb_plan_destroy (plan);

  /* XDS (SAMPLE): ORGX/ORGY and -close_distance survive any rotation */
  {
    static const char *const rotations[] = {
      "",
      "-detector_rotx 5 -detector_roty 3",
      "-detector_rotz 7 -twotheta 10",
    };

    for (size_t i = 0; i < G_N_ELEMENTS (rotations); i++)
      {
        g_autofree char *cmd = g_strdup_printf (XTAL "-xds -detpixels 64 -ORGX 20 -ORGY 40 "
                                                     "-close_distance 80 %s",
                                                rotations[i]);

        plan = plan_new (cmd);
        in = nb_plan_get_info (plan);
        g_assert_cmpint (in->pivot, ==, NB_PIVOT_SAMPLE);
        assert_log_has (plan, "pivoting detector around sample\n");
        assert_close (in->Fclose, 0.00195, 1e-12);
        assert_close (in->Sclose, 0.00395, 1e-12);
        assert_close (-dot (in->pix0, in->fdet), 0.00195, 1e-12);
        assert_close (-dot (in->pix0, in->sdet), 0.00395, 1e-12);
        assert_close (dot (in->pix0, in->odet), 0.08, 1e-12);
        assert_close (in->close_distance, 0.08, 1e-12);
        assert_close (in->ORGX, 20, 1e-9);
        assert_close (in->ORGY, 40, 1e-9);
        nb_plan_destroy (plan);
      }
  }

  /* XDS: -Xbeam/-Ybeam reach only the header values */
  plan = plan_new (XTAL "-xds -detpixels 64 -Xbeam 1 -Ybeam 2");
  in = nb_plan_get_info (plan);
  assert_close (in->Xbeam, 0.001, 1e-15);
  assert_close (in->Ybeam, 0.002, 1e-15);
  assert_close (in->Fbeam, 0.0032, 1e-12);
  assert_close (in->Sbeam, 0.0032, 1e-12);
  nb_plan_destroy (plan);

  /* MOSFLM ignores -pivot sample and -ORGX */
  plan = plan_new (XTAL "-detpixels 64 -pivot sample -ORGX 10");
  in = nb_plan_get_info (plan);
  g_assert_cmpint (in->pivot, ==, NB_PIVOT_BEAM);
  assert_close (in->Fbeam, 0.0033, 1e-12);
  assert_log_lacks (plan, "pivoting detector around sample");
  nb_plan_destroy (plan);

  /* CUSTOM honours the pivot: the same rotations keep the spot or the near point */
  plan = plan_new (XTAL "-detpixels 64 -pix0_vector 0 0 0 -Xbeam 2 -Ybeam 5 -pivot beam "
                        "-detector_rotx 4 -detector_roty 6");
  in = nb_plan_get_info (plan);
  g_assert_cmpint (in->pivot, ==, NB_PIVOT_BEAM);
  beam_intercept (in, &F, &S);
  assert_close (F, 0.002, 1e-12);
  assert_close (S, 0.005, 1e-12);
  nb_plan_destroy (plan);
  plan = plan_new (XTAL "-detpixels 64 -pix0_vector 0 0 0 -Xbeam 2 -Ybeam 5 -pivot sample "
                        "-detector_rotx 4 -detector_roty 6");
  in = nb_plan_get_info (plan);
  g_assert_cmpint (in->pivot, ==, NB_PIVOT_SAMPLE);
  assert_close (in->Fclose, 0.002, 1e-12);
  assert_close (in->Sclose, 0.005, 1e-12);
  beam_intercept (in, &F, &S);
  g_assert_cmpfloat (fabs (F - 0.002) + fabs (S - 0.005), >, 1e-4);
  nb_plan_destroy (plan);
}

static double
angle_deg (const double a[3], const double b[3])
{
  return acos (dot (a, b) / sqrt (dot (a, a)) / sqrt (dot (b, b))) * RTD;
}

/* A cell that Q-5 distorts far enough has a sine of a reciprocal angle above
 * 1.0000001, and the reference warns before printing it; the lines (%.25g)
 * are those nanoBragg printed for this cell.  -physical keeps the cell
 * consistent: no warning. */
static void
test_oddball_angles (void)
{
  nb_plan *plan = plan_new ("-default_F 100 -cell 50 60 70 60 70 80 -detpixels 16");

  assert_log_has (plan, "WARNING: oddball reciprocal cell angles:\n"
                        "sin(alpha_star) = 0.8816653256433152341386972\n"
                        "cos(alpha_star) = -0.4810965101359042650486231\n"
                        "sin(beta_star)  = 0.95863134516086900838161\n"
                        "cos(beta_star)  = -0.3023487344409626631502874\n"
                        "sin(gamma_star) = 1.005695493444447530251296\n"
                        "cos(gamma_star) = -0.003241722192820309031424664\n"
                        "Unit Cell: ");
  assert_log_lacks (plan, "oddball cell angles");
  nb_plan_destroy (plan);

  plan = plan_new ("-default_F 100 -cell 50 60 70 60 70 80 -detpixels 16 -physical");
  assert_log_lacks (plan, "oddball");
  nb_plan_destroy (plan);
  plan = plan_new ("-default_F 100 -cell 70 80 90 75 85 95 -detpixels 16");
  assert_log_lacks (plan, "oddball");
  nb_plan_destroy (plan);
}

/* The reference's molecular-weight estimate, printed after the oversampling
 * choice: crystal volume x 1.2 g/cm^3 x Avogadro / cells (as in its log of the
 * golden case simple_cubic). */
static void
test_approximate_mw (void)
{
  nb_plan *plan =
      plan_new ("-default_F 100 -cell 100 100 100 90 90 90 -lambda 6.2 -N 5 -detpixels 16");

  assert_log_has (plan, "crystal is 0.05 x 0.05 x 0.05 microns\n"
                        "auto-selected 1-fold oversampling\n"
                        "approximate MW = 722657\n");
  nb_plan_destroy (plan);
}

/* Triclinic cells: the reference's c*_z formula makes the angles drift;
 * -physical gives the cell as asked. */
static void
test_triclinic_cell (void)
{
  nb_plan *plan = plan_new ("-default_F 100 -cell 70 80 90 75 85 95 -detpixels 64");
  const nb_plan_info *in = nb_plan_get_info (plan);

  assert_log_has (plan, "Unit Cell: 70 80 90 75.0391 85.0136 95.0081\n");
  /* lengths are exact (metres) */
  assert_close (sqrt (dot (in->a0, in->a0)), 70e-10, 1e-21);
  assert_close (sqrt (dot (in->b0, in->b0)), 80e-10, 1e-21);
  assert_close (sqrt (dot (in->c0, in->c0)), 90e-10, 1e-21);
  assert_close (angle_deg (in->b0, in->c0), 75.0391, 1e-4);
  nb_plan_destroy (plan);

  plan = plan_new ("-default_F 100 -cell 70 80 90 75 85 95 -detpixels 64 -physical");
  in = nb_plan_get_info (plan);
  assert_close (sqrt (dot (in->a0, in->a0)), 70e-10, 1e-21);
  assert_close (sqrt (dot (in->b0, in->b0)), 80e-10, 1e-21);
  assert_close (sqrt (dot (in->c0, in->c0)), 90e-10, 1e-21);
  assert_close (angle_deg (in->b0, in->c0), 75, 1e-6);
  assert_close (angle_deg (in->a0, in->c0), 85, 1e-6);
  assert_close (angle_deg (in->a0, in->b0), 95, 1e-6);
  assert_log_has (plan, "Unit Cell: 70 80 90 75 85 95\n");
  nb_plan_destroy (plan);

  /* two right angles: exact either way (physics.md §7.1) */
  plan = plan_new ("-default_F 100 -cell 70 80 90 90 100 90 -detpixels 64");
  in = nb_plan_get_info (plan);
  assert_close (angle_deg (in->a0, in->c0), 100, 1e-9);
  assert_close (angle_deg (in->b0, in->c0), 90, 1e-9);
  assert_close (angle_deg (in->a0, in->b0), 90, 1e-9);
  nb_plan_destroy (plan);

  /* a* along +X, b* in the XY plane.  The reference regenerates a*, b*, c*
   * with 1/V of the requested cell, so a . a* is off by the volume drift; with
   * -physical the two bases are dual. */
  plan = plan_new ("-default_F 100 -cell 70 80 90 75 85 95 -detpixels 64");
  in = nb_plan_get_info (plan);
  assert_close (in->a_star[1], 0, 1e-15);
  assert_close (in->a_star[2], 0, 1e-15);
  assert_close (in->b_star[2], 0, 1e-15);
  g_assert_cmpfloat (fabs (dot (in->a0, in->a_star) * 1e10 - 1), >, 1e-5);
  nb_plan_destroy (plan);
  plan = plan_new ("-default_F 100 -cell 70 80 90 75 85 95 -detpixels 64 -physical");
  in = nb_plan_get_info (plan);
  assert_close (dot (in->a0, in->a_star) * 1e10, 1, 1e-12);
  assert_close (dot (in->b0, in->b_star) * 1e10, 1, 1e-12);
  assert_close (dot (in->c0, in->c_star) * 1e10, 1, 1e-12);
  assert_close (dot (in->a0, in->b_star) * 1e10, 0, 1e-12);
  assert_close (dot (in->c0, in->a_star) * 1e10, 0, 1e-12);
  nb_plan_destroy (plan);
}

/* Misset rotates the reciprocal cell about X, then Y, then Z (physics.md §7.3). */
static void
test_misset (void)
{
  nb_plan *plan0 = plan_new (XTAL "-detpixels 64");
  nb_plan *plan = plan_new (XTAL "-detpixels 64 -misset 10 20 30");
  const nb_plan_info *in0 = nb_plan_get_info (plan0), *in = nb_plan_get_info (plan);
  const double x = 10 / RTD, y = 20 / RTD, z = 30 / RTD;
  const double Rx[9] = { 1, 0, 0, 0, cos (x), -sin (x), 0, sin (x), cos (x) };
  const double Ry[9] = { cos (y), 0, sin (y), 0, 1, 0, -sin (y), 0, cos (y) };
  const double Rz[9] = { cos (z), -sin (z), 0, sin (z), cos (z), 0, 0, 0, 1 };
  double t[9], R[9], want[3];

  matmul (Ry, Rx, t);
  matmul (Rz, t, R);
  matvec (R, in0->a_star, want);
  assert_vec_close (in->a_star, want[0], want[1], want[2], 1e-14);
  matvec (R, in0->c0, want);
  assert_vec_close (in->c0, want[0], want[1], want[2], 1e-20);
  nb_plan_destroy (plan);
  nb_plan_destroy (plan0);

  /* physics.md §7.3, verified */
  plan = plan_new (XTAL "-detpixels 64 -misset_seed 45 -misset random");
  assert_log_has (plan, "random orientation misset angles: 117.019769 38.419258 3.411588 deg\n");
  nb_plan_destroy (plan);
}

/* physics.md §10.1 */
static void
test_sampling_phi (void)
{
  static const struct
  {
    const char *flags;
    int n;
    double osc, step; /* degrees */
  } cases[] = {
    { "", 1, 0, 0 },
    { "-osc 10", 2, 10, 5 },
    { "-osc 0", 2, 0, 0 },
    { "-phistep 2", 2, 2, 2 },
    { "-osc 10 -phistep 3", 4, 10, 3 },
    { "-phisteps 5", 5, 1, 0.2 },
    { "-phisteps 0", 1, 1, 1 },
    { "-phisteps 4 -phistep 2", 2, 2, 2 },
    { "-phisteps 4 -osc 8", 4, 8, 2 },
    { "-phisteps 3 -osc 9 -phistep 1", 3, 9, 1 },
    { "-phi 0 -osc 2 -phisteps 4", 4, 2, 0.5 },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *cmd = g_strdup_printf (XTAL "-detpixels 64 -phi 3 %s", cases[i].flags);
      nb_plan *plan = plan_new (cmd);
      const nb_plan_info *in = nb_plan_get_info (plan);

      g_test_message ("%s", cases[i].flags);
      g_assert_cmpint (in->phisteps, ==, cases[i].n);
      assert_close (in->osc * RTD, cases[i].osc, 1e-12);
      assert_close (in->phistep * RTD, cases[i].step, 1e-12);
      g_assert_cmpint (in->steps, ==,
                       in->sources * in->mosaic_domains * in->phisteps * in->oversample *
                           in->oversample);
      nb_plan_destroy (plan);
    }

  {
    nb_plan *plan = plan_new (XTAL "-detpixels 64 -phi 10 -osc 4 -phisteps 4");

    assert_log_has (plan, "phi0 = 10\nphi1 = 11\nphi2 = 12\nphi3 = 13\n");
    assert_log_has (plan, "  4 phi steps from 10 to 14 degrees\n");
    nb_plan_destroy (plan);
  }
}

/* physics.md §10.2, §10.3, §11.1 */
static void
test_sampling_sources (void)
{
  nb_plan *plan;
  const nb_plan_info *in;

  plan = plan_new (XTAL "-detpixels 64");
  g_assert_cmpint (nb_plan_get_info (plan)->sources, ==, 1);
  assert_log_has (plan, "  wave=1e-10 meters +/- 0% in 1 steps\n");
  nb_plan_destroy (plan);

  /* a count alone gives a 1 rad range */
  plan = plan_new (XTAL "-detpixels 64 -hdivsteps 3");
  in = nb_plan_get_info (plan);
  g_assert_cmpint (in->sources, ==, 3);
  assert_log_has (plan, "  hdivrange=1 hdivstep=0.333333  radians\n");
  assert_log_has (plan, "divergence deviation: -0.5 0\n");
  assert_log_has (plan, "divergence deviation: -0.166667 0\n");
  assert_log_has (plan, "divergence deviation: 0.166667 0\n");
  nb_plan_destroy (plan);

  /* -dispsteps alone has no effect */
  plan = plan_new (XTAL "-detpixels 64 -dispsteps 5");
  g_assert_cmpint (nb_plan_get_info (plan)->sources, ==, 1);
  assert_log_has (plan, "  wave=1e-10 meters +/- 0% in 1 steps\n");
  nb_plan_destroy (plan);

  /* -dispersion alone: two wavelengths lambda0 (1 -+ d/2) */
  plan = plan_new (XTAL "-detpixels 64 -dispersion 2");
  g_assert_cmpint (nb_plan_get_info (plan)->sources, ==, 2);
  assert_log_has (plan, "lambda0 = 9.9e-11\nlambda1 = 1.01e-10\n");
  nb_plan_destroy (plan);

  plan = plan_new (XTAL "-detpixels 64 -dispersion 2 -dispsteps 3");
  in = nb_plan_get_info (plan);
  g_assert_cmpint (in->sources, ==, 3);
  assert_log_has (plan, "  wave=1e-10 meters +/- 2% in 3 steps\n");
  nb_plan_destroy (plan);

  /* range and step: n = ceil(R/st); round culling (physics.md §11.1 counts) */
  plan = plan_new (XTAL "-detpixels 64 -hdivrange 0.28 -hdivstep 0.02 -vdivrange 0.28 "
                        "-vdivstep 0.02");
  g_assert_cmpint (nb_plan_get_info (plan)->sources, ==, 167);
  nb_plan_destroy (plan);
  plan = plan_new (XTAL "-detpixels 64 -hdivrange 0.28 -hdivstep 0.02 -vdivrange 0.28 "
                        "-vdivstep 0.02 -square_div");
  g_assert_cmpint (nb_plan_get_info (plan)->sources, ==, 196);
  nb_plan_destroy (plan);
  plan = plan_new (XTAL "-detpixels 64 -divergence 0.2 -divsteps 5");
  g_assert_cmpint (nb_plan_get_info (plan)->sources, ==, 13);
  nb_plan_destroy (plan);
  plan = plan_new (XTAL "-detpixels 64 -divergence 0.2 -divsteps 5 -dispersion 1 -dispsteps 2");
  in = nb_plan_get_info (plan);
  g_assert_cmpint (in->sources, ==, 26);
  g_assert_cmpint (in->steps, ==, 26 * in->oversample * in->oversample);
  nb_plan_destroy (plan);
}

/* A divergence grid the round cut empties is an error, not a NaN image. */
static void
test_sampling_no_sources (void)
{
  g_autofree char *msg = plan_fails (
      XTAL "-detpixels 64 -hdivrange 1 -hdivstep 1 -vdivrange 1 -vdivstep 1", NB_ERR_INVALID);
  nb_plan *plan;

  g_assert_nonnull (strstr (msg, "div"));
  plan = plan_new (XTAL "-detpixels 64 -hdivrange 1 -hdivstep 1 -vdivrange 1 -vdivstep 1 "
                        "-square_div");
  g_assert_cmpint (nb_plan_get_info (plan)->sources, ==, 1);
  nb_plan_destroy (plan);
}

/* physics.md §10.4: step = thick/(n-1), thick/2 with no count; a count alone
 * does nothing */
static void
test_sampling_thickness (void)
{
  nb_plan *plan;

  plan = plan_new (XTAL "-detpixels 64 -detector_thick 450 -thicksteps 5");
  g_assert_cmpint (nb_plan_get_info (plan)->thicksteps, ==, 5);
  assert_log_has (plan, "thick0 = 0 um\nthick1 = 112.5 um\nthick2 = 225 um\nthick3 = 337.5 um\n"
                        "thick4 = 450 um\n");
  /* no -detector_abs: mu = 1/thickness, with the reference's warning */
  assert_log_has (plan, "WARNING: setting detector attenuation depth to 2222.22 m\n");
  assert_log_has (plan, "  sensor is 0.00045 m thick in 5 layers with mu= 2222.22\n");
  /* layers are not steps */
  g_assert_cmpint (nb_plan_get_info (plan)->oversample, ==, 1);
  g_assert_cmpint (nb_plan_get_info (plan)->steps, ==, 1);
  nb_plan_destroy (plan);

  plan = plan_new (XTAL "-detpixels 64 -detector_thick 100");
  g_assert_cmpint (nb_plan_get_info (plan)->thicksteps, ==, 2);
  assert_log_has (plan, "thick0 = 0 um\nthick1 = 50 um\n");
  nb_plan_destroy (plan);

  plan = plan_new (XTAL "-detpixels 64 -thicksteps 4");
  g_assert_cmpint (nb_plan_get_info (plan)->thicksteps, ==, 1);
  assert_log_has (plan, "  sensor is 0 m thick in 1 layers with mu= ");
  nb_plan_destroy (plan);

  plan = plan_new (XTAL "-detpixels 64 -detector_thick 100 -detector_abs 500 -thicksteps 3");
  assert_log_has (plan, "  sensor is 0.0001 m thick in 3 layers with mu= 2000\n");
  assert_log_lacks (plan, "WARNING: setting detector attenuation depth");
  nb_plan_destroy (plan);
}

/* physics.md §10.5 */
static void
test_sampling_mosaic (void)
{
  static const struct
  {
    const char *flags;
    int domains;
    const char *warning;
  } cases[] = {
    { "", 1, NULL },
    { "-mosaic 0.5", 10,
      "WARNING: finite mosaicity with only one domain! upping to 10 mosaic domains\n" },
    { "-mosaic 0", 1, NULL },
    { "-mosaic_domains 5", 1,
      "WARNING: no mosaic spread specified.  setting mosaic_domains = 1\n" },
    { "-mosaic 0 -mosaic_domains 5", 1,
      "WARNING: zero mosaic spread specified.  setting mosaic_domains = 1\n" },
    { "-mosaic 0.5 -mosaic_domains 5", 5, NULL },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *cmd =
          g_strdup_printf (XTAL "-detpixels 64 -oversample 1 %s", cases[i].flags);
      nb_plan *plan = plan_new (cmd);
      const nb_plan_info *in = nb_plan_get_info (plan);
      g_autofree char *created =
          g_strdup_printf ("  created a total of %d mosaic domains\n", cases[i].domains);

      g_test_message ("%s", cases[i].flags);
      g_assert_cmpint (in->mosaic_domains, ==, cases[i].domains);
      g_assert_cmpint (in->steps, ==, cases[i].domains);
      assert_log_has (plan, created);
      if (cases[i].warning)
        assert_log_has (plan, cases[i].warning);
      else
        assert_log_lacks (plan, "WARNING");
      nb_plan_destroy (plan);
    }
}

/* Interpolation is chosen on -N alone and forced off without HKL data. */
static void
test_interpolation_choice (void)
{
  nb_plan *plan;

  plan = plan_new (XTAL "-detpixels 64 -N 2");
  assert_log_has (plan, "auto-selected tricubic interpolation of structure factors\n");
  g_assert_cmpint (nb_plan_get_info (plan)->interpolate, ==, 0); /* no -hkl */
  nb_plan_destroy (plan);

  plan = plan_new (XTAL "-detpixels 64 -N 3");
  assert_log_has (plan, "auto-selected no interpolation\n");
  nb_plan_destroy (plan);

  plan = plan_new (XTAL "-detpixels 64 -N 3 -interpolate");
  assert_log_lacks (plan, "auto-selected tricubic");
  assert_log_lacks (plan, "auto-selected no interpolation");
  nb_plan_destroy (plan);
}

/* Other settings the plan refuses, each with a message. */
static void
test_invalid (void)
{
  static const char *const lines[] = {
    XTAL "-detpixels 64 -lambda 0", XTAL "-detpixels 64 -distance 0",
    XTAL "-detpixels 64 -pixel 0",  XTAL "-detpixels 64 -cell 100 100 100 120 60 60",
    XTAL "-detpixels 64 -water -5", XTAL "-detpixels 64 -dispersion 300",
  };

  for (size_t i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autofree char *msg = NULL;

      g_test_message ("%s", lines[i]);
      msg = plan_fails (lines[i], NB_ERR_INVALID);
    }
  {
    g_autofree char *msg = plan_fails ("-cell 100 100 100 90 90 90 -detpixels 64", NB_ERR_USAGE);
    g_assert_nonnull (strstr (msg, "-default_F"));
  }
  {
    g_autofree char *msg = plan_fails ("-default_F 1 -detpixels 64", NB_ERR_USAGE);
    g_assert_nonnull (strstr (msg, "-cell"));
  }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/geometry/at-geo-001", test_at_geo_001);
  g_test_add_func ("/geometry/header-values", test_header_values);
  g_test_add_func ("/geometry/twotheta-ratio", test_twotheta_ratio);
  g_test_add_func ("/geometry/default-beam-centres", test_default_beam_centres);
  g_test_add_func ("/geometry/convention-vectors", test_convention_vectors);
  g_test_add_func ("/geometry/rotation-order", test_rotation_order);
  g_test_add_func ("/geometry/pivots", test_pivots);
  g_test_add_func ("/geometry/triclinic-cell", test_triclinic_cell);
  g_test_add_func ("/geometry/oddball-angles", test_oddball_angles);
  g_test_add_func ("/geometry/approximate-mw", test_approximate_mw);
  g_test_add_func ("/geometry/misset", test_misset);
  g_test_add_func ("/geometry/sampling/phi", test_sampling_phi);
  g_test_add_func ("/geometry/sampling/sources", test_sampling_sources);
  g_test_add_func ("/geometry/sampling/no-sources", test_sampling_no_sources);
  g_test_add_func ("/geometry/sampling/thickness", test_sampling_thickness);
  g_test_add_func ("/geometry/sampling/mosaic", test_sampling_mosaic);
  g_test_add_func ("/geometry/interpolation-choice", test_interpolation_choice);
  g_test_add_func ("/geometry/invalid", test_invalid);

  return g_test_run ();
}
