/*===- actions_runtime.c - Times every stage function of a model ----------===*
 *
 * Part of the pipewave project (bench/stage-actions).
 *
 * Linked in place of libpipewave_runtime (pipewave-compile --runtime-lib):
 * calls every stage's forward, backward and, when compiled with the split
 * backward, backward_input and backward_weight on its microbatch shapes,
 * REPS times each after a warm-up, in rounds (F, B, I, W, F, B, ...) so
 * that a burst of load on the machine hits all of them alike, and prints
 * per function the fastest and the median wall time and the median thread
 * CPU time (which a preemption does not inflate). It also times what the
 * runtime runs for a step's other microbatches: the accumulating variants
 * of B and W (backward_acc, backward_weight_acc), which add the gradients
 * of the parameters the model marks (grad_accumulates) to the step's, and
 * the runtime's separate accumulation (dst += src over the floats) of the
 * parameter gradients they do not add themselves. Usage: BINARY [REPS].
 * One line a function:
 *
 *   stage S KIND best_us median_us cpu_median_us
 *
 * KIND is F, B, I, W, Bacc and Wacc (the accumulating variants, where the
 * model has them), and accB and accW (the separate accumulation after a
 * Bacc or Wacc, or after every B or W where the model has no accumulating
 * variant; absent when nothing is left to add). The cost of reading the two
 * clocks (the median of timing nothing) is subtracted. Inputs are small finite
 * values (integers 0). The heap policy is the runtime's
 * (runtime/lib/HostMemory.cpp): freed memory stays mapped, so the temporaries
 * of a stage function do not fault in fresh pages on every call.
 *
 *===----------------------------------------------------------------------===*/

#include "pipewave-runtime/model.h"

#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clockSeconds(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static size_t dtypeBytes(int dtype) {
  switch (dtype) {
  case PW_F64:
  case PW_I64:
    return 8;
  case PW_I8:
  case PW_BOOL:
    return 1;
  default:
    return 4;
  }
}

static size_t tensorBytes(const pw_tensor_info *t) {
  size_t n = dtypeBytes(t->dtype);
  for (int d = 0; d < t->rank; ++d)
    n *= (size_t)t->shape[d];
  return n;
}

