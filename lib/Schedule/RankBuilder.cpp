//===- RankBuilder.cpp - Emits the actions of one rank --------------------===//

#include "RankBuilder.h"

namespace pipewave::schedule::detail {

std::optional<std::string> checkShape(int numStages, int numMicrobatches) {
  if (numStages < 1)
    return "the number of stages must be at least 1 (got " +
           std::to_string(numStages) + ")";
  if (numMicrobatches < 1)
    return "the number of microbatches must be at least 1 (got " +
           std::to_string(numMicrobatches) + ")";
  return std::nullopt;
}

Program makeLinearProgram(int numStages, int numMicrobatches,
                          std::string schedule, bool forwardOnly) {
  Program program;
  program.numStages = numStages;
  program.numMicrobatches = numMicrobatches;
  program.forwardOnly = forwardOnly;
  program.schedule = std::move(schedule);
  program.ranks.resize(numStages);
  for (int r = 0; r < numStages; ++r) {
    program.ranks[r].rank = r;
    program.ranks[r].stages = {r};
  }
  return program;
}

RankBuilder::RankBuilder(Program &program, int rank)
    : program(program), rankProgram(program.ranks[rank]) {}

void RankBuilder::message(ActionKind kind, Payload payload, int stage,
                          int microbatch, int peerStage, int boundary) {
  if (peerStage < 0 || peerStage >= program.numStages ||
      holdsStage(rankProgram, peerStage))
    return;
  Action action{kind};
  action.stage = stage;
  action.microbatch = microbatch;
  action.payload = payload;
  action.peer = rankOfStage(program, peerStage);
  action.tag = messageTag(payload, boundary, microbatch, program.numStages,
                          program.numMicrobatches);
  rankProgram.actions.push_back(std::move(action));
}

void RankBuilder::recvActivation(int stage, int microbatch) {
  message(ActionKind::Recv, Payload::Activation, stage, microbatch, stage - 1,
          stage - 1);
}

void RankBuilder::sendActivation(int stage, int microbatch) {
  message(ActionKind::Send, Payload::Activation, stage, microbatch, stage + 1,
          stage);
}

void RankBuilder::recvGradient(int stage, int microbatch) {
  message(ActionKind::Recv, Payload::Gradient, stage, microbatch, stage + 1,
          stage);
}

void RankBuilder::sendGradient(int stage, int microbatch) {
  message(ActionKind::Send, Payload::Gradient, stage, microbatch, stage - 1,
          stage - 1);
}

void RankBuilder::compute(ActionKind kind, int stage, int microbatch) {
  Action action{kind};
  action.stage = stage;
  action.microbatch = microbatch;
  rankProgram.actions.push_back(std::move(action));
}

void RankBuilder::forward(int stage, int microbatch) {
  recvActivation(stage, microbatch);
  compute(ActionKind::Forward, stage, microbatch);
  sendActivation(stage, microbatch);
}

void RankBuilder::backward(int stage, int microbatch) {
  recvGradient(stage, microbatch);
  compute(ActionKind::Backward, stage, microbatch);
  sendGradient(stage, microbatch);
}

void RankBuilder::optimizerStep(int stage) {
  Action action{ActionKind::OptimizerStep};
  action.stage = stage;
  rankProgram.actions.push_back(std::move(action));
}

} // namespace pipewave::schedule::detail
