//===- MicrobatchSpecialiser.cpp - Stages for one microbatch --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "MicrobatchSpecialiser.h"

#include "pipewave/Dialect/Pipe/IR/Pipe.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;
using namespace pipewave::pipe::microbatch;

namespace {

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

/// Replaces `op` by tosa.reduce_sum over its axes and a tosa.mul by the
/// reciprocal of the count (minus the correction) of its operand's type, the
/// microbatch's.
LogicalResult expandBatchMean(pipewave::pipe::BatchMeanOp op) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  int64_t count = 1;
  for (int64_t a : op.getAxes())
    count *= in.getDimSize(a);
  int64_t divisor = count - op.getCorrection();
  if (divisor < 1)
    return op.emitError() << "a microbatch of " << in
                          << " has one value per statistic; the unbiased "
                             "variance needs more (fewer microbatches)";
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value v = op.getInput();
  for (int64_t a : op.getAxes()) {
    SmallVector<int64_t> shape(cast<RankedTensorType>(v.getType()).getShape());
    shape[a] = 1;
    v = tosa::ReduceSumOp::create(
        b, loc, RankedTensorType::get(shape, in.getElementType()), v,
        b.getI32IntegerAttr(a));
  }
  auto scaleType = RankedTensorType::get(SmallVector<int64_t>(in.getRank(), 1),
                                         in.getElementType());
  Value scale = tosa::ConstOp::create(
      b, loc, scaleType,
      DenseElementsAttr::get(
          scaleType, b.getFloatAttr(in.getElementType(), 1.0 / divisor)));
  auto shiftType = RankedTensorType::get({1}, b.getIntegerType(8));
  Value shift = tosa::ConstOp::create(
      b, loc, shiftType,
      DenseElementsAttr::get(shiftType,
                             b.getIntegerAttr(b.getIntegerType(8), 0)));
  Value mean =
      tosa::MulOp::create(b, loc, op.getType(), v, scale, shift).getResult();
  op.replaceAllUsesWith(mean);
  op.erase();
  return success();
}

} // namespace

Kind Specialiser::kindOf(Value v) const {
  auto it = kinds.find(v);
  return it == kinds.end() ? Kind::None : it->second;
}

FailureOr<Type> Specialiser::divide(Operation *op, Type type, StringRef what) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  if (!shaped)
    return op->emitError() << "cannot split " << opName(op)
                           << " into microbatches: " << what
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
    return op->emitError() << "cannot split " << opName(op)
                           << " into microbatches: dimension " << dim << " of "
                           << what << " (" << type
                           << ") carries the batch and must be static";
  if (size % microbatches != 0)
    return op->emitError() << "cannot split " << opName(op) << " into "
                           << microbatches << " microbatches: dimension " << dim
                           << " of " << what << " (" << type
                           << ") carries the batch and " << size
                           << " is not divisible by " << microbatches;
  SmallVector<int64_t> shape(shaped.getShape());
  shape[dim] /= microbatches;
  return RankedTensorType::get(shape, shaped.getElementType(),
                               shaped.getEncoding());
}

void Specialiser::setShapeOperand(Operation *op, unsigned operandNo,
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

FailureOr<SmallVector<int64_t>> Specialiser::constShape(Value v) {
  auto op = v.getDefiningOp<tosa::ConstShapeOp>();
  if (!op)
    return failure();
  return llvm::to_vector(op.getValues().getValues<int64_t>());
}

LogicalResult Specialiser::checkInferred(Operation *op) {
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

LogicalResult Specialiser::verifyRetyped(Operation *op) {
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

LogicalResult Specialiser::rewriteBatchOp(Operation *op) {
  // Dropout keeps its input's type and kind; its counter is the
  // microbatch's slice of the counter input.
  if (auto dropout = dyn_cast<pipewave::pipe::DropoutOp>(op)) {
    dropout.getResult().setType(dropout.getInput().getType());
    kinds[dropout.getResult()] = kindOf(dropout.getInput());
    return verifyRetyped(op);
  }
  // A statistic of each microbatch: no batch, not a partial sum.
  if (auto mean = dyn_cast<pipewave::pipe::BatchMeanOp>(op)) {
    if (!llvm::is_contained(mean.getAxes(), batchDimOf(mean.getInput())))
      return op->emitError()
             << "cannot split " << opName(op)
             << " into microbatches: it does not reduce the batch dimension "
             << batchDimOf(mean.getInput());
    kinds[mean.getResult()] = Kind::None;
    return success();
  }
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

int64_t Specialiser::batchDimOf(Value v) {
  auto it = globalBatchDim.find(v);
  if (it != globalBatchDim.end())
    return it->second;
  return batchDim(cast<ShapedType>(v.getType()));
}

void Specialiser::noteBatchDims(Operation *op) {
  for (Value r : op->getResults())
    if (auto t = dyn_cast<ShapedType>(r.getType()); t && t.hasRank())
      globalBatchDim[r] = batchDim(t);
}

LogicalResult Specialiser::rewritePartialOp(Operation *op,
                                            ArrayRef<Kind> operandKinds) {
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

FailureOr<SmallVector<Kind>> Specialiser::run(func::FuncOp fn,
                                              ArrayRef<Kind> argKinds) {
  Block &body = fn.getBody().front();
  SmallVector<Type> argTypes;
  for (auto [arg, kind] : llvm::zip_equal(body.getArguments(), argKinds)) {
    kinds[arg] = kind;
    if (kind == Kind::Batch) {
      if (auto t = dyn_cast<ShapedType>(arg.getType()); t && t.hasRank())
        globalBatchDim[arg] = batchDim(t);
      FailureOr<Type> type =
          divide(fn, arg.getType(),
                 "argument #" + std::to_string(arg.getArgNumber()) + " of '@" +
                     fn.getSymName().str() + "'");
      if (failed(type))
        return failure();
      arg.setType(*type);
    }
    argTypes.push_back(arg.getType());
  }

  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
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

  // Batch statistics over the microbatch, now that its shapes are known.
  SmallVector<pipewave::pipe::BatchMeanOp> means(
      body.getOps<pipewave::pipe::BatchMeanOp>());
  for (pipewave::pipe::BatchMeanOp mean : means)
    if (failed(expandBatchMean(mean)))
      return failure();

  // Shapes that only spelled out the global batch.
  for (auto op : llvm::make_early_inc_range(body.getOps<tosa::ConstShapeOp>()))
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
