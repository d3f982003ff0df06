//===- CommOrder.cpp - Issue order of a rank's transfers ------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/CommOrder.h"
#include "pipewave-runtime/Error.h"

namespace pipewave::runtime {

namespace {

std::string groupText(const std::vector<int> &group) {
  std::string text = "[";
  for (size_t i = 0; i < group.size(); ++i)
    text += (i ? ", " : "") + std::to_string(group[i]);
  return text + "]";
}

} // namespace

std::string CommOp::describe() const {
  switch (kind) {
  case CommKind::Send:
    return "send to rank " + std::to_string(peer) + " tag " +
           std::to_string(tag);
  case CommKind::Recv:
    return "recv from rank " + std::to_string(peer) + " tag " +
           std::to_string(tag);
  case CommKind::AllReduce:
    return "all-reduce of ranks " + groupText(group);
  }
  return "?";
}

CommSlot CommOrder::find(CommKind kind, int peer, int64_t tag) const {
  auto it = p2p.find({static_cast<int>(kind), peer, tag});
  if (it == p2p.end())
    throw Error(std::string("internal error: the action list has no ") +
                (kind == CommKind::Send ? "send to" : "recv from") + " rank " +
                std::to_string(peer) + " with tag " + std::to_string(tag));
  return it->second;
}

CommSlot CommOrder::findAllReduce(const std::vector<int> &group,
                                  int occurrence) const {
  auto it = allReduces.find({group, occurrence});
  if (it == allReduces.end())
    throw Error("internal error: the action list has no all-reduce number " +
                std::to_string(occurrence + 1) + " of ranks " +
                groupText(group) + " in a step");
  return it->second;
}

size_t CommOrder::numOps() const {
  size_t count = 0;
  for (const CommGroup &group : groups)
    count += group.ops.size();
  return count;
}

CommOrder planCommOrder(const pw_model &model, int rank) {
  if (rank < 0 || rank >= model.num_ranks)
    throw Error("internal error: rank " + std::to_string(rank) +
                " is outside the model's " + std::to_string(model.num_ranks) +
                " ranks");
  CommOrder order;
  const pw_rank_program &program = model.ranks[rank];
  std::map<std::vector<int>, int> occurrences;
  // True while the last group is open for the next send or receive: the
  // previous action was one too.
  bool open = false;
  for (int i = 0; i < program.num_actions; ++i) {
    const pw_action &action = program.actions[i];
    CommOp op;
    op.action = i;
    if (action.kind == PW_ACT_SEND || action.kind == PW_ACT_RECV) {
      op.kind = action.kind == PW_ACT_SEND ? CommKind::Send : CommKind::Recv;
      op.peer = action.peer;
      op.tag = action.tag;
      if (!open)
        order.groups.emplace_back();
      CommSlot slot{static_cast<int>(order.groups.size()) - 1,
                    static_cast<int>(order.groups.back().ops.size())};
      if (!order.p2p
               .emplace(
                   std::make_tuple(static_cast<int>(op.kind), op.peer, op.tag),
                   slot)
               .second)
        throw Error("rank " + std::to_string(rank) + " action " +
                    std::to_string(i) + ": a second " + op.describe() +
                    " in one step (tags must be unique per peer and "
                    "direction)");
      order.groups.back().ops.push_back(op);
      open = true;
      continue;
    }
    open = false;
    // A tied all-reduce among one rank is only a local sum.
    bool collective =
        action.kind == PW_ACT_ALLREDUCE ||
        (action.kind == PW_ACT_TIED_ALLREDUCE && action.group_size > 1);
    if (!collective)
      continue;
    op.kind = CommKind::AllReduce;
    op.group.assign(model.group_ranks + action.group_begin,
                    model.group_ranks + action.group_begin + action.group_size);
    int occurrence = occurrences[op.group]++;
    order.allReduces[{op.group, occurrence}] =
        CommSlot{static_cast<int>(order.groups.size()), 0};
    order.groups.emplace_back();
    order.groups.back().ops.push_back(op);
  }
  return order;
}

} // namespace pipewave::runtime
