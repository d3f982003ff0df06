//===- InterleavedTest.cpp - Tests of the interleaved 1F1B generator ------===//

#include "ScheduleUtil.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <tuple>

using namespace pipewave::schedule;
using namespace pipewave::schedule::test;

namespace {

/// (ranks P, chunks v, microbatches M).
using Shape = std::tuple<int, int, int>;

class InterleavedTest : public ::testing::TestWithParam<Shape> {
protected:
  int P() const { return std::get<0>(GetParam()); }
  int v() const { return std::get<1>(GetParam()); }
  int M() const { return std::get<2>(GetParam()); }
};

TEST_P(InterleavedTest, PlacementAndVerifies) {
  Program program = checked(buildInterleaved1F1B(P(), v(), M()));
  EXPECT_EQ(program.schedule, "interleaved-1f1b");
  EXPECT_EQ(program.numStages, P() * v());
  ASSERT_EQ(program.ranks.size(), size_t(P()));
  for (int r = 0; r < P(); ++r) {
    std::vector<int> expected;
    for (int c = 0; c < v(); ++c)
      expected.push_back(c * P() + r);
    EXPECT_EQ(program.ranks[r].stages, expected);
    EXPECT_EQ(countActions(program.ranks[r], ActionKind::Forward), v() * M());
    EXPECT_EQ(countActions(program.ranks[r], ActionKind::Backward), v() * M());
    EXPECT_EQ(countActions(program.ranks[r], ActionKind::OptimizerStep), v());
  }
}

TEST_P(InterleavedTest, BubbleClosedForm) {
  // Chunk costs are 1/v of a stage: bubble (P-1) / (vM + P-1).
  Program program = checked(buildInterleaved1F1B(P(), v(), M()));
  StepTimeline result = simulated(program, chunkCosts(v()));
  double p = P(), m = M(), chunks = v();
  EXPECT_NEAR(result.bubbleFraction, (p - 1) / (chunks * m + p - 1), 1e-12);
  EXPECT_NEAR(result.makespan, 3 * m + 3 * (p - 1) / chunks, 1e-9);
}

TEST_P(InterleavedTest, IdleIsPMinusOneChunkRoundTrips) {
  // For any forward/backward times every rank idles (P-1)(tF + tB).
  Program program = checked(buildInterleaved1F1B(P(), v(), M()));
  for (auto [forward, backward] :
       {std::pair{1.0, 1.0}, std::pair{1.0, 3.0}, std::pair{2.0, 1.0}}) {
    UniformCosts costs;
    costs.forward = forward;
    costs.backward = backward;
    StepTimeline result = simulated(program, costs);
    EXPECT_NEAR(result.makespan - v() * M() * (forward + backward),
                (P() - 1) * (forward + backward), 1e-9)
        << "tF " << forward << " tB " << backward;
  }
}

TEST_P(InterleavedTest, PeakStashIsWarmupPlusOne) {
  Program program = checked(buildInterleaved1F1B(P(), v(), M()));
  StepTimeline result = simulated(program, chunkCosts(v()));
  int total = v() * M();
  for (int r = 0; r < P(); ++r) {
    int warmup = M() == P()
                     ? total
                     : std::min((P() - r - 1) * 2 + (v() - 1) * P(), total);
    EXPECT_EQ(result.ranks[r].peakStash, std::min(warmup + 1, total))
        << "rank " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Grid, InterleavedTest,
    ::testing::Combine(::testing::Values(2, 4, 8), ::testing::Values(2, 4),
                       ::testing::Values(8, 16, 32)),
    [](const ::testing::TestParamInfo<Shape> &info) {
      return "P" + std::to_string(std::get<0>(info.param)) + "_v" +
             std::to_string(std::get<1>(info.param)) + "_M" +
             std::to_string(std::get<2>(info.param));
    });

TEST(InterleavedEdgeTest, SmallShapesVerifyAndMatchTheFormula) {
  for (int P : {1, 2, 3})
    for (int v : {1, 2, 3})
      for (int M : {P, 2 * P, 3 * P}) {
        SCOPED_TRACE("P " + std::to_string(P) + " v " + std::to_string(v) +
                     " M " + std::to_string(M));
        Program program = checked(buildInterleaved1F1B(P, v, M));
        StepTimeline result = simulated(program, chunkCosts(v));
        EXPECT_NEAR(result.bubbleFraction, double(P - 1) / (v * M + P - 1),
                    1e-12);
      }
}

TEST(InterleavedEdgeTest, RejectsBadArguments) {
  EXPECT_EQ(buildInterleaved1F1B(4, 2, 10).error,
            "interleaved-1f1b: the number of microbatches (10) must be a "
            "multiple of the number of ranks (4)");
  EXPECT_EQ(buildInterleaved1F1B(0, 2, 8).error,
            "interleaved-1f1b: the number of ranks must be at least 1 (got 0)");
  EXPECT_EQ(buildInterleaved1F1B(2, 0, 8).error,
            "interleaved-1f1b: the number of chunks per rank must be at least "
            "1 (got 0)");
  EXPECT_EQ(buildInterleaved1F1B(2, 2, 0).error,
            "interleaved-1f1b: the number of microbatches must be at least 1 "
            "(got 0)");
}

TEST(InterleavedEdgeTest, MegatronOrderOnRankZero) {
  // P = 2, v = 2, M = 4: groups of 2 microbatches per chunk; rank 0 warms up
  // with (2-0-1)*2 + (2-1)*2 = 4 forwards.
  Program program = checked(buildInterleaved1F1B(2, 2, 4));
  std::vector<std::string> expected = {
      "F 0 0", "F 0 1", "F 2 0", "F 2 1", "F 0 2",       "B 2 0",
      "F 0 3", "B 2 1", "F 2 2", "B 0 0", "F 2 3",       "B 0 1",
      "B 2 2", "B 2 3", "B 0 2", "B 0 3", "optimizer 0", "optimizer 2"};
  EXPECT_EQ(computeOrder(program)[0], expected);
}

} // namespace
