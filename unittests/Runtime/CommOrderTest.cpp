//===- CommOrderTest.cpp - Issue order of a rank's transfers --------------===//
//
// Part of the pipewave project.
//
// The order an order-matching transport (NCCL) issues transfers in. Besides
// the grouping rules, every schedule's order is checked the way NCCL would
// run it: the k-th send from A to B must carry the tag of B's k-th receive
// from A, and issuing each rank's groups one after the other, each
// blocking until all its transfers met their peers, must finish.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/CommOrder.h"

#include "TestModel.h"
#include "TestUtil.h"

#include <algorithm>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

pw_action act(int32_t kind, int peer = -1, int64_t tag = 0,
              int32_t groupBegin = 0, int32_t groupSize = 0) {
  pw_action a = {};
  a.kind = kind;
  a.peer = peer;
  a.tag = tag;
  a.group_begin = groupBegin;
  a.group_size = groupSize;
  a.microbatch = -1;
  return a;
}

/// A two-rank model around hand-written action lists.
struct HandModel {
  std::vector<pw_action> actions[2];
  std::vector<int32_t> groupRanks = {0, 1};
  pw_rank_program programs[2] = {};
  pw_model model = {};

  const pw_model &get() {
    for (int r = 0; r < 2; ++r) {
      programs[r].num_actions = static_cast<int32_t>(actions[r].size());
      programs[r].actions = actions[r].data();
    }
    model.num_ranks = 2;
    model.ranks = programs;
    model.group_ranks = groupRanks.data();
    return model;
  }
};

/// Runs every rank's groups in order, each blocking until all its
/// transfers met their peers (NCCL pairs the k-th send from A to B with
/// the k-th receive on B from A). Returns "" or what went wrong.
std::string simulate(const pw_model &model) {
  int n = model.num_ranks;
  std::vector<CommOrder> orders;
  for (int r = 0; r < n; ++r)
    orders.push_back(planCommOrder(model, r));
  // Pair index of every op, and the tags in issue order per direction.
  std::map<std::pair<int, int>, std::vector<int64_t>> sendTags, recvTags;
  std::vector<std::vector<std::vector<int>>> pairIndex(n);
  for (int r = 0; r < n; ++r)
    for (const CommGroup &group : orders[r].groups) {
      pairIndex[r].emplace_back();
      for (const CommOp &op : group.ops) {
        int index = -1;
        if (op.kind == CommKind::Send) {
          index = static_cast<int>(sendTags[{r, op.peer}].size());
          sendTags[{r, op.peer}].push_back(op.tag);
        } else if (op.kind == CommKind::Recv) {
          index = static_cast<int>(recvTags[{op.peer, r}].size());
          recvTags[{op.peer, r}].push_back(op.tag);
        }
        pairIndex[r].back().push_back(index);
      }
    }
  for (auto &[direction, tags] : sendTags)
    if (recvTags[direction] != tags)
      return "rank " + std::to_string(direction.first) + " sends to rank " +
             std::to_string(direction.second) +
             " in another tag order than it receives";
  // Rendezvous: a transfer completes once it and its partner are both in
  // their rank's current group (all members, for an all-reduce); a rank
  // moves to its next group once every transfer of the current one has.
  std::vector<size_t> cursor(n, 0);
  std::vector<std::vector<bool>> done(n);
  auto current = [&](int r) -> const CommGroup * {
    return cursor[r] < orders[r].groups.size() ? &orders[r].groups[cursor[r]]
                                               : nullptr;
  };
  for (int r = 0; r < n; ++r)
    if (current(r))
      done[r].assign(current(r)->ops.size(), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (int r = 0; r < n; ++r) {
      const CommGroup *group = current(r);
      for (size_t k = 0; group && k < group->ops.size(); ++k) {
        const CommOp &op = group->ops[k];
        bool met = true;
        if (op.kind == CommKind::AllReduce) {
          for (int member : op.group) {
            const CommGroup *other = current(member);
            met &= other && other->ops[0].kind == CommKind::AllReduce &&
                   other->ops[0].group == op.group;
          }
        } else {
          const CommGroup *other = current(op.peer);
          met = false;
          CommKind want =
              op.kind == CommKind::Send ? CommKind::Recv : CommKind::Send;
          for (size_t j = 0; other && j < other->ops.size(); ++j)
            met |= other->ops[j].kind == want && other->ops[j].peer == r &&
                   pairIndex[op.peer][cursor[op.peer]][j] ==
                       pairIndex[r][cursor[r]][k];
        }
        if (met && !done[r][k]) {
          done[r][k] = true;
          progress = true;
        }
      }
    }
    for (int r = 0; r < n; ++r) {
      const CommGroup *group = current(r);
      if (!group ||
          std::find(done[r].begin(), done[r].end(), false) != done[r].end())
        continue;
      ++cursor[r];
      done[r].assign(current(r) ? current(r)->ops.size() : 0, false);
      progress = true;
    }
  }
  for (int r = 0; r < n; ++r)
    if (cursor[r] != orders[r].groups.size())
      return "deadlock: rank " + std::to_string(r) + " blocks at " +
             orders[r].groups[cursor[r]].ops[0].describe();
  return "";
}

} // namespace

