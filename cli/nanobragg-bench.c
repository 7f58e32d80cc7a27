/* nanobragg-bench: the engine's times next to the reference nanoBragg's, as ratios.
 *
 * Machines here are shared and noisy, so absolute times drift between runs;
 * ratios of runs made side by side do not.  Every round therefore alternates
 * the reference process, the engine in one precision, our CLI process, the
 * engine in the other precision, and each figure is the median over rounds.
 *
 * The engine is timed in process (cold: parse + plan + first image; warm: the
 * same plan again; update: a 0.1 degree misset change, update + image); the
 * reference and the CLI are timed as whole processes, each in a fresh empty
 * folder so that no Fdump.bin or output of an earlier run is seen.
 */
#ifdef _OPENMP
#include <omp.h>
#endif
#include "bench-model.h"
#include "nanobragg.h"
#include "bench-panels.h"
#include "bench-adaptive.h"
#include "bench-spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef NB_DATA_DIR
#define NB_DATA_DIR "data"
#endif
#ifndef NB_DETECTOR_GEOM
#define NB_DETECTOR_GEOM "jf-swissfel-16M.geom"
#endif

#define HKL_NAME      "1hpv_p1.hkl"
#define MAX_SIZES     32
#define MAX_REPEAT    1000
#define MAX_ARGS      64
#define SLOW_ROUND_MS 2000.0 /* a round slower than this drops the default repeat to 3 */

/* The workloads' flags, split at spaces; -hkl and -detpixels are added per case. */
#define WORKLOAD_A "-default_F 100 -cell 100 100 100 90 90 90 -lambda 6.2 -N 5 -distance 100"
#define WORKLOAD_B                                                                                 \
  "-cell 63.4 63.4 83.8 90 90 120 -misset 10 20 30 -lambda 1.0 -N 10 -mosaic 0.2 "                 \
  "-mosaic_domains 10 -oversample 2 -hdivrange 0.5 -vdivrange 0.5 -hdivsteps 3 -vdivsteps 3 "      \
  "-square_div -distance 150 -pixel 0.1"
/* The viewer's default scene (braggscope_simulation_new_default_scene() and
 * build-aux/setup.sh's SCENE), whose automatic oversampling is 3 x 3. */
#define WORKLOAD_C                                                                                 \
  "-cell 63.4 63.4 83.8 90 90 120 -misset 10 20 30 -lambda 1.0 -N 10 -mosaic 0.2 "                 \
  "-mosaic_domains 5 -distance 120 -pixel 0.1"
#define PREVIEW_STRIDE 4
#define PREVIEW_TEXT   "4"
#define PROCESS_OUTPUT "-floatfile out.bin -nopgm -nonoise -noprogress"

