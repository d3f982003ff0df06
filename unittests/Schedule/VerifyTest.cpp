//===- VerifyTest.cpp - Tests of the schedule verifier --------------------===//

#include "pipewave/Schedule/Verify.h"

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <utility>

using namespace pipewave::schedule;
using namespace pipewave::schedule::test;

namespace {

Action compute(ActionKind kind, int stage, int microbatch) {
  Action action{kind};
  action.stage = stage;
  action.microbatch = microbatch;
  return action;
}

Action allReduce(int stage, std::vector<int> group) {
  Action action{ActionKind::AllReduce};
  action.stage = stage;
  action.group = std::move(group);
  return action;
}

Action optimizer(int stage) {
  Action action{ActionKind::OptimizerStep};
  action.stage = stage;
  return action;
}

/// Data parallelism only: every rank holds all `numStages` stages and runs F
/// then B for each microbatch through all stages locally, then an allreduce
/// (over all ranks) and optimizer step per stage, stages in `reduceOrder`.
Program dataParallel(int numRanks, int numStages,
                     const std::vector<std::vector<int>> &reduceOrder) {
  Program program;
  program.numStages = numStages;
  program.numMicrobatches = 1;
  program.schedule = "test";
  std::vector<int> all(numRanks), stages(numStages);
  for (int r = 0; r < numRanks; ++r)
    all[r] = r;
  for (int s = 0; s < numStages; ++s)
    stages[s] = s;
  for (int r = 0; r < numRanks; ++r) {
    RankProgram rank{r, stages, {}};
    for (int s = 0; s < numStages; ++s)
      rank.actions.push_back(compute(ActionKind::Forward, s, 0));
    for (int s = numStages - 1; s >= 0; --s)
      rank.actions.push_back(compute(ActionKind::Backward, s, 0));
    for (int s : reduceOrder[r])
      rank.actions.push_back(allReduce(s, all));
    for (int s = 0; s < numStages; ++s)
      rank.actions.push_back(optimizer(s));
    program.ranks.push_back(rank);
  }
  return program;
}

TEST(VerifyTest, DeadlockBothRanksStartWithRecv) {
  // GPipe S=2, M=1 with rank 0's gradient recv hoisted to the front: still
  // locally ordered, but both ranks now start by receiving.
  Program program = build("gpipe", 2, 1);
  std::vector<Action> &rank0 = program.ranks[0].actions;
  int recv =
      findAction(program.ranks[0], ActionKind::Recv, 0, 0, Payload::Gradient);
  ASSERT_GT(recv, 0);
  std::rotate(rank0.begin(), rank0.begin() + recv, rank0.begin() + recv + 1);
  ASSERT_EQ(rank0.front().kind, ActionKind::Recv);

  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_EQ(diagnostics.size(), 2u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].rank, 0);
  EXPECT_EQ(diagnostics[0].actionIndex, 0);
  EXPECT_EQ(diagnostics[0].message,
            "rank 0 stalls at 'recv grad stage 0 mb 0 from rank 1 (tag 1)': "
            "rank 1 is blocked at 'recv act stage 1 mb 0 from rank 0 (tag 0)'");
  EXPECT_EQ(diagnostics[1].rank, 1);
  EXPECT_EQ(
      diagnostics[1].message,
      "rank 1 stalls at 'recv act stage 1 mb 0 from rank 0 (tag 0)': "
      "rank 0 is blocked at 'recv grad stage 0 mb 0 from rank 1 (tag 1)'");
}

