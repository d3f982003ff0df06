//===- CompileSummary.h - What a compile made, for people and tools -*- C++
//-*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The summary pipewave-compile prints after a successful compile (and
// writes with --summary-json): the model and its parameters, the stages
// with the operations and parameters each holds, the ranks each stage runs
// on, the schedule, the step the simulator predicts on the target's device
// (step time, bubble, peak memory per rank) and the command that runs the
// result. It is computed from the module after the front end of
// pipe-compile (the stage functions, their training functions and the
// sched.program); nothing in it depends on the machine or the clock, so the
// same compile always prints the same summary.
//
// * Stage operations: the operations of the stage function that do work
//   (not the free constants of pipewave/Analysis/CostModel.h), in order;
//   the first and the last are named with their source location (the
//   model's file:line, or the name an importer gave the node).
// * Parameters: the `pipe.param` arguments of the entry (count, elements,
//   bytes) and of each stage function (names and bytes).
// * Ranks: the ranks of the sched.program holding each stage (several with
//   data-parallel replicas; several stages per rank with interleaved and
//   wave schedules).
// * Prediction: sched-simulate's event simulation of the program with the
//   per-stage costs of pipewave/Analysis/StageCosts.h on `device` (Adam's
//   optimizer state for a training step).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SUMMARY_COMPILESUMMARY_H
#define PIPEWAVE_SUMMARY_COMPILESUMMARY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pipewave {

/// What the summary needs to know besides the module.
struct SummaryInputs {
  /// The model file as the user named it, and its format ("mlir" for TOSA
  /// MLIR, "onnx", "stablehlo").
  std::string modelFile;
  std::string modelFormat;
  /// The entry function.
  std::string entry = "main";
  /// The device the prediction is for (a name resolveDevice() knows or a
  /// .json file), and why it is that one (e.g. "the cpu target's").
  std::string device;
  std::string deviceReason;
  /// Whether the user asked for schedule=auto.
  bool autoSchedule = false;
  /// The recompute policy ("none", "full", "selective").
  std::string recompute = "none";
  /// How the CPU target runs f32 matmuls and, for auto, what chose the
  /// kernels (empty: not said, e.g. for CUDA).
  std::string matmul;
  /// The compiled binary as the user named it (empty: not an executable,
  /// no run command) and the parameter file written next to it, if any.
  std::string output;
  std::string initFile;
};

/// A data input of the entry.
struct InputSummary {
  std::string name;
  /// e.g. "f32 16x64".
  std::string type;
};

/// One pipeline stage.
struct StageSummary {
  std::string function;
  /// Operations doing work; the first and the last, and where they are.
  int64_t numOps = 0;
  std::string firstOp, firstOpLocation;
  std::string lastOp, lastOpLocation;
  /// The parameters the stage holds, in argument order.
  std::vector<std::string> parameters;
  int64_t parameterElements = 0;
  double parameterBytes = 0;
  /// The ranks holding the stage, ascending.
  std::vector<int> ranks;
};

/// One rank of the program.
struct RankSummary {
  std::vector<int> stages;
  /// Predicted peak memory of the rank's device and whether it fits.
  double peakMemoryBytes = 0;
  bool fits = true;
};

/// Everything the summary says.
struct CompileSummary {
  std::string modelFile, modelFormat;
  std::vector<InputSummary> dataInputs;
  int64_t batch = 0;
  /// Parameters of the entry: tensors, elements and bytes.
  int64_t numParameters = 0;
  int64_t parameterElements = 0;
  double parameterBytes = 0;

  std::string schedule;
  bool autoSchedule = false;
  bool forwardOnly = false;
  std::string recompute;
  int numStages = 0;
  int microbatches = 0;
  int replicas = 1;
  int numRanks = 0;
  std::vector<StageSummary> stages;
  std::vector<RankSummary> ranks;

  /// SummaryInputs::matmul.
  std::string matmul;

  std::string device, deviceDescription, deviceReason;
  double deviceMemoryBytes = 0;
  double stepSeconds = 0;
  double bubbleFraction = 0;
  bool fits = true;

  /// The executable written (empty: none) and `pipewave-run -n N OUT ...`
  /// (empty without an executable).
  std::string output;
  std::string runCommand;
};

/// Computes the summary of `module` after pipe-compile's front end; emits an
/// error and fails when the module has no entry, stage functions or
/// sched.program, the device is unknown or the program cannot be
/// simulated.
mlir::FailureOr<CompileSummary> computeCompileSummary(mlir::ModuleOp module,
                                                      const SummaryInputs &in);

/// The summary as text for people (several lines, each ending in '\n').
void printSummaryText(const CompileSummary &summary, llvm::raw_ostream &os);

/// The summary as one JSON object (sizes in bytes, times in seconds).
void printSummaryJson(const CompileSummary &summary, llvm::raw_ostream &os);

} // namespace pipewave

#endif // PIPEWAVE_SUMMARY_COMPILESUMMARY_H
