//===- DifferentiableStages.cpp - The stages pipe-autodiff works on -------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Transforms/GradientRules.h"
#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace pipewave;
using namespace pipewave::pipe;

FailureOr<SmallVector<func::FuncOp>>
pipewave::pipe::autodiff::getStagesToDifferentiate(
    ModuleOp module, const GradientRuleTable &rules,
    StringRef differentiatedError) {
  SmallVector<func::FuncOp> stages;
  for (auto fn : module.getOps<func::FuncOp>())
    if (PipeDialect::StageAttrHelper(fn.getContext()).isAttrPresent(fn))
      stages.push_back(fn);

  bool ok = true;
  for (func::FuncOp stage : stages) {
    if (PipeDialect::FwdAttrHelper(stage.getContext()).isAttrPresent(stage)) {
      stage.emitError() << differentiatedError;
      ok = false;
      continue;
    }
    if (failed(verifyDifferentiable(stage, differentiableArgs(stage), rules)))
      ok = false;
  }
  if (!ok)
    return failure();
  return stages;
}
