//===- ModelCheckTied.cpp - Checks of tied-parameter all-reduces ----------===//
//
// Part of the pipewave project.
//
// A trained parameter that several stages take is tied: every rank holding
// one of them keeps a copy, and the copies stay equal only if every holder
// sums their gradients (PW_ACT_TIED_ALLREDUCE) before its optimizer step.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/ModelCheck.h"

#include <algorithm>
#include <set>

namespace pipewave::runtime {

namespace {

/// "0 and 1", "0, 1 and 3".
std::string stagesString(const std::vector<int> &values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i)
    text += (i == 0                   ? ""
             : i + 1 == values.size() ? " and "
                                      : ", ") +
            std::to_string(values[i]);
  return text;
}

std::string listString(const std::vector<int> &values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

bool isBackward(int kind) {
  return kind == PW_ACT_BACKWARD || kind == PW_ACT_BACKWARD_INPUT ||
         kind == PW_ACT_BACKWARD_WEIGHT;
}

/// The tied all-reduce at `index` of rank `r`: its parameter, stage, group
/// and position among the rank's actions.
void checkTiedAction(const pw_model &model, int r, int index) {
  const pw_rank_program &program = model.ranks[r];
  const pw_action &action = program.actions[index];
  std::string where = "rank " + std::to_string(r) + " action " +
                      std::to_string(index) + " ('" + describeAction(action) +
                      "')";
  if (action.param < 0 || action.param >= model.num_inputs ||
      !isTrainedParameter(model, action.param))
    modelError(where + ": input " + std::to_string(action.param) +
               " is not a trained parameter");
  std::vector<int> users = parameterUsers(model, action.param);
  std::string name = "'" + inputName(model, action.param) + "'";
  if (users.size() < 2)
    modelError(where + ": parameter " + name +
               " is taken by one stage only and is not tied");
  auto lowest = std::find_if(users.begin(), users.end(), [&](int stage) {
    return rankHoldsStage(model, r, stage);
  });
  if (lowest == users.end() || *lowest != action.stage)
    modelError(where + ": the stage of a tied all-reduce is the lowest of " +
               name + "'s user stages " + listString(users) + " on rank " +
               std::to_string(r));
  std::vector<int> group(model.group_ranks + action.group_begin,
                         model.group_ranks + action.group_begin +
                             action.group_size);
  if (std::find(group.begin(), group.end(), r) == group.end())
    modelError(where + ": its group " + listString(group) +
               " lacks the rank itself");
  for (int stage : users) {
    int holders = 0;
    for (int member : group)
      holders += rankHoldsStage(model, member, stage);
    if (holders != 1)
      modelError(where + ": its group " + listString(group) + " has " +
                 std::to_string(holders) + " holders of stage " +
                 std::to_string(stage) + ", a user of " + name +
                 " (it needs one)");
  }
  for (int i = 0; i < program.num_actions; ++i) {
    const pw_action &other = program.actions[i];
    bool user = std::binary_search(users.begin(), users.end(), other.stage);
    if (i > index &&
        ((isBackward(other.kind) && user) ||
         (other.kind == PW_ACT_ALLREDUCE && other.stage == action.stage)))
      modelError(where + " comes before action " + std::to_string(i) + " ('" +
                 describeAction(other) + "'), whose gradient it needs");
    if (i < index && other.kind == PW_ACT_OPTIMIZER &&
        other.stage == action.stage)
      modelError(where + " comes after action " + std::to_string(i) + " ('" +
                 describeAction(other) + "'), which applies its sum");
    if (i != index && other.kind == PW_ACT_TIED_ALLREDUCE &&
        other.param == action.param)
      modelError(where + ": parameter " + name +
                 " has a second tied all-reduce (action " + std::to_string(i) +
                 ")");
  }
}

} // namespace

void checkTiedParameters(const pw_model &model) {
  for (int r = 0; r < model.num_ranks; ++r) {
    const pw_rank_program &program = model.ranks[r];
    std::set<int> summed;
    for (int i = 0; i < program.num_actions; ++i)
      if (program.actions[i].kind == PW_ACT_TIED_ALLREDUCE) {
        checkTiedAction(model, r, i);
        summed.insert(program.actions[i].param);
      }
    for (int input = 0; input < model.num_inputs; ++input) {
      if (summed.count(input) || !isTrainedParameter(model, input))
        continue;
      std::vector<int> users = parameterUsers(model, input);
      if (users.size() < 2)
        continue;
      for (int stage : users)
        if (rankHoldsStage(model, r, stage))
          modelError("parameter '" + inputName(model, input) +
                     "' is an argument of stages " + stagesString(users) +
                     " (a tied parameter), but rank " + std::to_string(r) +
                     ", which holds stage " + std::to_string(stage) +
                     ", has no tied all-reduce of it: its copies would "
                     "drift apart");
    }
  }
}

} // namespace pipewave::runtime
