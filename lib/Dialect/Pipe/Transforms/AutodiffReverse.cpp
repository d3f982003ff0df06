//===- AutodiffReverse.cpp - Reverse mode on one stage function -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Builds the backward function of one stage function:
//
//  1. The stage body is flattened: operations nested in `pipe.recompute` are
//     treated as if they were written in place, and each result of a
//     `pipe.recompute` stands for the value its `pipe.yield` gives.
//  2. Activity analysis: a value is *varied* if it is a float tensor that
//     depends on a differentiated argument, *useful* if it reaches a float
//     result of the stage. Only operations with a varied and useful
//     (*active*) result are differentiated; only they need a rule.
//  3. The operations are visited in reverse program order; each active one
//     hands the cotangents of its results to its rule, which emits the
//     cotangents of its operands; cotangents reaching one value are added.
//  4. Forward values a rule reads (`GradientEmitter::primal`) come from the
//     arguments (every stage argument is a backward argument), are
//     rematerialised (constants), recomputed (values of `pipe.recompute`
//     bodies, from their inputs, and free reshapes / identities of other
//     values) or stashed: the forward function returns them and the backward
//     receives them as arguments. While the body is being built a stashed
//     value is a placeholder; once dead code is gone the placeholders that
//     are still used become the stash arguments, in program order.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Analysis/CostModel.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Transforms/GradientRules.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace pipewave;
using namespace pipewave::pipe;
using namespace pipewave::pipe::autodiff;

namespace {

/// Operands of `op` and the values its regions use from above.
SmallVector<Value> inputsOf(Operation *op) {
  SmallVector<Value> inputs(op->getOperands());
  if (op->getNumRegions() != 0) {
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(op->getRegions(), above);
    inputs.append(above.begin(), above.end());
  }
  return inputs;
}

/// The flattened stage body and its activity.
struct ForwardInfo {
  Block *body = nullptr;
  /// Operations in program order, `pipe.recompute` bodies inlined.
  SmallVector<Operation *> ops;
  /// Result of a `pipe.recompute` -> the value yielded for it.
  DenseMap<Value, Value> alias;
  /// Operations nested in a `pipe.recompute`.
  DenseSet<Operation *> recomputed;
  DenseSet<Value> varied, useful;

  Value canon(Value v) const {
    for (auto it = alias.find(v); it != alias.end(); it = alias.find(v))
      v = it->second;
    return v;
  }
  bool isVaried(Value v) const { return varied.contains(canon(v)); }
  bool isActive(Operation *op) const {
    return llvm::any_of(op->getResults(), [&](Value r) {
      return varied.contains(r) && useful.contains(r);
    });
  }

  void flatten(Block &block, bool inRecompute) {
    for (Operation &op : block.without_terminator()) {
      if (auto recompute = dyn_cast<RecomputeOp>(op)) {
        Block &inner = recompute.getBody().front();
        flatten(inner, /*inRecompute=*/true);
        for (auto [result, yielded] : llvm::zip_equal(
                 recompute.getResults(), inner.getTerminator()->getOperands()))
          alias[result] = yielded;
        continue;
      }
      ops.push_back(&op);
      if (inRecompute)
        recomputed.insert(&op);
    }
  }

  ForwardInfo(func::FuncOp stage, ArrayRef<unsigned> gradArgs) {
    body = &stage.getBody().front();
    flatten(*body, /*inRecompute=*/false);
    for (unsigned arg : gradArgs)
      varied.insert(body->getArgument(arg));
    for (Operation *op : ops) {
      if (llvm::none_of(inputsOf(op),
                        [&](Value v) { return varied.contains(canon(v)); }))
        continue;
      for (Value result : op->getResults())
        if (isFloatTensor(result.getType()))
          varied.insert(result);
    }
    for (Value v : body->getTerminator()->getOperands())
      if (isFloatTensor(v.getType()))
        useful.insert(canon(v));
    for (Operation *op : llvm::reverse(ops)) {
      if (llvm::none_of(op->getResults(),
                        [&](Value r) { return useful.contains(r); }))
        continue;
      for (Value v : inputsOf(op))
        if (isFloatTensor(v.getType()))
          useful.insert(canon(v));
    }
  }
};

bool isStatic(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape();
}

/// Erases the operations of `block` without uses or side effects, except
/// `keep`.
void eraseDeadOps(Block &block, const DenseSet<Operation *> &keep = {}) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (!keep.contains(&op) && isOpTriviallyDead(&op))
      op.erase();
}

/// Builds the body of one backward function.
class ReverseBuilder {
public:
  ReverseBuilder(ForwardInfo &info, func::FuncOp bwd,
                 const GradientRuleTable &rules)
      : info(info), bwd(bwd), entry(&bwd.getBody().front()), pool(entry),
        builder(bwd.getContext()), rules(rules) {
    for (BlockArgument arg : info.body->getArguments())
      mapping.map(arg, entry->getArgument(arg.getArgNumber()));
  }

