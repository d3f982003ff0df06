/*===- model.h - The contract between compiled code and the runtime -*- C
 * -*-===*
 *
 * Part of the pipewave project.
 *
 *===----------------------------------------------------------------------===*
 *
 * pipewave-compile emits, next to the native code of every stage, one
 * constant `pw_model` describing the model, its stages and the schedule
 * (per-rank action lists). The runtime (libpipewave_runtime) links with it
 * and calls `pw_get_model()`. This header is plain C and depends on nothing
 * else; the runtime has no MLIR dependency.
 *
 * Shapes. The model is written for the global batch. The compiler
 * re-specialises every stage for one microbatch (dimension 0 of every data
 * input divided by the number of microbatches, and by the number of
 * data-parallel replicas R when there are several); every shape below is
 * the MICROBATCH shape except `pw_model.inputs`/`outputs`, which give the
 * global-batch shape of the model's arguments and results.
 *
 * Data-parallel replicas. The ranks holding a stage are its replicas (the
 * k-th in ascending rank order is replica k); every stage has the same
 * number R. Each step's global batch is split into R contiguous parts
 * (replica k: rows [k B/R, (k+1) B/R)), each part into the microbatches.
 * The loss is written for the global batch (a sum over its rows times a
 * constant), so microbatch gradients add up to the global gradient and
 * PW_ACT_ALLREDUCE is a plain sum, no averaging.
 *
 * Tied parameters. A trained parameter that several stages read (its
 * "users", e.g. a token embedding the output head also reads) has one copy
 * on every rank holding a user stage. On such a rank, the lowest user stage
 * it holds keeps the copy: the gradients of every user stage on the rank
 * add up there and that stage's optimizer step updates it.
 * PW_ACT_TIED_ALLREDUCE (`param`, `stage` = that lowest stage, `group` =
 * one holder of each user stage, in the rank's data-parallel replica) sums
 * the copies' gradients after the replica all-reduce of `stage` and before
 * its optimizer step; the copies start equal and stay equal.
 *
 * The step counter (training-mode dropout). At most one data input, marked
 * by input_is_counter, is not read from a file: an I64 tensor [B, 3] whose
 * row b the runtime sets to [seed, step, b] before every step (seed: the
 * run's --seed; step: 1 for the first step of a training run, counted on
 * across resumes; b: the row's index in the global batch). Its microbatch
 * slices reach the stages like any data input's; the compiled dropout masks
 * are a function of them alone.
 *
 * Buffers are contiguous, row-major, of the element type given. Stage
 * functions never allocate what they return: the caller passes every result
 * buffer, already allocated.
 *
 * Workspaces. A stage function whose `*_workspace` field in pw_stage is
 * non-zero keeps its temporaries in a workspace the caller provides (planned
 * at compile time by pipe-plan-workspace): one more entry of `args`, after
 * the function's own arguments, pointing at at least that many bytes,
 * aligned to 64. Its contents need not survive between calls, so calls that
 * run one after the other may share one buffer; calls that may overlap need
 * one each. A function whose field is 0 reads no such entry.
 *
 *===----------------------------------------------------------------------===*/

#ifndef PIPEWAVE_RUNTIME_MODEL_H
#define PIPEWAVE_RUNTIME_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PW_MODEL_ABI_VERSION 9

/* Element types. */
typedef enum pw_dtype {
  PW_F32 = 0,
  PW_F64 = 1,
  PW_I32 = 2,
  PW_I64 = 3,
  PW_I8 = 4,
  PW_BOOL = 5 /* one byte per element */
} pw_dtype;

/* A tensor: name (may be empty), element type, rank and shape. */
typedef struct pw_tensor_info {
  const char *name;
  int32_t dtype;
  int32_t rank;
  const int64_t *shape;
} pw_tensor_info;

/* Where a stage argument comes from. */
typedef enum pw_arg_source {
  PW_FROM_DATA = 0,    /* model input `index` (a data input), the current
                          microbatch's slice of it */
  PW_FROM_PARAM = 1,   /* model input `index` (a parameter), whole */
  PW_FROM_PREVIOUS = 2 /* result `index` of the previous stage, same
                          microbatch (received or local) */
} pw_arg_source;

/* How a model output combines over microbatches (the last stage computes one
 * value per microbatch). */
typedef enum pw_output_combine {
  PW_CONCAT_BATCH = 0, /* batch-carrying output: concatenated along the
                          outermost dimension */
  PW_SUM = 1           /* batch-reduced output (e.g. a loss written as a sum
                          over the global batch times a constant): the
                          microbatch values add up to the global value */
} pw_output_combine;

/* A compiled stage function: `args[i]` points at the buffer of argument i,
 * `results[j]` at the preallocated buffer of result j (layouts given by the
 * tensor infos of the function). */
