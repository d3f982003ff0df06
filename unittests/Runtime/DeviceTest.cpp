//===- DeviceTest.cpp - The host and asynchronous test devices ------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Device.h"
#include "pipewave-runtime/Tensor.h"

#include "TestUtil.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

/// A stage function that sleeps 50 ms, then sets results[0][0] = 42.
void slowWrite(void *const *, void *const *results) {
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  *static_cast<float *>(results[0]) = 42.0f;
}

/// out[0] = in[0] * 2.
void twice(void *const *args, void *const *results) {
  *static_cast<float *>(results[0]) =
      *static_cast<const float *>(args[0]) * 2.0f;
}

void fails(void *const *, void *const *) { throw Error("stage failed"); }

/// Runs the same work on `device`: fill, upload, accumulate, a stage call,
/// an optimizer update, download. Returns the downloaded parameters.
std::vector<float> someWork(Device &device) {
  StreamId stream = device.createStream();
  const size_t n = 5;
  std::vector<float> host = {1, 2, 3, 4, 5}, out(n);
  auto *param = static_cast<float *>(device.allocate(n * sizeof(float)));
  auto *grad = static_cast<float *>(device.allocate(n * sizeof(float)));
  auto *m = static_cast<float *>(device.allocate(n * sizeof(float)));
  auto *v = static_cast<float *>(device.allocate(n * sizeof(float)));
  device.fill(stream, m, 0, n * sizeof(float));
  device.fill(stream, v, 0, n * sizeof(float));
  device.fill(stream, grad, 0, n * sizeof(float));
  device.copy(stream, param, host.data(), n * sizeof(float),
              CopyKind::HostToDevice);
  device.accumulate(stream, PW_F32, grad, param, n);
  device.accumulate(stream, PW_F32, grad, param, n); // grad = 2 p
  device.call(stream, twice, {grad}, {grad});        // grad[0] = 4 p[0]
  OptimizerConfig adam;
  adam.kind = OptimizerKind::Adam;
  adam.lr = 0.1;
  device.optimizerUpdate(stream, adam, 1, param, grad, {m, v}, n);
  device.copy(stream, out.data(), param, n * sizeof(float),
              CopyKind::DeviceToHost);
  device.synchronize();
  for (void *p : {static_cast<void *>(param), static_cast<void *>(grad),
                  static_cast<void *>(m), static_cast<void *>(v)})
    device.deallocate(p);
  return out;
}

} // namespace

TEST(DeviceTest, HostDeviceWorksAtOnceOnHostMemory) {
  auto device = createHostDevice();
  EXPECT_EQ(device->name(), "host");
  EXPECT_TRUE(device->sharesHostMemory());
  StreamId stream = device->createStream();
  auto *data = static_cast<float *>(device->allocate(8 * sizeof(float)));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % kBufferAlignment, 0u);
  device->fill(stream, data, 0, 8 * sizeof(float));
  float one[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  device->accumulate(stream, PW_F32, data, one, 8);
  EXPECT_EQ(data[7], 1.0f) << "no synchronisation needed";
  device->deallocate(data);
}

TEST(DeviceTest, AllFiniteFindsEveryNonFiniteValueWherever) {
  std::unique_ptr<Device> device = createHostDevice();
  StreamId stream = device->createStream();
  // Extreme finite values, then NaN, +-inf at the edges of the 4096-value
  // blocks the host check works in, and at the end of a ragged tail.
  std::vector<float> values(3 * 4096 + 7, 1.0f);
  values[1] = std::numeric_limits<float>::max();
  values[2] = -std::numeric_limits<float>::max();
  values[3] = std::numeric_limits<float>::denorm_min();
  values[4] = -0.0f;
  EXPECT_TRUE(device->allFinite(stream, values.data(), values.size()));
  EXPECT_TRUE(device->allFinite(stream, values.data(), 0));
  const float bad[] = {std::numeric_limits<float>::quiet_NaN(),
                       -std::numeric_limits<float>::quiet_NaN(),
                       std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity()};
  for (float value : bad)
    for (size_t at : {size_t{0}, size_t{4095}, size_t{4096}, size_t{8191},
                      values.size() - 1}) {
      std::vector<float> copy = values;
      copy[at] = value;
      EXPECT_FALSE(device->allFinite(stream, copy.data(), copy.size()))
          << value << " at " << at;
      // Not looked at: beyond the count.
      if (at > 0) {
        EXPECT_TRUE(device->allFinite(stream, copy.data(), at)) << at;
      }
    }
}

