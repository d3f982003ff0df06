//===- Safetensors.h - The one safetensors header encoder -------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++17 (no MLIR/LLVM, no exceptions). A safetensors file is an
// 8-byte little-endian header length N, N bytes of JSON
//   {"__metadata__": {"key": "value", ...},
//    "name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]},
//    ...}
// then the data; offsets are relative to the end of the header. This encodes
// the header of tensors laid out back to back; the ONNX importer (weights)
// and the runtime (checkpoints) write their files with it. The runtime's
// reader is pipewave-runtime/Safetensors.h.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SUPPORT_SAFETENSORS_H
#define PIPEWAVE_SUPPORT_SAFETENSORS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pipewave::safetensors {

/// One tensor of a file: its name, safetensors dtype ("F32", "F64", "BF16",
/// "I64", "BOOL", ...), shape, and the size of its data in bytes.
struct TensorInfo {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
};

/// The header of a file holding `tensors` back to back in the given order:
/// the length field, the JSON (with "__metadata__" first when `metadata` is
/// not empty), and spaces so that the data starts 8-byte aligned.
std::string
encodeHeader(const std::vector<TensorInfo> &tensors,
             const std::map<std::string, std::string> &metadata = {});

} // namespace pipewave::safetensors

#endif // PIPEWAVE_SUPPORT_SAFETENSORS_H
