//===- Autodiff.cpp - pipe-autodiff: forward and backward of each stage ---===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// For every stage function @S (a func.func with pipe.stage) this pass adds
// the functions the training runtime calls, with this calling convention
// (also in the pass description, Passes.td):
//
//   @S_fwd(args...) -> (results..., stash...)
//   @S_bwd(args..., stash..., d_results...) -> (d_grad_args...)
//   split=true:
//   @S_bwd_input(args..., stash..., d_results...)
//       -> (d_grad_args that are not parameters..., wstash...)
//   @S_bwd_weight(wstash...) -> (d_grad_args that are parameters...)
//   where `pipe.wstash_args` on @S says, per argument of @S_bwd_weight, which
//   argument of @S_bwd_input it is (passed through, not returned), or -1:
//   the next of the values @S_bwd_input returns after the gradients.
//
// A stage with `pipe.update_state` operations (running statistics) has
// @S_fwd return their new values after the stash, in the ascending order of
// their state arguments (recorded as `pipe.state_args` on @S); the
// operations are erased from @S, so a forward-only step updates no state.
// In a forward-only step (from-schedule) `pipe.dropout` is the identity: it
// is replaced by its input in the stage functions.
//
// `args` are all arguments of @S in order; `stash` is what @S_fwd returns
// after the results of @S; `d_results` has one cotangent per floating-point
// result of @S (the caller seeds d_loss = 1 for the last stage);
// `grad_args` (recorded as `pipe.grad_args` on @S) are the floating-point
// arguments that are parameters (`pipe.param`, unless `pipe.frozen`) or
// activations from the previous stage (neither `pipe.param` nor `pipe.name`),
// ascending. The gradients are those of one microbatch; accumulating them over
// the microbatches is the runtime's job.
//
// The backward itself is built by AutodiffReverse.cpp with the rules of
// GradientRules/. The split is a slice of the full backward: bwd_input keeps
// the operations the non-parameter gradients depend on; bwd_weight the other
// operations the parameter gradients depend on, and the values it reads from
// bwd_input (or from bwd_input's arguments) are the weight stash.
//
//===----------------------------------------------------------------------===//

#include "ScheduledWork.h"
#include "pipewave/Dialect/Pipe/Transforms/GradientRules.h"
#include "pipewave/Dialect/Pipe/Transforms/Passes.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"
#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace pipewave::pipe {
#define GEN_PASS_DEF_PIPEAUTODIFF
#include "pipewave/Dialect/Pipe/Transforms/Passes.h.inc"
} // namespace pipewave::pipe

using namespace mlir;
using namespace pipewave;
using namespace pipewave::pipe;
using namespace pipewave::pipe::autodiff;