/* A buffer for `t`: floats small and finite, everything else zero. */
static void *buffer(const pw_tensor_info *t, int seed) {
  size_t bytes = tensorBytes(t);
  void *p = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  memset(p, 0, bytes);
  if (t->dtype == PW_F32)
    for (size_t i = 0; i < bytes / 4; ++i)
      ((float *)p)[i] = (float)(0.01 * sin(0.7 * (double)i + seed));
  else if (t->dtype == PW_F64)
    for (size_t i = 0; i < bytes / 8; ++i)
      ((double *)p)[i] = 0.01 * sin(0.7 * (double)i + seed);
  return p;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* One timed function: a stage function on its buffers, or the gradient
 * accumulation of a stage. */
typedef struct timed {
  int stage;
  const char *kind;
  pw_stage_fn fn;
  void **args, **results;
  /* acc: dst[i][...] += src[i][...], count[i] floats. */
  int numAcc;
  float **dst, **src;
  size_t *count;
  double *wall, *cpu;
} timed;

static void run(const timed *t) {
  if (t->fn) {
    t->fn(t->args, t->results);
    return;
  }
  for (int i = 0; i < t->numAcc; ++i) {
    float *restrict d = t->dst[i];
    const float *restrict s = t->src[i];
    for (size_t k = 0; k < t->count[i]; ++k)
      d[k] += s[k];
  }
}

int pw_runtime_main(int argc, char **argv, const pw_model *m) {
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  int reps = argc > 1 ? atoi(argv[1]) : 20;
  if (reps < 1)
    reps = 1;
  timed *all = calloc((size_t)m->num_stages * 8, sizeof(timed));
  int count = 0;
  for (int s = 0; s < m->num_stages; ++s) {
    const pw_stage *st = &m->stages[s];
    int na = st->num_args, nr = st->num_results, ns = st->num_stash;
    /* One workspace for the stage's functions (model.h): each takes it after
       its own arguments (a function without one ignores the extra entry). */
    int64_t most = st->forward_workspace;
    if (st->backward_workspace > most)
      most = st->backward_workspace;
    if (st->backward_input_workspace > most)
      most = st->backward_input_workspace;
    if (st->backward_weight_workspace > most)
      most = st->backward_weight_workspace;
    if (st->backward_acc_workspace > most)
      most = st->backward_acc_workspace;
    if (st->backward_weight_acc_workspace > most)
      most = st->backward_weight_acc_workspace;
    void *workspace =
        most > 0 ? aligned_alloc(64, ((size_t)most + 63) / 64 * 64) : NULL;
    void **args = calloc((size_t)na + 1, sizeof(void *));
    for (int i = 0; i < na; ++i)
      args[i] = buffer(&st->args[i], i);
    args[na] = workspace;
    void **fres = calloc((size_t)(nr + ns) + 1, sizeof(void *));
    for (int i = 0; i < nr; ++i)
      fres[i] = buffer(&st->results[i], 0);
    for (int i = 0; i < ns; ++i)
      fres[nr + i] = buffer(&st->stash[i], 0);
    all[count++] = (timed){s, "F", st->forward, args, fres};
    if (m->forward_only || !st->backward)
      continue;
    /* backward(args..., stash..., d_res...) -> d_grad_args... */
    void **bargs = calloc((size_t)(na + ns + nr) + 1, sizeof(void *));
    int nb = 0;
    for (int i = 0; i < na; ++i)
      bargs[nb++] = args[i];
    for (int i = 0; i < ns; ++i)
      bargs[nb++] = fres[nr + i];
    for (int i = 0; i < nr; ++i)
      if (st->result_has_grad[i])
        bargs[nb++] = buffer(&st->results[i], 7);
    bargs[nb] = workspace;
    void **bres = calloc((size_t)st->num_grad_args + 1, sizeof(void *));
    int numParams = 0;
    for (int i = 0; i < st->num_grad_args; ++i) {
      const pw_tensor_info *arg = &st->args[st->grad_args[i]];
      bres[i] = buffer(arg, 3);
      numParams += st->arg_source[st->grad_args[i]] == PW_FROM_PARAM;
    }
    all[count++] = (timed){s, "B", st->backward, bargs, bres};
    if (st->backward_acc)
      all[count++] = (timed){s, "Bacc", st->backward_acc, bargs, bres};
    if (st->backward_input && st->backward_weight) {
      /* backward_input -> d_activation_args..., computed...;
         backward_weight(wstash...) -> d_param_args..., a wstash value
         computed (wstash_source -1) or backward_input's argument
         wstash_source[i], passed through. */
      int nact = st->num_grad_args - numParams;
      void **ires = calloc((size_t)(nact + st->num_wstash) + 1, sizeof(void *));
      void **wargs = calloc((size_t)st->num_wstash + 1, sizeof(void *));
      void **wres = calloc((size_t)numParams + 1, sizeof(void *));
      int ni = 0, nw = 0;
      for (int i = 0; i < st->num_grad_args; ++i)
        if (st->arg_source[st->grad_args[i]] == PW_FROM_PARAM)
          wres[nw++] = bres[i];
        else
          ires[ni++] = bres[i];
      for (int i = 0; i < st->num_wstash; ++i) {
        int source = st->wstash_source ? st->wstash_source[i] : -1;
        if (source >= 0)
          wargs[i] = bargs[source];
        else
          ires[ni++] = wargs[i] = buffer(&st->wstash[i], 0);
      }
      wargs[st->num_wstash] = workspace;
      all[count++] = (timed){s, "I", st->backward_input, bargs, ires};
      all[count++] = (timed){s, "W", st->backward_weight, wargs, wres};
      if (st->backward_weight_acc)
        all[count++] = (timed){s, "Wacc", st->backward_weight_acc, wargs, wres};
    }
    /* The accumulation the runtime does itself after a B (bit 0) or W
       (bit 1): every parameter gradient the accumulating variant does not
       add in place (all of them without that variant). */
    for (int bit = 0; bit < 2; ++bit) {
      int hasAcc =
          bit == 0 ? st->backward_acc != NULL : st->backward_weight_acc != NULL;
      if (bit == 1 && !st->backward_weight)
        break;
      timed acc = {s, bit == 0 ? "accB" : "accW", NULL, NULL, NULL, 0};
      acc.dst = calloc((size_t)numParams + 1, sizeof(float *));
      acc.src = calloc((size_t)numParams + 1, sizeof(float *));
      acc.count = calloc((size_t)numParams + 1, sizeof(size_t));
      for (int i = 0; i < st->num_grad_args; ++i) {
        const pw_tensor_info *arg = &st->args[st->grad_args[i]];
        if (st->arg_source[st->grad_args[i]] != PW_FROM_PARAM)
          continue;
        if (hasAcc && st->grad_accumulates &&
            (st->grad_accumulates[i] >> bit & 1))
          continue;
        acc.dst[acc.numAcc] = buffer(arg, 5);
        acc.src[acc.numAcc] = bres[i];
        acc.count[acc.numAcc++] = tensorBytes(arg) / 4;
      }
      if (acc.numAcc > 0)
        all[count++] = acc;
    }
  }
  for (int i = 0; i < count; ++i) {
    all[i].wall = calloc((size_t)reps, sizeof(double));
    all[i].cpu = calloc((size_t)reps, sizeof(double));
    run(&all[i]);
    run(&all[i]);
  }
  /* ACTIONS_FLUSH_BYTES: write that many bytes before every timed call
     (evicts the caches, as the other work of a training step does). */
  const char *flushEnv = getenv("ACTIONS_FLUSH_BYTES");
  size_t flushBytes = flushEnv ? (size_t)atoll(flushEnv) : 0;
  char *flush = flushBytes ? malloc(flushBytes) : NULL;
  /* The clocks' own cost: the median of timing nothing. */
  double *emptyWall = calloc((size_t)reps, sizeof(double));
  double *emptyCpu = calloc((size_t)reps, sizeof(double));
  for (int r = 0; r < reps; ++r) {
    double w0 = clockSeconds(CLOCK_MONOTONIC);
    double c0 = clockSeconds(CLOCK_THREAD_CPUTIME_ID);
    emptyCpu[r] = clockSeconds(CLOCK_THREAD_CPUTIME_ID) - c0;
    emptyWall[r] = clockSeconds(CLOCK_MONOTONIC) - w0;
  }
  qsort(emptyWall, (size_t)reps, sizeof(double), compare);
  qsort(emptyCpu, (size_t)reps, sizeof(double), compare);
  double wallCost = emptyWall[reps / 2], cpuCost = emptyCpu[reps / 2];
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < count; ++i) {
      if (flush)
        memset(flush, r + i, flushBytes);
      double w0 = clockSeconds(CLOCK_MONOTONIC);
      double c0 = clockSeconds(CLOCK_THREAD_CPUTIME_ID);
      run(&all[i]);
      double c1 = clockSeconds(CLOCK_THREAD_CPUTIME_ID);
      double w1 = clockSeconds(CLOCK_MONOTONIC);
      all[i].cpu[r] = fmax(0, c1 - c0 - cpuCost);
      all[i].wall[r] = fmax(0, w1 - w0 - wallCost);
    }
  for (int i = 0; i < count; ++i) {
    qsort(all[i].wall, (size_t)reps, sizeof(double), compare);
    qsort(all[i].cpu, (size_t)reps, sizeof(double), compare);
    printf("stage %d %s %.1f %.1f %.1f\n", all[i].stage, all[i].kind,
           all[i].wall[0] * 1e6, all[i].wall[reps / 2] * 1e6,
           all[i].cpu[reps / 2] * 1e6);
  }
  return 0;
}
