//===- SchedOps.td - Operations of the sched dialect ------*- tablegen -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_SCHED_IR_SCHEDOPS_TD
#define PIPEWAVE_DIALECT_SCHED_IR_SCHEDOPS_TD

include "pipewave/Dialect/Sched/IR/SchedDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def Sched_ComputeF : I32EnumAttrCase<"F", 0>;
def Sched_ComputeB : I32EnumAttrCase<"B", 1>;
def Sched_ComputeI : I32EnumAttrCase<"I", 2>;
def Sched_ComputeW : I32EnumAttrCase<"W", 3>;
def Sched_ComputeKindAttr : I32EnumAttr<"ComputeKind",
    "forward, backward, input-gradient or weight-gradient computation",
    [Sched_ComputeF, Sched_ComputeB, Sched_ComputeI, Sched_ComputeW]> {
  let cppNamespace = "::pipewave::sched";
}

def Sched_PayloadAct : I32EnumAttrCase<"Activation", 0, "act">;
def Sched_PayloadGrad : I32EnumAttrCase<"Gradient", 1, "grad">;
def Sched_PayloadAttr : I32EnumAttr<"Payload",
    "what a message carries: a forward activation or a backward gradient",
    [Sched_PayloadAct, Sched_PayloadGrad]> {
  let cppNamespace = "::pipewave::sched";
}

/// A stage, microbatch, rank or tag: a non-negative integer.
def Sched_IndexAttr : ConfinedAttr<I64Attr, [IntNonNegative]>;
/// A count that must be at least one.
def Sched_CountAttr : ConfinedAttr<I64Attr, [IntPositive]>;

//===----------------------------------------------------------------------===//
// ProgramOp / RankOp
//===----------------------------------------------------------------------===//

def Sched_ProgramOp : Sched_Op<"program", [
    SingleBlock, NoTerminator, IsolatedFromAbove]> {
  let summary = "a pipeline schedule: the ordered actions of every rank";
  let description = [{
    Holds one `sched.rank` per rank, in rank order (0, 1, ...). `schedule`
    names the generator (`gpipe`, `1f1b`, `file`, ...), `stages` and
    `microbatches` give the size of the step. With `forward_only` the
    program is an inference step: forwards and activation messages only.

    ```mlir
    sched.program "1f1b" stages 4 microbatches 8 {
      sched.rank 0 stages [0] { ... }
      ...
    }
    ```
  }];
  let arguments = (ins StrAttr:$schedule, Sched_CountAttr:$stages,
                   Sched_CountAttr:$microbatches, UnitAttr:$forward_only);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $schedule `stages` $stages `microbatches` $microbatches
    (`forward_only` $forward_only^)? attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
}

def Sched_RankOp : Sched_Op<"rank", [
    SingleBlock, NoTerminator, HasParent<"ProgramOp">]> {
  let summary = "the ordered actions of one rank";
  let description = [{
    The actions of rank `rank`, executed in order. `stages` lists the
    pipeline stages this rank holds (sorted, no duplicates).

    ```mlir
    sched.rank 1 stages [1, 5] {
      sched.recv act stage 1 mb 0 from 0 tag 0
      sched.compute F stage 1 mb 0
    }
    ```
  }];
  let arguments = (ins Sched_IndexAttr:$rank, DenseI64ArrayAttr:$stages);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$rank `stages` $stages attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True if this rank holds `stage`.
    bool holdsStage(int64_t stage);
  }];
}

//===----------------------------------------------------------------------===//
// Actions
//===----------------------------------------------------------------------===//

class Sched_ActionOp<string mnemonic, list<Trait> traits = []>
    : Sched_Op<mnemonic, !listconcat(traits, [HasParent<"RankOp">])> {
  let hasVerifier = 1;
}

def Sched_ComputeOp : Sched_ActionOp<"compute"> {
  let summary = "F, B, I or W of one (stage, microbatch)";
  let description = [{
    Runs the forward (`F`), the full backward (`B`), the input-gradient part
    (`I`) or the weight-gradient part (`W`) of stage `stage` on microbatch
    `mb`.

    ```mlir
    sched.compute F stage 0 mb 3
    ```
  }];
  let arguments = (ins Sched_ComputeKindAttr:$kind, Sched_IndexAttr:$stage,
                   Sched_IndexAttr:$mb);
  let assemblyFormat = "$kind `stage` $stage `mb` $mb attr-dict";
}

