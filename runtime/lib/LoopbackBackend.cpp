//===- LoopbackBackend.cpp - One rank of an in-process job ----------------===//
//
// Part of the pipewave project.
//
// The Backend of one rank of a LoopbackHub (see Loopback.h). Plain
// operations (isend, irecv, iallreduce, ibarrier, gather) work on host
// memory and complete on the host when matched; the device-ordered forms
// copy and sum through the ranks' devices.
//
//===----------------------------------------------------------------------===//

#include "LoopbackHub.h"

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Tensor.h"

#include <cstdio>
#include <thread>
#include <unistd.h>

namespace pipewave::runtime {

namespace {

thread_local int threadRank = -1;

[[noreturn]] void exitProcess(int rank, const std::string &message,
                              int exitCode) {
  std::fflush(stdout);
  std::fprintf(stderr, "pipewave: rank %d: %s\n", rank, message.c_str());
  std::fflush(stderr);
  _exit(exitCode);
}

class LoopbackBackend final : public Backend {
public:
  LoopbackBackend(std::shared_ptr<LoopbackHub> hub, int rank)
      : hub(std::move(hub)), myRank(rank) {}

  std::string name() const override { return "loopback"; }
  int rank() const override { return myRank; }
  int size() const override { return hub->size(); }

  RequestId isend(const void *data, size_t bytes, int peer,
                  int64_t tag) override {
    checkPeer(peer);
    std::lock_guard<std::mutex> lock(hub->mutex);
    return add({hub->postSend(myRank, peer, tag, data, bytes, false), {}});
  }

  RequestId irecv(void *data, size_t bytes, int peer, int64_t tag) override {
    checkPeer(peer);
    std::lock_guard<std::mutex> lock(hub->mutex);
    return add({hub->postRecv(myRank, peer, tag, data, bytes), {}});
  }

  RequestId isendAfter(Device &device, EventId ready, const void *data,
                       size_t bytes, int peer, int64_t tag) override {
    checkPeer(peer);
    bind(device);
    // Captures `ready` now: the copy, issued later on the same stream,
    // follows it.
    device.wait(stream, ready);
    RequestId id;
    {
      std::lock_guard<std::mutex> lock(hub->mutex);
      id = add({hub->postSend(myRank, peer, tag, data, bytes, true), {}});
    }
    progress();
    return id;
  }

  RequestId irecvAfter(Device &device, EventId ready, void *data, size_t bytes,
                       int peer, int64_t tag) override {
    // The last use of the buffer is usually long done: wait on the host, so
    // the sender's device may write the buffer whenever it copies.
    device.synchronize(ready);
    return irecv(data, bytes, peer, tag);
  }

  RequestId iallreduce(void *data, size_t count, int32_t dtype, ReduceOp op,
                       const std::vector<int> &group) override {
    LoopbackCollective spec = allReduceSpec(count, dtype, op, group);
    return postCollective(spec, data, {});
  }

  RequestId iallreduceAfter(Device &device, EventId ready, void *data,
                            size_t count, int32_t dtype, ReduceOp op,
                            const std::vector<int> &group) override {
    LoopbackCollective spec = allReduceSpec(count, dtype, op, group);
    if (op != ReduceOp::Sum)
      throw Error("the loopback backend sums device buffers only; " +
                  spec.describe() + " asks for a minimum or maximum");
    bind(device);
    device.synchronize(ready);
    spec.onDevice = true;
    return postCollective(spec, data, {});
  }

  RequestId ibarrier() override {
    LoopbackCollective spec;
    spec.kind = CollectiveKind::Barrier;
    spec.group = normalise({});
    return postCollective(spec, nullptr, {});
  }

  std::vector<std::string> gather(const std::string &bytes, int root) override {
    checkPeer(root);
    LoopbackCollective spec;
    spec.kind = CollectiveKind::Gather;
    spec.group = normalise({});
    spec.root = root;
    RequestId id = postCollective(spec, nullptr, bytes);
    std::shared_ptr<LoopbackCollective> collective = requests[id].collective;
    wait(id, "the gather on rank " + std::to_string(root));
    if (myRank != root)
      return {};
    std::lock_guard<std::mutex> lock(hub->mutex);
    return collective->strings;
  }

