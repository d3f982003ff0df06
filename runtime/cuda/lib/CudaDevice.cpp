//===- CudaDevice.cpp - The runtime's device on one NVIDIA GPU ------------===//
//
// Part of the pipewave project.
//
// Memory, streams, events and the eager form of every call; the graph
// brackets are in CudaGraph.cpp.
//
//===----------------------------------------------------------------------===//

#include "CudaDevice.h"
#include "DeviceKernels.h"

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Tensor.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace pipewave::runtime::cuda {

void check(cudaError_t err, const char *what) {
  if (err == cudaSuccess)
    return;
  throw Error(std::string("CUDA: ") + what + " failed: " +
              cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

namespace {

/// Pinned staging grows in blocks of at least this many bytes.
constexpr size_t kStagingBlock = size_t(1) << 20;

} // namespace

CudaDevice::CudaDevice(int localRank) : ordinal(localRank) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::string why = err != cudaSuccess ? std::string(cudaGetErrorName(err)) +
                                               ": " + cudaGetErrorString(err)
                                         : "the driver reports no GPU";
    cudaGetLastError();
    throw Error("this binary was compiled with --target cuda but no CUDA "
                "GPU is usable here (" +
                why + ")");
  }
  if (localRank < 0 || localRank >= count)
    throw Error("local rank " + std::to_string(localRank) +
                " has no GPU: this node has " + std::to_string(count) +
                " (start one process per GPU)");
  bind();
  // The stage code's temporaries are stream-ordered allocations from the
  // device's default pool, which by default gives its memory back to the
  // driver at every synchronisation: each step would map it again. Keep it.
  cudaMemPool_t pool = nullptr;
  PW_CUDA_TRY(cudaDeviceGetDefaultMemPool(&pool, ordinal));
  uint64_t keep = UINT64_MAX;
  PW_CUDA_TRY(
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
}

CudaDevice::~CudaDevice() {
  // Errors are ignored: the process may be ending after a failed step.
  cudaSetDevice(ordinal);
  cudaDeviceSynchronize();
  releaseGraph();
  for (void *ptr : outside)
    cudaFree(ptr);
  if (base)
    cudaFree(base);
  for (char *block : stagingBlocks)
    cudaFreeHost(block);
  for (const auto &range : registered)
    cudaHostUnregister(const_cast<char *>(range.first));
  if (nonfiniteFlag)
    cudaFree(nonfiniteFlag);
  if (nonfiniteHost)
    cudaFreeHost(nonfiniteHost);
  for (cudaEvent_t e : events)
    cudaEventDestroy(e);
  for (cudaEvent_t e : joinEvents)
    if (e)
      cudaEventDestroy(e);
  for (cudaStream_t s : streams)
    cudaStreamDestroy(s);
  cudaGetLastError();
}

void CudaDevice::bind() { PW_CUDA_TRY(cudaSetDevice(ordinal)); }

cudaStream_t CudaDevice::stream(StreamId id) const {
  if (id < 0 || static_cast<size_t>(id) >= streams.size())
    throw Error("internal error: no CUDA stream " + std::to_string(id));
  return streams[id];
}

cudaEvent_t CudaDevice::event(EventId id) const {
  if (id < 0 || static_cast<size_t>(id) >= events.size())
    throw Error("internal error: no CUDA event " + std::to_string(id));
  return events[id];
}

void CudaDevice::reserve(size_t bytes) {
  if (base || arena.used())
    throw Error("internal error: CUDA device memory reserved twice");
  bind();
  if (bytes)
    PW_CUDA_TRY(cudaMalloc(reinterpret_cast<void **>(&base), bytes));
  arena = DeviceArena(bytes);
}

void *CudaDevice::allocate(size_t bytes) {
  if (bytes == 0)
    return nullptr;
  size_t offset = arena.allocate(bytes);
  if (offset != DeviceArena::npos)
    return base + offset;
  if (outside.empty())
    std::fprintf(stderr,
                 "pipewave: note: the CUDA device's arena of %zu bytes is "
                 "full; allocating %zu more bytes outside it\n",
                 arena.capacity(), bytes);
  bind();
  void *ptr = nullptr;
  PW_CUDA_TRY(cudaMalloc(&ptr, alignUp(bytes)));
  outside.push_back(ptr);
  return ptr;
}

void CudaDevice::deallocate(void *ptr) {
  if (!ptr)
    return;
  char *p = static_cast<char *>(ptr);
  if (base && p >= base && p < base + arena.capacity()) {
    arena.release(static_cast<size_t>(p - base));
    return;
  }
  auto it = std::find(outside.begin(), outside.end(), ptr);
  if (it == outside.end())
    throw Error("internal error: freeing CUDA memory not allocated here");
  bind();
  PW_CUDA_TRY(cudaFree(ptr));
  outside.erase(it);
}

StreamId CudaDevice::createStream() {
  bind();
  cudaStream_t s = nullptr;
  PW_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  streams.push_back(s);
  joined.push_back(false);
  joinEvents.push_back(nullptr);
  return static_cast<StreamId>(streams.size() - 1);
}

EventId CudaDevice::createEvent() {
  bind();
  cudaEvent_t e = nullptr;
  PW_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  events.push_back(e);
  capturedEvents.push_back(false);
  return static_cast<EventId>(events.size() - 1);
}

void CudaDevice::record(EventId e, StreamId s) {
  GraphCall call;
  call.kind = 1;
  call.stream = s;
  call.extra = e;
  if (graphCall(call))
    return;
  PW_CUDA_TRY(cudaEventRecord(event(e), stream(s)));
  if (mode == GraphMode::Capture)
    capturedEvents[e] = true;
}

void CudaDevice::wait(StreamId s, EventId e) {
  GraphCall call;
  call.kind = 2;
  call.stream = s;
  call.extra = e;
  if (graphCall(call))
    return;
  // Inside a capture, an event recorded before the step is complete (the
  // executor synchronises between steps) and may not be waited for.
  if (mode == GraphMode::Capture && !capturedEvents[e])
    return;
  PW_CUDA_TRY(cudaStreamWaitEvent(stream(s), event(e), 0));
}

void CudaDevice::synchronize(EventId e) {
  if (mode == GraphMode::Capture || mode == GraphMode::Replay)
    throw Error("internal error: host synchronisation inside a graph step");
  PW_CUDA_TRY(cudaEventSynchronize(event(e)));
  PW_CUDA_TRY(cudaGetLastError());
}

void CudaDevice::synchronize() {
  if (mode == GraphMode::Capture || mode == GraphMode::Replay)
    throw Error("internal error: host synchronisation inside a graph step");
  bind();
  for (cudaStream_t s : streams)
    PW_CUDA_TRY(cudaStreamSynchronize(s));
  PW_CUDA_TRY(cudaGetLastError());
  // Every staged copy has completed: keep only the largest block.
  while (stagingBlocks.size() > 1) {
    PW_CUDA_TRY(cudaFreeHost(stagingBlocks.front()));
    stagingBlocks.erase(stagingBlocks.begin());
  }
  staging.reset();
}

char *CudaDevice::stage(size_t bytes) {
  size_t offset =
      stagingBlocks.empty() ? DeviceArena::npos : staging.allocate(bytes);
  if (offset == DeviceArena::npos) {
    // A new, larger block; the old one stays until the next synchronize().
    size_t size =
        std::max({kStagingBlock, alignUp(bytes), 2 * staging.capacity()});
    char *block = nullptr;
    PW_CUDA_TRY(cudaMallocHost(reinterpret_cast<void **>(&block), size));
    stagingBlocks.push_back(block);
    staging = DeviceArena(size);
    offset = staging.allocate(bytes);
  }
  return stagingBlocks.back() + offset;
}

void CudaDevice::fill(StreamId s, void *dst, unsigned char byte, size_t bytes) {
  GraphCall call;
  call.kind = 3;
  call.stream = s;
  call.a = dst;
  call.n = bytes;
  call.extra = byte;
  if (graphCall(call) || bytes == 0)
    return;
  PW_CUDA_TRY(cudaMemsetAsync(dst, byte, bytes, stream(s)));
}

void CudaDevice::registerHost(const void *ptr, size_t bytes) {
  // Small inputs copy through staging as fast; pinning costs a system call.
  if (!ptr || bytes < kStagingBlock)
    return;
  bind();
  if (cudaHostRegister(const_cast<void *>(ptr), bytes,
                       cudaHostRegisterDefault) != cudaSuccess) {
    // Best effort: uploads from it go through staging memory.
    cudaGetLastError();
    return;
  }
  registered.emplace_back(static_cast<const char *>(ptr), bytes);
}

void CudaDevice::unregisterHost(const void *ptr) {
  for (size_t i = 0; i < registered.size(); ++i)
    if (registered[i].first == ptr) {
      // Copies from it on this device's streams may still run. Errors are
      // ignored: this runs while a failed run unwinds too.
      cudaSetDevice(ordinal);
      for (cudaStream_t s : streams)
        cudaStreamSynchronize(s);
      cudaHostUnregister(const_cast<void *>(ptr));
      cudaGetLastError();
      registered.erase(registered.begin() + static_cast<long>(i));
      return;
    }
}

bool CudaDevice::isRegistered(const void *ptr, size_t bytes) const {
  const char *p = static_cast<const char *>(ptr);
  for (const auto &[begin, size] : registered)
    if (p >= begin && p + bytes <= begin + size)
      return true;
  return false;
}

void CudaDevice::copy(StreamId s, void *dst, const void *src, size_t bytes,
                      CopyKind kind) {
  GraphCall call;
  call.kind = 4 + static_cast<int>(kind);
  call.stream = s;
  call.a = dst;
  // The host data of an upload changes from step to step; the rest not.
  call.b = kind == CopyKind::HostToDevice ? nullptr : src;
  call.n = bytes;
  bool hostSide = kind != CopyKind::DeviceToDevice;
  call.pinnedBytes = hostSide ? bytes : 0;
  char *slot = nullptr;
  bool replay = graphCall(call, hostSide ? &slot : nullptr);
  if (bytes == 0 || dst == src)
    return;
  if (replay) {
    if (kind == CopyKind::HostToDevice)
      std::memcpy(slot, src, bytes);
    return;
  }
  cudaStream_t st = stream(s);
  switch (kind) {
  case CopyKind::HostToDevice: {
    if (!slot && isRegistered(src, bytes)) {
      PW_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st));
      return;
    }
    char *from = slot ? slot : stage(bytes);
    std::memcpy(from, src, bytes);
    PW_CUDA_TRY(cudaMemcpyAsync(dst, from, bytes, cudaMemcpyHostToDevice, st));
    return;
  }
  case CopyKind::DeviceToHost:
    if (!slot) {
      PW_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, st));
      return;
    }
    // Captured: into pinned memory, then a host node copies it out.
    PW_CUDA_TRY(cudaMemcpyAsync(slot, src, bytes, cudaMemcpyDeviceToHost, st));
    hostCopies.push_back(
        std::make_unique<HostCopy>(HostCopy{dst, slot, bytes}));
    PW_CUDA_TRY(cudaLaunchHostFunc(
        st,
        [](void *data) {
          const HostCopy *c = static_cast<const HostCopy *>(data);
          std::memcpy(c->dst, c->src, c->bytes);
        },
        hostCopies.back().get()));
    return;
  case CopyKind::DeviceToDevice:
    PW_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st));
    return;
  }
}

