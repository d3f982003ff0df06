//===- DeviceFuzzer.cpp - libFuzzer target for device description files --===//
//
// Part of the pipewave project.
//
// Every input is a device description (data/devices/*.json, what
// `--device FILE` reads). parseDeviceJson() must return a device or an
// error; a device it returns must print (toJson) to a description that
// parses again. Anything else is a bug.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Simulator/Device.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace pipewave::sim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string error;
  auto device = parseDeviceJson(
      std::string_view(reinterpret_cast<const char *>(data), size), &error);
  if (!device) {
    if (error.empty()) {
      std::fprintf(stderr, "parseDeviceJson failed without an error\n");
      std::abort();
    }
    return 0;
  }
  std::string text = toJson(*device);
  if (!parseDeviceJson(text, &error)) {
    std::fprintf(stderr, "toJson of a parsed device does not parse: %s\n%s\n",
                 error.c_str(), text.c_str());
    std::abort();
  }
  return 0;
}
