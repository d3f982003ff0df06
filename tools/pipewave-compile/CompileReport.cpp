//===- CompileReport.cpp - What pipewave-compile tells its user -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "CompileReport.h"

#include "pipewave/Analysis/StageCosts.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <chrono>

using namespace llvm;

namespace {

cl::OptionCategory &category() {
  static cl::OptionCategory options("pipewave-compile report options");
  return options;
}

cl::opt<bool> quietOption(
    "quiet",
    cl::desc("Print no summary after a successful compile and no remarks "
             "(schedule=auto's table); errors and warnings still print"),
    cl::init(false), cl::cat(category()));
cl::opt<std::string> summaryJson(
    "summary-json",
    cl::desc("Write the compile summary (stages, ranks, schedule, predicted "
             "step, run command) as JSON to this file"),
    cl::value_desc("file"), cl::init(""), cl::cat(category()));
cl::opt<bool> progressOption(
    "progress",
    cl::desc("Print every phase of the compile with its time (by default "
             "only once the compile has taken more than a second)"),
    cl::init(false), cl::cat(category()));
cl::opt<std::string> device(
    "device",
    cl::desc("The device schedule=auto simulates the candidates on and the "
             "summary predicts for: cpu, v100, a100, h100, h200 or a device "
             ".json file (default: the target's, cpu for --target cpu, h200 "
             "for --target cuda)"),
    cl::init(""), cl::cat(category()));

/// After this long a compile reports its phases.
constexpr double kProgressAfterSeconds = 1.0;

double now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

} // namespace

cl::OptionCategory &pipewave::compile::reportCategory() { return category(); }

bool pipewave::compile::quiet() { return quietOption; }

std::string pipewave::compile::deviceOption() { return device; }

bool pipewave::compile::checkReportOptions() {
  std::string error;
  if (device.empty() || resolveDevice(device, error))
    return true;
  WithColor::error(errs(), "pipewave-compile")
      << "--device=" << device << ": " << error << "\n";
  return false;
}

void pipewave::compile::silenceRemarks(mlir::MLIRContext &context) {
  if (!quietOption)
    return;
  context.getDiagEngine().registerHandler([](mlir::Diagnostic &diagnostic) {
    return mlir::success(diagnostic.getSeverity() ==
                         mlir::DiagnosticSeverity::Remark);
  });
}

bool pipewave::compile::summarize(mlir::ModuleOp module, SummaryInputs inputs,
                                  StringRef executable,
                                  std::optional<CompileSummary> &summary) {
  if (summaryJson.empty() && (executable.empty() || quietOption))
    return true;
  inputs.output = executable.str();
  if (!device.empty())
    inputs.deviceReason = "--device";
  // The parameter file an importer wrote next to the output.
  if (!inputs.initFile.empty() && !sys::fs::exists(inputs.initFile))
    inputs.initFile.clear();
  mlir::FailureOr<CompileSummary> computed =
      computeCompileSummary(module, inputs);
  if (failed(computed))
    return false;
  summary = std::move(*computed);
  return true;
}

bool pipewave::compile::writeSummary(const CompileSummary &summary,
                                     bool printText) {
  if (!summaryJson.empty()) {
    std::string error;
    std::unique_ptr<ToolOutputFile> file =
        mlir::openOutputFile(summaryJson, &error);
    if (!file) {
      WithColor::error(errs(), "pipewave-compile")
          << "--summary-json: " << error << "\n";
      return false;
    }
    printSummaryJson(summary, file->os());
    file->keep();
  }
  if (printText && !quietOption)
    printSummaryText(summary, errs());
  return true;
}

pipewave::compile::Progress::Progress()
    : start(now()), phaseStart(start),
      printing(progressOption && !quietOption) {}

void pipewave::compile::Progress::phase(StringRef next) {
  double time = now();
  if (!current.empty())
    pending.push_back({current, time - phaseStart, time - start});
  current = next.str();
  phaseStart = time;
  flush();
  // Once reporting, say what runs now: a phase may take minutes.
  if (printing && !current.empty())
    errs() << "pipewave-compile: " << current << " ...\n";
}

void pipewave::compile::Progress::flush() {
  if (quietOption || pending.empty())
    return;
  if (!printing && !progressOption &&
      pending.back().total <= kProgressAfterSeconds)
    return;
  printing = true;
  for (const Finished &phase : pending)
    errs() << "pipewave-compile: " << phase.name << ": "
           << format("%.2f s", phase.seconds) << " ("
           << format("%.2f s", phase.total) << " in all)\n";
  pending.clear();
}
