//===- ComputeOrder.cpp - Programs from per-rank compute orders -----------===//

#include "ComputeOrder.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace pipewave::schedule::detail {

namespace {

bool isBackwardKind(ActionKind kind) {
  return kind == ActionKind::Backward || kind == ActionKind::BackwardInput ||
         kind == ActionKind::BackwardWeight;
}

/// Costs of the ordering run: positive so that every rank's start times
/// strictly increase along its order (see ComputeOrder.h).
int64_t orderingCost(ActionKind kind) {
  switch (kind) {
  case ActionKind::Forward:
  case ActionKind::BackwardInput:
  case ActionKind::BackwardWeight:
    return 1000;
  case ActionKind::Backward:
    return 2000;
  default:
    return 1;
  }
}

/// A rank index and a step index in its order.
struct StepRef {
  int rank = -1;
  int index = -1;
};

/// One event of the global sequence.
struct Event {
  int64_t time = 0;
  int rank = 0;
  int index = 0;
  /// 0 for a transfer (placed right before its consumer), 1 for a step.
  int sub = 0;
  /// Transfer only: the producing step.
  StepRef producer;
};

class Lowering {
public:
  Lowering(const Program &skeleton, const ComputeOrder &order,
           const StepNamer &namer)
      : skeleton(skeleton), order(order), namer(namer),
        numStages(skeleton.numStages),
        numMicrobatches(skeleton.numMicrobatches),
        numRanks(static_cast<int>(skeleton.ranks.size())) {}

  BuildResult run() {
    if (auto error = checkShape())
      return BuildResult::failure(*error);
    if (auto error = indexSteps())
      return BuildResult::failure(*error);
    if (auto error = timeSteps())
      return BuildResult::failure(*error);
    return BuildResult::success(emit());
  }

private:
  std::string name(int rank, int index) const {
    if (namer)
      return namer(rank, index);
    const Step &step = order[rank][index];
    return "'" + stepToken(step) + "' (step " + std::to_string(index) +
           " of rank " + std::to_string(rank) + ")";
  }

  std::string rankName(int rank) const {
    return "rank " + std::to_string(rank);
  }

  std::optional<std::string> checkShape() {
    if (numStages < 1)
      return "the number of stages must be at least 1 (got " +
             std::to_string(numStages) + ")";
    if (numMicrobatches < 1)
      return "the number of microbatches must be at least 1 (got " +
             std::to_string(numMicrobatches) + ")";
    if (numRanks < 1)
      return std::string("there are no ranks");
    if (static_cast<int>(order.size()) != numRanks)
      return "the compute order has " + std::to_string(order.size()) +
             " ranks but the placement has " + std::to_string(numRanks);
    replicas.assign(numStages, {});
    replicaIndex.assign(numRanks, std::vector<int>(numStages, -1));
    for (int r = 0; r < numRanks; ++r) {
      const std::vector<int> &stages = skeleton.ranks[r].stages;
      if (stages.empty())
        return rankName(r) + " holds no stage";
      for (size_t i = 0; i < stages.size(); ++i) {
        int stage = stages[i];
        if (stage < 0 || stage >= numStages)
          return rankName(r) + " holds stage " + std::to_string(stage) +
                 ", out of range [0, " + std::to_string(numStages) + ")";
        if (i > 0 && stages[i - 1] >= stage)
          return rankName(r) + ": the stage list must be sorted and "
                               "duplicate-free";
        replicaIndex[r][stage] = static_cast<int>(replicas[stage].size());
        replicas[stage].push_back(r);
      }
    }
    for (int stage = 0; stage < numStages; ++stage)
      if (replicas[stage].empty())
        return "stage " + std::to_string(stage) + " is held by no rank";
    for (int stage = 0; stage + 1 < numStages; ++stage) {
      if (replicas[stage].size() != replicas[stage + 1].size())
        return "stages " + std::to_string(stage) + " and " +
               std::to_string(stage + 1) +
               " have different numbers of "
               "replicas (" +
               std::to_string(replicas[stage].size()) + " and " +
               std::to_string(replicas[stage + 1].size()) +
               "), so their ranks cannot be paired";
      for (int r : replicas[stage])
        if (replicaIndex[r][stage + 1] >= 0 &&
            replicaIndex[r][stage + 1] != replicaIndex[r][stage])
          return rankName(r) + " holds stages " + std::to_string(stage) +
                 " and " + std::to_string(stage + 1) +
                 " as different replicas (" +
                 std::to_string(replicaIndex[r][stage]) + " and " +
                 std::to_string(replicaIndex[r][stage + 1]) + ")";
    }
    return std::nullopt;
  }

