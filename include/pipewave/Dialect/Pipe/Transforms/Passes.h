//===- Passes.h - Passes of the pipe dialect ----------------------*- C++
//-*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSES_H
#define PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Transforms/PassEnums.h"
#include "pipewave/Dialect/Sched/IR/Sched.h"

namespace pipewave::pipe {

#define GEN_PASS_DECL
#include "pipewave/Dialect/Pipe/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pipewave/Dialect/Pipe/Transforms/Passes.h.inc"

} // namespace pipewave::pipe

#endif // PIPEWAVE_DIALECT_PIPE_TRANSFORMS_PASSES_H
