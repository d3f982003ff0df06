/*===- Avx512Transpose.h - A 16x16 float transpose in registers -*- C -*-===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * Shared by the AVX-512 GEMM kernels (SmallGemm.c, PackedGemm.c); include it
 * only where __x86_64__ and a GCC-compatible compiler are known.
 *
 *===----------------------------------------------------------------------===*/

#ifndef PIPEWAVE_TARGET_CPU_AVX512TRANSPOSE_H
#define PIPEWAVE_TARGET_CPU_AVX512TRANSPOSE_H

#include <immintrin.h>
#include <stdint.h>

/* out[j] = column j of the 16x16 block at src (row stride lds), for j <
 * 16: four rounds of in-register shuffles. Rows at and past `rows` read as
 * zero (not loaded). */
static inline __attribute__((always_inline, target("avx512f"))) void
pw_transpose16(const float *src, int64_t lds, int rows, __m512 out[16]) {
  __m512 t[16];
  for (int i = 0; i < 16; ++i)
    out[i] = i < rows ? _mm512_loadu_ps(src + i * lds) : _mm512_setzero_ps();
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(out[i], out[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(out[i], out[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    __m512d a = _mm512_castps_pd(t[i]), b = _mm512_castps_pd(t[i + 1]);
    __m512d c = _mm512_castps_pd(t[i + 2]), d = _mm512_castps_pd(t[i + 3]);
    out[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    out[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    out[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    out[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
  for (int g = 0; g < 16; g += 8)
    for (int i = 0; i < 4; ++i) {
      t[g + i] = _mm512_shuffle_f32x4(out[g + i], out[g + i + 4], 0x88);
      t[g + i + 4] = _mm512_shuffle_f32x4(out[g + i], out[g + i + 4], 0xdd);
    }
  for (int i = 0; i < 8; ++i) {
    out[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    out[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
  }
}

#endif
