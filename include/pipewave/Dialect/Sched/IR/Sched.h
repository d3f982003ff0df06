//===- Sched.h - The sched dialect ------------------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_SCHED_IR_SCHED_H
#define PIPEWAVE_DIALECT_SCHED_IR_SCHED_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "pipewave/Dialect/Sched/IR/SchedDialect.h.inc"
#include "pipewave/Dialect/Sched/IR/SchedEnums.h.inc"

#define GET_OP_CLASSES
#include "pipewave/Dialect/Sched/IR/SchedOps.h.inc"

#endif // PIPEWAVE_DIALECT_SCHED_IR_SCHED_H
