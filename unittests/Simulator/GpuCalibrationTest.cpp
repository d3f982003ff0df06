//===- GpuCalibrationTest.cpp - The cost terms of a GPU's calibration -----===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// pipewave-calibrate --target cuda writes terms a CPU calibration lacks:
// elementwiseKernelSeconds (an element-wise op that ends a fused group is a
// kernel of its own), matmulBatchesInParallel (a batched matmul is one
// cuBLAS call) and issueOverlapsWork (the host issues an op while the GPU
// runs the ones before it). Each is checked on hand-computed figures of
// kCalibrated (1 us per op, matmuls of 16 and 64 rows by 64 x 64 at 1e10
// and 4e10 FLOP/s), with and without the term.
//
//===----------------------------------------------------------------------===//

#include "CalibratedDevice.h"

#include "gtest/gtest.h"

#include <string>

using namespace pipewave;
using namespace pipewave::sim;
using namespace pipewave::sim::test;

namespace {

/// kCalibrated with `terms` added.
DeviceSpec device(const std::string &terms) {
  std::string error;
  std::optional<DeviceSpec> spec =
      parseDeviceJson(calibratedWith(terms), &error);
  EXPECT_TRUE(spec) << error;
  return spec ? *spec : DeviceSpec();
}

} // namespace

TEST(GpuCalibrationTest, ElementwiseKernelsCostALaunchUnlessFused) {
  // An element-wise op that is not fused into its users is a kernel of its
  // own (elementwiseKernelSeconds); one that is pays fusedOpSeconds. Bytes
  // at the element-wise bandwidth (1e9) either way.
  const std::string fused = "\"fusedOpSeconds\": 1e-7, "
                            "\"transcendentalFlopsPerSecond\": 1e8,";
  DeviceSpec gpu = device(fused + " \"elementwiseKernelSeconds\": 5e-6,");
  EXPECT_DOUBLE_EQ(gpu.calibration->elementwiseKernelSeconds, 5e-6);
  OpWork root = op(OpClass::Elementwise, 1e6, 3e6);
  OpWork inner = root;
  inner.fusedIntoUsers = true;
  EXPECT_DOUBLE_EQ(gpu.opSeconds(root), 5e-6 + 3e-3);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(inner), 1e-7 + 3e-3);
  // exp: 8e6 flops at 1e8 beat 3e6 bytes at 1e9.
  EXPECT_DOUBLE_EQ(gpu.opSeconds(op(OpClass::Transcendental, 8e6, 3e6)),
                   5e-6 + 8e-2);
  expectRoundTrip(gpu);
  EXPECT_NE(toJson(gpu).find("\"elementwiseKernelSeconds\": 5e-06"),
            std::string::npos)
      << toJson(gpu);
  // Without the term (a CPU calibration): fused or not, fusedOpSeconds.
  DeviceSpec cpu = device(fused);
  EXPECT_DOUBLE_EQ(cpu.opSeconds(root), 1e-7 + 3e-3);
  EXPECT_DOUBLE_EQ(cpu.opSeconds(inner), 1e-7 + 3e-3);
  EXPECT_EQ(toJson(cpu).find("elementwiseKernelSeconds"), std::string::npos);
}

TEST(GpuCalibrationTest, BatchedMatmulsRunSideBySide) {
  // 4 products of 16 x 64 x 64 (131072 flops each).
  OpWork batched = matmul(16, 64, 64, 4);
  // One after another: each at the 16-row rate, 1e10.
  DeviceSpec cpu = calibrated();
  EXPECT_DOUBLE_EQ(cpu.opSeconds(batched), 1e-6 + 4 * 131072 / 1e10);
  // Side by side: the rate of one product of 64 rows, 4e10.
  DeviceSpec gpu = device("\"matmulBatchesInParallel\": true,");
  EXPECT_TRUE(gpu.calibration->matmulBatchesInParallel);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(batched), 1e-6 + 4 * 131072 / 4e10);
  // One product is priced the same either way.
  EXPECT_DOUBLE_EQ(gpu.opSeconds(matmul(16, 64, 64)),
                   cpu.opSeconds(matmul(16, 64, 64)));
  expectRoundTrip(gpu);
  EXPECT_NE(toJson(gpu).find("\"matmulBatchesInParallel\": true"),
            std::string::npos);
  EXPECT_EQ(toJson(cpu).find("matmulBatchesInParallel"), std::string::npos);
}

TEST(GpuCalibrationTest, IssueOverlappingWorkCostsTheLarger) {
  DeviceSpec cpu = device("\"elementwiseKernelSeconds\": 4e-6,");
  DeviceSpec gpu = device(
      "\"elementwiseKernelSeconds\": 4e-6, \"issueOverlapsWork\": true,");
  EXPECT_TRUE(gpu.calibration->issueOverlapsWork);
  // A matmul: its 13.1 us of work hide the 1 us of issuing.
  OpWork mm = matmul(16, 64, 64);
  EXPECT_DOUBLE_EQ(cpu.opSeconds(mm), 1e-6 + 131072 / 1e10);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(mm), 131072 / 1e10);
  // A tiny kernel (1 us of bytes) costs its issue, 4 us.
  OpWork tiny = op(OpClass::Elementwise, 0, 1e3);
  EXPECT_DOUBLE_EQ(cpu.opSeconds(tiny), 4e-6 + 1e-6);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(tiny), 4e-6);
  // Every class with a fixed part: reductions (2e9), movement (4e9 from
  // 1e5 bytes), the roofline (1e11 FLOP/s, 1e10 B/s).
  EXPECT_DOUBLE_EQ(gpu.opSeconds(op(OpClass::Reduction, 0, 1e3)), 1e-6);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(op(OpClass::Reduction, 0, 2e6)), 1e-3);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(op(OpClass::Movement, 0, 4e6)), 1e-3);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(op(OpClass::Other, 1e3, 1e3)), 1e-6);
  EXPECT_DOUBLE_EQ(cpu.opSeconds(op(OpClass::Other, 1e3, 1e3)), 1e-6 + 1e-7);
  // Adam on a tensor: 10 us of issue against 1e3 B at 1 GB/s, and 1e5 B.
  EXPECT_DOUBLE_EQ(gpu.calibration->optimizerStepSeconds(1e3), 1e-5);
  EXPECT_DOUBLE_EQ(gpu.calibration->optimizerStepSeconds(1e5), 1e-4);
  EXPECT_DOUBLE_EQ(cpu.calibration->optimizerStepSeconds(1e3), 1e-5 + 1e-6);
  expectRoundTrip(gpu);
  EXPECT_NE(toJson(gpu).find("\"issueOverlapsWork\": true"), std::string::npos);
}

TEST(GpuCalibrationTest, FlagsMustBeBooleans) {
  for (const char *flag : {"matmulBatchesInParallel", "issueOverlapsWork"}) {
    std::string error;
    EXPECT_FALSE(parseDeviceJson(
        calibratedWith(std::string("\"") + flag + "\": 1,"), &error));
    EXPECT_EQ(error,
              std::string("calibration: '") + flag + "' must be true or false");
  }
}
