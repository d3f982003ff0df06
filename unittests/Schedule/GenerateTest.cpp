//===- GenerateTest.cpp - Tests of the schedule generators ----------------===//

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Verify.h"

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace pipewave::schedule;
using namespace pipewave::schedule::test;

namespace {

class GenerateTest : public ::testing::TestWithParam<Shape> {
protected:
  std::string schedule() const { return std::get<0>(GetParam()); }
  int numStages() const { return std::get<1>(GetParam()); }
  int numMicrobatches() const { return std::get<2>(GetParam()); }
};

TEST_P(GenerateTest, ShapeAndPlacement) {
  Program program = build(schedule(), numStages(), numMicrobatches());
  EXPECT_EQ(program.numStages, numStages());
  EXPECT_EQ(program.numMicrobatches, numMicrobatches());
  EXPECT_EQ(program.schedule, schedule());
  EXPECT_FALSE(program.forwardOnly);
  ASSERT_EQ(program.ranks.size(), size_t(numStages()));
  for (int r = 0; r < numStages(); ++r) {
    EXPECT_EQ(program.ranks[r].rank, r);
    EXPECT_EQ(program.ranks[r].stages, std::vector<int>{r});
    EXPECT_EQ(rankOfStage(program, r), r);
  }
}

TEST_P(GenerateTest, ActionCounts) {
  Program program = build(schedule(), numStages(), numMicrobatches());
  int M = numMicrobatches();
  for (const RankProgram &rank : program.ranks) {
    SCOPED_TRACE("rank " + std::to_string(rank.rank));
    bool hasPrev = rank.rank > 0;
    bool hasNext = rank.rank < numStages() - 1;
    EXPECT_EQ(countActions(rank, ActionKind::Forward), M);
    EXPECT_EQ(countActions(rank, ActionKind::Backward), M);
    EXPECT_EQ(countActions(rank, ActionKind::BackwardInput), 0);
    EXPECT_EQ(countActions(rank, ActionKind::BackwardWeight), 0);
    EXPECT_EQ(countActions(rank, ActionKind::Recv, Payload::Activation),
              hasPrev ? M : 0);
    EXPECT_EQ(countActions(rank, ActionKind::Send, Payload::Activation),
              hasNext ? M : 0);
    EXPECT_EQ(countActions(rank, ActionKind::Recv, Payload::Gradient),
              hasNext ? M : 0);
    EXPECT_EQ(countActions(rank, ActionKind::Send, Payload::Gradient),
              hasPrev ? M : 0);
    EXPECT_EQ(countActions(rank, ActionKind::AllReduce), 0);
    EXPECT_EQ(countActions(rank, ActionKind::OptimizerStep), 1);
    EXPECT_EQ(rank.actions.back().kind, ActionKind::OptimizerStep);
    size_t expected = 2 * M + (hasPrev ? 2 * M : 0) + (hasNext ? 2 * M : 0) + 1;
    EXPECT_EQ(rank.actions.size(), expected);
  }
}

TEST_P(GenerateTest, Verifies) {
  Program program = build(schedule(), numStages(), numMicrobatches());
  std::vector<Diagnostic> diagnostics = verify(program);
  EXPECT_TRUE(diagnostics.empty()) << joined(diagnostics);
}

TEST_P(GenerateTest, ForwardsBeforeFirstBackward) {
  Program program = build(schedule(), numStages(), numMicrobatches());
  for (const RankProgram &rank : program.ranks) {
    int forwards = 0;
    for (const Action &action : rank.actions) {
      if (action.kind == ActionKind::Backward)
        break;
      forwards += action.kind == ActionKind::Forward;
    }
    int expected = schedule() == "gpipe"
                       ? numMicrobatches()
                       : std::min(numStages() - rank.rank, numMicrobatches());
    EXPECT_EQ(forwards, expected) << "rank " << rank.rank;
  }
}

TEST_P(GenerateTest, MessagesUseConventionalTags) {
  Program program = build(schedule(), numStages(), numMicrobatches());
  for (const RankProgram &rank : program.ranks) {
    for (const Action &action : rank.actions) {
      if (action.kind != ActionKind::Send && action.kind != ActionKind::Recv)
        continue;
      bool down = (action.kind == ActionKind::Send) ==
                  (action.payload == Payload::Activation);
      int boundary = down ? action.stage : action.stage - 1;
      EXPECT_EQ(action.peer, down ? rank.rank + 1 : rank.rank - 1);
      EXPECT_EQ(action.tag,
                messageTag(action.payload, boundary, action.microbatch,
                           numStages(), numMicrobatches()));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Schedules, GenerateTest, allShapes(), shapeName);

TEST(GenerateTest, RejectsBadShapes) {
  for (auto [stages, microbatches] :
       {std::pair{0, 4}, std::pair{-1, 4}, std::pair{4, 0}, std::pair{2, -3}}) {
    BuildResult gpipe = buildGPipe(stages, microbatches);
    EXPECT_FALSE(gpipe);
    EXPECT_FALSE(gpipe.error.empty());
    BuildResult oneFOneB = build1F1B(stages, microbatches);
    EXPECT_FALSE(oneFOneB);
    EXPECT_FALSE(oneFOneB.error.empty());
  }
  EXPECT_EQ(buildGPipe(0, 4).error,
            "gpipe: the number of stages must be at least 1 (got 0)");
  EXPECT_EQ(build1F1B(4, 0).error,
            "1f1b: the number of microbatches must be at least 1 (got 0)");
}

TEST(GenerateTest, ForwardOnlyGPipe) {
  BuildResult result = buildGPipe(4, 8, /*forwardOnly=*/true);
  ASSERT_TRUE(result) << result.error;
  const Program &program = *result.program;
  EXPECT_TRUE(program.forwardOnly);
  for (const RankProgram &rank : program.ranks) {
    EXPECT_EQ(countActions(rank, ActionKind::Forward), 8);
    for (const Action &action : rank.actions) {
      EXPECT_NE(action.kind, ActionKind::Backward);
      EXPECT_NE(action.kind, ActionKind::OptimizerStep);
      EXPECT_EQ(action.payload, Payload::Activation);
    }
  }
  std::vector<Diagnostic> diagnostics = verify(program);
  EXPECT_TRUE(diagnostics.empty()) << joined(diagnostics);
}

TEST(GenerateTest, OneFOneBSteadyStateOrder) {
  // Stage 0 of 1F1B(S=2, M=3): one warm-up forward, then F, recv grad, send
  // act, B pairs (the gradient is received before the activation is sent).
  Program program = build("1f1b", 2, 3);
  std::vector<std::string> actual;
  for (const Action &action : program.ranks[0].actions)
    actual.push_back(describe(action));
  std::vector<std::string> expected = {
      "F stage 0 mb 0",
      "send act stage 0 mb 0 to rank 1 (tag 0)",
      "F stage 0 mb 1",
      "recv grad stage 0 mb 0 from rank 1 (tag 3)",
      "send act stage 0 mb 1 to rank 1 (tag 1)",
      "B stage 0 mb 0",
      "F stage 0 mb 2",
      "recv grad stage 0 mb 1 from rank 1 (tag 4)",
      "send act stage 0 mb 2 to rank 1 (tag 2)",
      "B stage 0 mb 1",
      "recv grad stage 0 mb 2 from rank 1 (tag 5)",
      "B stage 0 mb 2",
      "optimizer stage 0",
  };
  EXPECT_EQ(actual, expected);
}

} // namespace
