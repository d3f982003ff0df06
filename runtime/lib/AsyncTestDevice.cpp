//===- AsyncTestDevice.cpp - Test-only asynchronous device ----------------===//
//
// Part of the pipewave project.
//
// Tests the executor's ordering without a GPU. Each stream is a worker
// thread running its queue in order; each item starts after a pseudo-random
// delay (now and then a long one; a generator per stream, seeded at random,
// so every run tries other interleavings), so the host and the streams run
// ahead of each other as they would with CUDA. Events carry a
// sequence number per record(): wait() captures the number current at the
// call and the waiting item blocks until the recording stream has passed
// it. Fresh and freed memory is filled with 0xff bytes (NaN as floats, -1
// as integers) and freed memory is kept until the device is destroyed, so
// work that reads memory nobody initialised, or runs after its memory was
// given back, computes visibly wrong numbers instead of crashing. Device
// memory is host memory, but the device claims it is not
// (sharesHostMemory() is false) so that the executor's staging copies run.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Device.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Tensor.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <random>
#include <thread>

namespace pipewave::runtime {

namespace {

constexpr unsigned char kPoison = 0xff;

class AsyncTestDevice final : public Device {
public:
  explicit AsyncTestDevice(int meanDelayMicroseconds)
      : meanDelay(meanDelayMicroseconds < 0 ? 0 : meanDelayMicroseconds) {}

  ~AsyncTestDevice() override {
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return idle(); });
      stopping = true;
    }
    changed.notify_all();
    for (auto &stream : streams)
      stream->worker.join();
    for (void *ptr : memory)
      std::free(ptr);
  }

  std::string name() const override { return "async-test"; }
  bool sharesHostMemory() const override { return false; }

  void *allocate(size_t bytes) override {
    if (bytes == 0)
      return nullptr;
    void *ptr = std::aligned_alloc(kBufferAlignment, alignUp(bytes));
    if (!ptr)
      throw Error("out of memory allocating " + std::to_string(bytes) +
                  " bytes");
    std::memset(ptr, kPoison, alignUp(bytes));
    std::lock_guard<std::mutex> lock(mutex);
    memory.push_back(ptr);
    sizes.push_back(alignUp(bytes));
    return ptr;
  }

  void deallocate(void *ptr) override {
    if (!ptr)
      return;
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t k = 0; k < memory.size(); ++k)
      if (memory[k] == ptr) {
        // Kept until the device goes: late work reads poison, not freed
        // memory.
        std::memset(ptr, kPoison, sizes[k]);
        return;
      }
    throw Error("internal error: async-test device: deallocate of unknown "
                "memory");
  }

  StreamId createStream() override {
    std::lock_guard<std::mutex> lock(mutex);
    auto stream = std::make_unique<Stream>();
    // A fresh seed per stream: every run explores other interleavings.
    stream->random = (static_cast<uint64_t>(std::random_device()()) << 32 |
                      std::random_device()()) |
                     1;
    StreamId id = static_cast<StreamId>(streams.size());
    stream->worker = std::thread([this, id] { run(id); });
    streams.push_back(std::move(stream));
    return id;
  }

  EventId createEvent() override {
    std::lock_guard<std::mutex> lock(mutex);
    events.emplace_back();
    return static_cast<EventId>(events.size() - 1);
  }

  void record(EventId event, StreamId stream) override {
    std::unique_lock<std::mutex> lock(mutex);
    Event &e = eventAt(event);
    if (e.stream >= 0 && e.stream != stream)
      throw Error("internal error: async-test device: event " +
                  std::to_string(event) + " recorded on streams " +
                  std::to_string(e.stream) + " and " + std::to_string(stream));
    e.stream = stream;
    uint64_t sequence = ++e.recorded;
    push(lock, stream, [this, event, sequence] {
      std::lock_guard<std::mutex> inner(mutex);
      Event &done = events[event];
      if (done.completed < sequence)
        done.completed = sequence;
    });
  }

  void wait(StreamId stream, EventId event) override {
    std::unique_lock<std::mutex> lock(mutex);
    uint64_t target = eventAt(event).recorded;
    push(lock, stream, [this, event, target] {
      std::unique_lock<std::mutex> inner(mutex);
      changed.wait(
          inner, [&] { return stopping || events[event].completed >= target; });
    });
  }

  void synchronize(EventId event) override {
    std::unique_lock<std::mutex> lock(mutex);
    uint64_t target = eventAt(event).recorded;
    changed.wait(lock, [&] { return events[event].completed >= target; });
    rethrow();
  }

  void synchronize() override {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return idle(); });
    rethrow();
  }

  void fill(StreamId stream, void *dst, unsigned char byte,
            size_t bytes) override {
    issue(stream, [=] {
      if (bytes)
        std::memset(dst, byte, bytes);
    });
  }

  void copy(StreamId stream, void *dst, const void *src, size_t bytes,
            CopyKind) override {
    if (dst == src || bytes == 0)
      return;
    issue(stream, [=] { std::memcpy(dst, src, bytes); });
  }

  void accumulate(StreamId stream, int32_t dtype, void *dst, const void *src,
                  size_t count) override {
    if (!isSummableDType(dtype))
      addValues(dtype, dst, src, 0); // Throws the one error message.
    issue(stream, [=] { addValues(dtype, dst, src, count); });
  }

  void optimizerUpdate(StreamId stream, const OptimizerConfig &config,
                       int64_t step, float *param, const float *grad,
                       const std::vector<float *> &state,
                       size_t count) override {
    if (step < 1)
      throw Error("internal error: optimizer step " + std::to_string(step));
    issue(stream, [=] {
      runtime::optimizerUpdate(config, step, param, grad, state.data(), count);
    });
  }

  void call(StreamId stream, pw_stage_fn fn, const std::vector<void *> &args,
            const std::vector<void *> &results) override {
    issue(stream, [=] { fn(args.data(), results.data()); });
  }

