//===- NetworkTest.cpp - Tests of the communication cost model ------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Network.h"

#include "gtest/gtest.h"

using namespace pipewave::sim;

namespace {

Cluster twoNodes() {
  Cluster cluster = Cluster::ideal(1);
  cluster.devicesPerNode = 4;
  cluster.nodes = 2;
  cluster.intraNode = {100, 1};
  cluster.interNode = {10, 5};
  return cluster;
}

TEST(NetworkTest, RingAllReduce) {
  Cluster cluster = twoNodes();
  EXPECT_EQ(allReduceSeconds(cluster, {3}, 1000), 0);
  // Within a node: 2 (n-1)/n * bytes / bw + 2 (n-1) * latency.
  EXPECT_DOUBLE_EQ(allReduceSeconds(cluster, {0, 1, 2, 3}, 1000),
                   2.0 * 3 / 4 * 1000 / 100 + 2 * 3 * 1);
  // Across nodes: the inter-node figures.
  EXPECT_DOUBLE_EQ(allReduceSeconds(cluster, {2, 5}, 1000),
                   2.0 * 1 / 2 * 1000 / 10 + 2 * 1 * 5);
  EXPECT_TRUE(spansNodes(cluster, {3, 4}));
  EXPECT_FALSE(spansNodes(cluster, {4, 7}));
  EXPECT_EQ(countNodes(cluster, {0, 1, 5, 6}), 2);
}

TEST(NetworkTest, PointToPoint) {
  Cluster cluster = twoNodes();
  TransferCost intra = transferCost(cluster, {0}, {1}, 500);
  EXPECT_DOUBLE_EQ(intra.occupancy, 5);
  EXPECT_DOUBLE_EQ(intra.latency, 1);
  TransferCost inter = transferCost(cluster, {3}, {4}, 500);
  EXPECT_DOUBLE_EQ(inter.occupancy, 50);
  EXPECT_DOUBLE_EQ(inter.latency, 5);
  TransferCost local = transferCost(cluster, {2}, {2}, 500);
  EXPECT_DOUBLE_EQ(local.total(), 0);
  // Zero bytes still pay the latency.
  EXPECT_DOUBLE_EQ(transferCost(cluster, {0}, {1}, 0).total(), 1);
}

TEST(NetworkTest, GroupTransfers) {
  Cluster cluster = twoNodes();
  // 2 -> 2 within a node: two parallel flows of half the bytes.
  EXPECT_DOUBLE_EQ(transferCost(cluster, {0, 1}, {2, 3}, 400).occupancy, 2);
  // 1 -> 2: the source sends both halves over its own link.
  EXPECT_DOUBLE_EQ(transferCost(cluster, {0}, {2, 3}, 400).occupancy, 4);
  // Scattered groups pair up within each node: 0->1 and 4->5.
  TransferCost scattered = transferCost(cluster, {0, 4}, {1, 5}, 400);
  EXPECT_DOUBLE_EQ(scattered.occupancy, 2);
  EXPECT_DOUBLE_EQ(scattered.latency, 1);
  // 2 -> 2 across nodes share the NICs of both nodes.
  TransferCost across = transferCost(cluster, {0, 1}, {4, 5}, 400);
  EXPECT_DOUBLE_EQ(across.occupancy, 40);
  EXPECT_DOUBLE_EQ(across.latency, 5);
}

} // namespace
