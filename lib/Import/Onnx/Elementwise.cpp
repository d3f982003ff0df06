//===- Elementwise.cpp - ONNX elementwise ops to TOSA ---------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace pipewave::onnximport;

namespace {

/// Folds integer binary arithmetic on compile-time constants (shape math).
bool foldIntBinary(Importer &im, const Node &n,
                   int64_t (*fn)(int64_t, int64_t)) {
  auto a = im.constInput(n, 0), c = im.constInput(n, 1);
  if (!a || !c || !llvm::isa<IntegerType>(a->getElementType()) ||
      a->getElementType() != c->getElementType())
    return false;
  auto va = *im.constInts(n, 0), vc = *im.constInts(n, 1);
  auto s = Importer::broadcastShape(a->getType().getShape(),
                                    c->getType().getShape());
  if (!s || (va.size() != vc.size() && va.size() != 1 && vc.size() != 1))
    return false;
  size_t len = std::max(va.size(), vc.size());
  SmallVector<APInt> out;
  unsigned width = a->getElementType().getIntOrFloatBitWidth();
  for (size_t i = 0; i < len; ++i)
    out.push_back(
        APInt(width, fn(va[va.size() == 1 ? 0 : i], vc[vc.size() == 1 ? 0 : i]),
              /*isSigned=*/true));
  im.setConstOutput(
      n, 0, DenseElementsAttr::get(im.tensor(*s, a->getElementType()), out));
  return true;
}

template <typename OpTy>
LogicalResult importBinary(Importer &im, const Node &n) {
  Value a = im.input(n, 0), c = im.input(n, 1);
  if (!a || !c)
    return failure();
  Value r = im.binary<OpTy>(a, c);
  if (!r)
    return failure();
  im.setOutput(n, 0, r);
  return success();
}

LogicalResult importAdd(Importer &im, const Node &n) {
  if (foldIntBinary(im, n, [](int64_t x, int64_t y) { return x + y; }))
    return success();
  return importBinary<tosa::AddOp>(im, n);
}

LogicalResult importSub(Importer &im, const Node &n) {
  if (foldIntBinary(im, n, [](int64_t x, int64_t y) { return x - y; }))
    return success();
  return importBinary<tosa::SubOp>(im, n);
}

LogicalResult importMul(Importer &im, const Node &n) {
  if (foldIntBinary(im, n, [](int64_t x, int64_t y) { return x * y; }))
    return success();
  Value a = im.input(n, 0), c = im.input(n, 1);
  if (!a || !c)
    return failure();
  Value r = im.mul(a, c);
  if (!r)
    return failure();
  im.setOutput(n, 0, r);
  return success();
}

LogicalResult importDiv(Importer &im, const Node &n) {
  if (foldIntBinary(
          im, n, [](int64_t x, int64_t y) { return y ? x / y : int64_t(0); }))
    return success();
  Value a = im.input(n, 0), c = im.input(n, 1);
  if (!a || !c)
    return failure();
  if (!llvm::isa<FloatType>(Importer::elem(a))) {
    Type i32 = im.b.getI32Type();
    Value r = im.binary<tosa::IntDivOp>(im.cast(a, i32), im.cast(c, i32));
    if (!r)
      return failure();
    im.setOutput(n, 0, im.cast(r, Importer::elem(a)));
    return success();
  }
  Value r = im.mul(a, im.unary<tosa::ReciprocalOp>(c));
  if (!r)
    return failure();
  im.setOutput(n, 0, r);
  return success();
}

LogicalResult importPow(Importer &im, const Node &n) {
  Value a = im.input(n, 0);
  if (!a)
    return failure();
  // x^2 is the common case (MSE, variance): a multiply differentiates well.
  if (auto e = im.constInput(n, 1);
      e && llvm::isa<FloatType>(e->getElementType()) && e->isSplat() &&
      e->getSplatValue<APFloat>().convertToDouble() == 2.0) {
    im.setOutput(n, 0, im.mul(a, a));
    return success();
  }
  Value c = im.input(n, 1);
  if (!c)
    return failure();
  // tosa.pow is floating-point: a float base takes the exponent in its type;
  // an integer base is raised in f32 and cast back (exact for the integer
  // powers that fit f32's mantissa).
  Type e = Importer::elem(a);
  Type f = llvm::isa<FloatType>(e) ? e : im.b.getF32Type();
  Value r = im.binary<tosa::PowOp>(im.cast(a, f), im.cast(c, f));
  if (!r)
    return failure();
  im.setOutput(n, 0, im.cast(r, e));
  return success();
}

/// Max, Min, Sum: one or more inputs, folded pairwise with broadcasting.
template <typename OpTy>
LogicalResult importVariadic(Importer &im, const Node &n) {
  Value acc = im.input(n, 0);
  if (!acc)
    return failure();
  for (int i = 1; i < n.input_size(); ++i) {
    Value v = im.input(n, i);
    if (!v)
      return failure();
    acc = im.binary<OpTy>(acc, v);
    if (!acc)
      return failure();
  }
  im.setOutput(n, 0, acc);
  return success();
}

template <typename OpTy>
LogicalResult importUnary(Importer &im, const Node &n) {
  Value a = im.input(n, 0);
  if (!a)
    return failure();
  if (!llvm::isa<FloatType>(Importer::elem(a)))
    return im.error("only floating-point inputs are supported");
  im.setOutput(n, 0, im.unary<OpTy>(a));
  return success();
}

LogicalResult importSqrt(Importer &im, const Node &n) {
  Value a = im.input(n, 0);
  if (!a)
    return failure();
  im.setOutput(n, 0, im.unary<tosa::ReciprocalOp>(im.unary<tosa::RsqrtOp>(a)));
  return success();
}

LogicalResult importNeg(Importer &im, const Node &n) {
  Value a = im.input(n, 0);
  if (!a)
    return failure();
  Type e = Importer::elem(a);
  im.setOutput(n, 0,
               tosa::NegateOp::create(im.b, im.loc, a.getType(), a,
                                      im.zeroPoint(e), im.zeroPoint(e)));
  return success();
}

LogicalResult importRelu(Importer &im, const Node &n) {
  Value a = im.input(n, 0);
  if (!a)
    return failure();
  auto ft = llvm::dyn_cast<FloatType>(Importer::elem(a));
  if (!ft)
    return im.error("only floating-point inputs are supported");
  im.setOutput(
      n, 0,
      tosa::ClampOp::create(
          im.b, im.loc, a.getType(), a, im.b.getFloatAttr(ft, 0.0),
          im.b.getFloatAttr(
              ft,
              APFloat::getLargest(ft.getFloatSemantics()).convertToDouble())));
  return success();
}

/// Identity: pass the input (or constant) through. (Dropout: Dropout.cpp.)
LogicalResult importIdentity(Importer &im, const Node &n) {
  if (auto c = im.constInput(n, 0)) {
    im.setConstOutput(n, 0, *c);
    return success();
  }
  Value a = im.input(n, 0);
  if (!a)
    return failure();
  im.setOutput(n, 0, a);
  return success();
}

LogicalResult importCast(Importer &im, const Node &n) {
  Type to = convertElementType(im.ctx, (int)im.attrInt(n, "to", 0));
  if (!to)
    return im.error("unsupported 'to' type");
  if (auto c = im.constInput(n, 0)) {
    auto from = c->getElementType();
    auto t = im.tensor(c->getType().getShape(), to);
    if (from == to) {
      im.setConstOutput(n, 0, *c);
      return success();
    }
    SmallVector<int64_t> ints;
    if (auto v = im.constInts(n, 0))
      ints = *v;
    if (llvm::isa<IntegerType>(from) && llvm::isa<IntegerType>(to)) {
      SmallVector<APInt> out;
      for (int64_t v : ints)
        out.push_back(APInt(to.getIntOrFloatBitWidth(), v, true));
      im.setConstOutput(n, 0, DenseElementsAttr::get(t, out));
      return success();
    }
    if (llvm::isa<IntegerType>(from) && llvm::isa<FloatType>(to)) {
      SmallVector<APFloat> out;
      for (int64_t v : ints) {
        APFloat f((double)v);
        bool lost;
        f.convert(llvm::cast<FloatType>(to).getFloatSemantics(),
                  APFloat::rmNearestTiesToEven, &lost);
        out.push_back(f);
      }
      im.setConstOutput(n, 0, DenseElementsAttr::get(t, out));
      return success();
    }
  }
  Value a = im.input(n, 0);
  if (!a)
    return failure();
  im.setOutput(n, 0, im.cast(a, to));
  return success();
}

LogicalResult importEqual(Importer &im, const Node &n) {
  if (foldIntBinary(im, n,
                    [](int64_t x, int64_t y) { return int64_t(x == y); })) {
    // Re-type the folded result as i1.
    auto c = im.constants[n.output(0)];
    SmallVector<bool> bits;
    for (const APInt &v : c.getValues<APInt>())
      bits.push_back(!v.isZero());
    im.constants[n.output(0)] = DenseElementsAttr::get(
        im.tensor(c.getType().getShape(), im.b.getI1Type()), bits);
    return success();
  }
  Value a = im.input(n, 0), c = im.input(n, 1);
  if (!a || !c)
    return failure();
  Value r = im.binary<tosa::EqualOp>(a, c, im.b.getI1Type());
  if (!r)
    return failure();
  im.setOutput(n, 0, r);
  return success();
}

LogicalResult importWhere(Importer &im, const Node &n) {
  Value p = im.input(n, 0), a = im.input(n, 1), c = im.input(n, 2);
  if (!p || !a || !c)
    return failure();
  int64_t rank = std::max({Importer::shape(p).size(), Importer::shape(a).size(),
                           Importer::shape(c).size()});
  auto pad = [&](Value v) {
    SmallVector<int64_t> s(rank - Importer::shape(v).size(), 1);
    llvm::append_range(s, Importer::shape(v));
    return im.reshape(v, s);
  };
  p = pad(p);
  a = pad(a);
  c = pad(c);
  auto s = Importer::broadcastShape(Importer::shape(p), Importer::shape(a));
  if (s)
    s = Importer::broadcastShape(*s, Importer::shape(c));
  if (!s)
    return im.error("operand shapes do not broadcast");
  im.setOutput(n, 0,
               tosa::SelectOp::create(
                   im.b, im.loc, im.tensor(*s, Importer::elem(a)), p, a, c));
  return success();
}

/// Greater, GreaterOrEqual, Less, LessOrEqual (Less* swap the operands).
template <typename OpTy, bool Swap>
LogicalResult importCompare(Importer &im, const Node &n) {
  Value a = im.input(n, 0), c = im.input(n, 1);
  if (!a || !c)
    return failure();
  if (Swap)
    std::swap(a, c);
  Value r = im.binary<OpTy>(a, c, im.b.getI1Type());
  if (!r)
    return failure();
  im.setOutput(n, 0, r);
  return success();
}

template <typename OpTy>
LogicalResult importLogical(Importer &im, const Node &n) {
  Value a = im.input(n, 0), c = im.input(n, 1);
  if (!a || !c)
    return failure();
  Value r = im.binary<OpTy>(a, c, im.b.getI1Type());
  if (!r)
    return failure();
  im.setOutput(n, 0, r);
  return success();
}

LogicalResult importNot(Importer &im, const Node &n) {
  Value a = im.input(n, 0);
  if (!a)
    return failure();
  im.setOutput(n, 0, im.unary<tosa::LogicalNotOp>(a));
  return success();
}

/// Mean: the sum of the inputs times 1/count.
LogicalResult importMean(Importer &im, const Node &n) {
  if (failed(importVariadic<tosa::AddOp>(im, n)))
    return failure();
  Value sum = im.values[n.output(0)];
  if (!llvm::isa<FloatType>(Importer::elem(sum)))
    return im.error("only floating-point inputs are supported");
  im.setOutput(
      n, 0,
      im.mul(sum, im.scalarLike(1.0 / n.input_size(), Importer::elem(sum),
                                Importer::shape(sum).size())));
  return success();
}

/// Clip: max(x, min) then min(x, max); the bounds are inputs (opset 11+) or
/// attributes.
LogicalResult importClip(Importer &im, const Node &n) {
  Value x = im.input(n, 0);
  if (!x)
    return failure();
  Type e = Importer::elem(x);
  int64_t rank = Importer::shape(x).size();
  auto bound = [&](int i, StringRef name) -> Value {
    if (im.hasInput(n, i))
      return im.input(n, i);
    if (const auto *a = im.attr(n, name))
      return im.scalarLike(a->f(), e, rank);
    return {};
  };
  if (Value lo = bound(1, "min"))
    x = im.binary<tosa::MaximumOp>(x, lo);
  if (x)
    if (Value hi = bound(2, "max"))
      x = im.binary<tosa::MinimumOp>(x, hi);
  if (!x)
    return failure();
  im.setOutput(n, 0, x);
  return success();
}

/// The float activations built from elementwise TOSA ops.
enum class Act {
  LeakyRelu,
  Elu,
  Selu,
  HardSigmoid,
  HardSwish,
  Softplus,
  Softsign,
  ThresholdedRelu
};

template <Act A> LogicalResult importActivation(Importer &im, const Node &n) {
  Value x = im.input(n, 0);
  if (!x)
    return failure();
  Type e = Importer::elem(x);
  if (!llvm::isa<FloatType>(e))
    return im.error("only floating-point inputs are supported");
  int64_t rank = Importer::shape(x).size();
  auto k = [&](double v) { return im.scalarLike(v, e, rank); };
  auto select = [&](Value pred, Value a, Value c) -> Value {
    return tosa::SelectOp::create(im.b, im.loc, x.getType(), pred, a, c);
  };
  auto positive = [&]() {
    return im.binary<tosa::GreaterOp>(x, k(0.0), im.b.getI1Type());
  };
  auto hardSigmoid = [&](double alpha, double beta) {
    Value v = im.add(im.mul(x, k(alpha)), k(beta));
    return im.binary<tosa::MinimumOp>(im.binary<tosa::MaximumOp>(v, k(0.0)),
                                      k(1.0));
  };
  Value y;
  switch (A) {
  case Act::LeakyRelu:
    y = select(positive(), x, im.mul(x, k(im.attrFloat(n, "alpha", 0.01f))));
    break;
  case Act::Elu:
  case Act::Selu: {
    double alpha = im.attrFloat(
        n, "alpha", A == Act::Elu ? 1.0f : 1.67326319217681884765625f);
    Value neg = im.mul(im.sub(im.unary<tosa::ExpOp>(x), k(1.0)), k(alpha));
    y = select(positive(), x, neg);
    if (A == Act::Selu)
      y = im.mul(y, k(im.attrFloat(n, "gamma", 1.05070102214813232421875f)));
    break;
  }
  case Act::HardSigmoid:
    y = hardSigmoid(im.attrFloat(n, "alpha", 0.2f),
                    im.attrFloat(n, "beta", 0.5f));
    break;
  case Act::HardSwish:
    y = im.mul(x, hardSigmoid(1.0 / 6.0, 0.5));
    break;
  case Act::Softplus:
    y = im.unary<tosa::LogOp>(im.add(im.unary<tosa::ExpOp>(x), k(1.0)));
    break;
  case Act::Softsign:
    y = im.mul(x, im.unary<tosa::ReciprocalOp>(
                      im.add(im.unary<tosa::AbsOp>(x), k(1.0))));
    break;
  case Act::ThresholdedRelu:
    y = select(im.binary<tosa::GreaterOp>(x, k(im.attrFloat(n, "alpha", 1.0f)),
                                          im.b.getI1Type()),
               x, k(0.0));
    break;
  }
  im.setOutput(n, 0, y);
  return success();
}

} // namespace

