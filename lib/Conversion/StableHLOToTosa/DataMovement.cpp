//===- DataMovement.cpp - Shape operations of stablehlo to TOSA -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
//   broadcast_in_dim   transpose (if the dims are not increasing), reshape
//                      to the result rank with 1s, tile to the result shape
//   reshape / transpose / concatenate   their TOSA namesakes
//   slice              tosa.slice (unit strides only)
//   pad                tosa.pad (edge padding >= 0 with a constant value,
//                      no interior padding)
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "pipewave/Conversion/StableHLOToTosa/StableHLOToTosa.h"
#include "pipewave/Dialect/StableHLO/IR/Stablehlo.h"

#include "mlir/IR/Matchers.h"

#include <numeric>

using namespace mlir;
using namespace pipewave;
using namespace pipewave::shlo;
namespace sh = pipewave::stablehlo;

namespace {

Value lowerBroadcastInDim(TosaBuilder &tb, sh::BroadcastInDimOp op,
                          sh::BroadcastInDimOp::Adaptor a) {
  ArrayRef<int64_t> dims = op.getBroadcastDimensions();
  ArrayRef<int64_t> out = op.getType().getShape();
  // Order the operand's dimensions as they appear in the result.
  SmallVector<int64_t> order(dims.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::stable_sort(order,
                    [&](int64_t x, int64_t y) { return dims[x] < dims[y]; });
  Value x = tb.transpose(a.getOperand(), order);
  SmallVector<int64_t> shape(out.size(), 1);
  for (auto [i, o] : llvm::enumerate(order))
    shape[dims[o]] = TosaBuilder::shape(x)[i];
  x = tb.reshape(x, shape);
  SmallVector<int64_t> multiples;
  for (auto [have, want] : llvm::zip(shape, out)) {
    if (have != want && have != 1) {
      op.emitOpError() << "cannot broadcast dimension of size " << have
                       << " to " << want;
      return {};
    }
    multiples.push_back(have == want ? 1 : want);
  }
  return tb.tile(x, multiples);
}

Value lowerReshape(TosaBuilder &tb, sh::ReshapeOp op,
                   sh::ReshapeOp::Adaptor a) {
  Value x = a.getOperand();
  if (TosaBuilder::shape(x) == op.getType().getShape())
    return tb.unary<tosa::IdentityOp>(x);
  return tb.reshape(x, op.getType().getShape());
}

Value lowerTranspose(TosaBuilder &tb, sh::TransposeOp op,
                     sh::TransposeOp::Adaptor a) {
  Value v = tb.transpose(a.getOperand(), op.getPermutation());
  if (v == a.getOperand())
    return tb.unary<tosa::IdentityOp>(v);
  return v;
}

Value lowerSlice(TosaBuilder &tb, sh::SliceOp op, sh::SliceOp::Adaptor a) {
  if (llvm::any_of(op.getStrides(), [](int64_t s) { return s != 1; })) {
    op.emitOpError() << "with strides other than 1 is not supported";
    return {};
  }
  SmallVector<int64_t> size;
  for (auto [s, l] : llvm::zip(op.getStartIndices(), op.getLimitIndices()))
    size.push_back(l - s);
  return tosa::SliceOp::create(tb.b, tb.loc, op.getType(), a.getOperand(),
                               tb.constShape(op.getStartIndices()),
                               tb.constShape(size));
}

Value lowerConcatenate(TosaBuilder &tb, sh::ConcatenateOp op,
                       sh::ConcatenateOp::Adaptor a) {
  return tosa::ConcatOp::create(tb.b, tb.loc, op.getType(), a.getInputs(),
                                tb.b.getI32IntegerAttr(op.getDimension()));
}

Value lowerPad(TosaBuilder &tb, sh::PadOp op, sh::PadOp::Adaptor a) {
  if (llvm::any_of(op.getInteriorPadding(), [](int64_t p) { return p != 0; }) ||
      llvm::any_of(op.getEdgePaddingLow(), [](int64_t p) { return p < 0; }) ||
      llvm::any_of(op.getEdgePaddingHigh(), [](int64_t p) { return p < 0; })) {
    op.emitOpError() << "with interior or negative padding is not supported";
    return {};
  }
  DenseElementsAttr value;
  if (!matchPattern(op.getPaddingValue(), m_Constant(&value))) {
    op.emitOpError() << "needs a constant padding value";
    return {};
  }
  SmallVector<int64_t> padding;
  for (auto [lo, hi] :
       llvm::zip(op.getEdgePaddingLow(), op.getEdgePaddingHigh())) {
    padding.push_back(lo);
    padding.push_back(hi);
  }
  Value padConst = tb.constant(value.reshape(
      TosaBuilder::tensor({1}, value.getType().getElementType())));
  return tosa::PadOp::create(tb.b, tb.loc, op.getType(), a.getOperand(),
                             tb.constShape(padding), padConst);
}

} // namespace

void pipewave::populateStablehloDataMovementToTosaPatterns(
    RewritePatternSet &patterns) {
  addLowering<sh::BroadcastInDimOp>(patterns, lowerBroadcastInDim);
  addLowering<sh::ReshapeOp>(patterns, lowerReshape);
  addLowering<sh::TransposeOp>(patterns, lowerTranspose);
  addLowering<sh::SliceOp>(patterns, lowerSlice);
  addLowering<sh::ConcatenateOp>(patterns, lowerConcatenate);
  addLowering<sh::PadOp>(patterns, lowerPad);
}
