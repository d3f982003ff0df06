//===- PipeOps.td - Operations of the pipe dialect --------*- tablegen -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_PIPE_IR_PIPEOPS_TD
#define PIPEWAVE_DIALECT_PIPE_IR_PIPEOPS_TD

include "pipewave/Dialect/Pipe/IR/PipeDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def Pipe_PayloadAct : I32EnumAttrCase<"Activation", 0, "act">;
def Pipe_PayloadGrad : I32EnumAttrCase<"Gradient", 1, "grad">;
def Pipe_PayloadAttr : I32EnumAttr<"Payload",
    "what a message between stages carries",
    [Pipe_PayloadAct, Pipe_PayloadGrad]> {
  let cppNamespace = "::pipewave::pipe";
}

/// A stage number or message tag: a non-negative integer.
def Pipe_IndexAttr : ConfinedAttr<I64Attr, [IntNonNegative]>;

//===----------------------------------------------------------------------===//
// SplitOp
//===----------------------------------------------------------------------===//

def Pipe_SplitOp : Pipe_Op<"split",
    [HasParent<"::mlir::func::FuncOp">]> {
  let summary = "hand-written pipeline cut in program order";
  let description = [{
    Marks a stage boundary, like `pipe_split()` in PyTorch: every operation
    of the function before the first `pipe.split` belongs to stage 0, those
    between the first and the second to stage 1, and so on.
    `pipe-partition{strategy=manual}` turns the markers into `pipe.stage`
    attributes and erases them. A function with K markers has K+1 stages.

    Example:

    ```mlir
    %a = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
    pipe.split
    %b = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// SendOp / RecvOp
//===----------------------------------------------------------------------===//

def Pipe_SendOp : Pipe_Op<"send"> {
  let summary = "sends a tensor from one pipeline stage to another";
  let description = [{
    Sends `value`, computed by stage `from`, to stage `to`. It is matched by
    exactly one `pipe.recv` with the same tag. `act` messages carry forward
    activations (`from < to`), `grad` messages carry gradients flowing
    backward (`from > to`). `pipe-insert-comm` creates the pairs in the
    stage composition of the entry function.

    Example:

    ```mlir
    pipe.send act %h from 0 to 1 tag 0 : tensor<16x128xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$value, Pipe_PayloadAttr:$payload,
                   Pipe_IndexAttr:$from, Pipe_IndexAttr:$to,
                   Pipe_IndexAttr:$tag);
  let assemblyFormat = [{
    $payload $value `from` $from `to` $to `tag` $tag attr-dict `:` type($value)
  }];
  let hasVerifier = 1;
}

def Pipe_RecvOp : Pipe_Op<"recv"> {
  let summary = "receives a tensor sent by another pipeline stage";
  let description = [{
    Receives the tensor that the `pipe.send` with the same tag sends from
    stage `from` to stage `to`. The result type must equal the sent type.

    Example:

    ```mlir
    %h1 = pipe.recv act from 0 to 1 tag 0 : tensor<16x128xf32>
    ```
  }];
  let arguments = (ins Pipe_PayloadAttr:$payload, Pipe_IndexAttr:$from,
                   Pipe_IndexAttr:$to, Pipe_IndexAttr:$tag);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $payload `from` $from `to` $to `tag` $tag attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// RecomputeOp
//===----------------------------------------------------------------------===//

def Pipe_RecomputeOp : Pipe_Op<"recompute", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "region whose values backward recomputes instead of stashing";
  let description = [{
    The operations in the body are run again during the backward pass
    instead of keeping their results alive between forward and backward
    (activation checkpointing). `pipe-recompute` wraps forward work in this
    op according to its policy; `pipe-autodiff` replays the body when it
    builds the backward function. The body may use values defined above;
    its `pipe.yield` gives the results.

    Example:

    ```mlir
    %r = pipe.recompute -> tensor<16x128xf32> {
      %t = tosa.tanh %x : (tensor<16x128xf32>) -> tensor<16x128xf32>
      pipe.yield %t : tensor<16x128xf32>
    }
    ```
  }];
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "(`->` type($results)^)? attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Moves the operations of the body in place of this op, replaces its
    /// results with the values its `pipe.yield` gives, and erases it.
    void inlineBody();

    /// Inlines the body of every `pipe.recompute` nested in `root` (see
    /// inlineBody): for code that runs the forward once, where the regions
    /// no longer matter.
    static void inlineAll(::mlir::Operation *root);
  }];
}

