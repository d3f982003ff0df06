//===- Elementwise.cpp - Elementwise stablehlo/chlo ops to TOSA -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// One TOSA operation per stablehlo operation where TOSA has it; the rest are
// composed from operations `pipe-autodiff` differentiates:
//
//   divide (float)      a * reciprocal(b)
//   sqrt                pow(x, 0.5)
//   exponential_minus_one, log_plus_one    exp(x) - 1, log(x + 1)
//   clamp               minimum(maximum(x, lo), hi)
//   compare LT / LE     greater / greater_equal with swapped operands
//   compare NE          logical_not(equal)
//   chlo.square         x * x
//
// Scalar (rank-0) operands of clamp and select broadcast as TOSA broadcasts:
// they are reshaped to the rank of the other operands with all dims 1.
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

bool isFloat(Value v) { return isa<FloatType>(TosaBuilder::elem(v)); }
bool isBool(Value v) { return TosaBuilder::elem(v).isInteger(1); }

/// A stablehlo operation whose single operand maps to TOSA operation OpTy.
template <typename SrcOp, typename OpTy>
void addUnary(RewritePatternSet &patterns) {
  addLowering<SrcOp>(patterns, [](TosaBuilder &tb, SrcOp, auto a) {
    return tb.unary<OpTy>(a.getOperand());
  });
}

/// A stablehlo operation whose two operands map to TOSA operation OpTy.
template <typename SrcOp, typename OpTy>
void addBinary(RewritePatternSet &patterns) {
  addLowering<SrcOp>(patterns, [](TosaBuilder &tb, SrcOp, auto a) {
    return tb.binary<OpTy>(a.getLhs(), a.getRhs());
  });
}

/// and/or: logical on i1, bitwise on wider integers.
template <typename SrcOp, typename LogicalOp, typename BitwiseOp>
void addLogical(RewritePatternSet &patterns) {
  addLowering<SrcOp>(patterns, [](TosaBuilder &tb, SrcOp op, auto a) {
    if (isBool(a.getLhs()))
      return tb.binary<LogicalOp>(a.getLhs(), a.getRhs());
    if (isFloat(a.getLhs())) {
      op.emitOpError() << "on floating-point operands is not supported";
      return Value();
    }
    return tb.binary<BitwiseOp>(a.getLhs(), a.getRhs());
  });
}

Value lowerNegate(TosaBuilder &tb, sh::NegOp, sh::NegOp::Adaptor a) {
  Value x = a.getOperand();
  if (!isFloat(x))
    return tb.binary<tosa::SubOp>(tb.splat(0, TosaBuilder::elem(x), {}), x);
  Value zp = tb.zeroPoint(TosaBuilder::elem(x));
  return tosa::NegateOp::create(tb.b, tb.loc, x.getType(), x, zp, zp);
}

Value lowerNot(TosaBuilder &tb, sh::NotOp, sh::NotOp::Adaptor a) {
  Value x = a.getOperand();
  if (isBool(x))
    return tb.unary<tosa::LogicalNotOp>(x);
  return tb.unary<tosa::BitwiseNotOp>(x);
}

Value lowerSqrt(TosaBuilder &tb, sh::SqrtOp, sh::SqrtOp::Adaptor a) {
  Value x = a.getOperand();
  Value half =
      tb.splat(0.5, TosaBuilder::elem(x),
               SmallVector<int64_t>(TosaBuilder::type(x).getRank(), 1));
  return tb.binary<tosa::PowOp>(x, half);
}

Value lowerExpm1(TosaBuilder &tb, sh::Expm1Op, sh::Expm1Op::Adaptor a) {
  Value x = a.getOperand();
  Value one = tb.splat(1, TosaBuilder::elem(x), {});
  return tb.binary<tosa::SubOp>(tb.unary<tosa::ExpOp>(x), one);
}

Value lowerLog1p(TosaBuilder &tb, sh::Log1pOp, sh::Log1pOp::Adaptor a) {
  Value x = a.getOperand();
  Value one = tb.splat(1, TosaBuilder::elem(x), {});
  return tb.unary<tosa::LogOp>(tb.binary<tosa::AddOp>(x, one));
}

Value lowerConvert(TosaBuilder &tb, sh::ConvertOp op,
                   sh::ConvertOp::Adaptor a) {
  Value x = a.getOperand();
  Type to = op.getType().getElementType();
  if (TosaBuilder::elem(x) == to)
    return tb.unary<tosa::IdentityOp>(x);
  return tb.cast(x, to);
}

Value lowerMultiply(TosaBuilder &tb, sh::MulOp, sh::MulOp::Adaptor a) {
  if (isBool(a.getLhs()))
    return tb.binary<tosa::LogicalAndOp>(a.getLhs(), a.getRhs());
  return tb.mul(a.getLhs(), a.getRhs());
}