TEST(CommOrderTest, GroupsConsecutiveTransfers) {
  HandModel hand;
  hand.actions[0] = {act(PW_ACT_FORWARD),    act(PW_ACT_SEND, 1, 3),
                     act(PW_ACT_RECV, 1, 4), act(PW_ACT_BACKWARD),
                     act(PW_ACT_SEND, 1, 5), act(PW_ACT_ALLREDUCE, -1, 0, 0, 2),
                     act(PW_ACT_RECV, 1, 6), act(PW_ACT_ALLREDUCE, -1, 0, 0, 2),
                     act(PW_ACT_OPTIMIZER)};
  CommOrder order = planCommOrder(hand.get(), 0);
  ASSERT_EQ(order.groups.size(), 5u);
  EXPECT_EQ(order.numOps(), 6u);
  ASSERT_EQ(order.groups[0].ops.size(), 2u);
  EXPECT_EQ(order.groups[0].ops[0].describe(), "send to rank 1 tag 3");
  EXPECT_EQ(order.groups[0].ops[1].describe(), "recv from rank 1 tag 4");
  EXPECT_EQ(order.groups[0].ops[1].action, 2);
  EXPECT_EQ(order.groups[1].ops.size(), 1u); // The backward splits groups.
  EXPECT_EQ(order.groups[2].ops[0].describe(), "all-reduce of ranks [0, 1]");
  EXPECT_EQ(order.groups[3].ops[0].describe(), "recv from rank 1 tag 6");
  EXPECT_EQ(order.find(CommKind::Recv, 1, 4).group, 0);
  EXPECT_EQ(order.find(CommKind::Recv, 1, 4).op, 1);
  EXPECT_EQ(order.find(CommKind::Send, 1, 5).group, 1);
  EXPECT_EQ(order.findAllReduce({0, 1}, 0).group, 2);
  EXPECT_EQ(order.findAllReduce({0, 1}, 1).group, 4);
}

TEST(CommOrderTest, ErrorsNameTheTransfer) {
  HandModel hand;
  hand.actions[1] = {act(PW_ACT_SEND, 0, 3), act(PW_ACT_RECV, 0, 3)};
  CommOrder order = planCommOrder(hand.get(), 1);
  EXPECT_EQ(PW_ERROR_OF(order.find(CommKind::Send, 0, 4)),
            "internal error: the action list has no send to rank 0 with tag 4");
  EXPECT_EQ(PW_ERROR_OF(order.findAllReduce({0, 1}, 0)),
            "internal error: the action list has no all-reduce number 1 of "
            "ranks [0, 1] in a step");
  hand.actions[1].push_back(act(PW_ACT_SEND, 0, 3));
  EXPECT_EQ(PW_ERROR_OF(planCommOrder(hand.get(), 1)),
            "rank 1 action 2: a second send to rank 0 tag 3 in one step (tags "
            "must be unique per peer and direction)");
  EXPECT_EQ(PW_ERROR_OF(planCommOrder(hand.get(), 2)),
            "internal error: rank 2 is outside the model's 2 ranks");
}

