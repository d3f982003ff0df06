//===- HostBufferPool.h - Runtime buffers on huge pages ---------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// A training step reads every parameter, gradient and optimizer moment of a
// rank: megabytes spread over thousands of 4 KiB pages, more than the TLB
// holds, so each pass over them walks page tables. The runtime's large host
// buffers (parameters, flat gradients, optimizer state, activation slots,
// the stage functions' workspace) therefore come from HostBufferPool:
// 2 MiB-aligned regions the kernel is asked to back with transparent huge
// pages (madvise MADV_HUGEPAGE; honoured when
// /sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise"),
// carved first-fit so that buffers share the huge pages. Where the kernel
// has no transparent huge pages the regions are ordinary pages: the numbers
// are the same either way, and PW_HUGE_PAGES=0 in the environment asks for
// ordinary pages.
//
// allocateHostBuffer/freeHostBuffer are the process's pool behind
// HostDevice and AlignedBuffer; buffers under kPooledBufferBytes come from
// aligned_alloc as before, and so do all of them in a build with
// AddressSanitizer, which then sees each buffer's bounds.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_HOSTBUFFERPOOL_H
#define PIPEWAVE_RUNTIME_HOSTBUFFERPOOL_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

namespace pipewave::runtime {

/// Transparent huge pages' size on x86-64 and AArch64 (4 KiB base pages).
constexpr size_t kHugePageBytes = size_t(2) << 20;

/// No buffer is larger (a request beyond it fails like one the system
/// cannot meet): 2^56 bytes, above any machine's memory.
constexpr size_t kLargestBufferBytes = size_t(1) << 56;

/// A pool region's size unless a buffer needs more.
constexpr size_t kPoolRegionBytes = size_t(32) << 20;

/// Buffers at least this large come from the pool.
constexpr size_t kPooledBufferBytes = size_t(64) << 10;

/// Regions of 2 MiB-aligned anonymous memory, each carved first-fit into
/// kBufferAlignment-aligned pieces. Thread-safe. A region whose pieces are
/// all free is kept for reuse while it is the only empty one; further empty
/// regions are returned to the system.
class HostBufferPool {
public:
  /// Regions are `regionBytes` (rounded up to kHugePageBytes) unless a
  /// buffer needs more; `adviseHugePages` asks the kernel for huge pages.
  explicit HostBufferPool(size_t regionBytes = kPoolRegionBytes,
                          bool adviseHugePages = true);
  ~HostBufferPool();
  HostBufferPool(const HostBufferPool &) = delete;
  HostBufferPool &operator=(const HostBufferPool &) = delete;

  /// `bytes` (> 0) of zeroed memory; nullptr when the system has none.
  void *allocate(size_t bytes);

  /// Frees a piece allocate() returned; false (and nothing done) when
  /// `ptr` is not one.
  bool release(void *ptr);

  /// Whether `ptr` is the start of a live piece of this pool.
  bool owns(const void *ptr) const;

  /// Regions mapped now, and their bytes.
  size_t regionCount() const;
  size_t mappedBytes() const;
  /// Bytes of live pieces.
  size_t liveBytes() const;

private:
  /// Live pieces and free gaps of a region, by offset: size and whether
  /// live.
  using Pieces = std::map<size_t, std::pair<size_t, bool>>;
  struct Region {
    size_t size = 0;
    Pieces pieces;
    size_t live = 0;
  };
  using Regions = std::map<char *, Region>;

  void *carve(char *base, Region &region, size_t size);
  /// A new region of `size` bytes; regions.end() when the system has none.
  Regions::iterator mapRegion(size_t size);
  /// The region and live piece that start at `ptr`; nullopt when none does.
  /// The caller holds `mutex`.
  std::optional<std::pair<Regions::iterator, Pieces::iterator>>
  findLive(const void *ptr);

  size_t regionBytes;
  bool advise;
  mutable std::mutex mutex;
  Regions regions;
};

/// kBufferAlignment-aligned zeroed host memory for a runtime buffer: from
/// the process's HostBufferPool from kPooledBufferBytes up, else
/// aligned_alloc. nullptr for 0 bytes or when the system has no memory.
void *allocateHostBuffer(size_t bytes);

/// Frees what allocateHostBuffer returned (nullptr is ignored).
void freeHostBuffer(void *ptr);

/// Bytes of this process's memory the kernel backs with transparent huge
/// pages now (AnonHugePages of /proc/self/smaps_rollup); -1 when unknown.
int64_t hugePageBackedBytes();

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_HOSTBUFFERPOOL_H
