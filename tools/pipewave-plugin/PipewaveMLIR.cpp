//===- PipewaveMLIR.cpp - The library behind the mlir-opt plugins ---------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// libPipewaveMLIR.so holds the pipewave dialects, passes and pipelines (the
// whole PipewaveRegistration archive); the plugins only export the entry
// points mlir-opt looks up.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Pipelines/Pipelines.h"
