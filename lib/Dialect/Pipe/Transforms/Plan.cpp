//===- Plan.cpp - pipe-plan: DAPPLE planning of the entry function --------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Builds a per-layer profile of the entry function (one layer per costed
// top-level operation) with the per-op cost model, runs the DAPPLE planner of
// lib/Planner on it and writes the plan back as attributes: `pipe.stage` on
// the operations (read by pipe-partition), `pipe.replicas` and
// `pipe.microbatches` on the entry. With a profile file it only reports.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Analysis/CostModel.h"
#include "pipewave/Analysis/StageCosts.h"
#include "pipewave/Dialect/Pipe/Transforms/Passes.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"
#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"
#include "pipewave/Planner/Dapple.h"
#include "pipewave/Planner/Profile.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <numeric>

namespace pipewave::pipe {
#define GEN_PASS_DEF_PIPEPLAN
#include "pipewave/Dialect/Pipe/Transforms/Passes.h.inc"
} // namespace pipewave::pipe

using namespace mlir;
using namespace pipewave;
using namespace pipewave::pipe;

namespace {

/// The entry function as a chain of layers.
struct ModelLayers {
  planner::ModelProfile profile;
  /// Layer of every non-constant top-level operation.
  llvm::DenseMap<Operation *, int> layerOf;
  /// Operations in program order (those in layerOf).
  SmallVector<Operation *> ops;
  int uncosted = 0;
};

/// "F a-b | ..." summary of a plan's layers and replicas.
std::string planLine(const planner::Plan &plan) {
  std::string text;
  for (int s = 0; s < plan.numStages(); ++s) {
    const planner::StagePlan &stage = plan.stages[s];
    text += (s ? " | " : "") +
            std::to_string(stage.endLayer - stage.firstLayer) + "L x" +
            std::to_string(stage.replicas());
  }
  return text;
}

struct PipePlanPass : public pipe::impl::PipePlanBase<PipePlanPass> {
  using PipePlanBase::PipePlanBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp fn = lookupEntry(module, entry, "pipe-plan");
    if (!fn)
      return signalPassFailure();

    if (devicesPerNode < 1 || nodes < 1 || globalBatch < 0 || maxStages < 0 ||
        profileBatch < 0) {
      fn.emitError() << "pipe-plan: devices-per-node and nodes must be at "
                        "least 1, global-batch, max-stages and profile-batch "
                        "at least 0";
      return signalPassFailure();
    }
    std::string error;
    std::optional<sim::DeviceSpec> deviceSpec =
        pipewave::resolveDevice(device, error);
    if (!deviceSpec) {
      fn.emitError() << "pipe-plan: " << error;
      return signalPassFailure();
    }
    planner::PlannerOptions options;
    options.cluster = sim::Cluster::of(
        *deviceSpec, static_cast<int>(devicesPerNode), static_cast<int>(nodes));
    if (!memory.empty()) {
      std::optional<double> bytes = sim::parseBytes(memory);
      if (!bytes || *bytes <= 0) {
        fn.emitError() << "pipe-plan: memory= expects a size such as 16GiB, "
                          "got '"
                       << memory << "'";
        return signalPassFailure();
      }
      options.cluster.memoryBytes = *bytes;
    }
    options.maxStages = static_cast<int>(maxStages);

    if (!profile.empty())
      return planProfile(fn, options);

    int64_t batch = pipe::getEntryBatch(fn);
    int64_t samples = globalBatch ? globalBatch : batch;
    if (samples <= 0) {
      fn.emitError() << "pipe-plan: '@" << entry
                     << "' has no data input with a static batch dimension "
                        "0; set global-batch";
      return signalPassFailure();
    }
    options.globalBatch = static_cast<int>(samples);
    // The microbatch count must also split the model's own batch, which
    // pipe-schedule checks.
    if (batch > 0) {
      int64_t common = std::gcd(samples, batch);
      for (int64_t m = 1; m <= common; ++m)
        if (common % m == 0)
          options.microbatchCounts.push_back(static_cast<int>(m));
    }

    FailureOr<ModelLayers> layers =
        buildLayers(fn, *deviceSpec, batch > 0 ? batch : samples);
    if (failed(layers))
      return signalPassFailure();

    planner::PlanResult result = planner::planDapple(layers->profile, options);
    std::string header =
        "pipe-plan: " + std::to_string(layers->profile.numLayers()) +
        " layers (the costed operations of '@" + entry.getValue() + "' on " +
        deviceSpec->name + ")";
    if (layers->uncosted > 0)
      header += ", " + std::to_string(layers->uncosted) +
                " operation(s) without a cost rule counted as free";
    header += "; " + describeSetting(options);
    if (!result.best) {
      mlir::emitError(fn.getLoc()) << header << "\nno plan: " << result.error;
      return signalPassFailure();
    }
    const planner::Plan &best = *result.best;

