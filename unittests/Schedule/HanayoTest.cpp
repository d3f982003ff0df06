//===- HanayoTest.cpp - Tests of the Hanayo wave-like generator -----------===//

#include "ScheduleUtil.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <tuple>

using namespace pipewave::schedule;
using namespace pipewave::schedule::test;

namespace {

/// (ranks P, waves W, microbatches M).
using Shape = std::tuple<int, int, int>;

/// The closed form the generator achieves with tB = 2 tF.
double hanayoBubble(int P, int W, int M) {
  return 2.0 * (P - 1) / (3.0 * W * M + 2.0 * (P - 1));
}

class HanayoTest : public ::testing::TestWithParam<Shape> {
protected:
  int P() const { return std::get<0>(GetParam()); }
  int W() const { return std::get<1>(GetParam()); }
  int M() const { return std::get<2>(GetParam()); }
};

TEST_P(HanayoTest, WavePlacement) {
  Program program = checked(buildHanayo(P(), W(), M()));
  EXPECT_EQ(program.schedule, "hanayo");
  int S = 2 * W() * P();
  EXPECT_EQ(program.numStages, S);
  ASSERT_EQ(program.ranks.size(), size_t(P()));
  for (int w = 0; w < W(); ++w)
    for (int d = 0; d < P(); ++d) {
      EXPECT_EQ(rankOfStage(program, 2 * w * P() + d), d);
      EXPECT_EQ(rankOfStage(program, 2 * w * P() + P() + d), P() - 1 - d);
    }
  for (const RankProgram &rank : program.ranks)
    EXPECT_EQ(rank.stages.size(), size_t(2 * W()));
}

TEST_P(HanayoTest, TurnsHandOverLocally) {
  // Stages P-1 and P (and 2P-1 and 2P, ...) share a rank: no message crosses
  // those boundaries.
  Program program = checked(buildHanayo(P(), W(), M()));
  for (const RankProgram &rank : program.ranks)
    for (const Action &action : rank.actions) {
      if (action.kind != ActionKind::Send && action.kind != ActionKind::Recv)
        continue;
      bool down = (action.kind == ActionKind::Send) ==
                  (action.payload == Payload::Activation);
      int boundary = down ? action.stage : action.stage - 1;
      EXPECT_NE((boundary + 1) % P(), 0)
          << "message across turn boundary " << boundary << ": "
          << describe(action);
    }
}

TEST_P(HanayoTest, BubbleClosedForm) {
  // Chunk costs 1/(2W) of a stage: bubble 2(P-1) / (3WM + 2(P-1)), i.e.
  // every rank idles (P-1)(2 tF + tB).
  Program program = checked(buildHanayo(P(), W(), M()));
  StepTimeline result = simulated(program, chunkCosts(2 * W()));
  EXPECT_NEAR(result.bubbleFraction, hanayoBubble(P(), W(), M()), 1e-12);
  double tF = 1.0 / (2 * W()), tB = 2 * tF;
  EXPECT_NEAR(result.makespan, 3.0 * M() + (P() - 1) * (2 * tF + tB), 1e-9);
}

TEST_P(HanayoTest, PeakStash) {
  Program program = checked(buildHanayo(P(), W(), M()));
  StepTimeline result = simulated(program, chunkCosts(2 * W()));
  int total = 2 * W() * M();
  for (int r = 0; r < P(); ++r) {
    int warmup = std::min(std::min(2 * W() * P(), total - P()) + r, total);
    EXPECT_EQ(result.ranks[r].peakStash, std::min(warmup + 1, total))
        << "rank " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Grid, HanayoTest,
    ::testing::Combine(::testing::Values(2, 4, 8), ::testing::Values(1, 2, 4),
                       ::testing::Values(8, 16, 32)),
    [](const ::testing::TestParamInfo<Shape> &info) {
      return "P" + std::to_string(std::get<0>(info.param)) + "_W" +
             std::to_string(std::get<1>(info.param)) + "_M" +
             std::to_string(std::get<2>(info.param));
    });

TEST(HanayoEdgeTest, BubbleFallsWithWaves) {
  for (int P : {2, 4, 8})
    for (int M : {8, 16, 32}) {
      double previous = 1;
      for (int W : {1, 2, 4}) {
        StepTimeline result =
            simulated(checked(buildHanayo(P, W, M)), chunkCosts(2 * W));
        EXPECT_LT(result.bubbleFraction, previous)
            << "P " << P << " W " << W << " M " << M;
        previous = result.bubbleFraction;
      }
    }
}

TEST(HanayoEdgeTest, OtherShapesMatchTheFormula) {
  for (int P : {1, 3, 5})
    for (int W : {1, 3})
      for (int M : {P, 2 * P, 5 * P}) {
        SCOPED_TRACE("P " + std::to_string(P) + " W " + std::to_string(W) +
                     " M " + std::to_string(M));
        Program program = checked(buildHanayo(P, W, M));
        StepTimeline result = simulated(program, chunkCosts(2 * W));
        EXPECT_NEAR(result.bubbleFraction, hanayoBubble(P, W, M), 1e-12);
      }
}

TEST(HanayoEdgeTest, OtherCostRatios) {
  // Built for tB = 2 tF; for other ratios the order idles 2(P-1) max(tF, tB).
  Program program = checked(buildHanayo(4, 2, 16));
  for (auto [forward, backward] :
       {std::pair{1.0, 1.0}, std::pair{1.0, 3.0}, std::pair{2.0, 1.0}}) {
    UniformCosts costs;
    costs.forward = forward;
    costs.backward = backward;
    StepTimeline result = simulated(program, costs);
    EXPECT_NEAR(result.makespan - 2 * 2 * 16 * (forward + backward),
                2 * 3 * std::max(forward, backward), 1e-9)
        << "tF " << forward << " tB " << backward;
  }
}

TEST(HanayoEdgeTest, OneWaveIsAV) {
  // W = 1, P = 2: rank 0 holds stages 0 and 3, rank 1 stages 1 and 2.
  Program program = checked(buildHanayo(2, 1, 2));
  EXPECT_EQ(program.ranks[0].stages, (std::vector<int>{0, 3}));
  EXPECT_EQ(program.ranks[1].stages, (std::vector<int>{1, 2}));
}

TEST(HanayoEdgeTest, RejectsBadArguments) {
  EXPECT_EQ(buildHanayo(4, 2, 6).error,
            "hanayo: the number of microbatches (6) must be a multiple of the "
            "number of ranks (4)");
  EXPECT_EQ(buildHanayo(4, 0, 8).error,
            "hanayo: the number of waves must be at least 1 (got 0)");
  EXPECT_EQ(buildHanayo(-1, 1, 8).error,
            "hanayo: the number of ranks must be at least 1 (got -1)");
}

} // namespace
