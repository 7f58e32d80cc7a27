/* test-params.c: nb_params_init() defaults and nb_params_parse_argv(): units,
 * spellings, precedence, the errors the reference would ignore (and, with
 * -lenient, the words skipped as it skips them), and the two argument-loop
 * quirks with and without -physical.  cli.md. */
#include <glib.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "nanobragg.h"
#include "params/nb-argv.h"
#include "params/nb-param-private.h"
#include "nb-param.h"

/* degrees per radian, written as the engine writes it (physics.md §0) */
#define RTD (180.0 * M_1_PI)

/* parse: nb_params_init() then nb_params_parse_argv() of "nanobragg @cmdline"
 * (split as a shell would).  The caller clears @p. */
static nb_status
parse (nb_params *p, const char *cmdline, nb_error *err)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *full = g_strconcat ("nanobragg ", cmdline, NULL);
  g_auto (GStrv) argv = NULL;
  int argc = 0;

  g_assert_true (g_shell_parse_argv (full, &argc, &argv, &error));
  g_assert_no_error (error);
  nb_params_init (p);
  return nb_params_parse_argv (p, argc, (const char *const *) argv, err);
}

static void
parse_ok (nb_params *p, const char *cmdline)
{
  nb_error err = { 0 };
  nb_status st = parse (p, cmdline, &err);

  if (st != NB_OK)
    g_error ("'%s': %s", cmdline, err.message);
  g_assert_cmpstr (err.message, ==, "");
}

/* parse_fails: @cmdline must be rejected with @code and a message containing
 * @names (the flag or token at fault). */
static void
parse_fails (const char *cmdline, nb_status code, const char *names)
{
  nb_params p;
  nb_error err = { 0 };
  nb_status st = parse (&p, cmdline, &err);

  if (st != code)
    g_error ("'%s': expected status %s, got %s (%s)", cmdline, nb_status_name (code),
             nb_status_name (st), err.message);
  g_assert_cmpint (err.code, ==, code);
  if (strstr (err.message, names) == NULL)
    g_error ("'%s': message '%s' does not name '%s'", cmdline, err.message, names);
  nb_params_clear (&p);
}

static void
assert_vec (const double v[3], double x, double y, double z)
{
  g_assert_cmpfloat (v[0], ==, x);
  g_assert_cmpfloat (v[1], ==, y);
  g_assert_cmpfloat (v[2], ==, z);
}

/* cli.md §4 */
static void
test_defaults (void)
{
  nb_params p;

  nb_params_init (&p);
  g_assert_cmpfloat (p.cell[0], ==, 0.0);
  g_assert_null (p.mat_file);
  g_assert_null (p.hkl_file);
  g_assert_null (p.dump_file);
  g_assert_null (p.source_file);
  g_assert_null (p.img_file);
  g_assert_null (p.mask_file);
  g_assert_null (p.frame_file);
  g_assert_cmpint (p.frame_index, ==, 0);
  g_assert_null (p.pngfile);
  g_assert_cmpfloat (p.Na, ==, 1.0);
  g_assert_cmpfloat (p.Nb, ==, 1.0);
  g_assert_cmpfloat (p.Nc, ==, 1.0);
  g_assert_cmpfloat (p.sample_x, ==, 0.0);
  g_assert_cmpint (p.shape, ==, NB_SHAPE_SQUARE);
  g_assert_cmpfloat (p.fudge, ==, 1.0);
  g_assert_cmpfloat (p.mosaic_spread, ==, -1.0);
  g_assert_cmpint (p.mosaic_domains, ==, -1);
  g_assert_cmpint (p.mosaic_seed, ==, -12345678);
  g_assert_cmpint (p.interpolate, ==, 2);
  g_assert_cmpfloat (p.default_F, ==, 0.0);
  assert_vec (p.misset, 0, 0, 0);
  g_assert_cmpint (p.misset_random, ==, 0);

  g_assert_cmpfloat (p.lambda0, ==, 1e-10);
  g_assert_cmpfloat (p.dispersion, ==, 0.0);
  g_assert_cmpint (p.dispsteps, ==, -1);
  g_assert_cmpfloat (p.hdivrange, ==, -1.0);
  g_assert_cmpfloat (p.vdivrange, ==, -1.0);
  g_assert_cmpfloat (p.hdivstep, ==, -1.0);
  g_assert_cmpint (p.hdivsteps, ==, -1);
  g_assert_cmpint (p.round_div, ==, 1);
  g_assert_cmpfloat (p.fluence, ==, 125932015286227086360700780544.0);
  g_assert_cmpfloat (p.flux, ==, 0.0);
  g_assert_cmpfloat (p.exposure, ==, 1.0);
  g_assert_cmpfloat (p.beamsize, ==, 1e-4);
  g_assert_cmpfloat (p.polarization, ==, 0.0);
  g_assert_cmpint (p.nopolar, ==, 0);
  g_assert_cmpfloat (p.water_size, ==, 0.0);

  g_assert_cmpfloat (p.pixel_size, ==, 0.1e-3);
  g_assert_cmpint (p.fpixels, ==, 0);
  g_assert_cmpint (p.spixels, ==, 0);
  g_assert_cmpfloat (p.detsize_f, ==, 102.4e-3);
  g_assert_cmpfloat (p.detsize_s, ==, 102.4e-3);
  g_assert_cmpfloat (p.distance, ==, 100e-3);
  g_assert_true (isnan (p.close_distance));
  g_assert_true (isnan (p.Xbeam) && isnan (p.Ybeam));
  g_assert_true (isnan (p.Xclose) && isnan (p.Yclose));
  g_assert_true (isnan (p.ORGX) && isnan (p.ORGY));
  g_assert_cmpint (p.convention, ==, NB_CONVENTION_MOSFLM);
  g_assert_cmpint (p.pivot, ==, NB_PIVOT_BEAM);
  g_assert_cmpfloat (p.rotx, ==, 0.0);
  g_assert_cmpfloat (p.twotheta, ==, 0.0);
  g_assert_cmpint (p.curved_det, ==, 0);
  g_assert_cmpint (p.point_pixel, ==, 0);
  g_assert_cmpfloat (p.detector_mu, ==, -1.0);
  g_assert_cmpfloat (p.detector_thick, ==, 0.0);
  g_assert_cmpint (p.detector_thicksteps, ==, -1);
  for (int k = 0; k < 4; k++)
    g_assert_cmpint (p.roi[k], ==, -1);

  g_assert_cmpfloat (p.phi0, ==, 0.0);
  g_assert_cmpfloat (p.osc, ==, -1.0);
  g_assert_cmpfloat (p.phistep, ==, -1.0);
  g_assert_cmpint (p.phisteps, ==, -1);
  g_assert_cmpint (p.oversample, <=, 0);
  g_assert_cmpfloat (p.dmin, ==, 0.0);

  g_assert_cmpstr (p.floatfile, ==, "floatimage.bin");
  g_assert_cmpstr (p.intfile, ==, "intimage.img");
  g_assert_cmpstr (p.pgmfile, ==, "image.pgm");
  g_assert_cmpstr (p.noisefile, ==, "noiseimage.img");
  g_assert_cmpint (p.write_pgm, ==, 1);
  g_assert_cmpint (p.calculate_noise, ==, 1);
  g_assert_cmpfloat (p.intfile_scale, <=, 0.0);
  g_assert_cmpfloat (p.pgm_scale, <=, 0.0);
  g_assert_cmpfloat (p.adc, ==, 40.0);
  g_assert_cmpint (p.seed, <=, 0);
  g_assert_cmpint (p.progress, ==, 1);
  g_assert_cmpint (p.printout, ==, 0);
  g_assert_cmpint (p.precision, ==, NB_PRECISION_DOUBLE);
  g_assert_cmpint (p.physical, ==, 0);
  nb_params_clear (&p);
  g_assert_null (p.floatfile);

  /* an empty command line changes nothing */
  parse_ok (&p, "");
  g_assert_cmpfloat (p.distance, ==, 100e-3);
  g_assert_cmpint (p.convention, ==, NB_CONVENTION_MOSFLM);
  nb_params_clear (&p);
}

/* mm -> m (physics.md §1) */
static void
test_units_lengths (void)
{
  nb_params p;

  parse_ok (&p, "-distance 150 -close_distance 90 -pixel 0.172 -detsize 50 -Xbeam 51.2 "
                "-Ybeam 40.3 -Xclose 12 -Yclose 13 -beamsize 0.05 -xtalsize 0.01 -ORGX 20.5 "
                "-ORGY 30");
  g_assert_cmpfloat (p.distance, ==, 150 / 1000.0);
  g_assert_cmpfloat (p.close_distance, ==, 90 / 1000.0);
  g_assert_cmpfloat (p.pixel_size, ==, 0.172 / 1000.0);
  g_assert_cmpfloat (p.detsize_f, ==, 50 / 1000.0);
  g_assert_cmpfloat (p.detsize_s, ==, 50 / 1000.0);
  g_assert_cmpfloat (p.Xbeam, ==, 51.2 / 1000.0);
  g_assert_cmpfloat (p.Ybeam, ==, 40.3 / 1000.0);
  g_assert_cmpfloat (p.Xclose, ==, 12 / 1000.0);
  g_assert_cmpfloat (p.Yclose, ==, 13 / 1000.0);
  g_assert_cmpfloat (p.beamsize, ==, 0.05 / 1000.0);
  g_assert_cmpfloat (p.sample_x, ==, 0.01 / 1000.0);
  g_assert_cmpfloat (p.sample_y, ==, 0.01 / 1000.0);
  g_assert_cmpfloat (p.sample_z, ==, 0.01 / 1000.0);
  /* ORGX/ORGY are pixels */
  g_assert_cmpfloat (p.ORGX, ==, 20.5);
  g_assert_cmpfloat (p.ORGY, ==, 30.0);
  nb_params_clear (&p);

  parse_ok (&p, "-detsize_f 20 -detsize_s 30 -sample_x 0.001 -sample_y 0.002 -sample_z 0.003 "
                "-lambda 1.5 -dmin 2");
  g_assert_cmpfloat (p.detsize_f, ==, 20 / 1000.0);
  g_assert_cmpfloat (p.detsize_s, ==, 30 / 1000.0);
  g_assert_cmpfloat (p.sample_x, ==, 0.001 / 1000.0);
  g_assert_cmpfloat (p.sample_y, ==, 0.002 / 1000.0);
  g_assert_cmpfloat (p.sample_z, ==, 0.003 / 1000.0);
  /* Angstrom -> m */
  g_assert_cmpfloat (p.lambda0, ==, 1.5 / 1e10);
  g_assert_cmpfloat (p.dmin, ==, 2 * 1e-10);
  nb_params_clear (&p);
}

