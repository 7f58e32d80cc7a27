/* series-files.c: what keeps a series in one piece across runs: the series
 * file (the series described by rule, compared line by line on --resume),
 * the prefix's lock (one run per prefix at a time) and --resume's check of a
 * frame's files against their fingerprints (nb-fingerprint.h). */
#include "nanobragg-series-private.h"
#include "nb-io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------- */
/* The series file. */

/* Raise it when the series file's lines change: a file of another version
 * is another series to --resume. */
#define SERIES_FILE_VERSION 2

/* PREFIX_series.json's text (malloc'd, *@len bytes), one member per line.
 * Frames are described by rule, so its size does not grow with their number;
 * --list-frames prints every frame's flags. */
static char *
series_description (const series_config *c, size_t *len)
{
  char *text = NULL, name[PATH_MAX];
  FILE *f = open_memstream (&text, len);

  if (f == NULL)
    return NULL;
  fprintf (f, "{\n  \"program\": \"nanobragg-series\",\n  \"version\": %d,\n", SERIES_FILE_VERSION);
  fprintf (f, "  \"series\": \"%s\",\n  \"frames\": %ld,\n  \"names\": ", series_kind (c),
           c->frames);
  snprintf (name, sizeof name, "%s_%%06d", base_name (c->prefix));
  json_string (f, name);
  fprintf (f, ",\n  \"first_number\": 1,\n  \"nanobragg\": [");
  for (int i = 0; i < c->base_argc; i++)
    {
      fputs (i ? ", " : "", f);
      json_string (f, c->base[i]);
    }
  fprintf (f, "],\n  \"rotation\": ");
  if (c->rotation_frames > 0)
    fprintf (f, "{\"frames\": %ld, \"phi\": %s, \"osc\": %s}", c->rotation_frames, c->phi_text,
             c->osc_text);
  else
    fputs ("null", f);
  fprintf (f, ",\n  \"stills\": ");
  if (c->stills > 0)
    fprintf (f, "{\"count\": %ld, \"orientation_seed\": %llu, \"random_mosaic_seed\": %s}",
             c->stills, (unsigned long long) c->orientation_seed,
             c->random_mosaic_seed ? "true" : "false");
  else
    fputs ("null", f);
  fprintf (f, ",\n  \"sweeps\": [");
  for (int s = 0; s < c->n_sweeps; s++)
    {
      char start[64], stop[64];

      format_number (c->sweeps[s].start, start, sizeof start);
      format_number (c->sweeps[s].stop, stop, sizeof stop);
      fprintf (f, "%s{\"flag\": ", s ? ", " : "");
      json_string (f, c->sweeps[s].flag);
      fprintf (f, ", \"start\": %s, \"stop\": %s, \"count\": %ld}", start, stop,
               c->sweeps[s].count);
    }
  fprintf (f, "],\n  \"photon_noise\": %s,\n  \"noise_seed\": %llu\n}\n",
           c->noise ? "true" : "false", (unsigned long long) c->noise_seed);
  if (fclose (f) != 0)
    {
      free (text);
      return NULL;
    }
  return text;
}

/* Line @n (1-based) of @text (@size bytes): its start, *@len bytes without
 * the newline; NULL past the end. */
static const char *
nth_line (const char *text, size_t size, long n, size_t *len)
{
  const char *p = text, *end = text + size, *nl;

  for (long k = 1; k < n; k++)
    {
      nl = memchr (p, '\n', (size_t) (end - p));
      if (nl == NULL)
        return NULL;
      p = nl + 1;
    }
  if (p >= end)
    return NULL;
  nl = memchr (p, '\n', (size_t) (end - p));
  *len = nl != NULL ? (size_t) (nl - p) : (size_t) (end - p);
  return p;
}

/* Up to 70 characters of @line (@len bytes) around byte @at, non-printable
 * ones as '?', into @out. */
static void
excerpt (const char *line, size_t len, size_t at, char out[80])
{
  size_t from = at > 30 ? at - 30 : 0, to = at + 40 < len ? at + 40 : len, o = 0;

  if (from > 0)
    o += (size_t) snprintf (out, 80, "...");
  for (size_t i = from; i < to && o < 76; i++)
    out[o++] = line[i] >= 0x20 && line[i] < 0x7f ? line[i] : '?';
  if (to < len && o < 77)
    o += (size_t) snprintf (out + o, 80 - o, "...");
  out[o] = '\0';
}

/* What makes the series file @have (@size bytes) another series' than the
 * description @want (@want_len bytes), in @why; 0 when they are the same. */
