//===- Link.cpp - Link a compiled model with the CPU runtime --------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// The system C++ compiler (c++ or mpicxx on PATH) links the object with
// libpipewave_runtime (and the libraries its build listed in
// <libdir>/pipewave_runtime.link), libpipewave_cpu_kernels, OpenBLAS and
// libm; models compiled with --target cuda first with what
// <libdir>/pipewave_runtime_cuda.link lists (the CUDA device, the launch
// layer, cudart).
//
//===----------------------------------------------------------------------===//

#include "pipewave/Target/CPU.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace llvm;

namespace {

std::string inDir(StringRef dir, StringRef file) {
  SmallString<256> path(dir);
  sys::path::append(path, file);
  sys::path::remove_dots(path, /*remove_dot_dot=*/true);
  return std::string(path);
}

/// The driver: `requested` (a path or a name on PATH), else c++, else mpicxx.
bool findDriver(const std::string &requested, std::string &driver,
                std::string &error) {
  if (requested.empty()) {
    for (StringRef name : {"c++", "mpicxx"})
      if (ErrorOr<std::string> path = sys::findProgramByName(name)) {
        driver = *path;
        return true;
      }
    error = "no C++ compiler to link with: neither mpicxx nor c++ is on PATH "
            "(set --cxx)";
    return false;
  }
  if (sys::fs::exists(requested)) {
    driver = requested;
    return true;
  }
  ErrorOr<std::string> path = sys::findProgramByName(requested);
  if (!path) {
    error = "--cxx: '" + requested + "' not found";
    return false;
  }
  driver = *path;
  return true;
}

/// Appends the non-empty lines of `linkFile` to `args`.
bool readLinkFile(const std::string &linkFile, std::vector<std::string> &args,
                  std::string &error) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(linkFile);
  if (!buffer) {
    error = "cannot read " + linkFile + ": " + buffer.getError().message();
    return false;
  }
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines)
    if (!line.trim().empty())
      args.push_back(line.trim().str());
  return true;
}

/// The runtime's link arguments (see LinkOptions::runtimeLib).
bool runtimeArguments(const pipewave::target::LinkOptions &options,
                      std::vector<std::string> &args, std::string &error) {
  if (!options.runtimeLib.empty()) {
    if (!sys::fs::exists(options.runtimeLib)) {
      error = "--runtime-lib: '" + options.runtimeLib + "' does not exist";
      return false;
    }
    args.push_back(options.runtimeLib);
    return true;
  }
  std::string linkFile = inDir(options.libDir, "pipewave_runtime.link");
  if (sys::fs::exists(linkFile))
    return readLinkFile(linkFile, args, error);
  for (StringRef name : {"libpipewave_runtime.a", "libpipewave_runtime.so"}) {
    std::string runtime = inDir(options.libDir, name);
    if (!sys::fs::exists(runtime))
      continue;
    args.push_back(runtime);
    if (StringRef(runtime).ends_with(".so"))
      args.push_back("-Wl,-rpath," + sys::path::parent_path(runtime).str());
    return true;
  }
  error = "libpipewave_runtime not found in " + options.libDir +
          " (build the runtime, or pass --runtime-lib=FILE)";
  return false;
}

} // namespace

bool pipewave::target::linkExecutable(const std::string &object,
                                      const std::string &output,
                                      const LinkOptions &options,
                                      std::string &error) {
  std::string driver;
  if (!findDriver(options.driver, driver, error))
    return false;
  std::vector<std::string> args = {driver, object, "-o", output};
  if (options.cuda) {
    // The CUDA device and launch layer first: they use the runtime.
    std::string cudaLink = inDir(options.libDir, "pipewave_runtime_cuda.link");
    if (!sys::fs::exists(cudaLink)) {
      error = "--target cuda: this pipewave was built without the CUDA "
              "runtime (no pipewave_runtime_cuda.link in " +
              options.libDir +
              "; CMake found no CUDA toolkit when pipewave was configured)";
      return false;
    }
    if (!readLinkFile(cudaLink, args, error))
      return false;
  }
  if (!runtimeArguments(options, args, error))
    return false;
  std::string kernels = inDir(options.libDir, "libpipewave_cpu_kernels.a");
  if (!sys::fs::exists(kernels)) {
    error = "libpipewave_cpu_kernels.a not found in " + options.libDir;
    return false;
  }
  args.push_back(kernels);
  args.insert(args.end(), options.extraArgs.begin(), options.extraArgs.end());
  args.push_back("-lopenblas");
  args.push_back("-lm");

  std::vector<StringRef> argRefs(args.begin(), args.end());
  std::string message;
  int rc =
      sys::ExecuteAndWait(driver, argRefs, std::nullopt, {}, 0, 0, &message);
  if (rc == 0)
    return true;
  std::string command;
  for (const std::string &arg : args)
    command += (command.empty() ? "" : " ") + arg;
  error = "linking failed" + (message.empty() ? "" : ": " + message) +
          "\n  command: " + command;
  return false;
}