/* degrees -> radians, always value / RTD */
static void
test_units_angles (void)
{
  nb_params p;

  parse_ok (&p, "-phi 10 -osc 2.5 -phistep 0.5 -misset 15 25 35 -detector_rotx 5 "
                "-detector_roty 3 -detector_rotz 2 -twotheta 20 -mosaic 0.3 "
                "-cell 70 80 90 75 85 95");
  g_assert_cmpfloat (p.phi0, ==, 10 / RTD);
  g_assert_cmpfloat (p.osc, ==, 2.5 / RTD);
  g_assert_cmpfloat (p.phistep, ==, 0.5 / RTD);
  assert_vec (p.misset, 15 / RTD, 25 / RTD, 35 / RTD);
  g_assert_cmpfloat (p.rotx, ==, 5 / RTD);
  g_assert_cmpfloat (p.roty, ==, 3 / RTD);
  g_assert_cmpfloat (p.rotz, ==, 2 / RTD);
  g_assert_cmpfloat (p.twotheta, ==, 20 / RTD);
  g_assert_cmpfloat (p.mosaic_spread, ==, 0.3 / RTD);
  /* cell lengths stay in Angstrom */
  g_assert_cmpfloat (p.cell[0], ==, 70.0);
  g_assert_cmpfloat (p.cell[1], ==, 80.0);
  g_assert_cmpfloat (p.cell[2], ==, 90.0);
  g_assert_cmpfloat (p.cell[3], ==, 75 / RTD);
  g_assert_cmpfloat (p.cell[4], ==, 85 / RTD);
  g_assert_cmpfloat (p.cell[5], ==, 95 / RTD);
  nb_params_clear (&p);
}

/* mrad -> rad, percent -> fraction */
static void
test_units_divergence (void)
{
  nb_params p;

  parse_ok (&p, "-divergence 0.5");
  g_assert_cmpfloat (p.hdivrange, ==, 0.5 / 1000.0);
  g_assert_cmpfloat (p.vdivrange, ==, 0.5 / 1000.0);
  nb_params_clear (&p);

  parse_ok (&p, "-hdivrange 0.28 -vdivrange 0.4 -hdivstep 0.02 -vdivstep 0.05 -hdivsteps 3 "
                "-vdivsteps 4 -dispersion 2 -dispsteps 7 -square_div");
  g_assert_cmpfloat (p.hdivrange, ==, 0.28 / 1000.0);
  g_assert_cmpfloat (p.vdivrange, ==, 0.4 / 1000.0);
  g_assert_cmpfloat (p.hdivstep, ==, 0.02 / 1000.0);
  g_assert_cmpfloat (p.vdivstep, ==, 0.05 / 1000.0);
  g_assert_cmpint (p.hdivsteps, ==, 3);
  g_assert_cmpint (p.vdivsteps, ==, 4);
  g_assert_cmpfloat (p.dispersion, ==, 2 / 100.0);
  g_assert_cmpint (p.dispsteps, ==, 7);
  g_assert_cmpint (p.round_div, ==, 0);
  nb_params_clear (&p);

  parse_ok (&p, "-divsteps 5 -square_div -round_div");
  g_assert_cmpint (p.hdivsteps, ==, 5);
  g_assert_cmpint (p.vdivsteps, ==, 5);
  g_assert_cmpint (p.round_div, ==, 1);
  nb_params_clear (&p);
}

/* micrometres: sensor thickness and attenuation depth, water */
static void
test_units_micrometres (void)
{
  nb_params p;

  parse_ok (&p, "-detector_thick 450 -detector_abs 500 -thicksteps 5 -water 50");
  g_assert_cmpfloat (p.detector_thick, ==, 450 * 1e-6);
  g_assert_cmpfloat (p.detector_mu, ==, 1.0 / (500 * 1e-6));
  g_assert_cmpint (p.detector_thicksteps, ==, 5);
  g_assert_cmpfloat (p.water_size, ==, 50 / 1e6);
  nb_params_clear (&p);

  /* "inf" and 0 switch absorption off and zero the thickness given so far */
  parse_ok (&p, "-detector_thick 450 -detector_abs inf");
  g_assert_cmpfloat (p.detector_mu, ==, 0.0);
  g_assert_cmpfloat (p.detector_thick, ==, 0.0);
  nb_params_clear (&p);
  parse_ok (&p, "-detector_thick 450 -detector_abs 0");
  g_assert_cmpfloat (p.detector_mu, ==, 0.0);
  g_assert_cmpfloat (p.detector_thick, ==, 0.0);
  nb_params_clear (&p);
  parse_ok (&p, "-detector_abs 0 -detector_thick 100");
  g_assert_cmpfloat (p.detector_mu, ==, 0.0);
  g_assert_cmpfloat (p.detector_thick, ==, 100 * 1e-6);
  nb_params_clear (&p);
}

/* -energy E (eV): lambda = 12398.42/E Angstrom */
static void
test_units_energy (void)
{
  nb_params p;

  parse_ok (&p, "-energy 12398.42");
  g_assert_cmpfloat_with_epsilon (p.lambda0, 1e-10, 1e-24);
  nb_params_clear (&p);
  parse_ok (&p, "-energy 6199.21");
  g_assert_cmpfloat_with_epsilon (p.lambda0, 2e-10, 1e-24);
  nb_params_clear (&p);
  parse_fails ("-energy 0", NB_ERR_USAGE, "-energy");
}

/* Longer spellings the reference's substring matching accepts (cli.md §1.3). */
static void
test_aliases (void)
{
  nb_params p;

  parse_ok (&p, "-mosaic_domains 7 -mosaic_spread 0.3 -wavelength 1.3 -oscillation 2 "
                "-pixel_size 0.2 -hklfile in.hkl -matrix in.mat -detector_absorb 300 "
                "-xtal_size 0.05 -detpixels_x 100 -detpixels_y 50");
  g_assert_cmpint (p.mosaic_domains, ==, 7);
  g_assert_cmpfloat (p.mosaic_spread, ==, 0.3 / RTD);
  g_assert_cmpfloat (p.lambda0, ==, 1.3 / 1e10);
  g_assert_cmpfloat (p.osc, ==, 2 / RTD);
  g_assert_cmpfloat (p.pixel_size, ==, 0.2 / 1000.0);
  g_assert_cmpstr (p.hkl_file, ==, "in.hkl");
  g_assert_cmpstr (p.mat_file, ==, "in.mat");
  g_assert_cmpfloat (p.detector_mu, ==, 1.0 / (300 * 1e-6));
  g_assert_cmpfloat (p.sample_x, ==, 0.05 / 1000);
  g_assert_cmpfloat (p.sample_y, ==, 0.05 / 1000);
  g_assert_cmpfloat (p.sample_z, ==, 0.05 / 1000);
  g_assert_cmpint (p.fpixels, ==, 100);
  g_assert_cmpint (p.spixels, ==, 50);
  nb_params_clear (&p);

  parse_ok (&p, "-mosaicity 0.4 -mosaic_dom 3 -wave 0.9 -osc 1 -pixel 0.05 -hkl a.hkl "
                "-mat b.mat -detpixels_f 30 -detpixels_s 40 -samplesize 0.02 "
                "-sample_height 0.03 -xtal_width 0.04 -xtal_thick 0.01 -curved_detector "
                "-dumpfile F.bin -floatimage f.bin -intimage i.img -pgmimage p.pgm "
                "-noiseimage n.img");
  g_assert_cmpfloat (p.mosaic_spread, ==, 0.4 / RTD);
  g_assert_cmpint (p.mosaic_domains, ==, 3);
  g_assert_cmpfloat (p.lambda0, ==, 0.9 / 1e10);
  g_assert_cmpfloat (p.osc, ==, 1 / RTD);
  g_assert_cmpfloat (p.pixel_size, ==, 0.05 / 1000.0);
  g_assert_cmpstr (p.hkl_file, ==, "a.hkl");
  g_assert_cmpstr (p.mat_file, ==, "b.mat");
  g_assert_cmpint (p.fpixels, ==, 30);
  g_assert_cmpint (p.spixels, ==, 40);
  g_assert_cmpfloat (p.sample_x, ==, 0.01 / 1000);
  g_assert_cmpfloat (p.sample_y, ==, 0.04 / 1000);
  g_assert_cmpfloat (p.sample_z, ==, 0.03 / 1000);
  g_assert_cmpint (p.curved_det, ==, 1);
  g_assert_cmpstr (p.dump_file, ==, "F.bin");
  g_assert_cmpstr (p.floatfile, ==, "f.bin");
  g_assert_cmpstr (p.intfile, ==, "i.img");
  g_assert_cmpstr (p.pgmfile, ==, "p.pgm");
  g_assert_cmpstr (p.noisefile, ==, "n.img");
  nb_params_clear (&p);

  /* -pix0_vector_mm is -pix0_vector: metres, no conversion */
  parse_ok (&p, "-pix0_vector_mm 0.1 0.2 0.3");
  assert_vec (p.pix0, 0.1, 0.2, 0.3);
  g_assert_cmpint (p.convention, ==, NB_CONVENTION_CUSTOM);
  nb_params_clear (&p);

  /* substrings only match from the start: these are not nanoBragg flags */
  parse_fails ("-detector_twotheta 10", NB_ERR_USAGE, "-detector_twotheta");
  parse_fails ("-source_distance 10", NB_ERR_USAGE, "-source_distance");
}

