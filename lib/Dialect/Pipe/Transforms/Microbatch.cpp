//===- Microbatch.cpp - pipe-microbatch: stages for one microbatch --------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The model is written for the global batch; the runtime runs every stage on
// one microbatch at a time. This pass re-specialises the outlined stage
// functions for one microbatch: it follows the stage composition in the
// entry, tracks which values carry the batch (derived from data inputs),
// divides their batch dimension and checks every operation that sees them.
//
// Kinds of values:
//  * Batch:   carries the batch as the outermost factor of its shape, i.e. in
//             its first non-unit dimension; retyped with that dimension / M.
//  * Partial: a sum over the batch dimension, now a partial sum over one
//             microbatch; its type does not change, and only linear ops may
//             use it, so that the microbatch values add up to the global one.
//  * None:    independent of the data inputs (parameters, constants).
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Transforms/Passes.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"

#include "MicrobatchSpecialiser.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/DenseMap.h"

#include <map>

namespace pipewave::pipe {
#define GEN_PASS_DEF_PIPEMICROBATCH
#include "pipewave/Dialect/Pipe/Transforms/Passes.h.inc"
} // namespace pipewave::pipe

using namespace mlir;
using namespace pipewave;
using namespace pipewave::pipe;

namespace {

using microbatch::Kind;
using microbatch::Specialiser;

struct PipeMicrobatchPass
    : public pipe::impl::PipeMicrobatchBase<PipeMicrobatchPass> {
  using PipeMicrobatchBase::PipeMicrobatchBase;

  /// Microbatches of the step over all replicas: what the stage functions
  /// are specialised for (one part each).
  int64_t parts = 1;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp fn = lookupEntry(module, entry, "pipe-microbatch");
    if (!fn)
      return signalPassFailure();
    if (microbatches < 0) {
      fn.emitError() << "pipe-microbatch: microbatches must be at least 1, got "
                     << static_cast<int64_t>(microbatches);
      return signalPassFailure();
    }
    if (replicas < 1) {
      fn.emitError() << "pipe-microbatch: replicas must be at least 1, got "
                     << static_cast<int64_t>(replicas);
      return signalPassFailure();
    }
    // 0: the count pipe-plan chose for the entry, else one microbatch; each
    // of the replicas takes that many.
    int64_t perReplica = microbatches;
    if (perReplica == 0) {
      IntegerAttr planned =
          PipeDialect::MicrobatchesAttrHelper(fn.getContext()).getAttr(fn);
      perReplica = planned ? planned.getInt() : 1;
    }
    parts = perReplica * replicas;
    bool done = false;
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
      done |= static_cast<bool>(getCombineResultAttr(fn, i));
    if (done) {
      fn.emitError() << "pipe-microbatch: '@" << entry
                     << "' was already specialised for microbatches";
      return signalPassFailure();
    }

    // Data inputs: a static batch on dimension 0 that M divides.
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
      if (isParam(fn, i))
        continue;
      auto type = dyn_cast<RankedTensorType>(fn.getArgumentTypes()[i]);
      if (!type || type.getRank() == 0 || type.isDynamicDim(0)) {
        fn.emitError() << "pipe-microbatch: data input '" << getArgName(fn, i)
                       << "' needs a static batch dimension 0, got "
                       << fn.getArgumentTypes()[i];
        return signalPassFailure();
      }
      if (type.getDimSize(0) % parts != 0 && replicas > 1) {
        fn.emitError() << "pipe-microbatch: replicas="
                       << static_cast<int64_t>(replicas)
                       << " x microbatches=" << perReplica << " = " << parts
                       << " parts do not divide the batch size "
                       << type.getDimSize(0) << " of data input '"
                       << getArgName(fn, i) << "' (each replica takes 1/"
                       << static_cast<int64_t>(replicas) << " of the batch, in "
                       << perReplica << " microbatches)";
        return signalPassFailure();
      }
      if (type.getDimSize(0) % parts != 0) {
        fn.emitError() << "pipe-microbatch: microbatches=" << parts
                       << " does not divide the batch size "
                       << type.getDimSize(0) << " (dimension 0 of data input '"
                       << getArgName(fn, i) << "')";
        return signalPassFailure();
      }
    }

    Block &body = fn.getBody().front();
    SymbolTableCollection symbols;
    SmallVector<func::CallOp> calls;
    for (auto call : body.getOps<func::CallOp>()) {
      auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (callee && getStage(callee) >= 0)
        calls.push_back(call);
    }
    if (calls.empty()) {
      fn.emitError() << "pipe-microbatch: '@" << entry
                     << "' calls no stage function; run pipe-partition and "
                        "pipe-outline-stages first";
      return signalPassFailure();
    }

