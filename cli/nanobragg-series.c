/* nanobragg-series: datasets on the Braggscope engine: rotation series,
 * stills and parameter sweeps, in one process or shared among MPI ranks,
 * written as miniCBF, NeXus/HDF5, SMV and float files.
 *
 * Every frame is defined by a nanoBragg command line of its own: the flags
 * given here, followed by the frame's flags (-phi for a rotation, -misset
 * for a still, the swept flags, -seed for its noise), parsed as the
 * `nanobragg` CLI parses it.  So the float image of frame i is, bit for bit,
 * what `nanobragg` writes for that command line alone (the series metadata
 * lists each frame's flags), and every random choice comes from (seed, frame
 * index) through nb-series.h's counter-based generator: a frame's bytes do
 * not depend on how many processes made the series or in which order.
 *
 * One warm plan per process: nb_plan_update() rebuilds only the stages a
 * frame changes (the orientation for a rotation; crystal and orientation for
 * a still); the structure factors are read once.
 *
 * Frames are handed out dynamically: a counter of the next frame index, one
 * MPI_Fetch_and_op (MPI_SUM) on a window at rank 0 per frame.  Every rank
 * computes (no rank is spent on handing out work), a rank asks only when it
 * is free, so a slow rank takes fewer frames; one atomic per frame of
 * milliseconds to seconds costs nothing.  Within a node Open MPI's shared-
 * memory window does the atomic in hardware; across nodes on a network without
 * RDMA atomics, Open MPI completes it when rank 0 next enters MPI, at the
 * latest after its current frame.
 */
#include "nanobragg.h"
#include "nb-frame-write.h"
#include "nb-io.h"
#include "nb-param.h"
#include "nb-series.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef NB_HAVE_MPI
#include <mpi.h>
#endif

#ifndef NB_DATA_DIR
#define NB_DATA_DIR "data"
#endif

#define RTD         (180.0 * M_1_PI)
#define MAX_SWEEPS  8
#define MAX_EXTRA   32 /* words a frame adds to the command line */
#define COUNT_LIMIT 65535L
/* a seed no command line gives (the parser keeps |-seed| below 2^31), and
 * whose negation is still a long */
#define SEED_NOT_GIVEN (-3000000000L)

static const char usage_text[] =
    "usage: nanobragg-series SERIES [OUTPUT] [nanoBragg flags]\n"
    "       mpirun -n R nanobragg-series SERIES [OUTPUT] [nanoBragg flags]\n"
    "       nanobragg-series --bench [--reference PATH] [--reference-frames K] [--threads T]\n"
    "\n"
    "Simulates a dataset: every nanoBragg flag (as `nanobragg` takes them) describes the\n"
    "scene; the series says what changes from frame to frame.  Frame i (0-based; files are\n"
    "numbered i + 1) is what `nanobragg FLAGS FRAME-FLAGS` computes, where FRAME-FLAGS are:\n"
    "\n"
    "Series (a rotation or stills, and any number of sweeps: their product, the first\n"
    "--sweep slowest, rotation or stills fastest):\n"
    "\t--frames N\t\trotation: frame i at -phi PHI + i*OSC (degrees, PHI and OSC from\n"
    "\t\t\t\t-phi and -osc), turning by -osc in -phisteps steps about -spindle_axis\n"
    "\t--stills N\t\tstills: frame i at the crystal orientation drawn uniformly from all\n"
    "\t--orientation-seed S\torientations (Shoemake's quaternions) from (S, i), given as\n"
    "\t\t\t\t-misset X Y Z; S is a whole number 0 ... 2^64-1\n"
    "\t--random-mosaic-seed\tstills: also -mosaic_seed drawn from (S, i)\n"
    "\t--sweep NAME=START:STOP:COUNT\tCOUNT values from START to STOP, evenly spaced, of\n"
    "\t\t\t\tthe numeric flag -NAME (-distance, -lambda, -N, -mosaic...)\n"
    "\tWith photon noise (integer formats without -nonoise), frame i adds -seed drawn from\n"
    "\t(-seed, i) (-seed 0 when not given): the same noise on every run.\n"
    "\n"
    "Output:\n"
    "\t--out PREFIX\t\tfiles PREFIX_000001.cbf ... (default 'frame'); also PREFIX_series.json\n"
    "\t\t\t\t(the series: every frame's flags), PREFIX_summary.json (the run) and,\n"
    "\t\t\t\tfor nexus without --sweep, PREFIX_master.h5\n"
    "\t--format LIST\t\tcomma-separated, default cbf:\n"
    "\t\t\tcbf\tminiCBF (CBFlib) with the Pilatus header: pixel size, sensor thickness,\n"
    "\t\t\t\texposure, count cutoff, wavelength, distance, Beam_xy, start angle and\n"
    "\t\t\t\tincrement; byte-offset compressed, MD5 digest\n"
    "\t\t\tnexus\tNXmx frame files PREFIX_000001.h5 (one frame, chunked, shuffle +\n"
    "\t\t\t\tdeflate, Fletcher-32) and the master PREFIX_master.h5 (geometry,\n"
    "\t\t\t\tomega per frame, external links data_000001..., and the virtual\n"
    "\t\t\t\tdataset /entry/data/data of all frames)\n"
    "\t\t\tsmv\tthe SMV file `nanobragg` writes as -noisefile (-intfile with -nonoise)\n"
    "\t\t\tfloat\tthe raw float image `nanobragg` writes as -floatfile (.bin)\n"
    "\t\tcbf, nexus and smv hold the same counts: Poisson photons + -adc, at most 65535.\n"
    "\t--resume\t\tskip frames whose files are complete: the series file must describe\n"
    "\t\t\t\tthe same series; a CBF must read with its MD5 digest and carry the\n"
    "\t\t\t\tframe's fingerprint, a NeXus frame must read whole (Fletcher-32) with\n"
    "\t\t\t\tthe fingerprint, an SMV must read at its size, a float file must have\n"
    "\t\t\t\tits size; anything else is made again\n"
    "\t--threads N\t\tOpenMP threads per process (default: OMP_NUM_THREADS, else the\n"
    "\t\t\t\tcores shared among the node's ranks)\n"
    "\t--quiet\t\t\tno progress lines\n"
    "\n"
    "Progress goes to stderr (one updating line on a terminal, else a line per frame); the\n"
    "summary (frames, seconds, frames/s, per rank) to stdout as JSON.  Every file is written\n"
    "under a temporary name and renamed; Ctrl+C stops without a partial file (exit 130).\n"
    "\n"
    "MPI: under mpirun (or srun) the ranks share the frames dynamically; rank 0 writes the\n"
    "series file, the master file and the summary.  Each rank of a node uses GPU\n"
    "local_rank % devices (it sets CUDA_VISIBLE_DEVICES before the engine starts CUDA).\n"
    "\n"
    "Benchmark: --bench times a 100-frame rotation (0.1 degree frames) of the 1HPV scene at\n"
    "1024x1024, single precision, float files, against the reference nanoBragg (--reference)\n"
    "run once per frame in a shell loop on the same threads, over the first K frames\n"
    "(--reference-frames, default 3: its time per frame does not depend on the frame).\n"
    "--bench-frames N and --data DIR (holding 1hpv_p1.hkl, default " NB_DATA_DIR ") change it.\n"
    "\n"
    "Exit status: 0 success, 1 failure, 2 bad command line, 130 interrupted.\n";

