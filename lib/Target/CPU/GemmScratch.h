/*===- GemmScratch.h - Per-thread scratch of the GEMM kernels --*- C -*-===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*/

#ifndef PIPEWAVE_TARGET_CPU_GEMMSCRATCH_H
#define PIPEWAVE_TARGET_CPU_GEMMSCRATCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A 64-byte aligned buffer of at least `floats` floats, private to the
 * calling thread. It only grows (its contents are lost when it does), so a
 * pipeline's steady state allocates nothing. NULL when it cannot grow. The
 * kernels (SmallGemm.c, PackedGemm.c) never hold it across a call of the
 * other. */
float *pw_gemm_scratch(size_t floats);

#ifdef __cplusplus
}
#endif

#endif
