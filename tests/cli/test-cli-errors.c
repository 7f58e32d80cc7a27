/* test-cli-errors.c: every row of bad-inputs.h through the nanobragg CLI
 * ($NB_CLI).  For each: the exit status is the table's (1 or 2, never a
 * signal), stderr is exactly one line naming the input, and the output files
 * that existed before the run (float, SMV, PGM, noise) are byte-identical
 * afterwards, with no temporary file left beside them.
 *
 * Also: a clean run in the same setting replaces them, so those checks can
 * fail. */
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bad-inputs.h"
#include "nb-test-util.h"

static const char *cli;

/* The outputs every run names, with what they hold before it. */
static const struct
{
  const char *flag;
  const char *name;
  const char *contents;
} outputs[] = {
  { "-floatfile", "existing.bin", "float image from an earlier run\n" },
  { "-intfile", "existing.img", "SMV image from an earlier run\n" },
  { "-pgmfile", "existing.pgm", "PGM image from an earlier run\n" },
  { "-noisefile", "existing.noise", "noise image from an earlier run\n" },
};

typedef struct
{
  char *dir;
  char *out;
  char *err;
  int wait_status;
} run_result;

static void
run_result_clear (run_result *r)
{
  nb_test_remove_tree (r->dir);
  g_free (r->dir);
  g_free (r->out);
  g_free (r->err);
}

static long child_fsize = -1;
static gboolean child_stdout_full;
static const char *child_lenient; /* NANOBRAGG_LENIENT for the run, or NULL: unset */

/* Longest a run may take: a program that blocks (on a FIFO, a terminal) is
 * killed by SIGALRM and the case fails naming the signal, instead of hanging
 * the suite. */
#define RUN_ALARM_S 120

static void
child_setup (gpointer user_data)
{
  alarm (RUN_ALARM_S);
  if (child_stdout_full)
    {
      int fd = open ("/dev/full", O_WRONLY);

      if (fd >= 0)
        dup2 (fd, 1);
    }
  if (child_fsize >= 0)
    {
      struct rlimit rl = { (rlim_t) child_fsize, (rlim_t) child_fsize };

      /* a write past the limit then fails with EFBIG, as on a full disk */
      signal (SIGXFSZ, SIG_IGN);
      setrlimit (RLIMIT_FSIZE, &rl);
    }
}

/* A fresh folder of fixtures and pre-existing outputs for run_in (). */
static void
run_prepare (run_result *r)
{
  g_autoptr (GError) error = NULL;

  memset (r, 0, sizeof *r);
  r->dir = g_dir_make_tmp ("test-cli-XXXXXX", &error);
  g_assert_no_error (error);
  bad_inputs_write_fixtures (r->dir);
  for (gsize i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_autofree char *path = g_build_filename (r->dir, outputs[i].name, NULL);

      g_file_set_contents (path, outputs[i].contents, -1, &error);
      g_assert_no_error (error);
    }
}

/* Runs the CLI in @r's folder with the outputs, then @args (which may name
 * other outputs: the last of a flag wins). */
static void
run_in (const char *args, long fsize, run_result *r)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_auto (GStrv) parts = NULL;
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "OMP_NUM_THREADS", "1", TRUE);
  int argc = 0;

  env = child_lenient ? g_environ_setenv (env, "NANOBRAGG_LENIENT", child_lenient, TRUE)
                      : g_environ_unsetenv (env, "NANOBRAGG_LENIENT");
  g_assert_true (g_shell_parse_argv (args, &argc, &parts, &error));
  g_assert_no_error (error);
  g_ptr_array_add (argv, (gpointer) cli);
  for (gsize i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_ptr_array_add (argv, (gpointer) outputs[i].flag);
      g_ptr_array_add (argv, (gpointer) outputs[i].name);
    }
  g_ptr_array_add (argv, (gpointer) "-noprogress");
  for (int i = 0; i < argc; i++)
    g_ptr_array_add (argv, parts[i]);
  g_ptr_array_add (argv, NULL);

  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
  child_fsize = fsize;
  if (!g_spawn_sync (r->dir, (char **) argv->pdata, env, G_SPAWN_DEFAULT, child_setup, NULL,
                     &r->out, &r->err, &r->wait_status, &error))
    g_error ("cannot run %s: %s", cli, error->message);
  child_fsize = -1;
}

