//===- Json.h - JSON for the runtime ----------------------------*- C++ -*-===//
//
// Part of the pipewave project.
//
// The runtime reads safetensors headers, checkpoints and traces with the
// project's one JSON parser (pipewave/Support/Json.h); this header adds the
// runtime's throwing form of parseJson.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_JSON_H
#define PIPEWAVE_RUNTIME_JSON_H

#include "pipewave/Support/Json.h"

#include <string>
#include <string_view>

namespace pipewave::runtime {

using json::jsonNumber;
using json::jsonQuote;
using json::JsonValue;

/// Parses `text` as exactly one JSON value (surrounding whitespace allowed).
/// Throws Error("<what>: invalid JSON at offset N: ...") on malformed input.
JsonValue parseJson(std::string_view text, const std::string &what = "JSON");

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_JSON_H