/* Later tokens overwrite earlier ones (cli.md §1.7). */
static void
test_last_wins (void)
{
  nb_params p;

  parse_ok (&p, "-distance 100 -distance 200");
  g_assert_cmpfloat (p.distance, ==, 0.2);
  nb_params_clear (&p);

  parse_ok (&p, "-lambda 1 -energy 6199.21");
  g_assert_cmpfloat_with_epsilon (p.lambda0, 2e-10, 1e-24);
  nb_params_clear (&p);
  parse_ok (&p, "-energy 6199.21 -lambda 1");
  g_assert_cmpfloat (p.lambda0, ==, 1e-10);
  nb_params_clear (&p);

  parse_ok (&p, "-N 5 -Na 2");
  g_assert_cmpfloat (p.Na, ==, 2);
  g_assert_cmpfloat (p.Nb, ==, 5);
  g_assert_cmpfloat (p.Nc, ==, 5);
  nb_params_clear (&p);
  parse_ok (&p, "-Na 2 -Nb 3 -Nc 4 -N 6");
  g_assert_cmpfloat (p.Na, ==, 6);
  g_assert_cmpfloat (p.Nb, ==, 6);
  g_assert_cmpfloat (p.Nc, ==, 6);
  nb_params_clear (&p);

  parse_ok (&p, "-nonoise -noisefile x.img");
  g_assert_cmpint (p.calculate_noise, ==, 1);
  nb_params_clear (&p);
  parse_ok (&p, "-noisefile x.img -nonoise");
  g_assert_cmpint (p.calculate_noise, ==, 0);
  g_assert_cmpstr (p.noisefile, ==, "x.img");
  nb_params_clear (&p);

  parse_ok (&p, "-nopgm -pgmfile x.pgm");
  g_assert_cmpint (p.write_pgm, ==, 1);
  nb_params_clear (&p);
  parse_ok (&p, "-pgmfile x.pgm -nopgm");
  g_assert_cmpint (p.write_pgm, ==, 0);
  nb_params_clear (&p);
  parse_ok (&p, "-nopgm -pgmscale 3");
  g_assert_cmpint (p.write_pgm, ==, 1);
  g_assert_cmpfloat (p.pgm_scale, ==, 3.0);
  nb_params_clear (&p);

  parse_ok (&p, "-polar 0.9 -nopolar");
  g_assert_cmpint (p.nopolar, ==, 1);
  g_assert_cmpfloat (p.polarization, ==, 0.9);
  nb_params_clear (&p);
  parse_ok (&p, "-nopolar -polar 0.5");
  g_assert_cmpint (p.nopolar, ==, 0);
  g_assert_cmpfloat (p.polarization, ==, 0.5);
  nb_params_clear (&p);

  parse_ok (&p, "-interpolate -nointerpolate");
  g_assert_cmpint (p.interpolate, ==, 0);
  nb_params_clear (&p);
  parse_ok (&p, "-nointerpolate -interpolate");
  g_assert_cmpint (p.interpolate, ==, 1);
  nb_params_clear (&p);

  parse_ok (&p, "-round_xtal -gauss_xtal");
  g_assert_cmpint (p.shape, ==, NB_SHAPE_GAUSS);
  nb_params_clear (&p);
  parse_ok (&p, "-tophat_spots -square_xtal");
  g_assert_cmpint (p.shape, ==, NB_SHAPE_SQUARE);
  nb_params_clear (&p);
  parse_ok (&p, "-gauss_xtal -binary_spots");
  g_assert_cmpint (p.shape, ==, NB_SHAPE_TOPHAT);
  nb_params_clear (&p);
  parse_ok (&p, "-gauss_xtal -round_xtal");
  g_assert_cmpint (p.shape, ==, NB_SHAPE_ROUND);
  nb_params_clear (&p);

  parse_ok (&p, "-xds -mosflm -adxv");
  g_assert_cmpint (p.convention, ==, NB_CONVENTION_ADXV);
  nb_params_clear (&p);

  parse_ok (&p, "-misset 1 2 3 -misset random");
  g_assert_cmpint (p.misset_random, ==, 1);
  nb_params_clear (&p);
  parse_ok (&p, "-misset random -misset 1 2 3");
  g_assert_cmpint (p.misset_random, ==, 0);
  assert_vec (p.misset, 1 / RTD, 2 / RTD, 3 / RTD);
  nb_params_clear (&p);

  parse_ok (&p, "-hkl a.hkl -hkl b.hkl -floatfile a.bin -floatfile b.bin");
  g_assert_cmpstr (p.hkl_file, ==, "b.hkl");
  g_assert_cmpstr (p.floatfile, ==, "b.bin");
  nb_params_clear (&p);

  parse_ok (&p, "-noprogress");
  g_assert_cmpint (p.progress, ==, 0);
  nb_params_clear (&p);
  parse_ok (&p, "-noprogress -progress");
  g_assert_cmpint (p.progress, ==, 1);
  nb_params_clear (&p);
}

/* -detpixels* beats -detsize* in any order (physics.md §4.1). */
static void
test_detpixels_beat_detsize (void)
{
  static const char *const lines[] = {
    "-detpixels 64 -detsize 20",
    "-detsize 20 -detpixels 64",
  };

  for (size_t i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autofree char *cmd =
          g_strconcat ("-default_F 100 -cell 100 100 100 90 90 90 ", lines[i], NULL);
      nb_params p;
      nb_plan *plan = NULL;
      nb_error err = { 0 };
      const nb_plan_info *in;

      parse_ok (&p, cmd);
      g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
      in = nb_plan_get_info (plan);
      g_assert_cmpint (in->fpixels, ==, 64);
      g_assert_cmpint (in->spixels, ==, 64);
      g_assert_cmpfloat_with_epsilon (in->detsize_f, 0.0064, 1e-15);
      g_assert_cmpfloat_with_epsilon (in->detsize_s, 0.0064, 1e-15);
      nb_plan_destroy (plan);
      nb_params_clear (&p);
    }

  /* per axis, and -detsize alone: ceil(size/pixel - 0.5) */
  {
    nb_params p;
    nb_plan *plan = NULL;
    nb_error err = { 0 };
    const nb_plan_info *in;

    parse_ok (&p, "-default_F 100 -cell 100 100 100 90 90 90 -detpixels_x 48 -detsize 20 "
                  "-detsize_s 3.04");
    g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
    in = nb_plan_get_info (plan);
    g_assert_cmpint (in->fpixels, ==, 48);
    g_assert_cmpint (in->spixels, ==, 30);
    g_assert_cmpfloat_with_epsilon (in->detsize_f, 0.0048, 1e-15);
    nb_plan_destroy (plan);
    nb_params_clear (&p);
  }
}

/* Every convention flag sets the convention and requests its pivot. */
static void
test_conventions (void)
{
  static const struct
  {
    const char *flag;
    nb_convention convention;
    nb_pivot pivot;
  } cases[] = {
    { "-mosflm", NB_CONVENTION_MOSFLM, NB_PIVOT_BEAM },
    { "-denzo", NB_CONVENTION_DENZO, NB_PIVOT_BEAM },
    { "-adxv", NB_CONVENTION_ADXV, NB_PIVOT_BEAM },
    { "-xds", NB_CONVENTION_XDS, NB_PIVOT_SAMPLE },
    /* -dials requests BEAM while parsing; its convention block sets SAMPLE */
    { "-dials", NB_CONVENTION_DIALS, NB_PIVOT_BEAM },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      /* start from the opposite pivot to see the flag set it */
      const char *pre = cases[i].pivot == NB_PIVOT_BEAM ? "-pivot sample" : "-pivot beam";
      g_autofree char *cmd = g_strdup_printf ("-fdet_vector 0 0 1 %s %s", pre, cases[i].flag);
      nb_params p;

      parse_ok (&p, cmd);
      g_assert_cmpint (p.convention, ==, cases[i].convention);
      g_assert_cmpint (p.pivot, ==, cases[i].pivot);
      nb_params_clear (&p);
    }

  /* the pivot flags (CUSTOM only decides later, Q-1) */
  {
    static const struct
    {
      const char *cmd;
      nb_pivot pivot;
    } pv[] = {
      { "-pivot sample", NB_PIVOT_SAMPLE },
      { "-pivot sample -pivot beam", NB_PIVOT_BEAM },
      { "-distance 90", NB_PIVOT_BEAM },
      { "-pivot sample -Xbeam 3", NB_PIVOT_BEAM },
      { "-pivot sample -Ybeam 3", NB_PIVOT_BEAM },
      { "-close_distance 90", NB_PIVOT_SAMPLE },
      { "-Xclose 3", NB_PIVOT_SAMPLE },
      { "-Yclose 3", NB_PIVOT_SAMPLE },
      { "-ORGX 3", NB_PIVOT_SAMPLE },
      { "-ORGY 3", NB_PIVOT_SAMPLE },
      { "-twotheta 5", NB_PIVOT_SAMPLE },
      { "-twotheta 5 -distance 90", NB_PIVOT_BEAM },
    };

    for (size_t i = 0; i < G_N_ELEMENTS (pv); i++)
      {
        nb_params p;

        parse_ok (&p, pv[i].cmd);
        g_assert_cmpint (p.pivot, ==, pv[i].pivot);
        nb_params_clear (&p);
      }
    parse_fails ("-pivot middle", NB_ERR_USAGE, "-pivot");
  }
}

/* Vector flags store their three numbers and switch to CUSTOM; a later
 * convention flag switches back. */
static void
test_vectors_custom (void)
{
  static const char *const flags[] = {
    "-fdet_vector",  "-sdet_vector",  "-odet_vector",   "-beam_vector",
    "-polar_vector", "-spindle_axis", "-twotheta_axis", "-pix0_vector",
  };

  for (size_t i = 0; i < G_N_ELEMENTS (flags); i++)
    {
      g_autofree char *cmd = g_strdup_printf ("-xds %s 0.6 -0.8 0", flags[i]);
      g_autofree char *back = g_strdup_printf ("%s 0.6 -0.8 0 -mosflm", flags[i]);
      nb_params p;
      const double *v;

      parse_ok (&p, cmd);
      g_assert_cmpint (p.convention, ==, NB_CONVENTION_CUSTOM);
      v = i == 0   ? p.fdet
          : i == 1 ? p.sdet
          : i == 2 ? p.odet
          : i == 3 ? p.beam
          : i == 4 ? p.polar_vector
          : i == 5 ? p.spindle
          : i == 6 ? p.twotheta_axis
                   : p.pix0;
      assert_vec (v, 0.6, -0.8, 0.0);
      nb_params_clear (&p);

      parse_ok (&p, back);
      g_assert_cmpint (p.convention, ==, NB_CONVENTION_MOSFLM);
      nb_params_clear (&p);

      {
        g_autofree char *shortcmd = g_strdup_printf ("%s 1 0", flags[i]);
        parse_fails (shortcmd, NB_ERR_USAGE, flags[i]);
      }
    }

  /* CUSTOM keeps the reference's built-in vectors for the ones not given */
  {
    nb_params p;

    parse_ok (&p, "-spindle_axis 0 1 0");
    assert_vec (p.fdet, 0, 0, 1);
    assert_vec (p.sdet, 0, -1, 0);
    assert_vec (p.odet, 1, 0, 0);
    assert_vec (p.beam, 1, 0, 0);
    assert_vec (p.polar_vector, 0, 0, 1);
    assert_vec (p.twotheta_axis, 0, 1, 0);
    assert_vec (p.spindle, 0, 1, 0);
    nb_params_clear (&p);
  }
}

static void
test_errors_unknown (void)
{
  parse_fails ("-frobnicate", NB_ERR_USAGE, "-frobnicate");
  parse_fails ("-cell 100 100 100 90 90 90 -frobnicate 3", NB_ERR_USAGE, "-frobnicate");
  /* not nanoBragg flags either (cli.md §2.7) */
  parse_fails ("-dispstep 0.1", NB_ERR_USAGE, "-dispstep");
  parse_fails ("-hdiv 0.1", NB_ERR_USAGE, "-hdiv");
  parse_fails ("-polarization 0.9", NB_ERR_USAGE, "-polarization");
  parse_fails ("--distance 100", NB_ERR_USAGE, "--distance");
  /* a backend this build lacks */
  parse_fails ("-backend nosuch", NB_ERR_UNSUPPORTED, "nosuch");
  parse_fails ("-precision quad", NB_ERR_USAGE, "quad");
}

