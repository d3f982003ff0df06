//===- DeviceKernels.h - The CUDA device's own kernels ----------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Accumulation and the optimizer updates of the CUDA device (CudaDevice),
// launched on a given stream. The optimizer kernels apply the formulas of
// pipewave-runtime/OptimizerMath.h, the ones the CPU runtime applies, and
// are compiled with -fmad=false: fp32 results equal the CPU's bit for bit.
// Scalars come by value, or, when `scalars` is not null, from that address
// (pinned host memory the device reads at run time: a captured graph
// replays with the scalars of the current step).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_CUDA_LIB_DEVICEKERNELS_H
#define PIPEWAVE_CUDA_LIB_DEVICEKERNELS_H

#include "pipewave-runtime/OptimizerMath.h"

#include <cstddef>
#include <cstdint>

namespace pipewave::runtime::cuda {

/// dst[i] += src[i] for `count` elements of `dtype` (f32, f64, i32, i64,
/// i8) on `stream` (a cudaStream_t). False for another dtype.
bool launchAccumulate(int32_t dtype, void *dst, const void *src, size_t count,
                      void *stream);

/// sgdElement() over `count` elements; `buf` may be null without momentum.
void launchSgd(const SgdScalars &value, const SgdScalars *scalars, float *param,
               const float *grad, float *buf, size_t count, void *stream);

/// adamElement() over `count` elements.
void launchAdam(const AdamScalars &value, const AdamScalars *scalars,
                float *param, const float *grad, float *m, float *v,
                size_t count, void *stream);

/// Sets `*flag` (device memory) to 1 if one of `count` floats at `data` is
/// not finite; leaves it otherwise.
void launchFlagNonfinite(const float *data, size_t count, unsigned *flag,
                         void *stream);

} // namespace pipewave::runtime::cuda

#endif // PIPEWAVE_CUDA_LIB_DEVICEKERNELS_H
