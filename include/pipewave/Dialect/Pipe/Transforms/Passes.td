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
      error. With `backward=true` (pipewave-compile sets it unless
      `--inference`) and a trained model, an op costs its forward plus the
      backward pipe-autodiff would generate for it (as `sched-simulate`
      derives it before pipe-autodiff: per matmul operand that depends on a
      parameter, a transpose and a matmul of the swapped shape; per operand
      of any other op, its forward work), so the cut balances the training
      step, loss and backward included, not the forward alone.
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
    Option<"defaultStages", "default-stages", "int64_t", /*default=*/"0",
           "The stage count when num-stages is 0 and the entry has no "
           "pipe.split markers (0: none, num-stages is then required)">,
    Option<"ignoreMarkers", "ignore-markers", "bool", /*default=*/"false",
           "Erase the entry's pipe.split markers first and cut the whole "
           "model by the strategy (pipewave-compile --stages 1)">,
    Option<"strategy", "strategy", "::pipewave::pipe::PartitionStrategy",
           /*default=*/"::pipewave::pipe::PartitionStrategy::Auto",
           "How to cut: auto, manual, uniform or balanced",
           [{::llvm::cl::values(
             clEnumValN(::pipewave::pipe::PartitionStrategy::Auto, "auto",
                        "manual with pipe.split markers, else balanced"),
             clEnumValN(::pipewave::pipe::PartitionStrategy::Manual, "manual",
                        "the pipe.split markers or pipe.stage attributes"),
             clEnumValN(::pipewave::pipe::PartitionStrategy::Uniform,
                        "uniform", "the same number of ops per stage"),
             clEnumValN(::pipewave::pipe::PartitionStrategy::Balanced,
                        "balanced", "the same cost per stage"))}]>,
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
    Option<"backward", "backward", "bool", /*default=*/"false",
           "balanced, for a trained model (a scalar loss first, parameters): "
           "an op costs its forward plus the backward pipe-autodiff would "
           "generate for it">,
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
  // It creates pipe ops in modules that may not have loaded the dialect yet
  // (one made by the ONNX importer carries only `pipe.*` attribute names).
  let dependentDialects = ["::pipewave::pipe::PipeDialect"];
}