void CudaDevice::accumulate(StreamId s, int32_t dtype, void *dst,
                            const void *src, size_t count) {
  GraphCall call;
  call.kind = 7;
  call.stream = s;
  call.a = dst;
  call.b = src;
  call.n = count;
  call.extra = dtype;
  if (graphCall(call))
    return;
  if (!launchAccumulate(dtype, dst, src, count, stream(s)))
    throw Error("cannot sum values of dtype " + dtypeName(dtype));
}

bool CudaDevice::allFinite(StreamId s, const float *data, size_t count) {
  bind();
  if (!nonfiniteFlag) {
    PW_CUDA_TRY(cudaMalloc(reinterpret_cast<void **>(&nonfiniteFlag),
                           sizeof(unsigned)));
    PW_CUDA_TRY(cudaMallocHost(reinterpret_cast<void **>(&nonfiniteHost),
                               sizeof(unsigned)));
  }
  cudaStream_t st = stream(s);
  PW_CUDA_TRY(cudaMemsetAsync(nonfiniteFlag, 0, sizeof(unsigned), st));
  launchFlagNonfinite(data, count, nonfiniteFlag, st);
  PW_CUDA_TRY(cudaMemcpyAsync(nonfiniteHost, nonfiniteFlag, sizeof(unsigned),
                              cudaMemcpyDeviceToHost, st));
  PW_CUDA_TRY(cudaStreamSynchronize(st));
  PW_CUDA_TRY(cudaGetLastError());
  return *nonfiniteHost == 0;
}

