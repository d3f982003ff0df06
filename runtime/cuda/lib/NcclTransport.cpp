//===- NcclTransport.cpp - libpipewave_nccl: NCCL under a C ABI -----------===//
//
// Part of the pipewave project.
//
// See pipewave-cuda/nccl_backend.h. Failures inside are C++ exceptions
// (Failure), turned into the C ABI's error strings at the boundary.
//
// Non-blocking communicators: every NCCL call may return ncclInProgress,
// after which ncclCommGetAsyncError is polled until the communicator is
// ready again (settle()), with the create timeout as deadline. Device work
// is never waited for with a blocking CUDA call: events are queried.
//
// The watchdog thread polls every communicator's asynchronous error; on an
// error (a peer died, a network failure) it aborts them all (ncclCommAbort)
// and records the message, which the next test or host collective reports.
// `mutex` keeps the watchdog from aborting while another thread is inside
// an NCCL call on the same communicators.
//
//===----------------------------------------------------------------------===//

#include "pipewave-cuda/nccl_backend.h"
#include "pipewave-runtime/model.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void check(cudaError_t status, const char *what) {
  if (status != cudaSuccess)
    throw Failure(std::string("CUDA: ") + what + ": " +
                  cudaGetErrorString(status));
}

std::string ncclText(ncclResult_t status, ncclComm_t comm) {
  std::string text = ncclGetErrorString(status);
  const char *last = comm ? ncclGetLastError(comm) : nullptr;
  if (last && *last)
    text += std::string(" (") + last + ")";
  return text;
}

ncclDataType_t ncclType(int32_t dtype) {
  switch (dtype) {
  case PW_F32:
    return ncclFloat32;
  case PW_F64:
    return ncclFloat64;
  case PW_I32:
    return ncclInt32;
  case PW_I64:
    return ncclInt64;
  default:
    throw Failure("NCCL all-reduce of unsupported dtype " +
                  std::to_string(dtype));
  }
}

size_t dtypeBytes(int32_t dtype) {
  return dtype == PW_F32 || dtype == PW_I32 ? 4 : 8;
}

void fill(char *err, size_t errlen, const std::string &message) {
  if (err && errlen) {
    std::strncpy(err, message.c_str(), errlen - 1);
    err[errlen - 1] = '\0';
  }
}

} // namespace

struct pw_nccl {
  int rank = 0;
  int size = 1;
  double timeout = 30;
  ncclComm_t world = nullptr;
  /// Split communicators by index (the member's; non-members get none).
  std::vector<ncclComm_t> split;
  cudaStream_t stream = nullptr;
  /// Completion events by token; freed tokens are reused.
  std::vector<cudaEvent_t> events;
  std::vector<int64_t> freeTokens;
  /// Host collectives go through pinned host memory (so that no copy
  /// blocks the host) and device memory.
  void *staging = nullptr;
  void *pinned = nullptr;
  size_t stagingBytes = 0;

  std::mutex mutex;
  std::string asyncError;
  std::atomic<bool> aborted{false};
  std::atomic<bool> stopping{false};
  std::thread watchdog;

  /// Every communicator (world first).
  std::vector<ncclComm_t> comms() const {
    std::vector<ncclComm_t> all{world};
    for (ncclComm_t comm : split)
      if (comm)
        all.push_back(comm);
    return all;
  }

  /// Throws the watchdog's error, if any.
  void checkAsync() {
    if (!aborted)
      return;
    std::lock_guard<std::mutex> lock(mutex);
    throw Failure(asyncError.empty() ? "the NCCL communicators were aborted"
                                     : asyncError);
  }

  /// Runs `call` (NCCL calls on the communicators) under `mutex`, unless
  /// the watchdog aborted them (their handles are then gone): throws its
  /// error instead.
  template <typename Call> auto locked(Call call) -> decltype(call()) {
    std::lock_guard<std::mutex> lock(mutex);
    if (aborted)
      throw Failure(asyncError.empty() ? "the NCCL communicators were aborted"
                                       : asyncError);
    return call();
  }

  /// Polls `comm` until its last operation left ncclInProgress.
  void settle(ncclComm_t comm, ncclResult_t status, const char *what) {
    double deadline = now() + timeout;
    while (status == ncclInProgress) {
      if (now() > deadline) {
        abortAll("NCCL: " + std::string(what) + " did not finish within " +
                 std::to_string(timeout) + " s");
        checkAsync();
      }
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      status = locked([&] {
        ncclResult_t state = ncclSuccess;
        ncclCommGetAsyncError(comm, &state);
        return state;
      });
    }
    if (status != ncclSuccess)
      throw Failure("NCCL: " + std::string(what) + ": " +
                    locked([&] { return ncclText(status, comm); }));
  }

