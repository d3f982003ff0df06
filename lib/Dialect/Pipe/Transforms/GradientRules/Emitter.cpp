//===- Emitter.cpp - TOSA helpers for gradient rules, the rule table ------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Transforms/GradientRules.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir;
using namespace pipewave::pipe::autodiff;

//===----------------------------------------------------------------------===//
// ConstantPool
//===----------------------------------------------------------------------===//

OpBuilder ConstantPool::builderAtTop() {
  OpBuilder builder(block, block->begin());
  if (last)
    builder.setInsertionPointAfter(last);
  return builder;
}

Value ConstantPool::tensor(Location loc, DenseElementsAttr value) {
  if (Value cached = tensors.lookup(value))
    return cached;
  OpBuilder builder = builderAtTop();
  auto op = tosa::ConstOp::create(builder, loc, value.getType(), value);
  last = op;
  tensors[value] = op.getResult();
  return op.getResult();
}

Value ConstantPool::shape(Location loc, ArrayRef<int64_t> values) {
  MLIRContext *ctx = block->getParent()->getContext();
  auto attr = DenseIntElementsAttr::get(
      RankedTensorType::get({static_cast<int64_t>(values.size())},
                            IndexType::get(ctx)),
      values);
  if (Value cached = shapes.lookup(attr))
    return cached;
  OpBuilder builder = builderAtTop();
  auto op = tosa::ConstShapeOp::create(
      builder, loc, tosa::shapeType::get(ctx, values.size()), attr);
  last = op;
  shapes[attr] = op.getResult();
  return op.getResult();
}

SmallVector<Value, 1> ConstantPool::materialize(Operation *op) {
  if (auto constant = dyn_cast<tosa::ConstOp>(op))
    if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValues()))
      if (dense.getType() == constant.getType())
        return {tensor(op->getLoc(), dense)};
  if (auto shapeOp = dyn_cast<tosa::ConstShapeOp>(op))
    return {shape(op->getLoc(),
                  llvm::to_vector(shapeOp.getValues().getValues<int64_t>()))};
  OpBuilder builder = builderAtTop();
  Operation *copy = builder.clone(*op);
  last = copy;
  return copy->getResults();
}

//===----------------------------------------------------------------------===//
// GradientEmitter
//===----------------------------------------------------------------------===//

namespace {

RankedTensorType tensorType(Value v) {
  return llvm::cast<RankedTensorType>(v.getType());
}

/// Broadcast shape of two static shapes (aligned on the right).
SmallVector<int64_t> broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> shape(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    shape[i] = da == 1 ? db : da;
  }
  return shape;
}

RankedTensorType broadcastType(Value a, Value b, Type elementType) {
  return RankedTensorType::get(
      broadcastShape(tensorType(a).getShape(), tensorType(b).getShape()),
      elementType);
}

} // namespace

Value GradientEmitter::constant(DenseElementsAttr value) {
  return constants.tensor(loc, value);
}

Value GradientEmitter::splat(RankedTensorType type, double value) {
  Type element = type.getElementType();
  DenseElementsAttr attr;
  if (isa<FloatType>(element))
    attr = DenseElementsAttr::get(type, FloatAttr::get(element, value));
  else if (element.isInteger(1))
    attr = DenseElementsAttr::get(type, value != 0.0);
  else
    attr = DenseElementsAttr::get(
        type, IntegerAttr::get(element, static_cast<int64_t>(value)));
  return constants.tensor(loc, attr);
}

Value GradientEmitter::scalarLike(Type like, double value) {
  auto type = llvm::cast<RankedTensorType>(like);
  SmallVector<int64_t> ones(type.getRank(), 1);
  return splat(RankedTensorType::get(ones, type.getElementType()), value);
}

Value GradientEmitter::constShape(ArrayRef<int64_t> values) {
  return constants.shape(loc, values);
}

Value GradientEmitter::mulShift() {
  return splat(RankedTensorType::get({1}, builder.getI8Type()), 0.0);
}

Value GradientEmitter::zeroPoint(Type elementType) {
  return splat(RankedTensorType::get({1}, elementType), 0.0);
}

Value GradientEmitter::add(Value a, Value b) {
  return tosa::AddOp::create(
      builder, loc, broadcastType(a, b, tensorType(a).getElementType()), a, b);
}

