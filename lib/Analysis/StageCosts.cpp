//===- StageCosts.cpp - Per-stage costs of an outlined pipeline -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Analysis/StageCosts.h"
#include "StageOps.h"

#include "pipewave/Analysis/CostModel.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"
#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"

#include "mlir/IR/SymbolTable.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace mlir;
using namespace pipewave;
using namespace pipewave::stage_ops;

/// Bytes of traffic per parameter byte of an Adam step (as in the DAPPLE
/// planner's PlannerOptions::optimizerTrafficFactor).
static constexpr double kOptimizerTrafficFactor = 7;

double pipewave::typeBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return 0;
  Type element = tensor.getElementType();
  unsigned bits = 0;
  if (element.isIntOrFloat())
    bits = element.getIntOrFloatBitWidth();
  else if (auto complex = dyn_cast<ComplexType>(element);
           complex && complex.getElementType().isIntOrFloat())
    bits = 2 * complex.getElementType().getIntOrFloatBitWidth();
  else if (element.isIndex())
    bits = 64;
  return static_cast<double>(tensor.getNumElements()) * ((bits + 7) / 8);
}

std::optional<sim::DeviceSpec> pipewave::resolveDevice(StringRef name,
                                                       std::string &error) {
  return sim::lookupDevice(name.str(), error);
}

double pipewave::functionSeconds(func::FuncOp fn, const sim::DeviceSpec &device,
                                 int &uncosted, std::string &firstUncosted) {
  double seconds = 0;
  fn.getBody().walk([&](Operation *op) {
    // Region holders (pipe.recompute) cost their bodies; terminators nothing.
    if (op->getNumRegions() > 0 || op->hasTrait<OpTrait::IsTerminator>())
      return;
    FailureOr<OpCost> cost = getOpCost(op);
    if (failed(cost)) {
      if (uncosted++ == 0)
        firstUncosted = op->getName().getStringRef().str();
      return;
    }
    sim::OpWork work = cost->work();
    work.fusedIntoUsers = fusedIntoUsers(op, *cost);
    seconds += device.opSeconds(work);
  });
  return seconds;
}

/// `op` at `scale` of the `samples` its function computes (see the file
/// comment of StageCosts.h).
static sim::OpWork scaleOp(sim::OpWork op, double samples, double scale) {
  if (op.fixedSize)
    return op;
  op.flops *= scale;
  op.bytes *= scale;
  if (op.kind == sim::OpClass::Transpose) {
    op.m = std::max(1.0, op.m * scale);
    return op;
  }
  if (op.kind != sim::OpClass::Matmul || samples <= 0 || scale == 1)
    return op;
  double *dims[] = {&op.m, &op.k, &op.n};
  double *sampleDim = nullptr;
  for (double *dim : dims)
    if (!sampleDim && *dim == samples)
      sampleDim = dim;
  for (double *dim : dims)
    if (!sampleDim && std::fmod(*dim, samples) == 0)
      sampleDim = dim;
  if (sampleDim)
    *sampleDim = std::max(1.0, *sampleDim * scale);
  return op;
}

/// Seconds of `ops` at `scale` of their samples on a calibrated `device`,
/// for a stage of `footprintBytes` (its parameters' reads: coldBytes do not
/// scale with the samples).
static double calibratedSeconds(const std::vector<sim::OpWork> &ops,
                                double samples, double scale,
                                const sim::DeviceSpec &device,
                                double footprintBytes) {
  double seconds = 0;
  for (const sim::OpWork &op : ops) {
    sim::OpWork scaled = scaleOp(op, samples, scale);
    seconds +=
        (scaled.kind == sim::OpClass::Copy
             ? device.calibration->copySecondsOf(scaled.bytes, footprintBytes)
             : device.opSeconds(scaled)) +
        device.calibration->coldSecondsOf(op.coldBytes, footprintBytes);
  }
  return seconds;
}

/// Bytes of the tensors a costed operation of `fn` produces (the stash of a
/// stage whose backward has not been generated).
static double producedBytes(func::FuncOp fn) {
  double bytes = 0;
  fn.getBody().walk([&](Operation *op) {
    if (op->getNumRegions() > 0 || op->hasTrait<OpTrait::IsTerminator>())
      return;
    FailureOr<OpCost> cost = getOpCost(op);
    if (failed(cost) || (cost->flops == 0 && cost->bytes == 0))
      return;
    for (Type type : op->getResultTypes())
      bytes += typeBytes(type);
  });
  return bytes;
}

