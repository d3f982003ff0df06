//===- CheckpointSet.cpp - The rank files of one checkpoint ---------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "CheckpointSet.h"

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Tensor.h"

namespace pipewave::runtime {

CheckpointSet::CheckpointSet(const std::string &stepDir,
                             const CheckpointManifest &manifest, int ownRank,
                             const Refuse &refuse)
    : files(manifest.files.size()), own(manifest.files.size()), refuse(refuse) {
  for (size_t k = 0; k < manifest.files.size(); ++k) {
    File &file = files[k];
    file.entry = &manifest.files[k];
    file.path = stepDir + "/" + file.entry->name;
    if (file.entry->rank == ownRank)
      own = k;
  }
  // A rank resuming its own layout opens the other files only when its own
  // lacks a tensor (so a damaged file is reported by the ranks reading it).
  if (own < files.size())
    open(own);
  else
    openAll();
}

void CheckpointSet::open(size_t index) {
  File &file = files[index];
  if (file.reader)
    return;
  try {
    file.reader = std::make_unique<SafetensorsReader>(file.path);
  } catch (const Error &error) {
    refuse(error.what());
  }
  for (const SafetensorsEntry &entry : file.reader->entries()) {
    auto [it, added] = where.emplace(entry.name, index);
    if (!added && index < it->second)
      it->second = index;
  }
}

void CheckpointSet::openAll() {
  for (size_t k = 0; k < files.size(); ++k)
    open(k);
}

std::string CheckpointSet::ownPath() const {
  return own < files.size() ? files[own].path : "";
}

const std::string *CheckpointSet::metadata(size_t index,
                                           const std::string &key) const {
  if (!files[index].reader)
    return nullptr;
  const auto &meta = files[index].reader->metadata();
  auto found = meta.find(key);
  return found == meta.end() ? nullptr : &found->second;
}

void CheckpointSet::read(const std::string &name, int32_t dtype,
                         const std::vector<int64_t> &shape, void *dst,
                         const std::string &what) {
  size_t index = files.size();
  if (own < files.size() && files[own].reader->find(name))
    index = own;
  else {
    openAll();
    if (auto found = where.find(name); found != where.end())
      index = found->second;
  }
  if (index == files.size())
    refuse((own < files.size() ? "'" + files[own].path + "' has no tensor '"
                               : "it has no tensor '") +
           name + "' (" + what + ")");
  File &file = files[index];
  const SafetensorsEntry *entry = file.reader->find(name);
  if (entry->dtype != dtype || entry->shape != shape)
    refuse("'" + file.path + "': tensor '" + name + "' is " +
           dtypeName(entry->dtype) + " " + shapeString(entry->shape) + " but " +
           what + " is " + dtypeName(dtype) + " " + shapeString(shape));
  try {
    file.reader->read(name, dtype, shape, dst);
  } catch (const Error &error) {
    refuse(error.what());
  }
  file.used = true;
}

void CheckpointSet::verifyUsed() {
  for (size_t k = 0; k < files.size(); ++k) {
    const File &file = files[k];
    if (!file.used && k != own)
      continue;
    CheckpointFile actual = hashFile(file.path);
    if (actual.bytes != file.entry->bytes || actual.hash != file.entry->hash)
      refuse("'" + file.path + "' does not match its manifest (" +
             std::to_string(actual.bytes) + " bytes, hash " +
             hexHash(actual.hash) + "; the manifest records " +
             std::to_string(file.entry->bytes) + " bytes, hash " +
             hexHash(file.entry->hash) + "): it was modified or truncated");
  }
}

} // namespace pipewave::runtime
