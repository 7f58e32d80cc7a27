/* nanobragg-series-private.h: what the files of nanobragg-series share:
 * nanobragg-series.c (the command line, the frames' flags, the run, main),
 * series-mpi.c (MPI, or one process), series-output.c (the files, one
 * frame, the writer thread), series-files.c (the series file, the prefix's
 * lock, --resume's checks of a frame's files) and series-bench.c (--bench). */
#pragma once

#include "nanobragg.h"
#include "nb-fingerprint.h"
#include "nb-frame-write.h"

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

/* Raised by SIGINT and SIGTERM; the plan's cancel flag. */
extern volatile int cancel_requested;

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
  int quit;
  long seq;
} worker;

/* ---- nanobragg-series.c ---- */

int cancelled (void);

double now_s (void);

/* The shortest decimal text that reads back as @v (so typed values stay as
 * typed and generated ones lose nothing). */
void format_number (double v, char *out, size_t n);

/* Frame @index's flags. */
void frame_extras (const series_config *c, long index, extra_flags *e);

/* The base flags then @e's, as one argv (the words borrowed; free the array). */
const char **frame_argv (const series_config *c, const extra_flags *e, int *argc);

/* Parses @argv as `nanobragg` does, with seeds that do not depend on the time
 * (they matter only where the frame's flags give them). */
nb_status parse_frame (
    const series_config *c, const char **argv, int argc, int warn, nb_params *p, nb_error *err);

int usage_error (const char *fmt, ...);

/* Everything that needs the scene: the base flags parsed, the rotation's
 * start and step, the sweeps, the noise seed.  Returns 0 or the exit status. */
int configure_series (series_config *c, int argc, char **argv, int warn);

/* Runs the configured series; rank 0 fills *@seconds and *@written.
 * Returns the exit status. */
int run_series (series_config *c, distributor *d, double *seconds_out, long *written_out);

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

char *frame_path (const series_config *c, long index, const char *ext);

char *series_path (const series_config *c, const char *suffix);

const char *base_name (const char *path);

/* The output folder must exist (nothing is created behind the user's back). */
int check_output_folder (const series_config *c);

/* Writes the text of memstream @f (closed here) to @path atomically. */
nb_status write_memstream (FILE *f, char **text, size_t *size, const char *path, nb_error *err);

const char *series_kind (const series_config *c);

/* @s as a JSON string, quoted. */
void json_string (FILE *f, const char *s);

/* Frame @index's flags as one line, a JSON array of strings. */
void print_frame_flags (FILE *f, const series_config *c, long index);

/* Leftovers of a run killed while writing @path (SIGKILL): the atomic
 * writer's ".NAME.XXXXXX" files beside it. */
void remove_stale_temporaries (const char *path);

/* The plan at the parameters of the frame whose command line is @argv
 * (created on the first frame). */
nb_status
plan_frame (nb_plan **plan, const series_config *c, const char **argv, int argc, nb_error *err);

int worker_start (worker *w);

void worker_post (worker *w, frame_slot *s);

/* Waits until the writer is done with @s. */
void worker_wait (worker *w, frame_slot *s);

void worker_clear (worker *w);

/* Renders frame @index into @s (the main thread); s->skipped when --resume
 * found it complete.  Errors of the plan, the render or a non-finite pixel. */
nb_status render_slot (worker *w, const series_config *c, long index, frame_slot *s, nb_error *err);

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

int run_bench (series_config *c, distributor *d, const bench_options *b, int argc, char **argv);