static const char usage_text[] =
    "usage: nanobragg-bench [options]\n"
    "\n"
    "Times the Braggscope engine and, side by side, a reference nanoBragg binary on the same\n"
    "command lines, alternating runs and reporting medians:\n"
    "\tcold_ms\t\tnb_params_parse_argv + nb_plan_create + first nb_plan_execute (with\n"
    "\t\t\t--reference or --cli, starting the OpenMP threads too: they are stopped\n"
    "\t\t\tbefore each process is timed)\n"
    "\twarm_ms\t\tnb_plan_execute again on the same plan\n"
    "\tupdate_ms\tmisset x + 0.1 degree, nb_plan_update + nb_plan_execute\n"
    "\tpreview_ms\ta preview execute (preview_stride " PREVIEW_TEXT ") of the same plan\n"
    "\tcancel_ms\tfrom raising the cancel flag, half-way through a warm execute, to its return\n"
    "\tpeak_rss_mb\tthe process's peak resident memory so far (getrusage); run one size alone\n"
    "\t\t\tto read it for that size\n"
    "\treference_ms\tthe reference's whole process (spawn to exit) in a fresh empty folder,\n"
    "\t\t\twith -floatfile out.bin -nopgm -nonoise -noprogress added\n"
    "\tratio\t\treference_ms / warm_ms\n"
    "\tcli_ms\t\tthe same for the CLI given with --cli; cli_ratio = reference_ms / cli_ms\n"
    "\tkernel_ms\t(--backend cuda) of the warm execute, the GPU's time from the first band\n"
    "\t\t\tkernel's start to the last one's end (CUDA events, nb_plan_get_timing)\n"
    "\tstaged_ms\t(--backend cuda) warm_ms into a pageable image (malloc) instead of the\n"
    "\t\t\tpage-locked one (nb_image_alloc) the other figures use: the bands go through\n"
    "\t\t\tthe backend's pinned image and are copied by the CPU\n"
    "\n"
    "Workloads:\n"
    "\ta\t" WORKLOAD_A " -detpixels S, for each S of --sizes\n"
    "\tb\t-hkl DATA/" HKL_NAME " " WORKLOAD_B " -detpixels 1024\n"
    "\tc\t-hkl DATA/" HKL_NAME " " WORKLOAD_C " -detpixels 1024 (the viewer's default\n"
    "\t\tscene, 3 x 3 sub-pixels by the automatic oversampling)\n"
    "\td\tthe viewer's scene at N = 10, 30, 100, 300, single precision: exact integration\n"
    "\t\t(the reference's method and automatic oversampling) against -integration\n"
    "\t\tadaptive, times and errors against the high-oversample limit, and with\n"
    "\t\t--reference the reference's process on the same scene (its own automatic\n"
    "\t\toversampling; at N = 100 and 300 on 32 rows, scaled to 1024) (not in 'all':\n"
    "\t\tminutes)\n"
    "\te\tworkload a's crystal on the multi-panel -detector of --detector (the Jungfrau\n"
    "\t\t16M: 32 modules, 16.9 million pixels): one plan against one plan per panel\n"
    "\t\t(their CUSTOM vectors), warm, alternating; their medians, the ratio, and whether\n"
    "\t\tthe images are identical outside the file's bad regions (exit 1 if not); with\n"
    "\t\t--backend cuda every plan renders on the GPU\n"
    "\tm\tstructure factors of a model to 2 A (not in all): DATA/1hpv.pdb, and its\n"
    "\t\tasymmetric unit tiled 2 x 2 x 3 (117,432 atoms in the cell); the plan's time\n"
    "\t\t(read, sum, expansion: plan_ms; the sum alone: sum_ms) and that of\n"
    "\t\t`gemmi sfcalc --dmin=2` (FFT) on the same file when gemmi is on PATH\n"
    "\t\t(ratio = gemmi_ms / plan_ms); the large model is timed once\n"
    "\n"
    "Options:\n"
    "\t--workload a|b|c|d|e|m|all\tdefault all (a, b and c; d, e and m only by name)\n"
    "\t--detector FILE\t\tworkload e's geometry (default " NB_DETECTOR_GEOM ")\n"
    "\t--sizes S,S,...\t\tdetector sizes of workload a (default 256,512,1024,2048)\n"
    "\t--precision single|double|exact|both\tdefault both (single and double); exact is the\n"
    "\t\t\treference-exact kernel\n"
    "\t--threads N\t\tengine threads and OMP_NUM_THREADS of the processes (default: online CPUs)\n"
    "\t--backend cpu|cuda\tthe engine's backend (default cpu); the reference and the CLI\n"
    "\t\t\tprocesses run on the CPU with all --threads\n"
    "\t--reference PATH\treference nanoBragg binary to compare with\n"
    "\t--cli PATH\t\tnanobragg CLI binary to time as a process too\n"
    "\t--cli-precision P\t-precision given to the CLI process (default single)\n"
    "\t--repeat N\t\trounds per measurement (default 5, or 3 where one round takes over 2 s)\n"
    "\t--data DIR\t\tfolder holding " HKL_NAME " (default " NB_DATA_DIR ")\n"
    "\t--json\t\t\tone JSON object per line instead of a table\n"
    "\t--help\t\t\tthis text\n";

typedef struct
{
  int run_a, run_b, run_c, run_d, run_e, run_m;
  const char *detector; /* workload e's geometry file */
  int sizes[MAX_SIZES];
  int nsizes;
  int precisions[2]; /* nb_precision values, in printing order */
  int nprecisions;
  int threads;
  int repeat;
  int repeat_given;
  int json;
  char *reference;           /* absolute path or NULL (owned) */
  char *cli;                 /* absolute path or NULL (owned) */
  const char *cli_precision; /* -precision given to the CLI process */
  nb_backend backend;        /* the engine's (NB_BACKEND_CPU or NB_BACKEND_CUDA) */
  char *data_dir;            /* absolute path (owned) */
} bench_options;

/* One (workload, size): the command lines and the samples of every round. */
typedef struct
{
  const char *workload;
  int size;
  const char *engine_argv[MAX_ARGS];
  int engine_argc;
  const char *process_argv[MAX_ARGS]; /* [0] is replaced by the binary's path */
  int process_argc;
  int uses_hkl;
  char size_text[16];
  char words[2 * (sizeof WORKLOAD_B > sizeof WORKLOAD_C ? sizeof WORKLOAD_B : sizeof WORKLOAD_C) +
             sizeof PROCESS_OUTPUT]; /* the argv strings */
  double *cold[2], *warm[2], *update[2], *preview[2], *cancel[2], *reference, *cli;
  double *kernel[2]; /* --backend cuda: the warm execute's GPU kernel time */
  double *staged[2]; /* --backend cuda: warm into a pageable image */
} bench_case;

