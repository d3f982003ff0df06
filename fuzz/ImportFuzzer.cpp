//===- ImportFuzzer.cpp - libFuzzer target for the ONNX importer ---------===//
//
// Part of the pipewave project.
//
// Every input is an ONNX model file: it goes through the whole importer
// (protobuf parse, ONNX checker, version conversion, shape inference, the
// node importers and MLIR verification). The importer must return a module
// or an error message; anything else (a crash, a sanitizer report, an
// exception escaping) is a bug.
//
//===----------------------------------------------------------------------===//

#include "ImporterContract.h"

#include "pipewave/Import/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/MLIRContext.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  context.loadDialect<mlir::func::FuncDialect, mlir::tosa::TosaDialect>();
  // Don't print diagnostics of the verifier; the error string is enough.
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  pipewave::OnnxImportOptions options; // no weights file
  options.batchSize = 2;
  std::string error;
  // External data resolves against a directory that does not exist, so a
  // fuzzed location can never read a real file.
  auto module = pipewave::importOnnxModelFromBuffer(
      reinterpret_cast<const char *>(data), size,
      "/nonexistent-pipewave-fuzz/model.onnx", context, options, error);
  pipewave::fuzz::checkImporterResult(static_cast<bool>(module), error);
  return 0;
}
