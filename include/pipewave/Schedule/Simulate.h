//===- Simulate.h - Unit-cost pipeline schedule simulator -------*- C++ -*-===//
//
// An event-driven timing model of a Program: every rank executes its list in
// order; an action starts when the rank is free and its inputs are there.
// Sends are asynchronous for timing (they never hold up their rank), so the
// result does not depend on where a Send sits after its producer.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SCHEDULE_SIMULATE_H
#define PIPEWAVE_SCHEDULE_SIMULATE_H

#include "pipewave/Schedule/Program.h"

#include <map>
#include <string>
#include <vector>

namespace pipewave::schedule {

/// Duration of each kind of action (all stages cost the same).
struct Costs {
  double forward = 1;
  double backward = 2;
  double backwardInput = 1;
  double backwardWeight = 1;
  /// Added to a Recv after its data has been sent.
  double comm = 0;
  double allReduce = 0;
  double optimizer = 0;
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

/// Result of simulate().
struct SimResult {
  /// Indexed by rank id.
  std::vector<RankTiming> ranks;
  /// Step time: when the last action of any rank ends.
  double makespan = 0;
  /// 1 - (sum of F/B/I/W time) / (number of ranks * makespan); 0 if the
  /// makespan is 0.
  double bubbleFraction = 0;
  /// Non-empty if the program could not be simulated: it failed verify()
  /// (the first diagnostic is given). The timing fields are then empty.
  std::string error;
};

/// Simulates one step of `program` with the given costs. The program is
/// verified first; an invalid one yields a result with `error` set.
SimResult simulate(const Program &program, const Costs &costs = Costs());

} // namespace pipewave::schedule

#endif // PIPEWAVE_SCHEDULE_SIMULATE_H
