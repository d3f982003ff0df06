//===- DapplePlacement.cpp - Where the DAPPLE planner puts stages ---------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "DappleModel.h"

#include <algorithm>

namespace pipewave::planner {

using sim::Cluster;

const char *stringify(PlacementPolicy policy) {
  switch (policy) {
  case PlacementPolicy::FreshFirst:
    return "fresh-first";
  case PlacementPolicy::AppendFirst:
    return "append-first";
  case PlacementPolicy::ScatterFirst:
    return "scatter-first";
  }
  return "?";
}

std::optional<PlacementPolicy> parsePlacementPolicy(std::string_view text) {
  if (text == "fresh-first" || text == "fresh")
    return PlacementPolicy::FreshFirst;
  if (text == "append-first" || text == "append")
    return PlacementPolicy::AppendFirst;
  if (text == "scatter-first" || text == "scatter")
    return PlacementPolicy::ScatterFirst;
  return std::nullopt;
}

std::vector<int> deviceOrder(PlacementPolicy policy, const Cluster &cluster) {
  std::vector<int> order;
  int perNode = cluster.devicesPerNode, nodes = cluster.nodes;
  if (policy == PlacementPolicy::ScatterFirst) {
    for (int local = 0; local < perNode; ++local)
      for (int node = 0; node < nodes; ++node)
        order.push_back(node * perNode + local);
  } else {
    for (int device = 0; device < perNode * nodes; ++device)
      order.push_back(device);
  }
  return order;
}

namespace detail {

int placeStage(PlacementPolicy policy, const Cluster &cluster, int freeEnd,
               int replicas) {
  if (replicas < 1 || replicas > freeEnd)
    return -1;
  if (policy != PlacementPolicy::FreshFirst)
    return freeEnd - replicas;
  int perNode = cluster.devicesPerNode;
  int end = freeEnd;
  if (replicas <= perNode) {
    if ((end - replicas) / perNode != (end - 1) / perNode)
      end = (end - 1) / perNode * perNode;
  } else {
    end = end / perNode * perNode;
  }
  return end - replicas >= 0 ? end - replicas : -1;
}

std::vector<int> devicesAt(const std::vector<int> &order, int start,
                           int count) {
  std::vector<int> devices(order.begin() + start,
                           order.begin() + start + count);
  std::sort(devices.begin(), devices.end());
  return devices;
}

} // namespace detail

} // namespace pipewave::planner
