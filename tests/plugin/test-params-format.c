/* test-params-format.c: nb_params_to_argv() against nb_params_parse_argv().
 *
 * Round trip: flags -> params -> nb_params_to_argv() -> params on fresh
 * defaults must give back the same parameters, bit for bit, over the golden
 * cases' command lines, hand-picked flag sets that exercise the parser's side
 * effects (pivots, conventions, Q-29, Q-30, output switches) and thousands of
 * random flag sets from a seeded generator.  Fields without effect are left
 * out of the command line and of the comparison (see assert_params_equal).
 * Flags appended to a formatted command line must act as they act on the
 * parameters it came from (Q-29 must not turn them into misset angles).
 */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "nanobragg.h"

/* Every owned string of nb_params, in a fixed order. */
#define N_STRINGS 12
static void
strings_of (nb_params *p, char ***out)
{
  char **s[N_STRINGS] = { &p->mat_file,    &p->hkl_file, &p->dump_file, &p->stol_file,
                          &p->source_file, &p->img_file, &p->mask_file, &p->floatfile,
                          &p->intfile,     &p->pgmfile,  &p->noisefile, &p->pngfile };
  memcpy (out, s, sizeof s);
}

/* Whether the mosaic seed changes a rendering of @p: with more than one
 * mosaic domain and a spread (a spread without a domain count gives 10
 * domains), or for a noise image whose positive stored seed (-seed -N)
 * continues the generator table the mosaic draws leave. */
static gboolean
mosaic_seed_matters (const nb_params *p)
{
  return (p->mosaic_spread > 0.0 && p->mosaic_domains != 1) || (p->calculate_noise && p->seed > 0);
}

/* Sets the fields of @p that have no effect to one value, so that two sets
 * differing only there compare equal:
 *   misset_seed  without -misset random (no orientation is drawn);
 *   misset[]     with -misset random (the drawn angles replace them);
 *   mosaic_seed  when mosaic_seed_matters() is false;
 *   seed         without a noise image (the only user of the noise seed).
 * Their defaults come from the clock, so nb_params_to_argv() leaves them out. */
static void
clear_ineffective (nb_params *p)
{
  gboolean mosaic_seed = mosaic_seed_matters (p);

  if (!p->misset_random)
    p->misset_seed = 0;
  else
    p->misset[0] = p->misset[1] = p->misset[2] = 0.0;
  if (!mosaic_seed)
    p->mosaic_seed = 0;
  if (!p->calculate_noise)
    p->seed = 0;
}

/* Asserts @a and @b hold the same numbers (bit for bit) and strings, but
 * for the fields without effect (clear_ineffective()). */
static void
assert_params_equal (const nb_params *a, const nb_params *b, const char *what)
{
  nb_params ca, cb;
  char **sa[N_STRINGS], **sb[N_STRINGS];

  memcpy (&ca, a, sizeof ca);
  memcpy (&cb, b, sizeof cb);
  clear_ineffective (&ca);
  clear_ineffective (&cb);
  strings_of (&ca, sa);
  strings_of (&cb, sb);
  for (int i = 0; i < N_STRINGS; i++)
    {
      if (g_strcmp0 (*sa[i], *sb[i]) != 0)
        g_error ("%s: string %d: '%s' != '%s'", what, i, *sa[i], *sb[i]);
      *sa[i] = *sb[i] = NULL;
    }
  if (memcmp (&ca, &cb, sizeof ca) != 0)
    {
      const unsigned char *x = (const unsigned char *) &ca, *y = (const unsigned char *) &cb;
      size_t off = 0;

      while (x[off] == y[off])
        off++;
      g_error ("%s: parameters differ from byte %zu on", what, off);
    }
}

static void
parse_or_die (nb_params *p, int argc, const char *const *argv, const char *what)
{
  nb_error err = { 0 };

  nb_params_init (p);
  if (nb_params_parse_argv (p, argc, argv, &err) != NB_OK)
    g_error ("%s: %s", what, err.message);
}

/* Flags a user appends to a copied command line: numbers after a trailing
 * -misset_seed would become misset angles. */
static const char *const appended[] = { "-distance", "123.5", "-N", "3" };

