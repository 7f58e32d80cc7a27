/* io.c: raw float, SMV and PGM images, and the atomic writer behind every
 * output file (physics.md §19). */
#include "nb-io.h"
#include "nb-input.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
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

/* nanoBragg's header is 512 bytes; a text that does not fit is written with
 * the next multiple of 512 instead (see nb_write_smv). */
#define SMV_HEADER_BYTES 512
#define SMV_HEADER_MAX   1024
#define SMV_MAGIC        "{\nHEADER_BYTES="

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */

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

static nb_status
io_error (nb_error *err, int errnum, const char *what, const char *path)
{
  char buf[128];

  return nb_error_set (err, NB_ERR_IO, "%s %s: %s", what, path,
                       error_text (errnum, buf, sizeof buf));
}

/* Headers must read and write "0.1", not "0,1", whatever locale the
 * application (a GTK program calls setlocale) has chosen; uselocale() changes
 * only this thread. */
typedef struct
{
  locale_t c;
  locale_t old;
} c_numeric;

static void
c_numeric_push (c_numeric *l)
{
  l->c = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);
  l->old = l->c != (locale_t) 0 ? uselocale (l->c) : (locale_t) 0;
}

static void
c_numeric_pop (c_numeric *l)
{
  if (l->c != (locale_t) 0)
    {
      uselocale (l->old);
      freelocale (l->c);
    }
}

static int
host_is_little_endian (void)
{
  const uint16_t one = 1;

  return *(const unsigned char *) &one == 1;
}

static int
image_bytes (int width, int height, size_t item, size_t *out)
{
  if (width <= 0 || height <= 0)
    return 0;
  if ((size_t) width > SIZE_MAX / item / (size_t) height)
    return 0;
  *out = (size_t) width * (size_t) height * item;
  return 1;
}

/* ------------------------------------------------------------------------ */
/* Atomic writing                                                            */

static uint64_t
splitmix64 (uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Creates @tmpl (ending in "XXXXXX") exclusively.  Unlike mkstemp() the mode
 * is 0666 less the umask, so the result gets the permissions a plain fopen()
 * would have given the target. */
static int
open_temp (char *tmpl)
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
      uint64_t v = splitmix64 (&state);
      int fd, i;

      for (i = 0; i < 6; i++, v /= 62)
        x[i] = letters[v % 62];
      fd = open (tmpl, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd >= 0 || errno != EEXIST)
        return fd;
    }
  errno = EEXIST;
  return -1;
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

/* Makes the rename itself durable; failure only weakens durability, the file
 * is already complete, so it is not reported.  NULL: nothing to do. */
