/*===- Epilogue.h - What a product's store applies to C ----------*- C -*-===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * pipe-matmul-to-blas folds the element-wise op after a product into the
 * product's call (lib/Conversion/MatmulEpilogue.cpp): the bias and clamp of
 * a linear layer and its ReLU,
 *
 *   C(i, j) = maximum(minimum(A * B (i, j) + bias[j], hi), lo)
 *
 * with the operations of that op in its order (arith.addf, arith.minimumf,
 * arith.maximumf): IEEE 754-2019 minimum and maximum, which propagate NaN
 * and order -0 below +0; a missing clamp is hi = +inf or lo = -inf, which
 * leaves every value as it is. Or ReLU's backward on an input gradient,
 *
 *   C(i, j) = Y(i, j) > 0 ? A * B (i, j) : +0
 *
 * (arith.cmpf ogt and arith.select: a NaN in Y gives +0). Or, on a
 * parameter's gradient, the parameter's armed SGD update (FusedUpdate.h),
 * which leaves C as it is. The packed and few-row kernels apply a bias,
 * clamp or mask to each tile right after storing it (PackedGemm.c,
 * SmallGemm.c); OpenBLAS's products, and every update, go through
 * pw_epilogue_apply afterwards.
 *
 *===----------------------------------------------------------------------===*/

#ifndef PIPEWAVE_TARGET_CPU_EPILOGUE_H
#define PIPEWAVE_TARGET_CPU_EPILOGUE_H

#include "FusedUpdate.h"

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* With an update, C(i, j) updates param[i * paramRs + j] (C has a unit
 * column stride); with a mask, Y(i, j) = mask[i * maskRs + j * maskCs];
 * else the bias of column j is bias[j * biasStride], and lo and hi are not
 * NaN. */
typedef struct pw_epilogue {
  const float *bias;
  int64_t biasStride;
  float lo, hi;
  const float *mask;
  int64_t maskRs, maskCs;
  pw_fused_update *update;
  float *param;
  int64_t paramRs;
} pw_epilogue;

static inline uint32_t pw_float_bits(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  return bits;
}

static inline float pw_bits_float(uint32_t bits) {
  float x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

/* IEEE 754-2019 minimum (arith.minimumf) of x and a y that is not NaN;
 * branch-free so that pw_epilogue_apply vectorises. */
static inline float pw_minimumf(float x, float y) {
  uint32_t xb = pw_float_bits(x), yb = pw_float_bits(y);
  /* y where it is below x (never for a NaN x); where equal, the same value
   * or zeros, where -0 wins. */
  uint32_t r = y < x ? yb : xb;
  return pw_bits_float(x == y ? xb | yb : r);
}

/* IEEE 754-2019 maximum (arith.maximumf) of x and a y that is not NaN;
 * branch-free. */
static inline float pw_maximumf(float x, float y) {
  uint32_t xb = pw_float_bits(x), yb = pw_float_bits(y);
  /* y where it is above x; where equal, +0 wins among zeros. */
  uint32_t r = y > x ? yb : xb;
  return pw_bits_float(x == y ? xb & yb : r);
}

/* The epilogue of the value x of C(i, j). */
static inline float pw_epilogue_at(const pw_epilogue *ep, float x, int64_t i,
                                   int64_t j) {
  if (ep->mask)
    return ep->mask[i * ep->maskRs + j * ep->maskCs] > 0.0f ? x : 0.0f;
  return pw_maximumf(pw_minimumf(x + ep->bias[j * ep->biasStride], ep->hi),
                     ep->lo);
}

/* Whether ep's bias or mask has a unit column stride (16 columns load at
 * once). */
static inline int pw_epilogue_unit_columns(const pw_epilogue *ep) {
  return ep->mask ? ep->maskCs == 1 : ep->biasStride == 1;
}

/* The epilogue (a bias, clamp or mask of unit column stride) over rows x
 * cols of C at C(i0, j0) = c (row stride ldc), 16 columns at a time; only
 * where the CPU has AVX-512 (EpilogueAvx512.c). */
void pw_epilogue_rows_avx512(const pw_epilogue *ep, float *c, int64_t ldc,
                             int64_t rows, int64_t cols, int64_t i0,
                             int64_t j0);

/* The epilogue over an m x n row-major C (leading dimension ldc), 16
 * columns at a time: 1 when done, 0 without AVX-512 or with a bias or mask
 * of non-unit column stride (then pw_epilogue_apply). */
int pw_epilogue_apply_avx512(const pw_epilogue *ep, float *c, int64_t m,
                             int64_t n, int64_t ldc);

/* The epilogue over an m x n matrix, C(i, j) = c[i * rs + j * cs] (cs 1
 * with an update). */
static inline void pw_epilogue_apply(const pw_epilogue *ep, float *c, int64_t m,
                                     int64_t n, int64_t rs, int64_t cs) {
  if (ep->update) {
    pw_update_rows(ep->update, c, rs, ep->param, ep->paramRs, m, n);
    return;
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      c[i * rs + j * cs] = pw_epilogue_at(ep, c[i * rs + j * cs], i, j);
}

#ifdef __cplusplus
}
#endif

#endif
