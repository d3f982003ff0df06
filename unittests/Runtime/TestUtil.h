//===- TestUtil.h - Helpers of the runtime unit tests -----------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_UNITTESTS_RUNTIME_TESTUTIL_H
#define PIPEWAVE_UNITTESTS_RUNTIME_TESTUTIL_H

#include "pipewave-runtime/Error.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace pipewave::runtime::test {

/// A fresh temporary directory, removed with its files at scope exit.
class TempDir {
public:
  TempDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/pw-runtime-test-XXXXXX";
    const char *made = mkdtemp(pattern.data());
    if (!made)
      std::abort();
    dir = made;
  }
  ~TempDir() {
    std::string command = "rm -rf '" + dir + "'";
    if (std::system(command.c_str()) != 0)
      std::fprintf(stderr, "could not remove %s\n", dir.c_str());
  }
  std::string file(const std::string &name) const { return dir + "/" + name; }
  const std::string &path() const { return dir; }

private:
  std::string dir;
};

/// Writes raw bytes to `path`.
inline void writeBytes(const std::string &path, const std::string &bytes) {
  FILE *file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), file), bytes.size());
  std::fclose(file);
}

/// Reads a whole file.
inline std::string readBytes(const std::string &path) {
  std::string bytes;
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return bytes;
  char buffer[4096];
  size_t got;
  while ((got = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    bytes.append(buffer, got);
  std::fclose(file);
  return bytes;
}

/// The message of the Error `statement` throws ("" if none).
#define PW_ERROR_OF(statement)                                                 \
  ([&]() -> std::string {                                                      \
    try {                                                                      \
      statement;                                                               \
    } catch (const ::pipewave::runtime::Error &error) {                        \
      return error.what();                                                     \
    }                                                                          \
    return "";                                                                 \
  }())

} // namespace pipewave::runtime::test

#endif // PIPEWAVE_UNITTESTS_RUNTIME_TESTUTIL_H