static double
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec * 1e-6;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Sorts @v in place. */
static double
median (double *v, int n)
{
  qsort (v, (size_t) n, sizeof *v, compare_doubles);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int
usage_error (const char *option, const char *fmt, const char *value)
{
  fprintf (stderr, "nanobragg-bench: %s: ", option);
  fprintf (stderr, fmt, value);
  fputc ('\n', stderr);
  return 2;
}

static int
parse_positive (const char *s, int max, int *out)
{
  char *end;
  long v;

  errno = 0;
  v = strtol (s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < 1 || v > max)
    return 0;
  *out = (int) v;
  return 1;
}

static int
parse_sizes (const char *s, bench_options *o)
{
  char buf[512];
  char *save = NULL;
  int n = 0;

  if (strlen (s) >= sizeof buf || *s == '\0' || s[strlen (s) - 1] == ',' || *s == ',' ||
      strstr (s, ",,"))
    return 0;
  strcpy (buf, s);
  for (char *tok = strtok_r (buf, ",", &save); tok != NULL; tok = strtok_r (NULL, ",", &save))
    {
      if (n == MAX_SIZES || !parse_positive (tok, 65536, &o->sizes[n]))
        return 0;
      n++;
    }
  o->nsizes = n;
  return n > 0;
}

/* An executable file, as an absolute path (a bare name is looked up in PATH,
 * as a shell would); NULL if there is none. */
static char *
resolve_executable (const char *name)
{
  struct stat sb;

  if (strchr (name, '/') == NULL)
    {
      const char *path = getenv ("PATH");
      char buf[PATH_MAX];

      while (path != NULL && *path != '\0')
        {
          const char *colon = strchr (path, ':');
          size_t len = colon ? (size_t) (colon - path) : strlen (path);

          if (len > 0 &&
              (size_t) snprintf (buf, sizeof buf, "%.*s/%s", (int) len, path, name) < sizeof buf &&
              access (buf, X_OK) == 0 && stat (buf, &sb) == 0 && S_ISREG (sb.st_mode))
            return realpath (buf, NULL);
          path = colon ? colon + 1 : NULL;
        }
      return NULL;
    }
  if (access (name, X_OK) != 0 || stat (name, &sb) != 0 || !S_ISREG (sb.st_mode))
    return NULL;
  return realpath (name, NULL);
}

/* The defaults: every workload, sizes 256 to 2048, both precisions, one
 * thread per online CPU, 5 rounds. */
static void
options_init (bench_options *o)
{
  long ncpu = sysconf (_SC_NPROCESSORS_ONLN);

  memset (o, 0, sizeof *o);
  o->run_a = o->run_b = o->run_c = 1;
  o->run_e = 0;
  o->detector = NB_DETECTOR_GEOM;
  o->sizes[0] = 256;
  o->sizes[1] = 512;
  o->sizes[2] = 1024;
  o->sizes[3] = 2048;
  o->nsizes = 4;
  o->precisions[0] = NB_PRECISION_DOUBLE;
  o->precisions[1] = NB_PRECISION_SINGLE;
  o->nprecisions = 2;
  o->cli_precision = "single";
  o->threads = ncpu > 0 ? (int) ncpu : 1;
  o->repeat = 5;
}

/* The options that take a value, as --name VALUE or --name=VALUE. */
static const char *const value_options[] = {
  "--workload", "--sizes",         "--precision", "--threads", "--reference", "--cli",
  "--repeat",   "--cli-precision", "--backend",   "--data",    "--detector",
};

static int
takes_value (const char *name)
{
  for (size_t i = 0; i < sizeof value_options / sizeof value_options[0]; i++)
    if (strcmp (name, value_options[i]) == 0)
      return 1;
  return 0;
}

/* --precision's value into o->precisions. */
static int
option_precision (bench_options *o, const char *name, const char *value)
{
  if (strcmp (value, "double") == 0 || strcmp (value, "single") == 0 ||
      strcmp (value, "exact") == 0)
    {
      o->precisions[0] = strcmp (value, "double") == 0   ? NB_PRECISION_DOUBLE
                         : strcmp (value, "single") == 0 ? NB_PRECISION_SINGLE
                                                         : NB_PRECISION_EXACT;
      o->nprecisions = 1;
    }
  else if (strcmp (value, "both") == 0)
    {
      o->precisions[0] = NB_PRECISION_DOUBLE;
      o->precisions[1] = NB_PRECISION_SINGLE;
      o->nprecisions = 2;
    }
  else
    return usage_error (name, "'%s' is not single, double, exact or both", value);
  return -1;
}

/* --backend's value into o->backend; cuda only where a device answers. */
static int
option_backend (bench_options *o, const char *name, const char *value)
{
  if (strcmp (value, "cpu") == 0)
    o->backend = NB_BACKEND_CPU;
  else if (strcmp (value, "cuda") == 0)
    {
      char why[256];

      if (!nb_cuda_device_available (why, sizeof why))
        return usage_error (name, "cuda: %s", why);
      o->backend = NB_BACKEND_CUDA;
    }
  else
    return usage_error (name, "'%s' is not cpu or cuda", value);
  return -1;
}

/* One option of value_options with its @value into @o (--data into *@data,
 * resolved once all are read).  Returns -1 to go on, else the exit status. */
static int
option_set (bench_options *o, const char *name, const char *value, const char **data)
{
  if (strcmp (name, "--workload") == 0)
    {
      o->run_a = strcmp (value, "a") == 0 || strcmp (value, "all") == 0;
      o->run_b = strcmp (value, "b") == 0 || strcmp (value, "all") == 0;
      o->run_c = strcmp (value, "c") == 0 || strcmp (value, "all") == 0;
      o->run_d = strcmp (value, "d") == 0;
      o->run_e = strcmp (value, "e") == 0;
      o->run_m = strcmp (value, "m") == 0;
      if (!o->run_a && !o->run_b && !o->run_c && !o->run_d && !o->run_e && !o->run_m)
        return usage_error (name, "'%s' is not a, b, c, d, e, m or all", value);
    }
  else if (strcmp (name, "--detector") == 0)
    o->detector = value;
  else if (strcmp (name, "--sizes") == 0)
    {
      if (!parse_sizes (value, o))
        return usage_error (name, "'%s' is not a comma-separated list of sizes 1..65536", value);
    }
  else if (strcmp (name, "--precision") == 0)
    return option_precision (o, name, value);
  else if (strcmp (name, "--threads") == 0)
    {
      if (!parse_positive (value, 4096, &o->threads))
        return usage_error (name, "'%s' is not a thread count 1..4096", value);
    }
  else if (strcmp (name, "--backend") == 0)
    return option_backend (o, name, value);
  else if (strcmp (name, "--cli-precision") == 0)
    {
      if (strcmp (value, "single") != 0 && strcmp (value, "double") != 0 &&
          strcmp (value, "exact") != 0)
        return usage_error (name, "'%s' is not single, double or exact", value);
      o->cli_precision = value;
    }
  else if (strcmp (name, "--repeat") == 0)
    {
      if (!parse_positive (value, MAX_REPEAT, &o->repeat))
        return usage_error (name, "'%s' is not a count 1..1000", value);
      o->repeat_given = 1;
    }
  else if (strcmp (name, "--reference") == 0 || strcmp (name, "--cli") == 0)
    {
      char *path = resolve_executable (value);
      char **slot = strcmp (name, "--cli") == 0 ? &o->cli : &o->reference;

      if (path == NULL)
        return usage_error (name, "'%s' is not an executable file", value);
      free (*slot);
      *slot = path;
    }
  else
    *data = value;
  return -1;
}

/* o->data_dir from --data (@data, NULL when not given): workloads b and c
 * need the 1HPV structure factors there, or in the source tree's data/. */
static int
options_find_data (bench_options *o, const char *data)
{
  if (o->run_b || o->run_c || o->run_d || o->run_m)
    {
      char hkl[PATH_MAX];
      const char *dir = data ? data : NB_DATA_DIR;
      const char *name = o->run_m ? "1hpv.pdb" : HKL_NAME;

      if ((size_t) snprintf (hkl, sizeof hkl, "%s/%s", dir, name) >= sizeof hkl ||
          access (hkl, R_OK) != 0 || (o->data_dir = realpath (dir, NULL)) == NULL)
        {
          fprintf (stderr, "nanobragg-bench: --data: %s/%s cannot be read%s\n", dir, name,
                   data ? "" : " (give --data DIR, or --workload a)");
          return 2;
        }
    }
  else if (data != NULL && (o->data_dir = realpath (data, NULL)) == NULL)
    return usage_error ("--data", "'%s' is not a folder", data);
  return -1;
}

/* Returns -1 to go on, else the exit status. */
static int
parse_options (int argc, char **argv, bench_options *o)
{
  const char *data = NULL;

  options_init (o);
  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];
      const char *eq = strchr (arg, '=');
      char name[32];
      const char *value = NULL;
      int status;

      if (strncmp (arg, "--", 2) != 0 || (eq ? (size_t) (eq - arg) : strlen (arg)) >= sizeof name)
        {
          fprintf (stderr, "nanobragg-bench: unknown option '%s' (see --help)\n", arg);
          return 2;
        }
      snprintf (name, sizeof name, "%.*s", eq ? (int) (eq - arg) : (int) strlen (arg), arg);
      if (strcmp (name, "--help") == 0 || strcmp (name, "--json") == 0)
        {
          if (eq != NULL)
            return usage_error (name, "takes no value (got '%s')", eq + 1);
          if (strcmp (name, "--help") == 0)
            {
              fputs (usage_text, stdout);
              return 0;
            }
          o->json = 1;
          continue;
        }
      if (!takes_value (name))
        {
          fprintf (stderr, "nanobragg-bench: unknown option '%s' (see --help)\n", arg);
          return 2;
        }
      if (eq != NULL)
        value = eq + 1;
      else if (i + 1 < argc)
        value = argv[++i];
      else
        return usage_error (name, "%sneeds a value", "");
      if ((status = option_set (o, name, value, &data)) != -1)
        return status;
    }
  return options_find_data (o, data);
}

