//===- ProgramTest.cpp - Tests of the program data model ------------------===//

#include "pipewave/Schedule/Program.h"

#include "gtest/gtest.h"

#include <set>

using namespace pipewave::schedule;

namespace {

Action message(ActionKind kind, Payload payload, int stage, int microbatch,
               int peer, int64_t tag) {
  Action action{kind};
  action.stage = stage;
  action.microbatch = microbatch;
  action.payload = payload;
  action.peer = peer;
  action.tag = tag;
  return action;
}

TEST(ProgramTest, StringifyKinds) {
  EXPECT_STREQ(stringify(ActionKind::Forward), "F");
  EXPECT_STREQ(stringify(ActionKind::Backward), "B");
  EXPECT_STREQ(stringify(ActionKind::BackwardInput), "I");
  EXPECT_STREQ(stringify(ActionKind::BackwardWeight), "W");
  EXPECT_STREQ(stringify(ActionKind::Send), "send");
  EXPECT_STREQ(stringify(ActionKind::Recv), "recv");
  EXPECT_STREQ(stringify(ActionKind::AllReduce), "allreduce");
  EXPECT_STREQ(stringify(ActionKind::OptimizerStep), "optimizer");
  EXPECT_STREQ(stringify(Payload::Activation), "act");
  EXPECT_STREQ(stringify(Payload::Gradient), "grad");
}

TEST(ProgramTest, Describe) {
  Action forward{ActionKind::Forward};
  forward.stage = 1;
  forward.microbatch = 3;
  EXPECT_EQ(describe(forward), "F stage 1 mb 3");

  Action weight{ActionKind::BackwardWeight};
  weight.stage = 2;
  weight.microbatch = 0;
  EXPECT_EQ(describe(weight), "W stage 2 mb 0");

  EXPECT_EQ(describe(message(ActionKind::Recv, Payload::Gradient, 0, 2, 1, 17)),
            "recv grad stage 0 mb 2 from rank 1 (tag 17)");
  EXPECT_EQ(
      describe(message(ActionKind::Send, Payload::Activation, 0, 3, 1, 3)),
      "send act stage 0 mb 3 to rank 1 (tag 3)");

  Action allReduce{ActionKind::AllReduce};
  allReduce.stage = 0;
  allReduce.group = {0, 4};
  EXPECT_EQ(describe(allReduce), "allreduce stage 0 ranks [0, 4]");

  Action optimizer{ActionKind::OptimizerStep};
  optimizer.stage = 0;
  EXPECT_EQ(describe(optimizer), "optimizer stage 0");
}

TEST(ProgramTest, MessageTagsAreUnique) {
  const int numStages = 5, numMicrobatches = 7;
  std::set<int64_t> tags;
  for (Payload payload : {Payload::Activation, Payload::Gradient})
    for (int boundary = 0; boundary < numStages - 1; ++boundary)
      for (int m = 0; m < numMicrobatches; ++m)
        tags.insert(
            messageTag(payload, boundary, m, numStages, numMicrobatches));
  EXPECT_EQ(tags.size(), size_t(2 * (numStages - 1) * numMicrobatches));
  EXPECT_EQ(*tags.begin(), 0);
  EXPECT_EQ(*tags.rbegin(), 2 * (numStages - 1) * numMicrobatches - 1);
  // ((1 * (S-1)) + b) * M + m.
  EXPECT_EQ(messageTag(Payload::Gradient, 1, 3, 4, 8), (3 + 1) * 8 + 3);
}

TEST(ProgramTest, StagePlacement) {
  Program program;
  program.numStages = 3;
  program.numMicrobatches = 1;
  program.ranks = {{0, {0}, {}}, {1, {1, 2}, {}}, {2, {0}, {}}};
  EXPECT_EQ(rankOfStage(program, 0), 0);
  EXPECT_EQ(rankOfStage(program, 2), 1);
  EXPECT_EQ(rankOfStage(program, 3), -1);
  EXPECT_EQ(ranksOfStage(program, 0), (std::vector<int>{0, 2}));
  EXPECT_EQ(ranksOfStage(program, 1), (std::vector<int>{1}));
  EXPECT_TRUE(ranksOfStage(program, 5).empty());
  EXPECT_TRUE(holdsStage(program.ranks[1], 2));
  EXPECT_FALSE(holdsStage(program.ranks[1], 0));
}

TEST(ProgramTest, IsCompute) {
  EXPECT_TRUE(isCompute(ActionKind::Forward));
  EXPECT_TRUE(isCompute(ActionKind::BackwardWeight));
  EXPECT_FALSE(isCompute(ActionKind::Send));
  EXPECT_FALSE(isCompute(ActionKind::OptimizerStep));
}

} // namespace
