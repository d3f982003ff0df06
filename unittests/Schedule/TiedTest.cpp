//===- TiedTest.cpp - Tests of the tied-parameter all-reduces -------------===//

#include "pipewave/Schedule/Tied.h"
#include "pipewave/Schedule/Verify.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace pipewave::schedule;

namespace {

/// The TiedAllReduce actions of `rank`.
std::vector<Action> tiedOf(const RankProgram &rank) {
  std::vector<Action> tied;
  for (const Action &action : rank.actions)
    if (action.kind == ActionKind::TiedAllReduce)
      tied.push_back(action);
  return tied;
}

/// Index of the first action of `kind` on `rank`, or -1.
int firstOf(const RankProgram &rank, ActionKind kind) {
  for (size_t i = 0; i < rank.actions.size(); ++i)
    if (rank.actions[i].kind == kind)
      return static_cast<int>(i);
  return -1;
}

/// The rank's actions, described.
std::vector<std::string> described(const RankProgram &rank) {
  std::vector<std::string> lines;
  for (const Action &action : rank.actions)
    lines.push_back(describe(action));
  return lines;
}

std::string firstError(const Program &program) {
  std::vector<Diagnostic> diagnostics = verify(program);
  return diagnostics.empty() ? "" : diagnostics.front().message;
}

TEST(TiedTest, OneFOneBSumsOnTheHoldersOnly) {
  BuildResult built = build1F1B(4, 4);
  ASSERT_TRUE(built);
  BuildResult tied = addTiedAllReduces(*built.program, {{"wte", {0, 3}}});
  ASSERT_TRUE(tied) << tied.error;
  const Program &program = *tied.program;
  EXPECT_EQ(firstError(program), "");
  for (int r : {0, 3}) {
    std::vector<Action> found = tiedOf(program.ranks[r]);
    ASSERT_EQ(found.size(), 1u) << "rank " << r;
    EXPECT_EQ(found[0].param, "wte");
    EXPECT_EQ(found[0].stage, r);
    EXPECT_EQ(found[0].group, (std::vector<int>{0, 3}));
    EXPECT_EQ(found[0].users, (std::vector<int>{0, 3}));
    // Right before the optimizer step.
    int at = firstOf(program.ranks[r], ActionKind::TiedAllReduce);
    EXPECT_EQ(program.ranks[r].actions[at + 1].kind, ActionKind::OptimizerStep);
  }
  for (int r : {1, 2}) {
    EXPECT_TRUE(tiedOf(program.ranks[r]).empty());
    EXPECT_EQ(described(program.ranks[r]), described(built.program->ranks[r]))
        << "rank " << r << " holds no copy and keeps its list";
  }
}

TEST(TiedTest, SeveralStagesPerRank) {
  // Interleaved: rank 0 holds stages 0 and 2, rank 1 stages 1 and 3.
  BuildResult interleaved = buildInterleaved1F1B(2, 2, 4);
  ASSERT_TRUE(interleaved) << interleaved.error;
  BuildResult tied =
      addTiedAllReduces(*interleaved.program, {{"wte", {0, 3}}, {"b", {1, 2}}});
  ASSERT_TRUE(tied) << tied.error;
  EXPECT_EQ(firstError(*tied.program), "");
  for (int r : {0, 1}) {
    std::vector<Action> found = tiedOf(tied.program->ranks[r]);
    ASSERT_EQ(found.size(), 2u);
    // The same order on every rank: the order of the list.
    EXPECT_EQ(found[0].param, "wte");
    EXPECT_EQ(found[1].param, "b");
    EXPECT_EQ(found[0].group, (std::vector<int>{0, 1}));
  }
  EXPECT_EQ(tiedOf(tied.program->ranks[0])[0].stage, 0);
  EXPECT_EQ(tiedOf(tied.program->ranks[1])[0].stage, 3);
  EXPECT_EQ(tiedOf(tied.program->ranks[0])[1].stage, 2);
  EXPECT_EQ(tiedOf(tied.program->ranks[1])[1].stage, 1);

  // ZB-V: rank 0 holds stages 0 and 3, both users: a group of one.
  BuildResult v = buildZeroBubbleV(2, 4);
  ASSERT_TRUE(v) << v.error;
  BuildResult local = addTiedAllReduces(*v.program, {{"wte", {0, 3}}});
  ASSERT_TRUE(local) << local.error;
  EXPECT_EQ(firstError(*local.program), "");
  std::vector<Action> found = tiedOf(local.program->ranks[0]);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].group, (std::vector<int>{0}));
  EXPECT_TRUE(tiedOf(local.program->ranks[1]).empty());
}

