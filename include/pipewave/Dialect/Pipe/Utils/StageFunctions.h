//===- StageFunctions.h - The stage functions an entry calls ----*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// What an entry function says about its pipeline after pipe-outline-stages:
// the stage functions it calls, the global batch of its data inputs, and the
// microbatches pipe-microbatch specialised the stages for.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_DIALECT_PIPE_UTILS_STAGEFUNCTIONS_H
#define PIPEWAVE_DIALECT_PIPE_UTILS_STAGEFUNCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace pipewave::pipe {

/// The stage functions the entry calls, in call order (stage k is the k-th),
/// or failure with an error naming `passName` when a call is out of order.
/// An entry without stage calls gives an empty list.
mlir::FailureOr<std::vector<mlir::func::FuncOp>>
getStageFunctions(mlir::func::FuncOp entry, llvm::StringRef passName);

/// The stage functions (`pipe.stage`) `module` defines, in module order
/// (after pipe-isolate-stages, the functions the lowering works on).
llvm::SmallVector<mlir::func::FuncOp>
getDefinedStageFunctions(mlir::ModuleOp module);

/// The global batch (dimension 0 of the first data input with a static one)
/// or 0.
int64_t getEntryBatch(mlir::func::FuncOp entry);

/// M1 if the entry was specialised by pipe-microbatch{microbatches=M1}
/// (a data input enters the stages through a tensor.extract_slice of
/// 1/M1 of its dimension 0), else 0.
int64_t getSpecializedMicrobatches(mlir::func::FuncOp entry);

/// Arguments of `stage` that get a gradient, ascending: floating-point
/// tensors that are trained parameters (`pipe.param`, not `pipe.frozen`) or
/// activations from the previous stage (neither `pipe.param` nor
/// `pipe.name`). pipe-autodiff differentiates these; the stage costs derive
/// the backward before it from the same list.
llvm::SmallVector<unsigned> differentiableArgs(mlir::func::FuncOp stage);

/// Where each of the first `numWeightArgs` arguments of the pipe.bwd_weight
/// function of `stage` comes from (`pipe.wstash_args`): k >= 0 is argument
/// k of its pipe.bwd_input, passed through; -1 the next value pipe.bwd_input
/// returns after the activation gradients. Without the attribute (a split
/// made before it existed, or written by hand), all -1.
llvm::SmallVector<int64_t> getWStashArgs(mlir::func::FuncOp stage,
                                         unsigned numWeightArgs);

} // namespace pipewave::pipe

#endif // PIPEWAVE_DIALECT_PIPE_UTILS_STAGEFUNCTIONS_H