  /// The rank that exchanges data with `rank`'s copy of `stage` across the
  /// boundary to `otherStage` (possibly `rank` itself).
  int partner(int rank, int stage, int otherStage) const {
    return replicas[otherStage][replicaIndex[rank][stage]];
  }

  size_t slot(int stage, int microbatch) const {
    return static_cast<size_t>(stage) * numMicrobatches + microbatch;
  }

  /// Checks every step and fills the per-rank position tables.
  std::optional<std::string> indexSteps() {
    size_t size = static_cast<size_t>(numStages) * numMicrobatches;
    forwardAt.assign(numRanks, std::vector<int>(size, -1));
    backwardAt.assign(numRanks, std::vector<int>(size, -1));
    weightAt.assign(numRanks, std::vector<int>(size, -1));
    fullAt.assign(numRanks, std::vector<int>(size, -1));
    allReduceOrdinal.assign(numRanks, {});
    allReduces.assign(numRanks, std::vector<std::vector<int>>(numStages));

    for (int r = 0; r < numRanks; ++r) {
      std::vector<int> lastBackward(numStages, -1);
      std::vector<int> optimizerAt(numStages, -1);
      allReduceOrdinal[r].assign(order[r].size(), -1);
      for (size_t i = 0; i < order[r].size(); ++i) {
        const Step &step = order[r][i];
        int index = static_cast<int>(i);
        std::string where = name(r, index);
        if (step.stage < 0 || step.stage >= numStages)
          return where + ": stage " + std::to_string(step.stage) +
                 " is out of range [0, " + std::to_string(numStages) + ")";
        if (replicaIndex[r][step.stage] < 0)
          return where + ": " + rankName(r) + " does not hold stage " +
                 std::to_string(step.stage);
        if (skeleton.forwardOnly && step.kind != ActionKind::Forward)
          return where + ": a forward-only program has only F steps";
        if (!isCompute(step.kind)) {
          if (step.kind != ActionKind::AllReduce &&
              step.kind != ActionKind::OptimizerStep)
            return where + ": sends and receives are implied, not listed";
          if (step.kind == ActionKind::OptimizerStep) {
            if (optimizerAt[step.stage] >= 0)
              return where + " is a second optimizer step for stage " +
                     std::to_string(step.stage);
            optimizerAt[step.stage] = index;
          } else {
            std::vector<int> &list = allReduces[r][step.stage];
            allReduceOrdinal[r][i] = static_cast<int>(list.size());
            list.push_back(index);
          }
          continue;
        }
        if (step.microbatch < 0 || step.microbatch >= numMicrobatches)
          return where + ": microbatch " + std::to_string(step.microbatch) +
                 " is out of range [0, " + std::to_string(numMicrobatches) +
                 ")";
        size_t key = slot(step.stage, step.microbatch);
        std::vector<int> *table = nullptr;
        switch (step.kind) {
        case ActionKind::Forward:
          table = &forwardAt[r];
          break;
        case ActionKind::Backward:
          table = &fullAt[r];
          break;
        case ActionKind::BackwardInput:
          table = &backwardAt[r];
          break;
        default:
          table = &weightAt[r];
          break;
        }
        if ((*table)[key] >= 0)
          return where + " duplicates " + name(r, (*table)[key]);
        (*table)[key] = index;
        if (isBackwardKind(step.kind))
          lastBackward[step.stage] = index;
      }

      // Completeness, and collectives after the backward actions.
      for (int stage : skeleton.ranks[r].stages) {
        for (int m = 0; m < numMicrobatches; ++m) {
          size_t key = slot(stage, m);
          std::string what = rankName(r) + ": stage " + std::to_string(stage) +
                             " microbatch " + std::to_string(m);
          if (forwardAt[r][key] < 0)
            return what + " has no forward (F)";
          if (skeleton.forwardOnly)
            continue;
          bool full = fullAt[r][key] >= 0;
          bool input = backwardAt[r][key] >= 0;
          bool weight = weightAt[r][key] >= 0;
          if (full && (input || weight))
            return what + " has both B and I/W";
          if (!full && !input && !weight)
            return what + " has no backward (B or I+W)";
          if (!full && !input)
            return what + " has W but no I";
          if (!full && !weight)
            return what + " has I but no W";
          if (full)
            backwardAt[r][key] = fullAt[r][key];
        }
        for (int index : allReduces[r][stage])
          if (index < lastBackward[stage])
            return name(r, index) + " comes before " +
                   name(r, lastBackward[stage]) +
                   ", whose gradients it reduces";
        if (optimizerAt[stage] >= 0 && optimizerAt[stage] < lastBackward[stage])
          return name(r, optimizerAt[stage]) + " comes before " +
                 name(r, lastBackward[stage]) + ", whose gradients it applies";
        if (optimizerAt[stage] >= 0 && !allReduces[r][stage].empty() &&
            optimizerAt[stage] < allReduces[r][stage].back())
          return name(r, optimizerAt[stage]) + " comes before " +
                 name(r, allReduces[r][stage].back()) +
                 ", whose result it applies";
      }
    }

    // Every replica of a stage must run the same number of allreduces.
    for (int stage = 0; stage < numStages; ++stage) {
      const std::vector<int> &ranks = replicas[stage];
      for (int r : ranks)
        if (allReduces[r][stage].size() != allReduces[ranks[0]][stage].size())
          return "stage " + std::to_string(stage) + " has " +
                 std::to_string(allReduces[ranks[0]][stage].size()) +
                 " allreduce(s) on " + rankName(ranks[0]) + " but " +
                 std::to_string(allReduces[r][stage].size()) + " on " +
                 rankName(r);
    }
    return std::nullopt;
  }