static void
sync_directory (const char *dir)
{
  int fd = dir != NULL ? open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
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

/* ---- streams: character devices, pipes and sockets ---- */

/* A stream has no folder to hold a temporary file and no old contents to
 * keep: it is opened and written through, and its errors (a full device, a
 * reader gone) are the write's.  A named pipe with no reader blocks in open()
 * until one comes, as `cat > fifo` does. */
static int
is_stream (mode_t mode)
{
  return S_ISCHR (mode) || S_ISFIFO (mode) || S_ISSOCK (mode);
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

/* Writes @n_chunks buffers to the stream @path (@mode as stat() gave it). */
static nb_status
write_stream (const char *path,
              mode_t mode,
              const void *const *chunks,
              const size_t *sizes,
              int n_chunks,
              nb_error *err)
{
  static const struct timespec no_wait = { 0, 0 };
  sigset_t pipe_signal, old_mask, pending;
  struct stat now;
  int fd, i, rc = 0, saved = 0, was_pending;

  fd = S_ISSOCK (mode) ? connect_socket (path) : open (path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return io_error (err, errno, "cannot open for writing", path);
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
  return rc == 0 ? NB_OK : io_error (err, saved, "cannot write", path);
}

/* ---- names: a symbolic link's target is replaced, the link kept ---- */

/* readlink() of @path, NUL-terminated and malloc'd; NULL with errno. */
static char *
read_link (const char *path, size_t hint)
{
  size_t size = hint > 0 ? hint + 1 : 256;

  for (;;)
    {
      char *text = malloc (size);
      ssize_t n;

      if (text == NULL)
        return NULL;
      n = readlink (path, text, size);
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
      if (size > (size_t) 1 << 20)
        {
          errno = ENAMETOOLONG;
          return NULL;
        }
      size *= 2;
    }
}

/* The name a rename must replace for @path: @path itself, or, when @path is
 * a symbolic link, the name at the end of its chain (a relative link read
 * against the link's own folder), so that the link stays a link and its
 * target gets the new contents.  That name need not exist: a dangling link's
 * target is created.  malloc'd; NULL with errno (ELOOP after 40 links, the
 * kernel's own limit). */
static char *
link_target (const char *path)
{
  char *cur = strdup (path);

  for (int hops = 0; cur != NULL; hops++)
    {
      struct stat st;
      const char *slash;
      char *text, *next;
      size_t dir_len;

      /* missing, unreadable or not a link: the write itself reports errors */
      if (lstat (cur, &st) != 0 || !S_ISLNK (st.st_mode))
        return cur;
      text = hops < 40 ? read_link (cur, (size_t) st.st_size) : NULL;
      if (text == NULL)
        {
          int saved = hops < 40 ? errno : ELOOP;

          free (cur);
          errno = saved;
          return NULL;
        }
      slash = strrchr (cur, '/');
      dir_len = text[0] != '/' && slash != NULL ? (size_t) (slash - cur) + 1 : 0;
      next = malloc (dir_len + strlen (text) + 1);
      if (next != NULL)
        {
          memcpy (next, cur, dir_len);
          memcpy (next + dir_len, text, strlen (text) + 1);
        }
      free (text);
      free (cur);
      cur = next;
    }
  return NULL;
}

/* ---- sets of outputs ---- */

/* Outputs written between nb_output_begin() and nb_output_commit() on this
 * thread: files complete and synced under their temporary names, renamed
 * together at the end, and the bytes of streams, written at the end. */
typedef struct
{
  char *tmp;   /* the temporary file; NULL for a stream, or once renamed */
  char *path;  /* the name it replaces (a link's target), or the stream */
  char *shown; /* the name messages give */
  char *dir;   /* the folder to sync after the rename, or NULL */
  void *data;  /* a stream's bytes */
  size_t size;
  mode_t mode; /* a stream's, from stat() */
} staged_file;

static _Thread_local struct
{
  int active;
  int n, cap;
  staged_file *files;
} staging;

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
        unlink (f->tmp);
      free (f->tmp);
      free (f->path);
      free (f->shown);
      free (f->dir);
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
        status = write_stream (f->shown, f->mode, &chunk, &f->size, 1, err);
    }
  for (i = 0; i < staging.n && status == NB_OK; i++)
    {
      staged_file *f = &staging.files[i];

      if (f->tmp == NULL)
        continue;
      if (rename (f->tmp, f->path) != 0)
        status = io_error (err, errno, "cannot replace", f->shown);
      else
        {
          sync_directory (f->dir);
          free (f->tmp);
          f->tmp = NULL;
        }
    }
  /* removes the temporary files not renamed and ends the set */
  nb_output_abort ();
  return status;
}

/* A new, zeroed entry of the open set; NULL when out of memory. */
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
  return f;
}

/* Keeps a copy of a stream's bytes for nb_output_commit(): a stream written
 * now could not be taken back if the set is abandoned. */
static nb_status
stage_stream (const char *path,
              mode_t mode,
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
  return NB_OK;
}

/* ---- files: a temporary name beside the target, then rename ---- */

/* Writes the chunks to a temporary file in @target's folder, then renames it
 * over @target, or stages it for nb_output_commit(); @shown names the output
 * in messages. */
