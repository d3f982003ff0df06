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

#endif // PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSES_TD
