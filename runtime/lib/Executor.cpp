//===- Executor.cpp - Runs one rank's action list -------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Executor.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Trace.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace pipewave::runtime {

namespace {

template <typename T> void addInto(void *dst, const void *src, size_t count) {
  T *out = static_cast<T *>(dst);
  const T *in = static_cast<const T *>(src);
  for (size_t i = 0; i < count; ++i)
    out[i] += in[i];
}

void accumulateValues(int32_t dtype, void *dst, const void *src, size_t count) {
  switch (dtype) {
  case PW_F32:
    return addInto<float>(dst, src, count);
  case PW_F64:
    return addInto<double>(dst, src, count);
  case PW_I32:
    return addInto<int32_t>(dst, src, count);
  case PW_I64:
    return addInto<int64_t>(dst, src, count);
  case PW_I8:
    return addInto<int8_t>(dst, src, count);
  default:
    throw Error("cannot sum outputs of dtype " + dtypeName(dtype));
  }
}

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

Executor::Executor(const pw_model &model, const RankPlan &plan,
                   Backend &backend, std::vector<void *> inputs, Trace *trace,
                   const OptimizerConfig &optimizer)
    : model(model), plan(plan), backend(backend), inputs(std::move(inputs)),
      trace(trace), program(model.ranks[plan.rank]), optimizer(optimizer) {
  if (static_cast<int>(this->inputs.size()) != model.num_inputs)
    throw Error("internal error: executor given " +
                std::to_string(this->inputs.size()) + " inputs for " +
                std::to_string(model.num_inputs));
  replicaCount = numReplicas(model);
  replicaIndex = replicaOf(model, plan.rank);
  for (int k = 0; k < program.num_stages; ++k) {
    const pw_stage &stage = model.stages[program.stages[k]];
    for (int a = 0; a < stage.num_args; ++a)
      if (stage.arg_source[a] != PW_FROM_PREVIOUS &&
          !this->inputs[stage.arg_index[a]])
        throw Error("internal error: input '" +
                    inputName(model, stage.arg_index[a]) +
                    "' not loaded on rank " + std::to_string(plan.rank));
  }
  for (const PoolPlan &pool : plan.pools) {
    poolMemory.push_back(
        backend.allocate(pool.bytes * static_cast<size_t>(pool.slots)));
    slots.emplace_back(pool.slots);
  }
  for (const ActionPlan &action : plan.actions) {
    if (!action.collectOutputs)
      continue;
    for (int o = 0; o < model.num_outputs; ++o)
      outputTensors.emplace_back(model.outputs[o].dtype,
                                 shapeOf(model.outputs[o]));
    break;
  }
  stages.resize(model.num_stages);
  for (int k = 0; k < program.num_stages; ++k)
    stages[program.stages[k]].held = true;
  retainBytes.assign(model.num_stages, 0);
  weightStashBytes.assign(model.num_stages, 0);
  if (!model.forward_only)
    for (int s = 0; s < model.num_stages; ++s) {
      const pw_stage &stage = model.stages[s];
      for (int a = 0; a < stage.num_args; ++a)
        if (stage.arg_source[a] != PW_FROM_PARAM)
          retainBytes[s] += tensorBytes(stage.args[a]);
      for (int k = 0; k < stage.num_stash; ++k)
        retainBytes[s] += tensorBytes(stage.stash[k]);
      for (int k = 0; k < stage.num_wstash; ++k)
        weightStashBytes[s] += tensorBytes(stage.wstash[k]);
    }
  if (!model.forward_only)
    prepareTraining();
}

void Executor::prepareTraining() {
  // All-reduce groups, created collectively (every rank, same order).
  std::set<std::vector<int>> groups;
  for (int r = 0; r < model.num_ranks; ++r)
    for (int i = 0; i < model.ranks[r].num_actions; ++i) {
      const pw_action &action = model.ranks[r].actions[i];
      if (action.kind == PW_ACT_ALLREDUCE)
        groups.insert(std::vector<int>(model.group_ranks + action.group_begin,
                                       model.group_ranks + action.group_begin +
                                           action.group_size));
    }
  backend.createGroups(
      std::vector<std::vector<int>>(groups.begin(), groups.end()));

  size_t stateCount = optimizerStateNames(optimizer).size();
  int last = model.num_stages - 1;
  for (int s = 0; s < model.num_stages; ++s) {
    StageState &st = stages[s];
    if (!st.held)
      continue;
    const pw_stage &stage = model.stages[s];
    // Trained parameters, in order of first appearance in grad_args.
    std::vector<int> inputsOfStage;
    for (int k = 0; k < stage.num_grad_args; ++k) {
      int a = stage.grad_args[k];
      if (stage.arg_source[a] != PW_FROM_PARAM)
        continue;
      int input = stage.arg_index[a];
      if (std::find(inputsOfStage.begin(), inputsOfStage.end(), input) ==
          inputsOfStage.end())
        inputsOfStage.push_back(input);
    }
    std::vector<size_t> flatOffsets;
    for (int input : inputsOfStage) {
      flatOffsets.push_back(st.flatCount);
      st.flatCount +=
          static_cast<size_t>(numElements(shapeOf(model.inputs[input])));
    }
    st.flatGrad =
        static_cast<float *>(backend.allocate(st.flatCount * sizeof(float)));
    for (size_t p = 0; p < inputsOfStage.size(); ++p) {
      TrainedParameter parameter;
      parameter.input = inputsOfStage[p];
      parameter.stage = s;
      parameter.data = static_cast<float *>(inputs[parameter.input]);
      parameter.count = static_cast<size_t>(
          numElements(shapeOf(model.inputs[parameter.input])));
      parameter.grad = st.flatGrad + flatOffsets[p];
      for (size_t k = 0; k < stateCount; ++k) {
        optimizerState.emplace_back(parameter.count * sizeof(float));
        parameter.state.push_back(
            static_cast<float *>(optimizerState.back().data()));
      }
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
        int input = stage.arg_index[target.arg];
        for (int p : st.parameters)
          if (trained[p].input == input)
            target.parameter = p;
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
    st.scratch = AlignedBuffer(scratch);
    if (s > 0)
      for (int r = 0; r < model.stages[s - 1].num_results; ++r)
        if (!written.count(r))
          st.gaps.push_back(r);

    if (s == last) {
      size_t total = 0;
      st.seedOffsets = packedOffsets(stage.num_results, stage.results, total);
      st.seed = AlignedBuffer(total);
      const pw_tensor_info &loss = stage.results[0];
      char *at = static_cast<char *>(st.seed.data()) + st.seedOffsets[0];
      if (loss.dtype == PW_F32)
        *reinterpret_cast<float *>(at) = 1.0f;
      else
        *reinterpret_cast<double *>(at) = 1.0;
    }
  }
}

Executor::~Executor() {
  // After a failed step, messages may still be landing in the slots; the job
  // is being aborted, so leave the memory to the OS rather than free it under
  // the network.
  for (const auto &pool : slots)
    for (const SlotState &slot : pool)
      if (slot.recv != kNoRequest || !slot.sends.empty())
        return;
  for (void *memory : poolMemory)
    backend.deallocate(memory);
  for (StageState &stage : stages)
    if (stage.flatGrad)
      backend.deallocate(stage.flatGrad);
}

void Executor::setInput(int index, const void *data) {
  if (index < 0 || index >= model.num_inputs || model.input_is_param[index])
    throw Error("internal error: setInput of input " + std::to_string(index));
  inputs[index] = const_cast<void *>(data);
}

double Executor::loss() const {
  if (model.forward_only || outputTensors.empty())
    return 0;
  return elementSum(outputTensors[0].dtype, outputTensors[0].data(), 1);
}

const float *Executor::gradient(int input) const {
  for (const TrainedParameter &parameter : trained)
    if (parameter.input == input)
      return parameter.grad;
  return nullptr;
}

int64_t Executor::optimizerSteps(int stage) const {
  return stages.at(stage).steps;
}

void Executor::setOptimizerSteps(int stage, int64_t steps) {
  stages.at(stage).steps = steps;
}

char *Executor::slotData(SlotRef ref) const {
  return static_cast<char *>(poolMemory[ref.pool]) +
         plan.pools[ref.pool].bytes * static_cast<size_t>(ref.slot);
}

const void *Executor::dataSlice(int input, int microbatch) const {
  // The global batch splits into the replicas' parts, each part into the
  // microbatches: replica k's microbatch m is slice k * M + m.
  int parts = model.num_microbatches * replicaCount;
  return microbatchSlice(inputs[input], tensorBytes(model.inputs[input]), parts,
                         replicaIndex * model.num_microbatches + microbatch);
}

void Executor::record(const std::string &name, const char *category,
                      double begin) {
  if (trace)
    trace->add(name, category, begin, backend.now(), step);
}

void Executor::postRecv(int index) {
  const pw_action &action = program.actions[index];
  SlotRef ref = plan.actions[index].output;
  awaitSends(ref);
  SlotState &slot = state(ref);
  if (slot.recv != kNoRequest)
    throw Error("internal error: slot reused before its receive completed");
  slot.recv = backend.irecv(slotData(ref), plan.pools[ref.pool].bytes,
                            action.peer, action.tag);
  slot.recvAction = index;
}

void Executor::awaitRecv(SlotRef ref) {
  SlotState &slot = state(ref);
  if (slot.recv == kNoRequest)
    return;
  double begin = trace ? backend.now() : 0;
  backend.wait(slot.recv, plan.actions[slot.recvAction].description);
  record(plan.actions[slot.recvAction].name, "recv", begin);
  slot.recv = kNoRequest;
  slot.recvAction = -1;
}

void Executor::awaitSends(SlotRef ref) {
  SlotState &slot = state(ref);
  for (auto [request, index] : slot.sends) {
    double begin = trace ? backend.now() : 0;
    backend.wait(request, plan.actions[index].description);
    record("wait " + plan.actions[index].name, "send", begin);
  }
  slot.sends.clear();
}

/// The stage's arguments for the action's microbatch into argPointers: data
/// slices, the live parameters, the previous stage's results.
void Executor::stageArguments(int index) {
  const pw_action &action = program.actions[index];
  const ActionPlan &current = plan.actions[index];
  const pw_stage &stage = model.stages[action.stage];
  argPointers.resize(stage.num_args);
  for (int a = 0; a < stage.num_args; ++a) {
    int source = stage.arg_index[a];
    switch (stage.arg_source[a]) {
    case PW_FROM_DATA:
      argPointers[a] = const_cast<void *>(dataSlice(source, action.microbatch));
      break;
    case PW_FROM_PARAM:
      argPointers[a] = inputs[source];
      break;
    default:
      argPointers[a] = slotData(current.input) +
                       plan.pools[current.input.pool].offsets[source];
      break;
    }
  }
}

void Executor::forward(int index) {
  const pw_action &action = program.actions[index];
  const ActionPlan &current = plan.actions[index];
  const pw_stage &stage = model.stages[action.stage];
  if (current.input.valid())
    awaitRecv(current.input);
  awaitSends(current.output);
  stageArguments(index);

  const PoolPlan &out = plan.pools[current.output.pool];
  resultPointers.resize(stage.num_results);
  for (int r = 0; r < stage.num_results; ++r)
    resultPointers[r] = slotData(current.output) + out.offsets[r];
  if (current.stash.valid()) {
    const PoolPlan &stash = plan.pools[current.stash.pool];
    for (size_t k = 0; k < stash.offsets.size(); ++k)
      resultPointers.push_back(slotData(current.stash) + stash.offsets[k]);
  }

  double begin = trace ? backend.now() : 0;
  stage.forward(argPointers.data(), resultPointers.data());
  record(current.name, "compute", begin);
  if (current.collectOutputs)
    collect(action.microbatch);
}

void Executor::accumulate(const StageState &st, const GradTarget &target) {
  const float *d = reinterpret_cast<const float *>(
      static_cast<const char *>(st.scratch.data()) + target.scratch);
  TrainedParameter &parameter = trained[target.parameter];
  float *acc = parameter.grad;
  for (size_t i = 0; i < parameter.count; ++i)
    acc[i] += d[i];
}

/// B and I: backward(args..., stash..., d_res...).
void Executor::backward(int index) {
  const pw_action &action = program.actions[index];
  const ActionPlan &current = plan.actions[index];
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
    const PoolPlan &stash = plan.pools[current.stash.pool];
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
      argPointers.push_back(static_cast<char *>(st.seed.data()) +
                            st.seedOffsets[r]);
  }

  // Results: d_grad_args (B), or d_activation_args then wstash (I).
  char *scratch = static_cast<char *>(st.scratch.data());
  char *grads = current.output.valid() ? slotData(current.output) : nullptr;
  const PoolPlan *gradPool =
      current.output.valid() ? &plan.pools[current.output.pool] : nullptr;
  resultPointers.clear();
  for (const GradTarget &target : st.targets) {
    if (split && target.parameter >= 0)
      continue;
    if (target.direct)
      resultPointers.push_back(grads + gradPool->offsets[target.result]);
    else
      resultPointers.push_back(scratch + target.scratch);
  }
  if (split && current.wstash.valid()) {
    const PoolPlan &wstash = plan.pools[current.wstash.pool];
    for (size_t k = 0; k < wstash.offsets.size(); ++k)
      resultPointers.push_back(slotData(current.wstash) + wstash.offsets[k]);
  }
  // Gradients of results that no argument of this stage reads are zero.
  if (grads) {
    const pw_stage &previous = model.stages[action.stage - 1];
    for (int r : st.gaps)
      std::memset(grads + gradPool->offsets[r], 0,
                  tensorBytes(previous.results[r]));
  }

  double begin = trace ? backend.now() : 0;
  (split ? stage.backward_input : stage.backward)(argPointers.data(),
                                                  resultPointers.data());
  for (const GradTarget &target : st.targets) {
    if (target.parameter >= 0) {
      if (!split)
        accumulate(st, target);
    } else if (!target.direct) {
      const pw_tensor_info &arg = stage.args[target.arg];
      accumulateValues(arg.dtype, grads + gradPool->offsets[target.result],
                       scratch + target.scratch,
                       static_cast<size_t>(numElements(shapeOf(arg))));
    }
  }
  record(current.name, "compute", begin);
}

/// W: backward_weight(wstash...) -> d_param_args.
void Executor::backwardWeight(int index) {
  const pw_action &action = program.actions[index];
  const ActionPlan &current = plan.actions[index];
  const pw_stage &stage = model.stages[action.stage];
  StageState &st = stages[action.stage];
  argPointers.clear();
  if (current.wstash.valid()) {
    const PoolPlan &wstash = plan.pools[current.wstash.pool];
    for (size_t k = 0; k < wstash.offsets.size(); ++k)
      argPointers.push_back(slotData(current.wstash) + wstash.offsets[k]);
  }
  char *scratch = static_cast<char *>(st.scratch.data());
  resultPointers.clear();
  for (const GradTarget &target : st.targets)
    if (target.parameter >= 0)
      resultPointers.push_back(scratch + target.scratch);
  double begin = trace ? backend.now() : 0;
  stage.backward_weight(argPointers.data(), resultPointers.data());
  for (const GradTarget &target : st.targets)
    if (target.parameter >= 0)
      accumulate(st, target);
  record(current.name, "compute", begin);
}

void Executor::allreduce(int index) {
  const pw_action &action = program.actions[index];
  const ActionPlan &current = plan.actions[index];
  StageState &st = stages[action.stage];
  std::vector<int> group(model.group_ranks + action.group_begin,
                         model.group_ranks + action.group_begin +
                             action.group_size);
  double begin = trace ? backend.now() : 0;
  if (st.flatCount > 0)
    backend.wait(backend.iallreduce(st.flatGrad, st.flatCount, PW_F32,
                                    ReduceOp::Sum, group),
                 current.description + " (" + std::to_string(st.flatCount) +
                     " gradient values)");
  record(current.name, "allreduce", begin);
}

void Executor::optimizerStep(int index) {
  const pw_action &action = program.actions[index];
  const ActionPlan &current = plan.actions[index];
  StageState &st = stages[action.stage];
  double begin = trace ? backend.now() : 0;
  ++st.steps;
  for (int p : st.parameters) {
    TrainedParameter &parameter = trained[p];
    optimizerUpdate(optimizer, st.steps, parameter.data, parameter.grad,
                    parameter.state.data(), parameter.count);
  }
  record(current.name, "optimizer", begin);
}

void Executor::collect(int microbatch) {
  const pw_stage &last = model.stages[model.num_stages - 1];
  for (int o = 0; o < model.num_outputs; ++o) {
    HostTensor &output = outputTensors[o];
    size_t bytes = tensorBytes(last.results[o]);
    if (model.output_combine[o] == PW_CONCAT_BATCH)
      std::memcpy(
          static_cast<char *>(output.data()) +
              bytes * static_cast<size_t>(
                          replicaIndex * model.num_microbatches + microbatch),
          resultPointers[o], bytes);
    else
      accumulateValues(output.dtype, output.data(), resultPointers[o],
                       bytes / dtypeSize(output.dtype));
  }
}

void Executor::send(int index) {
  const pw_action &action = program.actions[index];
  SlotRef ref = plan.actions[index].input;
  awaitRecv(ref);
  double begin = trace ? backend.now() : 0;
  RequestId request = backend.isend(slotData(ref), plan.pools[ref.pool].bytes,
                                    action.peer, action.tag);
  record(plan.actions[index].name, "send", begin);
  state(ref).sends.emplace_back(request, index);
}

void Executor::retain(size_t bytes) {
  retained += bytes;
  peakRetained = std::max(peakRetained, retained);
}

void Executor::releaseRetained(size_t bytes) {
  retained -= std::min(retained, bytes);
}

void Executor::runStep() {
  ++step;
  for (HostTensor &output : outputTensors)
    std::memset(output.data(), 0, output.bytes());
  for (StageState &st : stages)
    if (st.flatGrad)
      std::memset(st.flatGrad, 0, st.flatCount * sizeof(float));
  for (int i = 0; i < program.num_actions; ++i) {
    const ActionPlan &current = plan.actions[i];
    for (int recv : current.postBefore)
      postRecv(recv);
    const pw_action &action = program.actions[i];
    switch (action.kind) {
    case PW_ACT_FORWARD:
      forward(i);
      if (!model.forward_only)
        retain(retainBytes[action.stage]);
      break;
    case PW_ACT_BACKWARD:
      backward(i);
      releaseRetained(retainBytes[action.stage]);
      break;
    case PW_ACT_BACKWARD_INPUT:
      backward(i);
      // The weight stash exists while the inputs and stash are still held.
      retain(weightStashBytes[action.stage]);
      releaseRetained(retainBytes[action.stage]);
      break;
    case PW_ACT_BACKWARD_WEIGHT:
      backwardWeight(i);
      releaseRetained(weightStashBytes[action.stage]);
      break;
    case PW_ACT_ALLREDUCE:
      allreduce(i);
      break;
    case PW_ACT_OPTIMIZER:
      optimizerStep(i);
      break;
    case PW_ACT_SEND:
      send(i);
      break;
    case PW_ACT_RECV:
      if (state(current.output).recvAction != i)
        throw Error("internal error: '" + current.description +
                    "' was not posted before its position");
      break;
    default:
      throw Error("invalid action kind " + std::to_string(action.kind));
    }
    // A received buffer nobody reads still has to land before its slot is
    // reused; sends complete lazily (before reuse or at the end of the step).
    for (SlotRef ref : current.release)
      awaitRecv(ref);
  }
  for (size_t p = 0; p < slots.size(); ++p)
    for (size_t k = 0; k < slots[p].size(); ++k) {
      SlotRef ref{static_cast<int>(p), static_cast<int>(k)};
      awaitRecv(ref);
      awaitSends(ref);
    }
}

} // namespace pipewave::runtime
