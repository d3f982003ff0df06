//===- Hanayo.cpp - Hanayo wave-like schedule generator -------------------===//
//
// Hanayo (Liu et al., SC'23): with P ranks and W waves the model is cut into
// S = 2*W*P stages that run down the ranks and back up, W times: for wave w,
// stage 2wP + d is on rank d (down) and stage 2wP + P + j on rank P - 1 - j
// (up). Each rank holds 2W stages ("chunks"); the stages at the turns of a
// wave (P-1 and P, 2P-1 and 2P, ...) sit on the same rank and hand their data
// over locally.
//
// What this generator implements (a 1F1B in wave order)
// -----------------------------------------------------
// Microbatches enter in groups of P, two forward-times apart: microbatch
// m = g*P + i (group g, 0 <= i < P) reaches stage k at the nominal time
//   tF(k, m) = 2WP*g + 2i + k          (one forward = 1)
// and its backward leaves stage k at
//   tB(k, m) = 4WP*g + 4i + 2(S-1-k)   (one backward = 2).
// These nominal times never collide on a rank (the two chunks a rank holds
// in a wave have stage numbers of different parity, and within a direction
// they are 2P apart), so they give each rank a forward order and a backward
// order: its F actions sorted by tF and its B actions sorted by tB (the wave
// order of the paper's figures, one group of P microbatches at a time). Like
// 1F1B with early backward, rank r then runs
//   w_r = min(2WP, 2WM - P) + r   warm-up forwards (capped at its 2WM),
// alternates one forward and one backward, runs the remaining backwards and
// its optimizer steps. Requires M to be a multiple of P (as Megatron's
// interleaved schedule does).
//
// Bubble achieved
// ---------------
// With tF and tB = 2 tF the time of one chunk's forward and backward (a chunk
// is 1/(2W) of a full stage), every rank idles (P - 1)(2 tF + tB) = 4(P-1) tF
// per step, for every M that is a multiple of P:
//   makespan = 2WM (tF + tB) + (P - 1)(2 tF + tB),
//   bubble fraction = 4(P-1) / (6WM + 4(P-1)) = 2(P-1) / (3WM + 2(P-1)),
// which falls with W for fixed P and M. (For other ratios the order, built
// for tB = 2 tF, idles 2(P - 1) max(tF, tB).) Compared with interleaved 1F1B
// over v = 2W chunks, which idles (P - 1)(tF + tB), the extra (P - 1) tF is
// the forward ramp of the V: rank r gets its first up-going forward only at
// time 2P - 1 - r.
//
// Peak stash on rank r: its warm-up forwards plus one, min(2WP, 2WM - P) +
// r + 1 chunk activations, i.e. about P full stages on every rank: the peak
// of 1F1B, which 1F1B reaches on its first rank only.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Registry.h"

#include "Chunked1F1B.h"

#include <algorithm>
#include <cstdint>

namespace pipewave::schedule {

namespace {

/// The rank of `stage` in the wave placement.
int hanayoRankOfStage(int numRanks, int stage) {
  int P = numRanks;
  int within = stage % (2 * P);
  return within < P ? within : 2 * P - 1 - within;
}

} // namespace

BuildResult buildHanayo(int numRanks, int waves, int numMicrobatches) {
  int P = numRanks, W = waves, M = numMicrobatches, S = 2 * W * P;
  auto forwardTime = [&](int k, int m) -> int64_t {
    return int64_t(2) * W * P * (m / P) + 2 * (m % P) + k;
  };
  auto backwardTime = [&](int k, int m) -> int64_t {
    return int64_t(4) * W * P * (m / P) + 4 * (m % P) + 2 * (S - 1 - k);
  };
  return detail::buildChunked1F1B(
      "hanayo", "waves", W, P, S, M,
      [&](int r) {
        std::vector<int> stages;
        for (int k = 0; k < S; ++k)
          if (hanayoRankOfStage(P, k) == r)
            stages.push_back(k);
        return stages;
      },
      [&](int r, const std::vector<int> &stages) {
        detail::ChunkOrder order;
        for (int k : stages)
          for (int m = 0; m < M; ++m) {
            order.forwards.push_back({ActionKind::Forward, k, m});
            order.backwards.push_back({ActionKind::Backward, k, m});
          }
        std::sort(order.forwards.begin(), order.forwards.end(),
                  [&](const detail::Step &a, const detail::Step &b) {
                    return forwardTime(a.stage, a.microbatch) <
                           forwardTime(b.stage, b.microbatch);
                  });
        std::sort(order.backwards.begin(), order.backwards.end(),
                  [&](const detail::Step &a, const detail::Step &b) {
                    return backwardTime(a.stage, a.microbatch) <
                           backwardTime(b.stage, b.microbatch);
                  });
        order.warmup = std::min(2 * W * P, 2 * W * M - P) + r;
        return order;
      });
}

ScheduleFamily hanayoFamily() {
  ScheduleFamily family;
  family.name = "hanayo";
  family.summary = "Hanayo's wave-like pipeline: W waves, 2W chunks per rank";
  family.optionName = "waves";
  family.defaultOption = 1;
  family.searchOptions = {1, 2};
  family.tableOptions = {1, 2, 4};
  family.ranks = [](int numStages, int waves,
                    std::string &error) -> std::optional<int> {
    if (waves < 1) {
      error = "schedule=hanayo needs waves >= 1, got waves=" +
              std::to_string(waves);
      return std::nullopt;
    }
    int perRank = 2 * waves;
    if (numStages % perRank != 0) {
      error = "schedule=hanayo waves=" + std::to_string(waves) +
              " needs a stage count that is a multiple of 2 x waves (" +
              std::to_string(perRank) +
              " stages per rank), but the module has " +
              detail::describeStages(numStages);
      return std::nullopt;
    }
    return numStages / perRank;
  };
  family.stagesPerRank = [](int waves) { return 2 * waves; };
  family.build = [](const FamilyBuildArgs &args) {
    return buildHanayo(args.numRanks, args.option, args.numMicrobatches);
  };
  family.bubble = [](int ranks, int waves, int microbatches) {
    double p = ranks, m = microbatches;
    return 2 * (p - 1) / (3 * waves * m + 2 * (p - 1));
  };
  return family;
}

} // namespace pipewave::schedule
