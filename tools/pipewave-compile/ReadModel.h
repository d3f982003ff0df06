//===- ReadModel.h - pipewave-compile's model readers -----------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The model file pipewave-compile reads: TOSA MLIR, an ONNX file (through
// the ONNX importer) or a StableHLO export (through the StableHLO
// importer), with the import options (--batch-size, --keep-identity-ties,
// --num-params, --params). An importer writes the parameter values it has
// next to the output (OUT.safetensors).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_TOOLS_PIPEWAVE_COMPILE_READMODEL_H
#define PIPEWAVE_TOOLS_PIPEWAVE_COMPILE_READMODEL_H

#include "pipewave/Summary/CompileSummary.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <string>

namespace pipewave::compile {

/// The import options' category (for cl::HideUnrelatedOptions).
llvm::cl::OptionCategory &importCategory();

/// Reads `inputFile` ("-": standard input, TOSA MLIR) into `context`;
/// `output` is the compile's output path ("-": none, so no values are
/// written). Sets the model format and --init file of `summary`, and
/// `weightsWritten` to the values file an importer wrote (empty if none).
/// Prints the error and returns null on failure.
mlir::OwningOpRef<mlir::ModuleOp>
readModel(const std::string &inputFile, const std::string &output,
          mlir::MLIRContext &context,
          const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
          SummaryInputs &summary, std::string &weightsWritten);

} // namespace pipewave::compile

#endif // PIPEWAVE_TOOLS_PIPEWAVE_COMPILE_READMODEL_H
