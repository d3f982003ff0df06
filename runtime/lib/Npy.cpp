//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Part of the pipewave project.
//
// The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (16, 8), }
// parsed here with a tiny literal parser (strings, True/False, int tuples).
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Npy.h"
#include "pipewave-runtime/Error.h"
#include "pipewave-runtime/File.h"

#include <cstring>
#include <optional>

namespace pipewave::runtime {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

[[noreturn]] void npyError(const std::string &what,
                           const std::string &message) {
  throw Error("'" + what + "': " + message, ExitUsage);
}

/// Parser of the header dict.
class HeaderParser {
public:
  HeaderParser(const std::string &text, const std::string &what)
      : text(text), what(what) {}

  std::optional<std::string> descr;
  std::optional<bool> fortranOrder;
  std::optional<std::vector<int64_t>> shape;

  void parse() {
    skipSpace();
    expect('{');
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key = parseString();
      skipSpace();
      expect(':');
      skipSpace();
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"')
          npyError(what, "structured dtypes are not supported (descr is not "
                         "a simple type string)");
        descr = parseString();
      } else if (key == "fortran_order") {
        fortranOrder = parseBool();
      } else if (key == "shape") {
        shape = parseTuple();
      } else {
        fail("unexpected key '" + key + "'");
      }
      skipSpace();
      if (consume('}'))
        break;
      expect(',');
    }
    skipSpace();
    if (pos != text.size())
      fail("unexpected text after the dict");
    if (!descr || !fortranOrder || !shape)
      fail("the header lacks one of 'descr', 'fortran_order', 'shape'");
  }

private:
  const std::string &text;
  const std::string &what;
  size_t pos = 0;

  [[noreturn]] void fail(const std::string &message) {
    npyError(what, "malformed .npy header: " + message);
  }
  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' ||
                                 text[pos] == '\t' || text[pos] == '\r'))
      ++pos;
  }
  bool consume(char c) {
    if (peek() == c) {
      ++pos;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!consume(c))
      fail(std::string("expected '") + c + "' at offset " +
           std::to_string(pos));
  }
  std::string parseString() {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      fail("expected a string at offset " + std::to_string(pos));
    ++pos;
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      fail("unterminated string");
    std::string value = text.substr(pos, end - pos);
    pos = end + 1;
    return value;
  }
  bool parseBool() {
    if (text.compare(pos, 4, "True") == 0) {
      pos += 4;
      return true;
    }
    if (text.compare(pos, 5, "False") == 0) {
      pos += 5;
      return false;
    }
    fail("expected True or False");
  }
  std::vector<int64_t> parseTuple() {
    expect('(');
    std::vector<int64_t> dims;
    while (true) {
      skipSpace();
      if (consume(')'))
        return dims;
      if (peek() < '0' || peek() > '9')
        fail("expected a dimension at offset " + std::to_string(pos));
      int64_t dim = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (dim > (INT64_MAX - 9) / 10)
          fail("dimension too large");
        dim = dim * 10 + (text[pos++] - '0');
      }
      if (peek() == 'L') // Python 2 longs.
        ++pos;
      dims.push_back(dim);
      skipSpace();
      if (consume(')'))
        return dims;
      expect(',');
    }
  }
};

int32_t dtypeFromDescr(const std::string &descr, const std::string &what) {
  if (descr.size() < 3)
    npyError(what, "unsupported dtype '" + descr + "'");
  char order = descr[0];
  std::string type = descr.substr(1);
  int32_t dtype = -1;
  if (type == "f4")
    dtype = PW_F32;
  else if (type == "f8")
    dtype = PW_F64;
  else if (type == "i4")
    dtype = PW_I32;
  else if (type == "i8")
    dtype = PW_I64;
  else if (type == "i1")
    dtype = PW_I8;
  else if (type == "b1")
    dtype = PW_BOOL;
  if (dtype < 0 ||
      (order != '<' && order != '>' && order != '|' && order != '='))
    npyError(what, "unsupported dtype '" + descr +
                       "' (supported: <f4 <f8 <i4 <i8 |i1 |b1)");
  if (order == '>' && dtypeSize(dtype) > 1)
    npyError(what, "big-endian dtype '" + descr +
                       "' is not supported; save the array little-endian "
                       "(e.g. arr.astype('<" +
                       type + "'))");
  return dtype;
}

std::string descrOf(int32_t dtype) {
  switch (dtype) {
  case PW_F32:
    return "<f4";
  case PW_F64:
    return "<f8";
  case PW_I32:
    return "<i4";
  case PW_I64:
    return "<i8";
  case PW_I8:
    return "|i1";
  case PW_BOOL:
    return "|b1";
  default:
    throw Error("cannot write dtype " + dtypeName(dtype) + " to .npy");
  }
}

uint32_t readLE(const unsigned char *p, int bytes) {
  uint32_t value = 0;
  for (int i = bytes - 1; i >= 0; --i)
    value = (value << 8) | p[i];
  return value;
}

/// Bytes needed before the header text: magic, version, length field.
size_t preambleSize(int major) { return kMagicSize + 2 + (major == 1 ? 2 : 4); }

