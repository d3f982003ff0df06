//===- Reductions.cpp - Gradient rules of TOSA reductions -----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// TOSA reductions keep the reduced dimension (with size 1), so the result
// cotangent broadcasts back against the input.
//
//  * reduce_sum: dx = tile(dy) along the axis.
//  * reduce_max / reduce_min: the gradient goes to the positions that attain
//    the extremum, mask = (x == broadcast(y)); on ties it is split evenly
//    between them: dx = mask * dy / sum(mask) (the mean of the subgradients,
//    as TensorFlow and JAX do). The rule reads x and y.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Transforms/GradientRules.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace pipewave::pipe::autodiff;

namespace {

LogicalResult extremumRule(Operation *op, GradientEmitter &e,
                           ArrayRef<Value> dResults, ArrayRef<bool> needed,
                           MutableArrayRef<Value> dOperands) {
  if (!needed[0])
    return success();
  int64_t axis = op->getAttrOfType<IntegerAttr>("axis").getInt();
  Value x = e.primal(op->getOperand(0));
  Value y = e.primal(op->getResult(0));
  Type type = x.getType();
  Value mask =
      e.select(e.equal(x, y), e.scalarLike(type, 1.0), e.scalarLike(type, 0.0));
  Value count = e.reduceSum(mask, axis);
  Value share = e.mul(dResults[0], e.reciprocal(count));
  dOperands[0] = e.mul(mask, share);
  return success();
}

} // namespace

void pipewave::pipe::autodiff::registerReductionGradientRules(
    GradientRuleTable &table) {
  table.add(tosa::ReduceSumOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              if (needed[0])
                dOperands[0] =
                    e.broadcastTo(dResults[0], op->getOperand(0).getType());
              return success();
            });
  table.add(tosa::ReduceMaxOp::getOperationName(), extremumRule);
  table.add(tosa::ReduceMinOp::getOperationName(), extremumRule);
}
