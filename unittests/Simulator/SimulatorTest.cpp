//===- SimulatorTest.cpp - Tests of the simulator with real costs ---------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Simulator.h"

#include "ProgramHelpers.h"

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Timeline.h"

#include "gtest/gtest.h"

#include <cmath>
#include <tuple>

using namespace pipewave;
using namespace pipewave::sim;
using schedule::ActionKind;
using schedule::Program;

namespace {

using test::build;
using test::find;

using Shape = std::tuple<std::string, int, int>;

class UnitCostTest : public ::testing::TestWithParam<Shape> {};

TEST_P(UnitCostTest, ReproducesUnitCostSimulator) {
  auto [name, stages, microbatches] = GetParam();
  Program program = build(name, stages, microbatches);
  for (auto [forward, backward] : {std::pair{1.0, 2.0}, std::pair{1.0, 1.0}}) {
    schedule::UniformCosts unit;
    unit.forward = forward;
    unit.backward = backward;
    schedule::StepTimeline expected = schedule::computeTimeline(program, unit);
    ASSERT_TRUE(expected.error.empty()) << expected.error;
    SimReport report = simulate(program, CostTable::uniform(stages, unit),
                                Cluster::ideal(stages));
    ASSERT_TRUE(report.error.empty()) << report.error;
    EXPECT_DOUBLE_EQ(report.stepTime, expected.makespan);
    EXPECT_DOUBLE_EQ(report.bubbleFraction, expected.bubbleFraction);
    double S = stages, M = microbatches;
    EXPECT_DOUBLE_EQ(report.stepTime, (M + S - 1) * (forward + backward));
    ASSERT_EQ(report.ranks.size(), expected.ranks.size());
    for (size_t r = 0; r < report.ranks.size(); ++r) {
      EXPECT_DOUBLE_EQ(report.ranks[r].busy, expected.ranks[r].busy);
      EXPECT_DOUBLE_EQ(report.ranks[r].finish, expected.ranks[r].finish);
      EXPECT_EQ(report.ranks[r].peakInFlight, expected.ranks[r].peakInFlight);
      ASSERT_EQ(report.ranks[r].slices.size(), expected.ranks[r].slices.size());
      for (size_t i = 0; i < report.ranks[r].slices.size(); ++i) {
        EXPECT_DOUBLE_EQ(report.ranks[r].slices[i].start,
                         expected.ranks[r].slices[i].start);
        EXPECT_DOUBLE_EQ(report.ranks[r].slices[i].end,
                         expected.ranks[r].slices[i].end);
      }
    }
    EXPECT_TRUE(report.fits);
  }
}

INSTANTIATE_TEST_SUITE_P(Schedules, UnitCostTest,
                         ::testing::Combine(::testing::Values("gpipe", "1f1b"),
                                            ::testing::Values(2, 4, 8),
                                            ::testing::Values(8, 16, 32)),
                         [](const ::testing::TestParamInfo<Shape> &info) {
                           return std::get<0>(info.param) + "_S" +
                                  std::to_string(std::get<1>(info.param)) +
                                  "_M" +
                                  std::to_string(std::get<2>(info.param));
                         });

/// Two devices on one node whose link has `latency` and `bandwidth`.
Cluster link(double latency, double bandwidth) {
  Cluster cluster = Cluster::ideal(2);
  cluster.intraNode = {bandwidth, latency};
  return cluster;
}

TEST(SimulatorTest, LatencyShiftsTwoStageGPipe) {
  // GPipe S=2 with F=1, B=2 and a latency L on every message: stage 1's
  // forwards start L later, and the gradients reach stage 0 another L later,
  // so the step is (M+S-1)(F+B) + 2L for every M.
  const double latency = 0.25;
  for (int microbatches : {1, 2, 4, 8}) {
    Program program = build("gpipe", 2, microbatches);
    SimReport report =
        simulate(program, CostTable::uniform(2), link(latency, INFINITY));
    ASSERT_TRUE(report.error.empty()) << report.error;
    EXPECT_DOUBLE_EQ(report.stepTime, 3.0 * (microbatches + 1) + 2 * latency)
        << "M = " << microbatches;
    EXPECT_DOUBLE_EQ(report.bubbleFraction,
                     1 - 2 * 3.0 * microbatches / (2 * report.stepTime));
  }
}

TEST(SimulatorTest, LatencyShiftsTwoStage1F1B) {
  // 1F1B S=2, M=2: stage 0 runs F0 [0,1], F1 [1,2]; stage 1 runs F0
  // [1+L,2+L], B0 [2+L,4+L], F1 [4+L,5+L], B1 [5+L,7+L]; stage 0 gets the
  // gradients at 4+2L and 7+2L: B0 [4+2L,6+2L], B1 [7+2L,9+2L].
  const double L = 0.25;
  Program program = build("1f1b", 2, 2);
  SimReport report =
      simulate(program, CostTable::uniform(2), link(L, INFINITY));
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_DOUBLE_EQ(report.stepTime, 9 + 2 * L);
  int b0 = find(program, 0, ActionKind::Backward, 0, 0);
  EXPECT_DOUBLE_EQ(report.ranks[0].slices[b0].start, 4 + 2 * L);
  int f1 = find(program, 1, ActionKind::Forward, 1, 1);
  EXPECT_DOUBLE_EQ(report.ranks[1].slices[f1].start, 4 + L);
}

TEST(SimulatorTest, StepAgreementHoldsTheUpdatesForEveryRank) {
  // 1F1B S=2, M=2 as above (F=1, B=2, latency L), each stage's optimizer
  // 0.5. Without the agreement stage 1 updates right after its last B
  // ([7+L, 7.5+L]) and the step ends with stage 0's, [9+2L, 9.5+2L]. With
  // it, both wait until every rank is done and every message arrived
  // (9+2L), then for an all-reduce of 8 B over both devices (2 latencies on
  // the infinitely fast link): the updates run [9+4L, 9.5+4L].
  const double L = 0.25;
  Program program = build("1f1b", 2, 2);
  CostTable costs = CostTable::uniform(2);
  for (StageCosts &stage : costs.stages)
    stage.optimizer = 0.5;
  SimReport plain = simulate(program, costs, link(L, INFINITY));
  ASSERT_TRUE(plain.error.empty()) << plain.error;
  int opt = find(program, 1, ActionKind::OptimizerStep, 1, -1);
  ASSERT_GE(opt, 0);
  EXPECT_DOUBLE_EQ(plain.ranks[1].slices[opt].start, 7 + L);
  EXPECT_DOUBLE_EQ(plain.stepTime, 9.5 + 2 * L);

  costs.stepAgreement = true;
  SimReport agreed = simulate(program, costs, link(L, INFINITY));
  ASSERT_TRUE(agreed.error.empty()) << agreed.error;
  EXPECT_DOUBLE_EQ(agreed.ranks[1].slices[opt].start, 9 + 4 * L);
  int opt0 = find(program, 0, ActionKind::OptimizerStep, 0, -1);
  ASSERT_GE(opt0, 0);
  EXPECT_DOUBLE_EQ(agreed.ranks[0].slices[opt0].start, 9 + 4 * L);
  EXPECT_DOUBLE_EQ(agreed.stepTime, 9.5 + 4 * L);

  // Each rank scans its gradients before it joins the all-reduce: stage 0's
  // rank, the last there (9 + 2L), scans for 0.75, so the all-reduce starts
  // at 9.75 + 2L. With stage 1's rank scanning for 3.5 it starts when that
  // scan ends, 7 + L + 3.5 (later than 9.75 + 2L): updates from 10.5 + 3L.
  costs.stages[0].checkSeconds = 0.75;
  SimReport scanned = simulate(program, costs, link(L, INFINITY));
  ASSERT_TRUE(scanned.error.empty()) << scanned.error;
  EXPECT_DOUBLE_EQ(scanned.ranks[0].slices[opt0].start, 9.75 + 4 * L);
  costs.stages[1].checkSeconds = 3.5;
  scanned = simulate(program, costs, link(L, INFINITY));
  ASSERT_TRUE(scanned.error.empty()) << scanned.error;
  EXPECT_DOUBLE_EQ(scanned.ranks[1].slices[opt].start, 10.5 + 3 * L);
  EXPECT_DOUBLE_EQ(scanned.ranks[0].slices[opt0].start, 10.5 + 3 * L);

  // After the updates (the CPU runtime, whose updates check the gradients
  // they read): the updates start where they do without the agreement, no
  // scan counts, and the all-reduce starts when the last rank is done
  // (stage 0's update ends at 9.5 + 2L) and ends 2L later.
  costs.agreementAfterUpdates = true;
  SimReport after = simulate(program, costs, link(L, INFINITY));
  ASSERT_TRUE(after.error.empty()) << after.error;
  EXPECT_DOUBLE_EQ(after.ranks[1].slices[opt].start, 7 + L);
  EXPECT_DOUBLE_EQ(after.ranks[0].slices[opt0].start,
                   plain.ranks[0].slices[opt0].start);
  EXPECT_DOUBLE_EQ(after.stepTime, 9.5 + 4 * L);
  EXPECT_DOUBLE_EQ(after.ranks[1].finish, 9.5 + 4 * L);
  costs.agreementAfterUpdates = false;
  costs.stages[0].checkSeconds = costs.stages[1].checkSeconds = 0;

  // A forward-only program has no updates and no agreement.
  schedule::BuildResult inference = schedule::buildGPipe(2, 2, true);
  ASSERT_TRUE(inference) << inference.error;
  SimReport forward = simulate(*inference.program, costs, link(L, INFINITY));
  ASSERT_TRUE(forward.error.empty()) << forward.error;
  EXPECT_DOUBLE_EQ(forward.stepTime, 3 + L);
}

TEST(SimulatorTest, MessagesQueueOnTheirLink) {
  // GPipe S=2, M=2, F=1, B=2; every message occupies the link for 1.5 and
  // then takes 0.25: act0 leaves [1,2.5] and arrives 2.75; act1 is ready at
  // 2 but waits for the link: [2.5,4], arrives 4.25. Stage 1: F0
  // [2.75,3.75], F1 [4.25,5.25], B0 [5.25,7.25], B1 [7.25,9.25]; grad0
  // arrives 9, grad1 11: stage 0 runs B0 [9,11], B1 [11,13].
  Program program = build("gpipe", 2, 2);
  CostTable costs = CostTable::uniform(2);
  costs.stages[0].activationBytes = 1.5e9;
  SimReport report = simulate(program, costs, link(0.25, 1e9));
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_DOUBLE_EQ(report.stepTime, 13);
  ASSERT_EQ(report.messages.size(), 4u);
  const MessageReport &act1 = report.messages[1];
  EXPECT_EQ(act1.payload, schedule::Payload::Activation);
  EXPECT_EQ(act1.microbatch, 1);
  EXPECT_DOUBLE_EQ(act1.ready, 2);
  EXPECT_DOUBLE_EQ(act1.start, 2.5);
  EXPECT_DOUBLE_EQ(act1.end, 4);
  EXPECT_DOUBLE_EQ(act1.arrival, 4.25);
  EXPECT_EQ(act1.recvIndex, find(program, 1, ActionKind::Recv, 1, 1));
  int f1 = find(program, 1, ActionKind::Forward, 1, 1);
  EXPECT_DOUBLE_EQ(report.ranks[1].slices[f1].start, 4.25);
  int b1 = find(program, 0, ActionKind::Backward, 0, 1);
  EXPECT_DOUBLE_EQ(report.ranks[0].slices[b1].start, 11);
}

TEST(SimulatorTest, RendezvousWaitsForTheReceiver) {
  // GPipe S=2, M=2, F=1, B=2 on a calibrated machine whose messages take
  // 0.125 up to 4032 B and 0.625 at 5120 B (eager limit 4032 B): a 5120 B
  // message moves once the receiver is inside MPI after the send, and then
  // still takes 0.625 - 0.125 = 0.5. act0 leaves at 1 while stage 1 waits
  // for it: it arrives at 1.625, F0 [1.625, 2.625]. act1 leaves at 2 while
  // stage 1 computes; its Recv at 2.625 ends at 3.125 (eagerly, 2.625):
  // F1 [3.125, 4.125], B0 [4.125, 6.125], B1 [6.125, 8.125]. grad0 leaves
  // at 6.125 while stage 0 waits (since 2): it arrives at 6.75, B0
  // [6.75, 8.75]. grad1 left at 8.125 while stage 0 computed: its Recv at
  // 8.75 ends at 9.25, B1 [9.25, 11.25].
  Program program = build("gpipe", 2, 2);
  CostTable costs = CostTable::uniform(2);
  costs.stages[0].activationBytes = 5120;
  Cluster cluster = Cluster::ideal(2);
  Calibration measured;
  measured.pointToPoint = {
      {8, 0.125}, {4032, 0.125}, {4160, 0.5}, {5120, 0.625}, {1e6, 10}};
  cluster.device.calibration = measured;
  SimReport report = simulate(program, costs, cluster);
  ASSERT_TRUE(report.error.empty()) << report.error;
  ASSERT_EQ(report.messages.size(), 4u);
  for (const MessageReport &message : report.messages)
    EXPECT_DOUBLE_EQ(message.handshake, 0.5);
  int f1 = find(program, 1, ActionKind::Forward, 1, 1);
  EXPECT_DOUBLE_EQ(report.ranks[1].slices[f1].start, 3.125);
  int b0 = find(program, 0, ActionKind::Backward, 0, 0);
  EXPECT_DOUBLE_EQ(report.ranks[0].slices[b0].start, 6.75);
  int b1 = find(program, 0, ActionKind::Backward, 0, 1);
  EXPECT_DOUBLE_EQ(report.ranks[0].slices[b1].start, 9.25);
  EXPECT_DOUBLE_EQ(report.stepTime, 11.25);

  // Below the eager limit a message waits for no one: act1 is there when
  // stage 1 asks for it (F1 [2.125, 3.125]), and the step is
  // (M + S - 1)(F + B) plus two one-way times: 9.25.
  costs.stages[0].activationBytes = 4000;
  SimReport eager = simulate(program, costs, cluster);
  ASSERT_TRUE(eager.error.empty()) << eager.error;
  for (const MessageReport &message : eager.messages)
    EXPECT_DOUBLE_EQ(message.handshake, 0);
  EXPECT_DOUBLE_EQ(eager.ranks[1].slices[f1].start, 2.125);
  EXPECT_DOUBLE_EQ(eager.stepTime, 9.25);
}

TEST(SimulatorTest, MessagesTakeTheRanksTime) {
  // GPipe S=2, M=2, F=1 (2 on stage 1), B=2 on a calibrated machine whose
  // messages take 0.5 one way, of which posting the send is 0.25 of the
  // sender's time and completing the receive 0.125 of the receiver's. A
  // Send takes its rank's clock on by 0.25; a Recv whose message is there
  // ends 0.125 after it starts, one that waits at the arrival.
  //   rank 0: F0 [0, 1], send act0 [1, 1.25] (arrives 1.5), F1 [1.25, 2.25],
  //           send act1 [2.25, 2.5] (arrives 2.75);
  //   rank 1: recv act0 waits: F0 [1.5, 3.5]; act1 is there: its Recv ends
  //           at 3.625, F1 [3.625, 5.625], B0 [5.625, 7.625], send grad0
  //           [7.625, 7.875] (arrives 8.125), B1 [7.875, 9.875], send
  //           grad1 [9.875, 10.125] (arrives 10.375);
  //   rank 0: B0 [8.125, 10.125], B1 [10.375, 12.375].
  Program program = build("gpipe", 2, 2);
  CostTable costs = CostTable::uniform(2);
  costs.stages[1].forward = 2;
  costs.stages[0].activationBytes = 4000;
  Cluster cluster = Cluster::ideal(2);
  Calibration measured;
  measured.pointToPoint = {{8, 0.5, 0.25, 0.125}, {1e6, 0.5, 0.25, 0.125}};
  cluster.device.calibration = measured;
  SimReport report = simulate(program, costs, cluster);
  ASSERT_TRUE(report.error.empty()) << report.error;
  auto slice = [&](int rank, ActionKind kind, int stage, int microbatch) {
    int index = find(program, rank, kind, stage, microbatch);
    EXPECT_GE(index, 0);
    return report.ranks[rank].slices.at(std::max(index, 0));
  };
  const schedule::Slice &send0 = slice(0, ActionKind::Send, 0, 0);
  EXPECT_DOUBLE_EQ(send0.start, 1);
  EXPECT_DOUBLE_EQ(send0.end, 1.25);
  EXPECT_DOUBLE_EQ(slice(0, ActionKind::Forward, 0, 1).start, 1.25);
  EXPECT_DOUBLE_EQ(slice(1, ActionKind::Forward, 1, 0).start, 1.5);
  const schedule::Slice &recv1 = slice(1, ActionKind::Recv, 1, 1);
  EXPECT_DOUBLE_EQ(recv1.start, 3.5);
  EXPECT_DOUBLE_EQ(recv1.end, 3.625);
  EXPECT_DOUBLE_EQ(slice(1, ActionKind::Forward, 1, 1).start, 3.625);
  EXPECT_DOUBLE_EQ(slice(0, ActionKind::Backward, 0, 0).start, 8.125);
  EXPECT_DOUBLE_EQ(slice(0, ActionKind::Backward, 0, 1).start, 10.375);
  EXPECT_DOUBLE_EQ(report.stepTime, 12.375);
  for (const MessageReport &message : report.messages)
    EXPECT_DOUBLE_EQ(message.recvOverhead, 0.125);

  // Without the overheads the same one-way times give 12: act1 is there
  // when rank 1 asks for it at 3.5 (F1 [3.5, 5.5], B0 [5.5, 7.5], B1
  // [7.5, 9.5]), and rank 0's B0 [8, 10], B1 [10, 12].
  measured.pointToPoint = {{8, 0.5}, {1e6, 0.5}};
  cluster.device.calibration = measured;
  SimReport free = simulate(program, costs, cluster);
  ASSERT_TRUE(free.error.empty()) << free.error;
  EXPECT_DOUBLE_EQ(free.stepTime, 12);

  // With a deliver column of 0.375 (the receiver's wait for a message that
  // arrived while it computed): act1 arrived at 2.75 while rank 1 ran F0
  // [1.5, 3.5], so its Recv ends at 3.875, and everything after it 0.25
  // later than with recv: F1 [3.875, 5.875], ..., send grad1 [10.125,
  // 10.375] (arrives 10.625), rank 0's B1 [10.625, 12.625].
  measured.pointToPoint = {{8, 0.5, 0.25, 0.125, 0.375},
                           {1e6, 0.5, 0.25, 0.125, 0.375}};
  cluster.device.calibration = measured;
  SimReport delivered = simulate(program, costs, cluster);
  ASSERT_TRUE(delivered.error.empty()) << delivered.error;
  int recv = find(program, 1, ActionKind::Recv, 1, 1);
  ASSERT_GE(recv, 0);
  EXPECT_DOUBLE_EQ(delivered.ranks[1].slices.at(recv).start, 3.5);
  EXPECT_DOUBLE_EQ(delivered.ranks[1].slices.at(recv).end, 3.875);
  EXPECT_DOUBLE_EQ(delivered.stepTime, 12.625);
  for (const MessageReport &message : delivered.messages)
    EXPECT_DOUBLE_EQ(message.deliverOverhead, 0.375);
}

TEST(SimulatorTest, MemoryBreakdown) {
  // 1F1B S=2, M=4: stage 0 stashes at most 2 microbatches, stage 1 one.
  Program program = build("1f1b", 2, 4);
  CostTable costs = CostTable::uniform(2);
  costs.stages[0].parameterBytes = 100;
  costs.stages[0].stashBytes = 10;
  costs.stages[1].parameterBytes = 50;
  costs.stages[1].stashBytes = 20;
  costs.gradientFactor = 1;
  costs.optimizerStateFactor = 2;
  Cluster cluster = Cluster::ideal(2);
  cluster.memoryBytes = 400;
  SimReport report = simulate(program, costs, cluster);
  ASSERT_TRUE(report.error.empty()) << report.error;
  const MemoryBreakdown &first = report.ranks[0].peakMemory;
  EXPECT_EQ(first.weights, 100);
  EXPECT_EQ(first.gradients, 100);
  EXPECT_EQ(first.optimizer, 200);
  EXPECT_EQ(first.stash, 20);
  EXPECT_EQ(first.buffers, 0);
  EXPECT_EQ(first.total(), 420);
  EXPECT_FALSE(report.ranks[0].fits);
  const MemoryBreakdown &second = report.ranks[1].peakMemory;
  EXPECT_EQ(second.total(), 50 + 50 + 100 + 20);
  EXPECT_TRUE(report.ranks[1].fits);
  EXPECT_FALSE(report.fits);
  EXPECT_EQ(report.memoryCapacity, 400);
}

TEST(SimulatorTest, CommunicationBuffers) {
  // GPipe S=2, M=1, 8-byte messages over a 4 B/s link: each message is held
  // by its sender while on the link and by its receiver from when it starts
  // arriving until the Recv ends, 8 bytes at a time. F0 [0,1], act [1,3],
  // F1 [3,4], B1 [4,6], grad [6,8], B0 [8,10].
  Program program = build("gpipe", 2, 1);
  CostTable costs = CostTable::uniform(2);
  costs.stages[0].activationBytes = 8;
  SimReport report = simulate(program, costs, link(0, 4));
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_DOUBLE_EQ(report.stepTime, 10);
  EXPECT_EQ(report.ranks[0].peakMemory.buffers, 8);
  EXPECT_EQ(report.ranks[1].peakMemory.buffers, 8);
  ASSERT_EQ(report.messages.size(), 2u);
  EXPECT_EQ(report.messages[1].bytes, 8);
  EXPECT_DOUBLE_EQ(report.messages[1].arrival, 8);
}

TEST(SimulatorTest, DataParallelRankAllReducesBeforeItsOptimizer) {
  // Stage 0 on two devices of one node, stage 1 on one: 1F1B S=2, M=2 ends
  // at 9 (unit costs), then stage 0 all-reduces 1 GB at 1 GB/s:
  // 2 (2-1)/2 * 1e9 / 1e9 = 1 s, then its optimizer step (0.5).
  Program program = build("1f1b", 2, 2);
  CostTable costs = CostTable::uniform(2);
  costs.stages[0].parameterBytes = 1e9;
  costs.stages[0].optimizer = 0.5;
  Cluster cluster = Cluster::ideal(4);
  cluster.intraNode = {1e9, 0};
  Placement placement;
  placement.devices = {{0, 1}, {2}};
  SimReport report = simulate(program, costs, cluster, placement);
  ASSERT_TRUE(report.error.empty()) << report.error;
  ASSERT_EQ(report.ranks[0].allReduces.size(), 1u);
  EXPECT_DOUBLE_EQ(report.ranks[0].allReduces[0].start, 9);
  EXPECT_DOUBLE_EQ(report.ranks[0].allReduces[0].end, 10);
  EXPECT_DOUBLE_EQ(report.stepTime, 10.5);
  EXPECT_TRUE(report.ranks[1].allReduces.empty());

  // Across two nodes the all-reduce uses the inter-node link.
  cluster.devicesPerNode = 2;
  cluster.nodes = 2;
  cluster.interNode = {0.5e9, 0};
  placement.devices = {{0, 2}, {3}};
  report = simulate(program, costs, cluster, placement);
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_DOUBLE_EQ(report.ranks[0].allReduces[0].end, 11);
}

TEST(SimulatorTest, ExplicitAllReduceUsesParameterBytes) {
  // One stage replicated on two ranks: F, B per microbatch, then an explicit
  // all-reduce of 2e9 bytes at 1e9 B/s (2 s), then the optimizer.
  Program program;
  program.numStages = 1;
  program.numMicrobatches = 2;
  program.schedule = "test";
  for (int r = 0; r < 2; ++r) {
    schedule::RankProgram rank{r, {0}, {}};
    for (int m = 0; m < 2; ++m)
      for (ActionKind kind : {ActionKind::Forward, ActionKind::Backward}) {
        schedule::Action action{kind};
        action.stage = 0;
        action.microbatch = m;
        rank.actions.push_back(action);
      }
    schedule::Action allReduce{ActionKind::AllReduce};
    allReduce.stage = 0;
    allReduce.group = {0, 1};
    rank.actions.push_back(allReduce);
    schedule::Action optimizer{ActionKind::OptimizerStep};
    optimizer.stage = 0;
    rank.actions.push_back(optimizer);
    program.ranks.push_back(rank);
  }
  CostTable costs = CostTable::uniform(1);
  costs.stages[0].parameterBytes = 2e9;
  Cluster cluster = Cluster::ideal(2);
  cluster.intraNode = {1e9, 0};
  SimReport report = simulate(program, costs, cluster);
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_DOUBLE_EQ(report.ranks[0].slices[4].start, 6);
  EXPECT_DOUBLE_EQ(report.ranks[0].slices[4].end, 8);
  EXPECT_DOUBLE_EQ(report.stepTime, 8);
  EXPECT_TRUE(report.ranks[0].allReduces.empty());
}

TEST(SimulatorTest, RejectsMismatchedInputs) {
  Program program = build("1f1b", 4, 4);
  SimReport report =
      simulate(program, CostTable::uniform(2), Cluster::ideal(4));
  EXPECT_NE(report.error.find("cost table"), std::string::npos) << report.error;
  report = simulate(program, CostTable::uniform(4), Cluster::ideal(2));
  EXPECT_NE(report.error.find("not in the cluster"), std::string::npos)
      << report.error;
  Placement placement = Placement::onePerRank(3);
  report =
      simulate(program, CostTable::uniform(4), Cluster::ideal(4), placement);
  EXPECT_NE(report.error.find("placement"), std::string::npos) << report.error;
  program.ranks[0].actions.erase(program.ranks[0].actions.begin());
  report = simulate(program, CostTable::uniform(4), Cluster::ideal(4));
  EXPECT_NE(report.error.find("invalid program"), std::string::npos)
      << report.error;
}

} // namespace
