/* test-rng.c: nanoBragg's random streams, bit for bit.
 *
 * Expected values were printed (with %a, so they are exact) by a scratch
 * program outside the repository that linked the reference's own ran1(),
 * poidev(), gaussdev(), gammln(), mosaic_rotation_umat() and umat2misset()
 * from nanoBragg.c, compiled with gcc -O2 -ffp-contract=off on x86-64.  Each
 * case ran in a fresh process, so the reference's static table started at
 * iy = 0, as a fresh nb_ran1 / nb_noise_state does here.
 */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "base/nb-rng.h"

#define RTD (180.0 / G_PI)

typedef struct
{
  long seed;
  float first[5];
  float thousandth;
  long idum_after;
} Ran1Case;

/* reference: ./ref ran1 <seed> (five draws, then draw 1000, then idum) */
static const Ran1Case ran1_cases[] = {
  { -1,
    { 0x1.a9fbbcp-2, 0x1.78b02ep-4, 0x1.83483cp-1, 0x1.0f34dep-1, 0x1.dc622cp-1 },
    0x1.2721d8p-1,
    1222648128 },
  { -12345678,
    { 0x1.882fcp-1, 0x1.8043ccp-6, 0x1.2df0a6p-1, 0x1.11f8d6p-1, 0x1.f6e70ap-1 },
    0x1.cd14d4p-2,
    206479895 },
  { -45,
    { 0x1.6c7064p-1, 0x1.62bb8p-2, 0x1.70a00cp-1, 0x1.9d2092p-3, 0x1.16546p-3 },
    0x1.9e4dc4p-3,
    1332074585 },
  /* 0 and a positive seed on a fresh table both become 1, like -1. */
  { 0,
    { 0x1.a9fbbcp-2, 0x1.78b02ep-4, 0x1.83483cp-1, 0x1.0f34dep-1, 0x1.dc622cp-1 },
    0x1.2721d8p-1,
    1222648128 },
  { 7,
    { 0x1.a9fbbcp-2, 0x1.78b02ep-4, 0x1.83483cp-1, 0x1.0f34dep-1, 0x1.dc622cp-1 },
    0x1.2721d8p-1,
    1222648128 },
};

static void
test_ran1_seeds (void)
{
  for (gsize c = 0; c < G_N_ELEMENTS (ran1_cases); c++)
    {
      const Ran1Case *rc = &ran1_cases[c];
      nb_ran1 r;
      long idum = rc->seed;
      float v;
      int i;

      nb_ran1_init (&r);
      for (i = 0; i < 5; i++)
        {
          v = nb_ran1_next (&r, &idum);
          g_assert_cmpfloat (v, ==, rc->first[i]);
          g_assert_cmpfloat (v, >, 0.0f);
          g_assert_cmpfloat (v, <, 1.0f);
        }
      for (; i < 999; i++)
        nb_ran1_next (&r, &idum);
      g_assert_cmpfloat (nb_ran1_next (&r, &idum), ==, rc->thousandth);
      g_assert_cmpint (idum, ==, rc->idum_after);
    }
}

/* One table shared by several seed variables behaves like the reference's
 * static table: a positive seed continues the previous stream's shuffle.
 * reference: chained -1, -12345678, 7 in one process, three draws each. */
static void
test_ran1_shared_table (void)
{
  static const long seeds[3] = { -1, -12345678, 7 };
  static const float expect[3][3] = {
    { 0x1.a9fbbcp-2, 0x1.78b02ep-4, 0x1.83483cp-1 },
    { 0x1.882fcp-1, 0x1.8043ccp-6, 0x1.2df0a6p-1 },
    { 0x1.11f8d6p-1, 0x1.f6e70ap-1, 0x1.62d302p-1 },
  };
  static const long idum_after[3] = { 1551901393, 1312812850, 621132276 };
  nb_ran1 r;

  nb_ran1_init (&r);
  for (int s = 0; s < 3; s++)
    {
      long idum = seeds[s];

      for (int i = 0; i < 3; i++)
        g_assert_cmpfloat (nb_ran1_next (&r, &idum), ==, expect[s][i]);
      g_assert_cmpint (idum, ==, idum_after[s]);
    }
}

