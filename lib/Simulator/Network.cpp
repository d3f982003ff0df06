//===- Network.cpp - Communication cost model -----------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Network.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace pipewave::sim {

namespace {

/// bytes / bandwidth with 0 for no bytes (also over infinite bandwidth) and
/// infinity for bytes over a zero bandwidth.
double divide(double bytes, double bandwidth) {
  if (bytes <= 0)
    return 0;
  if (bandwidth <= 0)
    return std::numeric_limits<double>::infinity();
  return bytes / bandwidth;
}

} // namespace

bool spansNodes(const Cluster &cluster, const std::vector<int> &devices) {
  return countNodes(cluster, devices) > 1;
}

int countNodes(const Cluster &cluster, const std::vector<int> &devices) {
  std::set<int> nodes;
  for (int device : devices)
    nodes.insert(cluster.nodeOf(device));
  return static_cast<int>(nodes.size());
}

TransferCost transferCost(const Cluster &cluster, const std::vector<int> &from,
                          const std::vector<int> &to, double bytes) {
  TransferCost cost;
  if (from.empty() || to.empty())
    return cost;
  std::vector<int> src = from, dst = to;
  std::sort(src.begin(), src.end());
  std::sort(dst.begin(), dst.end());
  size_t flows = std::max(src.size(), dst.size());
  double chunk = bytes / static_cast<double>(flows);
  // Loads in bytes of every resource the flows use.
  std::map<int, double> nvlinkOut, nvlinkIn, nicOut, nicIn;
  bool intra = false, inter = false;
  for (size_t i = 0; i < flows; ++i) {
    int a = src[i % src.size()], b = dst[i % dst.size()];
    if (a == b)
      continue;
    int na = cluster.nodeOf(a), nb = cluster.nodeOf(b);
    if (na == nb) {
      intra = true;
      nvlinkOut[a] += chunk;
      nvlinkIn[b] += chunk;
    } else {
      inter = true;
      nicOut[na] += chunk;
      nicIn[nb] += chunk;
    }
  }
  for (const auto *loads : {&nvlinkOut, &nvlinkIn})
    for (const auto &[device, load] : *loads)
      cost.occupancy = std::max(cost.occupancy,
                                divide(load, cluster.intraNode.bytesPerSecond));
  for (const auto *loads : {&nicOut, &nicIn})
    for (const auto &[node, load] : *loads)
      cost.occupancy = std::max(cost.occupancy,
                                divide(load, cluster.interNode.bytesPerSecond));
  if (inter)
    cost.latency = std::max(cost.latency, cluster.interNode.latencySeconds);
  if (intra) {
    double latency = cluster.intraNode.latencySeconds;
    // A calibrated device's measured message times: the time of a flow's
    // chunk beyond its occupancy of the link is latency.
    const std::optional<Calibration> &measured = cluster.device.calibration;
    double bandwidth = cluster.intraNode.bytesPerSecond;
    if (measured && !measured->pointToPoint.empty()) {
      double oneWay = measured->messageSeconds(chunk, bandwidth);
      latency = std::max(0.0, oneWay - divide(chunk, bandwidth));
      cost.sendOverhead =
          std::max(cost.sendOverhead, measured->sendOverheadSeconds(chunk));
      cost.recvOverhead =
          std::max(cost.recvOverhead, measured->recvOverheadSeconds(chunk));
      cost.deliverOverhead = std::max(cost.deliverOverhead,
                                      measured->deliverOverheadSeconds(chunk));
      double eager = measured->eagerLimitBytes();
      if (eager > 0 && chunk > eager)
        cost.handshake = std::max(
            cost.handshake, oneWay - measured->pointToPoint.front().seconds);
    }
    cost.latency = std::max(cost.latency, latency);
  }
  return cost;
}

double allReduceSeconds(const Cluster &cluster, const std::vector<int> &devices,
                        double bytes) {
  std::set<int> unique(devices.begin(), devices.end());
  double n = static_cast<double>(unique.size());
  if (n <= 1)
    return 0;
  std::vector<int> group(unique.begin(), unique.end());
  LinkSpec link =
      spansNodes(cluster, group) ? cluster.interNode : cluster.intraNode;
  // A calibrated device's measured all-reduce, within one machine.
  const std::optional<Calibration> &measured = cluster.device.calibration;
  if (!spansNodes(cluster, group) && measured &&
      measured->allReduceBytesPerSecond > 0)
    link = {measured->allReduceBytesPerSecond,
            measured->allReduceLatencySeconds};
  return divide(2 * (n - 1) / n * bytes, link.bytesPerSecond) +
         2 * (n - 1) * link.latencySeconds;
}

} // namespace pipewave::sim