static void
options_clear (bench_options *o)
{
  free (o->reference);
  free (o->cli);
  free (o->data_dir);
}

/* Appends the space-separated words of @line, copied into @store at *@used. */
static void
case_append (const char **argv, int *argc, const char *line, char *store, size_t *used)
{
  char *words = store + *used;
  char *save = NULL;

  strcpy (words, line);
  *used += strlen (line) + 1;
  for (char *w = strtok_r (words, " ", &save); w != NULL; w = strtok_r (NULL, " ", &save))
    argv[(*argc)++] = w;
}

/* Fills the command lines of one case.  @hkl_path is the engine's path to the
 * HKL file; the processes read the copy linked into their folder. */
static void
case_init (bench_case *c, const char *workload, int size, const char *hkl_path)
{
  const char *line = strcmp (workload, "a") == 0   ? WORKLOAD_A
                     : strcmp (workload, "b") == 0 ? WORKLOAD_B
                                                   : WORKLOAD_C;
  size_t used = 0;

  memset (c, 0, sizeof *c);
  c->workload = workload;
  c->size = size;
  c->uses_hkl = hkl_path != NULL;
  snprintf (c->size_text, sizeof c->size_text, "%d", size);

  c->engine_argv[c->engine_argc++] = "nanobragg";
  c->process_argv[c->process_argc++] = NULL;
  if (c->uses_hkl)
    {
      c->engine_argv[c->engine_argc++] = "-hkl";
      c->engine_argv[c->engine_argc++] = hkl_path;
      c->process_argv[c->process_argc++] = "-hkl";
      c->process_argv[c->process_argc++] = HKL_NAME;
    }
  case_append (c->engine_argv, &c->engine_argc, line, c->words, &used);
  case_append (c->process_argv, &c->process_argc, line, c->words, &used);
  c->engine_argv[c->engine_argc++] = "-detpixels";
  c->engine_argv[c->engine_argc++] = c->size_text;
  c->process_argv[c->process_argc++] = "-detpixels";
  c->process_argv[c->process_argc++] = c->size_text;
  case_append (c->process_argv, &c->process_argc, PROCESS_OUTPUT, c->words, &used);
  c->engine_argv[c->engine_argc] = NULL;
  c->process_argv[c->process_argc] = NULL;
}