/* Runs the CLI in a fresh folder of fixtures and pre-existing outputs. */
static void
run_cli (const char *args, long fsize, run_result *r)
{
  run_prepare (r);
  run_in (args, fsize, r);
}

/* The outputs are as they were, and no temporary file was left. */
static void
assert_outputs_untouched (const run_result *r, const char *id)
{
  g_autoptr (GDir) d = g_dir_open (r->dir, 0, NULL);
  const char *name;

  for (gsize i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_autofree char *path = g_build_filename (r->dir, outputs[i].name, NULL);
      g_autofree char *now = NULL;
      g_autoptr (GError) error = NULL;

      if (!g_file_get_contents (path, &now, NULL, &error))
        g_error ("%s: %s is gone: %s", id, outputs[i].name, error->message);
      if (strcmp (now, outputs[i].contents) != 0)
        g_error ("%s: %s was changed by a failed run", id, outputs[i].name);
    }
  while ((name = g_dir_read_name (d)) != NULL)
    if (name[0] == '.')
      g_error ("%s: temporary file %s left behind", id, name);
}

static void
test_bad_input (gconstpointer data)
{
  const bad_input *b = data;
  g_autofree char *args = g_strconcat ((b->flags & BAD_NO_SCENE) ? "" : BAD_SCENE, b->args, NULL);
  run_result r;
  const char *nl;

  if (cli == NULL)
    {
      g_test_skip ("NB_CLI is not set");
      return;
    }
  g_test_message ("nanobragg %s", args);
  run_cli (args, (b->flags & BAD_FSIZE) ? b->fsize : -1, &r);

  if (!WIFEXITED (r.wait_status))
    g_error ("%s: killed by signal %d; stderr: %s", b->id, WTERMSIG (r.wait_status), r.err);
  if (WEXITSTATUS (r.wait_status) != b->status)
    g_error ("%s: exit status %d, expected %d; stderr: %s", b->id, WEXITSTATUS (r.wait_status),
             b->status, r.err);
  g_test_message ("exit %d: %s", WEXITSTATUS (r.wait_status), r.err);
  /* exactly one line, from the program, naming the input */
  nl = strchr (r.err, '\n');
  if (nl == NULL || nl[1] != '\0' || !g_str_has_prefix (r.err, "nanobragg: "))
    g_error ("%s: stderr is not one 'nanobragg: ...' line: '%s'", b->id, r.err);
  if (strstr (r.err, b->names) == NULL)
    g_error ("%s: the message does not name '%s': %s", b->id, b->names, r.err);
  assert_outputs_untouched (&r, b->id);
  run_result_clear (&r);
}

/* The same folder and flags with nothing wrong: the outputs are replaced, so
 * the untouched-file checks above are not vacuous. */
static void
test_good_run_replaces (void)
{
  run_result r;

  if (cli == NULL)
    {
      g_test_skip ("NB_CLI is not set");
      return;
    }
  run_cli (BAD_SCENE "-hkl good.hkl -pngfile new.png -seed 1", -1, &r);
  g_assert_true (WIFEXITED (r.wait_status));
  if (WEXITSTATUS (r.wait_status) != 0)
    g_error ("exit status %d: %s", WEXITSTATUS (r.wait_status), r.err);
  g_assert_cmpstr (r.err, ==, "");
  for (gsize i = 0; i < G_N_ELEMENTS (outputs); i++)
    {
      g_autofree char *path = g_build_filename (r.dir, outputs[i].name, NULL);
      g_autofree char *now = NULL;

      g_assert_true (g_file_get_contents (path, &now, NULL, NULL));
      g_assert_cmpstr (now, !=, outputs[i].contents);
    }
  run_result_clear (&r);
}

