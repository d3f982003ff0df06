//===- DappleLatency.cpp - DAPPLE's latency model of a 1F1B step ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Planner/Dapple.h"

#include <algorithm>
#include <vector>

namespace pipewave::planner {

void estimateStepTime(Plan &plan) {
  const int S = plan.numStages();
  const double M = plan.microbatches;
  if (S == 0) {
    plan.estimatedSeconds = 0;
    return;
  }
  std::vector<double> F(S), B(S), C(S, 0);
  // The steady period: every stage's F + B and every link's occupancy ...
  double period = 0;
  for (int s = 0; s < S; ++s) {
    const StagePlan &stage = plan.stages[s];
    F[s] = stage.forwardSeconds;
    B[s] = stage.backwardSeconds;
    C[s] = s + 1 < S ? stage.sendSeconds : 0;
    period = std::max({period, F[s] + B[s], stage.sendOccupancySeconds});
  }
  // ... and the cycle time of every run of stages a..k: under 1F1B, k-a+1
  // microbatches are in flight between them and each makes the round trip
  // (counted where stage a has that many steady slots).
  for (int a = 0; a < S; ++a) {
    double steadySlots = M - std::min<double>(S - a - 1, M);
    double roundTrip = 0;
    for (int k = a; k < S; ++k) {
      roundTrip += F[k] + B[k] + (k > a ? 2 * C[k - 1] : 0);
      double tokens = k - a + 1;
      if (steadySlots >= tokens)
        period = std::max(period, roundTrip / tokens);
    }
  }
  // W_s, R_s and P_s of the header comment.
  std::vector<double> warmup(S, 0), roundTrip(S, 0), P(S);
  for (int s = 1; s < S; ++s)
    warmup[s] = warmup[s - 1] + F[s - 1] + C[s - 1];
  for (int s = S - 1; s >= 0; --s) {
    roundTrip[s] = F[s] + B[s];
    if (s + 1 < S)
      roundTrip[s] += 2 * C[s] + roundTrip[s + 1];
  }
  int pivot = 0;
  for (int s = 0; s < S; ++s) {
    P[s] = warmup[s] + (M - 1) * period + roundTrip[s];
    if (P[s] > P[pivot])
      pivot = s;
  }
  // The last microbatch's backward chain through the pivot.
  std::vector<double> chain(S);
  chain[pivot] = P[pivot];
  for (int k = pivot - 1; k >= 0; --k)
    chain[k] = chain[k + 1] + C[k] + B[k];
  for (int k = pivot + 1; k < S; ++k)
    chain[k] = chain[k - 1] - B[k - 1] - C[k - 1];
  double step = 0;
  for (int k = 0; k < S; ++k)
    step = std::max(step, std::max(P[k], chain[k]) +
                              plan.stages[k].allReduceSeconds +
                              plan.stages[k].optimizerSeconds);
  plan.pivotStage = pivot;
  plan.warmupSeconds = warmup[pivot];
  plan.steadySeconds = (M - 1) * period;
  plan.endingSeconds = step - plan.warmupSeconds - plan.steadySeconds;
  plan.estimatedSeconds = step;
}

} // namespace pipewave::planner
