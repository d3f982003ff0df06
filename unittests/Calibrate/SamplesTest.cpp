//===- SamplesTest.cpp - Medians and pass speeds of pipewave-calibrate ----===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "Samples.h"

#include <gtest/gtest.h>

using namespace pipewave::calibrate;

namespace {

TEST(SamplesTest, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median({}), 0);
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
}

// A pass's figure is the mean of its slices, a descheduled slice (over 3x
// the median) left out: a right-skewed timing's mean is above its median.
TEST(SamplesTest, TypicalMeanIsTheMeanWithoutDescheduledSlices) {
  EXPECT_DOUBLE_EQ(typicalMean({}), 0);
  EXPECT_DOUBLE_EQ(typicalMean({2, 2, 2, 5}), 2.75);   // median 2: 5 < 6
  EXPECT_DOUBLE_EQ(typicalMean({2, 2, 2, 7}), 2);      // 7 > 3 x 2: left out
  EXPECT_DOUBLE_EQ(typicalMean({1, 1, 2, 4}), 2);      // median 1.5, 4 < 4.5
  EXPECT_DOUBLE_EQ(typicalMean({1, 1, 1, 2}, 1.5), 1); // a tighter cutoff
  // Negative times (none in a trace) leave no value under the limit.
  EXPECT_DOUBLE_EQ(typicalMean({-1, -1}), 0);
}

TEST(SamplesTest, PoolReportsTheSteadyMedianSoFar) {
  SamplePool pool;
  EXPECT_DOUBLE_EQ(pool.add("mm", 10), 10);
  // A pass 3x the fastest ran in a slow process: left out.
  EXPECT_DOUBLE_EQ(pool.add("mm", 30), 10);
  EXPECT_DOUBLE_EQ(pool.add("mm", 12), 11);
  EXPECT_DOUBLE_EQ(pool.add("mm", 11), 11);
  EXPECT_DOUBLE_EQ(pool.add("add", 5), 5);
  ASSERT_EQ(pool.all().at("mm").size(), 4u);
  EXPECT_DOUBLE_EQ(pool.all().at("mm")[1], 30);
}

TEST(SamplesTest, SteadyMedianLeavesOutSlowProcesses) {
  // Two slow processes of three: the fast one sets the figure.
  EXPECT_DOUBLE_EQ(steadyMedian({220, 360, 370}, 1.3), 220);
  // One: the median of the other two.
  EXPECT_DOUBLE_EQ(steadyMedian({230, 354, 220}, 1.3), 225);
  // Passes within the cutoff all count.
  EXPECT_DOUBLE_EQ(steadyMedian({100, 110, 125}, 1.3), 110);
  EXPECT_DOUBLE_EQ(steadyMedian({100, 130}, 1.3), 115);
  // Nothing positive to compare with: the plain median.
  EXPECT_DOUBLE_EQ(steadyMedian({0, 0.2, 0.1}, 1.3), 0.1);
  EXPECT_DOUBLE_EQ(steadyMedian({}, 1.3), 0);
}

// Three passes over three benchmarks; the second pass ran in a slow spell
// (every time 1.6x the others) except one benchmark that a spell in the
// third pass hit: pass i's speed is the median over the benchmarks of its
// time over the benchmark's median.
TEST(SamplesTest, PassSpeedsFindASlowPass) {
  SamplePool models, loops;
  for (double t : {10.0, 16.0, 10.0})
    models.add("a", t);
  for (double t : {2.0, 3.2, 2.0})
    models.add("b", t);
  for (double t : {4.0, 4.0, 8.0})
    loops.add("c", t);
  std::vector<double> speeds = passSpeeds({&models, &loops});
  ASSERT_EQ(speeds.size(), 3u);
  // Pass 1: a 10/10, b 2/2, c 4/4.
  EXPECT_DOUBLE_EQ(speeds[0], 1.0);
  // Pass 2: a 16/10, b 3.2/2, c 4/4: median 1.6.
  EXPECT_DOUBLE_EQ(speeds[1], 1.6);
  // Pass 3: a 1, b 1, c 8/4 = 2: median 1.
  EXPECT_DOUBLE_EQ(speeds[2], 1.0);
  EXPECT_DOUBLE_EQ(speedSpread(speeds), 1.6);
}

