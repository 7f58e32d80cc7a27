/* test-io.c: image files (raw float, SMV, PGM, PNG) and the atomic writer. */
#include <glib.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "nb-io.h"
#include "nb-test-util.h"

/* The PNG read-back needs libpng's headers and library; tests/meson.build
 * links libpng through the engine's dependency when the build has it. */
#if defined(NB_HAVE_PNG)
#define TEST_HAVE_LIBPNG 1
#elif defined(__has_include)
#if __has_include(<png.h>)
#define TEST_HAVE_LIBPNG 1
#endif
#endif

#ifdef TEST_HAVE_LIBPNG
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#endif

/* ------------------------------------------------------------------------ */
/* Fixture: an empty folder per test, removed afterwards                    */

typedef struct
{
  char *dir;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  GError *error = NULL;

  f->dir = g_dir_make_tmp ("nb-test-io-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  nb_test_remove_tree (f->dir);
  g_free (f->dir);
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

/* The names in @dir, sorted and joined with spaces: shows stray temp files. */
static char *
dir_listing (const char *dir)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;
  char *joined;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_dir_close (d);
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  joined = g_strjoinv (" ", (char **) names->pdata);
  g_ptr_array_unref (names);
  return joined;
}

static GBytes *
read_bytes (const char *path)
{
  GError *error = NULL;
  char *contents;
  gsize len;

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  return g_bytes_new_take (contents, len);
}

/* ------------------------------------------------------------------------ */
/* SMV                                                                       */

/* physics.md §19.6: the header the reference wrote for
 * -default_F 100 -cell 100 100 100 90 90 90 -detpixels 64 -distance 100
 * -lambda 1 -N 5 */
static const nb_smv_header example_header = {
  .size1 = 64,
  .size2 = 64,
  .pixel_size_mm = 0.1,
  .distance_mm = 100,
  .wavelength_A = 1,
  .beam_center_x_mm = 3.25,
  .beam_center_y_mm = 3.25,
  .adxv_center_x_mm = 3.3,
  .adxv_center_y_mm = 3.1,
  .mosflm_center_x_mm = 3.25,
  .mosflm_center_y_mm = 3.25,
  .denzo_x_beam_mm = 3.3,
  .denzo_y_beam_mm = 3.3,
  .dials_origin_mm = { -3.3, 3.3, -100 },
  .xds_orgx_px = 33.5,
  .xds_orgy_px = 33.5,
  .close_distance_mm = 100,
  .phi_deg = 0,
  .osc_start_deg = 0,
  .osc_range_deg = 0,
  .twotheta_deg = 0,
};

static const char example_text[] =
    "{\nHEADER_BYTES=512;\nDIM=2;\nBYTE_ORDER=little_endian;\nTYPE=unsigned_short;\n"
    "SIZE1=64;\nSIZE2=64;\nPIXEL_SIZE=0.1;\nDISTANCE=100;\nWAVELENGTH=1;\n"
    "BEAM_CENTER_X=3.25;\nBEAM_CENTER_Y=3.25;\nADXV_CENTER_X=3.3;\nADXV_CENTER_Y=3.1;\n"
    "MOSFLM_CENTER_X=3.25;\nMOSFLM_CENTER_Y=3.25;\nDENZO_X_BEAM=3.3;\nDENZO_Y_BEAM=3.3;\n"
    "DIALS_ORIGIN=-3.3,3.3,-100\nXDS_ORGX=33.5;\nXDS_ORGY=33.5;\nCLOSE_DISTANCE=100;\n"
    "PHI=0;\nOSC_START=0;\nOSC_RANGE=0;\nTWOTHETA=0;\nDETECTOR_SN=000;\nBEAMLINE=fake;\n}\f";

static void
assert_padded_header (const char out[512], const char *text)
{
  size_t len = strlen (text);

  g_assert_cmpmem (out, len, text, len);
  for (size_t i = len; i < 512; i++)
    g_assert_cmpint (out[i], ==, ' ');
}

static void
test_smv_header_example (void)
{
  char out[512];
  size_t len;

  memset (out, 'x', sizeof out);
  len = nb_smv_format_header (&example_header, out);
  g_assert_cmpuint (len, ==, strlen (example_text));
  assert_padded_header (out, example_text);
}

/* nb_smv_header_for_dials(): the beam centre where dxtbx's FormatSMVJHSim
 * reads it (fast = BEAM_CENTER_X + pixel, slow = SIZE2 x pixel -
 * BEAM_CENTER_Y + pixel, in mm) is the plan's Fbeam, Sbeam; ADC_OFFSET and
 * DIALS_ORIGIN's ';' are written; every other key keeps nanoBragg's value. */
static void
test_smv_header_for_dials (void)
{
  nb_plan_info in;
  nb_smv_header plain, h;
  char text[513], *line;

  memset (&in, 0, sizeof in);
  text[512] = '\0';
  in.fpixels = 64;
  in.spixels = 48;
  in.pixel_size = 1e-4;
  in.detsize_f = 6.4e-3;
  in.detsize_s = 4.8e-3;
  in.distance = in.close_distance = 0.08;
  in.lambda0 = 1.2e-10;
  in.Xbeam = 2.3e-3; /* MOSFLM: Fbeam = Ybeam + pixel/2, Sbeam = Xbeam + pixel/2 */
  in.Ybeam = 3.9e-3;
  in.Fbeam = 3.95e-3;
  in.Sbeam = 2.35e-3;
  in.dials_origin[0] = -3.95;
  in.dials_origin[1] = 2.35;
  in.dials_origin[2] = -80;
  in.ORGX = 40;
  in.ORGY = 24;
  in.osc = 0.5 / (180 / M_PI);
  nb_smv_header_from_info (&in, &plain);
  g_assert_cmpint (plain.dials, ==, 0);
  h = plain;
  nb_smv_header_for_dials (&in, 7, &h);

  g_assert_cmpint (h.dials, ==, 1);
  g_assert_cmpfloat (h.adc_offset, ==, 7);
  g_assert_cmpfloat_with_epsilon (h.beam_center_x_mm + h.pixel_size_mm, 3.95, 1e-12);
  g_assert_cmpfloat_with_epsilon (h.size2 * h.pixel_size_mm - h.beam_center_y_mm + h.pixel_size_mm,
                                  2.35, 1e-12);
  /* the rest is nanoBragg's header */
  h.beam_center_x_mm = plain.beam_center_x_mm;
  h.beam_center_y_mm = plain.beam_center_y_mm;
  h.dials = 0;
  h.adc_offset = 0;
  g_assert_cmpmem (&h, sizeof h, &plain, sizeof plain);

  nb_smv_header_for_dials (&in, 7, &h);
  g_assert_cmpuint (nb_smv_format_header (&h, text), <, 512);
  g_assert_nonnull (strstr (text, "\nBEAM_CENTER_X=3.85;\nBEAM_CENTER_Y=2.55;\n"));
  g_assert_nonnull (strstr (text, "\nDIALS_ORIGIN=-3.95,2.35,-80;\nXDS_ORGX=40;\n"));
  g_assert_nonnull (strstr (text, "\nTWOTHETA=0;\nADC_OFFSET=7;\nDETECTOR_SN=000;\n"));
  g_assert_nonnull (strstr (text, "\nMOSFLM_CENTER_X=2.3;\nMOSFLM_CENTER_Y=3.9;\n"));
  nb_smv_format_header (&plain, text);
  g_assert_null (strstr (text, "ADC_OFFSET"));
  line = strstr (text, "\nDIALS_ORIGIN=");
  g_assert_nonnull (line);
  g_assert_true (g_str_has_prefix (line, "\nDIALS_ORIGIN=-3.95,2.35,-80\n"));
}

/* A GTK program runs under the user's locale; numbers in files must still
 * use '.' (and be read with it). */
static void
test_smv_header_locale (Fixture *f, gconstpointer data)
{
  static const char *const locales[] = { "de_DE.UTF-8", "fr_FR.UTF-8", "de_DE", "fr_FR",
                                         "ru_RU.UTF-8" };
  char *path = g_build_filename (f->dir, "locale.img", NULL);
  char *old = g_strdup (setlocale (LC_NUMERIC, NULL));
  const char *chosen = NULL;
  uint16_t pixels[64 * 64] = { 0 };
  nb_smv_file smv;
  nb_error err;
  char out[512];

  for (gsize i = 0; i < G_N_ELEMENTS (locales) && chosen == NULL; i++)
    if (setlocale (LC_NUMERIC, locales[i]) != NULL && localeconv ()->decimal_point[0] == ',')
      chosen = locales[i];
  if (chosen == NULL)
    {
      setlocale (LC_NUMERIC, old);
      g_free (old);
      g_free (path);
      g_test_skip ("no locale with a decimal comma is installed");
      return;
    }

  nb_smv_format_header (&example_header, out);
  assert_padded_header (out, example_text);
  g_assert_cmpint (nb_write_smv (path, &example_header, pixels, &err), ==, NB_OK);
  g_assert_cmpint (nb_read_smv (path, &smv, &err), ==, NB_OK);
  g_assert_cmpfloat (nb_smv_value (&smv, "PIXEL_SIZE"), ==, 0.1);
  nb_smv_file_clear (&smv);

  setlocale (LC_NUMERIC, old);
  g_free (old);
  g_free (path);
}

/* The numbers behind the golden SMV files' headers (256 x 256, 0.2 mm pixels),
 * formatted here, must give the reference's 512 header bytes exactly. */
static void
test_smv_header_golden (void)
{
  static const nb_smv_header h = {
    .size1 = 256,
    .size2 = 256,
    .pixel_size_mm = 0.2,
    .distance_mm = 100,
    .wavelength_A = 1,
    .beam_center_x_mm = 25.7,
    .beam_center_y_mm = 25.7,
    .adxv_center_x_mm = 25.8,
    .adxv_center_y_mm = 25.4,
    .mosflm_center_x_mm = 25.7,
    .mosflm_center_y_mm = 25.7,
    .denzo_x_beam_mm = 25.8,
    .denzo_y_beam_mm = 25.8,
    .dials_origin_mm = { -25.8, 25.8, -100 },
    .xds_orgx_px = 129.5,
    .xds_orgy_px = 129.5,
    .close_distance_mm = 100,
  };
  const char *golden_dir = g_getenv ("NB_GOLDEN_DIR");
  char *path;
  char out[512];
  GBytes *bytes;
  nb_smv_file smv;
  nb_error err;

  if (golden_dir == NULL)
    {
      g_test_skip ("NB_GOLDEN_DIR is not set");
      return;
    }
  path = g_build_filename (golden_dir, "intfile_scale.img", NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("golden intfile_scale.img not found");
      g_free (path);
      return;
    }
  bytes = read_bytes (path);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 512 + 256 * 256 * 2);

  nb_smv_format_header (&h, out);
  g_assert_cmpmem (out, 512, g_bytes_get_data (bytes, NULL), 512);

  /* and the reference's file reads back */
  g_assert_cmpint (nb_read_smv (path, &smv, &err), ==, NB_OK);
  g_assert_cmpint (smv.size1, ==, 256);
  g_assert_cmpint (smv.size2, ==, 256);
  g_assert_cmpuint (smv.header_bytes, ==, 512);
  g_assert_cmpfloat (nb_smv_value (&smv, "PIXEL_SIZE"), ==, 0.2);
  g_assert_cmpfloat (nb_smv_value (&smv, "XDS_ORGY"), ==, 129.5);
  g_assert_cmpmem (smv.pixels, 256 * 256 * 2, (const guint8 *) g_bytes_get_data (bytes, NULL) + 512,
                   256 * 256 * 2);
  nb_smv_file_clear (&smv);

  g_bytes_unref (bytes);
  g_free (path);
}

