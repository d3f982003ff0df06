//===- Constants.cpp - stablehlo.constant and iota to tosa.const ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Both become `tosa.const`: a constant keeps its dense value, an iota (static
// shape) is materialized.
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

Value lowerConstant(TosaBuilder &tb, sh::ConstantOp op,
                    sh::ConstantOp::Adaptor) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense) {
    op.emitOpError() << "only dense constants are supported";
    return {};
  }
  return tb.constant(dense);
}

Value lowerIota(TosaBuilder &tb, sh::IotaOp op, sh::IotaOp::Adaptor) {
  RankedTensorType type = cast<RankedTensorType>(op.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t dim = op.getIotaDimension();
  int64_t inner = 1;
  for (int64_t i = dim + 1; i < (int64_t)shape.size(); ++i)
    inner *= shape[i];
  int64_t n = type.getNumElements();
  Type elem = type.getElementType();
  if (auto f = dyn_cast<FloatType>(elem)) {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < n; ++i) {
      APFloat v((double)((i / inner) % shape[dim]));
      bool lost;
      v.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(v);
    }
    return tb.constant(DenseElementsAttr::get(type, values));
  }
  if (!elem.isSignlessInteger()) {
    op.emitOpError() << "of " << elem << " is not supported";
    return {};
  }
  SmallVector<APInt> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(
        APInt(elem.getIntOrFloatBitWidth(), (i / inner) % shape[dim]));
  return tb.constant(DenseElementsAttr::get(type, values));
}

} // namespace

void pipewave::populateStablehloConstantToTosaPatterns(
    RewritePatternSet &patterns) {
  addLowering<sh::ConstantOp>(patterns, lowerConstant);
  addLowering<sh::IotaOp>(patterns, lowerIota);
}
