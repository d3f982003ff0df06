//===- DriftTest.cpp - pipewave-calibrate --check's comparison ------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "Drift.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace pipewave;
using namespace pipewave::calibrate;

namespace {

/// A calibration: one matmul point (64 GFLOP/s at 64x64x64), element-wise
/// at 10 GB/s up to 1 KiB and 5 GB/s from 1 MiB, one transpose.
sim::Calibration calibrated() {
  sim::Calibration c;
  c.matmul = {{64, 64, 64, 64e9}};
  c.elementwise = {{1024, 10e9}, {1 << 20, 5e9}};
  c.transpose = {{64, 64, 8e9}};
  return c;
}

// The same shapes measured at half the rates take twice the time; a size
// between the table's points is compared with its interpolated bandwidth;
// tables the calibration lacks are left out.
TEST(DriftTest, RatiosAreTimesOverPredictions) {
  sim::Calibration now;
  now.matmul = {{64, 64, 64, 32e9}};
  now.elementwise = {{1024, 5e9}, {1 << 20, 5e9}};
  now.transpose = {{64, 64, 8e9}};
  now.reduction = {{1024, 1e9}};
  std::vector<DriftTerm> terms = driftAgainst(now, calibrated());
  ASSERT_EQ(terms.size(), 4u);
  EXPECT_EQ(terms[0].name, "matmul M=64 N=64 K=64");
  EXPECT_DOUBLE_EQ(terms[0].ratio, 2);
  EXPECT_EQ(terms[1].name, "element-wise 1024 B");
  EXPECT_DOUBLE_EQ(terms[1].ratio, 2);
  EXPECT_EQ(terms[2].name, "element-wise 1.04858e+06 B");
  // At a table's point the log interpolation gives its rate to rounding.
  EXPECT_NEAR(terms[2].ratio, 1, 1e-12);
  EXPECT_EQ(terms[3].name, "transpose 64x64");
  EXPECT_DOUBLE_EQ(terms[3].ratio, 1);
  // Median of 2, 2, 1, 1.
  EXPECT_NEAR(medianDrift(terms), 1.5, 1e-12);

  // Between the points: bandwidthAt of the calibration (piecewise linear
  // in log bytes, log bandwidth): at 32 KiB, halfway in log2 from 1 KiB to
  // 1 MiB, sqrt(10 * 5) GB/s.
  sim::Calibration mid;
  mid.elementwise = {{32768, 5e9}};
  std::vector<DriftTerm> between = driftAgainst(mid, calibrated());
  ASSERT_EQ(between.size(), 1u);
  EXPECT_NEAR(between[0].ratio, std::sqrt(50.0) / 5, 1e-12);
}

// A zero rate on either side says nothing; no terms: a drift of 1.
TEST(DriftTest, ZeroRatesAndEmptyTablesAreLeftOut) {
  sim::Calibration now;
  now.matmul = {{64, 64, 64, 0}};
  now.elementwise = {{1024, 0}};
  EXPECT_TRUE(driftAgainst(now, calibrated()).empty());
  EXPECT_TRUE(driftAgainst(calibrated(), sim::Calibration()).empty());
  EXPECT_DOUBLE_EQ(medianDrift({}), 1);
}

} // namespace
