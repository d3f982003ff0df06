/*===- PackedGemm.h - AVX-512 GEMM with packed operands --------*- C -*-===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*/

#ifndef PIPEWAVE_TARGET_CPU_PACKEDGEMM_H
#define PIPEWAVE_TARGET_CPU_PACKEDGEMM_H

#include "Epilogue.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the kernel runs in this process: a CPU with AVX-512 and
 * PIPEWAVE_GEMM unset or "auto" (PIPEWAVE_GEMM=blas leaves every product to
 * OpenBLAS). */
int pw_packed_gemm_enabled(void);

/* Whether the kernel is the faster choice for an m x n x k product, on a CPU
 * with AVX-512 (see PackedGemm.c for the measurements behind the rule). */
int pw_packed_gemm_takes(int64_t m, int64_t n, int64_t k, int bTransposed,
                         int aTransposed);

/* C = beta * C + A * B, every matrix row-major as cblas_sgemm takes it: A
 * (m x k) stored transposed when aTransposed (A(i, p) = a[p * lda + i],
 * else a[i * lda + p]), likewise B (k x n), C with leading dimension ldc;
 * then, with ep, every element of C goes through it (Epilogue.h). An
 * update (C the parameter's gradient) whose `grad_dead` is set runs on the
 * tiles' values instead when k is at most one block (256): the parameter is
 * updated and C left unwritten (`grad_left`). Returns 1 when done, 0 when the
 * caller should call OpenBLAS instead: the kernel is off, OpenBLAS runs more
 * than one thread, the rule above does not take the shape, or the packing
 * buffer could not be allocated. */
int pw_packed_gemm(int64_t m, int64_t n, int64_t k, const float *a,
                   int aTransposed, int64_t lda, const float *b,
                   int bTransposed, int64_t ldb, float beta,
                   const pw_epilogue *ep, float *c, int64_t ldc,
                   int blasThreads);

/* The kernel without the rule, for any shape (tests and benchmarks): 1 when
 * done, 0 without AVX-512 or when the packing buffer could not be
 * allocated. */
int pw_packed_gemm_any_shape(int64_t m, int64_t n, int64_t k, const float *a,
                             int aTransposed, int64_t lda, const float *b,
                             int bTransposed, int64_t ldb, float beta,
                             const pw_epilogue *ep, float *c, int64_t ldc);

#ifdef __cplusplus
}
#endif

#endif
