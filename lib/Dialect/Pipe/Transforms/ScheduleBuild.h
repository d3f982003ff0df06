//===- ScheduleBuild.h - Replicas and the search of auto --------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Helpers of pipe-schedule: data-parallel copies of a program, and the
// simulated search of schedule=auto over the registered schedule families
// (pipewave/Schedule/Registry.h builds a family by name).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_SCHEDULEBUILD_H
#define PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_SCHEDULEBUILD_H

#include "pipewave/Analysis/StageCosts.h"
#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Registry.h"

#include <optional>
#include <string>
#include <vector>

namespace pipewave::pipe::scheduling {

/// A schedule family and the value of its shape option (0 for a family
/// without one).
struct ScheduleSpec {
  const schedule::ScheduleFamily *family = nullptr;
  int option = 0;

  /// "interleaved chunks=2", "hanayo waves=1", "1f1b".
  std::string describe() const { return family->describe(option); }
};

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
  /// More ranks than the calibrated device's cores: the ranks would share
  /// them (see searchSchedules).
  bool oversubscribed = false;
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
  /// Every candidate built and simulated: those on no more ranks than the
  /// device's cores first, then fastest first (then by peak memory, then in
  /// enumeration order).
  std::vector<Candidate> candidates;
  /// Index into candidates of the first that fits, or -1.
  int best = -1;
  /// Candidates with more ranks than the device's cores.
  int oversubscribed = 0;
  /// The program of the best candidate.
  std::optional<schedule::Program> program;
};

/// Enumerates every registered family with each of its search options
/// (gpipe, 1f1b, interleaved v = 2, 4, hanayo W = 1, 2, zb-h1, zb-v), the
/// split-backward ones not for forward-only steps, where the stage count
/// allows (families with several stages per rank on two ranks or more),
/// for every microbatch
/// count of `options` (and without and with full recompute when asked),
/// simulates each with `costs`, and picks the fastest whose peak memory
/// fits the budget.
///
/// On a calibrated device that knows its cores (a CPU host), a candidate
/// with more ranks than cores ranks after every candidate that has a core
/// per rank: the simulator stretches its durations by ranks / cores, but
/// oversubscribed ranks also wait for a time slice at every message, which
/// nothing models (measured 2-2.6x slower than that simulation with 4 ranks
/// on 2 cores). It is picked only when no other candidate fits.
SearchResult searchSchedules(const pipewave::ModelCosts &costs,
                             const SearchOptions &options);

} // namespace pipewave::pipe::scheduling

#endif // PIPEWAVE_LIB_DIALECT_PIPE_TRANSFORMS_SCHEDULEBUILD_H