/* A header text that cannot fit 512 bytes: the formatter reports its full
 * length, and nb_write_smv makes a valid 1024-byte header instead. */
static void
test_smv_header_long (Fixture *f, gconstpointer data)
{
  nb_smv_header h = example_header;
  double *fields[] = {
    &h.pixel_size_mm,      &h.distance_mm,        &h.wavelength_A,
    &h.beam_center_x_mm,   &h.beam_center_y_mm,   &h.adxv_center_x_mm,
    &h.adxv_center_y_mm,   &h.mosflm_center_x_mm, &h.mosflm_center_y_mm,
    &h.denzo_x_beam_mm,    &h.denzo_y_beam_mm,    &h.dials_origin_mm[0],
    &h.dials_origin_mm[1], &h.dials_origin_mm[2], &h.xds_orgx_px,
    &h.xds_orgy_px,        &h.close_distance_mm,  &h.phi_deg,
    &h.osc_start_deg,      &h.osc_range_deg,      &h.twotheta_deg,
  };
  uint16_t pixels[6] = { 1, 2, 3, 4, 5, 65535 };
  char out[512];
  char *path = g_build_filename (f->dir, "long.img", NULL);
  nb_smv_file smv;
  nb_error err;
  size_t len;

  h.size1 = 3;
  h.size2 = 2;
  for (gsize i = 0; i < G_N_ELEMENTS (fields); i++)
    *fields[i] = -1.234567e-11 * (double) (i + 1);
  len = nb_smv_format_header (&h, out);
  g_assert_cmpuint (len, >, 512);
  g_assert_true (g_str_has_prefix (out, "{\nHEADER_BYTES=512;\n"));

  g_assert_cmpint (nb_write_smv (path, &h, pixels, &err), ==, NB_OK);
  g_assert_cmpint (nb_read_smv (path, &smv, &err), ==, NB_OK);
  g_assert_cmpuint (smv.header_bytes, ==, 1024);
  g_assert_cmpfloat (nb_smv_value (&smv, "HEADER_BYTES"), ==, 1024.0);
  g_assert_cmpfloat (nb_smv_value (&smv, "TWOTHETA"), ==, -2.59259e-10);
  g_assert_cmpmem (smv.pixels, sizeof pixels, pixels, sizeof pixels);
  nb_smv_file_clear (&smv);
  g_free (path);
}

