//===- Init.h - Deterministic default parameter values ----------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Without --init, a floating-point parameter of shape [..., k, n] is drawn
// from uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = numel / n
// (the contraction size of an [in, out] weight, [1, in, out] for TOSA
// matmul); when that is 1 (vectors, biases, scalars) fan_in = numel. Integer
// and boolean parameters are zero. The generator (SplitMix64) is seeded from
// the seed and the parameter's name only, so every rank computes the same
// values for a parameter wherever it lives.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_INIT_H
#define PIPEWAVE_RUNTIME_INIT_H

#include <cstdint>
#include <string>
#include <vector>

namespace pipewave::runtime {

/// The bound b of uniform(-b, b) for a parameter of `shape`.
double initBound(const std::vector<int64_t> &shape);

/// Fills `dst` (dtype/shape as given) with the default values of parameter
/// `name` for `seed`.
void initParameter(const std::string &name, int32_t dtype,
                   const std::vector<int64_t> &shape, uint64_t seed, void *dst);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_INIT_H
