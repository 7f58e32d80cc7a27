/* test-snapshot.c: PNG snapshots keep the picture and restore the parameters,
 * and carry their structure factors to another machine. */
#define _DEFAULT_SOURCE 1 /* symlink (), lstat () */

#include "plugin-test-util.h"

#include "formats/nb-models.h"

#include <errno.h>
#include <png.h>
#include <sys/stat.h>
#include <zlib.h>

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
  /* the structure factors in a folder with a space, left where they are
   * (not embedded): a file named for reading must be there (issue 27) */
  g_autofree char *data = g_dir_make_tmp ("braggscope-data dir-XXXXXX", NULL);
  g_autofree char *hkl = g_build_filename (data, "1hpv p1.hkl", NULL);
  g_autofree char *quoted = g_shell_quote (hkl);
  g_autofree char *cmdline = g_strdup_printf (
      "-hkl %s -cell 63.4 63.4 83.8 90 90 120 -lambda 1 -N 10 -mosaic 0.2 "
      "-mosaic_domains 5 -distance 120 -detpixels 1024 -pixel 0.1 -precision single -xds "
      "-backend cpu",
      quoted);
  g_autoptr (BraggscopeSimulation) sim =
      g_file_set_contents (hkl, "1 2 3 100\n", -1, NULL) ? simulation_from_cmdline (cmdline) : NULL;
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
  g_setenv ("BRAGGSCOPE_SNAPSHOT_EMBED_LIMIT", "0", TRUE);
  g_assert_true (braggscope_snapshot_save (path, rgba, 40, 30, sim, &error));
  g_unsetenv ("BRAGGSCOPE_SNAPSHOT_EMBED_LIMIT");
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
  g_unlink (hkl);
  g_rmdir (data);
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

    g_assert_true (g_file_set_contents (odd, "1 2 3 100\n", -1, NULL));
    g_assert_true (braggscope_simulation_set_from_args (sim, args, &error));
    g_assert_false (braggscope_snapshot_save (text, rgba, 4, 4, sim, &error));
    g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
    g_unlink (odd);
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

/* ---- portable snapshots ---- */

static char *
copy_file (const char *from, const char *dir, const char *name)
{
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  char *to = g_build_filename (dir, name, NULL);
  gsize length = 0;

  g_assert_true (g_file_get_contents (from, &contents, &length, &error));
  g_assert_true (g_file_set_contents (to, contents, (gssize) length, &error));
  g_assert_no_error (error);
  return to;
}

static void
remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir == NULL)
    {
      g_unlink (path);
      return;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      remove_tree (child);
    }
  g_dir_close (dir);
  g_rmdir (path);
}

typedef struct
{
  char type[5];
  guint32 length;
  int text_compression; /* tEXt/iTXt: png_text's compression (-1 tEXt, 1 iTXt) */
  char *key;
} Chunk;

/* The chunks of a PNG file, in order (text chunks with their key). */
static GArray *
list_chunks (const char *path)
{
  g_autofree guint8 *data = NULL;
  gsize length = 0;
  GArray *chunks = g_array_new (FALSE, TRUE, sizeof (Chunk));

  g_assert_true (g_file_get_contents (path, (char **) &data, &length, NULL));
  for (gsize at = 8; at + 12 <= length;)
    {
      Chunk c = { .text_compression = 0 };
      guint32 n = (guint32) data[at] << 24 | (guint32) data[at + 1] << 16 |
                  (guint32) data[at + 2] << 8 | data[at + 3];

      memcpy (c.type, data + at + 4, 4);
      c.length = n;
      if (strcmp (c.type, "tEXt") == 0 || strcmp (c.type, "iTXt") == 0)
        {
          c.key = g_strndup ((const char *) data + at + 8, MIN (n, 79));
          c.text_compression =
              c.type[0] == 't' ? PNG_TEXT_COMPRESSION_NONE : PNG_ITXT_COMPRESSION_NONE;
        }
      g_array_append_val (chunks, c);
      at += 12 + (gsize) n;
    }
  return chunks;
}

static const Chunk *
find_chunk (GArray *chunks, const char *type, const char *key)
{
  for (guint i = 0; i < chunks->len; i++)
    {
      const Chunk *c = &g_array_index (chunks, Chunk, i);

      if (strcmp (c->type, type) == 0 && (key == NULL || g_strcmp0 (c->key, key) == 0))
        return c;
    }
  return NULL;
}

static void
free_chunks (GArray *chunks)
{
  for (guint i = 0; i < chunks->len; i++)
    g_free (g_array_index (chunks, Chunk, i).key);
  g_array_unref (chunks);
}

static char **
args_without (char **args, const char *flag)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; args[i] != NULL; i++)
    if (g_str_equal (args[i], flag) && args[i + 1] != NULL)
      i++;
    else
      g_ptr_array_add (out, g_strdup (args[i]));
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

static const char *
flag_value (char **args, const char *flag)
{
  for (guint i = 0; args[i] != NULL; i++)
    if (g_str_equal (args[i], flag))
      return args[i + 1];
  return NULL;
}

/* Every property of two simulations has the same value, but the structure-factor
 * file's path and the bookkeeping (busy, sequence). */
