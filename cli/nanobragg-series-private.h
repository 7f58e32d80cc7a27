/* nanobragg-series-private.h: what the files of nanobragg-series share:
 * nanobragg-series.c (the command line, the frames' flags, the run, main),
 * series-mpi.c (MPI, or one process), series-output.c (one frame on its way
 * to its files, the writer thread), series-files.c (the series file, the
 * prefix's lock, --resume's checks of a frame's files), series-bench.c
 * (--bench) and series-names.c (the files' names, the shared texts).  Calls
 * go one way: nanobragg-series.c calls the others, which get what they need
 * as arguments (the configuration, the frame's command line, the cancel
 * flag); series-output.c uses series-files.c; all use series-names.c. */
#pragma once

#include "nanobragg.h"
#include "nb-fingerprint.h"
#include "nb-frame-write.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

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
/* what a process holds per pixel beyond the plan's own: two frames in flight
 * (float image, 16-bit and 32-bit counts: 2 x 10 bytes) and one frame's file
 * being encoded or checked (its bytes, at most about 8 per pixel compressed,
 * and libhdf5's copy of them) */
#define SERIES_BYTES_PER_PIXEL 36.0
/* a NeXus master file holds a link and a virtual-dataset mapping per frame
 * (libhdf5 took 70 us and 15 kB of memory per frame building one): not
 * written for longer series */
#define MASTER_MAX_FRAMES 10000L

typedef enum
{
  FMT_CBF = 1,
  FMT_NEXUS = 2,
  FMT_SMV = 4,
  FMT_FLOAT = 8,
} format_bits;

typedef struct
{
  const char *spec; /* as given, "distance=90:110:3" (borrowed) */
  char flag[64];    /* "-distance" */
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
  int list_frames; /* --list-frames: print every frame's flags, write nothing */
  /* the run */
  int rank, ranks, local_rank, local_ranks;
  int lock_fd; /* rank 0: PREFIX_series.lock, locked for the run's life; -1 */
} series_config;

typedef struct
{
  long written, skipped;
  long rewritten; /* of the written: found with a wrong file (--resume) */
  double seconds;
} rank_stats;

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

typedef struct
{
  const char *argv[MAX_EXTRA];
  char text[MAX_EXTRA][64];
  int n;
} extra_flags;

/* Bench options, read by main(). */
typedef struct
{
  int bench;
  const char *reference;
  long reference_frames;
  long frames;
  const char *data_dir;
} bench_options;

/* A frame's files, in this order; NULL where not written. */
enum
{
  FILE_CBF,
  FILE_NEXUS,
  FILE_SMV,
  FILE_FLOAT,
  FILE_FINGERPRINTS, /* PREFIX_000001.fingerprint, of the SMV and float files */
  N_FRAME_FILES
};

typedef struct
{
  char *path[N_FRAME_FILES];
} frame_files;

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
  char rewritten[NB_ERROR_MESSAGE_MAX]; /* why --resume made it again; "" */
  double started;
  float *image;
  uint16_t *counts;
  int32_t *counts32;
  size_t capacity; /* pixels */
  nb_plan_info info;
  nb_frame_geometry geom;
  double adc;    /* -adc: the counts' offset, the SMV header's ADC_OFFSET */
  nb_sha256 key; /* the fingerprints' start: the frame's command line */
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
  volatile int *cancel; /* raised to stop: the caller's flag (borrowed) */
  int quit;
  long seq;
} worker;

/* ---- series-mpi.c ---- */

void dist_start (distributor *d, series_config *c, int *argc, char ***argv);

/* The counters start at 0 on every rank's view once this returns. */
void dist_open_counter (distributor *d);

long long dist_fetch_add (distributor *d, int which, long long add);

void dist_close_counter (distributor *d);

/* Rank 0's @status to every rank (a decision only rank 0 can make). */
int dist_broadcast_int (distributor *d, int value);

/* Ends the job at once from any rank: the others are told to stop. */
void dist_abort (distributor *d, int status);

void dist_gather (distributor *d, const rank_stats *mine, rank_stats *all, int ranks);

void dist_finish (distributor *d);

/* Each rank of a node takes GPU local_rank % devices: the devices are those
 * CUDA_VISIBLE_DEVICES lists (a scheduler's share), else those the NVIDIA
 * driver shows; CUDA_VISIBLE_DEVICES is narrowed to that one before the
 * engine's first CUDA call. */
void choose_gpu (const series_config *c);

/* ---- series-output.c ---- */