TEST(CommOrderTest, TheSimulationCatchesCrossedOrders) {
  // Rank 0 sends tags 1, 2; rank 1 receives 2, 1: NCCL would pair 1 with 2.
  HandModel crossed;
  crossed.actions[0] = {act(PW_ACT_SEND, 1, 1), act(PW_ACT_FORWARD),
                        act(PW_ACT_SEND, 1, 2)};
  crossed.actions[1] = {act(PW_ACT_RECV, 0, 2), act(PW_ACT_FORWARD),
                        act(PW_ACT_RECV, 0, 1)};
  EXPECT_EQ(simulate(crossed.get()),
            "rank 0 sends to rank 1 in another tag order than it receives");
  // Both send first, each in a group of its own: a rendezvous deadlock.
  HandModel blocked;
  blocked.actions[0] = {act(PW_ACT_SEND, 1, 1), act(PW_ACT_FORWARD),
                        act(PW_ACT_RECV, 1, 2)};
  blocked.actions[1] = {act(PW_ACT_SEND, 0, 2), act(PW_ACT_FORWARD),
                        act(PW_ACT_RECV, 0, 1)};
  EXPECT_EQ(simulate(blocked.get()),
            "deadlock: rank 0 blocks at send to rank 1 tag 1");
  // The same exchange with nothing between: one group each, no deadlock.
  HandModel grouped;
  grouped.actions[0] = {act(PW_ACT_SEND, 1, 1), act(PW_ACT_RECV, 1, 2)};
  grouped.actions[1] = {act(PW_ACT_SEND, 0, 2), act(PW_ACT_RECV, 0, 1)};
  EXPECT_EQ(simulate(grouped.get()), "");
}

TEST(CommOrderTest, EverySchedulePairsAndFinishes) {
  struct Case {
    const char *schedule;
    int stages, microbatches, replicas;
  };
  for (Case c : {Case{"gpipe", 4, 4, 1}, Case{"1f1b", 4, 8, 1},
                 Case{"1f1b", 2, 4, 2}, Case{"zb-h1", 4, 4, 1},
                 Case{"zb-h1", 2, 4, 2}, Case{"interleaved", 4, 4, 1},
                 Case{"interleaved", 4, 8, 1}, Case{"hanayo", 4, 4, 1},
                 Case{"zb-v", 4, 4, 1}, Case{"zb-v", 4, 8, 1}}) {
    TrainConfig config;
    config.schedule = c.schedule;
    config.stages = c.stages;
    config.microbatches = c.microbatches;
    config.replicas = c.replicas;
    TrainModel model(config);
    SCOPED_TRACE(std::string(c.schedule) + " S=" + std::to_string(c.stages) +
                 " M=" + std::to_string(c.microbatches) +
                 " R=" + std::to_string(c.replicas));
    EXPECT_EQ(simulate(*model.get()), "");
    // Every send and receive of the action list is in the order once.
    for (int r = 0; r < model.get()->num_ranks; ++r) {
      const pw_rank_program &program = model.get()->ranks[r];
      size_t transfers = 0;
      for (int i = 0; i < program.num_actions; ++i)
        transfers += program.actions[i].kind == PW_ACT_SEND ||
                     program.actions[i].kind == PW_ACT_RECV ||
                     program.actions[i].kind == PW_ACT_ALLREDUCE;
      EXPECT_EQ(planCommOrder(*model.get(), r).numOps(), transfers);
    }
  }
}

TEST(CommOrderTest, TiedAllReducesAmongSeveralRanksAreCollectives) {
  HandModel hand;
  // A tied all-reduce among ranks [0, 1] is a collective; one among rank
  // [0] alone (both user stages on the rank) is a local sum.
  hand.actions[0] = {
      act(PW_ACT_BACKWARD), act(PW_ACT_TIED_ALLREDUCE, -1, 0, 0, 1),
      act(PW_ACT_TIED_ALLREDUCE, -1, 0, 0, 2), act(PW_ACT_OPTIMIZER)};
  CommOrder order = planCommOrder(hand.get(), 0);
  ASSERT_EQ(order.groups.size(), 1u);
  ASSERT_EQ(order.groups[0].ops.size(), 1u);
  EXPECT_EQ(order.groups[0].ops[0].kind, CommKind::AllReduce);
  EXPECT_EQ(order.groups[0].ops[0].action, 2);
  EXPECT_EQ(order.groups[0].ops[0].group, (std::vector<int>{0, 1}));
}
