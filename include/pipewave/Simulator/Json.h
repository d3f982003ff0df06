//===- Json.h - Minimal JSON reader and writer helpers ----------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++ (no MLIR/LLVM): just enough JSON to read device descriptions
// (data/devices/*.json) and to check the Chrome traces the simulator writes.
// Numbers are doubles; objects keep their keys in file order.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SIMULATOR_JSON_H
#define PIPEWAVE_SIMULATOR_JSON_H

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pipewave::sim {

/// A parsed JSON value.
struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  /// Object members in file order (duplicate keys are kept; get() returns
  /// the first).
  std::vector<std::pair<std::string, JsonValue>> object;

  bool isNull() const { return kind == Kind::Null; }
  bool isBool() const { return kind == Kind::Bool; }
  bool isNumber() const { return kind == Kind::Number; }
  bool isString() const { return kind == Kind::String; }
  bool isArray() const { return kind == Kind::Array; }
  bool isObject() const { return kind == Kind::Object; }

  /// The member `key` of an object, or null if absent or not an object.
  const JsonValue *get(std::string_view key) const;
};

/// Parses a complete JSON document (RFC 8259; surrounding whitespace
/// allowed). On failure returns nullopt and, if `error` is given, stores a
/// message with the byte offset of the problem.
std::optional<JsonValue> parseJson(std::string_view text,
                                   std::string *error = nullptr);

/// `text` as a JSON string literal, quotes included, with `"`, `\`, and
/// control characters escaped.
std::string jsonQuote(std::string_view text);

/// A JSON number for `value` that reads back to the same double; "null" for
/// NaN and infinities, which JSON cannot represent.
std::string jsonNumber(double value);

} // namespace pipewave::sim

#endif // PIPEWAVE_SIMULATOR_JSON_H