/* Parses "nanobragg @cmdline", formats, re-parses, compares; then appends
 * flags to the formatted line and compares with them applied to the first
 * parse. */
static void
check_round_trip_argv (int argc, const char *const *argv, const char *what)
{
  nb_params first, second;
  char **formatted;
  int n = 0;

  parse_or_die (&first, argc, argv, what);
  formatted = nb_params_to_argv (&first, &n);
  g_assert_nonnull (formatted);
  g_assert_cmpint (n, >=, 1);
  g_assert_cmpstr (formatted[0], ==, "nanobragg");
  g_assert_null (formatted[n]);
  {
    g_autofree char *joined = g_strjoinv (" ", formatted);
    g_autofree char *context = g_strdup_printf ("%s -> %s", what, joined);
    g_autofree char *context2 = g_strdup_printf ("%s + appended flags", context);
    g_autoptr (GPtrArray) longer = g_ptr_array_new ();
    const char *extra[G_N_ELEMENTS (appended) + 1] = { "nanobragg" };
    nb_error err = { 0 };

    parse_or_die (&second, n, (const char *const *) formatted, context);
    assert_params_equal (&first, &second, context);
    nb_params_clear (&second);

    for (int i = 0; i < n; i++)
      g_ptr_array_add (longer, formatted[i]);
    for (gsize i = 0; i < G_N_ELEMENTS (appended); i++)
      {
        g_ptr_array_add (longer, (gpointer) appended[i]);
        extra[i + 1] = appended[i];
      }
    g_ptr_array_add (longer, NULL);
    parse_or_die (&second, (int) longer->len - 1, (const char *const *) longer->pdata, context2);
    if (nb_params_parse_argv (&first, G_N_ELEMENTS (extra), extra, &err) != NB_OK)
      g_error ("%s: %s", context2, err.message);
    assert_params_equal (&first, &second, context2);
  }
  nb_argv_free (formatted);
  nb_params_clear (&first);
  nb_params_clear (&second);
}

static void
check_round_trip (const char *cmdline)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *full = g_strconcat ("nanobragg ", cmdline, NULL);
  g_auto (GStrv) argv = NULL;
  int argc = 0;

  g_assert_true (g_shell_parse_argv (full, &argc, &argv, &error));
  check_round_trip_argv (argc, (const char *const *) argv, cmdline);
}

static void
test_defaults (void)
{
  nb_params p;
  char **argv;
  int n = 0;

  nb_params_init (&p);
  argv = nb_params_to_argv (&p, &n);
  /* only the noise seed: nanoBragg writes a noise image by default */
  g_assert_cmpint (n, ==, 3);
  g_assert_cmpstr (argv[1], ==, "-seed");
  nb_argv_free (argv);
  nb_params_clear (&p);
  nb_argv_free (NULL);
}

/* Each seed is written exactly when it changes the result, and -misset_seed
 * is never the last flag. */
