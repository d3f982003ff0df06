//===- NpyFuzzer.cpp - libFuzzer target for the .npy reader ---------------===//
//
// Part of the pipewave project.
//
// Every input is a .npy file: its header goes through parseNpyHeader() and
// the whole file through readNpy() (as `--data NAME=FILE.npy` reads it).
// Both must return or throw the runtime's Error; a readNpy() that returns
// must have read exactly the bytes the header claims, all of them inside the
// file. Anything else is a bug.
//
//===----------------------------------------------------------------------===//

#include "FuzzFiles.h"

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Npy.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace pipewave::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  try {
    NpyHeader header = parseNpyHeader(data, size, "fuzz.npy");
    if (header.dataOffset > size) {
      std::fprintf(stderr, "header past the end of the input\n");
      std::abort();
    }
  } catch (const Error &) {
  }
  std::string path = pipewave::fuzz::scratch().write("input.npy", data, size);
  try {
    HostTensor tensor = readNpy(path);
    // Exactly the claimed elements, no more than the file holds (checked by
    // division: a product could wrap).
    size_t elementSize = dtypeSize(tensor.dtype);
    if (tensor.bytes() > size || tensor.bytes() % elementSize != 0 ||
        tensor.bytes() / elementSize != static_cast<uint64_t>(tensor.size())) {
      std::fprintf(stderr,
                   "readNpy: %zu bytes for shape %s in a %zu-byte "
                   "file\n",
                   tensor.bytes(), shapeString(tensor.shape).c_str(), size);
      std::abort();
    }
  } catch (const Error &) {
  }
  return 0;
}
