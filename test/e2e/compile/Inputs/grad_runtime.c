/*===- grad_runtime.c - Checks a compiled model's gradients --------------===*
 *
 * Part of the pipewave project (tests of pipewave-compile).
 *
 *===----------------------------------------------------------------------===*
 *
 * A one-process stand-in for libpipewave_runtime that checks the training
 * functions of a compiled model (pipewave-runtime/model.h, ABI 2) without
 * the runtime: for every microbatch it runs the forward of stage 0 .. S-1
 * (results and stash), then the backward of stage S-1 .. 0, seeding the
 * loss gradient with 1 and passing each stage's activation gradients to the
 * previous stage, and adds up the parameter gradients over microbatches.
 * With --split it calls backward_input then backward_weight instead of
 * backward.
 *
 * The first output must be the loss, a scalar summed over microbatches. Its
 * gradient with respect to a few entries of every parameter is compared
 * with central finite differences of the loss computed by the forwards.
 * Inputs are filled as in stub_runtime.c.
 *
 * Tolerance. The forward runs in f32, so the loss L it returns is exact to
 * a few ulps at best: a central difference with step h (1e-3, small enough
 * that the ReLUs of examples/mlp.mlir rarely change sign between L(w+h) and
 * L(w-h), which would make the difference meaningless) resolves gradients
 * only down to ulp(L) / 2h, ~2e-6 for that model. The check is
 *
 *   |fd - ad| <= 1e-2 * |ad| + 16 * ulp(L) / 2h
 *
 * a 1% relative error (f32 accumulation error of a few hundred terms is far
 * below it) plus the finite-difference noise floor; entries whose gradient
 * is ten times the floor or more are counted as "resolved" so a test can
 * ask that enough of them were really compared. Checked entries: the
 * largest gradient of every parameter, then a few spread over the tensor
 * whose gradient is at least a tenth of it.
 *
 *===----------------------------------------------------------------------===*/

#include "pipewave-runtime/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t numel(const pw_tensor_info *t) {
  size_t n = 1;
  for (int32_t d = 0; d < t->rank; ++d)
    n *= (size_t)t->shape[d];
  return n;
}

static size_t bytes(const pw_tensor_info *t) {
  size_t size = t->dtype == PW_F64 || t->dtype == PW_I64   ? 8
                : t->dtype == PW_F32 || t->dtype == PW_I32 ? 4
                                                           : 1;
  return numel(t) * size;
}

static void fill(const pw_tensor_info *t, int input, void *data) {
  size_t n = numel(t);
  memset(data, 0, bytes(t));
  if (t->dtype != PW_F32)
    return;
  for (size_t j = 0; j < n; ++j)
    ((float *)data)[j] =
        (float)(0.1 * sin(0.7 * (double)j + 1.3 * input + 0.1));
}

static void *zeros(const pw_tensor_info *t) { return calloc(1, bytes(t)); }

static const pw_model *m;
/* The workspace of the stage functions (model.h): one buffer of the largest
 * size, passed after the arguments of every call. */
static void *workspace;
static void *alloc_workspace(const pw_model *model) {
  int64_t most = 0;
  for (int s = 0; s < model->num_stages; ++s) {
    const pw_stage *st = &model->stages[s];
    int64_t sizes[] = {st->forward_workspace, st->backward_workspace,
                       st->backward_input_workspace,
                       st->backward_weight_workspace};
    for (int k = 0; k < 4; ++k)
      most = sizes[k] > most ? sizes[k] : most;
  }
  return most ? aligned_alloc(64, ((size_t)most + 63) / 64 * 64) : NULL;
}

static void **inputs;  /* model inputs (global batch) */
static double **grads; /* accumulated gradient of every parameter input */

/* The arguments of stage s for microbatch mb; `prev` holds the results of
 * stage s-1. */
static void **stage_args(int s, int mb, void **prev) {
  const pw_stage *st = &m->stages[s];
  void **args = calloc((size_t)st->num_args + 1, sizeof(void *));
  for (int a = 0; a < st->num_args; ++a) {
    int idx = st->arg_index[a];
    if (st->arg_source[a] == PW_FROM_DATA)
      args[a] = (char *)inputs[idx] + (size_t)mb * bytes(&st->args[a]);
    else if (st->arg_source[a] == PW_FROM_PARAM)
      args[a] = inputs[idx];
    else
      args[a] = prev[idx];
  }
  return args;
}

/* Forward of stage s: results then stash, freshly allocated. */
static void **forward(int s, void **args) {
  const pw_stage *st = &m->stages[s];
  int n = st->num_results + st->num_stash;
  void **out = calloc((size_t)n + 1, sizeof(void *));
  for (int r = 0; r < st->num_results; ++r)
    out[r] = zeros(&st->results[r]);
  for (int r = 0; r < st->num_stash; ++r)
    out[st->num_results + r] = zeros(&st->stash[r]);
  args[st->num_args] = workspace;
  st->forward(args, out);
  return out;
}

