//===- FuzzFiles.h - Scratch files of the fuzz targets ----------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The runtime's readers take paths: a fuzz target writes each input into a
// private scratch directory (made once per process under the system's
// temporary directory, removed at exit) and reads it from there.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_FUZZ_FUZZFILES_H
#define PIPEWAVE_FUZZ_FUZZFILES_H

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace pipewave::fuzz {

/// A directory of its own for this process.
class ScratchDir {
public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "pipewave-fuzz-XXXXXX")
            .string();
    if (!mkdtemp(pattern.data())) {
      std::perror("pipewave fuzzer: mkdtemp");
      std::abort();
    }
    dir = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }

  const std::string &path() const { return dir; }

  /// Writes `size` bytes to DIR/name (replacing it) and returns its path.
  std::string write(const std::string &name, const void *data, size_t size) {
    std::string file = dir + "/" + name;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char *>(data),
              static_cast<std::streamsize>(size));
    if (!out) {
      std::fprintf(stderr, "pipewave fuzzer: cannot write %s\n", file.c_str());
      std::abort();
    }
    return file;
  }

private:
  std::string dir;
};

/// The process's scratch directory.
inline ScratchDir &scratch() {
  static ScratchDir dir;
  return dir;
}

} // namespace pipewave::fuzz

#endif // PIPEWAVE_FUZZ_FUZZFILES_H
