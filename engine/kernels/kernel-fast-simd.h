/* kernel-fast-simd.h: the fast kernel's common case in explicit vectors
 * (SSE4.1, AVX2 or AVX-512; single or double precision).  Included by
 * kernel-fast-variants.h once per precision in the SSE4.1, AVX2 and AVX-512 files,
 * with NB_REAL, NB_REAL_IS_DOUBLE, NB_SUFFIX and NB_CTX as for
 * kernel-fast-body.h and NB_SIMD_ISA 1 (AVX2), 2 (AVX-512) or 3 (SSE4.1).  V, M and VI are
 * macros, not typedefs, so that the two precisions can share a file.
 *
 * The common case (c->simd, set by nb_fast_prepare) is a flat detector
 * without sensor layers, a SQUARE crystal, no -oversample_* flag and no
 * -dmin: the default scene, the benchmark workloads and most real use.  There
 * each vector lane is one pixel, and all of a pixel's sub-pixels, sources and
 * orientation steps run with its values in registers, for two or four
 * vectors at once; render_chunk() of kernel-fast-body.h stages the same work
 * through arrays of 64 pixels, which the compiler vectorises loop by loop,
 * through memory.  The operations are those of render_chunk() and
 * nb-physics.h, in the same order and rounded the same way (the sine
 * polynomials' multiply-adds fused, NBP_FMA, nothing else), so every lane
 * gets the same bits as there and as the CUDA kernels (which the tests
 * check); only what cannot change a bit differs:
 *  - which axes have N > 1 and whether the Kahn factor is 0 are decided once
 *    per row, not per lane; with Kahn factor 0 the polarization is
 *    0.5 (1 + cos^2 2theta) exactly, since the term it drops is a signed zero;
 *  - the polarization is computed only while some lane of the vector still
 *    lacks it (it is kept from the first sub-pixel that has it);
 *  - the nearest reflection reuses the sincg's h - rint(h): rint(h) - h is
 *    its exact negation, so "rint(h) - h == 1/2" is "delta == -1/2";
 *  - the grid cell is (h0 - h_min) k_stride l_stride + (k0 - k_min) l_stride
 *    + l0 - l_min, tested against the grid's bounds as whole numbers in
 *    floating point, and its structure factor is gathered (with default_F
 *    outside the grid) in one masked gather instruction;
 *  - the row's solid angles are summed lane by lane, then over the lanes (a
 *    fixed order, not render_chunk's: the sum is reported, not rendered).
 */

#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NBS_CAT2(a, b) a##b
#define NBS_CAT(a, b)  NBS_CAT2 (a, b)
#define NBS_FN(name)   NBS_CAT (name, NB_SUFFIX)
#define NBS_R          NB_REAL
#define NBS_K(x)       ((NBS_R) (x))

/* ------------------------------------------------------------------------- */
/* The instruction set: V (NBS_W lanes of NBS_R), M (a lane mask), VI (NBS_W
 * 32-bit integers), OD (doubles: NBS_OD of them hold a V) and the operations
 * the kernel needs.  V, VI and OD are GCC vector types, so + - * / are the
 * lane-wise IEEE operations. */

#if NB_SIMD_ISA == 2 && !NB_REAL_IS_DOUBLE
#define V                         __m512
#define M                         __mmask16
#define VI                        __m512i
#define NBS_W                     16
#define v_set1(x)                 _mm512_set1_ps (x)
#define v_sqrt(x)                 _mm512_sqrt_ps (x)
#define v_fma(a, b, c)            _mm512_fmadd_ps ((a), (b), (c))
#define v_rint(x)                 _mm512_roundscale_ps ((x), _MM_FROUND_CUR_DIRECTION)
#define v_abs(x)                  _mm512_abs_ps (x)
#define m_cmp(a, b, op)           _mm512_cmp_ps_mask ((a), (b), (op))
#define m_and(a, b)               ((M) ((a) & (b)))
#define m_or(a, b)                ((M) ((a) | (b)))
#define m_none()                  ((M) 0)
#define m_any(m)                  ((m) != 0)
#define v_select(m, no, yes)      _mm512_mask_blend_ps ((m), (no), (yes))
#define v_from_int(i)             _mm512_cvtepi32_ps (i)
#define vi_trunc(x)               _mm512_cvttps_epi32 (x)
#define vi_set1(x)                _mm512_set1_epi32 (x)
#define vi_add(a, b)              _mm512_add_epi32 ((a), (b))
#define vi_mul(a, b)              _mm512_mullo_epi32 ((a), (b))
#define vi_iota()                 _mm512_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define v_gather(m, no, idx, tab) _mm512_mask_i32gather_ps ((no), (m), (idx), (tab), 4)
#define v_store_float(p, v, n)    _mm512_mask_storeu_ps ((p), (__mmask16) ((1u << (n)) - 1u), (v))
#define v_stream_float(p, v)      _mm512_stream_ps ((p), (v))
#define OD                        __m512d
#define NBS_OD                    2
#define od_zero()                 _mm512_setzero_pd ()
#define od_part(v, k)                                                                              \
  _mm512_cvtps_pd ((k) ? _mm512_extractf32x8_ps ((v), 1) : _mm512_castps512_ps256 (v))