def PipeSchedule : Pass<"pipe-schedule", "::mlir::ModuleOp"> {
  let summary = "Emits the sched program of the outlined pipeline";
  let description = [{
    Builds a `sched.program` for the stages made by `pipe-outline-stages`
    and appends it to the module (replacing an earlier one). The number of
    stages S is the number of stage functions the entry calls; it is fixed
    by the partition at this point, and the schedule decides how many ranks
    P run them:

    | `schedule` | ranks P | placement | backward |
    |---|---|---|---|
    | `gpipe` | S | stage r on rank r | B |
    | `1f1b` | S | stage r on rank r | B |
    | `interleaved` | S / `chunks` | stage c·P + r on rank r | B |
    | `hanayo` | S / (2·`waves`) | waves down and up the ranks | B |
    | `zb-h1` | S | stage r on rank r | I + W |
    | `zb-v` | S / 2 | stages r and S-1-r on rank r | I + W |

    * `gpipe`: all forwards, then all backwards (peak in-flight M).
    * `1f1b`: DAPPLE's early backward: stage s runs min(S-s, M) forwards
      before its first backward, then alternates one forward and one
      backward, then drains (peak in-flight min(S-s, M)).
    * `interleaved`: Megatron-LM's interleaved 1F1B with `chunks` (default
      2) stages per rank; S must be a multiple of `chunks` and M a multiple
      of P.
    * `hanayo`: Hanayo's wave pipeline with `waves` (default 1); S must be a
      multiple of 2·`waves` and M a multiple of P.
    * `zb-h1`, `zb-v`: the zero-bubble schedules (Qi et al., ICLR'24), whose
      backward is split into `I` (input gradient) and `W` (weight gradient);
      `zb-v` needs an even S. The runtime runs them with the stages'
      `pipe.bwd_input` / `pipe.bwd_weight` functions
      (`pipe-autodiff{split=true}`); the program is emitted without them.
    * `file`: the action list at `file` (docs/schedule-format.md); its S
      must be the module's stage count, its M the fixed microbatch count (if
      any), and it must be forward-only exactly when the step is. Parse
      errors are reported as `PATH:LINE:COLUMN: message`.
    * `auto`: simulates every generated schedule the stage count allows
      (gpipe, 1f1b, interleaved with chunks 2 and 4, hanayo with waves 1
      and 2, zb-h1, zb-v; the multi-chunk ones only on two ranks or more;
      no zb-h1/zb-v for inference) for every candidate microbatch count
      with the costs of `sched-simulate` on `device` (stage durations from
      the per-op cost model; before pipe-autodiff the backward it would
      generate, derived from the forward ops), rank r on device r with `devices-per-node` per node, and picks
      the fastest whose peak memory per device fits `memory` (default: the
      device's capacity). The stage count is fixed by the partition at this
      point; only the schedule, and so the rank count, varies. Before
      `pipe-autodiff` every candidate is also tried with full recompute
      (a stage stashes only its inputs and its backward first runs the
      forward again); when that wins, the remark says to run
      `pipe-recompute{policy=full}` before `pipe-autodiff`, since the
      program itself does not change. After `pipe-autodiff` the stash is
      that of the `pipe.fwd` functions. A remark lists the candidates
      (schedule, M, recompute, ranks, step time, bubble, peak memory, fits),
      fastest first, and marks the choice; none fitting is an error with the
      same table.

    Microbatches: `microbatches=0` (the default) takes, in order, the count
    `pipe-microbatch` specialised the stage functions for, the entry's
    `pipe.microbatches` attribute (written by `pipe-plan`), or else 1 (the
    file's M for `file`; every divisor of the batch up to
    `max-microbatches` for `auto`). A count other than the one the stage
    functions were specialised for is an error. `microbatches` must divide
    dimension 0 of every data input. Schedules that need M to be a multiple
    of P report the option values and P.

    Data-parallel replicas: `replicas=R` runs R copies of the pipeline on
    R·P ranks. Replica k's ranks are k·P to k·P + P - 1, and rank k·P + r
    runs the program of rank r with its sends and receives going to the
    ranks of replica k; before each optimizer step a replicated stage
    all-reduces its gradients among its R ranks (`sched.allreduce`). The
    runtime splits each step's global batch into R contiguous parts, one per
    replica, and each part into the M microbatches, so the stage functions
    compute 1/(R·M) of the batch: after `pipe-microbatch`, its count must be
    R·M (and `microbatches=0` takes that count divided by R), and R·M must
    divide dimension 0 of every data input. `replicas=0` (the default) takes
    the entry's `pipe.replicas` attribute (written by `pipe-plan`) when
    every stage has the same count, else 1; a plan that replicates stages
    unevenly, or has another stage count than the module, is an error (set
    `replicas` to override it). `replicas` applies to the generated
    schedules and to `file` (an action list without replicas of its own);
    `auto` searches one pipeline and rejects `replicas` greater than 1.

    Tied parameters: a trained parameter (`pipe.param`, not `pipe.frozen`)
    that several stage functions take, by its `pipe.name`, has a copy on
    every rank holding one of them. Each such rank gets a
    `sched.tied_allreduce` of it among one holder of each of those stages in
    its replica; on these ranks the all-reduces and optimizer steps move
    behind the other actions, in the order `sched.allreduce`,
    `sched.tied_allreduce` (by first use of the parameter),
    `sched.optimizer`, so every rank enters them in one order. A trained
    parameter that is not f32 is an error naming it and its stage.

    The step trains (forward and backward of every microbatch, then the
    optimizer step) when the entry's first result is a rank-0 floating point
    tensor (the loss); otherwise it is an inference step with forwards only,
    in the placement and forward order of the schedule.
    `forward-only=true` makes it an inference step even with a loss: the
    loss is then an output like any other, summed over the microbatches.

    Example: `pipewave-opt --pipe-schedule="schedule=interleaved chunks=2
    microbatches=8"`.
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", /*default=*/"\"1f1b\"",
           "Schedule: gpipe, 1f1b, interleaved, hanayo, zb-h1, zb-v, file "
           "or auto">,
    Option<"microbatches", "microbatches", "int64_t", /*default=*/"0",
           "Microbatches per step (0: pipe-microbatch's count, the entry's "
           "pipe.microbatches, or 1; auto and file choose)">,
    Option<"chunks", "chunks", "int64_t", /*default=*/"0",
           "interleaved: stages per rank (0: 2)">,
    Option<"waves", "waves", "int64_t", /*default=*/"0",
           "hanayo: waves (0: 1)">,
    Option<"file", "file", "std::string", /*default=*/"\"\"",
           "file: the action list to read">,
    Option<"device", "device", "std::string", /*default=*/"\"h100\"",
           "auto: cpu, v100, a100, h100, h200 or a device .json file">,
    Option<"memory", "memory", "std::string", /*default=*/"\"\"",
           "auto: memory budget per device, e.g. 16GiB (default: the "
           "device's)">,
    Option<"maxMicrobatches", "max-microbatches", "int64_t",
           /*default=*/"64", "auto: most microbatches to try">,
    Option<"devicesPerNode", "devices-per-node", "int64_t", /*default=*/"8",
           "auto: devices per node of the simulated cluster">,
    Option<"replicas", "replicas", "int64_t", /*default=*/"0",
           "Data-parallel replicas of the whole pipeline (0: the entry's "
           "uniform pipe.replicas from pipe-plan, else 1)">,
    Option<"forceForwardOnly", "forward-only", "bool", /*default=*/"false",
           "Schedule forwards only even when the entry returns a loss (an "
           "inference step)">,
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
  ];
  let dependentDialects = ["::pipewave::sched::SchedDialect"];
}

def PipePlan : Pass<"pipe-plan", "::mlir::ModuleOp"> {
  let summary = "Plans pipeline depth, stages, replicas and microbatches "
                "(DAPPLE)";
  let description = [{
    Runs the DAPPLE planner (docs/planner.md) before `pipe-partition`.

    With `profile=PATH` (a per-layer profile in PipeDream's format, e.g.
    data/dapple-profiles/) it plans that profile and only reports the plan.

    Otherwise the layers are the entry function's top-level operations with
    a cost (per-op cost model, turned into seconds on `device` with a
    roofline over its FP32 peak): forward = that time at the entry's batch,
    backward = the ops pipe-autodiff would generate for it (as in
    sched-simulate: per differentiated operand of a matmul a transpose and
    a matmul of the swapped shape, of any other op its forward work; an
    operation that depends on no parameter has none), activation bytes = the operation's results,
    parameter bytes = the `pipe.param` arguments it is the first to use. The
    bytes crossing the cut after a layer are the values defined up to it and
    used after it. Operations without a cost, or of zero cost (views),
    belong to the layer before them (the first layer for leading ones);
    constants are left to `pipe-partition`. The plan is written back as
    attributes:

    * `pipe.stage = s` on every non-constant top-level operation, so that
      `pipe-partition` (strategy `auto` or `manual`) keeps the planner's
      stage boundaries and depth;
    * `pipe.replicas = array<i64: r0, r1, ...>` on the entry: the
      data-parallel replicas of every stage;
    * `pipe.microbatches = M : i64` on the entry, which `pipe-schedule`
      uses when its `microbatches` option is 0.

    A remark shows the plan: one line per stage (layers, replicas, devices,
    times, memory), the step time, and the best candidates. The global batch
    is dimension 0 of the data inputs unless `global-batch` is set (128 for
    a profile); from the model, the microbatch counts tried divide both.
    `pipe.split` markers in the entry are an error (the planner cuts).

    Example: `pipewave-opt --pipe-plan="devices-per-node=8 nodes=2
    device=v100 memory=16GiB" --pipe-partition --pipe-outline-stages`.
  }];
  let options = [
    Option<"devicesPerNode", "devices-per-node", "int64_t", /*default=*/"8",
           "Devices per node">,
    Option<"nodes", "nodes", "int64_t", /*default=*/"1", "Nodes">,
    Option<"device", "device", "std::string", /*default=*/"\"v100\"",
           "cpu, v100, a100, h100, h200 or a device .json file">,
    Option<"globalBatch", "global-batch", "int64_t", /*default=*/"0",
           "Samples per step (0: dimension 0 of the data inputs; 128 for a "
           "profile)">,
    Option<"memory", "memory", "std::string", /*default=*/"\"\"",
           "Memory per device, e.g. 16GiB (default: the device's)">,
    Option<"profile", "profile", "std::string", /*default=*/"\"\"",
           "Plan this PipeDream-format profile instead of the model, and "
           "only report">,
    Option<"profileBatch", "profile-batch", "int64_t", /*default=*/"0",
           "Batch size the profile was measured at (0: the -pbs-N of its "
           "file name)">,
    Option<"maxStages", "max-stages", "int64_t", /*default=*/"0",
           "Most pipeline stages (0: devices or layers)">,
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
  ];
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

    A `pipe.batch_mean` is a statistic of each microbatch instead (the
    batch statistics of a BatchNorm in training mode): its result carries
    no batch, and the pass expands it into `tosa.reduce_sum` over its axes
    times the reciprocal of the microbatch's count (minus its correction);
    a count not above the correction is an error.

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
    Option<"microbatches", "microbatches", "int64_t", /*default=*/"0",
           "Microbatches per step; they divide the batch of every data "
           "input (0: the entry's pipe.microbatches from pipe-plan, else 1)">,
    Option<"replicas", "replicas", "int64_t", /*default=*/"1",
           "Data-parallel replicas: the stage functions compute one "
           "microbatch of one replica, 1/(microbatches x replicas) of the "
           "batch">,
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
      (`pipe.param`, not `pipe.frozen`) or an activation received from the
      previous stage (no `pipe.param` and no `pipe.name`). Data inputs
      (`pipe.name` without `pipe.param`), frozen parameters and integer
      arguments get none. For the last stage the
      caller seeds the loss cotangent `d_loss = 1` (and passes zeros for any
      other floating-point result it does not differentiate). The backward
      returns the gradient of one microbatch; the runtime accumulates
      parameter gradients over the microbatches of a step.

    A stage with `pipe.update_state` operations (running state such as the
    statistics of a BatchNorm) has `@S_fwd` also return, after the stash,
    the new value `(1 - momentum) * state + momentum * value` of each state
    argument, in ascending argument order, recorded as `pipe.state_args` on
    `@S`; the operations are erased from `@S` (and from every stage of a
    forward-only step, which updates no state).

    `pipe.dropout` is differentiated like any linear operation: the gradient
    of its input is the same dropout (counter, ratio, stream) of its
    result's gradient, so the backward recomputes the mask from the counter
    argument instead of stashing it. With `from-schedule`, a forward-only
    step replaces every `pipe.dropout` of the stages by its input
    (inference runs without dropout).

    With `split=true` it also adds the two halves of the backward used by
    zero-bubble schedules:

    * `@S_bwd_input(a0..an-1, s0..sk-1, dr...) -> (dx..., c...)`: takes
      the same arguments as `@S_bwd`; returns the gradients of the
      differentiable non-parameter arguments (in argument order), then the
      values of the *weight stash* it computes (cotangents the parameter
      gradients still need). It computes only what the input gradients
      need.
    * `@S_bwd_weight(w0..wj-1) -> (dp...)`: the gradients of the parameter
      arguments (in argument order) from the weight stash alone. A weight
      stash value that is an argument of `@S_bwd_input` (a stage argument
      other than a state argument, a stash value, a result cotangent) is
      not returned by it: `pipe.wstash_args = array<i64: ...>` on the
      stage has, per argument of `@S_bwd_weight`, the index of that
      argument of `@S_bwd_input`, or -1 for the next returned value. The
      runtime hands the weight half the buffer the input half read, so
      nothing is copied between them.

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
    rule for 'tosa.foo'". Rules exist for tosa.abs, add, avg_pool2d, cast
    (float to float), clamp, concat, const, const_shape, conv2d, cos,
    depthwise_conv2d, erf, exp, gather, identity, log, matmul, max_pool2d,
    maximum, minimum, mul, negate, pad, pow, reciprocal, reduce_max,
    reduce_min, reduce_sum, reshape, reverse, rsqrt, select, sigmoid, sin,
    slice, sub, tanh, tile and transpose. At non-differentiable points:
    clamp passes the gradient only where min < x < max; maximum / minimum
    split it evenly on ties; reduce_max / reduce_min split it evenly between
    the positions that attain the extremum; max_pool2d gives each window's
    gradient to the first element (row-major kernel order) equal to the
    maximum, as PyTorch does; abs has gradient 0 at 0. Convolution
    gradients are convolutions again (the input gradient a stride-1
    convolution of the dilated cotangent with the flipped weight, the
    weight gradient a convolution over the batch). The gradient of a tosa.gather table
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
    `@main_stage0_bwd_input(x, w, stash..., dh) -> ()` (stage 0 has no
    input gradient, and its weight stash is arguments only) and
    `@main_stage0_bwd_weight(wstash...) -> (dw)`, and marks the stage with
    `pipe.fwd = @main_stage0_fwd, pipe.bwd = @main_stage0_bwd,
    pipe.bwd_input = @main_stage0_bwd_input,
    pipe.bwd_weight = @main_stage0_bwd_weight,
    pipe.grad_args = array<i64: 1>, pipe.wstash_args = array<i64: ...>`.
  }];
  let options = [
    Option<"split", "split", "bool", /*default=*/"false",
           "Also split each backward into bwd_input and bwd_weight">,
    Option<"fromSchedule", "from-schedule", "bool", /*default=*/"false",
           "Do what the module's sched.program needs: nothing for a "
           "forward-only program, else split when it has I/W actions "
           "(overrides split)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::tosa::TosaDialect"];
}

