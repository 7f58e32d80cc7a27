/* kernel-adaptive-body.h: the adaptive pixel integrator (single and double
 * precision), included by kernel-fast-variants.h after kernel-fast-body.h,
 * once per precision and instruction set, with its macros (NB_REAL,
 * NB_REAL_IS_DOUBLE, NB_CTX, NB_SUFFIX, NB_PHYS_SUFFIX) and <tgmath.h>.
 *
 * The chunk_bounds of a row's pixels, vectorised as the fast kernel, say
 * which pixels need more than one sample at their centre; those take it
 * from the fast kernel (render_row with the os = 1 copy of the tables, over
 * runs of such pixels), their factors (solid angle, polarization, capture)
 * then moved to where the reference takes them, its first sub-pixel.  The
 * others are integrated one by one (adaptive_pixel), but for those whose
 * cells would take more samples than the exact kernel's oversampling: they
 * are the exact kernel's (the cap, docs/adaptive-integration.md).
 *
 * A pixel is a square cell of the detector; for every source and
 * orientation step the fractional Miller indices at the cell's centre and
 * their derivatives along fdet and sdet (the Jacobian, from the derivative of
 * the scattering vector) give the cell's footprint in (h, k, l): each index
 * lies within Delta of its value at the centre.  The distance of the
 * footprint from the nearest whole index bounds the lattice factor there (the
 * shape transform's envelope, lattice_bound); times the largest F^2 it bounds
 * the cell's term.  A cell whose bound is below the tolerance takes one
 * sample at its centre; a cell narrower than fine_width fringes takes the
 * 2 x 2 Gauss-Legendre rule; any other is split in four.  docs/adaptive-integration.md states the
 * error bound.
 */

#define NB_CAT2(a, b) a##b
#define NB_CAT(a, b)  NB_CAT2 (a, b)
#define FN(name)      NB_CAT (name, NB_SUFFIX)
#define R             NB_REAL
#define K(x)          ((R) (x))

#define CH NB_FAST_CHUNK
/* nb-physics.h's functions of this suffix: kernel-fast-body.h defined them */
#define NB_PHYS(name) NB_CAT (name, NB_PHYS_SUFFIX)

/* One pixel's layer being integrated: its centre's position, and for every
 * (source, step) pair src * nsteps + step the change per pixel along fdet
 * (gu) and sdet (gv) of h, k, l at the centre (the Jacobian); hc and keep
 * hold the cell being looked at. */
typedef struct
{
  const NB_CTX *c;
  const nb_adaptive_shape *shape;
  R centre[3];
  R *hc;      /* 3 * pairs: h, k, l at the cell's centre */
  R *gu, *gv; /* 3 * pairs */
  R *keep;    /* nsources: 0 where -dmin cuts the source at the cell's centre */
  int pairs;
  R tau; /* a cell whose bound (sum of lattice factor^2 F^2) is below this takes one sample */
  R fine_width; /* ... and so does one whose footprint is narrower than this (fringes) */
  R margin;     /* relative widening of the footprint: the Jacobian's change over a pixel */
  double samples;
} FN (apix);

#if NB_REAL_IS_DOUBLE
#define NB_EPS K (2.3e-16)
#else
#define NB_EPS K (1.2e-7)
#endif

/* The unit direction from the sample to the point @p and its length. */
static inline R
FN (unit_dir) (const R p[3], R d[3])
{
  R r = sqrt (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
  R inv = K (1.0) / r;

  d[0] = p[0] * inv;
  d[1] = p[1] * inv;
  d[2] = p[2] * inv;
  return r;
}

/* The bound of the lattice factor squared over a footprint whose indices lie
 * at least x[0], x[1], x[2] (0 ... 1/2) from the nearest whole ones: the
 * envelope of the shape transform (docs/adaptive-integration.md). */
static inline R
FN (lattice_bound) (const NB_CTX *c, const nb_adaptive_shape *sh, const R x[3])
{
  const R N[3] = { c->Na, c->Nb, c->Nc };
  R NNN = N[0] * N[1] * N[2];

  if (c->shape == NB_SHAPE_SQUARE)
    {
      /* |sin(N pi x) / sin(pi x)| <= min(N, 1 / sin(pi x)), per axis */
      R b = K (1.0);
      for (int i = 0; i < 3; i++)
        if (N[i] > K (1.0))
          {
            R s = NB_PHYS (nb_sinpi_half) (x[i]);
            b *= N[i] * s <= K (1.0) ? N[i] * N[i] : K (1.0) / (s * s);
          }
      return b;
    }
  if (c->shape == NB_SHAPE_ROUND)
    {
      /* |sinc3(X)| <= min(1, 3 (1 + X) / X^3), X = pi sqrt(fudge sum (N x)^2) */
      R hr = K (0.0), X, env, fl;
      for (int i = 0; i < 3; i++)
        hr += x[i] * x[i] * N[i] * N[i];
      X = K (3.14159265358979323846) * sqrt (hr * c->fudge);
      env = X > K (0.0) ? K (3.0) * (K (1.0) + X) / (X * X * X) : K (1.0);
      fl = NNN * K (0.723601254558268) * (env < K (1.0) ? env : K (1.0));
      return fl * fl;
    }
  {
    /* |x a* + y b* + z c*|^2 >= the Gram matrix's smallest eigenvalue |x|^2 */
    R rs = (R) sh->gram_min * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) * NNN * NNN;
    if (c->shape == NB_SHAPE_GAUSS)
      {
        R fl = NNN * exp (-(rs / K (0.63) * c->fudge));
        return fl * fl;
      }
    return rs * c->fudge < K (0.3969) ? NNN * NNN : K (0.0);
  }
}

/* The Miller indices of every pair at the point (u, v) of the pixel (pixels
 * from its centre) into a->hc, and which sources -dmin keeps there. */
