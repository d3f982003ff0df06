//===- ScheduleBuild.h - Schedules by name, and their search ------*- C++
//-*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Helpers of pipe-schedule: build a named schedule for a stage count (ranks
// follow from the schedule's placement), and the simulated search of
// schedule=auto.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_SCHEDULEBUILD_H
#define PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_SCHEDULEBUILD_H

#include "pipewave/Analysis/StageCosts.h"
#include "pipewave/Schedule/Generate.h"

#include <optional>
#include <string>
#include <vector>

namespace pipewave::pipe::scheduling {

/// A schedule and its shape parameters.
struct ScheduleSpec {
  /// Canonical name: gpipe, 1f1b, interleaved, hanayo, zb-h1 or zb-v.
  std::string name;
  /// interleaved: chunks per rank (v).
  int chunks = 0;
  /// hanayo: waves (W).
  int waves = 0;

  /// "interleaved chunks=2", "hanayo waves=1", "1f1b".
  std::string describe() const;
};

/// The canonical name of a generated schedule (accepting the library's
/// names interleaved-1f1b, zbh1 and zbv), or nullopt.
std::optional<std::string> canonicalScheduleName(llvm::StringRef name);

/// True for zb-h1 and zb-v (backward split into I and W).
bool isSplitSchedule(llvm::StringRef name);

/// Ranks of `spec` over `numStages` stages, or nullopt with `error` set when
/// the stage count does not fit the schedule's placement.
std::optional<int> ranksFor(const ScheduleSpec &spec, int numStages,
                            std::string &error);

/// Builds `spec` for `numStages` stages and `microbatches` microbatches. A
/// forward-only request keeps the schedule's placement and the order of its
/// forwards. Errors repeat the option values and the stage/rank counts.
schedule::BuildResult buildSchedule(const ScheduleSpec &spec, int numStages,
                                    int microbatches, bool forwardOnly);

/// The forward-only program with the placement and forward order of a
/// training `program` (its messages rebuilt by the action-list lowering).
schedule::BuildResult forwardOnlyVariant(const schedule::Program &program);

/// `replicas` data-parallel copies of `program` (one replica: itself). Rank
/// k * P + r of the result (P = the program's ranks) runs rank r's actions
/// with its sends and receives going to the ranks of replica k, and an
/// all-reduce of a stage's gradients among its replicas right before each
/// optimizer step of the stage. A program that already replicates a stage
/// is an error.
schedule::BuildResult replicateProgram(const schedule::Program &program,
                                       int replicas);

/// One simulated candidate of schedule=auto.
struct Candidate {
  ScheduleSpec spec;
  int microbatches = 0;
  /// Stage costs with full recompute (stash the inputs only, run the
  /// forward again before the backward).
  bool fullRecompute = false;
  int ranks = 0;
  double stepSeconds = 0;
  double bubble = 0;
  double peakMemoryBytes = 0;
  bool fits = false;
  /// Why the candidate could not be built or simulated; empty if it was.
  std::string error;
};

struct SearchOptions {
  /// Microbatch counts to try.
  std::vector<int> microbatchCounts;
  int devicesPerNode = 8;
  /// Memory budget per device.
  double memoryBytes = 0;
  bool forwardOnly = false;
  /// Also try every candidate with full recompute.
  bool searchRecompute = false;
};

/// Result of searchSchedules().
struct SearchResult {
  /// Every candidate built and simulated, fastest first (then by peak
  /// memory, then in enumeration order).
  std::vector<Candidate> candidates;
  /// Index into candidates of the fastest that fits, or -1.
  int best = -1;
  /// The program of the best candidate.
  std::optional<schedule::Program> program;
};

/// Enumerates gpipe, 1f1b, interleaved (v = 2, 4), hanayo (W = 1, 2), zb-h1
/// and zb-v (not for forward-only steps) where the stage count allows
/// (interleaved, hanayo and zb-v on two ranks or more), for every microbatch
/// count of `options` (and without and with full recompute when asked),
/// simulates each with `costs`, and picks the fastest whose peak memory
/// fits the budget.
SearchResult searchSchedules(const pipewave::ModelCosts &costs,
                             const SearchOptions &options);

} // namespace pipewave::pipe::scheduling

#endif // PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_SCHEDULEBUILD_H
