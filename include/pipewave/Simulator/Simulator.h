//===- Simulator.h - Pipeline step simulator with real costs ----*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (no MLIR/LLVM). An event simulation of one step of a
// schedule::Program on a Cluster, with per-stage durations and sizes from a
// CostTable. It generalises the uniform timeline of
// pipewave/Schedule/Timeline.h (with unit costs and free communication the
// two agree exactly) with:
//
// Compute. Every rank executes its actions in list order, one at a time; F,
//   B, I, W and OptimizerStep take the durations of their stage.
//
// Communication overlaps compute. A Send never holds up its rank: the
//   message is ready when its producer (F for activations, B or I for
//   gradients) ends, then occupies the directed link (sender rank -> receiver
//   rank) for `occupancy` seconds, in the sender's list order (a later
//   message waits for the link); it arrives `latency` seconds after it leaves
//   the link (Network.h: transferCost). A Recv ends at max(the rank's clock,
//   the arrival), so transfers overlap whatever the receiver computes
//   meanwhile.
//
// Data-parallel ranks. A rank may stand for several devices (Placement): a
//   data-parallel group of a stage that splits every microbatch evenly (the
//   CostTable then holds per-replica durations and per-device sizes). Before
//   the OptimizerStep of each stage it holds, such a rank all-reduces the
//   stage's gradients among its devices (ring all-reduce, Network.h), unless
//   the program has an explicit AllReduce for that stage on the rank. An
//   explicit AllReduce starts when every member of its group has reached it
//   and runs over the union of their devices.
//
// Oversubscription. On a calibrated device (Calibration.h) with fewer cores
//   than the program has ranks, the ranks share the cores: every F, B, I, W
//   and OptimizerStep duration is stretched by ranks / cores.
//
// Memory, per device of each rank: weights, gradients (gradientFactor x
//   weights), optimizer state (optimizerStateFactor x weights, 2 for Adam),
//   the activations stashed for in-flight microbatches (allocated when F
//   starts, freed when B, or W when split, ends), and in-flight
//   communication buffers (a sent message from ready until it has left the
//   link; a received one from when it starts arriving until its Recv ends),
//   divided by the rank's device count. The peak is the maximum over time of
//   their sum; its breakdown is reported at that instant.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SIMULATOR_SIMULATOR_H
#define PIPEWAVE_SIMULATOR_SIMULATOR_H

#include "pipewave/Schedule/Durations.h"
#include "pipewave/Schedule/Program.h"
#include "pipewave/Schedule/Timeline.h"
#include "pipewave/Simulator/Device.h"

#include <map>
#include <string>
#include <vector>

namespace pipewave::sim {

/// Durations (seconds) and sizes (bytes, per device) of one stage.
struct StageCosts : schedule::ActionDurations {
  /// Bytes F(s, m) sends to stage s+1 (the whole microbatch's tensor).
  double activationBytes = 0;
  /// Bytes B(s, m) / I(s, m) sends to stage s-1; negative means "the
  /// activationBytes of stage s-1" (the gradient of the received tensor).
  double gradientBytes = -1;
  /// Parameter bytes of the stage (each replica holds them all).
  double parameterBytes = 0;
  /// Activation bytes stashed per in-flight microbatch, per device.
  double stashBytes = 0;
  /// With CostTable::stepAgreement: the runtime's scan of the stage's
  /// gradients for non-finite values, which its rank runs before the
  /// agreement's all-reduce.
  double checkSeconds = 0;
};

/// Costs of every stage of a program.
struct CostTable {
  /// Indexed by stage.
  std::vector<StageCosts> stages;
  /// Gradient buffers, as a multiple of the weights.
  double gradientFactor = 1;
  /// Optimizer state, as a multiple of the weights (Adam: 2, for the first
  /// and second moments).
  double optimizerStateFactor = 2;
  /// Bytes of the parameters by name: what a TiedAllReduce of one moves (a
  /// name missing here moves nothing).
  std::map<std::string, double> parameterBytesByName;
  /// The runtime's agreement on non-finite values before a training step's
  /// updates (pipewave-run --on-nonfinite stop or skip, the default): every
  /// rank waits at its first OptimizerStep (or the end of its list) until
  /// all ranks are there (each after scanning its stages' gradients,
  /// StageCosts::checkSeconds) and their messages have arrived, then an
  /// all-reduce of one value over all devices runs before any update.
  bool stepAgreement = false;
  /// With stepAgreement: the updates run in their places and the agreement
  /// comes after every rank's last action, with no scan before it (the CPU
  /// runtime under --on-nonfinite stop, whose updates check the gradients
  /// they read; StageCosts::checkSeconds then does not count).
  bool agreementAfterUpdates = false;

