//===- DotGeneral.cpp - stablehlo.dot_general to tosa.matmul --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// dot_general(lhs, rhs) with batching dims B, contracting dims K and free
// dims M (lhs) and N (rhs): the result is [B..., M..., N...]. Each operand is
// transposed and reshaped to 3-D,
//
//   lhs -> [B..., M..., K...] -> [prod B, prod M, prod K]
//   rhs -> [B..., K..., N...] -> [prod B, prod K, prod N]
//
// multiplied by `tosa.matmul` (zero zero-points) and reshaped to the result.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "pipewave/Conversion/StableHLOToTosa/StableHLOToTosa.h"
#include "pipewave/Dialect/StableHLO/IR/Stablehlo.h"

using namespace mlir;
using namespace pipewave;
using namespace pipewave::shlo;
namespace sh = pipewave::stablehlo;

namespace {

/// Dimensions of a rank-`rank` operand that are in neither list, in order.
SmallVector<int64_t> freeDims(int64_t rank, ArrayRef<int64_t> batch,
                              ArrayRef<int64_t> contract) {
  SmallVector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(batch, d) && !llvm::is_contained(contract, d))
      free.push_back(d);
  return free;
}

int64_t product(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= shape[d];
  return p;
}

/// Transposes `v` to `groups` concatenated and reshapes it to one dimension
/// per group.
Value toMatrix(TosaBuilder &tb, Value v,
               ArrayRef<SmallVector<int64_t>> groups) {
  SmallVector<int64_t> perm, shape;
  for (const SmallVector<int64_t> &g : groups) {
    llvm::append_range(perm, g);
    shape.push_back(product(TosaBuilder::shape(v), g));
  }
  return tb.reshape(tb.transpose(v, perm), shape);
}

Value lowerDotGeneral(TosaBuilder &tb, sh::DotGeneralOp op,
                      sh::DotGeneralOp::Adaptor a) {
  sh::DotDimensionNumbersAttr dims = op.getDotDimensionNumbers();
  Value lhs = a.getLhs(), rhs = a.getRhs();
  Type elem = op.getType().getElementType();
  if (!isa<FloatType>(elem) || TosaBuilder::elem(lhs) != elem ||
      TosaBuilder::elem(rhs) != elem) {
    op.emitOpError() << "is only supported on floats of one type";
    return {};
  }
  SmallVector<int64_t> lb(dims.getLhsBatchingDimensions()),
      rb(dims.getRhsBatchingDimensions()),
      lc(dims.getLhsContractingDimensions()),
      rc(dims.getRhsContractingDimensions());
  SmallVector<int64_t> lm = freeDims(TosaBuilder::type(lhs).getRank(), lb, lc);
  SmallVector<int64_t> rn = freeDims(TosaBuilder::type(rhs).getRank(), rb, rc);
  Value l3 = toMatrix(tb, lhs, {lb, lm, lc});
  Value r3 = toMatrix(tb, rhs, {rb, rc, rn});
  ArrayRef<int64_t> ls = TosaBuilder::shape(l3), rs = TosaBuilder::shape(r3);
  Value zp = tb.zeroPoint(elem);
  Value m = tosa::MatMulOp::create(
      tb.b, tb.loc, TosaBuilder::tensor({ls[0], ls[1], rs[2]}, elem), l3, r3,
      zp, zp);
  return tb.reshape(m, op.getType().getShape());
}

} // namespace

void pipewave::populateStablehloDotGeneralToTosaPatterns(
    RewritePatternSet &patterns) {
  addLowering<sh::DotGeneralOp>(patterns, lowerDotGeneral);
}
