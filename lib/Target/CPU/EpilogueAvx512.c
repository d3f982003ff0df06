/*===- EpilogueAvx512.c - A product's epilogue, 16 columns at a time ------===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * Epilogue.h's bias, clamp and mask with AVX-512: the GEMM kernels
 * (PackedGemm.c, SmallGemm.c) call pw_epilogue_rows_avx512 on each tile of C
 * right after storing it, while it is in L1; the other products go through
 * pw_epilogue_apply_avx512 after.
 *
 *===----------------------------------------------------------------------===*/

#include "Epilogue.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define PW_INLINE static inline __attribute__((always_inline))
#define PW_AVX512 __attribute__((target("avx512f")))

PW_INLINE __mmask16 firstLanes(int64_t count) {
  return (__mmask16)(count >= 16 ? 0xffffu : (1u << count) - 1u);
}

/* Epilogue.h's pw_minimumf and pw_maximumf on 16 lanes, y without NaN. */
PW_INLINE PW_AVX512 __m512 minimum16(__m512 x, __m512 y) {
  __mmask16 above = _mm512_cmp_ps_mask(x, y, _CMP_GT_OQ);
  __mmask16 equal = _mm512_cmp_ps_mask(x, y, _CMP_EQ_OQ);
  __m512i r = _mm512_castps_si512(_mm512_mask_mov_ps(x, above, y));
  return _mm512_castsi512_ps(_mm512_mask_or_epi32(
      r, equal, _mm512_castps_si512(x), _mm512_castps_si512(y)));
}

PW_INLINE PW_AVX512 __m512 maximum16(__m512 x, __m512 y) {
  __mmask16 below = _mm512_cmp_ps_mask(x, y, _CMP_LT_OQ);
  __mmask16 equal = _mm512_cmp_ps_mask(x, y, _CMP_EQ_OQ);
  __m512i r = _mm512_castps_si512(_mm512_mask_mov_ps(x, below, y));
  return _mm512_castsi512_ps(_mm512_mask_and_epi32(
      r, equal, _mm512_castps_si512(x), _mm512_castps_si512(y)));
}

PW_AVX512 void pw_epilogue_rows_avx512(const pw_epilogue *ep, float *c,
                                       int64_t ldc, int64_t rows, int64_t cols,
                                       int64_t i0, int64_t j0) {
  __m512 zero = _mm512_setzero_ps();
  __m512 lo = _mm512_set1_ps(ep->lo), hi = _mm512_set1_ps(ep->hi);
  for (int64_t r = 0; r < rows; ++r) {
    float *out = c + r * ldc;
    for (int64_t j = 0; j < cols; j += 16) {
      __mmask16 lanes = firstLanes(cols - j);
      __m512 x = _mm512_maskz_loadu_ps(lanes, out + j);
      if (ep->mask) {
        const float *y = ep->mask + (i0 + r) * ep->maskRs + j0 + j;
        __mmask16 positive = _mm512_cmp_ps_mask(_mm512_maskz_loadu_ps(lanes, y),
                                                zero, _CMP_GT_OQ);
        x = _mm512_maskz_mov_ps(positive, x);
      } else {
        x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(lanes, ep->bias + j0 + j));
        x = maximum16(minimum16(x, hi), lo);
      }
      _mm512_mask_storeu_ps(out + j, lanes, x);
    }
  }
}

int pw_epilogue_apply_avx512(const pw_epilogue *ep, float *c, int64_t m,
                             int64_t n, int64_t ldc) {
  if (!__builtin_cpu_supports("avx512f") || !pw_epilogue_unit_columns(ep))
    return 0;
  pw_epilogue_rows_avx512(ep, c, ldc, m, n, 0, 0);
  return 1;
}

#else /* not x86-64 with GCC or Clang */

void pw_epilogue_rows_avx512(const pw_epilogue *ep, float *c, int64_t ldc,
                             int64_t rows, int64_t cols, int64_t i0,
                             int64_t j0) {
  /* Not called: the kernels that call it need AVX-512. */
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j)
      c[r * ldc + j] = pw_epilogue_at(ep, c[r * ldc + j], i0 + r, j0 + j);
}

int pw_epilogue_apply_avx512(const pw_epilogue *ep, float *c, int64_t m,
                             int64_t n, int64_t ldc) {
  (void)ep, (void)c, (void)m, (void)n, (void)ldc;
  return 0;
}

#endif
