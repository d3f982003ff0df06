//===- SimulateStashTest.cpp - Tests of the simulator's peak stash --------===//

#include "ScheduleUtil.h"

#include "gtest/gtest.h"

using namespace pipewave::schedule;
using namespace pipewave::schedule::test;

namespace {

TEST(SimulateStashTest, EqualsThePerStagePeakWithOneStagePerRank) {
  for (int S : {1, 3, 4})
    for (int M : {1, 5, 8})
      for (const BuildResult &built :
           {build1F1B(S, M), buildGPipe(S, M), buildZeroBubbleH1(S, M)}) {
        StepTimeline result = simulated(checked(built), UniformCosts());
        for (const RankTiming &rank : result.ranks) {
          ASSERT_EQ(rank.peakInFlight.size(), 1u);
          EXPECT_EQ(rank.peakStash, rank.peakInFlight.begin()->second);
        }
      }
}

TEST(SimulateStashTest, SumsOverTheStagesOfARank) {
  // Hanayo P = 1, W = 2, M = 1: four stages on one rank, all forwards before
  // the backwards: four activations stashed at once, one per stage.
  StepTimeline result =
      simulated(checked(buildHanayo(1, 2, 1)), UniformCosts());
  ASSERT_EQ(result.ranks.size(), 1u);
  EXPECT_EQ(result.ranks[0].peakStash, 4);
  for (auto [stage, peak] : result.ranks[0].peakInFlight)
    EXPECT_EQ(peak, 1) << "stage " << stage;
}

TEST(SimulateStashTest, ForwardOnlyStashesNothing) {
  StepTimeline result = simulated(
      checked(buildGPipe(2, 4, /*forwardOnly=*/true)), UniformCosts());
  for (const RankTiming &rank : result.ranks)
    EXPECT_EQ(rank.peakStash, 0);
}

} // namespace
