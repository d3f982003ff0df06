//===- KernelBuilder.h - Kernels for linalg ops -----------------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// pipewave's own mapping of bufferized linalg.generic ops to GPU kernels
// (used by pipe-gpu-map-kernels):
//
//   - all loops parallel (element-wise, broadcast, transpose, copy, fill,
//     gather): one 1-D grid-stride kernel, one thread per element of the
//     iteration space;
//   - reductions whose single output is combined by addf, mulf, maximumf,
//     minimumf, maxnumf or minnumf: one block per output element (a row of a
//     last-dimension reduction), the block's threads striding over the
//     reduced elements and combining them with gpu.all_reduce;
//   - any other reduction: one thread per output element looping over the
//     reduced elements.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_CONVERSION_GPU_KERNELBUILDER_H
#define PIPEWAVE_LIB_CONVERSION_GPU_KERNELBUILDER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace pipewave {

/// Threads per block of the grid-stride kernels.
constexpr int64_t kGpuBlockSize = 256;
/// Most blocks a grid-stride kernel is launched with.
constexpr int64_t kGpuMaxGridSize = 4096;

/// Builds the kernel `name` in `module` computing `op` (a linalg.generic on
/// buffers with static loop ranges) and replaces `op` by its gpu.launch_func.
/// `init`, when given, is the value a reduction with one output starts from
/// instead of loading its output (the fill that preceded it is then gone).
/// Fails (with a diagnostic on `op`) for shapes it cannot map.
mlir::LogicalResult mapGenericToKernel(mlir::linalg::GenericOp op,
                                       mlir::gpu::GPUModuleOp module,
                                       llvm::StringRef name,
                                       mlir::Value init = nullptr);

} // namespace pipewave

#endif // PIPEWAVE_LIB_CONVERSION_GPU_KERNELBUILDER_H
