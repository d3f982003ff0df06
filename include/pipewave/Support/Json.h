//===- Json.h - The one small JSON reader and writer ------------*- C++ -*-===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//
//
// Plain C++17 (no MLIR/LLVM, no exceptions): a strict RFC 8259 parser into a
// JsonValue tree (objects keep their members in file order, numbers are
// doubles plus the exact int64 of integer literals) and string/number
// quoting for writers. Shared by the simulator (device descriptions, Chrome
// traces) and the runtime (safetensors headers, checkpoints, traces), which
// wraps parseJson into its throwing form.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_SUPPORT_JSON_H
#define PIPEWAVE_SUPPORT_JSON_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pipewave::json {

/// A parsed JSON value.
struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  /// Number only: true when the literal is an integer that fits int64_t.
  bool isInteger = false;
  int64_t integer = 0;
  std::string string;
  std::vector<JsonValue> array;
  /// Object members in file order (duplicate keys are kept; find() returns
  /// the first).
  std::vector<std::pair<std::string, JsonValue>> object;

  bool isNull() const { return kind == Kind::Null; }
  bool isBool() const { return kind == Kind::Bool; }
  bool isNumber() const { return kind == Kind::Number; }
  bool isString() const { return kind == Kind::String; }
  bool isArray() const { return kind == Kind::Array; }
  bool isObject() const { return kind == Kind::Object; }

  /// The member `key` of an object, or nullptr if absent or not an object.
  const JsonValue *find(std::string_view key) const;
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

} // namespace pipewave::json

#endif // PIPEWAVE_SUPPORT_JSON_H
