//===- ParamsFuzzer.cpp - libFuzzer target for the importer's --params ----===//
//
// Part of the pipewave project.
//
// `pipewave-import --params PATH` reads parameter values from a safetensors
// file or from a directory of NAME.npy files, with the StableHLO importer's
// own reader (lib/Import/StableHLO/Params.cpp). Every input is read both
// ways: as a safetensors file, and as the one .npy file of a directory.
// loadParams() must return true or false with an error; when it returns
// true every tensor must have dimensions of at least 0 and exactly 4 bytes
// per element of its shape (float32), all of them taken from the file.
// Anything else is a bug.
//
//===----------------------------------------------------------------------===//

#include "FuzzFiles.h"

#include "../lib/Import/StableHLO/Params.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

using namespace pipewave::shloimport;

namespace {

/// Aborts unless every tensor's data is exactly its shape's float32 bytes and
/// no larger than the `size` bytes of the file it came from.
void checkTensors(const std::map<std::string, Tensor> &tensors, size_t size,
                  const char *format) {
  for (const auto &[name, tensor] : tensors) {
    uint64_t elements = 1;
    bool fits = true;
    for (int64_t d : tensor.shape) {
      if (d < 0) {
        std::fprintf(stderr, "%s: tensor '%s' has dimension %lld\n", format,
                     name.c_str(), (long long)d);
        std::abort();
      }
      if (d != 0 && elements > UINT64_MAX / 4 / (uint64_t)d)
        fits = false;
      else
        elements *= (uint64_t)d;
    }
    if (!fits || tensor.bytes.size() != elements * 4 ||
        tensor.bytes.size() > size) {
      std::fprintf(stderr,
                   "%s: tensor '%s' has %zu bytes for %s%llu elements in a "
                   "%zu-byte file\n",
                   format, name.c_str(), tensor.bytes.size(),
                   fits ? "" : "an overflowing count of ",
                   (unsigned long long)elements, size);
      std::abort();
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pipewave::fuzz::ScratchDir &scratch = pipewave::fuzz::scratch();
  std::string error;

  std::map<std::string, Tensor> tensors;
  std::string file = scratch.write("params.safetensors", data, size);
  if (loadParams(file, tensors, error))
    checkTensors(tensors, size, "safetensors");
  else if (error.empty()) {
    std::fprintf(stderr, "safetensors: refused without an error\n");
    std::abort();
  }

  // The .npy file alone in a directory of its own.
  static const std::string dir = [&] {
    std::string d = scratch.path() + "/npy";
    std::filesystem::create_directory(d);
    return d;
  }();
  scratch.write("npy/w.npy", data, size);
  tensors.clear();
  error.clear();
  if (loadParams(dir, tensors, error))
    checkTensors(tensors, size, "npy");
  else if (error.empty()) {
    std::fprintf(stderr, "npy: refused without an error\n");
    std::abort();
  }
  return 0;
}
