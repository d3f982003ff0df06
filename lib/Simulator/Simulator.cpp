//===- Simulator.cpp - Pipeline step simulator with real costs ------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Simulator.h"

#include "pipewave/Schedule/Verify.h"
#include "pipewave/Simulator/Network.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

namespace pipewave::sim {

using schedule::Action;
using schedule::ActionKind;
using schedule::Payload;
using schedule::Program;
using schedule::RankProgram;
using schedule::Slice;

namespace {

enum class MemoryKind { Stash, Buffer };

struct MemoryEvent {
  double time;
  double delta;
  MemoryKind kind;
};

class Run {
public:
  Run(const Program &program, const CostTable &costs, const Cluster &cluster,
      const Placement &placement)
      : program(program), costs(costs), cluster(cluster), placement(placement),
        numRanks(static_cast<int>(program.ranks.size())), pc(numRanks, 0),
        clock(numRanks, 0), inFlight(numRanks), memory(numRanks) {}

  SimReport run() {
    if (std::string problem = checkInputs(); !problem.empty())
      return failure(problem);
    index();
    report.ranks.resize(numRanks);
    for (int r = 0; r < numRanks; ++r) {
      RankReport &rank = report.ranks[r];
      rank.devices = placement.devices[r];
      rank.slices.resize(program.ranks[r].actions.size());
      for (int stage : program.ranks[r].stages) {
        rank.peakInFlight[stage] = 0;
        inFlight[r][stage] = 0;
      }
    }
    agreementPending = costs.stepAgreement && !program.forwardOnly;
    arrived.assign(numRanks, false);
    agreementIndex.assign(numRanks, 0);
    checkSeconds.assign(numRanks, 0);
    for (int r = 0; r < numRanks; ++r) {
      const std::vector<Action> &actions = program.ranks[r].actions;
      int &index = agreementIndex[r];
      index = static_cast<int>(actions.size());
      if (costs.agreementAfterUpdates)
        continue;
      for (size_t i = 0; i < actions.size(); ++i)
        if (actions[i].kind == ActionKind::OptimizerStep) {
          if (index == static_cast<int>(actions.size()))
            index = static_cast<int>(i);
          // The rank scans the gradients of every stage it updates.
          checkSeconds[r] += stageCosts(actions[i].stage).checkSeconds;
        }
    }
    for (int r = numRanks - 1; r >= 0; --r)
      worklist.push_back(r);
    while (!worklist.empty()) {
      int rank = worklist.back();
      worklist.pop_back();
      advance(rank);
    }
    for (int r = 0; r < numRanks; ++r)
      if (!finished(r))
        return failure("simulation stalled at rank " + std::to_string(r) +
                       " before action " + std::to_string(pc[r]));

    double busy = 0;
    for (int r = 0; r < numRanks; ++r) {
      RankReport &rank = report.ranks[r];
      rank.finish = agreementEnd;
      for (const Slice &slice : rank.slices)
        rank.finish = std::max(rank.finish, slice.end);
      for (const ExtraSlice &slice : rank.allReduces)
        rank.finish = std::max(rank.finish, slice.end);
      report.stepTime = std::max(report.stepTime, rank.finish);
      busy += rank.busy;
    }
    if (report.stepTime > 0)
      report.bubbleFraction =
          1 - busy / (static_cast<double>(numRanks) * report.stepTime);
    report.memoryCapacity = cluster.memoryBytes;
    for (int r = 0; r < numRanks; ++r)
      accountMemory(r);
    return std::move(report);
  }

private:
  SimReport failure(std::string error) {
    SimReport failed;
    failed.error = std::move(error);
    return failed;
  }

  std::string checkInputs() const {
    if (static_cast<int>(costs.stages.size()) < program.numStages)
      return "the cost table has " + std::to_string(costs.stages.size()) +
             " stages, the program " + std::to_string(program.numStages);
    if (static_cast<int>(placement.devices.size()) != numRanks)
      return "the placement has " + std::to_string(placement.devices.size()) +
             " ranks, the program " + std::to_string(numRanks);
    for (int r = 0; r < numRanks; ++r) {
      if (placement.devices[r].empty())
        return "rank " + std::to_string(r) + " has no device";
      for (int device : placement.devices[r])
        if (device < 0 || device >= cluster.numDevices())
          return "rank " + std::to_string(r) + ": device " +
                 std::to_string(device) + " is not in the cluster of " +
                 std::to_string(cluster.numDevices()) + " devices";
    }
    return "";
  }

