/*===- spells.c - what a shared machine's slow spells slow down -----------===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * On a shared (virtual) machine the same step can take 1.5x as long for a
 * few seconds at a time. This program runs, on one core, round after round
 * of short slices (40 ms each) of:
 *
 *   clock     a chain of dependent FMAs (4 cycles each): the core's clock
 *   fma       12 independent chains of AVX-512 FMAs in registers: the FMA
 *             units' throughput, touching no memory
 *   packed    pipewave's packed kernel, 256x512x512, 8 weights in turn
 *   openblas  cblas_sgemm of the same products
 *   l2        a read stream over 1 MiB (in L2)
 *   dram      a read stream over 64 MiB
 *
 * and prints each round's rates, then each column's median and, over the
 * rounds whose packed rate fell below 85% of its median (the slow spells),
 * each column's mean as a share of its median: which parts of the core a
 * spell slows.
 *
 *   bench/spells/run.sh BUILD_DIR [ROUNDS]
 *
 *===----------------------------------------------------------------------===*/

#include "PackedGemm.h"

#include <cblas.h>
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kSlices = 6, kWeights = 8 };
static const char *const kNames[kSlices] = {"clock",    "fma", "packed",
                                            "openblas", "l2",  "dram"};
static const char *const kUnits[kSlices] = {"GHz",     "GFLOP/s", "GFLOP/s",
                                            "GFLOP/s", "GB/s",    "GB/s"};
static const double kSlice = 0.04;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile float sink;

__attribute__((target("avx512f,fma"))) static double clockGHz(void) {
  __m512 x = _mm512_set1_ps(1.0f), b = _mm512_set1_ps(0.999f),
         c = _mm512_set1_ps(1e-3f);
  long steps = 0;
  double t0 = now(), t;
  do {
    for (int i = 0; i < 100000; ++i)
      x = _mm512_fmadd_ps(x, b, c);
    steps += 100000;
    t = now() - t0;
  } while (t < kSlice);
  sink += _mm512_reduce_add_ps(x);
  return steps * 4.0 / t / 1e9; /* 4 cycles per dependent FMA */
}

__attribute__((target("avx512f,fma"))) static double fmaRate(void) {
  __m512 a[12], b = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(1e-3f);
  for (int j = 0; j < 12; ++j)
    a[j] = _mm512_set1_ps((float)j);
  long steps = 0;
  double t0 = now(), t;
  do {
    for (int i = 0; i < 10000; ++i) {
#pragma GCC unroll 12
      for (int j = 0; j < 12; ++j)
        a[j] = _mm512_fmadd_ps(a[j], b, c);
    }
    steps += 10000;
    t = now() - t0;
  } while (t < kSlice);
  __m512 s = a[0];
  for (int j = 1; j < 12; ++j)
    s = _mm512_add_ps(s, a[j]);
  sink += _mm512_reduce_add_ps(s);
  return steps * 12.0 * 32.0 / t / 1e9;
}

__attribute__((target("avx512f"))) static double stream(const float *x,
                                                        size_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  size_t bytes = 0;
  double t0 = now(), t;
  do {
    for (size_t i = 0; i < n; i += 64) {
      s0 = _mm512_add_ps(s0, _mm512_load_ps(x + i));
      s1 = _mm512_add_ps(s1, _mm512_load_ps(x + i + 16));
      s2 = _mm512_add_ps(s2, _mm512_load_ps(x + i + 32));
      s3 = _mm512_add_ps(s3, _mm512_load_ps(x + i + 48));
    }
    bytes += n * sizeof(float);
    t = now() - t0;
  } while (t < kSlice);
  sink += _mm512_reduce_add_ps(
      _mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
  return bytes / t / 1e9;
}

static double gemmRate(int packed, const float *a, float *const *w, float *c) {
  const int m = 256, k = 512, n = 512;
  long calls = 0;
  double t0 = now(), t;
  do {
    const float *b = w[calls % kWeights];
    if (packed)
      pw_packed_gemm_any_shape(m, n, k, a, 0, k, b, 0, n, 0.0f, NULL, c, n);
    else
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a,
                  k, b, n, 0.0f, c, n);
    ++calls;
    t = now() - t0;
  } while (t < kSlice);
  return calls * 2.0 * m * n * k / t / 1e9;
}

static float *filled(size_t count) {
  float *x = aligned_alloc(64, count * sizeof(float));
  if (!x) {
    fprintf(stderr, "spells: out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < count; ++i)
    x[i] = (float)(i % 7) * 0.01f;
  return x;
}

static int byValue(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static double median(const double *v, int count) {
  double *s = malloc(count * sizeof(double));
  for (int i = 0; i < count; ++i)
    s[i] = v[i];
  qsort(s, count, sizeof(double), byValue);
  double m = count % 2 ? s[count / 2] : (s[count / 2 - 1] + s[count / 2]) / 2;
  free(s);
  return m;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 200;
  if (rounds < 1) {
    fprintf(stderr, "usage: spells [ROUNDS]\n");
    return 2;
  }
  float *a = filled(256 * 512), *c = filled(256 * 512), *w[kWeights];
  for (int i = 0; i < kWeights; ++i)
    w[i] = filled(512 * 512);
  size_t l2 = (size_t)1 << 18, dram = (size_t)64 << 18;
  float *xl2 = filled(l2), *xdram = filled(dram);
  if (!pw_packed_gemm_any_shape(256, 512, 512, a, 0, 512, w[0], 0, 512, 0.0f,
                                NULL, c, 512)) {
    fprintf(stderr, "spells: pipewave's packed kernel does not run here "
                    "(no AVX-512)\n");
    return 1;
  }
  double *rate[kSlices];
  for (int s = 0; s < kSlices; ++s)
    rate[s] = malloc(rounds * sizeof(double));
  printf("round");
  for (int s = 0; s < kSlices; ++s)
    printf(" %9s", kNames[s]);
  printf("\n");
  for (int r = 0; r < rounds; ++r) {
    rate[0][r] = clockGHz();
    rate[1][r] = fmaRate();
    rate[2][r] = gemmRate(1, a, w, c);
    rate[3][r] = gemmRate(0, a, w, c);
    rate[4][r] = stream(xl2, l2);
    rate[5][r] = stream(xdram, dram);
    printf("%5d", r);
    for (int s = 0; s < kSlices; ++s)
      printf(" %9.2f", rate[s][r]);
    printf("\n");
    fflush(stdout);
  }
  double med[kSlices], slow[kSlices] = {0};
  for (int s = 0; s < kSlices; ++s)
    med[s] = median(rate[s], rounds);
  int slowRounds = 0;
  for (int r = 0; r < rounds; ++r) {
    if (rate[2][r] >= 0.85 * med[2])
      continue;
    ++slowRounds;
    for (int s = 0; s < kSlices; ++s)
      slow[s] += rate[s][r];
  }
  printf("\nmedians:");
  for (int s = 0; s < kSlices; ++s)
    printf(" %s %.2f %s%s", kNames[s], med[s], kUnits[s],
           s + 1 < kSlices ? "," : "\n");
  printf("slow rounds (packed below 85%% of its median): %d of %d\n",
         slowRounds, rounds);
  if (slowRounds) {
    printf("their mean as a share of the median:");
    for (int s = 0; s < kSlices; ++s)
      printf(" %s %.2f%s", kNames[s], slow[s] / slowRounds / med[s],
             s + 1 < kSlices ? "," : "\n");
  }
  return 0;
}
