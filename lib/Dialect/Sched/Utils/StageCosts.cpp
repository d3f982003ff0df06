//===- StageCosts.cpp - Per-stage costs of an outlined pipeline -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Sched/Utils/StageCosts.h"
#include "pipewave/Analysis/CostModel.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace pipewave;
using namespace pipewave::sched;

/// Bytes of traffic per parameter byte of an Adam step (as in the DAPPLE
/// planner's PlannerOptions::optimizerTrafficFactor).
static constexpr double kOptimizerTrafficFactor = 7;

double pipewave::sched::typeBytes(Type type) {
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

static bool isParamArg(func::FuncOp fn, unsigned index) {
  return static_cast<bool>(
      fn.getArgAttr(index, pipe::PipeDialect::ParamAttrHelper::getNameStr()));
}

FailureOr<std::vector<func::FuncOp>>
pipewave::sched::getStageFunctions(func::FuncOp entry, StringRef passName) {
  std::vector<func::FuncOp> stages;
  SymbolTableCollection symbols;
  for (auto call : entry.getBody().front().getOps<func::CallOp>()) {
    auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!callee || pipe::getStage(callee) < 0)
      continue;
    if (pipe::getStage(callee) != static_cast<int64_t>(stages.size())) {
      call.emitError() << passName << ": expected a call of stage "
                       << stages.size() << ", found stage "
                       << pipe::getStage(callee);
      return failure();
    }
    stages.push_back(callee);
  }
  return stages;
}

int64_t pipewave::sched::getEntryBatch(func::FuncOp entry) {
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
    if (isParamArg(entry, i))
      continue;
    auto type = dyn_cast<RankedTensorType>(entry.getArgumentTypes()[i]);
    if (type && type.getRank() > 0 && !type.isDynamicDim(0))
      return type.getDimSize(0);
  }
  return 0;
}

int64_t pipewave::sched::getSpecializedMicrobatches(func::FuncOp entry) {
  for (auto slice : entry.getBody().front().getOps<tensor::ExtractSliceOp>()) {
    auto arg = dyn_cast<BlockArgument>(slice.getSource());
    if (!arg || arg.getOwner()->getParentOp() != entry.getOperation() ||
        isParamArg(entry, arg.getArgNumber()))
      continue;
    auto source = dyn_cast<RankedTensorType>(slice.getSourceType());
    RankedTensorType result = slice.getResultType();
    if (!source || source.getRank() == 0 || source.isDynamicDim(0) ||
        result.getRank() != source.getRank() || result.isDynamicDim(0) ||
        result.getDimSize(0) == 0 ||
        source.getDimSize(0) % result.getDimSize(0) != 0)
      continue;
    return source.getDimSize(0) / result.getDimSize(0);
  }
  return 0;
}

std::optional<sim::DeviceSpec>
pipewave::sched::resolveDevice(StringRef name, std::string &error) {
  if (std::optional<sim::DeviceSpec> device = sim::findDevice(name.str()))
    return device;
  if (name.ends_with(".json")) {
    std::string loadError;
    std::optional<sim::DeviceSpec> device =
        sim::loadDeviceFile(name.str(), &loadError);
    if (!device)
      error = "cannot read device file '" + name.str() + "': " + loadError;
    return device;
  }
  error = "unknown device '" + name.str() +
          "' (cpu, v100, a100, h100, h200 or a .json device file)";
  return std::nullopt;
}

double pipewave::sched::functionSeconds(func::FuncOp fn,
                                        const sim::DeviceSpec &device,
                                        int &uncosted,
                                        std::string &firstUncosted) {
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
    seconds += device.seconds(cost->flops, cost->bytes);
  });
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

static func::FuncOp linkedFunction(func::FuncOp stage, StringRef attrName) {
  auto ref = stage->getAttrOfType<FlatSymbolRefAttr>(attrName);
  if (!ref)
    return nullptr;
  return SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(stage,
                                                            ref.getAttr());
}

FailureOr<ModelCosts> pipewave::sched::computeModelCosts(
    func::FuncOp entry, const sim::DeviceSpec &device, StringRef passName) {
  FailureOr<std::vector<func::FuncOp>> stageFns =
      getStageFunctions(entry, passName);
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
  costs.batch = getEntryBatch(entry);
  costs.specializedMicrobatches = getSpecializedMicrobatches(entry);
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

    double inputBytes = 0;
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
      double bytes = typeBytes(fn.getArgumentTypes()[i]);
      if (isParamArg(fn, i))
        work.parameterBytes += bytes;
      else
        inputBytes += bytes;
    }
    work.optimizerSeconds = device.memoryBytesPerSecond > 0
                                ? kOptimizerTrafficFactor *
                                      work.parameterBytes /
                                      device.memoryBytesPerSecond
                                : 0;

    func::FuncOp bwd =
        linkedFunction(fn, pipe::PipeDialect::BwdAttrHelper::getNameStr());
    func::FuncOp bwdInput =
        linkedFunction(fn, pipe::PipeDialect::BwdInputAttrHelper::getNameStr());
    func::FuncOp bwdWeight = linkedFunction(
        fn, pipe::PipeDialect::BwdWeightAttrHelper::getNameStr());
    work.hasBackwardFunction = static_cast<bool>(bwd);
    work.hasSplitBackward = bwdInput && bwdWeight;
    work.backwardSeconds = bwd ? seconds(bwd) : 2 * work.forwardSeconds;
    if (work.hasSplitBackward) {
      work.backwardInputSeconds = seconds(bwdInput);
      work.backwardWeightSeconds = seconds(bwdWeight);
    } else if (bwd) {
      work.backwardInputSeconds = work.backwardWeightSeconds =
          work.backwardSeconds / 2;
    } else {
      work.backwardInputSeconds = work.backwardWeightSeconds =
          work.forwardSeconds;
    }

    // Stash: the forward function's extra results, or every produced tensor.
    double stash = 0;
    if (func::FuncOp fwd = linkedFunction(
            fn, pipe::PipeDialect::FwdAttrHelper::getNameStr())) {
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

sim::CostTable ModelCosts::costTable(int64_t microbatches,
                                     bool fullRecompute) const {
  // Fraction of the functions' batch that one microbatch is.
  double scale = microbatches < 1 ? 1.0
                 : specializedMicrobatches > 0
                     ? static_cast<double>(specializedMicrobatches) /
                           static_cast<double>(microbatches)
                     : 1.0 / static_cast<double>(microbatches);
  sim::CostTable table;
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
    if (fullRecompute) {
      stage.stashBytes = work.inputBytes * scale;
      stage.backward += stage.forward;
      stage.backwardInput += stage.forward;
    }
    table.stages.push_back(stage);
  }
  return table;
}

sim::Cluster pipewave::sched::makeCluster(const sim::DeviceSpec &device,
                                          int numRanks, int devicesPerNode,
                                          double memoryBytes) {
  int perNode = std::max(devicesPerNode, 1);
  int nodes = std::max((numRanks + perNode - 1) / perNode, 1);
  sim::Cluster cluster = sim::Cluster::of(device, perNode, nodes);
  if (memoryBytes > 0)
    cluster.memoryBytes = memoryBytes;
  return cluster;
}
