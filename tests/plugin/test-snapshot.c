/* test-snapshot.c: PNG snapshots keep the picture and restore the parameters. */
#define _DEFAULT_SOURCE 1 /* symlink (), lstat () */

#include "plugin-test-util.h"

#include <errno.h>
#include <png.h>
#include <sys/stat.h>

static char *
temp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("braggscope-snapshot-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static guint8 *
pattern (int width, int height)
{
  guint8 *rgba = g_malloc ((gsize) width * height * 4);

  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        guint8 *p = rgba + ((gsize) y * width + x) * 4;
        p[0] = (guint8) x;
        p[1] = (guint8) y;
        p[2] = (guint8) (x ^ y);
        p[3] = (guint8) (255 - x);
      }
  return rgba;
}

/* Reads the pixels back with libpng and compares; returns the Software text. */
static char *
check_pixels (const char *path, const guint8 *rgba, int width, int height)
{
  png_image image = { .version = PNG_IMAGE_VERSION };
  g_autofree guint8 *back = NULL;
  char *software = NULL;
  FILE *fp;
  png_structp png;
  png_infop info;
  png_textp text;
  int n = 0;

  g_assert_true (png_image_begin_read_from_file (&image, path));
  g_assert_cmpint (image.width, ==, width);
  g_assert_cmpint (image.height, ==, height);
  image.format = PNG_FORMAT_RGBA;
  back = g_malloc (PNG_IMAGE_SIZE (image));
  g_assert_true (png_image_finish_read (&image, NULL, back, 0, NULL));
  g_assert_cmpmem (back, (gsize) width * height * 4, rgba, (gsize) width * height * 4);

  fp = fopen (path, "rb");
  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  info = png_create_info_struct (png);
  png_init_io (png, fp);
  png_read_info (png, info);
  png_get_text (png, info, &text, &n);
  for (int i = 0; i < n; i++)
    if (g_str_equal (text[i].key, "Software"))
      software = g_strdup (text[i].text);
  png_destroy_read_struct (&png, &info, NULL);
  fclose (fp);
  return software;
}

