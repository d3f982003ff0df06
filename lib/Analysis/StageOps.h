//===- StageOps.h - The costed ops of a stage's functions ------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Internal to PipewaveStageCosts: the op-by-op work of a stage function
// (StageOps.cpp). forEachDerivedBackwardOp is declared in StageCosts.h.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_ANALYSIS_STAGEOPS_H
#define PIPEWAVE_LIB_ANALYSIS_STAGEOPS_H

#include "pipewave/Analysis/CostModel.h"
#include "pipewave/Simulator/Calibration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace pipewave::stage_ops {

/// Which arguments of a function hold parameters, by argument number.
using ParamArgs = llvm::SmallVector<bool>;

/// The arguments of the weight-gradient function of `stage` that hold
/// parameters: each is, by the stage's pipe.wstash_args, an argument of
/// the input-gradient function or one of the values it returns after its
/// input gradients (pipe-autodiff's split), and one that is a parameter
/// argument there (or a view of one) is that parameter.
ParamArgs weightStashParams(mlir::func::FuncOp stage,
                            mlir::func::FuncOp bwdWeight,
                            mlir::func::FuncOp bwdInput);

/// True if `op` is element-wise and every user of its result is too
/// (through reshapes): the lowering fuses it into them
/// (sim::OpWork::fusedIntoUsers).
bool fusedIntoUsers(mlir::Operation *op, const OpCost &cost);

/// The costed, non-free ops of `fn` (nested ones included), and a Copy for
/// every result that is an argument or a view of one; `params` says which
/// arguments hold parameters (default: those marked pipe.param).
std::vector<sim::OpWork> costedOps(mlir::func::FuncOp fn,
                                   std::optional<ParamArgs> params = {});

/// Whether the gradient of parameter argument `arg` of stage function
/// `stage` is made by an op that pipe-accumulate-gradients lets add to the
/// accumulator (a matmul, or a sum over a broadcast dimension, through
/// reshapes): in the backward function (`pipe.bwd`, whose results are the
/// gradients of `pipe.grad_args` in order) when the stage has one, else in
/// the backward pipe-autodiff would derive (the parameter's one use is a
/// tosa.matmul, or an add, subtract or multiply that broadcasts it).
bool gradientAddsInPlace(mlir::func::FuncOp stage, unsigned arg);

} // namespace pipewave::stage_ops

#endif // PIPEWAVE_LIB_ANALYSIS_STAGEOPS_H
