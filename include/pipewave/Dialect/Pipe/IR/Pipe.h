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
#include "mlir/Interfaces/FunctionInterfaces.h"
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

// Typed accessors of the argument and result attributes of the dialect
// (declared in PipeDialect.td; the attributes of operations have the
// generated `PipeDialect::<Name>AttrHelper`s).

/// The `pipe.param` of argument `arg` of `fn`, or null.
mlir::UnitAttr getParamArgAttr(mlir::FunctionOpInterface fn, unsigned arg);
/// Marks argument `arg` of `fn` as a trainable parameter (`pipe.param`).
void setParamArgAttr(mlir::FunctionOpInterface fn, unsigned arg);
/// True when argument `arg` of `fn` is a frozen parameter (`pipe.frozen`).
bool isFrozenArg(mlir::FunctionOpInterface fn, unsigned arg);
/// Marks argument `arg` of `fn` (a parameter) as frozen (`pipe.frozen`).
void setFrozenArgAttr(mlir::FunctionOpInterface fn, unsigned arg);
/// True when argument `arg` of `fn` is the step counter (`pipe.counter`).
bool isCounterArg(mlir::FunctionOpInterface fn, unsigned arg);
/// Marks argument `arg` of `fn` as the step counter (`pipe.counter`).
void setCounterArgAttr(mlir::FunctionOpInterface fn, unsigned arg);
/// The `pipe.name` of argument `arg` of `fn`, or null.
mlir::StringAttr getNameArgAttr(mlir::FunctionOpInterface fn, unsigned arg);
/// Writes `pipe.name = name` on argument `arg` of `fn`.
void setNameArgAttr(mlir::FunctionOpInterface fn, unsigned arg,
                    mlir::StringAttr name);
/// The `pipe.name` of result `result` of `fn`, or null.
mlir::StringAttr getNameResultAttr(mlir::FunctionOpInterface fn,
                                   unsigned result);
/// Writes `pipe.name = name` on result `result` of `fn`.
void setNameResultAttr(mlir::FunctionOpInterface fn, unsigned result,
                       mlir::StringAttr name);
/// The `pipe.combine` of result `result` of `fn`, or null.
mlir::StringAttr getCombineResultAttr(mlir::FunctionOpInterface fn,
                                      unsigned result);
/// Writes `pipe.combine = combine` on result `result` of `fn`.
void setCombineResultAttr(mlir::FunctionOpInterface fn, unsigned result,
                          mlir::StringAttr combine);
} // namespace pipewave::pipe

#endif // PIPEWAVE_DIALECT_PIPE_IR_PIPE_H
