//===- OutlineStages.cpp - pipe-outline-stages: one function per stage ----===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Moves each stage of the partitioned entry function into its own function
// and rewrites the entry into the composition of the stage calls. Values that
// skip stages are forwarded through the stages in between, so every stage
// receives only from its predecessor and sends only to its successor.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Analysis/CostModel.h"
#include "pipewave/Dialect/Pipe/Transforms/Passes.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace pipewave::pipe {
#define GEN_PASS_DEF_PIPEOUTLINESTAGES
#include "pipewave/Dialect/Pipe/Transforms/Passes.h.inc"
} // namespace pipewave::pipe

using namespace mlir;
using namespace pipewave;
using namespace pipewave::pipe;

namespace {

/// What each stage of the entry function reads, computes and passes on.
struct StagePlan {
  /// Operations of each stage in program order (constants excluded).
  SmallVector<SmallVector<Operation *>> ops;
  /// Constants each stage needs a copy of, in program order.
  SmallVector<llvm::SetVector<Operation *>> constants;
  /// Entry arguments each stage reads, by argument number.
  SmallVector<llvm::SetVector<unsigned>> args;
  /// Values crossing the cut after stage k (k = 0..S-2), in definition
  /// order. They are the results of stage k and the trailing arguments of
  /// stage k+1.
  SmallVector<SmallVector<Value>> crossing;
};

/// Collects the entry operations that a use inside `op` (or its regions)
/// reads from the entry block: arguments and constants.
void collectInputs(Operation *op, Block &body, int64_t stage, StagePlan &plan) {
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(operand)) {
        if (arg.getOwner() == &body)
          plan.args[stage].insert(arg.getArgNumber());
        continue;
      }
      Operation *def = operand.getDefiningOp();
      if (def && def->getBlock() == &body && isFreeConstant(def))
        plan.constants[stage].insert(def);
    }
  });
}

FailureOr<StagePlan> planStages(func::FuncOp fn) {
  Block &body = fn.getBody().front();
  int64_t numStages = 0;
  for (Operation &op : body.without_terminator()) {
    if (isa<SplitOp>(op))
      return op.emitError() << "pipe-outline-stages: pipe.split markers are "
                               "still present; run pipe-partition first";
    int64_t stage = getStage(&op);
    if (stage < 0 && !isFreeConstant(&op))
      return op.emitError() << "pipe-outline-stages: operation has no "
                            << PipeDialect::StageAttrHelper::getNameStr()
                            << "; run pipe-partition first";
    numStages = std::max(numStages, stage + 1);
  }
  if (numStages == 0)
    return fn.emitError() << "pipe-outline-stages: the entry function has no "
                             "staged operations";

  StagePlan plan;
  plan.ops.resize(numStages);
  plan.constants.resize(numStages);
  plan.args.resize(numStages);
  plan.crossing.resize(numStages - 1);

  // Last stage that uses each value defined in the entry block; the return
  // counts as a use in the last stage.
  llvm::MapVector<Value, int64_t> lastUse;
  auto noteUse = [&](Value value, int64_t stage) {
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != &body || isFreeConstant(def))
      return;
    auto [it, inserted] = lastUse.try_emplace(value, stage);
    if (!inserted)
      it->second = std::max(it->second, stage);
  };

  for (Operation &op : body) {
    bool isReturn = &op == body.getTerminator();
    if (!isReturn && isFreeConstant(&op))
      continue;
    int64_t stage = isReturn ? numStages - 1 : getStage(&op);
    if (!isReturn)
      plan.ops[stage].push_back(&op);
    collectInputs(&op, body, stage, plan);
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        noteUse(operand, stage);
    });
  }

  // Values are listed in definition order because the walk above visits
  // definitions before uses and MapVector keeps insertion order; sort by
  // program position to be explicit about determinism.
  SmallVector<std::pair<Value, int64_t>> uses(lastUse.begin(), lastUse.end());
  llvm::stable_sort(uses, [](const auto &a, const auto &b) {
    Operation *x = a.first.getDefiningOp(), *y = b.first.getDefiningOp();
    if (x != y)
      return x->isBeforeInBlock(y);
    return cast<OpResult>(a.first).getResultNumber() <
           cast<OpResult>(b.first).getResultNumber();
  });
  for (auto [value, last] : uses) {
    int64_t def = getStage(value.getDefiningOp());
    if (last < def)
      continue; // Cannot happen after pipe-partition's order check.
    for (int64_t k = def; k < last; ++k)
      plan.crossing[k].push_back(value);
  }
  for (auto [value, last] : uses)
    if (getStage(value.getDefiningOp()) > last)
      return value.getDefiningOp()->emitError()
             << "pipe-outline-stages: a value of stage "
             << getStage(value.getDefiningOp()) << " is used by stage " << last
             << "; a stage only consumes values of itself or earlier stages";
  return plan;
}

