//===- LinearPartitionTest.cpp - Tests of the balanced cut ----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Planner/LinearPartition.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

using namespace pipewave::planner;

namespace {

/// The optimal bottleneck by exhaustive dynamic programming (O(S n^2)).
double bruteForceBottleneck(const std::vector<double> &costs, int parts) {
  int n = costs.size();
  std::vector<double> prefix(n + 1, 0);
  for (int i = 0; i < n; ++i)
    prefix[i + 1] = prefix[i] + costs[i];
  const double inf = std::numeric_limits<double>::infinity();
  // best[k][i]: smallest bottleneck of the first i entries in k parts.
  std::vector<std::vector<double>> best(parts + 1,
                                        std::vector<double>(n + 1, inf));
  best[0][0] = 0;
  for (int k = 1; k <= parts; ++k)
    for (int i = k; i <= n; ++i)
      for (int j = k - 1; j < i; ++j)
        best[k][i] = std::min(best[k][i],
                              std::max(best[k - 1][j], prefix[i] - prefix[j]));
  return best[parts][n];
}

void expectValid(const std::vector<int> &assignment, int n, int parts) {
  ASSERT_EQ(static_cast<int>(assignment.size()), n);
  EXPECT_EQ(assignment.front(), 0);
  EXPECT_EQ(assignment.back(), parts - 1);
  for (int i = 1; i < n; ++i) {
    EXPECT_GE(assignment[i], assignment[i - 1]);
    EXPECT_LE(assignment[i], assignment[i - 1] + 1) << "part skipped at " << i;
  }
}

TEST(LinearPartition, UnevenCostsIsolateTheExpensiveOp) {
  std::vector<double> costs = {10.5, 1.6, 1.6, 1.6, 1.6, 1.6, 1.6};
  std::vector<int> assignment = balancedPartition(costs, 2);
  EXPECT_EQ(assignment, (std::vector<int>{0, 1, 1, 1, 1, 1, 1}));
}

TEST(LinearPartition, EqualCostsSplitEvenly) {
  std::vector<double> costs(8, 1.0);
  EXPECT_EQ(balancedPartition(costs, 4),
            (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
}

TEST(LinearPartition, OnePartAndOnePartPerEntry) {
  std::vector<double> costs = {3, 1, 2};
  EXPECT_EQ(balancedPartition(costs, 1), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(balancedPartition(costs, 3), (std::vector<int>{0, 1, 2}));
}

TEST(LinearPartition, ZeroCostsStillGiveNonEmptyParts) {
  std::vector<double> costs(5, 0.0);
  std::vector<int> assignment = balancedPartition(costs, 3);
  expectValid(assignment, 5, 3);
}

TEST(LinearPartition, RejectsImpossibleCounts) {
  EXPECT_TRUE(balancedPartition({1, 2}, 3).empty());
  EXPECT_TRUE(balancedPartition({1, 2}, 0).empty());
  EXPECT_TRUE(uniformPartition(2, 3).empty());
}

TEST(LinearPartition, MatchesBruteForceOnRandomCosts) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> cost(0.0, 10.0);
  for (int trial = 0; trial < 200; ++trial) {
    int n = 1 + rng() % 24;
    int parts = 1 + rng() % n;
    std::vector<double> costs(n);
    for (double &c : costs)
      c = cost(rng);
    std::vector<int> assignment = balancedPartition(costs, parts);
    expectValid(assignment, n, parts);
    std::vector<double> sums = partSums(costs, assignment, parts);
    double bottleneck = *std::max_element(sums.begin(), sums.end());
    EXPECT_NEAR(bottleneck, bruteForceBottleneck(costs, parts),
                1e-9 * (1 + bottleneck))
        << "n=" << n << " parts=" << parts;
  }
}

TEST(LinearPartition, UniformGivesEarlierPartsTheExtra) {
  EXPECT_EQ(uniformPartition(7, 3), (std::vector<int>{0, 0, 0, 1, 1, 2, 2}));
}

} // namespace
