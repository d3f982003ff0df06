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
    out.push_back(APInt(width, fn(va[va.size() == 1 ? 0 : i],
                                  vc[vc.size() == 1 ? 0 : i]),
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
  if (foldIntBinary(im, n, [](int64_t x, int64_t y) {
        return y ? x / y : int64_t(0);
      }))
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
  if (Importer::elem(c) != Importer::elem(a))
    return im.error("exponent type differs from the base type");
  return importBinary<tosa::PowOp>(im, n);
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
  im.setOutput(n, 0,
               im.unary<tosa::ReciprocalOp>(im.unary<tosa::RsqrtOp>(a)));
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
          im.b.getFloatAttr(ft, APFloat::getLargest(ft.getFloatSemantics())
                                    .convertToDouble())));
  return success();
}

/// Identity, Dropout (inference): pass the input (or constant) through.
LogicalResult importIdentity(Importer &im, const Node &n) {
  if (auto c = im.constInput(n, 0)) {
    im.setConstOutput(n, 0, *c);
    return success();
  }
  Value a = im.input(n, 0);
  if (!a)
    return failure();
  im.setOutput(n, 0, a);
  if (n.op_type() == "Dropout" && n.output_size() > 1 && !n.output(1).empty())
    im.setConstOutput(n, 1,
                      DenseElementsAttr::get(
                          im.tensor(Importer::shape(a), im.b.getI1Type()),
                          true));
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
    if (llvm::isa<IntegerType>(from) && llvm::isa<IntegerType>(to)) {
      SmallVector<APInt> out;
      for (int64_t v : *im.constInts(n, 0))
        out.push_back(APInt(to.getIntOrFloatBitWidth(), v, true));
      im.setConstOutput(n, 0, DenseElementsAttr::get(t, out));
      return success();
    }
    if (llvm::isa<IntegerType>(from) && llvm::isa<FloatType>(to)) {
      SmallVector<APFloat> out;
      for (int64_t v : *im.constInts(n, 0)) {
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
  if (foldIntBinary(im, n, [](int64_t x, int64_t y) {
        return int64_t(x == y);
      })) {
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
               tosa::SelectOp::create(im.b, im.loc,
                                      im.tensor(*s, Importer::elem(a)), p, a,
                                      c));
  return success();
}

} // namespace

void pipewave::onnximport::populateElementwiseOps(OpTable &t) {
  t["Add"] = importAdd;
  t["Sub"] = importSub;
  t["Mul"] = importMul;
  t["Div"] = importDiv;
  t["Pow"] = importPow;
  t["Max"] = importBinary<tosa::MaximumOp>;
  t["Min"] = importBinary<tosa::MinimumOp>;
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
  t["Dropout"] = importIdentity;
  t["Cast"] = importCast;
  t["Equal"] = importEqual;
  t["Where"] = importWhere;
}