  void abortAll(const std::string &why) {
    bool expected = false;
    if (!aborted.compare_exchange_strong(expected, true))
      return;
    std::lock_guard<std::mutex> lock(mutex);
    asyncError = why;
    for (ncclComm_t comm : comms())
      if (comm)
        ncclCommAbort(comm);
  }

  void watch() {
    while (!stopping && !aborted) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::unique_lock<std::mutex> lock(mutex, std::try_to_lock);
      if (!lock.owns_lock())
        continue;
      for (ncclComm_t comm : comms()) {
        ncclResult_t status = ncclSuccess;
        if (!comm || ncclCommGetAsyncError(comm, &status) != ncclSuccess ||
            status == ncclSuccess || status == ncclInProgress)
          continue;
        std::string why = "NCCL error on rank " + std::to_string(rank) + ": " +
                          ncclText(status, comm) +
                          " (a peer died or the network failed)";
        lock.unlock();
        abortAll(why);
        return;
      }
    }
  }

  int64_t newToken() {
    if (!freeTokens.empty()) {
      int64_t token = freeTokens.back();
      freeTokens.pop_back();
      return token;
    }
    cudaEvent_t event;
    check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming),
          "cudaEventCreate");
    events.push_back(event);
    return static_cast<int64_t>(events.size() - 1);
  }

  /// Device staging of `bytes`; `pinned` holds as many host bytes.
  void *stage(size_t bytes) {
    if (bytes > stagingBytes) {
      if (staging)
        check(cudaFree(staging), "cudaFree");
      if (pinned)
        check(cudaFreeHost(pinned), "cudaFreeHost");
      staging = pinned = nullptr;
      stagingBytes = 0;
      check(cudaMalloc(&staging, bytes), "cudaMalloc (staging)");
      check(cudaMallocHost(&pinned, bytes), "cudaMallocHost (staging)");
      stagingBytes = bytes;
    }
    return staging;
  }

  /// Records an event after the stream's work and polls it.
  void finish(const char *what) {
    int64_t token = newToken();
    check(cudaEventRecord(events[token], stream), "cudaEventRecord");
    double deadline = now() + timeout;
    for (;;) {
      checkAsync();
      cudaError_t status = cudaEventQuery(events[token]);
      if (status == cudaSuccess)
        break;
      if (status != cudaErrorNotReady)
        check(status, what);
      if (now() > deadline) {
        abortAll(std::string("NCCL: ") + what + " did not finish within " +
                 std::to_string(timeout) + " s (a peer died or hangs)");
        checkAsync();
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    freeTokens.push_back(token);
  }
};

namespace {

/// Runs `body`, turning an exception into `err` and `failed`.
template <typename Result, typename Body>
Result guarded(char *err, size_t errlen, Result failed, Body body) {
  try {
    return body();
  } catch (const std::exception &e) {
    fill(err, errlen, e.what());
    return failed;
  }
}

ncclConfig_t nonBlocking() {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  return config;
}

} // namespace

extern "C" {

int pw_nccl_abi_version(void) { return PW_NCCL_ABI_VERSION; }

int pw_nccl_unique_id(unsigned char id[PW_NCCL_ID_BYTES], char *err,
                      size_t errlen) {
  static_assert(sizeof(ncclUniqueId) == PW_NCCL_ID_BYTES, "id size");
  ncclUniqueId unique;
  ncclResult_t status = ncclGetUniqueId(&unique);
  if (status != ncclSuccess) {
    fill(err, errlen, "ncclGetUniqueId: " + ncclText(status, nullptr));
    return 1;
  }
  std::memcpy(id, &unique, PW_NCCL_ID_BYTES);
  return 0;
}

pw_nccl *pw_nccl_create(const unsigned char id[PW_NCCL_ID_BYTES], int rank,
                        int size, int device, double timeout_s, char *err,
                        size_t errlen) {
  auto *nccl = new pw_nccl;
  nccl->rank = rank;
  nccl->size = size;
  nccl->timeout = timeout_s > 0 ? timeout_s : 1e9;
  try {
    int devices = 0;
    check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    if (devices < 1)
      throw Failure("no CUDA device");
    check(cudaSetDevice(device % devices), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&nccl->stream, cudaStreamNonBlocking),
          "cudaStreamCreate");
    // Staging for host collectives, allocated now: growing it later
    // (cudaFree) synchronises the device.
    nccl->stage(1 << 20);
    ncclUniqueId unique;
    std::memcpy(&unique, id, PW_NCCL_ID_BYTES);
    ncclConfig_t config = nonBlocking();
    ncclResult_t status =
        ncclCommInitRankConfig(&nccl->world, size, unique, rank, &config);
    if (status != ncclSuccess && status != ncclInProgress)
      throw Failure("ncclCommInitRank: " + ncclText(status, nullptr));
    nccl->settle(nccl->world, ncclInProgress,
                 "joining the other ranks (ncclCommInitRank)");
    nccl->watchdog = std::thread([nccl] { nccl->watch(); });
    return nccl;
  } catch (const std::exception &e) {
    fill(err, errlen,
         std::string("rank ") + std::to_string(rank) + ": " + e.what());
    if (nccl->world)
      ncclCommAbort(nccl->world);
    delete nccl;
    return nullptr;
  }
}

int pw_nccl_split(pw_nccl *nccl, const int32_t *group, int32_t group_size,
                  char *err, size_t errlen) {
  return guarded(err, errlen, -2, [&]() -> int {
    nccl->checkAsync();
    int key = -1;
    for (int i = 0; i < group_size; ++i)
      if (group[i] == nccl->rank)
        key = i;
    // One color per split call; non-members take no part.
    int color = key >= 0 ? static_cast<int>(nccl->split.size()) + 1
                         : NCCL_SPLIT_NOCOLOR;
    ncclComm_t comm = nullptr;
    ncclConfig_t config = nonBlocking();
    ncclResult_t status = nccl->locked([&] {
      return ncclCommSplit(nccl->world, color, key < 0 ? 0 : key, &comm,
                           &config);
    });
    if (status != ncclSuccess && status != ncclInProgress)
      throw Failure("ncclCommSplit: " + ncclText(status, nccl->world));
    nccl->settle(nccl->world, ncclInProgress, "splitting a communicator");
    if (comm)
      nccl->settle(comm, ncclInProgress, "splitting a communicator");
    std::lock_guard<std::mutex> lock(nccl->mutex);
    nccl->split.push_back(comm);
    return key >= 0 ? static_cast<int>(nccl->split.size()) - 1 : -1;
  });
}

int pw_nccl_issue(pw_nccl *nccl, const pw_nccl_op *ops, int32_t n,
                  int64_t *token, char *err, size_t errlen) {
  return guarded(err, errlen, 1, [&]() -> int {
    nccl->checkAsync();
    for (int32_t i = 0; i < n; ++i)
      if (ops[i].ready)
        check(cudaStreamWaitEvent(nccl->stream,
                                  static_cast<cudaEvent_t>(ops[i].ready), 0),
              "cudaStreamWaitEvent");
    std::vector<ncclComm_t> used;
    ncclResult_t status = nccl->locked([&] {
      ncclResult_t status = ncclSuccess;
      ncclGroupStart();
      for (int32_t i = 0; i < n && status == ncclSuccess; ++i) {
        const pw_nccl_op &op = ops[i];
        if (op.kind == PW_NCCL_SEND) {
          status = ncclSend(op.data, op.bytes, ncclUint8, op.peer, nccl->world,
                            nccl->stream);
          used.push_back(nccl->world);
        } else if (op.kind == PW_NCCL_RECV) {
          status = ncclRecv(op.data, op.bytes, ncclUint8, op.peer, nccl->world,
                            nccl->stream);
          used.push_back(nccl->world);
        } else {
          if (op.communicator < 0 ||
              op.communicator >= static_cast<int>(nccl->split.size()) ||
              !nccl->split[op.communicator])
            throw Failure("internal error: all-reduce on unknown "
                          "communicator " +
                          std::to_string(op.communicator));
          ncclComm_t comm = nccl->split[op.communicator];
          status = ncclAllReduce(op.data, op.data, op.count, ncclType(op.dtype),
                                 ncclSum, comm, nccl->stream);
          used.push_back(comm);
        }
      }
      ncclResult_t end = ncclGroupEnd();
      return status == ncclSuccess || status == ncclInProgress ? end : status;
    });
    if (status != ncclSuccess && status != ncclInProgress)
      throw Failure("NCCL: issuing a group: " + nccl->locked([&] {
        return ncclText(status, used.empty() ? nullptr : used[0]);
      }));
    for (ncclComm_t comm : used)
      nccl->settle(comm, ncclInProgress, "issuing a group");
    *token = nccl->newToken();
    check(cudaEventRecord(nccl->events[*token], nccl->stream),
          "cudaEventRecord");
    return 0;
  });
}

int pw_nccl_test(pw_nccl *nccl, int64_t token, char *err, size_t errlen) {
  return guarded(err, errlen, -1, [&]() -> int {
    nccl->checkAsync();
    if (token < 0 || token >= static_cast<int64_t>(nccl->events.size()))
      throw Failure("internal error: unknown NCCL token");
    cudaError_t status = cudaEventQuery(nccl->events[token]);
    if (status == cudaErrorNotReady)
      return 0;
    check(status, "a group of NCCL operations");
    nccl->freeTokens.push_back(token);
    return 1;
  });
}

int pw_nccl_host_allreduce(pw_nccl *nccl, void *data, size_t count,
                           int32_t dtype, int32_t reduce, char *err,
                           size_t errlen) {
  return guarded(err, errlen, 1, [&]() -> int {
    nccl->checkAsync();
    size_t bytes = count * dtypeBytes(dtype);
    void *device = nccl->stage(bytes);
    std::memcpy(nccl->pinned, data, bytes);
    check(cudaMemcpyAsync(device, nccl->pinned, bytes, cudaMemcpyHostToDevice,
                          nccl->stream),
          "cudaMemcpyAsync");
    ncclRedOp_t op = reduce == PW_NCCL_MIN   ? ncclMin
                     : reduce == PW_NCCL_MAX ? ncclMax
                                             : ncclSum;
    ncclResult_t status = nccl->locked([&] {
      return ncclAllReduce(device, device, count, ncclType(dtype), op,
                           nccl->world, nccl->stream);
    });
    if (status != ncclSuccess && status != ncclInProgress)
      throw Failure("NCCL: a host all-reduce: " +
                    ncclText(status, nccl->world));
    nccl->settle(nccl->world, ncclInProgress, "a host all-reduce");
    check(cudaMemcpyAsync(nccl->pinned, device, bytes, cudaMemcpyDeviceToHost,
                          nccl->stream),
          "cudaMemcpyAsync");
    nccl->finish("a host all-reduce");
    std::memcpy(data, nccl->pinned, bytes);
    return 0;
  });
}

int pw_nccl_host_allgather(pw_nccl *nccl, const void *mine, size_t bytes,
                           void *all, char *err, size_t errlen) {
  return guarded(err, errlen, 1, [&]() -> int {
    nccl->checkAsync();
    size_t total = bytes * static_cast<size_t>(nccl->size);
    auto *device = static_cast<char *>(nccl->stage(bytes + total));
    std::memcpy(nccl->pinned, mine, bytes);
    check(cudaMemcpyAsync(device, nccl->pinned, bytes, cudaMemcpyHostToDevice,
                          nccl->stream),
          "cudaMemcpyAsync");
    ncclResult_t status = nccl->locked([&] {
      return ncclAllGather(device, device + bytes, bytes, ncclUint8,
                           nccl->world, nccl->stream);
    });
    if (status != ncclSuccess && status != ncclInProgress)
      throw Failure("NCCL: a host all-gather: " +
                    ncclText(status, nccl->world));
    nccl->settle(nccl->world, ncclInProgress, "a host all-gather");
    check(cudaMemcpyAsync(nccl->pinned, device + bytes, total,
                          cudaMemcpyDeviceToHost, nccl->stream),
          "cudaMemcpyAsync");
    nccl->finish("a host all-gather");
    std::memcpy(all, nccl->pinned, total);
    return 0;
  });
}

void pw_nccl_abort(pw_nccl *nccl) {
  if (nccl)
    nccl->abortAll("aborted by rank " + std::to_string(nccl->rank));
}

void pw_nccl_destroy(pw_nccl *nccl) {
  if (!nccl)
    return;
  nccl->stopping = true;
  if (nccl->watchdog.joinable())
    nccl->watchdog.join();
  if (!nccl->aborted) {
    for (ncclComm_t comm : nccl->comms()) {
      ncclResult_t status = ncclCommFinalize(comm);
      if (status == ncclInProgress)
        ncclCommGetAsyncError(comm, &status);
      double deadline = now() + nccl->timeout;
      while (status == ncclInProgress && now() < deadline) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        ncclCommGetAsyncError(comm, &status);
      }
      if (status == ncclSuccess)
        ncclCommDestroy(comm);
      else
        ncclCommAbort(comm);
    }
  }
  for (cudaEvent_t event : nccl->events)
    cudaEventDestroy(event);
  if (nccl->staging)
    cudaFree(nccl->staging);
  if (nccl->pinned)
    cudaFreeHost(nccl->pinned);
  if (nccl->stream)
    cudaStreamDestroy(nccl->stream);
  delete nccl;
}

} // extern "C"
