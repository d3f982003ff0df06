//===- pipewave-import.cpp - ONNX/StableHLO model to pipewave TOSA --------===//
//
// Part of the pipewave project.
//
//   pipewave-import model.onnx -o model.mlir [--batch-size N]
//   pipewave-import --list-ops
//   pipewave-import model.stablehlo.mlir -o model.mlir [--num-params N]
//       [--arg-names FILE] [--params FILE.safetensors|DIR]
//   pipewave-import --list-stablehlo-ops
//
// writes the TOSA module and, next to it, model.safetensors with the
// parameter values (for `pipewave-run --init`). A StableHLO module (JAX's
// `lowered.as_text()`) is told from an ONNX file by its content.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/Utils/FrozenParameters.h"
#include "pipewave/Import/OnnxImporter.h"
#include "pipewave/Import/StableHLOImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
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
static cl::opt<bool>
    debugIR("debug-ir",
            cl::desc("With an error, also print the IR of the operation it "
                     "points at, for developers"),
            cl::init(false));
static cl::opt<bool> printLocs("print-locations",
                               cl::desc("Print node locations in the output"),
                               cl::init(false), cl::cat(category));
static cl::opt<bool> listOps("list-ops",
                             cl::desc("Print the supported ONNX op types, one "
                                      "per line, and exit"),
                             cl::init(false), cl::cat(category));

// Which tensors train (docs/onnx.md, "Parameters and constants").
static cl::list<std::string>
    frozenGlobs("frozen",
                cl::desc("Freeze the parameters whose names match GLOB: no "
                         "gradient, never updated (repeatable)"),
                cl::value_desc("glob"), cl::cat(category));
static cl::opt<bool> keepIdentityTies(
    "keep-identity-ties",
    cl::desc("ONNX: keep Identity(initializer) aliases as one tied parameter "
             "instead of a parameter of their own each"),
    cl::init(false), cl::cat(category));

static cl::opt<int64_t> numParams(
    "num-params",
    cl::desc("StableHLO: how many leading arguments of @main are parameters "
             "(default: those named like the first, params.*)"),
    cl::init(-1), cl::cat(category));
static cl::opt<std::string>
    argNamesPath("arg-names",
                 cl::desc("StableHLO: a file with one argument name per line "
                          "(default: JAX's loc(\"params['w']\") names)"),
                 cl::value_desc("file"), cl::init(""), cl::cat(category));
static cl::opt<std::string>
    paramsPath("params",
               cl::desc("StableHLO: parameter values, a .safetensors file or "
                        "a directory of NAME.npy files"),
               cl::value_desc("path"), cl::init(""), cl::cat(category));
static cl::opt<bool>
    listStableHLOOps("list-stablehlo-ops",
                     cl::desc("Print the supported stablehlo/chlo operations, "
                              "one per line, and exit"),
                     cl::init(false), cl::cat(category));

/// Imports a StableHLO module (pipewave::importStableHLOModule).
static mlir::OwningOpRef<mlir::ModuleOp>
importStableHLO(mlir::MLIRContext &context, std::string &error) {
  pipewave::StableHLOImportOptions options;
  options.numParams = numParams;
  options.paramsPath = paramsPath;
  options.weightsPath = weightsPath;
  if (options.weightsPath.empty() && outputPath != "-" && !paramsPath.empty()) {
    SmallString<256> w(outputPath);
    sys::path::replace_extension(w, "safetensors");
    options.weightsPath = std::string(w);
  }
  if (!argNamesPath.empty()) {
    auto names = MemoryBuffer::getFile(argNamesPath, /*IsText=*/true);
    if (!names) {
      error =
          "cannot read '" + argNamesPath + "': " + names.getError().message();
      return {};
    }
    SmallVector<StringRef> lines;
    (*names)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef line : lines)
      if (!line.trim().empty())
        options.argNames.push_back(line.trim().str());
  }
  return pipewave::importStableHLOModule(inputPath, context, options, error);
}

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
  if (listStableHLOOps) {
    for (const std::string &op : pipewave::supportedStableHLOOps())
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
  options.keepIdentityTies = keepIdentityTies;
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
  // Errors name the file and say what is wrong, without an IR dump.
  if (!debugIR)
    context.printOpOnDiagnostic(false);
  context.loadDialect<mlir::func::FuncDialect, mlir::tosa::TosaDialect>();
  std::string error;
  auto head = MemoryBuffer::getFileOrSTDIN(inputPath, /*IsText=*/false);
  bool stablehlo = head && pipewave::isStableHLOSource((*head)->getBuffer());
  auto module =
      stablehlo ? importStableHLO(context, error)
                : pipewave::importOnnxModel(inputPath, context, options, error);
  if (!module) {
    errs() << "pipewave-import: " << error << "\n";
    return 1;
  }
  if (auto entry = module->lookupSymbol<mlir::func::FuncOp>("main"))
    if (failed(pipewave::pipe::freezeParameters(entry, frozenGlobs, error))) {
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
