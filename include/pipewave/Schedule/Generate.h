//===- Generate.h - Pipeline schedule generators ----------------*- C++ -*-===//
//
// Generators for the built-in schedules. GPipe, 1F1B and ZB-H1 place stage r
// on rank r; interleaved 1F1B, Hanayo and ZB-V place several stages on each
// rank. There is no data parallelism. Every generator emits programs that
// verify() accepts under rendezvous (synchronous, blocking) send semantics.
//
// Bubble formulas below are for one training step with uniform stages, free
// communication and tB = 2 tF (tB = tI + tW with tF = tI = tW for the split
// schedules); docs/schedules.md tabulates them against simulate().
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SCHEDULE_GENERATE_H
#define PIPEWAVE_SCHEDULE_GENERATE_H

#include "pipewave/Schedule/Program.h"

#include <optional>
#include <string>

namespace pipewave::schedule {

/// Result of a generator: either a program, or (when `program` is empty) a
/// one-line error explaining why the arguments were rejected.
struct BuildResult {
  std::optional<Program> program;
  std::string error;

  /// True when a program was built.
  explicit operator bool() const { return program.has_value(); }

  static BuildResult success(Program program) {
    BuildResult result;
    result.program = std::move(program);
    return result;
  }
  static BuildResult failure(std::string error) {
    BuildResult result;
    result.error = std::move(error);
    return result;
  }
};

/// GPipe: all forwards (microbatches 0..M-1), then all backwards (0..M-1),
/// then the optimizer step. With `forwardOnly`, only the forwards and their
/// activation messages (an inference program). Requires numStages >= 1 and
/// numMicrobatches >= 1.
BuildResult buildGPipe(int numStages, int numMicrobatches,
                       bool forwardOnly = false);

/// 1F1B with DAPPLE early backward (Megatron's non-interleaved schedule):
/// stage s runs w = min(S-s-1, M) warm-up forwards, M-w steady (F, B)
/// pairs and w cool-down backwards, then the optimizer step, so at most
/// min(S-s, M) microbatches are in flight on stage s. Requires
/// numStages >= 1 and numMicrobatches >= 1.
BuildResult build1F1B(int numStages, int numMicrobatches);

/// Megatron-LM's interleaved 1F1B: `numRanks` ranks P hold `chunksPerRank`
/// chunks v each, stage c*P + r (chunk c) on rank r, S = P*v stages.
/// Microbatches go through the chunks in groups of P; rank r runs
/// (P-r-1)*2 + (v-1)*P warm-up forwards (all of them when M == P), then
/// alternates F and B. Every rank idles (P-1)(tF + tB) for chunk times tF,
/// tB: bubble fraction (P-1) / (v*M + P-1). Requires numMicrobatches to be
/// a multiple of numRanks (as Megatron does), all arguments >= 1.
BuildResult buildInterleaved1F1B(int numRanks, int chunksPerRank,
                                 int numMicrobatches);

/// Hanayo's wave-like pipeline (Liu et al., SC'23): S = 2*W*P stages for P =
/// `numRanks`, W = `waves`; in wave w stage 2wP + d is on rank d (down) and
/// stage 2wP + P + j on rank P-1-j (up), so each rank holds 2W chunks. A
/// 1F1B in wave order (see lib/Schedule/Hanayo.cpp): microbatches enter in
/// groups of P, rank r runs min(2WP, 2WM - P) + r warm-up forwards, then
/// alternates F and B. Every rank idles (P-1)(2 tF + tB) for chunk times
/// tF, tB = 2 tF: bubble fraction 2(P-1) / (3*W*M + 2(P-1)), decreasing
/// with W. Rank r stashes at most min(2WP, 2WM - P) + r + 1 chunk
/// activations. Requires numMicrobatches to be a multiple of numRanks, all
/// arguments >= 1.
BuildResult buildHanayo(int numRanks, int waves, int numMicrobatches);

/// ZB-H1 (Qi et al., ICLR'24): stage r on rank r, backward split into I and
/// W; stage i runs F(x), I(x - (S-1-i)), W(x - (S-1)) for x = 0, 1, ...
/// At most min(S, M) microbatches are in flight (F done, W not done) on any
/// stage, 1F1B's peak. With tF = tI = tW and M >= S every stage idles
/// (S-1) tF, a third of 1F1B's (S-1)(tF + tI + tW): makespan 3M + S - 1.
BuildResult buildZeroBubbleH1(int numStages, int numMicrobatches);

/// ZB-V (Qi et al., ICLR'24): rank r holds stages r and 2P-1-r (P =
/// `numRanks`, S = 2P), backward split into I and W, at most 2P chunk
/// activations in flight per rank (1F1B's peak). Built by a greedy list
/// scheduler (see lib/Schedule/ZeroBubbleV.cpp). With tF = tI = tW the
/// bubble fraction is at least (P-1) / (6M + P-1) for any schedule; this one
/// reaches it for P in {2, 3, 4, 8}, M >= 2P, and stays within ceil(P/4)
/// time units of it for P <= 16.
BuildResult buildZeroBubbleV(int numRanks, int numMicrobatches);

} // namespace pipewave::schedule

#endif // PIPEWAVE_SCHEDULE_GENERATE_H
