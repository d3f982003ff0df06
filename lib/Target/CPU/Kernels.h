/*===- Kernels.h - Helpers that compiled stage code calls --------*- C -*-===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * The entry points of Kernels.c that pipe-matmul-to-blas and
 * pipe-fuse-updates call: every memref operand as the fields of its MLIR
 * memref descriptor (allocated, aligned, offset, sizes, strides).
 *
 *===----------------------------------------------------------------------===*/

#ifndef PIPEWAVE_TARGET_CPU_KERNELS_H
#define PIPEWAVE_TARGET_CPU_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void pw_sgemm(float beta, float *a_alloc, float *a, int64_t a_off, int64_t a_m,
              int64_t a_k, int64_t a_sm, int64_t a_sk, float *b_alloc, float *b,
              int64_t b_off, int64_t b_k, int64_t b_n, int64_t b_sk,
              int64_t b_sn, float *c_alloc, float *c, int64_t c_off,
              int64_t c_m, int64_t c_n, int64_t c_sm, int64_t c_sn);

void pw_sgemm_batched(float beta, float *a_alloc, float *a, int64_t a_off,
                      int64_t a_b, int64_t a_m, int64_t a_k, int64_t a_sb,
                      int64_t a_sm, int64_t a_sk, float *b_alloc, float *b,
                      int64_t b_off, int64_t b_b, int64_t b_k, int64_t b_n,
                      int64_t b_sb, int64_t b_sk, int64_t b_sn, float *c_alloc,
                      float *c, int64_t c_off, int64_t c_b, int64_t c_m,
                      int64_t c_n, int64_t c_sb, int64_t c_sm, int64_t c_sn);

void pw_sgemm_bias_clamp(float beta, float *a_alloc, float *a, int64_t a_off,
                         int64_t a_m, int64_t a_k, int64_t a_sm, int64_t a_sk,
                         float *b_alloc, float *b, int64_t b_off, int64_t b_k,
                         int64_t b_n, int64_t b_sk, int64_t b_sn,
                         float *c_alloc, float *c, int64_t c_off, int64_t c_m,
                         int64_t c_n, int64_t c_sm, int64_t c_sn,
                         float *bias_alloc, float *bias, int64_t bias_off,
                         int64_t bias_n, int64_t bias_s, float lo, float hi);

void pw_sgemm_batched_bias_clamp(
    float beta, float *a_alloc, float *a, int64_t a_off, int64_t a_b,
    int64_t a_m, int64_t a_k, int64_t a_sb, int64_t a_sm, int64_t a_sk,
    float *b_alloc, float *b, int64_t b_off, int64_t b_b, int64_t b_k,
    int64_t b_n, int64_t b_sb, int64_t b_sk, int64_t b_sn, float *c_alloc,
    float *c, int64_t c_off, int64_t c_b, int64_t c_m, int64_t c_n,
    int64_t c_sb, int64_t c_sm, int64_t c_sn, float *bias_alloc, float *bias,
    int64_t bias_off, int64_t bias_n, int64_t bias_s, float lo, float hi);

void pw_sgemm_positive_mask(float beta, float *a_alloc, float *a, int64_t a_off,
                            int64_t a_m, int64_t a_k, int64_t a_sm,
                            int64_t a_sk, float *b_alloc, float *b,
                            int64_t b_off, int64_t b_k, int64_t b_n,
                            int64_t b_sk, int64_t b_sn, float *c_alloc,
                            float *c, int64_t c_off, int64_t c_m, int64_t c_n,
                            int64_t c_sm, int64_t c_sn, float *y_alloc,
                            float *y, int64_t y_off, int64_t y_m, int64_t y_n,
                            int64_t y_sm, int64_t y_sn);

void pw_sgemm_batched_positive_mask(
    float beta, float *a_alloc, float *a, int64_t a_off, int64_t a_b,
    int64_t a_m, int64_t a_k, int64_t a_sb, int64_t a_sm, int64_t a_sk,
    float *b_alloc, float *b, int64_t b_off, int64_t b_b, int64_t b_k,
    int64_t b_n, int64_t b_sb, int64_t b_sk, int64_t b_sn, float *c_alloc,
    float *c, int64_t c_off, int64_t c_b, int64_t c_m, int64_t c_n,
    int64_t c_sb, int64_t c_sm, int64_t c_sn, float *y_alloc, float *y,
    int64_t y_off, int64_t y_m, int64_t y_n, int64_t y_sm, int64_t y_sn);

void pw_sgemm_update(float beta, float *a_alloc, float *a, int64_t a_off,
                     int64_t a_m, int64_t a_k, int64_t a_sm, int64_t a_sk,
                     float *b_alloc, float *b, int64_t b_off, int64_t b_k,
                     int64_t b_n, int64_t b_sk, int64_t b_sn, float *c_alloc,
                     float *c, int64_t c_off, int64_t c_m, int64_t c_n,
                     int64_t c_sm, int64_t c_sn, float *p_alloc, float *p,
                     int64_t p_off, int64_t p_m, int64_t p_n, int64_t p_sm,
                     int64_t p_sn);

void pw_sgemm_batched_update(
    float beta, float *a_alloc, float *a, int64_t a_off, int64_t a_b,
    int64_t a_m, int64_t a_k, int64_t a_sb, int64_t a_sm, int64_t a_sk,
    float *b_alloc, float *b, int64_t b_off, int64_t b_b, int64_t b_k,
    int64_t b_n, int64_t b_sb, int64_t b_sk, int64_t b_sn, float *c_alloc,
    float *c, int64_t c_off, int64_t c_b, int64_t c_m, int64_t c_n,
    int64_t c_sb, int64_t c_sm, int64_t c_sn, float *p_alloc, float *p,
    int64_t p_off, int64_t p_b, int64_t p_m, int64_t p_n, int64_t p_sb,
    int64_t p_sm, int64_t p_sn);

int pw_small_gemm_active(void);

#ifdef __cplusplus
}
#endif

#endif