static nb_status
replace_file (const char *target,
              const char *shown,
              const void *const *chunks,
              const size_t *sizes,
              int n_chunks,
              nb_error *err)
{
  struct stat st;
  const char *slash, *name;
  char *tmp = NULL, *dir = NULL;
  size_t dir_len;
  int fd = -1, i, rc, replacing;
  nb_status status = NB_OK;

  slash = strrchr (target, '/');
  name = slash != NULL ? slash + 1 : target;
  if (name[0] == '\0')
    return io_error (err, EISDIR, "cannot write", shown);
  dir_len = slash != NULL ? (size_t) (slash - target) + 1 : 0;
  /* rename() would fail only at the very end (after a long computation, and
   * after the other files of a staged set were replaced) */
  replacing = stat (target, &st) == 0;
  if (replacing && S_ISDIR (st.st_mode))
    return io_error (err, EISDIR, "cannot write", shown);
  /* The data are synced before the rename only when it replaces a file with
   * something in it, which a crash must not turn into an empty one (GLib's
   * g_file_set_contents() does the same): a new file has no old version to
   * lose, and syncing a 1024^2 image took 29 ms here, more than simulating it. */
  replacing = replacing && st.st_size > 0;

  /* "<dir>/.<name>.XXXXXX" and "<dir>" ("." when the name has no slash) */
  tmp = malloc (dir_len + 1 + strlen (name) + 8);
  dir = malloc (dir_len + 2);
  if (tmp == NULL || dir == NULL)
    {
      free (tmp);
      free (dir);
      return nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", shown);
    }
  memcpy (tmp, target, dir_len);
  sprintf (tmp + dir_len, ".%s.XXXXXX", name);
  if (dir_len > 0)
    {
      memcpy (dir, target, dir_len);
      dir[dir_len] = '\0';
    }
  else
    strcpy (dir, ".");

  fd = open_temp (tmp);
  if (fd < 0)
    {
      status = io_error (err, errno, "cannot create a temporary file to write", shown);
      goto out;
    }

  for (i = 0; i < n_chunks; i++)
    if (sizes[i] > 0 && write_all (fd, chunks[i], sizes[i], 0) != 0)
      {
        status = io_error (err, errno, "cannot write", shown);
        goto fail;
      }

  /* A full disk or a failing device may only show up here (or at close). */
  if (replacing && fsync (fd) != 0 && errno != EINVAL)
    {
      status = io_error (err, errno, "cannot write", shown);
      goto fail;
    }
  /* On Linux the descriptor is gone even after EINTR (and a replacement's
   * data were already synced). */
  rc = close (fd);
  fd = -1;
  if (rc != 0 && errno != EINTR)
    {
      status = io_error (err, errno, "cannot write", shown);
      goto fail;
    }

  if (!replacing)
    {
      free (dir);
      dir = NULL; /* no directory sync either */
    }
  if (staging.active)
    {
      staged_file *f = stage_slot ();

      if (f == NULL || (f->path = strdup (target)) == NULL || (f->shown = strdup (shown)) == NULL)
        {
          if (f != NULL)
            {
              free (f->path);
              staging.n--;
            }
          status = nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", shown);
          goto fail;
        }
      f->tmp = tmp;
      f->dir = dir;
      return NB_OK; /* nb_output_commit() renames it */
    }
  if (rename (tmp, target) != 0)
    {
      status = io_error (err, errno, "cannot replace", shown);
      goto fail;
    }
  sync_directory (dir);
  goto out;

fail:
  if (fd >= 0)
    close (fd);
  unlink (tmp);
out:
  free (tmp);
  free (dir);
  return status;
}

nb_status
nb_write_file_atomic (
    const char *path, const void *const *chunks, const size_t *sizes, int n_chunks, nb_error *err)
{
  struct stat st;
  char *target, *shown;
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
  if (stat (path, &st) == 0 && !S_ISREG (st.st_mode))
    {
      if (is_stream (st.st_mode))
        return staging.active ? stage_stream (path, st.st_mode, chunks, sizes, n_chunks, err)
                              : write_stream (path, st.st_mode, chunks, sizes, n_chunks, err);
      if (S_ISDIR (st.st_mode))
        return io_error (err, EISDIR, "cannot write", path);
      return nb_error_set (err, NB_ERR_IO,
                           "cannot write %s: not a regular file, character device, pipe or socket",
                           path);
    }

  target = link_target (path);
  if (target == NULL)
    return io_error (err, errno, "cannot write", path);
  shown = shown_name (path, target);
  if (shown == NULL)
    status = nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", path);
  else
    status = replace_file (target, shown, chunks, sizes, n_chunks, err);
  free (shown);
  free (target);
  return status;
}

