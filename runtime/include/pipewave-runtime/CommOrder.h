//===- CommOrder.h - Issue order of a rank's transfers ----------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The order in which a transport that matches by issue order (NCCL) must
// start a rank's transfers, computed from the rank's action list alone.
//
// NCCL matches point-to-point operations between two ranks by the order in
// which each side issues them, not by tag. The executor posts receives
// early (as soon as a buffer slot is free, see docs/runtime.md), so its
// posting order differs from the action list; issuing in posting order
// could pair a receive with the wrong send. A backend of that kind
// therefore issues strictly in this order, whatever the posting order:
//
//  * every send, receive and all-reduce of one step, in action-list order;
//  * sends and receives that the action list puts together (consecutive
//    actions, nothing between them) form one group (ncclGroupStart/End):
//    NCCL progresses them together, as a rendezvous transport would need
//    for two ranks that send to each other at the same point;
//  * an all-reduce is a group of its own, on the communicator of its rank
//    group (split once per distinct group by Backend::createGroups, which
//    every rank calls with every rank's groups in one order).
//
// Why this order is safe: sched-verify proves every rank's action list
// deadlock-free when each send and receive blocks until its peer reaches
// it (rendezvous), which is what issuing in action-list order on one
// communication stream gives; grouping only lets operations progress
// together. Both sides of a message derive their order from their own
// action lists, which pair every send with its receive in the same
// relative order (checked by the unit tests for every schedule).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_COMMORDER_H
#define PIPEWAVE_RUNTIME_COMMORDER_H

#include "pipewave-runtime/model.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace pipewave::runtime {

enum class CommKind { Send, Recv, AllReduce };

/// One transfer of a rank's step.
struct CommOp {
  CommKind kind = CommKind::Send;
  /// Index in the rank's action list.
  int action = 0;
  /// Send/receive: the other rank and the tag.
  int peer = -1;
  int64_t tag = 0;
  /// All-reduce: its ranks (sorted), the key of its communicator.
  std::vector<int> group;

  std::string describe() const;
};

/// Transfers issued together (one ncclGroupStart/End).
struct CommGroup {
  std::vector<CommOp> ops;
};

/// Where an operation sits in the order.
struct CommSlot {
  int group = 0;
  int op = 0;
};

struct CommOrder {
  /// One step's groups in issue order.
  std::vector<CommGroup> groups;

  /// The slot of send/receive (kind, peer, tag); throws Error when the
  /// action list has none.
  CommSlot find(CommKind kind, int peer, int64_t tag) const;
  /// The slot of the `occurrence`-th (from 0) all-reduce on `group` in one
  /// step; throws Error when there is none.
  CommSlot findAllReduce(const std::vector<int> &group, int occurrence) const;

  /// Total operations of one step.
  size_t numOps() const;

private:
  friend CommOrder planCommOrder(const pw_model &, int);
  std::map<std::tuple<int, int, int64_t>, CommSlot> p2p;
  std::map<std::pair<std::vector<int>, int>, CommSlot> allReduces;
};

/// The order of rank `rank`'s transfers. Throws Error on a malformed
/// program (a tag used twice for one peer and direction).
CommOrder planCommOrder(const pw_model &model, int rank);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_COMMORDER_H
