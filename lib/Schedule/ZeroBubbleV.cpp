//===- ZeroBubbleV.cpp - ZB-V schedule generator --------------------------===//
//
// ZB-V (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR'24, and the
// authors' ZB-V schedule): P ranks hold two chunks each in a V, rank r
// holding stages r (going down) and 2P - 1 - r (coming back up), so that
// the first and the last stage are both on rank 0 and the turn (P-1, P) is
// local to rank P - 1. Backward is split into I and W.
//
// The order is built by a greedy list scheduler over unit-time steps
// (tF = tI = tW = 1): whenever a rank is free it runs, among the actions
// whose inputs are there,
//   1. an I (the lowest microbatch): it is on the critical path;
//   2. else an F of its up chunk (stage 2P-1-r, lowest microbatch), which
//      completes a microbatch's forward;
//   3. else the next F of its down chunk (stage r, microbatches in order),
//   4. else the W of the lowest pending microbatch (down chunk first),
// where an F is only allowed while the rank has fewer than 2P activations in
// flight (F done, W not done): 1F1B's peak (P microbatches of a full stage on
// rank 0), counted in chunks. W's are thus postponed into the gaps and run
// when the memory is full. (If the cap ever left every rank without work the
// scheduler would let the blocked forwards through; it does not happen for
// the shapes tested.)
//
// Bubble: no rank can start before the P - 1 forwards in front of it, so a
// step takes at least 6M + P - 1 units (6M of work per rank) and the bubble
// fraction is at least (P - 1) / (6M + P - 1). The generated order reaches
// that bound exactly for P in {2, 3, 4, 8} and any M >= 2P (a parallelogram:
// rank r idles r units at the start and P - 1 - r at the end), and stays
// within ceil(P / 4) units of it for P <= 16, M >= 2P. Peak stash: 2P
// chunk activations per rank.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Registry.h"

#include "ComputeOrder.h"
#include "RankBuilder.h"

#include <vector>

namespace pipewave::schedule {

namespace {

/// Greedy unit-time list scheduler for the V placement.
class VScheduler {
public:
  VScheduler(int numRanks, int numMicrobatches)
      : P(numRanks), M(numMicrobatches), S(2 * numRanks),
        forwardEnd(S, std::vector<int>(M, -1)),
        inputEnd(S, std::vector<int>(M, -1)),
        weightDone(S, std::vector<bool>(M, false)), order(numRanks),
        nextDown(numRanks, 0), inFlight(numRanks, 0), busyUntil(numRanks, 0),
        remaining(numRanks, 6 * numMicrobatches) {}

  detail::ComputeOrder run() {
    int cap = 2 * P;
    bool relax = false;
    for (int t = 0; !allDone(); ++t) {
      bool progress = false, busy = false;
      for (int r = 0; r < P; ++r) {
        if (busyUntil[r] > t) {
          busy = true;
          continue;
        }
        if (remaining[r] == 0)
          continue;
        if (pick(r, t, relax || inFlight[r] < cap)) {
          progress = true;
          busyUntil[r] = t + 1;
        }
      }
      // Every rank without work and nothing running: let forwards through.
      relax = !progress && !busy;
    }
    return std::move(order);
  }

private:
  bool allDone() const {
    for (int left : remaining)
      if (left > 0)
        return false;
    return true;
  }

  bool done(const std::vector<std::vector<int>> &ends, int stage, int m,
            int t) const {
    return ends[stage][m] >= 0 && ends[stage][m] <= t;
  }

  void emit(int r, ActionKind kind, int stage, int m, int t) {
    order[r].push_back({kind, stage, m});
    --remaining[r];
    if (kind == ActionKind::Forward) {
      forwardEnd[stage][m] = t + 1;
      ++inFlight[r];
    } else if (kind == ActionKind::BackwardInput) {
      inputEnd[stage][m] = t + 1;
    } else {
      weightDone[stage][m] = true;
      --inFlight[r];
    }
  }