/* ------------------------------------------------------------------------ */
/* Raw float                                                                 */

nb_status
nb_write_float_image (const char *path, const float *image, int fpixels, int spixels, nb_error *err)
{
  const void *chunks[1] = { image };
  size_t sizes[1];

  if (image == NULL || !image_bytes (fpixels, spixels, sizeof (float), &sizes[0]))
    return nb_error_set (err, NB_ERR_INVALID, "cannot write %s: bad image size %d x %d",
                         path != NULL ? path : "(null)", fpixels, spixels);
  return nb_write_file_atomic (path, chunks, sizes, 1, err);
}

/* ------------------------------------------------------------------------ */
/* SMV                                                                       */

/* The header text, in nanoBragg's key order and number formats, claiming
 * @header_bytes.  Returns its length (snprintf semantics). */
static size_t
smv_header_text (const nb_smv_header *h, int header_bytes, char *buf, size_t n)
{
  c_numeric loc;
  int len;

  c_numeric_push (&loc);
  len =
      snprintf (buf, n,
                "{\nHEADER_BYTES=%d;\nDIM=2;\nBYTE_ORDER=little_endian;\nTYPE=unsigned_short;\n"
                "SIZE1=%d;\nSIZE2=%d;\nPIXEL_SIZE=%g;\nDISTANCE=%g;\n"
                "WAVELENGTH=%g;\n"
                "BEAM_CENTER_X=%g;\nBEAM_CENTER_Y=%g;\n"
                "ADXV_CENTER_X=%g;\nADXV_CENTER_Y=%g;\n"
                "MOSFLM_CENTER_X=%g;\nMOSFLM_CENTER_Y=%g;\n"
                "DENZO_X_BEAM=%g;\nDENZO_Y_BEAM=%g;\n"
                "DIALS_ORIGIN=%g,%g,%g\n"
                "XDS_ORGX=%g;\nXDS_ORGY=%g;\n"
                "CLOSE_DISTANCE=%g;\n"
                "PHI=%g;\nOSC_START=%g;\nOSC_RANGE=%g;\n"
                "TWOTHETA=%g;\n"
                "DETECTOR_SN=000;\n"
                "BEAMLINE=fake;\n"
                "}\f",
                header_bytes, h->size1, h->size2, h->pixel_size_mm, h->distance_mm, h->wavelength_A,
                h->beam_center_x_mm, h->beam_center_y_mm, h->adxv_center_x_mm, h->adxv_center_y_mm,
                h->mosflm_center_x_mm, h->mosflm_center_y_mm, h->denzo_x_beam_mm,
                h->denzo_y_beam_mm, h->dials_origin_mm[0], h->dials_origin_mm[1],
                h->dials_origin_mm[2], h->xds_orgx_px, h->xds_orgy_px, h->close_distance_mm,
                h->phi_deg, h->osc_start_deg, h->osc_range_deg, h->twotheta_deg);
  c_numeric_pop (&loc);
  return len < 0 ? 0 : (size_t) len;
}

size_t
nb_smv_format_header (const nb_smv_header *h, char out[512])
{
  char buf[SMV_HEADER_MAX + 1];
  size_t len = smv_header_text (h, SMV_HEADER_BYTES, buf, sizeof buf);
  size_t used = len < SMV_HEADER_BYTES ? len : SMV_HEADER_BYTES;

  memcpy (out, buf, used);
  memset (out + used, ' ', SMV_HEADER_BYTES - used);
  return len;
}

