//===- TranscendentalTest.cpp - Each transcendental function's own rate ---===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The calibration's transcendental table: a function in it is priced at its
// own measured rate, any other (and an op whose function is not known) at
// transcendentalFlopsPerSecond, exp's; the table reads and writes back, and
// malformed entries are refused with a message naming them.
//
//===----------------------------------------------------------------------===//

#include "CalibratedDevice.h"

#include "gtest/gtest.h"

using namespace pipewave::sim;
using namespace pipewave::sim::test;

namespace {

/// kCalibrated (element-wise at 1 GB/s, every op's fixed cost 1 us) with
/// exp's rate 4 GFLOP/s and erf's own 2 GFLOP/s.
std::string withTable() {
  return calibratedWith("\"transcendentalFlopsPerSecond\": 4e9,\n"
                        "    \"transcendental\": [{ \"function\": \"erf\", "
                        "\"flopsPerSecond\": 2e9 }],");
}

OpWork transcendental(const std::string &function, double flops) {
  OpWork work = op(OpClass::Transcendental, flops, 1e3);
  work.function = function;
  return work;
}

} // namespace

// 1e6 flops: erf at its 2 GFLOP/s, 500 us; tanh (not in the table) and an
// op of no known function at exp's 4 GFLOP/s, 250 us; each plus the 1 us
// fixed cost (its 1000 B at 1 GB/s, 1 us, is less than its flops' time).
TEST(TranscendentalTest, FunctionsInTheTableTakeTheirOwnRate) {
  std::string error;
  std::optional<DeviceSpec> device = parseDeviceJson(withTable(), &error);
  ASSERT_TRUE(device) << error;
  ASSERT_EQ(device->calibration->transcendental.size(), 1u);
  EXPECT_DOUBLE_EQ(device->opSeconds(transcendental("erf", 1e6)), 501e-6);
  EXPECT_DOUBLE_EQ(device->opSeconds(transcendental("tanh", 1e6)), 251e-6);
  EXPECT_DOUBLE_EQ(device->opSeconds(transcendental("", 1e6)), 251e-6);
  expectRoundTrip(*device);
  EXPECT_NE(toJson(*device).find("\"transcendental\": [{ \"function\": "
                                 "\"erf\", \"flopsPerSecond\": 2e+09 }]"),
            std::string::npos)
      << toJson(*device);
  // Without the table erf too runs at exp's rate, and none is written.
  EXPECT_EQ(toJson(calibrated()).find("\"transcendental\""), std::string::npos);
}

TEST(TranscendentalTest, MalformedEntriesAreRefused) {
  std::string error;
  std::string text = calibratedWith("\"transcendental\": [{ "
                                    "\"flopsPerSecond\": 2e9 }],");
  EXPECT_FALSE(parseDeviceJson(text, &error));
  EXPECT_EQ(error,
            "calibration: transcendental: an entry lacks a string 'function'");
  text = calibratedWith("\"transcendental\": [{ \"function\": \"erf\", "
                        "\"flopsPerSecond\": 0 }],");
  EXPECT_FALSE(parseDeviceJson(text, &error));
  EXPECT_EQ(error, "calibration: transcendental: 'erf': flopsPerSecond must be "
                   "positive");
  text = calibratedWith("\"transcendental\": { \"function\": \"erf\" },");
  EXPECT_FALSE(parseDeviceJson(text, &error));
  EXPECT_EQ(error, "calibration: 'transcendental' must be an array");
}
