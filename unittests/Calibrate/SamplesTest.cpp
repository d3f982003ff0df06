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

TEST(SamplesTest, PoolReportsTheMedianSoFar) {
  SamplePool pool;
  EXPECT_DOUBLE_EQ(pool.add("mm", 10), 10);
  EXPECT_DOUBLE_EQ(pool.add("mm", 30), 20);
  // A slow pass (30) among three no longer sets the figure.
  EXPECT_DOUBLE_EQ(pool.add("mm", 12), 12);
  EXPECT_DOUBLE_EQ(pool.add("add", 5), 5);
  ASSERT_EQ(pool.all().at("mm").size(), 3u);
  EXPECT_DOUBLE_EQ(pool.all().at("mm")[1], 30);
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