static void
FN (cell_indices) (FN (apix) * a, R u, R v)
{
  const NB_CTX *c = a->c;
  R p[3], d[3];

  for (int k = 0; k < 3; k++)
    p[k] = a->centre[k] + u * c->pixel_size * c->fdet[k] + v * c->pixel_size * c->sdet[k];
  FN (unit_dir) (p, d);
  for (int src = 0; src < c->nsources; src++)
    {
      const R *inc = c->inc + 3 * src;
      const R il = c->inv_lambda[src];
      R q[3] = { (d[0] - inc[0]) * il, (d[1] - inc[1]) * il, (d[2] - inc[2]) * il };

      a->keep[src] = K (1.0);
      if (c->dmin > K (0.0))
        {
          R stol = K (0.5) * sqrt (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
          if (stol > K (0.0) && c->dmin > K (0.5) / stol)
            a->keep[src] = K (0.0);
        }
      for (int j = 0; j < c->nsteps; j++)
        {
          const R *m = c->abc + 9 * j;
          R *h = a->hc + 3 * (src * c->nsteps + j);

          h[0] = m[0] * q[0] + m[1] * q[1] + m[2] * q[2];
          h[1] = m[3] * q[0] + m[4] * q[1] + m[5] * q[2];
          h[2] = m[6] * q[0] + m[7] * q[1] + m[8] * q[2];
        }
    }
}

/* One sample at the cell whose indices cell_indices() put in a->hc: the sum
 * over the kept pairs of lattice factor^2 F^2, the fast kernel's arithmetic
 * (nb-physics.h). */
static R
FN (cell_sample) (FN (apix) * a)
{
  const NB_CTX *c = a->c;
  R acc = K (0.0);

  a->samples += 1.0;
  for (int p = 0; p < a->pairs; p++)
    {
      const R *hkl = a->hc + 3 * p;
      R term, F;

      if (a->keep[p / c->nsteps] == K (0.0))
        continue;
      if (c->shape == NB_SHAPE_SQUARE)
        term = NB_PHYS (nb_lattice_square2) (hkl[0], hkl[1], hkl[2], c->Na, c->Nb, c->Nc);
      else
        term = NB_PHYS (nb_lattice_shape2) ((int) c->shape, hkl[0], hkl[1], hkl[2], c->Na, c->Nb,
                                            c->Nc, c->fudge, c->astar);
      F = c->F == NULL
              ? c->default_F
              : NB_PHYS (nb_structure_factor) (c->F, c->h_min, c->k_min, c->l_min, c->h_count,
                                               c->k_count, c->l_count, c->k_stride, c->l_stride,
                                               c->default_F, hkl[0], hkl[1], hkl[2]);
      acc += term * F * F;
    }
  return acc;
}

/* The bound over the cell of half width @hw whose centre's indices are in
 * a->hc: the sum over pairs of the lattice factor's envelope times F^2
 * (the reflection's where the footprint stays in its cell, else the largest),
 * into *bound.  Returns the widest footprint (fringes) of the pairs that
 * could reach the tolerance. */
static R
FN (cell_bound) (const FN (apix) * a, R hw, R *bound)
{
  const NB_CTX *c = a->c;
  const double *neff = a->shape->neff;
  R sum = K (0.0), widest = K (0.0);

  for (int p = 0; p < a->pairs; p++)
    {
      const R *hc = a->hc + 3 * p, *gu = a->gu + 3 * p, *gv = a->gv + 3 * p;
      R x[3], xfar2 = K (0.0), width = K (0.0), b, F2 = c->F2max;
      int inside = 1;

      for (int i = 0; i < 3; i++)
        {
          R h = hc[i];
          R delta = (fabs (gu[i]) + fabs (gv[i])) * hw * (K (1.0) + a->margin) +
                    K (8.0) * NB_EPS * fabs (h);
          R dist = fabs (h - rint (h));
          R off = dist - delta;
          R w = K (2.0) * delta * (R) neff[i];

          x[i] = off > K (0.0) ? off : K (0.0);
          xfar2 += (dist + delta) * (dist + delta);
          width = w > width ? w : width;
          inside &= dist + delta < K (0.5);
        }
      b = FN (lattice_bound) (c, a->shape, x);
      /* a flat-top spot is a step: no rule of higher order helps across its
       * edge, and a footprint wholly inside it (the Gram matrix's largest
       * eigenvalue bounds its farthest point) is constant */
      if (c->shape == NB_SHAPE_TOPHAT && b > K (0.0))
        {
          R NNN = c->Na * c->Nb * c->Nc;
          width = (R) a->shape->gram_max * xfar2 * NNN * NNN * c->fudge < K (0.3969) && inside
                      ? K (0.0)
                      : (R) INFINITY;
        }
      /* a footprint inside one reflection's cell sees its F only */
      if (inside && c->F != NULL)
        {
          R F = NB_PHYS (nb_structure_factor) (c->F, c->h_min, c->k_min, c->l_min, c->h_count,
                                               c->k_count, c->l_count, c->k_stride, c->l_stride,
                                               c->default_F, hc[0], hc[1], hc[2]);
          F2 = F * F;
        }
      else if (c->F == NULL)
        F2 = c->default_F * c->default_F;
      b *= F2;
      sum += b;
      if (b * (R) a->pairs > a->tau && width > widest)
        widest = width;
    }
  *bound = sum;
  return widest;
}

/* One factor of nb_lattice_square2 for a lane: nb_sincg_parts at @delta =
 * h - rint (h), its selects written as exact factors of 0 and 1 (@whole: 1
 * where |delta| counts as whole; @on: 1 for an axis of N > 1, whose parts
 * are else 1 and 1), into *num and *den: the same values but the sign of a
 * zero, which the square drops. */
static inline void
FN (lane_sincg) (R delta, R whole, R N, R on, R *num, R *den)
{
  R u = N * delta;
  R r = u - rint (u);
  R s_num = NB_PHYS (nb_sinpi_half) (r);
  R s_den = NB_PHYS (nb_sinpi_half) (delta);
  R part = K (1.0) - whole;

  *num *= (N * whole + s_num * part) * on + (K (1.0) - on);
  *den *= (whole + s_den * part) * on + (K (1.0) - on);
}

/* nb_lattice_square2 of the CH lanes (hh, kk, ll) into term, bit for bit,
 * vectorised on every instruction set (lane_sincg).  The "whole" flags are
 * stored by a loop of their own: computed in the same loop, GCC would turn
 * the factors back into branches around products it may not speculate under
 * -ftrapping-math, which kept points_mean scalar on AVX2 and SSE4.1. */
static void
FN (lanes_square2) (const NB_CTX *c, const R *hh, const R *kk, const R *ll, R *restrict term)
{
#if NB_REAL_IS_DOUBLE
  const R tiny = K (1e-10);
#else
  const R tiny = K (1e-6);
#endif
  const R Na = c->Na, Nb = c->Nb, Nc = c->Nc;
  const R on_a = Na > K (1.0) ? K (1.0) : K (0.0);
  const R on_b = Nb > K (1.0) ? K (1.0) : K (0.0);
  const R on_c = Nc > K (1.0) ? K (1.0) : K (0.0);
  R da[CH], db[CH], dc[CH], wa[CH], wb[CH], wc[CH];

  for (int l = 0; l < CH; l++)
    {
      da[l] = hh[l] - rint (hh[l]);
      db[l] = kk[l] - rint (kk[l]);
      dc[l] = ll[l] - rint (ll[l]);
      wa[l] = fabs (da[l]) < tiny ? K (1.0) : K (0.0);
      wb[l] = fabs (db[l]) < tiny ? K (1.0) : K (0.0);
      wc[l] = fabs (dc[l]) < tiny ? K (1.0) : K (0.0);
    }
  for (int l = 0; l < CH; l++)
    {
      R num = K (1.0), den = K (1.0), ratio;

      FN (lane_sincg) (da[l], wa[l], Na, on_a, &num, &den);
      FN (lane_sincg) (db[l], wb[l], Nb, on_b, &num, &den);
      FN (lane_sincg) (dc[l], wc[l], Nc, on_c, &num, &den);
      ratio = num / den;
      term[l] = ratio * ratio;
    }
}

/* nb_structure_factor_cell of the CH lanes into cell, vectorised: the
 * nearest index's half-way case (rint (x) - x == 1/2 rounds down) subtracts
 * 1 in integers (a select would become a branch around the subtraction);
 * unsigned arithmetic, as the range test reads it: the same cells. */
static void
FN (lanes_cell) (const NB_CTX *c, const R *hh, const R *kk, const R *ll, int *restrict cell)
{
  const unsigned h_min = (unsigned) c->h_min, k_min = (unsigned) c->k_min;
  const unsigned l_min = (unsigned) c->l_min, h_count = (unsigned) c->h_count;
  const unsigned k_count = (unsigned) c->k_count, l_count = (unsigned) c->l_count;
  const unsigned k_stride = (unsigned) c->k_stride, l_stride = (unsigned) c->l_stride;

  for (int l = 0; l < CH; l++)
    {
      R h = rint (hh[l]), k = rint (kk[l]), m = rint (ll[l]);
      unsigned h0 = (unsigned) (int) h - (unsigned) (h - hh[l] == K (0.5)) - h_min;
      unsigned k0 = (unsigned) (int) k - (unsigned) (k - kk[l] == K (0.5)) - k_min;
      unsigned l0 = (unsigned) (int) m - (unsigned) (m - ll[l] == K (0.5)) - l_min;
      int in = (h0 < h_count) & (k0 < k_count) & (l0 < l_count);

      cell[l] = in ? (int) ((h0 * k_stride + k0) * l_stride + l0) : -1;
    }
}

/* The mean of the term over the @n points (u[l], v[l]) of the pixel (pixels
 * from its centre), n <= CH: the fast kernel's chunk_steps over a chunk of
 * points, vectorised over them. */
static R
FN (points_mean) (FN (apix) * a, const R *u, const R *v, int n)
{
  const NB_CTX *c = a->c;
  R dx[CH], dy[CH], dz[CH], qx[CH], qy[CH], qz[CH], keep[CH], acc[CH];
  R hh[CH], kk[CH], ll[CH], term[CH], Fv[CH], sum = K (0.0);
  int cell[CH];

  for (int l = 0; l < CH; l++)
    {
      R px = a->centre[0] + (u[l] * c->fdet[0] + v[l] * c->sdet[0]) * c->pixel_size;
      R py = a->centre[1] + (u[l] * c->fdet[1] + v[l] * c->sdet[1]) * c->pixel_size;
      R pz = a->centre[2] + (u[l] * c->fdet[2] + v[l] * c->sdet[2]) * c->pixel_size;
      R inv = K (1.0) / sqrt (px * px + py * py + pz * pz);
      dx[l] = px * inv;
      dy[l] = py * inv;
      dz[l] = pz * inv;
      acc[l] = K (0.0);
    }
  for (int src = 0; src < c->nsources; src++)
    {
      const R *inc = c->inc + 3 * src;
      const R il = c->inv_lambda[src];
      for (int l = 0; l < CH; l++)
        {
          qx[l] = (dx[l] - inc[0]) * il;
          qy[l] = (dy[l] - inc[1]) * il;
          qz[l] = (dz[l] - inc[2]) * il;
          keep[l] = K (1.0);
        }
      if (c->dmin > K (0.0))
        for (int l = 0; l < CH; l++)
          {
            R stol = K (0.5) * sqrt (qx[l] * qx[l] + qy[l] * qy[l] + qz[l] * qz[l]);
            keep[l] = (stol > K (0.0) && c->dmin > K (0.5) / stol) ? K (0.0) : K (1.0);
          }
      for (int j = 0; j < c->nsteps; j++)
        {
          const R *m = c->abc + 9 * j;
          for (int l = 0; l < CH; l++)
            {
              hh[l] = m[0] * qx[l] + m[1] * qy[l] + m[2] * qz[l];
              kk[l] = m[3] * qx[l] + m[4] * qy[l] + m[5] * qz[l];
              ll[l] = m[6] * qx[l] + m[7] * qy[l] + m[8] * qz[l];
            }
          if (c->shape == NB_SHAPE_SQUARE)
            FN (lanes_square2) (c, hh, kk, ll, term);
          else
            for (int l = 0; l < CH; l++)
              term[l] = NB_PHYS (nb_lattice_shape2) ((int) c->shape, hh[l], kk[l], ll[l], c->Na,
                                                     c->Nb, c->Nc, c->fudge, c->astar);
          if (c->F != NULL)
            {
              FN (lanes_cell) (c, hh, kk, ll, cell);
              for (int l = 0; l < CH; l++)
                Fv[l] = cell[l] >= 0 ? c->F[cell[l]] : c->default_F;
            }
          else
            for (int l = 0; l < CH; l++)
              Fv[l] = c->default_F;
          for (int l = 0; l < CH; l++)
            acc[l] += term[l] * Fv[l] * Fv[l] * keep[l];
        }
    }
  for (int l = 0; l < n; l++)
    sum += acc[l];
  a->samples += (double) n;
  return sum / (R) n;
}

/* The 2 x 2 Gauss-Legendre rule (exact to third order) on each of k x k
 * sub-cells of the cell centred at (u, v) of half width @hw, k <= 4: one
 * chunk of points. */
static R
FN (cell_gauss) (FN (apix) * a, R u, R v, R hw, int k)
{
  R pu[CH], pv[CH];
  const R sub = K (2.0) * hw / (R) k, g = K (0.5) * sub * K (0.57735026918962576);
  int n = 0;

  for (int l = 0; l < CH; l++)
    pu[l] = pv[l] = K (0.0);
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++)
      {
        R cu = u - hw + sub * ((R) i + K (0.5)), cv = v - hw + sub * ((R) j + K (0.5));
        for (int q = 0; q < 4; q++)
          {
            pu[n] = cu + (q & 1 ? g : -g);
            pv[n] = cv + (q & 2 ? g : -g);
            n++;
          }
      }
  return FN (points_mean) (a, pu, pv, n);
}