// The host's updates check the gradients they read; the asynchronous test
// device's do not (its runs scan them, allFinite()).
TEST(DeviceTest, HostDeviceChecksGradientsInItsUpdates) {
  std::unique_ptr<Device> device = createHostDevice();
  ASSERT_TRUE(device->checksInUpdate());
  StreamId stream = device->createStream();
  OptimizerConfig sgd;
  sgd.lr = 0.5;
  std::vector<float> p = {1, 2, 3}, g = {2, 4, 6};
  EXPECT_TRUE(device->optimizerUpdateChecked(stream, sgd, 1, p.data(), g.data(),
                                             {}, p.size()));
  EXPECT_EQ(p, (std::vector<float>{0, 0, 0}));
  g[2] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(device->optimizerUpdateChecked(stream, sgd, 2, p.data(),
                                              g.data(), {}, p.size()));
  std::unique_ptr<Device> async = createAsyncTestDevice();
  EXPECT_FALSE(async->checksInUpdate());
  EXPECT_THROW(async->optimizerUpdateChecked(stream, sgd, 1, p.data(), g.data(),
                                             {}, p.size()),
               Error);
}

TEST(DeviceTest, AsyncTestDeviceComputesWhatTheHostDeviceComputes) {
  auto host = createHostDevice();
  auto async = createAsyncTestDevice(200);
  EXPECT_EQ(async->name(), "async-test");
  EXPECT_FALSE(async->sharesHostMemory());
  std::vector<float> want = someWork(*host);
  EXPECT_NE(want[0], 1.0f);
  EXPECT_EQ(someWork(*async), want);
}

TEST(DeviceTest, AsyncTestDevicePoisonsFreshMemory) {
  auto device = createAsyncTestDevice();
  auto *data = static_cast<uint32_t *>(device->allocate(16));
  EXPECT_EQ(data[3], 0xffffffffu);
  device->deallocate(data);
}

TEST(DeviceTest, AsyncTestDeviceRunsWorkAfterTheHostReturns) {
  auto device = createAsyncTestDevice(0);
  StreamId stream = device->createStream();
  auto *x = static_cast<float *>(device->allocate(sizeof(float)));
  device->call(stream, slowWrite, {}, {x});
  EXPECT_NE(*x, 42.0f) << "the call returned before the work ran";
  device->synchronize();
  EXPECT_EQ(*x, 42.0f);
}

TEST(DeviceTest, AsyncTestDeviceEventsOrderStreams) {
  auto device = createAsyncTestDevice(0);
  StreamId a = device->createStream(), b = device->createStream();
  EventId done = device->createEvent();
  auto *x = static_cast<float *>(device->allocate(sizeof(float)));
  auto *y = static_cast<float *>(device->allocate(sizeof(float)));
  auto *z = static_cast<float *>(device->allocate(sizeof(float)));
  device->call(a, slowWrite, {}, {x});
  device->record(done, a);
  // y waits for the event; z, on the same stream before the wait, does not.
  device->copy(b, z, x, sizeof(float), CopyKind::DeviceToDevice);
  device->wait(b, done);
  device->copy(b, y, x, sizeof(float), CopyKind::DeviceToDevice);
  device->synchronize(done);
  EXPECT_EQ(*x, 42.0f);
  device->synchronize();
  EXPECT_EQ(*y, 42.0f);
  EXPECT_NE(*z, 42.0f);
}

