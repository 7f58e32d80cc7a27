/* test-kat.c: the nine known-answer vectors of physics.md §23, run through
 * the nanobragg CLI ($NB_CLI) with two OpenMP threads: the SHA-256 of the
 * float, SMV and noise files, and the lines the reference printed. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "nb-test-util.h"

typedef struct
{
  const char *id;
  const char *args; /* before the common suffix */
  const char *sha_float, *sha_int, *sha_noise;
  const char *printed[4]; /* lines (or line starts) of stdout */
} kat;

static const kat kats[] = {
  { "kat1",
    "-default_F 100 -cell 100 100 100 90 90 90 -detpixels 64 -distance 100 -lambda 1 -N 5 -seed 1",
    "f69eef579831c3ada8f376d5abf6f751cf24c00cc66ad2378edb2ed084394f29",
    "49716c23159cd22f24804b4674748b656ee1a8ee7c65b41ca6409f77ae202d11",
    "e10d2203f6fbc3d41dd8dcb6f336df16f77e3aa2e19dfcee721f0658731126d0",
    { "\nmax_I = 97.2806  at 0.003375 0.003375\n", "\nmean= 6.15088 rms= 18.8102 rmsd= 17.7759\n",
      "\nintfile_scale = 565.375\n", "\n25225 photons on noise image (0 overloads)\n" } },
  { "kat2",
    "-cell 70 80 90 75 85 95 -N 5 -mosaic 0.5 -mosaic_dom 5 -mosaic_seed 12345 -phi 0 -osc 90 "
    "-phisteps 9 -detector_rotx 5 -detector_roty 3 -detector_rotz 2 -twotheta 10 "
    "-detector_abs 500 -detector_thick 450 -thicksteps 5 -polar 0.95 -detpixels 64 -pixel 0.1 "
    "-distance 100 -lambda 6.2 -oversample 1 -seed 42 -default_F 100 -mosflm -misset 15 25 35",
    "079b0710b01a4383cd69ea4743149ac362b4a15c7b3ef19f0b3a530feb0dec62",
    "8c123ebd09378dea91de7e060218839d9e15bb43cc369a48a38189a7effc3977",
    "3c43c2c3afebf00e2171ea35a30a2b369478fcda7ead1141113b2330bf042cae",
    { "\nmax_I = 62.9812  at 0.00335 0.00325\n", "\nmean= 3.34933 ",
      "\n13986 photons on noise image (" } },
  { "kat3",
    "-xds -cell 60 70 80 90 90 90 -N 4 -default_F 50 -lambda 1.2 -distance 80 -detpixels 48 "
    "-pixel 0.15 -hdivrange 0.5 -hdivsteps 3 -vdivrange 0.4 -vdivsteps 3 -dispersion 2 "
    "-dispsteps 3 -oversample 2 -oversample_omega -seed 5",
    "87f1ae03d0a190542c3b66f7bf116a696d11812f34e1160df63cd9e3fac5b839",
    "fe73c4bb42656ee0fe6c2baa1ba6e3a2de3482a5b5459a51e4f3e71a40077d31",
    "655e4d308d4b25215c7d20714323563bcc68b920771e520f50e738640c7ac8eb",
    { "\nmax_I = 0.576827  at ", "\nmean= 0.0347728 ", "\n84 photons on noise image (" } },
  { "kat4",
    "-hkl grid.hkl -cell 50 50 50 90 90 90 -N 2 -lambda 1 -distance 60 -detpixels 48 -seed 3",
    "c72457d627847363cbb463289b44fa7895b3320c0399bdb035737311f659219a",
    "1dc8228bcfb1486e09b7f1b5144dc423da3b1e9a1c144e01ee9157ebd6d8f212",
    "c5be253487a691e28963dd663f6a8c348968c80b58aca3bb75db59e85f12e00b",
    { "\nmax_I = 2.07498  at ", "\nmean= 0.424982 ", "\n957 photons on noise image (",
      "\nauto-selected tricubic interpolation of structure factors\n" } },
  { "kat5",
    "-round_xtal -fudge 1.2 -cell 80 80 80 90 90 90 -N 6 -default_F 10 -lambda 1.3 -distance 90 "
    "-detpixels 48 -misset 3 4 5 -seed 4",
    "6f5c86dd5b114c42d8602bd3e3eec3b44ae4b13057f3dc7184ec3ac344a22135",
    "b1fc1da58b941494ea768b4c340f8eabd53a4f4a83ecf4210c2f40d9da6816ca",
    "2355b205d59a3d44299746d9fe0303c3cf73d587e90699720569e89aa118961c",
    { "\nmax_I = 2.66968  at ", "\n132 photons on noise image (" } },
  { "kat6",
    "-gauss_xtal -curved_det -point_pixel -cell 80 80 80 90 90 90 -N 6 -default_F 10 -lambda 1.3 "
    "-distance 90 -detpixels 48 -misset 3 4 5 -seed 4",
    "176b4716fbb9f0da30f20cad7a88721e4be85a4e36ec346e5b191a0f82f3dcee",
    "bc28a73d22cfe1e13467c9f0f67626e527794971edaea5ad284f218d073afc91",
    "32564aa0f17c4ca4c60a341ea1c9f398c62650357bb1882c1ee4c80d610d436c",
    { "\nmax_I = 5.57084e+08  at ", "\n128066222409 photons on noise image (2199 overloads)\n" } },
  { "kat7",
    "-tophat_spots -water 50 -cell 80 80 80 90 90 90 -N 6 -default_F 10 -lambda 1.3 -distance 90 "
    "-detpixels 48 -misset 3 4 5 -seed 4 -adc 10 -fluence 1e24",
    "7049bad5ec7dc2391479567cf8d6545061f35c61b31ad43ef194474ca810a6cd",
    "47929142c2b15999aadbaf036ded3f9004f81ea2d0c05266f149c72dfec18f59",
    "44909ce57fabb22c3d154c78752d326f5fdfebea94f3f2bf2c9e1b33b1380351",
    { "\nmax_I = 0.537619  at ", " rmsd= 0.000330798\n", "\n1240 photons on noise image (" } },
  { "kat8",
    "-hkl small.hkl -cell 40 40 40 90 90 90 -N 1 -lambda 1 -distance 50 -detpixels 48 -pixel 0.2 "
    "-seed 3",
    "519797a325f0c5de778b97084c18964e1a35094426ad29664c1d10b7170c5ca0",
    "2a5a50023a5d3f30fcf5600960f48ddacba3d520a3bac67ba439ffd0fbb787a0",
    "970d8ea8a7cf6d89e48a199c6572ecd8c00eeffc30571092349163de3b5d6356",
    { "\nmax_I = 0.0604468  at ", "\n81 photons on noise image (",
      "WARNING: out of range for three point interpolation: h,k,l,h0,k0,l0: "
      "-0.378713,3.88289,-3.88289,0,4,-4 \n" } },
  { "kat9",
    "-sourcefile src.txt -cell 100 100 100 90 90 90 -N 3 -default_F 100 -lambda 1 -distance 100 "
    "-detpixels 48 -seed 9",
    "3a328f12a3d3a125e36b0aca81ffa11ec991b226841a5396354cc5b1e1934922",
    "85005187507eb9a4e44f9ac65790a1705a76e5e8e116ed8f01790faac26024d3",
    "cd9ba4173d3acd38bde86cffeefa250faf3548913ddd67cfd72234b370f8000f",
    { "\nmax_I = 4.96844  at ", "\n1992 photons on noise image (",
      "  created a total of 3 sources:\n" } },
};