static void
test_errors_missing_value (void)
{
  parse_fails ("-distance", NB_ERR_USAGE, "-distance");
  parse_fails ("-distance -lambda 1", NB_ERR_USAGE, "-distance");
  parse_fails ("-N", NB_ERR_USAGE, "-N");
  parse_fails ("-hkl", NB_ERR_USAGE, "-hkl");
  parse_fails ("-cell", NB_ERR_USAGE, "-cell");
  parse_fails ("-misset 1 2", NB_ERR_USAGE, "-misset");
  parse_fails ("-roi 0 10 0", NB_ERR_USAGE, "-roi");
  parse_fails ("-printout_pixel 3", NB_ERR_USAGE, "-printout_pixel");
  /* the reference crashes on these as the last argument (cli.md §1.4) */
  parse_fails ("-detector_thick", NB_ERR_USAGE, "-detector_thick");
  parse_fails ("-thicksteps", NB_ERR_USAGE, "-thicksteps");
  parse_fails ("-detector_abs", NB_ERR_USAGE, "-detector_abs");
}

static void
test_errors_not_a_number (void)
{
  parse_fails ("-distance abc", NB_ERR_USAGE, "-distance");
  parse_fails ("-distance abc", NB_ERR_USAGE, "abc");
  parse_fails ("-lambda 1.0x", NB_ERR_USAGE, "-lambda");
  parse_fails ("-lambda inf", NB_ERR_USAGE, "-lambda");
  parse_fails ("-distance nan", NB_ERR_USAGE, "-distance");
  parse_fails ("-fdet_vector 0 zero 1", NB_ERR_USAGE, "zero");
  parse_fails ("-cell 100 100 a 90 90 90", NB_ERR_USAGE, "-cell");
  parse_fails ("-misset 1 two 3", NB_ERR_USAGE, "-misset");
  parse_fails ("-seed x", NB_ERR_USAGE, "-seed");
}

/* counts are whole numbers (the reference's atoi truncates: -N 2.7 -> 2) */
static void
test_errors_not_whole (void)
{
  parse_fails ("-N 2.7", NB_ERR_USAGE, "-N");
  parse_fails ("-N 2.7", NB_ERR_USAGE, "2.7");
  parse_fails ("-Na 1.5", NB_ERR_USAGE, "-Na");
  parse_fails ("-phisteps 2.5", NB_ERR_USAGE, "-phisteps");
  parse_fails ("-mosaic_domains 0.5", NB_ERR_USAGE, "-mosaic_domains");
  parse_fails ("-detpixels 64.5", NB_ERR_USAGE, "-detpixels");
  parse_fails ("-oversample 1.1", NB_ERR_USAGE, "-oversample");
  parse_fails ("-roi 0 10.5 0 10", NB_ERR_USAGE, "-roi");
  parse_fails ("-seed 1e30", NB_ERR_USAGE, "-seed");

  /* a whole number written as a float is fine */
  {
    nb_params p;

    parse_ok (&p, "-N 3.0 -detpixels 1e2");
    g_assert_cmpfloat (p.Na, ==, 3);
    g_assert_cmpint (p.fpixels, ==, 100);
    nb_params_clear (&p);
  }
}

static void
test_errors_stray (void)
{
  parse_fails ("stray", NB_ERR_USAGE, "stray");
  parse_fails ("-N 5 7", NB_ERR_USAGE, "7");
  parse_fails ("-lambda 1 2", NB_ERR_USAGE, "2");
  parse_fails ("-nopgm file.pgm", NB_ERR_USAGE, "file.pgm");
  parse_fails ("-distance 100 -5", NB_ERR_USAGE, "-5");
  parse_fails ("-fdet_vector 0 0 1 1", NB_ERR_USAGE, "1");
}

/* The message of a refused command line names the nearest known flags and
 * says what nanoBragg does with the word: ignores it (then -lenient helps) or
 * reads it as one of its flags (then it does not). */
static void
test_errors_suggest (void)
{
  parse_fails ("-lamda 1.2", NB_ERR_USAGE, "unknown flag '-lamda' (did you mean -lambda?)");
  parse_fails ("-lamda 1.2", NB_ERR_USAGE, "add -lenient (or set NANOBRAGG_LENIENT=1)");
  parse_fails ("-hdiv 0 -vdiv 0", NB_ERR_USAGE,
               "did you mean -hdivrange, -hdivstep or -hdivsteps?");
  parse_fails ("-vdiv 0", NB_ERR_USAGE, "did you mean -vdivrange, -vdivstep or -vdivsteps?");
  parse_fails ("-polarization 0.9", NB_ERR_USAGE, "did you mean -polar?");
  parse_fails ("-xbeam 3", NB_ERR_USAGE, "did you mean -Xbeam or -Ybeam?");
  parse_fails ("-oversample_thick 0", NB_ERR_USAGE,
               "unexpected argument '0' (-oversample_thick takes no value); nanoBragg ignores it");
  parse_fails ("-N 5 7", NB_ERR_USAGE, "'7' (not after a flag that takes it)");
  parse_fails ("-distance_mm 100", NB_ERR_USAGE, "nanoBragg reads it as -distance");
  parse_fails ("--distance 100", NB_ERR_USAGE, "nanoBragg reads it as -distance");
  parse_fails ("-Nabc 3", NB_ERR_USAGE, "nanoBragg reads it as -Na");
  {
    nb_params p;
    nb_error err = { 0 };

    /* nothing near, and no -lenient hint where it would not help */
    g_assert_cmpint (parse (&p, "-frobnicate", &err), ==, NB_ERR_USAGE);
    g_assert_null (strstr (err.message, "did you mean"));
    nb_params_clear (&p);
    g_assert_cmpint (parse (&p, "-distance_mm 100", &err), ==, NB_ERR_USAGE);
    g_assert_null (strstr (err.message, "lenient"));
    nb_params_clear (&p);
  }
}

/* nanoBragg's argument matching (nanoBragg.c main(): strstr on every word
 * starting with '-', a few names at an exact length). */
static void
test_reference_words (void)
{
  static const struct
  {
    const char *word, *flag;
  } cases[] = {
    { "-hdiv", NULL },
    { "-vdiv", NULL },
    { "-dispstep", NULL },
    { "-polarization", NULL },
    { "-detector_twotheta", NULL },
    { "-lamda", NULL },
    { "-detsize_x", NULL },
    { "-mosaicx", NULL },
    { "-stolx", NULL },
    { "-Qx", NULL },
    { "-Nx", NULL },
    { "-MWx", NULL },
    { "-5", NULL },
    { "0", NULL },
    { "stray-distance", NULL },
    { "-source_distance", NULL },
    { "-polar", "-polar" },
    { "-distance_mm", "-distance" },
    { "--distance", "-distance" },
    { "-Nabc", "-Na" },
    { "-N", "-N" },
    { "-MW", "-MW" },
    { "-stolout", "-stolout" },
    { "-stol", "-stol" },
    { "-Q", "-Q" },
    { "-masked", "-mask" },
    { "-detsize", "-detsize" },
    { "-detpixels_xy", "-detpixels_x" },
    { "-oversample_thickness", "-oversample_thick" },
    { "-misset_seed", "-misset_seed" }, /* -misset's handler acts too: the longest */
    { "-NaN", "-Na" },
    { "-nan", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("%s", cases[i].word);
      g_assert_cmpstr (nb_argv_reference_flag (cases[i].word), ==, cases[i].flag);
    }
  g_assert_cmpuint (nb_argv_edit_distance ("-lamda", "-lambda", 3), ==, 1);
  g_assert_cmpuint (nb_argv_edit_distance ("-hdiv", "-hkl", 3), ==, 3);
  g_assert_cmpuint (nb_argv_edit_distance ("", "-abc", 9), ==, 4);
  g_assert_cmpuint (nb_argv_edit_distance ("-frobnicate", "-progress", 2), ==, 3);
}

/* parse_lenient: parse() through nb_params_parse_argv_with(), the warnings
 * collected in @warnings. */
static void
collect_warning (void *user, const char *message)
{
  g_assert_null (strchr (message, '\n'));
  g_ptr_array_add (user, g_strdup (message));
}

static nb_status
parse_lenient (nb_params *p, const char *cmdline, int lenient, GPtrArray *warnings, nb_error *err)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *full = g_strconcat ("nanobragg ", cmdline, NULL);
  g_auto (GStrv) argv = NULL;
  int argc = 0;
  nb_parse_options opts = { lenient, collect_warning, warnings, NULL };

  g_assert_true (g_shell_parse_argv (full, &argc, &argv, &error));
  g_assert_no_error (error);
  nb_params_init (p);
  return nb_params_parse_argv_with (p, argc, (const char *const *) argv, &opts, err);
}

/* The command line nb_params_to_argv() writes for @p: equal strings, equal
 * parameters. */
static char *
canonical_line (const nb_params *p)
{
  char **argv = nb_params_to_argv (p, NULL);
  char *line = g_strjoinv (" ", argv);

  nb_argv_free (argv);
  return line;
}

/* -lenient (or nb_parse_options.lenient) skips, with one warning each, the
 * words nanoBragg ignores, and the rest reads as without them. */
static void
test_lenient_skips (void)
{
  const char *line = "-hdiv 0 -vdiv 0 -oversample_thick 0 -distance 120 -cell 100 100 100 90 90 "
                     "90 7 stray -lamda 1.2 -5";
  const char *ignored[] = { "-hdiv", "'0'",   "-vdiv",  "'0'",   "'0'",
                            "'7'",   "stray", "-lamda", "'1.2'", "'-5'" };
  nb_params p, q;
  nb_error err = { 0 };
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *want = NULL, *got = NULL;

  g_assert_cmpint (parse_lenient (&p, line, 1, warnings, &err), ==, NB_OK);
  g_assert_cmpstr (err.message, ==, "");
  g_assert_cmpuint (warnings->len, ==, G_N_ELEMENTS (ignored));
  for (guint i = 0; i < warnings->len; i++)
    {
      const char *w = g_ptr_array_index (warnings, i);

      g_test_message ("%s", w);
      g_assert_true (g_str_has_prefix (w, "ignoring "));
      g_assert_nonnull (strstr (w, "as nanoBragg does"));
      g_assert_nonnull (strstr (w, ignored[i]));
    }
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 0), "did you mean -hdivrange"));
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 4), "-oversample_thick takes no value"));
  g_assert_nonnull (strstr (g_ptr_array_index (warnings, 7), "did you mean -lambda?"));
  g_assert_cmpfloat (p.distance, ==, 0.12);
  g_assert_cmpfloat (p.lambda0, ==, 1e-10); /* -lamda is not -lambda */
  g_assert_cmpint (p.oversample_thick, ==, 1);

  parse_ok (&q, "-oversample_thick -distance 120 -cell 100 100 100 90 90 90");
  want = canonical_line (&q);
  got = canonical_line (&p);
  g_assert_cmpstr (got, ==, want);
  nb_params_clear (&p);

  /* the flag does the same, here without a warning callback */
  {
    g_autofree char *with_flag = g_strconcat (line, " -lenient", NULL);
    g_autofree char *again = NULL;

    parse_ok (&p, with_flag);
    again = canonical_line (&p);
    g_assert_cmpstr (again, ==, want);
    nb_params_clear (&p);
  }
  nb_params_clear (&q);
}

