//===- Executor.h - Runs one rank's action list -----------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The executor interprets a rank's pw_action list, one step at a time,
// following its RankPlan: it allocates every pool's slots once (through the
// backend), posts receives at the plan's early posting points, waits for a
// receive just before the action that reads its buffer, sends
// asynchronously and completes a send before its slot is written again (or
// at the end of the step). A message is one slot: all results of a stage for
// one microbatch, packed at 64-byte aligned offsets, sent with the action's
// tag. F calls the stage's forward; B/I/W, all-reduce and the optimizer step
// share the dispatch and report that training is not available.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_EXECUTOR_H
#define PIPEWAVE_RUNTIME_EXECUTOR_H

#include "pipewave-runtime/Backend.h"
#include "pipewave-runtime/Plan.h"
#include "pipewave-runtime/Tensor.h"
#include "pipewave-runtime/model.h"

#include <vector>

namespace pipewave::runtime {

class Trace;

class Executor {
public:
  /// `inputs[i]` is model input i on this rank: the whole global-batch data
  /// of a data input or a parameter; nullptr for inputs the rank's stages do
  /// not read. They must outlive the executor. `trace` may be null.
  Executor(const pw_model &model, const RankPlan &plan, Backend &backend,
           std::vector<const void *> inputs, Trace *trace = nullptr);
  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  /// Runs the action list once. Throws Error on failure (timeouts included);
  /// the job must then be aborted, as peers may be mid-step.
  void runStep();

  /// True on the rank(s) running the last stage's forward.
  bool holdsOutputs() const { return !outputTensors.empty(); }

  /// The model outputs of the last step (global shapes), combined over
  /// microbatches; empty unless holdsOutputs().
  const std::vector<HostTensor> &outputs() const { return outputTensors; }

private:
  struct SlotState {
    /// Pending sends from the slot and the actions that posted them.
    std::vector<std::pair<RequestId, int>> sends;
    /// Pending receive into the slot and its action.
    RequestId recv = kNoRequest;
    int recvAction = -1;
  };

  const pw_model &model;
  const RankPlan &plan;
  Backend &backend;
  std::vector<const void *> inputs;
  Trace *trace;
  const pw_rank_program &program;
  /// Steps run so far (trace events carry it).
  int step = 0;

  std::vector<void *> poolMemory;
  std::vector<std::vector<SlotState>> slots;
  std::vector<HostTensor> outputTensors;
  std::vector<void *> argPointers;
  std::vector<void *> resultPointers;

  char *slotData(SlotRef ref) const;
  SlotState &state(SlotRef ref) { return slots[ref.pool][ref.slot]; }

  void record(const std::string &name, const char *category, double begin);
  void postRecv(int action);
  void awaitRecv(SlotRef ref);
  void awaitSends(SlotRef ref);
  void forward(int index);
  void send(int index);
  void collect(int microbatch);
};

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_EXECUTOR_H
