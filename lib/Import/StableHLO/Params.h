//===- Params.h - Parameter values of the StableHLO importer ----*- C++ -*-===//
//
// Part of the pipewave project.
//
// Reads parameter values from a safetensors file or a directory of .npy
// files (float32, C order) and writes them, in argument order, as the
// safetensors file the compiled binary starts from.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_LIB_IMPORT_STABLEHLO_PARAMS_H
#define PIPEWAVE_LIB_IMPORT_STABLEHLO_PARAMS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <string>

namespace pipewave::shloimport {

struct Tensor {
  llvm::SmallVector<int64_t> shape;
  std::string bytes; // float32, little endian, C order
};

/// Loads every tensor of `path` (a .safetensors file or a directory of
/// NAME.npy files). Returns false and sets `error` on failure.
bool loadParams(const std::string &path, std::map<std::string, Tensor> &out,
                std::string &error);

/// Writes `tensors` (name, value) in order as F32 safetensors.
bool writeSafetensors(const std::string &path,
                      llvm::ArrayRef<std::pair<std::string, Tensor>> tensors,
                      std::string &error);

} // namespace pipewave::shloimport

#endif // PIPEWAVE_LIB_IMPORT_STABLEHLO_PARAMS_H
