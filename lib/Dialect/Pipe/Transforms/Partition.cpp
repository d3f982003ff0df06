//===- Partition.cpp - pipe-partition: assign operations to stages --------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Writes `pipe.stage` on every operation of the entry function, from the
// user's markers (manual), by operation count (uniform), or by minimising the
// slowest stage under the cost model (balanced; with backward=true, an op of
// a trained model costs its forward and its backward). The cutting itself is
// plain C++ in lib/Planner; this file gathers the operations and their costs.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Analysis/CostModel.h"
#include "pipewave/Analysis/StageCosts.h"
#include "pipewave/Dialect/Pipe/Transforms/Passes.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"
#include "pipewave/Planner/LinearPartition.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

namespace pipewave::pipe {
#define GEN_PASS_DEF_PIPEPARTITION
#include "pipewave/Dialect/Pipe/Transforms/Passes.h.inc"
} // namespace pipewave::pipe

using namespace mlir;
using namespace pipewave;
using namespace pipewave::pipe;

namespace {

/// The operations of the entry block that get a stage, split into those the
/// partition cuts (`work`) and constants that follow their first user.
struct EntryOps {
  SmallVector<Operation *> work;
  SmallVector<Operation *> constants;
  SmallVector<SplitOp> markers;
};

EntryOps collectEntryOps(func::FuncOp fn) {
  EntryOps ops;
  for (Operation &op : fn.getBody().front().without_terminator()) {
    if (auto marker = dyn_cast<SplitOp>(op))
      ops.markers.push_back(marker);
    else if (isFreeConstant(&op))
      ops.constants.push_back(&op);
    else
      ops.work.push_back(&op);
  }
  return ops;
}

/// Whether `fn` is trained (its first result is a scalar loss and it has a
/// parameter); if so, `grad` gets every value of the entry block that depends
/// on a parameter, i.e. that the backward pass computes a gradient for.
bool trainsParameters(func::FuncOp fn, llvm::DenseSet<Value> &grad) {
  auto loss = fn.getNumResults() > 0
                  ? dyn_cast<RankedTensorType>(fn.getResultTypes().front())
                  : RankedTensorType();
  if (!loss || loss.getRank() != 0)
    return false;
  Block &body = fn.getBody().front();
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
    if (isParam(fn, i))
      grad.insert(body.getArgument(i));
  if (grad.empty())
    return false;
  for (Operation &op : body.without_terminator()) {
    bool depends = false;
    op.walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        depends |= grad.contains(operand);
    });
    if (depends)
      grad.insert(op.result_begin(), op.result_end());
  }
  return true;
}

