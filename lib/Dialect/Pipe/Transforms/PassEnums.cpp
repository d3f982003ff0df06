//===- PassEnums.cpp - Enumerated options of the pipe passes --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Transforms/Passes.h"

#include "pipewave/Dialect/Pipe/Transforms/PassEnums.cpp.inc"