/* The midpoint rule on 8 x 8 sub-cells of the cell centred at (u, v) of
 * half width @hw: one chunk of points. */
static R
FN (cell_grid) (FN (apix) * a, R u, R v, R hw)
{
  R pu[CH], pv[CH];
  const R sub = hw / K (4.0);

  _Static_assert(CH == 64, "cell_grid fills one chunk with 8 x 8 points");

  for (int l = 0; l < CH; l++)
    {
      pu[l] = u - hw + sub * ((R) (l % 8) + K (0.5));
      pv[l] = v - hw + sub * ((R) (l / 8) + K (0.5));
    }
  return FN (points_mean) (a, pu, pv, CH);
}

/* The mean of the term over the cell centred at (u, v) (pixels from the
 * pixel's centre) of half width @hw: one sample where the bound allows; the
 * Gauss rule on sub-cells at most fine_width fringes wide where four per
 * axis suffice; else the mean of its four quarters. */
static R
FN (cell_mean) (FN (apix) * a, R u, R v, R hw, int depth)
{
  R bound, widest, q = K (0.5) * hw;

  FN (cell_indices) (a, u, v);
  widest = FN (cell_bound) (a, hw, &bound);
  if (bound <= a->tau || depth >= NB_ADAPTIVE_MAX_DEPTH)
    return FN (cell_sample) (a);
  if (widest == K (0.0))
    return FN (cell_sample) (a);
  /* across a flat-top spot's edge: 8 x 8 points from 1/128 of a pixel on */
  if (widest == (R) INFINITY && depth >= 7)
    return FN (cell_grid) (a, u, v, hw);
  if (widest <= K (4.0) * a->fine_width)
    {
      int k = (int) ceil (widest / a->fine_width);
      return FN (cell_gauss) (a, u, v, hw, k < 1 ? 1 : k > 4 ? 4 : k);
    }
  return K (0.25) * (FN (cell_mean) (a, u - q, v - q, q, depth + 1) +
                     FN (cell_mean) (a, u + q, v - q, q, depth + 1) +
                     FN (cell_mean) (a, u - q, v + q, q, depth + 1) +
                     FN (cell_mean) (a, u + q, v + q, q, depth + 1));
}

