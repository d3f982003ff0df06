//===- HostBufferPoolTest.cpp - Huge-page regions carved first-fit --------===//
//
// Part of the pipewave project.
//
// The pool's placement (2 MiB-aligned regions, pieces packed and reused,
// free gaps merged), its zeroing of reused memory, what it returns to the
// system, and the process-wide allocateHostBuffer/freeHostBuffer split
// between the pool and aligned_alloc.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/HostBufferPool.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Tensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

using namespace pipewave::runtime;

namespace {

constexpr size_t kMiB = size_t(1) << 20;

uintptr_t address(const void *ptr) { return reinterpret_cast<uintptr_t>(ptr); }

bool allZero(const void *ptr, size_t bytes) {
  const unsigned char *at = static_cast<const unsigned char *>(ptr);
  for (size_t i = 0; i < bytes; ++i)
    if (at[i])
      return false;
  return true;
}

} // namespace

TEST(HostBufferPoolTest, PacksBuffersIntoOneAlignedRegion) {
  HostBufferPool pool(8 * kMiB);
  void *a = pool.allocate(kMiB);
  void *b = pool.allocate(100);
  void *c = pool.allocate(kMiB);
  ASSERT_TRUE(a && b && c);
  // The region starts on a huge-page boundary; pieces follow each other at
  // kBufferAlignment.
  EXPECT_EQ(address(a) % kHugePageBytes, 0u);
  EXPECT_EQ(address(b), address(a) + kMiB);
  EXPECT_EQ(address(c), address(b) + 128);
  EXPECT_EQ(pool.regionCount(), 1u);
  EXPECT_EQ(pool.mappedBytes(), 8 * kMiB);
  EXPECT_EQ(pool.liveBytes(), 2 * kMiB + 128);
  EXPECT_TRUE(pool.owns(b));
  EXPECT_FALSE(pool.owns(static_cast<char *>(b) + 64));
}

TEST(HostBufferPoolTest, ReusesAndMergesFreedPieces) {
  HostBufferPool pool(4 * kMiB);
  void *a = pool.allocate(kMiB);
  void *b = pool.allocate(kMiB);
  void *c = pool.allocate(kMiB);
  std::memset(a, 0xab, kMiB);
  std::memset(b, 0xcd, kMiB);
  EXPECT_TRUE(pool.release(a));
  EXPECT_TRUE(pool.release(b));
  EXPECT_FALSE(pool.release(b)); // Not live any more.
  // a and b merged into one 2 MiB gap at the region's start: a 2 MiB buffer
  // fits there, zeroed again.
  void *d = pool.allocate(2 * kMiB);
  EXPECT_EQ(d, a);
  EXPECT_TRUE(allZero(d, 2 * kMiB));
  EXPECT_EQ(pool.regionCount(), 1u);
  EXPECT_TRUE(pool.release(c));
  EXPECT_TRUE(pool.release(d));
  EXPECT_EQ(pool.liveBytes(), 0u);
}

TEST(HostBufferPoolTest, LargeBuffersGetARegionOfTheirOwn) {
  HostBufferPool pool(2 * kMiB);
  void *small = pool.allocate(kMiB);
  void *large = pool.allocate(5 * kMiB);
  ASSERT_TRUE(small && large);
  EXPECT_EQ(pool.regionCount(), 2u);
  // Rounded up to whole huge pages.
  EXPECT_EQ(pool.mappedBytes(), 2 * kMiB + 6 * kMiB);
  EXPECT_EQ(address(large) % kHugePageBytes, 0u);
  std::memset(large, 1, 5 * kMiB);
  EXPECT_TRUE(pool.release(large));
  EXPECT_TRUE(pool.release(small));
}

TEST(HostBufferPoolTest, KeepsOneEmptyRegionAndReturnsTheRest) {
  HostBufferPool pool(2 * kMiB);
  void *a = pool.allocate(2 * kMiB);
  void *b = pool.allocate(2 * kMiB);
  EXPECT_EQ(pool.regionCount(), 2u);
  EXPECT_TRUE(pool.release(a));
  EXPECT_EQ(pool.regionCount(), 2u); // The only empty one stays mapped.
  EXPECT_TRUE(pool.release(b));
  EXPECT_EQ(pool.regionCount(), 1u); // A second empty one goes back.
  // The kept region serves the next buffer without a new mapping.
  void *c = pool.allocate(kMiB);
  EXPECT_EQ(pool.regionCount(), 1u);
  EXPECT_TRUE(pool.release(c));
}

TEST(HostBufferPoolTest, RefusesPointersItDidNotGive) {
  HostBufferPool pool;
  int local = 0;
  EXPECT_FALSE(pool.release(&local));
  EXPECT_FALSE(pool.release(nullptr));
  EXPECT_FALSE(pool.owns(&local));
  EXPECT_EQ(pool.allocate(0), nullptr);
}

TEST(HostBufferPoolTest, ImpossibleSizesFailWithoutAMapping) {
  HostBufferPool pool;
  // Sizes whose rounding would wrap around, and one no machine has.
  EXPECT_EQ(pool.allocate(SIZE_MAX), nullptr);
  EXPECT_EQ(pool.allocate(SIZE_MAX - kHugePageBytes + 1), nullptr);
  EXPECT_EQ(pool.allocate(kLargestBufferBytes), nullptr);
  EXPECT_EQ(pool.regionCount(), 0u);
  EXPECT_EQ(allocateHostBuffer(SIZE_MAX), nullptr);
  EXPECT_EQ(allocateHostBuffer(SIZE_MAX - 1), nullptr);
  // The runtime's tensors say what they could not get.
  EXPECT_THROW(AlignedBuffer(SIZE_MAX - 1), Error);
}

TEST(HostBufferPoolTest, ThreadsAllocateAndFreeConcurrently) {
  HostBufferPool pool(4 * kMiB);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&pool, t] {
      for (int i = 0; i < 200; ++i) {
        size_t bytes = (64 + 37 * ((t * 200 + i) % 50)) * 1024;
        auto *ptr = static_cast<unsigned char *>(pool.allocate(bytes));
        ASSERT_NE(ptr, nullptr);
        ASSERT_TRUE(allZero(ptr, bytes));
        std::memset(ptr, t + 1, bytes);
        ASSERT_TRUE(pool.release(ptr));
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(pool.liveBytes(), 0u);
  EXPECT_EQ(pool.regionCount(), 1u);
}

TEST(HostBufferPoolTest, ProcessBuffersSplitAtThePooledSize) {
  void *small = allocateHostBuffer(kPooledBufferBytes - 1);
  void *large = allocateHostBuffer(kPooledBufferBytes);
  ASSERT_TRUE(small && large);
  EXPECT_EQ(address(small) % kBufferAlignment, 0u);
  EXPECT_TRUE(allZero(small, kPooledBufferBytes - 1));
  EXPECT_TRUE(allZero(large, kPooledBufferBytes));
  freeHostBuffer(small);
  freeHostBuffer(large);
  freeHostBuffer(nullptr);
  EXPECT_EQ(allocateHostBuffer(0), nullptr);
  // A tensor's buffer comes from the same place and goes back to it.
  HostTensor tensor(PW_F32, {512, 512});
  EXPECT_TRUE(allZero(tensor.data(), tensor.bytes()));
}