/* The log is an output too: stdout on a full device is a failure, reported. */
static void
test_stdout_full (void)
{
  run_result r;

  if (cli == NULL || !g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_test_skip (cli == NULL ? "NB_CLI is not set" : "no /dev/full");
      return;
    }
  child_stdout_full = TRUE;
  run_cli (BAD_SCENE, -1, &r);
  child_stdout_full = FALSE;
  g_assert_true (WIFEXITED (r.wait_status));
  g_assert_cmpint (WEXITSTATUS (r.wait_status), ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "nanobragg: cannot write the log to standard output"));
  g_assert_nonnull (strstr (r.err, "No space left on device"));
  g_assert_true (strchr (r.err, '\n')[1] == '\0');
  run_result_clear (&r);
}

/* ---- outputs that are not regular files (issue 18, part 3) ---- */

/* The float image of the table's scene, written by a plain run to a file. */
static GBytes *
reference_float_image (void)
{
  run_result r;
  g_autofree char *path = NULL;
  char *contents = NULL;
  gsize len = 0;

  run_cli (BAD_SCENE "-floatfile plain.bin", -1, &r);
  g_assert_true (WIFEXITED (r.wait_status));
  g_assert_cmpint (WEXITSTATUS (r.wait_status), ==, 0);
  path = g_build_filename (r.dir, "plain.bin", NULL);
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpuint (len, ==, 16 * 16 * sizeof (float));
  run_result_clear (&r);
  return g_bytes_new_take (contents, len);
}

static gpointer
read_fifo (gpointer path)
{
  g_autoptr (GByteArray) got = g_byte_array_new ();
  int fd = open (path, O_RDONLY);
  guint8 buf[4096];
  ssize_t n;

  g_assert_cmpint (fd, >=, 0);
  while ((n = read (fd, buf, sizeof buf)) > 0)
    g_byte_array_append (got, buf, (guint) n);
  close (fd);
  return g_byte_array_free_to_bytes (g_steal_pointer (&got));
}

static void
assert_type (const char *dir, const char *name, mode_t type)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  GStatBuf st;

  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & S_IFMT, ==, type);
}

static void
assert_ok_run (const run_result *r)
{
  g_assert_true (WIFEXITED (r->wait_status));
  if (WEXITSTATUS (r->wait_status) != 0)
    g_error ("exit status %d: %s", WEXITSTATUS (r->wait_status), r->err);
  g_assert_cmpstr (r->err, ==, "");
}

/* `mkfifo out.bin; cat out.bin > copy & nanobragg -floatfile out.bin`: the
 * reader gets the image and the pipe stays a pipe. */
static void
test_output_fifo (void)
{
  g_autoptr (GBytes) expect = NULL;
  g_autoptr (GBytes) got = NULL;
  g_autofree char *fifo = NULL;
  GThread *reader;
  run_result r;

  if (cli == NULL)
    {
      g_test_skip ("NB_CLI is not set");
      return;
    }
  expect = reference_float_image ();
  run_prepare (&r);
  fifo = g_build_filename (r.dir, "out.bin", NULL);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  reader = g_thread_new ("fifo reader", read_fifo, fifo);
  run_in (BAD_SCENE "-floatfile out.bin", -1, &r);
  assert_ok_run (&r);
  /* before the join: the reader of a replaced pipe would wait forever */
  assert_type (r.dir, "out.bin", S_IFIFO);
  got = g_thread_join (reader);
  g_assert_true (g_bytes_equal (got, expect));
  run_result_clear (&r);
}

/* A link to /dev/full: the device is written, its "disk full" is the run's
 * error, and the link and every other output are as they were. */
