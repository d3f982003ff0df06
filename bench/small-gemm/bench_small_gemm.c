/*===- bench_small_gemm.c - pipewave's AVX-512 kernels against OpenBLAS ---===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * Times C = A*B (+ beta*C) for each product of a linear layer at a given
 * microbatch size: the forward (M x K times K x N, both row-major), the
 * input gradient (dY times W^T) and the weight gradient (X^T times dY,
 * beta = 1), with OpenBLAS's cblas_sgemm and with the pipewave kernel that
 * takes the product (pw_small_gemm for few rows, else pw_packed_gemm), as
 * compiled stage code calls them, alternated in one process, best of REPS
 * each.
 *
 *   bench_small_gemm REPS M K N [M K N ...]
 *
 *===----------------------------------------------------------------------===*/

#include "PackedGemm.h"
#include "SmallGemm.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One product: C[m,n] = beta*C + op(A) op(B); aT, bT: stored transposed. */
static void one(const char *name, int reps, int m, int n, int k, int aT, int bT,
                float beta) {
  float *a = malloc(sizeof(float) * (size_t)m * k);
  float *b = malloc(sizeof(float) * (size_t)k * n);
  float *c = malloc(sizeof(float) * (size_t)m * n);
  for (long i = 0; i < (long)m * k; ++i)
    a[i] = (float)(i % 7) * 0.1f - 0.3f;
  for (long i = 0; i < (long)k * n; ++i)
    b[i] = (float)(i % 5) * 0.1f - 0.2f;
  for (long i = 0; i < (long)m * n; ++i)
    c[i] = 0.0f;
  int lda = aT ? m : k, ldb = bT ? k : n;
  double blas = 1e30, own = 1e30;
  int taken = 1;
  for (int r = 0; r < reps; ++r) {
    double t = now();
    cblas_sgemm(CblasRowMajor, aT ? CblasTrans : CblasNoTrans,
                bT ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb,
                beta, c, n);
    t = now() - t;
    if (t < blas)
      blas = t;
    t = now();
    taken = pw_small_gemm(m, n, k, a, aT, lda, b, bT, ldb, beta, c, n, 1)
                ? 1
                : 2 * pw_packed_gemm(m, n, k, a, aT, lda, b, bT, ldb, beta,
                                     NULL, c, n, 1);
    t = now() - t;
    if (t < own)
      own = t;
  }
  double gflop = 2.0 * m * n * k * 1e-9;
  if (taken)
    printf("%-14s %5dx%5dx%5d  OpenBLAS %7.1f GFLOP/s  pipewave (%s) %7.1f "
           "GFLOP/s  pipewave/OpenBLAS time %.2f\n",
           name, m, n, k, gflop / blas, taken == 1 ? "few-row" : "packed",
           gflop / own, own / blas);
  else
    printf("%-14s %5dx%5dx%5d  OpenBLAS %7.1f GFLOP/s  (OpenBLAS's: no "
           "kernel of pipewave's takes it)\n",
           name, m, n, k, gflop / blas);
  free(a);
  free(b);
  free(c);
}

int main(int argc, char **argv) {
  if (argc < 5 || (argc - 2) % 3 != 0) {
    fprintf(stderr, "usage: %s REPS M K N [M K N ...]\n", argv[0]);
    return 2;
  }
  int reps = atoi(argv[1]);
  for (int i = 2; i + 2 < argc; i += 3) {
    int m = atoi(argv[i]), k = atoi(argv[i + 1]), n = atoi(argv[i + 2]);
    one("forward", reps, m, n, k, 0, 0, 0.0f);
    one("input grad", reps, m, k, n, 0, 1, 0.0f);
    one("weight grad", reps, k, n, m, 1, 0, 1.0f);
  }
  return 0;
}
