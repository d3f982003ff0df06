//===- Verify.h - Pipeline schedule program verifier ------------*- C++ -*-===//
//
// verify() checks a Program in five categories and stops at the first one
// that fails, since later checks assume the earlier ones hold:
//   1. structure    - stage placement, stage/microbatch/peer ranges,
//                     AllReduce groups;
//   2. completeness - every held (stage, microbatch) has one F and, unless
//                     forward-only, one B or one I plus one W; AllReduce for
//                     replicated stages; at most one OptimizerStep per stage,
//                     after the stage's backward actions;
//   3. order        - local data dependencies on each rank, including the
//                     Send/Recv that every cross-rank edge needs;
//   4. matching     - every Send has exactly one consistent Recv and vice
//                     versa; AllReduce participants agree;
//   5. deadlock     - all ranks run to completion under rendezvous
//                     (synchronous, blocking) sends, the strictest blocking
//                     semantics, so a passing program is also safe with eager
//                     or buffered sends.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SCHEDULE_VERIFY_H
#define PIPEWAVE_SCHEDULE_VERIFY_H

#include "pipewave/Schedule/Program.h"

#include <string>
#include <vector>

namespace pipewave::schedule {

/// One problem found by verify().
struct Diagnostic {
  /// The rank concerned, or -1 for a program-level problem.
  int rank = -1;
  /// Index of the offending action in the rank's list, or -1 if the problem
  /// is not about one action.
  int actionIndex = -1;
  /// Self-contained message naming the rank and, where relevant, the action
  /// (via describe()), e.g. "rank 1: stage 1 microbatch 3 has no backward
  /// (B or I+W)".
  std::string message;
};

/// Verifies `program`; returns no diagnostics iff it is valid. The cost is
/// roughly linear in the number of actions.
std::vector<Diagnostic> verify(const Program &program);

} // namespace pipewave::schedule

#endif // PIPEWAVE_SCHEDULE_VERIFY_H
