//===- Stablehlo.h - The stablehlo and chlo dialect subsets -----*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// pipewave's own `stablehlo` and `chlo` dialects: the subset of upstream's
// operations that JAX training losses use, with upstream's names and
// assembly formats.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_STABLEHLO_IR_STABLEHLO_H
#define PIPEWAVE_DIALECT_STABLEHLO_IR_STABLEHLO_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "pipewave/Dialect/StableHLO/IR/StablehloDialect.h.inc"
#include "pipewave/Dialect/StableHLO/IR/StablehloEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pipewave/Dialect/StableHLO/IR/StablehloAttrs.h.inc"

#define GET_OP_CLASSES
#include "pipewave/Dialect/StableHLO/IR/StablehloOps.h.inc"

#include "pipewave/Dialect/StableHLO/IR/ChloDialect.h.inc"

#define GET_OP_CLASSES
#include "pipewave/Dialect/StableHLO/IR/ChloOps.h.inc"

#endif // PIPEWAVE_DIALECT_STABLEHLO_IR_STABLEHLO_H
