//===- Loopback.h - Every rank in one process -------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The loopback backend runs every rank of a program in one process, a
// thread per rank, each with its own Device. It is how a whole pipeline is
// checked on one machine without MPI, and, on a GPU, the one-GPU path: NCCL
// refuses two ranks on one GPU, so several ranks of one GPU exchange data
// here as device-to-device copies.
//
// Matching. A send and a receive match by (source, destination, tag);
// several pending ones of one key match in posting order (as MPI's
// non-overtaking rule). Collectives match by group: every member's n-th
// collective on a group is the same operation.
//
// Ordering (device-ordered forms). A receive synchronises its `ready`
// event on the host when posted (it marks the last use of the buffer it
// overwrites: usually long done). A send makes a communication stream of
// the sender's device wait for `ready`, and the copy into the receiver's
// buffer is issued on that stream, by the sender's own thread (a device is
// only ever used by its rank's thread): at the post when the receive is
// already there, else at the sender's next post or test() of any request
// (its progress). A request completes once its copy has completed on the
// device. An all-reduce synchronises every member's `ready` on the host; the
// last member to post sums the buffers in group order on its own device
// (Device::accumulate) and copies the sum back to every member. Device
// memory of one rank must therefore be addressable by another rank's device:
// host memory (HostDevice, AsyncTestDevice) or one GPU.
//
// Failure. wait()'s watchdog ends a wait for a missing peer; abort() prints
// "pipewave: rank R: <message>" and ends the process (every rank with it).
// A request that still needs a rank whose thread has ended
// (loopbackRankEnded) fails at once, naming that rank.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_LOOPBACK_H
#define PIPEWAVE_RUNTIME_LOOPBACK_H

#include "pipewave-runtime/Backend.h"

#include <functional>
#include <memory>
#include <string>

namespace pipewave::runtime {

/// The state the ranks of one process share.
class LoopbackHub;

/// Called by abort(rank, message, exitCode); must not return (the default
/// prints the message and ends the process with _exit).
using LoopbackAbortHandler =
    std::function<void(int rank, const std::string &message, int exitCode)>;

/// A hub for `size` ranks.
std::shared_ptr<LoopbackHub> createLoopbackHub(int size);

/// Replaces the hub's abort handler (tests throw instead of exiting).
void setLoopbackAbortHandler(LoopbackHub &hub, LoopbackAbortHandler handler);

/// The backend of rank `rank` of `hub`; used by that rank's thread only.
std::unique_ptr<Backend> createLoopbackBackend(std::shared_ptr<LoopbackHub> hub,
                                               int rank);

/// Marks rank `rank`'s thread as ended: requests still waiting for it fail.
void loopbackRankEnded(LoopbackHub &hub, int rank);

/// The loopback rank of the calling thread (set by runLoopbackRanks), or -1.
int currentLoopbackRank();

/// Runs `body(rank)` for every rank of `hub` on a thread of its own (the
/// calling thread waits) and returns the first non-zero result in rank
/// order, or 0. An exception escaping `body` aborts through the hub.
int runLoopbackRanks(LoopbackHub &hub, const std::function<int(int)> &body);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_LOOPBACK_H
