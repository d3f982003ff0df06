//===- PipewavePlugin.cpp - Pass and dialect plugin for mlir-opt -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Loads into the stock mlir-opt:
//   mlir-opt --load-dialect-plugin=PipewavePlugin.so \
//            --load-pass-plugin=PipewavePlugin.so \
//            --pass-pipeline='builtin.module(pipe-train{num-stages=4})'
//
//===----------------------------------------------------------------------===//

#include "pipewave/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Pipewave", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            pipewave::registerAllDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Pipewave", LLVM_VERSION_STRING,
          []() { pipewave::registerAllPasses(); }};
}
