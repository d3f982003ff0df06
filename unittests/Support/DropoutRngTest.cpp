//===- DropoutRngTest.cpp - Tests of the dropout mask generator -----------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Support/DropoutRng.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace pipewave;

namespace {

/// The keep bits of `count` elements from `first` under `key`.
std::vector<bool> mask(uint64_t key, uint64_t first, uint64_t count,
                       double ratio) {
  uint64_t threshold = dropout::threshold(ratio);
  std::vector<bool> bits;
  for (uint64_t e = first; e < first + count; ++e)
    bits.push_back(dropout::kept(key, e, threshold));
  return bits;
}

/// The fraction of kept elements.
double keptFraction(const std::vector<bool> &bits) {
  uint64_t kept = 0;
  for (bool b : bits)
    kept += b;
  return static_cast<double>(kept) / static_cast<double>(bits.size());
}

TEST(DropoutRng, SplitMix64Finaliser) {
  // SplitMix64's first outputs from state 0 (the state advances by the
  // golden increment before the finaliser).
  EXPECT_EQ(dropout::mix(dropout::kGolden), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(dropout::mix(2 * dropout::kGolden), 0x6E789E6AA1B965F4ull);
}

TEST(DropoutRng, Reproducible) {
  uint64_t key = dropout::key(0, 1, 5);
  EXPECT_EQ(key, dropout::key(0, 1, 5));
  EXPECT_EQ(mask(key, 0, 1000, 0.3), mask(dropout::key(0, 1, 5), 0, 1000, 0.3));
  // The mask of a range does not depend on how it is split (microbatches):
  // element e is element e wherever it is computed.
  std::vector<bool> whole = mask(key, 0, 1000, 0.3);
  std::vector<bool> first = mask(key, 0, 400, 0.3);
  std::vector<bool> second = mask(key, 400, 600, 0.3);
  first.insert(first.end(), second.begin(), second.end());
  EXPECT_EQ(whole, first);
}

TEST(DropoutRng, KeysDiffer) {
  // Another seed, stream or step gives another mask.
  std::vector<bool> base = mask(dropout::key(0, 0, 1), 0, 256, 0.5);
  EXPECT_NE(base, mask(dropout::key(1, 0, 1), 0, 256, 0.5));
  EXPECT_NE(base, mask(dropout::key(0, 1, 1), 0, 256, 0.5));
  EXPECT_NE(base, mask(dropout::key(0, 0, 2), 0, 256, 0.5));
}

TEST(DropoutRng, KeepFraction) {
  for (double ratio : {0.1, 0.3, 0.5, 0.9}) {
    double kept = keptFraction(mask(dropout::key(3, 2, 7), 0, 200000, ratio));
    EXPECT_NEAR(kept, 1.0 - ratio, 0.005) << "ratio " << ratio;
  }
  // Ratio 0 keeps everything.
  EXPECT_EQ(keptFraction(mask(dropout::key(3, 2, 7), 0, 10000, 0.0)), 1.0);
}

TEST(DropoutRng, Threshold) {
  EXPECT_EQ(dropout::threshold(0.0), 0u);
  EXPECT_EQ(dropout::threshold(0.5), uint64_t(1) << 23);
  EXPECT_EQ(dropout::threshold(0.25), uint64_t(1) << 22);
}

} // namespace