static void free_all(void **ptrs, int n) {
  for (int i = 0; i < n; ++i)
    free(ptrs[i]);
  free(ptrs);
}

/* The loss of the global batch: output 0 summed over microbatches. */
static double loss(void) {
  double total = 0;
  for (int mb = 0; mb < m->num_microbatches; ++mb) {
    void **prev = NULL;
    int prev_n = 0;
    for (int s = 0; s < m->num_stages; ++s) {
      void **args = stage_args(s, mb, prev);
      void **out = forward(s, args);
      free(args);
      free_all(prev, prev_n);
      prev = out;
      prev_n = m->stages[s].num_results + m->stages[s].num_stash;
    }
    total += *(float *)prev[0];
    free_all(prev, prev_n);
  }
  return total;
}

/* Forward and backward of every microbatch; parameter gradients add up in
 * `grads`. */
static int backprop(int split) {
  int S = m->num_stages;
  void ***args = calloc((size_t)S, sizeof(void **));
  void ***outs = calloc((size_t)S, sizeof(void **));
  for (int mb = 0; mb < m->num_microbatches; ++mb) {
    for (int s = 0; s < S; ++s) {
      args[s] = stage_args(s, mb, s ? outs[s - 1] : NULL);
      outs[s] = forward(s, args[s]);
    }
    /* d_res of the stage being differentiated, one per result. */
    const pw_stage *last = &m->stages[S - 1];
    void **dres = calloc((size_t)last->num_results + 1, sizeof(void *));
    for (int r = 0; r < last->num_results; ++r) {
      dres[r] = zeros(&last->results[r]);
      if (r == 0)
        *(float *)dres[r] = 1.0f; /* d loss = 1, other outputs 0 */
    }
    for (int s = S - 1; s >= 0; --s) {
      const pw_stage *st = &m->stages[s];
      /* backward(args..., stash..., d_res with grad...) */
      int nin = st->num_args + st->num_stash + st->num_results;
      void **bargs = calloc((size_t)nin + 1, sizeof(void *));
      int k = 0;
      for (int a = 0; a < st->num_args; ++a)
        bargs[k++] = args[s][a];
      for (int r = 0; r < st->num_stash; ++r)
        bargs[k++] = outs[s][st->num_results + r];
      for (int r = 0; r < st->num_results; ++r)
        if (st->result_has_grad[r])
          bargs[k++] = dres[r];
      void **g = calloc((size_t)st->num_grad_args + 1, sizeof(void *));
      for (int i = 0; i < st->num_grad_args; ++i)
        g[i] = zeros(&st->args[st->grad_args[i]]);
      if (split) {
        if (!st->backward_input || !st->backward_weight) {
          fprintf(stderr, "grad: stage %d has no split backward\n", s);
          return 1;
        }
        /* backward_input -> (d_activation_args..., computed...);
         * backward_weight(wstash...) -> (d_param_args...), each wstash
         * value computed (wstash_source -1) or backward_input's argument
         * wstash_source[w], passed through. */
        void **iout = calloc((size_t)st->num_grad_args + st->num_wstash + 1,
                             sizeof(void *));
        void **wargs = calloc((size_t)st->num_wstash + 1, sizeof(void *));
        void **wout = calloc((size_t)st->num_grad_args + 1, sizeof(void *));
        int ni = 0, nw = 0, nc = 0;
        for (int i = 0; i < st->num_grad_args; ++i) {
          if (st->arg_source[st->grad_args[i]] == PW_FROM_PARAM)
            wout[nw++] = g[i];
          else
            iout[ni++] = g[i];
        }
        for (int w = 0; w < st->num_wstash; ++w) {
          int source = st->wstash_source ? st->wstash_source[w] : -1;
          if (source >= 0) {
            wargs[w] = bargs[source];
          } else {
            wargs[w] = zeros(&st->wstash[w]);
            iout[ni + nc++] = wargs[w];
          }
        }
        bargs[k] = workspace;
        st->backward_input(bargs, iout);
        wargs[st->num_wstash] = workspace;
        st->backward_weight(wargs, wout);
        for (int w = 0; w < st->num_wstash; ++w)
          if (!st->wstash_source || st->wstash_source[w] < 0)
            free(wargs[w]);
        free(wargs);
        free(iout);
        free(wout);
      } else {
        bargs[k] = workspace;
        st->backward(bargs, g);
      }
      free(bargs);
      /* Parameter gradients accumulate; activation gradients become the
       * d_res of the previous stage. */
      void **next = NULL;
      if (s > 0) {
        const pw_stage *ps = &m->stages[s - 1];
        next = calloc((size_t)ps->num_results + 1, sizeof(void *));
        for (int r = 0; r < ps->num_results; ++r)
          next[r] = zeros(&ps->results[r]);
      }
      for (int i = 0; i < st->num_grad_args; ++i) {
        int a = st->grad_args[i];
        size_t n = numel(&st->args[a]);
        const float *gv = g[i];
        if (st->arg_source[a] == PW_FROM_PARAM) {
          for (size_t j = 0; j < n; ++j)
            grads[st->arg_index[a]][j] += gv[j];
        } else if (st->arg_source[a] == PW_FROM_PREVIOUS) {
          float *d = next[st->arg_index[a]];
          for (size_t j = 0; j < n; ++j)
            d[j] += gv[j];
        } else {
          fprintf(stderr,
                  "grad: stage %d returns a gradient for data "
                  "argument %d\n",
                  s, a);
          return 1;
        }
      }
      free_all(g, st->num_grad_args);
      free_all(dres, st->num_results);
      dres = next;
    }
    for (int s = 0; s < S; ++s) {
      free(args[s]);
      free_all(outs[s], m->stages[s].num_results + m->stages[s].num_stash);
    }
  }
  free(args);
  free(outs);
  return 0;
}