Value GradientEmitter::sub(Value a, Value b) {
  return tosa::SubOp::create(
      builder, loc, broadcastType(a, b, tensorType(a).getElementType()), a, b);
}

Value GradientEmitter::mul(Value a, Value b) {
  return tosa::MulOp::create(
      builder, loc, broadcastType(a, b, tensorType(a).getElementType()), a, b,
      mulShift());
}

Value GradientEmitter::pow(Value a, Value b) {
  return tosa::PowOp::create(
      builder, loc, broadcastType(a, b, tensorType(a).getElementType()), a, b);
}

Value GradientEmitter::neg(Value x) {
  Type element = tensorType(x).getElementType();
  return tosa::NegateOp::create(builder, loc, x.getType(), x,
                                zeroPoint(element), zeroPoint(element));
}

Value GradientEmitter::exp(Value x) {
  return tosa::ExpOp::create(builder, loc, x.getType(), x);
}
Value GradientEmitter::log(Value x) {
  return tosa::LogOp::create(builder, loc, x.getType(), x);
}
Value GradientEmitter::reciprocal(Value x) {
  return tosa::ReciprocalOp::create(builder, loc, x.getType(), x);
}
Value GradientEmitter::sin(Value x) {
  return tosa::SinOp::create(builder, loc, x.getType(), x);
}
Value GradientEmitter::cos(Value x) {
  return tosa::CosOp::create(builder, loc, x.getType(), x);
}

Value GradientEmitter::greater(Value a, Value b) {
  return tosa::GreaterOp::create(
      builder, loc, broadcastType(a, b, builder.getI1Type()), a, b);
}

Value GradientEmitter::equal(Value a, Value b) {
  return tosa::EqualOp::create(builder, loc,
                               broadcastType(a, b, builder.getI1Type()), a, b);
}

Value GradientEmitter::logicalAnd(Value a, Value b) {
  return tosa::LogicalAndOp::create(
      builder, loc, broadcastType(a, b, builder.getI1Type()), a, b);
}

Value GradientEmitter::select(Value cond, Value onTrue, Value onFalse) {
  RankedTensorType type =
      broadcastType(cond, onTrue, tensorType(onTrue).getElementType());
  type = RankedTensorType::get(
      broadcastShape(type.getShape(), tensorType(onFalse).getShape()),
      type.getElementType());
  return tosa::SelectOp::create(builder, loc, type, cond, onTrue, onFalse);
}

Value GradientEmitter::cast(Value x, Type elementType) {
  if (tensorType(x).getElementType() == elementType)
    return x;
  return tosa::CastOp::create(builder, loc, tensorType(x).clone(elementType),
                              x);
}

Value GradientEmitter::reshape(Value x, ArrayRef<int64_t> shape) {
  if (tensorType(x).getShape() == shape)
    return x;
  return tosa::ReshapeOp::create(builder, loc, tensorType(x).clone(shape), x,
                                 constShape(shape));
}

Value GradientEmitter::transpose(Value x, ArrayRef<int32_t> perms) {
  ArrayRef<int64_t> in = tensorType(x).getShape();
  SmallVector<int64_t> shape;
  for (int32_t p : perms)
    shape.push_back(in[p]);
  return tosa::TransposeOp::create(builder, loc, tensorType(x).clone(shape), x,
                                   perms);
}

Value GradientEmitter::reduceSum(Value x, int64_t axis) {
  SmallVector<int64_t> shape(tensorType(x).getShape());
  shape[axis] = 1;
  return tosa::ReduceSumOp::create(builder, loc, tensorType(x).clone(shape), x,
                                   builder.getI32IntegerAttr(axis));
}

Value GradientEmitter::reduceSumAll(Value x) {
  RankedTensorType type = tensorType(x);
  if (type.getRank() == 0)
    return x;
  for (int64_t axis = 0; axis < type.getRank(); ++axis)
    if (tensorType(x).getDimSize(axis) != 1)
      x = reduceSum(x, axis);
  return x;
}

Value GradientEmitter::tile(Value x, ArrayRef<int64_t> multiples) {
  if (llvm::all_of(multiples, [](int64_t m) { return m == 1; }))
    return x;
  SmallVector<int64_t> shape(tensorType(x).getShape());
  for (auto [dim, m] : llvm::zip_equal(shape, multiples))
    dim *= m;
  return tosa::TileOp::create(builder, loc, tensorType(x).clone(shape), x,
                              constShape(multiples));
}

