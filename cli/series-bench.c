/* series-bench.c: nanobragg-series --bench: a rotation of the 1HPV scene,
 * timed against the reference nanoBragg run once per frame. */
#include "nanobragg-series-private.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

/* ------------------------------------------------------------------------- */
/* --bench */

/* The 1HPV scene of build-aux/setup.sh, as a rotation of 0.1 degree frames. */
#define BENCH_SCENE                                                                                \
  "-cell 63.4 63.4 83.8 90 90 120 -misset 10 20 30 -lambda 1.0 -N 10 -mosaic 0.2 "                 \
  "-mosaic_domains 5 -distance 120 -detpixels 1024 -pixel 0.1 -phi 0 -osc 0.1 -nonoise -nopgm"
#define BENCH_SCENE_WORDS 48

/* CPU seconds (user + system) of this process or of its waited-for children. */
static double
cpu_seconds (int who)
{
  struct rusage ru;

  getrusage (who, &ru);
  return (double) ru.ru_utime.tv_sec + 1e-6 * (double) ru.ru_utime.tv_usec +
         (double) ru.ru_stime.tv_sec + 1e-6 * (double) ru.ru_stime.tv_usec;
}

static int
run_reference_loop (const char *reference,
                    const char *hkl,
                    const series_config *c,
                    long frames,
                    int threads,
                    double *seconds)
{
  char dir[] = "/tmp/nanobragg-series-ref.XXXXXX";
  char threads_text[16], *script = NULL;
  size_t size = 0;
  FILE *f;
  pid_t pid;
  int status;
  double t0;

  if (mkdtemp (dir) == NULL)
    return -1;
  f = open_memstream (&script, &size);
  if (f == NULL)
    return -1;
  /* one process per frame, as a user's loop runs it */
  fprintf (f, "cd '%s' || exit 1\nfor phi in", dir);
  for (long i = 0; i < frames; i++)
    {
      char text[64];

      format_number (c->phi_deg + (double) i * c->osc_deg, text, sizeof text);
      fprintf (f, " %s", text);
    }
  fprintf (f, "; do\n  \"$0\" -hkl \"$1\" %s", BENCH_SCENE);
  fprintf (f, " -phi $phi -floatfile out.bin -noprogress > /dev/null || exit 1\ndone\n");
  fclose (f);
  snprintf (threads_text, sizeof threads_text, "%d", threads);
  t0 = now_s ();
  pid = fork ();
  if (pid == 0)
    {
      setenv ("OMP_NUM_THREADS", threads_text, 1);
      execl ("/bin/sh", "sh", "-c", script, reference, hkl, (char *) NULL);
      _exit (127);
    }
  free (script);
  if (pid < 0 || waitpid (pid, &status, 0) != pid)
    return -1;
  *seconds = now_s () - t0;
  {
    char path[PATH_MAX];

    snprintf (path, sizeof path, "%s/out.bin", dir);
    unlink (path);
    snprintf (path, sizeof path, "%s/intimage.img", dir);
    unlink (path);
    snprintf (path, sizeof path, "%s/Fdump.bin", dir);
    unlink (path);
    rmdir (dir);
  }
  return WIFEXITED (status) && WEXITSTATUS (status) == 0 ? 0 : -1;
}

int
bench_prepare (series_config *c, distributor *d, const bench_options *b, bench_run *r)
{
  static char scene_text[] = "nanobragg " BENCH_SCENE " -precision single";
  const char *scene[BENCH_SCENE_WORDS] = { NULL };
  size_t n_scene = 0;
  const char **base;
  int n = 0;

  snprintf (r->dir, sizeof r->dir, "/tmp/nanobragg-series-bench.XXXXXX");
  snprintf (r->hkl, sizeof r->hkl, "%s/1hpv_p1.hkl", b->data_dir);
  if (access (r->hkl, R_OK) != 0)
    return usage_error ("--bench: %s: %s (give --data DIR)", r->hkl, strerror (errno));
  if (b->reference != NULL && access (b->reference, X_OK) != 0)
    return usage_error ("--reference %s: %s", b->reference, strerror (errno));
  if (c->base_argc > 1 || c->rotation_frames || c->stills || c->n_sweeps)
    return usage_error ("--bench runs its own scene: give no nanoBragg flags or series options");
  /* the scene's words, split in place (c->base keeps them: the bench runs once) */
  for (char *w = strtok (scene_text, " "); w != NULL && n_scene < BENCH_SCENE_WORDS;
       w = strtok (NULL, " "))
    scene[n_scene++] = w;
  base = malloc (sizeof *base * (n_scene + 3));
  if (base == NULL)
    return usage_error ("out of memory");
  base[n++] = scene[0];
  base[n++] = "-hkl";
  base[n++] = r->hkl;
  for (size_t i = 1; i < n_scene; i++)
    base[n++] = scene[i];
  base[n] = NULL;
  free (c->base);
  c->base = base;
  c->base_argc = n;
  c->rotation_frames = b->frames;
  c->formats = FMT_FLOAT;
  c->quiet = 1;
  /* every rank writes into rank 0's folder */
  if (c->rank == 0 && mkdtemp (r->dir) == NULL)
    return usage_error ("--bench: cannot make a folder in /tmp: %s", strerror (errno));
#ifdef NB_HAVE_MPI
  if (d->active)
    MPI_Bcast (r->dir, sizeof r->dir, MPI_CHAR, 0, MPI_COMM_WORLD);
#else
  (void) d;
#endif
  snprintf (r->prefix, sizeof r->prefix, "%s/frame", r->dir);
  c->prefix = r->prefix;
  return 0;
}

