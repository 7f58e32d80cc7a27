/* test-io-write.c: the output policy of the atomic writer (engine/base/io-write.c)
 * against links, sticky folders and files of other users (issue 23, items 6
 * and 11).  The cases with a second user run the writer in a child process
 * that has dropped root for "nobody" (65534); without root they are skipped,
 * saying so. */
#include <glib.h>
#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nb-io.h"
#include "nb-test-util.h"

#define OTHER_UID   65534 /* nobody */
#define THIRD_UID   65533 /* a user with no name, as an attacker may be */
#define NEW_TEXT    "new contents"
#define VICTIM_TEXT "root's secret\n"

typedef struct
{
  char *dir;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  GError *error = NULL;

  f->dir = g_dir_make_tmp ("nb-test-io-write-XXXXXX", &error);
  g_assert_no_error (error);
  /* the second user must reach the folders the tests make in it */
  g_assert_cmpint (g_chmod (f->dir, 0755), ==, 0);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  nb_test_remove_tree (f->dir);
  g_free (f->dir);
}

/* The cases that need a second user: FALSE (and the test skipped) unless
 * this process may become one and that user can reach @f's folder (a
 * TMPDIR inside a private folder would hide it). */
static gboolean
need_root (Fixture *f)
{
  int wait_status = 0;
  pid_t pid;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root, to make files of a second user and to run the writer as one");
      return FALSE;
    }
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (setgroups (0, NULL) == 0 && setgid (OTHER_UID) == 0 && setuid (OTHER_UID) == 0 &&
                   access (f->dir, X_OK) == 0
               ? 0
               : 1);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  if (WIFEXITED (wait_status) && WEXITSTATUS (wait_status) == 0)
    return TRUE;
  g_test_skip_printf ("user %d cannot reach the temporary folder %s", OTHER_UID, f->dir);
  return FALSE;
}

static void
write_file (const char *path, const char *text, mode_t mode, uid_t owner)
{
  GError *error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
  if (owner != geteuid ())
    g_assert_cmpint (lchown (path, owner, owner), ==, 0);
}

static void
make_link (const char *target, const char *link, uid_t owner)
{
  g_assert_cmpint (symlink (target, link), ==, 0);
  if (owner != geteuid ())
    g_assert_cmpint (lchown (link, owner, owner), ==, 0);
}

static void
assert_contents (const char *path, const char *expect)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, expect);
  g_free (text);
}

static void
assert_owner_mode (const char *path, uid_t uid, mode_t mode)
{
  GStatBuf st;

  g_assert_cmpint (g_lstat (path, &st), ==, 0);
  g_assert_cmpuint (st.st_uid, ==, uid);
  g_assert_cmpuint (st.st_mode & 07777, ==, mode);
}

/* No ".name.XXXXXX" left in @dir. */
static void
assert_no_temporaries (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    if (name[0] == '.')
      g_error ("temporary file %s left in %s", name, dir);
  g_dir_close (d);
}

/* nb_write_file_atomic (@path, NEW_TEXT), as user @uid (group @uid, no other
 * groups) in a child process when @uid is not this process's, and with names
 * marked derived when @derived.  Returns the status; *@message (g_free) the
 * error message, replacing (and freeing) the one it held. */
static nb_status
write_as (uid_t uid, int derived, const char *path, char **message)
{
  const void *chunks[1] = { NEW_TEXT };
  const size_t sizes[1] = { strlen (NEW_TEXT) };
  GString *got = g_string_new (NULL);
  char buf[256];
  ssize_t n;
  int fds[2], wait_status;
  pid_t pid;

  g_assert_cmpint (pipe (fds), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      nb_error err = { NB_OK, "" };
      nb_status st;

      close (fds[0]);
      if (uid != geteuid () && (setgroups (0, NULL) != 0 || setgid (uid) != 0 || setuid (uid) != 0))
        _exit (100);
      nb_output_set_derived (derived);
      st = nb_write_file_atomic (path, chunks, sizes, 1, &err);
      if (write (fds[1], err.message, strlen (err.message)) < 0)
        _exit (101);
      _exit ((int) st);
    }
  close (fds[1]);
  while ((n = read (fds[0], buf, sizeof buf)) > 0)
    g_string_append_len (got, buf, n);
  close (fds[0]);
  g_assert_cmpint (waitpid (pid, &wait_status, 0), ==, pid);
  g_assert_true (WIFEXITED (wait_status));
  g_assert_cmpint (WEXITSTATUS (wait_status), <, 100);
  g_free (*message);
  *message = g_string_free (got, FALSE);
  return (nb_status) WEXITSTATUS (wait_status);
}

