//===- CheckpointSet.h - The rank files of one checkpoint -------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Private to the runtime library. A checkpoint stores every tensor once: a
// parameter several ranks hold (a data-parallel replica's copy, a tied
// weight on several stages) is in the file of the lowest of them, and
// stage state that differs between replicas (BatchNorm's running
// statistics) in each holder's own file. So a resuming rank reads by
// name: from its own file when that holds the tensor, else from the first
// file that does. Files are checked against the manifest's size and hash
// once their tensors have been read.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_LIB_CHECKPOINTSET_H
#define PIPEWAVE_RUNTIME_LIB_CHECKPOINTSET_H

#include "pipewave-runtime/Checkpoint.h"
#include "pipewave-runtime/Safetensors.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace pipewave::runtime {

class CheckpointSet {
public:
  /// Reports a problem (never returns): "cannot resume ...: MESSAGE".
  using Refuse = std::function<void(const std::string &)>;

  /// The rank files `manifest` lists in `stepDir`. With `ownRank` (a rank
  /// the manifest lists) its file is opened first and the others when a
  /// tensor is not in it; with -1 every file is opened and indexed.
  CheckpointSet(const std::string &stepDir, const CheckpointManifest &manifest,
                int ownRank, const Refuse &refuse);

  /// Opens and indexes every file.
  void openAll();
  /// Every tensor name of the opened files, with the first file holding it.
  const std::map<std::string, size_t> &names() const { return where; }
  /// The own rank file's path ("" when there is none).
  std::string ownPath() const;
  /// Metadata entry `key` of file `index` (nullptr when absent or the file
  /// is not opened).
  const std::string *metadata(size_t index, const std::string &key) const;
  size_t numFiles() const { return files.size(); }
  const std::string &path(size_t index) const { return files[index].path; }
  /// The index of the own file, or numFiles().
  size_t ownIndex() const { return own; }

  /// Reads tensor `name` into `dst` after checking its dtype and shape
  /// (`what` names it in errors). Refuses when no file holds it.
  void read(const std::string &name, int32_t dtype,
            const std::vector<int64_t> &shape, void *dst,
            const std::string &what);

  /// Checks every file read from (and the own file) against the manifest.
  void verifyUsed();

private:
  struct File {
    std::string path;
    const CheckpointFile *entry = nullptr;
    std::unique_ptr<SafetensorsReader> reader;
    bool used = false;
  };
  void open(size_t index);

  std::vector<File> files;
  std::map<std::string, size_t> where;
  size_t own;
  Refuse refuse;
};

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_LIB_CHECKPOINTSET_H
