//===- Backend.h - Communication backends -----------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The executor talks to other ranks only through Backend: non-blocking
// point-to-point messages and collectives identified by RequestId handles,
// completed with test() or wait(); abort() ends the whole job. Buffers are
// `void *` + bytes of device memory (Device.h); the executor starts every
// transfer through the device-ordered forms (isendAfter, irecvAfter,
// iallreduceAfter), whose defaults order host-memory transports (MPI, the
// local backend) by synchronising the device first, and which a transport
// ordered on device streams (NCCL) overrides.
//
// wait() is the watchdog: it polls test() and throws Error when an operation
// makes no progress for timeout() seconds, naming what it waited for.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_BACKEND_H
#define PIPEWAVE_RUNTIME_BACKEND_H

#include "pipewave-runtime/Device.h"
#include "pipewave-runtime/WaitPolicy.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pipewave::runtime {

/// Handle of a pending non-blocking operation.
using RequestId = int32_t;
constexpr RequestId kNoRequest = -1;

/// Reduction of an all-reduce.
enum class ReduceOp { Sum, Min, Max };

/// Default watchdog timeout, seconds.
constexpr double kDefaultTimeoutSeconds = 20.0;

class Backend {
public:
  virtual ~Backend();

  /// "local", "mpi", ...
  virtual std::string name() const = 0;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// Starts sending `bytes` bytes at `data` to `peer` with `tag`. `data` must
  /// stay untouched until the request completes.
  virtual RequestId isend(const void *data, size_t bytes, int peer,
                          int64_t tag) = 0;
  /// Starts receiving exactly `bytes` bytes from `peer` with `tag`.
  virtual RequestId irecv(void *data, size_t bytes, int peer, int64_t tag) = 0;
  /// True when `request` has completed; the handle is then released and must
  /// not be used again.
  virtual bool test(RequestId request) = 0;

  /// Starts an in-place all-reduce of `count` elements of `dtype` (a
  /// pw_dtype: f32, f64, i32 or i64) among `group` (sorted ranks; empty means
  /// every rank).
  virtual RequestId iallreduce(void *data, size_t count, int32_t dtype,
                               ReduceOp op, const std::vector<int> &group) = 0;
  /// Device-ordered forms of isend, irecv and iallreduce; the executor uses
  /// only these. `ready`, an event of `device`, captures the device work
  /// that wrote `data` (isendAfter, iallreduceAfter) or the last device work
  /// that used the buffer a receive overwrites (irecvAfter). The defaults,
  /// right for transports that access the memory from the host (MPI, local;
  /// a device not sharing host memory then needs a device-aware MPI),
  /// synchronise `ready` on the host and start the plain operation. A
  /// transport ordered on device streams (NCCL) makes its own stream wait
  /// for `ready` instead, and reports the request complete (test()) only
  /// once the transfer has completed on the device, so that device work the
  /// executor issues after wait() sees the data.
  virtual RequestId isendAfter(Device &device, EventId ready, const void *data,
                               size_t bytes, int peer, int64_t tag);
  virtual RequestId irecvAfter(Device &device, EventId ready, void *data,
                               size_t bytes, int peer, int64_t tag);
  virtual RequestId iallreduceAfter(Device &device, EventId ready, void *data,
                                    size_t count, int32_t dtype, ReduceOp op,
                                    const std::vector<int> &group);
  /// Prepares the all-reduce groups used later with iallreduce. Collective:
  /// every rank calls it with the same list, in the same order, before any
  /// of the groups is used. (MPI: one communicator per group, created once.)
  /// The default does nothing.
  virtual void createGroups(const std::vector<std::vector<int>> &groups);
  /// Starts a barrier among all ranks.
  virtual RequestId ibarrier() = 0;
  /// Gathers every rank's `bytes` on `root` (rank order); other ranks get an
  /// empty vector. Blocking, watched like wait().
  virtual std::vector<std::string> gather(const std::string &bytes,
                                          int root) = 0;

  /// Prints "pipewave: rank R: <message>" to stderr and ends the whole job
  /// with `exitCode`.
  [[noreturn]] virtual void abort(const std::string &message, int exitCode) = 0;

  /// Monotonic clock, seconds.
  virtual double now() const;

  /// Watchdog timeout of wait(), seconds; 0 waits forever.
  void setTimeout(double seconds) { timeoutSeconds = seconds; }
  double timeout() const { return timeoutSeconds; }

  /// How wait() polls (WaitPolicy.h); the default yields early, as a rank
  /// that may share its core must.
  void setWaitPolicy(const WaitPolicy &policy) { waitPolicy = policy; }
  const WaitPolicy &waitingPolicy() const { return waitPolicy; }

  /// Waits for `request`, polling test() as the wait policy says. Throws
  /// Error("timed out after T s waiting for '<what>'...") when it does not
  /// complete within timeout().
  void wait(RequestId request, const std::string &what);

  /// Blocking all-reduce of floats (sum) among `group`, watched.
  void allreduceSum(float *data, size_t count, const std::vector<int> &group,
                    const std::string &what);
  /// Blocking barrier, watched.
  void barrier(const std::string &what);
  /// True when `ok` holds on every rank (a watched all-reduce).
  bool agree(bool ok);

private:
  double timeoutSeconds = kDefaultTimeoutSeconds;
  WaitPolicy waitPolicy;
};

/// A single-process backend: rank 0 of 1. Messages to itself are matched by
/// tag; collectives are trivial.
std::unique_ptr<Backend> createLocalBackend();

/// True when the runtime was built with MPI.
bool haveMpiBackend();

/// The MPI backend (initialises MPI; finalises it on destruction). Throws
/// Error when the runtime was built without MPI.
std::unique_ptr<Backend> createMpiBackend(int *argc, char ***argv);

/// True when the process was started by an MPI launcher (mpirun, srun, ...):
/// Open MPI, PMI or PMIx variables in the environment.
bool startedByLauncher();

/// The rank an MPI launcher gave this process, read from its environment
/// before MPI is initialised (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK,
/// MV2_COMM_WORLD_RANK); -1 when there is none.
int launcherRank();

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_BACKEND_H
