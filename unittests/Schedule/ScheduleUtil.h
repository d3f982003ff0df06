//===- ScheduleUtil.h - Helpers for the multi-stage schedule tests -*- C++ -*-//

#ifndef PIPEWAVE_UNITTESTS_SCHEDULE_SCHEDULEUTIL_H
#define PIPEWAVE_UNITTESTS_SCHEDULE_SCHEDULEUTIL_H

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Program.h"
#include "pipewave/Schedule/Timeline.h"
#include "pipewave/Schedule/Verify.h"

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

namespace pipewave::schedule::test {

/// The program of a generator, failing the test if it is rejected or does
/// not verify.
inline Program checked(const BuildResult &result) {
  EXPECT_TRUE(result) << result.error;
  if (!result)
    return Program();
  std::vector<Diagnostic> diagnostics = verify(*result.program);
  EXPECT_TRUE(diagnostics.empty()) << joined(diagnostics);
  return *result.program;
}

/// Simulates, failing the test on a simulation error.
inline StepTimeline simulated(const Program &program,
                              const UniformCosts &costs) {
  StepTimeline result = computeTimeline(program, costs);
  EXPECT_TRUE(result.error.empty()) << result.error;
  return result;
}

/// Unit costs of a chunk that is 1/chunks of a stage: F 1, B 2, I 1, W 1,
/// divided by `chunks`.
inline UniformCosts chunkCosts(int chunks) {
  UniformCosts costs;
  costs.forward = 1.0 / chunks;
  costs.backward = 2.0 / chunks;
  costs.backwardInput = 1.0 / chunks;
  costs.backwardWeight = 1.0 / chunks;
  return costs;
}

/// The non-message actions of every rank in order, as "F 3 0", "B 3 0",
/// "AR 3", "OPT 3" strings.
inline std::vector<std::vector<std::string>>
computeOrder(const Program &program) {
  std::vector<std::vector<std::string>> order;
  for (const RankProgram &rank : program.ranks) {
    std::vector<std::string> steps;
    for (const Action &action : rank.actions) {
      if (action.kind == ActionKind::Send || action.kind == ActionKind::Recv)
        continue;
      std::string text = std::string(stringify(action.kind)) + " " +
                         std::to_string(action.stage);
      if (isCompute(action.kind))
        text += " " + std::to_string(action.microbatch);
      steps.push_back(text);
    }
    order.push_back(steps);
  }
  return order;
}

/// The largest peak stash over the ranks.
inline int maxStash(const StepTimeline &result) {
  int peak = 0;
  for (const RankTiming &rank : result.ranks)
    peak = std::max(peak, rank.peakStash);
  return peak;
}

} // namespace pipewave::schedule::test

#endif // PIPEWAVE_UNITTESTS_SCHEDULE_SCHEDULEUTIL_H
