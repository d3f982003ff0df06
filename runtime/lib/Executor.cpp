//===- Executor.cpp - Runs one rank's action list -------------------------===//
//
// Part of the pipewave project.
//
// Construction, the step loop, messages and the forward; the training
// actions are in ExecutorTraining.cpp.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Executor.h"
#include "pipewave-runtime/DeviceArena.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/ModelCheck.h"
#include "pipewave-runtime/Trace.h"

#include <algorithm>
#include <cstring>

namespace pipewave::runtime {

Executor::Executor(const pw_model &model, const ExecPlan &plan,
                   Backend &backend, std::vector<void *> inputs, Trace *trace,
                   const OptimizerConfig &optimizer, Device *device)
    : model(model), plan(plan), backend(backend),
      ownedDevice(device ? nullptr : createHostDevice()),
      device(device ? *device : *ownedDevice), inputs(std::move(inputs)),
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
  shared = this->device.sharesHostMemory();
  // Everything below is allocated once: a device may take it as one block.
  if (!shared)
    this->device.reserve(
        deviceMemoryBound(model, plan, optimizer, this->inputs));
  compute = this->device.createStream();
  transfer = this->device.createStream();
  inputsCopied = this->device.createEvent();
  outputsDone = this->device.createEvent();
  traced = this->device.createEvent();

  // Inputs the stages read: in place, or device copies (parameters now,
  // data inputs at every step).
  deviceInputs = this->inputs;
  spareInputs.assign(model.num_inputs, nullptr);
  prefetched.assign(model.num_inputs, nullptr);
  nextInputs.assign(model.num_inputs, nullptr);
  if (!shared)
    for (int i = 0; i < model.num_inputs; ++i) {
      if (!this->inputs[i])
        continue;
      size_t bytes = tensorBytes(model.inputs[i]);
      deviceInputs[i] = this->device.allocate(bytes);
      allocations.push_back(deviceInputs[i]);
      if (isBatchInput(model, i)) {
        spareInputs[i] = this->device.allocate(bytes);
        allocations.push_back(spareInputs[i]);
      }
      if (model.input_is_param[i])
        this->device.copy(transfer, deviceInputs[i], this->inputs[i], bytes,
                          CopyKind::HostToDevice);
    }
  // One workspace for every stage function of the rank (model.h): its
  // temporaries live there instead of being allocated at every call.
  workspaceSize = stageWorkspaceBytes(model, program);
  if (workspaceSize) {
    workspace = this->device.allocate(workspaceSize);
    allocations.push_back(workspace);
  }
  for (const ExecPool &pool : plan.pools) {
    poolMemory.push_back(
        allocateZeroed(pool.bytes * static_cast<size_t>(pool.slots)));
    slots.emplace_back(pool.slots);
    for (SlotState &slot : slots.back())
      slot.used = this->device.createEvent();
  }
  for (const ExecAction &action : plan.actions) {
    if (!action.collectOutputs)
      continue;
    for (int o = 0; o < model.num_outputs; ++o) {
      outputTensors.emplace_back(model.outputs[o].dtype,
                                 shapeOf(model.outputs[o]));
      outputMemory.push_back(
          shared ? outputTensors.back().data()
                 : allocateZeroed(tensorBytes(model.outputs[o])));
    }
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
      // What W holds on to: the weight stash, passed through or not, but
      // for the parameters.
      for (int k = 0; k < stage.num_wstash; ++k) {
        int source = wstashSource(stage, k);
        BackwardArg arg = backwardArg(stage, source);
        if (source < 0 || arg.kind != BackwardArg::Argument ||
            stage.arg_source[arg.index] != PW_FROM_PARAM)
          weightStashBytes[s] += tensorBytes(stage.wstash[k]);
      }
    }
  if (!model.forward_only)
    prepareTraining();
  // The fills and uploads are done before the first step.
  this->device.synchronize();
}

Executor::~Executor() {
  // After a failed step, messages may still be landing in the slots; the job
  // is being aborted, so leave the memory to the OS rather than free it under
  // the network.
  for (const auto &pool : slots)
    for (const SlotState &slot : pool)
      if (slot.recv != kNoRequest || !slot.sends.empty())
        return;
  try {
    device.synchronize();
  } catch (const std::exception &) {
    return;
  }
  for (void *memory : allocations)
    device.deallocate(memory);
}