/// Copies `scalars` into the pinned `slot` a captured kernel reads, and
/// returns its device address; null (no slot) means pass by value.
template <typename Scalars>
static Scalars *pinScalars(const Scalars &scalars, char *slot) {
  if (!slot)
    return nullptr;
  std::memcpy(slot, &scalars, sizeof(scalars));
  Scalars *at = nullptr;
  PW_CUDA_TRY(
      cudaHostGetDevicePointer(reinterpret_cast<void **>(&at), slot, 0));
  return at;
}

void CudaDevice::optimizerUpdate(StreamId s, const OptimizerConfig &config,
                                 int64_t step, float *param, const float *grad,
                                 const std::vector<float *> &state,
                                 size_t count) {
  if (step < 1)
    throw Error("internal error: optimizer step " + std::to_string(step));
  bool sgd = config.kind == OptimizerKind::SGD;
  GraphCall call;
  call.kind = 8;
  call.stream = s;
  call.a = param;
  call.b = grad;
  call.n = count;
  call.pinnedBytes = sgd ? sizeof(SgdScalars) : sizeof(AdamScalars);
  char *slot = nullptr;
  bool replay = graphCall(call, &slot);
  // Scalars of this step: by value, or in pinned memory the captured
  // kernel reads (rewritten before every replay).
  if (sgd) {
    SgdScalars scalars = sgdScalars(config, step);
    SgdScalars *at = pinScalars(scalars, slot);
    if (!replay)
      launchSgd(scalars, at, param, grad, scalars.momentum ? state[0] : nullptr,
                count, stream(s));
    return;
  }
  AdamScalars scalars = adamScalars(config, step);
  AdamScalars *at = pinScalars(scalars, slot);
  if (!replay)
    launchAdam(scalars, at, param, grad, state[0], state[1], count, stream(s));
}

