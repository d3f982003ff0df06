//===- MatmulKernelsTest.cpp - The calibration's matmulKernels ------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Device.h"

#include "gtest/gtest.h"

using namespace pipewave::sim;

namespace {

/// A calibrated device with two measured matmul classes.
std::string withKernels(const std::string &kernels) {
  return R"({
  "name": "fixed",
  "description": "a calibrated test device",
  "source": "hand-written",
  "peakFlopsPerSecond": { "fp32": 1e11, "tf32": 0, "fp16": 0 },
  "memoryBytesPerSecond": 1e10,
  "memoryBytes": 1e9,
  "intraNode": { "bytesPerSecond": 1e9, "latencySeconds": 1e-6 },
  "interNode": { "bytesPerSecond": 1e8, "latencySeconds": 1e-5 },
  "calibration": {
    "cores": 2,
    "elementwise": [{ "bytes": 1e6, "bytesPerSecond": 1e9 }],
    "reduction": [{ "bytes": 1e6, "bytesPerSecond": 2e9 }],
    "movement": [{ "bytes": 1e3, "bytesPerSecond": 16e9 }],
    "elementwiseFlopsPerSecond": 1e9,
    "opSeconds": 1e-6,
    "actionSeconds": 2e-6,
    "optimizerSeconds": 1e-5,
    "optimizer": [{ "bytes": 1e6, "bytesPerSecond": 1e9 }],
    "allReduce": { "bytesPerSecond": 5e8, "latencySeconds": 3e-6 },)" +
         kernels + R"(
    "matmul": [{ "m": 16, "n": 64, "k": 64, "flopsPerSecond": 1e10 }]
  }
})";
}

const char *const kTwoClasses = R"(
    "matmulKernels": [
      { "class": "nn-square", "m": 256, "n": 512, "k": 512,
        "vectorSeconds": 0.002, "blasSeconds": 0.0025, "kernel": "vector" },
      { "class": "nt-skinny-m", "m": 32, "n": 512, "k": 512,
        "vectorSeconds": 0.0008, "blasSeconds": 0.0004, "kernel": "blas" }
    ],)";

TEST(MatmulKernelsTest, ParseAndWriteBack) {
  std::string error;
  std::optional<DeviceSpec> device =
      parseDeviceJson(withKernels(kTwoClasses), &error);
  ASSERT_TRUE(device) << error;
  const std::vector<MatmulKernelPoint> &points =
      device->calibration->matmulKernels;
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].matmulClass, "nn-square");
  EXPECT_EQ(points[0].kernel, "vector");
  EXPECT_DOUBLE_EQ(points[1].m, 32);
  EXPECT_DOUBLE_EQ(points[1].vectorSeconds, 0.0008);
  EXPECT_DOUBLE_EQ(points[1].blasSeconds, 0.0004);
  EXPECT_EQ(points[1].kernel, "blas");
  std::optional<DeviceSpec> again = parseDeviceJson(toJson(*device), &error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(toJson(*again), toJson(*device));
}

TEST(MatmulKernelsTest, OldFilesHaveNone) {
  std::string error;
  std::optional<DeviceSpec> device = parseDeviceJson(withKernels(""), &error);
  ASSERT_TRUE(device) << error;
  EXPECT_TRUE(device->calibration->matmulKernels.empty());
  EXPECT_EQ(toJson(*device).find("matmulKernels"), std::string::npos);
}

TEST(MatmulKernelsTest, RejectsBrokenEntries) {
  std::string error;
  std::string broken = kTwoClasses;
  broken.replace(broken.find("\"kernel\": \"blas\""), 16,
                 "\"kernel\": \"fast\"");
  EXPECT_FALSE(parseDeviceJson(withKernels(broken), &error));
  EXPECT_EQ(error, "calibration: matmulKernels: 'nt-skinny-m': the kernel "
                   "must be vector or blas, not 'fast'");
  broken = kTwoClasses;
  broken.replace(broken.find("\"blasSeconds\": 0.0025"), 21,
                 "\"blasSeconds\": -1");
  EXPECT_FALSE(parseDeviceJson(withKernels(broken), &error));
  EXPECT_EQ(error, "calibration: matmulKernels: an entry lacks a "
                   "non-negative 'blasSeconds'");
  EXPECT_FALSE(
      parseDeviceJson(withKernels("\n    \"matmulKernels\": {},"), &error));
  EXPECT_EQ(error, "calibration: 'matmulKernels' must be an array");
}

} // namespace