#define od_add_first(acc, x, n)                                                                    \
  _mm512_mask_add_pd ((acc), (__mmask8) ((1u << (n)) - 1u), (acc), (x))
#elif NB_SIMD_ISA == 2 && NB_REAL_IS_DOUBLE
#define V                         __m512d
#define M                         __mmask8
#define VI                        __m256i
#define NBS_W                     8
#define v_set1(x)                 _mm512_set1_pd (x)
#define v_sqrt(x)                 _mm512_sqrt_pd (x)
#define v_fma(a, b, c)            _mm512_fmadd_pd ((a), (b), (c))
#define v_rint(x)                 _mm512_roundscale_pd ((x), _MM_FROUND_CUR_DIRECTION)
#define v_abs(x)                  _mm512_abs_pd (x)
#define m_cmp(a, b, op)           _mm512_cmp_pd_mask ((a), (b), (op))
#define m_and(a, b)               ((M) ((a) & (b)))
#define m_or(a, b)                ((M) ((a) | (b)))
#define m_none()                  ((M) 0)
#define m_any(m)                  ((m) != 0)
#define v_select(m, no, yes)      _mm512_mask_blend_pd ((m), (no), (yes))
#define v_from_int(i)             _mm512_cvtepi32_pd (i)
#define vi_trunc(x)               _mm512_cvttpd_epi32 (x)
#define vi_set1(x)                _mm256_set1_epi32 (x)
#define vi_add(a, b)              _mm256_add_epi32 ((a), (b))
#define vi_mul(a, b)              _mm256_mullo_epi32 ((a), (b))
#define vi_iota()                 _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7)
#define v_gather(m, no, idx, tab) _mm512_mask_i32gather_pd ((no), (m), (idx), (tab), 8)
#define v_store_float(p, v, n)                                                                     \
  _mm256_mask_storeu_ps ((p), (__mmask8) ((1u << (n)) - 1u), _mm512_cvtpd_ps (v))
#define v_stream_float(p, v) _mm256_stream_ps ((p), _mm512_cvtpd_ps (v))
#define OD                   __m512d
#define NBS_OD               1
#define od_zero()            _mm512_setzero_pd ()
#define od_part(v, k)        (v)
#define od_add_first(acc, x, n)                                                                    \
  _mm512_mask_add_pd ((acc), (__mmask8) ((1u << (n)) - 1u), (acc), (x))
#elif NB_SIMD_ISA == 1 && !NB_REAL_IS_DOUBLE
#define V                         __m256
#define M                         __m256
#define VI                        __m256i
#define NBS_W                     8
#define v_set1(x)                 _mm256_set1_ps (x)
#define v_sqrt(x)                 _mm256_sqrt_ps (x)
#define v_fma(a, b, c)            _mm256_fmadd_ps ((a), (b), (c))
#define v_rint(x)                 _mm256_round_ps ((x), _MM_FROUND_CUR_DIRECTION)
#define v_abs(x)                  _mm256_andnot_ps (_mm256_set1_ps (-0.0f), (x))
#define m_cmp(a, b, op)           _mm256_cmp_ps ((a), (b), (op))
#define m_and(a, b)               _mm256_and_ps ((a), (b))
#define m_or(a, b)                _mm256_or_ps ((a), (b))
#define m_none()                  _mm256_setzero_ps ()
#define m_any(m)                  (_mm256_movemask_ps (m) != 0)
#define v_select(m, no, yes)      _mm256_blendv_ps ((no), (yes), (m))
#define v_from_int(i)             _mm256_cvtepi32_ps (i)
#define vi_trunc(x)               _mm256_cvttps_epi32 (x)
#define vi_set1(x)                _mm256_set1_epi32 (x)
#define vi_add(a, b)              _mm256_add_epi32 ((a), (b))
#define vi_mul(a, b)              _mm256_mullo_epi32 ((a), (b))
#define vi_iota()                 _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7)
#define v_gather(m, no, idx, tab) _mm256_mask_i32gather_ps ((no), (tab), (idx), (m), 4)
#define v_store_float(p, v, n)                                                                     \
  _mm256_maskstore_ps ((p), _mm256_cmpgt_epi32 (vi_set1 (n), vi_iota ()), (v))