  /// The world of schedule::computeTimeline: every stage takes the
  /// durations of `costs` and moves and stores nothing. costs.comm and
  /// costs.allReduce have no equivalent here and must be 0.
  static CostTable
  uniform(int numStages,
          const schedule::UniformCosts &costs = schedule::UniformCosts());

  /// Bytes sent by `kind` == Send of `payload` from `stage` (see the field
  /// comments).
  double messageBytes(schedule::Payload payload, int stage) const;
};

/// Where the ranks of a program run.
struct Placement {
  /// Indexed by rank: the devices (cluster indices) the rank stands for. A
  /// rank with several devices is a data-parallel group (see the file
  /// comment).
  std::vector<std::vector<int>> devices;

  /// Rank r on device r.
  static Placement onePerRank(int numRanks);
};

/// Memory of one device, by kind.
struct MemoryBreakdown {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double stash = 0;
  double buffers = 0;

  double total() const {
    return weights + gradients + optimizer + stash + buffers;
  }
};

/// A slice of time on a rank that is not one of its actions: an implicit
/// all-reduce before an OptimizerStep.
struct ExtraSlice {
  int stage = -1;
  double start = 0;
  double end = 0;
};

/// Timing and memory of one rank.
struct RankReport {
  /// The devices the rank stands for.
  std::vector<int> devices;
  /// Time spent in F/B/I/W.
  double busy = 0;
  /// When the rank's last action ended.
  double finish = 0;
  /// One slice per action, in list order (as in schedule::RankTiming: a
  /// Send's slice is the instant its data is ready, a Recv's spans its
  /// wait; an OptimizerStep's slice excludes its implicit all-reduce).
  std::vector<schedule::Slice> slices;
  /// Implicit all-reduces (see the file comment), in time order.
  std::vector<ExtraSlice> allReduces;
  /// Held stage -> most microbatches stashed at once (as in
  /// schedule::RankTiming::peakInFlight).
  std::map<int, int> peakInFlight;
  /// Peak memory per device and its breakdown at the peak.
  MemoryBreakdown peakMemory;
  /// True if peakMemory.total() <= the cluster's memory per device.
  bool fits = true;
};

/// One message.
struct MessageReport {
  int fromRank = -1;
  int toRank = -1;
  /// Action indices of the Send (on fromRank) and the Recv (on toRank).
  int sendIndex = -1;
  int recvIndex = -1;
  schedule::Payload payload = schedule::Payload::Activation;
  /// The sender's stage and the microbatch.
  int stage = -1;
  int microbatch = -1;
  double bytes = 0;
  /// Data ready, leaves for the link, link released, arrives.
  double ready = 0;
  double start = 0;
  double end = 0;
  double arrival = 0;
  /// A rendezvous message's seconds after the receiver enters MPI
  /// (TransferCost::handshake): its Recv ends no earlier than the first
  /// moment at or after `start` the receiver is inside a Send or Recv of
  /// its own, plus this.
  double handshake = 0;
  /// The receiver's CPU seconds completing the message once it is there
  /// (TransferCost::recvOverhead), and once it is there after arriving
  /// while the receiver was outside MPI (TransferCost::deliverOverhead).
  double recvOverhead = 0;
  double deliverOverhead = 0;
};

/// Result of simulate().
struct SimReport {
  /// Step time: when the last action of any rank ends.
  double stepTime = 0;
  /// 1 - (sum of F/B/I/W time) / (number of ranks * stepTime); 0 if the
  /// step time is 0.
  double bubbleFraction = 0;
  /// Indexed by rank.
  std::vector<RankReport> ranks;
  /// Every message, in the order the simulation sent them.
  std::vector<MessageReport> messages;
  /// The cluster's memory per device, and whether every rank fits in it.
  double memoryCapacity = 0;
  bool fits = true;
  /// Ranks per core when the program has more ranks than a calibrated
  /// device's cores (every duration was stretched by it); 1 otherwise.
  double oversubscription = 1;
  /// Non-empty if the program could not be simulated (it failed
  /// schedule::verify(), the cost table or placement does not match it, or
  /// the simulation stalled); the other fields are then empty.
  std::string error;
};

/// Simulates one step of `program` (verified first) with `costs` on
/// `cluster`, rank r standing for placement.devices[r].
SimReport simulate(const schedule::Program &program, const CostTable &costs,
                   const Cluster &cluster, const Placement &placement);

/// As above with rank r on device r.
SimReport simulate(const schedule::Program &program, const CostTable &costs,
                   const Cluster &cluster);

} // namespace pipewave::sim

#endif // PIPEWAVE_SIMULATOR_SIMULATOR_H
