//===- ShapeOps.cpp - ONNX shape and data-movement ops to TOSA ------------===//
//
// Part of the pipewave project.
//
// Shapes are static, so Shape and the integer arithmetic built on it
// (Gather/Unsqueeze/Concat/...) fold to compile-time constants; Reshape,
// Expand, Slice and friends then take constant operands.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

using namespace mlir;
using namespace pipewave::onnximport;

namespace {

int64_t product(ArrayRef<int64_t> s) {
  int64_t p = 1;
  for (int64_t d : s)
    p *= d;
  return p;
}

/// Shape of input i, for a value or a constant.
std::optional<SmallVector<int64_t>> inputShape(Importer &im, const Node &n,
                                               int i) {
  if (auto c = im.constInput(n, i))
    return SmallVector<int64_t>(c->getType().getShape());
  Value v = im.input(n, i);
  if (!v)
    return std::nullopt;
  return SmallVector<int64_t>(Importer::shape(v));
}

/// Whether `s` is a valid static shape (no negative sizes, a sane count).
bool validShape(ArrayRef<int64_t> s) {
  int64_t count = 1;
  for (int64_t d : s)
    if (d < 0 || __builtin_mul_overflow(count, d, &count) ||
        count > (int64_t(1) << 40))
      return false;
  return true;
}

/// Output 0 is input 0 with a new shape: reshapes a constant or a value.
LogicalResult setReshaped(Importer &im, const Node &n, ArrayRef<int64_t> s) {
  if (!validShape(s))
    return im.error("invalid target shape");
  if (auto c = im.constInput(n, 0)) {
    if (product(s) != c->getNumElements())
      return im.error("reshape changes the number of elements");
    im.setConstOutput(n, 0, c->reshape(im.tensor(s, c->getElementType())));
    return success();
  }
  Value v = im.input(n, 0);
  if (!v)
    return failure();
  if (product(s) != product(Importer::shape(v)))
    return im.error("reshape changes the number of elements");
  im.setOutput(n, 0, im.reshape(v, s));
  return success();
}

LogicalResult importConstant(Importer &im, const Node &n) {
  const onnx::AttributeProto *a = nullptr;
  for (const auto &attr : n.attribute())
    a = &attr;
  if (!a)
    return im.error("Constant without a value");
  Type i64 = im.b.getI64Type(), f32 = im.b.getF32Type();
  if (a->name() == "value") {
    const onnx::TensorProto &t = a->t();
    Type e = convertElementType(im.ctx, t.data_type());
    if (!e)
      return im.error("unsupported constant type");
    SmallVector<int64_t> dims(t.dims().begin(), t.dims().end());
    if (!validShape(dims))
      return im.error("invalid constant shape");
    auto type = im.tensor(dims, e);
    int64_t numel = product(dims);
    if (t.has_raw_data()) {
      if (e.isInteger(1)) {
        if ((int64_t)t.raw_data().size() != numel)
          return im.error("constant data is truncated");
        SmallVector<bool> bits;
        for (char c : t.raw_data())
          bits.push_back(c);
        im.setConstOutput(n, 0, DenseElementsAttr::get(type, bits));
      } else {
        if ((int64_t)t.raw_data().size() * 8 !=
            numel * (int64_t)e.getIntOrFloatBitWidth())
          return im.error("constant data is truncated");
        im.setConstOutput(n, 0,
                          DenseElementsAttr::getFromRawBuffer(
                              type, ArrayRef<char>(t.raw_data().data(),
                                                   t.raw_data().size())));
      }
      return success();
    }
    if (t.float_data_size() == numel && e.isF32()) {
      im.setConstOutput(
          n, 0,
          DenseElementsAttr::get(
              type, ArrayRef<float>(t.float_data().data(), numel)));
      return success();
    }
    if (t.int64_data_size() == numel && e.isInteger(64)) {
      im.setConstOutput(
          n, 0,
          DenseElementsAttr::get(
              type, ArrayRef<int64_t>(t.int64_data().data(), numel)));
      return success();
    }
    if (t.int32_data_size() == numel && e.isInteger(32)) {
      im.setConstOutput(
          n, 0,
          DenseElementsAttr::get(
              type, ArrayRef<int32_t>(t.int32_data().data(), numel)));
      return success();
    }
    return im.error("unsupported constant encoding");
  }
  if (a->name() == "value_float") {
    im.setConstOutput(n, 0, DenseElementsAttr::get(im.tensor({}, f32), a->f()));
  } else if (a->name() == "value_int") {
    im.setConstOutput(
        n, 0, DenseElementsAttr::get(im.tensor({}, i64), (int64_t)a->i()));
  } else if (a->name() == "value_ints") {
    SmallVector<int64_t> v(a->ints().begin(), a->ints().end());
    im.setConstOutput(
        n, 0,
        DenseElementsAttr::get(im.tensor({(int64_t)v.size()}, i64),
                               ArrayRef<int64_t>(v)));
  } else if (a->name() == "value_floats") {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    im.setConstOutput(
        n, 0,
        DenseElementsAttr::get(im.tensor({(int64_t)v.size()}, f32),
                               ArrayRef<float>(v)));
  } else {
    return im.error("unsupported Constant attribute '" + a->name() + "'");
  }
  return success();
}

LogicalResult importConstantOfShape(Importer &im, const Node &n) {
  auto s = im.constInts(n, 0);
  if (!s)
    return im.error("shape must be a constant");
  DenseElementsAttr fill;
  if (const auto *a = im.attr(n, "value")) {
    Node inner;
    inner.set_op_type("Constant");
    inner.add_output("__fill");
    *inner.add_attribute() = *a;
    if (failed(importConstant(im, inner)))
      return failure();
    fill = im.constants["__fill"];
    im.constants.erase("__fill");
  } else {
    fill = DenseElementsAttr::get(im.tensor({1}, im.b.getF32Type()), 0.0f);
  }
  if (!validShape(*s))
    return im.error("invalid shape");
  if (fill.getNumElements() != 1)
    return im.error("the value must hold one element");
  auto type = im.tensor(*s, fill.getElementType());
  im.setConstOutput(
      n, 0, DenseElementsAttr::get(type, fill.getValues<Attribute>()[0]));
  return success();
}

LogicalResult importShape(Importer &im, const Node &n) {
  auto s = inputShape(im, n, 0);
  if (!s)
    return failure();
  int64_t rank = s->size();
  int64_t start = im.attrInt(n, "start", 0), end = im.attrInt(n, "end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  SmallVector<int64_t> v(s->begin() + start, s->begin() + end);
  im.setConstOutput(
      n, 0,
      DenseElementsAttr::get(im.tensor({(int64_t)v.size()}, im.b.getI64Type()),
                             ArrayRef<int64_t>(v)));
  return success();
}

LogicalResult importReshape(Importer &im, const Node &n) {
  auto in = inputShape(im, n, 0);
  auto target = im.constInts(n, 1);
  if (!in)
    return failure();
  if (!target)
    return im.error("the target shape must be a constant (static shapes only)");
  bool allowZero = im.attrInt(n, "allowzero", 0);
  SmallVector<int64_t> s;
  int64_t inferred = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(*target)) {
    if (d == 0 && !allowZero)
      d = i < in->size() ? (*in)[i] : 0;
    if (d == -1) {
      inferred = i;
      s.push_back(1);
      continue;
    }
    s.push_back(d);
    known *= d;
  }
  if (inferred >= 0)
    s[inferred] = known ? product(*in) / known : 0;
  return setReshaped(im, n, s);
}

LogicalResult importFlatten(Importer &im, const Node &n) {
  auto in = inputShape(im, n, 0);
  if (!in)
    return failure();
  int64_t rank = in->size();
  int64_t axis = im.attrInt(n, "axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return im.error("axis out of range");
  ArrayRef<int64_t> s(*in);
  return setReshaped(
      im, n, {product(s.take_front(axis)), product(s.drop_front(axis))});
}

std::optional<SmallVector<int64_t>> axesOf(Importer &im, const Node &n) {
  if (auto a = im.attrInts(n, "axes"))
    return a;
  if (im.hasInput(n, 1)) {
    auto c = im.constInts(n, 1);
    if (!c)
      (void)im.error("axes must be a constant");
    return c;
  }
  return SmallVector<int64_t>{};
}

LogicalResult importUnsqueeze(Importer &im, const Node &n) {
  auto in = inputShape(im, n, 0);
  auto axes = axesOf(im, n);
  if (!in || !axes)
    return failure();
  int64_t rank = in->size() + axes->size();
  SmallVector<int64_t> norm;
  for (int64_t a : *axes) {
    auto x = im.axis(a, rank);
    if (!x)
      return failure();
    norm.push_back(*x);
  }
  SmallVector<int64_t> s;
  for (int64_t i = 0, j = 0; i < rank; ++i)
    s.push_back(llvm::is_contained(norm, i) ? 1 : (*in)[j++]);
  return setReshaped(im, n, s);
}

LogicalResult importSqueeze(Importer &im, const Node &n) {
  auto in = inputShape(im, n, 0);
  auto axes = axesOf(im, n);
  if (!in || !axes)
    return failure();
  int64_t rank = in->size();
  SmallVector<int64_t> norm;
  for (int64_t a : *axes) {
    auto x = im.axis(a, rank);
    if (!x)
      return failure();
    norm.push_back(*x);
  }
  SmallVector<int64_t> s;
  for (int64_t i = 0; i < rank; ++i) {
    bool drop = norm.empty() ? (*in)[i] == 1 : llvm::is_contained(norm, i);
    if (drop && (*in)[i] != 1)
      return im.error("cannot squeeze a dimension that is not 1");
    if (!drop)
      s.push_back((*in)[i]);
  }
  return setReshaped(im, n, s);
}

LogicalResult importTranspose(Importer &im, const Node &n) {
  Value v = im.input(n, 0);
  if (!v)
    return failure();
  int64_t rank = Importer::shape(v).size();
  SmallVector<int32_t> perms;
  if (auto p = im.attrInts(n, "perm"))
    for (int64_t x : *p)
      perms.push_back(x);
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perms.push_back(i);
  if ((int64_t)perms.size() != rank)
    return im.error("perm has the wrong length");
  im.setOutput(n, 0, im.transpose(v, perms));
  return success();
}

LogicalResult importConcat(Importer &im, const Node &n) {
  // All-constant integer 1-D concat: shape arithmetic.
  bool allConst = true;
  for (int i = 0; i < n.input_size(); ++i) {
    auto c = im.constInput(n, i);
    allConst &= c && llvm::isa<IntegerType>(c->getElementType()) &&
                c->getType().getRank() == 1;
  }
  if (allConst && n.input_size() > 0) {
    SmallVector<APInt> out;
    Type e = im.constInput(n, 0)->getElementType();
    for (int i = 0; i < n.input_size(); ++i)
      for (const APInt &v : im.constInput(n, i)->getValues<APInt>())
        out.push_back(v);
    im.setConstOutput(
        n, 0, DenseElementsAttr::get(im.tensor({(int64_t)out.size()}, e), out));
    return success();
  }
  SmallVector<Value> ins;
  for (int i = 0; i < n.input_size(); ++i) {
    Value v = im.input(n, i);
    if (!v)
      return failure();
    ins.push_back(v);
  }
  SmallVector<int64_t> s(Importer::shape(ins[0]));
  auto axis = im.dimAxis(im.attrInt(n, "axis", 0), s.size());
  if (!axis)
    return failure();
  for (Value v : ins)
    if (Importer::shape(v).size() != s.size())
      return im.error("inputs of different ranks");
  s[*axis] = 0;
  for (Value v : ins)
    s[*axis] += Importer::shape(v)[*axis];
  im.setOutput(n, 0,
               tosa::ConcatOp::create(im.b, im.loc,
                                      im.tensor(s, Importer::elem(ins[0])), ins,
                                      im.b.getI32IntegerAttr(*axis)));
  return success();
}

LogicalResult importGather(Importer &im, const Node &n) {
  auto data = im.constInput(n, 0);
  auto idx = im.constInts(n, 1);
  auto idxConst = im.constInput(n, 1);
  // Constant 1-D gather (shape arithmetic).
  if (data && idx && idxConst && data->getType().getRank() == 1 &&
      llvm::isa<IntegerType>(data->getElementType())) {
    SmallVector<APInt> vals(data->getValues<APInt>());
    SmallVector<APInt> out;
    for (int64_t i : *idx) {
      if (i < 0)
        i += vals.size();
      if (i < 0 || i >= (int64_t)vals.size())
        return im.error("gather index out of range");
      out.push_back(vals[i]);
    }
    auto idxShape = idxConst->getType().getShape();
    im.setConstOutput(n, 0,
                      DenseElementsAttr::get(
                          im.tensor(idxShape, data->getElementType()), out));
    return success();
  }
  Value values = im.input(n, 0), indices = im.input(n, 1);
  if (!values || !indices)
    return failure();
  auto vs = Importer::shape(values);
  auto axis = im.dimAxis(im.attrInt(n, "axis", 0), vs.size());
  if (!axis)
    return failure();
  SmallVector<int64_t> is(Importer::shape(indices));
  int64_t rows = vs[*axis], count = product(is);
  // Negative indices count from the end of the axis.
  Type i32 = im.b.getI32Type();
  Value index;
  if (auto c = im.constInts(n, 1)) {
    SmallVector<int32_t> norm;
    for (int64_t i : *c)
      norm.push_back(i < 0 ? i + rows : i);
    auto t = im.tensor(is, i32);
    index = tosa::ConstOp::create(
        im.b, im.loc, t, DenseElementsAttr::get(t, ArrayRef<int32_t>(norm)));
  } else {
    index = im.cast(indices, i32);
    Value zero = im.splat(0, i32, SmallVector<int64_t>(is.size(), 1));
    Value negative = im.binary<tosa::GreaterOp>(zero, index, im.b.getI1Type());
    Value wrapped =
        im.add(index, im.splat(rows, i32, SmallVector<int64_t>(is.size(), 1)));
    index = tosa::SelectOp::create(im.b, im.loc, Importer::type(index),
                                   negative, wrapped, index);
  }
  // tosa.gather reads rows of [1, rows, rest]: move `axis` to the front.
  SmallVector<int32_t> perm = {(int32_t)*axis};
  for (int32_t i = 0; i < (int32_t)vs.size(); ++i)
    if (i != *axis)
      perm.push_back(i);
  Value front = im.transpose(values, perm);
  SmallVector<int64_t> restShape(Importer::shape(front).drop_front());
  int64_t rest = product(restShape);
  Value v3 = im.reshape(front, {1, rows, rest});
  Value i2 = im.reshape(index, {1, count});
  Value g = tosa::GatherOp::create(
      im.b, im.loc, im.tensor({1, count, rest}, Importer::elem(values)), v3,
      i2);
  // [indices..., before axis..., after axis...] -> [before, indices, after].
  SmallVector<int64_t> out(is);
  llvm::append_range(out, restShape);
  Value r = im.reshape(g, out);
  int32_t ni = is.size(), a = *axis;
  SmallVector<int32_t> back;
  for (int32_t j = 0; j < a; ++j)
    back.push_back(ni + j);
  for (int32_t j = 0; j < ni; ++j)
    back.push_back(j);
  for (int32_t j = ni + a; j < (int32_t)out.size(); ++j)
    back.push_back(j);
  im.setOutput(n, 0, im.transpose(r, back));
  return success();
}

LogicalResult importExpand(Importer &im, const Node &n) {
  Value v = im.input(n, 0);
  auto target = im.constInts(n, 1);
  if (!v)
    return failure();
  if (!target)
    return im.error("the target shape must be a constant");
  if (!validShape(*target))
    return im.error("invalid target shape");
  auto s = Importer::broadcastShape(Importer::shape(v), *target);
  if (!s)
    return im.error("shape does not broadcast");
  SmallVector<int64_t> padded(s->size() - Importer::shape(v).size(), 1);
  llvm::append_range(padded, Importer::shape(v));
  v = im.reshape(v, padded);
  if (ArrayRef<int64_t>(padded) != ArrayRef<int64_t>(*s)) {
    SmallVector<int64_t> mult;
    for (auto [d, t] : llvm::zip(padded, *s))
      mult.push_back(d == t ? 1 : t);
    v = tosa::TileOp::create(im.b, im.loc, im.tensor(*s, Importer::elem(v)), v,
                             im.constShape(mult));
  }
  im.setOutput(n, 0, v);
  return success();
}

LogicalResult importTile(Importer &im, const Node &n) {
  Value v = im.input(n, 0);
  auto repeats = im.constInts(n, 1);
  if (!v)
    return failure();
  if (!repeats)
    return im.error("repeats must be a constant");
  auto in = Importer::shape(v);
  if (repeats->size() != in.size())
    return im.error("repeats must have one entry per dimension");
  SmallVector<int64_t> out;
  for (auto [d, r] : llvm::zip(in, *repeats))
    out.push_back(d * r);
  if (!validShape(*repeats) || !validShape(out))
    return im.error("invalid repeats");
  if (ArrayRef<int64_t>(out) == in) {
    im.setOutput(n, 0, v);
    return success();
  }
  im.setOutput(n, 0,
               tosa::TileOp::create(im.b, im.loc,
                                    im.tensor(out, Importer::elem(v)), v,
                                    im.constShape(*repeats)));
  return success();
}

Value slice(Importer &im, Value v, ArrayRef<int64_t> start,
            ArrayRef<int64_t> size) {
  if (start == ArrayRef<int64_t>(SmallVector<int64_t>(start.size(), 0)) &&
      size == Importer::shape(v))
    return v;
  return tosa::SliceOp::create(im.b, im.loc, im.tensor(size, Importer::elem(v)),
                               v, im.constShape(start), im.constShape(size));
}

LogicalResult importSlice(Importer &im, const Node &n) {
  auto in = inputShape(im, n, 0);
  if (!in)
    return failure();
  int64_t rank = in->size();
  std::optional<SmallVector<int64_t>> starts, ends, axes, steps;
  if (im.opset < 10) {
    starts = im.attrInts(n, "starts");
    ends = im.attrInts(n, "ends");
    axes = im.attrInts(n, "axes");
  } else {
    starts = im.constInts(n, 1);
    ends = im.constInts(n, 2);
    if (im.hasInput(n, 3))
      axes = im.constInts(n, 3);
    if (im.hasInput(n, 4))
      steps = im.constInts(n, 4);
    if (!starts || !ends || (im.hasInput(n, 3) && !axes) ||
        (im.hasInput(n, 4) && !steps))
      return im.error("starts/ends/axes/steps must be constants");
  }
  if (!starts || !ends || starts->size() != ends->size())
    return im.error("invalid starts/ends");
  SmallVector<int64_t> begin(rank, 0), size(*in);
  for (size_t k = 0; k < starts->size(); ++k) {
    auto ax = im.axis(axes ? (*axes)[k] : (int64_t)k, rank);
    if (!ax)
      return failure();
    if (steps && (*steps)[k] != 1)
      return im.error("only step 1 is supported");
    int64_t d = (*in)[*ax], s = (*starts)[k], e = (*ends)[k];
    if (s < 0)
      s += d;
    if (e < 0)
      e += d;
    s = std::clamp<int64_t>(s, 0, d);
    e = std::clamp<int64_t>(e, s, d);
    begin[*ax] = s;
    size[*ax] = e - s;
  }
  if (auto c = im.constInput(n, 0); c && rank == 1) {
    SmallVector<Attribute> vals(c->getValues<Attribute>());
    SmallVector<Attribute> out(vals.begin() + begin[0],
                               vals.begin() + begin[0] + size[0]);
    im.setConstOutput(
        n, 0,
        DenseElementsAttr::get(im.tensor(size, c->getElementType()), out));
    return success();
  }
  Value v = im.input(n, 0);
  if (!v)
    return failure();
  im.setOutput(n, 0, slice(im, v, begin, size));
  return success();
}

LogicalResult importSplit(Importer &im, const Node &n) {
  Value v = im.input(n, 0);
  if (!v)
    return failure();
  SmallVector<int64_t> in(Importer::shape(v));
  auto axis = im.dimAxis(im.attrInt(n, "axis", 0), in.size());
  if (!axis)
    return failure();
  std::optional<SmallVector<int64_t>> split = im.attrInts(n, "split");
  if (!split && im.hasInput(n, 1)) {
    split = im.constInts(n, 1);
    if (!split)
      return im.error("split sizes must be a constant");
  }
  int64_t parts = n.output_size();
  if (!split) {
    if (in[*axis] % parts)
      return im.error("dimension does not split evenly");
    split = SmallVector<int64_t>(parts, in[*axis] / parts);
  }
  if ((int64_t)split->size() != parts)
    return im.error("split sizes do not match the outputs");
  int64_t offset = 0;
  for (int64_t i = 0; i < parts; ++i) {
    SmallVector<int64_t> begin(in.size(), 0), size(in);
    begin[*axis] = offset;
    size[*axis] = (*split)[i];
    offset += (*split)[i];
    im.setOutput(n, i, slice(im, v, begin, size));
  }
  return success();
}

} // namespace

void pipewave::onnximport::populateShapeOps(OpTable &t) {
  t["Constant"] = importConstant;
  t["ConstantOfShape"] = importConstantOfShape;
  t["Shape"] = importShape;
  t["Reshape"] = importReshape;
  t["Flatten"] = importFlatten;
  t["Unsqueeze"] = importUnsqueeze;
  t["Squeeze"] = importSqueeze;
  t["Transpose"] = importTranspose;
  t["Concat"] = importConcat;
  t["Gather"] = importGather;
  t["Expand"] = importExpand;
  t["Tile"] = importTile;
  t["Slice"] = importSlice;
  t["Split"] = importSplit;
}
