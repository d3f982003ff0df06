//===- Program.h - Pipeline schedule programs -------------------*- C++ -*-===//
//
// A pipeline schedule is a Program: for every rank, the ordered list of
// actions (compute, point-to-point messages, collectives) that rank executes
// during one training (or inference) step.
//
// Send/Recv conventions
// ---------------------
// * `stage` of a Send/Recv is the LOCAL stage, on the rank that executes it,
//   the message belongs to.
// * Send(Activation, s, m) carries the output of F(s, m) to a rank holding
//   stage s+1 and matches Recv(Activation, s+1, m) there, which is the input
//   of F(s+1, m).
// * Send(Gradient, s, m) carries the input gradient produced by B(s, m) (or
//   I(s, m)) to a rank holding stage s-1 and matches Recv(Gradient, s-1, m)
//   there, which is the output gradient that B(s-1, m) / I(s-1, m) needs.
// * When stages s and s+1 are held by the same rank no Send/Recv is emitted
//   across their boundary: the data stays local.
// * A Send and its Recv carry the same tag. Generated programs use
//   messageTag(), which is unique per (payload, boundary, microbatch).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SCHEDULE_PROGRAM_H
#define PIPEWAVE_SCHEDULE_PROGRAM_H

#include <cstdint>
#include <string>
#include <vector>

namespace pipewave::schedule {

/// What an action does.
enum class ActionKind {
  Forward,        ///< F: forward of one microbatch through one stage.
  Backward,       ///< B: full backward (input and weight gradients).
  BackwardInput,  ///< I: backward for the input gradient only.
  BackwardWeight, ///< W: backward for the weight gradient only.
  Send,           ///< Point-to-point send to `peer`.
  Recv,           ///< Point-to-point receive from `peer`.
  AllReduce,      ///< Gradient all-reduce among the replicas of a stage.
  OptimizerStep,  ///< Parameter update of a stage.
  TiedAllReduce   ///< Gradient sum of one parameter over the ranks holding
                  ///< the stages that use it (a tied parameter).
};

/// What a Send/Recv carries.
enum class Payload { Activation, Gradient };

/// One step of a rank's program.
struct Action {
  ActionKind kind = ActionKind::Forward;
  /// The stage this action belongs to on its rank.
  int stage = -1;
  /// The microbatch; -1 for AllReduce, OptimizerStep and TiedAllReduce.
  /// TiedAllReduce: `stage` is the lowest stage of `users` held by the rank,
  /// the stage whose gradients hold the rank's copy of the parameter and
  /// whose OptimizerStep updates it.
  int microbatch = -1;
  /// Send/Recv only: what the message carries.
  Payload payload = Payload::Activation;
  /// Send/Recv only: the peer rank.
  int peer = -1;
  /// Send/Recv only: the message tag.
  int64_t tag = -1;
  /// AllReduce: the participating ranks (data-parallel replicas of
  /// `stage`), sorted. TiedAllReduce: the ranks holding a stage of `users`
  /// in one data-parallel replica, sorted.
  std::vector<int> group = {};
  /// TiedAllReduce only: the name of the parameter.
  std::string param = {};
  /// TiedAllReduce only: every stage that uses the parameter, sorted.
  std::vector<int> users = {};
};

/// The program of one rank.
struct RankProgram {
  int rank = 0;
  /// Stages held by this rank, sorted.
  std::vector<int> stages = {};
  /// Actions, in execution order.
  std::vector<Action> actions = {};
};

/// The programs of all ranks for one step.
struct Program {
  int numStages = 0;
  int numMicrobatches = 0;
  /// Inference: only F and activation Send/Recv.
  bool forwardOnly = false;
  /// Name of the schedule that produced the program ("gpipe", "1f1b",
  /// "file", ...).
  std::string schedule = {};
  /// Indexed by rank id.
  std::vector<RankProgram> ranks = {};
};

/// Short name of an action kind: "F", "B", "I", "W", "send", "recv",
/// "allreduce", "optimizer", "tied".
const char *stringify(ActionKind kind);

/// Short name of a payload: "act" or "grad".
const char *stringify(Payload payload);

/// True for F, B, I and W.
bool isCompute(ActionKind kind);

/// One-line description of an action for diagnostics, e.g.
/// "F stage 1 mb 3", "send act stage 0 mb 3 to rank 1 (tag 3)",
/// "recv grad stage 0 mb 2 from rank 1 (tag 17)",
/// "allreduce stage 0 ranks [0, 4]", "optimizer stage 0",
/// "tied 'wte' stage 0 of stages [0, 3] ranks [0, 1]".
std::string describe(const Action &action);

/// "[0, 3]".
std::string describeList(const std::vector<int> &values);

/// Tag of the message of kind `payload` crossing the boundary between stages
/// `boundary` and `boundary + 1` for `microbatch`:
/// ((payload == Gradient ? 1 : 0) * (numStages - 1) + boundary)
///   * numMicrobatches + microbatch.
int64_t messageTag(Payload payload, int boundary, int microbatch, int numStages,
                   int numMicrobatches);

/// True if `rank` holds `stage` (binary search over the sorted stage list).
bool holdsStage(const RankProgram &rank, int stage);

/// The first rank (index into Program::ranks) holding `stage`, or -1.
int rankOfStage(const Program &program, int stage);

/// All ranks (indices into Program::ranks) holding `stage`, ascending.
std::vector<int> ranksOfStage(const Program &program, int stage);

} // namespace pipewave::schedule

#endif // PIPEWAVE_SCHEDULE_PROGRAM_H