/// Checks that every operation only uses values of its own or earlier
/// stages, including uses inside nested regions.
LogicalResult verifyStageOrder(func::FuncOp fn) {
  Block &body = fn.getBody().front();
  WalkResult result = fn.walk([&](Operation *op) {
    if (op == fn.getOperation() || isa<func::ReturnOp>(op) ||
        isFreeConstant(op))
      return WalkResult::advance();
    Operation *top = body.findAncestorOpInBlock(*op);
    if (!top)
      return WalkResult::advance();
    int64_t useStage = getStage(top);
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || def->getBlock() != &body || isFreeConstant(def))
        continue;
      int64_t defStage = getStage(def);
      if (defStage > useStage) {
        op->emitError() << "pipe-partition: this operation of stage "
                        << useStage << " uses a value of stage " << defStage
                        << "; a stage only consumes values of itself or "
                           "earlier stages";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct PipePartitionPass
    : public pipe::impl::PipePartitionBase<PipePartitionPass> {
  using PipePartitionBase::PipePartitionBase;

  void runOnOperation() override {
    func::FuncOp fn = lookupEntry(getOperation(), entry, "pipe-partition");
    if (!fn)
      return signalPassFailure();
    // ignore-markers: the whole model is cut without the user's markers.
    if (ignoreMarkers)
      for (SplitOp marker : llvm::make_early_inc_range(fn.getOps<SplitOp>()))
        marker->erase();
    EntryOps ops = collectEntryOps(fn);
    stageCount = numStages;
    if (stageCount == 0 && ops.markers.empty())
      stageCount = defaultStages;

    PartitionStrategy how = strategy;
    if (how == PartitionStrategy::Auto) {
      bool allStaged =
          !ops.work.empty() && llvm::all_of(ops.work, [](Operation *op) {
            return getStage(op) >= 0;
          });
      how = !ops.markers.empty() || allStaged ? PartitionStrategy::Manual
                                              : PartitionStrategy::Balanced;
    }
    LogicalResult result =
        how == PartitionStrategy::Manual
            ? partitionManually(fn, ops)
            : partitionByCost(fn, ops, how == PartitionStrategy::Balanced);
    if (failed(result))
      return signalPassFailure();

    placeConstants(ops);
    if (failed(verifyStageOrder(fn)))
      return signalPassFailure();
    numPartitionedOps += ops.work.size() + ops.constants.size();
  }

  /// num-stages, or default-stages when that is 0 and there are no markers.
  int64_t stageCount = 0;

  /// Stages from pipe.split markers, or from pipe.stage attributes the user
  /// wrote on every operation.
  LogicalResult partitionManually(func::FuncOp fn, EntryOps &ops) {
    if (!ops.markers.empty()) {
      int64_t stages = ops.markers.size() + 1;
      if (stageCount != 0 && stageCount != stages)
        return fn.emitError()
               << "pipe-partition: num-stages=" << stageCount << " but the "
               << ops.markers.size() << " pipe.split marker(s) make " << stages
               << " stages";
      int64_t stage = 0;
      bool stageHasWork = false;
      for (Operation &op : llvm::make_early_inc_range(
               fn.getBody().front().without_terminator())) {
        if (auto marker = dyn_cast<SplitOp>(op)) {
          if (!stageHasWork)
            return marker.emitError()
                   << "pipe-partition: stage " << stage
                   << " is empty; a pipe.split must follow at least one "
                      "operation of its stage";
          ++stage;
          stageHasWork = false;
          continue;
        }
        if (!isFreeConstant(&op)) {
          setStage(&op, stage);
          stageHasWork = true;
        }
      }
      if (!stageHasWork)
        return ops.markers.back().emitError()
               << "pipe-partition: stage " << stage
               << " is empty; no operation follows the last pipe.split";
      for (SplitOp marker : ops.markers)
        marker.erase();
      ops.markers.clear();
      return success();
    }

    int64_t maxStage = -1;
    for (Operation *op : ops.work) {
      int64_t stage = getStage(op);
      if (stage < 0)
        return op->emitError()
               << "pipe-partition: strategy=manual needs pipe.split markers "
                  "or a pipe.stage attribute on every operation; this one "
                  "has none";
      maxStage = std::max(maxStage, stage);
    }
    if (maxStage < 0)
      return fn.emitError() << "pipe-partition: the entry function has no "
                               "operations to partition";
    if (stageCount != 0 && stageCount != maxStage + 1)
      return fn.emitError() << "pipe-partition: num-stages=" << stageCount
                            << " but the pipe.stage attributes use "
                            << maxStage + 1 << " stages";
    llvm::SmallBitVector used(maxStage + 1);
    for (Operation *op : ops.work)
      used.set(getStage(op));
    if (!used.all())
      return fn.emitError() << "pipe-partition: stage "
                            << used.find_first_unset() << " has no operation";
    return success();
  }

  /// Uniform (equal operation counts) or balanced (equal cost) cuts.
  LogicalResult partitionByCost(func::FuncOp fn, EntryOps &ops, bool balanced) {
    if (!ops.markers.empty())
      return ops.markers.front().emitError()
             << "pipe-partition: strategy="
             << stringifyPartitionStrategy(strategy)
             << " ignores pipe.split markers; use strategy=manual or remove "
                "them";
    if (stageCount < 1)
      return fn.emitError() << "pipe-partition: num-stages must be at least 1, "
                               "got "
                            << stageCount;
    int64_t count = ops.work.size();
    if (stageCount > count)
      return fn.emitError()
             << "pipe-partition: cannot cut " << count << " operation(s) into "
             << stageCount << " non-empty stages";

    std::vector<int> assignment;
    if (balanced) {
      DeviceModel device;
      std::vector<double> costs;
      costs.reserve(count);
      llvm::DenseSet<Value> grad;
      bool trains = backward && trainsParameters(fn, grad);
      // Each operation's backward, as pipe-autodiff would generate it.
      llvm::DenseMap<Operation *, double> backwardSeconds;
      if (trains)
        forEachDerivedBackwardOp(
            fn, [&](Operation *op, const sim::OpWork &work, bool) {
              Block &body = fn.getBody().front();
              if (Operation *top = body.findAncestorOpInBlock(*op))
                backwardSeconds[top] +=
                    estimateSeconds(OpCost{work.flops, work.bytes}, device);
            });
      for (Operation *op : ops.work) {
        FailureOr<OpCost> cost = getOpCost(op);
        if (failed(cost))
          return op->emitError()
                 << "pipe-partition: no cost rule for '" << op->getName()
                 << "'; strategy=balanced needs the cost of every operation "
                    "(use strategy=uniform or manual, or a supported op)";
        double seconds = estimateSeconds(*cost, device);
        costs.push_back(seconds + backwardSeconds.lookup(op));
      }
      assignment = planner::balancedPartition(costs, stageCount);
    } else {
      assignment = planner::uniformPartition(count, stageCount);
    }
    for (auto [op, stage] : llvm::zip_equal(ops.work, assignment))
      setStage(op, stage);
    return success();
  }

  /// A constant takes the earliest stage that uses it (outlining copies it
  /// into every stage that does).
  void placeConstants(EntryOps &ops) {
    Block *body =
        ops.constants.empty() ? nullptr : ops.constants[0]->getBlock();
    for (Operation *constant : ops.constants) {
      int64_t stage = -1;
      for (Operation *user : constant->getUsers()) {
        Operation *top = body->findAncestorOpInBlock(*user);
        int64_t userStage = top ? getStage(top) : -1;
        if (userStage >= 0 && (stage < 0 || userStage < stage))
          stage = userStage;
      }
      setStage(constant, std::max<int64_t>(stage, 0));
    }
  }
};

} // namespace
