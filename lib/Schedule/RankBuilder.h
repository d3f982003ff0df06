//===- RankBuilder.h - Emits the actions of one rank ------------*- C++ -*-===//
//
// Internal helper of the generators: appends compute actions to a rank's
// program together with the Send/Recv actions their cross-rank data needs,
// following the conventions documented in Program.h.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_SCHEDULE_RANKBUILDER_H
#define PIPEWAVE_LIB_SCHEDULE_RANKBUILDER_H

#include "pipewave/Schedule/Program.h"

#include <optional>
#include <string>

namespace pipewave::schedule::detail {

/// Checks the arguments common to all generators; returns an error message
/// when they are invalid.
std::optional<std::string> checkShape(int numStages, int numMicrobatches);

/// A program with stage r on rank r and no actions yet.
Program makeLinearProgram(int numStages, int numMicrobatches,
                          std::string schedule, bool forwardOnly = false);

/// Appends actions to rank `rank` of a program whose stage placement is
/// already set. Message peers are the first rank holding the neighbouring
/// stage.
class RankBuilder {
public:
  RankBuilder(Program &program, int rank);

  /// Recv(Activation, s, m) if stage s-1 lives on another rank.
  void recvActivation(int stage, int microbatch);
  /// Send(Activation, s, m) if stage s+1 lives on another rank.
  void sendActivation(int stage, int microbatch);
  /// Recv(Gradient, s, m) if stage s+1 lives on another rank.
  void recvGradient(int stage, int microbatch);
  /// Send(Gradient, s, m) if stage s-1 lives on another rank.
  void sendGradient(int stage, int microbatch);

  /// Appends a compute action (F, B, I or W) alone.
  void compute(ActionKind kind, int stage, int microbatch);
  /// recvActivation + F + sendActivation.
  void forward(int stage, int microbatch);
  /// recvGradient + B + sendGradient.
  void backward(int stage, int microbatch);
  /// OptimizerStep for `stage`.
  void optimizerStep(int stage);

private:
  void message(ActionKind kind, Payload payload, int stage, int microbatch,
               int peerStage, int boundary);

  Program &program;
  RankProgram &rankProgram;
};

} // namespace pipewave::schedule::detail

#endif // PIPEWAVE_LIB_SCHEDULE_RANKBUILDER_H
