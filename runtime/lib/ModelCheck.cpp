//===- ModelCheck.cpp - Validation of a compiled pw_model -----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Tensor.h"

#include <algorithm>

namespace pipewave::runtime {

const char *actionKindName(int kind) {
  switch (kind) {
  case PW_ACT_FORWARD:
    return "F";
  case PW_ACT_BACKWARD:
    return "B";
  case PW_ACT_BACKWARD_INPUT:
    return "I";
  case PW_ACT_BACKWARD_WEIGHT:
    return "W";
  case PW_ACT_SEND:
    return "send";
  case PW_ACT_RECV:
    return "recv";
  case PW_ACT_ALLREDUCE:
    return "allreduce";
  case PW_ACT_OPTIMIZER:
    return "optimizer";
  case PW_ACT_TIED_ALLREDUCE:
    return "tied";
  default:
    return "?";
  }
}

const char *payloadName(int payload) {
  return payload == PW_GRADIENT ? "grad" : "act";
}

std::string describeAction(const pw_action &action) {
  std::string text = actionKindName(action.kind);
  std::string stage = std::to_string(action.stage);
  std::string mb = std::to_string(action.microbatch);
  switch (action.kind) {
  case PW_ACT_SEND:
    return text + " " + payloadName(action.payload) + " stage " + stage +
           " mb " + mb + " to rank " + std::to_string(action.peer);
  case PW_ACT_RECV:
    return text + " " + payloadName(action.payload) + " stage " + stage +
           " mb " + mb + " from rank " + std::to_string(action.peer);
  case PW_ACT_ALLREDUCE:
  case PW_ACT_OPTIMIZER:
    return text + " stage " + stage;
  case PW_ACT_TIED_ALLREDUCE:
    return text + " input " + std::to_string(action.param) + " stage " + stage;
  default:
    return text + " stage " + stage + " mb " + mb;
  }
}

std::string traceName(const pw_action &action) {
  std::string text = actionKindName(action.kind);
  std::string s = " s" + std::to_string(action.stage);
  std::string mb = " mb" + std::to_string(action.microbatch);
  switch (action.kind) {
  case PW_ACT_SEND:
  case PW_ACT_RECV:
    return text + " " + payloadName(action.payload) + s + mb;
  case PW_ACT_ALLREDUCE:
  case PW_ACT_OPTIMIZER:
    return text + s;
  case PW_ACT_TIED_ALLREDUCE:
    return text + " input" + std::to_string(action.param) + s;
  default:
    return text + s + mb;
  }
}

namespace {

std::string replicaNote(int replicas) {
  return replicas > 1 ? " (split over " + std::to_string(replicas) +
                            " data-parallel replicas)"
                      : "";
}

void checkTensor(const pw_tensor_info &info, const std::string &what) {
  if (!isValidDType(info.dtype))
    modelError(what + " has invalid dtype " + std::to_string(info.dtype));
  if (info.rank < 0 || (info.rank > 0 && !info.shape))
    modelError(what + " has an invalid rank or no shape");
  for (int d = 0; d < info.rank; ++d)
    if (info.shape[d] < 0)
      modelError(what + " has a dynamic or negative dimension " +
                 shapeString(shapeOf(info)) +
                 " (the runtime needs static shapes)");
}

void checkSame(const pw_tensor_info &arg, int32_t dtype,
               const std::vector<int64_t> &shape, const std::string &what,
               const std::string &source) {
  if (arg.dtype != dtype || shapeOf(arg) != shape)
    modelError(what + " is " + dtypeName(arg.dtype) + " " +
               shapeString(shapeOf(arg)) + " but " + source + " is " +
               dtypeName(dtype) + " " + shapeString(shape));
}

void checkStage(const pw_model &model, int s, int replicas) {
  const pw_stage &stage = model.stages[s];
  std::string where = "stage " + std::to_string(s);
  if (stage.num_args < 0 || stage.num_results < 0)
    modelError(where + " has a negative argument or result count");
  if (stage.num_args > 0 &&
      (!stage.args || !stage.arg_source || !stage.arg_index))
    modelError(where + " lacks its argument arrays");
  if (stage.num_results > 0 && !stage.results)
    modelError(where + " lacks its result array");
  if (!stage.forward)
    modelError(where + " has no forward function");
  if (stage.forward_workspace < 0 || stage.backward_workspace < 0 ||
      stage.backward_input_workspace < 0 ||
      stage.backward_weight_workspace < 0 || stage.backward_acc_workspace < 0 ||
      stage.backward_weight_acc_workspace < 0)
    modelError(where + " has a negative workspace size");
  if ((stage.backward_acc || stage.backward_weight_acc) &&
      (!stage.grad_accumulates || (stage.backward_acc && !stage.backward) ||
       (stage.backward_weight_acc && !stage.backward_weight)))
    modelError(where + " has an accumulating backward without its plain "
                       "function or its grad_accumulates");
  for (int r = 0; r < stage.num_results; ++r)
    checkTensor(stage.results[r], where + " result " + std::to_string(r));
  for (int a = 0; a < stage.num_args; ++a) {
    const pw_tensor_info &arg = stage.args[a];
    std::string what = where + " argument " + std::to_string(a);
    checkTensor(arg, what);
    int index = stage.arg_index[a];
    switch (stage.arg_source[a]) {
    case PW_FROM_DATA:
    case PW_FROM_PARAM: {
      bool param = stage.arg_source[a] == PW_FROM_PARAM;
      if (index < 0 || index >= model.num_inputs ||
          (model.input_is_param[index] != 0) != param)
        modelError(what + " refers to model input " + std::to_string(index) +
                   ", which is not a " + (param ? "parameter" : "data input"));
      const pw_tensor_info &input = model.inputs[index];
      std::vector<int64_t> shape = shapeOf(input);
      if (!param)
        shape = microbatchShape(shape, model.num_microbatches * replicas,
                                "data input '" + inputName(model, index) + "'" +
                                    replicaNote(replicas));
      checkSame(arg, input.dtype, shape, what,
                std::string(param ? "parameter '" : "the microbatch of '") +
                    inputName(model, index) + "'");
      break;
    }
    case PW_FROM_PREVIOUS: {
      if (s == 0)
        modelError(what +
                   " comes from the previous stage, but stage 0 has none");
      const pw_stage &previous = model.stages[s - 1];
      if (index < 0 || index >= previous.num_results)
        modelError(what + " refers to result " + std::to_string(index) +
                   " of stage " + std::to_string(s - 1) + ", which has " +
                   std::to_string(previous.num_results));
      checkSame(arg, previous.results[index].dtype,
                shapeOf(previous.results[index]), what,
                "result " + std::to_string(index) + " of stage " +
                    std::to_string(s - 1));
      break;
    }
    default:
      modelError(what + " has invalid source " +
                 std::to_string(stage.arg_source[a]));
    }
  }
}

void checkOutputs(const pw_model &model, int replicas) {
  const pw_stage &last = model.stages[model.num_stages - 1];
  if (model.num_outputs != last.num_results)
    modelError("the model has " + std::to_string(model.num_outputs) +
               " outputs but the last stage " +
               std::to_string(last.num_results) + " results");
  if (model.num_outputs > 0 && (!model.outputs || !model.output_combine))
    modelError("the output arrays are missing");
  for (int o = 0; o < model.num_outputs; ++o) {
    const pw_tensor_info &output = model.outputs[o];
    const pw_tensor_info &result = last.results[o];
    std::string what = "output '" + outputName(model, o) + "'";
    checkTensor(output, what);
    std::vector<int64_t> shape = shapeOf(result);
    if (model.output_combine[o] == PW_CONCAT_BATCH) {
      if (shape.empty())
        modelError(what + " is concatenated over microbatches but the last "
                          "stage returns a scalar");
      shape[0] *= model.num_microbatches * replicas;
    } else if (model.output_combine[o] == PW_SUM) {
      if (output.dtype == PW_BOOL)
        modelError(what + " is a sum of booleans");
    } else {
      modelError(what + " has invalid combine mode " +
                 std::to_string(model.output_combine[o]));
    }
    checkSame(output, result.dtype, shape, what,
              "the combined result of the last stage");
  }
}

void checkAction(const pw_model &model, int r, int i, const pw_action &action) {
  std::string where = "rank " + std::to_string(r) + " action " +
                      std::to_string(i) + " ('" + describeAction(action) + "')";
  int S = model.num_stages;
  if (action.kind < PW_ACT_FORWARD || action.kind > PW_ACT_TIED_ALLREDUCE)
    modelError(where + ": invalid kind " + std::to_string(action.kind));
  if (!rankHoldsStage(model, r, action.stage))
    modelError(where + ": stage " + std::to_string(action.stage) +
               " is not held by rank " + std::to_string(r));
  bool perMicrobatch = action.kind != PW_ACT_ALLREDUCE &&
                       action.kind != PW_ACT_OPTIMIZER &&
                       action.kind != PW_ACT_TIED_ALLREDUCE;
  if (perMicrobatch &&
      (action.microbatch < 0 || action.microbatch >= model.num_microbatches))
    modelError(where + ": microbatch out of range [0, " +
               std::to_string(model.num_microbatches) + ")");
  if (action.kind == PW_ACT_SEND || action.kind == PW_ACT_RECV) {
    if (action.payload != PW_ACTIVATION && action.payload != PW_GRADIENT)
      modelError(where + ": invalid payload " + std::to_string(action.payload));
    if (action.peer < 0 || action.peer >= model.num_ranks)
      modelError(where + ": peer out of range");
    if (action.tag < 0)
      modelError(where + ": negative tag");
    bool up = (action.kind == PW_ACT_SEND) == (action.payload == PW_ACTIVATION);
    if (up ? action.stage >= S - 1 : action.stage <= 0)
      modelError(where + ": no stage " +
                 std::to_string(action.stage + (up ? 1 : -1)) +
                 " to exchange with");
  }
  if (action.kind == PW_ACT_ALLREDUCE || action.kind == PW_ACT_TIED_ALLREDUCE) {
    if (action.group_size < 1 || action.group_begin < 0 || !model.group_ranks)
      modelError(where + ": invalid all-reduce group");
    for (int k = 0; k < action.group_size; ++k) {
      int member = model.group_ranks[action.group_begin + k];
      if (member < 0 || member >= model.num_ranks)
        modelError(where + ": all-reduce group member out of range");
    }
  }
  bool training =
      action.kind == PW_ACT_BACKWARD || action.kind == PW_ACT_BACKWARD_INPUT ||
      action.kind == PW_ACT_BACKWARD_WEIGHT ||
      action.kind == PW_ACT_ALLREDUCE || action.kind == PW_ACT_OPTIMIZER ||
      action.kind == PW_ACT_TIED_ALLREDUCE ||
      ((action.kind == PW_ACT_SEND || action.kind == PW_ACT_RECV) &&
       action.payload == PW_GRADIENT);
  if (!training)
    return;
  const pw_stage &stage = model.stages[action.stage];
  if (model.forward_only || (!stage.backward && !stage.backward_input))
    modelError(where + ": stage " + std::to_string(action.stage) +
               " has no backward function: this binary was compiled without "
               "training (forward-only)");
  if (action.kind == PW_ACT_BACKWARD && !stage.backward)
    modelError(where + ": stage " + std::to_string(action.stage) +
               " has no backward function (it was compiled with the split "
               "backward: use I and W actions)");
  if ((action.kind == PW_ACT_BACKWARD_INPUT ||
       action.kind == PW_ACT_BACKWARD_WEIGHT) &&
      (!stage.backward_input || !stage.backward_weight))
    modelError(where + ": stage " + std::to_string(action.stage) +
               " has no split backward (backward_input/backward_weight); "
               "compile it with the split backward for I/W schedules");
  if (action.kind == PW_ACT_ALLREDUCE) {
    std::vector<int> group(model.group_ranks + action.group_begin,
                           model.group_ranks + action.group_begin +
                               action.group_size);
    std::vector<int> holders = stageHolders(model, action.stage);
    if (group != holders)
      modelError(
          where + ": the all-reduce group " +
          shapeString(std::vector<int64_t>(group.begin(), group.end())) +
          " is not the set of ranks holding stage " +
          std::to_string(action.stage) + " " +
          shapeString(std::vector<int64_t>(holders.begin(), holders.end())));
  }
}

/// Replicas: every stage held by the same number of ranks, a rank's stages
/// all in the same replica. Returns the number of replicas.
int checkPlacement(const pw_model &model) {
  if (!model.ranks)
    modelError("the rank programs are missing");
  std::vector<int> holders(model.num_stages, 0);
  for (int r = 0; r < model.num_ranks; ++r) {
    const pw_rank_program &program = model.ranks[r];
    std::string where = "rank " + std::to_string(r);
    if (program.num_stages < 0 || (program.num_stages > 0 && !program.stages))
      modelError(where + " has an invalid stage list");
    for (int k = 0; k < program.num_stages; ++k) {
      int stage = program.stages[k];
      if (stage < 0 || stage >= model.num_stages)
        modelError(where + " holds stage " + std::to_string(stage) +
                   ", outside [0, " + std::to_string(model.num_stages) + ")");
      if (k > 0 && stage <= program.stages[k - 1])
        modelError(where + "'s stage list is not sorted and unique");
      ++holders[stage];
    }
  }
  for (int s = 0; s < model.num_stages; ++s) {
    if (holders[s] == 0)
      modelError("no rank holds stage " + std::to_string(s));
    if (holders[s] != holders[0])
      modelError("stage " + std::to_string(s) + " is held by " +
                 std::to_string(holders[s]) + " rank(s) but stage 0 by " +
                 std::to_string(holders[0]) +
                 ": every stage needs the same number of data-parallel "
                 "replicas");
  }
  for (int r = 0; r < model.num_ranks; ++r) {
    const pw_rank_program &program = model.ranks[r];
    for (int k = 1; k < program.num_stages; ++k) {
      std::vector<int> first = stageHolders(model, program.stages[0]);
      std::vector<int> other = stageHolders(model, program.stages[k]);
      auto position = [&](const std::vector<int> &list) {
        return std::find(list.begin(), list.end(), r) - list.begin();
      };
      if (position(first) != position(other))
        modelError("rank " + std::to_string(r) + " holds stage " +
                   std::to_string(program.stages[0]) + " as replica " +
                   std::to_string(position(first)) + " but stage " +
                   std::to_string(program.stages[k]) + " as replica " +
                   std::to_string(position(other)) +
                   ": a rank's stages must belong to one replica");
    }
  }
  return holders[0];
}

void checkTensorList(int32_t count, const pw_tensor_info *infos,
                     const std::string &what) {
  if (count < 0 || (count > 0 && !infos))
    modelError(what + " has an invalid count or no array");
  for (int k = 0; k < count; ++k)
    checkTensor(infos[k], what + " " + std::to_string(k));
}

/// Weight stash values passed through from backward_input's arguments name
/// one of them, of the same shape, that holds still until W: not a state
/// argument (later forwards overwrite it).
void checkWStashSources(const pw_stage &stage, const std::string &where) {
  int numBackwardArgs = stage.num_args + stage.num_stash;
  for (int r = 0; r < stage.num_results; ++r)
    numBackwardArgs += stage.result_has_grad[r] != 0;
  for (int k = 0; k < stage.num_wstash; ++k) {
    int source = wstashSource(stage, k);
    std::string what = where + " wstash_source[" + std::to_string(k) +
                       "] = " + std::to_string(source);
    if (source < -1 || source >= numBackwardArgs)
      modelError(what + " is neither -1 nor a backward argument index (0 to " +
                 std::to_string(numBackwardArgs - 1) + ")");
    if (source < 0)
      continue;
    BackwardArg arg = backwardArg(stage, source);
    const pw_tensor_info &info =
        arg.kind == BackwardArg::Argument ? stage.args[arg.index]
        : arg.kind == BackwardArg::Stash  ? stage.stash[arg.index]
                                          : stage.results[arg.index];
    const pw_tensor_info &value = stage.wstash[k];
    if (info.dtype != value.dtype || info.rank != value.rank ||
        !std::equal(info.shape, info.shape + info.rank, value.shape))
      modelError(what + ": that argument's shape or dtype is not the weight "
                        "stash value's");
    if (arg.kind == BackwardArg::Argument &&
        std::find(stage.state_args, stage.state_args + stage.num_state,
                  arg.index) != stage.state_args + stage.num_state)
      modelError(what + " is a state argument, which the forwards between I "
                        "and W overwrite");
  }
}

/// The training functions and tensors of every stage, the loss, and the
/// trained parameters.
void checkTraining(const pw_model &model) {
  int last = model.num_stages - 1;
  for (int s = 0; s < model.num_stages; ++s) {
    const pw_stage &stage = model.stages[s];
    std::string where = "stage " + std::to_string(s);
    if (!stage.backward && !(stage.backward_input && stage.backward_weight))
      modelError(where + " of a training model has neither a backward nor "
                         "a backward_input/backward_weight pair");
    if (stage.backward_input && !stage.backward_weight)
      modelError(where + " has backward_input but no backward_weight");
    if (stage.num_results > 0 && !stage.result_has_grad)
      modelError(where + " lacks result_has_grad");
    for (int r = 0; r < stage.num_results; ++r) {
      int32_t dtype = stage.results[r].dtype;
      if (stage.result_has_grad[r] != 0 && stage.result_has_grad[r] != 1)
        modelError(where + " result " + std::to_string(r) +
                   ": result_has_grad must be 0 or 1");
      if (stage.result_has_grad[r] && dtype != PW_F32 && dtype != PW_F64)
        modelError(where + " result " + std::to_string(r) + " is " +
                   dtypeName(dtype) + " but marked as having a gradient");
    }
    checkTensorList(stage.num_stash, stage.stash, where + " stash");
    checkTensorList(stage.num_wstash, stage.wstash, where + " wstash");
    if (stage.num_grad_args < 0 ||
        (stage.num_grad_args > 0 && !stage.grad_args))
      modelError(where + " has an invalid grad_args list");
    for (int k = 0; k < stage.num_grad_args; ++k) {
      int a = stage.grad_args[k];
      std::string what = where + " grad_args[" + std::to_string(k) + "]";
      if (a < 0 || a >= stage.num_args)
        modelError(what + " = " + std::to_string(a) +
                   " is not an argument index");
      if (k > 0 && a <= stage.grad_args[k - 1])
        modelError(where + " grad_args are not ascending and unique");
      if (stage.arg_source[a] == PW_FROM_DATA)
        modelError(what + ": argument " + std::to_string(a) +
                   " is a data input, which gets no gradient");
      int32_t dtype = stage.args[a].dtype;
      if (stage.arg_source[a] == PW_FROM_PARAM && dtype != PW_F32)
        modelError(what + ": parameter '" +
                   inputName(model, stage.arg_index[a]) + "' is " +
                   dtypeName(dtype) +
                   "; the optimizers update f32 parameters only");
      if (dtype != PW_F32 && dtype != PW_F64)
        modelError(what + ": argument " + std::to_string(a) + " is " +
                   dtypeName(dtype) + " and cannot have a gradient");
    }
    if (stage.num_state < 0 || (stage.num_state > 0 && !stage.state_args))
      modelError(where + " has an invalid state_args list");
    for (int k = 0; k < stage.num_state; ++k) {
      int a = stage.state_args[k];
      std::string what = where + " state_args[" + std::to_string(k) + "]";
      if (a < 0 || a >= stage.num_args || stage.arg_source[a] != PW_FROM_PARAM)
        modelError(what + " = " + std::to_string(a) +
                   " is not a parameter argument");
      if (k > 0 && a <= stage.state_args[k - 1])
        modelError(where + " state_args are not ascending and unique");
      for (int g = 0; g < stage.num_grad_args; ++g)
        if (stage.grad_args[g] == a)
          modelError(what + ": state '" + inputName(model, stage.arg_index[a]) +
                     "' also gets a gradient");
    }
    checkWStashSources(stage, where);
  }
  const pw_stage &lastStage = model.stages[last];
  if (model.num_outputs < 1 || model.outputs[0].rank != 0 ||
      (model.outputs[0].dtype != PW_F32 && model.outputs[0].dtype != PW_F64) ||
      model.output_combine[0] != PW_SUM || !lastStage.result_has_grad[0])
    modelError("a training model's first output is its loss: a scalar f32 or "
               "f64 result of the last stage, summed over microbatches, with "
               "a gradient" +
               std::string(model.num_outputs > 0
                               ? " (output '" + outputName(model, 0) + "' is " +
                                     dtypeName(model.outputs[0].dtype) + " " +
                                     shapeString(shapeOf(model.outputs[0])) +
                                     ")"
                               : ""));
}

void checkRanks(const pw_model &model) {
  for (int r = 0; r < model.num_ranks; ++r) {
    const pw_rank_program &program = model.ranks[r];
    std::string where = "rank " + std::to_string(r);
    if (program.num_actions < 0 ||
        (program.num_actions > 0 && !program.actions))
      modelError(where + " has an invalid action list");
    for (int i = 0; i < program.num_actions; ++i)
      checkAction(model, r, i, program.actions[i]);
    // Replicated stages must all-reduce before their optimizer step, or the
    // replicas' parameters drift apart.
    if (model.forward_only)
      continue;
    for (int k = 0; k < program.num_stages; ++k) {
      int stage = program.stages[k];
      if (stageHolders(model, stage).size() < 2)
        continue;
      bool reduced = false;
      for (int i = 0; i < program.num_actions; ++i) {
        const pw_action &action = program.actions[i];
        if (action.stage != stage)
          continue;
        if (action.kind == PW_ACT_ALLREDUCE)
          reduced = true;
        if (action.kind == PW_ACT_OPTIMIZER && !reduced)
          modelError(where + " action " + std::to_string(i) +
                     " ('optimizer stage " + std::to_string(stage) +
                     "'): stage " + std::to_string(stage) + " has " +
                     std::to_string(stageHolders(model, stage).size()) +
                     " replicas but no all-reduce of its gradients before "
                     "the optimizer step");
      }
    }
  }
}

/// input_is_counter: at most one input, a data input of I64 [B, 3].
void checkCounter(const pw_model &model) {
  if (!model.input_is_counter)
    return;
  int counters = 0;
  for (int i = 0; i < model.num_inputs; ++i) {
    if (!model.input_is_counter[i])
      continue;
    const pw_tensor_info &info = model.inputs[i];
    if (++counters > 1)
      modelError("more than one step counter input");
    if (model.input_is_param[i] || info.dtype != PW_I64 || info.rank != 2 ||
        info.shape[1] != 3)
      modelError("step counter input '" + inputName(model, i) +
                 "' is not an i64 data input of shape [B, 3]");
  }
}

} // namespace

void validateModel(const pw_model &model) {
  if (model.abi_version != PW_MODEL_ABI_VERSION)
    modelError("it was compiled for runtime ABI version " +
               std::to_string(model.abi_version) + " but this runtime has " +
               std::to_string(PW_MODEL_ABI_VERSION) +
               " (rebuild the model with a matching pipewave-compile)");
  if (model.device != PW_DEVICE_HOST && model.device != PW_DEVICE_CUDA)
    modelError("unknown device kind " + std::to_string(model.device) +
               " of its stage functions");
  if (model.num_stages < 1 || model.num_microbatches < 1 || model.num_ranks < 1)
    modelError("it needs at least one stage, microbatch and rank");
  if (model.num_inputs < 0 || model.num_outputs < 0)
    modelError("negative input or output count");
  if (model.num_inputs > 0 && (!model.inputs || !model.input_is_param))
    modelError("the input arrays are missing");
  if (!model.stages)
    modelError("the stage array is missing");
  int replicas = checkPlacement(model);
  try {
    for (int i = 0; i < model.num_inputs; ++i) {
      std::string what = "input '" + inputName(model, i) + "'";
      checkTensor(model.inputs[i], what);
      if (!model.input_is_param[i])
        microbatchShape(shapeOf(model.inputs[i]),
                        model.num_microbatches * replicas,
                        "data " + what + replicaNote(replicas));
    }
    checkCounter(model);
    for (int s = 0; s < model.num_stages; ++s)
      checkStage(model, s, replicas);
  } catch (const Error &error) {
    if (error.exitCode == ExitBadModel)
      throw;
    modelError(error.what());
  }
  checkOutputs(model, replicas);
  if (!model.forward_only)
    checkTraining(model);
  checkRanks(model);
  if (!model.forward_only)
    checkTiedParameters(model);
}

} // namespace pipewave::runtime