private:
  struct Stream {
    std::thread worker;
    std::deque<std::function<void()>> queue;
    /// Items issued and completed.
    uint64_t issued = 0;
    uint64_t done = 0;
    uint64_t random = 0;
  };
  struct Event {
    StreamId stream = -1;
    /// record() calls so far, and the last one the stream has passed.
    uint64_t recorded = 0;
    uint64_t completed = 0;
  };

  const int meanDelay;
  std::mutex mutex;
  std::condition_variable changed;
  bool stopping = false;
  std::vector<std::unique_ptr<Stream>> streams;
  std::deque<Event> events;
  std::vector<void *> memory;
  std::vector<size_t> sizes;
  /// The first error of an issued item, reported by synchronize().
  std::string failure;

  Event &eventAt(EventId event) {
    if (event < 0 || static_cast<size_t>(event) >= events.size())
      throw Error("internal error: async-test device: unknown event " +
                  std::to_string(event));
    return events[event];
  }

  void issue(StreamId stream, std::function<void()> work) {
    std::unique_lock<std::mutex> lock(mutex);
    push(lock, stream, std::move(work));
  }

  void push(std::unique_lock<std::mutex> &, StreamId stream,
            std::function<void()> work) {
    if (stream < 0 || static_cast<size_t>(stream) >= streams.size())
      throw Error("internal error: async-test device: unknown stream " +
                  std::to_string(stream));
    Stream &s = *streams[stream];
    s.queue.push_back(std::move(work));
    ++s.issued;
    changed.notify_all();
  }

  bool idle() const {
    for (const auto &stream : streams)
      if (stream->done != stream->issued)
        return false;
    return true;
  }

  void rethrow() {
    if (!failure.empty())
      throw Error("async-test device: " + failure);
  }

  void run(StreamId id) {
    for (;;) {
      std::function<void()> work;
      unsigned delay = 0;
      {
        std::unique_lock<std::mutex> lock(mutex);
        Stream &s = *streams[id];
        changed.wait(lock, [&] { return stopping || !s.queue.empty(); });
        if (s.queue.empty())
          return;
        work = std::move(s.queue.front());
        s.queue.pop_front();
        // xorshift64: a delay in [0, 2 * meanDelay] microseconds, and one
        // item in 8 fifty times longer, so that any stream may fall far
        // behind the others and the host.
        s.random ^= s.random << 13;
        s.random ^= s.random >> 7;
        s.random ^= s.random << 17;
        delay = meanDelay
                    ? static_cast<unsigned>(s.random % (2 * meanDelay + 1))
                    : 0;
        if ((s.random >> 40) % 8 == 0)
          delay *= 50;
      }
      if (delay)
        std::this_thread::sleep_for(std::chrono::microseconds(delay));
      std::string error;
      try {
        work();
      } catch (const std::exception &e) {
        error = e.what();
      }
      std::lock_guard<std::mutex> lock(mutex);
      if (!error.empty() && failure.empty())
        failure = error;
      ++streams[id]->done;
      changed.notify_all();
    }
  }
};

} // namespace

std::unique_ptr<Device> createAsyncTestDevice(int meanDelayMicroseconds) {
  return std::make_unique<AsyncTestDevice>(meanDelayMicroseconds);
}

} // namespace pipewave::runtime
