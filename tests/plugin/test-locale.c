/* test-locale.c: numbers on the command line read and write with a decimal
 * point in a host whose LC_NUMERIC uses a decimal comma.
 *
 * A GTK or Python program calls setlocale (LC_ALL, ""): in de_DE strtod()
 * reads "1.5" as 1 and printf() writes 1.5 as "1,5".  The engine's flag
 * parser (nb_params_parse_argv), its formatter (nb_params_to_argv) and
 * BraggscopeSimulation's set_from_args/to_args must not change with it.  The
 * test needs a comma-decimal locale installed (Debian: the locales package,
 * de_DE.UTF-8 enabled in /etc/locale.gen, then locale-gen) and is skipped,
 * saying so, where there is none.
 */
#include <locale.h>
#include <stdlib.h>

#include "plugin-test-util.h"

/* degrees per radian as the parser computes it (180 M_1_PI) */
#define RTD (180.0 * 0.31830988618379067154)

static const char *const comma_locales[] = {
  "de_DE.UTF-8", "de_DE.utf8",  "de_DE",       "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8",
  "es_ES.UTF-8", "it_IT.UTF-8", "pt_BR.UTF-8", "ru_RU.UTF-8", NULL,
};

static const char *comma_locale; /* the one in use, or NULL */

/* Switches LC_NUMERIC to the first installed locale with a decimal comma. */
static const char *
use_comma_locale (void)
{
  for (int i = 0; comma_locales[i] != NULL; i++)
    if (setlocale (LC_NUMERIC, comma_locales[i]) != NULL &&
        strcmp (localeconv ()->decimal_point, ",") == 0)
      return comma_locales[i];
  setlocale (LC_NUMERIC, "C");
  return NULL;
}

static gboolean
skip_without_comma_locale (void)
{
  if (comma_locale != NULL)
    {
      g_assert_nonnull (setlocale (LC_NUMERIC, comma_locale));
      /* the locale is really in force: the C library itself misreads "1.5" */
      g_assert_cmpfloat (strtod ("1.5", NULL), ==, 1.0);
      return FALSE;
    }
  g_test_skip ("no locale with a decimal comma is installed (tried de_DE.UTF-8, fr_FR.UTF-8, "
               "nl_NL.UTF-8 and others; Debian: enable de_DE.UTF-8 in /etc/locale.gen and run "
               "locale-gen)");
  return TRUE;
}

/* Flags with fractional numbers in every path of the parser: plain values,
 * several values of one flag, a negative number taken as a value rather
 * than a flag, and Q-29 (-misset_seed reading the next tokens as angles). */
static const char *const flags[] = {
  "nanobragg", "-lambda", "1.5",    "-distance", "150.25",   "-pixel", "0.172",
  "-cell",     "63.4",    "63.4",   "83.8",      "90",       "90",     "120",
  "-mosaic",   "0.05",    "-Xbeam", "-12.5",     "-fluence", "1.5e24", "-misset_seed",
  "45",        "-2.5",    "3.25",   NULL,
};

static void
parse (nb_params *p, const char *const *argv)
{
  nb_error err = { 0 };

  nb_params_init (p);
  if (nb_params_parse_argv (p, (int) g_strv_length ((char **) argv), argv, &err) != NB_OK)
    g_error ("%s", err.message);
}

static void
test_engine_parse (void)
{
  nb_params c_locale, comma;
  const char *bad[] = { "nanobragg", "-lambda", "1,5", NULL };
  nb_params p;
  nb_error err = { 0 };

  setlocale (LC_NUMERIC, "C");
  parse (&c_locale, flags);
  if (skip_without_comma_locale ())
    {
      nb_params_clear (&c_locale);
      return;
    }
  parse (&comma, flags);

  g_assert_cmpfloat (comma.lambda0, ==, 1.5 / 1e10);
  g_assert_cmpfloat (comma.distance, ==, 150.25 / 1000.0);
  g_assert_cmpfloat (comma.cell[2], ==, 83.8);
  g_assert_cmpfloat (comma.Xbeam, ==, -12.5 / 1000.0);
  g_assert_cmpfloat (comma.fluence, ==, 1.5e24);
  /* the seed and the two numbers after it became misset angles */
  g_assert_cmpfloat (comma.misset[0], ==, 45 / RTD);
  g_assert_cmpfloat (comma.misset[1], ==, -2.5 / RTD);
  g_assert_cmpfloat (comma.misset[2], ==, 3.25 / RTD);
  g_assert_cmpint (comma.misset_seed, ==, -45);
  /* and everything else, bit for bit, as in the C locale (the time-based
   * noise seed aside: both parses may straddle a second) */
  comma.seed = c_locale.seed;
  g_assert_cmpmem (&comma.cell, sizeof comma.cell, &c_locale.cell, sizeof c_locale.cell);
  g_assert_cmpmem (&comma.misset, sizeof comma.misset, &c_locale.misset, sizeof c_locale.misset);
  g_assert_cmpfloat (comma.pixel_size, ==, c_locale.pixel_size);
  g_assert_cmpfloat (comma.mosaic_spread, ==, c_locale.mosaic_spread);

  /* a decimal comma is not a number on the command line, in any locale */
  nb_params_init (&p);
  g_assert_cmpint (nb_params_parse_argv (&p, 3, bad, &err), ==, NB_ERR_USAGE);
  g_assert_nonnull (strstr (err.message, "'1,5'"));
  nb_params_clear (&p);

  setlocale (LC_NUMERIC, "C");
  nb_params_clear (&c_locale);
  nb_params_clear (&comma);
}

