//===- Tensor.h - Host tensors and element types ----------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Element-type helpers for the pw_dtype values of model.h, a 64-byte aligned
// host buffer, and HostTensor (dtype + shape + buffer), the unit of data I/O.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_TENSOR_H
#define PIPEWAVE_RUNTIME_TENSOR_H

#include "pipewave-runtime/model.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pipewave::runtime {

/// Alignment of every buffer the runtime allocates.
constexpr size_t kBufferAlignment = 64;

/// Rounds `bytes` up to a multiple of kBufferAlignment.
size_t alignUp(size_t bytes);

/// True for the pw_dtype values of model.h.
bool isValidDType(int32_t dtype);

/// Bytes per element of `dtype`; 0 when invalid.
size_t dtypeSize(int32_t dtype);

/// "f32", "f64", "i32", "i64", "i8", "bool"; "dtype(N)" when invalid.
std::string dtypeName(int32_t dtype);

/// Product of the dimensions (1 for a scalar). Throws Error on a negative
/// dimension or on overflow.
int64_t numElements(const std::vector<int64_t> &shape);

/// Bytes of a `dtype` tensor of `shape`. Throws Error on a negative
/// dimension or when the size does not fit in an int64_t (a header that
/// claims a huge shape must not wrap around to a small size).
uint64_t byteSize(int32_t dtype, const std::vector<int64_t> &shape);

/// "[16, 8]"; "[]" for a scalar.
std::string shapeString(const std::vector<int64_t> &shape);

/// The shape of a pw_tensor_info as a vector.
std::vector<int64_t> shapeOf(const pw_tensor_info &info);

/// Bytes of a tensor of `info`'s dtype and shape.
size_t tensorBytes(const pw_tensor_info &info);

/// A zero-initialised, kBufferAlignment-aligned host buffer.
class AlignedBuffer {
public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes);
  AlignedBuffer(AlignedBuffer &&other) noexcept;
  AlignedBuffer &operator=(AlignedBuffer &&other) noexcept;
  AlignedBuffer(const AlignedBuffer &) = delete;
  AlignedBuffer &operator=(const AlignedBuffer &) = delete;
  ~AlignedBuffer();

  void *data() { return ptr; }
  const void *data() const { return ptr; }
  size_t size() const { return bytes; }

private:
  void *ptr = nullptr;
  size_t bytes = 0;
};

/// A dense, row-major host tensor.
struct HostTensor {
  int32_t dtype = PW_F32;
  std::vector<int64_t> shape;
  AlignedBuffer buffer;

  HostTensor() = default;
  /// Allocates a zero-filled tensor.
  HostTensor(int32_t dtype, std::vector<int64_t> shape);

  size_t bytes() const { return buffer.size(); }
  void *data() { return buffer.data(); }
  const void *data() const { return buffer.data(); }
  int64_t size() const { return numElements(shape); }
  bool empty() const { return shape.empty() && buffer.size() == 0; }
};

/// Microbatch shape of a data input of global shape `shape` split into
/// `microbatches` along dimension 0. Throws Error when the shape has no
/// dimension 0 or dimension 0 is not a multiple of `microbatches`; `what`
/// names the tensor in the message.
std::vector<int64_t> microbatchShape(const std::vector<int64_t> &shape,
                                     int microbatches, const std::string &what);

/// Pointer to microbatch `m`'s slice of a batch-major tensor: C order makes it
/// one contiguous run of `bytes / microbatches` bytes.
const void *microbatchSlice(const void *data, size_t bytes, int microbatches,
                            int m);

/// True when addValues() sums `dtype`: f32, f64, i32, i64 and i8.
bool isSummableDType(int32_t dtype);

/// dst[i] += src[i] for `count` elements of `dtype`, in index order, in the
/// element type (the one per-dtype sum of the runtime: gradient and output
/// accumulation, replica outputs). Throws Error("cannot sum values of dtype
/// D") for a dtype isSummableDType() rejects.
void addValues(int32_t dtype, void *dst, const void *src, size_t count);

/// Sum of the elements as a double (booleans count as 0/1).
double elementSum(int32_t dtype, const void *data, size_t count);

/// 64-bit FNV-1a hash of `bytes` bytes.
uint64_t fnv1a(const void *data, size_t bytes);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_TENSOR_H