/// The function the symbol attribute `Helper` (pipe.fwd, pipe.bwd, ...) of
/// `stage` names, or null.
template <typename Helper>
static func::FuncOp linkedFunction(func::FuncOp stage) {
  FlatSymbolRefAttr ref = Helper(stage.getContext()).getAttr(stage);
  if (!ref)
    return nullptr;
  return SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(stage,
                                                            ref.getAttr());
}

FailureOr<ModelCosts> pipewave::computeModelCosts(func::FuncOp entry,
                                                  const sim::DeviceSpec &device,
                                                  StringRef passName) {
  FailureOr<std::vector<func::FuncOp>> stageFns =
      pipe::getStageFunctions(entry, passName);
  if (failed(stageFns))
    return failure();
  if (stageFns->empty()) {
    entry.emitError() << passName << ": '@" << entry.getSymName()
                      << "' calls no stage function; run pipe-partition and "
                         "pipe-outline-stages first";
    return failure();
  }

  ModelCosts costs;
  costs.device = device;
  costs.batch = pipe::getEntryBatch(entry);
  costs.specializedMicrobatches = pipe::getSpecializedMicrobatches(entry);
  if (DenseI64ArrayAttr replicas =
          pipe::PipeDialect::ReplicasAttrHelper(entry.getContext())
              .getAttr(entry))
    costs.plannedReplicas.assign(replicas.asArrayRef().begin(),
                                 replicas.asArrayRef().end());
  int numStages = static_cast<int>(stageFns->size());
  costs.stages.resize(numStages);

  for (int s = 0; s < numStages; ++s) {
    func::FuncOp fn = (*stageFns)[s];
    StageWork &work = costs.stages[s];
    work.function = fn.getSymName().str();
    auto seconds = [&](func::FuncOp f) {
      return functionSeconds(f, device, costs.uncostedOps, costs.firstUncosted);
    };
    work.forwardSeconds = seconds(fn);
    work.forwardOps = costedOps(fn);

    double inputBytes = 0;
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
      double bytes = typeBytes(fn.getArgumentTypes()[i]);
      if (pipe::isParam(fn, i)) {
        work.parameterBytes += bytes;
        work.parameterTensorBytes.push_back(bytes);
        if (!gradientAddsInPlace(fn, i))
          work.accumulatedTensorBytes.push_back(bytes);
        if (StringAttr name = pipe::getNameArgAttr(fn, i))
          costs.parameterBytesByName[name.str()] = bytes;
      } else
        inputBytes += bytes;
    }
    work.optimizerSeconds =
        device.calibration ? device.calibration->optimizerStepSeconds(
                                 work.parameterTensorBytes)
        : device.memoryBytesPerSecond > 0
            ? kOptimizerTrafficFactor * work.parameterBytes /
                  device.memoryBytesPerSecond
            : 0;

    func::FuncOp bwd = linkedFunction<pipe::PipeDialect::BwdAttrHelper>(fn);
    func::FuncOp bwdInput =
        linkedFunction<pipe::PipeDialect::BwdInputAttrHelper>(fn);
    func::FuncOp bwdWeight =
        linkedFunction<pipe::PipeDialect::BwdWeightAttrHelper>(fn);
    work.hasBackwardFunction = static_cast<bool>(bwd);
    work.backwardOps = costedOps(bwd);
    work.backwardInputOps = costedOps(bwdInput);
    work.backwardWeightOps =
        bwdWeight && bwdInput
            ? costedOps(bwdWeight, weightStashParams(fn, bwdWeight, bwdInput))
            : costedOps(bwdWeight);
    work.hasSplitBackward = bwdInput && bwdWeight;
    if (!bwd) {
      // Before pipe-autodiff: the backward its gradient rules would make.
      work.backwardDerived = true;
      forEachDerivedBackwardOp(fn, [&](Operation *, const sim::OpWork &op,
                                       bool input) {
        (input ? work.backwardInputOps : work.backwardWeightOps).push_back(op);
      });
      work.backwardOps = work.backwardInputOps;
      llvm::append_range(work.backwardOps, work.backwardWeightOps);
    }
    auto sum = [&](const std::vector<sim::OpWork> &ops) {
      double total = 0;
      for (const sim::OpWork &op : ops)
        total += device.opSeconds(op);
      return total;
    };
    if (work.backwardDerived) {
      work.backwardInputSeconds = sum(work.backwardInputOps);
      work.backwardWeightSeconds = sum(work.backwardWeightOps);
      work.backwardSeconds =
          work.backwardInputSeconds + work.backwardWeightSeconds;
    } else if (work.hasSplitBackward) {
      work.backwardSeconds = seconds(bwd);
      work.backwardInputSeconds = seconds(bwdInput);
      work.backwardWeightSeconds = seconds(bwdWeight);
    } else {
      work.backwardSeconds = seconds(bwd);
      work.backwardInputSeconds = work.backwardWeightSeconds =
          work.backwardSeconds / 2;
    }

    // Stash: the forward function's extra results, or every produced tensor.
    double stash = 0;
    if (func::FuncOp fwd =
            linkedFunction<pipe::PipeDialect::FwdAttrHelper>(fn)) {
      work.hasForwardFunction = true;
      ArrayRef<Type> results = fwd.getResultTypes();
      for (size_t i = fn.getNumResults(); i < results.size(); ++i)
        stash += typeBytes(results[i]);
    } else {
      stash = producedBytes(fn);
    }
    work.stashBytes = stash + inputBytes;
    work.inputBytes = inputBytes;
  }

  // Activations: what the entry sends from stage s to stage s+1, or the
  // call results later calls use.
  Block &body = entry.getBody().front();
  bool haveSends = false;
  for (auto send : body.getOps<pipe::SendOp>()) {
    haveSends = true;
    if (send.getPayload() != pipe::Payload::Activation)
      continue;
    int64_t from = send.getFrom();
    if (from >= 0 && from < numStages)
      costs.stages[from].activationBytes +=
          typeBytes(send.getValue().getType());
  }
  if (!haveSends) {
    SymbolTableCollection symbols;
    for (auto call : body.getOps<func::CallOp>()) {
      auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      int64_t stage = callee ? pipe::getStage(callee) : -1;
      if (stage < 0 || stage >= numStages)
        continue;
      for (Value result : call.getResults()) {
        bool usedByStage = llvm::any_of(result.getUsers(), [&](Operation *u) {
          auto userCall = dyn_cast<func::CallOp>(u);
          if (!userCall)
            return false;
          auto userCallee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
              userCall, userCall.getCalleeAttr());
          return userCallee && pipe::getStage(userCallee) > stage;
        });
        if (usedByStage)
          costs.stages[stage].activationBytes += typeBytes(result.getType());
      }
    }
  }
  return costs;
}

