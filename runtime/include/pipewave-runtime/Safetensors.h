//===- Safetensors.h - safetensors files ------------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// safetensors: an 8-byte little-endian header length N, N bytes of JSON
// {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]},
//  ..., "__metadata__": {"key": "value"}}, then the data; offsets are
// relative to the end of the header. Supported dtypes: F32 F64 I32 I64 I8
// BOOL. The reader checks the whole header when the file is opened and reads
// tensors on demand; the writer writes atomically (checkpoints).
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_SAFETENSORS_H
#define PIPEWAVE_RUNTIME_SAFETENSORS_H

#include "pipewave-runtime/File.h"
#include "pipewave-runtime/Tensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pipewave::runtime {

/// One tensor listed in a safetensors header.
struct SafetensorsEntry {
  std::string name;
  int32_t dtype = PW_F32;
  std::vector<int64_t> shape;
  /// Absolute file offsets of the data.
  uint64_t begin = 0;
  uint64_t end = 0;
};

/// A safetensors file opened for reading.
class SafetensorsReader {
public:
  /// Opens `path` and checks its header: JSON syntax, every entry's dtype,
  /// shape and offsets (inside the file, size matching dtype and shape, no
  /// overlap). Throws Error naming the file and, where relevant, the tensor.
  explicit SafetensorsReader(const std::string &path);

  const std::string &path() const { return file->path(); }
  const std::vector<SafetensorsEntry> &entries() const { return tensors; }
  const std::map<std::string, std::string> &metadata() const { return meta; }

  /// The entry called `name`, or nullptr.
  const SafetensorsEntry *find(const std::string &name) const;

  /// Reads tensor `name` into `dst` after checking that it exists and has
  /// `dtype` and `shape`; errors name the tensor, the file and both shapes or
  /// dtypes.
  void read(const std::string &name, int32_t dtype,
            const std::vector<int64_t> &shape, void *dst) const;

  /// Reads tensor `name` whatever its dtype and shape.
  HostTensor read(const std::string &name) const;

private:
  std::unique_ptr<InputFile> file;
  std::vector<SafetensorsEntry> tensors;
  std::map<std::string, std::string> meta;
};

/// A tensor to write: name, dtype, shape, and the data (not owned).
struct SafetensorsTensorRef {
  std::string name;
  int32_t dtype = PW_F32;
  std::vector<int64_t> shape;
  const void *data = nullptr;
};

/// The header (length field, JSON, padding to 8 bytes) for `tensors` laid out
/// back to back in the given order.
std::string encodeSafetensorsHeader(
    const std::vector<SafetensorsTensorRef> &tensors,
    const std::map<std::string, std::string> &metadata = {});

/// Writes a safetensors file atomically (see writeFileAtomic).
void writeSafetensors(const std::string &path,
                      const std::vector<SafetensorsTensorRef> &tensors,
                      const std::map<std::string, std::string> &metadata = {});

/// "F32", "F64", "I32", "I64", "I8", "BOOL".
const char *safetensorsDTypeName(int32_t dtype);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_SAFETENSORS_H
