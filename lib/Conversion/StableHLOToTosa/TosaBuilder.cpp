//===- TosaBuilder.cpp - TOSA building blocks of stablehlo-to-tosa --------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "TosaBuilder.h"

using namespace mlir;
using namespace pipewave::shlo;

Value TosaBuilder::constant(DenseElementsAttr value) {
  return tosa::ConstOp::create(b, loc, value.getType(), value);
}

Value TosaBuilder::splat(double value, Type elem, ArrayRef<int64_t> shape) {
  auto t = tensor(shape, elem);
  if (auto f = dyn_cast<FloatType>(elem))
    return constant(
        DenseElementsAttr::get(t, b.getFloatAttr(f, value).getValue()));
  return constant(DenseElementsAttr::get(
      t, APInt(elem.getIntOrFloatBitWidth(), (int64_t)value, true)));
}

Value TosaBuilder::constShape(ArrayRef<int64_t> shape) {
  auto attrType =
      RankedTensorType::get({(int64_t)shape.size()}, b.getIndexType());
  return tosa::ConstShapeOp::create(
      b, loc, tosa::shapeType::get(b.getContext(), shape.size()),
      DenseIntElementsAttr::get(attrType, shape));
}

Value TosaBuilder::zeroPoint(Type elem) { return splat(0, elem, {1}); }

Value TosaBuilder::reshape(Value v, ArrayRef<int64_t> shape) {
  if (TosaBuilder::shape(v) == shape)
    return v;
  return tosa::ReshapeOp::create(b, loc, tensor(shape, elem(v)), v,
                                 constShape(shape));
}

Value TosaBuilder::toRank(Value v, int64_t rank) {
  int64_t have = type(v).getRank();
  if (have >= rank)
    return v;
  SmallVector<int64_t> s(rank - have, 1);
  llvm::append_range(s, shape(v));
  return reshape(v, s);
}

Value TosaBuilder::transpose(Value v, ArrayRef<int64_t> perms) {
  bool identity = true;
  for (auto [i, p] : llvm::enumerate(perms))
    identity &= (int64_t)i == p;
  if (identity)
    return v;
  SmallVector<int64_t> s;
  SmallVector<int32_t> p32;
  for (int64_t p : perms) {
    s.push_back(shape(v)[p]);
    p32.push_back(p);
  }
  return tosa::TransposeOp::create(b, loc, tensor(s, elem(v)), v,
                                   b.getDenseI32ArrayAttr(p32));
}

Value TosaBuilder::tile(Value v, ArrayRef<int64_t> multiples) {
  if (llvm::all_of(multiples, [](int64_t m) { return m == 1; }))
    return v;
  SmallVector<int64_t> s;
  for (auto [d, m] : llvm::zip(shape(v), multiples))
    s.push_back(d * m);
  return tosa::TileOp::create(b, loc, tensor(s, elem(v)), v,
                              constShape(multiples));
}

Value TosaBuilder::cast(Value v, Type elem) {
  if (TosaBuilder::elem(v) == elem)
    return v;
  return tosa::CastOp::create(b, loc, tensor(shape(v), elem), v);
}

Value TosaBuilder::mul(Value a, Value c) {
  int64_t rank = std::max(type(a).getRank(), type(c).getRank());
  a = toRank(a, rank);
  c = toRank(c, rank);
  SmallVector<int64_t> s;
  for (int64_t i = 0; i < rank; ++i)
    s.push_back(std::max(shape(a)[i], shape(c)[i]));
  Value shift = splat(0, b.getI8Type(), {1});
  return tosa::MulOp::create(b, loc, tensor(s, elem(a)), a, c, shift);
}