#define v_stream_float(p, v) _mm256_stream_ps ((p), (v))
#define OD                   __m256d
#define NBS_OD               2
#define od_zero()            _mm256_setzero_pd ()
#define od_part(v, k)                                                                              \
  _mm256_cvtps_pd ((k) ? _mm256_extractf128_ps ((v), 1) : _mm256_castps256_ps128 (v))
#define od_add_first(acc, x, n) ((acc) + _mm256_and_pd ((x), od_first (n)))
#define od_first(n)                                                                                \
  _mm256_castsi256_pd (_mm256_cmpgt_epi64 (_mm256_set1_epi64x (n), _mm256_setr_epi64x (0, 1, 2, 3)))
#elif NB_SIMD_ISA == 1 && NB_REAL_IS_DOUBLE
#define V                         __m256d
#define M                         __m256d
#define VI                        __m128i
#define NBS_W                     4
#define v_set1(x)                 _mm256_set1_pd (x)
#define v_sqrt(x)                 _mm256_sqrt_pd (x)
#define v_fma(a, b, c)            _mm256_fmadd_pd ((a), (b), (c))
#define v_rint(x)                 _mm256_round_pd ((x), _MM_FROUND_CUR_DIRECTION)
#define v_abs(x)                  _mm256_andnot_pd (_mm256_set1_pd (-0.0), (x))
#define m_cmp(a, b, op)           _mm256_cmp_pd ((a), (b), (op))
#define m_and(a, b)               _mm256_and_pd ((a), (b))
#define m_or(a, b)                _mm256_or_pd ((a), (b))
#define m_none()                  _mm256_setzero_pd ()
#define m_any(m)                  (_mm256_movemask_pd (m) != 0)
#define v_select(m, no, yes)      _mm256_blendv_pd ((no), (yes), (m))
#define v_from_int(i)             _mm256_cvtepi32_pd (i)
#define vi_trunc(x)               _mm256_cvttpd_epi32 (x)
#define vi_set1(x)                _mm_set1_epi32 (x)
#define vi_add(a, b)              _mm_add_epi32 ((a), (b))
#define vi_mul(a, b)              _mm_mullo_epi32 ((a), (b))
#define vi_iota()                 _mm_setr_epi32 (0, 1, 2, 3)
#define v_gather(m, no, idx, tab) _mm256_mask_i32gather_pd ((no), (tab), (idx), (m), 8)
#define v_store_float(p, v, n)                                                                     \
  _mm_maskstore_ps ((p), _mm_cmpgt_epi32 (vi_set1 (n), vi_iota ()), _mm256_cvtpd_ps (v))
#define v_stream_float(p, v)    _mm_stream_ps ((p), _mm256_cvtpd_ps (v))
#define OD                      __m256d
#define NBS_OD                  1
#define od_zero()               _mm256_setzero_pd ()
#define od_part(v, k)           (v)
#define od_add_first(acc, x, n) ((acc) + _mm256_and_pd ((x), od_first (n)))
#define od_first(n)                                                                                \
  _mm256_castsi256_pd (_mm256_cmpgt_epi64 (_mm256_set1_epi64x (n), _mm256_setr_epi64x (0, 1, 2, 3)))
#elif NB_SIMD_ISA == 3 && !NB_REAL_IS_DOUBLE
/* SSE4.1: no gather, no masked store, no fused multiply-add (so the
 * polynomials round twice, as the portable kernel's: NBP_FMA), and the
 * comparisons by name (their ordered forms give the same lanes) */
