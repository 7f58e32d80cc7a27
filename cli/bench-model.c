/* bench-model.c: nanobragg-bench's model workload (m): the time to compute
 * structure factors from an atomic model to 2 Angstrom, as a plan does
 * (reading the file, the sum over the atoms, the expansion to P1), next to
 * `gemmi sfcalc --dmin=2` on the same file (FFT, its own default) in the same
 * run.  Two models: 1HPV (1,631 atoms, P 6_1), and 1HPV's asymmetric unit
 * tiled 2 x 2 x 3 in a P 6_1 cell of those edges (19,572 atoms, 117,432 in
 * the cell), written by the bench to a scratch folder. */
#include "bench-model.h"

#include "nanobragg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double
clock_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static double
median_of (double *v, int n)
{
  qsort (v, (size_t) n, sizeof *v, compare_doubles);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* 1HPV's atom records cut to 72 columns (its columns 73-80 hold line numbers,
 * which gemmi refuses), tiled @na x @nb x @nc times along the cell's edges
 * (Cartesian, the PDB's orthogonalisation: a along x, b at 120 degrees in the
 * xy plane, c along z), in a P 6_1 cell of those edges, into @out.  Returns
 * the atoms written, or -1. */
static long
write_tiled (const char *pdb, const char *out, int na, int nb, int nc)
{
  const double a = 63.4, c = 83.8;
  FILE *in = fopen (pdb, "r"), *f = fopen (out, "w");
  char (*lines)[81] = NULL, line[256];
  long n_lines = 0, n = 0;

  if (in != NULL && f != NULL && (lines = malloc (4096 * sizeof *lines)) != NULL)
    while (fgets (line, sizeof line, in) != NULL && n_lines < 4096)
      if ((strncmp (line, "ATOM  ", 6) == 0 || strncmp (line, "HETATM", 6) == 0) &&
          strlen (line) >= 66)
        snprintf (lines[n_lines++], sizeof lines[0], "%.72s", line);
  if (in != NULL)
    fclose (in);
  if (f == NULL || lines == NULL || n_lines == 0)
    {
      if (f != NULL)
        fclose (f);
      free (lines);
      return -1;
    }
  fprintf (f, "CRYST1%9.3f%9.3f%9.3f  90.00  90.00 120.00 P 61          \n", a * na, a * nb,
           c * nc);
  for (int i = 0; i < na; i++)
    for (int j = 0; j < nb; j++)
      for (int k = 0; k < nc; k++)
        for (long t = 0; t < n_lines; t++)
          {
            const char *l = lines[t];
            char num[9];
            double xyz[3];
            /* the element from the atom name (columns 13-14) */
            char element[3] = { l[12] == ' ' ? l[13] : l[12], l[12] == ' ' ? '\0' : l[13], 0 };

            for (int m = 0; m < 3; m++)
              {
                memcpy (num, l + 30 + 8 * m, 8);
                num[8] = '\0';
                xyz[m] = atof (num);
              }
            xyz[0] += i * a - j * a / 2;
            xyz[1] += j * a * sqrt (3.0) / 2;
            xyz[2] += k * c;
            fprintf (f, "%.30s%8.3f%8.3f%8.3f%.12s          %2s\n", l, xyz[0], xyz[1], xyz[2],
                     l + 54, element);
            n++;
          }
  fprintf (f, "END\n");
  free (lines);
  return fclose (f) == 0 ? n : -1;
}

/* The milliseconds of "gemmi sfcalc --dmin=2 --to-mtz=@mtz @model" from spawn
 * to exit, or -1 when gemmi is not on PATH or fails. */