/* ------------------------------------------------------------------------ */
/* Links                                                                     */

/* A name the program made up (a series frame) that is a link to a file
 * elsewhere: refused, the file behind it untouched (nanobragg-series
 * --resume had replaced a copy of /etc/passwd by a frame); a link to a pipe
 * is refused without opening (and so waiting on) it; a plain file there is
 * replaced as before. */
static void
test_derived_link (Fixture *f, gconstpointer data)
{
  g_autofree char *victim = g_build_filename (f->dir, "passwd", NULL);
  g_autofree char *frame = g_build_filename (f->dir, "s_000002.bin", NULL);
  g_autofree char *fifo = g_build_filename (f->dir, "pipe", NULL);
  g_autofree char *frame3 = g_build_filename (f->dir, "s_000003.bin", NULL);
  g_autofree char *message = NULL;

  write_file (victim, VICTIM_TEXT, 0644, geteuid ());
  make_link ("passwd", frame, geteuid ());
  g_assert_cmpint (write_as (geteuid (), TRUE, frame, &message), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (message, "refusing to follow the symbolic link"));
  g_assert_nonnull (strstr (message, frame));
  assert_contents (victim, VICTIM_TEXT);
  g_assert_true (g_file_test (frame, G_FILE_TEST_IS_SYMLINK));
  assert_no_temporaries (f->dir);
  g_clear_pointer (&message, g_free);

  /* in a set too, and nothing of the set is written */
  {
    const void *chunks[1] = { NEW_TEXT };
    const size_t sizes[1] = { strlen (NEW_TEXT) };
    nb_error err;
    int old = nb_output_set_derived (1);

    g_assert_cmpint (old, ==, 0);
    nb_output_begin ();
    g_assert_cmpint (nb_write_file_atomic (frame3, chunks, sizes, 1, &err), ==, NB_OK);
    g_assert_cmpint (nb_write_file_atomic (frame, chunks, sizes, 1, &err), ==, NB_ERR_IO);
    nb_output_abort ();
    g_assert_cmpint (nb_output_set_derived (old), ==, 1);
    g_assert_false (g_file_test (frame3, G_FILE_TEST_EXISTS));
    assert_contents (victim, VICTIM_TEXT);
  }

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (g_unlink (frame), ==, 0);
  make_link ("pipe", frame, geteuid ());
  g_assert_cmpint (write_as (geteuid (), TRUE, frame, &message), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (message, "refusing to follow the symbolic link"));
  g_clear_pointer (&message, g_free);

  /* the same names given by the user: followed */
  g_assert_cmpint (write_as (geteuid (), FALSE, frame3, &message), ==, NB_OK);
  assert_contents (frame3, NEW_TEXT);
  g_assert_cmpint (g_unlink (frame), ==, 0);
  make_link ("passwd", frame, geteuid ());
  g_assert_cmpint (write_as (geteuid (), FALSE, frame, &message), ==, NB_OK);
  assert_contents (victim, NEW_TEXT);
  g_assert_true (g_file_test (frame, G_FILE_TEST_IS_SYMLINK));
  /* a plain file at a made-up name is replaced */
  g_assert_cmpint (write_as (geteuid (), TRUE, frame3, &message), ==, NB_OK);
  assert_contents (frame3, NEW_TEXT);
}

