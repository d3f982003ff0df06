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

#include "ComputeOrder.h"

#include <algorithm>

namespace pipewave::schedule {

BuildResult buildInterleaved1F1B(int numRanks, int chunksPerRank,
                                 int numMicrobatches) {
  std::string prefix = "interleaved-1f1b: ";
  for (auto error : {detail::checkAtLeast("ranks", numRanks),
                     detail::checkAtLeast("chunks per rank", chunksPerRank),
                     detail::checkAtLeast("microbatches", numMicrobatches)})
    if (error)
      return BuildResult::failure(prefix + *error);
  if (numMicrobatches % numRanks != 0)
    return BuildResult::failure(
        prefix + "the number of microbatches (" +
        std::to_string(numMicrobatches) +
        ") must be a multiple of the number of ranks (" +
        std::to_string(numRanks) + ")");

  int P = numRanks, v = chunksPerRank, M = numMicrobatches;
  Program skeleton =
      detail::makeSkeleton(P * v, M, P, "interleaved-1f1b", [&](int r) {
        std::vector<int> stages;
        for (int c = 0; c < v; ++c)
          stages.push_back(c * P + r);
        return stages;
      });

  int total = M * v;
  detail::ComputeOrder order(P);
  for (int r = 0; r < P; ++r) {
    auto micro = [&](int k) { return (k / (P * v)) * P + k % P; };
    auto forward = [&](int k) {
      int chunk = (k / P) % v;
      return detail::Step{ActionKind::Forward, chunk * P + r, micro(k)};
    };
    auto backward = [&](int k) {
      int chunk = v - 1 - (k / P) % v;
      return detail::Step{ActionKind::Backward, chunk * P + r, micro(k)};
    };
    int warmup =
        M == P ? total : std::min((P - r - 1) * 2 + (v - 1) * P, total);
    std::vector<detail::Step> &steps = order[r];
    for (int k = 0; k < warmup; ++k)
      steps.push_back(forward(k));
    for (int i = 0; i < total - warmup; ++i) {
      steps.push_back(forward(warmup + i));
      steps.push_back(backward(i));
    }
    for (int k = total - warmup; k < total; ++k)
      steps.push_back(backward(k));
    for (int c = 0; c < v; ++c)
      steps.push_back({ActionKind::OptimizerStep, c * P + r, -1});
  }
  BuildResult result = detail::lowerComputeOrder(skeleton, order);
  if (!result)
    result.error = prefix + result.error;
  return result;
}

} // namespace pipewave::schedule