/* The samples cell_mean would take on the cell centred at (u, v) of half
 * width @hw, from the same decisions (cell_bound at every cell, no sample
 * taken); once past @budget it stops and returns what it has counted. */
static double
FN (cell_cost) (FN (apix) * a, R u, R v, R hw, int depth, double budget)
{
  R bound, widest, q = K (0.5) * hw;
  double n = 0.0;

  FN (cell_indices) (a, u, v);
  widest = FN (cell_bound) (a, hw, &bound);
  if (bound <= a->tau || depth >= NB_ADAPTIVE_MAX_DEPTH || widest == K (0.0))
    return 1.0;
  if (widest == (R) INFINITY && depth >= 7)
    return (double) CH;
  if (widest <= K (4.0) * a->fine_width)
    {
      int k = (int) ceil (widest / a->fine_width);
      k = k < 1 ? 1 : k > 4 ? 4 : k;
      return 4.0 * k * k;
    }
  for (int i = 0; i < 4 && n <= budget; i++)
    n += FN (cell_cost) (a, u + (i & 1 ? q : -q), v + (i & 2 ? q : -q), q, depth + 1, budget - n);
  return n;
}

/* Layer @t's centre of pixel (fpixel, spixel) and the Jacobian of the
 * indices there, into @a. */
static void
FN (layer_setup) (FN (apix) * a, int fpixel, int spixel, int t)
{
  const NB_CTX *c = a->c;
  R d[3], df[3], ds[3], r, dotf, dots;
  const R Fdet = c->pixel_size * ((R) fpixel + K (0.5));
  const R Sdet = c->pixel_size * ((R) spixel + K (0.5));
  const R Odet = (R) t * c->thickstep;

  for (int k = 0; k < 3; k++)
    a->centre[k] = Fdet * c->fdet[k] + Sdet * c->sdet[k] + Odet * c->odet[k] + c->pix0[k];
  r = FN (unit_dir) (a->centre, d);
  dotf = d[0] * c->fdet[0] + d[1] * c->fdet[1] + d[2] * c->fdet[2];
  dots = d[0] * c->sdet[0] + d[1] * c->sdet[1] + d[2] * c->sdet[2];
  /* d(unit direction) per pixel: p (e - d (d . e)) / r */
  for (int k = 0; k < 3; k++)
    {
      df[k] = c->pixel_size * (c->fdet[k] - d[k] * dotf) / r;
      ds[k] = c->pixel_size * (c->sdet[k] - d[k] * dots) / r;
    }
  /* over a pixel the Jacobian changes by about 3 pixel / r of itself */
  a->margin = K (0.01) + K (6.0) * c->pixel_size / r;
  for (int src = 0; src < c->nsources; src++)
    {
      const R il = c->inv_lambda[src];
      R qu[3], qv[3];

      for (int k = 0; k < 3; k++)
        {
          qu[k] = df[k] * il;
          qv[k] = ds[k] * il;
        }
      for (int j = 0; j < c->nsteps; j++)
        {
          const R *m = c->abc + 9 * j;
          const int p = src * c->nsteps + j;

          for (int i = 0; i < 3; i++)
            {
              const R *row = m + 3 * i;
              a->gu[3 * p + i] = row[0] * qu[0] + row[1] * qu[1] + row[2] * qu[2];
              a->gv[3 * p + i] = row[0] * qv[0] + row[1] * qv[1] + row[2] * qv[2];
            }
        }
    }
}

