/* kernel-fast-body.h: the fast pixel loop (single and double precision),
 * vectorised over a chunk of pixels of one row.  Included by the
 * kernel-fast-*.c files once per precision and instruction set, with
 *   NB_REAL      float or double
 *   NB_SUFFIX    the name suffix (_f32_avx2, _f64_generic, ...)
 *   NB_CTX       nb_f32_ctx or nb_f64_ctx
 * and <tgmath.h> making sqrt, exp, rint, ceil, sin and cos type-generic.
 *
 * Same physics and the same caching rules as kernel.c (the reference's loop,
 * physics.md sec. 13.2), with numerical changes that make the loop safe in
 * single precision and fast in both:
 *  - sincg(pi h, N) = sin(pi N h)/sin(pi h) is evaluated on the distance
 *    delta = h - rint(h) to the nearest integer: |sin(pi N h)/sin(pi h)| =
 *    |sin(pi N delta)/sin(pi delta)| for whole N, and only its square enters
 *    the intensity, so no sign is needed (the delta reduction of bl831's CUDA
 *    port, cuda/docs/SINCG-DELTA.md).  sin(pi x) on |x| <= 1/2 is its Taylor
 *    polynomial (to x^11 in float, x^21 in double: error below half an ulp),
 *    and the three axes share one division.
 *  - the Kahn factor's cos(2 psi), psi = -atan2(B, E), is (E^2 - B^2)/(E^2 + B^2),
 *    with the unit vectors B and E of each source computed once per plan.
 * Lengths are in Angstrom (cell vectors) and 1/Angstrom (q), so every product
 * stays well inside float range.
 */

#define NB_CAT2(a, b) a##b
#define NB_CAT(a, b)  NB_CAT2 (a, b)
#define FN(name)      NB_CAT (name, NB_SUFFIX)
#define R             NB_REAL
#define K(x)          ((R) (x))
#define CH            NB_FAST_CHUNK

#define NB_PHYS(name) NB_CAT (name, NB_PHYS_SUFFIX)
#include "nb-physics.h"

/* All loops run over the whole chunk (CH pixels, constant trip counts that
 * vectorise without remainders); only the first @n results are stored. */
