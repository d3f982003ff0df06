//===- Network.h - Communication cost model ---------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (no MLIR/LLVM). Times of the two kinds of communication a
// pipeline step does, on a Cluster (see Device.h for the link conventions):
//
// * Group-to-group transfers (an activation or gradient crossing a stage
//   boundary). Each side is a data-parallel group of devices that splits a
//   microbatch evenly; the bytes move in max(|from|, |to|) equal flows, flow
//   i from from[i mod |from|] to to[i mod |to|] (both lists sorted). A flow
//   within a node loads the NVLink egress of its source device and the
//   ingress of its destination; a flow between nodes loads the NIC of both
//   nodes; a flow to the same device is free. The occupancy is the busiest
//   resource's load over its bandwidth; the latency (intra- or inter-node,
//   the larger one used) is added once. On a calibrated device with a
//   pointToPoint table (Calibration.h) the intra-node latency is the
//   measured one-way time of a flow's bytes less their occupancy: what a
//   message of that size waits for beyond the bandwidth (an MPI rendezvous
//   above the eager limit included). A flow above the table's eager limit
//   (Calibration::eagerLimitBytes) also has a handshake: its one-way time
//   less the smallest message's, which it still takes once the receiver
//   is inside MPI after the send (a Send or Recv of its own). The table's
//   CPU times of a message (its send, recv and deliver columns) are the
//   flow's sendOverhead, recvOverhead and deliverOverhead, which the
//   simulator charges to the sending and the receiving rank (deliver to
//   a receiver the message reached while it computed).
//
// * Ring all-reduce of `bytes` among n devices:
//     2 (n-1)/n * bytes / bw  +  2 (n-1) * latency,
//   where bw and latency are the inter-node figures if the group spans more
//   than one node (one ring edge per node crosses its NIC) and the intra-node
//   ones otherwise;
//   (a calibrated device's measured all-reduce figures when it has them,
//   Calibration.h); 0 for n <= 1.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SIMULATOR_NETWORK_H
#define PIPEWAVE_SIMULATOR_NETWORK_H

#include "pipewave/Simulator/Device.h"

#include <vector>

namespace pipewave::sim {

/// Cost of one message: how long it occupies its link, and the latency added
/// before it arrives. Arrival = start + occupancy + latency.
struct TransferCost {
  double occupancy = 0;
  double latency = 0;
  /// A rendezvous message's time after the receiver's progress (see the
  /// file comment); 0 for an eager one and off calibrated devices.
  double handshake = 0;
  /// The CPU seconds the sender spends posting the message and the
  /// receiver completing it once it is there (Calibration::
  /// sendOverheadSeconds, recvOverheadSeconds of a flow's bytes); 0 off
  /// calibrated devices and between nodes.
  double sendOverhead = 0;
  double recvOverhead = 0;
  /// The receiver's seconds completing it when it arrived while the
  /// receiver was outside MPI (Calibration::deliverOverheadSeconds).
  double deliverOverhead = 0;

  double total() const { return occupancy + latency; }
};

/// True if `devices` are not all on one node.
bool spansNodes(const Cluster &cluster, const std::vector<int> &devices);

/// Number of distinct nodes among `devices`.
int countNodes(const Cluster &cluster, const std::vector<int> &devices);

/// Cost of moving `bytes` (the whole microbatch's tensor) from the group
/// `from` to the group `to` (see the file comment). Zero bytes between
/// different devices still pay the latency; an empty group costs nothing.
TransferCost transferCost(const Cluster &cluster, const std::vector<int> &from,
                          const std::vector<int> &to, double bytes);

/// Ring all-reduce time of `bytes` among `devices` (see the file comment).
double allReduceSeconds(const Cluster &cluster, const std::vector<int> &devices,
                        double bytes);

} // namespace pipewave::sim

#endif // PIPEWAVE_SIMULATOR_NETWORK_H
