//===- Executor.h - Runs one rank's action list -----------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The executor interprets a rank's pw_action list, one step at a time,
// following its ExecPlan: it allocates every pool's slots once (on the
// device), posts receives at the plan's early posting points, waits for a
// receive just before the action that reads its buffer, sends
// asynchronously and completes a send before its slot is written again (or
// at the end of the step). A message is one slot: all results of a stage for
// one microbatch (or their gradients), packed at 64-byte aligned offsets,
// sent with the action's tag.
//
// Memory and work go through a Device (Device.h), messages through a
// Backend; the executor itself never reads or writes tensor memory. All
// device work runs on the compute stream, in action-list order, except the
// staging copies of a device that does not share host memory: the step's
// data inputs (host to device) and the outputs (device to host), on the
// transfer stream, ordered against the compute stream by events. Every
// slot has an event recorded after the last compute work that used it;
// a transfer into or out of the slot is ordered after it
// (Backend::irecvAfter/isendAfter). runStep() ends by synchronising the
// device, so the step time includes all its work and outputs() is ready.
//
// Training (pw_model.forward_only == 0), see model.h for the functions:
// * F calls `forward` with the result slot and the stash slot of (stage, mb).
// * B calls `backward(args, stash, d_res)`; I calls `backward_input` (input
//   gradients and the weight stash), W `backward_weight(wstash)`. d_res is
//   the received (or locally computed) GRAD slot, or for the last stage the
//   seed: 1 for the loss (result 0), 0 for the other results with a
//   gradient. Input gradients land in the GRAD slot of the previous stage,
//   which is sent like activations.
// * Parameter gradients: one f32 accumulator per trained parameter, all of
//   a stage's laid out in one flat buffer. The step's first B/W that
//   computes a parameter's gradient writes it straight into the
//   accumulator; each later one adds its microbatch's gradient in
//   action-list order (deterministic). A stage's buffer is zeroed at step
//   start only when one of its parameters gets no gradient from this
//   rank's B/W actions.
// * allreduce sums a stage's flat gradient buffer over the action's group
//   (the stage's data-parallel replicas). Each microbatch's gradient is of
//   its share of a loss written for the global batch, so the plain sum is
//   the gradient of the global batch.
// * State (pw_stage.state_args): F's trailing results, the new values, are
//   copied into the live state buffers right after it, on the compute
//   stream, so a stage's forwards update the state in microbatch order.
// * optimizer applies optimizerUpdate() to each trained parameter of the
//   stage, in place: the parameter arguments of every stage function point
//   at these live buffers (the caller's host buffers when the device shares
//   host memory, else device copies: see downloadParameters()).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_EXECUTOR_H
#define PIPEWAVE_RUNTIME_EXECUTOR_H

#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/Device.h"
#include "pipewave-runtime/ExecPlan.h"
#include "pipewave-runtime/Optimizer.h"
#include "pipewave-runtime/Tensor.h"
#include "pipewave-runtime/model.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pipewave::runtime {

class Trace;

/// A trained parameter held by this rank, with its gradient accumulator and
/// optimizer state.
struct TrainedParameter {
  /// Model input index and the stage it belongs to (for a tied parameter,
  /// the lowest of its user stages on this rank).
  int input = -1;
  int stage = -1;
  /// The live parameter (device memory: the caller's buffer when the device
  /// shares host memory) and its element count.
  float *data = nullptr;
  size_t count = 0;
  /// The accumulated gradient of the last step (after the all-reduce, if
  /// any); inside the stage's flat gradient buffer (device memory).
  float *grad = nullptr;
  /// optimizerStateNames(config) arrays of `count` floats (device memory).
  std::vector<float *> state;
  /// The step whose update read the gradient and checked it
  /// (Device::checksInUpdate()), and whether it was finite.
  int checkedStep = 0;
  bool gradFinite = true;
  /// Whether a weight-gradient product may run the parameter's SGD update
  /// (model.h's pw_fused_update; planFusedUpdates()), and the step whose
  /// update it ran.
  bool fusable = false;
  int fusedStep = 0;
  /// The step whose update ran on the product's values and left `grad`
  /// unwritten (pw_fused_update's grad_left), if any.
  int gradLeftStep = 0;
};