#define V                    __m128
#define M                    __m128
#define NBS_W                4
#define v_set1(x)            _mm_set1_ps (x)
#define v_sqrt(x)            _mm_sqrt_ps (x)
#define v_rint(x)            _mm_round_ps ((x), _MM_FROUND_CUR_DIRECTION)
#define v_abs(x)             _mm_andnot_ps (_mm_set1_ps (-0.0f), (x))
#define m_lt(a, b)           _mm_cmplt_ps ((a), (b))
#define m_le(a, b)           _mm_cmple_ps ((a), (b))
#define m_ge(a, b)           _mm_cmpge_ps ((a), (b))
#define m_gt(a, b)           _mm_cmpgt_ps ((a), (b))
#define m_eq(a, b)           _mm_cmpeq_ps ((a), (b))
#define m_and(a, b)          _mm_and_ps ((a), (b))
#define m_or(a, b)           _mm_or_ps ((a), (b))
#define m_none()             _mm_setzero_ps ()
#define m_bits(m)            _mm_movemask_ps (m)
#define v_select(m, no, yes) _mm_blendv_ps ((no), (yes), (m))
#define v_from_int(i)        _mm_cvtepi32_ps (i)
#define vi_trunc(x)          _mm_cvttps_epi32 (x)
#define v_floats(v)          (v)
#define NBS_OD               2
#define od_part(v, k)        _mm_cvtps_pd ((k) ? _mm_movehl_ps ((v), (v)) : (v))
#elif NB_SIMD_ISA == 3 && NB_REAL_IS_DOUBLE
#define V                    __m128d
#define M                    __m128d
#define NBS_W                2
#define v_set1(x)            _mm_set1_pd (x)
#define v_sqrt(x)            _mm_sqrt_pd (x)
#define v_rint(x)            _mm_round_pd ((x), _MM_FROUND_CUR_DIRECTION)
#define v_abs(x)             _mm_andnot_pd (_mm_set1_pd (-0.0), (x))
#define m_lt(a, b)           _mm_cmplt_pd ((a), (b))
#define m_le(a, b)           _mm_cmple_pd ((a), (b))
#define m_ge(a, b)           _mm_cmpge_pd ((a), (b))
#define m_gt(a, b)           _mm_cmpgt_pd ((a), (b))
#define m_eq(a, b)           _mm_cmpeq_pd ((a), (b))
#define m_and(a, b)          _mm_and_pd ((a), (b))
#define m_or(a, b)           _mm_or_pd ((a), (b))
#define m_none()             _mm_setzero_pd ()
#define m_bits(m)            _mm_movemask_pd (m)
#define v_select(m, no, yes) _mm_blendv_pd ((no), (yes), (m))
#define v_from_int(i)        _mm_cvtepi32_pd (i) /* lanes 0 and 1 of i */
#define vi_trunc(x)          _mm_cvttpd_epi32 (x)
#define v_floats(v)          _mm_cvtpd_ps (v)
#define NBS_OD               1
#define od_part(v, k)        (v)
#else
#error "kernel-fast-simd.h: NB_SIMD_ISA must be 1 (AVX2), 2 (AVX-512) or 3 (SSE4.1)"
#endif

#if NB_SIMD_ISA == 3
/* SSE4.1, both precisions */
#define VI             __m128i /* four 32-bit lanes; double uses two */
#define v_fma(a, b, c) ((a) * (b) + (c))
#define m_any(m)       (m_bits (m) != 0)
#define vi_set1(x)     _mm_set1_epi32 (x)
#define vi_add(a, b)   _mm_add_epi32 ((a), (b))
#define vi_mul(a, b)   _mm_mullo_epi32 ((a), (b))
#define vi_iota()      _mm_setr_epi32 (0, 1, 2, 3)
#define v_store_float(p, v, n)                                                                     \
  do                                                                                               \
    {                                                                                              \
      float f_[4];                                                                                 \
      _mm_storeu_ps (f_, v_floats (v));                                                            \
      memcpy ((p), f_, (size_t) (n) * sizeof (float));                                             \
    }                                                                                              \
  while (0)
#define v_stream_float(p, v) v_store_float ((p), (v), NBS_W) /* no streaming store of 2 floats */
#define OD                   __m128d
#define od_zero()            _mm_setzero_pd ()
#define od_add_first(acc, x, n)                                                                    \
  ((n) >= 2 ? (acc) + (x) : (acc) + _mm_move_sd (_mm_setzero_pd (), (x)))

/* the masked gather, one lane at a time */
static inline __attribute__ ((always_inline)) V
NBS_FN (v_gather_lanes) (M m, V no, VI idx, const NBS_R *tab)
{
  int at[4], bits = m_bits (m);
  NBS_R r[NBS_W];

  _mm_storeu_si128 ((__m128i *) at, idx);
  memcpy (r, &no, sizeof r);
  for (int l = 0; l < NBS_W; l++)
    if (bits & (1 << l))
      r[l] = tab[at[l]];
  memcpy (&no, r, sizeof r);
  return no;
}
#define v_gather(m, no, idx, tab) NBS_FN (v_gather_lanes) ((m), (no), (idx), (tab))
#else
#define m_lt(a, b) m_cmp ((a), (b), _CMP_LT_OQ)
#define m_le(a, b) m_cmp ((a), (b), _CMP_LE_OQ)
#define m_ge(a, b) m_cmp ((a), (b), _CMP_GE_OQ)
#define m_gt(a, b) m_cmp ((a), (b), _CMP_GT_OQ)
#define m_eq(a, b) m_cmp ((a), (b), _CMP_EQ_OQ)
#endif

/* ------------------------------------------------------------------------- */
/* The physics of nb-physics.h on vectors, operation for operation. */

