//===- StageModules.h - Stage of a function's kernels -----------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_CONVERSION_GPU_STAGEMODULES_H
#define PIPEWAVE_LIB_CONVERSION_GPU_STAGEMODULES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace pipewave {

/// The name of the gpu.module holding the kernels of `fn`:
/// `pw_stage<k>_kernels` for a stage function of stage k and the training
/// functions its pipe.fwd / pipe.bwd / pipe.bwd_input / pipe.bwd_weight
/// name, `pw_kernels` for any other function.
std::string kernelModuleName(mlir::func::FuncOp fn);

} // namespace pipewave

#endif // PIPEWAVE_LIB_CONVERSION_GPU_STAGEMODULES_H
