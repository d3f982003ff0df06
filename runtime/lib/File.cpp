//===- File.cpp - File helpers for data I/O -------------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/File.h"
#include "pipewave-runtime/Error.h"

#include "TestHooks.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace pipewave::runtime {

namespace {

std::string errnoText() { return std::strerror(errno); }

std::string parentDirectory(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

} // namespace

InputFile::InputFile(const std::string &path) : filePath(path) {
  fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw Error("cannot open '" + path + "': " + errnoText(), ExitUsage);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("'" + path + "' is not a regular file", ExitUsage);
  }
  fileSize = static_cast<uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (fd >= 0)
    ::close(fd);
}

void InputFile::readAt(uint64_t offset, void *dst, size_t bytes,
                       const std::string &what) const {
  if (offset > fileSize || bytes > fileSize - offset)
    throw Error("'" + filePath + "' is truncated: " + what + " needs bytes " +
                    std::to_string(offset) + ".." +
                    std::to_string(offset + bytes) + " but the file has " +
                    std::to_string(fileSize),
                ExitUsage);
  char *out = static_cast<char *>(dst);
  while (bytes > 0) {
    ssize_t got = ::pread(fd, out, bytes, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      throw Error("cannot read '" + filePath + "': " +
                      (got < 0 ? errnoText() : std::string("unexpected EOF")),
                  ExitUsage);
    out += got;
    offset += static_cast<uint64_t>(got);
    bytes -= static_cast<size_t>(got);
  }
}

void writeFileAtomic(const std::string &path, const Chunks &chunks) {
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error("cannot create '" + temp + "': " + errnoText());
  auto failWith = [&](const std::string &message) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw Error(message);
  };
  for (const auto &[data, size] : chunks) {
    const char *p = static_cast<const char *>(data);
    size_t left = size;
    while (left > 0) {
      ssize_t put = testhooks::noSpaceFor(temp) ? (errno = ENOSPC, -1)
                                                : ::write(fd, p, left);
      if (put < 0 && errno == EINTR)
        continue;
      if (put <= 0)
        failWith("cannot write '" + temp + "': " + errnoText());
      p += put;
      left -= static_cast<size_t>(put);
    }
  }
  if (::fsync(fd) != 0)
    failWith("cannot fsync '" + temp + "': " + errnoText());
  if (::close(fd) != 0) {
    ::unlink(temp.c_str());
    throw Error("cannot close '" + temp + "': " + errnoText());
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    std::string message = errnoText();
    ::unlink(temp.c_str());
    throw Error("cannot rename '" + temp + "' to '" + path + "': " + message);
  }
  int dir = ::open(parentDirectory(path).c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

void makeDirectories(const std::string &path) {
  if (path.empty())
    return;
  std::string prefix;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    prefix = path.substr(0, pos);
    if (prefix.empty())
      continue;
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      throw Error("cannot create directory '" + prefix + "': " + errnoText());
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error("'" + path + "' is not a directory");
}

} // namespace pipewave::runtime