  bool test(RequestId request) override {
    if (request < 0 || static_cast<size_t>(request) >= requests.size() ||
        (!requests[request].message && !requests[request].collective))
      throw Error("internal error: test() of an unknown request");
    progress();
    Pending &pending = requests[request];
    std::unique_lock<std::mutex> lock(hub->mutex);
    std::string error;
    int missing = -1;
    bool done;
    if (pending.message) {
      error = pending.message->error;
      done = pending.message->done;
      missing = hub->missingRank(*pending.message);
    } else {
      error = pending.collective->error;
      done = pending.collective->done;
      missing = hub->missingRank(*pending.collective);
    }
    lock.unlock();
    if (!error.empty())
      throw Error(error);
    if (missing >= 0)
      throw Error("rank " + std::to_string(missing) + " ended before " +
                  (pending.message ? pending.message->describe()
                                   : pending.collective->describe()) +
                  " completed");
    if (!done)
      return false;
    pending = Pending();
    freeIds.push_back(request);
    return true;
  }

  [[noreturn]] void abort(const std::string &message, int exitCode) override {
    LoopbackAbortHandler handler;
    {
      std::lock_guard<std::mutex> lock(hub->mutex);
      handler = hub->abortHandler;
    }
    if (handler)
      handler(myRank, message, exitCode);
    exitProcess(myRank, message, exitCode);
  }

private:
  struct Pending {
    std::shared_ptr<LoopbackMessage> message;
    std::shared_ptr<LoopbackCollective> collective;
  };

  std::shared_ptr<LoopbackHub> hub;
  int myRank;
  std::vector<Pending> requests;
  std::vector<RequestId> freeIds;
  /// The rank's device (the first one a device-ordered call names), its
  /// communication stream and the event that follows each batch of copies.
  Device *device = nullptr;
  StreamId stream = -1;
  EventId copied = -1;

  void checkPeer(int peer) const {
    if (peer < 0 || peer >= hub->size())
      throw Error("peer rank " + std::to_string(peer) + " is outside the " +
                  std::to_string(hub->size()) + " ranks");
  }

  void bind(Device &used) {
    if (device == &used)
      return;
    if (device)
      throw Error("internal error: the loopback backend of rank " +
                  std::to_string(myRank) + " was used with two devices");
    device = &used;
    stream = used.createStream();
    copied = used.createEvent();
  }

  RequestId add(Pending pending) {
    if (!freeIds.empty()) {
      RequestId id = freeIds.back();
      freeIds.pop_back();
      requests[id] = std::move(pending);
      return id;
    }
    requests.push_back(std::move(pending));
    return static_cast<RequestId>(requests.size() - 1);
  }

  std::vector<int> normalise(const std::vector<int> &group) const {
    if (group.empty()) {
      std::vector<int> all(static_cast<size_t>(hub->size()));
      for (int r = 0; r < hub->size(); ++r)
        all[r] = r;
      return all;
    }
    for (size_t i = 0; i < group.size(); ++i) {
      checkPeer(group[i]);
      if (i && group[i] <= group[i - 1])
        throw Error("internal error: all-reduce group is not sorted and "
                    "unique");
    }
    return group;
  }

  LoopbackCollective allReduceSpec(size_t count, int32_t dtype, ReduceOp op,
                                   const std::vector<int> &group) const {
    if (dtype != PW_F32 && dtype != PW_F64 && dtype != PW_I32 &&
        dtype != PW_I64)
      throw Error("all-reduce of unsupported dtype " + dtypeName(dtype));
    LoopbackCollective spec;
    spec.kind = CollectiveKind::AllReduce;
    spec.group = normalise(group);
    spec.dtype = dtype;
    spec.op = op;
    spec.count = count;
    return spec;
  }