/* Independent tables give independent streams: the same seed on two tables
 * gives the same numbers whatever the other table did. */
static void
test_ran1_independent (void)
{
  nb_ran1 a, b;
  long ia = -99, ib = -1, ib2;

  nb_ran1_init (&a);
  nb_ran1_init (&b);
  for (int i = 0; i < 10; i++)
    nb_ran1_next (&b, &ib);
  ib2 = -99;
  for (int i = 0; i < 100; i++)
    g_assert_cmpfloat (nb_ran1_next (&a, &ia), ==, nb_ran1_next (&b, &ib2));
}

typedef struct
{
  float xm;
  int n;
  float first[4];
  double sum;
  long idum_after;
} PoiCase;

/* reference: ./ref poi -12345 <xm> <n>: first four deviates, exact sum of
 * all n (as a double) and idum afterwards. */
static const PoiCase poi_cases[] = {
  /* a zero pixel: always 0, but one draw per call */
  { 0.0f, 1000, { 0, 0, 0, 0 }, 0x0p+0, 1076069044 },
  /* direct method (< 12) */
  { 3.5f, 100000, { 0x1.cp+2, 0x1.8p+1, 0x1p+0, 0x1.8p+2 }, 0x1.563a8p+18, 1445306794 },
  /* rejection method */
  { 50.0f, 100000, { 0x1.78p+5, 0x1.78p+5, 0x1.c8p+5, 0x1.78p+5 }, 0x1.3103e4p+22, 366991827 },
  { 1000.0f, 100000, { 0x1.eep+9, 0x1.ed8p+9, 0x1.028p+10, 0x1.efp+9 }, 0x1.7d703bp+26, 438246710 },
  /* Gaussian approximation above 1e6, not rounded to integers */
  { 2e6f,
    100000,
    { 0x1.e8340cp+20, 0x1.e87a9ap+20, 0x1.e8565p+20, 0x1.e88f2ap+20 },
    0x1.74875de866p+37,
    1445421341 },
};

static void
test_poidev_regimes (void)
{
  for (gsize c = 0; c < G_N_ELEMENTS (poi_cases); c++)
    {
      const PoiCase *pc = &poi_cases[c];
      nb_noise_state s;
      long idum = -12345;
      double sum = 0.0, mean;

      nb_noise_state_init (&s);
      for (int i = 0; i < pc->n; i++)
        {
          float v = nb_poidev (&s, pc->xm, &idum);

          if (i < 4)
            g_assert_cmpfloat (v, ==, pc->first[i]);
          sum += v;
        }
      g_assert_cmpfloat (sum, ==, pc->sum);
      g_assert_cmpint (idum, ==, pc->idum_after);

      /* and the mean is the Poisson mean, within a few standard errors */
      mean = sum / pc->n;
      g_assert_cmpfloat (fabs (mean - pc->xm), <=, 5.0 * sqrt ((pc->xm + 1e-9) / pc->n));
    }
}

/* Alternating means exercise the oldm cache and the gaussdev spare.
 * reference: ./ref mix (seed -2024, three passes over the twelve means). */
static void
test_poidev_mixed (void)
{
  static const float xs[12] = {
    0.0f, 3.5f, 3.5f, 50.0f, 50.0f, 0.1f, 2.5e6f, 2.5e6f, 2.5e6f, 20.0f, 11.99f, 12.0f,
  };
  static const float expect[3][12] = {
    { 0x0p+0, 0x1p+0, 0x1.4p+2, 0x1.08p+5, 0x1.68p+5, 0x0p+0, 0x1.3118cep+21, 0x1.313078p+21,
      0x1.31248ap+21, 0x1.5p+4, 0x1.6p+3, 0x1.ap+3 },
    { 0x0p+0, 0x1.8p+2, 0x1p+1, 0x1.9p+5, 0x1.e8p+5, 0x0p+0, 0x1.312c1p+21, 0x1.30c5c6p+21,
      0x1.312fp+21, 0x1.8p+4, 0x1.4p+3, 0x1.2p+4 },
    { 0x0p+0, 0x1.8p+1, 0x1p+1, 0x1.a8p+5, 0x1.7p+5, 0x0p+0, 0x1.310a9cp+21, 0x1.318852p+21,
      0x1.312368p+21, 0x1.ap+4, 0x1p+4, 0x1.8p+3 },
  };
  nb_noise_state s;
  long idum = -2024;

  nb_noise_state_init (&s);
  for (int r = 0; r < 3; r++)
    for (int i = 0; i < 12; i++)
      g_assert_cmpfloat (nb_poidev (&s, xs[i], &idum), ==, expect[r][i]);
  g_assert_cmpint (idum, ==, 1201360370);
}