/* nb_params_to_argv writes "1.5" (not "1,5") and reads its numbers back
 * exactly. */
static void
test_engine_format (void)
{
  nb_params p, again;
  char **argv;
  g_autofree char *joined = NULL;

  if (skip_without_comma_locale ())
    return;
  parse (&p, flags);
  argv = nb_params_to_argv (&p, NULL);
  joined = g_strjoinv (" ", argv);
  g_test_message ("%s", joined);
  g_assert_nonnull (strstr (joined, "-lambda 1.5 "));
  g_assert_nonnull (strstr (joined, "-distance 150.25 "));
  g_assert_null (strchr (joined, ','));
  parse (&again, (const char *const *) argv);
  g_assert_cmpfloat (again.lambda0, ==, p.lambda0);
  g_assert_cmpfloat (again.distance, ==, p.distance);
  g_assert_cmpfloat (again.Xbeam, ==, p.Xbeam);
  nb_argv_free (argv);
  nb_params_clear (&p);
  nb_params_clear (&again);
  setlocale (LC_NUMERIC, "C");
}

/* The same through the plugin: set_from_args, the properties, to_args, and
 * a frame of the parameters. */
static void
test_simulation (void)
{
  const char *args[] = { "-default_F", "100",        "-cell",  "100",        "100",  "100",
                         "90",         "90",         "90",     "-lambda",    "1.25", "-N",
                         "5",          "-distance",  "100.5",  "-detpixels", "48",   "-pixel",
                         "0.45",       "-precision", "single", NULL };
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) out = NULL;
  g_autofree char *joined = NULL;
  double wavelength = 0.0, distance = 0.0, pixel = 0.0;
  BraggscopeFrame *frame;
  Watch w;

  if (skip_without_comma_locale ())
    return;
  g_assert_true (braggscope_simulation_set_from_args (sim, args, &error));
  g_assert_no_error (error);
  g_object_get (sim, "wavelength", &wavelength, "distance", &distance, "pixel-size", &pixel, NULL);
  g_assert_cmpfloat_with_epsilon (wavelength, 1.25, 1e-12);
  g_assert_cmpfloat_with_epsilon (distance, 100.5, 1e-12);
  g_assert_cmpfloat_with_epsilon (pixel, 0.45, 1e-12);

  out = braggscope_simulation_to_args (sim);
  joined = g_strjoinv (" ", out);
  g_assert_nonnull (strstr (joined, "-lambda 1.25 "));
  g_assert_nonnull (strstr (joined, "-distance 100.5 "));

  /* a comma is refused, naming the value */
  {
    const char *comma[] = { "-lambda", "1,25", NULL };
    g_autoptr (GError) bad = NULL;

    g_assert_false (braggscope_simulation_set_from_args (sim, comma, &bad));
    g_assert_error (bad, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
    g_assert_nonnull (strstr (bad->message, "1,25"));
  }

  /* the frame is the engine's image of the same flags, and carries them */
  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  frame = watch_wait_full (&w, 30);
  setlocale (LC_NUMERIC, "C");
  assert_frame_is_engine_image (frame, braggscope_frame_get_args (frame));
  g_assert_true (g_strv_equal ((const char *const *) braggscope_frame_get_args (frame),
                               (const char *const *) out));
  watch_clear (&w);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  comma_locale = use_comma_locale ();
  setlocale (LC_NUMERIC, "C");
  if (comma_locale != NULL)
    g_test_message ("comma-decimal locale: %s", comma_locale);

  g_test_add_func ("/locale/engine-parse", test_engine_parse);
  g_test_add_func ("/locale/engine-format", test_engine_format);
  g_test_add_func ("/locale/simulation", test_simulation);
  return g_test_run ();
}