static int
case_alloc_samples (bench_case *c, int repeat)
{
  double *all = calloc ((size_t) repeat * 16, sizeof (double));

  if (all == NULL)
    return 0;
  for (int k = 0; k < 2; k++)
    {
      c->cold[k] = all + (size_t) repeat * (5 * k + 0);
      c->warm[k] = all + (size_t) repeat * (5 * k + 1);
      c->update[k] = all + (size_t) repeat * (5 * k + 2);
      c->preview[k] = all + (size_t) repeat * (5 * k + 3);
      c->cancel[k] = all + (size_t) repeat * (5 * k + 4);
    }
  c->reference = all + (size_t) repeat * 10;
  c->cli = all + (size_t) repeat * 11;
  c->kernel[0] = all + (size_t) repeat * 12;
  c->kernel[1] = all + (size_t) repeat * 13;
  c->staged[0] = all + (size_t) repeat * 14;
  c->staged[1] = all + (size_t) repeat * 15;
  return 1;
}

static void
case_free_samples (bench_case *c)
{
  free (c->cold[0]);
}

static const char *
precision_name (int precision)
{
  return precision == NB_PRECISION_SINGLE   ? "single"
         : precision == NB_PRECISION_DOUBLE ? "double"
                                            : "exact";
}

/* The canceller: waits @delay_ms, raises the flag and notes when. */
typedef struct
{
  volatile int flag;
  double delay_ms;
  double raised_at;
} canceller;

static void *
cancel_later (void *data)
{
  canceller *k = data;
  struct timespec ts = { (time_t) (k->delay_ms / 1000.0),
                         (long) (fmod (k->delay_ms, 1000.0) * 1e6) };

  nanosleep (&ts, NULL);
  k->raised_at = now_ms ();
  k->flag = 1;
  return NULL;
}