static double
time_gemmi (const char *model, const char *mtz)
{
  char to_mtz[PATH_MAX + 64];
  char *argv[] = { "gemmi", "sfcalc", "--dmin=2", to_mtz, (char *) model, NULL };
  posix_spawn_file_actions_t actions;
  pid_t pid;
  int status, rc;
  double start;

  snprintf (to_mtz, sizeof to_mtz, "--to-mtz=%s", mtz);
  posix_spawn_file_actions_init (&actions);
  posix_spawn_file_actions_addopen (&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen (&actions, 2, "/dev/null", O_WRONLY, 0);
  start = clock_ms ();
  rc = posix_spawnp (&pid, "gemmi", &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy (&actions);
  if (rc != 0)
    return -1;
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return -1;
  return clock_ms () - start;
}

/* The milliseconds of a plan of @model to 2 Angstrom (a small detector that
 * reaches beyond it, at the default 1 Angstrom), and the reflections computed and the time of the sum
 * the plan's log gives. */
static double
time_plan (const char *model, long *reflections, double *sum_ms)
{
  /* one string, split below: the flags' names stay the parameter table's to spell */
  char scene[] = "-dmin 2 -distance 50 -pixel 2 -detpixels 64";
  const char *argv[16] = { "nanobragg", "-model", model };
  int argc = 3;

  for (char *w = strtok (scene, " "); w != NULL && argc < 16; w = strtok (NULL, " "))
    argv[argc++] = w;
  nb_params p;
  nb_plan *plan;
  nb_error err;
  double start = clock_ms (), ms;
  const char *line;
  double s = 0;

  nb_params_init (&p);
  if (nb_params_parse_argv (&p, argc, argv, &err) != NB_OK ||
      nb_plan_create (&p, &plan, &err) != NB_OK)
    {
      fprintf (stderr, "nanobragg-bench: %s\n", err.message);
      nb_params_clear (&p);
      return -1;
    }
  ms = clock_ms () - start;
  if ((line = strstr (nb_plan_get_log (plan), "computed ")) != NULL &&
      sscanf (line, "computed %ld structure factors", reflections) == 1 &&
      (line = strstr (line, " in ")) != NULL && sscanf (line, " in %lf s", &s) == 1)
    *sum_ms = s * 1e3;
  nb_plan_destroy (plan);
  nb_params_clear (&p);
  return ms;
}

int
bench_models (const char *data_dir, int threads, int repeat, int json)
{
  char dir[] = "/tmp/nanobragg-bench-XXXXXX", pdb[PATH_MAX], files[2][PATH_MAX + 32],
       mtz[PATH_MAX + 32];
  static const int tiles[2][3] = { { 1, 1, 1 }, { 2, 2, 3 } };
  static const char *const names[2] = { "m-1hpv", "m-large" };
  int ok = 1;

  snprintf (pdb, sizeof pdb, "%s/1hpv.pdb", data_dir);
  if (mkdtemp (dir) == NULL)
    {
      fprintf (stderr, "nanobragg-bench: cannot make a scratch folder: %s\n", strerror (errno));
      return 0;
    }
  snprintf (mtz, sizeof mtz, "%s/out.mtz", dir);
  if (!json)
    printf ("%-8s %7s %7s %9s %11s %10s %10s %8s\n", "workload", "threads", "atoms", "reflns",
            "sum_ms", "plan_ms", "gemmi_ms", "ratio");
  for (int w = 0; w < 2 && ok; w++)
    {
      double plan_ms[16], gemmi_ms[16], sum_ms[16], plan, gemmi, sum;
      long atoms, reflections = 0;
      int rounds = repeat < 1 ? 1 : repeat > 16 ? 16 : repeat;

      snprintf (files[w], sizeof files[w], "%s/%s.pdb", dir, names[w]);
      if ((atoms = write_tiled (pdb, files[w], tiles[w][0], tiles[w][1], tiles[w][2])) < 0)
        {
          fprintf (stderr, "nanobragg-bench: cannot write %s from %s\n", files[w], pdb);
          ok = 0;
          break;
        }
      if (w == 1 && rounds > 1)
        rounds = 1; /* a minute or so a round */
      for (int r = 0; r < rounds && ok; r++)
        {
          sum_ms[r] = 0;
          gemmi_ms[r] = time_gemmi (files[w], mtz);
          plan_ms[r] = time_plan (files[w], &reflections, &sum_ms[r]);
          ok = plan_ms[r] >= 0;
        }
      if (!ok)
        break;
      plan = median_of (plan_ms, rounds);
      sum = median_of (sum_ms, rounds);
      gemmi = gemmi_ms[0] < 0 ? -1 : median_of (gemmi_ms, rounds);
      if (json)
        {
          printf ("{\"workload\":\"%s\",\"threads\":%d,\"atoms\":%ld,\"reflections\":%ld,"
                  "\"sum_ms\":%.1f,\"plan_ms\":%.1f",
                  names[w], threads, atoms, reflections, sum, plan);
          if (gemmi >= 0)
            printf (",\"gemmi_ms\":%.1f,\"ratio\":%.3f", gemmi, gemmi / plan);
          printf ("}\n");
        }
      else if (gemmi >= 0)
        printf ("%-8s %7d %7ld %9ld %11.1f %10.1f %10.1f %8.3f\n", names[w], threads, atoms,
                reflections, sum, plan, gemmi, gemmi / plan);
      else
        printf ("%-8s %7d %7ld %9ld %11.1f %10.1f %10s %8s  (no gemmi on PATH: no ratio)\n",
                names[w], threads, atoms, reflections, sum, plan, "-", "-");
      fflush (stdout);
    }
  for (int w = 0; w < 2; w++)
    unlink (files[w]);
  unlink (mtz);
  rmdir (dir);
  return ok;
}