static void
test_smv_round_trip (Fixture *f, gconstpointer data)
{
  nb_smv_header h = example_header;
  uint16_t pixels[5 * 3] = { 0,  1,  2,    255,  256,  0x1234, 65535, 40,
                             41, 42, 1000, 2000, 3000, 4000,   65534 };
  char *path = g_build_filename (f->dir, "round.img", NULL);
  nb_smv_file smv;
  nb_error err;
  GBytes *bytes;
  const guint8 *raw;
  char text[512];

  h.size1 = 5;
  h.size2 = 3;
  h.distance_mm = 123.4;
  h.close_distance_mm = 99.5;
  h.xds_orgx_px = 2.5;
  h.twotheta_deg = 15;
  nb_error_clear (&err);
  g_assert_cmpint (nb_write_smv (path, &h, pixels, &err), ==, NB_OK);
  g_assert_cmpint (err.code, ==, NB_OK);

  /* on disk: the padded header, then little-endian pixels */
  bytes = read_bytes (path);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 512 + sizeof pixels);
  raw = g_bytes_get_data (bytes, NULL);
  nb_smv_format_header (&h, text);
  g_assert_cmpmem (raw, 512, text, 512);
  g_assert_cmpint (raw[512 + 2 * 5], ==, 0x34);
  g_assert_cmpint (raw[512 + 2 * 5 + 1], ==, 0x12);
  g_bytes_unref (bytes);

  g_assert_cmpint (nb_read_smv (path, &smv, &err), ==, NB_OK);
  g_assert_cmpint (smv.size1, ==, 5);
  g_assert_cmpint (smv.size2, ==, 3);
  g_assert_cmpuint (smv.header_bytes, ==, 512);
  g_assert_cmpuint (strlen (smv.text), ==, 512);
  g_assert_cmpmem (smv.text, 512, text, 512);
  g_assert_cmpmem (smv.pixels, sizeof pixels, pixels, sizeof pixels);

  g_assert_cmpfloat (nb_smv_value (&smv, "PIXEL_SIZE"), ==, 0.1);
  g_assert_cmpfloat (nb_smv_value (&smv, "WAVELENGTH"), ==, 1.0);
  g_assert_cmpfloat (nb_smv_value (&smv, "SIZE1"), ==, 5.0);
  g_assert_cmpfloat (nb_smv_value (&smv, "TWOTHETA"), ==, 15.0);
  /* the last "DISTANCE" in the header is inside CLOSE_DISTANCE */
  g_assert_cmpfloat (nb_smv_value (&smv, "DISTANCE"), ==, 99.5);
  g_assert_cmpfloat (nb_smv_value (&smv, "CLOSE_DISTANCE"), ==, 99.5);
  /* a substring of XDS_ORGX finds it, as ValueOf does */
  g_assert_cmpfloat (nb_smv_value (&smv, "ORGX"), ==, 2.5);
  /* the number after the first '=' that follows: the first origin component */
  g_assert_cmpfloat (nb_smv_value (&smv, "DIALS_ORIGIN"), ==, -3.3);
  /* a text value reads as atof would: 0 */
  g_assert_cmpfloat (nb_smv_value (&smv, "BEAMLINE"), ==, 0.0);
  g_assert_true (isnan (nb_smv_value (&smv, "NO_SUCH_KEY")));
  g_assert_true (isnan (nb_smv_value (&smv, "")));

  nb_smv_file_clear (&smv);
  g_assert_null (smv.text);
  g_assert_null (smv.pixels);
  g_free (path);
}

/* A foreign file: big-endian pixels behind a 1024-byte header. */
static void
test_smv_read_big_endian (Fixture *f, gconstpointer data)
{
  GString *s = g_string_new ("{\nHEADER_BYTES=  1024;\nDIM=2;\nBYTE_ORDER=big_endian;\n"
                             "TYPE=unsigned_short;\nSIZE1=2;\nSIZE2=2;\nPIXEL_SIZE=0.172;\n}\f");
  static const guint8 data_be[8] = { 0x12, 0x34, 0x00, 0x01, 0xff, 0xfe, 0x80, 0x00 };
  static const uint16_t expect[4] = { 0x1234, 0x0001, 0xfffe, 0x8000 };
  char *path = g_build_filename (f->dir, "be.img", NULL);
  GError *error = NULL;
  nb_smv_file smv;
  nb_error err;

  while (s->len < 1024)
    g_string_append_c (s, ' ');
  g_string_append_len (s, (const char *) data_be, sizeof data_be);
  g_file_set_contents (path, s->str, (gssize) s->len, &error);
  g_assert_no_error (error);

  g_assert_cmpint (nb_read_smv (path, &smv, &err), ==, NB_OK);
  g_assert_cmpuint (smv.header_bytes, ==, 1024);
  g_assert_cmpint (smv.size1, ==, 2);
  g_assert_cmpint (smv.size2, ==, 2);
  g_assert_cmpmem (smv.pixels, sizeof expect, expect, sizeof expect);
  g_assert_cmpfloat (nb_smv_value (&smv, "PIXEL_SIZE"), ==, 0.172);
  nb_smv_file_clear (&smv);

  g_string_free (s, TRUE);
  g_free (path);
}

static void
write_text_file (const char *path, const char *text, gssize len)
{
  GError *error = NULL;

  g_file_set_contents (path, text, len, &error);
  g_assert_no_error (error);
}

static void
test_smv_read_errors (Fixture *f, gconstpointer data)
{
  char *missing = g_build_filename (f->dir, "missing.img", NULL);
  char *notsmv = g_build_filename (f->dir, "not.img", NULL);
  char *nosize = g_build_filename (f->dir, "nosize.img", NULL);
  char *shortf = g_build_filename (f->dir, "short.img", NULL);
  GString *s;
  nb_smv_file smv;
  nb_error err;

  g_assert_cmpint (nb_read_smv (missing, &smv, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, missing));
  g_assert_nonnull (strstr (err.message, g_strerror (ENOENT)));
  g_assert_null (smv.text);

  write_text_file (notsmv, "P5\n4 4\n255\n0123456789abcdef", -1);
  g_assert_cmpint (nb_read_smv (notsmv, &smv, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, notsmv));

  s = g_string_new ("{\nHEADER_BYTES=512;\nDIM=2;\nBYTE_ORDER=little_endian;\n}\f");
  while (s->len < 512 + 8)
    g_string_append_c (s, ' ');
  write_text_file (nosize, s->str, (gssize) s->len);
  g_assert_cmpint (nb_read_smv (nosize, &smv, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "SIZE1"));
  g_string_free (s, TRUE);

  /* 4 x 4 pixels announced, 10 bytes present */
  s = g_string_new ("{\nHEADER_BYTES=512;\nDIM=2;\nBYTE_ORDER=little_endian;\nSIZE1=4;\n"
                    "SIZE2=4;\n}\f");
  while (s->len < 512 + 10)
    g_string_append_c (s, ' ');
  write_text_file (shortf, s->str, (gssize) s->len);
  g_assert_cmpint (nb_read_smv (shortf, &smv, &err), ==, NB_ERR_PARSE);
  g_assert_nonnull (strstr (err.message, "truncated"));
  g_assert_null (smv.pixels);
  g_string_free (s, TRUE);

  g_free (missing);
  g_free (notsmv);
  g_free (nosize);
  g_free (shortf);
}