  /// The steps a step needs from other ranks or earlier in its own order:
  /// (rank, index) pairs; `remote` receives the cross-rank data producer.
  std::vector<StepRef> dependencies(int rank, int index,
                                    std::optional<StepRef> &remote) const {
    const Step &step = order[rank][index];
    std::vector<StepRef> result;
    auto add = [&](int onRank, int at, bool data) {
      result.push_back({onRank, at});
      if (data && onRank != rank)
        remote = StepRef{onRank, at};
    };
    int s = step.stage, m = step.microbatch;
    switch (step.kind) {
    case ActionKind::Forward:
      if (s > 0) {
        int from = partner(rank, s, s - 1);
        add(from, forwardAt[from][slot(s - 1, m)], true);
      }
      break;
    case ActionKind::Backward:
    case ActionKind::BackwardInput:
      add(rank, forwardAt[rank][slot(s, m)], false);
      if (s + 1 < numStages) {
        int from = partner(rank, s, s + 1);
        add(from, backwardAt[from][slot(s + 1, m)], true);
      }
      break;
    case ActionKind::BackwardWeight:
      add(rank, backwardAt[rank][slot(s, m)], false);
      break;
    default:
      break;
    }
    return result;
  }

  /// Times the orders as soon as possible (see ComputeOrder.h) and records
  /// the cross-rank producer of every step.
  std::optional<std::string> timeSteps() {
    start.assign(numRanks, {});
    remoteInput.assign(numRanks, {});
    for (int r = 0; r < numRanks; ++r) {
      start[r].assign(order[r].size(), -1);
      remoteInput[r].assign(order[r].size(), StepRef{});
    }
    std::vector<int64_t> end(numRanks, 0);
    std::vector<int> pc(numRanks, 0);
    std::vector<std::vector<int64_t>> finish(numRanks);
    for (int r = 0; r < numRanks; ++r)
      finish[r].assign(order[r].size(), -1);

    // Local dependencies must come earlier in the same order.
    for (int r = 0; r < numRanks; ++r)
      for (size_t i = 0; i < order[r].size(); ++i) {
        std::optional<StepRef> remote;
        for (StepRef dep : dependencies(r, static_cast<int>(i), remote))
          if (dep.rank == r && dep.index > static_cast<int>(i))
            return name(r, static_cast<int>(i)) + " comes before " +
                   name(r, dep.index) + ", which it depends on";
      }

    std::vector<int> worklist;
    for (int r = 0; r < numRanks; ++r)
      worklist.push_back(r);
    while (!worklist.empty()) {
      int rank = worklist.back();
      worklist.pop_back();
      while (pc[rank] < static_cast<int>(order[rank].size())) {
        int index = pc[rank];
        const Step &step = order[rank][index];
        if (step.kind == ActionKind::AllReduce) {
          int ordinal = allReduceOrdinal[rank][index];
          bool all = true;
          int64_t at = 0;
          for (int member : replicas[step.stage]) {
            int other = allReduces[member][step.stage][ordinal];
            if (pc[member] != other) {
              all = false;
              break;
            }
            at = std::max(at, end[member]);
          }
          if (!all)
            break;
          for (int member : replicas[step.stage]) {
            int other = allReduces[member][step.stage][ordinal];
            start[member][other] = at;
            finish[member][other] = at + orderingCost(step.kind);
            end[member] = finish[member][other];
            ++pc[member];
            if (member != rank)
              worklist.push_back(member);
          }
          continue;
        }
        std::optional<StepRef> remote;
        int64_t at = end[rank];
        bool ready = true;
        for (StepRef dep : dependencies(rank, index, remote)) {
          int64_t done = finish[dep.rank][dep.index];
          if (done < 0) {
            ready = false;
            break;
          }
          at = std::max(at, done);
        }
        if (!ready)
          break;
        if (remote)
          remoteInput[rank][index] = *remote;
        start[rank][index] = at;
        finish[rank][index] = at + orderingCost(step.kind);
        end[rank] = finish[rank][index];
        ++pc[rank];
        // The consumer of this step's data on another rank may proceed now.
        if (step.kind == ActionKind::Forward && step.stage + 1 < numStages)
          worklist.push_back(partner(rank, step.stage, step.stage + 1));
        else if ((step.kind == ActionKind::Backward ||
                  step.kind == ActionKind::BackwardInput) &&
                 step.stage > 0)
          worklist.push_back(partner(rank, step.stage, step.stage - 1));
      }
    }

    for (int r = 0; r < numRanks; ++r) {
      if (pc[r] >= static_cast<int>(order[r].size()))
        continue;
      int index = pc[r];
      const Step &step = order[r][index];
      std::string reason;
      if (step.kind == ActionKind::AllReduce) {
        reason = "not all ranks of its group reach it";
      } else {
        std::optional<StepRef> remote;
        for (StepRef dep : dependencies(r, index, remote))
          if (finish[dep.rank][dep.index] < 0) {
            reason = "it waits for " + name(dep.rank, dep.index) + " on " +
                     rankName(dep.rank);
            if (pc[dep.rank] < static_cast<int>(order[dep.rank].size()))
              reason += ", which is stuck at " + name(dep.rank, pc[dep.rank]);
            break;
          }
      }
      return "the order cannot run: " + rankName(r) + " stalls at " +
             name(r, index) + ": " + reason;
    }
    return std::nullopt;
  }