namespace {

void eraseDeadOps(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (isOpTriviallyDead(&op))
      op.erase();
}

/// Creates `@name` after `after`: a copy of `stage` that also returns
/// `stash`.
FailureOr<func::FuncOp> buildForward(func::FuncOp stage, ArrayRef<Value> stash,
                                     StringRef name, Operation *after,
                                     SymbolTable &symbols) {
  IRMapping mapping;
  auto fwd = cast<func::FuncOp>(stage->clone(mapping));
  fwd.setSymName(name);
  fwd->removeAttr(PipeDialect::StageAttrHelper::getNameStr());
  OpBuilder builder(stage.getContext());
  builder.setInsertionPointAfter(after);
  builder.insert(fwd);
  symbols.insert(fwd);
  auto ret = cast<func::ReturnOp>(fwd.getBody().front().getTerminator());
  // One signature update for the whole stash (not one per value).
  SmallVector<unsigned> indices(stash.size(), fwd.getNumResults());
  SmallVector<Type> types;
  SmallVector<DictionaryAttr> attrs(stash.size(), DictionaryAttr());
  SmallVector<Value> operands;
  for (Value value : stash) {
    types.push_back(value.getType());
    operands.push_back(mapping.lookup(value));
  }
  if (failed(fwd.insertResults(indices, types, attrs)))
    return failure();
  ret->insertOperands(ret->getNumOperands(), operands);
  RecomputeOp::inlineAll(fwd);
  return fwd;
}

/// Turns the `pipe.update_state` operations of `fwd` into trailing results:
/// `(1 - momentum) * state + momentum * value` for each state argument, in
/// ascending argument order, which it returns.
FailureOr<SmallVector<int64_t>> moveStateUpdates(func::FuncOp fwd) {
  SmallVector<UpdateStateOp> updates;
  fwd.walk([&](UpdateStateOp op) { updates.push_back(op); });
  auto argOf = [](UpdateStateOp op) {
    return cast<BlockArgument>(op.getState()).getArgNumber();
  };
  llvm::stable_sort(updates, [&](UpdateStateOp a, UpdateStateOp b) {
    return argOf(a) < argOf(b);
  });
  SmallVector<int64_t> args;
  SmallVector<Value> values;
  auto ret = cast<func::ReturnOp>(fwd.getBody().front().getTerminator());
  OpBuilder b(ret);
  for (UpdateStateOp op : updates) {
    if (!args.empty() && args.back() == argOf(op))
      return op.emitError() << "pipe-autodiff: state argument #" << argOf(op)
                            << " is updated twice in one stage";
    args.push_back(argOf(op));
    auto type = cast<RankedTensorType>(op.getState().getType());
    Location loc = op.getLoc();
    auto scalarType = RankedTensorType::get(
        SmallVector<int64_t>(type.getRank(), 1), type.getElementType());
    auto scalar = [&](double x) -> Value {
      return tosa::ConstOp::create(
          b, loc, scalarType,
          DenseElementsAttr::get(scalarType,
                                 b.getFloatAttr(type.getElementType(), x)));
    };
    auto shiftType = RankedTensorType::get({1}, b.getIntegerType(8));
    Value shift = tosa::ConstOp::create(
        b, loc, shiftType,
        DenseElementsAttr::get(shiftType,
                               b.getIntegerAttr(b.getIntegerType(8), 0)));
    double m = op.getMomentum().convertToDouble();
    Value kept = tosa::MulOp::create(b, loc, type, op.getState(),
                                     scalar(1.0 - m), shift);
    Value moved =
        tosa::MulOp::create(b, loc, type, op.getValue(), scalar(m), shift);
    values.push_back(tosa::AddOp::create(b, loc, type, kept, moved));
    op.erase();
  }
  SmallVector<unsigned> indices(values.size(), fwd.getNumResults());
  SmallVector<Type> types;
  for (Value v : values)
    types.push_back(v.getType());
  SmallVector<DictionaryAttr> attrs(values.size(), DictionaryAttr());
  if (failed(fwd.insertResults(indices, types, attrs)))
    return failure();
  ret->insertOperands(ret->getNumOperands(), values);
  return args;
}

/// Erases the `pipe.update_state` operations of `fn`.
void eraseStateUpdates(func::FuncOp fn) {
  SmallVector<UpdateStateOp> updates;
  fn.walk([&](UpdateStateOp op) { updates.push_back(op); });
  for (UpdateStateOp op : updates)
    op.erase();
}

/// Replaces the `pipe.dropout` operations of `fn` by their inputs: an
/// inference step keeps dropout off.
void eraseDropout(func::FuncOp fn) {
  SmallVector<DropoutOp> dropouts;
  fn.walk([&](DropoutOp op) { dropouts.push_back(op); });
  for (DropoutOp op : dropouts) {
    op.replaceAllUsesWith(op.getInput());
    op.erase();
  }
}

/// Creates `@name(argTypes) -> (results)` after `after` from the operations
/// of `from` in `keep` (constants are copied where used): `inputs[i]` of
/// `from` becomes argument i.
func::FuncOp buildSlice(Block &from, ArrayRef<Value> inputs,
                        const DenseSet<Operation *> &keep,
                        ArrayRef<Value> results, StringRef name,
                        Operation *after, Location loc, SymbolTable &symbols) {
  SmallVector<Type> argTypes, resultTypes;
  for (Value v : inputs)
    argTypes.push_back(v.getType());
  for (Value v : results)
    resultTypes.push_back(v.getType());
  OpBuilder builder(after->getContext());
  builder.setInsertionPointAfter(after);
  auto fn = func::FuncOp::create(
      builder, loc, name, builder.getFunctionType(argTypes, resultTypes));
  fn.setPrivate();
  symbols.insert(fn);
  Block *entry = fn.addEntryBlock();
  IRMapping mapping;
  for (auto [input, arg] : llvm::zip_equal(inputs, entry->getArguments()))
    mapping.map(input, arg);
  builder.setInsertionPointToEnd(entry);
  for (Operation &op : from.without_terminator())
    if (keep.contains(&op) || isConstant(&op))
      builder.clone(op, mapping);
  SmallVector<Value> mapped;
  for (Value v : results)
    mapped.push_back(mapping.lookup(v));
  func::ReturnOp::create(builder, loc, mapped);
  eraseDeadOps(*entry);
  return fn;
}

/// The operations of `block` that `roots` depend on, constants excluded.
DenseSet<Operation *> backwardSlice(ArrayRef<Value> roots) {
  DenseSet<Operation *> slice;
  SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || isConstant(def) || !slice.insert(def).second)
      continue;
    llvm::append_range(work, def->getOperands());
  }
  return slice;
}