void *Executor::allocateZeroed(size_t bytes) {
  void *memory = device.allocate(bytes);
  if (!memory)
    return nullptr;
  allocations.push_back(memory);
  device.fill(compute, memory, 0, bytes);
  return memory;
}

void Executor::setInput(int index, const void *data) {
  if (index < 0 || index >= model.num_inputs || model.input_is_param[index])
    throw Error("internal error: setInput of input " + std::to_string(index));
  inputs[index] = const_cast<void *>(data);
  if (shared)
    deviceInputs[index] = inputs[index];
}

void Executor::prefetchInput(int index, const void *data) {
  if (index < 0 || index >= model.num_inputs || model.input_is_param[index])
    throw Error("internal error: prefetchInput of input " +
                std::to_string(index));
  if (spareInputs[index] && !graphs && data)
    nextInputs[index] = data;
}

double Executor::loss() const {
  if (model.forward_only || outputTensors.empty())
    return 0;
  return elementSum(outputTensors[0].dtype, outputTensors[0].data(), 1);
}

char *Executor::slotData(SlotRef ref) const {
  return static_cast<char *>(poolMemory[ref.pool]) +
         plan.pools[ref.pool].bytes * static_cast<size_t>(ref.slot);
}

void Executor::used(SlotRef ref) {
  if (ref.valid())
    device.record(state(ref).used, compute);
}

const void *Executor::dataSlice(int input, int microbatch) const {
  // The global batch splits into the replicas' parts, each part into the
  // microbatches: replica k's microbatch m is slice k * M + m.
  int parts = model.num_microbatches * replicaCount;
  return microbatchSlice(deviceInputs[input], tensorBytes(model.inputs[input]),
                         parts,
                         replicaIndex * model.num_microbatches + microbatch);
}

void Executor::record(const std::string &name, const char *category,
                      double begin) {
  if (!trace)
    return;
  // On a device that runs its work asynchronously, a slice of work issued
  // to the device ends when the device has done it: the trace shows what
  // each action took (outside a captured graph, which cannot wait).
  if (!shared && !graphs &&
      (std::strcmp(category, "compute") == 0 ||
       std::strcmp(category, "optimizer") == 0)) {
    // The compute stream's work only: a prefetch on the transfer stream
    // runs beside it.
    device.record(traced, compute);
    device.synchronize(traced);
  }
  trace->add(name, category, begin, backend.now(), step);
}

void Executor::postRecv(int index) {
  const pw_action &action = program.actions[index];
  SlotRef ref = plan.actions[index].output;
  awaitSends(ref);
  SlotState &slot = state(ref);
  if (slot.recv != kNoRequest)
    throw Error("internal error: slot reused before its receive completed");
  slot.recv =
      backend.irecvAfter(device, slot.used, slotData(ref),
                         plan.pools[ref.pool].bytes, action.peer, action.tag);
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
  const pw_stage &stage = model.stages[program.actions[index].stage];
  argPointers.resize(stage.num_args);
  for (int a = 0; a < stage.num_args; ++a)
    argPointers[a] = stageArgument(index, a);
}

void *Executor::stageArgument(int index, int arg) const {
  const pw_action &action = program.actions[index];
  const ExecAction &current = plan.actions[index];
  const pw_stage &stage = model.stages[action.stage];
  int source = stage.arg_index[arg];
  switch (stage.arg_source[arg]) {
  case PW_FROM_DATA:
    return const_cast<void *>(dataSlice(source, action.microbatch));
  case PW_FROM_PARAM:
    return deviceInputs[source];
  default:
    return slotData(current.input) +
           plan.pools[current.input.pool].offsets[source];
  }
}

void Executor::callStage(pw_stage_fn fn, int64_t workspaceBytes) {
  size_t numArgs = argPointers.size();
  if (workspaceBytes > 0)
    argPointers.push_back(workspace);
  device.call(compute, fn, argPointers, resultPointers);
  argPointers.resize(numArgs);
}

