//===- StageOps.cpp - The costed ops of a stage's functions ---------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The per-op work of a stage function as the cost model sees it (folded
// transposes, parameter operands, copies of returned arguments), and the
// backward pipe-autodiff would derive from a forward. StageCosts.cpp sums
// them into per-action durations.
//
//===----------------------------------------------------------------------===//

#include "StageOps.h"

#include "pipewave/Analysis/CostModel.h"
#include "pipewave/Analysis/StageCosts.h"
#include "pipewave/Conversion/MatmulChoice.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"
#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

#include "llvm/ADT/MapVector.h"

#include <functional>

using namespace mlir;
using namespace pipewave;
using namespace pipewave::stage_ops;

/// True if `value` is an argument of `fn`, or a view (a free op of one
/// operand, e.g. a reshape) of one: returning it copies it.
static bool isArgumentView(Value value) {
  for (int depth = 0; depth < 16; ++depth) {
    if (isa<BlockArgument>(value))
      return true;
    Operation *def = value.getDefiningOp();
    if (!def || def->getNumOperands() == 0)
      return false;
    FailureOr<OpCost> cost = getOpCost(def);
    if (failed(cost) || cost->kind != sim::OpClass::Free)
      return false;
    value = def->getOperand(0);
  }
  return false;
}

/// True if `op` is a tosa.transpose swapping the two innermost axes.
static bool swapsInnermostAxes(Operation *op) {
  auto transpose = dyn_cast_or_null<tosa::TransposeOp>(op);
  return transpose && swapsLastTwoAxes(transpose.getPerms());
}

/// True if the CPU lowering folds `op` into the matmul that reads it: a
/// transpose of the two innermost axes whose one use is a tosa.matmul
/// operand (the matmul reads its source transposed; MatmulUtils.h).
static bool isFoldedTranspose(Operation *op) {
  if (!swapsInnermostAxes(op) || !op->getResult(0).hasOneUse())
    return false;
  return isa<tosa::MatMulOp>(*op->getResult(0).getUsers().begin());
}

/// The arguments of `fn` marked pipe.param.
static ParamArgs markedParams(func::FuncOp fn) {
  ParamArgs params(fn.getNumArguments());
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
    params[i] = pipe::isParam(fn, i);
  return params;
}

/// The argument of `fn` that `value` is, or is a view or a transposed copy
/// of, if `params` says it holds a parameter; null otherwise.
static BlockArgument parameterRoot(func::FuncOp fn, const ParamArgs &params,
                                   Value value) {
  for (int depth = 0; depth < 16; ++depth) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == &fn.getBody().front() &&
          arg.getArgNumber() < params.size() && params[arg.getArgNumber()])
        return arg;
      return nullptr;
    }
    Operation *def = value.getDefiningOp();
    if (!def || def->getNumOperands() == 0)
      return nullptr;
    FailureOr<OpCost> cost = getOpCost(def);
    bool view = succeeded(cost) && cost->kind == sim::OpClass::Free;
    if (!view && !swapsInnermostAxes(def))
      return nullptr;
    value = def->getOperand(0);
  }
  return nullptr;
}

ParamArgs stage_ops::weightStashParams(func::FuncOp stage,
                                       func::FuncOp bwdWeight,
                                       func::FuncOp bwdInput) {
  ParamArgs params = markedParams(bwdWeight);
  auto ret =
      dyn_cast<func::ReturnOp>(bwdInput.getBody().back().getTerminator());
  SmallVector<int64_t> sources =
      pipe::getWStashArgs(stage, bwdWeight.getNumArguments());
  unsigned returned = llvm::count(sources, -1);
  if (!ret || ret.getNumOperands() < returned)
    return params;
  unsigned next = ret.getNumOperands() - returned;
  ParamArgs inputParams = markedParams(bwdInput);
  for (auto [j, k] : llvm::enumerate(sources)) {
    if (k >= 0)
      params[j] = params[j] || (static_cast<size_t>(k) < inputParams.size() &&
                                inputParams[k]);
    else if (parameterRoot(bwdInput, inputParams, ret.getOperand(next++)))
      params[j] = true;
  }
  return params;
}

