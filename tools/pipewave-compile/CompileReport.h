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
#include <string>
#include <vector>

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

/// The phases of a compile and their times, on stderr once the compile has
/// taken more than a second (from the start with --progress; never with
/// --quiet): short compiles print nothing, long ones say where the time
/// goes as they go, and name each phase when it starts.
class Progress {
public:
  Progress();

  /// Ends the current phase, if any, and starts the one called `next`
  /// (empty: none).
  void phase(llvm::StringRef next);

private:
  /// Prints the finished phases not printed yet, if it is time to.
  void flush();

  double start;
  double phaseStart;
  std::string current;
  /// Finished phases not printed yet: name, seconds, seconds since start.
  struct Finished {
    std::string name;
    double seconds, total;
  };
  std::vector<Finished> pending;
  bool printing = false;
};

} // namespace pipewave::compile

#endif // PIPEWAVE_TOOLS_PIPEWAVE_COMPILE_COMPILEREPORT_H