/* Cancellation latency: a warm execute cancelled from another thread after
 * a quarter of @warm_ms (halved and tried again, up to 8 times, while the run
 * ends first); the time from the flag to execute's return, or 0 when every
 * run ended first. */
static double
measure_cancel (nb_plan *plan, float *image, int threads, double warm_ms)
{
  double delay = warm_ms / 4.0;

  for (int attempt = 0; attempt < 8; attempt++, delay /= 2.0)
    {
      canceller k = { 0, delay, 0.0 };
      nb_exec_options opts = { 0 };
      nb_error err;
      pthread_t thread;
      double end;
      nb_status st;

      opts.threads = threads;
      opts.cancel = &k.flag;
      if (pthread_create (&thread, NULL, cancel_later, &k) != 0)
        return 0.0;
      st = nb_plan_execute (plan, image, &opts, &err);
      end = now_ms ();
      pthread_join (thread, NULL);
      if (st == NB_ERR_CANCELLED)
        return end - k.raised_at;
    }
  return 0.0;
}

/* One engine round: cold, warm and update of a fresh plan, then a preview
 * and a cancelled run; on the GPU also the warm run's kernel time and a warm
 * run into the pageable @staging image. */
static int
run_engine (const bench_case *c,
            int precision,
            nb_backend backend,
            int threads,
            float *image,
            double *cold,
            double *warm,
            double *update,
            double *preview,
            double *cancel,
            float *staging,
            double *kernel,
            double *staged)
{
  nb_params params;
  nb_plan *plan = NULL;
  nb_error err;
  nb_exec_options opts = { 0 };
  const nb_plan_info *in;
  const char *stage = "parse";
  double t0, t1, t2, t3;
  nb_status st;

  opts.threads = threads;
  nb_params_init (&params);

  t0 = now_ms ();
  st = nb_params_parse_argv (&params, c->engine_argc, c->engine_argv, &err);
  params.precision = (nb_precision) precision;
  params.backend = backend;
  if (st == NB_OK && (stage = "plan", st = nb_plan_create (&params, &plan, &err)) == NB_OK)
    {
      in = nb_plan_get_info (plan);
      if (backend == NB_BACKEND_CUDA && strcmp (nb_plan_get_backend (plan), "cuda") != 0)
        fprintf (stderr,
                 "nanobragg-bench: workload %s size %d %s: the plan runs on the CPU "
                 "(its log says why)\n",
                 c->workload, c->size, precision_name (precision));
      if (in->fpixels != c->size || in->spixels != c->size)
        {
          fprintf (stderr, "nanobragg-bench: workload %s size %d: the plan has %dx%d pixels\n",
                   c->workload, c->size, in->fpixels, in->spixels);
          nb_plan_destroy (plan);
          nb_params_clear (&params);
          return 0;
        }
      stage = "execute";
      st = nb_plan_execute (plan, image, &opts, &err);
    }
  t1 = now_ms ();
  if (st == NB_OK)
    st = nb_plan_execute (plan, image, &opts, &err);
  t2 = now_ms ();
  *kernel = 0.0;
  if (st == NB_OK)
    {
      nb_plan_timing timing;

      nb_plan_get_timing (plan, &timing);
      *kernel = timing.kernel_ms;
    }

  params.misset[0] += 0.1 * M_PI / 180.0;
  t3 = now_ms ();
  if (st == NB_OK && (stage = "update", st = nb_plan_update (plan, &params, &err)) == NB_OK)
    {
      stage = "execute after update";
      st = nb_plan_execute (plan, image, &opts, &err);
    }
  *update = now_ms () - t3;
  *cold = t1 - t0;
  *warm = t2 - t1;
  if (st == NB_OK)
    {
      opts.preview_stride = PREVIEW_STRIDE;
      t3 = now_ms ();
      stage = "preview";
      st = nb_plan_execute (plan, image, &opts, &err);
      *preview = now_ms () - t3;
    }
  if (st == NB_OK)
    *cancel = measure_cancel (plan, image, threads, *warm);
  *staged = 0.0;
  if (st == NB_OK && backend == NB_BACKEND_CUDA)
    {
      opts.preview_stride = 0;
      stage = "staged";
      t3 = now_ms ();
      st = nb_plan_execute (plan, staging, &opts, &err);
      *staged = now_ms () - t3;
    }

  if (st != NB_OK)
    fprintf (stderr, "nanobragg-bench: workload %s size %d %s: engine %s: %s\n", c->workload,
             c->size, precision_name (precision), stage, err.message);
  nb_plan_destroy (plan);
  nb_params_clear (&params);
  return st == NB_OK;
}

/* Runs @exe on the case's command line in a fresh empty folder (the HKL file
 * linked in), stdout to /dev/null; *ms is spawn to exit. */