class Executor {
public:
  /// `inputs[i]` is model input i on this rank, in host memory: the current
  /// global batch of a data input (see setInput()) or a parameter; nullptr
  /// for inputs the rank's stages do not read. Optimizer actions update the
  /// parameters of a training model in place when the device shares host
  /// memory, else their device copies (downloadParameters() copies those
  /// back). They must outlive the executor. `trace`
  /// may be null. All ranks construct their executors at the same point
  /// (the MPI backend creates the all-reduce groups collectively here).
  /// `device` (outliving the executor) holds the memory and runs the work;
  /// nullptr: the executor's own host device.
  Executor(const pw_model &model, const ExecPlan &plan, Backend &backend,
           std::vector<void *> inputs, Trace *trace = nullptr,
           const OptimizerConfig &optimizer = {}, Device *device = nullptr);
  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  /// Points data input `index` at another global batch (host memory, read
  /// during the next runStep()).
  void setInput(int index, const void *data);

  /// Announces the global batch data input `index` will be set to for the
  /// step after the next runStep() (host memory, unchanged until that step
  /// has run). A device that does not share host memory uploads it into a
  /// second buffer while the next step computes; the step it is for then
  /// waits for nothing but that copy. A setInput() of another pointer
  /// simply uploads as usual. Nothing to do on the host device, with
  /// graphs, or for the step counter input.
  void prefetchInput(int index, const void *data);

  /// Runs the action list once. Throws Error on failure (timeouts included);
  /// the job must then be aborted, as peers may be mid-step.
  void runStep();

  /// Checks every later step for non-finite values (NonfinitePolicy). With
  /// graphs (useGraphs()) the updates are captured with the step, so the
  /// check runs after it: the updates of a bad step are then already
  /// applied, which Stop accepts (the driver saves nothing afterwards) and
  /// Skip cannot (useGraphs() refuses it). Stop on a device whose updates
  /// check the gradients they read (Device::checksInUpdate(), the host)
  /// does the same: the updates run in their places in the list and
  /// the ranks agree after them, with no pass over the gradients of its
  /// own.
  void setNonfinitePolicy(NonfinitePolicy policy) { nonfinite = policy; }
  /// Whether the last step found a non-finite value on some rank (its
  /// updates were not applied unless graphs are on).
  bool lastStepNonfinite() const { return stepNonfinite; }
  /// What this rank found in the last step, e.g. "the gradient of
  /// parameter 'w1' (stage 1)" or "the loss"; "" when its values were
  /// finite.
  const std::string &nonfiniteFinding() const { return finding; }

  /// --cuda-graph: from now on every step's device work is bracketed for
  /// the device to capture once and replay (Device::beginGraphStep). False,
  /// with `why` set, when the device has no graphs or the rank's step
  /// waits on the host inside the step (sends, receives and all-reduces go
  /// through the backend); steps then run as before.
  bool useGraphs(std::string &why);

  /// How many trained parameters' updates the last step ran in the
  /// products of their gradients (ExecutorFused.cpp).
  size_t fusedUpdatesLastStep() const;
  /// How many of those ran on the product's values and left the gradient
  /// unwritten (keepGradients()).
  size_t gradientsLeftLastStep() const;

  /// Whether useGraphs() accepted.
  bool usesGraphs() const { return graphs; }
  /// Whether the last step's updates ran before its check (graphs, or Stop
  /// with a device that checks in its updates): a bad step's are applied.
  bool updatesBeforeCheck() const { return graphs || checkInUpdates; }

  /// True on the rank(s) running the last stage's forward.
  bool holdsOutputs() const { return !outputTensors.empty(); }

  /// The model outputs of the last step (global shapes), combined over this
  /// replica's microbatches (the other replicas' rows stay zero); empty
  /// unless holdsOutputs().
  const std::vector<HostTensor> &outputs() const { return outputTensors; }

