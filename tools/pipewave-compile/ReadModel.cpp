//===- ReadModel.cpp - pipewave-compile's model readers -------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "ReadModel.h"

#include "pipewave/Import/StableHLOImporter.h"
#include "pipewave/Support/NestingDepth.h"
#ifdef PIPEWAVE_HAVE_ONNX
#include "pipewave/Import/OnnxImporter.h"
#endif

#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace mlir;

namespace pipewave::compile {

cl::OptionCategory &importCategory() {
  static cl::OptionCategory options("pipewave-compile import options");
  return options;
}

namespace {

cl::opt<int64_t> numParams(
    "num-params",
    cl::desc("StableHLO input: how many leading arguments are parameters "
             "(default: the leading params.* arguments)"),
    cl::init(-1), cl::cat(importCategory()));
cl::opt<std::string> paramsPath(
    "params",
    cl::desc("StableHLO input: parameter values (a .safetensors file or a "
             "directory of NAME.npy), written next to the output"),
    cl::value_desc("file"), cl::init(""), cl::cat(importCategory()));
cl::opt<int64_t> onnxBatchSize(
    "batch-size",
    cl::desc("ONNX input: the value of a symbolic batch dimension (dim 0) of "
             "the graph inputs"),
    cl::init(0), cl::cat(importCategory()));
cl::opt<bool> keepIdentityTies(
    "keep-identity-ties",
    cl::desc("ONNX input: keep Identity(initializer) aliases as one tied "
             "parameter instead of a parameter of their own each"),
    cl::init(false), cl::cat(importCategory()));

OwningOpRef<ModuleOp> failed(const Twine &message) {
  WithColor::error(errs(), "pipewave-compile") << message << "\n";
  return nullptr;
}

/// Where an importer writes the values: OUT.safetensors ("" for "-").
std::string weightsBeside(const std::string &output) {
  if (output == "-")
    return "";
  SmallString<256> weights(output);
  sys::path::replace_extension(weights, "safetensors");
  return std::string(weights);
}

/// An importer's module, or its error; the weights file it wrote is recorded.
OwningOpRef<ModuleOp> imported(OwningOpRef<ModuleOp> module,
                               const std::string &error,
                               const std::string &weightsPath,
                               std::string &weightsWritten) {
  if (!module)
    return failed(error);
  weightsWritten = weightsPath;
  return module;
}

} // namespace

OwningOpRef<ModuleOp> readModel(const std::string &inputFile,
                                const std::string &output, MLIRContext &context,
                                const std::shared_ptr<SourceMgr> &sourceMgr,
                                SummaryInputs &summary,
                                std::string &weightsWritten) {
  std::string errorMessage;
  summary.modelFile = inputFile;
  summary.modelFormat = "mlir";
  if (StringRef(inputFile).ends_with(".onnx")) {
    // An ONNX model goes through the importer; its initializer values are
    // written next to the output (OUT.safetensors, for pipewave-run --init).
#ifdef PIPEWAVE_HAVE_ONNX
    OnnxImportOptions options;
    options.batchSize = onnxBatchSize;
    options.keepIdentityTies = keepIdentityTies;
    options.weightsPath = weightsBeside(output);
    summary.modelFormat = "onnx";
    summary.initFile = options.weightsPath;
    return imported(importOnnxModel(inputFile, context, options, errorMessage),
                    errorMessage, options.weightsPath, weightsWritten);
#else
    return failed("'" + inputFile +
                  "': this pipewave-compile was built "
                  "without the ONNX importer (libonnx-dev, libprotobuf-dev)");
#endif
  }
  std::unique_ptr<MemoryBuffer> input = openInputFile(inputFile, &errorMessage);
  if (!input)
    return failed(errorMessage);
  if (inputFile != "-" && isStableHLOSource(input->getBuffer())) {
    // A JAX export goes through the StableHLO importer; the values of
    // --params are written next to the output, as for ONNX.
    StableHLOImportOptions options;
    options.numParams = numParams;
    options.paramsPath = paramsPath;
    if (!paramsPath.empty())
      options.weightsPath = weightsBeside(output);
    summary.modelFormat = "stablehlo";
    summary.initFile = options.weightsPath;
    return imported(
        importStableHLOModule(inputFile, context, options, errorMessage),
        errorMessage, options.weightsPath, weightsWritten);
  }
  if (std::string deep = deepNestingError(input->getBuffer(), inputFile);
      !deep.empty())
    return failed(deep);
  sourceMgr->AddNewSourceBuffer(std::move(input), SMLoc());
  // A parse error is reported by the diagnostic handler.
  return parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
}

} // namespace pipewave::compile
