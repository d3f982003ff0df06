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

enum class Kind { None, Batch, Partial };

/// Index of the first non-unit dimension of `type`, or -1.
int64_t batchDim(ShapedType type) {
  for (int64_t i = 0, e = type.getRank(); i < e; ++i)
    if (type.getDimSize(i) != 1)
      return i;
  return -1;
}

/// Short op name for messages: 'tosa.reduce_max'.
std::string opName(Operation *op) {
  return ("'" + op->getName().getStringRef() + "'").str();
}

/// True for the ops through which a partial sum stays a partial sum, given
/// the kinds of their operands (at least one is Partial, none is Batch).
bool isLinearUse(Operation *op, ArrayRef<Kind> kinds) {
  auto count = [&](Kind k) { return llvm::count(kinds, k); };
  if (isa<tosa::MulOp>(op))
    // One factor is the partial sum, the other (and the shift) carry no batch.
    return count(Kind::Partial) == 1;
  if (isa<tosa::AddOp, tosa::SubOp>(op))
    return count(Kind::Partial) == 2;
  if (isa<tosa::NegateOp, tosa::ReshapeOp, tosa::TransposeOp, tosa::CastOp,
          tosa::IdentityOp, tosa::ReduceSumOp>(op))
    return kinds.front() == Kind::Partial && count(Kind::Partial) == 1;
  return false;
}

struct Specialiser {
  explicit Specialiser(int64_t microbatches) : microbatches(microbatches) {}

  int64_t microbatches;
  DenseMap<Value, Kind> kinds;
  /// For Partial values: the reduction that made them, for messages.
  DenseMap<Value, Operation *> origin;

  Kind kindOf(Value v) const {
    auto it = kinds.find(v);
    return it == kinds.end() ? Kind::None : it->second;
  }

  /// The microbatch type of a batch-carrying `type`, or an error at `op`.
  FailureOr<Type> divide(Operation *op, Type type, StringRef what) {
    auto shaped = dyn_cast<RankedTensorType>(type);
    if (!shaped)
      return op->emitError()
             << "cannot split " << opName(op) << " into microbatches: " << what
             << " carries the batch but is not a ranked "
                "tensor ("
             << type << ")";
    if (microbatches == 1)
      return type;
    int64_t dim = batchDim(shaped);
    if (dim < 0)
      return op->emitError()
             << "cannot split " << opName(op) << " into microbatches: " << what
             << " carries the batch but has no non-unit dimension (" << type
             << ")";
    int64_t size = shaped.getDimSize(dim);
    if (ShapedType::isDynamic(size))
      return op->emitError()
             << "cannot split " << opName(op)
             << " into microbatches: dimension " << dim << " of " << what
             << " (" << type << ") carries the batch and must be static";
    if (size % microbatches != 0)
      return op->emitError()
             << "cannot split " << opName(op) << " into " << microbatches
             << " microbatches: dimension " << dim << " of " << what << " ("
             << type << ") carries the batch and " << size
             << " is not divisible by " << microbatches;
    SmallVector<int64_t> shape(shaped.getShape());
    shape[dim] /= microbatches;
    return RankedTensorType::get(shape, shaped.getElementType(),
                                 shaped.getEncoding());
  }

  /// Replaces the shape operand `operandNo` of `op` by a tosa.const_shape
  /// holding `values`, created once per function at its start.
  void setShapeOperand(Operation *op, unsigned operandNo,
                       ArrayRef<int64_t> values) {
    Block *entryBlock = &op->getParentOfType<func::FuncOp>().front();
    Value &shape = shapeCache[{entryBlock, SmallVector<int64_t>(values)}];
    if (!shape) {
      auto builder = OpBuilder::atBlockBegin(entryBlock);
      auto type = tosa::shapeType::get(op->getContext(), values.size());
      auto attr = DenseIntElementsAttr::get(
          RankedTensorType::get({static_cast<int64_t>(values.size())},
                                builder.getIndexType()),
          values);
      shape = tosa::ConstShapeOp::create(builder, op->getLoc(), type, attr);
    }
    op->setOperand(operandNo, shape);
  }
  std::map<std::pair<Block *, SmallVector<int64_t>>, Value> shapeCache;