/* What nanoBragg reads, and what is malformed, stays an error with -lenient. */
static void
test_lenient_keeps_errors (void)
{
  static const struct
  {
    const char *line, *names;
  } cases[] = {
    { "-distance_mm 100", "nanoBragg reads it as -distance" },
    { "--distance 100", "nanoBragg reads it as -distance" },
    { "-oversample_thickness", "nanoBragg reads it as -oversample_thick" },
    { "-distance abc", "abc" },
    { "-distance", "-distance" },
    { "-lambda -N 5", "-lambda" },
    { "-N 2.5", "2.5" },
    { "-misset 1 2", "-misset" },
    { "-pivot middle", "middle" },
    { "-lambda inf", "-lambda" },
    { "-N 5 -NaN", "nanoBragg reads it as -Na" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      nb_params p;
      nb_error err = { 0 };
      g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);

      g_assert_cmpint (parse_lenient (&p, cases[i].line, 1, warnings, &err), ==, NB_ERR_USAGE);
      if (strstr (err.message, cases[i].names) == NULL)
        g_error ("'%s': message '%s' does not name '%s'", cases[i].line, err.message,
                 cases[i].names);
      g_assert_cmpuint (warnings->len, ==, 0);
      nb_params_clear (&p);
    }
}

/* Q-29: -misset_seed N also runs the -misset handler, reading N and the next
 * two tokens as angles (atof: a flag reads as 0), and cancels an earlier
 * -misset random.  Not with -physical. */
static void
test_quirk_misset_seed (void)
{
  nb_params p;

  /* cli.md: -misset_seed 45 -distance 100 == -misset 45 0 100 */
  parse_ok (&p, "-misset random -misset_seed 45 -distance 100");
  g_assert_cmpint (p.misset_seed, ==, -45);
  g_assert_cmpint (p.misset_random, ==, 0);
  assert_vec (p.misset, 45 / RTD, 0.0, 100 / RTD);
  g_assert_cmpfloat (p.distance, ==, 0.1);
  nb_params_clear (&p);

  parse_ok (&p, "-misset_seed 45 -N 2");
  assert_vec (p.misset, 45 / RTD, 0.0, 2 / RTD);
  g_assert_cmpfloat (p.Na, ==, 2);
  nb_params_clear (&p);

  /* fewer than three tokens after the flag: the -misset handler does not run */
  parse_ok (&p, "-misset random -misset_seed 45");
  g_assert_cmpint (p.misset_random, ==, 1);
  assert_vec (p.misset, 0, 0, 0);
  nb_params_clear (&p);

  /* the documented work-around: -misset_seed before -misset random */
  parse_ok (&p, "-misset_seed 45 -distance 100 -misset random");
  g_assert_cmpint (p.misset_random, ==, 1);
  g_assert_cmpint (p.misset_seed, ==, -45);
  nb_params_clear (&p);

  /* -physical (anywhere on the line) keeps the seed a seed */
  parse_ok (&p, "-misset random -misset_seed 45 -distance 100 -physical");
  g_assert_cmpint (p.physical, ==, 1);
  g_assert_cmpint (p.misset_seed, ==, -45);
  g_assert_cmpint (p.misset_random, ==, 1);
  assert_vec (p.misset, 0, 0, 0);
  nb_params_clear (&p);
  parse_ok (&p, "-physical -misset 1 2 3 -misset_seed 45 -distance 100");
  assert_vec (p.misset, 1 / RTD, 2 / RTD, 3 / RTD);
  nb_params_clear (&p);
}

/* Q-30: -twotheta_axis x y z also runs the -twotheta handler: twotheta = x
 * degrees, pivot SAMPLE.  Not with -physical. */
static void
test_quirk_twotheta_axis (void)
{
  nb_params p;

  parse_ok (&p, "-twotheta 20 -twotheta_axis 0 0 -1");
  g_assert_cmpfloat (p.twotheta, ==, 0.0);
  g_assert_cmpint (p.pivot, ==, NB_PIVOT_SAMPLE);
  g_assert_cmpint (p.convention, ==, NB_CONVENTION_CUSTOM);
  assert_vec (p.twotheta_axis, 0, 0, -1);
  nb_params_clear (&p);

  parse_ok (&p, "-pivot beam -twotheta_axis 5 0 0");
  g_assert_cmpfloat (p.twotheta, ==, 5 / RTD);
  g_assert_cmpint (p.pivot, ==, NB_PIVOT_SAMPLE);
  assert_vec (p.twotheta_axis, 5, 0, 0); /* never normalised */
  nb_params_clear (&p);

  /* a later -twotheta wins again */
  parse_ok (&p, "-twotheta_axis 1 0 0 -twotheta 7");
  g_assert_cmpfloat (p.twotheta, ==, 7 / RTD);
  nb_params_clear (&p);

  parse_ok (&p, "-twotheta 20 -twotheta_axis 0 0 -1 -physical");
  g_assert_cmpfloat (p.twotheta, ==, 20 / RTD);
  g_assert_cmpint (p.convention, ==, NB_CONVENTION_CUSTOM);
  assert_vec (p.twotheta_axis, 0, 0, -1);
  nb_params_clear (&p);

  parse_ok (&p, "-physical -pivot beam -twotheta_axis 1 0 0");
  g_assert_cmpfloat (p.twotheta, ==, 0.0);
  g_assert_cmpint (p.pivot, ==, NB_PIVOT_BEAM);
  nb_params_clear (&p);
}

/* A token starting with '-' that is a number is a value. */
static void
test_negative_values (void)
{
  nb_params p;

  parse_ok (&p, "-misset -5 3 2");
  assert_vec (p.misset, -5 / RTD, 3 / RTD, 2 / RTD);
  nb_params_clear (&p);

  parse_ok (&p, "-Xbeam -1.5 -Ybeam -.5 -phi -10 -adc -20 -fdet_vector -1 0 -0 "
                "-detector_rotx -1e1 -distance -1e3");
  g_assert_cmpfloat (p.Xbeam, ==, -1.5 / 1000.0);
  g_assert_cmpfloat (p.Ybeam, ==, -.5 / 1000.0);
  g_assert_cmpfloat (p.phi0, ==, -10 / RTD);
  g_assert_cmpfloat (p.adc, ==, -20.0);
  assert_vec (p.fdet, -1, 0, 0);
  g_assert_true (signbit (p.fdet[2]));
  g_assert_cmpfloat (p.rotx, ==, -10 / RTD);
  g_assert_cmpfloat (p.distance, ==, -1.0);
  nb_params_clear (&p);

  parse_ok (&p, "-cell 50 -60 70");
  g_assert_cmpfloat (p.cell[0], ==, 50);
  g_assert_cmpfloat (p.cell[1], ==, -60);
  g_assert_cmpfloat (p.cell[2], ==, 70);
  nb_params_clear (&p);
}

/* -cell takes up to six numbers; the plan fills the rest (b, c -> a; 90 deg). */
static void
test_cell (void)
{
  nb_params p;

  parse_ok (&p, "-cell 70 -N 2");
  g_assert_cmpfloat (p.cell[0], ==, 70);
  g_assert_cmpfloat (p.cell[1], ==, 0);
  g_assert_cmpfloat (p.cell[3], ==, 0);
  g_assert_cmpfloat (p.Na, ==, 2);
  nb_params_clear (&p);

  parse_ok (&p, "-cell 70 80 90 -lambda 2");
  g_assert_cmpfloat (p.cell[2], ==, 90);
  g_assert_cmpfloat (p.cell[3], ==, 0);
  g_assert_cmpfloat (p.lambda0, ==, 2e-10);
  nb_params_clear (&p);
}

/* seeds are stored negated (physics.md §12.1), switches set their fields */
static void
test_seeds_and_switches (void)
{
  nb_params p;

  parse_ok (&p, "-seed 5 -mosaic_seed 7 -misset_seed 9");
  g_assert_cmpint (p.seed, ==, -5);
  g_assert_cmpint (p.mosaic_seed, ==, -7);
  g_assert_cmpint (p.misset_seed, ==, -9);
  nb_params_clear (&p);

  parse_ok (&p, "-point_pixel -curved_det -oversample_thick -oversample_polar "
                "-oversample_omega -oversample 3 -roi 1 2 3 4 -printout_pixel 5 6 -scale 2 "
                "-fluence 1e24 -flux 1e12 -exposure 0.5 -fudge 1.2 -default_F 10 "
                "-stol s.txt -sourcefile src.txt -pngfile a.png -precision single -stats "
                "-coherent -misset rand");
  g_assert_cmpint (p.point_pixel, ==, 1);
  g_assert_cmpint (p.curved_det, ==, 1);
  g_assert_cmpint (p.oversample_thick, ==, 1);
  g_assert_cmpint (p.oversample_polar, ==, 1);
  g_assert_cmpint (p.oversample_omega, ==, 1);
  g_assert_cmpint (p.oversample, ==, 3);
  g_assert_cmpint (p.roi[0], ==, 1);
  g_assert_cmpint (p.roi[1], ==, 2);
  g_assert_cmpint (p.roi[2], ==, 3);
  g_assert_cmpint (p.roi[3], ==, 4);
  g_assert_cmpint (p.printout, ==, 1);
  g_assert_cmpint (p.printout_fpixel, ==, 5);
  g_assert_cmpint (p.printout_spixel, ==, 6);
  g_assert_cmpfloat (p.intfile_scale, ==, 2);
  g_assert_cmpfloat (p.fluence, ==, 1e24);
  g_assert_cmpfloat (p.flux, ==, 1e12);
  g_assert_cmpfloat (p.exposure, ==, 0.5);
  g_assert_cmpfloat (p.fudge, ==, 1.2);
  g_assert_cmpfloat (p.default_F, ==, 10);
  g_assert_cmpstr (p.stol_file, ==, "s.txt");
  g_assert_cmpint (p.stol_kind, ==, NB_STOL_STOL);
  g_assert_cmpstr (p.source_file, ==, "src.txt");
  g_assert_cmpstr (p.pngfile, ==, "a.png");
  g_assert_cmpint (p.precision, ==, NB_PRECISION_SINGLE);
  g_assert_cmpint (p.stats, ==, 1);
  g_assert_cmpint (p.misset_random, ==, 1);
  nb_params_clear (&p);
}

/* nb_params_copy is deep */
static void
test_copy (void)
{
  nb_params p, q;
  nb_error err = { 0 };

  parse_ok (&p, "-hkl a.hkl -mat m.mat -floatfile f.bin -distance 123");
  g_assert_cmpint (nb_params_copy (&q, &p, &err), ==, NB_OK);
  g_assert_true (q.hkl_file != p.hkl_file);
  g_assert_cmpstr (q.hkl_file, ==, "a.hkl");
  g_assert_cmpstr (q.mat_file, ==, "m.mat");
  g_assert_cmpstr (q.floatfile, ==, "f.bin");
  g_assert_cmpfloat (q.distance, ==, 0.123);
  nb_params_clear (&p);
  g_assert_cmpstr (q.hkl_file, ==, "a.hkl");
  nb_params_clear (&q);
}

