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

/* A chunk's per-pixel values, staged through memory.  All loops run over
 * the whole chunk (CH pixels, constant trip counts that vectorise without
 * remainders); only the first n results are stored. */
typedef struct
{
  R acc[CH], polar[CH], omega[CH], capture[CH], osum[CH];
  R dx[CH], dy[CH], dz[CH], rr[CH], rinv[CH]; /* the sub-pixel's direction */
  R qx[CH], qy[CH], qz[CH], keep[CH];         /* the source's scattering vector */
} FN (chunk);

/* Sub-pixel (subS, subF) of layer @t of the pixels (spixel, f0 + l fstride):
 * the unit vectors d from the sample to it and their lengths (a curved
 * detector's bent onto the sphere), its solid angle and the layer's capture
 * fraction (nb_solid_angle; the reference's per-sub-pixel geometry). */
static inline void
FN (chunk_subpixel) (
    const NB_CTX *c, FN (chunk) * s, int t, int spixel, int f0, int fstride, int subS, int subF)
{
  const int N = c->oversample;
  const R omega_scale = c->pixel_size * c->pixel_size * c->close_distance;
  const R Odet = t * c->thickstep;
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
      s->rr[l] = r;
      s->rinv[l] = inv;
      s->dx[l] = px * inv;
      s->dy[l] = py * inv;
      s->dz[l] = pz * inv;
    }
  if (c->curved)
    for (int l = 0; l < CH; l++)
      {
        /* flat position from the unit vector and its length */
        double p[3] = { s->dx[l] * s->rr[l], s->dy[l] * s->rr[l], s->dz[l] * s->rr[l] }, v[3],
               nv[3];
        double sd[3] = { c->sdet[0], c->sdet[1], c->sdet[2] };
        double fd[3] = { c->fdet[0], c->fdet[1], c->fdet[2] };
        for (int k = 0; k < 3; k++)
          v[k] = c->distance * c->beam[k];
        nb_rotate_axis (v, sd, p[1] / c->distance, nv);
        nb_rotate_axis (nv, fd, p[2] / c->distance, p);
        s->rr[l] = (R) nb_magnitude (p);
        s->rinv[l] = K (1.0) / s->rr[l];
        s->dx[l] = (R) (p[0] / s->rr[l]);
        s->dy[l] = (R) (p[1] / s->rr[l]);
        s->dz[l] = (R) (p[2] / s->rr[l]);
      }

  for (int l = 0; l < CH; l++)
    {
      R w = NB_PHYS (nb_solid_angle) (s->rinv[l], omega_scale, c->point_pixel);
      s->omega[l] = (s->omega[l] == K (0.0) || c->os_omega) ? w : s->omega[l];
      s->osum[l] += s->omega[l];
    }
  if (c->thick != K (0.0))
    for (int l = 0; l < CH; l++)
      if (s->capture[l] == K (0.0) || c->os_thick)
        {
          R par = s->dx[l] * c->odet[0] + s->dy[l] * c->odet[1] + s->dz[l] * c->odet[2];
          s->capture[l] =
              exp (-t * c->thickstep * c->mu / par) - exp (-(t + 1) * c->thickstep * c->mu / par);
        }
}

/* Source @src seen along the sub-pixel's directions: the scattering vectors
 * q, which lanes -dmin keeps, and the polarization factor where a lane lacks
 * one (nb_kahn_factor).  Returns 0 when no lane is kept. */
static inline int
FN (chunk_source) (const NB_CTX *c, FN (chunk) * s, int src)
{
  const R ix = c->inc[3 * src], iy = c->inc[3 * src + 1];
  const R iz = c->inc[3 * src + 2], il = c->inv_lambda[src];
  const R *pb = c->pol + 6 * src, *pe = pb + 3;
  int any = 0;

  for (int l = 0; l < CH; l++)
    {
      s->qx[l] = (s->dx[l] - ix) * il;
      s->qy[l] = (s->dy[l] - iy) * il;
      s->qz[l] = (s->dz[l] - iz) * il;
      s->keep[l] = K (1.0);
    }
  if (c->dmin > K (0.0))
    for (int l = 0; l < CH; l++)
      {
        R stol = K (0.5) * sqrt (s->qx[l] * s->qx[l] + s->qy[l] * s->qy[l] + s->qz[l] * s->qz[l]);
        s->keep[l] = (stol > K (0.0) && c->dmin > K (0.5) / stol) ? K (0.0) : K (1.0);
      }
  for (int l = 0; l < CH; l++)
    {
      R kahn = NB_PHYS (nb_kahn_factor) (c->kahn, c->inc + 3 * src, pb, pe, s->dx[l], s->dy[l],
                                         s->dz[l]);
      int fresh = s->keep[l] != K (0.0) && (s->polar[l] == K (0.0) || c->os_polar);

      any |= s->keep[l] != K (0.0);
      s->polar[l] = fresh ? kahn : s->polar[l];
    }
  return any;
}

