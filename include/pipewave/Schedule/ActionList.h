//===- ActionList.h - Text format of schedule programs ----------*- C++ -*-===//
//
// A compact text form of a Program that lists only what each rank computes,
// in order; the sends and receives are implied. docs/schedule-format.md
// describes the format:
//
//   # pipewave schedule S=4 M=2 name=1f1b
//   stages 0: 0
//   stages 1: 1
//   ...
//   0: 0F0 0F1 0B0 0B1 OPT0
//   1: 1F0 1B0 1F1 1B1 OPT1
//   ...
//
// An action is <stage><kind><microbatch> (kinds F, B, I, W), AR<stage> (an
// allreduce among the ranks holding the stage) or OPT<stage> (its optimizer
// step).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SCHEDULE_ACTIONLIST_H
#define PIPEWAVE_SCHEDULE_ACTIONLIST_H

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Program.h"

#include <string>
#include <string_view>

namespace pipewave::schedule {

/// Prints `program` as an action list: the header, one `stages` line per
/// rank and one line per rank with its F/B/I/W, AR and OPT actions in order
/// (sends, receives and tied all-reduces, which pipe-schedule adds, are left
/// out). The schedule name is kept when it is a
/// word of letters, digits, '_', '-' and '.'.
std::string formatActionList(const Program &program);

/// Parses an action list and builds the program: the compute order of every
/// rank as written, plus
///   * an AR<s> per rank for each replicated stage s that has none, placed
///     before the rank's OPT<s> (or at the end),
///   * an OPT<s> at the end of each rank for each held stage that has none
///     (in stage order; not for forward-only programs),
///   * the Send/Recv pair of every cross-rank data edge: the Recv right
///     before the consumer, the Send on the producer's rank where the
///     consumer starts in an as-soon-as-possible run of the order, which
///     keeps the program deadlock-free under rendezvous sends whenever the
///     compute order can run at all.
/// The schedule name is the header's `name=` (default "file"). Errors name
/// the line and column (1-based) and the offending token, e.g.
/// "line 3, column 8: unknown action 'X1'", or the step an order problem is
/// about, e.g. "'1B0' at line 4, column 4 comes before '1F0' at line 4,
/// column 8, which it depends on". The result passes verify().
BuildResult parseActionList(std::string_view text);

} // namespace pipewave::schedule

#endif // PIPEWAVE_SCHEDULE_ACTIONLIST_H
