//===- AccumulateGradients.cpp - pipe-accumulate-gradients ----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Gives the backward (`pipe.bwd`) and weight-gradient (`pipe.bwd_weight`)
// function of every stage an accumulating variant: a copy that adds each
// parameter gradient it can to the value its caller passes in, instead of
// writing it into a zero-filled buffer. The runtime calls the variant for
// every microbatch of a step after the first, passing the gradient
// accumulator itself, so a weight gradient is one GEMM with beta = 1 on the
// accumulator instead of a GEMM into a temporary and a pass adding it.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"

#include "MatmulUtils.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"
#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace pipewave {
#define GEN_PASS_DEF_PIPEACCUMULATEGRADIENTS
#include "pipewave/Conversion/Passes.h.inc"
} // namespace pipewave

using namespace mlir;
using namespace pipewave;

namespace {

/// A linalg op that adds its result to its init: a plain matmul or batch
/// matmul (C += A B), or a generic whose payload uses the init's element
/// only as one operand of the float add it yields.
bool addsToItsInit(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op->getNumResults() != 1)
    return false;
  if (isPlainF32Matmul(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic)
    return false;
  Block &body = generic.getRegion().front();
  BlockArgument out = body.getArguments().back();
  if (!out.hasOneUse())
    return false;
  auto add = dyn_cast<arith::AddFOp>(*out.getUsers().begin());
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  return add && yield && yield->getNumOperands() == 1 &&
         yield->getOperand(0) == add.getResult() && add->hasOneUse();
}

bool isReshape(Operation *op) {
  return isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op);
}

/// How result `value` of a function is made when it can accumulate: through
/// reshapes (`reshapes`, from the result back) from an op that adds to its
/// init, whose init is a zero fill (through reshapes of its own).
struct Accumulation {
  SmallVector<Operation *> reshapes;
  linalg::LinalgOp producer;
};

std::optional<Accumulation> findAccumulation(Value value) {
  Accumulation found;
  // The returned value and everything between it and the producer are used
  // once (by the return, by the next reshape): nothing else sees them.
  if (!value.hasOneUse())
    return std::nullopt;
  Operation *def = value.getDefiningOp();
  while (isReshape(def)) {
    found.reshapes.push_back(def);
    value = def->getOperand(0);
    if (!value.hasOneUse())
      return std::nullopt;
    def = value.getDefiningOp();
  }
  auto producer = dyn_cast_or_null<linalg::LinalgOp>(def);
  if (!producer || !addsToItsInit(producer) ||
      !isa<RankedTensorType>(value.getType()))
    return std::nullopt;
  Value init = producer.getDpsInitOperand(0)->get();
  while (isReshape(init.getDefiningOp()) && init.hasOneUse())
    init = init.getDefiningOp()->getOperand(0);
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill || !init.hasOneUse() ||
      !matchPattern(fill.getInputs().front(), m_AnyZeroFloat()))
    return std::nullopt;
  found.producer = producer;
  return found;
}

/// The reshape undoing `op` (collapse for an expand and back) applied to
/// `value`, which has the type of `op`'s result.
Value undoReshape(OpBuilder &b, Operation *op, Value value) {
  Location loc = op->getLoc();
  Type srcType = op->getOperand(0).getType();
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
    return tensor::ExpandShapeOp::create(b, loc, srcType, value,
                                         collapse.getReassociationIndices());
  auto expand = cast<tensor::ExpandShapeOp>(op);
  return tensor::CollapseShapeOp::create(b, loc, srcType, value,
                                         expand.getReassociationIndices());
}

