//===- ImporterHelpers.cpp - Values and builders of the ONNX importer -----===//
//
// Part of the pipewave project.
//
// The Importer methods the node importers build with (OnnxOps.h): inputs and
// constants by ONNX name, attributes, and small TOSA builders.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

using namespace mlir;
using namespace pipewave;
using namespace pipewave::onnximport;

Type pipewave::onnximport::convertElementType(MLIRContext *ctx, int t) {
  Builder b(ctx);
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::INT16:
    return b.getIntegerType(16);
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

LogicalResult Importer::error(const Twine &message) {
  if (errorText.empty())
    errorText = message.str();
  return failure();
}

Value Importer::materialize(DenseElementsAttr c) {
  auto t = llvm::cast<RankedTensorType>(c.getType());
  return tosa::ConstOp::create(b, loc, t, c);
}

Value Importer::input(const Node &n, int i) {
  if (!hasInput(n, i)) {
    (void)error("missing input " + Twine(i));
    return {};
  }
  const std::string &name = n.input(i);
  auto it = values.find(name);
  if (it != values.end())
    return it->second;
  auto c = constants.find(name);
  if (c != constants.end()) {
    if (c->second.getNumElements() == 0) {
      (void)error("empty tensors are not supported ('" + name + "' is empty)");
      return {};
    }
    Value v = materialize(c->second);
    values[name] = v;
    return v;
  }
  (void)error("input '" + name + "' is not defined");
  return {};
}

std::optional<DenseElementsAttr> Importer::constInput(const Node &n, int i) {
  if (!hasInput(n, i))
    return std::nullopt;
  auto c = constants.find(n.input(i));
  if (c == constants.end())
    return std::nullopt;
  return c->second;
}

std::optional<SmallVector<int64_t>> Importer::constInts(const Node &n, int i) {
  auto c = constInput(n, i);
  if (!c || !llvm::isa<IntegerType>(c->getElementType()))
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const APInt &v : c->getValues<APInt>())
    out.push_back(c->getElementType().isInteger(1) ? v.getZExtValue()
                                                   : v.getSExtValue());
  return out;
}

