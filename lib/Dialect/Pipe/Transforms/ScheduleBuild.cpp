//===- ScheduleBuild.cpp - Replicas and the search of auto ----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "ScheduleBuild.h"

#include "pipewave/Schedule/ActionList.h"
#include "pipewave/Simulator/Simulator.h"

#include <algorithm>
#include <numeric>

using namespace pipewave;
using namespace pipewave::pipe::scheduling;

namespace {

/// "[0, 2]".
std::string describeRanks(const std::vector<int> &ranks) {
  std::string text = "[";
  for (size_t i = 0; i < ranks.size(); ++i)
    text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text + "]";
}

} // namespace

schedule::BuildResult
pipewave::pipe::scheduling::replicateProgram(const schedule::Program &program,
                                             int replicas) {
  if (replicas < 1)
    return schedule::BuildResult::failure("replicas must be at least 1, got " +
                                          std::to_string(replicas));
  if (replicas == 1)
    return schedule::BuildResult::success(program);
  int numRanks = static_cast<int>(program.ranks.size());
  for (int stage = 0; stage < program.numStages; ++stage)
    if (schedule::ranksOfStage(program, stage).size() > 1)
      return schedule::BuildResult::failure(
          "the schedule already replicates stage " + std::to_string(stage) +
          " on ranks " + describeRanks(schedule::ranksOfStage(program, stage)) +
          "; replicas=" + std::to_string(replicas) +
          " copies a pipeline without replicas");

  schedule::Program result = program;
  result.ranks.clear();
  for (int k = 0; k < replicas; ++k) {
    for (int r = 0; r < numRanks; ++r) {
      const schedule::RankProgram &rank = program.ranks[r];
      schedule::RankProgram copy;
      copy.rank = k * numRanks + r;
      copy.stages = rank.stages;
      for (const schedule::Action &action : rank.actions) {
        schedule::Action moved = action;
        if (action.kind == schedule::ActionKind::Send ||
            action.kind == schedule::ActionKind::Recv)
          moved.peer = k * numRanks + action.peer;
        if (action.kind == schedule::ActionKind::OptimizerStep) {
          // Every replica of the stage sums its gradients with the others
          // before updating its copy of the parameters.
          schedule::Action reduce{schedule::ActionKind::AllReduce};
          reduce.stage = action.stage;
          for (int j = 0; j < replicas; ++j)
            reduce.group.push_back(j * numRanks + r);
          copy.actions.push_back(reduce);
        }
        copy.actions.push_back(moved);
      }
      result.ranks.push_back(std::move(copy));
    }
  }
  return schedule::BuildResult::success(std::move(result));
}

SearchResult
pipewave::pipe::scheduling::searchSchedules(const pipewave::ModelCosts &costs,
                                            const SearchOptions &options) {
  int numStages = static_cast<int>(costs.stages.size());
  std::vector<ScheduleSpec> specs;
  for (const schedule::ScheduleFamily *family :
       schedule::ScheduleRegistry::instance().families()) {
    if (family->optionName.empty() || family->searchOptions.empty())
      specs.push_back(
          {family, family->optionName.empty() ? 0 : family->defaultOption});
    for (int option : family->searchOptions)
      specs.push_back({family, option});
  }

  SearchResult result;
  std::vector<schedule::Program> programs;
  int cores = costs.device.calibration ? costs.device.calibration->cores : 0;
  for (const ScheduleSpec &spec : specs) {
    if (options.forwardOnly && spec.family->splitBackward)
      continue;
    std::string error;
    std::optional<int> ranks =
        spec.family->ranksFor(numStages, spec.option, error);
    // Schedules with several stages per rank on a single rank are not
    // pipelines.
    if (!ranks || (*ranks < 2 && *ranks != numStages))
      continue;
    for (int M : options.microbatchCounts) {
      schedule::BuildResult built = schedule::buildFamily(
          *spec.family, spec.option, numStages, M, options.forwardOnly);
      if (!built)
        continue;
      for (bool recompute : {false, true}) {
        if (recompute && (!options.searchRecompute || options.forwardOnly))
          continue;
        Candidate candidate;
        candidate.spec = spec;
        candidate.microbatches = M;
        candidate.fullRecompute = recompute;
        candidate.ranks = static_cast<int>(built.program->ranks.size());
        sim::Cluster cluster =
            pipewave::makeCluster(costs.device, candidate.ranks,
                                  options.devicesPerNode, options.memoryBytes);
        sim::SimReport report = sim::simulate(
            *built.program,
            costs.costTable(
                M, recompute,
                nodeParameterShare(candidate.ranks, options.devicesPerNode)),
            cluster);
        if (!report.error.empty())
          continue;
        candidate.stepSeconds = report.stepTime;
        candidate.bubble = report.bubbleFraction;
        for (const sim::RankReport &rank : report.ranks)
          candidate.peakMemoryBytes =
              std::max(candidate.peakMemoryBytes, rank.peakMemory.total());
        candidate.fits = report.fits;
        candidate.oversubscribed = cores > 0 && candidate.ranks > cores;
        result.oversubscribed += candidate.oversubscribed;
        result.candidates.push_back(candidate);
        programs.push_back(*built.program);
      }
    }
  }

  std::vector<size_t> order(result.candidates.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Candidate &x = result.candidates[a], &y = result.candidates[b];
    if (x.oversubscribed != y.oversubscribed)
      return y.oversubscribed;
    if (x.stepSeconds != y.stepSeconds)
      return x.stepSeconds < y.stepSeconds;
    return x.peakMemoryBytes < y.peakMemoryBytes;
  });
  std::vector<Candidate> sorted;
  for (size_t index : order) {
    if (result.best < 0 && result.candidates[index].fits) {
      result.best = static_cast<int>(sorted.size());
      result.program = programs[index];
    }
    sorted.push_back(result.candidates[index]);
  }
  result.candidates = std::move(sorted);
  return result;
}