/// The two halves of a split backward and where each argument of the
/// weight half comes from (`pipe.wstash_args`).
struct SplitBackward {
  func::FuncOp input, weight;
  SmallVector<int64_t> wstashArgs;
};

/// Splits `bwd` into `@<stage>_bwd_input` and `@<stage>_bwd_weight`. A value
/// bwd_weight reads that is an argument of the backward is not returned by
/// bwd_input: the runtime hands bwd_weight that argument's own buffer
/// (`wstashArgs`), unless it is a state argument, which later forwards
/// overwrite.
SplitBackward buildSplit(func::FuncOp stage, func::FuncOp bwd,
                         ArrayRef<unsigned> gradArgs,
                         ArrayRef<int64_t> stateArgs, SymbolTable &symbols) {
  Block &body = bwd.getBody().front();
  Operation *ret = body.getTerminator();
  SmallVector<Value> inputGrads, weightGrads;
  for (auto [k, arg] : llvm::enumerate(gradArgs))
    (isParam(stage, arg) ? weightGrads : inputGrads)
        .push_back(ret->getOperand(k));

  DenseSet<Operation *> inputOps = backwardSlice(inputGrads);
  DenseSet<Operation *> weightOps;
  for (Operation *op : backwardSlice(weightGrads))
    if (!inputOps.contains(op))
      weightOps.insert(op);

  // Values bwd_weight reads that it does not compute.
  llvm::SetVector<Value> wstash;
  auto read = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (def && (weightOps.contains(def) || isConstant(def)))
      return;
    wstash.insert(v);
  };
  for (Operation &op : body.without_terminator())
    if (weightOps.contains(&op))
      llvm::for_each(op.getOperands(), read);
  llvm::for_each(weightGrads, read);

  std::string base = stage.getSymName().str();
  SmallVector<Value> inputResults(inputGrads);
  SmallVector<int64_t> wstashArgs;
  for (Value v : wstash) {
    auto arg = dyn_cast<BlockArgument>(v);
    bool passed = arg && arg.getOwner() == &body &&
                  !llvm::is_contained(stateArgs, int64_t(arg.getArgNumber()));
    wstashArgs.push_back(passed ? int64_t(arg.getArgNumber()) : int64_t(-1));
    if (!passed)
      inputResults.push_back(v);
  }
  SmallVector<Value> bwdArgs(body.getArguments());
  func::FuncOp input =
      buildSlice(body, bwdArgs, inputOps, inputResults, base + "_bwd_input",
                 bwd, bwd.getLoc(), symbols);
  for (unsigned i = 0; i < stage.getNumArguments(); ++i)
    if (DictionaryAttr attrs = stage.getArgAttrDict(i))
      input.setArgAttrs(i, attrs);
  func::FuncOp weight =
      buildSlice(body, wstash.getArrayRef(), weightOps, weightGrads,
                 base + "_bwd_weight", input, bwd.getLoc(), symbols);
  return {input, weight, std::move(wstashArgs)};
}