  /// Per-rank lookup tables: producers, message partners, all-reduces.
  void index() {
    producer.resize(numRanks);
    partner.resize(numRanks);
    messageOfSend.resize(numRanks);
    inMpi.resize(numRanks);
    allReduceOrdinal.resize(numRanks);
    allReduceIndices.resize(numRanks);
    tiedIndex.resize(numRanks);
    std::map<std::tuple<int, int, int64_t>, int> sends;
    for (int r = 0; r < numRanks; ++r) {
      const RankProgram &rank = program.ranks[r];
      partner[r].assign(rank.actions.size(), -1);
      messageOfSend[r].assign(rank.actions.size(), -1);
      allReduceOrdinal[r].assign(rank.actions.size(), -1);
      for (size_t i = 0; i < rank.actions.size(); ++i) {
        const Action &action = rank.actions[i];
        int index = static_cast<int>(i);
        switch (action.kind) {
        case ActionKind::Forward:
        case ActionKind::Backward:
        case ActionKind::BackwardInput:
          producer[r].emplace(std::make_tuple(static_cast<int>(action.kind),
                                              action.stage, action.microbatch),
                              index);
          break;
        case ActionKind::Send:
          sends.emplace(std::make_tuple(r, action.peer, action.tag), index);
          break;
        case ActionKind::TiedAllReduce:
          tiedIndex[r][action.param] = index;
          break;
        case ActionKind::AllReduce: {
          std::vector<int> &list = allReduceIndices[r][action.stage];
          allReduceOrdinal[r][i] = static_cast<int>(list.size());
          list.push_back(index);
          break;
        }
        default:
          break;
        }
      }
    }
    for (int r = 0; r < numRanks; ++r) {
      const RankProgram &rank = program.ranks[r];
      for (size_t i = 0; i < rank.actions.size(); ++i) {
        const Action &action = rank.actions[i];
        if (action.kind != ActionKind::Recv)
          continue;
        auto it = sends.find(std::make_tuple(action.peer, r, action.tag));
        if (it != sends.end())
          partner[r][i] = it->second;
      }
    }
  }

  bool finished(int rank) const {
    return pc[rank] >= static_cast<int>(program.ranks[rank].actions.size());
  }

  Slice &sliceOf(int rank, int index) {
    return report.ranks[rank].slices[index];
  }

  const StageCosts &stageCosts(int stage) const { return costs.stages[stage]; }

  double duration(const Action &action) const {
    return stageCosts(action.stage).of(action.kind);
  }

  void occupy(int rank, double start, double end) {
    Slice &slice = sliceOf(rank, pc[rank]);
    slice = {pc[rank], start, end};
    clock[rank] = end;
    ++pc[rank];
  }

  double perDevice(int rank, double bytes) const {
    return bytes / static_cast<double>(placement.devices[rank].size());
  }

  void allocate(int rank, double time, double bytes, MemoryKind kind) {
    if (bytes > 0)
      memory[rank].push_back({time, bytes, kind});
  }

  void release(int rank, double time, double bytes, MemoryKind kind) {
    if (bytes > 0)
      memory[rank].push_back({time, -bytes, kind});
  }

  /// When the data of the Send at pc[rank] is ready.
  double sendReady(int rank, const Action &action) {
    std::vector<ActionKind> kinds;
    if (action.payload == Payload::Activation)
      kinds = {ActionKind::Forward};
    else
      kinds = {ActionKind::Backward, ActionKind::BackwardInput};
    for (ActionKind kind : kinds) {
      auto it = producer[rank].find(std::make_tuple(
          static_cast<int>(kind), action.stage, action.microbatch));
      if (it != producer[rank].end() && it->second < pc[rank])
        return sliceOf(rank, it->second).end;
    }
    return clock[rank];
  }