/* The output folder must exist (nothing is created behind the user's back). */
int check_output_folder (const series_config *c);

/* Writes the text of memstream @f (closed here) to @path atomically. */
nb_status write_memstream (FILE *f, char **text, size_t *size, const char *path, nb_error *err);

/* Leftovers of a run killed while writing @path (SIGKILL): the atomic
 * writer's ".NAME.XXXXXX" files beside it. */
void remove_stale_temporaries (const char *path);

/* The plan at the frame's parameters @p (created on the first frame). */
nb_status plan_frame (nb_plan **plan, const nb_params *p, nb_error *err);

/* Starts the writer thread; it stops writing a frame when *w->cancel is
 * raised (w->cancel set by the caller first, never NULL). */
int worker_start (worker *w);

void worker_post (worker *w, frame_slot *s);

/* Waits until the writer is done with @s. */
void worker_wait (worker *w, frame_slot *s);

void worker_clear (worker *w);

/* Renders frame @index, whose command line is @argv (@argc words, borrowed)
 * and its parameters @p, into @s (the main thread); s->skipped when --resume
 * found it complete.  Errors of the plan, the render or a non-finite pixel;
 * NB_ERR_CANCELLED once *w->cancel is raised. */
nb_status render_slot (worker *w,
                       const series_config *c,
                       long index,
                       const char **argv,
                       int argc,
                       const nb_params *p,
                       frame_slot *s,
                       nb_error *err);

/* ---- series-files.c ---- */

/* PREFIX_series.json: the series by rule (rank 0, before any frame): on
 * --resume an existing one must be this series' (else a message naming the
 * difference, exit 2).  Returns 0 or the exit status, the message printed. */
int prepare_series_file (const series_config *c, const char *path);

/* Takes the advisory lock of PREFIX_series.lock for the run (rank 0): a
 * second run on the prefix is refused at once, naming the process that holds
 * it.  Returns 0 or the exit status, the message printed. */
int lock_prefix (series_config *c);

void unlock_prefix (series_config *c);

/* --resume: whether frame @s's files (its paths, info and key set) are all
 * complete and its own.  1: complete; 0: to be written, with the reason in
 * s->rewritten when a file of it was there ("" when none was). */
int frame_complete (frame_slot *s);

/* The text of a frame's fingerprints file (malloc'd, NULL when out of
 * memory): a first line, then "NAME DIGITS" for each of the files
 * s->files.path[FILE_SMV], [FILE_FLOAT] that is written, @digits[k] the
 * fingerprint of path[k]. */
char *fingerprints_text (const frame_slot *s, char digits[N_FRAME_FILES][65]);

/* ---- series-bench.c ---- */

/* What --bench keeps between setting up its series and reporting it. */
typedef struct
{
  char hkl[PATH_MAX];
  char prefix[PATH_MAX];
  char dir[64]; /* rank 0's temporary folder, every rank's after the broadcast */
  double cpu;   /* this process' CPU seconds when the series started (bench_start) */
} bench_run;

/* Sets @c up as --bench's rotation of the 1HPV scene, its frames into a
 * temporary folder (@r's); the caller then configures the series, calls
 * bench_start(), runs the series and calls bench_finish().  Returns 0 or the
 * exit status, the message printed. */
int bench_prepare (series_config *c, distributor *d, const bench_options *b, bench_run *r);

/* Notes the CPU time at the series' start. */
void bench_start (bench_run *r);

/* Removes the bench's files and, on rank 0, prints the run's figures
 * (@rc: the series' exit status; @seconds, @written: rank 0's) and times the
 * reference loop.  Returns the exit status. */
int bench_finish (const series_config *c,
                  const bench_options *b,
                  bench_run *r,
                  int rc,
                  double seconds,
                  long written);

/* ---- series-names.c ---- */

/* Whether usage_error() prints (rank 0 only: every rank finds a bad command
 * line alike); 1 at the start. */
extern int print_errors;

char *frame_path (const series_config *c, long index, const char *ext);

char *series_path (const series_config *c, const char *suffix);

const char *base_name (const char *path);

const char *series_kind (const series_config *c);

/* @s as a JSON string, quoted. */
void json_string (FILE *f, const char *s);

double now_s (void);

/* The shortest decimal text that reads back as @v (so typed values stay as
 * typed and generated ones lose nothing). */
void format_number (double v, char *out, size_t n);

/* "nanobragg-series: " and the message on standard error when print_errors;
 * returns 2 (the usage exit status). */
int usage_error (const char *fmt, ...);
