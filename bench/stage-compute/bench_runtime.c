/*===- bench_runtime.c - Times the stage functions of a compiled model ----===*
 *
 * Part of the pipewave project (bench/stage-compute).
 *
 * Linked in place of libpipewave_runtime (pipewave-compile --runtime-lib):
 * runs stage 0's forward on its (microbatch) shapes REPS times after a
 * warm-up and reports the best and median time, then times OpenBLAS
 * cblas_sgemm on an MxKxN problem given on the command line (the matmul of
 * the stage) for the ratio. Usage: BINARY [REPS [M K N]]. The checksum
 * (sum of result 0) lets runs with different matmul lowerings be compared.
 *
 *===----------------------------------------------------------------------===*/

#include "pipewave-runtime/model.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static size_t bytes(const pw_tensor_info *t) {
  size_t n = 4;
  for (int d = 0; d < t->rank; ++d)
    n *= (size_t)t->shape[d];
  return n;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void fill(float *p, size_t n, int seed) {
  for (size_t i = 0; i < n; ++i)
    p[i] = (float)(0.01 * sin(0.7 * (double)i + seed));
}

/* Best and median of REPS calls of f(ctx). */
static void timeit(void (*f)(void *), void *ctx, int reps, double *best,
                   double *median) {
  double *t = malloc(sizeof(double) * reps);
  f(ctx);
  f(ctx);
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    f(ctx);
    t[r] = now() - t0;
  }
  qsort(t, reps, sizeof(double), cmp);
  *best = t[0];
  *median = t[reps / 2];
  free(t);
}

struct stage_ctx {
  const pw_stage *stage;
  void **args, **results;
};

static void run_stage(void *p) {
  struct stage_ctx *c = p;
  c->stage->forward(c->args, c->results);
}

struct gemm_ctx {
  int m, k, n;
  float *a, *b, *c;
};

static void run_gemm(void *p) {
  struct gemm_ctx *g = p;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, g->m, g->n, g->k, 1.0f,
              g->a, g->k, g->b, g->n, 0.0f, g->c, g->n);
}

int pw_runtime_main(int argc, char **argv, const pw_model *m) {
  int reps = argc > 1 ? atoi(argv[1]) : 10;
  int gm = argc > 4 ? atoi(argv[2]) : 1024;
  int gk = argc > 4 ? atoi(argv[3]) : 1024;
  int gn = argc > 4 ? atoi(argv[4]) : 1024;
  double flops = 2.0 * gm * gk * gn;

  const pw_stage *st = &m->stages[0];
  struct stage_ctx c = {st, calloc(st->num_args + 1, sizeof(void *)),
                        calloc(st->num_results + 1, sizeof(void *))};
  for (int i = 0; i < st->num_args; ++i) {
    c.args[i] = aligned_alloc(64, (bytes(&st->args[i]) + 63) / 64 * 64);
    fill(c.args[i], bytes(&st->args[i]) / 4, i);
  }
  for (int i = 0; i < st->num_results; ++i)
    c.results[i] = aligned_alloc(64, (bytes(&st->results[i]) + 63) / 64 * 64);
  /* The forward's workspace (model.h), after its arguments. */
  if (st->forward_workspace > 0)
    c.args[st->num_args] =
        aligned_alloc(64, ((size_t)st->forward_workspace + 63) / 64 * 64);
  double best, median;
  timeit(run_stage, &c, reps, &best, &median);

  struct gemm_ctx g = {gm,
                       gk,
                       gn,
                       aligned_alloc(64, 4ul * gm * gk),
                       aligned_alloc(64, 4ul * gk * gn),
                       aligned_alloc(64, 4ul * gm * gn)};
  fill(g.a, (size_t)gm * gk, 1);
  fill(g.b, (size_t)gk * gn, 2);
  double gbest, gmedian;
  timeit(run_gemm, &g, reps, &gbest, &gmedian);

  double checksum = 0;
  for (size_t i = 0; i < bytes(&st->results[0]) / 4; ++i)
    checksum += ((const float *)c.results[0])[i];
  printf("stage 0 forward: best %.3f ms median %.3f ms = %.1f GFLOP/s "
         "(counting the %dx%dx%d matmul), checksum %.6g\n",
         best * 1e3, median * 1e3, flops / best * 1e-9, gm, gk, gn, checksum);
  printf("cblas_sgemm:     best %.3f ms median %.3f ms = %.1f GFLOP/s\n",
         gbest * 1e3, gmedian * 1e3, flops / gbest * 1e-9);
  printf("ratio (best): %.2f of OpenBLAS sgemm\n", gbest / best);
  return 0;
}
