//===- Dapple.h - DAPPLE-style pipeline/data-parallel planner ---*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (no MLIR). Plans synchronous pipelined data-parallel training in
// the manner of DAPPLE (Fan et al., "DAPPLE: A Pipelined Data Parallel
// Approach for Training Large Models", PPoPP'21): given a per-layer profile,
// a global batch, a cluster and the memory per device, it chooses
//   * the pipeline depth S and contiguous stage boundaries,
//   * a replica count per stage (data parallelism within a stage; stages may
//     differ), each replica taking an equal share of every microbatch,
//   * the devices of every stage, by one of DAPPLE's placement policies
//     (fresh-first, append-first, scatter-first; see PlacementPolicy),
//   * the number of microbatches M (a divisor of the global batch),
// minimising the step time of DAPPLE's early-backward (1F1B) schedule under
// the memory limit. docs/planner.md describes the algorithm and the models.
//
// Search: for every policy and M, a dynamic program over (stages placed,
// first layer, free devices) builds the pipeline from its last stage to its
// first, minimising the largest per-stage load M * max(F + B, transfer) +
// all-reduce + optimizer (then the sum of per-microbatch times), subject to
// the memory of every stage (its 1F1B stash holds min(S - s, M)
// microbatches). The best pipeline of every depth is then costed with the
// DAPPLE latency model (warm-up, steady and ending phases around a pivot
// stage, estimateStepTime()); the best candidates by that estimate are
// simulated event by event (pipewave/Simulator) and the fastest simulated
// plan whose simulated memory fits wins.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_PLANNER_DAPPLE_H
#define PIPEWAVE_PLANNER_DAPPLE_H

#include "pipewave/Planner/Profile.h"
#include "pipewave/Schedule/Program.h"
#include "pipewave/Simulator/Device.h"
#include "pipewave/Simulator/Simulator.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipewave::planner {

/// How stage replicas are mapped to devices. Stages are placed from the last
/// to the first, each taking the last free positions of a device order:
/// * AppendFirst: node-major order (node 0's devices, then node 1's, ...):
///   stages pack nodes densely and cross a node boundary only when they must.
/// * FreshFirst: node-major order, but a stage that fits in one node never
///   straddles two: it moves to the next node with room, leaving the rest of
///   the partly used node idle.
/// * ScatterFirst: round-robin order over nodes (device 0 of every node,
///   then device 1, ...): every stage spreads its replicas over all nodes.
enum class PlacementPolicy { FreshFirst, AppendFirst, ScatterFirst };

/// "fresh-first", "append-first", "scatter-first".
const char *stringify(PlacementPolicy policy);

/// Parses "fresh-first"/"fresh", "append-first"/"append",
/// "scatter-first"/"scatter".
std::optional<PlacementPolicy> parsePlacementPolicy(std::string_view text);

/// The device order of `policy` on `cluster` (see PlacementPolicy).
std::vector<int> deviceOrder(PlacementPolicy policy,
                             const sim::Cluster &cluster);

struct PlannerOptions {
  /// Samples per training step.
  int globalBatch = 128;
  /// Devices, links and memory per device.
  sim::Cluster cluster;
  /// Gradient buffers and optimizer state as multiples of the weights
  /// (Adam: 2).
  double gradientFactor = 1;
  double optimizerStateFactor = 2;
  /// Bytes the optimizer step reads and writes per parameter byte (Adam:
  /// weights, gradients, two moments read; weights, moments written = 7);
  /// the step takes that traffic over the device's memory bandwidth.
  double optimizerTrafficFactor = 7;
  /// Multiplies the profile's activation bytes to get the bytes a stage
  /// stashes per microbatch (the profiles record layer outputs only).
  double activationFactor = 1;
  /// Policies to try.
  std::vector<PlacementPolicy> policies = {PlacementPolicy::FreshFirst,
                                           PlacementPolicy::AppendFirst,
                                           PlacementPolicy::ScatterFirst};
  /// Fewest samples of a microbatch a replica may get (the linear time
  /// model makes tiny per-replica batches look free; a GPU is less
  /// efficient on them). A stage with one replica is always allowed.
  int minSamplesPerReplica = 1;
  /// Most pipeline stages; 0 for min(devices, layers).
  int maxStages = 0;
  /// Microbatch counts to try; empty for every divisor of globalBatch.
  std::vector<int> microbatchCounts;
  /// How many of the best candidates (by the latency model) to simulate
  /// event by event; 0 to rank by the latency model alone.
  int simulateTop = 128;
};

/// A stage of a plan: contiguous layers on a data-parallel group.
struct StageSpec {
  /// One past the stage's last layer (the first layer is the previous
  /// stage's endLayer, or 0).
  int endLayer = 0;
  int replicas = 1;
};

/// One stage of a plan with its costs.
struct StagePlan {
  /// Layers [firstLayer, endLayer).
  int firstLayer = 0;
  int endLayer = 0;
  /// The stage's devices (its replicas), ascending.
  std::vector<int> devices;
  /// Samples of a microbatch each replica processes: ceil(microbatch /
  /// replicas).
  int samplesPerReplica = 0;
  /// Per microbatch, per replica.
  double forwardSeconds = 0;
  double backwardSeconds = 0;
  /// Bytes sent to the next stage per microbatch (0 for the last stage) and
  /// the time that takes (link occupancy + latency).
  double sendBytes = 0;
  double sendSeconds = 0;
  double sendOccupancySeconds = 0;
  /// Gradient all-reduce among the replicas, and the optimizer step.
  double allReduceSeconds = 0;
  double optimizerSeconds = 0;
  double parameterBytes = 0;
  /// Microbatches stashed at once under 1F1B: min(S - s, M).
  int inFlight = 0;
  /// Estimated memory per device.
  sim::MemoryBreakdown memory;