static void
assert_same_properties (BraggscopeSimulation *a, BraggscopeSimulation *b)
{
  guint n = 0;
  g_autofree GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (a), &n);

  for (guint i = 0; i < n; i++)
    {
      g_auto (GValue) va = G_VALUE_INIT;
      g_auto (GValue) vb = G_VALUE_INIT;

      if (g_str_equal (specs[i]->name, "busy") || g_str_equal (specs[i]->name, "sequence"))
        continue;
      g_value_init (&va, specs[i]->value_type);
      g_value_init (&vb, specs[i]->value_type);
      g_object_get_property (G_OBJECT (a), specs[i]->name, &va);
      g_object_get_property (G_OBJECT (b), specs[i]->name, &vb);
      if (g_str_equal (specs[i]->name, "structure-factors"))
        continue;
      if (g_param_values_cmp (specs[i], &va, &vb) != 0)
        {
          g_autofree char *sa = g_strdup_value_contents (&va), *sb = g_strdup_value_contents (&vb);
          g_error ("property %s: %s saved, %s restored", specs[i]->name, sa, sb);
        }
    }
}

/* The done-when test of issue 13: a snapshot of the 1HPV scene, saved where
 * its HKL file was at hand, reopens in a fresh folder with that file gone and
 * no data folder: every parameter and the same image, bit for bit. */
static void
test_portable (void)
{
  g_autofree char *machine_a = temp_dir (), *machine_b = temp_dir ();
  g_autofree char *source = g_build_filename (g_getenv ("NB_DATA_DIR"), "1hpv_p1.hkl", NULL);
  g_autofree char *hkl = copy_file (source, machine_a, "1hpv_p1.hkl");
  g_autofree char *saved_png = g_build_filename (machine_a, "1hpv.png", NULL);
  g_autofree char *png = NULL, *cache = NULL;
  g_autofree guint8 *rgba = pattern (64, 48);
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new_default_scene (&error);
  g_autoptr (BraggscopeSimulation) restored = braggscope_simulation_new ();
  g_auto (GStrv) saved = NULL, again = NULL, saved_rest = NULL, again_rest = NULL;
  g_autofree float *image = NULL;
  Watch w, wr;
  BraggscopeFrame *frame;
  GArray *chunks;
  const Chunk *bsfz;
  const float *data;
  gsize n = 0;

  g_assert_no_error (error);
  {
    const char *args[] = { "-hkl", hkl, "-detpixels", "160", "-misset", "12.5", "-31", "7", NULL };
    g_assert_true (braggscope_simulation_set_from_args (sim, args, &error));
  }
  watch_init (&w, sim);
  frame = watch_wait_full (&w, 60);
  data = braggscope_frame_get_data (frame, &n);
  image = g_memdup2 (data, n * sizeof (float));
  saved = braggscope_simulation_to_args (sim);
  g_assert_true (braggscope_snapshot_save (saved_png, rgba, 64, 48, sim, &error));
  g_assert_no_error (error);

  /* the parameters in tEXt (ASCII), the file in bsFz, before the image data */
  chunks = list_chunks (saved_png);
  g_assert_cmpint (find_chunk (chunks, "tEXt", "braggscope:args")->text_compression, ==,
                   PNG_TEXT_COMPRESSION_NONE);
  g_assert_nonnull (find_chunk (chunks, "tEXt", "braggscope:command-line"));
  g_assert_nonnull (find_chunk (chunks, "tEXt", "braggscope:structure-factors"));
  bsfz = find_chunk (chunks, "bsFz", NULL);
  g_assert_nonnull (bsfz);
  g_assert_cmpuint (bsfz->length, <, 800 * 1000); /* 3.97 MB of text */
  g_assert_true (bsfz < find_chunk (chunks, "IDAT", NULL));
  free_chunks (chunks);

  /* "another machine": the snapshot alone in a fresh folder, the HKL file and
   * its folder gone, no data folder to look in */
  png = copy_file (saved_png, machine_b, "from-a-colleague.png");
  remove_tree (machine_a);
  g_setenv ("BRAGGSCOPE_DATADIR", machine_b, TRUE);
  g_assert_true (braggscope_simulation_load_snapshot (restored, png, &error));
  g_assert_no_error (error);
  g_unsetenv ("BRAGGSCOPE_DATADIR");

  /* the file came out of the snapshot, into the user's cache */
  again = braggscope_simulation_to_args (restored);
  cache = g_build_filename (g_getenv ("XDG_CACHE_HOME"), "braggscope", "structure-factors", NULL);
  g_assert_true (g_str_has_prefix (flag_value (again, "-hkl"), cache));
  g_assert_true (g_str_has_suffix (flag_value (again, "-hkl"), "/1hpv_p1.hkl"));
  saved_rest = args_without (saved, "-hkl");
  again_rest = args_without (again, "-hkl");
  g_assert_true (g_strv_equal ((const char *const *) saved_rest, (const char *const *) again_rest));
  assert_same_properties (sim, restored);
  {
    g_autofree char *original = NULL, *extracted = NULL;
    gsize lo = 0, le = 0;

    g_assert_true (g_file_get_contents (source, &original, &lo, NULL));
    g_assert_true (g_file_get_contents (flag_value (again, "-hkl"), &extracted, &le, NULL));
    g_assert_cmpmem (original, lo, extracted, le);
  }

  /* the same image */
  braggscope_simulation_render (restored);
  watch_init (&wr, restored);
  frame = watch_wait_full (&wr, 60);
  g_assert_cmpmem (braggscope_frame_get_data (frame, NULL), n * sizeof (float), image,
                   n * sizeof (float));

  /* reopened again: the cached copy serves (and is checked) */
  watch_clear (&wr);
  g_clear_object (&restored);
  restored = braggscope_simulation_new ();
  g_assert_true (braggscope_simulation_load_snapshot (restored, png, &error));
  g_auto (GStrv) third = braggscope_simulation_to_args (restored);
  g_assert_cmpstr (flag_value (third, "-hkl"), ==, flag_value (again, "-hkl"));

  watch_clear (&w);
  remove_tree (machine_b);
}