  /// The backward value of the forward value `v`.
  Value primal(Value v) {
    v = info.canon(v);
    if (Value mapped = mapping.lookupOrNull(v))
      return mapped;
    Operation *def = v.getDefiningOp();
    assert(def && "stage arguments are mapped up front");
    if (isConstant(def)) {
      mapping.map(def->getResults(), pool.materialize(def));
      return mapping.lookup(v);
    }
    if (info.recomputed.contains(def) ||
        isa<tosa::ReshapeOp, tosa::IdentityOp>(def) ||
        !isa<TensorType>(v.getType())) {
      for (Value input : inputsOf(def)) {
        Value p = primal(input);
        if (!mapping.contains(input))
          mapping.map(input, p);
      }
      Operation *copy = builder.clone(*def, mapping);
      mapping.map(def->getResults(), copy->getResults());
      return mapping.lookup(v);
    }
    // Stashed: a placeholder until the stash is final.
    OpBuilder top(entry, entry->begin());
    auto placeholder = UnrealizedConversionCastOp::create(
        top, def->getLoc(), v.getType(), ValueRange{});
    placeholders.insert(placeholder);
    stash.push_back({v, placeholder});
    mapping.map(v, placeholder.getResult(0));
    return placeholder.getResult(0);
  }

  void accumulate(Value v, Value grad, Location loc) {
    v = info.canon(v);
    Value &slot = adjoints[v];
    if (!slot) {
      slot = grad;
      return;
    }
    GradientEmitter e(builder, loc, pool, [&](Value x) { return primal(x); });
    slot = e.add(slot, grad);
  }

  LogicalResult build(func::FuncOp stage, ArrayRef<unsigned> gradArgs) {
    builder.setInsertionPointToEnd(entry);
    // Seed the cotangents of the float results.
    unsigned next = stage.getNumArguments();
    for (Value result : info.body->getTerminator()->getOperands()) {
      if (!isFloatTensor(result.getType()))
        continue;
      Value seed = entry->getArgument(next++);
      if (info.isVaried(result))
        accumulate(result, seed, stage.getLoc());
    }

    for (Operation *op : llvm::reverse(info.ops)) {
      if (!info.isActive(op))
        continue;
      SmallVector<Value> dResults;
      for (Value result : op->getResults())
        dResults.push_back(adjoints.lookup(result));
      if (llvm::all_of(dResults, [](Value g) { return !g; }))
        continue;
      SmallVector<bool> needed;
      for (Value operand : op->getOperands())
        needed.push_back(isFloatTensor(operand.getType()) &&
                         info.isVaried(operand));
      if (llvm::none_of(needed, [](bool b) { return b; }))
        continue;
      const GradientRule *rule = rules.lookup(op->getName().getStringRef());
      if (!rule)
        return op->emitError() << "pipe-autodiff: no gradient rule for '"
                               << op->getName() << "'";
      builder.setInsertionPointToEnd(entry);
      GradientEmitter e(builder, op->getLoc(), pool,
                        [&](Value x) { return primal(x); });
      SmallVector<Value> dOperands(op->getNumOperands());
      if (failed((*rule)(op, e, dResults, needed, dOperands)))
        return failure();
      for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
        if (!needed[i] || !dOperands[i])
          continue;
        if (dOperands[i].getType() != operand.getType())
          return op->emitError()
                 << "pipe-autodiff: the gradient rule of '" << op->getName()
                 << "' gave type " << dOperands[i].getType() << " for operand #"
                 << i << " of type " << operand.getType();
        accumulate(operand, dOperands[i], op->getLoc());
      }
    }

    builder.setInsertionPointToEnd(entry);
    GradientEmitter e(builder, stage.getLoc(), pool,
                      [&](Value x) { return primal(x); });
    SmallVector<Value> grads;
    for (unsigned arg : gradArgs) {
      Value grad = adjoints.lookup(info.body->getArgument(arg));
      grads.push_back(grad ? grad
                           : e.zeros(info.body->getArgument(arg).getType()));
    }
    func::ReturnOp::create(builder, stage.getLoc(), grads);
    return success();
  }

  /// Removes dead code and turns the used placeholders into the stash
  /// arguments (after the stage arguments), in program order.
  FailureOr<SmallVector<Value>> finalizeStash(func::FuncOp stage) {
    eraseDeadOps(*entry, placeholders);
    DenseMap<Operation *, unsigned> position;
    stage.walk<WalkOrder::PreOrder>(
        [&](Operation *op) { position[op] = position.size(); });
    SmallVector<std::pair<Value, Operation *>> used;
    for (auto [value, placeholder] : stash) {
      if (placeholder->use_empty())
        placeholder->erase();
      else
        used.push_back({value, placeholder});
    }
    llvm::stable_sort(used, [&](const auto &a, const auto &b) {
      auto ra = cast<OpResult>(a.first), rb = cast<OpResult>(b.first);
      if (ra.getOwner() != rb.getOwner())
        return position[ra.getOwner()] < position[rb.getOwner()];
      return ra.getResultNumber() < rb.getResultNumber();
    });
    // All stash arguments in one signature update (one at a time would
    // rebuild the function type per argument: quadratic in the stash).
    SmallVector<Value> values;
    unsigned base = stage.getNumArguments();
    SmallVector<unsigned> indices(used.size(), base);
    SmallVector<Type> types;
    SmallVector<DictionaryAttr> attrs(used.size(), DictionaryAttr());
    SmallVector<Location> locs;
    for (auto [value, placeholder] : used) {
      types.push_back(value.getType());
      locs.push_back(value.getLoc());
    }
    if (failed(bwd.insertArguments(indices, types, attrs, locs)))
      return failure();
    for (auto [k, entryPair] : llvm::enumerate(used)) {
      auto [value, placeholder] = entryPair;
      placeholder->getResult(0).replaceAllUsesWith(
          entry->getArgument(base + k));
      placeholder->erase();
      values.push_back(value);
    }
    return values;
  }

