/* series-output.c: nanobragg-series' files (paths, the series file, the
 * fingerprints) and one frame on its way to them: rendered and converted
 * by the main thread, encoded and written by the writer thread. */
#include "nanobragg-series-private.h"
#include "nb-io.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------- */
/* Files. */

char *
frame_path (const series_config *c, long index, const char *ext)
{
  size_t n = strlen (c->prefix) + 32;
  char *s = malloc (n);

  if (s != NULL)
    snprintf (s, n, "%s_%06ld.%s", c->prefix, index + 1, ext);
  return s;
}

char *
series_path (const series_config *c, const char *suffix)
{
  size_t n = strlen (c->prefix) + strlen (suffix) + 2;
  char *s = malloc (n);

  if (s != NULL)
    snprintf (s, n, "%s_%s", c->prefix, suffix);
  return s;
}

const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');

  return slash != NULL ? slash + 1 : path;
}

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

static void
json_string (FILE *f, const char *s)
{
  fputc ('"', f);
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    if (*p == '"' || *p == '\\')
      fprintf (f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf (f, "\\u%04x", *p);
    else
      fputc (*p, f);
  fputc ('"', f);
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

const char *
series_kind (const series_config *c)
{
  return c->rotation_frames > 0 ? "rotation" : c->stills > 0 ? "stills" : "sweep";
}

/* PREFIX_series.json: what the series is, frame by frame. */
nb_status
write_series_file (const series_config *c, const char *path, nb_error *err)
{
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&text, &size);

  if (f == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory", path);
  fprintf (f, "{\n  \"program\": \"nanobragg-series\",\n  \"fingerprint\": \"%s\",\n",
           c->series_fingerprint);
  fprintf (f, "  \"series\": \"%s\",\n  \"frames\": %ld,\n", series_kind (c), c->frames);
  if (c->stills > 0)
    fprintf (f, "  \"orientation_seed\": %llu,\n", (unsigned long long) c->orientation_seed);
  fprintf (f, "  \"noise_seed\": %llu,\n", (unsigned long long) c->noise_seed);
  fprintf (f, "  \"names\": ");
  {
    char name[PATH_MAX];

    snprintf (name, sizeof name, "%s_%%06d", base_name (c->prefix));
    json_string (f, name);
  }
  fprintf (f, ",\n  \"first_number\": 1,\n  \"nanobragg\": [");
  for (int i = 0; i < c->base_argc; i++)
    {
      fputs (i ? ", " : "", f);
      json_string (f, c->base[i]);
    }
  fprintf (f, "],\n  \"frame_flags\": [\n");
  for (long i = 0; i < c->frames; i++)
    {
      extra_flags e;

      frame_extras (c, i, &e);
      fputs ("    [", f);
      for (int k = 0; k < e.n; k++)
        {
          fputs (k ? ", " : "", f);
          json_string (f, e.argv[k]);
        }
      fputs (i + 1 < c->frames ? "],\n" : "]\n", f);
    }
  fprintf (f, "  ]\n}\n");
  return write_memstream (f, &text, &size, path, err);
}

/* Whether @path (a series file) holds this series' fingerprint. */
int
series_file_matches (const series_config *c, const char *path, int *exists)
{
  FILE *f = fopen (path, "r");
  char line[256], want[64];
  int found = 0;

  *exists = f != NULL;
  if (f == NULL)
    return 0;
  snprintf (want, sizeof want, "\"fingerprint\": \"%s\"", c->series_fingerprint);
  for (int n = 0; n < 4 && fgets (line, sizeof line, f) != NULL && !found; n++)
    found = strstr (line, want) != NULL;
  fclose (f);
  return found;
}

/* The frame's fingerprint: of its whole nanoBragg command line. */
static void
frame_fingerprint (const char **argv, int argc, char out[17])
{
  fingerprint_words (argv, argc, out);
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

/* Leftovers of a run killed while writing (SIGKILL: no handler ran): the
 * atomic writer's ".NAME.XXXXXX" files beside @path. */
static void
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

/* The plan at the parameters of the frame whose command line is @argv
 * (created on the first frame). */
nb_status
plan_frame (nb_plan **plan, const series_config *c, const char **argv, int argc, nb_error *err)
{
  nb_params p;
  nb_status st;

  st = parse_frame (c, argv, argc, 0, &p, err);
  if (st == NB_OK)
    st = *plan == NULL ? nb_plan_create (&p, plan, err) : nb_plan_update (*plan, &p, err);
  nb_params_clear (&p);
  return st;
}

static void
frame_files_clear (frame_files *f)
{
  for (int k = 0; k < 4; k++)
    free (f->path[k]);
}

static nb_status
frame_files_make (const series_config *c, long index, frame_files *f, nb_error *err)
{
  static const unsigned bits[4] = { FMT_CBF, FMT_NEXUS, FMT_SMV, FMT_FLOAT };
  static const char *ext[4] = { "cbf", "h5", "img", "bin" };

  memset (f, 0, sizeof *f);
  for (int k = 0; k < 4; k++)
    if ((c->formats & bits[k]) && (f->path[k] = frame_path (c, index, ext[k])) == NULL)
      {
        frame_files_clear (f);
        return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
      }
  return NB_OK;
}

/* Whether every file of the frame is complete (see --help). */
static int
frame_complete (const frame_files *f, const nb_plan_info *in, const char *fingerprint)
{
  nb_error err;
  struct stat st;
  char line[64];

  snprintf (line, sizeof line, "Braggscope_fingerprint %s", fingerprint);
  if (f->path[0] != NULL && nb_cbf_verify (f->path[0], in->fpixels, in->spixels, line, &err))
    return 0;
  if (f->path[1] != NULL && nb_nexus_verify_frame (f->path[1], in->fpixels, in->spixels,
                                                   "braggscope_fingerprint", fingerprint, &err))
    return 0;
  if (f->path[2] != NULL)
    {
      nb_smv_file smv;

      if (nb_read_smv (f->path[2], &smv, &err) != NB_OK)
        return 0;
      if (smv.size1 != in->fpixels || smv.size2 != in->spixels)
        {
          nb_smv_file_clear (&smv);
          return 0;
        }
      nb_smv_file_clear (&smv);
    }
  if (f->path[3] != NULL &&
      (stat (f->path[3], &st) != 0 || !S_ISREG (st.st_mode) ||
       (size_t) st.st_size != (size_t) in->fpixels * (size_t) in->spixels * sizeof (float)))
    return 0;
  return 1;
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

/* Writes the files of @s, together or none (the writer thread). */
static nb_status
write_slot (frame_slot *s, nb_error *err)
{
  nb_status st = NB_OK;

  pthread_mutex_lock (&io_lock);
  nb_output_begin ();
  if (s->files.path[0] != NULL)
    {
      char extra[64];

      /* the command line stays out: CIF folds lines past 80 characters, which
       * Pilatus-header readers do not expect (the series file has it) */
      snprintf (extra, sizeof extra, "# Braggscope_fingerprint %s\n", s->fingerprint);
      st = nb_write_cbf (s->files.path[0], &s->geom, s->counts32, extra, err);
    }
  if (st == NB_OK && s->files.path[1] != NULL)
    {
      char number[32];
      const char *keys[3] = { "braggscope_fingerprint", "braggscope_command",
                              "braggscope_frame_number" };
      const char *values[3] = { s->fingerprint, s->command, number };

      snprintf (number, sizeof number, "%ld", s->index + 1);
      st = nb_write_nexus_frame (s->files.path[1], &s->geom, s->counts32, keys, values, 3, err);
    }
  if (st == NB_OK && s->files.path[2] != NULL)
    {
      nb_smv_header h;

      nb_smv_header_from_info (&s->info, &h);
      st = nb_write_smv (s->files.path[2], &h, s->counts, err);
    }
  if (st == NB_OK && s->files.path[3] != NULL)
    st = nb_write_float_image (s->files.path[3], s->image, s->info.fpixels, s->info.spixels, err);
  if (st == NB_OK && cancelled ())
    st = nb_error_set (err, NB_ERR_CANCELLED, "interrupted");
  if (st == NB_OK)
    st = nb_output_commit (err);
  else
    nb_output_abort ();
  pthread_mutex_unlock (&io_lock);
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
      s->status = write_slot (s, &s->err);
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

/* Renders frame @index into @s (the main thread); s->skipped when --resume
 * found it complete.  Errors of the plan, the render or a non-finite pixel. */
nb_status
render_slot (worker *w, const series_config *c, long index, frame_slot *s, nb_error *err)
{
  extra_flags e;
  const char **argv;
  int argc = 0;
  nb_exec_options exec = { 0 };
  size_t npix;
  long bad;
  nb_status st;
  const nb_params *p;

  s->index = index;
  s->skipped = 0;
  slot_release (s);
  frame_extras (c, index, &e);
  if ((argv = frame_argv (c, &e, &argc)) == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  st = plan_frame (&w->plan, c, argv, argc, err);
  frame_fingerprint (argv, argc, s->fingerprint);
  s->command = join_command (argv, argc);
  free (argv);
  if (st != NB_OK)
    return st;
  if (s->command == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  if ((st = frame_files_make (c, index, &s->files, err)) != NB_OK)
    return st;
  s->info = *nb_plan_get_info (w->plan);
  p = nb_plan_get_params (w->plan);
  nb_frame_geometry_from_plan (&s->info, p, COUNT_LIMIT, &s->geom);
  npix = (size_t) s->info.fpixels * (size_t) s->info.spixels;
  if ((st = slot_buffers (s, npix, err)) != NB_OK)
    return st;

  if (c->resume)
    {
      int complete;

      pthread_mutex_lock (&io_lock);
      complete = frame_complete (&s->files, &s->info, s->fingerprint);
      pthread_mutex_unlock (&io_lock);
      if (complete)
        {
          s->skipped = 1;
          return NB_OK;
        }
      for (int k = 0; k < 4; k++)
        if (s->files.path[k] != NULL)
          remove_stale_temporaries (s->files.path[k]);
    }

  exec.cancel = &cancel_requested;
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
