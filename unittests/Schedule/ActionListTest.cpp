//===- ActionListTest.cpp - Tests of the action-list text format ----------===//

#include "pipewave/Schedule/ActionList.h"

#include "ScheduleUtil.h"

#include "gtest/gtest.h"

#include <functional>

using namespace pipewave::schedule;
using namespace pipewave::schedule::test;

namespace {

struct Generated {
  std::string label;
  std::function<BuildResult()> build;
};

std::vector<Generated> allGenerators() {
  std::vector<Generated> all;
  for (int M : {1, 4, 8}) {
    for (int S : {1, 2, 4}) {
      std::string shape = "S" + std::to_string(S) + "_M" + std::to_string(M);
      all.push_back({"gpipe_" + shape, [=] { return buildGPipe(S, M); }});
      all.push_back({"gpipe_fwd_" + shape,
                     [=] { return buildGPipe(S, M, /*forwardOnly=*/true); }});
      all.push_back({"1f1b_" + shape, [=] { return build1F1B(S, M); }});
      all.push_back({"zbh1_" + shape, [=] { return buildZeroBubbleH1(S, M); }});
      all.push_back({"zbv_" + shape, [=] { return buildZeroBubbleV(S, M); }});
    }
  }
  for (int P : {1, 2, 4})
    for (int k : {1, 2}) {
      int M = P * k * 2;
      std::string shape = "P" + std::to_string(P) + "_M" + std::to_string(M);
      all.push_back({"interleaved_" + shape,
                     [=] { return buildInterleaved1F1B(P, 2, M); }});
      all.push_back({"hanayo_" + shape, [=] { return buildHanayo(P, 2, M); }});
    }
  return all;
}

TEST(ActionListTest, RoundTripsEveryGenerator) {
  for (const Generated &generated : allGenerators()) {
    SCOPED_TRACE(generated.label);
    Program original = checked(generated.build());
    std::string text = formatActionList(original);
    BuildResult parsed = parseActionList(text);
    ASSERT_TRUE(parsed) << parsed.error << "\n" << text;
    const Program &program = *parsed.program;
    EXPECT_TRUE(verify(program).empty()) << joined(verify(program));
    EXPECT_EQ(program.schedule, original.schedule);
    EXPECT_EQ(program.numStages, original.numStages);
    EXPECT_EQ(program.numMicrobatches, original.numMicrobatches);
    EXPECT_EQ(program.forwardOnly, original.forwardOnly);
    ASSERT_EQ(program.ranks.size(), original.ranks.size());
    for (size_t r = 0; r < program.ranks.size(); ++r)
      EXPECT_EQ(program.ranks[r].stages, original.ranks[r].stages);
    EXPECT_EQ(computeOrder(program), computeOrder(original));
    // The implied messages cost nothing extra: same timing.
    UniformCosts costs;
    costs.comm = 0.25;
    StepTimeline before = simulated(original, costs);
    StepTimeline after = simulated(program, costs);
    EXPECT_DOUBLE_EQ(after.makespan, before.makespan);
    // Formatting is stable.
    EXPECT_EQ(formatActionList(program), text);
  }
}

TEST(ActionListTest, FormatOf1F1B) {
  Program program = checked(build1F1B(2, 2));
  EXPECT_EQ(formatActionList(program), "# pipewave schedule S=2 M=2 name=1f1b\n"
                                       "stages 0: 0\n"
                                       "stages 1: 1\n"
                                       "0: 0F0 0F1 0B0 0B1 OPT0\n"
                                       "1: 1F0 1B0 1F1 1B1 OPT1\n");
}

TEST(ActionListTest, ZeroBubbleVExampleOfTheDocs) {
  // docs/schedule-format.md shows this order without the optimizer steps.
  std::string text = "# pipewave schedule S=4 M=2 name=zbv\n"
                     "stages 0: 0 3\n"
                     "stages 1: 1 2\n"
                     "0: 0F0 0F1 3F0 3I0 3F1 3I1 0I0 0W0 0I1 3W0 0W1 3W1\n"
                     "1: 1F0 2F0 1F1 2F1 2I0 1I0 2I1 1I1 1W0 2W0 1W1 2W1\n";
  BuildResult parsed = parseActionList(text);
  ASSERT_TRUE(parsed) << parsed.error;
  Program generated = checked(buildZeroBubbleV(2, 2));
  EXPECT_EQ(computeOrder(*parsed.program), computeOrder(generated));
}

TEST(ActionListTest, ParsesCommentsContinuationsAndDefaults) {
  // No 'stages' lines: stage r on rank r. A rank may span several lines; the
  // optimizer steps are added; CRLF line ends are fine.
  std::string text = "\n# pipewave schedule S=2 M=2\r\n"
                     "# a comment line\n"
                     "0: 0F0 0F1   # trailing comment\n"
                     "1: 1F0 1B0\n"
                     "0: 0B0 0B1\n"
                     "1: 1F1 1B1\n";
  BuildResult parsed = parseActionList(text);
  ASSERT_TRUE(parsed) << parsed.error;
  const Program &program = *parsed.program;
  EXPECT_EQ(program.schedule, "file");
  std::vector<std::vector<std::string>> expected = {
      {"F 0 0", "F 0 1", "B 0 0", "B 0 1", "optimizer 0"},
      {"F 1 0", "B 1 0", "F 1 1", "B 1 1", "optimizer 1"}};
  EXPECT_EQ(computeOrder(program), expected);
  EXPECT_EQ(program.ranks[0].stages, std::vector<int>{0});
}

TEST(ActionListTest, OrdersMessagesForRendezvous) {
  // The 1F1B steady state written naively deadlocks when each send follows
  // its producer (see OneFOneB.cpp); the parser's message order does not.
  std::string text = "# pipewave schedule S=2 M=3\n"
                     "0: 0F0 0F1 0B0 0F2 0B1 0B2\n"
                     "1: 1F0 1B0 1F1 1B1 1F2 1B2\n";
  BuildResult parsed = parseActionList(text);
  ASSERT_TRUE(parsed) << parsed.error;
  std::vector<Diagnostic> diagnostics = verify(*parsed.program);
  EXPECT_TRUE(diagnostics.empty()) << joined(diagnostics);
  // The Recv sits right before its consumer.
  const RankProgram &rank0 = parsed.program->ranks[0];
  int backward = findAction(rank0, ActionKind::Backward, 0, 1);
  ASSERT_GT(backward, 0);
  EXPECT_EQ(rank0.actions[backward - 1].kind, ActionKind::Recv);
  EXPECT_EQ(rank0.actions[backward - 1].microbatch, 1);
}

TEST(ActionListTest, ForwardOnly) {
  BuildResult parsed = parseActionList("# pipewave schedule S=2 M=2 "
                                       "forward-only\n"
                                       "0: 0F0 0F1\n"
                                       "1: 1F0 1F1\n");
  ASSERT_TRUE(parsed) << parsed.error;
  EXPECT_TRUE(parsed.program->forwardOnly);
  for (const RankProgram &rank : parsed.program->ranks)
    EXPECT_EQ(countActions(rank, ActionKind::OptimizerStep), 0);
}

TEST(ActionListTest, ReplicatedStagesGetAllReduces) {
  // Two data-parallel replicas of a two-stage pipeline: ranks 0 and 1 hold
  // stage 0, ranks 2 and 3 stage 1. Replica i of stage 0 talks to replica i
  // of stage 1; the allreduces are added before the optimizer steps.
  std::string text = "# pipewave schedule S=2 M=1 name=dp2\n"
                     "stages 0: 0\n"
                     "stages 1: 0\n"
                     "stages 2: 1\n"
                     "stages 3: 1\n"
                     "0: 0F0 0B0\n"
                     "1: 0F0 0B0\n"
                     "2: 1F0 1B0\n"
                     "3: 1F0 1B0 AR1 OPT1\n";
  BuildResult parsed = parseActionList(text);
  ASSERT_TRUE(parsed) << parsed.error;
  const Program &program = *parsed.program;
  EXPECT_EQ(program.schedule, "dp2");
  for (int r = 0; r < 4; ++r) {
    const RankProgram &rank = program.ranks[r];
    ASSERT_GE(rank.actions.size(), 2u);
    const Action &allReduce = rank.actions[rank.actions.size() - 2];
    EXPECT_EQ(allReduce.kind, ActionKind::AllReduce);
    EXPECT_EQ(allReduce.group,
              r < 2 ? (std::vector<int>{0, 1}) : (std::vector<int>{2, 3}));
    EXPECT_EQ(rank.actions.back().kind, ActionKind::OptimizerStep);
  }
  int send = findAction(program.ranks[1], ActionKind::Send, 0, 0);
  ASSERT_GE(send, 0);
  EXPECT_EQ(program.ranks[1].actions[send].peer, 3);
  std::string expected = "# pipewave schedule S=2 M=1 name=dp2\n"
                         "stages 0: 0\n"
                         "stages 1: 0\n"
                         "stages 2: 1\n"
                         "stages 3: 1\n"
                         "0: 0F0 0B0 AR0 OPT0\n"
                         "1: 0F0 0B0 AR0 OPT0\n"
                         "2: 1F0 1B0 AR1 OPT1\n"
                         "3: 1F0 1B0 AR1 OPT1\n";
  EXPECT_EQ(formatActionList(program), expected);
}

/// The error of parsing `text`, which must fail.
std::string errorOf(const std::string &text) {
  BuildResult parsed = parseActionList(text);
  EXPECT_FALSE(parsed) << "parsed:\n" << text;
  return parsed.error;
}

const char *kHeader = "# pipewave schedule S=2 M=1\n";

TEST(ActionListTest, HeaderErrors) {
  EXPECT_EQ(errorOf("  \n\n"), "the text is empty: expected a header line "
                               "'# pipewave schedule S=<stages> "
                               "M=<microbatches>'");
  EXPECT_EQ(errorOf("0: 0F0\n"),
            "line 1, column 1: expected the header '# pipewave schedule "
            "S=<stages> M=<microbatches>' but got '0:'");
  EXPECT_EQ(errorOf("# pipewave schedule S=2 M=1 colour=red\n"),
            "line 1, column 29: unknown header field 'colour=red' (expected "
            "S=<n>, M=<n>, name=<word> or forward-only)");
  EXPECT_EQ(errorOf("# pipewave schedule S=0 M=1\n"),
            "line 1, column 21: expected a positive number in 'S=0'");
  EXPECT_EQ(errorOf("# pipewave schedule S=2\n"),
            "line 1, column 1: the header must give S=<stages> and "
            "M=<microbatches>");
  EXPECT_EQ(errorOf("# pipewave schedule S=2 M=1 name=a/b\n"),
            "line 1, column 29: the schedule name must be a word of letters, "
            "digits, '_', '-' and '.' in 'name=a/b'");
}

// A header that claims more stages or microbatches than the file can hold
// (an F word each) is refused before anything of that size is built. Found
// while writing the action-list fuzzer: S=999999999 used to allocate a rank
// per stage.
TEST(ActionListTest, HugeClaimedSizesAreRefusedBeforeAllocating) {
  EXPECT_EQ(errorOf("# pipewave schedule S=999999999 M=1\n"),
            "the header claims S=999999999 M=1, which needs 999999999 "
            "forward actions, but the file has 0 words after it");
  EXPECT_EQ(errorOf("# pipewave schedule S=2 M=999999999\n0: 0F0 1F0\n"),
            "the header claims S=2 M=999999999, which needs 1999999998 "
            "forward actions, but the file has 3 words after it");
}

TEST(ActionListTest, TokenErrors) {
  EXPECT_EQ(errorOf(std::string(kHeader) + "0: 0F0 0X0\n"),
            "line 2, column 8: unknown action '0X0' (expected <stage>F<mb>, "
            "<stage>B<mb>, <stage>I<mb>, <stage>W<mb>, AR<stage> or "
            "OPT<stage>)");
  EXPECT_EQ(errorOf(std::string(kHeader) + "0: 0F0 0B0\n1: 1F0 1B0 1F\n"),
            "line 3, column 12: unknown action '1F' (expected <stage>F<mb>, "
            "<stage>B<mb>, <stage>I<mb>, <stage>W<mb>, AR<stage> or "
            "OPT<stage>)");
  EXPECT_EQ(errorOf(std::string(kHeader) + "0: 0F0 1F0\n"),
            "line 2, column 8: rank 0 does not hold stage 1 in '1F0'");
  EXPECT_EQ(errorOf(std::string(kHeader) + "0: 7F0\n"),
            "line 2, column 4: stage 7 is out of range [0, 2) in '7F0'");
  EXPECT_EQ(errorOf(std::string(kHeader) + "0: 0F0 0B3\n"),
            "line 2, column 8: microbatch 3 is out of range [0, 1) in '0B3'");
  EXPECT_EQ(errorOf(std::string(kHeader) + "rank0: 0F0\n"),
            "line 2, column 1: expected 'stages <rank>:' or '<rank>:' but got "
            "'rank0:'");
  EXPECT_EQ(errorOf(std::string(kHeader) + "5: 0F0\n"),
            "line 2, column 1: rank 5 is out of range [0, 2)");
  EXPECT_EQ(errorOf("# pipewave schedule S=2 M=1 forward-only\n0: 0B0\n"),
            "line 2, column 4: a forward-only schedule has only F actions, "
            "not '0B0'");
}

TEST(ActionListTest, StageMapErrors) {
  EXPECT_EQ(errorOf(std::string(kHeader) + "stages 0: 0 0\n"),
            "line 2, column 13: stage 0 is listed twice for rank 0");
  EXPECT_EQ(errorOf(std::string(kHeader) + "stages 0: 0 2\n"),
            "line 2, column 13: expected a stage in [0, 2) but got '2'");
  EXPECT_EQ(errorOf(std::string(kHeader) + "stages 0: 0\nstages 0: 1\n"),
            "line 3, column 8: the stages of rank 0 are already given at "
            "line 2, column 8");
  EXPECT_EQ(errorOf(std::string(kHeader) + "stages 0: 0\nstages 2: 1\n"),
            "line 3, column 8: rank 2 is out of range: the 'stages' lines "
            "name 2 ranks, which must be numbered from 0");
  EXPECT_EQ(errorOf(std::string(kHeader) + "stages 0: 0\n"),
            "stage 1 is held by no rank");
  EXPECT_EQ(errorOf(std::string(kHeader) + "stages 0: 0\nstages 1: 0\n"
                                           "stages 2: 1\n"),
            "stages 0 and 1 have different numbers of replicas (2 and 1), so "
            "their ranks cannot be paired");
}

TEST(ActionListTest, OrderErrors) {
  EXPECT_EQ(errorOf(std::string(kHeader) + "0: 0F0 0F0 0B0\n1: 1F0 1B0\n"),
            "'0F0' at line 2, column 8 duplicates '0F0' at line 2, column 4");
  EXPECT_EQ(errorOf(std::string(kHeader) + "0: 0F0\n1: 1F0 1B0\n"),
            "rank 0: stage 0 microbatch 0 has no backward (B or I+W)");
  EXPECT_EQ(errorOf(std::string(kHeader) + "0: 0F0 0I0\n1: 1F0 1B0\n"),
            "rank 0: stage 0 microbatch 0 has I but no W");
  EXPECT_EQ(errorOf(std::string(kHeader) + "0: 0B0 0F0\n1: 1F0 1B0\n"),
            "'0B0' at line 2, column 4 comes before '0F0' at line 2, column "
            "8, which it depends on");
  EXPECT_EQ(errorOf(std::string(kHeader) + "0: 0F0 OPT0 0B0\n1: 1F0 1B0\n"),
            "'OPT0' at line 2, column 8 comes before '0B0' at line 2, column "
            "13, whose gradients it applies");
  // A cycle across ranks: rank 1 wants the gradient of microbatch 1 before it
  // has run its forward, which needs rank 0, which waits for the gradient of
  // microbatch 0 first.
  EXPECT_EQ(errorOf("# pipewave schedule S=2 M=2\n"
                    "0: 0F0 0B0 0F1 0B1\n"
                    "1: 1F1 1B1 1F0 1B0\n"),
            "the order cannot run: rank 0 stalls at '0B0' at line 2, column "
            "8: it waits for '1B0' at line 3, column 16 on rank 1, which is "
            "stuck at '1F1' at line 3, column 4");
}

} // namespace
