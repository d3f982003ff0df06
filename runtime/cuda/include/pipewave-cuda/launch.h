/*===- launch.h - Launch layer of pipewave's generated CUDA stage code ---===*\
|*                                                                          *|
|* Part of the pipewave project.                                            *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
/*
 * The host side of a stage compiled with `pipe-lower-to-gpu` calls only these
 * functions (libpipewave_cuda, on the CUDA runtime API and cuBLAS, no MLIR):
 *
 *   - pw_cuda_launch: loads the stage's kernel image once (cudaLibraryLoadData,
 *     cached in the caller's `library` slot) and launches a kernel (cached in
 *     its `kernel` slot) with cudaLaunchKernel on the given stream. No stream
 *     is created and nothing is synchronised.
 *   - pw_cuda_global: the device address of a constant of the image.
 *   - pw_cuda_alloc / pw_cuda_free: stream-ordered temporaries
 *     (cudaMallocAsync / cudaFreeAsync).
 *   - pw_cuda_sgemm: a row-major f32 (batched) matmul through cuBLAS, in the
 *     math mode of the stage's precision.
 *
 * Every CUDA or cuBLAS error is fatal: the message is printed to stderr and
 * the process aborts (stage functions return nothing).
 */

#ifndef PIPEWAVE_CUDA_LAUNCH_H
#define PIPEWAVE_CUDA_LAUNCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Math modes of pw_cuda_sgemm (the `precision` option of the compiler). */
enum {
  /** IEEE fp32 products and sums (CUBLAS_COMPUTE_32F_PEDANTIC). */
  PW_CUDA_PRECISION_FP32 = 0,
  /** TF32 tensor cores, fp32 data (CUBLAS_COMPUTE_32F_FAST_TF32). */
  PW_CUDA_PRECISION_TF32 = 1,
  /** bf16 operands, fp32 accumulation and data (CUBLAS_COMPUTE_32F_FAST_16BF).
   */
  PW_CUDA_PRECISION_BF16 = 2,
};

/** Launches kernel `name` of the image `image` (a cubin, fatbin or
 * NUL-terminated PTX) with `grid` x `block` threads (1-D), `smem` bytes of
 * dynamic shared memory and the kernel arguments `args` (one pointer to each
 * argument's value) on `stream` (a cudaStream_t; null is the default
 * stream). `library` and `kernel` are the caller's cache slots, null at
 * first: the image is loaded and the kernel looked up once. */
void pw_cuda_launch(void **library, void **kernel, const void *image,
                    const char *name, uint32_t grid, uint32_t block,
                    uint32_t smem, void **args, void *stream);

/** The device address of the global `name` of the image `image` (loaded
 * once, cached in `library` as for pw_cuda_launch): constants of the stage
 * live in its kernel image. */
void *pw_cuda_global(void **library, const void *image, const char *name);

/** `bytes` of device memory, ordered on `stream`. */
void *pw_cuda_alloc(int64_t bytes, void *stream);

/** Frees `ptr` (from pw_cuda_alloc) in the order of `stream`. */
void pw_cuda_free(void *ptr, void *stream);

/** C[b] = A[b] * B[b] + beta * C[b] for b < batch, all row-major f32 with
 * leading dimensions (row strides) lda, ldb, ldc and batch strides
 * strideA/B/C, in elements. `transA` (`transB`) says A (B) is stored
 * transposed: element (i, p) of the m x k operand A is at a[p * lda + i].
 * Runs on `stream` through cuBLAS, column-major C^T = B^T A^T, without
 * copies. */
void pw_cuda_sgemm(int32_t precision, int32_t transA, int32_t transB, int64_t m,
                   int64_t n, int64_t k, const float *a, int64_t lda,
                   int64_t strideA, const float *b, int64_t ldb,
                   int64_t strideB, float beta, float *c, int64_t ldc,
                   int64_t strideC, int64_t batch, void *stream);

/** Number of usable CUDA devices; 0 when there is no driver or no device
 * (never aborts). */
int pw_cuda_device_count(void);

#ifdef __cplusplus
}
#endif

#endif /* PIPEWAVE_CUDA_LAUNCH_H */