static void
test_output_link_to_full (void)
{
  g_autofree char *link = NULL;
  g_autofree char *target = NULL;
  run_result r;

  if (cli == NULL || !g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_test_skip (cli == NULL ? "NB_CLI is not set" : "no /dev/full");
      return;
    }
  run_prepare (&r);
  link = g_build_filename (r.dir, "full.bin", NULL);
  g_assert_cmpint (symlink ("/dev/full", link), ==, 0);
  run_in (BAD_SCENE "-floatfile full.bin", -1, &r);
  g_assert_true (WIFEXITED (r.wait_status));
  g_assert_cmpint (WEXITSTATUS (r.wait_status), ==, 1);
  g_assert_cmpstr (r.err, ==, "nanobragg: cannot write full.bin: No space left on device\n");
  target = g_file_read_link (link, NULL);
  g_assert_cmpstr (target, ==, "/dev/full");
  assert_outputs_untouched (&r, "link to /dev/full");
  run_result_clear (&r);
}

/* A link to a file in another folder: the target is replaced (no temporary
 * file left there), the link stays; a dangling link's target is created. */
static void
test_output_links_to_files (void)
{
  g_autoptr (GBytes) expect = NULL;
  g_autofree char *sub = NULL, *link = NULL, *dangling = NULL, *text = NULL;
  g_autofree char *target = NULL, *created = NULL, *contents = NULL;
  g_autoptr (GDir) d = NULL;
  const char *name;
  gsize len = 0;
  run_result r;

  if (cli == NULL)
    {
      g_test_skip ("NB_CLI is not set");
      return;
    }
  expect = reference_float_image ();
  run_prepare (&r);
  sub = g_build_filename (r.dir, "sub", NULL);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  target = g_build_filename (sub, "target.bin", NULL);
  g_assert_true (g_file_set_contents (target, "old", -1, NULL));
  link = g_build_filename (r.dir, "link.bin", NULL);
  g_assert_cmpint (symlink ("sub/target.bin", link), ==, 0);
  dangling = g_build_filename (r.dir, "dangling.img", NULL);
  g_assert_cmpint (symlink ("sub/new.img", dangling), ==, 0);

  run_in (BAD_SCENE "-floatfile link.bin -intfile dangling.img", -1, &r);
  assert_ok_run (&r);
  assert_type (r.dir, "link.bin", S_IFLNK);
  assert_type (r.dir, "dangling.img", S_IFLNK);
  text = g_file_read_link (link, NULL);
  g_assert_cmpstr (text, ==, "sub/target.bin");
  g_assert_true (g_file_get_contents (target, &contents, &len, NULL));
  g_assert_cmpmem (contents, len, g_bytes_get_data (expect, NULL), g_bytes_get_size (expect));
  created = g_build_filename (sub, "new.img", NULL);
  g_assert_true (g_file_test (created, G_FILE_TEST_IS_REGULAR));
  d = g_dir_open (sub, 0, NULL);
  while ((name = g_dir_read_name (d)) != NULL)
    if (name[0] == '.')
      g_error ("temporary file %s left in the links' target folder", name);
  run_result_clear (&r);
}

/* Several outputs on one character device (the usual way to discard the
 * images nanoBragg always writes) are not "the same file": each is written
 * through.  As root a null device node of the test's own stands in for
 * /dev/null, which a regression (a rename) would replace for the machine. */
static void
test_output_null_device (void)
{
  g_autofree char *device = NULL;
  g_autofree char *args = NULL;
  GStatBuf st;
  run_result r;

  if (cli == NULL)
    {
      g_test_skip ("NB_CLI is not set");
      return;
    }
  run_prepare (&r);
  if (geteuid () == 0)
    {
      device = g_build_filename (r.dir, "null", NULL);
      if (mknod (device, S_IFCHR | 0666, makedev (1, 3)) != 0)
        g_clear_pointer (&device, g_free);
    }
  else if (g_stat ("/dev/null", &st) == 0 && S_ISCHR (st.st_mode))
    device = g_strdup ("/dev/null");
  if (device == NULL)
    {
      g_test_skip ("no null device to write to");
      run_result_clear (&r);
      return;
    }
  args = g_strdup_printf (BAD_SCENE "-floatfile %s -intfile %s -pgmfile %s -noisefile %s", device,
                          device, device, device);
  run_in (args, -1, &r);
  assert_ok_run (&r);
  g_assert_cmpint (g_lstat (device, &st), ==, 0);
  g_assert_true (S_ISCHR (st.st_mode));
  run_result_clear (&r);
}

