//===- Params.cpp - Parameter values of the StableHLO importer ------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "Params.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <optional>

using namespace llvm;
using namespace pipewave::shloimport;

namespace {

uint64_t readLE(StringRef bytes, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i)
    v |= (uint64_t)(uint8_t)bytes[i] << (8 * i);
  return v;
}

bool fail(std::string &error, const Twine &message) {
  error = message.str();
  return false;
}

/// The bytes of float32 data of `shape` (dimensions at least 0); none if the
/// count does not fit in 64 bits.
std::optional<uint64_t> f32Bytes(ArrayRef<int64_t> shape) {
  uint64_t bytes = 4;
  for (int64_t d : shape) {
    if (d != 0 && bytes > UINT64_MAX / (uint64_t)d)
      return std::nullopt;
    bytes *= (uint64_t)d;
  }
  return bytes;
}

bool loadSafetensors(const std::string &path,
                     std::map<std::string, Tensor> &out, std::string &error) {
  auto buf = MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return fail(error,
                "cannot read '" + path + "': " + buf.getError().message());
  StringRef data = (*buf)->getBuffer();
  if (data.size() < 8)
    return fail(error, Twine("'") + path + "' is not a safetensors file");
  uint64_t n = readLE(data, 8);
  if (n > data.size() - 8)
    return fail(error,
                Twine("'") + path + "': header runs past the end of the file");
  Expected<json::Value> header = json::parse(data.substr(8, n));
  if (!header)
    return fail(error,
                "'" + path + "': bad header: " + toString(header.takeError()));
  StringRef body = data.substr(8 + n);
  const json::Object *obj = header->getAsObject();
  if (!obj)
    return fail(error, Twine("'") + path + "': the header is not an object");
  for (const auto &[objectKey, value] : *obj) {
    StringRef key = objectKey;
    if (key == "__metadata__")
      continue;
    const json::Object *t = value.getAsObject();
    const json::Array *shape = t ? t->getArray("shape") : nullptr;
    const json::Array *offsets = t ? t->getArray("data_offsets") : nullptr;
    std::optional<StringRef> dtype = t ? t->getString("dtype") : std::nullopt;
    if (!shape || !offsets || offsets->size() != 2 || !dtype)
      return fail(error,
                  Twine("'") + path + "': tensor '" + key + "' is malformed");
    if (*dtype != "F32")
      return fail(error, Twine("'") + path + "': tensor '" + key + "' is " +
                             *dtype + " (only F32 parameters are supported)");
    Tensor tensor;
    for (const json::Value &d : *shape) {
      std::optional<int64_t> dim = d.getAsInteger();
      if (!dim || *dim < 0)
        return fail(error, Twine("'") + path + "': tensor '" + key +
                               "' has a bad shape");
      tensor.shape.push_back(*dim);
    }
    std::optional<int64_t> begin = (*offsets)[0].getAsInteger();
    std::optional<int64_t> end = (*offsets)[1].getAsInteger();
    if (!begin || !end || *begin < 0 || *end < *begin ||
        (uint64_t)*end > body.size())
      return fail(error,
                  "'" + path + "': tensor '" + key + "' has bad data offsets");
    std::optional<uint64_t> bytes = f32Bytes(tensor.shape);
    if (!bytes || *bytes != (uint64_t)(*end - *begin))
      return fail(error, Twine("'") + path + "': tensor '" + key + "' has " +
                             Twine(*end - *begin) +
                             " bytes of data, not the size of its shape");
    tensor.bytes = body.substr(*begin, *end - *begin).str();
    out[key.str()] = std::move(tensor);
  }
  return true;
}

