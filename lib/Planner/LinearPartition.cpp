//===- LinearPartition.cpp - Cutting a sequence into balanced parts -------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Planner/LinearPartition.h"

#include <algorithm>
#include <numeric>

using namespace pipewave::planner;

/// Greedy assignment under bottleneck `limit`: a new part starts when the
/// next entry would exceed `limit`, or when every remaining entry must open a
/// part of its own to reach `numParts`. Returns the number of parts used (more
/// than numParts means `limit` is infeasible).
static int assignGreedy(const std::vector<double> &costs, int numParts,
                        double limit, std::vector<int> &assignment) {
  int n = static_cast<int>(costs.size());
  assignment.assign(n, 0);
  int part = 0;
  int inPart = 0;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    int remaining = n - i;
    int partsAfter = numParts - (part + 1);
    if (inPart > 0 && (sum + costs[i] > limit || remaining <= partsAfter)) {
      ++part;
      sum = 0;
      inPart = 0;
    }
    assignment[i] = part;
    sum += costs[i];
    ++inPart;
  }
  return part + 1;
}

std::vector<int>
pipewave::planner::balancedPartition(const std::vector<double> &costs,
                                     int numParts) {
  int n = static_cast<int>(costs.size());
  if (numParts < 1 || numParts > n)
    return {};
  double lo = *std::max_element(costs.begin(), costs.end());
  double hi = std::accumulate(costs.begin(), costs.end(), 0.0);
  std::vector<int> assignment;
  // Every limit >= max(cost) fits in at most n parts; find the smallest
  // limit that fits in numParts.
  for (int iter = 0; iter < 100 && hi - lo > 1e-12 * hi; ++iter) {
    double mid = lo + (hi - lo) / 2;
    if (assignGreedy(costs, numParts, mid, assignment) <= numParts)
      hi = mid;
    else
      lo = mid;
  }
  int used = assignGreedy(costs, numParts, hi, assignment);
  (void)used;
  return assignment;
}

std::vector<int> pipewave::planner::uniformPartition(int count, int numParts) {
  if (numParts < 1 || numParts > count)
    return {};
  std::vector<int> assignment(count);
  int base = count / numParts, extra = count % numParts, i = 0;
  for (int part = 0; part < numParts; ++part)
    for (int k = 0; k < base + (part < extra ? 1 : 0); ++k)
      assignment[i++] = part;
  return assignment;
}

std::vector<double>
pipewave::planner::partSums(const std::vector<double> &costs,
                            const std::vector<int> &assignment, int numParts) {
  std::vector<double> sums(numParts, 0.0);
  for (size_t i = 0; i < costs.size() && i < assignment.size(); ++i)
    sums[assignment[i]] += costs[i];
  return sums;
}