static int
run_process (
    const bench_case *c, const char *exe, const char *precision, const char *data_dir, double *ms)
{
  char *argv[MAX_ARGS];
  char src[PATH_MAX] = "", what[64];

  if (c->uses_hkl && (size_t) snprintf (src, sizeof src, "%s/%s", data_dir, HKL_NAME) >= sizeof src)
    {
      fprintf (stderr, "nanobragg-bench: cannot link %s/%s: %s\n", data_dir, HKL_NAME,
               strerror (ENAMETOOLONG));
      return 0;
    }
  for (int i = 0; i <= c->process_argc; i++)
    argv[i] = (char *) c->process_argv[i];
  argv[0] = (char *) exe;
  if (precision != NULL)
    {
      argv[c->process_argc] = (char *) "-precision";
      argv[c->process_argc + 1] = (char *) precision;
      argv[c->process_argc + 2] = NULL;
    }
  snprintf (what, sizeof what, "workload %s size %d", c->workload, c->size);
  return bench_spawn (argv, src, c->uses_hkl ? HKL_NAME : NULL, what, ms);
}

/* run_process() with this process's OpenMP threads stopped: the engine's runs
 * leave them spinning for a few milliseconds (libgomp's default wait policy),
 * and they would take a CPU from the process being timed (on the 2-vCPU VM
 * the CLI's median went from 17.7 to 12.6 ms).  The engine's next cold run
 * starts them again. */
static int
time_process (
    const bench_options *o, const bench_case *c, const char *exe, const char *precision, double *ms)
{
#ifdef _OPENMP
  omp_pause_resource_all (omp_pause_soft);
#endif
  return run_process (c, exe, precision, o->data_dir, ms);
}

static void
print_header (const bench_options *o)
{
  if (o->json)
    return;
  printf ("%-8s %5s %-9s %7s %10s %10s %10s %10s %9s %8s", "workload", "size", "precision",
          "threads", "cold_ms", "warm_ms", "update_ms", "preview_ms", "cancel_ms", "peak_mb");
  if (o->backend == NB_BACKEND_CUDA)
    printf (" %10s %10s", "kernel_ms", "staged_ms");
  if (o->reference)
    printf (" %12s %8s", "reference_ms", "ratio");
  if (o->cli)
    printf (" %10s %9s", "cli_ms", "cli_ratio");
  printf ("\n");
  fflush (stdout);
}