/* The factors the fast kernel applies to a pixel's sum, where the
 * reference's method takes them as its oversampling grows: its first
 * sub-pixel (kernel-fast-body.h) tends to the pixel's first corner.
 * *@omega the solid angle, *@polar the polarization of the first source
 * -dmin keeps (1 with -nopolar, 0 when none), *@capture the last layer's
 * capture fraction. */
static void
FN (pixel_factors) (const NB_CTX *c, int fpixel, int spixel, R *omega, R *polar, R *capture)
{
  const R omega_scale = c->pixel_size * c->pixel_size * c->close_distance;
  const R Fdet = c->pixel_size * (R) fpixel;
  const R Sdet = c->pixel_size * (R) spixel;

  *polar = c->nopolar ? K (1.0) : K (0.0);
  *capture = K (1.0);
  for (int t = 0; t < c->thicksteps; t++)
    {
      const R Odet = (R) t * c->thickstep;
      R p[3], d[3], r;

      for (int k = 0; k < 3; k++)
        p[k] = Fdet * c->fdet[k] + Sdet * c->sdet[k] + Odet * c->odet[k] + c->pix0[k];
      r = FN (unit_dir) (p, d);
      if (t == 0)
        *omega = NB_PHYS (nb_solid_angle) (K (1.0) / r, omega_scale, c->point_pixel);
      if (c->thick != K (0.0))
        {
          R par = d[0] * c->odet[0] + d[1] * c->odet[1] + d[2] * c->odet[2];
          *capture =
              exp (-t * c->thickstep * c->mu / par) - exp (-(t + 1) * c->thickstep * c->mu / par);
        }
      for (int src = 0; src < c->nsources && *polar == K (0.0); src++)
        {
          const R *inc = c->inc + 3 * src;
          const R il = c->inv_lambda[src];
          R q[3] = { (d[0] - inc[0]) * il, (d[1] - inc[1]) * il, (d[2] - inc[2]) * il };
          R stol = K (0.5) * sqrt (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);

          if (c->dmin > K (0.0) && stol > K (0.0) && c->dmin > K (0.5) / stol)
            continue;
          *polar = NB_PHYS (nb_kahn_factor) (c->kahn, inc, c->pol + 6 * src, c->pol + 6 * src + 3,
                                             d[0], d[1], d[2]);
        }
    }
}

/* The factors (solid angle, polarization of the first source, last layer's
 * capture) at the point (Fdet, Sdet) of the detector, vectorisable. */
static inline R
FN (factors_at) (const NB_CTX *c, R Fdet, R Sdet)
{
  const R omega_scale = c->pixel_size * c->pixel_size * c->close_distance;
  const R Odet = (R) (c->thicksteps - 1) * c->thickstep;
  R p[3], d[3], p0[3], d0[3], r0, f, capture = K (1.0);

  for (int k = 0; k < 3; k++)
    {
      p0[k] = Fdet * c->fdet[k] + Sdet * c->sdet[k] + c->pix0[k];
      p[k] = p0[k] + Odet * c->odet[k];
    }
  r0 = FN (unit_dir) (p0, d0);
  FN (unit_dir) (p, d);
  f = NB_PHYS (nb_solid_angle) (K (1.0) / r0, omega_scale, c->point_pixel);
  if (!c->nopolar)
    f *= NB_PHYS (nb_kahn_factor) (c->kahn, c->inc, c->pol, c->pol + 3, d0[0], d0[1], d0[2]);
  if (c->thick != K (0.0))
    {
      const int t = c->thicksteps - 1;
      R par = d[0] * c->odet[0] + d[1] * c->odet[1] + d[2] * c->odet[2];
      capture = exp (-t * c->thickstep * c->mu / par) - exp (-(t + 1) * c->thickstep * c->mu / par);
    }
  return f * capture;
}

/* Pixel (fpixel, spixel) integrated adaptively: photons, as the fast
 * kernel writes them, with the cells' bound below @tol_photons photons per
 * pixel.  When its cells would take more samples than the reference's
 * method (oversample^2 per layer), none is taken and *@capped is set: the
 * pixel is then the exact kernel's (nb_adaptive_row). */
