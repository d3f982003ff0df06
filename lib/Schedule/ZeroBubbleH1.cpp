//===- ZeroBubbleH1.cpp - ZB-H1 schedule generator ------------------------===//
//
// ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR'24): the
// backward is split into I (input gradient, on the critical path) and W
// (weight gradient, free to move). Stage i of S (on rank i) runs, for
// x = 0, 1, ..., M + S - 2, the actions
//   F(x),  I(x - (S - 1 - i)),  W(x - (S - 1))
// that exist (microbatch in [0, M)), in that order: S - 1 - i warm-up
// forwards, then i (F, I) pairs, the (F, I, W) steady state, then (I, W)
// pairs and finally i lone W's that fill the tail. W lags F by S - 1
// microbatches on every stage, so at most min(S, M) microbatches are in
// flight (F done, W not done) on any stage: the peak of 1F1B (on its first
// stage); the later stages keep more activations than in 1F1B, which is what
// buys the smaller bubble. (The 1F1B per-stage bound S - s cannot give it: the
// last stage would have to run F, I, W back to back, and the I chain of the
// last microbatch would then end S - 1 steps after it.)
//
// Bubble achieved, for M >= S: every stage idles (S - 1)(tF + tI - tW) per
// step when tW <= min(tF, tI), the paper's figure. With tF = tI = tW = 1 that
// is S - 1, a makespan of 3M + S - 1, one third of 1F1B's idle 3(S - 1)
// (with tB = tI + tW = 2). For M < S and unit costs the makespan is
// 2(M + S) - 1.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Registry.h"

#include "ComputeOrder.h"
#include "RankBuilder.h"

namespace pipewave::schedule {

BuildResult buildZeroBubbleH1(int numStages, int numMicrobatches) {
  if (auto error = detail::checkShape(numStages, numMicrobatches))
    return BuildResult::failure("zbh1: " + *error);
  int S = numStages, M = numMicrobatches;
  Program skeleton = detail::makeSkeleton(
      S, M, S, "zbh1", [](int r) { return std::vector<int>{r}; });
  detail::ComputeOrder order(S);
  for (int i = 0; i < S; ++i) {
    std::vector<detail::Step> &steps = order[i];
    for (int x = 0; x < M + S - 1; ++x) {
      if (x < M)
        steps.push_back({ActionKind::Forward, i, x});
      int input = x - (S - 1 - i);
      if (input >= 0 && input < M)
        steps.push_back({ActionKind::BackwardInput, i, input});
      int weight = x - (S - 1);
      if (weight >= 0 && weight < M)
        steps.push_back({ActionKind::BackwardWeight, i, weight});
    }
    steps.push_back({ActionKind::OptimizerStep, i, -1});
  }
  BuildResult result = detail::lowerComputeOrder(skeleton, order);
  if (!result)
    result.error = "zbh1: " + result.error;
  return result;
}

ScheduleFamily zeroBubbleH1Family() {
  ScheduleFamily family;
  family.name = "zb-h1";
  family.aliases = {"zbh1"};
  family.summary = "ZB-H1: 1F1B's memory with the backward split into I and W";
  family.splitBackward = true;
  family.build = [](const FamilyBuildArgs &args) {
    return buildZeroBubbleH1(args.numStages, args.numMicrobatches);
  };
  family.bubble = [](int ranks, int, int microbatches) {
    double p = ranks, m = microbatches;
    return (p - 1) / (3 * m + p - 1);
  };
  return family;
}

} // namespace pipewave::schedule
