//===- SchedDialect.td - The sched dialect ----------------*- tablegen -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_SCHED_IR_SCHEDDIALECT_TD
#define PIPEWAVE_DIALECT_SCHED_IR_SCHEDDIALECT_TD

include "mlir/IR/OpBase.td"

def Sched_Dialect : Dialect {
  let name = "sched";
  let cppNamespace = "::pipewave::sched";
  let summary = "Pipeline schedules: per-rank ordered actions of one step";
  let description = [{
    A `sched.program` lists, for every rank, the actions it performs in one
    training (or inference) step, in order: forward (`F`), backward (`B`) or
    split backward — input gradient (`I`) and weight gradient (`W`) — of a
    (stage, microbatch); sends and receives of activations and gradients
    with their peer rank and tag; the gradient all-reduce among
    data-parallel replicas of a stage; and the optimizer step.

    Each `sched.rank` names the stages it holds, so a rank can hold several
    stages (interleaved, wave and V-shaped schedules) and a stage can be held
    by several ranks (data-parallel replicas).

    Message conventions. `stage` on a send or receive is the local stage the
    message belongs to on that rank: `send act stage s` carries the output of
    `F` of stage s and is received as `recv act stage s+1`; `send grad stage
    s` carries the input gradient computed by `B`/`I` of stage s and is
    received as `recv grad stage s-1`. Stages held by the same rank exchange
    data locally, without messages.

    `sched-verify` proves a program complete, dependency-ordered, matched and
    deadlock-free; the runtime executes it.

    ```mlir
    sched.program "gpipe" stages 2 microbatches 1 {
      sched.rank 0 stages [0] {
        sched.compute F stage 0 mb 0
        sched.send act stage 0 mb 0 to 1 tag 0
        sched.recv grad stage 0 mb 0 from 1 tag 1
        sched.compute B stage 0 mb 0
        sched.optimizer stage 0
      }
      sched.rank 1 stages [1] {
        sched.recv act stage 1 mb 0 from 0 tag 0
        sched.compute F stage 1 mb 0
        sched.compute B stage 1 mb 0
        sched.send grad stage 1 mb 0 to 0 tag 1
        sched.optimizer stage 1
      }
    }
    ```
  }];
}

class Sched_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sched_Dialect, mnemonic, traits>;

#endif // PIPEWAVE_DIALECT_SCHED_IR_SCHEDDIALECT_TD
