//===- PassEnums.h - Enumerated options of the pipe passes ------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The enums of the enumerated options of the pipe passes (PassEnums.td):
// PartitionStrategy (pipe-partition `strategy`) and RecomputePolicy
// (pipe-recompute `policy`), with their generated stringify/symbolize
// functions.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSENUMS_H
#define PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSENUMS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

#include "pipewave/Dialect/Pipe/Transforms/PassEnums.h.inc"

#endif // PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSENUMS_H