/* The float and SMV images of a run (base64), then the run's files are
 * removed. */
static char *
take_images (run_result *r)
{
  g_autofree char *bin = g_build_filename (r->dir, "existing.bin", NULL);
  g_autofree char *img = g_build_filename (r->dir, "existing.img", NULL);
  g_autofree char *a = NULL, *b = NULL;
  gsize la = 0, lb = 0;

  g_assert_true (g_file_get_contents (bin, &a, &la, NULL));
  g_assert_true (g_file_get_contents (img, &b, &lb, NULL));
  g_assert_cmpuint (la, ==, 16 * 16 * sizeof (float));
  run_result_clear (r);
  {
    g_autofree char *ea = g_base64_encode ((const guchar *) a, la);
    g_autofree char *eb = g_base64_encode ((const guchar *) b, lb);

    return g_strconcat (ea, " ", eb, NULL);
  }
}

/* A line written for nanoBragg with words it ignores: refused by default;
 * with -lenient or NANOBRAGG_LENIENT=1 each ignored word is one warning line
 * and the images are those of the line without them.  Any other value of
 * the variable is refused. */
static void
test_lenient (void)
{
  const char *ignored = "-hdiv 0 -vdiv 0 -oversample_thick 0";
  g_autofree char *with = g_strconcat (BAD_SCENE "-hkl good.hkl -seed 1 ", ignored, NULL);
  g_autofree char *with_flag = g_strconcat (with, " -lenient", NULL);
  const char *without = BAD_SCENE "-hkl good.hkl -seed 1 -oversample_thick";
  g_autofree char *want = NULL;
  run_result r;

  if (cli == NULL)
    {
      g_test_skip ("NB_CLI is not set");
      return;
    }
  run_cli (without, -1, &r);
  g_assert_true (WIFEXITED (r.wait_status));
  g_assert_cmpint (WEXITSTATUS (r.wait_status), ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  want = take_images (&r);

  run_cli (with, -1, &r);
  g_assert_cmpint (WEXITSTATUS (r.wait_status), ==, 2);
  g_assert_true (g_str_has_prefix (r.err, "nanobragg: unknown flag '-hdiv'"));
  run_result_clear (&r);

  for (int how = 0; how < 2; how++)
    {
      g_auto (GStrv) lines = NULL;
      g_autofree char *got = NULL;

      child_lenient = how == 0 ? "1" : NULL;
      run_cli (how == 0 ? with : with_flag, -1, &r);
      child_lenient = NULL;
      g_assert_true (WIFEXITED (r.wait_status));
      if (WEXITSTATUS (r.wait_status) != 0)
        g_error ("exit status %d: %s", WEXITSTATUS (r.wait_status), r.err);
      g_test_message ("%s", r.err);
      lines = g_strsplit (r.err, "\n", -1);
      /* -hdiv, 0, -vdiv, 0, 0 and the empty string after the last newline */
      g_assert_cmpuint (g_strv_length (lines), ==, 6);
      for (int i = 0; i < 5; i++)
        g_assert_true (g_str_has_prefix (lines[i], "nanobragg: warning: ignoring "));
      g_assert_nonnull (
          strstr (lines[4], "'0' as nanoBragg does (-oversample_thick takes no value)"));
      g_assert_cmpstr (lines[5], ==, "");
      got = take_images (&r);
      g_assert_cmpstr (got, ==, want);
    }

  for (int i = 0; i < 2; i++)
    {
      child_lenient = i == 0 ? "yes" : "0";
      run_cli (with, -1, &r);
      child_lenient = NULL;
      g_assert_cmpint (WEXITSTATUS (r.wait_status), ==, 2);
      g_assert_true (g_str_has_prefix (r.err, i == 0 ? "nanobragg: NANOBRAGG_LENIENT='yes'"
                                                     : "nanobragg: unknown flag '-hdiv'"));
      g_assert_true (strchr (r.err, '\n')[1] == '\0');
      run_result_clear (&r);
    }
}

/* The table's rows are distinct inputs. */
/* Issue 23, item 13: -twotheta 120 (or 270, or a -twotheta_axis, which sets
 * two-theta too: Q-30) gives every pixel negative photons, as nanoBragg does
 * (quirk Q-2).  The run still reproduces it (exit 0, the image written) but
 * says so on stderr, one warning line naming the quirk and -physical; with
 * -physical, or without two-theta, stderr stays empty. */
static void
test_twotheta_quirk_warning (void)
{
  static const struct
  {
    const char *args;
    const char *says;  /* NULL: nothing on stderr */
    gboolean negative; /* the detector ends up not in front of the sample */
  } cases[] = {
    { BAD_SCENE "-twotheta 120", "two-theta 120 deg", TRUE },
    { BAD_SCENE "-twotheta 270", "two-theta 270 deg", TRUE },
    { BAD_SCENE "-twotheta_axis 180 0 1", "two-theta 180 deg", FALSE },
    { BAD_SCENE "-twotheta 120 -physical", NULL, FALSE },
    { BAD_SCENE, NULL, FALSE },
  };

  if (cli == NULL)
    {
      g_test_skip ("NB_CLI is not set");
      return;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      run_result r;

      run_cli (cases[i].args, -1, &r);
      g_test_message ("%s: %s", cases[i].args, r.err);
      g_assert_true (WIFEXITED (r.wait_status));
      g_assert_cmpint (WEXITSTATUS (r.wait_status), ==, 0);
      if (cases[i].says == NULL)
        g_assert_cmpstr (r.err, ==, "");
      else
        {
          g_assert_true (g_str_has_prefix (r.err, "nanobragg: warning: "));
          g_assert_cmpstr (strchr (r.err, '\n'), ==, "\n");
          g_assert_nonnull (strstr (r.err, cases[i].says));
          g_assert_nonnull (strstr (r.err, "(quirk Q-2)"));
          g_assert_true ((strstr (r.err, "not in front of the sample") != NULL) ==
                         cases[i].negative);
          g_assert_nonnull (strstr (r.err, "-physical"));
        }
      run_result_clear (&r);
    }
}

static void
test_table_distinct (void)
{
  g_autoptr (GHashTable) ids = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) lines = g_hash_table_new (g_str_hash, g_str_equal);

  for (gsize i = 0; i < G_N_ELEMENTS (bad_inputs); i++)
    {
      g_assert_true (g_hash_table_add (ids, (gpointer) bad_inputs[i].id));
      g_assert_true (g_hash_table_add (lines, (gpointer) bad_inputs[i].args));
      g_assert_true (bad_inputs[i].status == 1 || bad_inputs[i].status == 2);
    }
  g_assert_cmpuint (G_N_ELEMENTS (bad_inputs), >=, 40);
  g_test_message ("%u bad inputs", (guint) G_N_ELEMENTS (bad_inputs));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  cli = g_getenv ("NB_CLI");
  g_test_add_func ("/cli/table-distinct", test_table_distinct);
  g_test_add_func ("/cli/good-run-replaces", test_good_run_replaces);
  g_test_add_func ("/cli/stdout-full", test_stdout_full);
  g_test_add_func ("/cli/output/fifo", test_output_fifo);
  g_test_add_func ("/cli/output/link-to-full", test_output_link_to_full);
  g_test_add_func ("/cli/output/links-to-files", test_output_links_to_files);
  g_test_add_func ("/cli/output/null-device", test_output_null_device);
  g_test_add_func ("/cli/lenient", test_lenient);
  g_test_add_func ("/cli/twotheta-quirk-warning", test_twotheta_quirk_warning);
  for (gsize i = 0; i < G_N_ELEMENTS (bad_inputs); i++)
    {
      g_autofree char *path = g_strdup_printf ("/cli/bad/%s", bad_inputs[i].id);

      g_test_add_data_func (path, &bad_inputs[i], test_bad_input);
    }
  return g_test_run ();
}
