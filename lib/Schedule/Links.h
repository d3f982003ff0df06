//===- Links.h - Cross-rank links between actions ---------------*- C++ -*-===//
//
// Internal helper of the verifier and the simulator: pairs every Send with
// the Recv that matches it (same rank pair, same tag) and every AllReduce
// (and TiedAllReduce) with its counterparts on the other ranks of its group.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_SCHEDULE_LINKS_H
#define PIPEWAVE_LIB_SCHEDULE_LINKS_H

#include "pipewave/Schedule/Program.h"

#include <map>
#include <string>
#include <vector>

namespace pipewave::schedule::detail {

/// Cross-rank links of a program that passed the structure checks (stages
/// and peers in range). Indexed [rank][action index].
struct Links {
  /// Send/Recv: the number of actions on the peer that match it (a Recv on
  /// the peer from this rank with the same tag for a Send, and vice versa).
  std::vector<std::vector<int>> matchCount;
  /// Send/Recv: index on the peer of the matching action when there is
  /// exactly one, else -1.
  std::vector<std::vector<int>> partner;
  /// AllReduce: the number of AllReduce actions of the same stage before it
  /// on the same rank.
  std::vector<std::vector<int>> ordinal;
  /// [rank][stage]: indices of the rank's AllReduce actions for the stage, in
  /// list order.
  std::vector<std::vector<std::vector<int>>> allReduces;

  /// [rank]: parameter name -> index of the rank's first TiedAllReduce of
  /// the parameter.
  std::vector<std::map<std::string, int>> tied;

  /// Index on `rank` of its `nth` AllReduce of `stage` (0-based), or -1.
  int allReduceOn(int rank, int stage, int nth) const;

  /// Index on `rank` of its TiedAllReduce of `param`, or -1.
  int tiedOn(int rank, const std::string &param) const;
};

/// Computes the links of `program`, in time linear in its size.
Links linkProgram(const Program &program);

} // namespace pipewave::schedule::detail

#endif // PIPEWAVE_LIB_SCHEDULE_LINKS_H