  int replicas() const { return static_cast<int>(devices.size()); }
};

/// A complete plan and its predicted step time.
struct Plan {
  PlacementPolicy policy = PlacementPolicy::AppendFirst;
  int microbatches = 1;
  /// globalBatch / microbatches.
  int microbatchSize = 1;
  std::vector<StagePlan> stages;
  /// DAPPLE latency model (estimateStepTime()): the pivot stage and the
  /// three phases, which add up to estimatedSeconds.
  int pivotStage = 0;
  double warmupSeconds = 0;
  double steadySeconds = 0;
  double endingSeconds = 0;
  double estimatedSeconds = 0;
  /// Event simulation (0 if the plan was not simulated).
  double simulatedSeconds = 0;
  double simulatedBubble = 0;
  /// Largest estimated (or, once simulated, simulated) memory per device.
  double peakMemoryBytes = 0;
  bool fits = true;

  int numStages() const { return static_cast<int>(stages.size()); }
  int devicesUsed() const;
  /// The simulated step time if there is one, else the estimate.
  double stepSeconds() const {
    return simulatedSeconds > 0 ? simulatedSeconds : estimatedSeconds;
  }
};

/// Training on one device, or plain data parallelism over all devices (one
/// stage, every device a replica, gradients all-reduced at the end of the
/// step without overlap), with the fewest microbatches (gradient
/// accumulation) that fit in memory.
struct Baseline {
  bool fits = false;
  int devices = 0;
  int microbatches = 0;
  double stepSeconds = 0;
  double peakMemoryBytes = 0;
};

/// Result of planDapple().
struct PlanResult {
  /// The best plan, if any fits.
  std::optional<Plan> best;
  /// Why there is no plan.
  std::string error;
  /// The best candidates, fastest first (simulated ones by simulated time,
  /// ahead of the rest).
  std::vector<Plan> candidates;
  Baseline singleDevice;
  Baseline dataParallel;
  /// baseline step / best step; 0 if the baseline does not fit.
  double speedupOverSingleDevice = 0;
  double speedupOverDataParallel = 0;
  /// Pipelines costed by the latency model, and wall-clock planning time.
  int candidatesEvaluated = 0;
  double planningSeconds = 0;
};

/// Plans `profile` (see the file comment).
PlanResult planDapple(const ModelProfile &profile,
                      const PlannerOptions &options);

/// Builds and costs the plan with the given stages (placed by `policy`) and
/// microbatch count, without simulating it. Returns nullopt with `error` if
/// the stages do not cover the layers in order, need more devices than the
/// cluster has, or the microbatch count does not divide the global batch or
/// leaves a replica without samples. A plan that does not fit in memory is
/// returned with fits = false.
std::optional<Plan> makePlan(const ModelProfile &profile,
                             const PlannerOptions &options,
                             PlacementPolicy policy, int microbatches,
                             const std::vector<StageSpec> &stages,
                             std::string *error = nullptr);

/// Fills the latency-model fields of `plan` (pivotStage, the phases,
/// estimatedSeconds) from its stage costs (F, B per microbatch, C = send
/// time to the next stage, AR, optimizer):
///   T   = steady period: the largest of every F_s + B_s, every link's
///         occupancy, and, for every run of stages a..k, the round trip
///         (sum (F + B) + 2 sum C over a..k) / (k - a + 1) -- the k-a+1
///         microbatches 1F1B keeps in flight between them (counted when
///         stage a has that many steady slots);
///   W_s = sum_{k<s} (F_k + C_k)                         warm-up to stage s
///   R_s = F_s + B_s + sum_{k>s} (F_k + B_k) + 2 sum_{s<=k<S-1} C_k
///   P_s = W_s + (M-1) T + R_s; the pivot Q = argmax_s P_s
///   end_k = max(P_k, P_Q + the last microbatch's backward chain to k)
///   step = max_k (end_k + AR_k + optimizer_k)
/// with warm-up W_Q, steady (M-1) T and ending the rest.
void estimateStepTime(Plan &plan);

/// The 1F1B program of `plan` and its event simulation: rank s is stage s
/// on its devices (a data-parallel group, see Simulator.h).
sim::SimReport simulatePlan(const ModelProfile &profile,
                            const PlannerOptions &options, const Plan &plan,
                            schedule::Program *program = nullptr);

/// The baselines of PlanResult.
Baseline singleDeviceBaseline(const ModelProfile &profile,
                              const PlannerOptions &options);
Baseline dataParallelBaseline(const ModelProfile &profile,
                              const PlannerOptions &options);

/// A multi-line, human-readable description of `plan`: one line per stage
/// (layers, replicas, devices, times, memory) and the totals.
std::string describePlan(const ModelProfile &profile, const Plan &plan);

} // namespace pipewave::planner

#endif // PIPEWAVE_PLANNER_DAPPLE_H
