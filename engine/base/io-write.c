/* io-write.c: the atomic writer behind every output file (nb-io.h), and the
 * rules it keeps for symbolic links and for the files it replaces.
 *
 * Policy (docs/security.md, "Output files"):
 *
 *  1. No name is resolved on a path string that could change under us: a
 *     link chain is read hop by hop through a descriptor of each link's own
 *     folder (openat O_PATH|O_NOFOLLOW, readlinkat), and the temporary file is
 *     created (O_CREAT|O_EXCL|O_NOFOLLOW) and renamed (renameat) relative to a
 *     descriptor of the last folder, so a link swapped in after a check is
 *     never followed.  Folders along a path are the kernel's to resolve, with
 *     its own fs.protected_symlinks rule.
 *  2. A name the program makes up itself (nanobragg-series' frames, series,
 *     master and summary files: nb_output_set_derived()) never follows a
 *     link: a link there is refused, as open(O_NOFOLLOW) would refuse it.
 *  3. A link at a name the user gave is followed, each link of a chain,
 *     only when it belongs to the user or to root (no other user can make a
 *     link owned by root: /dev/stdout is one), and, in a sticky
 *     world-writable folder such as /tmp, only when it belongs to the user or
 *     to the folder's owner (the kernel's fs.protected_symlinks rule, kept
 *     whatever the sysctl says, and by root too).
 *  4. An existing regular file is replaced only when the user could write it
 *     (faccessat W_OK with the effective ids: as `>` in a shell; root may),
 *     and, in a sticky world-writable folder, only when it belongs to the
 *     user or to the folder's owner (fs.protected_regular).  The new file
 *     keeps the old one's permission bits (less set-user-ID and
 *     set-group-ID) and group, and as root its owner too; it is created 0600
 *     and given them once written.  A new file gets 0666 less the umask, as
 *     fopen() gives it.
 *  5. A stream (character device, pipe, socket) is opened by the kernel:
 *     a link to it is followed once rules 2 and 3 passed the links we can
 *     read (/dev/stdout leads to /proc/self/fd/1, then to "pipe:[...]", no
 *     path), and with O_NOFOLLOW at a made-up name; a pipe or socket in
 *     a sticky world-writable folder that belongs to neither the user nor
 *     the folder's owner is refused (fs.protected_fifos): it could hold the
 *     program forever or collect its data.
 */
#include "nb-io.h"
#include "nb-io-write.h"
#include "nb-memory.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* The kernel's own limit on links followed while resolving one name. */
#define MAX_LINK_HOPS 40

static const char *
error_text (int errnum, char *buf, size_t n)
{
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r (errnum, buf, n);
#else
  if (strerror_r (errnum, buf, n) != 0)
    snprintf (buf, n, "error %d", errnum);
  return buf;
#endif
}

nb_status
nb_io_error (nb_error *err, int errnum, const char *what, const char *path)
{
  char buf[128];

  return nb_error_set (err, NB_ERR_IO, "%s %s: %s", what, path,
                       error_text (errnum, buf, sizeof buf));
}

static _Thread_local int derived_names;

int
nb_output_set_derived (int derived)
{
  int old = derived_names;

  derived_names = derived != 0;
  return old;
}

/* ------------------------------------------------------------------------ */
/* Owners and folders                                                       */

/* "user NAME", or "user UID" when the system has no name for it. */
static void
user_text (uid_t uid, char *buf, size_t n)
{
  struct passwd pw, *found = NULL;
  char scratch[1024];

  if (getpwuid_r (uid, &pw, scratch, sizeof scratch, &found) == 0 && found != NULL)
    snprintf (buf, n, "user %s", found->pw_name);
  else
    snprintf (buf, n, "user %lu", (unsigned long) uid);
}

/* Whether @folder is sticky and world-writable and an entry owned by @owner
 * in it could have been put there by someone other than the user or the
 * folder's owner: the entries the kernel's fs.protected_* rules distrust. */
