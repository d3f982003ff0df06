//===- TestUtil.h - Helpers for the schedule unit tests ---------*- C++ -*-===//

#ifndef PIPEWAVE_UNITTESTS_SCHEDULE_TESTUTIL_H
#define PIPEWAVE_UNITTESTS_SCHEDULE_TESTUTIL_H

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Program.h"
#include "pipewave/Schedule/Verify.h"

#include "gtest/gtest.h"

#include <string>
#include <tuple>
#include <vector>

namespace pipewave::schedule::test {

/// Builds the named built-in schedule ("gpipe" or "1f1b"), failing the test
/// if the generator rejects the arguments.
inline Program build(const std::string &schedule, int numStages,
                     int numMicrobatches) {
  BuildResult result = schedule == "gpipe"
                           ? buildGPipe(numStages, numMicrobatches)
                           : build1F1B(numStages, numMicrobatches);
  EXPECT_TRUE(result) << result.error;
  return result ? *result.program : Program();
}

/// A parameterized test's schedule shape: (schedule, stages, microbatches).
using Shape = std::tuple<std::string, int, int>;

/// gpipe and 1f1b for S in {1, 2, 4, 8} and M in {1, 4, 8, 16}.
inline auto allShapes() {
  return ::testing::Combine(::testing::Values("gpipe", "1f1b"),
                            ::testing::Values(1, 2, 4, 8),
                            ::testing::Values(1, 4, 8, 16));
}

/// Test name suffix, e.g. "1f1b_S4_M8".
inline std::string shapeName(const ::testing::TestParamInfo<Shape> &info) {
  return std::get<0>(info.param) + "_S" +
         std::to_string(std::get<1>(info.param)) + "_M" +
         std::to_string(std::get<2>(info.param));
}

/// Index of the first action of `rank` with the given key, or -1.
inline int findAction(const RankProgram &rank, ActionKind kind, int stage,
                      int microbatch, Payload payload = Payload::Activation) {
  for (size_t i = 0; i < rank.actions.size(); ++i) {
    const Action &action = rank.actions[i];
    bool isMessage =
        action.kind == ActionKind::Send || action.kind == ActionKind::Recv;
    if (action.kind == kind && action.stage == stage &&
        action.microbatch == microbatch &&
        (!isMessage || action.payload == payload))
      return static_cast<int>(i);
  }
  return -1;
}

/// Number of actions of `rank` of the given kind (and payload for messages).
inline int countActions(const RankProgram &rank, ActionKind kind,
                        Payload payload = Payload::Activation) {
  int count = 0;
  for (const Action &action : rank.actions) {
    bool isMessage =
        action.kind == ActionKind::Send || action.kind == ActionKind::Recv;
    if (action.kind == kind && (!isMessage || action.payload == payload))
      ++count;
  }
  return count;
}

/// All diagnostic messages, one per line (for failure output).
inline std::string joined(const std::vector<Diagnostic> &diagnostics) {
  std::string text;
  for (const Diagnostic &diagnostic : diagnostics)
    text += diagnostic.message + "\n";
  return text;
}

/// True if some diagnostic's message equals `message`.
inline bool hasMessage(const std::vector<Diagnostic> &diagnostics,
                       const std::string &message) {
  for (const Diagnostic &diagnostic : diagnostics)
    if (diagnostic.message == message)
      return true;
  return false;
}

} // namespace pipewave::schedule::test

#endif // PIPEWAVE_UNITTESTS_SCHEDULE_TESTUTIL_H
