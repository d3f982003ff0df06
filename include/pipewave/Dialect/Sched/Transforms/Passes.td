//===- Passes.td - Passes of the sched dialect ------------*- tablegen -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_SCHED_TRANSFORMS_PASSES_TD
#define PIPEWAVE_DIALECT_SCHED_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SchedVerify : Pass<"sched-verify"> {
  let summary = "Proves sched programs complete, ordered and deadlock-free";
  let description = [{
    Checks every `sched.program` under the anchor:

    1. structure: each stage is held by some rank and actions only touch
       stages of their rank;
    2. completeness: every (stage, microbatch) of every rank has one `F` and
       one `B` (or one `I` and one `W`); replicated stages all-reduce before
       their optimizer step;
    3. dependency order on each rank: receives before the compute that
       needs them, sends after the compute that produces them, `F` before
       `B`, `I` before `W`;
    4. matching: every send has exactly one receive with its tag on the
       peer, and the other way round;
    5. deadlock freedom: executing all ranks with blocking rendezvous
       point-to-point semantics (a send waits for its receive) and
       collective all-reduces always finishes.

    A program that fails is reported with an error on the action where a
    rank stalls or the check fails, naming the rank and the action.
  }];
}

#endif // PIPEWAVE_DIALECT_SCHED_TRANSFORMS_PASSES_TD