    // Write the plan back.
    std::vector<int> stageOfLayer(layers->profile.numLayers(), 0);
    SmallVector<int64_t> replicas;
    for (int s = 0; s < best.numStages(); ++s) {
      const planner::StagePlan &stage = best.stages[s];
      for (int l = stage.firstLayer; l < stage.endLayer; ++l)
        stageOfLayer[l] = s;
      replicas.push_back(stage.replicas());
    }
    for (Operation *op : layers->ops)
      setStage(op, stageOfLayer[layers->layerOf.lookup(op)]);
    Builder builder(fn.getContext());
    PipeDialect::ReplicasAttrHelper(fn.getContext())
        .setAttr(fn, builder.getDenseI64ArrayAttr(replicas));
    PipeDialect::MicrobatchesAttrHelper(fn.getContext())
        .setAttr(fn, builder.getI64IntegerAttr(best.microbatches));

    std::string text = header + "\n" + describeResult(layers->profile, result);
    text += "wrote pipe.stage on " + std::to_string(layers->ops.size()) +
            " operations, pipe.replicas = [";
    for (size_t s = 0; s < replicas.size(); ++s)
      text += (s ? ", " : "") + std::to_string(replicas[s]);
    text += "] and pipe.microbatches = " + std::to_string(best.microbatches) +
            " on '@" + entry.getValue() + "'";
    mlir::emitRemark(fn.getLoc()) << text;
  }

  /// profile=PATH: plan the profile and report, leaving the IR alone.
  void planProfile(func::FuncOp fn, planner::PlannerOptions &options) {
    std::string error;
    std::optional<planner::ModelProfile> model = planner::loadPipeDreamProfile(
        profile, static_cast<int>(profileBatch), &error);
    if (!model) {
      fn.emitError() << "pipe-plan: " << error;
      return signalPassFailure();
    }
    options.globalBatch = globalBatch ? static_cast<int>(globalBatch) : 128;
    planner::PlanResult result = planner::planDapple(*model, options);
    std::string header =
        "pipe-plan: profile " + model->name + ", " +
        std::to_string(model->numLayers()) + " layers at batch " +
        std::to_string(model->profileBatch) + "; " + describeSetting(options);
    if (!result.best) {
      mlir::emitError(fn.getLoc()) << header << "\nno plan: " << result.error;
      return signalPassFailure();
    }
    std::string text = header + "\n" + describeResult(*model, result);
    if (!text.empty() && text.back() == '\n')
      text.pop_back();
    mlir::emitRemark(fn.getLoc()) << text;
    markAllAnalysesPreserved();
  }

  std::string describeSetting(const planner::PlannerOptions &options) {
    const sim::Cluster &cluster = options.cluster;
    return "global batch " + std::to_string(options.globalBatch) + " on " +
           std::to_string(cluster.nodes) + " x " +
           std::to_string(cluster.devicesPerNode) + " " + cluster.device.name +
           ", " + sim::formatBytes(cluster.memoryBytes) + " per device";
  }

  std::string describeResult(const planner::ModelProfile &model,
                             const planner::PlanResult &result) {
    std::string text =
        "best plan: " + planner::describePlan(model, *result.best);
    char line[256];
    auto baseline = [&](const char *name, const planner::Baseline &b,
                        double speedup) {
      if (!b.fits)
        std::snprintf(line, sizeof line, "%s does not fit\n", name);
      else
        std::snprintf(line, sizeof line,
                      "%s step %s (%d microbatch%s); plan speedup %.2fx\n",
                      name, sim::formatSeconds(b.stepSeconds).c_str(),
                      b.microbatches, b.microbatches == 1 ? "" : "es", speedup);
      text += line;
    };
    baseline("single device:", result.singleDevice,
             result.speedupOverSingleDevice);
    baseline("data parallel:", result.dataParallel,
             result.speedupOverDataParallel);
    text += "best candidates (layers x replicas per stage):\n";
    for (size_t c = 0; c < result.candidates.size() && c < 5; ++c) {
      const planner::Plan &plan = result.candidates[c];
      std::snprintf(line, sizeof line,
                    "  %zu. %-13s M=%-3d est %-9s sim %-9s %s\n", c + 1,
                    planner::stringify(plan.policy), plan.microbatches,
                    sim::formatSeconds(plan.estimatedSeconds).c_str(),
                    plan.simulatedSeconds > 0
                        ? sim::formatSeconds(plan.simulatedSeconds).c_str()
                        : "-",
                    planLine(plan).c_str());
      text += line;
    }
    return text;
  }