/* root writing -floatfile in a sticky world-writable folder through a link
 * another user planted there: refused, the root-only file behind it keeps
 * its contents, owner and mode (it had become 0644 floats).  So is a chain
 * through such a link, and a link of the folder's owner or of the writer
 * is followed. */
static void
test_sticky_planted_link (Fixture *f, gconstpointer data)
{
  g_autofree char *shared = g_build_filename (f->dir, "shared", NULL);
  g_autofree char *victim = g_build_filename (f->dir, "root-only", NULL);
  g_autofree char *planted = g_build_filename (shared, "out.bin", NULL);
  g_autofree char *chain = g_build_filename (f->dir, "chain.bin", NULL);
  g_autofree char *own = g_build_filename (shared, "own.bin", NULL);
  g_autofree char *own_target = g_build_filename (shared, "own-target", NULL);
  g_autofree char *message = NULL;

  if (!need_root (f))
    return;
  g_assert_cmpint (g_mkdir (shared, 0777), ==, 0);
  g_assert_cmpint (g_chmod (shared, 01777), ==, 0);
  write_file (victim, VICTIM_TEXT, 0600, 0);
  make_link (victim, planted, OTHER_UID);

  g_assert_cmpint (write_as (0, FALSE, planted, &message), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (message, "refusing to follow the symbolic link"));
  g_assert_nonnull (strstr (message, planted));
  g_assert_nonnull (strstr (message, "sticky folder"));
  g_assert_nonnull (strstr (message, "nobody"));
  assert_contents (victim, VICTIM_TEXT);
  assert_owner_mode (victim, 0, 0600);
  g_clear_pointer (&message, g_free);

  /* root's own link to the planted one */
  make_link ("shared/out.bin", chain, 0);
  g_assert_cmpint (write_as (0, FALSE, chain, &message), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (message, "sticky folder"));
  assert_contents (victim, VICTIM_TEXT);
  g_clear_pointer (&message, g_free);

  /* an unprivileged user, a link of a third user: refused as well */
  g_assert_cmpint (lchown (planted, THIRD_UID, THIRD_UID), ==, 0);
  write_file (victim, VICTIM_TEXT, 0666, OTHER_UID);
  g_assert_cmpint (write_as (OTHER_UID, FALSE, planted, &message), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (message, "sticky folder"));
  assert_contents (victim, VICTIM_TEXT);
  assert_no_temporaries (f->dir);
  g_clear_pointer (&message, g_free);

  /* the writer's own link in the sticky folder is followed */
  write_file (own_target, "old", 0644, OTHER_UID);
  make_link (own_target, own, OTHER_UID);
  g_assert_cmpint (write_as (OTHER_UID, FALSE, own, &message), ==, NB_OK);
  assert_contents (own_target, NEW_TEXT);
  g_assert_true (g_file_test (own, G_FILE_TEST_IS_SYMLINK));
}

/* A link the user did not make, outside any sticky folder: followed only
 * when it is root's (as /dev/stdout is); another user's is refused. */
