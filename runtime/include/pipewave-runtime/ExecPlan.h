//===- ExecPlan.h - Buffer plan of one rank's action list -------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Before the first step, planExecution() turns a rank's action list into a plan
// the executor follows without further decisions:
//
// * Buffers. A buffer holds, for one microbatch m, one of
//   - ACT(t, m): all results of stage t, packed back to back, each at a
//     64-byte aligned offset. Defined by F(t, m) on this rank or received;
//     used by the next stage's F and B/I (the backward takes the forward's
//     arguments), by a send and, for the last stage, by output collection.
//   - GRAD(t, m): the gradients with respect to the results of stage t, same
//     layout as ACT(t, m) (entries of results without a gradient are zero).
//     Defined by B/I(t+1, m) or received; used by B/I(t, m) and by a send.
//   - STASH(t, m): what F(t, m) of a training model returns after its
//     results; used by B(t, m) or I(t, m).
//   - WSTASH(t, m): what I(t, m) computes for W(t, m) after the input
//     gradients. The weight stash values I passes through (model.h,
//     wstash_source) are not copied: W reads them where I did, so an ACT,
//     STASH or GRAD buffer that holds one is also used by W.
//   A buffer lives from its definition to its last use.
// * Pools and slots. Buffers with the same (kind, stage, received-or-local)
//   share a pool of equally sized slots. A pool gets as many slots as the
//   largest number of its buffers live at once in the action order (its
//   peak), plus `spareSlots` when the pool receives or sends messages (so a
//   transfer can overlap the compute before/after it), but never more than
//   the pool's number of buffers. Free slots are reused least recently
//   released first, so with a spare slot F(m+1) writes a different slot
//   than the one send(m) may still be reading.
// * Early sends. A send of a buffer the rank computed is issued right after
//   the action that computes it (its F, B or I), not at its place in the
//   list: the generators place a send where the consumer starts under unit
//   costs (so that the list is deadlock-free even with blocking sends),
//   which is often one or more compute actions later, and the peer would
//   wait for them. Sends are non-blocking and receives are posted early, so
//   issuing them sooner cannot deadlock; a transport that must issue in
//   list order (NCCL, CommOrder.h) still does, whatever the posting order.
//   Off (ExecPlanOptions::earlySends), every send is issued at its place.
// * Early receives. Receives of a pool are posted in program order as soon
//   as a slot is free: all of them at step start when the pool has a slot
//   per microbatch, otherwise as soon as an earlier buffer dies. Posting in
//   order within a pool guarantees every receive is posted no later than its
//   own position in the list, so early posting cannot deadlock a program
//   that is deadlock-free with blocking sends.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_EXECPLAN_H
#define PIPEWAVE_RUNTIME_EXECPLAN_H

#include "pipewave-runtime/model.h"

#include <cstddef>
#include <string>
#include <vector>

namespace pipewave::runtime {

/// What the buffers of a pool hold: the pw_payload values for results and
/// their gradients, then the training stashes.
enum BufferKind : int {
  kActivationBuffer = PW_ACTIVATION,
  kGradientBuffer = PW_GRADIENT,
  kStashBuffer = 2,
  kWStashBuffer = 3,
};

/// "act", "grad", "stash", "wstash".
const char *bufferKindName(int kind);

/// A pool of equally sized buffer slots.
struct ExecPool {
  /// A BufferKind (PW_ACTIVATION or PW_GRADIENT for results and their
  /// gradients).
  int payload = PW_ACTIVATION;
  /// The stage whose results (their gradients, its stash) the buffers hold.
  int stage = -1;
  /// True: filled by receives; false: by local compute.
  bool received = false;
  /// True when buffers of the pool are sent.
  bool sent = false;
  /// Slot size in bytes (a multiple of 64) and the offset of each result
  /// (stash tensor for stash pools).
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
struct ExecAction {
  /// Receives (indices of recv actions) to post just before this action, in
  /// program order.
  std::vector<int> postBefore;
  /// F: its results; B/I: the input gradients it produces (GRAD of the
  /// previous stage); recv: where the message lands.
  SlotRef output;
  /// F/B/I: the results of the previous stage it reads (W: when I passed
  /// one through to it); send: the buffer sent.
  SlotRef input;
  /// B/I: the gradient with respect to this stage's results (received or
  /// computed locally; none for the last stage, whose gradient is the seed);
  /// W: the same, when I passed one through.
  SlotRef gradient;
  /// F: the stash it writes; B/I: the stash it reads; W: the same, when I
  /// passed a stash value through.
  SlotRef stash;
  /// I: the weight-gradient stash it writes; W: the one it reads.
  SlotRef wstash;
  /// Sends (indices of send actions) to issue right after this action: the
  /// sends of the buffer it computes (see "Early sends").
  std::vector<int> sendAfter;
  /// Send: issued after its producer (listed in its sendAfter), not here.
  bool sentEarly = false;
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
struct ExecPlan {
  int rank = 0;
  std::vector<ExecPool> pools;
  /// One entry per action of the rank, same order.
  std::vector<ExecAction> actions;
};

struct ExecPlanOptions {
  /// Extra slots for pools that send or receive (see above).
  int spareSlots = 1;
  /// Issue the sends of computed buffers right after their producer (see
  /// "Early sends"); false: at their place in the list.
  bool earlySends = true;
};

/// Plans `rank`'s action list. Assumes validateModel() accepted `model`;
/// throws Error (ExitBadModel) when an action uses a buffer no earlier action
/// of the rank defines, or defines one twice, and, for training models, when
/// a held (stage, microbatch) lacks its F or its backward (one B, or one I
/// then one W).
ExecPlan planExecution(const pw_model &model, int rank,
                       const ExecPlanOptions &options = {});

/// Human-readable summary: one line per pool, e.g.
/// "rank 1: pool act s0 (received): 4 buffers, peak 1, 2 slots of 576 B".
std::string describeExecPlan(const ExecPlan &plan);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_EXECPLAN_H
