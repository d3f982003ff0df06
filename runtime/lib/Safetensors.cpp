//===- Safetensors.cpp - safetensors files --------------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Safetensors.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Json.h"
#include "pipewave/Support/Safetensors.h"

#include <algorithm>

namespace pipewave::runtime {

namespace {

/// Header sizes above this are rejected (the reference implementation uses
/// 100 MB).
constexpr uint64_t kMaxHeaderBytes = 100u << 20;

[[noreturn]] void stError(const std::string &path, const std::string &message) {
  throw Error("'" + path + "': " + message, ExitUsage);
}

int32_t dtypeFromName(const std::string &name, const std::string &path,
                      const std::string &tensor) {
  static const std::pair<const char *, int32_t> kTypes[] = {
      {"F32", PW_F32}, {"F64", PW_F64}, {"I32", PW_I32},
      {"I64", PW_I64}, {"I8", PW_I8},   {"BOOL", PW_BOOL}};
  for (const auto &[text, dtype] : kTypes)
    if (name == text)
      return dtype;
  stError(path, "tensor '" + tensor + "' has dtype " + name +
                    ", which the runtime does not support (F32 F64 I32 I64 "
                    "I8 BOOL)");
}

} // namespace

const char *safetensorsDTypeName(int32_t dtype) {
  switch (dtype) {
  case PW_F32:
    return "F32";
  case PW_F64:
    return "F64";
  case PW_I32:
    return "I32";
  case PW_I64:
    return "I64";
  case PW_I8:
    return "I8";
  case PW_BOOL:
    return "BOOL";
  default:
    throw Error("no safetensors dtype for " + dtypeName(dtype));
  }
}

SafetensorsReader::SafetensorsReader(const std::string &path)
    : file(std::make_unique<InputFile>(path)) {
  if (file->size() < 8)
    stError(path, "not a safetensors file (shorter than the 8-byte header "
                  "length)");
  unsigned char lengthBytes[8];
  file->readAt(0, lengthBytes, 8, "the header length");
  uint64_t headerLength = 0;
  for (int i = 7; i >= 0; --i)
    headerLength = (headerLength << 8) | lengthBytes[i];
  if (headerLength > kMaxHeaderBytes)
    stError(path, "header length " + std::to_string(headerLength) +
                      " is implausible (not a safetensors file?)");
  if (headerLength > file->size() - 8)
    stError(path,
            "truncated: the header needs " + std::to_string(8 + headerLength) +
                " bytes but the file has " + std::to_string(file->size()));
  std::string text(headerLength, '\0');
  file->readAt(8, text.data(), text.size(), "the header");
  JsonValue root = parseJson(text, path + ": safetensors header");
  if (!root.isObject())
    stError(path, "the safetensors header is not a JSON object");

  uint64_t dataStart = 8 + headerLength;
  uint64_t dataSize = file->size() - dataStart;
  for (const auto &[name, value] : root.object) {
    if (name == "__metadata__") {
      if (!value.isObject())
        stError(path, "__metadata__ is not an object");
      for (const auto &[key, item] : value.object) {
        if (!item.isString())
          stError(path, "__metadata__ value '" + key + "' is not a string");
        meta[key] = item.string;
      }
      continue;
    }
    auto bad = [&](const std::string &message) {
      stError(path, "tensor '" + name + "': " + message);
    };
    if (!value.isObject())
      bad("the entry is not an object");
    if (find(name))
      bad("appears twice in the header");
    const JsonValue *dtype = value.find("dtype");
    const JsonValue *shape = value.find("shape");
    const JsonValue *offsets = value.find("data_offsets");
    if (!dtype || !dtype->isString())
      bad("missing or non-string 'dtype'");
    if (!shape || !shape->isArray())
      bad("missing or non-array 'shape'");
    if (!offsets || !offsets->isArray() || offsets->array.size() != 2)
      bad("missing 'data_offsets' [begin, end]");
    SafetensorsEntry entry;
    entry.name = name;
    entry.dtype = dtypeFromName(dtype->string, path, name);
    for (const JsonValue &dim : shape->array) {
      if (!dim.isInteger || dim.integer < 0)
        bad("shape entries must be non-negative integers");
      entry.shape.push_back(dim.integer);
    }
    for (const JsonValue &offset : offsets->array)
      if (!offset.isInteger || offset.integer < 0)
        bad("data_offsets must be non-negative integers");
    uint64_t begin = static_cast<uint64_t>(offsets->array[0].integer);
    uint64_t end = static_cast<uint64_t>(offsets->array[1].integer);
    if (begin > end)
      bad("data_offsets begin > end");
    if (end > dataSize)
      stError(path, "truncated: tensor '" + name + "' ends at data byte " +
                        std::to_string(end) + " but the file has only " +
                        std::to_string(dataSize) + " data bytes");
    uint64_t expected = 0;
    try {
      expected = byteSize(entry.dtype, entry.shape);
    } catch (const Error &error) {
      bad(error.what());
    }
    if (end - begin != expected)
      bad("has " + std::to_string(end - begin) + " bytes of data but shape " +
          shapeString(entry.shape) + " of " + dtype->string + " needs " +
          std::to_string(expected));
    entry.begin = dataStart + begin;
    entry.end = dataStart + end;
    tensors.push_back(std::move(entry));
  }

  std::vector<const SafetensorsEntry *> byOffset;
  for (const SafetensorsEntry &entry : tensors)
    byOffset.push_back(&entry);
  std::sort(byOffset.begin(), byOffset.end(),
            [](const SafetensorsEntry *a, const SafetensorsEntry *b) {
              return a->begin < b->begin;
            });
  for (size_t i = 1; i < byOffset.size(); ++i)
    if (byOffset[i]->begin < byOffset[i - 1]->end)
      stError(path, "tensors '" + byOffset[i - 1]->name + "' and '" +
                        byOffset[i]->name + "' overlap");
}

const SafetensorsEntry *SafetensorsReader::find(const std::string &name) const {
  for (const SafetensorsEntry &entry : tensors)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

void SafetensorsReader::read(const std::string &name, int32_t dtype,
                             const std::vector<int64_t> &shape,
                             void *dst) const {
  const SafetensorsEntry *entry = find(name);
  if (!entry)
    stError(path(), "no tensor '" + name + "' (the file has " +
                        std::to_string(tensors.size()) + " tensors)");
  if (entry->dtype != dtype)
    stError(path(), "tensor '" + name + "' has dtype " +
                        safetensorsDTypeName(entry->dtype) +
                        " but the model expects " +
                        safetensorsDTypeName(dtype));
  if (entry->shape != shape)
    stError(path(), "tensor '" + name + "' has shape " +
                        shapeString(entry->shape) + " but the model expects " +
                        shapeString(shape));
  file->readAt(entry->begin, dst, entry->end - entry->begin,
               "tensor '" + name + "'");
}

HostTensor SafetensorsReader::read(const std::string &name) const {
  const SafetensorsEntry *entry = find(name);
  if (!entry)
    stError(path(), "no tensor '" + name + "'");
  HostTensor tensor(entry->dtype, entry->shape);
  read(name, entry->dtype, entry->shape, tensor.data());
  return tensor;
}

std::string
encodeSafetensorsHeader(const std::vector<SafetensorsTensorRef> &tensors,
                        const std::map<std::string, std::string> &metadata) {
  std::vector<safetensors::TensorInfo> infos;
  for (const SafetensorsTensorRef &tensor : tensors) {
    uint64_t bytes = static_cast<uint64_t>(numElements(tensor.shape)) *
                     dtypeSize(tensor.dtype);
    infos.push_back(
        {tensor.name, safetensorsDTypeName(tensor.dtype), tensor.shape, bytes});
  }
  return safetensors::encodeHeader(infos, metadata);
}

void writeSafetensors(const std::string &path,
                      const std::vector<SafetensorsTensorRef> &tensors,
                      const std::map<std::string, std::string> &metadata) {
  std::string header = encodeSafetensorsHeader(tensors, metadata);
  Chunks chunks = {{header.data(), header.size()}};
  for (const SafetensorsTensorRef &tensor : tensors)
    chunks.emplace_back(tensor.data,
                        static_cast<size_t>(numElements(tensor.shape)) *
                            dtypeSize(tensor.dtype));
  writeFileAtomic(path, chunks);
}

} // namespace pipewave::runtime