static void
print_row (const bench_options *o,
           const bench_case *c,
           int precision,
           double cold,
           double warm,
           double update,
           double preview,
           double cancel,
           double kernel,
           double staged,
           double reference,
           double cli)
{
  struct rusage ru;
  double peak_mb = getrusage (RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss / 1024.0 : 0.0;

  if (o->json)
    {
      printf ("{\"workload\":\"%s\",\"size\":%d,\"precision\":\"%s\",\"threads\":%d,"
              "\"cold_ms\":%.3f,\"warm_ms\":%.3f,\"update_ms\":%.3f,\"preview_ms\":%.3f,"
              "\"cancel_ms\":%.3f,\"peak_rss_mb\":%.1f",
              c->workload, c->size, precision_name (precision), o->threads, cold, warm, update,
              preview, cancel, peak_mb);
      printf (",\"backend\":\"%s\"", o->backend == NB_BACKEND_CUDA ? "cuda" : "cpu");
      if (o->backend == NB_BACKEND_CUDA)
        printf (",\"kernel_ms\":%.3f,\"staged_ms\":%.3f", kernel, staged);
      if (o->reference)
        printf (",\"reference_ms\":%.3f,\"ratio\":%.4f", reference, reference / warm);
      if (o->cli)
        {
          printf (",\"cli_ms\":%.3f", cli);
          if (o->reference)
            printf (",\"cli_ratio\":%.4f", reference / cli);
        }
      printf ("}\n");
    }
  else
    {
      printf ("%-8s %5d %-9s %7d %10.3f %10.3f %10.3f %10.3f %9.3f %8.1f", c->workload, c->size,
              precision_name (precision), o->threads, cold, warm, update, preview, cancel, peak_mb);
      if (o->backend == NB_BACKEND_CUDA)
        printf (" %10.3f %10.3f", kernel, staged);
      if (o->reference)
        printf (" %12.3f %8.3f", reference, reference / warm);
      if (o->cli)
        {
          printf (" %10.3f", cli);
          if (o->reference)
            printf (" %9.3f", reference / cli);
          else
            printf (" %9s", "-");
        }
      printf ("\n");
    }
  fflush (stdout);
}

/* Measures one (workload, size) in alternating rounds and prints its rows. */
static int
run_case (const bench_options *o, bench_case *c)
{
  size_t npix = (size_t) c->size * (size_t) c->size;
  float *image, *staging = NULL;
  int repeat = o->repeat;
  int ok = 1;

  /* as the CLI and the library allocate theirs: 2 MB-aligned on huge pages; on
     the GPU, as a viewer's frames: page-locked, the bands copied straight in */
  image = nb_image_alloc (npix * sizeof (float), o->backend == NB_BACKEND_CUDA);
  if (o->backend == NB_BACKEND_CUDA)
    staging = malloc (npix * sizeof (float));
  if (image == NULL || (o->backend == NB_BACKEND_CUDA && staging == NULL) ||
      !case_alloc_samples (c, repeat))
    {
      fprintf (stderr, "nanobragg-bench: out of memory for a %dx%d image\n", c->size, c->size);
      nb_image_free (image);
      free (staging);
      return 0;
    }
  /* Fault the pages in now, so that only the first round does not pay for it. */
  memset (image, 0, npix * sizeof (float));
  if (staging != NULL)
    memset (staging, 0, npix * sizeof (float));

  for (int r = 0; r < repeat && ok; r++)
    {
      double start = now_ms ();

      for (int k = 0; k < o->nprecisions && ok; k++)
        {
          /* Swap the precisions' order every round, and put the processes between. */
          int slot = o->nprecisions == 2 && r % 2 ? 1 - k : k;

          if (k == 0 && o->reference)
            ok = time_process (o, c, o->reference, NULL, &c->reference[r]);
          if (k == 1 && o->cli)
            ok = ok && time_process (o, c, o->cli, o->cli_precision, &c->cli[r]);
          ok = ok &&
               run_engine (c, o->precisions[slot], o->backend, o->threads, image, &c->cold[slot][r],
                           &c->warm[slot][r], &c->update[slot][r], &c->preview[slot][r],
                           &c->cancel[slot][r], staging, &c->kernel[slot][r], &c->staged[slot][r]);
        }
      if (ok && o->nprecisions == 1 && o->cli)
        ok = time_process (o, c, o->cli, o->cli_precision, &c->cli[r]);
      if (r == 0 && !o->repeat_given && repeat > 3 && now_ms () - start > SLOW_ROUND_MS)
        repeat = 3;
    }

  if (ok)
    {
      double reference = o->reference ? median (c->reference, repeat) : 0.0;
      double cli = o->cli ? median (c->cli, repeat) : 0.0;

      for (int k = 0; k < o->nprecisions; k++)
        print_row (o, c, o->precisions[k], median (c->cold[k], repeat), median (c->warm[k], repeat),
                   median (c->update[k], repeat), median (c->preview[k], repeat),
                   median (c->cancel[k], repeat), median (c->kernel[k], repeat),
                   median (c->staged[k], repeat), reference, cli);
    }
  case_free_samples (c);
  nb_image_free (image);
  free (staging);
  return ok;
}

int
main (int argc, char **argv)
{
  bench_options o;
  char threads_text[16];
  int rc = parse_options (argc, argv, &o);

  if (rc >= 0)
    {
      options_clear (&o);
      return rc;
    }

  /* The processes inherit it; the engine takes nb_exec_options.threads. */
  snprintf (threads_text, sizeof threads_text, "%d", o.threads);
  setenv ("OMP_NUM_THREADS", threads_text, 1);

  if (o.run_m)
    {
      rc = bench_models (o.data_dir, o.threads, o.repeat_given ? o.repeat : 3, o.json) ? 0 : 1;
      options_clear (&o);
      return rc;
    }
  rc = 0;
  if (o.run_d)
    {
      char hkl_path[PATH_MAX];

      snprintf (hkl_path, sizeof hkl_path, "%s/%s", o.data_dir, HKL_NAME);
      rc = bench_adaptive (hkl_path, o.reference, o.data_dir, o.threads,
                           o.repeat_given ? o.repeat : 3, o.json)
               ? 0
               : 1;
      options_clear (&o);
      return rc;
    }
  print_header (&o);
  if (o.run_a)
    for (int i = 0; i < o.nsizes && rc == 0; i++)
      {
        bench_case c;

        case_init (&c, "a", o.sizes[i], NULL);
        if (!run_case (&o, &c))
          rc = 1;
      }
  for (int k = 0; k < 2 && rc == 0; k++)
    if (k == 0 ? o.run_b : o.run_c)
      {
        bench_case c;
        char hkl_path[PATH_MAX];

        snprintf (hkl_path, sizeof hkl_path, "%s/%s", o.data_dir, HKL_NAME);
        case_init (&c, k == 0 ? "b" : "c", 1024, hkl_path);
        if (!run_case (&o, &c))
          rc = 1;
      }
  for (int k = 0; k < o.nprecisions && rc == 0 && o.run_e; k++)
    if (!nb_bench_panels (o.detector, o.precisions[k], o.backend, o.threads, o.repeat, o.json))
      rc = 1;
  options_clear (&o);
  return rc;
}