/* Every orientation step (mosaic domain and phi step) for the scattering
 * vectors q: the Miller indices, their squared lattice and structure
 * factors (nb_lattice_square2 or nb_lattice_shape2, nb_structure_factor)
 * added to acc, with the -oversample_* factors where they apply. */
static inline void
FN (chunk_steps) (const NB_CTX *c, FN (chunk) * s)
{
  R hh[CH], kk[CH], ll[CH], term[CH], Fv[CH];
  int cell[CH];

  for (int j = 0; j < c->nsteps; j++)
    {
      const R *a = c->abc + 9 * j;

      for (int l = 0; l < CH; l++)
        {
          hh[l] = a[0] * s->qx[l] + a[1] * s->qy[l] + a[2] * s->qz[l];
          kk[l] = a[3] * s->qx[l] + a[4] * s->qy[l] + a[5] * s->qz[l];
          ll[l] = a[6] * s->qx[l] + a[7] * s->qy[l] + a[8] * s->qz[l];
        }

      /* lattice factor squared */
      if (c->shape == NB_SHAPE_SQUARE)
        for (int l = 0; l < CH; l++)
          term[l] = NB_PHYS (nb_lattice_square2) (hh[l], kk[l], ll[l], c->Na, c->Nb, c->Nc);
      else
        for (int l = 0; l < CH; l++)
          term[l] = NB_PHYS (nb_lattice_shape2) ((int) c->shape, hh[l], kk[l], ll[l], c->Na, c->Nb,
                                                 c->Nc, c->fudge, c->astar);

      /* structure factor squared */
      if (c->F != NULL)
        {
          /* cells in vector registers, then plain loads (a gather is slower
           * than this on the CPUs measured) */
          for (int l = 0; l < CH; l++)
            cell[l] = NB_PHYS (nb_structure_factor_cell) (c->h_min, c->k_min, c->l_min, c->h_count,
                                                          c->k_count, c->l_count, c->k_stride,
                                                          c->l_stride, hh[l], kk[l], ll[l]);
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
          s->acc[l] += term[l] * s->keep[l];
      else
        for (int l = 0; l < CH; l++)
          {
            /* the reference skips zero lattice terms (no factor either) */
            int add = s->keep[l] != K (0.0) && !(term[l] == K (0.0) && !c->water);
            if (add)
              {
                s->acc[l] += term[l];
                if (c->os_thick)
                  s->acc[l] *= s->capture[l];
                if (c->os_polar)
                  s->acc[l] *= s->polar[l];
                if (c->os_omega)
                  s->acc[l] *= s->omega[l];
              }
          }
    }
}

/* The chunk's first @n pixels, scaled and with the factors not applied per
 * sub-pixel, into out; their solid angles added to *omega_sum. */
static inline void
FN (chunk_finish) (const NB_CTX *c, FN (chunk) * s, int n, float *out, double *omega_sum)
{
  for (int l = 0; l < CH; l++)
    {
      R v = c->scale * s->acc[l];

      if (!c->os_thick)
        v *= s->capture[l];
      if (!c->os_polar)
        v *= s->polar[l];
      if (!c->os_omega)
        v *= s->omega[l];
      if (c->physical_bg != K (0.0))
        v += c->scale * c->physical_bg * s->capture[l] * s->polar[l] * s->omega[l];
      s->acc[l] = v;
    }
  for (int l = 0; l < n; l++)
    out[l] = (float) s->acc[l];
  for (int l = 0; l < n; l++)
    *omega_sum += (double) s->osum[l];
}

/* The pixels (spixel, f0 + l fstride), l < n, into out[l]; their sub-pixels'
 * solid angles added to *omega_sum. */
static void
FN (render_chunk) (
    const NB_CTX *c, int spixel, int f0, int fstride, int n, float *out, double *omega_sum)
{
  FN (chunk) s;
  const int N = c->oversample;

  for (int l = 0; l < CH; l++)
    {
      s.acc[l] = c->I_start;
      s.polar[l] = c->nopolar ? K (1.0) : K (0.0);
      s.omega[l] = K (0.0);
      s.capture[l] = K (0.0);
      s.osum[l] = K (0.0);
    }

  for (int t = 0; t < c->thicksteps; t++)
    {
      for (int l = 0; l < CH; l++)
        s.capture[l] = c->thick == K (0.0) ? K (1.0) : K (0.0);
      for (int subS = 0; subS < N; subS++)
        for (int subF = 0; subF < N; subF++)
          {
            FN (chunk_subpixel) (c, &s, t, spixel, f0, fstride, subS, subF);
            for (int src = 0; src < c->nsources; src++)
              if (FN (chunk_source) (c, &s, src))
                FN (chunk_steps) (c, &s);
          }
    }
  FN (chunk_finish) (c, &s, n, out, omega_sum);
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