/* nb_params_validate (issue 7): parse, then validate; @names must be in the
 * message of a refusal. */
static void
validate_fails (const char *cmdline, const char *names)
{
  nb_params p;
  nb_error err = { 0 };

  parse_ok (&p, cmdline);
  if (nb_params_validate (&p, &err) != NB_ERR_INVALID)
    g_error ("'%s': accepted", cmdline);
  g_assert_cmpint (err.code, ==, NB_ERR_INVALID);
  if (strstr (err.message, names) == NULL)
    g_error ("'%s': message '%s' does not name '%s'", cmdline, err.message, names);
  g_assert_null (strchr (err.message, '\n'));
  nb_params_clear (&p);
}

static void
validate_ok (const char *cmdline)
{
  nb_params p;
  nb_error err = { 0 };

  parse_ok (&p, cmdline);
  if (nb_params_validate (&p, &err) != NB_OK)
    g_error ("'%s': %s", cmdline, err.message);
  nb_params_clear (&p);
}

/* What the reference accepts on purpose stays valid: the defaults, the
 * "not given" sentinels and the odd values the golden cases and tests use. */
static void
test_validate_accepts (void)
{
  static const char *const lines[] = {
    "",
    "-N 0",
    "-phisteps 0",
    "-oversample 0",
    "-osc 0",
    "-mosaic 0 -mosaic_domains 5",
    "-Xbeam -1.5 -Ybeam -.5 -phi -10 -detector_rotx -1e1",
    "-cell 50 -N 2",
    "-cell 70 80 90 75 85 95 -misset 10 5 3",
    "-cell 100 100 100 119 60 60",
    "-adc -20",
    "-detector_abs inf -detector_thick 0",
    "-detector_thick 450 -detector_abs 500 -thicksteps 5",
    "-hdivrange 1 -hdivstep 1 -vdivrange 1 -vdivstep 1",
    "-divergence 0.2 -divsteps 5 -dispersion 1 -dispsteps 2",
    "-roi 40 200 60 180",
    "-roi 0 0 0 3 -detpixels 4",
    "-roi 0 5000 0 5000 -detpixels 16",
    "-pix0_vector 0 0 0",
    "-twotheta_axis 0 0 -1 -twotheta 20",
    "-fdet_vector 0 0.2588 0.9659 -sdet_vector 0 -0.9659 0.2588 -odet_vector 1 0 0",
    "-odet_vector 0 0 0",
    "-flux 1e12 -exposure 2 -beamsize 0.05",
    "-exposure 0",
    "-xtalsize 0.0003",
    "-polar -1 -fudge 1e-3",
    "-close_distance 90 -distance -5",
    "-memory_budget 0.5",
    "-precision single -backend cpu",
    "-energy 12398.42",
  };

  for (size_t i = 0; i < G_N_ELEMENTS (lines); i++)
    validate_ok (lines[i]);

  /* every count and range at its limit */
  validate_ok ("-N 1000000 -oversample 1000 -phisteps 100000 -mosaic 180 -mosaic_domains 1000000 "
               "-dispersion 199.9 -dispsteps 100000 -detpixels 65536 -thicksteps 1000 "
               "-detector_thick 1 -cell 1000000 -polar 1 -hdivrange 3141 -vdivrange 3141");
}

/* Out-of-range values: refused, naming the flag (in the flag's units). */
static void
test_validate_refuses (void)
{
  static const struct
  {
    const char *cmd;
    const char *names;
  } cases[] = {
    { "-lambda 0", "-lambda 0 Angstrom" },
    { "-energy -12398.42", "-lambda -1 " },
    { "-distance 0", "-distance 0 mm" },
    { "-distance -1e3", "-distance" },
    { "-close_distance -5", "-close_distance" },
    { "-pixel 0", "-pixel 0 mm" },
    { "-detpixels 70000", "-detpixels_f 70000" },
    { "-detpixels_f 10 -detpixels_s 70000", "-detpixels_s" },
    { "-detsize 0", "-detsize_f 0 mm" },
    { "-pixel 0.0001 -detsize 1000", "pixels" },
    { "-N -3", "-N -3" },
    { "-Na 2 -Nb -1", "-Nb -1" },
    { "-N 1000001", "-N" },
    { "-cell 100 100 100 120 60 60", "angles 120 60 60" },
    { "-cell 100 100 100 150 30 30", "angles 150 30 30" },
    { "-cell 100 100 100 130 130 130", "all three below 360" },
    { "-cell 100 100 100 -90 90 90", "alpha = -90" },
    { "-cell 100 100 100 90 180 90", "beta = 180" },
    { "-cell -1", "a = -1" },
    { "-cell 50 -60 70", "b = -60" },
    { "-cell 2e6", "a = 2e+06" },
    { "-xtalsize -1", "-xtalsize -1 mm" },
    { "-sample_y -1", "-sample_y" },
    { "-sample_z 2000", "-sample_z 2000 mm" },
    { "-fudge 0", "-fudge" },
    { "-mosaic 181", "-mosaic 181 deg" },
    { "-mosaic_domains 0", "-mosaic_domains 0" },
    { "-mosaic_domains 1000001", "-mosaic_domains" },
    { "-dispersion 200", "-dispersion 200%" },
    { "-dispsteps 0", "-dispsteps 0" },
    { "-hdivsteps 0", "-hdivsteps 0" },
    { "-vdivsteps 100001", "-vdivsteps" },
    { "-hdivstep 0", "-hdivstep 0 mrad" },
    { "-vdivrange 4000", "-vdivrange 4000 mrad" },
    { "-hdivrange 1 -hdivstep 1e-6", "-hdivstep 1e-06 mrad gives" },
    { "-hdivsteps 10000 -vdivsteps 10000", "divergence grid of 10000 x 10000" },
    { "-fluence -1", "-fluence" },
    { "-flux -1", "-flux" },
    { "-flux 1 -exposure 0", "-exposure > 0 s" },
    { "-flux 1 -beamsize 0", "-beamsize > 0 mm" },
    { "-exposure -1", "-exposure" },
    { "-beamsize -1", "-beamsize -1 mm" },
    { "-polar 1.5", "-polar 1.5" },
    { "-water -5", "-water -5 um" },
    { "-detector_thick -1", "-detector_thick -1 um" },
    { "-thicksteps 1001", "-detector_thicksteps 1001" },
    { "-detector_thick 100 -thicksteps 0", "-detector_thicksteps 0" },
    { "-phisteps 100001", "-phisteps 100001" },
    { "-phistep 0", "-phistep 0 deg" },
    { "-osc 90 -phistep 1e-5", "-phistep 1e-05 deg gives" },
    { "-oversample 1001", "-oversample 1001" },
    { "-dmin -1", "-dmin -1 Angstrom" },
    { "-roi 10 5 0 3", "-roi 10 5 0 3" },
    { "-roi 0 3 5 1", "-roi 0 3 5 1" },
    { "-detpixels 16 -roi 16 20 0 3", "16 x 16 detector" },
    { "-roi -2 5 0 5", "-roi -2 5 0 5" },
    { "-beam_vector 0 0 0", "-beam_vector 0 0 0" },
    { "-fdet_vector 0 0 0", "-fdet_vector 0 0 0" },
    { "-polar_vector 0 0 0", "-polar_vector" },
    { "-spindle_axis 0 0 0", "-spindle_axis" },
    { "-fdet_vector 0 1 0 -sdet_vector 0 -3 0", "are parallel" },
    { "-twotheta_axis 0 0 0 -twotheta 5", "-twotheta_axis 0 0 0" },
    { "-scale -2", "-scale -2" },
    { "-pgmscale -2", "-pgmscale -2" },
    { "-printout_pixel -2 0", "-printout_pixel" },
    { "-hkl ''", "-hkl ''" },
    { "-floatfile ''", "-floatfile ''" },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("%s", cases[i].cmd);
      validate_fails (cases[i].cmd, cases[i].names);
    }
}

/* What only an API user can set: non-finite numbers and out-of-range enums. */
static void
test_validate_api_values (void)
{
  nb_params p;
  nb_error err = { 0 };
  struct
  {
    double *field;
    double value;
    const char *names;
  } doubles[] = {
    { &p.lambda0, NAN, "-lambda" },
    { &p.distance, INFINITY, "-distance" },
    { &p.Xbeam, INFINITY, "-Xbeam" },
    { &p.ORGY, -INFINITY, "-ORGY" },
    { &p.misset[1], NAN, "-misset" },
    { &p.fdet[2], NAN, "-fdet_vector" },
    { &p.pix0[0], INFINITY, "-pix0_vector" },
    { &p.rotz, NAN, "-detector_rotz" },
    { &p.phi0, INFINITY, "-phi" },
    { &p.default_F, NAN, "-default_F" },
    { &p.adc, INFINITY, "-adc" },
    { &p.Na, 2.5, "-Na 2.5" },
    { &p.mosaic_spread, -0.5, "-mosaic" },
    { &p.osc, -0.5, "-osc" },
    { &p.detector_mu, -2.0, "-detector_abs" },
    { &p.dispstep, 0.0, "dispstep" },
    { &p.memory_budget, -1.0, "-memory_budget" },
    { &p.cell[4], NAN, "-cell: beta" },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (doubles); i++)
    {
      nb_params_init (&p);
      p.cell[0] = 50.0;
      *doubles[i].field = doubles[i].value;
      g_assert_cmpint (nb_params_validate (&p, &err), ==, NB_ERR_INVALID);
      if (strstr (err.message, doubles[i].names) == NULL)
        g_error ("%zu: message '%s' does not name '%s'", i, err.message, doubles[i].names);
      nb_params_clear (&p);
    }

  nb_params_init (&p);
  p.shape = (nb_shape) 7;
  g_assert_cmpint (nb_params_validate (&p, &err), ==, NB_ERR_INVALID);
  nb_params_clear (&p);
  nb_params_init (&p);
  p.convention = (nb_convention) -1;
  g_assert_cmpint (nb_params_validate (&p, &err), ==, NB_ERR_INVALID);
  nb_params_clear (&p);
  nb_params_init (&p);
  p.interpolate = 3;
  g_assert_cmpint (nb_params_validate (&p, &err), ==, NB_ERR_INVALID);
  nb_params_clear (&p);
  nb_params_init (&p);
  p.fpixels = -1;
  g_assert_cmpint (nb_params_validate (&p, &err), ==, NB_ERR_INVALID);
  nb_params_clear (&p);
  g_assert_cmpint (nb_params_validate (NULL, &err), ==, NB_ERR_INVALID);
}

/* The plan validates first: an update that fails validation leaves the
 * plan as it was, without rebuilding it. */
