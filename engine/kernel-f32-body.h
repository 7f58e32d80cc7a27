/* kernel-f32-body.h: the single-precision pixel loop, vectorised over a
 * chunk of pixels of one row.  Included once per instruction set by the
 * kernel-f32-*.c files, with NB_F32_SUFFIX naming the variant.
 *
 * Same physics and the same caching rules as kernel.c (the reference's loop,
 * physics.md §13.2), with two numerical changes that make single precision
 * safe and fast:
 *  - sincg(pi h, N) = sin(pi N h)/sin(pi h) is evaluated on the distance
 *    delta = h - rint(h) to the nearest integer: |sin(pi N h)/sin(pi h)| =
 *    |sin(pi N delta)/sin(pi delta)| for whole N, and only its square enters
 *    the intensity, so no sign is needed (the delta reduction of bl831's CUDA
 *    port, cuda/docs/SINCG-DELTA.md); sin(pi x) on |x| <= 1/2 is a polynomial.
 *  - the Kahn factor's cos(2 psi), psi = -atan2(B, E), is (E^2 - B^2)/(E^2 + B^2).
 * Lengths are in Angstrom (cell vectors) and 1/Angstrom (q), so every product
 * stays well inside float range.
 */

#define NB_CAT2(a, b) a##b
#define NB_CAT(a, b) NB_CAT2 (a, b)
#define F32(name) NB_CAT (name, NB_F32_SUFFIX)

/* sin(pi x) for |x| <= 1/2: Taylor series to x^13 (relative error < 1e-7). */
static inline float
F32 (sinpi_half) (float x)
{
  float x2 = x * x;
  float r = 0.00046630280576761234f;
  r = r * x2 - 0.0073704309457143478f;
  r = r * x2 + 0.082145886611128191f;
  r = r * x2 - 0.59926452932079188f;
  r = r * x2 + 2.5501640398773451f;
  r = r * x2 - 5.1677127800499694f;
  r = r * x2 + 3.1415926535897931f;
  return r * x;
}

/* sincg(pi h, N)^2 for whole N >= 2. */
static inline float
F32 (sincg2) (float h, float N)
{
  float delta = h - rintf (h);
  float u = N * delta;
  float r = u - rintf (u);
  float num = F32 (sinpi_half) (r);
  float den = F32 (sinpi_half) (delta);
  float ratio = delta == 0.0f ? N : num / (den == 0.0f ? 1.0f : den);
  return ratio * ratio;
}

static inline float
F32 (kahn) (float kahn, float ix, float iy, float iz, float dx, float dy, float dz,
            const float *axis)
{
  float c2 = ix * dx + iy * dy + iz * dz;
  float c2sq = c2 * c2;
  float s2sq = 1.0f - c2sq;
  float cos2psi = 1.0f;

  if (kahn != 0.0f)
    {
      /* B = unit(axis x i), E = unit(i x B); only the ratio of the projections matters */
      float bx = axis[1] * iz - axis[2] * iy;
      float by = axis[2] * ix - axis[0] * iz;
      float bz = axis[0] * iy - axis[1] * ix;
      float ex = iy * bz - iz * by;
      float ey = iz * bx - ix * bz;
      float ez = ix * by - iy * bx;
      float bn = sqrtf (bx * bx + by * by + bz * bz);
      float en = sqrtf (ex * ex + ey * ey + ez * ez);
      float B = bn > 0.0f ? (dx * bx + dy * by + dz * bz) / bn : 0.0f;
      float E = en > 0.0f ? (dx * ex + dy * ey + dz * ez) / en : 0.0f;
      float n2 = E * E + B * B;
      cos2psi = n2 > 0.0f ? (E * E - B * B) / n2 : 1.0f;
    }
  return 0.5f * (1.0f + c2sq - kahn * cos2psi * s2sq);
}

#define CH NB_F32_CHUNK