int pw_runtime_main(int argc, char **argv, const pw_model *model) {
  m = model;
  int split = argc > 1 && strcmp(argv[1], "--split") == 0;
  if (m->abi_version != PW_MODEL_ABI_VERSION || m->forward_only ||
      m->num_outputs < 1 || m->output_combine[0] != PW_SUM ||
      m->outputs[0].dtype != PW_F32 || numel(&m->outputs[0]) != 1) {
    fprintf(stderr,
            "grad: expected a training model (ABI %d) whose first "
            "output is a summed f32 scalar loss\n",
            PW_MODEL_ABI_VERSION);
    return 1;
  }
  printf("model %s stages %d microbatches %d%s\n", m->name, m->num_stages,
         m->num_microbatches, split ? " split" : "");

  workspace = alloc_workspace(m);
  inputs = calloc((size_t)m->num_inputs, sizeof(void *));
  grads = calloc((size_t)m->num_inputs, sizeof(double *));
  for (int i = 0; i < m->num_inputs; ++i) {
    inputs[i] = malloc(bytes(&m->inputs[i]));
    fill(&m->inputs[i], i, inputs[i]);
    if (m->input_is_param[i])
      grads[i] = calloc(numel(&m->inputs[i]), sizeof(double));
  }
  if (backprop(split))
    return 1;

  const double h = 1e-3;
  double base = loss();
  float lossf = (float)base;
  double ulp = (double)nextafterf(lossf, INFINITY) - (double)lossf;
  printf("loss %.6g\n", base);
  int checked = 0, resolved = 0, failures = 0;
  for (int p = 0; p < m->num_inputs; ++p) {
    if (!m->input_is_param[p] || m->inputs[p].dtype != PW_F32)
      continue;
    size_t n = numel(&m->inputs[p]);
    size_t best = 0;
    double scale = 0;
    for (size_t j = 0; j < n; ++j)
      if (fabs(grads[p][j]) > scale) {
        scale = fabs(grads[p][j]);
        best = j;
      }
    /* The largest entry, then entries spread over the tensor whose
     * gradient is at least a tenth of it. */
    size_t picks[4] = {best, n / 3, n / 2, n - 1};
    for (int q = 0; q < 4; ++q) {
      size_t j = picks[q];
      if (q > 0 && fabs(grads[p][j]) < 0.1 * scale)
        continue;
      float *w = inputs[p];
      float saved = w[j];
      float wup = saved + (float)h, wdown = saved - (float)h;
      w[j] = wup;
      double up = loss();
      w[j] = wdown;
      double down = loss();
      w[j] = saved;
      double step = (double)wup - (double)wdown;
      double fd = (up - down) / step;
      double ad = grads[p][j];
      double noise = 16 * ulp / step;
      int ok = fabs(fd - ad) <= 1e-2 * fabs(ad) + noise;
      resolved += fabs(ad) >= 10 * noise;
      printf("%s %s[%zu]: backward %.6g finite-difference %.6g\n",
             ok ? "ok" : "MISMATCH", m->inputs[p].name, j, ad, fd);
      ++checked;
      failures += !ok;
    }
  }
  printf("gradcheck: %d entries, %d resolved, %d mismatches\n", checked,
         resolved, failures);
  return failures ? 1 : 0;
}