Value GradientEmitter::slice(Value x, ArrayRef<int64_t> start,
                             ArrayRef<int64_t> size) {
  return tosa::SliceOp::create(builder, loc, tensorType(x).clone(size), x,
                               constShape(start), constShape(size));
}

Value GradientEmitter::pad(Value x, ArrayRef<int64_t> padding) {
  SmallVector<int64_t> shape(tensorType(x).getShape());
  for (auto [i, dim] : llvm::enumerate(shape))
    dim += padding[2 * i] + padding[2 * i + 1];
  Type element = tensorType(x).getElementType();
  return tosa::PadOp::create(builder, loc, tensorType(x).clone(shape), x,
                             constShape(padding), zeroPoint(element));
}

Value GradientEmitter::reverse(Value x, int64_t axis) {
  return tosa::ReverseOp::create(builder, loc, x.getType(), x,
                                 builder.getI32IntegerAttr(axis));
}

Value GradientEmitter::matmul(Value a, Value b) {
  RankedTensorType ta = tensorType(a), tb = tensorType(b);
  int64_t batch = std::max(ta.getDimSize(0), tb.getDimSize(0));
  auto type = RankedTensorType::get({batch, ta.getDimSize(1), tb.getDimSize(2)},
                                    ta.getElementType());
  Value zp = zeroPoint(ta.getElementType());
  return tosa::MatMulOp::create(builder, loc, type, a, b, zp, zp);
}

Value GradientEmitter::shift(Value x, ArrayRef<int64_t> offset,
                             ArrayRef<int64_t> shape, Value fill) {
  ArrayRef<int64_t> in = tensorType(x).getShape();
  SmallVector<int64_t> padding, start, padded;
  bool pads = false, crops = false;
  for (auto [dim, off, want] : llvm::zip_equal(in, offset, shape)) {
    int64_t lo = std::max<int64_t>(off, 0);
    int64_t hi = std::max<int64_t>(want - (dim + off), 0);
    padding.append({lo, hi});
    padded.push_back(dim + lo + hi);
    start.push_back(std::max<int64_t>(-off, 0));
    pads |= lo != 0 || hi != 0;
    crops |= padded.back() != want;
  }
  if (pads) {
    Type element = tensorType(x).getElementType();
    x = tosa::PadOp::create(builder, loc, tensorType(x).clone(padded), x,
                            constShape(padding),
                            fill ? fill : zeroPoint(element));
  }
  return crops ? slice(x, start, shape) : x;
}

Value GradientEmitter::dilate(Value x, ArrayRef<int64_t> stride) {
  ArrayRef<int64_t> s = tensorType(x).getShape();
  if (stride[0] == 1 && stride[1] == 1)
    return x;
  int64_t n = s[0], h = s[1], w = s[2], c = s[3];
  x = reshape(x, {n, h, 1, w, 1, c});
  x = pad(x, {0, 0, 0, 0, 0, stride[0] - 1, 0, 0, 0, stride[1] - 1, 0, 0});
  x = reshape(x, {n, h * stride[0], w * stride[1], c});
  return slice(x, {0, 0, 0, 0},
               {n, (h - 1) * stride[0] + 1, (w - 1) * stride[1] + 1, c});
}

Value GradientEmitter::subsample(Value x, ArrayRef<int64_t> offset,
                                 ArrayRef<int64_t> stride,
                                 ArrayRef<int64_t> size) {
  ArrayRef<int64_t> s = tensorType(x).getShape();
  int64_t n = s[0], c = s[3];
  x = shift(x, {0, -offset[0], -offset[1], 0},
            {n, size[0] * stride[0], size[1] * stride[1], c});
  if (stride[0] == 1 && stride[1] == 1)
    return x;
  x = reshape(x, {n, size[0], stride[0], size[1], stride[1], c});
  x = slice(x, {0, 0, 0, 0, 0, 0}, {n, size[0], 1, size[1], 1, c});
  return reshape(x, {n, size[0], size[1], c});
}

/// TOSA's output size of a convolution window, assuming exact division.
static int64_t convOut(int64_t in, int64_t kernel, int64_t stride,
                       int64_t dilation) {
  return (in - 1 - (kernel - 1) * dilation) / stride + 1;
}

