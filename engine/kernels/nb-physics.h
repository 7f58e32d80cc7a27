/* nb-physics.h: the physics of one sample (one sub-pixel, source and crystal
 * orientation), as inline functions that the C compiler (the CPU's fast
 * kernels, kernel-fast-body.h) and nvcc (the CUDA kernels, cuda/) both
 * compile, so that the CPU tests exercise the GPU's arithmetic too.
 *
 * A template: include it with
 *   NB_REAL            float or double
 *   NB_REAL_IS_DOUBLE  0 or 1
 *   NB_PHYS(name)      the name of a function for this type (name ## _f32 ...)
 * defined.  C callers include <tgmath.h> first (sqrt, rint, exp, sin... are
 * type-generic there); in CUDA C++ the same names are overloaded.  NB_HD
 * marks the functions __host__ __device__ under nvcc.
 *
 * Source: nanoBragg.c's pixel loop (physics.md sec. 13-15): sincg(), sinc3(),
 * polarization_factor() and the Fhkl lookup, rewritten for speed and for
 * single precision as described at each function.
 */

#ifndef NB_HD
#ifdef __CUDACC__
#define NB_HD __host__ __device__ __forceinline__
#else
#define NB_HD static inline
#endif
#endif

#define NBP_R    NB_REAL
#define NBP_K(x) ((NBP_R) (x))

/* The solid angle of a (sub-)pixel at distance r = 1/@rinv: pixel_size^2
 * close_distance / r^3 (@omega_scale = pixel_size^2 close_distance), or 1/r^2
 * for a point pixel (physics.md sec. 13.2, without divisions). */
NB_HD NBP_R
NB_PHYS (nb_solid_angle) (NBP_R rinv, NBP_R omega_scale, int point_pixel)
{
  NBP_R i2 = rinv * rinv;

  return point_pixel ? i2 : omega_scale * i2 * rinv;
}

/* NBP_FMA(a, b, c): a b + c, rounded once where the instruction set has a
 * fused multiply-add (CUDA; the C compiler's AVX2 and AVX-512 kernels, whose
 * target enables FMA and defines __FMA__), else rounded twice (the portable
 * kernel, for processors without FMA, where a library fma() would be
 * emulated in software).  The two roundings differ in the last bit of a
 * polynomial at most; nothing else here is fused, as the kernels and their
 * CUDA twins compute everything else with separate roundings. */
#if defined(__CUDACC__) || defined(__FMA__)
#define NBP_FMA(a, b, c) fma ((a), (b), (c))
#else
#define NBP_FMA(a, b, c) ((a) * (b) + (c))
#endif

/* sin(pi x) for |x| <= 1/2: its Taylor polynomial, to x^11 in float and x^21
 * in double (truncation error below half an ulp in either), by Horner's rule
 * in fused multiply-adds (NBP_FMA). */
NB_HD NBP_R
NB_PHYS (nb_sinpi_half) (NBP_R x)
{
  NBP_R x2 = x * x;
#if NB_REAL_IS_DOUBLE
  NBP_R r = NBP_K (5.392664662608125e-10);
  r = NBP_FMA (r, x2, NBP_K (-2.2948428997269856e-08));
  r = NBP_FMA (r, x2, NBP_K (7.952054001475508e-07));
  r = NBP_FMA (r, x2, NBP_K (-2.1915353447830204e-05));
  r = NBP_FMA (r, x2, NBP_K (0.00046630280576761234));
  r = NBP_FMA (r, x2, NBP_K (-0.007370430945714348));
#else
  NBP_R r = NBP_K (-0.007370430945714348);
#endif
  r = NBP_FMA (r, x2, NBP_K (0.08214588661112819));
  r = NBP_FMA (r, x2, NBP_K (-0.5992645293207919));
  r = NBP_FMA (r, x2, NBP_K (2.550164039877345));
  r = NBP_FMA (r, x2, NBP_K (-5.167712780049969));
  r = NBP_FMA (r, x2, NBP_K (3.141592653589793));
  return r * x;
}

/* Numerator and denominator of the grating function sincg(pi h, N) =
 * sin(pi N h) / sin(pi h) for whole N, evaluated on delta = h - rint(h):
 * |sin(pi N h) / sin(pi h)| = |sin(pi N delta) / sin(pi delta)|, and only the
 * square enters the intensity, so the sign is dropped (the delta reduction of
 * bl831's CUDA port, cuda/docs/SINCG-DELTA.md).  |delta| below 1e-6 (float)
 * or 1e-10 (double) counts as whole (quotient N, exact to (N pi delta)^2/6),
 * so that three tiny denominators never underflow to 0/0. */
