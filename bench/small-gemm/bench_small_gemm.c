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
 * With -w W, each product goes through W weights (B, and C for the weight
 * gradient) in turn, as the layers of a pipeline stage do, so that each
 * call finds its weight in the last-level cache rather than in L2; the
 * report then gives the median of the REPS x W calls, which a cold operand
 * makes the fairer figure.
 *
 *   bench_small_gemm [-w W] REPS M K N [M K N ...]
 *
 *===----------------------------------------------------------------------===*/

#include "PackedGemm.h"
#include "SmallGemm.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int byTime(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* The best of `count` times, or with `median` their median (sorts). */
static double summary(double *t, int count, int median) {
  qsort(t, (size_t)count, sizeof(double), byTime);
  return median ? t[count / 2] : t[0];
}

/* One product: C[m,n] = beta*C + op(A) op(B); aT, bT: stored transposed;
 * over `weights` copies of B and C in turn. */
static void one(const char *name, int reps, int weights, int m, int n, int k,
                int aT, int bT, float beta) {
  float *a = malloc(sizeof(float) * (size_t)m * k);
  float *b = malloc(sizeof(float) * (size_t)k * n * weights);
  float *c = malloc(sizeof(float) * (size_t)m * n * weights);
  double *blas = malloc(sizeof(double) * (size_t)reps * weights);
  double *own = malloc(sizeof(double) * (size_t)reps * weights);
  for (long i = 0; i < (long)m * k; ++i)
    a[i] = (float)(i % 7) * 0.1f - 0.3f;
  for (long i = 0; i < (long)k * n * weights; ++i)
    b[i] = (float)(i % 5) * 0.1f - 0.2f;
  for (long i = 0; i < (long)m * n * weights; ++i)
    c[i] = 0.0f;
  int lda = aT ? m : k, ldb = bT ? k : n;
  int taken = 1, calls = 0;
  for (int r = 0; r < reps; ++r)
    for (int w = 0; w < weights; ++w, ++calls) {
      const float *bw = b + (size_t)w * k * n;
      float *cw = c + (size_t)w * m * n;
      double t = now();
      cblas_sgemm(CblasRowMajor, aT ? CblasTrans : CblasNoTrans,
                  bT ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a, lda, bw,
                  ldb, beta, cw, n);
      blas[calls] = now() - t;
      t = now();
      taken =
          pw_small_gemm(m, n, k, a, aT, lda, bw, bT, ldb, beta, NULL, cw, n, 1)
              ? 1
              : 2 * pw_packed_gemm(m, n, k, a, aT, lda, bw, bT, ldb, beta, NULL,
                                   cw, n, 1);
      own[calls] = now() - t;
    }
  int median = weights > 1;
  double tb = summary(blas, calls, median), to = summary(own, calls, median);
  double gflop = 2.0 * m * n * k * 1e-9;
  if (taken)
    printf("%-14s %5dx%5dx%5d  OpenBLAS %7.1f GFLOP/s  pipewave (%s) %7.1f "
           "GFLOP/s  pipewave/OpenBLAS time %.2f\n",
           name, m, n, k, gflop / tb, taken == 1 ? "few-row" : "packed",
           gflop / to, to / tb);
  else
    printf("%-14s %5dx%5dx%5d  OpenBLAS %7.1f GFLOP/s  (OpenBLAS's: no "
           "kernel of pipewave's takes it)\n",
           name, m, n, k, gflop / tb);
  free(a);
  free(b);
  free(c);
  free(blas);
  free(own);
}

int main(int argc, char **argv) {
  int weights = 1, first = 1;
  if (argc > 2 && strcmp(argv[1], "-w") == 0) {
    weights = atoi(argv[2]);
    first = 3;
  }
  if (weights < 1 || argc - first < 4 || (argc - first - 1) % 3 != 0) {
    fprintf(stderr, "usage: %s [-w W] REPS M K N [M K N ...]\n", argv[0]);
    return 2;
  }
  int reps = atoi(argv[first]);
  if (weights > 1)
    printf("%d weights in turn; medians of %d calls\n", weights,
           reps * weights);
  for (int i = first + 1; i + 2 < argc; i += 3) {
    int m = atoi(argv[i]), k = atoi(argv[i + 1]), n = atoi(argv[i + 2]);
    one("forward", reps, weights, m, n, k, 0, 0, 0.0f);
    one("input grad", reps, weights, m, k, n, 0, 1, 0.0f);
    one("weight grad", reps, weights, k, n, m, 1, 0, 1.0f);
  }
  return 0;
}