// Benchmarks with a single sample (measured before the passes) or a zero
// median (a model without an optimizer slice) say nothing about a pass.
TEST(SamplesTest, PassSpeedsSkipSingleAndZeroSamples) {
  SamplePool pool;
  pool.add("once", 7);
  pool.add("zero", 0);
  pool.add("zero", 0);
  EXPECT_TRUE(passSpeeds({&pool}).empty());
  EXPECT_DOUBLE_EQ(speedSpread({}), 1);
  EXPECT_DOUBLE_EQ(speedSpread({1.3}), 1);
  pool.add("twice", 2);
  pool.add("twice", 4);
  std::vector<double> speeds = passSpeeds({&pool});
  ASSERT_EQ(speeds.size(), 2u);
  EXPECT_DOUBLE_EQ(speeds[0], 2.0 / 3);
  EXPECT_DOUBLE_EQ(speeds[1], 4.0 / 3);
  EXPECT_DOUBLE_EQ(speedSpread(speeds), 2);
}

} // namespace

TEST(SamplesTest, ActionNamesAreTheStageActions) {
  EXPECT_TRUE(isActionName("F s0 mb1"));
  EXPECT_TRUE(isActionName("B s2 mb0"));
  EXPECT_TRUE(isActionName("I s1 mb3"));
  EXPECT_TRUE(isActionName("W s0 mb2"));
  EXPECT_FALSE(isActionName("send act s0 mb1"));
  EXPECT_FALSE(isActionName("recv grad s1 mb0"));
  EXPECT_FALSE(isActionName("agree step"));
  EXPECT_FALSE(isActionName("optimizer s0"));
  EXPECT_FALSE(isActionName("F"));
}

TEST(SamplesTest, GapsFollowEachActionToTheNextSlice) {
  // Given out of order: F [0, 10], B [10.5, 30], F [30.25, 40], then a
  // non-action slice [40.75, 45] and the optimizer [45, 50].
  std::vector<Slice> step = {{40.75, 45, false},
                             {10.5, 30, true},
                             {45, 50, false},
                             {0, 10, true},
                             {30.25, 40, true}};
  EXPECT_EQ(gapsAfterActions(step), (std::vector<double>{0.5, 0.25, 0.75}));
  // Overlapping slices give 0; an action that ends the step gives none.
  EXPECT_EQ(gapsAfterActions({{0, 10, true}, {9, 12, false}, {13, 20, true}}),
            (std::vector<double>{0}));
  EXPECT_TRUE(gapsAfterActions({}).empty());
}

TEST(SamplesTest, ShortRunsRunAgainLongEnough) {
  // 30 steps in 0.2 ms: again with 30 * ceil(0.05 / 0.0002) = 7500 steps.
  EXPECT_EQ(stepsForSteadyRun(30, 0.0002, 0.05, 20000), 7500);
  // At most `most`; a run that is long enough stays.
  EXPECT_EQ(stepsForSteadyRun(30, 0.00001, 0.05, 20000), 20000);
  EXPECT_EQ(stepsForSteadyRun(30, 0.06, 0.05, 20000), 30);
  // No time measured at all: as short as a run can be.
  EXPECT_EQ(stepsForSteadyRun(30, 0.0, 0.05, 20000), 20000);
}

TEST(SamplesTest, OnlyTheLastStepsCount) {
  // A run as long as asked: every step but the first.
  EXPECT_EQ(firstCountedStep(30, 30), 2);
  // A longer run: its last 29 steps, as many as a run of 30 counts.
  EXPECT_EQ(firstCountedStep(7500, 30), 7472);
}