/// True for the classes the lowering fuses element-wise.
static bool isElementwiseKind(sim::OpClass kind) {
  return kind == sim::OpClass::Elementwise ||
         kind == sim::OpClass::Transcendental;
}

/// True if `op` is costed as an element-wise op.
static bool isElementwiseOp(Operation *op) {
  FailureOr<OpCost> cost = getOpCost(op);
  return succeeded(cost) && isElementwiseKind(cost->kind);
}

/// True if `value` has users and each of them is element-wise, looking
/// through reshapes (views): the lowering's element-wise fusion then fuses
/// the op that makes `value` into them.
static bool usedOnlyElementwise(Value value, int depth = 0) {
  if (value.use_empty() || depth > 8)
    return false;
  for (Operation *user : value.getUsers()) {
    if (isa<tosa::ReshapeOp>(user)) {
      if (!usedOnlyElementwise(user->getResult(0), depth + 1))
        return false;
    } else if (!isElementwiseOp(user)) {
      return false;
    }
  }
  return true;
}

bool stage_ops::fusedIntoUsers(Operation *op, const OpCost &cost) {
  return isElementwiseKind(cost.kind) && op->getNumResults() == 1 &&
         usedOnlyElementwise(op->getResult(0));
}

/// The work of `op` in `fn` as a calibrated device prices it: a folded
/// transpose marked so, a matmul with its transposed operands and the
/// bytes of its parameter operands, an element-wise op whether it is fused
/// into its users.
static sim::OpWork calibratedWork(func::FuncOp fn, const ParamArgs &params,
                                  Operation *op, const OpCost &cost) {
  sim::OpWork work = cost.work();
  work.fusedIntoUsers = stage_ops::fusedIntoUsers(op, cost);
  if (isFoldedTranspose(op))
    work.folded = true;
  if (auto matmul = dyn_cast<tosa::MatMulOp>(op)) {
    work.transposedA = isFoldedTranspose(matmul.getA().getDefiningOp());
    work.transposedB = isFoldedTranspose(matmul.getB().getDefiningOp());
    for (Value operand : {matmul.getA(), matmul.getB()})
      if (parameterRoot(fn, params, operand))
        work.coldBytes += typeBytes(operand.getType());
  }
  return work;
}

std::vector<sim::OpWork> stage_ops::costedOps(func::FuncOp fn,
                                              std::optional<ParamArgs> params) {
  std::vector<sim::OpWork> ops;
  if (!fn)
    return ops;
  if (!params)
    params = markedParams(fn);
  fn.getBody().walk([&](Operation *op) {
    if (op->getNumRegions() > 0 || op->hasTrait<OpTrait::IsTerminator>())
      return;
    FailureOr<OpCost> cost = getOpCost(op);
    if (succeeded(cost) && cost->kind != sim::OpClass::Free)
      ops.push_back(calibratedWork(fn, *params, op, *cost));
  });
  if (auto ret = dyn_cast<func::ReturnOp>(fn.getBody().back().getTerminator()))
    for (Value result : ret.getOperands())
      if (isArgumentView(result)) {
        sim::OpWork copy;
        copy.kind = sim::OpClass::Copy;
        copy.bytes = typeBytes(result.getType());
        ops.push_back(copy);
      }
  return ops;
}

/// A transpose of `value` (swapping its two innermost axes).
static sim::OpWork transposeOf(Value value, bool fixedSize) {
  sim::OpWork work;
  work.kind = sim::OpClass::Transpose;
  work.bytes = 2 * typeBytes(value.getType());
  if (auto type = dyn_cast<RankedTensorType>(value.getType());
      type && type.hasStaticShape() && type.getRank() > 0) {
    work.n = static_cast<double>(std::max<int64_t>(type.getShape().back(), 1));
    work.m = static_cast<double>(type.getNumElements()) / work.n;
  }
  work.fixedSize = fixedSize;
  return work;
}