  /// Runs the best action of rank `r` at time `t`; false if none is ready.
  bool pick(int r, int t, bool forwardAllowed) {
    int down = r, up = S - 1 - r;
    // 1. The I of the lowest microbatch whose inputs are there.
    for (int m = 0; m < M; ++m)
      for (int stage : {up, down}) {
        if (inputEnd[stage][m] >= 0 || !done(forwardEnd, stage, m, t))
          continue;
        if (stage + 1 < S && !done(inputEnd, stage + 1, m, t))
          continue;
        emit(r, ActionKind::BackwardInput, stage, m, t);
        return true;
      }
    if (forwardAllowed) {
      // 2. A forward of the up chunk.
      for (int m = 0; m < M; ++m)
        if (forwardEnd[up][m] < 0 && done(forwardEnd, up - 1, m, t)) {
          emit(r, ActionKind::Forward, up, m, t);
          return true;
        }
      // 3. The next forward of the down chunk.
      int m = nextDown[r];
      if (m < M && (down == 0 || done(forwardEnd, down - 1, m, t))) {
        ++nextDown[r];
        emit(r, ActionKind::Forward, down, m, t);
        return true;
      }
    }
    // 4. A postponed W.
    for (int m = 0; m < M; ++m)
      for (int stage : {down, up})
        if (!weightDone[stage][m] && done(inputEnd, stage, m, t)) {
          emit(r, ActionKind::BackwardWeight, stage, m, t);
          return true;
        }
    return false;
  }

  int P, M, S;
  /// [stage][mb] -> end time of F / I, or -1 if not scheduled yet.
  std::vector<std::vector<int>> forwardEnd, inputEnd;
  std::vector<std::vector<bool>> weightDone;
  detail::ComputeOrder order;
  std::vector<int> nextDown, inFlight, busyUntil, remaining;
};

} // namespace

BuildResult buildZeroBubbleV(int numRanks, int numMicrobatches) {
  std::string prefix = "zbv: ";
  for (auto error : {detail::checkAtLeast("ranks", numRanks),
                     detail::checkAtLeast("microbatches", numMicrobatches)})
    if (error)
      return BuildResult::failure(prefix + *error);
  int P = numRanks, M = numMicrobatches;
  Program skeleton = detail::makeSkeleton(2 * P, M, P, "zbv", [&](int r) {
    return std::vector<int>{r, 2 * P - 1 - r};
  });
  detail::ComputeOrder order = VScheduler(P, M).run();
  for (int r = 0; r < P; ++r) {
    order[r].push_back({ActionKind::OptimizerStep, r, -1});
    order[r].push_back({ActionKind::OptimizerStep, 2 * P - 1 - r, -1});
  }
  BuildResult result = detail::lowerComputeOrder(skeleton, order);
  if (!result)
    result.error = prefix + result.error;
  return result;
}

ScheduleFamily zeroBubbleVFamily() {
  ScheduleFamily family;
  family.name = "zb-v";
  family.aliases = {"zbv"};
  family.summary = "ZB-V: two chunks per rank in a V, backward split into I "
                   "and W";
  family.splitBackward = true;
  family.ranks = [](int numStages, int,
                    std::string &error) -> std::optional<int> {
    if (numStages % 2 != 0) {
      error = "schedule=zb-v needs an even stage count (2 stages per rank), "
              "but the module has " +
              detail::describeStages(numStages);
      return std::nullopt;
    }
    return numStages / 2;
  };
  family.stagesPerRank = [](int) { return 2; };
  family.build = [](const FamilyBuildArgs &args) {
    return buildZeroBubbleV(args.numRanks, args.numMicrobatches);
  };
  family.bubble = [](int ranks, int, int microbatches) {
    double p = ranks, m = microbatches;
    return (p - 1) / (6 * m + p - 1);
  };
  family.bubblePrefix = "≥ ";
  return family;
}

} // namespace pipewave::schedule