  void runSend(int rank, const Action &action) {
    MessageReport message;
    message.fromRank = rank;
    message.toRank = action.peer;
    message.sendIndex = pc[rank];
    message.payload = action.payload;
    message.stage = action.stage;
    message.microbatch = action.microbatch;
    message.bytes = costs.messageBytes(action.payload, action.stage);
    message.ready = sendReady(rank, action);
    TransferCost cost =
        transferCost(cluster, placement.devices[rank],
                     placement.devices[action.peer], message.bytes);
    double &linkFree = links[{rank, action.peer}];
    message.start = std::max(message.ready, linkFree);
    message.end = message.start + cost.occupancy;
    message.arrival = message.end + cost.latency;
    message.handshake = cost.handshake;
    message.recvOverhead = cost.recvOverhead;
    message.deliverOverhead = cost.deliverOverhead;
    linkFree = message.end;
    // Posting the send takes the rank's time (a calibrated device's
    // sendOverhead): from its clock, which is the producer's end when the
    // Send follows it, as the runtime posts a send right after its data.
    double posted = message.ready, until = message.ready;
    if (cost.sendOverhead > 0) {
      posted = clock[rank];
      until = posted + cost.sendOverhead;
      clock[rank] = until;
    }
    inMpi[rank].push_back({posted, until});
    allocate(rank, message.ready, perDevice(rank, message.bytes),
             MemoryKind::Buffer);
    release(rank, message.end, perDevice(rank, message.bytes),
            MemoryKind::Buffer);

    messageOfSend[rank][pc[rank]] = static_cast<int>(report.messages.size());
    report.messages.push_back(message);
    Slice &slice = sliceOf(rank, pc[rank]);
    slice = {pc[rank], posted, until};
    ++pc[rank];
    worklist.push_back(action.peer);
  }

  /// Whether `rank` was inside one of its Sends or Recvs at `time`.
  bool insideMpi(int rank, double time) const {
    for (auto [begin, until] : inMpi[rank])
      if (begin <= time && time <= until)
        return true;
    return false;
  }

  /// Runs the Recv at pc[rank] if its message has been sent.
  bool runRecv(int rank, const Action &action) {
    int send = partner[rank][pc[rank]];
    if (send < 0 || pc[action.peer] <= send)
      return false;
    MessageReport &message = report.messages[messageOfSend[action.peer][send]];
    message.recvIndex = pc[rank];
    // A message already there still takes the receiver's time to complete
    // (recvOverhead; deliverOverhead when it arrived while this rank was
    // outside MPI, which matches and copies it in only now); one it waits
    // for ends at its arrival, whose one-way time includes that.
    double overhead = message.recvOverhead;
    if (message.arrival < clock[rank] && !insideMpi(rank, message.arrival))
      overhead = message.deliverOverhead;
    double end = std::max(clock[rank] + overhead, message.arrival);
    if (message.handshake > 0) {
      // A rendezvous moves once this rank is inside MPI after the send: in
      // a Send or Recv of its own since (or one still waiting then), else
      // in this Recv.
      double progress = std::max(clock[rank], message.start);
      for (auto [begin, until] : inMpi[rank])
        if (until >= message.start)
          progress = std::min(progress, std::max(begin, message.start));
      end = std::max(end, progress + message.handshake);
    }
    inMpi[rank].push_back({clock[rank], end});
    allocate(rank, message.start, perDevice(rank, message.bytes),
             MemoryKind::Buffer);
    release(rank, end, perDevice(rank, message.bytes), MemoryKind::Buffer);
    occupy(rank, clock[rank], end);
    return true;
  }

  /// Runs the explicit AllReduce at pc[rank] on all its ranks if they are
  /// all there.
  bool runAllReduce(int rank, const Action &action) {
    int ordinal = allReduceOrdinal[rank][pc[rank]];
    double start = 0;
    std::vector<int> devices;
    for (int member : action.group) {
      auto &lists = allReduceIndices[member];
      auto it = lists.find(action.stage);
      if (it == lists.end() || ordinal >= static_cast<int>(it->second.size()))
        return false;
      if (pc[member] != it->second[ordinal])
        return false;
      start = std::max(start, clock[member]);
      devices.insert(devices.end(), placement.devices[member].begin(),
                     placement.devices[member].end());
    }
    double seconds = allReduceSeconds(cluster, devices,
                                      stageCosts(action.stage).parameterBytes);
    for (int member : action.group) {
      occupy(member, start, start + seconds);
      if (member != rank)
        worklist.push_back(member);
    }
    return true;
  }

