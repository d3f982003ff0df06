//===- SafetensorsTest.cpp - Tests of the safetensors reader/writer -------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave-runtime/Safetensors.h"

#include "TestUtil.h"

#include <cstring>
#include <dirent.h>

using namespace pipewave::runtime;
using namespace pipewave::runtime::test;

namespace {

/// A safetensors file with a hand-written header.
std::string fileWith(const std::string &json, const std::string &data) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>((json.size() >> (8 * i)) & 0xFF);
  return out + json + data;
}

int filesIn(const std::string &path) {
  int count = 0;
  DIR *dir = opendir(path.c_str());
  while (dirent *entry = readdir(dir))
    count += entry->d_name[0] != '.';
  closedir(dir);
  return count;
}

} // namespace

TEST(SafetensorsTest, RoundTripsTensorsAndMetadata) {
  TempDir dir;
  std::vector<float> w = {1.5f, -2.25f, 3.0f, 0.5f, 7.0f, -1.0f};
  std::vector<int64_t> steps = {42};
  std::vector<uint8_t> mask = {1, 0, 1};
  std::string path = dir.file("ckpt.safetensors");
  writeSafetensors(path,
                   {{"layer.w", PW_F32, {2, 3}, w.data()},
                    {"step", PW_I64, {}, steps.data()},
                    {"mask", PW_BOOL, {3}, mask.data()}},
                   {{"format", "pt"}, {"note", "a \"quoted\" value"}});
  EXPECT_EQ(filesIn(dir.path()), 1) << "no temporary file left behind";
  std::string raw = readBytes(path);
  uint64_t headerLength = 0;
  for (int i = 7; i >= 0; --i)
    headerLength = (headerLength << 8) | static_cast<unsigned char>(raw[i]);
  EXPECT_EQ(headerLength % 8, 0u) << "data starts 8-byte aligned";

  SafetensorsReader reader(path);
  ASSERT_EQ(reader.entries().size(), 3u);
  EXPECT_EQ(reader.metadata().at("format"), "pt");
  EXPECT_EQ(reader.metadata().at("note"), "a \"quoted\" value");
  HostTensor back = reader.read("layer.w");
  EXPECT_EQ(back.dtype, PW_F32);
  EXPECT_EQ(back.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(std::memcmp(back.data(), w.data(), 24), 0);
  int64_t step = 0;
  reader.read("step", PW_I64, {}, &step);
  EXPECT_EQ(step, 42);
  HostTensor m = reader.read("mask");
  EXPECT_EQ(static_cast<uint8_t *>(m.data())[2], 1);
}

TEST(SafetensorsTest, OverwritesAtomically) {
  TempDir dir;
  std::string path = dir.file("a.safetensors");
  float one = 1, two = 2;
  writeSafetensors(path, {{"v", PW_F32, {1}, &one}});
  writeSafetensors(path, {{"v", PW_F32, {1}, &two}});
  float got = 0;
  SafetensorsReader(path).read("v", PW_F32, {1}, &got);
  EXPECT_EQ(got, 2.0f);
  EXPECT_EQ(filesIn(dir.path()), 1);
}

TEST(SafetensorsTest, ReportsMismatchesByTensorName) {
  TempDir dir;
  std::string path = dir.file("p.safetensors");
  std::vector<float> w(6, 1.0f);
  writeSafetensors(path, {{"w", PW_F32, {2, 3}, w.data()}});
  SafetensorsReader reader(path);
  std::vector<float> dst(6);
  std::string missing = PW_ERROR_OF(reader.read("b", PW_F32, {6}, dst.data()));
  EXPECT_NE(missing.find("no tensor 'b'"), std::string::npos) << missing;
  std::string shape = PW_ERROR_OF(reader.read("w", PW_F32, {3, 2}, dst.data()));
  EXPECT_NE(shape.find("tensor 'w' has shape [2, 3] but the model expects "
                       "[3, 2]"),
            std::string::npos)
      << shape;
  std::string dtype = PW_ERROR_OF(reader.read("w", PW_F64, {2, 3}, dst.data()));
  EXPECT_NE(dtype.find("tensor 'w' has dtype F32 but the model expects F64"),
            std::string::npos)
      << dtype;
}

TEST(SafetensorsTest, ReportsMalformedFiles) {
  TempDir dir;
  std::string path = dir.file("bad.safetensors");
  auto errorFor = [&](const std::string &bytes) {
    writeBytes(path, bytes);
    return PW_ERROR_OF(SafetensorsReader reader(path));
  };
  std::string good =
      R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  EXPECT_EQ(errorFor(fileWith(good, std::string(8, '\0'))), "");

  std::string truncatedData = errorFor(fileWith(good, std::string(5, '\0')));
  EXPECT_NE(truncatedData.find("truncated: tensor 'w' ends at data byte 8"),
            std::string::npos)
      << truncatedData;
  EXPECT_NE(errorFor(fileWith(good, "").substr(0, 30))
                .find("truncated: the header needs"),
            std::string::npos);
  EXPECT_NE(errorFor("abc").find("shorter than the 8-byte header length"),
            std::string::npos);
  std::string badJson = errorFor(fileWith(R"({"w":{"dtype":"F32",})", ""));
  EXPECT_NE(badJson.find("invalid JSON at offset"), std::string::npos)
      << badJson;
  EXPECT_NE(badJson.find(path), std::string::npos);
  EXPECT_NE(errorFor(fileWith(R"({"w":{"dtype":"F16","shape":[2],)"
                              R"("data_offsets":[0,4]}})",
                              std::string(4, '\0')))
                .find("tensor 'w' has dtype F16"),
            std::string::npos);
  EXPECT_NE(errorFor(fileWith(R"({"w":{"dtype":"F32","shape":[3],)"
                              R"("data_offsets":[0,8]}})",
                              std::string(8, '\0')))
                .find("has 8 bytes of data but shape [3] of F32 needs 12"),
            std::string::npos);
  EXPECT_NE(errorFor(fileWith(R"({"a":{"dtype":"F32","shape":[2],)"
                              R"("data_offsets":[0,8]},)"
                              R"("b":{"dtype":"F32","shape":[2],)"
                              R"("data_offsets":[4,12]}})",
                              std::string(12, '\0')))
                .find("overlap"),
            std::string::npos);
  EXPECT_NE(errorFor(fileWith(R"({"w":{"dtype":"F32","shape":[2]}})", ""))
                .find("missing 'data_offsets'"),
            std::string::npos);
  EXPECT_NE(errorFor(fileWith("[1, 2]", "")).find("not a JSON object"),
            std::string::npos);
}

// A header that claims a huge shape is refused when the header is read,
// before any tensor is allocated: the byte count must match the data
// offsets, which must lie inside the file, and it must not wrap around
// 2^64 (2^61 float64 elements would need 2^64 bytes, which wraps to 0 and
// would have matched an empty tensor).
TEST(SafetensorsTest, HugeClaimedShapesAreRefusedBeforeAllocating) {
  TempDir dir;
  std::string path = dir.file("huge.safetensors");
  auto errorFor = [&](const std::string &bytes) {
    writeBytes(path, bytes);
    return PW_ERROR_OF(SafetensorsReader(path).read("w"));
  };
  std::string wraps =
      errorFor(fileWith(R"({"w":{"dtype":"F64","shape":[2305843009213693952],)"
                        R"("data_offsets":[0,0]}})",
                        ""));
  EXPECT_NE(wraps.find("tensor 'w': shape [2305843009213693952] of f64 is too "
                       "large"),
            std::string::npos)
      << wraps;
  std::string big =
      errorFor(fileWith(R"({"w":{"dtype":"F32","shape":[100000,100000],)"
                        R"("data_offsets":[0,40000000000]}})",
                        std::string(8, '\0')));
  EXPECT_NE(big.find("truncated: tensor 'w' ends at data byte 40000000000"),
            std::string::npos)
      << big;
}
