//===- Device.h - Memory, work and ordering of tensor data ------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The executor touches tensor memory only through a Device and talks to
// other ranks only through a Backend (Backend.h). A Device owns the memory
// that stage functions read and write (slots, gradients, optimizer state,
// and, unless it shares host memory, parameters and data), and runs work
// on it: fills, copies, accumulation, optimizer updates and the stage
// functions themselves.
//
// Contract (modelled on CUDA streams and events, so a CUDA device maps each
// call to one runtime call; the host device is the degenerate case):
//
// * Work is issued on a stream and runs in issue order on that stream;
//   work on different streams may run concurrently and in any order
//   unless ordered by events. Every issuing call returns at once; the host
//   may not assume the work has run until it synchronises.
// * record(e, s) captures the work issued on `s` so far; wait(s2, e) makes
//   work issued on `s2` afterwards start after the captured work completed
//   (cudaStreamWaitEvent); synchronize(e) blocks the host until it has
//   (cudaEventSynchronize); synchronize() waits for every stream. An event
//   is recorded on one stream only; one never recorded counts as complete.
//   Re-recording an event re-captures (waits issued earlier keep what they
//   captured).
// * Memory from allocate() is device memory, kBufferAlignment-aligned, its
//   contents undefined (fill it). Only work issued on the device, copies
//   and the backend's device-aware transfers may touch it, unless
//   sharesHostMemory(). deallocate() needs the work using the memory
//   synchronised first.
// * Host pointers given to copy() (HostToDevice source, DeviceToHost
//   destination) must stay valid and unchanged (resp. unread) until the
//   copy is known complete (an event recorded after it, synchronised).
// * Every pointer array and parameter struct passed to call() and
//   optimizerUpdate() is copied at issue time: the caller may reuse it at
//   once. The buffers they point at follow the rules above.
// * Errors of issued work (a bad dtype is reported at issue time, as
//   Error) surface at the next synchronize() as Error.
//
// Implementations: HostDevice (runs everything at once on the calling
// thread; device memory is host memory), CudaDevice (runtime/cuda, built
// with the CUDA toolkit), AsyncTestDevice (test only: one
// worker thread per stream, delayed work, poisoned fresh memory, so
// missing ordering shows up as wrong numbers). The CUDA device implements
// streams and events with cudaStream_t/cudaEvent_t, allocate() by offsets
// in one cudaMalloc block (the reserve()d arena), fill/copy with
// cudaMemsetAsync/cudaMemcpyAsync (host data through pinned staging),
// accumulate/optimizerUpdate with kernels, and call() by passing the
// stream to the compiled stage function, which enqueues its kernels.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_DEVICE_H
#define PIPEWAVE_RUNTIME_DEVICE_H

#include "pipewave-runtime/Optimizer.h"
#include "pipewave-runtime/model.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pipewave::runtime {

/// Handle of a stream: a queue of device work run in issue order.
using StreamId = int32_t;
/// Handle of an event: a captured point in one stream's work.
using EventId = int32_t;

/// Direction of a copy.
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };

class Device {
public:
  virtual ~Device();

  /// "host", "async-test", ...
  virtual std::string name() const = 0;

  /// True when device memory is host memory and host memory is device
  /// memory: the executor then uses the caller's parameters and data in
  /// place, and the host may read device memory after synchronising. False:
  /// the executor keeps device copies and moves data with copy().
  virtual bool sharesHostMemory() const = 0;

  /// `bytes` of device memory (see the contract); nullptr for 0 bytes.
  /// Throws Error when out of memory.
  virtual void *allocate(size_t bytes) = 0;
  /// Frees memory of allocate() (nullptr is ignored).
  virtual void deallocate(void *ptr) = 0;
  /// Says the caller will allocate at most `bytes` in all (the sum of its
  /// allocations, each rounded up to kBufferAlignment) until it frees
  /// everything: a device may take them now as one block (the CUDA
  /// device's arena, DeviceArena.h). The default does nothing.
  virtual void reserve(size_t bytes) { (void)bytes; }

  /// A new stream / event, valid for the device's lifetime.
  virtual StreamId createStream() = 0;
  virtual EventId createEvent() = 0;
  /// Captures the work issued on `stream` so far in `event`.
  virtual void record(EventId event, StreamId stream) = 0;
  /// Work issued on `stream` after this call waits for `event`.
  virtual void wait(StreamId stream, EventId event) = 0;
  /// Blocks the host until `event`'s captured work completed.
  virtual void synchronize(EventId event) = 0;
  /// Blocks the host until all work issued so far completed.
  virtual void synchronize() = 0;

