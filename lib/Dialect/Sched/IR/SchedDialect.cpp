//===- SchedDialect.cpp - The sched dialect -------------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Sched/IR/Sched.h"

using namespace mlir;
using namespace pipewave::sched;

#include "pipewave/Dialect/Sched/IR/SchedDialect.cpp.inc"
#include "pipewave/Dialect/Sched/IR/SchedEnums.cpp.inc"

void SchedDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "pipewave/Dialect/Sched/IR/SchedOps.cpp.inc"
      >();
}
