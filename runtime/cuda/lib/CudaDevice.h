//===- CudaDevice.h - The runtime's device on one NVIDIA GPU ----*- C++ -*-===//
//
// Part of the pipewave project.
//
// The Device (pipewave-runtime/Device.h) of models compiled with
// `--target cuda`, one per rank, on GPU `localRank`:
//
// * Memory: one cudaMalloc block of the size the executor reserve()s
//   (deviceMemoryBound(): activation pools, parameters, gradients,
//   optimizer state, outputs), carved by a DeviceArena; nothing is
//   allocated during a step. Should an allocation not fit (a sizing bug),
//   it gets its own cudaMalloc and a note on stderr.
// * Streams and events are cudaStream_t (non-blocking) and cudaEvent_t
//   (without timing); record/wait/synchronize map one to one, so the
//   executor's compute and transfer streams overlap, ordered only by its
//   events, and the host waits only where it reads a value.
// * Host-to-device copies go through pinned staging memory (a bump block
//   reset when the device is synchronised, so copies never wait for the
//   driver's pageable path); device-to-host copies are cudaMemcpyAsync.
// * accumulate and optimizerUpdate run DeviceKernels.cu; call() passes the
//   stream to the stage function (pw_cuda_stage_fn).
// * Graphs: see Device::beginGraphStep and CudaGraph.cpp.
// * Errors of the CUDA runtime are thrown as Error naming the call.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_CUDA_LIB_CUDADEVICE_H
#define PIPEWAVE_CUDA_LIB_CUDADEVICE_H

#include "pipewave-runtime/CudaDeviceAccess.h"
#include "pipewave-runtime/Device.h"
#include "pipewave-runtime/DeviceArena.h"
#include "pipewave-runtime/OptimizerMath.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pipewave::runtime::cuda {

/// Throws Error for a failed CUDA call `what`.
void check(cudaError_t err, const char *what);
#define PW_CUDA_TRY(call) ::pipewave::runtime::cuda::check((call), #call)

class CudaDevice final : public Device, public CudaDeviceAccess {
public:
  explicit CudaDevice(int localRank);
  ~CudaDevice() override;

  std::string name() const override { return "cuda"; }
  bool sharesHostMemory() const override { return false; }
  void reserve(size_t bytes) override;
  void *allocate(size_t bytes) override;
  void deallocate(void *ptr) override;
  StreamId createStream() override;
  EventId createEvent() override;
  void record(EventId event, StreamId stream) override;
  void wait(StreamId stream, EventId event) override;
  void synchronize(EventId event) override;
  void synchronize() override;
  void fill(StreamId stream, void *dst, unsigned char byte,
            size_t bytes) override;
  void registerHost(const void *ptr, size_t bytes) override;
  void unregisterHost(const void *ptr) override;
  void copy(StreamId stream, void *dst, const void *src, size_t bytes,
            CopyKind kind) override;
  void accumulate(StreamId stream, int32_t dtype, void *dst, const void *src,
                  size_t count) override;
  void optimizerUpdate(StreamId stream, const OptimizerConfig &config,
                       int64_t step, float *param, const float *grad,
                       const std::vector<float *> &state,
                       size_t count) override;
  /// A kernel sets a flag the host reads back (outside graph capture only).
  bool allFinite(StreamId stream, const float *data, size_t count) override;
  void call(StreamId stream, pw_stage_fn fn, const std::vector<void *> &args,
            const std::vector<void *> &results) override;

  bool supportsGraphs() const override { return true; }
  void beginGraphStep() override;
  void endGraphStep() override;

  /// CudaDeviceAccess: the event the NCCL backend's stream waits for.
  void *cudaEventOf(EventId id) override { return event(id); }

private:
  int ordinal = 0;
  // Memory.
  char *base = nullptr;
  DeviceArena arena;
  std::vector<void *> outside;
  // Pinned staging of host-to-device copies.
  std::vector<char *> stagingBlocks;
  /// Host ranges pinned by registerHost(): uploads read them directly.
  std::vector<std::pair<const char *, size_t>> registered;
  DeviceArena staging;
  std::vector<cudaStream_t> streams;
  std::vector<cudaEvent_t> events;
  // allFinite(): the flag on the device and its pinned host copy.
  unsigned *nonfiniteFlag = nullptr;
  unsigned *nonfiniteHost = nullptr;

  /// Whether [ptr, ptr + bytes) lies in one registerHost() range.
  bool isRegistered(const void *ptr, size_t bytes) const;
  /// Makes GPU `ordinal` current on the calling thread.
  void bind();
  cudaStream_t stream(StreamId id) const;
  cudaEvent_t event(EventId id) const;
  /// `bytes` of pinned staging memory, free until the next synchronize().
  char *stage(size_t bytes);

  // Graphs (CudaGraph.cpp).
  enum class GraphMode { Off, Eager, Capture, Replay };
  /// One issuing call of a bracketed step, as the captured step made it.
  struct GraphCall {
    int kind = 0;
    StreamId stream = -1;
    const void *a = nullptr, *b = nullptr;
    size_t n = 0;
    int64_t extra = 0;
    /// Pinned memory the call reads or writes at replay (copies, scalars):
    /// how much it needs, and where it is.
    size_t pinnedBytes = 0;
    char *pinned = nullptr;
  };
  /// The host side of a captured device-to-host copy (a host node).
  struct HostCopy {
    void *dst;
    const void *src;
    size_t bytes;
  };
  GraphMode mode = GraphMode::Off;
  int graphSteps = 0;
  std::vector<GraphCall> script;
  size_t cursor = 0;
  std::vector<bool> joined;
  StreamId origin = -1;
  std::vector<cudaEvent_t> joinEvents;
  std::vector<char *> pinnedSlots;
  std::vector<std::unique_ptr<HostCopy>> hostCopies;
  std::vector<bool> capturedEvents;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t graphExec = nullptr;

  /// Called by every issuing call inside a bracketed step: false when the
  /// call is to be issued as usual (eager or capturing; `slot` then gets
  /// the pinned memory of a capture), true when replaying (the call is
  /// checked against the script; `slot` gets its pinned memory).
  bool graphCall(GraphCall call, char **slot = nullptr);
  /// Capture: `stream` takes part (joining the capture first).
  void joinCapture(StreamId stream);
  /// Pinned memory for a captured call.
  char *pinnedSlot(size_t bytes);
  void releaseGraph();
};

} // namespace pipewave::runtime::cuda

#endif // PIPEWAVE_CUDA_LIB_CUDADEVICE_H