static int
describe_difference (
    const char *have, size_t size, const char *want, size_t want_len, char *why, size_t n)
{
  long lines = 0, line = 1;
  size_t hl = 0, wl = 0, at = 0;
  const char *h, *w;

  if (size == want_len && memcmp (have, want, size) == 0)
    return 0;
  for (size_t i = 0; i < want_len; i++)
    lines += want[i] == '\n';
  for (;; line++)
    {
      h = nth_line (have, size, line, &hl);
      w = nth_line (want, want_len, line, &wl);
      if (h == NULL || w == NULL || hl != wl || memcmp (h, w, hl) != 0)
        break;
    }
  if (w == NULL)
    snprintf (why, n, "it goes on after the end of a series file (line %ld)", line);
  else if (h == NULL || (size < want_len && memcmp (have, want, size) == 0))
    snprintf (why, n, "it is cut short: it ends at line %ld of %ld", h == NULL ? line - 1 : line,
              lines);
  else
    {
      char there[80], here[80];
      const char *key = memchr (w, '"', wl), *key_end = NULL;

      while (at < hl && at < wl && h[at] == w[at])
        at++;
      excerpt (h, hl, at, there);
      excerpt (w, wl, at, here);
      if (key != NULL)
        key_end = memchr (key + 1, '"', wl - (size_t) (key - w) - 1);
      if (key_end != NULL && hl > (size_t) (key_end - w) &&
          memcmp (h, w, (size_t) (key_end - w) + 1) == 0)
        snprintf (why, n, "its %.*s differs: %s there, %s in this run", (int) (key_end - key + 1),
                  key, there, here);
      else
        snprintf (why, n, "line %ld is %s there, %s in this run", line, there, here);
    }
  return 1;
}

int
prepare_series_file (const series_config *c, const char *path)
{
  nb_error err = { 0 };
  size_t len = 0, size = 0;
  char *want = series_description (c, &len);
  void *have = NULL;
  int rc = 0;

  if (want == NULL)
    {
      fputs ("nanobragg-series: out of memory\n", stderr);
      return 1;
    }
  if (c->resume)
    {
      /* twice the description: the difference is still found and named */
      nb_status st = nb_read_regular_file (path, 2 * len + 4096, &have, &size, &err);
      char why[400];

      if (st != NB_OK && !(st == NB_ERR_IO && access (path, F_OK) != 0 && errno == ENOENT))
        {
          fprintf (stderr, "nanobragg-series: --resume: %s: remove it or give another --out\n",
                   err.message);
          rc = 2;
        }
      else if (st == NB_OK && describe_difference (have, size, want, len, why, sizeof why))
        {
          fprintf (stderr,
                   "nanobragg-series: --resume: %s describes another series (%s): remove it "
                   "or give another --out\n",
                   path, why);
          rc = 2;
        }
      /* the same description: the file stays as it is */
      else if (st == NB_OK)
        {
          free (have);
          free (want);
          return 0;
        }
      free (have);
    }
  if (rc == 0)
    {
      const void *chunks[1] = { want };

      if (nb_write_file_atomic (path, chunks, &len, 1, &err) != NB_OK)
        {
          fprintf (stderr, "nanobragg-series: %s\n", err.message);
          rc = 1;
        }
    }
  free (want);
  return rc;
}

/* ------------------------------------------------------------------------- */
/* The prefix's lock. */

/* A POSIX record lock (fcntl) on PREFIX_series.lock, not the series file,
 * which rename() replaces.  The file stays after the run, empty: removing it
 * would let a third run lock a new file while a second still holds the old
 * one.
 * POSIX locks work over NFS and name their holder; they are dropped when the
 * process closes any descriptor of the file, so this is its only one. */
int
lock_prefix (series_config *c)
{
  char *path = series_path (c, "series.lock");
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
  struct stat st;
  int fd;

  c->lock_fd = -1;
  if (path == NULL)
    {
      fputs ("nanobragg-series: out of memory\n", stderr);
      return 1;
    }
  /* never through a link, never waiting on a pipe put there */
  fd = open (path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
  if (fd < 0 || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      fprintf (stderr, "nanobragg-series: cannot lock the prefix %s: %s: %s\n", c->prefix, path,
               fd < 0 && errno == ELOOP ? "a symbolic link"
               : fd < 0                 ? strerror (errno)
                                        : "not a regular file");
      if (fd >= 0)
        close (fd);
      free (path);
      return 1;
    }
  if (fcntl (fd, F_SETLK, &fl) != 0)
    {
      int saved = errno;
      struct flock holder = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

      if ((saved == EACCES || saved == EAGAIN) && fcntl (fd, F_GETLK, &holder) == 0 &&
          holder.l_type != F_UNLCK && holder.l_pid > 0)
        fprintf (stderr,
                 "nanobragg-series: prefix %s is in use by process %ld (it holds %s): wait for "
                 "it or give another --out\n",
                 c->prefix, (long) holder.l_pid, path);
      else if (saved == EACCES || saved == EAGAIN)
        fprintf (stderr,
                 "nanobragg-series: prefix %s is in use by another process (it holds %s): wait "
                 "for it or give another --out\n",
                 c->prefix, path);
      else
        fprintf (stderr, "nanobragg-series: cannot lock the prefix %s: %s: %s\n", c->prefix, path,
                 strerror (saved));
      close (fd);
      free (path);
      return 1;
    }
  free (path);
  c->lock_fd = fd;
  return 0;
}

void
unlock_prefix (series_config *c)
{
  if (c->lock_fd >= 0)
    close (c->lock_fd);
  c->lock_fd = -1;
}

/* ------------------------------------------------------------------------- */
/* A frame's files on --resume. */

/* The first line of a fingerprints file. */
static const char fingerprints_title[] = "nanobragg-series fingerprints (docs/series.md)\n";

char *
fingerprints_text (const frame_slot *s, char digits[N_FRAME_FILES][65])
{
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&text, &size);

  if (f == NULL)
    return NULL;
  fputs (fingerprints_title, f);
  for (int k = FILE_SMV; k <= FILE_FLOAT; k++)
    if (s->files.path[k] != NULL)
      fprintf (f, "%s %s\n", base_name (s->files.path[k]), digits[k]);
  if (fclose (f) != 0)
    {
      free (text);
      return NULL;
    }
  return text;
}