/// A version 1-3 .npy file of little-endian float32 in C order.
bool loadNpy(const std::string &path, Tensor &tensor, std::string &error) {
  auto buf = MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return fail(error,
                "cannot read '" + path + "': " + buf.getError().message());
  StringRef data = (*buf)->getBuffer();
  if (!data.starts_with("\x93NUMPY") || data.size() < 10)
    return fail(error, Twine("'") + path + "' is not a .npy file");
  int major = (uint8_t)data[6];
  if (major < 1 || major > 3)
    return fail(error, Twine("'") + path + "': .npy version " + Twine(major) +
                           " is not supported");
  size_t lenBytes = major == 1 ? 2 : 4;
  if (data.size() < 8 + lenBytes)
    return fail(error, Twine("'") + path + "': the header is truncated");
  size_t n = readLE(data.substr(8), lenBytes);
  if (n > data.size() - 8 - lenBytes)
    return fail(error, Twine("'") + path +
                           "': the header runs past the end of the file");
  StringRef header = data.substr(8 + lenBytes, n);
  StringRef body = data.substr(8 + lenBytes + n);
  if (!header.contains("'descr': '<f4'") ||
      header.contains("'fortran_order': True"))
    return fail(error, Twine("'") + path +
                           "': only little-endian float32 in C "
                           "order is supported");
  size_t open = header.find("'shape': (");
  size_t close = open == StringRef::npos ? open : header.find(')', open);
  if (open == StringRef::npos || close == StringRef::npos)
    return fail(error, Twine("'") + path + "': no shape in the header");
  SmallVector<StringRef> dims;
  header.slice(open + 10, close).split(dims, ',', -1, /*KeepEmpty=*/false);
  for (StringRef d : dims) {
    int64_t v;
    if (d.trim().getAsInteger(10, v) || v < 0)
      return fail(error, Twine("'") + path + "': bad shape in the header");
    tensor.shape.push_back(v);
  }
  std::optional<uint64_t> bytes = f32Bytes(tensor.shape);
  if (!bytes || body.size() != *bytes)
    return fail(error,
                Twine("'") + path + "': data size does not match the shape");
  tensor.bytes = body.str();
  return true;
}

} // namespace

bool pipewave::shloimport::loadParams(const std::string &path,
                                      std::map<std::string, Tensor> &out,
                                      std::string &error) {
  if (!sys::fs::is_directory(path))
    return loadSafetensors(path, out, error);
  std::error_code ec;
  std::vector<std::string> files;
  for (sys::fs::directory_iterator it(path, ec), end; it != end && !ec;
       it.increment(ec))
    if (sys::path::extension(it->path()) == ".npy")
      files.push_back(it->path());
  if (ec)
    return fail(error, "cannot list '" + path + "': " + ec.message());
  std::sort(files.begin(), files.end());
  for (const std::string &file : files) {
    Tensor t;
    if (!loadNpy(file, t, error))
      return false;
    out[sys::path::stem(file).str()] = std::move(t);
  }
  return true;
}

bool pipewave::shloimport::writeSafetensors(
    const std::string &path, ArrayRef<std::pair<std::string, Tensor>> tensors,
    std::string &error) {
  json::Object header;
  uint64_t offset = 0;
  for (const auto &[name, t] : tensors) {
    json::Array shape;
    for (int64_t d : t.shape)
      shape.push_back(d);
    header[name] = json::Object{
        {"dtype", "F32"},
        {"shape", std::move(shape)},
        {"data_offsets", json::Array{offset, offset + t.bytes.size()}}};
    offset += t.bytes.size();
  }
  std::string text;
  raw_string_ostream(text) << json::Value(std::move(header));
  while (text.size() % 8)
    text += ' ';
  std::error_code ec;
  raw_fd_ostream os(path, ec);
  if (ec)
    return fail(error, "cannot write '" + path + "': " + ec.message());
  char len[8];
  for (int i = 0; i < 8; ++i)
    len[i] = (char)((text.size() >> (8 * i)) & 0xff);
  os.write(len, 8);
  os << text;
  for (const auto &entry : tensors)
    os << entry.second.bytes;
  return true;
}