def Pipe_YieldOp : Pipe_Op<"yield", [
    Pure, Terminator, ReturnLike, HasParent<"RecomputeOp">]> {
  let summary = "terminates a pipe.recompute body";
  let description = [{
    Returns the values of a `pipe.recompute` body to its results.
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
}

//===----------------------------------------------------------------------===//
// BatchMeanOp / UpdateStateOp
//===----------------------------------------------------------------------===//

def Pipe_BatchMeanOp : Pipe_Op<"batch_mean", [Pure]> {
  let summary = "mean over the batch of one microbatch (a batch statistic)";
  let description = [{
    The sum of `input` over `axes` (which include the batch dimension 0),
    divided by the number of summed elements minus `correction`; the result
    keeps the summed dimensions as 1s. Unlike a `tosa.reduce_sum` over the
    batch (a partial sum that microbatches add up), it is a statistic of
    each microbatch: `pipe-microbatch` computes it over the microbatch alone
    and expands it into `tosa.reduce_sum` and a `tosa.mul` by the reciprocal
    of the microbatch's count. The ONNX importer writes it for the batch
    statistics of BatchNormalization in training mode (`correction = 1`
    for the unbiased variance of the running statistics).

    Example:

    ```mlir
    %m = pipe.batch_mean %x axes [0, 2, 3] : tensor<8x4x6x6xf32> -> tensor<1x4x1x1xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$axes,
                   DefaultValuedAttr<I64Attr, "0">:$correction);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `axes` $axes attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Pipe_UpdateStateOp : Pipe_Op<"update_state", [
    MemoryEffects<[MemWrite]>, AllTypesMatch<["state", "value"]>]> {
  let summary = "moves a running statistic towards a new value";
  let description = [{
    `state` is an argument of the enclosing function that is non-trainable
    state owned by the runtime (`pipe.param` and `pipe.frozen`, e.g. the
    running mean of a BatchNorm). After the forward of a microbatch the
    runtime replaces it with `(1 - momentum) * state + momentum * value`,
    PyTorch's running-statistics rule. `pipe-autodiff` turns every
    `pipe.update_state` of a stage into a trailing result of the stage's
    forward (`pipe.state_args`) and erases it from the stage function: an
    inference step does not update state. The state argument must be read
    by no other operation of the stage.

    Example:

    ```mlir
    pipe.update_state %running_mean, %mean momentum 1.000000e-01 : tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$state, AnyRankedTensor:$value,
                   F64Attr:$momentum);
  let assemblyFormat = [{
    $state `,` $value `momentum` $momentum attr-dict `:` type($state)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// DropoutOp
//===----------------------------------------------------------------------===//

def Pipe_DropoutOp : Pipe_Op<"dropout", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "training-mode dropout with a counter-based random mask";
  let description = [{
    Zeroes each element of `input` with probability `ratio` and scales the
    others by `1 / (1 - ratio)` (ONNX's and PyTorch's training-mode
    Dropout). The mask is not drawn from a stateful generator: it is a
    function of the counter, so the same step and microbatch give the same
    mask in every schedule, stage layout and replica count, and the backward
    recomputes it instead of stashing it (the gradient of `x` is
    `pipe.dropout` of the result's gradient with the same counter, ratio
    and stream).

    `counter` is the microbatch's slice of the entry argument marked
    `pipe.counter` (`tensor<Bx3xi64>`, row `b` = `[seed, step, b]` for the
    global batch's sample `b`, filled by the runtime every step). With `mb`
    rows in the slice and `s0` the sample index of its first row, the
    microbatch is the `g = s0 / mb`-th of the step and element `i`
    (row-major) of a microbatch `input` of `N` elements is element
    `e = g * N + i` of the step. Element `e` is kept when
    `hash(seed, stream, step, e) >> 40 >= round(ratio * 2^24)`, where the
    hash chains SplitMix64's finaliser (include/pipewave/Support/DropoutRng.h
    is the reference). `stream` tells the dropout operations of a model
    apart (the ONNX importer numbers them in graph order).

    `pipe-autodiff` replaces it by its input in a forward-only step
    (inference keeps dropout off); `pipe-lower-dropout` lowers it to a
    `linalg.generic`.

    Example:

    ```mlir
    %y = pipe.dropout %x, %counter ratio 1.000000e-01 stream 0 : tensor<4x8xf32>, tensor<4x3xi64>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$counter,
                   F64Attr:$ratio, I64Attr:$stream);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `,` $counter `ratio` $ratio `stream` $stream attr-dict `:`
    type($input) `,` type($counter)
  }];
  let hasVerifier = 1;
}

#endif // PIPEWAVE_DIALECT_PIPE_IR_PIPEOPS_TD