/* The digits the fingerprints file @list (@size bytes) gives for the file
 * named @name; NULL when it gives none. */
static const char *
listed_fingerprint (const char *list, size_t size, const char *name)
{
  size_t tl = strlen (fingerprints_title), nl = strlen (name);
  const char *p = list + tl, *end = list + size;

  if (size < tl || memcmp (list, fingerprints_title, tl) != 0)
    return NULL;
  while (p < end)
    {
      const char *eol = memchr (p, '\n', (size_t) (end - p));

      if (eol == NULL)
        return NULL;
      if ((size_t) (eol - p) == nl + 1 + NB_FINGERPRINT_DIGITS && memcmp (p, name, nl) == 0 &&
          p[nl] == ' ')
        return p + nl + 1;
      p = eol + 1;
    }
  return NULL;
}

/* The most a complete file of the frame can hold, for reading it whole: the
 * float and SMV files' exact sizes, a compressed image's worst case (CBF's
 * byte offsets, 7 bytes per count; deflate's) plus its headers. */
static size_t
largest_file (int kind, size_t pixels)
{
  switch (kind)
    {
      case FILE_FLOAT:
        return pixels * sizeof (float);
      case FILE_SMV:
        return 1024 + pixels * sizeof (uint16_t);
      case FILE_FINGERPRINTS:
        return 4096;
      default:
        return 8 * pixels + ((size_t) 1 << 20);
    }
}

/* One of the frame's files, @bytes as read, against its fingerprint. */
static nb_status
check_file (frame_slot *s,
            int k,
            const void *bytes,
            size_t size,
            const void *list,
            size_t list_size,
            nb_error *err)
{
  const char *path = s->files.path[k];
  int f = s->info.fpixels, sp = s->info.spixels;

  if (k == FILE_CBF)
    return nb_cbf_verify (path, bytes, size, f, sp, &s->key, err);
  if (k == FILE_NEXUS)
    return nb_nexus_verify_frame (path, bytes, size, f, sp, &s->key, err);
  {
    const char *listed =
        list != NULL ? listed_fingerprint (list, list_size, base_name (path)) : NULL;
    char digits[65];

    if (listed == NULL)
      return nb_error_set (err, NB_ERR_PARSE, "%s: no fingerprint in %s", path,
                           base_name (s->files.path[FILE_FINGERPRINTS]));
    nb_fingerprint_of (&s->key, bytes, size, SIZE_MAX, digits);
    if (memcmp (digits, listed, NB_FINGERPRINT_DIGITS) != 0)
      return nb_error_set (err, NB_ERR_PARSE, "%s: fingerprint differs", path);
  }
  return NB_OK;
}

int
frame_complete (frame_slot *s)
{
  size_t pixels = (size_t) s->info.fpixels * (size_t) s->info.spixels, size[N_FRAME_FILES] = { 0 };
  void *bytes[N_FRAME_FILES] = { NULL };
  nb_error err = { 0 };
  int present = 0, complete = 1;

  s->rewritten[0] = '\0';
  /* every file read first (the fingerprints file is needed by two others) */
  for (int k = 0; k < N_FRAME_FILES; k++)
    {
      nb_error why = { 0 };
      nb_status st;

      if (s->files.path[k] == NULL)
        continue;
      st = nb_read_regular_file (s->files.path[k], largest_file (k, pixels), &bytes[k], &size[k],
                                 &why);
      if (st == NB_OK)
        present = 1;
      else if (!(st == NB_ERR_IO && access (s->files.path[k], F_OK) != 0 && errno == ENOENT))
        present = 1;
      if (st != NB_OK && complete)
        {
          complete = 0;
          err = why;
        }
    }
  for (int k = 0; k < FILE_FINGERPRINTS && complete; k++)
    if (s->files.path[k] != NULL && check_file (s, k, bytes[k], size[k], bytes[FILE_FINGERPRINTS],
                                                size[FILE_FINGERPRINTS], &err) != NB_OK)
      complete = 0;
  for (int k = 0; k < N_FRAME_FILES; k++)
    free (bytes[k]);
  if (!complete && present)
    snprintf (s->rewritten, sizeof s->rewritten, "%s", err.message);
  return complete;
}