  /// This replica's loss of the last step (output 0, the sum of its
  /// microbatches' losses); 0 unless holdsOutputs() of a training model.
  double loss() const;

  bool training() const { return !model.forward_only; }

  /// Trained parameters held by this rank, by stage then first use.
  const std::vector<TrainedParameter> &trainedParameters() const {
    return trained;
  }
  /// The gradient accumulator of trained parameter `input` after the last
  /// step, readable on the host (a host copy unless the device shares host
  /// memory, valid until the next call), or nullptr. Throws Error when the
  /// last step's update ran on the product's values without writing it
  /// (keepGradients() prevents that).
  const float *gradient(int input) const;
  /// Whether every step writes the gradient accumulators in full, for
  /// gradient(). Off (the default): a product that runs its parameter's SGD
  /// update (model.h's pw_fused_update) may leave the gradient unwritten.
  void keepGradients(bool keep) { keepGrads = keep; }

  /// Copies the live parameters into the caller's host buffers (the inputs
  /// given to the constructor); nothing to do when the device shares host
  /// memory. Call before reading them, e.g. for a checkpoint.
  void downloadParameters();
  /// State array `k` (optimizerStateNames() order) of trained parameter
  /// `input`, copied to the host.
  HostTensor optimizerState(int input, size_t k);
  /// Replaces that state with `count` floats at `data` (host memory).
  void setOptimizerState(int input, size_t k, const float *data);

  /// Optimizer updates applied so far to `stage` (Adam's step count).
  int64_t optimizerSteps(int stage) const;
  /// Sets every held stage's update count (resuming from a checkpoint).
  void setOptimizerSteps(int stage, int64_t steps);

  /// Activation memory kept for backward passes, measured as the steps run:
  /// for every (stage, microbatch) whose forward has run and whose backward
  /// has not, the bytes of the stage's non-parameter arguments (its data
  /// slice, the previous stage's results) and of its stash, or between I
  /// and W only of its weight stash. The most at once (after any action) so
  /// far, in tensor bytes (slot padding not counted); 0 for inference.
  size_t peakActivationBytes() const { return peakRetained; }
  /// The same per (stage, microbatch) of `stage`: what F adds.
  size_t activationBytes(int stage) const { return retainBytes[stage]; }
  /// Bytes of the workspace the stage functions of this rank share
  /// (stageWorkspaceBytes, DeviceArena.h), allocated once.
  size_t workspaceBytes() const { return workspaceSize; }

  /// The replica this rank belongs to, and how many there are.
  int replica() const { return replicaIndex; }
  int replicas() const { return replicaCount; }

private:
  struct SlotState {
    /// Pending sends from the slot and the actions that posted them.
    std::vector<std::pair<RequestId, int>> sends;
    /// Pending receive into the slot and its action.
    RequestId recv = kNoRequest;
    int recvAction = -1;
    /// Recorded on the compute stream after the last work using the slot.
    EventId used = -1;
  };

  /// Where the gradient of one grad_args entry goes.
  struct GradTarget {
    int arg = -1;
    /// Trained parameter (index into `trained`), or -1 for an activation.
    int parameter = -1;
    /// Activation: the previous stage's result it is the gradient of.
    int result = -1;
    /// Activation: written straight into the GRAD slot (false for a second
    /// argument reading the same result: added from scratch).
    bool direct = false;
    /// Byte offset in the stage's scratch buffer (parameters, and
    /// activations that are not direct).
    size_t scratch = 0;
  };

