//===- VerifyStructure.cpp - Verifier: program structure ------------------===//

#include "VerifyChecks.h"

#include <algorithm>
#include <cstdint>
#include <set>

namespace pipewave::schedule::detail {

namespace {

bool isSortedUnique(const std::vector<int> &values) {
  return std::adjacent_find(values.begin(), values.end(), [](int a, int b) {
           return a >= b;
         }) == values.end();
}

bool hasMicrobatch(ActionKind kind) {
  return kind != ActionKind::AllReduce && kind != ActionKind::OptimizerStep &&
         kind != ActionKind::TiedAllReduce;
}

void checkAction(const Program &program, int rank, int index,
                 Diagnostics &diagnostics) {
  const Action &action = program.ranks[rank].actions[index];
  int numRanks = static_cast<int>(program.ranks.size());
  std::string where = quote(program, rank, index);

  if (!holdsStage(program.ranks[rank], action.stage))
    report(diagnostics, rank, index,
           where + " belongs to stage " + std::to_string(action.stage) +
               ", which rank " + std::to_string(rank) + " does not hold");

  if (hasMicrobatch(action.kind)) {
    if (action.microbatch < 0 || action.microbatch >= program.numMicrobatches)
      report(diagnostics, rank, index,
             where + " has microbatch " + std::to_string(action.microbatch) +
                 " out of range [0, " +
                 std::to_string(program.numMicrobatches) + ")");
  } else if (action.microbatch != -1) {
    report(diagnostics, rank, index,
           where + " must not name a microbatch (got " +
               std::to_string(action.microbatch) + ")");
  }

  if (action.kind == ActionKind::Send || action.kind == ActionKind::Recv) {
    if (action.peer < 0 || action.peer >= numRanks)
      report(diagnostics, rank, index,
             where + " has peer rank " + std::to_string(action.peer) +
                 " out of range [0, " + std::to_string(numRanks) + ")");
    else if (action.peer == rank)
      report(diagnostics, rank, index, where + " has its own rank as peer");
  }

  if (action.kind == ActionKind::TiedAllReduce)
    checkTiedStructure(program, rank, index, diagnostics);

  if (action.kind == ActionKind::AllReduce) {
    const std::vector<int> &group = action.group;
    if (!isSortedUnique(group))
      report(diagnostics, rank, index,
             where + " has a group that is not sorted and duplicate-free");
    if (std::find(group.begin(), group.end(), rank) == group.end())
      report(diagnostics, rank, index,
             where + " has a group without rank " + std::to_string(rank));
    for (int member : group) {
      if (member < 0 || member >= numRanks)
        report(diagnostics, rank, index,
               where + " has group member " + std::to_string(member) +
                   " out of range [0, " + std::to_string(numRanks) + ")");
      else if (!holdsStage(program.ranks[member], action.stage))
        report(diagnostics, rank, index,
               where + " has group member rank " + std::to_string(member) +
                   ", which does not hold stage " +
                   std::to_string(action.stage));
    }
  }
}

} // namespace

void checkStructure(const Program &program, Diagnostics &diagnostics) {
  if (program.numStages < 1)
    diagnostics.push_back({-1, -1,
                           "program: the number of stages must be at least 1 "
                           "(got " +
                               std::to_string(program.numStages) + ")"});
  if (program.numMicrobatches < 1)
    diagnostics.push_back(
        {-1, -1,
         "program: the number of microbatches must be at least 1 (got " +
             std::to_string(program.numMicrobatches) + ")"});
  if (program.ranks.empty())
    diagnostics.push_back({-1, -1, "program: there are no ranks"});
  if (!diagnostics.empty())
    return;

  int numRanks = static_cast<int>(program.ranks.size());
  // The held stages, as a set: a program may claim any number of stages, and
  // nothing of the claimed size is allocated before the size check below.
  std::set<int> held;
  for (int r = 0; r < numRanks; ++r) {
    const RankProgram &rank = program.ranks[r];
    if (rank.rank != r)
      report(diagnostics, r, -1,
             "the entry at index " + std::to_string(r) + " has rank id " +
                 std::to_string(rank.rank) +
                 "; ranks must be indexed by their id");
    if (rank.stages.empty())
      report(diagnostics, r, -1, "holds no stage");
    if (!isSortedUnique(rank.stages))
      report(diagnostics, r, -1,
             "stage list " + formatList(rank.stages) +
                 " is not sorted and duplicate-free");
    for (int stage : rank.stages) {
      if (stage < 0 || stage >= program.numStages)
        report(diagnostics, r, -1,
               "holds stage " + std::to_string(stage) + ", out of range [0, " +
                   std::to_string(program.numStages) + ")");
      else
        held.insert(stage);
    }
  }
  // The first few stages no rank holds, then how many more.
  constexpr int kMaxUnheldReports = 8;
  int unheld = 0;
  for (int stage = 0; stage < program.numStages && unheld < kMaxUnheldReports;
       ++stage)
    if (!held.count(stage)) {
      diagnostics.push_back(
          {-1, -1, "stage " + std::to_string(stage) + " is held by no rank"});
      ++unheld;
    }
  int64_t moreUnheld = static_cast<int64_t>(program.numStages) -
                       static_cast<int64_t>(held.size()) - unheld;
  if (moreUnheld > 0)
    diagnostics.push_back({-1, -1,
                           "and " + std::to_string(moreUnheld) +
                               " more stages are held by no rank"});
  // Action checks look stages up in sorted stage lists; skip them when those
  // are malformed.
  if (!diagnostics.empty())
    return;
  // Every (stage, microbatch) needs an action of its own (its F): a program
  // that claims more microbatches than its actions can cover is refused
  // before the later checks allocate tables of the claimed size.
  uint64_t actions = 0;
  for (const RankProgram &rank : program.ranks)
    actions += rank.actions.size();
  uint64_t needed = static_cast<uint64_t>(program.numStages) *
                    static_cast<uint64_t>(program.numMicrobatches);
  if (actions < needed) {
    diagnostics.push_back(
        {-1, -1,
         "program: " + std::to_string(program.numStages) + " stages x " +
             std::to_string(program.numMicrobatches) +
             " microbatches need at least " + std::to_string(needed) +
             " actions (an F each), but the program has " +
             std::to_string(actions)});
    return;
  }

  for (int r = 0; r < numRanks; ++r)
    for (size_t i = 0; i < program.ranks[r].actions.size(); ++i)
      checkAction(program, r, static_cast<int>(i), diagnostics);
}

} // namespace pipewave::schedule::detail