void CudaDevice::call(StreamId s, pw_stage_fn fn,
                      const std::vector<void *> &args,
                      const std::vector<void *> &results) {
  GraphCall call;
  call.kind = 9;
  call.stream = s;
  call.a = reinterpret_cast<const void *>(fn);
  // The buffers, folded into one number (FNV-1a over the pointers).
  uint64_t hash = 1469598103934665603ull;
  for (const std::vector<void *> *list : {&args, &results})
    for (void *ptr : *list)
      hash = (hash ^ reinterpret_cast<uintptr_t>(ptr)) * 1099511628211ull;
  call.extra = static_cast<int64_t>(hash);
  call.n = args.size() * 1000 + results.size();
  if (graphCall(call))
    return;
  bind();
  // Through void (*)(): the descriptor stores pw_cuda_stage_fn pointers
  // as pw_stage_fn (model.h, PW_DEVICE_CUDA).
  auto stageFn =
      reinterpret_cast<pw_cuda_stage_fn>(reinterpret_cast<void (*)()>(fn));
  stageFn(args.data(), results.data(), stream(s));
}

} // namespace pipewave::runtime::cuda

/// The factory the runtime finds through a weak reference (DeviceSelect.cpp).
extern "C" void *pw_runtime_cuda_device(int localRank) {
  return static_cast<pipewave::runtime::Device *>(
      new pipewave::runtime::cuda::CudaDevice(localRank));
}