NB_HD void
NB_PHYS (nb_sincg_parts) (NBP_R h, NBP_R N, NBP_R *num, NBP_R *den)
{
  NBP_R delta = h - rint (h);
  NBP_R u = N * delta;
  NBP_R r = u - rint (u);
  NBP_R s_num = NB_PHYS (nb_sinpi_half) (r);
  NBP_R s_den = NB_PHYS (nb_sinpi_half) (delta);
#if NB_REAL_IS_DOUBLE
  int whole = fabs (delta) < NBP_K (1e-10);
#else
  int whole = fabs (delta) < NBP_K (1e-6);
#endif

  *num = whole ? N : s_num;
  *den = whole ? NBP_K (1.0) : s_den;
}

/* F_latt^2 of the parallelepiped (SQUARE) crystal: the product of the grating
 * functions of the axes with more than one cell, with one division. */
NB_HD NBP_R
NB_PHYS (nb_lattice_square2) (NBP_R h, NBP_R k, NBP_R l, NBP_R Na, NBP_R Nb, NBP_R Nc)
{
  NBP_R num = NBP_K (1.0), den = NBP_K (1.0), nu, de;

  if (Na > NBP_K (1.0))
    {
      NB_PHYS (nb_sincg_parts) (h, Na, &nu, &de);
      num *= nu;
      den *= de;
    }
  if (Nb > NBP_K (1.0))
    {
      NB_PHYS (nb_sincg_parts) (k, Nb, &nu, &de);
      num *= nu;
      den *= de;
    }
  if (Nc > NBP_K (1.0))
    {
      NB_PHYS (nb_sincg_parts) (l, Nc, &nu, &de);
      num *= nu;
      den *= de;
    }
  {
    NBP_R ratio = num / den;
    return ratio * ratio;
  }
}

/* sinc3(x) = 3 (sin x / x - cos x) / x^2, the form factor of a sphere; near 0
 * its series 1 - x^2/10 + x^4/280 - x^6/15120 + x^8/1330560 (below x = 0.5 in
 * float, 0.05 in double, where the closed form would lose digits to
 * cancellation; truncation error below 1e-11 and 1e-21). */
NB_HD NBP_R
NB_PHYS (nb_sinc3) (NBP_R x)
{
  NBP_R x2 = x * x;
#if NB_REAL_IS_DOUBLE
  const NBP_R small = NBP_K (0.05);
#else
  const NBP_R small = NBP_K (0.5);
#endif

  if (x < small)
    return NBP_K (1.0) +
           x2 * (NBP_K (-0.1) + x2 * (NBP_K (1.0 / 280.0) + x2 * (NBP_K (-1.0 / 15120.0) +
                                                                  x2 * NBP_K (1.0 / 1330560.0))));
  return NBP_K (3.0) * (sin (x) / x - cos (x)) / x2;
}

/* F_latt^2 of the other crystal shapes at fractional indices (h, k, l):
 * ROUND (shape 1) NaNbNc 0.723601254558268 sinc3(pi sqrt(fudge hrad^2)),
 * GAUSS (2) NaNbNc exp(-rad*^2 fudge / 0.63), TOPHAT (3) NaNbNc where
 * rad*^2 fudge < 0.3969; rad* is |dh a* + dk b* + dl c*| NaNbNc (physics.md
 * sec. 14.3).  @astar: a*, b*, c* (1/Angstrom). */
NB_HD NBP_R
NB_PHYS (nb_lattice_shape2) (int shape,
                             NBP_R h,
                             NBP_R k,
                             NBP_R l,
                             NBP_R Na,
                             NBP_R Nb,
                             NBP_R Nc,
                             NBP_R fudge,
                             const NBP_R *astar)
{
  NBP_R h0 = ceil (h - NBP_K (0.5)), k0 = ceil (k - NBP_K (0.5)), l0 = ceil (l - NBP_K (0.5));
  NBP_R dh = h - h0, dk = k - k0, dl = l - l0;
  NBP_R NNN = Na * Nb * Nc, FL;

  if (shape == 1)
    {
      NBP_R hr = dh * dh * Na * Na + dk * dk * Nb * Nb + dl * dl * Nc * Nc;
      NBP_R x = NBP_K (3.14159265358979323846) * sqrt (hr * fudge);
      FL = NNN * NBP_K (0.723601254558268) * NB_PHYS (nb_sinc3) (x);
    }
  else
    {
      NBP_R sx = dh * astar[0] + dk * astar[3] + dl * astar[6];
      NBP_R sy = dh * astar[1] + dk * astar[4] + dl * astar[7];
      NBP_R sz = dh * astar[2] + dk * astar[5] + dl * astar[8];
      NBP_R rs = (sx * sx + sy * sy + sz * sz) * NNN * NNN;
      if (shape == 2)
        FL = NNN * exp (-(rs / NBP_K (0.63) * fudge));
      else
        FL = rs * fudge < NBP_K (0.3969) ? NNN : NBP_K (0.0);
    }
  return FL * FL;
}

