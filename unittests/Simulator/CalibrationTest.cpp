//===- CalibrationTest.cpp - Tests of the calibrated cost terms -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Simulator/Device.h"
#include "pipewave/Simulator/Network.h"
#include "pipewave/Simulator/Simulator.h"

#include "CalibratedDevice.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

using namespace pipewave;
using namespace pipewave::sim;
using namespace pipewave::sim::test;

namespace {

TEST(CalibrationTest, ParsesAndWritesBack) {
  DeviceSpec device = calibrated();
  ASSERT_TRUE(device.calibration);
  const Calibration &c = *device.calibration;
  EXPECT_EQ(c.cores, 2);
  EXPECT_DOUBLE_EQ(c.opSeconds, 1e-6);
  EXPECT_DOUBLE_EQ(c.allReduceLatencySeconds, 3e-6);
  ASSERT_EQ(c.movement.size(), 2u);
  EXPECT_DOUBLE_EQ(c.movement[1].bytesPerSecond, 4e9);
  ASSERT_EQ(c.matmul.size(), 2u);
  EXPECT_DOUBLE_EQ(c.matmul[1].flopsPerSecond, 4e10);

  std::string error;
  std::optional<DeviceSpec> again = parseDeviceJson(toJson(device), &error);
  ASSERT_TRUE(again) << error;
  ASSERT_TRUE(again->calibration);
  EXPECT_EQ(toJson(*again), toJson(device));
  // A shipped file has no calibration and writes none.
  EXPECT_FALSE(findDevice("cpu")->calibration);
  EXPECT_EQ(toJson(*findDevice("cpu")).find("calibration"), std::string::npos);
}

TEST(CalibrationTest, MatmulRateInterpolatesInLogShape) {
  DeviceSpec device = calibrated();
  const Calibration &c = *device.calibration;
  // Exact points.
  EXPECT_DOUBLE_EQ(c.matmulFlopsPerSecond(16, 64, 64), 1e10);
  EXPECT_DOUBLE_EQ(c.matmulFlopsPerSecond(64, 64, 64), 4e10);
  // M = 32 is as far from both (in log2 M): the geometric mean.
  EXPECT_NEAR(c.matmulFlopsPerSecond(32, 64, 64), 2e10, 1e-3);
  // Beyond the table the nearest point dominates: 1/1^4 vs 1/3^4.
  double w1 = 1, w3 = 1.0 / 81;
  EXPECT_NEAR(c.matmulFlopsPerSecond(8, 64, 64),
              std::exp((w1 * std::log(1e10) + w3 * std::log(4e10)) / (w1 + w3)),
              1);
  EXPECT_DOUBLE_EQ(Calibration().matmulFlopsPerSecond(8, 8, 8), 0);
}

TEST(CalibrationTest, BandwidthInterpolatesInLogSize) {
  DeviceSpec device = calibrated();
  const std::vector<BandwidthPoint> &movement = device.calibration->movement;
  EXPECT_DOUBLE_EQ(bandwidthAt(movement, 1e3), 16e9);
  EXPECT_DOUBLE_EQ(bandwidthAt(movement, 1e5), 4e9);
  // Halfway in log bytes: halfway in log bandwidth.
  EXPECT_NEAR(bandwidthAt(movement, 1e4), 8e9, 1);
  // The end points beyond the table.
  EXPECT_DOUBLE_EQ(bandwidthAt(movement, 10), 16e9);
  EXPECT_DOUBLE_EQ(bandwidthAt(movement, 1e9), 4e9);
  EXPECT_DOUBLE_EQ(bandwidthAt({}, 1e9), 0);
}

TEST(CalibrationTest, OpCostsAreHandComputed) {
  DeviceSpec device = calibrated();
  // 2.16.64.64 = 131072 flops at 1e10, plus the 1 us per op.
  EXPECT_DOUBLE_EQ(device.opSeconds(matmul(16, 64, 64)), 1e-6 + 131072 / 1e10);
  // M = 32: twice the flops at twice the rate.
  EXPECT_NEAR(device.opSeconds(matmul(32, 64, 64)), 1e-6 + 262144 / 2e10,
              1e-15);
  // Element-wise: the slower of bytes and flops.
  EXPECT_DOUBLE_EQ(device.opSeconds(op(OpClass::Elementwise, 1e6, 3e6)),
                   1e-6 + 3e-3);
  EXPECT_DOUBLE_EQ(device.opSeconds(op(OpClass::Elementwise, 8e6, 3e6)),
                   1e-6 + 8e-3);
  EXPECT_DOUBLE_EQ(device.opSeconds(op(OpClass::Reduction, 1e6, 2e6)),
                   1e-6 + 1e-3);
  EXPECT_DOUBLE_EQ(device.opSeconds(op(OpClass::Movement, 0, 4e6)),
                   1e-6 + 1e-3);
  EXPECT_NEAR(device.opSeconds(op(OpClass::Movement, 0, 1e4)), 1e-6 + 1e4 / 8e9,
              1e-15);
  EXPECT_DOUBLE_EQ(device.opSeconds(op(OpClass::Free, 1e6, 1e6)), 0);
  // Other ops: the roofline of the file's peak and memory bandwidth.
  EXPECT_DOUBLE_EQ(device.opSeconds(op(OpClass::Other, 1e8, 1e6)), 1e-6 + 1e-3);
  EXPECT_DOUBLE_EQ(device.calibration->optimizerStepSeconds(1e6), 1e-5 + 1e-3);
  // Without a calibration: the roofline alone, whatever the class.
  DeviceSpec plain = device;
  plain.calibration.reset();
  EXPECT_DOUBLE_EQ(plain.opSeconds(matmul(16, 64, 64)),
                   plain.seconds(131072, 4 * (16 * 64 + 64 * 64 + 16 * 64)));
}

TEST(CalibrationTest, AllReduceUsesTheMeasuredFigures) {
  Cluster cluster = Cluster::of(calibrated(), 2, 1);
  // n = 2: 2 (n-1)/n b / bw + 2 (n-1) latency.
  EXPECT_DOUBLE_EQ(allReduceSeconds(cluster, {0, 1}, 1e6), 1e6 / 5e8 + 6e-6);
  // Across nodes: the interNode link, as before.
  Cluster nodes = Cluster::of(calibrated(), 1, 2);
  EXPECT_DOUBLE_EQ(allReduceSeconds(nodes, {0, 1}, 1e6), 1e6 / 1e8 + 2e-5);
}

TEST(CalibrationTest, OversubscriptionStretchesDurations) {
  // GPipe on 4 ranks of a 2-core device, F = 1, B = 2, free links: every
  // duration doubles.
  schedule::BuildResult built = schedule::buildGPipe(4, 4);
  ASSERT_TRUE(built) << built.error;
  Cluster cluster = Cluster::ideal(4);
  cluster.device.calibration = Calibration();
  cluster.device.calibration->cores = 2;
  SimReport report = simulate(*built.program, CostTable::uniform(4), cluster);
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_DOUBLE_EQ(report.oversubscription, 2);
  EXPECT_DOUBLE_EQ(report.stepTime, 2 * (4 + 4 - 1) * 3.0);
  cluster.device.calibration->cores = 4;
  report = simulate(*built.program, CostTable::uniform(4), cluster);
  EXPECT_DOUBLE_EQ(report.oversubscription, 1);
  EXPECT_DOUBLE_EQ(report.stepTime, (4 + 4 - 1) * 3.0);
}

TEST(CalibrationTest, RejectsBrokenCalibration) {
  std::string text = kCalibrated, error;
  std::string broken = text;
  broken.replace(broken.find("\"matmul\""), 8, "\"matmuls\"");
  EXPECT_FALSE(parseDeviceJson(broken, &error));
  EXPECT_EQ(error, "calibration: missing array 'matmul'");
  broken = text;
  broken.replace(broken.find("\"opSeconds\": 1e-6"), 17, "\"opSeconds\": -1");
  EXPECT_FALSE(parseDeviceJson(broken, &error));
  EXPECT_EQ(error,
            "calibration: missing or invalid non-negative number 'opSeconds'");
  broken = text;
  broken.replace(broken.find("\"bytes\": 1e5"), 12, "\"bytes\": 1e2");
  EXPECT_FALSE(parseDeviceJson(broken, &error));
  EXPECT_EQ(error, "calibration: movement: sizes must increase");
}

/// kCalibrated with the optional terms of version 2.
std::string calibratedV2() {
  std::string text = kCalibrated;
  text.replace(text.find("\"cores\": 2,"), 11, R"("cores": 2,
    "version": 2,
    "fusedOpSeconds": 1e-7,
    "transcendentalFlopsPerSecond": 1e8,
    "outerReduction": [{ "bytes": 1e6, "bytesPerSecond": 8e9 }],
    "copy": [{ "bytes": 1e6, "bytesPerSecond": 5e9 }],
    "accumulateSeconds": 2e-7,
    "accumulate": [{ "bytes": 1e3, "bytesPerSecond": 1e9 },
                   { "bytes": 1e5, "bytesPerSecond": 4e9 }],
    "transpose": [{ "rows": 64, "cols": 64, "bytesPerSecond": 16e9 },
                  { "rows": 64, "cols": 1024, "bytesPerSecond": 1e9 }],)");
  return text;
}

OpWork transposed(double rows, double cols) {
  OpWork work = op(OpClass::Transpose, 0, 8 * rows * cols);
  work.m = rows;
  work.n = cols;
  return work;
}

TEST(CalibrationTest, OptionalTermsParseAndWriteBack) {
  std::string error;
  std::optional<DeviceSpec> device = parseDeviceJson(calibratedV2(), &error);
  ASSERT_TRUE(device) << error;
  const Calibration &c = *device->calibration;
  EXPECT_EQ(c.version, 2);
  EXPECT_DOUBLE_EQ(c.fusedOpSeconds, 1e-7);
  EXPECT_DOUBLE_EQ(c.transcendentalFlopsPerSecond, 1e8);
  ASSERT_EQ(c.outerReduction.size(), 1u);
  ASSERT_EQ(c.copy.size(), 1u);
  ASSERT_EQ(c.accumulate.size(), 2u);
  EXPECT_DOUBLE_EQ(c.accumulateSeconds, 2e-7);
  ASSERT_EQ(c.transpose.size(), 2u);
  EXPECT_DOUBLE_EQ(c.transpose[1].cols, 1024);
  std::optional<DeviceSpec> again = parseDeviceJson(toJson(*device), &error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(toJson(*again), toJson(*device));
  EXPECT_NE(toJson(*device).find("\"transpose\": ["), std::string::npos);
  // A file without them writes none of them back.
  EXPECT_EQ(toJson(calibrated()).find("version"), std::string::npos);
  EXPECT_EQ(toJson(calibrated()).find("fusedOpSeconds"), std::string::npos);
}

TEST(CalibrationTest, OptionalTermsAreHandComputed) {
  std::string error;
  std::optional<DeviceSpec> device = parseDeviceJson(calibratedV2(), &error);
  ASSERT_TRUE(device) << error;
  const Calibration &c = *device->calibration;
  // Element-wise ops pay the fused fixed cost, not opSeconds.
  EXPECT_DOUBLE_EQ(device->opSeconds(op(OpClass::Elementwise, 1e6, 3e6)),
                   1e-7 + 3e-3);
  // Transcendental: 8e6 flops at 1e8 beats 3e6 bytes at 1e9.
  EXPECT_DOUBLE_EQ(device->opSeconds(op(OpClass::Transcendental, 8e6, 3e6)),
                   1e-7 + 8e-2);
  EXPECT_DOUBLE_EQ(device->opSeconds(op(OpClass::Transcendental, 1e5, 3e6)),
                   1e-7 + 3e-3);
  // Outer reductions at their own bandwidth; innermost ones as before.
  EXPECT_DOUBLE_EQ(device->opSeconds(op(OpClass::OuterReduction, 1e6, 2e6)),
                   1e-6 + 2e6 / 8e9);
  EXPECT_DOUBLE_EQ(device->opSeconds(op(OpClass::Reduction, 1e6, 2e6)),
                   1e-6 + 1e-3);
  // Transposes by shape: exact points, and halfway in log2 cols (64 to
  // 1024: 256) the geometric mean of 16 and 1 GB/s.
  EXPECT_DOUBLE_EQ(c.transposeBytesPerSecond(64, 64), 16e9);
  EXPECT_DOUBLE_EQ(device->opSeconds(transposed(64, 1024)),
                   1e-6 + 8 * 64 * 1024 / 1e9);
  EXPECT_NEAR(c.transposeBytesPerSecond(64, 256), 4e9, 1);
  EXPECT_NEAR(device->opSeconds(transposed(64, 256)), 1e-6 + 8 * 64 * 256 / 4e9,
              1e-15);
  // Copies out of a function.
  EXPECT_DOUBLE_EQ(device->opSeconds(op(OpClass::Copy, 0, 1e6)), 1e-6 + 2e-4);
  // Gradient accumulation per tensor: 2 x (0.2 us + 1e4 B at 2 GB/s, half
  // way in log size between 1 and 4 GB/s).
  EXPECT_NEAR(c.accumulateSecondsOf({1e4, 1e4}), 2 * (2e-7 + 1e4 / 2e9), 1e-15);
  EXPECT_DOUBLE_EQ(c.accumulateSecondsOf({}), 0);
  // Version 2: the optimizer per tensor, each with its fixed cost.
  EXPECT_DOUBLE_EQ(c.optimizerStepSeconds(std::vector<double>{5e5, 5e5}),
                   2 * (1e-5 + 5e-4));
}

TEST(CalibrationTest, FilesWithoutOptionalTermsPriceAsBefore) {
  DeviceSpec device = calibrated();
  const Calibration &c = *device.calibration;
  EXPECT_EQ(c.version, 1);
  EXPECT_DOUBLE_EQ(device.opSeconds(op(OpClass::Transcendental, 8e6, 3e6)),
                   device.opSeconds(op(OpClass::Elementwise, 8e6, 3e6)));
  EXPECT_DOUBLE_EQ(device.opSeconds(op(OpClass::OuterReduction, 1e6, 2e6)),
                   device.opSeconds(op(OpClass::Reduction, 1e6, 2e6)));
  EXPECT_DOUBLE_EQ(device.opSeconds(transposed(64, 16)),
                   device.opSeconds(op(OpClass::Movement, 0, 8 * 64 * 16)));
  EXPECT_DOUBLE_EQ(device.opSeconds(op(OpClass::Copy, 0, 1e6)), 0);
  EXPECT_DOUBLE_EQ(c.accumulateSecondsOf({1e6}), 0);
  // Version 1: the optimizer over the stage's bytes at once.
  EXPECT_DOUBLE_EQ(c.optimizerStepSeconds(std::vector<double>{5e5, 5e5}),
                   c.optimizerStepSeconds(1e6));
}

TEST(CalibrationTest, RejectsBrokenOptionalTerms) {
  std::string error;
  std::string broken = calibratedV2();
  broken.replace(broken.find("\"cols\": 64,"), 11, "\"colz\": 64,");
  EXPECT_FALSE(parseDeviceJson(broken, &error));
  EXPECT_EQ(error,
            "calibration: transpose: an entry lacks a non-negative 'cols'");
  broken = calibratedV2();
  broken.replace(broken.find("\"bytes\": 1e5, \"bytesPerSecond\": 4e9"), 12,
                 "\"bytes\": 1e2");
  EXPECT_FALSE(parseDeviceJson(broken, &error));
  EXPECT_EQ(error, "calibration: accumulate: sizes must increase");
  broken = calibratedV2();
  broken.replace(broken.find("\"version\": 2"), 12, "\"version\": 0");
  EXPECT_FALSE(parseDeviceJson(broken, &error));
  EXPECT_EQ(error, "calibration: 'version' must be 1 or more");
}

/// kCalibrated with a pointToPoint table: 2 us up to 4 KiB, then a
/// rendezvous step to 10 us at 4160 B, and 1 GB/s beyond.
std::string withMessages() {
  std::string text = kCalibrated;
  text.replace(text.find("\"cores\": 2,"), 11,
               "\"cores\": 2,\n    \"pointToPoint\": ["
               "{ \"bytes\": 8, \"seconds\": 2e-6 }, "
               "{ \"bytes\": 4032, \"seconds\": 2e-6 }, "
               "{ \"bytes\": 4160, \"seconds\": 1e-5 }, "
               "{ \"bytes\": 1e6, \"seconds\": 1e-3 }],");
  return text;
}

TEST(CalibrationTest, MessagesFollowTheMeasuredTable) {
  std::string error;
  std::optional<DeviceSpec> device = parseDeviceJson(withMessages(), &error);
  ASSERT_TRUE(device) << error;
  const Calibration &c = *device->calibration;
  ASSERT_EQ(c.pointToPoint.size(), 4u);
  // Below the first size its time; linear in bytes between sizes; beyond
  // the last, the rest at the given bandwidth.
  EXPECT_DOUBLE_EQ(c.messageSeconds(1, 1e9), 2e-6);
  EXPECT_DOUBLE_EQ(c.messageSeconds(4032, 1e9), 2e-6);
  EXPECT_DOUBLE_EQ(c.messageSeconds(4096, 1e9), 6e-6);
  EXPECT_DOUBLE_EQ(c.messageSeconds(2e6, 1e9), 1e-3 + 1e6 / 1e9);
  EXPECT_LT(calibrated().calibration->messageSeconds(8, 1e9), 0);

  // A 5 KiB message within the machine waits 10 us + (5120 - 4160) /
  // (1e6 - 4160) of the way to 1 ms, less its 5.12 us on the 1 GB/s link;
  // across nodes the interNode link as before.
  Cluster cluster = Cluster::of(*device, 2, 2);
  TransferCost cost = transferCost(cluster, {0}, {1}, 5120);
  double total = 1e-5 + (5120.0 - 4160) / (1e6 - 4160) * (1e-3 - 1e-5);
  EXPECT_DOUBLE_EQ(cost.occupancy, 5120 / 1e9);
  EXPECT_NEAR(cost.latency, total - 5120 / 1e9, 1e-18);
  EXPECT_NEAR(cost.total(), total, 1e-18);
  // The table's step from 4032 to 4160 B is its eager limit: a larger
  // message within the machine still takes its time less the smallest
  // message's once the receiver is inside MPI; a smaller one, nothing.
  EXPECT_DOUBLE_EQ(c.eagerLimitBytes(), 4032);
  EXPECT_NEAR(cost.handshake, total - 2e-6, 1e-18);
  EXPECT_DOUBLE_EQ(transferCost(cluster, {0}, {1}, 4000).handshake, 0);
  TransferCost across = transferCost(cluster, {1}, {2}, 5120);
  EXPECT_DOUBLE_EQ(across.latency, 1e-5);
  EXPECT_DOUBLE_EQ(across.handshake, 0);
  // Without a table: the intraNode latency, and no eager limit.
  Cluster plain = Cluster::of(calibrated(), 2, 1);
  EXPECT_DOUBLE_EQ(transferCost(plain, {0}, {1}, 5120).latency, 1e-6);
  EXPECT_DOUBLE_EQ(transferCost(plain, {0}, {1}, 5120).handshake, 0);
  EXPECT_DOUBLE_EQ(calibrated().calibration->eagerLimitBytes(), 0);
  // A table without a step (sizes 10% apart or less, times 1.5x apart or
  // more) has none either: 8 B to 4160 B rises 5x, but far apart.
  Calibration smooth = c;
  smooth.pointToPoint.erase(smooth.pointToPoint.begin() + 1);
  EXPECT_DOUBLE_EQ(smooth.eagerLimitBytes(), 0);

  // Written back and read again, and checked.
  std::optional<DeviceSpec> again = parseDeviceJson(toJson(*device), &error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(toJson(*again), toJson(*device));
  std::string broken = withMessages();
  broken.replace(broken.find("\"bytes\": 4160"), 13, "\"bytes\": 4000");
  EXPECT_FALSE(parseDeviceJson(broken, &error));
  EXPECT_EQ(error, "calibration: pointToPoint: sizes must increase");
  broken = withMessages();
  broken.replace(broken.find("\"seconds\": 1e-5"), 15, "\"second\": 1e-5");
  EXPECT_FALSE(parseDeviceJson(broken, &error));
  EXPECT_EQ(error, "calibration: pointToPoint: an entry lacks a non-negative "
                   "'seconds'");
}

// A table with the CPU time of each message: the send and recv columns,
// linear in bytes between sizes and the end points' beyond them; a transfer
// within the machine carries them, one across nodes does not; a table
// without them (older files) costs none and writes none.
TEST(CalibrationTest, MessageOverheadsFollowTheTable) {
  auto replace = [](std::string &text, const std::string &from,
                    const std::string &to) {
    size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  std::string text = withMessages();
  replace(text, "\"bytes\": 8, \"seconds\": 2e-6",
          "\"bytes\": 8, \"seconds\": 2e-6, \"send\": 2e-7, \"recv\": 1e-7");
  replace(text, "\"bytes\": 1e6, \"seconds\": 1e-3",
          "\"bytes\": 1e6, \"seconds\": 1e-3, \"send\": 4e-7, "
          "\"recv\": 1e-4");
  std::string error;
  std::optional<DeviceSpec> device = parseDeviceJson(text, &error);
  ASSERT_TRUE(device) << error;
  const Calibration &c = *device->calibration;
  ASSERT_EQ(c.pointToPoint.size(), 4u);
  EXPECT_DOUBLE_EQ(c.sendOverheadSeconds(1), 2e-7);
  EXPECT_DOUBLE_EQ(c.recvOverheadSeconds(8), 1e-7);
  // 4032 and 4160 B have none measured (0): 4096 B is halfway between.
  EXPECT_DOUBLE_EQ(c.sendOverheadSeconds(4096), 0);
  EXPECT_DOUBLE_EQ(c.sendOverheadSeconds(2020), 2e-7 * (4032.0 - 2020) / 4024);
  EXPECT_DOUBLE_EQ(c.recvOverheadSeconds(4160 + (1e6 - 4160) / 2), 5e-5);
  EXPECT_DOUBLE_EQ(c.recvOverheadSeconds(4e6), 1e-4);
  EXPECT_DOUBLE_EQ(calibrated().calibration->sendOverheadSeconds(8), 0);

  Cluster cluster = Cluster::of(*device, 2, 2);
  TransferCost within = transferCost(cluster, {0}, {1}, 8);
  EXPECT_DOUBLE_EQ(within.sendOverhead, 2e-7);
  EXPECT_DOUBLE_EQ(within.recvOverhead, 1e-7);
  TransferCost across = transferCost(cluster, {1}, {2}, 8);
  EXPECT_DOUBLE_EQ(across.sendOverhead, 0);
  EXPECT_DOUBLE_EQ(across.recvOverhead, 0);

  std::optional<DeviceSpec> again = parseDeviceJson(toJson(*device), &error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(toJson(*again), toJson(*device));
  EXPECT_NE(toJson(*device).find("\"send\": 2e-07"), std::string::npos);
  std::optional<DeviceSpec> older = parseDeviceJson(withMessages(), &error);
  ASSERT_TRUE(older) << error;
  EXPECT_EQ(toJson(*older).find("\"send\""), std::string::npos);
  std::string broken = text;
  replace(broken, "\"recv\": 1e-7", "\"recv\": -1e-7");
  EXPECT_FALSE(parseDeviceJson(broken, &error));
  EXPECT_EQ(error, "calibration: pointToPoint: an entry lacks a non-negative "
                   "'recv'");
}

/// kCalibrated with a coldOperand table (2 MiB: 40 GB/s, 8 MiB: 5 GB/s) and
/// a matmulKernels table of the "square" class (nn: blas 1 ms, vector 2 ms;
/// nt: blas 3 ms, vector 1.5 ms; tn: vector 4 ms, blas 5 ms).
std::string withLayoutsAndColdParameters() {
  std::string text = kCalibrated;
  text.replace(
      text.find("\"cores\": 2,"), 11,
      "\"cores\": 2,\n    \"nonfiniteCheck\": ["
      "{ \"bytes\": 1e6, \"bytesPerSecond\": 1e10 }],\n    \"coldOperand\": ["
      "{ \"bytes\": 2097152, \"bytesPerSecond\": 4e10 }, "
      "{ \"bytes\": 8388608, \"bytesPerSecond\": 5e9 }],\n"
      "    \"matmulKernels\": ["
      "{ \"class\": \"nn-square\", \"m\": 256, \"n\": 512, \"k\": 512, "
      "\"vectorSeconds\": 2e-3, \"blasSeconds\": 1e-3, \"kernel\": \"blas\" }, "
      "{ \"class\": \"nt-square\", \"m\": 256, \"n\": 512, \"k\": 512, "
      "\"vectorSeconds\": 1.5e-3, \"blasSeconds\": 3e-3, "
      "\"kernel\": \"vector\" }, "
      "{ \"class\": \"tn-square\", \"m\": 256, \"n\": 512, \"k\": 512, "
      "\"vectorSeconds\": 4e-3, \"blasSeconds\": 5e-3, "
      "\"kernel\": \"vector\" }],");
  return text;
}

TEST(CalibrationTest, TransposedOperandsAndColdParametersAreHandComputed) {
  std::string error;
  std::optional<DeviceSpec> device =
      parseDeviceJson(withLayoutsAndColdParameters(), &error);
  ASSERT_TRUE(device) << error;
  const Calibration &c = *device->calibration;
  // Each layout at its chosen kernel against nn's (blas, 1 ms): nt 1.5x,
  // tn 4x; tt was not measured; 64^3 is the small class, not measured.
  EXPECT_DOUBLE_EQ(c.matmulLayoutFactor(128, 128, 128, false, false), 1);
  EXPECT_DOUBLE_EQ(c.matmulLayoutFactor(128, 128, 128, false, true), 1.5);
  EXPECT_DOUBLE_EQ(c.matmulLayoutFactor(128, 128, 128, true, false), 4);
  EXPECT_DOUBLE_EQ(c.matmulLayoutFactor(128, 128, 128, true, true), 1);
  EXPECT_DOUBLE_EQ(c.matmulLayoutFactor(64, 64, 64, false, true), 1);
  // Read transposed, B takes 1.5x the flops' time of the plain matmul; the
  // op's fixed 1 us does not grow.
  OpWork plain = matmul(128, 128, 128), nt = plain;
  nt.transposedB = true;
  double flopsSeconds = device->opSeconds(plain) - 1e-6;
  EXPECT_GT(flopsSeconds, 0);
  EXPECT_NEAR(device->opSeconds(nt), 1e-6 + 1.5 * flopsSeconds, 1e-15);
  // A transpose the lowering folds into its matmul is free here; the
  // roofline of a device without a calibration still prices it.
  OpWork folded = op(OpClass::Transpose, 0, 8 * 64 * 64);
  folded.folded = true;
  EXPECT_DOUBLE_EQ(device->opSeconds(folded), 0);
  std::optional<DeviceSpec> cpu = findDevice("cpu");
  ASSERT_TRUE(cpu);
  EXPECT_GT(cpu->opSeconds(folded), 0);
  // Cold parameters: 1 MiB at the 8 MiB footprint's 5 GB/s; the 2 MiB
  // rate below it, the 8 MiB one above; halfway in log footprint (4 MiB)
  // the geometric mean, 1.4142e10.
  EXPECT_NEAR(c.coldSecondsOf(1048576, 8388608), 1048576 / 5e9, 1e-15);
  EXPECT_DOUBLE_EQ(c.coldSecondsOf(1048576, 65536), 1048576 / 4e10);
  EXPECT_DOUBLE_EQ(c.coldSecondsOf(1048576, 1e9), 1048576 / 5e9);
  EXPECT_NEAR(c.coldSecondsOf(1048576, 4194304), 1048576 / std::sqrt(2e20),
              1e-12);
  EXPECT_DOUBLE_EQ(c.coldSecondsOf(0, 8388608), 0);
  EXPECT_DOUBLE_EQ(calibrated().calibration->coldSecondsOf(1048576, 8388608),
                   0);
  // The non-finite scan before the updates: 1e6 B at 10 GB/s.
  EXPECT_NEAR(c.nonfiniteCheckSecondsOf(1e6), 1e-4, 1e-15);
  EXPECT_DOUBLE_EQ(c.nonfiniteCheckSecondsOf(0), 0);
  EXPECT_DOUBLE_EQ(calibrated().calibration->nonfiniteCheckSecondsOf(1e6), 0);
  // All write back.
  std::optional<DeviceSpec> again = parseDeviceJson(toJson(*device), &error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(again->calibration->coldOperand.size(), 2u);
  EXPECT_EQ(again->calibration->nonfiniteCheck.size(), 1u);
  EXPECT_EQ(toJson(*again), toJson(*device));
}

/// A coldOperand table of 40 GB/s at a 2 MiB footprint and 5 GB/s at 8 MiB.
const char *const kColdTwoToEight =
    "\"coldOperand\": [{ \"bytes\": 2097152, \"bytesPerSecond\": 4e10 }, "
    "{ \"bytes\": 8388608, \"bytesPerSecond\": 5e9 }],";

TEST(CalibrationTest, AnOptimizerActionPaysItsFixedCostOnce) {
  // kCalibrated's Adam: 10 us a tensor + 1 GB/s; with an action cost of
  // 30 us, a step over two tensors of 1e6 B costs 30 + 2 x (10 + 1000) us.
  std::string error;
  std::optional<DeviceSpec> device = parseDeviceJson(
      calibratedWith("\"version\": 2, \"optimizerActionSeconds\": 3e-5,"),
      &error);
  ASSERT_TRUE(device) << error;
  const Calibration &c = *device->calibration;
  EXPECT_DOUBLE_EQ(c.optimizerStepSeconds(std::vector<double>{1e6, 1e6}),
                   3e-5 + 2 * (1e-5 + 1e-3));
  EXPECT_DOUBLE_EQ(c.optimizerStepSeconds(std::vector<double>{1e6}),
                   3e-5 + 1e-5 + 1e-3);
  expectRoundTrip(*device);
  EXPECT_NE(toJson(*device).find("\"optimizerActionSeconds\": 3e-05"),
            std::string::npos);
  // Files without it: nothing per action, and none written back.
  std::optional<DeviceSpec> plain =
      parseDeviceJson(calibratedWith("\"version\": 2,"), &error);
  ASSERT_TRUE(plain) << error;
  EXPECT_DOUBLE_EQ(
      plain->calibration->optimizerStepSeconds(std::vector<double>{1e6, 1e6}),
      2 * (1e-5 + 1e-3));
  EXPECT_EQ(toJson(*plain).find("optimizerActionSeconds"), std::string::npos);
}

TEST(CalibrationTest, AdamOutOfCacheIsHandComputed) {
  // kCalibrated's Adam: 10 us + 1 GB/s (one point); an optimizerCold table
  // of 4 GB/s at 1 MB and 0.5 GB/s at 16 MB of a node's parameters.
  std::string error;
  std::optional<DeviceSpec> device = parseDeviceJson(
      calibratedWith("\"optimizerCold\": ["
                     "{ \"bytes\": 1e6, \"bytesPerSecond\": 4e9 }, "
                     "{ \"bytes\": 1.6e7, \"bytesPerSecond\": 5e8 }],"),
      &error);
  ASSERT_TRUE(device) << error;
  const Calibration &c = *device->calibration;
  EXPECT_EQ(c.optimizerCold.size(), 2u);
  // Alone (the node holds only these 1e6 B): the cold rate, 4 GB/s, is
  // faster than the per-tensor 1 GB/s, which holds.
  EXPECT_DOUBLE_EQ(c.optimizerStepSeconds(1e6), 1e-5 + 1e-3);
  EXPECT_DOUBLE_EQ(c.optimizerStepSeconds(1e6, 1e6), 1e-5 + 1e-3);
  // On a node of 16 MB of parameters: 0.5 GB/s; at 4 MB, halfway in log
  // bytes, the geometric mean of 4 and 0.5 GB/s (1.414 GB/s), faster than
  // 1 GB/s again.
  EXPECT_DOUBLE_EQ(c.optimizerStepSeconds(1e6, 1.6e7), 1e-5 + 2e-3);
  EXPECT_DOUBLE_EQ(c.optimizerStepSeconds(1e6, 4e6), 1e-5 + 1e-3);
  // The node's bytes are at least the stage's own: two tensors of 8 MB on a
  // node said to hold 0 B are 16 MB (one step over both: version 1).
  EXPECT_NEAR(c.optimizerStepSeconds(std::vector<double>{8e6, 8e6}),
              1e-5 + 1.6e7 / 5e8, 1e-12);
  // Without the table a node's size changes nothing.
  EXPECT_DOUBLE_EQ(calibrated().calibration->optimizerStepSeconds(1e6, 1.6e7),
                   1e-5 + 1e-3);
  expectRoundTrip(*device);
}

TEST(CalibrationTest, AccumulationWarmsWithTheFootprint) {
  // Accumulation: 1 us + 1 GB/s with caches evicted, 10 GB/s in cache; cold
  // parameters at 40 GB/s at a 2 MiB footprint and 5 GB/s at 8 MiB.
  std::string error;
  std::optional<DeviceSpec> device = parseDeviceJson(
      calibratedWith(
          "\"accumulateSeconds\": 1e-6,\n"
          "    \"accumulate\": [{ \"bytes\": 1e6, \"bytesPerSecond\": 1e9 }],"
          "\n    \"accumulateWarm\": [{ \"bytes\": 1e6, "
          "\"bytesPerSecond\": 1e10 }],\n    " +
          std::string(kColdTwoToEight)),
      &error);
  ASSERT_TRUE(device) << error;
  const Calibration &c = *device->calibration;
  const std::vector<double> one{1e6};
  // At the largest footprint measured (or beyond, or not known): evicted.
  EXPECT_NEAR(c.accumulateSecondsOf(one, 8388608), 1e-6 + 1e-3, 1e-15);
  EXPECT_NEAR(c.accumulateSecondsOf(one, 1e9), 1e-6 + 1e-3, 1e-15);
  EXPECT_NEAR(c.accumulateSecondsOf(one), 1e-6 + 1e-3, 1e-15);
  // At 2 MiB the cold parameters cost 5/40 of the coldest: the warm 0.1 ms
  // plus 1/8 of the 0.9 ms to the evicted time.
  EXPECT_NEAR(c.accumulateSecondsOf(one, 2097152), 1e-6 + 1e-4 + 0.9e-3 / 8,
              1e-15);
  // Per tensor, each with the fixed cost.
  EXPECT_NEAR(c.accumulateSecondsOf({1e6, 1e6}, 8388608), 2 * (1e-6 + 1e-3),
              1e-15);
  EXPECT_EQ(c.accumulateWarm.size(), 1u);
  expectRoundTrip(*device);
}

TEST(CalibrationTest, CopiesWarmWithTheFootprint) {
  // kCalibrated's 1 us per op; copies at 1 GB/s evicted, 10 GB/s in cache;
  // cold parameters at 40 GB/s at 2 MiB and 5 GB/s at 8 MiB.
  std::string error;
  std::optional<DeviceSpec> device = parseDeviceJson(
      calibratedWith(
          "\"copy\": [{ \"bytes\": 1e6, \"bytesPerSecond\": 1e9 }],\n"
          "    \"copyWarm\": [{ \"bytes\": 1e6, \"bytesPerSecond\": 1e10 }],"
          "\n    " +
          std::string(kColdTwoToEight)),
      &error);
  ASSERT_TRUE(device) << error;
  const Calibration &c = *device->calibration;
  EXPECT_DOUBLE_EQ(c.coldnessAt(8388608), 1);
  EXPECT_NEAR(c.coldnessAt(2097152), 0.125, 1e-12);
  EXPECT_DOUBLE_EQ(c.coldnessAt(-1), 1);
  // A stage of 2 MiB copies 1 MB in the warm 0.1 ms plus 1/8 of the 0.9 ms
  // to the evicted time; one of 8 MiB in the evicted 1 ms; both plus 1 us.
  EXPECT_NEAR(c.copySecondsOf(1e6, 2097152), 1e-6 + 1e-4 + 0.9e-3 / 8, 1e-15);
  EXPECT_NEAR(c.copySecondsOf(1e6, 8388608), 1e-6 + 1e-3, 1e-15);
  // Without copyWarm the evicted rate holds, as the op's own price says.
  std::optional<DeviceSpec> plain = parseDeviceJson(
      calibratedWith(
          "\"copy\": [{ \"bytes\": 1e6, \"bytesPerSecond\": 1e9 }],"),
      &error);
  ASSERT_TRUE(plain) << error;
  OpWork copy = op(OpClass::Copy, 0, 1e6);
  EXPECT_NEAR(plain->calibration->copySecondsOf(1e6, 2097152),
              plain->opSeconds(copy), 1e-15);
  expectRoundTrip(*device);
}

TEST(CalibrationTest, CachedDevicesResolveByName) {
  std::string dir = ::testing::TempDir() + "calibration-cache";
  ASSERT_EQ(setenv("PIPEWAVE_CACHE_DIR", dir.c_str(), 1), 0);
  EXPECT_EQ(calibratedDeviceDir(), dir + "/devices");
  EXPECT_EQ(calibratedDevicePath("lab"), dir + "/devices/lab.json");
  std::string error;
  EXPECT_FALSE(lookupDevice("lab", error));
  EXPECT_EQ(error, "unknown device 'lab' (cpu, v100, a100, h100, h200, a "
                   "calibrated device or a .json device file)");
  std::system(("mkdir -p '" + dir + "/devices'").c_str());
  std::ofstream(calibratedDevicePath("lab")) << kCalibrated;
  std::optional<DeviceSpec> device = lookupDevice("lab", error);
  ASSERT_TRUE(device) << error;
  EXPECT_EQ(device->name, "fixed");
  EXPECT_TRUE(device->calibration);
  // Built-in names come first.
  EXPECT_FALSE(lookupDevice("cpu", error)->calibration);
  std::remove(calibratedDevicePath("lab").c_str());
  unsetenv("PIPEWAVE_CACHE_DIR");
}

} // namespace