void
bench_start (bench_run *r)
{
  r->cpu = cpu_seconds (RUSAGE_SELF);
}

int
bench_finish (const series_config *c,
              const bench_options *b,
              bench_run *r,
              int rc,
              double seconds,
              long written)
{
  double ref_seconds = 0, cpu, ref_cpu;
  int threads = c->threads > 0 ? c->threads : 0;

  cpu = cpu_seconds (RUSAGE_SELF) - r->cpu;
  if (c->rank == 0)
    {
      /* the frames and series files go: the bench keeps nothing */
      static const char *const frame_ext[] = { "bin", "fingerprint" };
      static const char *const series_files[] = { "series.json", "summary.json", "series.lock" };

      for (long i = 0; i < c->frames; i++)
        for (size_t k = 0; k < sizeof frame_ext / sizeof frame_ext[0]; k++)
          {
            char *p = frame_path (c, i, frame_ext[k]);

            if (p != NULL)
              unlink (p);
            free (p);
          }
      for (size_t k = 0; k < sizeof series_files / sizeof series_files[0]; k++)
        {
          char *p = series_path (c, series_files[k]);

          if (p != NULL)
            unlink (p);
          free (p);
        }
      rmdir (r->dir);
    }
  if (rc != 0 || c->rank != 0)
    return rc;
  if (threads == 0)
    {
      const char *env = getenv ("OMP_NUM_THREADS");

      threads = env != NULL && atoi (env) > 0 ? atoi (env) : (int) sysconf (_SC_NPROCESSORS_ONLN);
    }
  {
    double fps = written / seconds;

    printf ("\nbench: %ld-frame rotation of the 1HPV scene, 1024x1024, single precision, "
            "float files\n",
            c->frames);
    printf ("%-34s %8s %10s %10s\n", "run", "frames", "seconds", "frames/s");
    printf ("%-34s %8ld %10.3f %10.4g\n",
            c->ranks > 1 ? "nanobragg-series (all ranks)" : "nanobragg-series", written, seconds,
            fps);
    if (b->reference != NULL && b->reference_frames > 0)
      {
        long k = b->reference_frames < c->frames ? b->reference_frames : c->frames;
        char label[64];

        ref_cpu = cpu_seconds (RUSAGE_CHILDREN);
        if (run_reference_loop (b->reference, r->hkl, c, k, threads, &ref_seconds) != 0)
          {
            fprintf (stderr, "nanobragg-series: --bench: the reference loop failed\n");
            return 1;
          }
        ref_cpu = cpu_seconds (RUSAGE_CHILDREN) - ref_cpu;
        snprintf (label, sizeof label, "reference, a process per frame");
        printf ("%-34s %8ld %10.3f %10.4g\n", label, k, ref_seconds, k / ref_seconds);
        /* CPU time is what a machine shared with other work still measures fairly */
        printf ("CPU seconds per frame: %.4g (rank 0) against %.4g: %.1fx\n", cpu / written,
                ref_cpu / k, (ref_cpu / k) / (cpu / written));
        printf ("ratio (frames/s): %.1fx, %d ranks x %d threads against the reference on %d "
                "threads\n",
                fps / (k / ref_seconds), c->ranks, c->threads > 0 ? c->threads : threads, threads);
        printf ("{\"bench\": \"series\", \"frames\": %ld, \"seconds\": %.6f, "
                "\"frames_per_second\": %.6g, \"ranks\": %d, \"threads\": %d, "
                "\"reference_frames\": %ld, \"reference_seconds\": %.6f, "
                "\"reference_frames_per_second\": %.6g, \"ratio\": %.6g, "
                "\"cpu_seconds_per_frame\": %.6g, \"reference_cpu_seconds_per_frame\": %.6g}\n",
                written, seconds, fps, c->ranks, threads, k, ref_seconds, k / ref_seconds,
                fps / (k / ref_seconds), cpu / written, ref_cpu / k);
      }
    else
      printf ("{\"bench\": \"series\", \"frames\": %ld, \"seconds\": %.6f, "
              "\"frames_per_second\": %.6g, \"ranks\": %d, \"threads\": %d}\n",
              written, seconds, fps, c->ranks, threads);
  }
  return 0;
}
