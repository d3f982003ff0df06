//===- Json.h - A small JSON reader and writer helpers ----------*- C++ -*-===//
//
// Part of the pipewave project.
//
// Enough JSON for safetensors headers and trace files: a strict RFC 8259
// parser into a JsonValue tree (object members keep their order) and string
// quoting for writers.
//
//===----------------------------------------------------------------------===//

#ifndef PIPEWAVE_RUNTIME_JSON_H
#define PIPEWAVE_RUNTIME_JSON_H

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pipewave::runtime {

/// A parsed JSON value.
class JsonValue {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  /// Number only: true when the literal is an integer that fits int64_t.
  bool isInteger = false;
  int64_t integer = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;

  bool isNull() const { return kind == Kind::Null; }
  bool isBool() const { return kind == Kind::Bool; }
  bool isNumber() const { return kind == Kind::Number; }
  bool isString() const { return kind == Kind::String; }
  bool isArray() const { return kind == Kind::Array; }
  bool isObject() const { return kind == Kind::Object; }

  /// Object member `key`, or nullptr (also when this is not an object).
  const JsonValue *find(std::string_view key) const;
};

/// Parses `text` as exactly one JSON value (surrounding whitespace allowed).
/// Throws Error("<what>: invalid JSON at offset N: ...") on malformed input.
JsonValue parseJson(std::string_view text, const std::string &what = "JSON");

/// `text` as a JSON string literal, quotes included.
std::string jsonQuote(std::string_view text);

} // namespace pipewave::runtime

#endif // PIPEWAVE_RUNTIME_JSON_H
