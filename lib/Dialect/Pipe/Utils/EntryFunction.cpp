//===- EntryFunction.cpp - Finding and checking the entry function
//---------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Utils/EntryFunction.h"
#include "pipewave/Dialect/Pipe/IR/Pipe.h"

using namespace mlir;

func::FuncOp pipewave::pipe::lookupEntry(ModuleOp module, StringRef name,
                                         StringRef passName) {
  auto fn = module.lookupSymbol<func::FuncOp>(name);
  if (!fn) {
    module.emitError() << passName << ": entry function '@" << name
                       << "' not found (set the pass option entry=NAME)";
    return nullptr;
  }
  if (fn.isExternal()) {
    fn.emitError() << passName << ": entry function '@" << name
                   << "' has no body";
    return nullptr;
  }
  if (!fn.getBody().hasOneBlock()) {
    fn.emitError() << passName << ": entry function '@" << name
                   << "' must have a single block";
    return nullptr;
  }
  return fn;
}

Operation *pipewave::pipe::getTopLevelAncestor(Block &block, Operation *op) {
  return block.findAncestorOpInBlock(*op);
}

std::string pipewave::pipe::getArgName(func::FuncOp fn, unsigned index) {
  if (StringAttr name = getNameArgAttr(fn, index))
    return name.str();
  return "#" + std::to_string(index);
}

bool pipewave::pipe::isParam(func::FuncOp fn, unsigned index) {
  return static_cast<bool>(getParamArgAttr(fn, index));
}