TEST(VerifyTest, NaiveOneFOneBDeadlocksUnderRendezvous) {
  // Undo the generator's reordering: send the activation before receiving
  // the gradient. Neighbours then both block in sends to each other.
  Program program = build("1f1b", 4, 8);
  for (RankProgram &rank : program.ranks) {
    std::vector<Action> &actions = rank.actions;
    for (size_t i = 0; i + 1 < actions.size(); ++i)
      if (actions[i].kind == ActionKind::Recv &&
          actions[i].payload == Payload::Gradient &&
          actions[i + 1].kind == ActionKind::Send &&
          actions[i + 1].payload == Payload::Activation)
        std::swap(actions[i], actions[i + 1]);
  }
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_TRUE(hasMessage(
      diagnostics,
      "rank 2 stalls at 'send act stage 2 mb 1 to rank 3 (tag 17)': rank 3 "
      "is blocked at 'send grad stage 3 mb 0 to rank 2 (tag 40)'"))
      << joined(diagnostics);
  for (const Diagnostic &diagnostic : diagnostics)
    EXPECT_NE(diagnostic.message.find(" stalls at "), std::string::npos);
}

TEST(VerifyTest, MissingBackward) {
  Program program = build("gpipe", 2, 4);
  std::vector<Action> &actions = program.ranks[1].actions;
  int backward = findAction(program.ranks[1], ActionKind::Backward, 1, 3);
  ASSERT_GE(backward, 0);
  actions.erase(actions.begin() + backward);
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_EQ(diagnostics.size(), 1u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].rank, 1);
  EXPECT_EQ(diagnostics[0].actionIndex, -1);
  EXPECT_EQ(diagnostics[0].message,
            "rank 1: stage 1 microbatch 3 has no backward (B or I+W)");
}

TEST(VerifyTest, DuplicateForward) {
  Program program = build("gpipe", 1, 2);
  std::vector<Action> &actions = program.ranks[0].actions;
  actions.insert(actions.begin() + 1, compute(ActionKind::Forward, 0, 0));
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_EQ(diagnostics.size(), 1u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].actionIndex, 1);
  EXPECT_EQ(diagnostics[0].message,
            "rank 0: 'F stage 0 mb 0' (action 1) duplicates 'F stage 0 mb 0' "
            "(action 0)");
}

TEST(VerifyTest, BackwardTogetherWithSplitBackward) {
  Program program = build("gpipe", 1, 1);
  std::vector<Action> &actions = program.ranks[0].actions;
  actions.insert(actions.begin() + 2,
                 compute(ActionKind::BackwardWeight, 0, 0));
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_EQ(diagnostics.size(), 1u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].message,
            "rank 0: stage 0 microbatch 0 has both B and I/W");
}

TEST(VerifyTest, UnmatchedSend) {
  Program program = build("gpipe", 2, 4);
  int send = findAction(program.ranks[0], ActionKind::Send, 0, 3);
  ASSERT_GE(send, 0);
  program.ranks[0].actions[send].tag = 99;
  std::vector<Diagnostic> diagnostics = verify(program);
  EXPECT_TRUE(hasMessage(diagnostics,
                         "rank 0: 'send act stage 0 mb 3 to rank 1 (tag 99)' "
                         "(action " +
                             std::to_string(send) +
                             ") has no matching recv on rank 1"))
      << joined(diagnostics);
  EXPECT_TRUE(hasMessage(
      diagnostics,
      "rank 1: 'recv act stage 1 mb 3 from rank 0 (tag 3)' (action " +
          std::to_string(findAction(program.ranks[1], ActionKind::Recv, 1, 3)) +
          ") has no matching send on rank 0"))
      << joined(diagnostics);
}

TEST(VerifyTest, RecvFromWrongPeer) {
  Program program = build("gpipe", 3, 2);
  int recv = findAction(program.ranks[2], ActionKind::Recv, 2, 0);
  ASSERT_EQ(recv, 0);
  program.ranks[2].actions[recv].peer = 0;
  std::vector<Diagnostic> diagnostics = verify(program);
  EXPECT_TRUE(hasMessage(diagnostics,
                         "rank 2: 'recv act stage 2 mb 0 from rank 0 (tag 2)' "
                         "(action 0): rank 0 does not hold stage 1"))
      << joined(diagnostics);
  EXPECT_TRUE(hasMessage(diagnostics,
                         "rank 1: 'send act stage 1 mb 0 to rank 2 (tag 2)' "
                         "(action 2) has no matching recv on rank 2"))
      << joined(diagnostics);
}