bool ModelCosts::hasBackwardFunctions() const {
  return !stages.empty() && llvm::all_of(stages, [](const StageWork &s) {
    return s.hasBackwardFunction;
  });
}

bool ModelCosts::hasSplitBackward() const {
  return !stages.empty() && llvm::all_of(stages, [](const StageWork &s) {
    return s.hasSplitBackward;
  });
}

bool ModelCosts::hasForwardFunctions() const {
  return llvm::any_of(stages,
                      [](const StageWork &s) { return s.hasForwardFunction; });
}

double ModelCosts::totalParameterBytes() const {
  double bytes = 0;
  for (const StageWork &work : stages)
    bytes += work.parameterBytes;
  return bytes;
}

void ModelCosts::calibrate(const StageWork &work, double scale,
                           double sharedParameterBytes, double accumulatedShare,
                           sim::StageCosts &stage) const {
  // Samples the stage functions compute.
  double samples = batch > 0 ? static_cast<double>(batch) /
                                   std::max<int64_t>(specializedMicrobatches, 1)
                             : 0;
  double action = device.calibration->actionSeconds;
  // What a training stage touches every step: its parameters, their
  // gradients and the accumulated gradients; the other ranks of its node
  // touch theirs in the same cache.
  double footprint = 3 * std::max(work.parameterBytes, sharedParameterBytes);
  auto at = [&](const std::vector<sim::OpWork> &ops) {
    return calibratedSeconds(ops, samples, scale, device, footprint);
  };
  double forward = at(work.forwardOps);
  double backward = at(work.backwardOps);
  double input = backward / 2, weight = backward / 2;
  if (work.hasSplitBackward || work.backwardDerived) {
    input = at(work.backwardInputOps);
    weight = at(work.backwardWeightOps);
  }
  // The runtime adds every parameter gradient of a B or W to the step's,
  // but for the step's first, which it writes in place: M - 1 of M. Those
  // a GEMM or a reduction adds itself (accumulating backward) cost nothing
  // more here.
  double accumulate = device.calibration->accumulateSecondsOf(
                          work.accumulatedTensorBytes, footprint) *
                      accumulatedShare;
  stage.forward = forward + action;
  // Before the updates the runtime scans the stage's gradient buffer.
  stage.checkSeconds =
      device.calibration->nonfiniteCheckSecondsOf(work.parameterBytes);
  stage.backward = backward + action + accumulate;
  // Adam streams the parameters, gradients and moments of the whole node.
  stage.optimizer = device.calibration->optimizerStepSeconds(
      work.parameterTensorBytes, sharedParameterBytes);
  stage.backwardInput = input + action;
  stage.backwardWeight = weight + action + accumulate;
}

