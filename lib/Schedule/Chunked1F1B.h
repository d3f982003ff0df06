//===- Chunked1F1B.h - 1F1B over several chunks per rank --------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Internal helper of the interleaved and Hanayo generators, which differ
// only in where the chunks sit and in which order a rank takes its chunk
// forwards and backwards: both check their arguments the same way (M a
// multiple of the ranks, as Megatron requires), run w warm-up forwards, then
// alternate one forward and one backward, then the remaining backwards, then
// an optimizer step per chunk, and add the messages with lowerComputeOrder.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_SCHEDULE_CHUNKED1F1B_H
#define PIPEWAVE_LIB_SCHEDULE_CHUNKED1F1B_H

#include "ComputeOrder.h"

#include <functional>
#include <string>
#include <vector>

namespace pipewave::schedule::detail {

/// One rank's chunk forwards and backwards, each in the order it runs them,
/// and its warm-up forward count (capped at the forwards by the caller).
struct ChunkOrder {
  std::vector<Step> forwards;
  std::vector<Step> backwards;
  int warmup = 0;
};

/// Builds a chunked 1F1B named `name` ("hanayo") over `numStages` stages on
/// `numRanks` ranks: rank r holds `stagesOfRank(r)` (sorted) and runs
/// `orderOf(r, its stages)` in 1F1B order. `optionWhat` and `option` name
/// and give the shape option for the argument checks ("waves", W).
BuildResult buildChunked1F1B(
    const std::string &name, const char *optionWhat, int option, int numRanks,
    int numStages, int numMicrobatches,
    const std::function<std::vector<int>(int)> &stagesOfRank,
    const std::function<ChunkOrder(int, const std::vector<int> &)> &orderOf);

} // namespace pipewave::schedule::detail

#endif // PIPEWAVE_LIB_SCHEDULE_CHUNKED1F1B_H
