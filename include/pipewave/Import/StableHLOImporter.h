//===- StableHLOImporter.h - JAX StableHLO module to TOSA -------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Turns the StableHLO text a JAX user hands over
// (`jax.jit(loss).lower(params, x, y).as_text()`, pretty or generic form)
// into a module in pipewave's TOSA input contract: a `func.func @main` whose
// parameter arguments carry `pipe.param`, every argument and result a
// `pipe.name`, the scalar loss first. Parameter values given with `params`
// are checked against the arguments and written to a safetensors file.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_IMPORT_STABLEHLOIMPORTER_H
#define PIPEWAVE_IMPORT_STABLEHLOIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pipewave {

struct StableHLOImportOptions {
  /// Names of the arguments of @main, in order (--arg-names FILE); empty =
  /// JAX's locations (`loc("params['w']")` becomes `params.w`), else argN.
  std::vector<std::string> argNames;
  /// How many leading arguments are parameters; -1 = the leading arguments
  /// whose names share the first argument's root (`params.*`).
  int64_t numParams = -1;
  /// Parameter values: a safetensors file or a directory of NAME.npy files;
  /// empty = none.
  std::string paramsPath;
  /// Where to write the parameter values (safetensors); empty = don't
  /// write. Needs `paramsPath`.
  std::string weightsPath;
};

/// True if `text` looks like an MLIR StableHLO module (not an ONNX
/// protobuf): it mentions `stablehlo.` and is text.
bool isStableHLOSource(llvm::StringRef text);

/// The dialects the importer parses and produces.
void registerStableHLOImportDialects(mlir::DialectRegistry &registry);

/// Imports the StableHLO module at `path`. On failure returns a null module
/// and sets `error` to a one-line message (without the tool-name prefix).
mlir::OwningOpRef<mlir::ModuleOp>
importStableHLOModule(const std::string &path, mlir::MLIRContext &context,
                      const StableHLOImportOptions &options,
                      std::string &error);

/// Imports the StableHLO module text in `file`; `path` names it in errors
/// (the fuzzer's entry point).
mlir::OwningOpRef<mlir::ModuleOp>
importStableHLOBuffer(std::unique_ptr<llvm::MemoryBuffer> file,
                      const std::string &path, mlir::MLIRContext &context,
                      const StableHLOImportOptions &options,
                      std::string &error);

/// The stablehlo/chlo operations the importer converts, sorted.
std::vector<std::string> supportedStableHLOOps();

} // namespace pipewave

#endif // PIPEWAVE_IMPORT_STABLEHLOIMPORTER_H
