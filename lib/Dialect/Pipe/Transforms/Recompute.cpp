//===- Recompute.cpp - pipe-recompute: activation checkpointing -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Wraps forward operations of every stage function in `pipe.recompute`
// regions, which pipe-autodiff recomputes in the backward instead of
// stashing their values:
//
//   none       nothing changes
//   full       one region with the whole body (constants stay outside)
//   selective  one region per maximal run of consecutive cheap operations;
//              expensive ones (more than `threshold` FLOPs per result
//              element under the cost model) stay outside and their results
//              are what gets stashed
//
// The stash of every policy is computed with pipe-autodiff's own reverse-mode
// builder (autodiff::computeStash) on a copy of the stage, and reported as a
// remark on the stage function and as statistics.
//
//===----------------------------------------------------------------------===//

#include "ScheduledWork.h"
#include "pipewave/Analysis/CostModel.h"
#include "pipewave/Dialect/Pipe/Transforms/GradientRules.h"
#include "pipewave/Dialect/Pipe/Transforms/Passes.h"

#include "mlir/IR/OwningOpRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>

namespace pipewave::pipe {
#define GEN_PASS_DEF_PIPERECOMPUTE
#include "pipewave/Dialect/Pipe/Transforms/Passes.h.inc"
} // namespace pipewave::pipe

using namespace mlir;
using namespace pipewave;
using namespace pipewave::pipe;

namespace {

using Policy = RecomputePolicy;

constexpr Policy kPolicies[] = {Policy::None, Policy::Full, Policy::Selective};

/// Operand-free constants: pipe-autodiff rematerialises them, so they are
/// never worth recomputing and stay outside the regions.
bool isHoistableConstant(Operation *op) {
  return op->getNumOperands() == 0 && op->getNumRegions() == 0 &&
         (isFreeConstant(op) || op->hasTrait<OpTrait::ConstantLike>());
}

/// True if `op` must stay outside the regions under `policy`: its results
/// are kept (stashed when the backward reads them).
bool isKept(Operation *op, Policy policy, double threshold) {
  if (isa<RecomputeOp>(op))
    return false;
  // Never run side effects twice.
  if (!isMemoryEffectFree(op))
    return true;
  if (policy == Policy::Full)
    return false;
  FailureOr<OpCost> cost = getOpCost(op);
  if (failed(cost))
    return true;
  double elements = 0;
  for (Type type : op->getResultTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(type);
        tensor && tensor.hasStaticShape())
      elements += static_cast<double>(tensor.getNumElements());
  if (elements == 0)
    return false;
  return cost->flops / elements > threshold;
}

struct Counts {
  unsigned regions = 0;
  unsigned ops = 0;
};

/// Moves the consecutive operations `run` of one block into a new
/// `pipe.recompute` in their place; its results are the values of `run` used
/// after it.
void wrap(ArrayRef<Operation *> run, Counts &counts) {
  if (run.empty())
    return;
  llvm::SmallPtrSet<Operation *, 16> inRun(run.begin(), run.end());
  SmallVector<Value> escaping;
  for (Operation *op : run)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            Operation *top =
                run.front()->getBlock()->findAncestorOpInBlock(*user);
            return !top || !inRun.contains(top);
          }))
        escaping.push_back(result);

  OpBuilder builder(run.front());
  SmallVector<Type> types;
  for (Value value : escaping)
    types.push_back(value.getType());
  auto recompute = RecomputeOp::create(builder, run.front()->getLoc(), types);
  Block *body = new Block();
  recompute.getBody().push_back(body);
  Block *parent = run.front()->getBlock();
  body->getOperations().splice(body->end(), parent->getOperations(),
                               Block::iterator(run.front()),
                               std::next(Block::iterator(run.back())));
  builder.setInsertionPointToEnd(body);
  YieldOp::create(builder, run.back()->getLoc(), escaping);
  for (auto [value, result] : llvm::zip_equal(escaping, recompute.getResults()))
    value.replaceUsesWithIf(result, [&](OpOperand &use) {
      return !recompute->isProperAncestor(use.getOwner());
    });
  ++counts.regions;
  counts.ops += run.size();
}

/// Rewrites the body of `fn` for `policy`.
void applyPolicy(func::FuncOp fn, Policy policy, double threshold,
                 Counts &counts) {
  if (policy == Policy::None)
    return;
  Block &block = fn.getBody().front();
  // Constants first, in order, so that they do not split the runs.
  Operation *lastConstant = nullptr;
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    if (!isHoistableConstant(&op))
      continue;
    if (lastConstant)
      op.moveAfter(lastConstant);
    else
      op.moveBefore(&block, block.begin());
    lastConstant = &op;
  }

  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    if (!isHoistableConstant(&op))
      ops.push_back(&op);
  SmallVector<Operation *> run;
  for (Operation *op : ops) {
    if (isKept(op, policy, threshold)) {
      wrap(run, counts);
      run.clear();
      continue;
    }
    run.push_back(op);
  }
  wrap(run, counts);
}

struct PipeRecomputePass
    : public pipe::impl::PipeRecomputeBase<PipeRecomputePass> {
  using PipeRecomputeBase::PipeRecomputeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (fromSchedule) {
      FailureOr<ScheduledWork> work =
          readScheduledWork(module, "pipe-recompute");
      if (failed(work))
        return signalPassFailure();
      if (!work->trains)
        return;
    }
    Policy chosen = policy;
    const autodiff::GradientRuleTable &rules =
        autodiff::GradientRuleTable::getDefault();

    FailureOr<SmallVector<func::FuncOp>> stages =
        autodiff::getStagesToDifferentiate(
            module, rules,
            "pipe-recompute: stage function was already differentiated; run "
            "pipe-recompute before pipe-autodiff");
    if (failed(stages))
      return signalPassFailure();

    for (func::FuncOp stage : *stages) {
      // Bytes per microbatch of every policy, each on a rewritten copy.
      int64_t bytes[3] = {0, 0, 0};
      for (Policy p : kPolicies) {
        OwningOpRef<func::FuncOp> copy = stage.clone();
        Counts ignored;
        applyPolicy(*copy, p, threshold, ignored);
        FailureOr<SmallVector<Value>> stash =
            autodiff::computeStash(*copy, rules);
        if (failed(stash))
          return signalPassFailure();
        bytes[static_cast<int>(p)] =
            autodiff::stashBytesPerMicrobatch(*copy, *stash);
      }

      Counts counts;
      applyPolicy(stage, chosen, threshold, counts);
      numRegions += counts.regions;
      numRecomputedOps += counts.ops;
      stashBytes += bytes[static_cast<int>(chosen)];
      stashBytesNone += bytes[static_cast<int>(Policy::None)];
      stashBytesFull += bytes[static_cast<int>(Policy::Full)];
      stashBytesSelective += bytes[static_cast<int>(Policy::Selective)];

      if (report) {
        InFlightDiagnostic remark = stage.emitRemark() << "pipe-recompute: ";
        if (IntegerAttr index =
                PipeDialect::StageAttrHelper(stage.getContext()).getAttr(stage))
          remark << "stage " << index.getInt();
        else
          remark << "stage '@" << stage.getSymName() << "'";
        remark << " stashes " << bytes[static_cast<int>(chosen)]
               << " bytes per microbatch (";
        llvm::interleaveComma(kPolicies, remark, [&](Policy p) {
          remark << stringifyRecomputePolicy(p) << ": "
                 << bytes[static_cast<int>(p)];
        });
        remark << ")";
      }
    }
  }
};

} // namespace
