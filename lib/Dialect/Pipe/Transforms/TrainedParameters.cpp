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

FailureOr<std::vector<schedule::TiedParameter>>
pipewave::pipe::checkTrainedParameters(
    func::FuncOp entry, const std::vector<func::FuncOp> &stages) {
  // Name -> the stages that take it, in stage order.
  llvm::MapVector<StringAttr, std::vector<int>> users;
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
      std::vector<int> &list = users[name];
      if (list.empty() || list.back() != static_cast<int>(s))
        list.push_back(static_cast<int>(s));
    }
  }
  std::vector<schedule::TiedParameter> tied;
  for (auto &[name, list] : users)
    if (list.size() > 1)
      tied.push_back({name.str(), list});
  return tied;
}
