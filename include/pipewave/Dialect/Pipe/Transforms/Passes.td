//===- Passes.td - Passes of the pipe dialect -------------*- tablegen -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSES_TD
#define PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PipePartition : Pass<"pipe-partition", "::mlir::ModuleOp"> {
  let summary = "Assigns every operation of the entry function to a stage";
  let description = [{
    Cuts the entry function into `num-stages` pipeline stages by writing a
    `pipe.stage` attribute on every operation. Stages follow program order,
    so a stage only consumes values of itself or of earlier stages.

    Strategies:

    * `manual`: the user's `pipe.split` markers (K markers give K+1 stages)
      or `pipe.stage` attributes already written on every operation. The
      markers are erased.
    * `uniform`: the same number of costed operations in every stage.
    * `balanced`: minimises the cost of the slowest stage under the per-op
      cost model (FLOPs and bytes of every supported TOSA op turned into
      seconds with a roofline device model). An op with no cost rule is an
      error.
    * `auto` (default): `manual` if the function has `pipe.split` markers,
      else `balanced`.

    Constants (`tosa.const`, `tosa.const_shape`, `arith.constant`) cost
    nothing and take the stage of their first user; outlining copies them
    into every stage that uses them.

    Example: `pipewave-opt --pipe-partition="num-stages=4 strategy=balanced"`.
  }];
  let options = [
    Option<"numStages", "num-stages", "int64_t", /*default=*/"0",
           "Number of pipeline stages (0: from the pipe.split markers)">,
    Option<"strategy", "strategy", "std::string", /*default=*/"\"auto\"",
           "How to cut: auto, manual, uniform or balanced">,
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
  ];
  let statistics = [
    Statistic<"numPartitionedOps", "partitioned-ops",
              "Number of operations given a stage">,
  ];
}

