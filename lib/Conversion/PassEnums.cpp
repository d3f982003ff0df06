//===- PassEnums.cpp - Enumerated options of the lowering -----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Conversion/Passes.h"

#include "pipewave/Conversion/PassEnums.cpp.inc"
