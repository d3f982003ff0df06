//===- SafetensorsFuzzer.cpp - libFuzzer target for the safetensors reader ===//
//
// Part of the pipewave project.
//
// Every input is a safetensors file (what `--init` and the importers'
// `--params` read): SafetensorsReader checks its header and then every
// tensor is read. The reader must return or throw the runtime's Error; a
// tensor it reads must hold exactly the bytes the header gives it, inside
// the file. Anything else is a bug.
//
//===----------------------------------------------------------------------===//

#include "FuzzFiles.h"

#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/Safetensors.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace pipewave::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path =
      pipewave::fuzz::scratch().write("input.safetensors", data, size);
  try {
    SafetensorsReader reader(path);
    for (const SafetensorsEntry &entry : reader.entries()) {
      HostTensor tensor = reader.read(entry.name);
      // Exactly the claimed elements, inside the file (checked by division:
      // a product could wrap).
      size_t elementSize = dtypeSize(tensor.dtype);
      if (entry.end > size || tensor.bytes() != entry.end - entry.begin ||
          tensor.bytes() / elementSize !=
              static_cast<uint64_t>(tensor.size())) {
        std::fprintf(stderr,
                     "tensor '%s': %zu bytes read for [%llu, %llu) "
                     "of a %zu-byte file\n",
                     entry.name.c_str(), tensor.bytes(),
                     static_cast<unsigned long long>(entry.begin),
                     static_cast<unsigned long long>(entry.end), size);
        std::abort();
      }
    }
  } catch (const Error &) {
  }
  return 0;
}