void Executor::forward(int index) {
  const pw_action &action = program.actions[index];
  const ExecAction &current = plan.actions[index];
  const pw_stage &stage = model.stages[action.stage];
  if (current.input.valid())
    awaitRecv(current.input);
  awaitSends(current.output);
  stageArguments(index);

  const ExecPool &out = plan.pools[current.output.pool];
  resultPointers.resize(stage.num_results);
  for (int r = 0; r < stage.num_results; ++r)
    resultPointers[r] = slotData(current.output) + out.offsets[r];
  if (current.stash.valid()) {
    const ExecPool &stash = plan.pools[current.stash.pool];
    for (size_t k = 0; k < stash.offsets.size(); ++k)
      resultPointers.push_back(slotData(current.stash) + stash.offsets[k]);
  }

  const std::vector<void *> *newState =
      training() ? &stages[action.stage].newState : nullptr;
  if (newState)
    resultPointers.insert(resultPointers.end(), newState->begin(),
                          newState->end());

  double begin = trace ? backend.now() : 0;
  callStage(stage.forward, stage.forward_workspace);
  if (newState)
    for (int k = 0; k < stage.num_state; ++k) {
      int arg = stage.state_args[k];
      device.copy(compute, argPointers[arg], (*newState)[k],
                  tensorBytes(stage.args[arg]), CopyKind::DeviceToDevice);
    }
  record(current.name, "compute", begin);
  if (current.collectOutputs)
    collect(action.microbatch);
  used(current.input);
  used(current.output);
  used(current.stash);
}

void Executor::collect(int microbatch) {
  const pw_stage &last = model.stages[model.num_stages - 1];
  for (int o = 0; o < model.num_outputs; ++o) {
    const HostTensor &output = outputTensors[o];
    size_t bytes = tensorBytes(last.results[o]);
    if (model.output_combine[o] == PW_CONCAT_BATCH)
      device.copy(
          compute,
          static_cast<char *>(outputMemory[o]) +
              bytes * static_cast<size_t>(
                          replicaIndex * model.num_microbatches + microbatch),
          resultPointers[o], bytes, CopyKind::DeviceToDevice);
    else
      device.accumulate(compute, output.dtype, outputMemory[o],
                        resultPointers[o], bytes / dtypeSize(output.dtype));
  }
}

