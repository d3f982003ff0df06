//===- ProfileFuzzer.cpp - libFuzzer target for PipeDream profiles --------===//
//
// Part of the pipewave project.
//
// Every input is a profile in PipeDream's graph format (what the DAPPLE
// planner's `--profile FILE` reads, data/dapple-profiles). The first byte
// picks the profile batch size; parsePipeDreamProfile() must return a
// profile or an error, and a profile it returns must sum. Anything else is
// a bug.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Planner/Profile.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using namespace pipewave::planner;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  int batch = data[0] % 65; // 0 is invalid and must be refused too.
  std::string error;
  auto profile = parsePipeDreamProfile(
      std::string_view(reinterpret_cast<const char *>(data + 1), size - 1),
      batch, &error);
  if (!profile) {
    if (error.empty()) {
      std::fprintf(stderr, "parsePipeDreamProfile failed without an error\n");
      std::abort();
    }
    return 0;
  }
  (void)profile->totalForwardSeconds();
  (void)profile->totalBackwardSeconds();
  (void)profile->totalParameterBytes();
  return 0;
}
