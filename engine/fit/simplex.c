/* simplex.c: Nelder and Mead's simplex minimiser (Comput. J. 7 (1965) 308;
 * reflection 1, expansion 2, contraction and shrink 1/2), which refine.c
 * drives over the orientation and the detector's motion. */
#include "nb-match-private.h"

#include <math.h>
#include <string.h>

int
nb_nelder_mead (nb_nm_fn fn,
                void *ctx,
                int n,
                double *x,
                double *fx,
                const double *step,
                int max_evals,
                double xtol,
                double ftol,
                const int *stop)
{
  double v[NB_NM_MAX + 1][NB_NM_MAX], f[NB_NM_MAX + 1], c[NB_NM_MAX], xr[NB_NM_MAX], xe[NB_NM_MAX],
      xc[NB_NM_MAX];
  int evals = 0;

  for (int i = 0; i <= n; i++)
    {
      memcpy (v[i], x, (size_t) n * sizeof *x);
      if (i > 0)
        v[i][i - 1] += step[i - 1];
      f[i] = fn (v[i], ctx);
      evals++;
    }
  while (evals < max_evals && !*stop)
    {
      int best = 0, worst = 0, second = 0;
      double size = 0, fr, fe, fc;

      for (int i = 1; i <= n; i++)
        {
          if (f[i] < f[best])
            best = i;
          if (f[i] > f[worst])
            worst = i;
        }
      second = best;
      for (int i = 0; i <= n; i++)
        if (i != worst && f[i] > f[second])
          second = i;
      for (int i = 0; i <= n; i++)
        for (int j = 0; j < n; j++)
          {
            double d = fabs (v[i][j] - v[best][j]) / step[j];

            if (d > size)
              size = d;
          }
      if (size < xtol && f[worst] - f[best] <= ftol)
        break;

      for (int j = 0; j < n; j++)
        {
          c[j] = 0;
          for (int i = 0; i <= n; i++)
            if (i != worst)
              c[j] += v[i][j];
          c[j] /= n;
          xr[j] = c[j] + (c[j] - v[worst][j]);
        }
      fr = fn (xr, ctx);
      evals++;
      if (fr < f[best])
        {
          for (int j = 0; j < n; j++)
            xe[j] = c[j] + 2.0 * (c[j] - v[worst][j]);
          fe = fn (xe, ctx);
          evals++;
          if (fe < fr)
            {
              memcpy (v[worst], xe, (size_t) n * sizeof *xe);
              f[worst] = fe;
            }
          else
            {
              memcpy (v[worst], xr, (size_t) n * sizeof *xr);
              f[worst] = fr;
            }
          continue;
        }
      if (fr < f[second])
        {
          memcpy (v[worst], xr, (size_t) n * sizeof *xr);
          f[worst] = fr;
          continue;
        }
      /* contraction: outside when the reflection beat the worst, else inside */
      for (int j = 0; j < n; j++)
        xc[j] = fr < f[worst] ? c[j] + 0.5 * (xr[j] - c[j]) : c[j] + 0.5 * (v[worst][j] - c[j]);
      fc = fn (xc, ctx);
      evals++;
      if (fc < (fr < f[worst] ? fr : f[worst]))
        {
          memcpy (v[worst], xc, (size_t) n * sizeof *xc);
          f[worst] = fc;
          continue;
        }
      /* shrink towards the best */
      for (int i = 0; i <= n; i++)
        if (i != best)
          {
            for (int j = 0; j < n; j++)
              v[i][j] = v[best][j] + 0.5 * (v[i][j] - v[best][j]);
            f[i] = fn (v[i], ctx);
            evals++;
          }
    }
  {
    int best = 0;

    for (int i = 1; i <= n; i++)
      if (f[i] < f[best])
        best = i;
    memcpy (x, v[best], (size_t) n * sizeof *x);
    *fx = f[best];
  }
  return evals;
}
