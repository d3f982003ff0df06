/*===- SmallGemm.h - AVX-512 GEMM for few-row products ---------*- C -*-===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*/

#ifndef PIPEWAVE_TARGET_CPU_SMALLGEMM_H
#define PIPEWAVE_TARGET_CPU_SMALLGEMM_H

#include "Epilogue.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the kernel runs in this process: a CPU with AVX-512 and no
 * PIPEWAVE_GEMM=blas in the environment. */
int pw_small_gemm_enabled(void);

/* Whether the kernel is the faster choice for an m x n x k product (B and A
 * stored transposed or not), on a CPU with AVX-512. */
int pw_small_gemm_takes(int64_t m, int64_t n, int64_t k, int bTransposed,
                        int aTransposed);

/* C = beta * C + A * B, every matrix row-major as cblas_sgemm takes it: A
 * (m x k) stored transposed when aTransposed (A(i, p) = a[p * lda + i],
 * else a[i * lda + p]), likewise B (k x n), C with leading dimension ldc;
 * then ep (NULL: none; a bias, clamp or mask, not an update), on each tile
 * as it is stored where its bias or mask has a unit column stride. Returns
 * 1 when done, 0 when the caller should call OpenBLAS instead (see
 * SmallGemm.c). */
int pw_small_gemm(int64_t m, int64_t n, int64_t k, const float *a,
                  int aTransposed, int64_t lda, const float *b, int bTransposed,
                  int64_t ldb, float beta, const pw_epilogue *ep, float *c,
                  int64_t ldc, int blasThreads);

#ifdef __cplusplus
}
#endif

#endif