Value lowerDivide(TosaBuilder &tb, sh::DivOp, sh::DivOp::Adaptor a) {
  if (!isFloat(a.getLhs()))
    return tb.binary<tosa::IntDivOp>(a.getLhs(), a.getRhs());
  return tb.mul(a.getLhs(), tb.unary<tosa::ReciprocalOp>(a.getRhs()));
}

Value lowerClamp(TosaBuilder &tb, sh::ClampOp, sh::ClampOp::Adaptor a) {
  Value lo = tb.binary<tosa::MaximumOp>(a.getOperand(), a.getMin());
  return tb.binary<tosa::MinimumOp>(lo, a.getMax());
}

Value lowerSelect(TosaBuilder &tb, sh::SelectOp op, sh::SelectOp::Adaptor a) {
  int64_t rank = op.getType().getRank();
  Value pred = tb.toRank(a.getPred(), rank);
  return tosa::SelectOp::create(tb.b, tb.loc, op.getType(), pred, a.getOnTrue(),
                                a.getOnFalse());
}

Value lowerCompare(TosaBuilder &tb, sh::CompareOp op,
                   sh::CompareOp::Adaptor a) {
  Value l = a.getLhs(), r = a.getRhs();
  Type i1 = tb.b.getI1Type();
  if (op.getCompareType() == sh::ComparisonType::UNSIGNED &&
      !TosaBuilder::elem(l).isInteger(1)) {
    op.emitOpError() << "UNSIGNED comparisons are not supported (TOSA "
                        "compares integers as signed)";
    return {};
  }
  switch (op.getComparisonDirection()) {
  case sh::ComparisonDirection::EQ:
    return tb.binary<tosa::EqualOp>(l, r, i1);
  case sh::ComparisonDirection::NE:
    return tb.unary<tosa::LogicalNotOp>(tb.binary<tosa::EqualOp>(l, r, i1));
  case sh::ComparisonDirection::GT:
    return tb.binary<tosa::GreaterOp>(l, r, i1);
  case sh::ComparisonDirection::GE:
    return tb.binary<tosa::GreaterEqualOp>(l, r, i1);
  case sh::ComparisonDirection::LT:
    return tb.binary<tosa::GreaterOp>(r, l, i1);
  case sh::ComparisonDirection::LE:
    return tb.binary<tosa::GreaterEqualOp>(r, l, i1);
  }
  return {};
}

Value lowerSquare(TosaBuilder &tb, chlo::SquareOp, chlo::SquareOp::Adaptor a) {
  return tb.mul(a.getOperand(), a.getOperand());
}

} // namespace

void pipewave::populateStablehloElementwiseToTosaPatterns(
    RewritePatternSet &patterns) {
  addUnary<sh::AbsOp, tosa::AbsOp>(patterns);
  addUnary<sh::CosineOp, tosa::CosOp>(patterns);
  addUnary<sh::ExpOp, tosa::ExpOp>(patterns);
  addUnary<sh::LogOp, tosa::LogOp>(patterns);
  addUnary<sh::LogisticOp, tosa::SigmoidOp>(patterns);
  addUnary<sh::RsqrtOp, tosa::RsqrtOp>(patterns);
  addUnary<sh::SineOp, tosa::SinOp>(patterns);
  addUnary<sh::TanhOp, tosa::TanhOp>(patterns);
  addUnary<chlo::ErfOp, tosa::ErfOp>(patterns);
  addLowering<sh::NegOp>(patterns, lowerNegate);
  addLowering<sh::NotOp>(patterns, lowerNot);
  addLowering<sh::SqrtOp>(patterns, lowerSqrt);
  addLowering<sh::Expm1Op>(patterns, lowerExpm1);
  addLowering<sh::Log1pOp>(patterns, lowerLog1p);
  addLowering<sh::ConvertOp>(patterns, lowerConvert);
  addLowering<chlo::SquareOp>(patterns, lowerSquare);

  addBinary<sh::AddOp, tosa::AddOp>(patterns);
  addBinary<sh::SubtractOp, tosa::SubOp>(patterns);
  addBinary<sh::MaxOp, tosa::MaximumOp>(patterns);
  addBinary<sh::MinOp, tosa::MinimumOp>(patterns);
  addBinary<sh::PowOp, tosa::PowOp>(patterns);
  addLogical<sh::AndOp, tosa::LogicalAndOp, tosa::BitwiseAndOp>(patterns);
  addLogical<sh::OrOp, tosa::LogicalOrOp, tosa::BitwiseOrOp>(patterns);
  addLowering<sh::MulOp>(patterns, lowerMultiply);
  addLowering<sh::DivOp>(patterns, lowerDivide);
  addLowering<sh::ClampOp>(patterns, lowerClamp);
  addLowering<sh::SelectOp>(patterns, lowerSelect);
  addLowering<sh::CompareOp>(patterns, lowerCompare);
}
