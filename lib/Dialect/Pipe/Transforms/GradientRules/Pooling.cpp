//===- Pooling.cpp - Gradient rules of TOSA 2-D pools ---------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// x : [N, IH, IW, C] (NHWC), kernel [KH, KW], stride [sy, sx], padding
// [pt, pb, pl, pr], y : [N, OH, OW, C]. Both backwards loop over the KH*KW
// kernel offsets (k, l): the window element of output (oh, ow) at that
// offset is xp[n, oh*sy + k, ow*sx + l, c] of the padded input xp, read with
// a strided subsample and written back with a dilation and a shift into a
// [N, IH+pt+pb, IW+pl+pr, C] accumulator, which is cropped to x at the end.
//
//  * max_pool2d: the cotangent goes to the first element of each window
//    (in row-major kernel order) that equals the maximum, as PyTorch's
//    max_pool2d does; on ties the later equal elements get nothing. A float
//    mask `free` (1 until the window's maximum was found) tracks it:
//      hit_kl = (xp_kl == y) ? free : 0,   free -= hit_kl,
//      dxp += scatter_kl(dy * hit_kl).
//    The padding of xp is the lowest finite value, so it never wins over an
//    element of x (TOSA pads max_pool2d with the lowest value too).
//  * avg_pool2d: TOSA divides by the number of window elements inside x
//    (padding does not count), a compile-time constant count[oh, ow]:
//      dxp += scatter_kl(dy / count).
//    Zero points are float zeros and get no gradient.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Transforms/GradientRules.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace pipewave::pipe::autodiff;

namespace {

struct Window {
  ArrayRef<int64_t> kernel, stride, pad;
  ArrayRef<int64_t> in, out;
  /// Shape of the padded input.
  SmallVector<int64_t> padded() const {
    return {in[0], in[1] + pad[0] + pad[1], in[2] + pad[2] + pad[3], in[3]};
  }
};

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Adds v : [N, OH, OW, C] to the padded-input accumulator at kernel offset
/// (k, l).
Value scatterAdd(GradientEmitter &e, Value acc, Value v, const Window &w,
                 int64_t k, int64_t l) {
  Value placed = e.shift(e.dilate(v, w.stride), {0, k, l, 0}, w.padded());
  return acc ? e.add(acc, placed) : placed;
}

/// The accumulator cropped back to the unpadded input.
Value unpad(GradientEmitter &e, Value acc, const Window &w) {
  return e.shift(acc, {0, -w.pad[0], -w.pad[2], 0}, w.in);
}

LogicalResult maxPoolRule(Operation *op, GradientEmitter &e,
                          ArrayRef<Value> dResults, ArrayRef<bool> needed,
                          MutableArrayRef<Value> dOperands) {
  if (!needed[0])
    return success();
  auto pool = cast<tosa::MaxPool2dOp>(op);
  Window w{pool.getKernel(), pool.getStride(), pool.getPad(),
           shapeOf(pool.getInput()), shapeOf(pool.getOutput())};
  auto type = cast<RankedTensorType>(pool.getInput().getType());
  auto element = cast<FloatType>(type.getElementType());
  Value lowest = e.constant(DenseElementsAttr::get(
      RankedTensorType::get({1}, element),
      APFloat::getLargest(element.getFloatSemantics(), /*Negative=*/true)));
  Value x = e.primal(pool.getInput());
  Value xp = e.shift(x, {0, w.pad[0], w.pad[2], 0}, w.padded(), lowest);
  Value y = e.primal(pool.getOutput());
  Value dy = dResults[0];
  Value one = e.scalarLike(type, 1.0), zero = e.scalarLike(type, 0.0);
  Value free = one, acc;
  for (int64_t k = 0; k < w.kernel[0]; ++k) {
    for (int64_t l = 0; l < w.kernel[1]; ++l) {
      Value candidate = e.subsample(xp, {k, l}, w.stride, {w.out[1], w.out[2]});
      Value hit = e.select(e.equal(candidate, y), free, zero);
      free = e.sub(free, hit);
      acc = scatterAdd(e, acc, e.mul(dy, hit), w, k, l);
    }
  }
  dOperands[0] = unpad(e, acc, w);
  return success();
}

/// Number of kernel offsets k with 0 <= o*stride - pad + k < size.
int64_t insideCount(int64_t o, int64_t kernel, int64_t stride, int64_t pad,
                    int64_t size) {
  int64_t begin = o * stride - pad;
  return std::min(begin + kernel, size) - std::max<int64_t>(begin, 0);
}

LogicalResult avgPoolRule(Operation *op, GradientEmitter &e,
                          ArrayRef<Value> dResults, ArrayRef<bool> needed,
                          MutableArrayRef<Value> dOperands) {
  if (!needed[0])
    return success();
  auto pool = cast<tosa::AvgPool2dOp>(op);
  Window w{pool.getKernel(), pool.getStride(), pool.getPad(),
           shapeOf(pool.getInput()), shapeOf(pool.getOutput())};
  auto element = cast<FloatType>(
      cast<RankedTensorType>(pool.getInput().getType()).getElementType());
  SmallVector<APFloat> inverse;
  for (int64_t i = 0; i < w.out[1]; ++i) {
    for (int64_t j = 0; j < w.out[2]; ++j) {
      int64_t count =
          insideCount(i, w.kernel[0], w.stride[0], w.pad[0], w.in[1]) *
          insideCount(j, w.kernel[1], w.stride[1], w.pad[2], w.in[2]);
      APFloat value(1.0 / static_cast<double>(std::max<int64_t>(count, 1)));
      bool lost;
      value.convert(element.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &lost);
      inverse.push_back(value);
    }
  }
  Value scale = e.constant(DenseElementsAttr::get(
      RankedTensorType::get({1, w.out[1], w.out[2], 1}, element), inverse));
  Value share = e.mul(dResults[0], scale);
  Value acc;
  for (int64_t k = 0; k < w.kernel[0]; ++k)
    for (int64_t l = 0; l < w.kernel[1]; ++l)
      acc = scatterAdd(e, acc, share, w, k, l);
  dOperands[0] = unpad(e, acc, w);
  return success();
}

} // namespace

void pipewave::pipe::autodiff::registerPoolingGradientRules(
    GradientRuleTable &table) {
  table.add(tosa::MaxPool2dOp::getOperationName(), maxPoolRule);
  table.add(tosa::AvgPool2dOp::getOperationName(), avgPoolRule);
}