/// `ops` element-wise ops over `type`, each touching `tensors` tensors of it
/// (an add of two into a third: 3); `fixedSize` when the value does not
/// shrink with the microbatch.
static sim::OpWork elementwiseWork(ShapedType type, double ops, int tensors,
                                   bool fixedSize) {
  sim::OpWork work;
  work.kind = sim::OpClass::Elementwise;
  work.flops = ops * static_cast<double>(type.getNumElements());
  work.bytes = ops * tensors * typeBytes(type);
  work.fixedSize = fixedSize;
  return work;
}

/// The reductions GradientEmitter::sumToShape makes to bring a gradient of
/// type `from` to the shape of `to` (a broadcast operand): a reduce_sum over
/// each broadcast axis, outermost first.
static SmallVector<sim::OpWork> sumToShapeWork(ShapedType from, ShapedType to) {
  SmallVector<sim::OpWork> reductions;
  if (!from.hasStaticShape() || !to.hasStaticShape() || from == to)
    return reductions;
  SmallVector<int64_t> shape(from.getShape());
  double elementBytes =
      typeBytes(from) / std::max<double>(from.getNumElements(), 1);
  int64_t offset = from.getRank() - to.getRank();
  auto count = [](ArrayRef<int64_t> dims) {
    return static_cast<double>(ShapedType::getNumElements(dims));
  };
  for (int64_t d = 0; d < from.getRank(); ++d) {
    int64_t target = d < offset ? 1 : to.getDimSize(d - offset);
    if (target != 1 || shape[d] == 1)
      continue;
    double in = count(shape);
    sim::OpWork reduce;
    reduce.kind = count(ArrayRef<int64_t>(shape).drop_front(d + 1)) > 1
                      ? sim::OpClass::OuterReduction
                      : sim::OpClass::Reduction;
    shape[d] = 1;
    reduce.flops = in;
    reduce.bytes = (in + count(shape)) * elementBytes;
    reductions.push_back(reduce);
  }
  return reductions;
}

