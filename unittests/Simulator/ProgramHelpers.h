//===- ProgramHelpers.h - Schedules and their actions for the tests -*- C++
//-*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The simulator tests' schedules: a GPipe or 1F1B program, and the index of
// one of its actions.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_UNITTESTS_SIMULATOR_PROGRAMHELPERS_H
#define PIPEWAVE_UNITTESTS_SIMULATOR_PROGRAMHELPERS_H

#include "pipewave/Schedule/Generate.h"

#include "gtest/gtest.h"

#include <string>

namespace pipewave::sim::test {

/// The "gpipe" (else 1F1B) program of `stages` stages and `microbatches`.
inline schedule::Program build(const std::string &name, int stages,
                               int microbatches) {
  schedule::BuildResult built = name == "gpipe"
                                    ? schedule::buildGPipe(stages, microbatches)
                                    : schedule::build1F1B(stages, microbatches);
  EXPECT_TRUE(built) << built.error;
  return built ? *built.program : schedule::Program();
}

/// Index of the first action of `rank` with the given kind, stage and
/// microbatch (-1 if none).
inline int find(const schedule::Program &program, int rank,
                schedule::ActionKind kind, int stage, int microbatch) {
  const auto &actions = program.ranks[rank].actions;
  for (size_t i = 0; i < actions.size(); ++i)
    if (actions[i].kind == kind && actions[i].stage == stage &&
        actions[i].microbatch == microbatch)
      return static_cast<int>(i);
  return -1;
}

} // namespace pipewave::sim::test

#endif // PIPEWAVE_UNITTESTS_SIMULATOR_PROGRAMHELPERS_H