static const char *cli;

static void
write_file (const char *dir, const char *name, const char *contents, gssize len)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_file_set_contents (path, contents, len, &error);
  g_assert_no_error (error);
}

/* The input files of physics.md §23. */
static void
write_inputs (const char *dir)
{
  GString *s = g_string_new (NULL);

  /* grid.hkl: F = 100 + 10h - 7k + 3l + ((h k l) mod 5), C's % (sign of
   * the dividend) */
  for (int h = -6; h <= 6; h++)
    for (int k = -6; k <= 6; k++)
      for (int l = -6; l <= 6; l++)
        g_string_append_printf (s, "%d %d %d %g\n", h, k, l,
                                (double) (100 + 10 * h - 7 * k + 3 * l + (h * k * l) % 5));
  write_file (dir, "grid.hkl", s->str, (gssize) s->len);

  g_string_truncate (s, 0);
  for (int h = -3; h <= 3; h++)
    for (int k = -3; k <= 3; k++)
      for (int l = -3; l <= 3; l++)
        g_string_append_printf (s, "%d %d %d %g\n", h, k, l, (double) (50 + 5 * h + 3 * k + l));
  write_file (dir, "small.hkl", s->str, (gssize) s->len);
  g_string_free (s, TRUE);

  write_file (dir, "src.txt", "-10 0 0 1.0 1.0e-10\n-10 0.02 0 0.5 1.02e-10\n-10 0 0.02 2.0\n", -1);
}

static char *
sha256_of (const char *dir, const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *contents = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &contents, &len, &error))
    g_error ("%s: %s", path, error->message);
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);
}

/* run_cli: "$NB_CLI @args @suffix" in @dir with OMP_NUM_THREADS=2; must exit
 * 0; returns stdout. */