static void
test_link_of_another_user (Fixture *f, gconstpointer data)
{
  g_autofree char *open_dir = g_build_filename (f->dir, "open", NULL);
  g_autofree char *target = g_build_filename (open_dir, "target", NULL);
  g_autofree char *theirs = g_build_filename (open_dir, "theirs.bin", NULL);
  g_autofree char *roots = g_build_filename (open_dir, "roots.bin", NULL);
  g_autofree char *message = NULL;

  if (!need_root (f))
    return;
  g_assert_cmpint (g_mkdir (open_dir, 0777), ==, 0);
  g_assert_cmpint (g_chmod (open_dir, 0777), ==, 0);
  write_file (target, "old", 0666, 0);
  make_link ("target", theirs, THIRD_UID);
  make_link ("target", roots, 0);

  g_assert_cmpint (write_as (OTHER_UID, FALSE, theirs, &message), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (message, "refusing to follow the symbolic link"));
  g_assert_nonnull (strstr (message, "not to you"));
  assert_contents (target, "old");
  g_clear_pointer (&message, g_free);
  /* root too follows no other user's link */
  g_assert_cmpint (write_as (0, FALSE, theirs, &message), ==, NB_ERR_IO);
  assert_contents (target, "old");
  g_clear_pointer (&message, g_free);

  g_assert_cmpint (write_as (OTHER_UID, FALSE, roots, &message), ==, NB_OK);
  assert_contents (target, NEW_TEXT);
  g_assert_true (g_file_test (roots, G_FILE_TEST_IS_SYMLINK));
  g_clear_pointer (&message, g_free);

  /* a link to a device likewise: /dev/full's "disk full" only through root's */
  if (g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_autofree char *theirs_dev = g_build_filename (open_dir, "theirs-full.bin", NULL);
      g_autofree char *roots_dev = g_build_filename (open_dir, "roots-full.bin", NULL);

      make_link ("/dev/full", theirs_dev, THIRD_UID);
      make_link ("/dev/full", roots_dev, 0);
      g_assert_cmpint (write_as (OTHER_UID, FALSE, theirs_dev, &message), ==, NB_ERR_IO);
      g_assert_nonnull (strstr (message, "not to you"));
      g_clear_pointer (&message, g_free);
      g_assert_cmpint (write_as (OTHER_UID, FALSE, roots_dev, &message), ==, NB_ERR_IO);
      g_assert_nonnull (strstr (message, g_strerror (ENOSPC)));
    }
}

/* ------------------------------------------------------------------------ */
/* Files replaced                                                            */

/* A 0600 file stays 0600 (it became 0644, world-readable), a 0640 one
 * 0640; a new file still gets 0666 less the umask. */
static void
test_mode_kept (Fixture *f, gconstpointer data)
{
  g_autofree char *mine = g_build_filename (f->dir, "mine.bin", NULL);
  g_autofree char *fresh = g_build_filename (f->dir, "fresh.bin", NULL);
  g_autofree char *message = NULL;
  mode_t old_mask = umask (022);

  write_file (mine, "old", 0600, geteuid ());
  g_assert_cmpint (write_as (geteuid (), FALSE, mine, &message), ==, NB_OK);
  assert_contents (mine, NEW_TEXT);
  assert_owner_mode (mine, geteuid (), 0600);
  g_assert_cmpint (g_chmod (mine, 0640), ==, 0);
  g_assert_cmpint (write_as (geteuid (), FALSE, mine, &message), ==, NB_OK);
  assert_owner_mode (mine, geteuid (), 0640);
  g_assert_cmpint (write_as (geteuid (), FALSE, fresh, &message), ==, NB_OK);
  assert_owner_mode (fresh, geteuid (), 0644);
  umask (old_mask);
}

/* root replacing another user's 0600 file: still theirs, still 0600; a
 * set-user-ID bit is not carried over to new contents. */
static void
test_mode_kept_other_user (Fixture *f, gconstpointer data)
{
  g_autofree char *theirs = g_build_filename (f->dir, "theirs.bin", NULL);
  g_autofree char *message = NULL;
  GStatBuf st;

  if (!need_root (f))
    return;
  write_file (theirs, "old", 0600, OTHER_UID);
  g_assert_cmpint (write_as (0, FALSE, theirs, &message), ==, NB_OK);
  assert_contents (theirs, NEW_TEXT);
  assert_owner_mode (theirs, OTHER_UID, 0600);
  g_assert_cmpint (g_stat (theirs, &st), ==, 0);
  g_assert_cmpuint (st.st_gid, ==, OTHER_UID);
  g_assert_cmpint (g_chmod (theirs, 04755), ==, 0);
  g_clear_pointer (&message, g_free);
  g_assert_cmpint (write_as (0, FALSE, theirs, &message), ==, NB_OK);
  assert_owner_mode (theirs, OTHER_UID, 0755);
}

/* root's read-only file in a folder everyone may write: an unprivileged user
 * may not replace it (the shell refuses the write; a rename had replaced
 * it); root may, and it stays read-only. */