/* nb_sinpi_half (its Horner steps in NBP_FMA's rounding) */
static inline __attribute__ ((always_inline)) V
NBS_FN (v_sinpi_half) (V x)
{
  V x2 = x * x;
#if NB_REAL_IS_DOUBLE
  V r = v_set1 (NBS_K (5.392664662608125e-10));
  r = v_fma (r, x2, v_set1 (NBS_K (-2.2948428997269856e-08)));
  r = v_fma (r, x2, v_set1 (NBS_K (7.952054001475508e-07)));
  r = v_fma (r, x2, v_set1 (NBS_K (-2.1915353447830204e-05)));
  r = v_fma (r, x2, v_set1 (NBS_K (0.00046630280576761234)));
  r = v_fma (r, x2, v_set1 (NBS_K (-0.007370430945714348)));
#else
  V r = v_set1 (NBS_K (-0.007370430945714348));
#endif
  r = v_fma (r, x2, v_set1 (NBS_K (0.08214588661112819)));
  r = v_fma (r, x2, v_set1 (NBS_K (-0.5992645293207919)));
  r = v_fma (r, x2, v_set1 (NBS_K (2.550164039877345)));
  r = v_fma (r, x2, v_set1 (NBS_K (-5.167712780049969)));
  r = v_fma (r, x2, v_set1 (NBS_K (3.141592653589793)));
  return r * x;
}

/* Everything a row needs, read once from the context. */
typedef struct
{
  V N[3];     /* Na, Nb, Nc */
  int use[3]; /* N > 1: the axis's grating function enters */
  int with_F;
  int float_cell;                       /* the cell's arithmetic is exact in NBS_R */
  V dF, F2;                             /* default_F, default_F^2 */
  V h_lo, h_hi, k_lo, k_hi, l_lo, l_hi; /* the grid's index bounds */
  V h_stride_r, k_stride_r, offset_r;   /* cell = h h_stride + k k_stride + l + offset */
  VI h_stride, k_stride, offset;
  const NBS_R *F;
} NBS_FN (simd_tables);

/* The loops below work on NBS_U vectors at once (written as loops over u,
 * which the compiler unrolls): a pixel's work is one long chain of dependent
 * operations (square root, division, polynomials, division), and the
 * processor overlaps independent chains only as far as its window reaches. */
#ifndef NBS_U
#define NBS_U 2
#endif
#define EACH(u) for (int u = 0; u < NBS_U; u++)

/* One orientation step (@a: its a, b, c) for the scattering vectors q: the
 * Miller indices, their squared lattice and structure factors added to acc
 * (the step loop of render_chunk: nb_lattice_square2 with nb_sincg_parts,
 * nb_structure_factor, acc += term).
 *
 * Two cases of nb_sincg_parts and nb_nearest_index are rare: an index within
 * 1e-6 (double: 1e-10) of a whole number, whose grating function is N / 1,
 * and an index exactly half-way, which rounds down.  One test per axis finds
 * them, and only a vector that has one pays for the choices.  The nearest
 * reflection reuses the sincg's delta = h - rint(h): rint(h) - h is its
 * exact negation, so "rint(h) - h == 1/2" is "delta == -1/2". */
static inline __attribute__ ((always_inline)) void
NBS_FN (v_step) (
    const NBS_FN (simd_tables) * t, const NBS_R *a, const V *qx, const V *qy, const V *qz, V *acc)
{
  const V one = v_set1 (NBS_K (1.0)), minus_half = v_set1 (NBS_K (-0.5));
#if NB_REAL_IS_DOUBLE
  const V tiny = v_set1 (NBS_K (1e-10));
#else
  const V tiny = v_set1 (NBS_K (1e-6));
#endif
  V near[3][NBS_U], delta[3][NBS_U], sn[3][NBS_U], sd[3][NBS_U];
  M rare[NBS_U];
  int any_rare = 0;

  for (int i = 0; i < 3; i++)
    EACH (u)
    {
      V h =
          v_set1 (a[3 * i]) * qx[u] + v_set1 (a[3 * i + 1]) * qy[u] + v_set1 (a[3 * i + 2]) * qz[u];

      near[i][u] = v_rint (h);
      delta[i][u] = h - near[i][u];
    }
  EACH (u)
  {
    rare[u] = m_none ();
    for (int i = 0; i < 3; i++)
      {
        if (t->use[i])
          {
            V w = t->N[i] * delta[i][u];
            V r = w - v_rint (w);

            sn[i][u] = NBS_FN (v_sinpi_half) (r);
            sd[i][u] = NBS_FN (v_sinpi_half) (delta[i][u]);
            rare[u] = m_or (rare[u], m_lt (v_abs (delta[i][u]), tiny));
          }
        else
          sn[i][u] = sd[i][u] = one; /* not used */
        if (t->with_F)
          rare[u] = m_or (rare[u], m_eq (delta[i][u], minus_half));
      }
    any_rare |= m_any (rare[u]);
  }
  if (__builtin_expect (any_rare, 0))
    EACH (u)
    {
      for (int i = 0; i < 3; i++)
        {
          if (t->use[i])
            {
              M whole = m_lt (v_abs (delta[i][u]), tiny);

              sn[i][u] = v_select (whole, sn[i][u], t->N[i]);
              sd[i][u] = v_select (whole, sd[i][u], one);
            }
          near[i][u] = v_select (m_eq (delta[i][u], minus_half), near[i][u], near[i][u] - one);
        }
    }

  EACH (u)
  {
    V num = one, den = one, ratio, term;

    for (int i = 0; i < 3; i++)
      if (t->use[i])
        {
          num = num * sn[i][u];
          den = den * sd[i][u];
        }
    ratio = num / den;
    term = ratio * ratio;
    if (t->with_F)
      {
        V h0 = near[0][u], k0 = near[1][u], l0 = near[2][u];
        M in = m_and (m_and (m_and (m_ge (h0, t->h_lo), m_le (h0, t->h_hi)),
                             m_and (m_ge (k0, t->k_lo), m_le (k0, t->k_hi))),
                      m_and (m_ge (l0, t->l_lo), m_le (l0, t->l_hi)));
        VI cell;
        V Fv;

        if (t->float_cell)
          cell = vi_trunc (v_fma (h0, t->h_stride_r, v_fma (k0, t->k_stride_r, l0 + t->offset_r)));
        else
          cell = vi_add (
              vi_add (vi_mul (vi_trunc (h0), t->h_stride), vi_mul (vi_trunc (k0), t->k_stride)),
              vi_add (vi_trunc (l0), t->offset));
        Fv = v_gather (in, t->dF, cell, t->F);
        term = term * (Fv * Fv);
      }
    else
      term = term * t->F2;
    acc[u] = acc[u] + term;
  }
}

