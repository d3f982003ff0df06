//===- HostLoops.cpp - The runtime's own loops, timed in process ----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "HostLoops.h"

#include "pipewave-runtime/Device.h"
#include "pipewave-runtime/HostMemory.h"
#include "pipewave-runtime/Tensor.h"
#include "pipewave-runtime/model.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

namespace pipewave::calibrate {

namespace {

/// Bytes written between two timed calls: more than the caches hold, as
/// the rest of a training step evicts a parameter's gradient between two
/// accumulations of it.
constexpr size_t kEvictBytes = 64u << 20;

/// Median seconds of `reps` calls of `body` after two warm-up calls, with
/// `evictCaches` the caches evicted before each.
template <typename Body>
double medianSeconds(int reps, bool evictCaches, Body body) {
  static std::vector<char> evict(kEvictBytes);
  body();
  body();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    if (evictCaches)
      std::memset(evict.data(), r, evict.size());
    auto start = std::chrono::steady_clock::now();
    body();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

} // namespace

double accumulateSeconds(size_t count, int reps, bool evict) {
  runtime::keepFreedHostMemory();
  std::vector<float> dst(count, 1.0f), src(count, 0.5f);
  return medianSeconds(reps, evict, [&] {
    runtime::addValues(PW_F32, dst.data(), src.data(), count);
  });
}

double nonfiniteCheckSeconds(size_t count, int reps) {
  std::unique_ptr<runtime::Device> device = runtime::createHostDevice();
  runtime::StreamId stream = device->createStream();
  std::vector<float> values(count, 0.5f);
  bool finite = true;
  double seconds = medianSeconds(reps, /*evictCaches=*/true, [&] {
    finite &= device->allFinite(stream, values.data(), count);
  });
  return finite ? seconds : 0;
}

double copySeconds(size_t count, int reps, bool evict) {
  std::vector<float> dst(count, 1.0f), src(count, 0.5f);
  return medianSeconds(reps, evict, [&] {
    std::memcpy(dst.data(), src.data(), count * sizeof(float));
    // Keep the copy from being elided.
    src[count / 2] += dst[count / 3];
  });
}

} // namespace pipewave::calibrate