/// Writes 42 once the test opens the gate.
std::atomic<bool> gateOpen{false};
void gatedWrite(void *const *, void *const *results) {
  while (!gateOpen.load())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  *static_cast<float *>(results[0]) = 42.0f;
}

TEST(DeviceTest, AsyncTestDeviceWaitCapturesTheRecordAtTheCall) {
  auto device = createAsyncTestDevice(0);
  StreamId a = device->createStream(), b = device->createStream();
  EventId event = device->createEvent(), copied = device->createEvent();
  auto *x = static_cast<float *>(device->allocate(sizeof(float)));
  auto *y = static_cast<float *>(device->allocate(sizeof(float)));
  float zero = 0;
  gateOpen = false;
  device->copy(a, x, &zero, sizeof(float), CopyKind::HostToDevice);
  device->record(event, a);
  device->wait(b, event); // Captures the first record only.
  device->call(a, gatedWrite, {}, {x});
  device->record(event, a);
  device->copy(b, y, x, sizeof(float), CopyKind::DeviceToDevice);
  device->record(copied, b);
  // The copy on b must finish while the write on a is held back. (Had the
  // wait captured the second record, b would wait for the write: the gate
  // then opens after 10 s so that the test fails instead of hanging.)
  std::atomic<bool> done{false};
  std::thread fallback([&] {
    for (int i = 0; i < 1000 && !done; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    gateOpen = true;
  });
  device->synchronize(copied);
  float seen = *y;
  done = true;
  gateOpen = true;
  fallback.join();
  device->synchronize();
  EXPECT_EQ(seen, 0.0f);
  EXPECT_EQ(*x, 42.0f);
}

TEST(DeviceTest, AsyncTestDeviceReportsErrors) {
  auto device = createAsyncTestDevice(0);
  StreamId stream = device->createStream();
  char bytes[8] = {};
  EXPECT_NE(PW_ERROR_OF(device->accumulate(stream, PW_BOOL, bytes, bytes, 8))
                .find("cannot sum values of dtype bool"),
            std::string::npos);
  device->call(stream, fails, {}, {});
  EXPECT_NE(PW_ERROR_OF(device->synchronize()).find("stage failed"),
            std::string::npos);
  EventId event = device->createEvent();
  StreamId other = device->createStream();
  device->record(event, stream);
  EXPECT_NE(PW_ERROR_OF(device->record(event, other))
                .find("recorded on streams 0 and 1"),
            std::string::npos);
}

TEST(DeviceTest, AddValuesSumsEveryNumericDTypeAndRejectsBool) {
  int8_t a[2] = {100, -3}, b[2] = {100, 4};
  addValues(PW_I8, a, b, 2);
  EXPECT_EQ(a[0], static_cast<int8_t>(200));
  EXPECT_EQ(a[1], 1);
  int64_t c[1] = {1ll << 40}, d[1] = {1};
  addValues(PW_I64, c, d, 1);
  EXPECT_EQ(c[0], (1ll << 40) + 1);
  uint8_t e[1] = {1};
  EXPECT_EQ(PW_ERROR_OF(addValues(PW_BOOL, e, e, 1)),
            "cannot sum values of dtype bool");
}

TEST(DeviceTest, DeviceFromTheEnvironment) {
  unsetenv("PW_DEVICE");
  EXPECT_EQ(createDeviceFromEnvironment()->name(), "host");
  setenv("PW_DEVICE", "async-test", 1);
  EXPECT_EQ(createDeviceFromEnvironment()->name(), "async-test");
  setenv("PW_DEVICE", "cuda", 1);
  EXPECT_EQ(PW_ERROR_OF(createDeviceFromEnvironment()),
            "PW_DEVICE must be 'host' or 'async-test' (test only), not "
            "'cuda'");
  unsetenv("PW_DEVICE");
}
