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
#include "nanobragg-series-private.h"
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
    "\t\t\t\t(the series by rule), PREFIX_summary.json (the run), PREFIX_series.lock\n"
    "\t\t\t\t(locked while a run uses the prefix: a second run is refused) and,\n"
    "\t\t\t\tfor nexus without --sweep, PREFIX_master.h5 (up to 10000 frames)\n"
    "\t--format LIST\t\tcomma-separated, default cbf (smv in a build without CBFlib):\n"
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
    "\t\tEvery file has a fingerprint (SHA-256 of the frame's flags and of each byte):\n"
    "\t\tin the CBF header, a NeXus attribute, or PREFIX_000001.fingerprint for smv and\n"
    "\t\tfloat.  Files are synced to disk before a frame counts as written.\n"
    "\t--resume\t\tskip frames whose files are complete: the series file must describe\n"
    "\t\t\t\tthe same series (else refused, naming the difference), and every file\n"
    "\t\t\t\tmust read whole and match its fingerprint; any other frame is made\n"
    "\t\t\t\tagain (\"frame N: ...: fingerprint differs, rewritten\")\n"
    "\t--list-frames\t\tprint every frame's flags, a JSON array per line, and exit\n"
    "\t--threads N\t\tOpenMP threads per process (default: OMP_NUM_THREADS, else the\n"
    "\t\t\t\tcores shared among the node's ranks)\n"
    "\t--quiet\t\t\tno progress lines\n"
    "\t--integration M\t\texact (the default: nanoBragg's oversampling) or adaptive, with\n"
    "\t--tolerance T\t\tits error bound per pixel as a fraction of the brightest (1e-3):\n"
    "\t\t\t\tthe flags -integration and -tolerance of every frame\n"
    "\n"
    "Progress goes to stderr (one updating line on a terminal, else a line per frame); the\n"
    "summary (frames, seconds, frames/s, per rank) to stdout as JSON.  Every frame's\n"
    "parameters are checked (and its memory) before the first file is written.  Every file is\n"
    "written under a temporary name and renamed; Ctrl+C or SIGTERM stops in any phase without a\n"
    "partial file (exit 130), a second one at once.\n"
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

/* Raised by SIGINT and SIGTERM; the plan's and the writer's cancel flag. */
static volatile int cancel_requested;

/* The first SIGINT or SIGTERM asks every phase to stop at its next check
 * (within a frame's row tile while rendering); a second one ends the process
 * at once, as the signal's default does (a temporary file may then stay,
 * which --resume removes). */
static void
on_signal (int sig)
{
  if (__atomic_exchange_n (&cancel_requested, 1, __ATOMIC_SEQ_CST))
    {
      signal (sig, SIG_DFL);
      raise (sig);
    }
}

static int
cancelled (void)
{
  return __atomic_load_n (&cancel_requested, __ATOMIC_SEQ_CST);
}

static void
warn_line (void *user, const char *message)
{
  (void) user;
  fprintf (stderr, "nanobragg-series: warning: %s\n", message);
}

/* ------------------------------------------------------------------------- */
/* The frames' command lines. */

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

/* Exit status 130 for a run stopped by a signal before its frames. */
static int
interrupted_while (const char *what)
{
  if (print_errors)
    fprintf (stderr, "nanobragg-series: interrupted while %s\n", what);
  return 130;
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
check_sweep_flag (const sweep *s, const char *spec)
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
  s->spec = spec;
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

      if (cancelled ())
        return interrupted_while ("making the sweep's values");
      if (s->count == 1)
        v = s->start;
      format_number (v, text, sizeof text);
      if ((s->values[k] = strdup (text)) == NULL)
        return usage_error ("out of memory");
    }
  return check_sweep_flag (s, whole);
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

/* Splits argv into series options and the nanoBragg flags.  Returns 0 or the
 * exit status. */