  /// Runs the TiedAllReduce at pc[rank] on all its ranks if they are all
  /// there: an all-reduce of the parameter's bytes over their devices.
  bool runTiedAllReduce(int rank, const Action &action) {
    double start = 0;
    std::vector<int> devices;
    for (int member : action.group) {
      auto it = tiedIndex[member].find(action.param);
      if (it == tiedIndex[member].end() || pc[member] != it->second)
        return false;
      start = std::max(start, clock[member]);
      devices.insert(devices.end(), placement.devices[member].begin(),
                     placement.devices[member].end());
    }
    auto bytes = costs.parameterBytesByName.find(action.param);
    double seconds = bytes == costs.parameterBytesByName.end()
                         ? 0
                         : allReduceSeconds(cluster, devices, bytes->second);
    for (int member : action.group) {
      occupy(member, start, start + seconds);
      if (member != rank)
        worklist.push_back(member);
    }
    return true;
  }

  void runOptimizer(int rank, const Action &action) {
    double start = clock[rank];
    bool explicitAllReduce = allReduceIndices[rank].count(action.stage) &&
                             !allReduceIndices[rank].at(action.stage).empty();
    if (placement.devices[rank].size() > 1 && !explicitAllReduce) {
      double seconds =
          allReduceSeconds(cluster, placement.devices[rank],
                           stageCosts(action.stage).parameterBytes);
      report.ranks[rank].allReduces.push_back(
          {action.stage, start, start + seconds});
      start += seconds;
    }
    occupy(rank, start, start + duration(action));
  }

  void runCompute(int rank, const Action &action) {
    double start = clock[rank];
    double end = start + duration(action);
    report.ranks[rank].busy += end - start;
    occupy(rank, start, end);
    if (program.forwardOnly)
      return;
    double stash = stageCosts(action.stage).stashBytes;
    int &count = inFlight[rank][action.stage];
    if (action.kind == ActionKind::Forward) {
      allocate(rank, start, stash, MemoryKind::Stash);
      ++count;
      int &peak = report.ranks[rank].peakInFlight[action.stage];
      peak = std::max(peak, count);
    } else if (action.kind == ActionKind::Backward ||
               action.kind == ActionKind::BackwardWeight) {
      release(rank, end, stash, MemoryKind::Stash);
      --count;
    }
  }

  /// Whether `rank` may go on at pc[rank]: false while it waits at the
  /// step's agreement (CostTable::stepAgreement) for the other ranks.
  bool passAgreement(int rank) {
    if (!agreementPending || pc[rank] != agreementIndex[rank])
      return true;
    arrived[rank] = true;
    for (int r = 0; r < numRanks; ++r)
      if (!arrived[r])
        return false;
    // Everyone is there: each rank's messages delivered (its sends arrived),
    // then one all-reduce of a flag over all devices.
    double start = 0;
    for (int r = 0; r < numRanks; ++r)
      start = std::max(start, clock[r] + checkSeconds[r]);
    for (const MessageReport &message : report.messages)
      start = std::max(start, message.arrival);
    std::vector<int> devices;
    for (int r = 0; r < numRanks; ++r)
      devices.insert(devices.end(), placement.devices[r].begin(),
                     placement.devices[r].end());
    double end = start + allReduceSeconds(cluster, devices, 8);
    agreementEnd = end;
    for (int r = 0; r < numRanks; ++r) {
      clock[r] = end;
      if (r != rank)
        worklist.push_back(r);
    }
    agreementPending = false;
    return true;
  }

  void advance(int rank) {
    while (true) {
      if (!passAgreement(rank))
        return;
      if (finished(rank))
        return;
      const Action &action = program.ranks[rank].actions[pc[rank]];
      switch (action.kind) {
      case ActionKind::Send:
        runSend(rank, action);
        break;
      case ActionKind::Recv:
        if (!runRecv(rank, action))
          return;
        break;
      case ActionKind::TiedAllReduce:
        if (!runTiedAllReduce(rank, action))
          return;
        break;
      case ActionKind::AllReduce:
        if (!runAllReduce(rank, action))
          return;
        break;
      case ActionKind::OptimizerStep:
        runOptimizer(rank, action);
        break;
      default:
        runCompute(rank, action);
        break;
      }
    }
  }

