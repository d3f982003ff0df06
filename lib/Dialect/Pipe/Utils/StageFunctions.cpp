//===- StageFunctions.cpp - The stage functions an entry calls ------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Utils/StageFunctions.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace pipewave;
using namespace pipewave::pipe;

FailureOr<std::vector<func::FuncOp>>
pipewave::pipe::getStageFunctions(func::FuncOp entry, StringRef passName) {
  std::vector<func::FuncOp> stages;
  SymbolTableCollection symbols;
  for (auto call : entry.getBody().front().getOps<func::CallOp>()) {
    auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!callee || getStage(callee) < 0)
      continue;
    if (getStage(callee) != static_cast<int64_t>(stages.size())) {
      call.emitError() << passName << ": expected a call of stage "
                       << stages.size() << ", found stage " << getStage(callee);
      return failure();
    }
    stages.push_back(callee);
  }
  return stages;
}

SmallVector<func::FuncOp>
pipewave::pipe::getDefinedStageFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> stages;
  for (auto fn : module.getOps<func::FuncOp>())
    if (getStage(fn) >= 0 && !fn.isExternal())
      stages.push_back(fn);
  return stages;
}

int64_t pipewave::pipe::getEntryBatch(func::FuncOp entry) {
  for (unsigned i = 0, e = entry.getNumArguments(); i < e; ++i) {
    if (isParam(entry, i))
      continue;
    auto type = dyn_cast<RankedTensorType>(entry.getArgumentTypes()[i]);
    if (type && type.getRank() > 0 && !type.isDynamicDim(0))
      return type.getDimSize(0);
  }
  return 0;
}

int64_t pipewave::pipe::getSpecializedMicrobatches(func::FuncOp entry) {
  for (auto slice : entry.getBody().front().getOps<tensor::ExtractSliceOp>()) {
    auto arg = dyn_cast<BlockArgument>(slice.getSource());
    if (!arg || arg.getOwner()->getParentOp() != entry.getOperation() ||
        isParam(entry, arg.getArgNumber()))
      continue;
    auto source = dyn_cast<RankedTensorType>(slice.getSourceType());
    RankedTensorType result = slice.getResultType();
    if (!source || source.getRank() == 0 || source.isDynamicDim(0) ||
        result.getRank() != source.getRank() || result.isDynamicDim(0) ||
        result.getDimSize(0) == 0 ||
        source.getDimSize(0) % result.getDimSize(0) != 0)
      continue;
    return source.getDimSize(0) / result.getDimSize(0);
  }
  return 0;
}

SmallVector<unsigned> pipewave::pipe::differentiableArgs(func::FuncOp stage) {
  SmallVector<unsigned> args;
  for (unsigned i = 0; i < stage.getNumArguments(); ++i) {
    auto tensor = dyn_cast<RankedTensorType>(stage.getArgumentTypes()[i]);
    if (!tensor || !isa<FloatType>(tensor.getElementType()))
      continue;
    bool param = static_cast<bool>(getParamArgAttr(stage, i));
    bool named = static_cast<bool>(getNameArgAttr(stage, i));
    if ((param && !isFrozenArg(stage, i)) || !named)
      args.push_back(i);
  }
  return args;
}

SmallVector<int64_t> pipewave::pipe::getWStashArgs(func::FuncOp stage,
                                                   unsigned numWeightArgs) {
  SmallVector<int64_t> entries(numWeightArgs, -1);
  if (auto attr = stage->getAttrOfType<DenseI64ArrayAttr>(
          PipeDialect::WstashArgsAttrHelper::getNameStr()))
    for (auto [j, k] : llvm::enumerate(attr.asArrayRef()))
      if (j < numWeightArgs)
        entries[j] = k;
  return entries;
}