  /// Constant values of a tosa.const_shape operand.
  static FailureOr<SmallVector<int64_t>> constShape(Value v) {
    auto op = v.getDefiningOp<tosa::ConstShapeOp>();
    if (!op)
      return failure();
    return llvm::to_vector(op.getValues().getValues<int64_t>());
  }

  /// Checks the result types of `op` against its shape inference.
  LogicalResult checkInferred(Operation *op) {
    auto iface = dyn_cast<InferShapedTypeOpInterface>(op);
    if (!iface)
      return success();
    SmallVector<ShapedTypeComponents> inferred;
    {
      // Inference failures are reported by the verifier below.
      ScopedDiagnosticHandler quiet(op->getContext(),
                                    [](Diagnostic &) { return success(); });
      if (failed(iface.inferReturnTypeComponents(
              op->getContext(), op->getLoc(), op->getOperands(),
              op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
              op->getRegions(), inferred)))
        return success();
    }
    for (auto [result, comps] : llvm::zip(op->getResults(), inferred)) {
      auto type = dyn_cast<ShapedType>(result.getType());
      if (!type || !comps.hasRank() || !type.hasRank())
        continue;
      ArrayRef<int64_t> want = comps.getDims();
      if (want.size() != static_cast<size_t>(type.getRank()))
        continue;
      for (auto [a, b] : llvm::zip(want, type.getShape()))
        if (!ShapedType::isDynamic(a) && a != b) {
          InFlightDiagnostic diag =
              op->emitError()
              << "cannot split " << opName(op)
              << " into microbatches: with microbatch operands its result "
                 "has shape ["
              << llvm::make_range(want.begin(), want.end())
              << "], but a value carrying the batch must keep it as the "
                 "outermost factor, giving "
              << type;
          diag.attachNote() << "the op mixes the batch with another "
                               "dimension (e.g. contracts, tiles or "
                               "concatenates along it)";
          return diag;
        }
    }
    return success();
  }

  /// Verifies `op` after retyping; its own diagnostics become a note.
  LogicalResult verifyRetyped(Operation *op) {
    std::string messages;
    LogicalResult result = success();
    {
      ScopedDiagnosticHandler collect(op->getContext(), [&](Diagnostic &d) {
        if (!messages.empty())
          messages += "; ";
        messages += d.str();
        return success();
      });
      result = mlir::verify(op, /*verifyRecursively=*/true);
    }
    if (succeeded(result))
      return success();
    InFlightDiagnostic diag = op->emitError()
                              << "cannot split " << opName(op)
                              << " into microbatches: it does not verify with "
                                 "microbatch shapes";
    diag.attachNote() << messages;
    diag.attachNote() << "an operand that carries no batch may have a "
                         "batch-sized dimension (e.g. a constant or a tiled "
                         "parameter)";
    return diag;
  }