/* ------------------------------------------------------------------------ */
/* PGM and raw float                                                         */

static void
test_pgm (Fixture *f, gconstpointer data)
{
  static const uint8_t px[4 * 2] = { 0, 1, 2, 3, 250, 251, 254, 255 };
  static const char header[] = "P5\n4 2\n# pixels scaled by 0.123457\n255\n";
  char *path = g_build_filename (f->dir, "image.pgm", NULL);
  GBytes *bytes;
  const guint8 *raw;
  nb_error err;

  g_assert_cmpint (nb_write_pgm (path, px, 4, 2, 0.123456789, &err), ==, NB_OK);
  bytes = read_bytes (path);
  raw = g_bytes_get_data (bytes, NULL);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, strlen (header) + sizeof px);
  g_assert_cmpmem (raw, strlen (header), header, strlen (header));
  g_assert_cmpmem (raw + strlen (header), sizeof px, px, sizeof px);
  g_bytes_unref (bytes);

  g_assert_cmpint (nb_write_pgm (path, px, 0, 2, 1.0, &err), ==, NB_ERR_INVALID);
  g_free (path);
}

static void
test_float_image (Fixture *f, gconstpointer data)
{
  static const float img[3 * 2] = { 0.0f, 1.5f, -2.25f, 1e30f, 3.0e-42f, 65535.0f };
  char *path = g_build_filename (f->dir, "floatimage.bin", NULL);
  GBytes *bytes;
  nb_error err;

  g_assert_cmpint (nb_write_float_image (path, img, 3, 2, &err), ==, NB_OK);
  bytes = read_bytes (path);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 24);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), 24, img, sizeof img);
  g_bytes_unref (bytes);
  g_free (path);
}

/* ------------------------------------------------------------------------ */
/* Atomic writing                                                            */

static void
test_atomic_replace (Fixture *f, gconstpointer data)
{
  char *path = g_build_filename (f->dir, "out.bin", NULL);
  const void *chunks[3] = { "abc", "", "defg" };
  const size_t sizes[3] = { 3, 0, 4 };
  char *listing, *contents;
  gsize len;
  GStatBuf st;
  mode_t old_mask;
  nb_error err;

  write_text_file (path, "old contents", -1);
  old_mask = umask (022);
  g_assert_cmpint (nb_write_file_atomic (path, chunks, sizes, 3, &err), ==, NB_OK);
  umask (old_mask);

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpmem (contents, len, "abcdefg", 7);
  g_free (contents);
  /* a plain fopen() would have made 0666 & ~umask */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0644);

  listing = dir_listing (f->dir);
  g_assert_cmpstr (listing, ==, "out.bin");
  g_free (listing);

  /* no chunks: an empty file */
  g_assert_cmpint (nb_write_file_atomic (path, NULL, NULL, 0, &err), ==, NB_OK);
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpuint (len, ==, 0);
  g_free (contents);
  g_free (path);
}

/* A relative path with no folder part writes into the working folder. */
static void
test_atomic_relative (Fixture *f, gconstpointer data)
{
  char *cwd = g_get_current_dir ();
  const void *chunks[1] = { "x" };
  const size_t sizes[1] = { 1 };
  char *listing;
  nb_error err;

  g_assert_cmpint (g_chdir (f->dir), ==, 0);
  g_assert_cmpint (nb_write_file_atomic ("plain.txt", chunks, sizes, 1, &err), ==, NB_OK);
  g_assert_cmpint (g_chdir (cwd), ==, 0);
  listing = dir_listing (f->dir);
  g_assert_cmpstr (listing, ==, "plain.txt");
  g_free (listing);
  g_free (cwd);
}

static void
assert_untouched (const char *dir, const char *path, const char *expect_listing)
{
  char *contents, *listing;
  gsize len;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpstr (contents, ==, "keep me");
  g_free (contents);
  listing = dir_listing (dir);
  g_assert_cmpstr (listing, ==, expect_listing);
  g_free (listing);
}

static void
test_atomic_missing_dir (Fixture *f, gconstpointer data)
{
  char *path = g_build_filename (f->dir, "no-such-dir", "out.img", NULL);
  const void *chunks[1] = { "data" };
  const size_t sizes[1] = { 4 };
  char *listing;
  nb_error err;

  g_assert_cmpint (nb_write_file_atomic (path, chunks, sizes, 1, &err), ==, NB_ERR_IO);
  g_assert_cmpint (err.code, ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, path));
  g_assert_nonnull (strstr (err.message, g_strerror (ENOENT)));
  listing = dir_listing (f->dir);
  g_assert_cmpstr (listing, ==, "");
  g_free (listing);

  /* each writer reports the same way */
  g_assert_cmpint (nb_write_smv (path, &example_header, (const uint16_t[64 * 64]){ 0 }, &err), ==,
                   NB_ERR_IO);
  g_assert_cmpint (nb_write_pgm (path, (const uint8_t[1]){ 0 }, 1, 1, 1.0, &err), ==, NB_ERR_IO);
  g_assert_cmpint (nb_write_float_image (path, (const float[1]){ 0 }, 1, 1, &err), ==, NB_ERR_IO);
  g_free (path);
}

static void
test_atomic_readonly_dir (Fixture *f, gconstpointer data)
{
  char *sub = g_build_filename (f->dir, "ro", NULL);
  char *path = g_build_filename (sub, "out.bin", NULL);
  const void *chunks[1] = { "new contents" };
  const size_t sizes[1] = { 12 };
  nb_error err;

  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  write_text_file (path, "keep me", -1);
  g_assert_cmpint (g_chmod (sub, 0500), ==, 0);
  if (access (sub, W_OK) == 0)
    {
      /* root ignores folder permissions */
      g_chmod (sub, 0700);
      g_unlink (path);
      g_rmdir (sub);
      g_free (path);
      g_free (sub);
      g_test_skip ("a read-only folder is writable for this user (root?)");
      return;
    }

  g_assert_cmpint (nb_write_file_atomic (path, chunks, sizes, 1, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, path));
  g_assert_nonnull (strstr (err.message, g_strerror (EACCES)));
  assert_untouched (sub, path, "out.bin");

  g_chmod (sub, 0700);
  g_unlink (path);
  g_rmdir (sub);
  g_free (path);
  g_free (sub);
}

/* The data are written, but the rename fails (the target is a folder): the
 * temporary file must go and the folder stay as it was. */
