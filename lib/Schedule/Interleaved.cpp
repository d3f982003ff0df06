//===- Interleaved.cpp - Interleaved 1F1B schedule generator --------------===//
//
// Megatron-LM's interleaved 1F1B (forward_backward_pipelining_with_
// interleaving): P ranks hold v model chunks each, stage k = c*P + r being
// chunk c of rank r. Microbatches go through the chunks in groups of P: the
// k-th forward of a rank is chunk (k / P) mod v of microbatch
// (k / (P*v)) * P + k mod P, and its k-th backward the same with the chunk
// reversed (v - 1 - (k / P) mod v). Rank r runs
//   w = min((P - r - 1) * 2 + (v - 1) * P, M*v) warm-up forwards
// (all M*v when M == P), then alternates one forward and one backward, then
// the remaining backwards, then its optimizer steps.
//
// With tF and tB the forward and backward time of one chunk, every rank
// idles (P - 1)(tF + tB) per step, so the unit-cost bubble fraction (tB =
// 2 tF) is (P - 1) / (v*M + P - 1). Peak stash on rank r: w + 1 chunk
// activations (w when w = M*v).
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Registry.h"

#include "Chunked1F1B.h"

#include <algorithm>

namespace pipewave::schedule {

BuildResult buildInterleaved1F1B(int numRanks, int chunksPerRank,
                                 int numMicrobatches) {
  int P = numRanks, v = chunksPerRank, M = numMicrobatches;
  return detail::buildChunked1F1B(
      "interleaved-1f1b", "chunks per rank", v, P, P * v, M,
      [&](int r) {
        std::vector<int> stages;
        for (int c = 0; c < v; ++c)
          stages.push_back(c * P + r);
        return stages;
      },
      [&](int r, const std::vector<int> &) {
        int total = M * v;
        auto micro = [&](int k) { return (k / (P * v)) * P + k % P; };
        detail::ChunkOrder order;
        for (int k = 0; k < total; ++k) {
          int forward = (k / P) % v, backward = v - 1 - (k / P) % v;
          order.forwards.push_back(
              {ActionKind::Forward, forward * P + r, micro(k)});
          order.backwards.push_back(
              {ActionKind::Backward, backward * P + r, micro(k)});
        }
        order.warmup = M == P ? total : (P - r - 1) * 2 + (v - 1) * P;
        return order;
      });
}

ScheduleFamily interleavedFamily() {
  ScheduleFamily family;
  family.name = "interleaved";
  family.aliases = {"interleaved-1f1b"};
  family.summary = "Megatron-LM's interleaved 1F1B: v chunks per rank";
  family.optionName = "chunks";
  family.defaultOption = 2;
  family.searchOptions = {2, 4};
  family.tableOptions = {2};
  family.ranks = [](int numStages, int chunks,
                    std::string &error) -> std::optional<int> {
    if (chunks < 1) {
      error = "schedule=interleaved needs chunks >= 1, got chunks=" +
              std::to_string(chunks);
      return std::nullopt;
    }
    if (numStages % chunks != 0) {
      error = "schedule=interleaved chunks=" + std::to_string(chunks) +
              " needs a stage count that is a multiple of chunks (" +
              std::to_string(chunks) +
              " stages per rank), but the module has " +
              detail::describeStages(numStages);
      return std::nullopt;
    }
    return numStages / chunks;
  };
  family.stagesPerRank = [](int chunks) { return chunks; };
  family.build = [](const FamilyBuildArgs &args) {
    return buildInterleaved1F1B(args.numRanks, args.option,
                                args.numMicrobatches);
  };
  family.bubble = [](int ranks, int chunks, int microbatches) {
    double p = ranks, m = microbatches;
    return (p - 1) / (chunks * m + p - 1);
  };
  return family;
}

} // namespace pipewave::schedule
