//===- TensorData.h - Initializer data of ONNX models -----------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Reading the data of ONNX tensors (raw, typed fields or external files) and
// writing the parameters' values to a safetensors file.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_IMPORT_ONNX_TENSORDATA_H
#define PIPEWAVE_LIB_IMPORT_ONNX_TENSORDATA_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace pipewave::onnximport {

/// The real path of the external data file of `t`, which must be inside
/// `modelDir` (a relative location that stays inside after resolving `..`
/// and symbolic links).
bool externalDataPath(const onnx::TensorProto &t, llvm::StringRef modelDir,
                      std::string &path, std::string &err);

/// The little-endian bytes of a tensor, from raw_data, the typed fields or
/// external data (which must stay inside `modelDir`).
bool tensorBytes(const onnx::TensorProto &t, llvm::StringRef modelDir,
                 std::string &out, std::string &err);

/// The tensor `t` with the little-endian data `bytes` (see tensorBytes) as an
/// attribute.
mlir::DenseElementsAttr toAttr(mlir::MLIRContext *ctx,
                               const onnx::TensorProto &t,
                               llvm::StringRef bytes);

/// A float initializer that becomes a `pipe.param` argument: its name, ONNX
/// data type, shape and little-endian data; `state`: non-trainable state
/// (`pipe.frozen`, a running statistic of a training-mode BatchNorm).
struct Param {
  std::string name;
  int dtype;
  llvm::SmallVector<int64_t> dims;
  std::string bytes;
  bool state = false;
};

/// Writes the values of `params`, in order, to the safetensors file `path`
/// (pipewave/Support/Safetensors.h); false with `err` set if it cannot.
bool writeSafetensors(const std::string &path, llvm::ArrayRef<Param> params,
                      std::string &err);

} // namespace pipewave::onnximport

#endif // PIPEWAVE_LIB_IMPORT_ONNX_TENSORDATA_H
