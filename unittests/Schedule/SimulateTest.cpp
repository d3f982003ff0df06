//===- SimulateTest.cpp - Tests of the unit-cost simulator ----------------===//

#include "pipewave/Schedule/Timeline.h"

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace pipewave::schedule;
using namespace pipewave::schedule::test;

namespace {

class SimulateTest : public ::testing::TestWithParam<Shape> {
protected:
  std::string schedule() const { return std::get<0>(GetParam()); }
  int numStages() const { return std::get<1>(GetParam()); }
  int numMicrobatches() const { return std::get<2>(GetParam()); }

  /// Checks the closed-form step time and bubble of GPipe and 1F1B with
  /// uniform stages and free communication.
  void checkMakespan(double forward, double backward) {
    Program program = build(schedule(), numStages(), numMicrobatches());
    UniformCosts costs;
    costs.forward = forward;
    costs.backward = backward;
    StepTimeline result = computeTimeline(program, costs);
    ASSERT_TRUE(result.error.empty()) << result.error;
    double S = numStages(), M = numMicrobatches();
    EXPECT_NEAR(result.makespan, (M + S - 1) * (forward + backward), 1e-12);
    EXPECT_NEAR(result.bubbleFraction, (S - 1) / (M + S - 1), 1e-12);
    for (const RankTiming &rank : result.ranks)
      EXPECT_NEAR(rank.busy, M * (forward + backward), 1e-12);
  }
};

TEST_P(SimulateTest, MakespanBackwardTwiceForward) { checkMakespan(1, 2); }

TEST_P(SimulateTest, MakespanEqualCosts) { checkMakespan(1, 1); }

TEST_P(SimulateTest, PeakInFlight) {
  Program program = build(schedule(), numStages(), numMicrobatches());
  StepTimeline result = computeTimeline(program, UniformCosts());
  ASSERT_TRUE(result.error.empty()) << result.error;
  ASSERT_EQ(result.ranks.size(), size_t(numStages()));
  for (int s = 0; s < numStages(); ++s) {
    const std::map<int, int> &peaks = result.ranks[s].peakInFlight;
    ASSERT_EQ(peaks.size(), 1u);
    int expected = schedule() == "gpipe"
                       ? numMicrobatches()
                       : std::min(numStages() - s, numMicrobatches());
    EXPECT_EQ(peaks.at(s), expected) << "stage " << s;
  }
}

TEST_P(SimulateTest, SlicesCoverEveryActionInOrder) {
  Program program = build(schedule(), numStages(), numMicrobatches());
  StepTimeline result = computeTimeline(program, UniformCosts());
  ASSERT_TRUE(result.error.empty()) << result.error;
  for (size_t r = 0; r < program.ranks.size(); ++r) {
    const std::vector<Slice> &slices = result.ranks[r].slices;
    ASSERT_EQ(slices.size(), program.ranks[r].actions.size());
    double previousEnd = 0;
    for (size_t i = 0; i < slices.size(); ++i) {
      EXPECT_EQ(slices[i].actionIndex, int(i));
      EXPECT_LE(slices[i].start, slices[i].end);
      // Compute actions run back to back in list order.
      if (isCompute(program.ranks[r].actions[i].kind)) {
        EXPECT_GE(slices[i].start, previousEnd);
        previousEnd = slices[i].end;
      }
    }
    EXPECT_LE(result.ranks[r].finish, result.makespan);
  }
}

INSTANTIATE_TEST_SUITE_P(Schedules, SimulateTest, allShapes(), shapeName);

TEST(SimulateTest, CommunicationDelaysRecvs) {
  // GPipe S=2, M=1 with comm=0.5: F0 [0,1], recv [1,1.5], F1 [1.5,2.5],
  // B1 [2.5,4.5], recv [4.5,5], B0 [5,7].
  Program program = build("gpipe", 2, 1);
  UniformCosts costs;
  costs.comm = 0.5;
  StepTimeline result = computeTimeline(program, costs);
  ASSERT_TRUE(result.error.empty()) << result.error;
  EXPECT_DOUBLE_EQ(result.makespan, 7);
  EXPECT_DOUBLE_EQ(result.bubbleFraction, 1 - 6.0 / 14.0);
  int recv = findAction(program.ranks[1], ActionKind::Recv, 1, 0);
  EXPECT_DOUBLE_EQ(result.ranks[1].slices[recv].start, 0);
  EXPECT_DOUBLE_EQ(result.ranks[1].slices[recv].end, 1.5);
}

TEST(SimulateTest, SplitBackwardAndAllReduce) {
  // One stage replicated on two ranks: F, I, W per microbatch, then
  // allreduce and optimizer.
  Program program;
  program.numStages = 1;
  program.numMicrobatches = 2;
  program.schedule = "test";
  for (int r = 0; r < 2; ++r) {
    RankProgram rank{r, {0}, {}};
    for (int m = 0; m < 2; ++m)
      for (ActionKind kind : {ActionKind::Forward, ActionKind::BackwardInput,
                              ActionKind::BackwardWeight}) {
        Action action{kind};
        action.stage = 0;
        action.microbatch = m;
        rank.actions.push_back(action);
      }
    Action allReduce{ActionKind::AllReduce};
    allReduce.stage = 0;
    allReduce.group = {0, 1};
    rank.actions.push_back(allReduce);
    Action optimizer{ActionKind::OptimizerStep};
    optimizer.stage = 0;
    rank.actions.push_back(optimizer);
    program.ranks.push_back(rank);
  }
  UniformCosts costs;
  costs.forward = 1;
  costs.backwardInput = 1;
  costs.backwardWeight = 1;
  costs.allReduce = 3;
  costs.optimizer = 0.5;
  StepTimeline result = computeTimeline(program, costs);
  ASSERT_TRUE(result.error.empty()) << result.error;
  // 6 compute units, then allreduce [6,9], optimizer [9,9.5].
  EXPECT_DOUBLE_EQ(result.makespan, 9.5);
  EXPECT_DOUBLE_EQ(result.ranks[0].busy, 6);
  EXPECT_DOUBLE_EQ(result.bubbleFraction, 1 - 12.0 / 19.0);
  EXPECT_DOUBLE_EQ(result.ranks[1].slices[6].start, 6);
  EXPECT_DOUBLE_EQ(result.ranks[1].slices[6].end, 9);
  // F0 I0 W0 F1 I1 W1: W retires each microbatch before the next F.
  EXPECT_EQ(result.ranks[0].peakInFlight.at(0), 1);
}

TEST(SimulateTest, ForwardOnlyStashesNothing) {
  BuildResult built = buildGPipe(3, 4, /*forwardOnly=*/true);
  ASSERT_TRUE(built) << built.error;
  StepTimeline result = computeTimeline(*built.program, UniformCosts());
  ASSERT_TRUE(result.error.empty()) << result.error;
  EXPECT_DOUBLE_EQ(result.makespan, 4 + 3 - 1);
  EXPECT_DOUBLE_EQ(result.bubbleFraction, 2.0 / 6.0);
  for (const RankTiming &rank : result.ranks)
    for (auto [stage, peak] : rank.peakInFlight)
      EXPECT_EQ(peak, 0) << "stage " << stage;
}

TEST(SimulateTest, RejectsInvalidProgram) {
  Program program = build("gpipe", 2, 2);
  program.ranks[1].actions.erase(program.ranks[1].actions.begin());
  StepTimeline result = computeTimeline(program, UniformCosts());
  EXPECT_NE(result.error.find("invalid program: rank 1:"), std::string::npos)
      << result.error;
  EXPECT_TRUE(result.ranks.empty());
}

TEST(SimulateTest, LargeOneFOneB) {
  Program program = build("1f1b", 8, 256);
  StepTimeline result = computeTimeline(program, UniformCosts());
  ASSERT_TRUE(result.error.empty()) << result.error;
  EXPECT_NEAR(result.makespan, (256 + 8 - 1) * 3.0, 1e-9);
}

} // namespace