/* The row's tables from the context: the grating axes, the structure
 * factors' grid and how a cell's index is computed. */
static void
NBS_FN (simd_tables_init) (const NB_CTX *c, NBS_FN (simd_tables) * t)
{
  memset (t, 0, sizeof *t);
  t->N[0] = v_set1 (c->Na);
  t->N[1] = v_set1 (c->Nb);
  t->N[2] = v_set1 (c->Nc);
  t->use[0] = c->Na > NBS_K (1.0);
  t->use[1] = c->Nb > NBS_K (1.0);
  t->use[2] = c->Nc > NBS_K (1.0);
  t->with_F = c->F != NULL;
  t->dF = v_set1 (c->default_F);
  t->F2 = v_set1 (c->default_F * c->default_F);
  t->F = c->F;
  if (t->with_F)
    {
      const long h_stride = (long) c->k_stride * c->l_stride;
      const long offset = -((long) c->h_min * h_stride + (long) c->k_min * c->l_stride + c->l_min);
      const long reach = 4 * ((long) (c->h_count + labs (c->h_min)) * h_stride + labs (offset));

      t->h_lo = v_set1 ((NBS_R) c->h_min);
      t->h_hi = v_set1 ((NBS_R) (c->h_min + c->h_count - 1));
      t->k_lo = v_set1 ((NBS_R) c->k_min);
      t->k_hi = v_set1 ((NBS_R) (c->k_min + c->k_count - 1));
      t->l_lo = v_set1 ((NBS_R) c->l_min);
      t->l_hi = v_set1 ((NBS_R) (c->l_min + c->l_count - 1));
      t->h_stride = vi_set1 ((int) h_stride);
      t->k_stride = vi_set1 (c->l_stride);
      t->offset = vi_set1 ((int) offset);
      /* in the grid every partial sum of the cell is a whole number of
       * magnitude below reach: exact in NBS_R below 2^24 (float), always in
       * double */
      t->float_cell = NB_REAL_IS_DOUBLE || reach < (1L << 24);
      t->h_stride_r = v_set1 ((NBS_R) h_stride);
      t->k_stride_r = v_set1 ((NBS_R) c->l_stride);
      t->offset_r = v_set1 ((NBS_R) offset);
    }
}

/* One sub-pixel (column subF of the lanes' columns @col, its row's point
 * b = Sdet sdet + Odet odet + pix0): the unit vectors d from the sample to
 * it, and its solid angle, kept in omega from the first sub-pixel on and
 * added to osum (render_chunk's geometry and nb_solid_angle). */
