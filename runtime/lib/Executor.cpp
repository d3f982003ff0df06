//===- Executor.cpp - Runs one rank's action list -------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Executor.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Trace.h"

#include <cstring>

namespace pipewave::runtime {

namespace {

template <typename T>
void addInto(void *dst, const void *src, size_t count) {
  T *out = static_cast<T *>(dst);
  const T *in = static_cast<const T *>(src);
  for (size_t i = 0; i < count; ++i)
    out[i] += in[i];
}

void accumulate(int32_t dtype, void *dst, const void *src, size_t count) {
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

} // namespace

Executor::Executor(const pw_model &model, const RankPlan &plan,
                   Backend &backend, std::vector<const void *> inputs,
                   Trace *trace)
    : model(model), plan(plan), backend(backend), inputs(std::move(inputs)),
      trace(trace), program(model.ranks[plan.rank]) {
  if (static_cast<int>(this->inputs.size()) != model.num_inputs)
    throw Error("internal error: executor given " +
                std::to_string(this->inputs.size()) + " inputs for " +
                std::to_string(model.num_inputs));
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
}

char *Executor::slotData(SlotRef ref) const {
  return static_cast<char *>(poolMemory[ref.pool]) +
         plan.pools[ref.pool].bytes * static_cast<size_t>(ref.slot);
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

void Executor::forward(int index) {
  const pw_action &action = program.actions[index];
  const ActionPlan &current = plan.actions[index];
  const pw_stage &stage = model.stages[action.stage];
  if (current.input.valid())
    awaitRecv(current.input);
  awaitSends(current.output);

  argPointers.resize(stage.num_args);
  for (int a = 0; a < stage.num_args; ++a) {
    int source = stage.arg_index[a];
    switch (stage.arg_source[a]) {
    case PW_FROM_DATA: {
      const pw_tensor_info &input = model.inputs[source];
      argPointers[a] = const_cast<void *>(
          microbatchSlice(inputs[source], tensorBytes(input),
                          model.num_microbatches, action.microbatch));
      break;
    }
    case PW_FROM_PARAM:
      argPointers[a] = const_cast<void *>(inputs[source]);
      break;
    default:
      argPointers[a] =
          slotData(current.input) + plan.pools[current.input.pool].offsets[source];
      break;
    }
  }
  const PoolPlan &out = plan.pools[current.output.pool];
  resultPointers.resize(stage.num_results);
  for (int r = 0; r < stage.num_results; ++r)
    resultPointers[r] = slotData(current.output) + out.offsets[r];

  double begin = trace ? backend.now() : 0;
  stage.forward(argPointers.data(), resultPointers.data());
  record(current.name, "compute", begin);
  if (current.collectOutputs)
    collect(action.microbatch);
}

void Executor::collect(int microbatch) {
  const pw_stage &last = model.stages[model.num_stages - 1];
  for (int o = 0; o < model.num_outputs; ++o) {
    HostTensor &output = outputTensors[o];
    size_t bytes = tensorBytes(last.results[o]);
    if (model.output_combine[o] == PW_CONCAT_BATCH)
      std::memcpy(static_cast<char *>(output.data()) +
                      bytes * static_cast<size_t>(microbatch),
                  resultPointers[o], bytes);
    else
      accumulate(output.dtype, output.data(), resultPointers[o],
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

void Executor::runStep() {
  ++step;
  for (HostTensor &output : outputTensors)
    std::memset(output.data(), 0, output.bytes());
  for (int i = 0; i < program.num_actions; ++i) {
    const ActionPlan &current = plan.actions[i];
    for (int recv : current.postBefore)
      postRecv(recv);
    const pw_action &action = program.actions[i];
    switch (action.kind) {
    case PW_ACT_FORWARD:
      forward(i);
      break;
    case PW_ACT_SEND:
      send(i);
      break;
    case PW_ACT_RECV:
      if (state(current.output).recvAction != i)
        throw Error("internal error: '" + current.description +
                    "' was not posted before its position");
      break;
    case PW_ACT_BACKWARD:
    case PW_ACT_BACKWARD_INPUT:
    case PW_ACT_BACKWARD_WEIGHT:
    case PW_ACT_ALLREDUCE:
    case PW_ACT_OPTIMIZER:
      if (model.forward_only || !model.stages[action.stage].backward)
        throw Error("cannot run '" + current.description +
                    "': this binary was compiled without training "
                    "(forward-only)");
      throw Error("cannot run '" + current.description +
                  "': training steps are not supported by this runtime "
                  "version yet");
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