static void
test_atomic_rename_fails (Fixture *f, gconstpointer data)
{
  char *target = g_build_filename (f->dir, "target", NULL);
  char *inside = g_build_filename (target, "keep", NULL);
  const void *chunks[1] = { "new contents" };
  const size_t sizes[1] = { 12 };
  char *listing;
  nb_error err;

  g_assert_cmpint (g_mkdir (target, 0700), ==, 0);
  write_text_file (inside, "keep me", -1);

  g_assert_cmpint (nb_write_file_atomic (target, chunks, sizes, 1, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, target));
  listing = dir_listing (f->dir);
  g_assert_cmpstr (listing, ==, "target");
  g_free (listing);
  assert_untouched (target, inside, "keep");

  g_unlink (inside);
  g_rmdir (target);
  g_free (inside);
  g_free (target);
}

/* A write that fails half-way (here the file-size limit stands in for a full
 * disk) leaves the old file and no temporary behind. */
static void
test_atomic_write_fails (Fixture *f, gconstpointer data)
{
  char *path = g_build_filename (f->dir, "big.bin", NULL);
  size_t n = 1 << 20;
  char *big = g_malloc0 (n);
  const void *chunks[1] = { big };
  const size_t sizes[1] = { n };
  struct rlimit old_limit, limit;
  void (*old_handler) (int);
  nb_status status;
  nb_error err;

  write_text_file (path, "keep me", -1);

  g_assert_cmpint (getrlimit (RLIMIT_FSIZE, &old_limit), ==, 0);
  limit = old_limit;
  limit.rlim_cur = 4096;
  old_handler = signal (SIGXFSZ, SIG_IGN);
  g_assert_cmpint (setrlimit (RLIMIT_FSIZE, &limit), ==, 0);
  status = nb_write_file_atomic (path, chunks, sizes, 1, &err);
  setrlimit (RLIMIT_FSIZE, &old_limit);
  signal (SIGXFSZ, old_handler);

  g_assert_cmpint (status, ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, path));
  g_assert_nonnull (strstr (err.message, g_strerror (EFBIG)));
  assert_untouched (f->dir, path, "big.bin");

  g_free (big);
  g_free (path);
}

static void
test_atomic_bad_names (Fixture *f, gconstpointer data)
{
  char *path = g_strconcat (f->dir, "/", NULL);
  nb_error err;

  g_assert_cmpint (nb_write_file_atomic ("", NULL, NULL, 0, &err), ==, NB_ERR_IO);
  g_assert_cmpint (nb_write_file_atomic (NULL, NULL, NULL, 0, &err), ==, NB_ERR_IO);
  /* a folder name, not a file name */
  g_assert_cmpint (nb_write_file_atomic (path, NULL, NULL, 0, &err), ==, NB_ERR_IO);
  g_free (path);
}

/* ------------------------------------------------------------------------ */
/* Outputs that are not regular files                                       */

/* Reads a pipe or an accepted socket to its end in a thread. */
typedef struct
{
  char *path;    /* a FIFO to open, or NULL */
  int fd;        /* else this descriptor (a listening socket: accepted first) */
  gsize stop_at; /* close after this many bytes (0: read to the end) */
  GByteArray *got;
} Reader;

static gpointer
reader_thread (gpointer data)
{
  Reader *r = data;
  int fd = r->path != NULL ? open (r->path, O_RDONLY) : accept (r->fd, NULL, NULL);
  guint8 buf[4096];
  ssize_t n;

  g_assert_cmpint (fd, >=, 0);
  while ((n = read (fd, buf, r->stop_at ? 1 : sizeof buf)) > 0)
    {
      g_byte_array_append (r->got, buf, (guint) n);
      if (r->stop_at && r->got->len >= r->stop_at)
        break;
    }
  close (fd);
  return NULL;
}

static GThread *
reader_start (Reader *r, const char *fifo, int fd, gsize stop_at)
{
  r->path = g_strdup (fifo);
  r->fd = fd;
  r->stop_at = stop_at;
  r->got = g_byte_array_new ();
  return g_thread_new ("reader", reader_thread, r);
}

static void
reader_clear (Reader *r)
{
  g_free (r->path);
  g_byte_array_unref (r->got);
}

static void
assert_mode (const char *path, mode_t type)
{
  GStatBuf st;

  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & S_IFMT, ==, type);
}

/* A named pipe is written through: the reader gets every byte, and the pipe
 * is still a pipe (a rename would have replaced it by a file and the reader
 * would have got nothing). */
static void
test_output_fifo (Fixture *f, gconstpointer data)
{
  char *fifo = g_build_filename (f->dir, "out.bin", NULL);
  const float img[6] = { 1, 2, 3, 4, 5, 6 };
  Reader r;
  GThread *t;
  char *listing;
  nb_error err;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  t = reader_start (&r, fifo, -1, 0);
  g_assert_cmpint (nb_write_float_image (fifo, img, 3, 2, &err), ==, NB_OK);
  /* before the join: a reader of a pipe that was replaced would wait forever */
  assert_mode (fifo, S_IFIFO);
  g_thread_join (t);
  g_assert_cmpmem (r.got->data, r.got->len, img, sizeof img);
  listing = dir_listing (f->dir);
  g_assert_cmpstr (listing, ==, "out.bin");
  g_free (listing);
  reader_clear (&r);
  g_free (fifo);
}

/* In a set, a stream is written at the commit, before the files are renamed,
 * and not at all when the set is abandoned. */
static void
test_output_fifo_set (Fixture *f, gconstpointer data)
{
  char *fifo = g_build_filename (f->dir, "out.bin", NULL);
  char *file = g_build_filename (f->dir, "out.img", NULL);
  const void *chunks[2] = { "head", "tail" };
  const size_t sizes[2] = { 4, 4 };
  char buf[16];
  Reader r;
  GThread *t;
  int fd;
  nb_error err;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  /* abandoned: a reader that is already there sees the end, no bytes */
  fd = open (fifo, O_RDONLY | O_NONBLOCK);
  g_assert_cmpint (fd, >=, 0);
  nb_output_begin ();
  g_assert_cmpint (nb_write_file_atomic (fifo, chunks, sizes, 2, &err), ==, NB_OK);
  g_assert_cmpint (nb_write_file_atomic (file, chunks, sizes, 2, &err), ==, NB_OK);
  nb_output_abort ();
  g_assert_cmpint (read (fd, buf, sizeof buf), ==, 0);
  close (fd);
  g_assert_false (g_file_test (file, G_FILE_TEST_EXISTS));

  /* committed: the bytes as they were when staged, though the caller's
   * buffer changed since */
  {
    char mutable[8];
    const void *own[1] = { mutable };
    const size_t own_size[1] = { 8 };

    memcpy (mutable, "headtail", 8);
    t = reader_start (&r, fifo, -1, 0);
    nb_output_begin ();
    g_assert_cmpint (nb_write_file_atomic (fifo, own, own_size, 1, &err), ==, NB_OK);
    memcpy (mutable, "XXXXXXXX", 8);
    g_assert_cmpint (nb_write_file_atomic (file, chunks, sizes, 2, &err), ==, NB_OK);
    g_assert_cmpint (nb_output_commit (&err), ==, NB_OK);
    assert_mode (fifo, S_IFIFO);
    g_thread_join (t);
  }
  g_assert_cmpmem (r.got->data, r.got->len, "headtail", 8);
  {
    GBytes *b = read_bytes (file);

    g_assert_cmpmem (g_bytes_get_data (b, NULL), g_bytes_get_size (b), "headtail", 8);
    g_bytes_unref (b);
  }
  reader_clear (&r);
  g_free (file);
  g_free (fifo);
}