void pipewave::forEachDerivedBackwardOp(
    func::FuncOp fn,
    llvm::function_ref<void(Operation *, const sim::OpWork &, bool)> emit) {
  // Values that depend on a differentiated activation argument, on a
  // differentiated parameter, and on any non-parameter argument (data).
  llvm::DenseSet<Value> fromActivation, fromParam, fromData;
  Block &body = fn.getBody().front();
  ParamArgs params = markedParams(fn);
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
    if (!pipe::getParamArgAttr(fn, i))
      fromData.insert(body.getArgument(i));
  for (unsigned i : pipe::differentiableArgs(fn))
    (pipe::getParamArgAttr(fn, i) ? fromParam : fromActivation)
        .insert(body.getArgument(i));
  // A value inside a region (a pipe.recompute body) depends on what its
  // holder's operands depend on.
  auto holderOf = [](Value v) -> Operation * {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg ? arg.getOwner()->getParentOp() : nullptr;
  };
  std::function<bool(const llvm::DenseSet<Value> &, Value)> in =
      [&](const llvm::DenseSet<Value> &set, Value v) {
        if (set.contains(v))
          return true;
        Operation *holder = holderOf(v);
        return holder && holder != fn.getOperation() &&
               llvm::any_of(holder->getOperands(),
                            [&](Value o) { return in(set, o); });
      };
  auto propagate = [&](Operation *op, llvm::DenseSet<Value> &set) {
    bool any =
        llvm::any_of(op->getOperands(), [&](Value o) { return in(set, o); });
    if (!any && op->getNumRegions() > 0)
      op->walk([&](Operation *inner) {
        any |= inner != op && llvm::any_of(inner->getResults(), [&](Value r) {
                 return set.contains(r);
               });
      });
    if (any)
      set.insert(op->result_begin(), op->result_end());
  };

  auto differentiated = [&](Value v) {
    return isa<ShapedType>(v.getType()) &&
           (in(fromActivation, v) || in(fromParam, v));
  };
  // The gradient terms each differentiated value receives (one per use that
  // differentiates it, one for a returned value): pipe-autodiff adds the
  // terms of a value used more than once. A region's argument stands for
  // its holder's operand (a pipe.recompute body).
  auto canonical = [&](Value v) {
    for (int depth = 0; depth < 16; ++depth) {
      Operation *holder = holderOf(v);
      if (!holder || holder == fn.getOperation())
        return v;
      unsigned index = cast<BlockArgument>(v).getArgNumber();
      if (index >= holder->getNumOperands())
        return v;
      v = holder->getOperand(index);
    }
    return v;
  };
  llvm::MapVector<Value, unsigned> terms;
  auto countTerms = [&](Operation *op) {
    bool returns = op == body.getTerminator();
    if (!returns && !llvm::any_of(op->getResults(), differentiated))
      return;
    for (Value operand : op->getOperands())
      if (differentiated(operand))
        ++terms[canonical(operand)];
  };

  // Post-order: a region's ops before their holder, each block in order.
  fn.getBody().walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::IsTerminator>()) {
      if (op == body.getTerminator())
        countTerms(op);
      return;
    }
    propagate(op, fromActivation);
    propagate(op, fromParam);
    propagate(op, fromData);
    if (op->getNumRegions() > 0)
      return;
    countTerms(op);
    FailureOr<OpCost> cost = getOpCost(op);
    if (failed(cost) || cost->kind == sim::OpClass::Free)
      return;
    auto sink = [&](Value v, const sim::OpWork &work) {
      emit(op, work, in(fromActivation, v));
    };
    if (auto matmul = dyn_cast<tosa::MatMulOp>(op)) {
      // The rule of GradientRules/Matmul.cpp: dA = dY . B^T, dB = A^T . dY,
      // each with a transposed copy of the other operand, which the CPU
      // lowering folds into the matmul (OpWork::folded).
      Value a = matmul.getA(), b = matmul.getB();
      auto coldBytes = [&](Value v) {
        return parameterRoot(fn, params, v) ? typeBytes(v.getType()) : 0.0;
      };
      if (differentiated(a)) {
        sim::OpWork dA = cost->work();
        dA.k = cost->n;
        dA.n = cost->k;
        dA.transposedB = true;
        dA.coldBytes = coldBytes(b);
        sim::OpWork bT = transposeOf(b, !in(fromData, b));
        bT.folded = true;
        sink(a, bT);
        sink(a, dA);
      }
      if (differentiated(b)) {
        sim::OpWork dB = cost->work();
        dB.m = cost->k;
        dB.k = cost->m;
        dB.transposedA = true;
        dB.coldBytes = coldBytes(a);
        sim::OpWork aT = transposeOf(a, !in(fromData, a));
        aT.folded = true;
        sink(b, aT);
        sink(b, dB);
      }
      return;
    }
    // tosa.add, sub and mul as GradientRules/Elementwise.cpp differentiates
    // them: dY itself for an add's or sub's operand (a negation for a sub's
    // second), dY times the other operand for a mul's; an operand that was
    // broadcast gets its gradient summed back to its shape.
    if (isa<tosa::AddOp, tosa::SubOp, tosa::MulOp>(op)) {
      auto result = dyn_cast<ShapedType>(op->getResult(0).getType());
      for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
        auto type = dyn_cast<ShapedType>(operand.getType());
        if (i > 1 || !differentiated(operand) || !result || !type)
          continue;
        if (isa<tosa::MulOp>(op))
          sink(operand, cost->work());
        for (const sim::OpWork &reduce : sumToShapeWork(result, type))
          sink(operand, reduce);
        if (isa<tosa::SubOp>(op) && i == 1 && type.hasStaticShape())
          sink(operand, elementwiseWork(type, 1, 2, !in(fromData, operand)));
      }
      return;
    }
    // Any other op: one forward's worth of work per differentiated operand
    // (a transcendental's derivative is element-wise arithmetic: about 3
    // flops an element, e.g. tanh's dY (1 - t^2); erf's, sin's and cos's
    // also evaluate one exp, cos or sin: 8 flops an element).
    sim::OpWork work = cost->work();
    std::optional<sim::OpWork> evaluation;
    if (work.kind == sim::OpClass::Transcendental) {
      double elements = 0;
      for (Type type : op->getResultTypes())
        if (auto shaped = dyn_cast<ShapedType>(type);
            shaped && shaped.hasStaticShape())
          elements += static_cast<double>(shaped.getNumElements());
      if (isa<tosa::ErfOp, tosa::SinOp, tosa::CosOp>(op)) {
        evaluation = work;
        evaluation->flops = 8 * elements;
        evaluation->function = isa<tosa::ErfOp>(op)   ? "exp"
                               : isa<tosa::SinOp>(op) ? "cos"
                                                      : "sin";
      }
      work.function.clear();
      work.kind = sim::OpClass::Elementwise;
      work.flops = 3 * elements;
    }
    for (Value operand : op->getOperands())
      if (differentiated(operand)) {
        if (evaluation)
          sink(operand, *evaluation);
        sink(operand, work);
      }
  });

  // The adds of the terms of each value used more than once, charged to the
  // op that defines it (or, for an argument, its first user); a value made
  // from parameters alone keeps its size when the batch is split.
  for (auto [value, count] : terms) {
    if (count < 2)
      continue;
    auto type = dyn_cast<ShapedType>(value.getType());
    if (!type || !type.hasStaticShape())
      continue;
    Operation *owner = value.getDefiningOp();
    if (!owner)
      for (Operation &op : body.without_terminator())
        if (llvm::is_contained(op.getOperands(), value)) {
          owner = &op;
          break;
        }
    if (!owner)
      continue;
    emit(owner, elementwiseWork(type, count - 1, 3, !in(fromData, value)),
         in(fromActivation, value));
  }
}