void Executor::send(int index) {
  const pw_action &action = program.actions[index];
  SlotRef ref = plan.actions[index].input;
  awaitRecv(ref);
  double begin = trace ? backend.now() : 0;
  RequestId request =
      backend.isendAfter(device, state(ref).used, slotData(ref),
                         plan.pools[ref.pool].bytes, action.peer, action.tag);
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

bool Executor::useGraphs(std::string &why) {
  if (!device.supportsGraphs()) {
    why = "the '" + device.name() + "' device cannot capture graphs";
    return false;
  }
  if (nonfinite == NonfinitePolicy::Skip && !model.forward_only) {
    why = "--on-nonfinite skip decides on the host whether a step's updates "
          "run, after its gradients are known, so they cannot be captured "
          "with the step (--on-nonfinite stop can)";
    return false;
  }
  for (int i = 0; i < program.num_actions; ++i) {
    int kind = program.actions[i].kind;
    if (kind == PW_ACT_SEND || kind == PW_ACT_RECV ||
        kind == PW_ACT_ALLREDUCE ||
        (kind == PW_ACT_TIED_ALLREDUCE && program.actions[i].group_size > 1)) {
      why = "rank " + std::to_string(plan.rank) +
            "'s step sends, receives or all-reduces through the backend, "
            "which waits on the host ('" +
            plan.actions[i].description +
            "'), so its device work cannot be captured";
      return false;
    }
  }
  graphs = true;
  return true;
}

void Executor::beginStep() {
  if (graphs)
    device.beginGraphStep();
  double begin = trace ? backend.now() : 0;
  if (!shared) {
    // The step's global batch, on the transfer stream; the compute stream
    // waits for it. (The previous step ended with the device synchronised,
    // so nothing still reads the old batch.) A batch prefetched during the
    // previous step is in the spare buffer already: the buffers swap.
    bool uploaded = false;
    for (int i = 0; i < model.num_inputs; ++i) {
      if (model.input_is_param[i] || !inputs[i])
        continue;
      if (prefetched[i] == inputs[i]) {
        std::swap(deviceInputs[i], spareInputs[i]);
      } else {
        device.copy(transfer, deviceInputs[i], inputs[i],
                    tensorBytes(model.inputs[i]), CopyKind::HostToDevice);
        uploaded = true;
      }
      prefetched[i] = nullptr;
    }
    device.record(inputsCopied, transfer);
    device.wait(compute, inputsCopied);
    // Traced, the upload is a slice of its own, not part of the first F.
    if (trace && !graphs && uploaded) {
      device.synchronize(inputsCopied);
      trace->add("upload inputs", "transfer", begin, backend.now(), step);
    }
    // The next step's batch, behind this one's on the transfer stream, into
    // the buffers the previous step read. Nothing waits for it before the
    // next step's inputsCopied.
    for (int i = 0; i < model.num_inputs; ++i)
      if (nextInputs[i]) {
        device.copy(transfer, spareInputs[i], nextInputs[i],
                    tensorBytes(model.inputs[i]), CopyKind::HostToDevice);
        prefetched[i] = nextInputs[i];
        nextInputs[i] = nullptr;
      }
  }
  for (size_t o = 0; o < outputTensors.size(); ++o)
    device.fill(compute, outputMemory[o], 0, outputTensors[o].bytes());
  // Each accumulator's first B/W of the step writes it whole (see
  // prepareTraining()); the others start from zero.
  for (StageState &st : stages)
    if (st.flatGrad && st.zeroGradients)
      device.fill(compute, st.flatGrad, 0, st.flatCount * sizeof(float));
  std::fill(gradientFresh.begin(), gradientFresh.end(), 1);
}

void Executor::awaitTransfers() {
  for (size_t p = 0; p < slots.size(); ++p)
    for (size_t k = 0; k < slots[p].size(); ++k) {
      SlotRef ref{static_cast<int>(p), static_cast<int>(k)};
      awaitRecv(ref);
      awaitSends(ref);
    }
}

void Executor::endStep() {
  awaitTransfers();
  if (!shared && !outputTensors.empty()) {
    // The outputs, once complete, on the transfer stream.
    device.record(outputsDone, compute);
    device.wait(transfer, outputsDone);
    for (size_t o = 0; o < outputTensors.size(); ++o)
      device.copy(transfer, outputTensors[o].data(), outputMemory[o],
                  outputTensors[o].bytes(), CopyKind::DeviceToHost);
  }
  if (graphs)
    device.endGraphStep();
  device.synchronize();
}

void Executor::runStep() {
  ++step;
  stepNonfinite = false;
  finding.clear();
  // With the check on (and no graph), updates wait until the ranks agree
  // the step's values are finite; nothing after them in a rank's program
  // reads the parameters they update. Stop on a device whose updates check
  // the gradients they read runs them in place and agrees after them: the
  // driver saves nothing of a bad step.
  bool checking = nonfinite != NonfinitePolicy::Off && !model.forward_only;
  checkInUpdates = checking && !graphs && nonfinite == NonfinitePolicy::Stop &&
                   device.checksInUpdate();
  bool checkFirst = checking && !graphs && !checkInUpdates;
  // Updates in the weight-gradient products run where those of the
  // optimizer actions would: not before a check.
  fuseThisStep = !graphs && !checkFirst;
  std::vector<int> updates;
  beginStep();
  for (int i = 0; i < program.num_actions; ++i) {
    const ExecAction &current = plan.actions[i];
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
    case PW_ACT_TIED_ALLREDUCE:
      tiedAllreduce(i);
      break;
    case PW_ACT_OPTIMIZER:
      if (checkFirst)
        updates.push_back(i);
      else
        optimizerStep(i);
      break;
    case PW_ACT_SEND:
      if (!current.sentEarly)
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
    // The sends of what this action computed leave now (ExecPlan.h).
    for (int sent : current.sendAfter)
      send(sent);
    // A received buffer nobody reads still has to land before its slot is
    // reused; sends complete lazily (before reuse or at the end of the step).
    for (SlotRef ref : current.release)
      awaitRecv(ref);
  }
  // The step's messages are delivered first: the agreement is a collective
  // over all ranks, which some backends (NCCL) cannot overlap with pending
  // point-to-point transfers.
  // A graph's updates ran with the step, as did those that checked the
  // gradients they read: the check can then only report.
  if (checkFirst || checkInUpdates) {
    awaitTransfers();
    double begin = trace ? backend.now() : 0;
    bool nonfiniteFound = agreeNonfinite();
    record("agree step", "agreement", begin);
    if (checkFirst && !nonfiniteFound)
      for (int i : updates)
        optimizerStep(i);
  }
  endStep();
  if (checking && graphs)
    agreeNonfinite();
}

} // namespace pipewave::runtime
