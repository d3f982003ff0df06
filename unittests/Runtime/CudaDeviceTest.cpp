//===- CudaDeviceTest.cpp - The CUDA device against the host device -------===//
//
// Part of the pipewave project.
//
// Built when CMake finds the CUDA toolkit; links the CUDA device the way a
// model compiled with --target cuda does (forced in, found by the
// runtime's weak reference). Without a GPU only the first test runs: the
// device says clearly that there is none. With one, the device's own work
// (fills, copies, accumulation of every dtype, SGD/Adam/AdamW over several
// steps, with and without a captured graph) gives the host device's
// numbers bit for bit.
//
//===----------------------------------------------------------------------===//

#include "pipewave-cuda/launch.h"
#include "pipewave-runtime/Device.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Tensor.h"

#include "gtest/gtest.h"

#include <cstring>
#include <random>

using namespace pipewave::runtime;

namespace {

std::unique_ptr<Device> cudaDevice() {
  pw_model model = {};
  model.device = PW_DEVICE_CUDA;
  return createDeviceForModel(model, 0);
}

#define REQUIRE_GPU()                                                          \
  if (pw_cuda_device_count() == 0)                                             \
  GTEST_SKIP() << "no GPU here"

/// Device memory of `n` floats holding `values`.
float *upload(Device &d, StreamId s, const std::vector<float> &values) {
  auto *p = static_cast<float *>(d.allocate(values.size() * sizeof(float)));
  d.copy(s, p, values.data(), values.size() * sizeof(float),
         CopyKind::HostToDevice);
  return p;
}

std::vector<float> download(Device &d, StreamId s, const float *p, size_t n) {
  std::vector<float> out(n);
  d.copy(s, out.data(), p, n * sizeof(float), CopyKind::DeviceToHost);
  d.synchronize();
  return out;
}

/// Five updates of `config` on `device` from fixed random data; the final
/// parameters and state, concatenated. With `graphs`, every step is
/// bracketed (step 1 eager, 2 captured, then replayed).
std::vector<float> train(Device &device, const OptimizerConfig &config,
                         bool graphs) {
  const size_t n = 3000;
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  std::vector<float> p0(n);
  for (float &x : p0)
    x = normal(rng);
  StreamId s = device.createStream(), t = device.createStream();
  EventId ready = device.createEvent();
  device.reserve(8 * n * sizeof(float));
  float *param = upload(device, s, p0);
  auto *grad = static_cast<float *>(device.allocate(n * sizeof(float)));
  auto *scratch = static_cast<float *>(device.allocate(n * sizeof(float)));
  std::vector<float *> state;
  for (int k = 0; k < 2; ++k) {
    state.push_back(static_cast<float *>(device.allocate(n * sizeof(float))));
    device.fill(s, state.back(), 0, n * sizeof(float));
  }
  device.synchronize();
  std::vector<float> host(n), out(n);
  for (int64_t step = 1; step <= 5; ++step) {
    for (float &x : host)
      x = normal(rng);
    if (graphs)
      device.beginGraphStep();
    // The upload on one stream, the update on the other.
    device.copy(t, scratch, host.data(), n * sizeof(float),
                CopyKind::HostToDevice);
    device.record(ready, t);
    device.wait(s, ready);
    device.fill(s, grad, 0, n * sizeof(float));
    device.accumulate(s, PW_F32, grad, scratch, n);
    device.accumulate(s, PW_F32, grad, scratch, n);
    device.optimizerUpdate(s, config, step, param, grad, state, n);
    device.copy(s, out.data(), param, n * sizeof(float),
                CopyKind::DeviceToHost);
    if (graphs)
      device.endGraphStep();
    device.synchronize();
  }
  std::vector<float> result = out;
  for (int k = 0; k < 2; ++k) {
    std::vector<float> st = download(device, s, state[k], n);
    result.insert(result.end(), st.begin(), st.end());
  }
  return result;
}

std::vector<OptimizerConfig> configs() {
  OptimizerConfig sgd;
  sgd.lr = 0.1;
  sgd.momentum = 0.9;
  sgd.weightDecay = 0.01;
  OptimizerConfig adam;
  adam.kind = OptimizerKind::Adam;
  adam.lr = 0.05;
  OptimizerConfig adamw = adam;
  adamw.kind = OptimizerKind::AdamW;
  adamw.weightDecay = 0.01;
  return {sgd, adam, adamw};
}

} // namespace

TEST(CudaDeviceTest, NoGpuIsAClearError) {
  if (pw_cuda_device_count() > 0)
    GTEST_SKIP() << "a GPU is present";
  try {
    cudaDevice();
    FAIL() << "no error";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what())
                  .find("this binary was compiled with --target cuda but no "
                        "CUDA GPU is usable here ("),
              std::string::npos)
        << error.what();
  }
}

TEST(CudaDeviceTest, OptimizersGiveTheHostNumbers) {
  REQUIRE_GPU();
  for (const OptimizerConfig &config : configs()) {
    SCOPED_TRACE(describeOptimizer(config));
    auto host = createHostDevice();
    auto gpu = cudaDevice();
    std::vector<float> a = train(*host, config, false);
    std::vector<float> b = train(*gpu, config, false);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
  }
}

TEST(CudaDeviceTest, GraphReplayGivesTheEagerNumbers) {
  REQUIRE_GPU();
  for (const OptimizerConfig &config : configs()) {
    SCOPED_TRACE(describeOptimizer(config));
    auto eager = cudaDevice();
    auto graphed = cudaDevice();
    std::vector<float> a = train(*eager, config, false);
    std::vector<float> b = train(*graphed, config, true);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
  }
}

TEST(CudaDeviceTest, AccumulatesEveryDType) {
  REQUIRE_GPU();
  auto gpu = cudaDevice();
  StreamId s = gpu->createStream();
  gpu->reserve(4096);
  for (int32_t dtype : {PW_F32, PW_F64, PW_I32, PW_I64, PW_I8}) {
    size_t n = 37, bytes = n * dtypeSize(dtype);
    std::vector<unsigned char> a(bytes), b(bytes), want(bytes), got(bytes);
    for (size_t i = 0; i < bytes; ++i) {
      a[i] = static_cast<unsigned char>(i * 7 + 1);
      b[i] = static_cast<unsigned char>(i * 3 + 2);
    }
    if (dtype == PW_F32 || dtype == PW_F64)
      for (size_t i = 0; i < n; ++i) {
        // Finite values: small integers as floats.
        if (dtype == PW_F32) {
          reinterpret_cast<float *>(a.data())[i] = float(i) * 0.5f;
          reinterpret_cast<float *>(b.data())[i] = 1.0f / float(i + 1);
        } else {
          reinterpret_cast<double *>(a.data())[i] = double(i) * 0.5;
          reinterpret_cast<double *>(b.data())[i] = 1.0 / double(i + 1);
        }
      }
    want = a;
    addValues(dtype, want.data(), b.data(), n);
    void *da = gpu->allocate(bytes), *db = gpu->allocate(bytes);
    gpu->copy(s, da, a.data(), bytes, CopyKind::HostToDevice);
    gpu->copy(s, db, b.data(), bytes, CopyKind::HostToDevice);
    gpu->accumulate(s, dtype, da, db, n);
    gpu->copy(s, got.data(), da, bytes, CopyKind::DeviceToHost);
    gpu->synchronize();
    EXPECT_EQ(got, want) << dtypeName(dtype);
    gpu->deallocate(db);
    gpu->deallocate(da);
  }
  EXPECT_THROW(gpu->accumulate(s, PW_BOOL, nullptr, nullptr, 1), Error);
}
