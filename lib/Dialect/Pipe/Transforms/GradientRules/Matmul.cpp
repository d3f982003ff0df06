//===- Matmul.cpp - Gradient rule of tosa.matmul --------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// y[n] = a[n] @ b[n] with a : [N, H, C], b : [N, C, W], y : [N, H, W]:
//   da[n] = dy[n] @ b[n]^T   ([N, H, W] x [N, W, C])
//   db[n] = a[n]^T @ dy[n]   ([N, C, H] x [N, H, W])
// The transposes swap the two inner dimensions. An operand whose batch is 1
// while the other's is N (a batch broadcast) gets its gradient summed over
// the batch. Float zero points are 0 and get no gradient.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Transforms/GradientRules.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

using namespace mlir;
using namespace pipewave::pipe::autodiff;

void pipewave::pipe::autodiff::registerMatmulGradientRules(
    GradientRuleTable &table) {
  table.add(tosa::MatMulOp::getOperationName(),
            [](Operation *op, GradientEmitter &e, ArrayRef<Value> dResults,
               ArrayRef<bool> needed, MutableArrayRef<Value> dOperands) {
              auto matmul = cast<tosa::MatMulOp>(op);
              Value dy = dResults[0];
              const int32_t swap[] = {0, 2, 1};
              if (needed[0]) {
                Value bt = e.transpose(e.primal(matmul.getB()), swap);
                dOperands[0] =
                    e.sumToShape(e.matmul(dy, bt), matmul.getA().getType());
              }
              if (needed[1]) {
                Value at = e.transpose(e.primal(matmul.getA()), swap);
                dOperands[1] =
                    e.sumToShape(e.matmul(at, dy), matmul.getB().getType());
              }
              return success();
            });
}
