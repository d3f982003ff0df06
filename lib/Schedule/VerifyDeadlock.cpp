//===- VerifyDeadlock.cpp - Verifier: deadlock freedom --------------------===//
//
// Runs all ranks' lists in order: compute and optimizer actions always
// proceed; a Send and its matching Recv proceed together only when both ranks
// are at them (rendezvous); an AllReduce (or TiedAllReduce) proceeds when
// every rank of its group is at its counterpart. A worklist of ranks keeps this
// linear in the number of actions (plus group sizes squared per AllReduce).
//
//===----------------------------------------------------------------------===//

#include "VerifyChecks.h"

namespace pipewave::schedule::detail {

namespace {

bool isCollective(ActionKind kind) {
  return kind == ActionKind::AllReduce || kind == ActionKind::TiedAllReduce;
}

class RendezvousRun {
public:
  RendezvousRun(const Program &program, const Links &links)
      : program(program), links(links), pc(program.ranks.size(), 0) {}

  void run() {
    for (size_t r = 0; r < program.ranks.size(); ++r)
      worklist.push_back(static_cast<int>(r));
    while (!worklist.empty()) {
      int rank = worklist.back();
      worklist.pop_back();
      advance(rank);
    }
  }

  void reportStalls(Diagnostics &diagnostics) const {
    for (size_t r = 0; r < program.ranks.size(); ++r) {
      int rank = static_cast<int>(r);
      if (finished(rank))
        continue;
      const Action &action = current(rank);
      std::string reason;
      if (isCollective(action.kind)) {
        for (int member : action.group) {
          if (member == rank || atAllReduce(member, rank, pc[rank]))
            continue;
          reason += (reason.empty() ? "" : "; ") + stateOf(member);
        }
      } else {
        reason = stateOf(action.peer);
      }
      diagnostics.push_back({rank, pc[rank],
                             "rank " + std::to_string(rank) + " stalls at '" +
                                 describe(action) + "': " + reason});
    }
  }

private:
  bool finished(int rank) const {
    return pc[rank] >= static_cast<int>(program.ranks[rank].actions.size());
  }

  const Action &current(int rank) const {
    return program.ranks[rank].actions[pc[rank]];
  }

  /// "rank 1 is blocked at 'recv ...'" or "rank 1 has finished".
  std::string stateOf(int rank) const {
    if (finished(rank))
      return "rank " + std::to_string(rank) + " has finished";
    return "rank " + std::to_string(rank) + " is blocked at '" +
           describe(current(rank)) + "'";
  }

  /// True if `member` is at the counterpart of the AllReduce at `index` on
  /// `rank`.
  bool atAllReduce(int member, int rank, int index) const {
    const Action &action = program.ranks[rank].actions[index];
    if (action.kind == ActionKind::TiedAllReduce) {
      int other = links.tiedOn(member, action.param);
      return other >= 0 && pc[member] == other;
    }
    int other =
        links.allReduceOn(member, action.stage, links.ordinal[rank][index]);
    return other >= 0 && pc[member] == other;
  }

  void advance(int rank) {
    while (!finished(rank)) {
      const Action &action = current(rank);
      if (action.kind == ActionKind::Send || action.kind == ActionKind::Recv) {
        int peer = action.peer;
        if (pc[peer] != links.partner[rank][pc[rank]])
          return;
        ++pc[rank];
        ++pc[peer];
        worklist.push_back(peer);
      } else if (isCollective(action.kind)) {
        for (int member : action.group)
          if (member != rank && !atAllReduce(member, rank, pc[rank]))
            return;
        for (int member : action.group) {
          ++pc[member];
          if (member != rank)
            worklist.push_back(member);
        }
      } else {
        ++pc[rank];
      }
    }
  }

  const Program &program;
  const Links &links;
  /// Index of the next action of each rank.
  std::vector<int> pc;
  std::vector<int> worklist;
};

} // namespace

void checkDeadlock(const Program &program, const Links &links,
                   Diagnostics &diagnostics) {
  RendezvousRun run(program, links);
  run.run();
  run.reportStalls(diagnostics);
}

} // namespace pipewave::schedule::detail