def Sched_SendOp : Sched_ActionOp<"send"> {
  let summary = "sends an activation or gradient to a peer rank";
  let description = [{
    Sends the activation produced by `F` of (`stage`, `mb`), or the input
    gradient produced by its `B`/`I`, to rank `to` with message tag `tag`.
    Sends complete asynchronously in the runtime.

    ```mlir
    sched.send act stage 0 mb 3 to 1 tag 3
    ```
  }];
  let arguments = (ins Sched_PayloadAttr:$payload, Sched_IndexAttr:$stage, Sched_IndexAttr:$mb,
                   Sched_IndexAttr:$to, Sched_IndexAttr:$tag);
  let assemblyFormat = [{
    $payload `stage` $stage `mb` $mb `to` $to `tag` $tag attr-dict
  }];
}

def Sched_RecvOp : Sched_ActionOp<"recv"> {
  let summary = "receives an activation or gradient from a peer rank";
  let description = [{
    Receives the input activation of (`stage`, `mb`), or the gradient of its
    output, from rank `from` with message tag `tag`. The runtime posts the
    receive early and waits for it here.

    ```mlir
    sched.recv grad stage 0 mb 3 from 1 tag 35
    ```
  }];
  let arguments = (ins Sched_PayloadAttr:$payload, Sched_IndexAttr:$stage, Sched_IndexAttr:$mb,
                   Sched_IndexAttr:$from, Sched_IndexAttr:$tag);
  let assemblyFormat = [{
    $payload `stage` $stage `mb` $mb `from` $from `tag` $tag attr-dict
  }];
}

def Sched_AllReduceOp : Sched_ActionOp<"allreduce"> {
  let summary = "sums a stage's parameter gradients over its replicas";
  let description = [{
    All-reduces the accumulated parameter gradients of `stage` among the
    ranks in `ranks` (the data-parallel replicas of the stage, sorted, this
    rank included).

    ```mlir
    sched.allreduce stage 0 ranks [0, 4]
    ```
  }];
  let arguments = (ins Sched_IndexAttr:$stage, DenseI64ArrayAttr:$ranks);
  let assemblyFormat = "`stage` $stage `ranks` $ranks attr-dict";
}

def Sched_TiedAllReduceOp : Sched_ActionOp<"tied_allreduce"> {
  let summary = "sums a tied parameter's gradient over the ranks holding it";
  let description = [{
    A parameter used by several stages (`users`: a tied parameter, such as
    a token embedding that the output head also reads) has a copy on every
    rank holding one of them. This action sums the rank's gradient of
    parameter `param` (its `pipe.name`) with the other ranks of `ranks`
    (one holder of each user stage, in this data-parallel replica, sorted,
    this rank included). `stage` is the lowest user stage this rank holds:
    its gradients keep the rank's copy (the other user stages the rank
    holds add theirs there) and its `sched.optimizer` updates it. The copies
    start equal and apply the same update to the same sum, so they stay
    equal. It comes after every backward of the user stages the rank holds
    and the `sched.allreduce` of `stage`, before `sched.optimizer` of
    `stage`; a group of one rank only marks that point.

    ```mlir
    sched.tied_allreduce "wte" stage 0 users [0, 3] ranks [0, 3]
    ```
  }];
  let arguments = (ins StrAttr:$param, Sched_IndexAttr:$stage,
                   DenseI64ArrayAttr:$users, DenseI64ArrayAttr:$ranks);
  let assemblyFormat = [{
    $param `stage` $stage `users` $users `ranks` $ranks attr-dict
  }];
}

def Sched_OptimizerOp : Sched_ActionOp<"optimizer"> {
  let summary = "applies the optimizer update to a stage's parameters";
  let description = [{
    Updates the parameters of `stage` with its accumulated gradients.

    ```mlir
    sched.optimizer stage 0
    ```
  }];
  let arguments = (ins Sched_IndexAttr:$stage);
  let assemblyFormat = "`stage` $stage attr-dict";
}

#endif // PIPEWAVE_DIALECT_SCHED_IR_SCHEDOPS_TD