sim::CostTable ModelCosts::costTable(int64_t microbatches, bool fullRecompute,
                                     double nodeParameterShare) const {
  // Fraction of the functions' batch that one microbatch is.
  double scale = microbatches < 1 ? 1.0
                 : specializedMicrobatches > 0
                     ? static_cast<double>(specializedMicrobatches) /
                           static_cast<double>(microbatches)
                     : 1.0 / static_cast<double>(microbatches);
  sim::CostTable table;
  table.parameterBytesByName = parameterBytesByName;
  // pipewave-run checks every training step for non-finite values
  // (--on-nonfinite stop, the default). On the CPU target the updates run in
  // their places and check the gradients they read, and the ranks agree
  // after them; a GPU's ranks scan the gradients and agree before them.
  table.stepAgreement = true;
  table.agreementAfterUpdates = device.isCpu();
  double sharedParameterBytes =
      std::max(nodeParameterShare, 0.0) * totalParameterBytes();
  // The runtime writes each parameter's first gradient of a step in place
  // and accumulates the other M - 1 (all of them when M is not known).
  double accumulatedShare = microbatches > 1
                                ? static_cast<double>(microbatches - 1) /
                                      static_cast<double>(microbatches)
                            : microbatches == 1 ? 0.0
                                                : 1.0;
  for (const StageWork &work : stages) {
    sim::StageCosts stage;
    stage.forward = work.forwardSeconds * scale;
    stage.backward = work.backwardSeconds * scale;
    stage.backwardInput = work.backwardInputSeconds * scale;
    stage.backwardWeight = work.backwardWeightSeconds * scale;
    stage.optimizer = work.optimizerSeconds;
    stage.activationBytes = work.activationBytes * scale;
    stage.parameterBytes = work.parameterBytes;
    stage.stashBytes = work.stashBytes * scale;
    if (device.calibration)
      calibrate(work, scale, sharedParameterBytes, accumulatedShare, stage);
    if (fullRecompute) {
      stage.stashBytes = work.inputBytes * scale;
      stage.backward += stage.forward;
      stage.backwardInput += stage.forward;
    }
    table.stages.push_back(stage);
  }
  return table;
}

double pipewave::nodeParameterShare(int numRanks, int devicesPerNode,
                                    int replicas) {
  if (numRanks < 1)
    return 0;
  int onNode = std::min(std::max(devicesPerNode, 1), numRanks);
  return static_cast<double>(std::max(replicas, 1)) * onNode / numRanks;
}

sim::Cluster pipewave::makeCluster(const sim::DeviceSpec &device, int numRanks,
                                   int devicesPerNode, double memoryBytes) {
  int perNode = std::max(devicesPerNode, 1);
  int nodes = std::max((numRanks + perNode - 1) / perNode, 1);
  sim::Cluster cluster = sim::Cluster::of(device, perNode, nodes);
  if (memoryBytes > 0)
    cluster.memoryBytes = memoryBytes;
  return cluster;
}
