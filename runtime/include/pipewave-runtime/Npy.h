//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Reads and writes NumPy .npy files, format versions 1.0, 2.0 (and 3.0,
// whose header is UTF-8), C order only, little-endian element types
// '<f4' '<f8' '<i4' '<i8' '|i1' '|b1' (the pw_dtype set). Every error names
// the file and says what is wrong: bad magic, unsupported version, Fortran
// order, unsupported or big-endian dtype, malformed header, truncated data.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_NPY_H
#define PIPEWAVE_RUNTIME_NPY_H

#include "pipewave-runtime/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pipewave::runtime {

/// What a .npy header says.
struct NpyHeader {
  int major = 1;
  int minor = 0;
  int32_t dtype = PW_F32;
  std::vector<int64_t> shape;
  /// Offset of the first data byte.
  uint64_t dataOffset = 0;
  /// Bytes of data the header implies.
  uint64_t dataBytes = 0;
};

/// Parses the header at the start of `data` (`size` bytes available, at
/// least the whole header). `what` names the file in errors.
NpyHeader parseNpyHeader(const void *data, size_t size,
                         const std::string &what);

/// Reads and checks only the header of `path` (also that the file holds all
/// the data the header implies).
NpyHeader readNpyHeader(const std::string &path);

/// Reads a whole .npy file.
HostTensor readNpy(const std::string &path);

/// The complete preamble (magic, version, header, padding to 64 bytes) of a
/// C-order .npy file. Version 1.0 unless the header needs 2.0.
std::string encodeNpyHeader(int32_t dtype, const std::vector<int64_t> &shape);

/// Writes a .npy file atomically (see writeFileAtomic).
void writeNpy(const std::string &path, int32_t dtype,
              const std::vector<int64_t> &shape, const void *data);
void writeNpy(const std::string &path, const HostTensor &tensor);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_NPY_H