static void
test_round_trip (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *path = g_build_filename (dir, "shot.png", NULL);
  g_autofree guint8 *rgba = pattern (40, 30);
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (
      "-hkl '/data dir/1hpv p1.hkl' -cell 63.4 63.4 83.8 90 90 120 -lambda 1 -N 10 -mosaic 0.2 "
      "-mosaic_domains 5 -distance 120 -detpixels 1024 -pixel 0.1 -precision single -xds "
      "-backend cpu");
  g_autoptr (BraggscopeSimulation) restored = braggscope_simulation_new ();
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) saved = NULL, loaded = NULL, again = NULL;
  g_autofree char *software = NULL;
  double misset_x, misset_y, wavelength, distance;
  int fast;
  BraggscopeConvention convention;
  GDir *listing;
  int entries = 0;

  g_object_set (sim, "misset-x", 10.125, "misset-y", -20.5, "wavelength", 1.033, "distance", 151.7,
                NULL);
  saved = braggscope_simulation_to_args (sim);
  g_assert_true (braggscope_snapshot_save (path, rgba, 40, 30, sim, &error));
  g_assert_no_error (error);

  /* the picture is the one given, with the version in "Software" */
  software = check_pixels (path, rgba, 40, 30);
  g_assert_cmpstr (software, ==, "Braggscope " BRAGGSCOPE_TEST_VERSION);

  /* the flags come back exactly */
  loaded = braggscope_snapshot_load_args (path, &error);
  g_assert_no_error (error);
  g_assert_true (g_strv_equal ((const char *const *) saved, (const char *const *) loaded));

  /* and a new simulation restored from it has the same parameters */
  g_assert_true (braggscope_simulation_load_snapshot (restored, path, &error));
  g_assert_no_error (error);
  again = braggscope_simulation_to_args (restored);
  g_assert_true (g_strv_equal ((const char *const *) saved, (const char *const *) again));
  g_object_get (restored, "misset-x", &misset_x, "misset-y", &misset_y, "wavelength", &wavelength,
                "distance", &distance, "detector-pixels-fast", &fast, "convention", &convention,
                NULL);
  g_assert_cmpfloat (misset_x, ==, 10.125);
  g_assert_cmpfloat (misset_y, ==, -20.5);
  g_assert_cmpfloat_with_epsilon (wavelength, 1.033, 1e-12);
  g_assert_cmpfloat_with_epsilon (distance, 151.7, 1e-12);
  g_assert_cmpint (fast, ==, 1024);
  g_assert_cmpint (convention, ==, BRAGGSCOPE_CONVENTION_XDS);

  /* written atomically: nothing else left in the folder */
  listing = g_dir_open (dir, 0, NULL);
  while (g_dir_read_name (listing) != NULL)
    entries++;
  g_dir_close (listing);
  g_assert_cmpint (entries, ==, 1);

  /* overwriting works, and a picture without a simulation has no parameters */
  g_assert_true (braggscope_snapshot_save (path, rgba, 40, 30, NULL, &error));
  g_assert_null (braggscope_snapshot_load_args (path, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE);
  g_clear_error (&error);

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_errors (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *text = g_build_filename (dir, "not.png", NULL);
  g_autofree char *unwritable = g_build_filename (dir, "no-such-dir", "x.png", NULL);
  g_autofree guint8 *rgba = pattern (4, 4);
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) before = braggscope_simulation_to_args (sim), after = NULL;

  g_assert_null (braggscope_snapshot_load_args (unwritable, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (text, "hello, not a picture", -1, NULL));
  g_assert_false (braggscope_simulation_load_snapshot (sim, text, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, text));
  g_clear_error (&error);
  after = braggscope_simulation_to_args (sim);
  g_assert_true (g_strv_equal ((const char *const *) before, (const char *const *) after));

  g_assert_false (braggscope_snapshot_save (unwritable, rgba, 4, 4, sim, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
  g_clear_error (&error);
  g_assert_false (braggscope_snapshot_save (text, rgba, 0, 4, sim, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_clear_error (&error);

  /* a parameter no PNG line can hold */
  g_object_set (sim, "structure-factors", text, NULL);
  {
    g_autofree char *odd = g_build_filename (dir, "line\nbreak.hkl", NULL);
    const char *args[] = { "-hkl", odd, NULL };

    g_assert_true (braggscope_simulation_set_from_args (sim, args, &error));
    g_assert_false (braggscope_snapshot_save (text, rgba, 4, 4, sim, &error));
    g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  }
  g_unlink (text);
  g_rmdir (dir);
}

/* The snapshot goes through the engine's writer, as the float and SMV
 * exports do: a link's target is replaced and the link kept, a link to a
 * device writes the device (and reports its "disk full"). */
static void
test_links_and_devices (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *sub = g_build_filename (dir, "sub", NULL);
  g_autofree char *target = g_build_filename (sub, "picture.png", NULL);
  g_autofree char *link = g_build_filename (dir, "link.png", NULL);
  g_autofree char *full = g_build_filename (dir, "full.png", NULL);
  g_autofree char *text = NULL, *software = NULL;
  g_autofree guint8 *rgba = pattern (8, 4);
  g_autoptr (GError) error = NULL;
  GStatBuf st;

  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  g_assert_cmpint (symlink ("sub/picture.png", link), ==, 0);
  g_assert_true (braggscope_snapshot_save (link, rgba, 8, 4, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_lstat (link, &st), ==, 0);
  g_assert_true (S_ISLNK (st.st_mode));
  text = g_file_read_link (link, NULL);
  g_assert_cmpstr (text, ==, "sub/picture.png");
  software = check_pixels (target, rgba, 8, 4);

  if (g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_assert_cmpint (symlink ("/dev/full", full), ==, 0);
      g_assert_false (braggscope_snapshot_save (full, rgba, 8, 4, NULL, &error));
      g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
      g_assert_nonnull (strstr (error->message, full));
      g_assert_nonnull (strstr (error->message, g_strerror (ENOSPC)));
      g_assert_cmpint (g_lstat (full, &st), ==, 0);
      g_assert_true (S_ISLNK (st.st_mode));
      g_unlink (full);
    }
  g_unlink (target);
  g_unlink (link);
  g_rmdir (sub);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snapshot/round-trip", test_round_trip);
  g_test_add_func ("/snapshot/errors", test_errors);
  g_test_add_func ("/snapshot/links-and-devices", test_links_and_devices);
  return g_test_run ();
}
