//===- StageCosts.h - Per-stage costs of an outlined pipeline ---*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Turns the stage functions of an outlined module (found with
// pipewave/Dialect/Pipe/Utils/StageFunctions.h) into the per-stage
// durations and sizes the simulator (pipewave/Simulator) needs, with the
// per-op cost model (pipewave/Analysis/CostModel.h) and a device's roofline:
//
// * F: the sum over the operations of the stage function of
//   device.opSeconds(work): the FP32 roofline, or the calibrated cost.
// * B: the cost of the `pipe.bwd` function when pipe-autodiff has run.
//   Before it, the backward that its gradient rules would generate: a value
//   is differentiated if it depends on an argument pipe-autodiff
//   differentiates (an unfrozen parameter, or an unnamed float argument: the
//   previous stage's activation). A `tosa.matmul` A x B costs, per
//   differentiated operand, a transpose of the other operand and a matmul of
//   the swapped shape (dA = dY x B^T: M x N x K; dB = A^T x dY: K x M x N);
//   a `tosa.add` / `sub` nothing for an operand of the result's shape (a
//   negation for a sub's second), a `tosa.mul` one mul, and a broadcast
//   operand a reduce_sum per broadcast axis (GradientEmitter::sumToShape);
//   any other op one forward's worth of its work per differentiated operand
//   (a transcendental's as element-wise arithmetic of 3 flops an element,
//   plus the exp, cos or sin that erf's, sin's and cos's derivatives
//   evaluate).
//   A value used more than once costs one element-wise add of its size per
//   extra gradient term (pipe-autodiff sums the terms). A transpose of a
//   value that depends on no data (a weight), or a sum of its terms, does
//   not scale with the microbatch.
// * I, W: the costs of `pipe.bwd_input` / `pipe.bwd_weight` when present;
//   else half of the `pipe.bwd` cost each; before pipe-autodiff, the derived
//   gradients of values that depend on the activation argument (I) and the
//   rest (W), as pipe-autodiff{split} splits them.
// * Optimizer step: 7 bytes of traffic per parameter byte (Adam: weights,
//   gradients and two moments read; weights and moments written) over the
//   device's memory bandwidth.
// * Activation bytes: the tensors the entry sends from stage s to s+1
//   (`pipe.send act` ... `from s`), or, before pipe-insert-comm, the results
//   of stage s's call that later stage calls use. Gradients sent back are
//   the same size.
// * Parameter bytes: the `pipe.param` arguments of the stage function.
// * Stash per microbatch: with `pipe.fwd`, the extra results of the forward
//   function (its stash) plus the non-parameter arguments; otherwise every
//   tensor a costed (non-view, non-constant) operation of the stage produces
//   plus the non-parameter arguments.
//
// On a calibrated device (pipewave/Simulator/Calibration.h) the durations
// are evaluated per op at the step's microbatch instead: each op's flops and
// bytes scale with the samples, its fixed cost does not, and a matmul's rate
// is looked up at its shape with the sample dimension scaled (the first of
// M, K, N equal to the functions' samples, else the first a multiple of
// them); every F/B/I/W action adds the calibration's actionSeconds, a B or
// W the runtime's accumulation of the stage's parameter gradients (per
// parameter tensor), and the optimizer step its measured cost. A matmul
// reading a parameter (or a transposed copy of one, or, in a W, one that the
// I passes on) adds its bytes at the calibration's coldOperand rate for the
// footprint that competes for the last-level cache: 3x the parameter bytes
// (parameters, gradients, accumulated gradients) of the stage, or of every
// rank on its node when they share it (costTable's nodeParameterShare),
// whichever is larger. A function
// result that is one of the function's arguments (or a view of one) is a
// copy into the caller's result buffer (class Copy).
//
// The stage functions compute either the global batch (before
// pipe-microbatch) or one microbatch of M1 (after pipe-microbatch{
// microbatches=M1}, recognised by the `tensor.extract_slice` of a data input
// in the entry). Work and activation sizes are taken as linear in the
// samples, so a step of M microbatches scales them by 1/M, or by M1/M.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_ANALYSIS_STAGECOSTS_H
#define PIPEWAVE_ANALYSIS_STAGECOSTS_H

#include "pipewave/Simulator/Device.h"
#include "pipewave/Simulator/Simulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pipewave {

/// Work and sizes of one stage, for the batch its function computes.
struct StageWork {
  /// The stage function.
  std::string function;
  double forwardSeconds = 0;
  double backwardSeconds = 0;
  double backwardInputSeconds = 0;
  double backwardWeightSeconds = 0;
  double optimizerSeconds = 0;
  double activationBytes = 0;
  double parameterBytes = 0;
  /// Bytes of each parameter argument of the stage function.
  std::vector<double> parameterTensorBytes;
  /// ... of those whose gradient the runtime adds to the step's: the CPU
  /// lowering's accumulating backward (pipe-accumulate-gradients) adds the
  /// others in its GEMM or reduction itself.
  std::vector<double> accumulatedTensorBytes;
  double stashBytes = 0;
  /// Bytes of the non-parameter arguments (the stash under full
  /// recompute).
  double inputBytes = 0;
  /// The costed ops of the forward, backward, and split backward functions
  /// (empty where there is no such function), for a calibrated device.
  std::vector<sim::OpWork> forwardOps, backwardOps, backwardInputOps,
      backwardWeightOps;
  /// Where the stash and backward figures come from.
  bool hasForwardFunction = false;
  bool hasBackwardFunction = false;
  bool hasSplitBackward = false;
  /// No backward function yet: the backward ops are derived from the
  /// forward's (see the file comment).
  bool backwardDerived = false;
};

