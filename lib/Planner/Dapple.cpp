//===- Dapple.cpp - DAPPLE-style hybrid pipeline/data parallel planner ----===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Planner/Dapple.h"

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Simulator/Network.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <tuple>

namespace pipewave::planner {

using sim::Cluster;
using sim::MemoryBreakdown;

const char *stringify(PlacementPolicy policy) {
  switch (policy) {
  case PlacementPolicy::FreshFirst:
    return "fresh-first";
  case PlacementPolicy::AppendFirst:
    return "append-first";
  case PlacementPolicy::ScatterFirst:
    return "scatter-first";
  }
  return "?";
}

std::optional<PlacementPolicy> parsePlacementPolicy(std::string_view text) {
  if (text == "fresh-first" || text == "fresh")
    return PlacementPolicy::FreshFirst;
  if (text == "append-first" || text == "append")
    return PlacementPolicy::AppendFirst;
  if (text == "scatter-first" || text == "scatter")
    return PlacementPolicy::ScatterFirst;
  return std::nullopt;
}

std::vector<int> deviceOrder(PlacementPolicy policy, const Cluster &cluster) {
  std::vector<int> order;
  int perNode = cluster.devicesPerNode, nodes = cluster.nodes;
  if (policy == PlacementPolicy::ScatterFirst) {
    for (int local = 0; local < perNode; ++local)
      for (int node = 0; node < nodes; ++node)
        order.push_back(node * perNode + local);
  } else {
    for (int device = 0; device < perNode * nodes; ++device)
      order.push_back(device);
  }
  return order;
}

int Plan::devicesUsed() const {
  int total = 0;
  for (const StagePlan &stage : stages)
    total += stage.replicas();
  return total;
}

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

/// Prefix sums over the layers of a profile.
class Layers {
public:
  explicit Layers(const ModelProfile &profile) : profile(profile) {
    int n = profile.numLayers();
    forward.assign(n + 1, 0);
    backward.assign(n + 1, 0);
    params.assign(n + 1, 0);
    outputs.assign(n + 1, 0);
    for (int i = 0; i < n; ++i) {
      const LayerProfile &layer = profile.layers[i];
      forward[i + 1] = forward[i] + layer.forwardSeconds;
      backward[i + 1] = backward[i] + layer.backwardSeconds;
      params[i + 1] = params[i] + layer.parameterBytes;
      outputs[i + 1] = outputs[i] + layer.outputBytes;
    }
  }

  int size() const { return profile.numLayers(); }
  double forwardOf(int h, int i) const { return forward[i] - forward[h]; }
  double backwardOf(int h, int i) const { return backward[i] - backward[h]; }
  double paramsOf(int h, int i) const { return params[i] - params[h]; }
  double outputsOf(int h, int i) const { return outputs[i] - outputs[h]; }
  /// Bytes entering a stage that starts at layer h (profile batch).
  double cutIn(int h) const {
    return h > 0 && h - 1 < static_cast<int>(profile.cutBytes.size())
               ? profile.cutBytes[h - 1]
               : 0;
  }
  /// Bytes leaving a stage that ends before layer i (profile batch).
  double cutOut(int i) const { return i < size() ? cutIn(i) : 0; }

