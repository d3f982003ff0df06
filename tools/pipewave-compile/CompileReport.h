//===- CompileReport.h - What pipewave-compile tells its user ---*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The options and output of pipewave-compile that are about telling the user
// what happened, kept apart from the compile itself: the summary after a
// successful compile (stderr, --summary-json FILE, --quiet) and the device
// the schedule search and the prediction use (--device).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_TOOLS_PIPEWAVE_COMPILE_COMPILEREPORT_H
#define PIPEWAVE_TOOLS_PIPEWAVE_COMPILE_COMPILEREPORT_H

#include "pipewave/Summary/CompileSummary.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"

#include <optional>

namespace pipewave::compile {

/// The category of the options of this file.
llvm::cl::OptionCategory &reportCategory();

/// True with --quiet: no summary and no remarks on stderr.
bool quiet();

/// With --quiet, drops remarks (e.g. schedule=auto's table) before the
/// tool's diagnostic handler prints them; errors and warnings still print.
void silenceRemarks(mlir::MLIRContext &context);

/// Checks the options of this file; prints an error and returns false when
/// one is wrong (an unknown --device).
bool checkReportOptions();

/// The --device option ("" when not given).
std::string deviceOption();

/// Computes the summary of `module` after pipe-compile's front end into
/// `summary` when one is printed or written: for an executable
/// (`executable`, its path as the user named it; empty for other --emit
/// kinds) unless --quiet, for any with --summary-json. Returns false after
/// an error (already reported).
bool summarize(mlir::ModuleOp module, SummaryInputs inputs,
               llvm::StringRef executable,
               std::optional<CompileSummary> &summary);

/// Writes --summary-json and, when `printText` and not --quiet, prints the
/// summary on stderr. Returns false after an error (already reported).
bool writeSummary(const CompileSummary &summary, bool printText);

} // namespace pipewave::compile

#endif // PIPEWAVE_TOOLS_PIPEWAVE_COMPILE_COMPILEREPORT_H
