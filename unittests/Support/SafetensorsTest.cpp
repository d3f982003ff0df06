//===- SafetensorsTest.cpp - Tests of the safetensors header encoder ------===//
//
// Part of the pipewave project.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Support/Safetensors.h"

#include "pipewave/Support/Json.h"

#include <gtest/gtest.h>

using namespace pipewave;
using safetensors::encodeHeader;
using safetensors::TensorInfo;

namespace {

/// The JSON of an encoded header, after checking the length field.
std::string jsonOf(const std::string &header) {
  EXPECT_GE(header.size(), 8u);
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i)
    length = (length << 8) | static_cast<unsigned char>(header[i]);
  EXPECT_EQ(length, header.size() - 8);
  return header.substr(8);
}

} // namespace

TEST(SafetensorsHeaderTest, LaysTensorsOutBackToBackInOrder) {
  std::string json = jsonOf(encodeHeader(
      {{"w", "F32", {2, 3}, 24}, {"b", "BF16", {3}, 6}, {"s", "I64", {}, 8}}));
  EXPECT_EQ(json.find("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],"
                      "\"data_offsets\":[0,24]},"
                      "\"b\":{\"dtype\":\"BF16\",\"shape\":[3],"
                      "\"data_offsets\":[24,30]},"
                      "\"s\":{\"dtype\":\"I64\",\"shape\":[],"
                      "\"data_offsets\":[30,38]}}"),
            0u);
}

TEST(SafetensorsHeaderTest, PadsTheJsonWithSpacesToEightBytes) {
  for (const char *name : {"a", "ab", "abc", "abcd", "abcde"}) {
    std::string json = jsonOf(encodeHeader({{name, "F32", {1}, 4}}));
    EXPECT_EQ(json.size() % 8, 0u) << name;
    size_t end = json.rfind('}');
    EXPECT_EQ(json.find_first_not_of(' ', end + 1), std::string::npos);
    std::optional<json::JsonValue> parsed = json::parseJson(json);
    ASSERT_TRUE(parsed) << json;
    EXPECT_TRUE(parsed->find(name)) << json;
  }
}

TEST(SafetensorsHeaderTest, PutsMetadataFirstAndQuotesNames) {
  std::string json = jsonOf(
      encodeHeader({{"layer \"1\"\\w", "F64", {1}, 8}}, {{"step", "3"}}));
  EXPECT_EQ(json.find("{\"__metadata__\":{\"step\":\"3\"},"
                      "\"layer \\\"1\\\"\\\\w\":"),
            0u);
  std::optional<json::JsonValue> parsed = json::parseJson(json);
  ASSERT_TRUE(parsed) << json;
  const json::JsonValue *tensor = parsed->find("layer \"1\"\\w");
  ASSERT_TRUE(tensor);
  EXPECT_EQ(tensor->find("dtype")->string, "F64");
}

TEST(SafetensorsHeaderTest, EncodesAnEmptyFile) {
  EXPECT_EQ(jsonOf(encodeHeader({})), "{}      ");
}
