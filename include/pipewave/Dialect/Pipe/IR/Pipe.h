//===- Pipe.h - The pipe dialect --------------------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_PIPE_IR_PIPE_H
#define PIPEWAVE_DIALECT_PIPE_IR_PIPE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "pipewave/Dialect/Pipe/IR/PipeDialect.h.inc"
#include "pipewave/Dialect/Pipe/IR/PipeEnums.h.inc"

#define GET_OP_CLASSES
#include "pipewave/Dialect/Pipe/IR/PipeOps.h.inc"

namespace pipewave::pipe {
/// Returns the `pipe.stage` of `op`, or -1 when it has none.
int64_t getStage(mlir::Operation *op);
/// Writes `pipe.stage = stage` on `op`.
void setStage(mlir::Operation *op, int64_t stage);
} // namespace pipewave::pipe

#endif // PIPEWAVE_DIALECT_PIPE_IR_PIPE_H
