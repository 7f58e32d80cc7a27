/* test-cli-outputs.c: what nanobragg ($NB_CLI) and nanobragg-series
 * ($NB_SERIES) may replace (issue 23, items 6 and 11), run as a user would:
 * links planted in a sticky folder, a frame of a --resume that is a link, the
 * mode of a replaced file and another user's read-only file.  The cases with
 * a second user run the programs as "nobody" (65534) and need root; they are
 * skipped, saying so, without it. */
#include <glib.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <grp.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nb-test-util.h"

#define OTHER_UID   65534 /* nobody */
#define VICTIM_TEXT "root's secret\n"
#define SCENE                                                                                      \
  "-default_F 100 -cell 100 100 100 90 90 90 -lambda 6.2 -N 2 -distance 100 -detpixels 16 "        \
  "-pixel 0.1 "
#define SERIES_ARGS "--quiet --format smv,float --frames 2 -osc 0.5 --out s " SCENE

static const char *cli, *series;

typedef struct
{
  char *dir;
  char *err;
  int wait_status;
} run_result;

static void
run_result_clear (run_result *r)
{
  nb_test_remove_tree (r->dir);
  g_free (r->dir);
  g_free (r->err);
}

static uid_t child_uid; /* the user a run is made as */

static void
child_setup (gpointer data)
{
  if (child_uid != geteuid () &&
      (setgroups (0, NULL) != 0 || setgid (child_uid) != 0 || setuid (child_uid) != 0))
    _exit (100);
}

/* A fresh folder (0755, so a second user reaches it). */
static void
run_prepare (run_result *r)
{
  g_autoptr (GError) error = NULL;

  memset (r, 0, sizeof *r);
  r->dir = g_dir_make_tmp ("test-cli-outputs-XXXXXX", &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (r->dir, 0755), ==, 0);
}

/* Runs @program @args in @r's folder @sub ("" for the folder itself) as
 * @uid. */
static void
run_in (const char *program, const char *sub, const char *args, uid_t uid, run_result *r)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *cwd = g_build_filename (r->dir, sub, NULL);
  g_autofree char *line = g_strconcat (program, " ", args, NULL);
  g_auto (GStrv) argv = NULL;
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "OMP_NUM_THREADS", "1", TRUE);

  g_assert_true (g_shell_parse_argv (line, NULL, &argv, &error));
  g_clear_pointer (&r->err, g_free);
  child_uid = uid;
  if (!g_spawn_sync (cwd, argv, env, G_SPAWN_STDOUT_TO_DEV_NULL, child_setup, NULL, NULL, &r->err,
                     &r->wait_status, &error))
    g_error ("cannot run %s: %s", program, error->message);
  g_assert_true (WIFEXITED (r->wait_status));
  g_assert_cmpint (WEXITSTATUS (r->wait_status), !=, 100);
}

/* Exit status 1 and one line naming @names. */
static void
assert_refused (const run_result *r, const char *program, const char *names)
{
  g_autofree char *prefix = g_strconcat (program, ": ", NULL);
  const char *nl = strchr (r->err, '\n');

  if (WEXITSTATUS (r->wait_status) != 1)
    g_error ("exit status %d, expected 1; stderr: %s", WEXITSTATUS (r->wait_status), r->err);
  if (nl == NULL || nl[1] != '\0' || strstr (r->err, prefix) == NULL ||
      strstr (r->err, names) == NULL)
    g_error ("stderr is not one line naming %s: '%s'", names, r->err);
}

static void
assert_contents (const char *dir, const char *name, const char *expect)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, expect);
}

static void
assert_mode (const char *dir, const char *name, uid_t uid, mode_t mode)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  GStatBuf st;

  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_cmpuint (st.st_uid, ==, uid);
  g_assert_cmpuint (st.st_mode & 07777, ==, mode);
}

static void
write_file (const char *dir, const char *name, const char *text, mode_t mode, uid_t owner)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
  g_assert_cmpint (lchown (path, owner, owner), ==, 0);
}