private:
  ForwardInfo &info;
  func::FuncOp bwd;
  Block *entry;
  ConstantPool pool;
  OpBuilder builder;
  const GradientRuleTable &rules;
  IRMapping mapping;
  DenseMap<Value, Value> adjoints;
  SmallVector<std::pair<Value, Operation *>> stash;
  DenseSet<Operation *> placeholders;
};

} // namespace

bool pipewave::pipe::autodiff::isConstant(Operation *op) {
  return op && (isFreeConstant(op) || op->hasTrait<OpTrait::ConstantLike>());
}

LogicalResult
pipewave::pipe::autodiff::verifyDifferentiable(func::FuncOp stage,
                                               ArrayRef<unsigned> gradArgs,
                                               const GradientRuleTable &rules) {
  if (stage.isExternal())
    return stage.emitError() << "pipe-autodiff: stage function has no body";
  if (!stage.getBody().hasOneBlock())
    return stage.emitError()
           << "pipe-autodiff: stage function body must be a single block";
  for (auto [i, type] : llvm::enumerate(stage.getArgumentTypes()))
    if (!isStatic(type))
      return stage.emitError()
             << "pipe-autodiff: argument #" << i << " of stage function has "
             << "type " << type << "; stage arguments must be statically "
             << "shaped tensors";
  for (auto [i, type] : llvm::enumerate(stage.getResultTypes()))
    if (!isStatic(type))
      return stage.emitError()
             << "pipe-autodiff: result #" << i << " of stage function has "
             << "type " << type << "; stage results must be statically "
             << "shaped tensors";

  ForwardInfo info(stage, gradArgs);
  bool ok = true;
  for (Operation *op : info.ops) {
    if (!info.isActive(op))
      continue;
    if (!rules.lookup(op->getName().getStringRef())) {
      op->emitError() << "pipe-autodiff: no gradient rule for '"
                      << op->getName() << "'";
      ok = false;
      continue;
    }
    for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (isa<TensorType>(v.getType()) && !isStatic(v.getType())) {
        op->emitError() << "pipe-autodiff: '" << op->getName()
                        << "' has a dynamically shaped tensor of type "
                        << v.getType() << "; shapes must be static";
        ok = false;
        break;
      }
  }
  return success(ok);
}

FailureOr<BackwardFunction> pipewave::pipe::autodiff::buildBackward(
    func::FuncOp stage, ArrayRef<unsigned> gradArgs, StringRef name,
    const GradientRuleTable &rules, SymbolTable &symbols) {
  ForwardInfo info(stage, gradArgs);

  SmallVector<Type> argTypes(stage.getArgumentTypes());
  for (Type type : stage.getResultTypes())
    if (isFloatTensor(type))
      argTypes.push_back(type);
  SmallVector<Type> resultTypes;
  for (unsigned arg : gradArgs)
    resultTypes.push_back(stage.getArgument(arg).getType());

  OpBuilder builder(stage.getContext());
  builder.setInsertionPointAfter(stage);
  auto bwd =
      func::FuncOp::create(builder, stage.getLoc(), name,
                           builder.getFunctionType(argTypes, resultTypes));
  bwd.setPrivate();
  symbols.insert(bwd);
  bwd.addEntryBlock();
  for (unsigned i = 0; i < stage.getNumArguments(); ++i)
    if (DictionaryAttr attrs = stage.getArgAttrDict(i))
      bwd.setArgAttrs(i, attrs);

  ReverseBuilder reverse(info, bwd, rules);
  if (failed(reverse.build(stage, gradArgs))) {
    symbols.erase(bwd);
    return failure();
  }
  FailureOr<SmallVector<Value>> stash = reverse.finalizeStash(stage);
  if (failed(stash)) {
    symbols.erase(bwd);
    return failure();
  }
  return BackwardFunction{bwd, *stash};
}
