//===- ExecutorTraining.cpp - The executor's training actions -------------===//
//
// Part of the pipewave project.
//
// Gradient targets and accumulators, B/I/W, the all-reduce, the optimizer
// step and the host's access to parameters, gradients and optimizer state.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Executor.h"
#include "pipewave-runtime/ModelCheck.h"

#include <algorithm>
#include <set>

namespace pipewave::runtime {

namespace {

/// Offsets of `count` tensors packed at 64-byte aligned offsets, and the
/// total size.
std::vector<size_t> packedOffsets(int count, const pw_tensor_info *tensors,
                                  size_t &total) {
  std::vector<size_t> offsets;
  total = 0;
  for (int k = 0; k < count; ++k) {
    offsets.push_back(total);
    total += alignUp(tensorBytes(tensors[k]));
  }
  return offsets;
}

} // namespace

void Executor::prepareTraining() {
  // All-reduce groups, created collectively (every rank, same order).
  std::set<std::vector<int>> groups;
  for (int r = 0; r < model.num_ranks; ++r)
    for (int i = 0; i < model.ranks[r].num_actions; ++i) {
      const pw_action &action = model.ranks[r].actions[i];
      if (action.kind == PW_ACT_ALLREDUCE ||
          (action.kind == PW_ACT_TIED_ALLREDUCE && action.group_size > 1))
        groups.insert(std::vector<int>(model.group_ranks + action.group_begin,
                                       model.group_ranks + action.group_begin +
                                           action.group_size));
    }
  backend.createGroups(
      std::vector<std::vector<int>>(groups.begin(), groups.end()));

  // A tied parameter belongs to the lowest user stage this rank holds (its
  // tied all-reduce's stage): that stage keeps its gradient and updates it.
  std::vector<int> owner(model.num_inputs, -1);
  for (int i = 0; i < program.num_actions; ++i)
    if (program.actions[i].kind == PW_ACT_TIED_ALLREDUCE)
      owner[program.actions[i].param] = program.actions[i].stage;

  size_t stateCount = optimizerStateNames(optimizer).size();
  int last = model.num_stages - 1;
  for (int s = 0; s < model.num_stages; ++s) {
    StageState &st = stages[s];
    if (!st.held)
      continue;
    const pw_stage &stage = model.stages[s];
    // Trained parameters, in order of first appearance in grad_args, then
    // the tied parameters the stage keeps without a gradient of its own.
    std::vector<int> inputsOfStage;
    auto keep = [&](int input) {
      if ((owner[input] < 0 || owner[input] == s) &&
          std::find(inputsOfStage.begin(), inputsOfStage.end(), input) ==
              inputsOfStage.end())
        inputsOfStage.push_back(input);
    };
    for (int k = 0; k < stage.num_grad_args; ++k) {
      int a = stage.grad_args[k];
      if (stage.arg_source[a] == PW_FROM_PARAM)
        keep(stage.arg_index[a]);
    }
    for (int input = 0; input < model.num_inputs; ++input)
      if (owner[input] == s)
        keep(input);
    std::vector<size_t> flatOffsets;
    for (int input : inputsOfStage) {
      flatOffsets.push_back(st.flatCount);
      st.flatCount +=
          static_cast<size_t>(numElements(shapeOf(model.inputs[input])));
    }
    st.flatGrad =
        static_cast<float *>(allocateZeroed(st.flatCount * sizeof(float)));
    st.gradientsDone = device.createEvent();
    for (size_t p = 0; p < inputsOfStage.size(); ++p) {
      TrainedParameter parameter;
      parameter.input = inputsOfStage[p];
      parameter.stage = s;
      parameter.data = static_cast<float *>(deviceInputs[parameter.input]);
      parameter.count = static_cast<size_t>(
          numElements(shapeOf(model.inputs[parameter.input])));
      parameter.grad = st.flatGrad + flatOffsets[p];
      for (size_t k = 0; k < stateCount; ++k)
        parameter.state.push_back(static_cast<float *>(
            allocateZeroed(parameter.count * sizeof(float))));
      st.parameters.push_back(static_cast<int>(trained.size()));
      trained.push_back(std::move(parameter));
    }

    // Where each gradient goes.
    size_t scratch = 0;
    std::set<int> written;
    for (int k = 0; k < stage.num_grad_args; ++k) {
      GradTarget target;
      target.arg = stage.grad_args[k];
      if (stage.arg_source[target.arg] == PW_FROM_PARAM) {
        // The owner's copy, on this stage or a lower one of the rank.
        int input = stage.arg_index[target.arg];
        for (size_t p = 0; p < trained.size(); ++p)
          if (trained[p].input == input)
            target.parameter = static_cast<int>(p);
      } else {
        target.result = stage.arg_index[target.arg];
        target.direct = written.insert(target.result).second;
      }
      if (target.parameter >= 0 || !target.direct) {
        target.scratch = scratch;
        scratch += alignUp(tensorBytes(stage.args[target.arg]));
      }
      st.targets.push_back(target);
    }
    st.scratch = static_cast<char *>(allocateZeroed(scratch));
    for (int k = 0; k < stage.num_state; ++k)
      st.newState.push_back(
          allocateZeroed(tensorBytes(stage.args[stage.state_args[k]])));
    if (s > 0)
      for (int r = 0; r < model.stages[s - 1].num_results; ++r)
        if (!written.count(r))
          st.gaps.push_back(r);

    if (s == last) {
      size_t total = 0;
      st.seedOffsets = packedOffsets(stage.num_results, stage.results, total);
      st.seed = static_cast<char *>(allocateZeroed(total));
      const pw_tensor_info &loss = stage.results[0];
      seedValue = AlignedBuffer(sizeof(double));
      if (loss.dtype == PW_F32)
        *static_cast<float *>(seedValue.data()) = 1.0f;
      else
        *static_cast<double *>(seedValue.data()) = 1.0;
      // Uploaded on the compute stream, after the zero fill.
      device.copy(compute, st.seed + st.seedOffsets[0], seedValue.data(),
                  dtypeSize(loss.dtype), CopyKind::HostToDevice);
    }
  }

  // The accumulators this rank's B and W actions write; a stage holding
  // one that none writes (a tied parameter whose gradient comes from
  // elsewhere) zeroes its buffer at every step start.
  std::vector<char> written(trained.size(), 0);
  for (int i = 0; i < program.num_actions; ++i) {
    const pw_action &action = program.actions[i];
    if (action.kind != PW_ACT_BACKWARD && action.kind != PW_ACT_BACKWARD_WEIGHT)
      continue;
    for (const GradTarget &target : stages[action.stage].targets)
      if (target.parameter >= 0)
        written[target.parameter] = 1;
  }
  size_t mostTargets = 0;
  for (StageState &st : stages) {
    mostTargets = std::max(mostTargets, st.targets.size());
    for (int p : st.parameters)
      if (!written[p])
        st.zeroGradients = true;
  }
  gradientFresh.assign(trained.size(), 1);
  targetDirect.assign(mostTargets, 0);
  planFusedUpdates();
}

void Executor::accumulate(const StageState &st, const GradTarget &target) {
  const TrainedParameter &parameter = trained[target.parameter];
  device.accumulate(compute, PW_F32, parameter.grad,
                    st.scratch + target.scratch, parameter.count);
}

void *Executor::parameterResult(const StageState &st, size_t k) {
  const GradTarget &target = st.targets[k];
  char &fresh = gradientFresh[target.parameter];
  targetDirect[k] = fresh;
  if (!fresh)
    return st.scratch + target.scratch;
  fresh = 0;
  return trained[target.parameter].grad;
}

bool Executor::parametersStarted(const StageState &st) const {
  for (const GradTarget &target : st.targets)
    if (target.parameter >= 0 && gradientFresh[target.parameter])
      return false;
  return true;
}

void *Executor::accumulatingResult(const StageState &st, const pw_stage &stage,
                                   size_t k, int32_t variant) {
  const GradTarget &target = st.targets[k];
  bool inPlace =
      stage.grad_accumulates && (stage.grad_accumulates[k] & variant);
  targetDirect[k] = inPlace;
  if (inPlace)
    return trained[target.parameter].grad;
  return st.scratch + target.scratch;
}

void Executor::accumulateParameters(const StageState &st) {
  for (size_t k = 0; k < st.targets.size(); ++k)
    if (st.targets[k].parameter >= 0 && !targetDirect[k])
      accumulate(st, st.targets[k]);
}

/// B and I: backward(args..., stash..., d_res...).
void Executor::backward(int index) {
  const pw_action &action = program.actions[index];
  const ExecAction &current = plan.actions[index];
  const pw_stage &stage = model.stages[action.stage];
  StageState &st = stages[action.stage];
  bool split = action.kind == PW_ACT_BACKWARD_INPUT;
  if (current.input.valid())
    awaitRecv(current.input);
  if (current.gradient.valid())
    awaitRecv(current.gradient);
  if (current.output.valid())
    awaitSends(current.output);
  stageArguments(index);

  if (current.stash.valid()) {
    const ExecPool &stash = plan.pools[current.stash.pool];
    for (size_t k = 0; k < stash.offsets.size(); ++k)
      argPointers.push_back(slotData(current.stash) + stash.offsets[k]);
  }
  for (int r = 0; r < stage.num_results; ++r) {
    if (!stage.result_has_grad[r])
      continue;
    if (current.gradient.valid())
      argPointers.push_back(slotData(current.gradient) +
                            plan.pools[current.gradient.pool].offsets[r]);
    else
      argPointers.push_back(st.seed + st.seedOffsets[r]);
  }

  // After the step's first B of the stage, the accumulating variant adds
  // the parameter gradients it can to their accumulators itself (model.h).
  bool accumulating = !split && stage.backward_acc && parametersStarted(st);
  // Results: d_grad_args (B), or d_activation_args then wstash (I).
  char *grads = current.output.valid() ? slotData(current.output) : nullptr;
  const ExecPool *gradPool =
      current.output.valid() ? &plan.pools[current.output.pool] : nullptr;
  resultPointers.clear();
  for (size_t k = 0; k < st.targets.size(); ++k) {
    const GradTarget &target = st.targets[k];
    if (target.parameter >= 0) {
      if (accumulating)
        resultPointers.push_back(accumulatingResult(st, stage, k, 1));
      else if (!split)
        resultPointers.push_back(parameterResult(st, k));
    } else if (target.direct)
      resultPointers.push_back(grads + gradPool->offsets[target.result]);
    else
      resultPointers.push_back(st.scratch + target.scratch);
  }
  if (split && current.wstash.valid()) {
    const ExecPool &wstash = plan.pools[current.wstash.pool];
    for (size_t k = 0; k < wstash.offsets.size(); ++k)
      resultPointers.push_back(slotData(current.wstash) + wstash.offsets[k]);
  }
  // Gradients of results that no argument of this stage reads are zero.
  if (grads) {
    const pw_stage &previous = model.stages[action.stage - 1];
    for (int r : st.gaps)
      device.fill(compute, grads + gradPool->offsets[r], 0,
                  tensorBytes(previous.results[r]));
  }

  double begin = trace ? backend.now() : 0;
  {
    FusedScope fused;
    armFusedUpdates(index, fused);
    if (split)
      callStage(stage.backward_input, stage.backward_input_workspace);
    else if (accumulating)
      callStage(stage.backward_acc, stage.backward_acc_workspace);
    else
      callStage(stage.backward, stage.backward_workspace);
  }
  finishFusedUpdates();
  if (!split)
    accumulateParameters(st);
  for (const GradTarget &target : st.targets) {
    if (target.parameter < 0 && !target.direct) {
      const pw_tensor_info &arg = stage.args[target.arg];
      device.accumulate(compute, arg.dtype,
                        grads + gradPool->offsets[target.result],
                        st.scratch + target.scratch,
                        static_cast<size_t>(numElements(shapeOf(arg))));
    }
  }
  record(current.name, "compute", begin);
  used(current.input);
  used(current.gradient);
  used(current.output);
  used(current.stash);
  used(current.wstash);
}

/// W: backward_weight(wstash...) -> d_param_args. A weight stash value I
/// computed is in the WSTASH slot; one it passed through is the buffer I
/// read it from, kept alive by the plan.
void Executor::backwardWeight(int index) {
  const pw_action &action = program.actions[index];
  const ExecAction &current = plan.actions[index];
  const pw_stage &stage = model.stages[action.stage];
  StageState &st = stages[action.stage];
  argPointers.clear();
  size_t computed = 0;
  for (int k = 0; k < stage.num_wstash; ++k) {
    int source = wstashSource(stage, k);
    if (source < 0) {
      const ExecPool &wstash = plan.pools[current.wstash.pool];
      argPointers.push_back(slotData(current.wstash) +
                            wstash.offsets[computed++]);
      continue;
    }
    BackwardArg arg = backwardArg(stage, source);
    if (arg.kind == BackwardArg::Argument)
      argPointers.push_back(stageArgument(index, arg.index));
    else if (arg.kind == BackwardArg::Stash)
      argPointers.push_back(slotData(current.stash) +
                            plan.pools[current.stash.pool].offsets[arg.index]);
    else if (current.gradient.valid())
      argPointers.push_back(
          slotData(current.gradient) +
          plan.pools[current.gradient.pool].offsets[arg.index]);
    else
      argPointers.push_back(st.seed + st.seedOffsets[arg.index]);
  }
  bool accumulating = stage.backward_weight_acc && parametersStarted(st);
  resultPointers.clear();
  for (size_t k = 0; k < st.targets.size(); ++k)
    if (st.targets[k].parameter >= 0)
      resultPointers.push_back(accumulating
                                   ? accumulatingResult(st, stage, k, 2)
                                   : parameterResult(st, k));
  double begin = trace ? backend.now() : 0;
  {
    FusedScope fused;
    armFusedUpdates(index, fused);
    if (accumulating)
      callStage(stage.backward_weight_acc, stage.backward_weight_acc_workspace);
    else
      callStage(stage.backward_weight, stage.backward_weight_workspace);
  }
  finishFusedUpdates();
  accumulateParameters(st);
  record(current.name, "compute", begin);
  used(current.wstash);
  used(current.input);
  used(current.stash);
  used(current.gradient);
}

void Executor::allreduce(int index) {
  const pw_action &action = program.actions[index];
  const ExecAction &current = plan.actions[index];
  StageState &st = stages[action.stage];
  std::vector<int> group(model.group_ranks + action.group_begin,
                         model.group_ranks + action.group_begin +
                             action.group_size);
  double begin = trace ? backend.now() : 0;
  if (st.flatCount > 0) {
    device.record(st.gradientsDone, compute);
    backend.wait(backend.iallreduceAfter(device, st.gradientsDone, st.flatGrad,
                                         st.flatCount, PW_F32, ReduceOp::Sum,
                                         group),
                 current.description + " (" + std::to_string(st.flatCount) +
                     " gradient values)");
  }
  record(current.name, "allreduce", begin);
}

void Executor::tiedAllreduce(int index) {
  const pw_action &action = program.actions[index];
  const ExecAction &current = plan.actions[index];
  double begin = trace ? backend.now() : 0;
  if (action.group_size > 1) {
    const TrainedParameter &parameter = trainedParameter(action.param);
    StageState &st = stages[action.stage];
    std::vector<int> group(model.group_ranks + action.group_begin,
                           model.group_ranks + action.group_begin +
                               action.group_size);
    device.record(st.gradientsDone, compute);
    backend.wait(backend.iallreduceAfter(device, st.gradientsDone,
                                         parameter.grad, parameter.count,
                                         PW_F32, ReduceOp::Sum, group),
                 current.description + " (" + std::to_string(parameter.count) +
                     " gradient values)");
  }
  record(current.name, "allreduce", begin);
}

void Executor::optimizerStep(int index) {
  const pw_action &action = program.actions[index];
  const ExecAction &current = plan.actions[index];
  StageState &st = stages[action.stage];
  double begin = trace ? backend.now() : 0;
  ++st.steps;
  for (int p : st.parameters) {
    TrainedParameter &parameter = trained[p];
    if (parameter.fusedStep == step)
      continue; // its weight-gradient product ran it (ExecutorFused.cpp)
    if (checkInUpdates) {
      parameter.gradFinite = device.optimizerUpdateChecked(
          compute, optimizer, st.steps, parameter.data, parameter.grad,
          parameter.state, parameter.count);
      parameter.checkedStep = step;
    } else {
      device.optimizerUpdate(compute, optimizer, st.steps, parameter.data,
                             parameter.grad, parameter.state, parameter.count);
    }
  }
  record(current.name, "optimizer", begin);
}

const TrainedParameter &Executor::trainedParameter(int input) const {
  for (const TrainedParameter &parameter : trained)
    if (parameter.input == input)
      return parameter;
  throw Error("internal error: input " + std::to_string(input) +
              " is not a trained parameter of rank " +
              std::to_string(plan.rank));
}

const float *Executor::gradient(int input) const {
  for (size_t p = 0; p < trained.size(); ++p) {
    const TrainedParameter &parameter = trained[p];
    if (parameter.input != input)
      continue;
    if (step > 0 && parameter.gradLeftStep == step)
      throw Error("the gradient of input " + std::to_string(input) +
                  " was not kept: step " + std::to_string(step) +
                  " ran its SGD update in the product that computes it, "
                  "without writing it (Executor::keepGradients)");
    if (shared)
      return parameter.grad;
    gradientCopies.resize(trained.size());
    HostTensor &copy = gradientCopies[p];
    copy = HostTensor(PW_F32, shapeOf(model.inputs[input]));
    device.copy(compute, copy.data(), parameter.grad,
                parameter.count * sizeof(float), CopyKind::DeviceToHost);
    device.synchronize();
    return static_cast<const float *>(copy.data());
  }
  return nullptr;
}

void Executor::downloadParameters() {
  if (shared)
    return;
  for (int i = 0; i < model.num_inputs; ++i)
    if (model.input_is_param[i] && inputs[i])
      device.copy(compute, inputs[i], deviceInputs[i],
                  tensorBytes(model.inputs[i]), CopyKind::DeviceToHost);
  device.synchronize();
}

HostTensor Executor::optimizerState(int input, size_t k) {
  const TrainedParameter &parameter = trainedParameter(input);
  HostTensor tensor(PW_F32, shapeOf(model.inputs[input]));
  device.copy(compute, tensor.data(), parameter.state.at(k),
              parameter.count * sizeof(float), CopyKind::DeviceToHost);
  device.synchronize();
  return tensor;
}

void Executor::setOptimizerState(int input, size_t k, const float *data) {
  const TrainedParameter &parameter = trainedParameter(input);
  device.copy(compute, parameter.state.at(k), data,
              parameter.count * sizeof(float), CopyKind::HostToDevice);
  device.synchronize();
}

int64_t Executor::optimizerSteps(int stage) const {
  return stages.at(stage).steps;
}

void Executor::setOptimizerSteps(int stage, int64_t steps) {
  stages.at(stage).steps = steps;
}

} // namespace pipewave::runtime