static int
parse_command_line (series_config *c, bench_options *b, int argc, char **argv)
{
  /* the detector format of the field where this build writes it, else nanoBragg's own */
  const char *formats = nb_cbf_available () ? "cbf" : "smv";
  int rc;

  c->base = malloc (sizeof *c->base * (size_t) (argc + 1));
  if (c->base == NULL)
    return usage_error ("out of memory");
  c->base[c->base_argc++] = "nanobragg";
  c->prefix = "frame";
  c->threads = -1;
  c->lock_fd = -1;
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
      if (strcmp (a, "--integration") == 0 || strcmp (a, "--tolerance") == 0)
        {
          /* the nanoBragg flag of the same name with one dash */
          NEEDS_VALUE;
          c->base[c->base_argc++] = a + 1;
          c->base[c->base_argc++] = v;
        }
      else if (strcmp (a, "--frames") == 0)
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
      else if (strcmp (a, "--list-frames") == 0)
        c->list_frames = 1;
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

/* Every sweep point's frame (all frames of a point share its checks: the
 * flags a rotation or a still adds are always valid) parsed, validated and
 * held to the memory budget with what the series keeps per pixel, before any
 * file is written: a frame that cannot be made stops the run here, not after
 * the frames before it.  Returns 0, 2 with the message printed, or 130 when
 * interrupted. */
static int
check_frames (const series_config *c)
{
  long points = c->frames / c->inner;

  for (long point = 0; point < points; point++)
    {
      extra_flags e;
      const char **argv;
      int argc;
      nb_params p;
      nb_error err = { 0 };
      nb_status st;

      if (cancelled ())
        return interrupted_while ("checking the frames");
      frame_extras (c, point * c->inner, &e);
      if ((argv = frame_argv (c, &e, &argc)) == NULL)
        return usage_error ("out of memory");
      st = parse_frame (c, argv, argc, 0, &p, &err);
      if (st == NB_OK)
        st = nb_series_check_frame (&p, SERIES_BYTES_PER_PIXEL, &err);
      nb_params_clear (&p);
      free (argv);
      if (st == NB_OK)
        continue;
      if (c->n_sweeps == 1)
        return usage_error ("--sweep %s: value %s: %s", c->sweeps[0].spec, e.argv[1], err.message);
      if (c->n_sweeps > 1)
        {
          char at[512] = "";

          for (int k = 0; k < 2 * c->n_sweeps; k++)
            snprintf (at + strlen (at), sizeof at - strlen (at), " %s", e.argv[k]);
          return usage_error ("--sweep: frame %ld (at%s): %s", point * c->inner + 1, at,
                              err.message);
        }
      return usage_error ("%s", err.message);
    }
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

  return check_frames (c);
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

      nb_params p;

      frame_extras (c, 0, &e);
      if ((argv = frame_argv (c, &e, &argc)) == NULL)
        st = nb_error_set (err, NB_ERR_NOMEM, "out of memory");
      else if ((st = parse_frame (c, argv, argc, 0, &p, err)) == NB_OK)
        st = plan_frame (&w->plan, &p, err);
      if (argv != NULL)
        nb_params_clear (&p);
      free (argv);
    }
  for (long i = 0; i < c->frames && st == NB_OK; i++)
    {
      char *full;

      if (cancelled ())
        {
          st = nb_error_set (err, NB_ERR_CANCELLED, "interrupted");
          break;
        }
      full = frame_path (c, i, "h5");
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
  long written = 0, skipped = 0, rewritten = 0;

  for (int r = 0; r < c->ranks; r++)
    {
      written += all[r].written;
      skipped += all[r].skipped;
      rewritten += all[r].rewritten;
    }
  fprintf (f,
           "{\"series\": \"%s\", \"frames\": %ld, \"written\": %ld, \"skipped\": %ld, "
           "\"rewritten\": %ld, \"seconds\": %.6f, \"frames_per_second\": %.6g, \"ranks\": [",
           series_kind (c), c->frames, written, skipped, rewritten, seconds,
           seconds > 0 ? (double) written / seconds : 0.0);
  for (int r = 0; r < c->ranks; r++)
    fprintf (f,
             "%s{\"rank\": %d, \"frames\": %ld, \"skipped\": %ld, \"rewritten\": %ld, "
             "\"seconds\": %.6f, \"frames_per_second\": %.6g}",
             r ? ", " : "", r, all[r].written, all[r].skipped, all[r].rewritten, all[r].seconds,
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
  /* said even with --quiet: a file of the user's was replaced */
  if (s->rewritten[0] != '\0')
    {
      mine->rewritten++;
      fprintf (stderr, "%snanobragg-series: frame %ld: %s, rewritten\n", tty ? "\r" : "",
               s->index + 1, s->rewritten);
    }
  if (c->quiet)
    return;
  if (tty && c->rank == 0)
    print_progress (c, done, now_s () - t0, done, 0);
  else if (!tty)
    fprintf (stderr, "frame %06ld rank %d: %s (%.3f s)\n", s->index + 1, c->rank,
             s->skipped ? "complete, skipped" : "written", now_s () - s->started);
}

/* Rank 0's files before the frames, with the prefix locked: the series file
 * (checked on --resume) and the master file.  Returns 0 or the exit status. */
static int
write_series_outputs (series_config *c, worker *w, const char *series_file)
{
  nb_error err = { 0 };
  int rc;

  if ((rc = lock_prefix (c)) != 0 || (rc = prepare_series_file (c, series_file)) != 0)
    return rc;
  if (!(c->formats & FMT_NEXUS) || c->n_sweeps > 0)
    return 0;
  if (c->frames > MASTER_MAX_FRAMES)
    {
      fprintf (stderr,
               "nanobragg-series: warning: no %s_master.h5 for %ld frames (a master file links "
               "each frame; at most %ld): every frame file is a complete NXmx file\n",
               c->prefix, c->frames, MASTER_MAX_FRAMES);
      return 0;
    }
  if (write_master (c, w, &err) != NB_OK)
    {
      if (err.code == NB_ERR_CANCELLED)
        return 130;
      fprintf (stderr, "nanobragg-series: %s\n", err.message);
      return 1;
    }
  return 0;
}

/* Frame @index's command line and parameters, then render_slot(). */
static nb_status
render_frame (worker *w, const series_config *c, long index, frame_slot *s, nb_error *err)
{
  extra_flags e;
  const char **argv;
  int argc = 0;
  nb_params p;
  nb_status st;

  frame_extras (c, index, &e);
  if ((argv = frame_argv (c, &e, &argc)) == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "out of memory");
  st = parse_frame (c, argv, argc, 0, &p, err);
  if (st == NB_OK)
    st = render_slot (w, c, index, argv, argc, &p, s, err);
  nb_params_clear (&p);
  free (argv);
  return st;
}

/* This rank's frames, until none is left or the run is cancelled: two slots,
 * one renders while the writer writes the other.  Fills @mine. */
static void
render_frames (const series_config *c, distributor *d, worker *w, rank_stats *mine, int tty)
{
  nb_error err = { 0 };
  long k = 0;
  double t0;

  w->cancel = &cancel_requested;
  if (worker_start (w) != 0)
    {
      fputs ("nanobragg-series: cannot start the writer thread\n", stderr);
      dist_abort (d, 1);
    }
  dist_open_counter (d);
  t0 = now_s ();
  for (int draining = 0, left = 2;; k++)
    {
      frame_slot *s = &w->slots[k & 1];
      long index;
      nb_status st;

      worker_wait (w, s);
      if (s->state == SLOT_DONE)
        {
          if (s->status == NB_OK)
            report_frame (c, d, s, mine, t0, tty);
          else if (s->status != NB_ERR_CANCELLED)
            {
              fprintf (stderr, "nanobragg-series: frame %ld: %s\n", s->index + 1, s->err.message);
              /* the writer finishes (or drops) its frame first: no temporary file stays */
              worker_clear (w);
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
      st = render_frame (w, c, index, s, &err);
      if (st == NB_ERR_CANCELLED)
        {
          draining = 1;
          continue;
        }
      if (st != NB_OK)
        {
          fprintf (stderr, "nanobragg-series: frame %ld: %s\n", index + 1, err.message);
          worker_clear (w);
          dist_abort (d, 1);
        }
      if (s->skipped)
        s->state = SLOT_DONE;
      else
        worker_post (w, s);
    }
  mine->seconds = now_s () - t0;
}

/* Rank 0, once every rank is done: the summary, printed and written as
 * PREFIX_summary.json.  Returns 0 or the exit status. */
static int
write_summary (
    const series_config *c, const rank_stats *all, int tty, double *seconds_out, long *written_out)
{
  nb_error err = { 0 };
  double seconds = 0;
  long written = 0, done = 0;
  char *text = NULL;
  size_t size = 0;
  FILE *f;
  char *path = series_path (c, "summary.json");
  int rc = 0;

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
  return rc;
}

/* Runs the configured series; rank 0 fills *@seconds and *@written.
 * Returns the exit status. */
static int
run_series (series_config *c, distributor *d, double *seconds_out, long *written_out)
{
  worker w = { 0 };
  rank_stats mine = { 0 }, *all = NULL;
  int rc = 0, tty = isatty (2) && !c->quiet;
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

  if (c->rank == 0)
    rc = write_series_outputs (c, &w, series_file);
  rc = dist_broadcast_int (d, rc);
  free (series_file);
  if (rc != 0)
    {
      if (rc == 130)
        fputs ("nanobragg-series: interrupted before the first frame\n", stderr);
      unlock_prefix (c);
      worker_clear (&w);
      return rc;
    }

  render_frames (c, d, &w, &mine, tty);
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
    rc = write_summary (c, all, tty, seconds_out, written_out);
  free (all);
  unlock_prefix (c);
  return rc;
}

/* Frame @index's flags as one line, a JSON array of strings. */
static void
print_frame_flags (FILE *f, const series_config *c, long index)
{
  extra_flags e;

  frame_extras (c, index, &e);
  fputc ('[', f);
  for (int k = 0; k < e.n; k++)
    {
      fputs (k ? ", " : "", f);
      json_string (f, e.argv[k]);
    }
  fputs ("]\n", f);
}

/* --list-frames: every frame's flags, a line each, as they are made (the
 * series file describes them by rule).  Returns the exit status. */
static int
list_frames (const series_config *c)
{
  for (long i = 0; i < c->frames; i++)
    {
      if (cancelled ())
        return 130;
      print_frame_flags (stdout, c, i);
      if (ferror (stdout))
        break;
    }
  return 0;
}

/* --bench: series-bench.c sets the series up, it runs here, series-bench.c
 * reports it.  Returns the exit status. */
static int
run_bench (series_config *c, distributor *d, const bench_options *b, int argc, char **argv)
{
  bench_run r;
  double seconds = 0;
  long written = 0;
  int rc;

  if ((rc = bench_prepare (c, d, b, &r)) != 0)
    return rc;
  if ((rc = configure_series (c, argc, argv, c->rank == 0)) != 0)
    return rc;
  bench_start (&r);
  rc = run_series (c, d, &seconds, &written);
  return bench_finish (c, b, &r, rc, seconds, written);
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
  /* every file name is made up from --out: never follow a link there (the
   * writer thread says the same for itself, writer_main) */
  nb_output_set_derived (1);
  rc = parse_command_line (&c, &b, argc, argv);
  if (rc == 0 && b.bench)
    rc = run_bench (&c, &d, &b, argc, argv);
  else if (rc == 0)
    {
      if (argc < 2)
        rc = usage_error ("no arguments (see --help)");
      if (rc == 0 && !c.list_frames)
        rc = check_output_folder (&c);
      if (rc == 0)
        rc = configure_series (&c, argc, argv, c.rank == 0);
      if (rc == 0 && c.list_frames)
        rc = c.rank == 0 ? list_frames (&c) : 0;
      else if (rc == 0)
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
