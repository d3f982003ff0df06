//===- ModelQueries.cpp - Questions about a compiled pw_model -------------===//
//
// Part of the pipewave project.
//
// Names, stage holders, replicas and the kinds of model inputs, as
// ModelCheck.h declares them; the validation is in ModelCheck.cpp.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/ModelCheck.h"

#include <algorithm>

namespace pipewave::runtime {

std::string inputName(const pw_model &model, int index) {
  const char *name = model.inputs[index].name;
  return name && *name ? name : "input" + std::to_string(index);
}

std::string outputName(const pw_model &model, int index) {
  const char *name = model.outputs[index].name;
  return name && *name ? name : "output" + std::to_string(index);
}

BackwardArg backwardArg(const pw_stage &stage, int index) {
  if (index >= 0 && index < stage.num_args)
    return {BackwardArg::Argument, index};
  index -= stage.num_args;
  if (index >= 0 && index < stage.num_stash)
    return {BackwardArg::Stash, index};
  index -= stage.num_stash;
  for (int r = 0; index >= 0 && r < stage.num_results; ++r)
    if (stage.result_has_grad[r] && index-- == 0)
      return {BackwardArg::ResultGradient, r};
  return {BackwardArg::Argument, -1};
}

int wstashSource(const pw_stage &stage, int k) {
  return stage.wstash_source ? stage.wstash_source[k] : -1;
}

int numComputedWStash(const pw_stage &stage) {
  int computed = 0;
  for (int k = 0; k < stage.num_wstash; ++k)
    computed += wstashSource(stage, k) < 0;
  return computed;
}

bool rankHoldsStage(const pw_model &model, int rank, int stage) {
  const pw_rank_program &program = model.ranks[rank];
  return std::binary_search(program.stages, program.stages + program.num_stages,
                            stage);
}

int outputRank(const pw_model &model) {
  for (int r = 0; r < model.num_ranks; ++r)
    if (rankHoldsStage(model, r, model.num_stages - 1))
      return r;
  return -1;
}

std::vector<int> stageHolders(const pw_model &model, int stage) {
  std::vector<int> holders;
  for (int r = 0; r < model.num_ranks; ++r)
    if (rankHoldsStage(model, r, stage))
      holders.push_back(r);
  return holders;
}

int numReplicas(const pw_model &model) {
  return std::max<int>(1, static_cast<int>(stageHolders(model, 0).size()));
}

int replicaOf(const pw_model &model, int rank) {
  const pw_rank_program &program = model.ranks[rank];
  if (program.num_stages < 1)
    return 0;
  std::vector<int> holders = stageHolders(model, program.stages[0]);
  return static_cast<int>(std::find(holders.begin(), holders.end(), rank) -
                          holders.begin());
}

std::vector<int> parameterUsers(const pw_model &model, int input) {
  std::vector<int> users;
  for (int s = 0; s < model.num_stages; ++s) {
    const pw_stage &stage = model.stages[s];
    for (int a = 0; a < stage.num_args; ++a)
      if (stage.arg_source[a] == PW_FROM_PARAM && stage.arg_index[a] == input) {
        users.push_back(s);
        break;
      }
  }
  return users;
}

std::vector<int> parameterHolders(const pw_model &model, int input) {
  std::vector<int> users = parameterUsers(model, input);
  std::vector<int> holders;
  for (int r = 0; r < model.num_ranks; ++r)
    for (int stage : users)
      if (rankHoldsStage(model, r, stage)) {
        holders.push_back(r);
        break;
      }
  return holders;
}

bool isStageState(const pw_model &model, int input) {
  for (int s = 0; s < model.num_stages; ++s) {
    const pw_stage &stage = model.stages[s];
    for (int k = 0; k < stage.num_state; ++k) {
      int a = stage.state_args[k];
      if (stage.arg_source[a] == PW_FROM_PARAM && stage.arg_index[a] == input)
        return true;
    }
  }
  return false;
}

bool isCounterInput(const pw_model &model, int input) {
  return model.input_is_counter && model.input_is_counter[input];
}

bool isBatchInput(const pw_model &model, int input) {
  return !model.input_is_param[input] && !isCounterInput(model, input);
}

bool isTrainedParameter(const pw_model &model, int input) {
  if (model.forward_only || !model.input_is_param[input])
    return false;
  for (int s = 0; s < model.num_stages; ++s) {
    const pw_stage &stage = model.stages[s];
    for (int k = 0; k < stage.num_grad_args; ++k) {
      int a = stage.grad_args[k];
      if (stage.arg_source[a] == PW_FROM_PARAM && stage.arg_index[a] == input)
        return true;
    }
  }
  return false;
}

} // namespace pipewave::runtime
