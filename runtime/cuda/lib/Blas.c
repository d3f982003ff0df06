/*===- Blas.c - Row-major f32 matmuls of stage code through cuBLAS -------===*\
|*                                                                          *|
|* Part of the pipewave project.                                            *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
/*
 * cuBLAS is column-major. A row-major m x n matrix C with row stride ldc is
 * the column-major n x m matrix C^T with leading dimension ldc, so
 * C = A * B is computed as C^T = B^T * A^T: the operands are swapped and the
 * sizes exchanged, and no data moves. An operand stored transposed is the
 * same buffer with the opposite cuBLAS operation.
 */

#include "pipewave-cuda/launch.h"

#include "Check.h"

#include <cublas_v2.h>

/* One handle per thread and device: cuBLAS handles must not be shared by
 * threads that call concurrently. */
#define PW_CUDA_MAX_DEVICES 64
static _Thread_local cublasHandle_t handles[PW_CUDA_MAX_DEVICES];

static void checkBlas(const char *what, cublasStatus_t status) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return;
  fprintf(stderr, "pipewave-cuda: %s failed: %s\n", what,
          cublasGetStatusString(status));
  abort();
}

static cublasHandle_t handleFor(void *stream) {
  int device = 0;
  PW_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 0 || device >= PW_CUDA_MAX_DEVICES) {
    fprintf(stderr, "pipewave-cuda: device %d out of range\n", device);
    abort();
  }
  if (!handles[device])
    checkBlas("cublasCreate", cublasCreate(&handles[device]));
  checkBlas("cublasSetStream",
            cublasSetStream(handles[device], (cudaStream_t)stream));
  return handles[device];
}

static cublasComputeType_t computeType(int32_t precision) {
  switch (precision) {
  case PW_CUDA_PRECISION_TF32:
    return CUBLAS_COMPUTE_32F_FAST_TF32;
  case PW_CUDA_PRECISION_BF16:
    return CUBLAS_COMPUTE_32F_FAST_16BF;
  default:
    return CUBLAS_COMPUTE_32F_PEDANTIC;
  }
}

void pw_cuda_sgemm(int32_t precision, int32_t transA, int32_t transB, int64_t m,
                   int64_t n, int64_t k, const float *a, int64_t lda,
                   int64_t strideA, const float *b, int64_t ldb,
                   int64_t strideB, float beta, float *c, int64_t ldc,
                   int64_t strideC, int64_t batch, void *stream) {
  if (m == 0 || n == 0 || batch == 0)
    return;
  cublasHandle_t handle = handleFor(stream);
  const float alpha = 1.0f;
  /* C^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m), column-major. */
  cublasOperation_t opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opA = transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  checkBlas("cublasGemmStridedBatchedEx",
            cublasGemmStridedBatchedEx(
                handle, opB, opA, (int)n, (int)m, (int)k, &alpha, b, CUDA_R_32F,
                (int)ldb, strideB, a, CUDA_R_32F, (int)lda, strideA, &beta, c,
                CUDA_R_32F, (int)ldc, strideC, (int)batch,
                computeType(precision), CUBLAS_GEMM_DEFAULT));
}