  /// Handles an operation one of whose operands carries the batch.
  LogicalResult rewriteBatchOp(Operation *op) {
    // Reductions over the batch dimension.
    auto reductionAxis = [&]() -> std::optional<int64_t> {
      if (auto r = dyn_cast<tosa::ReduceSumOp>(op))
        return r.getAxis();
      if (auto r = dyn_cast<tosa::ReduceMaxOp>(op))
        return r.getAxis();
      if (auto r = dyn_cast<tosa::ReduceMinOp>(op))
        return r.getAxis();
      if (auto r = dyn_cast<tosa::ReduceProductOp>(op))
        return r.getAxis();
      if (auto r = dyn_cast<tosa::ReduceAllOp>(op))
        return r.getAxis();
      if (auto r = dyn_cast<tosa::ReduceAnyOp>(op))
        return r.getAxis();
      if (auto r = dyn_cast<tosa::ArgMaxOp>(op))
        return r.getAxis();
      return std::nullopt;
    }();
    if (reductionAxis && kindOf(op->getOperand(0)) == Kind::Batch) {
      auto inType = cast<ShapedType>(op->getOperand(0).getType());
      // The operand is already retyped; the batch position is the same.
      int64_t dim = batchDimOf(op->getOperand(0));
      if (*reductionAxis == dim) {
        if (!isa<tosa::ReduceSumOp>(op) && microbatches > 1)
          return op->emitError()
                 << "cannot split " << opName(op)
                 << " into microbatches: it reduces over the batch "
                    "dimension "
                 << dim << " of " << inType
                 << "; only tosa.reduce_sum may reduce over the batch (its "
                    "microbatch results add up)";
        for (Value r : op->getResults()) {
          kinds[r] = isa<tosa::ReduceSumOp>(op) ? Kind::Partial : Kind::None;
          origin[r] = op;
        }
        return success();
      }
    }

    if (microbatches == 1) {
      for (Value r : op->getResults())
        kinds[r] = Kind::Batch;
      return success();
    }

    // Shape operands that spell out the batch.
    if (auto reshape = dyn_cast<tosa::ReshapeOp>(op)) {
      FailureOr<Type> type = divide(op, reshape.getType(), "its result");
      if (failed(type))
        return failure();
      if (failed(constShape(reshape.getShape())))
        return op->emitError() << "cannot split " << opName(op)
                               << " into microbatches: its shape is not a "
                                  "tosa.const_shape";
      setShapeOperand(op, 1, cast<ShapedType>(*type).getShape());
    } else if (auto slice = dyn_cast<tosa::SliceOp>(op)) {
      FailureOr<SmallVector<int64_t>> start = constShape(slice.getStart());
      FailureOr<SmallVector<int64_t>> size = constShape(slice.getSize());
      if (failed(start) || failed(size))
        return op->emitError() << "cannot split " << opName(op)
                               << " into microbatches: its start and size are "
                                  "not tosa.const_shape";
      int64_t dim = batchDimOf(slice.getInput1());
      if (dim >= 0) {
        int64_t full =
            cast<ShapedType>(slice.getInput1().getType()).getDimSize(dim);
        if ((*start)[dim] != 0 ||
            ((*size)[dim] != -1 && (*size)[dim] != full * microbatches))
          return op->emitError()
                 << "cannot split " << opName(op)
                 << " into microbatches: it slices the batch dimension " << dim;
        if ((*size)[dim] != -1) {
          (*size)[dim] = full;
          setShapeOperand(op, 2, *size);
        }
      }
    } else if (auto transpose = dyn_cast<tosa::TransposeOp>(op)) {
      int64_t in = batchDimOf(transpose.getInput1());
      int64_t out = batchDim(cast<ShapedType>(transpose.getType()));
      ArrayRef<int32_t> perms = transpose.getPerms();
      if (out < 0 || in < 0 || perms[out] != static_cast<int32_t>(in))
        return op->emitError()
               << "cannot split " << opName(op)
               << " into microbatches: it moves the batch dimension " << in
               << " away from the outermost non-unit position";
    }

    // Every result carries the batch.
    for (auto [i, result] : llvm::enumerate(op->getResults())) {
      std::string what = op->getNumResults() == 1
                             ? std::string("its result")
                             : "its result #" + std::to_string(i);
      FailureOr<Type> type = divide(op, result.getType(), what);
      if (failed(type))
        return failure();
      result.setType(*type);
      kinds[result] = Kind::Batch;
    }
    if (failed(checkInferred(op)))
      return failure();
    return verifyRetyped(op);
  }

  /// The batch dimension of a batch-carrying value (already retyped; the
  /// first non-unit dimension of its global type, which is also where the
  /// microbatch type keeps it).
  int64_t batchDimOf(Value v) {
    auto it = globalBatchDim.find(v);
    if (it != globalBatchDim.end())
      return it->second;
    return batchDim(cast<ShapedType>(v.getType()));
  }
  DenseMap<Value, int64_t> globalBatchDim;