struct PipeAutodiffPass
    : public pipe::impl::PipeAutodiffBase<PipeAutodiffPass> {
  using PipeAutodiffBase::PipeAutodiffBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    splitBackward = split;
    if (fromSchedule) {
      FailureOr<ScheduledWork> work =
          readScheduledWork(module, "pipe-autodiff");
      if (failed(work))
        return signalPassFailure();
      if (!work->trains) {
        // A forward-only step updates no state and drops nothing.
        module.walk([](func::FuncOp fn) {
          if (getStage(fn) >= 0) {
            eraseStateUpdates(fn);
            eraseDropout(fn);
          }
        });
        return;
      }
      splitBackward = work->splitBackward;
    }
    const GradientRuleTable &rules = GradientRuleTable::getDefault();
    FailureOr<SmallVector<func::FuncOp>> stages = getStagesToDifferentiate(
        module, rules,
        ("pipe-autodiff: stage function already has '" +
         PipeDialect::FwdAttrHelper::getNameStr() +
         "'; it was differentiated before")
            .str());
    if (failed(stages))
      return signalPassFailure();

    SymbolTable symbols(module);
    for (func::FuncOp stage : *stages)
      if (failed(differentiate(stage, rules, symbols)))
        return signalPassFailure();
  }

  LogicalResult differentiate(func::FuncOp stage,
                              const GradientRuleTable &rules,
                              SymbolTable &symbols) {
    SmallVector<unsigned> gradArgs = differentiableArgs(stage);
    std::string base = stage.getSymName().str();
    FailureOr<BackwardFunction> bwd =
        buildBackward(stage, gradArgs, base + "_bwd", rules, symbols);
    if (failed(bwd))
      return failure();
    {
      // Rules recompute the same small values (constants are pooled
      // already); merge them before splitting.
      IRRewriter rewriter(stage.getContext());
      DominanceInfo dominance(bwd->func);
      eliminateCommonSubExpressions(rewriter, dominance, bwd->func);
    }
    FailureOr<func::FuncOp> fwd =
        buildForward(stage, bwd->stash, base + "_fwd", stage, symbols);
    if (failed(fwd))
      return failure();
    FailureOr<SmallVector<int64_t>> stateArgs = moveStateUpdates(*fwd);
    if (failed(stateArgs))
      return failure();
    eraseStateUpdates(stage);

    MLIRContext *ctx = stage.getContext();
    PipeDialect::FwdAttrHelper(ctx).setAttr(
        stage, FlatSymbolRefAttr::get(ctx, fwd->getSymName()));
    PipeDialect::BwdAttrHelper(ctx).setAttr(
        stage, FlatSymbolRefAttr::get(ctx, bwd->func.getSymName()));
    if (splitBackward) {
      SplitBackward split =
          buildSplit(stage, bwd->func, gradArgs, *stateArgs, symbols);
      PipeDialect::BwdInputAttrHelper(ctx).setAttr(
          stage, FlatSymbolRefAttr::get(ctx, split.input.getSymName()));
      PipeDialect::BwdWeightAttrHelper(ctx).setAttr(
          stage, FlatSymbolRefAttr::get(ctx, split.weight.getSymName()));
      PipeDialect::WstashArgsAttrHelper(ctx).setAttr(
          stage, DenseI64ArrayAttr::get(ctx, split.wstashArgs));
    }
    SmallVector<int64_t> indices(gradArgs.begin(), gradArgs.end());
    PipeDialect::GradArgsAttrHelper(ctx).setAttr(
        stage, DenseI64ArrayAttr::get(ctx, indices));
    if (!stateArgs->empty())
      PipeDialect::StateArgsAttrHelper(ctx).setAttr(
          stage, DenseI64ArrayAttr::get(ctx, *stateArgs));
    return success();
  }

  /// split, or what the sched.program asks for (from-schedule).
  bool splitBackward = false;
};

} // namespace
