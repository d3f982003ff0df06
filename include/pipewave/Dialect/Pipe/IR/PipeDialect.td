//===- PipeDialect.td - The pipe dialect ------------------*- tablegen -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_PIPE_IR_PIPEDIALECT_TD
#define PIPEWAVE_DIALECT_PIPE_IR_PIPEDIALECT_TD

include "mlir/IR/OpBase.td"

def Pipe_Dialect : Dialect {
  let name = "pipe";
  let cppNamespace = "::pipewave::pipe";
  let summary = "Graph-level pipeline parallelism: stages, cuts, communication";
  let description = [{
    The `pipe` dialect describes how a model graph is cut into pipeline
    stages. It is the IR that `pipe-partition`, `pipe-outline-stages`,
    `pipe-insert-comm` and `pipe-schedule` work on.

    Besides its operations the dialect defines these discardable attributes:

    * `pipe.stage = N : i64` on an operation or on an outlined stage
      function: the pipeline stage (0-based) it belongs to. Written by
      `pipe-partition`; a user may also write it by hand.
    * `pipe.param` (unit) on an argument of the entry function: the argument
      is a trainable parameter owned by the runtime across steps.
    * `pipe.frozen` (unit) on a `pipe.param` argument: the parameter is
      frozen: the runtime owns it like any parameter (initial values,
      checkpoints) but it gets no gradient and the optimizer never changes
      it (`--frozen GLOB` of the importers).
    * `pipe.counter` (unit) on an argument of the entry function: the data
      input the runtime fills every step instead of reading it from a file,
      a `tensor<Bx3xi64>` whose row `b` is `[seed, step, b]` (`--seed`, the
      step number counted over resumes, the sample's index in the global
      batch). `pipe.dropout` derives its masks from the microbatch's slice.
      The ONNX importer adds it (named `dropout.counter`) for training-mode
      Dropout; an entry function has at most one.
    * `pipe.name = "..."` on an argument of the entry function: its name,
      used by `--data NAME=FILE.npy`, safetensors files and checkpoints; on
      a result of the entry function: the name of that output (importers
      take it from the source model).
    * `pipe.fwd = @f`, `pipe.bwd = @b` on a stage function: its forward
      (results, then the stash) and backward functions, written by
      `pipe-autodiff`; `pipe.bwd_input = @i` and `pipe.bwd_weight = @w`
      (always together) name the two halves of the backward that
      zero-bubble schedules run apart. Each names a function of the module.
    * `pipe.grad_args = array<i64: ...>` on a stage function: the indices
      (ascending) of its arguments that get a gradient from the backward.
    * `pipe.state_args = array<i64: ...>` on a stage function, written by
      `pipe-autodiff`: the indices (ascending) of its state arguments that
      its `pipe.update_state` operations updated. `pipe.fwd` returns their
      new values after the stash, in this order; the runtime stores them
      into the state after each microbatch's forward.
    * `pipe.wstash_args = array<i64: ...>` on a stage function with
      `pipe.bwd_input`, written by `pipe-autodiff`: one entry per argument
      of `pipe.bwd_weight`, the weight stash. An entry k >= 0 says that
      argument is argument k of `pipe.bwd_input` (an argument of the stage,
      a stash value or a result cotangent), which `pipe.bwd_input` does not
      return: the runtime hands the weight half the same buffer. An entry
      -1 is the next of the values `pipe.bwd_input` returns after the
      activation gradients. Without the attribute every entry is -1.
    * `pipe.replicas = array<i64: ...>` on the entry function: the
      data-parallel replicas of every stage, as planned by `pipe-plan`.
    * `pipe.microbatches = M : i64` on the entry function: the microbatches
      of a step, as planned by `pipe-plan`; `pipe-microbatch` and
      `pipe-schedule` use it when their `microbatches` option is 0.
    * `pipe.combine = "sum" | "concat"` on a result of the entry function,
      written by `pipe-microbatch`: how the per-microbatch values of that
      result make the value of the step (summed, or concatenated along
      dimension 0).

    An example of a model cut by hand into two stages:

    ```mlir
    func.func @main(%x: tensor<4x8xf32> {pipe.name = "x"}) -> tensor<4x8xf32> {
      %a = tosa.tanh %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
      pipe.split
      %b = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
      return %b : tensor<4x8xf32>
    }
    ```
  }];
  // The discardable attributes listed in the description, in that order.
  // TableGen generates a typed helper for each (`PipeDialect::StageAttrHelper`
  // for `pipe.stage`, ...); the argument and result attributes are reached
  // through the accessors of Pipe.h built on them.
  let discardableAttrs = (ins
    "::mlir::IntegerAttr":$stage,
    "::mlir::UnitAttr":$param,
    "::mlir::UnitAttr":$frozen,
    "::mlir::UnitAttr":$counter,
    "::mlir::StringAttr":$name,
    "::mlir::FlatSymbolRefAttr":$fwd,
    "::mlir::FlatSymbolRefAttr":$bwd,
    "::mlir::FlatSymbolRefAttr":$bwd_input,
    "::mlir::FlatSymbolRefAttr":$bwd_weight,
    "::mlir::DenseI64ArrayAttr":$grad_args,
    "::mlir::DenseI64ArrayAttr":$state_args,
    "::mlir::DenseI64ArrayAttr":$wstash_args,
    "::mlir::DenseI64ArrayAttr":$replicas,
    "::mlir::IntegerAttr":$microbatches,
    "::mlir::StringAttr":$combine
  );
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
}

class Pipe_Op<string mnemonic, list<Trait> traits = []>
    : Op<Pipe_Dialect, mnemonic, traits>;

#endif // PIPEWAVE_DIALECT_PIPE_IR_PIPEDIALECT_TD