static void
test_read_only_file (Fixture *f, gconstpointer data)
{
  g_autofree char *open_dir = g_build_filename (f->dir, "open", NULL);
  g_autofree char *locked = g_build_filename (open_dir, "locked.bin", NULL);
  g_autofree char *message = NULL;

  if (!need_root (f))
    return;
  g_assert_cmpint (g_mkdir (open_dir, 0777), ==, 0);
  g_assert_cmpint (g_chmod (open_dir, 0777), ==, 0);
  write_file (locked, VICTIM_TEXT, 0444, 0);

  g_assert_cmpint (write_as (OTHER_UID, FALSE, locked, &message), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (message, locked));
  g_assert_nonnull (strstr (message, g_strerror (EACCES)));
  assert_contents (locked, VICTIM_TEXT);
  assert_owner_mode (locked, 0, 0444);
  assert_no_temporaries (open_dir);
  g_clear_pointer (&message, g_free);

  g_assert_cmpint (write_as (0, FALSE, locked, &message), ==, NB_OK);
  assert_contents (locked, NEW_TEXT);
  assert_owner_mode (locked, 0, 0444);
}

/* In a sticky world-writable folder, a file (or named pipe) another user
 * left at the name is not replaced (fs.protected_regular) nor written to
 * (fs.protected_fifos): root's output would have become theirs. */
static void
test_sticky_other_users_file (Fixture *f, gconstpointer data)
{
  g_autofree char *shared = g_build_filename (f->dir, "shared", NULL);
  g_autofree char *theirs = g_build_filename (shared, "out.bin", NULL);
  g_autofree char *fifo = g_build_filename (shared, "out.img", NULL);
  g_autofree char *mine = g_build_filename (shared, "mine.bin", NULL);
  g_autofree char *message = NULL;
  char buf[64];
  int reader;

  if (!need_root (f))
    return;
  g_assert_cmpint (g_mkdir (shared, 0777), ==, 0);
  g_assert_cmpint (g_chmod (shared, 01777), ==, 0);
  write_file (theirs, "theirs", 0666, OTHER_UID);
  g_assert_cmpint (write_as (0, FALSE, theirs, &message), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (message, "refusing to replace"));
  g_assert_nonnull (strstr (message, "sticky folder"));
  assert_contents (theirs, "theirs");
  assert_owner_mode (theirs, OTHER_UID, 0666);
  g_clear_pointer (&message, g_free);

  /* a reader is waiting, so that a write would not block */
  g_assert_cmpint (mkfifo (fifo, 0666), ==, 0);
  g_assert_cmpint (lchown (fifo, OTHER_UID, OTHER_UID), ==, 0);
  reader = open (fifo, O_RDONLY | O_NONBLOCK);
  g_assert_cmpint (reader, >=, 0);
  g_assert_cmpint (write_as (0, FALSE, fifo, &message), ==, NB_ERR_IO);
  g_assert_nonnull (strstr (message, "named pipe"));
  g_assert_cmpint (read (reader, buf, sizeof buf), ==, 0);
  close (reader);
  g_clear_pointer (&message, g_free);

  /* the user's own file there is replaced */
  write_file (mine, "old", 0644, OTHER_UID);
  g_assert_cmpint (write_as (OTHER_UID, FALSE, mine, &message), ==, NB_OK);
  assert_contents (mine, NEW_TEXT);
}

#define ADD(name, func) g_test_add (name, Fixture, NULL, fixture_setup, func, fixture_teardown)

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ADD ("/io-write/link/derived", test_derived_link);
  ADD ("/io-write/link/sticky-planted", test_sticky_planted_link);
  ADD ("/io-write/link/another-user", test_link_of_another_user);
  ADD ("/io-write/file/mode-kept", test_mode_kept);
  ADD ("/io-write/file/mode-kept-other-user", test_mode_kept_other_user);
  ADD ("/io-write/file/read-only", test_read_only_file);
  ADD ("/io-write/file/sticky-other-user", test_sticky_other_users_file);
  return g_test_run ();
}