  const ModelProfile &profile;

private:
  std::vector<double> forward, backward, params, outputs;
};

int ceilDiv(int a, int b) { return (a + b - 1) / b; }

/// Start position (in the policy's device order) of a stage of `replicas`
/// placed below `freeEnd` (positions [0, freeEnd) are free), or -1.
int placeStage(PlacementPolicy policy, const Cluster &cluster, int freeEnd,
               int replicas) {
  if (replicas < 1 || replicas > freeEnd)
    return -1;
  if (policy != PlacementPolicy::FreshFirst)
    return freeEnd - replicas;
  int perNode = cluster.devicesPerNode;
  int end = freeEnd;
  if (replicas <= perNode) {
    if ((end - replicas) / perNode != (end - 1) / perNode)
      end = (end - 1) / perNode * perNode;
  } else {
    end = end / perNode * perNode;
  }
  return end - replicas >= 0 ? end - replicas : -1;
}

std::vector<int> devicesAt(const std::vector<int> &order, int start,
                           int count) {
  std::vector<int> devices(order.begin() + start,
                           order.begin() + start + count);
  std::sort(devices.begin(), devices.end());
  return devices;
}

/// Stash bytes per microbatch per device of a stage [h, i).
double stashPerMicrobatch(const Layers &layers, const PlannerOptions &options,
                          int h, int i, int samples) {
  return (layers.outputsOf(h, i) + layers.cutIn(h)) * samples /
         layers.profile.profileBatch * options.activationFactor;
}

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

/// A stage before costing: layers and devices.
struct Layout {
  int firstLayer;
  int endLayer;
  std::vector<int> devices;
};

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

/// A cell of the dynamic program: the best suffix pipeline found so far
/// for (stages, first layer, free end).
struct Cell {
  double worst = infinity;
  double total = infinity;
  int nextLayer = -1;
  int nextFree = -1;
  int replicas = 0;
};

bool better(double worst, double total, const Cell &than) {
  if (worst < than.worst * (1 - 1e-9))
    return true;
  return worst <= than.worst * (1 + 1e-9) && total < than.total;
}

/// Precomputed communication figures of one policy: for a stage at
/// positions [start, start + r), the all-reduce time per parameter byte and
/// its latency term, and the transfer to a next stage assumed to take the
/// r positions from `free` on (occupancy per byte and latency).
class PolicyTables {
public:
  PolicyTables(PlacementPolicy policy, const Cluster &cluster)
      : order(deviceOrder(policy, cluster)), size(cluster.numDevices()) {
    int d = size;
    arPerByte.assign((d + 1) * (d + 1), 0);
    arConstant.assign((d + 1) * (d + 1), 0);
    xferPerByte.assign((d + 1) * (d + 1) * (d + 1), 0);
    xferLatency.assign((d + 1) * (d + 1) * (d + 1), 0);
    for (int start = 0; start < d; ++start)
      for (int r = 1; start + r <= d; ++r) {
        std::vector<int> devices = devicesAt(order, start, r);
        double withBytes = sim::allReduceSeconds(cluster, devices, 1e9);
        double without = sim::allReduceSeconds(cluster, devices, 0);
        arPerByte[index2(start, r)] = (withBytes - without) / 1e9;
        arConstant[index2(start, r)] = without;
        for (int free = start + r; free < d; ++free) {
          int count = std::min(r, d - free);
          std::vector<int> next = devicesAt(order, free, count);
          sim::TransferCost one =
              sim::transferCost(cluster, devices, next, 1e9);
          xferPerByte[index3(start, r, free)] = one.occupancy / 1e9;
          xferLatency[index3(start, r, free)] = one.latency;
        }
      }
  }

  size_t index2(int start, int r) const { return start * (size + 1) + r; }
  size_t index3(int start, int r, int free) const {
    return (static_cast<size_t>(start) * (size + 1) + r) * (size + 1) + free;
  }

