//===- MatmulKernelsTest.cpp - The calibration's matmulKernels ------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "CalibratedDevice.h"

#include "gtest/gtest.h"

using namespace pipewave::sim;
using namespace pipewave::sim::test;

namespace {

/// kCalibrated with a matmulKernels table (or anything else) added.
std::string withKernels(const std::string &kernels) {
  return calibratedWith(kernels);
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