nb_status
nb_write_smv (const char *path, const nb_smv_header *h, const uint16_t *pixels, nb_error *err)
{
  char header[SMV_HEADER_MAX];
  const void *chunks[2];
  size_t sizes[2], n_pixels, len, header_bytes = SMV_HEADER_BYTES;
  uint16_t *swapped = NULL;
  nb_status status;

  if (h == NULL || pixels == NULL ||
      !image_bytes (h->size1, h->size2, sizeof (uint16_t), &sizes[1]))
    return nb_error_set (err, NB_ERR_INVALID, "cannot write %s: bad SMV image size",
                         path != NULL ? path : "(null)");
  n_pixels = sizes[1] / sizeof (uint16_t);

  len = smv_header_text (h, SMV_HEADER_BYTES, header, sizeof header);
  if (len > SMV_HEADER_BYTES)
    {
      /* nanoBragg would write the long text unpadded under a false
       * HEADER_BYTES=512, so no reader finds the pixels; say the truth. */
      header_bytes = SMV_HEADER_MAX;
      len = smv_header_text (h, SMV_HEADER_MAX, header, sizeof header);
      if (len > SMV_HEADER_MAX)
        return nb_error_set (err, NB_ERR_INVALID, "cannot write %s: SMV header too long",
                             path != NULL ? path : "(null)");
    }
  memset (header + len, ' ', header_bytes - len);

  if (!host_is_little_endian ())
    {
      swapped = malloc (sizes[1]);
      if (swapped == NULL)
        return nb_error_set (err, NB_ERR_NOMEM, "out of memory writing %s", path);
      for (size_t i = 0; i < n_pixels; i++)
        swapped[i] = (uint16_t) ((pixels[i] >> 8) | (pixels[i] << 8));
      pixels = swapped;
    }

  chunks[0] = header;
  sizes[0] = header_bytes;
  chunks[1] = pixels;
  status = nb_write_file_atomic (path, chunks, sizes, 2, err);
  free (swapped);
  return status;
}

/* ValueOf()'s search: the last occurrence of @key (NULL when absent); *@eq
 * receives the first '=' after it, or NULL. */
static const char *
smv_find_key (const char *text, const char *key, const char **eq)
{
  size_t keylen;
  const char *p, *q, *last = NULL;

  *eq = NULL;
  if (text == NULL || key == NULL || key[0] == '\0')
    return NULL;
  keylen = strlen (key);
  p = text;
  while ((q = strstr (p, key)) != NULL)
    {
      last = q;
      p = q + keylen;
    }
  if (last != NULL)
    *eq = strchr (last + keylen, '=');
  return last;
}

/* ValueOf(): the last occurrence of @key wins, then the first '=' after it.
 * A key with no '=' after it gives 0, as atof("") would. */
static double
smv_text_value (const char *text, const char *key)
{
  const char *eq;
  c_numeric loc;
  double v;

  if (smv_find_key (text, key, &eq) == NULL)
    return NAN;
  if (eq == NULL)
    return 0.0;

  c_numeric_push (&loc);
  v = strtod (eq + 1, NULL);
  c_numeric_pop (&loc);
  return v;
}

int
nb_smv_lookup (
    const nb_smv_file *f, const char *key, double *value, long *line, char *raw, size_t raw_size)
{
  const char *at, *eq, *start;
  char *end;
  c_numeric loc;
  size_t n = 0;
  int status;

  *value = NAN;
  *line = 0;
  if (raw_size > 0)
    raw[0] = '\0';
  if (f == NULL || (at = smv_find_key (f->text, key, &eq)) == NULL)
    return 0;
  *line = 1;
  for (const char *q = f->text; q < at; q++)
    *line += *q == '\n';
  if (eq == NULL)
    return -1;

  start = eq + 1;
  c_numeric_push (&loc);
  *value = strtod (start, &end);
  c_numeric_pop (&loc);
  /* the number must end the field: "0.1;", "0.1" at a line end, "0.1 mm;" is not one */
  while (*end == ' ' || *end == '\t')
    end++;
  status = end > start && (*end == ';' || *end == '\n' || *end == '\r' || *end == '\0') &&
                   isfinite (*value)
               ? 1
               : -1;
  if (status < 0)
    *value = NAN;
  if (raw_size > 0)
    {
      while (start[n] != '\0' && start[n] != ';' && start[n] != '\n' && n + 1 < raw_size)
        {
          unsigned char c = (unsigned char) start[n];

          raw[n] = c >= 0x20 && c < 0x7f ? (char) c : '?';
          n++;
        }
      raw[n] = '\0';
    }
  return status;
}