  std::vector<int> order;
  int size;
  std::vector<double> arPerByte, arConstant, xferPerByte, xferLatency;
};

/// The best pipeline of every depth for one policy and microbatch count;
/// entry S-1 is empty if no S-stage pipeline fits.
std::vector<std::vector<Layout>>
searchPipelines(const Layers &layers, const PlannerOptions &options,
                PlacementPolicy policy, const PolicyTables &tables,
                int microbatches, int maxStages) {
  const Cluster &cluster = options.cluster;
  const int L = layers.size();
  const int D = cluster.numDevices();
  const int M = microbatches;
  const int b = options.globalBatch / M;
  const double pbs = layers.profile.profileBatch;
  const double capacity = cluster.memoryBytes;
  const double staticFactor =
      1 + options.gradientFactor + options.optimizerStateFactor;
  const double memoryBandwidth = cluster.device.memoryBytesPerSecond;
  const double optimizerPerByte =
      memoryBandwidth > 0 ? options.optimizerTrafficFactor / memoryBandwidth
                          : 0;

  // Replica counts worth trying: more replicas must shrink the share.
  std::vector<int> replicaCounts;
  for (int r = 1; r <= std::min(b, D); ++r)
    if (r == 1 || (ceilDiv(b, r) < ceilDiv(b, r - 1) &&
                   ceilDiv(b, r) >= options.minSamplesPerReplica))
      replicaCounts.push_back(r);

  auto at = [&](int k, int i, int f) -> size_t {
    return (static_cast<size_t>(k) * (L + 1) + i) * (D + 1) + f;
  };
  std::vector<Cell> cells(static_cast<size_t>(maxStages + 1) * (L + 1) *
                          (D + 1));
  cells[at(0, L, D)].worst = 0;
  cells[at(0, L, D)].total = 0;

  for (int k = 0; k < maxStages; ++k) {
    int inFlight = std::min(k + 1, M);
    for (int i = 1; i <= L; ++i)
      for (int f = 1; f <= D; ++f) {
        const Cell cell = cells[at(k, i, f)];
        if (cell.worst == infinity)
          continue;
        bool hasNext = i < L;
        double outBytes = hasNext ? layers.cutOut(i) * b / pbs : 0;
        for (int r : replicaCounts) {
          int start = placeStage(policy, cluster, f, r);
          if (start < 0)
            continue;
          int samples = ceilDiv(b, r);
          double scale = samples / pbs;
          double arPerByte = tables.arPerByte[tables.index2(start, r)];
          double arConstant = tables.arConstant[tables.index2(start, r)];
          double occupancy = 0, latency = 0;
          if (hasNext && f < D) {
            occupancy =
                outBytes * tables.xferPerByte[tables.index3(start, r, f)];
            latency = tables.xferLatency[tables.index3(start, r, f)];
          }
          double bufferScale = 2.0 * b / pbs / r;
          double stashScale = inFlight * scale * options.activationFactor;
          for (int h = i - 1; h >= 0; --h) {
            double params = layers.paramsOf(h, i);
            double staticBytes = params * staticFactor;
            double outputs = layers.outputsOf(h, i);
            // Both only grow as the stage takes more layers.
            if (staticBytes + outputs * stashScale > capacity)
              break;
            double cutIn = layers.cutIn(h);
            double memory = staticBytes + (outputs + cutIn) * stashScale +
                            (cutIn + layers.cutOut(i)) * bufferScale;
            if (memory > capacity)
              continue;
            double compute =
                (layers.forwardOf(h, i) + layers.backwardOf(h, i)) * scale;
            double load = M * std::max(compute, occupancy) +
                          (r > 1 ? params * arPerByte + arConstant : 0) +
                          params * optimizerPerByte;
            double worst = std::max(cell.worst, load);
            double total = cell.total + compute + occupancy + latency;
            Cell &target = cells[at(k + 1, h, start)];
            if (better(worst, total, target)) {
              target.worst = worst;
              target.total = total;
              target.nextLayer = i;
              target.nextFree = f;
              target.replicas = r;
            }
          }
        }
      }
  }

  std::vector<std::vector<Layout>> result(maxStages);
  for (int S = 1; S <= maxStages; ++S) {
    int bestFree = -1;
    for (int f = 0; f <= D; ++f) {
      const Cell &cell = cells[at(S, 0, f)];
      if (cell.worst == infinity)
        continue;
      if (bestFree < 0 ||
          better(cell.worst, cell.total, cells[at(S, 0, bestFree)]))
        bestFree = f;
    }
    if (bestFree < 0)
      continue;
    std::vector<Layout> layouts;
    int k = S, i = 0, f = bestFree;
    while (k > 0) {
      const Cell &cell = cells[at(k, i, f)];
      layouts.push_back(
          {i, cell.nextLayer, devicesAt(tables.order, f, cell.replicas)});
      i = cell.nextLayer;
      f = cell.nextFree;
      --k;
    }
    result[S - 1] = std::move(layouts);
  }
  return result;
}

std::vector<int> divisors(int n) {
  std::vector<int> result;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0)
      result.push_back(d);
  return result;
}

