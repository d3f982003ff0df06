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
// runs the ones before it). Each is checked on hand-computed figures, with
// and without the term.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Device.h"

#include "gtest/gtest.h"

#include <string>

using namespace pipewave;
using namespace pipewave::sim;

namespace {

/// Round figures; the GPU terms are added by the tests.
const char *const kDevice = R"({
  "name": "fixed-gpu",
  "description": "a calibrated test GPU",
  "source": "hand-written",
  "peakFlopsPerSecond": { "fp32": 1e13, "tf32": 0, "fp16": 0 },
  "memoryBytesPerSecond": 1e12,
  "memoryBytes": 1e10,
  "intraNode": { "bytesPerSecond": 1e11, "latencySeconds": 1e-6 },
  "interNode": { "bytesPerSecond": 1e10, "latencySeconds": 1e-5 },
  "calibration": {
    "cores": 16,
    "version": 2,
    "fusedOpSeconds": 1e-7,
    "elementwise": [{ "bytes": 1e6, "bytesPerSecond": 1e9 }],
    "reduction": [{ "bytes": 1e6, "bytesPerSecond": 2e9 }],
    "movement": [{ "bytes": 1e6, "bytesPerSecond": 4e9 }],
    "elementwiseFlopsPerSecond": 1e9,
    "transcendentalFlopsPerSecond": 1e8,
    "opSeconds": 5e-6,
    "actionSeconds": 1e-5,
    "optimizerSeconds": 1e-5,
    "optimizer": [{ "bytes": 1e6, "bytesPerSecond": 1e9 }],
    "allReduce": { "bytesPerSecond": 5e10, "latencySeconds": 3e-6 },
    "matmul": [
      { "m": 16, "n": 64, "k": 64, "flopsPerSecond": 1e10 },
      { "m": 128, "n": 64, "k": 64, "flopsPerSecond": 8e10 }
    ]
  }
})";

/// kDevice with `terms` (JSON members, each followed by a comma) added.
DeviceSpec device(const std::string &terms) {
  std::string text = kDevice;
  text.replace(text.find("\"cores\": 16,"), 12, "\"cores\": 16, " + terms);
  std::string error;
  std::optional<DeviceSpec> spec = parseDeviceJson(text, &error);
  EXPECT_TRUE(spec) << error;
  return spec ? *spec : DeviceSpec();
}

OpWork op(OpClass kind, double flops, double bytes) {
  OpWork work;
  work.kind = kind;
  work.flops = flops;
  work.bytes = bytes;
  return work;
}

/// A matmul of `batch` products [m, k] x [k, n].
OpWork matmul(double batch, double m, double n, double k) {
  OpWork work = op(OpClass::Matmul, batch * 2 * m * n * k,
                   batch * 4 * (m * k + k * n + m * n));
  work.m = m;
  work.n = n;
  work.k = k;
  return work;
}

/// Written back and read again: the same file.
void expectRoundTrip(const DeviceSpec &spec) {
  std::string error;
  std::optional<DeviceSpec> again = parseDeviceJson(toJson(spec), &error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(toJson(*again), toJson(spec));
}

} // namespace

