//===- Init.cpp - Deterministic default parameter values ------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Init.h"
#include "pipewave-runtime/Tensor.h"

#include <cmath>
#include <cstring>

namespace pipewave::runtime {

namespace {

uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Uniform in [-1, 1) from the top 53 bits.
double unitUniform(uint64_t &state) {
  return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-52 - 1.0;
}

} // namespace

double initBound(const std::vector<int64_t> &shape) {
  int64_t count = numElements(shape);
  int64_t fanIn = count;
  if (shape.size() >= 2 && shape.back() > 0 && count / shape.back() > 1)
    fanIn = count / shape.back();
  return fanIn > 0 ? 1.0 / std::sqrt(static_cast<double>(fanIn)) : 0.0;
}

void initParameter(const std::string &name, int32_t dtype,
                   const std::vector<int64_t> &shape, uint64_t seed,
                   void *dst) {
  size_t count = static_cast<size_t>(numElements(shape));
  if (dtype != PW_F32 && dtype != PW_F64) {
    std::memset(dst, 0, count * dtypeSize(dtype));
    return;
  }
  uint64_t state = seed ^ fnv1a(name.data(), name.size());
  double bound = initBound(shape);
  for (size_t i = 0; i < count; ++i) {
    double value = bound * unitUniform(state);
    if (dtype == PW_F32)
      static_cast<float *>(dst)[i] = static_cast<float>(value);
    else
      static_cast<double *>(dst)[i] = value;
  }
}

} // namespace pipewave::runtime