  /// One layer per costed top-level operation of the entry (see the pass
  /// description).
  FailureOr<ModelLayers> buildLayers(func::FuncOp fn,
                                     const sim::DeviceSpec &deviceSpec,
                                     int64_t batch) {
    ModelLayers model;
    model.profile.name = fn.getSymName().str();
    model.profile.profileBatch = static_cast<int>(batch);
    Block &body = fn.getBody().front();
    llvm::DenseSet<Value> seenParams;
    double pendingParams = 0;
    SmallVector<Operation *> leading;
    // Each operation's backward, as pipe-autodiff would generate it.
    llvm::DenseMap<Operation *, double> backwardSeconds;
    forEachDerivedBackwardOp(
        fn, [&](Operation *op, const sim::OpWork &work, bool) {
          if (Operation *top = body.findAncestorOpInBlock(*op))
            backwardSeconds[top] += deviceSpec.opSeconds(work);
        });

    for (Operation &op : body.without_terminator()) {
      if (isa<SplitOp>(op)) {
        op.emitError() << "pipe-plan: the planner chooses the stage "
                          "boundaries; remove the pipe.split markers";
        return failure();
      }
      if (auto call = dyn_cast<func::CallOp>(op)) {
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        if (callee && getStage(callee) >= 0) {
          op.emitError() << "pipe-plan: '@" << entry
                         << "' is already outlined into stages; run "
                            "pipe-plan before pipe-partition";
          return failure();
        }
      }
      if (isFreeConstant(&op))
        continue;
      // Parameters this operation is the first to use.
      double params = 0;
      op.walk([&](Operation *nested) {
        for (Value operand : nested->getOperands()) {
          auto arg = dyn_cast<BlockArgument>(operand);
          if (arg && arg.getOwner() == &body &&
              isParam(fn, arg.getArgNumber()) &&
              seenParams.insert(operand).second)
            params += pipewave::typeBytes(operand.getType());
        }
      });
      FailureOr<OpCost> cost = getOpCost(&op);
      if (failed(cost))
        ++model.uncosted;
      model.ops.push_back(&op);
      if (succeeded(cost) && (cost->flops > 0 || cost->bytes > 0)) {
        planner::LayerProfile layer;
        layer.name = op.getName().getStringRef().str() + "#" +
                     std::to_string(model.profile.layers.size());
        layer.forwardSeconds = deviceSpec.opSeconds(cost->work());
        layer.backwardSeconds = backwardSeconds.lookup(&op);
        for (Type type : op.getResultTypes())
          layer.outputBytes += pipewave::typeBytes(type);
        layer.parameterBytes = params + pendingParams;
        pendingParams = 0;
        model.layerOf[&op] = static_cast<int>(model.profile.layers.size());
        for (Operation *early : leading)
          model.layerOf[early] = 0;
        leading.clear();
        model.profile.layers.push_back(layer);
        continue;
      }
      if (model.profile.layers.empty()) {
        leading.push_back(&op);
        pendingParams += params;
      } else {
        int last = static_cast<int>(model.profile.layers.size()) - 1;
        model.layerOf[&op] = last;
        model.profile.layers[last].parameterBytes += params;
      }
    }
    int numLayers = model.profile.numLayers();
    if (numLayers == 0) {
      fn.emitError() << "pipe-plan: '@" << entry
                     << "' has no operation with a cost to plan";
      return failure();
    }

    // Bytes crossing the cut after every layer: values defined up to it and
    // used after it (the entry's results leave from the last layer).
    model.profile.cutBytes.assign(numLayers - 1, 0);
    for (Operation *op : model.ops) {
      int defined = model.layerOf.lookup(op);
      for (Value result : op->getResults()) {
        int lastUse = defined;
        for (Operation *user : result.getUsers()) {
          Operation *top = body.findAncestorOpInBlock(*user);
          if (!top)
            continue;
          if (top->hasTrait<OpTrait::IsTerminator>())
            lastUse = numLayers - 1;
          else if (auto it = model.layerOf.find(top); it != model.layerOf.end())
            lastUse = std::max(lastUse, it->second);
        }
        double bytes = pipewave::typeBytes(result.getType());
        for (int cut = defined; cut < lastUse; ++cut)
          model.profile.cutBytes[cut] += bytes;
      }
    }
    return model;
  }
};

} // namespace
