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

std::string inputName(const pw_model &model, int index) {
  const char *name = model.inputs[index].name;
  return name && *name ? name : "input" + std::to_string(index);
}

std::string outputName(const pw_model &model, int index) {
  const char *name = model.outputs[index].name;
  return name && *name ? name : "output" + std::to_string(index);
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
  default:
    return text + s + mb;
  }
}

namespace {

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

void checkStage(const pw_model &model, int s) {
  const pw_stage &stage = model.stages[s];
  std::string where = "stage " + std::to_string(s);
  if (stage.num_args < 0 || stage.num_results < 0)
    modelError(where + " has a negative argument or result count");
  if (stage.num_args > 0 && (!stage.args || !stage.arg_source || !stage.arg_index))
    modelError(where + " lacks its argument arrays");
  if (stage.num_results > 0 && !stage.results)
    modelError(where + " lacks its result array");
  if (!stage.forward)
    modelError(where + " has no forward function");
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
        shape = microbatchShape(shape, model.num_microbatches,
                                "data input '" + inputName(model, index) + "'");
      checkSame(arg, input.dtype, shape, what,
                std::string(param ? "parameter '" : "the microbatch of '") +
                    inputName(model, index) + "'");
      break;
    }
    case PW_FROM_PREVIOUS: {
      if (s == 0)
        modelError(what + " comes from the previous stage, but stage 0 has none");
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

void checkOutputs(const pw_model &model) {
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
      shape[0] *= model.num_microbatches;
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
  if (action.kind < PW_ACT_FORWARD || action.kind > PW_ACT_OPTIMIZER)
    modelError(where + ": invalid kind " + std::to_string(action.kind));
  if (!rankHoldsStage(model, r, action.stage))
    modelError(where + ": stage " + std::to_string(action.stage) +
               " is not held by rank " + std::to_string(r));
  bool perMicrobatch =
      action.kind != PW_ACT_ALLREDUCE && action.kind != PW_ACT_OPTIMIZER;
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
  if (action.kind == PW_ACT_ALLREDUCE) {
    if (action.group_size < 1 || action.group_begin < 0 || !model.group_ranks)
      modelError(where + ": invalid all-reduce group");
    for (int k = 0; k < action.group_size; ++k) {
      int member = model.group_ranks[action.group_begin + k];
      if (member < 0 || member >= model.num_ranks)
        modelError(where + ": all-reduce group member out of range");
    }
  }
  bool training = action.kind == PW_ACT_BACKWARD ||
                  action.kind == PW_ACT_BACKWARD_INPUT ||
                  action.kind == PW_ACT_BACKWARD_WEIGHT ||
                  action.kind == PW_ACT_ALLREDUCE ||
                  action.kind == PW_ACT_OPTIMIZER ||
                  ((action.kind == PW_ACT_SEND || action.kind == PW_ACT_RECV) &&
                   action.payload == PW_GRADIENT);
  if (!training)
    return;
  if (model.forward_only || !model.stages[action.stage].backward)
    modelError(where + ": stage " + std::to_string(action.stage) +
               " has no backward function: this binary was compiled without "
               "training (forward-only)");
  modelError(where + ": training steps are not supported by this runtime "
                     "version yet (the pw_stage.backward signature is not "
                     "fixed)");
}

void checkRanks(const pw_model &model) {
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
    if (program.num_actions < 0 ||
        (program.num_actions > 0 && !program.actions))
      modelError(where + " has an invalid action list");
    for (int i = 0; i < program.num_actions; ++i)
      checkAction(model, r, i, program.actions[i]);
  }
  for (int s = 0; s < model.num_stages; ++s)
    if (holders[s] == 0)
      modelError("no rank holds stage " + std::to_string(s));
}

} // namespace

void validateModel(const pw_model &model) {
  if (model.abi_version != PW_MODEL_ABI_VERSION)
    modelError("it was compiled for runtime ABI version " +
               std::to_string(model.abi_version) + " but this runtime has " +
               std::to_string(PW_MODEL_ABI_VERSION) +
               " (rebuild the model with a matching pipewave-compile)");
  if (model.num_stages < 1 || model.num_microbatches < 1 || model.num_ranks < 1)
    modelError("it needs at least one stage, microbatch and rank");
  if (model.num_inputs < 0 || model.num_outputs < 0)
    modelError("negative input or output count");
  if (model.num_inputs > 0 && (!model.inputs || !model.input_is_param))
    modelError("the input arrays are missing");
  if (!model.stages)
    modelError("the stage array is missing");
  try {
    for (int i = 0; i < model.num_inputs; ++i) {
      std::string what = "input '" + inputName(model, i) + "'";
      checkTensor(model.inputs[i], what);
      if (!model.input_is_param[i])
        microbatchShape(shapeOf(model.inputs[i]), model.num_microbatches,
                        "data " + what);
    }
    for (int s = 0; s < model.num_stages; ++s)
      checkStage(model, s);
  } catch (const Error &error) {
    if (error.exitCode == ExitBadModel)
      throw;
    modelError(error.what());
  }
  checkOutputs(model);
  checkRanks(model);
}

} // namespace pipewave::runtime
