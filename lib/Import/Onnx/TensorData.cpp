//===- TensorData.cpp - Initializer data of ONNX models -------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "TensorData.h"

#include "OnnxOps.h"

#include "pipewave/Support/Safetensors.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace pipewave;
using namespace pipewave::onnximport;

namespace {

int64_t elementBytes(int t) {
  switch (t) {
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::INT64:
    return 8;
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::INT32:
    return 4;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
  case onnx::TensorProto::INT16:
    return 2;
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::BOOL:
    return 1;
  default:
    return 0;
  }
}

const char *safetensorsDtype(int t) {
  switch (t) {
  case onnx::TensorProto::DOUBLE:
    return "F64";
  case onnx::TensorProto::FLOAT:
    return "F32";
  case onnx::TensorProto::FLOAT16:
    return "F16";
  case onnx::TensorProto::BFLOAT16:
    return "BF16";
  case onnx::TensorProto::INT64:
    return "I64";
  case onnx::TensorProto::INT32:
    return "I32";
  case onnx::TensorProto::INT16:
    return "I16";
  case onnx::TensorProto::INT8:
    return "I8";
  case onnx::TensorProto::BOOL:
    return "BOOL";
  default:
    return nullptr;
  }
}

} // namespace

bool pipewave::onnximport::externalDataPath(const onnx::TensorProto &t,
                                            StringRef modelDir,
                                            std::string &path,
                                            std::string &err) {
  std::string location;
  for (const auto &kv : t.external_data())
    if (kv.key() == "location")
      location = kv.value();
  auto describe = [&] {
    return "external data '" + location + "' of tensor '" + t.name() + "'";
  };
  if (location.empty()) {
    err = "tensor '" + t.name() + "' has external data without a location";
    return false;
  }
  auto outside = [&] {
    err = describe() + " points outside the model's folder (external data "
                       "must be a relative path inside it)";
    return false;
  };
  if (llvm::sys::path::is_absolute(location) ||
      llvm::sys::path::is_absolute(location, llvm::sys::path::Style::windows))
    return outside();
  // Lexically: `..` may not climb above the model's folder.
  int depth = 0;
  for (StringRef part : llvm::make_range(llvm::sys::path::begin(location),
                                         llvm::sys::path::end(location))) {
    if (part == "..")
      --depth;
    else if (part != ".")
      ++depth;
    if (depth < 0)
      return outside();
  }
  SmallString<256> dir(modelDir), file(modelDir), realDir, realFile;
  llvm::sys::path::append(file, location);
  if (llvm::sys::fs::real_path(dir, realDir) ||
      llvm::sys::fs::real_path(file, realFile)) {
    err = describe() + " does not exist in the model's folder";
    return false;
  }
  // Symbolic links may still lead out.
  if (!StringRef(realFile).starts_with((realDir + "/").str()))
    return outside();
  path = std::string(realFile);
  return true;
}

bool pipewave::onnximport::tensorBytes(const onnx::TensorProto &t,
                                       StringRef modelDir, std::string &out,
                                       std::string &err) {
  int64_t numel = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || __builtin_mul_overflow(numel, d, &numel) ||
        numel > (int64_t(1) << 40)) {
      err = "tensor '" + t.name() + "' has an invalid shape";
      return false;
    }
  }
  int64_t eb = elementBytes(t.data_type());
  if (!eb) {
    err = "tensor '" + t.name() + "' has an unsupported data type (" +
          std::to_string(t.data_type()) + ")";
    return false;
  }
  int64_t want = numel * eb;
  out.clear();
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string path;
    if (!externalDataPath(t, modelDir, path, err))
      return false;
    int64_t offset = 0, length = want;
    for (const auto &kv : t.external_data()) {
      int64_t *field = kv.key() == "offset"   ? &offset
                       : kv.key() == "length" ? &length
                                              : nullptr;
      if (field && StringRef(kv.value()).getAsInteger(10, *field)) {
        err = "external data of tensor '" + t.name() + "' has an invalid " +
              kv.key() + " '" + kv.value() + "'";
        return false;
      }
    }
    auto buf = llvm::MemoryBuffer::getFile(path);
    if (!buf) {
      err = "cannot read external data '" + path +
            "': " + buf.getError().message();
      return false;
    }
    int64_t size = (int64_t)(*buf)->getBufferSize();
    if (offset < 0 || length != want || offset > size ||
        length > size - offset) {
      err = "external data of tensor '" + t.name() + "' is truncated (" +
            std::to_string(want) + " bytes at offset " +
            std::to_string(offset) + " of a " + std::to_string(size) +
            "-byte file)";
      return false;
    }
    out.assign((*buf)->getBufferStart() + offset, length);
    return true;
  }
  if (t.has_raw_data()) {
    out = t.raw_data();
  } else {
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      out.assign((const char *)t.float_data().data(), t.float_data_size() * 4);
      break;
    case onnx::TensorProto::DOUBLE:
      out.assign((const char *)t.double_data().data(),
                 t.double_data_size() * 8);
      break;
    case onnx::TensorProto::INT64:
      out.assign((const char *)t.int64_data().data(), t.int64_data_size() * 8);
      break;
    default:
      for (int32_t v : t.int32_data())
        out.append((const char *)&v, eb); // little-endian truncation
    }
  }
  if ((int64_t)out.size() != want) {
    err = "tensor '" + t.name() + "' has " + std::to_string(out.size()) +
          " bytes of data, expected " + std::to_string(want) +
          " (truncated or corrupt file?)";
    return false;
  }
  return true;
}

DenseElementsAttr pipewave::onnximport::toAttr(MLIRContext *ctx,
                                               const onnx::TensorProto &t,
                                               StringRef bytes) {
  SmallVector<int64_t> dims(t.dims().begin(), t.dims().end());
  auto type =
      RankedTensorType::get(dims, convertElementType(ctx, t.data_type()));
  if (t.data_type() == onnx::TensorProto::BOOL) {
    SmallVector<bool> bits;
    for (char c : bytes)
      bits.push_back(c != 0);
    return DenseElementsAttr::get(type, bits);
  }
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(bytes.data(), bytes.size()));
}

bool pipewave::onnximport::writeSafetensors(const std::string &path,
                                            ArrayRef<Param> params,
                                            std::string &err) {
  std::vector<safetensors::TensorInfo> tensors;
  for (const Param &p : params)
    tensors.push_back({p.name, safetensorsDtype(p.dtype),
                       std::vector<int64_t>(p.dims.begin(), p.dims.end()),
                       p.bytes.size()});
  std::string header = safetensors::encodeHeader(tensors);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    err = "cannot write '" + path + "': " + ec.message();
    return false;
  }
  os << header;
  for (const Param &p : params)
    os.write(p.bytes.data(), p.bytes.size());
  return true;
}