static double
FN (adaptive_pixel) (FN (apix) * a, int fpixel, int spixel, double tol_photons, int *capped)
{
  const NB_CTX *c = a->c;
  const R n2 = (R) c->oversample * (R) c->oversample;
  R omega = K (0.0), polar, capture, acc = c->I_start, S, v;

  FN (pixel_factors) (c, fpixel, spixel, &omega, &polar, &capture);
  S = c->scale * capture * polar * omega;
  /* per layer, in the units of the sum: the pixel's error is below
   * tol_photons when each layer's cells are below tau */
  a->tau = S > K (0.0) ? (R) (tol_photons / ((double) S * n2 * c->thicksteps)) : (R) INFINITY;
  {
    const double cap = (double) n2 * c->thicksteps;
    double cost = 0.0;

    for (int t = 0; t < c->thicksteps && cost <= cap; t++)
      {
        FN (layer_setup) (a, fpixel, spixel, t);
        cost += FN (cell_cost) (a, K (0.0), K (0.0), K (0.5), 0, cap - cost);
      }
    *capped = cost > cap;
    if (*capped)
      return 0.0;
  }
  for (int t = 0; t < c->thicksteps; t++)
    {
      FN (layer_setup) (a, fpixel, spixel, t);
      acc += n2 * FN (cell_mean) (a, K (0.0), K (0.0), K (0.5), 0);
    }
  v = S * acc;
  if (c->physical_bg != K (0.0))
    v += c->scale * c->physical_bg * capture * polar * omega;
  return (double) v;
}

/* The constants of point_factors, copied out of the context so that a loop
 * storing its results keeps them in registers (the context's arrays are of
 * the results' type and could alias them). */
typedef struct
{
  R fdet[3], sdet[3], pix0[3], inc[3], B[3], E[3];
  R kahn;
  R omega_scale, point; /* omega_scale 0 and point 1 with -point_pixel */
  R polar, unpolar;     /* 1 and 0, or 0 and 1 with -nopolar */
} FN (pfac);

static inline void
FN (pfac_setup) (const NB_CTX *c, FN (pfac) * k)
{
  for (int i = 0; i < 3; i++)
    {
      k->fdet[i] = c->fdet[i];
      k->sdet[i] = c->sdet[i];
      k->pix0[i] = c->pix0[i];
      k->inc[i] = c->inc[i];
      k->B[i] = c->pol[i];
      k->E[i] = c->pol[3 + i];
    }
  k->kahn = c->kahn;
  k->omega_scale = c->point_pixel ? K (0.0) : c->pixel_size * c->pixel_size * c->close_distance;
  k->point = c->point_pixel ? K (1.0) : K (0.0);
  k->polar = c->nopolar ? K (0.0) : K (1.0);
  k->unpolar = K (1.0) - k->polar;
}

/* The solid angle and the first source's polarization at the point (Fdet,
 * Sdet) of the detector's front (nb_solid_angle, nb_kahn_factor without the
 * branch around its division), for vectorised loops: the flags are factors
 * of 0 and 1, which leave the chosen term's value exact. */
static inline R
FN (point_factors) (const FN (pfac) * k, R Fd, R Sd)
{
  const R *B = k->B, *E = k->E, *in = k->inc;
  R x = Fd * k->fdet[0] + Sd * k->sdet[0] + k->pix0[0];
  R y = Fd * k->fdet[1] + Sd * k->sdet[1] + k->pix0[1];
  R z = Fd * k->fdet[2] + Sd * k->sdet[2] + k->pix0[2];
  R inv = K (1.0) / sqrt (x * x + y * y + z * z);
  R ux = x * inv, uy = y * inv, uz = z * inv;
  R c2 = in[0] * ux + in[1] * uy + in[2] * uz, c2sq = c2 * c2;
  R b = ux * B[0] + uy * B[1] + uz * B[2], e = ux * E[0] + uy * E[1] + uz * E[2];
  R nn = e * e + b * b, none = nn > K (0.0) ? K (0.0) : K (1.0);
  /* 1 where the beam and the direction coincide (nn = 0): no select after
   * the division, which the compiler would not speculate */
  R cos2psi = (e * e - b * b + none) / (nn + none);
  R om = k->omega_scale * inv * inv * inv + k->point * (inv * inv);
  R kahn;

  kahn = K (0.5) * (K (1.0) + c2sq - k->kahn * cos2psi * (K (1.0) - c2sq));
  return om * (kahn * k->polar + k->unpolar);
}

/* One index of a chunk of pixels for the orientation rows @row (a, b or c):
 * its value at the centres into h[], and the footprint's envelope folded
 * into env[] (square: the grating function's), xs[] (the sum of squared
 * distances, times N^2 with @round) and ins[] (0 once a footprint leaves its
 * reflection's cell). */
static inline void
FN (axis_envelope) (const R *row,
                    R Ni,
                    int round,
                    R (*q)[CH],
                    const R *marg,
                    R *restrict h_out,
                    R *restrict env,
                    R *restrict xs,
                    R *restrict ins)
{
  const R N2 = Ni * Ni, w = round ? N2 : K (1.0);
  /* the axis's factor is f, or 1 for N <= 1: f * on + off, exact either way
   * (a select would become a branch around the product) */
  const R on = Ni > K (1.0) ? K (1.0) : K (0.0), off1 = K (1.0) - on;

  for (int l = 0; l < CH; l++)
    {
      R h = row[0] * q[0][l] + row[1] * q[1][l] + row[2] * q[2][l];
      R gu = row[0] * q[3][l] + row[1] * q[4][l] + row[2] * q[5][l];
      R gv = row[0] * q[6][l] + row[1] * q[7][l] + row[2] * q[8][l];
      R delta = (fabs (gu) + fabs (gv)) * marg[l] + K (8.0) * NB_EPS * fabs (h);
      R dist = fabs (h - rint (h));
      R off = dist - delta;
      /* max (off, 0) without a select (off <= 1/2: exact), which GCC would
       * turn into branches around the products of nb_sinpi_half */
      R x = (off + fabs (off)) * K (0.5);
      R sn = NB_PHYS (nb_sinpi_half) (x);
      R s2 = sn * sn;
      /* min (N^2, 1 / sin^2), without a select before the division (GCC
       * would branch around it): the 1e-30 changes s2 only where s2 <
       * 3e-23 (float; 2e-14 double), where 1 / s2 exceeds any N^2 */
      R f = K (1.0) / (s2 + K (1e-30));

      f = f < N2 ? f : N2;
      h_out[l] = h;
      env[l] *= f * on + off1;
      xs[l] += x * x * w;
      ins[l] = dist + delta < K (0.5) ? ins[l] : K (0.0);
    }
}

