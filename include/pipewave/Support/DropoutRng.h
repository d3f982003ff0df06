//===- DropoutRng.h - The counter-based generator of dropout masks -*- C++ -*-//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The reference of what `pipe-lower-dropout` computes for every element of a
// `pipe.dropout` (the lowering builds the same arithmetic in IR). The mask is
// a pure function of integers, so it is the same in every schedule, stage
// layout and replica count, in the forward and in the backward:
//
//     key  = chain(mix(seed), stream, step)
//     bits = chain(key, element)
//     kept = (bits >> 40) >= threshold(ratio)
//
// where mix is SplitMix64's finaliser, chain(h, v) = mix(h ^ (G * (v + 1)))
// with G = 0x9E3779B97F4A7C15 (arithmetic modulo 2^64), `element` is the
// element's index in the step (microbatch g of N elements: g * N + its
// row-major index) and threshold(ratio) = round(ratio * 2^24). A kept
// element is scaled by 1 / (1 - ratio).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SUPPORT_DROPOUTRNG_H
#define PIPEWAVE_SUPPORT_DROPOUTRNG_H

#include <cmath>
#include <cstdint>

namespace pipewave::dropout {

/// The golden-ratio increment of SplitMix64.
inline constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
/// SplitMix64's multipliers.
inline constexpr uint64_t kMul1 = 0xBF58476D1CE4E5B9ull;
inline constexpr uint64_t kMul2 = 0x94D049BB133111EBull;
/// The bits of the hash compared with the threshold (the top 24).
inline constexpr unsigned kShift = 40;
inline constexpr uint64_t kOne = uint64_t(1) << (64 - kShift);

/// SplitMix64's finaliser.
constexpr uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * kMul1;
  z = (z ^ (z >> 27)) * kMul2;
  return z ^ (z >> 31);
}

/// One more value into the hash `h`.
constexpr uint64_t chain(uint64_t h, uint64_t v) {
  return mix(h ^ (kGolden * (v + 1)));
}

/// The per-call key of dropout `stream` at `step` under `seed`.
constexpr uint64_t key(uint64_t seed, uint64_t stream, uint64_t step) {
  return chain(chain(mix(seed), stream), step);
}

/// Elements whose top 24 hash bits are below this are dropped.
inline uint64_t threshold(double ratio) {
  return static_cast<uint64_t>(std::llround(ratio * double(kOne)));
}

/// Whether element `element` of the step is kept.
constexpr bool kept(uint64_t key, uint64_t element, uint64_t threshold) {
  return (chain(key, element) >> kShift) >= threshold;
}

} // namespace pipewave::dropout

#endif // PIPEWAVE_SUPPORT_DROPOUTRNG_H
