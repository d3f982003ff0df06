//===- DappleModel.cpp - Stage costs and memory of DAPPLE plans -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "DappleModel.h"

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Simulator/Network.h"

#include <algorithm>

namespace pipewave::planner {

using sim::MemoryBreakdown;
using namespace detail;

int Plan::devicesUsed() const {
  int total = 0;
  for (const StagePlan &stage : stages)
    total += stage.replicas();
  return total;
}

namespace {

MemoryBreakdown stageMemory(const Layers &layers, const PlannerOptions &options,
                            int h, int i, int samples, int microbatchSize,
                            int replicas, int inFlight) {
  MemoryBreakdown memory;
  memory.weights = layers.paramsOf(h, i);
  memory.gradients = options.gradientFactor * memory.weights;
  memory.optimizer = options.optimizerStateFactor * memory.weights;
  memory.stash = inFlight * stashPerMicrobatch(layers, options, h, i, samples);
  // An activation and a gradient buffer on each side, this device's share.
  memory.buffers = 2 * (layers.cutIn(h) + layers.cutOut(i)) * microbatchSize /
                   layers.profile.profileBatch / replicas;
  return memory;
}

double optimizerSeconds(const PlannerOptions &options, double params) {
  double bandwidth = options.cluster.device.memoryBytesPerSecond;
  return bandwidth > 0 ? params * options.optimizerTrafficFactor / bandwidth
                       : 0;
}

} // namespace

namespace detail {

/// Stash bytes per microbatch per device of a stage [h, i).
double stashPerMicrobatch(const Layers &layers, const PlannerOptions &options,
                          int h, int i, int samples) {
  return (layers.outputsOf(h, i) + layers.cutIn(h)) * samples /
         layers.profile.profileBatch * options.activationFactor;
}

/// Costs every stage of `layouts` exactly and runs the latency model.
Plan buildPlan(const Layers &layers, const PlannerOptions &options,
               PlacementPolicy policy, int microbatches,
               const std::vector<Layout> &layouts) {
  Plan plan;
  plan.policy = policy;
  plan.microbatches = microbatches;
  plan.microbatchSize = options.globalBatch / microbatches;
  int numStages = static_cast<int>(layouts.size());
  double pbs = layers.profile.profileBatch;
  for (int s = 0; s < numStages; ++s) {
    const Layout &layout = layouts[s];
    StagePlan stage;
    stage.firstLayer = layout.firstLayer;
    stage.endLayer = layout.endLayer;
    stage.devices = layout.devices;
    int replicas = stage.replicas();
    stage.samplesPerReplica = ceilDiv(plan.microbatchSize, replicas);
    double scale = stage.samplesPerReplica / pbs;
    int h = layout.firstLayer, i = layout.endLayer;
    stage.forwardSeconds = layers.forwardOf(h, i) * scale;
    stage.backwardSeconds = layers.backwardOf(h, i) * scale;
    stage.parameterBytes = layers.paramsOf(h, i);
    if (s + 1 < numStages) {
      stage.sendBytes = layers.cutOut(i) * plan.microbatchSize / pbs;
      sim::TransferCost cost =
          sim::transferCost(options.cluster, stage.devices,
                            layouts[s + 1].devices, stage.sendBytes);
      stage.sendOccupancySeconds = cost.occupancy;
      stage.sendSeconds = cost.total();
    }
    stage.allReduceSeconds = sim::allReduceSeconds(
        options.cluster, stage.devices, stage.parameterBytes);
    stage.optimizerSeconds = optimizerSeconds(options, stage.parameterBytes);
    stage.inFlight = std::min(numStages - s, microbatches);
    stage.memory = stageMemory(layers, options, h, i, stage.samplesPerReplica,
                               plan.microbatchSize, replicas, stage.inFlight);
    plan.peakMemoryBytes = std::max(plan.peakMemoryBytes, stage.memory.total());
    plan.stages.push_back(std::move(stage));
  }
  plan.fits = plan.peakMemoryBytes <= options.cluster.memoryBytes;
  estimateStepTime(plan);
  return plan;
}

} // namespace detail

std::optional<Plan> makePlan(const ModelProfile &profile,
                             const PlannerOptions &options,
                             PlacementPolicy policy, int microbatches,
                             const std::vector<StageSpec> &stages,
                             std::string *error) {
  auto fail = [&](const std::string &message) -> std::optional<Plan> {
    if (error)
      *error = message;
    return std::nullopt;
  };
  if (options.globalBatch < 1 || microbatches < 1 ||
      options.globalBatch % microbatches != 0)
    return fail("the microbatch count " + std::to_string(microbatches) +
                " does not divide the global batch " +
                std::to_string(options.globalBatch));
  if (stages.empty())
    return fail("no stages");
  int microbatchSize = options.globalBatch / microbatches;
  int first = 0;
  for (const StageSpec &stage : stages) {
    if (stage.endLayer <= first || stage.endLayer > profile.numLayers())
      return fail("stage boundaries must increase within the " +
                  std::to_string(profile.numLayers()) + " layers");
    if (stage.replicas < 1 || stage.replicas > microbatchSize)
      return fail("a stage has " + std::to_string(stage.replicas) +
                  " replicas for microbatches of " +
                  std::to_string(microbatchSize));
    first = stage.endLayer;
  }
  if (first != profile.numLayers())
    return fail("the stages do not cover all " +
                std::to_string(profile.numLayers()) + " layers");

  std::vector<int> order = deviceOrder(policy, options.cluster);
  std::vector<Layout> layouts(stages.size());
  int freeEnd = options.cluster.numDevices();
  for (int s = static_cast<int>(stages.size()) - 1; s >= 0; --s) {
    int start =
        placeStage(policy, options.cluster, freeEnd, stages[s].replicas);
    if (start < 0)
      return fail(std::string("the stages do not fit on the cluster's ") +
                  std::to_string(options.cluster.numDevices()) +
                  " devices with " + stringify(policy) + " placement");
    layouts[s] = {s > 0 ? stages[s - 1].endLayer : 0, stages[s].endLayer,
                  devicesAt(order, start, stages[s].replicas)};
    freeEnd = start;
  }
  Layers layers(profile);
  return buildPlan(layers, options, policy, microbatches, layouts);
}

sim::SimReport simulatePlan(const ModelProfile &profile,
                            const PlannerOptions &options, const Plan &plan,
                            schedule::Program *program) {
  schedule::BuildResult built =
      schedule::build1F1B(plan.numStages(), plan.microbatches);
  if (!built) {
    sim::SimReport report;
    report.error = built.error;
    return report;
  }
  Layers layers(profile);
  sim::CostTable costs;
  costs.gradientFactor = options.gradientFactor;
  costs.optimizerStateFactor = options.optimizerStateFactor;
  sim::Placement placement;
  for (const StagePlan &stage : plan.stages) {
    sim::StageCosts cost;
    cost.forward = stage.forwardSeconds;
    cost.backward = stage.backwardSeconds;
    cost.optimizer = stage.optimizerSeconds;
    cost.activationBytes = stage.sendBytes;
    cost.parameterBytes = stage.parameterBytes;
    cost.stashBytes =
        stashPerMicrobatch(layers, options, stage.firstLayer, stage.endLayer,
                           stage.samplesPerReplica);
    costs.stages.push_back(cost);
    placement.devices.push_back(stage.devices);
  }
  sim::SimReport report =
      sim::simulate(*built.program, costs, options.cluster, placement);
  if (program)
    *program = std::move(*built.program);
  return report;
}

} // namespace pipewave::planner
