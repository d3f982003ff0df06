//===- GPipe.cpp - GPipe schedule generator -------------------------------===//
//
// Every rank runs all its forwards, then all its backwards, in microbatch
// order. Across any stage boundary both neighbours therefore see the same
// message order (all activations, then all gradients), which is what makes
// the program deadlock-free under rendezvous sends.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Registry.h"

#include "RankBuilder.h"

namespace pipewave::schedule {

BuildResult buildGPipe(int numStages, int numMicrobatches, bool forwardOnly) {
  if (auto error = detail::checkShape(numStages, numMicrobatches))
    return BuildResult::failure("gpipe: " + *error);

  Program program = detail::makeLinearProgram(numStages, numMicrobatches,
                                              "gpipe", forwardOnly);
  for (int stage = 0; stage < numStages; ++stage) {
    detail::RankBuilder builder(program, /*rank=*/stage);
    for (int m = 0; m < numMicrobatches; ++m)
      builder.forward(stage, m);
    if (forwardOnly)
      continue;
    for (int m = 0; m < numMicrobatches; ++m)
      builder.backward(stage, m);
    builder.optimizerStep(stage);
  }
  return BuildResult::success(std::move(program));
}

ScheduleFamily gpipeFamily() {
  ScheduleFamily family;
  family.name = "gpipe";
  family.summary = "GPipe: all forwards, then all backwards";
  family.build = [](const FamilyBuildArgs &args) {
    return buildGPipe(args.numStages, args.numMicrobatches, args.forwardOnly);
  };
  family.bubble = [](int ranks, int, int microbatches) {
    double p = ranks, m = microbatches;
    return (p - 1) / (m + p - 1);
  };
  return family;
}

} // namespace pipewave::schedule