/* A reader that leaves early is a write error (EPIPE), not a SIGPIPE that
 * would end the program. */
static void
test_output_fifo_reader_gone (Fixture *f, gconstpointer data)
{
  char *fifo = g_build_filename (f->dir, "out.bin", NULL);
  size_t n = 1 << 20; /* more than the pipe holds */
  char *big = g_malloc0 (n);
  const void *chunks[1] = { big };
  const size_t sizes[1] = { n };
  Reader r;
  GThread *t;
  nb_error err;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  t = reader_start (&r, fifo, -1, 1);
  g_assert_cmpint (nb_write_file_atomic (fifo, chunks, sizes, 1, &err), ==, NB_ERR_IO);
  assert_mode (fifo, S_IFIFO);
  g_thread_join (t);
  g_assert_nonnull (strstr (err.message, fifo));
  g_assert_nonnull (strstr (err.message, g_strerror (EPIPE)));
  reader_clear (&r);
  g_free (big);
  g_free (fifo);
}

/* A link to a device writes the device: /dev/full's "disk full" is the
 * write's error, and the link stays. */
static void
test_output_link_to_full (Fixture *f, gconstpointer data)
{
  char *link = g_build_filename (f->dir, "full.bin", NULL);
  char *keep = g_build_filename (f->dir, "keep.img", NULL);
  const void *chunks[1] = { "data" };
  const size_t sizes[1] = { 4 };
  char *target;
  nb_error err;

  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/full");
      goto out;
    }
  g_assert_cmpint (symlink ("/dev/full", link), ==, 0);
  g_assert_cmpint (nb_write_float_image (link, (const float[1]){ 0 }, 1, 1, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, link));
  g_assert_nonnull (strstr (err.message, g_strerror (ENOSPC)));
  assert_mode (link, S_IFLNK);
  target = g_file_read_link (link, NULL);
  g_assert_cmpstr (target, ==, "/dev/full");
  g_free (target);

  /* in a set: the failing stream leaves the files of the set untouched */
  write_text_file (keep, "keep me", -1);
  nb_output_begin ();
  g_assert_cmpint (nb_write_file_atomic (keep, chunks, sizes, 1, &err), ==, NB_OK);
  g_assert_cmpint (nb_write_file_atomic (link, chunks, sizes, 1, &err), ==, NB_OK);
  g_assert_cmpint (nb_output_commit (&err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, g_strerror (ENOSPC)));
  assert_untouched (f->dir, keep, "full.bin keep.img");

out:
  g_free (keep);
  g_free (link);
}

/* A link to a file in another folder: the target is replaced through a
 * temporary file in ITS folder, the link (and a link to the link) stays. */
static void
test_output_link_to_file (Fixture *f, gconstpointer data)
{
  char *a = g_build_filename (f->dir, "a", NULL);
  char *b = g_build_filename (f->dir, "b", NULL);
  char *link = g_build_filename (a, "link.bin", NULL);
  char *link2 = g_build_filename (f->dir, "link2.bin", NULL);
  char *target = g_build_filename (b, "target.bin", NULL);
  const void *chunks[1] = { "new contents" };
  const size_t sizes[1] = { 12 };
  char *listing, *text;
  GBytes *bytes;
  nb_error err;

  g_assert_cmpint (g_mkdir (a, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (b, 0700), ==, 0);
  write_text_file (target, "old", -1);
  /* relative, read against the link's own folder */
  g_assert_cmpint (symlink ("../b/target.bin", link), ==, 0);
  g_assert_cmpint (symlink ("a/link.bin", link2), ==, 0);

  g_assert_cmpint (nb_write_file_atomic (link, chunks, sizes, 1, &err), ==, NB_OK);
  bytes = read_bytes (target);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), "new contents", 12);
  g_bytes_unref (bytes);
  text = g_file_read_link (link, NULL);
  g_assert_cmpstr (text, ==, "../b/target.bin");
  g_free (text);
  listing = dir_listing (a);
  g_assert_cmpstr (listing, ==, "link.bin");
  g_free (listing);
  listing = dir_listing (b);
  g_assert_cmpstr (listing, ==, "target.bin");
  g_free (listing);

  /* a chain of links, in a set */
  nb_output_begin ();
  g_assert_cmpint (nb_write_file_atomic (link2, chunks, sizes, 1, &err), ==, NB_OK);
  listing = dir_listing (b);
  g_assert_cmpuint (strlen (listing), >, strlen ("target.bin")); /* the staged file is in b */
  g_free (listing);
  g_assert_cmpint (nb_output_commit (&err), ==, NB_OK);
  assert_mode (link2, S_IFLNK);
  assert_mode (link, S_IFLNK);
  listing = dir_listing (b);
  g_assert_cmpstr (listing, ==, "target.bin");
  g_free (listing);
  listing = dir_listing (f->dir);
  g_assert_cmpstr (listing, ==, "a b link2.bin");
  g_free (listing);

  g_free (target);
  g_free (link2);
  g_free (link);
  g_free (b);
  g_free (a);
}

/* A dangling link: its target is created, the link stays; a target in a
 * missing folder is an error naming both. */
static void
test_output_dangling_link (Fixture *f, gconstpointer data)
{
  char *sub = g_build_filename (f->dir, "sub", NULL);
  char *link = g_build_filename (f->dir, "link.bin", NULL);
  char *bad = g_build_filename (f->dir, "bad.bin", NULL);
  char *target = g_build_filename (sub, "new.bin", NULL);
  const void *chunks[1] = { "made" };
  const size_t sizes[1] = { 4 };
  char *listing;
  GBytes *bytes;
  nb_error err;

  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  g_assert_cmpint (symlink ("sub/new.bin", link), ==, 0);
  g_assert_cmpint (nb_write_file_atomic (link, chunks, sizes, 1, &err), ==, NB_OK);
  bytes = read_bytes (target);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), "made", 4);
  g_bytes_unref (bytes);
  assert_mode (link, S_IFLNK);
  listing = dir_listing (sub);
  g_assert_cmpstr (listing, ==, "new.bin");
  g_free (listing);

  g_assert_cmpint (symlink ("no-such-folder/x.bin", bad), ==, 0);
  g_assert_cmpint (nb_write_file_atomic (bad, chunks, sizes, 1, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, bad));
  g_assert_nonnull (strstr (err.message, "no-such-folder/x.bin"));
  g_assert_nonnull (strstr (err.message, g_strerror (ENOENT)));
  assert_mode (bad, S_IFLNK);

  g_free (target);
  g_free (bad);
  g_free (link);
  g_free (sub);
}

