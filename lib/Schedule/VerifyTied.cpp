//===- VerifyTied.cpp - Verifier: tied-parameter all-reduces --------------===//
//
// A parameter used by several stages (a tied parameter) has a copy on every
// rank holding one of them. Each such rank sums its local gradient of the
// parameter with the other holders of its data-parallel replica in one
// TiedAllReduce, after every backward of the user stages it holds and the
// replica AllReduce of the stage that keeps the copy, and before that
// stage's OptimizerStep; every copy then applies the same update.
//
//===----------------------------------------------------------------------===//

#include "VerifyChecks.h"

#include <algorithm>
#include <set>

namespace pipewave::schedule::detail {

namespace {

bool isSortedUnique(const std::vector<int> &values) {
  return std::adjacent_find(values.begin(), values.end(), [](int a, int b) {
           return a >= b;
         }) == values.end();
}

bool usesStage(const Action &action, int stage) {
  return std::binary_search(action.users.begin(), action.users.end(), stage);
}

} // namespace

void checkTiedStructure(const Program &program, int rank, int index,
                        Diagnostics &diagnostics) {
  const Action &action = program.ranks[rank].actions[index];
  const RankProgram &self = program.ranks[rank];
  int numRanks = static_cast<int>(program.ranks.size());
  std::string where = quote(program, rank, index);
  if (action.param.empty())
    report(diagnostics, rank, index, where + " names no parameter");
  if (action.users.size() < 2 || !isSortedUnique(action.users) ||
      action.users.front() < 0 || action.users.back() >= program.numStages) {
    report(diagnostics, rank, index,
           where +
               " needs two or more user stages, sorted, duplicate-free "
               "and in range [0, " +
               std::to_string(program.numStages) + ")");
    return;
  }
  auto lowest =
      std::find_if(self.stages.begin(), self.stages.end(),
                   [&](int stage) { return usesStage(action, stage); });
  if (lowest == self.stages.end() || *lowest != action.stage)
    report(diagnostics, rank, index,
           where + " must belong to the lowest user stage rank " +
               std::to_string(rank) + " holds" +
               (lowest == self.stages.end()
                    ? std::string(" (it holds none)")
                    : " (stage " + std::to_string(*lowest) + ")"));
  if (!isSortedUnique(action.group) ||
      std::find(action.group.begin(), action.group.end(), rank) ==
          action.group.end()) {
    report(diagnostics, rank, index,
           where +
               " has a group that is not sorted and duplicate-free or "
               "lacks rank " +
               std::to_string(rank));
    return;
  }
  for (int member : action.group)
    if (member < 0 || member >= numRanks) {
      report(diagnostics, rank, index,
             where + " has group member " + std::to_string(member) +
                 " out of range [0, " + std::to_string(numRanks) + ")");
      return;
    }
  // One holder of each user stage: the copies of one data-parallel replica.
  for (int stage : action.users) {
    int holders = 0;
    for (int member : action.group)
      holders += holdsStage(program.ranks[member], stage);
    if (holders != 1)
      report(diagnostics, rank, index,
             where + " has " + std::to_string(holders) +
                 " holders of user stage " + std::to_string(stage) +
                 " in its group (it needs exactly one)");
  }
  for (int member : action.group)
    if (std::none_of(action.users.begin(), action.users.end(), [&](int s) {
          return holdsStage(program.ranks[member], s);
        }))
      report(diagnostics, rank, index,
             where + " has group member rank " + std::to_string(member) +
                 ", which holds no user stage");
}

void checkTiedPlacement(const Program &program, int rank,
                        Diagnostics &diagnostics) {
  const std::vector<Action> &actions = program.ranks[rank].actions;
  std::set<std::string> seen;
  for (size_t i = 0; i < actions.size(); ++i) {
    const Action &tied = actions[i];
    if (tied.kind != ActionKind::TiedAllReduce)
      continue;
    int index = static_cast<int>(i);
    std::string where = quote(program, rank, index);
    if (!seen.insert(tied.param).second) {
      report(diagnostics, rank, index,
             where + " is a second tied all-reduce of '" + tied.param + "'");
      continue;
    }
    for (size_t j = 0; j < actions.size(); ++j) {
      const Action &other = actions[j];
      bool backward = other.kind == ActionKind::Backward ||
                      other.kind == ActionKind::BackwardInput ||
                      other.kind == ActionKind::BackwardWeight;
      if (j > i && backward && usesStage(tied, other.stage))
        report(diagnostics, rank, index,
               where + " comes before " +
                   quote(program, rank, static_cast<int>(j)) +
                   ", whose gradient of '" + tied.param + "' it sums");
      if (j > i && other.kind == ActionKind::AllReduce &&
          other.stage == tied.stage)
        report(diagnostics, rank, index,
               where + " comes before " +
                   quote(program, rank, static_cast<int>(j)) +
                   ", which sums the replicas' gradients of stage " +
                   std::to_string(tied.stage));
      if (j < i && other.kind == ActionKind::OptimizerStep &&
          other.stage == tied.stage)
        report(diagnostics, rank, index,
               where + " comes after " +
                   quote(program, rank, static_cast<int>(j)) +
                   ", which applies its result");
    }
  }
  // Every holder of a user stage of a tied parameter sums it.
  for (size_t r = 0; r < program.ranks.size(); ++r)
    for (const Action &tied : program.ranks[r].actions) {
      if (tied.kind != ActionKind::TiedAllReduce || seen.count(tied.param))
        continue;
      for (int stage : tied.users)
        if (holdsStage(program.ranks[rank], stage)) {
          report(diagnostics, rank, -1,
                 "holds stage " + std::to_string(stage) + ", a user of '" +
                     tied.param + "', but has no tied all-reduce of it");
          seen.insert(tied.param);
          break;
        }
    }
}

void checkTiedMatching(const Program &program, const Links &links, int rank,
                       int index, Diagnostics &diagnostics) {
  const Action &action = program.ranks[rank].actions[index];
  for (int member : action.group) {
    if (member == rank)
      continue;
    int other = links.tiedOn(member, action.param);
    if (other < 0) {
      report(diagnostics, rank, index,
             quote(program, rank, index) + " has no counterpart on rank " +
                 std::to_string(member));
      continue;
    }
    const Action &peer = program.ranks[member].actions[other];
    if (peer.group != action.group || peer.users != action.users)
      report(diagnostics, rank, index,
             quote(program, rank, index) +
                 " disagrees on the group or the user stages with " +
                 quote(program, member, other) + " on rank " +
                 std::to_string(member));
  }
}

} // namespace pipewave::schedule::detail