/* The reference's noise image, rebuilt from its float image: golden case
 * noise_smv (-seed 12345 -adc 40, 256 x 256, no mask or ROI).  Its single
 * mosaic domain drew from the shared table first, but the negative noise seed
 * re-initialises the table, so a fresh state reproduces the stream. */
static void
test_poidev_golden_noise (void)
{
  const char *golden_dir = g_getenv ("NB_GOLDEN_DIR");
  char *fpath, *npath, *fdata = NULL, *ndata = NULL;
  gsize flen = 0, nlen = 0;
  nb_noise_state s;
  long seed = -12345;
  double photons = 0.0;

  if (golden_dir == NULL || G_BYTE_ORDER != G_LITTLE_ENDIAN)
    {
      /* the golden float file is little-endian */
      g_test_skip ("NB_GOLDEN_DIR is not set, or the host is big-endian");
      return;
    }
  fpath = g_build_filename (golden_dir, "noise_smv.float", NULL);
  npath = g_build_filename (golden_dir, "noise_smv.noise.img", NULL);
  if (!g_file_get_contents (fpath, &fdata, &flen, NULL) ||
      !g_file_get_contents (npath, &ndata, &nlen, NULL))
    {
      g_test_skip ("golden noise_smv files not found");
      goto out;
    }
  g_assert_cmpuint (flen, ==, 256 * 256 * sizeof (float));
  g_assert_cmpuint (nlen, ==, 512 + 256 * 256 * 2);

  nb_noise_state_init (&s);
  for (gsize i = 0; i < 256 * 256; i++)
    {
      float v;
      guint16 expect;
      float n;

      memcpy (&v, fdata + 4 * i, sizeof v);
      expect = (guint16) ((guint8) ndata[512 + 2 * i] | (guint8) ndata[512 + 2 * i + 1] << 8);
      n = nb_poidev (&s, v, &seed);
      photons += n;
      g_assert_cmpuint ((guint16) (n + 40.0), ==, expect);
    }
  /* the log says "310978 photons on noise image (0 overloads)" */
  g_assert_cmpfloat (photons, ==, 310978.0);

out:
  g_free (fdata);
  g_free (ndata);
  g_free (fpath);
  g_free (npath);
}

/* reference: ./ref gauss (seed -7, six deviates) */
static void
test_gaussdev (void)
{
  static const float expect[6] = {
    -0x1.8856ecp-3, -0x1.02974ep+0, -0x1.ed7adep-2, 0x1.143546p+1, -0x1.50ed4cp-2, 0x1.1cbb4ep-3,
  };
  nb_noise_state s;
  long idum = -7;

  nb_noise_state_init (&s);
  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (nb_gaussdev (&s, &idum), ==, expect[i]);
  g_assert_cmpint (idum, ==, 1092642215);
}

/* reference: ./ref gammln */
static void
test_gammln (void)
{
  static const float xs[6] = { 1.0f, 0.5f, 10.0f, 101.0f, 1000001.0f, 3.25f };
  static const float expect[6] = {
    0x0p+0, 0x1.250d04p-1, 0x1.99a892p+3, 0x1.6bbd48p+8, 0x1.87193cp+23, 0x1.df216ep-1,
  };

  for (int i = 0; i < 6; i++)
    g_assert_cmpfloat (nb_gammln (xs[i]), ==, expect[i]);
  /* ln(9!) as a sanity check of the formula itself */
  g_assert_cmpfloat_with_epsilon (nb_gammln (10.0f), log (362880.0), 1e-5);
}

