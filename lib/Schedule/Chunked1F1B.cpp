//===- Chunked1F1B.cpp - 1F1B over several chunks per rank ----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "Chunked1F1B.h"

#include <algorithm>

namespace pipewave::schedule::detail {

BuildResult buildChunked1F1B(
    const std::string &name, const char *optionWhat, int option, int numRanks,
    int numStages, int numMicrobatches,
    const std::function<std::vector<int>(int)> &stagesOfRank,
    const std::function<ChunkOrder(int, const std::vector<int> &)> &orderOf) {
  std::string prefix = name + ": ";
  for (auto error :
       {checkAtLeast("ranks", numRanks), checkAtLeast(optionWhat, option),
        checkAtLeast("microbatches", numMicrobatches)})
    if (error)
      return BuildResult::failure(prefix + *error);
  if (numMicrobatches % numRanks != 0)
    return BuildResult::failure(
        prefix + "the number of microbatches (" +
        std::to_string(numMicrobatches) +
        ") must be a multiple of the number of ranks (" +
        std::to_string(numRanks) + ")");

  Program skeleton =
      makeSkeleton(numStages, numMicrobatches, numRanks, name, stagesOfRank);
  ComputeOrder order(numRanks);
  for (int r = 0; r < numRanks; ++r) {
    const std::vector<int> &stages = skeleton.ranks[r].stages;
    ChunkOrder chunks = orderOf(r, stages);
    int total = static_cast<int>(chunks.forwards.size());
    int warmup = std::min(chunks.warmup, total);
    std::vector<Step> &steps = order[r];
    for (int k = 0; k < warmup; ++k)
      steps.push_back(chunks.forwards[k]);
    for (int i = 0; i < total - warmup; ++i) {
      steps.push_back(chunks.forwards[warmup + i]);
      steps.push_back(chunks.backwards[i]);
    }
    for (int k = total - warmup; k < total; ++k)
      steps.push_back(chunks.backwards[k]);
    for (int stage : stages)
      steps.push_back({ActionKind::OptimizerStep, stage, -1});
  }
  BuildResult result = lowerComputeOrder(skeleton, order);
  if (!result)
    result.error = prefix + result.error;
  return result;
}

} // namespace pipewave::schedule::detail
