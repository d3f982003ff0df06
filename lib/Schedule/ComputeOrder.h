//===- ComputeOrder.h - Programs from per-rank compute orders ---*- C++ -*-===//
//
// Internal helper of the newer generators and of the action-list parser: a
// schedule is given as the order in which every rank runs its compute
// actions (F, B, I, W), allreduces and optimizer steps; lowerComputeOrder()
// adds the Send/Recv actions of every cross-rank data edge.
//
// Message placement
// -----------------
// The ranks' compute orders are first timed as soon as possible with
// positive unit costs (F 1, B 2, I 1, W 1, allreduce and optimizer a small
// epsilon), which also detects orders that cannot run at all (a rank waits
// for data that is only produced after something it has not run yet). Every
// action, and every transfer of an edge from a producer on rank A to a
// consumer on rank B, then gets a place in one global sequence:
//   * an action at (its start time, its rank, its index in the rank's order);
//   * a transfer right before its consumer.
// Each rank's list is the projection of that sequence: the Recv lands right
// before its consumer (so the Recv never delays anything but the consumer,
// for any costs), and the Send lands on the producer's rank at the time the
// consumer starts, which is after the producer ended (costs are positive).
//
// Because every rank's list is a projection of one sequence in which each
// transfer (and each allreduce) is a single event, the program is
// deadlock-free under rendezvous sends: running the events in sequence order,
// all ranks an event involves have finished everything before it in their
// lists, so they are all at it.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_SCHEDULE_COMPUTEORDER_H
#define PIPEWAVE_LIB_SCHEDULE_COMPUTEORDER_H

#include "pipewave/Schedule/Generate.h"
#include "pipewave/Schedule/Program.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pipewave::schedule::detail {

/// One entry of a rank's compute order: F/B/I/W (with a microbatch),
/// AllReduce or OptimizerStep (microbatch -1).
struct Step {
  ActionKind kind = ActionKind::Forward;
  int stage = -1;
  int microbatch = -1;
};

/// The compute order of every rank, indexed by rank.
using ComputeOrder = std::vector<std::vector<Step>>;

/// Names a step in error messages, e.g. "'3F0' at line 4, column 7" for the
/// parser; the default names it "'F stage 3 mb 0' of rank 1".
using StepNamer = std::function<std::string(int rank, int index)>;

/// "3F0", "3B0", "3I0", "3W0", "AR3", "OPT3": a step in action-list syntax.
std::string stepToken(const Step &step);

/// Builds a program from `skeleton` (shape, schedule name, forwardOnly and
/// the ranks' stage lists; its actions are ignored) and the ranks' compute
/// orders. Checks that every held (stage, microbatch) has exactly one F and
/// one B or one I plus one W (only F when forward-only), that steps name
/// held stages and microbatches in range, that replicated stages are paired
/// across boundaries (the i-th rank holding stage s talks to the i-th rank
/// holding s+1, so neighbouring stages need the same number of replicas) and
/// that the order can run. AllReduce groups are the ranks holding the stage.
/// Sends and receives are added as described above.
BuildResult lowerComputeOrder(const Program &skeleton,
                              const ComputeOrder &order,
                              const StepNamer &namer = nullptr);

/// "the number of <what> must be at least <minimum> (got <value>)" when
/// value < minimum.
std::optional<std::string> checkAtLeast(const char *what, int value,
                                        int minimum = 1);

/// "1 stage", "4 stages".
std::string describeStages(int numStages);

/// A program skeleton with `numRanks` ranks where rank r holds
/// `stagesOfRank(r)` (sorted by the function).
Program makeSkeleton(int numStages, int numMicrobatches, int numRanks,
                     std::string schedule,
                     const std::function<std::vector<int>(int)> &stagesOfRank);

} // namespace pipewave::schedule::detail

#endif // PIPEWAVE_LIB_SCHEDULE_COMPUTEORDER_H
