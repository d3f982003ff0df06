//===- Dapple.cpp - DAPPLE-style hybrid pipeline/data parallel planner ----===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The search of planDapple() (see Dapple.h): a dynamic program per placement
// policy and microbatch count, then the latency model and the simulation of
// the best candidates. Placement, the stage cost model, the latency model and
// the plan description live in the other Dapple*.cpp files.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Planner/Dapple.h"

#include "DappleModel.h"

#include "pipewave/Simulator/Network.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <set>
#include <tuple>

namespace pipewave::planner {

using sim::Cluster;
using namespace detail;

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

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

} // namespace

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

} // namespace pipewave::planner