typedef enum
{
  FMT_CBF = 1,
  FMT_NEXUS = 2,
  FMT_SMV = 4,
  FMT_FLOAT = 8,
} format_bits;

typedef struct
{
  char flag[64]; /* "-distance" */
  double start, stop;
  long count;
  char **values; /* COUNT texts (owned) */
} sweep;

typedef struct
{
  /* the scene: argv[0] "nanobragg" then the nanoBragg flags (borrowed) */
  const char **base;
  int base_argc;
  nb_parse_options parse;
  /* the series */
  long rotation_frames; /* 0: no rotation */
  long stills;          /* 0: no stills */
  uint64_t orientation_seed;
  int orientation_seed_given;
  int random_mosaic_seed;
  sweep sweeps[MAX_SWEEPS];
  int n_sweeps;
  long inner;  /* frames per sweep point: rotation_frames, stills or 1 */
  long frames; /* all of them */
  char phi_text[64], osc_text[64];
  double phi_deg, osc_deg;
  uint64_t noise_seed; /* -seed as given, 0 when not */
  int noise;           /* frames add -seed (integer formats with noise) */
  /* output */
  const char *prefix;
  unsigned formats;
  int resume;
  int threads;
  int quiet;
  /* the run */
  int rank, ranks, local_rank, local_ranks;
  char series_fingerprint[17];
} series_config;

typedef struct
{
  long written, skipped;
  double seconds;
} rank_stats;

static volatile int cancel_requested;

static void
on_signal (int sig)
{
  (void) sig;
  __atomic_store_n (&cancel_requested, 1, __ATOMIC_SEQ_CST);
}

static int
cancelled (void)
{
  return __atomic_load_n (&cancel_requested, __ATOMIC_SEQ_CST);
}

static double
now_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static void
warn_line (void *user, const char *message)
{
  (void) user;
  fprintf (stderr, "nanobragg-series: warning: %s\n", message);
}

/* The shortest decimal text that reads back as @v (so typed values stay as
 * typed and generated ones lose nothing). */
static void
format_number (double v, char *out, size_t n)
{
  if (v == floor (v) && fabs (v) < 1e15)
    {
      snprintf (out, n, "%.0f", v == 0 ? 0.0 : v);
      return;
    }
  for (int digits = 1; digits <= 17; digits++)
    {
      snprintf (out, n, "%.*g", digits, v);
      if (strtod (out, NULL) == v)
        return;
    }
}

/* FNV-1a, 64 bits, of @n words (each with its terminating NUL), as 16 hex
 * digits. */
static void
fingerprint_words (const char *const *words, int n, char out[17])
{
  uint64_t h = UINT64_C (0xcbf29ce484222325);

  for (int i = 0; i < n; i++)
    for (const unsigned char *p = (const unsigned char *) words[i];; p++)
      {
        h = (h ^ *p) * UINT64_C (0x100000001b3);
        if (*p == '\0')
          break;
      }
  snprintf (out, 17, "%016llx", (unsigned long long) h);
}

/* ------------------------------------------------------------------------- */
/* MPI, or one process. */

typedef struct
{
  int active;
  long next; /* without MPI: the next frame index */
  long done;
#ifdef NB_HAVE_MPI
  MPI_Win win;
  long long *counters; /* rank 0: [next frame, frames finished] */
#endif
} distributor;

/* Launched by mpirun or srun?  MPI is started only then, so that a plain
 * run needs no MPI runtime (Open MPI's singleton start wants its daemon). */
static int
launched_by_mpi (void)
{
  static const char *vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE" };

  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (getenv (vars[i]) != NULL)
      return 1;
  return 0;
}

