/* series-output.c: nanobragg-series' files (paths, a frame's flags as
 * text) and one frame on its way to them: rendered and converted by the main
 * thread, encoded, fingerprinted, written and synced by the writer thread. */
#include "nanobragg-series-private.h"
#include "nb-io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------- */
/* Files. */

/* The output folder must exist (nothing is created behind the user's back). */
int
check_output_folder (const series_config *c)
{
  const char *slash = strrchr (c->prefix, '/');
  struct stat st;
  char *dir;
  int rc = 0;

  if (c->prefix[0] == '\0' || (slash != NULL && slash[1] == '\0'))
    return usage_error ("--out '%s': expected a folder and a file name prefix", c->prefix);
  if (slash == NULL || slash == c->prefix)
    return 0;
  dir = strndup (c->prefix, (size_t) (slash - c->prefix));
  if (dir == NULL)
    return usage_error ("out of memory");
  if (stat (dir, &st) != 0)
    rc = usage_error ("--out %s: folder %s: %s", c->prefix, dir, strerror (errno));
  else if (!S_ISDIR (st.st_mode))
    rc = usage_error ("--out %s: %s is not a folder", c->prefix, dir);
  free (dir);
  return rc == 0 ? 0 : 1;
}

/* Writes the text of memstream @f (closed here) to @path atomically. */
nb_status
write_memstream (FILE *f, char **text, size_t *size, const char *path, nb_error *err)
{
  nb_status st;

  if (fclose (f) != 0 || *text == NULL)
    {
      free (*text);
      return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory", path);
    }
  {
    const void *chunks[1] = { *text };
    size_t sizes[1] = { *size };

    st = nb_write_file_atomic (path, chunks, sizes, 1, err);
  }
  free (*text);
  *text = NULL;
  return st;
}