/* Links that lead back to themselves: an error, not a hang. */
static void
test_output_link_loop (Fixture *f, gconstpointer data)
{
  char *a = g_build_filename (f->dir, "a", NULL);
  char *b = g_build_filename (f->dir, "b", NULL);
  nb_error err;

  g_assert_cmpint (symlink ("b", a), ==, 0);
  g_assert_cmpint (symlink ("a", b), ==, 0);
  g_assert_cmpint (nb_write_file_atomic (a, NULL, NULL, 0, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, a));
  g_assert_nonnull (strstr (err.message, g_strerror (ELOOP)));
  assert_mode (a, S_IFLNK);
  g_free (b);
  g_free (a);
}

/* A named socket is connected to and written through. */
static void
test_output_socket (Fixture *f, gconstpointer data)
{
  char *path = g_build_filename (f->dir, "out.sock", NULL);
  const void *chunks[2] = { "over ", "the socket" };
  const size_t sizes[2] = { 5, 10 };
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  Reader r;
  GThread *t;
  int listener;
  nb_error err;

  if (strlen (path) >= sizeof addr.sun_path)
    {
      g_test_skip ("the temporary folder's name is too long for a socket");
      g_free (path);
      return;
    }
  memcpy (addr.sun_path, path, strlen (path) + 1);
  listener = socket (AF_UNIX, SOCK_STREAM, 0);
  g_assert_cmpint (listener, >=, 0);
  g_assert_cmpint (bind (listener, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_cmpint (listen (listener, 1), ==, 0);
  t = reader_start (&r, NULL, listener, 0);
  g_assert_cmpint (nb_write_file_atomic (path, chunks, sizes, 2, &err), ==, NB_OK);
  assert_mode (path, S_IFSOCK);
  g_thread_join (t);
  g_assert_cmpmem (r.got->data, r.got->len, "over the socket", 15);
  close (listener);
  reader_clear (&r);
  g_free (path);
}

/* A character device that discards what it gets, safe to test on: as root
 * a regression (a rename over the name) would replace /dev/null itself for
 * the whole machine, so root gets a null device node of its own in @dir.
 * NULL when there is none (a folder mounted nodev). */
static char *
null_device (const char *dir)
{
  GStatBuf st;
  char *path;
  int fd;

  if (geteuid () != 0)
    return g_stat ("/dev/null", &st) == 0 && S_ISCHR (st.st_mode) ? g_strdup ("/dev/null") : NULL;
  path = g_build_filename (dir, "null", NULL);
  if (mknod (path, S_IFCHR | 0666, makedev (1, 3)) != 0 ||
      (fd = open (path, O_WRONLY | O_NOCTTY)) < 0)
    {
      g_unlink (path);
      g_free (path);
      return NULL;
    }
  close (fd);
  return path;
}

/* A character device is written through and stays one. */
static void
test_output_char_device (Fixture *f, gconstpointer data)
{
  const void *chunks[1] = { "discarded" };
  const size_t sizes[1] = { 9 };
  char *device = null_device (f->dir);
  nb_error err;

  if (device == NULL)
    {
      g_test_skip ("no null device to write to");
      return;
    }
  g_assert_cmpint (nb_write_file_atomic (device, chunks, sizes, 1, &err), ==, NB_OK);
  assert_mode (device, S_IFCHR);
  nb_output_begin ();
  g_assert_cmpint (nb_write_file_atomic (device, chunks, sizes, 1, &err), ==, NB_OK);
  g_assert_cmpint (nb_output_commit (&err), ==, NB_OK);
  assert_mode (device, S_IFCHR);
  g_free (device);
}

/* A block device is neither a file to replace nor a stream: refused before
 * anything is opened. */
static void
test_output_block_device (Fixture *f, gconstpointer data)
{
  const char *candidates[] = { "/dev/loop0", "/dev/sda", "/dev/vda", "/dev/nvme0n1", "/dev/ram0" };
  const char *device = NULL;
  GStatBuf st;
  nb_error err;

  for (gsize i = 0; i < G_N_ELEMENTS (candidates) && device == NULL; i++)
    if (g_stat (candidates[i], &st) == 0 && S_ISBLK (st.st_mode))
      device = candidates[i];
  if (device == NULL)
    {
      g_test_skip ("no block device found");
      return;
    }
  g_assert_cmpint (nb_write_file_atomic (device, NULL, NULL, 0, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, device));
  g_assert_nonnull (strstr (err.message, "not a regular file"));
}

/* ------------------------------------------------------------------------ */
/* PNG                                                                       */

#ifdef TEST_HAVE_LIBPNG

typedef struct
{
  int width, height, bit_depth, color_type;
  guint8 *pixels;
  GPtrArray *keys, *texts;
  GArray *compression;
} PngRead;

static void
png_read_clear (PngRead *r)
{
  g_free (r->pixels);
  g_clear_pointer (&r->keys, g_ptr_array_unref);
  g_clear_pointer (&r->texts, g_ptr_array_unref);
  g_clear_pointer (&r->compression, g_array_unref);
}

static gboolean
png_read_file (const char *path, PngRead *r)
{
  FILE *fp = fopen (path, "rb");
  png_structp png;
  png_infop info;
  png_textp text;
  int n_text;

  memset (r, 0, sizeof *r);
  g_assert_nonnull (fp);
  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  info = png_create_info_struct (png);
  if (setjmp (png_jmpbuf (png)))
    {
      png_destroy_read_struct (&png, &info, NULL);
      fclose (fp);
      return FALSE;
    }
  png_init_io (png, fp);
  png_read_info (png, info);
  r->width = (int) png_get_image_width (png, info);
  r->height = (int) png_get_image_height (png, info);
  r->bit_depth = png_get_bit_depth (png, info);
  r->color_type = png_get_color_type (png, info);
  g_assert_cmpint (r->width * r->height, <, 1 << 20);
  r->pixels = g_malloc ((gsize) r->width * (gsize) r->height);
  for (int y = 0; y < r->height; y++)
    png_read_row (png, r->pixels + (gsize) y * (gsize) r->width, NULL);
  png_read_end (png, info);

  r->keys = g_ptr_array_new_with_free_func (g_free);
  r->texts = g_ptr_array_new_with_free_func (g_free);
  r->compression = g_array_new (FALSE, FALSE, sizeof (int));
  n_text = png_get_text (png, info, &text, NULL);
  for (int i = 0; i < n_text; i++)
    {
      gsize len = text[i].compression > 0 ? text[i].itxt_length : text[i].text_length;

      g_ptr_array_add (r->keys, g_strdup (text[i].key));
      g_ptr_array_add (r->texts, g_strndup (text[i].text, len));
      g_array_append_val (r->compression, text[i].compression);
    }
  png_destroy_read_struct (&png, &info, NULL);
  fclose (fp);
  return TRUE;
}

static void
test_png (Fixture *f, gconstpointer data)
{
  enum
  {
    W = 7,
    H = 5
  };
  const char *keys[3] = { "Software", "Title", "Comment" };
  /* ASCII and Latin-1 text go in tEXt (Latin-1 bytes), anything else in iTXt */
  const char *values[3] = { "Braggscope", "Lysozyme \xc3\x85", "\xce\xbb = 1 \xc3\x85" };
  char *path = g_build_filename (f->dir, "image.png", NULL);
  guint8 px[W * H];
  PngRead r;
  char *listing;
  nb_error err;

  if (!nb_png_available ())
    {
      g_assert_cmpint (nb_write_png_gray8 (path, px, W, H, NULL, NULL, 0, &err), ==,
                       NB_ERR_UNSUPPORTED);
      g_assert_nonnull (strstr (err.message, "libpng"));
      g_free (path);
      g_test_skip ("this build has no libpng");
      return;
    }

  for (int i = 0; i < W * H; i++)
    px[i] = (guint8) (i * 7);
  g_assert_cmpint (nb_write_png_gray8 (path, px, W, H, keys, values, 3, &err), ==, NB_OK);
  listing = dir_listing (f->dir);
  g_assert_cmpstr (listing, ==, "image.png");
  g_free (listing);

  g_assert_true (png_read_file (path, &r));
  g_assert_cmpint (r.width, ==, W);
  g_assert_cmpint (r.height, ==, H);
  g_assert_cmpint (r.bit_depth, ==, 8);
  g_assert_cmpint (r.color_type, ==, PNG_COLOR_TYPE_GRAY);
  g_assert_cmpmem (r.pixels, W * H, px, W * H);

  g_assert_cmpuint (r.keys->len, ==, 3);
  g_assert_cmpstr (r.keys->pdata[0], ==, "Software");
  g_assert_cmpstr (r.texts->pdata[0], ==, "Braggscope");
  g_assert_cmpint (g_array_index (r.compression, int, 0), ==, PNG_TEXT_COMPRESSION_NONE);
  g_assert_cmpstr (r.keys->pdata[1], ==, "Title");
  g_assert_cmpstr (r.texts->pdata[1], ==, "Lysozyme \xc5");
  g_assert_cmpint (g_array_index (r.compression, int, 1), ==, PNG_TEXT_COMPRESSION_NONE);
  g_assert_cmpstr (r.keys->pdata[2], ==, "Comment");
  g_assert_cmpstr (r.texts->pdata[2], ==, values[2]);
  g_assert_cmpint (g_array_index (r.compression, int, 2), ==, PNG_ITXT_COMPRESSION_NONE);
  png_read_clear (&r);

  g_free (path);
}

static void
test_png_errors (Fixture *f, gconstpointer data)
{
  const guint8 px[4] = { 1, 2, 3, 4 };
  const char *bad_key[1] = { " leading space" };
  const char *ok_key[1] = { "Comment" };
  const char *bad_utf8[1] = { "caf\xe9 \xff" };
  const char *ok_value[1] = { "fine" };
  char *path = g_build_filename (f->dir, "image.png", NULL);
  char *missing = g_build_filename (f->dir, "no-such-dir", "image.png", NULL);
  char *listing;
  PngRead r;
  nb_error err;

  if (!nb_png_available ())
    {
      g_free (path);
      g_free (missing);
      g_test_skip ("this build has no libpng");
      return;
    }

  g_assert_cmpint (nb_write_png_gray8 (path, px, 2, 2, bad_key, ok_value, 1, &err), ==,
                   NB_ERR_INVALID);
  g_assert_cmpint (nb_write_png_gray8 (path, px, 0, 2, NULL, NULL, 0, &err), ==, NB_ERR_INVALID);
  g_assert_cmpint (nb_write_png_gray8 (missing, px, 2, 2, NULL, NULL, 0, &err), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (err.message, missing));
  listing = dir_listing (f->dir);
  g_assert_cmpstr (listing, ==, "");
  g_free (listing);

  /* text that is not UTF-8 is kept byte for byte in tEXt, not refused */
  g_assert_cmpint (nb_write_png_gray8 (path, px, 2, 2, ok_key, bad_utf8, 1, &err), ==, NB_OK);
  g_assert_true (png_read_file (path, &r));
  g_assert_cmpuint (r.texts->len, ==, 1);
  g_assert_cmpstr (r.texts->pdata[0], ==, bad_utf8[0]);
  g_assert_cmpint (g_array_index (r.compression, int, 0), ==, PNG_TEXT_COMPRESSION_NONE);
  png_read_clear (&r);

  g_free (path);
  g_free (missing);
}

#else /* !TEST_HAVE_LIBPNG */

static void
test_png (Fixture *f, gconstpointer data)
{
  const guint8 px[1] = { 0 };
  char *path = g_build_filename (f->dir, "image.png", NULL);
  nb_error err;

  if (nb_png_available ())
    g_test_incomplete ("the engine has libpng but this test was built without it");
  else
    {
      g_assert_cmpint (nb_write_png_gray8 (path, px, 1, 1, NULL, NULL, 0, &err), ==,
                       NB_ERR_UNSUPPORTED);
      g_test_skip ("this build has no libpng");
    }
  g_free (path);
}

static void
test_png_errors (Fixture *f, gconstpointer data)
{
  g_test_skip ("this build has no libpng");
}

#endif

/* ------------------------------------------------------------------------ */

#define ADD(name, func) g_test_add (name, Fixture, NULL, fixture_setup, func, fixture_teardown)

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/io/smv/header-example", test_smv_header_example);
  g_test_add_func ("/io/smv/header-golden", test_smv_header_golden);
  g_test_add_func ("/io/smv/header-for-dials", test_smv_header_for_dials);
  ADD ("/io/smv/header-locale", test_smv_header_locale);
  ADD ("/io/smv/header-long", test_smv_header_long);
  ADD ("/io/smv/round-trip", test_smv_round_trip);
  ADD ("/io/smv/read-big-endian", test_smv_read_big_endian);
  ADD ("/io/smv/read-errors", test_smv_read_errors);
  ADD ("/io/pgm", test_pgm);
  ADD ("/io/float", test_float_image);
  ADD ("/io/atomic/replace", test_atomic_replace);
  ADD ("/io/atomic/relative", test_atomic_relative);
  ADD ("/io/atomic/missing-dir", test_atomic_missing_dir);
  ADD ("/io/atomic/readonly-dir", test_atomic_readonly_dir);
  ADD ("/io/atomic/rename-fails", test_atomic_rename_fails);
  ADD ("/io/atomic/write-fails", test_atomic_write_fails);
  ADD ("/io/atomic/bad-names", test_atomic_bad_names);
  ADD ("/io/output/fifo", test_output_fifo);
  ADD ("/io/output/fifo-set", test_output_fifo_set);
  ADD ("/io/output/fifo-reader-gone", test_output_fifo_reader_gone);
  ADD ("/io/output/link-to-full", test_output_link_to_full);
  ADD ("/io/output/link-to-file", test_output_link_to_file);
  ADD ("/io/output/dangling-link", test_output_dangling_link);
  ADD ("/io/output/link-loop", test_output_link_loop);
  ADD ("/io/output/socket", test_output_socket);
  ADD ("/io/output/char-device", test_output_char_device);
  ADD ("/io/output/block-device", test_output_block_device);
  ADD ("/io/png/round-trip", test_png);
  ADD ("/io/png/errors", test_png_errors);

  return g_test_run ();
}
