//===- Plan.h - Static buffer plan of one rank's action list ----*- C++ -*-===//
//
// Part of the pipewave project.
//
// Before the first step, planRank() turns a rank's action list into a plan
// the executor follows without further decisions:
//
// * Buffers. A buffer holds, for one microbatch m, all results of a stage t
//   (payload activation: ACT(t, m)) or the gradients with respect to them
//   (payload gradient: GRAD(t, m)), packed back to back, each result at a
//   64-byte aligned offset. It is defined by the F (resp. B/I) of stage t on
//   this rank or by a receive, and used by the next stage's compute, by a
//   send, by backward actions (training) and, for the last stage, by output
//   collection. A buffer lives from its definition to its last use.
// * Pools and slots. Buffers with the same (payload, stage, received-or-
//   local) share a pool of equally sized slots. A pool gets as many slots as
//   the largest number of its buffers live at once in the action order
//   (its peak), plus `spareSlots` when the pool receives or sends messages
//   (so a transfer can overlap the compute before/after it), but never more
//   than the pool's number of buffers. Free slots are reused least recently
//   released first, so with a spare slot F(m+1) writes a different slot
//   than the one send(m) may still be reading.
// * Early receives. Receives of a pool are posted in program order as soon
//   as a slot is free: all of them at step start when the pool has a slot
//   per microbatch, otherwise as soon as an earlier buffer dies. Posting in
//   order within a pool guarantees every receive is posted no later than its
//   own position in the list, so early posting cannot deadlock a program
//   that is deadlock-free with blocking sends.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_PLAN_H
#define PIPEWAVE_RUNTIME_PLAN_H

#include "pipewave-runtime/model.h"

#include <cstddef>
#include <string>
#include <vector>

namespace pipewave::runtime {

/// A pool of equally sized buffer slots.
struct PoolPlan {
  /// PW_ACTIVATION or PW_GRADIENT.
  int payload = PW_ACTIVATION;
  /// The stage whose results (or their gradients) the buffers hold.
  int stage = -1;
  /// True: filled by receives; false: by local compute.
  bool received = false;
  /// True when buffers of the pool are sent.
  bool sent = false;
  /// Slot size in bytes (a multiple of 64) and the offset of each result.
  size_t bytes = 0;
  std::vector<size_t> offsets;
  /// Buffers passing through the pool in one step.
  int buffers = 0;
  /// Most buffers live at once.
  int peak = 0;
  /// Slots allocated.
  int slots = 0;
};

/// A slot of a pool.
struct SlotRef {
  int pool = -1;
  int slot = -1;
  bool valid() const { return pool >= 0; }
};

/// What the executor does around one action.
struct ActionPlan {
  /// Receives (indices of recv actions) to post just before this action, in
  /// program order.
  std::vector<int> postBefore;
  /// F: its results; B/I: the input gradients it produces; recv: where the
  /// message lands.
  SlotRef output;
  /// F/B/I/W: the results of the previous stage it reads; send: the buffer
  /// sent.
  SlotRef input;
  /// B/I/W: the gradient with respect to this stage's results.
  SlotRef gradient;
  /// Slots whose buffer dies after this action.
  std::vector<SlotRef> release;
  /// F of the last stage: its results are model outputs.
  bool collectOutputs = false;
  /// Trace name: "F s1 mb3", "send act s1 mb3", "recv act s1 mb3".
  std::string name;
  /// "F stage 1 mb 3", "send act stage 0 mb 3 to rank 1",
  /// "recv act stage 1 mb 3 from rank 0", for errors and the watchdog.
  std::string description;
};

/// The plan of one rank.
struct RankPlan {
  int rank = 0;
  std::vector<PoolPlan> pools;
  /// One entry per action of the rank, same order.
  std::vector<ActionPlan> actions;
};

struct PlanOptions {
  /// Extra slots for pools that send or receive (see above).
  int spareSlots = 1;
};

/// Plans `rank`'s action list. Assumes validateModel() accepted `model`;
/// throws Error (ExitBadModel) when an action uses a buffer no earlier action
/// of the rank defines, or defines one twice.
RankPlan planRank(const pw_model &model, int rank,
                  const PlanOptions &options = {});

/// Human-readable summary: one line per pool, e.g.
/// "rank 1: pool act s0 (received): 4 buffers, peak 1, 2 slots of 576 B".
std::string describePlan(const RankPlan &plan);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_PLAN_H
