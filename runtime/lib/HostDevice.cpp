//===- HostDevice.cpp - The device that is the host -----------------------===//
//
// Part of the pipewave project.
//
// Device memory is 64-byte aligned host memory (zeroed, as the backend's
// buffers were; large buffers on huge pages, HostBufferPool.h); every call does
// its work at once on the calling thread, so streams and events have nothing to
// order. The accumulation and the optimizer are the runtime's host functions
// (addValues, optimizerUpdate): the numbers are those of the executor before
// the device layer.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Device.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/HostBufferPool.h"
#include "pipewave-runtime/Tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace pipewave::runtime {

namespace {

class HostDevice final : public Device {
public:
  std::string name() const override { return "host"; }
  bool sharesHostMemory() const override { return true; }

  void *allocate(size_t bytes) override {
    if (bytes == 0)
      return nullptr;
    void *ptr = allocateHostBuffer(bytes);
    if (!ptr)
      throw Error("out of memory allocating " + std::to_string(bytes) +
                  " bytes");
    return ptr;
  }
  void deallocate(void *ptr) override { freeHostBuffer(ptr); }

  StreamId createStream() override { return streams++; }
  EventId createEvent() override { return events++; }
  void record(EventId, StreamId) override {}
  void wait(StreamId, EventId) override {}
  void synchronize(EventId) override {}
  void synchronize() override {}

  void fill(StreamId, void *dst, unsigned char byte, size_t bytes) override {
    if (bytes)
      std::memset(dst, byte, bytes);
  }
  void copy(StreamId, void *dst, const void *src, size_t bytes,
            CopyKind) override {
    if (bytes && dst != src)
      std::memcpy(dst, src, bytes);
  }
  void accumulate(StreamId, int32_t dtype, void *dst, const void *src,
                  size_t count) override {
    addValues(dtype, dst, src, count);
  }
  void optimizerUpdate(StreamId, const OptimizerConfig &config, int64_t step,
                       float *param, const float *grad,
                       const std::vector<float *> &state,
                       size_t count) override {
    runtime::optimizerUpdate(config, step, param, grad, state.data(), count);
  }
  bool checksInUpdate() const override { return true; }
  bool callsInline() const override { return true; }
  bool optimizerUpdateChecked(StreamId, const OptimizerConfig &config,
                              int64_t step, float *param, const float *grad,
                              const std::vector<float *> &state,
                              size_t count) override {
    return runtime::optimizerUpdate(config, step, param, grad, state.data(),
                                    count);
  }
  void call(StreamId, pw_stage_fn fn, const std::vector<void *> &args,
            const std::vector<void *> &results) override {
    fn(args.data(), results.data());
  }

private:
  StreamId streams = 0;
  EventId events = 0;
};

} // namespace

Device::~Device() = default;

bool Device::optimizerUpdateChecked(StreamId, const OptimizerConfig &, int64_t,
                                    float *, const float *,
                                    const std::vector<float *> &, size_t) {
  throw Error("internal error: the '" + name() +
              "' device does not check gradients in its optimizer updates");
}

bool Device::allFinite(StreamId stream, const float *data, size_t count) {
  std::vector<float> host;
  if (!sharesHostMemory()) {
    host.resize(count);
    copy(stream, host.data(), data, count * sizeof(float),
         CopyKind::DeviceToHost);
    data = host.data();
  }
  synchronize();
  // Branch-free within a block, so that the compiler vectorises it: a float
  // is infinite or NaN exactly when its exponent bits are all ones.
  constexpr size_t kBlock = 4096;
  constexpr uint32_t kExponent = 0x7f800000u;
  for (size_t begin = 0; begin < count; begin += kBlock) {
    size_t end = std::min(count, begin + kBlock);
    uint32_t bad = 0;
    for (size_t i = begin; i < end; ++i) {
      uint32_t bits;
      std::memcpy(&bits, data + i, sizeof bits);
      bad |= static_cast<uint32_t>((bits & kExponent) == kExponent);
    }
    if (bad)
      return false;
  }
  return true;
}

std::unique_ptr<Device> createHostDevice() {
  return std::make_unique<HostDevice>();
}

std::unique_ptr<Device> createDeviceFromEnvironment() {
  const char *name = std::getenv("PW_DEVICE");
  std::string choice = name ? name : "";
  if (choice.empty() || choice == "host")
    return createHostDevice();
  if (choice == "async-test") {
    const char *delay = std::getenv("PW_ASYNC_TEST_DELAY_US");
    return createAsyncTestDevice(delay ? std::atoi(delay) : 20);
  }
  throw Error("PW_DEVICE must be 'host' or 'async-test' (test only), not '" +
                  choice + "'",
              ExitUsage);
}

} // namespace pipewave::runtime