static void
assert_rotation (const double u[9])
{
  /* U U^T = I and det U = +1 */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      {
        double d = u[3 * i] * u[3 * j] + u[3 * i + 1] * u[3 * j + 1] + u[3 * i + 2] * u[3 * j + 2];

        g_assert_cmpfloat_with_epsilon (d, i == j ? 1.0 : 0.0, 1e-12);
      }
  g_assert_cmpfloat_with_epsilon (u[0] * (u[4] * u[8] - u[5] * u[7]) -
                                      u[1] * (u[3] * u[8] - u[5] * u[6]) +
                                      u[2] * (u[3] * u[7] - u[4] * u[6]),
                                  1.0, 1e-12);
}

/* -misset random -misset_seed 45: the seed is stored negated.  The reference
 * binary prints "random orientation misset angles: 117.019769 38.419258
 * 3.411588 deg"; the matrix is from ./ref misset. */
static void
test_misset_random (void)
{
  static const double expect_u[9] = {
    0x1.906ee84c64e3dp-1, 0x1.28c63d2a793d2p-1,  -0x1.d49131f4441f3p-3,
    0x1.7df136c64ba6p-5,  -0x1.aea4a790b2542p-2, -0x1.cfe87c58f3f3dp-1,
    -0x1.3e299a512fd5p-1, 0x1.655bf36231b03p-1,  -0x1.6c7a565e6077ep-2,
  };
  static const double expect_m[3] = {
    0x1.056cb76e08758p+1,
    0x1.57515a3b205a3p-1,
    0x1.e7c7a4debc29dp-5,
  };
  nb_ran1 r;
  long idum = -45;
  double u[9], m[3];
  char text[128];

  nb_ran1_init (&r);
  nb_mosaic_rotation_umat (&r, 90.0f, &idum, u);
  for (int i = 0; i < 9; i++)
    g_assert_cmpfloat (u[i], ==, expect_u[i]);
  g_assert_cmpint (idum, ==, 1116085981);
  assert_rotation (u);

  nb_umat2misset (u, m);
  for (int i = 0; i < 3; i++)
    g_assert_cmpfloat (m[i], ==, expect_m[i]);
  g_snprintf (text, sizeof text, "%f %f %f", m[0] * RTD, m[1] * RTD, m[2] * RTD);
  g_assert_cmpstr (text, ==, "117.019769 38.419258 3.411588");
}

/* Three mosaic domains of 0.5 degrees, default mosaic seed.
 * reference: ./ref mosaic (seed -12345678, spread (float)(0.5*pi/180)). */
static void
test_mosaic_domains (void)
{
  static const double expect[3][9] = {
    { 0x1.fffb8f4d3b6c3p-1, 0x1.0d91bbd498edcp-7, -0x1.1dfa9eaad1f43p-12, -0x1.0d9772a6ed3d8p-7,
      0x1.fffb1f14ce6c3p-1, -0x1.54948e78843d5p-9, 0x1.078dc558c60c7p-12, 0x1.54dce4b9e6037p-9,
      0x1.ffff8d79bf0d2p-1 },
    { 0x1.fffb887ebdd5p-1, -0x1.05548f11035b3p-7, 0x1.17b36f52409a8p-9, 0x1.055d1ba047adfp-7,
      0x1.fffbd0ecf6c1fp-1, -0x1.ec4d0608ae1dbp-12, -0x1.173382eb1fe38p-9, 0x1.fe21b53447b63p-12,
      0x1.ffffafe71afb3p-1 },
    { 0x1.fffee0a3bbb92p-1, 0x1.7475c0fa827a8p-9, 0x1.8a5f439a174f4p-9, -0x1.76aaddfc10948p-9,
      0x1.fffd674481852p-1, 0x1.6f86d69824ecp-8, -0x1.88468a989e80cp-9, -0x1.701653eb54072p-8,
      0x1.fffd587802df6p-1 },
  };
  nb_ran1 r;
  long idum = -12345678;
  float spread = (float) (0.5 * G_PI / 180.0);

  nb_ran1_init (&r);
  for (int d = 0; d < 3; d++)
    {
      double u[9];

      nb_mosaic_rotation_umat (&r, spread, &idum, u);
      for (int i = 0; i < 9; i++)
        g_assert_cmpfloat (u[i], ==, expect[d][i]);
      assert_rotation (u);
    }
  g_assert_cmpint (idum, ==, 938582049);
}