/// Identifies a pipeline to drop duplicates found by several policies.
std::string keyOf(const Plan &plan) {
  std::string key = std::to_string(plan.microbatches);
  for (const StagePlan &stage : plan.stages) {
    key += "|" + std::to_string(stage.endLayer) + ":";
    for (int device : stage.devices)
      key += std::to_string(device) + ",";
  }
  return key;
}

Baseline baselineFrom(const ModelProfile &profile,
                      const PlannerOptions &options, int replicas) {
  Baseline baseline;
  baseline.devices = replicas;
  for (int microbatches : divisors(options.globalBatch)) {
    if (options.globalBatch / microbatches < replicas)
      break;
    std::optional<Plan> plan =
        makePlan(profile, options, PlacementPolicy::AppendFirst, microbatches,
                 {{profile.numLayers(), replicas}});
    if (!plan || !plan->fits)
      continue;
    baseline.fits = true;
    baseline.microbatches = microbatches;
    baseline.stepSeconds = plan->estimatedSeconds;
    baseline.peakMemoryBytes = plan->peakMemoryBytes;
    break;
  }
  return baseline;
}

std::string rangeText(const std::vector<int> &devices) {
  if (devices.empty())
    return "-";
  bool contiguous =
      devices.back() - devices.front() + 1 == static_cast<int>(devices.size());
  if (devices.size() == 1)
    return std::to_string(devices[0]);
  if (contiguous)
    return std::to_string(devices.front()) + "-" +
           std::to_string(devices.back());
  std::string text;
  for (size_t i = 0; i < devices.size(); ++i)
    text += (i ? "," : "") + std::to_string(devices[i]);
  return text;
}

} // namespace

void estimateStepTime(Plan &plan) {
  const int S = plan.numStages();
  const double M = plan.microbatches;
  if (S == 0) {
    plan.estimatedSeconds = 0;
    return;
  }
  std::vector<double> F(S), B(S), C(S, 0);
  // The steady period: every stage's F + B and every link's occupancy ...
  double period = 0;
  for (int s = 0; s < S; ++s) {
    const StagePlan &stage = plan.stages[s];
    F[s] = stage.forwardSeconds;
    B[s] = stage.backwardSeconds;
    C[s] = s + 1 < S ? stage.sendSeconds : 0;
    period = std::max({period, F[s] + B[s], stage.sendOccupancySeconds});
  }
  // ... and the cycle time of every run of stages a..k: under 1F1B, k-a+1
  // microbatches are in flight between them and each makes the round trip
  // (counted where stage a has that many steady slots).
  for (int a = 0; a < S; ++a) {
    double steadySlots = M - std::min<double>(S - a - 1, M);
    double roundTrip = 0;
    for (int k = a; k < S; ++k) {
      roundTrip += F[k] + B[k] + (k > a ? 2 * C[k - 1] : 0);
      double tokens = k - a + 1;
      if (steadySlots >= tokens)
        period = std::max(period, roundTrip / tokens);
    }
  }
  // W_s, R_s and P_s of the header comment.
  std::vector<double> warmup(S, 0), roundTrip(S, 0), P(S);
  for (int s = 1; s < S; ++s)
    warmup[s] = warmup[s - 1] + F[s - 1] + C[s - 1];
  for (int s = S - 1; s >= 0; --s) {
    roundTrip[s] = F[s] + B[s];
    if (s + 1 < S)
      roundTrip[s] += 2 * C[s] + roundTrip[s + 1];
  }
  int pivot = 0;
  for (int s = 0; s < S; ++s) {
    P[s] = warmup[s] + (M - 1) * period + roundTrip[s];
    if (P[s] > P[pivot])
      pivot = s;
  }
  // The last microbatch's backward chain through the pivot.
  std::vector<double> chain(S);
  chain[pivot] = P[pivot];
  for (int k = pivot - 1; k >= 0; --k)
    chain[k] = chain[k + 1] + C[k] + B[k];
  for (int k = pivot + 1; k < S; ++k)
    chain[k] = chain[k - 1] - B[k - 1] - C[k - 1];
  double step = 0;
  for (int k = 0; k < S; ++k)
    step = std::max(step, std::max(P[k], chain[k]) +
                              plan.stages[k].allReduceSeconds +
                              plan.stages[k].optimizerSeconds);
  plan.pivotStage = pivot;
  plan.warmupSeconds = warmup[pivot];
  plan.steadySeconds = (M - 1) * period;
  plan.endingSeconds = step - plan.warmupSeconds - plan.steadySeconds;
  plan.estimatedSeconds = step;
}

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