double
nb_smv_value (const nb_smv_file *f, const char *key)
{
  if (f == NULL)
    return NAN;
  return smv_text_value (f->text, key);
}

void
nb_smv_file_clear (nb_smv_file *f)
{
  if (f == NULL)
    return;
  free (f->text);
  free (f->pixels);
  memset (f, 0, sizeof *f);
}

/* Reads up to @n bytes; returns how many, or -1 on a read error. */
static long
read_some (FILE *fp, void *buf, size_t n)
{
  size_t got = fread (buf, 1, n, fp);

  if (got < n && ferror (fp))
    return -1;
  return (long) got;
}

/* A header dimension: a positive whole number of pixels. */
static int
smv_dimension (double v, int *out)
{
  if (!(v >= 1.0 && v < (double) INT_MAX))
    return 0;
  *out = (int) v;
  return 1;
}

/* The byte order and size of the pixels the header of @out describes (its
 * text read).  Source: nanoBragg.c GetFrame(). */
static nb_status
smv_layout (nb_smv_file *out, const char *path, int *file_little, nb_error *err)
{
  const char *order = NULL, *q;

  /* Like GetFrame(), the last BYTE_ORDER= in the header counts. */
  for (q = out->text; (q = strstr (q, "BYTE_ORDER=")) != NULL; q += strlen ("BYTE_ORDER="))
    order = q + strlen ("BYTE_ORDER=");
  if (order != NULL && strncmp (order, "little_endian", 13) == 0)
    *file_little = 1;
  else if (order != NULL && strncmp (order, "big_endian", 10) == 0)
    *file_little = 0;
  else
    return nb_error_set (err, NB_ERR_PARSE,
                         "%s: BYTE_ORDER is missing or neither little_endian nor big_endian", path);

  if (!smv_dimension (nb_smv_value (out, "SIZE1"), &out->size1) ||
      !smv_dimension (nb_smv_value (out, "SIZE2"), &out->size2))
    {
      /* GetFrame() falls back to DETECTOR_DIMENSIONS for square detectors */
      if (!smv_dimension (nb_smv_value (out, "DETECTOR_DIMENSIONS"), &out->size1))
        return nb_error_set (err, NB_ERR_PARSE,
                             "%s: SIZE1/SIZE2 (or DETECTOR_DIMENSIONS) missing or not a "
                             "positive pixel count",
                             path);
      out->size2 = out->size1;
    }
  return NB_OK;
}