  Program emit() const {
    std::vector<Event> events;
    for (int r = 0; r < numRanks; ++r) {
      for (size_t i = 0; i < order[r].size(); ++i) {
        int index = static_cast<int>(i);
        const Step &step = order[r][i];
        if (step.kind == ActionKind::AllReduce &&
            r != replicas[step.stage].front())
          continue; // One event per allreduce, owned by its first member.
        events.push_back({start[r][i], r, index, 1, {}});
        if (remoteInput[r][i].rank >= 0)
          events.push_back({start[r][i], r, index, 0, remoteInput[r][i]});
      }
    }
    std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
      if (a.time != b.time)
        return a.time < b.time;
      if (a.rank != b.rank)
        return a.rank < b.rank;
      if (a.index != b.index)
        return a.index < b.index;
      return a.sub < b.sub;
    });

    Program program;
    program.numStages = numStages;
    program.numMicrobatches = numMicrobatches;
    program.forwardOnly = skeleton.forwardOnly;
    program.schedule = skeleton.schedule;
    program.ranks.resize(numRanks);
    for (int r = 0; r < numRanks; ++r) {
      program.ranks[r].rank = r;
      program.ranks[r].stages = skeleton.ranks[r].stages;
    }

    for (const Event &event : events) {
      const Step &step = order[event.rank][event.index];
      if (event.sub == 1) {
        if (step.kind == ActionKind::AllReduce) {
          for (int member : replicas[step.stage]) {
            Action action{ActionKind::AllReduce};
            action.stage = step.stage;
            action.group = replicas[step.stage];
            program.ranks[member].actions.push_back(std::move(action));
          }
          continue;
        }
        Action action{step.kind};
        action.stage = step.stage;
        action.microbatch = isCompute(step.kind) ? step.microbatch : -1;
        program.ranks[event.rank].actions.push_back(std::move(action));
        continue;
      }
      // A transfer into the consumer step from its producer.
      const Step &producer = order[event.producer.rank][event.producer.index];
      bool activation = step.kind == ActionKind::Forward;
      Payload payload = activation ? Payload::Activation : Payload::Gradient;
      int boundary = activation ? step.stage - 1 : step.stage;
      int64_t tag = messageTag(payload, boundary, step.microbatch, numStages,
                               numMicrobatches);
      Action send{ActionKind::Send};
      send.stage = producer.stage;
      send.microbatch = step.microbatch;
      send.payload = payload;
      send.peer = event.rank;
      send.tag = tag;
      program.ranks[event.producer.rank].actions.push_back(std::move(send));
      Action recv{ActionKind::Recv};
      recv.stage = step.stage;
      recv.microbatch = step.microbatch;
      recv.payload = payload;
      recv.peer = event.producer.rank;
      recv.tag = tag;
      program.ranks[event.rank].actions.push_back(std::move(recv));
    }
    return program;
  }

  const Program &skeleton;
  const ComputeOrder &order;
  const StepNamer &namer;
  int numStages;
  int numMicrobatches;
  int numRanks;
  /// stage -> ranks holding it, ascending.
  std::vector<std::vector<int>> replicas;
  /// [rank][stage] -> position of rank in replicas[stage], or -1.
  std::vector<std::vector<int>> replicaIndex;
  /// [rank][stage * M + mb] -> index of the F / B-or-I / W / B step, or -1.
  std::vector<std::vector<int>> forwardAt, backwardAt, weightAt, fullAt;
  /// [rank][index] -> ordinal of an AllReduce among its stage's, else -1.
  std::vector<std::vector<int>> allReduceOrdinal;
  /// [rank][stage] -> indices of the AllReduce steps.
  std::vector<std::vector<std::vector<int>>> allReduces;
  /// [rank][index] -> start time of the step in the ordering run.
  std::vector<std::vector<int64_t>> start;
  /// [rank][index] -> the producer on another rank of the step's input.
  std::vector<std::vector<StepRef>> remoteInput;
};

} // namespace

