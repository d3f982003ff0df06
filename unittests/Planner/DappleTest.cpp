//===- DappleTest.cpp - Tests of the DAPPLE-style planner -----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Planner/Dapple.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace pipewave;
using namespace pipewave::planner;

namespace {

const std::string dataDir = PIPEWAVE_DATA_DIR;

/// `count` identical layers measured at batch 1.
ModelProfile uniformModel(int count, double forward, double backward,
                          double activationBytes, double parameterBytes) {
  std::vector<LayerProfile> layers;
  for (int i = 0; i < count; ++i)
    layers.push_back({"layer" + std::to_string(i), forward, backward,
                      activationBytes, parameterBytes});
  return makeChainProfile("uniform", 1, layers);
}

/// devicesPerNode x nodes devices with free communication, no optimizer
/// time and unlimited memory.
PlannerOptions freeOptions(int devicesPerNode, int nodes, int globalBatch) {
  PlannerOptions options;
  options.globalBatch = globalBatch;
  options.cluster = sim::Cluster::ideal(1);
  options.cluster.devicesPerNode = devicesPerNode;
  options.cluster.nodes = nodes;
  return options;
}

void expectWithinMemory(const Plan &plan, const PlannerOptions &options,
                        const ModelProfile &profile) {
  EXPECT_TRUE(plan.fits);
  EXPECT_LE(plan.peakMemoryBytes, options.cluster.memoryBytes);
  for (const StagePlan &stage : plan.stages)
    EXPECT_LE(stage.memory.total(), options.cluster.memoryBytes);
  sim::SimReport report = simulatePlan(profile, options, plan);
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_TRUE(report.fits);
  for (const sim::RankReport &rank : report.ranks)
    EXPECT_LE(rank.peakMemory.total(), options.cluster.memoryBytes);
}

TEST(DappleTest, FreeNetworkPrefersPureDataParallelism) {
  // With free communication and time linear in the batch, every replica
  // count divides the work perfectly and pipelines only add bubbles.
  ModelProfile model = uniformModel(8, 1e-3, 2e-3, 1e6, 1e6);
  PlannerOptions options = freeOptions(8, 1, 64);
  PlanResult result = planDapple(model, options);
  ASSERT_TRUE(result.best) << result.error;
  const Plan &plan = *result.best;
  ASSERT_EQ(plan.numStages(), 1);
  EXPECT_EQ(plan.stages[0].replicas(), 8);
  // 64 samples of 8 layers x 3 ms on 8 devices.
  EXPECT_NEAR(plan.stepSeconds(), 64 * 8 * 3e-3 / 8, 1e-12);
  EXPECT_NEAR(result.speedupOverDataParallel, 1, 1e-9);
  EXPECT_NEAR(result.speedupOverSingleDevice, 8, 1e-9);
}

TEST(DappleTest, HeavyParametersAndLightActivationsPreferPipelining) {
  // 4 GB of parameters per layer over 10 GB/s links: all-reducing them
  // costs far more than the compute, while the activations are tiny.
  ModelProfile model = uniformModel(4, 1e-3, 2e-3, 1e3, 4e9);
  PlannerOptions options = freeOptions(4, 1, 64);
  options.cluster.intraNode = {10e9, 5e-6};
  PlanResult result = planDapple(model, options);
  ASSERT_TRUE(result.best) << result.error;
  const Plan &plan = *result.best;
  ASSERT_EQ(plan.numStages(), 4);
  for (const StagePlan &stage : plan.stages) {
    EXPECT_EQ(stage.replicas(), 1);
    EXPECT_EQ(stage.allReduceSeconds, 0);
  }
  EXPECT_GT(result.speedupOverDataParallel, 2);
  ASSERT_TRUE(result.dataParallel.fits);
}

TEST(DappleTest, MemoryLimitForcesMoreStages) {
  // Each layer needs 4 GB (weights, gradients, Adam's two moments); 10 GB
  // per device holds at most two layers, so at least 4 stages, although the
  // free network would otherwise make pure data parallelism best.
  ModelProfile model = uniformModel(8, 1e-3, 2e-3, 1e6, 1e9);
  PlannerOptions options = freeOptions(8, 1, 64);
  options.cluster.memoryBytes = 10e9;
  PlanResult result = planDapple(model, options);
  ASSERT_TRUE(result.best) << result.error;
  const Plan &plan = *result.best;
  EXPECT_GE(plan.numStages(), 4);
  for (const StagePlan &stage : plan.stages)
    EXPECT_LE(stage.endLayer - stage.firstLayer, 2);
  expectWithinMemory(plan, options, model);
  EXPECT_FALSE(result.singleDevice.fits);
  EXPECT_FALSE(result.dataParallel.fits);
  EXPECT_EQ(result.speedupOverSingleDevice, 0);
  EXPECT_EQ(result.speedupOverDataParallel, 0);
  for (const Plan &candidate : result.candidates) {
    if (candidate.simulatedSeconds > 0) {
      EXPECT_LE(candidate.peakMemoryBytes, options.cluster.memoryBytes);
    }
  }
}

TEST(DappleTest, ReportsWhenNothingFits) {
  ModelProfile model = uniformModel(4, 1e-3, 2e-3, 1e6, 1e9);
  PlannerOptions options = freeOptions(4, 1, 16);
  options.cluster.memoryBytes = 1e9; // less than one layer's 4 GB
  PlanResult result = planDapple(model, options);
  EXPECT_FALSE(result.best);
  EXPECT_NE(result.error.find("no plan fits"), std::string::npos)
      << result.error;
}

TEST(DappleTest, LatencyModelMatchesSimulationOfUniformPipeline) {
  // 4 stages of 2 layers with free communication: 1F1B takes
  // (M + S - 1)(F + B) in both the latency model and the simulation.
  ModelProfile model = uniformModel(8, 1e-3, 2e-3, 1e6, 1e6);
  PlannerOptions options = freeOptions(4, 1, 32);
  for (int microbatches : {1, 4, 8, 32}) {
    std::string error;
    std::optional<Plan> plan =
        makePlan(model, options, PlacementPolicy::AppendFirst, microbatches,
                 {{2, 1}, {4, 1}, {6, 1}, {8, 1}}, &error);
    ASSERT_TRUE(plan) << error;
    double samples = 32.0 / microbatches;
    double perStage = 2 * 3e-3 * samples;
    double expected = (microbatches + 3) * perStage;
    EXPECT_NEAR(plan->estimatedSeconds, expected, 1e-12);
    EXPECT_NEAR(plan->warmupSeconds + plan->steadySeconds + plan->endingSeconds,
                expected, 1e-12);
    sim::SimReport report = simulatePlan(model, options, *plan);
    ASSERT_TRUE(report.error.empty()) << report.error;
    EXPECT_NEAR(report.stepTime, expected, 1e-12);
  }
}

TEST(DappleTest, LatencyModelCountsCommunication) {
  // Two 1-layer stages (F = 1 s, B = 2 s), M = 2 and a 0.5 s message
  // latency: 1F1B takes (M + S - 1)(F + B) + 2 * 0.5 = 10 s, with stage 0
  // as the pivot: P_0 = (M-1)(F+B) + F + B + 2C + F + B.
  ModelProfile model = uniformModel(2, 1, 2, 0, 0);
  PlannerOptions options = freeOptions(2, 1, 2);
  options.cluster.intraNode = {INFINITY, 0.5};
  std::optional<Plan> plan = makePlan(
      model, options, PlacementPolicy::AppendFirst, 2, {{1, 1}, {2, 1}});
  ASSERT_TRUE(plan);
  EXPECT_DOUBLE_EQ(plan->stages[0].sendSeconds, 0.5);
  EXPECT_DOUBLE_EQ(plan->estimatedSeconds, 10);
  EXPECT_EQ(plan->pivotStage, 0);
  sim::SimReport report = simulatePlan(model, options, *plan);
  ASSERT_TRUE(report.error.empty()) << report.error;
  EXPECT_DOUBLE_EQ(report.stepTime, 10);
}

TEST(DappleTest, PlacementPolicies) {
  ModelProfile model = uniformModel(4, 1e-3, 2e-3, 1e6, 1e6);
  PlannerOptions options = freeOptions(8, 2, 64);
  auto devicesOf = [&](PlacementPolicy policy) {
    std::string error;
    std::optional<Plan> plan =
        makePlan(model, options, policy, 8, {{2, 3}, {4, 6}}, &error);
    EXPECT_TRUE(plan) << error;
    std::vector<std::vector<int>> devices;
    if (plan)
      for (const StagePlan &stage : plan->stages)
        devices.push_back(stage.devices);
    return devices;
  };
  // Stages are placed from the last: append-first packs positions 10-15
  // and 7-9 (straddling the two nodes).
  EXPECT_EQ(
      devicesOf(PlacementPolicy::AppendFirst),
      (std::vector<std::vector<int>>{{7, 8, 9}, {10, 11, 12, 13, 14, 15}}));
  // Fresh-first keeps the 3 replicas on one node, leaving devices 8 and 9
  // idle.
  EXPECT_EQ(
      devicesOf(PlacementPolicy::FreshFirst),
      (std::vector<std::vector<int>>{{5, 6, 7}, {10, 11, 12, 13, 14, 15}}));
  // Scatter-first alternates nodes: order 0, 8, 1, 9, 2, 10, ...
  EXPECT_EQ(deviceOrder(PlacementPolicy::ScatterFirst, options.cluster)[3], 9);
  EXPECT_EQ(
      devicesOf(PlacementPolicy::ScatterFirst),
      (std::vector<std::vector<int>>{{4, 11, 12}, {5, 6, 7, 13, 14, 15}}));
  EXPECT_EQ(parsePlacementPolicy("scatter"), PlacementPolicy::ScatterFirst);
  EXPECT_EQ(parsePlacementPolicy("fresh-first"), PlacementPolicy::FreshFirst);
  EXPECT_FALSE(parsePlacementPolicy("random"));
}

TEST(DappleTest, MakePlanRejectsInvalidLayouts) {
  ModelProfile model = uniformModel(4, 1e-3, 2e-3, 1e6, 1e6);
  PlannerOptions options = freeOptions(4, 1, 16);
  std::string error;
  EXPECT_FALSE(makePlan(model, options, PlacementPolicy::AppendFirst, 3,
                        {{4, 1}}, &error));
  EXPECT_NE(error.find("divide"), std::string::npos) << error;
  EXPECT_FALSE(makePlan(model, options, PlacementPolicy::AppendFirst, 8,
                        {{4, 4}}, &error));
  EXPECT_NE(error.find("replicas"), std::string::npos) << error;
  EXPECT_FALSE(makePlan(model, options, PlacementPolicy::AppendFirst, 1,
                        {{2, 4}, {4, 2}}, &error));
  EXPECT_NE(error.find("devices"), std::string::npos) << error;
  EXPECT_FALSE(makePlan(model, options, PlacementPolicy::AppendFirst, 1,
                        {{2, 1}, {3, 1}}, &error));
  EXPECT_NE(error.find("cover"), std::string::npos) << error;
}

TEST(DappleTest, PlansTheDappleProfilesOnTwoV100Nodes) {
  for (const char *name :
       {"bert-24-pbs-6", "gnmt-16-pbs-64", "vgg-19-pbs-32"}) {
    SCOPED_TRACE(name);
    std::string error;
    std::optional<ModelProfile> profile = loadPipeDreamProfile(
        dataDir + "/dapple-profiles/" + name + ".txt", 0, &error);
    ASSERT_TRUE(profile) << error;
    PlannerOptions options;
    options.globalBatch = 128;
    options.cluster = sim::Cluster::of(*sim::findDevice("v100"), 8, 2);
    options.cluster.memoryBytes = 16.0 * (1 << 30);
    PlanResult result = planDapple(*profile, options);
    ASSERT_TRUE(result.best) << result.error;
    EXPECT_LT(result.planningSeconds, 10);
    const Plan &plan = *result.best;
    EXPECT_LE(plan.devicesUsed(), 16);
    EXPECT_GT(plan.simulatedSeconds, 0);
    expectWithinMemory(plan, options, *profile);
    // Stages cover the layers in order.
    int next = 0;
    for (const StagePlan &stage : plan.stages) {
      EXPECT_EQ(stage.firstLayer, next);
      next = stage.endLayer;
    }
    EXPECT_EQ(next, profile->numLayers());
    // The plan beats (or matches) plain data parallelism and one device.
    ASSERT_TRUE(result.dataParallel.fits);
    EXPECT_GE(result.speedupOverDataParallel, 1 - 1e-9);
    EXPECT_GT(result.speedupOverSingleDevice, 4);
    // Tighter memory is still respected.
    options.cluster.memoryBytes = 3e9;
    PlanResult tight = planDapple(*profile, options);
    if (tight.best)
      expectWithinMemory(*tight.best, options, *profile);
  }
}

} // namespace