static void
test_validate_in_plan (void)
{
  nb_params p;
  nb_plan *plan = NULL;
  nb_error err = { 0 };
  nb_plan_stats before, after;

  parse_ok (&p, "-default_F 100 -cell 100 100 100 90 90 90 -detpixels 16");
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_OK);
  nb_plan_get_stats (plan, &before);
  p.polarization = 3.0;
  g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "-polar 3"));
  nb_plan_get_stats (plan, &after);
  g_assert_cmpmem (&before, sizeof before, &after, sizeof after);
  g_assert_cmpfloat (nb_plan_get_params (plan)->polarization, ==, 0.0);
  nb_plan_destroy (plan);

  plan = NULL;
  g_assert_cmpint (nb_plan_create (&p, &plan, &err), ==, NB_ERR_INVALID);
  g_assert_null (plan);
  nb_params_clear (&p);
}

/* Sign errors the parser sees where "not given" (-1) would hide them. */
static void
test_errors_negative_sentinels (void)
{
  parse_fails ("-mosaic -1", NB_ERR_USAGE, "-mosaic");
  parse_fails ("-osc -57.29577951308232", NB_ERR_USAGE, "-osc");
  parse_fails ("-phistep -1", NB_ERR_USAGE, "-phistep");
  parse_fails ("-hdivrange -1000", NB_ERR_USAGE, "-hdivrange");
  parse_fails ("-vdivstep -2", NB_ERR_USAGE, "-vdivstep");
  parse_fails ("-divergence -1", NB_ERR_USAGE, "-divergence");
  parse_fails ("-mosaic_domains -1", NB_ERR_USAGE, "-mosaic_domains");
  parse_fails ("-phisteps -1", NB_ERR_USAGE, "-phisteps");
  parse_fails ("-divsteps -1", NB_ERR_USAGE, "-divsteps");
  parse_fails ("-thicksteps -1", NB_ERR_USAGE, "-thicksteps");
  parse_fails ("-oversample -1", NB_ERR_USAGE, "-oversample");
  parse_fails ("-detector_abs -1000000", NB_ERR_USAGE, "-detector_abs");
  parse_fails ("-detpixels 0", NB_ERR_USAGE, "-detpixels");
  parse_fails ("-detpixels_y -4", NB_ERR_USAGE, "-detpixels_y");
  parse_fails ("-memory_budget 0", NB_ERR_USAGE, "-memory_budget");
  parse_fails ("-memory_budget -5", NB_ERR_USAGE, "-memory_budget");
  {
    nb_params p;

    parse_ok (&p, "-memory_budget 250");
    g_assert_cmpfloat (p.memory_budget, ==, 250e6);
    nb_params_clear (&p);
  }
}

/* ------------------------------------------------------------------------- */
/* The parameter table (nb-param.h) */

static size_t
field_size (const nb_param *row)
{
  switch (row->type)
    {
      case NB_FIELD_DOUBLE:
        return sizeof (double);
      case NB_FIELD_INT:
        return sizeof (int);
      case NB_FIELD_LONG:
        return sizeof (long);
      case NB_FIELD_STRING:
        return sizeof (char *);
    }
  return 0;
}

/* Every byte of nb_params that holds a value belongs to a row (a field
 * added to the struct without its row fails here), and a field named by
 * several rows has one type and one set of stages in all of them. */
static void
test_table_covers_fields (void)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);
  static unsigned char covered[sizeof (nb_params)];
  static unsigned stages[sizeof (nb_params)];
  static int type[sizeof (nb_params)];

  memset (covered, 0, sizeof covered);
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < rows[i].n_field; k++)
      {
        size_t at = rows[i].field[k], size = field_size (&rows[i]);

        g_assert_cmpuint (at + size, <=, sizeof (nb_params));
        if (covered[at] && rows[i].stages != 0 && stages[at] != 0 && stages[at] != rows[i].stages)
          g_error ("row %s: field at %zu has stages %#x here, %#x in another row",
                   rows[i].flag ? rows[i].flag : rows[i].name, at, rows[i].stages, stages[at]);
        if (covered[at])
          g_assert_cmpint (type[at], ==, rows[i].type);
        memset (covered + at, 1, size);
        stages[at] |= rows[i].stages;
        type[at] = rows[i].type;
      }
  {
    /* every member of nb_params (nanobragg.h), in its order */
    size_t members[] = {
#define M(f) offsetof (nb_params, f)
      M (cell),
      M (mat_file),
      M (misset),
      M (misset_random),
      M (misset_seed),
      M (Na),
      M (Nb),
      M (Nc),
      M (sample_x),
      M (sample_y),
      M (sample_z),
      M (shape),
      M (fudge),
      M (mosaic_spread),
      M (mosaic_domains),
      M (mosaic_seed),
      M (interpolate),
      M (hkl_file),
      M (dump_file),
      M (default_F),
      M (stol_file),
      M (stol_kind),
      M (lambda0),
      M (dispersion),
      M (dispstep),
      M (dispsteps),
      M (hdivrange),
      M (vdivrange),
      M (hdivstep),
      M (vdivstep),
      M (hdivsteps),
      M (vdivsteps),
      M (round_div),
      M (source_file),
      M (fluence),
      M (flux),
      M (exposure),
      M (beamsize),
      M (polarization),
      M (nopolar),
      M (water_size),
      M (pixel_size),
      M (fpixels),
      M (spixels),
      M (detsize_f),
      M (detsize_s),
      M (distance),
      M (close_distance),
      M (Xbeam),
      M (Ybeam),
      M (Xclose),
      M (Yclose),
      M (ORGX),
      M (ORGY),
      M (pivot),
      M (convention),
      M (fdet),
      M (sdet),
      M (odet),
      M (beam),
      M (polar_vector),
      M (spindle),
      M (twotheta_axis),
      M (pix0),
      M (rotx),
      M (roty),
      M (rotz),
      M (twotheta),
      M (curved_det),
      M (point_pixel),
      M (detector_mu),
      M (detector_thick),
      M (detector_thickstep),
      M (detector_thicksteps),
      M (roi),
      M (img_file),
      M (mask_file),
      M (frame_file),
      M (frame_index),
      M (phi0),
      M (osc),
      M (phistep),
      M (phisteps),
      M (oversample),
      M (oversample_thick),
      M (oversample_polar),
      M (oversample_omega),
      M (dmin),
      M (floatfile),
      M (intfile),
      M (pgmfile),
      M (noisefile),
      M (pngfile),
      M (write_pgm),
      M (calculate_noise),
      M (intfile_scale),
      M (pgm_scale),
      M (adc),
      M (seed),
      M (printout),
      M (printout_fpixel),
      M (printout_spixel),
      M (progress),
      M (precision),
      M (physical),
      M (stats),
      M (memory_budget),
      M (backend),
#undef M
    };

    for (size_t i = 0; i < G_N_ELEMENTS (members); i++)
      if (!covered[members[i]])
        g_error ("nb_params member at offset %zu has no row in the parameter table", members[i]);
  }
}

/* Every spelling finds its row; rows are well formed. */
static void
test_table_rows (void)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);

  for (size_t i = 0; i < n; i++)
    {
      const nb_param *row = &rows[i];

      if (row->kind == NB_PARAM_SECTION)
        continue;
      if (row->flag != NULL)
        {
          g_assert_true (nb_param_find (row->flag) == row);
          g_assert_nonnull (row->help);
          if (row->aliases != NULL)
            {
              g_auto (GStrv) words = g_strsplit (row->aliases, " ", -1);

              for (guint k = 0; words[k] != NULL; k++)
                {
                  g_autofree char *spelling = g_strdup (words[k]);
                  size_t len = strlen (spelling);

                  if (len > 0 && (spelling[len - 1] == '*' || spelling[len - 1] == '='))
                    spelling[len - 1] = '\0';
                  if (nb_param_find (spelling) != row)
                    g_error ("%s: alias %s finds another row", row->flag, words[k]);
                }
            }
        }
      else
        g_assert_nonnull (row->name);
      if (row->property != NULL)
        {
          g_assert_true (nb_param_find_property (row->property) == row);
          g_assert_nonnull (row->label);
          g_assert_nonnull (row->help);
        }
      if (row->flags & NB_PARAM_COMPONENT)
        g_assert_true (nb_param_owner (row) != row);
    }

  /* a field's flag, and its unit, for a program that writes the flag */
  {
    const nb_param *misset = nb_param_find_field (offsetof (nb_params, misset));
    const nb_param *distance = nb_param_find_field (offsetof (nb_params, distance));

    g_assert_nonnull (misset);
    g_assert_cmpstr (misset->flag, ==, "-misset");
    g_assert_cmpfloat_with_epsilon (nb_unit_from_field (misset->unit, G_PI / 2), 90.0, 1e-12);
    g_assert_cmpfloat_with_epsilon (nb_unit_to_field (misset->unit, 90.0), G_PI / 2, 1e-15);
    g_assert_nonnull (distance);
    g_assert_cmpstr (distance->flag, ==, "-distance");
    g_assert_null (nb_param_find_field (offsetof (nb_params, physical) + 1));
  }
}

/* A property reads and writes as its flag: the same value, unit and side
 * effects. */
static void
test_table_properties (void)
{
  nb_params p, q;
  nb_error err = { 0 };
  const nb_param *distance = nb_param_find_property ("distance");
  const nb_param *misset = nb_param_find_property ("misset-y");
  const nb_param *energy = nb_param_find_property ("energy");
  const nb_param *oversample = nb_param_find_property ("oversample");
  const nb_param *convention = nb_param_find_property ("convention");

  parse_ok (&q, "-xds -distance 150.3 -misset 0 20.5 0 -energy 12398.42");
  parse_ok (&p, "-xds");
  g_assert_cmpint (nb_param_set_number (distance, &p, 150.3, &err), ==, NB_OK);
  g_assert_cmpint (nb_param_set_number (misset, &p, 20.5, &err), ==, NB_OK);
  g_assert_cmpint (nb_param_set_number (energy, &p, 12.39842, &err), ==, NB_OK);
  g_assert_cmpfloat (p.distance, ==, q.distance);
  g_assert_cmpint (p.pivot, ==, q.pivot);
  g_assert_cmpfloat (p.misset[1], ==, q.misset[1]);
  g_assert_cmpfloat_with_epsilon (p.lambda0, q.lambda0, 1e-22);
  g_assert_cmpfloat (nb_param_get_number (distance, &p, NULL), ==, 150.3);
  g_assert_cmpfloat_with_epsilon (nb_param_get_number (energy, &p, NULL), 12.39842, 1e-9);

  /* 0 sub-pixels is "automatic", read back as 0; -1 is what the flag refuses */
  g_assert_cmpint (nb_param_set_number (oversample, &p, 0, &err), ==, NB_OK);
  g_assert_cmpint (p.oversample, ==, -1);
  g_assert_cmpfloat (nb_param_get_number (oversample, &p, NULL), ==, 0);
  g_assert_cmpint (nb_param_set_number (oversample, &p, -1, &err), ==, NB_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "-oversample"));

  /* a convention set by word pivots as its flag does */
  g_assert_cmpint (nb_param_set_text (convention, &p, "mosflm", &err), ==, NB_OK);
  g_assert_cmpint (p.pivot, ==, NB_PIVOT_BEAM);
  g_assert_cmpint (nb_param_set_text (convention, &p, "xds", &err), ==, NB_OK);
  g_assert_cmpint (p.pivot, ==, NB_PIVOT_SAMPLE);
  g_assert_cmpstr (nb_param_get_text (convention, &p), ==, "xds");
  g_assert_cmpint (nb_param_set_text (convention, &p, "pixels", &err), ==, NB_ERR_INVALID);
  g_assert_nonnull (strstr (err.message, "'pixels'"));
  nb_params_clear (&p);
  nb_params_clear (&q);
}