/* The Kahn polarization factor 0.5 (1 + cos^2 2theta - K cos 2psi sin^2 2theta)
 * for the unit incident direction @inc and diffracted direction (dx, dy, dz);
 * cos 2psi, psi = -atan2(B, E), is (E^2 - B^2)/(E^2 + B^2) with B and E the
 * projections on the source's unit vectors @B = unit(axis x inc) and
 * @E = unit(inc x B) (polarization_factor() of nanoBragg.c, without atan2). */
NB_HD NBP_R
NB_PHYS (nb_kahn_factor) (
    NBP_R kahn, const NBP_R *inc, const NBP_R *B, const NBP_R *E, NBP_R dx, NBP_R dy, NBP_R dz)
{
  NBP_R c2 = inc[0] * dx + inc[1] * dy + inc[2] * dz;
  NBP_R c2sq = c2 * c2;
  NBP_R b = dx * B[0] + dy * B[1] + dz * B[2];
  NBP_R e = dx * E[0] + dy * E[1] + dz * E[2];
  NBP_R n2 = e * e + b * b;
  NBP_R cos2psi = n2 > NBP_K (0.0) ? (e * e - b * b) / n2 : NBP_K (1.0);

  return NBP_K (0.5) * (NBP_K (1.0) + c2sq - kahn * cos2psi * (NBP_K (1.0) - c2sq));
}

/* The reference's nearest whole index ceil(x - 0.5) (halves round down), as
 * rint(x) with ties moved down: the same value everywhere, and unlike ceil a
 * rounding that compilers vectorise under strict floating-point rules. */
NB_HD NBP_R
NB_PHYS (nb_nearest_index) (NBP_R x)
{
  NBP_R r = rint (x);

  return r - x == NBP_K (0.5) ? r - NBP_K (1.0) : r;
}

/* The grid cell of the nearest reflection, ceil(x - 0.5) on each axis:
 * ((h0 - h_min) k_stride + (k0 - k_min)) l_stride + (l0 - l_min) inside the
 * grid's counts, -1 outside (the reference's Fhkl lookup without
 * interpolation). */
NB_HD int
NB_PHYS (nb_structure_factor_cell) (int h_min,
                                    int k_min,
                                    int l_min,
                                    int h_count,
                                    int k_count,
                                    int l_count,
                                    int k_stride,
                                    int l_stride,
                                    NBP_R h,
                                    NBP_R k,
                                    NBP_R l)
{
  int h0 = (int) NB_PHYS (nb_nearest_index) (h) - h_min;
  int k0 = (int) NB_PHYS (nb_nearest_index) (k) - k_min;
  int l0 = (int) NB_PHYS (nb_nearest_index) (l) - l_min;
  int in = ((unsigned) h0 < (unsigned) h_count) & ((unsigned) k0 < (unsigned) k_count) &
           ((unsigned) l0 < (unsigned) l_count);

  return in ? (h0 * k_stride + k0) * l_stride + l0 : -1;
}

/* The structure factor of the nearest reflection: F at its cell, @default_F
 * outside the grid. */
NB_HD NBP_R
NB_PHYS (nb_structure_factor) (const NBP_R *F,
                               int h_min,
                               int k_min,
                               int l_min,
                               int h_count,
                               int k_count,
                               int l_count,
                               int k_stride,
                               int l_stride,
                               NBP_R default_F,
                               NBP_R h,
                               NBP_R k,
                               NBP_R l)
{
  int cell = NB_PHYS (nb_structure_factor_cell) (h_min, k_min, l_min, h_count, k_count, l_count,
                                                 k_stride, l_stride, h, k, l);

  return cell >= 0 ? F[cell] : default_F;
}

#undef NBP_FMA
#undef NBP_K
#undef NBP_R
