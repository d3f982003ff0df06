//===- Tensor.cpp - Host tensors and element types ------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Tensor.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/HostBufferPool.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

namespace pipewave::runtime {

size_t alignUp(size_t bytes) {
  return (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

bool isValidDType(int32_t dtype) { return dtype >= PW_F32 && dtype <= PW_BOOL; }

size_t dtypeSize(int32_t dtype) {
  switch (dtype) {
  case PW_F32:
  case PW_I32:
    return 4;
  case PW_F64:
  case PW_I64:
    return 8;
  case PW_I8:
  case PW_BOOL:
    return 1;
  default:
    return 0;
  }
}

std::string dtypeName(int32_t dtype) {
  switch (dtype) {
  case PW_F32:
    return "f32";
  case PW_F64:
    return "f64";
  case PW_I32:
    return "i32";
  case PW_I64:
    return "i64";
  case PW_I8:
    return "i8";
  case PW_BOOL:
    return "bool";
  default:
    return "dtype(" + std::to_string(dtype) + ")";
  }
}

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      throw Error("negative dimension in shape " + shapeString(shape));
    if (dim != 0 && count > std::numeric_limits<int64_t>::max() / dim)
      throw Error("shape " + shapeString(shape) + " is too large");
    count *= dim;
  }
  return count;
}

uint64_t byteSize(int32_t dtype, const std::vector<int64_t> &shape) {
  int64_t count = numElements(shape);
  int64_t size = static_cast<int64_t>(dtypeSize(dtype));
  if (size != 0 && count > std::numeric_limits<int64_t>::max() / size)
    throw Error("shape " + shapeString(shape) + " of " + dtypeName(dtype) +
                " is too large");
  return static_cast<uint64_t>(count * size);
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

std::vector<int64_t> shapeOf(const pw_tensor_info &info) {
  if (info.rank <= 0 || !info.shape)
    return {};
  return std::vector<int64_t>(info.shape, info.shape + info.rank);
}

size_t tensorBytes(const pw_tensor_info &info) {
  return static_cast<size_t>(numElements(shapeOf(info))) *
         dtypeSize(info.dtype);
}

AlignedBuffer::AlignedBuffer(size_t size) : bytes(size) {
  if (size == 0)
    return;
  ptr = allocateHostBuffer(size);
  if (!ptr)
    throw Error("out of memory allocating " + std::to_string(size) + " bytes");
}

AlignedBuffer::AlignedBuffer(AlignedBuffer &&other) noexcept
    : ptr(std::exchange(other.ptr, nullptr)),
      bytes(std::exchange(other.bytes, 0)) {}

AlignedBuffer &AlignedBuffer::operator=(AlignedBuffer &&other) noexcept {
  if (this != &other) {
    freeHostBuffer(ptr);
    ptr = std::exchange(other.ptr, nullptr);
    bytes = std::exchange(other.bytes, 0);
  }
  return *this;
}

AlignedBuffer::~AlignedBuffer() { freeHostBuffer(ptr); }

HostTensor::HostTensor(int32_t dtype, std::vector<int64_t> shape)
    : dtype(dtype), shape(std::move(shape)),
      buffer(static_cast<size_t>(byteSize(dtype, this->shape))) {}

std::vector<int64_t> microbatchShape(const std::vector<int64_t> &shape,
                                     int microbatches,
                                     const std::string &what) {
  if (microbatches < 1)
    throw Error("invalid number of microbatches " +
                std::to_string(microbatches));
  if (shape.empty())
    throw Error(what +
                " is a scalar and has no batch dimension to split into " +
                std::to_string(microbatches) + " microbatches");
  if (shape[0] % microbatches != 0)
    throw Error(what + ": batch dimension " + std::to_string(shape[0]) +
                " of shape " + shapeString(shape) +
                " is not divisible by the " + std::to_string(microbatches) +
                " microbatches");
  std::vector<int64_t> result = shape;
  result[0] /= microbatches;
  return result;
}

const void *microbatchSlice(const void *data, size_t bytes, int microbatches,
                            int m) {
  size_t slice = bytes / static_cast<size_t>(microbatches);
  return static_cast<const char *>(data) + slice * static_cast<size_t>(m);
}

namespace {

template <typename T> void addInto(void *dst, const void *src, size_t count) {
  T *out = static_cast<T *>(dst);
  const T *in = static_cast<const T *>(src);
  for (size_t i = 0; i < count; ++i)
    out[i] += in[i];
}

} // namespace

bool isSummableDType(int32_t dtype) {
  return dtype == PW_F32 || dtype == PW_F64 || dtype == PW_I32 ||
         dtype == PW_I64 || dtype == PW_I8;
}

void addValues(int32_t dtype, void *dst, const void *src, size_t count) {
  switch (dtype) {
  case PW_F32:
    return addInto<float>(dst, src, count);
  case PW_F64:
    return addInto<double>(dst, src, count);
  case PW_I32:
    return addInto<int32_t>(dst, src, count);
  case PW_I64:
    return addInto<int64_t>(dst, src, count);
  case PW_I8:
    return addInto<int8_t>(dst, src, count);
  default:
    throw Error("cannot sum values of dtype " + dtypeName(dtype));
  }
}

double elementSum(int32_t dtype, const void *data, size_t count) {
  double sum = 0;
  for (size_t i = 0; i < count; ++i) {
    switch (dtype) {
    case PW_F32:
      sum += static_cast<const float *>(data)[i];
      break;
    case PW_F64:
      sum += static_cast<const double *>(data)[i];
      break;
    case PW_I32:
      sum += static_cast<const int32_t *>(data)[i];
      break;
    case PW_I64:
      sum += static_cast<double>(static_cast<const int64_t *>(data)[i]);
      break;
    case PW_I8:
      sum += static_cast<const int8_t *>(data)[i];
      break;
    case PW_BOOL:
      sum += static_cast<const uint8_t *>(data)[i] ? 1 : 0;
      break;
    default:
      break;
    }
  }
  return sum;
}

uint64_t fnv1a(const void *data, size_t bytes) {
  uint64_t hash = 14695981039346656037ull;
  const auto *p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < bytes; ++i) {
    hash ^= p[i];
    hash *= 1099511628211ull;
  }
  return hash;
}

} // namespace pipewave::runtime