/* The bounds (photons) of the lattice term of the pixels (spixel, f0 + l),
 * l < CH, over their whole area, into bound[]: the vectorised form of
 * cell_bound at the top cell, with the pixel's factors bounded by the solid
 * angle (polarization and capture are at most 1); the solid angles at the
 * centres into omega_out[]. */
static void
FN (chunk_bounds) (const NB_CTX *c,
                   const nb_adaptive_shape *sh,
                   int spixel,
                   int f0,
                   R *bound,
                   R *ratio,
                   R *omega_out)
{
  R dx[CH], dy[CH], dz[CH], fx[CH], fy[CH], fz[CH], sx[CH], sy[CH], sz[CH], marg[CH], acc[CH];
  R q[9][CH]; /* q, its change per pixel along fdet and along sdet */
  R hkl[3][CH], env[CH], xs[CH], ins[CH], omega[CH], total[CH], Fv[CH];
  int cell[CH];
  const R N[3] = { c->Na, c->Nb, c->Nc };
  const R n2 = (R) c->oversample * (R) c->oversample;
  const R omega_scale = c->pixel_size * c->pixel_size * c->close_distance;
  const R Sdet = c->pixel_size * ((R) spixel + K (0.5));
  /* nb_solid_angle with its flag as factors of 0 and 1, exact either way
   * (its select would become a branch around the products) */
  const R point = c->point_pixel ? K (1.0) : K (0.0), area = K (1.0) - point;

  for (int l = 0; l < CH; l++)
    total[l] = omega[l] = K (0.0);
  for (int t = 0; t < c->thicksteps; t++)
    {
      const R Odet = (R) t * c->thickstep;
      const R first = t == 0 ? K (1.0) : K (0.0); /* the solid angle is the front layer's */
      for (int l = 0; l < CH; l++)
        {
          R Fdet = c->pixel_size * ((R) (f0 + l) + K (0.5));
          R px = Fdet * c->fdet[0] + Sdet * c->sdet[0] + Odet * c->odet[0] + c->pix0[0];
          R py = Fdet * c->fdet[1] + Sdet * c->sdet[1] + Odet * c->odet[1] + c->pix0[1];
          R pz = Fdet * c->fdet[2] + Sdet * c->sdet[2] + Odet * c->odet[2] + c->pix0[2];
          R r = sqrt (px * px + py * py + pz * pz), inv = K (1.0) / r;
          R df, ds, e = c->pixel_size * inv;

          dx[l] = px * inv;
          dy[l] = py * inv;
          dz[l] = pz * inv;
          df = dx[l] * c->fdet[0] + dy[l] * c->fdet[1] + dz[l] * c->fdet[2];
          ds = dx[l] * c->sdet[0] + dy[l] * c->sdet[1] + dz[l] * c->sdet[2];
          fx[l] = e * (c->fdet[0] - dx[l] * df);
          fy[l] = e * (c->fdet[1] - dy[l] * df);
          fz[l] = e * (c->fdet[2] - dz[l] * df);
          sx[l] = e * (c->sdet[0] - dx[l] * ds);
          sy[l] = e * (c->sdet[1] - dy[l] * ds);
          sz[l] = e * (c->sdet[2] - dz[l] * ds);
          marg[l] = K (0.5) * (K (1.01) + K (6.0) * e);
          acc[l] = K (0.0);
          omega[l] += (omega_scale * (inv * inv) * inv * area + (inv * inv) * point) * first;
        }
      for (int src = 0; src < c->nsources; src++)
        {
          const R *inc = c->inc + 3 * src;
          const R il = c->inv_lambda[src];
          for (int l = 0; l < CH; l++)
            {
              q[0][l] = (dx[l] - inc[0]) * il;
              q[1][l] = (dy[l] - inc[1]) * il;
              q[2][l] = (dz[l] - inc[2]) * il;
              q[3][l] = fx[l] * il;
              q[4][l] = fy[l] * il;
              q[5][l] = fz[l] * il;
              q[6][l] = sx[l] * il;
              q[7][l] = sy[l] * il;
              q[8][l] = sz[l] * il;
            }
          for (int j = 0; j < c->nsteps; j++)
            {
              const R *m = c->abc + 9 * j;
              for (int l = 0; l < CH; l++)
                {
                  env[l] = K (1.0);
                  xs[l] = K (0.0);
                  ins[l] = K (1.0);
                }
              for (int i = 0; i < 3; i++)
                FN (axis_envelope)
              (m + 3 * i, N[i], c->shape == NB_SHAPE_ROUND, q, marg, hkl[i], env, xs, ins);
              if (c->shape != NB_SHAPE_SQUARE)
                for (int l = 0; l < CH; l++)
                  {
                    /* one distance with the same sum (lattice_bound) */
                    R x3[3] = { sqrt (xs[l]), K (0.0), K (0.0) };
                    if (c->shape == NB_SHAPE_ROUND)
                      x3[0] /= N[0];
                    env[l] = FN (lattice_bound) (c, sh, x3);
                  }
              if (c->F != NULL)
                {
                  /* cells in vector registers, then plain loads (kernel-fast-body.h) */
                  for (int l = 0; l < CH; l++)
                    cell[l] = NB_PHYS (nb_structure_factor_cell) (
                        c->h_min, c->k_min, c->l_min, c->h_count, c->k_count, c->l_count,
                        c->k_stride, c->l_stride, hkl[0][l], hkl[1][l], hkl[2][l]);
                  for (int l = 0; l < CH; l++)
                    Fv[l] = cell[l] >= 0 ? c->F[cell[l]] : c->default_F;
                  /* ins is 1 or 0: F^2 ins + F2max (1 - ins) is exactly one of the
                   * two, without a select (GCC would branch around the product) */
                  for (int l = 0; l < CH; l++)
                    acc[l] += env[l] * (Fv[l] * Fv[l] * ins[l] + c->F2max * (K (1.0) - ins[l]));
                }
              else
                for (int l = 0; l < CH; l++)
                  acc[l] += env[l] * c->default_F * c->default_F;
            }
        }
      for (int l = 0; l < CH; l++)
        total[l] += acc[l];
    }
  for (int l = 0; l < CH; l++)
    {
      bound[l] = c->scale * omega[l] * n2 * total[l];
      omega_out[l] = omega[l];
    }
  /* the factors where the reference's method takes them (the pixel's first
   * corner, its first sub-pixel's limit) over those at the centre */
  if (c->thick != K (0.0))
    for (int l = 0; l < CH; l++)
      {
        R first = FN (factors_at) (c, c->pixel_size * (R) (f0 + l), c->pixel_size * (R) spixel);
        R centre = FN (factors_at) (c, c->pixel_size * ((R) (f0 + l) + K (0.5)), Sdet);
        ratio[l] = centre != K (0.0) ? first / centre : K (1.0);
      }
  else
    {
      const R ps = c->pixel_size, S1 = ps * (R) spixel;
      FN (pfac) k;

      FN (pfac_setup) (c, &k);
      for (int l = 0; l < CH; l++)
        {
          R f0c = FN (point_factors) (&k, ps * (R) (f0 + l), S1);
          R f1c = FN (point_factors) (&k, ps * ((R) (f0 + l) + K (0.5)), Sdet);
          ratio[l] = f0c / (f1c + (f1c != K (0.0) ? K (0.0) : K (1.0)));
        }
    }
}

