/* mtz.c: structure factors from MTZ files (libccp4), expanded to P1. */
#include "nb-mtz.h"
#include "nanobragg.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NB_HAVE_CCP4
#include <ccp4/ccp4_errno.h>
#include <ccp4/cmtzlib.h>
#endif

int
nb_file_is_mtz (const char *path)
{
  char magic[4];
  FILE *f = fopen (path, "rb");
  int is = 0;

  if (f == NULL)
    return 0;
  is = fread (magic, 1, 4, f) == 4 && memcmp (magic, "MTZ ", 4) == 0;
  fclose (f);
  return is;
}

#ifdef NB_HAVE_CCP4

int
nb_mtz_supported (void)
{
  return 1;
}

/* The first column labelled @label (any label when NULL) whose type is @type
 * (any type when NULL). */
static MTZCOL *
find_column (MTZ *mtz, const char *label, const char *type)
{
  for (int x = 0; x < mtz->nxtal; x++)
    for (int s = 0; s < mtz->xtal[x]->nset; s++)
      for (int c = 0; c < mtz->xtal[x]->set[s]->ncol; c++)
        {
          MTZCOL *col = mtz->xtal[x]->set[s]->col[c];

          if ((label == NULL || strcmp (col->label, label) == 0) &&
              (type == NULL || strcmp (col->type, type) == 0))
            return col;
        }
  return NULL;
}

nb_status
nb_mtz_read (const char *path,
             const char *column,
             double default_F,
             size_t max_bytes,
             size_t cell_bytes,
             nb_hkl_grid *out,
             char column_used[32],
             nb_error *err)
{
  FILE *probe;
  MTZ *mtz;
  MTZCOL *H, *K, *L, *Fcol;
  const SYMGRP *sg;
  int nops, *hkl = NULL;
  double *F = NULL;
  long n = 0;
  size_t file_bytes = 0, held = 0;
  nb_status st;

  memset (out, 0, sizeof *out);
  /* our own messages for the common failures; libccp4 is kept silent */
  if ((probe = fopen (path, "rb")) == NULL)
    return nb_error_set (err, NB_ERR_IO, "%s: cannot open", path);
  /* libccp4 holds the whole file in memory */
  if (fseek (probe, 0, SEEK_END) == 0 && ftell (probe) > 0)
    file_bytes = (size_t) ftell (probe);
  if (file_bytes > max_bytes)
    {
      double mb = (double) file_bytes / 1e6;

      fclose (probe);
      return nb_error_set (err, NB_ERR_NOMEM,
                           "%s: %.1f MB, more than the memory budget leaves for structure factors "
                           "(%.1f MB; see -memory_budget)",
                           path, mb, (double) max_bytes / 1e6);
    }
  fclose (probe);
  if (!nb_file_is_mtz (path))
    return nb_error_set (err, NB_ERR_PARSE, "%s: not an MTZ file (no \"MTZ \" magic)", path);
  ccp4_liberr_verbosity (0);
  mtz = MtzGet (path, 1);
  if (mtz == NULL)
    return nb_error_set (err, NB_ERR_PARSE, "%s: unreadable MTZ file (%s)", path,
                         ccp4_strerror (ccp4_errno));
  H = find_column (mtz, "H", "H");
  K = find_column (mtz, "K", "H");
  L = find_column (mtz, "L", "H");
  /* the column asked for, else the first amplitude column */
  Fcol = column != NULL ? find_column (mtz, column, NULL) : find_column (mtz, NULL, "F");
  if (H == NULL || K == NULL || L == NULL)
    {
      MtzFree (mtz);
      return nb_error_set (err, NB_ERR_PARSE, "%s: no H K L index columns", path);
    }
  if (Fcol == NULL)
    {
      MtzFree (mtz);
      if (column != NULL)
        return nb_error_set (err, NB_ERR_PARSE, "%s: no column labelled '%s'", path, column);
      return nb_error_set (err, NB_ERR_PARSE, "%s: no amplitude column (type F)", path);
    }
  if (column_used != NULL)
    snprintf (column_used, 32, "%s", Fcol->label);

  sg = &mtz->mtzsymm;
  nops = sg->nsymp > 0 ? sg->nsymp : 1;
  if (mtz->nref > 0)
    {
      size_t cap = (size_t) mtz->nref * (size_t) nops * 2;
      const size_t record_bytes = sizeof (double) + 3 * sizeof (int);

      /* every symmetry mate and its Friedel mate, beside the file's copy in
       * memory, before the grid is built */
      if (cap > (max_bytes - file_bytes) / record_bytes)
        {
          double mb = (double) cap * record_bytes / 1e6;
          int nref = mtz->nref;

          MtzFree (mtz);
          return nb_error_set (err, NB_ERR_NOMEM,
                               "%s: %d reflections x %d symmetry operators x 2 (Friedel) take "
                               "%.1f MB, more than the memory budget leaves for structure factors "
                               "(%.1f MB; see -memory_budget)",
                               path, nref, nops, mb, (double) max_bytes / 1e6);
        }
      /* one block, F then the indices (on huge pages, as the HKL reader's) */
      held = cap * record_bytes;
      F = nb_alloc_large (held);
      if (F != NULL)
        hkl = (int *) (void *) (F + cap);
    }
  if (mtz->nref > 0 && (hkl == NULL || F == NULL))
    {
      int nref = mtz->nref;

      free (F);
      MtzFree (mtz);
      return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory for %d reflections", path, nref);
    }
  for (int i = 0; i < mtz->nref; i++)
    {
      float f = Fcol->ref[i];
      int h[3] = { (int) lrintf (H->ref[i]), (int) lrintf (K->ref[i]), (int) lrintf (L->ref[i]) };

      if (isnan (f) || ccp4_ismnf (mtz, f))
        continue;
      for (int s = 0; s < nops; s++)
        {
          int hp[3];

          /* indices transform as a row vector by the rotation: h' = h R */
          for (int c = 0; c < 3; c++)
            hp[c] = (int) lrintf (h[0] * sg->sym[s][0][c] + h[1] * sg->sym[s][1][c] +
                                  h[2] * sg->sym[s][2][c]);
          for (int sign = 1; sign >= -1; sign -= 2)
            {
              for (int c = 0; c < 3; c++)
                hkl[3 * n + c] = sign * hp[c];
              F[n++] = f;
            }
        }
    }
  MtzFree (mtz);
  st = nb_hkl_grid_build (path, hkl, F, n, default_F, max_bytes, cell_bytes, held, out, err);
  free (F); /* and hkl */
  return st;
}

#else /* !NB_HAVE_CCP4 */

int
nb_mtz_supported (void)
{
  return 0;
}

nb_status
nb_mtz_read (const char *path,
             const char *column,
             double default_F,
             size_t max_bytes,
             size_t cell_bytes,
             nb_hkl_grid *out,
             char column_used[32],
             nb_error *err)
{
  memset (out, 0, sizeof *out);
  return nb_error_set (err, NB_ERR_UNSUPPORTED,
                       "%s: this build reads no MTZ files (libccp4 was not found); convert it "
                       "to an HKL text file",
                       path);
}

#endif