struct PipeOutlineStagesPass
    : public pipe::impl::PipeOutlineStagesBase<PipeOutlineStagesPass> {
  using PipeOutlineStagesBase::PipeOutlineStagesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp fn = lookupEntry(module, entry, "pipe-outline-stages");
    if (!fn)
      return signalPassFailure();
    FailureOr<StagePlan> plan = planStages(fn);
    if (failed(plan))
      return signalPassFailure();

    Block &body = fn.getBody().front();
    auto returnOp = cast<func::ReturnOp>(body.getTerminator());
    int64_t numStages = plan->ops.size();
    SymbolTable symbols(module);
    OpBuilder builder(module.getContext());

    // The entry's value for each crossing value after the previous call.
    IRMapping composed;
    SmallVector<func::CallOp> calls;
    builder.setInsertionPoint(returnOp);
    for (int64_t k = 0; k < numStages; ++k) {
      func::FuncOp stageFn = outlineStage(fn, *plan, k, builder, symbols);
      builder.setInsertionPoint(returnOp);
      SmallVector<Value> operands;
      for (unsigned arg : plan->args[k])
        operands.push_back(fn.getArgument(arg));
      if (k > 0)
        for (Value value : plan->crossing[k - 1])
          operands.push_back(composed.lookup(value));
      auto call = func::CallOp::create(builder, fn.getLoc(), stageFn, operands);
      calls.push_back(call);
      if (k + 1 < numStages)
        for (auto [value, result] :
             llvm::zip_equal(plan->crossing[k], call.getResults()))
          composed.map(value, result);
    }
    // The last call returns the entry's results.
    returnOp->setOperands(calls.back().getResults());

    // Erase the original operations, users before definitions.
    for (Operation &op :
         llvm::make_early_inc_range(llvm::reverse(body.getOperations()))) {
      if (&op == returnOp.getOperation() || isa<func::CallOp>(op))
        continue;
      op.erase();
    }
  }

  /// Creates `@<entry>_stage<k>` holding the operations of stage `k`.
  func::FuncOp outlineStage(func::FuncOp fn, StagePlan &plan, int64_t k,
                            OpBuilder &builder, SymbolTable &symbols) {
    Block &body = fn.getBody().front();
    bool last = k + 1 == static_cast<int64_t>(plan.ops.size());
    SmallVector<Type> argTypes, resultTypes;
    SmallVector<DictionaryAttr> argAttrs;
    for (unsigned arg : plan.args[k]) {
      argTypes.push_back(fn.getArgument(arg).getType());
      argAttrs.push_back(fn.getArgAttrDict(arg));
    }
    if (k > 0)
      for (Value value : plan.crossing[k - 1]) {
        argTypes.push_back(value.getType());
        argAttrs.push_back(nullptr);
      }
    SmallVector<Value> results;
    if (last)
      llvm::append_range(results, body.getTerminator()->getOperands());
    else
      results.assign(plan.crossing[k].begin(), plan.crossing[k].end());
    for (Value value : results)
      resultTypes.push_back(value.getType());

    builder.setInsertionPoint(fn);
    std::string name = (fn.getSymName() + "_stage" + Twine(k)).str();
    auto stageFn =
        func::FuncOp::create(builder, fn.getLoc(), name,
                             builder.getFunctionType(argTypes, resultTypes));
    stageFn.setPrivate();
    setStage(stageFn, k);
    symbols.insert(stageFn); // Renames on a clash.
    Block *entryBlock = stageFn.addEntryBlock();
    for (auto [i, attrs] : llvm::enumerate(argAttrs))
      if (attrs)
        stageFn.setArgAttrs(i, attrs);

    IRMapping mapping;
    unsigned argNo = 0;
    for (unsigned arg : plan.args[k])
      mapping.map(fn.getArgument(arg), entryBlock->getArgument(argNo++));
    if (k > 0)
      for (Value value : plan.crossing[k - 1])
        mapping.map(value, entryBlock->getArgument(argNo++));

    builder.setInsertionPointToStart(entryBlock);
    for (Operation *constant : plan.constants[k]) {
      Operation *copy = builder.clone(*constant, mapping);
      copy->removeAttr(PipeDialect::StageAttrHelper::getNameStr());
    }
    for (Operation *op : plan.ops[k]) {
      Operation *copy = builder.clone(*op, mapping);
      copy->removeAttr(PipeDialect::StageAttrHelper::getNameStr());
    }
    SmallVector<Value> mapped;
    for (Value value : results)
      mapped.push_back(mapping.lookupOrDefault(value));
    func::ReturnOp::create(builder, fn.getLoc(), mapped);
    return stageFn;
  }
};

} // namespace
