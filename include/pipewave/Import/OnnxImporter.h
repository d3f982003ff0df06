//===- OnnxImporter.h - ONNX model to TOSA importer -------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Turns an ONNX model into a module in pipewave's TOSA input contract: a
// `func.func @main` whose float initializers are `pipe.param` arguments (named
// by `pipe.name`), whose graph inputs are data arguments and whose outputs are
// the results. Parameter values are written to a safetensors file.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_IMPORT_ONNXIMPORTER_H
#define PIPEWAVE_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pipewave {

struct OnnxImportOptions {
  /// Value of a symbolic (dynamic) dimension 0 of the graph inputs; 0 = none.
  int64_t batchSize = 0;
  /// Where to write the parameter values (safetensors); empty = don't write.
  std::string weightsPath;
  /// Keep `Identity(initializer)` aliases as one tied parameter instead of
  /// giving each alias a parameter of its own (docs/onnx.md).
  bool keepIdentityTies = false;
};

/// Imports the ONNX model at `path`. On failure returns a null module and sets
/// `error` to a one-line message (without the tool-name prefix).
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxModel(const std::string &path, mlir::MLIRContext &context,
                const OnnxImportOptions &options, std::string &error);

/// Imports a model held in memory; `path` names it in messages and its
/// directory is where external data is looked up.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxModelFromBuffer(const char *data, size_t size,
                          const std::string &path, mlir::MLIRContext &context,
                          const OnnxImportOptions &options, std::string &error);

/// The ONNX op types (default domain) the importer maps, sorted.
std::vector<std::string> supportedOnnxOps();

} // namespace pipewave

#endif // PIPEWAVE_IMPORT_ONNXIMPORTER_H
