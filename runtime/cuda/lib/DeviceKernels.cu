//===- DeviceKernels.cu - The CUDA device's own kernels -------------------===//
//
// Part of the pipewave project.
//
// Grid-stride loops, one element per thread per iteration, in the same
// float operations as the CPU runtime (built with -fmad=false; see
// DeviceKernels.h). Launch errors are left for the device's next check
// (cudaGetLastError at synchronisation).
//
//===----------------------------------------------------------------------===//

#include "DeviceKernels.h"

#include "pipewave-runtime/model.h"

#include <cuda_runtime.h>

namespace pipewave::runtime::cuda {

namespace {

constexpr unsigned kBlock = 256;
constexpr size_t kMaxBlocks = 4096;

unsigned blocksFor(size_t count) {
  size_t blocks = (count + kBlock - 1) / kBlock;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

template <typename T>
__global__ void addKernel(T *dst, const T *src, size_t count) {
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < count; i += stride)
    dst[i] = dst[i] + src[i];
}

template <typename T>
void add(void *dst, const void *src, size_t count, void *stream) {
  addKernel<T><<<blocksFor(count), kBlock, 0, (cudaStream_t)stream>>>(
      static_cast<T *>(dst), static_cast<const T *>(src), count);
}

__global__ void sgdKernel(SgdScalars value, const SgdScalars *scalars,
                          float *param, const float *grad, float *buf,
                          size_t count) {
  const SgdScalars s = scalars ? *scalars : value;
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < count; i += stride)
    param[i] = sgdElement(s, param[i], grad[i], buf ? buf + i : nullptr);
}

__global__ void adamKernel(AdamScalars value, const AdamScalars *scalars,
                           float *param, const float *grad, float *m, float *v,
                           size_t count) {
  const AdamScalars s = scalars ? *scalars : value;
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < count; i += stride)
    param[i] = adamElement(s, param[i], grad[i], m + i, v + i);
}

__global__ void flagNonfiniteKernel(const float *data, size_t count,
                                    unsigned *flag) {
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < count; i += stride)
    if (!isfinite(data[i]))
      *flag = 1;
}

} // namespace

void launchFlagNonfinite(const float *data, size_t count, unsigned *flag,
                         void *stream) {
  if (count)
    flagNonfiniteKernel<<<blocksFor(count), kBlock, 0, (cudaStream_t)stream>>>(
        data, count, flag);
}

bool launchAccumulate(int32_t dtype, void *dst, const void *src, size_t count,
                      void *stream) {
  if (count == 0)
    return dtype == PW_F32 || dtype == PW_F64 || dtype == PW_I32 ||
           dtype == PW_I64 || dtype == PW_I8;
  switch (dtype) {
  case PW_F32:
    add<float>(dst, src, count, stream);
    return true;
  case PW_F64:
    add<double>(dst, src, count, stream);
    return true;
  case PW_I32:
    add<int32_t>(dst, src, count, stream);
    return true;
  case PW_I64:
    add<int64_t>(dst, src, count, stream);
    return true;
  case PW_I8:
    add<int8_t>(dst, src, count, stream);
    return true;
  default:
    return false;
  }
}

void launchSgd(const SgdScalars &value, const SgdScalars *scalars, float *param,
               const float *grad, float *buf, size_t count, void *stream) {
  if (count)
    sgdKernel<<<blocksFor(count), kBlock, 0, (cudaStream_t)stream>>>(
        value, scalars, param, grad, buf, count);
}

void launchAdam(const AdamScalars &value, const AdamScalars *scalars,
                float *param, const float *grad, float *m, float *v,
                size_t count, void *stream) {
  if (count)
    adamKernel<<<blocksFor(count), kBlock, 0, (cudaStream_t)stream>>>(
        value, scalars, param, grad, m, v, count);
}

} // namespace pipewave::runtime::cuda
