//===- VerifyChecks.h - The verifier's check categories ---------*- C++ -*-===//
//
// Internal interface between verify() and its check categories, one file per
// category. Each check appends diagnostics and assumes that all previous
// categories passed.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_SCHEDULE_VERIFYCHECKS_H
#define PIPEWAVE_LIB_SCHEDULE_VERIFYCHECKS_H

#include "pipewave/Schedule/Verify.h"

#include "ActionTable.h"
#include "Links.h"

#include <string>
#include <vector>

namespace pipewave::schedule::detail {

using Diagnostics = std::vector<Diagnostic>;

/// "'F stage 1 mb 0' (action 4)": an action of a rank, quoted.
std::string quote(const Program &program, int rank, int index);

/// Appends a diagnostic about `rank` (and action `index`, or -1) whose
/// message is "rank <rank>: <text>".
void report(Diagnostics &diagnostics, int rank, int index,
            const std::string &text);

/// "[0, 4]": a list of ranks or stages.
std::string formatList(const std::vector<int> &ranks);

/// 1. Stage placement, ranges, peers and AllReduce groups.
void checkStructure(const Program &program, Diagnostics &diagnostics);

/// 1. (TiedAllReduce) Parameter name, user stages, this rank's stage among
/// them and the group: one holder of each user stage.
void checkTiedStructure(const Program &program, int rank, int index,
                        Diagnostics &diagnostics);

/// 2. (TiedAllReduce) At most one per parameter on a rank, after every
/// backward of the user stages it holds and the AllReduce of its stage,
/// before that stage's OptimizerStep; and one on every holder of a user stage.
void checkTiedPlacement(const Program &program, int rank,
                        Diagnostics &diagnostics);

/// 4. (TiedAllReduce) The same parameter, users and group on every member.
void checkTiedMatching(const Program &program, const Links &links, int rank,
                       int index, Diagnostics &diagnostics);

/// 2. One F and one B (or I + W) per held (stage, microbatch), no
/// duplicates, AllReduce and OptimizerStep rules.
void checkCompleteness(const Program &program,
                       const std::vector<ActionTable> &tables,
                       Diagnostics &diagnostics);

/// 3. Local dependency order, including the Send/Recv of cross-rank edges.
void checkOrder(const Program &program, const std::vector<ActionTable> &tables,
                Diagnostics &diagnostics);

/// 4. Send/Recv matching and AllReduce agreement.
void checkMatching(const Program &program, const Links &links,
                   Diagnostics &diagnostics);

/// 5. Deadlock freedom under rendezvous sends.
void checkDeadlock(const Program &program, const Links &links,
                   Diagnostics &diagnostics);

} // namespace pipewave::schedule::detail

#endif // PIPEWAVE_LIB_SCHEDULE_VERIFYCHECKS_H
