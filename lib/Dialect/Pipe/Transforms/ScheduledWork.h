//===- ScheduledWork.h - What the schedule asks of stages -------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// pipe-recompute and pipe-autodiff with `from-schedule`: whether the step
// the module's sched.program describes trains (needs backward functions)
// and whether it splits the backward into I and W (zero-bubble schedules).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_SCHEDULEDWORK_H
#define PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_SCHEDULEDWORK_H

#include "mlir/IR/BuiltinOps.h"

namespace pipewave::pipe {

struct ScheduledWork {
  /// The program is a training step (not forward-only).
  bool trains = false;
  /// Some action is an input (I) or weight (W) gradient.
  bool splitBackward = false;
};

/// Reads the module's sched.program; an error on `module` (prefixed with
/// `passName`) when it has none.
mlir::FailureOr<ScheduledWork> readScheduledWork(mlir::ModuleOp module,
                                                 llvm::StringRef passName);

} // namespace pipewave::pipe

#endif // PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_SCHEDULEDWORK_H
