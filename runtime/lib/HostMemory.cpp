//===- HostMemory.cpp - Host heap policy and page-fault counts ------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/HostMemory.h"

#include <cstdlib>
#include <cstring>
#include <sys/resource.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pipewave::runtime {

namespace {

/// Whether the user set glibc's malloc policy through the environment.
bool userSetMallocPolicy() {
  if (std::getenv("MALLOC_MMAP_THRESHOLD_") ||
      std::getenv("MALLOC_TRIM_THRESHOLD_"))
    return true;
  const char *tunables = std::getenv("GLIBC_TUNABLES");
  return tunables && std::strstr(tunables, "glibc.malloc.");
}

} // namespace

void keepFreedHostMemory() {
#if defined(__GLIBC__)
  if (userSetMallocPolicy())
    return;
  // glibc's ceiling for the mmap threshold on 64-bit targets
  // (DEFAULT_MMAP_THRESHOLD_MAX: 4 * 1024 * 1024 * sizeof(long)).
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  // Setting either threshold also stops glibc's dynamic threshold; a trim
  // threshold this large keeps freed heap tops mapped.
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

int64_t minorPageFaults() {
  struct rusage usage;
#if defined(RUSAGE_THREAD)
  if (getrusage(RUSAGE_THREAD, &usage) == 0)
    return usage.ru_minflt;
#endif
  if (getrusage(RUSAGE_SELF, &usage) == 0)
    return usage.ru_minflt;
  return 0;
}

} // namespace pipewave::runtime
