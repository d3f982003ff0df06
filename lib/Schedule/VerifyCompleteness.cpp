//===- VerifyCompleteness.cpp - Verifier: completeness --------------------===//

#include "VerifyChecks.h"

namespace pipewave::schedule::detail {

namespace {

std::string stageMicrobatch(int stage, int microbatch) {
  return "stage " + std::to_string(stage) + " microbatch " +
         std::to_string(microbatch);
}

bool allowedWhenForwardOnly(const Action &action) {
  return action.kind == ActionKind::Forward ||
         ((action.kind == ActionKind::Send ||
           action.kind == ActionKind::Recv) &&
          action.payload == Payload::Activation);
}

/// Duplicated per-microbatch actions (F, B, I, W, Send, Recv).
void checkDuplicates(const Program &program, int rank, const ActionTable &table,
                     Diagnostics &diagnostics) {
  const std::vector<Action> &actions = program.ranks[rank].actions;
  for (size_t i = 0; i < actions.size(); ++i) {
    const Action &action = actions[i];
    int index = static_cast<int>(i);
    int first = table.first(action.kind, action.stage, action.microbatch,
                            action.payload);
    if (first >= 0 && first != index)
      report(diagnostics, rank, index,
             quote(program, rank, index) + " duplicates " +
                 quote(program, rank, first));
  }
}

/// One F, and one B or one I plus one W, per (stage, microbatch).
void checkMicrobatches(const Program &program, int rank,
                       const ActionTable &table, Diagnostics &diagnostics) {
  for (int stage : program.ranks[rank].stages) {
    for (int m = 0; m < program.numMicrobatches; ++m) {
      std::string what = stageMicrobatch(stage, m);
      if (table.count(ActionKind::Forward, stage, m) == 0)
        report(diagnostics, rank, -1, what + " has no forward (F)");
      if (program.forwardOnly)
        continue;
      int numB = table.count(ActionKind::Backward, stage, m);
      int numI = table.count(ActionKind::BackwardInput, stage, m);
      int numW = table.count(ActionKind::BackwardWeight, stage, m);
      if (numB == 0 && numI == 0 && numW == 0)
        report(diagnostics, rank, -1, what + " has no backward (B or I+W)");
      else if (numB > 0 && numI + numW > 0)
        report(diagnostics, rank, table.first(ActionKind::Backward, stage, m),
               what + " has both B and I/W");
      else if (numB == 0 && numI == 0)
        report(diagnostics, rank,
               table.first(ActionKind::BackwardWeight, stage, m),
               what + " has W but no I");
      else if (numB == 0 && numW == 0)
        report(diagnostics, rank,
               table.first(ActionKind::BackwardInput, stage, m),
               what + " has I but no W");
    }
  }
}

/// Per-stage positions gathered in one pass over a rank's actions.
struct StagePositions {
  int lastBackward = -1;
  int firstAllReduce = -1;
  int lastAllReduce = -1;
  int optimizer = -1;
};

/// AllReduce for replicated stages; at most one OptimizerStep per stage; both
/// after all of the stage's backward actions, AllReduce before OptimizerStep.
void checkStageActions(const Program &program, int rank,
                       const std::vector<std::vector<int>> &replicas,
                       Diagnostics &diagnostics) {
  const RankProgram &rankProgram = program.ranks[rank];
  const std::vector<Action> &actions = rankProgram.actions;
  std::vector<StagePositions> positions(program.numStages);
  for (size_t i = 0; i < actions.size(); ++i) {
    const Action &action = actions[i];
    StagePositions &at = positions[action.stage];
    int index = static_cast<int>(i);
    switch (action.kind) {
    case ActionKind::Backward:
    case ActionKind::BackwardInput:
    case ActionKind::BackwardWeight:
      at.lastBackward = index;
      break;
    case ActionKind::AllReduce:
      if (at.firstAllReduce < 0)
        at.firstAllReduce = index;
      at.lastAllReduce = index;
      break;
    case ActionKind::OptimizerStep:
      if (at.optimizer < 0)
        at.optimizer = index;
      else
        report(diagnostics, rank, index,
               quote(program, rank, index) +
                   " is a second optimizer step for stage " +
                   std::to_string(action.stage) + " (the first is " +
                   quote(program, rank, at.optimizer) + ")");
      break;
    default:
      break;
    }
  }

  for (int stage : rankProgram.stages) {
    const StagePositions &at = positions[stage];
    if (replicas[stage].size() > 1 && at.firstAllReduce < 0)
      report(diagnostics, rank, -1,
             "stage " + std::to_string(stage) + " is replicated on ranks " +
                 formatList(replicas[stage]) + " but has no allreduce");
    if (at.firstAllReduce >= 0 && at.firstAllReduce < at.lastBackward)
      report(diagnostics, rank, at.firstAllReduce,
             quote(program, rank, at.firstAllReduce) + " comes before " +
                 quote(program, rank, at.lastBackward) +
                 ", whose gradients it reduces");
    if (at.optimizer >= 0 && at.optimizer < at.lastBackward)
      report(diagnostics, rank, at.optimizer,
             quote(program, rank, at.optimizer) + " comes before " +
                 quote(program, rank, at.lastBackward) +
                 ", whose gradients it applies");
    if (at.optimizer >= 0 && at.optimizer < at.lastAllReduce)
      report(diagnostics, rank, at.optimizer,
             quote(program, rank, at.optimizer) + " comes before " +
                 quote(program, rank, at.lastAllReduce) +
                 ", whose result it applies");
  }
}

} // namespace

void checkCompleteness(const Program &program,
                       const std::vector<ActionTable> &tables,
                       Diagnostics &diagnostics) {
  std::vector<std::vector<int>> replicas(program.numStages);
  for (size_t r = 0; r < program.ranks.size(); ++r)
    for (int stage : program.ranks[r].stages)
      replicas[stage].push_back(static_cast<int>(r));

  for (size_t r = 0; r < program.ranks.size(); ++r) {
    int rank = static_cast<int>(r);
    if (program.forwardOnly) {
      const std::vector<Action> &actions = program.ranks[r].actions;
      for (size_t i = 0; i < actions.size(); ++i)
        if (!allowedWhenForwardOnly(actions[i]))
          report(diagnostics, rank, static_cast<int>(i),
                 quote(program, rank, static_cast<int>(i)) +
                     " is not allowed in a forward-only program");
    }
    checkDuplicates(program, rank, tables[r], diagnostics);
    checkMicrobatches(program, rank, tables[r], diagnostics);
    if (!program.forwardOnly) {
      checkStageActions(program, rank, replicas, diagnostics);
      checkTiedPlacement(program, rank, diagnostics);
    }
  }
}

} // namespace pipewave::schedule::detail