TEST(TiedTest, ReplicasSumInsideTheirReplicaAfterTheReplicaAllReduce) {
  // Two replicas of a 2-stage 1F1B by hand: ranks 0, 1 and 2, 3.
  BuildResult built = build1F1B(2, 2);
  ASSERT_TRUE(built);
  Program program = *built.program;
  program.ranks.clear();
  for (int k = 0; k < 2; ++k)
    for (const RankProgram &rank : built.program->ranks) {
      RankProgram copy = rank;
      copy.rank = k * 2 + rank.rank;
      copy.actions.clear();
      for (Action action : rank.actions) {
        if (action.kind == ActionKind::Send || action.kind == ActionKind::Recv)
          action.peer += k * 2;
        if (action.kind == ActionKind::OptimizerStep) {
          Action reduce{ActionKind::AllReduce};
          reduce.stage = action.stage;
          reduce.group = {rank.rank, rank.rank + 2};
          copy.actions.push_back(reduce);
        }
        copy.actions.push_back(action);
      }
      program.ranks.push_back(copy);
    }
  ASSERT_EQ(firstError(program), "");
  BuildResult tied = addTiedAllReduces(program, {{"wte", {0, 1}}});
  ASSERT_TRUE(tied) << tied.error;
  EXPECT_EQ(firstError(*tied.program), "");
  for (int r = 0; r < 4; ++r) {
    std::vector<Action> found = tiedOf(tied.program->ranks[r]);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].group,
              r < 2 ? (std::vector<int>{0, 1}) : (std::vector<int>{2, 3}));
    const RankProgram &rank = tied.program->ranks[r];
    EXPECT_LT(firstOf(rank, ActionKind::AllReduce),
              firstOf(rank, ActionKind::TiedAllReduce));
  }
}

TEST(TiedTest, VerifierFindsAMissingOrMisplacedTiedAllReduce) {
  BuildResult built = build1F1B(2, 2);
  ASSERT_TRUE(built);
  BuildResult tied = addTiedAllReduces(*built.program, {{"wte", {0, 1}}});
  ASSERT_TRUE(tied);

  Program missing = *tied.program;
  std::vector<Action> &actions = missing.ranks[1].actions;
  actions.erase(std::remove_if(actions.begin(), actions.end(),
                               [](const Action &action) {
                                 return action.kind ==
                                        ActionKind::TiedAllReduce;
                               }),
                actions.end());
  EXPECT_NE(firstError(missing).find("holds stage 1, a user of 'wte', but "
                                     "has no tied all-reduce of it"),
            std::string::npos)
      << firstError(missing);

  Program early = *tied.program;
  std::vector<Action> &list = early.ranks[0].actions;
  int at = firstOf(early.ranks[0], ActionKind::TiedAllReduce);
  Action moved = list[at];
  list.erase(list.begin() + at);
  list.insert(list.begin(), moved);
  EXPECT_NE(firstError(early).find("whose gradient of 'wte' it sums"),
            std::string::npos)
      << firstError(early);
}

TEST(TiedTest, RejectsBadUserLists) {
  BuildResult built = build1F1B(2, 2);
  ASSERT_TRUE(built);
  BuildResult one = addTiedAllReduces(*built.program, {{"wte", {0}}});
  EXPECT_FALSE(one);
  EXPECT_NE(one.error.find("needs two or more user stages"), std::string::npos);
  BuildResult none = addTiedAllReduces(*built.program, {});
  ASSERT_TRUE(none);
  EXPECT_EQ(described(none.program->ranks[0]),
            described(built.program->ranks[0]));
}

} // namespace