/* @argv as one shell-quoted line (malloc'd). */
static char *
join_command (const char **argv, int argc)
{
  size_t len = 1;
  char *s, *o;

  for (int i = 0; i < argc; i++)
    len += strlen (argv[i]) * 4 + 3;
  s = o = malloc (len);
  if (s == NULL)
    return NULL;
  for (int i = 0; i < argc; i++)
    {
      const char *a = argv[i];
      int plain = *a != '\0' && strspn (a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_.,/+=:") == strlen (a);

      if (i)
        *o++ = ' ';
      if (plain)
        o += sprintf (o, "%s", a);
      else
        {
          *o++ = '\'';
          for (; *a; a++)
            if (*a == '\'')
              o += sprintf (o, "'\\''");
            else
              *o++ = *a;
          *o++ = '\'';
        }
    }
  *o = '\0';
  return s;
}

void
remove_stale_temporaries (const char *path)
{
  const char *base = base_name (path);
  size_t dir_len = (size_t) (base - path);
  char pattern[PATH_MAX];
  glob_t g;

  if (snprintf (pattern, sizeof pattern, "%.*s.%s.??????", (int) dir_len, path, base) >=
      (int) sizeof pattern)
    return;
  if (glob (pattern, GLOB_NOSORT, NULL, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; i++)
      unlink (g.gl_pathv[i]);
  globfree (&g);
}

/* ------------------------------------------------------------------------- */
/* One frame. */

/* CBFlib and Debian's libhdf5 are not thread-safe: the writer thread and the
 * main thread's --resume checks take turns. */
static pthread_mutex_t io_lock = PTHREAD_MUTEX_INITIALIZER;

/* The plan at the frame's parameters @p (created on the first frame). */
nb_status
plan_frame (nb_plan **plan, const nb_params *p, nb_error *err)
{
  return *plan == NULL ? nb_plan_create (p, plan, err) : nb_plan_update (*plan, p, err);
}

static void
frame_files_clear (frame_files *f)
{
  for (int k = 0; k < N_FRAME_FILES; k++)
    free (f->path[k]);
}

static nb_status
frame_files_make (const series_config *c, long index, frame_files *f, nb_error *err)
{
  /* the SMV and float files carry no fingerprint: a file beside them does */
  static const unsigned bits[N_FRAME_FILES] = { FMT_CBF, FMT_NEXUS, FMT_SMV, FMT_FLOAT,
                                                FMT_SMV | FMT_FLOAT };
  static const char *ext[N_FRAME_FILES] = { "cbf", "h5", "img", "bin", "fingerprint" };

  memset (f, 0, sizeof *f);
  for (int k = 0; k < N_FRAME_FILES; k++)
    if ((c->formats & bits[k]) && (f->path[k] = frame_path (c, index, ext[k])) == NULL)
      {
        frame_files_clear (f);
        return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
      }
  return NB_OK;
}

static void
slot_release (frame_slot *s)
{
  frame_files_clear (&s->files);
  memset (&s->files, 0, sizeof s->files);
  free (s->command);
  s->command = NULL;
}

static nb_status
slot_buffers (frame_slot *s, size_t n, nb_error *err)
{
  if (n <= s->capacity)
    return NB_OK;
  free (s->image);
  free (s->counts);
  free (s->counts32);
  s->image = nb_alloc_large (n * sizeof *s->image);
  s->counts = nb_alloc_large (n * sizeof *s->counts);
  s->counts32 = nb_alloc_large (n * sizeof *s->counts32);
  s->capacity = n;
  if (s->image == NULL || s->counts == NULL || s->counts32 == NULL)
    {
      s->capacity = 0;
      return nb_error_set (err, NB_ERR_NOMEM, "out of memory for a frame of %zu pixels", n);
    }
  return NB_OK;
}

/* Makes @s's files durable once they have their names: each file, then
 * their folder (the renames).  A crash before this may leave a name with
 * nothing behind it, which --resume's fingerprints catch; a frame counts as
 * done only after it. */
static nb_status
sync_files (const frame_files *f, nb_error *err)
{
  const char *dir = NULL;
  size_t dir_len = 0;
  int fd;

  for (int k = 0; k < N_FRAME_FILES; k++)
    {
      if (f->path[k] == NULL)
        continue;
      /* the name as it now stands: a link put there is not followed */
      fd = open (f->path[k], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0 || (fsync (fd) != 0 && errno != EINVAL))
        {
          int saved = errno;

          if (fd >= 0)
            close (fd);
          return nb_error_set (err, NB_ERR_IO, "cannot sync %s: %s", f->path[k], strerror (saved));
        }
      close (fd);
      dir = f->path[k];
      dir_len = (size_t) (base_name (f->path[k]) - f->path[k]);
    }
  if (dir != NULL)
    {
      char folder[PATH_MAX];

      if (dir_len > 0)
        snprintf (folder, sizeof folder, "%.*s", (int) dir_len, dir);
      else
        snprintf (folder, sizeof folder, ".");
      fd = open (folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0 || (fsync (fd) != 0 && errno != EINVAL))
        {
          int saved = errno;

          if (fd >= 0)
            close (fd);
          return nb_error_set (err, NB_ERR_IO, "cannot sync the folder %s: %s", folder,
                               strerror (saved));
        }
      close (fd);
    }
  return NB_OK;
}

/* The SMV and float files, and the fingerprints file that covers them. */
static nb_status
write_plain_files (frame_slot *s, nb_error *err)
{
  char digits[N_FRAME_FILES][65];
  nb_status st = NB_OK;

  if (s->files.path[FILE_SMV] != NULL)
    {
      nb_smv_header h;
      void *bytes = NULL;
      size_t size = 0;

      nb_smv_header_from_info (&s->info, &h);
      nb_smv_header_for_dials (&s->info, s->adc, &h);
      if ((st = nb_smv_encode (&h, s->counts, &bytes, &size, err)) == NB_OK)
        {
          const void *chunks[1] = { bytes };

          nb_fingerprint_of (&s->key, bytes, size, SIZE_MAX, digits[FILE_SMV]);
          st = nb_write_file_atomic (s->files.path[FILE_SMV], chunks, &size, 1, err);
        }
      free (bytes);
    }
  if (st == NB_OK && s->files.path[FILE_FLOAT] != NULL)
    {
      size_t n = (size_t) s->info.fpixels * (size_t) s->info.spixels * sizeof (float);

      nb_fingerprint_of (&s->key, s->image, n, SIZE_MAX, digits[FILE_FLOAT]);
      st = nb_write_float_image (s->files.path[FILE_FLOAT], s->image, s->info.fpixels,
                                 s->info.spixels, err);
    }
  if (st == NB_OK && s->files.path[FILE_FINGERPRINTS] != NULL)
    {
      char *text = fingerprints_text (s, digits);
      size_t size = text != NULL ? strlen (text) : 0;
      const void *chunks[1] = { text };

      st = text == NULL
               ? nb_error_set (err, NB_ERR_NOMEM, "out of memory")
               : nb_write_file_atomic (s->files.path[FILE_FINGERPRINTS], chunks, &size, 1, err);
      free (text);
    }
  return st;
}

/* Writes the files of @s, together or none, and syncs them (the writer
 * thread). */
static nb_status
write_slot (frame_slot *s, volatile int *cancel, nb_error *err)
{
  nb_status st = NB_OK;

  pthread_mutex_lock (&io_lock);
  nb_output_begin ();
  /* the command line stays out of the CBF: CIF folds lines past 80
   * characters, which Pilatus-header readers do not expect (the fingerprint
   * covers it, --list-frames prints it) */
  if (s->files.path[FILE_CBF] != NULL)
    st = nb_write_cbf (s->files.path[FILE_CBF], &s->geom, s->counts32, NULL, &s->key, err);
  if (st == NB_OK && s->files.path[FILE_NEXUS] != NULL)
    {
      char number[32];
      const char *keys[2] = { "braggscope_command", "braggscope_frame_number" };
      const char *values[2] = { s->command, number };

      snprintf (number, sizeof number, "%ld", s->index + 1);
      st = nb_write_nexus_frame (s->files.path[FILE_NEXUS], &s->geom, s->counts32, keys, values, 2,
                                 &s->key, err);
    }
  if (st == NB_OK)
    st = write_plain_files (s, err);
  if (st == NB_OK && __atomic_load_n (cancel, __ATOMIC_SEQ_CST))
    st = nb_error_set (err, NB_ERR_CANCELLED, "interrupted");
  if (st == NB_OK)
    st = nb_output_commit (err);
  else
    nb_output_abort ();
  pthread_mutex_unlock (&io_lock);
  if (st == NB_OK)
    st = sync_files (&s->files, err);
  return st;
}

static void *
writer_main (void *data)
{
  worker *w = data;

  /* the frames' names are made up from --out: never follow a link there */
  nb_output_set_derived (1);
  pthread_mutex_lock (&w->lock);
  for (;;)
    {
      frame_slot *s = NULL;

      for (int k = 0; k < 2; k++)
        if (w->slots[k].state == SLOT_POSTED && (s == NULL || w->slots[k].seq < s->seq))
          s = &w->slots[k];
      if (s == NULL && w->quit)
        break;
      if (s == NULL)
        {
          pthread_cond_wait (&w->cond, &w->lock);
          continue;
        }
      pthread_mutex_unlock (&w->lock);
      s->status = write_slot (s, w->cancel, &s->err);
      pthread_mutex_lock (&w->lock);
      s->state = SLOT_DONE;
      pthread_cond_broadcast (&w->cond);
    }
  pthread_mutex_unlock (&w->lock);
  return NULL;
}

int
worker_start (worker *w)
{
  pthread_mutex_init (&w->lock, NULL);
  pthread_cond_init (&w->cond, NULL);
  if (pthread_create (&w->thread, NULL, writer_main, w) != 0)
    return -1;
  w->thread_started = 1;
  return 0;
}

void
worker_post (worker *w, frame_slot *s)
{
  pthread_mutex_lock (&w->lock);
  s->state = SLOT_POSTED;
  s->seq = w->seq++;
  pthread_cond_broadcast (&w->cond);
  pthread_mutex_unlock (&w->lock);
}

/* Waits until the writer is done with @s. */
void
worker_wait (worker *w, frame_slot *s)
{
  if (!w->thread_started)
    return;
  pthread_mutex_lock (&w->lock);
  while (s->state == SLOT_POSTED)
    pthread_cond_wait (&w->cond, &w->lock);
  pthread_mutex_unlock (&w->lock);
}

void
worker_clear (worker *w)
{
  if (w->thread_started)
    {
      pthread_mutex_lock (&w->lock);
      w->quit = 1;
      pthread_cond_broadcast (&w->cond);
      pthread_mutex_unlock (&w->lock);
      pthread_join (w->thread, NULL);
      pthread_cond_destroy (&w->cond);
      pthread_mutex_destroy (&w->lock);
      w->thread_started = 0;
    }
  nb_plan_destroy (w->plan);
  w->plan = NULL;
  for (int k = 0; k < 2; k++)
    {
      frame_slot *s = &w->slots[k];

      slot_release (s);
      free (s->image);
      free (s->counts);
      free (s->counts32);
      memset (s, 0, sizeof *s);
    }
}

/* Renders frame @index, whose command line is @argv (@argc words) and its
 * parameters @p, into @s (the main thread); s->skipped when --resume found it
 * complete.  Errors of the plan, the render or a non-finite pixel. */
nb_status
render_slot (worker *w,
             const series_config *c,
             long index,
             const char **argv,
             int argc,
             const nb_params *p_frame,
             frame_slot *s,
             nb_error *err)
{
  nb_exec_options exec = { 0 };
  size_t npix;
  long bad;
  nb_status st;
  const nb_params *p;

  s->index = index;
  s->skipped = 0;
  s->rewritten[0] = '\0';
  slot_release (s);
  st = plan_frame (&w->plan, p_frame, err);
  nb_fingerprint_begin (&s->key, argv, argc);
  s->command = join_command (argv, argc);
  if (st != NB_OK)
    return st;
  if (s->command == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  if ((st = frame_files_make (c, index, &s->files, err)) != NB_OK)
    return st;
  s->info = *nb_plan_get_info (w->plan);
  p = nb_plan_get_params (w->plan);
  /* panels of different widths make no rectangle: only the float file holds them */
  if (s->info.n_panels > 1 && s->info.spixels == 1 &&
      (s->files.path[FILE_CBF] != NULL || s->files.path[FILE_NEXUS] != NULL ||
       s->files.path[FILE_SMV] != NULL))
    return nb_error_set (err, NB_ERR_USAGE,
                         "-detector %s: its panels differ in width and cannot be stacked into "
                         "one image: use --format float",
                         p->detector_file);
  nb_frame_geometry_from_plan (&s->info, p, COUNT_LIMIT, &s->geom);
  s->adc = p->adc;
  npix = (size_t) s->info.fpixels * (size_t) s->info.spixels;
  if ((st = slot_buffers (s, npix, err)) != NB_OK)
    return st;

  if (c->resume)
    {
      int complete;

      pthread_mutex_lock (&io_lock);
      complete = frame_complete (s);
      pthread_mutex_unlock (&io_lock);
      if (complete)
        {
          s->skipped = 1;
          return NB_OK;
        }
      for (int k = 0; k < N_FRAME_FILES; k++)
        if (s->files.path[k] != NULL)
          remove_stale_temporaries (s->files.path[k]);
    }

  exec.cancel = w->cancel;
  exec.threads = c->threads > 0 ? c->threads : 0;
  if ((st = nb_plan_execute (w->plan, s->image, &exec, err)) != NB_OK)
    return st;
  if ((bad = nb_image_first_non_finite (s->image, npix, NULL)) >= 0)
    {
      size_t i = (size_t) bad;

      return nb_error_set (err, NB_ERR_INVALID,
                           "pixel (fast %zu, slow %zu) is %g: nothing written; check the flags "
                           "that scale intensities",
                           i % (size_t) s->info.fpixels, i / (size_t) s->info.fpixels,
                           (double) s->image[i]);
    }

  if (c->formats & (FMT_CBF | FMT_NEXUS | FMT_SMV))
    {
      if (p->calculate_noise)
        {
          int overloads;

          nb_image_to_noise (w->plan, s->image, p->seed, p->adc, s->counts, &overloads);
        }
      else
        {
          nb_image_stats stats;

          nb_image_statistics (w->plan, s->image, &stats);
          nb_image_to_smv (w->plan, s->image, &stats, p->intfile_scale, p->adc, s->counts);
        }
      for (size_t i = 0; i < npix; i++)
        s->counts32[i] = s->counts[i];
    }
  return NB_OK;
}