/* The stages a change invalidates (nb_plan_update) are the rows'. */
static void
test_table_stages (void)
{
  nb_params a, b;

  nb_params_init (&a);
  nb_params_init (&b);
  g_assert_cmpuint (nb_param_changed (&a, &b), ==, 0);
  b.distance = 0.2;
  g_assert_cmpuint (nb_param_changed (&a, &b), ==, 1u << NB_STAGE_DETECTOR);
  nb_params_clear (&b); /* from here on b shares a's strings */
  b = a;
  b.lambda0 = 2e-10;
  g_assert_cmpuint (nb_param_changed (&a, &b), ==,
                    (1u << NB_STAGE_CRYSTAL) | (1u << NB_STAGE_SOURCES));
  b = a;
  b.precision = NB_PRECISION_SINGLE;
  g_assert_cmpuint (nb_param_changed (&a, &b), ==, 1u << NB_STAGE_BUFFERS);
  b = a;
  b.water_size = 1e-6; /* read by every build: no stage */
  g_assert_cmpuint (nb_param_changed (&a, &b), ==, 0);
  nb_params_clear (&a);
}

/* --help lists every flag once. */
static void
test_table_help (void)
{
  char *help = nb_params_help ();
  size_t n;
  const nb_param *rows = nb_param_table (&n);

  g_assert_nonnull (help);
  for (size_t i = 0; i < n; i++)
    if (rows[i].flag != NULL)
      {
        g_autofree char *line = g_strconcat ("\n  ", rows[i].flag, NULL);

        if (strstr (help, line) == NULL)
          g_error ("--help lacks %s", rows[i].flag);
      }
  free (help);
}

/* Scenes (issue 23, item 1): the rows whose value names a file the program
 * writes are marked NB_PARAM_OUTPUT; a scene's arguments may not hold them. */
static nb_status
parse_scene (const char *cmdline, const char *source, nb_error *err)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *full = g_strconcat ("nanobragg ", cmdline, NULL);
  g_auto (GStrv) argv = NULL;
  int argc = 0;
  nb_params p;
  nb_status st;

  g_assert_true (g_shell_parse_argv (full, &argc, &argv, &error));
  nb_params_init (&p);
  st = nb_params_parse_scene_argv (&p, argc, (const char *const *) argv, source, err);
  nb_params_clear (&p);
  return st;
}

static void
test_scene_table (void)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);
  const char *const outputs[] = { "-dump",      "-floatfile", "-intfile", "-pgmfile",
                                  "-noisefile", "-pngfile",   "-stolout", NULL };

  /* every row naming a file says whether the program reads or writes it */
  for (size_t i = 0; i < n; i++)
    {
      const nb_param *row = &rows[i];
      gboolean names_file = row->kind == NB_PARAM_TEXT ||
                            (row->kind == NB_PARAM_IGNORED && row->type == NB_FIELD_STRING);

      if (names_file && !(row->flags & (NB_PARAM_INPUT_FILE | NB_PARAM_OUTPUT)))
        g_error ("%s names a file but is marked neither an input nor an output", row->flag);
      if ((row->flags & NB_PARAM_OUTPUT) && (row->flags & NB_PARAM_INPUT_FILE))
        g_error ("%s is marked both an input and an output", row->flag);
      if ((row->flags & NB_PARAM_OUTPUT) && !g_strv_contains (outputs, row->flag))
        g_error ("%s is marked an output: add it to this test's list", row->flag);
    }
  for (guint k = 0; outputs[k] != NULL; k++)
    g_assert_true (nb_param_find (outputs[k])->flags & NB_PARAM_OUTPUT);
}

static void
test_scene_refuses_outputs (void)
{
  size_t n;
  const nb_param *rows = nb_param_table (&n);
  nb_error err = { 0 };
  const char *const refused[] = {
    "-dump /tmp/Fdump.bin", "-hkl P1.hkl -dump here",
    "-dumpfile x", /* -dump matches longer spellings, as nanoBragg's strstr does */
    "-floatimage x.bin",    "-N 5 -noiseimage y.img -distance 100",
    "-stolout s.txt",       "-pngfile",
  };

  for (guint k = 0; k < G_N_ELEMENTS (refused); k++)
    {
      g_assert_cmpint (parse_scene (refused[k], "/tmp/a b.png", &err), ==, NB_ERR_USAGE);
      g_assert_nonnull (strstr (err.message, "/tmp/a b.png: -"));
      g_assert_nonnull (strstr (err.message, "names a file to write"));
      g_assert_null (strchr (err.message, '\n'));
    }
  g_assert_cmpint (parse_scene ("-intfile a.img", NULL, &err), ==, NB_ERR_USAGE);
  g_assert_cmpstr (err.message, ==,
                   "arguments: -intfile names a file to write, which a scene may not hold");

  /* every output row, by each spelling the parser finds it by */
  for (size_t i = 0; i < n; i++)
    if (rows[i].flags & NB_PARAM_OUTPUT)
      {
        g_autofree char *line = g_strdup_printf ("%s out", rows[i].flag);

        g_assert_cmpint (parse_scene (line, "lesson.desktop", &err), ==, NB_ERR_USAGE);
        g_assert_nonnull (strstr (err.message, rows[i].flag));
      }

  /* what describes a scene passes, output settings that name no file too */
  g_assert_cmpint (parse_scene ("-hkl P1.hkl -N 5 -distance 100 -nopgm -scale 2", "s", &err), ==,
                   NB_OK);
  /* a file named like a flag is no flag: values never start with '-' */
  g_assert_cmpint (parse_scene ("-hkl dump -mat floatfile", "s", &err), ==, NB_OK);
}

static void
test_scene_argv_leaves_outputs (void)
{
  nb_params p;
  char **argv, **scene;
  int argc = 0, scene_argc = 0;
  gboolean dump = FALSE;

  parse_ok (&p, "-hkl P1.hkl -dump /tmp/Fdump.bin -floatfile f.bin -intfile i.img -pgmfile "
                "p.pgm -noisefile n.img -pngfile p.png -distance 150");
  argv = nb_params_to_argv (&p, &argc);
  scene = nb_params_to_scene_argv (&p, &scene_argc);
  for (int i = 0; i < argc; i++)
    dump |= strcmp (argv[i], "-dump") == 0;
  g_assert_true (dump);
  for (int i = 1; i < scene_argc; i++)
    {
      const nb_param *row = nb_param_find (scene[i]);

      if (nb_is_value_token (scene[i]))
        continue;
      g_assert_nonnull (row);
      g_assert_false (row->flags & NB_PARAM_OUTPUT);
      g_assert_cmpint (nb_argv_output_words (scene_argc, (const char *const *) scene, i), ==, 0);
    }
  g_assert_cmpstr (scene[0], ==, "nanobragg");
  g_assert_cmpint (scene_argc, ==, argc - 12); /* six flags and their file names */
  g_assert_cmpint (nb_argv_output_words (argc, (const char *const *) argv, 0), ==, 0);
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "-dump") == 0)
      g_assert_cmpint (nb_argv_output_words (argc, (const char *const *) argv, i), ==, 2);
  nb_argv_free (argv);
  nb_argv_free (scene);
  nb_params_clear (&p);
  {
    const char *const cut[] = { "nanobragg", "-floatfile", "-N", "5" };

    g_assert_cmpint (nb_argv_output_words (4, cut, 1), ==, 1);
    g_assert_cmpint (nb_argv_output_words (4, cut, 4), ==, 0);
    g_assert_cmpint (nb_argv_output_words (4, cut, -1), ==, 0);
  }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/params/defaults", test_defaults);
  g_test_add_func ("/params/units/lengths", test_units_lengths);
  g_test_add_func ("/params/units/angles", test_units_angles);
  g_test_add_func ("/params/units/divergence-dispersion", test_units_divergence);
  g_test_add_func ("/params/units/micrometres", test_units_micrometres);
  g_test_add_func ("/params/units/energy", test_units_energy);
  g_test_add_func ("/params/aliases", test_aliases);
  g_test_add_func ("/params/last-wins", test_last_wins);
  g_test_add_func ("/params/detpixels-beat-detsize", test_detpixels_beat_detsize);
  g_test_add_func ("/params/conventions", test_conventions);
  g_test_add_func ("/params/vectors-custom", test_vectors_custom);
  g_test_add_func ("/params/errors/unknown-flag", test_errors_unknown);
  g_test_add_func ("/params/errors/missing-value", test_errors_missing_value);
  g_test_add_func ("/params/errors/not-a-number", test_errors_not_a_number);
  g_test_add_func ("/params/errors/not-whole", test_errors_not_whole);
  g_test_add_func ("/params/errors/stray-token", test_errors_stray);
  g_test_add_func ("/params/errors/suggest", test_errors_suggest);
  g_test_add_func ("/params/lenient/reference-words", test_reference_words);
  g_test_add_func ("/params/lenient/skips", test_lenient_skips);
  g_test_add_func ("/params/lenient/keeps-errors", test_lenient_keeps_errors);
  g_test_add_func ("/params/quirk/misset-seed", test_quirk_misset_seed);
  g_test_add_func ("/params/quirk/twotheta-axis", test_quirk_twotheta_axis);
  g_test_add_func ("/params/negative-values", test_negative_values);
  g_test_add_func ("/params/cell", test_cell);
  g_test_add_func ("/params/seeds-and-switches", test_seeds_and_switches);
  g_test_add_func ("/params/copy", test_copy);
  g_test_add_func ("/params/errors/negative-sentinels", test_errors_negative_sentinels);
  g_test_add_func ("/params/validate/accepts", test_validate_accepts);
  g_test_add_func ("/params/validate/refuses", test_validate_refuses);
  g_test_add_func ("/params/validate/api-values", test_validate_api_values);
  g_test_add_func ("/params/validate/in-plan", test_validate_in_plan);
  g_test_add_func ("/params/table/covers-fields", test_table_covers_fields);
  g_test_add_func ("/params/table/rows", test_table_rows);
  g_test_add_func ("/params/table/properties", test_table_properties);
  g_test_add_func ("/params/table/stages", test_table_stages);
  g_test_add_func ("/params/table/help", test_table_help);
  g_test_add_func ("/params/scene/table", test_scene_table);
  g_test_add_func ("/params/scene/refuses-outputs", test_scene_refuses_outputs);
  g_test_add_func ("/params/scene/argv-leaves-outputs", test_scene_argv_leaves_outputs);

  return g_test_run ();
}
