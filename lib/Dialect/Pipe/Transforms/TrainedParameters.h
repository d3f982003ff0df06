//===- TrainedParameters.h - Checks of trained parameters -------*- C++ -*-===//
//-*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// pipe-schedule refuses, for a training step, what the runtime would refuse
// about the model's parameters, so that the compiler reports it with the
// parameter's name and the stages involved instead of every rank at start.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_TRAINEDPARAMETERS_H
#define PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_TRAINEDPARAMETERS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <vector>

namespace pipewave::pipe {

/// Checks the trained parameters (`pipe.param` float arguments that are not
/// `pipe.frozen`) of the stage functions `stages` of `entry`: each must be
/// f32 (the optimizers update f32) and be an argument of one stage only.
/// Emits an error on `entry` naming the parameter and the stages.
mlir::LogicalResult
checkTrainedParameters(mlir::func::FuncOp entry,
                       const std::vector<mlir::func::FuncOp> &stages);

} // namespace pipewave::pipe

#endif // PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_TRAINEDPARAMETERS_H