/// The per-stage work of a module, and how it scales with the microbatches.
struct ModelCosts {
  /// Indexed by stage.
  std::vector<StageWork> stages;
  /// Dimension 0 of the entry's data inputs (the global batch); 0 when the
  /// entry has no data input with a static batch.
  int64_t batch = 0;
  /// M1 when pipe-microbatch specialised the stages for M1 microbatches,
  /// else 0.
  int64_t specializedMicrobatches = 0;
  /// The data-parallel replicas of every stage that pipe-plan wrote on the
  /// entry (`pipe.replicas`); empty when it has none.
  std::vector<int64_t> plannedReplicas;
  /// Operations without a cost rule (counted as free), and the first one's
  /// name.
  int uncostedOps = 0;
  std::string firstUncosted;
  /// The device the durations are for.
  sim::DeviceSpec device;
  /// Bytes of every named parameter of the stage functions (what a tied
  /// parameter's all-reduce moves).
  std::map<std::string, double> parameterBytesByName;

  bool hasBackwardFunctions() const;
  bool hasSplitBackward() const;

  /// True if any stage has a `pipe.fwd` function: its stash is then known
  /// (and any recompute policy already applied).
  bool hasForwardFunctions() const;

  /// The cost table of a step with `microbatches` microbatches (see the file
  /// comment for the scaling). With `fullRecompute` a stage stashes only its
  /// inputs and its backward (B, or I) first runs the forward again.
  /// `nodeParameterShare` is the share of all stages' parameters that the
  /// ranks of one node hold (nodeParameterShare()); the ranks of a node share
  /// its last-level cache. 0 prices each stage's parameters as if alone.
  sim::CostTable costTable(int64_t microbatches, bool fullRecompute = false,
                           double nodeParameterShare = 0) const;

  /// Bytes of the parameters of every stage.
  double totalParameterBytes() const;

private:
  /// Sets `stage`'s F, B, I and W from the ops of `work` at `scale` on the
  /// calibrated device, its parameters competing for the cache with
  /// `sharedParameterBytes` on the node.
  /// `accumulatedShare` of its B and W accumulate their gradients.
  void calibrate(const StageWork &work, double scale,
                 double sharedParameterBytes, double accumulatedShare,
                 sim::StageCosts &stage) const;
};

/// Costs every stage of `entry` on `device`; emits an error naming
/// `passName` and returns failure if the module has no stage functions or a
/// stage function is missing.
mlir::FailureOr<ModelCosts> computeModelCosts(mlir::func::FuncOp entry,
                                              const sim::DeviceSpec &device,
                                              llvm::StringRef passName);

/// Calls `emit(op, work, toInput)` for every op of the backward that
/// pipe-autodiff would generate for `fn` (see the file comment: a value is
/// differentiated if it depends on an unfrozen `pipe.param` or an unnamed
/// float argument), attributed to the forward op `op` it differentiates;
/// `toInput` is true for the gradients of values that depend on an
/// activation argument (what `pipe.bwd_input` computes), false for the rest
/// (`pipe.bwd_weight`). On a function whose only differentiated arguments
/// are parameters (an unpartitioned entry), every op goes to the weights.
void forEachDerivedBackwardOp(
    mlir::func::FuncOp fn,
    llvm::function_ref<void(mlir::Operation *, const sim::OpWork &, bool)>
        emit);

/// A built-in device (cpu, v100, a100, h100, h200) or a device file in the
/// format of data/devices/*.json (a name ending in ".json"); nullopt with
/// `error` set otherwise.
std::optional<sim::DeviceSpec> resolveDevice(llvm::StringRef name,
                                             std::string &error);

/// The cluster on which a program of `numRanks` ranks is simulated: rank r on
/// device r, `devicesPerNode` devices per node, as many nodes as needed, and
/// `memoryBytes` per device (the device's capacity when <= 0).
sim::Cluster makeCluster(const sim::DeviceSpec &device, int numRanks,
                         int devicesPerNode, double memoryBytes);

/// The share of all stages' parameters that the ranks on one node of
/// makeCluster(device, numRanks, devicesPerNode) hold, each stage held by
/// `replicas` ranks: replicas x min(devicesPerNode, numRanks) / numRanks.
double nodeParameterShare(int numRanks, int devicesPerNode, int replicas = 1);

/// Bytes of a ranked, static tensor type (elements x ceil(bits / 8)); 0 for
/// anything else.
double typeBytes(mlir::Type type);

/// The cost of every operation of `fn` (nested ones included), each turned
/// into seconds on `device`; operations without a cost rule count 0 and are
/// counted in `uncosted` (the first one's name in `firstUncosted`).
double functionSeconds(mlir::func::FuncOp fn, const sim::DeviceSpec &device,
                       int &uncosted, std::string &firstUncosted);

} // namespace pipewave

#endif // PIPEWAVE_ANALYSIS_STAGECOSTS_H