TEST(GpuCalibrationTest, ElementwiseKernelsCostALaunchUnlessFused) {
  // An element-wise op that is not fused into its users is a kernel of its
  // own (elementwiseKernelSeconds); one that is pays fusedOpSeconds. Bytes
  // at the element-wise bandwidth either way.
  DeviceSpec gpu = device("\"elementwiseKernelSeconds\": 5e-6,");
  EXPECT_DOUBLE_EQ(gpu.calibration->elementwiseKernelSeconds, 5e-6);
  OpWork root = op(OpClass::Elementwise, 1e6, 3e6);
  OpWork fused = root;
  fused.fusedIntoUsers = true;
  EXPECT_DOUBLE_EQ(gpu.opSeconds(root), 5e-6 + 3e-3);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(fused), 1e-7 + 3e-3);
  // exp: 8e6 flops at 1e8 beat 3e6 bytes at 1e9.
  EXPECT_DOUBLE_EQ(gpu.opSeconds(op(OpClass::Transcendental, 8e6, 3e6)),
                   5e-6 + 8e-2);
  expectRoundTrip(gpu);
  EXPECT_NE(toJson(gpu).find("\"elementwiseKernelSeconds\": 5e-06"),
            std::string::npos)
      << toJson(gpu);
  // Without the term (a CPU calibration): fused or not, fusedOpSeconds.
  DeviceSpec cpu = device("");
  EXPECT_DOUBLE_EQ(cpu.opSeconds(root), 1e-7 + 3e-3);
  EXPECT_DOUBLE_EQ(cpu.opSeconds(fused), 1e-7 + 3e-3);
  EXPECT_EQ(toJson(cpu).find("elementwiseKernelSeconds"), std::string::npos);
}

TEST(GpuCalibrationTest, BatchedMatmulsRunSideBySide) {
  // 8 products of 16 x 64 x 64 (131072 flops each).
  OpWork batched = matmul(8, 16, 64, 64);
  // One after another: each at the 16-row rate, 1e10.
  DeviceSpec cpu = device("");
  EXPECT_DOUBLE_EQ(cpu.opSeconds(batched), 5e-6 + 8 * 131072 / 1e10);
  // Side by side: the rate of one product of 128 rows, 8e10.
  DeviceSpec gpu = device("\"matmulBatchesInParallel\": true,");
  EXPECT_TRUE(gpu.calibration->matmulBatchesInParallel);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(batched), 5e-6 + 8 * 131072 / 8e10);
  // One product is priced the same either way.
  EXPECT_DOUBLE_EQ(gpu.opSeconds(matmul(1, 16, 64, 64)),
                   cpu.opSeconds(matmul(1, 16, 64, 64)));
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
  // A small matmul: its 13.1 us of work hide the 5 us of issuing.
  OpWork mm = matmul(1, 16, 64, 64);
  EXPECT_DOUBLE_EQ(cpu.opSeconds(mm), 5e-6 + 131072 / 1e10);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(mm), 131072 / 1e10);
  // A tiny kernel (1 us of bytes) costs its issue, 4 us.
  OpWork tiny = op(OpClass::Elementwise, 0, 1e3);
  EXPECT_DOUBLE_EQ(cpu.opSeconds(tiny), 4e-6 + 1e-6);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(tiny), 4e-6);
  // Every class with a fixed part: reductions, movement, the roofline.
  EXPECT_DOUBLE_EQ(gpu.opSeconds(op(OpClass::Reduction, 0, 2e3)), 5e-6);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(op(OpClass::Reduction, 0, 2e6)), 1e-3);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(op(OpClass::Movement, 0, 4e6)), 1e-3);
  EXPECT_DOUBLE_EQ(gpu.opSeconds(op(OpClass::Other, 1e3, 1e3)), 5e-6);
  EXPECT_DOUBLE_EQ(cpu.opSeconds(op(OpClass::Other, 1e3, 1e3)), 5e-6 + 1e-9);
  expectRoundTrip(gpu);
  EXPECT_NE(toJson(gpu).find("\"issueOverlapsWork\": true"), std::string::npos);
}

TEST(GpuCalibrationTest, FlagsMustBeBooleans) {
  for (const char *flag : {"matmulBatchesInParallel", "issueOverlapsWork"}) {
    std::string text = kDevice;
    text.replace(text.find("\"cores\": 16,"), 12,
                 std::string("\"cores\": 16, \"") + flag + "\": 1,");
    std::string error;
    EXPECT_FALSE(parseDeviceJson(text, &error));
    EXPECT_EQ(error,
              std::string("calibration: '") + flag + "' must be true or false");
  }
}