typedef void (*pw_stage_fn)(void *const *args, void *const *results);

/* Where the stage functions run (pw_model.device). */
typedef enum pw_device_kind {
  PW_DEVICE_HOST = 0, /* native CPU code: pw_stage_fn on host pointers */
  PW_DEVICE_CUDA = 1  /* compiled with --target cuda: every function pointer
                         of pw_stage is a pw_cuda_stage_fn taking device
                         pointers and the cudaStream_t to run on */
} pw_device_kind;

/* A stage function of a model compiled for CUDA (cast from pw_stage_fn). */
typedef void (*pw_cuda_stage_fn)(void *const *args, void *const *results,
                                 void *stream);

/* One pipeline stage.
 *
 * Inference models (pw_model.forward_only) only have `forward`:
 *   forward(args) -> results.
 *
 * Training models have the functions made by pipe-autodiff:
 *   forward(args)                          -> (results..., stash...)
 *   backward(args..., stash..., d_res...)  -> (d_grad_args...)
 * where d_res has one entry per result with result_has_grad[j] = 1 (float
 * results), in result order, and d_grad_args one entry per index in
 * grad_args (ascending stage-argument indices: parameters and activations
 * from the previous stage; data inputs get none). The last stage's caller
 * seeds the loss gradient with 1 (and 0 for other float outputs).
 * With the split backward (zero-bubble schedules' I and W):
 *   backward_input(args..., stash..., d_res...) -> (d_activation_args...,
 *                                                    computed...)
 *   backward_weight(wstash...)                  -> (d_param_args...)
 * where d_activation_args are the grad_args that are not parameters and
 * d_param_args those that are, each in ascending argument order. Each
 * wstash value k is, by wstash_source[k], either an argument of
 * backward_input that it does not return (k >= 0 indexes args..., stash...,
 * d_res... as one list; the runtime passes W the buffer it passed I, kept
 * alive until W) or -1: the next of backward_input's computed results.
 * Every function returns the gradient of ONE microbatch; the runtime
 * accumulates parameter gradients over microbatches.
 *
 * Running state (training only; e.g. the running statistics of a BatchNorm
 * in training mode): a stage with num_state > 0 has forward return, after
 * the stash, the new value of each state argument state_args[i] (stage
 * argument indices, ascending; each a PW_FROM_PARAM argument that is not in
 * grad_args, the state's shape and dtype). The runtime stores them into the
 * state after every forward, so the microbatches of a step update it in
 * order. State is owned like a parameter (initial values, checkpoints) but
 * the optimizer never touches it. */
typedef struct pw_stage {
  int32_t num_args;
  const pw_tensor_info *args; /* microbatch shapes */
  const int32_t *arg_source;  /* pw_arg_source, one per argument */
  const int32_t *arg_index;   /* see pw_arg_source */
  int32_t num_results;
  const pw_tensor_info *results; /* microbatch shapes */
  pw_stage_fn forward;

  /* Training only (NULL / 0 for inference models). */
  int32_t num_stash;
  const pw_tensor_info *stash;    /* what forward returns after results */
  const int32_t *result_has_grad; /* num_results entries */
  int32_t num_grad_args;
  const int32_t *grad_args; /* stage argument indices, ascending */
  pw_stage_fn backward;
  pw_stage_fn backward_input; /* NULL unless compiled with split I/W */
  pw_stage_fn backward_weight;
  int32_t num_wstash;
  const pw_tensor_info *wstash;
  const int32_t *wstash_source; /* num_wstash entries (above); NULL: all -1 */
  int32_t num_state;
  const int32_t *state_args; /* stage argument indices, ascending */

  /* Workspace bytes of each function (see "Workspaces" above; 0: none). */
  int64_t forward_workspace;
  int64_t backward_workspace;
  int64_t backward_input_workspace;
  int64_t backward_weight_workspace;

  /* Accumulating variants (CPU models; NULL, 0 and NULL when absent):
   * backward_acc and backward_weight_acc take the arguments and results of
   * backward and backward_weight, but add the gradient of every grad arg
   * whose bit is set in grad_accumulates[k] (bit 0: backward_acc, bit 1:
   * backward_weight_acc; num_grad_args entries) to what its result buffer
   * already holds instead of overwriting it, so the caller can pass the
   * gradient accumulator itself. Their other results are written as by the
   * plain functions. */
  pw_stage_fn backward_acc;
  pw_stage_fn backward_weight_acc;
  const int32_t *grad_accumulates;
  int64_t backward_acc_workspace;
  int64_t backward_weight_acc_workspace;
} pw_stage;

