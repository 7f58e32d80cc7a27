/* series-mpi.c: nanobragg-series' frames handed out among MPI ranks (one
 * counter at rank 0, MPI_Fetch_and_op), or counted in one process; the
 * GPU a rank takes. */
#include "nanobragg-series-private.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* MPI, or one process. */

#ifdef NB_HAVE_MPI
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
#endif

void
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
void
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

long long
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

void
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
int
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
void
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

void
dist_gather (distributor *d, const rank_stats *mine, rank_stats *all, int ranks)
{
#ifdef NB_HAVE_MPI
  if (d->active)
    {
      double v[4] = { (double) mine->written, (double) mine->skipped, (double) mine->rewritten,
                      mine->seconds };
      double *recv = malloc (4 * sizeof (double) * (size_t) ranks);
      int rank;

      MPI_Comm_rank (MPI_COMM_WORLD, &rank);
      MPI_Gather (v, 4, MPI_DOUBLE, recv, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      if (rank == 0 && recv != NULL)
        for (int r = 0; r < ranks; r++)
          {
            all[r].written = (long) recv[4 * r];
            all[r].skipped = (long) recv[4 * r + 1];
            all[r].rewritten = (long) recv[4 * r + 2];
            all[r].seconds = recv[4 * r + 3];
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

void
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
void
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
