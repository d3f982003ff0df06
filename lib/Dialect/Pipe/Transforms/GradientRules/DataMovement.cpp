//===- DataMovement.cpp - Gradient rules of TOSA data movement ------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
//  * reshape: reshape back. transpose: the inverse permutation.
//  * slice: zero padding back to the input shape (the cut-off parts get 0).
//    pad: the slice of the padded region; pad_const gets the sum over the
//    padding. Both need constant (tosa.const_shape) start / padding.
//  * concat: each input gets its slice of the cotangent.
//  * tile: the cotangent is reshaped to [m0, d0, m1, d1, ...] (tile k of
//    dimension i covers rows k*di .. (k+1)*di-1) and summed over the m axes.
//  * reverse: reverse again.
//  * gather (embedding lookup, out[n, w, :] = values[n, idx[n, w], :]): the
//    gradient of `values` is a scatter-add, dvalues[n, k, :] =
//    sum_w [idx[n, w] == k] * dout[n, w, :]. tosa.scatter overwrites on
//    duplicate indices, so it is built as a one-hot matmul instead:
//    onehot[n, k, w] = (k == idx[n, w]) as 0/1, dvalues = onehot @ dout
//    ([N, K, W] x [N, W, C]). It costs N*K*W memory and N*K*W*C
//    multiply-adds; repeated indices accumulate correctly. The indices get
//    no gradient.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Transforms/GradientRules.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace pipewave::pipe::autodiff;

namespace {

/// The values of a `tosa.const_shape` operand, or failure with an error.
FailureOr<SmallVector<int64_t>> constShapeOperand(Operation *op,
                                                  unsigned index) {
  auto def = op->getOperand(index).getDefiningOp<tosa::ConstShapeOp>();
  if (!def)
    return op->emitError() << "pipe-autodiff: the gradient of '"
                           << op->getName() << "' needs operand #" << index
                           << " to be a tosa.const_shape";
  return llvm::to_vector(def.getValues().getValues<int64_t>());
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

} // namespace

void pipewave::pipe::autodiff::registerDataMovementGradientRules(
    GradientRuleTable &table) {
  table.add(tosa::ReshapeOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              if (needed[0])
                dOperands[0] =
                    e.reshape(dResults[0], shapeOf(op->getOperand(0)));
              return success();
            });

  table.add(tosa::TransposeOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              if (!needed[0])
                return success();
              ArrayRef<int32_t> perms = cast<tosa::TransposeOp>(op).getPerms();
              SmallVector<int32_t> inverse(perms.size());
              for (auto [i, p] : llvm::enumerate(perms))
                inverse[p] = static_cast<int32_t>(i);
              dOperands[0] = e.transpose(dResults[0], inverse);
              return success();
            });

  table.add(tosa::SliceOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              if (!needed[0])
                return success();
              FailureOr<SmallVector<int64_t>> start = constShapeOperand(op, 1);
              if (failed(start))
                return failure();
              ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
              ArrayRef<int64_t> out = shapeOf(op->getResult(0));
              SmallVector<int64_t> padding;
              for (size_t i = 0; i < in.size(); ++i) {
                padding.push_back((*start)[i]);
                padding.push_back(in[i] - (*start)[i] - out[i]);
              }
              dOperands[0] = e.pad(dResults[0], padding);
              return success();
            });

  table.add(tosa::PadOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              FailureOr<SmallVector<int64_t>> padding =
                  constShapeOperand(op, 1);
              if (failed(padding))
                return failure();
              ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
              SmallVector<int64_t> start;
              for (size_t i = 0; i < in.size(); ++i)
                start.push_back((*padding)[2 * i]);
              Value dx = e.slice(dResults[0], start, in);
              if (needed[0])
                dOperands[0] = dx;
              if (needed[2]) {
                // Every padded element is pad_const.
                Value total =
                    e.sub(e.reduceSumAll(dResults[0]), e.reduceSumAll(dx));
                dOperands[2] = e.reshape(total, shapeOf(op->getOperand(2)));
              }
              return success();
            });

  table.add(tosa::ConcatOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              int64_t axis = cast<tosa::ConcatOp>(op).getAxis();
              int64_t offset = 0;
              for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
                ArrayRef<int64_t> shape = shapeOf(operand);
                if (needed[i]) {
                  SmallVector<int64_t> start(shape.size(), 0);
                  start[axis] = offset;
                  dOperands[i] = e.slice(dResults[0], start, shape);
                }
                offset += shape[axis];
              }
              return success();
            });

  table.add(tosa::TileOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              if (!needed[0])
                return success();
              ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
              ArrayRef<int64_t> out = shapeOf(op->getResult(0));
              SmallVector<int64_t> split;
              for (size_t i = 0; i < in.size(); ++i) {
                split.push_back(out[i] / in[i]);
                split.push_back(in[i]);
              }
              Value g = e.reshape(dResults[0], split);
              for (size_t i = 0; i < in.size(); ++i)
                if (split[2 * i] != 1)
                  g = e.reduceSum(g, 2 * i);
              dOperands[0] = e.reshape(g, in);
              return success();
            });

  table.add(tosa::ReverseOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              if (needed[0])
                dOperands[0] =
                    e.reverse(dResults[0], cast<tosa::ReverseOp>(op).getAxis());
              return success();
            });

  table.add(
      tosa::GatherOp::getOperationName(),
      [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
         ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
        if (!needed[0])
          return success();
        auto gather = cast<tosa::GatherOp>(op);
        ArrayRef<int64_t> values = shapeOf(gather.getValues());
        ArrayRef<int64_t> indices = shapeOf(gather.getIndices());
        int64_t n = indices[0], w = indices[1], k = values[1];
        Type indexType = cast<RankedTensorType>(gather.getIndices().getType())
                             .getElementType();
        // iota[0, k, 0] = k
        auto iotaType = RankedTensorType::get({1, k, 1}, indexType);
        SmallVector<APInt> iotaValues;
        for (int64_t i = 0; i < k; ++i)
          iotaValues.push_back(APInt(indexType.getIntOrFloatBitWidth(), i));
        Value iota = e.constant(DenseElementsAttr::get(iotaType, iotaValues));
        Value idx = e.reshape(e.primal(gather.getIndices()), {n, 1, w});
        Type dyType = dResults[0].getType();
        Value onehot = e.select(e.equal(iota, idx), e.scalarLike(dyType, 1.0),
                                e.scalarLike(dyType, 0.0));
        dOperands[0] = e.sumToShape(e.matmul(onehot, dResults[0]),
                                    gather.getValues().getType());
        return success();
      });
}
