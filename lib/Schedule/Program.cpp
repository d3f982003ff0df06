//===- Program.cpp - Pipeline schedule programs ---------------------------===//

#include "pipewave/Schedule/Program.h"

#include <algorithm>
#include <string>

namespace pipewave::schedule {

const char *stringify(ActionKind kind) {
  switch (kind) {
  case ActionKind::Forward:
    return "F";
  case ActionKind::Backward:
    return "B";
  case ActionKind::BackwardInput:
    return "I";
  case ActionKind::BackwardWeight:
    return "W";
  case ActionKind::Send:
    return "send";
  case ActionKind::Recv:
    return "recv";
  case ActionKind::AllReduce:
    return "allreduce";
  case ActionKind::OptimizerStep:
    return "optimizer";
  case ActionKind::TiedAllReduce:
    return "tied";
  }
  return "?";
}

const char *stringify(Payload payload) {
  return payload == Payload::Gradient ? "grad" : "act";
}

bool isCompute(ActionKind kind) {
  return kind == ActionKind::Forward || kind == ActionKind::Backward ||
         kind == ActionKind::BackwardInput ||
         kind == ActionKind::BackwardWeight;
}

std::string describeList(const std::vector<int> &values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

std::string describe(const Action &action) {
  std::string text = stringify(action.kind);
  switch (action.kind) {
  case ActionKind::Forward:
  case ActionKind::Backward:
  case ActionKind::BackwardInput:
  case ActionKind::BackwardWeight:
    return text + " stage " + std::to_string(action.stage) + " mb " +
           std::to_string(action.microbatch);
  case ActionKind::Send:
  case ActionKind::Recv:
    return text + " " + stringify(action.payload) + " stage " +
           std::to_string(action.stage) + " mb " +
           std::to_string(action.microbatch) +
           (action.kind == ActionKind::Send ? " to rank " : " from rank ") +
           std::to_string(action.peer) + " (tag " + std::to_string(action.tag) +
           ")";
  case ActionKind::AllReduce:
    return text + " stage " + std::to_string(action.stage) + " ranks " +
           describeList(action.group);
  case ActionKind::OptimizerStep:
    return text + " stage " + std::to_string(action.stage);
  case ActionKind::TiedAllReduce:
    return text + " '" + action.param + "' stage " +
           std::to_string(action.stage) + " of stages " +
           describeList(action.users) + " ranks " + describeList(action.group);
  }
  return text;
}

int64_t messageTag(Payload payload, int boundary, int microbatch, int numStages,
                   int numMicrobatches) {
  int64_t direction = payload == Payload::Gradient ? 1 : 0;
  return (direction * (numStages - 1) + boundary) *
             static_cast<int64_t>(numMicrobatches) +
         microbatch;
}

bool holdsStage(const RankProgram &rank, int stage) {
  return std::binary_search(rank.stages.begin(), rank.stages.end(), stage);
}

int rankOfStage(const Program &program, int stage) {
  for (size_t r = 0; r < program.ranks.size(); ++r)
    if (holdsStage(program.ranks[r], stage))
      return static_cast<int>(r);
  return -1;
}

std::vector<int> ranksOfStage(const Program &program, int stage) {
  std::vector<int> result;
  for (size_t r = 0; r < program.ranks.size(); ++r)
    if (holdsStage(program.ranks[r], stage))
      result.push_back(static_cast<int>(r));
  return result;
}

} // namespace pipewave::schedule