    Specialiser spec(parts);
    // Kinds of the entry's values: arguments and stage call results.
    DenseMap<Value, Kind> entryKinds;
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      entryKinds[fn.getArgument(i)] = isParam(fn, i) ? Kind::None : Kind::Batch;
    llvm::SmallPtrSet<Operation *, 8> seen;
    OpBuilder builder(module.getContext());
    DenseMap<Value, Value> slices;

    for (func::CallOp call : calls) {
      auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (!seen.insert(callee).second) {
        call.emitError() << "pipe-microbatch: stage function '@"
                         << callee.getSymName() << "' is called more than once";
        return signalPassFailure();
      }
      SmallVector<Kind> argKinds;
      for (auto [v, arg] :
           llvm::zip_equal(call.getOperands(), callee.getArguments())) {
        auto it = entryKinds.find(v);
        argKinds.push_back(it == entryKinds.end() ? Kind::None : it->second);
        if (Operation *source = spec.origin.lookup(v))
          spec.origin[arg] = source;
      }
      FailureOr<SmallVector<Kind>> resultKinds = spec.run(callee, argKinds);
      if (failed(resultKinds))
        return signalPassFailure();

      // Data inputs enter through their microbatch slice.
      for (OpOperand &operand : call->getOpOperands()) {
        auto arg = dyn_cast<BlockArgument>(operand.get());
        if (!arg || arg.getOwner() != &body || isParam(fn, arg.getArgNumber()))
          continue;
        Value &slice = slices[arg];
        if (!slice) {
          builder.setInsertionPoint(calls.front());
          slice = sliceMicrobatch(builder, arg);
        }
        operand.set(slice);
      }
      Operation *ret = callee.getBody().front().getTerminator();
      for (auto [result, returned, kind] : llvm::zip_equal(
               call.getResults(), ret->getOperands(), *resultKinds)) {
        result.setType(returned.getType());
        entryKinds[result] = kind;
        if (Operation *source = spec.origin.lookup(returned))
          spec.origin[result] = source;
      }
    }

    // Results: combine over microbatches.
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    builder.setInsertionPoint(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      unsigned i = operand.getOperandNumber();
      auto it = entryKinds.find(operand.get());
      Kind kind = it == entryKinds.end() ? Kind::None : it->second;
      StringRef combine;
      if (kind == Kind::Batch) {
        combine = "concat";
      } else if (kind == Kind::Partial || parts == 1) {
        combine = "sum";
      } else {
        fn.emitError() << "pipe-microbatch: result #" << i << " of '@" << entry
                       << "' depends on no data input, so it cannot be "
                          "combined over microbatches";
        return signalPassFailure();
      }
      setCombineResultAttr(fn, i, builder.getStringAttr(combine));
      Type global = fn.getResultTypes()[i];
      if (operand.get().getType() != global)
        operand.set(insertMicrobatch(builder, operand.get(), global));
    }
  }

  /// Microbatch 0 of the data input `arg`: dimension 0 divided by M.
  Value sliceMicrobatch(OpBuilder &builder, BlockArgument arg) {
    auto type = cast<RankedTensorType>(arg.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes,
        strides(type.getRank(), builder.getIndexAttr(1));
    for (int64_t i = 0; i < type.getRank(); ++i)
      sizes.push_back(builder.getIndexAttr(i == 0 ? type.getDimSize(0) / parts
                                                  : type.getDimSize(i)));
    if (parts == 1)
      return arg;
    return tensor::ExtractSliceOp::create(builder, arg.getLoc(), arg, offsets,
                                          sizes, strides);
  }

  /// Writes the microbatch value `value` into the global result at
  /// microbatch 0 (the runtime writes microbatch m at m * size).
  Value insertMicrobatch(OpBuilder &builder, Value value, Type global) {
    auto type = cast<RankedTensorType>(value.getType());
    auto globalType = cast<RankedTensorType>(global);
    Value dest =
        tensor::EmptyOp::create(builder, value.getLoc(), globalType.getShape(),
                                globalType.getElementType());
    SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes,
        strides(type.getRank(), builder.getIndexAttr(1));
    for (int64_t d : type.getShape())
      sizes.push_back(builder.getIndexAttr(d));
    return tensor::InsertSliceOp::create(builder, value.getLoc(), value, dest,
                                         offsets, sizes, strides);
  }
};

} // namespace
