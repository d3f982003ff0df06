//===- Options.h - Command line of a compiled model -------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The options pw_runtime_main accepts; see usage() and docs/runtime.md.
// Both "--opt VALUE" and "--opt=VALUE" work.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_OPTIONS_H
#define PIPEWAVE_RUNTIME_OPTIONS_H

#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/Optimizer.h"
#include "pipewave-runtime/model.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pipewave::runtime {

struct Options {
  /// --data NAME=FILE.npy, in order.
  std::vector<std::pair<std::string, std::string>> data;
  /// --expect NAME=FILE.npy: compare output NAME with the file.
  std::vector<std::pair<std::string, std::string>> expect;
  std::string outDir;
  std::string initFile;
  std::string traceFile;
  uint64_t seed = 0;
  int steps = 1;
  double timeout = kDefaultTimeoutSeconds;
  /// --tolerance: |out - expected| <= tolerance * max(1, |expected|).
  double tolerance = 1e-5;
  /// --spare-slots: extra slots of sending/receiving pools.
  int spareSlots = 1;
  /// --sends-in-list-order: issue every send at its place in the action
  /// list instead of right after its producer (ExecPlan.h, "Early sends").
  bool sendsInListOrder = false;
  /// --threads N: GEMM threads of each rank (0: the default of Threads.h).
  int threads = 0;
  /// --wait spin|yield: how a rank polls for messages (WaitPolicy.h; Auto:
  /// spin unless the host is oversubscribed).
  WaitMode wait = WaitMode::Auto;
  bool help = false;
  bool printRanks = false;
  bool printPlan = false;
  /// --print-memory: after the run, every rank's peak activation memory.
  bool printMemory = false;
  /// --cuda-graph: replay one captured step (Executor::useGraphs()).
  bool cudaGraph = false;

  // Training (models compiled with a backward).
  /// --optimizer, --lr, --momentum, --dampening, --nesterov, --weight-decay
  /// (default: the optimizer's, see defaultWeightDecay()), --betas, --eps.
  OptimizerConfig optimizer;
  /// The training options given, for the error on an inference model.
  std::vector<std::string> trainingOptions;
  /// --on-nonfinite stop|skip: a step with a non-finite gradient or loss
  /// stops the run, saving nothing of it, or has its updates dropped.
  NonfinitePolicy onNonfinite = NonfinitePolicy::Stop;
  /// --log-json FILE: one JSON object per step.
  std::string logJson;
  /// --checkpoint-dir DIR, --checkpoint-every K (0: only after the last
  /// step), --resume.
  std::string checkpointDir;
  int checkpointEvery = 0;
  bool resume = false;
  /// --checkpoint-on-signal: SIGTERM or SIGINT stops the run after the
  /// current step with a checkpoint of it (Signals.h).
  bool checkpointOnSignal = false;
};

/// Parses argv[1..argc). Throws Error (ExitUsage) on a bad command line.
Options parseOptions(int argc, char **argv);

/// The --help text for `model` (lists its data inputs and outputs).
std::string usage(const char *program, const pw_model &model);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_OPTIONS_H