/* The runs of pixels l < n of a chunk whose kind[l] is @kind rendered by
 * the fast kernel with the tables @c into out[l]; returns their pixels and
 * adds their solid angles to *@omega_sum. */
static int
FN (render_runs) (const NB_CTX *c,
                  const signed char *kind,
                  int n,
                  int want,
                  int spixel,
                  int f0,
                  float *out,
                  double *omega_sum)
{
  int pixels = 0;

  for (int l = 0; l < n;)
    {
      int e = l;

      if (kind[l] != want)
        {
          l++;
          continue;
        }
      while (e < n && kind[e] == want)
        e++;
      FN (nb_fast_render_row) (c, spixel, f0 + l, e - l, 1, out + l, omega_sum);
      pixels += e - l;
      l = e;
    }
  return pixels;
}

#ifndef NB_ADAPTIVE_PIXEL_KINDS
#define NB_ADAPTIVE_PIXEL_KINDS
enum
{
  PIX_MASKED,
  PIX_ONE,     /* below the tolerance: one sample at its centre */
  PIX_REFINED, /* integrated by adaptive_pixel */
  PIX_EXACT    /* its cells would cost more than the exact kernel's: the exact kernel's */
};
#endif

/* Renders @count pixels of row @spixel from @f_first into out[]: the fast
 * kernel's one sample per pixel (@c1, the tables with oversample 1 and the
 * scale of @c's) where chunk_bounds is below @tol_photons, adaptive_pixel
 * where it exceeds it, and the exact kernel (@c, the plan's oversampling)
 * where adaptive_pixel's cells would take more samples than it; adds the
 * row's solid angles as the reference sums them to *@omega_sum and the
 * sub-pixel positions evaluated to *@samples.  Masked pixels (@mask
 * non-NULL, 0) are 0.  With @bound_only, the pixels' bounds (photons)
 * instead. */
void
FN (nb_adaptive_row) (const NB_CTX *c,
                      const NB_CTX *c1,
                      const nb_adaptive_shape *shape,
                      void *scratch,
                      int spixel,
                      int f_first,
                      int count,
                      const uint16_t *mask,
                      double tol_photons,
                      int bound_only,
                      float *out,
                      double *omega_sum,
                      double *samples)
{
  FN (apix) a;
  R *buf = scratch, bound[CH], ratio[CH], omega[CH];
  const double n2 = (double) c->oversample * c->oversample;
  double omega1 = 0.0, omega_exact = 0.0;
  signed char kind[CH];

  a.c = c;
  a.shape = shape;
  a.pairs = c->nsources * c->nsteps;
  a.hc = buf;
  a.gu = buf + 3 * a.pairs;
  a.gv = buf + 6 * a.pairs;
  a.keep = buf + 9 * a.pairs;
  a.fine_width = (R) shape->fine_width;
  a.samples = 0.0;
  for (int j0 = 0; j0 < count; j0 += CH)
    {
      int n = count - j0 < CH ? count - j0 : CH, ones, exact;
      float *o = out + j0;

      FN (chunk_bounds) (c, shape, spixel, f_first + j0, bound, ratio, omega);
      for (int l = 0; l < n; l++)
        {
          int f = f_first + j0 + l, capped = 0;

          kind[l] = PIX_MASKED;
          if (mask != NULL && mask[f] == 0)
            {
              /* counted, as the reference counts them (nb_kernel_masked_omega) */
              o[l] = 0.0f;
              omega1 += (double) omega[l] * c->thicksteps;
            }
          else if (bound_only)
            o[l] = (float) bound[l];
          else if (bound[l] <= (R) tol_photons)
            kind[l] = PIX_ONE;
          else
            {
              double v = FN (adaptive_pixel) (&a, f, spixel, tol_photons, &capped);

              kind[l] = capped ? PIX_EXACT : PIX_REFINED;
              o[l] = (float) v;
              if (!capped)
                omega1 += (double) omega[l] * c->thicksteps;
            }
        }
      if (bound_only)
        continue;
      ones = FN (render_runs) (c1, kind, n, PIX_ONE, spixel, f_first + j0, o, &omega1);
      exact = FN (render_runs) (c, kind, n, PIX_EXACT, spixel, f_first + j0, o, &omega_exact);
      for (int l = 0; l < n; l++)
        if (kind[l] == PIX_ONE)
          o[l] = (float) (o[l] * ratio[l]);
      a.samples += ((double) ones + (double) exact * n2) * c->thicksteps;
    }
  if (!bound_only)
    *omega_sum += omega1 * n2 + omega_exact;
  *samples += a.samples;
}

#undef NB_EPS
#undef CH
#undef NB_PHYS
#undef K
#undef R
#undef FN
#undef NB_CAT
#undef NB_CAT2
