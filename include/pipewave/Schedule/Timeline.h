//===- Timeline.h - A program's timeline under uniform costs ----*- C++ -*-===//
//
// An event-driven timing model of a Program in which every stage costs the
// same (by default F 1, B 2, I 1, W 1: the unit costs of docs/schedules.md):
// every rank executes its list in order; an action starts when the rank is
// free and its inputs are there. Sends are asynchronous for timing (they
// never hold up their rank), so the result does not depend on where a Send
// sits after its producer. The cost simulator (pipewave/Simulator/
// Simulator.h) generalises it to per-stage costs, links and memory.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SCHEDULE_TIMELINE_H
#define PIPEWAVE_SCHEDULE_TIMELINE_H

#include "pipewave/Schedule/Durations.h"
#include "pipewave/Schedule/Program.h"

#include <map>
#include <string>
#include <vector>

namespace pipewave::schedule {

/// Duration of each kind of action, the same for every stage.
struct UniformCosts : ActionDurations {
  /// The unit costs: F 1, B 2, I 1, W 1, optimizer step 0.
  UniformCosts() : ActionDurations{1, 2, 1, 1, 0} {}

  /// Added to a Recv after its data has been sent.
  double comm = 0;
  double allReduce = 0;
};

/// When one action ran.
struct Slice {
  int actionIndex = -1;
  double start = 0;
  double end = 0;
};

/// Timing of one rank.
struct RankTiming {
  /// Time spent in F/B/I/W.
  double busy = 0;
  /// When the rank's last action ended.
  double finish = 0;
  /// Held stage -> maximum number of microbatches whose F is done and whose
  /// backward (B, or W when split) is not: the activations stashed at once.
  /// Always 0 for forward-only programs, which stash nothing.
  std::map<int, int> peakInFlight;
  /// Maximum, over time, of the activations stashed on the rank summed over
  /// its stages (equal to the single entry of peakInFlight when the rank
  /// holds one stage). 0 for forward-only programs.
  int peakStash = 0;
  /// One slice per action, in list order. A Send's slice is the instant its
  /// data is ready (the end of its producer); a Recv's slice spans its wait.
  std::vector<Slice> slices;
};

/// Result of computeTimeline().
struct StepTimeline {
  /// Indexed by rank id.
  std::vector<RankTiming> ranks;
  /// Step time: when the last action of any rank ends.
  double makespan = 0;
  /// 1 - (sum of F/B/I/W time) / (number of ranks * makespan); 0 if the
  /// makespan is 0.
  double bubbleFraction = 0;
  /// Non-empty if the program could not be timed: it failed verify()
  /// (the first diagnostic is given). The timing fields are then empty.
  std::string error;
};

/// Times one step of `program` with the given costs. The program is verified
/// first; an invalid one yields a result with `error` set.
StepTimeline computeTimeline(const Program &program,
                             const UniformCosts &costs = UniformCosts());

} // namespace pipewave::schedule

#endif // PIPEWAVE_SCHEDULE_TIMELINE_H
