//===- MatmulOptions.h - pipewave-compile's matmul options ------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// --matmul (auto, blas, vector, loops) and --matmul-choice (the rules of
// matmul=auto, pipewave/Conversion/MatmulChoice.h), and the summary's line
// saying which kernels run the matmuls and what chose them.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_TOOLS_PIPEWAVE_COMPILE_MATMULOPTIONS_H
#define PIPEWAVE_TOOLS_PIPEWAVE_COMPILE_MATMULOPTIONS_H

#include "pipewave/Pipelines/Pipelines.h"
#include "pipewave/Summary/CompileSummary.h"

namespace pipewave::compile {

/// Checks --matmul and --matmul-choice; prints an error and returns false
/// when one is wrong.
bool checkMatmulOptions();

/// Sets the matmul options of `options` from the command line.
void setMatmulOptions(PipeCompileOptions &options);

/// Resolves matmul=auto's kernel per class once (resolveMatmulChoice) and
/// pins the result in `options.matmulChoice`, so the lowering compiles
/// exactly what the summary reports without reading the device again; then
/// writes the summary's matmul line: the lowering and, for matmul=auto, the
/// kernels per class and what chose them. Prints an error and returns false
/// when the choice cannot be resolved.
bool resolveAndDescribeMatmul(PipeCompileOptions &options,
                              SummaryInputs &inputs);

} // namespace pipewave::compile

#endif // PIPEWAVE_TOOLS_PIPEWAVE_COMPILE_MATMULOPTIONS_H
