//===- DialectPlugin.cpp - The pipewave dialect plugin for mlir-opt -------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Registers the pipe and sched dialects in the stock mlir-opt
// (--load-dialect-plugin=PipewaveDialectPlugin.so).
//
//===----------------------------------------------------------------------===//

#include "pipewave/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "PipewaveDialects", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            pipewave::registerAllDialects(*registry);
          }};
}