  struct StageState {
    bool held = false;
    std::vector<GradTarget> targets;
    /// Results of the previous stage no backward output writes directly:
    /// zeroed in the GRAD slot before B/I.
    std::vector<int> gaps;
    /// Gradients not written straight into a slot (device memory).
    char *scratch = nullptr;
    /// Last stage: the seed d_res (1 for the loss, 0 otherwise), packed
    /// like the results (device memory).
    char *seed = nullptr;
    std::vector<size_t> seedOffsets;
    /// Trained parameters of the stage (indices into `trained`) and the
    /// flat gradient buffer holding their accumulators (device memory),
    /// with an event recorded when it is complete for the all-reduce.
    std::vector<int> parameters;
    float *flatGrad = nullptr;
    size_t flatCount = 0;
    /// Some parameter of flatGrad gets no gradient from this rank's B/W
    /// actions: the buffer is zeroed at step start.
    bool zeroGradients = false;
    EventId gradientsDone = -1;
    int64_t steps = 0;
    /// Where the forward writes the new value of each state argument
    /// (state_args order; device memory), copied into the state after it.
    std::vector<void *> newState;
  };

  const pw_model &model;
  const ExecPlan &plan;
  Backend &backend;
  std::unique_ptr<Device> ownedDevice;
  Device &device;
  /// device.sharesHostMemory().
  bool shared = true;
  /// useGraphs() accepted.
  bool graphs = false;
  StreamId compute = 0;
  StreamId transfer = 0;
  /// Transfer stream: the step's data inputs are on the device; compute
  /// stream: the outputs are complete.
  EventId inputsCopied = -1;
  EventId outputsDone = -1;
  /// Compute stream: a traced slice's work is done (record()).
  EventId traced = -1;
  /// Model inputs as the caller gave them (host memory), and what the stage
  /// functions read: the same pointers when the device shares host memory,
  /// else device copies (data inputs refreshed every step).
  std::vector<void *> inputs;
  std::vector<void *> deviceInputs;
  /// Data inputs (not the counter) on a device that does not share host
  /// memory: a second device buffer each, which prefetchInput() fills while
  /// the step before the one it is for runs; what was prefetched into it
  /// (host pointers, null for none), and what is to be at the next step.
  std::vector<void *> spareInputs;
  std::vector<const void *> prefetched;
  std::vector<const void *> nextInputs;
  /// Every device allocation of the executor, freed at destruction.
  std::vector<void *> allocations;
  Trace *trace;
  const pw_rank_program &program;
  OptimizerConfig optimizer;
  int replicaIndex = 0;
  int replicaCount = 1;
  /// Steps run so far (trace events carry it).
  int step = 0;
  /// The non-finite check (setNonfinitePolicy()) and the last step's
  /// result.
  NonfinitePolicy nonfinite = NonfinitePolicy::Off;
  bool stepNonfinite = false;
  std::string finding;
  /// This step's updates check the gradients they read (setNonfinitePolicy).
  bool checkInUpdates = false;
  /// Per stage, the B or W action whose products may run the SGD updates
  /// of its fusable parameters (-1: none), planned once
  /// (ExecutorFused.cpp); whether this step's updates may run there, and
  /// the updates armed for the action running now.
  std::vector<int> fuseAt;
  bool fuseThisStep = false;
  bool keepGrads = false;
  std::vector<pw_fused_update> fusedUpdates;
  std::vector<int> fusedParameters; ///< index into `trained`, per update
  void planFusedUpdates();
  /// Arms the updates of action `index`'s stage when they run in it; the
  /// returned guard disarms them and records which ran.
  struct FusedScope {
    Executor *executor = nullptr;
    FusedScope() = default;
    FusedScope(const FusedScope &) = delete;
    FusedScope &operator=(const FusedScope &) = delete;
    ~FusedScope();
  };
  void armFusedUpdates(int index, FusedScope &scope);
  void finishFusedUpdates();
  /// Whether `parameter`'s gradient of this step is known finite or not
  /// from its update.
  bool checkedInUpdate(const TrainedParameter &parameter) const {
    return checkInUpdates && parameter.checkedStep == step;
  }
  /// This rank's first non-finite value of the step ("" if none); then the
  /// ranks' agreement: true when some rank found one.
  std::string findNonfinite();
  bool agreeNonfinite();
  /// Waits for every receive and send of the step (endStep() starts so).
  void awaitTransfers();
  /// Activation memory accounting (peakActivationBytes()): per stage, what
  /// F(s, m) keeps for the backward and what I(s, m) keeps for W; the bytes
  /// kept now and the most so far.
  std::vector<size_t> retainBytes;
  std::vector<size_t> weightStashBytes;
  size_t retained = 0;
  size_t peakRetained = 0;
  void retain(size_t bytes);
  void releaseRetained(size_t bytes);

