//===- ZeroBubbleTest.cpp - Tests of the ZB-H1 and ZB-V generators --------===//

#include "ScheduleUtil.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <tuple>

using namespace pipewave::schedule;
using namespace pipewave::schedule::test;

namespace {

UniformCosts splitCosts(double forward, double input, double weight) {
  UniformCosts costs;
  costs.forward = forward;
  costs.backwardInput = input;
  costs.backwardWeight = weight;
  costs.backward = input + weight;
  return costs;
}

/// (stages or ranks, microbatches).
using Shape = std::tuple<int, int>;

std::string shapeLabel(const ::testing::TestParamInfo<Shape> &info) {
  return "P" + std::to_string(std::get<0>(info.param)) + "_M" +
         std::to_string(std::get<1>(info.param));
}

class ZeroBubbleTest : public ::testing::TestWithParam<Shape> {
protected:
  int P() const { return std::get<0>(GetParam()); }
  int M() const { return std::get<1>(GetParam()); }
};

TEST_P(ZeroBubbleTest, H1SplitsEveryBackward) {
  Program program = checked(buildZeroBubbleH1(P(), M()));
  EXPECT_EQ(program.schedule, "zbh1");
  for (const RankProgram &rank : program.ranks) {
    EXPECT_EQ(rank.stages, std::vector<int>{rank.rank});
    EXPECT_EQ(countActions(rank, ActionKind::Backward), 0);
    EXPECT_EQ(countActions(rank, ActionKind::BackwardInput), M());
    EXPECT_EQ(countActions(rank, ActionKind::BackwardWeight), M());
  }
}

TEST_P(ZeroBubbleTest, H1IdleIsAThirdOf1F1B) {
  // tF = tI = tW = 1 (1F1B's tB = tI + tW = 2): the per-rank idle time
  // makespan - 3M shrinks to a third.
  double m = M();
  StepTimeline zb =
      simulated(checked(buildZeroBubbleH1(P(), M())), splitCosts(1, 1, 1));
  StepTimeline oneFOneB =
      simulated(checked(build1F1B(P(), M())), splitCosts(1, 1, 1));
  EXPECT_NEAR(zb.makespan - 3 * m, (oneFOneB.makespan - 3 * m) / 3, 1e-9);
  EXPECT_NEAR(zb.makespan, 3 * m + P() - 1, 1e-9);
}

TEST_P(ZeroBubbleTest, H1KeepsOneFOneBPeak) {
  // W frees the activation: at most min(S, M) microbatches between F and W
  // on every stage, the peak of 1F1B's first stage.
  StepTimeline result =
      simulated(checked(buildZeroBubbleH1(P(), M())), splitCosts(1, 1, 1));
  for (const RankTiming &rank : result.ranks)
    EXPECT_EQ(rank.peakStash, std::min(P(), M()));
}

TEST_P(ZeroBubbleTest, H1IdleForCheapW) {
  // Every stage idles (S-1)(tF + tI - tW) when tW <= min(tF, tI).
  Program program = checked(buildZeroBubbleH1(P(), M()));
  for (auto [f, i, w] : {std::tuple{1.0, 1.0, 0.5}, std::tuple{2.0, 1.0, 1.0},
                         std::tuple{1.0, 2.0, 0.25}}) {
    StepTimeline result = simulated(program, splitCosts(f, i, w));
    EXPECT_NEAR(result.makespan - M() * (f + i + w), (P() - 1) * (f + i - w),
                1e-9);
  }
}

TEST_P(ZeroBubbleTest, VPlacement) {
  Program program = checked(buildZeroBubbleV(P(), M()));
  EXPECT_EQ(program.schedule, "zbv");
  EXPECT_EQ(program.numStages, 2 * P());
  for (const RankProgram &rank : program.ranks) {
    EXPECT_EQ(rank.stages,
              (std::vector<int>{rank.rank, 2 * P() - 1 - rank.rank}));
    EXPECT_EQ(countActions(rank, ActionKind::Backward), 0);
    EXPECT_EQ(countActions(rank, ActionKind::BackwardInput), 2 * M());
    EXPECT_EQ(countActions(rank, ActionKind::BackwardWeight), 2 * M());
  }
}

TEST_P(ZeroBubbleTest, VReachesTheLowerBound) {
  // No rank starts before the P-1 forwards in front of it, so one step takes
  // at least 6M + P - 1 chunk times: bubble >= (P-1) / (6M + P-1). ZB-V
  // reaches the bound for these P (a parallelogram).
  StepTimeline result =
      simulated(checked(buildZeroBubbleV(P(), M())), splitCosts(1, 1, 1));
  double p = P(), m = M();
  EXPECT_NEAR(result.makespan, 6 * m + p - 1, 1e-9);
  EXPECT_NEAR(result.bubbleFraction, (p - 1) / (6 * m + p - 1), 1e-12);
  // Far below ZB-H1 on the same ranks (half-size chunks: idle P-1 chunk
  // times is (P-1)/2 stage times).
  StepTimeline h1 =
      simulated(checked(buildZeroBubbleH1(P(), M())), splitCosts(1, 1, 1));
  EXPECT_LT(result.bubbleFraction, h1.bubbleFraction);
}

TEST_P(ZeroBubbleTest, VKeepsOneFOneBPeak) {
  StepTimeline result =
      simulated(checked(buildZeroBubbleV(P(), M())), splitCosts(1, 1, 1));
  EXPECT_EQ(maxStash(result), 2 * P());
}

INSTANTIATE_TEST_SUITE_P(Grid, ZeroBubbleTest,
                         ::testing::Combine(::testing::Values(2, 4, 8),
                                            ::testing::Values(8, 16, 32)),
                         shapeLabel);

TEST(ZeroBubbleEdgeTest, H1FewMicrobatches) {
  // M < S: makespan 2(M + S) - 1 with unit costs, still at most M in flight.
  for (int S : {2, 4, 8})
    for (int M = 1; M < S; ++M) {
      StepTimeline result =
          simulated(checked(buildZeroBubbleH1(S, M)), splitCosts(1, 1, 1));
      EXPECT_NEAR(result.makespan, 2 * (M + S) - 1, 1e-9)
          << "S " << S << " M " << M;
      EXPECT_EQ(maxStash(result), M);
    }
}

TEST(ZeroBubbleEdgeTest, VNearTheBoundForOtherRankCounts) {
  // For P <= 16 and M >= 2P the greedy order stays within ceil(P/4) chunk
  // times of the bound, exactly on it for P in {2, 3, 4, 8}.
  for (int P = 1; P <= 16; ++P)
    for (int M : {2 * P, 2 * P + 1, 3 * P, 64}) {
      StepTimeline result =
          simulated(checked(buildZeroBubbleV(P, M)), splitCosts(1, 1, 1));
      double idle = result.makespan - 6.0 * M;
      EXPECT_GE(idle, P - 1 - 1e-9) << "P " << P << " M " << M;
      int slack = (P == 2 || P == 3 || P == 4 || P == 8) ? 0 : (P + 3) / 4;
      EXPECT_LE(idle, P - 1 + slack + 1e-9) << "P " << P << " M " << M;
      EXPECT_LE(maxStash(result), 2 * P) << "P " << P << " M " << M;
    }
}

TEST(ZeroBubbleEdgeTest, VFewMicrobatchesVerify) {
  for (int P : {1, 2, 3, 5})
    for (int M : {1, 2, 3}) {
      SCOPED_TRACE("P " + std::to_string(P) + " M " + std::to_string(M));
      checked(buildZeroBubbleV(P, M));
    }
}

TEST(ZeroBubbleEdgeTest, RejectsBadArguments) {
  EXPECT_EQ(buildZeroBubbleH1(0, 4).error,
            "zbh1: the number of stages must be at least 1 (got 0)");
  EXPECT_EQ(buildZeroBubbleH1(4, 0).error,
            "zbh1: the number of microbatches must be at least 1 (got 0)");
  EXPECT_EQ(buildZeroBubbleV(0, 4).error,
            "zbv: the number of ranks must be at least 1 (got 0)");
  EXPECT_EQ(buildZeroBubbleV(2, -1).error,
            "zbv: the number of microbatches must be at least 1 (got -1)");
}

TEST(ZeroBubbleEdgeTest, H1OrderOfTheMiddleStage) {
  // S = 3, M = 3, stage 1: one warm-up F, one (F, I) pair, (F, I, W), then
  // (I, W) and a lone W.
  Program program = checked(buildZeroBubbleH1(3, 3));
  std::vector<std::string> expected = {"F 1 0", "F 1 1",      "I 1 0", "F 1 2",
                                       "I 1 1", "W 1 0",      "I 1 2", "W 1 1",
                                       "W 1 2", "optimizer 1"};
  EXPECT_EQ(computeOrder(program)[1], expected);
}

} // namespace