static inline __attribute__ ((always_inline)) void
NBS_FN (v_subpixel) (const NB_CTX *c,
                     const VI *col,
                     int subF,
                     NBS_R bx,
                     NBS_R by,
                     NBS_R bz,
                     V *dx,
                     V *dy,
                     V *dz,
                     V *omega,
                     V *osum)
{
  const NBS_R omega_scale = c->pixel_size * c->pixel_size * c->close_distance;
  const NBS_R half_subpix = c->subpix * NBS_K (0.5);
  const V zero = v_set1 (NBS_K (0.0)), one = v_set1 (NBS_K (1.0));

  EACH (u)
  {
    V Fdet =
        v_set1 (c->subpix) * v_from_int (vi_add (col[u], vi_set1 (subF))) + v_set1 (half_subpix);
    V px = Fdet * v_set1 (c->fdet[0]) + v_set1 (bx);
    V py = Fdet * v_set1 (c->fdet[1]) + v_set1 (by);
    V pz = Fdet * v_set1 (c->fdet[2]) + v_set1 (bz);
    V r = v_sqrt (px * px + py * py + pz * pz);
    V rinv = one / r;
    V i2 = rinv * rinv;
    V w = i2;

    dx[u] = px * rinv;
    dy[u] = py * rinv;
    dz[u] = pz * rinv;
    if (!c->point_pixel)
      w = v_set1 (omega_scale) * i2 * rinv;
    omega[u] = v_select (m_eq (omega[u], zero), omega[u], w);
    osum[u] = osum[u] + omega[u];
  }
}

/* Source @src seen along the unit vectors d: the scattering vectors q, and
 * the polarization factor (nb_kahn_factor) where a lane still lacks one;
 * @kahn0: the Kahn factor is 0. */
static inline __attribute__ ((always_inline)) void
NBS_FN (v_source) (const NB_CTX *c,
                   int src,
                   int kahn0,
                   const V *dx,
                   const V *dy,
                   const V *dz,
                   V *qx,
                   V *qy,
                   V *qz,
                   V *polar)
{
  const NBS_R *inc = c->inc + 3 * src;
  const V il = v_set1 (c->inv_lambda[src]);
  const V zero = v_set1 (NBS_K (0.0)), one = v_set1 (NBS_K (1.0));

  EACH (u)
  {
    const M fresh = m_eq (polar[u], zero);

    qx[u] = (dx[u] - v_set1 (inc[0])) * il;
    qy[u] = (dy[u] - v_set1 (inc[1])) * il;
    qz[u] = (dz[u] - v_set1 (inc[2])) * il;
    if (m_any (fresh))
      {
        V c2 = v_set1 (inc[0]) * dx[u] + v_set1 (inc[1]) * dy[u] + v_set1 (inc[2]) * dz[u];
        V c2sq = c2 * c2;
        V kahn;

        if (kahn0)
          kahn = v_set1 (NBS_K (0.5)) * (one + c2sq);
        else
          {
            const NBS_R *B = c->pol + 6 * src, *E = B + 3;
            V b = dx[u] * v_set1 (B[0]) + dy[u] * v_set1 (B[1]) + dz[u] * v_set1 (B[2]);
            V e = dx[u] * v_set1 (E[0]) + dy[u] * v_set1 (E[1]) + dz[u] * v_set1 (E[2]);
            V n2 = e * e + b * b;
            V cos2psi = v_select (m_gt (n2, zero), one, (e * e - b * b) / n2);

            kahn = v_set1 (NBS_K (0.5)) * (one + c2sq - v_set1 (c->kahn) * cos2psi * (one - c2sq));
          }
        polar[u] = v_select (fresh, polar[u], kahn);
      }
  }
}

/* The finished pixels j0 + lane of the row into out (@count of the row in
 * all; streamed where @stream), their solid angles into omega_lanes. */
static inline __attribute__ ((always_inline)) void
NBS_FN (v_store_pixels) (const NB_CTX *c,
                         const V *acc,
                         const V *polar,
                         const V *omega,
                         const V *osum,
                         int j0,
                         int count,
                         int stream,
                         float *out,
                         OD *omega_lanes)
{
  EACH (u)
  {
    const int n = count - (j0 + u * NBS_W) < NBS_W ? count - (j0 + u * NBS_W) : NBS_W;
    /* the capture fraction is 1 without sensor layers */
    V v = v_set1 (c->scale) * acc[u];

    v = v * polar[u];
    v = v * omega[u];
    if (c->physical_bg != NBS_K (0.0))
      v = v + v_set1 (c->scale * c->physical_bg) * polar[u] * omega[u];
    if (n == NBS_W && stream)
      v_stream_float (out + j0 + u * NBS_W, v);
    else if (n > 0)
      v_store_float (out + j0 + u * NBS_W, v, n);
    for (int k = 0; k < NBS_OD; k++)
      {
        const int w = NBS_W / NBS_OD, m = n - k * w;

        if (m > 0)
          omega_lanes[u * NBS_OD + k] =
              od_add_first (omega_lanes[u * NBS_OD + k], od_part (osum[u], k), m < w ? m : w);
      }
  }
}

