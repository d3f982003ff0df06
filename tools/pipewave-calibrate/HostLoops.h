//===- HostLoops.h - The runtime's own loops, timed in process --*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// What a B or W action does besides the stage function: the runtime adds
// every parameter gradient of the microbatch to the step's
// (pipewave::runtime::addValues); and what a stage function returning one
// of its arguments does: a contiguous copy into the caller's buffer (the
// compiled code's memref.copy is a memcpy). Both timed here, in this
// process, with the runtime's heap policy, on data evicted from the caches
// before every call (the rest of a step runs in between).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_TOOLS_CALIBRATE_HOSTLOOPS_H
#define PIPEWAVE_TOOLS_CALIBRATE_HOSTLOOPS_H

#include <cstddef>

namespace pipewave::calibrate {

/// Median seconds of the runtime's f32 gradient accumulation over `count`
/// values (dst += src), over `reps` calls (each on evicted caches with
/// `evict`; the fixed cost per tensor is measured without: a small model's
/// gradients stay in the caches).
double accumulateSeconds(size_t count, int reps, bool evict = true);

/// Median seconds of a contiguous copy of `count` floats (on evicted caches
/// with `evict`).
double copySeconds(size_t count, int reps, bool evict = true);

/// The runtime's scan of `count` floats for non-finite values (caches
/// evicted before each).
double nonfiniteCheckSeconds(size_t count, int reps);

} // namespace pipewave::calibrate

#endif // PIPEWAVE_TOOLS_CALIBRATE_HOSTLOOPS_H