Baseline singleDeviceBaseline(const ModelProfile &profile,
                              const PlannerOptions &options) {
  return baselineFrom(profile, options, 1);
}

Baseline dataParallelBaseline(const ModelProfile &profile,
                              const PlannerOptions &options) {
  return baselineFrom(profile, options, options.cluster.numDevices());
}

PlanResult planDapple(const ModelProfile &profile,
                      const PlannerOptions &options) {
  auto begin = std::chrono::steady_clock::now();
  PlanResult result;
  const int L = profile.numLayers();
  const int D = options.cluster.numDevices();
  if (L == 0 || D == 0 || options.globalBatch < 1) {
    result.error = "nothing to plan: no layers, devices or samples";
    return result;
  }
  int maxStages = std::min(L, D);
  if (options.maxStages > 0)
    maxStages = std::min(maxStages, options.maxStages);
  std::vector<int> microbatchCounts = options.microbatchCounts;
  if (microbatchCounts.empty())
    microbatchCounts = divisors(options.globalBatch);

  Layers layers(profile);
  std::vector<Plan> candidates;
  std::set<std::string> seen;
  for (PlacementPolicy policy : options.policies) {
    PolicyTables tables(policy, options.cluster);
    for (int microbatches : microbatchCounts) {
      if (microbatches < 1 || options.globalBatch % microbatches != 0)
        continue;
      for (std::vector<Layout> &layouts : searchPipelines(
               layers, options, policy, tables, microbatches, maxStages)) {
        if (layouts.empty())
          continue;
        Plan plan = buildPlan(layers, options, policy, microbatches, layouts);
        ++result.candidatesEvaluated;
        if (!plan.fits || !seen.insert(keyOf(plan)).second)
          continue;
        candidates.push_back(std::move(plan));
      }
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Plan &a, const Plan &b) {
                     return a.estimatedSeconds < b.estimatedSeconds;
                   });

  int simulated = std::min<int>(options.simulateTop, candidates.size());
  for (int c = 0; c < simulated; ++c) {
    Plan &plan = candidates[c];
    sim::SimReport report = simulatePlan(profile, options, plan);
    if (!report.error.empty())
      continue;
    plan.simulatedSeconds = report.stepTime;
    plan.simulatedBubble = report.bubbleFraction;
    plan.peakMemoryBytes = 0;
    for (const sim::RankReport &rank : report.ranks)
      plan.peakMemoryBytes =
          std::max(plan.peakMemoryBytes, rank.peakMemory.total());
    plan.fits = report.fits;
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Plan &a, const Plan &b) {
                     auto rank = [](const Plan &p) {
                       return std::make_tuple(!p.fits, p.simulatedSeconds <= 0,
                                              p.stepSeconds());
                     };
                     return rank(a) < rank(b);
                   });
  if (!candidates.empty() && candidates.front().fits)
    result.best = candidates.front();
  else
    result.error = "no plan fits in " +
                   sim::formatBytes(options.cluster.memoryBytes) +
                   " per device";
  candidates.resize(std::min<size_t>(candidates.size(), 32));
  result.candidates = std::move(candidates);

  result.singleDevice = singleDeviceBaseline(profile, options);
  result.dataParallel = dataParallelBaseline(profile, options);
  if (result.best) {
    double step = result.best->stepSeconds();
    if (result.singleDevice.fits)
      result.speedupOverSingleDevice = result.singleDevice.stepSeconds / step;
    if (result.dataParallel.fits)
      result.speedupOverDataParallel = result.dataParallel.stepSeconds / step;
  }
  result.planningSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
          .count();
  return result;
}