  RequestId postCollective(const LoopbackCollective &spec, void *data,
                           const std::string &bytes) {
    bool last = false;
    std::shared_ptr<LoopbackCollective> collective;
    {
      std::lock_guard<std::mutex> lock(hub->mutex);
      collective = hub->postCollective(myRank, spec, data, bytes, last);
    }
    if (last && collective->onDevice)
      sumOnDevice(*collective);
    return add({{}, collective});
  }

  /// data[0] += data[i] for every other member, in group order, then the
  /// sum copied back to every member; on this rank's device (every member
  /// synchronised its buffer before posting).
  void sumOnDevice(LoopbackCollective &collective) {
    std::vector<void *> &data = collective.data;
    size_t bytes = collective.count * dtypeSize(collective.dtype);
    for (size_t i = 1; i < data.size(); ++i)
      device->accumulate(stream, collective.dtype, data[0], data[i],
                         collective.count);
    for (size_t i = 1; i < data.size(); ++i)
      device->copy(stream, data[i], data[0], bytes, CopyKind::DeviceToDevice);
    device->record(copied, stream);
    device->synchronize(copied);
    std::lock_guard<std::mutex> lock(hub->mutex);
    collective.done = true;
  }

  /// Issues the copies of this rank's matched device sends and completes
  /// them.
  void progress() {
    std::vector<std::shared_ptr<LoopbackMessage>> copies;
    {
      std::lock_guard<std::mutex> lock(hub->mutex);
      copies = hub->takeCopies(myRank);
    }
    if (copies.empty())
      return;
    for (auto &message : copies)
      device->copy(stream, message->recvData, message->sendData,
                   message->sendBytes, CopyKind::DeviceToDevice);
    device->record(copied, stream);
    device->synchronize(copied);
    std::lock_guard<std::mutex> lock(hub->mutex);
    for (auto &message : copies)
      message->done = true;
  }
};

} // namespace

std::shared_ptr<LoopbackHub> createLoopbackHub(int size) {
  if (size < 1)
    throw Error("a loopback job needs at least one rank, not " +
                std::to_string(size));
  return std::make_shared<LoopbackHub>(size);
}

void setLoopbackAbortHandler(LoopbackHub &hub, LoopbackAbortHandler handler) {
  std::lock_guard<std::mutex> lock(hub.mutex);
  hub.abortHandler = std::move(handler);
}

std::unique_ptr<Backend> createLoopbackBackend(std::shared_ptr<LoopbackHub> hub,
                                               int rank) {
  if (rank < 0 || rank >= hub->size())
    throw Error("loopback rank " + std::to_string(rank) + " is outside the " +
                std::to_string(hub->size()) + " ranks");
  return std::make_unique<LoopbackBackend>(std::move(hub), rank);
}

void loopbackRankEnded(LoopbackHub &hub, int rank) {
  std::lock_guard<std::mutex> lock(hub.mutex);
  hub.ended.at(static_cast<size_t>(rank)) = true;
}

int currentLoopbackRank() { return threadRank; }

int runLoopbackRanks(LoopbackHub &hub, const std::function<int(int)> &body) {
  std::vector<int> codes(static_cast<size_t>(hub.size()), ExitFailure);
  std::vector<std::thread> threads;
  for (int r = 0; r < hub.size(); ++r)
    threads.emplace_back([&hub, &body, &codes, r] {
      threadRank = r;
      std::string failure;
      int code = ExitFailure;
      try {
        codes[r] = body(r);
      } catch (const Error &error) {
        failure = error.what();
        code = error.exitCode;
      } catch (const std::exception &error) {
        failure = error.what();
      }
      if (!failure.empty()) {
        LoopbackAbortHandler handler;
        {
          std::lock_guard<std::mutex> lock(hub.mutex);
          handler = hub.abortHandler;
        }
        if (!handler)
          exitProcess(r, failure, code);
        try {
          handler(r, failure, code);
        } catch (...) {
        }
        codes[r] = code;
      }
      loopbackRankEnded(hub, r);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int code : codes)
    if (code != ExitOk)
      return code;
  return ExitOk;
}

} // namespace pipewave::runtime
