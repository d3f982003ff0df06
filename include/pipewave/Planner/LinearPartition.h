//===- LinearPartition.h - Balanced cuts of a sequence ----------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (no MLIR): the partitioning problems behind pipe-partition.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_PLANNER_LINEARPARTITION_H
#define PIPEWAVE_PLANNER_LINEARPARTITION_H

#include <vector>

namespace pipewave::planner {

/// Cuts `costs` (one entry per operation, in program order, all >= 0) into
/// exactly `numParts` contiguous non-empty parts so that the largest part sum
/// is as small as possible. Returns the part index of every entry
/// (non-decreasing, from 0 to numParts-1), or an empty vector when
/// numParts < 1 or numParts > costs.size().
///
/// Runs a binary search on the bottleneck value with a greedy feasibility
/// check: O(n log(sum / precision)), linear in the number of operations.
std::vector<int> balancedPartition(const std::vector<double> &costs,
                                   int numParts);

/// Cuts `count` entries into `numParts` contiguous parts whose sizes differ by
/// at most one (earlier parts get the extra entries). Same return convention
/// as balancedPartition.
std::vector<int> uniformPartition(int count, int numParts);

/// The sum of each part of `costs` under `assignment`.
std::vector<double> partSums(const std::vector<double> &costs,
                             const std::vector<int> &assignment, int numParts);

} // namespace pipewave::planner

#endif // PIPEWAVE_PLANNER_LINEARPARTITION_H
