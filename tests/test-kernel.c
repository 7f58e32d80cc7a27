/* test-kernel.c: small renders through nb_plan_execute(): values checked
 * against the formulas of physics.md §6/§13/§14, thread-count independence,
 * the phi = 0 carry-over and the water background with and
 * without -physical, ROI and mask, cancellation and progress, and the image
 * statistics and conversions (§19). */
#include <glib.h>
#include <glib/gstdio.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "nanobragg.h"
#include "nb-test-util.h"

#define RTD     (180.0 * M_1_PI)
#define R_E_SQR 7.94079248018965e-30

/* kat1 of physics.md §23: a cubic 100 A crystal, 5 cells a side, 64 px */
#define KAT1 "-default_F 100 -cell 100 100 100 90 90 90 -detpixels 64 -distance 100 -lambda 1 -N 5 "

static char *scratch_dir;

static size_t
n_pixels (const nb_plan *plan)
{
  const nb_plan_info *in = nb_plan_get_info (plan);

  return (size_t) in->fpixels * (size_t) in->spixels;
}

/* execute: a new image of @plan rendered with @threads threads (0: default). */
static float *
execute (nb_plan *plan, int threads)
{
  nb_exec_options opts = { 0 };
  nb_error err = { 0 };
  float *image = g_new (float, n_pixels (plan));

  opts.threads = threads;
  if (nb_plan_execute (plan, image, &opts, &err) != NB_OK)
    g_error ("execute: %s", err.message);
  return image;
}

/* render: @cmdline's image with the default thread count; @plan_out, when
 * given, receives the plan (else it is destroyed). */
static float *
render (const char *cmdline, nb_plan **plan_out)
{
  nb_plan *plan = plan_new (cmdline);
  float *image = execute (plan, 0);

  if (plan_out)
    *plan_out = plan;
  else
    nb_plan_destroy (plan);
  return image;
}

static int
close_rel (double got, double want, double rel, double abs_tol)
{
  return fabs (got - want) <= rel * fabs (want) + abs_tol;
}