  /// Records the batch position of every batch value before retyping.
  void noteBatchDims(Operation *op) {
    for (Value r : op->getResults())
      if (auto t = dyn_cast<ShapedType>(r.getType()); t && t.hasRank())
        globalBatchDim[r] = batchDim(t);
  }

  /// Handles an operation one of whose operands is a partial sum.
  LogicalResult rewritePartialOp(Operation *op, ArrayRef<Kind> operandKinds) {
    Operation *source = nullptr;
    for (Value v : op->getOperands())
      if (kindOf(v) == Kind::Partial)
        source = origin.lookup(v);
    if (llvm::is_contained(operandKinds, Kind::Batch) ||
        !isLinearUse(op, operandKinds)) {
      if (microbatches == 1) {
        for (Value r : op->getResults())
          kinds[r] = Kind::None;
        return success();
      }
      InFlightDiagnostic diag =
          op->emitError()
          << "cannot split " << opName(op)
          << " into microbatches: it uses a sum over the batch, which is "
             "only a partial sum over one microbatch; only linear ops (mul "
             "by a value without batch, add/sub of partial sums, negate, "
             "reshape, transpose, cast, reduce_sum) may use it";
      if (source)
        diag.attachNote(source->getLoc()) << "the sum over the batch";
      return diag;
    }
    for (Value r : op->getResults()) {
      kinds[r] = Kind::Partial;
      origin[r] = source;
    }
    return success();
  }

  /// Specialises `fn` given the kinds of its arguments; returns the kinds of
  /// its results.
  FailureOr<SmallVector<Kind>> run(func::FuncOp fn, ArrayRef<Kind> argKinds) {
    Block &body = fn.getBody().front();
    SmallVector<Type> argTypes;
    for (auto [arg, kind] : llvm::zip_equal(body.getArguments(), argKinds)) {
      kinds[arg] = kind;
      if (kind == Kind::Batch) {
        if (auto t = dyn_cast<ShapedType>(arg.getType()); t && t.hasRank())
          globalBatchDim[arg] = batchDim(t);
        FailureOr<Type> type =
            divide(fn, arg.getType(),
                   "argument #" + std::to_string(arg.getArgNumber()) +
                       " of '@" + fn.getSymName().str() + "'");
        if (failed(type))
          return failure();
        arg.setType(*type);
      }
      argTypes.push_back(arg.getType());
    }

    for (Operation &op :
         llvm::make_early_inc_range(body.without_terminator())) {
      SmallVector<Kind> operandKinds;
      for (Value v : op.getOperands())
        operandKinds.push_back(kindOf(v));
      // Values defined inside regions that use batch values are not tracked;
      // the verifier catches what does not fit.
      op.walk([&](Operation *nested) {
        if (nested == &op)
          return;
        for (Value v : nested->getOperands())
          if (kindOf(v) != Kind::None &&
              !op.isProperAncestor(v.getParentBlock()->getParentOp()))
            operandKinds.push_back(kindOf(v));
      });
      if (llvm::is_contained(operandKinds, Kind::Partial)) {
        if (failed(rewritePartialOp(&op, operandKinds)))
          return failure();
      } else if (llvm::is_contained(operandKinds, Kind::Batch)) {
        noteBatchDims(&op);
        if (failed(rewriteBatchOp(&op)))
          return failure();
      }
    }

    // Shapes that only spelled out the global batch.
    for (auto op :
         llvm::make_early_inc_range(body.getOps<tosa::ConstShapeOp>()))
      if (op->use_empty())
        op.erase();

    auto ret = cast<func::ReturnOp>(body.getTerminator());
    SmallVector<Kind> resultKinds;
    for (Value v : ret.getOperands())
      resultKinds.push_back(kindOf(v));
    fn.setFunctionType(
        FunctionType::get(fn.getContext(), argTypes, ret.getOperandTypes()));
    return resultKinds;
  }
};

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