Value GradientEmitter::conv2d(Value x, Value w, ArrayRef<int64_t> stride,
                              ArrayRef<int64_t> dilation, Type accType) {
  ArrayRef<int64_t> xs = tensorType(x).getShape(),
                    ws = tensorType(w).getShape();
  Type element = tensorType(x).getElementType();
  auto type = RankedTensorType::get(
      {xs[0], convOut(xs[1], ws[1], stride[0], dilation[0]),
       convOut(xs[2], ws[2], stride[1], dilation[1]), ws[0]},
      element);
  Value zp = zeroPoint(element);
  return tosa::Conv2DOp::create(
      builder, loc, type, x, w,
      splat(RankedTensorType::get({ws[0]}, element), 0.0), zp, zp,
      builder.getDenseI64ArrayAttr({0, 0, 0, 0}),
      builder.getDenseI64ArrayAttr(stride),
      builder.getDenseI64ArrayAttr(dilation), TypeAttr::get(accType),
      builder.getBoolAttr(false));
}

Value GradientEmitter::depthwiseConv2d(Value x, Value w,
                                       ArrayRef<int64_t> stride,
                                       ArrayRef<int64_t> dilation,
                                       Type accType) {
  ArrayRef<int64_t> xs = tensorType(x).getShape(),
                    ws = tensorType(w).getShape();
  Type element = tensorType(x).getElementType();
  int64_t channels = ws[2] * ws[3];
  auto type = RankedTensorType::get(
      {xs[0], convOut(xs[1], ws[0], stride[0], dilation[0]),
       convOut(xs[2], ws[1], stride[1], dilation[1]), channels},
      element);
  Value zp = zeroPoint(element);
  return tosa::DepthwiseConv2DOp::create(
      builder, loc, type, x, w,
      splat(RankedTensorType::get({channels}, element), 0.0), zp, zp,
      builder.getDenseI64ArrayAttr({0, 0, 0, 0}),
      builder.getDenseI64ArrayAttr(stride),
      builder.getDenseI64ArrayAttr(dilation), TypeAttr::get(accType),
      builder.getBoolAttr(false));
}

Value GradientEmitter::sumToShape(Value grad, Type target) {
  ArrayRef<int64_t> to = llvm::cast<RankedTensorType>(target).getShape();
  ArrayRef<int64_t> from = tensorType(grad).getShape();
  int64_t offset =
      static_cast<int64_t>(from.size()) - static_cast<int64_t>(to.size());
  for (int64_t d = 0; d < static_cast<int64_t>(from.size()); ++d) {
    int64_t targetDim = d < offset ? 1 : to[d - offset];
    if (targetDim == 1 && tensorType(grad).getDimSize(d) != 1)
      grad = reduceSum(grad, d);
  }
  return reshape(grad, to);
}

Value GradientEmitter::broadcastTo(Value x, Type target) {
  auto to = llvm::cast<RankedTensorType>(target);
  if (tensorType(x).getShape() == to.getShape())
    return x;
  if (tensorType(x).getRank() != to.getRank()) {
    SmallVector<int64_t> shape(to.getRank() - tensorType(x).getRank(), 1);
    llvm::append_range(shape, tensorType(x).getShape());
    x = reshape(x, shape);
  }
  SmallVector<int64_t> multiples;
  for (auto [have, want] :
       llvm::zip_equal(tensorType(x).getShape(), to.getShape()))
    multiples.push_back(have == want ? 1 : want);
  return tile(x, multiples);
}

//===----------------------------------------------------------------------===//
// GradientRuleTable
//===----------------------------------------------------------------------===//

void GradientRuleTable::add(StringRef opName, GradientRule rule) {
  rules[opName] = std::move(rule);
}

const GradientRule *GradientRuleTable::lookup(StringRef opName) const {
  auto it = rules.find(opName);
  return it == rules.end() ? nullptr : &it->second;
}

const GradientRuleTable &GradientRuleTable::getDefault() {
  static const GradientRuleTable table = [] {
    GradientRuleTable t;
    registerElementwiseGradientRules(t);
    registerMatmulGradientRules(t);
    registerReductionGradientRules(t);
    registerDataMovementGradientRules(t);
    registerConvolutionGradientRules(t);
    registerPoolingGradientRules(t);
    return t;
  }();
  return table;
}

bool pipewave::pipe::autodiff::isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}
