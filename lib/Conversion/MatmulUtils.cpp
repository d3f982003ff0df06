//===- MatmulUtils.cpp - Shared helpers of the matmul lowerings -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "MatmulUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

linalg::FillOp pipewave::findZeroFill(Operation *matmul, Value out) {
  for (Operation *op = matmul->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      if (fill.getOutputs().front() != out)
        return nullptr;
      if (!matchPattern(fill.getInputs().front(), m_AnyZeroFloat()))
        return nullptr;
      return fill;
    }
    if (!isMemoryEffectFree(op))
      return nullptr;
  }
  return nullptr;
}
