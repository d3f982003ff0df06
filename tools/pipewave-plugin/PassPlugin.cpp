//===- PassPlugin.cpp - The pipewave pass plugin for mlir-opt -------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Registers the pipewave passes and pipelines in the stock mlir-opt:
//   mlir-opt --load-dialect-plugin=PipewaveDialectPlugin.so \
//            --load-pass-plugin=PipewavePassPlugin.so \
//            --pass-pipeline='builtin.module(pipe-train{num-stages=4})'
//
//===----------------------------------------------------------------------===//

#include "pipewave/Pipelines/Pipelines.h"

#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "PipewavePasses", LLVM_VERSION_STRING,
          []() { pipewave::registerAllPasses(); }};
}