TEST(VerifyTest, SendReceivedAsAnotherMicrobatch) {
  // Swap the tags of rank 0's two activation sends: each is then received
  // by the recv of the other microbatch.
  Program program = build("gpipe", 2, 2);
  RankProgram &rank0 = program.ranks[0];
  int send0 = findAction(rank0, ActionKind::Send, 0, 0);
  int send1 = findAction(rank0, ActionKind::Send, 0, 1);
  std::swap(rank0.actions[send0].tag, rank0.actions[send1].tag);
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_EQ(diagnostics.size(), 2u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].rank, 0);
  EXPECT_EQ(diagnostics[0].actionIndex, send0);
  EXPECT_EQ(diagnostics[0].message,
            "rank 0: 'send act stage 0 mb 0 to rank 1 (tag 1)' (action 1) is "
            "received by 'recv act stage 1 mb 1 from rank 0 (tag 1)' (action "
            "2) on rank 1, which should be a recv act stage 1 mb 0");
}

TEST(VerifyTest, ForwardBeforeItsRecv) {
  Program program = build("gpipe", 2, 2);
  std::vector<Action> &actions = program.ranks[1].actions;
  ASSERT_EQ(actions[0].kind, ActionKind::Recv);
  std::swap(actions[0], actions[1]);
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_EQ(diagnostics.size(), 1u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].rank, 1);
  EXPECT_EQ(diagnostics[0].actionIndex, 0);
  EXPECT_EQ(diagnostics[0].message,
            "rank 1: 'F stage 1 mb 0' (action 0) comes before 'recv act stage "
            "1 mb 0 from rank 0 (tag 0)' (action 1), which it depends on");
}

TEST(VerifyTest, MissingRecv) {
  Program program = build("gpipe", 2, 2);
  std::vector<Action> &actions = program.ranks[1].actions;
  actions.erase(actions.begin());
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_EQ(diagnostics.size(), 1u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].message,
            "rank 1: 'F stage 1 mb 0' (action 0) has no recv act stage 1 mb 0 "
            "(stage 0 is on another rank)");
}

TEST(VerifyTest, SendBeforeItsProducer) {
  Program program = build("gpipe", 2, 1);
  std::vector<Action> &actions = program.ranks[0].actions;
  ASSERT_EQ(actions[1].kind, ActionKind::Send);
  std::swap(actions[0], actions[1]);
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_EQ(diagnostics.size(), 1u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].message,
            "rank 0: 'send act stage 0 mb 0 to rank 1 (tag 0)' (action 0) "
            "comes before 'F stage 0 mb 0' (action 1), which it depends on");
}

TEST(VerifyTest, ReplicatedStageWithoutAllReduce) {
  Program program = dataParallel(2, 1, {{}, {}});
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_EQ(diagnostics.size(), 2u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].message,
            "rank 0: stage 0 is replicated on ranks [0, 1] but has no "
            "allreduce");
  EXPECT_EQ(diagnostics[1].message,
            "rank 1: stage 0 is replicated on ranks [0, 1] but has no "
            "allreduce");
}

TEST(VerifyTest, ReplicatedStageWithAllReduce) {
  Program program = dataParallel(2, 2, {{0, 1}, {0, 1}});
  std::vector<Diagnostic> diagnostics = verify(program);
  EXPECT_TRUE(diagnostics.empty()) << joined(diagnostics);
}

TEST(VerifyTest, AllReduceDeadlock) {
  Program program = dataParallel(2, 2, {{0, 1}, {1, 0}});
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_EQ(diagnostics.size(), 2u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].message,
            "rank 0 stalls at 'allreduce stage 0 ranks [0, 1]': rank 1 is "
            "blocked at 'allreduce stage 1 ranks [0, 1]'");
}

TEST(VerifyTest, AllReduceAfterOptimizer) {
  Program program = dataParallel(2, 1, {{0}, {0}});
  std::vector<Action> &actions = program.ranks[0].actions;
  std::swap(actions[actions.size() - 1], actions[actions.size() - 2]);
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_EQ(diagnostics.size(), 1u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].message,
            "rank 0: 'optimizer stage 0' (action 2) comes before 'allreduce "
            "stage 0 ranks [0, 1]' (action 3), whose result it applies");
}