static char *
run_cli (const char *dir, const char *args, const char *suffix)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *cmd = g_strdup_printf ("%s %s", args, suffix);
  g_auto (GStrv) parts = NULL;
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "OMP_NUM_THREADS", "2", TRUE);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  char *out = NULL;
  g_autofree char *err_text = NULL;
  int argc = 0, status = 0;

  g_assert_true (g_shell_parse_argv (cmd, &argc, &parts, &error));
  g_ptr_array_add (argv, (gpointer) cli);
  for (int i = 0; i < argc; i++)
    g_ptr_array_add (argv, parts[i]);
  g_ptr_array_add (argv, NULL);

  if (!g_spawn_sync (dir, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err_text,
                     &status, &error))
    g_error ("cannot run %s: %s", cli, error->message);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("%s %s: exit status %d\nstderr: %s", cli, cmd,
             WIFEXITED (status) ? WEXITSTATUS (status) : -1, err_text);
  return out;
}

static void
remove_dir (char *dir)
{
  nb_test_remove_tree (dir);
  g_free (dir);
}

static char *
make_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("test-kat-XXXXXX", &error);

  g_assert_no_error (error);
  write_inputs (dir);
  return dir;
}

static void
test_kat (gconstpointer data)
{
  const kat *k = data;
  char *dir;
  g_autofree char *suffix = NULL;
  g_autofree char *out = NULL;
  g_autofree char *name_float = g_strconcat (k->id, ".bin", NULL);
  g_autofree char *name_int = g_strconcat (k->id, ".img", NULL);
  g_autofree char *name_noise = g_strconcat (k->id, ".noise.img", NULL);

  if (cli == NULL)
    {
      g_test_skip ("NB_CLI is not set");
      return;
    }
  dir = make_dir ();
  suffix = g_strdup_printf ("-floatfile %s -intfile %s -noisefile %s -nopgm -noprogress",
                            name_float, name_int, name_noise);
  out = run_cli (dir, k->args, suffix);

  {
    g_autofree char *sha_float = sha256_of (dir, name_float);
    g_autofree char *sha_int = sha256_of (dir, name_int);
    g_autofree char *sha_noise = sha256_of (dir, name_noise);

    g_assert_cmpstr (sha_float, ==, k->sha_float);
    g_assert_cmpstr (sha_int, ==, k->sha_int);
    g_assert_cmpstr (sha_noise, ==, k->sha_noise);
  }
  for (guint i = 0; i < G_N_ELEMENTS (k->printed) && k->printed[i] != NULL; i++)
    if (strstr (out, k->printed[i]) == NULL)
      g_error ("%s: stdout lacks '%s':\n%s", k->id, k->printed[i], out);
  /* nothing else was written: no PGM, no Fdump.bin */
  {
    g_autofree char *pgm = g_build_filename (dir, "image.pgm", NULL);
    g_autofree char *dump = g_build_filename (dir, "Fdump.bin", NULL);

    g_assert_false (g_file_test (pgm, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (dump, G_FILE_TEST_EXISTS));
  }
  remove_dir (dir);
}

/* kat1 exactly as the reference ran it, with -pgmfile instead of -nopgm. */
static void
test_kat1_pgm (void)
{
  char *dir;
  g_autofree char *out = NULL;
  g_autofree char *sha_pgm = NULL;
  g_autofree char *sha_float = NULL;

  if (cli == NULL)
    {
      g_test_skip ("NB_CLI is not set");
      return;
    }
  dir = make_dir ();
  out = run_cli (dir, kats[0].args,
                 "-floatfile X.bin -intfile X.img -noisefile X.noise.img -pgmfile X.pgm "
                 "-noprogress");
  sha_float = sha256_of (dir, "X.bin");
  sha_pgm = sha256_of (dir, "X.pgm");
  g_assert_cmpstr (sha_float, ==, kats[0].sha_float);
  g_assert_cmpstr (sha_pgm, ==, "894c0041dbb91a0dcb76220ef094bee17fb9577330201832e4d2bd62db8e297f");
  g_assert_nonnull (strstr (out, "\nmax_I = 97.2806  at 0.003375 0.003375\n"));
  g_assert_nonnull (strstr (out, "\npgm_scale = 2.8128\n"));
  remove_dir (dir);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  cli = g_getenv ("NB_CLI");
  for (guint i = 0; i < G_N_ELEMENTS (kats); i++)
    {
      g_autofree char *path = g_strdup_printf ("/kat/%s", kats[i].id);
      g_test_add_data_func (path, &kats[i], test_kat);
    }
  g_test_add_func ("/kat/kat1-pgm", test_kat1_pgm);

  return g_test_run ();
}
