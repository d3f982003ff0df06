//===- Timeline.cpp - A program's timeline under uniform costs ------------===//

#include "pipewave/Schedule/Timeline.h"

#include "pipewave/Schedule/Verify.h"

#include "ActionTable.h"
#include "Links.h"

#include <algorithm>

namespace pipewave::schedule {

namespace {

class TimingRun {
public:
  TimingRun(const Program &program, const UniformCosts &costs)
      : program(program), costs(costs), links(detail::linkProgram(program)),
        pc(program.ranks.size(), 0), clock(program.ranks.size(), 0),
        inFlight(program.ranks.size()), stashed(program.ranks.size(), 0) {
    result.ranks.resize(program.ranks.size());
    tables.reserve(program.ranks.size());
    for (size_t r = 0; r < program.ranks.size(); ++r) {
      const RankProgram &rank = program.ranks[r];
      tables.emplace_back(program, rank);
      result.ranks[r].slices.resize(rank.actions.size());
      for (int stage : rank.stages) {
        result.ranks[r].peakInFlight[stage] = 0;
        inFlight[r][stage] = 0;
      }
    }
  }

  StepTimeline run() {
    for (size_t r = 0; r < program.ranks.size(); ++r)
      worklist.push_back(static_cast<int>(r));
    while (!worklist.empty()) {
      int rank = worklist.back();
      worklist.pop_back();
      advance(rank);
    }
    for (size_t r = 0; r < program.ranks.size(); ++r)
      if (!finished(static_cast<int>(r)))
        return failure("simulation stalled at rank " + std::to_string(r));

    double busy = 0;
    for (size_t r = 0; r < program.ranks.size(); ++r) {
      RankTiming &timing = result.ranks[r];
      for (const Slice &slice : timing.slices)
        timing.finish = std::max(timing.finish, slice.end);
      result.makespan = std::max(result.makespan, timing.finish);
      busy += timing.busy;
    }
    if (result.makespan > 0)
      result.bubbleFraction =
          1 -
          busy / (static_cast<double>(program.ranks.size()) * result.makespan);
    return std::move(result);
  }

private:
  StepTimeline failure(std::string error) {
    StepTimeline failed;
    failed.error = std::move(error);
    return failed;
  }

  bool finished(int rank) const {
    return pc[rank] >= static_cast<int>(program.ranks[rank].actions.size());
  }

  Slice &sliceOf(int rank, int index) {
    return result.ranks[rank].slices[index];
  }

  /// Runs the action at pc[rank] on the rank's clock for `duration`.
  void occupy(int rank, double start, double duration) {
    Slice &slice = sliceOf(rank, pc[rank]);
    slice.actionIndex = pc[rank];
    slice.start = start;
    slice.end = start + duration;
    clock[rank] = slice.end;
    ++pc[rank];
  }

  /// Tracks stashed activations after a compute action at pc[rank] ends.
  void trackInFlight(int rank, const Action &action) {
    if (program.forwardOnly)
      return;
    int &count = inFlight[rank][action.stage];
    int &total = stashed[rank];
    RankTiming &timing = result.ranks[rank];
    if (action.kind == ActionKind::Forward) {
      ++count;
      ++total;
      int &peak = timing.peakInFlight[action.stage];
      peak = std::max(peak, count);
      timing.peakStash = std::max(timing.peakStash, total);
    } else if (action.kind == ActionKind::Backward ||
               action.kind == ActionKind::BackwardWeight) {
      --count;
      --total;
    }
  }

  /// When the data of the Send at pc[rank] is ready: the end of its producer
  /// (F for activations, B or I for gradients), else the rank's clock.
  double sendReady(int rank, const Action &action) {
    const detail::ActionTable &table = tables[rank];
    int producer =
        action.payload == Payload::Activation
            ? table.first(ActionKind::Forward, action.stage, action.microbatch)
            : table.backward(action.stage, action.microbatch);
    if (producer >= 0 && producer < pc[rank])
      return sliceOf(rank, producer).end;
    return clock[rank];
  }

  void advance(int rank) {
    while (!finished(rank)) {
      const Action &action = program.ranks[rank].actions[pc[rank]];
      switch (action.kind) {
      case ActionKind::Send: {
        double ready = sendReady(rank, action);
        Slice &slice = sliceOf(rank, pc[rank]);
        slice = {pc[rank], ready, ready};
        ++pc[rank];
        worklist.push_back(action.peer);
        break;
      }
      case ActionKind::Recv: {
        int send = links.partner[rank][pc[rank]];
        if (send < 0 || pc[action.peer] <= send)
          return; // The matching Send has not been reached yet.
        double ready = sliceOf(action.peer, send).end;
        occupy(rank, clock[rank],
               std::max(clock[rank], ready) + costs.comm - clock[rank]);
        break;
      }
      case ActionKind::AllReduce:
      case ActionKind::TiedAllReduce:
        if (!runAllReduce(rank, action))
          return;
        break;
      default: {
        double duration = costs.of(action.kind);
        if (isCompute(action.kind))
          result.ranks[rank].busy += duration;
        occupy(rank, clock[rank], duration);
        trackInFlight(rank, action);
        break;
      }
      }
    }
  }

  /// Runs the AllReduce (or TiedAllReduce) at pc[rank] on all its ranks if
  /// they are all there.
  bool runAllReduce(int rank, const Action &action) {
    int ordinal = links.ordinal[rank][pc[rank]];
    double start = 0;
    for (int member : action.group) {
      int index = action.kind == ActionKind::TiedAllReduce
                      ? links.tiedOn(member, action.param)
                      : links.allReduceOn(member, action.stage, ordinal);
      if (index < 0 || pc[member] != index)
        return false;
      start = std::max(start, clock[member]);
    }
    for (int member : action.group) {
      occupy(member, start, costs.allReduce);
      if (member != rank)
        worklist.push_back(member);
    }
    return true;
  }

  const Program &program;
  const UniformCosts &costs;
  detail::Links links;
  std::vector<detail::ActionTable> tables;
  std::vector<int> pc;
  std::vector<double> clock;
  /// [rank][stage]: microbatches currently stashed.
  std::vector<std::map<int, int>> inFlight;
  /// [rank]: microbatches currently stashed, summed over the rank's stages.
  std::vector<int> stashed;
  std::vector<int> worklist;
  StepTimeline result;
};

} // namespace

StepTimeline computeTimeline(const Program &program,
                             const UniformCosts &costs) {
  std::vector<Diagnostic> diagnostics = verify(program);
  if (!diagnostics.empty()) {
    StepTimeline result;
    result.error = "invalid program: " + diagnostics.front().message;
    return result;
  }
  return TimingRun(program, costs).run();
}

} // namespace pipewave::schedule