std::string describePlan(const ModelProfile &profile, const Plan &plan) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line,
                "%d stage%s, %d microbatches of %d, %s placement, %d "
                "devices\n",
                plan.numStages(), plan.numStages() == 1 ? "" : "s",
                plan.microbatches, plan.microbatchSize, stringify(plan.policy),
                plan.devicesUsed());
  out += line;
  std::snprintf(line, sizeof line,
                "  %-5s %-9s %-30s %4s %-14s %9s %9s %9s %9s %10s\n", "stage",
                "layers", "first .. last layer", "repl", "devices", "F/mb",
                "B/mb", "send/mb", "allreduce", "memory");
  out += line;
  for (int s = 0; s < plan.numStages(); ++s) {
    const StagePlan &stage = plan.stages[s];
    std::string names;
    if (stage.endLayer > stage.firstLayer &&
        stage.endLayer <= profile.numLayers()) {
      auto shorten = [](std::string name) {
        if (name.size() > 13)
          name = name.substr(0, 12) + "~";
        return name;
      };
      names = shorten(profile.layers[stage.firstLayer].name) + " .. " +
              shorten(profile.layers[stage.endLayer - 1].name);
    }
    std::string layers = std::to_string(stage.firstLayer) + "-" +
                         std::to_string(stage.endLayer - 1);
    std::snprintf(
        line, sizeof line, "  %-5d %-9s %-30s %4d %-14s %9s %9s %9s %9s %10s\n",
        s, layers.c_str(), names.c_str(), stage.replicas(),
        rangeText(stage.devices).c_str(),
        sim::formatSeconds(stage.forwardSeconds).c_str(),
        sim::formatSeconds(stage.backwardSeconds).c_str(),
        stage.sendSeconds > 0 ? sim::formatSeconds(stage.sendSeconds).c_str()
                              : "-",
        stage.allReduceSeconds > 0
            ? sim::formatSeconds(stage.allReduceSeconds).c_str()
            : "-",
        sim::formatBytes(stage.memory.total()).c_str());
    out += line;
  }
  std::snprintf(line, sizeof line,
                "  latency model: pivot stage %d, warm-up %s + steady %s + "
                "ending %s = %s\n",
                plan.pivotStage, sim::formatSeconds(plan.warmupSeconds).c_str(),
                sim::formatSeconds(plan.steadySeconds).c_str(),
                sim::formatSeconds(plan.endingSeconds).c_str(),
                sim::formatSeconds(plan.estimatedSeconds).c_str());
  out += line;
  if (plan.simulatedSeconds > 0) {
    std::snprintf(line, sizeof line,
                  "  simulated: step %s, bubble %.1f%%, peak memory %s per "
                  "device\n",
                  sim::formatSeconds(plan.simulatedSeconds).c_str(),
                  100 * plan.simulatedBubble,
                  sim::formatBytes(plan.peakMemoryBytes).c_str());
    out += line;
  }
  return out;
}

} // namespace pipewave::planner
