//===- NpyTest.cpp - Tests of the .npy reader and writer ------------------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Npy.h"

#include "TestUtil.h"

#include <cstring>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

/// A .npy file with a hand-written header dict (version 1.0 or 2.0).
std::string npyBytes(const std::string &dict, const std::string &data,
                     int major = 1) {
  std::string header = dict;
  size_t pre = major == 1 ? 10 : 12;
  while ((pre + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  size_t length = header.size();
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out += static_cast<char>((length >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string floats(std::initializer_list<float> values) {
  std::string out(values.size() * 4, '\0');
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

} // namespace

TEST(NpyTest, RoundTripsEveryDType) {
  TempDir dir;
  struct Case {
    int32_t dtype;
    std::vector<int64_t> shape;
  } cases[] = {{PW_F32, {3, 4}}, {PW_F64, {5}},   {PW_I32, {2, 1, 3}},
               {PW_I64, {}},     {PW_I8, {7, 2}}, {PW_BOOL, {4}},
               {PW_F32, {0, 3}}};
  for (const Case &c : cases) {
    HostTensor tensor(c.dtype, c.shape);
    auto *bytes = static_cast<unsigned char *>(tensor.data());
    for (size_t i = 0; i < tensor.bytes(); ++i)
      bytes[i] =
          static_cast<unsigned char>(c.dtype == PW_BOOL ? i % 2 : i * 7 + 1);
    std::string path = dir.file("t.npy");
    writeNpy(path, tensor);
    std::string raw = readBytes(path);
    ASSERT_GE(raw.size(), 64u);
    EXPECT_EQ((raw.size() - tensor.bytes()) % 64, 0u) << "header padded to 64";
    HostTensor back = readNpy(path);
    EXPECT_EQ(back.dtype, c.dtype);
    EXPECT_EQ(back.shape, c.shape);
    ASSERT_EQ(back.bytes(), tensor.bytes());
    if (tensor.bytes()) { // (memcmp of an empty tensor's null data is UB)
      EXPECT_EQ(std::memcmp(back.data(), tensor.data(), tensor.bytes()), 0);
    }
  }
}

TEST(NpyTest, WritesNumPyStyleHeader) {
  std::string header = encodeNpyHeader(PW_F32, {16});
  EXPECT_EQ(header.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(header.find("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(16,), }"),
            std::string::npos);
  EXPECT_NE(encodeNpyHeader(PW_BOOL, {2, 3}).find("'|b1'"), std::string::npos);
  EXPECT_NE(encodeNpyHeader(PW_I64, {}).find("'shape': ()"), std::string::npos);
  EXPECT_EQ(encodeNpyHeader(PW_F32, {2, 3}).back(), '\n');
}

TEST(NpyTest, ReadsVersion2AndHandWrittenHeaders) {
  TempDir dir;
  std::string path = dir.file("v2.npy");
  writeBytes(path, npyBytes("{\"shape\": (2,), \"descr\": \"<f4\", "
                            "\"fortran_order\": False}",
                            floats({1.5f, -2.0f}), 2));
  HostTensor t = readNpy(path);
  EXPECT_EQ(t.shape, std::vector<int64_t>{2});
  EXPECT_EQ(static_cast<float *>(t.data())[0], 1.5f);
  EXPECT_EQ(static_cast<float *>(t.data())[1], -2.0f);
  // Big-endian marker is irrelevant for one-byte types.
  writeBytes(path, npyBytes("{'descr': '|i1', 'fortran_order': False, "
                            "'shape': (3,), }",
                            std::string("\x01\xff\x02", 3)));
  t = readNpy(path);
  EXPECT_EQ(t.dtype, PW_I8);
  EXPECT_EQ(static_cast<int8_t *>(t.data())[1], -1);
}

TEST(NpyTest, ReportsEachError) {
  TempDir dir;
  std::string path = dir.file("bad.npy");
  auto errorFor = [&](const std::string &bytes) {
    writeBytes(path, bytes);
    return PW_ERROR_OF(readNpy(path));
  };
  std::string okDict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";

  EXPECT_NE(errorFor("PK\x03\x04 not numpy at all").find("bad magic"),
            std::string::npos);
  EXPECT_NE(errorFor("").find("bad magic"), std::string::npos);
  EXPECT_NE(errorFor(npyBytes("{'descr': '<f4', 'fortran_order': True, "
                              "'shape': (2,), }",
                              floats({1, 2})))
                .find("Fortran-order arrays are not supported"),
            std::string::npos);
  EXPECT_NE(errorFor(npyBytes("{'descr': '<f2', 'fortran_order': False, "
                              "'shape': (2,), }",
                              "abcd"))
                .find("unsupported dtype '<f2'"),
            std::string::npos);
  EXPECT_NE(errorFor(npyBytes("{'descr': '<u4', 'fortran_order': False, "
                              "'shape': (2,), }",
                              floats({1, 2})))
                .find("unsupported dtype '<u4'"),
            std::string::npos);
  EXPECT_NE(errorFor(npyBytes("{'descr': '>f4', 'fortran_order': False, "
                              "'shape': (2,), }",
                              floats({1, 2})))
                .find("big-endian"),
            std::string::npos);
  EXPECT_NE(errorFor(npyBytes("{'descr': [('a', '<f4')], 'fortran_order': "
                              "False, 'shape': (2,), }",
                              floats({1, 2})))
                .find("structured dtypes"),
            std::string::npos);
  std::string truncated = errorFor(npyBytes(okDict, floats({1})));
  EXPECT_NE(truncated.find("truncated .npy data"), std::string::npos)
      << truncated;
  EXPECT_NE(truncated.find("needs 8 bytes"), std::string::npos) << truncated;
  EXPECT_NE(truncated.find("has 4"), std::string::npos) << truncated;
  EXPECT_NE(errorFor(npyBytes(okDict, floats({1, 2, 3})))
                .find("4 unexpected bytes after the data"),
            std::string::npos);
  std::string whole = npyBytes(okDict, floats({1, 2}));
  EXPECT_NE(errorFor(whole.substr(0, 40)).find("truncated .npy header"),
            std::string::npos);
  EXPECT_NE(
      errorFor(npyBytes("{'descr': '<f4', 'shape': (2,), }", floats({1, 2})))
          .find("lacks one of"),
      std::string::npos);
  std::string badVersion = whole;
  badVersion[6] = 9;
  EXPECT_NE(errorFor(badVersion).find("unsupported .npy format version 9.0"),
            std::string::npos);
  // Every message names the file.
  EXPECT_NE(errorFor("xx").find(path), std::string::npos);
  EXPECT_NE(PW_ERROR_OF(readNpy(dir.file("absent.npy"))).find("cannot open"),
            std::string::npos);
}

// A header that claims a huge shape is refused before anything the size of
// the shape is allocated: by the file-size check, and where the byte count
// would wrap around 2^64 (2^61 float64 elements need 2^64 bytes, which wraps
// to 0 and would have matched an empty file), by the overflow check.
TEST(NpyTest, HugeClaimedShapesAreRefusedBeforeAllocating) {
  TempDir dir;
  std::string path = dir.file("huge.npy");
  auto errorFor = [&](const std::string &bytes) {
    writeBytes(path, bytes);
    return PW_ERROR_OF(readNpy(path));
  };
  std::string wraps =
      errorFor(npyBytes("{'descr': '<f8', 'fortran_order': False, "
                        "'shape': (2305843009213693952,), }",
                        ""));
  EXPECT_NE(wraps.find("too large"), std::string::npos) << wraps;
  EXPECT_NE(wraps.find(path), std::string::npos) << wraps;
  std::string big =
      errorFor(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                        "'shape': (100000, 100000, 100000), }",
                        floats({1, 2})));
  EXPECT_NE(big.find("truncated .npy data"), std::string::npos) << big;
  std::string overflow =
      errorFor(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                        "'shape': (4294967296, 4294967296), }",
                        ""));
  EXPECT_NE(overflow.find("too large"), std::string::npos) << overflow;
}