TEST(VerifyTest, AllReduceGroupWithRankNotHoldingStage) {
  Program program = build("gpipe", 2, 1);
  program.ranks[0].actions.insert(program.ranks[0].actions.end() - 1,
                                  allReduce(0, {0, 1}));
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_EQ(diagnostics.size(), 1u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].message,
            "rank 0: 'allreduce stage 0 ranks [0, 1]' (action 4) has group "
            "member rank 1, which does not hold stage 0");
}

TEST(VerifyTest, StructureErrors) {
  Program program = build("gpipe", 2, 2);
  program.ranks[0].actions[0].microbatch = 5;
  program.ranks[1].actions[0].stage = 0;
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_EQ(diagnostics.size(), 2u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].message,
            "rank 0: 'F stage 0 mb 5' (action 0) has microbatch 5 out of "
            "range [0, 2)");
  EXPECT_EQ(diagnostics[1].message,
            "rank 1: 'recv act stage 0 mb 0 from rank 0 (tag 0)' (action 0) "
            "belongs to stage 0, which rank 1 does not hold");

  Program empty;
  diagnostics = verify(empty);
  ASSERT_EQ(diagnostics.size(), 3u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].rank, -1);

  Program unheld = build("gpipe", 3, 1);
  unheld.ranks.pop_back();
  diagnostics = verify(unheld);
  ASSERT_EQ(diagnostics.size(), 1u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].message, "stage 2 is held by no rank");
}

// A program that claims a huge number of stages or microbatches is refused
// without allocating anything of the claimed size (found while writing the
// sched fuzzer: these used to allocate per-stage and per-microbatch tables
// first).
TEST(VerifyTest, HugeClaimedSizesAreRefusedBeforeAllocating) {
  Program stages = build("gpipe", 2, 1);
  stages.numStages = 2000000000;
  std::vector<Diagnostic> diagnostics = verify(stages);
  ASSERT_EQ(diagnostics.size(), 9u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].message, "stage 2 is held by no rank");
  EXPECT_EQ(diagnostics[8].message,
            "and 1999999990 more stages are held by no rank");

  Program microbatches = build("gpipe", 2, 1);
  microbatches.numMicrobatches = 2000000000;
  diagnostics = verify(microbatches);
  ASSERT_EQ(diagnostics.size(), 1u) << joined(diagnostics);
  EXPECT_EQ(diagnostics[0].message,
            "program: 2 stages x 2000000000 microbatches need at least "
            "4000000000 actions (an F each), but the program has " +
                std::to_string(microbatches.ranks[0].actions.size() +
                               microbatches.ranks[1].actions.size()));
}

TEST(VerifyTest, ForwardOnlyRejectsBackward) {
  Program program = build("gpipe", 2, 2);
  program.forwardOnly = true;
  std::vector<Diagnostic> diagnostics = verify(program);
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_TRUE(hasMessage(diagnostics,
                         "rank 0: 'B stage 0 mb 0' (action 5) is not allowed "
                         "in a forward-only program"))
      << joined(diagnostics);
}

TEST(VerifyTest, ForwardOnlyGPipe) {
  BuildResult result = buildGPipe(4, 4, /*forwardOnly=*/true);
  ASSERT_TRUE(result) << result.error;
  std::vector<Diagnostic> diagnostics = verify(*result.program);
  EXPECT_TRUE(diagnostics.empty()) << joined(diagnostics);
  for (const RankProgram &rank : result.program->ranks)
    EXPECT_EQ(countActions(rank, ActionKind::Backward), 0);
}

TEST(VerifyTest, LargeOneFOneB) {
  // Must stay (roughly) linear; S=8, M=256 is ~15k actions.
  Program program = build("1f1b", 8, 256);
  std::vector<Diagnostic> diagnostics = verify(program);
  EXPECT_TRUE(diagnostics.empty()) << joined(diagnostics);
}

} // namespace
