//===- DeviceTest.cpp - Tests of the device descriptions ------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Device.h"

#include "gtest/gtest.h"

using namespace pipewave::sim;

namespace {

const char *const dataDir = PIPEWAVE_DATA_DIR;

void expectSameFigures(const DeviceSpec &a, const DeviceSpec &b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.description, b.description);
  EXPECT_DOUBLE_EQ(a.fp32FlopsPerSecond, b.fp32FlopsPerSecond);
  EXPECT_DOUBLE_EQ(a.tf32FlopsPerSecond, b.tf32FlopsPerSecond);
  EXPECT_DOUBLE_EQ(a.fp16FlopsPerSecond, b.fp16FlopsPerSecond);
  EXPECT_DOUBLE_EQ(a.memoryBytesPerSecond, b.memoryBytesPerSecond);
  EXPECT_DOUBLE_EQ(a.memoryBytes, b.memoryBytes);
  EXPECT_DOUBLE_EQ(a.intraNode.bytesPerSecond, b.intraNode.bytesPerSecond);
  EXPECT_DOUBLE_EQ(a.intraNode.latencySeconds, b.intraNode.latencySeconds);
  EXPECT_DOUBLE_EQ(a.interNode.bytesPerSecond, b.interNode.bytesPerSecond);
  EXPECT_DOUBLE_EQ(a.interNode.latencySeconds, b.interNode.latencySeconds);
}

TEST(DeviceTest, BuiltinTableMatchesDataFiles) {
  std::vector<std::string> names;
  for (const DeviceSpec &device : builtinDevices())
    names.push_back(device.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"cpu", "v100", "a100", "h100", "h200"}));
  for (const DeviceSpec &builtin : builtinDevices()) {
    std::string error;
    std::string path =
        std::string(dataDir) + "/devices/" + builtin.name + ".json";
    std::optional<DeviceSpec> loaded = loadDeviceFile(path, &error);
    ASSERT_TRUE(loaded) << error;
    SCOPED_TRACE(builtin.name);
    expectSameFigures(*loaded, builtin);
    EXPECT_FALSE(loaded->source.empty());
  }
}

TEST(DeviceTest, FiguresAreSane) {
  for (const DeviceSpec &device : builtinDevices()) {
    SCOPED_TRACE(device.name);
    EXPECT_GT(device.fp32FlopsPerSecond, 1e12);
    EXPECT_GT(device.memoryBytesPerSecond, 1e11);
    EXPECT_GT(device.memoryBytes, 1e10);
    EXPECT_GT(device.intraNode.bytesPerSecond, device.interNode.bytesPerSecond);
    EXPECT_LE(device.intraNode.latencySeconds, device.interNode.latencySeconds);
    EXPECT_GE(device.peakFlopsPerSecond(Precision::FP16),
              device.peakFlopsPerSecond(Precision::FP32));
  }
  // Newer GPUs are faster.
  EXPECT_LT(findDevice("v100")->fp16FlopsPerSecond,
            findDevice("a100")->fp16FlopsPerSecond);
  EXPECT_LT(findDevice("a100")->fp16FlopsPerSecond,
            findDevice("h100")->fp16FlopsPerSecond);
  EXPECT_LT(findDevice("h100")->memoryBytesPerSecond,
            findDevice("H200")->memoryBytesPerSecond);
  EXPECT_FALSE(findDevice("tpu"));
}

TEST(DeviceTest, RooflineAndPrecisionFallback) {
  DeviceSpec v100 = *findDevice("v100");
  // No TF32 on V100: falls back to FP32.
  EXPECT_DOUBLE_EQ(v100.peakFlopsPerSecond(Precision::TF32), 15.7e12);
  // Compute bound: 15.7 TFLOP at FP32 takes a second.
  EXPECT_DOUBLE_EQ(v100.seconds(15.7e12, 1e9), 1.0);
  // Memory bound: 900 GB at 900 GB/s.
  EXPECT_DOUBLE_EQ(v100.seconds(1e9, 900e9), 1.0);
  EXPECT_DOUBLE_EQ(v100.seconds(125e12, 0, Precision::FP16), 1.0);
  EXPECT_EQ(parsePrecision("tf32"), Precision::TF32);
  EXPECT_FALSE(parsePrecision("fp8"));
}

TEST(DeviceTest, JsonRoundTripAndErrors) {
  for (const DeviceSpec &device : builtinDevices()) {
    std::string error;
    std::optional<DeviceSpec> back = parseDeviceJson(toJson(device), &error);
    ASSERT_TRUE(back) << error;
    expectSameFigures(*back, device);
    EXPECT_EQ(back->source, device.source);
  }
  std::string error;
  EXPECT_FALSE(parseDeviceJson("{\"name\": \"x\"}", &error));
  EXPECT_NE(error.find("description"), std::string::npos) << error;
  EXPECT_FALSE(parseDeviceJson("[]", &error));
  EXPECT_FALSE(loadDeviceFile("/nonexistent/device.json", &error));

  // Found by the device fuzzer: a figure that overflows a double used to be
  // accepted as infinity (and printed back as null).
  std::string a100 = toJson(*findDevice("a100"));
  size_t at = a100.find("\"memoryBytesPerSecond\": ");
  ASSERT_NE(at, std::string::npos);
  at += std::string("\"memoryBytesPerSecond\": ").size();
  a100.replace(at, a100.find(',', at) - at, "2e3990");
  EXPECT_FALSE(parseDeviceJson(a100, &error));
  EXPECT_NE(error.find("number out of range: 2e3990"), std::string::npos)
      << error;
}

TEST(DeviceTest, ParsesQuantities) {
  EXPECT_EQ(parseBytes("16GiB"), 16.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(parseBytes("16 GB"), 16e9);
  EXPECT_EQ(parseBytes("1.5e9"), 1.5e9);
  EXPECT_EQ(parseBytes("512mib"), 512.0 * 1024 * 1024);
  EXPECT_FALSE(parseBytes("lots"));
  EXPECT_FALSE(parseBytes("16 GiB/s"));
  EXPECT_EQ(parseBandwidth("100Gb/s"), 12.5e9);
  EXPECT_EQ(parseBandwidth("100 Gbps"), 12.5e9);
  EXPECT_EQ(parseBandwidth("25GB/s"), 25e9);
  EXPECT_EQ(parseBandwidth("3e9"), 3e9);
  EXPECT_FALSE(parseBandwidth("100 GiB"));
  EXPECT_EQ(formatBytes(16.0 * 1024 * 1024 * 1024), "16.0 GiB");
  EXPECT_EQ(formatBytes(300), "300 B");
  EXPECT_EQ(formatSeconds(0.3402), "340 ms");
  EXPECT_EQ(formatSeconds(1.25), "1.25 s");
}

TEST(DeviceTest, ClusterLayout) {
  Cluster cluster = Cluster::of(*findDevice("v100"), 8, 2);
  EXPECT_EQ(cluster.numDevices(), 16);
  EXPECT_EQ(cluster.nodeOf(7), 0);
  EXPECT_EQ(cluster.nodeOf(8), 1);
  EXPECT_DOUBLE_EQ(cluster.memoryBytes, 16e9);
  EXPECT_DOUBLE_EQ(cluster.interNode.bytesPerSecond, 12.5e9);
}

} // namespace
