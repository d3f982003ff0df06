//===- HostMemory.h - Host heap policy and page-fault counts ----*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Compiled stage code allocates its temporaries with malloc and frees them
// before it returns. With glibc's defaults a block of 128 KiB or more is
// mmap'd and unmapped at every call (and freed heap tops are trimmed), so each
// call faults its temporaries in again. keepFreedHostMemory() makes glibc keep
// and reuse freed memory instead; minorPageFaults() measures the effect.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_HOSTMEMORY_H
#define PIPEWAVE_RUNTIME_HOSTMEMORY_H

#include <cstdint>

namespace pipewave::runtime {

/// Sets the process's malloc policy for training: blocks up to glibc's
/// largest mmap threshold (32 MiB) come from the heap, and the heap is never
/// trimmed, so a freed temporary's pages are reused by the next call rather
/// than returned to the system and faulted in again. Called once at start-up
/// by pw_runtime_main; a no-op on C libraries other than glibc. A user's
/// MALLOC_MMAP_THRESHOLD_/MALLOC_TRIM_THRESHOLD_ (or GLIBC_TUNABLES) settings
/// take precedence.
void keepFreedHostMemory();

/// Minor page faults of the calling thread so far (getrusage), or of the
/// process where per-thread counts are not available.
int64_t minorPageFaults();

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_HOSTMEMORY_H