void checkMagic(const unsigned char *p, size_t size, const std::string &what) {
  if (size < kMagicSize + 2 || std::memcmp(p, kMagic, kMagicSize) != 0)
    npyError(what, "not a .npy file (bad magic; expected \\x93NUMPY)");
  if (p[6] < 1 || p[6] > 3)
    npyError(what, "unsupported .npy format version " + std::to_string(p[6]) +
                       "." + std::to_string(p[7]));
}

} // namespace

NpyHeader parseNpyHeader(const void *data, size_t size,
                         const std::string &what) {
  const auto *p = static_cast<const unsigned char *>(data);
  checkMagic(p, size, what);
  NpyHeader header;
  header.major = p[6];
  header.minor = p[7];
  size_t lengthBytes = header.major == 1 ? 2 : 4;
  if (size < preambleSize(header.major))
    npyError(what, "truncated .npy header");
  size_t headerLength =
      readLE(p + kMagicSize + 2, static_cast<int>(lengthBytes));
  size_t start = preambleSize(header.major);
  if (size - start < headerLength)
    npyError(what, "truncated .npy header (needs " +
                       std::to_string(start + headerLength) + " bytes, has " +
                       std::to_string(size) + ")");
  std::string text(reinterpret_cast<const char *>(p + start), headerLength);
  HeaderParser parser(text, what);
  parser.parse();
  if (*parser.fortranOrder)
    npyError(what, "Fortran-order arrays are not supported; save it in C "
                   "order (e.g. np.save(path, np.ascontiguousarray(arr)))");
  header.dtype = dtypeFromDescr(*parser.descr, what);
  header.shape = *parser.shape;
  header.dataOffset = start + headerLength;
  try {
    header.dataBytes = byteSize(header.dtype, header.shape);
  } catch (const Error &error) {
    npyError(what, error.what());
  }
  return header;
}

NpyHeader readNpyHeader(const std::string &path) {
  InputFile file(path);
  unsigned char preamble[12];
  size_t have = file.size() < sizeof(preamble) ? file.size() : sizeof(preamble);
  file.readAt(0, preamble, have, ".npy preamble");
  checkMagic(preamble, have, path);
  size_t pre = preambleSize(preamble[6]);
  if (have < pre)
    npyError(path, "truncated .npy header");
  size_t headerLength =
      readLE(preamble + kMagicSize + 2, preamble[6] == 1 ? 2 : 4);
  if (file.size() < pre + headerLength)
    npyError(path, "truncated .npy header (needs " +
                       std::to_string(pre + headerLength) +
                       " bytes, the file has " + std::to_string(file.size()) +
                       ")");
  std::string bytes(pre + headerLength, '\0');
  file.readAt(0, bytes.data(), bytes.size(), ".npy header");
  NpyHeader header = parseNpyHeader(bytes.data(), bytes.size(), path);
  uint64_t have2 = file.size() - header.dataOffset;
  if (have2 < header.dataBytes)
    npyError(path, "truncated .npy data: shape " + shapeString(header.shape) +
                       " of " + dtypeName(header.dtype) + " needs " +
                       std::to_string(header.dataBytes) +
                       " bytes after the header, the file has " +
                       std::to_string(have2));
  if (have2 > header.dataBytes)
    npyError(path, std::to_string(have2 - header.dataBytes) +
                       " unexpected bytes after the data of shape " +
                       shapeString(header.shape));
  return header;
}

HostTensor readNpy(const std::string &path) {
  NpyHeader header = readNpyHeader(path);
  HostTensor tensor(header.dtype, header.shape);
  InputFile file(path);
  file.readAt(header.dataOffset, tensor.data(), tensor.bytes(), "the data");
  return tensor;
}

std::string encodeNpyHeader(int32_t dtype, const std::vector<int64_t> &shape) {
  std::string dict =
      "{'descr': '" + descrOf(dtype) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) {
    dict += std::to_string(shape[i]);
    if (shape.size() == 1 || i + 1 < shape.size())
      dict += ", ";
  }
  if (shape.size() == 1)
    dict.pop_back(); // "(16,)" like NumPy.
  dict += "), }";
  int major = 1;
  size_t pre = preambleSize(1);
  size_t total = alignUp(pre + dict.size() + 1);
  if (total - pre > 0xFFFF) {
    major = 2;
    pre = preambleSize(2);
    total = alignUp(pre + dict.size() + 1);
  }
  size_t headerLength = total - pre;
  dict.append(headerLength - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicSize);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out += static_cast<char>((headerLength >> (8 * i)) & 0xFF);
  return out + dict;
}

void writeNpy(const std::string &path, int32_t dtype,
              const std::vector<int64_t> &shape, const void *data) {
  std::string header = encodeNpyHeader(dtype, shape);
  size_t bytes = static_cast<size_t>(numElements(shape)) * dtypeSize(dtype);
  writeFileAtomic(path, {{header.data(), header.size()}, {data, bytes}});
}

void writeNpy(const std::string &path, const HostTensor &tensor) {
  writeNpy(path, tensor.dtype, tensor.shape, tensor.data());
}

} // namespace pipewave::runtime