/* Whether a run as another user is possible here: root, and "nobody" can
 * reach @dir and run @program.  Skips the test when not. */
static gboolean
second_user (const char *dir, const char *program)
{
  run_result probe = { 0 };
  g_autofree char *args = g_strdup_printf ("-c 'test -x \"%s\" && cd \"%s\"'", program, dir);

  if (geteuid () != 0)
    {
      g_test_skip ("needs root, to make files of a second user and to run the program as one");
      return FALSE;
    }
  probe.dir = g_strdup (dir);
  run_in ("/bin/sh", "", args, OTHER_UID, &probe);
  g_free (probe.err);
  g_free (probe.dir);
  if (WEXITSTATUS (probe.wait_status) == 0)
    return TRUE;
  g_test_skip_printf ("user %d cannot reach %s or run %s", OTHER_UID, dir, program);
  return FALSE;
}

/* root runs nanobragg in a sticky world-writable folder where another user
 * planted -floatfile and -intfile as links to root-only files: refused, one
 * line, the files keep contents, owner and mode (one had become 16,384 bytes
 * of floats, 0644). */
static void
test_sticky_planted_links (void)
{
  g_autofree char *shared = NULL, *victim = NULL, *link = NULL;
  run_result r;

  if (cli == NULL)
    {
      g_test_skip ("NB_CLI is not set");
      return;
    }
  run_prepare (&r);
  if (!second_user (r.dir, cli))
    {
      run_result_clear (&r);
      return;
    }
  shared = g_build_filename (r.dir, "shared", NULL);
  g_assert_cmpint (g_mkdir (shared, 0777), ==, 0);
  g_assert_cmpint (g_chmod (shared, 01777), ==, 0);
  write_file (r.dir, "shadow", VICTIM_TEXT, 0600, 0);
  write_file (r.dir, "shadow.img", VICTIM_TEXT, 0600, 0);
  victim = g_build_filename (r.dir, "shadow", NULL);
  run_in ("/bin/ln", "", "-s ../shadow shared/out.bin", OTHER_UID, &r);
  run_in ("/bin/ln", "", "-s ../shadow.img shared/out.img", OTHER_UID, &r);

  run_in (cli, "shared", SCENE "-noprogress -floatfile out.bin", 0, &r);
  assert_refused (&r, "nanobragg", "out.bin");
  g_assert_nonnull (strstr (r.err, "sticky folder"));
  assert_contents (r.dir, "shadow", VICTIM_TEXT);
  assert_mode (r.dir, "shadow", 0, 0600);

  run_in (cli, "shared", SCENE "-noprogress -intfile out.img", 0, &r);
  assert_refused (&r, "nanobragg", "out.img");
  assert_contents (r.dir, "shadow.img", VICTIM_TEXT);
  assert_mode (r.dir, "shadow.img", 0, 0600);
  link = g_build_filename (shared, "out.bin", NULL);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  run_result_clear (&r);
}

/* -floatfile over a 0600 file: still 0600 (it became 0644); as root over
 * another user's 0600 file: theirs, 0600. */
static void
test_mode_kept (void)
{
  run_result r;

  if (cli == NULL)
    {
      g_test_skip ("NB_CLI is not set");
      return;
    }
  run_prepare (&r);
  write_file (r.dir, "private.bin", "old", 0600, geteuid ());
  run_in (cli, "", SCENE "-noprogress -floatfile private.bin -intfile private.img", geteuid (), &r);
  g_assert_cmpint (WEXITSTATUS (r.wait_status), ==, 0);
  assert_mode (r.dir, "private.bin", geteuid (), 0600);
  if (geteuid () == 0)
    {
      write_file (r.dir, "theirs.img", "old", 0600, OTHER_UID);
      run_in (cli, "", SCENE "-noprogress -intfile theirs.img", 0, &r);
      g_assert_cmpint (WEXITSTATUS (r.wait_status), ==, 0);
      assert_mode (r.dir, "theirs.img", OTHER_UID, 0600);
    }
  run_result_clear (&r);
}

