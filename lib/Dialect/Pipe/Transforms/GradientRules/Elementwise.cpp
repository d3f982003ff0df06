//===- Elementwise.cpp - Gradient rules of elementwise TOSA operations ----===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Unary rules read the forward result `y` where the derivative is a function
// of it (exp, tanh, sigmoid, reciprocal, rsqrt, clamp), so the value the next
// operation reads anyway is what gets stashed, and the input `x` otherwise.
// Binary rules undo TOSA broadcasting with `sumToShape`.
//
// Conventions at points where the derivative is not defined:
//  * clamp: the gradient passes where min < x < max (strictly) and is zero
//    elsewhere, so ReLU (`min_val = 0`) has gradient 0 at 0.
//  * maximum / minimum: on ties the gradient is split evenly (1/2 each).
//  * abs: zero gradient at 0.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Transforms/GradientRules.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>

using namespace mlir;
using namespace pipewave::pipe::autodiff;

namespace {

/// A rule of an operation whose operand 0 is the only differentiable input
/// and whose result 0 is the only output: `fn(op, e, dy)` returns dx.
template <typename OpTy>
void addUnary(GradientRuleTable &table,
              std::function<Value(OpTy, GradientEmitter &, Value)> fn) {
  table.add(OpTy::getOperationName(),
            [fn](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
                 ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              if (needed[0] && dResults[0])
                dOperands[0] = fn(cast<OpTy>(op), e, dResults[0]);
              return success();
            });
}

/// True if `bound` does not restrict values of `type` (it is infinite or
/// beyond the largest finite value), so the clamp never saturates there.
bool isUnbounded(Attribute bound, Type type, bool upper) {
  auto attr = dyn_cast<FloatAttr>(bound);
  if (!attr)
    return false;
  double value = attr.getValueAsDouble();
  double largest =
      llvm::APFloat::getLargest(cast<FloatType>(type).getFloatSemantics())
          .convertToDouble();
  return upper ? value >= largest : value <= -largest;
}

} // namespace

