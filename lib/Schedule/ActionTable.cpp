//===- ActionTable.cpp - Index of a rank's per-microbatch actions ---------===//

#include "ActionTable.h"

namespace pipewave::schedule::detail {

namespace {
/// Number of (kind, payload) classes: F, B, I, W, and Send/Recv per payload.
constexpr int kNumClasses = 8;

int classOf(ActionKind kind, Payload payload) {
  int gradient = payload == Payload::Gradient ? 1 : 0;
  switch (kind) {
  case ActionKind::Forward:
    return 0;
  case ActionKind::Backward:
    return 1;
  case ActionKind::BackwardInput:
    return 2;
  case ActionKind::BackwardWeight:
    return 3;
  case ActionKind::Send:
    return 4 + gradient;
  case ActionKind::Recv:
    return 6 + gradient;
  case ActionKind::AllReduce:
  case ActionKind::OptimizerStep:
  case ActionKind::TiedAllReduce:
    break;
  }
  return -1;
}
} // namespace

ActionTable::ActionTable(const Program &program, const RankProgram &rank)
    : numMicrobatches(program.numMicrobatches),
      numHeld(static_cast<int>(rank.stages.size())),
      localStage(program.numStages > 0 ? program.numStages : 0, -1) {
  for (int i = 0; i < numHeld; ++i) {
    int stage = rank.stages[i];
    if (stage >= 0 && stage < program.numStages && localStage[stage] < 0)
      localStage[stage] = i;
  }
  size_t size = numMicrobatches > 0 ? static_cast<size_t>(kNumClasses) *
                                          numHeld * numMicrobatches
                                    : 0;
  firstIndex.assign(size, -1);
  counts.assign(size, 0);
  for (size_t i = 0; i < rank.actions.size(); ++i) {
    const Action &action = rank.actions[i];
    int key =
        slot(action.kind, action.stage, action.microbatch, action.payload);
    if (key < 0)
      continue;
    if (counts[key]++ == 0)
      firstIndex[key] = static_cast<int>(i);
  }
}

int ActionTable::slot(ActionKind kind, int stage, int microbatch,
                      Payload payload) const {
  int cls = classOf(kind, payload);
  if (cls < 0 || stage < 0 || stage >= static_cast<int>(localStage.size()) ||
      localStage[stage] < 0 || microbatch < 0 || microbatch >= numMicrobatches)
    return -1;
  return (cls * numHeld + localStage[stage]) * numMicrobatches + microbatch;
}

int ActionTable::first(ActionKind kind, int stage, int microbatch,
                       Payload payload) const {
  int key = slot(kind, stage, microbatch, payload);
  return key < 0 ? -1 : firstIndex[key];
}

int ActionTable::count(ActionKind kind, int stage, int microbatch,
                       Payload payload) const {
  int key = slot(kind, stage, microbatch, payload);
  return key < 0 ? 0 : counts[key];
}

int ActionTable::backward(int stage, int microbatch) const {
  int index = first(ActionKind::Backward, stage, microbatch);
  return index >= 0 ? index
                    : first(ActionKind::BackwardInput, stage, microbatch);
}

bool ActionTable::isIndexed(const Action &action) const {
  return slot(action.kind, action.stage, action.microbatch, action.payload) >=
         0;
}

} // namespace pipewave::schedule::detail