/* An unprivileged user, root's read-only file in a folder everyone may
 * write: -intfile is refused (the shell refuses the write too). */
static void
test_read_only_file (void)
{
  g_autofree char *open_dir = NULL, *mine = NULL;
  run_result r;

  if (cli == NULL)
    {
      g_test_skip ("NB_CLI is not set");
      return;
    }
  run_prepare (&r);
  if (!second_user (r.dir, cli))
    {
      run_result_clear (&r);
      return;
    }
  open_dir = g_build_filename (r.dir, "open", NULL);
  g_assert_cmpint (g_mkdir (open_dir, 0777), ==, 0);
  g_assert_cmpint (g_chmod (open_dir, 0777), ==, 0);
  write_file (open_dir, "locked.img", VICTIM_TEXT, 0444, 0);
  run_in (cli, "open", SCENE "-noprogress -floatfile mine.bin -intfile locked.img", OTHER_UID, &r);
  assert_refused (&r, "nanobragg", "locked.img");
  g_assert_nonnull (strstr (r.err, g_strerror (EACCES)));
  assert_contents (open_dir, "locked.img", VICTIM_TEXT);
  assert_mode (open_dir, "locked.img", 0, 0444);
  /* the outputs of a run are all or nothing: no float file either */
  mine = g_build_filename (open_dir, "mine.bin", NULL);
  g_assert_false (g_file_test (mine, G_FILE_TEST_EXISTS));
  run_result_clear (&r);
}

/* nanobragg-series --resume where a frame is a link to a file elsewhere (a
 * copy of /etc/passwd became 16,384 bytes of floats): refused, the file
 * untouched; without --resume the series file as a link likewise. */
static void
test_series_resume_link (void)
{
  g_autofree char *elsewhere = NULL;
  run_result r;

  if (series == NULL)
    {
      g_test_skip ("NB_SERIES is not set");
      return;
    }
  run_prepare (&r);
  elsewhere = g_build_filename (r.dir, "elsewhere", NULL);
  g_assert_cmpint (g_mkdir (elsewhere, 0755), ==, 0);
  write_file (elsewhere, "passwd", VICTIM_TEXT, 0644, geteuid ());
  run_in (series, "", SERIES_ARGS, geteuid (), &r);
  g_assert_cmpint (WEXITSTATUS (r.wait_status), ==, 0);

  run_in ("/bin/sh", "", "-c 'rm s_000002.bin && ln -s elsewhere/passwd s_000002.bin'", geteuid (),
          &r);
  run_in (series, "", SERIES_ARGS "--resume", geteuid (), &r);
  assert_refused (&r, "nanobragg-series", "s_000002.bin");
  g_assert_nonnull (strstr (r.err, "symbolic link"));
  assert_contents (elsewhere, "passwd", VICTIM_TEXT);

  run_in ("/bin/sh", "", "-c 'rm s_* && ln -s elsewhere/passwd s_series.json'", geteuid (), &r);
  run_in (series, "", SERIES_ARGS, geteuid (), &r);
  g_assert_cmpint (WEXITSTATUS (r.wait_status), !=, 0);
  g_assert_nonnull (strstr (r.err, "s_series.json"));
  assert_contents (elsewhere, "passwd", VICTIM_TEXT);
  run_result_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  cli = g_getenv ("NB_CLI");
  series = g_getenv ("NB_SERIES");
  g_test_add_func ("/cli-outputs/sticky-planted-links", test_sticky_planted_links);
  g_test_add_func ("/cli-outputs/mode-kept", test_mode_kept);
  g_test_add_func ("/cli-outputs/read-only-file", test_read_only_file);
  g_test_add_func ("/cli-outputs/series-resume-link", test_series_resume_link);
  return g_test_run ();
}
