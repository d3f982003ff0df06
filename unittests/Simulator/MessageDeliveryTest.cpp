//===- MessageDeliveryTest.cpp - Messages that arrive while a rank computes
//===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The pointToPoint table's deliver column: the receiver's wait for a message
// that arrived while it was outside MPI. Read, interpolated and written back
// by the device file; a Recv whose message arrived while its rank was
// inside a Send or Recv of its own keeps the recv column (one whose message
// arrived while the rank computed takes deliver:
// SimulatorTest.MessagesTakeTheRanksTime).
//
//===----------------------------------------------------------------------===//

#include "CalibratedDevice.h"
#include "ProgramHelpers.h"

#include "pipewave/Simulator/Network.h"
#include "pipewave/Simulator/Simulator.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace pipewave;
using namespace pipewave::sim;
using schedule::ActionKind;
using schedule::Program;
using test::build;
using test::find;
using test::kCalibrated;

namespace {

/// kCalibrated with a two-size pointToPoint table; `deliver` adds that
/// column.
std::string withDeliveries(bool deliver) {
  std::string text = kCalibrated;
  std::string small = "{ \"bytes\": 8, \"seconds\": 2e-6, \"send\": 2e-7, "
                      "\"recv\": 1e-7";
  std::string large = "{ \"bytes\": 1e6, \"seconds\": 1e-3, \"send\": 4e-7, "
                      "\"recv\": 1e-4";
  if (deliver) {
    small += ", \"deliver\": 5e-7";
    large += ", \"deliver\": 5e-4";
  }
  text.replace(text.find("\"cores\": 2,"), 11,
               "\"cores\": 2,\n    \"pointToPoint\": [" + small + " }, " +
                   large + " }],");
  return text;
}

/// The start and end of `rank`'s action of `kind` on (stage, microbatch).
std::pair<double, double> sliceOf(const SimReport &report,
                                  const Program &program, int rank,
                                  ActionKind kind, int stage, int microbatch) {
  int index = find(program, rank, kind, stage, microbatch);
  EXPECT_GE(index, 0);
  const schedule::Slice &slice =
      report.ranks[rank].slices.at(std::max(index, 0));
  return {slice.start, slice.end};
}

} // namespace

// The column is linear in bytes between sizes like send and recv, travels
// with a transfer within the machine, and writes back; a table without it
// delivers at the recv column's cost and writes none.
TEST(MessageDeliveryTest, DeliverColumnFollowsTheTable) {
  std::string error;
  std::optional<DeviceSpec> device =
      parseDeviceJson(withDeliveries(true), &error);
  ASSERT_TRUE(device) << error;
  const Calibration &c = *device->calibration;
  EXPECT_DOUBLE_EQ(c.deliverOverheadSeconds(8), 5e-7);
  EXPECT_DOUBLE_EQ(c.deliverOverheadSeconds(8 + (1e6 - 8) / 2),
                   5e-7 + (5e-4 - 5e-7) / 2);
  EXPECT_DOUBLE_EQ(c.deliverOverheadSeconds(4e6), 5e-4);
  EXPECT_DOUBLE_EQ(c.recvOverheadSeconds(8), 1e-7);
  TransferCost within = transferCost(Cluster::of(*device, 2, 2), {0}, {1}, 8);
  EXPECT_DOUBLE_EQ(within.deliverOverhead, 5e-7);
  EXPECT_DOUBLE_EQ(within.recvOverhead, 1e-7);
  TransferCost across = transferCost(Cluster::of(*device, 2, 2), {1}, {2}, 8);
  EXPECT_DOUBLE_EQ(across.deliverOverhead, 0);
  std::string written = toJson(*device);
  EXPECT_NE(written.find("\"deliver\": 5e-07"), std::string::npos) << written;
  std::optional<DeviceSpec> again = parseDeviceJson(written, &error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(toJson(*again), written);

  std::optional<DeviceSpec> older =
      parseDeviceJson(withDeliveries(false), &error);
  ASSERT_TRUE(older) << error;
  EXPECT_DOUBLE_EQ(older->calibration->deliverOverheadSeconds(8), 1e-7);
  EXPECT_EQ(toJson(*older).find("deliver"), std::string::npos);

  std::string broken = withDeliveries(true);
  broken.replace(broken.find("\"deliver\": 5e-7"), 15, "\"deliver\": -1");
  EXPECT_FALSE(parseDeviceJson(broken, &error));
  EXPECT_NE(error.find("deliver"), std::string::npos) << error;
}

// 1F1B S=2, M=2, F=1 (0.5 on stage 1), B=2; messages take 0.75 one way and
// posting a send 2 of the sender's time. act1 arrives while rank 1 posts a
// send, inside MPI, so its Recv takes the recv column (0.125), not deliver
// (1):
//   rank 0: F0 [0, 1], send act0 [1, 3] (arrives 1.75), F1 [3, 4] (act1
//           ready at 4, arrives 4.75), waits for grad0 [4, 5], send act1
//           [5, 7], B0 [7, 9], waits for grad1 [9, 9.625], B1 [9.625,
//           11.625];
//   rank 1: F0 [1.75, 2.25], B0 [2.25, 4.25], send grad0 [4.25, 6.25]
//           (arrives 5), act1 there: recv [6.25, 6.375], F1 [6.375,
//           6.875], B1 [6.875, 8.875], send grad1 [8.875, 10.875]
//           (arrives 9.625).
TEST(MessageDeliveryTest, MessageThatArrivedInsideMpiTakesTheRecvColumn) {
  Program program = build("1f1b", 2, 2);
  CostTable costs = CostTable::uniform(2);
  costs.stages[1].forward = 0.5;
  Cluster cluster = Cluster::ideal(2);
  Calibration measured;
  measured.pointToPoint = {{8, 0.75, 2, 0.125, 1}, {1e6, 0.75, 2, 0.125, 1}};
  cluster.device.calibration = measured;
  SimReport report = simulate(program, costs, cluster);
  ASSERT_TRUE(report.error.empty()) << report.error;
  auto recvAct1 = sliceOf(report, program, 1, ActionKind::Recv, 1, 1);
  EXPECT_DOUBLE_EQ(recvAct1.first, 6.25);
  EXPECT_DOUBLE_EQ(recvAct1.second, 6.375);
  EXPECT_DOUBLE_EQ(
      sliceOf(report, program, 0, ActionKind::Backward, 0, 1).first, 9.625);
  EXPECT_DOUBLE_EQ(report.stepTime, 11.625);
}
