//===- TrainedParameters.h - Checks of trained parameters -------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// pipe-schedule refuses, for a training step, what the runtime would refuse
// about the model's parameters, so that the compiler reports it with the
// parameter's name and the stages involved instead of every rank at start;
// and it finds the tied parameters, which several stages use.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_TRAINEDPARAMETERS_H
#define PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_TRAINEDPARAMETERS_H

#include "pipewave/Schedule/Tied.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <vector>

namespace pipewave::pipe {

/// Checks the trained parameters (`pipe.param` float arguments that are not
/// `pipe.frozen`) of the stage functions `stages` of `entry`: each must be
/// f32 (the optimizers update f32). Returns those that are arguments of
/// several stages (tied parameters), in order of first appearance, with
/// their stages. Emits an error on `entry` naming the parameter and the
/// stage.
mlir::FailureOr<std::vector<schedule::TiedParameter>>
checkTrainedParameters(mlir::func::FuncOp entry,
                       const std::vector<mlir::func::FuncOp> &stages);

} // namespace pipewave::pipe

#endif // PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_TRAINEDPARAMETERS_H