static void
test_seeds (void)
{
  static const struct
  {
    const char *cmdline;
    gboolean misset_seed, mosaic_seed, seed;
  } cases[] = {
    { "-nonoise", FALSE, FALSE, FALSE },
    { "-nonoise -misset_seed 7 -mosaic_seed 8 -seed 9", FALSE, FALSE, FALSE },
    { "-nonoise -misset random -misset_seed 7", TRUE, FALSE, FALSE },
    { "-nonoise -misset_seed 7 -misset random", TRUE, FALSE, FALSE },
    { "-nonoise -mosaic 0.5 -mosaic_seed 8", FALSE, TRUE, FALSE },
    { "-nonoise -mosaic 0.5 -mosaic_domains 4", FALSE, TRUE, FALSE },
    { "-nonoise -mosaic 0.5 -mosaic_domains 1", FALSE, FALSE, FALSE },
    { "-nonoise -mosaic 0 -mosaic_domains 5", FALSE, FALSE, FALSE },
    { "-nonoise -mosaic_domains 5", FALSE, FALSE, FALSE },
    { "-noisefile n.img -seed 9", FALSE, FALSE, TRUE },
    { "-seed -9", FALSE, TRUE, TRUE }, /* a positive stored seed continues the mosaic draws */
    { "-physical -nonoise -misset random", TRUE, FALSE, FALSE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *full = g_strconcat ("nanobragg ", cases[i].cmdline, NULL);
      g_auto (GStrv) in = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *joined = NULL;
      nb_params p;
      char **out;
      int argc = 0, n = 0;

      g_assert_true (g_shell_parse_argv (full, &argc, &in, &error));
      parse_or_die (&p, argc, (const char *const *) in, cases[i].cmdline);
      out = nb_params_to_argv (&p, &n);
      joined = g_strjoinv (" ", out);
      g_test_message ("%s -> %s", cases[i].cmdline, joined);
      g_assert_cmpint (g_strv_contains ((const char *const *) out, "-misset_seed"), ==,
                       cases[i].misset_seed);
      g_assert_cmpint (g_strv_contains ((const char *const *) out, "-mosaic_seed"), ==,
                       cases[i].mosaic_seed);
      g_assert_cmpint (g_strv_contains ((const char *const *) out, "-seed"), ==, cases[i].seed);
      if (cases[i].misset_seed)
        g_assert_nonnull (strstr (joined, " -misset random"));
      g_assert_cmpstr (out[n - 2], !=, "-misset_seed");
      nb_argv_free (out);
      nb_params_clear (&p);
    }
}

static void
test_readable_numbers (void)
{
  const char *argv[] = { "nanobragg", "-distance", "150.3", "-pixel", "0.172", "-lambda",
                         "1.54",      "-misset",   "10",    "20",     "30",    NULL };
  nb_params p;
  char **out;
  g_autofree char *joined = NULL;

  parse_or_die (&p, 11, argv, "readable");
  out = nb_params_to_argv (&p, NULL);
  joined = g_strjoinv (" ", out);
  /* the shortest decimal that reads back exactly, not 17 digits of noise */
  g_assert_nonnull (strstr (joined, "-distance 150.3 "));
  g_assert_nonnull (strstr (joined, "-pixel 0.172 "));
  g_assert_nonnull (strstr (joined, "-lambda 1.54 "));
  g_assert_nonnull (strstr (joined, "-misset 10 20 30 "));
  nb_argv_free (out);
  nb_params_clear (&p);
}

static void
test_golden_cases (void)
{
  const char *dir = g_getenv ("NB_GOLDEN_DIR");
  g_autofree char *path = NULL, *contents = NULL;
  g_auto (GStrv) lines = NULL;
  int cases = 0;

  if (dir == NULL)
    {
      g_test_skip ("NB_GOLDEN_DIR is not set");
      return;
    }
  path = g_build_filename (dir, "cases.tsv", NULL);
  if (!g_file_get_contents (path, &contents, NULL, NULL))
    {
      g_test_skip ("no golden cases.tsv");
      return;
    }
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *tab = strchr (lines[i], '\t');

      if (tab == NULL)
        continue;
      check_round_trip (tab + 1);
      cases++;
    }
  g_assert_cmpint (cases, >, 30);
}

