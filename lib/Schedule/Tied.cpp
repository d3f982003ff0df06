//===- Tied.cpp - All-reduces of parameters shared by stages --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Tied.h"

#include <algorithm>

namespace pipewave::schedule {

namespace {

bool holdsAny(const RankProgram &rank, const std::vector<int> &stages) {
  return std::any_of(stages.begin(), stages.end(),
                     [&](int stage) { return holdsStage(rank, stage); });
}

} // namespace

BuildResult addTiedAllReduces(const Program &program,
                              const std::vector<TiedParameter> &tied) {
  if (tied.empty() || program.forwardOnly)
    return BuildResult::success(program);
  for (const TiedParameter &parameter : tied) {
    const std::vector<int> &users = parameter.users;
    if (users.size() < 2 || !std::is_sorted(users.begin(), users.end()) ||
        users.front() < 0 || users.back() >= program.numStages)
      return BuildResult::failure("tied parameter '" + parameter.name +
                                  "' needs two or more user stages in [0, " +
                                  std::to_string(program.numStages) + ")");
    size_t replicas = ranksOfStage(program, users.front()).size();
    for (int stage : users)
      if (ranksOfStage(program, stage).size() != replicas)
        return BuildResult::failure(
            "parameter '" + parameter.name + "' is used by stages " +
            describeList(users) + ", which are replicated on " +
            std::to_string(replicas) + " and " +
            std::to_string(ranksOfStage(program, stage).size()) +
            " ranks; its copies can only be summed when every user stage "
            "has the same replicas");
  }

  Program result = program;
  for (RankProgram &rank : result.ranks) {
    bool holder = std::any_of(tied.begin(), tied.end(),
                              [&](const TiedParameter &parameter) {
                                return holdsAny(rank, parameter.users);
                              });
    if (!holder)
      continue;
    std::vector<Action> others, reduces, optimizers;
    for (const Action &action : rank.actions)
      (action.kind == ActionKind::AllReduce       ? reduces
       : action.kind == ActionKind::OptimizerStep ? optimizers
                                                  : others)
          .push_back(action);
    rank.actions = std::move(others);
    rank.actions.insert(rank.actions.end(), reduces.begin(), reduces.end());
    for (const TiedParameter &parameter : tied) {
      auto lowest =
          std::find_if(rank.stages.begin(), rank.stages.end(), [&](int stage) {
            return std::binary_search(parameter.users.begin(),
                                      parameter.users.end(), stage);
          });
      if (lowest == rank.stages.end())
        continue;
      std::vector<int> holders = ranksOfStage(program, *lowest);
      size_t replica = static_cast<size_t>(
          std::find(holders.begin(), holders.end(), rank.rank) -
          holders.begin());
      Action action{ActionKind::TiedAllReduce};
      action.stage = *lowest;
      action.param = parameter.name;
      action.users = parameter.users;
      for (int stage : parameter.users)
        action.group.push_back(ranksOfStage(program, stage)[replica]);
      std::sort(action.group.begin(), action.group.end());
      action.group.erase(std::unique(action.group.begin(), action.group.end()),
                         action.group.end());
      rank.actions.push_back(std::move(action));
    }
    rank.actions.insert(rank.actions.end(), optimizers.begin(),
                        optimizers.end());
  }
  return BuildResult::success(std::move(result));
}

} // namespace pipewave::schedule