def PipeOutlineStages : Pass<"pipe-outline-stages", "::mlir::ModuleOp"> {
  let summary = "Outlines each pipeline stage into its own function";
  let description = [{
    Moves the operations of stage k of the entry function `@main` into a new
    private function `@main_stage<k>` carrying `pipe.stage = k`. Its
    arguments are the entry arguments the stage uses (keeping their
    `pipe.name` / `pipe.param` attributes) followed by the values it receives
    from stage k-1; its results are the values later stages need, followed,
    for the last stage, by the entry's results. A value used several stages
    after the one defining it is forwarded through every stage in between,
    so stages only talk to their neighbours. `@main` becomes the composition:
    one `func.call` per stage.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def PipeInsertComm : Pass<"pipe-insert-comm", "::mlir::ModuleOp"> {
  let summary = "Inserts pipe.send / pipe.recv pairs at stage cuts";
  let description = [{
    In the stage composition made by `pipe-outline-stages`, every value that
    one stage's call produces and the next stage's call consumes goes through
    a `pipe.send` right after the producer and a `pipe.recv` right before the
    consumer, with its shape and element type and a tag unique in the module.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
  ];
}

def PipeSchedule : Pass<"pipe-schedule", "::mlir::ModuleOp"> {
  let summary = "Emits the sched program of the outlined pipeline";
  let description = [{
    Builds a `sched.program` for the stages made by `pipe-outline-stages`
    and appends it to the module.

    * `gpipe`: all forwards, then all backwards (peak in-flight M).
    * `1f1b`: DAPPLE's early backward: stage s runs min(S-s, M) forwards
      before its first backward, then alternates one forward and one
      backward, then drains (peak in-flight min(S-s, M)).

    The step trains (forward and backward of every microbatch, then the
    optimizer step) when the entry's first result is a rank-0 floating point
    tensor (the loss); otherwise it is an inference step with forwards only.
    `microbatches` must divide dimension 0 of every data input.
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", /*default=*/"\"1f1b\"",
           "Schedule: gpipe or 1f1b">,
    Option<"microbatches", "microbatches", "int64_t", /*default=*/"1",
           "Microbatches per step">,
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
  ];
  let dependentDialects = ["::pipewave::sched::SchedDialect"];
}

def PipeMicrobatch : Pass<"pipe-microbatch", "::mlir::ModuleOp"> {
  let summary = "Re-specialises the stage functions for one microbatch";
  let description = [{
    The model is written for the global batch. After `pipe-outline-stages`,
    this pass rewrites every stage function to compute one microbatch:
    dimension 0 of every data input (an entry argument without `pipe.param`)
    is divided by `microbatches`, and shapes are propagated through every
    operation of every stage, following the composition in the entry
    function (a stage's arguments received from the previous stage carry
    whatever that stage computed).

    Batch rule: the batch is the outermost factor of every tensor derived
    from a data input, so such a tensor is split by dividing its first
    non-unit dimension by `microbatches` (an error when it does not divide).
    `tosa.const_shape` operands of `tosa.reshape` and `tosa.slice` are
    rewritten to match; a `tosa.transpose` must keep the batch outermost.
    Every retyped operation whose result shape can be inferred is checked
    against the inferred shape, so ops that mix the batch with other
    dimensions (a matmul contracting over it, a tile or concat along it)
    are reported instead of silently miscomputed.

    A `tosa.reduce_sum` over the batch dimension makes its result a partial
    sum over the microbatch. Afterwards only linear operations may use it:
    `tosa.mul` by a value that carries no batch, `tosa.add`/`tosa.sub` of two
    partial sums, `tosa.negate`, `tosa.reshape`, `tosa.transpose`,
    `tosa.cast`, `tosa.identity` and further `tosa.reduce_sum`. Any other
    use, and any other reduction over the batch (`tosa.reduce_max`,
    `tosa.argmax`, ...), is an error "cannot split ... into microbatches".
    With `microbatches=1` nothing is split and nothing is rejected.

    Each result of the entry gets `pipe.combine = "concat"` (it carries the
    batch: the runtime concatenates the microbatch values along the
    outermost dimension) or `"sum"` (a partial sum: the microbatch values
    add up to the global value). A result that depends on no data input is
    an error for more than one microbatch.

    The entry keeps its global-batch signature (`pipe-schedule` checks that
    `microbatches` divides it; the runtime reads global shapes from it). Its
    body becomes the composition of one
    microbatch: every data input enters the stage calls through a
    `tensor.extract_slice` (written for microbatch 0) and every batch
    carrying result leaves through a `tensor.insert_slice` into the global
    result, so `pipe-insert-comm` sees the microbatch types of the values
    crossing the cuts.
  }];
  let options = [
    Option<"microbatches", "microbatches", "int64_t", /*default=*/"1",
           "Microbatches per step (divides the batch of every data input)">,
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::tosa::TosaDialect"];
}

def PipeAutodiff : Pass<"pipe-autodiff", "::mlir::ModuleOp"> {
  let summary = "Generates the forward and backward functions of every stage";
  let description = [{
    Reverse-mode differentiation of every stage function (a `func.func`
    with `pipe.stage`, as made by `pipe-outline-stages`). For a stage `@S`
    with arguments `a0..an-1` and results `r0..rm-1` it adds:

    * `@S_fwd(a0..an-1) -> (r0..rm-1, s0..sk-1)`: the forward, returning
      the results of `@S` followed by the *stash*, the intermediate values
      the backward reads, in program order. `pipe.recompute` regions are
      inlined.
    * `@S_bwd(a0..an-1, s0..sk-1, dr...) -> (dg...)`: the backward. It takes
      every argument of the stage (same order and attributes), then the
      stash exactly as `@S_fwd` returned it, then one cotangent per
      floating-point result of `@S`, in result order (integer results get
      none). It returns one gradient per *differentiable* argument, in
      argument order: a floating-point tensor argument that is a parameter
      (`pipe.param`) or an activation received from the previous stage (no
      `pipe.param` and no `pipe.name`). Data inputs (`pipe.name` without
      `pipe.param`) and integer arguments get none. For the last stage the
      caller seeds the loss cotangent `d_loss = 1` (and passes zeros for any
      other floating-point result it does not differentiate). The backward
      returns the gradient of one microbatch; the runtime accumulates
      parameter gradients over the microbatches of a step.

    With `split=true` it also adds the two halves of the backward used by
    zero-bubble schedules:

    * `@S_bwd_input(a0..an-1, s0..sk-1, dr...) -> (dx..., w0..wj-1)`: takes
      the same arguments as `@S_bwd`; returns the gradients of the
      differentiable non-parameter arguments (in argument order), then the
      *weight stash*: the values (arguments or cotangents computed here)
      that the parameter gradients still need. It computes only what the
      input gradients need.
    * `@S_bwd_weight(w0..wj-1) -> (dp...)`: the gradients of the parameter
      arguments (in argument order) from the weight stash alone.

    The stage function records the result on itself: `pipe.fwd`, `pipe.bwd`
    (and `pipe.bwd_input`, `pipe.bwd_weight`) name the functions, and
    `pipe.grad_args = array<i64: ...>` lists the (ascending) indices of the
    arguments that get a gradient, i.e. the results of `@S_bwd`; the
    parameters among them are the results of `@S_bwd_weight`, the others
    those of `@S_bwd_input`.

    What is stashed: a value is passed from the forward to the backward when
    a gradient rule reads it, unless it is a stage argument (the backward
    has them), a constant (rematerialised), a `tosa.reshape` /
    `tosa.identity` of another value (recomputed from it), or computed
    inside a `pipe.recompute` region: the backward recomputes such values
    from the region's inputs, which are stashed in their turn.

    Only *active* operations are differentiated: those with a float result
    that depends on a differentiable argument and reaches a float result of
    the stage. Each needs a gradient rule, found by operation name; an
    active operation without one is an error "pipe-autodiff: no gradient
    rule for 'tosa.foo'". Rules exist for tosa.abs, add, cast (float to
    float), clamp, concat, const, const_shape, cos, erf, exp, gather,
    identity, log, matmul, maximum, minimum, mul, negate, pad, pow,
    reciprocal, reduce_max, reduce_min, reduce_sum, reshape, reverse, rsqrt,
    select, sigmoid, sin, slice, sub, tanh, tile and transpose. At
    non-differentiable points: clamp passes the gradient only where
    min < x < max; maximum / minimum split it evenly on ties; reduce_max /
    reduce_min split it evenly between the positions that attain the
    extremum; abs has gradient 0 at 0. The gradient of a tosa.gather table
    is a scatter-add, built as a one-hot matmul (tosa.scatter overwrites
    repeated indices).

    Stage arguments and results must be statically shaped tensors and a
    stage body a single block. Running the pass on a stage that already has
    `pipe.fwd` is an error.

    Example: `pipewave-opt --pipe-autodiff="split=true"` on

    ```mlir
    func.func private @main_stage0(%x: tensor<4x8xf32> {pipe.name = "x"},
        %w: tensor<1x8x8xf32> {pipe.name = "w", pipe.param})
        -> tensor<4x8xf32> attributes {pipe.stage = 0 : i64} {
      ...
    }
    ```

    adds `@main_stage0_fwd(x, w) -> (h, stash...)`,
    `@main_stage0_bwd(x, w, stash..., dh) -> (dw)`,
    `@main_stage0_bwd_input(x, w, stash..., dh) -> (wstash...)` and
    `@main_stage0_bwd_weight(wstash...) -> (dw)`, and marks the stage with
    `pipe.fwd = @main_stage0_fwd, pipe.bwd = @main_stage0_bwd,
    pipe.bwd_input = @main_stage0_bwd_input,
    pipe.bwd_weight = @main_stage0_bwd_weight,
    pipe.grad_args = array<i64: 1>`.
  }];
  let options = [
    Option<"split", "split", "bool", /*default=*/"false",
           "Also split each backward into bwd_input and bwd_weight">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::tosa::TosaDialect"];
}

#endif // PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSES_TD