static void
dist_start (distributor *d, series_config *c, int *argc, char ***argv)
{
  memset (d, 0, sizeof *d);
  c->rank = 0;
  c->ranks = 1;
  c->local_rank = 0;
  c->local_ranks = 1;
#ifdef NB_HAVE_MPI
  if (launched_by_mpi ())
    {
      MPI_Comm local;

      MPI_Init (argc, argv);
      d->active = 1;
      MPI_Comm_rank (MPI_COMM_WORLD, &c->rank);
      MPI_Comm_size (MPI_COMM_WORLD, &c->ranks);
      MPI_Comm_split_type (MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
      MPI_Comm_rank (local, &c->local_rank);
      MPI_Comm_size (local, &c->local_ranks);
      MPI_Comm_free (&local);
    }
#else
  (void) argc;
  (void) argv;
#endif
}

/* The counters start at 0 on every rank's view once this returns. */
static void
dist_open_counter (distributor *d)
{
#ifdef NB_HAVE_MPI
  if (d->active)
    {
      MPI_Aint size = 0;
      int rank;

      MPI_Comm_rank (MPI_COMM_WORLD, &rank);
      if (rank == 0)
        size = 2 * sizeof (long long);
      MPI_Win_allocate (size, sizeof (long long), MPI_INFO_NULL, MPI_COMM_WORLD, &d->counters,
                        &d->win);
      if (rank == 0)
        d->counters[0] = d->counters[1] = 0;
      MPI_Barrier (MPI_COMM_WORLD);
      MPI_Win_lock_all (MPI_MODE_NOCHECK, d->win);
      return;
    }
#endif
  d->next = d->done = 0;
}

static long long
dist_fetch_add (distributor *d, int which, long long add)
{
#ifdef NB_HAVE_MPI
  if (d->active)
    {
      long long result = 0;

      MPI_Fetch_and_op (&add, &result, MPI_LONG_LONG, 0, which, add ? MPI_SUM : MPI_NO_OP, d->win);
      MPI_Win_flush (0, d->win);
      return result;
    }
#endif
  if (which == 0)
    {
      d->next += add;
      return d->next - add;
    }
  d->done += add;
  return d->done - add;
}

static void
dist_close_counter (distributor *d)
{
#ifdef NB_HAVE_MPI
  if (d->active)
    {
      MPI_Win_unlock_all (d->win);
      MPI_Win_free (&d->win);
    }
#else
  (void) d;
#endif
}

/* Rank 0's @status to every rank (a decision only rank 0 can make). */
static int
dist_broadcast_int (distributor *d, int value)
{
#ifdef NB_HAVE_MPI
  if (d->active)
    MPI_Bcast (&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
#else
  (void) d;
#endif
  return value;
}

/* Ends the job at once from any rank: the others are told to stop. */
static void
dist_abort (distributor *d, int status)
{
#ifdef NB_HAVE_MPI
  if (d->active)
    MPI_Abort (MPI_COMM_WORLD, status);
#else
  (void) d;
#endif
  exit (status);
}

static void
dist_gather (distributor *d, const rank_stats *mine, rank_stats *all, int ranks)
{
#ifdef NB_HAVE_MPI
  if (d->active)
    {
      double v[3] = { (double) mine->written, (double) mine->skipped, mine->seconds };
      double *recv = malloc (3 * sizeof (double) * (size_t) ranks);
      int rank;

      MPI_Comm_rank (MPI_COMM_WORLD, &rank);
      MPI_Gather (v, 3, MPI_DOUBLE, recv, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      if (rank == 0 && recv != NULL)
        for (int r = 0; r < ranks; r++)
          {
            all[r].written = (long) recv[3 * r];
            all[r].skipped = (long) recv[3 * r + 1];
            all[r].seconds = recv[3 * r + 2];
          }
      free (recv);
      return;
    }
#else
  (void) d;
  (void) ranks;
#endif
  all[0] = *mine;
}

static void
dist_finish (distributor *d)
{
#ifdef NB_HAVE_MPI
  if (d->active)
    MPI_Finalize ();
#else
  (void) d;
#endif
}

/* Each rank of a node takes GPU local_rank % devices: the devices are those
 * CUDA_VISIBLE_DEVICES lists (a scheduler's share), else those the NVIDIA
 * driver shows; CUDA_VISIBLE_DEVICES is narrowed to that one before the
 * engine's first CUDA call. */
static void
choose_gpu (const series_config *c)
{
  const char *visible = getenv ("CUDA_VISIBLE_DEVICES");
  char chosen[64] = "";

  if (c->local_ranks <= 1 && visible == NULL)
    return;
  if (visible != NULL && visible[0] != '\0')
    {
      char *copy = strdup (visible), *save = NULL;
      int n = 0, want;

      if (copy == NULL)
        return;
      for (char *t = strtok_r (copy, ",", &save); t != NULL; t = strtok_r (NULL, ",", &save))
        n++;
      free (copy);
      if (n <= 1)
        return;
      want = c->local_rank % n;
      copy = strdup (visible);
      if (copy == NULL)
        return;
      save = NULL;
      n = 0;
      for (char *t = strtok_r (copy, ",", &save); t != NULL; t = strtok_r (NULL, ",", &save))
        if (n++ == want)
          snprintf (chosen, sizeof chosen, "%s", t);
      free (copy);
    }
  else
    {
      DIR *dir = opendir ("/proc/driver/nvidia/gpus");
      struct dirent *e;
      int n = 0;

      if (dir == NULL)
        return;
      while ((e = readdir (dir)) != NULL)
        if (e->d_name[0] != '.')
          n++;
      closedir (dir);
      if (n == 0)
        return;
      snprintf (chosen, sizeof chosen, "%d", c->local_rank % n);
    }
  if (chosen[0] != '\0')
    setenv ("CUDA_VISIBLE_DEVICES", chosen, 1);
}

/* ------------------------------------------------------------------------- */
/* The frames' command lines. */

typedef struct
{
  const char *argv[MAX_EXTRA];
  char text[MAX_EXTRA][64];
  int n;
} extra_flags;

static void
extra_add (extra_flags *e, const char *word)
{
  snprintf (e->text[e->n], sizeof e->text[e->n], "%s", word);
  e->argv[e->n] = e->text[e->n];
  e->n++;
}

static void
extra_add_number (extra_flags *e, double v)
{
  format_number (v, e->text[e->n], sizeof e->text[e->n]);
  e->argv[e->n] = e->text[e->n];
  e->n++;
}

/* Frame @index's flags. */
static void
frame_extras (const series_config *c, long index, extra_flags *e)
{
  long rest = index / c->inner, inner = index % c->inner;

  e->n = 0;
  /* the sweep point: the last --sweep fastest */
  {
    long k[MAX_SWEEPS];

    for (int s = c->n_sweeps - 1; s >= 0; s--)
      {
        k[s] = rest % c->sweeps[s].count;
        rest /= c->sweeps[s].count;
      }
    for (int s = 0; s < c->n_sweeps; s++)
      {
        extra_add (e, c->sweeps[s].flag);
        extra_add (e, c->sweeps[s].values[k[s]]);
      }
  }
  if (c->rotation_frames > 0)
    {
      extra_add (e, "-phi");
      extra_add_number (e, c->phi_deg + (double) inner * c->osc_deg);
    }
  if (c->stills > 0)
    {
      const nb_param *misset_row = nb_param_find_field (offsetof (nb_params, misset));
      double umat[9], misset[3];

      nb_series_orientation (c->orientation_seed, (uint64_t) inner, NULL, umat);
      nb_series_misset (umat, misset);
      /* the flag of nb_params.misset, and its unit, from the parameter table */
      extra_add (e, misset_row->flag);
      for (int k = 0; k < 3; k++)
        extra_add_number (e, nb_unit_from_field (misset_row->unit, misset[k]));
      if (c->random_mosaic_seed)
        {
          extra_add (e, "-mosaic_seed");
          extra_add_number (e, (double) nb_series_seed (c->orientation_seed, (uint64_t) inner,
                                                        NB_SERIES_STREAM_MOSAIC));
        }
    }
  if (c->noise)
    {
      extra_add (e, "-seed");
      extra_add_number (
          e, (double) nb_series_seed (c->noise_seed, (uint64_t) index, NB_SERIES_STREAM_NOISE));
    }
}

/* The base flags then @e's, as one argv (the words borrowed; free the array). */
static const char **
frame_argv (const series_config *c, const extra_flags *e, int *argc)
{
  const char **argv = malloc (sizeof *argv * (size_t) (c->base_argc + e->n + 1));

  if (argv == NULL)
    return NULL;
  memcpy (argv, c->base, sizeof *argv * (size_t) c->base_argc);
  memcpy (argv + c->base_argc, e->argv, sizeof *argv * (size_t) e->n);
  argv[c->base_argc + e->n] = NULL;
  *argc = c->base_argc + e->n;
  return argv;
}

/* Parses @argv as `nanobragg` does, with seeds that do not depend on the time
 * (they matter only where the frame's flags give them). */
static nb_status
parse_frame (
    const series_config *c, const char **argv, int argc, int warn, nb_params *p, nb_error *err)
{
  nb_parse_options parse = c->parse;
  nb_status st;

  if (!warn)
    parse.warn = NULL;
  nb_params_init (p);
  p->seed = SEED_NOT_GIVEN;
  p->misset_seed = SEED_NOT_GIVEN;
  st = nb_params_parse_argv_with (p, argc, argv, &parse, err);
  if (st == NB_OK)
    st = nb_params_validate (p, err);
  return st;
}

/* ------------------------------------------------------------------------- */
/* Command line. */

/* Only rank 0 reports what every rank finds alike (a bad command line). */
static int print_errors = 1;

static int
usage_error (const char *fmt, ...)
{
  va_list ap;

  if (!print_errors)
    return 2;
  fputs ("nanobragg-series: ", stderr);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  return 2;
}

static int
parse_long (const char *flag, const char *text, long min, long *out)
{
  char *end;
  long v;

  errno = 0;
  v = strtol (text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || v < min)
    return usage_error ("%s '%s': expected a whole number of at least %ld", flag, text, min);
  *out = v;
  return 0;
}

/* Whether @flag takes exactly one number: "-flag 1" parses and "-flag x"
 * does not.  Returns 0, or prints the reason and returns 2. */
static int
check_sweep_flag (const series_config *c, const sweep *s, const char *spec)
{
  const char *one[3] = { "nanobragg", s->flag, s->values[0] };
  const char *word[3] = { "nanobragg", s->flag, "x" };
  nb_params p;
  nb_error err = { 0 };
  nb_status st;

  nb_params_init (&p);
  st = nb_params_parse_argv (&p, 3, one, &err);
  nb_params_clear (&p);
  if (st != NB_OK)
    return usage_error ("--sweep %s: %s does not take one number (%s)", spec, s->flag, err.message);
  nb_params_init (&p);
  st = nb_params_parse_argv (&p, 3, word, &err);
  nb_params_clear (&p);
  if (st == NB_OK)
    return usage_error ("--sweep %s: %s takes a word, not a number", spec, s->flag);
  /* every value, on the scene, as a frame will have it */
  for (long k = 0; k < s->count; k++)
    {
      extra_flags e = { .n = 0 };
      const char **argv;
      int argc;

      extra_add (&e, s->flag);
      extra_add (&e, s->values[k]);
      argv = frame_argv (c, &e, &argc);
      if (argv == NULL)
        return usage_error ("out of memory");
      st = parse_frame (c, argv, argc, 0, &p, &err);
      nb_params_clear (&p);
      free (argv);
      if (st != NB_OK)
        return usage_error ("--sweep %s: value %s: %s", spec, s->values[k], err.message);
    }
  return 0;
}

static int
parse_sweep (series_config *c, const char *spec)
{
  sweep *s;
  const char *whole = spec, *eq = strchr (spec, '=');
  char *end;
  size_t name_len;

  if (c->n_sweeps == MAX_SWEEPS)
    return usage_error ("--sweep %s: at most %d sweeps", spec, MAX_SWEEPS);
  s = &c->sweeps[c->n_sweeps];
  if (eq == NULL || eq == spec)
    return usage_error ("--sweep '%s': expected NAME=START:STOP:COUNT", spec);
  name_len = (size_t) (eq - spec);
  if (spec[0] == '-')
    {
      spec++;
      name_len--;
    }
  if (name_len == 0 || name_len + 2 > sizeof s->flag)
    return usage_error ("--sweep '%s': expected NAME=START:STOP:COUNT", spec);
  s->flag[0] = '-';
  memcpy (s->flag + 1, spec, name_len);
  s->flag[name_len + 1] = '\0';
  errno = 0;
  s->start = strtod (eq + 1, &end);
  if (end == eq + 1 || *end != ':')
    return usage_error ("--sweep %s: START is not a number", spec);
  {
    const char *p = end + 1;

    s->stop = strtod (p, &end);
    if (end == p || *end != ':')
      return usage_error ("--sweep %s: STOP is not a number", spec);
    p = end + 1;
    s->count = strtol (p, &end, 10);
    if (end == p || *end != '\0' || s->count < 1 || s->count > 1000000)
      return usage_error ("--sweep %s: COUNT is not a whole number from 1 to 1000000", spec);
  }
  if (!isfinite (s->start) || !isfinite (s->stop))
    return usage_error ("--sweep %s: START and STOP must be finite", spec);
  s->values = calloc ((size_t) s->count, sizeof *s->values);
  if (s->values == NULL)
    return usage_error ("out of memory");
  c->n_sweeps++;
  for (long k = 0; k < s->count; k++)
    {
      double v = k == s->count - 1 && k > 0
                     ? s->stop
                     : s->start + (double) k * (s->stop - s->start) / (double) (s->count - 1);
      char text[64];

      if (s->count == 1)
        v = s->start;
      format_number (v, text, sizeof text);
      if ((s->values[k] = strdup (text)) == NULL)
        return usage_error ("out of memory");
    }
  return check_sweep_flag (c, s, whole);
}

static void
config_clear (series_config *c)
{
  for (int s = 0; s < c->n_sweeps; s++)
    {
      for (long k = 0; k < c->sweeps[s].count; k++)
        free (c->sweeps[s].values[k]);
      free (c->sweeps[s].values);
    }
  free (c->base);
}

static int
parse_formats (series_config *c, const char *list)
{
  char *copy = strdup (list), *save = NULL;

  if (copy == NULL)
    return usage_error ("out of memory");
  c->formats = 0;
  for (char *t = strtok_r (copy, ",", &save); t != NULL; t = strtok_r (NULL, ",", &save))
    {
      if (strcmp (t, "cbf") == 0)
        c->formats |= FMT_CBF;
      else if (strcmp (t, "nexus") == 0 || strcmp (t, "h5") == 0)
        c->formats |= FMT_NEXUS;
      else if (strcmp (t, "smv") == 0)
        c->formats |= FMT_SMV;
      else if (strcmp (t, "float") == 0)
        c->formats |= FMT_FLOAT;
      else
        {
          usage_error ("--format %s: '%s' is none of cbf, nexus, smv, float", list, t);
          free (copy);
          return 2;
        }
    }
  free (copy);
  if (c->formats == 0)
    return usage_error ("--format '%s': no format", list);
  if ((c->formats & FMT_CBF) && !nb_cbf_available ())
    return usage_error ("--format cbf: this build has no CBFlib (Debian libcbf-dev)");
  if ((c->formats & FMT_NEXUS) && !nb_nexus_available ())
    return usage_error ("--format nexus: this build has no libhdf5 (Debian libhdf5-dev)");
  return 0;
}

/* Bench options, read by main(). */
typedef struct
{
  int bench;
  const char *reference;
  long reference_frames;
  long frames;
  const char *data_dir;
} bench_options;

/* Splits argv into series options and the nanoBragg flags.  Returns 0 or the
 * exit status. */
static int
parse_command_line (series_config *c, bench_options *b, int argc, char **argv)
{
  const char *formats = "cbf";
  int rc;

  c->base = malloc (sizeof *c->base * (size_t) (argc + 1));
  if (c->base == NULL)
    return usage_error ("out of memory");
  c->base[c->base_argc++] = "nanobragg";
  c->prefix = "frame";
  c->threads = -1;
  b->reference_frames = 3;
  b->frames = 100;
  b->data_dir = NB_DATA_DIR;
  /* the series' own options first: --sweep checks its values on the scene */
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      const char *v = i + 1 < argc ? argv[i + 1] : NULL;

#define NEEDS_VALUE                                                                                \
  if (v == NULL)                                                                                   \
    return usage_error ("%s needs a value", a);                                                    \
  i++
      if (strncmp (a, "--", 2) != 0)
        {
          c->base[c->base_argc++] = a;
          continue;
        }
      if (strcmp (a, "--frames") == 0)
        {
          NEEDS_VALUE;
          if ((rc = parse_long (a, v, 1, &c->rotation_frames)) != 0)
            return rc;
        }
      else if (strcmp (a, "--stills") == 0)
        {
          NEEDS_VALUE;
          if ((rc = parse_long (a, v, 1, &c->stills)) != 0)
            return rc;
        }
      else if (strcmp (a, "--orientation-seed") == 0)
        {
          char *end;

          NEEDS_VALUE;
          errno = 0;
          c->orientation_seed = strtoull (v, &end, 10);
          if (end == v || *end != '\0' || errno != 0 || v[0] == '-')
            return usage_error ("--orientation-seed '%s': expected a whole number 0 ... 2^64-1", v);
          c->orientation_seed_given = 1;
        }
      else if (strcmp (a, "--random-mosaic-seed") == 0)
        c->random_mosaic_seed = 1;
      else if (strcmp (a, "--sweep") == 0)
        {
          NEEDS_VALUE;
          /* checked once the scene is known */
        }
      else if (strcmp (a, "--out") == 0)
        {
          NEEDS_VALUE;
          c->prefix = v;
        }
      else if (strcmp (a, "--format") == 0)
        {
          NEEDS_VALUE;
          formats = v;
        }
      else if (strcmp (a, "--resume") == 0)
        c->resume = 1;
      else if (strcmp (a, "--quiet") == 0)
        c->quiet = 1;
      else if (strcmp (a, "--threads") == 0)
        {
          long t;

          NEEDS_VALUE;
          if ((rc = parse_long (a, v, 1, &t)) != 0)
            return rc;
          c->threads = (int) t;
        }
      else if (strcmp (a, "--bench") == 0)
        b->bench = 1;
      else if (strcmp (a, "--reference") == 0)
        {
          NEEDS_VALUE;
          b->reference = v;
        }
      else if (strcmp (a, "--reference-frames") == 0)
        {
          NEEDS_VALUE;
          if ((rc = parse_long (a, v, 0, &b->reference_frames)) != 0)
            return rc;
        }
      else if (strcmp (a, "--bench-frames") == 0)
        {
          NEEDS_VALUE;
          if ((rc = parse_long (a, v, 1, &b->frames)) != 0)
            return rc;
        }
      else if (strcmp (a, "--data") == 0)
        {
          NEEDS_VALUE;
          b->data_dir = v;
        }
      else
        return usage_error ("unknown option '%s' (see --help)", a);
#undef NEEDS_VALUE
    }
  c->base[c->base_argc] = NULL;
  if ((rc = parse_formats (c, formats)) != 0)
    return rc;
  return 0;
}

/* Everything that needs the scene: the base flags parsed, the rotation's
 * start and step, the sweeps, the noise seed.  Returns 0 or the exit status. */
static int
configure_series (series_config *c, int argc, char **argv, int warn)
{
  nb_params p;
  nb_error err = { 0 };
  nb_status st;
  int rc;

  st = parse_frame (c, c->base, c->base_argc, warn, &p, &err);
  if (st != NB_OK)
    {
      if (print_errors)
        fprintf (stderr, "nanobragg-series: %s\n", err.message);
      return st == NB_ERR_USAGE || st == NB_ERR_INVALID ? 2 : 1;
    }
  /* nanoBragg's output flags would name one file for every frame */
  {
    nb_params d;
    const char *given = NULL;

    nb_params_init (&d);
    if (strcmp (p.floatfile, d.floatfile) != 0)
      given = "-floatfile";
    else if (strcmp (p.intfile, d.intfile) != 0)
      given = "-intfile";
    else if (strcmp (p.noisefile, d.noisefile) != 0)
      given = "-noisefile";
    else if (strcmp (p.pgmfile, d.pgmfile) != 0)
      given = "-pgmfile";
    else if (p.pngfile != NULL)
      given = "-pngfile";
    nb_params_clear (&d);
    if (given != NULL)
      {
        nb_params_clear (&p);
        return usage_error ("%s: the series names its files itself (--out PREFIX, --format)",
                            given);
      }
  }
  if (p.misset_random && p.misset_seed == SEED_NOT_GIVEN)
    {
      nb_params_clear (&p);
      return usage_error ("-misset random needs -misset_seed in a series (each frame, on any "
                          "rank, must draw the same orientation)");
    }
  c->noise = p.calculate_noise && (c->formats & (FMT_CBF | FMT_NEXUS | FMT_SMV));
  c->noise_seed = p.seed == SEED_NOT_GIVEN ? 0 : (uint64_t) (-p.seed);

  if (c->rotation_frames > 0 && c->stills > 0)
    rc = usage_error ("--frames and --stills: a series is a rotation or stills, not both");
  else if (c->stills > 0 && !c->orientation_seed_given)
    rc = usage_error ("--stills needs --orientation-seed S (the orientations are drawn from it)");
  else if (c->stills == 0 && (c->orientation_seed_given || c->random_mosaic_seed))
    rc = usage_error ("--orientation-seed and --random-mosaic-seed belong to --stills");
  else if (c->rotation_frames > 0 && !(p.osc > 0))
    rc = usage_error ("--frames needs -osc DEG > 0: the rotation of each frame");
  else
    rc = 0;
  if (rc == 0 && c->rotation_frames > 0)
    {
      /* the values as typed: the shortest text that gives the parsed radians */
      for (int digits = 1; digits <= 17; digits++)
        {
          snprintf (c->phi_text, sizeof c->phi_text, "%.*g", digits, p.phi0 * RTD);
          if (strtod (c->phi_text, NULL) / RTD == p.phi0)
            break;
        }
      for (int digits = 1; digits <= 17; digits++)
        {
          snprintf (c->osc_text, sizeof c->osc_text, "%.*g", digits, p.osc * RTD);
          if (strtod (c->osc_text, NULL) / RTD == p.osc)
            break;
        }
      c->phi_deg = strtod (c->phi_text, NULL);
      c->osc_deg = strtod (c->osc_text, NULL);
    }
  nb_params_clear (&p);
  if (rc != 0)
    return rc;

  c->inner = c->rotation_frames > 0 ? c->rotation_frames : c->stills > 0 ? c->stills : 1;
  for (int i = 1; i < argc && rc == 0; i++)
    if (strcmp (argv[i], "--sweep") == 0 && i + 1 < argc)
      rc = parse_sweep (c, argv[++i]);
  if (rc != 0)
    return rc;
  if (c->rotation_frames == 0 && c->stills == 0 && c->n_sweeps == 0)
    return usage_error ("no series: give --frames N, --stills N or --sweep NAME=START:STOP:COUNT");
  c->frames = c->inner;
  for (int s = 0; s < c->n_sweeps; s++)
    {
      if (c->frames > LONG_MAX / 1000000 / c->sweeps[s].count)
        return usage_error ("the series has too many frames");
      c->frames *= c->sweeps[s].count;
    }
  if (c->frames > 99999999)
    return usage_error ("the series has %ld frames; at most 99999999", c->frames);

  /* the series' identity: the scene and what varies */
  {
    const char **words = malloc (sizeof *words * (size_t) (c->base_argc + 2 * MAX_SWEEPS + 8));
    char buf[4][64];
    int n = 0;

    if (words == NULL)
      return usage_error ("out of memory");
    for (int i = 0; i < c->base_argc; i++)
      words[n++] = c->base[i];
    snprintf (buf[0], sizeof buf[0], "frames=%ld", c->rotation_frames);
    snprintf (buf[1], sizeof buf[1], "stills=%ld", c->stills);
    snprintf (buf[2], sizeof buf[2], "seed=%llu mosaic=%d",
              (unsigned long long) c->orientation_seed, c->random_mosaic_seed);
    snprintf (buf[3], sizeof buf[3], "noise=%d", c->noise);
    for (int k = 0; k < 4; k++)
      words[n++] = buf[k];
    for (int i = 1; i < argc; i++)
      if (strcmp (argv[i], "--sweep") == 0 && i + 1 < argc)
        words[n++] = argv[++i];
    fingerprint_words (words, n, c->series_fingerprint);
    free (words);
  }
  return 0;
}

/* ------------------------------------------------------------------------- */
/* Files. */

static char *
frame_path (const series_config *c, long index, const char *ext)
{
  size_t n = strlen (c->prefix) + 32;
  char *s = malloc (n);

  if (s != NULL)
    snprintf (s, n, "%s_%06ld.%s", c->prefix, index + 1, ext);
  return s;
}

static char *
series_path (const series_config *c, const char *suffix)
{
  size_t n = strlen (c->prefix) + strlen (suffix) + 2;
  char *s = malloc (n);

  if (s != NULL)
    snprintf (s, n, "%s_%s", c->prefix, suffix);
  return s;
}

static const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');

  return slash != NULL ? slash + 1 : path;
}

/* The output folder must exist (nothing is created behind the user's back). */
static int
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
static nb_status
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

static const char *
series_kind (const series_config *c)
{
  return c->rotation_frames > 0 ? "rotation" : c->stills > 0 ? "stills" : "sweep";
}

/* PREFIX_series.json: what the series is, frame by frame. */
static nb_status
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
static int
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
static nb_status
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

typedef struct
{
  char *path[4]; /* cbf, nexus, smv, float: NULL where not written */
} frame_files;

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

/* A frame on its way to its files: the main thread renders it and converts
 * it to counts (both need the plan), the writer thread encodes and writes it
 * while the main thread renders the next one; the main thread then reports
 * it (MPI stays on the main thread). */
typedef enum
{
  SLOT_FREE = 0,
  SLOT_POSTED, /* for the writer */
  SLOT_DONE,   /* written, skipped or failed: to be reported */
} slot_state;

typedef struct
{
  slot_state state;
  long seq; /* posting order */
  long index;
  int skipped;
  double started;
  float *image;
  uint16_t *counts;
  int32_t *counts32;
  size_t capacity; /* pixels */
  nb_plan_info info;
  nb_frame_geometry geom;
  char fingerprint[17];
  char *command;
  frame_files files;
  nb_status status;
  nb_error err;
} frame_slot;

typedef struct
{
  nb_plan *plan;
  frame_slot slots[2];
  pthread_t thread;
  int thread_started;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int quit;
  long seq;
} worker;

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

static int
worker_start (worker *w)
{
  pthread_mutex_init (&w->lock, NULL);
  pthread_cond_init (&w->cond, NULL);
  if (pthread_create (&w->thread, NULL, writer_main, w) != 0)
    return -1;
  w->thread_started = 1;
  return 0;
}

static void
worker_post (worker *w, frame_slot *s)
{
  pthread_mutex_lock (&w->lock);
  s->state = SLOT_POSTED;
  s->seq = w->seq++;
  pthread_cond_broadcast (&w->cond);
  pthread_mutex_unlock (&w->lock);
}

/* Waits until the writer is done with @s. */
static void
worker_wait (worker *w, frame_slot *s)
{
  if (!w->thread_started)
    return;
  pthread_mutex_lock (&w->lock);
  while (s->state == SLOT_POSTED)
    pthread_cond_wait (&w->cond, &w->lock);
  pthread_mutex_unlock (&w->lock);
}

static void
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
static nb_status
render_slot (worker *w, const series_config *c, long index, frame_slot *s, nb_error *err)
{
  extra_flags e;
  const char **argv;
  int argc = 0;
  nb_exec_options exec = { 0 };
  size_t npix;
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
  for (size_t i = 0; i < npix; i++)
    if (!isfinite (s->image[i]))
      return nb_error_set (err, NB_ERR_INVALID,
                           "pixel (fast %zu, slow %zu) is %g: nothing written; check the flags "
                           "that scale intensities",
                           i % (size_t) s->info.fpixels, i / (size_t) s->info.fpixels,
                           (double) s->image[i]);

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

/* ------------------------------------------------------------------------- */
/* The run. */

static void
print_progress (const series_config *c, long done, double elapsed, long written, int final)
{
  double rate = elapsed > 0 ? (double) written / elapsed : 0.0;
  double left = rate > 0 ? (double) (c->frames - done) / rate : 0.0;

  fprintf (stderr, "\rframes %ld/%ld, %.2f frames/s, %.0f s left   %s", done, c->frames, rate, left,
           final ? "\n" : "");
  fflush (stderr);
}

/* The master file of a rotation or stills (all frames share the detector). */
static nb_status
write_master (const series_config *c, worker *w, nb_error *err)
{
  char *path = series_path (c, "master.h5");
  double *omega = malloc (sizeof *omega * (size_t) c->frames);
  char **names = calloc ((size_t) c->frames, sizeof *names);
  nb_status st = NB_OK;

  if (path == NULL || omega == NULL || names == NULL)
    st = nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  if (st == NB_OK)
    {
      extra_flags e;
      const char **argv;
      int argc;

      frame_extras (c, 0, &e);
      if ((argv = frame_argv (c, &e, &argc)) == NULL)
        st = nb_error_set (err, NB_ERR_NOMEM, "out of memory");
      else
        st = plan_frame (&w->plan, c, argv, argc, err);
      free (argv);
    }
  for (long i = 0; i < c->frames && st == NB_OK; i++)
    {
      char *full = frame_path (c, i, "h5");

      names[i] = full != NULL ? strdup (base_name (full)) : NULL;
      free (full);
      if (names[i] == NULL)
        st = nb_error_set (err, NB_ERR_NOMEM, "out of memory");
      if (c->rotation_frames > 0)
        {
          /* as the frame's -phi gives it */
          char text[64];

          format_number (c->phi_deg + (double) (i % c->inner) * c->osc_deg, text, sizeof text);
          omega[i] = strtod (text, NULL) / RTD;
        }
      else
        omega[i] = nb_plan_get_info (w->plan)->phi0;
    }
  if (st == NB_OK)
    {
      nb_frame_geometry g;

      nb_frame_geometry_from_plan (nb_plan_get_info (w->plan), nb_plan_get_params (w->plan),
                                   COUNT_LIMIT, &g);
      st = nb_write_nexus_master (path, &g, (int) c->frames, omega, (const char *const *) names,
                                  err);
    }
  for (long i = 0; names != NULL && i < c->frames; i++)
    free (names[i]);
  free (names);
  free (omega);
  free (path);
  return st;
}

static void
print_summary (FILE *f, const series_config *c, const rank_stats *all, double seconds)
{
  long written = 0, skipped = 0;

  for (int r = 0; r < c->ranks; r++)
    {
      written += all[r].written;
      skipped += all[r].skipped;
    }
  fprintf (f,
           "{\"series\": \"%s\", \"frames\": %ld, \"written\": %ld, \"skipped\": %ld, "
           "\"seconds\": %.6f, \"frames_per_second\": %.6g, \"ranks\": [",
           series_kind (c), c->frames, written, skipped, seconds,
           seconds > 0 ? (double) written / seconds : 0.0);
  for (int r = 0; r < c->ranks; r++)
    fprintf (f,
             "%s{\"rank\": %d, \"frames\": %ld, \"skipped\": %ld, \"seconds\": %.6f, "
             "\"frames_per_second\": %.6g}",
             r ? ", " : "", r, all[r].written, all[r].skipped, all[r].seconds,
             all[r].seconds > 0 ? (double) all[r].written / all[r].seconds : 0.0);
  fprintf (f, "]}\n");
}

/* Counts a frame the writer finished (or --resume skipped) and says so. */
static void
report_frame (const series_config *c,
              distributor *d,
              const frame_slot *s,
              rank_stats *mine,
              double t0,
              int tty)
{
  long done;

  if (s->skipped)
    mine->skipped++;
  else
    mine->written++;
  done = (long) dist_fetch_add (d, 1, 1) + 1;
  if (c->quiet)
    return;
  if (tty && c->rank == 0)
    print_progress (c, done, now_s () - t0, done, 0);
  else if (!tty)
    fprintf (stderr, "frame %06ld rank %d: %s (%.3f s)\n", s->index + 1, c->rank,
             s->skipped ? "complete, skipped" : "written", now_s () - s->started);
}

/* Runs the configured series; rank 0 fills *@seconds and *@written.
 * Returns the exit status. */
static int
run_series (series_config *c, distributor *d, double *seconds_out, long *written_out)
{
  worker w = { 0 };
  rank_stats mine = { 0 }, *all = NULL;
  nb_error err = { 0 };
  int rc = 0, tty = isatty (2) && !c->quiet;
  double t0;
  char *series_file = series_path (c, "series.json");

  if (series_file == NULL)
    {
      fputs ("nanobragg-series: out of memory\n", stderr);
      return 1;
    }
  if (c->threads <= 0 && getenv ("OMP_NUM_THREADS") == NULL && c->local_ranks > 1)
    {
      long cpus = sysconf (_SC_NPROCESSORS_ONLN);

      c->threads = cpus > c->local_ranks ? (int) (cpus / c->local_ranks) : 1;
    }
  choose_gpu (c);

  /* rank 0: the series file (checked on --resume) and the master file */
  if (c->rank == 0)
    {
      int exists = 0;

      if (c->resume && !series_file_matches (c, series_file, &exists) && exists)
        {
          fprintf (stderr,
                   "nanobragg-series: --resume: %s describes another series (other flags or "
                   "series options): remove it or give another --out\n",
                   series_file);
          rc = 2;
        }
      else if (!c->resume || !exists)
        {
          if (write_series_file (c, series_file, &err) != NB_OK)
            {
              fprintf (stderr, "nanobragg-series: %s\n", err.message);
              rc = 1;
            }
        }
      if (rc == 0 && (c->formats & FMT_NEXUS) && c->n_sweeps == 0 &&
          write_master (c, &w, &err) != NB_OK)
        {
          fprintf (stderr, "nanobragg-series: %s\n", err.message);
          rc = 1;
        }
    }
  rc = dist_broadcast_int (d, rc);
  free (series_file);
  if (rc != 0)
    {
      worker_clear (&w);
      return rc;
    }

  {
    long k = 0;

    if (worker_start (&w) != 0)
      {
        fputs ("nanobragg-series: cannot start the writer thread\n", stderr);
        dist_abort (d, 1);
      }
    dist_open_counter (d);
    t0 = now_s ();
    /* two slots: one renders while the writer writes the other */
    for (int draining = 0, left = 2;; k++)
      {
        frame_slot *s = &w.slots[k & 1];
        long index;
        nb_status st;

        worker_wait (&w, s);
        if (s->state == SLOT_DONE)
          {
            if (s->status == NB_OK)
              report_frame (c, d, s, &mine, t0, tty);
            else if (s->status != NB_ERR_CANCELLED)
              {
                fprintf (stderr, "nanobragg-series: frame %ld: %s\n", s->index + 1, s->err.message);
                /* the writer finishes (or drops) its frame first: no temporary file stays */
                worker_clear (&w);
                dist_abort (d, 1);
              }
            s->state = SLOT_FREE;
          }
        if (draining)
          {
            if (--left == 0)
              break;
            continue;
          }
        if (cancelled () || (index = (long) dist_fetch_add (d, 0, 1)) >= c->frames)
          {
            draining = 1;
            continue;
          }
        s->started = now_s ();
        st = render_slot (&w, c, index, s, &err);
        if (st == NB_ERR_CANCELLED)
          {
            draining = 1;
            continue;
          }
        if (st != NB_OK)
          {
            fprintf (stderr, "nanobragg-series: frame %ld: %s\n", index + 1, err.message);
            worker_clear (&w);
            dist_abort (d, 1);
          }
        if (s->skipped)
          s->state = SLOT_DONE;
        else
          worker_post (&w, s);
      }
  }
  mine.seconds = now_s () - t0;
  worker_clear (&w);
  if (cancelled ())
    {
      if (tty)
        fputc ('\n', stderr);
      fprintf (stderr,
               "nanobragg-series: interrupted%s: every file written is complete (--resume "
               "goes on)\n",
               c->ranks > 1 ? " (this rank)" : "");
      dist_abort (d, 130);
    }
  /* everyone finished: the clock of the whole series stops at the last rank */
  dist_close_counter (d);
  all = calloc ((size_t) c->ranks, sizeof *all);
  if (all == NULL)
    {
      fputs ("nanobragg-series: out of memory\n", stderr);
      dist_abort (d, 1);
    }
  dist_gather (d, &mine, all, c->ranks);
  if (c->rank == 0)
    {
      double seconds = 0;
      long written = 0, done = 0;
      char *text = NULL;
      size_t size = 0;
      FILE *f;
      char *path = series_path (c, "summary.json");

      for (int r = 0; r < c->ranks; r++)
        {
          seconds = all[r].seconds > seconds ? all[r].seconds : seconds;
          written += all[r].written;
          done += all[r].written + all[r].skipped;
        }
      if (tty)
        print_progress (c, done, seconds, written, 1);
      print_summary (stdout, c, all, seconds);
      fflush (stdout);
      f = open_memstream (&text, &size);
      if (f != NULL && path != NULL)
        {
          print_summary (f, c, all, seconds);
          if (write_memstream (f, &text, &size, path, &err) != NB_OK)
            {
              fprintf (stderr, "nanobragg-series: %s\n", err.message);
              rc = 1;
            }
        }
      else
        {
          if (f != NULL)
            fclose (f);
          free (text);
          fputs ("nanobragg-series: out of memory\n", stderr);
          rc = 1;
        }
      free (path);
      if (seconds_out != NULL)
        *seconds_out = seconds;
      if (written_out != NULL)
        *written_out = written;
    }
  free (all);
  return rc;
}

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

static int
run_bench (series_config *c, distributor *d, const bench_options *b, int argc, char **argv)
{
  static char scene_text[] = "nanobragg " BENCH_SCENE " -precision single";
  const char *scene[BENCH_SCENE_WORDS];
  size_t n_scene = 0;
  char hkl[PATH_MAX], prefix[PATH_MAX], dir[] = "/tmp/nanobragg-series-bench.XXXXXX";
  const char **base;
  int n = 0, rc, threads;
  double seconds = 0, ref_seconds = 0, cpu, ref_cpu;
  long written = 0;

  snprintf (hkl, sizeof hkl, "%s/1hpv_p1.hkl", b->data_dir);
  if (access (hkl, R_OK) != 0)
    return usage_error ("--bench: %s: %s (give --data DIR)", hkl, strerror (errno));
  if (b->reference != NULL && access (b->reference, X_OK) != 0)
    return usage_error ("--reference %s: %s", b->reference, strerror (errno));
  if (c->base_argc > 1 || c->rotation_frames || c->stills || c->n_sweeps)
    return usage_error ("--bench runs its own scene: give no nanoBragg flags or series options");
  /* the scene's words, split in place (c->base keeps them: run_bench runs once) */
  for (char *w = strtok (scene_text, " "); w != NULL && n_scene < BENCH_SCENE_WORDS;
       w = strtok (NULL, " "))
    scene[n_scene++] = w;
  base = malloc (sizeof *base * (n_scene + 3));
  if (base == NULL)
    return usage_error ("out of memory");
  base[n++] = scene[0];
  base[n++] = "-hkl";
  base[n++] = hkl;
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
  if (c->rank == 0 && mkdtemp (dir) == NULL)
    return usage_error ("--bench: cannot make a folder in /tmp: %s", strerror (errno));
#ifdef NB_HAVE_MPI
  if (d->active)
    MPI_Bcast (dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
#endif
  snprintf (prefix, sizeof prefix, "%s/frame", dir);
  c->prefix = prefix;
  if ((rc = configure_series (c, argc, argv, c->rank == 0)) != 0)
    return rc;
  threads = c->threads > 0 ? c->threads : 0;
  cpu = cpu_seconds (RUSAGE_SELF);
  rc = run_series (c, d, &seconds, &written);
  cpu = cpu_seconds (RUSAGE_SELF) - cpu;
  if (c->rank == 0)
    {
      /* the frames and series files go: the bench keeps nothing */
      for (long i = 0; i < c->frames; i++)
        {
          char *p = frame_path (c, i, "bin");

          if (p != NULL)
            unlink (p);
          free (p);
        }
      {
        char *p1 = series_path (c, "series.json"), *p2 = series_path (c, "summary.json");

        if (p1 != NULL)
          unlink (p1);
        if (p2 != NULL)
          unlink (p2);
        free (p1);
        free (p2);
      }
      rmdir (dir);
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
        if (run_reference_loop (b->reference, hkl, c, k, threads, &ref_seconds) != 0)
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

int
main (int argc, char **argv)
{
  series_config c = { 0 };
  bench_options b = { 0 };
  distributor d;
  struct sigaction sa;
  int rc;

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
      {
        fputs (usage_text, stdout);
        return 0;
      }
  dist_start (&d, &c, &argc, &argv);
  print_errors = c.rank == 0;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);

  c.parse.warn = warn_line;
  {
    const char *v = getenv ("NANOBRAGG_LENIENT");

    if (v != NULL && strcmp (v, "1") == 0)
      c.parse.lenient = 1;
  }
  rc = parse_command_line (&c, &b, argc, argv);
  if (rc == 0 && b.bench)
    rc = run_bench (&c, &d, &b, argc, argv);
  else if (rc == 0)
    {
      if (argc < 2)
        rc = usage_error ("no arguments (see --help)");
      if (rc == 0)
        rc = check_output_folder (&c);
      if (rc == 0)
        rc = configure_series (&c, argc, argv, c.rank == 0);
      if (rc == 0)
        rc = run_series (&c, &d, NULL, NULL);
    }
  config_clear (&c);
  if (fflush (stdout) != 0 && rc == 0)
    {
      fprintf (stderr, "nanobragg-series: cannot write standard output: %s\n", strerror (errno));
      rc = 1;
    }
  dist_finish (&d);
  return rc;
}