/* An atomic model travels inside the snapshot as a structure-factor file
 * does: reopened with the model deleted, the structure factors are computed
 * from the embedded copy, the cell is the model's again (no -cell saved), and
 * the image is the same. */
static void
test_model_portable (void)
{
  g_autofree char *machine_a = temp_dir (), *machine_b = temp_dir ();
  g_autofree char *source = g_build_filename (g_getenv ("NB_DATA_DIR"), "1hpv.pdb", NULL);
  g_autofree char *model = copy_file (source, machine_a, "1hpv.pdb");
  g_autofree char *saved_png = g_build_filename (machine_a, "protease.png", NULL);
  g_autofree char *png = NULL;
  g_autofree guint8 *rgba = pattern (32, 32);
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autoptr (BraggscopeSimulation) restored = braggscope_simulation_new ();
  g_auto (GStrv) saved = NULL, again = NULL;
  g_autofree float *image = NULL;
  Watch w, wr;
  BraggscopeFrame *frame;
  const float *data;
  gsize n = 0;
  double gamma = 0.0;
  const char *args[] = { "-model", model,        "-lambda", "1",          "-N",
                         "5",      "-distance",  "100",     "-detpixels", "64",
                         "-pixel", "0.4",        "-misset", "10",         "20",
                         "30",     "-precision", "single",  NULL };

  if (!nb_models_available ())
    {
      g_test_skip ("this build has no models module (gemmi)");
      remove_tree (machine_a);
      remove_tree (machine_b);
      return;
    }
  g_assert_true (braggscope_simulation_set_from_args (sim, args, &error));
  g_assert_no_error (error);
  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  frame = watch_wait_full (&w, 60);
  data = braggscope_frame_get_data (frame, &n);
  image = g_memdup2 (data, n * sizeof (float));
  saved = braggscope_simulation_to_args (sim);
  g_assert_null (flag_value (saved, "-cell"));
  g_assert_true (braggscope_snapshot_save (saved_png, rgba, 32, 32, sim, &error));
  g_assert_no_error (error);
  {
    GArray *chunks = list_chunks (saved_png);

    g_assert_nonnull (find_chunk (chunks, "bsFz", NULL));
    free_chunks (chunks);
  }

  /* the snapshot alone on "another machine": the model and its folder gone */
  png = copy_file (saved_png, machine_b, "protease.png");
  remove_tree (machine_a);
  g_setenv ("BRAGGSCOPE_DATADIR", machine_b, TRUE);
  g_assert_true (braggscope_simulation_load_snapshot (restored, png, &error));
  g_assert_no_error (error);
  g_unsetenv ("BRAGGSCOPE_DATADIR");
  again = braggscope_simulation_to_args (restored);
  g_assert_true (g_str_has_suffix (flag_value (again, "-hkl"), "/1hpv.pdb"));
  g_assert_null (flag_value (again, "-cell"));

  braggscope_simulation_render (restored);
  watch_init (&wr, restored);
  frame = watch_wait_full (&wr, 60);
  g_assert_cmpmem (braggscope_frame_get_data (frame, NULL), n * sizeof (float), image,
                   n * sizeof (float));
  /* the crystal's cell is the model's (P 61: gamma 120) */
  g_object_get (restored, "cell-gamma", &gamma, NULL);
  g_assert_cmpfloat_with_epsilon (gamma, 120.0, 1e-6);

  watch_clear (&wr);
  watch_clear (&w);
  remove_tree (machine_b);
}

/* A file too large to embed travels by name, size and SHA-256: found next to
 * the snapshot or in the data folder, refused with another SHA-256. */
