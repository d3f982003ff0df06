/*===- SgemmBench.c - pw_cuda_sgemm against cuBLAS alone ------------------===*\
|*                                                                          *|
|* Part of the pipewave project.                                            *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
/*
 * pipewave-cuda-sgemm-bench M N K [ITERS] [PRECISION]
 *
 * Times the three products of one dense layer of M rows, K inputs and N
 * outputs (forward C = A B, input gradient A' = C' B^T, weight gradient
 * B' = A^T C') through pw_cuda_sgemm, the call the stage code makes, and
 * through cublasGemmEx alone with the same compute type, each on one stream
 * after a warm-up, and prints one line per product:
 *
 *   sgemm NN 4096x4096x4096: layer 1234.5 us 111.4 TFLOP/s, cublas ... ratio
 * 0.99
 *
 * PRECISION is 0 (fp32), 1 (tf32) or 2 (bf16), as the compiler's
 * --precision. Exits 2 without a GPU.
 */

#include "pipewave-cuda/launch.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    int pwStatus = (int)(call);                                                \
    if (pwStatus != 0) {                                                       \
      fprintf(stderr, "%s failed: %d\n", #call, pwStatus);                     \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static cublasComputeType_t computeType(int precision) {
  return precision == 1   ? CUBLAS_COMPUTE_32F_FAST_TF32
         : precision == 2 ? CUBLAS_COMPUTE_32F_FAST_16BF
                          : CUBLAS_COMPUTE_32F_PEDANTIC;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s M N K [ITERS] [PRECISION]\n", argv[0]);
    return 2;
  }
  if (pw_cuda_device_count() == 0) {
    fprintf(stderr, "pipewave-cuda-sgemm-bench: no GPU\n");
    return 2;
  }
  long m = atol(argv[1]), n = atol(argv[2]), k = atol(argv[3]);
  int iters = argc > 4 ? atoi(argv[4]) : 20;
  int precision = argc > 5 ? atoi(argv[5]) : 0;
  float *a, *b, *c;
  size_t most = (size_t)(m > n ? m : n) * (size_t)(k > n ? k : n) * 4;
  CHECK(cudaMalloc((void **)&a, most));
  CHECK(cudaMalloc((void **)&b, most));
  CHECK(cudaMalloc((void **)&c, most));
  CHECK(cudaMemset(a, 0, most));
  CHECK(cudaMemset(b, 0, most));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cublasHandle_t handle;
  CHECK(cublasCreate(&handle));
  CHECK(cublasSetStream(handle, stream));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  /* Row-major (rows, inner, cols, transA, transB) of the three products. */
  struct {
    const char *name;
    long rows, inner, cols;
    int ta, tb;
  } cases[] = {
      {"NN", m, k, n, 0, 0}, {"NT", m, n, k, 0, 1}, {"TN", k, m, n, 1, 0}};
  const float one = 1.0f, zero = 0.0f;
  for (int t = 0; t < 3; ++t) {
    long rows = cases[t].rows, inner = cases[t].inner, cols = cases[t].cols;
    int ta = cases[t].ta, tb = cases[t].tb;
    long lda = ta ? rows : inner, ldb = tb ? inner : cols, ldc = cols;
    float times[2];
    for (int way = 0; way < 2; ++way) {
      for (int i = -2; i < iters; ++i) {
        if (i == 0)
          CHECK(cudaEventRecord(start, stream));
        if (way == 0)
          pw_cuda_sgemm(precision, ta, tb, rows, cols, inner, a, lda, 0, b, ldb,
                        0, 0.0f, c, ldc, 0, 1, stream);
        else
          CHECK(cublasGemmEx(handle, tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                             ta ? CUBLAS_OP_T : CUBLAS_OP_N, (int)cols,
                             (int)rows, (int)inner, &one, b, CUDA_R_32F,
                             (int)ldb, a, CUDA_R_32F, (int)lda, &zero, c,
                             CUDA_R_32F, (int)ldc, computeType(precision),
                             CUBLAS_GEMM_DEFAULT));
      }
      CHECK(cudaEventRecord(stop, stream));
      CHECK(cudaEventSynchronize(stop));
      CHECK(cudaEventElapsedTime(&times[way], start, stop));
      times[way] *= 1000.0f / (float)iters; /* us per call */
    }
    double flops = 2.0 * (double)rows * (double)cols * (double)inner;
    printf("sgemm %s %ldx%ldx%ld: layer %.1f us %.1f TFLOP/s, cublas %.1f us "
           "%.1f TFLOP/s, ratio %.3f\n",
           cases[t].name, rows, cols, inner, times[0], flops / (times[0] * 1e6),
           times[1], flops / (times[1] * 1e6), times[1] / times[0]);
  }
  return 0;
}