struct PipeAccumulateGradientsPass
    : public pipewave::impl::PipeAccumulateGradientsBase<
          PipeAccumulateGradientsPass> {
  using PipeAccumulateGradientsBase::PipeAccumulateGradientsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> stages = pipe::getDefinedStageFunctions(module);
    for (func::FuncOp stage : stages) {
      auto gradArgs = stage->getAttrOfType<DenseI64ArrayAttr>(
          pipe::PipeDialect::GradArgsAttrHelper::getNameStr());
      // pipe.bwd: result k is the gradient of argument grad_args[k].
      if (func::FuncOp bwd = linked(
              stage, pipe::PipeDialect::BwdAttrHelper::getNameStr(), symbols);
          bwd && gradArgs && bwd.getNumResults() == gradArgs.size()) {
        SmallVector<bool> param;
        for (int64_t arg : gradArgs.asArrayRef())
          param.push_back(pipe::isParam(stage, arg));
        if (func::FuncOp acc = makeAccumulating(bwd, param, symbols))
          stage->setAttr(kAccumulatingBwdAttr, FlatSymbolRefAttr::get(acc));
      }
      // pipe.bwd_weight returns parameter gradients only.
      if (func::FuncOp weight = linked(
              stage, pipe::PipeDialect::BwdWeightAttrHelper::getNameStr(),
              symbols)) {
        SmallVector<bool> param(weight.getNumResults(), true);
        if (func::FuncOp acc = makeAccumulating(weight, param, symbols))
          stage->setAttr(kAccumulatingBwdWeightAttr,
                         FlatSymbolRefAttr::get(acc));
      }
    }
  }

  static func::FuncOp linked(func::FuncOp stage, StringRef attr,
                             SymbolTable &symbols) {
    auto ref = stage->getAttrOfType<FlatSymbolRefAttr>(attr);
    if (!ref)
      return nullptr;
    auto fn = symbols.lookup<func::FuncOp>(ref.getValue());
    return fn && !fn.isExternal() ? fn : nullptr;
  }

  /// A copy of `fn`, named `<fn>_acc`, in which every result `r` with
  /// `eligible[r]` that can accumulate adds to a new last argument
  /// (`pipewave.accumulates = r`, writable) instead of to zeros, or null
  /// when no result can.
  func::FuncOp makeAccumulating(func::FuncOp fn, ArrayRef<bool> eligible,
                                SymbolTable &symbols) {
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    bool any = false;
    for (auto [r, value] : llvm::enumerate(ret.getOperands()))
      any |= r < eligible.size() && eligible[r] && findAccumulation(value);
    if (!any)
      return nullptr;

    func::FuncOp acc = fn.clone();
    acc.setSymName((fn.getSymName() + "_acc").str());
    symbols.insert(acc, std::next(Block::iterator(fn)));
    MLIRContext *ctx = &getContext();
    Builder attrs(ctx);
    auto accRet = cast<func::ReturnOp>(acc.getBody().front().getTerminator());
    for (unsigned r = 0, e = accRet.getNumOperands(); r < e; ++r) {
      if (r >= eligible.size() || !eligible[r])
        continue;
      std::optional<Accumulation> found =
          findAccumulation(accRet.getOperand(r));
      if (!found)
        continue;
      Type type = accRet.getOperand(r).getType();
      NamedAttrList argAttrs;
      argAttrs.set(kAccumulatesAttr, attrs.getI64IntegerAttr(r));
      argAttrs.set(bufferization::BufferizationDialect::kWritableAttrName,
                   attrs.getBoolAttr(true));
      unsigned index = acc.getNumArguments();
      if (failed(acc.insertArgument(index, type, argAttrs.getDictionary(ctx),
                                    acc.getLoc()))) {
        acc.erase();
        return nullptr;
      }
      // The producer's init: the accumulator, reshaped back the way the
      // result was reshaped from the producer's result.
      OpBuilder b(found->producer);
      Value init = acc.getArgument(index);
      for (Operation *reshape : found->reshapes)
        init = undoReshape(b, reshape, init);
      OpOperand *operand = found->producer.getDpsInitOperand(0);
      Operation *old = operand->get().getDefiningOp();
      operand->set(init);
      // The zero fill (and the reshapes and empty tensor before it).
      while (old && old->use_empty()) {
        Operation *next = old->getNumOperands()
                              ? old->getOperands().back().getDefiningOp()
                              : nullptr;
        if (auto fill = dyn_cast<linalg::FillOp>(old))
          next = fill.getOutputs().front().getDefiningOp();
        old->erase();
        old = next;
      }
    }
    return acc;
  }
};

} // namespace
