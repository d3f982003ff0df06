//===- Json.cpp - A small JSON reader -------------------------------------===//
//
// Part of the pipewave project.
//
// A recursive-descent parser for RFC 8259 JSON with a nesting limit.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Json.h"
#include "pipewave-runtime/Error.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace pipewave::runtime {

const JsonValue *JsonValue::find(std::string_view key) const {
  for (const auto &member : object)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

namespace {

constexpr int kMaxDepth = 256;

class Parser {
public:
  Parser(std::string_view text, const std::string &what)
      : text(text), what(what) {}

  JsonValue parseDocument() {
    skipSpace();
    JsonValue value = parseValue(0);
    skipSpace();
    if (pos != text.size())
      fail("unexpected text after the value");
    return value;
  }

private:
  std::string_view text;
  const std::string &what;
  size_t pos = 0;

  [[noreturn]] void fail(const std::string &message) {
    throw Error(what + ": invalid JSON at offset " + std::to_string(pos) +
                ": " + message);
  }

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  bool consume(char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!consume(c))
      fail(std::string("expected '") + c + "'");
  }

  void expectWord(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      fail("unexpected character");
    pos += word.size();
  }

  JsonValue parseValue(int depth) {
    if (depth > kMaxDepth)
      fail("nesting deeper than " + std::to_string(kMaxDepth));
    if (pos >= text.size())
      fail("unexpected end of input");
    JsonValue value;
    char c = text[pos];
    if (c == '{') {
      value.kind = JsonValue::Kind::Object;
      ++pos;
      skipSpace();
      if (consume('}'))
        return value;
      while (true) {
        skipSpace();
        if (pos >= text.size() || text[pos] != '"')
          fail("expected a string key");
        std::string key = parseString();
        skipSpace();
        expect(':');
        skipSpace();
        value.object.emplace_back(std::move(key), parseValue(depth + 1));
        skipSpace();
        if (consume('}'))
          return value;
        expect(',');
      }
    }
    if (c == '[') {
      value.kind = JsonValue::Kind::Array;
      ++pos;
      skipSpace();
      if (consume(']'))
        return value;
      while (true) {
        skipSpace();
        value.array.push_back(parseValue(depth + 1));
        skipSpace();
        if (consume(']'))
          return value;
        expect(',');
      }
    }
    if (c == '"') {
      value.kind = JsonValue::Kind::String;
      value.string = parseString();
      return value;
    }
    if (c == 't') {
      expectWord("true");
      value.kind = JsonValue::Kind::Bool;
      value.boolean = true;
      return value;
    }
    if (c == 'f') {
      expectWord("false");
      value.kind = JsonValue::Kind::Bool;
      return value;
    }
    if (c == 'n') {
      expectWord("null");
      return value;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber();
    fail(std::string("unexpected character '") + c + "'");
  }

  JsonValue parseNumber() {
    size_t start = pos;
    bool integral = true;
    consume('-');
    if (consume('0')) {
      // No leading zeros.
    } else if (pos < text.size() && text[pos] >= '1' && text[pos] <= '9') {
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
    } else {
      fail("invalid number");
    }
    if (consume('.')) {
      integral = false;
      if (pos >= text.size() || text[pos] < '0' || text[pos] > '9')
        fail("invalid number");
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      integral = false;
      ++pos;
      if (!consume('+'))
        consume('-');
      if (pos >= text.size() || text[pos] < '0' || text[pos] > '9')
        fail("invalid number");
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
    }
    std::string literal(text.substr(start, pos - start));
    JsonValue value;
    value.kind = JsonValue::Kind::Number;
    value.number = std::strtod(literal.c_str(), nullptr);
    if (integral) {
      errno = 0;
      long long parsed = std::strtoll(literal.c_str(), nullptr, 10);
      if (errno == 0) {
        value.isInteger = true;
        value.integer = parsed;
      }
    }
    return value;
  }

  unsigned parseHex4() {
    if (pos + 4 > text.size())
      fail("truncated \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text[pos++];
      code <<= 4;
      if (c >= '0' && c <= '9')
        code |= c - '0';
      else if (c >= 'a' && c <= 'f')
        code |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        code |= c - 'A' + 10;
      else
        fail("invalid \\u escape");
    }
    return code;
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

  std::string parseString() {
    expect('"');
    std::string out;
    while (true) {
      if (pos >= text.size())
        fail("unterminated string");
      char c = text[pos++];
      if (c == '"')
        return out;
      if (static_cast<unsigned char>(c) < 0x20)
        fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= text.size())
        fail("unterminated string");
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
        unsigned code = parseHex4();
        if (code >= 0xD800 && code < 0xDC00) {
          if (!(consume('\\') && consume('u')))
            fail("unpaired surrogate");
          unsigned low = parseHex4();
          if (low < 0xDC00 || low >= 0xE000)
            fail("unpaired surrogate");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code < 0xE000) {
          fail("unpaired surrogate");
        }
        appendUtf8(out, code);
        break;
      }
      default:
        fail(std::string("invalid escape '\\") + e + "'");
      }
    }
  }
};

} // namespace

JsonValue parseJson(std::string_view text, const std::string &what) {
  return Parser(text, what).parseDocument();
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
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

} // namespace pipewave::runtime
