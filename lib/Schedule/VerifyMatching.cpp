//===- VerifyMatching.cpp - Verifier: message and collective matching -----===//

#include "VerifyChecks.h"

namespace pipewave::schedule::detail {

namespace {

/// The stage on the other side of a Send/Recv of `action`: s+1 for
/// activations sent and gradients received, s-1 otherwise.
int peerStage(const Action &action) {
  bool downstream = (action.kind == ActionKind::Send) ==
                    (action.payload == Payload::Activation);
  return downstream ? action.stage + 1 : action.stage - 1;
}

/// Checks a Send/Recv against the conventions of Program.h; returns false
/// (after reporting) if it violates them.
bool checkConvention(const Program &program, int rank, int index,
                     Diagnostics &diagnostics) {
  const Action &action = program.ranks[rank].actions[index];
  int other = peerStage(action);
  std::string where = quote(program, rank, index);
  if (other < 0 || other >= program.numStages) {
    report(diagnostics, rank, index,
           where + " crosses no stage boundary: there is no stage " +
               std::to_string(other));
    return false;
  }
  if (holdsStage(program.ranks[rank], other)) {
    report(diagnostics, rank, index,
           where + " is not needed: stage " + std::to_string(other) +
               " is on rank " + std::to_string(rank) + " too");
    return false;
  }
  if (!holdsStage(program.ranks[action.peer], other)) {
    report(diagnostics, rank, index,
           where + ": rank " + std::to_string(action.peer) +
               " does not hold stage " + std::to_string(other));
    return false;
  }
  return true;
}

void checkMessage(const Program &program, const Links &links, int rank,
                  int index, Diagnostics &diagnostics) {
  if (!checkConvention(program, rank, index, diagnostics))
    return;
  const Action &action = program.ranks[rank].actions[index];
  bool isSend = action.kind == ActionKind::Send;
  std::string where = quote(program, rank, index);
  std::string peer = "rank " + std::to_string(action.peer);
  int count = links.matchCount[rank][index];
  if (count == 0) {
    report(diagnostics, rank, index,
           where + " has no matching " + (isSend ? "recv" : "send") + " on " +
               peer);
    return;
  }
  if (count > 1) {
    report(diagnostics, rank, index,
           where + " matches " + std::to_string(count) +
               (isSend ? " recvs" : " sends") + " on " + peer +
               " (same rank pair and tag)");
    return;
  }
  // Report inconsistent pairs once, from the sending side.
  if (!isSend)
    return;
  const Action &recv =
      program.ranks[action.peer].actions[links.partner[rank][index]];
  int expectedStage = peerStage(action);
  if (recv.payload != action.payload || recv.microbatch != action.microbatch ||
      recv.stage != expectedStage)
    report(diagnostics, rank, index,
           where + " is received by " +
               quote(program, action.peer, links.partner[rank][index]) +
               " on " + peer + ", which should be a recv " +
               stringify(action.payload) + " stage " +
               std::to_string(expectedStage) + " mb " +
               std::to_string(action.microbatch));
}

void checkAllReduce(const Program &program, const Links &links, int rank,
                    int index, Diagnostics &diagnostics) {
  const Action &action = program.ranks[rank].actions[index];
  int ordinal = links.ordinal[rank][index];
  for (int member : action.group) {
    if (member == rank)
      continue;
    int other = links.allReduceOn(member, action.stage, ordinal);
    if (other < 0) {
      report(diagnostics, rank, index,
             quote(program, rank, index) + " has no counterpart on rank " +
                 std::to_string(member) + ", which has only " +
                 std::to_string(links.allReduces[member][action.stage].size()) +
                 " allreduce(s) for stage " + std::to_string(action.stage));
      continue;
    }
    if (program.ranks[member].actions[other].group != action.group)
      report(diagnostics, rank, index,
             quote(program, rank, index) + " disagrees on the group with " +
                 quote(program, member, other) + " on rank " +
                 std::to_string(member));
  }
}

} // namespace

void checkMatching(const Program &program, const Links &links,
                   Diagnostics &diagnostics) {
  for (size_t r = 0; r < program.ranks.size(); ++r) {
    const std::vector<Action> &actions = program.ranks[r].actions;
    int rank = static_cast<int>(r);
    for (size_t i = 0; i < actions.size(); ++i) {
      int index = static_cast<int>(i);
      switch (actions[i].kind) {
      case ActionKind::Send:
      case ActionKind::Recv:
        checkMessage(program, links, rank, index, diagnostics);
        break;
      case ActionKind::AllReduce:
        checkAllReduce(program, links, rank, index, diagnostics);
        break;
      case ActionKind::TiedAllReduce:
        checkTiedMatching(program, links, rank, index, diagnostics);
        break;
      default:
        break;
      }
    }
  }
}

} // namespace pipewave::schedule::detail
