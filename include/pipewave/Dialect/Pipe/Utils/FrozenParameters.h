//===- FrozenParameters.h - Freezing parameters by name ---------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_PIPE_UTILS_FROZENPARAMETERS_H
#define PIPEWAVE_DIALECT_PIPE_UTILS_FROZENPARAMETERS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace pipewave::pipe {

/// Marks `pipe.frozen` every parameter of `entry` whose `pipe.name` matches
/// one of the glob patterns `globs` (`*`, `?`, `[...]`, as the shell does).
/// Fails with a one-line `error` when a pattern is malformed or matches no
/// parameter.
mlir::LogicalResult freezeParameters(mlir::func::FuncOp entry,
                                     const std::vector<std::string> &globs,
                                     std::string &error);

} // namespace pipewave::pipe

#endif // PIPEWAVE_DIALECT_PIPE_UTILS_FROZENPARAMETERS_H
