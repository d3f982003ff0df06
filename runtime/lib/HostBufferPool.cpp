//===- HostBufferPool.cpp - Runtime buffers on huge pages -----------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/HostBufferPool.h"
#include "pipewave-runtime/Tensor.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <sys/mman.h>

namespace pipewave::runtime {

namespace {

size_t roundUp(size_t bytes, size_t unit) {
  return (bytes + unit - 1) / unit * unit;
}

} // namespace

HostBufferPool::HostBufferPool(size_t regionBytes, bool adviseHugePages)
    : regionBytes(roundUp(regionBytes ? regionBytes : 1, kHugePageBytes)),
      advise(adviseHugePages) {}

HostBufferPool::~HostBufferPool() {
  for (auto &[base, region] : regions)
    munmap(base, region.size);
}

HostBufferPool::Regions::iterator HostBufferPool::mapRegion(size_t size) {
  // Over-map by a huge page and trim both ends to a 2 MiB-aligned start:
  // the kernel backs a range with huge pages only where it covers whole
  // aligned 2 MiB frames.
  size_t span = size + kHugePageBytes;
  void *raw = mmap(nullptr, span, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    return regions.end();
  auto start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = roundUp(start, kHugePageBytes);
  if (aligned > start)
    munmap(raw, aligned - start);
  uintptr_t end = aligned + size;
  if (start + span > end)
    munmap(reinterpret_cast<void *>(end), start + span - end);
  char *base = reinterpret_cast<char *>(aligned);
#if defined(MADV_HUGEPAGE)
  // Refused where the kernel has no transparent huge pages: then these are
  // ordinary pages, which changes nothing but speed.
  if (advise)
    madvise(base, size, MADV_HUGEPAGE);
#endif
  Region region;
  region.size = size;
  region.pieces[0] = {size, false};
  return regions.emplace(base, std::move(region)).first;
}

void *HostBufferPool::carve(char *base, Region &region, size_t size) {
  for (auto it = region.pieces.begin(); it != region.pieces.end(); ++it) {
    auto [offset, piece] = *it;
    if (piece.second || piece.first < size)
      continue;
    it->second = {size, true};
    if (piece.first > size)
      region.pieces[offset + size] = {piece.first - size, false};
    region.live += size;
    std::memset(base + offset, 0, size);
    return base + offset;
  }
  return nullptr;
}

void *HostBufferPool::allocate(size_t bytes) {
  // Beyond any address space: refused before the rounding below wraps.
  if (bytes == 0 || bytes > kLargestBufferBytes)
    return nullptr;
  size_t size = alignUp(bytes);
  std::lock_guard<std::mutex> lock(mutex);
  for (auto &[base, region] : regions)
    if (void *ptr = carve(base, region, size))
      return ptr;
  auto fresh = mapRegion(std::max(regionBytes, roundUp(size, kHugePageBytes)));
  if (fresh == regions.end())
    return nullptr;
  return carve(fresh->first, fresh->second, size);
}

std::optional<std::pair<HostBufferPool::Regions::iterator,
                        HostBufferPool::Pieces::iterator>>
HostBufferPool::findLive(const void *ptr) {
  char *at = static_cast<char *>(const_cast<void *>(ptr));
  auto it = regions.upper_bound(at);
  if (it == regions.begin())
    return std::nullopt;
  --it;
  if (at >= it->first + it->second.size)
    return std::nullopt;
  auto piece = it->second.pieces.find(static_cast<size_t>(at - it->first));
  if (piece == it->second.pieces.end() || !piece->second.second)
    return std::nullopt;
  return std::make_pair(it, piece);
}

bool HostBufferPool::release(void *ptr) {
  if (!ptr)
    return false;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = findLive(ptr);
  if (!found)
    return false;
  auto [it, piece] = *found;
  char *base = it->first;
  Region &region = it->second;
  piece->second.second = false;
  region.live -= piece->second.first;
  // Merge with the free gaps on either side.
  auto next = std::next(piece);
  if (next != region.pieces.end() && !next->second.second) {
    piece->second.first += next->second.first;
    region.pieces.erase(next);
  }
  if (piece != region.pieces.begin()) {
    auto previous = std::prev(piece);
    if (!previous->second.second) {
      previous->second.first += piece->second.first;
      region.pieces.erase(piece);
    }
  }
  if (region.live == 0) {
    // Keep one empty region for the next buffers; return the others.
    for (auto &[otherBase, other] : regions)
      if (otherBase != base && other.live == 0) {
        munmap(base, region.size);
        regions.erase(it);
        break;
      }
  }
  return true;
}

bool HostBufferPool::owns(const void *ptr) const {
  std::lock_guard<std::mutex> lock(mutex);
  // findLive hands out iterators that may change the pool; this looks only.
  return const_cast<HostBufferPool *>(this)->findLive(ptr).has_value();
}

size_t HostBufferPool::regionCount() const {
  std::lock_guard<std::mutex> lock(mutex);
  return regions.size();
}

size_t HostBufferPool::mappedBytes() const {
  std::lock_guard<std::mutex> lock(mutex);
  size_t total = 0;
  for (const auto &[base, region] : regions)
    total += region.size;
  return total;
}

size_t HostBufferPool::liveBytes() const {
  std::lock_guard<std::mutex> lock(mutex);
  size_t total = 0;
  for (const auto &[base, region] : regions)
    total += region.live;
  return total;
}

namespace {

/// The process's pool: never destroyed, so buffers freed during static
/// destruction still find it. PW_HUGE_PAGES=0 leaves its regions on
/// ordinary pages.
HostBufferPool &processPool() {
  static HostBufferPool *pool = [] {
    const char *setting = std::getenv("PW_HUGE_PAGES");
    bool advise = !(setting && std::strcmp(setting, "0") == 0);
    return new HostBufferPool(kPoolRegionBytes, advise);
  }();
  return *pool;
}

/// Under AddressSanitizer every buffer comes from the C library, so that
/// each keeps its redzones: pieces of a pool region touch each other.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPoolBuffers = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kPoolBuffers = false;
#else
constexpr bool kPoolBuffers = true;
#endif
#else
constexpr bool kPoolBuffers = true;
#endif

} // namespace

void *allocateHostBuffer(size_t bytes) {
  if (bytes == 0 || bytes > kLargestBufferBytes)
    return nullptr;
  if (kPoolBuffers && bytes >= kPooledBufferBytes)
    return processPool().allocate(bytes);
  void *ptr = std::aligned_alloc(kBufferAlignment, alignUp(bytes));
  if (ptr)
    std::memset(ptr, 0, alignUp(bytes));
  return ptr;
}

void freeHostBuffer(void *ptr) {
  if (ptr && !(kPoolBuffers && processPool().release(ptr)))
    std::free(ptr);
}

int64_t hugePageBackedBytes() {
  std::FILE *file = std::fopen("/proc/self/smaps_rollup", "r");
  if (!file)
    return -1;
  char line[256];
  int64_t kib = -1;
  while (std::fgets(line, sizeof line, file)) {
    long long value = 0;
    if (std::sscanf(line, "AnonHugePages: %lld kB", &value) == 1) {
      kib = value;
      break;
    }
  }
  std::fclose(file);
  return kib < 0 ? -1 : kib * 1024;
}

} // namespace pipewave::runtime