std::string stepToken(const Step &step) {
  std::string stage = std::to_string(step.stage);
  switch (step.kind) {
  case ActionKind::AllReduce:
    return "AR" + stage;
  case ActionKind::OptimizerStep:
    return "OPT" + stage;
  default:
    return stage + stringify(step.kind) + std::to_string(step.microbatch);
  }
}

std::string describeStages(int numStages) {
  return std::to_string(numStages) + (numStages == 1 ? " stage" : " stages");
}

std::optional<std::string> checkAtLeast(const char *what, int value,
                                        int minimum) {
  if (value >= minimum)
    return std::nullopt;
  return std::string("the number of ") + what + " must be at least " +
         std::to_string(minimum) + " (got " + std::to_string(value) + ")";
}

BuildResult lowerComputeOrder(const Program &skeleton,
                              const ComputeOrder &order,
                              const StepNamer &namer) {
  return Lowering(skeleton, order, namer).run();
}

Program makeSkeleton(int numStages, int numMicrobatches, int numRanks,
                     std::string schedule,
                     const std::function<std::vector<int>(int)> &stagesOfRank) {
  Program program;
  program.numStages = numStages;
  program.numMicrobatches = numMicrobatches;
  program.schedule = std::move(schedule);
  program.ranks.resize(numRanks > 0 ? numRanks : 0);
  for (int r = 0; r < numRanks; ++r) {
    program.ranks[r].rank = r;
    program.ranks[r].stages = stagesOfRank(r);
    std::sort(program.ranks[r].stages.begin(), program.ranks[r].stages.end());
  }
  return program;
}

} // namespace pipewave::schedule::detail