def PipeRecompute : Pass<"pipe-recompute", "::mlir::ModuleOp"> {
  let summary = "Wraps forward work in pipe.recompute regions (activation checkpointing)";
  let description = [{
    Runs on the stage functions (`pipe.stage`) made by `pipe-outline-stages`,
    before `pipe-autodiff`, and decides what the backward recomputes instead
    of stashing by wrapping forward operations in `pipe.recompute` regions
    (see `pipe-autodiff` for what is stashed).

    Policies:

    * `none` (default): nothing changes; `pipe-autodiff` stashes every
      intermediate value a gradient rule reads.
    * `full`: the whole body of each stage, constants excepted (they are
      rematerialised anyway and are moved to the top of the body), goes
      into one `pipe.recompute`; only the stage inputs are kept and the
      backward recomputes the forward (GPipe-style checkpointing). An
      operation with memory side effects must not run twice: it stays
      outside (under both policies) and splits the region.
    * `selective`: the results of *expensive* operations are kept and the
      cheap ones recomputed: every maximal run of consecutive cheap
      operations becomes one `pipe.recompute` whose results are its values
      used after it, so the backward recomputes them from the kept values,
      the constants and the stage arguments. An operation is expensive when
      the cost model gives it more than `threshold` FLOPs per result
      element. With the default of 16 (the most any element-wise operation
      costs, `tosa.pow`) every element-wise and data-movement operation is
      cheap, while a `tosa.matmul` contracting over more than 8 elements, a
      convolution with more than 8 multiply-adds per output and a reduction
      over more than 16 elements are kept. Operations without a cost rule
      are kept too.

    With `full` and `selective`, `pipe.recompute` regions already in a
    stage are left in place and count as cheap operations.

    For every stage the pass reports the bytes that stay alive from the
    forward to the backward of one microbatch: the stage's non-parameter
    arguments (data inputs and received activations, which the backward
    takes again) plus the stash of `@S_fwd`. The stash is computed by the
    reverse-mode builder of `pipe-autodiff` itself, so the numbers are
    those `pipe-autodiff` produces. Each stage function gets a remark with
    the figure of the chosen policy, then those of all three for comparison
    (`report=false` turns it off), e.g. for stage 1 of
    `examples/transformer.mlir` cut into 4 stages with `policy=selective`:

    ```
    pipe-recompute: stage 1 stashes 24832 bytes per microbatch (none: 94336, full: 20480, selective: 24832)
    ```

    The statistics (`-mlir-pass-statistics`, where LLVM is built with
    statistics enabled) sum the figures over the stages.

    Errors: a stage already differentiated (run `pipe-recompute` before
    `pipe-autodiff`); a stage that `pipe-autodiff` cannot differentiate (its
    diagnostics). An unknown policy is rejected when the options are parsed.

    Example: `pipewave-opt --pipe-recompute="policy=selective"`.
  }];
  let options = [
    Option<"policy", "policy", "::pipewave::pipe::RecomputePolicy",
           /*default=*/"::pipewave::pipe::RecomputePolicy::None",
           "What to recompute: none, full or selective",
           [{::llvm::cl::values(
             clEnumValN(::pipewave::pipe::RecomputePolicy::None, "none",
                        "stash every value the backward reads"),
             clEnumValN(::pipewave::pipe::RecomputePolicy::Full, "full",
                        "stash the stage inputs, recompute the forward"),
             clEnumValN(::pipewave::pipe::RecomputePolicy::Selective,
                        "selective", "stash the results of expensive ops, "
                        "recompute the cheap ones"))}]>,
    Option<"threshold", "threshold", "double", /*default=*/"16.0",
           "selective: an op is kept when its FLOPs per result element "
           "exceed this">,
    Option<"report", "report", "bool", /*default=*/"true",
           "Emit the stash remark on every stage function">,
    Option<"fromSchedule", "from-schedule", "bool", /*default=*/"false",
           "Do nothing when the module's sched.program is forward-only">,
  ];
  let statistics = [
    Statistic<"numRegions", "recompute-regions",
              "Number of pipe.recompute regions created">,
    Statistic<"numRecomputedOps", "recomputed-ops",
              "Number of operations moved into pipe.recompute regions">,
    Statistic<"stashBytes", "stash-bytes",
              "Bytes per microbatch kept for the backward, all stages, chosen policy">,
    Statistic<"stashBytesNone", "stash-bytes-none",
              "Bytes per microbatch kept for the backward, all stages, policy=none">,
    Statistic<"stashBytesFull", "stash-bytes-full",
              "Bytes per microbatch kept for the backward, all stages, policy=full">,
    Statistic<"stashBytesSelective", "stash-bytes-selective",
              "Bytes per microbatch kept for the backward, all stages, policy=selective">,
  ];
  let dependentDialects = ["::pipewave::pipe::PipeDialect"];
}

#endif // PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSES_TD