static void
F32 (render_chunk) (const nb_f32_ctx *c, int spixel, int f0, int n, float *out)
{
  float I[CH], polar[CH], omega[CH], capture[CH];
  float dx[CH], dy[CH], dz[CH], rr[CH];
  float qx[CH], qy[CH], qz[CH], keep[CH];
  float hh[CH], kk[CH], ll[CH], term[CH];
  const int N = c->oversample;

  for (int l = 0; l < n; l++)
    {
      I[l] = c->I_start;
      polar[l] = c->nopolar ? 1.0f : 0.0f;
      omega[l] = 0.0f;
      capture[l] = 0.0f;
    }

  for (int t = 0; t < c->thicksteps; t++)
    {
      const float Odet = t * c->thickstep;

      for (int l = 0; l < n; l++)
        capture[l] = c->thick == 0.0f ? 1.0f : 0.0f;
      for (int subS = 0; subS < N; subS++)
        for (int subF = 0; subF < N; subF++)
          {
            const float Sdet = c->subpix * (float) (spixel * N + subS) + c->subpix * 0.5f;
            const float bx = Sdet * c->sdet[0] + Odet * c->odet[0] + c->pix0[0];
            const float by = Sdet * c->sdet[1] + Odet * c->odet[1] + c->pix0[1];
            const float bz = Sdet * c->sdet[2] + Odet * c->odet[2] + c->pix0[2];

            for (int l = 0; l < n; l++)
              {
                float Fdet = c->subpix * (float) ((f0 + l) * N + subF) + c->subpix * 0.5f;
                float px = Fdet * c->fdet[0] + bx;
                float py = Fdet * c->fdet[1] + by;
                float pz = Fdet * c->fdet[2] + bz;
                float r = sqrtf (px * px + py * py + pz * pz);
                rr[l] = r;
                dx[l] = px / r;
                dy[l] = py / r;
                dz[l] = pz / r;
              }
            if (c->curved)
              for (int l = 0; l < n; l++)
                {
                  /* flat position from the unit vector and its length */
                  double p[3] = { dx[l] * rr[l], dy[l] * rr[l], dz[l] * rr[l] }, v[3], nv[3];
                  double sd[3] = { c->sdet[0], c->sdet[1], c->sdet[2] };
                  double fd[3] = { c->fdet[0], c->fdet[1], c->fdet[2] };
                  for (int k = 0; k < 3; k++)
                    v[k] = c->distance * c->beam[k];
                  nb_rotate_axis (v, sd, p[1] / c->distance, nv);
                  nb_rotate_axis (nv, fd, p[2] / c->distance, p);
                  rr[l] = (float) nb_magnitude (p);
                  dx[l] = (float) (p[0] / rr[l]);
                  dy[l] = (float) (p[1] / rr[l]);
                  dz[l] = (float) (p[2] / rr[l]);
                }

            for (int l = 0; l < n; l++)
              {
                float r = rr[l];
                float w = c->point_pixel ? 1.0f / (r * r)
                                         : c->pixel_size * c->pixel_size / (r * r)
                                             * c->close_distance / r;
                omega[l] = (omega[l] == 0.0f || c->os_omega) ? w : omega[l];
              }
            if (c->thick != 0.0f)
              for (int l = 0; l < n; l++)
                if (capture[l] == 0.0f || c->os_thick)
                  {
                    float par = dx[l] * c->odet[0] + dy[l] * c->odet[1] + dz[l] * c->odet[2];
                    capture[l] = expf (-t * c->thickstep * c->mu / par)
                                 - expf (-(t + 1) * c->thickstep * c->mu / par);
                  }

            for (int src = 0; src < c->nsources; src++)
              {
                const float ix = c->inc[3 * src], iy = c->inc[3 * src + 1];
                const float iz = c->inc[3 * src + 2], il = c->inv_lambda[src];
                int any = 0;

                for (int l = 0; l < n; l++)
                  {
                    qx[l] = (dx[l] - ix) * il;
                    qy[l] = (dy[l] - iy) * il;
                    qz[l] = (dz[l] - iz) * il;
                    keep[l] = 1.0f;
                  }
                if (c->dmin > 0.0f)
                  for (int l = 0; l < n; l++)
                    {
                      float stol = 0.5f * sqrtf (qx[l] * qx[l] + qy[l] * qy[l] + qz[l] * qz[l]);
                      keep[l] = (stol > 0.0f && c->dmin > 0.5f / stol) ? 0.0f : 1.0f;
                    }
                for (int l = 0; l < n; l++)
                  {
                    any |= keep[l] != 0.0f;
                    if (keep[l] != 0.0f && (polar[l] == 0.0f || c->os_polar))
                      polar[l] = F32 (kahn) (c->kahn, ix, iy, iz, dx[l], dy[l], dz[l], c->polar_axis);
                  }
                if (!any)
                  continue;

                for (int j = 0; j < c->nsteps; j++)
                  {
                    const float *a = c->abc + 9 * j;

                    for (int l = 0; l < n; l++)
                      {
                        hh[l] = a[0] * qx[l] + a[1] * qy[l] + a[2] * qz[l];
                        kk[l] = a[3] * qx[l] + a[4] * qy[l] + a[5] * qz[l];
                        ll[l] = a[6] * qx[l] + a[7] * qy[l] + a[8] * qz[l];
                      }

                    /* lattice factor squared */
                    if (c->shape == NB_SHAPE_SQUARE)
                      for (int l = 0; l < n; l++)
                        {
                          float f2 = 1.0f;
                          if (c->Na > 1.0f)
                            f2 *= F32 (sincg2) (hh[l], c->Na);
                          if (c->Nb > 1.0f)
                            f2 *= F32 (sincg2) (kk[l], c->Nb);
                          if (c->Nc > 1.0f)
                            f2 *= F32 (sincg2) (ll[l], c->Nc);
                          term[l] = f2;
                        }
                    else
                      for (int l = 0; l < n; l++)
                        {
                          float h0 = ceilf (hh[l] - 0.5f), k0 = ceilf (kk[l] - 0.5f);
                          float l0 = ceilf (ll[l] - 0.5f);
                          float dh = hh[l] - h0, dk = kk[l] - k0, dl = ll[l] - l0;
                          float NNN = c->Na * c->Nb * c->Nc, FL;

                          if (c->shape == NB_SHAPE_ROUND)
                            {
                              float hr = dh * dh * c->Na * c->Na + dk * dk * c->Nb * c->Nb
                                         + dl * dl * c->Nc * c->Nc;
                              float x = (float) M_PI * sqrtf (hr * c->fudge);
                              FL = NNN * 0.723601254558268f
                                   * (x == 0.0f ? 1.0f
                                                : 3.0f * (sinf (x) / x - cosf (x)) / (x * x));
                            }
                          else
                            {
                              float sx = dh * c->astar[0] + dk * c->astar[3] + dl * c->astar[6];
                              float sy = dh * c->astar[1] + dk * c->astar[4] + dl * c->astar[7];
                              float sz = dh * c->astar[2] + dk * c->astar[5] + dl * c->astar[8];
                              float rs = (sx * sx + sy * sy + sz * sz) * NNN * NNN;
                              if (c->shape == NB_SHAPE_GAUSS)
                                FL = NNN * expf (-(rs / 0.63f * c->fudge));
                              else
                                FL = rs * c->fudge < 0.3969f ? NNN : 0.0f;
                            }
                          term[l] = FL * FL;
                        }

                    /* structure factor squared */
                    if (c->F != NULL)
                      for (int l = 0; l < n; l++)
                        {
                          int h0 = (int) ceilf (hh[l] - 0.5f) - c->h_min;
                          int k0 = (int) ceilf (kk[l] - 0.5f) - c->k_min;
                          int l0 = (int) ceilf (ll[l] - 0.5f) - c->l_min;
                          int in = h0 >= 0 && h0 < c->h_count && k0 >= 0 && k0 < c->k_count
                                   && l0 >= 0 && l0 < c->l_count;
                          int idx = in ? (h0 * c->k_stride + k0) * c->l_stride + l0 : 0;
                          float F = in ? c->F[idx] : c->default_F;
                          term[l] *= F * F;
                        }
                    else
                      for (int l = 0; l < n; l++)
                        term[l] *= c->default_F * c->default_F;

                    if (!c->os_any)
                      for (int l = 0; l < n; l++)
                        I[l] += term[l] * keep[l];
                    else
                      for (int l = 0; l < n; l++)
                        {
                          /* the reference skips zero lattice terms (no factor either) */
                          int add = keep[l] != 0.0f && !(term[l] == 0.0f && !c->water);
                          if (add)
                            {
                              I[l] += term[l];
                              if (c->os_thick)
                                I[l] *= capture[l];
                              if (c->os_polar)
                                I[l] *= polar[l];
                              if (c->os_omega)
                                I[l] *= omega[l];
                            }
                        }
                  }
              }
          }
    }

  for (int l = 0; l < n; l++)
    {
      float v = c->scale * I[l];

      if (!c->os_thick)
        v *= capture[l];
      if (!c->os_polar)
        v *= polar[l];
      if (!c->os_omega)
        v *= omega[l];
      if (c->physical_bg != 0.0f)
        v += c->scale * c->physical_bg * capture[l] * polar[l] * omega[l];
      out[l] = v;
    }
}

void
F32 (nb_f32_render_row) (const nb_f32_ctx *c, int spixel, int f_begin, int f_end, float *row)
{
  for (int f0 = f_begin; f0 < f_end; f0 += CH)
    {
      int n = f_end - f0 < CH ? f_end - f0 : CH;
      F32 (render_chunk) (c, spixel, f0, n, row + f0);
    }
}

#undef CH
#undef F32
#undef NB_CAT
#undef NB_CAT2