static double
dot (const double a[3], const double b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double
sincg (double x, double N)
{
  return x == 0.0 ? N : sin (x * N) / sin (x);
}

static char *
write_scratch (const char *name, const char *contents, gssize len)
{
  g_autoptr (GError) error = NULL;
  char *path = g_build_filename (scratch_dir, name, NULL);

  g_file_set_contents (path, contents, len, &error);
  g_assert_no_error (error);
  return path;
}

/* small.hkl of physics.md §23: h, k, l in [-3, 3], F = 50 + 5h + 3k + l */
static char *
write_small_hkl (void)
{
  GString *s = g_string_new (NULL);
  char *path;

  for (int h = -3; h <= 3; h++)
    for (int k = -3; k <= 3; k++)
      for (int l = -3; l <= 3; l++)
        g_string_append_printf (s, "%d %d %d %g\n", h, k, l, (double) (50 + 5 * h + 3 * k + l));
  path = write_scratch ("small.hkl", s->str, (gssize) s->len);
  g_string_free (s, TRUE);
  return path;
}

/* A sub-pixel exactly on the direct beam sees h = k = l = 0: every sincg is
 * at its limit N, so the pixel is r_e^2 fluence F^2 (Na Nb Nc)^2 omega, with
 * polarization 1 and omega = pixel^2/distance^2. */
static void
test_on_bragg (void)
{
  static const struct
  {
    const char *N;
    double NaNbNc;
  } cases[] = {
    { "-N 3", 27 },
    { "-N 5", 125 },
    { "-Na 2 -Nb 3 -Nc 4", 24 },
  };

  for (size_t i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      /* MOSFLM: Fbeam = Ybeam + pixel/2 = 3.25 mm, the centre of pixel 32 */
      g_autofree char *cmd =
          g_strdup_printf ("-default_F 100 -cell 100 100 100 90 90 90 -detpixels 64 -distance 100 "
                           "-lambda 1 -oversample 1 -Xbeam 3.2 -Ybeam 3.2 %s",
                           cases[i].N);
      nb_plan *plan;
      g_autofree float *image = render (cmd, &plan);
      const nb_plan_info *in = nb_plan_get_info (plan);
      double want = R_E_SQR * in->fluence * 100.0 * 100.0 * cases[i].NaNbNc * cases[i].NaNbNc *
                    (1e-4 * 1e-4 / (0.1 * 0.1));
      size_t centre = 32 * 64 + 32, imax = 0;

      g_test_message ("%s: %g", cases[i].N, image[centre]);
      g_assert_cmpint (in->steps, ==, 1);
      g_assert_true (close_rel (image[centre], want, 1e-6, 0));
      for (size_t k = 0; k < n_pixels (plan); k++)
        {
          g_assert_true (isfinite (image[k]) && image[k] >= 0.0f);
          if (image[k] > image[imax])
            imax = k;
        }
      g_assert_cmpuint (imax, ==, centre);
      nb_plan_destroy (plan);
    }
}

/* Every pixel recomputed here from the plan's geometry with the formulas of
 * physics.md §6, §13.2, §14.1 (K = 0) and §14.2. */
static void
test_independent_pixels (void)
{
  nb_plan *plan;
  g_autofree float *image =
      render (KAT1 "-oversample 1 -misset 10 20 30 -detector_rotx 3 -detector_roty 2", &plan);
  const nb_plan_info *in = nb_plan_get_info (plan);
  double max = 0.0;
  size_t bad = 0;

  for (size_t k = 0; k < n_pixels (plan); k++)
    max = MAX (max, image[k]);
  g_assert_cmpfloat (max, >, 0.0);
  for (int s = 0; s < in->spixels; s++)
    for (int f = 0; f < in->fpixels; f++)
      {
        double Fdet = in->pixel_size * f + in->pixel_size / 2;
        double Sdet = in->pixel_size * s + in->pixel_size / 2;
        double pos[3], d[3], q[3], R, h, kk, l, F_latt, c2, polar, omega, want;

        for (int j = 0; j < 3; j++)
          pos[j] = Fdet * in->fdet[j] + Sdet * in->sdet[j] + in->pix0[j];
        R = sqrt (dot (pos, pos));
        for (int j = 0; j < 3; j++)
          {
            d[j] = pos[j] / R;
            q[j] = (d[j] - in->beam[j]) / in->lambda0;
          }
        h = dot (in->a0, q);
        kk = dot (in->b0, q);
        l = dot (in->c0, q);
        F_latt = sincg (M_PI * h, in->Na) * sincg (M_PI * kk, in->Nb) * sincg (M_PI * l, in->Nc);
        c2 = dot (in->beam, d);
        polar = 0.5 * (1.0 + c2 * c2);
        omega = in->pixel_size * in->pixel_size / R / R * in->close_distance / R;
        want = R_E_SQR * in->fluence * 100.0 * 100.0 * F_latt * F_latt / in->steps * polar * omega;
        if (!close_rel (image[s * in->fpixels + f], want, 1e-5, 1e-7 * max))
          {
            if (bad++ < 5)
              g_test_message ("pixel %d,%d: %g, expected %g", f, s, image[s * in->fpixels + f],
                              want);
          }
      }
  g_assert_cmpuint (bad, ==, 0);
  nb_plan_destroy (plan);
}

static void
assert_same_image (const float *a, const float *b, size_t n)
{
  size_t differ = 0, first = 0;

  for (size_t k = 0; k < n; k++)
    if (memcmp (&a[k], &b[k], sizeof (float)) != 0 && differ++ == 0)
      first = k;
  if (differ)
    g_error ("%zu pixels differ, the first at %zu: %.9g vs %.9g", differ, first, a[first],
             b[first]);
}

/* nb_exec_options.threads does not change a bit (nanobragg.h). */
static void
check_threads (const char *cmdline)
{
  nb_plan *plan = plan_new (cmdline);
  g_autofree float *one = execute (plan, 1);
  g_autofree float *two = execute (plan, 2);
  g_autofree float *three = execute (plan, 3);

  assert_same_image (one, two, n_pixels (plan));
  assert_same_image (one, three, n_pixels (plan));
  nb_plan_destroy (plan);
}

static void
test_threads_phi (void)
{
  check_threads (KAT1 "-phi 0 -osc 2 -phisteps 4");
  check_threads (KAT1 "-phi 0 -osc 2 -phisteps 4 -mosaic 0.5 -mosaic_domains 3 -physical");
}

/* The tricubic fallback switches interpolation off for the rest of the
 * image at the first out-of-range lookup in row-major order. */
static void
test_threads_interpolation_fallback (void)
{
  g_autofree char *hkl = write_small_hkl ();
  g_autofree char *cmd =
      g_strdup_printf ("-hkl %s -cell 40 40 40 90 90 90 -N 2 -lambda 1 -distance 100 "
                       "-detpixels 48 -pixel 0.1 -Xbeam 0.5 -Ybeam 0.5",
                       hkl);
  nb_plan *plan = plan_new (cmd);
  g_autofree float *one = execute (plan, 1);
  g_autofree float *two = execute (plan, 2);

  g_assert_cmpint (nb_plan_get_info (plan)->interpolate, ==, 1);
  g_assert_nonnull (
      strstr (nb_plan_get_log (plan), "WARNING: out of range for three point interpolation: "));
  g_assert_nonnull (
      strstr (nb_plan_get_log (plan), "WARNING: further warnings will not be printed! "));
  assert_same_image (one, two, n_pixels (plan));
  nb_plan_destroy (plan);

  /* The beam is near the first pixel, so the image starts interpolated and
   * ends with nearest neighbours, as the reference's single thread does. */
  {
    g_autofree char *cmd2 = g_strconcat (cmd, " -nointerpolate", NULL);
    g_autofree float *nearest = render (cmd2, &plan);
    size_t differ = 0, n = n_pixels (plan);

    for (size_t k = 0; k < n; k++)
      differ += one[k] != nearest[k];
    g_test_message ("%zu of %zu pixels interpolated", differ, n);
    g_assert_cmpuint (differ, >, 0);
    g_assert_cmpuint (differ, <, n / 2);
    g_assert_true (one[0] != nearest[0]);
    assert_same_image (one + n - 48, nearest + n - 48, 48);
    nb_plan_destroy (plan);
  }

  /* kat8's geometry: the very first pixel is out of range */
  {
    g_autofree char *cmd3 =
        g_strdup_printf ("-hkl %s -cell 40 40 40 90 90 90 -N 1 -lambda 1 -distance 50 "
                         "-detpixels 48 -pixel 0.2",
                         hkl);

    check_threads (cmd3);
    plan = plan_new (cmd3);
    g_free (execute (plan, 2));
    g_assert_nonnull (strstr (nb_plan_get_log (plan),
                              "WARNING: out of range for three point interpolation: "
                              "h,k,l,h0,k0,l0: -0.378713,3.88289,-3.88289,0,4,-4 \n"));
    nb_plan_destroy (plan);
  }
  g_remove (hkl);
}

/* a phi step of exactly 0 reuses the orientation last computed, so
 * "-phi 0 -osc 10 -phisteps 2" (steps 0 and 5 deg) is the 5 deg image except
 * at the very first pixel.  -physical renders both steps. */
static void
test_phi_carry_over (void)
{
  nb_plan *plan;
  g_autofree float *two = render (KAT1 "-phi 0 -osc 10 -phisteps 2", &plan);
  g_autofree float *five = render (KAT1 "-phi 5", NULL);
  g_autofree float *zero = render (KAT1 "-phi 0", NULL);
  g_autofree float *two_phys = render (KAT1 "-phi 0 -osc 10 -phisteps 2 -physical", NULL);
  g_autofree float *tiny = render (KAT1 "-phi 1e-20 -osc 10 -phisteps 2", NULL);
  size_t n = n_pixels (plan), changed = 0;

  g_assert_cmpint (nb_plan_get_info (plan)->phisteps, ==, 2);
  for (size_t k = 1; k < n; k++)
    if (!close_rel (two[k], five[k], 2e-6, 0))
      g_error ("pixel %zu: %.9g, the 5 deg image has %.9g", k, two[k], five[k]);
  /* the first pixel starts from the unrotated cell */
  g_assert_false (close_rel (two[0], five[0], 1e-3, 0));

  /* -physical: the average of the 0 and 5 degree images, everywhere */
  for (size_t k = 0; k < n; k++)
    {
      double avg = 0.5 * ((double) zero[k] + (double) five[k]);

      if (!close_rel (two_phys[k], avg, 2e-6, 0))
        g_error ("pixel %zu: %.9g, the average of 0 and 5 deg is %.9g", k, two_phys[k], avg);
      changed += !close_rel (two_phys[k], two[k], 1e-3, 0);
      /* a start a hair off 0 avoids the quirk in the reference too */
      g_assert_true (close_rel (tiny[k], avg, 2e-6, 0));
    }
  g_assert_cmpuint (changed, >, n / 10);
  nb_plan_destroy (plan);
}

/* A -water background pixel should be r_e^2 fluence F_bg^2 n_water
 * polar omega (F_bg = 2.57, n_water molecules in a cube of the -water size,
 * physics.md §17).  The reference multiplies the background by r_e^2 fluence
 * twice and divides it by steps; -physical should give the formula.  The
 * scene: top-hat spots, so most pixels hold background only; the same scene
 * without -water gives the spots alone. */
#define WATER_SCENE                                                                                \
  "-tophat_spots -cell 80 80 80 90 90 90 -N 6 -default_F 10 -lambda 1.3 "                          \
  "-distance 90 -detpixels 48 -misset 3 4 5 -fluence 1e24 -oversample 2 "

/* water_expected: the physical background of every pixel of @plan for a
 * -water size of @ws metres, omega and polarization taken at the first
 * sub-pixel as the reference caches them, no sensor layers. */
static double *
water_expected (const nb_plan *plan, double ws)
{
  const nb_plan_info *in = nb_plan_get_info (plan);
  const double molecules = ws * ws * ws * 1e6 * 6.02214179e23 / 18.0;
  const double sub = in->pixel_size / in->oversample;
  double *want = g_new (double, n_pixels (plan));

  for (int s = 0; s < in->spixels; s++)
    for (int f = 0; f < in->fpixels; f++)
      {
        double Fdet = sub * (f * in->oversample) + sub / 2;
        double Sdet = sub * (s * in->oversample) + sub / 2;
        double pos[3], R, c2, polar, omega;

        for (int j = 0; j < 3; j++)
          pos[j] = Fdet * in->fdet[j] + Sdet * in->sdet[j] + in->pix0[j];
        R = sqrt (dot (pos, pos));
        c2 = dot (in->beam, pos) / R;
        polar = 0.5 * (1.0 + c2 * c2);
        omega = in->pixel_size * in->pixel_size / R / R * in->close_distance / R;
        want[(size_t) s * in->fpixels + f] =
            R_E_SQR * in->fluence * 2.57 * 2.57 * molecules * polar * omega;
      }
  return want;
}

static void
test_water_background (void)
{
  nb_plan *plan;
  g_autofree float *wet = render (WATER_SCENE "-water 50", &plan);
  g_autofree float *dry = render (WATER_SCENE, NULL);
  g_autofree double *bg = water_expected (plan, 50e-6);
  const nb_plan_info *in = nb_plan_get_info (plan);
  const double scale = R_E_SQR * in->fluence / in->steps;
  size_t background = 0;

  g_assert_cmpint (in->steps, ==, 4);
  for (size_t k = 0; k < n_pixels (plan); k++)
    {
      double want = dry[k] + bg[k] * scale;

      background += dry[k] == 0.0f;
      if (!close_rel (wet[k], want, 1e-5, 0))
        g_error ("pixel %zu: %.9g, expected %.9g (spots %.9g + background %.9g)", k, wet[k], want,
                 dry[k], bg[k] * scale);
    }
  g_test_message ("%zu background-only pixels", background);
  g_assert_cmpuint (background, >, n_pixels (plan) / 2);
  nb_plan_destroy (plan);
}

static void
test_water_background_physical (void)
{
  nb_plan *plan;
  g_autofree float *wet = render (WATER_SCENE "-water 50 -physical", &plan);
  g_autofree float *dry = render (WATER_SCENE "-physical", NULL);
  g_autofree double *bg = water_expected (plan, 50e-6);
  size_t bad = 0, first = 0;

  for (size_t k = 0; k < n_pixels (plan); k++)
    if (!close_rel (wet[k], dry[k] + bg[k], 1e-5, 0) && bad++ == 0)
      first = k;
  if (bad)
    g_test_message ("pixel %zu: %.9g, expected %.9g (spots %.9g + background %.9g); "
                    "%zu pixels off",
                    first, wet[first], dry[first] + bg[first], dry[first], bg[first], bad);
  g_assert_cmpuint (bad, ==, 0);
  nb_plan_destroy (plan);
}

/* the sources of a -sourcefile and the same file with two '#' lines
 * first, which the reference reads as sources at the sample with weight and
 * wavelength 0 (their scattering vectors are infinite). */
#define SOURCES_3 "-10 0 0 1.0 1.0e-10\n-10 0.02 0 0.5 1.02e-10\n-10 0 0.02 2.0 0.98e-10\n"
#define COMMENTS  "# x y z weight lambda\n#\n"
#define SOURCE_SCENE                                                                               \
  "-default_F 100 -cell 100 100 100 90 90 90 -distance 100 -detpixels 32 -pixel 0.2 -oversample "  \
  "1 -sourcefile "

/* With -dmin the comment sources fail the cut (stol = inf) before anything is
 * computed for them: the image is the one of the three sources, divided by 5
 * steps instead of 3, as is the printed solid angle. */
static void
test_sourcefile_comments_dmin (void)
{
  g_autofree char *plain = write_scratch ("plain.src", SOURCES_3, -1);
  g_autofree char *commented = write_scratch ("commented.src", COMMENTS SOURCES_3, -1);
  g_autofree char *cmd_plain = g_strdup_printf (SOURCE_SCENE "%s -N 5 -dmin 0.5", plain);
  g_autofree char *cmd_comm = g_strdup_printf (SOURCE_SCENE "%s -N 5 -dmin 0.5", commented);
  g_autofree char *cmd_phys = g_strdup_printf ("%s -physical", cmd_comm);
  g_autofree char *warning =
      g_strdup_printf ("WARNING: %s:1: a '#' line read as a source (0 0 0, weight 0, wavelength 0 "
                       "m), as nanoBragg reads it; -physical skips comments\n",
                       commented);
  nb_plan *p3, *p5, *pp;
  g_autofree float *three = render (cmd_plain, &p3);
  g_autofree float *five = render (cmd_comm, &p5);
  g_autofree float *phys = render (cmd_phys, &pp);
  const nb_plan_info *i3 = nb_plan_get_info (p3), *i5 = nb_plan_get_info (p5);
  double lit = 0.0;

  g_assert_cmpint (i3->sources, ==, 3);
  g_assert_cmpint (i3->comment_sources, ==, 0);
  g_assert_cmpint (i5->sources, ==, 5);
  g_assert_cmpint (i5->comment_sources, ==, 2);
  g_assert_cmpint (nb_plan_get_info (pp)->sources, ==, 3);
  g_assert_nonnull (strstr (nb_plan_get_log (p5), warning));
  g_assert_nonnull (strstr (nb_plan_get_log (p5), ":2: a '#' line read as a source"));
  g_assert_null (strstr (nb_plan_get_log (pp), "'#' line"));
  /* the reference's initial value: no divergence grid was made */
  g_assert_nonnull (strstr (nb_plan_get_log (p3), "\n  -1 divergence steps\n"));
  for (size_t k = 0; k < n_pixels (p3); k++)
    {
      lit += three[k];
      if (!close_rel (five[k], three[k] * 3.0 / 5.0, 1e-6, 0))
        g_error ("pixel %zu: %.9g, expected 3/5 of %.9g", k, five[k], three[k]);
    }
  g_assert_cmpfloat (lit, >, 0.0);
  g_assert_cmpmem (phys, n_pixels (pp) * sizeof (float), three, n_pixels (p3) * sizeof (float));
  g_assert_cmpfloat_with_epsilon (nb_plan_get_omega_sum (p5) / i5->steps,
                                  nb_plan_get_omega_sum (p3) / i3->steps * 3.0 / 5.0,
                                  1e-12 * nb_plan_get_omega_sum (p3) / i3->steps);
  nb_plan_destroy (p3);
  nb_plan_destroy (p5);
  nb_plan_destroy (pp);
}

/* Without -dmin, each comment source adds default_F^2 to a pixel when every
 * sincg is skipped (-N 1), and sets the pixel's polarization factor, being the
 * first source: incident direction 0 gives 0.5 (1 - K), here 0.5, where the
 * first real source gives 0.5 (1 + cos^2 2theta).  5 F^2 / 5 steps = 3 F^2 / 3:
 * only the polarization differs.  With -N 5 every pixel is NaN (sincg of an
 * infinite h), as in the reference, whose image nanobragg refuses to write. */
static void
test_sourcefile_comments_polar (void)
{
  g_autofree char *plain = write_scratch ("plain.src", SOURCES_3, -1);
  g_autofree char *commented = write_scratch ("commented.src", COMMENTS SOURCES_3, -1);
  g_autofree char *cmd_plain = g_strdup_printf (SOURCE_SCENE "%s -N 1", plain);
  g_autofree char *cmd_comm = g_strdup_printf (SOURCE_SCENE "%s -N 1", commented);
  g_autofree char *cmd_nan = g_strdup_printf (SOURCE_SCENE "%s -N 5", commented);
  nb_plan *plan;
  g_autofree float *three = render (cmd_plain, NULL);
  g_autofree float *five = render (cmd_comm, &plan);
  g_autofree float *nan_image = render (cmd_nan, NULL);
  const nb_plan_info *in = nb_plan_get_info (plan);

  for (int s = 0; s < in->spixels; s++)
    for (int f = 0; f < in->fpixels; f++)
      {
        size_t k = (size_t) s * in->fpixels + f;
        double pos[3], d[3], len;

        for (int j = 0; j < 3; j++)
          pos[j] = (f + 0.5) * in->pixel_size * in->fdet[j] +
                   (s + 0.5) * in->pixel_size * in->sdet[j] + in->pix0[j];
        len = sqrt (dot (pos, pos));
        for (int j = 0; j < 3; j++)
          d[j] = pos[j] / len;
        /* the first real source is -10 0 0: incident +x */
        {
          double polar = 0.5 * (1.0 + d[0] * d[0]);

          if (!close_rel (five[k], three[k] * 0.5 / polar, 1e-6, 0))
            g_error ("pixel %zu: %.9g, expected %.9g x 0.5 / %.9g", k, five[k], three[k], polar);
        }
        g_assert_true (isnan (nan_image[k]));
      }
  nb_plan_destroy (plan);
}

/* ROI pixels are rendered as in the full image; the others are 0. */
static void
test_roi (void)
{
  nb_plan *plan;
  g_autofree float *full = render (KAT1, NULL);
  g_autofree float *part = render (KAT1 "-roi 10 20 5 30", &plan);
  const nb_plan_info *in = nb_plan_get_info (plan);
  nb_image_stats st;

  g_assert_cmpint (in->roi[0], ==, 10);
  g_assert_cmpint (in->roi[3], ==, 30);
  for (int s = 0; s < 64; s++)
    for (int f = 0; f < 64; f++)
      {
        size_t k = (size_t) s * 64 + f;

        if (f >= 10 && f <= 20 && s >= 5 && s <= 30)
          {
            g_assert_cmpfloat (part[k], >, 0.0f);
            g_assert_true (memcmp (&part[k], &full[k], sizeof (float)) == 0);
          }
        else
          g_assert_cmpfloat (part[k], ==, 0.0f);
      }
  nb_image_statistics (plan, part, &st);
  g_assert_cmpint (st.n, ==, 11 * 26);
  nb_plan_destroy (plan);
}

/* write_mask: a 64 x 64 SMV mask whose zero pixels are those with
 * (f + 2 s) % 5 == 0, or all of them when @none_kept. */
static char *
write_mask (gboolean none_kept)
{
  char header[512];
  guint16 pixels[64 * 64];
  GString *s = g_string_new (NULL);
  char *path;
  int len = g_snprintf (header, sizeof header,
                        "{\nHEADER_BYTES=512;\nDIM=2;\nBYTE_ORDER=little_endian;\n"
                        "TYPE=unsigned_short;\nSIZE1=64;\nSIZE2=64;\n}\f");

  memset (header + len, ' ', sizeof header - len);
  for (int y = 0; y < 64; y++)
    for (int x = 0; x < 64; x++)
      pixels[y * 64 + x] = GUINT16_TO_LE (none_kept || (x + 2 * y) % 5 == 0 ? 0 : 1);
  g_string_append_len (s, header, sizeof header);
  g_string_append_len (s, (const char *) pixels, sizeof pixels);
  path = write_scratch ("mask.img", s->str, (gssize) s->len);
  g_string_free (s, TRUE);
  return path;
}

static void
test_mask (void)
{
  g_autofree char *mask = write_mask (FALSE);
  g_autofree char *cmd = g_strdup_printf (KAT1 "-mask %s", mask);
  nb_plan *plan;
  g_autofree float *full = render (KAT1, NULL);
  g_autofree float *masked = render (cmd, &plan);
  const uint16_t *m = nb_plan_get_mask (plan);
  nb_image_stats st;
  double sum = 0.0;
  long n = 0;

  g_assert_nonnull (m);
  g_assert_nonnull (strstr (nb_plan_get_log (plan), "  skipping zero-flagged pixels in "));
  g_assert_null (strstr (nb_plan_get_log (plan), "flags no pixel"));
  for (int s = 0; s < 64; s++)
    for (int f = 0; f < 64; f++)
      {
        size_t k = (size_t) s * 64 + f;

        g_assert_cmpint (m[k], ==, (f + 2 * s) % 5 == 0 ? 0 : 1);
        if (m[k] == 0)
          g_assert_cmpfloat (masked[k], ==, 0.0f);
        else
          {
            g_assert_true (memcmp (&masked[k], &full[k], sizeof (float)) == 0);
            sum += masked[k];
            n++;
          }
      }
  /* statistics skip masked pixels for the mean (not for rmsd, Q-25) */
  nb_image_statistics (plan, masked, &st);
  g_assert_cmpint (st.n, ==, n);
  g_assert_cmpfloat_with_epsilon (st.sum, sum, 1e-9 * sum);
  nb_plan_destroy (plan);
  g_remove (mask);
}

/* The printed solid angle leaves masked pixels out, as the reference's loop
 * skips them before adding theirs: the fast kernels give the exact kernel's
 * sum (which renders only unmasked pixels), with and without an ROI, and a
 * fifth of the pixels masked makes it about a fifth smaller. */
static double
mask_omega (const char *mask, const char *extra)
{
  g_autofree char *cmd =
      g_strdup_printf (KAT1 "-oversample 2 %s%s %s", mask ? "-mask " : "", mask ? mask : "", extra);
  nb_plan *plan;
  double omega;

  g_free (render (cmd, &plan));
  omega = nb_plan_get_omega_sum (plan);
  g_test_message ("%s: %.17g", cmd, omega);
  nb_plan_destroy (plan);
  return omega;
}

static void
test_mask_solid_angle (void)
{
  g_autofree char *mask = write_mask (FALSE);
  const char *roi = "-roi 5 50 3 60";
  g_autofree char *exact_roi_args = g_strdup_printf ("-precision exact %s", roi);
  g_autofree char *double_roi_args = g_strdup_printf ("-precision double %s", roi);
  double full = mask_omega (NULL, "");
  double exact = mask_omega (mask, "-precision exact");
  double exact_roi = mask_omega (mask, exact_roi_args);

  g_assert_cmpfloat_with_epsilon (mask_omega (mask, "-precision double"), exact, 1e-12 * exact);
  g_assert_cmpfloat_with_epsilon (mask_omega (mask, "-precision single"), exact, 1e-6 * exact);
  g_assert_cmpfloat_with_epsilon (mask_omega (mask, double_roi_args), exact_roi, 1e-12 * exact);
  g_assert_cmpfloat (exact_roi, <, exact);
  g_assert_cmpfloat (exact / full, >, 0.75);
  g_assert_cmpfloat (exact / full, <, 0.85);
  g_remove (mask);
}

/* A mask that keeps no pixel renders an all-zero image, as the reference does,
 * but the plan log says why (the usual cause is an inverted mask). */
static void
test_mask_none_kept (void)
{
  g_autofree char *mask = write_mask (TRUE);
  g_autofree char *cmd = g_strdup_printf (KAT1 "-mask %s", mask);
  nb_plan *plan;
  g_autofree float *image = render (cmd, &plan);
  g_autofree char *expected = g_strdup_printf ("WARNING: -mask %s flags no pixel", mask);

  g_assert_nonnull (strstr (nb_plan_get_log (plan), expected));
  for (int k = 0; k < 64 * 64; k++)
    g_assert_cmpfloat (image[k], ==, 0.0f);
  nb_plan_destroy (plan);
  g_remove (mask);
}

typedef struct
{
  int calls, last_done, total, monotonic;
  GThread *thread;
  int same_thread;
  volatile int *cancel_after_first;
} progress_log;

static void
on_progress (void *user, int rows_done, int rows_total)
{
  progress_log *p = user;

  if (rows_done < p->last_done)
    p->monotonic = 0;
  if (g_thread_self () != p->thread)
    p->same_thread = 0;
  p->calls++;
  p->last_done = rows_done;
  p->total = rows_total;
  if (p->cancel_after_first)
    *p->cancel_after_first = 1;
}

static void
test_progress (void)
{
  nb_plan *plan = plan_new (KAT1);
  progress_log log = { 0, 0, 0, 1, g_thread_self (), 1, NULL };
  nb_exec_options opts = { 0 };
  nb_error err = { 0 };
  g_autofree float *image = g_new (float, n_pixels (plan));

  opts.progress = on_progress;
  opts.user = &log;
  opts.threads = 2;
  g_assert_cmpint (nb_plan_execute (plan, image, &opts, &err), ==, NB_OK);
  g_assert_cmpint (log.calls, >, 0);
  g_assert_true (log.monotonic);
  g_assert_true (log.same_thread);
  g_assert_cmpint (log.total, ==, 64);
  g_assert_cmpint (log.last_done, ==, 64);
  nb_plan_destroy (plan);
}

static void
test_cancel (void)
{
  nb_plan *plan = plan_new (KAT1);
  volatile int cancel = 1;
  nb_exec_options opts = { 0 };
  nb_error err = { 0 };
  g_autofree float *image = g_new (float, n_pixels (plan));
  progress_log log = { 0, 0, 0, 1, g_thread_self (), 1, NULL };

  opts.cancel = &cancel;
  g_assert_cmpint (nb_plan_execute (plan, image, &opts, &err), ==, NB_ERR_CANCELLED);
  g_assert_cmpint (err.code, ==, NB_ERR_CANCELLED);
  g_assert_cmpstr (err.message, !=, "");

  /* cancelled while running (from the progress callback, after the first
   * rows): stops before the last row.  One thread, so that no other thread
   * can take every remaining tile before the first report. */
  cancel = 0;
  opts.threads = 1;
  log.cancel_after_first = &cancel;
  opts.progress = on_progress;
  opts.user = &log;
  g_assert_cmpint (nb_plan_execute (plan, image, &opts, &err), ==, NB_ERR_CANCELLED);
  g_assert_cmpint (log.calls, >=, 1);
  g_assert_cmpint (log.last_done, <, 64);

  /* and the plan still works */
  cancel = 0;
  log.cancel_after_first = NULL;
  g_assert_cmpint (nb_plan_execute (plan, image, &opts, &err), ==, NB_OK);
  g_assert_cmpint (log.last_done, ==, 64);
  nb_plan_destroy (plan);
}

/* A plan executes as often as asked, to the same bits; update replaces it. */
static void
test_repeat_and_update (void)
{
  nb_plan *plan = plan_new (KAT1 "-phi 0 -osc 2 -phisteps 2");
  g_autofree float *a = execute (plan, 0);
  g_autofree float *b = execute (plan, 0);
  g_autofree float *five = render (KAT1 "-phi 5", NULL);
  nb_params p;
  nb_error err = { 0 };
  const char *argv[] = { "nanobragg", "-default_F", "100", "-cell",      "100",  "100",       "100",
                         "90",        "90",         "90",  "-detpixels", "64",   "-distance", "100",
                         "-lambda",   "1",          "-N",  "5",          "-phi", "5" };

  assert_same_image (a, b, n_pixels (plan));
  nb_params_init (&p);
  g_assert_cmpint (nb_params_parse_argv (&p, G_N_ELEMENTS (argv), argv, &err), ==, NB_OK);
  g_assert_cmpint (nb_plan_update (plan, &p, &err), ==, NB_OK);
  nb_params_clear (&p);
  g_assert_cmpint (nb_plan_get_info (plan)->phisteps, ==, 1);
  {
    g_autofree float *c = execute (plan, 0);
    assert_same_image (c, five, n_pixels (plan));
  }
  nb_plan_destroy (plan);
}

/* ---- statistics and conversions on a 4 x 4 image of 0..15 ---- */

static nb_plan *
tiny_plan (const char *extra)
{
  g_autofree char *cmd = g_strdup_printf (
      "-default_F 1 -cell 100 100 100 90 90 90 -detpixels 4 -oversample 1 %s", extra);

  return plan_new (cmd);
}

static void
test_statistics (void)
{
  nb_plan *plan = tiny_plan ("");
  float image[16];
  nb_image_stats st;

  for (int k = 0; k < 16; k++)
    image[k] = (float) k;
  nb_image_statistics (plan, image, &st);
  g_assert_cmpfloat (st.max_I, ==, 15.0);
  g_assert_cmpfloat_with_epsilon (st.max_I_x, 0.00035, 1e-15);
  g_assert_cmpfloat_with_epsilon (st.max_I_y, 0.00035, 1e-15);
  g_assert_cmpint (st.n, ==, 16);
  g_assert_cmpfloat (st.sum, ==, 120.0);
  g_assert_cmpfloat (st.mean, ==, 7.5);
  g_assert_cmpfloat_with_epsilon (st.rms, sqrt (1240.0 / 15), 1e-12);
  g_assert_cmpfloat_with_epsilon (st.rmsd, sqrt (340.0 / 15), 1e-12);
  nb_plan_destroy (plan);

  /* the max position is the last sub-pixel of the pixel */
  plan = tiny_plan ("-oversample 2");
  nb_image_statistics (plan, image, &st);
  g_assert_cmpfloat_with_epsilon (st.max_I_x, 0.000375, 1e-15);
  nb_plan_destroy (plan);

  /* ROI: pixels (1..2, 1..2) = 5 6 9 10 */
  plan = tiny_plan ("-roi 1 2 1 2");
  nb_image_statistics (plan, image, &st);
  g_assert_cmpint (st.n, ==, 4);
  g_assert_cmpfloat (st.max_I, ==, 10.0);
  g_assert_cmpfloat (st.sum, ==, 30.0);
  g_assert_cmpfloat (st.mean, ==, 7.5);
  g_assert_cmpfloat_with_epsilon (st.max_I_x, 0.00025, 1e-15);
  g_assert_cmpfloat_with_epsilon (st.rms, sqrt (242.0 / 3), 1e-12);
  g_assert_cmpfloat_with_epsilon (st.rmsd, sqrt (17.0 / 3), 1e-12);
  nb_plan_destroy (plan);

  /* an all-zero image */
  plan = tiny_plan ("");
  memset (image, 0, sizeof image);
  nb_image_statistics (plan, image, &st);
  g_assert_cmpfloat (st.max_I, ==, 0.0);
  g_assert_cmpfloat (st.mean, ==, 0.0);
  g_assert_cmpfloat (st.rmsd, ==, 0.0);
  nb_plan_destroy (plan);
}

/* nb_image_statistics() sums in eight lanes, eight pixels at a time, with
 * the ROI's last columns in a padded group: against the pixel-by-pixel
 * computation of the reference's loop on a 64 x 64 image of mixed signs,
 * with a mask, an ROI 58 pixels wide (7 groups and 2 more), a masked pixel
 * brighter than all, and the maximum twice (the first in row order wins). */
static void
test_statistics_lanes (void)
{
  g_autofree char *mask_path = write_mask (FALSE);
  g_autofree char *cmd = g_strdup_printf (KAT1 "-oversample 2 -roi 3 60 2 57 -mask %s", mask_path);
  nb_plan *plan = plan_new (cmd);
  const uint16_t *mask = nb_plan_get_mask (plan);
  g_autoptr (GRand) rand = g_rand_new_with_seed (17);
  float image[64 * 64];
  double sum = 0.0, sumsqr = 0.0, dev = 0.0, max_I = 0.0, mean;
  long n = 0, roi_n = 0;
  int max_f = -1, max_s = -1;
  nb_image_stats st;

  g_assert_nonnull (mask);
  for (int k = 0; k < 64 * 64; k++)
    image[k] = (float) g_rand_double_range (rand, -50.0, 1000.0);
  g_assert_cmpint (mask[10 * 64 + 1], ==, 1); /* (1 + 20) % 5 != 0: kept */
  image[10 * 64 + 1] = 5000.0f;               /* outside the ROI */
  g_assert_cmpint (mask[20 * 64 + 20], ==, 0);
  image[20 * 64 + 20] = 4000.0f; /* masked */
  image[30 * 64 + 59] = 3000.0f; /* the last column of the ROI */
  image[40 * 64 + 4] = 3000.0f;  /* the same value, later */
  for (int s = 2; s <= 57; s++)
    for (int f = 3; f <= 60; f++)
      {
        float v = image[s * 64 + f];

        roi_n++;
        if (mask[s * 64 + f] == 0)
          continue;
        if (v > max_I)
          {
            max_I = v;
            max_f = f;
            max_s = s;
          }
        sum += v;
        sumsqr += v * v;
        n++;
      }
  mean = sum / n;
  for (int s = 2; s <= 57; s++)
    for (int f = 3; f <= 60; f++)
      {
        double t = image[s * 64 + f] - mean;

        dev += t * t;
      }
  g_assert_cmpint (max_f, ==, 59);
  g_assert_cmpint (max_s, ==, 30);

  nb_image_statistics (plan, image, &st);
  g_assert_cmpint (st.n, ==, n);
  g_assert_cmpfloat (st.max_I, ==, 3000.0);
  /* 0.1 mm pixels, 2 x 2 sub-pixels: the last sub-pixel's centre */
  g_assert_cmpfloat_with_epsilon (st.max_I_x, 0.0001 * (59 + 0.75), 1e-15);
  g_assert_cmpfloat_with_epsilon (st.max_I_y, 0.0001 * (30 + 0.75), 1e-15);
  g_assert_cmpfloat_with_epsilon (st.sum, sum, 1e-13 * fabs (sum));
  g_assert_cmpfloat_with_epsilon (st.mean, mean, 1e-13 * fabs (mean));
  g_assert_cmpfloat_with_epsilon (st.rms, sqrt (sumsqr / (n - 1)), 1e-13 * sqrt (sumsqr / (n - 1)));
  g_assert_cmpfloat_with_epsilon (st.rmsd, sqrt (dev / (roi_n - 1)),
                                  1e-13 * sqrt (dev / (roi_n - 1)));
  nb_plan_destroy (plan);
  g_remove (mask_path);
}

/* nb_image_first_non_finite: blocks of 4096 pixels are screened first; the
 * first bad pixel and the count across blocks, a block's last pixel, and a
 * finite image (the largest float, a subnormal, -0). */
static void
test_first_non_finite (void)
{
  size_t n = 3 * 4096 + 17, count = 99;
  g_autofree float *image = g_new0 (float, n);

  image[0] = FLT_MAX;
  image[1] = -FLT_MAX;
  image[2] = FLT_TRUE_MIN;
  image[3] = -0.0f;
  g_assert_cmpint (nb_image_first_non_finite (image, n, &count), ==, -1);
  g_assert_cmpuint (count, ==, 0);
  image[4095] = INFINITY;
  image[8200] = NAN;
  image[n - 1] = -INFINITY;
  g_assert_cmpint (nb_image_first_non_finite (image, n, &count), ==, 4095);
  g_assert_cmpuint (count, ==, 3);
  g_assert_cmpint (nb_image_first_non_finite (image + 4096, n - 4096, NULL), ==, 8200 - 4096);
  g_assert_cmpint (nb_image_first_non_finite (image, 4095, &count), ==, -1);
}

static void
test_to_smv (void)
{
  nb_plan *plan = tiny_plan ("");
  float image[16];
  uint16_t out[16];
  nb_image_stats st;
  double scale;

  for (int k = 0; k < 16; k++)
    image[k] = (float) k;
  nb_image_statistics (plan, image, &st);
  scale = nb_image_to_smv (plan, image, &st, 0.0, 40.0, out);
  g_assert_cmpfloat (scale, ==, 55000.0 / 15.0);
  for (int k = 0; k < 16; k++)
    g_assert_cmpint (out[k], ==, (int) floor (k * (55000.0 / 15.0) + 40.5));
  g_assert_cmpint (out[15], ==, 55040);

  /* given scale, clamping both ways, round half up */
  image[0] = -1.0f;
  image[1] = 0.0f;
  image[2] = 0.5f;
  image[3] = 100.0f;
  image[4] = 0.0005f; /* 0.5 + 10 + 0.5 = 11 */
  image[5] = 0.0004f; /* 10.9 */
  image[6] = NAN;     /* 0, as the reference's conversion gives on x86 */
  scale = nb_image_to_smv (plan, image, &st, 1000.0, 10.0, out);
  g_assert_cmpfloat (scale, ==, 1000.0);
  g_assert_cmpint (out[0], ==, 0);
  g_assert_cmpint (out[1], ==, 10);
  g_assert_cmpint (out[2], ==, 510);
  g_assert_cmpint (out[3], ==, 65535);
  g_assert_cmpint (out[4], ==, 11);
  g_assert_cmpint (out[5], ==, 10);
  g_assert_cmpint (out[6], ==, 0);
  nb_plan_destroy (plan);

  /* max_I == 0: scale 1; pixels outside the ROI are 0, not adc */
  plan = tiny_plan ("-roi 1 2 1 2");
  memset (image, 0, sizeof image);
  nb_image_statistics (plan, image, &st);
  scale = nb_image_to_smv (plan, image, &st, 0.0, 40.0, out);
  g_assert_cmpfloat (scale, ==, 1.0);
  for (int s = 0; s < 4; s++)
    for (int f = 0; f < 4; f++)
      g_assert_cmpint (out[s * 4 + f], ==, f >= 1 && f <= 2 && s >= 1 && s <= 2 ? 40 : 0);
  nb_plan_destroy (plan);
}

static void
test_to_pgm (void)
{
  nb_plan *plan = tiny_plan ("");
  float image[16];
  uint8_t out[16];
  nb_image_stats st;
  double scale;

  for (int k = 0; k < 16; k++)
    image[k] = (float) k;
  nb_image_statistics (plan, image, &st);
  scale = nb_image_to_pgm (plan, image, &st, 20.0, 1.0, out);
  g_assert_cmpfloat (scale, ==, 20.0);
  for (int k = 0; k < 16; k++)
    g_assert_cmpint (out[k], ==, MIN (255, 20 * k));
  image[3] = NAN; /* 0, not 255 */
  nb_image_to_pgm (plan, image, &st, 20.0, 1.0, out);
  g_assert_cmpint (out[3], ==, 0);
  image[3] = 3.0f;

  /* auto: 250/(5 rmsd), bytes truncated */
  scale = nb_image_to_pgm (plan, image, &st, 0.0, 1.0, out);
  g_assert_cmpfloat_with_epsilon (scale, 250.0 / (5.0 * sqrt (340.0 / 15)), 1e-12);
  for (int k = 0; k < 16; k++)
    g_assert_cmpint (out[k], ==, (int) MIN (255.0, (double) image[k] * scale));

  /* rmsd 0: the int-image scale */
  for (int k = 0; k < 16; k++)
    image[k] = 2.0f;
  nb_image_statistics (plan, image, &st);
  scale = nb_image_to_pgm (plan, image, &st, 0.0, 7.0, out);
  g_assert_cmpfloat (scale, ==, 7.0);
  g_assert_cmpint (out[0], ==, 14);
  nb_plan_destroy (plan);

  plan = tiny_plan ("-roi 0 0 0 3");
  nb_image_statistics (plan, image, &st);
  nb_image_to_pgm (plan, image, &st, 10.0, 1.0, out);
  for (int s = 0; s < 4; s++)
    for (int f = 0; f < 4; f++)
      g_assert_cmpint (out[s * 4 + f], ==, f == 0 ? 20 : 0);
  nb_plan_destroy (plan);
}

static void
test_to_noise (void)
{
  nb_plan *plan = tiny_plan ("");
  float image[16] = { 0 };
  uint16_t out[16], again[16];
  int overloads = -1;
  double photons;

  photons = nb_image_to_noise (plan, image, -7, 40.0, out, &overloads);
  g_assert_cmpfloat (photons, ==, 0.0);
  g_assert_cmpint (overloads, ==, 0);
  for (int k = 0; k < 16; k++)
    g_assert_cmpint (out[k], ==, 40);

  for (int k = 0; k < 16; k++)
    image[k] = 100.0f * k;
  image[15] = 1e7f;
  photons = nb_image_to_noise (plan, image, -7, 40.0, out, &overloads);
  g_assert_cmpint (overloads, ==, 1);
  g_assert_cmpint (out[15], ==, 65535);
  g_assert_cmpint (out[0], ==, 40);
  g_assert_cmpfloat (photons, >, 1e7 * 0.99);
  for (int k = 1; k < 15; k++)
    g_assert_cmpfloat (fabs (out[k] - 40.0 - 100.0 * k), <, 6 * sqrt (100.0 * k) + 1);
  /* the same seed, the same draws */
  nb_image_to_noise (plan, image, -7, 40.0, again, &overloads);
  g_assert_cmpmem (out, sizeof out, again, sizeof again);
  nb_plan_destroy (plan);
}

int
main (int argc, char *argv[])
{
  g_autoptr (GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);

  scratch_dir = g_dir_make_tmp ("test-kernel-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/kernel/on-bragg", test_on_bragg);
  g_test_add_func ("/kernel/independent-pixels", test_independent_pixels);
  g_test_add_func ("/kernel/threads/phi", test_threads_phi);
  g_test_add_func ("/kernel/threads/interpolation-fallback", test_threads_interpolation_fallback);
  g_test_add_func ("/kernel/quirk/phi-carry-over", test_phi_carry_over);
  g_test_add_func ("/kernel/quirk/water-background", test_water_background);
  g_test_add_func ("/kernel/quirk/water-background-physical", test_water_background_physical);
  g_test_add_func ("/kernel/quirk/sourcefile-comments-dmin", test_sourcefile_comments_dmin);
  g_test_add_func ("/kernel/quirk/sourcefile-comments-polar", test_sourcefile_comments_polar);
  g_test_add_func ("/kernel/roi", test_roi);
  g_test_add_func ("/kernel/mask", test_mask);
  g_test_add_func ("/kernel/mask-solid-angle", test_mask_solid_angle);
  g_test_add_func ("/kernel/mask-none-kept", test_mask_none_kept);
  g_test_add_func ("/kernel/progress", test_progress);
  g_test_add_func ("/kernel/cancel", test_cancel);
  g_test_add_func ("/kernel/repeat-and-update", test_repeat_and_update);
  g_test_add_func ("/output/statistics", test_statistics);
  g_test_add_func ("/output/statistics-lanes", test_statistics_lanes);
  g_test_add_func ("/output/first-non-finite", test_first_non_finite);
  g_test_add_func ("/output/to-smv", test_to_smv);
  g_test_add_func ("/output/to-pgm", test_to_pgm);
  g_test_add_func ("/output/to-noise", test_to_noise);

  status = g_test_run ();

  g_rmdir (scratch_dir);
  g_free (scratch_dir);
  return status;
}