const onnx::AttributeProto *Importer::attr(const Node &n,
                                           StringRef name) const {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t Importer::attrInt(const Node &n, StringRef name, int64_t dflt) const {
  const auto *a = attr(n, name);
  return a ? a->i() : dflt;
}

float Importer::attrFloat(const Node &n, StringRef name, float dflt) const {
  const auto *a = attr(n, name);
  return a ? a->f() : dflt;
}

std::string Importer::attrString(const Node &n, StringRef name,
                                 StringRef dflt) const {
  const auto *a = attr(n, name);
  return a ? a->s() : dflt.str();
}

std::optional<SmallVector<int64_t>> Importer::attrInts(const Node &n,
                                                       StringRef name) const {
  const auto *a = attr(n, name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

Value Importer::constShape(ArrayRef<int64_t> s) {
  auto attrType = RankedTensorType::get({(int64_t)s.size()}, b.getIndexType());
  auto shapeType = tosa::shapeType::get(ctx, s.size());
  return tosa::ConstShapeOp::create(b, loc, shapeType,
                                    DenseIntElementsAttr::get(attrType, s));
}

Value Importer::reshape(Value v, ArrayRef<int64_t> s) {
  if (shape(v) == s)
    return v;
  return tosa::ReshapeOp::create(b, loc, tensor(s, elem(v)), v, constShape(s));
}

/// The dimensions of `s` other than 1.
static SmallVector<int64_t> nonUnitDims(ArrayRef<int64_t> s) {
  SmallVector<int64_t> dims;
  for (int64_t d : s)
    if (d != 1)
      dims.push_back(d);
  return dims;
}

Value Importer::transpose(Value v, ArrayRef<int32_t> perms) {
  bool identity = true;
  SmallVector<int64_t> s;
  for (auto [i, p] : llvm::enumerate(perms)) {
    identity &= (int64_t)i == p;
    s.push_back(shape(v)[p]);
  }
  if (identity)
    return v;
  // A transpose that undoes an earlier one, possibly with reshapes between
  // them that only insert or drop dimensions of size 1 (a Transpose, a
  // Squeeze and the Transpose back around an unrolled time-major
  // recurrence), is a reshape of the first one's input.
  Value base = v;
  while (auto r = base.getDefiningOp<tosa::ReshapeOp>()) {
    if (nonUnitDims(shape(r.getInput1())) != nonUnitDims(shape(base)))
      break;
    base = r.getInput1();
  }
  if (auto inner = base.getDefiningOp<tosa::TransposeOp>()) {
    // The dimension of the inner input each non-unit dimension of `v`
    // comes from, and the order the result reads them in.
    SmallVector<int64_t> source, order;
    for (auto [i, p] : llvm::enumerate(inner.getPerms()))
      if (shape(base)[i] != 1)
        source.push_back(p);
    SmallVector<int64_t> ordinal;
    int64_t next = 0;
    for (int64_t d : shape(v))
      ordinal.push_back(d != 1 ? next++ : -1);
    for (int32_t p : perms)
      if (ordinal[p] >= 0)
        order.push_back(source[ordinal[p]]);
    if (llvm::is_sorted(order))
      return reshape(inner.getInput1(), s);
  }
  return tosa::TransposeOp::create(b, loc, tensor(s, elem(v)), v,
                                   b.getDenseI32ArrayAttr(perms));
}

Value Importer::splat(double value, Type e, ArrayRef<int64_t> s) {
  auto t = tensor(s, e);
  DenseElementsAttr attr;
  if (auto ft = llvm::dyn_cast<FloatType>(e))
    attr = DenseElementsAttr::get(t, b.getFloatAttr(ft, value));
  else
    attr = DenseElementsAttr::get(t, b.getIntegerAttr(e, (int64_t)value));
  return tosa::ConstOp::create(b, loc, t, attr);
}

Value Importer::shift() { return splat(0, b.getIntegerType(8), {1}); }

Value Importer::zeroPoint(Type e) { return splat(0, e, {1}); }

Value Importer::cast(Value v, Type e) {
  if (!v)
    return {};
  if (elem(v) == e)
    return v;
  return tosa::CastOp::create(b, loc, tensor(shape(v), e), v);
}

void Importer::alignRanks(Value &a, Value &c) {
  int64_t ra = shape(a).size(), rc = shape(c).size();
  auto pad = [&](Value v, int64_t rank) {
    SmallVector<int64_t> s(rank - shape(v).size(), 1);
    llvm::append_range(s, shape(v));
    return reshape(v, s);
  };
  if (ra < rc)
    a = pad(a, rc);
  else if (rc < ra)
    c = pad(c, ra);
}

std::optional<SmallVector<int64_t>>
Importer::broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> c) {
  size_t r = std::max(a.size(), c.size());
  SmallVector<int64_t> out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t dc = i < r - c.size() ? 1 : c[i - (r - c.size())];
    if (da != dc && da != 1 && dc != 1)
      return std::nullopt;
    out[i] = da == 1 ? dc : da;
  }
  return out;
}

Value Importer::mul(Value a, Value c) {
  if (!a || !c)
    return {};
  alignRanks(a, c);
  auto s = broadcastShape(shape(a), shape(c));
  if (!s) {
    (void)error("operand shapes do not broadcast");
    return {};
  }
  return tosa::MulOp::create(b, loc, tensor(*s, elem(a)), a, c, shift());
}

Value Importer::reduceSum(Value v, ArrayRef<int64_t> axes) {
  for (int64_t a : axes)
    v = reduce<tosa::ReduceSumOp>(v, a);
  return v;
}

Value Importer::reduceMax(Value v, ArrayRef<int64_t> axes) {
  for (int64_t a : axes)
    v = reduce<tosa::ReduceMaxOp>(v, a);
  return v;
}

std::optional<int64_t> Importer::axis(int64_t a, int64_t rank) {
  if (a < 0)
    a += rank;
  if (a < 0 || a >= std::max<int64_t>(rank, 1)) {
    (void)error("axis out of range");
    return std::nullopt;
  }
  return a;
}
