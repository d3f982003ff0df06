/*===- stub_runtime.c - A one-process stand-in for libpipewave_runtime ----===*
 *
 * Part of the pipewave project (tests of pipewave-compile).
 *
 *===----------------------------------------------------------------------===*
 *
 * Runs the forwards of every stage of a compiled model in one process
 * (for a training model, the forward that also returns the stash):
 * for each microbatch, stage 0 .. S-1 in order, each stage's arguments taken
 * as pw_model says (the microbatch slice of a data input, a whole parameter,
 * a result of the previous stage). Outputs are combined as pw_model says
 * (concat or sum) and printed. Every model input is filled with
 *
 *   input i, element j:  (float)(0.1 * sin(0.7 * j + 1.3 * i + 0.1))
 *
 * (ref_mlp.py uses the same values). It also checks the per-rank action
 * lists: every forward (stage, microbatch) is on exactly one rank holding
 * the stage. Options: --print-all prints every output element.
 *
 *===----------------------------------------------------------------------===*/

#include "pipewave-runtime/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t dtype_size(int32_t dtype) {
  switch (dtype) {
  case PW_F64:
  case PW_I64:
    return 8;
  case PW_F32:
  case PW_I32:
    return 4;
  default:
    return 1;
  }
}

static size_t numel(const pw_tensor_info *t) {
  size_t n = 1;
  for (int32_t d = 0; d < t->rank; ++d)
    n *= (size_t)t->shape[d];
  return n;
}

static size_t bytes(const pw_tensor_info *t) {
  return numel(t) * dtype_size(t->dtype);
}

static void fill(const pw_tensor_info *t, int input, void *data) {
  size_t n = numel(t);
  for (size_t j = 0; j < n; ++j) {
    double v = 0.1 * sin(0.7 * (double)j + 1.3 * input + 0.1);
    if (t->dtype == PW_F32)
      ((float *)data)[j] = (float)v;
    else if (t->dtype == PW_F64)
      ((double *)data)[j] = v;
    else
      memset((char *)data + j * dtype_size(t->dtype), 0, dtype_size(t->dtype));
  }
}

static int check_actions(const pw_model *m) {
  int *seen = calloc((size_t)m->num_stages * m->num_microbatches, sizeof(int));
  for (int r = 0; r < m->num_ranks; ++r) {
    const pw_rank_program *rank = &m->ranks[r];
    for (int a = 0; a < rank->num_actions; ++a) {
      const pw_action *act = &rank->actions[a];
      if (act->kind != PW_ACT_FORWARD)
        continue;
      int held = 0;
      for (int s = 0; s < rank->num_stages; ++s)
        held |= rank->stages[s] == act->stage;
      if (!held || act->stage < 0 || act->stage >= m->num_stages ||
          act->microbatch < 0 || act->microbatch >= m->num_microbatches) {
        fprintf(stderr, "stub: bad forward action on rank %d\n", r);
        return 1;
      }
      seen[act->stage * m->num_microbatches + act->microbatch]++;
    }
  }
  for (int i = 0; i < m->num_stages * m->num_microbatches; ++i)
    if (seen[i] != 1) {
      fprintf(stderr, "stub: forward of stage %d mb %d appears %d times\n",
              i / m->num_microbatches, i % m->num_microbatches, seen[i]);
      return 1;
    }
  free(seen);
  return 0;
}