/* One action of a rank; mirrors the sched dialect. */
typedef enum pw_action_kind {
  PW_ACT_FORWARD = 0,
  PW_ACT_BACKWARD = 1,
  PW_ACT_BACKWARD_INPUT = 2,
  PW_ACT_BACKWARD_WEIGHT = 3,
  PW_ACT_SEND = 4,
  PW_ACT_RECV = 5,
  PW_ACT_ALLREDUCE = 6,
  PW_ACT_OPTIMIZER = 7,
  PW_ACT_TIED_ALLREDUCE = 8
} pw_action_kind;

typedef enum pw_payload { PW_ACTIVATION = 0, PW_GRADIENT = 1 } pw_payload;

typedef struct pw_action {
  int32_t kind; /* pw_action_kind */
  int32_t stage;
  int32_t microbatch;  /* -1 for allreduce / optimizer */
  int32_t payload;     /* send/recv: pw_payload */
  int32_t peer;        /* send/recv: peer rank */
  int64_t tag;         /* send/recv: message tag */
  int32_t group_begin; /* allreduce, tied allreduce: ranks are
                          group_ranks[begin, begin+size) */
  int32_t group_size;
  int32_t param; /* tied allreduce: the model input (a parameter) */
} pw_action;

typedef struct pw_rank_program {
  int32_t num_stages;
  const int32_t *stages; /* stages held, sorted */
  int32_t num_actions;
  const pw_action *actions; /* in execution order */
} pw_rank_program;

/* A parameter's SGD update that the product writing its whole gradient
 * runs itself right after computing the gradient, instead of a pass of the
 * optimizer over both arrays after the backward. pipe-fuse-updates
 * marks the products that may (the last writer of a parameter's gradient,
 * after every read of the parameter in its backward function); the
 * runtime decides per step which parameters do (plain SGD steps, see
 * runtime/lib/ExecutorFused.cpp), hands them to arm_updates right before
 * the backward function's call and none right after it. The product whose
 * result is `grad` (count floats) and whose parameter is `param` updates
 * every element with OptimizerMath.h's sgdElement, the same operations in
 * the same order, and sets `done`; `nonfinite` when a gradient value it
 * read was infinite or NaN. With `grad_dead` (ABI 9: nothing reads the
 * gradient after the update), a product may update the parameter from
 * its tiles' values without writing them to `grad`, and then sets
 * `grad_left`. */
typedef struct pw_fused_update {
  float *grad;
  float *param;
  float *momentum_buffer; /* NULL: no momentum */
  int64_t count;
  float weight_decay; /* SgdScalars: wd, mu, keep, negLr */
  float momentum;
  float keep;
  float neg_lr;
  int32_t decay; /* weight decay != 0 */
  int32_t nesterov;
  int32_t first;     /* the momentum buffer starts as the gradient */
  int32_t done;      /* set by the product */
  int32_t nonfinite; /* set by the product */
  int32_t grad_dead; /* the gradient may be left unwritten */
  int32_t grad_left; /* set by the product: it was */
} pw_fused_update;

/* Makes `updates` (count entries; NULL, 0: none) the updates the calling
 * thread's products may run. */
typedef void (*pw_arm_updates_fn)(pw_fused_update *updates, int32_t count);

typedef struct pw_model {
  int32_t abi_version;  /* PW_MODEL_ABI_VERSION */
  const char *name;     /* model file name, for messages */
  const char *schedule; /* "gpipe", "1f1b", ... */
  int32_t num_stages;
  int32_t num_microbatches;
  int32_t num_ranks;
  int32_t forward_only; /* 1: inference step */

  int32_t num_inputs;            /* arguments of the model's entry function */
  const pw_tensor_info *inputs;  /* global-batch shapes */
  const int32_t *input_is_param; /* 1: parameter, 0: data input */

  int32_t num_outputs;           /* results of the entry function = results of
                                    the last stage */
  const pw_tensor_info *outputs; /* global-batch shapes */
  const int32_t *output_combine; /* pw_output_combine, one per output */

  const pw_stage *stages;       /* num_stages entries */
  const pw_rank_program *ranks; /* num_ranks entries */
  const int32_t *group_ranks;   /* pool for allreduce groups */

  int32_t device;                  /* pw_device_kind of the stage functions */
  const char *weights_file;        /* the model's own parameter values: a
                                      safetensors file beside the executable
                                      (a name relative to its directory), used
                                      without --init; NULL: the model has none */
  const int32_t *input_is_counter; /* NULL, or num_inputs entries: 1 marks
                                      the data input the runtime fills every
                                      step with the step counter (see
                                      below), 0 the others */
  pw_arm_updates_fn arm_updates;   /* NULL: no product of the stage code
                                      updates a parameter */
} pw_model;

/* Provided by the compiled model. */
const pw_model *pw_get_model(void);

/* Provided by the runtime: parses the command line, runs the step(s), and
 * returns the process exit code. The compiled binary's main() calls it. */
int pw_runtime_main(int argc, char **argv, const pw_model *model);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PIPEWAVE_RUNTIME_MODEL_H */
