//===- Json.cpp - The runtime's throwing JSON parse -----------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Json.h"
#include "pipewave-runtime/Error.h"

#include <optional>

namespace pipewave::runtime {

JsonValue parseJson(std::string_view text, const std::string &what) {
  std::string error;
  std::optional<JsonValue> value = json::parseJson(text, &error);
  if (!value)
    throw Error(what + ": invalid JSON at " + error);
  return std::move(*value);
}

} // namespace pipewave::runtime
