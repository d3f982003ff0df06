//===- Measure.h - Timing compiled models and the backend -------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Runner compiles a Model with pipewave-compile (one stage) and runs it with
// pipewave-run on one rank with --trace; the timing is the typical mean
// (typicalMean) of the stage's F (and optimizer) slices after the first
// step. The communication
// figures come from this tool itself run on two ranks (--comm-worker).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_TOOLS_CALIBRATE_MEASURE_H
#define PIPEWAVE_TOOLS_CALIBRATE_MEASURE_H

#include "Models.h"
#include "Samples.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pipewave::calibrate {

/// Typical seconds (typicalMean) of one step's slices, and of the runtime's
/// work between them: from the end of an F, B, I or W slice to the start of the
/// step's next slice (0 when no action is followed by another slice).
struct Timing {
  double forward = 0;
  double optimizer = 0;
  double between = 0;
};

class Runner {
public:
  /// pipewave-compile and pipewave-run are looked up in `binDir`; files go
  /// to `workDir`; each model runs `steps` steps.
  Runner(std::string binDir, std::string workDir, int steps)
      : binDir(std::move(binDir)), workDir(std::move(workDir)), steps(steps) {}

  /// Compiles and times `model` (files named after `name`); nullopt with
  /// `error` set when a command fails. A model compiled before under the
  /// same name from the same text and flags (in this process, or with its
  /// NAME.key file in the work directory) is not compiled again.
  std::optional<Timing> time(const Model &model, const std::string &name,
                             std::string &error);

  /// time(), then the medians of every timing of `name` so far (one per
  /// pass); pooled under `poolAs` instead when given (one binary timed at
  /// several points of a pass, each pooled on its own).
  std::optional<Timing> pooled(const Model &model, const std::string &name,
                               std::string &error,
                               const std::string &poolAs = "");

  /// Runs `command` with its output in `log`; false with `error` holding
  /// the end of the log when it fails.
  static bool run(const std::string &command, const std::string &log,
                  std::string &error);

  /// pipewave-compile flags every model gets (before its own).
  void setCompileFlags(std::string flags) { compileFlags = std::move(flags); }

  /// Whether the models are compiled for the CUDA target (each binary run
  /// directly, on this process's GPU) rather than the CPU's (run by
  /// pipewave-run on one MPI rank).
  void setCuda(bool on) { cuda = on; }
  bool isCuda() const { return cuda; }

  /// Only compile (into the work directory, each binary beside a NAME.key
  /// file holding what it was compiled from), run nothing: time() then
  /// returns placeholder timings. A later Runner on the same work
  /// directory, on another machine, runs those binaries without
  /// pipewave-compile (a GPU machine without the compiler).
  void setCompileOnly(bool only) { compileOnly = only; }

  /// The F times of every model timed through pooled(), by pass.
  const SamplePool &forwardSamples() const { return forward; }

  const std::string &bin() const { return binDir; }
  const std::string &work() const { return workDir; }

private:
  std::string binDir, workDir, compileFlags;
  int steps;
  bool cuda = false, compileOnly = false;
  /// The compile command (model text included) each binary was built with.
  std::map<std::string, std::string> compiled;
  SamplePool forward, optimizer, between;
};

/// One message size between two ranks: its one-way seconds, and the CPU
/// seconds the sender spends posting it and the receiver posting and
/// completing its receive, and the receiver's wait for it when it arrived
/// while the receiver was outside MPI.
struct MessageFigures {
  double bytes = 0;
  double seconds = 0;
  double sendSeconds = 0;
  double recvSeconds = 0;
  double deliverSeconds = 0;
};

/// Point-to-point and all-reduce figures between two ranks.
struct CommFigures {
  double latencySeconds = 0;
  double bytesPerSecond = 0;
  double allReduceLatencySeconds = 0;
  double allReduceBytesPerSecond = 0;
  /// By message size (sizes increasing).
  std::vector<MessageFigures> messages;
};

/// Runs `self --comm-worker FILE` on two ranks through pipewave-run and
/// reads what rank 0 wrote.
std::optional<CommFigures> measureComm(const Runner &runner,
                                       const std::string &self, bool quick,
                                       std::string &error);

/// The --comm-worker side: ping-pong and all-reduce through the runtime's
/// MPI backend; rank 0 writes the figures to `out`. Returns the exit code.
int runCommWorker(int argc, char **argv, const std::string &out, bool quick);

} // namespace pipewave::calibrate

#endif // PIPEWAVE_TOOLS_CALIBRATE_MEASURE_H