/* Known rotations: misset angles of Rz(c) Ry(b) Rx(a) come back as (a, b, c). */
static void
test_umat2misset_known (void)
{
  double a = 0.3, b = -0.4, c = 1.1;
  double ca = cos (a), sa = sin (a), cb = cos (b), sb = sin (b), cc = cos (c), sc = sin (c);
  double u[9] = {
    cc * cb,
    cc * sb * sa - sc * ca,
    cc * sb * ca + sc * sa,
    sc * cb,
    sc * sb * sa + cc * ca,
    sc * sb * ca - cc * sa,
    -sb,
    cb * sa,
    cb * ca,
  };
  double m[3];
  double ident[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
  double scaled[9];

  nb_umat2misset (u, m);
  g_assert_cmpfloat_with_epsilon (m[0], a, 1e-12);
  g_assert_cmpfloat_with_epsilon (m[1], b, 1e-12);
  g_assert_cmpfloat_with_epsilon (m[2], c, 1e-12);

  /* rows are normalised first, so a scaled matrix gives the same angles */
  for (int i = 0; i < 9; i++)
    scaled[i] = 3.0 * u[i];
  nb_umat2misset (scaled, m);
  g_assert_cmpfloat_with_epsilon (m[0], a, 1e-12);
  g_assert_cmpfloat_with_epsilon (m[1], b, 1e-12);
  g_assert_cmpfloat_with_epsilon (m[2], c, 1e-12);

  nb_umat2misset (ident, m);
  g_assert_cmpfloat (m[0], ==, 0.0);
  g_assert_cmpfloat (m[1], ==, 0.0);
  g_assert_cmpfloat (m[2], ==, 0.0);
}

/* Matrices with empty rows take the reference's substitution path.
 * reference: umat2misset() on these four matrices, printed with %a. */
static void
test_umat2misset_degenerate (void)
{
  static const double cases[4][9] = {
    { 1, 0, 0, 0, 0, 0, 0, 0, 1 },
    { 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    { 2, 0.1, 0, 0, 0, 0, 0.2, 0.3, 1 },
    { 0, 0, 0, 0.3, 0.9, 0.1, -0.5, 0.2, 0.7 },
  };
  static const double expect[4][3] = {
    { 0x0p+0, -0x0p+0, 0x0p+0 },
    { 0x0p+0, -0x0p+0, 0x0p+0 },
    { 0x1.2a73a661eaf06p-2, -0x1.83a128f0ae8ecp-3, -0x1.8920b5650d443p-5 },
    { 0x1.1cfa95f7a8dcfp-2, 0x1.3420ef658f824p-1, 0x1.a0f2dd516caefp-2 },
  };

  for (int c = 0; c < 4; c++)
    {
      double m[3];

      nb_umat2misset (cases[c], m);
      for (int i = 0; i < 3; i++)
        g_assert_cmpfloat (m[i], ==, expect[c][i]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/rng/ran1/seeds", test_ran1_seeds);
  g_test_add_func ("/rng/ran1/shared-table", test_ran1_shared_table);
  g_test_add_func ("/rng/ran1/independent", test_ran1_independent);
  g_test_add_func ("/rng/poidev/regimes", test_poidev_regimes);
  g_test_add_func ("/rng/poidev/mixed", test_poidev_mixed);
  g_test_add_func ("/rng/poidev/golden-noise", test_poidev_golden_noise);
  g_test_add_func ("/rng/gaussdev", test_gaussdev);
  g_test_add_func ("/rng/gammln", test_gammln);
  g_test_add_func ("/rng/misset/random", test_misset_random);
  g_test_add_func ("/rng/misset/known", test_umat2misset_known);
  g_test_add_func ("/rng/misset/degenerate", test_umat2misset_degenerate);
  g_test_add_func ("/rng/mosaic/domains", test_mosaic_domains);

  return g_test_run ();
}
