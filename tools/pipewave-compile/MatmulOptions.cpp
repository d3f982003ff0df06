//===- MatmulOptions.cpp - pipewave-compile's matmul options --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "MatmulOptions.h"

#include "pipewave/Conversion/MatmulChoice.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace {

cl::OptionCategory &category() {
  static cl::OptionCategory options("pipewave-compile matmul options");
  return options;
}

cl::opt<std::string> matmul(
    "matmul",
    cl::desc("f32 matmuls: auto (vector or blas by the matmul's class, as "
             "the host's calibration measured them, see --matmul-choice), "
             "blas (OpenBLAS), vector (MLIR tiling and vectorization) or "
             "loops (plain compiled loops)"),
    cl::init("auto"), cl::cat(category()));
cl::list<std::string> matmulChoice(
    "matmul-choice",
    cl::desc("--matmul=auto: rules CLASS:KERNEL, applied in order to the "
             "built-in default (CLASS LAYOUT-SHAPE: nn, tn, nt, tt; small, "
             "skinny-m, skinny-n, skinny-k, square; * for either; KERNEL "
             "vector or blas), instead of the device's calibration"),
    cl::CommaSeparated, cl::value_desc("rules"), cl::cat(category()));

bool fail(const Twine &message) {
  WithColor::error(errs(), "pipewave-compile") << message << "\n";
  return false;
}

} // namespace

bool pipewave::compile::checkMatmulOptions() {
  if (matmul != "auto" && matmul != "blas" && matmul != "vector" &&
      matmul != "loops")
    return fail("--matmul=" + matmul +
                ": expected auto, blas, vector or loops");
  if (matmulChoice.empty())
    return true;
  if (matmul != "auto")
    return fail("--matmul-choice applies to --matmul=auto only");
  MatmulChoice table;
  std::string error;
  if (!table.apply(
          std::vector<std::string>(matmulChoice.begin(), matmulChoice.end()),
          error))
    return fail("--matmul-choice: " + error);
  return true;
}

void pipewave::compile::setMatmulOptions(PipeCompileOptions &options) {
  options.matmul = *symbolizeMatmulLowering(matmul);
  options.matmulChoice =
      std::vector<std::string>(matmulChoice.begin(), matmulChoice.end());
}

bool pipewave::compile::resolveAndDescribeMatmul(PipeCompileOptions &options,
                                                 SummaryInputs &inputs) {
  if (options.target != CompileTarget::CPU)
    return true;
  ResolvedMatmulChoice choice;
  std::string error;
  if (failed(resolveMatmulChoice(options, choice, error)))
    return fail(error);
  inputs.matmul = stringifyMatmulLowering(options.matmul).str();
  if (choice.rules.empty())
    return true;
  options.matmulChoice = choice.rules;
  MatmulChoice table;
  (void)table.apply(choice.rules, error);
  inputs.matmul += ": vector for " +
                   std::to_string(table.count(MatmulKernel::Vector)) + " of " +
                   std::to_string(kNumMatmulLayouts * kNumMatmulShapes) +
                   " matmul classes, blas for " +
                   std::to_string(table.count(MatmulKernel::Blas)) +
                   "; chosen by " + choice.source;
  return true;
}