void pipewave::onnximport::populateElementwiseOps(OpTable &t) {
  t["Greater"] = importCompare<tosa::GreaterOp, false>;
  t["GreaterOrEqual"] = importCompare<tosa::GreaterEqualOp, false>;
  t["Less"] = importCompare<tosa::GreaterOp, true>;
  t["LessOrEqual"] = importCompare<tosa::GreaterEqualOp, true>;
  t["And"] = importLogical<tosa::LogicalAndOp>;
  t["Or"] = importLogical<tosa::LogicalOrOp>;
  t["Xor"] = importLogical<tosa::LogicalXorOp>;
  t["Not"] = importNot;
  t["Floor"] = importUnary<tosa::FloorOp>;
  t["Ceil"] = importUnary<tosa::CeilOp>;
  t["Cos"] = importUnary<tosa::CosOp>;
  t["Sin"] = importUnary<tosa::SinOp>;
  t["Sum"] = importVariadic<tosa::AddOp>;
  t["Mean"] = importMean;
  t["Clip"] = importClip;
  t["LeakyRelu"] = importActivation<Act::LeakyRelu>;
  t["Elu"] = importActivation<Act::Elu>;
  t["Selu"] = importActivation<Act::Selu>;
  t["HardSigmoid"] = importActivation<Act::HardSigmoid>;
  t["HardSwish"] = importActivation<Act::HardSwish>;
  t["Softplus"] = importActivation<Act::Softplus>;
  t["Softsign"] = importActivation<Act::Softsign>;
  t["ThresholdedRelu"] = importActivation<Act::ThresholdedRelu>;
  t["Add"] = importAdd;
  t["Sub"] = importSub;
  t["Mul"] = importMul;
  t["Div"] = importDiv;
  t["Pow"] = importPow;
  t["Max"] = importVariadic<tosa::MaximumOp>;
  t["Min"] = importVariadic<tosa::MinimumOp>;
  t["Relu"] = importRelu;
  t["Tanh"] = importUnary<tosa::TanhOp>;
  t["Sigmoid"] = importUnary<tosa::SigmoidOp>;
  t["Exp"] = importUnary<tosa::ExpOp>;
  t["Log"] = importUnary<tosa::LogOp>;
  t["Erf"] = importUnary<tosa::ErfOp>;
  t["Abs"] = importUnary<tosa::AbsOp>;
  t["Reciprocal"] = importUnary<tosa::ReciprocalOp>;
  t["Sqrt"] = importSqrt;
  t["Neg"] = importNeg;
  t["Identity"] = importIdentity;
  t["Cast"] = importCast;
  t["Equal"] = importEqual;
  t["Where"] = importWhere;
}