  /// Sets `bytes` bytes at `dst` to `byte`.
  virtual void fill(StreamId stream, void *dst, unsigned char byte,
                    size_t bytes) = 0;
  /// Copies `bytes` bytes (no overlap; a copy onto itself is skipped).
  virtual void copy(StreamId stream, void *dst, const void *src, size_t bytes,
                    CopyKind kind) = 0;
  /// Host memory [ptr, ptr + bytes) that host-to-device copies read from and
  /// that does not change while a copy issued from it can still be running
  /// (a data set the steps slice): a device may pin it and copy from it
  /// directly rather than through staging memory. unregisterHost(ptr) must
  /// come before the memory is freed. The defaults do nothing.
  virtual void registerHost(const void *ptr, size_t bytes) {
    (void)ptr;
    (void)bytes;
  }
  virtual void unregisterHost(const void *ptr) { (void)ptr; }
  /// dst[i] += src[i] for `count` elements of `dtype`, in index order (see
  /// addValues() in Tensor.h for the dtypes; others throw Error here).
  virtual void accumulate(StreamId stream, int32_t dtype, void *dst,
                          const void *src, size_t count) = 0;
  /// optimizerUpdate() (Optimizer.h) of `count` f32 parameters, with the
  /// same float operations in the same order.
  virtual void optimizerUpdate(StreamId stream, const OptimizerConfig &config,
                               int64_t step, float *param, const float *grad,
                               const std::vector<float *> &state,
                               size_t count) = 0;
  /// Whether the device has optimizerUpdateChecked(): an update that tells,
  /// as it runs, whether every gradient it read was finite (the host, whose
  /// update pass reads them anyway). The default: no.
  virtual bool checksInUpdate() const { return false; }
  /// Whether call() runs the stage function on the calling thread before it
  /// returns (the host): its kernels may then read what the executor sets
  /// for the thread around the call (model.h's arm_updates). The default:
  /// no.
  virtual bool callsInline() const { return false; }
  /// optimizerUpdate(), returning whether all `count` gradients were finite
  /// (the host waits); only on a device whose checksInUpdate().
  virtual bool
  optimizerUpdateChecked(StreamId stream, const OptimizerConfig &config,
                         int64_t step, float *param, const float *grad,
                         const std::vector<float *> &state, size_t count);
  /// Whether all `count` floats at `data` (device memory) are finite, once
  /// the work issued on `stream` so far has completed (the host waits). The
  /// default copies them to the host and looks there.
  virtual bool allFinite(StreamId stream, const float *data, size_t count);
  /// Runs stage function `fn(args, results)` on `stream` (for a model
  /// compiled for CUDA, fn is a pw_cuda_stage_fn and also gets the stream).
  virtual void call(StreamId stream, pw_stage_fn fn,
                    const std::vector<void *> &args,
                    const std::vector<void *> &results) = 0;

  /// Graphs (--cuda-graph). True when the device can record a step's work
  /// once and replay it.
  virtual bool supportsGraphs() const { return false; }
  /// The executor brackets every step's device work with these two when it
  /// runs with graphs: the same calls with the same arguments in the same
  /// order every step (the plan is static), and no synchronize() between
  /// them. The device runs the first step as usual, captures the second
  /// and, from the third on, does only the host side of each call (copying
  /// host data into its staging memory, preparing optimizer scalars) and
  /// replays the captured work at endGraphStep(). A step that issues other
  /// work than the captured one is an Error.
  virtual void beginGraphStep() {}
  virtual void endGraphStep() {}
};

/// The host device: device memory is host memory, and every call does its
/// work at once on the calling thread (streams and events are no-ops).
std::unique_ptr<Device> createHostDevice();

/// Test only: a device whose work runs asynchronously on one worker thread
/// per stream, each item after a pseudo-random delay of up to
/// 2 * `meanDelayMicroseconds` (one item in 8 fifty times that), with fresh
/// and freed memory filled with 0xff bytes (NaN for floats) and events
/// really ordering the streams. It
/// computes what the host device computes, bit for bit, when the caller
/// orders its work as the contract says, and usually something else when
/// it does not. It does not share host memory (the executor's copies are
/// exercised), although its memory is host memory.
std::unique_ptr<Device> createAsyncTestDevice(int meanDelayMicroseconds = 20);

/// The device PW_DEVICE names: "host" (the default when unset) or
/// "async-test" (test only; PW_ASYNC_TEST_DELAY_US sets its mean delay,
/// default 20). Throws Error (ExitUsage) for another value.
std::unique_ptr<Device> createDeviceFromEnvironment();

/// The device `model`'s stage code runs on: for a model compiled with
/// `--target cuda` (pw_model.device == PW_DEVICE_CUDA) the CUDA device of
/// GPU `localRank` (libpipewave_runtime_cuda, linked into such binaries;
/// PW_DEVICE must be unset or "cuda"), else createDeviceFromEnvironment().
/// Throws Error (ExitUsage) when a CUDA model runs on a runtime built
/// without CUDA, and Error when there is no usable GPU `localRank`.
std::unique_ptr<Device> createDeviceForModel(const pw_model &model,
                                             int localRank);

/// This process's GPU index on its node as the launcher gives it:
/// OMPI_COMM_WORLD_LOCAL_RANK (mpirun), else LOCAL_RANK (torchrun-style),
/// else 0. Throws Error (ExitUsage) for a value that is not a number >= 0.
int localRankFromEnvironment();

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_DEVICE_H