/* The pixels f_first + j fstride, j < @count, of row @spixel into out[j], as
 * nb_fast_render_row() (kernel-fast-body.h) renders them, for a context
 * where c->simd; their sub-pixels' solid angles added to *@omega_sum. */
static void
NBS_FN (simd_render_row) (
    const NB_CTX *c, int spixel, int f_first, int count, int fstride, float *out, double *omega_sum)
{
  const int N = c->oversample;
  const NBS_R half_subpix = c->subpix * NBS_K (0.5);
  const int kahn0 = c->kahn == NBS_K (0.0);
  const V zero = v_set1 (NBS_K (0.0)), one = v_set1 (NBS_K (1.0));
  /* a large image bypasses the caches (c->stream): its rows would only push
   * everything else out, and a store that misses them reads the line first */
  const int stream = c->stream && fstride == 1 && ((uintptr_t) out & 63) == 0;
  NBS_FN (simd_tables) t;
  OD omega_lanes[NBS_U * NBS_OD]; /* the row's solid angles, lane by lane */
  double omega_total = 0.0;

  NBS_FN (simd_tables_init) (c, &t);
  for (int k = 0; k < NBS_U * NBS_OD; k++)
    omega_lanes[k] = od_zero ();

  for (int j0 = 0; j0 < count; j0 += NBS_U * NBS_W)
    {
      VI col[NBS_U]; /* the lanes' sub-pixel columns, (f0 + lane fstride) N */
      V acc[NBS_U], polar[NBS_U], omega[NBS_U], osum[NBS_U];

      EACH (u)
      {
        col[u] = vi_mul (vi_add (vi_set1 (f_first + (j0 + u * NBS_W) * fstride),
                                 vi_mul (vi_iota (), vi_set1 (fstride))),
                         vi_set1 (N));
        acc[u] = v_set1 (c->I_start);
        polar[u] = c->nopolar ? one : zero;
        omega[u] = zero;
        osum[u] = zero;
      }

      for (int th = 0; th < c->thicksteps; th++)
        {
          const NBS_R Odet = th * c->thickstep;

          for (int subS = 0; subS < N; subS++)
            {
              const NBS_R Sdet = c->subpix * (NBS_R) (spixel * N + subS) + half_subpix;
              const NBS_R bx = Sdet * c->sdet[0] + Odet * c->odet[0] + c->pix0[0];
              const NBS_R by = Sdet * c->sdet[1] + Odet * c->odet[1] + c->pix0[1];
              const NBS_R bz = Sdet * c->sdet[2] + Odet * c->odet[2] + c->pix0[2];

              for (int subF = 0; subF < N; subF++)
                {
                  V dx[NBS_U], dy[NBS_U], dz[NBS_U];

                  NBS_FN (v_subpixel) (c, col, subF, bx, by, bz, dx, dy, dz, omega, osum);
                  for (int src = 0; src < c->nsources; src++)
                    {
                      V qx[NBS_U], qy[NBS_U], qz[NBS_U];

                      NBS_FN (v_source) (c, src, kahn0, dx, dy, dz, qx, qy, qz, polar);
                      for (int step = 0; step < c->nsteps; step++)
                        NBS_FN (v_step) (&t, c->abc + 9 * step, qx, qy, qz, acc);
                    }
                }
            }
        }
      NBS_FN (v_store_pixels) (c, acc, polar, omega, osum, j0, count, stream, out, omega_lanes);
    }
  for (int k = 0; k < NBS_U * NBS_OD; k++)
    {
      double d[sizeof (OD) / sizeof (double)];

      memcpy (d, &omega_lanes[k], sizeof d);
      for (size_t l = 0; l < sizeof d / sizeof d[0]; l++)
        omega_total += d[l];
    }
  *omega_sum += omega_total;
  if (stream)
    _mm_sfence (); /* the streamed rows are visible before the tile is reported done */
}

#undef EACH
#undef NBS_U
#undef m_lt
#undef m_le
#undef m_ge
#undef m_gt
#undef m_eq
#undef NBS_W
#undef V
#undef M
#undef VI
#undef v_set1
#undef v_sqrt
#undef v_fma
#undef v_rint
#undef v_abs
#undef m_cmp
#undef m_and
#undef m_or
#undef m_none
#undef m_any
#undef v_select
#undef v_from_int
#undef vi_trunc
#undef vi_set1
#undef vi_add
#undef vi_mul
#undef vi_iota
#undef v_gather
#undef m_bits
#undef v_floats
#undef v_store_float
#undef v_stream_float
#undef OD
#undef NBS_OD
#undef od_zero
#undef od_part
#undef od_add_first
#undef od_first
#undef NBS_K
#undef NBS_R
#undef NBS_FN
#undef NBS_CAT
#undef NBS_CAT2
