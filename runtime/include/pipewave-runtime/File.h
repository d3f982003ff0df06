//===- File.h - File helpers for data I/O -----------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// A read-only file with positioned reads and a size, and an atomic writer
// (temporary file, fsync, rename, fsync of the directory) so that outputs and
// checkpoints are either complete or absent.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_FILE_H
#define PIPEWAVE_RUNTIME_FILE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pipewave::runtime {

/// An open file for reading. Errors (Error) name the path.
class InputFile {
public:
  explicit InputFile(const std::string &path);
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;
  ~InputFile();

  const std::string &path() const { return filePath; }
  uint64_t size() const { return fileSize; }

  /// Reads exactly `bytes` bytes at `offset`; throws Error on a short read,
  /// calling the file truncated and naming `what`.
  void readAt(uint64_t offset, void *dst, size_t bytes,
              const std::string &what) const;

private:
  std::string filePath;
  int fd = -1;
  uint64_t fileSize = 0;
};

/// Pieces of a file's contents, written in order.
using Chunks = std::vector<std::pair<const void *, size_t>>;

/// Writes `chunks` to `path` atomically: a temporary file in the same
/// directory, fsync, rename over `path`, fsync of the directory.
void writeFileAtomic(const std::string &path, const Chunks &chunks);

/// Creates directory `path` and its parents when missing.
void makeDirectories(const std::string &path);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_FILE_H