static void
FN (render_chunk) (
    const NB_CTX *c, int spixel, int f0, int fstride, int n, float *out, double *omega_sum)
{
  R acc[CH], polar[CH], omega[CH], capture[CH], osum[CH];
  R dx[CH], dy[CH], dz[CH], rr[CH], rinv[CH];
  R qx[CH], qy[CH], qz[CH], keep[CH];
  R hh[CH], kk[CH], ll[CH], term[CH], Fv[CH];
  int cell[CH];
  const int N = c->oversample;
  const R omega_scale = c->pixel_size * c->pixel_size * c->close_distance;

  for (int l = 0; l < CH; l++)
    {
      acc[l] = c->I_start;
      polar[l] = c->nopolar ? K (1.0) : K (0.0);
      omega[l] = K (0.0);
      capture[l] = K (0.0);
      osum[l] = K (0.0);
    }

  for (int t = 0; t < c->thicksteps; t++)
    {
      const R Odet = t * c->thickstep;

      for (int l = 0; l < CH; l++)
        capture[l] = c->thick == K (0.0) ? K (1.0) : K (0.0);
      for (int subS = 0; subS < N; subS++)
        for (int subF = 0; subF < N; subF++)
          {
            const R Sdet = c->subpix * (R) (spixel * N + subS) + c->subpix * K (0.5);
            const R bx = Sdet * c->sdet[0] + Odet * c->odet[0] + c->pix0[0];
            const R by = Sdet * c->sdet[1] + Odet * c->odet[1] + c->pix0[1];
            const R bz = Sdet * c->sdet[2] + Odet * c->odet[2] + c->pix0[2];

            for (int l = 0; l < CH; l++)
              {
                R Fdet = c->subpix * (R) ((f0 + l * fstride) * N + subF) + c->subpix * K (0.5);
                R px = Fdet * c->fdet[0] + bx;
                R py = Fdet * c->fdet[1] + by;
                R pz = Fdet * c->fdet[2] + bz;
                R r = sqrt (px * px + py * py + pz * pz);
                R inv = K (1.0) / r;
                rr[l] = r;
                rinv[l] = inv;
                dx[l] = px * inv;
                dy[l] = py * inv;
                dz[l] = pz * inv;
              }
            if (c->curved)
              for (int l = 0; l < CH; l++)
                {
                  /* flat position from the unit vector and its length */
                  double p[3] = { dx[l] * rr[l], dy[l] * rr[l], dz[l] * rr[l] }, v[3], nv[3];
                  double sd[3] = { c->sdet[0], c->sdet[1], c->sdet[2] };
                  double fd[3] = { c->fdet[0], c->fdet[1], c->fdet[2] };
                  for (int k = 0; k < 3; k++)
                    v[k] = c->distance * c->beam[k];
                  nb_rotate_axis (v, sd, p[1] / c->distance, nv);
                  nb_rotate_axis (nv, fd, p[2] / c->distance, p);
                  rr[l] = (R) nb_magnitude (p);
                  rinv[l] = K (1.0) / rr[l];
                  dx[l] = (R) (p[0] / rr[l]);
                  dy[l] = (R) (p[1] / rr[l]);
                  dz[l] = (R) (p[2] / rr[l]);
                }

            for (int l = 0; l < CH; l++)
              {
                R w = NB_PHYS (nb_solid_angle) (rinv[l], omega_scale, c->point_pixel);
                omega[l] = (omega[l] == K (0.0) || c->os_omega) ? w : omega[l];
                osum[l] += omega[l];
              }
            if (c->thick != K (0.0))
              for (int l = 0; l < CH; l++)
                if (capture[l] == K (0.0) || c->os_thick)
                  {
                    R par = dx[l] * c->odet[0] + dy[l] * c->odet[1] + dz[l] * c->odet[2];
                    capture[l] = exp (-t * c->thickstep * c->mu / par) -
                                 exp (-(t + 1) * c->thickstep * c->mu / par);
                  }

            for (int src = 0; src < c->nsources; src++)
              {
                const R ix = c->inc[3 * src], iy = c->inc[3 * src + 1];
                const R iz = c->inc[3 * src + 2], il = c->inv_lambda[src];
                const R *pb = c->pol + 6 * src, *pe = pb + 3;
                int any = 0;

                for (int l = 0; l < CH; l++)
                  {
                    qx[l] = (dx[l] - ix) * il;
                    qy[l] = (dy[l] - iy) * il;
                    qz[l] = (dz[l] - iz) * il;
                    keep[l] = K (1.0);
                  }
                if (c->dmin > K (0.0))
                  for (int l = 0; l < CH; l++)
                    {
                      R stol = K (0.5) * sqrt (qx[l] * qx[l] + qy[l] * qy[l] + qz[l] * qz[l]);
                      keep[l] = (stol > K (0.0) && c->dmin > K (0.5) / stol) ? K (0.0) : K (1.0);
                    }
                for (int l = 0; l < CH; l++)
                  {
                    R kahn = NB_PHYS (nb_kahn_factor) (c->kahn, c->inc + 3 * src, pb, pe, dx[l],
                                                       dy[l], dz[l]);
                    int fresh = keep[l] != K (0.0) && (polar[l] == K (0.0) || c->os_polar);

                    any |= keep[l] != K (0.0);
                    polar[l] = fresh ? kahn : polar[l];
                  }
                if (!any)
                  continue;

                for (int j = 0; j < c->nsteps; j++)
                  {
                    const R *a = c->abc + 9 * j;

                    for (int l = 0; l < CH; l++)
                      {
                        hh[l] = a[0] * qx[l] + a[1] * qy[l] + a[2] * qz[l];
                        kk[l] = a[3] * qx[l] + a[4] * qy[l] + a[5] * qz[l];
                        ll[l] = a[6] * qx[l] + a[7] * qy[l] + a[8] * qz[l];
                      }

                    /* lattice factor squared */
                    if (c->shape == NB_SHAPE_SQUARE)
                      for (int l = 0; l < CH; l++)
                        term[l] =
                            NB_PHYS (nb_lattice_square2) (hh[l], kk[l], ll[l], c->Na, c->Nb, c->Nc);
                    else
                      for (int l = 0; l < CH; l++)
                        term[l] =
                            NB_PHYS (nb_lattice_shape2) ((int) c->shape, hh[l], kk[l], ll[l], c->Na,
                                                         c->Nb, c->Nc, c->fudge, c->astar);

                    /* structure factor squared */
                    if (c->F != NULL)
                      {
                        /* cells in vector registers, then plain loads (a
                         * gather is slower than this on the CPUs measured) */
                        for (int l = 0; l < CH; l++)
                          cell[l] = NB_PHYS (nb_structure_factor_cell) (
                              c->h_min, c->k_min, c->l_min, c->h_count, c->k_count, c->l_count,
                              c->k_stride, c->l_stride, hh[l], kk[l], ll[l]);
                        for (int l = 0; l < CH; l++)
                          Fv[l] = cell[l] >= 0 ? c->F[cell[l]] : c->default_F;
                        for (int l = 0; l < CH; l++)
                          term[l] *= Fv[l] * Fv[l];
                      }
                    else
                      for (int l = 0; l < CH; l++)
                        term[l] *= c->default_F * c->default_F;

                    if (!c->os_any)
                      for (int l = 0; l < CH; l++)
                        acc[l] += term[l] * keep[l];
                    else
                      for (int l = 0; l < CH; l++)
                        {
                          /* the reference skips zero lattice terms (no factor either) */
                          int add = keep[l] != K (0.0) && !(term[l] == K (0.0) && !c->water);
                          if (add)
                            {
                              acc[l] += term[l];
                              if (c->os_thick)
                                acc[l] *= capture[l];
                              if (c->os_polar)
                                acc[l] *= polar[l];
                              if (c->os_omega)
                                acc[l] *= omega[l];
                            }
                        }
                  }
              }
          }
    }

  for (int l = 0; l < CH; l++)
    {
      R v = c->scale * acc[l];

      if (!c->os_thick)
        v *= capture[l];
      if (!c->os_polar)
        v *= polar[l];
      if (!c->os_omega)
        v *= omega[l];
      if (c->physical_bg != K (0.0))
        v += c->scale * c->physical_bg * capture[l] * polar[l] * omega[l];
      acc[l] = v;
    }
  for (int l = 0; l < n; l++)
    out[l] = (float) acc[l];
  for (int l = 0; l < n; l++)
    *omega_sum += (double) osum[l];
}

/* Renders @count pixels of row @spixel, fast indices f_first + j * fstride,
 * into out[j]; adds the sub-pixel solid angles to *omega_sum. */
void
FN (nb_fast_render_row) (
    const NB_CTX *c, int spixel, int f_first, int count, int fstride, float *out, double *omega_sum)
{
  /* summed here and stored once: neighbouring rows' sums share cache lines,
   * and another thread may be writing the next row's */
  double omega = 0.0;

#ifdef NB_SIMD_ISA
  if (c->simd)
    {
      FN (simd_render_row) (c, spixel, f_first, count, fstride, out, omega_sum);
      return;
    }
#endif
  for (int j0 = 0; j0 < count; j0 += CH)
    {
      int n = count - j0 < CH ? count - j0 : CH;
      FN (render_chunk) (c, spixel, f_first + j0 * fstride, fstride, n, out + j0, &omega);
    }
  *omega_sum += omega;
}

#undef CH
#undef NB_PHYS
#undef K
#undef R
#undef FN
#undef NB_CAT
#undef NB_CAT2
