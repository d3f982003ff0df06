//===- DeviceArena.h - One device block per rank, carved by offsets -*- C++
//-*-===//
//
// Part of the pipewave project.
//
// A device that allocates its memory once (the CUDA device: one cudaMalloc
// per rank before the first step) hands out pieces of one block by offset.
// The offset logic is plain C++ here, so it is tested without a GPU:
//
// * DeviceArena: a bump allocator over `capacity` bytes. Every piece starts
//   at a multiple of kBufferAlignment; freeing the most recent piece gives
//   its bytes back (a stack), freeing another one keeps them until reset()
//   (the executor frees everything at once, at the end).
// * deviceMemoryBound(): an upper bound, from the plan, of what the
//   executor allocates on a device that does not share host memory (model
//   inputs the rank reads, two buffers for each batch input, every pool's
//   slots, outputs, and for training
//   the flat gradient buffers, optimizer state, gradient scratch and the
//   seed, and the stage functions' workspace), each rounded up as the arena
//   rounds it. The executor reserves it
//   (Device::reserve) before its first allocation.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_DEVICEARENA_H
#define PIPEWAVE_RUNTIME_DEVICEARENA_H

#include "pipewave-runtime/ExecPlan.h"
#include "pipewave-runtime/Optimizer.h"
#include "pipewave-runtime/model.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pipewave::runtime {

class DeviceArena {
public:
  /// Returned by allocate() when the piece does not fit.
  static constexpr size_t npos = SIZE_MAX;

  explicit DeviceArena(size_t capacity = 0) : total(capacity) {}

  /// The offset of a fresh piece of `bytes` bytes (rounded up to
  /// kBufferAlignment), or npos when the arena has no room left. Zero bytes
  /// take no room and return the current top.
  size_t allocate(size_t bytes);
  /// Frees the piece at `offset`: its room comes back only when it is the
  /// most recent live piece (then also that of earlier freed pieces below
  /// it). Unknown offsets are ignored.
  void release(size_t offset);
  /// Frees everything.
  void reset();

  size_t capacity() const { return total; }
  /// Bytes from 0 to the top of the highest live piece.
  size_t used() const { return top; }
  /// The most used() has been.
  size_t peak() const { return highest; }

private:
  struct Piece {
    size_t offset;
    size_t bytes;
    bool live;
  };
  size_t total;
  size_t top = 0;
  size_t highest = 0;
  std::vector<Piece> pieces;
};

/// The workspace a rank following `program` needs: the largest
/// `*_workspace` of the functions of the stages it holds (model.h). All
/// stage calls of a rank run one after the other on its compute stream, so
/// one buffer of that size serves them all.
size_t stageWorkspaceBytes(const pw_model &model,
                           const pw_rank_program &program);

/// An upper bound of the device memory an Executor of `model` following
/// `plan` with `optimizer` and the model inputs `inputs` (those not null
/// get device copies) allocates when its device does not share host
/// memory, as the sum of its allocations each rounded up to
/// kBufferAlignment (what a DeviceArena of that capacity holds).
size_t deviceMemoryBound(const pw_model &model, const ExecPlan &plan,
                         const OptimizerConfig &optimizer,
                         const std::vector<void *> &inputs);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_DEVICEARENA_H
