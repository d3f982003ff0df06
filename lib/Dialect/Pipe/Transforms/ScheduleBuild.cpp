//===- ScheduleBuild.cpp - Schedules by name, and their search ------------===//
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

std::string ScheduleSpec::describe() const {
  std::string text = name;
  if (name == "interleaved")
    text += " chunks=" + std::to_string(chunks);
  else if (name == "hanayo")
    text += " waves=" + std::to_string(waves);
  return text;
}

std::optional<std::string>
pipewave::pipe::scheduling::canonicalScheduleName(llvm::StringRef name) {
  static const std::pair<const char *, const char *> names[] = {
      {"gpipe", "gpipe"},
      {"1f1b", "1f1b"},
      {"interleaved", "interleaved"},
      {"interleaved-1f1b", "interleaved"},
      {"hanayo", "hanayo"},
      {"zb-h1", "zb-h1"},
      {"zbh1", "zb-h1"},
      {"zb-v", "zb-v"},
      {"zbv", "zb-v"}};
  for (auto [alias, canonical] : names)
    if (name == alias)
      return std::string(canonical);
  return std::nullopt;
}

bool pipewave::pipe::scheduling::isSplitSchedule(llvm::StringRef name) {
  return name == "zb-h1" || name == "zb-v";
}

std::optional<int>
pipewave::pipe::scheduling::ranksFor(const ScheduleSpec &spec, int numStages,
                                     std::string &error) {
  const std::string &name = spec.name;
  auto stages = [&] {
    return std::to_string(numStages) + (numStages == 1 ? " stage" : " stages");
  };
  if (name == "interleaved") {
    if (spec.chunks < 1) {
      error = "schedule=interleaved needs chunks >= 1, got chunks=" +
              std::to_string(spec.chunks);
      return std::nullopt;
    }
    if (numStages % spec.chunks != 0) {
      error = "schedule=interleaved chunks=" + std::to_string(spec.chunks) +
              " needs a stage count that is a multiple of chunks (" +
              std::to_string(spec.chunks) +
              " stages per rank), but the module has " + stages();
      return std::nullopt;
    }
    return numStages / spec.chunks;
  }
  if (name == "hanayo") {
    if (spec.waves < 1) {
      error = "schedule=hanayo needs waves >= 1, got waves=" +
              std::to_string(spec.waves);
      return std::nullopt;
    }
    int perRank = 2 * spec.waves;
    if (numStages % perRank != 0) {
      error = "schedule=hanayo waves=" + std::to_string(spec.waves) +
              " needs a stage count that is a multiple of 2 x waves (" +
              std::to_string(perRank) +
              " stages per rank), but the module has " + stages();
      return std::nullopt;
    }
    return numStages / perRank;
  }
  if (name == "zb-v") {
    if (numStages % 2 != 0) {
      error = "schedule=zb-v needs an even stage count (2 stages per rank), "
              "but the module has " +
              stages();
      return std::nullopt;
    }
    return numStages / 2;
  }
  return numStages;
}

schedule::BuildResult pipewave::pipe::scheduling::forwardOnlyVariant(
    const schedule::Program &program) {
  std::string text =
      "# pipewave schedule S=" + std::to_string(program.numStages) +
      " M=" + std::to_string(program.numMicrobatches) +
      " name=" + program.schedule + " forward-only\n";
  for (const schedule::RankProgram &rank : program.ranks) {
    text += "stages " + std::to_string(rank.rank) + ":";
    for (int stage : rank.stages)
      text += " " + std::to_string(stage);
    text += "\n";
  }
  for (const schedule::RankProgram &rank : program.ranks) {
    text += std::to_string(rank.rank) + ":";
    for (const schedule::Action &action : rank.actions)
      if (action.kind == schedule::ActionKind::Forward)
        text += " " + std::to_string(action.stage) + "F" +
                std::to_string(action.microbatch);
    text += "\n";
  }
  return schedule::parseActionList(text);
}

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

schedule::BuildResult
pipewave::pipe::scheduling::buildSchedule(const ScheduleSpec &spec,
                                          int numStages, int microbatches,
                                          bool forwardOnly) {
  std::string error;
  std::optional<int> ranks = ranksFor(spec, numStages, error);
  if (!ranks)
    return schedule::BuildResult::failure(error);
  int P = *ranks, S = numStages, M = microbatches;

  schedule::BuildResult built;
  const std::string &name = spec.name;
  if (name == "gpipe" || (name == "1f1b" && forwardOnly))
    built = schedule::buildGPipe(S, M, forwardOnly);
  else if (name == "1f1b")
    built = schedule::build1F1B(S, M);
  else if (name == "interleaved")
    built = schedule::buildInterleaved1F1B(P, spec.chunks, M);
  else if (name == "hanayo")
    built = schedule::buildHanayo(P, spec.waves, M);
  else if (name == "zb-h1")
    built = schedule::buildZeroBubbleH1(S, M);
  else if (name == "zb-v")
    built = schedule::buildZeroBubbleV(P, M);
  else
    return schedule::BuildResult::failure("unknown schedule '" + name + "'");

  if (built && forwardOnly && !built.program->forwardOnly) {
    built.program->schedule = name;
    built = forwardOnlyVariant(*built.program);
  }
  if (!built)
    return schedule::BuildResult::failure(
        "schedule=" + spec.describe() + " microbatches=" + std::to_string(M) +
        " (" + std::to_string(S) + " stages on " + std::to_string(P) +
        " ranks): " + built.error);
  built.program->schedule = name;
  return built;
}

SearchResult
pipewave::pipe::scheduling::searchSchedules(const pipewave::ModelCosts &costs,
                                            const SearchOptions &options) {
  int numStages = static_cast<int>(costs.stages.size());
  std::vector<ScheduleSpec> specs = {
      {"gpipe", 0, 0},       {"1f1b", 0, 0},   {"interleaved", 2, 0},
      {"interleaved", 4, 0}, {"hanayo", 0, 1}, {"hanayo", 0, 2},
      {"zb-h1", 0, 0},       {"zb-v", 0, 0}};

  SearchResult result;
  std::vector<schedule::Program> programs;
  for (const ScheduleSpec &spec : specs) {
    if (options.forwardOnly && isSplitSchedule(spec.name))
      continue;
    std::string error;
    std::optional<int> ranks = ranksFor(spec, numStages, error);
    // Chunked schedules on a single rank are not pipelines.
    if (!ranks ||
        (*ranks < 2 && (spec.name == "interleaved" || spec.name == "hanayo" ||
                        spec.name == "zb-v")))
      continue;
    for (int M : options.microbatchCounts) {
      schedule::BuildResult built =
          buildSchedule(spec, numStages, M, options.forwardOnly);
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
            *built.program, costs.costTable(M, recompute), cluster);
        if (!report.error.empty())
          continue;
        candidate.stepSeconds = report.stepTime;
        candidate.bubble = report.bubbleFraction;
        for (const sim::RankReport &rank : report.ranks)
          candidate.peakMemoryBytes =
              std::max(candidate.peakMemoryBytes, rank.peakMemory.total());
        candidate.fits = report.fits;
        result.candidates.push_back(candidate);
        programs.push_back(*built.program);
      }
    }
  }

  std::vector<size_t> order(result.candidates.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Candidate &x = result.candidates[a], &y = result.candidates[b];
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
