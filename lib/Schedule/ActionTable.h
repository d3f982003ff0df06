//===- ActionTable.h - Index of per-microbatch actions ----------*- C++ -*-===//
//
// Internal helper of the verifier and the simulator: finds, in constant time,
// where a rank's F/B/I/W/Send/Recv action for a given (stage, microbatch)
// sits in its action list.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_SCHEDULE_ACTIONTABLE_H
#define PIPEWAVE_LIB_SCHEDULE_ACTIONTABLE_H

#include "pipewave/Schedule/Program.h"

#include <vector>

namespace pipewave::schedule::detail {

/// Positions of the per-microbatch actions (F, B, I, W, Send, Recv) of one
/// rank, keyed by (kind, payload, stage, microbatch). Actions whose stage is
/// not held by the rank or whose microbatch is out of range are ignored. The
/// memory is proportional to (held stages) x (microbatches).
class ActionTable {
public:
  ActionTable(const Program &program, const RankProgram &rank);

  /// Index of the first matching action, or -1 if there is none.
  int first(ActionKind kind, int stage, int microbatch,
            Payload payload = Payload::Activation) const;

  /// Number of matching actions.
  int count(ActionKind kind, int stage, int microbatch,
            Payload payload = Payload::Activation) const;

  /// The action producing the backward data of (stage, microbatch): the
  /// first B if there is one, else the first I; -1 if neither exists.
  int backward(int stage, int microbatch) const;

  /// True if `action` is indexed by this table.
  bool isIndexed(const Action &action) const;

private:
  /// Slot of the key, or -1 if the key is not indexed.
  int slot(ActionKind kind, int stage, int microbatch, Payload payload) const;

  int numMicrobatches;
  int numHeld;
  /// stage -> position in the rank's stage list, or -1.
  std::vector<int> localStage;
  std::vector<int> firstIndex;
  std::vector<int> counts;
};

} // namespace pipewave::schedule::detail

#endif // PIPEWAVE_LIB_SCHEDULE_ACTIONTABLE_H