  std::vector<void *> poolMemory;
  std::vector<std::vector<SlotState>> slots;
  std::vector<HostTensor> outputTensors;
  /// Where outputs are combined during the step (device memory; the output
  /// tensors' own memory when the device shares host memory).
  std::vector<void *> outputMemory;
  std::vector<void *> argPointers;
  std::vector<void *> resultPointers;
  /// The stage functions' workspace (model.h), passed as the entry after
  /// their arguments by callStage().
  void *workspace = nullptr;
  size_t workspaceSize = 0;

  std::vector<StageState> stages;
  std::vector<TrainedParameter> trained;
  /// Per trained parameter: no B/W of this step has written its gradient
  /// yet (the next one writes it straight into the accumulator).
  std::vector<char> gradientFresh;
  /// Per target of the B/W being run: written straight into the
  /// accumulator (sized for the most targets of a stage).
  std::vector<char> targetDirect;
  /// Host copies of gradients for gradient() (device not sharing memory).
  mutable std::vector<HostTensor> gradientCopies;
  /// Host copy of the seed's 1 while it is uploaded.
  AlignedBuffer seedValue;

  /// Device memory of `bytes` bytes, zero-filled on the compute stream.
  void *allocateZeroed(size_t bytes);
  char *slotData(SlotRef ref) const;
  SlotState &state(SlotRef ref) { return slots[ref.pool][ref.slot]; }
  const void *dataSlice(int input, int microbatch) const;

  void prepareTraining();
  const TrainedParameter &trainedParameter(int input) const;
  /// Records the slot's event after the compute work issued so far.
  void used(SlotRef ref);
  void beginStep();
  void endStep();
  void record(const std::string &name, const char *category, double begin);
  void postRecv(int action);
  void awaitRecv(SlotRef ref);
  void awaitSends(SlotRef ref);
  void stageArguments(int index);
  /// Argument `arg` of action `index`'s stage: its data slice, the live
  /// parameter, or the previous stage's result in the action's input slot.
  void *stageArgument(int index, int arg) const;
  void forward(int index);
  void backward(int index);
  void backwardWeight(int index);
  void accumulate(const StageState &stage, const GradTarget &target);
  /// Where the B/W computing the gradient of parameter target `k` of `st`
  /// writes it: the accumulator when it is the step's first (noted in
  /// targetDirect[k]), else the stage's scratch.
  void *parameterResult(const StageState &st, size_t k);
  /// Adds the scratch gradients of `st`'s parameter targets that the B/W
  /// just run did not write straight into their accumulators.
  void accumulateParameters(const StageState &st);
  /// Whether every parameter gradient `st` computes already holds a value
  /// this step (then the accumulating variants may add to it).
  bool parametersStarted(const StageState &st) const;
  /// The buffer of parameter target `k` for an accumulating variant
  /// (`variant`: the bit of pw_stage.grad_accumulates): the accumulator
  /// when the variant adds to it (targetDirect[k]), else the scratch.
  void *accumulatingResult(const StageState &st, const pw_stage &stage,
                           size_t k, int32_t variant);
  /// Calls `fn` on the compute stream with argPointers, then the workspace
  /// when `workspaceBytes` (the function's *_workspace) is not 0, and
  /// resultPointers.
  void callStage(pw_stage_fn fn, int64_t workspaceBytes);
  void allreduce(int index);
  /// Sums a tied parameter's gradient over its holders (see model.h).
  void tiedAllreduce(int index);
  void optimizerStep(int index);
  void send(int index);
  void collect(int microbatch);
};

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_EXECUTOR_H
