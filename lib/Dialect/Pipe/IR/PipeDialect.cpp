//===- PipeDialect.cpp - The pipe dialect and its attributes ---------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/IR/Pipe.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace pipewave::pipe;

#include "pipewave/Dialect/Pipe/IR/PipeDialect.cpp.inc"
#include "pipewave/Dialect/Pipe/IR/PipeEnums.cpp.inc"

void PipeDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "pipewave/Dialect/Pipe/IR/PipeOps.cpp.inc"
      >();
}

LogicalResult PipeDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == getStageAttrName()) {
    auto stage = dyn_cast<IntegerAttr>(attr.getValue());
    if (!stage || !stage.getType().isInteger(64))
      return op->emitError() << "'" << getStageAttrName()
                             << "' must be an i64 integer attribute";
    if (stage.getInt() < 0)
      return op->emitError() << "'" << getStageAttrName()
                             << "' must be non-negative, got "
                             << stage.getInt();
    return success();
  }
  if (attr.getName() == getParamAttrName() ||
      attr.getName() == getNameAttrName())
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' is an argument attribute; it cannot be "
                              "placed on an operation";
  return op->emitError() << "unknown pipe dialect attribute '"
                         << attr.getName().getValue() << "'";
}

LogicalResult PipeDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() == getParamAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << getParamAttrName()
                             << "' on argument #" << argIndex
                             << " must be a unit attribute";
    return success();
  }
  if (attr.getName() == getNameAttrName()) {
    auto name = dyn_cast<StringAttr>(attr.getValue());
    if (!name || name.getValue().empty())
      return op->emitError() << "'" << getNameAttrName() << "' on argument #"
                             << argIndex << " must be a non-empty string";
    return success();
  }
  return op->emitError() << "unknown pipe dialect argument attribute '"
                         << attr.getName().getValue() << "' on argument #"
                         << argIndex;
}

int64_t pipewave::pipe::getStage(Operation *op) {
  if (auto stage =
          op->getAttrOfType<IntegerAttr>(PipeDialect::getStageAttrName()))
    return stage.getInt();
  return -1;
}

void pipewave::pipe::setStage(Operation *op, int64_t stage) {
  op->setAttr(PipeDialect::getStageAttrName(),
              IntegerAttr::get(IntegerType::get(op->getContext(), 64), stage));
}