/* Flag sets where the parser's side effects and order matter. */
static void
test_side_effects (void)
{
  static const char *const cases[] = {
    "-xds",
    "-xds -distance 150", /* -distance pivots about the beam */
    "-distance 150 -xds",
    "-Xbeam 30 -Ybeam 40 -pivot sample",
    "-ORGX 100 -ORGY 120 -pivot beam",
    "-close_distance 90 -distance 95",
    "-twotheta 15 -pivot beam",
    "-twotheta_axis 0 0 -1", /* also -twotheta 0 and pivot sample */
    "-twotheta_axis 3 1 0 -twotheta 0",
    "-twotheta_axis 3 1 0 -physical",
    "-twotheta_axis 1 0 0 -twotheta 7 -dials",
    "-fdet_vector 0 0 1", /* CUSTOM with the default vector */
    "-fdet_vector 0 0.2588 0.9659 -sdet_vector 0 -0.9659 0.2588 -odet_vector 1 0 0 -mosflm",
    "-beam_vector 1 0.01 0 -polar_vector 0 1 0 -spindle_axis 0 1 0 -pix0_vector 0.1 0.02 -0.03",
    "-misset_seed 314 -misset random",
    "-misset 1 2 3 -misset random",
    "-misset_seed 5 6 7", /* the seed and two numbers as angles */
    "-misset -0 0 -0",
    "-polar 0.3 -nopolar",
    "-nopolar -polar 0.3",
    "-detector_abs inf -detector_thick 100",
    "-detector_thick 100 -detector_abs 0",
    "-detector_thick 300 -detector_absorb 200 -detector_thicksteps 3",
    "-noisefile n.img -nonoise -pgmfile p.pgm -nopgm",
    "-nopgm -pgmscale 2",
    "-printout_pixel 10 20",
    "-printout",
    "-roi 40 200 60 180",
    "-Na 3 -Nb 4 -Nc 5",
    "-N 7",
    "-N 0",
    "-round_xtal -fudge 0.5",
    "-gauss_xtal",
    "-tophat_spots",
    "-interpolate",
    "-nointerpolate",
    "-hkl a.hkl -dump F.bin -default_F 3",
    "-4stol water.stol",
    "-Q water.stol",
    "-stol water.stol",
    "-mat A.mat -sourcefile s.txt",
    "-energy 12398.42",
    "-wavelength 1.033",
    "-divergence 2 -divsteps 4 -square_div",
    "-hdivrange 2 -vdivrange 1 -hdivsteps 3 -vdivsteps 5 -hdivstep 0.5 -vdivstep 0.25",
    "-dispersion 2 -dispsteps 5",
    "-flux 1e12 -exposure 2 -beamsize 0.05",
    "-fluence 1e28 -water 0.3",
    "-phi 5 -osc 2 -phistep 0.5 -phisteps 4",
    "-oversample 3 -oversample_thick -oversample_polar -oversample_omega",
    "-dmin 3",
    "-detsize 50 -pixel 0.172",
    "-detsize_f 50 -detsize_s 60",
    "-detpixels_f 300 -detpixels_s 200",
    "-detpixels 2048",
    "-curved_det -point_pixel",
    "-detector_rotx 5 -detector_roty 3 -detector_rotz 2",
    "-xtalsize 0.0003",
    "-sample_x 0.001 -sample_y 0.002 -sample_z 0.003",
    "-floatfile f.bin -intfile i.img -pngfile p.png -scale 2.5 -adc 10 -seed 12345",
    "-mosaic 0.2 -mosaic_domains 5 -mosaic_seed 777",
    "-noprogress -stats -precision single",
    "-precision exact -memory_budget 512",
    "-precision double",
    "-cell 63.4 63.4 83.8 90 90 120 -lambda 1.0 -N 10",
    "-cell 100",
    "-cell 70 80 90 85 95 105 -misset 10 5 3",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    check_round_trip (cases[i]);
}

/* ---- random flag sets ---- */

typedef enum
{
  V_NONE,
  V_REAL, /* one number in [lo, hi] */
  V_INT,  /* one whole number in [lo, hi] */
  V_VEC3,
  V_CELL,
  V_MISSET,
  V_ROI,
  V_INT2,
  V_FILE,
  V_WORD, /* one of words[] */
} value_kind;

typedef struct
{
  const char *flag;
  value_kind kind;
  double lo, hi;
  const char *words[3];
} flag_spec;

static const flag_spec flags[] = {
  { "-Na", V_INT, 0, 50 },
  { "-Nb", V_INT, 0, 50 },
  { "-Nc", V_INT, 0, 50 },
  { "-N", V_INT, 0, 50 },
  { "-cell", V_CELL },
  { "-misset", V_MISSET },
  { "-samplesize", V_REAL, 0, 0.1 },
  { "-sample_x", V_REAL, 0, 0.1 },
  { "-sample_y", V_REAL, 0, 0.1 },
  { "-sample_z", V_REAL, 0, 0.1 },
  { "-Xbeam", V_REAL, -50, 150 },
  { "-Ybeam", V_REAL, -50, 150 },
  { "-Xclose", V_REAL, 0, 100 },
  { "-Yclose", V_REAL, 0, 100 },
  { "-ORGX", V_REAL, -100, 2000 },
  { "-ORGY", V_REAL, -100, 2000 },
  { "-pivot", V_WORD, 0, 0, { "beam", "sample" } },
  { "-mosflm", V_NONE },
  { "-xds", V_NONE },
  { "-adxv", V_NONE },
  { "-denzo", V_NONE },
  { "-dials", V_NONE },
  { "-fdet_vector", V_VEC3 },
  { "-sdet_vector", V_VEC3 },
  { "-odet_vector", V_VEC3 },
  { "-beam_vector", V_VEC3 },
  { "-polar_vector", V_VEC3 },
  { "-spindle_axis", V_VEC3 },
  { "-twotheta_axis", V_VEC3 },
  { "-pix0_vector", V_VEC3 },
  { "-distance", V_REAL, 10, 1000 },
  { "-close_distance", V_REAL, 10, 1000 },
  { "-detector_abs", V_REAL, 0, 1000 },
  { "-detector_thick", V_REAL, 0, 1000 },
  { "-detector_thicksteps", V_INT, 0, 10 },
  { "-twotheta", V_REAL, -90, 90 },
  { "-detector_rotx", V_REAL, -180, 180 },
  { "-detector_roty", V_REAL, -180, 180 },
  { "-detector_rotz", V_REAL, -180, 180 },
  { "-detsize", V_REAL, 1, 400 },
  { "-detsize_f", V_REAL, 1, 400 },
  { "-detsize_s", V_REAL, 1, 400 },
  { "-detpixels", V_INT, 1, 4096 },
  { "-detpixels_f", V_INT, 1, 4096 },
  { "-detpixels_s", V_INT, 1, 4096 },
  { "-curved_det", V_NONE },
  { "-pixel", V_REAL, 0.01, 1 },
  { "-point_pixel", V_NONE },
  { "-polar", V_REAL, -1, 1 },
  { "-nopolar", V_NONE },
  { "-oversample_thick", V_NONE },
  { "-oversample_polar", V_NONE },
  { "-oversample_omega", V_NONE },
  { "-oversample", V_INT, 0, 10 },
  { "-roi", V_ROI },
  { "-lambda", V_REAL, 0.3, 6 },
  { "-energy", V_REAL, 2000, 40000 },
  { "-fluence", V_REAL, 0, 1e30 },
  { "-flux", V_REAL, 0, 1e14 },
  { "-exposure", V_REAL, 0, 10 },
  { "-beamsize", V_REAL, 0, 1 },
  { "-mosaic", V_REAL, 0, 2 },
  { "-mosaic_domains", V_INT, 0, 50 },
  { "-dispersion", V_REAL, 0, 5 },
  { "-dispsteps", V_INT, 0, 10 },
  { "-divergence", V_REAL, 0, 5 },
  { "-hdivrange", V_REAL, 0, 5 },
  { "-vdivrange", V_REAL, 0, 5 },
  { "-hdivstep", V_REAL, 0, 1 },
  { "-hdivsteps", V_INT, 0, 10 },
  { "-vdivstep", V_REAL, 0, 1 },
  { "-vdivsteps", V_INT, 0, 10 },
  { "-divsteps", V_INT, 0, 10 },
  { "-round_div", V_NONE },
  { "-square_div", V_NONE },
  { "-adc", V_REAL, -100, 100 },
  { "-phi", V_REAL, -360, 360 },
  { "-osc", V_REAL, 0, 10 },
  { "-phistep", V_REAL, 0, 1 },
  { "-phisteps", V_INT, 0, 20 },
  { "-dmin", V_REAL, 0, 5 },
  { "-mat", V_FILE },
  { "-hkl", V_FILE },
  { "-default_F", V_REAL, 0, 1000 },
  { "-dump", V_FILE },
  { "-stol", V_FILE },
  { "-4stol", V_FILE },
  { "-Q", V_FILE },
  { "-sourcefile", V_FILE },
  { "-floatfile", V_FILE },
  { "-intfile", V_FILE },
  { "-pgmfile", V_FILE },
  { "-noisefile", V_FILE },
  { "-pngfile", V_FILE },
  { "-nonoise", V_NONE },
  { "-nopgm", V_NONE },
  { "-scale", V_REAL, 0, 10 },
  { "-pgmscale", V_REAL, 0, 10 },
  { "-printout", V_NONE },
  { "-printout_pixel", V_INT2 },
  { "-noprogress", V_NONE },
  { "-progress", V_NONE },
  { "-interpolate", V_NONE },
  { "-nointerpolate", V_NONE },
  { "-round_xtal", V_NONE },
  { "-square_xtal", V_NONE },
  { "-gauss_xtal", V_NONE },
  { "-tophat_spots", V_NONE },
  { "-fudge", V_REAL, 0.1, 3 },
  { "-seed", V_INT, -100000, 100000 },
  { "-mosaic_seed", V_INT, -100000, 100000 },
  { "-misset_seed", V_INT, 1, 100000 },
  { "-water", V_REAL, 0, 100 },
  { "-precision", V_WORD, 0, 0, { "single", "double", "exact" } },
  { "-physical", V_NONE },
  { "-stats", V_NONE },
  { "-memory_budget", V_REAL, 1, 10000 },
};

/* A number as a user would type it: a few digits, sometimes many. */
static char *
random_number (double lo, double hi)
{
  double v = g_test_rand_double_range (lo, hi);

  switch (g_test_rand_int_range (0, 3))
    {
      case 0:
        return g_strdup_printf ("%.3g", v);
      case 1:
        return g_strdup_printf ("%.6f", v);
      default:
        return g_strdup_printf ("%.17g", v);
    }
}

static void
add_flag (GPtrArray *argv, const flag_spec *f)
{
  g_ptr_array_add (argv, g_strdup (f->flag));
  switch (f->kind)
    {
      case V_NONE:
        break;
      case V_REAL:
        g_ptr_array_add (argv, random_number (f->lo, f->hi));
        break;
      case V_INT:
        g_ptr_array_add (
            argv, g_strdup_printf ("%d", g_test_rand_int_range ((int) f->lo, (int) f->hi + 1)));
        break;
      case V_VEC3:
        for (int k = 0; k < 3; k++)
          g_ptr_array_add (argv, random_number (-1, 1));
        break;
      case V_CELL:
        for (int k = 0; k < 3; k++)
          g_ptr_array_add (argv, random_number (20, 200));
        for (int k = 0; k < 3; k++)
          g_ptr_array_add (argv, random_number (60, 120));
        break;
      case V_MISSET:
        if (g_test_rand_int_range (0, 5) == 0)
          g_ptr_array_add (argv, g_strdup ("random"));
        else
          for (int k = 0; k < 3; k++)
            g_ptr_array_add (argv, random_number (-180, 180));
        break;
      case V_ROI:
        for (int k = 0; k < 4; k++)
          g_ptr_array_add (argv, g_strdup_printf ("%d", g_test_rand_int_range (0, 500)));
        break;
      case V_INT2:
        for (int k = 0; k < 2; k++)
          g_ptr_array_add (argv, g_strdup_printf ("%d", g_test_rand_int_range (0, 500)));
        break;
      case V_FILE:
        g_ptr_array_add (argv, g_strdup_printf ("dir %d/file_%d.dat", g_test_rand_int_range (0, 9),
                                                g_test_rand_int_range (0, 1000)));
        break;
      case V_WORD:
        {
          int n = f->words[2] != NULL ? 3 : 2;
          g_ptr_array_add (argv, g_strdup (f->words[g_test_rand_int_range (0, n)]));
        }
        break;
    }
}

static void
test_random (void)
{
  int sets = g_test_thorough () ? 20000 : 3000;

  for (int s = 0; s < sets; s++)
    {
      g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
      int n_flags = g_test_rand_int_range (1, 25);
      g_autofree char *what = NULL;

      g_ptr_array_add (argv, g_strdup ("nanobragg"));
      for (int i = 0; i < n_flags; i++)
        add_flag (argv, &flags[g_test_rand_int_range (0, G_N_ELEMENTS (flags))]);
      g_ptr_array_add (argv, NULL);
      what = g_strjoinv (" ", (char **) argv->pdata);
      check_round_trip_argv ((int) argv->len - 1, (const char *const *) argv->pdata, what);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/params-format/defaults", test_defaults);
  g_test_add_func ("/params-format/seeds", test_seeds);
  g_test_add_func ("/params-format/readable-numbers", test_readable_numbers);
  g_test_add_func ("/params-format/golden-cases", test_golden_cases);
  g_test_add_func ("/params-format/side-effects", test_side_effects);
  g_test_add_func ("/params-format/random", test_random);
  return g_test_run ();
}