void pipewave::pipe::autodiff::registerElementwiseGradientRules(
    GradientRuleTable &table) {
  //===--- Unary
  //------------------------------------------------------------===//

  // y = exp(x): dx = dy * y
  addUnary<tosa::ExpOp>(table,
                        [](tosa::ExpOp op, GradientEmitter &e, Value dy) {
                          return e.mul(dy, e.primal(op.getResult()));
                        });
  // y = log(x): dx = dy / x
  addUnary<tosa::LogOp>(
      table, [](tosa::LogOp op, GradientEmitter &e, Value dy) {
        return e.mul(dy, e.reciprocal(e.primal(op->getOperand(0))));
      });
  // y = tanh(x): dx = dy * (1 - y^2)
  addUnary<tosa::TanhOp>(
      table, [](tosa::TanhOp op, GradientEmitter &e, Value dy) {
        Value y = e.primal(op.getResult());
        return e.mul(dy, e.sub(e.scalarLike(y.getType(), 1.0), e.mul(y, y)));
      });
  // y = sigmoid(x): dx = dy * y * (1 - y)
  addUnary<tosa::SigmoidOp>(
      table, [](tosa::SigmoidOp op, GradientEmitter &e, Value dy) {
        Value y = e.primal(op.getResult());
        return e.mul(e.mul(dy, y), e.sub(e.scalarLike(y.getType(), 1.0), y));
      });
  // y = erf(x): dx = dy * 2/sqrt(pi) * exp(-x^2)
  addUnary<tosa::ErfOp>(
      table, [](tosa::ErfOp op, GradientEmitter &e, Value dy) {
        Value x = e.primal(op->getOperand(0));
        Value bump = e.exp(e.neg(e.mul(x, x)));
        return e.mul(dy, e.scale(bump, 2.0 / std::sqrt(M_PI)));
      });
  // y = 1/x: dx = -dy * y^2
  addUnary<tosa::ReciprocalOp>(
      table, [](tosa::ReciprocalOp op, GradientEmitter &e, Value dy) {
        Value y = e.primal(op.getResult());
        return e.neg(e.mul(dy, e.mul(y, y)));
      });
  // y = x^(-1/2): dx = -1/2 * dy * y^3
  addUnary<tosa::RsqrtOp>(
      table, [](tosa::RsqrtOp op, GradientEmitter &e, Value dy) {
        Value y = e.primal(op.getResult());
        return e.scale(e.mul(dy, e.mul(y, e.mul(y, y))), -0.5);
      });
  // y = sin(x): dx = dy * cos(x)
  addUnary<tosa::SinOp>(table,
                        [](tosa::SinOp op, GradientEmitter &e, Value dy) {
                          return e.mul(dy, e.cos(e.primal(op->getOperand(0))));
                        });
  // y = cos(x): dx = -dy * sin(x)
  addUnary<tosa::CosOp>(
      table, [](tosa::CosOp op, GradientEmitter &e, Value dy) {
        return e.neg(e.mul(dy, e.sin(e.primal(op->getOperand(0)))));
      });
  // y = |x|: dx = dy * sign(x), sign(0) = 0
  addUnary<tosa::AbsOp>(table, [](tosa::AbsOp op, GradientEmitter &e,
                                  Value dy) {
    Value x = e.primal(op->getOperand(0));
    Value zero = e.scalarLike(x.getType(), 0.0);
    Value sign = e.select(
        e.greater(x, zero), e.scalarLike(x.getType(), 1.0),
        e.select(e.greater(zero, x), e.scalarLike(x.getType(), -1.0), zero));
    return e.mul(dy, sign);
  });
  // y = -x (float zero points are 0): dx = -dy
  addUnary<tosa::NegateOp>(table, [](tosa::NegateOp, GradientEmitter &e,
                                     Value dy) { return e.neg(dy); });
  addUnary<tosa::IdentityOp>(
      table, [](tosa::IdentityOp, GradientEmitter &, Value dy) { return dy; });
  // y = x * mask * scale, linear in x: dx = the same dropout of dy. The mask
  // is recomputed from the counter (an argument of the stage), not stashed.
  addUnary<pipewave::pipe::DropoutOp>(table, [](pipewave::pipe::DropoutOp op,
                                                GradientEmitter &e, Value dy) {
    return pipewave::pipe::DropoutOp::create(
               e.getBuilder(), e.getLoc(), dy.getType(), dy,
               e.primal(op.getCounter()), op.getRatioAttr(), op.getStreamAttr())
        .getResult();
  });
  // Float to float cast: the cotangent is cast back. (A cast from or to an
  // integer type is never active: integers carry no gradient.)
  addUnary<tosa::CastOp>(table, [](tosa::CastOp op, GradientEmitter &e,
                                   Value dy) {
    return e.cast(
        dy,
        cast<RankedTensorType>(op->getOperand(0).getType()).getElementType());
  });
  // y = clamp(x, min, max): dx = dy where min < x < max, else 0. Tested on y
  // (min < y < max exactly when min < x < max), a bound at the end of the
  // type's range is not tested.
  addUnary<tosa::ClampOp>(table, [](tosa::ClampOp op, GradientEmitter &e,
                                    Value dy) {
    Value y = e.primal(op.getResult());
    Type element = op.getType().getElementType();
    Value cond;
    if (!isUnbounded(op.getMinValAttr(), element, /*upper=*/false))
      cond = e.greater(
          y,
          e.scalarLike(y.getType(),
                       cast<FloatAttr>(op.getMinValAttr()).getValueAsDouble()));
    if (!isUnbounded(op.getMaxValAttr(), element, /*upper=*/true)) {
      Value below = e.greater(
          e.scalarLike(y.getType(),
                       cast<FloatAttr>(op.getMaxValAttr()).getValueAsDouble()),
          y);
      cond = cond ? e.logicalAnd(cond, below) : below;
    }
    if (!cond)
      return dy;
    return e.select(cond, dy, e.scalarLike(dy.getType(), 0.0));
  });

  //===--- Binary
  //-----------------------------------------------------------===//

  table.add(tosa::AddOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              for (unsigned i = 0; i < 2; ++i)
                if (needed[i])
                  dOperands[i] =
                      e.sumToShape(dResults[0], op->getOperand(i).getType());
              return success();
            });
  table.add(tosa::SubOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              if (needed[0])
                dOperands[0] =
                    e.sumToShape(dResults[0], op->getOperand(0).getType());
              if (needed[1])
                dOperands[1] = e.neg(
                    e.sumToShape(dResults[0], op->getOperand(1).getType()));
              return success();
            });
  // y = a * b: da = dy * b, db = dy * a (float: shift is 0). For a square
  // (a and b the same value) both are dy * a and add up.
  table.add(tosa::MulOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              for (unsigned i = 0; i < 2; ++i) {
                if (!needed[i])
                  continue;
                if (i == 1 && op->getOperand(0) == op->getOperand(1)) {
                  dOperands[1] = dOperands[0];
                  continue;
                }
                dOperands[i] = e.sumToShape(
                    e.mul(dResults[0], e.primal(op->getOperand(1 - i))),
                    op->getOperand(i).getType());
              }
              return success();
            });
  // y = a^b: da = dy * b * a^(b-1), db = dy * y * log(a)
  table.add(tosa::PowOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              Value dy = dResults[0];
              Value a = e.primal(op->getOperand(0));
              if (needed[0]) {
                Value b = e.primal(op->getOperand(1));
                Value bm1 = e.sub(b, e.scalarLike(b.getType(), 1.0));
                dOperands[0] = e.sumToShape(e.mul(dy, e.mul(b, e.pow(a, bm1))),
                                            a.getType());
              }
              if (needed[1]) {
                Value y = e.primal(op->getResult(0));
                dOperands[1] = e.sumToShape(e.mul(e.mul(dy, y), e.log(a)),
                                            op->getOperand(1).getType());
              }
              return success();
            });
  // maximum / minimum: the share of a is 1 where it wins, 1/2 on ties.
  auto extremum = [](bool isMax) {
    return [isMax](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
                   ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
      Value dy = dResults[0];
      Value a = e.primal(op->getOperand(0));
      Value b = e.primal(op->getOperand(1));
      Type type = dy.getType();
      Value share = e.select(isMax ? e.greater(a, b) : e.greater(b, a),
                             e.scalarLike(type, 1.0),
                             e.select(e.equal(a, b), e.scalarLike(type, 0.5),
                                      e.scalarLike(type, 0.0)));
      Value da = e.mul(dy, share);
      if (needed[0])
        dOperands[0] = e.sumToShape(da, a.getType());
      if (needed[1])
        dOperands[1] = e.sumToShape(e.sub(dy, da), b.getType());
      return success();
    };
  };
  table.add(tosa::MaximumOp::getOperationName(), extremum(true));
  table.add(tosa::MinimumOp::getOperationName(), extremum(false));
  // y = select(c, a, b): da = dy where c, db = dy where !c; c has none.
  table.add(tosa::SelectOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              Value dy = dResults[0];
              Value zero = e.scalarLike(dy.getType(), 0.0);
              Value c = e.primal(op->getOperand(0));
              if (needed[1])
                dOperands[1] = e.sumToShape(e.select(c, dy, zero),
                                            op->getOperand(1).getType());
              if (needed[2])
                dOperands[2] = e.sumToShape(e.select(c, zero, dy),
                                            op->getOperand(2).getType());
              return success();
            });

  // Constants have no operands, hence no gradient to propagate.
  auto none = [](Operation *, GradientEmitter &, ArrayRef<Value>,
                 ArrayRef<bool>, MutableArrayRef<Value>) { return success(); };
  table.add(tosa::ConstOp::getOperationName(), none);
  table.add(tosa::ConstShapeOp::getOperationName(), none);
}
