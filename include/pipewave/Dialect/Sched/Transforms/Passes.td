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
       their optimizer step; every holder of a stage that uses a tied
       parameter has one `sched.tied_allreduce` of it, after the backwards
       of those stages on the rank and the all-reduce of its stage, before
       that stage's optimizer step, on a group of one holder of each user
       stage;
    3. dependency order on each rank: receives before the compute that
       needs them, sends after the compute that produces them, `F` before
       `B`, `I` before `W`;
    4. matching: every send has exactly one receive with its tag on the
       peer, and the other way round; the members of a tied all-reduce
       agree on its group and user stages;
    5. deadlock freedom: executing all ranks with blocking rendezvous
       point-to-point semantics (a send waits for its receive) and
       collective all-reduces (tied ones included) always finishes.

    A program that fails is reported with an error on the action where a
    rank stalls or the check fails, naming the rank and the action.
  }];
}

def SchedExport : Pass<"sched-export"> {
  let summary = "Writes a sched program as an action list";
  let description = [{
    Writes the `sched.program` under the anchor in the action-list text
    format (docs/schedule-format.md): a header with S, M and the schedule
    name, the stages of every rank, and every rank's F/B/I/W, `AR` and `OPT`
    actions in order. Sends and receives are left out; reading the file
    back (`pipe-schedule{schedule=file file=PATH}`) rebuilds them. `file`
    is the output path, `-` (the default) for stdout. The IR is unchanged.
    An anchor with no program, or with more than one, is an error.
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"\"-\"",
           "Output file ('-' for stdout)">,
  ];
}

def SchedSimulate : Pass<"sched-simulate", "::mlir::ModuleOp"> {
  let summary = "Simulates one step of the sched program with real costs";
  let description = [{
    Times one step of every `sched.program` of the module with the
    cost-based simulator (docs/planner.md) on `device`, rank r on device r
    (`devices-per-node` per node, so links within and between nodes are
    modelled), and reports the step time, the bubble fraction, every
    rank's peak memory and its breakdown, and (training steps) every rank's
    peak stash: the most microbatches each held stage keeps at once times
    its stash per microbatch (what the runtime's `--print-memory` measures).

    Per-stage costs come from the stage functions of the entry (one per
    program stage):

    * F: the stage function's cost under the per-op cost model, each
      operation timed with a roofline over the device's FP32 peak and
      memory bandwidth;
    * B: the `pipe.bwd` function's cost when pipe-autodiff has run; I and
      W: the `pipe.bwd_input` / `pipe.bwd_weight` costs, else half of B
      each. Before pipe-autodiff, the backward its gradient rules would
      generate, derived from the stage's ops: for a `tosa.matmul`, per
      differentiated operand a transpose of the other operand and a matmul
      of the swapped shape; for any other op, its forward work once per
      differentiated operand. A value is differentiated if it depends on a
      trained parameter or on the previous stage's activation; I takes the
      gradients of values that depend on the activation, W the rest;
    * optimizer: 7 bytes of traffic per parameter byte (Adam) over the
      memory bandwidth;
    * activations: the tensors `pipe.send act ... from s` sends in the
      entry (or the results of stage s that later stages use); gradients
      going back have the same size;
    * parameters: the stage's `pipe.param` arguments, plus gradients (1x)
      and Adam moments (2x);
    * stash per in-flight microbatch: the extra results of `pipe.fwd`, or
      every tensor a costed operation of the stage produces, plus the
      stage's non-parameter inputs.

    With `pipe.replicas` on the entry (from `pipe-plan`) and one stage per
    rank, rank r stands for a data-parallel group of as many devices
    (numbered consecutively) that split every microbatch and all-reduce the
    stage's gradients before its optimizer step. A program whose stages are
    already replicated on ranks (`pipe-schedule{replicas=R}`) is simulated
    as it is, one device per rank.

    Stage functions that compute the global batch are scaled by 1/M (1/(R·M)
    for a program with R replicas); after
    `pipe-microbatch{microbatches=M1}` by M1/M (M1/(R·M)). Operations without a cost
    rule count as free (a warning names the first).

    Output: `report` is a file, `-` for stdout, or empty (the default) for a
    remark on the program. `trace` writes Chrome/Perfetto trace-event JSON,
    `svg` an SVG timeline (ranks x time, one rectangle per F/B/I/W).

    Example: `pipewave-opt --sched-simulate="device=h100 trace=step.json
    svg=step.svg report=-"`.
  }];
  let options = [
    Option<"device", "device", "std::string", /*default=*/"\"h100\"",
           "cpu, v100, a100, h100, h200 or a device .json file">,
    Option<"memory", "memory", "std::string", /*default=*/"\"\"",
           "Memory per device, e.g. 16GiB (default: the device's)">,
    Option<"devicesPerNode", "devices-per-node", "int64_t", /*default=*/"8",
           "Devices per node">,
    Option<"reportFile", "report", "std::string", /*default=*/"\"\"",
           "Report file ('-' for stdout; empty for a remark)">,
    Option<"trace", "trace", "std::string", /*default=*/"\"\"",
           "Chrome trace JSON file to write">,
    Option<"svg", "svg", "std::string", /*default=*/"\"\"",
           "SVG timeline file to write">,
    Option<"entry", "entry", "std::string", /*default=*/"\"main\"",
           "Name of the entry function">,
  ];
}

#endif // PIPEWAVE_DIALECT_SCHED_TRANSFORMS_PASSES_TD
