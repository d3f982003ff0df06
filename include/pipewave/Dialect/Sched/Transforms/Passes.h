//===- Passes.h - Passes of the sched dialect -------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_SCHED_TRANSFORMS_PASSES_H
#define PIPEWAVE_DIALECT_SCHED_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "pipewave/Dialect/Sched/IR/Sched.h"

namespace pipewave::sched {

#define GEN_PASS_DECL
#include "pipewave/Dialect/Sched/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pipewave/Dialect/Sched/Transforms/Passes.h.inc"

} // namespace pipewave::sched

#endif // PIPEWAVE_DIALECT_SCHED_TRANSFORMS_PASSES_H