int pw_runtime_main(int argc, char **argv, const pw_model *m) {
  int print_all = argc > 1 && strcmp(argv[1], "--print-all") == 0;
  if (m->abi_version != PW_MODEL_ABI_VERSION) {
    fprintf(stderr, "stub: ABI version %d\n", m->abi_version);
    return 1;
  }
  printf("model %s schedule %s stages %d microbatches %d ranks %d%s\n", m->name,
         m->schedule, m->num_stages, m->num_microbatches, m->num_ranks,
         m->forward_only ? " forward-only" : "");
  if (check_actions(m))
    return 1;

  /* The stage functions' workspace (model.h): only the forwards run here. */
  int64_t most = 0;
  for (int s = 0; s < m->num_stages; ++s)
    if (m->stages[s].forward_workspace > most)
      most = m->stages[s].forward_workspace;
  void *workspace =
      most ? aligned_alloc(64, ((size_t)most + 63) / 64 * 64) : NULL;
  void **inputs = calloc((size_t)m->num_inputs, sizeof(void *));
  for (int i = 0; i < m->num_inputs; ++i) {
    inputs[i] = malloc(bytes(&m->inputs[i]));
    fill(&m->inputs[i], i, inputs[i]);
  }
  void **outputs = calloc((size_t)m->num_outputs, sizeof(void *));
  for (int i = 0; i < m->num_outputs; ++i)
    outputs[i] = calloc(1, bytes(&m->outputs[i]));

  void **prev = NULL;
  int prev_n = 0;
  for (int mb = 0; mb < m->num_microbatches; ++mb) {
    for (int s = 0; s < m->num_stages; ++s) {
      const pw_stage *st = &m->stages[s];
      void **args = calloc((size_t)st->num_args + 1, sizeof(void *));
      for (int a = 0; a < st->num_args; ++a) {
        int idx = st->arg_index[a];
        switch (st->arg_source[a]) {
        case PW_FROM_DATA:
          /* The batch is dimension 0 of a row-major tensor: microbatch mb is
           * a contiguous chunk of the global input. */
          args[a] = (char *)inputs[idx] + (size_t)mb * bytes(&st->args[a]);
          break;
        case PW_FROM_PARAM:
          args[a] = inputs[idx];
          break;
        default:
          if (idx >= prev_n) {
            fprintf(stderr, "stub: stage %d reads result %d of %d\n", s, idx,
                    prev_n);
            return 1;
          }
          args[a] = prev[idx];
        }
        if (bytes(&st->args[a]) * (st->arg_source[a] == PW_FROM_DATA
                                       ? (size_t)m->num_microbatches
                                       : 1) !=
            (st->arg_source[a] == PW_FROM_PREVIOUS
                 ? bytes(&m->stages[s - 1].results[idx])
                 : bytes(&m->inputs[idx]))) {
          fprintf(stderr, "stub: size mismatch for stage %d argument %d\n", s,
                  a);
          return 1;
        }
      }
      /* A training model's forward also returns the stash (unused here). */
      void **results = calloc(
          (size_t)st->num_results + (size_t)st->num_stash + 1, sizeof(void *));
      for (int r = 0; r < st->num_results; ++r)
        results[r] = malloc(bytes(&st->results[r]));
      for (int r = 0; r < st->num_stash; ++r)
        results[st->num_results + r] = malloc(bytes(&st->stash[r]));
      args[st->num_args] = workspace;
      st->forward(args, results);
      for (int r = 0; r < st->num_stash; ++r)
        free(results[st->num_results + r]);
      for (int p = 0; p < prev_n; ++p)
        free(prev[p]);
      free(prev);
      free(args);
      prev = results;
      prev_n = st->num_results;
    }
    /* The last stage's results are the model's outputs. */
    for (int o = 0; o < m->num_outputs; ++o) {
      size_t n = numel(&m->stages[m->num_stages - 1].results[o]);
      if (m->outputs[o].dtype != PW_F32) {
        fprintf(stderr, "stub: only f32 outputs\n");
        return 1;
      }
      float *src = prev[o];
      float *dst = outputs[o];
      if (m->output_combine[o] == PW_SUM)
        for (size_t j = 0; j < n; ++j)
          dst[j] += src[j];
      else
        memcpy(dst + (size_t)mb * n, src, n * sizeof(float));
    }
  }

  for (int o = 0; o < m->num_outputs; ++o) {
    const float *v = outputs[o];
    size_t n = numel(&m->outputs[o]);
    double sum = 0;
    for (size_t j = 0; j < n; ++j)
      sum += v[j];
    printf("output %d (%s) numel %zu sum %.9g first %.9g\n", o,
           m->output_combine[o] == PW_SUM ? "sum" : "concat", n, sum,
           (double)v[0]);
    if (print_all)
      for (size_t j = 0; j < n; ++j)
        printf("  [%zu] %.9g\n", j, (double)v[j]);
  }
  return 0;
}