  /// Sweeps the memory events of `rank` for its peak.
  void accountMemory(int rank) {
    RankReport &out = report.ranks[rank];
    MemoryBreakdown base;
    for (int stage : program.ranks[rank].stages)
      base.weights += stageCosts(stage).parameterBytes;
    base.gradients = costs.gradientFactor * base.weights;
    base.optimizer = costs.optimizerStateFactor * base.weights;

    std::vector<MemoryEvent> &events = memory[rank];
    std::stable_sort(events.begin(), events.end(),
                     [](const MemoryEvent &a, const MemoryEvent &b) {
                       if (a.time != b.time)
                         return a.time < b.time;
                       return a.delta < b.delta; // releases first
                     });
    double stash = 0, buffers = 0;
    MemoryBreakdown peak = base;
    for (const MemoryEvent &event : events) {
      (event.kind == MemoryKind::Stash ? stash : buffers) += event.delta;
      if (stash + buffers > peak.stash + peak.buffers) {
        peak.stash = stash;
        peak.buffers = buffers;
      }
    }
    out.peakMemory = peak;
    out.fits = peak.total() <= cluster.memoryBytes;
    report.fits = report.fits && out.fits;
  }

  const Program &program;
  const CostTable &costs;
  const Cluster &cluster;
  const Placement &placement;
  int numRanks;
  std::vector<int> pc;
  std::vector<double> clock;
  /// [rank][stage]: microbatches currently stashed.
  std::vector<std::map<int, int>> inFlight;
  /// [rank]: memory allocations and releases.
  std::vector<std::vector<MemoryEvent>> memory;
  /// [rank]: (kind, stage, microbatch) -> index of F, B or I.
  std::vector<std::map<std::tuple<int, int, int>, int>> producer;
  /// [rank][index]: for a Recv, the index of its Send on the peer.
  std::vector<std::vector<int>> partner;
  /// [rank][index]: for a Send that ran, its message in report.messages.
  std::vector<std::vector<int>> messageOfSend;
  /// [rank]: when each of its Sends and Recvs so far was inside MPI (a
  /// Send the moment it posts, a Recv from its start to its end).
  std::vector<std::vector<std::pair<double, double>>> inMpi;
  /// [rank][index]: for an AllReduce, how many of its stage precede it.
  std::vector<std::vector<int>> allReduceOrdinal;
  /// [rank][stage]: indices of the rank's explicit AllReduce actions.
  std::vector<std::map<int, std::vector<int>>> allReduceIndices;
  /// [rank]: parameter -> index of its TiedAllReduce.
  std::vector<std::map<std::string, int>> tiedIndex;
  /// (from rank, to rank) -> when the directed link is free.
  std::map<std::pair<int, int>, double> links;
  std::vector<int> worklist;
  /// The step's agreement: still to come; [rank] where the rank waits for
  /// it (its first OptimizerStep, or the end of its list), and whether it
  /// is there.
  bool agreementPending = false;
  double agreementEnd = 0;
  std::vector<int> agreementIndex;
  /// Seconds each rank scans its gradients before the agreement.
  std::vector<double> checkSeconds;
  std::vector<bool> arrived;
  SimReport report;
};

} // namespace

SimReport simulate(const Program &program, const CostTable &costs,
                   const Cluster &cluster, const Placement &placement) {
  std::vector<schedule::Diagnostic> diagnostics = schedule::verify(program);
  if (!diagnostics.empty()) {
    SimReport result;
    result.error = "invalid program: " + diagnostics.front().message;
    return result;
  }
  // More ranks than the calibrated machine's cores: the ranks share them.
  int ranks = static_cast<int>(program.ranks.size());
  const std::optional<Calibration> &measured = cluster.device.calibration;
  if (!measured || measured->cores <= 0 || ranks <= measured->cores)
    return Run(program, costs, cluster, placement).run();
  double stretch = static_cast<double>(ranks) / measured->cores;
  CostTable shared = costs;
  for (StageCosts &stage : shared.stages)
    for (double *d : {&stage.forward, &stage.backward, &stage.backwardInput,
                      &stage.backwardWeight, &stage.optimizer})
      *d *= stretch;
  SimReport result = Run(program, shared, cluster, placement).run();
  result.oversubscription = stretch;
  return result;
}

SimReport simulate(const Program &program, const CostTable &costs,
                   const Cluster &cluster) {
  return simulate(
      program, costs, cluster,
      Placement::onePerRank(static_cast<int>(program.ranks.size())));
}

} // namespace pipewave::sim