static void
test_not_embedded (void)
{
  g_autofree char *a = temp_dir (), *b = temp_dir (), *data = temp_dir ();
  g_autofree char *hkl = g_build_filename (a, "scene.hkl", NULL);
  g_autofree char *saved_png = g_build_filename (a, "shot.png", NULL);
  g_autofree char *png = NULL, *beside = NULL, *in_data = NULL;
  g_autofree guint8 *rgba = pattern (8, 8);
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_autoptr (BraggscopeSimulation) restored = braggscope_simulation_new ();
  g_auto (GStrv) args = NULL;
  const char *contents = "1 2 3 100\n-1 0 4 50.5\n0 0 2 20\n";
  GArray *chunks;

  g_assert_true (g_file_set_contents (hkl, contents, -1, NULL));
  {
    const char *flags[] = { "-hkl", hkl, NULL };
    g_assert_true (braggscope_simulation_set_from_args (sim, flags, &error));
  }
  g_setenv ("BRAGGSCOPE_SNAPSHOT_EMBED_LIMIT", "0", TRUE);
  g_assert_true (braggscope_snapshot_save (saved_png, rgba, 8, 8, sim, &error));
  g_unsetenv ("BRAGGSCOPE_SNAPSHOT_EMBED_LIMIT");
  g_assert_no_error (error);
  chunks = list_chunks (saved_png);
  g_assert_null (find_chunk (chunks, "bsFz", NULL));
  g_assert_nonnull (find_chunk (chunks, "tEXt", "braggscope:structure-factors"));
  free_chunks (chunks);

  /* on this machine: the file where it was */
  args = braggscope_snapshot_restore_args (saved_png, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (flag_value (args, "-hkl"), ==, hkl);
  g_clear_pointer (&args, g_strfreev);

  /* elsewhere, nowhere to be found: the message says what is missing */
  png = copy_file (saved_png, b, "shot.png");
  g_unlink (hkl);
  g_setenv ("BRAGGSCOPE_DATADIR", data, TRUE);
  g_assert_false (braggscope_simulation_load_snapshot (restored, png, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "scene.hkl"));
  g_assert_nonnull (strstr (error->message, "not embedded"));
  g_assert_nonnull (strstr (error->message, "SHA-256"));
  g_assert_nonnull (strstr (error->message, "31 bytes"));
  g_assert_null (strchr (error->message, '\n'));
  g_clear_error (&error);

  /* a file of that name but other contents is refused */
  beside = g_build_filename (b, "scene.hkl", NULL);
  g_assert_true (g_file_set_contents (beside, "1 2 3 999\n", -1, NULL));
  g_assert_false (braggscope_simulation_load_snapshot (restored, png, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "another file"));
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (beside, "1 2 3 100\n-1 0 4 50.5\n0 0 2 21\n", -1, NULL));
  g_assert_false (braggscope_simulation_load_snapshot (restored, png, &error));
  g_assert_nonnull (strstr (error->message, "SHA-256"));
  g_clear_error (&error);

  /* the right file in the data folder */
  in_data = g_build_filename (data, "scene.hkl", NULL);
  g_assert_true (g_file_set_contents (in_data, contents, -1, NULL));
  args = braggscope_snapshot_restore_args (png, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (flag_value (args, "-hkl"), ==, in_data);
  g_clear_pointer (&args, g_strfreev);

  /* and next to the snapshot, which comes first */
  g_assert_true (g_file_set_contents (beside, contents, -1, NULL));
  g_assert_true (braggscope_simulation_load_snapshot (restored, png, &error));
  g_assert_no_error (error);
  args = braggscope_simulation_to_args (restored);
  g_assert_cmpstr (flag_value (args, "-hkl"), ==, beside);
  g_unsetenv ("BRAGGSCOPE_DATADIR");

  remove_tree (a);
  remove_tree (b);
  remove_tree (data);
}

/* Text that is not ASCII goes into iTXt, and comes back. */
static void
test_utf8_text (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *hkl = g_build_filename (dir, "protéine.hkl", NULL);
  g_autofree char *png = g_build_filename (dir, "shot.png", NULL);
  g_autofree guint8 *rgba = pattern (4, 4);
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_auto (GStrv) saved = NULL, loaded = NULL;
  GArray *chunks;

  g_assert_true (g_file_set_contents (hkl, "1 2 3 100\n", -1, NULL));
  {
    const char *flags[] = { "-hkl", hkl, NULL };
    g_assert_true (braggscope_simulation_set_from_args (sim, flags, &error));
  }
  g_assert_true (braggscope_snapshot_save (png, rgba, 4, 4, sim, &error));
  g_assert_no_error (error);
  chunks = list_chunks (png);
  g_assert_nonnull (find_chunk (chunks, "iTXt", "braggscope:args"));
  g_assert_nonnull (find_chunk (chunks, "iTXt", "braggscope:structure-factors"));
  g_assert_nonnull (find_chunk (chunks, "tEXt", "Software"));
  g_assert_nonnull (find_chunk (chunks, "bsFz", NULL));
  free_chunks (chunks);
  saved = braggscope_simulation_to_args (sim);
  loaded = braggscope_snapshot_restore_args (png, &error);
  g_assert_no_error (error);
  g_assert_true (g_strv_equal ((const char *const *) saved, (const char *const *) loaded));
  remove_tree (dir);
}

/* ------------------------------------------------------------------------- */
/* Issue 23: what a snapshot made by someone else may do */

/* A 2 x 2 PNG at @path whose "braggscope:args" text chunk holds @args, as
 * an attacker would write it with any PNG library. */
static void
write_png_with_args (const char *path, const char *args)
{
  const guint8 row[2 * 4] = { 0, 0, 0, 255, 255, 255, 255, 255 };
  png_structp png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png_create_info_struct (png);
  png_text text = { .compression = PNG_TEXT_COMPRESSION_NONE,
                    .key = (char *) "braggscope:args",
                    .text = (char *) args };
  FILE *fp = fopen (path, "wb");

  g_assert_nonnull (fp);
  png_init_io (png, fp);
  png_set_IHDR (png, info, 2, 2, 8, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
                PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_text (png, info, &text, 1);
  png_write_info (png, info);
  png_write_row (png, row);
  png_write_row (png, row);
  png_write_end (png, info);
  png_destroy_write_struct (&png, &info);
  g_assert_cmpint (fclose (fp), ==, 0);
}

static gboolean
strv_has (char **strv, const char *word)
{
  return strv != NULL && g_strv_contains ((const char *const *) strv, word);
}

/* Item 1: a snapshot naming a file to write (-dump beside -hkl made the
 * worker write a 2.7 MB Fdump over any file) is refused, and nothing is
 * written, not even when the simulation renders afterwards. */
static void
test_outputs_refused (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *hkl = g_build_filename (dir, "P1.hkl", NULL);
  g_autofree char *victim = g_build_filename (dir, "victim", NULL);
  g_autofree char *png = g_build_filename (dir, "evil.png", NULL);
  const char *const flags[] = { "-dump",    "-dumpfile",  "-floatfile", "-floatimage", "-intfile",
                                "-pgmfile", "-noisefile", "-pngfile",   "-stolout" };
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_auto (GStrv) before = braggscope_simulation_to_args (sim);
  Watch w;

  g_assert_true (g_file_set_contents (hkl, "1 2 3 100\n0 0 2 50\n", -1, NULL));
  g_assert_true (g_file_set_contents (victim, "precious", -1, NULL));
  watch_init (&w, sim);
  braggscope_simulation_render (sim);
  for (guint i = 0; i < G_N_ELEMENTS (flags); i++)
    {
      g_autofree char *args = g_strdup_printf (
          "nanobragg\n-hkl\n%s\n%s\n%s\n-cell\n50\n50\n50\n90\n90\n90\n-detpixels\n16", hkl,
          flags[i], victim);
      g_autoptr (GError) error = NULL;
      g_autofree char *contents = NULL;
      g_auto (GStrv) after = NULL;

      write_png_with_args (png, args);
      g_assert_false (braggscope_simulation_load_snapshot (sim, png, &error));
      g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
      g_assert_true (g_str_has_prefix (error->message, png));
      g_assert_nonnull (strstr (error->message, flags[i]));
      g_assert_nonnull (strstr (error->message, "names a file to write"));
      g_assert_null (strchr (error->message, '\n'));
      /* nothing changed, and what renders writes nothing */
      after = braggscope_simulation_to_args (sim);
      g_assert_true (g_strv_equal ((const char *const *) before, (const char *const *) after));
      watch_wait_full (&w, 60.0);
      g_assert_true (g_file_get_contents (victim, &contents, NULL, NULL));
      g_assert_cmpstr (contents, ==, "precious");
    }
  /* the arguments alone are still read (a host may show them) */
  {
    g_autoptr (GError) error = NULL;
    g_auto (GStrv) args = braggscope_snapshot_load_args (png, &error);

    g_assert_no_error (error);
    g_assert_true (strv_has (args, "-stolout"));
  }
  watch_clear (&w);
  remove_tree (dir);
}

/* Item 1: output flags given to a simulation are never saved into a
 * snapshot, its arguments or its command line. */
static void
test_outputs_not_saved (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *hkl = g_build_filename (dir, "P1.hkl", NULL);
  g_autofree char *dump = g_build_filename (dir, "Fdump.bin", NULL);
  g_autofree char *png = g_build_filename (dir, "shot.png", NULL);
  g_autofree guint8 *rgba = pattern (4, 4);
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_autoptr (BraggscopeSimulation) back = braggscope_simulation_new ();
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = NULL, loaded = NULL;
  g_autofree char *command_line = NULL;
  const char *flags[] = { "-hkl",       hkl,        "-dump",    dump,       "-floatfile",
                          "f.bin",      "-intfile", "i.img",    "-pgmfile", "p.pgm",
                          "-noisefile", "n.img",    "-pngfile", "p.png",    NULL };

  g_assert_true (g_file_set_contents (hkl, "1 2 3 100\n", -1, NULL));
  g_assert_true (braggscope_simulation_set_from_args (sim, flags, &error));
  g_assert_no_error (error);
  args = braggscope_simulation_to_args (sim);
  command_line = braggscope_simulation_to_command_line (sim);
  g_assert_true (strv_has (args, "-hkl"));
  for (guint i = 2; flags[i] != NULL; i += 2)
    {
      g_assert_false (strv_has (args, flags[i]));
      g_assert_false (strv_has (args, flags[i + 1]));
      g_assert_null (strstr (command_line, flags[i]));
    }
  g_assert_true (braggscope_snapshot_save (png, rgba, 4, 4, sim, &error));
  g_assert_no_error (error);
  loaded = braggscope_snapshot_load_args (png, &error);
  g_assert_no_error (error);
  g_assert_true (g_strv_equal ((const char *const *) args, (const char *const *) loaded));
  g_assert_true (braggscope_simulation_load_snapshot (back, png, &error));
  g_assert_no_error (error);
  remove_tree (dir);
}

/* Item 1: the host's way to clean arguments saved before. */
static void
test_drop_outputs (void)
{
  const char *const saved[] = { "-distance",   "100",   "-dump", "/x/victim", "-N",       "5",
                                "-floatimage", "f.bin", "-hkl",  "dump",      "-pngfile", NULL };
  const char *const clean[] = { "-distance", "100", "-N", "5", "-hkl", "dump", NULL };
  g_autofree char *dropped = NULL;
  g_auto (GStrv) kept = braggscope_scene_args_drop_outputs (saved, &dropped);
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();
  g_autoptr (GError) error = NULL;

  g_assert_true (g_strv_equal ((const char *const *) kept, clean));
  g_assert_cmpstr (dropped, ==, "-dump /x/victim -floatimage f.bin -pngfile");
  g_clear_pointer (&dropped, g_free);
  g_clear_pointer (&kept, g_strfreev);
  kept = braggscope_scene_args_drop_outputs (clean, &dropped);
  g_assert_null (dropped);
  g_assert_true (g_strv_equal ((const char *const *) kept, clean));

  g_assert_false (braggscope_simulation_set_scene_from_args (sim, saved, "lesson.desktop", &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==,
                   "lesson.desktop: -dump names a file to write, which a scene may not hold");
  g_clear_error (&error);
  /* the word "dump" stayed the value of -hkl: a file to read, missing here,
   * refused by the call (issue 27) */
  g_assert_false (braggscope_simulation_set_scene_from_args (sim, clean, "lesson.desktop", &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "-hkl: cannot open dump"));
}

/* Appends a PNG chunk (length, type, data, CRC) to @out. */
static void
append_chunk (GByteArray *out, const char *type, const guint8 *data, gsize length)
{
  guint32 be = GUINT32_TO_BE ((guint32) length);
  guint32 crc = (guint32) crc32 (crc32 (0, (const Bytef *) type, 4), data, (uInt) length);

  crc = GUINT32_TO_BE (crc);
  g_byte_array_append (out, (const guint8 *) &be, 4);
  g_byte_array_append (out, (const guint8 *) type, 4);
  if (length > 0)
    g_byte_array_append (out, data, (guint) length);
  g_byte_array_append (out, (const guint8 *) &crc, 4);
}

/* A zlib stream of @blocks MiB of zeros, made from one compressed MiB
 * repeated (each block flushed in full, so they are alike): seconds to make,
 * not the minutes compressing gigabytes would take.  Its checksum is not
 * right, which a reader only sees once it has inflated everything. */
static GByteArray *
zeros_stream (guint blocks)
{
  GByteArray *out = g_byte_array_new ();
  g_autofree guint8 *zeros = g_malloc0 (1 << 20);
  guint8 buffer[1 << 16];
  z_stream z = { 0 };
  guint first = 0, block_start = 0;

  g_assert_cmpint (deflateInit (&z, 9), ==, Z_OK);
  for (guint pass = 0; pass < 2; pass++)
    {
      z.next_in = zeros;
      z.avail_in = 1 << 20;
      block_start = out->len;
      do
        {
          z.next_out = buffer;
          z.avail_out = sizeof buffer;
          g_assert_cmpint (deflate (&z, Z_FULL_FLUSH), ==, Z_OK);
          g_byte_array_append (out, buffer, sizeof buffer - z.avail_out);
        }
      while (z.avail_out == 0);
      if (pass == 0)
        first = out->len;
    }
  deflateEnd (&z);
  {
    g_autofree guint8 *block = g_memdup2 (out->data + block_start, out->len - block_start);
    guint block_length = out->len - block_start;

    for (guint i = 2; i < blocks; i++)
      g_byte_array_append (out, block, block_length);
  }
  /* an empty final block and a checksum */
  g_byte_array_append (out, (const guint8 *) "\x03\x00\x00\x00\x00\x01", 6);
  g_assert_cmpuint (first, >, 0);
  return out;
}

/* Item 8: a decompression bomb, 65536 x 65536 RGBA16 pixels (34 GB
 * inflated) in 35 MB, with its arguments after the image data: the reader
 * found them only by decoding every row, 80 s on the calling thread.  Now
 * the image data is skipped unread.  Also a text chunk that inflates to
 * 512 MiB is refused, not inflated. */
static void
test_decompression_bomb (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *bomb = g_build_filename (dir, "bomb.png", NULL);
  g_autofree char *ztxt = g_build_filename (dir, "ztxt.png", NULL);
  static const guint8 signature[8] = { 137, 'P', 'N', 'G', 13, 10, 26, 10 };
  /* 65536 x 65536, 16 bits, RGBA, deflate, adaptive filters, not interlaced */
  static const guint8 ihdr[13] = { 0, 1, 0, 0, 0, 1, 0, 0, 16, 6, 0, 0, 0 };
  const char *args = "braggscope:args\0nanobragg\n-distance\n150";
  g_autoptr (GByteArray) png = g_byte_array_new ();
  g_autoptr (GByteArray) stream = zeros_stream (32768);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) loaded = NULL;
  gint64 start;
  double seconds;

  g_byte_array_append (png, signature, 8);
  append_chunk (png, "IHDR", ihdr, sizeof ihdr);
  for (guint at = 0; at < stream->len; at += 1 << 20)
    append_chunk (png, "IDAT", stream->data + at, MIN (1u << 20, stream->len - at));
  append_chunk (png, "tEXt", (const guint8 *) args, 16 + strlen (args + 16));
  append_chunk (png, "IEND", NULL, 0);
  g_assert_true (g_file_set_contents (bomb, (const char *) png->data, png->len, NULL));
  g_test_message ("bomb: %u bytes of PNG", png->len);

  start = g_get_monotonic_time ();
  loaded = braggscope_snapshot_load_args (bomb, &error);
  seconds = (g_get_monotonic_time () - start) / 1e6;
  g_test_message ("braggscope_snapshot_load_args on the bomb: %.4f s", seconds);
  g_assert_no_error (error);
  g_assert_cmpstr (loaded[2], ==, "150");
  g_assert_cmpfloat (seconds, <, 1.0);

  /* a zTXt "braggscope:args" of 512 MiB of zeros in half a MB */
  {
    g_autoptr (GByteArray) text = zeros_stream (512);
    g_autoptr (GByteArray) chunk = g_byte_array_new ();

    g_byte_array_set_size (png, 8);
    append_chunk (png, "IHDR", ihdr, sizeof ihdr);
    g_byte_array_append (chunk, (const guint8 *) "braggscope:args\0\0", 17);
    g_byte_array_append (chunk, text->data, text->len);
    append_chunk (png, "zTXt", chunk->data, chunk->len);
    append_chunk (png, "IEND", NULL, 0);
    g_assert_true (g_file_set_contents (ztxt, (const char *) png->data, png->len, NULL));
    start = g_get_monotonic_time ();
    g_assert_null (braggscope_snapshot_load_args (ztxt, &error));
    g_test_message ("the 512 MiB zTXt refused in %.4f s", (g_get_monotonic_time () - start) / 1e6);
    g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_PARSE);
    g_assert_nonnull (strstr (error->message, "inflates to more than"));
  }
  remove_tree (dir);
}

/* Item 8: the reader never waits on what is not a regular file. */
static void
test_not_regular (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *fifo = g_build_filename (dir, "fifo.png", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (BraggscopeSimulation) sim = braggscope_simulation_new ();

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_null (braggscope_snapshot_load_args (fifo, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "not a regular file"));
  g_clear_error (&error);
  g_assert_false (braggscope_simulation_load_snapshot (sim, dir, &error));
  g_assert_error (error, BRAGGSCOPE_ERROR, BRAGGSCOPE_ERROR_IO);
  remove_tree (dir);
}

/* Issue 31: a snapshot keeps the integration and its tolerance.  A
 * snapshot without -integration (one of an exact frame, or any made before
 * the library had adaptive integration) reopens exact, as it was made and as
 * nanobragg renders its flags, not as the new simulation's default. */
static void
test_integration (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *path = g_build_filename (dir, "shot.png", NULL);
  g_autofree guint8 *rgba = pattern (8, 8);
  g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (SMALL_SCENE);
  g_autoptr (BraggscopeSimulation) restored = braggscope_simulation_new ();
  g_autoptr (BraggscopeSimulation) fresh = braggscope_simulation_new ();
  g_autoptr (GError) error = NULL;
  BraggscopeIntegration integration = BRAGGSCOPE_INTEGRATION_EXACT;
  double tolerance = 0.0;

  g_object_set (sim, "tolerance", 1e-4, NULL);
  g_assert_true (braggscope_snapshot_save (path, rgba, 8, 8, sim, &error));
  g_assert_no_error (error);
  /* restored over other settings, not left at the default */
  g_object_set (restored, "integration", BRAGGSCOPE_INTEGRATION_EXACT, "tolerance", 0.5, NULL);
  g_assert_true (braggscope_simulation_load_snapshot (restored, path, &error));
  g_assert_no_error (error);
  g_object_get (restored, "integration", &integration, "tolerance", &tolerance, NULL);
  g_assert_cmpint (integration, ==, BRAGGSCOPE_INTEGRATION_ADAPTIVE);
  g_assert_cmpfloat_with_epsilon (tolerance, 1e-4, 1e-15);

  g_object_set (sim, "integration", BRAGGSCOPE_INTEGRATION_EXACT, NULL);
  g_assert_true (braggscope_snapshot_save (path, rgba, 8, 8, sim, &error));
  g_assert_no_error (error);
  g_assert_true (braggscope_simulation_load_snapshot (fresh, path, &error));
  g_assert_no_error (error);
  g_object_get (fresh, "integration", &integration, NULL);
  g_assert_cmpint (integration, ==, BRAGGSCOPE_INTEGRATION_EXACT);

  g_unlink (path);
  g_rmdir (dir);
}

/* The -detector_shift and -detector_rotation of @sim's parameters (m, rad). */
static void
detector_motion (BraggscopeSimulation *sim, double motion[6])
{
  g_autofree char *cmd = braggscope_simulation_to_command_line (sim);
  g_auto (GStrv) argv = NULL;
  int argc = 0;
  nb_params p;
  nb_error err = { 0 };

  g_assert_true (g_shell_parse_argv (cmd, &argc, &argv, NULL));
  nb_params_init (&p);
  g_assert_cmpint (nb_params_parse_argv (&p, argc, (const char *const *) argv, &err), ==, NB_OK);
  memcpy (motion, p.detector_shift, 3 * sizeof *motion);
  memcpy (motion + 3, p.detector_rotation, 3 * sizeof *motion);
  nb_params_clear (&p);
}

/* The snapshot of the simulation of @cmdline (saved at @path, an 8 x 8
 * picture @rgba) loaded into @restored: its detector motion in @got. */
static void
motion_round_trip (const char *cmdline,
                   const char *path,
                   const guint8 *rgba,
                   BraggscopeSimulation *restored,
                   double got[6])
{
  g_autoptr (GError) error = NULL;
  {
    g_autoptr (BraggscopeSimulation) sim = simulation_from_cmdline (cmdline);

    g_assert_true (braggscope_snapshot_save (path, rgba, 8, 8, sim, &error));
    g_assert_no_error (error);
  }
  g_assert_true (braggscope_simulation_load_snapshot (restored, path, &error));
  g_assert_no_error (error);
  detector_motion (restored, got);
}

/* Issue 29: a snapshot keeps a multi-panel detector's refined motion
 * (-detector_shift, -detector_rotation); one saved without it (as every
 * snapshot before) reopens with the panels where the file puts them. */
static void
test_detector_motion (void)
{
  g_autofree char *dir = temp_dir ();
  g_autofree char *path = g_build_filename (dir, "shot.png", NULL);
  g_autofree char *geom = g_build_filename (dir, "two.geom", NULL);
  g_autofree guint8 *rgba = pattern (8, 8);
  g_autofree char *moved = NULL, *plain = NULL;
  g_autoptr (BraggscopeSimulation) restored = braggscope_simulation_new ();
  const double want[6] = { 0.4e-3,           0.25e-3,           -0.3e-3,
                           0.1 / 180 * G_PI, 0.08 / 180 * G_PI, -0.06 / 180 * G_PI };
  double got[6];

  g_assert_true (g_file_set_contents (geom,
                                      "res = 10000\nclen = 0.06 m\n"
                                      "a/min_fs = 0\na/max_fs = 15\na/min_ss = 0\na/max_ss = 15\n"
                                      "a/fs = 1x\na/ss = 1y\na/corner_x = -20\na/corner_y = -8\n"
                                      "b/min_fs = 16\nb/max_fs = 31\nb/min_ss = 0\nb/max_ss = 15\n"
                                      "b/fs = 1x\nb/ss = 1y\nb/corner_x = 4\nb/corner_y = -8\n",
                                      -1, NULL));
  moved = g_strdup_printf ("-cell 50 50 50 90 90 90 -N 2 -default_F 10 -oversample 1 -detector %s "
                           "-detector_shift 0.4 0.25 -0.3 -detector_rotation 0.1 0.08 -0.06",
                           geom);
  motion_round_trip (moved, path, rgba, restored, got);
  for (int k = 0; k < 6; k++)
    g_assert_cmpfloat (fabs (got[k] - want[k]), <=, 1e-15 * fabs (want[k]));
  /* a snapshot without the motion restores none, over a simulation that had one */
  plain = g_strdup_printf ("-cell 50 50 50 90 90 90 -N 2 -default_F 10 -oversample 1 -detector %s",
                           geom);
  motion_round_trip (plain, path, rgba, restored, got);
  for (int k = 0; k < 6; k++)
    g_assert_cmpfloat (got[k], ==, 0.0);
  g_unlink (path);
  g_unlink (geom);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_autofree char *cache = g_dir_make_tmp ("braggscope-cache-XXXXXX", NULL);
  int status;

  /* a user cache folder of our own (embedded structure factors are written
   * there), set before GLib reads it */
  g_assert_nonnull (cache);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snapshot/round-trip", test_round_trip);
  g_test_add_func ("/snapshot/errors", test_errors);
  g_test_add_func ("/snapshot/integration", test_integration);
  g_test_add_func ("/snapshot/detector-motion", test_detector_motion);
  g_test_add_func ("/snapshot/links-and-devices", test_links_and_devices);
  g_test_add_func ("/snapshot/portable", test_portable);
  g_test_add_func ("/snapshot/not-embedded", test_not_embedded);
  g_test_add_func ("/snapshot/model-portable", test_model_portable);
  g_test_add_func ("/snapshot/utf8-text", test_utf8_text);
  g_test_add_func ("/snapshot/outputs-refused", test_outputs_refused);
  g_test_add_func ("/snapshot/outputs-not-saved", test_outputs_not_saved);
  g_test_add_func ("/snapshot/drop-outputs", test_drop_outputs);
  g_test_add_func ("/snapshot/decompression-bomb", test_decompression_bomb);
  g_test_add_func ("/snapshot/not-regular", test_not_regular);
  status = g_test_run ();
  remove_tree (cache);
  return status;
}
