//===- TrainedParameters.cpp - Checks of trained parameters ---------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "TrainedParameters.h"

#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace pipewave;
using namespace pipewave::pipe;

LogicalResult pipewave::pipe::checkTrainedParameters(
    func::FuncOp entry, const std::vector<func::FuncOp> &stages) {
  // Name -> first stage that trains it, in stage order.
  llvm::MapVector<StringAttr, int64_t> firstStage;
  for (auto [s, constStage] : llvm::enumerate(stages)) {
    func::FuncOp stage = constStage;
    for (unsigned i = 0, e = stage.getNumArguments(); i < e; ++i) {
      if (!getParamArgAttr(stage, i) || isFrozenArg(stage, i))
        continue;
      auto type = dyn_cast<RankedTensorType>(stage.getArgumentTypes()[i]);
      if (!type || !isa<FloatType>(type.getElementType()))
        continue;
      StringAttr name = getNameArgAttr(stage, i);
      std::string shown = name ? name.str() : "#" + std::to_string(i);
      if (!type.getElementType().isF32())
        return entry.emitError()
               << "pipe-schedule: parameter '" << shown << "' of stage " << s
               << " is " << type.getElementType()
               << ": the optimizers update f32 parameters only (freeze it "
                  "with --frozen, or make it f32)";
      if (!name)
        continue;
      auto [it, inserted] = firstStage.insert({name, s});
      if (!inserted && it->second != static_cast<int64_t>(s))
        return entry.emitError()
               << "pipe-schedule: parameter '" << shown
               << "' is an argument of stages " << it->second << " and " << s
               << ": a trained parameter must belong to one stage (tied "
                  "parameters across stages are not supported; freeze it "
                  "with --frozen or keep its uses on one stage)";
    }
  }
  return success();
}
