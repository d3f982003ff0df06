//===- Generate.h - Pipeline schedule generators ----------------*- C++ -*-===//
//
// Generators for the built-in schedules. Every generator places stage r on
// rank r (no data parallelism) and emits programs that verify() accepts under
// rendezvous (synchronous, blocking) send semantics.
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

} // namespace pipewave::schedule

#endif // PIPEWAVE_SCHEDULE_GENERATE_H
