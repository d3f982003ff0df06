//===- ActionListFuzzer.cpp - libFuzzer target for action-list files ------===//
//
// Part of the pipewave project.
//
// Every input is an action-list schedule file (docs/schedule-format.md, what
// `--schedule-file` reads). parseActionList() must return a program or an
// error; the program it returns must pass verify() and format to an action
// list that parses back. Anything else is a bug.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Schedule/ActionList.h"
#include "pipewave/Schedule/Verify.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

using namespace pipewave::schedule;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  BuildResult result = parseActionList(
      std::string_view(reinterpret_cast<const char *>(data), size));
  if (!result) {
    if (result.error.empty()) {
      std::fprintf(stderr, "parseActionList failed without an error\n");
      std::abort();
    }
    return 0;
  }
  std::vector<Diagnostic> diags = verify(*result.program);
  if (!diags.empty()) {
    std::fprintf(stderr, "a parsed action list does not verify: %s\n",
                 diags.front().message.c_str());
    std::abort();
  }
  std::string text = formatActionList(*result.program);
  BuildResult again = parseActionList(text);
  if (!again) {
    std::fprintf(stderr, "the formatted action list does not parse: %s\n%s",
                 again.error.c_str(), text.c_str());
    std::abort();
  }
  return 0;
}