/// True if `value` (a result of a backward function) is made by a
/// tosa.matmul or tosa.reduce_sum through tosa.reshapes, each used once.
static bool madeByAccumulatingOp(Value value) {
  for (int depth = 0; depth < 16; ++depth) {
    if (!value.hasOneUse())
      return false;
    Operation *def = value.getDefiningOp();
    if (isa_and_nonnull<tosa::MatMulOp, tosa::ReduceSumOp>(def))
      return true;
    if (!isa_and_nonnull<tosa::ReshapeOp>(def))
      return false;
    value = def->getOperand(0);
  }
  return false;
}

bool stage_ops::gradientAddsInPlace(func::FuncOp stage, unsigned arg) {
  auto gradArgs = stage->getAttrOfType<DenseI64ArrayAttr>(
      pipe::PipeDialect::GradArgsAttrHelper::getNameStr());
  auto bwdRef = stage->getAttrOfType<FlatSymbolRefAttr>(
      pipe::PipeDialect::BwdAttrHelper::getNameStr());
  if (bwdRef && gradArgs) {
    auto bwd =
        SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(stage, bwdRef);
    if (!bwd || bwd.isExternal())
      return false;
    auto ret = dyn_cast<func::ReturnOp>(bwd.getBody().back().getTerminator());
    for (auto [k, index] : llvm::enumerate(gradArgs.asArrayRef()))
      if (index == static_cast<int64_t>(arg))
        return ret && k < ret.getNumOperands() &&
               madeByAccumulatingOp(ret.getOperand(k));
    return false;
  }
  // Before pipe-autodiff: a weight's gradient is a matmul, a broadcast
  // operand's (a bias, a scale) a sum over the broadcast dimensions. A
  // sub's second operand negates that sum after it, so the runtime adds it.
  Value param = stage.getArgument(arg);
  if (!param.hasOneUse())
    return false;
  Operation *user = *param.getUsers().begin();
  if (isa<tosa::MatMulOp>(user))
    return true;
  if (auto sub = dyn_cast<tosa::SubOp>(user); sub && sub.getInput2() == param)
    return false;
  if (isa<tosa::AddOp, tosa::SubOp, tosa::MulOp>(user))
    return param.getType() != user->getResult(0).getType();
  return false;
}