nb_status
nb_read_smv (const char *path, nb_smv_file *out, nb_error *err)
{
  FILE *fp = NULL;
  struct stat st;
  char first[SMV_HEADER_BYTES + 1];
  double hb;
  long got;
  size_t header_bytes, data_bytes, n;
  int file_little = 0;
  nb_status status = NB_OK;

  if (out == NULL)
    return nb_error_set (err, NB_ERR_INVALID, "nb_read_smv: no output for %s",
                         path != NULL ? path : "(null)");
  memset (out, 0, sizeof *out);
  if (path == NULL)
    return nb_error_set (err, NB_ERR_IO, "cannot open a file with no name");

  if ((status = nb_input_fopen (path, &fp, &st, err)) != NB_OK)
    return status;

  got = read_some (fp, first, SMV_HEADER_BYTES);
  if (got < 0)
    {
      status = io_error (err, errno, "cannot read", path);
      goto fail;
    }
  first[got] = '\0';
  if ((size_t) got < strlen (SMV_MAGIC) || memcmp (first, SMV_MAGIC, strlen (SMV_MAGIC)) != 0)
    {
      status = nb_error_set (err, NB_ERR_PARSE,
                             "%s: not an SMV (ADSC) image: it does not start with "
                             "\"{\" and HEADER_BYTES=",
                             path);
      goto fail;
    }

  hb = smv_text_value (first, "HEADER_BYTES");
  if (!(hb >= (double) strlen (SMV_MAGIC) && hb <= (double) st.st_size))
    {
      status = nb_error_set (err, NB_ERR_PARSE,
                             "%s: HEADER_BYTES=%g is not a header size within the file "
                             "(%lld bytes)",
                             path, hb, (long long) st.st_size);
      goto fail;
    }
  header_bytes = (size_t) hb;

  out->text = malloc (header_bytes + 1);
  if (out->text == NULL)
    {
      status = nb_error_set (err, NB_ERR_NOMEM, "out of memory reading %s", path);
      goto fail;
    }
  if (fseek (fp, 0, SEEK_SET) != 0)
    {
      status = io_error (err, errno, "cannot read", path);
      goto fail;
    }
  got = read_some (fp, out->text, header_bytes);
  if (got < 0 || (size_t) got != header_bytes)
    {
      status = got < 0 ? io_error (err, errno, "cannot read", path)
                       : nb_error_set (err, NB_ERR_PARSE,
                                       "%s: header shorter than "
                                       "HEADER_BYTES=%zu",
                                       path, header_bytes);
      goto fail;
    }
  out->text[header_bytes] = '\0';
  out->header_bytes = header_bytes;

  if ((status = smv_layout (out, path, &file_little, err)) != NB_OK)
    goto fail;

  if (!image_bytes (out->size1, out->size2, sizeof (uint16_t), &data_bytes))
    {
      status = nb_error_set (err, NB_ERR_PARSE, "%s: SIZE1=%d x SIZE2=%d is too large", path,
                             out->size1, out->size2);
      goto fail;
    }
  if ((uintmax_t) st.st_size - header_bytes < data_bytes)
    {
      status = nb_error_set (err, NB_ERR_PARSE,
                             "%s: truncated: SIZE1=%d x SIZE2=%d needs %zu bytes of pixels "
                             "after the %zu-byte header, the file has %lld",
                             path, out->size1, out->size2, data_bytes, header_bytes,
                             (long long) st.st_size - (long long) header_bytes);
      goto fail;
    }

  out->pixels = malloc (data_bytes);
  if (out->pixels == NULL)
    {
      status = nb_error_set (err, NB_ERR_NOMEM, "out of memory reading %s", path);
      goto fail;
    }
  if (fseeko (fp, (off_t) header_bytes, SEEK_SET) != 0)
    {
      status = io_error (err, errno, "cannot read", path);
      goto fail;
    }
  n = fread (out->pixels, 1, data_bytes, fp);
  if (n != data_bytes)
    {
      status = ferror (fp) ? io_error (err, errno, "cannot read", path)
                           : nb_error_set (err, NB_ERR_PARSE, "%s: truncated pixel data", path);
      goto fail;
    }

  if (file_little != host_is_little_endian ())
    {
      size_t count = data_bytes / sizeof (uint16_t);

      for (size_t k = 0; k < count; k++)
        out->pixels[k] = (uint16_t) ((out->pixels[k] >> 8) | (out->pixels[k] << 8));
    }

  fclose (fp);
  return NB_OK;

fail:
  fclose (fp);
  nb_smv_file_clear (out);
  return status;
}

/* ------------------------------------------------------------------------ */
/* PGM                                                                       */

nb_status
nb_write_pgm (
    const char *path, const uint8_t *bytes, int width, int height, double scale, nb_error *err)
{
  char header[128];
  const void *chunks[2];
  size_t sizes[2];
  c_numeric loc;
  int len;

  if (bytes == NULL || !image_bytes (width, height, 1, &sizes[1]))
    return nb_error_set (err, NB_ERR_INVALID, "cannot write %s: bad image size %d x %d",
                         path != NULL ? path : "(null)", width, height);

  c_numeric_push (&loc);
  len = snprintf (header, sizeof header, "P5\n%d %d\n# pixels scaled by %g\n255\n", width, height,
                  scale);
  c_numeric_pop (&loc);
  if (len < 0 || (size_t) len >= sizeof header)
    return nb_error_set (err, NB_ERR_INVALID, "cannot write %s: PGM header", path);

  chunks[0] = header;
  sizes[0] = (size_t) len;
  chunks[1] = bytes;
  return nb_write_file_atomic (path, chunks, sizes, 2, err);
}
