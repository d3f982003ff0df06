/*===- GemmScratch.h - Per-thread scratch of the GEMM kernels --*- C -*-===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*/

#ifndef PIPEWAVE_TARGET_CPU_GEMMSCRATCH_H
#define PIPEWAVE_TARGET_CPU_GEMMSCRATCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A 64-byte aligned buffer of at least `floats` floats, private to the
 * calling thread. It only grows (its contents are lost when it does), so a
 * pipeline's steady state allocates nothing. NULL when it cannot grow. The
 * kernels (SmallGemm.c, PackedGemm.c) never hold it across a call of the
 * other. */
float *pw_gemm_scratch(size_t floats);

/* The calling thread's clock of the bytes of operands its products have
 * read and written so far, for how recently a product last read an
 * operand: pw_gemm_traffic_add advances it; each kernel counts its product
 * as it starts (pw_gemm_count_product: A, B and C of an m x n x k product,
 * returned), Kernels.c OpenBLAS's. */
void pw_gemm_traffic_add(uint64_t bytes);
uint64_t pw_gemm_count_product(int64_t m, int64_t n, int64_t k);

/* Whether the calling thread read `b` in a product so recently that it is
 * likely still in a 2 MiB L2: less than 1 MiB of operands between the end
 * of that product and the start of this one, whose own `productBytes` the
 * clock already counts. Remembers the last 8 operands it was asked about,
 * and records this read. */
int pw_gemm_recently_read(const void *b, uint64_t productBytes);

#ifdef __cplusplus
}
#endif

#endif
