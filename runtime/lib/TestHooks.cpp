//===- TestHooks.cpp - Test-only fault injection --------------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "TestHooks.h"
#include "Driver.h"

#include "pipewave-runtime/Error.h"

#include <cstdlib>
#include <unistd.h>

namespace pipewave::runtime::testhooks {

void beforeManifest(const Backend *backend, int64_t step) {
  const char *crash = std::getenv("PW_TEST_CRASH_BEFORE_MANIFEST");
  if (!crash || std::atoll(crash) != step)
    return;
  report(backend, "PW_TEST_CRASH_BEFORE_MANIFEST: exiting before the "
                  "manifest of step " +
                      std::to_string(step));
  _exit(ExitFailure);
}

void beforeStep(int rank, int64_t step) {
  const char *failRank = std::getenv("PW_TEST_FAIL_RANK");
  if (!failRank || std::atoi(failRank) != rank)
    return;
  const char *failStep = std::getenv("PW_TEST_FAIL_STEP");
  if ((failStep ? std::atoll(failStep) : 1) != step)
    return;
  throw Error("PW_TEST_FAIL_RANK: rank " + std::to_string(rank) +
              " fails before step " + std::to_string(step));
}

bool noSpaceFor(const std::string &path) {
  const char *text = std::getenv("PW_TEST_NO_SPACE");
  return text && *text && path.find(text) != std::string::npos;
}

void perturbCopy(int rank, const std::string &name, void *data) {
  const char *text = std::getenv("PW_TEST_PERTURB_COPY");
  if (!text)
    return;
  std::string spec = text;
  size_t at = spec.rfind('@');
  if (at == std::string::npos || spec.substr(0, at) != name ||
      std::atoi(spec.c_str() + at + 1) != rank)
    return;
  *static_cast<unsigned char *>(data) ^= 1;
}

} // namespace pipewave::runtime::testhooks
