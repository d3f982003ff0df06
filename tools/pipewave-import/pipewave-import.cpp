//===- pipewave-import.cpp - ONNX model to pipewave TOSA ------------------===//
//
// Part of the pipewave project.
//
//   pipewave-import model.onnx -o model.mlir [--batch-size N]
//   pipewave-import --list-ops
//
// writes the TOSA module and, next to it, model.safetensors with the
// parameter values (for `pipewave-run --init`).
//
//===----------------------------------------------------------------------===//

#include "pipewave/Import/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory category("pipewave-import options");

static cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model.onnx>"),
                                      cl::cat(category));
static cl::opt<std::string>
    outputPath("o", cl::desc("Output .mlir file ('-' = stdout)"),
               cl::value_desc("file"), cl::init("-"), cl::cat(category));
static cl::opt<std::string>
    weightsPath("weights",
                cl::desc("Parameter values file (default: the output with "
                         ".safetensors; none when writing to stdout)"),
                cl::value_desc("file"), cl::init(""), cl::cat(category));
static cl::opt<int64_t> batchSize(
    "batch-size",
    cl::desc("Value of a symbolic batch dimension (dim 0) of the inputs"),
    cl::init(0), cl::cat(category));
static cl::opt<bool> printLocs("print-locations",
                               cl::desc("Print node locations in the output"),
                               cl::init(false), cl::cat(category));
static cl::opt<bool> listOps("list-ops",
                             cl::desc("Print the supported ONNX op types, one "
                                      "per line, and exit"),
                             cl::init(false), cl::cat(category));

int main(int argc, char **argv) {
  InitLLVM y(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "pipewave ONNX importer\n");
  if (listOps) {
    for (const std::string &op : pipewave::supportedOnnxOps())
      outs() << op << "\n";
    return 0;
  }
  if (inputPath.empty()) {
    errs() << "pipewave-import: no input model (usage: pipewave-import "
              "model.onnx -o model.mlir)\n";
    return 1;
  }

  pipewave::OnnxImportOptions options;
  options.batchSize = batchSize;
  options.weightsPath = weightsPath;
  if (options.weightsPath.empty() && outputPath != "-") {
    SmallString<256> w(outputPath);
    sys::path::replace_extension(w, "safetensors");
    options.weightsPath = std::string(w);
  }
  if (batchSize < 0) {
    errs() << "pipewave-import: --batch-size must be positive\n";
    return 1;
  }

  mlir::MLIRContext context;
  context.loadDialect<mlir::func::FuncDialect, mlir::tosa::TosaDialect>();
  std::string error;
  auto module = pipewave::importOnnxModel(inputPath, context, options, error);
  if (!module) {
    errs() << "pipewave-import: " << error << "\n";
    return 1;
  }
  std::string errorMessage;
  auto out = mlir::openOutputFile(outputPath, &errorMessage);
  if (!out) {
    errs() << "pipewave-import: " << errorMessage << "\n";
    return 1;
  }
  mlir::OpPrintingFlags flags;
  if (printLocs)
    flags.enableDebugInfo();
  module->print(out->os(), flags);
  out->keep();
  return 0;
}