static int
untrusted_in_sticky (const struct stat *folder, uid_t owner)
{
  return (folder->st_mode & S_ISVTX) && (folder->st_mode & S_IWOTH) && owner != geteuid () &&
         owner != folder->st_uid;
}

/* The folder of @path for messages: its absolute name where it can be
 * found ("." says little), else the folder part as written. */
static char *
folder_text (const char *path)
{
  const char *slash = strrchr (path, '/');
  char *dir, *full;

  if (slash == NULL)
    dir = strdup (".");
  else if (slash == path)
    dir = strdup ("/");
  else
    dir = strndup (path, (size_t) (slash - path));
  full = dir != NULL ? realpath (dir, NULL) : NULL;
  if (full == NULL)
    return dir;
  free (dir);
  return full;
}

/* Opens (O_PATH) the folder of @path, relative to @at, and points *@name at
 * @path's last part (empty for "dir/").  -1 with errno. */
static int
open_parent (int at, const char *path, const char **name)
{
  const char *slash = strrchr (path, '/');
  char *dir;
  int fd, saved;

  *name = slash != NULL ? slash + 1 : path;
  if (slash == NULL)
    return openat (at, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  dir = slash == path ? strdup ("/") : strndup (path, (size_t) (slash - path));
  if (dir == NULL)
    return -1;
  fd = openat (at, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  saved = errno;
  free (dir);
  errno = saved;
  return fd;
}

/* "@path (a link to @target)" when they differ, else a copy of @path. */
static char *
shown_name (const char *path, const char *target)
{
  size_t n = strlen (path) + strlen (target) + 16;
  char *shown = malloc (n);

  if (shown != NULL)
    {
      if (strcmp (path, target) == 0)
        memcpy (shown, path, strlen (path) + 1);
      else
        snprintf (shown, n, "%s (a link to %s)", path, target);
    }
  return shown;
}

/* ------------------------------------------------------------------------ */
/* Streams: character devices, pipes and sockets                            */

/* A stream has no folder to hold a temporary file and no old contents to
 * keep: it is opened and written through, and its errors (a full device, a
 * reader gone) are the write's.  A named pipe with no reader blocks in open()
 * until one comes, as `cat > fifo` does. */
static int
is_stream (mode_t mode)
{
  return S_ISCHR (mode) || S_ISFIFO (mode) || S_ISSOCK (mode);
}

/* Writes all of @data to @fd through short writes and EINTR; a socket with
 * send() and MSG_NOSIGNAL.  0, or -1 with errno set (a write that takes
 * nothing is a full device: ENOSPC). */
static int
write_all (int fd, const void *data, size_t n, int is_socket)
{
  const char *p = data;

  while (n > 0)
    {
      size_t want = n > (size_t) SSIZE_MAX ? (size_t) SSIZE_MAX : n;
      ssize_t w = is_socket ? send (fd, p, want, MSG_NOSIGNAL) : write (fd, p, want);

      if (w < 0)
        {
          if (errno == EINTR)
            continue;
          return -1;
        }
      if (w == 0)
        {
          errno = ENOSPC;
          return -1;
        }
      p += w;
      n -= (size_t) w;
    }
  return 0;
}

/* A named (AF_UNIX) socket is connected to, not opened.  -1 with errno. */
static int
connect_socket (const char *path)
{
  struct sockaddr_un addr;
  int fd, saved;

  if (strlen (path) >= sizeof addr.sun_path)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  memset (&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  memcpy (addr.sun_path, path, strlen (path) + 1);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && connect (fd, (const struct sockaddr *) &addr, sizeof addr) != 0)
    {
      saved = errno;
      close (fd);
      errno = saved;
      fd = -1;
    }
  return fd;
}

/* Writes @n_chunks buffers to the stream @path (@mode as stat() gave it);
 * @open_flags adds O_NOFOLLOW for a made-up name. */
static nb_status
write_stream (const char *path,
              mode_t mode,
              int open_flags,
              const void *const *chunks,
              const size_t *sizes,
              int n_chunks,
              nb_error *err)
{
  static const struct timespec no_wait = { 0, 0 };
  sigset_t pipe_signal, old_mask, pending;
  struct stat now;
  int fd, i, rc = 0, saved = 0, was_pending;

  fd = S_ISSOCK (mode) ? connect_socket (path)
                       : open (path, O_WRONLY | O_NOCTTY | O_CLOEXEC | open_flags);
  if (fd < 0)
    return nb_io_error (err, errno, "cannot open for writing", path);
  /* opened without O_TRUNC, so a regular file put in its place since stat()
   * must not be written into (its old tail would stay) */
  if (fstat (fd, &now) != 0 || !is_stream (now.st_mode))
    {
      close (fd);
      return nb_error_set (err, NB_ERR_IO,
                           "cannot write %s: it became a regular file while being opened", path);
    }

  /* A reader that is gone is an error (EPIPE) reported like any other, not
   * SIGPIPE's default of ending the whole process (the viewer, a host
   * application): the signal is held on this thread during the write, and one
   * the write raised is taken back before it is let through. */
  sigemptyset (&pipe_signal);
  sigaddset (&pipe_signal, SIGPIPE);
  pthread_sigmask (SIG_BLOCK, &pipe_signal, &old_mask);
  was_pending = sigpending (&pending) == 0 && sigismember (&pending, SIGPIPE) == 1;
  for (i = 0; i < n_chunks && rc == 0; i++)
    if (sizes[i] > 0)
      rc = write_all (fd, chunks[i], sizes[i], S_ISSOCK (now.st_mode));
  if (rc != 0)
    {
      saved = errno;
      if (saved == EPIPE && !was_pending)
        sigtimedwait (&pipe_signal, NULL, &no_wait);
    }
  pthread_sigmask (SIG_SETMASK, &old_mask, NULL);

  /* a device may report a failed write only here; EINTR still closed it */
  if (close (fd) != 0 && errno != EINTR && rc == 0)
    {
      rc = -1;
      saved = errno;
    }
  return rc == 0 ? NB_OK : nb_io_error (err, saved, "cannot write", path);
}

/* Rule 5: refuses a pipe or socket @st (lstat() of @path, not a link) that
 * another user left in a sticky world-writable folder. */
static nb_status
check_stream (const char *path, const struct stat *st, nb_error *err)
{
  struct stat folder;
  const char *name;
  char owner[96], *where;
  int fd;
  nb_status status = NB_OK;

  if (!S_ISFIFO (st->st_mode) && !S_ISSOCK (st->st_mode))
    return NB_OK;
  fd = open_parent (AT_FDCWD, path, &name);
  if (fd >= 0 && fstat (fd, &folder) == 0 && untrusted_in_sticky (&folder, st->st_uid))
    {
      where = folder_text (path);
      user_text (st->st_uid, owner, sizeof owner);
      status = nb_error_set (err, NB_ERR_IO,
                             "refusing to write to the %s %s in the sticky folder %s: it belongs "
                             "to %s",
                             S_ISFIFO (st->st_mode) ? "named pipe" : "socket", path,
                             where != NULL ? where : "", owner);
      free (where);
    }
  if (fd >= 0)
    close (fd);
  return status;
}

/* ------------------------------------------------------------------------ */
/* Names: a symbolic link's target is replaced, the link kept               */

/* The name a rename must replace: the folder @dirfd (O_PATH) and the entry
 * @name in it, @where the path messages give for it. */
typedef struct
{
  int dirfd;
  char *name;
  char *where;
} out_name;

static void
out_name_clear (out_name *t)
{
  if (t->dirfd >= 0)
    close (t->dirfd);
  free (t->name);
  free (t->where);
  t->dirfd = -1;
  t->name = t->where = NULL;
}

/* readlinkat() of the link @fd (O_PATH), NUL-terminated and malloc'd; NULL
 * with errno. */
static char *
read_link (int fd, size_t hint)
{
  size_t size = hint > 0 ? hint + 1 : 256;

  for (;;)
    {
      char *text = malloc (size);
      ssize_t n;

      if (text == NULL)
        return NULL;
      n = readlinkat (fd, "", text, size);
      if (n < 0)
        {
          int saved = errno;

          free (text);
          errno = saved;
          return NULL;
        }
      if ((size_t) n < size)
        {
          text[n] = '\0';
          return text;
        }
      /* truncated (a link that grew, or /proc's links, which claim size 0) */
      free (text);
      if (size > (size_t) PATH_MAX)
        {
          errno = ENAMETOOLONG;
          return NULL;
        }
      size *= 2;
    }
}

/* Rules 2 and 3 for the link @link (fstat() of it) at @t: NB_OK when it may
 * be followed; @path is the name the caller gave. */
static nb_status
check_link (const char *path, const out_name *t, const struct stat *link, nb_error *err)
{
  struct stat folder;
  char owner[96], folder_owner[96], *where;
  nb_status status = NB_OK;

  if (derived_names)
    return nb_error_set (err, NB_ERR_IO,
                         "refusing to follow the symbolic link %s: the program made up this "
                         "name, and only links the user names are followed",
                         t->where);
  if (fstat (t->dirfd, &folder) != 0)
    return nb_io_error (err, errno, "cannot write", path);
  user_text (link->st_uid, owner, sizeof owner);
  if (untrusted_in_sticky (&folder, link->st_uid))
    {
      where = folder_text (t->where);
      user_text (folder.st_uid, folder_owner, sizeof folder_owner);
      status = nb_error_set (err, NB_ERR_IO,
                             "refusing to follow the symbolic link %s in the sticky folder %s "
                             "owned by %s: it belongs to %s",
                             t->where, where != NULL ? where : "", folder_owner, owner);
      free (where);
    }
  else if (link->st_uid != geteuid () && link->st_uid != 0)
    status = nb_error_set (err, NB_ERR_IO,
                           "refusing to follow the symbolic link %s: it belongs to %s, not to you",
                           t->where, owner);
  return status;
}

/* Moves @t one link on: @text is the link's contents, read against the
 * folder of @t (a relative link) or the root.  -1 with errno. */
static int
out_name_follow (out_name *t, const char *text)
{
  const char *name;
  char *where, *next_name;
  size_t dir_len;
  int fd, saved;

  fd = open_parent (text[0] == '/' ? AT_FDCWD : t->dirfd, text, &name);
  saved = errno;
  {
    const char *slash = strrchr (t->where, '/');

    dir_len = text[0] != '/' && slash != NULL ? (size_t) (slash - t->where) + 1 : 0;
  }
  where = malloc (dir_len + strlen (text) + 1);
  next_name = strdup (name);
  if (where != NULL)
    {
      memcpy (where, t->where, dir_len);
      memcpy (where + dir_len, text, strlen (text) + 1);
    }
  if (where == NULL || next_name == NULL)
    {
      free (where);
      free (next_name);
      if (fd >= 0)
        close (fd);
      errno = ENOMEM;
      return -1;
    }
  free (t->where);
  free (t->name);
  close (t->dirfd);
  t->where = where;
  t->name = next_name;
  t->dirfd = fd;
  errno = saved;
  return fd < 0 ? -1 : 0;
}

/* The error of a link whose target's folder cannot be opened (@errnum),
 * naming the link and its target. */
static nb_status
follow_error (const char *path, const out_name *t, int errnum, nb_error *err)
{
  char *shown = errnum != ENOMEM ? shown_name (path, t->where) : NULL;
  nb_status status;

  if (shown == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", path);
  status = nb_io_error (err, errnum, "cannot write", shown);
  free (shown);
  return status;
}

/* Finds the name a rename must replace for @path: @path itself, or, when
 * @path is a symbolic link the rules let us follow, the name at the end of
 * its chain (a relative link read against the link's own folder), so that
 * the link stays a link and its target gets the new contents.  That name
 * need not exist: a dangling link's target is created.  On an error, @t->where
 * still names how far the chain got. */
static nb_status
resolve_name (const char *path, out_name *t, nb_error *err)
{
  const char *name;
  int saved;

  t->dirfd = open_parent (AT_FDCWD, path, &name);
  saved = errno;
  t->where = strdup (path);
  t->name = strdup (name);
  if (t->where == NULL || t->name == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", path);
  if (t->dirfd < 0)
    return nb_io_error (err, saved, "cannot write", path);

  for (int hops = 0;; hops++)
    {
      struct stat st;
      nb_status status;
      char *text;
      int fd;

      if (t->name[0] == '\0')
        return nb_io_error (err, EISDIR, "cannot write", path);
      /* missing, unreadable or not a link: the write itself reports errors */
      fd = openat (t->dirfd, t->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0)
        return NB_OK;
      if (fstat (fd, &st) != 0 || !S_ISLNK (st.st_mode))
        {
          close (fd);
          return NB_OK;
        }
      status = hops < MAX_LINK_HOPS ? check_link (path, t, &st, err)
                                    : nb_io_error (err, ELOOP, "cannot write", path);
      text = status == NB_OK ? read_link (fd, (size_t) st.st_size) : NULL;
      if (status == NB_OK && text == NULL)
        status = nb_io_error (err, errno, "cannot write", path);
      close (fd);
      if (status != NB_OK)
        return status;
      if (out_name_follow (t, text) != 0)
        status = follow_error (path, t, errno, err);
      free (text);
      if (status != NB_OK)
        return status;
    }
}

/* ------------------------------------------------------------------------ */
/* Sets of outputs                                                          */

/* Outputs written between nb_output_begin() and nb_output_commit() on this
 * thread: files complete and synced under their temporary names, renamed
 * together at the end, and the bytes of streams, written at the end. */
typedef struct
{
  int dirfd;    /* the folder of a file (its own descriptor), -1 for a stream */
  char *tmp;    /* the temporary file in it; NULL for a stream, or once renamed */
  char *name;   /* the name it replaces in that folder */
  char *shown;  /* the name messages give (the stream's path) */
  int sync_dir; /* sync the folder after the rename */
  void *data;   /* a stream's bytes */
  size_t size;
  mode_t mode;  /* a stream's, from stat() */
  int nofollow; /* a stream's open flags: O_NOFOLLOW for a made-up name */
} staged_file;

static _Thread_local struct
{
  int active;
  int n, cap;
  staged_file *files;
} staging;

/* Makes the rename itself durable; failure only weakens durability, the file
 * is already complete, so it is not reported. */
static void
sync_directory (int dirfd)
{
  int fd = openat (dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
}

void
nb_output_begin (void)
{
  nb_output_abort ();
  staging.active = 1;
}

void
nb_output_abort (void)
{
  for (int i = 0; i < staging.n; i++)
    {
      staged_file *f = &staging.files[i];

      if (f->tmp != NULL)
        unlinkat (f->dirfd, f->tmp, 0);
      if (f->dirfd >= 0)
        close (f->dirfd);
      free (f->tmp);
      free (f->name);
      free (f->shown);
      free (f->data);
    }
  free (staging.files);
  staging.files = NULL;
  staging.n = staging.cap = 0;
  staging.active = 0;
}

nb_status
nb_output_commit (nb_error *err)
{
  nb_status status = NB_OK;
  int i;

  /* The streams first: their writes can still fail (a full device, a reader
   * gone) while every file is as it was. */
  for (i = 0; i < staging.n && status == NB_OK; i++)
    {
      staged_file *f = &staging.files[i];
      const void *chunk = f->data;

      if (f->tmp == NULL)
        status = write_stream (f->shown, f->mode, f->nofollow, &chunk, &f->size, 1, err);
    }
  for (i = 0; i < staging.n && status == NB_OK; i++)
    {
      staged_file *f = &staging.files[i];

      if (f->tmp == NULL)
        continue;
      if (renameat (f->dirfd, f->tmp, f->dirfd, f->name) != 0)
        status = nb_io_error (err, errno, "cannot replace", f->shown);
      else
        {
          if (f->sync_dir)
            sync_directory (f->dirfd);
          free (f->tmp);
          f->tmp = NULL;
        }
    }
  /* removes the temporary files not renamed and ends the set */
  nb_output_abort ();
  return status;
}

/* A new entry of the open set, zeroed but for dirfd = -1; NULL when out of
 * memory. */
static staged_file *
stage_slot (void)
{
  staged_file *f;

  if (staging.n == staging.cap)
    {
      int cap = staging.cap ? staging.cap * 2 : 8;
      staged_file *bigger = realloc (staging.files, (size_t) cap * sizeof *bigger);

      if (bigger == NULL)
        return NULL;
      staging.files = bigger;
      staging.cap = cap;
    }
  f = &staging.files[staging.n++];
  memset (f, 0, sizeof *f);
  f->dirfd = -1;
  return f;
}

/* Keeps a copy of a stream's bytes for nb_output_commit(): a stream written
 * now could not be taken back if the set is abandoned. */
static nb_status
stage_stream (const char *path,
              mode_t mode,
              int open_flags,
              const void *const *chunks,
              const size_t *sizes,
              int n_chunks,
              nb_error *err)
{
  size_t total = 0, at = 0;
  staged_file *f;
  char *data;

  for (int i = 0; i < n_chunks; i++)
    {
      if (sizes[i] > SIZE_MAX - total)
        return nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", path);
      total += sizes[i];
    }
  data = malloc (total > 0 ? total : 1);
  f = data != NULL ? stage_slot () : NULL;
  if (f == NULL || (f->shown = strdup (path)) == NULL)
    {
      if (f != NULL)
        staging.n--;
      free (data);
      return nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", path);
    }
  for (int i = 0; i < n_chunks; i++)
    if (sizes[i] > 0)
      {
        memcpy (data + at, chunks[i], sizes[i]);
        at += sizes[i];
      }
  f->data = data;
  f->size = total;
  f->mode = mode;
  f->nofollow = open_flags;
  return NB_OK;
}

/* ------------------------------------------------------------------------ */
/* Files: a temporary name beside the target, then rename                   */

/* Creates "@dirfd/.<name>.XXXXXX" (@tmpl) exclusively, never through a link,
 * with @mode less the umask.  -1 with errno. */
static int
open_temp (int dirfd, char *tmpl, mode_t mode)
{
  static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static atomic_uint_fast64_t counter;
  char *x = tmpl + strlen (tmpl) - 6;
  struct timespec ts;
  uint64_t state;
  int attempt;

  clock_gettime (CLOCK_REALTIME, &ts);
  state = (uint64_t) ts.tv_nsec ^ ((uint64_t) ts.tv_sec << 20) ^ ((uint64_t) getpid () << 40) ^
          (uint64_t) (uintptr_t) tmpl ^ atomic_fetch_add (&counter, 1) * 0x2545f4914f6cdd1dULL;

  for (attempt = 0; attempt < 100; attempt++)
    {
      uint64_t v;
      int fd, i;

      /* splitmix64 */
      v = (state += 0x9e3779b97f4a7c15ULL);
      v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
      v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
      v ^= v >> 31;
      for (i = 0; i < 6; i++, v /= 62)
        x[i] = letters[v % 62];
      fd = openat (dirfd, tmpl, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
      if (fd >= 0 || errno != EEXIST)
        return fd;
    }
  errno = EEXIST;
  return -1;
}

/* Rule 4 for the regular file @old at @t: NB_OK when it may be replaced. */
static nb_status
check_replace (const out_name *t, const struct stat *old, const char *shown, nb_error *err)
{
  struct stat folder;
  char owner[96], *where;
  nb_status status;

  if (fstat (t->dirfd, &folder) == 0 && untrusted_in_sticky (&folder, old->st_uid))
    {
      where = folder_text (t->where);
      user_text (old->st_uid, owner, sizeof owner);
      status = nb_error_set (err, NB_ERR_IO,
                             "refusing to replace %s in the sticky folder %s: it belongs to %s",
                             shown, where != NULL ? where : "", owner);
      free (where);
      return status;
    }
  if (faccessat (t->dirfd, t->name, W_OK, AT_EACCESS | AT_SYMLINK_NOFOLLOW) != 0)
    return nb_io_error (err, errno, "cannot replace", shown);
  return NB_OK;
}

/* Gives the new file @fd the owner (as root), group and permission bits of
 * the file @old it replaces.  The owner and group as far as the system lets
 * us (a folder on NFS that squashes root, an id a user namespace does not
 * map, a group the user is not in: the new file stays the user's, still with
 * the old bits); -1 with errno when the bits cannot be set. */
static int
keep_attributes (int fd, const struct stat *old)
{
  if (geteuid () == 0)
    (void) !fchown (fd, old->st_uid, old->st_gid);
  else if (old->st_gid != getegid ())
    (void) !fchown (fd, (uid_t) -1, old->st_gid);
  return fchmod (fd, old->st_mode & 0777);
}

/* Writes the chunks to a temporary file in @t's folder, then renames it over
 * @t, or stages it for nb_output_commit() (which takes @t's descriptor);
 * @shown names the output in messages. */
static nb_status
replace_file (out_name *t,
              const char *shown,
              const void *const *chunks,
              const size_t *sizes,
              int n_chunks,
              nb_error *err)
{
  struct stat old;
  char *tmp;
  int fd = -1, i, rc, exists, replacing;
  nb_status status = NB_OK;

  exists = fstatat (t->dirfd, t->name, &old, AT_SYMLINK_NOFOLLOW) == 0;
  /* rename() would fail only at the very end (after a long computation, and
   * after the other files of a staged set were replaced) */
  if (exists && S_ISDIR (old.st_mode))
    return nb_io_error (err, EISDIR, "cannot write", shown);
  exists = exists && S_ISREG (old.st_mode);
  if (exists && (status = check_replace (t, &old, shown, err)) != NB_OK)
    return status;
  /* The data are synced before the rename only when it replaces a file with
   * something in it, which a crash must not turn into an empty one (GLib's
   * g_file_set_contents() does the same): a new file has no old version to
   * lose, and syncing a 1024^2 image took 29 ms here, more than simulating it. */
  replacing = exists && old.st_size > 0;

  tmp = malloc (strlen (t->name) + 9);
  if (tmp == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", shown);
  sprintf (tmp, ".%s.XXXXXX", t->name);

  /* a replacement stays private until it has the old file's bits */
  fd = open_temp (t->dirfd, tmp, exists ? 0600 : 0666);
  if (fd < 0)
    {
      status = nb_io_error (err, errno, "cannot create a temporary file to write", shown);
      free (tmp);
      return status;
    }

  for (i = 0; i < n_chunks; i++)
    if (sizes[i] > 0 && write_all (fd, chunks[i], sizes[i], 0) != 0)
      {
        status = nb_io_error (err, errno, "cannot write", shown);
        goto fail;
      }
  if (exists && keep_attributes (fd, &old) != 0)
    {
      status = nb_io_error (err, errno, "cannot keep the permissions of", shown);
      goto fail;
    }

  /* A full disk or a failing device may only show up here (or at close). */
  if (replacing && fsync (fd) != 0 && errno != EINVAL)
    {
      status = nb_io_error (err, errno, "cannot write", shown);
      goto fail;
    }
  /* On Linux the descriptor is gone even after EINTR (and a replacement's
   * data were already synced). */
  rc = close (fd);
  fd = -1;
  if (rc != 0 && errno != EINTR)
    {
      status = nb_io_error (err, errno, "cannot write", shown);
      goto fail;
    }

  if (staging.active)
    {
      staged_file *f = stage_slot ();

      if (f == NULL || (f->shown = strdup (shown)) == NULL)
        {
          if (f != NULL)
            staging.n--;
          status = nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", shown);
          goto fail;
        }
      f->dirfd = t->dirfd;
      f->name = t->name;
      f->tmp = tmp;
      f->sync_dir = replacing;
      t->dirfd = -1;
      t->name = NULL;
      return NB_OK; /* nb_output_commit() renames it */
    }
  if (renameat (t->dirfd, tmp, t->dirfd, t->name) != 0)
    {
      status = nb_io_error (err, errno, "cannot replace", shown);
      goto fail;
    }
  if (replacing)
    sync_directory (t->dirfd);
  free (tmp);
  return NB_OK;

fail:
  if (fd >= 0)
    close (fd);
  unlinkat (t->dirfd, tmp, 0);
  free (tmp);
  return status;
}

/* A name that is not a regular file (stat() follows links: a link to a
 * device is the device): a stream is written through, anything else refused.
 * @link_st is lstat() of @path. */
static nb_status
write_special (const char *path,
               const struct stat *st,
               const struct stat *link_st,
               const void *const *chunks,
               const size_t *sizes,
               int n_chunks,
               nb_error *err)
{
  int open_flags = derived_names ? O_NOFOLLOW : 0;
  nb_status status;

  if (S_ISDIR (st->st_mode))
    return nb_io_error (err, EISDIR, "cannot write", path);
  if (!is_stream (st->st_mode))
    return nb_error_set (err, NB_ERR_IO,
                         "cannot write %s: not a regular file, character device, pipe or socket",
                         path);
  if (!S_ISLNK (link_st->st_mode) && (status = check_stream (path, link_st, err)) != NB_OK)
    return status;
  return staging.active
             ? stage_stream (path, st->st_mode, open_flags, chunks, sizes, n_chunks, err)
             : write_stream (path, st->st_mode, open_flags, chunks, sizes, n_chunks, err);
}

nb_status
nb_write_file_atomic (
    const char *path, const void *const *chunks, const size_t *sizes, int n_chunks, nb_error *err)
{
  struct stat st, link_st;
  out_name t = { -1, NULL, NULL };
  char *shown = NULL;
  nb_status status;

  if (path == NULL || path[0] == '\0')
    return nb_error_set (err, NB_ERR_IO, "cannot write a file with an empty name");
  if (n_chunks < 0 || (n_chunks > 0 && (chunks == NULL || sizes == NULL)))
    return nb_error_set (err, NB_ERR_INVALID, "nb_write_file_atomic: bad chunk list for %s", path);
  for (int i = 0; i < n_chunks; i++)
    if (sizes[i] > 0 && chunks[i] == NULL)
      return nb_error_set (err, NB_ERR_INVALID, "nb_write_file_atomic: chunk %d of %s has no data",
                           i, path);

  /* stat() follows links: a link to a device is the device */
  if (lstat (path, &link_st) == 0 && stat (path, &st) == 0 && !S_ISREG (st.st_mode))
    {
      /* the kernel follows a link to a stream (its last links may name no
       * path: "pipe:[...]"), once the rules have passed the links we can read */
      status = S_ISLNK (link_st.st_mode) ? resolve_name (path, &t, err) : NB_OK;
      out_name_clear (&t);
      return status == NB_OK ? write_special (path, &st, &link_st, chunks, sizes, n_chunks, err)
                             : status;
    }

  status = resolve_name (path, &t, err);
  if (status == NB_OK && (shown = shown_name (path, t.where)) == NULL)
    status = nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", path);
  if (status == NB_OK)
    status = replace_file (&t, shown, chunks, sizes, n_chunks, err);
  free (shown);
  out_name_clear (&t);
  return status;
}
