//===- Json.cpp - The one small JSON reader and writer --------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Support/Json.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pipewave::json {

const JsonValue *JsonValue::find(std::string_view key) const {
  if (kind != Kind::Object)
    return nullptr;
  for (const auto &member : object)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

namespace {

class Parser {
public:
  explicit Parser(std::string_view text) : text(text) {}

  std::optional<JsonValue> document(std::string *error) {
    JsonValue value;
    skipSpace();
    if (!parseValue(value, 0)) {
      if (error)
        *error = message;
      return std::nullopt;
    }
    skipSpace();
    if (pos != text.size()) {
      fail("unexpected text after the JSON value");
      if (error)
        *error = message;
      return std::nullopt;
    }
    return value;
  }

private:
  static constexpr int maxDepth = 256;

  bool fail(const std::string &what) {
    if (message.empty())
      message = "offset " + std::to_string(pos) + ": " + what;
    return false;
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool literal(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      return fail("invalid literal");
    pos += word.size();
    return true;
  }

  bool parseValue(JsonValue &value, int depth) {
    if (depth > maxDepth)
      return fail("nesting too deep");
    if (pos >= text.size())
      return fail("unexpected end of input");
    char c = text[pos];
    switch (c) {
    case '{':
      return parseObject(value, depth);
    case '[':
      return parseArray(value, depth);
    case '"':
      value.kind = JsonValue::Kind::String;
      return parseString(value.string);
    case 't':
      value.kind = JsonValue::Kind::Bool;
      value.boolean = true;
      return literal("true");
    case 'f':
      value.kind = JsonValue::Kind::Bool;
      value.boolean = false;
      return literal("false");
    case 'n':
      value.kind = JsonValue::Kind::Null;
      return literal("null");
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return parseNumber(value);
      return fail(std::string("unexpected character '") + c + "'");
    }
  }

  bool parseObject(JsonValue &value, int depth) {
    value.kind = JsonValue::Kind::Object;
    ++pos; // '{'
    skipSpace();
    if (pos < text.size() && text[pos] == '}') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      if (pos >= text.size() || text[pos] != '"')
        return fail("expected a string key");
      std::string key;
      if (!parseString(key))
        return false;
      skipSpace();
      if (pos >= text.size() || text[pos] != ':')
        return fail("expected ':'");
      ++pos;
      skipSpace();
      JsonValue member;
      if (!parseValue(member, depth + 1))
        return false;
      value.object.emplace_back(std::move(key), std::move(member));
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == '}') {
        ++pos;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }

  bool parseArray(JsonValue &value, int depth) {
    value.kind = JsonValue::Kind::Array;
    ++pos; // '['
    skipSpace();
    if (pos < text.size() && text[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      JsonValue element;
      if (!parseValue(element, depth + 1))
        return false;
      value.array.push_back(std::move(element));
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == ']') {
        ++pos;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }

  static void appendUtf8(std::string &out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  bool hex4(unsigned &code) {
    if (pos + 4 > text.size())
      return fail("truncated \\u escape");
    code = 0;
    for (int i = 0; i < 4; ++i) {
      char h = text[pos++];
      code <<= 4;
      if (h >= '0' && h <= '9')
        code |= h - '0';
      else if (h >= 'a' && h <= 'f')
        code |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F')
        code |= h - 'A' + 10;
      else
        return fail("invalid \\u escape");
    }
    return true;
  }

  bool parseString(std::string &out) {
    ++pos; // opening quote
    while (true) {
      if (pos >= text.size())
        return fail("unterminated string");
      char c = text[pos++];
      if (c == '"')
        return true;
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= text.size())
        return fail("unterminated escape");
      char e = text[pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        unsigned code = 0;
        if (!hex4(code))
          return false;
        if (code >= 0xD800 && code < 0xDC00) {
          unsigned low = 0;
          if (text.substr(pos, 2) != "\\u")
            return fail("unpaired surrogate");
          pos += 2;
          if (!hex4(low) || low < 0xDC00 || low >= 0xE000)
            return fail("invalid surrogate pair");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code < 0xE000) {
          return fail("unpaired surrogate");
        }
        appendUtf8(out, code);
        break;
      }
      default:
        return fail("invalid escape");
      }
    }
  }

  bool digits() {
    size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
      ++pos;
    return pos > start;
  }

  bool parseNumber(JsonValue &value) {
    size_t start = pos;
    bool integral = true;
    if (text[pos] == '-')
      ++pos;
    if (pos < text.size() && text[pos] == '0') {
      ++pos;
    } else if (!digits()) {
      return fail("invalid number");
    }
    if (pos < text.size() && text[pos] == '.') {
      integral = false;
      ++pos;
      if (!digits())
        return fail("invalid number: digits expected after '.'");
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      integral = false;
      ++pos;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
        ++pos;
      if (!digits())
        return fail("invalid number: digits expected in the exponent");
    }
    std::string spelling(text.substr(start, pos - start));
    value.kind = JsonValue::Kind::Number;
    value.number = std::strtod(spelling.c_str(), nullptr);
    // JSON has no infinity: a number beyond the range of a double is an
    // error, not a value every reader would have to check for.
    if (!std::isfinite(value.number)) {
      pos = start;
      return fail("number out of range: " + spelling);
    }
    if (integral) {
      errno = 0;
      long long parsed = std::strtoll(spelling.c_str(), nullptr, 10);
      if (errno == 0) {
        value.isInteger = true;
        value.integer = parsed;
      }
    }
    return true;
  }

  std::string_view text;
  size_t pos = 0;
  std::string message;
};

} // namespace

std::optional<JsonValue> parseJson(std::string_view text, std::string *error) {
  return Parser(text).document(error);
}

std::string jsonQuote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
        out += buffer;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

std::string jsonNumber(double value) {
  if (!std::isfinite(value))
    return "null";
  char buffer[32];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value)
      break;
  }
  return buffer;
}

} // namespace pipewave::json
