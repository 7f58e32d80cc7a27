/* mtz.c: structure factors from MTZ files (libccp4), expanded to P1. */
#include "nb-mtz.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NB_HAVE_CCP4
#include <ccp4/ccp4_errno.h>
#include <ccp4/cmtzlib.h>
#endif

nb_status
nb_hkl_grid_build (const char *source,
                   const int *hkl,
                   const double *F,
                   long n,
                   double default_F,
                   size_t max_bytes,
                   size_t cell_bytes,
                   nb_hkl_grid *out,
                   nb_error *err)
{
  nb_hkl_grid g;
  size_t nh, nk, nl;

  memset (out, 0, sizeof *out);
  if (n <= 0)
    return nb_error_set (err, NB_ERR_INVALID, "%s: no reflections", source);
  memset (&g, 0, sizeof g);
  g.h_min = g.h_max = hkl[0];
  g.k_min = g.k_max = hkl[1];
  g.l_min = g.l_max = hkl[2];
  for (long i = 0; i < n; i++)
    {
      const int *r = hkl + 3 * i;

      for (int a = 0; a < 3; a++)
        if (r[a] > NB_HKL_INDEX_MAX || r[a] < -NB_HKL_INDEX_MAX)
          return nb_error_set (err, NB_ERR_INVALID, "%s: Miller index %d %d %d beyond +-%d", source,
                               r[0], r[1], r[2], NB_HKL_INDEX_MAX);
      g.h_min = r[0] < g.h_min ? r[0] : g.h_min;
      g.h_max = r[0] > g.h_max ? r[0] : g.h_max;
      g.k_min = r[1] < g.k_min ? r[1] : g.k_min;
      g.k_max = r[1] > g.k_max ? r[1] : g.k_max;
      g.l_min = r[2] < g.l_min ? r[2] : g.l_min;
      g.l_max = r[2] > g.l_max ? r[2] : g.l_max;
    }
  /* counts, not spans, and one zero padding plane per axis (nb_hkl_grid) */
  g.h_range = g.h_max - g.h_min + 1;
  g.k_range = g.k_max - g.k_min + 1;
  g.l_range = g.l_max - g.l_min + 1;
  g.hkls = n;
  nh = (size_t) g.h_range + 1;
  nk = (size_t) g.k_range + 1;
  nl = (size_t) g.l_range + 1;
  if ((double) nh * (double) nk * (double) nl * (double) cell_bytes > (double) max_bytes)
    return nb_error_set (err, NB_ERR_NOMEM,
                         "%s: indices %d..%d, %d..%d, %d..%d need a %.1f MB grid, more than the "
                         "memory budget leaves for structure factors (%.1f MB; see -memory_budget)",
                         source, g.h_min, g.h_max, g.k_min, g.k_max, g.l_min, g.l_max,
                         (double) nh * nk * nl * cell_bytes / 1e6, max_bytes / 1e6);
  if ((g.F = calloc (nh * nk * nl, sizeof (double))) == NULL)
    return nb_error_set (err, NB_ERR_NOMEM, "%s: cannot allocate a %zu x %zu x %zu grid", source,
                         nh, nk, nl);
  if (default_F != 0.0)
    for (int h = 0; h < g.h_range; h++)
      for (int k = 0; k < g.k_range; k++)
        for (int l = 0; l < g.l_range; l++)
          g.F[((size_t) h * nk + (size_t) k) * nl + (size_t) l] = default_F;
  for (long i = 0; i < n; i++)
    {
      const int *r = hkl + 3 * i;

      g.F[((size_t) (r[0] - g.h_min) * nk + (size_t) (r[1] - g.k_min)) * nl +
          (size_t) (r[2] - g.l_min)] = F[i];
    }
  *out = g;
  return NB_OK;
}

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
  nb_status st;

  memset (out, 0, sizeof *out);
  /* our own messages for the common failures; libccp4 is kept silent */
  if ((probe = fopen (path, "rb")) == NULL)
    return nb_error_set (err, NB_ERR_IO, "%s: cannot open", path);
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

      hkl = malloc (cap * 3 * sizeof (int));
      F = malloc (cap * sizeof (double));
    }
  if (mtz->nref > 0 && (hkl == NULL || F == NULL))
    {
      free (hkl);
      free (F);
      MtzFree (mtz);
      return nb_error_set (err, NB_ERR_NOMEM, "%s: out of memory for %d reflections", path,
                           mtz->nref);
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
  st = nb_hkl_grid_build (path, hkl, F, n, default_F, max_bytes, cell_bytes, out, err);
  free (hkl);
  free (F);
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
